/* acl.c -- ACL users: their rules, how the rules are written back (ACL
 * LIST, GETUSER, the aclfile), authentication, and the permission check
 * processCommand() makes before a command runs.
 *
 * The behaviour is Redis 7.0's, checked against Debian's 7.0.15: the rule
 * syntax and its error texts, the flags and selectors, the order in which
 * rules are printed, what a denied command is told and what is logged.
 *
 * Decisions:
 * - Commands are named in rules by their original names (the command
 *   table, redisCommandTable): rename-command does not change ACLs, as in
 *   Redis. A selector keeps one bit per command id, so the check on the
 *   hot path is one bit test; "+cmd|arg" for a command without
 *   subcommands keeps allowed first arguments beside the bitmap.
 * - Commands modules add at run time have ids past the table's
 *   (server.c keeps a name's id across a module's reloads); each bitmap
 *   has ACL_RUNTIME_COMMAND_SLOTS bits for them, so "+mod.cmd" names one
 *   and +@all covers those loaded later, as in Redis 7.0 (whose bitmaps
 *   hold 1024 commands). They belong to no category. A command past even
 *   those slots is allowed to +@all users only.
 * - A selector carries two "everything" flags: SEL_ALLCOMMANDS (every bit
 *   set: the check is skipped) and SEL_FUTURE (the rules began with +@all,
 *   which is what the description starts from). Removing one command
 *   clears the first only, as Redis does.
 * - The description of a selector's commands is rebuilt from the bitmap
 *   the way Redis 7.0 does it: start from +@all or -@all, then repeatedly
 *   take the category that best fits the commands left to describe, then
 *   name single commands that still differ. Single commands follow the
 *   command table's order (Redis follows its hash table's, which changes
 *   from run to run).
 * - Passwords are kept only as SHA-256 hex digests and compared in a time
 *   that does not depend on where they differ.
 * - SETUSER works on a copy and installs it only if every rule applied:
 *   all or nothing.
 */
#include "acl.h"

#include <ctype.h>

#include "sha256.h"

/* ---- the model ------------------------------------------------------------------------ */

#define USER_ENABLED (1u << 0)
#define USER_NOPASS (1u << 1)
#define USER_SANITIZE (1u << 2)
#define USER_SKIP_SANITIZE (1u << 3)

#define SEL_ROOT (1u << 0)
#define SEL_ALLKEYS (1u << 1)
#define SEL_ALLCHANNELS (1u << 2)
#define SEL_ALLCOMMANDS (1u << 3) /* every command allowed: no check */
#define SEL_FUTURE (1u << 4)      /* described as starting from +@all */

#define KEY_READ 1
#define KEY_WRITE 2
#define KEY_ALL (KEY_READ | KEY_WRITE)

typedef struct keyPattern {
    int perms; /* KEY_READ | KEY_WRITE */
    sds pattern;
} keyPattern;

typedef struct aclSelector {
    unsigned flags;
    uint64_t *allowed; /* one bit per command id */
    list **firstargs;  /* per command id: allowed first arguments (sds), or NULL; NULL when none at all */
    list *patterns;    /* keyPattern* */
    list *channels;    /* sds */
} aclSelector;

struct aclUser {
    sds name;
    unsigned flags;
    list *passwords; /* sds: SHA-256 hex digests */
    list *selectors; /* aclSelector*; the root one first */
};

static dict *users;            /* name -> aclUser* */
static aclUser *default_user;
static int command_slots;      /* the table's highest command id + 1 */
#define ACL_RUNTIME_COMMAND_SLOTS 1024
static int acl_slots;          /* command_slots + ACL_RUNTIME_COMMAND_SLOTS: the bits a selector has */
static int bitmap_words;
static int acl_initialized;

/* The categories, in Redis's order (ACL CAT, the description's choices). */
static const char *category_names[] = {
    "keyspace", "read", "write", "set", "sortedset", "list", "hash", "string", "bitmap", "hyperloglog", "geo",
    "stream", "pubsub", "admin", "fast", "slow", "blocking", "dangerous", "connection", "transaction", "scripting",
};
#define CATEGORY_COUNT ((int)(sizeof category_names / sizeof category_names[0]))

const char *aclCategoryName(int category) { return category_names[category]; }
int aclCategoryCount(void) { return CATEGORY_COUNT; }

/* ---- walking the command table (original names, subcommands included) ---------------- */

typedef void commandVisitor(redisCommand *cmd, void *ud);

static void forEachTableCommand(commandVisitor *fn, void *ud) {
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++) {
        fn(cmd, ud);
        for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++) fn(sub, ud);
    }
}

/* A module's command with a bit of its own (see acl_slots). */
static int runtimeCommandHasBit(const redisCommand *cmd) {
    return cmd->module_cmd != NULL && cmd->id >= command_slots && cmd->id < acl_slots;
}

/* The module commands under parent (NULL: top level) that have bits, by
 * creation, each followed by its own (when recurse). */
static void forEachRuntimeCommand(redisCommand *parent, int recurse, commandVisitor *fn, void *ud) {
    if (parent ? parent->subcommands_dict == NULL : server.commands == NULL) return;
    long n;
    redisCommand **cmds = registeredModuleCommands(parent, &n);
    for (long j = 0; j < n; j++) {
        if (!runtimeCommandHasBit(cmds[j])) continue;
        fn(cmds[j], ud);
        if (recurse) forEachRuntimeCommand(cmds[j], 0, fn, ud);
    }
    zfree(cmds);
}

/* The table's commands, then the modules' (with their subcommands). */
static void forEachCommand(commandVisitor *fn, void *ud) {
    forEachTableCommand(fn, ud);
    forEachRuntimeCommand(NULL, 1, fn, ud);
}

/* A rule's command name: the table's (original names), else a module's. */
static redisCommand *tableCommand(const char *name, size_t len) {
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++)
        if (strlen(cmd->declared_name) == len && !strncasecmp(cmd->declared_name, name, len)) return cmd;
    sds s = sdsnewlen(name, len);
    redisCommand *cmd = lookupCommandBySds(s);
    sdsfree(s);
    return cmd && runtimeCommandHasBit(cmd) ? cmd : NULL;
}

static redisCommand *tableSubcommand(redisCommand *parent, const char *name, size_t len) {
    for (redisCommand *sub = parent->subcommands; sub && sub->declared_name; sub++)
        if (strlen(sub->declared_name) == len && !strncasecmp(sub->declared_name, name, len)) return sub;
    if (parent->subcommands_dict == NULL) return NULL;
    sds s = sdsnewlen(name, len);
    redisCommand *sub = dictFetchValue(parent->subcommands_dict, s);
    sdsfree(s);
    return sub && runtimeCommandHasBit(sub) ? sub : NULL;
}

