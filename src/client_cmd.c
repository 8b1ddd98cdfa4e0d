/* client_cmd.c -- CLIENT: ID, INFO, LIST, KILL, SETNAME, GETNAME,
 * PAUSE, UNPAUSE, REPLY, NO-EVICT, TRACKING, CACHING, GETREDIR,
 * TRACKINGINFO and HELP; and RESET, which returns a connection to its
 * state right after connecting.
 *
 * Replies and error texts are Redis 7.0's, byte for byte. Redis 7.2's
 * SETINFO and NO-TOUCH are unknown subcommands, as in 7.0: clients decide
 * on redis_version whether to send them.
 *
 * CLIENT PAUSE. processCommand() asks postponeCommandIfPaused() right
 * before running a command; while a pause is in effect the command (all
 * commands with ALL, those that may write with WRITE, EXEC included when a
 * queued command may write) is kept in the client's argv, the client is
 * flagged CLIENT_BLOCKED so networking.c stops parsing its input, and its
 * id is remembered; expiry and eviction stop meanwhile (expire.c, evict.c).
 * Our primary's link is paused like a client, as in Redis: its stream is
 * still read (slave_read_repl_offset grows) but not applied or passed on
 * (slave_repl_offset stays) until the pause ends; our replicas never are.
 * The pause ends at its deadline (a timer of ours) or on CLIENT UNPAUSE;
 * then, from a timer (so never nested inside another command), each
 * remembered client still connected runs its command and the rest of its
 * pipeline, in the order they were paused. Ids rather than pointers are remembered, so a
 * client that disconnects while paused needs no cleanup here. A second
 * PAUSE extends the deadline and can only make the pause stricter (WRITE ->
 * ALL), never looser, until it ends.
 *
 * CLIENT KILL parses every filter before killing anything; a client that
 * kills itself gets its reply first and is closed after it.
 *
 * CLIENT TRACKING parses and checks its options here, in Redis's order
 * and with its error texts (one reply per command, where Redis 7.0 sends
 * two after some prefix clashes: see trackingCheckPrefixes()); tracking.c
 * keeps the state.
 */
#include "server.h"
#include "acl.h"
#include "tracking.h"
#include "client_eviction.h"

/* ---- helpers ------------------------------------------------------------------------ */

#define CLIENT_TYPE_MASTER_LINK (-2) /* "master": our primary's link (replica.c) */

/* -1 for an unknown name. */
static int clientTypeByName(const char *name) {
    if (!strcasecmp(name, "normal")) return CLIENT_TYPE_NORMAL;
    if (!strcasecmp(name, "slave") || !strcasecmp(name, "replica")) return CLIENT_TYPE_REPLICA;
    if (!strcasecmp(name, "pubsub")) return CLIENT_TYPE_PUBSUB;
    if (!strcasecmp(name, "master")) return CLIENT_TYPE_MASTER_LINK;
    return -1;
}

/* The primary's link is of type "master" only (TYPE normal spares it). */
static int clientIsOfType(client *c, int type) {
    if (type == CLIENT_TYPE_MASTER_LINK || (c->flags & CLIENT_MASTER)) return type == CLIENT_TYPE_MASTER_LINK && (c->flags & CLIENT_MASTER);
    return getClientType(c) == type;
}

/* Returns 1 and sets *on for "on"/"off", otherwise replies a syntax error. */
static int parseOnOffOrReply(client *c, robj *arg, int *on) {
    if (!strcasecmp(arg->ptr, "on")) *on = 1;
    else if (!strcasecmp(arg->ptr, "off")) *on = 0;
    else {
        addReplyErrorObject(c, shared.syntaxerr);
        return 0;
    }
    return 1;
}

static void setClientFlag(client *c, uint64_t flag, int on) {
    if (on) c->flags |= flag;
    else c->flags &= ~flag;
}

client *clientById(uint64_t id) {
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (c->id == id) return c;
    }
    return NULL;
}

/* ---- CLIENT LIST / INFO ------------------------------------------------------------------ */

static sds catClientLine(sds out, client *c) {
    out = catClientInfoString(out, c);
    return sdscatlen(out, "\n", 1);
}

