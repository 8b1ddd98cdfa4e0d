/* mblock.c -- a test module for blocked clients, thread-safe contexts and
 * timers (tests/unit/moduleapi-block.tcl). Built against Redis 7.0's own
 * redismodule.h, so the same .so loads into Debian's Redis 7.0.15.
 *
 *   mb.block TIMEOUT-MS      blocks; answers what mb.unblock passes, or
 *                            "timedout" (status) from its timeout callback
 *   mb.blocknotimeout        blocks without a timeout callback
 *   mb.unblock VALUE         releases every held handle with VALUE as its
 *                            private data; replies how many
 *   mb.abort                 AbortBlock on every held handle
 *   mb.stats                 [freed, freed-after-disconnect, disconnects, timeouts]
 *   mb.thread KEY            blocks; a thread INCRs KEY under the lock ("!") and
 *                            replies the result through a thread-safe context
 *   mb.detached KEY VALUE    a thread with a detached context SETs KEY
 *   mb.trylock               ThreadSafeContextTryLock from a command: the
 *                            server holds the lock, so it fails
 *   mb.timer MS KEY          a timer that INCRs KEY; replies its id (text)
 *   mb.timerinfo ID          [remaining-ms-positive(0/1), key] or nil
 *   mb.stoptimer ID          1 if stopped, else 0
 *   mb.measure               blocks; a thread measures some work, then unblocks
 *   mb.spin / mb.stopspin    a command that runs, yielding, until stopped
 *   mb.spinfor MS            runs MS ms, yielding without serving clients
 *   mb.onkeys KEY TIMEOUT-MS BlockClientOnKeys: served once the list KEY has
 *                            two elements (pops the first), else "timedout"
 */
#include "redismodule.h"

#include <pthread.h>
#include <string.h>
#include <stdlib.h>
#include <errno.h>
#include <stdio.h>

#define MAX_HELD 64
static RedisModuleBlockedClient *held[MAX_HELD];
static int held_count;
static long long freed, freed_disconnected, disconnects, timeouts;

static int replyPriv(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    const char *v = RedisModule_GetBlockedClientPrivateData(ctx);
    if (!RedisModule_IsBlockedReplyRequest(ctx)) return RedisModule_ReplyWithError(ctx, "ERR not a reply request");
    return v ? RedisModule_ReplyWithCString(ctx, v) : RedisModule_ReplyWithNull(ctx);
}

static int replyTimeout(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    timeouts++;
    if (!RedisModule_IsBlockedTimeoutRequest(ctx)) return RedisModule_ReplyWithError(ctx, "ERR not a timeout");
    return RedisModule_ReplyWithSimpleString(ctx, "timedout");
}

static void freePriv(RedisModuleCtx *ctx, void *priv) {
    freed++;
    if (RedisModule_BlockedClientDisconnected(ctx)) freed_disconnected++;
    RedisModule_Free(priv);
}

static void onDisconnect(RedisModuleCtx *ctx, RedisModuleBlockedClient *bc) {
    (void)ctx, (void)bc;
    disconnects++;
}

static void hold(RedisModuleBlockedClient *bc) {
    if (held_count < MAX_HELD) held[held_count++] = bc;
}

static int cmdBlock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long ms;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (RedisModule_StringToLongLong(argv[1], &ms) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad timeout");
    RedisModuleBlockedClient *bc = RedisModule_BlockClient(ctx, replyPriv, replyTimeout, freePriv, ms);
    RedisModule_SetDisconnectCallback(bc, onDisconnect);
    hold(bc);
    return REDISMODULE_OK;
}

static int cmdBlockNoTimeout(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    hold(RedisModule_BlockClient(ctx, replyPriv, NULL, freePriv, 0));
    return REDISMODULE_OK;
}

static int cmdUnblock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    size_t len;
    const char *v = RedisModule_StringPtrLen(argv[1], &len);
    int n = held_count;
    for (int j = 0; j < n; j++) {
        char *copy = RedisModule_Alloc(len + 1);
        memcpy(copy, v, len);
        copy[len] = '\0';
        RedisModule_UnblockClient(held[j], copy);
    }
    held_count = 0;
    return RedisModule_ReplyWithLongLong(ctx, n);
}

static int cmdAbort(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int n = held_count;
    for (int j = 0; j < n; j++) RedisModule_AbortBlock(held[j]);
    held_count = 0;
    return RedisModule_ReplyWithLongLong(ctx, n);
}

static int cmdStats(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 4);
    RedisModule_ReplyWithLongLong(ctx, freed);
    RedisModule_ReplyWithLongLong(ctx, freed_disconnected);
    RedisModule_ReplyWithLongLong(ctx, disconnects);
    return RedisModule_ReplyWithLongLong(ctx, timeouts);
}

