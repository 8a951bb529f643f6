#!/usr/bin/env bash
# Regenerates Tools/tongban.order, the code-layout profile of the client.
#
# `make release` hands this file to lld (--symbol-ordering-file), which puts
# the functions named in it first in .text, in this order. A running client
# touches a few MiB of code spread over a 30 MiB text segment (our modules,
# NIO, GRDB, Foundation, the Swift runtime); the kernel maps file pages in
# large blocks around every touched page, so scattered code costs resident
# memory and page faults far beyond its size. Listed first, it sits together.
#
# How: a release build of the client runs under valgrind's callgrind (which
# sees every function executed, however rarely) through
#   1. a scripted session in tmux against a real tongban-server: start, move,
#      filter, help, open a chat, send Chinese text and emoji, select older
#      messages and open one, scroll and load history, search, switch chats,
#      a flood of incoming messages, idle, quit;
#   2. the client phases of Tests/bench/clients.sh (startup, idle, keys, flood).
# Every function either run executed is written out by mangled name: first
# those the benchmark's idle client ran after its start (after the start's
# second hand-back of pages, `ResidentPages.release`, the one after a quiet
# spell: its polls, a redraw, its socket's pings, a few keys; the first
# comes right after the first frame), then those its flood client ran after
# its first frame (connecting, the pulls, the store's inserts, the message
# pane's frames),
# then the rest of what the idle client ran (its start, 50 conversations),
# then all the others, each group hottest (most instructions) first. A flood
# then faults back the idle and the flood stretches, not the start's pages
# that the release handed back. An idle client then touches one short stretch at
# the front instead of pages spread over the whole ordered region (which
# with one hotness order held the idle path interleaved with the flood's,
# the search's and the pictures', so that nearly all of its 7.7 MB was
# resident in an idle client). Its idle window is 65 s so that it holds a
# poll (every 30 s) and the minute's redraw.
# Names that no longer exist after a code change are ignored by lld
# (--no-warn-symbol-ordering), so a stale profile only loses effectiveness.
#
# Usage: make order   (builds the release client, needs valgrind and tmux)
set -euo pipefail
BIN=$(cd "${BIN:-.build/release}" && pwd)
OUT=${OUT:-Tools/tongban.order}
WORK=$(mktemp -d /tmp/tongban-order.XXXXXX)
SESSION=tongban-order-$$
SERVER_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
log() { echo "[order] $*" >&2; }
die() { log "$*"; tmux capture-pane -p -t "$SESSION" 2>/dev/null | tail -10 >&2 || true; exit 1; }

# valgrind 3.19 cannot read DWARF 5: profile a copy without debug info (the
# symbol table, which is what callgrind names functions by, stays).
mkdir -p "$WORK/bin" "$WORK/cg"
objcopy --strip-debug "$BIN/tongban" "$WORK/bin/tongban.real"
ln -s "$BIN/tongban-server" "$WORK/bin/tongban-server"
ln -s "$BIN/tongban-bench" "$WORK/bin/tongban-bench"
cat >"$WORK/bin/tongban" <<EOF
#!/bin/sh
exec valgrind --tool=callgrind --demangle=no --dump-before='*10TerminalUI13ResidentPagesO7releaseSiyFZ*' --callgrind-out-file=$WORK/cg/cg.%p --log-file=$WORK/cg/vg.%p $WORK/bin/tongban.real "\$@"
EOF
chmod +x "$WORK/bin/tongban"

