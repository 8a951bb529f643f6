#!/usr/bin/env bash
# `make install` end to end, without a release build: installs the binaries
# in BIN (.build/debug) into a temporary DESTDIR the way `make install`
# does, with
#   make install-files INSTALL_FROM=$BIN DESTDIR=$tmp PREFIX=/usr
# (`make install` itself builds release binaries first, then runs the same
# step), and checks what it put there: every file with its mode and nothing
# else; `--version` of the installed binaries; the words the client shows
# found beside it with the source tree hidden; the man pages rendered by
# `man -l` without a warning, saying what `--help` says; the bash
# completion sourced in bash completing `tongban se` to send (and the zsh and
# fish ones, when those shells are here); the systemd unit naming the
# installed binary. Then `make uninstall` must leave the tree empty.
#
#   BIN=.build/debug bash Tests/e2e/install_e2e.sh
#
# TONGBAN_EXPECT_COMMIT=1 (make test, whose build follows `make buildinfo`):
# --version must name a commit; otherwise "commit unknown" passes too (a
# plain `swift build` has none).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BIN=$(cd "${BIN:-.build/debug}" && pwd) || { echo "install e2e FAIL: no BIN folder"; exit 1; }
WORK=$(mktemp -d /tmp/tongban-install.XXXXXX)
DEST=$WORK/dest
PREFIX=/usr
P=$DEST$PREFIX
trap 'rm -rf "$WORK"' EXIT
export LC_ALL=C.UTF-8 MANWIDTH=80 MANPAGER=cat PAGER=cat

PASS=0
FAILED=0
N=0
# check WHAT COMMAND...: runs COMMAND; a failure prints what it said.
check() {
  local what=$1 out; shift
  N=$((N + 1))
  if out=$("$@" 2>&1); then
    PASS=$((PASS + 1)); echo "ok $N - $what"
  else
    FAILED=$((FAILED + 1)); echo "FAIL $N - $what"
    [ -n "$out" ] && printf '%s\n' "$out" | head -20 | sed 's/^/    /'
  fi
}

# make as a user types it (not with make test's flags and variables).
mk() { env -u MAKEFLAGS -u MFLAGS -u MAKELEVEL make -C "$ROOT" --no-print-directory "$@"; }
install_files() { mk install-files INSTALL_FROM="$BIN" DESTDIR="$DEST" PREFIX=$PREFIX INSTALL_GEN="$WORK/gen" >"$WORK/install.log"; }
uninstall() { mk uninstall DESTDIR="$DEST" PREFIX=$PREFIX; }

# Text on one line, runs of spaces as one (man fills and breaks lines).
flat() { tr -s ' \n' '  ' | sed 's/^ //; s/ $//'; }

# help_text OPTION COMMAND...: OPTION's help as `COMMAND --help` prints it,
# on one line (the text right of the label and its continuation lines).
help_text() {
  local opt=$1; shift
  "$@" --help | python3 -c '
import re, sys
opt, lines, out = sys.argv[1], sys.stdin.read().split("\n"), []
for i, line in enumerate(lines):
    words = line.split()
    if words and words[0] == opt and line.startswith("  -"):
        # The label, then two spaces or more and the text; a long label has
        # its text on the next lines.
        out.append(re.sub(r"^  \S+(?: \S+)*(?: {2,}|$)", "", line))
        for more in lines[i + 1:]:
            if not more.startswith(" " * 26) or not more.strip():
                break
            out.append(more)
        break
print(" ".join(" ".join(out).split()))' "$opt"
}

# overview COMMAND...: the OVERVIEW paragraph of `COMMAND --help`, on one line.
overview() { "$@" --help | sed -n '/^OVERVIEW: /,/^$/p' | sed 's/^OVERVIEW: //' | flat; }

# The installed layout (README "Install"), with modes.
EXPECTED="755 bin/tongban
755 bin/tongban-server
644 lib/systemd/system/tongban-server.service
644 share/bash-completion/completions/tongban
644 share/bash-completion/completions/tongban-server
644 share/doc/tongban/nginx/tongban.conf
644 share/fish/vendor_completions.d/tongban-server.fish
644 share/fish/vendor_completions.d/tongban.fish
644 share/man/man1/tongban.1
644 share/man/man8/tongban-server.8
644 share/tongban/Localization/en.json
644 share/tongban/Localization/zh-Hans.json
644 share/zsh/site-functions/_tongban
644 share/zsh/site-functions/_tongban-server"

