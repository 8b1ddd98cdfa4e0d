#!/usr/bin/env bash
# bench-instructions.sh -- instructions executed per request, ours against a
# reference redis-server, on the same load (issue #39).
#
# Each server runs under valgrind's callgrind; every workload is sent by
# Debian's redis-benchmark (-c 50, keys from 100k names) twice, N1 then N2
# requests, with the counters zeroed before and dumped after each run, and
# the figure is (Ir(N2) - Ir(N1)) / (requests(N2) - requests(N1)): the cost
# of one more request, without connecting the 50 clients or the ramp-up and
# drain of a run. The request counts come from INFO commandstats (reset
# before each run), so a request the load generator sent but the server did
# not run (or a command a script ran) is not counted.
#
# Design decisions:
# - serverCron is excluded (--toggle-collect=serverCron: collection stops
#   inside it): it runs per 100 ms of wall clock, and under valgrind wall
#   clock is a function of the machine, not of the request. The option
#   turns collection off at start, so --collect-atstart=yes must follow it.
# - Our event-loop spin is turned off (event-loop-spin-us 0) for the same
#   reason: it executes instructions while waiting, as many as time allows.
#   Its cost is CPU time per request, which utils/bench-server.sh measures.
# - Under valgrind the server, not the load generator, is the bottleneck, so
#   each event-loop pass finds all 50 clients ready: the batching, and so the
#   figure, is the same from run to run (the gate's spread is in its commit).
# - The gate's load is made steady: every key, field and member the load
#   names (1000 of each) exists before it starts, and 14000 more keys make
#   the keyspace big enough for the pipelined-key prefetch (prefetch.c) but
#   leave its table at one size, so no run pays for a table growing or
#   rehashing. Growth is what varied from run to run (8% at -P 16 on SET
#   and INCR with keys from 100k names); with it gone the gate's figures
#   vary well under its 3%. The table keeps issue #39's load (keys from
#   100k names, nothing there before), as the issue's figures were taken.
# - The reference is Debian's Redis 7.0.15 (/usr/bin/redis-server): its
#   symbols are exported (-rdynamic), so serverCron is found in it too.
#
# Usage: utils/bench-instructions.sh [--ours PATH] [--ref PATH | --no-ref]
#            [--only W1,W2,...] [--pipelines "1 16"] [-n N2] [--tool REDIS-BENCHMARK]
#        utils/bench-instructions.sh --gate [--baseline FILE] [--tolerance PCT]
#        utils/bench-instructions.sh --write-baseline [--baseline FILE]
# --gate: on our server only, against the baseline of our own counts
#   (utils/bench-baseline.txt); fails when a workload's Ir/request is more
#   than 3% above its baseline (in each of up to 3 runs when by under 6%); prints the table and
#   "N passed, N failed" (one per workload and pipeline depth). About a
#   minute on a 2-core machine. --write-baseline records the median of 3 runs
#   of the gate (run it after a change that makes a workload dearer on purpose,
#   or cheaper: the gate only sees rises).
# Workloads: set get incr lpush hset sadd zadd mset10 evalsha publish1 publish10
# (as issue #39's table) and zaddupd: ZADD to members that exist (1000 of them);
# the table also has set1k (SET of 1 KB values), mget10, hincrby,
# zrange (ZRANGE myzset 0 9 WITHSCORES, after zadd filled it), spop, lpop,
# xreadgroup (COUNT 10, new entries: ">") and fcall (a function doing one
# INCR, as evalsha's script). spop, lpop and xreadgroup consume what they
# read, so before each pipeline depth their set, list or stream is made
# afresh with more than the run takes (fill_for). The gate keeps its 22 rows.
set -u
{ # read whole before it runs: editing the file during a run does not change it
cd "$(dirname "$0")/.." || exit 1

ours=src/redis-server; ref=/usr/bin/redis-server; tool=/usr/bin/redis-benchmark
mode=table; baseline=utils/bench-baseline.txt; tolerance=3
all_workloads="set set1k get mget10 incr lpush lpop hset hincrby sadd spop zadd zaddupd zrange mset10 evalsha fcall xreadgroup publish1 publish10"
gate_workloads="set get incr lpush hset sadd zadd mset10 evalsha publish1 publish10" # zadd updates there
only=""; pipelines="1 16"; n2=""; clients=50
while [ $# -gt 0 ]; do
    case $1 in
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --no-ref) ref=""; shift ;;
        --only) only=${2//,/ }; shift 2 ;;
        --pipelines) pipelines=$2; shift 2 ;;
        -n) n2=$2; shift 2 ;;
        --tool) tool=$2; shift 2 ;;
        -c) clients=$2; shift 2 ;;
        --gate) mode=gate; shift ;;
        --write-baseline) mode=write; shift ;;
        --baseline) baseline=$2; shift 2 ;;
        --tolerance) tolerance=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
