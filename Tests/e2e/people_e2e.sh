#!/usr/bin/env bash
# People end to end (PROTOCOL.md v3): `mei` in the full-screen client (tmux,
# 120x40) and Alice on the scripting commands, against one real
# tongban-server. Mei asks Alice to be friends from the n dialog, Alice
# accepts, both lists have the other; Mei sets a remark, Alice a picture that
# Mei's page draws; Alice blocks Mei and Mei's send is refused with the words
# for it; a device signed out from Mei's other login returns her screen to
# sign-in, and signing in again finds her history.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-people-e2e.XXXXXX)
SESSION=tongban-people-e2e-$$
SERVER_PID=""
PASS=0
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "people e2e FAIL: $*"; tail -5 "$WORK/tui.err" 2>/dev/null; echo "--- screen ---"; tmux capture-pane -p -t "$SESSION" 2>/dev/null || true; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/screen.sh"

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users people-e2e-pw mei alice

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=zh-Hans LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/mei 2>$WORK/tui.err"
expect_screen "c 通讯录"

# n, search "alice", the 添加好友 row (after the user, create and join), her card, the words, Enter.
tmux send-keys -t "$SESSION" n
expect_screen "新会话，搜索用户"
tmux send-keys -t "$SESSION" -l "alice"
tmux send-keys -t "$SESSION" Enter
expect_screen "→ 添加好友 alice"
for _ in 1 2 3; do tmux send-keys -t "$SESSION" Down; done
tmux send-keys -t "$SESSION" Enter
expect_screen "↑↓ 选择  回车 查看资料"
tmux send-keys -t "$SESSION" Enter
expect_screen "账号：alice"
tmux send-keys -t "$SESSION" -l "我是梅"
tmux send-keys -t "$SESSION" Enter
expect_screen "已向 alice 发送好友请求"; ok
expect_output "mei @mei 请求添加你为好友: 我是梅" tb alice friend requests; ok

# Alice accepts: both lists have the other, and Mei's contacts follow by push.
tb alice friend accept mei >/dev/null || fail "accept"
expect_output "mei @mei" tb alice friend ls; ok
tmux send-keys -t "$SESSION" c
expect_screen "好友"
expect_screen "A  alice @alice"; ok

# Mei opens Alice's chat from the contacts and names her with , m.
tmux send-keys -t "$SESSION" Down
tmux send-keys -t "$SESSION" Enter
expect_screen "Alt-Enter/Ctrl-J 换行"
tmux send-keys -t "$SESSION" Escape
expect_screen "r 回复"
sleep 0.3
tmux send-keys -t "$SESSION" ,
expect_screen "详细资料"
tmux send-keys -t "$SESSION" m
tmux send-keys -t "$SESSION" -l "小艾"
tmux send-keys -t "$SESSION" Enter
expect_screen "备注：小艾"; ok
expect_output "小艾 (alice) @alice" tb mei friend ls; ok
tmux send-keys -t "$SESSION" Escape

# Alice sets a picture and a signature; Mei's page of her draws it.
python3 - "$WORK/face.png" <<'EOF'
import struct, sys, zlib
w = h = 32
rows = b"".join(b"\x00" + bytes(v for x in range(w) for v in (x * 8, y * 8, 160)) for y in range(h))
def chunk(t, d): return struct.pack(">I", len(d)) + t + d + struct.pack(">I", zlib.crc32(t + d) & 0xffffffff)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
EOF
tb alice profile --avatar "$WORK/face.png" --signature "周末见" >/dev/null || fail "alice profile"
expect_output "个性签名：周末见" tb mei profile alice; ok
tmux send-keys -t "$SESSION" ,
expect_screen "个性签名：周末见"
expect_screen "▀▀▀▀▀▀▀▀▀▀▀▀  备注：小艾"; ok
tmux send-keys -t "$SESSION" Escape

# Alice blocks Mei: Mei's next message is refused with the words for it, and stays to retry.
tb alice block mei >/dev/null || fail "block"
tmux send-keys -t "$SESSION" i
tmux send-keys -t "$SESSION" -l "在吗"
tmux send-keys -t "$SESSION" Enter
expect_screen "消息未送达：对方不接收你的消息，Enter 重试"; ok
tb alice unblock mei >/dev/null || fail "unblock"

# Mei's other login signs this device out: the screen goes back to sign-in.
echo "people-e2e-pw" | tb mei2 login --server "$URL" --account mei --password-stdin >/dev/null || fail "second login"
SID=$(tb mei2 sessions --json | python3 -c 'import json,sys; print([s["sessionId"] for s in json.load(sys.stdin) if not s["current"]][0])')
tb mei2 sessions revoke "$SID" >/dev/null || fail "revoke"
expect_screen "登录已失效，请重新登录"; ok
expect_screen "[1] 登录"
tmux send-keys -t "$SESSION" -l "1"; tmux send-keys -t "$SESSION" Enter
expect_screen "账号："
tmux send-keys -t "$SESSION" -l "mei"; tmux send-keys -t "$SESSION" Enter
expect_screen "密码（不显示）："
tmux send-keys -t "$SESSION" -l "people-e2e-pw"; tmux send-keys -t "$SESSION" Enter
expect_screen "c 通讯录"
# The block ended the friendship (and with it the remark); the history stayed.
tmux send-keys -t "$SESSION" Enter
expect_screen "在吗"; ok
tmux send-keys -t "$SESSION" Escape
tmux send-keys -t "$SESSION" Escape
tmux send-keys -t "$SESSION" q
sleep 0.5
if grep -qi "fatal\|panic" "$WORK/tui.err" 2>/dev/null; then fail "the client crashed: $(tail -3 "$WORK/tui.err")"; fi
echo "people e2e: $PASS checks passed"
