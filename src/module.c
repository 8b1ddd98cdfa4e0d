/* module.c -- loading Redis 7.0 modules: the registry, MODULE LOAD/LOADEX/
 * UNLOAD/LIST, `loadmodule` lines, contexts, and the commands modules add.
 *
 * A module is a shared object built against Redis 7.0's module header,
 * unchanged. The server exports no symbols for it: dlopen() it, call its
 * RedisModule_OnLoad with a context whose first word is the lookup function
 * (module_api.c), and the module's own RedisModule_Init asks that function
 * for each API function by name. The functions are in module_api.c; the
 * binary facts (constants, the context's first word) in module_api.h.
 *
 * Decisions:
 * - Texts (log lines, errors) are Redis 7.0's: "Module '%s' loaded from
 *   %s", "Module %s failed to load: <dlerror>", "Error loading the
 *   extension. Please check the server logs.", the UNLOAD refusals.
 * - A statically linked server (the cross ports link -static) cannot
 *   dlopen: MODULE_LOADING is 0 there, and every load fails with a log line
 *   saying so. loadmodule lines then stop start-up like any failed load.
 * - A module command is a redisCommand of our own allocation with
 *   module_cmd set; its proc is moduleCommandDispatch, which builds the
 *   context and calls the module. As in Redis 7.0, the command itself is
 *   never propagated: the module says what goes to the AOF and replicas
 *   (Replicate, ReplicateVerbatim, Call with '!'). Its ACL id is past the tables acl.c sized
 *   at start-up: only users with +@all (allcommands) may run it.
 * - An OnLoad that returns OK without having called RedisModule_Init has
 *   registered nothing and has no name: the load fails (Redis would crash).
 * - LOADEX's CONFIG pairs and the config file's "<module>.<name> value"
 *   lines wait in module_config.c's queue until the module's LoadConfigs
 *   takes them. A module that registered configs without loading them, a
 *   LOADEX value no module took, and (at start-up, after the loadmodule
 *   lines) a file value no module took all fail as in Redis 7.0.
 */
#include "module_int.h"
#include "lathist.h"

#include <errno.h>
#include <sys/stat.h>

#if defined(__linux__) && !defined(MODULES_STATIC_BUILD)
#define MODULE_LOADING 1
#include <dlfcn.h>
#else
#define MODULE_LOADING 0
#endif

static list *modules;          /* module *, in load order */
static list *load_queue;       /* sds * vectors of loadmodule lines: path, args..., NULL */

/* ---- the registry -------------------------------------------------------------- */

static module *moduleByName(const char *name) {
    if (modules == NULL) return NULL;
    listIter li;
    listNode *ln;
    listRewind(modules, &li);
    while ((ln = listNext(&li))) {
        module *m = listNodeValue(ln);
        if (!strcmp(m->name, name)) return m;
    }
    return NULL;
}

int moduleNameBusy(const char *name) { return moduleByName(name) != NULL; }

list *moduleLoadedList(void) { return modules; }

void moduleSetAttribs(RedisModuleCtx *ctx, const char *name, int ver, int apiver) {
    if (ctx->module) return;
    module *m = zcalloc(sizeof(*m));
    m->name = sdsnew(name);
    m->ver = ver;
    m->apiver = apiver;
    m->commands = listCreate();
    ctx->module = m;
}

static void moduleFreeCommandBinding(moduleCmd *mc) {
    commandTableRemove(mc->cmd);
    moduleCmdInfoFree(mc);
    if (mc->cmd->latency_histogram) lathistFree(mc->cmd->latency_histogram); /* LATENCY's, from its first call */
    zfree((char *)mc->cmd->declared_name);
    zfree(mc->cmd);
    zfree(mc);
}

/* Subcommands first: their entries live in their container's dict. */
static void moduleUnregisterCommands(module *m) {
    listIter li;
    listNode *ln;
    listRewind(m->commands, &li);
    while ((ln = listNext(&li))) {
        moduleCmd *mc = listNodeValue(ln);
        if (mc->cmd->parent) {
            moduleFreeCommandBinding(mc);
            listDelNode(m->commands, ln);
        }
    }
    while (listLength(m->commands)) {
        moduleFreeCommandBinding(listNodeValue(listFirst(m->commands)));
        listDelNode(m->commands, listFirst(m->commands));
    }
}

