#!/usr/bin/env bash
# install-check.sh -- `make install DESTDIR=...` installs what a sysadmin
# expects, and only that: stripped programs with debug links (symbols by
# `make install-debug`), the README the systemd unit documents, the unit
# (its paths following PREFIX and SYSCONFDIR), a logrotate file and
# redis.conf -- which a second install must not overwrite; into the live
# system, never over a file a Debian package owns;
# redis-check-rdb as a link to the server (as Debian ships it); `make
# uninstall` removes every program.
# The unit is checked with `systemd-analyze` where it exists: it must verify,
# and its exposure score must be no worse than Debian's redis-server unit
# when that is installed (both figures are printed).
#
# Usage: tests/install-check.sh [make arguments, e.g. PORT=musl]
# Uses the current build (`make all` must have run). Ends with
# "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
passed=0; failed=0
stage=$(mktemp -d /tmp/install-check.XXXXXX)
trap 'rm -rf "$stage"' EXIT

check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "[ok] $what"; passed=$((passed + 1));
    else echo "[FAIL] $what"; failed=$((failed + 1)); fi
}

run_install() { make --no-print-directory "$@" DESTDIR="$stage" PREFIX=/usr/local >"$stage.log" 2>&1; }

bin=$stage/usr/local/bin
programs="redis-server redis-cli redis-benchmark redis-check-aof redis-check-rdb"

installs_cleanly() { run_install "$@" install || { sed 's/^/    /' "$stage.log"; return 1; }; }

every_program_installed() {
    for p in $programs; do [ -x "$bin/$p" ] || { echo "    missing $bin/$p"; return 1; }; done
}

# No symbol table and no DWARF left, but a debug link to <program>.debug.
programs_stripped_with_debug_link() {
    for p in $programs; do
        local sections
        sections=$(readelf -S -W "$bin/$p") || return 1
        if grep -qE '\.symtab|\.debug_info' <<<"$sections"; then echo "    $p is not stripped"; return 1; fi
        grep -q '\.gnu_debuglink' <<<"$sections" || { echo "    $p has no debug link"; return 1; }
    done
}

server_runs() { "$bin/redis-server" --version | grep -q 'v='; }

# redis-check-rdb is the server under another name, as in Debian: a link.
check_rdb_is_the_server() {
    [ -L "$bin/redis-check-rdb" ] && [ "$(readlink "$bin/redis-check-rdb")" = redis-server ] ||
        { echo "    $bin/redis-check-rdb is not a link to redis-server"; return 1; }
    "$bin/redis-check-rdb" -v | grep -q '^redis-check-rdb ' || { echo "    redis-check-rdb -v failed"; return 1; }
}

uninstall_removes_programs() {
    run_install "$@" uninstall || { sed 's/^/    /' "$stage.log"; return 1; }
    local p
    for p in $programs; do
        [ -e "$bin/$p" ] || [ -L "$bin/$p" ] && { echo "    $bin/$p left behind"; return 1; }
    done
    return 0
}

support_files_installed() {
    local f
    for f in usr/local/share/doc/redis-portable/README.md usr/local/lib/systemd/system/redis-portable.service \
             etc/logrotate.d/redis-portable etc/redis-portable/redis.conf; do
        [ -s "$stage/$f" ] || { echo "    missing $f"; return 1; }
    done
}

# The unit's Documentation= must name a file the installation provides.
unit_documentation_exists() {
    local doc
    doc=$(sed -n 's|^Documentation=file://||p' "$stage/usr/local/lib/systemd/system/redis-portable.service")
    [ -n "$doc" ] && [ -s "$stage$doc" ] || { echo "    Documentation=$doc is not installed"; return 1; }
}

config_kept_on_reinstall() {
    echo "# changed by the administrator" >>"$stage/etc/redis-portable/redis.conf"
    run_install "$@" install || return 1
    grep -q 'changed by the administrator' "$stage/etc/redis-portable/redis.conf"
}

debug_symbols_installed() {
    run_install "$@" install-debug || return 1
    for p in $programs; do
        [ "$p" = redis-check-rdb ] && continue # the server's symbols serve it (its debug link names them)
        readelf -S -W "$stage/usr/lib/debug/usr/local/bin/$p.debug" 2>/dev/null | grep -q '\.debug_info' ||
            { echo "    no symbols for $p"; return 1; }
    done
}

