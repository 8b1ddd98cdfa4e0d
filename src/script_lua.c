/* script_lua.c -- the Lua engine of EVAL and FUNCTION: the sandbox, the
 * redis.* API and the conversions between Lua values and RESP, as Redis 7.0
 * defines them. eval.c and function.c each own one state made here; the
 * functions state adds redis.register_function and the library API a
 * library's code sees while FUNCTION LOAD runs it (only redis.log,
 * redis.register_function and the constants; 500 ms at most).
 *
 * Conversions (the documented rules, both ways):
 *   RESP -> Lua (what redis.call returns; the fake client speaks RESP2 or,
 *   after redis.setresp(3), RESP3): integer -> number, bulk -> string, null
 *   bulk / null array -> false, array -> table, status -> {ok=...}, error
 *   -> {err=...}; RESP3: null -> nil, boolean -> boolean, double ->
 *   {double=n}, map -> {map={k=v}}, set -> {set={k=true}}, big number ->
 *   {big_number=s}, verbatim -> {verbatim_string={format=, string=}}.
 *   Lua -> RESP (what the script returns): string -> bulk, number ->
 *   integer (truncated; out of range gives the x86 reference's minimum),
 *   boolean -> 1 / null (RESP3 after setresp(3): a boolean), {err=} error,
 *   {ok=} status, {double=}, {big_number=}, {map=}, {set=},
 *   {verbatim_string=}, any other table -> array up to its first nil,
 *   anything else -> null.
 *
 * The sandbox. Stock Lua 5.1 has no read-only tables (Redis patches its
 * Lua for that), so protection is done with proxies:
 * - A script runs with an empty environment table whose metatable reads
 *   through to the real globals (a table __index: no C call for a global
 *   that exists) and refuses writes; the globals' own metatable raises for
 *   a missing name. Reading a missing global is "Script attempted to
 *   access nonexistent global variable 'x'", assigning one "Attempt to
 *   modify a readonly table" (Redis 7.0's words for both). _G names the
 *   environment.
 * - The library tables (redis, string, math, table, coroutine, bit,
 *   cjson, struct, cmsgpack) are proxies the same way;
 *   rawset and setmetatable on a proxy are refused too (with Redis's
 *   "Attempt to modify a readonly table"), and pairs/next see through
 *   proxies so iterating a library still works. The metatables are
 *   protected (__metatable), so getmetatable cannot reach the real table:
 *   a library shows none, _G a read-only view of one whose __index raises
 *   for missing names, the strings' metatable a read-only view of itself
 *   (what Redis 7.0's read-only tables show).
 * - Removed, as in Redis: print, loadfile, dofile, setfenv, getfenv,
 *   newproxy, the package library (require, module), io, os and debug
 *   (the error handler keeps a private reference to debug.getinfo).
 *   loadstring/load refuse precompiled chunks (they start with "\27").
 * - math.random/randomseed use a 48-bit linear congruential generator
 *   (the rand48 one) in its unseeded initial state when the process
 *   starts, shared by EVAL and FUNCTION, and reseeded only by
 *   math.randomseed (SCRIPT FLUSH keeps it going): as in Redis 7.0, which no longer resets it
 *   before each script (scripts replicate by effects, so their randomness
 *   needs no replay), a server started afresh gives the same numbers as
 *   Redis in the same order.
 *
 * Errors are tables {err="CODE message", source=, line=,
 * ignore_error_stats_update=} as in Redis, so redis.pcall returns them and
 * the final reply can name the line. An error that redis.call returned
 * was already counted in INFO errorstats, so the final reply does not
 * count it again (the caller's command still counts as failed).
 */
#include "script_lua.h"
#include "acl.h"
#include "ldb.h"
#include "sha1.h"

#include <lauxlib.h>
#include <lualib.h>
#include <math.h>

#include "lua_libs.h"

#define LUA_HOOK_INSTRUCTIONS 100000 /* scriptInterrupt() this often, as Redis */
#define LUA_GC_CYCLE_PERIOD 50       /* a GC step every this many runs */
#define REGISTRY_PROXIES "__proxies"  /* proxy -> real table */
#define REGISTRY_FULL_API "__api_full"   /* the globals */
#define REGISTRY_LIBRARY_API "__api_lib" /* FUNCTION LOAD: only redis.register_function, log ... */
#define REGISTRY_ENV "__script_env"
#define FUNCTION_LOAD_TIMEOUT_MS 500  /* as Redis: a library's code must load in this time */

/* ---- the allocator and the random generator -------------------------------------------- */

/* The Lua heap is the allocator's but not zmalloc's count: as in Redis,
 * INFO reports it apart (used_memory_lua, from Lua's own count) and it is
 * not in used_memory, so a script's tables and garbage never make
 * maxmemory evict the dataset or refuse writes. A failed allocation
 * returns NULL, which Lua turns into a "not enough memory" error of the
 * script instead of an abort. */
static void *luaHeapAlloc(void *ud, void *ptr, size_t osize, size_t nsize) {
    (void)ud;
    (void)osize;
    if (nsize == 0) {
        zfree_uncounted(ptr);
        return NULL;
    }
    return zrealloc_uncounted(ptr, nsize);
}

/* Never seeded: rand48's documented initial state (X0 = 0x1234ABCD330E),
 * which is where Redis 7.0's generator starts, since it seeds only on
 * math.randomseed. Seeding with 0 would give another sequence. */
static uint64_t rand48_state = 0x1234abcd330eULL;

static void rand48Seed(int32_t seed) { rand48_state = ((uint64_t)(uint32_t)seed << 16) | 0x330e; }

static int32_t rand48Next(void) {
    rand48_state = (rand48_state * 0x5deece66dULL + 0xb) & ((1ULL << 48) - 1);
    return (int32_t)(rand48_state >> 17);
}

static int luaMathRandom(lua_State *lua) {
    lua_Number r = (lua_Number)(rand48Next() % INT32_MAX) / (lua_Number)INT32_MAX;
    switch (lua_gettop(lua)) {
    case 0: lua_pushnumber(lua, r); break;
    case 1: {
        int u = luaL_checkint(lua, 1);
        luaL_argcheck(lua, 1 <= u, 1, "interval is empty");
        lua_pushnumber(lua, floor(r * u) + 1);
        break;
    }
    case 2: {
        int l = luaL_checkint(lua, 1), u = luaL_checkint(lua, 2);
        luaL_argcheck(lua, l <= u, 2, "interval is empty");
        lua_pushnumber(lua, floor(r * (u - l + 1)) + l);
        break;
    }
    default: return luaL_error(lua, "wrong number of arguments");
    }
    return 1;
}

static int luaMathRandomSeed(lua_State *lua) {
    rand48Seed(luaL_checkint(lua, 1));
    return 0;
}

/* The function on top runs in the scripts' environment: a compiled script,
 * a chunk of loadstring, a library, the debugger's eval. */
void luaEngineSetScriptEnv(lua_State *lua) {
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_ENV);
    lua_setfenv(lua, -2);
}

/* ---- errors as tables ---------------------------------------------------------------------- */

/* Pushes {err="CODE message"}: "-CODE message" keeps its code, a bare
 * message gets ERR (Redis's luaPushErrorBuff). */
