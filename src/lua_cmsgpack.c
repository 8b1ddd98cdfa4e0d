/* lua_cmsgpack.c -- the `cmsgpack` library of Redis scripts: MessagePack
 * encoding of Lua values and decoding back.
 *
 *   cmsgpack.pack(v1, v2, ...)          -> the encodings, concatenated
 *   cmsgpack.unpack(s)                  -> every value in s
 *   cmsgpack.unpack_one(s [, offset])   -> next offset, one value
 *   cmsgpack.unpack_limit(s, n [, off]) -> next offset, up to n values
 * "next offset" is the 0-based offset of the first byte not decoded, or -1
 * when the input is used up. unpack_limit(s, 0) (and offset 0) decodes
 * everything and returns no offset, as unpack does.
 *
 * The choices are Redis 7.0's (written here from its observed behaviour;
 * tests/c/test_lua_libs.c holds its bytes as golden values):
 *   nil, and any type MessagePack has no name for (functions ...)  -> nil
 *   booleans -> true/false
 *   a number with an integral value in [-2^63, 2^63) -> the smallest
 *     integer encoding: positive fixint, uint 8/16/32/64 for values >= 0,
 *     negative fixint, int 8/16/32/64 below 0 (so -0.0 is integer 0);
 *     any other number -> float 32 when that is exact (also +-inf), else
 *     float 64 (NaN: float 64, its bits as they are)
 *   strings -> fixstr, str 8, str 16, str 32 (never bin)
 *   tables: an array when its keys are exactly the integers 1..n (every key
 *     a number in [1, INT32_MAX] and the largest equal to the count; so the
 *     empty table is the empty array), a map otherwise, in lua_next order;
 *     a table nested 16 deep (cyclic ones included) is encoded as nil.
 * Decoding accepts exactly those formats (plus the fixmap/map 16/32 and
 * array forms); bin, ext, fixext and 0xc1 are "Bad data format in input.",
 * a truncated value "Missing bytes in input.". uint 64 is decoded through
 * int64_t as Redis does (0xffffffffffffffff -> -1). A map whose key decodes
 * to nil fails with Lua's "table index is nil".
 * Stack limits are Redis's: pack takes at most as many arguments as the
 * stack can take twice (4000 in a fresh call), and decoding checks the Lua
 * stack for every value, so deep nesting (about 4000 levels) and huge
 * result lists end in Lua's "stack overflow" errors, never in a crash.
 *
 * Same bytes on every port: multi-byte values are written and read with
 * portable.h's big-endian helpers (MessagePack is big-endian), floats via
 * their IEEE bits, and the double -> float exactness test is forced through
 * memory (no x87 excess precision). The output is built in a Lua userdata
 * that grows by doubling, so an error half-way (out of memory, stack) leaks
 * nothing: the garbage collector owns every byte. */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#include <lauxlib.h>
#include <lua.h>

#include "lib/portable.h"
#include "lua_libs.h"

#define MP_MAX_NESTING 16 /* tables deeper than this are encoded as nil */

/* ---- the output buffer ---------------------------------------------------- */

typedef struct {
    lua_State *L;
    int slot; /* absolute stack index of the userdata holding the bytes */
    unsigned char *bytes;
    size_t len, cap;
} mpBuffer;

static void mpBufferInit(lua_State *L, mpBuffer *buf) {
    buf->L = L;
    buf->cap = 64;
    buf->len = 0;
    buf->bytes = lua_newuserdata(L, buf->cap);
    buf->slot = lua_gettop(L);
}

static unsigned char *mpBufferReserve(mpBuffer *buf, size_t n) {
    if (buf->cap - buf->len < n) {
        if (n > SIZE_MAX / 2 - buf->len) luaL_error(buf->L, "MessagePack output too large");
        size_t cap = buf->cap * 2;
        while (cap - buf->len < n) cap *= 2;
        unsigned char *bytes = lua_newuserdata(buf->L, cap);
        memcpy(bytes, buf->bytes, buf->len);
        lua_replace(buf->L, buf->slot);
        buf->bytes = bytes;
        buf->cap = cap;
    }
    return buf->bytes + buf->len;
}

