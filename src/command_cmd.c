/* command_cmd.c -- COMMAND: COUNT, INFO, DOCS, LIST, GETKEYS, GETKEYSANDFLAGS
 * and HELP, answered from the command table (commands.c) as it was
 * registered at start-up, so they describe exactly the commands this binary
 * can run.
 *
 * COMMAND INFO entries have Redis 7's ten fields: name, arity, flags, first
 * key, last key, key step, ACL categories, tips, key specs and subcommands
 * (nested entries of the same shape).
 *
 * Decisions:
 * - ACL categories are derived, as Redis does for the implicit ones, from
 *   the flags (write, readonly -> read, admin -> admin+dangerous, pubsub,
 *   fast, blocking, and slow when not fast) plus the category of the
 *   command's group (string -> @string, generic -> @keyspace ...). The few
 *   commands Redis categorizes by hand (@dangerous KEYS, @connection
 *   COMMAND, SORT's @set @sortedset @list ...) are listed in one small table
 *   that replaces the group's category.
 * - Key specs, tips and the "movablekeys" flag come from the table's KEYS(),
 *   TIPS() and GETKEYS() (keyspec.c follows the specs); a command without
 *   KEYS() shows one spec derived from its legacy key positions.
 * - The reply types are Redis 7.0's, visible in RESP3: flags, categories,
 *   tips and key specs are sets; subcommands an array (an empty set when
 *   the command has none).
 * - COMMAND DOCS turns the table's argument hint ("key value [NX | XX]
 *   [key value ...]") into Redis's argument tree (tokens, optional,
 *   multiple, oneof and block arguments), so redis-cli can show hints.
 * - Output follows the command table's order rather than hash order, so it
 *   is stable between calls and between builds.
 */
#include "server.h"
#include "acl.h"

/* ---- looking commands up ------------------------------------------------------------------- */

static int commandIsRegistered(redisCommand *cmd) {
    if (cmd->fullname == NULL) return 0;
    if (cmd->parent == NULL) return lookupCommandBySds(cmd->fullname) == cmd;
    if (cmd->parent->subcommands_dict == NULL) return 0;
    sds name = sdsnew(cmd->declared_name);
    int found = dictFetchValue(cmd->parent->subcommands_dict, name) == cmd;
    sdsfree(name);
    return found;
}

static int commandById(const void *a, const void *b) {
    const redisCommand *x = *(redisCommand *const *)a, *y = *(redisCommand *const *)b;
    return x->id < y->id ? -1 : x->id > y->id;
}

/* The registered commands under parent (NULL: the top level), in a stable
 * order: the table's, then those modules created (CreateCommand,
 * CreateSubcommand), in creation order. A zmalloc'd array of *count. */
static redisCommand **collectCommands(redisCommand *parent, int with_table, long *count) {
    dict *d = parent ? parent->subcommands_dict : server.commands;
    long cap = d ? (long)dictSize(d) : 0, n = 0;
    redisCommand **out = zmalloc(sizeof(*out) * (size_t)(cap ? cap : 1));
    if (with_table)
        for (redisCommand *cmd = parent ? parent->subcommands : redisCommandTable; cmd && cmd->declared_name; cmd++)
            if (n < cap && commandIsRegistered(cmd)) out[n++] = cmd;
    long table_count = n;
    if (d) {
        dictIterator *it = dictGetIterator(d);
        dictEntry *de;
        while ((de = dictNext(it)) != NULL) {
            redisCommand *cmd = dictGetVal(de);
            if (cmd->module_cmd && n < cap) out[n++] = cmd;
        }
        dictReleaseIterator(it);
    }
    qsort(out + table_count, (size_t)(n - table_count), sizeof(*out), commandById);
    *count = n;
    return out;
}

redisCommand **registeredCommands(redisCommand *parent, long *count) { return collectCommands(parent, 1, count); }
redisCommand **registeredModuleCommands(redisCommand *parent, long *count) { return collectCommands(parent, 0, count); }

/* "get" or "config|get" (case-insensitive); NULL if no such command. */
redisCommand *lookupCommandByFullName(const char *name) {
    const char *bar = strchr(name, '|');
    if (bar == NULL) return lookupCommandByCString(name);
    sds parent_name = sdsnewlen(name, (size_t)(bar - name));
    redisCommand *parent = lookupCommandBySds(parent_name);
    sdsfree(parent_name);
    if (parent == NULL || parent->subcommands_dict == NULL || strchr(bar + 1, '|')) return NULL;
    sds sub_name = sdsnew(bar + 1);
    redisCommand *sub = dictFetchValue(parent->subcommands_dict, sub_name);
    sdsfree(sub_name);
    return sub;
}

static long countRegisteredSubcommands(redisCommand *cmd) {
    return cmd->subcommands_dict ? (long)dictSize(cmd->subcommands_dict) : 0;
}