static void pushErrorTable(lua_State *lua, const char *text, size_t len) {
    sds msg, code;
    if (len > 0 && text[0] == '-') {
        const char *space = memchr(text, ' ', len);
        if (space == NULL) {
            msg = sdsnewlen(text + 1, len - 1);
            code = sdsnew("ERR");
        } else {
            msg = sdsnewlen(space + 1, len - (size_t)(space + 1 - text));
            code = sdsnewlen(text + 1, (size_t)(space - text - 1));
        }
    } else {
        msg = sdsnewlen(text, len);
        code = sdsnew("ERR");
    }
    if (ldbLogging()) ldbLogError(text, len); /* every error a stepped line meets, as 7.0 logs them */
    sdstrim(msg, "\r\n");
    code = sdscatfmt(code, " %S", msg);
    lua_newtable(lua);
    lua_pushlstring(lua, code, sdslen(code));
    lua_setfield(lua, -2, "err");
    sdsfree(msg);
    sdsfree(code);
}

static void markErrorCounted(lua_State *lua) {
    lua_pushboolean(lua, 1);
    lua_setfield(lua, -2, "ignore_error_stats_update");
}

/* Raises the value on top of the stack. */
static int raiseTop(lua_State *lua) { return lua_error(lua); }

static void pushErrorText(lua_State *lua, const char *text) { pushErrorTable(lua, text, strlen(text)); }

static int raiseErrorText(lua_State *lua, const char *text) {
    pushErrorText(lua, text);
    return raiseTop(lua);
}

int luaEngineRaiseError(lua_State *lua, const char *text) { return raiseErrorText(lua, text); }

/* ---- RESP -> Lua ---------------------------------------------------------------------------- */

static const char *protoToLua(lua_State *lua, const char *p);

static const char *lineEnd(const char *p) { return strchr(p, '\r'); }

static long long protoNumber(const char *p) { return strtoll(p + 1, NULL, 10); }

static const char *protoBulk(lua_State *lua, const char *p) {
    long long len = protoNumber(p);
    const char *body = lineEnd(p) + 2;
    if (len < 0) {
        lua_pushboolean(lua, 0);
        return body;
    }
    lua_pushlstring(lua, body, (size_t)len);
    return body + len + 2;
}

static const char *protoArray(lua_State *lua, const char *p) {
    long long n = protoNumber(p);
    p = lineEnd(p) + 2;
    if (n < 0) {
        lua_pushboolean(lua, 0);
        return p;
    }
    lua_newtable(lua);
    for (long long j = 1; j <= n; j++) {
        lua_pushnumber(lua, (lua_Number)j);
        p = protoToLua(lua, p);
        lua_settable(lua, -3);
    }
    return p;
}

/* {map={k=v}} or {set={k=true}} */
static const char *protoMapOrSet(lua_State *lua, const char *p, int is_map) {
    long long n = protoNumber(p);
    p = lineEnd(p) + 2;
    lua_newtable(lua);
    lua_pushstring(lua, is_map ? "map" : "set");
    lua_newtable(lua);
    for (long long j = 0; j < n; j++) {
        p = protoToLua(lua, p);
        if (is_map) p = protoToLua(lua, p);
        else lua_pushboolean(lua, 1);
        lua_settable(lua, -3);
    }
    lua_settable(lua, -3);
    return p;
}

static void pushLineField(lua_State *lua, const char *field, const char *s, size_t len) {
    lua_newtable(lua);
    lua_pushlstring(lua, s, len);
    lua_setfield(lua, -2, field);
}

/* A verbatim string's body is "fmt:text": a three-letter format, a colon. */
#define VERBATIM_FORMAT_LEN 3

static const char *protoVerbatim(lua_State *lua, const char *p) {
    long long len = protoNumber(p);
    const char *body = lineEnd(p) + 2;
    lua_newtable(lua);
    lua_newtable(lua);
    lua_pushlstring(lua, body, VERBATIM_FORMAT_LEN);
    lua_setfield(lua, -2, "format");
    lua_pushlstring(lua, body + VERBATIM_FORMAT_LEN + 1, (size_t)len - VERBATIM_FORMAT_LEN - 1);
    lua_setfield(lua, -2, "string");
    lua_setfield(lua, -2, "verbatim_string");
    return body + len + 2;
}

/* |n attributes: n key/value pairs that scripts do not see (as in Redis
 * 7.0), then the reply they annotate, which is what gets pushed. */
static const char *protoSkipAttributes(lua_State *lua, const char *p) {
    long long n = protoNumber(p);
    p = lineEnd(p) + 2;
    for (long long j = 0; j < 2 * n; j++) {
        p = protoToLua(lua, p);
        lua_pop(lua, 1);
    }
    return protoToLua(lua, p);
}

/* One reply at p, pushed; returns what follows it. */
static const char *protoToLua(lua_State *lua, const char *p) {
    const char *end = lineEnd(p);
    switch (*p) {
    case '|': return protoSkipAttributes(lua, p);
    case ':': lua_pushnumber(lua, (lua_Number)protoNumber(p)); return end + 2;
    case '$': return protoBulk(lua, p);
    case '*': return protoArray(lua, p);
    case '+': pushLineField(lua, "ok", p + 1, (size_t)(end - p - 1)); return end + 2;
    case '-':
        pushErrorTable(lua, p, (size_t)(end - p));
        markErrorCounted(lua);
        return end + 2;
    case '%': return protoMapOrSet(lua, p, 1);
    case '~': return protoMapOrSet(lua, p, 0);
    case '_': lua_pushnil(lua); return end + 2;
    case '#': lua_pushboolean(lua, p[1] == 't'); return end + 2;
    case ',':
        lua_newtable(lua);
        lua_pushnumber(lua, strtod(p + 1, NULL));
        lua_setfield(lua, -2, "double");
        return end + 2;
    case '(': pushLineField(lua, "big_number", p + 1, (size_t)(end - p - 1)); return end + 2;
    case '=': return protoVerbatim(lua, p);
    default: serverPanic("unexpected reply type '%c' from a script's command", *p);
    }
    return end + 2;
}

/* ---- Lua -> RESP ------------------------------------------------------------------------------ */

static void replyFromLua(client *c, int script_resp, lua_State *lua);

/* (long long)d as the reference (x86) computes it: out of range or NaN is
 * the minimum, whatever the CPU's own conversion does. */
static long long luaNumberToLongLong(lua_Number d) {
    if (!(d >= -9223372036854775808.0 && d < 9223372036854775808.0)) return LLONG_MIN;
    return (long long)d;
}

/* The string field `name` of the table on top, or NULL (stack unchanged). */
static const char *tableStringField(lua_State *lua, const char *name, size_t *len) {
    lua_pushstring(lua, name);
    lua_rawget(lua, -2);
    const char *s = lua_type(lua, -1) == LUA_TSTRING ? lua_tolstring(lua, -1, len) : NULL;
    lua_pop(lua, 1);
    return s; /* still referenced by the table */
}

static int tableFieldType(lua_State *lua, const char *name) {
    lua_pushstring(lua, name);
    lua_rawget(lua, -2);
    int t = lua_type(lua, -1);
    lua_pop(lua, 1);
    return t;
}

/* An error table's parts (Redis's errorInfo). */
typedef struct luaErrorInfo {
    sds msg, source, line;
    int counted; /* ignore_error_stats_update */
} luaErrorInfo;

static void errorInfoFromTable(lua_State *lua, luaErrorInfo *info) {
    size_t len;
    const char *s;
    memset(info, 0, sizeof *info);
    if ((s = tableStringField(lua, "err", &len))) info->msg = sdsnewlen(s, len);
    if ((s = tableStringField(lua, "source", &len))) info->source = sdsnewlen(s, len);
    lua_pushstring(lua, "line");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) == LUA_TNUMBER) info->line = sdsfromlonglong((long long)lua_tonumber(lua, -1));
    lua_pop(lua, 1);
    lua_pushstring(lua, "ignore_error_stats_update");
    lua_rawget(lua, -2);
    info->counted = lua_toboolean(lua, -1);
    lua_pop(lua, 1);
}

