#!/usr/bin/env bash
# The send queue from the command line against a real server: a message the
# server refuses holds what its chat queued after it (in order, the peer never
# gets the later one first); `tongban outbox` shows both, `tongban sync` says
# so, `outbox retry` is refused again, `outbox discard` lets the held one go;
# plain `send` with the server down reports "not sent" and keeps nothing;
# the full-screen client draws before it sends what is queued.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-outbox-e2e.XXXXXX)
SERVER_PID=""
SILENT_PID=""
TM=(tmux -L "tb-outbox-$$" -f /dev/null)
PASS=0
cleanup() {
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  [ -n "$SILENT_PID" ] && kill "$SILENT_PID" 2>/dev/null || true
  "${TM[@]}" kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "outbox e2e FAIL: $*"; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/server.sh"
export TONGBAN_LANG=en
T() { local who=$1; shift; "$BIN/tongban" "$@" --data-dir "$WORK/$who"; }

start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
for u in alice bob; do
  echo "outbox-e2e-pw" | T "$u" register --server "$URL" --account "$u" --password-stdin >/dev/null || fail "register $u"
done
T alice send --to bob "hello" >/dev/null || fail "first send"

# Server down: a text over the server's 4,000 characters and one after it are queued.
stop_server
LONG=$(python3 -c 'print("长" * 4001)')
out=$(T alice send --queue --to bob "$LONG") || fail "send --queue offline: $out"
grep -qF "Queued" <<<"$out" || fail "not queued: $out"; ok
out=$(T alice send --queue --to bob "after the long one") || fail "second send --queue: $out"; ok
# A plain send with the server down: not sent, nothing kept.
if out=$(T alice send --to bob "plain offline" 2>&1); then fail "a plain send to a stopped server succeeded: $out"; fi
grep -qF "Not sent" <<<"$out" || fail "no 'Not sent': $out"; ok
T alice history --with bob --offline --json | grep -qF "plain offline" && fail "the failed plain send was kept"; ok

# The full-screen client with both queued and a server that takes the
# connection but never answers: the first frame shows the stored chats at
# once and its own send queue tries after it (sending the outbox first held
# the screen blank for the request's 15 s). On a copy of alice's store, so
# the rest of this script sees her outbox as it was.
cp -a "$WORK/alice" "$WORK/alice-screen"
python3 - "$PORT" "$WORK/silent.ready" <<'PY' &
import socket, sys
s = socket.socket()
s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
s.bind(("127.0.0.1", int(sys.argv[1])))
s.listen(16)
open(sys.argv[2], "w").close()
held = []
while True:
  held.append(s.accept()[0])
PY
SILENT_PID=$!
for _ in $(seq 1 100); do [ -e "$WORK/silent.ready" ] && break; sleep 0.05; done
"${TM[@]}" new-session -d -x 100 -y 30 \
  "TONGBAN_LANG=en TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/alice-screen"
shown=""
deadline=$((SECONDS + 8))
while ((SECONDS < deadline)); do
  shown=$("${TM[@]}" capture-pane -p 2>/dev/null || true)
  [[ $shown == *"after the long one"* ]] && break
  sleep 0.1
done
"${TM[@]}" kill-server 2>/dev/null || true
kill "$SILENT_PID" 2>/dev/null || true
wait "$SILENT_PID" 2>/dev/null || true
SILENT_PID=""
[[ $shown == *"after the long one"* ]] || fail "no first frame within 8 s with a queued message and a silent server: $shown"; ok

# Back up on the same port: the long one is refused and holds the other.
"$BIN/tongban-server" --no-limits --port "$PORT" --data-dir "$WORK/server" --log-level info 2>>"$WORK/server.log" &
SERVER_PID=$!
for _ in $(seq 1 100); do curl -sf "$URL/healthz" >/dev/null && break; sleep 0.1; done
out=$(T alice sync 2>&1) || fail "sync: $out"
grep -qF "1 message(s) refused by the server, 1 waiting behind them" <<<"$out" || fail "sync did not say so: $out"; ok
states=$(T alice outbox --json | python3 -c 'import json,sys; print(" ".join(r["state"] for r in json.load(sys.stdin)))')
[ "$states" = "failed held" ] || fail "outbox states: $states"; ok
T bob history --with alice --json | grep -qF "after the long one" && fail "the held message overtook the refused one"; ok
ID=$(T alice outbox --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["id"])')
if out=$(T alice outbox retry "${ID:0:8}" 2>&1); then fail "a retry of a refused text went through: $out"; fi
grep -qF "Not sent" <<<"$out" || fail "retry: $out"; ok
out=$(T alice outbox discard "$ID") || fail "discard: $out"
grep -qF "Discarded" <<<"$out" || fail "discard said: $out"; ok
T alice outbox | grep -qF "The outbox is empty" || fail "outbox not empty after discard: $(T alice outbox)"; ok
got=$(T bob history --with alice --json | python3 -c 'import json,sys; print("|".join(m["content"] for m in json.load(sys.stdin)))')
[ "$got" = "hello|after the long one" ] || fail "bob got: $got"; ok
echo "outbox e2e: $PASS passed, 0 failed"
