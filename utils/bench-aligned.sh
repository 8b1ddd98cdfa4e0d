#!/usr/bin/env bash
# bench-aligned.sh -- run utils/bench_core.c from the default build and from
# the ALIGNED_ACCESS=yes build side by side (three rounds each, interleaved,
# pinned to one core) and print the aligned/default ratio of the best round
# of each measurement. The forced aligned path should cost at most 10%.
set -u
cd "$(dirname "$0")/.." || exit 1
make --no-print-directory MALLOC=${MALLOC:-jemalloc} build-bench >/dev/null || exit 1
make --no-print-directory MALLOC=${MALLOC:-jemalloc} ALIGNED_ACCESS=yes build-bench >/dev/null || exit 1
suffix=$([ "${MALLOC:-jemalloc}" = libc ] && echo -libc)
default=build/native$suffix/tests/bench_core
aligned=build/native$suffix-aligned/tests/bench_core
pin=""; command -v taskset >/dev/null && pin="taskset -c ${BENCH_CPU:-1}"
tmp=$(mktemp -d)
for round in 1 2 3; do
    $pin "$default" >"$tmp/default.$round"
    $pin "$aligned" >"$tmp/aligned.$round"
done
best() { # best (highest) figure for a measurement across rounds
    grep -h "^$2 " "$tmp"/"$1".* | cut -c29- | awk '{print $1}' | sort -g | tail -n 1
}
printf '%-28s %12s %12s %8s\n' measurement default aligned ratio
grep -E '^(siphash|dict)' "$tmp/default.1" | cut -c1-28 | sed 's/ *$//' | while read -r name; do
    d=$(best default "$name"); a=$(best aligned "$name")
    unit=$(grep -h "^$name " "$tmp/default.1" | awk '{for(i=1;i<=NF;i++) if ($i ~ /\/s$/) {print $i; exit}}')
    printf '%-28s %12s %12s %8.3f  (%s, higher is better)\n' "$name" "$d" "$a" "$(awk -v a="$a" -v d="$d" 'BEGIN{print a/d}')" "$unit"
done
rm -rf "$tmp"
