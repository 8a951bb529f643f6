#!/usr/bin/env bash
# Pictures in a real terminal: xterm with sixel (`-ti vt340`) under Xvfb,
# the full-screen client as Bob, a picture of coloured noise from Alice.
# tmux cannot see this (it keeps no bitmap): only screenshots can. The
# client runs with NO_COLOR, so every cell is black or white, half blocks
# included: a coloured pixel in a screenshot (xwd) is a picture drawn in
# sixel. The picture is drawn in pixels; the message menu (`.`) and the
# help (`?`) opened over it leave no pixel of it on screen (before, the
# menu's lines were painted over); closing them brings it back. The chat
# is opened with a double click: the mouse in a real terminal.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-xterm-e2e.XXXXXX)
SERVER_PID=""
XVFB_PID=""
XTERM_PID=""
PASS=0
cleanup() {
  [ -n "$XTERM_PID" ] && kill "$XTERM_PID" 2>/dev/null || true
  [ -n "$XVFB_PID" ] && kill "$XVFB_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() { echo "xterm sixel e2e FAIL: $*"; [ -f "$WORK/last.txt" ] && cat "$WORK/last.txt"; exit 1; }
ok() { PASS=$((PASS + 1)); }
. "$(dirname "$0")/server.sh"
for p in Xvfb xterm xdotool xwd; do command -v $p >/dev/null || fail "$p is missing (make deps installs it)"; done

start_server "$WORK/server" "$WORK/server.log"
URL="http://127.0.0.1:$PORT"
export TONGBAN_LANG=zh-Hans
register_users xterm-e2e-pw alice bob
python3 - "$WORK/noise.png" <<'PY'
import random, struct, sys, zlib
random.seed(7)
w = h = 64
rows = b"".join(b"\0" + bytes(random.randrange(256) for _ in range(w * 3)) for _ in range(h))
def chunk(kind, data):
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data) & 0xFFFFFFFF)
png = b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", w, h, 8, 2, 0, 0, 0)) \
    + chunk(b"IDAT", zlib.compress(rows)) + chunk(b"IEND", b"")
open(sys.argv[1], "wb").write(png)
PY
tb alice send --to bob "看这张图" >/dev/null || fail "alice's text"
tb alice send --to bob --image "$WORK/noise.png" >/dev/null || fail "alice's picture"
tb alice send --to bob "就是这张" >/dev/null || fail "alice's text after it"
# Bob's store has Alice's chat before the client starts, so its first frame
# (noted in the bench log) already shows her row: the click has a target.
tb bob sync >/dev/null || fail "bob's sync"

# A display of our own: Xvfb picks a free number and writes it to fd 5.
Xvfb -displayfd 5 -screen 0 1024x768x24 -nolisten tcp 5>"$WORK/display" 2>"$WORK/xvfb.log" &
XVFB_PID=$!
for _ in $(seq 1 100); do [ -s "$WORK/display" ] && break; sleep 0.1; done
[ -s "$WORK/display" ] || fail "Xvfb did not start: $(cat "$WORK/xvfb.log")"
export DISPLAY=":$(cat "$WORK/display")"
mkdir -p "$WORK/config"
# 100×24 cells (the menu then opens over the picture), sixel and its colour
# registers; UTF-8 whatever the caller's locale (in the C locale xterm reads
# the client's UTF-8 as Latin-1, each byte a cell, and the menu's lines no
# longer fall where the client put them).
env -u TMUX -u COLORTERM -u TONGBAN_GRAPHICS -u LANGUAGE LANG=C.UTF-8 LC_ALL=C.UTF-8 NO_COLOR=1 XDG_CONFIG_HOME="$WORK/config" TONGBAN_BENCH_LOG="$WORK/frames.log" \
  xterm -ti vt340 -tn xterm-256color -b 0 -fn fixed -geometry 100x24+0+0 \
  -xrm 'XTerm*numColorRegisters: 256' -xrm 'XTerm*allowWindowOps: true' -xrm 'XTerm*decGraphicsID: vt340' \
  -e "$BIN/tongban" start --data-dir "$WORK/bob" 2>"$WORK/xterm.log" &
