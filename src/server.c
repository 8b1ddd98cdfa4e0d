/* server.c -- the redis-server program: start-up, the command path
 * (processCommand -> call), the cron, and the connection-level commands.
 *
 * Start-up order matters on small devices: the allocator's page-size check
 * runs before the first allocation, so a jemalloc that cannot run on this
 * kernel produces one clear line instead of a crash inside the allocator;
 * the hash seed comes from the OS before any dict exists; the configuration
 * is fully parsed (and rejected with file, line and reason) before a socket
 * is opened.
 *
 * The log says what Redis 7.0's says, in the same order, because
 * sysadmins' searches and log parsers look for those lines: the banner and
 * "Configuration loaded" once the configuration is read, "Running mode",
 * "Server initialized" and the system checks (vm.overcommit_memory, also
 * shown by --check-system) before the data is loaded, "Ready to accept
 * connections" after; SIGTERM/SIGINT are logged from the handler (debug.c's
 * signal-safe writer); lines of fork children say 'C' instead of 'M'.
 *
 * processCommand() performs every check that can reject a command, in
 * Redis's order, so error replies and INFO's rejected_calls match; call()
 * runs the handler and records latency, calls and failures. No command
 * writes to a socket itself.
 *
 * Started under the name redis-check-rdb (the link `make install` creates)
 * or redis-portable-check-rdb (the Debian package's link in /usr/bin), the
 * binary is that program instead (rdb_check.c): it checks a file with
 * the loader itself, as Redis's does.
 */
#include "server.h"
#include "snapshot.h"
#include "acl.h"
#include "aof.h"
#include "client_eviction.h"
#include "libassert.h"
#include "monotonic.h"
#include "osrandom.h"
#include "persistio.h"
#include "replication.h"
#include "tracking.h"

#include <errno.h>
#include <stddef.h>
#include <fcntl.h>
#include <sys/stat.h>
#include <sys/time.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include <sys/socket.h>
#include <sys/un.h>
#include <syslog.h>

struct redisServer server;
struct sharedObjectsStruct shared;

/* ---- time --------------------------------------------------------------------------- */

long long ustime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return (long long)tv.tv_sec * 1000000 + tv.tv_usec;
}

long long mstime(void) { return ustime() / 1000; }

/* Also notes how far the wall clock is ahead of the monotonic one, so that
 * call() reads a single clock per command for both its "now" and its
 * duration. Refreshed on every wake-up, so a step of the wall clock (NTP,
 * a suspend) is seen by the next event-loop pass at the latest. */
void updateCachedTime(void) {
    long long monotonic_now = monotonicUs();
    server.ustime = ustime();
    server.wall_minus_monotonic_us = server.ustime - monotonic_now;
    server.mstime = server.ustime / 1000;
    server.unixtime = (time_t)(server.mstime / 1000);
}

/* ---- logging ---------------------------------------------------------------------------- */

/* The process that serves, noted by initServer() (after daemonizing): its
 * lines say 'M'; fork children's, and the lines before initServer(), say
 * 'C', as in Redis. */
static pid_t log_main_pid;

static void serverLogRaw(int level, const char *msg) {
    static const char level_marks[] = ".-*#";
    static const int syslog_levels[] = {LOG_DEBUG, LOG_INFO, LOG_NOTICE, LOG_WARNING};
    int raw = level & LL_RAW;
    level &= ~LL_RAW;
    if (level < server.verbosity || level > LL_WARNING) return;
    if (server.syslog_enabled) syslog(syslog_levels[level], "%s", msg);
    int to_stdout = server.logfile == NULL || server.logfile[0] == '\0';
    FILE *fp = to_stdout ? stdout : fopen(server.logfile, "a");
    if (!fp) return;
    if (raw) {
        fprintf(fp, "%s", msg);
    } else {
        char date[64];
        struct timeval tv;
        gettimeofday(&tv, NULL);
        struct tm tm;
        time_t secs = tv.tv_sec;
        localtime_r(&secs, &tm);
        size_t off = strftime(date, sizeof date, "%d %b %Y %H:%M:%S.", &tm);
        snprintf(date + off, sizeof(date) - off, "%03d", (int)tv.tv_usec / 1000);
        pid_t pid = getpid();
        fprintf(fp, "%d:%c %s %c %s\n", (int)pid, pid == log_main_pid ? 'M' : 'C', date, level_marks[level], msg);
    }
    fflush(fp);
    if (!to_stdout) fclose(fp);
}

void serverLog(int level, const char *fmt, ...) {
    if ((level & 0xff) < server.verbosity) return;
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    serverLogRaw(level, msg);
}

/* ---- shared objects -------------------------------------------------------------------- */

static robj *sharedString(const char *s) {
    return makeObjectShared(createObject(OBJ_STRING, sdsnew(s)));
}

static void createSharedObjects(void) {
    shared.crlf = sharedString("\r\n");
    shared.ok = sharedString("+OK\r\n");
    shared.emptybulk = sharedString("$0\r\n\r\n");
    shared.czero = sharedString(":0\r\n");
    shared.cone = sharedString(":1\r\n");
    shared.emptyarray = sharedString("*0\r\n");
    shared.pong = sharedString("+PONG\r\n");
    shared.queued = sharedString("+QUEUED\r\n");
    shared.space = sharedString(" ");
    shared.colon = sharedString(":");
    shared.wrongtypeerr = sharedString("-WRONGTYPE Operation against a key holding the wrong kind of value\r\n");
    shared.err = sharedString("-ERR\r\n");
    shared.nokeyerr = sharedString("-ERR no such key\r\n");
    shared.syntaxerr = sharedString("-ERR syntax error\r\n");
    shared.sameobjecterr = sharedString("-ERR source and destination objects are the same\r\n");
    shared.outofrangeerr = sharedString("-ERR index out of range\r\n");
    shared.noscripterr = sharedString("-NOSCRIPT No matching script. Please use EVAL.\r\n");
    shared.loadingerr = sharedString("-LOADING Redis is loading the dataset in memory\r\n");
    shared.noautherr = sharedString("-NOAUTH Authentication required.\r\n");
    shared.oomerr = sharedString("-OOM command not allowed when used memory > 'maxmemory'.\r\n");
    shared.execaborterr = sharedString("-EXECABORT Transaction discarded because of previous errors.\r\n");
    shared.busykeyerr = sharedString("-BUSYKEY Target key name already exists.\r\n");
    shared.null[2] = sharedString("$-1\r\n");
    shared.null[3] = sharedString("_\r\n");
    shared.nullarray[2] = sharedString("*-1\r\n");
    shared.nullarray[3] = sharedString("_\r\n");
    shared.emptymap[2] = sharedString("*0\r\n");
    shared.emptymap[3] = sharedString("%0\r\n");
    shared.emptyset[2] = sharedString("*0\r\n");
    shared.emptyset[3] = sharedString("~0\r\n");
    shared.del_cmd = sharedString("DEL");
    shared.unlink_cmd = sharedString("UNLINK");
    shared.pexpireat_cmd = sharedString("PEXPIREAT");
    shared.persist_cmd = sharedString("PERSIST");
    shared.set_cmd = sharedString("SET");
    shared.pxat = sharedString("PXAT");
    shared.keepttl = sharedString("KEEPTTL");
    shared.minstring = sharedString("minstring");
    shared.maxstring = sharedString("maxstring");
    for (int j = 0; j < PROTO_SHARED_BULKHDR_LEN; j++) {
        shared.mbulkhdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "*%d\r\n", j)));
        shared.bulkhdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "$%d\r\n", j)));
        shared.maphdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "%%%d\r\n", j)));
        shared.sethdr[j] = makeObjectShared(createObject(OBJ_STRING, sdscatprintf(sdsempty(), "~%d\r\n", j)));
    }
}

/* ---- the command table ----------------------------------------------------------------- */

static dictType commandTableDictType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
    .keyDestructor = dictSdsDestructor,
};

static int command_ids;

/* Registers a command and its subcommands. Every entry has a handler, or
 * subcommands that have one (the table names them; the link checks them). */
static void registerCommand(dict *into, redisCommand *cmd, redisCommand *parent) {
    serverAssert(cmd->proc != NULL || cmd->subcommands != NULL);
    cmd->parent = parent;
    cmd->fullname = parent ? sdscatfmt(sdsempty(), "%s|%s", parent->declared_name, cmd->declared_name)
                           : sdsnew(cmd->declared_name);
    if (cmd->subcommands) {
        cmd->subcommands_dict = dictCreate(&commandTableDictType);
        for (redisCommand *sub = cmd->subcommands; sub->declared_name; sub++)
            registerCommand(cmd->subcommands_dict, sub, cmd);
    }
    cmd->id = command_ids++;
    int added = dictAdd(into, sdsnew(cmd->declared_name), cmd);
    serverAssert(added == DICT_OK);
}

static void populateCommandTable(void) {
    for (redisCommand *cmd = redisCommandTable; cmd->declared_name; cmd++)
        registerCommand(server.commands, cmd, NULL);
}

/* A command added at run time keeps the id its full name had before (a
 * module unloaded and loaded again): ACL rules are bits by id, and a
 * user's "+mod.cmd" holds across reloads, as in Redis 7.0. */
static int runtimeCommandId(sds fullname) {
    static dict *ids; /* full name (any case) -> id + 1 */
    if (ids == NULL) ids = dictCreate(&commandTableDictType);
    dictEntry *de = dictFind(ids, fullname);
    if (de) return (int)((intptr_t)dictGetVal(de) - 1);
    int id = command_ids++;
    dictAdd(ids, sdsdup(fullname), (void *)(intptr_t)(id + 1));
    return id;
}

