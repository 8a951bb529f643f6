#!/usr/bin/env python3
"""A hostile client against a real tongban-server with its default limits
(PROTOCOL.md v4 "Limits and consent"), over plain HTTP: each leak issue 46
reproduced is tried again and must be refused, and a flood of wrong logins
from 48 connections and several addresses runs beside a normal user, whose
sends and /healthz must still be answered while every flood request gets
401 or 429, never a time-out. Exits non-zero on the first failure."""
import argparse, concurrent.futures, json, os, re, shutil, struct, subprocess, sys, tempfile, time, urllib.request, uuid, zlib

ap = argparse.ArgumentParser()
ap.add_argument("--bin", default=".build/debug")
args = ap.parse_args()
work = tempfile.mkdtemp(prefix="tongban-abuse-e2e.")
log_path = os.path.join(work, "server.log")
passed = 0


def fail(why):
    print(f"abuse e2e FAIL: {why}")
    try:
        print("".join(open(log_path).readlines()[-5:]))
    except OSError:
        pass
    sys.exit(1)


def ok():
    global passed
    passed += 1


log = open(log_path, "w")
server = subprocess.Popen([os.path.join(args.bin, "tongban-server"), "--port", "0", "--data-dir", os.path.join(work, "data"),
                           "--log-level", "info"], stdout=subprocess.DEVNULL, stderr=log)
