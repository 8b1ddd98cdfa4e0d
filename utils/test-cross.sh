#!/usr/bin/env bash
# test-cross.sh PORT... -- cross-build each port and run its tests under QEMU
# (via `make PORT=<p> test`: the C unit tests with the alignment canary, then
# the Tcl integration suite with the server emulated), then print one table
# and the overall "N passed, N failed" line. TARGET=test-unit runs the unit
# tests only.
#
# Extra make variables (e.g. MALLOC=libc) can be passed in MAKEFLAGS_EXTRA.
# A port whose build fails, or whose run prints no result line, counts as one
# failure; nothing is skipped silently.
set -u
cd "$(dirname "$0")/.." || exit 1
total_pass=0; total_fail=0; rows=()
for port in "$@"; do
    log=build/test-cross-$port.log
    mkdir -p build
    start=$(date +%s)
    make --no-print-directory PORT="$port" ${MAKEFLAGS_EXTRA:-} "${TARGET:-test}" >"$log" 2>&1
    status=$?
    secs=$(( $(date +%s) - start ))
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    case $(grep -oE '^\[(ok|FAIL|skip)\] canary' "$log" | head -n 1) in
        "[ok] canary") canary=trapped ;;
        "[FAIL] canary") canary=NO-TRAP ;;
        "[skip] canary") canary=n/a ;;
        *) canary=- ;;
    esac
    if [ -z "$line" ]; then
        p=0; f=1; line="build or run failed (exit $status)"
        tail -n 40 "$log" | sed "s/^/  [$port] /"
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
done
echo
echo "port      canary     time  result"
printf '%s\n' "${rows[@]}"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
