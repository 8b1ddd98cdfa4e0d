#!/usr/bin/env bash
# deps/jemalloc/build.sh — build a static, je_-prefixed jemalloc for one port.
#
# Usage: deps/jemalloc/build.sh OUTDIR CC HOST LG_PAGE [EXTRA_CFLAGS...]
#
#   OUTDIR        per-port build directory, e.g. build/armv7/jemalloc. On
#                 success it holds lib/libjemalloc.a,
#                 include/jemalloc/jemalloc.h, include/jemalloc/jemalloc_page.h
#                 (JEMALLOC_LG_PAGE), plus build.log, src/ and a stamp.
#   CC            compiler command, may carry flags
#                 ("arm-linux-gnueabi-gcc -march=armv6 -marm -mfpu=vfp").
#   HOST          GNU triplet for a cross build (arm-linux-gnueabihf, ...);
#                 empty ("") for a native build.
#   LG_PAGE       log2 of the LARGEST page size the binary must run on.
#   EXTRA_CFLAGS  appended to jemalloc's own CFLAGS, not used by configure's
#                 probes (jemalloc's EXTRA_CFLAGS semantics).
#
# Design decisions (details and reasons in deps/jemalloc/README.md):
# - Source is the pinned upstream 5.3.0 release, fetched as the orig tarball
#   of Debian's source package (Debian's package mirrors are the only source
#   registry this project can reach), cached in deps/.cache/ and verified
#   against the SHA-256 committed in deps/jemalloc/jemalloc.sha256. Debian's
#   patches are not applied: neither concerns our targets.
# - Every input that shapes the result (version, checksum, CC, HOST, LG_PAGE,
#   EXTRA_CFLAGS, configure options and this script itself) is written to a
#   stamp; an unchanged stamp means "already built", so repeated calls are
#   free and any change rebuilds from a clean extraction.
# - The caller's make and compiler environment (MAKEFLAGS, CFLAGS, ...) is
#   cleared so that e.g. `make CFLAGS=-O0` at top level cannot leak into
#   jemalloc's build and so that the stamp really describes the build.
# - Quiet: the log goes to OUTDIR/build.log; success prints one line; failure
#   prints the log's tail and ends with the fallback advice for the Makefile.

set -u -o pipefail

readonly JE_VERSION=5.3.0
readonly JE_TARBALL="jemalloc_${JE_VERSION}.orig.tar.bz2"
# The release's VERSION file (guaranteed by the checksum); passed explicitly
# because configure would otherwise ask `git describe` when OUTDIR lies
# inside our own git work tree.
readonly JE_VERSION_STRING="${JE_VERSION}-0-g54eaed1d8b56b1aa528be3bdd1877e59c56fa90c"
readonly JE_SOURCE_PACKAGE=jemalloc
readonly JE_DEBIAN_SUITE=bookworm
readonly APT_SOURCE_ENTRY="/etc/apt/sources.list.d/debian-${JE_DEBIAN_SUITE}-src.sources"
readonly JE_MAKE_JOBS="${JEMALLOC_MAKE_JOBS:-2}"
readonly FALLBACK_ADVICE="jemalloc could not be built; build with MALLOC=libc instead"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly CHECKSUM_FILE="$SCRIPT_DIR/jemalloc.sha256"
readonly CACHE_DIR="${DEPS_CACHE_DIR:-$(dirname "$SCRIPT_DIR")/.cache}"

LOG_FILE=""          # set once OUTDIR exists; fail() shows its tail

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
        for line in "$@"; do echo "jemalloc: $line"; done
        echo "$FALLBACK_ADVICE"
    } >&2
    exit 1
}

usage_error() {
    echo "usage: $0 OUTDIR CC HOST LG_PAGE [EXTRA_CFLAGS...]" >&2
    echo "  e.g. $0 build/native/jemalloc cc '' 16" >&2
    echo "       $0 build/armv7/jemalloc arm-linux-gnueabihf-gcc arm-linux-gnueabihf 16" >&2
    fail "$1"
}

log() { echo "[$(date '+%H:%M:%S')] $*" >>"$LOG_FILE"; }

# run CMD...: run a command with its output appended to the log.
run() {
    log "+ $*"
    "$@" >>"$LOG_FILE" 2>&1
}

# ---------------------------------------------------------------- arguments

