/* mstream.c -- a test module for the stream key API (StreamAdd, StreamDelete,
 * StreamIteratorStart/Stop/NextID/NextField/Delete, StreamTrimByLength,
 * StreamTrimByID, CreateStringFromStreamID, StringToStreamID), used by
 * tests/unit/moduleapi-stream.tcl. Built against Redis 7.0's redismodule.h
 * by utils/build-test-modules.sh, so the same .so runs in Redis 7.0.15.
 *
 * MSTREAM.RUN key mode op [args] op [args] ...  -> one reply per op, in order.
 * mode: r (READ), w (WRITE) or rw. A key OpenKey gives no handle for is
 * passed on as NULL. A failed call replies with its errno's name (EINVAL,
 * ENOTSUP, EBADF, EDOM, EFBIG, ENOENT, ERANGE, or E<number>).
 *   add flags id|null n f1 v1 .. fn vn  StreamAdd (flags: 1 = AUTOID, other
 *                                       bits pass through) -> the ID, or OK
 *                                       when id is null
 *   del id                              StreamDelete -> OK
 *   start flags from|null to|null       StreamIteratorStart (flags: 1 =
 *                                       EXCLUSIVE, 2 = REVERSE) -> OK
 *   stop                                StreamIteratorStop -> OK
 *   next                                StreamIteratorNextID -> "id nfields"
 *   field                               StreamIteratorNextField -> "f=v"
 *   idel                                StreamIteratorDelete -> OK
 *   walk                                NextID and every NextField until
 *                                       ENOENT -> array of "id f=v ..."
 *   tlen flags n / tid flags id         StreamTrimByLength / StreamTrimByID
 *                                       (flags: 1 = APPROX) -> the count
 *   id str                              StringToStreamID, then
 *                                       CreateStringFromStreamID -> the ID
 *                                       or "BADID"
 * IDs are parsed with StringToStreamID ("BADID" when it refuses one). */
#include "redismodule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int argIs(RedisModuleString *arg, const char *name) {
    return strcmp(RedisModule_StringPtrLen(arg, NULL), name) == 0;
}

static int replyErrno(RedisModuleCtx *ctx) {
    static const struct {
        int code;
        const char *name;
    } names[] = {{EINVAL, "EINVAL"}, {ENOTSUP, "ENOTSUP"}, {EBADF, "EBADF"},  {EDOM, "EDOM"},
                 {EFBIG, "EFBIG"},   {ENOENT, "ENOENT"},   {ERANGE, "ERANGE"}};
    for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++)
        if (names[j].code == errno) return RedisModule_ReplyWithSimpleString(ctx, names[j].name);
    char buf[32];
    snprintf(buf, sizeof(buf), "E%d", errno);
    return RedisModule_ReplyWithSimpleString(ctx, buf);
}

static int replyRc(RedisModuleCtx *ctx, int rc) {
    return rc == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : replyErrno(ctx);
}

static int replyID(RedisModuleCtx *ctx, const RedisModuleStreamID *id) {
    RedisModuleString *s = RedisModule_CreateStringFromStreamID(ctx, id);
    RedisModule_ReplyWithString(ctx, s);
    RedisModule_FreeString(ctx, s);
    return REDISMODULE_OK;
}

/* An ID argument: 0 if it is "null" (*ptr NULL), 1 if parsed, -1 if bad. */
static int idArg(RedisModuleString *arg, RedisModuleStreamID *id, RedisModuleStreamID **ptr) {
    *ptr = NULL;
    if (argIs(arg, "null")) return 0;
    if (RedisModule_StringToStreamID(arg, id) != REDISMODULE_OK) return -1;
    *ptr = id;
    return 1;
}

static int intArg(RedisModuleString *arg, long long *v) { return RedisModule_StringToLongLong(arg, v) == REDISMODULE_OK; }

/* "field=value" of the next field, appended to *acc (or replied if acc is
 * NULL); 0 when NextField fails. */
static int nextField(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **acc) {
    RedisModuleString *f, *v;
    if (RedisModule_StreamIteratorNextField(key, &f, &v) != REDISMODULE_OK) return 0;
    size_t fl, vl;
    const char *fp = RedisModule_StringPtrLen(f, &fl), *vp = RedisModule_StringPtrLen(v, &vl);
    if (acc) {
        RedisModule_StringAppendBuffer(ctx, *acc, " ", 1);
        RedisModule_StringAppendBuffer(ctx, *acc, fp, fl);
        RedisModule_StringAppendBuffer(ctx, *acc, "=", 1);
        RedisModule_StringAppendBuffer(ctx, *acc, vp, vl);
    } else {
        RedisModuleString *s = RedisModule_CreateStringPrintf(ctx, "%.*s=%.*s", (int)fl, fp, (int)vl, vp);
        RedisModule_ReplyWithString(ctx, s);
        RedisModule_FreeString(ctx, s);
    }
    RedisModule_FreeString(ctx, f);
    RedisModule_FreeString(ctx, v);
    return 1;
}

static void replyWalk(RedisModuleCtx *ctx, RedisModuleKey *key) {
    RedisModuleStreamID id;
    long nf, n = 0;
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    while (n < 1000 && RedisModule_StreamIteratorNextID(key, &id, &nf) == REDISMODULE_OK) {
        RedisModuleString *line = RedisModule_CreateStringFromStreamID(ctx, &id);
        while (nextField(ctx, key, &line)) {
        }
        RedisModule_ReplyWithString(ctx, line);
        RedisModule_FreeString(ctx, line);
        n++;
    }
    RedisModule_ReplySetArrayLength(ctx, n);
}

