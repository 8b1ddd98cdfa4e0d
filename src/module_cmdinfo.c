/* module_cmdinfo.c -- SetCommandInfo: what a module says about one of its
 * commands (summary, complexity, since, history, tips, arity, key specs,
 * arguments), as COMMAND INFO and COMMAND DOCS then report it, and as key
 * lookups (keyspec.c: ACL, cluster routing, GETKEYS) then use it.
 *
 * The module's structures are Redis 7.0's ABI (redismodule.h): arrays
 * whose element sizes the module's header states in its version struct,
 * each ending with a zeroed element. They are read with those sizes, so a
 * module built against a later header (larger elements) reads right too.
 *
 * Design decisions, each Redis 7.0's:
 *  - Invalid info is refused whole (EINVAL) with the warning Redis logs;
 *    info on a command that has some already is refused (EEXIST), except
 *    the single range its CreateCommand positions gave it.
 *  - Key specs replace that range; the legacy first/last/step of COMMAND
 *    INFO is then glued from the range specs (commandLegacyRangeFromSpecs,
 *    keyspec.c). An omitted find_keys is a single key.
 *  - Everything is copied: the module may free its structures at once.
 *    moduleCmdInfoFree releases it all when the command goes.
 * History and arguments are kept here (moduleCmdInfo); COMMAND DOCS asks
 * for them through moduleAddReplyCommandDocsExtra. */
#include "module_int.h"

#include <errno.h>

/* ---- the ABI (redismodule.h 7.0) ---------------------------------------------- */

typedef struct {
    int version;
    size_t sizeof_historyentry;
    size_t sizeof_keyspec;
    size_t sizeof_arg;
} abiInfoVersion;

typedef struct {
    const char *since;
    const char *changes;
} abiHistoryEntry;

typedef struct {
    const char *notes;
    uint64_t flags;
    int begin_search_type; /* 0 ends the array; 1 unknown, 2 index, 3 keyword */
    union {
        struct {
            int pos;
        } index;
        struct {
            const char *keyword;
            int startfrom;
        } keyword;
    } bs;
    int find_keys_type; /* 0 omitted (one key), 1 unknown, 2 range, 3 keynum */
    union {
        struct {
            int lastkey, keystep, limit;
        } range;
        struct {
            int keynumidx, firstkey, keystep;
        } keynum;
    } fk;
} abiKeySpec;

typedef struct abiArg {
    const char *name; /* NULL ends the array */
    int type;         /* ARG_TYPE_* order below */
    int key_spec_index;
    const char *token;
    const char *summary;
    const char *since;
    int flags; /* optional, multiple, multiple_token */
    const char *deprecated_since;
    struct abiArg *subargs;
} abiArg;

typedef struct {
    const abiInfoVersion *version;
    const char *summary;
    const char *complexity;
    const char *since;
    abiHistoryEntry *history;
    const char *tips;
    int arity;
    abiKeySpec *key_specs;
    abiArg *args;
} abiInfo;

#define ABI_BS_UNKNOWN 1
#define ABI_BS_INDEX 2
#define ABI_BS_KEYWORD 3
#define ABI_FK_OMITTED 0
#define ABI_FK_UNKNOWN 1
#define ABI_FK_RANGE 2
#define ABI_FK_KEYNUM 3
#define ABI_ARG_KEY 3
#define ABI_ARG_PURE_TOKEN 6
#define ABI_ARG_ONEOF 7
#define ABI_ARG_BLOCK 8
#define ABI_ARG_FLAGS_ALL 7 /* below _REDISMODULE_CMD_ARG_NEXT */

static const char *const arg_type_names[] = {"string",    "integer",    "double", "key",  "pattern",
                                             "unix-time", "pure-token", "oneof",  "block"};
#define ARG_TYPE_COUNT ((int)(sizeof arg_type_names / sizeof arg_type_names[0]))

