# deps/common.sh — what every dependency recipe (deps/*/build.sh) shares:
# reporting, the isolated build environment, the build stamp, and fetching a
# pinned upstream tarball from Debian's source packages, checked against the
# SHA-256 committed beside the recipe. Sourced, never run.
#
# A recipe sets, before sourcing:
#   DEP_NAME        short name for messages ("jemalloc", "lua")
#   DEP_FALLBACK    the advice printed last when the build fails
#   CHECKSUM_FILE   "sha256  tarball" lines of the pinned releases
#   CACHE_DIR       where tarballs are kept between builds (deps/.cache)
# and defines outputs_exist(), which says whether OUT_DIR holds a build.
#
# Design decisions:
# - Debian's package mirrors are the only source registry this project can
#   reach, so a release is fetched as the orig tarball of a Debian source
#   package (`apt-get source --download-only --tar-only`); Debian's own
#   patches are never applied by this file. The mirror gets a deb-src entry
#   only when none exists and we run as root; otherwise the message says
#   exactly what to run, or which file to put into the cache by hand.
# - A download lands in a scratch directory and enters the cache only when
#   its checksum matches, so a broken or tampered file is never built.
#   Parallel port builds share the cache under one lock: one downloads, the
#   others wait and find it there.
# - The stamp of a build names everything that shapes it; the recipe adds
#   its own inputs and this file's hash is part of `recipe_hash`, so a
#   change here rebuilds as a change in the recipe does.

# shellcheck shell=bash

readonly DEBIAN_SUITE=bookworm
readonly APT_SOURCE_ENTRY="/etc/apt/sources.list.d/debian-${DEBIAN_SUITE}-src.sources"
COMMON_SH="${BASH_SOURCE[0]}"
readonly COMMON_SH

LOG_FILE=""          # set by prepare_out_dir; fail() shows its tail

# ---------------------------------------------------------------- reporting

# fail MESSAGE...: explain, show the end of the log, advise, exit 1.
fail() {
    {
        if [ -n "$LOG_FILE" ] && [ -s "$LOG_FILE" ]; then
            echo "---- last lines of $LOG_FILE ----"
            tail -n 25 "$LOG_FILE"
            echo "----"
        fi
        local line
        for line in "$@"; do echo "$DEP_NAME: $line"; done
        echo "$DEP_FALLBACK"
    } >&2
    exit 1
}

log() { echo "[$(date '+%H:%M:%S')] $*" >>"$LOG_FILE"; }

# run CMD...: run a command with its output appended to the log.
run() {
    log "+ $*"
    "$@" >>"$LOG_FILE" 2>&1
}

# check_common_arguments: OUT_DIR, BUILD_CC and HOST_TRIPLET as the recipes
# take them; usage_error is the recipe's.
check_common_arguments() {
    [ -n "$OUT_DIR" ] || usage_error "OUTDIR must not be empty"
    [ -n "$BUILD_CC" ] || usage_error "CC must not be empty"
    case "$HOST_TRIPLET" in
        *[!A-Za-z0-9_.-]*) usage_error "HOST '$HOST_TRIPLET' is not a GNU triplet" ;;
    esac
}

# ---------------------------------------------------------------- build dir

# prepare_out_dir: OUT_DIR made absolute, its stamp and log named, and the
# directory locked for this build: two makes of the same port at once would
# otherwise build in the same directory; the second waits, then finds the
# build up to date.
prepare_out_dir() {
    mkdir -p "$OUT_DIR" || fail "cannot create OUTDIR '$OUT_DIR'"
    OUT_DIR="$(cd "$OUT_DIR" && pwd)"
    STAMP_FILE="$OUT_DIR/.build-stamp"
    LOG_FILE="$OUT_DIR/build.log"
    exec 8>"$OUT_DIR/.build.lock"
    flock 8 || fail "cannot lock $OUT_DIR/.build.lock"
}

