/* acl_file.c -- where users come from: `user` lines of the config file, or
 * an aclfile (ACL LOAD / ACL SAVE), never both (Redis refuses to start).
 * Also `rename-command`, the older way to take a command away.
 *
 * Redis 7.0's behaviour and texts, checked against Debian's 7.0.15:
 * - A `user` line is checked when the config file is read (a bad rule is a
 *   FATAL CONFIG FILE ERROR), except that command and category names are
 *   checked only when the users are created after the whole configuration
 *   was read (Redis defers them because modules add commands); a bad one
 *   then stops start-up with "Error loading ACL rule ...".
 * - An aclfile is read whole, every line checked, and installed only if
 *   no line failed: ACL LOAD of a bad file keeps the users as they were and
 *   lists every problem with file and line. A file without a default user
 *   gets the default one. Lines are split on single spaces (no quoting, no
 *   comments), as Redis splits them.
 * - Installing a new set of users keeps the default user's object (copying
 *   the new rules into it) so its clients stay connected; clients of the
 *   other old users are disconnected.
 * - ACL SAVE writes "user <name> <rules>" lines sorted by name to a
 *   temporary file, fsyncs it, renames it over the old one and fsyncs the
 *   directory: after a power cut the old file or the new one, and the new
 *   one once it replied OK (utils/powercut checks both).
 */
#include "acl.h"
#include "persistio.h"

#include <errno.h>
#include <fcntl.h>

char *acl_filename;
int acl_commands_renamed;
int enable_module_command;

static list *config_user_lines; /* sds* argv arrays (argv[0] "user"), with argc in front */

typedef struct userLine {
    int argc;
    sds *argv;
} userLine;

static const char *err_unknown_text = "Unknown command or category name in ACL";

/* ---- checking rules without a command table ------------------------------------------- */

/* Every rule of a line on a scratch user; unknown command or category names
 * are not errors here. Returns the index of the bad rule, or -1. */
static int firstBadRule(sds *rules, int count, sds *err) {
    aclUser *scratch = aclCreateUnlinkedUser();
    int bad = -1;
    for (int j = 0; j < count && bad == -1; j++) {
        sds why = NULL;
        if (aclSetUser(scratch, rules[j], (ssize_t)sdslen(rules[j]), &why) == C_OK) continue;
        if (!strcmp(why, err_unknown_text)) {
            sdsfree(why);
            continue;
        }
        *err = why;
        bad = j;
    }
    aclFreeUser(scratch);
    return bad;
}

/* ---- `user` lines ------------------------------------------------------------------------- */

int aclConfigUserLine(sds *argv, int argc, sds *err) {
    if (argc < 2) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    int bad = -1;
    sds why = NULL;
    aclUser *scratch = aclCreateUnlinkedUser();
    int merged = aclSetUserFromArgs(scratch, argv + 2, argc - 2, &bad, &why);
    aclFreeUser(scratch);
    if (merged != C_OK && strstr(why, "Unmatched parenthesis")) {
        *err = sdscatfmt(sdsempty(), "Error in user declaration '%S': %S", argv[0], why);
        sdsfree(why);
        return C_ERR;
    }
    sdsfree(why);
    why = NULL;
    bad = firstBadRule(argv + 2, argc - 2, &why);
    if (bad != -1) {
        /* Redis names the argument at the rule's index counted from the directive. */
        *err = sdscatfmt(sdsempty(), "Error in user declaration '%S': %S", argv[bad], why);
        sdsfree(why);
        return C_ERR;
    }
    if (config_user_lines == NULL) config_user_lines = listCreate();
    listIter li;
    listNode *ln;
    listRewind(config_user_lines, &li);
    while ((ln = listNext(&li))) {
        userLine *seen = listNodeValue(ln);
        if (sdscmp(seen->argv[1], argv[1]) != 0) continue;
        *err = sdscatfmt(sdsempty(), "Error in user declaration '%S': Duplicate user found. A user can only be "
                                     "defined once in config files", argv[1]);
        return C_ERR;
    }
    userLine *line = zmalloc(sizeof(*line));
    line->argc = argc;
    line->argv = zmalloc(sizeof(sds) * (size_t)argc);
    for (int j = 0; j < argc; j++) line->argv[j] = sdsdup(argv[j]);
    listAddNodeTail(config_user_lines, line);
    return C_OK;
}

