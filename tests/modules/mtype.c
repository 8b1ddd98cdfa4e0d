/* mtype.c -- a test module with a data type, for tests/unit/moduleapi.tcl:
 * values in the keyspace, their RDB form (every Save/Load kind), AOF
 * rewrite through EmitAOF, digest, COPY and MEMORY USAGE. The same .so is
 * loaded by this server and by Redis 7.0.15, so dumps can cross between
 * them.
 *
 * A value: a list of signed integers, a double, a float and a name.
 * Load argument "encver <n>": register with another encoding version.
 */
#include "redismodule.h"
#include <stdio.h>
#include <string.h>
#include <strings.h>

static RedisModuleType *MType;

typedef struct mvalue {
    long long *items;
    size_t count;
    double d;
    float f;
    char *name;
    size_t namelen;
} mvalue;

static mvalue *mvNew(void) {
    mvalue *v = RedisModule_Calloc(1, sizeof(*v));
    v->name = RedisModule_Strdup("");
    return v;
}

static void mvFree(void *p) {
    mvalue *v = p;
    RedisModule_Free(v->items);
    RedisModule_Free(v->name);
    RedisModule_Free(v);
}

static void mvPush(mvalue *v, long long x) {
    v->items = RedisModule_Realloc(v->items, sizeof(long long) * (v->count + 1));
    v->items[v->count++] = x;
}

static void mvSetName(mvalue *v, const char *s, size_t len) {
    RedisModule_Free(v->name);
    v->name = RedisModule_Alloc(len + 1);
    memcpy(v->name, s, len);
    v->name[len] = '\0';
    v->namelen = len;
}

static void *mvLoad(RedisModuleIO *io, int encver) {
    if (encver > 2) return NULL;
    mvalue *v = mvNew();
    uint64_t n = RedisModule_LoadUnsigned(io);
    for (uint64_t i = 0; i < n && !RedisModule_IsIOError(io); i++) mvPush(v, RedisModule_LoadSigned(io));
    v->d = RedisModule_LoadDouble(io);
    v->f = RedisModule_LoadFloat(io);
    size_t len = 0;
    char *name = RedisModule_LoadStringBuffer(io, &len);
    if (name) {
        mvSetName(v, name, len);
        RedisModule_Free(name);
    }
    RedisModuleString *again = RedisModule_LoadString(io);
    if (again) RedisModule_FreeString(NULL, again);
    if (RedisModule_IsIOError(io)) {
        mvFree(v);
        return NULL;
    }
    return v;
}

static void mvSave(RedisModuleIO *io, void *p) {
    mvalue *v = p;
    RedisModule_SaveUnsigned(io, v->count);
    for (size_t i = 0; i < v->count; i++) RedisModule_SaveSigned(io, v->items[i]);
    RedisModule_SaveDouble(io, v->d);
    RedisModule_SaveFloat(io, v->f);
    RedisModule_SaveStringBuffer(io, v->name, v->namelen);
    RedisModuleString *s = RedisModule_CreateString(NULL, v->name, v->namelen);
    RedisModule_SaveString(io, s);
    RedisModule_FreeString(NULL, s);
}

static void mvRewrite(RedisModuleIO *io, RedisModuleString *key, void *p) {
    mvalue *v = p;
    char d[64], f[64];
    snprintf(d, sizeof d, "%.17g", v->d);
    snprintf(f, sizeof f, "%.9g", (double)v->f);
    RedisModule_EmitAOF(io, "MTYPE.INIT", "sbcc", key, v->name, v->namelen, d, f);
    for (size_t i = 0; i < v->count; i++) RedisModule_EmitAOF(io, "MTYPE.PUSH", "sl", key, v->items[i]);
}

static size_t mvMemUsage(const void *p) {
    const mvalue *v = p;
    return sizeof(*v) + v->count * sizeof(long long) + v->namelen + 1;
}

static void mvDigest(RedisModuleDigest *md, void *p) {
    mvalue *v = p;
    RedisModule_DigestAddStringBuffer(md, v->name, v->namelen);
    for (size_t i = 0; i < v->count; i++) RedisModule_DigestAddLongLong(md, v->items[i]);
    RedisModule_DigestEndSequence(md);
}

static void *mvCopy(RedisModuleString *from, RedisModuleString *to, const void *p) {
    (void)from, (void)to;
    const mvalue *v = p;
    mvalue *c = mvNew();
    for (size_t i = 0; i < v->count; i++) mvPush(c, v->items[i]);
    mvSetName(c, v->name, v->namelen);
    c->d = v->d;
    c->f = v->f;
    return c;
}