parse_arguments() {
    [ $# -ge 4 ] || usage_error "expected at least 4 arguments, got $#"
    OUT_DIR="$1"
    BUILD_CC="$2"
    HOST_TRIPLET="$3"
    LG_PAGE="$4"
    shift 4
    EXTRA_CFLAGS_ARG="$*"

    [ -n "$OUT_DIR" ] || usage_error "OUTDIR must not be empty"
    [ -n "$BUILD_CC" ] || usage_error "CC must not be empty"
    case "$LG_PAGE" in
        12|13|14|15|16) ;;
        *) usage_error "LG_PAGE must be 12..16 (4 KiB..64 KiB pages), got '$LG_PAGE'" ;;
    esac
    case "$HOST_TRIPLET" in
        *[!A-Za-z0-9_.-]*) usage_error "HOST '$HOST_TRIPLET' is not a GNU triplet" ;;
    esac
}

prepare_out_dir() {
    mkdir -p "$OUT_DIR" || fail "cannot create OUTDIR '$OUT_DIR'"
    OUT_DIR="$(cd "$OUT_DIR" && pwd)"   # configure --prefix needs it absolute
    STAMP_FILE="$OUT_DIR/.build-stamp"
    LOG_FILE="$OUT_DIR/build.log"
}

# Isolate from whatever make or shell called us (see header).
clear_inherited_build_environment() {
    unset MAKEFLAGS MFLAGS MAKELEVEL MAKEOVERRIDES GNUMAKEFLAGS
    unset CFLAGS CPPFLAGS CXXFLAGS LDFLAGS LIBS CPP CXX EXTRA_CFLAGS EXTRA_LDFLAGS
    export LC_ALL=C
}

# ---------------------------------------------------------------- checksum

expected_sha256() {
    [ -r "$CHECKSUM_FILE" ] || fail "checksum file $CHECKSUM_FILE is missing"
    awk -v name="$JE_TARBALL" '$2 == name || $2 == "*" name { print $1; exit }' \
        "$CHECKSUM_FILE"
}

sha256_of() { sha256sum "$1" | cut -d' ' -f1; }

tarball_is_valid() {
    [ -f "$1" ] && [ "$(sha256_of "$1")" = "$EXPECTED_SHA256" ]
}

# ---------------------------------------------------------------- stamp

configure_options() {
    CONFIGURE_OPTIONS=(
        "--prefix=$OUT_DIR"
        "--with-version=$JE_VERSION_STRING"
        --with-jemalloc-prefix=je_
        "--with-lg-page=$LG_PAGE"
        --with-lg-hugepage=21
        --disable-shared
        --enable-static
        --disable-cxx
        --disable-doc
        --disable-libdl
        --disable-debug
        --disable-prof
    )
    # The private namespace is left at jemalloc's default, which prefixes
    # every internal symbol with je_ as well: nothing in libjemalloc.a can
    # clash with libc's malloc or with our own symbols.
    if [ -n "$HOST_TRIPLET" ]; then
        CONFIGURE_OPTIONS+=("--host=$HOST_TRIPLET")
    fi
}

stamp_text() {
    printf 'jemalloc %s sha256 %s\n' "$JE_VERSION" "$EXPECTED_SHA256"
    printf 'CC=%s\nHOST=%s\nLG_PAGE=%s\nEXTRA_CFLAGS=%s\n' \
        "$BUILD_CC" "$HOST_TRIPLET" "$LG_PAGE" "$EXTRA_CFLAGS_ARG"
    printf 'configure: %s\n' "${CONFIGURE_OPTIONS[*]}"
    printf 'recipe: %s\n' "$(sha256_of "${BASH_SOURCE[0]}")"
}

outputs_exist() {
    [ -f "$OUT_DIR/lib/libjemalloc.a" ] &&
        [ -f "$OUT_DIR/include/jemalloc/jemalloc.h" ] &&
        [ -f "$OUT_DIR/include/jemalloc/jemalloc_page.h" ]
}

# build_is_up_to_date STAMP
build_is_up_to_date() {
    outputs_exist && [ -f "$STAMP_FILE" ] &&
        [ "$(cat "$STAMP_FILE")" = "$1" ]
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
    echo "# Added by deps/jemalloc/build.sh: Debian source packages, used only"
    echo "# to fetch the pinned jemalloc ${JE_VERSION} release tarball."
    echo "Types: deb-src"
    echo "URIs: $(configured_debian_mirror)"
    echo "Suites: $JE_DEBIAN_SUITE"
    echo "Components: main"
    if [ -f "$keyring" ]; then echo "Signed-By: $keyring"; fi
}

