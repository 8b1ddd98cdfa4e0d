#!/usr/bin/env bash
# tests/c/pagesize-check.sh — does a binary cope with other kernel page sizes?
#
# Usage: tests/c/pagesize-check.sh BINARY [ARGS...]
#   e.g. tests/c/pagesize-check.sh src/redis-server --check-system
#
# Runs "BINARY ARGS..." with utils/pagesize-shim.c preloaded, which makes
# sysconf(_SC_PAGESIZE) and getpagesize() report FAKE_PAGESIZE:
#   4096, 16384, 65536  must start and exit 0 (x86, Raspberry Pi 5 and
#                       64K-page arm64/ppc64 kernels);
#   262144              must exit non-zero, not by a signal, with exactly one
#                       non-empty line on stderr that names the page size
#                       (262144, or 256K / 256 KiB).
# Before those, a probe program compiled here checks that the shim really
# changes what sysconf() and getpagesize() return, so a pass means something.
#
# Design decisions:
# - The binary must be dynamically linked: LD_PRELOAD cannot reach a static
#   one, and a check that cannot bite is reported as a failure, not a pass.
#   Do not run it on a sanitizer build either: ASan insists on being first in
#   the preload list.
# - Only page sizes >= the real one (4 KiB here) are faked; see the shim.
# - Each case has a time limit (PAGESIZE_CHECK_TIMEOUT seconds, default 60)
#   so a binary that hangs fails instead of blocking CI.
# - Output: one PASS/FAIL line per case, the failing case's output, then
#   "N passed, N failed"; the exit status is non-zero if anything failed.

set -u -o pipefail

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly SHIM_SOURCE="$SCRIPT_DIR/../../utils/pagesize-shim.c"
readonly CASE_TIMEOUT="${PAGESIZE_CHECK_TIMEOUT:-60}"
readonly SUPPORTED_SIZES=(4096 16384 65536)
readonly UNSUPPORTED_SIZE=262144
readonly UNSUPPORTED_SIZE_PATTERN='262144|256 ?K(i?B)?\b'

PASSED=0
FAILED=0

pass() { PASSED=$((PASSED + 1)); echo "PASS $*"; }
fail() { FAILED=$((FAILED + 1)); echo "FAIL $*"; }

finish() {
    echo "$PASSED passed, $FAILED failed"
    if [ "$FAILED" -eq 0 ]; then exit 0; fi
    exit 1
}

# show_output FILE LABEL: indent a captured stream under a failing case.
show_output() {
    [ -s "$1" ] || return 0
    echo "  $2:"
    head -n 20 "$1" | sed 's/^/    /'
}

# ---------------------------------------------------------------- setup

build_shim() {
    "${CC:-cc}" -std=gnu11 -O2 -Wall -Wextra -shared -fPIC \
        -o "$WORK_DIR/pagesize-shim.so" "$SHIM_SOURCE" -ldl \
        >"$WORK_DIR/shim-build.log" 2>&1
}

build_probe() {
    cat >"$WORK_DIR/probe.c" <<'EOF'
#include <stdio.h>
#include <unistd.h>
int main(void)
{
    printf("%ld %ld %d\n", sysconf(_SC_PAGESIZE), sysconf(_SC_PAGE_SIZE),
           getpagesize());
    return 0;
}
EOF
    "${CC:-cc}" -O2 -o "$WORK_DIR/probe" "$WORK_DIR/probe.c" \
        >>"$WORK_DIR/shim-build.log" 2>&1
}

is_dynamically_linked() {
    LC_ALL=C readelf -l "$1" 2>/dev/null | grep -q 'Requesting program interpreter'
}

# ---------------------------------------------------------------- cases

