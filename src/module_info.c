/* module_info.c -- the Info API of Redis 7.0 modules: the sections a module
 * adds to INFO (RegisterInfoFunc, InfoAddSection, InfoAddField*, dict
 * fields), the list INFO's "Modules" section prints, and a module reading
 * the server's own INFO back field by field (GetServerInfo and friends).
 *
 * A module's info callback writes into a RedisModuleInfoCtx that carries
 * the INFO text being built; info.c calls moduleInfoCollect() once the
 * built-in sections are done, so module sections always come last; the
 * crash report (debug.c) calls it too, with for_crash_report set.
 *
 * Decisions:
 * - Formats are Redis 7.0's, so tools parsing INFO see the same text: a
 *   section is "# <module>_<name>" ("# <module>" for an empty or NULL
 *   name), a field "<module>_<field>:<value>", a dict field
 *   "<module>_<name>:k=v,k=v", doubles as %.17g. A dict's name has '#',
 *   ':' and line ends replaced by '_' (7.0.15 does the same); other names
 *   and values are written as given.
 * - Which sections a callback may emit is decided section by section
 *   (InfoAddSection answers ERR to a section nobody asked for, and the
 *   fields that follow it are dropped). When the callback runs at all is
 *   info.c's choice (infoRequest), the same as Redis 7.0.15's: not for INFO,
 *   INFO all or INFO <built-in section>.
 * - Section names are matched case-insensitively, as INFO's own are.
 * - A dict field left open is closed by the next section, the next dict
 *   field, or the end of the callback: the module cannot be trusted to
 *   check the return code, and the line must end.
 * - GetServerInfo runs the same INFO text generation and indexes its
 *   "field:value" lines in a rax; a field present twice keeps its first
 *   value. Values are copied, so the snapshot outlives the server's state.
 */
#include "module_int.h"
#include "rax.h"

struct RedisModuleInfoCtx {
    module *module;
    const char *const *names; /* the sections INFO asked for, or NULL: all of them */
    int names_count;
    sds info;
    int sections;   /* sections in `info` so far: a blank line goes before the next */
    int in_section; /* the current section was asked for: its fields are written */
    int in_dict;    /* a dict field's line is open */
};

typedef struct RedisModuleServerInfoData {
    rax *fields; /* field name -> sds value */
} RedisModuleServerInfoData;

/* ---- the callbacks and what they write ------------------------------------------------ */

static int RM_RegisterInfoFunc(RedisModuleCtx *ctx, ModuleInfoFunc cb) {
    if (ctx == NULL || ctx->module == NULL) return MODAPI_ERR;
    ctx->module->info_cb = cb;
    return MODAPI_OK;
}

/* INFO's arguments name a section by "<module>_<section>", or the module's
 * sections all by its bare name; case does not matter, as with INFO's. */
static int infoSectionWanted(RedisModuleInfoCtx *ctx, const char *full) {
    if (ctx->names == NULL) return 1;
    for (int j = 0; j < ctx->names_count; j++) {
        if (!strcasecmp(ctx->names[j], full) || !strcasecmp(ctx->names[j], ctx->module->name)) return 1;
    }
    return 0;
}

static int RM_InfoEndDictField(RedisModuleInfoCtx *ctx) {
    if (!ctx->in_dict) return MODAPI_ERR;
    size_t len = sdslen(ctx->info);
    if (len && ctx->info[len - 1] == ',') sdsIncrLen(ctx->info, -1);
    ctx->info = sdscat(ctx->info, "\r\n");
    ctx->in_dict = 0;
    return MODAPI_OK;
}

static int RM_InfoAddSection(RedisModuleInfoCtx *ctx, const char *name) {
    if (ctx->in_dict) RM_InfoEndDictField(ctx);
    sds full = sdsdup(ctx->module->name);
    if (name && name[0]) full = sdscatfmt(full, "_%s", name);
    ctx->in_section = infoSectionWanted(ctx, full);
    if (ctx->in_section) {
        if (ctx->sections++) ctx->info = sdscat(ctx->info, "\r\n");
        ctx->info = sdscatfmt(ctx->info, "# %S\r\n", full);
    }
    sdsfree(full);
    return ctx->in_section ? MODAPI_OK : MODAPI_ERR;
}

static int RM_InfoBeginDictField(RedisModuleInfoCtx *ctx, const char *name) {
    if (!ctx->in_section) return MODAPI_ERR;
    if (ctx->in_dict) RM_InfoEndDictField(ctx);
    sds safe = infoSafeName(name);
    ctx->info = sdscatfmt(ctx->info, "%S_%S:", ctx->module->name, safe);
    sdsfree(safe);
    ctx->in_dict = 1;
    return MODAPI_OK;
}

