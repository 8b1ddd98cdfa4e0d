#!/usr/bin/env bash
# bench-stream.sh -- streams, this server against a reference redis-server,
# side by side (the method of bench-collections.sh, through bench-lib.sh).
#
# Throughput, at -P 1 and -P 16 (-c 50), best of ROUNDS alternate runs,
# the servers pinned to one core and redis-benchmark to the other:
#   xadd           XADD bs MAXLEN ~ 10000 * f1 v1 f2 v2   (appends and trims whole nodes)
#   xrange_100     XRANGE xr - + COUNT 100                 (a 1000-entry stream)
#   xreadgroup_10  XREADGROUP GROUP g c COUNT 10 STREAMS xg >   (new entries, PEL kept)
# xreadgroup_10 runs REQUESTS/2 requests on a stream preloaded with 5 x
# REQUESTS entries (redis-cli --pipe), so every read finds 10 new entries.
#
# Memory: a stream of ENTRIES entries with three short fields (XADD big <id>
# a <i> b x<i%100> c y), loaded with redis-cli --pipe. The IDs are explicit,
# 37 entries per millisecond: with "*" the radix tree's shape depends on how
# fast the load ran (its node count varied by 5% between runs), which moved
# the figure by more than the difference being measured. Two figures:
# used_memory added by the load, and used_memory given back by DEL of the
# stream -- the stream's own bytes, without what the server keeps after its
# first connections and commands (not stream memory; it differs by a few KB
# between the two servers whatever the commands were).
#
# The load generator is Debian's redis-benchmark unless --bench names
# another (e.g. src/redis-benchmark, ours); both servers always get the
# same one. At -P 1 Debian's tool is the bottleneck on its core for
# xrange_100 (about 50 us of CPU to parse each 100-entry reply into
# objects, more than either server spends), so the two servers come out
# even whatever their speed; ours skips replies without building them
# (about 24 us a reply) and so measures the servers.
#
# Usage: utils/bench-stream.sh [--quick] [-n REQUESTS] [-r ROUNDS]
#        [--entries N] [--ours PATH] [--ref PATH] [--tests a,b,c] [--no-memory]
#        [--bench PATH]
#   --quick   50000 requests, 1 round, 200000 entries: about a minute
#   default   200000 requests, 3 rounds, 1000000 entries: a few minutes
# The reference defaults to /usr/bin/redis-server (Debian's redis-server);
# without it only our figures are printed. Figures are only meaningful on an
# otherwise idle machine.
set -u
cd "$(dirname "$0")/.." || exit 1

requests=200000; rounds=3; entries=1000000; ours=src/redis-server; ref=/usr/bin/redis-server
bench=redis-benchmark
memory=1; tests="xadd,xrange_100,xreadgroup_10"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) requests=50000; rounds=1; entries=200000; shift ;;
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --entries) entries=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --no-memory) memory=0; shift ;;
        --bench) bench=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v "$bench" >/dev/null || { echo "$bench missing (Debian's: apt-get install redis-tools)" >&2; exit 1; }
command -v redis-cli >/dev/null || { echo "redis-cli missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

gen_xadd_ids() { # count key -> RESP of XADD key <ms>-<seq> a i b x(i%100) c y, 37 a millisecond
    awk -v n="$1" -v k="$2" 'BEGIN { for (i = 1; i <= n; i++) {
        a = sprintf("%d", i); b = sprintf("x%d", i % 100)
        id = "17640" sprintf("%08d", int(i / 37)) "-" (i % 37) # as a string: awk may print %d in 32 bits
        printf "*9\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n$1\r\na\r\n$%d\r\n%s\r\n$1\r\nb\r\n$%d\r\n%s\r\n$1\r\nc\r\n$1\r\ny\r\n",
            length(k), k, length(id), id, length(a), a, length(b), b } }'
}

