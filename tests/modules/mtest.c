/* mtest.c -- a test module for tests/unit/moduleapi.tcl: commands that
 * exercise the module API's loading, commands, replies, strings and Call.
 * Built against Redis 7.0's redismodule.h by utils/build-test-modules.sh;
 * the same .so is loaded by this server and by Redis 7.0.15.
 *
 * Load arguments: "fail" makes OnLoad fail; "name <n>" registers under
 * another name (for duplicate-name tests); "keep" makes OnUnload refuse.
 */
#include "redismodule.h"
#include "mcall.h" /* mtest.call cmd arg...: mcallCommand */
#include <string.h>
#include <strings.h>

static int refuse_unload;

/* mtest.echo arg...: the arguments back, as an array. */
static int cmdEcho(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    RedisModule_ReplyWithArray(ctx, argc - 1);
    for (int i = 1; i < argc; i++) RedisModule_ReplyWithString(ctx, argv[i]);
    return REDISMODULE_OK;
}

/* mtest.reply <kind>: one reply of each kind the API has. */
static int cmdReply(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    const char *k = RedisModule_StringPtrLen(argv[1], NULL);
    if (!strcmp(k, "longlong")) return RedisModule_ReplyWithLongLong(ctx, -1234567890123LL);
    if (!strcmp(k, "simple")) return RedisModule_ReplyWithSimpleString(ctx, "FINE");
    if (!strcmp(k, "error")) return RedisModule_ReplyWithError(ctx, "ERR something bad");
    if (!strcmp(k, "codeerror")) return RedisModule_ReplyWithError(ctx, "MYCODE custom");
    if (!strcmp(k, "cstring")) return RedisModule_ReplyWithCString(ctx, "hello");
    if (!strcmp(k, "buffer")) return RedisModule_ReplyWithStringBuffer(ctx, "a\0b", 3);
    if (!strcmp(k, "empty")) return RedisModule_ReplyWithEmptyString(ctx);
    if (!strcmp(k, "null")) return RedisModule_ReplyWithNull(ctx);
    if (!strcmp(k, "nullarray")) return RedisModule_ReplyWithNullArray(ctx);
    if (!strcmp(k, "emptyarray")) return RedisModule_ReplyWithEmptyArray(ctx);
    if (!strcmp(k, "double")) return RedisModule_ReplyWithDouble(ctx, 3.25);
    if (!strcmp(k, "longdouble")) return RedisModule_ReplyWithLongDouble(ctx, 1.5L);
    if (!strcmp(k, "bool")) {
        RedisModule_ReplyWithArray(ctx, 2);
        RedisModule_ReplyWithBool(ctx, 1);
        return RedisModule_ReplyWithBool(ctx, 0);
    }
    if (!strcmp(k, "bignum")) return RedisModule_ReplyWithBigNumber(ctx, "123456789012345678901234567890", 30);
    if (!strcmp(k, "verbatim")) return RedisModule_ReplyWithVerbatimString(ctx, "text", 4);
    if (!strcmp(k, "map")) {
        RedisModule_ReplyWithMap(ctx, 2);
        RedisModule_ReplyWithCString(ctx, "a");
        RedisModule_ReplyWithLongLong(ctx, 1);
        RedisModule_ReplyWithCString(ctx, "b");
        return RedisModule_ReplyWithLongLong(ctx, 2);
    }
    if (!strcmp(k, "set")) {
        RedisModule_ReplyWithSet(ctx, 2);
        RedisModule_ReplyWithCString(ctx, "x");
        return RedisModule_ReplyWithCString(ctx, "y");
    }
    if (!strcmp(k, "postponed")) {
        RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
        for (int i = 0; i < 3; i++) {
            RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
            for (int j = 0; j <= i; j++) RedisModule_ReplyWithLongLong(ctx, j);
            RedisModule_ReplySetArrayLength(ctx, i + 1);
        }
        RedisModule_ReplyWithMap(ctx, REDISMODULE_POSTPONED_LEN);
        RedisModule_ReplyWithCString(ctx, "k");
        RedisModule_ReplyWithCString(ctx, "v");
        RedisModule_ReplySetMapLength(ctx, 1);
        RedisModule_ReplySetArrayLength(ctx, 4);
        return REDISMODULE_OK;
    }
    return RedisModule_ReplyWithError(ctx, "ERR unknown kind");
}

