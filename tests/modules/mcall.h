/* mcall.h -- what test modules share about RedisModule_Call: mcallReply
 * (reply what a Call got) and the NAME.CALL command (mtest.c, mfilter.c):
 * NAME.CALL cmd arg... runs cmd through Call from the module's own command
 * context and replies what it got, or "ERR call failed" when Call returns
 * NULL. Each .so gets its own copy (static inline), as each is built alone. */
#ifndef MCALL_H
#define MCALL_H

#include "redismodule.h"

/* Replies what a Call got (and frees it), or "ERR call failed" for NULL. */
static inline int mcallReply(RedisModuleCtx *ctx, RedisModuleCallReply *reply) {
    if (reply == NULL) return RedisModule_ReplyWithError(ctx, "ERR call failed");
    RedisModule_ReplyWithCallReply(ctx, reply);
    RedisModule_FreeCallReply(reply);
    return REDISMODULE_OK;
}

static inline int mcallCommand(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    const char *cmd = RedisModule_StringPtrLen(argv[1], NULL);
    return mcallReply(ctx, RedisModule_Call(ctx, cmd, "v", argv + 2, (size_t)(argc - 2)));
}

#endif
