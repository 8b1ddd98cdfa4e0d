#!/usr/bin/env bash
# bench-acl.sh -- what ACL checks cost: GET and SET at -P 16 (-c 50) as the
# default user (no check: every key, channel and command allowed) and as a
# restricted user (ten key patterns, the matching one last, and a few
# categories), on this server and on a reference redis-server, in the same
# run.
#
# Servers pinned to one core, the load generator to the other
# (bench-lib.sh); the four cases (ours/reference x default/restricted) are
# measured alternately, ROUNDS times, best round kept. Besides req/s the
# table shows the server's CPU time per request (from /proc, so it does
# not depend on the load generator's speed), and the slowdown of the
# restricted user: restricted CPU per request over default's. The last
# line compares our slowdown with the reference's.
#
# Usage: utils/bench-acl.sh [-n REQUESTS] [-r ROUNDS] [--ours PATH] [--ref PATH]
#        [--tool REDIS-BENCHMARK]
set -u
cd "$(dirname "$0")/.." || exit 1

requests=400000; rounds=3; ours=src/redis-server; ref=/usr/bin/redis-server; tool=redis-benchmark
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --tool) tool=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v "$tool" >/dev/null || { echo "$tool missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init

# The restricted user: nine patterns that don't match redis-benchmark's
# "key:__rand_int__", then one that does; reads, writes and connection
# commands, nothing dangerous.
user_rules=(bench on '>benchpw')
for j in 1 2 3 4 5 6 7 8 9; do user_rules+=("~app$j:*"); done
user_rules+=('~key:*' -@all +@read +@write +@connection -@dangerous)

rps() { # port pipeline test [auth args...] -> requests per second
    local port=$1 pipeline=$2 t=$3
    shift 3
    taskset -c "$client_cpu" "$tool" -p "$port" "$@" -c 50 -n "$requests" -P "$pipeline" -t "$t" -q --csv 2>/dev/null |
        awk -F, -v t="$t" 'toupper($1) ~ "\"" toupper(t) { gsub(/"/, "", $2); print int($2); exit }'
}

measure() { # port pid test [auth args...] -> "req/s cpu-us-per-request"
    local port=$1 pid=$2 t=$3 before after r
    shift 3
    before=$(cpu_ticks "$pid")
    r=$(rps "$port" 16 "$t" "$@")
    after=$(cpu_ticks "$pid")
    awk -v r="${r:-0}" -v d=$((after - before)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
        'BEGIN { printf "%d %.3f\n", r, d * 1e6 / hz / n }'
}

start_with_user() { # binary -> "port pid"
    local port pid
    port=$(free_port)
    pid=$(start_server "$1" "$port" --user "${user_rules[@]}") || return 1
    echo "$port $pid"
}

read -r port_a pid_a < <(start_with_user "$ours") || exit 1
[ -n "$pid_a" ] || exit 1
port_b=""; pid_b=""
if [ -n "$ref" ]; then read -r port_b pid_b < <(start_with_user "$ref"); fi
auth=(--user bench -a benchpw)

echo "== ACL cost: $requests requests, -P 16, c=50, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu)"
echo "   restricted user: 10 key patterns (the matching one last), -@all +@read +@write +@connection -@dangerous"
printf "%-4s %-11s %10s %12s %10s %12s\n" test server "default" "cpu/req" restricted "cpu/req"
for t in set get; do
    for _ in $(seq 1 "$rounds"); do
        measure "$port_a" "$pid_a" "$t" >>"$tmp/a-$t-default"
        measure "$port_a" "$pid_a" "$t" "${auth[@]}" >>"$tmp/a-$t-user"
        if [ -n "$pid_b" ]; then
            measure "$port_b" "$pid_b" "$t" >>"$tmp/b-$t-default"
            measure "$port_b" "$pid_b" "$t" "${auth[@]}" >>"$tmp/b-$t-user"
        fi
    done
    for side in a b; do
        [ -f "$tmp/$side-$t-default" ] || continue
        name=ours; [ "$side" = b ] && name=reference
        rd=$(cut -d' ' -f1 "$tmp/$side-$t-default" | best); cd=$(cut -d' ' -f2 "$tmp/$side-$t-default" | sort -n | head -n 1)
        ru=$(cut -d' ' -f1 "$tmp/$side-$t-user" | best); cu=$(cut -d' ' -f2 "$tmp/$side-$t-user" | sort -n | head -n 1)
        printf "%-4s %-11s %10s %10sus %10s %10sus   restricted/default cpu: %s\n" "$t" "$name" "$rd" "$cd" "$ru" "$cu" \
            "$(ratio "$cu" "$cd")"
        echo "$(ratio "$cu" "$cd")" >"$tmp/slow-$side-$t"
    done
    if [ -f "$tmp/slow-b-$t" ]; then
        echo "$t: slowdown ours $(cat "$tmp/slow-a-$t")x, reference $(cat "$tmp/slow-b-$t")x"
    fi
done
stop_server "$pid_a"
[ -n "$pid_b" ] && stop_server "$pid_b"
exit 0
