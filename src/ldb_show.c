/* ldb_show.c -- how the Lua debugger shows things: a Lua value (print,
 * eval's result, redis.debug's arguments) and a command's RESP reply
 * (the "<reply>" lines), in the forms Redis 7.0's debugger prints.
 *
 * Values: strings quoted and escaped ("a\n"), numbers as %g, tables as
 * {1; 2} when their keys run 1, 2, 3 ... in the order next() gives them and
 * as {["k"]=v; ...} otherwise, functions and other objects as
 * "function@0x..." (quoted, as 7.0 writes them). Nesting stops at
 * LDB_MAX_VALUE_DEPTH with 7.0's marker, so a table that holds itself ends.
 *
 * Replies: integers bare, bulk strings quoted, status and error lines quoted
 * with their first byte ("+OK"), arrays [a,b], RESP3 sets ~(a,b), maps
 * {k => v}, null (null), booleans #true/#false, doubles "(double) 1.5".
 * Big numbers and verbatim strings, which 7.0 leaves out (an empty line),
 * are shown as their digits and their text. The reply is the fake client's,
 * so it is well formed; nothing here reads past its end.
 */
#include "ldb.h"

#include <lauxlib.h>

#define LDB_MAX_VALUE_DEPTH (LUA_MINSTACK / 2)

/* ---- Lua values -------------------------------------------------------------------------- */

static sds catValue(sds s, lua_State *lua, int idx, int depth);

/* A table both ways at once (as an array, and as key=value pairs); which one
 * is shown is known only at the end of the walk. */
static sds catTable(sds s, lua_State *lua, int idx, int depth) {
    sds as_array = sdsempty(), as_pairs = sdsempty();
    int is_array = 1;
    lua_Number expected = 1;
    lua_pushnil(lua);
    while (lua_next(lua, idx)) {
        if (is_array && (lua_type(lua, -2) != LUA_TNUMBER || lua_tonumber(lua, -2) != expected)) is_array = 0;
        int top = lua_gettop(lua);
        if (sdslen(as_array)) as_array = sdscatlen(as_array, "; ", 2);
        as_array = catValue(as_array, lua, top, depth);
        if (sdslen(as_pairs)) as_pairs = sdscatlen(as_pairs, "; ", 2);
        as_pairs = sdscatlen(as_pairs, "[", 1);
        as_pairs = catValue(as_pairs, lua, top - 1, depth);
        as_pairs = sdscatlen(as_pairs, "]=", 2);
        as_pairs = catValue(as_pairs, lua, top, depth);
        lua_pop(lua, 1);
        expected++;
    }
    s = sdscatlen(s, "{", 1);
    s = sdscatsds(s, is_array ? as_array : as_pairs);
    s = sdscatlen(s, "}", 1);
    sdsfree(as_array);
    sdsfree(as_pairs);
    return s;
}

static const char *objectTypeName(int type) {
    switch (type) {
    case LUA_TFUNCTION: return "function";
    case LUA_TUSERDATA: return "userdata";
    case LUA_TTHREAD: return "thread";
    case LUA_TLIGHTUSERDATA: return "light-userdata";
    default: return NULL;
    }
}

/* idx is absolute: the walk of a table pushes above it. */
static sds catValue(sds s, lua_State *lua, int idx, int depth) {
    if (depth == LDB_MAX_VALUE_DEPTH) return sdscat(s, "<max recursion level reached! Nested table?>");
    if (!lua_checkstack(lua, 3)) return sdscat(s, "<lua stack exhausted>");
    int type = lua_type(lua, idx);
    size_t len;
    const char *str;
    switch (type) {
    case LUA_TSTRING:
        str = lua_tolstring(lua, idx, &len);
        return sdscatrepr(s, str, len);
    case LUA_TBOOLEAN: return sdscat(s, lua_toboolean(lua, idx) ? "true" : "false");
    case LUA_TNUMBER: return sdscatprintf(s, "%g", (double)lua_tonumber(lua, idx));
    case LUA_TNIL: return sdscat(s, "nil");
    case LUA_TTABLE: return catTable(s, lua, idx, depth + 1);
    default: break;
    }
    const char *name = objectTypeName(type);
    if (name == NULL) return sdscat(s, "\"<unknown-lua-type>\"");
    return sdscatprintf(s, "\"%s@%p\"", name, lua_topointer(lua, idx));
}

sds ldbCatLuaValue(sds s, lua_State *lua, int idx) {
    if (idx < 0 && idx > LUA_REGISTRYINDEX) idx = lua_gettop(lua) + idx + 1;
    return catValue(s, lua, idx, 0);
}

/* ---- RESP replies ------------------------------------------------------------------------ */

static const char *catReply(sds *s, const char *p);

static const char *lineEnd(const char *p) { return strchr(p, '\r'); }

static long long lineNumber(const char *p) { return strtoll(p + 1, NULL, 10); }

/* n elements (pairs when is_map), between open and close, joined by ",". */
static const char *catAggregate(sds *s, const char *p, long long n, int is_map, const char *open,
                                const char *close) {
    *s = sdscat(*s, open);
    for (long long j = 0; j < n; j++) {
        p = catReply(s, p);
        if (is_map) {
            *s = sdscatlen(*s, " => ", 4);
            p = catReply(s, p);
        }
        if (j != n - 1) *s = sdscatlen(*s, ",", 1);
    }
    *s = sdscat(*s, close);
    return p;
}

static const char *catBulk(sds *s, const char *p, int verbatim) {
    const char *end = lineEnd(p);
    long long len = lineNumber(p);
    if (len < 0) {
        *s = sdscatlen(*s, "NULL", 4);
        return end + 2;
    }
    const char *data = end + 2;
    size_t skip = verbatim && len >= 4 ? 4 : 0; /* "txt:" */
    *s = sdscatrepr(*s, data + skip, (size_t)len - skip);
    return data + len + 2;
}

/* RESP3 attributes (a map before the reply they describe) are not shown. */
static const char *skipAttributes(const char *p, long long n) {
    sds ignored = sdsempty();
    p = catAggregate(&ignored, p, n, 1, "", "");
    sdsfree(ignored);
    return p;
}

static const char *catReply(sds *s, const char *p) {
    const char *end = lineEnd(p);
    if (end == NULL) return p + strlen(p);
    size_t line_len = (size_t)(end - p);
    long long n;
    switch (*p) {
    case ':': *s = sdscatlen(*s, p + 1, line_len - 1); break;
    case '(': *s = sdscatlen(*s, p + 1, line_len - 1); break;
    case '$': return catBulk(s, p, 0);
    case '=': return catBulk(s, p, 1);
    case '+':
    case '-': *s = sdscatrepr(*s, p, line_len); break;
    case '*':
        n = lineNumber(p);
        if (n < 0) {
            *s = sdscatlen(*s, "NULL", 4);
            break;
        }
        return catAggregate(s, end + 2, n, 0, "[", "]");
    case '~': return catAggregate(s, end + 2, lineNumber(p), 0, "~(", ")");
    case '%': return catAggregate(s, end + 2, lineNumber(p), 1, "{", "}");
    case '|': return catReply(s, skipAttributes(end + 2, lineNumber(p)));
    case '_': *s = sdscatlen(*s, "(null)", 6); break;
    case '#': *s = sdscat(*s, p[1] == 't' ? "#true" : "#false"); break;
    case ',':
        *s = sdscatlen(*s, "(double) ", 9);
        *s = sdscatlen(*s, p + 1, line_len - 1);
        break;
    default: break;
    }
    return end + 2;
}

sds ldbCatReply(sds s, const char *reply) {
    catReply(&s, reply);
    return s;
}
