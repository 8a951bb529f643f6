#!/usr/bin/env bash
# Several nodes end to end: a throwaway PostgreSQL cluster, two
# tongban-server nodes on it sharing a media directory, nginx with a
# self-signed certificate in front (deploy/nginx/tongban.conf). Bob's
# full-screen client is on node one over wss://, Alice's client on node
# two: they chat across the nodes, and each sees the other online. Node one
# is killed with kill -9 in the middle of the conversation; Alice goes on
# through the proxy, which spreads her sends over both nodes and passes
# those for the dead one to node two. Bob's client reconnects through the
# proxy to node two and catches up by cursor, and every message is there
# once, with seqs 1..N without a hole.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-cluster-e2e.XXXXXX)
PG_DIR=$(mktemp -u /tmp/tongban-pg.XXXXXX)
SESSION=tongban-cluster-e2e-$$
PIDS=()
NGINX_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  bash Tests/pg/cluster.sh stop "$PG_DIR" || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "cluster e2e FAIL: $*"
  [ -n "${KEEP_LOGS:-}" ] && cp -r "$WORK" "$KEEP_LOGS" 2>/dev/null
  tail -5 "$WORK/nginx/error.log" 2>/dev/null || true
  tail -5 "$WORK"/node*.log 2>/dev/null || true
  tmux capture-pane -p -t "$SESSION" 2>/dev/null || true
  exit 1
}
. "$(dirname "$0")/screen.sh"
. "$(dirname "$0")/server.sh"
. "$(dirname "$0")/tls.sh"

admin=$(bash Tests/pg/cluster.sh start "$PG_DIR") || fail "PostgreSQL did not start"
psql -q "$admin" -c "CREATE DATABASE tongban" || fail "cannot create the database"
DB="${admin%/postgres}/tongban"

mkdir -p "$WORK/media"
start_server "$WORK/node1" "$WORK/node1.log" --database "$DB" --media-dir "$WORK/media"
NODE1=$PORT; NODE1_PID=$SERVER_PID; PIDS+=("$SERVER_PID")
start_server "$WORK/node2" "$WORK/node2.log" --database "$DB" --media-dir "$WORK/media"
NODE2=$PORT; PIDS+=("$SERVER_PID")

make_test_ca "$WORK"
# Node one only, until Bob's socket is on it.
start_nginx "$WORK" "server 127.0.0.1:$NODE1 max_fails=1 fail_timeout=30s;"
URL="https://localhost:$TLS_PORT"
export TONGBAN_LANG=en
for u in alice bob; do
  "$BIN/tongban" register --data-dir "$WORK/$u" --server "$URL" --account "$u" --password-stdin \
    --ca-file "$WORK/ca.pem" <<<"password-$u" >/dev/null || fail "$u could not register through the proxy"
done
"$BIN/tongban" send --data-dir "$WORK/alice" --to bob "m00" >/dev/null || fail "the first send failed"

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/bob 2>$WORK/tui.err"
expect_screen "online"
expect_screen "m00"

# Alice's second client talks to node two only: a chat across nodes.
"$BIN/tongban" login --data-dir "$WORK/alice2" --server "http://127.0.0.1:$NODE2" --account alice --password-stdin \
  <<<"password-alice" >/dev/null || fail "alice could not log in on node two"
for i in 01 02 03 04 05; do
  "$BIN/tongban" send --data-dir "$WORK/alice2" --to bob "m$i" >/dev/null || fail "send m$i on node two failed"
done
expect_screen "m05"
# Bob answers from node one; Alice reads it on node two.
tmux send-keys -t "$SESSION" g
tmux send-keys -t "$SESSION" Enter
expect_screen "Alt-Enter/Ctrl-J newline"
tmux send-keys -t "$SESSION" "reply-from-node-one"
tmux send-keys -t "$SESSION" Enter
for _ in $(seq 1 100); do
  "$BIN/tongban" history --data-dir "$WORK/alice2" --with bob --limit 50 --json 2>/dev/null | grep -q reply-from-node-one && break
  sleep 0.1
done
"$BIN/tongban" history --data-dir "$WORK/alice2" --with bob --limit 50 --json | grep -q reply-from-node-one \
  || fail "Bob's answer from node one never reached Alice on node two"