/* mb.onkeys KEY TIMEOUT-MS: waits until the list KEY has two elements,
 * then pops and replies the first; "timedout" on timeout. */
static int onKeysReply(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModuleString *key = RedisModule_GetBlockedClientReadyKey(ctx);
    RedisModuleCallReply *len = RedisModule_Call(ctx, "LLEN", "s", key);
    long long n = RedisModule_CallReplyType(len) == REDISMODULE_REPLY_INTEGER ? RedisModule_CallReplyInteger(len) : 0;
    RedisModule_FreeCallReply(len);
    if (n < 2) return REDISMODULE_ERR;
    RedisModuleCallReply *r = RedisModule_Call(ctx, "LPOP", "s!", key);
    RedisModule_ReplyWithCallReply(ctx, r);
    RedisModule_FreeCallReply(r);
    return REDISMODULE_OK;
}

static int cmdOnKeys(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long ms;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (RedisModule_StringToLongLong(argv[2], &ms) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad timeout");
    char *priv = RedisModule_Alloc(4);
    strcpy(priv, "key");
    RedisModule_BlockClientOnKeys(ctx, onKeysReply, replyTimeout, freePriv, ms, argv + 1, 1, priv);
    return REDISMODULE_OK;
}

/* ---- threads ------------------------------------------------------------------------ */

typedef struct job {
    RedisModuleBlockedClient *bc;
    RedisModuleString *key, *value;
} job;

static void *incrThread(void *arg) {
    job *j = arg;
    RedisModuleCtx *tsc = RedisModule_GetThreadSafeContext(j->bc);
    RedisModule_ThreadSafeContextLock(tsc);
    RedisModuleCallReply *r = RedisModule_Call(tsc, "INCR", "s!", j->key); /* propagated */
    RedisModule_ReplyWithCallReply(tsc, r);
    RedisModule_FreeCallReply(r);
    RedisModule_FreeString(tsc, j->key);
    RedisModule_ThreadSafeContextUnlock(tsc);
    RedisModule_FreeThreadSafeContext(tsc);
    RedisModule_UnblockClient(j->bc, NULL);
    RedisModule_Free(j);
    return NULL;
}

static int startThread(void *(*fn)(void *), job *j) {
    pthread_t tid;
    if (pthread_create(&tid, NULL, fn, j) != 0) return -1;
    pthread_detach(tid);
    return 0;
}

static int cmdThread(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    job *j = RedisModule_Alloc(sizeof(*j));
    j->bc = RedisModule_BlockClient(ctx, NULL, NULL, NULL, 0);
    j->key = RedisModule_CreateStringFromString(NULL, argv[1]);
    if (startThread(incrThread, j) != 0) {
        RedisModule_AbortBlock(j->bc);
        return RedisModule_ReplyWithError(ctx, "ERR no thread");
    }
    return REDISMODULE_OK;
}

static void *setThread(void *arg) {
    job *j = arg;
    RedisModuleCtx *tsc = RedisModule_GetThreadSafeContext(NULL);
    RedisModule_ThreadSafeContextLock(tsc);
    RedisModuleCallReply *r = RedisModule_Call(tsc, "SET", "ss", j->key, j->value);
    RedisModule_FreeCallReply(r);
    RedisModule_FreeString(tsc, j->key);
    RedisModule_FreeString(tsc, j->value);
    RedisModule_ThreadSafeContextUnlock(tsc);
    RedisModule_FreeThreadSafeContext(tsc);
    RedisModule_Free(j);
    return NULL;
}

static int cmdDetached(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    job *j = RedisModule_Alloc(sizeof(*j));
    j->bc = NULL;
    j->key = RedisModule_CreateStringFromString(NULL, argv[1]);
    j->value = RedisModule_CreateStringFromString(NULL, argv[2]);
    if (startThread(setThread, j) != 0) return RedisModule_ReplyWithError(ctx, "ERR no thread");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int cmdTryLock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_ThreadSafeContextTryLock(ctx) == REDISMODULE_OK) {
        RedisModule_ThreadSafeContextUnlock(ctx);
        return RedisModule_ReplyWithSimpleString(ctx, "locked");
    }
    return RedisModule_ReplyWithSimpleString(ctx, errno == EBUSY ? "busy" : "failed");
}

static void *measureThread(void *arg) {
    job *j = arg;
    RedisModule_BlockedClientMeasureTimeStart(j->bc);
    volatile unsigned long spin = 0;
    for (unsigned long k = 0; k < 2000000; k++) spin += k;
    RedisModule_BlockedClientMeasureTimeEnd(j->bc);
    char *v = RedisModule_Alloc(8);
    strcpy(v, "done");
    RedisModule_UnblockClient(j->bc, v);
    RedisModule_Free(j);
    return NULL;
}