static void clientListByType(client *c, int type) {
    sds out = sdsempty();
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *each = listNodeValue(ln);
        if (type == -1 || clientIsOfType(each, type)) out = catClientLine(out, each);
    }
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}

static void clientListByIds(client *c) {
    sds out = sdsempty();
    for (int j = 3; j < c->argc; j++) {
        long long id;
        if (getLongLongFromObject(c->argv[j], &id) != C_OK) {
            addReplyError(c, "Invalid client ID");
            sdsfree(out);
            return;
        }
        client *found = clientById((uint64_t)id);
        if (found) out = catClientLine(out, found);
    }
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}

static void clientListCommand(client *c) {
    if (c->argc == 2) {
        clientListByType(c, -1);
    } else if (c->argc == 4 && !strcasecmp(c->argv[2]->ptr, "type")) {
        int type = clientTypeByName(c->argv[3]->ptr);
        if (type == -1) {
            addReplyErrorFormat(c, "Unknown client type '%s'", (char *)c->argv[3]->ptr);
            return;
        }
        clientListByType(c, type);
    } else if (c->argc > 3 && !strcasecmp(c->argv[2]->ptr, "id")) {
        clientListByIds(c);
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
    }
}

static void clientInfoCommand(client *c) {
    sds out = catClientLine(sdsempty(), c);
    addReplyVerbatim(c, out, sdslen(out), "txt");
    sdsfree(out);
}

/* ---- CLIENT KILL --------------------------------------------------------------------------- */

typedef struct killFilter {
    uint64_t id;          /* 0: any */
    int type;             /* -1: any */
    const char *addr;     /* NULL: any */
    const char *laddr;
    struct aclUser *user; /* NULL: any */
    int skipme;
} killFilter;

static int killFilterMatches(const killFilter *f, client *self, client *c) {
    if (c->conn == NULL) return 0; /* fake clients (AOF loading) cannot be killed */
    if (f->id && c->id != f->id) return 0;
    if (f->type != -1 && !clientIsOfType(c, f->type)) return 0;
    if (f->addr && strcmp(getClientPeerId(c), f->addr) != 0) return 0;
    if (f->user && c->user != f->user) return 0;
    if (f->laddr) {
        char local[NET_ADDR_STR_LEN] = "?:0";
        connFormatAddr(c->conn, local, sizeof local, 0);
        if (strcmp(local, f->laddr) != 0) return 0;
    }
    return !(f->skipme && c == self);
}

/* Parses "<option> <value> ..." into f; replies and returns 0 on error. */
static int parseKillFilter(client *c, killFilter *f) {
    for (int i = 2; i < c->argc; i += 2) {
        const char *opt = c->argv[i]->ptr;
        int moreargs = c->argc > i + 1;
        robj *value = moreargs ? c->argv[i + 1] : NULL;
        if (!moreargs) {
            addReplyErrorObject(c, shared.syntaxerr);
            return 0;
        } else if (!strcasecmp(opt, "id")) {
            long id;
            if (getRangeLongFromObjectOrReply(c, value, 1, LONG_MAX, &id, "client-id should be greater than 0") != C_OK)
                return 0;
            f->id = (uint64_t)id;
        } else if (!strcasecmp(opt, "type")) {
            f->type = clientTypeByName(value->ptr);
            if (f->type == -1) {
                addReplyErrorFormat(c, "Unknown client type '%s'", (char *)value->ptr);
                return 0;
            }
        } else if (!strcasecmp(opt, "addr")) {
            f->addr = value->ptr;
        } else if (!strcasecmp(opt, "laddr")) {
            f->laddr = value->ptr;
        } else if (!strcasecmp(opt, "user")) {
            f->user = aclLookupUser(value->ptr, sdslen(value->ptr));
            if (f->user == NULL) {
                addReplyErrorFormat(c, "No such user '%s'", (char *)value->ptr);
                return 0;
            }
        } else if (!strcasecmp(opt, "skipme")) {
            if (!strcasecmp(value->ptr, "yes")) f->skipme = 1;
            else if (!strcasecmp(value->ptr, "no")) f->skipme = 0;
            else {
                addReplyErrorObject(c, shared.syntaxerr);
                return 0;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return 0;
        }
    }
    return 1;
}

/* Kills every match but `self`, which is only reported (it is closed once
 * its reply is out). Returns the number of clients killed. */
static long killMatchingClients(const killFilter *f, client *self, int *kill_self) {
    long killed = 0;
    listIter li;
    listNode *ln;
    *kill_self = 0;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (!killFilterMatches(f, self, c)) continue;
        killed++;
        if (c == self) *kill_self = 1;
        else freeClient(c);
    }
    return killed;
}