static void errorInfoFree(luaErrorInfo *info) {
    sdsfree(info->msg);
    sdsfree(info->source);
    sdsfree(info->line);
}

/* An error already counted (it came from redis.call) is sent without
 * counting it again; the caller's command still counts as failed. */
static void replyErrorMaybeCounted(client *c, sds err, int counted) {
    for (size_t i = 0; i < sdslen(err); i++)
        if (err[i] == '\r' || err[i] == '\n') err[i] = ' ';
    if (!counted) {
        addReplyErrorSds(c, err);
        return;
    }
    if (err[0] != '-') addReplyProto(c, "-ERR ", LITERAL_LEN("-ERR "));
    addReplyProto(c, err, sdslen(err));
    addReplyProto(c, "\r\n", LITERAL_LEN("\r\n"));
    if (c->realcmd) c->realcmd->failed_calls++;
    sdsfree(err);
}

static void replyErrorTable(client *c, lua_State *lua) {
    luaErrorInfo info;
    errorInfoFromTable(lua, &info);
    replyErrorMaybeCounted(c, sdscatfmt(sdsempty(), "-%S", info.msg), info.counted);
    errorInfoFree(&info);
}

/* {map=t}: key, value pairs in lua_next order. The table is on top. */
static void replyMap(client *c, int script_resp, lua_State *lua) {
    long n = 0;
    void *len = addReplyDeferredLen(c);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
        lua_pushvalue(lua, -2);
        replyFromLua(c, script_resp, lua); /* the key */
        replyFromLua(c, script_resp, lua); /* the value */
        n++;
    }
    setDeferredMapLen(c, len, n);
}

static void replySet(client *c, int script_resp, lua_State *lua) {
    long n = 0;
    void *len = addReplyDeferredLen(c);
    lua_pushnil(lua);
    while (lua_next(lua, -2)) {
        lua_pop(lua, 1);
        lua_pushvalue(lua, -1);
        replyFromLua(c, script_resp, lua);
        n++;
    }
    setDeferredSetLen(c, len, n);
}

static void replyArray(client *c, int script_resp, lua_State *lua) {
    long n = 0;
    void *len = addReplyDeferredLen(c);
    for (int j = 1;; j++) {
        lua_pushnumber(lua, j);
        lua_rawget(lua, -2);
        if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            break;
        }
        replyFromLua(c, script_resp, lua);
        n++;
    }
    setDeferredArrayLen(c, len, n);
}

/* A table field holding a table, replied by fn; 0 if the field isn't one. */
static int replyNestedTable(client *c, int script_resp, lua_State *lua, const char *field,
                            void (*fn)(client *, int, lua_State *)) {
    lua_pushstring(lua, field);
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) != LUA_TTABLE) {
        lua_pop(lua, 1);
        return 0;
    }
    fn(c, script_resp, lua);
    lua_pop(lua, 1);
    return 1;
}

static int replyVerbatim(client *c, lua_State *lua) {
    lua_pushstring(lua, "verbatim_string");
    lua_rawget(lua, -2);
    if (lua_type(lua, -1) != LUA_TTABLE) {
        lua_pop(lua, 1);
        return 0;
    }
    size_t len, flen;
    const char *format = tableStringField(lua, "format", &flen);
    const char *s = tableStringField(lua, "string", &len);
    if (format && s) addReplyVerbatim(c, s, len, format);
    lua_pop(lua, 1);
    return format && s;
}

static void replyStatusString(client *c, const char *s, size_t len) {
    sds status = sdsnewlen(s, len);
    sdsmapchars(status, "\r\n", "  ", LITERAL_LEN("\r\n"));
    addReplyStatusLength(c, status, sdslen(status));
    sdsfree(status);
}

static void replyTable(client *c, int script_resp, lua_State *lua) {
    size_t len;
    const char *s;
    if (tableFieldType(lua, "err") == LUA_TSTRING) {
        replyErrorTable(c, lua);
    } else if ((s = tableStringField(lua, "ok", &len))) {
        replyStatusString(c, s, len);
    } else if (tableFieldType(lua, "double") == LUA_TNUMBER) {
        lua_getfield(lua, -1, "double");
        addReplyDouble(c, lua_tonumber(lua, -1));
        lua_pop(lua, 1);
    } else if ((s = tableStringField(lua, "big_number", &len))) {
        sds num = sdsmapchars(sdsnewlen(s, len), "\r\n", "  ", LITERAL_LEN("\r\n"));
        addReplyBigNum(c, num, sdslen(num));
        sdsfree(num);
    } else if (!replyNestedTable(c, script_resp, lua, "map", replyMap) &&
               !replyNestedTable(c, script_resp, lua, "set", replySet) && !replyVerbatim(c, lua)) {
        replyArray(c, script_resp, lua);
    }
}

/* Replies with the value on top of the stack, and pops it. */
static void replyFromLua(client *c, int script_resp, lua_State *lua) {
    if (!lua_checkstack(lua, 4)) {
        addReplyError(c, "reached lua stack limit");
        lua_pop(lua, 1);
        return;
    }
    size_t len;
    const char *s;
    switch (lua_type(lua, -1)) {
    case LUA_TSTRING:
        s = lua_tolstring(lua, -1, &len);
        addReplyBulkCBuffer(c, s, len);
        break;
    case LUA_TBOOLEAN:
        if (script_resp == 2) addReplyOrNull(c, lua_toboolean(lua, -1) ? shared.cone : NULL);
        else addReplyBool(c, lua_toboolean(lua, -1));
        break;
    case LUA_TNUMBER: addReplyLongLong(c, luaNumberToLongLong(lua_tonumber(lua, -1))); break;
    case LUA_TTABLE: replyTable(c, script_resp, lua); break;
    default: addReplyNull(c);
    }
    lua_pop(lua, 1);
}

/* ---- redis.call and friends -------------------------------------------------------------- */

/* The arguments as string objects; NULL if one is neither a string nor a
 * number (numbers are written as %.17g, as Redis does). */
static robj **argvFromLua(lua_State *lua, int argc) {
    robj **argv = zmalloc(sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        int t = lua_type(lua, j + 1);
        if (t == LUA_TNUMBER) {
            char buf[64];
            int len = snprintf(buf, sizeof buf, "%.17g", (double)lua_tonumber(lua, j + 1));
            argv[j] = createStringObject(buf, (size_t)len);
        } else if (t == LUA_TSTRING) {
            size_t len;
            const char *s = lua_tolstring(lua, j + 1, &len);
            argv[j] = createStringObject(s, len);
        } else {
            for (int i = 0; i < j; i++) decrRefCount(argv[i]);
            zfree(argv);
            return NULL;
        }
    }
    return argv;
}


static void freeFakeArgv(client *c) {
    for (int j = 0; j < c->argc; j++)
        if (c->argv[j]) decrRefCount(c->argv[j]);
    zfree(c->argv);
    c->argv = NULL;
    c->argc = c->argv_len = 0;
    c->cmd = NULL;
}

