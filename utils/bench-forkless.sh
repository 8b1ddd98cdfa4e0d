#!/usr/bin/env bash
# bench-forkless.sh -- what a BGSAVE costs while clients write, in three
# setups in one run: our server with persistence-mode forkless (snapshot.c),
# our server with a fork child, and Redis 7.0.15 (Debian's, fork).
#
# For each: DEBUG POPULATE N keys, then redis-benchmark writes (SET over
# random keys, -P 16) while one BGSAVE runs. Reported:
#   stall_ms   the longest PING round trip a probe client saw during the
#              snapshot (includes waiting behind the benchmark's pipelines;
#              compare across setups)
#   rss        peak RSS of the server (+ its fork child's private dirty
#              pages, from rdb_last_cow_size) over its RSS before
#   snap_ms    BGSAVE's duration
#   ops/s      commands per second the server processed while it ran
#              (INFO total_commands_processed), and without a snapshot
#
# Usage: utils/bench-forkless.sh [--keys N] [--ours PATH] [--ref PATH]
# Defaults: --keys 1000000. Server on cpu 0, load and probe on cpu 1
# (utils/bench-lib.sh). Needs redis-benchmark, redis-cli (redis-tools),
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

. utils/bench-lib.sh
bench_init

info_field() { redis-cli -p "$1" info all | awk -F: -v f="$2" '$1 == f { gsub(/\r/, "", $2); print $2 }'; }
rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }
now_ms() { date +%s%3N; }

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
    pid=$(start_server "$bin" "$port" --dir "$tmp/$label" --enable-debug-command yes "$@") || return 1
    redis-cli -p "$port" debug populate "$keys" key 20 >/dev/null
    local rss0 c0 t0 base_ops
    rss0=$(rss_kb "$pid")
    taskset -c "$client_cpu" redis-benchmark -p "$port" -P 16 -r "$keys" -n 100000000 -t set -q >/dev/null 2>&1 &
    local bench=$!
    sleep 2
    c0=$(info_field "$port" total_commands_processed); t0=$(now_ms)
    sleep 2
    base_ops=$(( ($(info_field "$port" total_commands_processed) - c0) * 1000 / ($(now_ms) - t0) ))
    touch "$tmp/probing"
    taskset -c "$client_cpu" python3 "$tmp/probe.py" "$port" "$tmp/probing" >"$tmp/stall" &
    local prober=$!
    c0=$(info_field "$port" total_commands_processed); t0=$(now_ms)
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
    local cow status
    cow=$(info_field "$port" rdb_last_cow_size); status=$(info_field "$port" rdb_last_bgsave_status)
    peak=$((peak + ${cow:-0} / 1024))
    printf '%-22s %9s %12s %8s %10s %10s %7s %s\n' "$label" "$(cat "$tmp/stall")" \
        "$((rss0 / 1024))->$((peak / 1024))MB" "$(ratio "$peak" "$rss0")" "$((t1 - t0))" \
        "$(( (c1 - c0) * 1000 / (t1 - t0 + 1) ))" "$base_ops" "$status"
    [ "$label" = "ours forkless" ] && echo "    forkless: longest slice $(info_field "$port" forkless_longest_slice_us) us ($(info_field "$port" forkless_longest_slice_cpu_us) us of CPU), peak pending $(info_field "$port" forkless_snapshot_peak_bytes) bytes, $(info_field "$port" forkless_snapshot_barrier_keys) keys by the barrier"
    stop_server "$pid"
}

write_probe
echo "BGSAVE of $keys keys while redis-benchmark -P 16 writes (SET, random keys); server cpu $server_cpu, clients cpu $client_cpu"
printf '%-22s %9s %12s %8s %10s %10s %7s %s\n' setup stall_ms rss "rss x" snap_ms "ops/s" "ops/s0" status
run "ours forkless" "$ours" --persistence-mode forkless
run "ours fork" "$ours" --persistence-mode fork
if [ -x "$ref" ]; then run "Redis $("$ref" --version | sed -n 's/.*v=\([0-9.]*\).*/\1/p') fork" "$ref"; fi
