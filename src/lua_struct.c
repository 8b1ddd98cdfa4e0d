/* lua_struct.c -- the `struct` library of Redis scripts: packing Lua values
 * into binary strings and back, driven by a format string.
 *
 *   struct.pack(fmt, v1, v2, ...)   -> string
 *   struct.unpack(fmt, s [, pos])   -> v1, v2, ..., next position
 *   struct.size(fmt)                -> byte size of a fixed-size format
 *
 * The format language is that of Roberto Ierusalimschy's struct library as
 * Redis 7.0 ships it (written here from its documented and observed
 * behaviour; every case below was compared with Redis 7.0.15):
 *   >  <      big / little endian for what follows
 *   !n  !     maximum alignment n (a power of 2); '!' alone = 8
 *   x         one zero byte of padding (unpack: skipped)
 *   b B       signed / unsigned char (1 byte)
 *   h H       short (2)          l L   long (8)          T  size_t (8)
 *   i I       int (4); iN / IN: N bytes, N <= 32
 *   f d       float (4) / double (8), IEEE-754
 *   cN        N bytes of a string; pack: c0 = the whole string; unpack: c0
 *             = as many bytes as the number unpacked just before
 *   s         zero-terminated string
 *   ' '       ignored
 * '=' and 'X' are not options (Redis answers "invalid format option").
 *
 * Same bytes on every port (deliberate): the sizes and the default byte
 * order are those of Redis on x86-64 -- little endian unless '>' says
 * otherwise, long and size_t 8 bytes, int 4, '!' 8 -- on 32-bit and
 * big-endian ports alike, so a script's output never depends on the
 * machine. The C conversions Redis leaves to the CPU (a double that does not
 * fit the integer type, a NaN offset) are written out as x86-64 performs
 * them (structDoubleToU64 ...), and shift counts past 63 as x86 masks them.
 * Values wider than 8 bytes carry only their low 8 bytes, as in Redis.
 *
 * Errors: Lua errors with Redis's wording ("bad argument #1 to 'pack'
 * (invalid format option 'y')", "data string too short", ...), including its
 * quirks (a too-short string for 'cN' names the argument after it).
 *
 * Byte order is explicit everywhere: integers are assembled byte by byte in
 * the requested order, floats go through portable.h's storeNbe/le and
 * loadNbe/le; no buffer pointer is cast to a wider type. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lib/portable.h"
#include "lua_libs.h"

#define STRUCT_MAX_INT_SIZE 32
#define STRUCT_DEFAULT_MAX_ALIGN 8 /* '!' without a number */
#define STRUCT_SIZE_SHORT 2
#define STRUCT_SIZE_INT 4
#define STRUCT_SIZE_LONG 8
#define STRUCT_SIZE_SIZE_T 8
#define STRUCT_SIZE_FLOAT 4
#define STRUCT_SIZE_DOUBLE 8

/* The state a format string changes as it is read. */
typedef struct {
    int bigEndian;
    int maxAlign;
} structLayout;

static void structLayoutInit(structLayout *layout) {
    layout->bigEndian = 0;
    layout->maxAlign = 1;
}

/* ---- number conversions as x86-64 performs them ------------------------- */

/* (int64_t)d: truncation; NaN and out-of-range give INT64_MIN. */
static int64_t structDoubleToI64(lua_Number d) {
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return (int64_t)d;
    return INT64_MIN;
}

/* (uint64_t)d as gcc compiles it for x86-64: values below 2^63 (and NaN) go
 * through the signed conversion, larger ones through d - 2^63. */
static uint64_t structDoubleToU64(lua_Number d) {
    if (!(d >= 9223372036854775808.0)) return (uint64_t)structDoubleToI64(d);
    if (d < 18446744073709551616.0) return (uint64_t)(d - 9223372036854775808.0) ^ 0x8000000000000000ULL;
    return 0; /* INT64_MIN ^ INT64_MIN */
}

/* ---- reading the format ------------------------------------------------------ */

static int structIsDigit(int c) { return c >= '0' && c <= '9'; }
static int structIsAlnum(int c) {
    return structIsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z');
}

/* The decimal number at *fmt (advancing past it), or fallback if none. */
static int structReadNumber(lua_State *L, const char **fmt, int fallback) {
    if (!structIsDigit(**fmt)) return fallback;
    int n = 0;
    while (structIsDigit(**fmt)) {
        int digit = *(*fmt)++ - '0';
        if (n > INT32_MAX / 10 || n * 10 > INT32_MAX - digit) luaL_error(L, "integral size overflow");
        n = n * 10 + digit;
    }
    return n;
}

/* The byte size of option opt (reading its count from *fmt); 0 for options
 * that have no size of their own ('s', 'c0', controls, unknown letters). */
