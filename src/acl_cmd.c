/* acl_cmd.c -- the ACL command: SETUSER, GETUSER, DELUSER, LIST, USERS,
 * WHOAMI, CAT, GENPASS, LOG (acl_log.c), SAVE, LOAD (acl_file.c), DRYRUN
 * and HELP, with Redis 7.0's replies and error texts.
 *
 * SETUSER applies the rules to a copy of the user and installs the copy
 * only when every rule was valid, so a bad rule changes nothing; a user it
 * created is removed again. Clients of a changed user see the change at
 * their next command (subscribers that lost a channel are disconnected).
 */
#include "acl.h"
#include "osrandom.h"

/* ---- SETUSER, GETUSER, DELUSER ---------------------------------------------------------- */

void aclSetuserCommand(client *c) {
    sds name = c->argv[2]->ptr;
    if (!aclValidUserName(name, sdslen(name))) {
        addReplyError(c, "Usernames can't contain spaces or null characters");
        return;
    }
    aclUser *u = aclLookupUser(name, sdslen(name));
    int created = u == NULL;
    if (created) u = aclCreateUser(name, sdslen(name));
    aclUser *draft = aclCreateUnlinkedUser();
    aclCopyUser(draft, u);
    int argc = c->argc - 3;
    sds *argv = zmalloc(sizeof(sds) * (size_t)(argc ? argc : 1));
    for (int j = 0; j < argc; j++) argv[j] = c->argv[3 + j]->ptr;
    sds err = NULL;
    if (aclSetUserFromArgs(draft, argv, argc, NULL, &err) == C_OK) {
        aclCopyUser(u, draft);
        aclUserChanged(u);
        addReply(c, shared.ok);
    } else {
        if (created) aclDeleteUser(name, sdslen(name));
        addReplyErrorSds(c, err);
    }
    zfree(argv);
    aclFreeUser(draft);
}

void aclGetuserCommand(client *c) {
    aclUser *u = aclLookupUser(c->argv[2]->ptr, sdslen(c->argv[2]->ptr));
    if (u == NULL) addReplyNull(c);
    else aclAddReplyUser(c, u);
}

void aclDeluserCommand(client *c) {
    long deleted = 0;
    for (int j = 2; j < c->argc; j++) {
        sds name = c->argv[j]->ptr;
        if (!strcmp(name, "default")) {
            addReplyError(c, "The 'default' user cannot be removed");
            return;
        }
    }
    for (int j = 2; j < c->argc; j++) deleted += aclDeleteUser(c->argv[j]->ptr, sdslen(c->argv[j]->ptr));
    addReplyLongLong(c, deleted);
}

/* ---- LIST, USERS, WHOAMI ------------------------------------------------------------------ */

void aclListCommand(client *c) {
    long count;
    sds *names = aclUserNamesSorted(&count);
    addReplyArrayLen(c, count);
    for (long j = 0; j < count; j++) {
        aclUser *u = aclLookupUser(names[j], sdslen(names[j]));
        sds rules = aclDescribeUser(u);
        addReplyBulkSds(c, sdscatfmt(sdsempty(), "user %S %S", names[j], rules));
        sdsfree(rules);
        sdsfree(names[j]);
    }
    zfree(names);
}

void aclUsersCommand(client *c) {
    long count;
    sds *names = aclUserNamesSorted(&count);
    addReplyArrayLen(c, count);
    for (long j = 0; j < count; j++) addReplyBulkSds(c, names[j]);
    zfree(names);
}

void aclWhoamiCommand(client *c) { addReplyBulkCString(c, aclUserName(c->user)); }

/* ---- CAT ------------------------------------------------------------------------------------ */

static void addReplyCommandsOfCategory(client *c, int category) {
    void *len = addReplyDeferredLen(c);
    long n = 0;
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++) {
        if (aclCommandCategories(cmd) & (1u << category)) {
            addReplyBulkCBuffer(c, cmd->fullname, sdslen(cmd->fullname));
            n++;
        }
        for (redisCommand *sub = cmd->subcommands; sub && sub->declared_name; sub++) {
            if (!(aclCommandCategories(sub) & (1u << category))) continue;
            addReplyBulkCBuffer(c, sub->fullname, sdslen(sub->fullname));
            n++;
        }
    }
    setDeferredArrayLen(c, len, n);
}

