#!/usr/bin/env bash
# Rooms end to end in the full-screen client (PROTOCOL.md v3 "Rooms"),
# against one real tongban-server: Mei (tmux, 120x40) makes the room from
# the n dialog; Bob (another tmux) finds it in the directory and enters;
# Carol enters through `tongban room enter` fed from a script. They talk and
# each hears the others; Mei names Bob with @ completion; Bob quits and the
# others see him leave; Mei removes and bans Carol from the room's page,
# and Carol then cannot enter; Mei leaves with d on the room's row.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-rooms-tui-e2e.XXXXXX)
SESSION=tongban-rooms-mei-$$
BOB=tongban-rooms-bob-$$
SERVER_PID=""
CAROL_PID=""
PASS=0
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  tmux kill-session -t "$BOB" 2>/dev/null || true
  [ -n "$CAROL_PID" ] && kill "$CAROL_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "rooms tui e2e FAIL: $*"
  echo "--- mei"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; tail -5 "$WORK/mei.err" 2>/dev/null || true
  echo "--- bob"; tmux capture-pane -p -t "$BOB" 2>/dev/null || true; tail -5 "$WORK/bob.err" 2>/dev/null || true
  echo "--- carol"; cat "$WORK/carol.out" 2>/dev/null || true
  exit 1
}
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/screen.sh"
. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users rooms-tui-pw mei bob carol
# waits up to 10 s for TEXT in Carol's room output
expect_heard() {
  for _ in $(seq 1 200); do
    grep -qF -- "$1" "$WORK/carol.out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "carol never printed: $1"
}
start_tui() {
  tmux new-session -d -s "$1" -x 120 -y 40 \
    "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/$2 2>$WORK/$2.err"
  expect_screen "● 在线" "$1"
}
start_tui "$SESSION" mei
start_tui "$BOB" bob

# Mei: n, the name, Enter; below the people found, 创建房间; the unique name, a topic.
tmux send-keys -t "$SESSION" n
expect_screen "新会话，搜索用户"
tmux send-keys -t "$SESSION" -l "大厅"
tmux send-keys -t "$SESSION" Enter
expect_screen "# 创建房间「大厅」"
for _ in 1 2 3 4 5; do tmux send-keys -t "$SESSION" Down; done
tmux send-keys -t "$SESSION" Enter
expect_screen "房间名：大厅"
tmux send-keys -t "$SESSION" -l "lobby"
tmux send-keys -t "$SESSION" Enter
tmux send-keys -t "$SESSION" -l "随便聊 🏮"
tmux send-keys -t "$SESSION" Enter
expect_screen "# 大厅（1人在）  随便聊 🏮"
expect_screen "房间 · 1"; ok
expect_output "lobby  大厅  1人在线" tb carol room ls; ok

# Bob: n, Enter on nothing is the directory; the room is there; Enter enters it.
tmux send-keys -t "$BOB" n
expect_screen "新会话，搜索用户" "$BOB"
tmux send-keys -t "$BOB" Enter
expect_screen "# 大厅  lobby  1人在" "$BOB"
tmux send-keys -t "$BOB" Enter
expect_screen "# 大厅（2人在）" "$BOB"
expect_screen "bob 进入房间"; expect_screen "# 大厅（2人在）"; ok

# Carol lives in the room through a script.
mkfifo "$WORK/carol.in"
tb carol room enter lobby <"$WORK/carol.in" >"$WORK/carol.out" 2>&1 &
CAROL_PID=$!
exec 4>"$WORK/carol.in"
expect_heard "进入了房间「大厅」，3人在"
expect_screen "carol 进入房间"; expect_screen "carol 进入房间" "$BOB"; ok

tmux send-keys -t "$BOB" -l "大家好 👋 from bob"
tmux send-keys -t "$BOB" Enter
expect_screen "大家好 👋 from bob"; expect_heard "bob: 大家好 👋 from bob"; ok
echo "carol here" >&4
expect_screen "carol here"; expect_screen "carol here" "$BOB"; ok
# Mei names Bob: @ completes who is here.
tmux send-keys -t "$SESSION" -l "@bo"
expect_screen "@bob"
tmux send-keys -t "$SESSION" Tab
tmux send-keys -t "$SESSION" -l "看这里"
tmux send-keys -t "$SESSION" Enter
expect_screen "@bob 看这里" "$BOB"; expect_heard "mei: @bob 看这里"; ok

# Bob quits: quitting leaves, and the others see it.
tmux send-keys -t "$BOB" C-c
expect_screen "bob 离开房间"; expect_heard "bob 离开房间"; ok
expect_screen "# 大厅（2人在）"

# Mei's page of the room: Carol picked, b removes and bans her (y).
tmux send-keys -t "$SESSION" Escape
expect_screen "r 回复"
sleep 0.3
tmux send-keys -t "$SESSION" ,
expect_screen "房间号：lobby"
tmux send-keys -t "$SESSION" Down
tmux send-keys -t "$SESSION" b
expect_screen "将 carol 移出房间并禁止再进入？"
tmux send-keys -t "$SESSION" y
expect_screen "你 将 carol 移出了房间"; expect_heard "移出了房间"; ok
if tb carol room enter lobby </dev/null >"$WORK/carol.again" 2>&1; then fail "a banned user entered"; fi
grep -qF "进入房间失败：没有权限" "$WORK/carol.again" || fail "the refusal says why: $(cat "$WORK/carol.again")"; ok

# Mei leaves with d on the room's row (y): the room is gone from her list, and empty.
tmux send-keys -t "$SESSION" Escape
expect_screen "d 离开房间"
tmux send-keys -t "$SESSION" g
tmux send-keys -t "$SESSION" d
expect_screen "离开房间「大厅」？"
tmux send-keys -t "$SESSION" y
expect_screen "已离开房间"
expect_gone "房间 · 1"; ok
expect_output "lobby  大厅  0人在线" tb carol room ls; ok

exec 4>&-
echo "rooms tui e2e: $PASS checks passed"