static void warnIfDisabled(aclUser *u) {
    if (!aclUserIsEnabled(u))
        serverLog(LL_NOTICE, "The user '%s' is disabled (there is no 'on' modifier in the user description). Make "
                             "sure this is not a configuration error.", aclUserName(u));
}

/* One `user` line: the default user is reset first, others are new. */
static int createConfiguredUser(userLine *line) {
    sds name = line->argv[1];
    aclUser *u = aclLookupUser(name, sdslen(name));
    if (u == aclDefaultUser()) aclSetUser(u, "reset", -1, NULL);
    else if (u) {
        serverLog(LL_WARNING, "Duplicate user '%s' found in the configuration.", name);
        return C_ERR;
    } else u = aclCreateUser(name, sdslen(name));
    for (int j = 2; j < line->argc; j++) {
        sds why = NULL;
        if (aclSetUser(u, line->argv[j], (ssize_t)sdslen(line->argv[j]), &why) == C_OK) continue;
        serverLog(LL_WARNING, "Error loading ACL rule '%s' for the user named '%s': %s", line->argv[j], name, why);
        sdsfree(why);
        return C_ERR;
    }
    warnIfDisabled(u);
    return C_OK;
}

/* After the configuration is read: requirepass, then the `user` lines or
 * the aclfile. C_ERR: the reason is logged and the server must exit. */
int aclLoadUsersAtStartup(void) {
    int has_file = acl_filename && acl_filename[0];
    if (acl_commands_renamed)
        serverLog(LL_WARNING, "WARNING: rename-command is used in the configuration. ACL rules are the better tool "
                              "to keep commands from clients: they don't break clients or tools that expect the "
                              "command names, and apply per user (ACL SETUSER <user> -<command>).");
    aclUpdateDefaultUserPassword();
    if (has_file && config_user_lines && listLength(config_user_lines)) {
        serverLog(LL_WARNING, "Configuring Redis with users defined in redis.conf and at the same setting an ACL file "
                              "path is invalid. This setup is very likely to lead to configuration errors and security "
                              "holes, please define either an ACL file or declare users directly in your redis.conf, "
                              "but not both.");
        return C_ERR;
    }
    if (has_file) {
        sds err = NULL;
        if (aclLoadFromFile(acl_filename, &err) == C_OK) return C_OK;
        serverLog(LL_WARNING, "Aborting Redis startup because of ACL errors: %s", err);
        sdsfree(err);
        return C_ERR;
    }
    listIter li;
    listNode *ln;
    if (config_user_lines) listRewind(config_user_lines, &li);
    while (config_user_lines && (ln = listNext(&li))) {
        if (createConfiguredUser(listNodeValue(ln)) == C_OK) continue;
        serverLog(LL_WARNING, "Critical error while loading ACLs. Exiting.");
        return C_ERR;
    }
    return C_OK;
}

/* ---- the aclfile ---------------------------------------------------------------------------- */

typedef struct fileLoad {
    const char *path;
    dict *users;
    aclUser *new_default;
    sds errors;
} fileLoad;

/* Every rule of a line is tried on a scratch user and every failure
 * reported; returns how many failed. */
