/* mkeys.c -- a test module for the keys a module command declares and for
 * how COMMAND describes module commands, used by
 * tests/unit/moduleapi-keys-api.tcl. Built against Redis 7.0's
 * redismodule.h by utils/build-test-modules.sh, so the same .so runs in
 * Redis 7.0.15.
 *
 * MKEYS.MOVABLE n key... [arg...] ("getkeys-api", no legacy range): its
 *   keys are the n arguments after n. Asked for its keys
 *   (IsKeysPositionRequest), it reports the first with KeyAtPosWithFlags
 *   (RO ACCESS), the others with KeyAtPos (full access), and tries
 *   positions 0 and -1, which must be ignored. Run, it replies n after
 *   calling KeyAtPos outside a request (which must do nothing).
 * MKEYS.READ key ("readonly", legacy range 1 1 1): replies the key's type.
 * MKEYS.BOX: a container ("readonly") with the subcommand GET key (legacy
 *   range 1 1 1 of the subcommand's own arguments, as 7.0 counts them).
 * MKEYS.CHAN kind channel ("getchannels-api"): asked for its channels
 *   (IsChannelsPositionRequest) it reports argument 2 with
 *   ChannelAtPosWithFlags, as published to (kind "pub"), pattern-subscribed
 *   ("psub") or unsubscribed ("unsub"). Run, it replies its kind.
 * MKEYS.KEYSOF cmd arg...: GetCommandKeysWithFlags of the command line:
 *   an array of {position, flags} pairs, nil when it has no keys, or an
 *   error naming errno (ENOENT, EINVAL). MKEYS.KEYSOF0 the same through
 *   GetCommandKeys: positions only.
 * MKEYS.FAR ("getkeys-api"): reports argument 1 and a position past the
 *   arguments, which the server must drop (Redis 7.0 would read past argv:
 *   the test uses it on ours only). */
#include "redismodule.h"
#include "mcall.h" /* mcallReply */

#include <errno.h>
#include <string.h>

static int movableCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    long long n;
    if (RedisModule_StringToLongLong(argv[1], &n) != REDISMODULE_OK || n < 0 || n > argc - 2) {
        if (RedisModule_IsKeysPositionRequest(ctx)) return REDISMODULE_OK;
        return RedisModule_ReplyWithError(ctx, "ERR bad key count");
    }
    if (RedisModule_IsKeysPositionRequest(ctx)) {
        RedisModule_KeyAtPos(ctx, 0);
        RedisModule_KeyAtPos(ctx, -1);
        for (long long j = 0; j < n; j++) {
            if (j == 0)
                RedisModule_KeyAtPosWithFlags(ctx, 2, REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS);
            else
                RedisModule_KeyAtPos(ctx, (int)(2 + j));
        }
        return REDISMODULE_OK;
    }
    RedisModule_KeyAtPos(ctx, 2); /* not a keys request: ignored */
    return RedisModule_ReplyWithLongLong(ctx, n);
}

static int chanCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_IsChannelsPositionRequest(ctx) ? REDISMODULE_OK : RedisModule_WrongArity(ctx);
    const char *kind = RedisModule_StringPtrLen(argv[1], NULL);
    if (RedisModule_IsChannelsPositionRequest(ctx)) {
        int flags = !strcmp(kind, "pub")    ? REDISMODULE_CMD_CHANNEL_PUBLISH
                    : !strcmp(kind, "psub") ? REDISMODULE_CMD_CHANNEL_SUBSCRIBE | REDISMODULE_CMD_CHANNEL_PATTERN
                                            : REDISMODULE_CMD_CHANNEL_UNSUBSCRIBE;
        RedisModule_ChannelAtPosWithFlags(ctx, 2, flags);
        return REDISMODULE_OK;
    }
    return RedisModule_ReplyWithString(ctx, argv[1]);
}

static int farCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (RedisModule_IsKeysPositionRequest(ctx)) {
        if (argc > 1) RedisModule_KeyAtPos(ctx, 1);
        RedisModule_KeyAtPos(ctx, argc + 5);
        return REDISMODULE_OK;
    }
    return RedisModule_ReplyWithLongLong(ctx, argc);
}

static int keysOfCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    int with_flags = strcmp(RedisModule_StringPtrLen(argv[0], NULL), "mkeys.keysof0") != 0;
    int n = -1, *flags = NULL;
    errno = 12345;
    int *pos = with_flags ? RedisModule_GetCommandKeysWithFlags(ctx, argv + 1, argc - 1, &n, &flags)
                          : RedisModule_GetCommandKeys(ctx, argv + 1, argc - 1, &n);
    if (pos == NULL) {
        if (errno == ENOENT) return RedisModule_ReplyWithError(ctx, "ERR ENOENT");
        if (errno == EINVAL) return RedisModule_ReplyWithError(ctx, "ERR EINVAL");
        if (errno != 0) return RedisModule_ReplyWithError(ctx, "ERR errno not set");
        return RedisModule_ReplyWithNull(ctx);
    }
    RedisModule_ReplyWithArray(ctx, n);
    for (int j = 0; j < n; j++) {
        if (with_flags) {
            RedisModule_ReplyWithArray(ctx, 2);
            RedisModule_ReplyWithLongLong(ctx, pos[j]);
            RedisModule_ReplyWithLongLong(ctx, flags[j]);
        } else {
            RedisModule_ReplyWithLongLong(ctx, pos[j]);
        }
    }
    RedisModule_Free(pos);
    if (flags) RedisModule_Free(flags);
    return REDISMODULE_OK;
}

static int readCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    return mcallReply(ctx, RedisModule_Call(ctx, "TYPE", "s", argv[1]));
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mkeys", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mkeys.movable", movableCmd, "readonly getkeys-api", 0, 0, 0) ==
            REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.read", readCmd, "readonly", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.box", NULL, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.chan", chanCmd, "getchannels-api", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.far", farCmd, "getkeys-api", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.keysof", keysOfCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mkeys.keysof0", keysOfCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    RedisModuleCommand *box = RedisModule_GetCommand(ctx, "mkeys.box");
    if (box == NULL || RedisModule_CreateSubcommand(box, "get", readCmd, "readonly", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