/* ---- flags and ACL categories ----------------------------------------------------------------- */

/* Not declared in the table but computed: from the key specs, and from
 * being a module's command. */
#define FLAG_MOVABLE_KEYS (1ULL << 63)
#define FLAG_MODULE (1ULL << 62)

/* In Redis's order, which is the order COMMAND INFO lists them in. */
static const struct {
    uint64_t flag;
    const char *name;
} command_flag_names[] = {
    {CMD_WRITE, "write"},       {CMD_READONLY, "readonly"},   {CMD_DENYOOM, "denyoom"}, {FLAG_MODULE, "module"},
    {CMD_ADMIN, "admin"},       {CMD_PUBSUB, "pubsub"},       {CMD_NOSCRIPT, "noscript"},
    {CMD_BLOCKING, "blocking"}, {CMD_LOADING, "loading"},     {CMD_STALE, "stale"},
    {CMD_SKIP_MONITOR, "skip_monitor"}, {CMD_SKIP_SLOWLOG, "skip_slowlog"}, {CMD_ASKING, "asking"}, {CMD_FAST, "fast"},
    {CMD_NO_AUTH, "no_auth"},   {CMD_NO_MANDATORY_KEYS, "no_mandatory_keys"}, /* may_replicate, protected: internal, not listed */
    {CMD_NO_ASYNC_LOADING, "no_async_loading"}, {CMD_NO_MULTI, "no_multi"},
    {FLAG_MOVABLE_KEYS, "movablekeys"}, {CMD_ALLOW_BUSY, "allow_busy"},
};

#define ACL_KEYSPACE ACL_CAT_KEYSPACE /* the enum (command_groups.h), short names here */
#define ACL_READ ACL_CAT_READ
#define ACL_WRITE ACL_CAT_WRITE
#define ACL_ADMIN ACL_CAT_ADMIN
#define ACL_DANGEROUS ACL_CAT_DANGEROUS
#define ACL_PUBSUB ACL_CAT_PUBSUB
#define ACL_FAST ACL_CAT_FAST
#define ACL_SLOW ACL_CAT_SLOW
#define ACL_BLOCKING ACL_CAT_BLOCKING
#define ACL_SCRIPTING ACL_CAT_SCRIPTING
#define ACL_COUNT ACL_CAT_COUNT
#define ACL_BIT(c) ACL_CAT_BIT(c)

static const char *acl_category_names[ACL_COUNT] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog", "geo",
    "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting",
};

/* The category a group gives its commands (none for server, pubsub,
 * cluster: theirs come from flags or an ACL(...) of the entry). */
static int groupCategoryOf(int group) {
    switch (group) {
    case CMD_GROUP_STRING: return ACL_CAT_STRING;
    case CMD_GROUP_GENERIC: return ACL_CAT_KEYSPACE;
    case CMD_GROUP_LIST: return ACL_CAT_LIST;
    case CMD_GROUP_HASH: return ACL_CAT_HASH;
    case CMD_GROUP_SET: return ACL_CAT_SET;
    case CMD_GROUP_SORTED_SET: return ACL_CAT_SORTEDSET;
    case CMD_GROUP_BITMAP: return ACL_CAT_BITMAP;
    case CMD_GROUP_HYPERLOGLOG: return ACL_CAT_HYPERLOGLOG;
    case CMD_GROUP_GEO: return ACL_CAT_GEO;
    case CMD_GROUP_STREAM: return ACL_CAT_STREAM;
    case CMD_GROUP_TRANSACTIONS: return ACL_CAT_TRANSACTION;
    case CMD_GROUP_SCRIPTING: return ACL_CAT_SCRIPTING;
    case CMD_GROUP_CONNECTION: return ACL_CAT_CONNECTION;
    }
    return -1;
}

/* The categories Redis assigns by hand (an ACL(...) of the command's entry,
 * or its container's) replace the group's; containers (CONFIG, CLIENT ...)
 * take none from their group, their subcommands do. */
static unsigned handOrGroupCategories(redisCommand *cmd) {
    redisCommand *top = cmd->parent ? cmd->parent : cmd;
    if (top->acl_categories_explicit) return top->acl_categories;
    if (cmd->subcommands) return 0;
    int category = groupCategoryOf(cmd->group ? cmd->group : top->group);
    return category < 0 ? 0 : ACL_BIT(category);
}

