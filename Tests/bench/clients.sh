#!/usr/bin/env bash
# Tongban Terminal next to the terminal chat clients people use today:
# weechat and irssi (IRC, through ngircd), profanity (XMPP, through prosody)
# and ours (tongban, through tongban-server), each on the same work, each in
# its own tmux pane of 120x40, every server on loopback.
#
# Usage (from the repo root; needs root for apt-get when a tool is missing):
#   BIN=/work/main/.build/release bash Tests/bench/clients.sh
# Knobs (environment):
#   BIN           where tongban, tongban-server, tongban-bench live (default /work/main/.build/release)
#   FLOOD_COUNT   messages in the flood (default 10000; the last one is "END-<FLOOD_COUNT-1>")
#   IDLE_SECONDS  length of the idle window (default 60; e.g. 5 for a quick run)
#   ROOMS         channels / rooms / conversations for idle and startup (default 50)
#   CLIENTS       which clients to run (default "ours weechat irssi profanity"); the others print n/a
#   FLOOD_TIMEOUT seconds to wait for the last flood message on screen (default 600)
#   SMAPS_DIR     when set, each client's /proc/PID/smaps at the end of the idle window and of
#                 the flood (CLIENT-flood.smaps) is copied there, with its resident pages
#                 (Tools/resident.py snapshot; report BINARY FILE reads them)
#   GROUP_MEMBERS members of the group ours is flooded in (default 200; 0 skips that phase)
#   OURS_ENV      NAME=VALUE words added to ours' environment, for A/B runs of one binary
#                 (e.g. TONGBAN_KEEP_PAGES=1, MALLOC_ARENA_MAX=8)
#   TRACE_DIR     when set, ours' flood trace (client bench log with its socket and
#                 pulls, server log, sender output) is copied there per flood phase
# Prints a markdown table on stdout (and, for ours, a second one: the flood
# in a group next to the one-to-one flood); progress and diagnostics go to
# stderr.
#
# What is measured, per client (each phase on a freshly started server and a
# fresh client home, so nothing carries over between clients or phases):
#   flood   a peer sends FLOOD_COUNT short texts (even: "你好世界 N", odd:
#           "hello world N", last: "END-N") as fast as the server takes them;
#           seconds from the first send until "END-N" is in capture-pane
#           (polled every 50 ms), the client's CPU (utime+stime of its pid) over
#           that span, and its peak RSS (VmHWM).
#   idle    ROOMS channels joined with a few lines each, then RSS (VmRSS) at the
#           end of IDLE_SECONDS and CPU used during them.
#   startup exec → first full frame (capture-pane polled every 10 ms for the
#           client's status bar; ours also self-reports first_frame_ms), and
#           exec → connected with all ROOMS joined (seen by the server side).
# Reading the startup rows: "first frame" is the self-reported first_frame_ms
# for ours (counted from the process's own launch timestamp, so dynamic loading
# before main is not in it) and the tmux-polled time for the peers; the
# "polled by tmux" row is the same yardstick for all four. "connected" is the
# moment the server relayed the client's last autojoin (IRC, XMPP MUC) or, for
# ours, the status line saying online. irssi's ~5 s there is irssi itself: its
# own outgoing flood control (max_cmds_at_once 5, cmd_queue_speed 2200 ms) holds
# back MODE +i and the JOIN after the six registration commands.
# The flood sender for ours (tongban-bench flood) keeps 32 sends in flight on
# raw keep-alive sockets, each waiting for its acknowledgement (a durable
# write), and shares the two cores with client and server; the IRC and
# XMPP senders are a `cat` of pre-built lines into a socket, done in
# milliseconds. The "sender done" row shows which figures are sender-bound.
# Bots and flooders are bash /dev/tcp clients (Debian's bash has network
# redirections; no nc or python needed).
#
# The IRC peers use a channel (#bench) rather than a query: a channel window
# is current as soon as the client is told to go there, a query window only
# opens after the first message. XMPP uses a 1:1 chat (profanity opens it on
# the first message, then /win 2), ours the pinned chat with Alice.
set -euo pipefail

BIN=${BIN:-/work/main/.build/release}
FLOOD_COUNT=${FLOOD_COUNT:-10000}
IDLE_SECONDS=${IDLE_SECONDS:-60}
ROOMS=${ROOMS:-50}
CLIENTS=${CLIENTS:-"ours weechat irssi profanity"}
FLOOD_TIMEOUT=${FLOOD_TIMEOUT:-600}
GROUP_MEMBERS=${GROUP_MEMBERS:-200}
HIST_LINES=5          # lines per channel before the idle window ("some history")
COLS=120 ROWS=40
LAST="END-$((FLOOD_COUNT - 1))"

log() { printf '[%s] %s\n' "$(date +%T)" "$*" >&2; }
die() { log "FATAL: $*"; exit 1; }

# ---------------------------------------------------------------- install
# Only what the selected clients need, and only when it is missing; apt-get
# update first because a fresh image has empty package lists.
want() { [[ " $CLIENTS " == *" $1 "* ]]; }
missing=()
command -v tmux >/dev/null || missing+=(tmux)
command -v ps >/dev/null || missing+=(procps)
command -v base64 >/dev/null || missing+=(coreutils)
if want weechat || want irssi; then
  command -v ngircd >/dev/null || [ -x /usr/sbin/ngircd ] || missing+=(ngircd)
fi
if want weechat && ! command -v weechat >/dev/null; then missing+=(weechat-curses); fi
if want irssi && ! command -v irssi >/dev/null; then missing+=(irssi); fi
if want profanity; then
  command -v profanity >/dev/null || missing+=(profanity)
  # Debian's postinst may start the system prosody (if its policy allows);
  # it is never used: ours runs from its own config on its own port.
  command -v prosody >/dev/null || missing+=(prosody)
fi
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update >&2
  apt-get install -y "${missing[@]}" >&2
fi
NGIRCD=$(command -v ngircd || echo /usr/sbin/ngircd)
CLK_TCK=$(getconf CLK_TCK)

