/* mshared.c -- a test module for the shared API (ExportSharedAPI,
 * GetSharedAPI), used by tests/unit/moduleapi-shared.tcl. Built against
 * Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the same .so
 * runs in Redis 7.0.15.
 *
 * The one .so plays two modules, by its load arguments: ROLE NAME, ROLE being
 * "exporter" or "user" and NAME the module's name (its commands are NAME.*).
 * An exporter exports "mshared.add" (a+b) and "mshared.twice" (2*a) in its
 * OnLoad.
 * NAME.EXPORT api which: ExportSharedAPI of the function which (add or
 *   twice) under api: 1 or 0.
 * NAME.CALL api a b: GetSharedAPI; nil when there is no such API, else what
 *   the function answers for a and b (twice ignores b).
 * A second exporter fails to load: its first export's name is taken. */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>

typedef long long (*sharedFunc)(long long a, long long b);

static long long sharedAdd(long long a, long long b) { return a + b; }
static long long sharedTwice(long long a, long long b) {
    (void)b;
    return 2 * a;
}

static void *pickFunc(const char *which) {
    sharedFunc f = strcmp(which, "twice") ? sharedAdd : sharedTwice;
    void *p;
    memcpy(&p, &f, sizeof p);
    return p;
}

static int exportCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    const char *api = RedisModule_StringPtrLen(argv[1], NULL);
    /* the name must outlive the module's export in Redis: keep a copy */
    char *name = RedisModule_Strdup(api);
    int ok = RedisModule_ExportSharedAPI(ctx, name, pickFunc(RedisModule_StringPtrLen(argv[2], NULL)));
    if (ok != REDISMODULE_OK) RedisModule_Free(name);
    return RedisModule_ReplyWithLongLong(ctx, ok == REDISMODULE_OK);
}

static int callCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    long long a, b;
    if (RedisModule_StringToLongLong(argv[2], &a) != REDISMODULE_OK ||
        RedisModule_StringToLongLong(argv[3], &b) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad number");
    void *p = RedisModule_GetSharedAPI(ctx, RedisModule_StringPtrLen(argv[1], NULL));
    if (p == NULL) return RedisModule_ReplyWithNull(ctx);
    sharedFunc f;
    memcpy(&f, &p, sizeof f);
    return RedisModule_ReplyWithLongLong(ctx, f(a, b));
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return REDISMODULE_ERR;
    /* the name is an argument: StringPtrLen is needed before Init, fetched
     * as Init fetches every function (the context's first word) */
    int (*getapi)(const char *, void *);
    memcpy(&getapi, (void *)ctx, sizeof getapi);
    if (getapi("RedisModule_StringPtrLen", &RedisModule_StringPtrLen) != REDISMODULE_OK) return REDISMODULE_ERR;
    const char *role = RedisModule_StringPtrLen(argv[0], NULL);
    const char *name = RedisModule_StringPtrLen(argv[1], NULL);
    if (RedisModule_Init(ctx, name, 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    char cmd[128];
    snprintf(cmd, sizeof cmd, "%s.export", name);
    if (RedisModule_CreateCommand(ctx, cmd, exportCmd, "", 0, 0, 0) == REDISMODULE_ERR) return REDISMODULE_ERR;
    snprintf(cmd, sizeof cmd, "%s.call", name);
    if (RedisModule_CreateCommand(ctx, cmd, callCmd, "", 0, 0, 0) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (!strcmp(role, "exporter")) {
        if (RedisModule_ExportSharedAPI(ctx, "mshared.add", pickFunc("add")) != REDISMODULE_OK) return REDISMODULE_ERR;
        if (RedisModule_ExportSharedAPI(ctx, "mshared.twice", pickFunc("twice")) != REDISMODULE_OK)
            return REDISMODULE_ERR;
    } else if (strcmp(role, "user")) {
        return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}