static int luaRedisCommand(lua_State *lua, int raise) {
    scriptRunCtx *ctx = scriptCurrentRun();
    int argc = lua_gettop(lua);
    if (ctx == NULL) return luaL_error(lua, "redis.call/pcall can only be called inside a script invocation");
    if (argc == 0) {
        pushErrorText(lua, "Please specify at least one argument for this redis lib call");
        return raise ? raiseTop(lua) : 1;
    }
    robj **argv = argvFromLua(lua, argc);
    if (argv == NULL) {
        pushErrorText(lua, "Lua redis lib command arguments must be strings or integers");
        return raise ? raiseTop(lua) : 1;
    }
    /* argv holds copies: the arguments leave the Lua stack, so a call with
     * nearly LUAI_MAXCSTACK of them (unpack of 7999 values) has room for its
     * reply */
    lua_settop(lua, 0);
    if (ldbLogging()) ldbLogRedisCommand(argv, argc);
    sds err = NULL;
    scriptCall(ctx, argv, argc, &err); /* argv is the fake client's from here */
    if (err) {
        freeFakeArgv(ctx->fake);
        pushErrorTable(lua, err, sdslen(err));
        markErrorCounted(lua);
        sdsfree(err);
        return raise ? raiseTop(lua) : 1;
    }
    freeFakeArgv(ctx->fake);
    client *c = ctx->fake;
    /* Most replies fit the inline buffer: parsed there, NUL-terminated. */
    int in_place = listLength(c->reply) == 0 && c->bufpos < c->buf_usable_size;
    char *reply = in_place ? c->buf : replyTakeAll(c);
    if (in_place) {
        c->buf[c->bufpos] = '\0';
        c->bufpos = 0;
    }
    if (!lua_checkstack(lua, 5)) {
        if (!in_place) sdsfree(reply);
        return luaL_error(lua, "reached lua stack limit");
    }
    protoToLua(lua, reply);
    if (ldbLogging()) ldbLogRedisReply(reply);
    int failed = reply[0] == '-';
    if (!in_place) sdsfree(reply);
    return raise && failed ? raiseTop(lua) : 1;
}

static int luaRedisCall(lua_State *lua) { return luaRedisCommand(lua, 1); }
static int luaRedisPcall(lua_State *lua) { return luaRedisCommand(lua, 0); }

static int luaRedisSha1hex(lua_State *lua) {
    if (lua_gettop(lua) != 1) return raiseErrorText(lua, "wrong number of arguments");
    size_t len;
    const char *s = lua_tolstring(lua, 1, &len);
    char hex[SHA1_HEX_LEN + 1];
    sha1Hex(hex, s ? s : "", s ? len : 0);
    lua_pushstring(lua, hex);
    return 1;
}

/* redis.error_reply / status_reply build the table; they do not raise. */
static int luaRedisErrorReply(lua_State *lua) {
    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        pushErrorText(lua, "wrong number or type of arguments");
        return 1;
    }
    size_t len;
    const char *s = lua_tolstring(lua, 1, &len);
    sds err = s[0] == '-' ? sdsnewlen(s, len) : sdscatlen(sdsnew("-"), s, len);
    pushErrorTable(lua, err, sdslen(err));
    sdsfree(err);
    return 1;
}

static int luaRedisStatusReply(lua_State *lua) {
    if (lua_gettop(lua) != 1 || lua_type(lua, -1) != LUA_TSTRING) {
        pushErrorText(lua, "wrong number or type of arguments");
        return 1;
    }
    lua_newtable(lua);
    lua_pushvalue(lua, 1);
    lua_setfield(lua, -2, "ok");
    return 1;
}

static int luaRedisLog(lua_State *lua) {
    int argc = lua_gettop(lua);
    if (argc < 2) return raiseErrorText(lua, "redis.log() requires two arguments or more.");
    if (!lua_isnumber(lua, 1)) return raiseErrorText(lua, "First argument must be a number (log level).");
    int level = (int)lua_tonumber(lua, 1);
    if (level < LL_DEBUG || level > LL_WARNING) return raiseErrorText(lua, "Invalid debug level.");
    if (level < server.verbosity) return 0;
    sds msg = sdsempty();
    for (int j = 2; j <= argc; j++) {
        size_t len;
        const char *s = lua_tolstring(lua, j, &len);
        if (s == NULL) continue;
        if (j != 2) msg = sdscatlen(msg, " ", LITERAL_LEN(" "));
        msg = sdscatlen(msg, s, len);
    }
    serverLog(level, "%s", msg);
    sdsfree(msg);
    return 0;
}

static int luaRedisSetResp(lua_State *lua) {
    scriptRunCtx *ctx = scriptCurrentRun();
    if (lua_gettop(lua) != 1) return raiseErrorText(lua, "redis.setresp() requires one argument.");
    int resp = (int)lua_tonumber(lua, 1);
    if (resp != 2 && resp != 3) return raiseErrorText(lua, "RESP version must be 2 or 3.");
    if (ctx) ctx->fake->resp = resp;
    return 0;
}

static int luaRedisSetRepl(lua_State *lua) {
    scriptRunCtx *ctx = scriptCurrentRun();
    if (lua_gettop(lua) != 1) return raiseErrorText(lua, "redis.set_repl() requires one argument.");
    int flags = (int)lua_tonumber(lua, 1);
    if ((flags & ~SCRIPT_REPL_ALL) != 0)
        return raiseErrorText(lua, "Invalid replication flags. Use REPL_AOF, REPL_REPLICA, REPL_ALL or REPL_NONE.");
    if (ctx) ctx->repl = flags;
    return 0;
}

static int luaRedisReplicateCommands(lua_State *lua) {
    lua_pushboolean(lua, 1);
    return 1;
}

/* redis.acl_check_cmd(cmd, args...): may the script's caller run it?
 * Nothing is logged (Redis's behaviour: it is a question, not a call). */
static int luaRedisAclCheckCmd(lua_State *lua) {
    int argc = lua_gettop(lua);
    if (argc == 0) return raiseErrorText(lua, "Please specify at least one argument for this redis lib call");
    robj **argv = argvFromLua(lua, argc);
    if (argv == NULL) return raiseErrorText(lua, "Lua redis lib command arguments must be strings or integers");
    redisCommand *cmd = lookupCommand(argv, argc);
    int allowed = 0, errpos = 0;
    scriptRunCtx *ctx = scriptCurrentRun();
    if (cmd && ctx) allowed = scriptAclCheck(ctx, cmd, argv, argc, &errpos) == ACL_OK;
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
    if (cmd == NULL) return raiseErrorText(lua, "Invalid command passed to redis.acl_check_cmd()");
    lua_pushboolean(lua, allowed);
    return 1;
}

static void setNumberField(lua_State *lua, const char *name, lua_Number n) {
    lua_pushnumber(lua, n);
    lua_setfield(lua, -2, name);
}

static void setFunctionField(lua_State *lua, const char *name, lua_CFunction fn) {
    lua_pushcfunction(lua, fn);
    lua_setfield(lua, -2, name);
}

/* "7.0.15" -> 0x07000f, as Redis's REDIS_VERSION_NUM. */
static lua_Number redisVersionNum(void) {
    int major = 0, minor = 0, patch = 0;
    sscanf(REDIS_VERSION, "%d.%d.%d", &major, &minor, &patch);
    return (lua_Number)((major << 16) | (minor << 8) | patch);
}