/* module.c's commands join and leave the table at run time: a top-level
 * command goes into server.commands, a subcommand into its container's
 * dict (created on its first subcommand). C_ERR when the name is taken. */
int commandTableAdd(redisCommand *cmd, redisCommand *parent) {
    dict *into = server.commands;
    if (parent) {
        if (parent->subcommands_dict == NULL) parent->subcommands_dict = dictCreate(&commandTableDictType);
        into = parent->subcommands_dict;
    }
    sds name = sdsnew(cmd->declared_name);
    if (dictFind(into, name)) {
        sdsfree(name);
        return C_ERR;
    }
    cmd->parent = parent;
    cmd->fullname = parent ? sdscatfmt(sdsempty(), "%s|%s", parent->declared_name, cmd->declared_name)
                           : sdsnew(cmd->declared_name);
    cmd->id = runtimeCommandId(cmd->fullname);
    dictAdd(into, name, cmd);
    return C_OK;
}

void commandTableRemove(redisCommand *cmd) {
    dict *from = cmd->parent ? cmd->parent->subcommands_dict : server.commands;
    sds name = sdsnew(cmd->declared_name);
    dictDelete(from, name);
    sdsfree(name);
    if (cmd->subcommands_dict) dictRelease(cmd->subcommands_dict);
    cmd->subcommands_dict = NULL;
    sdsfree(cmd->fullname);
    cmd->fullname = NULL;
}

redisCommand *lookupCommandBySds(sds s) {
    dictEntry *de = dictFind(server.commands, s);
    return de ? dictGetVal(de) : NULL;
}

redisCommand *lookupCommandByCString(const char *s) {
    sds name = sdsnew(s);
    redisCommand *cmd = lookupCommandBySds(name);
    sdsfree(name);
    return cmd;
}

static redisCommand *lookupSubcommand(redisCommand *container, sds name) {
    dictEntry *de = dictFind(container->subcommands_dict, name);
    return de ? dictGetVal(de) : NULL;
}

/* The command, or the subcommand when argv names one of a container. */
redisCommand *lookupCommand(robj **argv, int argc) {
    redisCommand *base = lookupCommandBySds(argv[0]->ptr);
    if (base == NULL || base->subcommands_dict == NULL || argc < 2) return base;
    if (!sdsEncodedObject(argv[1])) return NULL;
    return lookupSubcommand(base, argv[1]->ptr);
}

/* ---- the command path ---------------------------------------------------------------- */

static int commandArityMismatch(redisCommand *cmd, int argc) {
    return (cmd->arity > 0 && cmd->arity != argc) || (argc < -cmd->arity);
}

static void rejectCommand(client *c, robj *reply) {
    flagTransaction(c);
    if (c->cmd) c->cmd->rejected_calls++;
    if (c->cmd && c->cmd->proc == execCommand) execCommandAbort(c, reply->ptr);
    else addReplyErrorObject(c, reply);
}

static void rejectCommandSds(client *c, sds err) {
    flagTransaction(c);
    if (c->cmd) c->cmd->rejected_calls++;
    if (c->cmd && c->cmd->proc == execCommand) {
        execCommandAbort(c, err);
        sdsfree(err);
    } else {
        addReplyErrorSds(c, err);
    }
}

sds unknownCommandError(client *c) {
    redisCommand *base = lookupCommandBySds(c->argv[0]->ptr);
    if (base && base->subcommands_dict && c->argc >= 2) {
        sds upper = sdsnew(base->declared_name);
        sdstoupper(upper);
        sds err = sdscatprintf(sdsempty(), "unknown subcommand '%.128s'. Try %s HELP.",
                               (char *)c->argv[1]->ptr, upper);
        sdsfree(upper);
        return err;
    }
    sds args = sdsempty();
    for (int i = 1; i < c->argc && sdslen(args) < 128; i++)
        args = sdscatprintf(args, "'%.*s' ", 128 - (int)sdslen(args), (char *)c->argv[i]->ptr);
    sds err = sdscatprintf(sdsempty(), "unknown command '%.128s', with args beginning with: %s",
                           (char *)c->argv[0]->ptr, args);
    sdsfree(args);
    return err;
}

/* EXEC needs memory when one of the commands it will run does; a script
 * that declared its flags ("#!lua flags=...") has those (eval.c). */
static inline uint64_t commandFlags(client *c) { /* inline: processCommand asks on every request */
    uint64_t flags = c->cmd->flags;
    if (c->cmd->proc == execCommand) flags |= multiQueuedFlags(c);
    else flags = scriptDeclaredFlags(c, flags);
    return flags;
}

/* Evicts keys when over maxmemory; 1 if still over afterwards. */
static int overMemoryLimit(void) {
    if (!server.maxmemory) return 0;
    return performEvictions() != C_OK;
}

/* Whether the bytes of X, in any case, are those of LOWER (up to 8 bytes
 * each, packed the same way; unused bytes 0 in both). A byte of LOWER that
 * is a letter 'a'..'z' matches itself or its upper case (X's byte with bit
 * 0x20 set); any other byte only itself. The letters are found without
 * carries between bytes: each byte's low 7 bits plus 0x1F reach 0x80 from
 * 'a' up, plus 0x05 from past 'z' up; a byte with bit 7 set is no letter. */
static inline int chunkIsLower(uint64_t x, uint64_t lower) {
    const uint64_t ones = 0x0101010101010101ULL, high = ones * 0x80;
    uint64_t low7 = lower & ~high;
    uint64_t from_a = low7 + ones * (0x80 - 'a'), past_z = low7 + ones * (0x80 - 'z' - 1);
    uint64_t letters = from_a & ~past_z & ~lower & high; /* bit 7 of each letter's byte */
    return (x | (letters >> 2)) == lower;                /* bit 7 -> bit 5 (0x20), same byte */
}

/* Bytes 0, len / 2 and len - 1 cover a name of 1 to 3 bytes (load32 and
 * load64, lib/portable.h, the longer ones). */
static inline uint64_t loadShort(const char *p, size_t len) {
    return (uint64_t)(unsigned char)p[0] | (uint64_t)(unsigned char)p[len / 2] << 8 |
           (uint64_t)(unsigned char)p[len - 1] << 16;
}

/* Whether NAME, in any case, is LOWER (a command's name: lower case).
 * Inline: a request's command name is compared with the last command's
 * every time, and glibc's strncasecmp cost 44 instructions of a pipelined
 * HSET's 3500 for a four-letter name. A byte loop that folds each byte cost
 * about as much (12 instructions a byte: 48 for "sadd", make bench-gate),
 * so up to 8 bytes are compared at once (chunkIsLower): a name of 1 to 8
 * bytes is one or two loads a side and a dozen arithmetic instructions.
 * Overlapping loads (the first and the last 4 or 8 bytes) cover every
 * length without reading past either string. A module's command declared
 * with upper-case letters (its fullname keeps them) matches a name in that
 * exact case here, where the byte loop sent it to lookupCommand(): the
 * same command either way, its dict being case-insensitive. */
static inline int nameIsLower(const char *name, const char *lower, size_t len) {
    if (len >= 8) {
        for (size_t j = 0; j + 8 < len; j += 8)
            if (!chunkIsLower(load64(name + j), load64(lower + j))) return 0;
        return chunkIsLower(load64(name + len - 8), load64(lower + len - 8));
    }
    if (len >= 4)
        return chunkIsLower(load32(name) | (uint64_t)load32(name + len - 4) << 32,
                            load32(lower) | (uint64_t)load32(lower + len - 4) << 32);
    return len == 0 || chunkIsLower(loadShort(name, len), loadShort(lower, len));
}

/* The command argv names, trying the client's previous command first: a
 * client mostly repeats one command (a pipeline, a loop in a script), and a
 * short case-insensitive compare is cheaper than hashing the name. */
static redisCommand *lookupClientCommand(client *c) {
    redisCommand *last = c->lastcmd;
    if (last == NULL || acl_commands_renamed) return lookupCommand(c->argv, c->argc);
    if (last->parent) last = last->parent;
    sds name = c->argv[0]->ptr;
    size_t len = sdslen(name);
    if (len != sdslen(last->fullname) || !nameIsLower(name, last->fullname, len))
        return lookupCommand(c->argv, c->argc);
    if (last->subcommands_dict == NULL || c->argc < 2) return last;
    if (!sdsEncodedObject(c->argv[1])) return NULL;
    return lookupSubcommand(last, c->argv[1]->ptr);
}

/* What follows each command processCommand() ran (EXEC's included, not
 * each command EXEC runs inside it), in this order: */
static void afterCommand(void) {
    trackingSendPendingInvalidations(); /* the client's own invalidations, after its reply */
    handleClientsBlockedOnKeys();       /* serve clients blocked on keys the command made ready */
}

/* While a dataset loads, only commands flagged "loading" run; EXEC only
 * when every command it queued is one (as in Redis 7.0). */
static int runsWhileLoading(client *c) {
    if (!(c->cmd->flags & CMD_LOADING)) return 0;
    return c->cmd->proc != execCommand || !(multiQueuedMissingFlags(c) & CMD_LOADING);
}

/* While a replica's swapdb full sync loads in the background (async
 * loading, replica.c), the old dataset is served: only commands flagged
 * "no_async_loading" (SAVE, REPLICAOF, CLUSTER FAILOVER, ...) are refused,
 * EXEC when it queued one (Redis 7.0's rule). */
static int refusedWhileAsyncLoading(client *c) {
    if (c->cmd->flags & CMD_NO_ASYNC_LOADING) return 1;
    return c->cmd->proc == execCommand && (multiQueuedFlags(c) & CMD_NO_ASYNC_LOADING);
}