static size_t structOptionSize(lua_State *L, int opt, const char **fmt) {
    switch (opt) {
    case 'b': case 'B': case 'x': return 1;
    case 'h': case 'H': return STRUCT_SIZE_SHORT;
    case 'l': case 'L': return STRUCT_SIZE_LONG;
    case 'T': return STRUCT_SIZE_SIZE_T;
    case 'f': return STRUCT_SIZE_FLOAT;
    case 'd': return STRUCT_SIZE_DOUBLE;
    case 'c': return (size_t)structReadNumber(L, fmt, 1);
    case 'i': case 'I': {
        int n = structReadNumber(L, fmt, STRUCT_SIZE_INT);
        if (n > STRUCT_MAX_INT_SIZE)
            luaL_error(L, "integral size %d is larger than limit of %d", n, STRUCT_MAX_INT_SIZE);
        return (size_t)n;
    }
    default: return 0;
    }
}

/* Padding bytes before an item of `size` at offset pos. The mask arithmetic
 * is Redis's own, also for sizes that are not a power of two (i3, i6 ...). */
static uint64_t structPadding(uint64_t pos, const structLayout *layout, int opt, size_t size) {
    if (size == 0 || opt == 'c') return 0;
    uint64_t align = size > (size_t)layout->maxAlign ? (uint64_t)layout->maxAlign : size;
    return (align - (pos & (align - 1))) & (align - 1);
}

/* Options that change the layout; anything else left is an error. */
static void structControl(lua_State *L, int opt, const char **fmt, structLayout *layout) {
    switch (opt) {
    case ' ': return;
    case '>': layout->bigEndian = 1; return;
    case '<': layout->bigEndian = 0; return;
    case '!': {
        int align = structReadNumber(L, fmt, STRUCT_DEFAULT_MAX_ALIGN);
        if (align <= 0 || (align & (align - 1)) != 0) luaL_error(L, "alignment %d is not a power of 2", align);
        layout->maxAlign = align;
        return;
    }
    default:
        luaL_argerror(L, 1, lua_pushfstring(L, "invalid format option '%c'", opt));
    }
}

static int structIsInteger(int opt) { return opt != 0 && strchr("bBhHlLTiI", opt) != NULL; }

/* ---- pack ------------------------------------------------------------------- */

static void structPutInteger(luaL_Buffer *b, lua_Number n, const structLayout *layout, size_t size) {
    uint64_t v = structDoubleToU64(n); /* negative n: two's complement */
    unsigned char bytes[STRUCT_MAX_INT_SIZE];
    for (size_t i = 0; i < size; i++) {
        bytes[layout->bigEndian ? size - 1 - i : i] = (unsigned char)(v & 0xff);
        v >>= 8;
    }
    luaL_addlstring(b, (const char *)bytes, size);
}

static void structPutFloat(luaL_Buffer *b, lua_Number n, const structLayout *layout) {
    volatile float narrowed = (float)n; /* rounded to float even with x87 */
    float f = narrowed;
    uint32_t bits;
    unsigned char bytes[4];
    memcpy(&bits, &f, sizeof bits);
    if (layout->bigEndian) store32be(bytes, bits);
    else store32le(bytes, bits);
    luaL_addlstring(b, (const char *)bytes, sizeof bytes);
}

static void structPutDouble(luaL_Buffer *b, lua_Number n, const structLayout *layout) {
    double d = n;
    uint64_t bits;
    unsigned char bytes[8];
    memcpy(&bits, &d, sizeof bits);
    if (layout->bigEndian) store64be(bytes, bits);
    else store64le(bytes, bits);
    luaL_addlstring(b, (const char *)bytes, sizeof bytes);
}

/* 'cN' and 's': returns the bytes it added. A too-short string is reported
 * against arg + 1, as Redis does. */
static size_t structPutString(lua_State *L, luaL_Buffer *b, int arg, int opt, size_t size) {
    size_t len;
    const char *s = luaL_checklstring(L, arg, &len);
    if (size == 0) size = len;
    luaL_argcheck(L, len >= size, arg + 1, "string too short");
    luaL_addlstring(b, s, size);
    if (opt == 's') {
        luaL_addchar(b, '\0');
        size++;
    }
    return size;
}

static int structPack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    structLayout layout;
    structLayoutInit(&layout);
    int arg = 2;
    uint64_t total = 0;
    luaL_Buffer b;
    lua_pushnil(L); /* separates the arguments from the buffer's pieces */
    luaL_buffinit(L, &b);
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptionSize(L, opt, &fmt);
        uint64_t padding = structPadding(total, &layout, opt, size);
        total += padding;
        while (padding-- > 0) luaL_addchar(&b, '\0');
        if (structIsInteger(opt)) structPutInteger(&b, luaL_checknumber(L, arg++), &layout, size);
        else if (opt == 'x') luaL_addchar(&b, '\0');
        else if (opt == 'f') structPutFloat(&b, luaL_checknumber(L, arg++), &layout);
        else if (opt == 'd') structPutDouble(&b, luaL_checknumber(L, arg++), &layout);
        else if (opt == 'c' || opt == 's') size = structPutString(L, &b, arg++, opt, size);
        else structControl(L, opt, &fmt, &layout);
        total += size;
    }
    luaL_pushresult(&b);
    return 1;
}

