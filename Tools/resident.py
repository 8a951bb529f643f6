#!/usr/bin/env python3
"""Which pages of a running process's own executable are resident, and whose
code or data they hold.

  Tools/resident.py snapshot PID OUT   # needs root: /proc/PID/pagemap
  Tools/resident.py report BINARY OUT  # OUT from snapshot; prints a table

snapshot writes, for every mapping of the process, its resident page count,
and for the mappings of its executable the link-time address of each
resident page. report attributes each resident page of the executable to a
section (.text, .rodata, .data, ...) and, in the code and data sections, to
the module owning most of the symbol bytes on that page (a Swift symbol's
module is in its mangled name; C symbols are grouped by prefix).
"""
import bisect
import json
import os
import re
import struct
import subprocess
import sys
from collections import Counter, defaultdict

PAGE = os.sysconf("SC_PAGE_SIZE")


def snapshot(pid, out):
    exe = os.path.realpath(f"/proc/{pid}/exe")
    maps = []
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            parts = line.split(maxsplit=5)
            lo, hi = (int(x, 16) for x in parts[0].split("-"))
            path = parts[5].strip() if len(parts) > 5 else ""
            maps.append((lo, hi, parts[1], int(parts[2], 16), path))
    base = min(lo - off for lo, _, _, off, path in maps if path == exe)
    result = {"exe": exe, "maps": [], "exe_pages": []}
    with open(f"/proc/{pid}/pagemap", "rb") as pm:
        for lo, hi, perms, off, path in maps:
            n = (hi - lo) // PAGE
            pm.seek(lo // PAGE * 8)
            raw = pm.read(n * 8)
            present = [i for i, (e,) in enumerate(struct.iter_unpack("<Q", raw)) if e >> 63 & 1]
            result["maps"].append({"range": f"{lo:x}-{hi:x}", "perms": perms,
                                   "path": path, "kib": n * PAGE // 1024,
                                   "resident_kib": len(present) * PAGE // 1024})
            if path == exe:
                result["exe_pages"] += [lo - base + i * PAGE for i in present]
    with open(out, "w") as f:
        json.dump(result, f)


C_GROUPS = [
    (re.compile(r"^(u|ucol|ubrk|ucal|udat|unum|uloc|ures|utrie|ucnv|ulist|uset|ustr|utext|uregex|uprv|ucase|uchar|unorm|uidna|utf8|icu)_|^icu_|^_ZN\d*icu|^_ZNK\d*icu|^_ZN\d+icu_"), "ICU"),
    (re.compile(r"^swift_|^_swift|^swift::|^_ZN5swift|^_ZNK5swift"), "Swift runtime"),
    (re.compile(r"^_CF|^CF|^__CF|^_NS|^__NS"), "CoreFoundation"),
    (re.compile(r"^CNIO|^c_nio|^cnio"), "NIO (C)"),
    (re.compile(r"^CCryptoBoringSSL|^CRYPTO_|^BORINGSSL|^CNIOBoringSSL|^boringssl"), "BoringSSL"),
    (re.compile(r"^_ZN|^_ZNK|^_ZS|^_ZT"), "C++ (other)"),
]
SWIFT_MOD = re.compile(r"^\$s(\d+)")
KNOWN_STD = re.compile(r"^\$s[Ss]")  # the standard library's substitutions ($sSS, $ss6Hasher…)


def module_of(name):
    if name.startswith("$s"):
        m = SWIFT_MOD.match(name)
        if m:
            n = int(m.group(1))
            start = m.end()
            return name[start:start + n]
        if KNOWN_STD.match(name):
            return "Swift"
        return "Swift (other)"
    for rx, group in C_GROUPS:
        if rx.search(name):
            return group
    return "C (other)"


def sections(binary):
    out = subprocess.run(["readelf", "-SW", binary], capture_output=True, text=True).stdout
    secs = []
    for line in out.splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+\S+\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)", line)
        if m and int(m.group(2), 16):
            secs.append((int(m.group(2), 16), int(m.group(2), 16) + int(m.group(3), 16), m.group(1)))
    return sorted(secs)


def symbols(binary):
    out = subprocess.run(["nm", "-S", "-n", "--defined-only", binary],
                         capture_output=True, text=True).stdout
    syms = []
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 4:
            syms.append((int(parts[0], 16), int(parts[1], 16), parts[3]))
    return syms


def report(binary, snap):
    with open(snap) as f:
        data = json.load(f)
    secs = sections(binary)
    starts = [s[0] for s in secs]
    syms = symbols(binary)
    sym_starts = [s[0] for s in syms]
    by_section = Counter()
    by_module = defaultdict(Counter)
    for page in data["exe_pages"]:
        i = bisect.bisect_right(starts, page) - 1
        sec = secs[i][2] if i >= 0 and page < secs[i][1] else "(headers / between sections)"
        by_section[sec] += 1
        if sec not in (".text", ".data", ".rodata", ".data.rel.ro"):
            continue
        owner = Counter()
        j = max(bisect.bisect_right(sym_starts, page) - 1, 0)
        while j < len(syms) and syms[j][0] < page + PAGE:
            a, size, name = syms[j]
            overlap = min(a + size, page + PAGE) - max(a, page)
            if overlap > 0:
                owner[module_of(name)] += overlap
            j += 1
        by_module[sec][owner.most_common(1)[0][0] if owner else "(no symbol)"] += 1
    kib = PAGE // 1024
    print("| mapping | perms | mapped (KiB) | resident (KiB) |")
    print("|---|---|---|---|")
    groups = Counter()
    for m in data["maps"]:
        name = m["path"] or "(anonymous)"
        if name == data["exe"]:
            name = "the executable"
        groups[(name, m["perms"])] += m["resident_kib"]
    for (name, perms), k in sorted(groups.items(), key=lambda kv: -kv[1]):
        if k:
            print(f"| {os.path.basename(name) if name.startswith('/') else name} | {perms} | | {k} |")
    print()
    print("| section of the executable | resident (KiB) |")
    print("|---|---|")
    for sec, n in by_section.most_common():
        print(f"| {sec} | {n * kib} |")
    for sec in by_module:
        print()
        print(f"| {sec}: page owner | resident (KiB) |")
        print("|---|---|")
        for mod, n in by_module[sec].most_common(25):
            print(f"| {mod} | {n * kib} |")


if __name__ == "__main__":
    if len(sys.argv) == 4 and sys.argv[1] == "snapshot":
        snapshot(int(sys.argv[2]), sys.argv[3])
    elif len(sys.argv) == 4 and sys.argv[1] == "report":
        report(sys.argv[2], sys.argv[3])
    else:
        sys.exit(__doc__)
