/* mflags.c -- a test module for Call's flag letters and errno, and for
 * SetContextUser, used by tests/unit/moduleapi-callflags.tcl. Built against
 * Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the same .so
 * runs in Redis 7.0.15.
 *
 * MFLAGS.CALL letters cmd arg...: Call(cmd, letters + "v", args) -- letters
 *   "-" for none. Replies what the call got, or "ERR errno <NAME>" when it
 *   returned NULL (ENOENT, EINVAL, ENOTSUP, EACCES, ESPIPE, ENOSPC, EBADF).
 * MFLAGS.ASUSER user letters cmd arg...: the same after SetContextUser of
 *   the ACL user named user (GetModuleUserFromUserName).
 * MFLAGS.WEIRD:CMD: replies OK; its name has a ':' that INFO must not print. */
#include "redismodule.h"
#include "mcall.h" /* mcallReply */

#include <errno.h>
#include <stdio.h>
#include <string.h>

static const char *errnoName(int e) {
    switch (e) {
    case ENOENT: return "ENOENT";
    case EINVAL: return "EINVAL";
    case ENOTSUP: return "ENOTSUP";
    case EACCES: return "EACCES";
    case ESPIPE: return "ESPIPE";
    case ENOSPC: return "ENOSPC";
    case EBADF: return "EBADF";
    default: return "other";
    }
}

static int callWith(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    char fmt[32];
    const char *letters = RedisModule_StringPtrLen(argv[0], NULL);
    snprintf(fmt, sizeof fmt, "%sv", strcmp(letters, "-") ? letters : "");
    errno = 0;
    RedisModuleCallReply *r =
        RedisModule_Call(ctx, RedisModule_StringPtrLen(argv[1], NULL), fmt, argv + 2, (size_t)(argc - 2));
    if (r == NULL) {
        char err[64];
        snprintf(err, sizeof err, "ERR errno %s", errnoName(errno));
        return RedisModule_ReplyWithError(ctx, err);
    }
    return mcallReply(ctx, r);
}

static int callCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    return callWith(ctx, argv + 1, argc - 1);
}

static int asUserCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    RedisModuleUser *user = RedisModule_GetModuleUserFromUserName(argv[1]);
    if (user == NULL) return RedisModule_ReplyWithError(ctx, "ERR no such user");
    RedisModule_SetContextUser(ctx, user);
    int res = callWith(ctx, argv + 2, argc - 2);
    RedisModule_SetContextUser(ctx, NULL);
    RedisModule_FreeModuleUser(user);
    return res;
}

static int okCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mflags", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mflags.call", callCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mflags.asuser", asUserCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mflags.weird:cmd", okCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