# ---------------------------------------------------------------- workspace
WORK=$(mktemp -d /tmp/tongban-clients.XXXXXX)
# A private tmux server (its own socket, no user config) so the bench neither
# sees nor disturbs anybody else's sessions, and kill-server ends all of ours.
TSOCK=tongban-clients-$$
RESULTS=$WORK/results
: >"$RESULTS"
: >"$WORK/pids"
tm() { tmux -L "$TSOCK" -f /dev/null "$@"; }

# Ends every process a phase registered (servers, senders, watchers), then the
# client panes. By pid only: nothing else on the machine is touched.
reap() {
  local pid s
  if [ -s "$WORK/pids" ]; then
    while read -r pid; do kill "$pid" 2>/dev/null || true; done <"$WORK/pids"
    sleep 0.3
    while read -r pid; do kill -9 "$pid" 2>/dev/null || true; done <"$WORK/pids"
    : >"$WORK/pids"
  fi
  for s in $(tm list-sessions -F '#{session_name}' 2>/dev/null); do
    [ "$s" = hold ] || tm kill-session -t "$s" 2>/dev/null || true
  done
}
cleanup() {
  if [ -n "${PHASE_PID:-}" ]; then kill "$PHASE_PID" 2>/dev/null || true; fi
  reap 2>/dev/null || true
  tm kill-server 2>/dev/null || true
  rm -rf "$WORK"
}
trap cleanup EXIT
trap 'exit 130' INT TERM
track() { echo "$1" >>"$WORK/pids"; }

# A session that holds the tmux server up, so each client's launch is a new
# pane in a running server, not a server start.
tm new-session -d -s hold -x "$COLS" -y "$ROWS" sleep 2147483647
tm set -g remain-on-exit on >/dev/null   # a crashed client leaves its last screen to read

# ---------------------------------------------------------------- helpers
# Microseconds since the epoch without a fork (bash 5 EPOCHREALTIME; digits
# only, so the locale's decimal separator does not matter).
now_us() { printf -v "$1" '%s' "${EPOCHREALTIME//[!0-9]/}"; }

# utime+stime of a pid in clock ticks (fields 14, 15 of /proc/PID/stat;
# counted after the ")" that ends the command name, which may hold spaces).
cpu_ticks() {
  local stat rest f
  stat=$(<"/proc/$1/stat")
  rest=${stat##*) }
  read -r -a f <<<"$rest"
  echo $((f[11] + f[12]))
}
# kB field of /proc/PID/status (VmHWM, VmRSS) in MiB.
mem_mib() { awk -v k="$2:" '$1 == k { printf "%.1f", $2 / 1024 }' "/proc/$1/status"; }
ticks_s() { awk -v t="$1" -v h="$CLK_TCK" 'BEGIN { printf "%.2f", t / h }'; }
us_s() { awk -v u="$1" 'BEGIN { printf "%.2f", u / 1e6 }'; }
us_ms() { awk -v u="$1" 'BEGIN { printf "%.0f", u / 1e3 }'; }

put() { printf '%s|%s|%s\n' "$1" "$2" "$3" >>"$RESULTS"; log "  $2 $1 = $3"; }
get() { awk -F'|' -v k="$1" -v c="$2" '$1 == k && $2 == c { v = $3 } END { print v }' "$RESULTS"; }

# Is a TCP port listening on this machine (any address)? From /proc, so no
# ss/netstat is needed.
port_listening() {
  local hex
  hex=$(printf ':%04X' "$1")
  cat /proc/net/tcp /proc/net/tcp6 2>/dev/null |
    awk -v h="$hex" 'NR > 1 && substr($2, length($2) - 4) == h && $4 == "0A" { f = 1 } END { exit !f }'
}
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    if ! port_listening "$p"; then echo "$p"; return 0; fi
  done
  die "no free port"
}
wait_listening() { # PORT PID SECONDS
  local i
  for ((i = 0; i < $3 * 20; i++)); do
    port_listening "$1" && return 0
    kill -0 "$2" 2>/dev/null || return 1
    sleep 0.05
  done
  return 1
}

# warm NAME=VALUE... CMD...: reads CMD's executable and the shared libraries
# it loads into the page cache before its start is timed. This machine pages
# out file pages that no process has mapped for a minute (a DAMON "pageout"
# scheme, /sys/kernel/mm/damon/admin), so a client's first start after the
# sections before it read its code from disk (ours: 8 of 188 MiB of the
# executable still cached a few minutes after a run), and the first client
# of a full run paid the most. Every client is warmed alike.
warm() {
  local w exe
  for w in "$@"; do [[ $w =~ ^[A-Za-z_][A-Za-z0-9_]*= ]] || break; done
  exe=$(command -v "$w") || return 0
  # shellcheck disable=SC2046  # one path a word
  cat "$exe" $(ldd "$exe" 2>/dev/null | awk '$2 == "=>" && $3 ~ /^\// { print $3 }') >/dev/null 2>&1 || true
}

# launch SESSION ERRFILE [NAME=VALUE...] CMD...: runs CMD in a new 120x40
# pane. The pane's bash exports the NAME=VALUE words, writes the exec time to
# $WORK/t0.SESSION and then execs CMD, so the pane pid is the client's pid
# and t0 is taken in the client's own process. (The variables are not set
# through env(1): its exec, about 1 ms, was counted in one client's start.)
launch() {
  local s=$1 err=$2
  shift 2
  rm -f "$WORK/t0.$s"
  # shellcheck disable=SC2016  # expanded by the pane's bash, not here
  tm new-session -d -s "$s" -x "$COLS" -y "$ROWS" \
    bash -c 'err=$1; shift; while [[ $1 =~ ^[A-Za-z_][A-Za-z0-9_]*= ]]; do export "$1"; shift; done
      printf %s "${EPOCHREALTIME//[!0-9]/}" >"$0"; exec "$@" 2>"$err"' \
    "$WORK/t0.$s" "$err" "$@"
  PANE_PID=$(tm display -p -t "$s" '#{pane_pid}')
  local i
  for ((i = 0; i < 100; i++)); do [ -s "$WORK/t0.$s" ] && break; sleep 0.01; done
  T0=$(<"$WORK/t0.$s")
}

