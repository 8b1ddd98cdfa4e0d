#!/usr/bin/env bash
# bench-tls.sh -- this server against a reference redis-server over TLS.
#
# GET (by default; --tests set,get,...) through TLS with redis-benchmark at
# -P 1 and -P 16 (-c 50), both servers started in the same run with the same
# certificates (tests/helpers/gen-certs.sh, made in a scratch directory),
# pinned to one core and the load generator to the other; the two are
# measured alternately, ROUNDS times, the best round of each kept. As in
# bench-server.sh the table also shows each server's CPU time per request,
# which is the fairer figure when the load generator saturates its core
# (TLS makes the client's side as costly as the server's). Every run opens
# 50 connections, and a handshake costs about 17M instructions on either
# server, as much as 7,000 pipelined GETs: so -P 16 sends 20 x REQUESTS
# (--n16), or the handshakes would be most of what it measures.
#
# Usage: utils/bench-tls.sh [-n REQUESTS] [--n16 REQUESTS] [-r ROUNDS] [--ours PATH] [--ref PATH]
#        [--tests get,set,...] [--tool REDIS-BENCHMARK]
# The reference defaults to /usr/bin/redis-server (Debian's, built with
# TLS); its redis-benchmark (redis-tools) has --tls. Our server must be
# built with TLS (make prints "TLS: yes").
set -u
cd "$(dirname "$0")/.." || exit 1

requests=100000; requests_p16=""; rounds=3; ours=src/redis-server; ref=/usr/bin/redis-server
tests="get"; tool=redis-benchmark
while [ $# -gt 0 ]; do
    case $1 in
        -n) requests=$2; shift 2 ;;
        --n16) requests_p16=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --tests) tests=$2; shift 2 ;;
        --tool) tool=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
command -v "$tool" >/dev/null || { echo "$tool missing: apt-get install redis-tools" >&2; exit 1; }
command -v openssl >/dev/null || { echo "openssl missing: apt-get install openssl" >&2; exit 1; }
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
"$ours" --list-config-directives | grep -qx tls-port ||
    { echo "$ours has no TLS: build with BUILD_TLS=yes (needs libssl-dev)" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }

. utils/bench-lib.sh
bench_init
wrapper=""

certs=$tmp/certs
tests/helpers/gen-certs.sh "$certs" || exit 1
client_tls=(--tls --cacert "$certs/ca.crt" --cert "$certs/client.crt" --key "$certs/client.key")

tls_pid=""; tls_port=""
start_tls_server() { # binary -> tls_pid, tls_port (the plain port answered PING)
    local port
    port=$(free_port); tls_port=$(free_port)
    tls_pid=$(start_server "$1" "$port" --tls-port "$tls_port" --tls-cert-file "$certs/server.crt" \
        --tls-key-file "$certs/server.key" --tls-ca-cert-file "$certs/ca.crt") || return 1
    pids+=("$tls_pid") # start_server ran in a subshell: the EXIT trap must know it here
}

rps() { # tls-port pipeline test -> requests per second
    taskset -c "$client_cpu" "$tool" -p "$1" "${client_tls[@]}" -c 50 -n "$(requests_for "$2")" -P "$2" -t "$3" -q --csv \
        2>/dev/null | awk -F, -v t="$3" 'toupper($1) ~ "\"" toupper(t) { gsub(/"/, "", $2); print int($2); exit }'
}

requests_p16=${requests_p16:-$((requests * 20))}
echo "== TLS throughput: $requests requests (-P 16: $requests_p16), c=50, best of $rounds rounds (server on cpu $server_cpu, client on cpu $client_cpu, $tool)"
start_tls_server "$ours" || exit 1
pid_a=$tls_pid; tport_a=$tls_port; pid_b=""; tport_b=""
if [ -n "$ref" ]; then
    start_tls_server "$ref" || exit 1
    pid_b=$tls_pid; tport_b=$tls_port
fi
throughput_rows "$pid_a" "$tport_a" "$pid_b" "$tport_b" "$tests" 6
stop_server "$pid_a"; [ -n "$pid_b" ] && stop_server "$pid_b"
exit 0
