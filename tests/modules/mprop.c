/* mprop.c -- a test module for what modules propagate outside a command
 * (src/propagate.c's execution units), used by
 * tests/unit/moduleapi-propagate.tcl. Built against Redis 7.0's
 * redismodule.h by utils/build-test-modules.sh, so the same .so runs in
 * Redis 7.0.15.
 *
 * MPROP.TIMER PREFIX: a timer 1 ms later replicates INCR PREFIX:first,
 *   runs INCR PREFIX:called with "!" and replicates INCR PREFIX:last.
 * MPROP.THREAD PREFIX ROUNDS: a thread that, ROUNDS times, takes the lock,
 *   does the same three, and lets go; PREFIX:done is set when it ends.
 * MPROP.CALL KEY: INCR KEY through Call without "!" (nothing of it is
 *   propagated), then ReplicateVerbatim: the command itself goes out.
 * On every "expired" keyspace event it replicates INCR mprop:expired. */
#include "redismodule.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The three ops of a round, under PREFIX. */
static void round3(RedisModuleCtx *ctx, const char *prefix) {
    char key[128];
    snprintf(key, sizeof key, "%s:first", prefix);
    RedisModule_Replicate(ctx, "INCR", "c", key);
    snprintf(key, sizeof key, "%s:called", prefix);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "INCR", "c!", key);
    if (r) RedisModule_FreeCallReply(r);
    snprintf(key, sizeof key, "%s:last", prefix);
    RedisModule_Replicate(ctx, "INCR", "c", key);
}

static void onTimer(RedisModuleCtx *ctx, void *data) {
    round3(ctx, data);
    free(data);
}

static int timerCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    size_t len;
    const char *prefix = RedisModule_StringPtrLen(argv[1], &len);
    char *copy = malloc(len + 1);
    memcpy(copy, prefix, len);
    copy[len] = '\0';
    RedisModule_CreateTimer(ctx, 1, onTimer, copy);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

typedef struct {
    char prefix[100];
    long long rounds;
} threadJob;

static void *threadMain(void *arg) {
    threadJob *job = arg;
    RedisModuleCtx *ctx = RedisModule_GetThreadSafeContext(NULL);
    for (long long i = 0; i < job->rounds; i++) {
        RedisModule_ThreadSafeContextLock(ctx);
        round3(ctx, job->prefix);
        RedisModule_ThreadSafeContextUnlock(ctx);
    }
    char key[128];
    snprintf(key, sizeof key, "%s:done", job->prefix);
    RedisModule_ThreadSafeContextLock(ctx);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "SET", "cc", key, "1"); /* not propagated: no "!" */
    if (r) RedisModule_FreeCallReply(r);
    RedisModule_ThreadSafeContextUnlock(ctx);
    RedisModule_FreeThreadSafeContext(ctx);
    free(job);
    return NULL;
}

static int threadCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    threadJob *job = calloc(1, sizeof *job);
    size_t len;
    const char *prefix = RedisModule_StringPtrLen(argv[1], &len);
    if (len >= sizeof job->prefix || RedisModule_StringToLongLong(argv[2], &job->rounds) != REDISMODULE_OK) {
        free(job);
        return RedisModule_ReplyWithError(ctx, "ERR bad prefix or rounds");
    }
    memcpy(job->prefix, prefix, len);
    pthread_t tid;
    if (pthread_create(&tid, NULL, threadMain, job) != 0) {
        free(job);
        return RedisModule_ReplyWithError(ctx, "ERR cannot start the thread");
    }
    pthread_detach(tid);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int callCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "INCR", "s", argv[1]);
    if (r == NULL) return RedisModule_ReplyWithError(ctx, "ERR the call failed");
    RedisModule_ReplyWithCallReply(ctx, r);
    RedisModule_FreeCallReply(r);
    RedisModule_ReplicateVerbatim(ctx);
    return REDISMODULE_OK;
}

static int onKeyspace(RedisModuleCtx *ctx, int type, const char *event, RedisModuleString *key) {
    (void)type;
    (void)key;
    if (strcmp(event, "expired") == 0) RedisModule_Replicate(ctx, "INCR", "c", "mprop:expired");
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mprop", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mprop.timer", timerCommand, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mprop.thread", threadCommand, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mprop.call", callCommand, "write", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    if (RedisModule_SubscribeToKeyspaceEvents(ctx, REDISMODULE_NOTIFY_EXPIRED, onKeyspace) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
