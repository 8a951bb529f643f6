#!/usr/bin/env bash
# Fault injection against a real tongban-server (PROTOCOL.md is the contract):
#   1. kill -9 while 50 clients send; restart; every client retries its
#      unanswered sends with the same clientMsgId; every conversation's
#      history must hold each acknowledged send at its seq, seqs without
#      holes, nothing twice.
#   2. a full disk (a small tmpfs as the data dir): sends and uploads are
#      refused with 503 storage_full, the server stays up, nothing is
#      half-written; once space is back the refused sends go through once.
# The load and the checks are in Tests/fault/load.py (python3, stdlib only).
# Needs root for part 2's mount; without it that part is skipped.
set -euo pipefail
BIN=${BIN:-.build/debug}
HERE=$(cd "$(dirname "$0")" && pwd)
LOAD="$HERE/load.py"
WORK=$(mktemp -d /tmp/tongban-fault.XXXXXX)
DISK=""          # part 2's mount point
MOUNTED=""       # set once DISK is mounted
PIDS=()          # every server started
SERVER_PID=""
PY_PID=""        # load.py while it runs
PORT=""
PASS=0
FAILED=0
T0=$(date +%s)

cleanup() {
  local p
  exec 2>/dev/null   # (bash's "Killed" notices for the servers killed here)
  if [ -n "$PY_PID" ]; then kill -TERM "$PY_PID" 2>/dev/null || true; wait "$PY_PID" 2>/dev/null || true; fi
  for p in ${PIDS[@]+"${PIDS[@]}"}; do kill -9 "$p" 2>/dev/null || true; done
  for p in ${PIDS[@]+"${PIDS[@]}"}; do wait "$p" 2>/dev/null || true; done
  if [ -n "$MOUNTED" ]; then umount "$MOUNTED" 2>/dev/null || umount -l "$MOUNTED" 2>/dev/null || true; fi
  [ -n "$DISK" ] && rmdir "$DISK" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

ok() { PASS=$((PASS + 1)); echo "ok $*"; }
bad() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }
check() { local what=$1; shift; if "$@"; then ok "$what"; else bad "$what"; fi; }

# The server's log: its last lines and every error line (for failure reports).
log_tail() {
  echo "--- server log ($1): errors ---"
  grep -E ' (error|critical|warning) ' "$1" | tail -15 || true
  echo "--- server log ($1): last lines ---"
  tail -15 "$1" || true
  echo "---"
}

