/* mzset.c -- a test module for the sorted set key API (ZsetAdd, ZsetIncrby,
 * ZsetRem, ZsetScore), used by tests/unit/moduleapi-keys.tcl. Built against
 * Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the same .so
 * runs in Redis 7.0.15.
 *
 * MZSET.ADD key score member [flags]  -> {rc outflags}
 * MZSET.INCR key by member [flags]    -> {rc outflags newscore}
 *   flags: letters x (XX) n (NX) g (GT) l (LT); "-" for none. rc is ok or err;
 *   outflags the letters of ADDED (a), UPDATED (u), NOP (p).
 * MZSET.REM key member [ro]            -> {rc deleted}
 * MZSET.SCORE key member               -> the score, or the error "ERR no score" */
#include "redismodule.h"

#include <string.h>

static int inFlags(RedisModuleString *arg) {
    const char *s = RedisModule_StringPtrLen(arg, NULL);
    int f = 0;
    if (strchr(s, 'x')) f |= REDISMODULE_ZADD_XX;
    if (strchr(s, 'n')) f |= REDISMODULE_ZADD_NX;
    if (strchr(s, 'g')) f |= REDISMODULE_ZADD_GT;
    if (strchr(s, 'l')) f |= REDISMODULE_ZADD_LT;
    return f;
}

static void replyOut(RedisModuleCtx *ctx, int rc, int out) {
    char buf[8];
    int n = 0;
    if (out & REDISMODULE_ZADD_ADDED) buf[n++] = 'a';
    if (out & REDISMODULE_ZADD_UPDATED) buf[n++] = 'u';
    if (out & REDISMODULE_ZADD_NOP) buf[n++] = 'p';
    if (n == 0) buf[n++] = '-';
    RedisModule_ReplyWithSimpleString(ctx, rc == REDISMODULE_OK ? "ok" : "err");
    RedisModule_ReplyWithStringBuffer(ctx, buf, (size_t)n);
}

static int cmdAdd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4 && argc != 5) return RedisModule_WrongArity(ctx);
    double score;
    if (RedisModule_StringToDouble(argv[2], &score) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad score");
    int flags = argc == 5 ? inFlags(argv[4]) : 0;
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int rc = RedisModule_ZsetAdd(key, score, argv[3], &flags);
    RedisModule_CloseKey(key);
    RedisModule_ReplyWithArray(ctx, 2);
    replyOut(ctx, rc, flags);
    return REDISMODULE_OK;
}

static int cmdIncr(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4 && argc != 5) return RedisModule_WrongArity(ctx);
    double by, newscore = -1;
    if (RedisModule_StringToDouble(argv[2], &by) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad score");
    int flags = argc == 5 ? inFlags(argv[4]) : 0;
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ | REDISMODULE_WRITE);
    int rc = RedisModule_ZsetIncrby(key, by, argv[3], &flags, &newscore);
    RedisModule_CloseKey(key);
    RedisModule_ReplyWithArray(ctx, 3);
    replyOut(ctx, rc, flags);
    RedisModule_ReplyWithDouble(ctx, newscore);
    return REDISMODULE_OK;
}

static int cmdRem(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3 && argc != 4) return RedisModule_WrongArity(ctx);
    int mode = argc == 4 ? REDISMODULE_READ : REDISMODULE_READ | REDISMODULE_WRITE;
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], mode);
    if (key == NULL) return RedisModule_ReplyWithError(ctx, "ERR no key");
    int deleted = -1;
    int rc = RedisModule_ZsetRem(key, argv[2], &deleted);
    RedisModule_CloseKey(key);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithSimpleString(ctx, rc == REDISMODULE_OK ? "ok" : "err");
    RedisModule_ReplyWithLongLong(ctx, deleted);
    return REDISMODULE_OK;
}

static int cmdScore(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    if (key == NULL) return RedisModule_ReplyWithError(ctx, "ERR no key");
    double score;
    int rc = RedisModule_ZsetScore(key, argv[2], &score);
    RedisModule_CloseKey(key);
    if (rc != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR no score");
    return RedisModule_ReplyWithDouble(ctx, score);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mzset", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mzset.add", cmdAdd, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mzset.incr", cmdIncr, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mzset.rem", cmdRem, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mzset.score", cmdScore, "readonly", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
