/* module_api.c -- the functions a Redis 7.0 module calls, and the lookup by
 * name through which it finds them (RedisModule_GetApi).
 *
 * Every function here is static and reachable only through api_table: the
 * server exports no symbol for modules. The table maps the name a module's
 * RedisModule_Init asks for ("RedisModule_" + the function's name) to our
 * implementation; a name that is not in it fails the lookup and the
 * module's pointer stays NULL, exactly as with a Redis that lacks the
 * function -- the module decides whether it can live without it.
 *
 * Decisions:
 * - A RedisModuleString is our robj. Strings the module creates are raw or
 *   embstr sds strings; an argument that arrived int-encoded is decoded in
 *   place before its bytes are handed out (StringPtrLen).
 * - Replies go to the context's client; a context without one (OnLoad,
 *   OnUnload) drops them, as Redis's temporary client does in effect.
 * - Call and its replies are module_call.c's.
 * - A key handle (OpenKey) remembers the database and the key name, and
 *   looks the value up again on each use: the keyspace may move a value
 *   (kvobj) when it is written or given a TTL.
 */
#include "module_int.h"
#include "snapshot.h"
#include "stream.h"
#include "kvobj.h"
#include "kvtable.h"

#include <stdarg.h>
#include <errno.h>
#include <math.h>

typedef struct redisObject RString;

/* ---- memory ------------------------------------------------------------------- */

static void *RM_Alloc(size_t bytes) { return zmalloc(bytes); }
static void *RM_TryAlloc(size_t bytes) { return zmalloc(bytes); }
static void *RM_Calloc(size_t nmemb, size_t size) { return zcalloc(nmemb * size); }
static void *RM_Realloc(void *ptr, size_t bytes) { return zrealloc(ptr, bytes); }
static void RM_Free(void *ptr) { zfree(ptr); }
static char *RM_Strdup(const char *str) { return zstrdup(str); }

static void *RM_PoolAlloc(RedisModuleCtx *ctx, size_t bytes) { return moduleCtxPoolAlloc(ctx, bytes); }

/* ---- module identity and misc -------------------------------------------------- */

static void RM_SetModuleAttribs(RedisModuleCtx *ctx, const char *name, int ver, int apiver) {
    moduleSetAttribs(ctx, name, ver, apiver);
}

static int RM_IsModuleNameBusy(const char *name) { return moduleNameBusy(name); }
static long long RM_Milliseconds(void) { return mstime(); }
static uint64_t RM_MonotonicMicroseconds(void) { return (uint64_t)monotonicUs(); }
static void RM_AutoMemory(RedisModuleCtx *ctx) { ctx->flags |= MODCTX_AUTO_MEMORY; }

static unsigned long long RM_GetClientId(RedisModuleCtx *ctx) { return ctx->client ? ctx->client->id : 0; }

static int RM_GetSelectedDb(RedisModuleCtx *ctx) { return ctx->client ? ctx->client->db->id : 0; }

static int RM_SelectDb(RedisModuleCtx *ctx, int newid) {
    if (ctx->client == NULL) return MODAPI_ERR;
    return selectDb(ctx->client, newid) == C_OK ? MODAPI_OK : MODAPI_ERR;
}

/* Every flag Redis 7.0 defines, as its GetContextFlagsAll says. */
static int RM_GetContextFlagsAll(void) { return MODAPI_CTX_FLAGS_NEXT - 1; }

/* Every flag of Redis 7.0's, on the same conditions. A replica ignores
 * maxmemory (Redis's replica-ignore-maxmemory default), so it has no
 * MAXMEMORY or EVICT flag. */
static int RM_GetContextFlags(RedisModuleCtx *ctx) {
    int flags = 0;
    if (ctx && ctx->client) {
        if (server.in_exec || (ctx->client->flags & (CLIENT_MULTI | CLIENT_FAKE | CLIENT_SCRIPT)))
            flags |= MODAPI_CTX_FLAGS_DENY_BLOCKING; /* BlockClient would refuse (module_block.c) */
        if (ctx->client->resp == 3) flags |= MODAPI_CTX_FLAGS_RESP3;
        if (ctx->client->flags & CLIENT_MASTER) flags |= MODAPI_CTX_FLAGS_REPLICATED;
        if (ctx->client->flags & (CLIENT_DIRTY_CAS | CLIENT_DIRTY_EXEC)) flags |= MODAPI_CTX_FLAGS_MULTI_DIRTY;
    }
    if (server.in_exec) flags |= MODAPI_CTX_FLAGS_MULTI; /* as Redis: EXEC runs, whichever client asks */
    if (scriptIsRunning()) flags |= MODAPI_CTX_FLAGS_LUA; /* as Redis: a script runs, whichever client asks */
    if (server.cluster_enabled) flags |= MODAPI_CTX_FLAGS_CLUSTER;
    int phase = replicaLinkPhase();
    if (phase == 0) {
        flags |= MODAPI_CTX_FLAGS_MASTER;
    } else {
        flags |= MODAPI_CTX_FLAGS_SLAVE;
        if (server.repl_slave_ro) flags |= MODAPI_CTX_FLAGS_READONLY;
        if (phase == 1) flags |= MODAPI_CTX_FLAGS_REPLICA_IS_CONNECTING;
        else if (phase == 3) flags |= MODAPI_CTX_FLAGS_REPLICA_IS_TRANSFERRING;
        else if (phase == 4) flags |= MODAPI_CTX_FLAGS_REPLICA_IS_ONLINE;
        if (phase != 4) flags |= MODAPI_CTX_FLAGS_REPLICA_IS_STALE;
    }
    if (server.aof_enabled) flags |= MODAPI_CTX_FLAGS_AOF;
    if (server.saveparamslen > 0) flags |= MODAPI_CTX_FLAGS_RDB;
    if (server.maxmemory && phase == 0) {
        flags |= MODAPI_CTX_FLAGS_MAXMEMORY;
        if (server.maxmemory_policy != MAXMEMORY_NO_EVICTION) flags |= MODAPI_CTX_FLAGS_EVICT;
    }
    double level = evictMemoryLevel();
    if (level > 1) flags |= MODAPI_CTX_FLAGS_OOM;
    if (level > 0.75) flags |= MODAPI_CTX_FLAGS_OOM_WARNING;
    if (hasActiveChildProcess()) flags |= MODAPI_CTX_FLAGS_ACTIVE_CHILD;
    if (snapshotInForkChild) flags |= MODAPI_CTX_FLAGS_IS_CHILD; /* a fork child's copy of the server */
    if (server.async_loading) flags |= MODAPI_CTX_FLAGS_ASYNC_LOADING; /* as 7.0: one or the other */
    else if (server.loading) flags |= MODAPI_CTX_FLAGS_LOADING;
    return flags;
}