# start_server DATA_DIR LOG: sets SERVER_PID and PORT; fails if the server
# does not say it listens (within ~15 s) or healthz does not answer.
start_server() {
  : >"$2"  # before the server: a sed on a not yet opened log would end the script (pipefail, set -e)
  "$BIN/tongban-server" --no-limits --port 0 --data-dir "$1" --log-level info 2>"$2" &
  SERVER_PID=$!
  PIDS+=("$SERVER_PID")
  PORT=""
  local _
  for _ in $(seq 1 300); do
    PORT=$(sed -n 's|.*tongban-server listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$2" | head -1 || true)
    [ -n "$PORT" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  if [ -z "$PORT" ]; then echo "the server did not start on $1:"; cat "$2"; return 1; fi
  for _ in $(seq 1 100); do
    curl -sf --max-time 2 "http://127.0.0.1:$PORT/healthz" >/dev/null && return 0
    sleep 0.05
  done
  echo "healthz never answered on port $PORT"; return 1
}

# stop_server: SIGTERM, up to 10 s for a clean exit, then SIGKILL. Returns
# the server's exit status.
stop_server() {
  local pid=$SERVER_PID _ rc=0
  kill -TERM "$pid" 2>/dev/null || true
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -0 "$pid" 2>/dev/null && { echo "the server ignored SIGTERM for 10 s"; kill -9 "$pid" 2>/dev/null || true; }
  wait "$pid" || rc=$?
  SERVER_PID=""
  return "$rc"
}

# integrity DB: SQLite's own check of the database file (server stopped).
integrity() {
  command -v sqlite3 >/dev/null || { echo "(no sqlite3: integrity not checked)"; return 0; }
  local r; r=$(sqlite3 "$1" 'PRAGMA integrity_check;' 2>&1 | head -5)
  [ "$r" = "ok" ] || { echo "integrity_check of $1: $r"; return 1; }
}

# No request may have ended in a 500 / internal error.
no_internal_errors() {
  if grep -qE 'internal error| 500 [0-9]+ms' "$1"; then grep -E 'internal error| 500 [0-9]+ms' "$1" | head -5; return 1; fi
}

# run_py ARGS...: load.py with a time limit; adds its CHECKS to the tally.
# (In the background and waited for, so that a signal to this script is
# handled at once and cleanup stops load.py too.)
run_py() {
  local rc=0 line p f
  timeout 90 python3 "$LOAD" "$@" >"$WORK/py.out" 2>&1 &
  PY_PID=$!
  # (2>/dev/null: bash's "Killed" notice when load.py kills the server;
  # a server that dies otherwise is reported with its exit status below.)
  { wait "$PY_PID" || rc=$?; } 2>/dev/null
  PY_PID=""
  sed 's/^/  /' "$WORK/py.out"
  line=$(grep '^CHECKS ' "$WORK/py.out" | tail -1 || true)
  if [ -n "$line" ]; then
    read -r _ p f <<<"$line"
    PASS=$((PASS + p)); FAILED=$((FAILED + f))
  elif [ "$rc" -ne 0 ]; then
    bad "load.py $1 stopped (status $rc) before its checks"
  fi
  return "$rc"
}

# (A build running beside this script may be relinking it: up to 60 s.)
for _ in $(seq 1 600); do [ -x "$BIN/tongban-server" ] && break; sleep 0.1; done
[ -x "$BIN/tongban-server" ] || { echo "fault_e2e: no $BIN/tongban-server (build it first)"; exit 1; }

# ------------------------------------------------------------------ part 1
echo "== part 1: kill -9 while 50 clients send"
P1="$WORK/p1"
part1() {
  start_server "$P1/data" "$WORK/p1-a.log" || { bad "the server starts on a fresh data dir"; return 1; }
  ok "the server starts on a fresh data dir (port $PORT)"
  run_py setup --port "$PORT" --state "$WORK/state.json" --users 50 || { log_tail "$WORK/p1-a.log"; return 1; }
  local killed=$SERVER_PID rc=0
  run_py blast --port "$PORT" --state "$WORK/state.json" --pid "$killed" --min-acked 300 \
    --out "$WORK/sends.json" || { log_tail "$WORK/p1-a.log"; [ -f "$WORK/sends.json" ] || return 1; }
  # load.py sent the SIGKILL; reap the server and see that it died of it.
  # (If load.py failed before it could, the kill is sent here.)
  if kill -0 "$killed" 2>/dev/null && ! grep -q '^blast: kill -9' "$WORK/py.out"; then
    bad "load.py blast did not kill the server"; kill -9 "$killed" 2>/dev/null || true
  fi
  { wait "$killed"; } 2>/dev/null || rc=$?
  SERVER_PID=""
  check "the server died of kill -9 (exit status $rc)" [ "$rc" -eq 137 ]
  check "no request before the kill answered 500" no_internal_errors "$WORK/p1-a.log"

  start_server "$P1/data" "$WORK/p1-b.log" || { bad "the server restarts on the killed server's data dir"; return 1; }
  ok "the server restarts on the killed server's data dir (port $PORT)"
  local vrc=0
  run_py verify --port "$PORT" --state "$WORK/state.json" --results "$WORK/sends.json" || vrc=$?
  check "no request after the restart answered 500" no_internal_errors "$WORK/p1-b.log"
  [ "$vrc" -eq 0 ] || log_tail "$WORK/p1-b.log"
  local src=0
  stop_server || src=$?
  check "the server stops cleanly on SIGTERM (status $src)" [ "$src" -eq 0 ]
  check "the database passes integrity_check" integrity "$P1/data/server.sqlite"
}
part1 || true

# ------------------------------------------------------------------ part 2
echo "== part 2: full disk"
part2() {
  DISK=$(mktemp -d /tmp/tongban-fault-disk.XXXXXX)
  # 4 MiB: the server starts in it with room to spare; load.py then fills it.
  if ! mount -t tmpfs -o size=4m,mode=0700 tmpfs "$DISK" 2>"$WORK/mount.err"; then
    echo "fault_e2e: SKIP full-disk part (mount not permitted: $(head -1 "$WORK/mount.err"))"
    return 0
  fi
  MOUNTED=$DISK
  start_server "$DISK" "$WORK/p2-a.log" || { bad "the server starts on a 4 MiB tmpfs"; return 1; }
  ok "the server starts on a 4 MiB tmpfs (port $PORT)"
  local rc=0
  run_py fulldisk --port "$PORT" --pid "$SERVER_PID" --data-dir "$DISK" || rc=$?
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    ok "the server process survived the full disk"
  else
    local st=0; wait "$SERVER_PID" || st=$?
    bad "the server process died during the full-disk part (exit status $st)"
    SERVER_PID=""
    rc=1
  fi
  check "no request on the full disk answered 500" no_internal_errors "$WORK/p2-a.log"
  [ "$rc" -eq 0 ] || log_tail "$WORK/p2-a.log"
  if [ -n "$SERVER_PID" ]; then
    local src=0
    stop_server || src=$?
    check "the server stops cleanly on SIGTERM after the full disk (status $src)" [ "$src" -eq 0 ]
  fi
  check "the database that ran full passes integrity_check" integrity "$DISK/server.sqlite"
  if start_server "$DISK" "$WORK/p2-b.log"; then
    ok "the server restarts on the data dir that ran full"
    stop_server || true
  else
    bad "the server restarts on the data dir that ran full"
  fi
}
part2 || true

echo "fault_e2e: took $(( $(date +%s) - T0 )) s"
echo "fault_e2e: $PASS passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASS" -gt 0 ]
