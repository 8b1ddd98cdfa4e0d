/* module_config.c -- configuration parameters of Redis 7.0 modules
 * (RegisterBoolConfig, RegisterStringConfig, RegisterNumericConfig,
 * RegisterEnumConfig, LoadConfigs): the registry of "<module>.<name>"
 * parameters, the values waiting for them, and what config.c asks of them
 * for CONFIG GET, SET and REWRITE.
 *
 * A module config has no field in `server`: its value lives in the module,
 * reached through the module's getter and setter. config.c's table cannot
 * hold it (the table is fixed at build time), so config.c asks this file
 * whenever a name is not in its table.
 *
 * Decisions (all checked against Redis 7.0.15 loading the same .so):
 * - Values given before the module registers its configs (`<module>.<name>
 *   value` lines of the config file, LOADEX's CONFIG pairs) wait in one
 *   queue, a later value replacing an earlier one. LoadConfigs hands each
 *   of the module's configs its queued value, or its default, and removes
 *   them from the queue; anything left afterwards fails the LOADEX or the
 *   start-up (module.c), with Redis's log lines.
 * - Setting a value parses it as Redis does for its own configs of that
 *   type (yes/no, integer or memory value within bounds, enum names) and
 *   calls the setter only when the value differs from the getter's; only
 *   then does the apply callback run. Applies are run once per CONFIG SET
 *   per (callback, privdata) pair, after the server's own applies.
 * - As in 7.0.15, registering is not confined to OnLoad, and LoadConfigs
 *   may be called again later (it then sets every config to its default):
 *   a module relying on either behaves the same here.
 * - Errors a module returns are cut to 255 bytes, as Redis does.
 * - One deliberate difference: SENSITIVE is honoured (CONFIG SET's value is
 *   redacted from the slowlog and MONITOR, as for requirepass); 7.0.15
 *   drops the flag when it registers a module config and shows the value.
 * - CONFIG REWRITE writes a config when it is not at its default or its
 *   name is already in the file, the rule config.c uses for its own.
 */
#include "module_int.h"

#include <ctype.h>
#include <errno.h>

#define MCFG_DEFAULT 0u
#define MCFG_IMMUTABLE (1u << 0)
#define MCFG_SENSITIVE (1u << 1)
#define MCFG_HIDDEN (1u << 4)
#define MCFG_PROTECTED (1u << 5)
#define MCFG_DENY_LOADING (1u << 6)
#define MCFG_MEMORY (1u << 7)
#define MCFG_BITFLAGS (1u << 8)
#define MCFG_KNOWN (MCFG_IMMUTABLE | MCFG_SENSITIVE | MCFG_HIDDEN | MCFG_PROTECTED | MCFG_DENY_LOADING | \
                    MCFG_MEMORY | MCFG_BITFLAGS)

#define MCFG_ERR_MAX 256

typedef RedisModuleString *(*ConfigGetStringFunc)(const char *name, void *privdata);
typedef long long (*ConfigGetNumericFunc)(const char *name, void *privdata);
typedef int (*ConfigGetIntFunc)(const char *name, void *privdata); /* bool and enum */
typedef int (*ConfigSetStringFunc)(const char *name, RedisModuleString *val, void *privdata, RedisModuleString **err);
typedef int (*ConfigSetNumericFunc)(const char *name, long long val, void *privdata, RedisModuleString **err);
typedef int (*ConfigSetIntFunc)(const char *name, int val, void *privdata, RedisModuleString **err);
typedef int (*ConfigApplyFunc)(RedisModuleCtx *ctx, void *privdata, RedisModuleString **err);

typedef enum { MCFG_BOOL, MCFG_STRING, MCFG_NUMERIC, MCFG_ENUM } mcfgType;

struct moduleConfig {
    module *owner;
    sds name;     /* as registered: the setter, getter and apply errors see it */
    sds fullname; /* "<module>.<name>": what CONFIG and the config file use */
    mcfgType type;
    unsigned int flags; /* REDISMODULE_CONFIG_* */
    union {
        ConfigGetStringFunc str;
        ConfigGetNumericFunc num;
        ConfigGetIntFunc i;
    } get;
    union {
        ConfigSetStringFunc str;
        ConfigSetNumericFunc num;
        ConfigSetIntFunc i;
    } set;
    ConfigApplyFunc apply;
    void *privdata;
    long long def_num; /* default of a bool, numeric or enum */
    sds def_str;       /* default of a string (NULL possible) */
    long long min, max;
    int nenum;
    sds *enum_names;
    int *enum_vals;
};

