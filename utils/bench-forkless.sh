#!/usr/bin/env bash
# bench-forkless.sh -- what a BGSAVE costs while clients write, in three
# setups in one run: our server with persistence-mode forkless (snapshot.c),
# our server with a fork child, and Redis 7.0.15 (Debian's, fork).
#
# For each: N keys key:000000000000 .. (SET through redis-cli --pipe, 20-byte
# values), then redis-benchmark overwrites them (SET key:__rand_int__ with
# -r N: the same names, 20-byte values, -P 16; no key is created, so RSS
# growth is the snapshot's own cost) while one BGSAVE runs. Reported:
#   stall_ms   the longest PING round trip a probe client saw during the
#              snapshot, and (base) the same over as long a time before it
#              without a snapshot: what waiting behind the benchmark's
#              pipelines and the machine's load give anyway
#   slice_cpu  ours forkless: the longest slice in CPU time
#              (forkless_longest_slice_cpu_us: what the snapshot itself
#              holds the event loop for, without the machine's preemptions);
#              below the table, where the longest slice's wall time and all
#              slices' went (CPU, run delay: runnable while another thread
#              ran, faults, voluntary / involuntary context switches; wall
#              time beyond CPU + run delay with no switch is the machine's,
#              e.g. a hypervisor's steal), and the writer thread's CPU time
#   snap_lat   the longest stall of the snapshot's own events in the
#              server's latency monitor (threshold 1 ms, wall time): fork,
#              or forkless-slice / -barrier / -end; "<1" when none reached
#              1 ms
#   cmd_lat    the longest command in the same monitor: a command does not
#              wait for the snapshot, so this is how long the machine's load
#              held the server off the CPU (the noise in the wall times)
#   rss        peak RSS of the server (+ its fork child's private dirty
#              pages, from rdb_last_cow_size) over its RSS before
#   snap_ms    BGSAVE's duration
#   ops/s      commands per second the server processed while it ran
#              (INFO total_commands_processed), and without a snapshot
#
# Ours in fork mode runs twice: as built in, and (", bg") with the shipped
# redis.conf's bgchild-nice 10 and bgchild-sched-idle yes for the child.
#
# Usage: utils/bench-forkless.sh [--keys N] [--ours PATH] [--ref PATH]
# Defaults: --keys 1000000. Server on cpu 0, load and probe on cpu 1
# (utils/bench-lib.sh; this script and its polling on cpu 1 as well); as root the servers and the probe run at nice -10,
# so other work on a shared machine preempts them less (the same for all
# three setups; a fork child inherits it). Needs redis-benchmark, redis-cli (redis-tools),
# python3 for the probe.
set -u
cd "$(dirname "$0")/.." || exit 1

keys=1000000; ours=src/redis-server; ref=/usr/bin/redis-server
while [ $# -gt 0 ]; do
    case $1 in
        --keys) keys=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }

[ "$(id -u)" = 0 ] && wrapper="nice -n -10"
. utils/bench-lib.sh
bench_init
# this script's own polling (redis-cli every 20 ms, reading /proc) runs on
# the clients' cpu too: on the server's it preempted the server
taskset -cp "$client_cpu" $$ >/dev/null 2>&1
prio=${wrapper:-}

info_field() { redis-cli -p "$1" info all | awk -F: -v f="$2" '$1 == f { gsub(/\r/, "", $2); print $2 }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

# N keys named as redis-benchmark's key:__rand_int__ names them (12 digits).
load_keys() {
    awk -v n="$keys" 'BEGIN { for (i = 0; i < n; i++) printf "*3\r\n$3\r\nSET\r\n$16\r\nkey:%012d\r\n$20\r\n%020d\r\n", i, i }' |
        redis-cli -p "$1" --pipe >/dev/null
}

# The largest max (ms) of the latency monitor's events whose name matches
# the regex $1, with the event, from $tmp/latency (LATENCY LATEST: event,
# time, latest, max, one per line).
lat_max() {
    awk -v re="$1" 'NR % 4 == 1 { e = $0 } NR % 4 == 0 && e ~ re && $0 + 0 > m { m = $0; w = e }
        END { if (m) print m " " w; else print "<1" }' "$tmp/latency"
}

# The probe: PINGs until the file $2 disappears; prints the longest round trip in ms.
write_probe() {
    cat >"$tmp/probe.py" <<'EOF'
import os, socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])))
worst = 0.0
while os.path.exists(sys.argv[2]):
    t = time.monotonic()
    s.sendall(b"PING\r\n")
    buf = b""
    while not buf.endswith(b"\r\n"):
        buf += s.recv(64)
    worst = max(worst, time.monotonic() - t)
    time.sleep(0.001)
print("%.1f" % (worst * 1000))
EOF
}