/* DEBUG and MODULE LOAD/LOADEX/UNLOAD, as enable-debug-command and
 * enable-module-command allow them; refused before authentication, as in
 * Redis. */
static int protectedCommandIsDebug(client *c) { return c->cmd->proc == debugCommand; }

static int protectedCommandAllowed(client *c) {
    return protectedActionAllowed(protectedCommandIsDebug(c) ? server.enable_debug_cmd : enable_module_command, c);
}

static sds protectedCommandRefusal(client *c) {
    int debug = protectedCommandIsDebug(c);
    return sdscatprintf(sdsempty(),
                        "%s command not allowed. If the %s option is set to \"local\", you can run it from a "
                        "local connection, otherwise you need to set this option in the configuration file, "
                        "and then restart the server.",
                        debug ? "DEBUG" : "MODULE", debug ? "enable-debug-command" : "enable-module-command");
}

int processCommand(client *c) {
    if (moduleCommandFiltersActive()) {
        moduleCallCommandFilters(c); /* module_filter.c: may rewrite argv */
        if (c->argc == 0) {          /* a filter deleted every argument */
            rejectCommandSds(c, sdsnew("unknown command '', with args beginning with: "));
            return C_OK;
        }
    }
    c->cmd = c->lastcmd = c->realcmd = lookupClientCommand(c);
    if (c->cmd == NULL) {
        rejectCommandSds(c, unknownCommandError(c));
        return C_OK;
    }
    if (commandArityMismatch(c->cmd, c->argc)) {
        rejectCommandSds(c, sdscatprintf(sdsempty(), "wrong number of arguments for '%s' command",
                                         c->cmd->fullname));
        return C_OK;
    }
    if ((c->cmd->flags & CMD_PROTECTED) && !protectedCommandAllowed(c)) {
        rejectCommandSds(c, protectedCommandRefusal(c));
        return C_OK;
    }
    if (!c->authenticated && !(c->cmd->flags & CMD_NO_AUTH) && aclDefaultUserRequiresAuth()) {
        rejectCommand(c, shared.noautherr);
        return C_OK;
    }
    /* Redis 7.0's order of refusals from here: no_multi inside MULTI, ACL,
     * cluster redirection, OOM, MISCONF, -NOREPLICAS/-READONLY/-MASTERDOWN,
     * RESP2 subscribed mode, -LOADING, -BUSY. */
    if ((c->flags & CLIENT_MULTI) && (c->cmd->flags & CMD_NO_MULTI)) {
        rejectCommandSds(c, sdsnew("Command not allowed inside a transaction"));
        return C_OK;
    }
    int acl_errpos = 0, acl_result = aclCheckAllPerm(c, &acl_errpos);
    if (acl_result != ACL_OK) {
        sds err;
        aclRejectCommand(c, acl_result, acl_errpos, &err);
        rejectCommandSds(c, err);
        return C_OK;
    }
    if (clusterRedirectIfNeeded(c)) return C_OK; /* -MOVED, -ASK, -CROSSSLOT ... (cluster-enabled only) */
    /* As in Redis, every command evicts keys when over maxmemory (client
     * buffers grow used memory without any write); only DENYOOM ones fail. */
    if (server.maxmemory && !(c->flags & CLIENT_MASTER) && overMemoryLimit() && (commandFlags(c) & CMD_DENYOOM)) {
        rejectCommand(c, shared.oomerr);
        return C_OK;
    }
    /* c's effective flags, once for the three checks below (each
     * commandFlags() is ~16 instructions); taken after the eviction above,
     * as they were, in case a key's eviction reaches a script. */
    uint64_t flags = commandFlags(c);
    if ((flags & CMD_WRITE || c->cmd->proc == pingCommand) && !(c->flags & (CLIENT_FAKE | CLIENT_MASTER))) {
        sds misconf = aofWriteDeniedError();
        if (misconf == NULL) misconf = rdbWriteDeniedError();
        if (misconf) {
            rejectCommandSds(c, misconf);
            return C_OK;
        }
    }
    sds refusal = replicationRefusalWithFlags(c, flags); /* -NOREPLICAS, -READONLY, -MASTERDOWN */
    if (refusal) {
        rejectCommandSds(c, refusal);
        return C_OK;
    }
    if (c->flags & CLIENT_PUBSUB && c->resp == 2 && !commandAllowedInSubscribedMode(c->cmd)) {
        rejectCommandSds(c, sdscatprintf(sdsempty(),
                                         "Can't execute '%s': only (P|S)SUBSCRIBE / (P|S)UNSUBSCRIBE / PING / "
                                         "QUIT / RESET are allowed in this context",
                                         c->cmd->fullname));
        return C_OK;
    }
    if (server.async_loading ? refusedWhileAsyncLoading(c) : server.loading && !runsWhileLoading(c)) {
        rejectCommand(c, shared.loadingerr);
        return C_OK;
    }
    /* A script running past busy-reply-threshold serves clients from its
     * hook (script.c): only SCRIPT KILL, SHUTDOWN NOSAVE and the like run. */
    if (scriptIsTimedOut() && !(c->cmd->flags & CMD_ALLOW_BUSY)) {
        rejectCommand(c, scriptBusyError());
        return C_OK;
    }
    sds busy_module = c->cmd->flags & CMD_ALLOW_BUSY ? NULL : moduleBusyError(); /* a module command yields */
    if (busy_module) {
        rejectCommandSds(c, busy_module);
        return C_OK;
    }
    /* A replica's link is for the protocol: no keyspace access (Redis
     * 7.0.15's rule; replicas are exempt from CLIENT PAUSE, which this
     * would let them get around). */
    if ((c->flags & CLIENT_SLAVE) && !(c->flags & CLIENT_MONITOR) &&
        (flags & (CMD_WRITE | CMD_READONLY | CMD_MAY_REPLICATE))) {
        rejectCommandSds(c, sdsnew("Replica can't interact with the keyspace"));
        return C_OK;
    }
    if (c->flags & CLIENT_MULTI && !commandRunsInsideMulti(c->cmd)) {
        queueMultiCommand(c);
        addReply(c, shared.queued);
        return C_OK;
    }
    if (postponeCommandIfPaused(c)) return C_OK; /* CLIENT PAUSE: runs on unpause */
    call(c);
    afterCommand();
    return C_OK;
}

/* Error replies already charged to a command's failed_calls: a command run
 * by EXEC fails on its own, EXEC does not fail with it (as in Redis). */
static long long errors_charged;

/* Error replies counted outside any call() (a script's refused redis.call,
 * script.c) are charged already: the script fails only by its own reply. */
void callChargeErrors(void) { errors_charged = server.stat_total_error_replies; }

/* Commands of one pipelined batch run back to back, so the clock reading
 * that ends one command's timing also starts the next one's: half the
 * clock reads of a pipeline (a reading costs tens of cycles, more in a
 * virtual machine). processInputBuffer() opens the chain for its batch and
 * closes it after; a command run anywhere else (unblocked in beforeSleep,
 * loaded from the AOF) reads the clock itself. What the next command is
 * charged extra is its own parsing, well under a microsecond. */
static long long chained_clock_us = -1; /* -1: no chain; 0: open, no reading yet */

void commandClockChain(int open) { chained_clock_us = open ? 0 : -1; }

/* call()s in progress: a command run by another one (EXEC's, a script's)
 * sees the outer command's time, so a script's clock does not move and no
 * key expires in the middle of it (as in Redis 7.0). */
static int call_depth;

void call(client *c) {
    redisCommand *real_cmd = c->cmd;
    long long dirty = server.dirty;
    long long errors_before = server.stat_total_error_replies;
    /* a module's client keeps its errors uncounted (reply.c): they still fail the command */
    unsigned long deferred_before = c->deferred_errors ? listLength(c->deferred_errors) : 0;
    long long calls_before = real_cmd->calls; /* unchanged after a run that blocked (blocked.c) */
    int nested = call_depth++ > 0;
    long long repl_offset = nested ? 0 : replicationOffset();
    c->flags |= CLIENT_EXECUTING_COMMAND;
    long long clock_start = !nested && chained_clock_us > 0 ? chained_clock_us : monotonicUs();
    if (!nested) {
        long long start = clock_start + server.wall_minus_monotonic_us; /* the "now" the command sees */
        server.ustime = start;
        server.mstime = start / 1000;
        server.unixtime = (time_t)(server.mstime / 1000);
    }
    propagateBeforeCall(c);
    c->cmd->proc(c);
    call_depth--;
    long long clock_end = monotonicUs();
    if (!nested && chained_clock_us >= 0) chained_clock_us = clock_end;
    long long duration = clock_end - clock_start;
    if (unlikely(server.tracking_clients) && c->cmd->flags & CMD_READONLY) trackingRememberKeys(c);
    if (duration < 0) duration = 0; /* a clock is only as good as its hardware */
    c->flags &= ~CLIENT_EXECUTING_COMMAND;
    c->duration = (long)duration;
    real_cmd->calls++;
    real_cmd->microseconds += duration;
    if (errors_charged > errors_before) errors_before = errors_charged;
    if (server.stat_total_error_replies > errors_before ||
        (c->deferred_errors && listLength(c->deferred_errors) > deferred_before))
        real_cmd->failed_calls++;
    errors_charged = server.stat_total_error_replies;
    server.stat_numcommands++;
    if (!(real_cmd->flags & CMD_SKIP_SLOWLOG) && !c->module_blocked) /* blocked by a module: logged when done */
        slowlogPushEntryIfNeeded(c, c->argv, c->argc, duration);
    latencyAfterCall(c, real_cmd, duration, calls_before);
    propagateAfterCall(c, server.dirty - dirty);
    if (!nested) replicationNoteClientWrite(c, repl_offset);
    if (!(real_cmd->flags & (CMD_SKIP_MONITOR | CMD_ADMIN))) feedMonitors(c, c->argv, c->argc);
}