/* ---- logging ------------------------------------------------------------------- */

static int moduleLogLevel(const char *levelstr) {
    if (!strcasecmp(levelstr, "debug")) return LL_DEBUG;
    if (!strcasecmp(levelstr, "verbose")) return LL_VERBOSE;
    if (!strcasecmp(levelstr, "warning")) return LL_WARNING;
    return LL_NOTICE;
}

/* "<module:name> text", as Redis 7.0 prefixes a module's lines. */
static void moduleLogVa(const char *modname, const char *levelstr, const char *fmt, va_list ap) {
    int level = moduleLogLevel(levelstr);
    if (level < server.verbosity) return;
    char msg[8192];
    int n = snprintf(msg, sizeof msg, "<%s> ", modname);
    vsnprintf(msg + n, sizeof msg - (size_t)n, fmt, ap);
    serverLog(level, "%s", msg);
}

static void RM_Log(RedisModuleCtx *ctx, const char *levelstr, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    moduleLogVa(ctx && ctx->module ? ctx->module->name : "module", levelstr, fmt, ap);
    va_end(ap);
}

/* ---- strings ------------------------------------------------------------------- */

/* The object's bytes as an sds: an int-encoded object is turned into a
 * string in place (a module may hold and compare its pointer). */
void moduleStringDecode(RString *o) {
    if (o->encoding != OBJ_ENCODING_INT) return;
    char buf[32];
    int len = ll2string(buf, sizeof buf, (long long)(intptr_t)o->ptr);
    o->ptr = sdsnewlen(buf, (size_t)len);
    o->encoding = OBJ_ENCODING_RAW;
}

static RString *moduleTrack(RedisModuleCtx *ctx, RString *o) {
    moduleAutoAdd(ctx, AUTO_STRING, o);
    return o;
}

static RString *RM_CreateString(RedisModuleCtx *ctx, const char *ptr, size_t len) {
    return moduleTrack(ctx, createStringObject(ptr, len));
}

static RString *RM_CreateStringPrintf(RedisModuleCtx *ctx, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    sds s = sdscatvprintf(sdsempty(), fmt, ap);
    va_end(ap);
    return moduleTrack(ctx, createObject(OBJ_STRING, s));
}

static RString *RM_CreateStringFromLongLong(RedisModuleCtx *ctx, long long ll) {
    char buf[32];
    int len = ll2string(buf, sizeof buf, ll);
    return RM_CreateString(ctx, buf, (size_t)len);
}

static RString *RM_CreateStringFromDouble(RedisModuleCtx *ctx, double d) {
    char buf[MAX_D2STRING_CHARS];
    int len = d2string(buf, sizeof buf, d);
    return RM_CreateString(ctx, buf, (size_t)len);
}

static RString *RM_CreateStringFromLongDouble(RedisModuleCtx *ctx, long double ld, int humanfriendly) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof buf, ld, humanfriendly ? LD_STR_HUMAN : LD_STR_AUTO);
    return RM_CreateString(ctx, buf, (size_t)len);
}

/* The module's header declares the string const; an int-encoded one is
 * still decoded in place, so ours takes it as it is. */
static RString *RM_CreateStringFromString(RedisModuleCtx *ctx, RString *str) {
    moduleStringDecode(str);
    return RM_CreateString(ctx, str->ptr, sdslen(str->ptr));
}

static void RM_FreeString(RedisModuleCtx *ctx, RString *str) {
    if (ctx && ctx->flags & MODCTX_AUTO_MEMORY) moduleAutoForget(ctx, str);
    decrRefCount(str);
}

/* A string the context's auto memory would free is taken off its list
 * instead, so its count stays 1 (StringAppendBuffer may still change it
 * in place), as Redis 7.0 does; any other gets one more reference. */
static void RM_RetainString(RedisModuleCtx *ctx, RString *str) {
    if (ctx == NULL || !(ctx->flags & MODCTX_AUTO_MEMORY) || !moduleAutoForget(ctx, str)) incrRefCount(str);
}

static RString *RM_HoldString(RedisModuleCtx *ctx, RString *str) {
    if (str == NULL) return NULL;
    incrRefCount(str);
    return moduleTrack(ctx, str);
}

static const char *RM_StringPtrLen(RString *str, size_t *len) {
    if (str == NULL) {
        static const char nullmsg[] = "(NULL string reply referenced in module)";
        if (len) *len = sizeof nullmsg - 1;
        return nullmsg;
    }
    moduleStringDecode(str);
    if (len) *len = sdslen(str->ptr);
    return str->ptr;
}

static int RM_StringToLongLong(RString *str, long long *ll) {
    size_t len;
    const char *p = RM_StringPtrLen(str, &len);
    return string2ll(p, len, ll) ? MODAPI_OK : MODAPI_ERR;
}

static int RM_StringToDouble(RString *str, double *d) {
    size_t len;
    const char *p = RM_StringPtrLen(str, &len);
    return string2d(p, len, d) && !isnan(*d) ? MODAPI_OK : MODAPI_ERR;
}

static int RM_StringToLongDouble(RString *str, long double *ld) {
    size_t len;
    const char *p = RM_StringPtrLen(str, &len);
    return string2ld(p, len, ld) && !isnan(*ld) ? MODAPI_OK : MODAPI_ERR;
}

