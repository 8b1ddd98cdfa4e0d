#!/usr/bin/env bash
# deb-check.sh -- the Debian packages (`make deb`) install, run, upgrade and
# go away as a Debian administrator expects (`make test-deb`, a .ci/run stage).
#
#  - builds the amd64 (native) and armhf (armv7) packages, and each again at a
#    higher version for the upgrade, and the armel (armv6: Debian on the Pi
#    1/Zero) package; lintian must report no error or warning; no file may
#    collide with Debian's redis-server / redis-tools packages; the armel
#    programs must be ARMv6 code;
#  - in a throwaway root per package (dpkg --root with its own admin dir, the
#    package's dependencies recorded as installed, a shell and the few
#    programs the maintainer scripts call copied from this machine -- dpkg
#    runs the scripts chrooted there): install (user, group, folders and
#    conffile modes from postinst), edit redis.conf, upgrade (the edit is
#    kept: dpkg's conffile handling), remove (the configuration stays),
#    purge (folders, user and group go); armel: install, remove, purge (the
#    upgrade is dpkg's and the same on every architecture);
#  - starts the installed amd64 server chrooted in its root as the unit does
#    (the unit's ExecStart line, its user, its WorkingDirectory) and PINGs it;
#    runs the installed armhf and armel servers under qemu-arm-static with
#    the cross toolchains' glibc (armel on an emulated ARM1176, the Pi
#    1/Zero's core), PINGs each, and makes it a replica of a name that only
#    an NSS module knows (tests/deb-nss-module.c, cross-built, named in the
#    emulated sysroot's nsswitch.conf): the link comes up only if getaddrinfo
#    in the packaged binary loaded the module, as it would load libnss-mdns.
#
# Needs root (chroot, chown in the roots). Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
top=$(pwd)
passed=0; failed=0
work=$(mktemp -d /tmp/deb-check.XXXXXX)
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    rm -rf "$work"
}
trap cleanup EXIT

check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "[ok] $what"; passed=$((passed + 1));
    else echo "[FAIL] $what"; failed=$((failed + 1)); fi
}
finish() { echo "$passed passed, $failed failed"; exit $((failed > 0)); }

v1=$(sed -n 's/^#define PROJECT_VERSION "\(.*\)"/\1/p' src/version.h)
v2=$v1+upgradetest1
host_arch=$(dpkg --print-architecture)
cli=$top/src/redis-cli
[ -x "$cli" ] || cli=$(command -v redis-cli)

# ---- building --------------------------------------------------------------
build() { # port version
    local t0=$SECONDS
    make --no-print-directory deb PORT="$1" DEB_VERSION="$2" >"$work/build-$1-$2.log" 2>&1 ||
        { sed 's/^/    /' "$work/build-$1-$2.log" | tail -30; return 1; }
    echo "    $(tail -1 "$work/build-$1-$2.log") in $((SECONDS - t0)) s"
}
check "make deb PORT=native ($host_arch, $v1)" build native "$v1"
check "make deb PORT=armv7 (armhf, $v1)" build armv7 "$v1"
check "make deb PORT=native ($host_arch, $v2: the upgrade)" build native "$v2"
check "make deb PORT=armv7 (armhf, $v2: the upgrade)" build armv7 "$v2"
check "make deb PORT=armv6 (armel, $v1)" build armv6 "$v1"
deb_amd=build/deb/native/redis-portable_${v1}_$host_arch.deb
deb_amd2=build/deb/native/redis-portable_${v2}_$host_arch.deb
deb_arm=build/deb/armv7/redis-portable_${v1}_armhf.deb
deb_arm2=build/deb/armv7/redis-portable_${v2}_armhf.deb
deb_armel=build/deb/armv6/redis-portable_${v1}_armel.deb
for d in "$deb_amd" "$deb_amd2" "$deb_arm" "$deb_arm2" "$deb_armel"; do [ -f "$d" ] || finish; done

# ---- the packages themselves -------------------------------------------------
lintian_clean() { # deb
    local out
    out=$(lintian --allow-root "$1" 2>&1)
    [ -n "$out" ] && sed 's/^/    /' <<<"$out"
    ! grep -qE '^[EW]: ' <<<"$out"
}
check "lintian: no error or warning ($host_arch)" lintian_clean "$deb_amd"
check "lintian: no error or warning (armhf)" lintian_clean "$deb_arm"
check "lintian: no error or warning (armel)" lintian_clean "$deb_armel"