static moduleConfig **registry; /* every registered config, in registration order */
static int registry_len;
static list *queue;             /* queuedValue *: values waiting for their config */

typedef struct queuedValue {
    sds name, value;
} queuedValue;

/* ---- the registry ------------------------------------------------------------ */

moduleConfig *moduleConfigLookup(const char *fullname) {
    for (int j = 0; j < registry_len; j++)
        if (!strcasecmp(registry[j]->fullname, fullname)) return registry[j];
    return NULL;
}

static moduleConfig *moduleConfigOf(module *m, const char *name) {
    for (int j = 0; j < registry_len; j++)
        if (registry[j]->owner == m && !strcasecmp(registry[j]->name, name)) return registry[j];
    return NULL;
}

static void moduleConfigFree(moduleConfig *mc) {
    sdsfree(mc->name);
    sdsfree(mc->fullname);
    sdsfree(mc->def_str);
    for (int j = 0; j < mc->nenum; j++) sdsfree(mc->enum_names[j]);
    zfree(mc->enum_names);
    zfree(mc->enum_vals);
    zfree(mc);
}

/* The module unloads (or failed to load): its configs go. */
void moduleConfigsRelease(module *m) {
    int kept = 0;
    for (int j = 0; j < registry_len; j++) {
        if (registry[j]->owner == m) moduleConfigFree(registry[j]);
        else registry[kept++] = registry[j];
    }
    registry_len = kept;
    if (registry_len == 0) {
        zfree(registry);
        registry = NULL;
    }
}

int moduleConfigsPending(module *m) {
    if (m->configs_loaded) return 0;
    for (int j = 0; j < registry_len; j++)
        if (registry[j]->owner == m) return 1;
    return 0;
}