utils/need-tools.sh valgrind:valgrind || exit 1
[ -x "$tool" ] || tool=$(command -v redis-benchmark) || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
if [ "$mode" != table ]; then
    ref=""
    workloads=${only:-$gate_workloads}
    n2=${n2:-3000}
    names=1000
else
    workloads=${only:-$all_workloads}
    n2=${n2:-10000}
    names=100000
    [ -z "$ref" ] || [ -x "$ref" ] || { echo "reference $ref not found: only our figures" >&2; ref=""; }
fi
n1=$((n2 / 4))

. utils/bench-lib.sh
bench_init
server_cpu=0 # valgrind's one thread
subscribers=()

# start_callgrind LABEL BINARY: sets pid and port once PING answers
start_callgrind() {
    local label=$1 bin=$2 extra=()
    port=$(free_port)
    [ "$bin" = "$ours" ] && extra=(--event-loop-spin-us 0)
    taskset -c "$server_cpu" valgrind --tool=callgrind --toggle-collect=serverCron --collect-atstart=yes \
        --callgrind-out-file="$tmp/cg-$label.out" "$bin" --port "$port" --bind 127.0.0.1 --save '' \
        --appendonly no --dir "$tmp" "${extra[@]}" >"$tmp/server-$label.log" 2>&1 &
    pid=$!
    pids+=("$pid")
    for _ in $(seq 1 600); do
        [ "$(redis-cli -p "$port" ping 2>/dev/null)" = PONG ] && return 0
        sleep 0.1
    done
    echo "server $bin did not start under valgrind; log:" >&2
    cat "$tmp/server-$label.log" >&2
    return 1
}

# The Ir total of a dump that callgrind_control -d just wrote.
dump_ir() { # pid label
    local before after f
    before=$(ls "$tmp"/cg-"$2".out.* 2>/dev/null | wc -l)
    callgrind_control -d "$1" >/dev/null 2>&1
    for _ in $(seq 1 200); do
        after=$(ls "$tmp"/cg-"$2".out.* 2>/dev/null | wc -l)
        [ "$after" -gt "$before" ] && break
        sleep 0.05
    done
    f=$(ls -t "$tmp"/cg-"$2".out.* | head -n 1)
    awk '/^summary:/ { print $2; exit }' "$f"
    rm -f "$f"
}

# calls of command CMD (lower case) since the last CONFIG RESETSTAT
calls_of() { # port cmd
    redis-cli -p "$1" info commandstats | tr -d '\r' |
        awk -F'[:=,]' -v c="cmdstat_$2" '$1 == c { print $3; found = 1 } END { if (!found) print 0 }'
}