static void mpAppend(mpBuffer *buf, const void *data, size_t n) {
    memcpy(mpBufferReserve(buf, n), data, n);
    buf->len += n;
}

static void mpAppendByte(mpBuffer *buf, unsigned char byte) { mpAppend(buf, &byte, 1); }

/* A type byte followed by an unsigned big-endian value of 1, 2, 4 or 8 bytes. */
static void mpAppendTagged(mpBuffer *buf, unsigned char tag, uint64_t v, int width) {
    unsigned char out[9];
    out[0] = tag;
    if (width == 1) out[1] = (unsigned char)v;
    else if (width == 2) store16be(out + 1, (uint16_t)v);
    else if (width == 4) store32be(out + 1, (uint32_t)v);
    else store64be(out + 1, v);
    mpAppend(buf, out, 1 + (size_t)width);
}

/* ---- encoding ----------------------------------------------------------------- */

static void mpEncodeInteger(mpBuffer *buf, int64_t v) {
    if (v >= 0) {
        uint64_t u = (uint64_t)v;
        if (u <= 0x7f) mpAppendByte(buf, (unsigned char)u);
        else if (u <= 0xff) mpAppendTagged(buf, 0xcc, u, 1);
        else if (u <= 0xffff) mpAppendTagged(buf, 0xcd, u, 2);
        else if (u <= 0xffffffffu) mpAppendTagged(buf, 0xce, u, 4);
        else mpAppendTagged(buf, 0xcf, u, 8);
    } else {
        if (v >= -32) mpAppendByte(buf, (unsigned char)((uint64_t)v & 0xff));
        else if (v >= INT8_MIN) mpAppendTagged(buf, 0xd0, (uint64_t)v, 1);
        else if (v >= INT16_MIN) mpAppendTagged(buf, 0xd1, (uint64_t)v, 2);
        else if (v >= INT32_MIN) mpAppendTagged(buf, 0xd2, (uint64_t)v, 4);
        else mpAppendTagged(buf, 0xd3, (uint64_t)v, 8);
    }
}

static void mpEncodeFloat(mpBuffer *buf, double d) {
    volatile float narrowed = (float)d; /* stored: rounded to float on x87 too */
    float f = narrowed;
    if ((double)f == d) {
        uint32_t bits;
        memcpy(&bits, &f, sizeof bits);
        mpAppendTagged(buf, 0xca, bits, 4);
    } else {
        uint64_t bits;
        memcpy(&bits, &d, sizeof bits);
        mpAppendTagged(buf, 0xcb, bits, 8);
    }
}

static void mpEncodeNumber(mpBuffer *buf, lua_Number n) {
    if (n >= -9223372036854775808.0 && n < 9223372036854775808.0 && n == floor(n))
        mpEncodeInteger(buf, (int64_t)n);
    else
        mpEncodeFloat(buf, n);
}

static void mpEncodeString(mpBuffer *buf, const char *s, size_t len) {
    if (len < 32) mpAppendByte(buf, (unsigned char)(0xa0 | len));
    else if (len <= 0xff) mpAppendTagged(buf, 0xd9, len, 1);
    else if (len <= 0xffff) mpAppendTagged(buf, 0xda, len, 2);
    else {
#if SIZE_MAX > 0xffffffffu
        if (len > 0xffffffffu) luaL_error(buf->L, "string too long for MessagePack");
#endif
        mpAppendTagged(buf, 0xdb, len, 4);
    }
    mpAppend(buf, s, len);
}

/* An array or map header for n elements: fix form, 16 or 32 bits. */
static void mpEncodeContainer(mpBuffer *buf, int isArray, size_t n) {
    if (n < 16) mpAppendByte(buf, (unsigned char)((isArray ? 0x90 : 0x80) | n));
    else if (n <= 0xffff) mpAppendTagged(buf, isArray ? 0xdc : 0xde, n, 2);
    else mpAppendTagged(buf, isArray ? 0xdd : 0xdf, n, 4);
}