static void registerRedisApi(lua_State *lua) {
    lua_newtable(lua);
    setFunctionField(lua, "call", luaRedisCall);
    setFunctionField(lua, "pcall", luaRedisPcall);
    setFunctionField(lua, "log", luaRedisLog);
    setFunctionField(lua, "sha1hex", luaRedisSha1hex);
    setFunctionField(lua, "error_reply", luaRedisErrorReply);
    setFunctionField(lua, "status_reply", luaRedisStatusReply);
    setFunctionField(lua, "setresp", luaRedisSetResp);
    setFunctionField(lua, "set_repl", luaRedisSetRepl);
    setFunctionField(lua, "replicate_commands", luaRedisReplicateCommands);
    setFunctionField(lua, "breakpoint", ldbLuaBreakpoint);
    setFunctionField(lua, "debug", ldbLuaDebug);
    setFunctionField(lua, "acl_check_cmd", luaRedisAclCheckCmd);
    setNumberField(lua, "LOG_DEBUG", LL_DEBUG);
    setNumberField(lua, "LOG_VERBOSE", LL_VERBOSE);
    setNumberField(lua, "LOG_NOTICE", LL_NOTICE);
    setNumberField(lua, "LOG_WARNING", LL_WARNING);
    setNumberField(lua, "REPL_NONE", SCRIPT_REPL_NONE);
    setNumberField(lua, "REPL_AOF", SCRIPT_REPL_AOF);
    setNumberField(lua, "REPL_SLAVE", SCRIPT_REPL_REPLICA);
    setNumberField(lua, "REPL_REPLICA", SCRIPT_REPL_REPLICA);
    setNumberField(lua, "REPL_ALL", SCRIPT_REPL_ALL);
    lua_pushstring(lua, REDIS_VERSION);
    lua_setfield(lua, -2, "REDIS_VERSION");
    setNumberField(lua, "REDIS_VERSION_NUM", redisVersionNum());
    lua_setglobal(lua, "redis");
}

/* ---- the sandbox ---------------------------------------------------------------------------- */

static int luaReadonlyError(lua_State *lua) { return luaL_error(lua, "Attempt to modify a readonly table"); }

static int missingGlobalError(lua_State *lua, int key) {
    const char *name = lua_isstring(lua, key) ? lua_tostring(lua, key) : luaL_typename(lua, key);
    return luaL_error(lua, "Script attempted to access nonexistent global variable '%s'", name);
}

/* __index of the globals table and of the library API (table, key): the
 * name is nowhere, an error. The scripts' environment reads through to
 * one of them with a plain table __index, so a global that exists costs
 * no C call. */
static int luaMissingGlobal(lua_State *lua) { return missingGlobalError(lua, 2); }

/* A metatable whose __index raises for missing names, on the table on top. */
static void setStrictMetatable(lua_State *lua) {
    lua_newtable(lua);
    lua_pushcfunction(lua, luaMissingGlobal);
    lua_setfield(lua, -2, "__index");
    lua_setmetatable(lua, -2);
}

/* __index of a strict proxy (proxy, key): a missing name is an error. */
static int luaStrictIndex(lua_State *lua) {
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_PROXIES);
    lua_pushvalue(lua, 1);
    lua_rawget(lua, -2);
    lua_pushvalue(lua, 2);
    lua_rawget(lua, -2);
    if (!lua_isnil(lua, -1)) return 1;
    return missingGlobalError(lua, 2);
}

/* The real table behind a proxy, or the value itself. */
static void unwrapProxy(lua_State *lua, int idx) {
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_PROXIES);
    lua_pushvalue(lua, idx);
    lua_rawget(lua, -2);
    lua_remove(lua, -2);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        lua_pushvalue(lua, idx);
    }
}

static int luaNext(lua_State *lua) {
    luaL_checktype(lua, 1, LUA_TTABLE);
    lua_settop(lua, 2);
    unwrapProxy(lua, 1);
    lua_replace(lua, 1);
    if (lua_next(lua, 1)) return 2;
    lua_pushnil(lua);
    return 1;
}

static int luaPairs(lua_State *lua) {
    luaL_checktype(lua, 1, LUA_TTABLE);
    lua_pushcfunction(lua, luaNext);
    unwrapProxy(lua, 1);
    lua_pushnil(lua);
    return 3;
}

static int isProxy(lua_State *lua, int idx) {
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_PROXIES);
    lua_pushvalue(lua, idx);
    lua_rawget(lua, -2);
    int proxy = !lua_isnil(lua, -1);
    lua_pop(lua, 2);
    return proxy;
}

/* What rawset and setmetatable raise on a read-only table: the bare
 * message, with no position (Redis 7.0 raises it so from C). */
static int raiseReadonlyNoPosition(lua_State *lua) {
    lua_pushstring(lua, "Attempt to modify a readonly table");
    return lua_error(lua);
}

static int luaRawset(lua_State *lua) {
    luaL_checktype(lua, 1, LUA_TTABLE);
    luaL_checkany(lua, 2);
    luaL_checkany(lua, 3);
    if (isProxy(lua, 1)) return raiseReadonlyNoPosition(lua);
    lua_settop(lua, 3);
    lua_rawset(lua, 1);
    return 1;
}

/* setmetatable(t, mt): Lua's checks in Lua's order, then a read-only table
 * (a proxy: _G, a library, a metatable shown by getmetatable) is refused
 * as Redis refuses it; its own metatable is what makes it read-only. */
static int luaSetmetatable(lua_State *lua) {
    luaL_checktype(lua, 1, LUA_TTABLE);
    int mt_type = lua_type(lua, 2);
    luaL_argcheck(lua, mt_type == LUA_TNIL || mt_type == LUA_TTABLE, 2, "nil or table expected");
    if (isProxy(lua, 1)) return raiseReadonlyNoPosition(lua);
    if (luaL_getmetafield(lua, 1, "__metatable")) return luaL_error(lua, "cannot change a protected metatable");
    lua_settop(lua, 2);
    lua_setmetatable(lua, 1);
    return 1;
}

/* getmetatable(v) as Lua's, except that a proxy whose metatable is hidden
 * (__metatable false: the libraries) has none, as Redis's read-only
 * library tables have none. */
static int luaGetmetatable(lua_State *lua) {
    luaL_checkany(lua, 1);
    if (!lua_getmetatable(lua, 1)) {
        lua_pushnil(lua);
        return 1;
    }
    luaL_getmetafield(lua, 1, "__metatable");
    if (lua_isboolean(lua, -1) && !lua_toboolean(lua, -1) && lua_istable(lua, 1) && isProxy(lua, 1))
        lua_pushnil(lua);
    return 1;
}

/* Makes a proxy of the table on top (replacing it): reads go through, writes
 * are refused. index: the __index (the table itself, or a function). */
static void makeProxy(lua_State *lua, lua_CFunction index_fn) {
    int real = lua_gettop(lua);
    lua_newtable(lua); /* the proxy */
    lua_newtable(lua); /* its metatable */
    if (index_fn) lua_pushcfunction(lua, index_fn);
    else lua_pushvalue(lua, real);
    lua_setfield(lua, -2, "__index");
    lua_pushcfunction(lua, luaReadonlyError);
    lua_setfield(lua, -2, "__newindex");
    lua_pushboolean(lua, 0);
    lua_setfield(lua, -2, "__metatable");
    lua_setmetatable(lua, -2);
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_PROXIES);
    lua_pushvalue(lua, -2);
    lua_pushvalue(lua, real);
    lua_rawset(lua, -3);
    lua_pop(lua, 1);
    lua_replace(lua, real);
}

static void protectLibrary(lua_State *lua, const char *name) {
    lua_getglobal(lua, name);
    if (lua_isnil(lua, -1)) {
        lua_pop(lua, 1);
        return;
    }
    makeProxy(lua, NULL);
    lua_setglobal(lua, name);
}

/* Precompiled chunks could break out of the VM: refused. A chunk runs in
 * the scripts' read-only environment, never in the real globals Lua gives
 * a loaded chunk by default: there `loadstring("redis = x")()` would
 * replace the API for every later script of every user. */
static int luaLoadstring(lua_State *lua) {
    size_t len;
    const char *s = luaL_checklstring(lua, 1, &len);
    const char *chunkname = luaL_optstring(lua, 2, s);
    if (len > 0 && s[0] == LUA_SIGNATURE[0]) {
        lua_pushnil(lua);
        lua_pushstring(lua, "loading of precompiled chunks is not allowed");
        return 2;
    }
    if (luaL_loadbuffer(lua, s, len, chunkname) == 0) {
        luaEngineSetScriptEnv(lua);
        return 1;
    }
    lua_pushnil(lua);
    lua_insert(lua, -2);
    return 2;
}

