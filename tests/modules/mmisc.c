/* mmisc.c -- a test module for the small functions of Redis 7.0's module API
 * (src/module_misc.c), used by tests/unit/moduleapi-misc.tcl. Built against
 * Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the same .so
 * runs in Redis 7.0.15. Failures answer "ERR failed" (or "ERR errno <name>").
 *
 * MMISC.GETABSEXP key, MMISC.SETABSEXP key ms [RO]: GetAbsExpire/SetAbsExpire
 *   (RO opens the key read-only).
 * MMISC.GETLRU key, MMISC.SETLRU key ms, MMISC.GETLFU key, MMISC.SETLFU key n.
 * MMISC.KEYINFO key: {GetKeyNameFromModuleKey, GetDbIdFromModuleKey} (a missing key
 *   opens as NULL: {null -1}).
 * Keys are opened with REDISMODULE_OPEN_KEY_NOTOUCH, and for writing except by
 *   KEYINFO and SETABSEXP's RO (7.0.15 crashes on the NULL handle a missing
 *   key opened for reading is).
 * MMISC.SIGNAL key: SignalModifiedKey.
 * MMISC.RANDHEX n: GetRandomHexChars; MMISC.RANDBYTES n: how many distinct
 *   byte values GetRandomBytes gave.
 * MMISC.MALLOC n: 1 if MallocSize and MallocUsableSize of an n-byte Alloc are
 *   both at least n. MMISC.STRSIZE s: 1 if MallocSizeString(s) exceeds s's length.
 * MMISC.DICTSIZE n: MallocSizeDict of a dict holding n keys.
 * MMISC.RESET restart_aof async: ResetDataset.
 * MMISC.SETTYPE key n: a value of the module's type "mmisctype", whose rdb_save
 *   logs "mmisc saving <n> (LogIOError)" with LogIOError at warning level.
 * MMISC.MEMRATIO: GetUsedMemoryRatio as a double.
 * MMISC.CTXFLAGS: GetContextFlags. MMISC.RETAINAPPEND: an auto-memory string
 *   "foo", RetainString, StringAppendBuffer "bar": the string.
 * MMISC.RESP3CALL key: HGETALL through Call with "3", then ReplyWithCallReply;
 *   "refused" when that returns an error (a RESP2 client).
 * MMISC.PUBLISH ch msg, MMISC.SPUBLISH ch msg: the receivers.
 * MMISC.GETNAME id: GetClientNameById (null for NULL). MMISC.SETNAME id [name]:
 *   SetClientNameById (no name: NULL).
 * MMISC.CLIENTINFO id [version|NULL]: {flags id addr port db} of GetClientInfoById,
 *   or OK for NULL.
 * MMISC.LATENCY event ms: LatencyAddSample. MMISC.AVOID: AvoidReplicaTraffic.
 * MMISC.TYPEVER: GetTypeMethodVersion.
 * MMISC.STRSET key value: StringSet on a key opened for writing, closed by
 *   CloseKey. MMISC.OPENW key: the key opened for writing, nothing written,
 *   left to auto memory. MMISC.OPTIONS n: SetModuleOptions(n). */
#include "redismodule.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

static int failed(RedisModuleCtx *ctx) { return RedisModule_ReplyWithError(ctx, "ERR failed"); }

static int replyErrno(RedisModuleCtx *ctx) {
    switch (errno) {
    case ENOENT: return RedisModule_ReplyWithError(ctx, "ERR errno ENOENT");
    case EINVAL: return RedisModule_ReplyWithError(ctx, "ERR errno EINVAL");
    default: return RedisModule_ReplyWithError(ctx, "ERR errno other");
    }
}

/* Opened without touching the access clock the LRU/LFU commands look at. */
static RedisModuleKey *openKey(RedisModuleCtx *ctx, RedisModuleString *name, int write) {
    return RedisModule_OpenKey(ctx, name, REDISMODULE_READ | REDISMODULE_OPEN_KEY_NOTOUCH | (write ? REDISMODULE_WRITE : 0));
}

static int getNumber(RedisModuleCtx *ctx, RedisModuleString *s, long long *n) {
    if (RedisModule_StringToLongLong(s, n) == REDISMODULE_OK) return 1;
    RedisModule_ReplyWithError(ctx, "ERR not a number");
    return 0;
}