static void clientKillCommand(client *c) {
    killFilter f = {.id = 0, .type = -1, .addr = NULL, .laddr = NULL, .user = NULL, .skipme = 1};
    int old_form = c->argc == 3;
    if (old_form) {
        f.addr = c->argv[2]->ptr;
        f.skipme = 0; /* the old form may kill the caller */
    } else if (!parseKillFilter(c, &f)) {
        return;
    }
    int kill_self;
    long killed = killMatchingClients(&f, c, &kill_self);
    if (old_form && killed == 0) {
        addReplyError(c, "No such client");
        return;
    }
    if (old_form) addReply(c, shared.ok);
    else addReplyLongLong(c, killed);
    if (kill_self) c->flags |= CLIENT_CLOSE_AFTER_REPLY; /* after the reply, or it would be dropped */
}

/* ---- CLIENT PAUSE / UNPAUSE -------------------------------------------------------------------- */

#define PAUSE_NONE 0
#define PAUSE_WRITE 1
#define PAUSE_ALL 2

typedef struct postponedClient {
    uint64_t id;
} postponedClient;

static struct {
    int type;               /* PAUSE_* */
    long long end_ms;       /* unix ms */
    long long timer_id;     /* -1: none */
    list *waiting;          /* postponedClient* in the order they were paused */
} pause_state = {PAUSE_NONE, 0, -1, NULL};

int clientsArePaused(void) { return pause_state.type != PAUSE_NONE; }

/* EXEC may write when one of the commands it will run may; a script
 * that declared no-writes does not (eval.c, function.c). */
static int commandMayWrite(client *c) {
    uint64_t flags = scriptDeclaredFlags(c, c->cmd->flags);
    if (c->cmd->proc == execCommand) flags |= multiQueuedFlags(c);
    return flags & (CMD_WRITE | CMD_MAY_REPLICATE);
}

int postponeCommandIfPaused(client *c) {
    if (pause_state.type == PAUSE_NONE || c->cmd == NULL || c->flags & (CLIENT_FAKE | CLIENT_SLAVE))
        return 0; /* our replicas are never paused; our primary's stream is, as in Redis (read on, not applied) */
    if (pause_state.type == PAUSE_WRITE && !commandMayWrite(c)) return 0;
    if (pause_state.waiting == NULL) {
        pause_state.waiting = listCreate();
        listSetFreeMethod(pause_state.waiting, zfree);
    }
    postponedClient *entry = zmalloc(sizeof(*entry));
    entry->id = c->id;
    listAddNodeTail(pause_state.waiting, entry);
    c->flags |= CLIENT_BLOCKED;
    return 1;
}

/* Runs the postponed command of a client, then whatever it pipelined. */
static void resumeClient(client *c) {
    c->flags &= ~CLIENT_BLOCKED;
    if (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY) || c->argc == 0) return;
    server.current_client = c;
    processCommand(c);
    if ((c->flags & (CLIENT_MASTER | CLIENT_BLOCKED)) == CLIENT_MASTER) replicaCommandApplied(c);
    if (!(c->flags & CLIENT_BLOCKED)) resetClient(c);
    server.current_client = NULL;
    if (!(c->flags & CLIENT_BLOCKED)) processInputBuffer(c);
}

/* Runs from a timer, never inside another command, so the resumed commands
 * execute exactly as if they had just arrived. Each client is looked up
 * afresh (O(clients) per resumed client): a resumed command may itself
 * disconnect others (CLIENT KILL), so no pointer is kept across them. */
static int resumePausedClientsProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id;
    list *waiting = data;
    while (listLength(waiting)) {
        listNode *ln = listFirst(waiting);
        postponedClient *entry = listNodeValue(ln);
        client *c = clientById(entry->id);
        listDelNode(waiting, ln);
        if (c && c->flags & CLIENT_BLOCKED) resumeClient(c);
    }
    return AE_NOMORE;
}