# wait_screen SESSION MODE NEEDLE TIMEOUT_S INTERVAL_S [ROW]: polls
# capture-pane until NEEDLE is on screen (MODE F: fixed text, E: bash regex),
# only in row ROW (0-based) when given. Sets FOUND_US. The capture goes to a
# variable, not into `grep -q`, which under pipefail would fail on SIGPIPE.
wait_screen() {
  local s=$1 mode=$2 needle=$3 timeout=$4 interval=$5 row=${6:-} now deadline scr n=0
  local range=()
  [ -n "$row" ] && range=(-S "$row" -E "$row")
  now_us now
  deadline=$((now + timeout * 1000000))
  while :; do
    scr=$(tm capture-pane -p "${range[@]}" -t "$s" 2>/dev/null || true)
    if [ "$mode" = F ] && [[ $scr == *"$needle"* ]]; then now_us FOUND_US; return 0; fi
    if [ "$mode" = E ] && [[ $scr =~ $needle ]]; then now_us FOUND_US; return 0; fi
    now_us now
    if ((now > deadline)); then log "timeout: '$needle' not on screen of $s"; return 1; fi
    n=$((n + 1))
    if ((n % 20 == 0)) && [ "$(tm display -p -t "$s" '#{pane_dead}' 2>/dev/null)" = 1 ]; then
      log "the client in $s exited"; return 1
    fi
    sleep "$interval"
  done
}
keys() { tm send-keys -t "$1" -l "$2"; tm send-keys -t "$1" Enter; }

# Both idle figures: CPU over IDLE_SECONDS and RSS at its end, after 2 s for
# whatever the client does right after the history arrived.
idle_measure() { # CLIENT PID
  local c0 c1
  sleep 2
  c0=$(cpu_ticks "$2")
  sleep "$IDLE_SECONDS"
  c1=$(cpu_ticks "$2")
  put idle_cpu "$1" "$(ticks_s $((c1 - c0)))"
  put idle_rss "$1" "$(mem_mib "$2" VmRSS)"
  keep_smaps "$2" "$1"
}

# keep_smaps PID NAME: with SMAPS_DIR, the process's memory map and resident
# pages as SMAPS_DIR/NAME.smaps and NAME.pages.json.
keep_smaps() {
  [ -n "${SMAPS_DIR:-}" ] || return 0
  cp "/proc/$1/smaps" "$SMAPS_DIR/$2.smaps" 2>/dev/null || true
  python3 "$(dirname "$0")/../../Tools/resident.py" snapshot "$1" "$SMAPS_DIR/$2.pages.json" 2>/dev/null || true
}

# flood_measure CLIENT SESSION CLIENT_PID SERVER_PID SENDER...: the flood
# figures. SENDER either writes the whole flood (IRC, XMPP: returns when the
# kernel took the last byte) or starts a background sender (ours).
flood_measure() {
  local client=$1 s=$2 cpid=$3 spid=$4 c0 c1 s0 s1 t0 tsent
  shift 4
  # The peak so far is the start's: the flood's peak row is the higher of
  # the two (VmHWM is the whole life), this row says which one it was.
  put flood_rss_start "$client" "$(mem_mib "$cpid" VmHWM)"
  c0=$(cpu_ticks "$cpid")
  s0=$(cpu_ticks "$spid")
  now_us t0
  "$@"
  now_us tsent
  wait_screen "$s" F "$LAST" "$FLOOD_TIMEOUT" 0.05
  c1=$(cpu_ticks "$cpid")
  s1=$(cpu_ticks "$spid")
  put flood_s "$client" "$(us_s $((FOUND_US - t0)))"
  put flood_cpu "$client" "$(ticks_s $((c1 - c0)))"
  put flood_rss "$client" "$(mem_mib "$cpid" VmHWM)"
  put flood_srv_cpu "$client" "$(ticks_s $((s1 - s0)))"
  keep_smaps "$cpid" "$client-flood"
  FLOOD_T0=$t0
  FLOOD_TSENT=$tsent
}

# The flood texts, the same for every protocol: even "你好世界 N", odd "hello
# world N", the last one "END-N" alone (as tongban-bench flood sends them).
# Written once, before any phase, so the senders only copy bytes.
make_flood_files() {
  local i t
  for ((i = 0; i < FLOOD_COUNT; i++)); do
    if ((i == FLOOD_COUNT - 1)); then t="END-$i"
    elif ((i % 2 == 0)); then t="你好世界 $i"
    else t="hello world $i"; fi
    printf 'PRIVMSG #bench :%s\r\n' "$t" >&3
    printf "<message to='me@localhost' type='chat' id='f%d'><body>%s</body></message>" "$i" "$t" >&4
  done 3>"$WORK/flood.irc" 4>"$WORK/flood.xmpp"
}

# ---------------------------------------------------------------- IRC
# ngircd with throttling off, as the server bench does: MaxPenaltyTime = 0
# zeroes the per-command penalties, and the bots OPER and set +F (exempt from
# flood control). No DNS/ident/PAM lookups, no connection or join caps, an
# empty IncludeDir so /etc/ngircd/ngircd.conf.d snippets stay out.
start_ngircd() { # TAG
  local dir=$WORK/ngircd.$1
  mkdir -p "$dir/conf.d"
  chmod 0777 "$dir"   # ngircd drops root for nobody; it writes its pid file here
  IRC_PORT=$(free_port)
  OPER_PW=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
  cat >"$dir/ngircd.conf" <<EOF
[Global]
Name = bench.irc
Info = tongban client bench
AdminInfo1 = tongban bench
AdminInfo2 = loopback only
AdminEMail = bench@localhost
Listen = 127.0.0.1
Ports = $IRC_PORT
MotdPhrase = bench
PidFile = $dir/ngircd.pid

[Limits]
MaxConnections = 0
MaxConnectionsIP = 0
MaxJoins = 0
MaxPenaltyTime = 0
PingTimeout = 600
PongTimeout = 600

[Options]
DNS = no
Ident = no
PAM = no
IncludeDir = $dir/conf.d

[Operator]
Name = bench
Password = $OPER_PW
EOF
  "$NGIRCD" --nodaemon --config "$dir/ngircd.conf" >"$dir/ngircd.log" 2>&1 &
  SERVER_PID=$!
  track "$SERVER_PID"
  wait_listening "$IRC_PORT" "$SERVER_PID" 10 || die "ngircd did not start: $(tail -3 "$dir/ngircd.log")"
}