# run_faked SIZE CMD...: run with the shim, stdout/stderr to files; sets STATUS.
# The subshell keeps the shell's own "Segmentation fault" notice and any core
# file out of the way: the status already says how the program ended.
run_faked() {
    local size="$1"
    shift
    (
        ulimit -c 0
        FAKE_PAGESIZE="$size" \
            LD_PRELOAD="$WORK_DIR/pagesize-shim.so${LD_PRELOAD:+:$LD_PRELOAD}" \
            timeout "$CASE_TIMEOUT" "$@" </dev/null \
            >"$WORK_DIR/stdout" 2>"$WORK_DIR/stderr"
    ) 2>/dev/null
    STATUS=$?
}

check_shim_reaches_probe() {
    run_faked 16384 "$WORK_DIR/probe"
    local seen
    seen="$(cat "$WORK_DIR/stdout")"
    if [ "$STATUS" -eq 0 ] && [ "$seen" = "16384 16384 16384" ]; then
        pass "shim: sysconf(_SC_PAGESIZE), sysconf(_SC_PAGE_SIZE), getpagesize() report 16384"
    else
        fail "shim: probe saw '$seen' (exit $STATUS), expected '16384 16384 16384'"
    fi
}

describe_status() {
    case "$STATUS" in
        124) echo "timed out after ${CASE_TIMEOUT}s" ;;
        12[5-7]) echo "could not be run (exit $STATUS)" ;;
        *) if [ "$STATUS" -gt 128 ]; then
               echo "killed by signal $((STATUS - 128))"
           else
               echo "exit $STATUS"
           fi ;;
    esac
}

check_supported_size() {
    local size="$1"
    run_faked "$size" "${BINARY_AND_ARGS[@]}"
    if [ "$STATUS" -eq 0 ]; then
        pass "page size $size: starts and exits 0"
    else
        fail "page size $size: $(describe_status), expected exit 0"
        show_output "$WORK_DIR/stderr" stderr
        show_output "$WORK_DIR/stdout" stdout
    fi
}

# The refusal must be clean: a normal non-zero exit and one line that says why.
check_unsupported_size() {
    local size="$UNSUPPORTED_SIZE"
    run_faked "$size" "${BINARY_AND_ARGS[@]}"
    local lines problem=""
    lines="$(grep -c . "$WORK_DIR/stderr")"
    if [ "$STATUS" -eq 0 ]; then
        problem="exit 0, expected a refusal"
    elif [ "$STATUS" -gt 123 ]; then
        problem="$(describe_status), expected a clean non-zero exit"
    elif [ "$lines" -ne 1 ]; then
        problem="$lines lines on stderr, expected exactly 1"
    elif ! grep -qE "$UNSUPPORTED_SIZE_PATTERN" "$WORK_DIR/stderr"; then
        problem="the stderr line does not name the page size $size"
    fi
    if [ -z "$problem" ]; then
        pass "page size $size: refused (exit $STATUS): $(grep . "$WORK_DIR/stderr")"
    else
        fail "page size $size: $problem"
        show_output "$WORK_DIR/stderr" stderr
        show_output "$WORK_DIR/stdout" stdout
    fi
}

# ---------------------------------------------------------------- main

main() {
    if [ $# -lt 1 ]; then
        echo "usage: $0 BINARY [ARGS...]" >&2
        exit 2
    fi
    BINARY_AND_ARGS=("$@")
    WORK_DIR="$(mktemp -d "${TMPDIR:-/tmp}/pagesize-check.XXXXXX")" || exit 2
    trap 'rm -rf "$WORK_DIR"' EXIT

    echo "page-size check of: ${BINARY_AND_ARGS[*]}"
    if ! build_shim || ! build_probe; then
        fail "could not build the shim or the probe with ${CC:-cc}"
        show_output "$WORK_DIR/shim-build.log" "compiler output"
        finish
    fi
    check_shim_reaches_probe
    local binary
    binary="$(command -v "$1")"
    if [ -z "$binary" ] || ! is_dynamically_linked "$binary"; then
        fail "$1 is missing or not a dynamically linked ELF program; LD_PRELOAD cannot reach it"
        finish
    fi
    local size
    for size in "${SUPPORTED_SIZES[@]}"; do
        check_supported_size "$size"
    done
    check_unsupported_size
    finish
}

main "$@"
