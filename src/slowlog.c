/* slowlog.c -- the slow log: commands that took longer than
 * slowlog-log-slower-than microseconds, newest first, at most
 * slowlog-max-len of them.
 *
 * call() hands every finished command to slowlogPushEntryIfNeeded();
 * commands flagged skip_slowlog never get here. An entry is
 *   [id, unix time, duration in microseconds, [args], "ip:port", name]
 * with at most 32 arguments (the 32nd then says "... (N more arguments)")
 * and each argument cut at 128 bytes ("... (N more bytes)"), so one huge
 * command cannot make the log huge. Credentials given to AUTH, HELLO and
 * MIGRATE are stored as "(redacted)" (commandArgIsRedacted(), shared with
 * MONITOR).
 *
 * A negative slowlog-log-slower-than disables logging, 0 logs everything.
 * Ids keep increasing across SLOWLOG RESET, as in Redis.
 */
#include "server.h"

#define SLOWLOG_ENTRY_MAX_ARGC 32
#define SLOWLOG_ENTRY_MAX_STRING 128

typedef struct slowlogEntry {
    robj **argv;
    int argc;
    long long id;
    long long duration;  /* microseconds */
    time_t time;         /* unix time the command was logged */
    sds peerid;
    sds cname;
} slowlogEntry;

/* ---- redaction ---------------------------------------------------------------------- */

/* MIGRATE's AUTH password and AUTH2 username password, in the options its
 * parser reads (up to KEYS or the first it does not know). */
static int migrateArgIsRedacted(robj **argv, int argc, int j) {
    for (int k = 6; k < argc && k < j; k++) {
        if (!sdsEncodedObject(argv[k])) return 0;
        const char *opt = argv[k]->ptr;
        int more = argc - 1 - k, takes = 0;
        if (!strcasecmp(opt, "auth") && more >= 1) takes = 1;
        else if (!strcasecmp(opt, "auth2") && more >= 2) takes = 2;
        else if (strcasecmp(opt, "copy") && strcasecmp(opt, "replace")) return 0;
        if (j <= k + takes) return 1;
        k += takes;
    }
    return 0;
}

/* AUTH [user] password, and HELLO ... AUTH user password: every argument
 * after the command name (or after HELLO's AUTH) is a credential; so are
 * MIGRATE's. */
int commandArgIsRedacted(robj **argv, int argc, int j) {
    if (j == 0 || !sdsEncodedObject(argv[0])) return 0;
    if (!strcasecmp(argv[0]->ptr, "auth")) return 1;
    if (!strcasecmp(argv[0]->ptr, "migrate")) return migrateArgIsRedacted(argv, argc, j);
    if (!strcasecmp(argv[0]->ptr, "acl")) /* ACL SETUSER: the user and its rules (passwords) */
        return j >= 2 && sdsEncodedObject(argv[1]) && !strcasecmp(argv[1]->ptr, "setuser");
    if (strcasecmp(argv[0]->ptr, "hello")) return 0;
    for (int k = 2; k < argc && k < j; k++) {
        if (sdsEncodedObject(argv[k]) && !strcasecmp(argv[k]->ptr, "auth") && j <= k + 2) return 1;
    }
    return 0;
}

/* ---- entries ---------------------------------------------------------------------------- */

static robj *slowlogArgument(robj **argv, int argc, int j) {
    if (commandArgIsRedacted(argv, argc, j)) return createStringObject("(redacted)", 10);
    robj *arg = argv[j];
    if (sdsEncodedObject(arg) && sdslen(arg->ptr) > SLOWLOG_ENTRY_MAX_STRING) {
        sds s = sdsnewlen(arg->ptr, SLOWLOG_ENTRY_MAX_STRING);
        s = sdscatprintf(s, "... (%lu more bytes)", (unsigned long)(sdslen(arg->ptr) - SLOWLOG_ENTRY_MAX_STRING));
        return createObject(OBJ_STRING, s);
    }
    if (arg->refcount == OBJ_SHARED_REFCOUNT) return arg;
    return dupStringObject(arg); /* never share: the client may change its argv */
}