# Isolate from whatever make or shell called us: `make CFLAGS=-O0` at top
# level must not leak into a dependency, and the stamp must describe it.
clear_inherited_build_environment() {
    unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
    unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS CPP CXX EXTRA_CFLAGS EXTRA_LDFLAGS
    export LC_ALL=C
}

# build_is_up_to_date STAMP
build_is_up_to_date() {
    outputs_exist && [ -f "$STAMP_FILE" ] && [ "$(cat "$STAMP_FILE")" = "$1" ]
}

# recipe_hash RECIPE: the stamp's line for the recipe and this file.
recipe_hash() {
    cat "$1" "$COMMON_SH" | sha256sum | cut -d' ' -f1
}

# ---------------------------------------------------------------- checksums

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

# expected_sha256 TARBALL
expected_sha256() {
    [ -r "$CHECKSUM_FILE" ] || fail "checksum file $CHECKSUM_FILE is missing"
    local sum
    sum="$(awk -v name="$1" '$2 == name || $2 == "*" name { print $1; exit }' \
        "$CHECKSUM_FILE")"
    [ -n "$sum" ] || fail "no checksum for $1 in $CHECKSUM_FILE"
    echo "$sum"
}

# tarball_is_valid PATH SHA256
tarball_is_valid() {
    [ -f "$1" ] && [ "$(sha256_of "$1")" = "$2" ]
}

# ---------------------------------------------------------------- apt source

