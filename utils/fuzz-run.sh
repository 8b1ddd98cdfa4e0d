#!/usr/bin/env bash
# fuzz-run.sh FUZZ_BUILD SECONDS JOBS HARNESS... -- run each libFuzzer harness
# (FUZZ_BUILD/fuzz_<name>, built by `make fuzz`) for SECONDS, JOBS at a time,
# and end with "N passed, N failed".
#
# A harness passes when libFuzzer ran its time with no finding (crash,
# sanitizer report, leak, timeout, out-of-memory). Each starts from its seed
# corpus and kept regressions (tests/fuzz/corpus/<name>/,
# tests/fuzz/regressions/<name>/, read only) plus a scratch corpus in
# FUZZ_BUILD/work/<name>/ that grows across runs on one machine. A finding's
# input is copied to tests/fuzz/regressions/<name>/ (to commit, with the
# fix), and the tail of libFuzzer's report is printed.
#
# Each harness's line gives what a run is judged by: executions per second
# and coverage (libFuzzer's cov: edges and ft: features) at the end.
# Environment: FUZZ_FLAGS adds libFuzzer options (e.g. -max_len=65536).
set -u
build=$1; seconds=$2; jobs=$3; shift 3
root=$(cd "$(dirname "$0")/.." && pwd)
build=$(cd "$build" && pwd) # absolute: libFuzzer writes into these directories
passed=0; failed=0
logs="$build/logs"
mkdir -p "$logs"

run_one() {
    local name=$1 work="$build/work/$1" art="$build/artifacts/$1/" log="$logs/$1.log"
    mkdir -p "$work" "$art"
    rm -f "$art"/* 2>/dev/null
    local dirs=("$work" "$root/tests/fuzz/corpus/$name")
    [ -d "$root/tests/fuzz/regressions/$name" ] && dirs+=("$root/tests/fuzz/regressions/$name")
    # -timeout: one input may take 10 s (the slow server-level ones run many
    # commands); -rss_limit_mb: the server's own limits allow big values.
    "$build/fuzz_$name" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2560 \
        -print_final_stats=1 -artifact_prefix="$art" ${FUZZ_FLAGS:-} "${dirs[@]}" >"$log" 2>&1
    echo $? >"$log.status"
}

# Start them JOBS at a time; wait for the oldest before starting another.
pids=()
for name in "$@"; do
    if [ ! -x "$build/fuzz_$name" ]; then
        echo "fuzz_$name: not built (make fuzz)" >"$logs/$name.log"; echo 1 >"$logs/$name.log.status"
        continue
    fi
    run_one "$name" &
    pids+=($!)
    if [ ${#pids[@]} -ge "$jobs" ]; then wait "${pids[0]}"; pids=("${pids[@]:1}"); fi
done
wait

for name in "$@"; do
    log="$logs/$name.log"; status=$(cat "$log.status" 2>/dev/null || echo 1)
    stats=$(grep -E '^#[0-9]+' "$log" | tail -n 1)
    cov=$(echo "$stats" | grep -oE 'cov: [0-9]+' | awk '{print $2}')
    ft=$(echo "$stats" | grep -oE 'ft: [0-9]+' | awk '{print $2}')
    execs=$(grep -E 'stat::number_of_executed_units' "$log" | awk '{print $2}')
    rate=$(grep -oE 'exec/s: [0-9]+' "$log" | tail -n 1 | awk '{print $2}')
    findings=$(ls "$build/artifacts/$name/" 2>/dev/null)
    if [ "$status" -eq 0 ] && [ -z "$findings" ]; then
        passed=$((passed + 1))
        printf '[ok]   %-8s %ss, %s runs, %s exec/s, cov %s, ft %s\n' "$name" "$seconds" "${execs:-?}" "${rate:-?}" "${cov:-?}" "${ft:-?}"
    else
        failed=$((failed + 1))
        printf '[FAIL] %-8s exit %s after %s runs (cov %s)\n' "$name" "$status" "${execs:-?}" "${cov:-?}"
        mkdir -p "$root/tests/fuzz/regressions/$name"
        for f in $findings; do
            cp "$build/artifacts/$name/$f" "$root/tests/fuzz/regressions/$name/$f"
            echo "    finding kept: tests/fuzz/regressions/$name/$f"
        done
        grep -vE '^#[0-9]+|^INFO:|^\s*$' "$log" | tail -n 40 | sed 's/^/    /'
    fi
done
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