static slowlogEntry *slowlogCreateEntry(client *c, robj **argv, int argc, long long duration) {
    slowlogEntry *se = zmalloc(sizeof(*se));
    int kept = argc > SLOWLOG_ENTRY_MAX_ARGC ? SLOWLOG_ENTRY_MAX_ARGC : argc;
    se->argc = kept;
    se->argv = zmalloc(sizeof(robj *) * (size_t)kept);
    for (int j = 0; j < kept; j++) {
        if (j == kept - 1 && kept != argc) {
            sds more = sdscatprintf(sdsempty(), "... (%d more arguments)", argc - kept + 1);
            se->argv[j] = createObject(OBJ_STRING, more);
        } else {
            se->argv[j] = slowlogArgument(argv, argc, j);
        }
    }
    se->time = time(NULL);
    se->duration = duration;
    se->id = server.slowlog_id_next++;
    se->peerid = sdsnew(getClientPeerId(c));
    se->cname = c->name ? sdsnew(c->name->ptr) : sdsempty();
    return se;
}

static void slowlogFreeEntry(void *ptr) {
    slowlogEntry *se = ptr;
    for (int j = 0; j < se->argc; j++) decrRefCount(se->argv[j]);
    zfree(se->argv);
    sdsfree(se->peerid);
    sdsfree(se->cname);
    zfree(se);
}

static void slowlogTrim(void) {
    while (listLength(server.slowlog) > server.slowlog_max_len) listDelNode(server.slowlog, listLast(server.slowlog));
}

/* call() runs this after every command. */
void slowlogPushEntryIfNeeded(client *c, robj **argv, int argc, long long duration) {
    if (server.slowlog_log_slower_than < 0 || server.slowlog_max_len == 0) return;
    if (duration < server.slowlog_log_slower_than) return;
    listAddNodeHead(server.slowlog, slowlogCreateEntry(c, argv, argc, duration));
    slowlogTrim();
}

void slowlogInit(void) {
    server.slowlog = listCreate();
    server.slowlog_id_next = 0;
    listSetFreeMethod(server.slowlog, slowlogFreeEntry);
}

/* ---- SLOWLOG ------------------------------------------------------------------------------ */

static void addReplySlowlogEntry(client *c, slowlogEntry *se) {
    addReplyArrayLen(c, 6);
    addReplyLongLong(c, se->id);
    addReplyLongLong(c, (long long)se->time);
    addReplyLongLong(c, se->duration);
    addReplyArrayLen(c, se->argc);
    for (int j = 0; j < se->argc; j++) addReplyBulk(c, se->argv[j]);
    addReplyBulkCBuffer(c, se->peerid, sdslen(se->peerid));
    addReplyBulkCBuffer(c, se->cname, sdslen(se->cname));
}

static void slowlogGet(client *c) {
    long count = 10;
    if (c->argc == 3) {
        if (getRangeLongFromObjectOrReply(c, c->argv[2], -1, LONG_MAX, &count,
                                          "count should be greater than or equal to -1") != C_OK)
            return;
    }
    unsigned long available = listLength(server.slowlog);
    if (count == -1 || (unsigned long)count > available) count = (long)available;
    addReplyArrayLen(c, count);
    listIter li;
    listNode *ln;
    listRewind(server.slowlog, &li);
    while (count-- > 0 && (ln = listNext(&li)) != NULL) addReplySlowlogEntry(c, listNodeValue(ln));
}

static void slowlogHelp(client *c) {
    static const char *help[] = {
        "GET [<count>]",
        "    Return top <count> entries from the slowlog (default: 10, -1 mean all).",
        "    Entries are made of:",
        "    id, timestamp, time in microseconds, arguments array, client IP and port,",
        "    client name",
        "LEN",
        "    Return the length of the slowlog.",
        "RESET",
        "    Reset the slowlog.",
        NULL};
    addReplyHelp(c, help);
}

void slowlogCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (c->argc == 2 && !strcasecmp(sub, "help")) {
        slowlogHelp(c);
    } else if (c->argc == 2 && !strcasecmp(sub, "reset")) {
        while (listLength(server.slowlog)) listDelNode(server.slowlog, listLast(server.slowlog));
        addReply(c, shared.ok);
    } else if (c->argc == 2 && !strcasecmp(sub, "len")) {
        addReplyLongLong(c, (long long)listLength(server.slowlog));
    } else if ((c->argc == 2 || c->argc == 3) && !strcasecmp(sub, "get")) {
        slowlogGet(c);
    } else {
        addReplySubcommandSyntaxError(c);
    }
}