/* pcall as Redis 7.0 wraps it: an error table caught is returned as its
 * err string, so scripts see the message they always did. */
static int luaPcall(lua_State *lua) {
    int argc = lua_gettop(lua);
    if (argc == 0) {
        lua_pushboolean(lua, 0);
        lua_pushstring(lua, "bad argument #1 to 'pcall' (value expected)");
        return 2;
    }
    lua_pushboolean(lua, 1); /* the status, in front of the results */
    lua_insert(lua, 1);
    if (lua_pcall(lua, argc - 1, LUA_MULTRET, 0) == 0) return lua_gettop(lua);
    lua_remove(lua, 1);
    if (lua_istable(lua, -1)) {
        lua_getfield(lua, -1, "err");
        if (lua_isstring(lua, -1)) lua_replace(lua, -2);
        else lua_pop(lua, 1);
    }
    lua_pushboolean(lua, 0);
    lua_insert(lua, 1);
    return lua_gettop(lua);
}

/* load(f [, chunkname]): the pieces f returns, joined, then as loadstring. */
static int luaLoad(lua_State *lua) {
    luaL_checktype(lua, 1, LUA_TFUNCTION);
    const char *chunkname = luaL_optstring(lua, 2, "=(load)");
    luaL_Buffer b;
    luaL_buffinit(lua, &b);
    for (;;) {
        lua_pushvalue(lua, 1);
        lua_call(lua, 0, 1);
        if (lua_isnil(lua, -1) || (lua_isstring(lua, -1) && lua_objlen(lua, -1) == 0)) {
            lua_pop(lua, 1);
            break;
        }
        if (!lua_isstring(lua, -1)) return luaL_error(lua, "reader function must return a string");
        luaL_addvalue(&b);
    }
    luaL_pushresult(&b);
    lua_replace(lua, 1);
    lua_settop(lua, 1);
    lua_pushstring(lua, chunkname);
    return luaLoadstring(lua);
}

static void removeGlobals(lua_State *lua) {
    static const char *removed[] = {"print", "loadfile", "dofile", "setfenv", "getfenv", "newproxy",
                                    "module", "require", "package", "io", "os"};
    for (size_t j = 0; j < sizeof removed / sizeof removed[0]; j++) {
        lua_pushnil(lua);
        lua_setglobal(lua, removed[j]);
    }
}

static void openLibrary(lua_State *lua, const char *name, lua_CFunction open) {
    lua_pushcfunction(lua, open);
    lua_pushstring(lua, name);
    lua_call(lua, 1, 0);
}

static void openLibraries(lua_State *lua) {
    openLibrary(lua, "", luaopen_base);
    openLibrary(lua, LUA_TABLIBNAME, luaopen_table);
    openLibrary(lua, LUA_STRLIBNAME, luaopen_string);
    openLibrary(lua, LUA_MATHLIBNAME, luaopen_math);
    openLibrary(lua, LUA_DBLIBNAME, luaopen_debug);
    openLibrary(lua, "cjson", luaopen_cjson);
    openLibrary(lua, "struct", luaopen_struct);
    openLibrary(lua, "cmsgpack", luaopen_cmsgpack);
    openLibrary(lua, "bit", luaopen_bit);
    lua_getglobal(lua, "math");
    setFunctionField(lua, "random", luaMathRandom);
    setFunctionField(lua, "randomseed", luaMathRandomSeed);
    lua_pop(lua, 1);
}

/* Redis's error handler: the error as a table with the script's source
 * and line (the caller's, when the error is raised by a C function). */
static const char *errorHandlerCode =
    "local dbg = debug\n"
    "debug = nil\n"
    "function __redis__err__handler(err)\n"
    "  local i = dbg.getinfo(2,'nSl')\n"
    "  if i and i.what == 'C' then\n"
    "    i = dbg.getinfo(3,'nSl')\n"
    "  end\n"
    "  if type(err) ~= 'table' then\n"
    "    err = {err='ERR ' .. tostring(err)}\n"
    "  end\n"
    "  if i then\n"
    "    err['source'] = i.source\n"
    "    err['line'] = i.currentline\n"
    "  end\n"
    "  return err\n"
    "end\n";

static void installErrorHandler(lua_State *lua) {
    int failed = luaL_loadbuffer(lua, errorHandlerCode, strlen(errorHandlerCode), "@err_handler") ||
                 lua_pcall(lua, 0, 0, 0);
    serverAssert(!failed);
}

/* The environment scripts run in: a proxy of the globals that refuses new
 * globals and reads of missing ones; _G names it. */
/* What getmetatable(_G) shows, on the proxy on top: a read-only view of a
 * metatable whose __index raises for a missing name, as the metatable
 * Redis 7.0 gives its globals (the real one reads through to the globals
 * with no C call, and must not be reachable). */
static void showGlobalsMetatable(lua_State *lua) {
    lua_getmetatable(lua, -1);
    lua_newtable(lua);
    lua_pushcfunction(lua, luaMissingGlobal);
    lua_setfield(lua, -2, "__index");
    makeProxy(lua, NULL);
    lua_setfield(lua, -2, "__metatable");
    lua_pop(lua, 1);
}

static void installScriptEnvironment(lua_State *lua) {
    lua_pushvalue(lua, LUA_GLOBALSINDEX);
    makeProxy(lua, NULL);
    showGlobalsMetatable(lua);
    lua_pushvalue(lua, -1);
    lua_setglobal(lua, "_G");
    lua_setfield(lua, LUA_REGISTRYINDEX, REGISTRY_ENV);
    lua_pushvalue(lua, LUA_GLOBALSINDEX);
    lua_setfield(lua, LUA_REGISTRYINDEX, REGISTRY_FULL_API);
    lua_pushvalue(lua, LUA_GLOBALSINDEX);
    setStrictMetatable(lua); /* last: C code above still read missing globals as nil */
    lua_pop(lua, 1);
}

static void protectGlobals(lua_State *lua) {
    static const char *libs[] = {"redis", "string", "math", "table", "coroutine", "bit", "cjson", "struct", "cmsgpack"};
    for (size_t j = 0; j < sizeof libs / sizeof libs[0]; j++) protectLibrary(lua, libs[j]);
    /* strings' methods go through the string proxy; getmetatable('') gives
     * a read-only view of their metatable (the VM needs the real one) */
    lua_pushstring(lua, "");
    lua_getmetatable(lua, -1);
    lua_getglobal(lua, "string");
    lua_setfield(lua, -2, "__index");
    lua_pushvalue(lua, -1);
    makeProxy(lua, NULL);
    lua_setfield(lua, -2, "__metatable");
    lua_pop(lua, 2);
    installScriptEnvironment(lua);
}

lua_State *luaEngineCreate(void) {
    lua_State *lua = lua_newstate(luaHeapAlloc, NULL);
    serverAssert(lua != NULL);
    lua_newtable(lua);
    lua_setfield(lua, LUA_REGISTRYINDEX, REGISTRY_PROXIES);
    openLibraries(lua);
    registerRedisApi(lua);
    installErrorHandler(lua);
    removeGlobals(lua);
    lua_pushcfunction(lua, luaLoadstring);
    lua_setglobal(lua, "loadstring");
    lua_pushcfunction(lua, luaLoad);
    lua_setglobal(lua, "load");
    lua_pushcfunction(lua, luaPcall);
    lua_setglobal(lua, "pcall");
    lua_pushcfunction(lua, luaPairs);
    lua_setglobal(lua, "pairs");
    lua_pushcfunction(lua, luaNext);
    lua_setglobal(lua, "next");
    lua_pushcfunction(lua, luaRawset);
    lua_setglobal(lua, "rawset");
    lua_pushcfunction(lua, luaSetmetatable);
    lua_setglobal(lua, "setmetatable");
    lua_pushcfunction(lua, luaGetmetatable);
    lua_setglobal(lua, "getmetatable");
    protectGlobals(lua);
    return lua;
}

