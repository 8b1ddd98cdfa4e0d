/* module_shared.c -- the shared API of Redis 7.0 modules: ExportSharedAPI
 * (a module publishes a function pointer under a name) and GetSharedAPI
 * (another module fetches it). Fetching records a dependency: the
 * exporter's "usedby" and the user's "using" lists that INFO's Modules
 * section prints, and MODULE UNLOAD refuses (EPERM) to unload a module
 * whose exports another module fetched.
 *
 * Decisions:
 * - The exports and the dependencies live here, in two small lists, not
 *   in the module struct: module.c asks moduleSharedInUse() before an
 *   unload and calls moduleSharedRelease() once the module is gone.
 * - Names are copied (Redis keeps the module's pointer, which dangles if
 *   the string was not static).
 * - As in Redis 7.0, a module fetching its own export depends on itself
 *   (it can then never be unloaded), and a context without a module
 *   (before SetModuleAttribs) can neither export nor fetch.
 */
#include "module_int.h"

typedef struct sharedExport {
    sds name;
    module *owner;
    void *func;
} sharedExport;

typedef struct sharedUse {
    module *user;
    module *exporter;
} sharedUse;

static list *exports; /* sharedExport *, in export order */
static list *uses;    /* sharedUse *, in first-fetch order */

static sharedExport *exportByName(const char *name) {
    for (listNode *ln = exports ? listFirst(exports) : NULL; ln; ln = listNextNode(ln)) {
        sharedExport *e = listNodeValue(ln);
        if (!strcmp(e->name, name)) return e;
    }
    return NULL;
}

static int RM_ExportSharedAPI(RedisModuleCtx *ctx, const char *apiname, void *func) {
    if (ctx == NULL || ctx->module == NULL || apiname == NULL || exportByName(apiname)) return MODAPI_ERR;
    sharedExport *e = zmalloc(sizeof *e);
    e->name = sdsnew(apiname);
    e->owner = ctx->module;
    e->func = func;
    if (exports == NULL) exports = listCreate();
    listAddNodeTail(exports, e);
    return MODAPI_OK;
}

static int useRecorded(module *user, module *exporter) {
    for (listNode *ln = uses ? listFirst(uses) : NULL; ln; ln = listNextNode(ln)) {
        sharedUse *u = listNodeValue(ln);
        if (u->user == user && u->exporter == exporter) return 1;
    }
    return 0;
}

static void *RM_GetSharedAPI(RedisModuleCtx *ctx, const char *apiname) {
    if (ctx == NULL || ctx->module == NULL || apiname == NULL) return NULL;
    sharedExport *e = exportByName(apiname);
    if (e == NULL) return NULL;
    if (!useRecorded(ctx->module, e->owner)) {
        sharedUse *u = zmalloc(sizeof *u);
        u->user = ctx->module;
        u->exporter = e->owner;
        if (uses == NULL) uses = listCreate();
        listAddNodeTail(uses, u);
    }
    return e->func;
}

/* Whether another module (or m itself) fetched one of m's exports. */
int moduleSharedInUse(module *m) {
    for (listNode *ln = uses ? listFirst(uses) : NULL; ln; ln = listNextNode(ln)) {
        sharedUse *u = listNodeValue(ln);
        if (u->exporter == m) return 1;
    }
    return 0;
}

/* m is unloaded (or failed to load): its exports and its uses go. */
void moduleSharedRelease(module *m) {
    listNode *ln, *next;
    for (ln = exports ? listFirst(exports) : NULL; ln; ln = next) {
        next = listNextNode(ln);
        sharedExport *e = listNodeValue(ln);
        if (e->owner != m) continue;
        sdsfree(e->name);
        zfree(e);
        listDelNode(exports, ln);
    }
    for (ln = uses ? listFirst(uses) : NULL; ln; ln = next) {
        next = listNextNode(ln);
        sharedUse *u = listNodeValue(ln);
        if (u->user != m && u->exporter != m) continue;
        zfree(u);
        listDelNode(uses, ln);
    }
}

/* INFO's usedby=[...] (the modules using m) or using=[...] (those m uses):
 * names joined by '|', in the order the uses began. */
sds moduleSharedCatDeps(sds info, module *m, int usedby) {
    int n = 0;
    for (listNode *ln = uses ? listFirst(uses) : NULL; ln; ln = listNextNode(ln)) {
        sharedUse *u = listNodeValue(ln);
        module *self = usedby ? u->exporter : u->user;
        module *other = usedby ? u->user : u->exporter;
        if (self != m) continue;
        info = sdscatprintf(info, "%s%s", n++ ? "|" : "", other->name);
    }
    return info;
}

static const moduleApiEntry shared_api[] = {
    MODULE_API(ExportSharedAPI),
    MODULE_API(GetSharedAPI),
};

int moduleSharedGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(shared_api, name, target);
}