XTERM_PID=$!
WIN=""
for _ in $(seq 1 100); do WIN=$(xdotool search --onlyvisible --class xterm 2>/dev/null | head -1 || true); [ -n "$WIN" ] && break; sleep 0.1; done
[ -n "$WIN" ] || fail "no xterm window (xterm $(kill -0 "$XTERM_PID" 2>/dev/null && echo running || echo exited); its log: $(tail -5 "$WORK/xterm.log" 2>/dev/null); Xvfb's: $(tail -5 "$WORK/xvfb.log" 2>/dev/null))"
# Keys go where the pointer is (no window manager): into the terminal.
xdotool mousemove 40 40

# picture_pixels: how many pixels of the terminal's window have a colour.
picture_pixels() {
  xwd -root -silent >"$WORK/shot.xwd"
  python3 - "$WORK/shot.xwd" "$(xdotool getwindowgeometry --shell "$WIN" | tr '\n' ' ')" <<'PY'
import struct, sys
data = open(sys.argv[1], "rb").read()
f = struct.unpack(">25I", data[:100])
header, bpp, bpl, ncolors = f[0], f[11], f[12], f[19]
pixels = data[header + ncolors * 12:]
geo = dict(kv.split("=") for kv in sys.argv[2].split())
wx, wy, ww, wh = (int(geo[k]) for k in ("X", "Y", "WIDTH", "HEIGHT"))
step = bpp // 8
coloured = 0
for y in range(wy, wy + wh):
    row = pixels[y * bpl + wx * step:y * bpl + (wx + ww) * step]
    for o in range(0, len(row), step):
        c = row[o:o + 3]
        if max(c) - min(c) > 48:
            coloured += 1
print(coloured)
PY
}

# wait_for none|some WHAT [TRIES]: screenshots until `picture_pixels` is 0, or 2,000 or more (80 tries, 20 s at least).
wait_for() {
  local want=$1 what=$2 tries=${3:-80} n=0
  for _ in $(seq 1 "$tries"); do
    n=$(picture_pixels)
    if [ "$want" = none ] && [ "$n" -eq 0 ]; then return 0; fi
    if [ "$want" = some ] && [ "$n" -ge 2000 ]; then return 0; fi
    sleep 0.25
  done
  echo "$what: $n coloured pixels" >"$WORK/last.txt"
  [ -n "${XTERM_E2E_SHOTS:-}" ] && cp "$WORK/shot.xwd" "$XTERM_E2E_SHOTS/failed.xwd"
  return 1
}

key() { xdotool key --delay 50 "$@"; }
# The list is there; a double click on Alice's row (row 2 of the list, in
# pixels of the window's cells) opens her chat (the input bar has the keys);
# Shift-Tab selects her newest message, the line under the picture, whose
# menu opens above it: over the picture.
for _ in $(seq 1 300); do grep -q '^first_frame_ms' "$WORK/frames.log" 2>/dev/null && break; sleep 0.1; done
grep -q '^first_frame_ms' "$WORK/frames.log" 2>/dev/null || fail "the client drew no frame in 30 s: $(cat "$WORK/xterm.log")"
eval "$(xdotool getwindowgeometry --shell "$WIN")"
CELL_W=$((WIDTH / 100)) CELL_H=$((HEIGHT / 24))
# A double click is two clicks 0.4 s apart at most as the client reads them;
# a machine busy enough to read them further apart gets another double click
# (on the same row it opens the same chat).
opened=""
for _ in 1 2 3; do
  xdotool mousemove $((X + 10 * CELL_W)) $((Y + 2 * CELL_H + CELL_H / 2)) click --repeat 2 --delay 80 1
  if wait_for some "the picture in pixels in alice's chat, opened by a double click" 30; then opened=1; break; fi
done
[ -n "$opened" ] || fail "a double click did not open the chat, or the picture is not drawn in sixel"; ok
key shift+Tab
wait_for some "the message under it selected" || fail "selecting a message lost the picture"; ok
key period
wait_for none "the message menu over the picture" || fail "the picture shows through the message menu (or the menu no longer opens over it)"; ok
key Escape
wait_for some "the menu closed" || fail "closing the menu did not bring the picture back"; ok
key question
wait_for none "the help over the picture" || fail "the picture shows through the help"; ok
key Escape
wait_for some "the help closed" || fail "closing the help did not bring the picture back"; ok
key q
for _ in $(seq 1 50); do kill -0 "$XTERM_PID" 2>/dev/null || break; sleep 0.1; done
kill -0 "$XTERM_PID" 2>/dev/null && fail "q did not end the client"
XTERM_PID=""
ok
stop_server
echo "xterm sixel e2e: $PASS checks passed"
