#!/usr/bin/env bash
# Groups end to end: `me` in the full-screen client (tmux, 120x40), Alice and
# Carol on the scripting commands, all against one real tongban-server.
# Create, invite, mention, mute, leave; who a group left out, a sign-in
# elsewhere and a new password (PROTOCOL.md v4).
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-group-e2e.XXXXXX)
SESSION=tongban-group-e2e-$$
SERVER_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "group e2e FAIL: $*"; tail -5 "$WORK/tui.err" 2>/dev/null; echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; exit 1; }

. "$(dirname "$0")/screen.sh"

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log" --demo
export TONGBAN_LANG=zh-Hans
for u in me alice carol; do
  echo tongban-demo | "$BIN/tongban" login --data-dir "$WORK/$u" --server "http://127.0.0.1:$PORT" --account "$u" --password-stdin >/dev/null
done

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/me 2>$WORK/tui.err"
expect_screen "周末爬山群（4人）"
expect_screen "[有人@我]"

# Create: Alice makes a group with me in it; it appears in my list by push.
tb alice group create 登山队 --unique climbers --member me >/dev/null
expect_screen "登山队（2人）"

# Open it (list filter, Enter): the created notice is a centred line.
tmux send-keys -t "$SESSION" /
tmux send-keys -t "$SESSION" -l "登山"
tmux send-keys -t "$SESSION" Enter
expect_screen "Alice 爱丽丝 创建了群聊"

# Invite from the input bar (opening a chat puts the cursor there): the
# notice and the new count reach both sides.
expect_screen "Alt-Enter/Ctrl-J 换行"
tmux send-keys -t "$SESSION" -l "/invite carol"
tmux send-keys -t "$SESSION" Enter
expect_screen "你 邀请 Carol 卡罗尔 加入了群聊"
expect_screen "登山队（3人）"
expect_output "Carol 卡罗尔" tb alice group members --group climbers

# Mention: @ca + Tab completes Carol; she is told she was mentioned.
tmux send-keys -t "$SESSION" -l "@ca"
expect_screen "Tab 选择：@Carol 卡罗尔"
tmux send-keys -t "$SESSION" Tab
tmux send-keys -t "$SESSION" -l "周六见"
tmux send-keys -t "$SESSION" Enter
expect_output '"hasUnreadMention" : true' tb carol ls --json
expect_output "我: @Carol 卡罗尔 周六见" tb carol history --with climbers
# Carol answers with a mention of me; Alice's plain message shows her name above it.
tb carol send --to climbers --mention me "收到" >/dev/null
expect_screen "@我 收到"
tb alice send --to 登山队 "我带地图 🎒" >/dev/null
expect_screen "我带地图 🎒"
expect_screen "Alice 爱丽丝"

# Mute from the list: the mark shows, the server keeps it, the total leaves it out.
# (A key right after Esc would read as Alt+key: give the escape delay time.)
tmux send-keys -t "$SESSION" Escape
sleep 0.6
tmux send-keys -t "$SESSION" Escape
sleep 0.6
# The group's row: conversations take two lines each from line 3.
# (Line 1 holds the open chat's header with the same name: skip it.)
line=$(tmux capture-pane -p -t "$SESSION" | cut -c1-36 | grep -nF "登山队（3人）" | head -1 | cut -d: -f1)
[ -n "$line" ] || fail "no group row"
tmux send-keys -t "$SESSION" g
for _ in $(seq 1 $(( (line - 3) / 2 ))); do sleep 0.1; tmux send-keys -t "$SESSION" j; done
sleep 0.2
tmux send-keys -t "$SESSION" m
expect_screen "登山队（3人） 🔕"
expect_output '"isMuted" : true' tb me ls --json --offline

# Leave: d asks whether to leave too; y leaves and deletes.
tmux send-keys -t "$SESSION" d
expect_screen "y 退出并删除"
tmux send-keys -t "$SESSION" y
expect_gone "登山队"
expect_output "我 退出了群聊" tb alice history --with climbers
if tb alice group members --group climbers | grep -qF "我  @me"; then fail "me is still a member"; fi
tb alice send --to climbers "你还在吗" >/dev/null
# Then a direct message: once my screen shows it, my client has pulled
# everything logged for me before it (the log is ordered).
tb alice send --to 我 "离群之后的私信" >/dev/null
expect_screen "离群之后的私信"
tmux capture-pane -p -t "$SESSION" | grep -qF "登山队" && fail "a message after leaving brought the group back"