/* A module's command has none in Redis 7.0 (only +@all reaches it). */
unsigned aclCommandCategories(redisCommand *cmd) {
    if (cmd->module_cmd) return 0;
    unsigned cats = handOrGroupCategories(cmd);
    if (cmd->flags & CMD_WRITE) cats |= ACL_BIT(ACL_WRITE);
    if (cmd->flags & CMD_READONLY && !(cats & ACL_BIT(ACL_SCRIPTING))) cats |= ACL_BIT(ACL_READ);
    if (cmd->flags & CMD_ADMIN) cats |= ACL_BIT(ACL_ADMIN) | ACL_BIT(ACL_DANGEROUS);
    if (cmd->flags & CMD_PUBSUB) cats |= ACL_BIT(ACL_PUBSUB);
    if (cmd->flags & CMD_FAST) cats |= ACL_BIT(ACL_FAST);
    if (cmd->flags & CMD_BLOCKING) cats |= ACL_BIT(ACL_BLOCKING);
    if (!(cats & ACL_BIT(ACL_FAST))) cats |= ACL_BIT(ACL_SLOW);
    return cats;
}

/* -1 when the name is not a category. */
int aclCategoryIndexByName(const char *name) {
    for (int j = 0; j < ACL_COUNT; j++)
        if (!strcasecmp(name, acl_category_names[j])) return j;
    return -1;
}

static void addReplyCommandFlags(client *c, redisCommand *cmd) {
    size_t count = 0, n = sizeof command_flag_names / sizeof command_flag_names[0];
    uint64_t flags = cmd->flags | (commandHasMovableKeys(cmd) ? FLAG_MOVABLE_KEYS : 0) | (cmd->module_cmd ? FLAG_MODULE : 0);
    for (size_t j = 0; j < n; j++)
        if (flags & command_flag_names[j].flag) count++;
    addReplySetLen(c, (long)count);
    for (size_t j = 0; j < n; j++)
        if (flags & command_flag_names[j].flag) addReplyStatus(c, command_flag_names[j].name);
}

static void addReplyCommandCategories(client *c, redisCommand *cmd) {
    unsigned cats = aclCommandCategories(cmd);
    long count = 0;
    for (int j = 0; j < ACL_COUNT; j++)
        if (cats & ACL_BIT(j)) count++;
    addReplySetLen(c, count);
    for (int j = 0; j < ACL_COUNT; j++) {
        if (!(cats & ACL_BIT(j))) continue;
        char name[32];
        snprintf(name, sizeof name, "@%s", acl_category_names[j]);
        addReplyStatus(c, name);
    }
}

/* ---- key specs and tips ------------------------------------------------------------------------------------- */

static const struct {
    uint64_t flag;
    const char *name;
} key_spec_flag_names[] = {
    {KSPEC_RO, "RO"},         {KSPEC_RW, "RW"},         {KSPEC_OW, "OW"},
    {KSPEC_RM, "RM"},         {KSPEC_ACCESS, "access"}, {KSPEC_UPDATE, "update"},
    {KSPEC_INSERT, "insert"}, {KSPEC_DELETE, "delete"}, {KSPEC_NOT_KEY, "not_key"},
    {KSPEC_INCOMPLETE, "incomplete"}, {KSPEC_VARIABLE_FLAGS, "variable_flags"},
};

static void addReplyKeyFlags(client *c, uint64_t flags) {
    size_t count = 0, n = sizeof key_spec_flag_names / sizeof key_spec_flag_names[0];
    for (size_t j = 0; j < n; j++)
        if (flags & key_spec_flag_names[j].flag) count++;
    addReplySetLen(c, (long)count);
    for (size_t j = 0; j < n; j++)
        if (flags & key_spec_flag_names[j].flag) addReplyStatus(c, key_spec_flag_names[j].name);
}

/* {type: ..., spec: {name: value ...}} with up to three integer fields. */
static void addReplySpecPart(client *c, const char *type, int fields, const char *const *names, const int *values) {
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "type");
    addReplyBulkCString(c, type);
    addReplyBulkCString(c, "spec");
    addReplyMapLen(c, fields);
    for (int j = 0; j < fields; j++) {
        addReplyBulkCString(c, names[j]);
        addReplyLongLong(c, values[j]);
    }
}

static void addReplyBeginSearch(client *c, const keySpec *spec) {
    static const char *const index_names[] = {"index"};
    if (spec->bs_type == KSPEC_BS_INDEX) {
        addReplySpecPart(c, "index", 1, index_names, &spec->bs.index);
    } else if (spec->bs_type == KSPEC_BS_KEYWORD) {
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "type");
        addReplyBulkCString(c, "keyword");
        addReplyBulkCString(c, "spec");
        addReplyMapLen(c, 2);
        addReplyBulkCString(c, "keyword");
        addReplyBulkCString(c, spec->bs.keyword.keyword);
        addReplyBulkCString(c, "startfrom");
        addReplyLongLong(c, spec->bs.keyword.startfrom);
    } else {
        addReplySpecPart(c, "unknown", 0, NULL, NULL);
    }
}