/* mtest.strings: conversions and string helpers, as one array. */
static int cmdStrings(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_AutoMemory(ctx);
    RedisModuleString *n = RedisModule_CreateStringFromLongLong(ctx, -42);
    RedisModuleString *d = RedisModule_CreateStringFromDouble(ctx, 0.5);
    RedisModuleString *p = RedisModule_CreateStringPrintf(ctx, "%s-%d", "x", 7);
    RedisModuleString *c = RedisModule_CreateStringFromString(ctx, p);
    RedisModule_StringAppendBuffer(ctx, c, "!", 1);
    long long ll = 0;
    double dbl = 0;
    int okll = RedisModule_StringToLongLong(n, &ll) == REDISMODULE_OK;
    int badll = RedisModule_StringToLongLong(p, &ll) == REDISMODULE_ERR;
    int okd = RedisModule_StringToDouble(d, &dbl) == REDISMODULE_OK;
    RedisModule_ReplyWithArray(ctx, 8);
    RedisModule_ReplyWithString(ctx, n);
    RedisModule_ReplyWithString(ctx, d);
    RedisModule_ReplyWithString(ctx, p);
    RedisModule_ReplyWithString(ctx, c);
    RedisModule_ReplyWithLongLong(ctx, okll && ll == -42);
    RedisModule_ReplyWithLongLong(ctx, badll);
    RedisModule_ReplyWithLongLong(ctx, okd && dbl == 0.5);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_StringCompare(p, c) < 0);
    return REDISMODULE_OK;
}

/* mtest.callinfo: the reply types and values a few calls give. */
static int cmdCallInfo(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_AutoMemory(ctx);
    RedisModuleCallReply *r1 = RedisModule_Call(ctx, "SET", "cc", "mtest:k", "v1");
    RedisModuleCallReply *r2 = RedisModule_Call(ctx, "STRLEN", "c", "mtest:k");
    RedisModuleCallReply *r3 = RedisModule_Call(ctx, "RPUSH", "cccl", "mtest:l", "a", "b", 3LL);
    RedisModuleCallReply *r4 = RedisModule_Call(ctx, "LRANGE", "ccc", "mtest:l", "0", "-1");
    RedisModuleCallReply *r5 = RedisModule_Call(ctx, "GET", "c", "mtest:none");
    RedisModuleCallReply *r6 = RedisModule_Call(ctx, "INCR", "c", "mtest:l");
    RedisModuleCallReply *r7 = RedisModule_Call(ctx, "NOSUCHCMD", "");
    RedisModuleCallReply *r8 = RedisModule_Call(ctx, "GET", "cc", "a", "b");
    RedisModule_ReplyWithArray(ctx, 12);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyType(r1));
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyInteger(r2));
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyInteger(r3));
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyType(r4));
    RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_CallReplyLength(r4));
    RedisModuleString *el = RedisModule_CreateStringFromCallReply(RedisModule_CallReplyArrayElement(r4, 2));
    RedisModule_ReplyWithString(ctx, el);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyType(r5));
    RedisModule_ReplyWithLongLong(ctx, RedisModule_CallReplyType(r6));
    size_t len;
    const char *err = RedisModule_CallReplyStringPtr(r6, &len);
    RedisModule_ReplyWithStringBuffer(ctx, err, len);
    RedisModule_ReplyWithLongLong(ctx, r7 == NULL);
    RedisModule_ReplyWithLongLong(ctx, r8 == NULL);
    const char *proto = RedisModule_CallReplyProto(r2, &len);
    RedisModule_ReplyWithStringBuffer(ctx, proto, len);
    return REDISMODULE_OK;
}

/* mtest.db: GetSelectedDb, SelectDb, GetClientId as an array. */
static int cmdDb(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    int before = RedisModule_GetSelectedDb(ctx);
    int bad = RedisModule_SelectDb(ctx, 100000) == REDISMODULE_ERR;
    RedisModule_SelectDb(ctx, 1);
    int after = RedisModule_GetSelectedDb(ctx);
    RedisModule_SelectDb(ctx, before);
    RedisModule_ReplyWithArray(ctx, 4);
    RedisModule_ReplyWithLongLong(ctx, before);
    RedisModule_ReplyWithLongLong(ctx, bad);
    RedisModule_ReplyWithLongLong(ctx, after);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_GetClientId(ctx) > 0);
    return REDISMODULE_OK;
}