/* Whether cmd has subcommands a rule may name (the table's or a module's). */
static int commandHasSubcommands(const redisCommand *cmd) {
    return cmd->subcommands != NULL || (cmd->module_cmd && cmd->subcommands_dict && dictSize(cmd->subcommands_dict));
}

static void noteHighestId(redisCommand *cmd, void *ud) {
    (void)ud;
    if (cmd->id + 1 > command_slots) command_slots = cmd->id + 1;
}

/* Each command's categories, computed once (command_cmd.c derives them). */
static unsigned *command_categories;

static void noteCategories(redisCommand *cmd, void *ud) {
    (void)ud;
    command_categories[cmd->id] = aclCommandCategories(cmd);
}

/* A module's command (module.c) registers after the tables were sized: its
 * id is past them, and it is judged from the command itself. */
static int commandIsLate(const redisCommand *cmd) { return cmd->id >= command_slots; }

/* Past even the runtime slots: no bit at all. */
static int commandHasNoBit(const redisCommand *cmd) { return cmd->id >= acl_slots; }

static unsigned categoriesOf(redisCommand *cmd) {
    return commandIsLate(cmd) ? aclCommandCategories(cmd) : command_categories[cmd->id];
}

/* Whether each command has keys to check, computed once. */
static unsigned char *command_has_keys;

static void noteHasKeys(redisCommand *cmd, void *ud) {
    (void)ud;
    command_has_keys[cmd->id] = (unsigned char)commandHasKeys(cmd);
}

/* ---- selectors ------------------------------------------------------------------------ */

static void keyPatternFree(void *p) {
    keyPattern *kp = p;
    sdsfree(kp->pattern);
    zfree(kp);
}

static void sdsListFree(void *p) { sdsfree(p); }

static aclSelector *selectorCreate(unsigned flags) {
    aclSelector *s = zcalloc(sizeof(*s));
    s->flags = flags;
    s->allowed = zcalloc(sizeof(uint64_t) * (size_t)bitmap_words);
    s->patterns = listCreate();
    listSetFreeMethod(s->patterns, keyPatternFree);
    s->channels = listCreate();
    listSetFreeMethod(s->channels, sdsListFree);
    return s;
}

static void selectorFreeFirstArgs(aclSelector *s) {
    if (s->firstargs == NULL) return;
    for (int j = 0; j < acl_slots; j++)
        if (s->firstargs[j]) listRelease(s->firstargs[j]);
    zfree(s->firstargs);
    s->firstargs = NULL;
}

static void selectorFree(aclSelector *s) {
    zfree(s->allowed);
    selectorFreeFirstArgs(s);
    listRelease(s->patterns);
    listRelease(s->channels);
    zfree(s);
}

static void selectorFreeVoid(void *s) { selectorFree(s); }

static aclSelector *selectorDup(aclSelector *src) {
    aclSelector *s = selectorCreate(src->flags);
    memcpy(s->allowed, src->allowed, sizeof(uint64_t) * (size_t)bitmap_words);
    if (src->firstargs) {
        s->firstargs = zcalloc(sizeof(list *) * (size_t)acl_slots);
        for (int j = 0; j < acl_slots; j++) {
            if (src->firstargs[j] == NULL) continue;
            s->firstargs[j] = listCreate();
            listSetFreeMethod(s->firstargs[j], sdsListFree);
            listIter li;
            listNode *ln;
            listRewind(src->firstargs[j], &li);
            while ((ln = listNext(&li))) listAddNodeTail(s->firstargs[j], sdsdup(listNodeValue(ln)));
        }
    }
    listIter li;
    listNode *ln;
    listRewind(src->patterns, &li);
    while ((ln = listNext(&li))) {
        keyPattern *kp = listNodeValue(ln), *copy = zmalloc(sizeof(*copy));
        copy->perms = kp->perms;
        copy->pattern = sdsdup(kp->pattern);
        listAddNodeTail(s->patterns, copy);
    }
    listRewind(src->channels, &li);
    while ((ln = listNext(&li))) listAddNodeTail(s->channels, sdsdup(listNodeValue(ln)));
    return s;
}

static aclSelector *rootSelector(aclUser *u) { return listNodeValue(listFirst(u->selectors)); }

static int commandBit(const aclSelector *s, int id) { return (s->allowed[id / 64] >> (id % 64)) & 1; }

static void setCommandBit(aclSelector *s, int id, int on) {
    uint64_t mask = 1ULL << (id % 64);
    if (on) s->allowed[id / 64] |= mask;
    else s->allowed[id / 64] &= ~mask;
}

static void dropFirstArgs(aclSelector *s, int id) {
    if (s->firstargs && s->firstargs[id]) {
        listRelease(s->firstargs[id]);
        s->firstargs[id] = NULL;
    }
}

typedef struct commandChange {
    aclSelector *s;
    int allow;
} commandChange;

static void changeOneCommand(redisCommand *cmd, void *ud) {
    commandChange *cc = ud;
    setCommandBit(cc->s, cmd->id, cc->allow);
    dropFirstArgs(cc->s, cmd->id);
}

/* A command and, for a container, all its subcommands. */
static void changeCommand(aclSelector *s, redisCommand *cmd, int allow) {
    commandChange cc = {s, allow};
    changeOneCommand(cmd, &cc);
    for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++) changeOneCommand(sub, &cc);
    if (cmd->module_cmd) forEachRuntimeCommand(cmd, 0, changeOneCommand, &cc);
}

static void setAllCommands(aclSelector *s, int allow) {
    memset(s->allowed, allow ? 0xff : 0, sizeof(uint64_t) * (size_t)bitmap_words);
    selectorFreeFirstArgs(s);
    if (allow) s->flags |= SEL_ALLCOMMANDS | SEL_FUTURE;
    else s->flags &= ~(SEL_ALLCOMMANDS | SEL_FUTURE);
}

typedef struct categoryChange {
    aclSelector *s;
    unsigned category_bit;
    int allow;
} categoryChange;

static void changeIfInCategory(redisCommand *cmd, void *ud) {
    categoryChange *cc = ud;
    if (categoriesOf(cmd) & cc->category_bit) {
        setCommandBit(cc->s, cmd->id, cc->allow);
        dropFirstArgs(cc->s, cmd->id);
    }
}

static void changeCategory(aclSelector *s, int category, int allow) {
    categoryChange cc = {s, 1u << category, allow};
    forEachCommand(changeIfInCategory, &cc);
}

static void addFirstArg(aclSelector *s, int id, const char *arg, size_t len) {
    if (s->firstargs == NULL) s->firstargs = zcalloc(sizeof(list *) * (size_t)acl_slots);
    if (s->firstargs[id] == NULL) {
        s->firstargs[id] = listCreate();
        listSetFreeMethod(s->firstargs[id], sdsListFree);
    }
    listIter li;
    listNode *ln;
    listRewind(s->firstargs[id], &li);
    while ((ln = listNext(&li)))
        if (sdslen(listNodeValue(ln)) == len && !strncasecmp(listNodeValue(ln), arg, len)) return;
    sds copy = sdsnewlen(arg, len);
    sdstolower(copy);
    listAddNodeTail(s->firstargs[id], copy);
}