static void addReplyFindKeys(client *c, const keySpec *spec) {
    static const char *const range_names[] = {"lastkey", "keystep", "limit"};
    static const char *const keynum_names[] = {"keynumidx", "firstkey", "keystep"};
    if (spec->fk_type == KSPEC_FK_RANGE) {
        int values[] = {spec->fk.range.lastkey, spec->fk.range.keystep, spec->fk.range.limit};
        addReplySpecPart(c, "range", 3, range_names, values);
    } else if (spec->fk_type == KSPEC_FK_KEYNUM) {
        int values[] = {spec->fk.keynum.keynumidx, spec->fk.keynum.firstkey, spec->fk.keynum.keystep};
        addReplySpecPart(c, "keynum", 3, keynum_names, values);
    } else {
        addReplySpecPart(c, "unknown", 0, NULL, NULL);
    }
}

static void addReplyKeySpec(client *c, const keySpec *spec) {
    addReplyMapLen(c, 3 + (spec->notes != NULL));
    if (spec->notes) {
        addReplyBulkCString(c, "notes");
        addReplyBulkCString(c, spec->notes);
    }
    addReplyBulkCString(c, "flags");
    addReplyKeyFlags(c, spec->flags);
    addReplyBulkCString(c, "begin_search");
    addReplyBeginSearch(c, spec);
    addReplyBulkCString(c, "find_keys");
    addReplyFindKeys(c, spec);
}

static void addReplyCommandKeySpecs(client *c, redisCommand *cmd) {
    keySpec derived;
    const keySpec *specs;
    int n = commandKeySpecs(cmd, &specs, &derived);
    addReplySetLen(c, n);
    for (int j = 0; j < n; j++) addReplyKeySpec(c, &specs[j]);
}

/* The table's "tip tip" string as a set of strings. */
static void addReplyCommandTips(client *c, redisCommand *cmd) {
    int count = 0;
    sds *tips = cmd->tips ? sdssplitlen(cmd->tips, (ssize_t)strlen(cmd->tips), " ", 1, &count) : NULL;
    addReplySetLen(c, count);
    for (int j = 0; j < count; j++) addReplyBulkCBuffer(c, tips[j], sdslen(tips[j]));
    if (tips) sdsfreesplitres(tips, count);
}

/* ---- COMMAND INFO ---------------------------------------------------------------------------------------- */

static void addReplyCommandInfo(client *c, redisCommand *cmd) {
    addReplyArrayLen(c, 10);
    addReplyBulkCBuffer(c, cmd->fullname, sdslen(cmd->fullname));
    addReplyLongLong(c, cmd->arity);
    addReplyCommandFlags(c, cmd);
    addReplyLongLong(c, cmd->firstkey);
    addReplyLongLong(c, cmd->lastkey);
    addReplyLongLong(c, cmd->keystep);
    addReplyCommandCategories(c, cmd);
    addReplyCommandTips(c, cmd);
    addReplyCommandKeySpecs(c, cmd);
    /* Redis: an empty set without subcommands, else an array. */
    if (cmd->subcommands || cmd->subcommands_dict) {
        long n;
        redisCommand **subs = registeredCommands(cmd, &n);
        addReplyArrayLen(c, n);
        for (long j = 0; j < n; j++) addReplyCommandInfo(c, subs[j]);
        zfree(subs);
    } else {
        addReplySetLen(c, 0);
    }
}

static void addReplyAllCommandsInfo(client *c) {
    long n;
    redisCommand **cmds = registeredCommands(NULL, &n);
    addReplyArrayLen(c, n);
    for (long j = 0; j < n; j++) addReplyCommandInfo(c, cmds[j]);
    zfree(cmds);
}

void commandCommand(client *c) {
    if (c->argc != 1) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    addReplyAllCommandsInfo(c);
}

void commandCountCommand(client *c) { addReplyLongLong(c, (long long)dictSize(server.commands)); }

void commandInfoCommand(client *c) {
    if (c->argc == 2) {
        addReplyAllCommandsInfo(c);
        return;
    }
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        redisCommand *cmd = lookupCommandByFullName(c->argv[j]->ptr);
        if (cmd) addReplyCommandInfo(c, cmd);
        else addReplyNull(c);
    }
}

/* ---- argument hints -> COMMAND DOCS arguments ------------------------------------------------------------- */

/* A node of the argument tree parsed from a hint such as
 * "key value [NX | XX] [EX seconds | KEEPTTL] [key value ...]". */
typedef struct docArg {
    sds name;
    const char *type;     /* "key", "string", "integer", "pattern", "unix-time", "pure-token", "oneof", "block" */
    sds token;            /* NULL when none */
    int optional, multiple;
    struct docArg **args; /* children of oneof/block */
    int nargs;
} docArg;

static docArg *docArgNew(const char *type) {
    docArg *a = zcalloc(sizeof(*a));
    a->type = type;
    return a;
}

