#!/usr/bin/env bash
# redis-suite-units.sh -- every unit of Redis 7.0's own test suite (its
# `all_tests` list, in tests/test_helper.tcl) in the suite's own mode, one
# unit per harness run, with a table per unit and one "N passed, N failed"
# line at the end. Optionally the same units against Debian's Redis 7.0 in
# the same run, so the counts are compared side by side.
#
# Usage: utils/redis-suite-units.sh [--jobs N] [--with-redis] [--baseport P]
#                                   [--timeout S] [--ours DIR] [--modules] [UNIT ...]
#   UNIT: units to run (default: the whole all_tests list).
#   --modules: the module API units instead (unit/moduleapi/*, the list
#     Redis's runtest-moduleapi runs), with Redis's own test modules built
#     from the same tarball's tests/modules against its redismodule.h.
#   --jobs N: units run N at a time (each its own harness, own port range).
#   --with-redis: also run each unit against /usr/bin/redis-server.
#   --timeout S: a unit still running after S seconds is stopped, counted
#     as one failure ("timeout") and the next one starts (default 900).
#   --ours DIR: our binaries (default src/). A long run should get a copy,
#     so a rebuild during the run does not change the server under test.
#
# Why one unit per harness run: an exception in a test (a lost connection,
# an unexpected error reply) ends Redis's runner for every unit after it,
# so one fault would hide the rest of the suite.
#
# Deliberate differences are listed in utils/redis-suite-differences.txt
# (one per line: UNIT, a TAB, the test's name as the runner prints it or
# `*` for the whole unit, a TAB, the reason). A failing test listed there
# is counted as "differs" instead of failed; a listed unit is not run.
# A listed test whose reason starts with "(skipped)" is one that stops
# Redis's runner for the rest of its file when we differ (an error reply it
# does not catch): it is passed to the runner as --skiptest, so the tests
# after it still run, and counted as "differs".
# Every other failure counts, an exception or a timeout as one failure.
set -u
cd "$(dirname "$0")/.." || exit 1
jobs=1; with_redis=0; baseport=34100; unit_timeout=900; units=(); ours=$(pwd)/src; modules=0
while [ $# -gt 0 ]; do
    case $1 in
        --jobs) jobs=$2; shift 2 ;;
        --with-redis) with_redis=1; shift ;;
        --baseport) baseport=$2; shift 2 ;;
        --timeout) unit_timeout=$2; shift 2 ;;
        --ours) ours=$(cd "$2" && pwd) || exit 1; shift 2 ;;
        --modules) modules=1; shift ;;
        -h|--help) sed -n '2,30p' "$0"; exit 0 ;;
        *) units+=("$1"); shift ;;
    esac
done
differences=utils/redis-suite-differences.txt
out=build/redis-suite-units/logs
rm -rf "$out" && mkdir -p "$out"

# One unpacked suite per job slot and set of binaries: Redis's runner
# empties its tests/tmp when it starts, so two runs must not share one.
setup() { # DIR BINDIR
    REDIS_SUITE_DIR=$1 REDIS_SUITE_BINDIR=$2 REDIS_SUITE_SETUP_ONLY=1 utils/redis-suite.sh || exit 1
    if [ $modules = 1 ]; then
        env -u MAKEFLAGS make -C "$1/tests/modules" -j2 >"$1/modules-build.log" 2>&1 ||
            { tail -n 20 "$1/modules-build.log" >&2; echo "Redis's test modules did not build" >&2; exit 1; }
    fi
}
for ((s = 0; s < jobs; s++)); do
    setup "build/redis-suite-units/suite-ours-$s" "$ours"
    [ $with_redis = 1 ] && setup "build/redis-suite-units/suite-redis-$s" /usr/bin
done