/* ---- rules ---------------------------------------------------------------------------- */

/* Why a rule failed, in Redis's words. */
static const char *err_syntax = "Syntax error";
static const char *err_unknown = "Unknown command or category name in ACL";
static const char *err_no_password = "The password you are trying to remove from the user does not exist";
static const char *err_bad_hash =
    "The password hash must be exactly 64 characters and contain only lowercase hexadecimal characters";
static const char *err_subcommand_arg = "Allowing first-arg of a subcommand is not supported";
static const char *err_after_allkeys =
    "Adding a pattern after the * pattern (or the 'allkeys' flag) is not valid and does not have any effect. "
    "Try 'resetkeys' to start with an empty list of patterns";
static const char *err_after_allchannels =
    "Adding a pattern after the * pattern (or the 'allchannels' flag) is not valid and does not have any effect. "
    "Try 'resetchannels' to start with an empty list of channels";

static int ruleIs(const char *op, size_t len, const char *word) {
    return strlen(word) == len && !strncasecmp(op, word, len);
}

static void addKeyPattern(aclSelector *s, const char *pat, size_t len, int perms) {
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        keyPattern *kp = listNodeValue(ln);
        if (sdslen(kp->pattern) == len && !memcmp(kp->pattern, pat, len)) {
            kp->perms |= perms;
            return;
        }
    }
    keyPattern *kp = zmalloc(sizeof(*kp));
    kp->perms = perms;
    kp->pattern = sdsnewlen(pat, len);
    listAddNodeTail(s->patterns, kp);
}

/* ~pattern, %R~pattern, %W~pattern, %RW~pattern */
static const char *keyRule(aclSelector *s, const char *op, size_t len) {
    int all_keys = len == 2 && op[0] == '~' && op[1] == '*'; /* "~*" is allkeys: never "after allkeys" */
    if (s->flags & SEL_ALLKEYS && !all_keys) return err_after_allkeys;
    int perms = 0;
    size_t at = 1;
    if (op[0] == '%') {
        for (; at < len; at++) {
            char ch = (char)toupper((unsigned char)op[at]);
            if (ch == 'R' && !(perms & KEY_READ)) perms |= KEY_READ;
            else if (ch == 'W' && !(perms & KEY_WRITE)) perms |= KEY_WRITE;
            else if (op[at] == '~') {
                at++;
                break;
            } else return err_syntax;
        }
        if (perms == 0) return err_syntax;
    } else {
        perms = KEY_ALL;
    }
    if (perms == KEY_ALL && len - at == 1 && op[at] == '*') {
        s->flags |= SEL_ALLKEYS;
        listEmpty(s->patterns);
        return NULL;
    }
    addKeyPattern(s, op + at, len - at, perms);
    return NULL;
}

static const char *channelRule(aclSelector *s, const char *op, size_t len) {
    if (len == 2 && op[1] == '*') { /* "&*" is allchannels, also when already so (acl-pubsub-default) */
        s->flags |= SEL_ALLCHANNELS;
        listEmpty(s->channels);
        return NULL;
    }
    if (s->flags & SEL_ALLCHANNELS) return err_after_allchannels;
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li)))
        if (sdslen(listNodeValue(ln)) == len - 1 && !memcmp(listNodeValue(ln), op + 1, len - 1)) return NULL;
    listAddNodeTail(s->channels, sdsnewlen(op + 1, len - 1));
    return NULL;
}

/* +cmd, -cmd, +cmd|sub, -cmd|sub, +cmd|firstarg */
static const char *commandRule(aclSelector *s, const char *op, size_t len) {
    int allow = op[0] == '+';
    const char *name = op + 1, *bar = memchr(name, '|', len - 1);
    size_t namelen = bar ? (size_t)(bar - name) : len - 1;
    redisCommand *cmd = tableCommand(name, namelen);
    if (cmd == NULL) return err_unknown;
    if (bar == NULL) {
        changeCommand(s, cmd, allow);
        if (!allow) s->flags &= ~SEL_ALLCOMMANDS;
        return NULL;
    }
    const char *rest = bar + 1, *end = op + len, *bar2 = memchr(rest, '|', (size_t)(end - rest));
    if (commandHasSubcommands(cmd)) {
        redisCommand *sub = tableSubcommand(cmd, rest, bar2 ? (size_t)(bar2 - rest) : (size_t)(end - rest));
        if (sub == NULL) return err_unknown;
        if (bar2) return err_subcommand_arg;
        changeCommand(s, sub, allow);
        if (!allow) s->flags &= ~SEL_ALLCOMMANDS;
        return NULL;
    }
    if (bar2 || !allow || rest == end) return err_unknown;
    serverLog(LL_WARNING, "Deprecation warning: Allowing a first arg of an otherwise blocked command is a misuse of ACL "
                          "and may get disabled in the future (offender: %.*s)", (int)len, op);
    addFirstArg(s, cmd->id, rest, (size_t)(end - rest));
    return NULL;
}

static const char *categoryRule(aclSelector *s, const char *op, size_t len) {
    int allow = op[0] == '+';
    sds name = sdsnewlen(op + 2, len - 2);
    int category = !strcasecmp(name, "all") ? -2 : aclCategoryIndexByName(name);
    sdsfree(name);
    if (category == -1) return err_unknown;
    if (category == -2) setAllCommands(s, allow);
    else changeCategory(s, category, allow);
    if (!allow) s->flags &= ~SEL_ALLCOMMANDS;
    return NULL;
}

/* One rule of a selector; NULL when applied, else why not. */
static const char *selectorRule(aclSelector *s, const char *op, size_t len) {
    if (ruleIs(op, len, "allkeys")) return keyRule(s, "~*", 2);
    if (ruleIs(op, len, "resetkeys")) {
        s->flags &= ~SEL_ALLKEYS;
        listEmpty(s->patterns);
        return NULL;
    }
    if (ruleIs(op, len, "allchannels")) return channelRule(s, "&*", 2);
    if (ruleIs(op, len, "resetchannels")) {
        s->flags &= ~SEL_ALLCHANNELS;
        listEmpty(s->channels);
        return NULL;
    }
    if (ruleIs(op, len, "allcommands")) return categoryRule(s, "+@all", 5);
    if (ruleIs(op, len, "nocommands")) return categoryRule(s, "-@all", 5);
    if (len == 0) return err_syntax;
    if (op[0] == '~' || op[0] == '%') return keyRule(s, op, len);
    if (op[0] == '&') return channelRule(s, op, len);
    if ((op[0] == '+' || op[0] == '-') && len > 1 && op[1] == '@') return categoryRule(s, op, len);
    if ((op[0] == '+' || op[0] == '-') && len > 1) return commandRule(s, op, len);
    return err_syntax;
}