# ---- 1. the scripted session
"$BIN/tongban-server" --demo --no-limits --port 0 --data-dir "$WORK/server" --log-level info 2>"$WORK/server.log" &
SERVER_PID=$!
PORT=""
for _ in $(seq 1 200); do
  PORT=$(sed -n 's|.*tongban-server listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$WORK/server.log" | head -1)
  [ -n "$PORT" ] && break
  sleep 0.1
done
[ -n "$PORT" ] || die "tongban-server did not start"
URL=http://127.0.0.1:$PORT
"$BIN/tongban-bench" mkstore --data-dir "$WORK/me" --server "$URL" --account me \
  --conversations 20 --messages 2000 >&2

# Waits (up to 120 s: valgrind runs the client ~50 times slower) for $1 on screen.
expect() {
  for _ in $(seq 1 1200); do
    tmux capture-pane -p -t "$SESSION" | grep -qF -- "$1" && return 0
    sleep 0.1
  done
  die "screen never showed: $1"
}
# Sends keys, then gives the client time to draw.
k() { tmux send-keys -t "$SESSION" "$@"; sleep 1.5; }
type_text() { tmux send-keys -t "$SESSION" -l "$1"; sleep 1.5; }

tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 $WORK/bin/tongban start --data-dir $WORK/me 2>$WORK/tui.err"
expect online
log "session: list"
k j; k j; k k; k G; k g
k /; type_text bench; k Escape; k Escape
k '?'; k Escape
log "session: chat with Alice (pinned, first)"
k g; k Enter
type_text "你好 hello 🙂 order"; k Enter
expect "order"
k Escape
for _ in 1 2 3 4 5 6 7 8; do k k; done
k Enter; k Escape
k PageUp; k PageUp; k PageDown; k End
k /; type_text hello; k Enter; k Escape; k Escape
log "session: another chat, history"
k Tab; k j; k Enter; k Escape
k PageUp; k PageUp; k PageUp; k g
k Tab; k g; k Enter
log "session: flood of 500 from Alice"
"$BIN/tongban-bench" flood --server "$URL" --account alice --password tongban-demo \
  --to me --count 500 --marker END >"$WORK/flood.out" 2>&1
expect END-499
log "session: idle, quit"
sleep 10
k Escape; k Escape; k q
for _ in $(seq 1 600); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
kill "$SERVER_PID" 2>/dev/null || true
SERVER_PID=""

# ---- 2. the client benchmark's phases
log "clients.sh phases under callgrind"
CLIENTS=ours IDLE_SECONDS=65 FLOOD_COUNT=500 FLOOD_TIMEOUT=300 BIN=$WORK/bin \
  bash Tests/bench/clients.sh >/dev/null

# ---- the order file: the idle client's steady functions, the flood's, its start's, the rest, each hottest first
python3 - "$WORK"/cg/cg.* >"$WORK/order" <<'EOF'
import re, sys, collections
cost = collections.Counter()
idle = set()        # functions the benchmark's idle client ran (its data dir is ours-idle/me)
steady = set()      # ... of them, those it ran after the start's quiet release of pages
flood = set()       # what its flood client (ours-flood/me) ran after its first frame
for path in sys.argv[1:]:
    is_idle = False
    is_flood = False
    part = 1
    names = {}          # callgrind compresses names: "fn=(12) name" once, then "fn=(12)"
    current = None
    in_call = False
    for line in open(path, errors="replace"):
        if line.startswith("cmd:"):
            is_idle = "/ours-idle/" in line
            is_flood = "/ours-flood/" in line
        elif line.startswith("part:"):
            # --dump-before splits the run at each release: part 1 is the start
            # up to its first frame, part 2 connecting and the first screens.
            part = int(line.split()[1])
        elif line.startswith("fn="):
            m = re.match(r"fn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if m.group(2):
                names[m.group(1)] = re.sub(r"'\d+$", "", m.group(2))
            current = names.get(m.group(1))
            in_call = False
        elif line.startswith("cfn="):
            m = re.match(r"cfn=\((\d+)\)(?: (.*))?", line.rstrip("\n"))
            if m and m.group(2):
                names[m.group(1)] = re.sub(r"'\d+$", "", m.group(2))
        elif line.startswith("calls="):
            in_call = True   # the next cost line is the callee's inclusive cost
        elif line[:1].isdigit() or line[:1] in "+-*":
            if in_call:
                in_call = False
                continue
            parts = line.split()
            if current and len(parts) >= 2:
                cost[current] += int(parts[1])
                if is_idle:
                    idle.add(current)
                    if part > 2:
                        steady.add(current)
                elif is_flood and part > 1:
                    flood.add(current)
        else:
            in_call = False
if not idle:
    sys.exit("no callgrind profile of the idle client (cmd: .../ours-idle/...)")
if not steady:
    sys.exit("the idle client never released its pages after a quiet spell (no third part)")
if not flood:
    sys.exit("no callgrind profile of the flood client after its first frame (cmd: .../ours-flood/...)")
group = lambda name: 0 if name in steady else 1 if name in flood else 2 if name in idle else 3
for name, _ in sorted(cost.items(), key=lambda kv: (group(kv[0]), -kv[1], kv[0])):
    if not name.startswith("0x"):
        print(name)
EOF
[ -s "$WORK/order" ] || die "callgrind recorded no functions"
{ echo "# Code-layout profile of the tongban client, written by Tools/order.sh (make order)."
  echo "# lld puts these functions first in .text: the idle client's, the flood's, its start's, the rest, each hottest first. Do not edit by hand."
  cat "$WORK/order"; } >"$OUT"
log "wrote $OUT: $(wc -l <"$OUT") functions"