static int getAbsExp(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *k = openKey(ctx, argv[1], 1);
    long long when = RedisModule_GetAbsExpire(k);
    RedisModule_CloseKey(k);
    return RedisModule_ReplyWithLongLong(ctx, when);
}

static int setAbsExp(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long when;
    if (argc != 3 && argc != 4) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[2], &when)) return REDISMODULE_OK;
    RedisModuleKey *k = openKey(ctx, argv[1], argc == 3);
    int r = RedisModule_SetAbsExpire(k, when);
    RedisModule_CloseKey(k);
    return r == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : failed(ctx);
}

/* GETLRU/GETLFU: which = 0 LRU, 1 LFU. */
static int getClock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int which) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *k = openKey(ctx, argv[1], 1);
    long long v = -7;
    int r = which ? RedisModule_GetLFU(k, &v) : RedisModule_GetLRU(k, &v);
    RedisModule_CloseKey(k);
    if (r != REDISMODULE_OK) {
        char buf[64];
        snprintf(buf, sizeof buf, "ERR failed %lld", v);
        return RedisModule_ReplyWithError(ctx, buf);
    }
    return RedisModule_ReplyWithLongLong(ctx, v);
}

static int setClock(RedisModuleCtx *ctx, RedisModuleString **argv, int argc, int which) {
    long long v;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[2], &v)) return REDISMODULE_OK;
    RedisModuleKey *k = openKey(ctx, argv[1], 1);
    int r = which ? RedisModule_SetLFU(k, v) : RedisModule_SetLRU(k, v);
    RedisModule_CloseKey(k);
    return r == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : failed(ctx);
}

static int getLru(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) { return getClock(ctx, argv, argc, 0); }
static int getLfu(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) { return getClock(ctx, argv, argc, 1); }
static int setLru(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) { return setClock(ctx, argv, argc, 0); }
static int setLfu(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) { return setClock(ctx, argv, argc, 1); }

static int keyInfo(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleKey *k = openKey(ctx, argv[1], 0);
    RedisModule_ReplyWithArray(ctx, 2);
    RedisModuleString *name = (void *)RedisModule_GetKeyNameFromModuleKey(k); /* the API hands it back const */
    if (name) RedisModule_ReplyWithString(ctx, name);
    else RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithLongLong(ctx, RedisModule_GetDbIdFromModuleKey(k));
    RedisModule_CloseKey(k);
    return REDISMODULE_OK;
}

static int signalKey(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    int r = RedisModule_SignalModifiedKey(ctx, argv[1]);
    return r == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : failed(ctx);
}

static int randHex(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &n)) return REDISMODULE_OK;
    if (n < 0 || n > 4096) return failed(ctx);
    char buf[4096];
    RedisModule_GetRandomHexChars(buf, (size_t)n);
    return RedisModule_ReplyWithStringBuffer(ctx, buf, (size_t)n);
}

static int randBytes(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n, distinct = 0;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &n)) return REDISMODULE_OK;
    if (n < 0 || n > 4096) return failed(ctx);
    unsigned char buf[4096];
    char seen[256] = {0};
    RedisModule_GetRandomBytes(buf, (size_t)n);
    for (long long j = 0; j < n; j++)
        if (!seen[buf[j]]) seen[buf[j]] = 1, distinct++;
    return RedisModule_ReplyWithLongLong(ctx, distinct);
}

static int mallocSizes(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &n)) return REDISMODULE_OK;
    if (n < 1 || n > 1 << 20) return failed(ctx);
    void *p = RedisModule_Alloc((size_t)n);
    int ok = RedisModule_MallocSize(p) >= (size_t)n && RedisModule_MallocUsableSize(p) >= (size_t)n;
    RedisModule_Free(p);
    return RedisModule_ReplyWithLongLong(ctx, ok);
}

static int strSize(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    size_t len;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_StringPtrLen(argv[1], &len);
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_MallocSizeString(argv[1]) > len);
}

static int dictSize(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &n)) return REDISMODULE_OK;
    RedisModuleDict *d = RedisModule_CreateDict(NULL);
    char key[32];
    for (long long j = 0; j < n; j++) {
        int len = snprintf(key, sizeof key, "key:%lld", j);
        RedisModule_DictSetC(d, key, (size_t)len, NULL);
    }
    size_t size = RedisModule_MallocSizeDict(d);
    RedisModule_FreeDict(NULL, d);
    return RedisModule_ReplyWithLongLong(ctx, (long long)size);
}