/* ---- users ---------------------------------------------------------------------------- */

int acl_pubsub_default = ACL_PUBSUB_RESETCHANNELS;

static int acl_pubsub_default_all(void) { return acl_pubsub_default == ACL_PUBSUB_ALLCHANNELS; }

static aclUser *userAlloc(const char *name, size_t len) {
    aclUser *u = zcalloc(sizeof(*u));
    u->name = sdsnewlen(name, len);
    u->passwords = listCreate();
    listSetFreeMethod(u->passwords, sdsListFree);
    u->selectors = listCreate();
    listSetFreeMethod(u->selectors, selectorFreeVoid);
    unsigned flags = SEL_ROOT | (acl_pubsub_default_all() ? SEL_ALLCHANNELS : 0);
    listAddNodeHead(u->selectors, selectorCreate(flags));
    return u;
}

void aclFreeUser(aclUser *u) {
    sdsfree(u->name);
    listRelease(u->passwords);
    listRelease(u->selectors);
    zfree(u);
}

aclUser *aclCreateUnlinkedUser(void) { return userAlloc("", 0); }
aclUser *aclNewUser(const char *name, size_t len) { return userAlloc(name, len); }

/* Makes dst hold src's rules (dst keeps its name). */
void aclCopyUser(aclUser *dst, aclUser *src) {
    listEmpty(dst->passwords);
    listEmpty(dst->selectors);
    dst->flags = src->flags;
    listIter li;
    listNode *ln;
    listRewind(src->passwords, &li);
    while ((ln = listNext(&li))) listAddNodeTail(dst->passwords, sdsdup(listNodeValue(ln)));
    listRewind(src->selectors, &li);
    while ((ln = listNext(&li))) listAddNodeTail(dst->selectors, selectorDup(listNodeValue(ln)));
}

static int hexDigest(const char *s, size_t len) {
    if (len != SHA256_HEX_LEN) return 0;
    for (size_t j = 0; j < len; j++)
        if (!isdigit((unsigned char)s[j]) && !(s[j] >= 'a' && s[j] <= 'f')) return 0;
    return 1;
}

static listNode *findPassword(aclUser *u, const char *hex) {
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li)))
        if (!strcmp(listNodeValue(ln), hex)) return ln;
    return NULL;
}

/* >password, <password, #hash, !hash */
static const char *passwordRule(aclUser *u, const char *op, size_t len) {
    char hex[SHA256_HEX_LEN + 1];
    if (op[0] == '>' || op[0] == '<') {
        sha256Hex(op + 1, len - 1, hex);
    } else {
        if (!hexDigest(op + 1, len - 1)) return err_bad_hash;
        memcpy(hex, op + 1, SHA256_HEX_LEN);
        hex[SHA256_HEX_LEN] = '\0';
    }
    listNode *ln = findPassword(u, hex);
    if (op[0] == '>' || op[0] == '#') {
        if (ln == NULL) listAddNodeTail(u->passwords, sdsnew(hex));
    } else {
        if (ln == NULL) return err_no_password;
        listDelNode(u->passwords, ln);
    }
    u->flags &= ~USER_NOPASS;
    return NULL;
}

static void clearSelectors(aclUser *u) {
    while (listLength(u->selectors) > 1) listDelNode(u->selectors, listLast(u->selectors));
}

static const char *userRule(aclUser *u, const char *op, size_t len);

static const char *resetUser(aclUser *u) {
    static const char *steps[] = {"resetpass", "resetkeys", "resetchannels", "off", "sanitize-payload",
                                  "clearselectors", "-@all"};
    for (size_t j = 0; j < sizeof steps / sizeof steps[0]; j++) userRule(u, steps[j], strlen(steps[j]));
    if (acl_pubsub_default_all()) userRule(u, "allchannels", 11);
    return NULL;
}

/* "(rule rule ...)": a new selector. */
static const char *selectorGroupRule(aclUser *u, const char *op, size_t len) {
    aclSelector *s = selectorCreate(acl_pubsub_default_all() ? SEL_ALLCHANNELS : 0);
    int count = 0;
    sds *parts = sdssplitlen(op + 1, (ssize_t)len - 2, " ", 1, &count);
    const char *why = NULL;
    for (int j = 0; j < count && why == NULL; j++) /* runs of spaces, as "( ~k +get )", split to nothing */
        if (sdslen(parts[j])) why = selectorRule(s, parts[j], sdslen(parts[j]));
    sdsfreesplitres(parts, count);
    if (why) selectorFree(s);
    else listAddNodeTail(u->selectors, s);
    return why;
}

static const char *userRule(aclUser *u, const char *op, size_t len) {
    if (ruleIs(op, len, "on")) u->flags |= USER_ENABLED;
    else if (ruleIs(op, len, "off")) u->flags &= ~USER_ENABLED;
    else if (ruleIs(op, len, "skip-sanitize-payload")) u->flags = (u->flags & ~USER_SANITIZE) | USER_SKIP_SANITIZE;
    else if (ruleIs(op, len, "sanitize-payload")) u->flags = (u->flags & ~USER_SKIP_SANITIZE) | USER_SANITIZE;
    else if (ruleIs(op, len, "nopass")) {
        u->flags |= USER_NOPASS;
        listEmpty(u->passwords);
    } else if (ruleIs(op, len, "resetpass")) {
        u->flags &= ~USER_NOPASS;
        listEmpty(u->passwords);
    } else if (ruleIs(op, len, "clearselectors")) clearSelectors(u);
    else if (ruleIs(op, len, "reset")) return resetUser(u);
    else if (len > 0 && (op[0] == '>' || op[0] == '<' || op[0] == '#' || op[0] == '!'))
        return passwordRule(u, op, len);
    else if (len >= 2 && op[0] == '(' && op[len - 1] == ')') return selectorGroupRule(u, op, len);
    else return selectorRule(rootSelector(u), op, len);
    return NULL;
}

int aclSetUser(aclUser *u, const char *op, ssize_t len, sds *err) {
    const char *why = userRule(u, op, len < 0 ? strlen(op) : (size_t)len);
    if (why == NULL) return C_OK;
    if (err) *err = sdsnew(why);
    return C_ERR;
}

