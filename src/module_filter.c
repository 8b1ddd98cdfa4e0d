/* module_filter.c -- command filters: RegisterCommandFilter,
 * UnregisterCommandFilter and the CommandFilterArg* functions.
 *
 * A filter is a module callback that sees, and may rewrite, the arguments of
 * a command before the server looks the command up. As in Redis 7.0 it runs
 * for what goes through processCommand() (clients, the master's stream, the
 * AOF is not: it calls commands directly) and for every module's Call
 * (module_api.c); scripts' redis.call() does not pass it, as in 7.0.
 *
 * Design decisions:
 *  - The filters live in one registration-ordered array; processCommand()
 *    asks moduleCommandFiltersActive() (inline: a load of one int) so a
 *    server without filters pays nothing measurable per command.
 *  - NOSELF: a module's filter is skipped while that module is inside its
 *    own Call (module->in_call, counted by module_api.c's Call), nested
 *    calls included.
 *  - The filter context points at the client's own argv; insertions grow it
 *    with zrealloc and the client takes back the (maybe moved) array and
 *    count afterwards. Inserted and replacing strings become the client's:
 *    they are released with its arguments, as 7.0 documents.
 *  - A filter that deletes every argument leaves nothing to look up:
 *    processCommand() answers an unknown-command error instead of reading
 *    argv[0] (Redis 7.0 would crash).
 *  - A module's filters go when it unloads or fails to load
 *    (moduleFiltersRelease, from module.c). */
#include "module_int.h"

typedef struct RedisModuleCommandFilterCtx moduleFilterCtx;
typedef void (*ModuleFilterFunc)(moduleFilterCtx *fctx);

/* What RegisterCommandFilter returns (opaque to the module). */
typedef struct RedisModuleCommandFilter {
    module *owner;
    ModuleFilterFunc callback;
    int flags;
} moduleFilter;

/* The filter context: the client's argv while the filters run. */
struct RedisModuleCommandFilterCtx {
    robj **argv;
    int argc;
    int argv_len; /* allocated slots */
};

#define MODULE_CMDFILTER_NOSELF (1 << 0) /* REDISMODULE_CMDFILTER_NOSELF */

static moduleFilter **filters; /* registration order */
int moduleCommandFilterCount;   /* their number (server.h: moduleCommandFiltersActive) */

static moduleFilter *RM_RegisterCommandFilter(RedisModuleCtx *ctx, ModuleFilterFunc callback, int flags) {
    if (ctx == NULL || ctx->module == NULL || callback == NULL) return NULL;
    moduleFilter *f = zmalloc(sizeof(*f));
    f->owner = ctx->module;
    f->callback = callback;
    f->flags = flags;
    filters = zrealloc(filters, sizeof(*filters) * (size_t)(moduleCommandFilterCount + 1));
    filters[moduleCommandFilterCount++] = f;
    return f;
}

static void moduleFilterRemoveAt(int pos) {
    zfree(filters[pos]);
    memmove(filters + pos, filters + pos + 1, sizeof(*filters) * (size_t)(moduleCommandFilterCount - pos - 1));
    moduleCommandFilterCount--;
}

/* Only the module that registered a filter may remove it; an unknown
 * (or already removed) handle is an error, never a crash. */
static int RM_UnregisterCommandFilter(RedisModuleCtx *ctx, moduleFilter *filter) {
    for (int j = 0; j < moduleCommandFilterCount; j++) {
        if (filters[j] != filter) continue;
        if (ctx == NULL || filter->owner != ctx->module) return MODAPI_ERR;
        moduleFilterRemoveAt(j);
        return MODAPI_OK;
    }
    return MODAPI_ERR;
}

void moduleFiltersRelease(module *m) {
    for (int j = moduleCommandFilterCount - 1; j >= 0; j--)
        if (filters[j]->owner == m) moduleFilterRemoveAt(j);
    if (moduleCommandFilterCount == 0) {
        zfree(filters);
        filters = NULL;
    }
}

void moduleCallCommandFilters(client *c) {
    moduleFilterCtx fctx = {c->argv, c->argc, c->argv_len};
    /* A callback may unregister filters (its own): walk by index, re-reading
     * the count, so a removal never leaves a dangling pointer behind. */
    for (int j = 0; j < moduleCommandFilterCount; j++) {
        moduleFilter *f = filters[j];
        if ((f->flags & MODULE_CMDFILTER_NOSELF) && f->owner->in_call) continue;
        f->callback(&fctx);
        if (j < moduleCommandFilterCount && filters[j] != f) j--; /* it removed itself: the next moved here */
    }
    c->argv = fctx.argv;
    c->argc = fctx.argc;
    c->argv_len = fctx.argv_len;
}

static int RM_CommandFilterArgsCount(moduleFilterCtx *fctx) { return fctx->argc; }

static robj *RM_CommandFilterArgGet(moduleFilterCtx *fctx, int pos) {
    return pos < 0 || pos >= fctx->argc ? NULL : fctx->argv[pos];
}

/* pos may be argc: the argument is appended. */
static int RM_CommandFilterArgInsert(moduleFilterCtx *fctx, int pos, robj *arg) {
    if (pos < 0 || pos > fctx->argc || arg == NULL) return MODAPI_ERR;
    moduleStringDecode(arg);
    if (fctx->argc + 1 > fctx->argv_len) {
        fctx->argv_len = fctx->argc + 1;
        fctx->argv = zrealloc(fctx->argv, sizeof(robj *) * (size_t)fctx->argv_len);
    }
    memmove(fctx->argv + pos + 1, fctx->argv + pos, sizeof(robj *) * (size_t)(fctx->argc - pos));
    fctx->argv[pos] = arg;
    fctx->argc++;
    return MODAPI_OK;
}

static int RM_CommandFilterArgReplace(moduleFilterCtx *fctx, int pos, robj *arg) {
    if (pos < 0 || pos >= fctx->argc || arg == NULL) return MODAPI_ERR;
    moduleStringDecode(arg);
    decrRefCount(fctx->argv[pos]);
    fctx->argv[pos] = arg;
    return MODAPI_OK;
}

static int RM_CommandFilterArgDelete(moduleFilterCtx *fctx, int pos) {
    if (pos < 0 || pos >= fctx->argc) return MODAPI_ERR;
    decrRefCount(fctx->argv[pos]);
    memmove(fctx->argv + pos, fctx->argv + pos + 1, sizeof(robj *) * (size_t)(fctx->argc - pos - 1));
    fctx->argc--;
    return MODAPI_OK;
}

static const moduleApiEntry filter_api[] = {
    MODULE_API(RegisterCommandFilter),  MODULE_API(UnregisterCommandFilter),  MODULE_API(CommandFilterArgsCount),
    MODULE_API(CommandFilterArgGet),    MODULE_API(CommandFilterArgInsert),   MODULE_API(CommandFilterArgReplace),
    MODULE_API(CommandFilterArgDelete),
};

int moduleFilterGetApi(const char *name, void *target) { return MODULE_API_LOOKUP(filter_api, name, target); }
