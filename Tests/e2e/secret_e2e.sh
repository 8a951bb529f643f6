#!/usr/bin/env bash
# Secret chats (PROTOCOL.md v4), end to end on the scripting commands
# against one real tongban-server: `mei` and `bob`, Bob on two devices
# (two data dirs), exchange text and a picture in a secret chat; every
# device reads every message; then every file the server wrote (its
# database with WAL and SHM, its media folder, its log) holds neither a
# random canary text nor the picture's bytes; the safety numbers printed
# on both sides are equal; a third device of Bob's logs in and Mei's chat
# says his safety number changed. With SECRET_E2E_PG=1 the server keeps
# its data in PostgreSQL, and a pg_dump and the cluster's own files are
# searched as well.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-secret-e2e.XXXXXX)
SERVER_PID=""
PASS=0
PG_DIR=""
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$PG_DIR" ] && bash Tests/pg/cluster.sh stop "$PG_DIR" >/dev/null 2>&1 || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "secret e2e FAIL: $*"; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/server.sh"
if [ -n "${SECRET_E2E_PG:-}" ]; then
  PG_DIR=$(mktemp -u /tmp/tongban-pg.XXXXXX)
  admin=$(bash Tests/pg/cluster.sh start "$PG_DIR") || fail "PostgreSQL did not start"
  psql -q "$admin" -c "CREATE DATABASE tongban" || fail "cannot create the database"
  DB="${admin%/postgres}/tongban"
  mkdir -p "$WORK/server/media"
  start_server "$WORK/server" "$WORK/server.log" --database "$DB" --media-dir "$WORK/server/media"
else
  start_server "$WORK/server" "$WORK/server.log"
fi
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users secret-e2e-pw mei bob
echo secret-e2e-pw | tb bob2 login --server "$URL" --account bob --password-stdin >/dev/null || fail "bob's second device"

CANARY="canary-$(head -c 12 /dev/urandom | od -An -tx1 | tr -d ' \n')"
tb mei secret start bob >/dev/null || fail "mei starts the secret chat"
tb mei send --secret --to bob "悄悄话 $CANARY" >/dev/null || fail "mei's secret text"
tb bob history --secret --with mei | grep -q "悄悄话 $CANARY" || fail "bob's first device reads it"; ok
tb bob2 history --secret --with mei | grep -q "悄悄话 $CANARY" || fail "bob's second device reads it"; ok
tb bob send --secret --to mei "收到 $CANARY-reply" >/dev/null || fail "bob's secret reply"
tb mei history --secret --with bob | grep -q "收到 $CANARY-reply" || fail "mei reads bob's reply"; ok
tb bob2 history --secret --with mei | grep -q "收到 $CANARY-reply" || fail "bob's other device reads what bob sent"; ok

# A picture with bytes of its own: a PNG with a random text chunk.
python3 - "$WORK/pic.png" "$CANARY" <<'PY'
import struct, sys, zlib
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
raw = b"".join(b"\x00" + bytes((x * 7 + y * 3) % 256 for x in range(48 * 3)) for y in range(32))
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 48, 32, 8, 2, 0, 0, 0)) \
    + chunk(b"tEXt", b"Comment\x00" + sys.argv[2].encode()) + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
tb mei send --secret --to bob --image "$WORK/pic.png" >/dev/null || fail "mei's secret picture"
tb bob history --secret --with mei --json | grep -q '"type" : "image"\|"type":"image"' || fail "bob's device has the picture message"; ok
KEY=$(tb bob history --secret --with mei --json | python3 -c 'import json,sys; print([m for m in json.load(sys.stdin) if m["type"]=="image"][-1]["objectKey"])')
CACHED=$(find "$WORK/bob" -name "$(echo "$KEY" | tr / _)" | head -1)
[ -n "$CACHED" ] && cmp -s "$CACHED" "$WORK/pic.png" || fail "bob's device decrypted the picture into its cache ($KEY)"; ok

# The server's files: no canary text, no picture bytes.
sleep 0.5
if [ -n "$PG_DIR" ]; then
  pg_dump "$DB" >"$WORK/server/pg_dump.sql" || fail "pg_dump"
  grep -q "ss_tb_" "$WORK/server/pg_dump.sql" || fail "the dump does not hold the secret chat at all"
  cp -r "$PG_DIR/data" "$WORK/server/pg_data" 2>/dev/null || true