/* Joins "(a" "b)" into "(a b)"; NULL (and *bad_arg) on an unclosed one. */
sds *aclMergeSelectorArgs(sds *argv, int argc, int *merged_argc, int *bad_arg) {
    sds *out = zmalloc(sizeof(sds) * (size_t)(argc ? argc : 1));
    int n = 0;
    for (int j = 0; j < argc; j++) {
        if (argv[j][0] != '(' || argv[j][sdslen(argv[j]) - 1] == ')') {
            out[n++] = sdsdup(argv[j]);
            continue;
        }
        int start = j;
        sds group = sdsdup(argv[j]);
        while (++j < argc) {
            group = sdscatfmt(group, " %S", argv[j]);
            if (sdslen(argv[j]) && argv[j][sdslen(argv[j]) - 1] == ')') break; /* "" closes nothing */
        }
        if (j == argc) {
            sdsfree(group);
            for (int k = 0; k < n; k++) sdsfree(out[k]);
            zfree(out);
            *bad_arg = start;
            return NULL;
        }
        out[n++] = group;
    }
    *merged_argc = n;
    return out;
}

/* Applies the rules of ACL SETUSER / a `user` line. On failure *err says
 * what to reply (without the "ERR " prefix) and u may be half changed:
 * callers work on a copy. */
int aclSetUserFromArgs(aclUser *u, sds *argv, int argc, int *bad_arg, sds *err) {
    int n = 0, bad = -1;
    sds *rules = aclMergeSelectorArgs(argv, argc, &n, &bad);
    if (rules == NULL) {
        if (bad_arg) *bad_arg = bad;
        *err = sdscatfmt(sdsempty(), "Unmatched parenthesis in acl selector starting at '%S'.", argv[bad]);
        return C_ERR;
    }
    int res = C_OK;
    for (int j = 0; j < n && res == C_OK; j++) {
        sds why = NULL;
        if (aclSetUser(u, rules[j], (ssize_t)sdslen(rules[j]), &why) == C_OK) continue;
        *err = sdscatfmt(sdsempty(), "Error in ACL SETUSER modifier '%S': %S", rules[j], why);
        if (bad_arg) *bad_arg = j;
        sdsfree(why);
        res = C_ERR;
    }
    for (int j = 0; j < n; j++) sdsfree(rules[j]);
    zfree(rules);
    return res;
}

/* ---- the users table ------------------------------------------------------------------ */

static void userDictDestructor(dict *d, void *u) {
    (void)d;
    (void)u; /* freed by whoever removes it: clients may still point to it */
}

static dictType usersDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = userDictDestructor,
};

dict *aclCreateUsersTable(void) { return dictCreate(&usersDictType); }

aclUser *aclTableLookup(dict *table, const char *name, size_t len) {
    sds key = sdsnewlen(name, len);
    aclUser *u = dictFetchValue(table, key);
    sdsfree(key);
    return u;
}

int aclUserAddToTable(dict *table, aclUser *u) {
    return dictAdd(table, sdsdup(u->name), u) == DICT_OK ? C_OK : C_ERR;
}

aclUser *aclLookupUser(const char *name, size_t len) { return aclTableLookup(users, name, len); }

aclUser *aclDefaultUser(void) { return default_user; }
const char *aclUserName(const aclUser *u) { return u->name; }
int aclUserIsEnabled(const aclUser *u) { return (u->flags & USER_ENABLED) != 0; }
int aclNameIsUser(const aclUser *u, const char *name) { return !strcmp(u->name, name); }

int aclValidUserName(const char *name, size_t len) {
    for (size_t j = 0; j < len; j++)
        if (name[j] == ' ' || name[j] == '\0') return 0;
    return 1;
}

/* A new user as ACL SETUSER creates it: off, no password, no commands. */
aclUser *aclCreateUser(const char *name, size_t len) {
    if (aclLookupUser(name, len)) return NULL;
    aclUser *u = userAlloc(name, len);
    aclUserAddToTable(users, u);
    return u;
}

static int compareSds(const void *a, const void *b) { return sdscmp(*(const sds *)a, *(const sds *)b); }

sds *aclUserNamesSorted(long *count) {
    sds *names = zmalloc(sizeof(sds) * (dictSize(users) + 1));
    long n = 0;
    dictIterator *di = dictGetIterator(users);
    dictEntry *de;
    while ((de = dictNext(di))) names[n++] = sdsdup(dictGetKey(de));
    dictReleaseIterator(di);
    qsort(names, (size_t)n, sizeof(sds), compareSds);
    *count = n;
    return names;
}

/* The client goes back to the default user, unauthenticated, and is closed
 * (after its reply when it is running this command). A module that
 * authenticated it hears it at once (module_acl.c). */
void aclRevokeClient(client *c) {
    moduleAuthUserChanged(c);
    c->user = default_user;
    c->authenticated = 0;
    if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_COMMAND; /* its reply still goes */
    else freeClientAsync(c);
}

static void disconnectClientsOf(aclUser *u) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->user == u) aclRevokeClient(c);
    }
}

/* A user in no table (a module's): freed, its clients revoked. */
void aclFreeUserAndClients(aclUser *u) {
    disconnectClientsOf(u);
    aclFreeUser(u);
}

int aclDeleteUser(const char *name, size_t len) {
    aclUser *u = aclLookupUser(name, len);
    if (u == NULL || u == default_user) return 0;
    sds key = sdsnewlen(name, len);
    dictDelete(users, key);
    sdsfree(key);
    disconnectClientsOf(u);
    aclFreeUser(u);
    return 1;
}

void aclSetDefaultUser(aclUser *u) { default_user = u; }

dict *aclUsersSwap(dict *table) {
    dict *old = users;
    users = table;
    return old;
}

void aclFreeUsersTable(dict *table, int kill_clients) {
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) {
        aclUser *u = dictGetVal(de);
        if (u == default_user) continue;
        if (kill_clients) disconnectClientsOf(u);
        aclFreeUser(u);
    }
    dictReleaseIterator(di);
    dictRelease(table);
}

/* ---- describing rules ----------------------------------------------------------------- */

typedef struct bitCount {
    const aclSelector *s;
    unsigned category_bit;
    unsigned long on, off;
} bitCount;

static void countIfInCategory(redisCommand *cmd, void *ud) {
    bitCount *bc = ud;
    if (!(categoriesOf(cmd) & bc->category_bit)) return;
    if (commandBit(bc->s, cmd->id)) bc->on++;
    else bc->off++;
}

/* The category that best describes what temp still allows (additive) or
 * still denies; -1 when none fits. */
static int bestCategory(const aclSelector *temp, int additive, const char *applied) {
    int best = -1;
    unsigned long mindiff = ULONG_MAX, maxsame = 0;
    for (int j = 0; j < CATEGORY_COUNT; j++) {
        if (applied[j]) continue;
        bitCount bc = {temp, 1u << j, 0, 0};
        forEachCommand(countIfInCategory, &bc);
        unsigned long diff = additive ? bc.off : bc.on, same = additive ? bc.on : bc.off;
        if (same > diff && (diff < mindiff || (diff == mindiff && same > maxsame))) {
            best = j;
            mindiff = diff;
            maxsame = same;
        }
    }
    return best;
}

typedef struct singleDiffs {
    const aclSelector *s;
    aclSelector *fake;
    sds rules;
} singleDiffs;

