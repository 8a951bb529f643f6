#!/usr/bin/env python3
"""Load and checks for Tests/fault/fault_e2e.sh (standard library only).

Subcommands (all talk to 127.0.0.1 only):
  setup    --port P --state F [--users 50]      register users, start pair conversations
  blast    --port P --state F --pid PID --min-acked N --out R
                                                 one sender thread per user; kill -9 PID once
                                                 N sends were acknowledged; records every send
  verify   --port P --state F --results R       retry every unacknowledged send with the same
                                                 clientMsgId, then check every conversation
  fulldisk --port P --pid PID --data-dir D       fill the data dir's file system, send until
                                                 the server refuses, check, free, retry, check

Every subcommand prints `ok ...` / `FAIL ...` lines and, last, `CHECKS <passed> <failed>`;
it exits 1 if a check failed.
"""
import argparse
import errno
import http.client
import json
import os
import signal
import struct
import sys
import threading
import time
import uuid
import zlib

HOST = "127.0.0.1"
PASSWORD = "fault-password-1"


# ---------------------------------------------------------------- checks

class Checks:
    def __init__(self):
        self.passed = 0
        self.failed = 0

    def ok(self, cond, what, detail=""):
        if cond:
            self.passed += 1
            print(f"ok {what}", flush=True)
        else:
            self.failed += 1
            print(f"FAIL {what}" + (f": {detail}" if detail else ""), flush=True)
        return cond

    def finish(self):
        print(f"CHECKS {self.passed} {self.failed}", flush=True)
        sys.exit(1 if self.failed else 0)


CK = Checks()


class Abort(Exception):
    """The server is gone: the rest of the subcommand's checks cannot run."""


def short(b, n=300):
    if isinstance(b, bytes):
        b = b.decode("utf-8", "replace")
    b = str(b)
    return b if len(b) <= n else b[:n] + "..."


# ---------------------------------------------------------------- HTTP

class Client:
    """One keep-alive connection; reconnects after an error."""

    def __init__(self, port, token=None, timeout=10.0):
        self.port = port
        self.token = token
        self.timeout = timeout
        self.conn = None

    def close(self):
        if self.conn is not None:
            try:
                self.conn.close()
            except Exception:
                pass
            self.conn = None

    def request(self, method, path, body=None, raw=None, content_type=None):
        """(status, headers dict lower-case, body bytes); raises OSError /
        http.client.HTTPException when the server does not answer."""
        if self.conn is None:
            self.conn = http.client.HTTPConnection(HOST, self.port, timeout=self.timeout)
        headers = {}
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            headers["Content-Type"] = "application/json; charset=utf-8"
        if raw is not None:
            data = raw
            headers["Content-Type"] = content_type
        if self.token:
            headers["Authorization"] = "Bearer " + self.token
        try:
            self.conn.request(method, path, body=data, headers=headers)
            resp = self.conn.getresponse()
            payload = resp.read()
            hdrs = {k.lower(): v for k, v in resp.getheaders()}
            if hdrs.get("connection", "").lower() == "close":
                self.close()
            return resp.status, hdrs, payload
        except Exception:
            self.close()
            raise


def call(port, method, path, body=None, token=None, expect=None, timeout=10.0):
    c = Client(port, token, timeout)
    try:
        st, h, b = c.request(method, path, body)
    finally:
        c.close()
    if expect is not None and st != expect:
        raise RuntimeError(f"{method} {path} -> {st} {short(b)}")
    return st, h, (json.loads(b) if b else None)


def conv_id(uid_a, uid_b):
    a, b = sorted([f"tb_{uid_a}", f"tb_{uid_b}"])
    return f"si_{a}_{b}"