instructions_for_non_root() {
    fail "the jemalloc ${JE_VERSION} source tarball is not cached and apt has no" \
        "usable deb-src entry; either, as root, run:" \
        "  printf 'Types: deb-src\\nURIs: $(configured_debian_mirror)\\nSuites: $JE_DEBIAN_SUITE\\nComponents: main\\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\\n' > $APT_SOURCE_ENTRY && apt-get update" \
        "or put the file $JE_TARBALL (sha256 $EXPECTED_SHA256) into $CACHE_DIR/," \
        "then run the build again."
}

# Newest Debian source version whose upstream part is JE_VERSION.
debian_source_version() {
    apt-cache showsrc "$JE_SOURCE_PACKAGE" 2>>"$LOG_FILE" |
        awk -v v="$JE_VERSION" '$1 == "Version:" && index($2, v "-") == 1 { print $2 }' |
        sort -V | tail -n 1
}

ensure_apt_knows_source() {
    SOURCE_VERSION="$(debian_source_version)"
    [ -n "$SOURCE_VERSION" ] && return 0
    [ "$(id -u)" -eq 0 ] || instructions_for_non_root
    if ! apt_has_deb_src_entry; then
        [ ! -e "$APT_SOURCE_ENTRY" ] ||
            fail "$APT_SOURCE_ENTRY exists but has no deb-src entry; not overwriting it"
        log "no deb-src entry configured; writing $APT_SOURCE_ENTRY"
        deb_src_entry_text >"$APT_SOURCE_ENTRY" || fail "cannot write $APT_SOURCE_ENTRY"
        cat "$APT_SOURCE_ENTRY" >>"$LOG_FILE"
    fi
    run apt-get update || fail "apt-get update failed"
    SOURCE_VERSION="$(debian_source_version)"
    [ -n "$SOURCE_VERSION" ] ||
        fail "apt knows no '$JE_SOURCE_PACKAGE' source package of version ${JE_VERSION}-*"
}

# Download the source package into a scratch dir, keep only the orig tarball.
download_tarball() {
    local scratch
    scratch="$(mktemp -d "$CACHE_DIR/download.XXXXXX")" || fail "cannot create $CACHE_DIR"
    # apt drops privileges to _apt while downloading; let it write here.
    chmod 755 "$scratch"
    chown _apt "$scratch" 2>/dev/null || true
    log "fetching $JE_SOURCE_PACKAGE=$SOURCE_VERSION (orig tarball only is kept)"
    if ! (cd "$scratch" && run apt-get source --download-only --tar-only \
            "$JE_SOURCE_PACKAGE=$SOURCE_VERSION"); then
        rm -rf "$scratch"
        fail "apt-get source could not download $JE_SOURCE_PACKAGE=$SOURCE_VERSION"
    fi
    if ! tarball_is_valid "$scratch/$JE_TARBALL"; then
        log "got sha256 $(sha256_of "$scratch/$JE_TARBALL" 2>/dev/null), expected $EXPECTED_SHA256"
        rm -rf "$scratch"
        fail "downloaded $JE_TARBALL is missing or its SHA-256 does not match $CHECKSUM_FILE"
    fi
    mv -f "$scratch/$JE_TARBALL" "$TARBALL_PATH"
    rm -rf "$scratch"
}

# Parallel port builds share the cache: one downloads, the others wait.
obtain_tarball() {
    TARBALL_PATH="$CACHE_DIR/$JE_TARBALL"
    mkdir -p "$CACHE_DIR" || fail "cannot create cache dir $CACHE_DIR"
    exec 9>"$CACHE_DIR/.jemalloc.lock"
    flock 9 || fail "cannot lock $CACHE_DIR/.jemalloc.lock"
    if tarball_is_valid "$TARBALL_PATH"; then
        log "using cached $TARBALL_PATH"
    else
        if [ -f "$TARBALL_PATH" ]; then
            log "cached $TARBALL_PATH has the wrong checksum; fetching again"
            rm -f "$TARBALL_PATH"
        fi
        ensure_apt_knows_source
        download_tarball
    fi
    exec 9>&-
}

# ---------------------------------------------------------------- build

extract_source() {
    SRC_DIR="$OUT_DIR/src"
    rm -rf "${SRC_DIR:?}" "${OUT_DIR:?}/lib" "${OUT_DIR:?}/include"
    mkdir -p "$SRC_DIR"
    run tar -xjf "$TARBALL_PATH" -C "$SRC_DIR" --strip-components=1 \
        --no-same-owner || fail "cannot extract $TARBALL_PATH"
    [ -x "$SRC_DIR/configure" ] || fail "the tarball has no configure script"
}