/* Counts error replies by their code (the first word) for INFO errorstats;
 * bounded so a client sending endless distinct codes cannot grow it. */
void incrementErrorCount(const char *fullerr, size_t namelen) {
    if (server.errors == NULL) return;
    sds code = sdsnewlen(fullerr, namelen);
    dictEntry *de = dictFind(server.errors, code);
    if (de) {
        dictIncrSignedIntegerVal(de, 1);
        sdsfree(code);
    } else if (dictSize(server.errors) < 128) {
        de = dictAddRaw(server.errors, code, NULL);
        dictSetSignedIntegerVal(de, 1);
    } else {
        sdsfree(code);
    }
}

static dictType errorsDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

/* ---- while a fork child exists --------------------------------------------------------- */

/* A fork child (AOF rewrite, BGSAVE) shares the parent's memory, and every
 * page the parent writes meanwhile gets copied. So, as in Redis, hash tables
 * then grow or shrink only when far out of proportion (which also stops the
 * cron's rehash steps) and lookups leave key access times alone. */
int hasActiveChildProcess(void) {
    return aofRewriteInProgress() || rdbBgsaveInProgress() || replicationChildActive() || moduleForkInProgress();
}

/* Only a fork child makes resizing costly: a forkless snapshot (snapshot.c)
 * shares no pages, and pauses the rehashing of the tables it walks itself. */
void updateDictResizePolicy(void) {
    snapshotForkStateChanged(); /* every fork child's start and end calls here: lookupKey's cached answer */
    dictSetResizeEnabled(snapshotForkChildExists() ? DICT_RESIZE_AVOID : DICT_RESIZE_ENABLE);
}

/* ---- cron, and before/after each event-loop pass ------------------------------------------------ */

static void databasesCron(void) {
    if (server.active_expire_enabled) activeExpireCycle(ACTIVE_EXPIRE_CYCLE_SLOW);
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        if (!server.active_rehashing) continue; /* then only lookups and inserts move them along */
        if (kvtableIsRehashing(db->keys)) kvtableRehashMilliseconds(db->keys, 1);
        if (dictIsRehashing(db->expires)) dictRehashMilliseconds(db->expires, 1);
    }
}

static void updatePeakMemory(void) {
    size_t used = zmalloc_used_memory();
    if (used > server.stat_peak_memory) server.stat_peak_memory = used;
}

/* SIGTERM / SIGINT: shut down from here, outside any command; and a
 * shutdown waiting for its replicas goes on once they caught up or its
 * time is up. */
static int prepareForShutdown(int flags); /* below, with SHUTDOWN */
static int shutdownWaiting(void);
static void shutdownWaitCheck(void);

void shutdownIfAsked(void) {
    if (shutdownWaiting()) {
        shutdownWaitCheck();
        return;
    }
    if (!server.shutdown_asap) return;
    int flags = server.shutdown_signal == SIGINT ? server.shutdown_on_sigint : server.shutdown_on_sigterm;
    int ret = prepareForShutdown(flags);
    if (ret == C_OK) exit(0);
    if (ret == C_ERR) {
        server.shutdown_asap = 0;
        server.shutdown_signal = 0;
    }
}

/* Runs server.hz times a second. (The AOF has its own 100 ms timer,
 * aofCron in aof.c: write retries, everysec fsync, rewrite children.) */
static int serverCron(struct aeEventLoop *el, long long id, void *clientData) {
    (void)el; (void)id; (void)clientData;
    if (server.watchdog_period) watchdogSchedule(); /* SIGALRM if the loop doesn't come back in time */
    if (server.pause_cron) return 1000 / server.hz; /* DEBUG PAUSE-CRON */
    updateCachedTime();                             /* the clocks */
    server.lruclock = getLRUClock();                /* the LRU clock keys' access times compare to */
    updatePeakMemory();                             /* INFO used_memory_peak */
    shutdownIfAsked();                              /* a signal asked for a shutdown */
    clusterCron();                                  /* cluster state, handshakes (cluster-enabled only) */
    clientsCron();                                  /* timeouts, buffer resizing, per-client stats */
    clientEvictionCron();                           /* maxmemory-clients, also when no command runs */
    /* also refreshes lookupKey's cached fork-child answer (snapshot.h): one
     * update site missed would leave it stale for a tick at most, never
     * abort the server */
    updateDictResizePolicy();                       /* a child may have ended since the last tick */
    databasesCron();                                /* active expiry (slow cycle), rehashing */
    activeDefragCycle();                            /* activedefrag: a time-bounded slice (defrag.c) */
    migrateCron();                                  /* MIGRATE: close cached links idle for 10 s */
    moduleFireCronLoop(server.hz);                  /* modules' CronLoop event (module_events.c) */
    server.cronloops++;
    return 1000 / server.hz;
}

static void afterSleep(struct aeEventLoop *el) {
    (void)el;
    moduleAfterSleep(); /* modules loaded: take back the lock module threads may hold while we slept */
    updateCachedTime();
    moduleFireEventLoop(1); /* modules' EventLoop AFTER_SLEEP */
}

/* The end of every event-loop pass, before waiting for events, in a fixed
 * order. The steps before aofBeforeSleep may run commands or delete keys,
 * and so propagate (the AOF buffer also holds what this pass's commands
 * and timers propagated); the AOF is written (and fsynced per policy)
 * after all of them and before any reply is written, so a client never
 * sees the reply to a write the AOF has not got, whatever a step does. (The
 * rest of a reply that did not fit the socket goes out from the client's
 * write handler, installed with a write barrier while the AOF is on --
 * networking.c -- so it never carries a reply of the current pass.) A new
 * step that may write goes above the AOF. */
static void beforeSleep(struct aeEventLoop *el) {
    (void)el;
    updateCachedTime();
    tlsProcessPendingData();          /* TLS: input OpenSSL has decrypted but no read handler has seen yet */
    moduleFireEventLoop(0);           /* modules' EventLoop BEFORE_SLEEP */
    moduleHandleBlockedClients();     /* clients modules unblocked (from threads too): their replies */
    handleClientsBlockedOnKeys();     /* serve clients blocked on keys made ready: their commands run now */
    handleBlockedClientsTimeout();    /* blocked clients whose deadline passed get their timeout reply */
    processUnblockedClients();        /* run what unblocked clients pipelined while they waited */
    clusterBeforeSleep();             /* cluster-enabled: state update, nodes.conf saved when changed */
    replicationReapChild();           /* a full sync's child that exited: its replicas go online */
    if (server.active_expire_enabled) activeExpireCycle(ACTIVE_EXPIRE_CYCLE_FAST); /* active expiry */
    trackingBeforeSleep();            /* client-side caching: pending and BCAST invalidations */
    aofBeforeSleep();                 /* write the AOF buffer, fsync per policy: before any reply */
    handleClientsWithPendingWrites(); /* write replies */
    freeClientsInAsyncFreeQueue();    /* free clients closed during the pass */
    int shm_served = shmSpinBeforeSleep(); /* shm clients just served: poll their rings a few us and run
                                            * what arrives (its replies go out next pass, after the AOF) */
    aeSetDontWait(server.el, tlsHasPendingData() || shm_served); /* such input left or replies queued: don't sleep */
    moduleBeforeSleep(); /* last: module threads may take the lock while we sleep */
}

/* ---- listening ------------------------------------------------------------------------- */

/* Address families that may legitimately be missing on a host (no IPv6). */
static int bindErrorIsOptional(void) {
    return errno == EADDRNOTAVAIL || errno == EAFNOSUPPORT || errno == EPROTONOSUPPORT ||
           errno == ESOCKTNOSUPPORT || errno == EPFNOSUPPORT || errno == EINVAL;
}

/* Closes a set of listening sockets (TCP or TLS) and forgets them. */
void closeListenerFds(int *fds, int *count) {
    for (int j = 0; j < *count; j++) {
        if (server.el) aeDeleteFileEvent(server.el, fds[j], AE_READABLE);
        close(fds[j]);
    }
    *count = 0;
}

static void closeTcpListeners(void) { closeListenerFds(server.ipfd, &server.ipfd_count); }

/* Listening sockets on every bind address for one port (the TCP port, or
 * tls.c's TLS port) into fds[CONFIG_BINDADDR_MAX]. Port 0 or an empty bind
 * list: none (as in Redis). On failure no listener is left open. */
int listenOnTcpPort(int port, int *fds, int *count) {
    char err[ANET_ERR_LEN];
    *count = 0;
    if (port == 0 || server.bindaddr_count == 0) return C_OK;
    for (int j = 0; j < server.bindaddr_count; j++) {
        const char *addr = server.bindaddr[j];
        int optional = addr[0] == '-';
        if (optional) addr++;
        int fd = strchr(addr, ':') ? anetTcp6Server(err, port, (char *)addr, server.tcp_backlog)
                                   : anetTcpServer(err, port, (char *)addr, server.tcp_backlog);
        if (fd == ANET_ERR) {
            if (optional && bindErrorIsOptional()) {
                serverLog(LL_NOTICE, "Skipping optional bind address %s: %s", addr, err);
                continue;
            }
            serverLog(LL_WARNING, "Warning: Could not create server TCP listening socket %s:%d: %s", addr,
                      port, err);
            closeListenerFds(fds, count);
            return C_ERR;
        }
        anetNonBlock(NULL, fd);
        anetCloexec(fd);
        fds[(*count)++] = fd;
    }
    if (*count == 0) {
        serverLog(LL_WARNING, "Failed listening on any of the bind addresses; is 'bind' right?");
        return C_ERR;
    }
    return C_OK;
}