/* Element j of an array whose element size the module's header gave. */
static const void *abiAt(const void *array, size_t size, size_t j) { return (const char *)array + size * j; }
#define HISTORY_AT(v, a, j) ((const abiHistoryEntry *)abiAt(a, (v)->sizeof_historyentry, j))
#define KEYSPEC_AT(v, a, j) ((const abiKeySpec *)abiAt(a, (v)->sizeof_keyspec, j))
#define ARG_AT(v, a, j) ((const abiArg *)abiAt(a, (v)->sizeof_arg, j))

/* ---- what we keep ------------------------------------------------------------- */

typedef struct cmdArg {
    char *name, *token, *summary, *since, *deprecated_since;
    int type, key_spec_index, flags;
    struct cmdArg *subargs;
    int nsubargs;
} cmdArg;

struct moduleCmdInfo {
    char **history; /* since, changes, since, changes ... */
    int nhistory;
    cmdArg *args;
    int nargs;
};

static char *dupOrNull(const char *s) { return s ? zstrdup(s) : NULL; }

/* ---- validation (Redis 7.0's rules and warnings) ------------------------------ */

static int isPowerOfTwo(uint64_t v) { return v && !(v & (v - 1)); }

static int validateArgs(const abiInfoVersion *v, const abiArg *args) {
    if (args == NULL) return 1;
    for (size_t j = 0; ARG_AT(v, args, j)->name; j++) {
        const abiArg *a = ARG_AT(v, args, j);
        if (a->type < 0 || a->type >= ARG_TYPE_COUNT) {
            serverLog(LL_WARNING, "Invalid command info: Argument \"%s\": Undefined type %d", a->name, a->type);
            return 0;
        }
        if (a->type == ABI_ARG_PURE_TOKEN && !a->token) {
            serverLog(LL_WARNING, "Invalid command info: Argument \"%s\": token required when type is PURE_TOKEN",
                      a->name);
            return 0;
        }
        if (a->type == ABI_ARG_KEY) {
            if (a->key_spec_index < 0) {
                serverLog(LL_WARNING, "Invalid command info: Argument \"%s\": key_spec_index required when type is KEY",
                          a->name);
                return 0;
            }
        } else if (a->key_spec_index != -1 && a->key_spec_index != 0) { /* 0: a literal that left it out */
            serverLog(LL_WARNING, "Invalid command info: Argument \"%s\": key_spec_index specified but type isn't KEY",
                      a->name);
            return 0;
        }
        if (a->flags & ~ABI_ARG_FLAGS_ALL) {
            serverLog(LL_WARNING, "Invalid command info: Argument \"%s\": Invalid flags", a->name);
            return 0;
        }
        if (a->type == ABI_ARG_ONEOF || a->type == ABI_ARG_BLOCK) {
            if (a->subargs == NULL) {
                serverLog(LL_WARNING,
                          "Invalid command info: Argument \"%s\": subargs required when type is ONEOF or BLOCK",
                          a->name);
                return 0;
            }
            if (!validateArgs(v, a->subargs)) return 0;
        } else if (a->subargs != NULL) {
            serverLog(LL_WARNING,
                      "Invalid command info: Argument \"%s\": subargs specified but type isn't ONEOF nor BLOCK",
                      a->name);
            return 0;
        }
    }
    return 1;
}

