#!/usr/bin/env bash
# Runs the libFuzzer harnesses (see Fuzz/build.sh, which this calls first).
#
#   Fuzz/run.sh TARGET SECONDS   fuzz one target for SECONDS
#   Fuzz/run.sh all SECONDS      every target, FUZZ_JOBS (default 2) at a time
#   Fuzz/run.sh replay [TARGET]  run each committed input (Fuzz/corpus/<t>,
#                                Fuzz/regressions/<t>) once; no fuzzing
#
# Fuzzing works on a copy of the committed seed corpus under
# .build-fuzz/corpus/<target> (it keeps growing there across runs; the
# committed corpus stays small). Crashes are written to
# .build-fuzz/crashes/<target>/, the log to .build-fuzz/logs/<target>.log.
# Fuzzers run under `nice -n 19` (FUZZ_NICE) so that builds keep priority.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
OUT="$ROOT/.build-fuzz"
ALL_TARGETS=(message summary sync payload jsonsyntax sanitizer keydecoder media)
JSON_TARGETS=" message summary sync payload jsonsyntax "
NICE=(nice -n "${FUZZ_NICE:-19}")
# Swift's own crash backtracer fights ASan over the crashing process (and
# hides libFuzzer's report); libFuzzer prints the stack itself.
export SWIFT_BACKTRACE="${SWIFT_BACKTRACE:-enable=no}"

usage() { echo "usage: $0 {TARGET SECONDS | all SECONDS | replay [TARGET]}; targets: ${ALL_TARGETS[*]}" >&2; exit 2; }

# Options every run shares. Leak checking is off: the Swift runtime's
# metadata caches and Foundation's singletons are reported as leaks.
common_options() {  # common_options TARGET
    local opts=(-rss_limit_mb=2048 -timeout=10 -detect_leaks=0 -print_final_stats=1)
    case "$JSON_TARGETS" in *" $1 "*) opts+=(-dict="$ROOT/Fuzz/json.dict") ;; esac
    echo "${opts[@]}"
}

fuzz_one() {  # fuzz_one TARGET SECONDS
    local t="$1" secs="$2"
    local corpus="$OUT/corpus/$t" crashes="$OUT/crashes/$t" log="$OUT/logs/$t.log"
    mkdir -p "$corpus" "$crashes" "$OUT/logs"
    # Seeds and earlier findings join whatever the corpus already holds.
    cp -n "Fuzz/corpus/$t"/* "$corpus"/ 2>/dev/null || true
    if [ -d "Fuzz/regressions/$t" ]; then cp -n "Fuzz/regressions/$t"/* "$corpus"/ 2>/dev/null || true; fi
    echo "fuzz-$t: ${secs}s, log $log"
    local rc=0
    # shellcheck disable=SC2046
    ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "${NICE[@]}" "$OUT/bin/fuzz-$t" $(common_options "$t") \
        -max_total_time="$secs" -artifact_prefix="$crashes/" "$corpus" >"$log" 2>&1 || rc=$?
    summary "$t" "$rc"
    return "$rc"
}

summary() {  # summary TARGET RC: the last status line and the crash files
    local t="$1" rc="$2" log="$OUT/logs/$1.log"
    local last execs
    last="$(grep -E '^#[0-9]+' "$log" | tail -n 1 || true)"
    execs="$(grep -E '^stat::number_of_executed_units' "$log" | awk '{print $2}' || true)"
    echo "fuzz-$t: rc=$rc execs=${execs:-?} ${last:-no status line}"
    if [ "$rc" -ne 0 ]; then
        echo "fuzz-$t: FAILED; crash inputs in $OUT/crashes/$t:"; ls -1 "$OUT/crashes/$t" | sed 's/^/  /'
        grep -E 'FUZZ PROPERTY FAILED|ERROR: (AddressSanitizer|libFuzzer)|Fatal error' "$log" | head -n 3 | sed 's/^/  /'
    fi
}

replay() {  # replay [TARGET...]
    local failed=0 t files
    for t in "$@"; do
        files=()
        for dir in "Fuzz/corpus/$t" "Fuzz/regressions/$t"; do
            [ -d "$dir" ] && while IFS= read -r f; do files+=("$f"); done < <(find "$dir" -type f | sort)
        done
        [ ${#files[@]} -eq 0 ] && continue
        mkdir -p "$OUT/logs"
        # Files as arguments: libFuzzer runs each once and fuzzes nothing.
        # shellcheck disable=SC2046
        if ASAN_OPTIONS="${ASAN_OPTIONS:-detect_leaks=0}" "$OUT/bin/fuzz-$t" $(common_options "$t") -runs=0 \
            "${files[@]}" >"$OUT/logs/replay-$t.log" 2>&1; then
            echo "replay $t: ${#files[@]} inputs ok"
        else
            echo "replay $t: FAILED (log: $OUT/logs/replay-$t.log)"
            grep -E 'Running:|FUZZ PROPERTY FAILED|ERROR: (AddressSanitizer|libFuzzer)|Fatal error' "$OUT/logs/replay-$t.log" | tail -n 4 | sed 's/^/  /'
            failed=1
        fi
    done
    return $failed
}

[ $# -ge 1 ] || usage
case "$1" in
    replay)
        shift
        targets=("$@"); [ ${#targets[@]} -eq 0 ] && targets=("${ALL_TARGETS[@]}")
        bash "$ROOT/Fuzz/build.sh" "${targets[@]}"
        replay "${targets[@]}"
        ;;
    all)
        [ $# -eq 2 ] || usage
        bash "$ROOT/Fuzz/build.sh"
        export -f fuzz_one summary common_options
        export OUT ROOT JSON_TARGETS
        export FUZZ_NICE="${FUZZ_NICE:-19}"
        # Each target in its own shell; xargs fails if any of them did.
        printf '%s\n' "${ALL_TARGETS[@]}" | xargs -P "${FUZZ_JOBS:-2}" -I{} \
            bash -c 'NICE=(nice -n "$FUZZ_NICE"); fuzz_one "$1" "$2"' _ {} "$2"
        ;;
    *)
        [ $# -eq 2 ] || usage
        case " ${ALL_TARGETS[*]} " in *" $1 "*) ;; *) usage ;; esac
        bash "$ROOT/Fuzz/build.sh" "$1"
        fuzz_one "$1" "$2"
        ;;
esac