# irc_expect FD NEEDLE [TIMEOUT]: reads lines until one contains NEEDLE.
irc_expect() {
  local fd=$1 needle=$2 t=${3:-15} line
  while IFS= read -r -t "$t" -u "$fd" line; do
    line=${line%$'\r'}
    if [[ $line == PING* ]]; then printf 'PONG %s\r\n' "${line#PING }" >&"$fd"; fi
    if [[ $line == *"$needle"* ]]; then return 0; fi
    if [[ $line == ERROR* ]]; then log "irc: $line"; return 1; fi
  done
  log "irc: no '$needle' within ${t}s"
  return 1
}
# irc_bot VAR NICK: a raw-TCP IRC client (bash /dev/tcp), registered, OPER,
# +F; its fd in VAR.
irc_bot() {
  local -n _fd=$1
  exec {_fd}<>"/dev/tcp/127.0.0.1/$IRC_PORT"
  printf 'NICK %s\r\nUSER %s 0 * :bench\r\n' "$2" "$2" >&"$_fd"
  irc_expect "$_fd" " 001 "
  printf 'OPER bench %s\r\nMODE %s +F\r\n' "$OPER_PW" "$2" >&"$_fd"
  irc_expect "$_fd" " MODE $2 :+F"
}
# Runs in the background: writes the time the server relayed NICK's COUNT-th
# JOIN (the client is connected and all its autojoins went through).
irc_watch_joins() { # FD NICK COUNT OUTFILE
  local n=0 line now
  while IFS= read -r -t 60 -u "$1" line; do
    if [[ $line == ":$2!"*" JOIN "* ]]; then
      n=$((n + 1))
      if ((n >= $3)); then now_us now; echo "$now" >"$4"; return 0; fi
    fi
  done
  return 1
}

# Client configs: stock settings plus one server and its autojoin list.
weechat_setup() { # DIR NICK CHANNELS(comma list)
  mkdir -p "$1"
  cat >"$1/irc.conf" <<EOF
[server]
bench.addresses = "127.0.0.1/$IRC_PORT"
bench.ssl = off
bench.autoconnect = on
bench.nicks = "$2"
bench.username = "$2"
bench.realname = "bench"
bench.autojoin = "$3"
EOF
  CLIENT_CMD=(weechat -d "$1")
  FIRST_FRAME='\[[0-9]{2}:[0-9]{2}\] \[[0-9]+\]'   # the status bar: "[12:00] [1] ..."
  GOTO=(/buffer)
}
irssi_setup() { # DIR NICK CHANNELS
  local chans="" c
  mkdir -p "$1"
  IFS=, read -r -a list <<<"$3"
  for c in "${list[@]}"; do chans+="  { name = \"$c\"; chatnet = \"bench\"; autojoin = \"yes\"; },"$'\n'; done
  cat >"$1/config" <<EOF
servers = (
  { address = "127.0.0.1"; chatnet = "bench"; port = "$IRC_PORT"; use_tls = "no"; tls_verify = "no"; autoconnect = "yes"; }
);
chatnets = { bench = { type = "IRC"; }; };
channels = (
${chans%,$'\n'}
);
settings = { core = { real_name = "bench"; user_name = "$2"; nick = "$2"; }; };
EOF
  CLIENT_CMD=(irssi --home="$1")
  FIRST_FRAME='\[\(status\)\]'   # the prompt of the status window
  GOTO=(/window goto)
}

irc_idle_phase() { # CLIENT NICK
  local client=$1 nick=$2 s=$1-idle dir=$WORK/$1-idle i chans=() bot
  mkdir -p "$dir"
  start_ngircd "$s"
  for ((i = 1; i <= ROOMS; i++)); do chans+=("$(printf '#c%02d' "$i")"); done
  local list
  list=$(IFS=,; echo "${chans[*]}")
  # The history bot sits in every channel first, so it sees the client's joins.
  irc_bot bot histbot
  printf 'JOIN %s\r\n' "$list" >&"$bot"
  for ((i = 0; i < ROOMS; i++)); do irc_expect "$bot" " 366 "; done
  "${client}_setup" "$dir/home" "$nick" "$list"
  irc_watch_joins "$bot" "$nick" "$ROOMS" "$dir/joined" &
  track $!
  warm "${CLIENT_CMD[@]}"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  wait_screen "$s" E "$FIRST_FRAME" 20 0.01
  put startup_frame "$client" "$(us_ms $((FOUND_US - T0)))"
  put startup_polled "$client" "$(us_ms $((FOUND_US - T0)))"
  for ((i = 0; i < 600; i++)); do [ -s "$dir/joined" ] && break; sleep 0.05; done
  [ -s "$dir/joined" ] || die "$client: the server never saw $ROOMS joins"
  put startup_ready "$client" "$(us_ms $(($(<"$dir/joined") - T0)))"
  # History: HIST_LINES per channel, then a marker in the last channel, which
  # the client shows, so the marker on screen means all of it was handled.
  keys "$s" "${GOTO[*]} ${chans[-1]}"
  sleep 0.5
  for c in "${chans[@]}"; do
    for ((i = 1; i <= HIST_LINES; i++)); do
      if ((i % 2)); then printf 'PRIVMSG %s :历史消息 %d 今天天气不错\r\n' "$c" "$i"
      else printf 'PRIVMSG %s :history line %d in %s\r\n' "$c" "$i" "$c"; fi
    done
  done >&"$bot"
  printf 'PRIVMSG %s :HIST-DONE\r\n' "${chans[-1]}" >&"$bot"
  wait_screen "$s" F HIST-DONE 30 0.05
  idle_measure "$client" "$pid"
}

irc_flood_phase() { # CLIENT NICK
  local client=$1 nick=$2 s=$1-flood dir=$WORK/$1-flood fl
  mkdir -p "$dir"
  start_ngircd "$s"
  irc_bot fl flooder
  printf 'JOIN #bench\r\n' >&"$fl"
  irc_expect "$fl" " 366 "
  "${client}_setup" "$dir/home" "$nick" "#bench"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  irc_expect "$fl" ":$nick!" 30   # the client joined #bench
  keys "$s" "${GOTO[*]} #bench"
  printf 'PRIVMSG #bench :READY-CHECK\r\n' >&"$fl"
  wait_screen "$s" F READY-CHECK 20 0.05
  sleep 1
  flood_measure "$client" "$s" "$pid" "$SERVER_PID" irc_send_flood "$fl"
  put flood_sent "$client" "$(us_s $((FLOOD_TSENT - FLOOD_T0)))"
}
irc_send_flood() { cat "$WORK/flood.irc" >&"$1"; }