# Presence across nodes: once Alice's full-screen client has its socket on
# node two, Bob's chat header (his socket on node one) shows her online.
tmux capture-pane -p -t "$SESSION" | grep -qF "│ alice ● online" && fail "alice shows online before she has a socket"
tmux new-window -d -t "$SESSION" -n alice \
  "TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/alice2 2>$WORK/alice-tui.err"
expect_screen "online" "$SESSION:alice"
expect_screen "│ alice ● online"

# A room across nodes: Alice in it on node two, Bob through the proxy on node one,
# each through `tongban room enter` fed from a script; each hears the other.
"$BIN/tongban" room create --data-dir "$WORK/alice2" --unique across "跨节点" >/dev/null || fail "room create on node two"
mkfifo "$WORK/alice.room" "$WORK/bob.room"
"$BIN/tongban" room enter --data-dir "$WORK/alice2" across <"$WORK/alice.room" >"$WORK/alice.room.out" 2>&1 &
PIDS+=($!)
exec 7>"$WORK/alice.room"
"$BIN/tongban" room enter --data-dir "$WORK/bob" across <"$WORK/bob.room" >"$WORK/bob.room.out" 2>&1 7>&- &
PIDS+=($!)
exec 8>"$WORK/bob.room"
room_heard() { # FILE TEXT
  for _ in $(seq 1 200); do grep -qF -- "$2" "$1" 2>/dev/null && return 0; sleep 0.05; done
  fail "never in $1: $2 ($(cat "$1"))"
}
room_heard "$WORK/alice.room.out" "bob entered the room"
echo "hello from node two" >&7
room_heard "$WORK/bob.room.out" "alice: hello from node two"
echo "hello from node one" >&8
room_heard "$WORK/alice.room.out" "bob: hello from node one"
exec 8>&-
room_heard "$WORK/alice.room.out" "bob left the room"
exec 7>&-

# Both nodes behind the proxy from now on; Bob's socket stays where it is, on node one.
reload_nginx "$WORK" "server 127.0.0.1:$NODE1 max_fails=1 fail_timeout=30s; server 127.0.0.1:$NODE2 max_fails=1 fail_timeout=30s;"
for i in 06 07 08 09 10; do
  "$BIN/tongban" send --data-dir "$WORK/alice" --to bob "m$i" >/dev/null || fail "send m$i failed"
done
expect_screen "m10"

# Node one dies mid-conversation, with Bob's socket on it.
{ kill -9 "$NODE1_PID"; wait "$NODE1_PID"; } 2>/dev/null || true
for i in 11 12 13 14 15 16 17 18 19 20; do
  # --queue: a send the proxy could not deliver stays in the outbox and
  # goes with the next command, under the same clientMsgId.
  "$BIN/tongban" send --queue --data-dir "$WORK/alice" --to bob "m$i" >/dev/null || fail "send m$i failed"
done
"$BIN/tongban" ls --data-dir "$WORK/alice" >/dev/null || fail "alice's outbox did not flush"
expect_screen "m20"
expect_screen "online"

# What the server holds, read by a fresh login: every message once, seqs 1..22.
"$BIN/tongban" login --data-dir "$WORK/check" --server "$URL" --account bob --password-stdin \
  --ca-file "$WORK/ca.pem" <<<"password-bob" >/dev/null || fail "login after the failover failed"
"$BIN/tongban" history --data-dir "$WORK/check" --with alice --limit 100 --json >"$WORK/history.json" \
  || fail "history after the failover failed"
python3 - "$WORK/history.json" <<'PY' || fail "the history after the failover is wrong: $(head -c 600 "$WORK/history.json")"
import json, sys
msgs = json.load(open(sys.argv[1]))
texts = [m.get("content") or m.get("text") for m in msgs]
seqs = [m["seq"] for m in msgs]
want = ["m%02d" % i for i in range(21)] + ["reply-from-node-one"]
assert sorted(texts) == sorted(want), ("lost or doubled", texts)
assert sorted(seqs) == list(range(1, 23)), ("seqs with holes", seqs)
PY
tmux send-keys -t "$SESSION" q
echo "cluster e2e OK: two nodes on PostgreSQL behind nginx over TLS; clients on different nodes chatted, saw each other online and talked in one room; node one killed with -9 mid-conversation; the client reconnected to node two and caught up; 22 messages once each, seqs 1..22"
