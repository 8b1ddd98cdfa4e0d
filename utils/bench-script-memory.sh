#!/usr/bin/env bash
# bench-script-memory.sh -- what scripting costs in memory, this server
# against a reference redis-server in the same run.
#
#   (default)  the script cache: after one EVAL (so both servers have their
#              Lua state), N distinct small scripts ("return 1" ... "return
#              N") are loaded with SCRIPT LOAD, pipelined. Reported per
#              server: the growth of used_memory_lua (= used_memory_vm_eval,
#              the Lua heap as Lua counts it), of the same heap after a full
#              collection (collectgarbage, so the garbage the compiler left
#              and the collector's phase don't count), of
#              used_memory_scripts_eval (the cache outside Lua), and of VmRSS.
#   --fresh    the start-up footprint of a server that ran no script: each
#              binary started ROUNDS times (no TLS, `--save ''`, or the
#              given config file), VmRSS and /proc/PID/smaps_rollup read 1 s
#              after it answered PING; the median run, then Rss,
#              Private_Dirty and Shared (clean + dirty) per mapping of the
#              last run. --base PATH adds a third binary (e.g. an older
#              build of this server). For a binary with its linker map
#              (<binary>.map, which the Makefile writes; src/redis-server's
#              is build/native/redis-server.map), also the bytes of its
#              scripting objects (Lua, cjson, lua_*, eval/function/script)
#              that are resident, per run (utils/rss-by-object.py): what
#              scripting costs a server that ran no script. Issue #17's
#              target is at most 64 KB. For an A/B of two builds, give both
#              binaries the same page-cache history (copy both just before
#              the run): the kernel maps whole large folios around a fault,
#              so a file read back from disk and one just written page in
#              differently (about 100 KB apart here).
#
# Usage: utils/bench-script-memory.sh [--fresh] [-n SCRIPTS] [-r ROUNDS] [--ours PATH] [--ref PATH]
#        [--base PATH] [--conf FILE]
# The reference defaults to /usr/bin/redis-server (Debian's); without it
# only our figures are printed. Servers run pinned to one core
# (utils/bench-lib.sh); memory figures don't depend on the machine's load.
set -u
cd "$(dirname "$0")/.." || exit 1

scripts=10000; rounds=3; ours=src/redis-server; ref=/usr/bin/redis-server; base=""; conf=""; mode=scripts
while [ $# -gt 0 ]; do
    case $1 in
        --fresh) mode=fresh; shift ;;
        -n) scripts=$2; shift 2 ;;
        -r) rounds=$2; shift 2 ;;
        --ours) ours=$2; shift 2 ;;
        --ref) ref=$2; shift 2 ;;
        --base) base=$2; shift 2 ;;
        --conf) conf=$2; shift 2 ;;
        *) echo "unknown option $1" >&2; exit 2 ;;
    esac
done
[ -x "$ours" ] || { echo "$ours not built: run make" >&2; exit 1; }
[ -x "$ref" ] || { echo "reference $ref not found: apt-get install redis-server (or --ref PATH)"; ref=""; }
[ -z "$conf" ] || [ -r "$conf" ] || { echo "config file $conf not readable" >&2; exit 1; }

. utils/bench-lib.sh
bench_init

# Starts BINARY (with the config file first when there is one) -> pid, port.
start() {
    local port
    port=$(free_port)
    if [ -n "$conf" ]; then
        # the config file must be the first argument: a wrapper script does that
        printf '#!/bin/sh\nexec "%s" "%s" "$@"\n' "$1" "$(realpath "$conf")" >"$tmp/with-conf-$port"
        chmod +x "$tmp/with-conf-$port"
        pid=$(start_server "$tmp/with-conf-$port" "$port" --daemonize no) || return 1
    else
        pid=$(start_server "$1" "$port") || return 1
    fi
    echo "$pid $port"
}

rss_kb() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

info_field() { # port field
    redis-cli -p "$1" info memory | awk -F: -v f="$2" '$1 == f { gsub(/\r/, "", $2); print $2 }'
}

# ---- the script cache ------------------------------------------------------------------

# RESP for SCRIPT LOAD "return 1" ... "return N", for redis-cli --pipe.
load_commands() {
    awk -v n="$scripts" 'BEGIN { for (i = 1; i <= n; i++) { b = "return " i
        printf "*3\r\n$6\r\nSCRIPT\r\n$4\r\nLOAD\r\n$%d\r\n%s\r\n", length(b), b } }'
}

lua_after_gc() { # port -> used_memory_lua after a full collection
    redis-cli -p "$1" eval "collectgarbage('collect') return 0" 0 >/dev/null
    info_field "$1" used_memory_lua
}