static int validateKeySpecs(const abiInfoVersion *v, const abiKeySpec *specs) {
    const uint64_t access = KSPEC_RO | KSPEC_RW | KSPEC_OW | KSPEC_RM;
    const uint64_t write = KSPEC_INSERT | KSPEC_DELETE | KSPEC_UPDATE;
    for (size_t j = 0; KEYSPEC_AT(v, specs, j)->begin_search_type; j++) {
        const abiKeySpec *s = KEYSPEC_AT(v, specs, j);
        if (j >= INT_MAX) {
            serverLog(LL_WARNING, "Invalid command info: Too many key specs");
            return 0;
        }
        if (!isPowerOfTwo(s->flags & access)) {
            serverLog(LL_WARNING,
                      "Invalid command info: key_specs[%zd].flags: Exactly one of the flags RO, RW, OW, RM required",
                      j);
            return 0;
        }
        if ((s->flags & write) && !isPowerOfTwo(s->flags & write)) {
            serverLog(LL_WARNING,
                      "Invalid command info: key_specs[%zd].flags: INSERT, DELETE and UPDATE are mutually exclusive", j);
            return 0;
        }
        if (s->begin_search_type == ABI_BS_KEYWORD && s->bs.keyword.keyword == NULL) {
            serverLog(LL_WARNING,
                      "Invalid command info: key_specs[%zd].bs.keyword.keyword required when begin_search_type is "
                      "KEYWORD",
                      j);
            return 0;
        }
        if (s->begin_search_type < ABI_BS_UNKNOWN || s->begin_search_type > ABI_BS_KEYWORD) {
            serverLog(LL_WARNING, "Invalid command info: key_specs[%zd].begin_search_type: Invalid value %d", j,
                      s->begin_search_type);
            return 0;
        }
        if (s->find_keys_type < ABI_FK_OMITTED || s->find_keys_type > ABI_FK_KEYNUM) {
            serverLog(LL_WARNING, "Invalid command info: key_specs[%zd].find_keys_type: Invalid value %d", j,
                      s->find_keys_type);
            return 0;
        }
    }
    return 1;
}

static int validateInfo(const abiInfo *info) {
    const abiInfoVersion *v = info->version;
    if (v == NULL) {
        serverLog(LL_WARNING, "Invalid command info: version missing");
        return 0;
    }
    if (info->history)
        for (size_t j = 0; HISTORY_AT(v, info->history, j)->since; j++)
            if (!HISTORY_AT(v, info->history, j)->changes) {
                serverLog(LL_WARNING, "Invalid command info: history[%zd].changes missing", j);
                return 0;
            }
    if (info->key_specs && !validateKeySpecs(v, info->key_specs)) return 0;
    return validateArgs(v, info->args);
}

/* ---- copying ------------------------------------------------------------------ */

static cmdArg *copyArgs(const abiInfoVersion *v, const abiArg *args, int *count) {
    int n = 0;
    while (ARG_AT(v, args, (size_t)n)->name) n++;
    cmdArg *out = zcalloc(sizeof(*out) * (size_t)(n ? n : 1));
    for (int j = 0; j < n; j++) {
        const abiArg *a = ARG_AT(v, args, (size_t)j);
        out[j].name = zstrdup(a->name);
        out[j].type = a->type;
        out[j].key_spec_index = a->type == ABI_ARG_KEY ? a->key_spec_index : -1;
        out[j].token = dupOrNull(a->token);
        out[j].summary = dupOrNull(a->summary);
        out[j].since = dupOrNull(a->since);
        out[j].flags = a->flags;
        out[j].deprecated_since = dupOrNull(a->deprecated_since);
        if (a->subargs) out[j].subargs = copyArgs(v, a->subargs, &out[j].nsubargs);
    }
    *count = n;
    return out;
}

static void freeArgs(cmdArg *args, int n) {
    for (int j = 0; j < n; j++) {
        zfree(args[j].name);
        zfree(args[j].token);
        zfree(args[j].summary);
        zfree(args[j].since);
        zfree(args[j].deprecated_since);
        if (args[j].subargs) freeArgs(args[j].subargs, args[j].nsubargs);
    }
    zfree(args);
}