static int RM_StringCompare(RString *a, RString *b) {
    size_t la, lb;
    const char *pa = RM_StringPtrLen(a, &la), *pb = RM_StringPtrLen(b, &lb);
    int cmp = memcmp(pa, pb, la < lb ? la : lb);
    if (cmp) return cmp;
    return la < lb ? -1 : la > lb;
}

static int RM_StringAppendBuffer(RedisModuleCtx *ctx, RString *str, const char *buf, size_t len) {
    (void)ctx;
    if (str->refcount != 1) {
        serverLog(LL_WARNING, "Module attempted to use an in-place string modify operation with a string referenced "
                              "multiple times. Please check the code for API usage correctness."); /* Redis 7.0's */
        return MODAPI_ERR;
    }
    moduleStringDecode(str);
    if (str->encoding == OBJ_ENCODING_EMBSTR) {
        sds copy = sdsnewlen(str->ptr, sdslen(str->ptr));
        str->ptr = copy;
        str->encoding = OBJ_ENCODING_RAW;
    }
    str->ptr = sdscatlen(str->ptr, buf, len);
    return MODAPI_OK;
}

static void RM_TrimStringAllocation(RString *str) { (void)str; }

/* ---- replies --------------------------------------------------------------------- */

/* A thread-safe context replies into its blocked client's buffer (or
 * nowhere, detached); any other into its client, if it has one. */
client *moduleReplyClient(RedisModuleCtx *ctx) {
    if (ctx == NULL) return NULL;
    return ctx->flags & MODCTX_THREAD_SAFE ? ctx->reply_client : ctx->client;
}

static int RM_WrongArity(RedisModuleCtx *ctx) {
    client *c = moduleReplyClient(ctx);
    if (c) addReplyErrorFormat(c, "wrong number of arguments for '%s' command", c->cmd ? c->cmd->fullname : "");
    return MODAPI_OK;
}

static int RM_ReplyWithLongLong(RedisModuleCtx *ctx, long long ll) {
    if (moduleReplyClient(ctx)) addReplyLongLong(moduleReplyClient(ctx), ll);
    return MODAPI_OK;
}

static int RM_ReplyWithError(RedisModuleCtx *ctx, const char *err) {
    if (moduleReplyClient(ctx)) addReplyErrorFormat(moduleReplyClient(ctx), "-%s", err);
    return MODAPI_OK;
}

static int RM_ReplyWithSimpleString(RedisModuleCtx *ctx, const char *msg) {
    if (moduleReplyClient(ctx)) addReplyStatus(moduleReplyClient(ctx), msg);
    return MODAPI_OK;
}

static void postponedPush(RedisModuleCtx *ctx, void *node) {
    if (ctx->postponed_len == ctx->postponed_cap) {
        ctx->postponed_cap = ctx->postponed_cap ? ctx->postponed_cap * 2 : 8;
        ctx->postponed = zrealloc(ctx->postponed, sizeof(void *) * (size_t)ctx->postponed_cap);
    }
    ctx->postponed[ctx->postponed_len++] = node;
}

/* An aggregate header of the given kind; len -1 postpones the length. */
static int replyAggregate(RedisModuleCtx *ctx, long len, void (*header)(client *, long)) {
    client *c = moduleReplyClient(ctx);
    if (c == NULL) return MODAPI_OK;
    if (len == MODAPI_POSTPONED_LEN) postponedPush(ctx, addReplyDeferredLen(c));
    else header(c, len);
    return MODAPI_OK;
}

static int RM_ReplyWithArray(RedisModuleCtx *ctx, long len) { return replyAggregate(ctx, len, addReplyArrayLen); }
static int RM_ReplyWithMap(RedisModuleCtx *ctx, long len) { return replyAggregate(ctx, len, addReplyMapLen); }
static int RM_ReplyWithSet(RedisModuleCtx *ctx, long len) { return replyAggregate(ctx, len, addReplySetLen); }

/* RESP3 only, as in Redis (an error to a RESP2 client). */
static void addReplyAttributeLen(client *c, long len) {
    char hdr[32];
    int n = snprintf(hdr, sizeof hdr, "|%ld\r\n", len);
    addReplyProto(c, hdr, (size_t)n);
}

static int RM_ReplyWithAttribute(RedisModuleCtx *ctx, long len) {
    client *c = moduleReplyClient(ctx);
    if (c == NULL) return MODAPI_OK;
    if (c->resp == 2) return MODAPI_ERR;
    return replyAggregate(ctx, len, addReplyAttributeLen);
}

static void replySetLength(RedisModuleCtx *ctx, long len, void (*set)(client *, void *, long)) {
    if (moduleReplyClient(ctx) == NULL) return;
    if (ctx->postponed_len == 0) {
        serverLog(LL_WARNING, "API misuse detected in module %s: RedisModule_ReplySet*Length() called without "
                  "previous RedisModule_ReplyWith*(ctx,REDISMODULE_POSTPONED_LEN) call.",
                  ctx->module ? ctx->module->name : "?");
        return;
    }
    set(moduleReplyClient(ctx), ctx->postponed[--ctx->postponed_len], len);
}

static void RM_ReplySetArrayLength(RedisModuleCtx *ctx, long len) { replySetLength(ctx, len, setDeferredArrayLen); }
static void RM_ReplySetMapLength(RedisModuleCtx *ctx, long len) { replySetLength(ctx, len, setDeferredMapLen); }
static void RM_ReplySetSetLength(RedisModuleCtx *ctx, long len) { replySetLength(ctx, len, setDeferredSetLen); }

/* Must follow a ReplyWithAttribute that succeeded: nothing for RESP2. */
static void RM_ReplySetAttributeLength(RedisModuleCtx *ctx, long len) {
    if (moduleReplyClient(ctx) && moduleReplyClient(ctx)->resp == 2) return;
    replySetLength(ctx, len, setDeferredAttributeLen);
}

static int RM_ReplyWithNullArray(RedisModuleCtx *ctx) {
    if (moduleReplyClient(ctx)) addReplyNullArray(moduleReplyClient(ctx));
    return MODAPI_OK;
}

