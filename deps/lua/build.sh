#!/usr/bin/env bash
# deps/lua/build.sh — build the Lua 5.1 interpreter and the lua-cjson module
# as one static library for one port.
#
# Usage: deps/lua/build.sh OUTDIR CC HOST [EXTRA_CFLAGS...]
#
#   OUTDIR        per-port build directory, e.g. build/deps-armv7/lua. On
#                 success it holds lib/liblua.a and include/{lua.h, luaconf.h,
#                 lualib.h, lauxlib.h}, plus build.log, src/ and a stamp.
#   CC            compiler command, may carry flags
#                 ("arm-linux-gnueabi-gcc -march=armv6 -marm -mfpu=vfp").
#   HOST          GNU triplet of a cross build (arm-linux-gnueabihf, ...), ""
#                 for a native one; it only names the archiver (HOST-ar).
#   EXTRA_CFLAGS  appended to the compiler flags below.
#
# Design decisions (details and reasons in deps/lua/README.md; the
# fetching, checksum, stamp and isolation helpers are deps/common.sh's):
# - Sources are the pinned upstream releases Lua 5.1.5 and lua-cjson 2.1.0,
#   fetched as the orig tarballs of Debian's source packages (Debian's
#   package mirrors are the only source registry this project can reach),
#   cached in deps/.cache/ and verified against deps/lua/lua.sha256.
#   Debian's patches are not applied; our own small patches in
#   deps/lua/patches/ are (security fixes and port-to-port consistency, each
#   explained at its top and in the README).
# - No configure step: Lua and cjson are plain C. The file lists and the
#   flags are fixed here, so the stamp (versions, checksums, CC, HOST,
#   flags, patches, this script) describes the whole build; an unchanged
#   stamp means "already built", any change rebuilds from a clean extraction.
# - Configuration: LUA_USE_POSIX minus everything dynamic (no dlopen, no
#   readline), -O2, no -fPIC (the compiler's default code model, PIE where
#   the toolchain defaults to it, so the archive links into the server).
# - The caller's make and compiler environment is cleared, so `make
#   CFLAGS=-O0` at top level cannot leak in; quiet on success (one line),
#   the log's tail and the reason on failure.

set -u -o pipefail

readonly LUA_VERSION=5.1.5
readonly CJSON_VERSION=2.1.0
# Debian source package, upstream version, orig tarball (deps/common.sh),
# and the directory it is extracted to.
readonly COMPONENTS=(
    "lua5.1 5.1.5 lua5.1_5.1.5.orig.tar.gz lua"
    "lua-cjson 2.1.0+dfsg lua-cjson_2.1.0+dfsg.orig.tar.gz cjson"
)
readonly MAKE_JOBS="${LUA_MAKE_JOBS:-2}"

# The interpreter: core, auxiliary library and every standard library
# (the scripting engine opens the ones scripts may use and removes the rest;
# objects nobody references are not linked). Not lua.c/luac.c/print.c.
readonly LUA_FILES=(
    lapi lcode ldebug ldo ldump lfunc lgc llex lmem lobject lopcodes
    lparser lstate lstring ltable ltm lundump lvm lzio
    lauxlib lbaselib ldblib liolib lmathlib loslib lstrlib ltablib
    loadlib linit
)
# lua-cjson with its libc-based number conversion (snprintf/strtod with the
# locale's decimal point handled), not the bundled dtoa.
readonly CJSON_FILES=(lua_cjson strbuf fpconv)
readonly PUBLIC_HEADERS=(lua.h luaconf.h lualib.h lauxlib.h)

# LUA_USE_POSIX: mkstemp, isatty, popen, _longjmp. Not LUA_USE_LINUX, which
# adds dlopen and readline. LUA_USELONGLONG: string.format('%d') converts
# through long long, so 32-bit ports print the same digits as 64-bit ones.
readonly BASE_CFLAGS=(-std=gnu99 -O2 -g -Wall -DLUA_USE_POSIX -DLUA_USELONGLONG)
# ENABLE_CJSON_GLOBAL: luaopen_cjson also sets the global "cjson", as
# luaL_register does for the other libraries scripts see.
readonly CJSON_CFLAGS=(-DENABLE_CJSON_GLOBAL -DNDEBUG)

SCRIPT_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
readonly SCRIPT_DIR
readonly CHECKSUM_FILE="$SCRIPT_DIR/lua.sha256"
readonly PATCH_DIR="$SCRIPT_DIR/patches"
readonly CACHE_DIR="${DEPS_CACHE_DIR:-$(dirname "$SCRIPT_DIR")/.cache}"

readonly DEP_NAME=lua
readonly DEP_FALLBACK="Lua could not be built; the server needs it for scripting"
# shellcheck source=../common.sh
. "$SCRIPT_DIR/../common.sh"

# ---------------------------------------------------------------- reporting

usage_error() {
    echo "usage: $0 OUTDIR CC HOST [EXTRA_CFLAGS...]" >&2
    echo "  e.g. $0 build/deps-native/lua cc ''" >&2
    echo "       $0 build/deps-armv7/lua arm-linux-gnueabihf-gcc arm-linux-gnueabihf" >&2
    fail "$1"
}

# ---------------------------------------------------------------- arguments