# One server: prints "lua lua_gc scripts rss" growths in bytes.
script_cache_growth() {
    local pid port l0 g0 s0 r0 l1 g1 s1 r1
    read -r pid port < <(start "$1") || return 1
    redis-cli -p "$port" eval "return 0" 0 >/dev/null # the Lua state exists in both
    l0=$(info_field "$port" used_memory_lua); s0=$(info_field "$port" used_memory_scripts_eval)
    r0=$(rss_kb "$pid")
    load_commands >"$tmp/load.resp"
    redis-cli -p "$port" --pipe <"$tmp/load.resp" >"$tmp/pipe.out" 2>&1
    grep -q "errors: 0, replies: $scripts" "$tmp/pipe.out" || { cat "$tmp/pipe.out" >&2; return 1; }
    l1=$(info_field "$port" used_memory_lua); s1=$(info_field "$port" used_memory_scripts_eval)
    r1=$(rss_kb "$pid")
    g1=$(lua_after_gc "$port")
    stop_server "$pid"
    # the heap before the scripts, collected too: a fresh state has little garbage
    read -r pid port < <(start "$1") || return 1
    g0=$(lua_after_gc "$port")
    stop_server "$pid"
    echo "$((l1 - l0)) $((g1 - g0)) $((s1 - s0)) $(((r1 - r0) * 1024))"
}

script_cache() {
    local a b
    echo "== memory after SCRIPT LOAD of $scripts distinct scripts (\"return 1\" ... \"return $scripts\"); growth over a server that ran one EVAL; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    a=$(script_cache_growth "$ours") || exit 1
    if [ -n "$ref" ]; then b=$(script_cache_growth "$ref") || exit 1; else b="0 0 0 0"; fi
    printf "%-34s %12s %12s %7s %14s\n" "growth (bytes)" ours reference ratio "ours/script"
    local names=("used_memory_lua (vm_eval)" "used_memory_lua after full GC" "used_memory_scripts_eval" "VmRSS") j
    for j in 0 1 2 3; do
        local x y
        x=$(echo "$a" | cut -d' ' -f$((j + 1))); y=$(echo "$b" | cut -d' ' -f$((j + 1)))
        printf "%-34s %12s %12s %7s %14s\n" "${names[$j]}" "$x" "$([ -n "$ref" ] && echo "$y" || echo -)" \
            "$(ratio "$x" "$y")" "$(awk -v x="$x" -v n="$scripts" 'BEGIN { printf "%.1f", x / n }')"
    done
}

# ---- the start-up footprint --------------------------------------------------------------

# per-mapping Rss, Private_Dirty, Shared (kB) of PID, biggest first
mappings() {
    awk '/^[0-9a-f]+-[0-9a-f]+ / { n = $6; if (n == "") n = "[anon]"; sub(/.*\//, "", n); next }
         /^Rss:/ { rss[n] += $2 } /^Private_Dirty:/ { pd[n] += $2 } /^Shared_(Clean|Dirty):/ { sh[n] += $2 }
         END { for (k in rss) if (rss[k] > 0) printf "    %-28s %6d %6d %6d\n", k, rss[k], pd[k], sh[k] }' \
        "/proc/$1/smaps" | sort -k2 -n -r
}

# "SCRIPTING REST": resident bytes of the scripting objects of PID's binary
# and of the rest of its image, or nothing (no linker map for the binary:
# Debian's build, another build made without one)
image_resident() { utils/rss-by-object.py --brief "$1" 2>/dev/null | awk '$1 == "scripting" { print $2, $4 }'; }

median_kb() { # column of $tmp/image -> "a b c (median m)", in kB
    awk -v c="$1" '{ printf "%.1f ", $c / 1024 }' "$tmp/image"
    sort -n -k"$1" "$tmp/image" | sed -n "$(((rounds + 1) / 2))p" | awk -v c="$1" '{ printf "(median %.1f)", $c / 1024 }'
}

fresh_one() { # binary label
    local pid port j
    : >"$tmp/fresh"
    : >"$tmp/image"
    for j in $(seq 1 "$rounds"); do
        read -r pid port < <(start "$1") || return 1
        sleep 1
        echo "$(rss_kb "$pid") $(awk '/^(Rss|Private_Dirty|Shared_Clean|Shared_Dirty):/ { printf "%s%s ", $1, $2 }' \
            "/proc/$pid/smaps_rollup")" >>"$tmp/fresh"
        image_resident "$pid" >>"$tmp/image"
        [ "$j" = "$rounds" ] && mappings "$pid" >"$tmp/maps"
        stop_server "$pid"
    done
    echo "$2 ($1): VmRSS of $rounds runs (kB): $(cut -d' ' -f1 "$tmp/fresh" | tr '\n' ' ')"
    echo "    median run: $(sort -n "$tmp/fresh" | sed -n "$(((rounds + 1) / 2))p" | cut -d' ' -f2-)"
    if [ -s "$tmp/image" ]; then
        echo "    image resident (kB, utils/rss-by-object.py): scripting objects $(median_kb 1), target <= 64"
        echo "                                                 the rest $(median_kb 2)"
    fi
    printf "    %-28s %6s %6s %6s\n" "mapping (last run, kB)" Rss PrivDy Shared
    cat "$tmp/maps"
}

fresh() {
    echo "== start-up footprint, no script run, no TLS, ${conf:-"--save ''"}; load: $(cut -d' ' -f1-3 /proc/loadavg)"
    fresh_one "$ours" ours || exit 1
    [ -n "$base" ] && { fresh_one "$base" base || exit 1; }
    [ -n "$ref" ] && { fresh_one "$ref" reference || exit 1; }
}

if [ "$mode" = fresh ]; then fresh; else script_cache; fi
