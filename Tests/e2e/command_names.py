#!/usr/bin/env python3
"""Every command of tongban and tongban-server names itself.

Without `commandName:`, argument-parser derives a command's name from its
type with String(describing:) at every start, and those dynamic casts scan
the static binary's protocol conformances: 87 of them cost the client a
third of its time to the first frame (BENCHMARKS.md).
"""
import pathlib, re, sys

missing = []
paths = [*pathlib.Path("Sources/tongban").rglob("*.swift"), *pathlib.Path("Sources/tongban-server").rglob("*.swift")]
for path in sorted(paths):
    text = path.read_text(encoding="utf-8")
    for m in re.finditer(r"CommandConfiguration\(", text):
        depth, i = 1, m.end()
        while depth and i < len(text):
            depth += {"(": 1, ")": -1}.get(text[i], 0)
            i += 1
        if not re.match(r"\s*commandName:", text[m.end():i]):
            missing.append(f"{path}:{text.count(chr(10), 0, m.start()) + 1}")
if missing:
    print("commands without commandName (first argument):", *missing, sep="\n  ")
    sys.exit(1)
print("command names OK: every CommandConfiguration names its command")