parse_arguments() {
    [ $# -ge 3 ] || usage_error "expected at least 3 arguments, got $#"
    OUT_DIR="$1"
    BUILD_CC="$2"
    HOST_TRIPLET="$3"
    shift 3
    EXTRA_CFLAGS_ARG="$*"

    check_common_arguments
    BUILD_AR="${HOST_TRIPLET:+$HOST_TRIPLET-}ar"
}

patch_files() {
    PATCHES=()
    local p
    for p in "$PATCH_DIR"/*.patch; do
        [ -f "$p" ] && PATCHES+=("$p")
    done
}

# ---------------------------------------------------------------- stamp

stamp_text() {
    local component name version tarball dir p
    for component in "${COMPONENTS[@]}"; do
        read -r name version tarball dir <<<"$component"
        printf '%s %s sha256 %s\n' "$name" "$version" "$(expected_sha256 "$tarball")"
    done
    printf 'CC=%s\nHOST=%s\nAR=%s\nEXTRA_CFLAGS=%s\n' \
        "$BUILD_CC" "$HOST_TRIPLET" "$BUILD_AR" "$EXTRA_CFLAGS_ARG"
    printf 'cflags: %s | cjson: %s\n' "${BASE_CFLAGS[*]}" "${CJSON_CFLAGS[*]}"
    printf 'files: %s | %s\n' "${LUA_FILES[*]}" "${CJSON_FILES[*]}"
    for p in "${PATCHES[@]}"; do
        printf 'patch %s %s\n' "$(basename "$p")" "$(sha256_of "$p")"
    done
    printf 'recipe: %s\n' "$(recipe_hash "${BASH_SOURCE[0]}")"
}

outputs_exist() {
    local h
    [ -f "$OUT_DIR/lib/liblua.a" ] || return 1
    for h in "${PUBLIC_HEADERS[@]}"; do
        [ -f "$OUT_DIR/include/$h" ] || return 1
    done
}

# ---------------------------------------------------------------- build

extract_and_patch() {
    SRC_DIR="$OUT_DIR/src"
    rm -rf "${SRC_DIR:?}" "${OUT_DIR:?}/lib" "${OUT_DIR:?}/include" "${OUT_DIR:?}/obj"
    local component name version tarball dir p
    for component in "${COMPONENTS[@]}"; do
        read -r name version tarball dir <<<"$component"
        mkdir -p "$SRC_DIR/$dir"
        run tar -xzf "$CACHE_DIR/$tarball" -C "$SRC_DIR/$dir" --strip-components=1 \
            --no-same-owner || fail "cannot extract $tarball"
    done
    for p in "${PATCHES[@]}"; do
        run patch -p1 -d "$SRC_DIR" --forward --no-backup-if-mismatch -i "$p" ||
            fail "patch $(basename "$p") does not apply"
    done
}

# compile SOURCE OBJECT FLAGS...: one translation unit, output to OBJECT.log
compile() {
    local src="$1" obj="$2"
    shift 2
    # shellcheck disable=SC2086  # CC may carry flags
    $BUILD_CC "${BASE_CFLAGS[@]}" "$@" $EXTRA_CFLAGS_ARG -I"$SRC_DIR/lua/src" \
        -c "$src" -o "$obj" >"$obj.log" 2>&1
}

# The list of "source object extra-flag..." jobs.
compile_jobs() {
    local f
    for f in "${LUA_FILES[@]}"; do
        echo "$SRC_DIR/lua/src/$f.c $OUT_DIR/obj/$f.o"
    done
    for f in "${CJSON_FILES[@]}"; do
        echo "$SRC_DIR/cjson/$f.c $OUT_DIR/obj/$f.o ${CJSON_CFLAGS[*]}"
    done
}

compile_all() {
    mkdir -p "$OUT_DIR/obj"
    log "compiling with: $BUILD_CC ${BASE_CFLAGS[*]} $EXTRA_CFLAGS_ARG"
    local running=() failed=0 job
    while read -r -a job; do
        compile "${job[@]}" &
        running+=($!)
        if [ "${#running[@]}" -ge "$MAKE_JOBS" ]; then
            wait "${running[0]}" || failed=1
            running=("${running[@]:1}")
        fi
    done < <(compile_jobs)
    for job in "${running[@]}"; do wait "$job" || failed=1; done
    cat "$OUT_DIR"/obj/*.log >>"$LOG_FILE" 2>/dev/null
    [ "$failed" -eq 0 ] || fail "compilation failed (CC='$BUILD_CC')"
}

install_outputs() {
    mkdir -p "$OUT_DIR/lib" "$OUT_DIR/include"
    run "$BUILD_AR" rcs "$OUT_DIR/lib/liblua.a" "$OUT_DIR"/obj/*.o ||
        fail "$BUILD_AR could not create liblua.a"
    local h
    for h in "${PUBLIC_HEADERS[@]}"; do
        install -m 644 "$SRC_DIR/lua/src/$h" "$OUT_DIR/include/$h" ||
            fail "cannot install $h"
    done
    outputs_exist || fail "build finished but its outputs are missing"
}

# ---------------------------------------------------------------- main

main() {
    parse_arguments "$@"
    prepare_out_dir   # also locks OUTDIR: one build of a port at a time
    clear_inherited_build_environment
    patch_files
    local stamp
    stamp="$(stamp_text)" || exit 1
    if build_is_up_to_date "$stamp"; then
        echo "lua $LUA_VERSION + cjson $CJSON_VERSION: up to date in $OUT_DIR"
        return 0
    fi

    local started=$SECONDS
    rm -f "$STAMP_FILE"
    : >"$LOG_FILE"
    log "building lua $LUA_VERSION + cjson $CJSON_VERSION: CC='$BUILD_CC' HOST='$HOST_TRIPLET' EXTRA_CFLAGS='$EXTRA_CFLAGS_ARG'"
    obtain_tarballs "${COMPONENTS[@]}"
    extract_and_patch
    compile_all
    install_outputs
    printf '%s\n' "$stamp" >"$STAMP_FILE"
    log "done in $((SECONDS - started))s"
    echo "lua $LUA_VERSION + cjson $CJSON_VERSION: built $OUT_DIR/lib/liblua.a" \
        "(${HOST_TRIPLET:-native}) in $((SECONDS - started))s"
}

main "$@"