static void docArgFree(docArg *a) {
    if (a == NULL) return;
    sdsfree(a->name);
    sdsfree(a->token);
    for (int j = 0; j < a->nargs; j++) docArgFree(a->args[j]);
    zfree(a->args);
    zfree(a);
}

static void docArgAppend(docArg *parent, docArg *child) {
    parent->args = zrealloc(parent->args, sizeof(docArg *) * (size_t)(parent->nargs + 1));
    parent->args[parent->nargs++] = child;
}

static int isTokenWord(const char *w) {
    int upper = 0;
    for (; *w; w++) {
        if (*w >= 'a' && *w <= 'z') return 0;
        if (*w >= 'A' && *w <= 'Z') upper = 1;
    }
    return upper;
}

static const char *scalarTypeFor(const char *name) {
    static const char *keys[] = {"key", "newkey", "source", "destination", "key1", "key2", NULL};
    static const char *integers[] = {"seconds", "milliseconds", "count", "offset", "start", "end", "index1",
                                     "index2", "db", "destination-db", "cursor", "timeout", "client-id",
                                     "protover", "min-match-len", "decrement", "index", "port", "slot",
                                     "start-slot", "end-slot", "cluster_bus_port", "config-epoch", NULL};
    for (int j = 0; keys[j]; j++)
        if (!strcmp(name, keys[j])) return "key";
    for (int j = 0; integers[j]; j++)
        if (!strcmp(name, integers[j])) return "integer";
    if (!strcmp(name, "pattern")) return "pattern";
    if (!strncmp(name, "unix-time", 9)) return "unix-time";
    return "string";
}

typedef struct hintParser {
    sds *words;
    int count, pos;
} hintParser;

static docArg *parseSequence(hintParser *p);

static const char *peekWord(hintParser *p) { return p->pos < p->count ? p->words[p->pos] : NULL; }

static int isSyntaxWord(const char *w) { return !strcmp(w, "[") || !strcmp(w, "]") || !strcmp(w, "|"); }

static int isEllipsis(docArg *a) { return !strcmp(a->type, "ellipsis"); }

static docArg *namedArg(const char *type, const char *name) {
    docArg *a = docArgNew(type);
    a->name = sdsnew(name);
    return a;
}

/* A TOKEN followed by a value ("EX seconds") is one argument; alone
 * ("NX") it is a pure token. */
static docArg *parseToken(hintParser *p, const char *token) {
    const char *next = peekWord(p);
    docArg *a;
    if (next && !isSyntaxWord(next) && strcmp(next, "...") && !isTokenWord(next)) {
        a = namedArg(scalarTypeFor(next), next);
        p->pos++;
    } else {
        a = namedArg("pure-token", token);
        sdstolower(a->name);
    }
    a->token = sdsnew(token);
    return a;
}

static docArg *parseItem(hintParser *p) {
    const char *w = peekWord(p);
    if (w == NULL || !strcmp(w, "]") || !strcmp(w, "|")) return NULL;
    p->pos++;
    if (!strcmp(w, "[")) {
        docArg *group = parseSequence(p);
        if (peekWord(p) && !strcmp(peekWord(p), "]")) p->pos++;
        if (group) group->optional = 1;
        return group ? group : parseItem(p); /* "[]": skip */
    }
    if (!strcmp(w, "...")) return namedArg("ellipsis", "...");
    if (isTokenWord(w)) return parseToken(p, w);
    return namedArg(scalarTypeFor(w), w);
}

static sds joinedChildNames(docArg *a) {
    sds name = sdsempty();
    for (int j = 0; j < a->nargs; j++) {
        if (j) name = sdscat(name, "-");
        name = sdscatsds(name, a->args[j]->name);
    }
    return name;
}

static void nameAfterChildren(docArg *a) {
    sdsfree(a->name);
    a->name = joinedChildNames(a);
}

/* A block of one argument is that argument. */
static docArg *collapse(docArg *block) {
    if (block->nargs != 1) {
        if (block->name == NULL) nameAfterChildren(block);
        return block;
    }
    docArg *only = block->args[0];
    block->nargs = 0;
    docArgFree(block);
    return only;
}

/* "[x ...]" and "[x y ...]": optional groups ending in an ellipsis. */
static int isRepeatGroup(docArg *a) {
    return a->optional && !strcmp(a->type, "block") && a->nargs >= 2 && isEllipsis(a->args[a->nargs - 1]);
}

static int sameNames(docArg **a, docArg **b, int n) {
    for (int j = 0; j < n; j++)
        if (strcmp(a[j]->name, b[j]->name)) return 0;
    return 1;
}

/* "key [key ...]" makes key multiple; "key value [key value ...]" makes the
 * pair a multiple block; "[arg ...]" alone is an optional multiple arg. */