void luaEngineClose(lua_State *lua) { lua_close(lua); }

SCRIPT_RESIDENT size_t luaEngineMemory(lua_State *lua) { return lua ? (size_t)lua_gc(lua, LUA_GCCOUNT, 0) * 1024 : 0; }

/* ---- compiling and running -------------------------------------------------------------- */

/* The function is kept under a registry reference, an integer key in the
 * registry's array part (16 bytes a script), rather than under a
 * "f_<sha>" name as Redis does: that name would cost an interned 43-byte
 * string and a 40-byte hash node per script, ~100 bytes of every cached
 * script's Lua heap. */
int luaEngineCompile(lua_State *lua, const char *body, size_t len, size_t shebang_len, int *ref, sds *err) {
    if (luaL_loadbuffer(lua, body + shebang_len, len - shebang_len, "@user_script")) {
        *err = sdscatfmt(sdsempty(), "Error compiling script (new function): %s", lua_tostring(lua, -1));
        lua_pop(lua, 1);
        return C_ERR;
    }
    luaEngineSetScriptEnv(lua);
    *ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    return C_OK;
}

static void setGlobalArray(lua_State *lua, const char *name, robj **elems, int count) {
    lua_createtable(lua, count, 0);
    for (int j = 0; j < count; j++) {
        robj *o = getDecodedObject(elems[j]);
        lua_pushlstring(lua, o->ptr, sdslen(o->ptr));
        lua_rawseti(lua, -2, j + 1);
        decrRefCount(o);
    }
    lua_setglobal(lua, name);
}

/* Every LUA_HOOK_INSTRUCTIONS instructions; after a kill, every line, so a
 * pcall cannot swallow the error and go on. */
static void luaInterruptHook(lua_State *lua, lua_Debug *ar) {
    (void)ar;
    scriptRunCtx *ctx = scriptCurrentRun();
    if (ctx == NULL || !scriptInterrupt(ctx)) return;
    serverLog(LL_WARNING, "Lua script killed by user with SCRIPT KILL.");
    lua_sethook(lua, luaInterruptHook, LUA_MASKLINE, 0);
    raiseErrorText(lua, "Script killed by user with SCRIPT KILL...");
}

static void replyRunError(scriptRunCtx *ctx, lua_State *lua) {
    client *c = ctx->caller;
    if (!lua_istable(lua, -1)) {
        const char *msg = lua_isstring(lua, -1) ? lua_tostring(lua, -1) : "execution failure";
        addReplyErrorFormat(c, "Error running script %s, %.100s\n", ctx->funcname, msg);
        return;
    }
    luaErrorInfo info;
    errorInfoFromTable(lua, &info);
    /* error({}) has no message (Redis 7.0.15 crashes on it): a generic one */
    sds err = info.msg ? sdscatfmt(sdsempty(), "-%S", info.msg) : sdsnew("-ERR unknown error");
    if (info.line && info.source)
        err = sdscatfmt(err, " script: %s, on %S:%S.", ctx->funcname, info.source, info.line);
    replyErrorMaybeCounted(c, err, info.counted);
    errorInfoFree(&info);
}