static keySpec *copyKeySpecs(const abiInfoVersion *v, const abiKeySpec *specs, int *count) {
    int n = 0;
    while (KEYSPEC_AT(v, specs, (size_t)n)->begin_search_type) n++;
    keySpec *out = zcalloc(sizeof(*out) * (size_t)(n ? n : 1));
    for (int j = 0; j < n; j++) {
        const abiKeySpec *s = KEYSPEC_AT(v, specs, (size_t)j);
        keySpec *k = &out[j];
        k->notes = dupOrNull(s->notes);
        /* REDISMODULE_CMD_KEY_* are KSPEC_*'s bits */
        k->flags = s->flags & (KSPEC_RO | KSPEC_RW | KSPEC_OW | KSPEC_RM | KSPEC_ACCESS | KSPEC_UPDATE | KSPEC_INSERT |
                               KSPEC_DELETE | KSPEC_NOT_KEY | KSPEC_INCOMPLETE | KSPEC_VARIABLE_FLAGS);
        if (s->begin_search_type == ABI_BS_INDEX) {
            k->bs_type = KSPEC_BS_INDEX;
            k->bs.index = s->bs.index.pos;
        } else if (s->begin_search_type == ABI_BS_KEYWORD) {
            k->bs_type = KSPEC_BS_KEYWORD;
            k->bs.keyword.keyword = zstrdup(s->bs.keyword.keyword);
            k->bs.keyword.startfrom = s->bs.keyword.startfrom;
        } else {
            k->bs_type = KSPEC_BS_UNKNOWN;
        }
        if (s->find_keys_type == ABI_FK_OMITTED || s->find_keys_type == ABI_FK_RANGE) {
            k->fk_type = KSPEC_FK_RANGE;
            int omitted = s->find_keys_type == ABI_FK_OMITTED;
            k->fk.range.lastkey = omitted ? 0 : s->fk.range.lastkey;
            k->fk.range.keystep = omitted ? 1 : s->fk.range.keystep;
            k->fk.range.limit = omitted ? 0 : s->fk.range.limit;
        } else if (s->find_keys_type == ABI_FK_KEYNUM) {
            k->fk_type = KSPEC_FK_KEYNUM;
            k->fk.keynum.keynumidx = s->fk.keynum.keynumidx;
            k->fk.keynum.firstkey = s->fk.keynum.firstkey;
            k->fk.keynum.keystep = s->fk.keynum.keystep;
        } else {
            k->fk_type = KSPEC_FK_UNKNOWN;
        }
    }
    *count = n;
    return out;
}

static void freeKeySpecs(keySpec *specs, int n) {
    for (int j = 0; j < n; j++) {
        zfree((char *)specs[j].notes);
        if (specs[j].bs_type == KSPEC_BS_KEYWORD) zfree((char *)specs[j].bs.keyword.keyword);
    }
    zfree(specs);
}

/* ---- the API ------------------------------------------------------------------ */

static int RM_SetCommandInfo(moduleCmd *mc, const abiInfo *info) {
    if (mc == NULL || info == NULL || !validateInfo(info)) {
        errno = EINVAL;
        return MODAPI_ERR;
    }
    redisCommand *cmd = mc->cmd;
    if (cmd->summary || cmd->complexity || cmd->since || cmd->tips || mc->info || cmd->key_specs) {
        errno = EEXIST;
        return MODAPI_ERR;
    }
    const abiInfoVersion *v = info->version;
    cmd->summary = dupOrNull(info->summary);
    cmd->complexity = dupOrNull(info->complexity);
    cmd->since = dupOrNull(info->since);
    cmd->tips = dupOrNull(info->tips);
    if (info->arity) cmd->arity = info->arity;
    if (info->key_specs) {
        cmd->key_specs = copyKeySpecs(v, info->key_specs, &cmd->key_specs_num);
        commandLegacyRangeFromSpecs(cmd);
    }
    if (info->history || info->args) {
        mc->info = zcalloc(sizeof(*mc->info));
        if (info->history) {
            int n = 0;
            while (HISTORY_AT(v, info->history, (size_t)n)->since) n++;
            mc->info->history = zmalloc(sizeof(char *) * (size_t)(2 * n + 1));
            for (int j = 0; j < n; j++) {
                mc->info->history[2 * j] = zstrdup(HISTORY_AT(v, info->history, (size_t)j)->since);
                mc->info->history[2 * j + 1] = zstrdup(HISTORY_AT(v, info->history, (size_t)j)->changes);
            }
            mc->info->nhistory = n;
        }
        if (info->args) mc->info->args = copyArgs(v, info->args, &mc->info->nargs);
    }
    return MODAPI_OK;
}