def history(port, token, cid):
    """All messages of `cid`, paging forward with after_seq (bounded)."""
    out = []
    after = 0
    for _ in range(1000):
        st, _, body = call(port, "GET", f"/chat/messages?conversation_id={cid}&after_seq={after}&limit=100", token=token)
        if st != 200:
            raise RuntimeError(f"history {cid} after {after} -> {st} {body}")
        msgs = body["messages"]
        out.extend(msgs)
        if not body.get("hasMore") or not msgs:
            break
        after = msgs[-1]["seq"]
    return out


def check_timeline(msgs, expected_stored, acked, retried, sender_im):
    """Shared checks on one conversation's full history.

    expected_stored: {cmid: text} of every message that must be stored now;
    acked: {cmid: seq} answered 200 (must be there at that seq);
    retried: {cmid: seq} the retry's answer; sender_im: {cmid: "tb_N"}.
    Returns [(category, text)]: a = acknowledged send lost, moved or altered,
    b = seqs, c = a clientMsgID twice, d = a retried or other message missing or extra."""
    errors = []
    seqs = [m["seq"] for m in msgs]
    if seqs != list(range(1, len(msgs) + 1)):
        holes = sorted(set(range(1, (max(seqs) if seqs else 0) + 1)) - set(seqs))
        errors.append(("b", f"seqs are not 1..{len(msgs)} in order (holes {holes[:10]}, first seqs {seqs[:10]})"))
    by_cmid = {}
    dups = set()
    for m in msgs:
        c = m["clientMsgID"]
        if c in by_cmid:
            dups.add(c)
        by_cmid[c] = m
    if dups:
        errors.append(("c", f"{len(dups)} clientMsgIDs stored twice, e.g. {sorted(dups)[:3]}"))
    for c, seq in acked.items():
        m = by_cmid.get(c)
        if m is None:
            errors.append(("a", f"acknowledged {c} (seq {seq}) is missing"))
        elif m["seq"] != seq:
            errors.append(("a", f"acknowledged {c} was answered seq {seq} but is stored at seq {m['seq']}"))
    for c, seq in retried.items():
        m = by_cmid.get(c)
        if m is None:
            errors.append(("d", f"retried {c} (answered seq {seq}) is missing"))
        elif m["seq"] != seq:
            errors.append(("d", f"retried {c} was answered seq {seq} but is stored at seq {m['seq']}"))
    for c, text in expected_stored.items():
        m = by_cmid.get(c)
        cat = "a" if c in acked else "d"
        if m is None:
            if c not in acked and c not in retried:
                errors.append(("d", f"{c} is missing"))
            continue
        if m["content"] != text or m["contentType"] != 101:
            errors.append((cat, f"{c} at seq {m['seq']} has content {short(m['content'], 60)!r} type {m['contentType']}, sent {short(text, 60)!r}"))
        if c in sender_im and m["sendID"] != sender_im[c]:
            errors.append((cat, f"{c} has sendID {m['sendID']}, sent by {sender_im[c]}"))
    unknown = [c for c in by_cmid if c not in expected_stored]
    if unknown:
        errors.append(("d", f"{len(unknown)} stored messages nobody should have stored, e.g. {unknown[:3]}"))
    return errors


# ---------------------------------------------------------------- part 1

def cmd_setup(a):
    ck = CK
    n = a.users
    users = [None] * n
    errs = []

    def reg(i):
        try:
            _, _, b = call(a.port, "POST", "/auth/register",
                           {"account": f"{a.prefix}{i:02d}", "password": PASSWORD}, expect=201, timeout=30)
            users[i] = {"uid": b["uid"], "token": b["token"], "imUid": b["imUid"]}
        except Exception as e:
            errs.append(f"register {a.prefix}{i:02d}: {e}")

    run_threads([lambda i=i: reg(i) for i in range(n)], width=8)
    ck.ok(not errs, f"registered {n} users", "; ".join(errs[:3]))
    if errs:
        ck.finish()
    pairs = []
    for i in range(0, n, 2):
        u, v = users[i], users[i + 1]
        cid = conv_id(u["uid"], v["uid"])
        try:
            _, _, s = call(a.port, "POST", "/chat/conversation/start", {"user_id": v["uid"]}, token=u["token"], expect=200)
            if s.get("conversationId") != cid:
                errs.append(f"start {i}: conversationId {s.get('conversationId')}, PROTOCOL.md says {cid}")
        except Exception as e:
            errs.append(f"start {i}: {e}")
        pairs.append({"cid": cid, "members": [i, i + 1]})
    ck.ok(not errs, f"started {len(pairs)} pair conversations with PROTOCOL.md's ids", "; ".join(errs[:3]))
    with open(a.state, "w") as f:
        json.dump({"users": users, "pairs": pairs}, f)
    ck.finish()