/* ---- unpack ----------------------------------------------------------------- */

static lua_Number structGetInteger(const unsigned char *p, const structLayout *layout, int isSigned, size_t size) {
    uint64_t v = 0;
    for (size_t i = 0; i < size; i++) v = (v << 8) | p[layout->bigEndian ? i : size - 1 - i];
    if (!isSigned) return (lua_Number)v;
    /* The sign bit of a value wider than 8 bytes: x86 masks the shift count
     * to 6 bits (and i0's count of -1 to 63). */
    uint64_t signMask = ~(uint64_t)0 << ((size * 8 - 1) & 63);
    if (v & signMask) v |= signMask;
    return (lua_Number)(int64_t)v;
}

static lua_Number structGetFloat(const unsigned char *p, const structLayout *layout) {
    uint32_t bits = layout->bigEndian ? load32be(p) : load32le(p);
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static lua_Number structGetDouble(const unsigned char *p, const structLayout *layout) {
    uint64_t bits = layout->bigEndian ? load64be(p) : load64le(p);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static void structCheckRoom(lua_State *L, uint64_t pos, uint64_t size, size_t len) {
    luaL_argcheck(L, size <= len && pos <= len - size, 2, "data string too short");
}

/* The 1-based start offset, as a 0-based position (Redis's size_t arithmetic:
 * an offset below 1 other than 0 wraps to a huge position that fails the
 * first size check). */
static uint64_t structStartPosition(lua_State *L) {
    uint64_t pos = (uint64_t)structDoubleToI64(luaL_optnumber(L, 3, 1));
    luaL_argcheck(L, pos > 0, 3, "offset must be 1 or greater");
    return pos - 1;
}

static int structUnpack(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    size_t len;
    const unsigned char *data = (const unsigned char *)luaL_checklstring(L, 2, &len);
    uint64_t pos = structStartPosition(L);
    structLayout layout;
    structLayoutInit(&layout);
    int results = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        uint64_t size = structOptionSize(L, opt, &fmt);
        pos += structPadding(pos, &layout, opt, (size_t)size);
        structCheckRoom(L, pos, size, len);
        luaL_checkstack(L, 2, "too many results"); /* the item and the position */
        if (structIsInteger(opt)) {
            lua_pushnumber(L, structGetInteger(data + pos, &layout, opt >= 'a', (size_t)size));
            results++;
        } else if (opt == 'f' || opt == 'd') {
            lua_pushnumber(L, opt == 'f' ? structGetFloat(data + pos, &layout) : structGetDouble(data + pos, &layout));
            results++;
        } else if (opt == 'c') {
            if (size == 0) { /* the length is the number unpacked before */
                if (results == 0 || !lua_isnumber(L, -1)) luaL_error(L, "format 'c0' needs a previous size");
                size = structDoubleToU64(lua_tonumber(L, -1));
                lua_pop(L, 1);
                results--;
                structCheckRoom(L, pos, size, len);
            }
            lua_pushlstring(L, (const char *)data + pos, (size_t)size);
            results++;
        } else if (opt == 's') {
            const unsigned char *end = memchr(data + pos, '\0', len - (size_t)pos);
            if (end == NULL) luaL_error(L, "unfinished string in data");
            size = (uint64_t)(end - (data + pos)) + 1;
            lua_pushlstring(L, (const char *)data + pos, (size_t)size - 1);
            results++;
        } else if (opt != 'x') {
            structControl(L, opt, &fmt, &layout);
        }
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)(int64_t)(pos + 1));
    return results + 1;
}

/* ---- size -------------------------------------------------------------------- */

static int structSize(lua_State *L) {
    const char *fmt = luaL_checkstring(L, 1);
    structLayout layout;
    structLayoutInit(&layout);
    uint64_t pos = 0;
    while (*fmt) {
        int opt = (unsigned char)*fmt++;
        size_t size = structOptionSize(L, opt, &fmt);
        pos += structPadding(pos, &layout, opt, size);
        if (opt == 's') luaL_argerror(L, 1, "option 's' has no fixed size");
        else if (opt == 'c' && size == 0) luaL_argerror(L, 1, "option 'c0' has no fixed size");
        /* Letters and digits are never controls: an unknown letter counts
         * as size 0 here, as in Redis (pack and unpack reject it). */
        if (!structIsAlnum(opt)) structControl(L, opt, &fmt, &layout);
        pos += size;
    }
    lua_pushnumber(L, (lua_Number)(int64_t)pos);
    return 1;
}

static const luaL_Reg structFunctions[] = {
    {"pack", structPack},
    {"unpack", structUnpack},
    {"size", structSize},
    {NULL, NULL},
};

int luaopen_struct(lua_State *L) {
    luaL_register(L, "struct", structFunctions);
    return 1;
}