/* One field whose value is already text: "k=v," inside a dict, else its own
 * prefixed line. */
static int infoAddField(RedisModuleInfoCtx *ctx, const char *field, const char *value, size_t len) {
    if (!ctx->in_section) return MODAPI_ERR;
    if (ctx->in_dict) {
        ctx->info = sdscatfmt(ctx->info, "%s=", field);
        ctx->info = sdscatlen(ctx->info, value, len);
        ctx->info = sdscatlen(ctx->info, ",", 1);
    } else {
        ctx->info = sdscatfmt(ctx->info, "%S_%s:", ctx->module->name, field);
        ctx->info = sdscatlen(ctx->info, value, len);
        ctx->info = sdscatlen(ctx->info, "\r\n", 2);
    }
    return MODAPI_OK;
}

static int RM_InfoAddFieldString(RedisModuleInfoCtx *ctx, const char *field, robj *value) {
    moduleStringDecode(value);
    return infoAddField(ctx, field, value->ptr, sdslen(value->ptr));
}

static int RM_InfoAddFieldCString(RedisModuleInfoCtx *ctx, const char *field, const char *value) {
    return infoAddField(ctx, field, value, strlen(value));
}

static int RM_InfoAddFieldDouble(RedisModuleInfoCtx *ctx, const char *field, double value) {
    char buf[64];
    int len = snprintf(buf, sizeof buf, "%.17g", value);
    return infoAddField(ctx, field, buf, (size_t)len);
}

static int RM_InfoAddFieldLongLong(RedisModuleInfoCtx *ctx, const char *field, long long value) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%lld", value);
    return infoAddField(ctx, field, buf, (size_t)len);
}

static int RM_InfoAddFieldULongLong(RedisModuleInfoCtx *ctx, const char *field, unsigned long long value) {
    char buf[32];
    int len = snprintf(buf, sizeof buf, "%llu", value);
    return infoAddField(ctx, field, buf, (size_t)len);
}

/* ---- what info.c asks ------------------------------------------------------------------ */

/* Every loaded module's callback, in load order, appending to `info`. names
 * NULL: every section; else only those named (see infoSectionWanted).
 * *sections counts the sections already in `info` and is updated. */
sds moduleInfoCollect(sds info, const char *const *names, int names_count, int for_crash_report, int *sections) {
    list *loaded = moduleLoadedList();
    for (listNode *ln = loaded ? listFirst(loaded) : NULL; ln; ln = listNextNode(ln)) {
        module *m = listNodeValue(ln);
        if (m->info_cb == NULL) continue;
        RedisModuleInfoCtx ctx = {m, names, names_count, info, *sections, 0, 0};
        m->info_cb(&ctx, for_crash_report);
        if (ctx.in_dict) RM_InfoEndDictField(&ctx);
        info = ctx.info;
        *sections = ctx.sections;
    }
    return info;
}

/* The options SetModuleOptions set, as Redis 7.0's "Modules" section names them. */
static sds catModuleOptions(sds info, int options) {
    size_t start = sdslen(info);
    if (options & MODAPI_OPTIONS_HANDLE_IO_ERRORS) info = sdscat(info, "handle-io-errors|");
    if (options & MODAPI_OPTIONS_HANDLE_REPL_ASYNC_LOAD) info = sdscat(info, "handle-repl-async-load|");
    if (options & MODAPI_OPTIONS_NO_IMPLICIT_SIGNAL_MODIFIED) info = sdscat(info, "no-implicit-signal-modified|");
    if (sdslen(info) > start) sdsIncrLen(info, -1);
    return info;
}

/* INFO's "Modules" section: one line per loaded module. No command filters
 * exist here, so filters is 0; usedby/using are module_shared.c's. */
sds moduleInfoList(sds info) {
    list *loaded = moduleLoadedList();
    for (listNode *ln = loaded ? listFirst(loaded) : NULL; ln; ln = listNextNode(ln)) {
        module *m = listNodeValue(ln);
        info = sdscatprintf(info, "module:name=%s,ver=%d,api=%d,filters=0,usedby=[", m->name, m->ver, m->apiver);
        info = moduleSharedCatDeps(info, m, 1);
        info = sdscat(info, "],using=[");
        info = moduleSharedCatDeps(info, m, 0);
        info = sdscat(info, "],options=[");
        info = catModuleOptions(info, m->options);
        info = sdscat(info, "]\r\n");
    }
    return info;
}

