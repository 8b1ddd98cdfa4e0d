#!/usr/bin/env bash
# bench-cluster.sh -- a 6-node cluster of ours beside one of Redis 7.0's, same
# shape, same machine, same run (issue #31's benchmark):
#   1. redis-benchmark --cluster SET and GET at -P 1 and -P 16 (Debian's
#      tool against both, -c 50, keys from 100k names): requests per second,
#      the median of ROUNDS rounds that alternate between the two clusters;
#   2. the CPU the 6 idle nodes spend on the bus (utime + stime from
#      /proc over IDLE seconds, both clusters measured over the same window);
#   3. the time from kill -9 of a primary to cluster_state:ok again on the
#      other primaries (its replica elected), with the same
#      cluster-node-timeout (TIMEOUT ms).
# Memory per key in cluster mode is utils/bench-cluster-memory.sh's.
#
#   utils/bench-cluster.sh [--ours BIN] [--ref BIN] [--rounds N] [-n REQUESTS]
#                          [--idle SECONDS] [--timeout MS] [--baseport P]
#
# Every node listens on 127.0.0.1 only and is stopped by its PID at the
# end (a trap), whatever happens. Ratios are ours / Redis's: above 1 is
# better for requests per second, below 1 better for CPU and failover time.
set -u
cd "$(dirname "$0")/.." || exit 1
OURS=src/redis-server REF=/usr/bin/redis-server ROUNDS=3 N=100000 IDLE=20 TIMEOUT=2000 BASE=46100
while [ $# -gt 0 ]; do
    case $1 in
        --ours) OURS=$2; shift 2 ;;
        --ref) REF=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        -n) N=$2; shift 2 ;;
        --idle) IDLE=$2; shift 2 ;;
        --timeout) TIMEOUT=$2; shift 2 ;;
        --baseport) BASE=$2; shift 2 ;;
        *) echo "usage: $0 [--ours BIN] [--ref BIN] [--rounds N] [-n REQUESTS] [--idle S] [--timeout MS] [--baseport P]" >&2
           exit 2 ;;
    esac
done
CLI=/usr/bin/redis-cli BENCH=/usr/bin/redis-benchmark
for t in "$OURS" "$REF" "$CLI" "$BENCH"; do
    [ -x "$t" ] || { echo "missing $t (apt-get install redis-server redis-tools)" >&2; exit 2; }
done
OURS=$(realpath "$OURS")
TMP=$(mktemp -d)
PIDS=()
cleanup() {
    for p in "${PIDS[@]}"; do kill -9 "$p" 2>/dev/null; done
    rm -rf "$TMP"
}
trap cleanup EXIT

# start_cluster KIND BIN FIRST-PORT: 6 nodes, 3 primaries with a replica each.
start_cluster() {
    local kind=$1 bin=$2 first=$3 port dir
    for i in 0 1 2 3 4 5; do
        port=$((first + i)); dir=$TMP/$kind-$port; mkdir -p "$dir"
        (cd "$dir" && exec "$bin" --port $port --bind 127.0.0.1 --cluster-enabled yes \
            --cluster-config-file nodes.conf --cluster-node-timeout "$TIMEOUT" --save "" --appendonly no \
            --logfile log) &
        PIDS+=($!)
        echo $! >"$dir/pid"
    done
    for i in 0 1 2 3 4 5; do
        port=$((first + i))
        for _ in $(seq 100); do "$CLI" -p $port ping >/dev/null 2>&1 && break; sleep 0.1; done
    done
    local nodes=() ; for i in 0 1 2 3 4 5; do nodes+=(127.0.0.1:$((first + i))); done
    "$CLI" --cluster create "${nodes[@]}" --cluster-replicas 1 --cluster-yes >"$TMP/$kind-create.log" 2>&1 ||
        { echo "$kind: cluster create failed"; cat "$TMP/$kind-create.log"; exit 1; }
    wait_ok "$kind" "$first" 0 1 2 3 4 5
}

# wait_ok KIND FIRST-PORT I...: cluster_state:ok on those nodes (60 s at most).
wait_ok() {
    local kind=$1 first=$2; shift 2
    for _ in $(seq 600); do
        local all=1
        for i in "$@"; do
            "$CLI" -p $((first + i)) cluster info 2>/dev/null | grep -q '^cluster_state:ok' || { all=0; break; }
        done
        [ $all = 1 ] && return 0
        sleep 0.1
    done
    echo "$kind: no cluster_state:ok"; exit 1
}

