# Sourced by the TLS end-to-end scripts: a throwaway CA, and nginx running
# deploy/nginx/tongban.conf in front of tongban-server nodes.

# make_test_ca DIR: ca.pem/ca.key, a server certificate server.pem/server.key
# it signs for localhost and 127.0.0.1, its CSR server.csr, and other.pem,
# a CA that signed nothing here.
make_test_ca() {
  ( cd "$1"
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=tongban test CA" \
      -keyout ca.key -out ca.pem 2>/dev/null
    openssl req -x509 -newkey rsa:2048 -nodes -days 2 -subj "/CN=another CA" \
      -keyout other.key -out other.pem 2>/dev/null
    openssl req -newkey rsa:2048 -nodes -subj "/CN=localhost" -keyout server.key -out server.csr 2>/dev/null
    printf 'subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n' >server.ext
    openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -days 2 -extfile server.ext \
      -out server.pem 2>/dev/null )
}

# write_nginx_site WORK LISTEN UPSTREAMS: the deploy file with its placeholders filled.
write_nginx_site() {
  sed -e "s|@LISTEN@|$2|" -e "s|@UPSTREAMS@|$3|" -e "s|@CERT@|$1/server.pem|" -e "s|@KEY@|$1/server.key|" \
      deploy/nginx/tongban.conf >"$1/nginx/site.conf"
}

# start_nginx WORK UPSTREAMS: nginx on a free port (a port picked at random
# is tried until nginx binds it: another process may take any port between
# a check and a bind). Sets NGINX_PID and TLS_PORT.
start_nginx() {
  local work=$1 upstreams=$2 port
  mkdir -p "$work/nginx"
  chmod 0755 "$work"
  TLS_PORT=""
  for _ in $(seq 1 20); do
    port=$((20000 + RANDOM % 40000))
    write_nginx_site "$work" "127.0.0.1:$port" "$upstreams"
    cat >"$work/nginx/nginx.conf" <<CONF
daemon off;
worker_processes 1;
pid $work/nginx/nginx.pid;
error_log $work/nginx/error.log warn;
events { worker_connections 256; }
http {
  access_log off;
  client_body_temp_path $work/nginx/body;
  proxy_temp_path $work/nginx/proxy;
  fastcgi_temp_path $work/nginx/fastcgi;
  uwsgi_temp_path $work/nginx/uwsgi;
  scgi_temp_path $work/nginx/scgi;
  include $work/nginx/site.conf;
}
CONF
    : >"$work/nginx/error.log"
    nginx -p "$work/nginx" -c "$work/nginx/nginx.conf" -e "$work/nginx/error.log" &
    NGINX_PID=$!
    for _ in $(seq 1 50); do
      if curl -s -o /dev/null --cacert "$work/ca.pem" "https://127.0.0.1:$port/" 2>/dev/null; then TLS_PORT=$port; break; fi
      kill -0 "$NGINX_PID" 2>/dev/null || break
      sleep 0.1
    done
    [ -n "$TLS_PORT" ] && return 0
    kill "$NGINX_PID" 2>/dev/null || true
    wait "$NGINX_PID" 2>/dev/null || true
    NGINX_PID=""
  done
  fail "nginx did not start: $(tail -3 "$work/nginx/error.log")"
}

# reload_nginx WORK UPSTREAMS: new upstreams for new connections; open
# WebSockets stay with the old worker and the node they were on.
reload_nginx() {
  write_nginx_site "$1" "127.0.0.1:$TLS_PORT" "$2"
  nginx -p "$1/nginx" -c "$1/nginx/nginx.conf" -e "$1/nginx/error.log" -s reload
}