def run_threads(fns, width):
    """Runs the callables on at most `width` threads at a time."""
    sem = threading.Semaphore(width)

    def wrap(fn):
        with sem:
            fn()
    ts = [threading.Thread(target=wrap, args=(fn,)) for fn in fns]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)


def cmd_blast(a):
    ck = CK
    st = json.load(open(a.state))
    users, pairs = st["users"], st["pairs"]
    cid_of = {}
    for p in pairs:
        for m in p["members"]:
            cid_of[m] = p["cid"]
    lock = threading.Lock()
    acked = [0]
    killed = threading.Event()
    records = []          # every attempted send
    early_errors = []     # anything but 200 before the kill
    deadline = time.monotonic() + a.max_seconds

    def sender(i):
        c = Client(a.port, users[i]["token"], timeout=10)
        for n in range(a.max_per_sender):
            if time.monotonic() > deadline:
                break
            cmid = uuid.uuid4().hex
            text = f"fault {i:02d} #{n} {cmid[:8]} 断电测试"
            rec = {"sender": i, "cid": cid_of[i], "cmid": cmid, "text": text}
            with lock:
                records.append(rec)
            try:
                status, _, body = c.request("POST", "/chat/message/send", {
                    "recvID": cid_of[i], "content": text, "contentType": 101, "clientMsgId": cmid})
            except Exception as e:
                rec["state"] = "unacked"
                rec["error"] = f"{type(e).__name__}: {e}"
                if not killed.is_set():
                    with lock:
                        early_errors.append(f"sender {i} lost the server before the kill: {rec['error']}")
                break
            if status == 200:
                b = json.loads(body)
                rec["state"] = "acked"
                rec["seq"] = b["seq"]
                rec["serverMsgID"] = b["serverMsgID"]
                if b.get("clientMsgID") != cmid:
                    with lock:
                        early_errors.append(f"send {cmid} answered clientMsgID {b.get('clientMsgID')}")
                with lock:
                    acked[0] += 1
            else:
                rec["state"] = "unacked"
                rec["error"] = f"HTTP {status} {short(body)}"
                with lock:
                    early_errors.append(f"sender {i}: send answered {status} {short(body)}")
                break
        c.close()

    threads = [threading.Thread(target=sender, args=(i,), daemon=True) for i in range(len(users))]
    t0 = time.monotonic()
    for t in threads:
        t.start()
    # Wait for the count of acknowledged sends, not for a time (bounded).
    while time.monotonic() < deadline:
        with lock:
            if acked[0] >= a.min_acked or early_errors:
                break
        if not any(t.is_alive() for t in threads):
            break
        time.sleep(0.005)
    with lock:
        at_kill = acked[0]
    killed.set()
    os.kill(a.pid, signal.SIGKILL)
    t_kill = time.monotonic() - t0
    for t in threads:
        t.join(20)
    alive = sum(t.is_alive() for t in threads)
    with lock:
        recs = list(records)
    for r in recs:
        r.setdefault("state", "unacked")
        r.setdefault("error", "sender did not finish")
    n_acked = sum(r["state"] == "acked" for r in recs)
    n_unacked = sum(r["state"] == "unacked" for r in recs)
    print(f"blast: kill -9 after {t_kill:.2f}s with {at_kill} acknowledged; "
          f"{len(recs)} sends attempted, {n_acked} acknowledged, {n_unacked} not", flush=True)
    ck.ok(at_kill >= a.min_acked, f"at least {a.min_acked} sends acknowledged before kill -9 ({at_kill})",
          "the senders stopped or the time ran out first")
    ck.ok(not early_errors, "no send failed before the kill", "; ".join(early_errors[:5]))
    ck.ok(alive == 0, "every sender stopped after the kill", f"{alive} still running")
    with open(a.out, "w") as f:
        json.dump(recs, f)
    ck.finish()


