/* mfilter.c -- a test module for command filters (RegisterCommandFilter,
 * UnregisterCommandFilter, CommandFilterArgsCount/Get/Insert/Replace/Delete),
 * used by tests/unit/moduleapi-filter.tcl. Built against Redis 7.0's
 * redismodule.h by utils/build-test-modules.sh, so the same .so runs in
 * Redis 7.0.15.
 *
 * Loaded with no argument its filter sees every command; with "noself" it
 * is registered with REDISMODULE_CMDFILTER_NOSELF. The filter:
 *  - counts the commands it sees (MFILTER.SEEN; MFILTER.SEEN and
 *    MFILTER.BOUNDS themselves are not counted);
 *  - renames MFILTER.ALIAS to MFILTER.ECHO (Replace of argument 0);
 *  - deletes every argument "@drop" (Delete);
 *  - for a command whose last argument is "@wrap": deletes it, inserts
 *    "<" after the command name and appends ">" (Insert in the middle and
 *    at argc);
 *  - for a command named "@nothing": deletes every argument;
 *  - for MFILTER.BOUNDS: tries each function one past its range and keeps
 *    the answers, which MFILTER.BOUNDS replies.
 * MFILTER.ECHO arg... replies its arguments as an array.
 * MFILTER.CALL cmd arg...: Call(cmd, args), its reply, or "ERR call failed".
 * MFILTER.UNREGISTER: UnregisterCommandFilter's answer (0 OK, 1 ERR). */
#include "redismodule.h"
#include "mcall.h" /* MFILTER.CALL: mcallCommand */

#include <string.h>
#include <strings.h>

static RedisModuleCommandFilter *filter;
static long long seen;
static char bounds[128] = "not run";

static int argIs(RedisModuleCommandFilterCtx *fctx, int pos, const char *what) {
    RedisModuleString *s = RedisModule_CommandFilterArgGet(fctx, pos);
    if (s == NULL) return 0;
    size_t len;
    const char *p = RedisModule_StringPtrLen(s, &len);
    return len == strlen(what) && !strncasecmp(p, what, len);
}

static void checkBounds(RedisModuleCommandFilterCtx *fctx) {
    int argc = RedisModule_CommandFilterArgsCount(fctx);
    /* the strings of refused calls stay ours: freed here */
    RedisModuleString *a = RedisModule_CreateString(NULL, "x", 1);
    RedisModuleString *b = RedisModule_CreateString(NULL, "y", 1);
    int insert = RedisModule_CommandFilterArgInsert(fctx, argc + 1, a);
    int insert_neg = RedisModule_CommandFilterArgInsert(fctx, -1, a);
    int replace = RedisModule_CommandFilterArgReplace(fctx, argc, b);
    int delete = RedisModule_CommandFilterArgDelete(fctx, argc);
    int delete_neg = RedisModule_CommandFilterArgDelete(fctx, -1);
    RedisModule_FreeString(NULL, a);
    RedisModule_FreeString(NULL, b);
    strcpy(bounds, RedisModule_CommandFilterArgGet(fctx, argc) ? "get:ptr" : "get:null");
    strcat(bounds, RedisModule_CommandFilterArgGet(fctx, -1) ? " getneg:ptr" : " getneg:null");
    strcat(bounds, insert == REDISMODULE_ERR ? " insert:err" : " insert:ok");
    strcat(bounds, insert_neg == REDISMODULE_ERR ? " insertneg:err" : " insertneg:ok");
    strcat(bounds, replace == REDISMODULE_ERR ? " replace:err" : " replace:ok");
    strcat(bounds, delete == REDISMODULE_ERR ? " delete:err" : " delete:ok");
    strcat(bounds, delete_neg == REDISMODULE_ERR ? " deleteneg:err" : " deleteneg:ok");
}

static void theFilter(RedisModuleCommandFilterCtx *fctx) {
    if (argIs(fctx, 0, "mfilter.bounds")) {
        checkBounds(fctx);
        return;
    }
    if (!argIs(fctx, 0, "mfilter.seen")) seen++;
    if (argIs(fctx, 0, "@nothing")) {
        while (RedisModule_CommandFilterArgsCount(fctx) > 0) RedisModule_CommandFilterArgDelete(fctx, 0);
        return;
    }
    if (argIs(fctx, 0, "mfilter.alias"))
        RedisModule_CommandFilterArgReplace(fctx, 0, RedisModule_CreateString(NULL, "mfilter.echo", 12));
    for (int j = RedisModule_CommandFilterArgsCount(fctx) - 1; j >= 0; j--)
        if (argIs(fctx, j, "@drop")) RedisModule_CommandFilterArgDelete(fctx, j);
    int last = RedisModule_CommandFilterArgsCount(fctx) - 1;
    if (last > 0 && argIs(fctx, last, "@wrap")) {
        RedisModule_CommandFilterArgDelete(fctx, last);
        RedisModule_CommandFilterArgInsert(fctx, 1, RedisModule_CreateString(NULL, "<", 1));
        RedisModule_CommandFilterArgInsert(fctx, RedisModule_CommandFilterArgsCount(fctx),
                                           RedisModule_CreateString(NULL, ">", 1));
    }
}

static int echoCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    RedisModule_ReplyWithArray(ctx, argc - 1);
    for (int j = 1; j < argc; j++) RedisModule_ReplyWithString(ctx, argv[j]);
    return REDISMODULE_OK;
}

static int seenCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, seen);
}

static int boundsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return RedisModule_ReplyWithSimpleString(ctx, bounds);
}

static int unregisterCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_UnregisterCommandFilter(ctx, filter));
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (RedisModule_Init(ctx, "mfilter", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    int flags = 0;
    if (argc == 1 && !strcasecmp(RedisModule_StringPtrLen(argv[0], NULL), "noself"))
        flags = REDISMODULE_CMDFILTER_NOSELF;
    else if (argc != 0)
        return REDISMODULE_ERR;
    if ((filter = RedisModule_RegisterCommandFilter(ctx, theFilter, flags)) == NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mfilter.echo", echoCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfilter.seen", seenCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfilter.bounds", boundsCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfilter.call", mcallCommand, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mfilter.unregister", unregisterCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    seen = 0;
    return REDISMODULE_OK;
}
