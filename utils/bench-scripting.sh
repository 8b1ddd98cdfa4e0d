#!/usr/bin/env bash
# bench-scripting.sh -- EVALSHA throughput, this server against a reference
# redis-server in the same run.
#
# Two scripts, loaded with SCRIPT LOAD on both servers and run with
# redis-benchmark's EVALSHA (-c 50) at -P 1 and -P 16:
#   incr   return redis.call('INCR', KEYS[1])              (one command per call)
#   ten    ten redis.call('INCR', KEYS[1]) in a loop         (the redis.call path)
# The servers are pinned to one core and the load generator to the other
# (utils/bench-lib.sh), measured alternately, ROUNDS times, best round kept;
# the table also shows each server's CPU time per request and
# reference/ours of it (the capacity ratio when the client is the limit).
#
# Usage: utils/bench-scripting.sh [-n REQUESTS] [-r ROUNDS] [--ours PATH] [--ref PATH]
#        [--wrapper "qemu-arm-static -cpu cortex-a7"] [--tool REDIS-BENCHMARK]
# The reference defaults to /usr/bin/redis-server (Debian's redis-server);
# without it only our figures are printed.
set -u
cd "$(dirname "$0")/.." || exit 1

requests=200000; rounds=3; ours=src/redis-server; ref=/usr/bin/redis-server; wrapper=""; tool=redis-benchmark
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --wrapper) wrapper=$2; shift 2 ;;
        --tool) tool=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

script_incr="return redis.call('INCR', KEYS[1])"
script_ten="local v for i = 1, 10 do v = redis.call('INCR', KEYS[1]) end return v"

script_of() { if [ "$1" = incr ]; then echo "$script_incr"; else echo "$script_ten"; fi; }

rps() { # port pipeline test -> requests per second
    local sha
    sha=$(redis-cli -p "$1" script load "$(script_of "$3")")
    taskset -c $client_cpu "$tool" -p "$1" -c 50 -n "$requests" -P "$2" -q --csv evalsha "$sha" 1 counter 2>/dev/null |
        awk -F, 'NR == 2 { gsub(/"/, "", $2); print int($2); exit }'
}

echo "== EVALSHA throughput: $requests requests, c=50, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu)${wrapper:+, server under: $wrapper}"
echo "   incr: $script_incr"
echo "   ten:  $script_ten"
throughput_table "$ours" "$ref" "incr,ten" 6
