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
# Design decisions (details and reasons in deps/jemalloc/README.md; the
# fetching, checksum, stamp and isolation helpers are deps/common.sh's):
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
# Debian source package, upstream version, orig tarball (deps/common.sh).
readonly JE_COMPONENT="jemalloc $JE_VERSION $JE_TARBALL"
readonly JE_MAKE_JOBS="${JEMALLOC_MAKE_JOBS:-2}"

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly CHECKSUM_FILE="$SCRIPT_DIR/jemalloc.sha256"
readonly CACHE_DIR="${DEPS_CACHE_DIR:-$(dirname "$SCRIPT_DIR")/.cache}"

readonly DEP_NAME=jemalloc
readonly DEP_FALLBACK="jemalloc could not be built; build with MALLOC=libc instead"
# shellcheck source=../common.sh
. "$SCRIPT_DIR/../common.sh"

# ---------------------------------------------------------------- reporting

usage_error() {
    echo "usage: $0 OUTDIR CC HOST LG_PAGE [EXTRA_CFLAGS...]" >&2
    echo "  e.g. $0 build/native/jemalloc cc '' 16" >&2
    echo "       $0 build/armv7/jemalloc arm-linux-gnueabihf-gcc arm-linux-gnueabihf 16" >&2
    fail "$1"
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

    check_common_arguments
    case "$LG_PAGE" in
        12|13|14|15|16) ;;
        *) usage_error "LG_PAGE must be 12..16 (4 KiB..64 KiB pages), got '$LG_PAGE'" ;;
    esac
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
    printf 'recipe: %s\n' "$(recipe_hash "${BASH_SOURCE[0]}")"
}

outputs_exist() {
    [ -f "$OUT_DIR/lib/libjemalloc.a" ] &&
        [ -f "$OUT_DIR/include/jemalloc/jemalloc.h" ] &&
        [ -f "$OUT_DIR/include/jemalloc/jemalloc_page.h" ]
}

# ---------------------------------------------------------------- build

extract_source() {
    SRC_DIR="$OUT_DIR/src"
    rm -rf "${SRC_DIR:?}" "${OUT_DIR:?}/lib" "${OUT_DIR:?}/include"
    mkdir -p "$SRC_DIR"
    TARBALL_PATH="$CACHE_DIR/$JE_TARBALL"
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
    # -g1 after configure's -g3 (which wins, being later): line tables and
    # symbols, not macro definitions -- a crash report's frames and a
    # debugger's backtrace are the same, and each of the cross ports'
    # builds compiles about a quarter faster (5.3 s -> 3.6 s for
    # jemalloc.c with the armv6 compiler).
    (cd "$SRC_DIR" &&
        run env CC="$BUILD_CC" EXTRA_CFLAGS="-g1 $EXTRA_CFLAGS_ARG" \
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
    prepare_out_dir   # also locks OUTDIR: one build of a port at a time
    clear_inherited_build_environment
    EXPECTED_SHA256="$(expected_sha256 "$JE_TARBALL")" || exit 1
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
    obtain_tarballs "$JE_COMPONENT"
    extract_source
    configure_and_build
    printf '%s\n' "$stamp" >"$STAMP_FILE"
    log "done in $((SECONDS - started))s"
    echo "jemalloc $JE_VERSION: built $OUT_DIR/lib/libjemalloc.a" \
        "(${HOST_TRIPLET:-native}, lg-page $LG_PAGE) in $((SECONDS - started))s"
}

main "$@"
