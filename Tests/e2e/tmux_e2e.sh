#!/usr/bin/env bash
# End to end through tmux: a real tongban-server, the full-screen client of
# `me` in a 120x40 pane, and `alice` on the scripting commands.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-e2e.XXXXXX)
SESSION=tongban-e2e-$$
PEER=tongban-e2e-peer-$$
SERVER_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  tmux kill-session -t "$PEER" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "e2e FAIL: $*"; cat "$WORK/tui.err" 2>/dev/null | tail -5; echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true
  if tmux has-session -t "$PEER" 2>/dev/null; then echo "--- peer screen ---"; tmux capture-pane -p -t "$PEER" || true; fi
  exit 1; }

# Waits until the pane ($2, default me's) shows $1 (up to 10 s).
. "$(dirname "$0")/screen.sh"

# The first conversation row (row 3 of the list pane).
first_row() { tmux capture-pane -p -t "$SESSION" | sed -n 3p; }

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log" --demo
curl -sf "http://127.0.0.1:$PORT/healthz" >/dev/null || fail "healthz"

export TONGBAN_LANG=zh-Hans
echo tongban-demo | "$BIN/tongban" login --data-dir "$WORK/me" --server "http://127.0.0.1:$PORT" --account me --password-stdin >/dev/null
echo tongban-demo | "$BIN/tongban" login --data-dir "$WORK/alice" --server "http://127.0.0.1:$PORT" --account alice --password-stdin >/dev/null

# me's terminal says it has 24-bit colour; Alice's does not.
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "COLORTERM=truecolor TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/me 2>$WORK/tui.err"
expect_screen "消息 (7)"
expect_screen "Alice 爱丽丝"
expect_screen "● 在线"

# The demo's room is in the directory (n, then Enter on nothing), with nobody in it.
tmux send-keys -t "$SESSION" n
tmux send-keys -t "$SESSION" Enter
expect_screen "房间目录"
expect_screen "同伴大厅"
tmux send-keys -t "$SESSION" Escape
for _ in $(seq 1 50); do tmux capture-pane -p -t "$SESSION" | grep -qF "房间目录" || break; sleep 0.1; done
tmux capture-pane -p -t "$SESSION" | grep -qF "房间目录" && fail "Escape left the room directory open"

