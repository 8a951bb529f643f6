# Sourced by the end-to-end scripts: starts tongban-server on a free port,
# and runs the CLI as one of the script's users.
# start_server DATA_DIR LOG [ARGS...]: sets SERVER_PID and PORT; port 0 lets
# the server pick a free one, which it names in its first log line.
start_server() {
  local dir=$1 log=$2
  shift 2
  # The log exists before the server starts: the background job opens it
  # when it gets to it, and a sed on a missing file (exit 2, with pipefail
  # and set -e) ended the script silently.
  : >"$log"
  # A rig signs many users up from one address: the limits are off unless
  # the caller asks for them (abuse_e2e.sh does).
  "$BIN/tongban-server" ${SERVER_LIMITS:---no-limits} "$@" --port 0 --data-dir "$dir" --log-level info 2>"$log" &
  SERVER_PID=$!
  PORT=""
  for _ in $(seq 1 200); do
    PORT=$(sed -n 's|.*tongban-server listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$log" | head -1 || true)
    [ -n "$PORT" ] && break
    sleep 0.1
  done
  [ -n "$PORT" ] || fail "the server did not start: $(cat "$log")"
}

# stop_server: SIGTERM, and waits for the server to end. Its graceful
# shutdown is bounded (5 s, then open connections are closed), so one
# still running after 20 s is a bug: it is killed and the script fails.
stop_server() {
  kill "$SERVER_PID" 2>/dev/null || true
  for _ in $(seq 1 200); do
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.1
  done
  if kill -0 "$SERVER_PID" 2>/dev/null; then
    kill -9 "$SERVER_PID" 2>/dev/null || true
    wait "$SERVER_PID" 2>/dev/null || true
    SERVER_PID=""
    fail "the server was still running 20 s after SIGTERM"
  fi
  wait "$SERVER_PID" 2>/dev/null || true
  SERVER_PID=""
}

# tb WHO ARGS...: the CLI as WHO, with WHO's own data dir under $WORK.
tb() { local who=$1; shift; "$BIN/tongban" "$@" --data-dir "$WORK/$who"; }

# register_users PASSWORD USER...: signs each USER up on $URL.
register_users() {
  local password=$1 u
  shift
  for u in "$@"; do
    echo "$password" | tb "$u" register --server "$URL" --account "$u" --password-stdin >/dev/null || fail "register $u"
  done
}
