/* mdict.c -- a test module for the dictionary API (CreateDict, DictSet,
 * DictReplace, DictGet, DictDel, the iterators), used by
 * tests/unit/moduleapi-keys.tcl. Built against Redis 7.0's redismodule.h by
 * utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15.
 *
 * One dict for the module's life; values are the module's copies of strings.
 * MDICT.SET k v -> 1 if added (DictSet), 0 if k was there
 * MDICT.REPLACE k v -> 1 if added, 0 if replaced
 * MDICT.GET k -> v or nil; MDICT.DEL k -> 1 or 0; MDICT.SIZE
 * MDICT.WALK next|prev op key count -> up to count keys from the seek
 * MDICT.CMP seekop seekkey op key -> 1 if DictCompare holds at the seek
 * MDICT.RESEEK op key -> DictIteratorReseek's raw answer
 * MDICT.AUTO: a dict on an auto-memory context, left for the context to free. */
#include "redismodule.h"

#include <stdlib.h>
#include <string.h>

static RedisModuleDict *dict;

static char *copyOf(RedisModuleString *s) {
    size_t len;
    const char *p = RedisModule_StringPtrLen(s, &len);
    char *c = malloc(len + 1);
    memcpy(c, p, len);
    c[len] = 0;
    return c;
}

static int cmdSet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    char *v = copyOf(argv[2]);
    int ok = RedisModule_DictSet(dict, argv[1], v) == REDISMODULE_OK;
    if (!ok) free(v);
    return RedisModule_ReplyWithLongLong(ctx, ok);
}

static int cmdReplace(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    int nokey;
    char *old = RedisModule_DictGet(dict, argv[1], &nokey);
    int added = RedisModule_DictReplace(dict, argv[1], copyOf(argv[2])) == REDISMODULE_OK;
    if (!nokey) free(old);
    return RedisModule_ReplyWithLongLong(ctx, added);
}

static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    int nokey;
    char *v = RedisModule_DictGet(dict, argv[1], &nokey);
    if (nokey) return RedisModule_ReplyWithNull(ctx);
    return RedisModule_ReplyWithCString(ctx, v);
}

static int cmdDel(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    char *old = NULL;
    int ok = RedisModule_DictDel(dict, argv[1], &old) == REDISMODULE_OK;
    free(old);
    return RedisModule_ReplyWithLongLong(ctx, ok);
}

static int cmdSize(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_DictSize(dict));
}

static int cmdWalk(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 5) return RedisModule_WrongArity(ctx);
    int prev = !strcmp(RedisModule_StringPtrLen(argv[1], NULL), "prev");
    long long count;
    if (RedisModule_StringToLongLong(argv[4], &count) != REDISMODULE_OK) count = 0;
    RedisModuleDictIter *it = RedisModule_DictIteratorStart(dict, RedisModule_StringPtrLen(argv[2], NULL), argv[3]);
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    long n = 0;
    size_t len;
    char *key;
    while (n < count && (key = prev ? RedisModule_DictPrevC(it, &len, NULL) : RedisModule_DictNextC(it, &len, NULL))) {
        RedisModule_ReplyWithStringBuffer(ctx, key, len);
        n++;
    }
    RedisModule_ReplySetArrayLength(ctx, n);
    RedisModule_DictIteratorStop(it);
    return REDISMODULE_OK;
}

static int cmdCmp(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 5) return RedisModule_WrongArity(ctx);
    RedisModuleDictIter *it = RedisModule_DictIteratorStart(dict, RedisModule_StringPtrLen(argv[1], NULL), argv[2]);
    RedisModuleString *cur = RedisModule_DictNext(ctx, it, NULL);
    int ok = cur && RedisModule_DictCompare(it, RedisModule_StringPtrLen(argv[3], NULL), argv[4]) == REDISMODULE_OK;
    if (cur) RedisModule_FreeString(ctx, cur);
    RedisModule_DictIteratorStop(it);
    return RedisModule_ReplyWithLongLong(ctx, ok);
}

static int cmdReseek(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleDictIter *it = RedisModule_DictIteratorStartC(dict, "^", NULL, 0);
    int rc = RedisModule_DictIteratorReseek(it, RedisModule_StringPtrLen(argv[1], NULL), argv[2]);
    RedisModule_DictIteratorStop(it);
    return RedisModule_ReplyWithLongLong(ctx, rc);
}

static int cmdAuto(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_AutoMemory(ctx);
    RedisModuleDict *d = RedisModule_CreateDict(ctx);
    RedisModule_DictSetC(d, "a", 1, NULL);
    RedisModuleDict *d2 = RedisModule_CreateDict(ctx);
    RedisModule_FreeDict(ctx, d2);
    return RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_DictSize(d));
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mdict", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    dict = RedisModule_CreateDict(NULL);
    if (RedisModule_CreateCommand(ctx, "mdict.set", cmdSet, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.replace", cmdReplace, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.get", cmdGet, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.del", cmdDel, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.size", cmdSize, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.walk", cmdWalk, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.cmp", cmdCmp, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.reseek", cmdReseek, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdict.auto", cmdAuto, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
