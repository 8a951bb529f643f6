#!/usr/bin/env bash
# A throwaway PostgreSQL cluster for tests and benchmarks.
#   cluster.sh start DIR   initdb in DIR, start on a free loopback port,
#                          print the admin URL (postgres://USER@127.0.0.1:PORT/postgres)
#   cluster.sh stop DIR    stop it and remove DIR
# PostgreSQL refuses to run as root, so as root it runs as `nobody`.
# fsync stays on: the benchmarks measure durable commits (see BENCHMARKS.md).
set -euo pipefail
cmd=${1:?start|stop}; dir=${2:?directory}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
[ -x "$bindir/initdb" ] || { echo "cluster.sh: PostgreSQL is not installed (apt-get install postgresql)" >&2; exit 1; }

as_owner() {
    if [ "$(id -u)" -eq 0 ]; then runuser -u nobody -- "$@"; else "$@"; fi
}
owner=$( [ "$(id -u)" -eq 0 ] && echo nobody || id -un )

case "$cmd" in
start)
    mkdir -p "$dir"
    [ "$(id -u)" -eq 0 ] && chown nobody:nogroup "$dir"
    chmod 700 "$dir"
    as_owner "$bindir/initdb" -D "$dir/data" -U "$owner" -A trust -E UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 \
        || { cat "$dir/initdb.log" >&2; exit 1; }
    for attempt in 1 2 3 4 5 6 7 8; do
        port=$(( 20000 + RANDOM % 30000 ))
        if as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 30 \
            -o "-c listen_addresses=127.0.0.1 -c port=$port -c unix_socket_directories=$dir -c max_connections=400 -c shared_buffers=128MB" \
            start >/dev/null 2>&1; then
            echo "postgres://$owner@127.0.0.1:$port/postgres"
            exit 0
        fi
        # Port taken (or a slow start): try another.
        as_owner "$bindir/pg_ctl" -D "$dir/data" -m immediate stop >/dev/null 2>&1 || true
    done
    echo "cluster.sh: PostgreSQL did not start; see $dir/server.log" >&2
    cat "$dir/server.log" >&2 || true
    exit 1
    ;;
stop)
    [ -d "$dir/data" ] && as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
    rm -rf "$dir"
    ;;
*) echo "usage: cluster.sh start|stop DIR" >&2; exit 2 ;;
esac
