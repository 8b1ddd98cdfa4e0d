/* mtype4.c -- a test module for a data type's version-3/4 callbacks
 * (unlink2, free_effort2, mem_usage2, copy2) and RedisModuleKeyOptCtx
 * (GetKeyNameFromOptCtx, GetToKeyNameFromOptCtx, GetDbIdFromOptCtx,
 * GetToDbIdFromOptCtx), used by tests/unit/moduleapi-type4.tcl. Built
 * against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the
 * same .so runs in Redis 7.0.15.
 *
 * The type "mtype4-AZ" holds one number: the free effort it reports.
 * MT4.SET key effort: the key holds a new value of that effort.
 * MT4.LOG: the callbacks run since the last MT4.LOG, one string each:
 *   "unlink2 <key> <db>", "effort2 <key> <db>", "mem2 <key> <db> <samples>",
 *   "copy2 <from> <to> <fromdb> <todb>", "free" (the free callback). */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>

typedef struct {
    long long effort;
} value4;

static RedisModuleType *type4;
static char calls[64][96];
static int ncalls;

static void note(const char *fmt, RedisModuleKeyOptCtx *ctx, long long extra) {
    if (ncalls == 64) return;
    const RedisModuleString *from = RedisModule_GetKeyNameFromOptCtx(ctx);
    const RedisModuleString *to = RedisModule_GetToKeyNameFromOptCtx(ctx);
    snprintf(calls[ncalls++], sizeof calls[0], fmt, from ? RedisModule_StringPtrLen(from, NULL) : "-",
             to ? RedisModule_StringPtrLen(to, NULL) : "-", RedisModule_GetDbIdFromOptCtx(ctx),
             RedisModule_GetToDbIdFromOptCtx(ctx), extra);
}

/* "WHAT KEY DB": the key and database an RDB or digest callback is told of. */
static void noteKey(const char *what, const RedisModuleString *key, int db) {
    if (ncalls == 64) return;
    snprintf(calls[ncalls++], sizeof calls[0], "%s %s %d", what, key ? RedisModule_StringPtrLen(key, NULL) : "-", db);
}

static void *rdbLoad(RedisModuleIO *io, int encver) {
    (void)encver;
    noteKey("load", RedisModule_GetKeyNameFromIO(io), RedisModule_GetDbIdFromIO(io));
    value4 *v = RedisModule_Alloc(sizeof(*v));
    v->effort = (long long)RedisModule_LoadSigned(io);
    return v;
}

static void rdbSave(RedisModuleIO *io, void *value) {
    noteKey("save", RedisModule_GetKeyNameFromIO(io), RedisModule_GetDbIdFromIO(io));
    RedisModule_SaveSigned(io, ((value4 *)value)->effort);
}

static void digest(RedisModuleDigest *md, void *value) {
    noteKey("digest", RedisModule_GetKeyNameFromDigest(md), RedisModule_GetDbIdFromDigest(md));
    RedisModule_DigestAddLongLong(md, ((value4 *)value)->effort);
    RedisModule_DigestEndSequence(md);
}

static void freeValue(void *value) {
    /* may run in a lazy-free thread: recorded without a context */
    if (ncalls < 64) strcpy(calls[ncalls++], "free");
    RedisModule_Free(value);
}

static size_t memUsage2(RedisModuleKeyOptCtx *ctx, const void *value, size_t samples) {
    (void)value;
    note("mem2 %s%.0s %d%.0d %lld", ctx, (long long)samples);
    return 1000;
}

static size_t freeEffort2(RedisModuleKeyOptCtx *ctx, const void *value) {
    note("effort2 %s%.0s %d%.0d%.0lld", ctx, 0);
    return (size_t)((const value4 *)value)->effort;
}

static void unlink2(RedisModuleKeyOptCtx *ctx, const void *value) {
    (void)value;
    note("unlink2 %s%.0s %d%.0d%.0lld", ctx, 0);
}

static void *copy2(RedisModuleKeyOptCtx *ctx, const void *value) {
    note("copy2 %s %s %d %d%.0lld", ctx, 0);
    value4 *v = RedisModule_Alloc(sizeof(*v));
    *v = *(const value4 *)value;
    return v;
}

static int setCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long effort;
    if (argc != 3 || RedisModule_StringToLongLong(argv[2], &effort) != REDISMODULE_OK)
        return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    value4 *v = RedisModule_Alloc(sizeof(*v));
    v->effort = effort;
    RedisModule_ModuleTypeSetValue(key, type4, v);
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int logCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    RedisModule_ReplyWithArray(ctx, ncalls);
    for (int j = 0; j < ncalls; j++) RedisModule_ReplyWithSimpleString(ctx, calls[j]);
    ncalls = 0;
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mtype4", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    RedisModuleTypeMethods tm = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = rdbLoad,
        .rdb_save = rdbSave,
        .digest = digest,
        .free = freeValue,
        .mem_usage2 = memUsage2,
        .free_effort2 = freeEffort2,
        .unlink2 = unlink2,
        .copy2 = copy2,
    };
    type4 = RedisModule_CreateDataType(ctx, "mtype4-AZ", 0, &tm);
    if (type4 == NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mt4.set", setCmd, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mt4.log", logCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
