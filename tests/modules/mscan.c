/* mscan.c -- a test module for the scan API (ScanCursorCreate,
 * ScanCursorRestart, ScanCursorDestroy, Scan, ScanKey), used by
 * tests/unit/moduleapi-scan.tcl. Built against Redis 7.0's redismodule.h
 * by utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15.
 *
 * MSCAN.ALL                -> every "name=type" Scan gave (type from the
 *                             callback's key handle, "nokey" without one)
 * MSCAN.DELALL             -> Scan whose callback deletes each key it is
 *                             given (Call DEL): the number deleted
 * MSCAN.CREATE / MSCAN.RESTART / MSCAN.DESTROY  the one shared cursor
 * MSCAN.STEP               -> one Scan call: {name... ret errno}
 * MSCAN.FIELDS key [mode]  -> ScanKey until it answers 0: field, value
 *                             ("-" for none) pairs, then the errno of one
 *                             more call (ENOENT), or just the errno name
 *                             when the first call fails. mode r (default)
 *                             or w opens the key.
 */
#include "redismodule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static RedisModuleScanCursor *shared_cursor;

static const char *errnoName(int e) {
    switch (e) {
    case 0: return "0";
    case EINVAL: return "EINVAL";
    case ENOENT: return "ENOENT";
    default: return "EOTHER";
    }
}

static const char *typeName(RedisModuleKey *key) {
    if (key == NULL) return "nokey";
    switch (RedisModule_KeyType(key)) {
    case REDISMODULE_KEYTYPE_STRING: return "string";
    case REDISMODULE_KEYTYPE_LIST: return "list";
    case REDISMODULE_KEYTYPE_HASH: return "hash";
    case REDISMODULE_KEYTYPE_SET: return "set";
    case REDISMODULE_KEYTYPE_ZSET: return "zset";
    case REDISMODULE_KEYTYPE_EMPTY: return "empty";
    default: return "other";
    }
}

typedef struct collected {
    RedisModuleCtx *ctx;
    long n;
    int typed;
} collected;

static void onKey(RedisModuleCtx *ctx, RedisModuleString *keyname, RedisModuleKey *key, void *privdata) {
    collected *c = privdata;
    (void)ctx;
    size_t len;
    const char *name = RedisModule_StringPtrLen(keyname, &len);
    if (c->typed) {
        RedisModuleString *s = RedisModule_CreateStringPrintf(NULL, "%.*s=%s", (int)len, name, typeName(key));
        RedisModule_ReplyWithString(c->ctx, s);
        RedisModule_FreeString(NULL, s);
    } else {
        RedisModule_ReplyWithStringBuffer(c->ctx, name, len);
    }
    c->n++;
}

static int cmdAll(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    collected c = {ctx, 0, 1};
    RedisModuleScanCursor *cur = RedisModule_ScanCursorCreate();
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    while (RedisModule_Scan(ctx, cur, onKey, &c)) {}
    RedisModule_ScanCursorDestroy(cur);
    RedisModule_ReplySetArrayLength(ctx, c.n);
    return REDISMODULE_OK;
}

static void onKeyDelete(RedisModuleCtx *ctx, RedisModuleString *keyname, RedisModuleKey *key, void *privdata) {
    (void)key;
    RedisModuleCallReply *r = RedisModule_Call(ctx, "DEL", "s", keyname);
    long long *deleted = privdata;
    if (r && RedisModule_CallReplyType(r) == REDISMODULE_REPLY_INTEGER) *deleted += RedisModule_CallReplyInteger(r);
    if (r) RedisModule_FreeCallReply(r);
}

static int cmdDelAll(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    long long deleted = 0;
    RedisModuleScanCursor *cur = RedisModule_ScanCursorCreate();
    while (RedisModule_Scan(ctx, cur, onKeyDelete, &deleted)) {}
    RedisModule_ScanCursorDestroy(cur);
    return RedisModule_ReplyWithLongLong(ctx, deleted);
}

static int cmdCursor(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 1) return RedisModule_WrongArity(ctx);
    const char *op = RedisModule_StringPtrLen(argv[0], NULL);
    if (!strcasecmp(op, "mscan.create")) {
        if (shared_cursor) RedisModule_ScanCursorDestroy(shared_cursor);
        shared_cursor = RedisModule_ScanCursorCreate();
    } else if (shared_cursor == NULL) {
        return RedisModule_ReplyWithError(ctx, "ERR no cursor");
    } else if (!strcasecmp(op, "mscan.restart")) {
        RedisModule_ScanCursorRestart(shared_cursor);
    } else {
        RedisModule_ScanCursorDestroy(shared_cursor);
        shared_cursor = NULL;
    }
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int cmdStep(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    if (shared_cursor == NULL) return RedisModule_ReplyWithError(ctx, "ERR no cursor");
    collected c = {ctx, 0, 0};
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    errno = 12345;
    int ret = RedisModule_Scan(ctx, shared_cursor, onKey, &c);
    int e = errno;
    RedisModule_ReplyWithLongLong(ctx, ret);
    RedisModule_ReplyWithCString(ctx, errnoName(e));
    RedisModule_ReplySetArrayLength(ctx, c.n + 2);
    return REDISMODULE_OK;
}

typedef struct fields {
    RedisModuleCtx *ctx;
    long n;
} fields;

static void onField(RedisModuleKey *key, RedisModuleString *field, RedisModuleString *value, void *privdata) {
    fields *f = privdata;
    (void)key;
    RedisModule_ReplyWithString(f->ctx, field);
    if (value) RedisModule_ReplyWithString(f->ctx, value);
    else RedisModule_ReplyWithCString(f->ctx, "-");
    f->n += 2;
}

static int cmdFields(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
    int mode = REDISMODULE_READ;
    if (argc == 3 && !strcmp(RedisModule_StringPtrLen(argv[2], NULL), "w")) mode |= REDISMODULE_WRITE;
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], mode);
    RedisModuleScanCursor *cur = RedisModule_ScanCursorCreate();
    fields f = {ctx, 0};
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    errno = 12345;
    int ret = RedisModule_ScanKey(key, cur, onField, &f);
    if (!ret && errno == 0) { /* finished in one call: one more for ENOENT */
        ret = RedisModule_ScanKey(key, cur, onField, &f);
    } else if (ret) {
        while ((ret = RedisModule_ScanKey(key, cur, onField, &f))) {}
        if (errno == 0) ret = RedisModule_ScanKey(key, cur, onField, &f);
    }
    RedisModule_ReplyWithCString(ctx, errnoName(errno));
    RedisModule_ReplySetArrayLength(ctx, f.n + 1);
    RedisModule_ScanCursorDestroy(cur);
    if (key) RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mscan", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mscan.all", cmdAll, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.delall", cmdDelAll, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.create", cmdCursor, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.restart", cmdCursor, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.destroy", cmdCursor, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.step", cmdStep, "readonly", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mscan.fields", cmdFields, "write", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