static void releaseWaitingList(struct aeEventLoop *el, void *data) {
    (void)el;
    listRelease(data);
}

static void unpauseClients(void) {
    if (pause_state.timer_id != -1) aeDeleteTimeEvent(server.el, pause_state.timer_id);
    pause_state.timer_id = -1;
    pause_state.type = PAUSE_NONE;
    pause_state.end_ms = 0;
    list *waiting = pause_state.waiting;
    pause_state.waiting = NULL;
    if (waiting && aeCreateTimeEvent(server.el, 0, resumePausedClientsProc, waiting, releaseWaitingList) == AE_ERR)
        serverPanic("Can't create the CLIENT UNPAUSE timer.");
}

static int pauseTimerProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el; (void)id; (void)data;
    long long left = pause_state.end_ms - mstime();
    if (left > 0) return (int)(left > INT_MAX ? INT_MAX : left); /* extended meanwhile */
    pause_state.timer_id = -1;
    unpauseClients();
    return AE_NOMORE;
}

static void pauseClients(int type, long long end_ms) {
    if (type > pause_state.type) pause_state.type = type;
    if (end_ms > pause_state.end_ms) pause_state.end_ms = end_ms;
    if (pause_state.timer_id != -1) aeDeleteTimeEvent(server.el, pause_state.timer_id);
    long long delay = pause_state.end_ms - mstime();
    if (delay < 0) delay = 0;
    if (delay > INT_MAX) delay = INT_MAX;
    pause_state.timer_id = aeCreateTimeEvent(server.el, delay, pauseTimerProc, NULL, NULL);
}

/* FAILOVER (replication.c): writes wait until it ends or end_ms. */
void clientsPauseWrites(long long end_ms) { pauseClients(PAUSE_WRITE, end_ms); }
void clientsUnpause(void) { unpauseClients(); }

static void clientPauseCommand(client *c) {
    int type = PAUSE_ALL;
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 4) {
        if (!strcasecmp(c->argv[3]->ptr, "write")) type = PAUSE_WRITE;
        else if (!strcasecmp(c->argv[3]->ptr, "all")) type = PAUSE_ALL;
        else {
            addReplyError(c, "CLIENT PAUSE mode must be WRITE or ALL");
            return;
        }
    }
    long long timeout;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &timeout, "timeout is not an integer or out of range") != C_OK)
        return;
    if (timeout < 0) {
        addReplyError(c, "timeout is negative");
        return;
    }
    long long now = mstime();
    pauseClients(type, timeout > LLONG_MAX - now ? LLONG_MAX : now + timeout);
    addReply(c, shared.ok);
}

/* ---- names and per-connection switches ------------------------------------------------------------ */

static void clientGetnameCommand(client *c) {
    if (c->name) addReplyBulk(c, c->name);
    else addReplyNull(c);
}

static void clientSetnameCommand(client *c) {
    if (validateClientName(c, c->argv[2]) != C_OK) return;
    setClientName(c, c->argv[2]);
    addReply(c, shared.ok);
}

static void clientReplyCommand(client *c) {
    const char *mode = c->argv[2]->ptr;
    if (!strcasecmp(mode, "on")) {
        c->flags &= ~(uint64_t)(CLIENT_REPLY_SKIP | CLIENT_REPLY_OFF);
        addReply(c, shared.ok);
    } else if (!strcasecmp(mode, "off")) {
        c->flags |= CLIENT_REPLY_OFF;
    } else if (!strcasecmp(mode, "skip")) {
        if (!(c->flags & CLIENT_REPLY_OFF)) c->flags |= CLIENT_REPLY_SKIP_NEXT;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
    }
}

static void clientFlagSwitchCommand(client *c, uint64_t flag) {
    int on;
    if (!parseOnOffOrReply(c, c->argv[2], &on)) return;
    setClientFlag(c, flag, on);
    if (flag == CLIENT_NO_EVICT && !on) clientEvictionRecheck(); /* c may now be evicted */
    addReply(c, shared.ok);
}