static void describeOneCommand(redisCommand *cmd, void *ud) {
    singleDiffs *sd = ud;
    int want = commandBit(sd->s, cmd->id);
    if (want != commandBit(sd->fake, cmd->id)) {
        sd->rules = sdscatfmt(sd->rules, "%s%S ", want ? "+" : "-", cmd->fullname);
        changeCommand(sd->fake, cmd, want);
    }
    if (sd->s->firstargs && sd->s->firstargs[cmd->id]) {
        listIter li;
        listNode *ln;
        listRewind(sd->s->firstargs[cmd->id], &li);
        while ((ln = listNext(&li))) sd->rules = sdscatfmt(sd->rules, "+%S|%S ", cmd->fullname, listNodeValue(ln));
    }
}

static sds describeCommands(const aclSelector *s) {
    int additive = !(s->flags & SEL_FUTURE);
    sds rules = sdsnew(additive ? "-@all " : "+@all ");
    aclSelector *fake = selectorCreate(0), *temp = selectorCreate(0);
    setAllCommands(fake, !additive);
    memcpy(temp->allowed, s->allowed, sizeof(uint64_t) * (size_t)bitmap_words);
    char applied[CATEGORY_COUNT] = {0};
    int best;
    while ((best = bestCategory(temp, additive, applied)) != -1) {
        changeCategory(fake, best, additive);
        changeCategory(temp, best, !additive);
        rules = sdscatfmt(rules, "%s@%s ", additive ? "+" : "-", category_names[best]);
        applied[best] = 1;
    }
    singleDiffs sd = {s, fake, rules};
    forEachCommand(describeOneCommand, &sd);
    selectorFree(fake);
    selectorFree(temp);
    sdsrange(sd.rules, 0, -2);
    return sd.rules;
}

static sds describeKeys(const aclSelector *s) {
    if (s->flags & SEL_ALLKEYS) return sdsnew("~*");
    sds out = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        keyPattern *kp = listNodeValue(ln);
        const char *prefix = kp->perms == KEY_ALL ? "~" : kp->perms == KEY_READ ? "%R~" : "%W~";
        out = sdscatfmt(out, "%s%s%S", sdslen(out) ? " " : "", prefix, kp->pattern);
    }
    return out;
}

static sds describeChannels(const aclSelector *s) {
    if (s->flags & SEL_ALLCHANNELS) return sdsnew("&*");
    sds out = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li))) out = sdscatfmt(out, "%s&%S", sdslen(out) ? " " : "", listNodeValue(ln));
    return out;
}

/* "keys channels commands", as ACL LIST writes a selector. */
static sds describeSelector(const aclSelector *s) {
    sds keys = describeKeys(s), commands = describeCommands(s), out = sdsempty();
    if (sdslen(keys)) out = sdscatfmt(out, "%S ", keys);
    if (s->flags & SEL_ALLCHANNELS) out = sdscat(out, "&* ");
    else {
        sds channels = describeChannels(s);
        out = sdscat(out, "resetchannels ");
        if (sdslen(channels)) out = sdscatfmt(out, "%S ", channels);
        sdsfree(channels);
    }
    out = sdscatsds(out, commands);
    sdsfree(keys);
    sdsfree(commands);
    return out;
}

sds aclDescribeUser(aclUser *u) {
    sds out = sdsnew(u->flags & USER_ENABLED ? "on" : "off");
    if (u->flags & USER_NOPASS) out = sdscat(out, " nopass");
    if (u->flags & USER_SKIP_SANITIZE) out = sdscat(out, " skip-sanitize-payload");
    if (u->flags & USER_SANITIZE) out = sdscat(out, " sanitize-payload");
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) out = sdscatfmt(out, " #%S", listNodeValue(ln));
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        sds d = describeSelector(s);
        out = (s->flags & SEL_ROOT) ? sdscatfmt(out, " %S", d) : sdscatfmt(out, " (%S)", d);
        sdsfree(d);
    }
    return out;
}

static void addReplySelectorFields(client *c, const aclSelector *s) {
    addReplyBulkCString(c, "commands");
    addReplyBulkSds(c, describeCommands(s));
    addReplyBulkCString(c, "keys");
    addReplyBulkSds(c, describeKeys(s));
    addReplyBulkCString(c, "channels");
    addReplyBulkSds(c, describeChannels(s));
}

void aclAddReplyUser(client *c, aclUser *u) {
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "flags");
    int nflags = 1 + !!(u->flags & USER_NOPASS) + !!(u->flags & (USER_SANITIZE | USER_SKIP_SANITIZE));
    addReplySetLen(c, nflags);
    addReplyBulkCString(c, u->flags & USER_ENABLED ? "on" : "off");
    if (u->flags & USER_NOPASS) addReplyBulkCString(c, "nopass");
    if (u->flags & USER_SKIP_SANITIZE) addReplyBulkCString(c, "skip-sanitize-payload");
    if (u->flags & USER_SANITIZE) addReplyBulkCString(c, "sanitize-payload");
    addReplyBulkCString(c, "passwords");
    addReplyArrayLen(c, (long)listLength(u->passwords));
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) addReplyBulkCBuffer(c, listNodeValue(ln), sdslen(listNodeValue(ln)));
    addReplySelectorFields(c, rootSelector(u));
    addReplyBulkCString(c, "selectors");
    addReplyArrayLen(c, (long)listLength(u->selectors) - 1);
    listRewind(u->selectors, &li);
    listNext(&li);
    while ((ln = listNext(&li))) {
        addReplyMapLen(c, 3);
        addReplySelectorFields(c, listNodeValue(ln));
    }
}

/* ---- the checks ----------------------------------------------------------------------- */

static int commandAllowed(const aclSelector *s, redisCommand *cmd, robj **argv, int argc) {
    if (s->flags & SEL_ALLCOMMANDS || cmd->flags & CMD_NO_AUTH) return 1;
    if (commandHasNoBit(cmd)) return 0; /* past the runtime slots: only +@all users */
    if (commandBit(s, cmd->id)) return 1;
    if (argc < 2 || s->firstargs == NULL || s->firstargs[cmd->id] == NULL) return 0;
    listIter li;
    listNode *ln;
    listRewind(s->firstargs[cmd->id], &li);
    while ((ln = listNext(&li)))
        if (!strcasecmp(listNodeValue(ln), argv[1]->ptr)) return 1;
    return 0;
}

/* The permissions a key spec's flags ask for: reading when the command
 * uses the value, writing when it changes it. */
static int keyPermsNeeded(uint64_t spec_flags) {
    int perms = 0;
    if (spec_flags & KSPEC_ACCESS) perms |= KEY_READ;
    if (spec_flags & (KSPEC_INSERT | KSPEC_DELETE | KSPEC_UPDATE)) perms |= KEY_WRITE;
    return perms;
}

