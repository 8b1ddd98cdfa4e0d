#!/usr/bin/env bash
# bench-collections.sh -- the collection types, this server against a
# reference redis-server, side by side (the method of bench-server.sh).
#
# Throughput: redis-benchmark's LPUSH, RPOP, LRANGE_100, SADD, HSET, ZADD and
# SPOP tests at -P 1 and -P 16 (-c 50, -r 100000 so SADD/HSET/ZADD build
# big values), the servers pinned to one core and the load generator to the
# other. The two servers are measured alternately, ROUNDS times, each run
# on a freshly flushed server, and the best round of each is kept. RPOP
# runs after an LPUSH of the same count and SPOP after an SADD (in the
# same redis-benchmark call), so they pop real elements.
#
# Memory: used_memory added by loading N hashes of 10 fields each
# ("hash:NNNNNNNN" f0..f9 -> 8-byte values) and N sets of 10 integers each,
# loaded with redis-cli --pipe from generated RESP; both fit the compact
# encodings (listpack, intset) under the default thresholds. The encodings
# each server chose are printed with the figures.
#
# Usage: utils/bench-collections.sh [--quick] [-n REQUESTS] [-r ROUNDS]
#        [--keys N] [--ours PATH] [--ref PATH] [--tests a,b,c] [--no-memory]
#   --quick   50000 requests, 1 round, 20000 keys: about a minute
#   default   200000 requests, 3 rounds, 100000 keys: a few minutes
# The reference defaults to /usr/bin/redis-server (Debian's redis-server);
# without it only our figures are printed. redis-benchmark and redis-cli come
# from redis-tools. Figures are only meaningful on an otherwise idle machine.
set -u
cd "$(dirname "$0")/.." || exit 1

requests=200000; rounds=3; keys=100000; ours=src/redis-server; ref=/usr/bin/redis-server
memory=1; tests="lpush,rpop,lrange_100,sadd,hset,zadd,spop"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) requests=50000; rounds=1; keys=20000; shift ;;
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --keys) keys=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --no-memory) memory=0; shift ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
command -v redis-cli >/dev/null || { echo "redis-cli missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

# The redis-benchmark tests to run for one measured test: pops need a
# filled value first.
bench_tests() {
    case $1 in
        rpop) echo lpush,rpop ;;
        spop) echo sadd,spop ;;
        *) echo "$1" ;;
    esac
}

rps() { # port pipeline test -> requests per second of that test
    redis-cli -p "$1" flushall >/dev/null
    taskset -c $client_cpu redis-benchmark -p "$1" -c 50 -n "$requests" -r 100000 -P "$2" \
        -t "$(bench_tests "$3")" -q --csv 2>/dev/null |
        awk -F, -v t="$3" '{ name = toupper($1); gsub(/"/, "", name) }
            name == toupper(t) || index(name, toupper(t) " (") == 1 { gsub(/"/, "", $2); print int($2); exit }'
}

echo "== throughput: $requests requests, c=50, r=100000, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu)"
throughput_table "$ours" "$ref" "$tests" 11 || exit 1

[ "$memory" = 1 ] || exit 0

# RESP for N hashes of 10 fields with 8-byte values
gen_hashes() {
    awk -v n="$keys" 'BEGIN { for (i = 0; i < n; i++) {
        k = sprintf("hash:%08d", i); printf "*22\r\n$4\r\nHSET\r\n$%d\r\n%s\r\n", length(k), k
        for (f = 0; f < 10; f++) { v = sprintf("v%07d", (i * 10 + f) % 10000000)
            printf "$2\r\nf%d\r\n$8\r\n%s\r\n", f, v } } }'
}

# RESP for N sets of 10 integers each
gen_sets() {
    awk -v n="$keys" 'BEGIN { srand(42); for (i = 0; i < n; i++) {
        k = sprintf("set:%08d", i); printf "*12\r\n$4\r\nSADD\r\n$%d\r\n%s\r\n", length(k), k
        for (j = 0; j < 10; j++) { v = sprintf("%d", j * 1000 + int(rand() * 1000))
            printf "$%d\r\n%s\r\n", length(v), v } } }'
}
gen_hashes >"$tmp/hash.resp"
gen_sets >"$tmp/set.resp"

# measure LABEL BINARY: bytes per key for each data set, into $tmp/mem-LABEL-{hash,set}
measure_memory() {
    local port pid before after kind
    port=$(free_port); pid=$(start_server "$2" "$port") || return
    for kind in hash set; do
        redis-cli -p "$port" flushall >/dev/null
        before=$(used_memory "$port")
        redis-cli -p "$port" --pipe <"$tmp/$kind.resp" >/dev/null
        after=$(used_memory "$port")
        awk -v a="$after" -v b="$before" -v n="$keys" 'BEGIN { printf "%.1f\n", (a - b) / n }' >"$tmp/mem-$1-$kind"
        redis-cli -p "$port" object encoding "$kind:00000000" >"$tmp/enc-$1-$kind"
    done
    stop_server "$pid"
}

echo
echo "== memory: used_memory per key after loading $keys keys"
measure_memory ours "$ours"
[ -n "$ref" ] && measure_memory reference "$ref"
printf '%-30s %14s %14s %8s\n' "data set" ours reference ratio
for kind in hash set; do
    if [ $kind = hash ]; then label="$keys hashes of 10 fields"; else label="$keys sets of 10 ints"; fi
    a=$(cat "$tmp/mem-ours-$kind" 2>/dev/null); ea=$(cat "$tmp/enc-ours-$kind" 2>/dev/null)
    b="-"; eb=""; r="-"
    if [ -n "$ref" ]; then
        b=$(cat "$tmp/mem-reference-$kind" 2>/dev/null); eb=$(cat "$tmp/enc-reference-$kind" 2>/dev/null)
        r=$(ratio "${a:-0}" "${b:-0}")
    fi
    printf '%-30s %14s %14s %8s   (encodings: %s / %s)\n' "$label" "${a:--} B" "${b:--} B" "$r" "${ea:-?}" "${eb:--}"
done
