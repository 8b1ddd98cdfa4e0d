/* mattr.c -- a test module for RESP3 attributes in the module API
 * (CallReplyAttribute, CallReplyAttributeElement, ReplyWithAttribute with
 * a postponed length, ReplySetAttributeLength), used by
 * tests/unit/moduleapi-attr.tcl. Built against Redis 7.0's redismodule.h by
 * utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15.
 *
 * MATTR.CALL: Calls DEBUG PROTOCOL ATTRIB in RESP3 and replies
 *   [reply type, proto length, reply text, attribute length, first key,
 *   first value's length] ("no-element" for the last two when
 *   CallReplyAttributeElement refuses, as Redis 7.0.15 does), or "none" in
 *   place of the attribute fields when there is none.
 * MATTR.PLAIN: the same for PING (a reply without an attribute).
 * MATTR.REPLY n: an attribute of n pairs (attr:j -> j) sent with a
 *   postponed length, then the status "done"; to a RESP2 client the
 *   error "ERR attribute refused".
 * MATTR.MISUSE: ReplySetAttributeLength with nothing postponed (Redis logs
 *   the misuse), then "OK". */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>

static int describe(RedisModuleCtx *ctx, RedisModuleCallReply *r) {
    if (r == NULL) return RedisModule_ReplyWithError(ctx, "ERR call failed");
    int type = RedisModule_CallReplyType(r); /* Redis 7.0 parses the reply only then */
    RedisModuleCallReply *attr = RedisModule_CallReplyAttribute(r);
    RedisModule_ReplyWithArray(ctx, attr ? 6 : 4);
    RedisModule_ReplyWithLongLong(ctx, type);
    size_t protolen;
    RedisModule_CallReplyProto(r, &protolen);
    RedisModule_ReplyWithLongLong(ctx, (long long)protolen);
    size_t len;
    const char *s = RedisModule_CallReplyStringPtr(r, &len);
    RedisModule_ReplyWithStringBuffer(ctx, s ? s : "", s ? len : 0);
    if (attr == NULL) {
        RedisModule_ReplyWithSimpleString(ctx, "none");
    } else {
        RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_CallReplyLength(attr));
        RedisModuleCallReply *key, *val;
        if (RedisModule_CallReplyAttributeElement(attr, 0, &key, &val) != REDISMODULE_OK) {
            RedisModule_ReplyWithSimpleString(ctx, "no-element");
            RedisModule_ReplyWithSimpleString(ctx, "no-element");
        } else {
            s = RedisModule_CallReplyStringPtr(key, &len);
            RedisModule_ReplyWithStringBuffer(ctx, s, len);
            RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_CallReplyLength(val));
        }
        /* past the end, and a map getter on an attribute: errors */
        if (RedisModule_CallReplyAttributeElement(attr, 5, &key, &val) == REDISMODULE_OK ||
            RedisModule_CallReplyMapElement(attr, 0, &key, &val) == REDISMODULE_OK)
            RedisModule_Log(ctx, "warning", "mattr: an out-of-range element was returned");
    }
    RedisModule_FreeCallReply(r);
    return REDISMODULE_OK;
}

static int callCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return describe(ctx, RedisModule_Call(ctx, "DEBUG", "3cc", "PROTOCOL", "attrib"));
}

static int plainCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return describe(ctx, RedisModule_Call(ctx, "PING", "3"));
}

static int replyCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &n) != REDISMODULE_OK) return RedisModule_WrongArity(ctx);
    if (RedisModule_ReplyWithAttribute(ctx, REDISMODULE_POSTPONED_LEN) != REDISMODULE_OK)
        return RedisModule_ReplyWithError(ctx, "ERR attribute refused");
    for (long long j = 0; j < n; j++) {
        char k[32];
        snprintf(k, sizeof k, "attr:%lld", j);
        RedisModule_ReplyWithSimpleString(ctx, k);
        RedisModule_ReplyWithLongLong(ctx, j);
    }
    RedisModule_ReplySetAttributeLength(ctx, (long)n);
    return RedisModule_ReplyWithSimpleString(ctx, "done");
}

static int misuseCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    RedisModule_ReplySetAttributeLength(ctx, 3);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mattr", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mattr.call", callCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mattr.plain", plainCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mattr.reply", replyCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mattr.misuse", misuseCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
