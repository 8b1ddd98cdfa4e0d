#!/usr/bin/env bash
# run-unit.sh BUILD_DIR -- run every C unit-test program in BUILD_DIR/tests,
# natively or under the port's emulator, after checking the alignment canary.
#
# Environment (set by the Makefile from ports/<name>/port.mk):
#   PORT, QEMU (emulator command, empty when native), TRAPS (yes when the
#   target must trap on unaligned access), SANITIZER, TIME_FACTOR.
# The programs see UNIT_UNDER_EMULATOR=yes when QEMU is set.
#
# The canary is a test like any other: on a trapping port it must die with
# SIGBUS, and under the alignment/undefined sanitizer it must be reported. A
# port that should trap and does not fails the run -- otherwise a green run
# would prove nothing. Each program's "N passed, N failed" line is summed; a
# program that crashes or prints no such line counts as a failure.
set -u
build=$1
: "${PORT:=native}" "${QEMU:=}" "${TRAPS:=no}" "${SANITIZER:=}" "${TIME_FACTOR:=1}"
limit=$((180 * TIME_FACTOR))
# A program may do less of a slow randomized check under an emulator
# (test_xfloat.c: QEMU's x87 is no hardware oracle).
UNIT_UNDER_EMULATOR=${QEMU:+yes}
export UNIT_UNDER_EMULATOR
passed=0; failed=0; skipped=0

run_canary() {
    local out status
    out=$(timeout "$limit" $QEMU "$build/tests/canary" 2>&1); status=$?
    if [ "$TRAPS" = yes ]; then
        if [ "$status" -eq 135 ]; then
            echo "[ok] canary: unaligned 64-bit load died with SIGBUS on $PORT (trap is live)"
            passed=$((passed + 1))
        else
            echo "[FAIL] canary: unaligned 64-bit load did not trap on $PORT (exit $status): the run would prove nothing"
            echo "$out" | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    elif [ "$SANITIZER" = alignment ] || [ "$SANITIZER" = undefined ] || [ "$SANITIZER" = address+undefined ]; then
        if [ "$status" -ne 0 ] && echo "$out" | grep -q "misaligned address"; then
            echo "[ok] canary: unaligned 64-bit load reported by the $SANITIZER sanitizer"
            passed=$((passed + 1))
        else
            echo "[FAIL] canary: the $SANITIZER sanitizer did not report the unaligned load (exit $status)"
            echo "$out" | sed 's/^/    /'
            failed=$((failed + 1))
        fi
    else
        echo "[skip] canary: $PORT does not trap on unaligned access and no alignment sanitizer is on (make SANITIZER=alignment test-unit checks it)"
        skipped=$((skipped + 1))
    fi
}

run_program() {
    local prog=$1 name out status line p f
    name=$(basename "$prog")
    out=$(timeout "$limit" $QEMU "$prog" 2>&1); status=$?
    line=$(echo "$out" | grep -E '^[0-9]+ passed, [0-9]+ failed$' | tail -n 1)
    if [ -z "$line" ]; then
        p=0; f=1
    else
        p=${line%% *}; f=$(echo "$line" | awk '{print $3}')
        [ "$status" -ne 0 ] && [ "$f" -eq 0 ] && f=1
    fi
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" -eq 0 ]; then
        printf '%-22s %s\n' "$name" "$line"
    else
        printf '%-22s FAILED (exit %s)\n' "$name" "$status"
        echo "$out" | grep -v '^\[ok\]' | tail -n 60 | sed 's/^/    /'
    fi
}

echo "== unit tests: $PORT${SANITIZER:+ sanitizer=$SANITIZER} ($build)${QEMU:+ under: $QEMU}"
run_canary
for prog in "$build"/tests/test_*; do
    [ -x "$prog" ] && [ "${prog%.o}" = "$prog" ] && [ "${prog%.d}" = "$prog" ] || continue
    run_program "$prog"
done
echo "$passed passed, $failed failed${skipped:+, $skipped skipped}"
[ "$failed" -eq 0 ]
