#!/usr/bin/env bash
# bench-replication.sh -- replication against Redis, side by side:
#  1. the full sync of KEYS small keys (DEBUG POPULATE): primary and replica
#     both ours, then both Redis; the time from REPLICAOF to
#     master_link_status:up on the replica; then ours again with the primary
#     in persistence-mode forkless (the RDB written in slices, through the
#     disk), against the same Redis figure;
#  2. a primary's SET throughput (redis-benchmark -P 16) with no replica and
#     with one replica attached, ours and Redis.
# Servers are pinned to one core, the client to the other (bench-lib.sh).
# Run once; it prints the figures and the ratios ours/Redis.
#
#   utils/bench-replication.sh [ours-binary] [redis-binary]
#   KEYS=1000000 REQUESTS=1000000 utils/bench-replication.sh
set -u
. "$(dirname "$0")/bench-lib.sh"

ours=${1:-src/redis-server}
ref=${2:-/usr/bin/redis-server}
keys=${KEYS:-1000000}
requests=${REQUESTS:-1000000}
bench=${BENCH:-redis-benchmark}
bench_init
started=()

launch() { # binary port args... -> pid
    local pid
    pid=$(start_server "$@" --repl-diskless-sync-delay 0 --enable-debug-command yes) || exit 1
    started+=("$pid")
    echo "$pid"
}

stop_all() {
    for p in "${started[@]}"; do stop_server "$p"; done
    started=()
}
trap 'stop_all; bench_cleanup' EXIT

now_ms() { date +%s%3N; }

wait_link_up() { # port
    until redis-cli -p "$1" info replication | grep -q 'master_link_status:up'; do sleep 0.02; done
}

full_sync_ms() { # binary [primary args...] -> ms
    local bin=$1 p1 p2 t0
    shift
    p1=$(free_port)
    launch "$bin" "$p1" --dir "$tmp" --dbfilename p.rdb "$@" >/dev/null
    p2=$(free_port)
    mkdir -p "$tmp/r"
    launch "$bin" "$p2" --dir "$tmp/r" >/dev/null
    redis-cli -p "$p1" debug populate "$keys" >/dev/null
    t0=$(now_ms)
    redis-cli -p "$p2" replicaof 127.0.0.1 "$p1" >/dev/null
    wait_link_up "$p2"
    echo $(($(now_ms) - t0))
    stop_all
}

set_rps() { # binary with-replica -> requests per second
    local bin=$1 with=$2 p1 p2 rps
    p1=$(free_port)
    launch "$bin" "$p1" >/dev/null
    if [ "$with" = 1 ]; then
        p2=$(free_port)
        mkdir -p "$tmp/r2"
        launch "$bin" "$p2" --dir "$tmp/r2" >/dev/null
        redis-cli -p "$p2" replicaof 127.0.0.1 "$p1" >/dev/null
        wait_link_up "$p2"
    fi
    rps=$(taskset -c "$client_cpu" "$bench" -p "$p1" -t set -P 16 -n "$requests" -r 100000 -q 2>/dev/null |
        tr '\r' '\n' | awk '/^SET:/ {print $2}' | tail -1)
    echo "${rps:-0}"
    stop_all
}

printf '%-40s %14s %14s %8s\n' "" ours redis ratio
o=$(full_sync_ms "$ours"); r=$(full_sync_ms "$ref")
printf '%-40s %12sms %12sms %8s\n' "full sync of $keys keys" "$o" "$r" "$(ratio "$o" "$r")"
of=$(full_sync_ms "$ours" --persistence-mode forkless)
printf '%-40s %12sms %12sms %8s\n' "the same, our primary forkless" "$of" "$r" "$(ratio "$of" "$r")"
o0=$(set_rps "$ours" 0); r0=$(set_rps "$ref" 0)
printf '%-40s %14s %14s %8s\n' "SET -P 16, no replica (req/s)" "$o0" "$r0" "$(ratio "$o0" "$r0")"
o1=$(set_rps "$ours" 1); r1=$(set_rps "$ref" 1)
printf '%-40s %14s %14s %8s\n' "SET -P 16, one replica (req/s)" "$o1" "$r1" "$(ratio "$o1" "$r1")"
printf '%-40s %14s %14s\n' "with replica / without" "$(ratio "$o1" "$o0")" "$(ratio "$r1" "$r0")"