static void moduleFree(module *m) {
    moduleUnregisterCommands(m);
    moduleTypesRelease(m);
    moduleNotifyRelease(m);
    moduleEventsRelease(m);
    moduleClusterRelease(m);
    moduleConfigsRelease(m);
    moduleFiltersRelease(m);
    listRelease(m->commands);
    for (int j = 0; j < m->argc; j++) decrRefCount(m->argv[j]);
    zfree(m->argv);
    sdsfree(m->path);
    sdsfree(m->name);
    zfree(m);
}

/* ---- contexts ---------------------------------------------------------------------- */

struct poolBlock {
    struct poolBlock *next;
    size_t used, size;
    /* the memory follows, aligned as malloc's */
    _Alignas(max_align_t) unsigned char mem[];
};

/* A context the main thread creates for a module's code: a command, a
 * callback, OnLoad. It is an execution unit of propagate.c until
 * moduleCtxFinish: what a callback run outside any command (a timer, an
 * event) propagates goes out when it returns, in MULTI/EXEC when there is
 * more than one op, as Redis 7.0's moduleFreeContext does. */
void moduleCtxInit(RedisModuleCtx *ctx, module *owner, client *c) {
    moduleCtxInitOffThread(ctx, owner, c);
    ctx->flags = MODCTX_PROPAGATION_UNIT;
    propagateUnitBegin(1);
}

/* A context that may be created or freed on another thread (a thread-safe
 * context: its unit is the time its thread holds the lock, module_thread.c)
 * or while a snapshot is written (an IO's): no execution unit. */
void moduleCtxInitOffThread(RedisModuleCtx *ctx, module *owner, client *c) {
    memset(ctx, 0, sizeof(*ctx));
    ctx->getapi = moduleGetApi;
    ctx->module = owner;
    ctx->client = c;
}

void moduleAutoAdd(RedisModuleCtx *ctx, int kind, void *ptr) {
    if (ctx == NULL || !(ctx->flags & MODCTX_AUTO_MEMORY)) return;
    if (ctx->autos_len == ctx->autos_cap) {
        ctx->autos_cap = ctx->autos_cap ? ctx->autos_cap * 2 : 16;
        ctx->autos = zrealloc(ctx->autos, sizeof(autoItem) * (size_t)ctx->autos_cap);
    }
    ctx->autos[ctx->autos_len].kind = kind;
    ctx->autos[ctx->autos_len++].ptr = ptr;
}

/* The module freed it itself (or kept it, RetainString): the context must
 * not free it again. 1 when the context held it. */
int moduleAutoForget(RedisModuleCtx *ctx, void *ptr) {
    if (ctx == NULL) return 0;
    for (int j = ctx->autos_len - 1; j >= 0; j--) {
        if (ctx->autos[j].ptr == ptr && ctx->autos[j].kind) {
            ctx->autos[j].kind = 0;
            return 1;
        }
    }
    return 0;
}


void moduleCtxFinish(RedisModuleCtx *ctx) {
    /* keys first: a key may hold a string the list also has */
    for (int pass = 0; pass < 2; pass++) {
        for (int j = 0; j < ctx->autos_len; j++) {
            autoItem *a = &ctx->autos[j];
            if (pass == 0 && a->kind == AUTO_KEY) moduleKeyClose(a->ptr);
            else if (pass == 1 && a->kind == AUTO_STRING) decrRefCount(a->ptr);
            else if (pass == 1 && a->kind == AUTO_REPLY) moduleCallReplyFree(a->ptr);
            else if (pass == 1 && a->kind == AUTO_DICT) moduleDictFree(a->ptr);
            else if (pass == 1 && a->kind == AUTO_INFO) moduleServerInfoFree(a->ptr);
            else continue;
            a->kind = 0;
        }
    }
    zfree(ctx->autos);
    zfree(ctx->postponed);
    while (ctx->pool) {
        poolBlock *next = ctx->pool->next;
        zfree(ctx->pool);
        ctx->pool = next;
    }
    ctx->autos = NULL;
    ctx->autos_len = ctx->autos_cap = 0;
    ctx->postponed = NULL;
    if (ctx->flags & MODCTX_PROPAGATION_UNIT) {
        ctx->flags &= ~MODCTX_PROPAGATION_UNIT;
        propagateUnitEnd();
    }
}