void luaEngineRunEval(scriptRunCtx *ctx, lua_State *lua, int ref, robj **keys, int nkeys, robj **args,
                      int nargs) {
    static long gc_count;
    lua_getglobal(lua, "__redis__err__handler");
    lua_rawgeti(lua, LUA_REGISTRYINDEX, ref);
    if (ldbActive()) lua_sethook(lua, ldbLineHook, LUA_MASKLINE | LUA_MASKCOUNT, LDB_HOOK_INSTRUCTIONS);
    else if (server.busy_reply_threshold > 0) lua_sethook(lua, luaInterruptHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    setGlobalArray(lua, "KEYS", keys, nkeys);
    setGlobalArray(lua, "ARGV", args, nargs);
    int err = lua_pcall(lua, 0, 1, -2);
    if (++gc_count == LUA_GC_CYCLE_PERIOD) {
        lua_gc(lua, LUA_GCSTEP, LUA_GC_CYCLE_PERIOD);
        gc_count = 0;
    }
    if (err) {
        replyRunError(ctx, lua);
        lua_pop(lua, 1);
    } else {
        replyFromLua(ctx->caller, ctx->fake->resp, lua);
    }
    lua_sethook(lua, NULL, 0, 0);
    lua_pop(lua, 1); /* the error handler */
}

/* ---- the functions engine (FUNCTION LOAD, FCALL) ------------------------------------------ */

/* While FUNCTION LOAD runs a library's code: where redis.register_function
 * sends what it registers. */
static struct {
    luaRegisterProc *proc;
    void *ud;
    long long start_us;
} library_load;

/* Reads a flags table {'no-writes', ...} (names case-insensitive here, as
 * Redis reads them); C_ERR on an unknown or non-string flag. */
static int readFunctionFlags(lua_State *lua, int idx, uint64_t *flags) {
    *flags = 0;
    for (int j = 1;; j++) {
        lua_rawgeti(lua, idx, j);
        if (lua_isnil(lua, -1)) {
            lua_pop(lua, 1);
            return C_OK;
        }
        uint64_t flag;
        int ok = lua_type(lua, -1) == LUA_TSTRING && scriptParseFlagNameNoCase(lua_tostring(lua, -1), &flag) == C_OK;
        lua_pop(lua, 1);
        if (!ok) return C_ERR;
        *flags |= flag;
    }
}

typedef struct registerArgs {
    sds name, desc;
    int ref; /* LUA_NOREF until the callback is read */
    uint64_t flags;
} registerArgs;

/* The string at idx whole, NUL bytes included: a name "a\0b" must fail the
 * name check, not pass as "a". */
static sds sdsFromLua(lua_State *lua, int idx) {
    size_t len;
    const char *s = lua_tolstring(lua, idx, &len);
    return sdsnewlen(s, len);
}

static const char *readNamedArg(lua_State *lua, registerArgs *a) {
    const char *key = lua_tostring(lua, -2);
    if (!strcasecmp(key, "function_name")) {
        if (!lua_isstring(lua, -1)) return "function_name argument given to redis.register_function must be a string";
        sdsfree(a->name);
        a->name = sdsFromLua(lua, -1);
    } else if (!strcasecmp(key, "description")) {
        if (!lua_isstring(lua, -1)) return "description argument given to redis.register_function must be a string";
        sdsfree(a->desc);
        a->desc = sdsnew(lua_tostring(lua, -1));
    } else if (!strcasecmp(key, "callback")) {
        if (!lua_isfunction(lua, -1)) return "callback argument given to redis.register_function must be a function";
        if (a->ref != LUA_NOREF) luaL_unref(lua, LUA_REGISTRYINDEX, a->ref);
        lua_pushvalue(lua, -1);
        a->ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    } else if (!strcasecmp(key, "flags")) {
        if (!lua_istable(lua, -1)) return "flags argument to redis.register_function must be a table representing function flags";
        if (readFunctionFlags(lua, lua_gettop(lua), &a->flags) != C_OK) return "unknown flag given";
    } else {
        return "unknown argument given to redis.register_function";
    }
    return NULL;
}

static const char *readNamedArgs(lua_State *lua, registerArgs *a) {
    if (!lua_istable(lua, 1))
        return "calling redis.register_function with a single argument is only applicable to Lua table "
               "(representing named arguments).";
    lua_pushnil(lua);
    while (lua_next(lua, 1)) {
        if (lua_type(lua, -2) != LUA_TSTRING) return "named argument key given to redis.register_function is not a string";
        const char *err = readNamedArg(lua, a);
        if (err) return err;
        lua_pop(lua, 1);
    }
    if (a->name == NULL) return "redis.register_function must get a function name argument";
    if (a->ref == LUA_NOREF) return "redis.register_function must get a callback argument";
    return NULL;
}

static const char *readPositionalArgs(lua_State *lua, registerArgs *a) {
    if (!lua_isstring(lua, 1)) return "first argument to redis.register_function must be a string";
    if (!lua_isfunction(lua, 2)) return "second argument to redis.register_function must be a function";
    a->name = sdsFromLua(lua, 1);
    lua_pushvalue(lua, 2);
    a->ref = luaL_ref(lua, LUA_REGISTRYINDEX);
    return NULL;
}

static int luaRegisterFunction(lua_State *lua) {
    if (library_load.proc == NULL)
        return raiseErrorText(lua, "redis.register_function can only be called on FUNCTION LOAD command");
    int argc = lua_gettop(lua);
    if (argc < 1 || argc > 2) return raiseErrorText(lua, "wrong number of arguments to redis.register_function");
    registerArgs a = {.ref = LUA_NOREF};
    const char *err = argc == 1 ? readNamedArgs(lua, &a) : readPositionalArgs(lua, &a);
    sds reg_err = NULL;
    if (err == NULL && library_load.proc(library_load.ud, a.name, a.ref, a.flags, a.desc, &reg_err) == C_OK) {
        sdsfree(a.name);
        sdsfree(a.desc);
        return 0; /* the ref now belongs to the library */
    }
    if (a.ref != LUA_NOREF) luaL_unref(lua, LUA_REGISTRYINDEX, a.ref);
    sdsfree(a.name);
    sdsfree(a.desc);
    if (reg_err) {
        pushErrorTable(lua, reg_err, sdslen(reg_err));
        sdsfree(reg_err);
        return raiseTop(lua);
    }
    return raiseErrorText(lua, err);
}

/* What a library's code sees while it loads: only redis.register_function,
 * redis.log and the constants (Redis 7.0's library API); anything else is
 * a missing global. */
static void installLibraryApi(lua_State *lua) {
    lua_newtable(lua); /* the API's globals */
    lua_newtable(lua); /* its redis */
    setFunctionField(lua, "register_function", luaRegisterFunction);
    setFunctionField(lua, "log", luaRedisLog);
    setNumberField(lua, "LOG_DEBUG", LL_DEBUG);
    setNumberField(lua, "LOG_VERBOSE", LL_VERBOSE);
    setNumberField(lua, "LOG_NOTICE", LL_NOTICE);
    setNumberField(lua, "LOG_WARNING", LL_WARNING);
    lua_pushstring(lua, REDIS_VERSION);
    lua_setfield(lua, -2, "REDIS_VERSION");
    setNumberField(lua, "REDIS_VERSION_NUM", redisVersionNum());
    makeProxy(lua, luaStrictIndex);
    lua_setfield(lua, -2, "redis");
    setStrictMetatable(lua);
    lua_setfield(lua, LUA_REGISTRYINDEX, REGISTRY_LIBRARY_API);
}

lua_State *luaEngineCreateForFunctions(void) {
    lua_State *lua = luaEngineCreate();
    installLibraryApi(lua);
    return lua;
}

static void luaLoadTimeoutHook(lua_State *lua, lua_Debug *ar) {
    (void)ar;
    if ((monotonicUs() - library_load.start_us) / 1000 <= FUNCTION_LOAD_TIMEOUT_MS) return;
    lua_sethook(lua, luaLoadTimeoutHook, LUA_MASKLINE, 0);
    raiseErrorText(lua, "FUNCTION LOAD timeout");
}

/* What the scripts' environment reads through to: the globals, or the
 * library API while FUNCTION LOAD runs a library's code. */
static void setApi(lua_State *lua, const char *which) {
    lua_getfield(lua, LUA_REGISTRYINDEX, REGISTRY_ENV);
    lua_getmetatable(lua, -1);
    lua_getfield(lua, LUA_REGISTRYINDEX, which);
    lua_setfield(lua, -2, "__index");
    lua_pop(lua, 2);
}

/* The message of the error on top (a table's err, or "ERR " + a string). */
static sds errorMessageOfTop(lua_State *lua) {
    if (lua_istable(lua, -1)) {
        luaErrorInfo info;
        errorInfoFromTable(lua, &info);
        sds msg = info.msg ? sdsdup(info.msg) : sdsnew("ERR unknown error");
        errorInfoFree(&info);
        return msg;
    }
    const char *s = lua_tostring(lua, -1);
    return sdscatfmt(sdsempty(), "ERR %s", s ? s : "unknown error");
}

int luaEngineLoadLibrary(lua_State *lua, const char *code, size_t len, size_t shebang_len, luaRegisterProc *proc,
                         void *ud, sds *err) {
    if (luaL_loadbuffer(lua, code + shebang_len, len - shebang_len, "@user_function")) {
        *err = sdscatfmt(sdsempty(), "Error compiling function: %s", lua_tostring(lua, -1));
        lua_pop(lua, 1);
        return C_ERR;
    }
    luaEngineSetScriptEnv(lua);
    library_load.proc = proc;
    library_load.ud = ud;
    library_load.start_us = monotonicUs();
    setApi(lua, REGISTRY_LIBRARY_API);
    lua_sethook(lua, luaLoadTimeoutHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    int failed = lua_pcall(lua, 0, 0, 0);
    lua_sethook(lua, NULL, 0, 0);
    setApi(lua, REGISTRY_FULL_API);
    library_load.proc = NULL;
    if (!failed) return C_OK;
    sds msg = errorMessageOfTop(lua);
    *err = sdscatfmt(sdsempty(), "Error registering functions: %S", msg);
    sdsfree(msg);
    lua_pop(lua, 1);
    return C_ERR;
}

void luaEngineUnref(lua_State *lua, int ref) { luaL_unref(lua, LUA_REGISTRYINDEX, ref); }

static void pushArray(lua_State *lua, robj **elems, int count) {
    lua_createtable(lua, count, 0);
    for (int j = 0; j < count; j++) {
        robj *o = getDecodedObject(elems[j]);
        lua_pushlstring(lua, o->ptr, sdslen(o->ptr));
        lua_rawseti(lua, -2, j + 1);
        decrRefCount(o);
    }
}

void luaEngineRunFunction(scriptRunCtx *ctx, lua_State *lua, int ref, robj **keys, int nkeys, robj **args,
                          int nargs) {
    lua_getglobal(lua, "__redis__err__handler");
    lua_rawgeti(lua, LUA_REGISTRYINDEX, ref);
    pushArray(lua, keys, nkeys);
    pushArray(lua, args, nargs);
    if (server.busy_reply_threshold > 0) lua_sethook(lua, luaInterruptHook, LUA_MASKCOUNT, LUA_HOOK_INSTRUCTIONS);
    int err = lua_pcall(lua, 2, 1, -4);
    lua_sethook(lua, NULL, 0, 0);
    if (err) {
        replyRunError(ctx, lua);
        lua_pop(lua, 1);
    } else {
        replyFromLua(ctx->caller, ctx->fake->resp, lua);
    }
    lua_pop(lua, 1); /* the error handler */
}