static void clientHelpCommand(client *c) {
    static const char *help[] = {
        "CACHING (YES|NO)",
        "    Enable/disable tracking of the keys for next command in OPTIN/OPTOUT modes.",
        "GETREDIR",
        "    Return the client ID we are redirecting to when tracking is enabled.",
        "GETNAME",
        "    Return the name of the current connection.",
        "ID",
        "    Return the ID of the current connection.",
        "INFO",
        "    Return information about the current client connection.",
        "KILL <ip:port>",
        "    Kill connection made from <ip:port>.",
        "KILL <option> <value> [<option> <value> [...]]",
        "    Kill connections. Options are:",
        "    * ADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made from the specified address",
        "    * LADDR (<ip:port>|<unixsocket>:0)",
        "      Kill connections made to specified local address",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Kill connections by type.",
        "    * USER <username>",
        "      Kill connections authenticated by <username>.",
        "    * SKIPME (YES|NO)",
        "      Skip killing current connection (default: yes).",
        "LIST [options ...]",
        "    Return information about client connections. Options:",
        "    * TYPE (NORMAL|MASTER|REPLICA|PUBSUB)",
        "      Return clients of specified type.",
        "UNPAUSE",
        "    Stop the current client pause, resuming traffic.",
        "UNBLOCK <clientid> [TIMEOUT|ERROR]",
        "    Unblock the specified blocked client.",
        "PAUSE <timeout> [WRITE|ALL]",
        "    Suspend all, or just write, clients for <timeout> milliseconds.",
        "REPLY (ON|OFF|SKIP)",
        "    Control the replies sent to the current connection.",
        "SETNAME <name>",
        "    Assign the name <name> to the current connection.",
        "TRACKING (ON|OFF) [REDIRECT <id>] [BCAST] [PREFIX <prefix> [...]]",
        "         [OPTIN] [OPTOUT] [NOLOOP]",
        "    Control server assisted client side caching.",
        "TRACKINGINFO",
        "    Report tracking status for the current connection.",
        "NO-EVICT (ON|OFF)",
        "    Protect current client connection from eviction.",
        NULL};
    addReplyHelp(c, help);
}

/* ---- CLIENT TRACKING, CACHING, GETREDIR, TRACKINGINFO ---------------------------------------------------- */

typedef struct trackingArgs {
    unsigned options;     /* TRACKING_BCAST | OPTIN | OPTOUT | NOLOOP */
    long long redirect;   /* 0: none */
    client *target;
    robj **prefixes;
    size_t numprefixes;
} trackingArgs;

/* REDIRECT <id>: replies and returns 0 on error. */
static int parseTrackingRedirect(client *c, robj *arg, trackingArgs *a) {
    if (a->redirect != 0) {
        addReplyError(c, "A client can only redirect to a single other client");
        return 0;
    }
    if (getLongLongFromObjectOrReply(c, arg, &a->redirect, NULL) != C_OK) return 0;
    a->target = clientById((uint64_t)a->redirect);
    if (a->target == NULL) {
        addReplyError(c, "The client ID you want redirect to does not exist");
        return 0;
    }
    return 1;
}

/* The options after ON|OFF; replies and returns 0 on error. */
static int parseTrackingArgs(client *c, trackingArgs *a) {
    for (int j = 3; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        int moreargs = c->argc - 1 - j;
        if (!strcasecmp(opt, "redirect") && moreargs) {
            if (!parseTrackingRedirect(c, c->argv[++j], a)) return 0;
        } else if (!strcasecmp(opt, "bcast")) {
            a->options |= TRACKING_BCAST;
        } else if (!strcasecmp(opt, "optin")) {
            a->options |= TRACKING_OPTIN;
        } else if (!strcasecmp(opt, "optout")) {
            a->options |= TRACKING_OPTOUT;
        } else if (!strcasecmp(opt, "noloop")) {
            a->options |= TRACKING_NOLOOP;
        } else if (!strcasecmp(opt, "prefix") && moreargs) {
            a->prefixes = zrealloc(a->prefixes, sizeof(robj *) * (a->numprefixes + 1));
            a->prefixes[a->numprefixes++] = c->argv[++j];
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return 0;
        }
    }
    return 1;
}