/* PoolAlloc: bump allocation from blocks the context frees at its end. */
void *moduleCtxPoolAlloc(RedisModuleCtx *ctx, size_t bytes) {
    const size_t align = sizeof(max_align_t);
    bytes = (bytes + align - 1) / align * align;
    poolBlock *b = ctx->pool;
    if (b == NULL || b->size - b->used < bytes) {
        size_t size = bytes > 8192 ? bytes : 8192;
        b = zmalloc(sizeof(poolBlock) + size);
        b->size = size;
        b->used = 0;
        b->next = ctx->pool;
        ctx->pool = b;
    }
    void *p = b->mem + b->used;
    b->used += bytes;
    return p;
}

/* ---- commands -------------------------------------------------------------------- */

/* Redis 7.0's flag words for CreateCommand; -1 for an unknown word. */
static int64_t moduleCommandFlags(const char *s) {
    static const struct {
        const char *word;
        uint64_t flag;
    } words[] = {
        {"write", CMD_WRITE}, {"readonly", CMD_READONLY}, {"admin", CMD_ADMIN},
        {"deny-oom", CMD_DENYOOM}, {"deny-script", CMD_NOSCRIPT}, {"allow-loading", CMD_LOADING},
        {"pubsub", CMD_PUBSUB}, {"random", 0}, {"blocking", CMD_BLOCKING},
        {"allow-stale", CMD_STALE}, {"no-monitor", CMD_SKIP_MONITOR}, {"no-slowlog", CMD_SKIP_SLOWLOG},
        {"fast", CMD_FAST}, {"no-auth", CMD_NO_AUTH}, {"may-replicate", CMD_MAY_REPLICATE},
        {"getkeys-api", CMD_MODULE_GETKEYS}, {"getchannels-api", CMD_MODULE_GETCHANNELS}, {"no-cluster", 0},
        {"no-mandatory-keys", CMD_NO_MANDATORY_KEYS}, {"allow-busy", CMD_ALLOW_BUSY},
    };
    int count;
    int64_t flags = 0;
    sds *tokens = sdssplitlen(s, (ssize_t)strlen(s), " ", 1, &count);
    int j;
    for (j = 0; j < count; j++) {
        size_t w;
        for (w = 0; w < sizeof words / sizeof words[0]; w++)
            if (!strcasecmp(tokens[j], words[w].word)) break;
        if (w == sizeof words / sizeof words[0]) break;
        flags |= (int64_t)words[w].flag;
    }
    sdsfreesplitres(tokens, count);
    return j == count ? flags : -1;
}

static void moduleCommandDispatch(client *c) {
    moduleCmd *mc = c->cmd->module_cmd;
    RedisModuleCtx ctx;
    moduleCtxInit(&ctx, mc->owner, c);
    ctx.yield_start = monotonicUs() + server.busy_reply_threshold * 1000; /* Yield serves events after that */
    mc->func(&ctx, c->argv, c->argc);
    moduleRedactArguments(c); /* RedactClientCommandArgument's, now the handler is done with argv */
    moduleCtxFinish(&ctx);
    moduleYieldEnd(); /* if it yielded: the busy state ends, its client unprotected (module_yield.c) */
    preventCommandPropagation(c); /* a module propagates what it says (Replicate*, Call with '!') */
}

/* A container (func NULL) has subcommands only: it answers as Redis's do
 * when called without one. */
static void moduleContainerCommand(client *c) { addReplySubcommandSyntaxError(c); }