static int listenOnTcp(void) { return listenOnTcpPort(server.port, server.ipfd, &server.ipfd_count); }

static int listenOnUnixSocket(void) {
    char err[ANET_ERR_LEN];
    if (server.unixsocket == NULL) return C_OK;
    unlink(server.unixsocket);
    server.sofd = anetUnixServer(err, server.unixsocket, (mode_t)server.unixsocketperm, server.tcp_backlog);
    if (server.sofd == ANET_ERR) {
        serverLog(LL_WARNING, "Failed opening Unix socket: %s", err);
        return C_ERR;
    }
    if (server.unixsocketgroup && anetUnixSetGroup(err, server.unixsocket, server.unixsocketgroup) == ANET_ERR) {
        serverLog(LL_WARNING, "Failed opening Unix socket: %s", err);
        close(server.sofd);
        unlink(server.unixsocket);
        server.sofd = -1;
        return C_ERR;
    }
    anetNonBlock(NULL, server.sofd);
    anetCloexec(server.sofd);
    return C_OK;
}

static void registerTcpListeners(void) {
    for (int j = 0; j < server.ipfd_count; j++) {
        if (aeCreateFileEvent(server.el, server.ipfd[j], AE_READABLE, acceptTcpHandler, NULL) == AE_ERR)
            serverPanic("Unrecoverable error creating server.ipfd file event.");
    }
}

static void registerListeners(void) {
    registerTcpListeners();
    if (server.sofd > 0 && aeCreateFileEvent(server.el, server.sofd, AE_READABLE, acceptUnixHandler, NULL) == AE_ERR)
        serverPanic("Unrecoverable error creating server.sofd file event.");
}

/* CONFIG SET port / bind: the old TCP listeners are closed first (the new
 * ones may need the same address and port), then the new ones opened. On
 * failure none is left, and CONFIG SET puts the old values back and calls
 * this again. Connected clients are not touched. */
int restartTcpListeners(void) {
    closeTcpListeners();
    if (listenOnTcp() != C_OK) return C_ERR;
    registerTcpListeners();
    procTitleSet(NULL); /* the title shows the address */
    return C_OK;
}

/* The first thing a fork child (BGSAVE, AOF rewrite) does. It closes its
 * copies of the listening sockets, so a port given up by CONFIG SET port is
 * really free while the child runs. Only close(): the epoll set is shared
 * with the parent, and the unix socket's file is the parent's. */
void setupForkChild(const char *cpulist, const char *who, const char *title) {
#ifdef __linux__
    /* A child outliving its parent (killed -9, the OOM killer) would go on
     * writing a snapshot nobody collects, holding the replicas' sockets
     * open: it gets SIGUSR1 (exit, its file unfinished) when the parent
     * dies, and exits at once if that happened before this line. Redis's
     * child notices the same at its next progress report. */
    prctl(PR_SET_PDEATHSIG, SIGUSR1);
    if (getppid() != server.pid) _exit(1);
#endif
    for (int j = 0; j < server.ipfd_count; j++) close(server.ipfd[j]);
    if (server.sofd > 0) close(server.sofd);
    tlsCloseListenersInChild();
    cpuAffinityChild(cpulist, who);
    procTitleSet(title);
}

static void closeListeners(void) {
    closeTcpListeners();
    tlsCloseListeners();
    if (server.sofd > 0) {
        close(server.sofd);
        server.sofd = -1;
        if (server.unixsocket) unlink(server.unixsocket);
    }
}

/* ---- initialisation --------------------------------------------------------------------- */

static void initServerState(void) {
    server.pid = getpid();
    server.sofd = -1;
    server.ipfd_count = 0;
    server.clients = listCreate();
    server.clients_to_close = listCreate();
    server.clients_pending_write = listCreate();
    server.next_client_id = 1;
    server.commands = dictCreate(&commandTableDictType);
    server.lruclock = getLRUClock();
    server.stat_starttime = time(NULL);
    server.lastsave = time(NULL);
    updateCachedTime();
    unsigned char runid_bytes[CONFIG_RUN_ID_SIZE / 2];
    osRandomBytes(runid_bytes, sizeof runid_bytes);
    for (int j = 0; j < CONFIG_RUN_ID_SIZE / 2; j++)
        snprintf(server.runid + j * 2, 3, "%02x", runid_bytes[j]);
}

static void createDatabases(void) {
    server.db = zmalloc(sizeof(redisDb) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) initDb(&server.db[j], j);
}

/* Modules that keep state set themselves up here, once. */
static void initModules(void) {
    slowlogInit();
    infoInit();
    trackingInit();
    hashTypeInit(); /* its random state for HRANDFIELD */
    blockedInit();
    memoryInit();
    shmInit();
}

static void initServer(void) {
    log_main_pid = getpid();
    signal(SIGHUP, SIG_IGN);
    signal(SIGPIPE, SIG_IGN);
    setupSignalHandlers();
    createSharedObjects();
    server.errors = dictCreate(&errorsDictType);
    openFilesAdjustForMaxclients(); /* maxclients fits the open-files limit before the loop is sized */
    server.el = aeCreateEventLoop((int)server.maxclients + CONFIG_MIN_RESERVED_FDS + 96);
    if (server.el == NULL) {
        serverLog(LL_WARNING, "Failed creating the event loop. Error message: '%s'", strerror(errno));
        exit(1);
    }
    connInit(server.el);
    openFilesReserveInit();
    createDatabases();
    if (listenOnTcp() != C_OK) {
        serverLog(LL_WARNING, "Failed listening on port %u (TCP), aborting.", (unsigned)server.port);
        exit(1);
    }
    if (listenOnUnixSocket() != C_OK) exit(1);
    if (tlsInit() != C_OK) exit(1); /* the TLS context and listeners (tls-port), or nothing */
    if (server.ipfd_count == 0 && server.sofd < 0 && !tlsIsListening()) {
        serverLog(LL_WARNING, "Configured to not listen anywhere, exiting.");
        exit(1);
    }
    registerListeners();
    clusterInit(); /* cluster-enabled: nodes.conf and the bus port, or nothing */
    if (aeCreateTimeEvent(server.el, 1, serverCron, NULL, NULL) == AE_ERR)
        serverPanic("Can't create event loop timers.");
    aeSetBeforeSleepProc(server.el, beforeSleep);
    aeSetAfterSleepProc(server.el, afterSleep);
    configApplyEventLoopSpin(); /* event-loop-spin-us */
    initModules();
}

static void seedHashFunctions(void) {
    uint8_t seed[16];
    if (osRandomBytes(seed, sizeof seed) != 0)
        serverLog(LL_WARNING, "The OS offered no random source: the hash seed comes from a weaker fallback.");
    dictSetHashFunctionSeed(seed);
}

/* ---- systemd readiness ----------------------------------------------------------------- */

/* Sends a state line ("READY=1", "STOPPING=1") to systemd over the datagram
 * socket named by $NOTIFY_SOCKET (abstract when it starts with '@'), the
 * protocol libsystemd's sd_notify speaks; no library needed. */
static int systemdNotify(const char *state) {
    const char *path = getenv("NOTIFY_SOCKET");
    if (path == NULL || (path[0] != '/' && path[0] != '@')) return C_ERR;
    struct sockaddr_un sa;
    memset(&sa, 0, sizeof sa);
    sa.sun_family = AF_UNIX;
    size_t len = strlen(path);
    if (len >= sizeof sa.sun_path) return C_ERR;
    memcpy(sa.sun_path, path, len);
    if (sa.sun_path[0] == '@') sa.sun_path[0] = '\0';
    int fd = socket(AF_UNIX, SOCK_DGRAM | SOCK_CLOEXEC, 0);
    if (fd == -1) return C_ERR;
    socklen_t salen = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + len);
    ssize_t sent = sendto(fd, state, strlen(state), MSG_NOSIGNAL, (struct sockaddr *)&sa, salen);
    close(fd);
    return sent == (ssize_t)strlen(state) ? C_OK : C_ERR;
}

static int supervisedBySystemd(void) {
    if (server.supervised_mode == SUPERVISED_SYSTEMD) return 1;
    return server.supervised_mode == SUPERVISED_AUTODETECT && getenv("NOTIFY_SOCKET") != NULL;
}

/* Before loading, as Redis 7.0 does: systemd shows it until READY=1. */
static void notifyLoading(void) {
    if (supervisedBySystemd()) systemdNotify("STATUS=Redis is loading...\n");
}

static void notifyReady(void) {
    if (!supervisedBySystemd()) return;
    if (systemdNotify("STATUS=Ready to accept connections\nREADY=1") == C_OK)
        serverLog(LL_NOTICE, "Supervised by systemd. Please make sure you set appropriate values for TimeoutStartSec and TimeoutStopSec in your service unit.");
    else
        serverLog(LL_WARNING, "systemd supervision requested, but NOTIFY_SOCKET not found or not usable");
}

/* ---- shutdown --------------------------------------------------------------------------- */

/* shutdown-timeout (Redis 7.0): a shutdown of a server whose replicas have
 * not acknowledged the whole stream pauses writes, asks them for an ACK and
 * waits (the SHUTDOWN callers blocked, a signal's shutdown pending) until
 * they all have it or the time is up (serverCron checks), then finishes;
 * SHUTDOWN NOW, or 0, skips the wait. The callers are remembered by id, so
 * one that disconnects meanwhile needs no cleanup. */
#define SHUTDOWN_STARTED_WAIT 1 /* prepareForShutdown: neither C_OK nor C_ERR yet */
#define SHUTDOWN_MAX_WAITERS 16