# The load of workload W at pipeline P, N requests.
load() { # port workload pipeline n
    local port=$1 w=$2 p=$3 n=$4 args=() i
    case $w in
        set) args=(-r $names set key:__rand_int__ xxx) ;;
        get) args=(-r $names get key:__rand_int__) ;;
        incr) args=(-r $names incr counter:__rand_int__) ;;
        lpush) args=(lpush mylist xxx) ;;
        hset) args=(-r $names hset myhash element:__rand_int__ xxx) ;;
        sadd) args=(-r $names sadd myset element:__rand_int__) ;;
        zadd) args=(-r $names zadd myzset __rand_int__ element:__rand_int__) ;;
        zaddupd) args=(-r 1000 zadd zupd __rand_int__ element:__rand_int__) ;; # members exist: score updates
        mset10) args=(-r $names mset); for i in $(seq 1 10); do args+=("key:__rand_int__" xxx); done ;;
        set1k) args=(-r $names set key:__rand_int__ "$value_1k") ;;
        mget10) args=(-r $names mget); for i in $(seq 1 10); do args+=("key:__rand_int__"); done ;;
        hincrby) args=(-r $names hincrby counters element:__rand_int__ 1) ;;
        zrange) args=(zrange myzset 0 9 withscores) ;;
        spop) args=(spop spopset) ;;
        lpop) args=(lpop poplist) ;;
        xreadgroup) args=(xreadgroup group grp consumer count 10 streams mystream ">") ;;
        fcall) args=(-r $names fcall bincr 1 counter:__rand_int__) ;;
        evalsha) args=(-r $names evalsha "$script_sha" 1 counter:__rand_int__) ;;
        publish1|publish10) args=(publish channel "hello subscriber") ;;
    esac
    taskset -c "$client_cpu" "$tool" -p "$port" -c "$clients" -n "$n" -P "$p" -q "${args[@]}" >/dev/null 2>&1
}

# The gate's steady state: the keys, fields and members its load names
# (redis-benchmark's __rand_int__ is 12 digits), and 14000 more keys (not
# DEBUG POPULATE: enable-debug-command is off), so the keyspace passes
# prefetch.c's PREFETCH_MIN_KEYS (8192) and stays under 16384 (one table size).
filler_keys=14000
prefill() { # port
    awk -v n="$names" -v filler="$filler_keys" 'function cmd(a, b, c, d,   s, i, k) { k = split(a " " b " " c " " d, s, " ")
            printf "*%d\r\n", k; for (i = 1; i <= k; i++) printf "$%d\r\n%s\r\n", length(s[i]), s[i] }
        BEGIN { for (i = 0; i < filler; i++) cmd("SET", "filler:" i, "x")
            for (i = 0; i < n; i++) { r = sprintf("%012d", i)
            cmd("SET", "key:" r, "xxx"); cmd("SET", "counter:" r, "0"); cmd("HSET", "myhash", "element:" r, "xxx")
            cmd("SADD", "myset", "element:" r); cmd("ZADD", "myzset", i, "element:" r); cmd("ZADD", "zupd", i, "element:" r) } }' |
        redis-cli -p "$1" --pipe >/dev/null || return 1
    [ "$(redis-cli -p "$1" dbsize)" -ge $((filler_keys + 2 * names)) ] || { echo "prefill failed" >&2; return 1; }
}

command_of() {
    case $1 in mset10) echo mset ;; mget10) echo mget ;; set1k) echo set ;; publish*) echo publish ;; zaddupd) echo zadd ;;
        *) echo "$1" ;; esac
}

value_1k=$(printf 'v%.0s' $(seq 1 1024))
fill_size=$((2 * n1 + 2 * n2)) # more than one pipeline depth takes (2 x N1 + N2 requests; xreadgroup: 10 entries each), so a set never shrinks