def cmd_verify(a):
    ck = CK
    st = json.load(open(a.state))
    users, pairs = st["users"], st["pairs"]
    recs = json.load(open(a.results))
    tok_of_cid = {p["cid"]: users[p["members"][0]]["token"] for p in pairs}

    # What the restarted server holds before any retry.
    before = {}
    for p in pairs:
        before[p["cid"]] = {m["clientMsgID"]: m for m in history(a.port, tok_of_cid[p["cid"]], p["cid"])}
    unacked = [r for r in recs if r["state"] == "unacked"]
    stored_unanswered = {r["cmid"] for r in unacked if r["cmid"] in before[r["cid"]]}

    # Retries: same clientMsgId, same text, from the same sender; one thread per sender.
    errors = []
    lock = threading.Lock()
    by_sender = {}
    for r in unacked:
        by_sender.setdefault(r["sender"], []).append(r)

    def retry(rs):
        c = Client(a.port, users[rs[0]["sender"]]["token"], timeout=10)
        for r in rs:
            for attempt in range(3):
                try:
                    status, _, body = c.request("POST", "/chat/message/send", {
                        "recvID": r["cid"], "content": r["text"], "contentType": 101, "clientMsgId": r["cmid"]})
                except Exception as e:
                    r["retry_error"] = f"{type(e).__name__}: {e}"
                    continue
                if status == 200:
                    r["retry_seq"] = json.loads(body)["seq"]
                    break
                r["retry_error"] = f"HTTP {status} {short(body)}"
                break
            if "retry_seq" not in r:
                with lock:
                    errors.append(f"retry of {r['cmid']} failed: {r.get('retry_error')}")
        c.close()

    run_threads([lambda rs=rs: retry(rs) for rs in by_sender.values()], width=50)
    ck.ok(not errors, f"all {len(unacked)} unacknowledged sends retried with their clientMsgId answered 200",
          "; ".join(errors[:5]))
    same = [r for r in unacked if r["cmid"] in stored_unanswered and "retry_seq" in r
            and r["retry_seq"] != before[r["cid"]][r["cmid"]]["seq"]]
    ck.ok(not same, f"retries of the {len(stored_unanswered)} sends stored but unanswered before the kill got their stored seq",
          "; ".join(f"{r['cmid']}: stored at {before[r['cid']][r['cmid']]['seq']}, retry answered {r['retry_seq']}" for r in same[:5]))

    # The checks on every conversation.
    total = 0
    problems = []
    for p in pairs:
        cid = p["cid"]
        msgs = history(a.port, tok_of_cid[cid], cid)
        total += len(msgs)
        mine = [r for r in recs if r["cid"] == cid]
        expected = {r["cmid"]: r["text"] for r in mine}
        acked = {r["cmid"]: r["seq"] for r in mine if r["state"] == "acked"}
        retried = {r["cmid"]: r["retry_seq"] for r in mine if "retry_seq" in r}
        sender_im = {r["cmid"]: users[r["sender"]]["imUid"] for r in mine}
        for cat, e in check_timeline(msgs, expected, acked, retried, sender_im):
            problems.append((cat, f"{cid}: {e}"))
        # The conversation's maxSeq (updated in the same transaction) agrees.
        _, _, convs = call(a.port, "GET", "/chat/conversations", token=tok_of_cid[cid], expect=200)
        summ = [c for c in convs if c["conversationId"] == cid]
        if not summ or summ[0]["maxSeq"] != len(msgs):
            problems.append(("b", f"{cid}: maxSeq {summ[0]['maxSeq'] if summ else None}, history has {len(msgs)}"))
    acked_n = sum(r["state"] == "acked" for r in recs)
    print(f"part1 summary: acked before kill {acked_n}, unacked {len(unacked)} "
          f"(of which stored before the kill {len(stored_unanswered)}), retried {len(unacked)}, "
          f"total stored {total} in {len(pairs)} conversations", flush=True)
    cats = {
        "a": "(a) every acknowledged send is stored at its answered seq with its text and sender",
        "b": "(b) seqs are 1..N without holes, in order; the conversation's maxSeq agrees",
        "c": "(c) no clientMsgID stored twice",
        "d": "(d) every retried message stored exactly once at its answered seq; nothing else stored",
    }
    for cat, name in cats.items():
        mine = [t for c, t in problems if c == cat]
        ck.ok(not mine, name, "; ".join(mine[:5]))
    ck.ok(total == len(recs), f"stored messages ({total}) = distinct messages sent ({len(recs)})")
    ck.finish()