static int RM_ReplyWithEmptyArray(RedisModuleCtx *ctx) {
    if (moduleReplyClient(ctx)) addReplyArrayLen(moduleReplyClient(ctx), 0);
    return MODAPI_OK;
}

static int RM_ReplyWithStringBuffer(RedisModuleCtx *ctx, const char *buf, size_t len) {
    if (moduleReplyClient(ctx)) addReplyBulkCBuffer(moduleReplyClient(ctx), buf, len);
    return MODAPI_OK;
}

static int RM_ReplyWithCString(RedisModuleCtx *ctx, const char *buf) {
    return RM_ReplyWithStringBuffer(ctx, buf, strlen(buf));
}

static int RM_ReplyWithString(RedisModuleCtx *ctx, RString *str) {
    size_t len;
    const char *p = RM_StringPtrLen(str, &len);
    return RM_ReplyWithStringBuffer(ctx, p, len);
}

static int RM_ReplyWithEmptyString(RedisModuleCtx *ctx) { return RM_ReplyWithStringBuffer(ctx, "", 0); }

static int RM_ReplyWithVerbatimStringType(RedisModuleCtx *ctx, const char *buf, size_t len, const char *ext) {
    if (moduleReplyClient(ctx)) addReplyVerbatim(moduleReplyClient(ctx), buf, len, ext);
    return MODAPI_OK;
}

static int RM_ReplyWithVerbatimString(RedisModuleCtx *ctx, const char *buf, size_t len) {
    return RM_ReplyWithVerbatimStringType(ctx, buf, len, "txt");
}

static int RM_ReplyWithNull(RedisModuleCtx *ctx) {
    if (moduleReplyClient(ctx)) addReplyNull(moduleReplyClient(ctx));
    return MODAPI_OK;
}

static int RM_ReplyWithBool(RedisModuleCtx *ctx, int b) {
    if (moduleReplyClient(ctx)) addReplyBool(moduleReplyClient(ctx), b);
    return MODAPI_OK;
}

static int RM_ReplyWithDouble(RedisModuleCtx *ctx, double d) {
    if (moduleReplyClient(ctx)) addReplyDouble(moduleReplyClient(ctx), d);
    return MODAPI_OK;
}

static int RM_ReplyWithBigNumber(RedisModuleCtx *ctx, const char *bignum, size_t len) {
    if (moduleReplyClient(ctx)) addReplyBigNum(moduleReplyClient(ctx), bignum, len);
    return MODAPI_OK;
}

/* As Redis: the human-friendly form, a bulk string in RESP2 and a double
 * (",<text>") in RESP3. */
static int RM_ReplyWithLongDouble(RedisModuleCtx *ctx, long double ld) {
    char buf[MAX_LONG_DOUBLE_CHARS + 3];
    int len = ld2string(buf + 1, sizeof buf - 3, ld, LD_STR_HUMAN);
    client *c = moduleReplyClient(ctx);
    if (c == NULL) return MODAPI_OK;
    if (c->resp == 2) return RM_ReplyWithStringBuffer(ctx, buf + 1, (size_t)len);
    buf[0] = ',';
    memcpy(buf + 1 + len, "\r\n", 2);
    addReplyProto(c, buf, (size_t)len + 3);
    return MODAPI_OK;
}

/* ---- keys ------------------------------------------------------------------------------ */


/* The key's value now, without touching its LRU or the hit/miss counters
 * (OpenKey's own lookup did that once). */
robj *moduleKeyValue(moduleKey *k) {
    return lookupKeyReadWithFlags(k->db, k->key, LOOKUP_NOTOUCH | LOOKUP_NOSTATS | LOOKUP_NONOTIFY);
}

static moduleKey *RM_OpenKey(RedisModuleCtx *ctx, RString *keyname, int mode) {
    redisDb *db = ctx->client ? ctx->client->db : server.db;
    moduleStringDecode(keyname);
    int touch = (mode & MODAPI_KEY_NOTOUCH) ? LOOKUP_NOTOUCH : LOOKUP_NONE; /* honoured in both modes, as in 7.0 */
    robj *value;
    if (mode & MODAPI_KEY_WRITE) value = lookupKeyReadWithFlags(db, keyname, LOOKUP_WRITE | touch);
    else value = lookupKeyReadWithFlags(db, keyname, touch);
    if (value == NULL && !(mode & MODAPI_KEY_WRITE)) return NULL;
    moduleKey *k = zcalloc(sizeof(*k)); /* no range iterator yet */
    k->ctx = ctx;
    k->db = db;
    k->key = keyname;
    incrRefCount(keyname);
    k->mode = mode;
    moduleAutoAdd(ctx, AUTO_KEY, k);
    return k;
}

/* Closing a key opened for writing -- by CloseKey or by auto memory at the
 * command's end -- signals it modified (WATCH, client-side caching) whether
 * or not anything was written, as Redis 7.0 does; a module that set
 * REDISMODULE_OPTION_NO_IMPLICIT_SIGNAL_MODIFIED calls SignalModifiedKey
 * itself. (Before, nothing a module wrote through the key API, DMA
 * included, aborted a WATCHing client's EXEC.) */
void moduleKeyClose(void *key) {
    moduleKey *k = key;
    if ((k->mode & MODAPI_KEY_WRITE) &&
        !(k->ctx->module && (k->ctx->module->options & MODAPI_OPTIONS_NO_IMPLICIT_SIGNAL_MODIFIED)))
        signalModifiedKey(k->ctx->client, k->db, k->key);
    moduleKeyRangeStop(k);
    moduleStreamIterFree(k);
    decrRefCount(k->key);
    zfree(k);
}

static void RM_CloseKey(moduleKey *k) {
    if (k == NULL) return;
    if (k->ctx->flags & MODCTX_AUTO_MEMORY) moduleAutoForget(k->ctx, k);
    moduleKeyClose(k);
}