static struct {
    long long deadline_ms;  /* 0: no shutdown is waiting */
    int flags;              /* the waiting shutdown's SHUTDOWN_* */
    uint64_t waiters[SHUTDOWN_MAX_WAITERS]; /* ids of the SHUTDOWN callers blocked */
    int nwaiters;
} shutdown_wait;

static int finishShutdown(int flags);

static int shutdownWaiting(void) { return shutdown_wait.deadline_ms != 0; }

/* INFO's shutdown_in_milliseconds: what is left of a shutdown's wait for
 * its replicas, -1 when none waits (the field is then left out, as 7.0). */
long long shutdownRemainingMs(void) {
    if (!shutdownWaiting()) return -1;
    return shutdown_wait.deadline_ms > server.mstime ? shutdown_wait.deadline_ms - server.mstime : 0;
}

static void shutdownWaitStart(int flags) {
    shutdown_wait.deadline_ms = server.mstime + (long long)server.shutdown_timeout * 1000;
    shutdown_wait.flags = flags;
    clientsPauseWrites(LLONG_MAX / 2);
    replicationRequestAcks();
    serverLog(LL_NOTICE, "Waiting for replicas before shutting down.");
}

/* The blocked SHUTDOWN callers get `err` (NULL: nothing, the server goes)
 * and run what they pipelined meanwhile. */
static void shutdownWaitEnd(const char *err) {
    for (int j = 0; j < shutdown_wait.nwaiters; j++) {
        client *c = clientById(shutdown_wait.waiters[j]);
        if (c == NULL || !(c->flags & CLIENT_BLOCKED)) continue;
        if (err) addReplyError(c, err);
        c->flags &= ~CLIENT_BLOCKED;
        resetClient(c);
        queueClientForReprocessing(c);
    }
    shutdown_wait.nwaiters = 0;
    shutdown_wait.deadline_ms = 0;
    clientsUnpause();
}

static void shutdownWaitCheck(void) {
    if (server.mstime < shutdown_wait.deadline_ms && replicationLaggingReplicas(0)) return;
    if (finishShutdown(shutdown_wait.flags) == C_OK) exit(0);
    shutdownWaitEnd("Errors trying to SHUTDOWN. Check logs."); /* finishShutdown logged why */
    server.shutdown_asap = 0;
    server.shutdown_signal = 0;
}

/* C_OK: ready to exit; C_ERR: refused (logged); SHUTDOWN_STARTED_WAIT. */
static int prepareForShutdown(int flags) {
    serverLog(LL_WARNING, "User requested shutdown...");
    if (!(flags & SHUTDOWN_NOW) && server.shutdown_timeout && replicationLaggingReplicas(0)) {
        shutdownWaitStart(flags);
        return SHUTDOWN_STARTED_WAIT;
    }
    return finishShutdown(flags);
}

/* The AOF was turned on at run time and its first rewrite still runs: the
 * files lack the dataset from before (aofAwaitingFirstBase). Redis 7.0's
 * lines; SHUTDOWN FORCE exits anyway. */
static int shutdownRefusedByAof(int flags) {
    if (!aofAwaitingFirstBase() || !aofRewriteInProgress()) return 0;
    if (flags & SHUTDOWN_FORCE) {
        serverLog(LL_WARNING, "Writing initial AOF. Exit anyway.");
        return 0;
    }
    serverLog(LL_WARNING, "Writing initial AOF, can't exit.");
    if (supervisedBySystemd()) systemdNotify("STATUS=Writing initial AOF, can't exit.\n");
    return 1;
}

/* Redis 7.0's order and lines: a snapshot child is stopped (its file
 * would race the final save), then the AOF (a rewrite child stopped: the
 * files already hold the whole dataset, unless it is the first rewrite,
 * shutdownRefusedByAof; the rest written and fsynced), then the final
 * save. Any refusal leaves the server running, its reason logged first. */
static int finishShutdown(int flags) {
    replicationLaggingReplicas(1);
    if (rdbBgsaveInProgress()) serverLog(LL_WARNING, "There is a child saving an .rdb. Killing it!");
    rdbKillChild();
    replicationKillChild(); /* else it outlived us, holding its replicas' sockets open (cluster suite 17) */
    ldbKillForkedSessions();
    if (shutdownRefusedByAof(flags)) goto refused;
    if (aofRewriteInProgress()) serverLog(LL_WARNING, "There is a child rewriting the AOF. Killing it!");
    if (server.aof_enabled) serverLog(LL_NOTICE, "Calling fsync() on the AOF file.");
    aofShutdown();
    if (server.loading) flags = (flags & ~SHUTDOWN_SAVE) | SHUTDOWN_NOSAVE; /* never save a half-loaded dataset */
    if (rdbSaveOnShutdown(flags) != C_OK) {
        if (!(flags & SHUTDOWN_FORCE)) {
            serverLog(LL_WARNING, "Error trying to save the DB, can't exit.");
            goto refused;
        }
        serverLog(LL_WARNING, "Error trying to save the DB. Exit anyway.");
    }
    moduleFireShutdown(); /* modules' Shutdown event, as Redis: once the save is done */
    if (supervisedBySystemd()) systemdNotify("STOPPING=1");
    closeListeners();
    if (server.pidfile) {
        serverLog(LL_NOTICE, "Removing the pid file.");
        unlink(server.pidfile);
    }
    serverLog(LL_WARNING, "Redis is now ready to exit, bye bye...");
    return C_OK;
refused:
    serverLog(LL_WARNING, "Errors trying to shut down the server. Check the logs for more information.");
    return C_ERR;
}

/* The files a save of this process writes before renaming them into place
 * (rdb.c): named once the pid is final (after daemonizing), so the signal
 * handler can remove them with nothing but unlink(). */
static char shutdown_temp_rdb[64], shutdown_temp_forkless_rdb[64];

/* The log lines are Redis's, written the signal-safe way (debug.c). A
 * second SIGINT while the shutdown runs (its final save can be long) exits
 * at once, removing the half-written snapshot as Redis does. */
static void sigShutdownHandler(int sig) {
    if (server.shutdown_asap && sig == SIGINT) {
        serverLogFromHandler(LL_WARNING, "You insist... exiting now.");
        unlink(shutdown_temp_rdb);
        unlink(shutdown_temp_forkless_rdb);
        exit(1);
    }
    if (sig == SIGINT) serverLogFromHandler(LL_WARNING, "Received SIGINT scheduling shutdown...");
    else if (sig == SIGTERM) serverLogFromHandler(LL_WARNING, "Received SIGTERM scheduling shutdown...");
    else serverLogFromHandler(LL_WARNING, "Received shutdown signal, scheduling shutdown...");
    server.shutdown_signal = sig;
    server.shutdown_asap = 1;
}

/* SIGTERM and SIGINT go to handler (SIG_IGN: a Lua debugger's fork child,
 * which must outlive nothing but its session, ldb.c). */
void setShutdownSignalsHandler(void (*handler)(int)) {
    struct sigaction act;
    memset(&act, 0, sizeof act);
    sigemptyset(&act.sa_mask);
    act.sa_handler = handler;
    sigaction(SIGTERM, &act, NULL);
    sigaction(SIGINT, &act, NULL);
}

static void setupShutdownSignals(void) {
    snprintf(shutdown_temp_rdb, sizeof shutdown_temp_rdb, "temp-%d.rdb", (int)getpid());
    snprintf(shutdown_temp_forkless_rdb, sizeof shutdown_temp_forkless_rdb, "temp-forkless-%d.rdb", (int)getpid());
    setShutdownSignalsHandler(sigShutdownHandler);
}

/* ---- daemonizing and pid file ------------------------------------------------------------ */

/* Without fork() (HAVE_FORK=0, or a seccomp filter) the server stays in
 * the foreground. */
static void daemonize(void) {
#if HAVE_FORK
    pid_t pid = fork();
    if (pid > 0) exit(0);
    if (pid == -1) fprintf(stderr, "Can't daemonize (fork: %s): staying in the foreground\n", strerror(errno));
#endif
    setsid();
    /* the daemon is a new process: fork children check their parent against
     * server.pid (setupForkChild), so it must be the daemon's, or every
     * BGSAVE, rewrite and replication child would exit at once */
    server.pid = getpid();
    int fd = open("/dev/null", O_RDWR, 0);
    if (fd != -1) {
        dup2(fd, STDIN_FILENO);
        dup2(fd, STDOUT_FILENO);
        dup2(fd, STDERR_FILENO);
        if (fd > STDERR_FILENO) close(fd);
    }
}

static void createPidFile(void) {
    if (!server.pidfile) return;
    FILE *fp = fopen(server.pidfile, "w");
    if (fp) {
        fprintf(fp, "%d\n", (int)getpid());
        fclose(fp);
    } else {
        serverLog(LL_WARNING, "Failed to write PID file: %s", strerror(errno));
    }
}

/* SHUTDOWN [NOSAVE|SAVE] [NOW] [FORCE] [ABORT]. With save points (or SAVE)
 * a final snapshot is written first; if that fails the server stays up
 * unless FORCE. Lagging replicas make it wait first (shutdown-timeout,
 * above), unless NOW; ABORT cancels a shutdown that waits, or a signal's
 * the cron has not run yet. */