/* ---- reading the server's INFO ------------------------------------------------------------ */

static void infoDataIndexLine(rax *fields, const char *line, size_t len) {
    if (len == 0 || line[0] == '#') return;
    const char *sep = memchr(line, ':', len);
    if (sep == NULL) return;
    size_t keylen = (size_t)(sep - line);
    sds val = sdsnewlen(sep + 1, len - keylen - 1);
    if (!raxTryInsert(fields, (unsigned char *)line, keylen, val, NULL)) sdsfree(val);
}

/* section NULL: INFO's default sections. */
static RedisModuleServerInfoData *RM_GetServerInfo(RedisModuleCtx *ctx, const char *section) {
    RedisModuleServerInfoData *d = zmalloc(sizeof(*d));
    d->fields = raxNew();
    sds info = genRedisInfoString(section);
    const char *p = info, *end = info + sdslen(info);
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        size_t len = eol ? (size_t)(eol - p) : (size_t)(end - p);
        infoDataIndexLine(d->fields, p, len && p[len - 1] == '\r' ? len - 1 : len);
        p += len + 1;
    }
    sdsfree(info);
    if (ctx) moduleAutoAdd(ctx, AUTO_INFO, d);
    return d;
}

static void infoDataFreeValue(void *val) { sdsfree(val); }

void moduleServerInfoFree(void *data) {
    RedisModuleServerInfoData *d = data;
    raxFreeWithCallback(d->fields, infoDataFreeValue);
    zfree(d);
}

static void RM_FreeServerInfo(RedisModuleCtx *ctx, RedisModuleServerInfoData *data) {
    moduleAutoForget(ctx, data);
    moduleServerInfoFree(data);
}

static sds infoDataFind(RedisModuleServerInfoData *data, const char *field) {
    void *val = raxFind(data->fields, (unsigned char *)field, strlen(field));
    return val == raxNotFound ? NULL : val;
}

static robj *RM_ServerInfoGetField(RedisModuleCtx *ctx, RedisModuleServerInfoData *data, const char *field) {
    sds val = infoDataFind(data, field);
    if (val == NULL) return NULL;
    robj *o = createStringObject(val, sdslen(val));
    moduleAutoAdd(ctx, AUTO_STRING, o);
    return o;
}

static const char *RM_ServerInfoGetFieldC(RedisModuleServerInfoData *data, const char *field) {
    return infoDataFind(data, field);
}

/* The numeric readers: 0 and *out_err ERR for a missing field or one that
 * is not wholly a number of that kind. */
static long long RM_ServerInfoGetFieldSigned(RedisModuleServerInfoData *data, const char *field, int *out_err) {
    sds val = infoDataFind(data, field);
    long long ll;
    int ok = val && string2ll(val, sdslen(val), &ll);
    if (out_err) *out_err = ok ? MODAPI_OK : MODAPI_ERR;
    return ok ? ll : 0;
}

static unsigned long long RM_ServerInfoGetFieldUnsigned(RedisModuleServerInfoData *data, const char *field, int *out_err) {
    sds val = infoDataFind(data, field);
    unsigned long long ull;
    int ok = val && string2ull(val, sdslen(val), &ull);
    if (out_err) *out_err = ok ? MODAPI_OK : MODAPI_ERR;
    return ok ? ull : 0;
}

static double RM_ServerInfoGetFieldDouble(RedisModuleServerInfoData *data, const char *field, int *out_err) {
    sds val = infoDataFind(data, field);
    double d;
    int ok = val && string2d(val, sdslen(val), &d);
    if (out_err) *out_err = ok ? MODAPI_OK : MODAPI_ERR;
    return ok ? d : 0;
}

/* ---- the lookup ------------------------------------------------------------------------------ */

static const moduleApiEntry info_api[] = {
    MODULE_API(RegisterInfoFunc), MODULE_API(InfoAddSection), MODULE_API(InfoBeginDictField),
    MODULE_API(InfoEndDictField), MODULE_API(InfoAddFieldString), MODULE_API(InfoAddFieldCString),
    MODULE_API(InfoAddFieldDouble), MODULE_API(InfoAddFieldLongLong), MODULE_API(InfoAddFieldULongLong),
    MODULE_API(GetServerInfo), MODULE_API(FreeServerInfo), MODULE_API(ServerInfoGetField),
    MODULE_API(ServerInfoGetFieldC), MODULE_API(ServerInfoGetFieldSigned), MODULE_API(ServerInfoGetFieldUnsigned),
    MODULE_API(ServerInfoGetFieldDouble),
};

int moduleInfoGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(info_api, name, target);
}