static int RM_KeyType(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL) return MODAPI_KEYTYPE_EMPTY;
    switch (v->type) {
    case OBJ_STRING: return MODAPI_KEYTYPE_STRING;
    case OBJ_LIST: return MODAPI_KEYTYPE_LIST;
    case OBJ_HASH: return MODAPI_KEYTYPE_HASH;
    case OBJ_SET: return MODAPI_KEYTYPE_SET;
    case OBJ_ZSET: return MODAPI_KEYTYPE_ZSET;
    case OBJ_STREAM: return MODAPI_KEYTYPE_STREAM;
    case OBJ_MODULE: return MODAPI_KEYTYPE_MODULE;
    default: return MODAPI_KEYTYPE_EMPTY;
    }
}

static size_t RM_ValueLength(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL) return 0;
    switch (v->type) {
    case OBJ_STRING: return stringObjectLen(v);
    case OBJ_LIST: return listTypeLength(v);
    case OBJ_HASH: return hashTypeLength(v);
    case OBJ_SET: return setTypeSize(v);
    case OBJ_ZSET: return zsetLength(v);
    case OBJ_STREAM: return (size_t)((stream *)v->ptr)->length;
    default: return 0;
    }
}

static int RM_KeyExists(RedisModuleCtx *ctx, RString *keyname) {
    redisDb *db = ctx->client ? ctx->client->db : server.db;
    moduleStringDecode(keyname);
    return lookupKeyReadWithFlags(db, keyname, LOOKUP_NOTOUCH) != NULL;
}

static int keyDelete(moduleKey *k, int async) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE)) return MODAPI_ERR;
    if (moduleKeyValue(k)) {
        if (async) dbAsyncDelete(k->db, k->key);
        else dbSyncDelete(k->db, k->key);
    }
    return MODAPI_OK;
}

static int RM_DeleteKey(moduleKey *k) { return keyDelete(k, 0); }
static int RM_UnlinkKey(moduleKey *k) { return keyDelete(k, 1); }

static int RM_StringSet(moduleKey *k, RString *str) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE)) return MODAPI_ERR;
    moduleStringDecode(str);
    keyDelete(k, 0);
    setKey(k->ctx->client, k->db, k->key, str, SETKEY_NO_SIGNAL);
    return MODAPI_OK;
}

/* The string's bytes, for reading, or with WRITE for changing in place (the
 * value is made a private raw string first). */
static char *RM_StringDMA(moduleKey *k, size_t *len, int mode) {
    static char empty[1];
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL) {
        *len = 0;
        return empty;
    }
    if (v->type != OBJ_STRING) return NULL;
    if (mode & MODAPI_KEY_WRITE) v = dbUnshareStringValue(k->db, k->key, v);
    else if (v->encoding == OBJ_ENCODING_INT) v = dbUnshareStringValue(k->db, k->key, v);
    *len = sdslen(v->ptr);
    return v->ptr;
}

static int RM_StringTruncate(moduleKey *k, size_t newlen) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE)) return MODAPI_ERR;
    robj *v = moduleKeyValue(k);
    if (v && v->type != OBJ_STRING) return MODAPI_ERR;
    if (newlen > 512 * 1024 * 1024) return MODAPI_ERR;
    if (v == NULL) {
        if (newlen == 0) return MODAPI_OK;
        robj *o = createObject(OBJ_STRING, sdsgrowzero(sdsempty(), newlen));
        setKey(k->ctx->client, k->db, k->key, o, SETKEY_NO_SIGNAL);
        decrRefCount(o);
        return MODAPI_OK;
    }
    v = dbUnshareStringValue(k->db, k->key, v);
    size_t cur = sdslen(v->ptr);
    if (newlen > cur) v->ptr = sdsgrowzero(v->ptr, newlen);
    else if (newlen < cur) sdssubstr(v->ptr, 0, newlen);
    return MODAPI_OK;
}

static long long RM_GetExpire(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL) return MODAPI_NO_EXPIRE;
    long long when = kvobjGetExpire(v);
    if (when == -1) return MODAPI_NO_EXPIRE;
    long long ttl = when - mstime();
    return ttl >= 0 ? ttl : 0;
}

static int RM_SetExpire(moduleKey *k, long long expire) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE) || moduleKeyValue(k) == NULL) return MODAPI_ERR;
    if (expire != MODAPI_NO_EXPIRE && expire < 0) return MODAPI_ERR;
    if (expire == MODAPI_NO_EXPIRE) removeExpire(k->db, k->key);
    else setExpire(k->ctx->client, k->db, k->key, expire + mstime());
    return MODAPI_OK;
}


/* ---- commands ------------------------------------------------------------------------ */

static int RM_CreateCommand(RedisModuleCtx *ctx, const char *name, ModuleCmdFunc func, const char *strflags,
                            int firstkey, int lastkey, int keystep) {
    return moduleCreateCommand(ctx, NULL, name, func, strflags, firstkey, lastkey, keystep);
}

static void *RM_GetCommand(RedisModuleCtx *ctx, const char *name) { return moduleFindCommand(ctx, name); }

static int RM_CreateSubcommand(moduleCmd *parent, const char *name, ModuleCmdFunc func, const char *strflags,
                               int firstkey, int lastkey, int keystep) {
    if (parent == NULL || parent->cmd->parent || parent->func) return MODAPI_ERR; /* containers only, one level */
    RedisModuleCtx ctx;
    moduleCtxInit(&ctx, parent->owner, NULL);
    int res = moduleCreateCommand(&ctx, parent->cmd, name, func, strflags, firstkey, lastkey, keystep);
    moduleCtxFinish(&ctx);
    return res;
}

static int RM_IsKeysPositionRequest(RedisModuleCtx *ctx) { return (ctx->flags & MODCTX_KEYS_POS_REQUEST) != 0; }
/* A keys-position request's answer (module.c's moduleGetKeysViaApi):
 * flags are REDISMODULE_CMD_KEY_*, the same bits as KSPEC_*. Outside such
 * a request, or for a position that cannot be a key (<= 0), nothing. */