# run LABEL BINARY [args...]
run() {
    local label=$1 bin=$2
    shift 2
    local port pid
    port=$(free_port)
    mkdir -p "$tmp/$label"
    pid=$(start_server "$bin" "$port" --dir "$tmp/$label" --enable-debug-command yes --latency-monitor-threshold 1 "$@") || return 1
    load_keys "$port"
    [ "$(redis-cli -p "$port" dbsize)" = "$keys" ] || { echo "$label: loading $keys keys failed" >&2; stop_server "$pid"; return 1; }
    local rss0 c0 t0 base_ops
    taskset -c "$client_cpu" redis-benchmark -p "$port" -P 16 -r "$keys" -n 100000000 -d 20 -q \
        set key:__rand_int__ __data__ >/dev/null 2>&1 &
    local bench=$!
    sleep 2
    rss0=$(rss_kb "$pid")
    touch "$tmp/probing"
    taskset -c "$client_cpu" $prio python3 "$tmp/probe.py" "$port" "$tmp/probing" >"$tmp/stall0" &
    local prober=$!
    c0=$(info_field "$port" total_commands_processed); t0=$(now_ms)
    sleep 2
    base_ops=$(( ($(info_field "$port" total_commands_processed) - c0) * 1000 / ($(now_ms) - t0) ))
    rm -f "$tmp/probing"; wait "$prober"
    touch "$tmp/probing"
    taskset -c "$client_cpu" $prio python3 "$tmp/probe.py" "$port" "$tmp/probing" >"$tmp/stall" &
    prober=$!
    c0=$(info_field "$port" total_commands_processed); t0=$(now_ms)
    redis-cli -p "$port" latency reset >/dev/null
    redis-cli -p "$port" bgsave >/dev/null
    local peak=$rss0 r
    while [ "$(info_field "$port" rdb_bgsave_in_progress)" = 1 ]; do
        r=$(rss_kb "$pid"); [ "$r" -gt "$peak" ] && peak=$r
        sleep 0.02
    done
    local t1 c1
    t1=$(now_ms); c1=$(info_field "$port" total_commands_processed)
    rm -f "$tmp/probing"; wait "$prober"
    kill "$bench"; wait "$bench" 2>/dev/null
    local cow status srv lat cmd keys_after
    cow=$(info_field "$port" rdb_last_cow_size); status=$(info_field "$port" rdb_last_bgsave_status)
    keys_after=$(redis-cli -p "$port" dbsize)
    peak=$((peak + ${cow:-0} / 1024))
    srv=-
    [ "$label" = "ours forkless" ] && srv=$(awk -v u="$(info_field "$port" forkless_longest_slice_cpu_us)" 'BEGIN { printf "%.2f", u / 1000 }')
    redis-cli -p "$port" latency latest >"$tmp/latency"
    lat=$(lat_max '^(fork|forkless-.*)$'); cmd=$(lat_max '^(fast-)?command$')
    printf '%-22s %13s %9s %-24s %7s %13s %6s %8s %9s %9s %7s %s\n' "$label" "$(cat "$tmp/stall") ($(cat "$tmp/stall0"))" \
        "$srv" "$lat" "$cmd" \
        "$((rss0 / 1024))->$((peak / 1024))MB" "$(ratio "$peak" "$rss0")" "$((t1 - t0))" \
        "$(( (c1 - c0) * 1000 / (t1 - t0 + 1) ))" "$base_ops" "$status" "$([ "$keys_after" = "$keys" ] || echo "keys now $keys_after")"
    if [[ "$label" == "ours forkless"* ]]; then
        echo "    forkless: longest slice $(info_field "$port" forkless_longest_slice_us) us wall ($(info_field "$port" forkless_longest_slice_cpu_us) us of CPU), longest barrier $(info_field "$port" forkless_longest_barrier_us) us, peak pending $(info_field "$port" forkless_snapshot_peak_bytes) bytes, $(info_field "$port" forkless_snapshot_barrier_keys) keys by the barrier"
        echo "    longest slice: $(info_field "$port" forkless_longest_slice_usage)"
        echo "    all $(info_field "$port" forkless_slices) slices: $(info_field "$port" forkless_slices_usage); writer thread $(info_field "$port" forkless_writer_cpu_us) us of CPU"
    fi
    stop_server "$pid"
}

write_probe
echo "BGSAVE of $keys keys while redis-benchmark -P 16 overwrites them (SET, random existing keys); server cpu $server_cpu, clients cpu $client_cpu${prio:+, $prio}; load average $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-22s %13s %9s %-24s %7s %13s %6s %8s %9s %9s %7s\n' setup "stall_ms(base)" slice_cpu snap_lat cmd_lat rss "rss x" snap_ms "ops/s" "ops/s0" status
run "ours forkless" "$ours" --persistence-mode forkless
run "ours fork" "$ours" --persistence-mode fork
run "ours fork, bg" "$ours" --persistence-mode fork --bgchild-nice 10 --bgchild-sched-idle yes
if [ -x "$ref" ]; then run "Redis $("$ref" --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') fork" "$ref"; fi
echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