/* A pattern starting with a plain byte can only match a key starting
 * with it: most patterns of a user fail here, without the glob matcher. */
static int firstByteMayMatch(const sds pattern, const sds key) {
    char first = pattern[0];
    if (first == '*' || first == '?' || first == '[' || first == '\\' || sdslen(pattern) == 0) return 1;
    return key[0] == first && sdslen(key) > 0;
}

static int keyAllowed(const aclSelector *s, robj *key, uint64_t spec_flags) {
    int needed = keyPermsNeeded(spec_flags);
    listIter li;
    listNode *ln;
    listRewind(s->patterns, &li);
    while ((ln = listNext(&li))) {
        keyPattern *kp = listNodeValue(ln);
        if ((kp->perms & needed) != needed || !firstByteMayMatch(kp->pattern, key->ptr)) continue;
        if (stringmatchlen(kp->pattern, (int)sdslen(kp->pattern), key->ptr, (int)sdslen(key->ptr), 0)) return 1;
    }
    return 0;
}

/* A pattern subscription is allowed only for a pattern the user has,
 * literally; a channel when one of the patterns matches it. */
static int channelAllowed(const aclSelector *s, robj *channel, int is_pattern) {
    if (s->flags & SEL_ALLCHANNELS) return 1;
    listIter li;
    listNode *ln;
    listRewind(s->channels, &li);
    while ((ln = listNext(&li))) {
        sds allowed = listNodeValue(ln);
        if (is_pattern ? !strcmp(allowed, channel->ptr)
                       : stringmatchlen(allowed, (int)sdslen(allowed), channel->ptr, (int)sdslen(channel->ptr), 0))
            return 1;
    }
    return 0;
}

/* The channels of the commands that name some: their first argument (or
 * all of them) and whether those are patterns. */
static int commandChannels(redisCommand *cmd, int argc, int *first, int *last, int *is_pattern) {
    redisCommandProc *p = cmd->proc;
    *first = 1;
    *is_pattern = p == psubscribeCommand;
    if (p == publishCommand || p == spublishCommand) *last = 1;
    else if (p == subscribeCommand || p == ssubscribeCommand || p == psubscribeCommand) *last = argc - 1;
    else return 0;
    return 1;
}

/* The keys of the command being checked. One result kept for the process
 * (only its count is reset), so checking a command allocates nothing. */
static getKeysResult checked_keys;

static int commandKeys(redisCommand *cmd, robj **argv, int argc) {
    if (checked_keys.size > 1024) getKeysFreeResult(&checked_keys); /* a huge MGET's room goes back */
    return getKeysFromCommand(cmd, argv, argc, &checked_keys);
}

/* A "getchannels-api" module command: the channels it reports as published
 * to or subscribed (unsubscribing needs no permission), as Redis 7.0. */
static int moduleChannelsCheck(const aclSelector *s, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    getKeysResult channels = {NULL, 0, 0};
    int n = moduleGetChannelsViaApi(cmd, argv, argc, &channels), res = ACL_OK;
    for (int j = 0; j < n; j++) {
        keyReference *ref = &channels.keys[j];
        if (!(ref->flags & (CMD_CHANNEL_PUBLISH | CMD_CHANNEL_SUBSCRIBE))) continue;
        if (channelAllowed(s, argv[ref->pos], (ref->flags & CMD_CHANNEL_PATTERN) != 0)) continue;
        *errpos = ref->pos;
        res = ACL_DENIED_CHANNEL;
        break;
    }
    getKeysFreeResult(&channels);
    return res;
}

static int selectorCheck(const aclSelector *s, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    if (!commandAllowed(s, cmd, argv, argc)) return ACL_DENIED_CMD;
    int has_keys = commandIsLate(cmd) ? commandHasKeys(cmd) : command_has_keys[cmd->id];
    if (!(s->flags & SEL_ALLKEYS) && has_keys) {
        int n = commandKeys(cmd, argv, argc);
        for (int j = 0; j < n; j++) {
            if (keyAllowed(s, argv[checked_keys.keys[j].pos], checked_keys.keys[j].flags)) continue;
            *errpos = checked_keys.keys[j].pos;
            return ACL_DENIED_KEY;
        }
    }
    if (!(s->flags & SEL_ALLCHANNELS) && (cmd->flags & CMD_MODULE_GETCHANNELS))
        return moduleChannelsCheck(s, cmd, argv, argc, errpos);
    int first, last, is_pattern;
    if (!(s->flags & SEL_ALLCHANNELS) && commandChannels(cmd, argc, &first, &last, &is_pattern)) {
        for (int j = first; j <= last; j++) {
            if (channelAllowed(s, argv[j], is_pattern)) continue;
            *errpos = j;
            return ACL_DENIED_CHANNEL;
        }
    }
    return ACL_OK;
}

/* The first selector allowing it wins; otherwise the most relevant denial
 * (channel over key over command, then the later argument). */
int aclCheckCommandOfUser(aclUser *u, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    int relevant = ACL_DENIED_CMD, relevant_pos = 0;
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        int pos = 0, res = selectorCheck(listNodeValue(ln), cmd, argv, argc, &pos);
        if (res == ACL_OK) return ACL_OK;
        if (res > relevant || (res == relevant && pos > relevant_pos)) {
            relevant = res;
            relevant_pos = pos;
        }
    }
    *errpos = relevant_pos;
    return relevant;
}

/* SORT's BY and GET patterns name keys no key spec shows: allowed only to a
 * selector that may run the command on any key (reading). */
int aclClientHasFullKeyAccess(client *c) {
    if (c->user == NULL) return 1;
    listIter li;
    listNode *ln;
    listRewind(c->user->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        if (!commandAllowed(s, c->cmd, c->argv, c->argc)) continue;
        if (s->flags & SEL_ALLKEYS) return 1;
        listIter pi;
        listNode *pn;
        listRewind(s->patterns, &pi);
        while ((pn = listNext(&pi))) {
            keyPattern *kp = listNodeValue(pn);
            if ((kp->perms & KEY_READ) && !strcmp(kp->pattern, "*")) return 1;
        }
    }
    return 0;
}

/* The fast path is the root selector allowing everything (the default user). */
int aclCheckAllPerm(client *c, int *errpos) {
    aclUser *u = c->user;
    if (u == NULL) return ACL_OK;
    const aclSelector *root = listNodeValue(listFirst(u->selectors));
    const unsigned all = SEL_ALLCOMMANDS | SEL_ALLKEYS | SEL_ALLCHANNELS;
    if ((root->flags & all) == all) return ACL_OK;
    return aclCheckCommandOfUser(u, c->cmd, c->argv, c->argc, errpos);
}

