#!/usr/bin/env bash
# A conversation that feels alive (PROTOCOL.md v4), end to end: `mei` and
# `alice` in two full-screen clients (tmux, 120x40) against one real
# tongban-server, `bob` on the scripting commands. Mei types and Alice sees
# 正在输入…; Mei sends, Alice's open chat reads it and Mei's message says
# 已读. Bob posts a signal; Mei finds it in the 广场 tab and replies; Bob
# opens the chat from his inbox and its first message quotes the signal,
# sent once however often it is opened.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-alive-e2e.XXXXXX)
SESSION=tongban-alive-e2e-$$
PEER=tongban-alive-e2e-peer-$$
SERVER_PID=""
PASS=0
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  tmux kill-session -t "$PEER" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "alive e2e FAIL: $*"; tail -5 "$WORK/tui.err" 2>/dev/null
  echo "--- mei ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true
  echo "--- alice ---"; tmux capture-pane -p -t "$PEER" 2>/dev/null || true
  exit 1
}
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/screen.sh"
. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users alive-e2e-pw mei alice bob

# A chat between them, so each list has the other's row first.
tb alice send --to mei "在吗？" >/dev/null || fail "alice's first message"
client() {
  tmux new-session -d -s "$1" -x 120 -y 40 \
    "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/$2 2>$WORK/$2.err"
}
client "$SESSION" mei
client "$PEER" alice
expect_screen "c 通讯录"
expect_screen "c 通讯录" "$PEER"
expect_screen "在吗？"
tmux send-keys -t "$SESSION" Enter
tmux send-keys -t "$PEER" Enter
expect_screen "Enter 发送"
expect_screen "Enter 发送" "$PEER"

# Mei types: Alice's header (and her list row) say so; nothing is sent yet.
tmux send-keys -t "$SESSION" -l "周六见"
expect_screen "正在输入…" "$PEER"; ok

# Mei sends; Alice's open chat reads it, and Mei's message says 已读.
tmux send-keys -t "$SESSION" Enter
expect_screen "周六见" "$PEER"
expect_gone "正在输入…" "$PEER"; ok
expect_screen "周六见 已读"; ok

# Alice stops sharing reads: Mei's next message gets no mark (PROTOCOL.md: reciprocal).
expect_output "单聊已读回执：关" tb alice privacy --reads off; ok
tmux send-keys -t "$SESSION" -l "带水"
tmux send-keys -t "$SESSION" Enter
expect_screen "带水" "$PEER"
expect_screen "带水"
sleep 0.5
tmux capture-pane -p -t "$SESSION" | grep -qF "带水 已读" && fail "a read mark although Alice does not share reads"
tmux capture-pane -p -t "$SESSION" | grep -qF "带水 未读" && fail "an unread mark although Alice does not share reads"
ok

# Bob posts a signal; Mei finds it in 广场 and replies.
tb bob signal post "今晚谁一起打羽毛球？🏸" >/dev/null || fail "bob posts"
tmux send-keys -t "$SESSION" Escape
expect_screen "r 回复"
sleep 0.3
tmux send-keys -t "$SESSION" Escape
expect_screen "s 信号"
sleep 0.3
tmux send-keys -t "$SESSION" s
expect_screen "[1 广场]"
expect_screen "今晚谁一起打羽毛球？🏸"; ok
tmux send-keys -t "$SESSION" Enter
expect_screen "回复 bob："
tmux send-keys -t "$SESSION" -l "算我一个"
tmux send-keys -t "$SESSION" Enter
expect_screen "（已回复）"; ok
expect_output "算我一个" tb bob signal inbox; ok
tmux send-keys -t "$SESSION" Escape

# Bob opens the chat from his inbox, twice: one signal quote, Mei's list has the chat.
RID=$(tb bob signal inbox --json | python3 -c 'import json,sys; print(json.load(sys.stdin)[0]["receiveId"])')
tb bob signal open "$RID" >/dev/null || fail "bob opens the chat"
tb bob signal open "$RID" >/dev/null || fail "bob opens it again"
expect_output "[信号回复]" tb mei history --with bob; ok
[ "$(tb bob history --with mei | grep -cF "[信号回复]")" = "1" ] || fail "the signal quote was sent more than once"; ok
expect_screen "bob"; ok

tmux send-keys -t "$SESSION" q
tmux send-keys -t "$PEER" Escape
tmux send-keys -t "$PEER" Escape
tmux send-keys -t "$PEER" q
sleep 0.5
for who in mei alice; do
  if grep -qi "fatal\|panic" "$WORK/$who.err" 2>/dev/null; then fail "$who's client crashed: $(tail -3 "$WORK/$who.err")"; fi
done
echo "alive e2e: $PASS checks passed"