/* Redis's checks, with its log lines; errno as RM_Register*Config documents. */
static int moduleConfigCheck(module *m, const char *name, unsigned int flags, mcfgType type) {
    if (flags & ~MCFG_KNOWN) {
        serverLog(LL_WARNING, "Invalid flag(s) for configuration");
        errno = EINVAL;
        return MODAPI_ERR;
    }
    /* 7.0.15 checks a string config's flags as a numeric's: MEMORY passes */
    if ((flags & MCFG_MEMORY) && type != MCFG_NUMERIC && type != MCFG_STRING) {
        serverLog(LL_WARNING, "Numeric flag provided for non-numeric configuration.");
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if ((flags & MCFG_BITFLAGS) && type != MCFG_ENUM) {
        serverLog(LL_WARNING, "Enum flag provided for non-enum configuration.");
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (name[0] == '\0') {
        serverLog(LL_WARNING, "Module config names cannot be an empty string.");
        errno = EINVAL;
        return MODAPI_ERR;
    }
    for (const char *p = name; *p; p++) {
        if (isalnum((unsigned char)*p) || *p == '_' || *p == '-') continue;
        serverLog(LL_WARNING, "Invalid character %c in Module Config name %s.", *p, name);
        errno = EINVAL;
        return MODAPI_ERR;
    }
    if (moduleConfigOf(m, name)) {
        serverLog(LL_WARNING, "Configuration by the name: %s already registered", name);
        errno = EALREADY;
        return MODAPI_ERR;
    }
    return MODAPI_OK;
}

static moduleConfig *moduleConfigAdd(RedisModuleCtx *ctx, const char *name, unsigned int flags, mcfgType type,
                                     ConfigApplyFunc apply, void *privdata) {
    if (ctx == NULL || ctx->module == NULL || name == NULL) {
        errno = EINVAL;
        return NULL;
    }
    if (moduleConfigCheck(ctx->module, name, flags, type) != MODAPI_OK) return NULL;
    moduleConfig *mc = zcalloc(sizeof(*mc));
    mc->owner = ctx->module;
    mc->name = sdsnew(name);
    mc->fullname = sdscatfmt(sdsempty(), "%s.%s", ctx->module->name, name);
    mc->type = type;
    mc->flags = flags;
    mc->apply = apply;
    mc->privdata = privdata;
    registry = zrealloc(registry, sizeof(*registry) * (size_t)(registry_len + 1));
    registry[registry_len++] = mc;
    return mc;
}

static int RM_RegisterBoolConfig(RedisModuleCtx *ctx, const char *name, int default_val, unsigned int flags,
                                 ConfigGetIntFunc getfn, ConfigSetIntFunc setfn, ConfigApplyFunc applyfn,
                                 void *privdata) {
    moduleConfig *mc = moduleConfigAdd(ctx, name, flags, MCFG_BOOL, applyfn, privdata);
    if (mc == NULL) return MODAPI_ERR;
    mc->get.i = getfn;
    mc->set.i = setfn;
    mc->def_num = default_val != 0;
    return MODAPI_OK;
}

static int RM_RegisterStringConfig(RedisModuleCtx *ctx, const char *name, const char *default_val,
                                   unsigned int flags, ConfigGetStringFunc getfn, ConfigSetStringFunc setfn,
                                   ConfigApplyFunc applyfn, void *privdata) {
    moduleConfig *mc = moduleConfigAdd(ctx, name, flags, MCFG_STRING, applyfn, privdata);
    if (mc == NULL) return MODAPI_ERR;
    mc->get.str = getfn;
    mc->set.str = setfn;
    mc->def_str = default_val ? sdsnew(default_val) : NULL;
    return MODAPI_OK;
}

static int RM_RegisterNumericConfig(RedisModuleCtx *ctx, const char *name, long long default_val,
                                    unsigned int flags, long long min, long long max, ConfigGetNumericFunc getfn,
                                    ConfigSetNumericFunc setfn, ConfigApplyFunc applyfn, void *privdata) {
    moduleConfig *mc = moduleConfigAdd(ctx, name, flags, MCFG_NUMERIC, applyfn, privdata);
    if (mc == NULL) return MODAPI_ERR;
    mc->get.num = getfn;
    mc->set.num = setfn;
    mc->def_num = default_val;
    mc->min = min;
    mc->max = max;
    return MODAPI_OK;
}

static int RM_RegisterEnumConfig(RedisModuleCtx *ctx, const char *name, int default_val, unsigned int flags,
                                 const char **enum_values, const int *int_values, int num_enum_vals,
                                 ConfigGetIntFunc getfn, ConfigSetIntFunc setfn, ConfigApplyFunc applyfn,
                                 void *privdata) {
    if (num_enum_vals < 0 || (num_enum_vals > 0 && (enum_values == NULL || int_values == NULL))) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    moduleConfig *mc = moduleConfigAdd(ctx, name, flags, MCFG_ENUM, applyfn, privdata);
    if (mc == NULL) return MODAPI_ERR;
    mc->get.i = getfn;
    mc->set.i = setfn;
    mc->def_num = default_val;
    mc->nenum = num_enum_vals;
    mc->enum_names = zcalloc(sizeof(sds) * (size_t)(num_enum_vals + 1));
    mc->enum_vals = zcalloc(sizeof(int) * (size_t)(num_enum_vals + 1));
    for (int j = 0; j < num_enum_vals; j++) {
        mc->enum_names[j] = sdsnew(enum_values[j]);
        mc->enum_vals[j] = int_values[j];
    }
    return MODAPI_OK;
}

/* ---- values: parse, compare, set ----------------------------------------------- */

/* The module's error string, if it gave one, as an sds (cut as Redis cuts it). */
static sds moduleConfigTakeError(RedisModuleString *err) {
    if (err == NULL) return NULL;
    moduleStringDecode(err);
    size_t len = sdslen(err->ptr);
    sds out = sdsnewlen(err->ptr, len < MCFG_ERR_MAX ? len : MCFG_ERR_MAX - 1);
    decrRefCount(err);
    return out;
}

static int moduleConfigCallSetter(moduleConfig *mc, long long num, const char *str, size_t len, sds *err) {
    RedisModuleString *merr = NULL;
    int res;
    if (mc->type == MCFG_STRING) {
        robj *val = str ? createStringObject(str, len) : NULL;
        res = mc->set.str(mc->name, val, mc->privdata, &merr);
        if (val) decrRefCount(val);
    } else if (mc->type == MCFG_NUMERIC) {
        res = mc->set.num(mc->name, num, mc->privdata, &merr);
    } else {
        res = mc->set.i(mc->name, (int)num, mc->privdata, &merr);
    }
    *err = moduleConfigTakeError(merr);
    return res == MODAPI_OK ? C_OK : C_ERR;
}

/* The getter's string as an sds; NULL when it returned none. */
static sds moduleConfigGetString(moduleConfig *mc) {
    RedisModuleString *val = mc->get.str(mc->name, mc->privdata);
    if (val == NULL) return NULL;
    moduleStringDecode(val);
    return sdsdup(val->ptr);
}

static long long moduleConfigGetNumber(moduleConfig *mc) {
    if (mc->type == MCFG_NUMERIC) return mc->get.num(mc->name, mc->privdata);
    return mc->get.i(mc->name, mc->privdata);
}

static sds enumChoicesError(moduleConfig *mc) {
    sds err = sdsnew("argument(s) must be one of the following: ");
    for (int j = 0; j < mc->nenum; j++) err = sdscatfmt(err, "%s%S", j ? ", " : "", mc->enum_names[j]);
    if (sdslen(err) >= MCFG_ERR_MAX) sdsrange(err, 0, MCFG_ERR_MAX - 2);
    return err;
}

/* Names (several, space separated, for BITFLAGS) to their value. */
static int parseEnum(moduleConfig *mc, const char *s, long long *out, sds *err) {
    int count = 0;
    sds *words = sdssplitlen(s, (ssize_t)strlen(s), " ", 1, &count);
    int ok = count > 0 && (count == 1 || (mc->flags & MCFG_BITFLAGS));
    int value = 0;
    for (int w = 0; ok && w < count; w++) {
        int matched = 0;
        for (int j = 0; j < mc->nenum; j++) {
            if (strcasecmp(words[w], mc->enum_names[j])) continue;
            value |= mc->enum_vals[j];
            matched = 1;
        }
        ok = matched;
    }
    sdsfreesplitres(words, count);
    if (!ok) {
        *err = enumChoicesError(mc);
        return C_ERR;
    }
    *out = value;
    return C_OK;
}

/* A MEMORY config takes a memory value only ("-5" is refused as one), as
 * Redis 7.0's numeric configs with flags do; others an integer. */
static int parseNumber(moduleConfig *mc, const char *s, long long *out, sds *err) {
    int memerr = 1;
    if (mc->flags & MCFG_MEMORY) *out = (long long)memtoull(s, &memerr);
    if (memerr && ((mc->flags & MCFG_MEMORY) || !string2ll(s, strlen(s), out))) {
        *err = sdsnew(mc->flags & MCFG_MEMORY ? "argument must be a memory value"
                                              : "argument couldn't be parsed into an integer");
        return C_ERR;
    }
    if (*out < mc->min || *out > mc->max) {
        *err = sdscatprintf(sdsempty(), "argument must be between %lld and %lld inclusive", mc->min, mc->max);
        return C_ERR;
    }
    return C_OK;
}

/* CONFIG SET's and the queue's way: parse as Redis parses that type, call
 * the setter if the value changes (*changed then set). A string's value is
 * binary, as in Redis. */
int moduleConfigSet(moduleConfig *mc, sds value, sds *err, int *changed) {
    *changed = 0;
    *err = NULL;
    if (mc->type == MCFG_STRING) {
        sds prev = moduleConfigGetString(mc);
        int same = prev && !sdscmp(prev, value);
        sdsfree(prev);
        if (same) return C_OK;
        *changed = 1;
        return moduleConfigCallSetter(mc, 0, value, sdslen(value), err);
    }
    long long v;
    if (mc->type == MCFG_BOOL) {
        if (strcasecmp(value, "yes") && strcasecmp(value, "no")) {
            *err = sdsnew("argument must be 'yes' or 'no'");
            return C_ERR;
        }
        v = !strcasecmp(value, "yes");
    } else if (mc->type == MCFG_ENUM) {
        if (parseEnum(mc, value, &v, err) != C_OK) return C_ERR;
    } else if (parseNumber(mc, value, &v, err) != C_OK) {
        return C_ERR;
    }
    if (moduleConfigGetNumber(mc) == v) return C_OK;
    *changed = 1;
    return moduleConfigCallSetter(mc, v, NULL, 0, err);
}

static int moduleConfigSetDefault(moduleConfig *mc, sds *err) {
    if (mc->type == MCFG_STRING)
        return moduleConfigCallSetter(mc, 0, mc->def_str, mc->def_str ? sdslen(mc->def_str) : 0, err);
    return moduleConfigCallSetter(mc, mc->def_num, NULL, 0, err);
}

/* Redis's form: the one name equal to the value, else (BITFLAGS) the names
 * whose bits are all set, in registration order; "unknown" otherwise. */
static sds enumName(moduleConfig *mc, int value) {
    for (int j = 0; j < mc->nenum; j++)
        if (mc->enum_vals[j] == value) return sdsdup(mc->enum_names[j]);
    sds names = sdsempty();
    int left = value;
    for (int j = 0; (mc->flags & MCFG_BITFLAGS) && j < mc->nenum; j++) {
        int bits = mc->enum_vals[j];
        if (bits == 0 || (left & bits) != bits) continue;
        names = sdscatfmt(names, "%s%S", sdslen(names) ? " " : "", mc->enum_names[j]);
        left &= ~bits;
    }
    if (sdslen(names) == 0 || left) {
        sdsfree(names);
        return sdsnew("unknown");
    }
    return names;
}

/* The value as CONFIG GET shows it. */
sds moduleConfigGetValue(moduleConfig *mc) {
    char buf[64];
    switch (mc->type) {
    case MCFG_STRING: {
        sds s = moduleConfigGetString(mc);
        return s ? s : sdsempty();
    }
    case MCFG_BOOL: return sdsnew(moduleConfigGetNumber(mc) ? "yes" : "no");
    case MCFG_ENUM: return enumName(mc, (int)moduleConfigGetNumber(mc));
    default: break;
    }
    long long v = moduleConfigGetNumber(mc);
    if (mc->flags & MCFG_MEMORY) snprintf(buf, sizeof buf, "%llu", (unsigned long long)v);
    else snprintf(buf, sizeof buf, "%lld", v);
    return sdsnew(buf);
}

/* ---- LoadConfigs and the queue ------------------------------------------------------ */

static void queueEmpty(void) {
    if (queue == NULL) return;
    while (listLength(queue)) {
        queuedValue *q = listNodeValue(listFirst(queue));
        sdsfree(q->name);
        sdsfree(q->value);
        zfree(q);
        listDelNode(queue, listFirst(queue));
    }
}

static listNode *queueFind(const char *name) {
    if (queue == NULL) return NULL;
    listIter li;
    listNode *ln;
    listRewind(queue, &li);
    while ((ln = listNext(&li)))
        if (!strcasecmp(((queuedValue *)listNodeValue(ln))->name, name)) return ln;
    return NULL;
}

/* A value for a config not registered yet; a later one replaces it. The
 * value is binary (a string config may hold a NUL, as in Redis). */
void moduleConfigQueueValue(const char *name, sds value) {
    if (queue == NULL) queue = listCreate();
    listNode *ln = queueFind(name);
    if (ln) {
        queuedValue *q = listNodeValue(ln);
        sdsfree(q->value);
        q->value = sdsdup(value);
        return;
    }
    queuedValue *q = zmalloc(sizeof(*q));
    q->name = sdsnew(name);
    q->value = sdsdup(value);
    listAddNodeTail(queue, q);
}

/* A config file line naming a module config: its words after the name
 * make the value, as in Redis. */
int moduleConfigQueueLine(sds *argv, int argc, sds *err) {
    if (argc < 2) {
        *err = sdsnew("Module config specified without value");
        return C_ERR;
    }
    sds value = sdsdup(argv[1]);
    for (int j = 2; j < argc; j++) value = sdscatfmt(value, " %S", argv[j]);
    moduleConfigQueueValue(argv[0], value);
    sdsfree(value);
    return C_OK;
}

int moduleConfigQueueLength(void) { return queue ? (int)listLength(queue) : 0; }

void moduleConfigQueueDiscard(void) { queueEmpty(); }

static int RM_LoadConfigs(RedisModuleCtx *ctx) {
    if (ctx == NULL || ctx->module == NULL) return MODAPI_ERR;
    module *m = ctx->module;
    for (int j = 0; j < registry_len; j++) {
        moduleConfig *mc = registry[j];
        if (mc->owner != m) continue;
        listNode *ln = queueFind(mc->fullname);
        sds err = NULL;
        int changed, res;
        if (ln) res = moduleConfigSet(mc, ((queuedValue *)listNodeValue(ln))->value, &err, &changed);
        else res = moduleConfigSetDefault(mc, &err);
        if (res != C_OK) {
            if (ln) serverLog(LL_WARNING, "Issue during loading of configuration %s : %s", mc->fullname,
                              err ? err : "(null)");
            else serverLog(LL_WARNING, "Issue attempting to set default value of configuration %s : %s", mc->name,
                           err ? err : "(null)");
            sdsfree(err);
            queueEmpty();
            return MODAPI_ERR;
        }
        if (ln) {
            queuedValue *q = listNodeValue(ln);
            sdsfree(q->name);
            sdsfree(q->value);
            zfree(q);
            listDelNode(queue, ln);
        }
    }
    m->configs_loaded = 1;
    return MODAPI_OK;
}

/* ---- what config.c asks --------------------------------------------------------- */

int moduleConfigFlags(moduleConfig *mc) {
    int f = 0;
    if (mc->flags & MCFG_IMMUTABLE) f |= MODULE_CONFIG_F_IMMUTABLE;
    if (mc->flags & MCFG_SENSITIVE) f |= MODULE_CONFIG_F_SENSITIVE;
    if (mc->flags & MCFG_HIDDEN) f |= MODULE_CONFIG_F_HIDDEN;
    if (mc->flags & MCFG_PROTECTED) f |= MODULE_CONFIG_F_PROTECTED;
    if (mc->flags & MCFG_DENY_LOADING) f |= MODULE_CONFIG_F_DENY_LOADING;
    return f;
}

const char *moduleConfigName(moduleConfig *mc) { return mc->fullname; }

/* The i-th config (CONFIG GET's patterns, CONFIG REWRITE), NULL past the end. */
moduleConfig *moduleConfigAt(int i) { return i < registry_len ? registry[i] : NULL; }

/* CONFIG REWRITE's line for it, and whether its value is its default. */
sds moduleConfigRewriteLine(moduleConfig *mc, int *is_default) {
    sds value = moduleConfigGetValue(mc);
    sds line = sdscatfmt(sdsempty(), "%S ", mc->fullname);
    if (mc->type == MCFG_STRING) {
        *is_default = mc->def_str ? !strcmp(value, mc->def_str) : sdslen(value) == 0;
        line = sdscatrepr(line, value, sdslen(value));
    } else if (mc->type == MCFG_NUMERIC) {
        long long v = moduleConfigGetNumber(mc);
        *is_default = v == mc->def_num;
        line = sdscatsds(line, value);
    } else {
        *is_default = moduleConfigGetNumber(mc) == mc->def_num;
        line = sdscatsds(line, value);
    }
    sdsfree(value);
    return line;
}

/* CONFIG SET runs each (apply callback, privdata) once, in the order the
 * configs were named. */
void moduleConfigAddApply(list *pending, moduleConfig *mc) {
    if (mc->apply == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(pending, &li);
    while ((ln = listNext(&li))) {
        moduleConfig *other = listNodeValue(ln);
        if (other->apply == mc->apply && other->privdata == mc->privdata) return;
    }
    listAddNodeTail(pending, mc);
}

/* C_ERR at the first apply that fails: *err its message (or NULL), *culprit
 * the config's name as registered (Redis names it so in its error). */
int moduleConfigRunApplies(list *pending, sds *err, const char **culprit) {
    listIter li;
    listNode *ln;
    listRewind(pending, &li);
    while ((ln = listNext(&li))) {
        moduleConfig *mc = listNodeValue(ln);
        RedisModuleCtx ctx;
        RedisModuleString *merr = NULL;
        moduleCtxInit(&ctx, mc->owner, NULL);
        int res = mc->apply(&ctx, mc->privdata, &merr);
        moduleCtxFinish(&ctx);
        if (res != MODAPI_OK) {
            *err = moduleConfigTakeError(merr);
            if (culprit) *culprit = mc->name;
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---- the lookup table -------------------------------------------------------------- */

static const moduleApiEntry config_api_table[] = {
    MODULE_API(RegisterBoolConfig), MODULE_API(RegisterStringConfig), MODULE_API(RegisterNumericConfig),
    MODULE_API(RegisterEnumConfig), MODULE_API(LoadConfigs),
};

int moduleConfigGetApi(const char *name, void *target) { return MODULE_API_LOOKUP(config_api_table, name, target); }
