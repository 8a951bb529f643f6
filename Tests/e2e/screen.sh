# Sourced by the end-to-end scripts that drive a client in tmux.
# expect_screen TEXT [TARGET]: waits up to 10 s until the pane (default
# $SESSION) shows TEXT; otherwise prints the pane and calls `fail`.
expect_screen() {
  local target=${2:-$SESSION}
  for _ in $(seq 1 100); do
    if tmux capture-pane -p -t "$target" | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  echo "--- $target ---"; tmux capture-pane -p -t "$target" || true
  fail "screen never showed: $1"
}

# expect_gone TEXT [TARGET]: waits up to 10 s until the pane (default
# $SESSION) no longer shows TEXT.
expect_gone() {
  local target=${2:-$SESSION}
  for _ in $(seq 1 100); do
    if ! tmux capture-pane -p -t "$target" | grep -qF -- "$1"; then return 0; fi
    sleep 0.1
  done
  fail "$target still shows: $1"
}

# expect_output TEXT COMMAND...: waits up to 10 s until the command prints TEXT.
expect_output() {
  local want=$1; shift
  for _ in $(seq 1 50); do
    if "$@" 2>/dev/null | grep -qF -- "$want"; then return 0; fi
    sleep 0.2
  done
  fail "\`$*\` never printed: $want"
}
