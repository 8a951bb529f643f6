#!/usr/bin/env bash
# Acting on a message end to end (PROTOCOL.md v3): `me` in the full-screen
# client (tmux, 120x40) and Alice on the scripting commands, against one real
# tongban-server. Each action is seen on the other side: Alice's reaction and
# edit on my screen, my reply, reaction and edit in her history; a delete for
# me leaves her copy alone.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-actions-e2e.XXXXXX)
SESSION=tongban-actions-e2e-$$
SERVER_PID=""
PASS=0
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "actions e2e FAIL: $*"; tail -5 "$WORK/tui.err" 2>/dev/null; echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/screen.sh"

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users actions-e2e-pw mei alice bob
tb alice send --to mei "周六八点山脚下见" >/dev/null || fail "first send"

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 EDITOR=ed $BIN/tongban start --data-dir $WORK/mei 2>$WORK/tui.err"
expect_screen "周六八点山脚下见"
tmux send-keys -t "$SESSION" Enter   # open the chat with Alice
expect_screen "Alt-Enter/Ctrl-J 换行"

# Ctrl-X Ctrl-E: the draft goes through $EDITOR and comes back unsent. ed reads
# its commands from the terminal, which it can only do in the foreground: an
# editor started in a group of its own would stop there and the client with it.
tmux send-keys -t "$SESSION" -l "临时草稿"
tmux send-keys -t "$SESSION" C-x
tmux send-keys -t "$SESSION" C-e
sleep 0.5
for command in 's/临时/编辑器里写好/' w q; do tmux send-keys -t "$SESSION" -l "$command"; tmux send-keys -t "$SESSION" Enter; done
expect_screen "> 编辑器里写好草稿"; ok
tmux send-keys -t "$SESSION" C-u
expect_gone "编辑器里写好草稿"

# Alice edits her message and reacts to it: both reach my open chat by push.
tb alice edit --with mei --last "周六九点山脚下见" >/dev/null || fail "alice edit"
expect_screen "周六九点山脚下见 （已编辑）"; ok
tb alice react --with mei --last "🙏" >/dev/null || fail "alice react"
expect_screen "🙏 1"; ok

# I reply to it (the message pane selects the newest as it takes the keyboard, r quotes it) and she reads the quote.
# (Wait for the message pane's hints: a key read together with the Esc would be Alt+key.)
tmux send-keys -t "$SESSION" Escape
expect_screen "r 回复"
sleep 0.3
tmux send-keys -t "$SESSION" r
expect_screen "回复 alice："
tmux send-keys -t "$SESSION" -l "好，带上水"
tmux send-keys -t "$SESSION" Enter
expect_screen "│ "; ok
expect_output "「周六九点山脚下见」 好，带上水" tb alice history --with mei; ok

# I react to her message with 👍 (1) and she sees the count.
tmux send-keys -t "$SESSION" Escape
expect_screen "r 回复"
sleep 0.3
tmux send-keys -t "$SESSION" k
tmux send-keys -t "$SESSION" 1
expect_screen "👍 1"
expect_output '"👍"' tb alice history --with mei --json; ok

# I edit my reply (e, Ctrl-U, new words, Enter): she has the new words, marked edited.
tmux send-keys -t "$SESSION" j
tmux send-keys -t "$SESSION" e
expect_screen "编辑消息：Enter 保存，Esc 取消"
tmux send-keys -t "$SESSION" C-u
tmux send-keys -t "$SESSION" -l "好，我带水和干粮"
tmux send-keys -t "$SESSION" Enter
expect_screen "好，我带水和干粮 （已编辑）"
expect_output "好，我带水和干粮 （已编辑）" tb alice history --with mei; ok

# Alice deletes my reply for herself: gone from her history, still on my screen.
ID=$(tb alice history --with mei --json | python3 -c 'import json,sys; print([m["id"] for m in json.load(sys.stdin) if m.get("quote")][0])')
tb alice delete --with mei --message "$ID" >/dev/null || fail "delete for me"
tb alice history --with mei | grep -qF "干粮" && fail "the deleted reply is still in Alice's history"; ok
expect_screen "好，我带水和干粮 （已编辑）"; ok

# I forward Alice's message to Bob from the command line: he gets it as a message of mine.
tb bob send --to mei "在吗" >/dev/null || fail "bob send"
tb mei sync >/dev/null || fail "mei sync"
AID=$(tb mei history --with alice --json | python3 -c 'import json,sys; print([m["id"] for m in json.load(sys.stdin) if m["content"].startswith("周六九点")][0])')
tb mei forward --with alice --message "$AID" --to bob >/dev/null || fail "forward"
expect_output "周六九点山脚下见" tb bob history --with mei; ok
tb mei forward --with alice --message "$AID" --to bob --merged --title "山脚下集合" >/dev/null || fail "merged forward"
expect_output "[聊天记录] 山脚下集合" tb bob history --with mei; ok
# Bob keeps it in his favourites and finds it again from the list's search.
tb bob fav add --with mei --last >/dev/null || fail "fav add"
expect_output "山脚下集合" tb bob fav ls; ok

# Search everywhere from my list: `/` and a word of my edited reply finds it in Alice's chat.
# (Esc steps out of the selection, then the pane; the list's hints say when it is there.)
for _ in 1 2 3; do
  tmux capture-pane -p -t "$SESSION" | grep -qF "n 新建" && break
  tmux send-keys -t "$SESSION" Escape
  sleep 0.6
done
expect_screen "n 新建"
tmux send-keys -t "$SESSION" /
tmux send-keys -t "$SESSION" -l "干粮"
expect_screen "🔍 alice"; ok
# The same from the command line, in every conversation and as JSON.
expect_output "我带水和干粮" tb mei search "干粮"
tb mei search "干粮" --json | python3 -c 'import json,sys; h=json.load(sys.stdin); assert len(h) == 1 and h[0]["conversationName"] == "alice", h' \
  || fail "search --json"; ok
echo "actions e2e: $PASS passed, 0 failed"
