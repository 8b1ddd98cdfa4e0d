/* mrange.c -- a test module for the sorted set range iterators
 * (ZsetFirstInScoreRange, ZsetLastInScoreRange, ZsetFirstInLexRange,
 * ZsetLastInLexRange, ZsetRangeCurrentElement, ZsetRangeNext, ZsetRangePrev,
 * ZsetRangeEndReached, ZsetRangeStop), used by tests/unit/moduleapi-zrange.tcl.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so
 * the same .so runs in Redis 7.0.15.
 *
 * MRANGE.RUN key op [args] op [args] ...  -> one reply per op, in order:
 *   fs min max minex maxex   ZsetFirstInScoreRange (min/max as doubles: inf,
 *   ls min max minex maxex   -inf allowed; minex/maxex 0 or 1) -> OK or ERR
 *   fl min max               ZsetFirstInLexRange -> OK or ERR
 *   ll min max               ZsetLastInLexRange  -> OK or ERR
 *   c                        ZsetRangeCurrentElement -> "member:score" or "-"
 *   n / p                    ZsetRangeNext / ZsetRangePrev -> 0 or 1
 *   e                        ZsetRangeEndReached -> 0 or 1
 *   s                        ZsetRangeStop -> "stopped"
 *   fwd / bwd                the whole walk: while not EndReached, take the
 *                            current element and step (next / prev); an
 *                            array of "member:score" (at most 1000)
 * The key is opened for reading; a missing key is the error "ERR no key". */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>

static int argIs(RedisModuleString *arg, const char *name) {
    return strcmp(RedisModule_StringPtrLen(arg, NULL), name) == 0;
}

static void replyCurrent(RedisModuleCtx *ctx, RedisModuleKey *key) {
    double score = 0;
    RedisModuleString *ele = RedisModule_ZsetRangeCurrentElement(key, &score);
    if (ele == NULL) {
        RedisModule_ReplyWithSimpleString(ctx, "-");
        return;
    }
    size_t len;
    const char *s = RedisModule_StringPtrLen(ele, &len);
    char buf[256];
    int n = snprintf(buf, sizeof(buf), "%.*s:%.17g", (int)(len > 200 ? 200 : len), s, score);
    RedisModule_ReplyWithStringBuffer(ctx, buf, (size_t)n);
    RedisModule_FreeString(ctx, ele);
}

static void replyWalk(RedisModuleCtx *ctx, RedisModuleKey *key, int backward) {
    long n = 0;
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    while (!RedisModule_ZsetRangeEndReached(key) && n < 1000) {
        replyCurrent(ctx, key);
        n++;
        if (backward) RedisModule_ZsetRangePrev(key);
        else RedisModule_ZsetRangeNext(key);
    }
    RedisModule_ReplySetArrayLength(ctx, n);
}

static int doubleArg(RedisModuleString *arg, double *d) {
    return RedisModule_StringToDouble(arg, d) == REDISMODULE_OK;
}

/* One op at argv[*j]; advances *j past its arguments. 0 on a bad op. */
static int runOp(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **argv, int argc, int *j) {
    RedisModuleString *op = argv[(*j)++];
    int left = argc - *j;
    if ((argIs(op, "fs") || argIs(op, "ls")) && left >= 4) {
        double min, max;
        long long minex, maxex;
        if (!doubleArg(argv[*j], &min) || !doubleArg(argv[*j + 1], &max) ||
            RedisModule_StringToLongLong(argv[*j + 2], &minex) != REDISMODULE_OK ||
            RedisModule_StringToLongLong(argv[*j + 3], &maxex) != REDISMODULE_OK)
            return 0;
        *j += 4;
        int rc = argIs(op, "fs") ? RedisModule_ZsetFirstInScoreRange(key, min, max, (int)minex, (int)maxex)
                                 : RedisModule_ZsetLastInScoreRange(key, min, max, (int)minex, (int)maxex);
        RedisModule_ReplyWithSimpleString(ctx, rc == REDISMODULE_OK ? "OK" : "ERR");
    } else if ((argIs(op, "fl") || argIs(op, "ll")) && left >= 2) {
        int rc = argIs(op, "fl") ? RedisModule_ZsetFirstInLexRange(key, argv[*j], argv[*j + 1])
                                 : RedisModule_ZsetLastInLexRange(key, argv[*j], argv[*j + 1]);
        *j += 2;
        RedisModule_ReplyWithSimpleString(ctx, rc == REDISMODULE_OK ? "OK" : "ERR");
    } else if (argIs(op, "c")) {
        replyCurrent(ctx, key);
    } else if (argIs(op, "n")) {
        RedisModule_ReplyWithLongLong(ctx, RedisModule_ZsetRangeNext(key));
    } else if (argIs(op, "p")) {
        RedisModule_ReplyWithLongLong(ctx, RedisModule_ZsetRangePrev(key));
    } else if (argIs(op, "e")) {
        RedisModule_ReplyWithLongLong(ctx, RedisModule_ZsetRangeEndReached(key));
    } else if (argIs(op, "s")) {
        RedisModule_ZsetRangeStop(key);
        RedisModule_ReplyWithSimpleString(ctx, "stopped");
    } else if (argIs(op, "fwd") || argIs(op, "bwd")) {
        replyWalk(ctx, key, argIs(op, "bwd"));
    } else {
        return 0;
    }
    return 1;
}

static int cmdRun(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    if (key == NULL) return RedisModule_ReplyWithError(ctx, "ERR no key");
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    long replies = 0;
    int j = 2;
    while (j < argc) {
        if (!runOp(ctx, key, argv, argc, &j)) {
            RedisModule_ReplyWithSimpleString(ctx, "BADOP");
            replies++;
            break;
        }
        replies++;
    }
    RedisModule_ReplySetArrayLength(ctx, replies);
    RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mrange", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mrange.run", cmdRun, "readonly", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
