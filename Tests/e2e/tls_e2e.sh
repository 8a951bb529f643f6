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

# A CA, and a certificate it signs for 127.0.0.1 and localhost; a second CA
# that signed nothing here.
cd "$WORK"
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=tongban test CA" \
  -keyout ca.key -out ca.pem 2>/dev/null
openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=another CA" \
  -keyout other.key -out other.pem 2>/dev/null
openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >server.ext
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
  -out server.pem 2>/dev/null
cd - >/dev/null

. "$(dirname "$0")/server.sh"
start_server "$WORK/server" "$WORK/server.log" --demo

# nginx on a free port: a port picked at random is tried until nginx binds
# it (another process may take any port between a check and a bind).
mkdir -p "$WORK/nginx"
chmod 0755 "$WORK"
TLS_PORT=""
for _ in $(seq 1 20); do
  port=$((20000 + RANDOM % 40000))
  sed -e "s|@LISTEN@|127.0.0.1:$port|" -e "s|@UPSTREAMS@|server 127.0.0.1:$PORT;|" \
      -e "s|@CERT@|$WORK/server.pem|" -e "s|@KEY@|$WORK/server.key|" \
      deploy/nginx/tongban.conf >"$WORK/nginx/site.conf"
  cat >"$WORK/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $WORK/nginx/nginx.pid;
error_log $WORK/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $WORK/nginx/body;
  proxy_temp_path $WORK/nginx/proxy;
  fastcgi_temp_path $WORK/nginx/fastcgi;
  uwsgi_temp_path $WORK/nginx/uwsgi;
  scgi_temp_path $WORK/nginx/scgi;
  include $WORK/nginx/site.conf;
}
CONF
  : >"$WORK/nginx/error.log"
  nginx -p "$WORK/nginx" -c "$WORK/nginx/nginx.conf" -e "$WORK/nginx/error.log" &
  NGINX_PID=$!
  for _ in $(seq 1 50); do
    if curl -s -o /dev/null --cacert "$WORK/ca.pem" "https://127.0.0.1:$port/" 2>/dev/null; then TLS_PORT=$port; break; fi
    kill -0 "$NGINX_PID" 2>/dev/null || break
    sleep 0.1
  done
  [ -n "$TLS_PORT" ] && break
  kill "$NGINX_PID" 2>/dev/null || true
  wait "$NGINX_PID" 2>/dev/null || true
  NGINX_PID=""
done
[ -n "$TLS_PORT" ] || fail "nginx did not start: $(tail -3 "$WORK/nginx/error.log")"
# A host name, not an IP address: the WebSocket client sends the host as
# SNI, which TLS does not allow for an address.
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
echo "tls e2e OK: https and wss through nginx with --ca-file; untrusted and unreadable certificates refused clearly"