apt_has_deb_src_entry() {
    grep -qsE '^[[:space:]]*deb-src[[:space:]]' \
        /etc/apt/sources.list /etc/apt/sources.list.d/*.list && return 0
    grep -qsiE '^Types:.*\bdeb-src\b' /etc/apt/sources.list.d/*.sources
}

# The Debian mirror already used for binary packages, so the deb-src entry
# goes through the same mirror (and proxy setup) as everything else.
configured_debian_mirror() {
    local uri
    uri="$(grep -hsiE '^URIs:' /etc/apt/sources.list.d/*.sources |
        awk '{print $2}' | grep -E '/debian/?$' | head -n 1)"
    if [ -z "$uri" ]; then
        uri="$(grep -hsE '^[[:space:]]*deb[[:space:]]' \
            /etc/apt/sources.list /etc/apt/sources.list.d/*.list |
            awk '{ for (i = 2; i <= NF; i++) if ($i !~ /^\[/) { print $i; exit } }' |
            grep -E '/debian/?$' | head -n 1)"
    fi
    echo "${uri:-http://deb.debian.org/debian}"
}

deb_src_entry_text() {
    local keyring=/usr/share/keyrings/debian-archive-keyring.gpg
    echo "# Added by deps/common.sh: Debian source packages, used only to fetch"
    echo "# the pinned release tarballs of the dependencies in deps/."
    echo "Types: deb-src"
    echo "URIs: $(configured_debian_mirror)"
    echo "Suites: $DEBIAN_SUITE"
    echo "Components: main"
    if [ -f "$keyring" ]; then echo "Signed-By: $keyring"; fi
}

# debian_source_version PACKAGE VERSION: the newest Debian source version of
# PACKAGE whose upstream part is VERSION.
debian_source_version() {
    apt-cache showsrc "$1" 2>>"$LOG_FILE" |
        awk -v v="$2" '$1 == "Version:" && index($2, v "-") == 1 { print $2 }' |
        sort -V | tail -n 1
}

# no_source_advice PACKAGE VERSION TARBALL SHA256: how to get it, then exit.
no_source_advice() {
    fail "apt knows no '$1' source package of version $2-*, and $3 is not cached." \
        "Either, as root, run:" \
        "  printf 'Types: deb-src\\nURIs: $(configured_debian_mirror)\\nSuites: $DEBIAN_SUITE\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' > $APT_SOURCE_ENTRY && apt-get update" \
        "or put $3 (sha256 $4) into $CACHE_DIR/ by hand, then build again."
}

# apt_locked CMD...: CMD under the one apt lock every recipe and
# utils/need-tools.sh share (APT_LOCK_FILE). apt-get refuses at once, rather
# than waiting, when another apt holds its own lock, so two recipes of one
# `make -j2` updating apt's lists together made one of them fail.
APT_LOCK_FILE="${APT_LOCK_FILE:-/tmp/.redis-portable-apt.lock}"
apt_locked() {
    (flock 7 || exit 1; "$@") 7>>"$APT_LOCK_FILE"
}

# source_version_or_fail PACKAGE VERSION TARBALL SHA256 -> SOURCE_VERSION;
# as root adds the deb-src entry when there is none and updates apt's lists.
source_version_or_fail() {
    SOURCE_VERSION="$(debian_source_version "$1" "$2")"
    [ -n "$SOURCE_VERSION" ] && return 0
    [ "$(id -u)" -eq 0 ] || no_source_advice "$@"
    if ! apt_has_deb_src_entry; then
        [ ! -e "$APT_SOURCE_ENTRY" ] ||
            fail "$APT_SOURCE_ENTRY exists but has no deb-src entry; not overwriting it"
        log "no deb-src entry configured; writing $APT_SOURCE_ENTRY"
        deb_src_entry_text >"$APT_SOURCE_ENTRY" || fail "cannot write $APT_SOURCE_ENTRY"
        cat "$APT_SOURCE_ENTRY" >>"$LOG_FILE"
    fi
    apt_locked run apt-get update || fail "apt-get update failed"
    SOURCE_VERSION="$(debian_source_version "$1" "$2")"
    [ -n "$SOURCE_VERSION" ] || no_source_advice "$@"
}

# download_tarball PACKAGE VERSION TARBALL SHA256: into the cache, checked.
download_tarball() {
    local package="$1" tarball="$3" sum="$4" scratch
    source_version_or_fail "$@"
    scratch="$(mktemp -d "$CACHE_DIR/download.XXXXXX")" || fail "cannot create $CACHE_DIR"
    chmod 755 "$scratch"
    chown _apt "$scratch" 2>/dev/null || true   # apt downloads as _apt
    log "fetching $package=$SOURCE_VERSION (orig tarball only is kept)"
    if ! (cd "$scratch" && apt_locked run apt-get source --download-only --tar-only \
            "$package=$SOURCE_VERSION"); then
        rm -rf "$scratch"
        fail "apt-get source could not download $package=$SOURCE_VERSION"
    fi
    if ! tarball_is_valid "$scratch/$tarball" "$sum"; then
        log "got sha256 $(sha256_of "$scratch/$tarball" 2>/dev/null), expected $sum"
        rm -rf "$scratch"
        fail "downloaded $tarball is missing or its SHA-256 does not match $CHECKSUM_FILE"
    fi
    mv -f "$scratch/$tarball" "$CACHE_DIR/$tarball"
    rm -rf "$scratch"
}

# obtain_tarballs "PACKAGE VERSION TARBALL ..." ...: each component's tarball
# in CACHE_DIR, verified (fields past the third are the recipe's own).
obtain_tarballs() {
    mkdir -p "$CACHE_DIR" || fail "cannot create cache dir $CACHE_DIR"
    exec 9>"$CACHE_DIR/.$DEP_NAME.lock"
    flock 9 || fail "cannot lock $CACHE_DIR/.$DEP_NAME.lock"
    local component package version tarball rest sum
    for component in "$@"; do
        read -r package version tarball rest <<<"$component"
        sum="$(expected_sha256 "$tarball")"
        if tarball_is_valid "$CACHE_DIR/$tarball" "$sum"; then
            log "using cached $CACHE_DIR/$tarball"
            continue
        fi
        [ -f "$CACHE_DIR/$tarball" ] && log "cached $tarball has the wrong checksum; fetching again"
        rm -f "$CACHE_DIR/$tarball"
        download_tarball "$package" "$version" "$tarball" "$sum"
    done
    exec 9>&-
}