# Every file and link of ours against the files of Debian's redis packages:
# those installed here (dpkg -L), else the list known to be theirs.
no_collision() { # deb
    local theirs ours clash
    theirs=$(dpkg -L redis-server redis-tools 2>/dev/null | grep -v '^/\.$')
    [ -n "$theirs" ] || theirs=$(printf '%s\n' /usr/bin/redis-{server,cli,benchmark,check-aof,check-rdb} \
        /etc/redis/redis.conf /lib/systemd/system/redis-server.service /etc/logrotate.d/redis-server \
        /usr/share/man/man1/redis-{server,cli,benchmark,check-aof,check-rdb}.1.gz)
    ours=$(dpkg-deb -c "$1" | awk '$1 !~ /^d/ {print $6}' | sed 's|^\.||')
    clash=$(comm -12 <(sort -u <<<"$theirs") <(sort -u <<<"$ours"))
    [ -z "$clash" ] || { echo "    also in Debian's redis packages: $clash"; return 1; }
}
check "no file shared with Debian's redis-server/redis-tools ($host_arch)" no_collision "$deb_amd"

dynamic_for_target() { # deb loader: the server asks for the target's glibc loader
    local x=$work/x-$(basename "$1")
    mkdir -p "$x" && dpkg-deb -x "$1" "$x"
    readelf -lW "$x/usr/lib/redis-portable/bin/redis-server" | grep -q "interpreter: $2]" &&
        dpkg-deb -f "$1" Depends | grep -qE '(^|, )libc6 \(>= [0-9.]+\)' &&
        ! dpkg-deb -f "$1" Depends | grep -q cross
}
check "armhf programs are dynamically linked; Depends names the target's libc6" \
    dynamic_for_target "$deb_arm" /lib/ld-linux-armhf.so.3
check "armel programs are dynamically linked; Depends names the target's libc6" \
    dynamic_for_target "$deb_armel" /lib/ld-linux.so.3
