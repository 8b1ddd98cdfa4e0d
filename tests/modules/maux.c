/* maux.c -- a test module with aux data, for tests/unit/moduleapi-aux.tcl:
 * two globals, "before" and "after", that its type's aux_save writes into
 * the RDB before and after the keys, and aux_load reads back. The same .so
 * loads into this server and into Redis 7.0.15, so dumps with aux data can
 * cross between them.
 *
 * Load arguments: "triggers <n>" (aux_save_triggers: 1 before, 2 after,
 * 3 both; default 3), "failload" (aux_load fails, to test a load that the
 * module refuses), "noauxload" (the type has aux_save but no aux_load).
 */
#include "redismodule.h"
#include <string.h>
#include <strings.h>

static RedisModuleString *globals[2]; /* [0] before the keys, [1] after */
static int fail_load;

static int slotOf(const char *which) {
    if (!strcasecmp(which, "before")) return 0;
    if (!strcasecmp(which, "after")) return 1;
    return -1;
}

static void auxSave(RedisModuleIO *io, int when) {
    int i = when == REDISMODULE_AUX_BEFORE_RDB ? 0 : 1;
    /* a marker, then the value or an empty string */
    RedisModule_SaveUnsigned(io, (uint64_t)(1000 + i));
    if (globals[i]) RedisModule_SaveString(io, globals[i]);
    else RedisModule_SaveStringBuffer(io, "", 0);
}

static int auxLoad(RedisModuleIO *io, int encver, int when) {
    (void)encver;
    if (fail_load) return REDISMODULE_ERR;
    int i = when == REDISMODULE_AUX_BEFORE_RDB ? 0 : 1;
    uint64_t marker = RedisModule_LoadUnsigned(io);
    RedisModuleString *s = RedisModule_LoadString(io);
    if (RedisModule_IsIOError(io) || marker != (uint64_t)(1000 + i)) {
        if (s) RedisModule_FreeString(NULL, s);
        return REDISMODULE_ERR;
    }
    if (globals[i]) RedisModule_FreeString(NULL, globals[i]);
    globals[i] = s;
    return REDISMODULE_OK;
}

static void *valueLoad(RedisModuleIO *io, int encver) {
    (void)io;
    (void)encver;
    return NULL; /* the type never has values */
}

static void valueSave(RedisModuleIO *io, void *value) {
    (void)io;
    (void)value;
}

static void valueFree(void *value) { (void)value; }

/* maux.set before|after value */
static int cmdSet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 3) return RedisModule_WrongArity(ctx);
    int i = slotOf(RedisModule_StringPtrLen(argv[1], NULL));
    if (i < 0) return RedisModule_ReplyWithError(ctx, "ERR before or after");
    if (globals[i]) RedisModule_FreeString(NULL, globals[i]);
    RedisModule_RetainString(NULL, argv[2]);
    globals[i] = argv[2];
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

/* maux.get before|after: the value, "" when not set */
static int cmdGet(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc != 2) return RedisModule_WrongArity(ctx);
    int i = slotOf(RedisModule_StringPtrLen(argv[1], NULL));
    if (i < 0) return RedisModule_ReplyWithError(ctx, "ERR before or after");
    if (globals[i] == NULL) return RedisModule_ReplyWithStringBuffer(ctx, "", 0);
    return RedisModule_ReplyWithString(ctx, globals[i]);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (RedisModule_Init(ctx, "maux", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    long long triggers = REDISMODULE_AUX_BEFORE_RDB | REDISMODULE_AUX_AFTER_RDB;
    int no_aux_load = 0;
    for (int i = 0; i < argc; i++) {
        const char *a = RedisModule_StringPtrLen(argv[i], NULL);
        if (!strcasecmp(a, "triggers") && i + 1 < argc) RedisModule_StringToLongLong(argv[++i], &triggers);
        else if (!strcasecmp(a, "failload")) fail_load = 1;
        else if (!strcasecmp(a, "noauxload")) no_aux_load = 1;
    }
    RedisModuleTypeMethods tm = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = valueLoad,
        .rdb_save = valueSave,
        .free = valueFree,
        .aux_load = no_aux_load ? NULL : auxLoad,
        .aux_save = auxSave,
        .aux_save_triggers = (int)triggers,
    };
    if (RedisModule_CreateDataType(ctx, "mauxglobl", 0, &tm) == NULL) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "maux.set", cmdSet, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "maux.get", cmdGet, "readonly", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