fi
HEX=$(python3 -c 'import sys; d=open(sys.argv[1],"rb").read(); print(d[-200:-12].hex())' "$WORK/pic.png")
if grep -rl -a -- "$CANARY" "$WORK/server" "$WORK/server.log"; then fail "the canary is in a server file"; fi; ok
python3 - "$WORK/server" "$WORK/pic.png" <<'PY' || fail "the picture's bytes are in a server file"
import os, sys
needle = open(sys.argv[2], "rb").read()[40:120]
for root, _, files in os.walk(sys.argv[1]):
    for f in files:
        if needle in open(os.path.join(root, f), "rb").read():
            print("found in", os.path.join(root, f)); sys.exit(1)
PY
ok

# Safety numbers: equal on both sides.
MEI_NUM=$(tb mei safety-number bob | head -1)
BOB_NUM=$(tb bob safety-number mei | head -1)
[ -n "$MEI_NUM" ] && [ "$MEI_NUM" = "$BOB_NUM" ] || fail "safety numbers differ: '$MEI_NUM' vs '$BOB_NUM'"; ok
echo "$MEI_NUM" | grep -Eq '^([0-9]{5} ){11}[0-9]{5}$' || fail "safety number is not 12 groups of 5: $MEI_NUM"; ok
tb mei secret verify bob | grep -q "已验证" || fail "mei marks it verified"; ok

# Bob's third device: Mei hears of it, the mark goes, the number changes.
echo secret-e2e-pw | tb bob3 login --server "$URL" --account bob --password-stdin >/dev/null || fail "bob's third device"
tb mei sync >/dev/null || true
tb mei history --secret --with bob | grep -q "bob 的安全码已变化" || fail "mei's chat says bob's safety number changed"; ok
tb mei safety-number bob | grep -q "尚未验证" || fail "the verified mark went with the change"; ok
NEW_NUM=$(tb mei safety-number bob | head -1)
[ "$NEW_NUM" != "$MEI_NUM" ] || fail "the safety number did not change with a new device"; ok
tb mei send --secret --to bob "第三台 $CANARY-3" >/dev/null || fail "mei's message after bob's new device"
tb bob3 history --secret --with mei | grep -q "第三台 $CANARY-3" || fail "bob's new device reads what came after it"; ok
tb bob3 history --secret --with mei | grep -q "此设备加入前的加密消息不可见" || fail "bob's new device says older ones are not for it"; ok
# The disappearing-message timer: set on one side, a notice on both.
tb mei secret timer bob 5m | grep -q "5 分钟" || fail "mei sets the timer"
tb mei history --secret --with bob | grep -q "你设置了消息定时销毁：5 分钟" || fail "mei's chat says the timer changed"; ok
tb bob history --secret --with mei | grep -q "mei 设置了消息定时销毁：5 分钟" || fail "bob's chat says the timer changed"; ok
tb bob secret timer mei off >/dev/null || fail "bob turns it off"
tb mei history --secret --with bob | grep -q "bob 设置了消息定时销毁：关闭" || fail "mei hears bob turned it off"; ok

# The full-screen client: the secret chat is its own row with 🔒, and the peer's page has the safety number.
if command -v tmux >/dev/null; then
  SESSION=tongban-secret-e2e-$$
  trap 'tmux kill-session -t "$SESSION" 2>/dev/null || true; cleanup' EXIT
  . "$(dirname "$0")/screen.sh"
  tmux new-session -d -s "$SESSION" -x 120 -y 40 \
    "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/mei 2>$WORK/mei.err"
  expect_screen "bob 🔒"; ok
  tmux send-keys -t "$SESSION" Enter
  expect_screen "第三台 $CANARY-3"; ok
  expect_screen "Alt-Enter/Ctrl-J 换行"
  tmux send-keys -t "$SESSION" Escape
  expect_screen "r 回复"
  sleep 0.3
  tmux send-keys -t "$SESSION" ,
  expect_screen "安全码"; ok
  expect_screen "$(echo "$NEW_NUM" | cut -d' ' -f1-6)"; ok
  tmux send-keys -t "$SESSION" v
  expect_screen "✓ 已验证"; ok
fi
echo "secret e2e${PG_DIR:+ (PostgreSQL)}: $PASS checks passed"
