/* mfork.c -- a test module for the fork API (Fork, SendChildHeartbeat,
 * ExitFromChild, KillForkChild), used by tests/unit/moduleapi-fork.tcl.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so
 * the same .so runs in Redis 7.0.15.
 *
 * MFORK.FORK code ms: forks; the child sends a heartbeat, sleeps ms
 *   milliseconds and exits with code through ExitFromChild. The child's
 *   pid, or "ERR fork <errno name>".
 * MFORK.DONE: {done handler calls, last exit code, last signal, user data right}.
 * MFORK.KILL pid: KillForkChild: OK or ERR. */
#include "redismodule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

static long long done_calls;
static int last_code, last_signal, data_right = 1;
static const char tag[] = "mfork";

static void forkDone(int exitcode, int bysignal, void *user_data) {
    done_calls++;
    last_code = exitcode;
    last_signal = bysignal;
    if (user_data != tag) data_right = 0;
}

static const char *errnoName(int e) {
    switch (e) {
    case EEXIST: return "EEXIST";
    case ENOSYS: return "ENOSYS";
    case EPERM: return "EPERM";
    case ENOMEM: return "ENOMEM";
    case EAGAIN: return "EAGAIN";
    default: return "other";
    }
}

static int forkCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long code, ms;
    if (argc != 3 || RedisModule_StringToLongLong(argv[1], &code) != REDISMODULE_OK ||
        RedisModule_StringToLongLong(argv[2], &ms) != REDISMODULE_OK)
        return RedisModule_WrongArity(ctx);
    errno = 0;
    int pid = RedisModule_Fork(forkDone, (void *)tag);
    if (pid == 0) {
        RedisModule_SendChildHeartbeat(0.5);
        usleep((useconds_t)(ms * 1000));
        RedisModule_ExitFromChild((int)code);
    }
    if (pid < 0) {
        char err[64];
        snprintf(err, sizeof err, "ERR fork %s", errnoName(errno));
        return RedisModule_ReplyWithError(ctx, err);
    }
    return RedisModule_ReplyWithLongLong(ctx, pid);
}

static int doneCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_ReplyWithArray(ctx, 4);
    RedisModule_ReplyWithLongLong(ctx, done_calls);
    RedisModule_ReplyWithLongLong(ctx, last_code);
    RedisModule_ReplyWithLongLong(ctx, last_signal);
    return RedisModule_ReplyWithLongLong(ctx, data_right);
}

static int killCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long pid;
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &pid) != REDISMODULE_OK) return RedisModule_WrongArity(ctx);
    if (RedisModule_KillForkChild((int)pid) != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR kill");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mfork", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mfork.fork", forkCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfork.done", doneCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfork.kill", killCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