static int opAdd(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **argv, int argc, int *j) {
    long long flags, n;
    RedisModuleStreamID id, *idp;
    if (argc - *j < 3 || !intArg(argv[*j], &flags) || !intArg(argv[*j + 2], &n) || n < 0 || argc - *j - 3 < n * 2)
        return 0;
    int got = idArg(argv[*j + 1], &id, &idp);
    RedisModuleString **fv = &argv[*j + 3];
    *j += 3 + (int)n * 2;
    if (got < 0) return RedisModule_ReplyWithSimpleString(ctx, "BADID"), 1;
    if (RedisModule_StreamAdd(key, (int)flags, idp, n ? fv : NULL, n) != REDISMODULE_OK) return replyErrno(ctx), 1;
    if (idp == NULL) return RedisModule_ReplyWithSimpleString(ctx, "OK"), 1;
    return replyID(ctx, idp), 1;
}

static int opStart(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **argv, int argc, int *j) {
    long long flags;
    RedisModuleStreamID from, to, *fromp, *top;
    if (argc - *j < 3 || !intArg(argv[*j], &flags)) return 0;
    int a = idArg(argv[*j + 1], &from, &fromp), b = idArg(argv[*j + 2], &to, &top);
    *j += 3;
    if (a < 0 || b < 0) return RedisModule_ReplyWithSimpleString(ctx, "BADID"), 1;
    return replyRc(ctx, RedisModule_StreamIteratorStart(key, (int)flags, fromp, top)), 1;
}

static int opTrim(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **argv, int argc, int *j, int byid) {
    long long flags, n = 0, removed;
    RedisModuleStreamID id, *idp = NULL;
    if (argc - *j < 2 || !intArg(argv[*j], &flags)) return 0;
    if (byid ? idArg(argv[*j + 1], &id, &idp) < 0 : !intArg(argv[*j + 1], &n)) return 0;
    *j += 2;
    removed = byid ? RedisModule_StreamTrimByID(key, (int)flags, idp) : RedisModule_StreamTrimByLength(key, (int)flags, n);
    return (removed < 0 ? replyErrno(ctx) : RedisModule_ReplyWithLongLong(ctx, removed)), 1;
}

static int opNext(RedisModuleCtx *ctx, RedisModuleKey *key) {
    RedisModuleStreamID id;
    long nf = -1;
    if (RedisModule_StreamIteratorNextID(key, &id, &nf) != REDISMODULE_OK) return replyErrno(ctx);
    RedisModuleString *s = RedisModule_CreateStringPrintf(ctx, "%llu-%llu %ld", (unsigned long long)id.ms,
                                                          (unsigned long long)id.seq, nf);
    RedisModule_ReplyWithString(ctx, s);
    RedisModule_FreeString(ctx, s);
    return REDISMODULE_OK;
}

/* One op at argv[*j]; advances *j past its arguments. 0 on a bad op. */
static int runOp(RedisModuleCtx *ctx, RedisModuleKey *key, RedisModuleString **argv, int argc, int *j) {
    RedisModuleString *op = argv[(*j)++];
    RedisModuleStreamID id, *idp;
    if (argIs(op, "add")) return opAdd(ctx, key, argv, argc, j);
    if (argIs(op, "start")) return opStart(ctx, key, argv, argc, j);
    if (argIs(op, "tlen") || argIs(op, "tid")) return opTrim(ctx, key, argv, argc, j, argIs(op, "tid"));
    if (argIs(op, "del") || argIs(op, "id")) {
        if (*j >= argc) return 0;
        int got = idArg(argv[(*j)++], &id, &idp);
        if (got < 0) return RedisModule_ReplyWithSimpleString(ctx, "BADID"), 1;
        if (argIs(op, "id")) return (idp ? replyID(ctx, idp) : RedisModule_ReplyWithSimpleString(ctx, "null")), 1;
        return replyRc(ctx, RedisModule_StreamDelete(key, idp)), 1;
    }
    if (argIs(op, "stop")) replyRc(ctx, RedisModule_StreamIteratorStop(key));
    else if (argIs(op, "next")) opNext(ctx, key);
    else if (argIs(op, "field")) {
        if (!nextField(ctx, key, NULL)) replyErrno(ctx);
    } else if (argIs(op, "idel")) replyRc(ctx, RedisModule_StreamIteratorDelete(key));
    else if (argIs(op, "walk")) replyWalk(ctx, key);
    else return 0;
    return 1;
}

static int cmdRun(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 4) return RedisModule_WrongArity(ctx);
    int mode = 0;
    if (strchr(RedisModule_StringPtrLen(argv[2], NULL), 'r')) mode |= REDISMODULE_READ;
    if (strchr(RedisModule_StringPtrLen(argv[2], NULL), 'w')) mode |= REDISMODULE_WRITE;
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], mode);
    RedisModule_ReplyWithArray(ctx, REDISMODULE_POSTPONED_LEN);
    long replies = 0;
    int j = 3;
    while (j < argc) {
        replies++;
        if (!runOp(ctx, key, argv, argc, &j)) {
            RedisModule_ReplyWithSimpleString(ctx, "BADOP");
            break;
        }
    }
    RedisModule_ReplySetArrayLength(ctx, replies);
    if (key) RedisModule_CloseKey(key);
    return REDISMODULE_OK;
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mstream", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mstream.run", cmdRun, "write", 1, 1, 1) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