armv6_only() { # every armel program is ARMv6 code with no Thumb-2 (the ARM1176)
    local x=$work/x-$(basename "$deb_armel") f attrs n=0
    for f in "$x"/usr/lib/redis-portable/bin/*; do
        [ -L "$f" ] && continue
        attrs=$(readelf -A "$f")
        grep -q 'Tag_CPU_arch: v6' <<<"$attrs" && ! grep -q Thumb-2 <<<"$attrs" ||
            { echo "    $(basename "$f"): $(grep -E 'Tag_CPU_arch|THUMB' <<<"$attrs" | tr -s ' \n' ' ')"; return 1; }
        n=$((n + 1))
    done
    [ "$n" -ge 4 ]
}
check "armel programs are ARMv6 code, no Thumb-2 (Pi 1/Zero)" armv6_only

# ---- a throwaway root ----------------------------------------------------------
# Merged /usr as on Debian 12, the shell and the programs the maintainer
# scripts call (and their libraries) from this machine, root's passwd files,
# and an admin dir recording the package's dependencies as installed.
copy_with_libs() { # root program...
    local r=$1; shift
    for p in "$@"; do
        local f; f=$(command -v "$p") || return 1
        mkdir -p "$r$(dirname "$f")" && cp -L "$f" "$r$f"
        for lib in $(ldd "$f" 2>/dev/null | grep -oE '/[^ ]+\.so[^ ]*'); do
            [ -e "$r$lib" ] || { mkdir -p "$r$(dirname "$lib")" && cp -L "$lib" "$r$lib"; }
        done
    done
}
make_root() { # root arch deb
    local r=$1 arch=$2 deb=$3 dep
    mkdir -p "$r"/usr/{bin,sbin,lib,lib64} "$r"/{etc,tmp,run,dev,var/lib/dpkg/{info,updates,triggers}}
    for d in bin sbin lib lib64; do ln -s usr/$d "$r/$d"; done
    chmod 1777 "$r/tmp"
    copy_with_libs "$r" sh dash cat chown chmod mkdir rm rmdir getent useradd userdel groupdel \
        dpkg-statoverride ldconfig start-stop-daemon || return 1
    cp /etc/login.defs "$r/etc/"
    printf 'root:x:0:0:root:/root:/bin/sh\n' >"$r/etc/passwd"
    printf 'root:x:0:\n' >"$r/etc/group"
    printf 'root:*:19000:0:99999:7:::\n' >"$r/etc/shadow"
    printf 'root:*::\n' >"$r/etc/gshadow"
    chmod 640 "$r/etc/shadow" "$r/etc/gshadow"
    printf 'passwd: files\ngroup: files\nshadow: files\nhosts: files\n' >"$r/etc/nsswitch.conf"
    printf '127.0.0.1 localhost\n' >"$r/etc/hosts"
    touch "$r/var/lib/dpkg/status" "$r/var/lib/dpkg/available"
    [ "$arch" = "$host_arch" ] || dpkg --root="$r" --add-architecture "$arch"
    for dep in $(dpkg-deb -f "$deb" Depends | tr ',' '\n' | sed 's/(.*//; s/ //g'); do
        [ "$dep" = '${misc:Depends}' ] && continue
        printf 'Package: %s\nStatus: install ok installed\nPriority: optional\nSection: libs\nMaintainer: none\nArchitecture: %s\nMulti-Arch: %s\nVersion: 99:1\nDescription: stands in for the real package\n\n' \
            "$dep" "$arch" "$([ "$dep" = passwd ] && echo foreign || echo same)" >>"$r/var/lib/dpkg/status"
        touch "$r/var/lib/dpkg/info/$dep:$arch.list"
    done
    [ -e "$r/dev/null" ] || mknod -m 666 "$r/dev/null" c 1 3
    [ -e "$r/dev/urandom" ] || mknod -m 444 "$r/dev/urandom" c 1 9
}
dpkg_in() { # root dpkg-arguments...
    local r=$1; shift
    dpkg --root="$r" --force-not-root --log="$work/dpkg.log" "$@" >"$work/dpkg.out" 2>&1 ||
        { sed 's/^/    /' "$work/dpkg.out"; return 1; }
}
stat_is() { # root path "mode user group"
    local got u g
    [ -e "$1$2" ] || { echo "    $2 is missing"; return 1; }
    u=$(awk -F: -v id="$(stat -c %u "$1$2")" '$3 == id {print $1}' "$1/etc/passwd")
    g=$(awk -F: -v id="$(stat -c %g "$1$2")" '$3 == id {print $1}' "$1/etc/group")
    got="$(stat -c %a "$1$2") $u $g"
    [ "$got" = "$3" ] || { echo "    $2: $got, expected $3"; return 1; }
}
installed_as_expected() { # root
    local r=$1
    grep -q '^redis-portable:x:[0-9]*:[0-9]*:.*:/var/lib/redis-portable:/usr/sbin/nologin$' "$r/etc/passwd" &&
        grep -q '^redis-portable:' "$r/etc/group" &&
        stat_is "$r" /etc/redis-portable "2770 root redis-portable" &&
        stat_is "$r" /etc/redis-portable/redis.conf "660 root redis-portable" &&
        stat_is "$r" /var/lib/redis-portable "750 redis-portable redis-portable" &&
        stat_is "$r" /var/log/redis-portable "750 redis-portable redis-portable" &&
        [ -x "$r/usr/bin/redis-portable-server" ] && [ -f "$r/lib/systemd/system/redis-portable.service" ] &&
        [ -f "$r/etc/logrotate.d/redis-portable" ] &&
        grep -qx '/etc/redis-portable/redis.conf' "$r/var/lib/dpkg/info/redis-portable.conffiles"
}
edit_config() { # root
    printf '# edited by the administrator\nmaxmemory-policy allkeys-lru\n' >>"$1/etc/redis-portable/redis.conf"
}
upgraded_keeping_edit() { # root new-deb version
    dpkg_in "$1" --force-confold -i "$2" &&
        [ "$(dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Version}' redis-portable)" = "$3" ] &&
        grep -qx 'maxmemory-policy allkeys-lru' "$1/etc/redis-portable/redis.conf" &&
        ! ls "$1"/etc/redis-portable/redis.conf.dpkg-* >/dev/null 2>&1 &&
        installed_as_expected "$1"
}
removed_keeping_config() { # root
    dpkg_in "$1" -r redis-portable &&
        [ ! -e "$1/usr/lib/redis-portable/bin/redis-server" ] && [ ! -e "$1/usr/bin/redis-portable-server" ] &&
        grep -qx 'maxmemory-policy allkeys-lru' "$1/etc/redis-portable/redis.conf" &&
        grep -q '^redis-portable:' "$1/etc/passwd" && [ -d "$1/var/lib/redis-portable" ]
}
purged() { # root
    dpkg_in "$1" -P redis-portable &&
        [ ! -e "$1/etc/redis-portable" ] && [ ! -e "$1/var/lib/redis-portable" ] &&
        [ ! -e "$1/var/log/redis-portable" ] && [ ! -e "$1/etc/logrotate.d/redis-portable" ] &&
        ! grep -q '^redis-portable:' "$1/etc/passwd" "$1/etc/group" &&
        [ -z "$(dpkg-query --admindir="$1/var/lib/dpkg" -W -f='${Status}' redis-portable 2>/dev/null)" ]
}

