#!/usr/bin/env bash
# bench-shm.sh -- the shared-memory transport against TCP loopback and the
# unix socket, with our redis-benchmark (--shm) and one server:
#
#   1. latency: one client, one request at a time (-c 1 -P 1): median and
#      p99 round trip of PING and of GET of a 16-byte value, per transport
#      (shm twice: with the server's spin, shm-spin-us 20, and without it,
#      shm-spin-us 0, to show what the spin buys);
#   2. throughput at -P 1 with 1 and 8 clients, unix socket vs shm
#      (SET and GET, 16 bytes), and the ratio;
#   3. idle cost: CPU time used by the server and by 50 connected, idle shm
#      clients (utils/shm-example.c relays) over 10 seconds.
# The load average is printed before and after, the server's spin counters
# (INFO clients shm_spin_*) at the end.
#
#   utils/bench-shm.sh            # after make; REQUESTS=N changes -n (default 50000)
#   PORT=armv7 utils/bench-shm.sh # the port's server and redis-benchmark under
#                                 # its QEMU (after make PORT=armv7), for the record;
#                                 # the idle step then uses the port's compiler
#
# The server is pinned to one core and the load generator to another
# (bench-lib.sh); on a machine shared with other work the figures move by
# some percent between runs: compare within one run.
set -u
cd "$(dirname "$0")/.." || exit 1
. utils/bench-lib.sh
bench_init
server=src/redis-server
bench=src/redis-benchmark
example_cc=cc
run=()     # what runs the load generator and the idle relays: nothing natively
if [ -n "${PORT:-}" ] && [ "$PORT" != native ]; then
    portmk=ports/$PORT/port.mk
    [ -f "$portmk" ] || { echo "unknown PORT $PORT (no $portmk)" >&2; exit 1; }
    port_var() { awk -v k="$1" '$1 == k { sub(/^[^=]*:= */, ""); print; exit }' "$portmk"; }
    server=build/$PORT/redis-server
    bench=build/$PORT/redis-benchmark
    wrapper=$(port_var PORT_QEMU)             # start_server runs the server under it
    example_cc="$(port_var PORT_CROSS)gcc $(port_var PORT_CFLAGS) $(port_var PORT_LDFLAGS)"
    read -r -a run <<<"$wrapper"
fi
requests=${REQUESTS:-50000}
sock=$tmp/redis.sock
for f in "$server" "$bench"; do [ -x "$f" ] || { echo "missing $f: run make" >&2; exit 1; }; done

port=$(free_port)
pid=$(start_server "$server" "$port" --unixsocket "$sock" --unixsocketperm 700 --shm-spin-us 20) || exit 1

transport_args() { # tcp | unix | shm | shm-nospin
    case $1 in
        tcp) echo "-h 127.0.0.1 -p $port" ;;
        unix) echo "-s $sock" ;;
        shm*) echo "-s $sock --shm" ;;
    esac
}

spin_us() { redis-cli -s "$sock" config set shm-spin-us "$1" >/dev/null; }

echo "server on CPU $server_cpu, load generator on CPU $client_cpu; $(uptime | sed 's/.*load/load/')"


# "p50 p99" in microseconds of TEST (PING_MBULK, GET ...) from the benchmark's summary.
latency() {
    # shellcheck disable=SC2046
    taskset -c "$client_cpu" "${run[@]}" "$bench" $(transport_args "$1") -c 1 -P 1 -n "$requests" -d 16 -t "$2" 2>/dev/null |
        awk -v want="$3" '
            /^====== / { test = $2 }
            /avg +min +p50/ { grab = 1; next }
            grab && test == want { printf "%.0f %.0f\n", $3 * 1000, $5 * 1000; exit }
            { grab = 0 }'
}

rps_of() { # transport clients test -> requests per second
    # shellcheck disable=SC2046
    taskset -c "$client_cpu" "${run[@]}" "$bench" $(transport_args "$1") -c "$2" -P 1 -n "$requests" -d 16 -t "$3" -q 2>/dev/null |
        awk -F'[: ]+' -v want="$(echo "$3" | tr a-z A-Z)" '$1 == want { printf "%d\n", $2 }'
}

echo "== 1. round trip, one client, one request at a time (-c 1 -P 1, $requests requests; microseconds)"
printf "%-11s %-10s %6s %6s\n" transport command p50 p99
for t in tcp unix shm shm-nospin; do
    [ "$t" = shm-nospin ] && spin_us 0
    read -r p50 p99 < <(latency "$t" ping PING_MBULK)
    printf "%-11s %-10s %6s %6s\n" "$t" PING "${p50:--}" "${p99:--}"
    read -r p50 p99 < <(latency "$t" set,get GET)
    printf "%-11s %-10s %6s %6s\n" "$t" "GET 16B" "${p50:--}" "${p99:--}"
    [ "$t" = shm-nospin ] && spin_us 20
done

echo
echo "== 2. throughput at -P 1 (requests per second, 16-byte values)"
printf "%-4s %8s %10s %10s %7s\n" test clients unix shm shm/unix
for test in set get; do
    for c in 1 8; do
        u=$(rps_of unix "$c" "$test")
        s=$(rps_of shm "$c" "$test")
        printf "%-4s %8s %10s %10s %7s\n" "$test" "$c" "${u:--}" "${s:--}" "$(ratio "${s:-0}" "${u:-0}")"
    done
done

echo
echo "== 3. idle: 50 connected shm clients, 10 seconds"
example=$tmp/shm-example
# shellcheck disable=SC2086  # the port's compiler carries flags
$example_cc -O2 -o "$example" utils/shm-example.c || exit 1
relays=()
mkfifo "$tmp/idle-in"
exec 3<>"$tmp/idle-in" # a writer that never writes: the relays' stdin stays open and silent
for _ in $(seq 1 50); do
    "${run[@]}" "$example" "$sock" <"$tmp/idle-in" >/dev/null 2>&1 &
    relays+=("$!")
    pids+=("$!")
done
sleep 1
connected=$(redis-cli -s "$sock" client list | grep -c 'flags=Um')
server_before=$(cpu_ticks "$pid")
clients_before=0
for r in "${relays[@]}"; do clients_before=$((clients_before + $(cpu_ticks "$r"))); done
sleep 10
server_after=$(cpu_ticks "$pid")
clients_after=0
for r in "${relays[@]}"; do clients_after=$((clients_after + $(cpu_ticks "$r"))); done
hz=$(getconf CLK_TCK)
awk -v n="$connected" -v s=$((server_after - server_before)) -v c=$((clients_after - clients_before)) -v hz="$hz" 'BEGIN {
    printf "shm clients connected: %d\n", n
    printf "server CPU: %.2f s in 10 s (%.2f%% of a core)\n", s / hz, s / hz * 10
    printf "50 clients CPU: %.2f s in 10 s (%.2f%% of a core)\n", c / hz, c / hz * 10 }'
for r in "${relays[@]}"; do kill "$r" 2>/dev/null; done
echo
echo "== server spin counters: $(redis-cli -s "$sock" info clients | tr -d '\r' | grep '^shm_spin' | tr '\n' ' ')"
echo "$(uptime | sed 's/.*load/load/')"
stop_server "$pid"
exit 0
