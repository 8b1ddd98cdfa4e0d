/* minfo.c -- a test module for the Info API (RegisterInfoFunc, the
 * InfoAdd* writers, GetServerInfo and its readers), used by
 * tests/unit/moduleapi-info.tcl. Built against Redis 7.0's redismodule.h by
 * utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15 and the
 * two servers' INFO text can be compared.
 *
 * Its info callback writes, in this order:
 *   "# minfo" (InfoAddSection with NULL): calls (how many times the callback
 *     ran, this one included), neg (-2 as LongLong), uneg (-2 as ULongLong)
 *   "# minfo_numbers": pi (Double 3.25), big (Double 1e300), str (String
 *     "hello"), cstr (CString "a b"), dict "pair" {one=1,two=2.5,three=x}
 *   "# minfo_dicts": dict "first" {k=v} left open (the next dict ends it),
 *     dict "second" {n=-7} ended by EndDictField, an empty dict "empty",
 *     dict "odd:na#me" {x=1} (a name INFO's format cannot hold as it is),
 *     dict "last" {u=18446744073709551615} left open at the callback's end
 *   "# minfo_crash" (only with for_crash_report): reason "crash"
 * and records each writer's return code for MINFO.LASTRC.
 *
 * MINFO.LASTRC: the return codes of the last callback's calls, in order.
 * MINFO.GET section field kind: GetServerInfo(section; "-" for NULL) then
 *   kind s (ServerInfoGetField), c (GetFieldC): the value or nil;
 *   i, u, d (Signed, Unsigned, Double): [value as text, out_err].
 * MINFO.GETAUTO section field: as "s" under AutoMemory, freeing nothing.
 */
#include "redismodule.h"

#include <stdio.h>
#include <string.h>

static long long calls;
static int rcs[32];
static int nrcs;

static void rc(int r) {
    if (nrcs < (int)(sizeof rcs / sizeof rcs[0])) rcs[nrcs++] = r;
}

static void infoFunc(RedisModuleInfoCtx *ctx, int for_crash_report) {
    nrcs = 0;
    calls++;
    rc(RedisModule_InfoAddSection(ctx, NULL));
    rc(RedisModule_InfoAddFieldLongLong(ctx, "calls", calls));
    rc(RedisModule_InfoAddFieldLongLong(ctx, "neg", -2));
    rc(RedisModule_InfoAddFieldULongLong(ctx, "uneg", (unsigned long long)-2));
    rc(RedisModule_InfoEndDictField(ctx)); /* no dict open: ERR */

    rc(RedisModule_InfoAddSection(ctx, "numbers"));
    rc(RedisModule_InfoAddFieldDouble(ctx, "pi", 3.25));
    rc(RedisModule_InfoAddFieldDouble(ctx, "big", 1e300));
    RedisModuleString *s = RedisModule_CreateString(NULL, "hello", 5);
    rc(RedisModule_InfoAddFieldString(ctx, "str", s));
    RedisModule_FreeString(NULL, s);
    rc(RedisModule_InfoAddFieldCString(ctx, "cstr", "a b"));
    rc(RedisModule_InfoBeginDictField(ctx, "pair"));
    rc(RedisModule_InfoAddFieldLongLong(ctx, "one", 1));
    rc(RedisModule_InfoAddFieldDouble(ctx, "two", 2.5));
    rc(RedisModule_InfoAddFieldCString(ctx, "three", "x"));
    rc(RedisModule_InfoEndDictField(ctx));

    rc(RedisModule_InfoAddSection(ctx, "dicts"));
    rc(RedisModule_InfoBeginDictField(ctx, "first"));
    rc(RedisModule_InfoAddFieldCString(ctx, "k", "v"));
    rc(RedisModule_InfoBeginDictField(ctx, "second"));
    rc(RedisModule_InfoAddFieldLongLong(ctx, "n", -7));
    rc(RedisModule_InfoEndDictField(ctx));
    rc(RedisModule_InfoBeginDictField(ctx, "empty"));
    rc(RedisModule_InfoEndDictField(ctx));
    rc(RedisModule_InfoBeginDictField(ctx, "odd:na#me"));
    rc(RedisModule_InfoAddFieldLongLong(ctx, "x", 1));
    rc(RedisModule_InfoBeginDictField(ctx, "last"));
    rc(RedisModule_InfoAddFieldULongLong(ctx, "u", 18446744073709551615ULL));

    if (for_crash_report) {
        RedisModule_InfoAddSection(ctx, "crash");
        RedisModule_InfoAddFieldCString(ctx, "reason", "crash");
    }
}

static int lastrcCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    RedisModule_ReplyWithArray(ctx, nrcs);
    for (int j = 0; j < nrcs; j++) RedisModule_ReplyWithLongLong(ctx, rcs[j]);
    return REDISMODULE_OK;
}

static void replyNumber(RedisModuleCtx *ctx, const char *text, int err) {
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithCString(ctx, text);
    RedisModule_ReplyWithLongLong(ctx, err);
}

static void replyField(RedisModuleCtx *ctx, RedisModuleServerInfoData *d, const char *field, char kind) {
    char buf[64];
    int err = -1;
    if (kind == 's') {
        RedisModuleString *v = RedisModule_ServerInfoGetField(ctx, d, field);
        if (v) RedisModule_ReplyWithString(ctx, v);
        else RedisModule_ReplyWithNull(ctx);
        if (v) RedisModule_FreeString(ctx, v);
    } else if (kind == 'c') {
        const char *v = RedisModule_ServerInfoGetFieldC(d, field);
        if (v) RedisModule_ReplyWithCString(ctx, v);
        else RedisModule_ReplyWithNull(ctx);
    } else if (kind == 'i') {
        snprintf(buf, sizeof buf, "%lld", RedisModule_ServerInfoGetFieldSigned(d, field, &err));
        replyNumber(ctx, buf, err);
    } else if (kind == 'u') {
        snprintf(buf, sizeof buf, "%llu", RedisModule_ServerInfoGetFieldUnsigned(d, field, &err));
        replyNumber(ctx, buf, err);
    } else if (kind == 'd') {
        snprintf(buf, sizeof buf, "%.17g", RedisModule_ServerInfoGetFieldDouble(d, field, &err));
        replyNumber(ctx, buf, err);
    } else {
        RedisModule_ReplyWithError(ctx, "ERR kind is one of s c i u d");
    }
}

static int getCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 4) return RedisModule_WrongArity(ctx);
    const char *section = RedisModule_StringPtrLen(argv[1], NULL);
    const char *field = RedisModule_StringPtrLen(argv[2], NULL);
    const char *kind = RedisModule_StringPtrLen(argv[3], NULL);
    RedisModuleServerInfoData *d = RedisModule_GetServerInfo(ctx, strcmp(section, "-") ? section : NULL);
    replyField(ctx, d, field, kind[0]);
    RedisModule_FreeServerInfo(ctx, d);
    return REDISMODULE_OK;
}

static int getautoCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleServerInfoData *d = RedisModule_GetServerInfo(ctx, RedisModule_StringPtrLen(argv[1], NULL));
    RedisModuleString *v = RedisModule_ServerInfoGetField(ctx, d, RedisModule_StringPtrLen(argv[2], NULL));
    if (v) RedisModule_ReplyWithString(ctx, v);
    else RedisModule_ReplyWithNull(ctx);
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "minfo", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_RegisterInfoFunc(ctx, infoFunc) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "minfo.lastrc", lastrcCmd, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "minfo.get", getCmd, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "minfo.getauto", getautoCmd, "readonly", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
