#!/usr/bin/env bash
# End to end through tmux: a real tongban-server, the full-screen client of
# `me` in a 120x40 pane, and `alice` on the scripting commands.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-e2e.XXXXXX)
SESSION=tongban-e2e-$$
SERVER_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "e2e FAIL: $*"; echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; exit 1; }

# Waits until the pane shows $1 (up to 10 s).
expect_screen() {
  for _ in $(seq 1 100); do
    if tmux capture-pane -p -t "$SESSION" | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail "screen never showed: $1"
}

# Port 0: the server picks a free one and says which in its first log line.
"$BIN/tongban-server" --demo --port 0 --data-dir "$WORK/server" --log-level info 2>"$WORK/server.log" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|.*tongban-server listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$WORK/server.log" 2>/dev/null | head -1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || fail "the server did not start: $(cat "$WORK/server.log")"
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || fail "healthz"

export TONGBAN_LANG=zh-Hans
echo tongban-demo | "$BIN/tongban" login --data-dir "$WORK/me" --server "http://127.0.0.1:$PORT" --account me --password-stdin >/dev/null
echo tongban-demo | "$BIN/tongban" login --data-dir "$WORK/alice" --server "http://127.0.0.1:$PORT" --account alice --password-stdin >/dev/null

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/me 2>$WORK/tui.err"
expect_screen "消息 (3)"
expect_screen "Alice 爱丽丝"
expect_screen "● 在线"

# Open Alice's chat, send Chinese + emoji, see the demo peer's answer.
tmux send-keys -t "$SESSION" Enter
expect_screen "好的，发消息给我试试"
tmux send-keys -t "$SESSION" "端到端测试 🚀"
tmux send-keys -t "$SESSION" Enter
expect_screen "收到：端到端测试 🚀"

# Alice (scripting command) sees it, and her message reaches the open screen by push.
"$BIN/tongban" history --data-dir "$WORK/alice" --with "我" --limit 5 | grep -qF "端到端测试 🚀" || fail "alice did not get the message"
"$BIN/tongban" send --data-dir "$WORK/alice" --to "我" "来自命令行的问候" >/dev/null
expect_screen "来自命令行的问候"

# Narrow terminal: one pane at a time, no garbage.
tmux resize-window -t "$SESSION" -x 70 -y 30
sleep 0.5
tmux send-keys -t "$SESSION" Escape
sleep 0.3
tmux send-keys -t "$SESSION" Escape
expect_screen "Bob 鲍勃"
tmux capture-pane -p -t "$SESSION" | grep -qF "Alice 爱丽丝" || fail "narrow list pane"
[ "$(tmux capture-pane -p -t "$SESSION" | head -1 | grep -c '│')" = "0" ] || fail "narrow terminal still shows two panes"

# Quit cleanly.
tmux send-keys -t "$SESSION" q
for _ in $(seq 1 50); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
tmux has-session -t "$SESSION" 2>/dev/null && fail "q did not quit"
if [ -s "$WORK/tui.err" ]; then echo "stderr of the client:"; cat "$WORK/tui.err"; fi
echo "e2e OK: tmux full-screen client against a real tongban-server"