/* The reply to a denied command, and its ACL LOG entry. */
void aclRejectCommand(client *c, int result, int errpos, sds *err) {
    int context = c->flags & CLIENT_MULTI ? ACL_LOG_CTX_MULTI : ACL_LOG_CTX_TOPLEVEL;
    aclLogAdd(c, result, context, errpos, NULL, NULL);
    if (result == ACL_DENIED_CMD)
        *err = sdscatfmt(sdsempty(), "-NOPERM this user has no permissions to run the '%S' command", c->cmd->fullname);
    else if (result == ACL_DENIED_KEY)
        *err = sdsnew("-NOPERM this user has no permissions to access one of the keys used as arguments");
    else
        *err = sdsnew("-NOPERM this user has no permissions to access one of the channels used as arguments");
}

/* EXEC found a queued command its user may no longer run. */
void aclRejectQueuedCommand(client *c, int result, int errpos) {
    aclLogAdd(c, result, ACL_LOG_CTX_MULTI, errpos, NULL, NULL);
    const char *reason = result == ACL_DENIED_CMD   ? "no permission to execute the command or subcommand"
                         : result == ACL_DENIED_KEY ? "no permission to touch the specified keys"
                                                    : "no permission for the used channels";
    addReplyErrorFormat(c, "-NOPERM ACLs rules changed between the moment the transaction was accumulated and the "
                           "EXEC call. This command is no longer allowed for the following reason: %s", reason);
}

/* A module's question (module_acl.c): may u touch this key with these
 * key-spec flags (KSPEC_*; none: any permission will do)? */
int aclUserCheckKey(aclUser *u, robj *key, uint64_t spec_flags) {
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li))) {
        aclSelector *s = listNodeValue(ln);
        if (s->flags & SEL_ALLKEYS || keyAllowed(s, key, spec_flags)) return ACL_OK;
    }
    return ACL_DENIED_KEY;
}

/* ...and this channel (is_pattern: only a pattern the user has, literally)? */
int aclUserCheckChannel(aclUser *u, robj *channel, int is_pattern) {
    listIter li;
    listNode *ln;
    listRewind(u->selectors, &li);
    while ((ln = listNext(&li)))
        if (channelAllowed(listNodeValue(ln), channel, is_pattern)) return ACL_OK;
    return ACL_DENIED_CHANNEL;
}

/* ---- clients of a changed user -------------------------------------------------------- */

static int subscriptionsStillAllowed(aclUser *u, dict *subs, int is_pattern) {
    if (subs == NULL) return 1;
    int ok = 1;
    dictIterator *di = dictGetIterator(subs);
    dictEntry *de;
    while (ok && (de = dictNext(di))) {
        robj *channel = dictGetKey(de);
        ok = 0;
        listIter li;
        listNode *ln;
        listRewind(u->selectors, &li);
        while (!ok && (ln = listNext(&li))) ok = channelAllowed(listNodeValue(ln), channel, is_pattern);
    }
    dictReleaseIterator(di);
    return ok;
}

/* A subscriber whose user lost one of its channels is disconnected, as in
 * Redis 7.0; other changes apply to the next command. */
void aclUserChanged(aclUser *u) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->user != u) continue;
        if (subscriptionsStillAllowed(u, c->pubsub_channels, 0) && subscriptionsStillAllowed(u, c->pubsub_patterns, 1) &&
            subscriptionsStillAllowed(u, c->pubsubshard_channels, 0))
            continue;
        if (c == server.current_client) c->flags |= CLIENT_CLOSE_AFTER_COMMAND; /* its reply still goes */
        else freeClientAsync(c);
    }
}

/* ---- authentication ------------------------------------------------------------------- */

/* Equal digests, in a time that does not depend on where they differ. */
static int sameDigest(const char *a, const char *b) {
    unsigned char diff = 0;
    for (int j = 0; j < SHA256_HEX_LEN; j++) diff |= (unsigned char)(a[j] ^ b[j]);
    return diff == 0;
}

static int passwordMatches(aclUser *u, robj *password) {
    if (u->flags & USER_NOPASS) return 1;
    char hex[SHA256_HEX_LEN + 1];
    sha256Hex(password->ptr, sdslen(password->ptr), hex);
    int found = 0;
    listIter li;
    listNode *ln;
    listRewind(u->passwords, &li);
    while ((ln = listNext(&li))) found |= sameDigest(listNodeValue(ln), hex);
    return found;
}

int aclAuthenticate(client *c, robj *username, robj *password) {
    const char *name = username ? username->ptr : "default";
    size_t len = username ? sdslen(username->ptr) : 7;
    aclUser *u = aclLookupUser(name, len);
    if (u && (u->flags & USER_ENABLED) && passwordMatches(u, password)) {
        moduleAuthUserChanged(c); /* a module that authenticated it hears it */
        c->user = u;
        clientSetAuthenticated(c, 1);
        return C_OK;
    }
    aclLogAdd(c, ACL_DENIED_AUTH, ACL_LOG_CTX_TOPLEVEL, 0, sdsnewlen(name, len), NULL);
    return C_ERR;
}

int aclDefaultUserHasNoPassword(void) {
    return default_user == NULL ? server.requirepass == NULL : (default_user->flags & USER_NOPASS) != 0;
}

int aclDefaultUserRequiresAuth(void) {
    if (default_user == NULL) return server.requirepass != NULL;
    return !(default_user->flags & USER_NOPASS) || !(default_user->flags & USER_ENABLED);
}

/* requirepass: "resetpass" then ">pass", or "nopass" when empty. */
void aclUpdateDefaultUserPassword(void) {
    if (!acl_initialized) return;
    aclSetUser(default_user, "resetpass", -1, NULL);
    if (server.requirepass) {
        sds rule = sdscatsds(sdsnew(">"), server.requirepass);
        aclSetUser(default_user, rule, (ssize_t)sdslen(rule), NULL);
        sdsfree(rule);
    } else {
        aclSetUser(default_user, "nopass", -1, NULL);
    }
}

/* ---- start-up ------------------------------------------------------------------------- */

static aclUser *createDefaultUser(void) {
    aclUser *u = userAlloc("default", 7);
    static const char *rules[] = {"+@all", "~*", "&*", "on", "nopass"};
    for (size_t j = 0; j < sizeof rules / sizeof rules[0]; j++) aclSetUser(u, rules[j], -1, NULL);
    return u;
}

/* Before the config file is read: `user` lines are checked against the
 * command table as they are read. */
void aclInit(void) {
    forEachTableCommand(noteHighestId, NULL);
    acl_slots = command_slots + ACL_RUNTIME_COMMAND_SLOTS;
    bitmap_words = (acl_slots + 63) / 64;
    command_categories = zcalloc(sizeof(unsigned) * (size_t)command_slots);
    forEachTableCommand(noteCategories, NULL);
    command_has_keys = zcalloc((size_t)command_slots);
    forEachTableCommand(noteHasKeys, NULL);
    users = aclCreateUsersTable();
    default_user = createDefaultUser();
    aclUserAddToTable(users, default_user);
    acl_initialized = 1;
}
