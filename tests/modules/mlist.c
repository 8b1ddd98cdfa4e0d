/* mlist.c -- a test module for the list key API (ListPush, ListPop,
 * ListGet, ListSet, ListInsert, ListDelete), used by
 * tests/unit/moduleapi-keys.tcl. Built against Redis 7.0's redismodule.h by
 * utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15.
 *
 * MLIST.OP mode key op [index] [value]
 *   mode: r (READ), w (WRITE), rw; op: push-head push-tail pop-head pop-tail
 *   get set insert delete. Replies the element, OK, or "ERR errno NAME"
 *   naming the errno the call left (EINVAL ENOTSUP EBADF EDOM).
 * MLIST.NULLKEY op: the same calls with a NULL key or value (EINVAL). */
#include "redismodule.h"

#include <errno.h>
#include <string.h>

static const char *errnoName(void) {
    return errno == EINVAL ? "EINVAL" : errno == ENOTSUP ? "ENOTSUP" : errno == EBADF ? "EBADF"
         : errno == EDOM ? "EDOM" : "OTHER";
}

static int replyErrno(RedisModuleCtx *ctx) {
    const char *name = errnoName();
    char buf[64];
    strcpy(buf, "ERR errno ");
    strcat(buf, name);
    return RedisModule_ReplyWithError(ctx, buf);
}

static int replyStatus(RedisModuleCtx *ctx, int rc) {
    return rc == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : replyErrno(ctx);
}

static int replyElement(RedisModuleCtx *ctx, RedisModuleString *s) {
    if (s == NULL) return replyErrno(ctx);
    RedisModule_ReplyWithString(ctx, s);
    RedisModule_FreeString(ctx, s);
    return REDISMODULE_OK;
}

static int cmdOp(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4 || argc > 6) return RedisModule_WrongArity(ctx);
    const char *m = RedisModule_StringPtrLen(argv[1], NULL);
    int mode = (strchr(m, 'r') ? REDISMODULE_READ : 0) | (strchr(m, 'w') ? REDISMODULE_WRITE : 0);
    const char *op = RedisModule_StringPtrLen(argv[3], NULL);
    long long index = 0;
    if (argc > 4 && RedisModule_StringToLongLong(argv[4], &index) != REDISMODULE_OK) index = 0;
    RedisModuleString *value = argc > 5 ? argv[5] : (argc > 4 ? argv[4] : NULL);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[2], mode);
    if (key == NULL) return RedisModule_ReplyWithError(ctx, "ERR no key");
    errno = 0;
    int rc;
    if (!strcmp(op, "push-head")) rc = replyStatus(ctx, RedisModule_ListPush(key, REDISMODULE_LIST_HEAD, value));
    else if (!strcmp(op, "push-tail")) rc = replyStatus(ctx, RedisModule_ListPush(key, REDISMODULE_LIST_TAIL, value));
    else if (!strcmp(op, "pop-head")) rc = replyElement(ctx, RedisModule_ListPop(key, REDISMODULE_LIST_HEAD));
    else if (!strcmp(op, "pop-tail")) rc = replyElement(ctx, RedisModule_ListPop(key, REDISMODULE_LIST_TAIL));
    else if (!strcmp(op, "get")) rc = replyElement(ctx, RedisModule_ListGet(key, (long)index));
    else if (!strcmp(op, "set")) rc = replyStatus(ctx, RedisModule_ListSet(key, (long)index, argc > 5 ? value : NULL));
    else if (!strcmp(op, "insert")) rc = replyStatus(ctx, RedisModule_ListInsert(key, (long)index, argc > 5 ? value : NULL));
    else if (!strcmp(op, "delete")) rc = replyStatus(ctx, RedisModule_ListDelete(key, (long)index));
    else rc = RedisModule_ReplyWithError(ctx, "ERR unknown op");
    RedisModule_CloseKey(key);
    return rc;
}

/* The same calls on a NULL key (or NULL value): each answers the errno's
 * name, EINVAL, when it fails as it should. */
static int cmdNullKey(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 1) return RedisModule_WrongArity(ctx);
    int fails[6];
    errno = 0;
    fails[0] = RedisModule_ListPop(NULL, REDISMODULE_LIST_HEAD) == NULL;
    RedisModule_ReplyWithArray(ctx, 6);
    RedisModule_ReplyWithSimpleString(ctx, fails[0] ? errnoName() : "no");
    errno = 0;
    fails[1] = RedisModule_ListGet(NULL, 0) == NULL;
    RedisModule_ReplyWithSimpleString(ctx, fails[1] ? errnoName() : "no");
    errno = 0;
    fails[2] = RedisModule_ListSet(NULL, 0, argv[0]) == REDISMODULE_ERR;
    RedisModule_ReplyWithSimpleString(ctx, fails[2] ? errnoName() : "no");
    errno = 0;
    fails[3] = RedisModule_ListInsert(NULL, 1, argv[0]) == REDISMODULE_ERR;
    RedisModule_ReplyWithSimpleString(ctx, fails[3] ? errnoName() : "no");
    errno = 0;
    fails[4] = RedisModule_ListDelete(NULL, 0) == REDISMODULE_ERR;
    RedisModule_ReplyWithSimpleString(ctx, fails[4] ? errnoName() : "no");
    errno = 0;
    fails[5] = RedisModule_ListPush(NULL, REDISMODULE_LIST_TAIL, argv[0]) == REDISMODULE_ERR;
    RedisModule_ReplyWithSimpleString(ctx, fails[5] ? errnoName() : "no");
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mlist", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mlist.op", cmdOp, "write", 2, 2, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mlist.nullkey", cmdNullKey, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