static int cmdMeasure(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    job *j = RedisModule_Alloc(sizeof(*j));
    j->bc = RedisModule_BlockClient(ctx, replyPriv, replyTimeout, freePriv, 0);
    if (startThread(measureThread, j) != 0) {
        RedisModule_AbortBlock(j->bc);
        return RedisModule_ReplyWithError(ctx, "ERR no thread");
    }
    return REDISMODULE_OK;
}

/* mb.spin: runs, yielding (clients too), until mb.stopspin (allow-busy). */
static volatile int spinning;

static int cmdSpin(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    spinning = 1;
    while (spinning) RedisModule_Yield(ctx, REDISMODULE_YIELD_FLAG_CLIENTS, "Slow module spin");
    return RedisModule_ReplyWithSimpleString(ctx, "spun");
}

/* mb.spinfor MS: runs MS ms, yielding without serving clients. */
static int cmdSpinFor(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long ms;
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &ms) != REDISMODULE_OK) return RedisModule_WrongArity(ctx);
    uint64_t end = RedisModule_MonotonicMicroseconds() + (uint64_t)ms * 1000;
    while (RedisModule_MonotonicMicroseconds() < end) RedisModule_Yield(ctx, REDISMODULE_YIELD_FLAG_NONE, "Slow");
    return RedisModule_ReplyWithSimpleString(ctx, "spun");
}

static int cmdStopSpin(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int was = spinning;
    spinning = 0;
    return RedisModule_ReplyWithLongLong(ctx, was);
}

/* ---- timers -------------------------------------------------------------------------- */

static void timerIncr(RedisModuleCtx *ctx, void *data) {
    RedisModuleString *key = data;
    RedisModuleCallReply *r = RedisModule_Call(ctx, "INCR", "s!", key);
    RedisModule_FreeCallReply(r);
    RedisModule_FreeString(NULL, key);
}

static int cmdTimer(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long ms;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (RedisModule_StringToLongLong(argv[1], &ms) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR bad period");
    RedisModuleString *key = RedisModule_CreateStringFromString(NULL, argv[2]);
    RedisModuleTimerID id = RedisModule_CreateTimer(ctx, ms, timerIncr, key);
    char buf[32]; /* an opaque 64-bit number (Redis's are big), given as unsigned text */
    snprintf(buf, sizeof buf, "%llu", (unsigned long long)id);
    return RedisModule_ReplyWithCString(ctx, buf);
}

static int parseId(RedisModuleString *s, RedisModuleTimerID *id) {
    unsigned long long v;
    if (RedisModule_StringToULongLong(s, &v) != REDISMODULE_OK) return -1;
    *id = v;
    return 0;
}

static int cmdTimerInfo(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    RedisModuleTimerID id;
    uint64_t left;
    void *data;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (parseId(argv[1], &id)) return RedisModule_ReplyWithError(ctx, "ERR bad id");
    if (RedisModule_GetTimerInfo(ctx, id, &left, &data) != REDISMODULE_OK) return RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, left > 0);
    return RedisModule_ReplyWithString(ctx, data);
}

static int cmdStopTimer(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    RedisModuleTimerID id;
    void *data;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (parseId(argv[1], &id)) return RedisModule_ReplyWithError(ctx, "ERR bad id");
    if (RedisModule_StopTimer(ctx, id, &data) != REDISMODULE_OK) return RedisModule_ReplyWithLongLong(ctx, 0);
    RedisModule_FreeString(NULL, data);
    return RedisModule_ReplyWithLongLong(ctx, 1);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mblock", 1, REDISMODULE_APIVER_1) != REDISMODULE_OK) return REDISMODULE_ERR;
    static const struct {
        const char *name;
        RedisModuleCmdFunc fn;
        const char *flags;
    } cmds[] = {
        {"mb.block", cmdBlock, ""}, {"mb.blocknotimeout", cmdBlockNoTimeout, ""},
        {"mb.unblock", cmdUnblock, ""}, {"mb.abort", cmdAbort, ""}, {"mb.stats", cmdStats, ""},
        {"mb.thread", cmdThread, "write"}, {"mb.detached", cmdDetached, "write"},
        {"mb.trylock", cmdTryLock, ""}, {"mb.onkeys", cmdOnKeys, "write"},
        {"mb.spin", cmdSpin, ""}, {"mb.spinfor", cmdSpinFor, ""}, {"mb.stopspin", cmdStopSpin, "allow-busy"}, {"mb.measure", cmdMeasure, ""},
        {"mb.timer", cmdTimer, "write"}, {"mb.timerinfo", cmdTimerInfo, ""}, {"mb.stoptimer", cmdStopTimer, ""},
    };
    for (size_t j = 0; j < sizeof cmds / sizeof cmds[0]; j++)
        if (RedisModule_CreateCommand(ctx, cmds[j].name, cmds[j].fn, cmds[j].flags, 0, 0, 0) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
