/* mhash.c -- a test module for the hash key API (HashSet, HashGet and their
 * flags), used by tests/unit/moduleapi-zrange.tcl. Built against Redis
 * 7.0's redismodule.h by utils/build-test-modules.sh, so the same .so runs
 * in Redis 7.0.15.
 *
 * MHASH.SET key mode flags field value [field value ...]  (1 to 3 pairs)
 *   -> {count errno}: HashSet's answer and errno's name after it ("-" when
 *   errno stayed 0). mode: r, w or rw. flags: letters n (NX), x (XX),
 *   f (CFIELDS: fields passed as C strings), a (COUNT_ALL), e (EXISTS, which
 *   HashSet refuses); "-" for none. The value "!del" is REDISMODULE_HASH_DELETE.
 * MHASH.GET key flags field [field field]  (1 to 3 fields)
 *   -> per field, with the e flag its existence (0/1), else its value or nil;
 *   flags as above (f, e). A missing key is the error "ERR no key"; HashGet
 *   refusing is the error "ERR hashget". */
#include "redismodule.h"

#include <errno.h>
#include <string.h>

static int parseFlags(RedisModuleString *arg) {
    const char *s = RedisModule_StringPtrLen(arg, NULL);
    int f = REDISMODULE_HASH_NONE;
    if (strchr(s, 'n')) f |= REDISMODULE_HASH_NX;
    if (strchr(s, 'x')) f |= REDISMODULE_HASH_XX;
    if (strchr(s, 'f')) f |= REDISMODULE_HASH_CFIELDS;
    if (strchr(s, 'a')) f |= REDISMODULE_HASH_COUNT_ALL;
    if (strchr(s, 'e')) f |= REDISMODULE_HASH_EXISTS;
    return f;
}

static int parseMode(RedisModuleString *arg) {
    const char *s = RedisModule_StringPtrLen(arg, NULL);
    int mode = 0;
    if (strchr(s, 'r')) mode |= REDISMODULE_READ;
    if (strchr(s, 'w')) mode |= REDISMODULE_WRITE;
    return mode;
}

static const char *errnoName(int e) {
    switch (e) {
    case 0: return "-";
    case EINVAL: return "EINVAL";
    case ENOTSUP: return "ENOTSUP";
    case EBADF: return "EBADF";
    case ENOENT: return "ENOENT";
    default: return "other";
    }
}

/* A field argument as HashSet/HashGet expect it under `flags`. */
static void *fieldArg(RedisModuleString *arg, int flags) {
    if (flags & REDISMODULE_HASH_CFIELDS) return (void *)RedisModule_StringPtrLen(arg, NULL);
    return arg;
}

static RedisModuleString *valueArg(RedisModuleString *arg) {
    return strcmp(RedisModule_StringPtrLen(arg, NULL), "!del") == 0 ? REDISMODULE_HASH_DELETE : arg;
}

static int cmdSet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 6 || argc > 10 || argc % 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], parseMode(argv[2]));
    int flags = parseFlags(argv[3]), pairs = (argc - 4) / 2, count;
    void *f[3] = {NULL, NULL, NULL};
    RedisModuleString *v[3] = {NULL, NULL, NULL};
    for (int j = 0; j < pairs; j++) {
        f[j] = fieldArg(argv[4 + 2 * j], flags);
        v[j] = valueArg(argv[5 + 2 * j]);
    }
    errno = 0;
    if (pairs == 1) count = RedisModule_HashSet(key, flags, f[0], v[0], NULL);
    else if (pairs == 2) count = RedisModule_HashSet(key, flags, f[0], v[0], f[1], v[1], NULL);
    else count = RedisModule_HashSet(key, flags, f[0], v[0], f[1], v[1], f[2], v[2], NULL);
    int err = errno;
    if (key) RedisModule_CloseKey(key);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModule_ReplyWithLongLong(ctx, count);
    RedisModule_ReplyWithSimpleString(ctx, errnoName(err));
    return REDISMODULE_OK;
}

static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4 || argc > 6) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_READ);
    if (key == NULL) return RedisModule_ReplyWithError(ctx, "ERR no key");
    int flags = parseFlags(argv[2]), n = argc - 3, rc;
    void *f[3] = {NULL, NULL, NULL};
    for (int j = 0; j < n; j++) f[j] = fieldArg(argv[3 + j], flags);
    RedisModuleString *v[3] = {NULL, NULL, NULL};
    int ex[3] = {-1, -1, -1};
    void *out[3];
    for (int j = 0; j < 3; j++) out[j] = (flags & REDISMODULE_HASH_EXISTS) ? (void *)&ex[j] : (void *)&v[j];
    if (n == 1) rc = RedisModule_HashGet(key, flags, f[0], out[0], NULL);
    else if (n == 2) rc = RedisModule_HashGet(key, flags, f[0], out[0], f[1], out[1], NULL);
    else rc = RedisModule_HashGet(key, flags, f[0], out[0], f[1], out[1], f[2], out[2], NULL);
    RedisModule_CloseKey(key);
    if (rc != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR hashget");
    RedisModule_ReplyWithArray(ctx, n);
    for (int j = 0; j < n; j++) {
        if (flags & REDISMODULE_HASH_EXISTS) {
            RedisModule_ReplyWithLongLong(ctx, ex[j]);
        } else if (v[j]) {
            RedisModule_ReplyWithString(ctx, v[j]);
            RedisModule_FreeString(ctx, v[j]);
        } else {
            RedisModule_ReplyWithNull(ctx);
        }
    }
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mhash", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mhash.set", cmdSet, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mhash.get", cmdGet, "readonly", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