/* The length n if the table at the top has exactly the keys 1..n, else -1. */
static lua_Integer mpArrayLength(lua_State *L) {
    lua_Integer count = 0;
    lua_Number max = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1); /* the value */
        lua_Number k = lua_type(L, -1) == LUA_TNUMBER ? lua_tonumber(L, -1) : 0;
        if (!(k >= 1 && k <= INT32_MAX && k == floor(k))) {
            lua_pop(L, 1);
            return -1;
        }
        if (k > max) max = k;
        count++;
    }
    return (lua_Number)count == max ? count : -1;
}

static void mpEncodeValue(lua_State *L, mpBuffer *buf, int level);

static void mpEncodeTable(lua_State *L, mpBuffer *buf, int level) {
    luaL_checkstack(L, 3, "in function mpEncodeTable");
    lua_Integer n = mpArrayLength(L);
    if (n >= 0) {
        mpEncodeContainer(buf, 1, (size_t)n);
        for (lua_Integer i = 1; i <= n; i++) {
            lua_rawgeti(L, -1, (int)i);
            mpEncodeValue(L, buf, level + 1);
        }
        return;
    }
    size_t pairs = 0;
    lua_pushnil(L);
    while (lua_next(L, -2)) {
        lua_pop(L, 1);
        pairs++;
    }
    mpEncodeContainer(buf, 0, pairs);
    lua_pushnil(L);
    while (lua_next(L, -2)) { /* ... table key value */
        lua_pushvalue(L, -2);
        mpEncodeValue(L, buf, level + 1); /* the key copy */
        mpEncodeValue(L, buf, level + 1); /* the value */
    }
}

/* Encodes the value at the top of the stack and pops it. */
static void mpEncodeValue(lua_State *L, mpBuffer *buf, int level) {
    size_t len;
    const char *s;
    switch (lua_type(L, -1)) {
    case LUA_TSTRING:
        s = lua_tolstring(L, -1, &len);
        mpEncodeString(buf, s, len);
        break;
    case LUA_TBOOLEAN: mpAppendByte(buf, lua_toboolean(L, -1) ? 0xc3 : 0xc2); break;
    case LUA_TNUMBER: mpEncodeNumber(buf, lua_tonumber(L, -1)); break;
    case LUA_TTABLE:
        if (level < MP_MAX_NESTING) mpEncodeTable(L, buf, level);
        else mpAppendByte(buf, 0xc0);
        break;
    default: mpAppendByte(buf, 0xc0); break;
    }
    lua_pop(L, 1);
}

static int mpPack(lua_State *L) {
    int nargs = lua_gettop(L);
    if (nargs == 0) return luaL_argerror(L, 0, "MessagePack pack needs input.");
    if (!lua_checkstack(L, nargs)) return luaL_argerror(L, 0, "Too many arguments for MessagePack pack.");
    mpBuffer buf;
    mpBufferInit(L, &buf);
    for (int i = 1; i <= nargs; i++) {
        lua_pushvalue(L, i);
        mpEncodeValue(L, &buf, 0);
    }
    lua_pushlstring(L, (const char *)buf.bytes, buf.len);
    return 1;
}

/* ---- decoding ----------------------------------------------------------------- */

typedef struct {
    const unsigned char *p;
    size_t left;
} mpCursor;

static void mpMissingBytes(lua_State *L) { luaL_error(L, "Missing bytes in input."); }

/* The next n bytes (consumed), or the "missing bytes" error. */
static const unsigned char *mpTake(lua_State *L, mpCursor *c, size_t n) {
    if (c->left < n) mpMissingBytes(L);
    const unsigned char *p = c->p;
    c->p += n;
    c->left -= n;
    return p;
}

static uint64_t mpTakeUnsigned(lua_State *L, mpCursor *c, int width) {
    const unsigned char *p = mpTake(L, c, (size_t)width);
    if (width == 1) return p[0];
    if (width == 2) return load16be(p);
    if (width == 4) return load32be(p);
    return load64be(p);
}

