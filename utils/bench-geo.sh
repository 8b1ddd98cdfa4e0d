#!/usr/bin/env bash
# bench-geo.sh -- GEOSEARCH over a large geo set, this server against a
# reference redis-server, side by side (the method of bench-collections.sh,
# with its helpers from bench-lib.sh).
#
# Data: KEYS members (default 100000) named m000000000000 ... spread
# uniformly (a fixed seed) over a 10 x 8 degree area of central Europe,
# about 0.16 members per square km, loaded once into each server with
# redis-cli --pipe (GEOADD, 100 members a command). Both servers hold the
# set as a skiplist.
#
# Queries, each centred on a random member (redis-benchmark's -r fills in
# the member name), so every request walks different cells:
#   radius_5km        GEOSEARCH ... BYRADIUS 5 km              (~12 results)
#   radius_50km       GEOSEARCH ... BYRADIUS 50 km             (~1200 results)
#   radius_50km_c10   GEOSEARCH ... BYRADIUS 50 km ASC COUNT 10 WITHDIST
#   box_40km          GEOSEARCH ... BYBOX 40 40 km WITHCOORD   (~250 results)
# at -P 1 and -P 16, -c 50. The two servers are measured alternately,
# ROUNDS times, the best round of each kept; the server is pinned to one
# core and the load generator to the other; the table also gives the
# server's CPU time per request (from /proc), the fairer figure when the
# load generator is the bottleneck.
#
# Usage: utils/bench-geo.sh [--quick] [-n REQUESTS] [-r ROUNDS] [--keys N]
#        [--ours PATH] [--ref PATH] [--tests a,b,c]
#   --quick   5000 requests, 1 round: about a minute
#   default   20000 requests, 3 rounds
# The reference defaults to /usr/bin/redis-server (Debian's redis-server);
# without it only our figures are printed. redis-benchmark and redis-cli come
# from redis-tools. Figures are only meaningful on an otherwise idle machine.
set -u
cd "$(dirname "$0")/.." || exit 1

requests=20000; rounds=3; keys=100000; ours=src/redis-server; ref=/usr/bin/redis-server
tests="radius_5km,radius_50km,radius_50km_c10,box_40km"
while [ $# -gt 0 ]; do
    case $1 in
        --quick) requests=5000; rounds=1; shift ;;
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --keys) keys=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
command -v redis-cli >/dev/null || { echo "redis-cli missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

# RESP for the data set: GEOADD geo lon lat m%012d, 100 members a command.
gen_points() {
    awk -v n="$keys" 'BEGIN { srand(42)
        for (i = 0; i < n; i += 100) {
            m = (n - i < 100) ? n - i : 100
            printf "*%d\r\n$6\r\nGEOADD\r\n$3\r\ngeo\r\n", 2 + 3 * m
            for (j = 0; j < m; j++) {
                lon = sprintf("%.6f", 5 + rand() * 10); lat = sprintf("%.6f", 46 + rand() * 8)
                name = sprintf("m%012d", i + j)
                printf "$%d\r\n%s\r\n$%d\r\n%s\r\n$%d\r\n%s\r\n", length(lon), lon, length(lat), lat, length(name), name
            } } }'
}
gen_points >"$tmp/geo.resp"

# The set is loaded once per server (the first time a port is measured).
ensure_loaded() {
    [ "$(redis-cli -p "$1" zcard geo)" = "$keys" ] && return
    redis-cli -p "$1" flushall >/dev/null
    redis-cli -p "$1" --pipe <"$tmp/geo.resp" >/dev/null
}

query() { # test -> the GEOSEARCH arguments
    local from="geo FROMMEMBER m__rand_int__"
    case $1 in
        radius_5km) echo "GEOSEARCH $from BYRADIUS 5 km" ;;
        radius_50km) echo "GEOSEARCH $from BYRADIUS 50 km" ;;
        radius_50km_c10) echo "GEOSEARCH $from BYRADIUS 50 km ASC COUNT 10 WITHDIST" ;;
        box_40km) echo "GEOSEARCH $from BYBOX 40 40 km WITHCOORD" ;;
        *) echo "unknown test $1" >&2; return 1 ;;
    esac
}

rps() { # port pipeline test -> requests per second of that query
    local q
    ensure_loaded "$1"
    q=$(query "$3") || return
    # shellcheck disable=SC2086  # the query is a word list
    taskset -c $client_cpu redis-benchmark -p "$1" -c 50 -n "$requests" -r "$keys" -P "$2" -q --csv $q 2>/dev/null |
        awk -F, 'NR == 1 && $1 ~ /test/ { next } { gsub(/"/, "", $2); print int($2); exit }'
}

echo "== GEOSEARCH over $keys members: $requests requests, c=50, best of $rounds rounds" \
     "(server on cpu $server_cpu, client on cpu $client_cpu)"
throughput_table "$ours" "$ref" "$tests" 16 || exit 1