gen_xadd() { # count key -> RESP of XADD key * a i b x(i%100) c y
    awk -v n="$1" -v k="$2" 'BEGIN { for (i = 1; i <= n; i++) {
        a = sprintf("%d", i); b = sprintf("x%d", i % 100)
        printf "*9\r\n$4\r\nXADD\r\n$%d\r\n%s\r\n$1\r\n*\r\n$1\r\na\r\n$%d\r\n%s\r\n$1\r\nb\r\n$%d\r\n%s\r\n$1\r\nc\r\n$1\r\ny\r\n",
            length(k), k, length(a), a, length(b), b } }'
}
gen_xadd 1000 xr >"$tmp/xrange.resp"
gen_xadd $((requests * 5)) xg >"$tmp/xreadgroup.resp"

setup() { # port test: a flushed server with what the test reads
    redis-cli -p "$1" flushall >/dev/null
    case $2 in
        xrange_100) redis-cli -p "$1" --pipe <"$tmp/xrange.resp" >/dev/null ;;
        xreadgroup_10)
            redis-cli -p "$1" --pipe <"$tmp/xreadgroup.resp" >/dev/null
            redis-cli -p "$1" xgroup create xg g 0 >/dev/null ;;
    esac
}

command_of() { # test -> the command line redis-benchmark sends
    case $1 in
        xadd) echo "XADD bs MAXLEN ~ 10000 * f1 v1 f2 v2" ;;
        xrange_100) echo "XRANGE xr - + COUNT 100" ;;
        xreadgroup_10) echo "XREADGROUP GROUP g c COUNT 10 STREAMS xg >" ;;
    esac
}

rps() { # port pipeline test -> requests per second of that test
    local n=$requests
    [ "$3" = xreadgroup_10 ] && n=$((requests / 2))
    setup "$1" "$3"
    # shellcheck disable=SC2046  # the command's words
    taskset -c $client_cpu "$bench" -p "$1" -c 50 -n "$n" -P "$2" -q --csv $(command_of "$3") 2>/dev/null |
        awk -F, 'NR == 2 { gsub(/"/, "", $2); print int($2); exit }'
}

set -f # the commands' "*" and ">" are words, not globs
echo "== throughput: $requests requests (xreadgroup_10: $((requests / 2))), c=50, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu), load generator $bench"
throughput_table "$ours" "$ref" "$tests" 14 || exit 1
set +f

[ "$memory" = 1 ] || exit 0

gen_xadd_ids "$entries" big >"$tmp/big.resp"

measure_memory() { # label binary -> "added freed bytes-per-entry" into $tmp/mem-label
    local port pid before after deleted
    port=$(free_port); pid=$(start_server "$2" "$port") || return
    before=$(used_memory "$port")
    redis-cli -p "$port" --pipe <"$tmp/big.resp" >/dev/null
    after=$(used_memory "$port")
    redis-cli -p "$port" del big >/dev/null
    deleted=$(used_memory "$port")
    awk -v a="$after" -v b="$before" -v d="$deleted" -v n="$entries" \
        'BEGIN { printf "%d %d %.2f\n", a - b, a - d, (a - d) / n }' >"$tmp/mem-$1"
    stop_server "$pid"
}

ratio4() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0) printf "%.4f", a / b; else printf "-" }'; }

echo
echo "== memory: one stream of $entries entries (three short fields, explicit IDs)"
measure_memory ours "$ours"
[ -n "$ref" ] && measure_memory reference "$ref"
read -r a fa pa <"$tmp/mem-ours"
b="-"; fb="-"; pb="-"; r="-"; fr="-"
if [ -n "$ref" ]; then
    read -r b fb pb <"$tmp/mem-reference"
    r=$(ratio4 "$a" "$b"); fr=$(ratio4 "$fa" "$fb")
fi
printf '%-22s %14s %14s %8s\n' "" ours reference ratio
printf '%-22s %14s %14s %8s\n' "added by the load" "$a" "$b" "$r"
printf '%-22s %14s %14s %8s\n' "freed by DEL (stream)" "$fa" "$fb" "$fr"
printf '%-22s %14s %14s\n' "stream per entry" "$pa" "$pb"