void aclCatCommand(client *c) {
    if (c->argc == 2) {
        addReplyArrayLen(c, aclCategoryCount());
        for (int j = 0; j < aclCategoryCount(); j++) addReplyBulkCString(c, aclCategoryName(j));
        return;
    }
    if (c->argc != 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int category = aclCategoryIndexByName(c->argv[2]->ptr);
    if (category == -1) {
        addReplyErrorFormat(c, "Unknown category '%.128s'", (char *)c->argv[2]->ptr);
        return;
    }
    addReplyCommandsOfCategory(c, category);
}

/* ---- GENPASS -------------------------------------------------------------------------------- */

void aclGenpassCommand(client *c) {
    long bits = 256;
    if (c->argc == 3 && getLongFromObjectOrReply(c, c->argv[2], &bits, NULL) != C_OK) return;
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (bits <= 0 || bits > 4096) {
        addReplyError(c, "ACL GENPASS argument must be the number of bits for the output password, a positive number "
                         "up to 4096");
        return;
    }
    static const char digits[] = "0123456789abcdef";
    size_t chars = (size_t)(bits + 3) / 4;
    unsigned char *random = zmalloc(chars);
    osRandomBytes(random, chars);
    sds pass = sdsnewlen(NULL, chars);
    for (size_t j = 0; j < chars; j++) pass[j] = digits[random[j] & 15];
    zfree(random);
    addReplyBulkSds(c, pass);
}

/* ---- LOG, SAVE, LOAD --------------------------------------------------------------------------- */

void aclLogSubCommand(client *c) {
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    aclLogCommand(c);
}

static int aclFileConfiguredOrReply(client *c) {
    if (acl_filename && acl_filename[0]) return 1;
    addReplyError(c, "This Redis instance is not configured to use an ACL file. You may want to specify users via "
                     "the ACL SETUSER command and then issue a CONFIG REWRITE (assuming you have a Redis configuration "
                     "file set) in order to store users in the Redis configuration.");
    return 0;
}

void aclSaveCommand(client *c) {
    if (!aclFileConfiguredOrReply(c)) return;
    sds err = NULL;
    if (aclSaveToFile(acl_filename, &err) == C_OK) {
        addReply(c, shared.ok);
        return;
    }
    serverLog(LL_WARNING, "%s", err);
    sdsfree(err);
    addReplyError(c, "There was an error trying to save the ACLs. Please check the server logs for more information");
}

void aclLoadCommand(client *c) {
    if (!aclFileConfiguredOrReply(c)) return;
    sds err = NULL;
    if (aclLoadFromFile(acl_filename, &err) == C_OK) addReply(c, shared.ok);
    else addReplyErrorSds(c, err);
}

/* ---- DRYRUN ---------------------------------------------------------------------------------- */

void aclDryrunCommand(client *c) {
    aclUser *u = aclLookupUser(c->argv[2]->ptr, sdslen(c->argv[2]->ptr));
    if (u == NULL) {
        addReplyErrorFormat(c, "User '%s' not found", (char *)c->argv[2]->ptr);
        return;
    }
    robj **argv = c->argv + 3;
    int argc = c->argc - 3;
    redisCommand *cmd = lookupCommand(argv, argc);
    if (cmd == NULL) {
        addReplyErrorFormat(c, "Command '%s' not found", (char *)argv[0]->ptr);
        return;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        addReplyErrorFormat(c, "wrong number of arguments for '%s' command", cmd->fullname);
        return;
    }
    int errpos = 0, res = aclCheckCommandOfUser(u, cmd, argv, argc, &errpos);
    if (res == ACL_OK) {
        addReply(c, shared.ok);
        return;
    }
    sds why;
    if (res == ACL_DENIED_CMD)
        why = sdscatfmt(sdsempty(), "This user has no permissions to run the '%S' command", cmd->fullname);
    else if (res == ACL_DENIED_KEY)
        why = sdscatfmt(sdsempty(), "This user has no permissions to access the '%S' key", argv[errpos]->ptr);
    else
        why = sdscatfmt(sdsempty(), "This user has no permissions to access the '%S' channel", argv[errpos]->ptr);
    addReplyBulkSds(c, why);
}

/* ---- HELP -------------------------------------------------------------------------------------- */

void aclHelpCommand(client *c) {
    const char *help[] = {
        "CAT [<category>]",
        "    List all commands that belong to <category>, or all command categories",
        "    when no category is specified.",
        "DELUSER <username> [<username> ...]",
        "    Delete a list of users.",
        "DRYRUN <username> <command> [<arg> ...]",
        "    Returns whether the user can execute the given command without executing the command.",
        "GETUSER <username>",
        "    Get the user's details.",
        "GENPASS [<bits>]",
        "    Generate a secure 256-bit user password. The optional `bits` argument can",
        "    be used to specify a different size.",
        "LIST",
        "    Show users details in config file format.",
        "LOAD",
        "    Reload users from the ACL file.",
        "LOG [<count> | RESET]",
        "    Show the ACL log entries.",
        "SAVE",
        "    Save the current config to the ACL file.",
        "SETUSER <username> <attribute> [<attribute> ...]",
        "    Create or modify a user with the specified attributes.",
        "USERS",
        "    List all the registered usernames.",
        "WHOAMI",
        "    Return the current connection username.",
        NULL};
    addReplyHelp(c, help);
}