# ---------------------------------------------------------------- part 2

def tiny_png():
    def chunk(kind, data):
        c = struct.pack(">I", len(data)) + kind + data
        return c + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    raw = b"".join(b"\x00" + bytes([200, 30, 30]) * 4 for _ in range(4))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 4, 4, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def free_bytes(path):
    s = os.statvfs(path)
    return s.f_bavail * s.f_frsize


def fill_to_the_brim(path, cap_bytes):
    """Writes a file until ENOSPC (bounded by the file system's size)."""
    written = 0
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o600)
    try:
        for chunk in (65536, 4096, 512):
            block = b"\0" * chunk
            for _ in range(cap_bytes // chunk + 2):
                try:
                    os.write(fd, block)
                    written += chunk
                except OSError as e:
                    if e.errno in (errno.ENOSPC, errno.EDQUOT):
                        break
                    raise
    finally:
        os.close(fd)
    return written


def cmd_fulldisk(a):
    ck = CK
    port = a.port
    report = []

    def alive():
        try:
            os.kill(a.pid, 0)
        except OSError:
            return False
        try:
            st, _, _ = call(port, "GET", "/healthz", timeout=5)
            return st == 200
        except Exception:
            return False

    def require_alive(what):
        if not ck.ok(alive(), f"the server is alive (healthz 200) {what}"):
            raise Abort(f"the server no longer answers ({what}); see its log below")

    def say(line):
        report.append(line)
        print("fulldisk: " + line, flush=True)

    users = []
    for name in ("fault_disk_a", "fault_disk_b"):
        _, _, b = call(port, "POST", "/auth/register", {"account": name, "password": PASSWORD}, expect=201, timeout=30)
        users.append(b)
    cid = conv_id(users[0]["uid"], users[1]["uid"])
    call(port, "POST", "/chat/conversation/start", {"user_id": users[1]["uid"]}, token=users[0]["token"], expect=200)
    png = tiny_png()

    def upload(who=0):
        c = Client(port, users[who]["token"])
        try:
            return c.request("POST", "/media/upload?type=chat_image", raw=png, content_type="image/png")
        finally:
            c.close()

    st, _, body = upload()
    ck.ok(st == 201, "upload of a small PNG works before the disk fills", f"{st} {short(body)}")

    lock = threading.Lock()
    sent = []   # {"cmid","text","who","status","seq"?,"body"}

    def send(c, who, cmid, text):
        rec = {"cmid": cmid, "text": text, "who": who}
        try:
            status, h, body = c.request("POST", "/chat/message/send", {
                "recvID": cid, "content": text, "contentType": 101, "clientMsgId": cmid})
            rec["status"] = status
            rec["body"] = short(body, 400)
            rec["retry_after"] = h.get("retry-after")
            if status == 200:
                rec["seq"] = json.loads(body)["seq"]
        except Exception as e:
            rec["status"] = None
            rec["body"] = f"{type(e).__name__}: {e}"
        with lock:
            sent.append(rec)
        return rec

    c0 = Client(port, users[0]["token"])
    for i in range(3):
        r = send(c0, 0, uuid.uuid4().hex, f"before full #{i}")
        ck.ok(r["status"] == 200, f"send #{i} before the disk fills", f"{r['status']} {r['body']}")
    c0.close()

    # Leave a little room, then send ~2 KB texts from four threads until refused.
    size = os.statvfs(a.data_dir).f_blocks * os.statvfs(a.data_dir).f_frsize
    avail = free_bytes(a.data_dir)
    keep = 512 * 1024
    filler = os.path.join(a.data_dir, "filler.bin")
    fd = os.open(filler, os.O_WRONLY | os.O_CREAT, 0o600)
    try:
        os.posix_fallocate(fd, 0, max(avail - keep, 4096))
    finally:
        os.close(fd)
    say(f"tmpfs {size // 1024} KiB, {avail // 1024} KiB free after start; filler leaves {free_bytes(a.data_dir) // 1024} KiB")

    stop = threading.Event()
    first_refusal = []

    def flood(t):
        who = t % 2
        c = Client(port, users[who]["token"])
        for n in range(400):
            if stop.is_set():
                break
            r = send(c, who, uuid.uuid4().hex, f"flood {t}.{n} " + ("满" * 16 + "x" * 48) * 30)
            if r["status"] != 200:
                with lock:
                    if not first_refusal:
                        first_refusal.append(r)
                stop.set()
                break
        c.close()

    threads = [threading.Thread(target=flood, args=(t,), daemon=True) for t in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    flood_recs = [r for r in sent if r["text"].startswith("flood")]
    ok_n = sum(r["status"] == 200 for r in flood_recs)
    refused = [r for r in flood_recs if r["status"] != 200]
    say(f"flood: {ok_n} sends answered 200, {len(refused)} not; free now {free_bytes(a.data_dir)} bytes")
    for r in refused:
        say(f"  send not answered 200: status {r['status']} Retry-After {r.get('retry_after')} body {r['body']}")
    ck.ok(bool(refused), "the server refuses sends once the disk is full", "no refusal in 2400 sends")
    bad = [r for r in refused if r["status"] != 503 or '"storage_full"' not in r["body"]]
    ck.ok(refused and not bad, "every refusal while the disk fills is 503 storage_full",
          "; ".join(f"{r['status']} {r['body']}" for r in bad[:3]))
    require_alive("after the disk filled")

    # Now fill the rest entirely. A send may still commit into WAL pages the
    # file already has (no new space needed): 200 is a right answer then,
    # as long as the message is stored. Anything but 200 or 503 storage_full
    # is wrong, and once the WAL must grow the server has to refuse.
    extra = fill_to_the_brim(os.path.join(a.data_dir, "filler2.bin"), size)
    say(f"topped up {extra} bytes; free now {free_bytes(a.data_dir)} bytes")
    clients = [Client(port, users[0]["token"]), Client(port, users[1]["token"])]
    full_recs = []
    for i in range(80):
        r = send(clients[i % 2], i % 2, uuid.uuid4().hex, f"while full #{i} " + "x" * 1500)
        full_recs.append(r)
        if r["status"] != 200:
            break
    # Two more after the first refusal: still refused (or stored), never worse.
    for i in range(2):
        full_recs.append(send(clients[i % 2], i % 2, uuid.uuid4().hex, f"while full, again #{i}"))
    for c in clients:
        c.close()
    n200 = sum(r["status"] == 200 for r in full_recs)
    say(f"  sends on the 100% full disk: {n200} answered 200 (WAL space already allocated), then:")
    for r in full_recs:
        if r["status"] != 200:
            say(f"  send while 100% full: status {r['status']} Retry-After {r.get('retry_after')} body {r['body']}")
    bad = [r for r in full_recs if r["status"] != 200 and (r["status"] != 503 or '"storage_full"' not in r["body"])]
    ck.ok(not bad, "sends on a 100% full disk answer 503 storage_full (or 200 while the WAL has room)",
          "; ".join(f"{r['status']} {r['body']}" for r in bad[:3]))
    ck.ok(any(r["status"] == 503 for r in full_recs), "the server refuses sends on the 100% full disk",
          f"all {len(full_recs)} sends answered 200")
    try:
        st, h, body = upload(1)
        say(f"  upload while full: status {st} Retry-After {h.get('retry-after')} body {short(body, 400)}")
    except Exception as e:
        st, body = None, f"{type(e).__name__}: {e}"
        say(f"  upload while full: no answer: {body}")
    ck.ok(st == 503 and b'"storage_full"' in (body if isinstance(body, bytes) else b""),
          "an upload on a full disk answers 503 storage_full", f"{st} {short(body)}")
    # Other writes: stored (2xx) or 503 storage_full, never a 500.
    others = []
    for what, method, path, body_ in (
            ("register", "POST", "/auth/register", {"account": "fault_disk_c", "password": PASSWORD}),
            ("login", "POST", "/auth/login", {"account": "fault_disk_a", "password": PASSWORD}),
            ("read mark", "POST", "/chat/conversation/read", {"conversation_id": cid, "seq": 1})):
        c = Client(port, users[1]["token"] if what == "read mark" else None)
        try:
            st, _, b = c.request(method, path, body_)
        except Exception as e:
            st, b = None, f"{type(e).__name__}: {e}".encode()
        finally:
            c.close()
        say(f"  {what} while full: status {st} body {short(b, 200)}")
        if not (200 <= (st or 0) < 300 or (st == 503 and b'"storage_full"' in b)):
            others.append(f"{what}: {st} {short(b)}")
    ck.ok(not others, "register, login and a read mark on a full disk answer 2xx or 503 storage_full", "; ".join(others))
    require_alive("on a 100% full disk")

    # History while full: answered sends there, refused ones not.
    try:
        msgs = history(port, users[0]["token"], cid)
        hist_err = None
    except Exception as e:
        msgs, hist_err = [], str(e)
    ck.ok(hist_err is None, "history can be read while the disk is full", hist_err or "")
    stored = {m["clientMsgID"]: m for m in msgs}
    acked = {r["cmid"]: r["seq"] for r in sent if r["status"] == 200}
    expected = {r["cmid"]: r["text"] for r in sent if r["status"] == 200}
    im = {r["cmid"]: users[r["who"]]["imUid"] for r in sent}
    errs = check_timeline(msgs, expected, acked, {}, im)
    errs = [t for _, t in errs]
    ck.ok(not errs, f"while full: the {len(acked)} answered sends are stored at their seqs, seqs 1..{len(msgs)}",
          "; ".join(errs[:5]))
    half = [r["cmid"] for r in sent if r["status"] != 200 and r["cmid"] in stored]
    ck.ok(not half, "no refused send was stored (nothing half-written)", f"{len(half)} stored, e.g. {half[:3]}")

    # Free the space; retry the refused sends with the same clientMsgId.
    os.unlink(filler)
    os.unlink(os.path.join(a.data_dir, "filler2.bin"))
    say(f"freed the fillers; free now {free_bytes(a.data_dir) // 1024} KiB")
    require_alive("after the space was freed")
    failed = [r for r in sent if r["status"] != 200]
    retried = {}
    retry_errs = []
    clients = [Client(port, users[0]["token"]), Client(port, users[1]["token"])]
    for r in failed:
        for attempt in range(2):   # the same id twice: the second must be the first's answer
            try:
                st, _, body = clients[r["who"]].request("POST", "/chat/message/send", {
                    "recvID": cid, "content": r["text"], "contentType": 101, "clientMsgId": r["cmid"]})
            except Exception as e:
                st, body = None, f"{type(e).__name__}: {e}".encode()
            if st != 200:
                retry_errs.append(f"{r['cmid']} attempt {attempt + 1}: {st} {short(body)}")
                break
            seq = json.loads(body)["seq"]
            if attempt == 1 and retried.get(r["cmid"]) != seq:
                retry_errs.append(f"{r['cmid']}: repeated retry answered seq {seq}, first retry {retried.get(r['cmid'])}")
            retried[r["cmid"]] = seq
    if retry_errs:
        say("  retries after freeing: " + "; ".join(retry_errs[:5]))
    ck.ok(not retry_errs, f"after freeing space the {len(failed)} refused sends, retried (twice) with their clientMsgId, answer 200 with one seq",
          "; ".join(retry_errs[:5]))
    new_ok = []
    for i in range(3):
        r = send(clients[i % 2], i % 2, uuid.uuid4().hex, f"after free #{i}")
        new_ok.append(r["status"] == 200)
        if r["status"] != 200:
            say(f"  new send after freeing: {r['status']} {r['body']}")
    for c in clients:
        c.close()
    ck.ok(all(new_ok), "new sends after freeing space answer 200")
    st, _, body = upload(0)
    say(f"  upload after freeing: status {st} body {short(body, 200)}")
    ck.ok(st == 201, "an upload after freeing space answers 201", f"{st} {short(body)}")

    msgs = history(port, users[0]["token"], cid)
    acked = {r["cmid"]: r["seq"] for r in sent if r["status"] == 200}
    expected = {r["cmid"]: r["text"] for r in sent}
    im = {r["cmid"]: users[r["who"]]["imUid"] for r in sent}
    errs = check_timeline(msgs, expected, acked, retried, im)
    errs = [t for _, t in errs]
    ck.ok(not errs, f"after freeing: every send stored exactly once at its answered seq, seqs 1..{len(msgs)} without holes",
          "; ".join(errs[:5]))
    require_alive("at the end of the full-disk part")
    say(f"summary: {len(sent)} sends, {sum(r['status'] == 200 for r in sent)} answered 200 at first, "
        f"{len(failed)} refused and retried, {len(msgs)} stored")
    ck.finish()


def main():
    p = argparse.ArgumentParser()
    sub = p.add_subparsers(dest="cmd", required=True)
    s = sub.add_parser("setup")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--state", required=True)
    s.add_argument("--users", type=int, default=50)
    s.add_argument("--prefix", default="fault_u")
    s = sub.add_parser("blast")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--state", required=True)
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--min-acked", type=int, default=300)
    s.add_argument("--max-per-sender", type=int, default=2000)
    s.add_argument("--max-seconds", type=float, default=30)
    s.add_argument("--out", required=True)
    s = sub.add_parser("verify")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--state", required=True)
    s.add_argument("--results", required=True)
    s = sub.add_parser("fulldisk")
    s.add_argument("--port", type=int, required=True)
    s.add_argument("--pid", type=int, required=True)
    s.add_argument("--data-dir", required=True)
    a = p.parse_args()
    try:
        {"setup": cmd_setup, "blast": cmd_blast, "verify": cmd_verify, "fulldisk": cmd_fulldisk}[a.cmd](a)
    except Abort as e:
        CK.ok(False, f"{a.cmd}: stopped early", str(e))
    except Exception as e:
        import traceback
        traceback.print_exc(file=sys.stdout)
        CK.ok(False, f"{a.cmd}: load.py raised {type(e).__name__}", str(e))
    CK.finish()


if __name__ == "__main__":
    main()