# With only --host, autoconf may still run target programs (binfmt+QEMU);
# naming the build machine as well forces a true cross build.
add_cross_build_option() {
    [ -n "$HOST_TRIPLET" ] || return 0
    local build_triplet
    build_triplet="$(sh "$SRC_DIR/build-aux/config.guess")" ||
        fail "config.guess could not name the build machine"
    CONFIGURE_OPTIONS+=("--build=$build_triplet")
}

configure_and_build() {
    add_cross_build_option
    (cd "$SRC_DIR" &&
        run env CC="$BUILD_CC" EXTRA_CFLAGS="$EXTRA_CFLAGS_ARG" \
            ./configure "${CONFIGURE_OPTIONS[@]}") ||
        fail "configure failed (CC='$BUILD_CC' HOST='$HOST_TRIPLET')"
    # Only the non-PIC archive: build_lib_static would compile every file a
    # third time for libjemalloc_pic.a, which we never link.
    (cd "$SRC_DIR" && run make -j"$JE_MAKE_JOBS" lib/libjemalloc.a) ||
        fail "compilation failed (CC='$BUILD_CC' HOST='$HOST_TRIPLET')"
    (cd "$SRC_DIR" && run make install_include &&
        run install -D -m 644 lib/libjemalloc.a "$OUT_DIR/lib/libjemalloc.a") ||
        fail "installing into $OUT_DIR failed"
    write_page_size_header
    outputs_exist || fail "build finished but its outputs are missing"
}

# jemalloc.h does not say which page size the library was built for, but
# the server must compare it with the running kernel's before its first
# allocation. Publish the value configure actually used.
write_page_size_header() {
    local defs="$SRC_DIR/include/jemalloc/internal/jemalloc_internal_defs.h"
    local configured
    configured="$(awk '$1 == "#define" && $2 == "LG_PAGE" { print $3 }' "$defs")"
    [ "$configured" = "$LG_PAGE" ] ||
        fail "configure chose LG_PAGE '$configured', expected $LG_PAGE"
    cat >"$OUT_DIR/include/jemalloc/jemalloc_page.h" <<EOF
/* Generated by deps/jemalloc/build.sh: the page size libjemalloc.a was built
 * for. jemalloc refuses to initialise ("Unsupported system page size") on a
 * kernel whose sysconf(_SC_PAGESIZE) is larger than 1 << JEMALLOC_LG_PAGE. */
#ifndef JEMALLOC_PAGE_H
#define JEMALLOC_PAGE_H
#define JEMALLOC_LG_PAGE $LG_PAGE
#endif
EOF
}

# ---------------------------------------------------------------- main

main() {
    parse_arguments "$@"
    prepare_out_dir
    # One build per OUTDIR at a time: two makes of the same port (say, a test
    # run and a build in another terminal) would otherwise run configure in
    # the same directory at once and corrupt each other. The second waits,
    # then finds the build up to date.
    exec 8>"$OUT_DIR/.build.lock"
    flock 8 || fail "cannot lock $OUT_DIR/.build.lock"
    clear_inherited_build_environment
    EXPECTED_SHA256="$(expected_sha256)"
    [ -n "$EXPECTED_SHA256" ] || fail "no checksum for $JE_TARBALL in $CHECKSUM_FILE"
    configure_options
    local stamp
    stamp="$(stamp_text)"
    if build_is_up_to_date "$stamp"; then
        echo "jemalloc $JE_VERSION: up to date in $OUT_DIR"
        return 0
    fi

    local started=$SECONDS
    rm -f "$STAMP_FILE"
    : >"$LOG_FILE"
    log "building jemalloc $JE_VERSION: CC='$BUILD_CC' HOST='$HOST_TRIPLET' LG_PAGE=$LG_PAGE EXTRA_CFLAGS='$EXTRA_CFLAGS_ARG'"
    obtain_tarball
    extract_source
    configure_and_build
    printf '%s\n' "$stamp" >"$STAMP_FILE"
    log "done in $((SECONDS - started))s"
    echo "jemalloc $JE_VERSION: built $OUT_DIR/lib/libjemalloc.a" \
        "(${HOST_TRIPLET:-native}, lg-page $LG_PAGE) in $((SECONDS - started))s"
}

main "$@"