static int resetDataset(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long restart_aof, async;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &restart_aof) || !getNumber(ctx, argv[2], &async)) return REDISMODULE_OK;
    RedisModule_ResetDataset((int)restart_aof, (int)async);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* A data type whose rdb_save logs through LogIOError. */
static RedisModuleType *logType;

static void *logTypeLoad(RedisModuleIO *io, int encver) {
    (void)encver;
    long long *v = RedisModule_Alloc(sizeof *v);
    *v = (long long)RedisModule_LoadSigned(io);
    return v;
}

static void logTypeSave(RedisModuleIO *io, void *value) {
    const long long *v = value;
    RedisModule_SaveSigned(io, *v);
    RedisModule_LogIOError(io, "warning", "mmisc saving %lld (%s)", *v, "LogIOError");
}

static void logTypeFree(void *value) { RedisModule_Free(value); }

static int setType(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[2], &n)) return REDISMODULE_OK;
    RedisModuleKey *k = openKey(ctx, argv[1], 1);
    long long *v = RedisModule_Alloc(sizeof *v);
    *v = n;
    int r = RedisModule_ModuleTypeSetValue(k, logType, v);
    RedisModule_CloseKey(k);
    if (r != REDISMODULE_OK) RedisModule_Free(v);
    return r == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : failed(ctx);
}

static int memRatio(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    if (argc != 1) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithDouble(ctx, RedisModule_GetUsedMemoryRatio());
}

static int publish(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_PublishMessage(ctx, argv[1], argv[2]));
}

static int spublish(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_PublishMessageShard(ctx, argv[1], argv[2]));
}

static int getName(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long id;
    if (argc != 2) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &id)) return REDISMODULE_OK;
    RedisModuleString *name = RedisModule_GetClientNameById(ctx, (uint64_t)id);
    if (name == NULL) return RedisModule_ReplyWithNull(ctx);
    RedisModule_ReplyWithString(ctx, name);
    RedisModule_FreeString(ctx, name);
    return REDISMODULE_OK;
}

static int setName(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long id;
    if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &id)) return REDISMODULE_OK;
    errno = 0;
    if (RedisModule_SetClientNameById((uint64_t)id, argc == 3 ? argv[2] : NULL) != REDISMODULE_OK)
        return replyErrno(ctx);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int clientInfo(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long id, version = 1;
    if (argc != 2 && argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[1], &id)) return REDISMODULE_OK;
    if (argc == 3 && !strcmp(RedisModule_StringPtrLen(argv[2], NULL), "NULL")) {
        int r = RedisModule_GetClientInfoById(NULL, (uint64_t)id);
        return r == REDISMODULE_OK ? RedisModule_ReplyWithSimpleString(ctx, "OK") : failed(ctx);
    }
    if (argc == 3 && !getNumber(ctx, argv[2], &version)) return REDISMODULE_OK;
    RedisModuleClientInfo ci;
    memset(&ci, 0, sizeof ci);
    ci.version = (uint64_t)version;
    if (RedisModule_GetClientInfoById(&ci, (uint64_t)id) != REDISMODULE_OK) return failed(ctx);
    RedisModule_ReplyWithArray(ctx, 5);
    RedisModule_ReplyWithLongLong(ctx, (long long)ci.flags);
    RedisModule_ReplyWithLongLong(ctx, (long long)ci.id);
    RedisModule_ReplyWithCString(ctx, ci.addr);
    RedisModule_ReplyWithLongLong(ctx, ci.port);
    RedisModule_ReplyWithLongLong(ctx, ci.db);
    return REDISMODULE_OK;
}

static int latency(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long ms;
    if (argc != 3) return RedisModule_WrongArity(ctx);
    if (!getNumber(ctx, argv[2], &ms)) return REDISMODULE_OK;
    RedisModule_LatencyAddSample(RedisModule_StringPtrLen(argv[1], NULL), ms);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int avoid(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_AvoidReplicaTraffic());
}

static int typeVer(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_GetTypeMethodVersion());
}