try:
    port = None
    for _ in range(400):
        m = re.search(r"listening on http://127\.0\.0\.1:(\d+)", open(log_path).read())
        if m:
            port = int(m.group(1))
            break
        if server.poll() is not None:
            fail("the server exited")
        time.sleep(0.05)
    if port is None:
        fail("the server did not start")
    base = f"http://127.0.0.1:{port}"

    def call(method, path, body=None, token=None, headers=None, raw=None, content_type="application/json", timeout=10):
        data = raw if raw is not None else (json.dumps(body).encode() if body is not None else None)
        req = urllib.request.Request(base + path, data=data, method=method)
        if data is not None:
            req.add_header("Content-Type", content_type)
        if token:
            req.add_header("Authorization", "Bearer " + token)
        for k, v in (headers or {}).items():
            req.add_header(k, v)
        try:
            with urllib.request.urlopen(req, timeout=timeout) as r:
                text = r.read()
                return r.status, (json.loads(text) if text else None)
        except urllib.error.HTTPError as e:
            text = e.read()
            try:
                return e.code, json.loads(text)
            except ValueError:
                return e.code, None

    def user(name):
        status, body = call("POST", "/auth/register", {"account": name, "password": "password-" + name})
        if status != 201:
            fail(f"register {name}: {status} {body}")
        return body

    def single(a, b):
        return "si_" + "_".join(sorted([a["imUid"], b["imUid"]]))

    def send(who, conv, content_type, content, msg_id=None):
        return call("POST", "/chat/message/send", {"recvID": conv, "content": content, "contentType": content_type,
                                                    "clientMsgId": msg_id or str(uuid.uuid4())}, token=who["token"])

    def png(w, h, noise=False):
        raw = b"".join(b"\x00" + (os.urandom(w * 3) if noise else bytes(w * 3)) for _ in range(h))
        def chunk(t, d):
            return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xFFFFFFFF)
        return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + \
            chunk(b"IDAT", zlib.compress(raw, 1)) + chunk(b"IEND", b"")

    def upload(who, data):
        status, body = call("POST", "/media/upload?type=chat_image", raw=data, token=who["token"], content_type="image/png")
        if status != 201:
            fail(f"upload: {status} {body}")
        return body["objectKey"]

    def image(key):
        return json.dumps({"type": "image", "objectKey": key, "url": "", "expireAt": 0, "w": 4, "h": 4})

    alice, bob, carol, mallory = (user(n) for n in ("alice", "bob", "carol", "mallory"))

    # History before joining: an older member's reaction must not bring Alice's secret to Bob.
    status, group = call("POST", "/group/create", {"name": "hikers", "unique_name": "hikers", "member_ids": [carol["uid"]]},
                         token=alice["token"])
    if status != 201:
        fail(f"create group: {status} {group}")
    conv = group["conversationId"]
    send(alice, conv, 101, "secret", "secret-1")
    secret_key = upload(alice, png(4, 4))
    send(alice, conv, 110, image(secret_key))
    if call("POST", "/group/join", {"unique_name": "hikers"}, token=bob["token"])[0] != 200:
        fail("bob joins")
    if call("POST", "/chat/message/react", {"conversation_id": conv, "client_msg_id": "secret-1", "emoji": "👍", "on": True},
            token=carol["token"])[0] != 200:
        fail("carol reacts")
    _, page = call("GET", "/chat/sync?since=0&limit=1000", token=bob["token"])
    if "secret" in json.dumps(page, ensure_ascii=False):
        fail("Bob's sync carries Alice's message from before he joined")
    ok()
    _, signed = call("POST", "/media/sign", {"object_keys": [secret_key]}, token=bob["token"])
    if signed["urls"]:
        fail("Bob could sign a picture sent before he joined")
    ok()

    # Blocking holds: Mallory cannot put Bob in a group.
    if call("POST", "/block/add", {"user_id": mallory["uid"]}, token=bob["token"])[0] != 204:
        fail("bob blocks mallory")
    status, trap = call("POST", "/group/create", {"name": "trap", "unique_name": "trap", "member_ids": [bob["uid"]]},
                        token=mallory["token"])
    if status != 201 or [n["userId"] for n in trap.get("notAdded", [])] != [bob["imUid"]] or trap["memberCount"] != 1:
        fail(f"Mallory put Bob in her group: {status} {trap}")
    ok()
    status, start = call("POST", "/chat/conversation/start", {"user_id": bob["uid"]}, token=mallory["token"])
    if start.get("isOnline"):
        fail("Mallory sees Bob online")
    ok()

    # A flash image cannot be made permanent by its receiver.
    flash_key = upload(alice, png(4, 4))
    if send(alice, single(alice, bob), 110, json.dumps({"type": "flash_image", "objectKey": flash_key, "url": "", "expireAt": 0}))[0] != 200:
        fail("send a flash image")
    status, _ = send(bob, conv, 110, image(flash_key))
    if status != 400:
        fail(f"Bob re-sent the flash picture to the group: {status}")
    ok()

    # A declined friend request cannot be re-sent.
    status, req = call("POST", "/friend/request", {"user_id": carol["uid"]}, token=mallory["token"])
    if status != 201 or call("POST", "/friend/respond", {"request_id": req["requestId"], "accept": False}, token=carol["token"])[0] != 200:
        fail(f"request and decline: {status} {req}")
    for _ in range(5):
        if call("POST", "/friend/request", {"user_id": carol["uid"]}, token=mallory["token"])[0] != 429:
            fail("a declined request was sent again")
    ok()

    # A 3 MiB picture is no avatar.
    big = upload(mallory, png(1024, 1024, noise=True))
    status, _ = call("POST", "/user/profile/update", {"avatar": big}, token=mallory["token"])
    if status != 413:
        fail(f"a 3 MiB avatar was taken: {status}")
    ok()

    # Sign-ups from one address stop at 20 an hour.
    codes = [call("POST", "/auth/register", {"account": f"bulk_{i}", "password": "password-bulk"},
                  headers={"X-Forwarded-For": "203.0.113.50"})[0] for i in range(21)]
    if codes[:20] != [201] * 20 or codes[20] != 429:
        fail(f"sign-ups from one address: {codes}")
    ok()

    # A login flood from 48 connections and several addresses beside a normal user.
    def wrong_login(i):
        status, _ = call("POST", "/auth/login", {"account": "alice", "password": f"guess-{i}"},
                         headers={"X-Forwarded-For": f"198.51.100.{i % 6 + 1}"}, timeout=20)
        return status

    with concurrent.futures.ThreadPoolExecutor(max_workers=49) as pool:
        flood = [pool.submit(wrong_login, i) for i in range(600)]
        normal = []
        for i in range(20):
            normal.append(send(carol, single(carol, alice), 101, f"still here {i}")[0])
            normal.append(call("GET", "/healthz", timeout=10)[0])
        answers = [f.result() for f in flood]
    if any(code not in (401, 429) for code in answers):
        fail(f"flood answers other than 401/429: {sorted(set(answers))}")
    if normal.count(200) != len(normal):
        fail(f"the normal user was refused during the flood: {normal}")
    if answers.count(429) == 0:
        fail("600 wrong logins were never limited")
    ok()
    # Alice herself, from her own address, is not locked out.
    if call("POST", "/auth/login", {"account": "alice", "password": "password-alice"},
            headers={"X-Forwarded-For": "192.0.2.10"})[0] != 200:
        fail("the account's owner was locked out by someone else's guessing")
    ok()
    print(f"abuse e2e OK: {passed} checks, each leak refused; the flood answered "
          f"{answers.count(401)}×401 {answers.count(429)}×429")
finally:
    server.terminate()
    try:
        server.wait(timeout=20)
    except subprocess.TimeoutExpired:
        server.kill()
    shutil.rmtree(work, ignore_errors=True)