weechat_idle_phase() { irc_idle_phase weechat wuser; }
weechat_flood_phase() { irc_flood_phase weechat wuser; }
irssi_idle_phase() { irc_idle_phase irssi iuser; }
irssi_flood_phase() { irc_flood_phase irssi iuser; }

# ---------------------------------------------------------------- XMPP
# prosody from its own config: loopback c2s on a free port, plaintext with
# PLAIN auth (no certificates to make), no s2s/http, MUC on conference.localhost
# without room locking (the bot creates the rooms). Modules: Debian's default
# list minus tls, dialback (s2s), limits (its c2s byte-rate cap would throttle
# the flood — the analogue of ngircd's MaxPenaltyTime/+F), invites and
# admin_* (no admin socket needed).
start_prosody() { # TAG
  local dir=$WORK/prosody.$1 u
  mkdir -p "$dir/data" "$dir/certs"
  XMPP_PORT=$(free_port)
  XMPP_PW=$(od -An -N8 -tx8 /dev/urandom | tr -d ' ')
  cat >"$dir/prosody.cfg.lua" <<EOF
pidfile = "$dir/prosody.pid"
data_path = "$dir/data"
certificates = "$dir/certs"
run_as_root = true
interfaces = { "127.0.0.1" }
local_interfaces = { "127.0.0.1" }
c2s_ports = { $XMPP_PORT }
c2s_direct_tls_ports = { }
s2s_ports = { }
http_ports = { }
https_ports = { }
modules_enabled = {
  "disco"; "roster"; "saslauth"; "blocklist"; "bookmarks"; "carbons"; "pep";
  "private"; "smacks"; "vcard4"; "vcard_legacy"; "csi_simple"; "ping";
  "time"; "uptime"; "version"; "posix";
}
modules_disabled = { "s2s" }
c2s_require_encryption = false
allow_unencrypted_plain_auth = true
authentication = "internal_hashed"
storage = "internal"
log = { info = "$dir/prosody.log" }
VirtualHost "localhost"
Component "conference.localhost" "muc"
  muc_room_locking = false
EOF
  for u in me alice; do
    prosodyctl --config "$dir/prosody.cfg.lua" register "$u" localhost "$XMPP_PW" >>"$dir/prosodyctl.log" 2>&1
  done
  prosody --config "$dir/prosody.cfg.lua" >"$dir/stdout.log" 2>&1 &
  SERVER_PID=$!
  track "$SERVER_PID"
  wait_listening "$XMPP_PORT" "$SERVER_PID" 20 || die "prosody did not start: $(tail -3 "$dir/prosody.log" "$dir/stdout.log")"
}