if [ ${#units[@]} -eq 0 ] && [ $modules = 1 ]; then
    mapfile -t units < <(grep -oE 'unit/moduleapi/[a-z0-9_]+' build/redis-suite-units/suite-ours-0/runtest-moduleapi)
elif [ ${#units[@]} -eq 0 ]; then
    mapfile -t units < <(sed -n '/^set ::all_tests {/,/^}/p' build/redis-suite-units/suite-ours-0/tests/test_helper.tcl |
                         grep -E '^\s+[a-z]' | tr -d ' \t')
fi

# is_listed UNIT NAME: the test (or `*`, the unit) is a listed difference.
is_listed() {
    [ -f "$differences" ] || return 1
    awk -F'\t' -v u="$1" -v t="$2" '$1 == u && $2 == t {found = 1} END {exit !found}' "$differences"
}

# skipped_tests UNIT: the names of its "(skipped)" differences, one a line.
skipped_tests() {
    [ -f "$differences" ] || return 0
    awk -F'\t' -v u="$1" '$1 == u && $2 != "*" && index($3, "(skipped)") == 1 {print $2}' "$differences"
}

# broken LOG: the harness run of LOG ended without a verdict on its tests
# (an exception, a timeout, or a non-zero exit with no [err] line).
broken() {
    local log=$1 status
    status=$(cat "$log.status" 2>/dev/null || echo 1)
    grep -q '^\[exception\]' "$log" && return 0
    [ "$status" = 124 ] || [ "$status" = 137 ] && return 0
    [ "$status" != 0 ] && ! grep -q '^\[err\]' "$log"
}

# run_unit KIND UNIT SLOT: one harness run, its output in $out/KIND/UNIT.log.
# A run that broke (see broken) is run once more: the harness, not a test,
# is then what failed (a port taken between its check and the server's
# bind, a lost connection), and one such event must not hide the unit. The
# first run is kept as UNIT.log.first and the table says it was retried,
# with the first run's exception, so a real fault stays visible.
run_unit() {
    local kind=$1 unit=$2 slot=$3 dir=build/redis-suite-units/suite-$1-$3 log attempt
    log="$out/$kind/$unit.log"; mkdir -p "$(dirname "$log")"
    # Each slot owns 300 ports from baseport + 300 x slot: Redis's runner
    # puts its own test server in the 32 ports below --baseport, so the
    # servers' 200 start 40 in (with 200 apart, slot 1's test server port
    # was in slot 0's server range, and a port checked free by one runner
    # could be bound by the other's server before it was used).
    local port=$((baseport + slot * 300 + 40)) skip_args=() name
    while IFS= read -r name; do skip_args+=(--skiptest "$name"); done < <(skipped_tests "$unit")
    for attempt in 1 2; do
        ( cd "$dir" && TERM=dumb timeout -k 10 "$unit_timeout" ./runtest --clients 1 --single "$unit" \
            --baseport "$port" --portcount 200 --timeout 600 "${skip_args[@]}" ) >"$log" 2>&1 </dev/null
        echo $? >"$log.status"
        if [ $attempt = 1 ] && broken "$log"; then
            mv "$log" "$log.first"; mv "$log.status" "$log.first.status"
            continue
        fi
        break
    done
}

# Schedule every (kind, unit) pair, JOBS at a time, each job its own slot.
pairs=()
for u in "${units[@]}"; do
    is_listed "$u" '*' && continue
    pairs+=("ours $u"); [ $with_redis = 1 ] && pairs+=("redis $u")
done
declare -A slot_pid=()
for pair in "${pairs[@]}"; do
    while :; do
        for ((s = 0; s < jobs; s++)); do
            pid=${slot_pid[$s]:-}
            if [ -z "$pid" ] || ! kill -0 "$pid" 2>/dev/null; then break 2; fi
        done
        sleep 1
    done
    # shellcheck disable=SC2086
    run_unit $pair "$s" &
    slot_pid[$s]=$!
done
wait

# count KIND UNIT: "ok err differs status" for one log.
count() {
    local log="$out/$1/$2.log" ok err=0 differs=0 name
    ok=$(grep -c '^\[ok\]:' "$log" 2>/dev/null); ok=${ok:-0}
    while IFS= read -r name; do
        if is_listed "$2" "$name"; then differs=$((differs + 1)); else err=$((err + 1)); fi
    done < <(grep -E '^\[err\]:' "$log" 2>/dev/null | sed -E 's/^\[err\]: //; s/ in tests\/.*$//')
    while IFS= read -r name; do # a "(skipped)" difference the runner skipped
        grep -qxF "[skip]: $name" "$log" 2>/dev/null && differs=$((differs + 1))
    done < <(skipped_tests "$2")
    local status; status=$(cat "$log.status" 2>/dev/null || echo 1)
    local note=""
    if grep -q '^\[exception\]' "$log"; then err=$((err + 1)); note=exception
    elif [ "$status" = 124 ] || [ "$status" = 137 ]; then err=$((err + 1)); note=timeout
    elif [ "$status" != 0 ] && [ "$err" = 0 ] && [ "$differs" = 0 ]; then err=$((err + 1)); note="exit $status"
    fi
    echo "$ok $err $differs ${note:--}"
}

passed=0; failed=0; differs_total=0
printf '%-40s %18s' "unit" "ours ok/err/diff"
[ $with_redis = 1 ] && printf ' %18s' "redis 7.0 ok/err"
echo
for u in "${units[@]}"; do
    if is_listed "$u" '*'; then
        printf '%-40s %18s  %s\n' "$u" "not run" "$(awk -F'\t' -v u="$u" '$1 == u && $2 == "*" {print $3}' "$differences")"
        continue
    fi
    read -r ok err dif note < <(count ours "$u")
    passed=$((passed + ok)); failed=$((failed + err)); differs_total=$((differs_total + dif))
    printf '%-40s %18s' "$u" "$ok/$err/$dif"
    if [ $with_redis = 1 ]; then
        read -r rok rerr _ rnote < <(count redis "$u")
        printf ' %18s' "$rok/$rerr"
        [ "$rnote" != - ] && printf ' (%s)' "$rnote"
    fi
    [ "$note" != - ] && printf '  %s' "$note"
    [ -f "$out/ours/$u.log.first" ] && printf '  (run twice: the first run broke, exit %s)' "$(cat "$out/ours/$u.log.first.status")"
    echo
    # what went wrong, with the lines an exception's message spans
    for l in "$out/ours/$u.log.first" "$out/ours/$u.log"; do
        [ -f "$l" ] || continue
        [ "$l" = "$out/ours/$u.log.first" ] && echo "    first run:"
        grep -E -A 6 '^\[(err|exception)\]' "$l" 2>/dev/null | sed 's/^/    /' | head -n 20
        if ! grep -q -E '^\[(ok|err|exception)\]' "$l"; then tail -n 5 "$l" | sed 's/^/    | /'; fi
    done
done
echo "logs: $out/"
echo "$differs_total tests differ on purpose (utils/redis-suite-differences.txt)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