int moduleCreateCommand(RedisModuleCtx *ctx, redisCommand *parent, const char *name, ModuleCmdFunc func,
                        const char *strflags, int firstkey, int lastkey, int keystep) {
    if (ctx->module == NULL) return MODAPI_ERR;
    int64_t flags = strflags ? moduleCommandFlags(strflags) : 0;
    if (flags == -1) return MODAPI_ERR;
    if (parent == NULL && lookupCommandByCString(name)) return MODAPI_ERR;
    if (parent && parent->subcommands_dict) { /* its keys are sds: a C string would be misread (a crash) */
        sds subname = sdsnew(name);
        int taken = dictFetchValue(parent->subcommands_dict, subname) != NULL;
        sdsfree(subname);
        if (taken) return MODAPI_ERR;
    }
    moduleCmd *mc = zcalloc(sizeof(*mc));
    redisCommand *cmd = zcalloc(sizeof(*cmd));
    mc->owner = ctx->module;
    mc->func = func;
    mc->cmd = cmd;
    cmd->declared_name = zstrdup(name);
    cmd->proc = func ? moduleCommandDispatch : moduleContainerCommand;
    cmd->arity = func && parent == NULL ? -1 : -2; /* a subcommand: its container's name and its own, as Redis */
    cmd->flags = (uint64_t)flags;
    cmd->firstkey = firstkey;
    cmd->lastkey = lastkey;
    cmd->keystep = keystep;
    cmd->module_cmd = mc;
    if (commandTableAdd(cmd, parent) != C_OK) {
        zfree((char *)cmd->declared_name);
        zfree(cmd);
        zfree(mc);
        return MODAPI_ERR;
    }
    listAddNodeTail(ctx->module->commands, mc);
    return MODAPI_OK;
}

/* The handler called with a position request context (request is
 * MODCTX_KEYS_POS_REQUEST or MODCTX_CHANNELS_POS_REQUEST): it reports
 * positions into result (KeyAtPos*, ChannelAtPosWithFlags in
 * module_api.c); nothing else of the command runs. */
static int moduleAskPositions(redisCommand *cmd, robj **argv, int argc, getKeysResult *result, int request) {
    moduleCmd *mc = cmd->module_cmd;
    result->numkeys = 0;
    if (mc == NULL || mc->func == NULL) return 0;
    RedisModuleCtx ctx;
    moduleCtxInit(&ctx, mc->owner, NULL);
    ctx.flags |= request;
    ctx.keys_result = result;
    mc->func(&ctx, argv, argc);
    moduleCtxFinish(&ctx);
    /* a position past the arguments would be read by whoever asked: dropped */
    int kept = 0;
    for (int j = 0; j < result->numkeys; j++)
        if (result->keys[j].pos < argc) result->keys[kept++] = result->keys[j];
    result->numkeys = kept;
    return kept;
}

/* "getkeys-api": as in Redis, the specs still come first (keyspec.c). */
int moduleGetKeysViaApi(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    return moduleAskPositions(cmd, argv, argc, result, MODCTX_KEYS_POS_REQUEST);
}

/* "getchannels-api": the only way a module command declares channels;
 * positions with CMD_CHANNEL_* flags, for ACL (acl.c). */
int moduleGetChannelsViaApi(redisCommand *cmd, robj **argv, int argc, getKeysResult *result) {
    return moduleAskPositions(cmd, argv, argc, result, MODCTX_CHANNELS_POS_REQUEST);
}

const char *moduleCommandOwnerName(redisCommand *cmd) {
    return cmd->module_cmd ? cmd->module_cmd->owner->name : NULL;
}

/* NAME, or CONTAINER|SUB for a subcommand, as Redis 7.0's GetCommand. */
moduleCmd *moduleFindCommand(RedisModuleCtx *ctx, const char *name) {
    const char *bar = strchr(name, '|');
    redisCommand *cmd;
    if (bar == NULL) {
        cmd = lookupCommandByCString(name);
    } else {
        sds container = sdsnewlen(name, (size_t)(bar - name)), subname = sdsnew(bar + 1);
        cmd = strchr(subname, '|') ? NULL : lookupCommandBySds(container);
        if (cmd) cmd = cmd->subcommands_dict ? dictFetchValue(cmd->subcommands_dict, subname) : NULL;
        sdsfree(container);
        sdsfree(subname);
    }
    if (cmd == NULL || cmd->module_cmd == NULL || cmd->module_cmd->owner != ctx->module) return NULL;
    return cmd->module_cmd;
}