void moduleCmdInfoFree(moduleCmd *mc) {
    redisCommand *cmd = mc->cmd;
    zfree((char *)cmd->summary);
    zfree((char *)cmd->complexity);
    zfree((char *)cmd->since);
    zfree((char *)cmd->tips);
    if (cmd->key_specs) freeKeySpecs((keySpec *)cmd->key_specs, cmd->key_specs_num);
    cmd->summary = cmd->complexity = cmd->since = cmd->tips = NULL;
    cmd->key_specs = NULL;
    if (mc->info) {
        for (int j = 0; j < 2 * mc->info->nhistory; j++) zfree(mc->info->history[j]);
        zfree(mc->info->history);
        if (mc->info->args) freeArgs(mc->info->args, mc->info->nargs);
        zfree(mc->info);
        mc->info = NULL;
    }
}

/* ---- COMMAND DOCS ------------------------------------------------------------- */

static void addReplyArgs(client *c, const cmdArg *args, int n) {
    addReplyArrayLen(c, n);
    for (int j = 0; j < n; j++) {
        const cmdArg *a = &args[j];
        int nested = a->type == ABI_ARG_ONEOF || a->type == ABI_ARG_BLOCK;
        long fields = 2 + (a->key_spec_index != -1) + (a->token != NULL) + (a->summary != NULL) + (a->since != NULL) +
                      (a->deprecated_since != NULL) + (a->flags != 0) + nested;
        addReplyMapLen(c, fields);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, a->name);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, arg_type_names[a->type]);
        if (a->key_spec_index != -1) {
            addReplyBulkCString(c, "key_spec_index");
            addReplyLongLong(c, a->key_spec_index);
        }
        const char *texts[][2] = {{"token", a->token}, {"summary", a->summary}, {"since", a->since},
                                  {"deprecated_since", a->deprecated_since}};
        for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
            if (texts[t][1] == NULL) continue;
            addReplyBulkCString(c, texts[t][0]);
            addReplyBulkCString(c, texts[t][1]);
        }
        if (a->flags) {
            static const char *const names[] = {"optional", "multiple", "multiple_token"};
            addReplyBulkCString(c, "flags");
            addReplySetLen(c, __builtin_popcount((unsigned)a->flags));
            for (int f = 0; f < 3; f++)
                if (a->flags & (1 << f)) addReplyStatus(c, names[f]);
        }
        if (nested) {
            addReplyBulkCString(c, "arguments");
            addReplyArgs(c, a->subargs, a->nsubargs);
        }
    }
}

long moduleCommandDocsExtraFields(redisCommand *cmd) {
    moduleCmdInfo *info = cmd->module_cmd ? cmd->module_cmd->info : NULL;
    return info ? (info->history != NULL) + (info->args != NULL) : 0;
}

/* "history" and "arguments", in Redis's place for them (after "module"). */
void moduleAddReplyCommandDocsExtra(client *c, redisCommand *cmd) {
    moduleCmdInfo *info = cmd->module_cmd ? cmd->module_cmd->info : NULL;
    if (info == NULL) return;
    if (info->history) {
        addReplyBulkCString(c, "history");
        addReplySetLen(c, info->nhistory);
        for (int j = 0; j < info->nhistory; j++) {
            addReplyArrayLen(c, 2);
            addReplyBulkCString(c, info->history[2 * j]);
            addReplyBulkCString(c, info->history[2 * j + 1]);
        }
    }
    if (info->args) {
        addReplyBulkCString(c, "arguments");
        addReplyArgs(c, info->args, info->nargs);
    }
}

static const moduleApiEntry cmdinfo_api[] = {MODULE_API(SetCommandInfo)};

int moduleCmdInfoGetApi(const char *name, void *target) { return MODULE_API_LOOKUP(cmdinfo_api, name, target); }
