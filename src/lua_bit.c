/* lua_bit.c -- the `bit` library of Redis scripts: 32-bit bitwise operations
 * on Lua numbers, with the API and results of LuaBitOp 1.0.2.
 *
 * Why here and not a dependency: the LuaBitOp release tarball (Debian's
 * lua-bitop orig tarball) is not on the package mirror this project can
 * reach, so its API is written here from the documented behaviour and checked
 * against Redis 7.0 (tests/c/test_lua_libs.c). See deps/lua/README.md.
 *
 * Semantics (LuaBitOp's): every argument is first normalised to a signed
 * 32-bit integer by bit.tobit, and every result is such an integer.
 *   tobit(x)                 x rounded to the nearest integer (ties to even)
 *                            and reduced modulo 2^32, as a signed value. For
 *                            |x| >= 2^51 (where LuaBitOp's "add 2^52 + 2^51
 *                            and take the low word" trick stops being
 *                            arithmetic) the result is that trick's: the low
 *                            32 bits of the double x + 2^52 + 2^51. NaN gives
 *                            0 on every port (SPARC's default NaN has other
 *                            payload bits than x86's).
 *   bnot(x), band/bor/bxor(x, ...)     at least one argument
 *   lshift/rshift/arshift/rol/ror(x, n)   n taken modulo 32
 *   bswap(x)                 byte order reversed
 *   tohex(x [, n])           n hex digits (default 8, at most 8), upper case
 *                            when n < 0. n = INT32_MIN counts as -INT32_MAX:
 *                            negating it would overflow (the flaw fixed for
 *                            CVE-2024-31449), so it means "8 upper-case
 *                            digits", as in Redis's fixed copy.
 *
 * Cross-port: tobit rounds with rint() (exact; no x87 double rounding on
 * i386) and reads the double's bits with memcpy, so every port gives the same
 * integers. Error messages are luaL_checknumber's, as in LuaBitOp. */
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lua_libs.h"

#define BIT_TRICK_LIMIT 2251799813685248.0 /* 2^51 */
#define BIT_TRICK_BIAS 6755399441055744.0  /* 2^52 + 2^51 */

static uint32_t bitNormalise(lua_Number n) {
    if (n != n) return 0;
    if (fabs(n) < BIT_TRICK_LIMIT) return (uint32_t)(uint64_t)(int64_t)rint(n);
    volatile double biased = n + BIT_TRICK_BIAS; /* rounded to double on x87 too */
    double stored = biased;
    uint64_t bits;
    memcpy(&bits, &stored, sizeof bits);
    return (uint32_t)bits;
}

static uint32_t bitArg(lua_State *L, int arg) {
    return bitNormalise(luaL_checknumber(L, arg));
}

static int bitPush(lua_State *L, uint32_t v) {
    lua_pushnumber(L, (lua_Number)(int32_t)v);
    return 1;
}

static int bitTobit(lua_State *L) { return bitPush(L, bitArg(L, 1)); }
static int bitBnot(lua_State *L) { return bitPush(L, ~bitArg(L, 1)); }
static int bitBswap(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    return bitPush(L, (v >> 24) | ((v >> 8) & 0xff00u) | ((v & 0xff00u) << 8) | (v << 24));
}

enum bitFold { BIT_AND, BIT_OR, BIT_XOR };

static int bitFoldArgs(lua_State *L, enum bitFold op) {
    uint32_t acc = bitArg(L, 1);
    int argc = lua_gettop(L);
    for (int i = 2; i <= argc; i++) {
        uint32_t v = bitArg(L, i);
        if (op == BIT_AND) acc &= v;
        else if (op == BIT_OR) acc |= v;
        else acc ^= v;
    }
    return bitPush(L, acc);
}

static int bitBand(lua_State *L) { return bitFoldArgs(L, BIT_AND); }
static int bitBor(lua_State *L) { return bitFoldArgs(L, BIT_OR); }
static int bitBxor(lua_State *L) { return bitFoldArgs(L, BIT_XOR); }

/* The value and the shift count (modulo 32) of a shift or rotation. */
static uint32_t bitShiftArgs(lua_State *L, unsigned *count) {
    uint32_t v = bitArg(L, 1);
    *count = bitArg(L, 2) & 31u;
    return v;
}

static int bitLshift(lua_State *L) {
    unsigned n;
    uint32_t v = bitShiftArgs(L, &n);
    return bitPush(L, v << n);
}

static int bitRshift(lua_State *L) {
    unsigned n;
    uint32_t v = bitShiftArgs(L, &n);
    return bitPush(L, v >> n);
}

/* Arithmetic shift written without shifting a negative value (which C leaves
 * implementation-defined): the vacated bits are filled with the sign. */
static int bitArshift(lua_State *L) {
    unsigned n;
    uint32_t v = bitShiftArgs(L, &n);
    uint32_t shifted = v >> n;
    if ((v & 0x80000000u) && n) shifted |= ~(0xffffffffu >> n);
    return bitPush(L, shifted);
}

static int bitRol(lua_State *L) {
    unsigned n;
    uint32_t v = bitShiftArgs(L, &n);
    return bitPush(L, n ? (v << n) | (v >> (32 - n)) : v);
}

static int bitRor(lua_State *L) {
    unsigned n;
    uint32_t v = bitShiftArgs(L, &n);
    return bitPush(L, n ? (v >> n) | (v << (32 - n)) : v);
}

static int bitTohex(lua_State *L) {
    uint32_t v = bitArg(L, 1);
    int32_t n = lua_isnone(L, 2) ? 8 : (int32_t)bitArg(L, 2);
    const char *digits = "0123456789abcdef";
    if (n == INT32_MIN) n = -INT32_MAX; /* CVE-2024-31449: don't negate it */
    if (n < 0) {
        n = -n;
        digits = "0123456789ABCDEF";
    }
    if (n > 8) n = 8;
    char hex[8];
    for (int i = n - 1; i >= 0; i--) {
        hex[i] = digits[v & 15u];
        v >>= 4;
    }
    lua_pushlstring(L, hex, (size_t)n);
    return 1;
}

static const luaL_Reg bitFunctions[] = {
    {"tobit", bitTobit},   {"bnot", bitBnot},     {"band", bitBand},
    {"bor", bitBor},       {"bxor", bitBxor},     {"lshift", bitLshift},
    {"rshift", bitRshift}, {"arshift", bitArshift}, {"rol", bitRol},
    {"ror", bitRor},       {"bswap", bitBswap},   {"tohex", bitTohex},
    {NULL, NULL},
};

int luaopen_bit(lua_State *L) {
    luaL_register(L, "bit", bitFunctions);
    return 1;
}