static void appendRepeatGroup(docArg *seq, docArg *group) {
    int n = group->nargs - 1;
    docArgFree(group->args[n]); /* the ellipsis */
    group->nargs = n;
    if (n <= seq->nargs && sameNames(seq->args + seq->nargs - n, group->args, n)) {
        docArg *repeated = docArgNew("block");
        for (int j = seq->nargs - n; j < seq->nargs; j++) docArgAppend(repeated, seq->args[j]);
        seq->nargs -= n;
        repeated = collapse(repeated);
        repeated->multiple = 1;
        docArgAppend(seq, repeated);
        docArgFree(group);
        return;
    }
    nameAfterChildren(group);
    docArg *arg = collapse(group);
    arg->optional = arg->multiple = 1;
    docArgAppend(seq, arg);
}

static docArg *parseAlternative(hintParser *p) {
    docArg *seq = docArgNew("block");
    docArg *item;
    while ((item = parseItem(p)) != NULL) {
        if (isRepeatGroup(item)) appendRepeatGroup(seq, item);
        else docArgAppend(seq, item);
    }
    if (seq->nargs == 0) {
        docArgFree(seq);
        return NULL;
    }
    return seq;
}

/* "TYPE NORMAL | MASTER | PUBSUB": a pure token opening the first of several
 * alternatives introduces all of them (the oneof gets the token). */
static void hoistLeadingToken(docArg *oneof) {
    docArg *first = oneof->args[0];
    if (strcmp(first->type, "block") || first->nargs < 2 || strcmp(first->args[0]->type, "pure-token")) return;
    docArg *token = first->args[0];
    memmove(first->args, first->args + 1, sizeof(docArg *) * (size_t)(first->nargs - 1));
    first->nargs--;
    sdsfree(first->name);
    first->name = NULL;
    oneof->token = token->token;
    oneof->name = token->name;
    token->token = token->name = NULL;
    docArgFree(token);
}

/* alternative ('|' alternative)*: a oneof when there is more than one. */
static docArg *parseSequence(hintParser *p) {
    docArg *oneof = docArgNew("oneof");
    for (;;) {
        docArg *alt = parseAlternative(p);
        if (alt) docArgAppend(oneof, alt);
        if (!peekWord(p) || strcmp(peekWord(p), "|")) break;
        p->pos++;
    }
    if (oneof->nargs == 0) {
        docArgFree(oneof);
        return NULL;
    }
    if (oneof->nargs == 1) {
        docArg *alt = oneof->args[0];
        oneof->nargs = 0;
        docArgFree(oneof);
        if (alt->nargs == 1) return collapse(alt);
        nameAfterChildren(alt); /* a plain sequence: a block */
        return alt;
    }
    hoistLeadingToken(oneof);
    for (int j = 0; j < oneof->nargs; j++) oneof->args[j] = collapse(oneof->args[j]);
    if (oneof->name == NULL) nameAfterChildren(oneof);
    return oneof;
}

/* Splits "[a | b]" into "[", "a", "|", "b", "]". */
static sds *tokenizeHint(const char *hint, int *count) {
    sds spaced = sdsempty();
    for (const char *s = hint; *s; s++) {
        if (*s == '[' || *s == ']' || *s == '|') spaced = sdscatprintf(spaced, " %c ", *s);
        else spaced = sdscatlen(spaced, s, 1);
    }
    sds *words = sdssplitlen(spaced, (ssize_t)sdslen(spaced), " ", 1, count);
    int kept = 0;
    for (int j = 0; j < *count; j++) {
        if (sdslen(words[j])) words[kept++] = words[j];
        else sdsfree(words[j]);
    }
    *count = kept;
    sdsfree(spaced);
    return words;
}

/* Drops ellipses that did not follow a repeatable argument. */
static void dropEllipses(docArg *a) {
    int kept = 0;
    for (int j = 0; j < a->nargs; j++) {
        if (isEllipsis(a->args[j])) {
            if (kept) a->args[kept - 1]->multiple = 1;
            docArgFree(a->args[j]);
            continue;
        }
        dropEllipses(a->args[j]);
        a->args[kept++] = a->args[j];
    }
    a->nargs = kept;
}

/* The top-level arguments of a hint, as the children of one block. */
static docArg *parseHint(const char *hint) {
    int count;
    sds *words = tokenizeHint(hint ? hint : "", &count);
    hintParser p = {words, count, 0};
    docArg *root = docArgNew("block");
    while (p.pos < p.count) {
        docArg *seq = parseSequence(&p);
        if (seq == NULL) {
            p.pos++; /* an unbalanced "]" */
            continue;
        }
        if (!strcmp(seq->type, "block") && !seq->optional && !seq->multiple) {
            for (int j = 0; j < seq->nargs; j++) docArgAppend(root, seq->args[j]);
            seq->nargs = 0;
            docArgFree(seq);
        } else {
            docArgAppend(root, seq);
        }
    }
    dropEllipses(root);
    sdsfreesplitres(words, count);
    return root;
}

