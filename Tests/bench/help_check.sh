#!/usr/bin/env bash
# `tongban-bench SUB --help` prints that subcommand's help and runs nothing:
# each must answer within 10 s, start with its OVERVIEW and print no bench
# header (a bench that started would print "# tongban bench").
set -u
BIN=${BIN:-.build/debug}
fail=0
for sub in all store server group room postgres flood mkstore mkgroup; do
  out=$(timeout 10 "$BIN/tongban-bench" "$sub" --help 2>&1); rc=$?
  if [ $rc -ne 0 ] || [[ "$out" != OVERVIEW:* ]] || grep -q "^# tongban bench" <<<"$out"; then
    echo "tongban-bench $sub --help: rc $rc, printed: ${out:0:200}" >&2
    fail=1
  fi
done
[ $fail -eq 0 ] && echo "bench help OK: every subcommand's --help prints its help and runs nothing"
exit $fail