/* ---- loading and unloading ------------------------------------------------------- */

static int moduleUnload(const char *name, int *why);

#if MODULE_LOADING
static void *moduleSymbol(void *handle, const char *name) {
    void *sym = dlsym(handle, name);
    return sym;
}
#endif

static int moduleLoad(const char *path, robj **argv, int argc, int is_loadex) {
#if !MODULE_LOADING
    (void)argv, (void)argc, (void)is_loadex;
    serverLog(LL_WARNING, "Module %s failed to load: this server is statically linked and cannot load "
              "shared objects (modules need a dynamically linked build)", path);
    return C_ERR;
#else
    struct stat st;
    if (stat(path, &st) == 0 && !(st.st_mode & (S_IXUSR | S_IXGRP | S_IXOTH))) {
        serverLog(LL_WARNING, "Module %s failed to load: It does not have execute permissions.", path);
        return C_ERR;
    }
    void *handle = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        serverLog(LL_WARNING, "Module %s failed to load: %s", path, dlerror());
        return C_ERR;
    }
    ModuleOnLoadFunc onload;
    void *sym = moduleSymbol(handle, "RedisModule_OnLoad");
    memcpy(&onload, &sym, sizeof onload);
    if (sym == NULL) {
        dlclose(handle);
        serverLog(LL_WARNING, "Module %s does not export RedisModule_OnLoad() symbol. Module not loaded.", path);
        return C_ERR;
    }
    RedisModuleCtx ctx;
    moduleCtxInit(&ctx, NULL, NULL);
    int res = onload(&ctx, (void **)argv, argc);
    if (res == MODAPI_ERR || ctx.module == NULL) {
        serverLog(LL_WARNING, "Module %s initialization failed. Module not loaded", path);
        if (ctx.module) moduleSharedRelease(ctx.module);
        if (ctx.module) moduleFree(ctx.module);
        moduleCtxFinish(&ctx);
        dlclose(handle);
        return C_ERR;
    }
    module *m = ctx.module;
    m->handle = handle;
    m->path = sdsnew(path);
    m->argc = argc;
    m->argv = argc ? zmalloc(sizeof(robj *) * (size_t)argc) : NULL;
    for (int j = 0; j < argc; j++) {
        m->argv[j] = argv[j];
        incrRefCount(argv[j]);
    }
    if (modules == NULL) modules = listCreate();
    listAddNodeTail(modules, m);
    serverLog(LL_NOTICE, "Module '%s' loaded from %s", m->name, path);
    moduleFireModuleChange(m, 0);
    moduleGILStart(); /* from now on module threads may take the lock while we sleep (module_thread.c) */
    moduleCtxFinish(&ctx);
    const char *refusal = NULL;
    if (moduleConfigsPending(m))
        refusal = "Module Configurations were not set, likely a missing LoadConfigs call. Unloading the module.";
    else if (is_loadex && moduleConfigQueueLength())
        refusal = "Loadex configurations were not applied, likely due to invalid arguments. Unloading the module.";
    if (refusal) {
        serverLog(LL_WARNING, "%s", refusal);
        sds name = sdsnew(m->name);
        int why;
        moduleUnload(name, &why);
        sdsfree(name);
        return C_ERR;
    }
    return C_OK;
#endif
}

/* Why an unload was refused (*why): the errno values Redis 7.0 maps to
 * texts (moduleUnloadRefusal). */
