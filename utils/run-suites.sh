#!/usr/bin/env bash
# run-suites.sh NAME COMMAND [NAME COMMAND ...] -- run test suites in turn and
# add up their "N passed, N failed" lines into one final line of the same form.
#
# A suite that ends without such a line (it crashed, or failed to build)
# counts as one failure, so nothing can pass by printing nothing. Each
# suite's wall-clock time is shown after its line (CI's stage budgets).
# A failed suite's [err]/[exception]/[FAIL] lines and its table rows
# ending in FAIL (the instruction gate's), with a few lines after each, are
# repeated at the end, so the tail of a long CI log says what failed. A
# suite's lines starting "summary: " (test-cross.sh's row per port) are
# repeated under its line in the final table, so the tail also says where
# a stage's time went.
set -u
total_pass=0; total_fail=0; summary=(); failures=(); all_start=$(date +%s)
while [ $# -ge 2 ]; do
    name=$1; cmd=$2; shift 2
    log=$(mktemp)
    start=$(date +%s)
    bash -c "$cmd" 2>&1 | tee "$log"
    status=${PIPESTATUS[0]}
    secs=$(( $(date +%s) - start ))
    line=$(grep -E '^[0-9]+ passed, [0-9]+ failed' "$log" | tail -n 1)
    if [ -z "$line" ]; then
        p=0; f=1; line="no result line (exit status $status)"
    else
        p=$(echo "$line" | awk '{print $1}'); f=$(echo "$line" | awk '{print $3}')
        [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    fi
    if [ "$f" -gt 0 ]; then
        failures+=("--- $name:")
        what=$(grep -E -A 4 '\[(err|exception|FAIL)\]|[ ]FAIL$' "$log" | head -n 40)
        [ -z "$what" ] && what=$(tail -n 10 "$log")
        failures+=("$what")
    fi
    total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
    summary+=("$(printf '  %-32s %-40s %5s s' "$name" "$line" "$secs")")
    while IFS= read -r detail; do summary+=("      ${detail#summary: }"); done < <(grep -E '^summary: ' "$log")
    rm -f "$log"
done
if [ ${#failures[@]} -gt 0 ]; then echo; echo "failures:"; printf '%s\n' "${failures[@]}"; fi
echo; echo "suites:"; printf '%s\n' "${summary[@]}"
printf '  %-73s %5s s\n' "all of the above" "$(( $(date +%s) - all_start ))"
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