static int strSet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_WRITE);
    int res = RedisModule_StringSet(key, argv[2]);
    RedisModule_CloseKey(key);
    if (res != REDISMODULE_OK) return RedisModule_ReplyWithError(ctx, "ERR failed");
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int openWrite(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModule_AutoMemory(ctx);
    RedisModule_OpenKey(ctx, argv[1], REDISMODULE_WRITE);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int setOptions(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 2 || RedisModule_StringToLongLong(argv[1], &n) != REDISMODULE_OK)
        return RedisModule_WrongArity(ctx);
    RedisModule_SetModuleOptions(ctx, (int)n);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int ctxFlags(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    return RedisModule_ReplyWithLongLong(ctx, RedisModule_GetContextFlags(ctx));
}

static int retainAppend(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    RedisModule_AutoMemory(ctx);
    RedisModuleString *s = RedisModule_CreateString(ctx, "foo", 3);
    RedisModule_RetainString(ctx, s);
    if (RedisModule_StringAppendBuffer(ctx, s, "bar", 3) != REDISMODULE_OK) {
        RedisModule_FreeString(ctx, s);
        return RedisModule_ReplyWithError(ctx, "ERR failed");
    }
    RedisModule_ReplyWithString(ctx, s);
    RedisModule_FreeString(ctx, s);
    return REDISMODULE_OK;
}

static int resp3Call(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    RedisModuleCallReply *r = RedisModule_Call(ctx, "HGETALL", "3s", argv[1]);
    /* looked at first: Redis 7.0 sees the RESP3 types of a reply once parsed */
    if (r == NULL || RedisModule_CallReplyType(r) != REDISMODULE_REPLY_MAP) {
        if (r) RedisModule_FreeCallReply(r);
        return RedisModule_ReplyWithError(ctx, "ERR failed");
    }
    if (RedisModule_ReplyWithCallReply(ctx, r) != REDISMODULE_OK) RedisModule_ReplyWithSimpleString(ctx, "refused");
    RedisModule_FreeCallReply(r);
    return REDISMODULE_OK;
}

typedef struct {
    const char *name;
    RedisModuleCmdFunc fn;
    const char *flags;
    int key;
} cmdDef;

static const cmdDef cmds[] = {
    {"mmisc.getabsexp", getAbsExp, "readonly", 1}, {"mmisc.setabsexp", setAbsExp, "write", 1},
    {"mmisc.getlru", getLru, "readonly", 1},       {"mmisc.setlru", setLru, "write", 1},
    {"mmisc.getlfu", getLfu, "readonly", 1},       {"mmisc.setlfu", setLfu, "write", 1},
    {"mmisc.keyinfo", keyInfo, "readonly", 1},     {"mmisc.signal", signalKey, "write", 1},
    {"mmisc.randhex", randHex, "", 0},             {"mmisc.randbytes", randBytes, "", 0},
    {"mmisc.malloc", mallocSizes, "", 0},          {"mmisc.strsize", strSize, "", 0},
    {"mmisc.memratio", memRatio, "", 0},           {"mmisc.publish", publish, "pubsub", 0},
    {"mmisc.spublish", spublish, "pubsub", 0},     {"mmisc.getname", getName, "", 0},
    {"mmisc.setname", setName, "", 0},             {"mmisc.clientinfo", clientInfo, "", 0},
    {"mmisc.latency", latency, "", 0},             {"mmisc.avoid", avoid, "", 0},
    {"mmisc.typever", typeVer, "", 0},             {"mmisc.dictsize", dictSize, "", 0},
    {"mmisc.reset", resetDataset, "write", 0},     {"mmisc.settype", setType, "write", 1},
    {"mmisc.strset", strSet, "write", 1},          {"mmisc.openw", openWrite, "write", 1},
    {"mmisc.options", setOptions, "", 0},          {"mmisc.ctxflags", ctxFlags, "", 0},
    {"mmisc.retainappend", retainAppend, "", 0},   {"mmisc.resp3call", resp3Call, "readonly", 1},
};

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv, (void)argc;
    if (RedisModule_Init(ctx, "mmisc", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    RedisModuleTypeMethods tm = {.version = REDISMODULE_TYPE_METHOD_VERSION,
                                 .rdb_load = logTypeLoad,
                                 .rdb_save = logTypeSave,
                                 .free = logTypeFree};
    logType = RedisModule_CreateDataType(ctx, "mmisctype", 0, &tm);
    if (logType == NULL) return REDISMODULE_ERR;
    for (size_t j = 0; j < sizeof cmds / sizeof cmds[0]; j++) {
        const cmdDef *d = &cmds[j];
        if (RedisModule_CreateCommand(ctx, d->name, d->fn, d->flags, d->key, d->key, d->key) == REDISMODULE_ERR)
            return REDISMODULE_ERR;
    }
    return REDISMODULE_OK;
}
