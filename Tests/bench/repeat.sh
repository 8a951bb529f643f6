#!/usr/bin/env bash
# One sub-bench run several times in a row, and each figure's values side
# by side with how many runs met its goal: a goal counts as met when at
# least 4 of 5 runs meet it (BENCHMARKS.md), since one run on a shared
# 2-core machine can land on a noisy moment.
#
# Usage (from the repo root, after `make release`):
#   bash Tests/bench/repeat.sh SUB [RUNS]
#   make bench-repeat SUB=server RUNS=5
# SUB: a tongban-bench subcommand (store, server, group, room, postgres,
# abuse, secret; a throwaway PostgreSQL cluster is started for each run) or
# `clients` (Tests/bench/clients.sh with ours and irssi, the anchor of the
# client goals). RUNS defaults to 5. BIN (default .build/release) holds the
# binaries. Each run's own output is kept in a temporary directory, named
# on stderr.
set -euo pipefail
SUB=${1:?usage: repeat.sh SUB [RUNS]}
RUNS=${2:-5}
BIN=${BIN:-.build/release}
OUT=$(mktemp -d /tmp/tongban-repeat.XXXXXX)
here=$(cd "$(dirname "$0")" && pwd)

for r in $(seq 1 "$RUNS"); do
  echo "== $SUB, run $r of $RUNS" >&2
  if [ "$SUB" = clients ]; then
    BIN=$BIN CLIENTS=${CLIENTS:-"ours irssi"} bash "$here/clients.sh" >"$OUT/$r.md"
  else
    dir=$(mktemp -u /tmp/tongban-pg.XXXXXX)
    url=$(bash "$here/../pg/cluster.sh" start "$dir")
    rc=0
    TONGBAN_BENCH_PG=$url "$BIN/tongban-bench" "$SUB" >"$OUT/$r.md" || rc=$?
    bash "$here/../pg/cluster.sh" stop "$dir"
    [ "$rc" -eq 0 ] || { echo "repeat: run $r failed ($rc); see $OUT/$r.md" >&2; exit "$rc"; }
  fi
done

python3 - "$OUT" "$RUNS" <<'PY'
import collections, re, sys
out, runs = sys.argv[1], int(sys.argv[2])

# The client table has no goal column: its goals (issue 51) by figure,
# on ours (the figure itself) or on the ratio to the best peer.
CLIENT_GOALS = [
    ("flood: behind its sender", "ours", 0.3, "≤ 0.3 s"),
    ("flood: client CPU", "ratio", 1.0, "≤ 1× irssi"),
    ("flood: client peak RSS", "ratio", 1.5, "≤ 1.5× irssi"),
    ("client RSS (MiB)", "ratio", 1.5, "≤ 1.5× irssi"),
    ("startup: exec → first frame (ms)", "ratio", 1.0, "≤ 1× irssi"),
    ("startup: exec → first frame, polled by tmux", "ratio", 1.0, "≤ 1× irssi"),
]

def number(cell):
    m = re.match(r"^-?[0-9][0-9,]*(\.[0-9]+)?", cell.strip())
    return float(m.group(0).replace(",", "")) if m else None

def rows(path):
    """figure -> (value, ratio or None, goal text, met or None)"""
    got, header = collections.OrderedDict(), None
    for line in open(path, encoding="utf-8"):
        if not line.startswith("|"):
            header = None
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if cells[0] == "figure" or header is None and cells[0].startswith("ours,"):
            header = cells
            continue
        if header is None or set(cells[0]) <= set("-"):
            continue
        value = number(cells[1])
        if value is None:
            continue
        if header[-1] == "met":
            ratio = number(cells[3]) if len(cells) > 3 and cells[2] != "—" else None
            got[cells[0]] = (value, ratio, cells[-2], {"yes": True, "NO": False}.get(cells[-1]))
        elif header[0] == "figure":  # the clients' table
            ratio = number(cells[-1])
            goal, met = "", None
            for prefix, on, limit, text in CLIENT_GOALS:
                if prefix in cells[0]:
                    v = value if on == "ours" else ratio
                    goal, met = text, (v <= limit if v is not None else None)
                    break
            got[cells[0]] = (value, ratio, goal, met)
    return got

per_run = [rows(f"{out}/{r}.md") for r in range(1, runs + 1)]
print("| figure | " + " | ".join(f"run {r}" for r in range(1, runs + 1)) + " | goal | runs that met it |")
print("|---|" + "---|" * runs + "---|---|")
for figure in per_run[0]:
    cells, met, judged, goal = [], 0, 0, ""
    for run in per_run:
        if figure not in run:
            cells.append("n/a")
            continue
        value, ratio, goal, ok = run[figure]
        text = (f"{value:,.0f}" if abs(value) >= 100 else f"{value:.3g}") + (f" ({ratio:.2f}×)" if ratio is not None else "")
        cells.append(text)
        if ok is not None:
            judged += 1
            met += ok
    # Met: in at least 4 of 5 runs (four fifths, rounded up, of the runs judged).
    needed = -(-4 * judged // 5)
    verdict = (f"{met} of {judged}" + (" (met)" if met >= needed else " (not met)")) if judged else "—"
    print(f"| {figure} | " + " | ".join(cells) + f" | {goal or '—'} | {verdict} |")
PY
echo "(each run's output in $OUT)" >&2