void shutdownCommand(client *c) {
    int flags = 0, abort_requested = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "nosave")) flags |= SHUTDOWN_NOSAVE;
        else if (!strcasecmp(opt, "save")) flags |= SHUTDOWN_SAVE;
        else if (!strcasecmp(opt, "now")) flags |= SHUTDOWN_NOW;
        else if (!strcasecmp(opt, "force")) flags |= SHUTDOWN_FORCE;
        else if (!strcasecmp(opt, "abort")) abort_requested = 1;
        else {
            addReplyErrorObject(c, shared.syntaxerr);
            return;
        }
    }
    if ((abort_requested && flags) || ((flags & SHUTDOWN_NOSAVE) && (flags & SHUTDOWN_SAVE))) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (abort_requested) { /* a signal's shutdown (before the cron) or one waiting for replicas */
        if (!server.shutdown_asap && !shutdownWaiting()) {
            addReplyError(c, "No shutdown in progress.");
            return;
        }
        if (shutdownWaiting()) shutdownWaitEnd("Errors trying to SHUTDOWN. Check logs.");
        server.shutdown_asap = 0;
        server.shutdown_signal = 0;
        serverLog(LL_WARNING, "Shutdown manually aborted.");
        addReply(c, shared.ok);
        return;
    }
    if (scriptIsTimedOut() && !(flags & SHUTDOWN_NOSAVE)) { /* a busy script: only NOSAVE */
        addReplyErrorObject(c, scriptBusyError());
        return;
    }
    /* inside MULTI or a script nothing can block: no waiting, as Redis */
    if (c->flags & (CLIENT_MULTI | CLIENT_SCRIPT) || server.in_exec) flags |= SHUTDOWN_NOW;
    int ret = shutdownWaiting() ? SHUTDOWN_STARTED_WAIT : prepareForShutdown(flags);
    if (ret == C_OK) exit(0);
    if (ret == C_ERR) {
        addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
        return;
    }
    if (shutdown_wait.nwaiters == SHUTDOWN_MAX_WAITERS) {
        addReplyError(c, "Errors trying to SHUTDOWN. Check logs.");
        return;
    }
    shutdown_wait.waiters[shutdown_wait.nwaiters++] = c->id;
    c->flags |= CLIENT_BLOCKED; /* answered by shutdownWaitEnd, or never (the server exits) */
}

/* ---- connection commands ------------------------------------------------------------------ */

void pingCommand(client *c) {
    if (c->argc > 2) {
        addReplyErrorArity(c);
        return;
    }
    if (c->flags & CLIENT_PUBSUB && c->resp == 2) {
        addReplyArrayLen(c, 2);
        addReplyBulkCBuffer(c, "pong", 4);
        if (c->argc == 1) addReplyBulkCBuffer(c, "", 0);
        else addReplyBulk(c, c->argv[1]);
        return;
    }
    if (c->argc == 1) addReply(c, shared.pong);
    else addReplyBulk(c, c->argv[1]);
}

void echoCommand(client *c) { addReplyBulk(c, c->argv[1]); }