free_port() { # a TCP port nobody listens on, from a base
    local p=$1
    while (exec 3<>/dev/tcp/127.0.0.1/$p) 2>/dev/null; do p=$((p + 1)); done
    echo "$p"
}
wait_for() { # seconds command...
    local n=$(( $1 * 10 )); shift
    while [ $n -gt 0 ]; do "$@" && return 0; sleep 0.1; n=$((n - 1)); done
    return 1
}
pong() { [ "$("$cli" -p "$1" ping 2>/dev/null)" = PONG ]; }

# ---- amd64: install, run as the unit does, upgrade, remove, purge -------------
ra=$work/root-$host_arch
check "throwaway root for $host_arch" make_root "$ra" "$host_arch" "$deb_amd"
check "dpkg -i $host_arch: user, group, folders and conffile modes from postinst" \
    eval 'dpkg_in "$ra" -i "$deb_amd" && installed_as_expected "$ra"'
check "edit /etc/redis-portable/redis.conf" edit_config "$ra"

# The unit's ExecStart command line, run chrooted in the root as the unit's
# User= in its WorkingDirectory= (the host's libraries stand in for libc6).
port_a=$(free_port 23790)
unit_server_pings() {
    local unit=$ra/lib/systemd/system/redis-portable.service exec user wd
    exec=$(sed -n 's/^ExecStart=//p' "$unit"); user=$(sed -n 's/^User=//p' "$unit")
    wd=$(sed -n 's/^WorkingDirectory=//p' "$unit")
    [ -n "$exec" ] && [ "$user" = redis-portable ] || { echo "    unit: ExecStart='$exec' User='$user'"; return 1; }
    echo "    ExecStart=$exec"
    for lib in $(ldd "$ra/usr/lib/redis-portable/bin/redis-server" | grep -oE '/[^ ]+\.so[^ ]*') \
               /lib/x86_64-linux-gnu/libm.so.6; do
        [ -e "$ra$lib" ] || { mkdir -p "$ra$(dirname "$lib")" && cp -L "$lib" "$ra$lib"; }
    done
    chroot --userspec="$user:$user" "$ra" /bin/sh -c "cd $wd && exec $exec --port $port_a --bind 127.0.0.1" \
        >"$work/server-a.log" 2>&1 &
    pids+=($!)
    wait_for 20 pong "$port_a" || { sed 's/^/    /' "$work/server-a.log" | tail -20; return 1; }
    "$cli" -p "$port_a" config get maxmemory-policy | grep -qx allkeys-lru &&
        "$cli" -p "$port_a" info server | grep -q '^config_file:/etc/redis-portable/redis.conf' &&
        "$cli" -p "$port_a" set k v >/dev/null && "$cli" -p "$port_a" save | grep -qx OK &&
        [ -s "$ra/var/lib/redis-portable/dump.rdb" ]
}
check "the unit's ExecStart, as redis-portable: PING, the edited config, SAVE into /var/lib/redis-portable" unit_server_pings
check_rdb_link() { # the /usr/bin name of the checker checks the dump
    chroot "$ra" /usr/bin/redis-portable-check-rdb /var/lib/redis-portable/dump.rdb 2>&1 | grep -q 'RDB looks OK'
}
check "redis-portable-check-rdb checks the server's dump" check_rdb_link