# Idle means asleep: the terminal thread sleeps until input or a frame, not
# on a timer (it used to wake every 30 ms, ~66 times in 2 s).
ME_PID=$(pgrep -f "^$BIN/tongban start --data-dir $WORK/me" | head -1)
[ -n "$ME_PID" ] || fail "no pid for me's client"
TERM_TASK=""
for t in /proc/"$ME_PID"/task/*; do
  if [ "$(cat "$t/comm" 2>/dev/null)" = "tongban-term" ]; then TERM_TASK=$t; fi
done
[ -n "$TERM_TASK" ] || fail "no tongban-term thread in $ME_PID"
sleep 1
switches() { awk '/^voluntary_ctxt_switches/ {print $2}' "$TERM_TASK/status"; }
before=$(switches)
sleep 2
woke=$(( $(switches) - before ))
[ "$woke" -le 10 ] || fail "the idle terminal thread woke $woke times in 2 s"

# Pin moves a row to the top: unpin Alice (Bob's newer message wins), pin her again.
first_row | grep -qF "Alice 爱丽丝" || fail "pinned Alice is not first"
tmux send-keys -t "$SESSION" p
for _ in $(seq 1 50); do first_row | grep -qF "Bob 鲍勃" && break; sleep 0.1; done
first_row | grep -qF "Bob 鲍勃" || fail "unpinning did not move Bob to the top"
tmux send-keys -t "$SESSION" j
tmux send-keys -t "$SESSION" p
for _ in $(seq 1 50); do first_row | grep -qF "📌Alice 爱丽丝" && break; sleep 0.1; done
first_row | grep -qF "📌Alice 爱丽丝" || fail "pinning did not move Alice to the top"

# Delete asks y/N and removes the row (Bob's: second, under pinned Alice).
tmux send-keys -t "$SESSION" g
tmux send-keys -t "$SESSION" j
tmux send-keys -t "$SESSION" d
expect_screen "(y/N)"
tmux send-keys -t "$SESSION" y
for _ in $(seq 1 50); do tmux capture-pane -p -t "$SESSION" | grep -qF "Bob 鲍勃" || break; sleep 0.1; done
tmux capture-pane -p -t "$SESSION" | grep -qF "Bob 鲍勃" && fail "delete left Bob in the list"

# Alice's own full-screen client in a second tmux session.
tmux new-session -d -s "$PEER" -x 120 -y 40 \
  "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/alice 2>$WORK/peer.err"
expect_screen "我" "$PEER"
tmux send-keys -t "$PEER" Enter
expect_screen "Alt-Enter/Ctrl-J 换行" "$PEER"

# Open Alice's chat, send Chinese + emoji, see the demo peer's answer; Alice sees it too.
tmux send-keys -t "$SESSION" g
tmux send-keys -t "$SESSION" Enter
expect_screen "好的，发消息给我试试"
# The image thumbnail: exact 24-bit colours under COLORTERM=truecolor, the
# 256-colour palette without it.
# Both clients decode the picture off the main path, each at its own pace:
# wait for each pane on its own (CI once checked Alice's before it was drawn).
expect_colour() {
  for _ in $(seq 1 100); do
    tmux capture-pane -p -e -t "$1" | grep -q "$2" && return 0
    sleep 0.1
  done
  return 1
}
expect_colour "$SESSION" '38;2;' || fail "no 24-bit colour in the thumbnail"
expect_colour "$PEER" '38;5;' || fail "Alice's thumbnail is not in 256 colours"
# Pictures from the network are decoded in a helper process: libvips never
# maps into the client.
grep -q libvips "/proc/$ME_PID/maps" && fail "libvips is loaded in the client process"
tmux capture-pane -p -e -t "$PEER" | grep -q '38;2;' && fail "24-bit colour without COLORTERM"
tmux send-keys -t "$SESSION" "端到端测试 🚀"
tmux send-keys -t "$SESSION" Enter
expect_screen "收到：端到端测试 🚀"
expect_screen "端到端测试 🚀" "$PEER"

# Revoke: select my newest message, R, y; both screens show it revoked.
# (Wait for the message hints: a key read together with the Esc would be Alt+key.)
tmux send-keys -t "$SESSION" Escape
expect_screen "R 撤回"
sleep 0.3
tmux send-keys -t "$SESSION" k
tmux send-keys -t "$SESSION" R
expect_screen "撤回这条消息？(y/N)"
tmux send-keys -t "$SESSION" y
expect_screen "你撤回了一条消息"
expect_screen "消息已撤回" "$PEER"

# Alice (scripting command) sees the conversation, and her message reaches the open screen by push.
"$BIN/tongban" history --data-dir "$WORK/alice" --with "我" --limit 5 | grep -qF "收到：端到端测试 🚀" || fail "alice's history"
"$BIN/tongban" send --data-dir "$WORK/alice" --to "我" "来自命令行的问候" >/dev/null
expect_screen "来自命令行的问候"

# Hostile text: an escape sequence, a C1 CSI (U+009B), a bidi override and a
# forged second row. The scripting commands print none of them raw, in text or JSON.
evil=$(printf 'ok\033]0;pwned\007 \302\2331m \342\200\256abc\n[09:14] 我: forged')
"$BIN/tongban" send --data-dir "$WORK/alice" --to "我" "$evil" >/dev/null
"$BIN/tongban" sync --data-dir "$WORK/me" >/dev/null
"$BIN/tongban" history --data-dir "$WORK/me" --with alice --limit 3 >"$WORK/hist.txt"
"$BIN/tongban" history --data-dir "$WORK/me" --with alice --limit 3 --json >"$WORK/hist.json"
for f in "$WORK/hist.txt" "$WORK/hist.json"; do
  if LC_ALL=C grep -q "$(printf '\033')\|$(printf '\302\233')\|$(printf '\342\200\256')" "$f"; then
    fail "$(basename "$f") carries raw control characters"
  fi
done
grep -q "^\[09:14\]" "$WORK/hist.txt" && fail "a message forged a history row"
grep -qF "forged" "$WORK/hist.txt" || fail "the message's second line is missing from history"
grep -qF '\u009B1m' "$WORK/hist.json" || fail "history --json does not escape U+009B"

# Resize 120x40 -> 60x20 -> 120x40: the wide layout comes back clean.
tmux resize-window -t "$SESSION" -x 60 -y 20
sleep 0.5
tmux resize-window -t "$SESSION" -x 120 -y 40
for _ in $(seq 1 50); do
  rows=$(tmux capture-pane -p -t "$SESSION" | head -39 | grep -c "│" || true)
  [ "$rows" -ge 38 ] && break
  sleep 0.1
done
[ "$rows" -ge 38 ] || fail "after resizing back, the pane divider is broken ($rows rows)"

# Narrow terminal: one pane at a time, no garbage.
tmux resize-window -t "$SESSION" -x 70 -y 30
sleep 0.5
tmux send-keys -t "$SESSION" Escape
sleep 0.3
tmux send-keys -t "$SESSION" Escape
expect_screen "Alice 爱丽丝"
for _ in $(seq 1 50); do
  [ "$(tmux capture-pane -p -t "$SESSION" | head -1 | grep -c '│')" = "0" ] && break
  sleep 0.1
done
[ "$(tmux capture-pane -p -t "$SESSION" | head -1 | grep -c '│')" = "0" ] || fail "narrow terminal still shows two panes"

# Quit cleanly.
# A key right after Esc would read as Alt+key: give the escape delay time.
sleep 0.5
tmux send-keys -t "$SESSION" q
for _ in $(seq 1 50); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
tmux has-session -t "$SESSION" 2>/dev/null && fail "q did not quit"

# A terminal that goes away without a hang-up signal (the client started
# with setsid, so the pane is not its controlling terminal): the client
# notices stdin hung up and quits on its own, cleanly, instead of staying
# online for nobody.
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "setsid -w sh -c 'TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/me 2>>$WORK/tui.err; echo \$? >$WORK/hangup.rc'"
expect_screen "Alice 爱丽丝"
HUP_PID=$(pgrep -f "^$BIN/tongban start --data-dir $WORK/me" | head -1)
[ -n "$HUP_PID" ] || fail "no pid for the client started with setsid"
tmux kill-session -t "$SESSION"
for _ in $(seq 1 100); do kill -0 "$HUP_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$HUP_PID" 2>/dev/null && { kill "$HUP_PID"; fail "the client outlived its terminal"; }
for _ in $(seq 1 50); do [ -s "$WORK/hangup.rc" ] && break; sleep 0.1; done
[ "$(cat "$WORK/hangup.rc" 2>/dev/null)" = 0 ] || fail "the client whose terminal went away exited with '$(cat "$WORK/hangup.rc" 2>/dev/null)'"
if [ -s "$WORK/tui.err" ]; then echo "stderr of the client:"; cat "$WORK/tui.err"; fi
echo "e2e OK: tmux full-screen client against a real tongban-server"