void quitCommand(client *c) {
    addReply(c, shared.ok);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

void timeCommand(client *c) {
    long long now = ustime();
    addReplyArrayLen(c, 2);
    addReplyBulkLongLong(c, now / 1000000);
    addReplyBulkLongLong(c, now % 1000000);
}

void lastsaveCommand(client *c) { addReplyLongLong(c, (long long)server.lastsave); }

void selectCommand(client *c) {
    int id;
    if (getIntFromObjectOrReply(c, c->argv[1], &id, NULL) != C_OK) return;
    if (server.cluster_enabled && id != 0) addReplyError(c, "SELECT is not allowed in cluster mode");
    else if (selectDb(c, id) == C_ERR) addReplyError(c, "DB index is out of range");
    else addReply(c, shared.ok);
}

static const char *wrongpass_error = "-WRONGPASS invalid username-password pair or user is disabled.";

/* AUTH [username] password: acl.c checks the pair and logs a failure. */
void authCommand(client *c) {
    if (c->argc > 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *username = c->argc == 3 ? c->argv[1] : NULL;
    robj *password = c->argv[c->argc - 1];
    if (username == NULL && aclDefaultUserHasNoPassword()) {
        addReplyError(c, "AUTH <password> called without any password configured for the default user. "
                         "Are you sure your configuration is correct?");
        return;
    }
    if (aclAuthenticate(c, username, password) != C_OK) {
        addReplyError(c, wrongpass_error);
        return;
    }
    addReply(c, shared.ok);
}

/* Client names: no spaces, newlines or other special characters. */
int validateClientName(client *c, robj *name) {
    const char *p = name->ptr;
    for (size_t j = 0; j < sdslen(name->ptr); j++) {
        if (p[j] < '!' || p[j] > '~') {
            addReplyError(c, "Client names cannot contain spaces, newlines or special characters.");
            return C_ERR;
        }
    }
    return C_OK;
}

void setClientName(client *c, robj *name) {
    if (c->name) decrRefCount(c->name);
    c->name = NULL;
    if (sdslen(name->ptr) == 0) return;
    c->name = name;
    incrRefCount(name);
}

static void addHelloReply(client *c) {
    addReplyMapLen(c, 7);
    addReplyBulkCString(c, "server");
    addReplyBulkCString(c, SERVER_NAME);
    addReplyBulkCString(c, "version");
    addReplyBulkCString(c, REDIS_VERSION);
    addReplyBulkCString(c, "proto");
    addReplyLongLong(c, c->resp);
    addReplyBulkCString(c, "id");
    addReplyLongLong(c, (long long)c->id);
    addReplyBulkCString(c, "mode");
    addReplyBulkCString(c, server.cluster_enabled ? "cluster" : "standalone");
    addReplyBulkCString(c, "role");
    addReplyBulkCString(c, replicationIsReplica() ? "replica" : "master");
    addReplyBulkCString(c, "modules");
    moduleReplyList(c); /* as MODULE LIST answers */
}

void helloCommand(client *c) {
    long long ver = 0;
    int next = 1;
    if (c->argc >= 2) {
        if (getLongLongFromObjectOrReply(c, c->argv[next++], &ver,
                                         "Protocol version is not an integer or out of range") != C_OK)
            return;
        if (ver < 2 || ver > 3) {
            addReplyError(c, "-NOPROTO unsupported protocol version");
            return;
        }
    }
    robj *username = NULL, *password = NULL, *clientname = NULL;
    for (int j = next; j < c->argc; j++) {
        int more = c->argc - j - 1;
        if (!strcasecmp(c->argv[j]->ptr, "AUTH") && more >= 2) {
            username = c->argv[j + 1];
            password = c->argv[j + 2];
            j += 2;
        } else if (!strcasecmp(c->argv[j]->ptr, "SETNAME") && more >= 1) {
            clientname = c->argv[j + 1];
            j++;
        } else {
            addReplyErrorFormat(c, "Syntax error in HELLO option '%s'", (char *)c->argv[j]->ptr);
            return;
        }
    }
    if (username && aclAuthenticate(c, username, password) != C_OK) {
        addReplyError(c, wrongpass_error);
        return;
    }
    if (!c->authenticated && aclDefaultUserRequiresAuth()) {
        addReplyError(c, "-NOAUTH HELLO must be called with the client already authenticated, otherwise the "
                         "HELLO <proto> AUTH <user> <pass> option can be used to authenticate the client and "
                         "select the RESP protocol version at the same time");
        return;
    }
    if (clientname && validateClientName(c, clientname) != C_OK) return;
    if (clientname) setClientName(c, clientname);
    if (ver) c->resp = (int)ver;
    addHelloReply(c);
}

/* ---- main ----------------------------------------------------------------------------------- */

static void printVersion(void) {
    printf("Redis server v=%s sha=00000000:0 malloc=%s bits=%d build=%s-%s\n", REDIS_VERSION,
           zmalloc_allocator_name(), SIZEOF_POINTER_BITS, PROJECT_NAME, PROJECT_VERSION);
}

/* Redis 7.0's usage text, less what this server lacks (Sentinel), plus its
 * own options. */
static void printUsage(FILE *out) {
    fprintf(out, "Usage: ./redis-server [/path/to/redis.conf] [options] [-]\n"
                 "       ./redis-server - (read config from stdin)\n"
                 "       ./redis-server -v or --version\n"
                 "       ./redis-server -h or --help\n"
                 "       ./redis-server --test-memory <megabytes>\n"
                 "       ./redis-server --check-system (check allocator and platform, then exit)\n"
                 "       ./redis-server --list-config-directives (every configuration directive, one a line)\n"
                 "       ./redis-check-rdb <rdb-file-name> (this program under that name: check an RDB file)\n\n"
                 "Options are configuration directives (see redis.conf) written as --directive value;\n"
                 "they override the file's, and '-' reads more of them from stdin.\n\n"
                 "Examples:\n"
                 "       ./redis-server (run the server with default conf)\n"
                 "       echo 'maxmemory 128mb' | ./redis-server -\n"
                 "       ./redis-server /etc/redis/6379.conf\n"
                 "       ./redis-server --port 7777\n"
                 "       ./redis-server /etc/myredis.conf --loglevel verbose -\n"
                 "       ./redis-server /etc/myredis.conf --loglevel verbose\n");
}

/* Whether the program was started as `name` (a link to the server named
 * so, or a copy): Redis's test, a substring of argv[0]'s last component.
 * The check mode is asked by "check-rdb", so the Debian package's
 * redis-portable-check-rdb (it cannot own /usr/bin/redis-check-rdb, which
 * Debian's redis-tools ships) is the checker too. */
static int invokedAs(const char *argv0, const char *name) {
    const char *base = strrchr(argv0, '/');
    return strstr(base ? base + 1 : argv0, name) != NULL;
}

static void checkAllocatorOrExit(void) {
    char err[256];
    if (zmalloc_check_page_size(err, sizeof err) != 0) {
        fprintf(stderr, "FATAL: %s\n", err);
        exit(1);
    }
}

/* vm.overcommit_memory, or -1 where there is no such setting (not Linux). */
static int overcommitMemorySetting(void) {
    FILE *fp = fopen("/proc/sys/vm/overcommit_memory", "r");
    if (fp == NULL) return -1;
    int value = -1;
    if (fscanf(fp, "%d", &value) != 1) value = -1;
    fclose(fp);
    return value;
}

/* Redis's words, so the sysadmin's searches and log alerts find it. */
static const char overcommit_warning[] =
    "WARNING Memory overcommit must be enabled! Without it, a background save or replication may fail under low "
    "memory condition. Being disabled, it can can also cause failures without low memory condition, see "
    "https://github.com/jemalloc/jemalloc/issues/1328. To fix this issue add 'vm.overcommit_memory = 1' to "
    "/etc/sysctl.conf and then reboot or run the command 'sysctl vm.overcommit_memory=1' for this to take effect.";

/* The start-up checks of the system's settings (Transparent Huge Pages are
 * thpInit()'s). */
static void warnAboutSystemSettings(void) {
    if (overcommitMemorySetting() == 0) serverLog(LL_WARNING, "%s", overcommit_warning);
}

/* --check-system: prove the allocator works here and report platform facts,
 * and the system settings start-up would warn about. */
static int checkSystem(void) {
    enum { BLOCKS = 1000 };
    void *blocks[BLOCKS];
    for (int i = 0; i < BLOCKS; i++) blocks[i] = zmalloc((size_t)(i * 37 % 4096) + 1);
    size_t used = zmalloc_used_memory();
    for (int i = 0; i < BLOCKS; i++) zfree(blocks[i]);
    printf("allocator=%s page_size=%ld bits=%d byte_order=%s aligned_access=%s test_allocation=%zu "
           "overcommit_memory=%d\n",
           zmalloc_allocator_name(), sysconf(_SC_PAGESIZE), SIZEOF_POINTER_BITS,
           BYTE_ORDER_BIG ? "big" : "little",
#ifdef USE_ALIGNED_ACCESS
           "required",
#else
           "not-required",
#endif
           used, overcommitMemorySetting());
    if (overcommitMemorySetting() == 0) printf("%s\n", overcommit_warning);
    return zmalloc_used_memory() == 0 ? 0 : 1;
}

/* Whether argv[j] starts with "--". */
static int dashedArg(int argc, char **argv, int j) { return j < argc && argv[j][0] == '-' && argv[j][1] == '-'; }

/* Whether one argument holds an option's name and its value ("--port 6380"
 * as a single word): it is then taken as a config file line. */
static int argHasValue(const char *arg) {
    int count = 0;
    sds *words = sdssplitargs(arg, &count);
    if (words) sdsfreesplitres(words, count);
    return count > 1;
}

/* Turns "--port 6380 --bind a b" into "port 6380\nbind a b\n". As in
 * Redis 7.0:
 * - a "--word" right after an option that has no value yet is that value
 *   ("--logfile --my-log" logs to "--my-log"), so a missing value shows up
 *   in the error as the option swallowing the next one;
 * - one argument may hold the name and the value ("--maxmemory 700mb"),
 *   taken as written, quotes included;
 * - a --save followed by another option, or last, means `save ""`. */
static sds optionsFromArgs(int argc, char **argv, int first, int *read_stdin) {
    sds options = sdsempty();
    int in_option = 0, has_value = 0;
    for (int j = first; j < argc; j++) {
        int dashed = dashedArg(argc, argv, j) && argv[j][2];
        if (!strcmp(argv[j], "-")) {
            *read_stdin = 1;
        } else if (dashed && (!in_option || has_value)) {
            if (sdslen(options)) options = sdscat(options, "\n");
            options = sdscat(options, argv[j] + 2);
            options = sdscat(options, " ");
            in_option = 1;
            has_value = argHasValue(argv[j]);
            if (!has_value && !strcasecmp(argv[j], "--save") && (j == argc - 1 || dashedArg(argc, argv, j + 1))) {
                options = sdscat(options, "\"\"");
                has_value = 1;
            }
        } else {
            options = sdscatrepr(options, argv[j], strlen(argv[j]));
            options = sdscat(options, " ");
            has_value = 1;
        }
    }
    return options;
}

/* The first lines of the log, Redis's words in Redis's order: once the
 * configuration is read, before daemonizing. */
static void logStartBanner(const char *executable, int argc) {
    serverLog(LL_WARNING, "oO0OoO0OoO0Oo Redis is starting oO0OoO0OoO0Oo");
    serverLog(LL_WARNING, "Redis version=%s, bits=%d, commit=00000000, modified=0, pid=%d, just started", REDIS_VERSION,
              SIZEOF_POINTER_BITS, (int)getpid());
    if (argc == 1)
        serverLog(LL_WARNING, "Warning: no config file specified, using the default config. In order to specify a "
                              "config file use %s /path/to/redis.conf", executable);
    else
        serverLog(LL_WARNING, "Configuration loaded");
}

/* Where Redis shows its ASCII-art logo (always-show-logo yes, or a terminal
 * with no log file and no syslog) it carries the version, the mode, the
 * port and the PID; tools read those lines (Redis's own test harness waits
 * for " PID: <pid>"). We give the same facts as a plain block of our own,
 * and elsewhere the one line Redis logs instead. */
static void logServerIdentity(void) {
    int terminal = !server.syslog_enabled && (server.logfile == NULL || server.logfile[0] == '\0') &&
                   isatty(fileno(stdout));
    if (!server.always_show_logo && !terminal) {
        serverLog(LL_NOTICE, "Running mode=%s, port=%d.", server.cluster_enabled ? "cluster" : "standalone",
                  server.port);
        return;
    }
    char block[512];
    snprintf(block, sizeof block,
             "\n"
             "    Redis-compatible portable server, Redis %s, %d bit\n"
             "    Running in %s mode\n"
             "    Port: %d\n"
             "    PID: %ld\n"
             "\n",
             REDIS_VERSION, SIZEOF_POINTER_BITS, server.cluster_enabled ? "cluster" : "standalone", server.port,
             (long)getpid());
    serverLog(LL_NOTICE | LL_RAW, "%s", block);
}

/* redis-check-rdb: the loader needs the configuration's defaults (limits,
 * encodings' thresholds) and the shared objects; no event loop, listener
 * or dataset. */
static int runCheckRdb(int argc, char **argv) {
    seedHashFunctions();
    initServerState();
    initConfigValues();
    createSharedObjects();
    hashTypeInit();
    return rdbCheckMain(argc, argv);
}

int main(int argc, char **argv) {
    libSetAssertHandler(serverAssertFailed); /* library asserts: logged like serverAssert, then SIGABRT's crash report */
    checkAllocatorOrExit();
    if (invokedAs(argv[0], "check-rdb")) return runCheckRdb(argc, argv);
    if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printVersion();
        return 0;
    }
    if (argc == 2 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
        printUsage(stdout);
        return 0;
    }
    if (argc == 2 && !strcmp(argv[1], "--check-system")) return checkSystem();
    if (argc >= 2 && !strcmp(argv[1], "--test-memory")) return memtestMain(argc, argv); /* memtest.c */
    if (argc == 2 && !strcmp(argv[1], "--list-config-directives")) return configPrintDirectives(stdout);

    procTitleInit(argc, argv); /* argv's strings move: nothing may keep a pointer into them before this */
    seedHashFunctions();
    initServerState();
    initConfigValues();
    populateCommandTable();
    aclInit(); /* the default user, before `user` lines are read */
    server.executable = argv[0];

    char *configfile = NULL;
    int first_option = 1;
    if (argc >= 2 && argv[1][0] != '-') {
        configfile = argv[1];
        first_option = 2;
    }
    int read_stdin = 0;
    sds options = optionsFromArgs(argc, argv, first_option, &read_stdin);
    if (configfile) server.configfile = realpath(configfile, NULL);
    if (configfile && !server.configfile) server.configfile = zstrdup(configfile);
    loadServerConfig(configfile, (char)read_stdin, options);
    sdsfree(options);
    logStartBanner(argv[0], argc);
    evictApplyDefaultCap();

    if (server.syslog_enabled) openlog(server.syslog_ident ? server.syslog_ident : "redis", LOG_PID | LOG_NDELAY | LOG_NOWAIT, LOG_USER);
    if (server.daemonize) daemonize();
    cpuAffinityInit();
    thpInit();
    setupShutdownSignals();
    initServer();
    procTitleSet(NULL);
    zmalloc_set_background_thread(server.jemalloc_bg_thread); /* after daemonize(): threads don't survive fork */
    oomScoreApplyServer(); /* logs its own failure; start-up goes on, as in Redis */
    serverLog(LL_VERBOSE, "Command durations are timed with: %s", monotonicInit());
    updateCachedTime(); /* the wall clock's offset from the clock just chosen, before loading runs commands */
    logServerIdentity();
    serverLog(LL_WARNING, "Server initialized");
    warnAboutSystemSettings();
    configWarnNoEffectDirectives();
    moduleLoadQueued(); /* loadmodule lines: before the users (their rules may name module commands) */
    if (aclLoadUsersAtStartup() != C_OK) exit(1);
    replicationEarlyInit();
    notifyLoading();
    aofInit();
    rdbInit();
    replicationInit();
    createPidFile();
    if (server.ipfd_count || tlsIsListening()) serverLog(LL_NOTICE, "Ready to accept connections");
    if (server.unixsocket) serverLog(LL_NOTICE, "The server is now ready to accept connections at %s", server.unixsocket);
    notifyReady();
    aeMain(server.el);
    aeDeleteEventLoop(server.el);
    return 0;
}