# ---- armhf and armel: the emulated servers, NSS ----------------------------
# The emulated program's sysroot (qemu-arm-static -L): the cross toolchain's
# glibc under lib/, its own /etc/nsswitch.conf and /etc/hosts, and the NSS
# module in usr/lib, where the target's ld.so looks for it. The armel
# package runs on an emulated ARM1176 (-cpu arm1176, the Pi 1/Zero's core):
# an ARMv7 instruction anywhere on its path -- ours, its start files, its
# libc -- stops it with SIGILL.
nss_name=primary-$$.rptest
port_e=$((port_a + 1))
emulated_root() { # arch deb: the throwaway root, installed, and its sysroot
    local arch=$1 deb=$2 r=$work/root-$1
    make_root "$r" "$arch" "$deb" && dpkg_in "$r" -i "$deb" && installed_as_expected "$r"
}
nss_module() { # arch triplet: tests/deb-nss-module.c -- names ending in .rptest are 127.0.0.1
    local sysroot=$work/sysroot-$1
    mkdir -p "$sysroot/etc" "$sysroot/usr/lib"
    ln -sfn "/usr/$2/lib" "$sysroot/lib"
    printf 'hosts: files rptest\n' >"$sysroot/etc/nsswitch.conf"
    printf '127.0.0.1 localhost\n' >"$sysroot/etc/hosts"
    "$2-gcc" -std=gnu11 -O2 -Wall -Wextra -fPIC -shared \
        -o "$sysroot/usr/lib/libnss_rptest.so.2" tests/deb-nss-module.c
}
emulated_server_pings_and_resolves() { # arch qemu-cpu
    local arch=$1 cpu=$2 r=$work/root-$1 exec log=$work/server-$1.log
    port_e=$(free_port $((port_e + 1)))
    exec=$(sed -n 's/^ExecStart=//p' "$r/lib/systemd/system/redis-portable.service")
    set -- $exec
    [ "$1" = /usr/lib/redis-portable/bin/redis-server ] && [ "$2" = /etc/redis-portable/redis.conf ] ||
        { echo "    unexpected ExecStart: $exec"; return 1; }
    shift 2
    mkdir -p "$work/data-$arch"
    (cd "$work/data-$arch" && exec qemu-arm-static -cpu "$cpu" -L "$work/sysroot-$arch" \
        "$r/usr/lib/redis-portable/bin/redis-server" \
        "$r/etc/redis-portable/redis.conf" "$@" --port "$port_e" --bind 127.0.0.1 --supervised no) \
        >"$log" 2>&1 &
    pids+=($!)
    wait_for 60 pong "$port_e" || { sed 's/^/    /' "$log" | tail -20; return 1; }
    "$cli" -p "$port_e" info server | grep -q '^arch_bits:32' || return 1
    getent hosts "$nss_name" >/dev/null && { echo "    $nss_name resolves on the host too"; return 1; }
    "$cli" -p "$port_e" replicaof "$nss_name" "$port_a" >/dev/null
    if ! wait_for 30 eval '"$cli" -p "$port_e" info replication | grep -q "^master_link_status:up"'; then
        "$cli" -p "$port_e" info replication | sed 's/^/    /'; tail -5 "$log" | sed 's/^/    /'
        return 1
    fi
    [ "$("$cli" -p "$port_e" get k)" = v ]
}
emulated_checks() { # arch deb triplet qemu-cpu
    local arch=$1 deb=$2 triplet=$3 cpu=$4
    check "dpkg -i $arch (throwaway root): user, group, folders and conffile modes from postinst" \
        emulated_root "$arch" "$deb"
    check "an $arch NSS hosts module (libnss_rptest.so.2, as libnss-mdns would be) in the emulated sysroot" \
        nss_module "$arch" "$triplet"
    check "$arch server under qemu-arm-static -cpu $cpu: PING; replicaof a name only the NSS module knows: link up, data synced" \
        emulated_server_pings_and_resolves "$arch" "$cpu"
}
emulated_checks armhf "$deb_arm" arm-linux-gnueabihf max
emulated_checks armel "$deb_armel" arm-linux-gnueabi arm1176
for p in "${pids[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null; done
pids=()

# ---- upgrades, removal, purge ----------------------------------------------------
check "upgrade $host_arch to $v2: the edited redis.conf is kept" upgraded_keeping_edit "$ra" "$deb_amd2" "$v2"
rh=$work/root-armhf
edit_config "$rh"
check "upgrade armhf to $v2: the edited redis.conf is kept" upgraded_keeping_edit "$rh" "$deb_arm2" "$v2"
re=$work/root-armel
check "dpkg -r $host_arch: programs gone, configuration, data and user kept" removed_keeping_config "$ra"
check "dpkg -P $host_arch: folders, conffiles, user and group gone" purged "$ra"
check "dpkg -r armhf: programs gone, configuration, data and user kept" removed_keeping_config "$rh"
check "dpkg -P armhf: folders, conffiles, user and group gone" purged "$rh"
edit_config "$re"
check "dpkg -r armel: programs gone, configuration, data and user kept" removed_keeping_config "$re"
check "dpkg -P armel: folders, conffiles, user and group gone" purged "$re"
for d in "$deb_amd" "$deb_arm" "$deb_armel"; do echo "    $(basename "$d"): $(du -k "$d" | cut -f1) KB, installed $(dpkg-deb -f "$d" Installed-Size) KB"; done
finish