/* mtest.log <text>: a notice line in the server's log. */
static int cmdLog(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_Log(ctx, "warning", "said: %s", RedisModule_StringPtrLen(argv[1], NULL));
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* mtest.key <op> key [arg]: the low-level key API, one operation each. */
static int cmdKey(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 3) return RedisModule_WrongArity(ctx);
    const char *op = RedisModule_StringPtrLen(argv[1], NULL);
    int write = strcmp(op, "type") && strcmp(op, "len") && strcmp(op, "ttl") && strcmp(op, "read");
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[2], REDISMODULE_READ | (write ? REDISMODULE_WRITE : 0));
    long long n = 0;
    int res = REDISMODULE_OK;
    if (!strcmp(op, "type")) {
        n = RedisModule_KeyType(key);
    } else if (!strcmp(op, "len")) {
        n = (long long)RedisModule_ValueLength(key);
    } else if (!strcmp(op, "ttl")) {
        n = key ? RedisModule_GetExpire(key) : -1; /* Redis's GetExpire takes no NULL */
    } else if (!strcmp(op, "read")) {
        size_t len = 0;
        char *p = key ? RedisModule_StringDMA(key, &len, REDISMODULE_READ) : NULL;
        RedisModule_CloseKey(key);
        if (p == NULL) return RedisModule_ReplyWithNull(ctx);
        return RedisModule_ReplyWithStringBuffer(ctx, p, len);
    } else if (!strcmp(op, "set") && argc == 4) {
        res = RedisModule_StringSet(key, argv[3]);
    } else if (!strcmp(op, "upper")) {
        size_t len = 0;
        char *p = RedisModule_StringDMA(key, &len, REDISMODULE_WRITE);
        if (p == NULL) res = REDISMODULE_ERR;
        for (size_t i = 0; p && i < len; i++)
            if (p[i] >= 'a' && p[i] <= 'z') p[i] = (char)(p[i] - 'a' + 'A');
    } else if (!strcmp(op, "truncate") && argc == 4) {
        long long newlen;
        RedisModule_StringToLongLong(argv[3], &newlen);
        res = RedisModule_StringTruncate(key, (size_t)newlen);
    } else if (!strcmp(op, "expire") && argc == 4) {
        long long ms;
        RedisModule_StringToLongLong(argv[3], &ms);
        res = RedisModule_SetExpire(key, ms);
    } else if (!strcmp(op, "del")) {
        res = RedisModule_DeleteKey(key);
    } else if (!strcmp(op, "unlink")) {
        res = RedisModule_UnlinkKey(key);
    } else {
        RedisModule_CloseKey(key);
        return RedisModule_ReplyWithError(ctx, "ERR unknown op");
    }
    int opened = key != NULL;
    RedisModule_CloseKey(key);
    if (write) {
        if (res == REDISMODULE_OK) RedisModule_ReplicateVerbatim(ctx);
        return RedisModule_ReplyWithSimpleString(ctx, res == REDISMODULE_OK ? "OK" : "FAILED");
    }
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, opened);
    return RedisModule_ReplyWithLongLong(ctx, n);
}

/* mtest.repl key value: sets the key through Call without '!' and says
 * what to propagate with Replicate instead. */
static int cmdRepl(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "SET", "ss", argv[1], argv[2]);
    RedisModule_FreeCallReply(r);
    RedisModule_Replicate(ctx, "SET", "sc", argv[1], "replicated");
    RedisModuleCallReply *r2 = RedisModule_Call(ctx, "INCR", "!c", "mtest:counter");
    RedisModule_FreeCallReply(r2);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* mtest.coll key: ListPush on key:l, HashSet/HashGet on key:h, and a few
 * server facts, as one array. */
static int cmdColl(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModuleString *lname = RedisModule_CreateStringPrintf(ctx, "%s:l", RedisModule_StringPtrLen(argv[1], NULL));
    RedisModuleString *hname = RedisModule_CreateStringPrintf(ctx, "%s:h", RedisModule_StringPtrLen(argv[1], NULL));
    RedisModuleKey *l = RedisModule_OpenKey(ctx, lname, REDISMODULE_WRITE);
    RedisModule_ListPush(l, REDISMODULE_LIST_TAIL, RedisModule_CreateString(ctx, "b", 1));
    RedisModule_ListPush(l, REDISMODULE_LIST_HEAD, RedisModule_CreateString(ctx, "a", 1));
    RedisModule_ListPush(l, REDISMODULE_LIST_TAIL, RedisModule_CreateStringFromLongLong(ctx, 3));
    RedisModuleKey *h = RedisModule_OpenKey(ctx, hname, REDISMODULE_WRITE);
    int set = RedisModule_HashSet(h, REDISMODULE_HASH_CFIELDS, "f1", RedisModule_CreateString(ctx, "v1", 2),
                                  "f2", RedisModule_CreateString(ctx, "v2", 2), NULL);
    int nx = RedisModule_HashSet(h, REDISMODULE_HASH_NX | REDISMODULE_HASH_CFIELDS, "f1",
                                 RedisModule_CreateString(ctx, "other", 5), NULL);
    RedisModuleString *v1 = NULL, *none = NULL;
    int exists = -1;
    RedisModule_HashGet(h, REDISMODULE_HASH_CFIELDS, "f1", &v1, "nope", &none, NULL);
    RedisModule_HashGet(h, REDISMODULE_HASH_CFIELDS | REDISMODULE_HASH_EXISTS, "f2", &exists, NULL);
    unsigned long long ull = 0;
    RedisModuleString *big = RedisModule_CreateStringFromULongLong(ctx, 18446744073709551615ULL);
    RedisModule_StringToULongLong(big, &ull);
    RedisModule_ReplyWithArray(ctx, 9);
    RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_ValueLength(l));
    RedisModule_ReplyWithLongLong(ctx, set);
    RedisModule_ReplyWithLongLong(ctx, nx);
    RedisModule_ReplyWithString(ctx, v1);
    RedisModule_ReplyWithLongLong(ctx, none == NULL);
    RedisModule_ReplyWithLongLong(ctx, exists);
    RedisModule_ReplyWithString(ctx, big);
    RedisModule_ReplyWithLongLong(ctx, ull == 18446744073709551615ULL);
    RedisModule_ReplyWithCString(ctx, RedisModule_GetCurrentCommandName(ctx));
    return REDISMODULE_OK;
}