static void addReplyDocArg(client *c, docArg *a) {
    long fields = 2 + (a->token != NULL) + (a->optional || a->multiple) + (a->nargs > 0) + !strcmp(a->type, "key");
    addReplyMapLen(c, fields);
    addReplyBulkCString(c, "name");
    addReplyBulkCBuffer(c, a->name, sdslen(a->name));
    addReplyBulkCString(c, "type");
    addReplyBulkCString(c, a->type);
    if (!strcmp(a->type, "key")) {
        addReplyBulkCString(c, "key_spec_index");
        addReplyLongLong(c, 0);
    }
    if (a->token) {
        addReplyBulkCString(c, "token");
        addReplyBulkCBuffer(c, a->token, sdslen(a->token));
    }
    if (a->optional || a->multiple) {
        addReplyBulkCString(c, "flags");
        addReplySetLen(c, a->optional + a->multiple);
        if (a->optional) addReplyStatus(c, "optional");
        if (a->multiple) addReplyStatus(c, "multiple");
    }
    if (a->nargs > 0) {
        addReplyBulkCString(c, "arguments");
        addReplyArrayLen(c, a->nargs);
        for (int j = 0; j < a->nargs; j++) addReplyDocArg(c, a->args[j]);
    }
}

/* ---- COMMAND DOCS ----------------------------------------------------------------------------------------------- */

static void addReplyCommandsDocs(client *c, redisCommand *parent);

static void addReplyCommandDocs(client *c, redisCommand *cmd) {
    redisCommand *top = cmd->parent ? cmd->parent : cmd;
    const char *group = commandGroupName(cmd->group ? cmd->group : top->group);
    const char *since = cmd->since ? cmd->since : top->since;
    docArg *args = parseHint(cmd->args_hint);
    long subs = countRegisteredSubcommands(cmd);
    /* A module's command: no summary nor since unless it set them, group
     * "module" and the module's name, as Redis 7.0 documents them. */
    const char *module_name = moduleCommandOwnerName(cmd);
    if (module_name) group = "module";
    int summary = cmd->summary != NULL || module_name == NULL;
    long fields = summary + (since != NULL) + (group != NULL) + (cmd->complexity != NULL) + (module_name != NULL) +
                  moduleCommandDocsExtraFields(cmd) + (args->nargs > 0) + (subs > 0);
    addReplyMapLen(c, fields);
    if (summary) {
        addReplyBulkCString(c, "summary");
        addReplyBulkCString(c, cmd->summary ? cmd->summary : "");
    }
    if (since) {
        addReplyBulkCString(c, "since");
        addReplyBulkCString(c, since);
    }
    if (group) {
        addReplyBulkCString(c, "group");
        addReplyBulkCString(c, group);
    }
    if (cmd->complexity) {
        addReplyBulkCString(c, "complexity");
        addReplyBulkCString(c, cmd->complexity);
    }
    if (module_name) {
        addReplyBulkCString(c, "module");
        addReplyBulkCString(c, module_name);
        moduleAddReplyCommandDocsExtra(c, cmd); /* SetCommandInfo's history and arguments */
    }
    if (args->nargs > 0) {
        addReplyBulkCString(c, "arguments");
        addReplyArrayLen(c, args->nargs);
        for (int j = 0; j < args->nargs; j++) addReplyDocArg(c, args->args[j]);
    }
    docArgFree(args);
    if (subs > 0) addReplyCommandsDocs(c, cmd);
}

/* The docs of the registered commands under parent (NULL: all), as a map. */
static void addReplyCommandsDocs(client *c, redisCommand *parent) {
    long n;
    redisCommand **cmds = registeredCommands(parent, &n);
    if (parent) addReplyBulkCString(c, "subcommands");
    addReplyMapLen(c, n);
    for (long j = 0; j < n; j++) {
        addReplyBulkCBuffer(c, cmds[j]->fullname, sdslen(cmds[j]->fullname));
        addReplyCommandDocs(c, cmds[j]);
    }
    zfree(cmds);
}

void commandDocsCommand(client *c) {
    if (c->argc == 2) {
        addReplyCommandsDocs(c, NULL);
        return;
    }
    void *len = addReplyDeferredLen(c);
    long found = 0;
    for (int j = 2; j < c->argc; j++) {
        redisCommand *cmd = lookupCommandByFullName(c->argv[j]->ptr);
        if (cmd == NULL) continue;
        addReplyBulkCBuffer(c, cmd->fullname, sdslen(cmd->fullname));
        addReplyCommandDocs(c, cmd);
        found++;
    }
    setDeferredMapLen(c, len, found);
}