/* Sign-extends the width-byte value v. */
static int64_t mpSigned(uint64_t v, int width) {
    if (width == 8) return (int64_t)v;
    uint64_t sign = (uint64_t)1 << (width * 8 - 1);
    return (int64_t)((v ^ sign) - sign);
}

static void mpDecodeValue(lua_State *L, mpCursor *c);

static void mpDecodeString(lua_State *L, mpCursor *c, size_t len) {
    const unsigned char *p = mpTake(L, c, len);
    lua_pushlstring(L, (const char *)p, len);
}

static void mpDecodeArray(lua_State *L, mpCursor *c, uint64_t n) {
    lua_newtable(L);
    luaL_checkstack(L, 1, "in function mp_decode_to_lua_array");
    for (uint64_t i = 1; i <= n; i++) {
        lua_pushnumber(L, (lua_Number)i);
        mpDecodeValue(L, c);
        lua_settable(L, -3);
    }
}

static void mpDecodeMap(lua_State *L, mpCursor *c, uint64_t n) {
    lua_newtable(L);
    for (uint64_t i = 0; i < n; i++) {
        mpDecodeValue(L, c); /* key */
        mpDecodeValue(L, c); /* value */
        lua_settable(L, -3);
    }
}

static void mpDecodeFloat(lua_State *L, mpCursor *c) {
    uint32_t bits = (uint32_t)mpTakeUnsigned(L, c, 4);
    float f;
    memcpy(&f, &bits, sizeof f);
    lua_pushnumber(L, (lua_Number)f);
}

static void mpDecodeDouble(lua_State *L, mpCursor *c) {
    uint64_t bits = mpTakeUnsigned(L, c, 8);
    double d;
    memcpy(&d, &bits, sizeof d);
    lua_pushnumber(L, (lua_Number)d);
}

/* The formats whose type byte carries no payload of its own. */
static int mpDecodeFixed(lua_State *L, mpCursor *c, unsigned char tag) {
    if (tag <= 0x7f) lua_pushnumber(L, tag);
    else if (tag >= 0xe0) lua_pushnumber(L, (lua_Number)(int)(tag - 0x100));
    else if (tag >= 0xa0 && tag <= 0xbf) mpDecodeString(L, c, tag & 0x1f);
    else if (tag >= 0x90 && tag <= 0x9f) mpDecodeArray(L, c, tag & 0x0f);
    else if (tag >= 0x80 && tag <= 0x8f) mpDecodeMap(L, c, tag & 0x0f);
    else if (tag == 0xc0) lua_pushnil(L);
    else if (tag == 0xc2 || tag == 0xc3) lua_pushboolean(L, tag == 0xc3);
    else return 0;
    return 1;
}

/* Decodes one value and pushes it. */
static void mpDecodeValue(lua_State *L, mpCursor *c) {
    unsigned char tag = *mpTake(L, c, 1);
    luaL_checkstack(L, 1, "too many return values at once; use unpack_one or unpack_limit instead.");
    if (mpDecodeFixed(L, c, tag)) return;
    switch (tag) {
    case 0xcc: lua_pushnumber(L, (lua_Number)mpTakeUnsigned(L, c, 1)); break;
    case 0xcd: lua_pushnumber(L, (lua_Number)mpTakeUnsigned(L, c, 2)); break;
    case 0xce: lua_pushnumber(L, (lua_Number)mpTakeUnsigned(L, c, 4)); break;
    case 0xcf: /* through int64_t, as Redis */
    case 0xd3: lua_pushnumber(L, (lua_Number)mpSigned(mpTakeUnsigned(L, c, 8), 8)); break;
    case 0xd0: lua_pushnumber(L, (lua_Number)mpSigned(mpTakeUnsigned(L, c, 1), 1)); break;
    case 0xd1: lua_pushnumber(L, (lua_Number)mpSigned(mpTakeUnsigned(L, c, 2), 2)); break;
    case 0xd2: lua_pushnumber(L, (lua_Number)mpSigned(mpTakeUnsigned(L, c, 4), 4)); break;
    case 0xca: mpDecodeFloat(L, c); break;
    case 0xcb: mpDecodeDouble(L, c); break;
    case 0xd9: mpDecodeString(L, c, (size_t)mpTakeUnsigned(L, c, 1)); break;
    case 0xda: mpDecodeString(L, c, (size_t)mpTakeUnsigned(L, c, 2)); break;
    case 0xdb: mpDecodeString(L, c, (size_t)mpTakeUnsigned(L, c, 4)); break;
    case 0xdc: mpDecodeArray(L, c, mpTakeUnsigned(L, c, 2)); break;
    case 0xdd: mpDecodeArray(L, c, mpTakeUnsigned(L, c, 4)); break;
    case 0xde: mpDecodeMap(L, c, mpTakeUnsigned(L, c, 2)); break;
    case 0xdf: mpDecodeMap(L, c, mpTakeUnsigned(L, c, 4)); break;
    default: luaL_error(L, "Bad data format in input.");
    }
}