# xmpp_expect FD NEEDLE [TIMEOUT]: reads ">"-terminated tokens of the stream
# until one contains NEEDLE (enough XML for a bench bot).
xmpp_expect() {
  local fd=$1 needle=$2 t=${3:-15} tok
  while IFS= read -r -d '>' -t "$t" -u "$fd" tok; do
    if [[ $tok == *"$needle"* ]]; then return 0; fi
    if [[ $tok == *"<failure"* || $tok == *"</stream:stream"* || $tok == *"type='error'"* ]]; then
      log "xmpp: $tok"; return 1
    fi
  done
  log "xmpp: no '$needle' within ${t}s"
  return 1
}
# xmpp_bot VAR USER: a raw-TCP XMPP client (bash /dev/tcp): stream, SASL
# PLAIN, stream restart, resource bind, initial presence; its fd in VAR.
xmpp_bot() {
  local -n _fd=$1
  local hdr auth
  exec {_fd}<>"/dev/tcp/127.0.0.1/$XMPP_PORT"
  hdr="<?xml version='1.0'?><stream:stream to='localhost' xmlns='jabber:client' xmlns:stream='http://etherx.jabber.org/streams' version='1.0'>"
  printf '%s' "$hdr" >&"$_fd"
  xmpp_expect "$_fd" "</stream:features"
  auth=$(printf '\0%s\0%s' "$2" "$XMPP_PW" | base64 -w0)
  printf "<auth xmlns='urn:ietf:params:xml:ns:xmpp-sasl' mechanism='PLAIN'>%s</auth>" "$auth" >&"$_fd"
  xmpp_expect "$_fd" "<success"
  printf '%s' "$hdr" >&"$_fd"
  xmpp_expect "$_fd" "</stream:features"
  printf "<iq type='set' id='bind1'><bind xmlns='urn:ietf:params:xml:ns:xmpp-bind'><resource>bench</resource></bind></iq>" >&"$_fd"
  xmpp_expect "$_fd" "bind1"
  printf "<presence/>" >&"$_fd"
}
# Background: the time the MUC relayed me's presence in the COUNT-th distinct
# room (profanity connected and every bookmark autojoined).
xmpp_watch_joins() { # FD COUNT OUTFILE
  local tok now re="from=['\"](c[0-9]+)@conference\\.localhost/me['\"]"
  local -A seen=()
  while IFS= read -r -d '>' -t 60 -u "$1" tok; do
    if [[ $tok == "<presence "* && $tok != *unavailable* && $tok =~ $re ]]; then
      seen[${BASH_REMATCH[1]}]=1
      if ((${#seen[@]} >= $2)); then now_us now; echo "$now" >"$3"; return 0; fi
    fi
  done
  return 1
}
profanity_setup() { # DIR
  mkdir -p "$1/.config/profanity" "$1/.local/share/profanity"
  cat >"$1/.local/share/profanity/accounts" <<EOF
[me]
enabled=true
jid=me@localhost
resource=profanity
server=127.0.0.1
port=$XMPP_PORT
password=$XMPP_PW
tls.policy=disable
EOF
  # A private HOME/XDG tree: stock profrc, no trace of any real profile.
  CLIENT_CMD=(HOME="$1" XDG_CONFIG_HOME="$1/.config" XDG_DATA_HOME="$1/.local/share" profanity -a me)
  FIRST_FRAME='\[[0-9]{2}:[0-9]{2}\].*-1-'   # the status bar, window 1 current
}

profanity_idle_phase() {
  local s=profanity-idle dir=$WORK/profanity-idle i r rooms=() bm="" meb bot
  mkdir -p "$dir"
  start_prosody "$s"
  for ((i = 1; i <= ROOMS; i++)); do rooms+=("$(printf 'c%02d@conference.localhost' "$i")"); done
  # ROOMS bookmarks with autojoin (XEP-0048 in private storage; prosody's
  # mod_bookmarks mirrors them to PEP), stored through me's own login.
  for r in "${rooms[@]}"; do bm+="<conference jid='$r' autojoin='true' name='${r%%@*}'><nick>me</nick></conference>"; done
  xmpp_bot meb me
  printf "<iq type='set' id='bm1'><query xmlns='jabber:iq:private'><storage xmlns='storage:bookmarks'>%s</storage></query></iq>" "$bm" >&"$meb"
  xmpp_expect "$meb" "bm1"
  exec {meb}>&-
  # Alice creates and sits in every room, so she sees me's joins.
  xmpp_bot bot alice
  for r in "${rooms[@]}"; do
    printf "<presence to='%s/alice'><x xmlns='http://jabber.org/protocol/muc'/></presence>" "$r"
  done >&"$bot"
  for ((i = 0; i < ROOMS; i++)); do xmpp_expect "$bot" "code='110'"; done
  profanity_setup "$dir/home"
  xmpp_watch_joins "$bot" "$ROOMS" "$dir/joined" &
  track $!
  warm "${CLIENT_CMD[@]}"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  wait_screen "$s" E "$FIRST_FRAME" 20 0.01
  put startup_frame profanity "$(us_ms $((FOUND_US - T0)))"
  put startup_polled profanity "$(us_ms $((FOUND_US - T0)))"
  for ((i = 0; i < 600; i++)); do [ -s "$dir/joined" ] && break; sleep 0.05; done
  [ -s "$dir/joined" ] || die "profanity: the MUC never saw $ROOMS joins"
  put startup_ready profanity "$(us_ms $(($(<"$dir/joined") - T0)))"
  keys "$s" "/win ${rooms[-1]}"
  sleep 0.5
  for r in "${rooms[@]}"; do
    for ((i = 1; i <= HIST_LINES; i++)); do
      if ((i % 2)); then printf "<message to='%s' type='groupchat'><body>历史消息 %d 今天天气不错</body></message>" "$r" "$i"
      else printf "<message to='%s' type='groupchat'><body>history line %d in %s</body></message>" "$r" "$i" "${r%%@*}"; fi
    done
  done >&"$bot"
  printf "<message to='%s' type='groupchat'><body>HIST-DONE</body></message>" "${rooms[-1]}" >&"$bot"
  # The room echoes alice's own messages back to her: drain them.
  cat <&"$bot" >/dev/null &
  track $!
  wait_screen "$s" F HIST-DONE 30 0.05
  idle_measure profanity "$pid"
}

profanity_flood_phase() {
  local s=profanity-flood dir=$WORK/profanity-flood fl
  mkdir -p "$dir"
  start_prosody "$s"
  profanity_setup "$dir/home"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  wait_screen "$s" F "logged in successfully" 30 0.05
  xmpp_bot fl alice
  cat <&"$fl" >/dev/null &   # nothing to read, but never let the server's writes back up
  track $!
  # The first message opens window 2; make it current.
  printf "<message to='me@localhost' type='chat'><body>READY-CHECK</body></message>" >&"$fl"
  wait_screen "$s" F "(win 2)" 20 0.05
  keys "$s" "/win 2"
  wait_screen "$s" F READY-CHECK 20 0.05
  sleep 1
  flood_measure profanity "$s" "$pid" "$SERVER_PID" xmpp_send_flood "$fl"
  put flood_sent profanity "$(us_s $((FLOOD_TSENT - FLOOD_T0)))"
}
xmpp_send_flood() { cat "$WORK/flood.xmpp" >&"$1"; }

# ---------------------------------------------------------------- ours
start_tongban_server() { # TAG
  local dir=$WORK/tongban-server.$1 i
  mkdir -p "$dir"
  # The log exists before the server starts: a sed on a log the background
  # job has not opened yet exits 2, which set -e turns into a failed run.
  : >"$dir/server.log"
  # Port 0: the server picks a free port and names it in its first log line.
  "$BIN/tongban-server" --demo --no-limits --port 0 --data-dir "$dir/data" --log-level info 2>"$dir/server.log" &
  SERVER_PID=$!
  track "$SERVER_PID"
  TB_PORT=""
  for ((i = 0; i < 300; i++)); do
    TB_PORT=$(sed -n 's|.*tongban-server listening on http://127.0.0.1:\([0-9]*\).*|\1|p' "$dir/server.log" | head -1)
    [ -n "$TB_PORT" ] && break
    kill -0 "$SERVER_PID" 2>/dev/null || break
    sleep 0.05
  done
  [ -n "$TB_PORT" ] || die "tongban-server did not start: $(tail -3 "$dir/server.log")"
  TB_URL=http://127.0.0.1:$TB_PORT
}
ours_cmd() { # DATA_DIR BENCH_LOG
  # shellcheck disable=SC2086  # OURS_ENV is split into words on purpose
  CLIENT_CMD=(${OURS_ENV:-} TONGBAN_LANG=en LANG=C.UTF-8 TONGBAN_NO_BELL=1 TONGBAN_BENCH_LOG="$2" "$BIN/tongban" start --data-dir "$1")
}
bench_values() { # LOG KEY: the numbers of KEY lines
  awk -v k="$2" '$1 == k { print $2 }' "$1" 2>/dev/null
}

ours_idle_phase() {
  local s=ours-idle dir=$WORK/ours-idle i v
  mkdir -p "$dir"
  start_tongban_server "$s"
  # ROOMS conversations with 100 messages each, really sent by ROOMS peers
  # and synced into me's store (mkstore logs me in under the data dir).
  "$BIN/tongban-bench" mkstore --data-dir "$dir/me" --server "$TB_URL" --account me \
    --conversations "$ROOMS" --messages $((ROOMS * 100)) >&2
  ours_cmd "$dir/me" "$dir/bench.log"
  warm "${CLIENT_CMD[@]}"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  wait_screen "$s" F "Messages" 20 0.01
  put startup_polled ours "$(us_ms $((FOUND_US - T0)))"
  # Connected: the status line (bottom row) says online.
  wait_screen "$s" F online 30 0.01 $((ROWS - 1))
  put startup_ready ours "$(us_ms $((FOUND_US - T0)))"
  for ((i = 0; i < 100; i++)); do [ -n "$(bench_values "$dir/bench.log" first_frame_ms)" ] && break; sleep 0.05; done
  v=$(bench_values "$dir/bench.log" first_frame_ms | head -1)
  if [ -n "$v" ]; then put startup_frame ours "$(awk -v v="$v" 'BEGIN { printf "%.0f", v }')"
  else log "ours: no first_frame_ms in TONGBAN_BENCH_LOG"; fi
  idle_measure ours "$pid"
  # Keypress → frame: 20 selection moves (j/k alternating), unhurried, then
  # the median of the client's own key_to_frame_ms lines.
  for ((i = 0; i < 20; i++)); do
    if ((i % 2)); then tm send-keys -t "$s" k; else tm send-keys -t "$s" j; fi
    sleep 0.15
  done
  sleep 0.5
  v=$(bench_values "$dir/bench.log" key_to_frame_ms | sort -g |
    awk '{ a[NR] = $1 } END { if (NR) printf "%.2f", (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }')
  if [ -n "$v" ]; then put key_ms ours "$v"; else log "ours: no key_to_frame_ms lines"; fi
}

# FLOOD_KEY names the results (ours, ours-group, ours-paced); FLOOD_GROUP=N
# floods a group of N members (me, Alice and registered bench users) instead
# of the chat with Alice; FLOOD_RATE, when set, paces the sender to that
# many sends a second.
ours_flood_phase() {
  local key=${FLOOD_KEY:-ours}
  local s=$key-flood dir=$WORK/$key-flood line
  mkdir -p "$dir"
  start_tongban_server "$s"
  if [ -n "${FLOOD_GROUP:-}" ]; then
    "$BIN/tongban-bench" mkgroup --server "$TB_URL" --account alice --password tongban-demo \
      --unique benchflood --name "bench flood" --members "$FLOOD_GROUP" --with me >&2
  fi
  echo tongban-demo | "$BIN/tongban" login --data-dir "$dir/me" --server "$TB_URL" --account me --password-stdin >/dev/null
  ours_cmd "$dir/me" "$dir/bench.log"
  launch "$s" "$dir/client.err" "${CLIENT_CMD[@]}"
  local pid=$PANE_PID
  wait_screen "$s" F online 30 0.05 $((ROWS - 1))
  if [ -n "${FLOOD_GROUP:-}" ]; then
    # Below the pinned chat with Alice, the group is the newest conversation.
    tm send-keys -t "$s" j
    sleep 0.5
    tm send-keys -t "$s" Enter
    wait_screen "$s" F "bench flood" 10 0.05 0
  else
    # The demo chat with Alice is pinned, so it is the first row: open it.
    tm send-keys -t "$s" Enter
  fi
  sleep 1
  # t0 is taken before tongban-bench starts, so its own start and login
  # (~0.1 s) count against ours; its sends then wait for each acknowledgement.
  flood_measure "$key" "$s" "$pid" "$SERVER_PID" ours_send_flood "$dir"
  wait "$OURS_FLOODER" || true
  # TRACE_DIR: the client's trace (its socket and pulls, in ms since launch),
  # the server's log and the sender's output of this flood, kept to read.
  if [ -n "${TRACE_DIR:-}" ]; then
    mkdir -p "$TRACE_DIR/$key"
    cp "$dir/bench.log" "$dir/flood.out" "$WORK/tongban-server.$s/server.log" "$TRACE_DIR/$key/" 2>/dev/null || true
  fi
  line=$(sed -n 's/^sent [0-9]* in \([0-9.]*\) s.*/\1/p' "$dir/flood.out" | head -1)
  if [ -n "$line" ]; then put flood_sent "$key" "$line"; fi
}
ours_send_flood() {
  local to=(--to me)
  [ -n "${FLOOD_GROUP:-}" ] && to=(--group benchflood)
  [ -n "${FLOOD_RATE:-}" ] && to+=(--rate "$FLOOD_RATE")
  "$BIN/tongban-bench" flood --server "$TB_URL" --account alice --password tongban-demo \
    --count "$FLOOD_COUNT" --marker END "${to[@]}" >"$1/flood.out" 2>&1 &
  OURS_FLOODER=$!
  track "$OURS_FLOODER"
}

# The same flood into a group of GROUP_MEMBERS, open in ours: what the
# client pays per message for sender names and fan-out.
ours_group_flood_phase() { FLOOD_KEY=ours-group FLOOD_GROUP=$GROUP_MEMBERS ours_flood_phase; }

# The one-to-one flood again, paced to the group flood's rate: the group
# flood is bound by the server's fan-out, and a client spends more per
# message when messages come in many small pulls than in a few large ones.
ours_paced_flood_phase() {
  local sent
  sent=$(get flood_sent ours-group)
  [ -n "$sent" ] || { log "no group flood rate to pace by"; return 1; }
  FLOOD_KEY=ours-paced FLOOD_RATE=$(awk -v n="$FLOOD_COUNT" -v t="$sent" 'BEGIN { printf "%.0f", n / t }') ours_flood_phase
}

# ---------------------------------------------------------------- run
# Each phase runs in its own subshell with errexit, so one client's failure
# leaves its cells n/a and the others still run; whatever it started is
# reaped by pid afterwards.
PHASE_PID=""
# settle: each phase starts on a quiet machine and says so. Dirty pages are
# written back first; a tongban-server or tongban-bench still running (an
# earlier bench's, or anybody's: it is named, not ended), the sockets in
# TIME_WAIT (near the ephemeral range's size new connections fail) and the
# load go to stderr with the phase.
settle() {
  local left
  sync
  left=$(pgrep -a -f '^[^ ]*tongban-(server|bench)( |$)' | cut -c1-100 | tr '\n' ';' || true)
  [ -n "$left" ] && log "settle: still running before this phase: $left"
  log "settle: $(ss -Htan state time-wait 2>/dev/null | wc -l) sockets in TIME_WAIT, $(awk '/^Dirty:/ {print $2}' /proc/meminfo) kB dirty, load $(cut -d' ' -f1 /proc/loadavg)"
}

run_phase() { # NAME FUNCTION
  local rc=0 s
  PHASE=$1
  settle
  log "== $1"
  (
    trap 'log "$PHASE: failed at line $LINENO: $BASH_COMMAND"' ERR
    set -E
    "$2"
  ) &
  PHASE_PID=$!
  wait "$PHASE_PID" || rc=$?
  PHASE_PID=""
  if ((rc)); then
    log "$1 failed (exit $rc); its cells print n/a"
    for s in $(tm list-sessions -F '#{session_name}' 2>/dev/null); do
      [ "$s" = hold ] && continue
      log "--- last screen of $s ---"
      tm capture-pane -p -t "$s" 2>/dev/null | grep -v '^ *$' | tail -15 >&2 || true
    done
  fi
  reap
}

log "work dir $WORK; flood $FLOOD_COUNT, idle ${IDLE_SECONDS}s, $ROOMS rooms; clients: $CLIENTS"
make_flood_files
for client in $CLIENTS; do
  case $client in
    ours)
      if [ ! -x "$BIN/tongban" ] || [ ! -x "$BIN/tongban-server" ] || [ ! -x "$BIN/tongban-bench" ]; then
        log "ours: tongban/tongban-server/tongban-bench not all in $BIN; n/a"
        continue
      fi ;;
    weechat) log "weechat $(weechat --version 2>/dev/null)" ;;
    irssi) log "$(irssi --version 2>/dev/null)" ;;
    # (prosody has no --version: it would start a server from /etc/prosody.)
    profanity) log "$(profanity --version 2>/dev/null | head -1); prosody $(dpkg-query -W -f='${Version}' prosody 2>/dev/null)" ;;
    *) log "unknown client $client"; continue ;;
  esac
  run_phase "$client startup+idle" "${client}_idle_phase"
  run_phase "$client flood" "${client}_flood_phase"
  if [ "$client" = ours ] && ((GROUP_MEMBERS > 1)); then
    run_phase "ours flood in a group" ours_group_flood_phase
    run_phase "ours one-to-one flood at the group's pace" ours_paced_flood_phase
  fi