exposure() { systemd-analyze security --offline=yes "$1" 2>/dev/null | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p'; }

unit_hardened() {
    local ours theirs copy=$stage/unit-check/redis-portable.service
    mkdir -p "$(dirname "$copy")" && cp "$stage/usr/local/lib/systemd/system/redis-portable.service" "$copy"
    ours=$(exposure "$copy")
    [ -n "$ours" ] || { echo "    systemd-analyze gave no score"; return 1; }
    if [ -f /lib/systemd/system/redis-server.service ]; then
        cp /lib/systemd/system/redis-server.service "$stage/unit-check/debian-redis-server.service"
        theirs=$(exposure "$stage/unit-check/debian-redis-server.service")
        echo "    exposure: ours $ours, Debian's redis-server unit $theirs"
        awk -v a="$ours" -v b="$theirs" 'BEGIN { exit !(a <= b) }'
    else
        echo "    exposure: ours $ours (Debian's unit not installed, no comparison)"
    fi
}

# The unit names the programs and the config where PREFIX and SYSCONFDIR
# put them (it named /usr/local/bin whatever PREFIX was).
unit_follows_prefix() {
    local other=$stage/prefixed unit
    make --no-print-directory "$@" DESTDIR="$other" PREFIX=/opt/rp SYSCONFDIR=/etc/rp install >"$stage.log" 2>&1 ||
        { sed 's/^/    /' "$stage.log"; return 1; }
    unit=$other/opt/rp/lib/systemd/system/redis-portable.service
    grep -qx 'ExecStart=/opt/rp/bin/redis-server /etc/rp/redis-portable/redis.conf --supervised systemd --daemonize no' "$unit" &&
        grep -q '^ExecPaths=/opt/rp/bin/redis-server ' "$unit" &&
        grep -q ' -/etc/rp/redis-portable$' "$unit" &&
        [ -s "$other$(sed -n 's|^Documentation=file://||p' "$unit")" ] &&
        ! grep -q '/usr/local' "$unit" || { echo "    the unit's paths:"; grep -n '/' "$unit" | grep -v '^[0-9]*:#' | sed 's/^/    /'; return 1; }
}

# Into the live system (no DESTDIR), a file a Debian package owns is not
# overwritten and nothing is written. The package database is a fake one
# (DPKG_ADMINDIR) that gives redis-cli, under a PREFIX inside the staging
# directory, to a package: the real install would go there if the guard let
# it through.
guard_refuses_packaged_files() {
    local live=$stage/live db=$stage/dpkg-db out
    mkdir -p "$db/info"
    printf 'Package: fake-redis-tools\nStatus: install ok installed\nVersion: 1\nArchitecture: all\nMaintainer: t <t@t>\nDescription: t\n\n' >"$db/status"
    echo "$live/usr/bin/redis-cli" >"$db/info/fake-redis-tools.list"
    if out=$(make --no-print-directory "$@" DESTDIR= PREFIX="$live/usr" SYSCONFDIR="$live/etc" DPKG_ADMINDIR="$db" install 2>&1); then
        echo "    make install succeeded over a packaged file"; return 1
    fi
    grep -q "refusing to overwrite $live/usr/bin/redis-cli: it belongs to the Debian package 'fake-redis-tools'" <<<"$out" ||
        { echo "    no refusal naming the package:"; sed 's/^/    /' <<<"$out" | tail -5; return 1; }
    [ ! -e "$live" ] || { echo "    files were written:"; find "$live" | sed 's/^/    /' | head; return 1; }
}

# Debian's own packages, when installed: PREFIX=/usr would replace them.
guard_knows_debian_redis() {
    local out
    out=$(utils/install-guard.sh /usr/bin/redis-server /usr/local/bin/redis-server 2>&1) && return 1
    grep -q "refusing to overwrite /usr/bin/redis-server: it belongs to the Debian package 'redis-server'" <<<"$out" &&
        ! grep -q "overwrite /usr/local" <<<"$out"
}

check "make install succeeds into a staging directory" installs_cleanly "$@"
check "every program is installed and executable" every_program_installed
check "installed programs are stripped and carry a debug link" programs_stripped_with_debug_link
check "the installed server runs" server_runs
check "redis-check-rdb is a link to the server and runs as that program" check_rdb_is_the_server
check "README, systemd unit, logrotate file and redis.conf are installed" support_files_installed
check "the unit's Documentation= names an installed file" unit_documentation_exists
check "a second install keeps an edited redis.conf" config_kept_on_reinstall "$@"
check "make install-debug installs the symbols under /usr/lib/debug" debug_symbols_installed "$@"
if command -v systemd-analyze >/dev/null 2>&1; then
    check "the systemd unit is at least as hardened as Debian's" unit_hardened
else
    echo "[skip] systemd unit exposure score: systemd-analyze is not installed"
fi
check "the unit's ExecStart=, ExecPaths=, Documentation= and config follow PREFIX and SYSCONFDIR" unit_follows_prefix "$@"
if command -v dpkg-query >/dev/null 2>&1; then
    check "make install into the system refuses a file a Debian package owns, writing nothing" guard_refuses_packaged_files "$@"
    if dpkg-query -S /usr/bin/redis-server >/dev/null 2>&1; then
        check "the install guard names Debian's redis-server package for /usr/bin/redis-server" guard_knows_debian_redis
    else
        echo "[skip] install guard against Debian's redis-server: the package is not installed"
    fi
else
    echo "[skip] install guard: no dpkg-query (not a Debian system)"
fi
check "make uninstall removes every program" uninstall_removes_programs "$@"
rm -f "$stage.log"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