/* The key's value, created when missing (write) or NULL with a reply sent. */
static mvalue *openValue(RedisModuleCtx *ctx, RedisModuleKey *key, int create) {
    int type = RedisModule_KeyType(key);
    if (type == REDISMODULE_KEYTYPE_EMPTY && create) {
        mvalue *v = mvNew();
        RedisModule_ModuleTypeSetValue(key, MType, v);
        return v;
    }
    if (type == REDISMODULE_KEYTYPE_EMPTY) {
        RedisModule_ReplyWithNull(ctx);
        return NULL;
    }
    if (RedisModule_ModuleTypeGetType(key) != MType) {
        RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
        return NULL;
    }
    return RedisModule_ModuleTypeGetValue(key);
}

/* mtype.init key name d f: a fresh value. */
static int cmdInit(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 5) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int type = RedisModule_KeyType(key);
    if (type != REDISMODULE_KEYTYPE_EMPTY && RedisModule_ModuleTypeGetType(key) != MType)
        return RedisModule_ReplyWithError(ctx, REDISMODULE_ERRORMSG_WRONGTYPE);
    mvalue *v = mvNew();
    size_t len;
    const char *name = RedisModule_StringPtrLen(argv[2], &len);
    mvSetName(v, name, len);
    double d = 0;
    RedisModule_StringToDouble(argv[3], &d);
    v->d = d;
    RedisModule_StringToDouble(argv[4], &d);
    v->f = (float)d;
    RedisModule_ModuleTypeSetValue(key, MType, v);
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* mtype.push key n...: appends integers; replies the count. */
static int cmdPush(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    mvalue *v = openValue(ctx, key, 1);
    if (v == NULL) return REDISMODULE_OK;
    for (int i = 2; i < argc; i++) {
        long long x;
        if (RedisModule_StringToLongLong(argv[i], &x) != REDISMODULE_OK)
            return RedisModule_ReplyWithError(ctx, "ERR invalid integer");
        mvPush(v, x);
    }
    RedisModule_ReplicateVerbatim(ctx);
    return RedisModule_ReplyWithLongLong(ctx, (long long)v->count);
}

/* mtype.get key: [name, d, f, items...]. */
static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    if (key == NULL) return RedisModule_ReplyWithNull(ctx);
    mvalue *v = openValue(ctx, key, 0);
    if (v == NULL) return REDISMODULE_OK;
    RedisModule_ReplyWithArray(ctx, 3 + (long)v->count);
    RedisModule_ReplyWithStringBuffer(ctx, v->name, v->namelen);
    RedisModule_ReplyWithDouble(ctx, v->d);
    RedisModule_ReplyWithDouble(ctx, v->f);
    for (size_t i = 0; i < v->count; i++) RedisModule_ReplyWithLongLong(ctx, v->items[i]);
    return REDISMODULE_OK;
}

/* mtype.tostring key: the value as SaveDataTypeToString gives it. */
static int cmdToString(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    if (key == NULL) return RedisModule_ReplyWithNull(ctx);
    mvalue *v = openValue(ctx, key, 0);
    if (v == NULL) return REDISMODULE_OK;
    RedisModuleString *s = RedisModule_SaveDataTypeToString(ctx, v, MType);
    return RedisModule_ReplyWithString(ctx, s);
}

/* mtype.fromstring key payload: a value made by LoadDataTypeFromString. */
static int cmdFromString(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    mvalue *v = RedisModule_LoadDataTypeFromStringEncver(argv[2], MType, 2);
    if (v == NULL) return RedisModule_ReplyWithError(ctx, "ERR cannot load the payload");
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_WRITE);
    RedisModule_ModuleTypeSetValue(key, MType, v);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (RedisModule_Init(ctx, "mtype", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    long long encver = 2;
    for (int i = 0; i + 1 < argc; i++) {
        if (!strcasecmp(RedisModule_StringPtrLen(argv[i], NULL), "encver"))
            RedisModule_StringToLongLong(argv[i + 1], &encver);
    }
    RedisModuleTypeMethods tm = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = mvLoad,
        .rdb_save = mvSave,
        .aof_rewrite = mvRewrite,
        .mem_usage = mvMemUsage,
        .free = mvFree,
        .digest = mvDigest,
        .copy = mvCopy,
    };
    /* names that are not 9 characters of the set are refused */
    if (RedisModule_CreateDataType(ctx, "short", 0, &tm) != NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateDataType(ctx, "bad!chars", 0, &tm) != NULL) return REDISMODULE_ERR;
    MType = RedisModule_CreateDataType(ctx, "mtesttype", (int)encver, &tm);
    if (MType == NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mtype.init", cmdInit, "write deny-oom", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtype.push", cmdPush, "write deny-oom", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtype.get", cmdGet, "readonly", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtype.tostring", cmdToString, "readonly", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtype.fromstring", cmdFromString, "write", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
