/* mcall.h -- the NAME.CALL command two test modules share (mtest.c,
 * mfilter.c): NAME.CALL cmd arg... runs cmd through RedisModule_Call from
 * the module's own command context and replies what it got, or
 * "ERR call failed" when Call returns NULL. Included once per module: each
 * .so gets its own copy (a static function), as each is built alone. */
#ifndef MCALL_H
#define MCALL_H

#include "redismodule.h"

static int mcallCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    const char *cmd = RedisModule_StringPtrLen(argv[1], NULL);
    RedisModuleCallReply *reply = RedisModule_Call(ctx, cmd, "v", argv + 2, (size_t)(argc - 2));
    if (reply == NULL) return RedisModule_ReplyWithError(ctx, "ERR call failed");
    RedisModule_ReplyWithCallReply(ctx, reply);
    RedisModule_FreeCallReply(reply);
    return REDISMODULE_OK;
}

#endif