static int moduleUnload(const char *name, int *why) {
    module *m = moduleByName(name);
    if (m == NULL) {
        *why = ENOENT;
        return C_ERR;
    }
    if (m->types) {
        *why = EBUSY;
        return C_ERR;
    }
    if (moduleSharedInUse(m)) {
        *why = EPERM;
        return C_ERR;
    }
    if (m->blocked_clients) {
        *why = EAGAIN;
        return C_ERR;
    }
    if (m->timers) {
        *why = EINPROGRESS;
        return C_ERR;
    }
#if MODULE_LOADING
    void *sym = moduleSymbol(m->handle, "RedisModule_OnUnload");
    if (sym) {
        ModuleOnUnloadFunc onunload;
        memcpy(&onunload, &sym, sizeof onunload);
        RedisModuleCtx ctx;
        moduleCtxInit(&ctx, m, NULL);
        int res = onunload(&ctx);
        moduleCtxFinish(&ctx);
        if (res == MODAPI_ERR) {
            serverLog(LL_WARNING, "Module %s OnUnload failed.  Unload canceled.", name);
            *why = ECANCELED;
            return C_ERR;
        }
    }
    moduleUnregisterCommands(m);
    moduleAclRelease(m); /* clients it authenticated are revoked while its callbacks still exist */
    if (dlclose(m->handle) == -1) {
        const char *err = dlerror();
        serverLog(LL_WARNING, "Error when trying to close the %s module: %s", m->name, err ? err : "Unknown error");
    }
#endif
    serverLog(LL_NOTICE, "Module %s unloaded", m->name);
    listDelNode(modules, listSearchKey(modules, m));
    moduleEventsRelease(m); /* before the others hear of it */
    moduleClusterRelease(m);
    moduleSharedRelease(m);
    moduleFireModuleChange(m, 1);
    moduleFree(m);
    return C_OK;
}

/* ---- loadmodule lines ------------------------------------------------------------ */

int moduleQueueLoad(sds *argv, int argc, sds *err) {
    (void)err;
    sds *line = zmalloc(sizeof(sds) * (size_t)(argc + 1));
    for (int j = 0; j < argc; j++) line[j] = sdsdup(argv[j]);
    line[argc] = NULL;
    if (load_queue == NULL) load_queue = listCreate();
    listAddNodeTail(load_queue, line);
    return C_OK;
}

static void moduleLoadQueuedLines(void);

void moduleLoadQueued(void) {
    moduleLoadQueuedLines();
    if (moduleConfigQueueLength()) {
        serverLog(LL_WARNING, "Module Configuration detected without loadmodule directive or no ApplyConfig call: "
                  "aborting");
        exit(1);
    }
}

static void moduleLoadQueuedLines(void) {
    if (load_queue == NULL) return;
    while (listLength(load_queue)) {
        listNode *ln = listFirst(load_queue);
        sds *line = listNodeValue(ln);
        int argc = 0;
        while (line[argc + 1]) argc++;
        robj **argv = argc ? zmalloc(sizeof(robj *) * (size_t)argc) : NULL;
        for (int j = 0; j < argc; j++) argv[j] = createStringObject(line[j + 1], sdslen(line[j + 1]));
        int res = moduleLoad(line[0], argv, argc, 0);
        if (res != C_OK) {
            serverLog(LL_WARNING, "Can't load module from %s: server aborting", line[0]);
            exit(1);
        }
        for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
        zfree(argv);
        for (int j = 0; line[j]; j++) sdsfree(line[j]);
        zfree(line);
        listDelNode(load_queue, ln);
    }
    listRelease(load_queue);
    load_queue = NULL;
}

/* ---- MODULE ---------------------------------------------------------------------- */

static void moduleHelp(client *c) {
    const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL};
    addReplyHelp(c, help);
}

/* CONFIG REWRITE writes one `loadmodule` line per loaded module, in load
 * order, the path and arguments as given (unquoted, as Redis 7.0 writes
 * them): a module loaded by MODULE LOAD comes back at the next start, and
 * so do its configs' lines, which would otherwise stop that start as
 * values no module took. An unloaded module's line goes. */