static int reportBadRules(fileLoad *fl, sds *rules, int count, int linenum) {
    aclUser *scratch = aclCreateUnlinkedUser();
    int bad = 0;
    for (int j = 0; j < count; j++) {
        sds why = NULL;
        if (aclSetUser(scratch, rules[j], (ssize_t)sdslen(rules[j]), &why) == C_OK) continue;
        if (!strcmp(why, err_unknown_text))
            fl->errors = sdscatprintf(fl->errors, "%s:%d: Error in applying operation '%s': %s. ", fl->path, linenum,
                                      rules[j], why);
        else
            fl->errors = sdscatprintf(fl->errors, "%s:%d: %s. ", fl->path, linenum, why);
        sdsfree(why);
        bad++;
    }
    aclFreeUser(scratch);
    return bad;
}

/* A line whose rules are all valid: the user, unless the file has it already. */
static void addFileUser(fileLoad *fl, sds name, sds *rules, int count, int linenum) {
    if (aclTableLookup(fl->users, name, sdslen(name))) {
        fl->errors = sdscatprintf(fl->errors, "WARNING: Duplicate user '%s' found on line %d. ", name, linenum);
        return;
    }
    aclUser *u = aclNewUser(name, sdslen(name));
    aclUserAddToTable(fl->users, u);
    if (!strcmp(name, "default")) fl->new_default = u;
    for (int j = 0; j < count; j++) aclSetUser(u, rules[j], (ssize_t)sdslen(rules[j]), NULL);
}

static void loadFileLine(fileLoad *fl, sds line, int linenum) {
    int argc = 0;
    sds *argv = sdssplitlen(line, (ssize_t)sdslen(line), " ", 1, &argc);
    if (argc < 2 || strcmp(argv[0], "user") != 0) {
        fl->errors = sdscatprintf(fl->errors, "%s:%d should start with user keyword followed by the username. ",
                                  fl->path, linenum);
        sdsfreesplitres(argv, argc);
        return;
    }
    int n = 0, bad = -1;
    sds *rules = aclMergeSelectorArgs(argv + 2, argc - 2, &n, &bad);
    if (rules == NULL) {
        fl->errors = sdscatprintf(fl->errors, "%s:%d: Unmatched parenthesis in selector definition.", fl->path, linenum);
    } else {
        if (reportBadRules(fl, rules, n, linenum) == 0) addFileUser(fl, argv[1], rules, n, linenum);
        for (int j = 0; j < n; j++) sdsfree(rules[j]);
        zfree(rules);
    }
    sdsfreesplitres(argv, argc);
}

static void freeLoadedUsers(dict *table) {
    dictIterator *di = dictGetIterator(table);
    dictEntry *de;
    while ((de = dictNext(di))) aclFreeUser(dictGetVal(de));
    dictReleaseIterator(di);
    dictRelease(table);
}

/* The new users replace the old: the default user's object stays. */
static void installLoadedUsers(fileLoad *fl) {
    aclUser *def = aclDefaultUser();
    if (fl->new_default) {
        aclCopyUser(def, fl->new_default);
        sds key = sdsnew("default");
        dictDelete(fl->users, key);
        sdsfree(key);
        aclFreeUser(fl->new_default);
    } else {
        aclUser *fresh = aclCreateUnlinkedUser();
        static const char *rules[] = {"+@all", "~*", "&*", "on", "nopass"};
        for (size_t j = 0; j < sizeof rules / sizeof rules[0]; j++) aclSetUser(fresh, rules[j], -1, NULL);
        aclCopyUser(def, fresh);
        aclFreeUser(fresh);
    }
    aclUserAddToTable(fl->users, def);
    dict *old = aclUsersSwap(fl->users);
    aclFreeUsersTable(old, 1);
    aclUserChanged(def);
}

