/* mdefrag.c -- a test module for the defrag API (RegisterDefragFunc,
 * DefragAlloc, DefragRedisModuleString, DefragShouldStop,
 * DefragCursorSet/Get, GetKeyNameFromDefragCtx, GetDbIdFromDefragCtx) and a
 * type's defrag callback, used by tests/unit/moduleapi-defrag.tcl. Built
 * against Redis 7.0's redismodule.h by utils/build-test-modules.sh, so the
 * same .so runs in Redis 7.0.15.
 *
 * The type "mdefrag-A" holds n small blocks; its free effort is n, so a
 * value with more than active-defrag-max-scan-fields blocks is defragged
 * later, over slices, with a cursor. A global array of blocks and a string
 * are moved by the RegisterDefragFunc callback.
 * MDEFRAG.CREATE key n: a value of n blocks.
 * MDEFRAG.STATS: [global calls, small-value calls, big-value calls (with a
 *   cursor), blocks moved, calls whose key name or db was wrong, cursor
 *   misuse answered OK]. */
#include "redismodule.h"

#include <string.h>

typedef struct {
    size_t n;
    void **blocks;
} dvalue;

static RedisModuleType *dtype;
static void *globals[64];
static RedisModuleString *global_str;
static long long global_calls, small_calls, big_calls, moved, wrong_ctx, cursor_misuse;

static void moveBlocks(RedisModuleDefragCtx *ctx, void **blocks, size_t from, size_t to) {
    for (size_t j = from; j < to; j++) {
        void *m = RedisModule_DefragAlloc(ctx, blocks[j]);
        if (m) {
            blocks[j] = m;
            moved++;
        }
    }
}

static void defragGlobals(RedisModuleDefragCtx *ctx) {
    global_calls++;
    unsigned long c;
    if (RedisModule_DefragCursorGet(ctx, &c) == REDISMODULE_OK) cursor_misuse++; /* no cursor here */
    if (RedisModule_GetKeyNameFromDefragCtx(ctx) != NULL || RedisModule_GetDbIdFromDefragCtx(ctx) != -1) wrong_ctx++;
    moveBlocks(ctx, globals, 0, 64);
    RedisModuleString *s = RedisModule_DefragRedisModuleString(ctx, global_str);
    if (s) global_str = s;
}

static int defragValue(RedisModuleDefragCtx *ctx, RedisModuleString *key, void **value) {
    const RedisModuleString *name = RedisModule_GetKeyNameFromDefragCtx(ctx);
    if (name == NULL || RedisModule_StringCompare((RedisModuleString *)name, key) != 0 ||
        RedisModule_GetDbIdFromDefragCtx(ctx) != 0)
        wrong_ctx++;
    dvalue *v = *value;
    dvalue *mv = RedisModule_DefragAlloc(ctx, v);
    if (mv) *value = v = mv;
    unsigned long cursor = 0;
    if (RedisModule_DefragCursorGet(ctx, &cursor) != REDISMODULE_OK) { /* a small value: all at once */
        small_calls++;
        void **b = RedisModule_DefragAlloc(ctx, v->blocks);
        if (b) v->blocks = b;
        moveBlocks(ctx, v->blocks, 0, v->n);
        return 0;
    }
    big_calls++;
    if (cursor == 0) {
        void **b = RedisModule_DefragAlloc(ctx, v->blocks);
        if (b) v->blocks = b;
    }
    while (cursor < v->n) {
        size_t end = cursor + 16 < v->n ? cursor + 16 : v->n;
        moveBlocks(ctx, v->blocks, cursor, end);
        cursor = end;
        if (cursor < v->n && RedisModule_DefragShouldStop(ctx)) {
            RedisModule_DefragCursorSet(ctx, cursor);
            return 1;
        }
    }
    return 0;
}

static size_t freeEffort(RedisModuleString *key, const void *value) {
    (void)key;
    return ((const dvalue *)value)->n;
}

static void freeValue(void *value) {
    dvalue *v = value;
    for (size_t j = 0; j < v->n; j++) RedisModule_Free(v->blocks[j]);
    RedisModule_Free(v->blocks);
    RedisModule_Free(v);
}

static int createCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    long long n;
    if (argc != 3 || RedisModule_StringToLongLong(argv[2], &n) != REDISMODULE_OK || n < 0)
        return RedisModule_WrongArity(ctx);
    dvalue *v = RedisModule_Alloc(sizeof(*v));
    v->n = (size_t)n;
    v->blocks = RedisModule_Alloc(sizeof(void *) * (v->n ? v->n : 1));
    for (size_t j = 0; j < v->n; j++) v->blocks[j] = RedisModule_Alloc(48);
    RedisModuleKey *key = RedisModule_OpenKey(ctx, argv[1], REDISMODULE_WRITE);
    RedisModule_ModuleTypeSetValue(key, dtype, v);
    RedisModule_CloseKey(key);
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int statsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    long long stats[] = {global_calls, small_calls, big_calls, moved, wrong_ctx, cursor_misuse};
    RedisModule_ReplyWithArray(ctx, 6);
    for (int j = 0; j < 6; j++) RedisModule_ReplyWithLongLong(ctx, stats[j]);
    return REDISMODULE_OK;
}

static void *rdbLoad(RedisModuleIO *io, int encver) {
    (void)io;
    (void)encver;
    return NULL; /* never saved in the test */
}

static void rdbSave(RedisModuleIO *io, void *value) {
    (void)value;
    RedisModule_SaveUnsigned(io, 0);
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mdefrag", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    RedisModuleTypeMethods tm = {
        .version = REDISMODULE_TYPE_METHOD_VERSION,
        .rdb_load = rdbLoad,
        .rdb_save = rdbSave,
        .free = freeValue,
        .free_effort = freeEffort,
        .defrag = defragValue,
    };
    if ((dtype = RedisModule_CreateDataType(ctx, "mdefrag-A", 0, &tm)) == NULL) return REDISMODULE_ERR;
    for (int j = 0; j < 64; j++) globals[j] = RedisModule_Alloc(48);
    global_str = RedisModule_CreateString(NULL, "a global string, raw: longer than forty-four bytes", 50);
    if (RedisModule_RegisterDefragFunc(ctx, defragGlobals) != REDISMODULE_OK ||
        RedisModule_CreateCommand(ctx, "mdefrag.create", createCmd, "write", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mdefrag.stats", statsCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    return REDISMODULE_OK;
}