cpu_ticks() { # total utime+stime of the nodes whose pid files are in $TMP/KIND-*
    local sum=0
    for f in "$TMP"/$1-*/pid; do
        local st; st=$(cut -d' ' -f14,15 "/proc/$(cat "$f")/stat" 2>/dev/null) || continue
        sum=$((sum + ${st% *} + ${st#* }))
    done
    echo $sum
}

median() { sort -n | awk '{a[NR] = $1} END {print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2}'; }

OURS_PORT=$BASE REF_PORT=$((BASE + 50))
start_cluster ours "$OURS" $OURS_PORT
start_cluster ref "$REF" $REF_PORT

echo "== idle bus CPU, 6 nodes each, $IDLE s (cluster-node-timeout $TIMEOUT ms)"
o0=$(cpu_ticks ours) r0=$(cpu_ticks ref)
sleep "$IDLE"
o1=$(cpu_ticks ours) r1=$(cpu_ticks ref)
hz=$(getconf CLK_TCK)
awk -v o=$((o1 - o0)) -v r=$((r1 - r0)) -v hz="$hz" -v s="$IDLE" 'BEGIN {
    oc = o * 1000 / hz / s / 6; rc = r * 1000 / hz / s / 6
    printf "ms of CPU per node per second: ours %.2f, Redis %.2f, ratio %s\n", oc, rc, (rc > 0 ? sprintf("%.2f", oc / rc) : "-") }'

echo "== redis-benchmark --cluster, -c 50, -n $N, -r 100000, medians of $ROUNDS alternating rounds (req/s)"
printf '%-8s %3s %12s %12s %7s\n' test P ours redis ratio
for p in 1 16; do
    for t in set get; do
        : >"$TMP/o" ; : >"$TMP/r"
        for _ in $(seq "$ROUNDS"); do
            for kind in ours ref; do
                port=$OURS_PORT; [ $kind = ref ] && port=$REF_PORT
                "$BENCH" --cluster -p $port -c 50 -n "$N" -r 100000 -P $p -t $t --csv 2>"$TMP/bench.err" |
                    awk -F'"' -v t="$t" '$2 == toupper(t) {print $4}' >>"$TMP/${kind:0:1}" # after its node list
            done
        done
        o=$(median <"$TMP/o") r=$(median <"$TMP/r")
        [ -s "$TMP/bench.err" ] && sed "s/^/  redis-benchmark: /" "$TMP/bench.err" | head -n 3
        awk -v t=$t -v p=$p -v o="$o" -v r="$r" 'BEGIN { printf "%-8s %3s %12.0f %12.0f %7s\n", t, p, o, r, (r > 0 ? sprintf("%.2f", o / r) : "-") }'
    done
done

# failover: kill -9 the primary of slot 0; the time until its replica is a
# primary and the other nodes say cluster_state:ok again.
failover_ms() {
    local kind=$1 first=$2 victim=-1 replica=-1 others=() vid
    for i in 0 1 2 3 4 5; do
        "$CLI" -p $((first + i)) cluster nodes | grep myself | grep -qE 'master.* 0-[0-9]+' && victim=$i
    done
    [ "$victim" -ge 0 ] || { echo "-"; return; }
    vid=$("$CLI" -p $((first + victim)) cluster myid)
    for i in 0 1 2 3 4 5; do
        [ $i = "$victim" ] && continue
        "$CLI" -p $((first + i)) cluster nodes | grep myself | grep -q "slave $vid" && replica=$i
        others+=("$i")
    done
    local start; start=$(date +%s%N)
    kill -9 "$(cat "$TMP/$kind-$((first + victim))/pid")"
    for _ in $(seq 1200); do
        [ "$("$CLI" -p $((first + replica)) role 2>/dev/null | head -n 1)" = master ] && break
        sleep 0.02
    done
    wait_ok "$kind" "$first" "${others[@]}"
    echo $(( ($(date +%s%N) - start) / 1000000 ))
}
echo "== kill -9 of the primary of slot 0 to cluster_state:ok (cluster-node-timeout $TIMEOUT ms)"
o=$(failover_ms ours $OURS_PORT) r=$(failover_ms ref $REF_PORT)
awk -v o="$o" -v r="$r" 'BEGIN { printf "ms: ours %s, Redis %s, ratio %s\n", o, r, (r > 0 ? sprintf("%.2f", o / r) : "-") }'
