#!/usr/bin/env bash
# TLS end to end: tongban-server behind nginx (deploy/nginx/tongban.conf's
# shape: TLS terminated by nginx, HTTP and WebSocket proxied), a throwaway
# CA made with openssl. The client logs in over https:// with --ca-file,
# keeps trusting that CA in later runs, gets push over wss:// in the
# full-screen client, and refuses an untrusted certificate with a clear error.
set -euo pipefail
BIN=${BIN:-.build/debug}
WORK=$(mktemp -d /tmp/tongban-tls-e2e.XXXXXX)
SESSION=tongban-tls-e2e-$$
SERVER_PID=""
NGINX_PID=""
cleanup() {
  tmux kill-session -t "$SESSION" 2>/dev/null || true
  [ -n "$NGINX_PID" ] && kill "$NGINX_PID" 2>/dev/null || true
  [ -n "$SERVER_PID" ] && kill "$SERVER_PID" 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
fail() {
  echo "tls e2e FAIL: $*"
  tail -5 "$WORK/nginx/error.log" 2>/dev/null || true
  tmux capture-pane -p -t "$SESSION" 2>/dev/null || true
  exit 1
}
. "$(dirname "$0")/screen.sh"

. "$(dirname "$0")/tls.sh"
make_test_ca "$WORK"

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log" --demo

start_nginx "$WORK" "server 127.0.0.1:$PORT;"
URL="https://localhost:$TLS_PORT"
export TONGBAN_LANG=en

# No CA file: the system's store does not know the test CA.
if out=$("$BIN/tongban" login --data-dir "$WORK/me" --server "$URL" --account me --password-stdin <<<tongban-demo 2>&1); then
  fail "a login to an untrusted certificate succeeded: $out"
fi
grep -qF "certificate is not trusted" <<<"$out" || fail "no clear error for an untrusted certificate: $out"
grep -qF -- "--ca-file" <<<"$out" || fail "the error does not say how to trust a CA: $out"

# Another CA: still not trusted. A CA file that is not one: a clear error.
if out=$("$BIN/tongban" login --data-dir "$WORK/me" --server "$URL" --account me --password-stdin \
    --ca-file "$WORK/other.pem" <<<tongban-demo 2>&1); then
  fail "a certificate from another CA was trusted"
fi
grep -qF "certificate is not trusted" <<<"$out" || fail "no clear error for the wrong CA: $out"
if out=$("$BIN/tongban" ls --data-dir "$WORK/me" --ca-file "$WORK/server.csr" 2>&1); then fail "a CSR was taken as a CA file"; fi
grep -qF "not a readable PEM certificate" <<<"$out" || fail "no clear error for a bad CA file: $out"

# With the CA: both log in; later commands trust it without the option.
for u in me alice; do
  "$BIN/tongban" login --data-dir "$WORK/$u" --server "$URL" --account "$u" --password-stdin \
    --ca-file "$WORK/ca.pem" <<<tongban-demo >/dev/null || fail "$u could not log in over https"
done
"$BIN/tongban" send --data-dir "$WORK/alice" --to me "over TLS 🔒 加密" >/dev/null || fail "send over https failed"
"$BIN/tongban" history --data-dir "$WORK/me" --with alice | grep -qF "over TLS 🔒 加密" || fail "me did not get the message"

# Push over wss:// in the full-screen client: online, and a new message shows without polling.
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/me 2>$WORK/tui.err"
expect_screen "online"
"$BIN/tongban" send --data-dir "$WORK/alice" --to me "pushed through nginx" >/dev/null
expect_screen "pushed through nginx"
tmux send-keys -t "$SESSION" q

# The same by IP address (the certificate names 127.0.0.1): TLS allows no
# address as SNI, and push must still connect rather than fall back to
# polling; "online" shows only while the push socket is open.
for _ in $(seq 1 50); do tmux has-session -t "$SESSION" 2>/dev/null || break; sleep 0.1; done
IP_URL="https://127.0.0.1:$TLS_PORT"
"$BIN/tongban" login --data-dir "$WORK/me-ip" --server "$IP_URL" --account me --password-stdin \
  --ca-file "$WORK/ca.pem" <<<tongban-demo >/dev/null || fail "login over https to 127.0.0.1 failed"
tmux new-session -d -s "$SESSION" -x 120 -y 40 \
  "TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_NO_NOTIFY=1 $BIN/tongban start --data-dir $WORK/me-ip 2>$WORK/tui-ip.err"
expect_screen "online"
tmux capture-pane -p -t "$SESSION" | grep -qiF "host name" && fail "push to an IP address was refused"
"$BIN/tongban" send --data-dir "$WORK/alice" --to me "pushed to an IP address" >/dev/null
expect_screen "pushed to an IP address"
tmux send-keys -t "$SESSION" q
echo "tls e2e OK: https and wss through nginx with --ca-file, by host name and by IP address; untrusted and unreadable certificates refused clearly"