static void RM_KeyAtPosWithFlags(RedisModuleCtx *ctx, int pos, int flags) {
    if (!(ctx->flags & MODCTX_KEYS_POS_REQUEST) || ctx->keys_result == NULL || pos <= 0) return;
    uint64_t known = KSPEC_RO | KSPEC_RW | KSPEC_OW | KSPEC_RM | KSPEC_ACCESS | KSPEC_UPDATE | KSPEC_INSERT |
                     KSPEC_DELETE | KSPEC_NOT_KEY | KSPEC_INCOMPLETE | KSPEC_VARIABLE_FLAGS;
    getKeysAddKey(ctx->keys_result, pos, (uint64_t)(unsigned)flags & known);
}

/* COMMAND GETKEYS for a module: the key positions of argv (argv[0] the
 * command), and their REDISMODULE_CMD_KEY_* flags when out_flags is
 * given; arrays the module frees with Free. NULL when the command has no
 * keys (errno 0), is unknown (ENOENT) or has the wrong arity (EINVAL). */
static int *RM_GetCommandKeysWithFlags(RedisModuleCtx *ctx, RString **argv, int argc, int *num_keys, int **out_flags) {
    (void)ctx;
    *num_keys = 0;
    redisCommand *cmd = argc > 0 ? lookupCommand(argv, argc) : NULL;
    if (cmd == NULL) {
        errno = ENOENT;
        return NULL;
    }
    if (!commandHasKeys(cmd)) {
        errno = 0;
        return NULL;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        errno = EINVAL;
        return NULL;
    }
    getKeysResult result = {NULL, 0, 0};
    int n = getKeysFromCommandLegacy(cmd, argv, argc, &result); /* as 7.0: flags only from getkeys functions */
    *num_keys = n;
    int *pos = NULL;
    if (n > 0) {
        pos = zmalloc(sizeof(int) * (size_t)n);
        if (out_flags) *out_flags = zmalloc(sizeof(int) * (size_t)n);
        for (int j = 0; j < n; j++) {
            pos[j] = result.keys[j].pos;
            if (out_flags) (*out_flags)[j] = (int)result.keys[j].flags;
        }
    } else {
        errno = 0;
    }
    getKeysFreeResult(&result);
    return pos;
}

static int *RM_GetCommandKeys(RedisModuleCtx *ctx, RString **argv, int argc, int *num_keys) {
    return RM_GetCommandKeysWithFlags(ctx, argv, argc, num_keys, NULL);
}

static int RM_IsChannelsPositionRequest(RedisModuleCtx *ctx) { return (ctx->flags & MODCTX_CHANNELS_POS_REQUEST) != 0; }

/* A channels-position request's answer: flags REDISMODULE_CMD_CHANNEL_*
 * (the same bits as CMD_CHANNEL_*); ignored elsewhere and for pos <= 0. */
static void RM_ChannelAtPosWithFlags(RedisModuleCtx *ctx, int pos, int flags) {
    if (!(ctx->flags & MODCTX_CHANNELS_POS_REQUEST) || ctx->keys_result == NULL || pos <= 0) return;
    uint64_t known = CMD_CHANNEL_PATTERN | CMD_CHANNEL_PUBLISH | CMD_CHANNEL_SUBSCRIBE | CMD_CHANNEL_UNSUBSCRIBE;
    getKeysAddKey(ctx->keys_result, pos, (uint64_t)(unsigned)flags & known);
}

/* The older call: full access (RW ACCESS UPDATE), as Redis 7.0 reports it. */
static void RM_KeyAtPos(RedisModuleCtx *ctx, int pos) {
    RM_KeyAtPosWithFlags(ctx, pos, KSPEC_RW | KSPEC_ACCESS | KSPEC_UPDATE);
}

/* ---- replication ------------------------------------------------------------------- */

/* The command goes to the AOF and the replicas after the module's command,
 * with whatever else it propagates, in one MULTI/EXEC. */