sds *moduleRewriteLoadLines(int *count) {
    *count = modules ? (int)listLength(modules) : 0;
    if (*count == 0) return NULL;
    sds *lines = zmalloc(sizeof(sds) * (size_t)*count);
    listIter li;
    listNode *ln;
    int k = 0;
    listRewind(modules, &li);
    while ((ln = listNext(&li))) {
        module *m = listNodeValue(ln);
        sds line = sdscatsds(sdsnew("loadmodule "), m->path);
        for (int j = 0; j < m->argc; j++) {
            robj *arg = getDecodedObject(m->argv[j]);
            line = sdscatlen(sdscatlen(line, " ", 1), arg->ptr, sdslen(arg->ptr));
            decrRefCount(arg);
        }
        lines[k++] = line;
    }
    return lines;
}

void moduleReplyList(client *c) {
    addReplyArrayLen(c, modules ? (long)listLength(modules) : 0);
    if (modules == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(modules, &li);
    while ((ln = listNext(&li))) {
        module *m = listNodeValue(ln);
        addReplyMapLen(c, 4);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, m->name, sdslen(m->name));
        addReplyBulkCString(c, "ver");
        addReplyLongLong(c, m->ver);
        addReplyBulkCString(c, "path");
        addReplyBulkCBuffer(c, m->path, sdslen(m->path));
        addReplyBulkCString(c, "args");
        addReplyArrayLen(c, m->argc);
        for (int j = 0; j < m->argc; j++) addReplyBulk(c, m->argv[j]);
    }
}

/* LOADEX's words after the path: CONFIG name value pairs, then ARGS and the
 * module's arguments. C_ERR (logged as Redis does) on anything else. */
static int moduleParseLoadex(robj **words, int n, robj ***argv, int *argc) {
    *argv = NULL;
    *argc = 0;
    for (int j = 0; j < n; j++) {
        const char *w = words[j]->ptr;
        if (!strcasecmp(w, "CONFIG")) {
            if (j + 2 >= n) {
                serverLog(LL_NOTICE, "CONFIG specified without name value pair");
                return C_ERR;
            }
            moduleConfigQueueValue(words[j + 1]->ptr, words[j + 2]->ptr);
            j += 2;
        } else if (!strcasecmp(w, "ARGS")) {
            *argv = j + 1 < n ? words + j + 1 : NULL;
            *argc = n - j - 1;
            return C_OK;
        } else {
            serverLog(LL_NOTICE, "Syntax Error from arguments to loadex around %s.", w);
            return C_ERR;
        }
    }
    return C_OK;
}

static const char *moduleUnloadRefusal(int why) {
    switch (why) {
    case ENOENT: return "no such module with that name";
    case EBUSY: return "the module exports one or more module-side data types, can't unload";
    case EPERM: return "the module exports APIs used by other modules. Please unload them first and try again";
    case EAGAIN: return "the module has blocked clients. Please wait them unblocked and try again";
    case EINPROGRESS: return "the module holds timer that is not fired. Please stop the timer or wait until it fires.";
    default: return "operation not possible.";
    }
}

void moduleCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    int load = !strcasecmp(sub, "load"), loadex = !strcasecmp(sub, "loadex");
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        moduleHelp(c);
    } else if ((load || loadex) && c->argc >= 3) {
        robj **argv = c->argc > 3 ? c->argv + 3 : NULL;
        int argc = c->argc - 3;
        int ok = !loadex || moduleParseLoadex(c->argv + 3, c->argc - 3, &argv, &argc) == C_OK;
        if (ok && moduleLoad(c->argv[2]->ptr, argv, argc, loadex) == C_OK) {
            addReply(c, shared.ok);
        } else {
            moduleConfigQueueDiscard(); /* what this LOADEX gave goes with it */
            addReplyError(c, "Error loading the extension. Please check the server logs.");
        }
    } else if (!strcasecmp(sub, "unload") && c->argc == 3) {
        int why;
        if (moduleUnload(c->argv[2]->ptr, &why) == C_OK) addReply(c, shared.ok);
        else addReplyErrorFormat(c, "Error unloading module: %s", moduleUnloadRefusal(why));
    } else if (!strcasecmp(sub, "list") && c->argc == 2) {
        moduleReplyList(c);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}
