#!/usr/bin/env bash
# test-cross.sh PORT... -- cross-build each port and run its tests under QEMU
# (via `make PORT=<p> test`: the C unit tests with the alignment canary, then
# the Tcl integration suite with the server emulated), then print one table
# and the overall "N passed, N failed" line. TARGET=test-unit runs the unit
# tests only.
#
# The ports run in CROSS_LANES lanes at once (default 2). An emulated test
# run waits more than it computes: armv6's integration files used 47 s of
# CPU in 110 s of wall time on an idle 2-core machine, so two ports side by
# side share the cores without slowing each other much, and the matrix
# takes about the time of its longest lane instead of the sum. Each port
# goes to the lane with the least work so far (by the weights below, the
# ports' times in CI), and each lane's servers take their own ports
# (RUNTEST_BASEPORT, 2000 apart). Every time limit in the tests is scaled
# by the port's time factor, which covers the sharing. CROSS_LANES=1 runs
# them one after another.
#
# Extra make variables (e.g. MALLOC=libc) can be passed in MAKEFLAGS_EXTRA.
# A port whose build fails, or whose run prints no result line, counts as one
# failure; nothing is skipped silently.
set -u
cd "$(dirname "$0")/.." || exit 1
mkdir -p build
lanes=${CROSS_LANES:-2}
case $lanes in ''|*[!0-9]*|0) echo "CROSS_LANES must be a positive number" >&2; exit 2 ;; esac

# Seconds per port, build included, estimated for a quiet machine from a
# clean-clone run of the stage on 2026-11-30 with other work beside it
# (sparc64 1138, armv6 922, armv7 435), less the files left out after it
# (sparc64: cluster-bus, defrag; i386 under QEMU: the integration files),
# plus sparc64's cluster-emulated.tcl (62 s, added later).
# The quiet full .ci/run of 3aca149 then measured sparc64 827, armv6 719,
# aarch64 447, s390x 438, armv7 415, i386 309 (under QEMU): lanes of 1583
# and 1572 s with these weights. armv7 and s390x then took redis-cli-cluster
# (+40 s each, estimated). The quiet full .ci/run of 184571e measured
# sparc64 959, armv6 821, s390x 501, armv7 499, aarch64 446, i386 304 (lanes
# of 1764 and 1766 s); the weights are those less what left the lanes
# after it: sparc64's replication files (186 s), loading.tcl's halved data
# (about 25 s a port), i386's server and tools build (unit tests only).
port_weight() {
    case $1 in
        sparc64) echo 750 ;; armv6) echo 800 ;; armv7) echo 475 ;; aarch64) echo 420 ;; s390x) echo 475 ;;
        i386) echo 250 ;; *) echo 500 ;;
    esac
}

# Runs one port, its output in build/test-cross-PORT.log, and writes
# "exit-status seconds" to build/test-cross-PORT.result.
run_port() {
    local port=$1 baseport=$2 start status
    start=$(date +%s)
    make --no-print-directory PORT="$port" RUNTEST_BASEPORT="$baseport" ${MAKEFLAGS_EXTRA:-} \
        "${TARGET:-test}" >"build/test-cross-$port.log" 2>&1
    status=$?
    echo "$status $(( $(date +%s) - start ))" >"build/test-cross-$port.result"
}

# Lane assignment: the heaviest ports first, each to the least loaded lane.
declare -a lane_load lane_ports
declare -A lane_of
for ((i = 0; i < lanes; i++)); do lane_load[i]=0; lane_ports[i]=""; done
for port in $(for p in "$@"; do echo "$(port_weight "$p") $p"; done | sort -s -k1,1nr | awk '{print $2}'); do
    best=0
    for ((i = 1; i < lanes; i++)); do
        [ "${lane_load[i]}" -lt "${lane_load[best]}" ] && best=$i
    done
    lane_load[best]=$(( lane_load[best] + $(port_weight "$port") ))
    lane_ports[best]="${lane_ports[best]} $port"
    lane_of[$port]=$((best + 1))
done
pids=()
for ((i = 0; i < lanes; i++)); do
    [ -n "${lane_ports[i]}" ] || continue
    echo "lane $((i + 1)):${lane_ports[i]}"
    rm -f $(for p in ${lane_ports[i]}; do echo "build/test-cross-$p.result"; done)
    ( for p in ${lane_ports[i]}; do run_port "$p" $((21000 + 2000 * i)); done ) &
    pids+=($!)
done
wait "${pids[@]}"

total_pass=0; total_fail=0; rows=(); details=()
for port in "$@"; do
    log=build/test-cross-$port.log
    read -r status secs <"build/test-cross-$port.result" 2>/dev/null || { status=255; secs=0; }
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" 2>/dev/null | tail -n 1)
    case $(grep -oE '^\[(ok|FAIL|skip)\] canary' "$log" 2>/dev/null | head -n 1) in
        "[ok] canary") canary=trapped ;;
        "[FAIL] canary") canary=NO-TRAP ;;
        "[skip] canary") canary=n/a ;;
        *) canary=- ;;
    esac
    if [ -z "$line" ]; then
        p=0; f=1; line="build or run failed (exit $status)"
        tail -n 40 "$log" 2>/dev/null | sed "s/^/  [$port] /"
    else
        p=${line%% *}; f=$(echo "$line" | awk '{print $3}' | tr -d ,)
        [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
        if [ "$f" -ne 0 ]; then
            # each failed test with its indented details first (the tail
            # below may have scrolled past them), then the log's end
            awk '/^\[err\]/ {show = 1; n = 0; print; next}
                 show && /^[ \t]/ && n < 25 {print; n++; next}
                 {show = 0}' "$log" | sed "s/^/  [$port] /"
            grep -vE '^\[ok\]|^(gcc|[a-z0-9_]+-linux-gnu[a-z]*-(gcc|ar))' "$log" | tail -n 60 | sed "s/^/  [$port] /"
        fi
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    rows+=("$(printf '%-9s %-8s %5ss  %s' "$port" "$canary" "$secs" "$line")")
    details+=("$(printf 'summary: %-8s lane %s %5s s  %s' "$port" "${lane_of[$port]:-?}" "$secs" "$line")")
done
echo
echo "port      canary     time  result"
printf '%s\n' "${rows[@]}"
# the same rows, with their lanes, for the final table of utils/run-suites.sh
printf '%s\n' "${details[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