done

# ---------------------------------------------------------------- table
# How far behind its sender a client is: the last message on screen minus
# the last send acknowledged (both from the first send).
for c in ours weechat irssi profanity ours-paced ours-group; do
  shown=$(get flood_s "$c") sent=$(get flood_sent "$c")
  if [ -n "$shown" ] && [ -n "$sent" ]; then
    put flood_behind "$c" "$(awk -v a="$shown" -v b="$sent" 'BEGIN { printf "%.2f", a - b }')"
  fi
done
# Every figure is lower-is-better, so "best peer" is the smallest peer value.
row() { # KEY LABEL
  local v o best="" c cells=""
  o=$(get "$1" ours)
  for c in weechat irssi profanity; do
    v=$(get "$1" "$c")
    cells+=" ${v:-n/a} |"
    if [ -n "$v" ] && { [ -z "$best" ] || awk -v a="$v" -v b="$best" 'BEGIN { exit !(a < b) }'; }; then best=$v; fi
  done
  local ratio="—"
  if [ -n "$o" ] && [ -n "$best" ]; then
    ratio=$(awk -v a="$o" -v b="$best" 'BEGIN { if (b > 0) printf "%.2f", a / b; else print "—" }')
  fi
  echo "| $2 | ${o:-n/a} |$cells $ratio |"
}
echo "| figure | ours | weechat | irssi | profanity | ratio (ours / best peer) |"
echo "|---|---|---|---|---|---|"
row flood_s "flood of $FLOOD_COUNT: first send → last message on screen (s)"
row flood_cpu "flood: client CPU (s)"
row flood_rss "flood: client peak RSS (MiB)"
row flood_rss_start "flood: the client's peak RSS before it, its start's (MiB)"
row flood_srv_cpu "flood: server CPU (s)"
row flood_sent "flood: sender done, first → last send (s)"
row flood_behind "flood: behind its sender, last on screen − last acknowledged (s)"
row idle_rss "idle ${IDLE_SECONDS} s, $ROOMS rooms: client RSS (MiB)"
row idle_cpu "idle ${IDLE_SECONDS} s, $ROOMS rooms: client CPU (s)"
row startup_frame "startup: exec → first frame (ms)"
row startup_polled "startup: exec → first frame, polled by tmux (ms)"
row startup_ready "startup: exec → connected, $ROOMS rooms joined (ms)"
row key_ms "keypress→frame (ms, ours only)"