int aclLoadFromFile(const char *path, sds *err) {
    sds text = sdsempty();
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        *err = sdscatprintf(sdsempty(), "Error loading ACLs, opening file '%s': %s", path, strerror(errno));
        sdsfree(text);
        return C_ERR;
    }
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, fp)) > 0) text = sdscatlen(text, buf, n);
    fclose(fp);
    fileLoad fl = {path, aclCreateUsersTable(), NULL, sdsempty()};
    int count = 0;
    sds *lines = sdssplitlen(text, (ssize_t)sdslen(text), "\n", 1, &count);
    for (int j = 0; j < count; j++) {
        lines[j] = sdstrim(lines[j], " \t\r\n");
        if (sdslen(lines[j]) == 0) continue;
        loadFileLine(&fl, lines[j], j + 1);
    }
    sdsfreesplitres(lines, count);
    sdsfree(text);
    if (sdslen(fl.errors)) {
        freeLoadedUsers(fl.users);
        *err = sdscat(fl.errors, "WARNING: ACL errors detected, no change to the previously active ACL rules was "
                                 "performed");
        return C_ERR;
    }
    sdsfree(fl.errors);
    installLoadedUsers(&fl);
    return C_OK;
}

static int writeAll(int fd, const char *p, size_t len) {
    while (len > 0) {
        ssize_t w = write(fd, p, len);
        if (w == -1 && errno == EINTR) continue;
        if (w <= 0) return C_ERR;
        p += w;
        len -= (size_t)w;
    }
    return C_OK;
}

int aclSaveToFile(const char *path, sds *err) {
    long count;
    sds *names = aclUserNamesSorted(&count);
    sds content = sdsempty();
    for (long j = 0; j < count; j++) {
        sds rules = aclDescribeUser(aclLookupUser(names[j], sdslen(names[j])));
        content = sdscatfmt(content, "user %S %S\n", names[j], rules);
        sdsfree(rules);
        sdsfree(names[j]);
    }
    zfree(names);
    sds tmp = sdscatprintf(sdsempty(), "%s.tmp-%ld", path, (long)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    int res = fd == -1 ? C_ERR : writeAll(fd, content, sdslen(content));
    if (res == C_OK && fsync(fd) == -1) res = C_ERR;
    if (fd != -1 && close(fd) == -1) res = C_ERR;
    if (res == C_OK && rename(tmp, path) == -1) res = C_ERR;
    if (res == C_OK && persistFsyncDirOf(path) == -1) {
        /* renamed, maybe not durably: the file stays, the error says so */
        *err = sdscatprintf(sdsempty(), "Saving the ACL file %s: %s", path, strerror(errno));
        res = C_ERR;
    } else if (res != C_OK) {
        *err = sdscatprintf(sdsempty(), "Saving the ACL file %s: %s", path, strerror(errno));
        unlink(tmp);
    }
    sdsfree(tmp);
    sdsfree(content);
    return res;
}

/* CONFIG REWRITE: "user <name> <rules>" for every user, sorted; NULL when
 * an aclfile holds the users (then the config file has none). */
sds *aclConfigRewriteLines(int *count) {
    if (acl_filename && acl_filename[0]) return NULL;
    long n;
    sds *names = aclUserNamesSorted(&n);
    for (long j = 0; j < n; j++) {
        sds rules = aclDescribeUser(aclLookupUser(names[j], sdslen(names[j])));
        sds line = sdscatfmt(sdsempty(), "user %S %S", names[j], rules);
        sdsfree(rules);
        sdsfree(names[j]);
        names[j] = line;
    }
    *count = (int)n;
    return names;
}

/* ---- rename-command --------------------------------------------------------------------- */

int aclConfigRenameCommand(sds *argv, int argc, sds *err) {
    if (argc != 3) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    redisCommand *cmd = lookupCommandBySds(argv[1]);
    if (cmd == NULL) {
        *err = sdsnew("No such command in rename-command");
        return C_ERR;
    }
    if (sdslen(argv[2]) && lookupCommandBySds(argv[2])) {
        *err = sdsnew("Target command name already exists");
        return C_ERR;
    }
    dictDelete(server.commands, argv[1]);
    if (sdslen(argv[2])) dictAdd(server.commands, sdsdup(argv[2]), cmd);
    acl_commands_renamed = 1;
    return C_OK;
}