/* The first reason the options cannot turn tracking on, or NULL. */
static const char *trackingOptionsError(client *c, const trackingArgs *a) {
    unsigned now = trackingFlags(c), opt = a->options;
    if (!(opt & TRACKING_BCAST) && a->numprefixes) return "PREFIX option requires BCAST mode to be enabled";
    if ((now & TRACKING_ON) && !!(now & TRACKING_BCAST) != !!(opt & TRACKING_BCAST))
        return "You can't switch BCAST mode on/off before disabling tracking for this client, and then "
               "re-enabling it with a different mode.";
    if (opt & TRACKING_BCAST && opt & (TRACKING_OPTIN | TRACKING_OPTOUT))
        return "OPTIN and OPTOUT are not compatible with BCAST";
    if (opt & TRACKING_OPTIN && opt & TRACKING_OPTOUT) return "You can't specify both OPTIN mode and OPTOUT mode";
    if ((opt & TRACKING_OPTIN && now & TRACKING_OPTOUT) || (opt & TRACKING_OPTOUT && now & TRACKING_OPTIN))
        return "You can't switch OPTIN/OPTOUT mode before disabling tracking for this client, and then "
               "re-enabling it with a different mode.";
    return NULL;
}

static int clientTrackingOn(client *c, trackingArgs *a) {
    const char *err = trackingOptionsError(c, a);
    if (err) {
        addReplyError(c, err);
        return 0;
    }
    if (a->options & TRACKING_BCAST && !trackingCheckPrefixes(c, a->prefixes, a->numprefixes)) return 0;
    trackingEnable(c, a->target, (uint64_t)a->redirect, a->options, a->prefixes, a->numprefixes);
    return 1;
}

static void clientTrackingCommand(client *c) {
    trackingArgs a = {0, 0, NULL, NULL, 0};
    int ok = parseTrackingArgs(c, &a);
    if (ok && !strcasecmp(c->argv[2]->ptr, "on")) {
        ok = clientTrackingOn(c, &a);
    } else if (ok && !strcasecmp(c->argv[2]->ptr, "off")) {
        trackingDisable(c);
    } else if (ok) {
        addReplyErrorObject(c, shared.syntaxerr);
        ok = 0;
    }
    zfree(a.prefixes);
    if (ok) addReply(c, shared.ok);
}

static void clientCachingCommand(client *c) {
    unsigned flags = trackingFlags(c);
    const char *opt = c->argv[2]->ptr;
    if (!(flags & TRACKING_ON)) {
        addReplyError(c, "CLIENT CACHING can be called only when the client is in tracking mode with OPTIN or "
                         "OPTOUT mode enabled");
    } else if (!strcasecmp(opt, "yes") && !(flags & TRACKING_OPTIN)) {
        addReplyError(c, "CLIENT CACHING YES is only valid when tracking is enabled in OPTIN mode.");
    } else if (!strcasecmp(opt, "no") && !(flags & TRACKING_OPTOUT)) {
        addReplyError(c, "CLIENT CACHING NO is only valid when tracking is enabled in OPTOUT mode.");
    } else if (strcasecmp(opt, "yes") && strcasecmp(opt, "no")) {
        addReplyErrorObject(c, shared.syntaxerr);
    } else {
        trackingSetCaching(c);
        addReply(c, shared.ok);
    }
}

static void clientTrackinginfoCommand(client *c) {
    unsigned flags = trackingFlags(c);
    static const struct { unsigned flag; const char *name; } names[] = {
        {TRACKING_BCAST, "bcast"}, {TRACKING_OPTIN, "optin"}, {TRACKING_OPTIN | TRACKING_CACHING, "caching-yes"},
        {TRACKING_OPTOUT, "optout"}, {TRACKING_OPTOUT | TRACKING_CACHING, "caching-no"},
        {TRACKING_NOLOOP, "noloop"}, {TRACKING_BROKEN_REDIR, "broken_redirect"}};
    addReplyMapLen(c, 3);
    addReplyBulkCString(c, "flags");
    void *len = addReplyDeferredLen(c);
    long count = 1;
    addReplyBulkCString(c, flags & TRACKING_ON ? "on" : "off");
    for (size_t j = 0; j < sizeof(names) / sizeof(names[0]); j++) {
        if ((flags & names[j].flag) != names[j].flag) continue;
        addReplyBulkCString(c, names[j].name);
        count++;
    }
    setDeferredSetLen(c, len, count);
    addReplyBulkCString(c, "redirect");
    addReplyLongLong(c, trackingRedirectId(c));
    addReplyBulkCString(c, "prefixes");
    trackingReplyPrefixes(c);
}

