#!/usr/bin/env bash
# `tongban export` on the real binaries against a real server: Bob exports
# his chat with Alice as HTML (the picture saved beside it and linked, a
# message's <script> shown as text, a link a link), as JSONL (one object a
# line, every message) and as text on standard output; `--all` writes one
# file per conversation and leaves the secret chat out unless
# `--include-secret` is given; a flash image is never written.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-export-e2e.XXXXXX)
SERVER_PID=""
PASS=0
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "export e2e FAIL: $*"; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=en
register_users export-e2e-pw alice bob
python3 - "$WORK/pic.png" "$WORK/flash.png" <<'PY'
import struct, sys, zlib
def png(path, rgb):
    w = h = 8
    rows = b"".join(b"\0" + bytes(rgb) * w for _ in range(h))
    def chunk(kind, data):
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
    open(path, "wb").write(b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0))
                           + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b""))
png(sys.argv[1], (10, 200, 30))
png(sys.argv[2], (250, 0, 250))
PY
tb alice send --to bob 'hello <script>alert(1)</script> see https://example.com/a?x=1' >/dev/null || fail "alice's text"
tb alice send --to bob --image "$WORK/pic.png" >/dev/null || fail "alice's picture"
tb alice send --to bob --flash "$WORK/flash.png" >/dev/null || fail "alice's flash image"
tb bob send --to alice "got it" >/dev/null || fail "bob's reply"

tb bob export --with alice --format html --output "$WORK/out/alice.html" >/dev/null || fail "export html"
page="$WORK/out/alice.html"
[ "$(stat -c %a "$page")" = 600 ] || fail "the page is not 0600"; ok
grep -q '&lt;script&gt;alert(1)&lt;/script&gt;' "$page" && ! grep -qi '<script' "$page" || fail "a message's <script> reached the page"; ok
grep -q '<a href="https://example.com/a?x=1"' "$page" || fail "the link is not a link"; ok
img=$(sed -n 's|.*<img src="\([^"]*\)".*|\1|p' "$page" | head -1)
[ -n "$img" ] && cmp -s "$WORK/out/$img" "$WORK/pic.png" || fail "the picture is not saved beside the page ($img)"; ok
python3 - "$WORK/out" "$WORK/flash.png" <<'PY' || fail "the flash image was written"
import os, sys
flash = open(sys.argv[2], "rb").read()
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if open(os.path.join(root, f), "rb").read() == flash:
            sys.exit(1)
PY
grep -q 'Flash image' "$page" || fail "the flash image's line is missing"; ok

tb bob export --with alice --format jsonl --output "$WORK/alice.jsonl" >/dev/null || fail "export jsonl"
python3 - "$WORK/alice.jsonl" <<'PY' || fail "the JSONL does not hold the four messages"
import json, sys
lines = [json.loads(l) for l in open(sys.argv[1], encoding="utf-8")]
assert [l["seq"] for l in lines] == [1, 2, 3, 4], lines
assert lines[0]["sender"]["account"] == "alice" and "<script>" in lines[0]["text"]
assert lines[3]["isMe"] and lines[3]["text"] == "got it"
PY
ok
out=$(tb bob export --with alice 2>/dev/null)
echo "$out" | grep -q '] alice: hello <script>' && echo "$out" | grep -q '] bob: got it' || fail "the text export on stdout"; ok

# A secret chat: left out of --all unless asked for.
tb alice secret start bob >/dev/null || fail "a secret chat"
tb alice send --secret --to bob "secret words" >/dev/null || fail "a secret message"
tb bob history --secret --with alice >/dev/null || fail "bob reads the secret chat"
tb bob export --all "$WORK/all" >/dev/null 2>"$WORK/all.err" || fail "export --all"
[ "$(ls "$WORK/all" | grep -c '\.txt$')" = 1 ] && ! grep -rq "secret words" "$WORK/all" || fail "--all wrote the secret chat"; ok
grep -q "include-secret" "$WORK/all.err" || fail "--all did not say it skipped the secret chat"; ok
tb bob export --all "$WORK/all2" --include-secret >/dev/null 2>&1 || fail "export --all --include-secret"
grep -rq "secret words" "$WORK/all2" || fail "--include-secret left the secret chat out"; ok
stop_server
echo "export e2e: $PASS checks passed"