# Ours flooded in a group next to ours flooded one-to-one (same run, same
# FLOOD_COUNT): the ratio is what a group costs per message.
if want ours && ((GROUP_MEMBERS > 1)); then
  grow() { # KEY LABEL
    local a p b ratio="—"
    a=$(get "$1" ours)
    p=$(get "$1" ours-paced)
    b=$(get "$1" ours-group)
    if [ -n "$p" ] && [ -n "$b" ]; then
      ratio=$(awk -v a="$p" -v b="$b" 'BEGIN { if (a > 0) printf "%.2f", b / a; else print "—" }')
    fi
    echo "| $2 | ${a:-n/a} | ${p:-n/a} | ${b:-n/a} | $ratio |"
  }
  echo
  echo "| ours, flood of $FLOOD_COUNT | one-to-one | one-to-one at the group's pace | group of $GROUP_MEMBERS | ratio (group / one-to-one at its pace) |"
  echo "|---|---|---|---|---|"
  grow flood_s "first send → last message on screen (s)"
  grow flood_cpu "client CPU (s)"
  grow flood_rss "client peak RSS (MiB)"
  grow flood_srv_cpu "server CPU (s)"
  grow flood_sent "sender done, first → last send (s)"
  grow flood_behind "behind its sender, last on screen − last acknowledged (s)"
fi
