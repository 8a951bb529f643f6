#!/usr/bin/env bash
# A newcomer's first hour, end to end through tmux against a real
# tongban-server: an account made in the full-screen client's sign-in form
# (password never on screen) and one with `tongban register`, a stranger's
# first message showing their name in the list, and `send --queue --to`
# resolving the peer by account and by display name with the server gone.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-newcomer.XXXXXX)
SESSION=tongban-newcomer-$$
SERVER_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "newcomer e2e FAIL: $*"; tail -5 "$WORK/tui.err" 2>/dev/null || true
  echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; exit 1; }
screen() { tmux capture-pane -p -t "$SESSION"; }
# Waits until the pane shows $1 (up to 10 s).
expect_screen() {
  for _ in $(seq 1 100); do
    screen | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  fail "screen never showed: $1"
}
checks=0
ok() { checks=$((checks + 1)); }

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans LANG=C.UTF-8

# The full-screen client with a server and no login: the form, then the list.
tmux new-session -d -s "$SESSION" -x 100 -y 30 \
  "TONGBAN_NO_BELL=1 $BIN/tongban start --data-dir $WORK/nina --server $URL 2>$WORK/tui.err"
expect_screen "[2] 注册新账号"
tmux send-keys -t "$SESSION" 2 Enter
expect_screen "账号："
tmux send-keys -t "$SESSION" "nina_x" Enter
expect_screen "昵称"
tmux send-keys -t "$SESSION" "妮娜" Enter
expect_screen "密码（不显示）："
tmux send-keys -t "$SESSION" "short" Enter
expect_screen "再次输入密码："
tmux send-keys -t "$SESSION" "short" Enter
expect_screen "密码至少 8 个字符。"; ok
expect_screen "请重试"
tmux send-keys -t "$SESSION" 2 Enter "nina_x" Enter "妮娜" Enter
expect_screen "密码（不显示）："
tmux send-keys -t "$SESSION" "nina-secret-1" Enter
expect_screen "再次输入密码："
tmux send-keys -t "$SESSION" "nina-secret-1" Enter
expect_screen "暂无消息"; ok
screen | grep -qF "nina-secret" && fail "the password was echoed"; ok
[ "$(stat -c %a "$WORK/nina/session.json")" = 600 ] || fail "session.json is not 0600"; ok

# `tongban register`: refusals with clear words, then an account.
reg() { echo "$2" | "$BIN/tongban" register --data-dir "$WORK/$1" --server "$URL" --account "$1" --name "$3" --password-stdin 2>&1; }
out=$(reg nina_x password-2 "Nina" || true); echo "$out" | grep -qF "账号 nina_x 已被占用" || fail "taken account: $out"; ok
out=$(reg "Bad-Name" password-2 "x" || true); echo "$out" | grep -qF "账号须为 3–32 位" || fail "bad account: $out"; ok
out=$(echo password-3 | "$BIN/tongban" register --data-dir "$WORK/x" --server "http://127.0.0.1:0" --account zed_x --password-stdin 2>&1 || true)
echo "$out" | grep -qF "无法连接 http://127.0.0.1:0" || fail "unreachable server: $out"; ok
out=$(reg bob_x bob-secret-1 "Bob 鲍勃") || fail "register bob_x: $out"
echo "$out" | grep -qF "已创建账号 bob_x" || fail "register bob_x said: $out"; ok

# Bob, a stranger to Nina, writes first: her list names him.
"$BIN/tongban" send --data-dir "$WORK/bob_x" --to nina_x "你好，我是 Bob" >/dev/null || fail "bob's send"
expect_screen "Bob 鲍勃"; ok
"$BIN/tongban" ls --data-dir "$WORK/nina" --json | grep -qF '"nickname" : "Bob 鲍勃"' \
  || "$BIN/tongban" ls --data-dir "$WORK/nina" --json | grep -qF '"nickname":"Bob 鲍勃"' \
  || fail "ls --json has no name: $("$BIN/tongban" ls --data-dir "$WORK/nina" --json)"; ok

# A file from Bob: the bubble in Nina's list preview, then `tongban save`.
head -c 3000 /dev/urandom > "$WORK/报告 final.bin"
"$BIN/tongban" send --data-dir "$WORK/bob_x" --to nina_x --file "$WORK/报告 final.bin" >/dev/null || fail "send --file"
expect_screen "[文件] 报告 final.bin"; ok
out=$("$BIN/tongban" save --data-dir "$WORK/nina" --with bob_x --last --dir "$WORK/dl") || fail "save: $out"
cmp -s "$WORK/报告 final.bin" "$WORK/dl/报告 final.bin" || fail "the saved file differs: $out"; ok
out=$("$BIN/tongban" save --data-dir "$WORK/nina" --with bob_x --last --dir "$WORK/dl") || fail "save again: $out"
[ -f "$WORK/dl/报告 final (1).bin" ] || fail "a second save overwrote the first: $out"; ok

# Bob renames himself: Nina's open list follows.
"$BIN/tongban" rename --data-dir "$WORK/bob_x" "Bob 改名了" | grep -qF "昵称已改为 Bob 改名了" || fail "rename"
expect_screen "Bob 改名了"; ok

# The server goes away; Bob still addresses Nina by account and by display name.
stop_server
for peer in nina_x 妮娜; do
  out=$("$BIN/tongban" send --data-dir "$WORK/bob_x" --queue --to "$peer" "离线消息 $peer" 2>&1) || fail "offline send --to $peer: $out"
  echo "$out" | grep -qF "已排队" || fail "offline send --to $peer said: $out"; ok
done

tmux send-keys -t "$SESSION" q
for _ in $(seq 1 50); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
tmux has-session -t "$SESSION" 2>/dev/null && fail "q did not quit"
# Where it cannot draw, the full-screen client says why in one line and exits 2.
for how in pipe dumb unset unknown; do
  case $how in
    pipe) env TONGBAN_LANG=zh-Hans TERM=xterm "$BIN/tongban" start --data-dir "$WORK/bob_x" </dev/null >"$WORK/refused.out" 2>&1 && rc=0 || rc=$? ;;
    dumb) script -qec "env TONGBAN_LANG=zh-Hans TERM=dumb $BIN/tongban start --data-dir $WORK/bob_x" /dev/null >"$WORK/refused.out" 2>&1 </dev/null && rc=0 || rc=$? ;;
    unset) script -qec "env -u TERM TONGBAN_LANG=zh-Hans $BIN/tongban start --data-dir $WORK/bob_x" /dev/null >"$WORK/refused.out" 2>&1 </dev/null && rc=0 || rc=$? ;;
    unknown) script -qec "env TONGBAN_LANG=zh-Hans TERM=vt-nonesuch $BIN/tongban start --data-dir $WORK/bob_x" /dev/null >"$WORK/refused.out" 2>&1 </dev/null && rc=0 || rc=$? ;;
  esac
  grep -qF "全屏客户端无法在这里显示" "$WORK/refused.out" && grep -qF "tongban ls" "$WORK/refused.out" \
    || fail "$how: the client did not say why: $(cat "$WORK/refused.out")"
  [ "$rc" -eq 2 ] || fail "$how: exit status $rc, not 2"; ok
done
echo "newcomer e2e: $checks passed, 0 failed"