# Make a group in the full-screen client: n, its name and Enter, "new
# group", its unique name, Carol found by search and added, Enter creates it.
tmux send-keys -t "$SESSION" n
sleep 0.3
tmux send-keys -t "$SESSION" -l "家人群"
tmux send-keys -t "$SESSION" Enter
expect_screen "＋ 新建群聊「家人群」"
tmux send-keys -t "$SESSION" Enter
expect_screen "3-32 个 a-z"
tmux send-keys -t "$SESSION" -l "family_1"
tmux send-keys -t "$SESSION" Enter
expect_screen "添加成员："
tmux send-keys -t "$SESSION" -l "carol"
tmux send-keys -t "$SESSION" Enter
expect_screen "Carol 卡罗尔  @carol"
tmux send-keys -t "$SESSION" Enter
expect_screen "成员：Carol 卡罗尔"
tmux send-keys -t "$SESSION" Enter
expect_screen "家人群（2人）"
expect_output "家人群" tb carol ls

# The owner's menu under ",": Down picks Carol, x and y remove her.
tmux send-keys -t "$SESSION" Escape
sleep 0.6
tmux send-keys -t "$SESSION" ,
expect_screen "· Carol 卡罗尔  @carol"
expect_screen "x  移出所选成员"
tmux send-keys -t "$SESSION" Down
sleep 0.2
tmux send-keys -t "$SESSION" x
expect_screen "将 Carol 卡罗尔 移出群聊？"
tmux send-keys -t "$SESSION" y
expect_screen "你 将 Carol 卡罗尔 移出了群聊"
expect_screen "家人群（1人）"

# v4: who does not take Alice is left out of her group and named, never why.
tb carol block alice >/dev/null
made=$(tb alice group create 读书会 --unique readers --member carol --member me)
grep -qF "Carol 卡罗尔 未能加入" <<<"$made" || fail "group create did not say who was left out: $made"
invited=$(TONGBAN_LANG=en tb alice group invite --group readers carol)
grep -qF "Carol 卡罗尔 could not be added" <<<"$invited" || fail "group invite did not say who was left out: $invited"

# v4: my account signs in elsewhere: my screen says so, with the way to sign it out.
echo tongban-demo | tb me2 login --server "http://127.0.0.1:$PORT" --account me --password-stdin >/dev/null
expect_screen "你的账号在新设备上登录（不是你？按 u 打开我的信息，选中它按 x 让它退出）：tongban-terminal"

tmux send-keys -t "$SESSION" q
for _ in $(seq 1 50); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
if [ -s "$WORK/tui.err" ]; then echo "stderr of the client:"; cat "$WORK/tui.err"; fi

# v4: a new password from the second login (piped: current, then new) signs the first out.
printf 'not-my-password\nnew-password-1\n' | tb me2 password >"$WORK/pw.out" 2>&1 && fail "a wrong current password was taken"
grep -qF "修改密码失败：当前密码不正确" "$WORK/pw.out" || fail "wrong current password: $(cat "$WORK/pw.out")"
changed=$(printf 'tongban-demo\nnew-password-1\n' | tb me2 password) || fail "password: $changed"
[ "$changed" = "密码已修改，其他设备已退出登录" ] || fail "password said: $changed"
tb me ls >"$WORK/ls.out" 2>&1 && fail "the first login still works"
grep -qF "登录已失效，请重新登录" "$WORK/ls.out" || fail "the first login's refusal: $(cat "$WORK/ls.out")"
echo new-password-1 | tb me3 login --server "http://127.0.0.1:$PORT" --account me --password-stdin >/dev/null || fail "new password"
echo "group e2e OK: create, invite, mention, mute and leave across three users; a group made and managed in the client;" \
  "who was not added, a sign-in elsewhere and a new password"
