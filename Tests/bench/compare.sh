#!/usr/bin/env bash
# Two builds side by side in one run: the store and server sections of
# tongban-bench and the client's own figures from clients.sh, each run for
# the "before" binaries and then for the "after" ones, and a table of
# after/before ratios. Both runs share the machine's state of the moment,
# so the ratios mean more than figures taken on different days.
#
# Usage (from the repo root):
#   bash Tests/bench/compare.sh BEFORE_BIN AFTER_BIN
# where each *_BIN holds tongban, tongban-server and tongban-bench (a
# `make release` tree's .build/release). `make bench-compare BASE=<rev>`
# builds BASE in a worktree and calls this with it and the current tree.
# Knobs: IDLE_SECONDS (default 15), FLOOD_COUNT (default 10000),
# TONGBAN_BENCH_MESSAGES (store size, default 1,000,000), ROUNDS (default 1:
# with 2, the order alternates: before, after, after, before).
set -euo pipefail

BEFORE=${1:?usage: compare.sh BEFORE_BIN AFTER_BIN}
AFTER=${2:?usage: compare.sh BEFORE_BIN AFTER_BIN}
ROUNDS=${ROUNDS:-1}
export IDLE_SECONDS=${IDLE_SECONDS:-15}
OUT=$(mktemp -d /tmp/tongban-compare.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)

run() { # run LABEL BIN ROUND
  local label=$1 bin=$2 round=$3
  echo "== $label (round $round): store and server" >&2
  "$bin/tongban-bench" store >"$OUT/$label.$round.bench.md"
  "$bin/tongban-bench" server >>"$OUT/$label.$round.bench.md"
  echo "== $label (round $round): the client" >&2
  # GROUP_MEMBERS=0: the group flood needs tongban-bench mkgroup, which an
  # older build may not have; the one-to-one phases are the same for both.
  BIN=$bin CLIENTS=ours GROUP_MEMBERS=0 bash "$here/clients.sh" >"$OUT/$label.$round.clients.md"
}

for round in $(seq 1 "$ROUNDS"); do
  if [ $((round % 2)) -eq 1 ]; then run before "$BEFORE" "$round"; run after "$AFTER" "$round"
  else run after "$AFTER" "$round"; run before "$BEFORE" "$round"; fi
done

# Joins the tables on their first column ("figure") and divides the second
# ("ours"), averaged over the rounds.
python3 - "$OUT" "$ROUNDS" <<'EOF'
import re, sys, collections
out, rounds = sys.argv[1], int(sys.argv[2])
def rows(path):
    got = collections.OrderedDict()
    for line in open(path, encoding="utf-8"):
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) < 2 or cells[0] in ("figure", "") or set(cells[0]) <= set("-"):
            continue
        m = re.match(r"^-?[0-9][0-9,]*(\.[0-9]+)?", cells[1])
        if m:
            got[cells[0]] = float(m.group(0).replace(",", ""))
    return got
print("| figure | before | after | after/before |")
print("|---|---|---|---|")
for part in ("bench", "clients"):
    sums = {"before": collections.OrderedDict(), "after": collections.OrderedDict()}
    for side in sums:
        for r in range(1, rounds + 1):
            for k, v in rows(f"{out}/{side}.{r}.{part}.md").items():
                sums[side][k] = sums[side].get(k, 0) + v / rounds
    for k, b in sums["before"].items():
        if k not in sums["after"]:
            continue
        a = sums["after"][k]
        ratio = f"{a / b:.2f}" if b else "—"
        print(f"| {k} | {b:,.4g} | {a:,.4g} | {ratio} |")
EOF
echo "(raw tables in $OUT)" >&2