/* ---- COMMAND LIST ------------------------------------------------------------------------------------------------ */

typedef struct listFilter {
    const char *pattern; /* NULL: any */
    int category;        /* -1: any */
    const char *module;  /* NULL: any; else the commands of the module of that name (any case) */
    int nothing;         /* a filter nothing can pass (unknown category) */
} listFilter;

static int listFilterMatches(const listFilter *f, redisCommand *cmd) {
    if (f->nothing) return 0;
    if (f->module) {
        const char *owner = moduleCommandOwnerName(cmd);
        if (owner == NULL || strcasecmp(owner, f->module)) return 0;
    }
    if (f->pattern && !stringmatchlen(f->pattern, (int)strlen(f->pattern), cmd->fullname, (int)sdslen(cmd->fullname), 1))
        return 0;
    return f->category == -1 || (aclCommandCategories(cmd) & ACL_BIT(f->category));
}

static long addReplyMatchingNamesUnder(client *c, const listFilter *f, redisCommand *parent);

static long addReplyMatchingNames(client *c, const listFilter *f, redisCommand *cmd) {
    long n = 0;
    if (listFilterMatches(f, cmd)) {
        addReplyBulkCBuffer(c, cmd->fullname, sdslen(cmd->fullname));
        n++;
    }
    if (cmd->subcommands_dict) n += addReplyMatchingNamesUnder(c, f, cmd);
    return n;
}

static long addReplyMatchingNamesUnder(client *c, const listFilter *f, redisCommand *parent) {
    long count, n = 0;
    redisCommand **cmds = registeredCommands(parent, &count);
    for (long j = 0; j < count; j++) n += addReplyMatchingNames(c, f, cmds[j]);
    zfree(cmds);
    return n;
}

void commandListCommand(client *c) {
    listFilter f = {NULL, -1, NULL, 0};
    if (c->argc == 5 && !strcasecmp(c->argv[2]->ptr, "filterby")) {
        const char *kind = c->argv[3]->ptr, *value = c->argv[4]->ptr;
        if (!strcasecmp(kind, "pattern")) f.pattern = value;
        else if (!strcasecmp(kind, "aclcat")) {
            f.category = aclCategoryIndexByName(value);
            f.nothing = f.category == -1;
        } else if (!strcasecmp(kind, "module")) f.module = value;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    void *len = addReplyDeferredLen(c);
    setDeferredArrayLen(c, len, addReplyMatchingNamesUnder(c, &f, NULL));
}

/* ---- COMMAND GETKEYS and GETKEYSANDFLAGS ----------------------------------------------------------------------- */

static void getKeysReply(client *c, int with_flags) {
    robj **argv = c->argv + 2;
    int argc = c->argc - 2;
    redisCommand *cmd = lookupCommand(argv, argc);
    if (cmd == NULL) {
        addReplyError(c, "Invalid command specified");
        return;
    }
    if (!commandHasKeys(cmd)) {
        addReplyError(c, "The command has no key arguments");
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyError(c, "Invalid number of arguments specified for command");
        return;
    }
    getKeysResult result = {NULL, 0, 0};
    if (getKeysFromCommand(cmd, argv, argc, &result) == 0) {
        if (cmd->flags & CMD_NO_MANDATORY_KEYS) addReplyArrayLen(c, 0);
        else addReplyError(c, "Invalid arguments specified for command");
        getKeysFreeResult(&result);
        return;
    }
    addReplyArrayLen(c, result.numkeys);
    for (int j = 0; j < result.numkeys; j++) {
        if (with_flags) addReplyArrayLen(c, 2);
        addReplyBulk(c, argv[result.keys[j].pos]);
        if (with_flags) addReplyKeyFlags(c, result.keys[j].flags);
    }
    getKeysFreeResult(&result);
}

void commandGetKeysCommand(client *c) { getKeysReply(c, 0); }

void commandGetKeysAndFlagsCommand(client *c) { getKeysReply(c, 1); }

/* ---- COMMAND HELP ------------------------------------------------------------------------------------------------ */

void commandHelpCommand(client *c) {
    static const char *help[] = {
        "(no subcommand)",
        "    Return details about all Redis commands.",
        "COUNT",
        "    Return the total number of commands in this Redis server.",
        "LIST",
        "    Return a list of all commands in this Redis server.",
        "INFO [<command-name> ...]",
        "    Return details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "DOCS [<command-name> ...]",
        "    Return documentation details about multiple Redis commands.",
        "    If no command names are given, documentation details for all",
        "    commands are returned.",
        "GETKEYS <full-command>",
        "    Return the keys from a full Redis command.",
        "GETKEYSANDFLAGS <full-command>",
        "    Return the keys and the access flags from a full Redis command.",
        NULL};
    addReplyHelp(c, help);
}
