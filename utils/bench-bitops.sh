#!/usr/bin/env bash
# bench-bitops.sh -- bitmaps, HyperLogLog and Pub/Sub, this server against a
# reference redis-server side by side (issue 5's figures):
#   BITCOUNT of a 1 MB string, BITOP AND of two 1 MB strings,
#   PFADD (random elements) and PFCOUNT, PUBLISH to 10 subscribers.
# Each line: requests/s of ours, of the reference, and the ratio. Servers on
# cpu 0, redis-benchmark on cpu 1 (the subscribers, redis-cli processes that
# discard what they read, share cpu 1).
#
# Usage: utils/bench-bitops.sh [-n REQUESTS] [--ours PATH] [--ref PATH]
# Needs redis-benchmark and redis-cli (redis-tools).
set -u
cd "$(dirname "$0")/.." || exit 1

requests=20000; ours=src/redis-server; ref=/usr/bin/redis-server
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: only our figures" >&2; ref=""; }

. utils/bench-lib.sh
bench_init

bench() { # port args... -> rps
    local port=$1; shift
    taskset -c "$client_cpu" redis-benchmark -p "$port" -c 20 -n "$requests" -q --csv "$@" 2>/dev/null |
        awk -F, 'NR == 2 { gsub(/"/, "", $2); print int($2); exit }'
}

prepare() { # port: two 1 MB random strings and an HLL
    local port=$1
    head -c 1048576 /dev/urandom >"$tmp/a"
    head -c 1048576 /dev/urandom >"$tmp/b"
    redis-cli -p "$port" -x set bits:a <"$tmp/a" >/dev/null
    redis-cli -p "$port" -x set bits:b <"$tmp/b" >/dev/null
}

publish_rps() { # port
    local port=$1 subs=()
    for _ in $(seq 1 10); do
        taskset -c "$client_cpu" redis-cli -p "$port" subscribe news >/dev/null &
        subs+=($!)
    done
    for _ in $(seq 1 100); do
        [ "$(redis-cli -p "$port" pubsub numsub news | tail -1)" = 10 ] && break
        sleep 0.05
    done
    bench "$port" publish news hello-subscribers
    kill "${subs[@]}" 2>/dev/null
    wait "${subs[@]}" 2>/dev/null
}

measure() { # binary -> five figures
    local port pid
    port=$(free_port)
    pid=$(start_server "$1" "$port") || { echo "0 0 0 0 0"; return; }
    prepare "$port"
    local r1 r2 r3 r4 r5
    r1=$(bench "$port" bitcount bits:a)
    r2=$(bench "$port" bitop and bits:dst bits:a bits:b)
    r3=$(bench "$port" -r 1000000 pfadd hll __rand_int__)
    r4=$(bench "$port" pfcount hll)
    r5=$(publish_rps "$port")
    redis-cli -p "$port" shutdown nosave >/dev/null 2>&1
    wait "$pid" 2>/dev/null
    echo "$r1 $r2 $r3 $r4 $r5"
}

read -r o1 o2 o3 o4 o5 <<<"$(measure "$ours")"
if [ -n "$ref" ]; then read -r f1 f2 f3 f4 f5 <<<"$(measure "$ref")"; else f1=0 f2=0 f3=0 f4=0 f5=0; fi
echo "== $requests requests each, c=20 (requests/s)"
printf '%-30s %10s %10s %8s\n' test ours reference ratio
printf '%-30s %10s %10s %8s\n' "BITCOUNT 1 MB" "$o1" "$f1" "$(ratio "$o1" "$f1")"
printf '%-30s %10s %10s %8s\n' "BITOP AND 2 x 1 MB" "$o2" "$f2" "$(ratio "$o2" "$f2")"
printf '%-30s %10s %10s %8s\n' "PFADD random" "$o3" "$f3" "$(ratio "$o3" "$f3")"
printf '%-30s %10s %10s %8s\n' "PFCOUNT" "$o4" "$f4" "$(ratio "$o4" "$f4")"
printf '%-30s %10s %10s %8s\n' "PUBLISH to 10 subscribers" "$o5" "$f5" "$(ratio "$o5" "$f5")"