/* lua_Integer conversion as on x86-64: truncation; NaN and out of range
 * give INT64_MIN (so 32-bit ports read offsets and limits the same way). */
static int64_t mpArgInteger(lua_Number d) {
    if (d >= -9223372036854775808.0 && d < 9223372036854775808.0) return (int64_t)d;
    return INT64_MIN;
}

/* Redis prints these 64-bit values with "%d", i.e. their low 32 bits. */
static int mpLow32(int64_t v) { return (int)(int32_t)(uint32_t)(uint64_t)v; }

/* Decodes up to `limit` values of the string at index 1 from byte `offset`.
 * limit == 0 && offset == 0 means all of them, without the next offset;
 * otherwise the next offset (-1 at the end) comes first. */
static int mpUnpackFrom(lua_State *L, int64_t limit, int64_t offset) {
    size_t len;
    const char *s = luaL_checklstring(L, 1, &len);
    int decodeAll = limit == 0 && offset == 0;
    if (offset < 0 || limit < 0)
        return luaL_error(L, "Invalid request to unpack with offset of %d and limit of %d.", mpLow32(offset),
                          mpLow32((int64_t)len));
    if ((uint64_t)offset > len)
        return luaL_error(L, "Start offset %d greater than input length %d.", mpLow32(offset), mpLow32((int64_t)len));
    if (decodeAll) limit = INT64_MAX;
    mpCursor c = {(const unsigned char *)s + offset, len - (size_t)offset};
    int count = 0;
    for (; c.left > 0 && count < limit; count++) mpDecodeValue(L, &c);
    if (decodeAll) return count;
    luaL_checkstack(L, 1, "in function mp_unpack_full");
    lua_pushnumber(L, c.left == 0 ? -1 : (lua_Number)mpLow32((int64_t)(len - c.left)));
    lua_insert(L, 2);
    return count + 1;
}

static int mpUnpack(lua_State *L) { return mpUnpackFrom(L, 0, 0); }

static int mpUnpackOne(lua_State *L) {
    int64_t offset = mpArgInteger(luaL_optnumber(L, 2, 0));
    if (lua_gettop(L) > 1) lua_settop(L, 1);
    return mpUnpackFrom(L, 1, offset);
}

static int mpUnpackLimit(lua_State *L) {
    int64_t limit = mpArgInteger(luaL_checknumber(L, 2));
    int64_t offset = mpArgInteger(luaL_optnumber(L, 3, 0));
    if (lua_gettop(L) > 1) lua_settop(L, 1);
    return mpUnpackFrom(L, limit, offset);
}

static const luaL_Reg mpFunctions[] = {
    {"pack", mpPack},
    {"unpack", mpUnpack},
    {"unpack_one", mpUnpackOne},
    {"unpack_limit", mpUnpackLimit},
    {NULL, NULL},
};

int luaopen_cmsgpack(lua_State *L) {
    luaL_register(L, "cmsgpack", mpFunctions);
    return 1;
}
