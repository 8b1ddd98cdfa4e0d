#!/usr/bin/env bash
# demo-dead-canary.sh [PORT] -- shows that the unit-test runner fails a port
# whose unaligned-access trap is not live: it builds the port's canary with an
# aligned load (CANARY_OFFSET=0), which cannot trap, and runs the real runner
# (tests/c/run-unit.sh) on it. Expected: "[FAIL] canary ..." and exit 1.
set -u
cd "$(dirname "$0")/.." || exit 1
port=${1:-armv7}
. <(sed -n 's/^\(PORT_[A-Z_]*\) *:= *\(.*\)$/\1="\2"/p' "ports/$port/port.mk")
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
mkdir -p "$dir/tests"
"${PORT_CROSS}gcc" -std=gnu11 -O2 $PORT_CFLAGS $PORT_LDFLAGS -Isrc/lib -DCANARY_OFFSET=0 \
    tests/c/canary.c -o "$dir/tests/canary" || exit 2
PORT=$port QEMU="$PORT_QEMU" TRAPS=$PORT_TRAPS TIME_FACTOR=$PORT_TIME_FACTOR tests/c/run-unit.sh "$dir"
status=$?
echo "run-unit.sh exit status: $status (1 expected: the dead trap failed the run)"
[ "$status" -ne 0 ]