# What a consuming workload reads, made afresh: FILL_SIZE members or items,
# 10 x FILL_SIZE stream entries and a group at its start.
fill_for() { # port workload
    local n=$fill_size
    case $2 in
        spop) redis-cli -p "$1" del spopset >/dev/null
              awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) { m = "member:" i; printf "*3\r\n$4\r\nSADD\r\n$7\r\nspopset\r\n$%d\r\n%s\r\n", length(m), m } }' ;;
        lpop) redis-cli -p "$1" del poplist >/dev/null
              awk -v n="$n" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$5\r\nRPUSH\r\n$7\r\npoplist\r\n$3\r\nxxx\r\n" }' ;;
        xreadgroup) redis-cli -p "$1" del mystream >/dev/null
              awk -v n=$((10 * n)) 'BEGIN { for (i = 0; i < n; i++) printf "*5\r\n$4\r\nXADD\r\n$8\r\nmystream\r\n$1\r\n*\r\n$5\r\nfield\r\n$3\r\nxxx\r\n" }'
              echo "XGROUP CREATE mystream grp 0" ;;
        *) return 0 ;;
    esac | redis-cli -p "$1" --pipe >/dev/null
}

# Subscribers for the publish workloads: K redis-cli processes on "channel".
set_subscribers() { # port k
    local i
    for p in "${subscribers[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
    subscribers=()
    for i in $(seq 1 "$2"); do
        taskset -c "$client_cpu" redis-cli -p "$1" subscribe channel >/dev/null 2>&1 &
        subscribers+=("$!"); pids+=("$!")
    done
    for _ in $(seq 1 300); do
        [ "$(redis-cli -p "$1" pubsub numsub channel | tail -n 1)" = "$2" ] && return 0
        sleep 0.1
    done
    echo "subscribers did not come" >&2
    return 1
}

# One measured run: "Ir requests".
measured_run() { # pid port label workload pipeline n
    local ir calls
    redis-cli -p "$2" config resetstat >/dev/null
    callgrind_control -z "$1" >/dev/null 2>&1
    load "$2" "$4" "$5" "$6"
    ir=$(dump_ir "$1" "$3")
    calls=$(calls_of "$2" "$(command_of "$4")")
    echo "$ir $calls"
}

# Ir per request of workload W at pipeline P on a server under callgrind.
ir_per_request() { # pid port label workload pipeline
    local a b
    # warm-up: first-time growth (encodings, tables) is not a request's cost;
    # the gate's prefill has done it
    [ "$mode" = table ] && load "$2" "$4" "$5" "$n1"
    a=$(measured_run "$1" "$2" "$3" "$4" "$5" "$n1")
    b=$(measured_run "$1" "$2" "$3" "$4" "$5" "$n2")
    awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
        if (y[2] - x[2] > 0) printf "%.0f", (y[1] - x[1]) / (y[2] - x[2]); else printf "-" }'
}

baseline_of() { awk -v w="$1" -v p="$2" '$1 == w && $2 == p { print $3 }' "$baseline" 2>/dev/null; }

# 0 when Ir/request A is more than $tolerance % over B (B known), but by
# less than twice that: more than run-to-run variation could explain is
# not measured again.
over_by_little() {
    awk -v a="$1" -v b="$2" -v t="$tolerance" 'BEGIN { exit !(b > 0 && a != "-" && a > b * (1 + t / 100) && a <= b * (1 + 2 * t / 100)) }'
}

# The figure of one workload: measured once for the table; for the gate,
# measured again (up to twice) while a little over the baseline, the lowest kept: a
# dearer code path is dearer every time, a pass of the event loop that
# happened to find fewer clients ready is not.
figure() { # pid port label workload pipeline
    local v b
    case $mode in
        gate)
            b=$(baseline_of "$4" "$5")
            v=$(ir_per_request "$@")
            for _ in 1 2; do
                over_by_little "$v" "$b" || break
                v=$(printf '%s\n%s\n' "$v" "$(ir_per_request "$@")" | sort -n | head -n 1)
            done
            echo "$v" ;;
        *)
            ir_per_request "$@" ;;
    esac
}