static int RM_Replicate(RedisModuleCtx *ctx, const char *cmdname, const char *fmt, ...) {
    int argc = 0, flags = 0;
    va_list ap;
    va_start(ap, fmt);
    robj **argv = moduleFormatArgv(cmdname, fmt, &ap, &argc, &flags);
    va_end(ap);
    if (argv == NULL) return MODAPI_ERR;
    if (lookupCommand(argv, argc) == NULL) {
        for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
        zfree(argv);
        return MODAPI_ERR;
    }
    int dbid = ctx->client ? ctx->client->db->id : 0;
    if (propagationEnabled()) alsoPropagate(dbid, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
    return MODAPI_OK;
}

static int RM_ReplicateVerbatim(RedisModuleCtx *ctx) {
    client *c = ctx->client;
    if (c == NULL) return MODAPI_OK;
    alsoPropagate(c->db->id, c->argv, c->argc);
    server.dirty++;
    return MODAPI_OK;
}


/* ---- more of the server ----------------------------------------------------------------- */

static RString *RM_CreateStringFromULongLong(RedisModuleCtx *ctx, unsigned long long ull) {
    char buf[32];
    int len = ull2string(buf, sizeof buf, ull);
    return RM_CreateString(ctx, buf, (size_t)len);
}

static int RM_StringToULongLong(RString *str, unsigned long long *ull) {
    size_t len;
    const char *p = RM_StringPtrLen(str, &len);
    return string2ull(p, len, ull) ? MODAPI_OK : MODAPI_ERR;
}

/* 0x00MMmmpp: 7.0.15, the version this server answers as. */
static int RM_GetServerVersion(void) { return 0x0007000F; }

static void RM_SetModuleOptions(RedisModuleCtx *ctx, int options) {
    if (ctx->module) ctx->module->options = options;
}

static const char *RM_GetCurrentCommandName(RedisModuleCtx *ctx) {
    return ctx->client && ctx->client->cmd ? ctx->client->cmd->fullname : NULL;
}

static unsigned long long RM_DbSize(RedisModuleCtx *ctx) {
    redisDb *db = ctx->client ? ctx->client->db : server.db;
    return (unsigned long long)kvtableSize(db->keys);
}

static RString *RM_RandomKey(RedisModuleCtx *ctx) {
    redisDb *db = ctx->client ? ctx->client->db : server.db;
    robj *key = dbRandomKey(db);
    return key ? moduleTrack(ctx, key) : NULL;
}


/* RedisModule_Assert's target: the server's own assertion report. */
static void RM__Assert(const char *estr, const char *file, int line) {
    serverLog(LL_WARNING, "=== ASSERTION FAILED in a module ===");
    serverLog(LL_WARNING, "==> %s:%d '%s' is not true", file, line, estr);
    abort();
}

/* ---- lists and hashes: the basics ---------------------------------------------------------- */

/* The key's value of the given type, created empty for a writer; NULL (and
 * errno) otherwise, as Redis's list and hash functions answer. */
static robj *keyCollection(moduleKey *k, int type, robj *(*create)(void)) {
    if (k == NULL) {
        errno = EINVAL;
        return NULL;
    }
    robj *v = moduleKeyValue(k);
    if (v && v->type != type) {
        errno = ENOTSUP;
        return NULL;
    }
    if (v == NULL && (k->mode & MODAPI_KEY_WRITE)) v = dbAdd(k->db, k->key, create());
    if (v == NULL) errno = ENOTSUP;
    return v;
}

int moduleListPush(moduleKey *k, int where, RString *ele) {
    if (k == NULL || ele == NULL || (where != MODAPI_LIST_HEAD && where != MODAPI_LIST_TAIL)) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (!(k->mode & MODAPI_KEY_WRITE)) {
        errno = EBADF;
        return MODAPI_ERR;
    }
    robj *lst = keyCollection(k, OBJ_LIST, createListObject);
    if (lst == NULL) return MODAPI_ERR;
    moduleStringDecode(ele);
    listTypePush(lst, ele, where == MODAPI_LIST_HEAD ? LIST_HEAD : LIST_TAIL);
    return MODAPI_OK;
}

#define MODAPI_HASH_NX (1 << 0)
#define MODAPI_HASH_XX (1 << 1)
#define MODAPI_HASH_CFIELDS (1 << 2)
#define MODAPI_HASH_EXISTS (1 << 3)
#define MODAPI_HASH_COUNT_ALL (1 << 4)

static sds hashField(va_list *ap, int cfields) {
    if (cfields) {
        const char *f = va_arg(*ap, const char *);
        return f ? sdsnew(f) : NULL;
    }
    RString *f = va_arg(*ap, RString *);
    if (f == NULL) return NULL;
    moduleStringDecode(f);
    return sdsnewlen(f->ptr, sdslen(f->ptr));
}

/* Field/value pairs up to a NULL field; the value REDISMODULE_HASH_DELETE
 * ((RedisModuleString *)1) deletes the field. NX and XX skip a pair (a
 * deletion too) by the field's presence. Returns, as Redis 7.0, the fields
 * that existed and were updated or deleted -- with COUNT_ALL every field
 * set, inserted ones too; 0 sets errno: EINVAL (no key, or a flag HashSet
 * does not take), ENOTSUP (another type), EBADF (no WRITE), ENOENT (nothing
 * counted). A hash left empty is deleted. */
static int hashSetRefusal(moduleKey *k, int flags, robj *hash) {
    if (k == NULL || (flags & ~(MODAPI_HASH_NX | MODAPI_HASH_XX | MODAPI_HASH_CFIELDS | MODAPI_HASH_COUNT_ALL)))
        return EINVAL;
    if (hash && hash->type != OBJ_HASH) return ENOTSUP;
    return (k->mode & MODAPI_KEY_WRITE) ? 0 : EBADF;
}

static int RM_HashSet(moduleKey *k, int flags, ...) {
    robj *hash = k ? moduleKeyValue(k) : NULL;
    int refusal = hashSetRefusal(k, flags, hash);
    if (refusal) {
        errno = refusal;
        return 0;
    }
    if (hash == NULL) hash = dbAdd(k->db, k->key, createHashObject());
    va_list ap;
    va_start(ap, flags);
    int count = 0;
    sds field;
    while ((field = hashField(&ap, flags & MODAPI_HASH_CFIELDS)) != NULL) {
        RString *value = va_arg(ap, RString *);
        if (flags & (MODAPI_HASH_NX | MODAPI_HASH_XX)) {
            robj *old = hashTypeGetValueObject(hash, field);
            int exists = old != NULL;
            if (old) decrRefCount(old);
            if (((flags & MODAPI_HASH_NX) && exists) || ((flags & MODAPI_HASH_XX) && !exists)) value = NULL;
        }
        if ((uintptr_t)value == 1) {
            count += hashTypeDelete(hash, field);
        } else if (value) {
            moduleStringDecode(value);
            int added = hashTypeSetFromSds(hash, field, value->ptr);
            count += !added || (flags & MODAPI_HASH_COUNT_ALL);
        }
        sdsfree(field);
    }
    va_end(ap);
    if (hashTypeLength(hash) == 0) dbSyncDelete(k->db, k->key);
    if (count == 0) errno = ENOENT;
    return count;
}

/* Field and pointer pairs up to a NULL field: each pointer gets the value
 * (a new string, or NULL), or with EXISTS an int 0/1. */
static int RM_HashGet(moduleKey *k, int flags, ...) {
    robj *hash = k ? moduleKeyValue(k) : NULL;
    if (hash && hash->type != OBJ_HASH) return MODAPI_ERR;
    va_list ap;
    va_start(ap, flags);
    sds field;
    while ((field = hashField(&ap, flags & MODAPI_HASH_CFIELDS)) != NULL) {
        robj *value = hash ? hashTypeGetValueObject(hash, field) : NULL;
        if (flags & MODAPI_HASH_EXISTS) {
            int *out = va_arg(ap, int *);
            *out = value != NULL;
            if (value) decrRefCount(value);
        } else {
            RString **out = va_arg(ap, RString **);
            if (value) {
                moduleStringDecode(value);
                moduleAutoAdd(k->ctx, AUTO_STRING, value);
            }
            *out = value;
        }
        sdsfree(field);
    }
    va_end(ap);
    return MODAPI_OK;
}

/* ---- the lookup table -------------------------------------------------------------- */

static const moduleApiEntry api_table[] = {
    MODULE_API(Alloc), MODULE_API(TryAlloc), MODULE_API(Calloc), MODULE_API(Realloc), MODULE_API(Free), MODULE_API(Strdup), MODULE_API(PoolAlloc),
    MODULE_API(SetModuleAttribs), MODULE_API(IsModuleNameBusy), MODULE_API(Milliseconds), MODULE_API(MonotonicMicroseconds),
    MODULE_API(AutoMemory), MODULE_API(GetClientId), MODULE_API(GetSelectedDb), MODULE_API(SelectDb), MODULE_API(GetContextFlags), MODULE_API(GetContextFlagsAll), MODULE_API(Log),
    MODULE_API(CreateString), MODULE_API(CreateStringPrintf), MODULE_API(CreateStringFromLongLong), MODULE_API(CreateStringFromDouble),
    MODULE_API(CreateStringFromLongDouble), MODULE_API(CreateStringFromString), MODULE_API(FreeString), MODULE_API(RetainString),
    MODULE_API(HoldString), MODULE_API(StringPtrLen), MODULE_API(StringToLongLong), MODULE_API(StringToDouble), MODULE_API(StringToLongDouble),
    MODULE_API(StringCompare), MODULE_API(StringAppendBuffer), MODULE_API(TrimStringAllocation),
    MODULE_API(WrongArity), MODULE_API(ReplyWithLongLong), MODULE_API(ReplyWithError), MODULE_API(ReplyWithSimpleString),
    MODULE_API(ReplyWithArray), MODULE_API(ReplyWithMap), MODULE_API(ReplyWithSet), MODULE_API(ReplyWithAttribute), MODULE_API(ReplySetArrayLength), MODULE_API(ReplySetMapLength),
    MODULE_API(ReplySetAttributeLength), MODULE_API(ReplySetSetLength), MODULE_API(ReplyWithNullArray), MODULE_API(ReplyWithEmptyArray), MODULE_API(ReplyWithStringBuffer),
    MODULE_API(ReplyWithCString), MODULE_API(ReplyWithString), MODULE_API(ReplyWithEmptyString), MODULE_API(ReplyWithVerbatimString),
    MODULE_API(ReplyWithVerbatimStringType), MODULE_API(ReplyWithNull), MODULE_API(ReplyWithBool), MODULE_API(ReplyWithDouble),
    MODULE_API(ReplyWithBigNumber), MODULE_API(ReplyWithLongDouble), MODULE_API(CreateCommand), MODULE_API(GetCommand), MODULE_API(CreateSubcommand), MODULE_API(IsKeysPositionRequest), MODULE_API(KeyAtPos),
    MODULE_API(KeyAtPosWithFlags), MODULE_API(IsChannelsPositionRequest), MODULE_API(ChannelAtPosWithFlags),
    MODULE_API(GetCommandKeys), MODULE_API(GetCommandKeysWithFlags),
    MODULE_API(Replicate), MODULE_API(ReplicateVerbatim),
    MODULE_API(OpenKey), MODULE_API(CloseKey), MODULE_API(KeyType), MODULE_API(ValueLength), MODULE_API(KeyExists), MODULE_API(DeleteKey), MODULE_API(UnlinkKey),
    MODULE_API(StringSet), MODULE_API(StringDMA), MODULE_API(StringTruncate), MODULE_API(GetExpire), MODULE_API(SetExpire),
    MODULE_API(CreateStringFromULongLong), MODULE_API(StringToULongLong), MODULE_API(GetServerVersion), MODULE_API(SetModuleOptions),
    MODULE_API(GetCurrentCommandName), MODULE_API(DbSize), MODULE_API(RandomKey), MODULE_API(_Assert),
    {"RedisModule_ListPush", (moduleAnyFunc)moduleListPush}, MODULE_API(HashSet), MODULE_API(HashGet),
};

int moduleApiLookup(const moduleApiEntry *table, size_t count, const char *name, void *target) {
    for (size_t j = 0; j < count; j++) {
        if (strcmp(table[j].name, name)) continue;
        memcpy(target, &table[j].fn, sizeof(moduleAnyFunc));
        return MODAPI_OK;
    }
    return MODAPI_ERR;
}

int moduleGetApi(const char *name, void *target) {
    if (MODULE_API_LOOKUP(api_table, name, target) == MODAPI_OK) return MODAPI_OK;
    if (moduleBlockGetApi(name, target) == MODAPI_OK) return MODAPI_OK;   /* module_block.c's */
    if (moduleThreadGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_thread.c's */
    if (moduleTimerGetApi(name, target) == MODAPI_OK) return MODAPI_OK;   /* module_timer.c's */
    if (moduleMiscGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_misc.c's */
    if (moduleYieldGetApi(name, target) == MODAPI_OK) return MODAPI_OK;   /* module_yield.c's */
    if (moduleKeysGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_keys.c's */
    if (moduleStreamGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_stream.c's */
    if (moduleScanGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_scan.c's */
    if (moduleNotifyGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_notify.c's */
    if (moduleEventsGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_events.c's */
    if (moduleDictGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_dict.c's */
    if (moduleInfoGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_info.c's */
    if (moduleConfigGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_config.c's */
    if (moduleAclGetApi(name, target) == MODAPI_OK) return MODAPI_OK;     /* module_acl.c's */
    if (moduleSharedGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_shared.c's */
    if (moduleEventLoopGetApi(name, target) == MODAPI_OK) return MODAPI_OK; /* module_eventloop.c's */
    if (moduleForkGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_fork.c's */
    if (moduleFilterGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_filter.c's */
    if (moduleCmdInfoGetApi(name, target) == MODAPI_OK) return MODAPI_OK; /* module_cmdinfo.c's */
    if (moduleCallGetApi(name, target) == MODAPI_OK) return MODAPI_OK;    /* module_call.c's */
    if (moduleDefragGetApi(name, target) == MODAPI_OK) return MODAPI_OK;  /* module_defrag.c's */
    if (moduleClusterGetApi(name, target) == MODAPI_OK) return MODAPI_OK; /* module_cluster.c's */
    return moduleTypeGetApi(name, target); /* module_type.c's */
}

