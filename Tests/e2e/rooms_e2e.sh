#!/usr/bin/env bash
# Rooms end to end (PROTOCOL.md v3 "Rooms") on the scripting commands,
# against one real tongban-server: Mei creates a room; Mei, Bob and Carol
# live in it through `tongban room enter`, each fed from a script; they
# talk and each hears the others; Bob's input ends and the others see him
# leave; Mei removes and bans Carol, who then cannot enter again until Mei
# lets her. rooms_tui_e2e.sh does the same with the full-screen client.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-rooms-e2e.XXXXXX)
SERVER_PID=""
PASS=0
PIDS=()
cleanup() {
  for p in "${PIDS[@]}"; do kill "$p" 2>/dev/null || true; done
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "rooms e2e FAIL: $*"
  for u in mei bob carol; do echo "--- $u"; cat "$WORK/$u.out" 2>/dev/null || true; done
  exit 1
}
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/screen.sh"
. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users rooms-e2e-pw mei bob carol

# waits up to 10 s for TEXT in a user's room output
expect_heard() {
  local who=$1 text=$2
  for _ in $(seq 1 200); do
    grep -qF -- "$text" "$WORK/$who.out" 2>/dev/null && return 0
    sleep 0.05
  done
  fail "$who never printed: $text"
}
# `room enter` for a user, its input a FIFO the script writes lines into (fd 3+N)
enter() {
  local who=$1 fd=$2
  mkfifo "$WORK/$who.in"
  # The others' input ends stay closed in it: an end left open there would keep their input from ending.
  tb "$who" room enter lobby <"$WORK/$who.in" >"$WORK/$who.out" 2>&1 4>&- 5>&- 6>&- &
  PIDS+=($!)
  eval "exec $fd>\"$WORK/$who.in\""
}

tb mei room create 大厅 --unique lobby --topic "随便聊 🏮" | grep -qF "已创建房间「大厅」（lobby）" || fail "create"; ok
expect_output "lobby  大厅" tb bob room ls; ok
enter mei 4; expect_heard mei "进入了房间「大厅」"
enter bob 5; expect_heard bob "进入了房间「大厅」"; expect_heard mei "bob 进入房间"; ok
enter carol 6; expect_heard carol "3人在"; ok

echo "大家好 👋 from bob" >&5
expect_heard mei "bob: 大家好 👋 from bob"; expect_heard carol "bob: 大家好 👋 from bob"; ok
echo "carol here" >&6
expect_heard mei "carol: carol here"; expect_heard bob "carol: carol here"; ok
expect_output "bob (bob)" tb mei room present lobby; ok

# Bob's script ends: he leaves, and the others see it.
exec 5>&-
expect_heard bob "离开了房间「大厅」"
expect_heard mei "bob 离开房间"; expect_heard carol "bob 离开房间"; ok

# Mei removes Carol and bans her: Carol hears it, and cannot come back until unbanned.
tb mei room kick lobby carol --ban | grep -qF "已将 carol 移出房间并禁止再进入" || fail "kick"
expect_heard carol "移出了房间"; expect_heard mei "移出了房间"; ok
if tb carol room enter lobby </dev/null >"$WORK/carol.again" 2>&1; then fail "a banned user entered"; fi
grep -qF "进入房间失败：没有权限" "$WORK/carol.again" || fail "the refusal says why: $(cat "$WORK/carol.again")"; ok
tb mei room unban lobby carol >/dev/null || fail "unban"
echo "" | tb carol room enter lobby >"$WORK/carol.back" 2>&1 || fail "unbanned carol could not enter: $(cat "$WORK/carol.back")"; ok

exec 4>&- 6>&-
echo "rooms e2e: $PASS checks passed"