/* mtest.server: GetServerVersion, DbSize, a RandomKey's existence. */
static int cmdServer(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_AutoMemory(ctx);
    /* Redis's RandomKey takes no empty database */
    RedisModuleString *rk = RedisModule_DbSize(ctx) ? RedisModule_RandomKey(ctx) : NULL;
    RedisModule_ReplyWithArray(ctx, 3);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_GetServerVersion());
    RedisModule_ReplyWithLongLong(ctx, (long long)RedisModule_DbSize(ctx));
    if (rk) return RedisModule_ReplyWithString(ctx, rk);
    return RedisModule_ReplyWithNull(ctx);
}

static int cmdSub(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    return RedisModule_ReplyWithLongLong(ctx, argc);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    const char *name = "mtest";
    /* The arguments decide the name RedisModule_Init gets, so read them
     * first: fetch StringPtrLen by hand through the lookup function in the
     * context's first word, as RedisModule_Init itself would. */
    int (*getapi)(const char *, void *) = (int (*)(const char *, void *))(unsigned long)((void **)ctx)[0];
    if (getapi("RedisModule_StringPtrLen", (void *)&RedisModule_StringPtrLen) != REDISMODULE_OK) return REDISMODULE_ERR;
    for (int i = 0; i < argc; i++) {
        const char *a = RedisModule_StringPtrLen(argv[i], NULL);
        if (!strcasecmp(a, "fail")) return REDISMODULE_ERR;
        if (!strcasecmp(a, "keep")) refuse_unload = 1;
        if (!strcasecmp(a, "name") && i + 1 < argc) name = RedisModule_StringPtrLen(argv[++i], NULL);
    }
    if (RedisModule_Init(ctx, name, 3, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    /* a bad flag word and a taken name are refused */
    if (RedisModule_CreateCommand(ctx, "mtest.bad", cmdEcho, "write bogus", 0, 0, 0) != REDISMODULE_ERR)
        return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "get", cmdEcho, "", 0, 0, 0) != REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mtest.echo", cmdEcho, "readonly fast", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.reply", cmdReply, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.strings", cmdStrings, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.call", mcallCommand, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.callinfo", cmdCallInfo, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.db", cmdDb, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.log", cmdLog, "admin", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.key", cmdKey, "write", 2, 2, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.repl", cmdRepl, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.coll", cmdColl, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.server", cmdServer, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mtest.cont", NULL, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    RedisModuleCommand *parent = RedisModule_GetCommand(ctx, "mtest.cont");
    if (parent == NULL || RedisModule_GetCommand(ctx, "get") != NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateSubcommand(parent, "sub", cmdSub, "", 0, 0, 0) == REDISMODULE_ERR) return REDISMODULE_ERR;
    /* CONTAINER|SUB names the subcommand; a second "sub" and a subcommand of
     * a subcommand are refused */
    RedisModuleCommand *sub = RedisModule_GetCommand(ctx, "mtest.cont|sub");
    if (sub == NULL || RedisModule_GetCommand(ctx, "mtest.cont|nope") != NULL ||
        RedisModule_GetCommand(ctx, "mtest.cont|sub|x") != NULL)
        return REDISMODULE_ERR;
    if (RedisModule_CreateSubcommand(parent, "sub", cmdSub, "", 0, 0, 0) != REDISMODULE_ERR ||
        RedisModule_CreateSubcommand(sub, "deeper", cmdSub, "", 0, 0, 0) != REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}

int RedisModule_OnUnload(RedisModuleCtx *ctx) {
    (void)ctx;
    return refuse_unload ? REDISMODULE_ERR : REDISMODULE_OK;
}