# Figures of every workload at every pipeline depth for one server: lines "workload P Ir/req".
measure_server() { # label binary
    local label=$1 bin=$2 w p subs=0
    start_callgrind "$label" "$bin" || return 1
    script_sha=$(redis-cli -p "$port" script load "return redis.call('incr', KEYS[1])")
    redis-cli -p "$port" function load "#!lua name=benchlib
redis.register_function('bincr', function(keys, args) return redis.call('incr', keys[1]) end)" >/dev/null
    [ "$mode" = table ] || prefill "$port" || return 1
    for w in $workloads; do
        case $w in publish1) subs=1 ;; publish10) subs=10 ;; *) subs=0 ;; esac
        set_subscribers "$port" "$subs" || return 1
        for p in $pipelines; do
            fill_for "$port" "$w"
            echo "$w $p $(figure "$pid" "$port" "$label" "$w" "$p")"
        done
    done
    set_subscribers "$port" 0
    stop_server "$pid"
    return 0
}

[ "$mode" = gate ] && [ ! -r "$baseline" ] && { echo "no baseline $baseline: run --write-baseline" >&2; exit 1; }
if [ "$mode" = write ]; then
    # the median of 3 runs of the gate's own sequence, each on a fresh server
    # (measuring one workload 3 times in a row would leave a different state)
    for i in 1 2 3; do measure_server ours "$ours" >"$tmp/ours$i.txt" || exit 1; done
    paste -d' ' "$tmp/ours1.txt" "$tmp/ours2.txt" "$tmp/ours3.txt" |
        awk '{ a = $3; b = $6; c = $9; hi = a > b ? a : b; hi = hi > c ? hi : c
                 lo = a < b ? a : b; lo = lo < c ? lo : c; print $1, $2, a + b + c - hi - lo }' >"$tmp/ours.txt"
else
    measure_server ours "$ours" >"$tmp/ours.txt" || exit 1
fi
if [ -n "$ref" ]; then measure_server ref "$ref" >"$tmp/ref.txt" || exit 1; fi

case $mode in
    table)
        echo "== instructions per request (callgrind, serverCron excluded, -c 50, N $n1 -> $n2 requests)"
        printf '%-10s %3s %12s %12s %6s\n' workload P ours reference ratio
        while read -r w p a; do
            b=-; r=-
            if [ -n "$ref" ]; then
                b=$(awk -v w="$w" -v p="$p" '$1 == w && $2 == p { print $3 }' "$tmp/ref.txt")
                r=$(ratio "$a" "${b:-0}")
            fi
            printf '%-10s %3s %12s %12s %6s\n' "$w" "$p" "$a" "${b:--}" "$r"
        done <"$tmp/ours.txt"
        ;;
    write)
        { echo "# Ir/request of our server, utils/bench-instructions.sh --write-baseline ($(git rev-parse --short HEAD 2>/dev/null))"
          echo "# workload pipeline Ir/request"
          cat "$tmp/ours.txt"; } >"$baseline"
        cat "$baseline"
        ;;
    gate)
        passed=0; failed=0
        echo "== instructions per request against $baseline (callgrind; a little over +$tolerance%: lowest of 3 runs)"
        printf '%-10s %3s %12s %12s %8s\n' workload P Ir/req baseline change
        while read -r w p a; do
            b=$(awk -v w="$w" -v p="$p" '$1 == w && $2 == p { print $3 }' "$baseline")
            verdict=$(awk -v a="$a" -v b="${b:-0}" -v t="$tolerance" 'BEGIN {
                if (b <= 0 || a == "-") { print "FAIL nobaseline"; exit }
                c = (a - b) * 100 / b; printf "%s %+.1f%%", (c > t ? "FAIL" : "ok"), c }')
            printf '%-10s %3s %12s %12s %8s %s\n' "$w" "$p" "$a" "${b:--}" "${verdict#* }" "${verdict%% *}"
            case $verdict in ok*) passed=$((passed + 1)) ;; *) failed=$((failed + 1)) ;; esac
        done <"$tmp/ours.txt"
        echo "$passed passed, $failed failed"
        [ "$failed" = 0 ]
        ;;
esac
exit
}
