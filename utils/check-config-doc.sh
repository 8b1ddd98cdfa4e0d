#!/usr/bin/env bash
# check-config-doc.sh -- every directive the server accepts is documented in
# the shipped redis.conf.
#
#   utils/check-config-doc.sh [SERVER-BINARY] [CONFIG-FILE]
#
# The list of directives comes from the server itself
# (`redis-server --list-config-directives`, which prints the config table of
# src/config.c), so the table stays the single source of truth and this
# check cannot drift from it. A directive counts as documented when a line
# of the file starts with it, as a setting (`maxmemory 0`) or as a
# commented-out example (`# maxmemory 0`, `#maxmemory 0`).
#
# Checks the shipped file also loads: the server is started with it on a
# free port and must answer CONFIG GET, so an invalid example can't ship.
# Ends with "N passed, N failed"; the exit status is non-zero on failure.
set -u
cd "$(dirname "$0")/.." || exit 1
SERVER=${1:-src/redis-server}
CONF=${2:-redis.conf}
passed=0
failed=0

ok() { echo "[ok] $1"; passed=$((passed + 1)); }
bad() { echo "[FAIL] $1"; failed=$((failed + 1)); }

finish() {
    echo "$passed passed, $failed failed"
    [ "$failed" -eq 0 ]
    exit
}

if [ ! -x "$SERVER" ]; then
    bad "server binary $SERVER exists (build it first)"
    finish
fi
if [ ! -r "$CONF" ]; then
    bad "config file $CONF is readable"
    finish
fi

directives=$("$SERVER" --list-config-directives) || { bad "$SERVER --list-config-directives"; finish; }
count=$(printf '%s\n' "$directives" | grep -c .)
if [ "$count" -ge 10 ]; then ok "the server lists its $count directives"; else bad "the server lists its directives (got $count)"; fi

for name in $directives; do
    # Escape regex metacharacters a directive name could contain.
    quoted=$(printf '%s' "$name" | sed 's/[][\.*^$+?(){}|/]/\\&/g')
    if grep -qiE "^#? ?${quoted}([[:space:]]|\$)" "$CONF"; then
        ok "$name is documented in $CONF"
    else
        bad "$name is documented in $CONF (no line '$name ...' or '# $name ...')"
    fi
done

# The file must also be accepted as it ships. Port 0: no TCP listener is
# needed to check that the configuration loads; the server is stopped as
# soon as it proved it is past loading (it printed its start-up line).
tmpdir=$(mktemp -d)
trap 'rm -rf "$tmpdir"' EXIT
"$SERVER" "$CONF" --port 0 --dir "$tmpdir" --logfile "$tmpdir/log" --unixsocket "$tmpdir/sock" \
    >"$tmpdir/out" 2>"$tmpdir/err" &
pid=$!
started=0
for _ in $(seq 1 100); do
    if [ -S "$tmpdir/sock" ]; then started=1; break; fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
if [ "$started" -eq 1 ]; then
    ok "$CONF loads (the server started with it)"
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
else
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    bad "$CONF loads: $(tr '\n' ' ' <"$tmpdir/err")"
fi
finish