check "make install-files INSTALL_FROM=$BIN DESTDIR=<tmp> PREFIX=$PREFIX" install_files

layout() {
  local got
  got=$(cd "$P" && find . -type f -printf '%m %P\n' | sort)
  [ "$got" = "$(sort <<<"$EXPECTED")" ] || { diff <(sort <<<"$EXPECTED") <(echo "$got"); return 1; }
  [ -z "$(find "$DEST" -mindepth 1 -maxdepth 1 ! -name "${PREFIX#/}")" ] || { echo "outside PREFIX:"; ls "$DEST"; return 1; }
}
check "every file installed with its mode, nothing else" layout

same_binaries() { cmp "$BIN/tongban" "$P/bin/tongban" && cmp "$BIN/tongban-server" "$P/bin/tongban-server"; }
check "the installed binaries are INSTALL_FROM's" same_binaries

# version BINARY: "0.5.0 (commit abc1234)", "abc1234-dirty" too; "unknown"
# only without TONGBAN_EXPECT_COMMIT.
version() {
  local v commit='[0-9a-f]{7,}(-dirty)?'
  v=$("$1" --version) || return 1
  [ "${TONGBAN_EXPECT_COMMIT:-}" = 1 ] || commit="($commit|unknown)"
  grep -Eqx "[0-9]+\.[0-9]+\.[0-9]+ \(commit $commit\)" <<<"$v" || { echo "$1 --version printed: $v"; return 1; }
  echo "$v"
}
check "tongban --version names the version and commit" version "$P/bin/tongban"
check "tongban-server --version names the version and commit" version "$P/bin/tongban-server"

# words LANG EXPECTED: what the installed client says in LANG with the source
# tree out of its reach (an empty folder mounted over Resources/ in a mount
# namespace of its own): from share/tongban, not a key like cli.notLoggedIn.
words() {
  local out
  mkdir -p "$WORK/hidden"
  out=$(unshare -m bash -c 'mount --bind "$1" "$2" && [ -z "$(ls "$2")" ] && TONGBAN_DATA_DIR="$3" TONGBAN_LANG="$4" "$5" ls' \
    _ "$WORK/hidden" "$ROOT/Resources" "$WORK/nodata" "$1" "$P/bin/tongban" 2>&1)
  [[ $out == *"$2"* ]] || { echo "tongban ls (TONGBAN_LANG=$1) said: $out"; return 1; }
}
check "the installed client's words come with it (English)" words en "Not logged in"
check "the installed client's words come with it (zh-Hans)" words zh-Hans "未登录"

MAN1=$P/share/man/man1/tongban.1
MAN8=$P/share/man/man8/tongban-server.8
# renders PAGE: man -l, groff -ww (and mandoc's lint when it is here) say
# nothing but the page; the rendering is kept in PAGE.txt.
renders() {
  local txt=$WORK/$(basename "$1").txt
  man -l "$1" >"$txt" 2>"$WORK/man.err" || { cat "$WORK/man.err"; return 1; }
  [ ! -s "$WORK/man.err" ] || { cat "$WORK/man.err"; return 1; }
  [ "$(wc -l <"$txt")" -gt 20 ] || { echo "short page:"; cat "$txt"; return 1; }
  groff -man -Tutf8 -ww -z "$1" 2>&1 | { ! grep .; } || return 1
  if command -v mandoc >/dev/null; then mandoc -T lint -W warning "$1" || return 1; fi
}
check "man -l tongban.1 renders without a warning" renders "$MAN1"
check "man -l tongban-server.8 renders without a warning" renders "$MAN8"

# says PAGE TEXT: the rendered PAGE holds TEXT (both on one line).
says() {
  local page=$WORK/$(basename "$1").txt
  [ -n "$2" ] || { echo "nothing to look for"; return 1; }
  flat <"$page" | grep -qF -- "$2" || { echo "not in $(basename "$1"): $2"; return 1; }
}
section() { grep -qx "   $2" "$WORK/$(basename "$1").txt" || { echo "no section \"$2\" in $(basename "$1")"; return 1; }; }
T=$P/bin/tongban
S=$P/bin/tongban-server
# usage_of COMMAND...: the first usage line COMMAND prints, on one line.
usage_of() { "$@" 2>&1 | grep -m1 -i '^usage: ' | flat; }
# says_usage TEXT COMMAND...: the first usage line COMMAND prints holds TEXT.
says_usage() { local want=$1; shift; local got; got=$(usage_of "$@"); [[ $got == *"$want"* ]] || { echo "usage was: $got"; return 1; }; }
check "tongban(1): NAME is tongban - its OVERVIEW" says "$MAN1" "NAME tongban - $(overview "$T")"
check "tongban(1): a section for tongban send" section "$MAN1" "tongban send"
check "tongban(1): a section for tongban group create" section "$MAN1" "tongban group create"
check "tongban(1): send's OVERVIEW as --help says it" says "$MAN1" "$(overview "$T" send)"
check "tongban(1): send --queue's help as --help says it" says "$MAN1" "--queue $(help_text --queue "$T" send)"
check "tongban(1): group create --unique's help as --help says it" says "$MAN1" "--unique <unique> $(help_text --unique "$T" group create)"
# `tongban start` parses with start's options alone (Tongban.parseStartAlone);
# its help and its mistakes still come from the whole tree, named in full.
check "tongban start --help: usage names tongban start" says_usage "tongban start [--data-dir" "$T" start --help
check "tongban start -h: the same usage" says_usage "tongban start [--data-dir" "$T" start -h
check "tongban start --bogus: the mistake's usage names tongban start" says_usage "tongban start [--data-dir" "$T" start --bogus
check "tongban --bogus (start by default): usage names tongban start" says_usage "tongban start [--data-dir" "$T" --bogus
# The forms start reads without the parser (Start.parseTypedForms) hand every
# other one to it: a missing value, a value like an option, a bad CA file.
says_error() { local want=$1; shift; local got; got=$(TONGBAN_LANG=en "$@" 2>&1 </dev/null); [[ $got == *"$want"* ]] || { echo "it said: $got"; return 1; }; }
check "tongban start --data-dir (no value): the parser's error" says_error "Missing value for '--data-dir <data-dir>'" "$T" start --data-dir
check "tongban --server --demo: the parser's error" says_error "Missing value for '--server <server>'" "$T" --server --demo
check "tongban start --ca-file <missing>: the CA file's error" says_error "--ca-file $WORK/none.pem: not a readable PEM certificate file" "$T" start --ca-file "$WORK/none.pem"
check "tongban start --demo --demo: taken as the parser takes it (no terminal here)" says_error "the full-screen client cannot draw here" "$T" start --demo --demo
check "tongban start --data-dir D: the typed form starts (no terminal here)" says_error "the full-screen client cannot draw here" "$T" start --data-dir "$WORK/nodata"
check "tongban(1): its VERSION is --version's" says "$MAN1" "This page describes tongban $("$T" --version)."
check "tongban-server(8): NAME is tongban-server - its OVERVIEW" says "$MAN8" "NAME tongban-server - $(overview "$S" | sed 's/ Without a subcommand.*//')"
check "tongban-server(8): a section for tongban-server signals remove" section "$MAN8" "tongban-server signals remove"
check "tongban-server(8): --rate-limit's help (a titled group) as --help says it" says "$MAN8" "--rate-limit <rate-limit> $(help_text --rate-limit "$S")"
check "tongban-server(8): --database's help as --help says it" says "$MAN8" "--database <database> $(help_text --database "$S")"
check "tongban-server(8): FILES names the installed unit" says "$MAN8" "FILES $PREFIX/lib/systemd/system/tongban-server.service"
check "tongban-server(8): its VERSION is --version's" says "$MAN8" "This page describes tongban-server $("$S" --version)."
found_by_man() {
  [ "$(MANPATH=$P/share/man man -w tongban)" = "$MAN1" ] && [ "$(MANPATH=$P/share/man man -w 8 tongban-server)" = "$MAN8" ]
}
check "man finds both pages by name under PREFIX/share/man" found_by_man

# bash_complete SCRIPT WORD...: sources SCRIPT in a fresh bash, checks that
# `complete -p` registers it for WORD 1, runs the function it names as bash
# would for the command line WORD... (completing the last word) and prints
# COMPREPLY.
bash_complete() {
  PATH="$P/bin:$PATH" bash --norc --noprofile -c '
    script=$1; shift
    source "$script" || exit 1
    spec=$(complete -p "$1") || { echo "complete -p $1: not registered"; exit 1; }
    fn=$(sed -n "s/.* -F \([^ ]*\) .*/\1/p" <<<"$spec")
    [ -n "$fn" ] || { echo "no function in: $spec"; exit 1; }
    COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); COMP_LINE="$*"; COMP_POINT=${#COMP_LINE}
    COMPREPLY=()
    "$fn" "$1" "${COMP_WORDS[COMP_CWORD]}" "${COMP_WORDS[COMP_CWORD - 1]}"
    printf "%s\n" "${COMPREPLY[@]}"' _ "$@"
}
# completes EXPECTED COMPLETER ARGS...: the completer's words include EXPECTED.
completes() {
  local want=$1 out; shift
  out=$("$@") || { echo "$out"; return 1; }
  grep -qx -- "$want" <<<"$out" || { echo "offered:"; echo "$out" | head; return 1; }
}
BASH_DIR=$P/share/bash-completion/completions
check "bash: sourced, tongban se<Tab> offers send" completes send bash_complete "$BASH_DIR/tongban" tongban se
check "bash: tongban send --qu<Tab> offers --queue" completes --queue bash_complete "$BASH_DIR/tongban" tongban send --qu
check "bash: tongban-server si<Tab> offers signals" completes signals bash_complete "$BASH_DIR/tongban-server" tongban-server si

ZSH_DIR=$P/share/zsh/site-functions
FISH_DIR=$P/share/fish/vendor_completions.d
non_empty() { for f; do [ -s "$f" ] || { echo "empty: $f"; return 1; }; done; }
check "zsh and fish completions are not empty" non_empty "$ZSH_DIR/_tongban" "$ZSH_DIR/_tongban-server" \
  "$FISH_DIR/tongban.fish" "$FISH_DIR/tongban-server.fish"
if command -v zsh >/dev/null; then
  zsh_ok() {
    zsh -n "$ZSH_DIR/_tongban" && zsh -n "$ZSH_DIR/_tongban-server" || return 1
    # compinit picks them up from site-functions by their #compdef line.
    local got
    got=$(zsh -f -c "fpath=($ZSH_DIR \$fpath); autoload -U compinit && compinit -u -D; print -r -- \$_comps[tongban] \$_comps[tongban-server]")
    [ "$got" = "_tongban _tongban-server" ] || { echo "compinit: $got"; return 1; }
  }
  check "zsh: both parse (zsh -n) and compinit registers them" zsh_ok
else
  echo "(zsh is not installed: its completions are not parsed)"
fi
if command -v fish >/dev/null; then
  fish_ok() {
    fish -n "$FISH_DIR/tongban.fish" && fish -n "$FISH_DIR/tongban-server.fish" || return 1
    local got
    got=$(PATH="$P/bin:$PATH" fish --no-config -c "source $FISH_DIR/tongban.fish; complete -C 'tongban se'" | cut -f1)
    grep -qx send <<<"$got" || { echo "fish offered: $got"; return 1; }
  }
  check "fish: both parse (fish -n); tongban se<Tab> offers send" fish_ok
else
  echo "(fish is not installed: its completions are not parsed)"
fi

unit() {
  local u=$P/lib/systemd/system/tongban-server.service
  grep -qx "ExecStart=$PREFIX/bin/tongban-server .*" "$u" || { grep ExecStart "$u"; return 1; }
  # Otherwise it is deploy/'s file as it is.
  diff <(sed "s|$PREFIX/bin/tongban-server|/usr/local/bin/tongban-server|g" "$u") "$ROOT/deploy/systemd/tongban-server.service"
}
check "the systemd unit starts PREFIX/bin/tongban-server, the rest as in deploy/" unit
check "the nginx example is deploy/nginx/tongban.conf" cmp "$P/share/doc/tongban/nginx/tongban.conf" "$ROOT/deploy/nginx/tongban.conf"

# uninstall removes its files only: a file of someone else's stays, with its folder.
keeps_others() {
  echo other >"$P/bin/other"
  uninstall >/dev/null || return 1
  [ "$(cd "$DEST" && find . -type f)" = "./usr/bin/other" ] || { find "$DEST"; return 1; }
  rm "$P/bin/other"
}
check "make uninstall removes only what was installed" keeps_others
install_files >/dev/null 2>&1
empties() {
  uninstall >/dev/null || return 1
  [ -z "$(find "$DEST" -mindepth 1)" ] || { echo "left:"; find "$DEST" -mindepth 1; return 1; }
}
check "make uninstall (after installing again) leaves an empty DESTDIR" empties

echo "install e2e: $PASS passed, $FAILED failed"
[ "$FAILED" -eq 0 ] && [ "$PASS" -gt 0 ]