/* ---- RESET ------------------------------------------------------------------------------------------------ */

/* Back to a fresh connection's state, as Redis 7.0 does: no transaction or
 * WATCH, no subscriptions, not a monitor, tracking off, db 0, RESP2, no
 * name, replies on, and unauthenticated again when a password is set. The
 * library name and version and the no-evict switch are kept (7.0 keeps them). */
void resetCommand(client *c) {
    if (c->flags & CLIENT_MONITOR) {
        monitorClientFreed(c);
        c->flags &= ~(uint64_t)CLIENT_MONITOR;
    }
    trackingDisable(c);
    selectDb(c, 0);
    c->resp = 2;
    moduleAuthUserChanged(c); /* a module that authenticated it hears it */
    c->user = aclDefaultUser();
    c->authenticated = !aclDefaultUserRequiresAuth(); /* needs AUTH again while the default user needs a password */
    multiResetClient(c);
    pubsubResetClient(c);
    if (c->name) decrRefCount(c->name);
    c->name = NULL;
    c->flags &= ~(uint64_t)(CLIENT_PUBSUB | CLIENT_REPLY_OFF | CLIENT_REPLY_SKIP_NEXT);
    addReplyStatus(c, "RESET");
}

/* CLIENT UNBLOCK id [TIMEOUT|ERROR]: 1 when the client was waiting in a
 * blocking command and got its timeout reply (or the error), else 0. */
static void clientUnblockCommand(client *c) {
    int with_error = 0;
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    if (c->argc == 4) {
        const char *reason = c->argv[3]->ptr;
        if (!strcasecmp(reason, "error")) with_error = 1;
        else if (strcasecmp(reason, "timeout")) {
            addReplyError(c, "CLIENT UNBLOCK reason should be TIMEOUT or ERROR");
            return;
        }
    }
    long long id;
    if (getLongLongFromObjectOrReply(c, c->argv[2], &id, NULL) != C_OK) return;
    client *target = clientById((uint64_t)id);
    addReply(c, target && blockedClientUnblockByRequest(target, with_error) ? shared.cone : shared.czero);
}

/* ---- dispatch ------------------------------------------------------------------------------------------ */

void clientCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) clientHelpCommand(c);
    else if (!strcasecmp(sub, "id")) addReplyLongLong(c, (long long)c->id);
    else if (!strcasecmp(sub, "info")) clientInfoCommand(c);
    else if (!strcasecmp(sub, "list")) clientListCommand(c);
    else if (!strcasecmp(sub, "kill")) clientKillCommand(c);
    else if (!strcasecmp(sub, "getname")) clientGetnameCommand(c);
    else if (!strcasecmp(sub, "setname")) clientSetnameCommand(c);
    else if (!strcasecmp(sub, "pause")) clientPauseCommand(c);
    else if (!strcasecmp(sub, "unblock")) clientUnblockCommand(c);
    else if (!strcasecmp(sub, "unpause")) {
        unpauseClients();
        addReply(c, shared.ok);
    } else if (!strcasecmp(sub, "reply")) clientReplyCommand(c);
    else if (!strcasecmp(sub, "no-evict")) clientFlagSwitchCommand(c, CLIENT_NO_EVICT);
    else if (!strcasecmp(sub, "tracking")) clientTrackingCommand(c);
    else if (!strcasecmp(sub, "caching")) clientCachingCommand(c);
    else if (!strcasecmp(sub, "getredir")) addReplyLongLong(c, trackingRedirectId(c));
    else if (!strcasecmp(sub, "trackinginfo")) clientTrackinginfoCommand(c);
    else if (!strcasecmp(sub, "shm")) clientShmCommand(c);
    else addReplySubcommandSyntaxError(c);
}
