#!/usr/bin/env bash
# bench-spin.sh -- event-loop-spin-us A/B: one of our servers, its spin
# switched with CONFIG SET between runs, against a reference redis-server,
# all measured alternately in the same run (so a loaded machine moves them
# alike).
#
# Each run is redis-benchmark -c 50 (pinned to the other core than the
# servers) at one pipeline depth, of XRANGE xr - + COUNT 100 on a
# 1000-entry stream (--mode stream, plain TCP) or GET over TLS (--mode tls,
# certificates from tests/helpers/gen-certs.sh). Per configuration the table
# shows the best and the median req/s and their ratios to the reference's,
# and the medians of: the server's CPU time per request, the load
# generator's (user + system, from /usr/bin/time), and how often per
# request each of them went to sleep (voluntary context switches): the spin
# is there to cut the server's sleeps, each of which costs the client a
# wake-up. On a 2-core machine the load generator is the limit, so its CPU
# per request is the figure that says whether the spin pays.
#
# Usage: utils/bench-spin.sh [--mode stream|tls] [-P DEPTH] [-n REQUESTS] [-r ROUNDS]
#        [--spins "0 20 50"] [--ours PATH] [--ref PATH]
#   defaults: stream, -P 1, 40000 requests, 5 rounds, spins "0 20 50"
# Needs redis-benchmark and redis-cli (redis-tools), /usr/bin/time, Linux's /proc.
set -u
cd "$(dirname "$0")/.." || exit 1

mode=stream; depth=1; requests=40000; rounds=5; spins="0 20 50"
ours=src/redis-server; ref=/usr/bin/redis-server
while [ $# -gt 0 ]; do
    case $1 in
        --mode) mode=$2; shift 2 ;;
        -P) depth=$2; shift 2 ;;
        -n) requests=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --spins) spins=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
case $mode in stream | tls) ;; *) echo "--mode is stream or tls" >&2; exit 2 ;; esac
command -v redis-benchmark >/dev/null || { echo "redis-benchmark missing: apt-get install redis-tools" >&2; exit 1; }
[ -x /usr/bin/time ] || { echo "/usr/bin/time missing: apt-get install time" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found (--ref PATH)" >&2; exit 1; }

. utils/bench-lib.sh
bench_init

server_tls=(); client_tls=()
if [ "$mode" = tls ]; then
    tests/helpers/gen-certs.sh "$tmp/certs" >/dev/null || exit 1
    server_tls=(--tls-cert-file "$tmp/certs/server.crt" --tls-key-file "$tmp/certs/server.key"
        --tls-ca-cert-file "$tmp/certs/ca.crt")
    client_tls=(--tls --cacert "$tmp/certs/ca.crt" --cert "$tmp/certs/client.crt" --key "$tmp/certs/client.key")
fi

declare -A pid_of bench_port_of
start_one() { # name binary: a server with the data the runs read
    local port tls_port="" pid
    port=$(free_port)
    if [ "$mode" = tls ]; then
        tls_port=$(free_port)
        pid=$(start_server "$2" "$port" --tls-port "$tls_port" "${server_tls[@]}") || exit 1
    else
        pid=$(start_server "$2" "$port") || exit 1
    fi
    pids+=("$pid")
    for i in $(seq 1 1000); do echo "XADD xr * a $i b x$i c y"; done | redis-cli -p "$port" >/dev/null
    redis-cli -p "$port" set key:__rand_int__ abcdefghij >/dev/null
    pid_of[$1]=$pid
    bench_port_of[$1]=${tls_port:-$port}
    plain_port_of_ours=${plain_port_of_ours:-$port}
}
start_one ours "$ours"
start_one ref "$ref"

sleeps() { awk '/^voluntary_ctxt_switches/ { print $2 }' "/proc/$1/status"; }

# run label server-name: appends "label rps srv-us cli-us srv-sleeps cli-sleeps" (per request)
run() {
    local pid=${pid_of[$2]} port=${bench_port_of[$2]} t0 s0 t1 s1 rps u s w
    t0=$(cpu_ticks "$pid"); s0=$(sleeps "$pid")
    if [ "$mode" = tls ]; then
        /usr/bin/time -f "%U %S %w" -o "$tmp/time" taskset -c "$client_cpu" redis-benchmark -p "$port" \
            "${client_tls[@]}" -c 50 -n "$requests" -P "$depth" -t get -q --csv >"$tmp/out" 2>/dev/null
    else
        /usr/bin/time -f "%U %S %w" -o "$tmp/time" taskset -c "$client_cpu" redis-benchmark -p "$port" \
            -c 50 -n "$requests" -P "$depth" -q --csv XRANGE xr - + COUNT 100 >"$tmp/out" 2>/dev/null
    fi
    t1=$(cpu_ticks "$pid"); s1=$(sleeps "$pid")
    rps=$(awk -F, 'NR == 2 { gsub(/"/, "", $2); print int($2) }' "$tmp/out")
    read -r u s w < <(tail -n 1 "$tmp/time")
    awk -v l="$1" -v r="${rps:-0}" -v t=$((t1 - t0)) -v hz="$(getconf CLK_TCK)" -v n="$requests" \
        -v u="$u" -v s="$s" -v ss=$((s1 - s0)) -v w="$w" \
        'BEGIN { printf "%s %d %.2f %.2f %.4f %.4f\n", l, r, t * 1e6 / hz / n, (u + s) * 1e6 / n, ss / n, w / n }' \
        >>"$tmp/results"
}

echo "== event-loop-spin-us A/B, $mode, -P $depth, -c 50, $requests requests a run, $rounds rounds" \
    "(servers on cpu $server_cpu, client on cpu $client_cpu)"
echo "load at start: $(uptime)"
for _ in $(seq 1 "$rounds"); do
    for spin in $spins; do
        redis-cli -p "$plain_port_of_ours" config set event-loop-spin-us "$spin" >/dev/null
        run "ours-$spin" ours
    done
    run reference ref
done
echo "load at end:   $(uptime)"

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
column_of() { awk -v l="$1" -v c="$2" '$1 == l { print $c }' "$tmp/results"; }
ref_best=$(column_of reference 2 | best); ref_median=$(column_of reference 2 | median)
printf '%-10s %8s %8s %6s %6s %11s %11s %11s %11s\n' config best median best/r med/r \
    "srv us/req" "cli us/req" "srv sl/req" "cli sl/req"
for label in $(for spin in $spins; do echo "ours-$spin"; done) reference; do
    b=$(column_of "$label" 2 | best); m=$(column_of "$label" 2 | median)
    printf '%-10s %8s %8s %6s %6s %11s %11s %11s %11s\n' "$label" "$b" "$m" "$(ratio "$b" "$ref_best")" \
        "$(ratio "$m" "$ref_median")" "$(column_of "$label" 3 | median)" "$(column_of "$label" 4 | median)" \
        "$(column_of "$label" 5 | median)" "$(column_of "$label" 6 | median)"
done
