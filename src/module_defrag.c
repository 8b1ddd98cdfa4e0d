/* module_defrag.c -- the defrag API of Redis 7.0 modules: RegisterDefragFunc
 * (a module's own globals, once per active-defrag pass), and what a defrag
 * callback calls -- DefragAlloc, DefragRedisModuleString, DefragShouldStop,
 * DefragCursorSet/Get, GetKeyNameFromDefragCtx, GetDbIdFromDefragCtx.
 *
 * defrag.c drives it: the global callbacks first in each pass
 * (moduleDefragGlobals), each module value's type callback as its key is
 * walked (module_type.c's moduleDefragValue/moduleDefragLater).
 *
 * Design decisions, each Redis 7.0's:
 *  - DefragAlloc hands back the block's new address, or NULL when it stays;
 *    the old block is freed already, so the module must repoint at once.
 *  - A string is moved only when the module holds its only reference.
 *  - DefragShouldStop is true once the slice's time is spent, for a value
 *    done over several slices (it has a cursor); never for the others, which
 *    are small enough to finish.
 *  - The cursor functions fail (ERR) for a callback without a cursor. */
#include "module_int.h"

typedef void (*moduleDefragFunc)(moduleDefragCtx *ctx);

static int RM_RegisterDefragFunc(RedisModuleCtx *ctx, moduleDefragFunc cb) {
    if (ctx == NULL || ctx->module == NULL) return MODAPI_ERR;
    void *fn;
    memcpy(&fn, &cb, sizeof fn);
    ctx->module->defrag_cb = fn;
    return MODAPI_OK;
}

void moduleDefragGlobals(void) {
    list *modules = moduleLoadedList();
    if (modules == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(modules, &li);
    while ((ln = listNext(&li))) {
        module *m = listNodeValue(ln);
        if (m->defrag_cb == NULL) continue;
        moduleDefragFunc cb;
        memcpy(&cb, &m->defrag_cb, sizeof cb);
        moduleDefragCtx ctx = {0, 0, NULL, NULL, -1};
        cb(&ctx);
    }
}

static void *RM_DefragAlloc(moduleDefragCtx *ctx, void *ptr) {
    void *moved = ptr ? defragMoveBlock(ptr) : NULL;
    if (moved) ctx->defragged++;
    return moved;
}

/* The string object, and its sds when separate (RAW), to better places:
 * the object's new address, or NULL when the object itself stayed (its sds
 * may still have moved: the object points at it). */
static robj *RM_DefragRedisModuleString(moduleDefragCtx *ctx, robj *str) {
    if (str == NULL || str->refcount != 1 || str->type != OBJ_STRING) return NULL;
    if (str->encoding == OBJ_ENCODING_RAW) {
        char *block = sdsAllocPtr(str->ptr);
        size_t offset = (size_t)((char *)str->ptr - block);
        char *moved = RM_DefragAlloc(ctx, block);
        if (moved) str->ptr = moved + offset;
    }
    uintptr_t base = (uintptr_t)str, value = (uintptr_t)str->ptr;
    int embedded = str->encoding == OBJ_ENCODING_EMBSTR;
    robj *moved = RM_DefragAlloc(ctx, str);
    if (moved && embedded) moved->ptr = (char *)moved + (value - base);
    return moved;
}

static int RM_DefragShouldStop(moduleDefragCtx *ctx) { return ctx->endtime != 0 && monotonicUs() > ctx->endtime; }

static int RM_DefragCursorSet(moduleDefragCtx *ctx, unsigned long cursor) {
    if (ctx->cursor == NULL) return MODAPI_ERR;
    *ctx->cursor = cursor;
    return MODAPI_OK;
}

static int RM_DefragCursorGet(moduleDefragCtx *ctx, unsigned long *cursor) {
    if (ctx->cursor == NULL) return MODAPI_ERR;
    *cursor = *ctx->cursor;
    return MODAPI_OK;
}

static const robj *RM_GetKeyNameFromDefragCtx(moduleDefragCtx *ctx) { return ctx->key; }
static int RM_GetDbIdFromDefragCtx(moduleDefragCtx *ctx) { return ctx->dbid; }

static const moduleApiEntry defrag_api[] = {
    MODULE_API(RegisterDefragFunc), MODULE_API(DefragAlloc),         MODULE_API(DefragRedisModuleString),
    MODULE_API(DefragShouldStop),   MODULE_API(DefragCursorSet),     MODULE_API(DefragCursorGet),
    MODULE_API(GetKeyNameFromDefragCtx), MODULE_API(GetDbIdFromDefragCtx),
};

int moduleDefragGetApi(const char *name, void *target) { return MODULE_API_LOOKUP(defrag_api, name, target); }
