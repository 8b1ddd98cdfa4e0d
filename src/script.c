/* script.c -- the run of one script, whatever the engine or the command
 * (EVAL family in eval.c, FCALL in function.c): what its redis.call may
 * run, what the server does while it runs long, and the shebang flags.
 *
 * Design decisions:
 * - redis.call goes through call() (server.c) on the engine's fake client,
 *   after the checks Redis makes for scripts, in its order and words:
 *   unknown command or arity, "noscript" commands, writes from a
 *   read-only script, OOM before the first write, MISCONF. So commandstats,
 *   SLOWLOG, keyspace events and propagation see each command as if a
 *   client had sent it; the commands' effects queue in propagate.c until
 *   the outermost call() (the EVAL) returns, and go out wrapped in
 *   MULTI/EXEC -- the script itself is never propagated.
 * - One clock: call() updates the cached time only for the outermost
 *   command, so a script's commands all see the time the EVAL started and
 *   no key expires in the middle of a script (Redis 7.0's behaviour).
 * - Busy scripts: the engine calls scriptInterrupt() every so many
 *   instructions. Past busy-reply-threshold the run is "timed out": the
 *   caller is protected (not read, not freed), and from then on every call
 *   serves one pass of file events, as a load does (loading.c), where
 *   processCommand() answers -BUSY to all but the commands flagged
 *   allow-busy (SCRIPT KILL, FUNCTION KILL, SHUTDOWN NOSAVE ...). The
 *   cached clocks are restored after each pass, so the script's time still
 *   does not move. A kill is honoured at the next scriptInterrupt().
 * - A script that wrote cannot be killed (its half-done effects would be
 *   propagated, or lost): -UNKILLABLE, as in Redis.
 */
#include "script.h"
#include "replication.h"
#include "acl.h"
#include "aof.h"

static scriptRunCtx *current_run;

static robj *busyEvalError, *busyFunctionError;

/* ---- shebang and flags ------------------------------------------------------------------ */

static const struct {
    uint64_t flag;
    const char *name;
} script_flag_names[] = {
    {SCRIPT_FLAG_NO_WRITES, "no-writes"},
    {SCRIPT_FLAG_ALLOW_OOM, "allow-oom"},
    {SCRIPT_FLAG_ALLOW_STALE, "allow-stale"},
    {SCRIPT_FLAG_NO_CLUSTER, "no-cluster"},
    {SCRIPT_FLAG_ALLOW_CROSS_SLOT, "allow-cross-slot-keys"},
};

int scriptParseFlagName(const char *name, uint64_t *flag) {
    for (size_t j = 0; j < sizeof script_flag_names / sizeof script_flag_names[0]; j++) {
        if (strcmp(name, script_flag_names[j].name) == 0) {
            *flag = script_flag_names[j].flag;
            return C_OK;
        }
    }
    return C_ERR;
}

int scriptParseFlagNameNoCase(const char *name, uint64_t *flag) {
    for (size_t j = 0; j < sizeof script_flag_names / sizeof script_flag_names[0]; j++) {
        if (strcasecmp(name, script_flag_names[j].name) == 0) {
            *flag = script_flag_names[j].flag;
            return C_OK;
        }
    }
    return C_ERR;
}

/* The flags' names, in Redis's order (FUNCTION LIST). */
const char *scriptFlagName(int index, uint64_t *flag) {
    if (index < 0 || (size_t)index >= sizeof script_flag_names / sizeof script_flag_names[0]) return NULL;
    *flag = script_flag_names[index].flag;
    return script_flag_names[index].name;
}

static int parseShebangFlags(sds names_list, uint64_t *flags, sds *err) {
    int count;
    sds *names = sdssplitlen(names_list, (ssize_t)sdslen(names_list), ",", 1, &count);
    int ok = C_OK;
    for (int j = 0; j < count && ok == C_OK; j++) {
        uint64_t flag;
        if (scriptParseFlagName(names[j], &flag) == C_OK) {
            *flags |= flag;
        } else {
            *err = sdscatfmt(sdsempty(), "Unexpected flag in script shebang: %s", names[j]);
            ok = C_ERR;
        }
    }
    sdsfreesplitres(names, count);
    return ok;
}

int scriptHasShebang(const char *body, size_t len) { return len >= 2 && body[0] == '#' && body[1] == '!'; }

sds *scriptSplitFirstLine(const char *body, size_t len, int *argc, size_t *line_len) {
    *argc = 0;
    /* the line ends at its newline, which must come before any NUL byte
     * (Redis 7.0 looks for it with strchr): "#!lua\0\n..." is invalid */
    const char *nl = memchr(body, '\n', strnlen(body, len));
    if (nl == NULL) return NULL;
    *line_len = (size_t)(nl - body);
    sds line = sdsnewlen(body, *line_len);
    sds *parts = sdssplitargs(line, argc);
    sdsfree(line);
    if (parts != NULL && *argc == 0) {
        sdsfreesplitres(parts, 0);
        parts = NULL;
    }
    return parts;
}

/* "#!lua [flags=a,b]" -- Redis's parse: split like a command line, the
 * engine word first, then only flags= options. A shebang and no code (no
 * newline) is refused, as Redis 7.0 does. */
int scriptParseShebang(const char *body, size_t len, uint64_t *flags, size_t *shebang_len, sds *err) {
    *flags = SCRIPT_FLAG_EVAL_COMPAT_MODE;
    *shebang_len = 0;
    if (!scriptHasShebang(body, len)) return C_OK;
    int argc;
    sds *parts = scriptSplitFirstLine(body, len, &argc, shebang_len);
    if (parts == NULL) {
        *err = sdsnew("Invalid script shebang");
        return C_ERR;
    }
    int ok = C_OK;
    if (strcmp(parts[0], "#!lua") != 0) {
        *err = sdscatfmt(sdsempty(), "Unexpected engine in script shebang: %s", parts[0]);
        ok = C_ERR;
    }
    *flags = 0;
    for (int j = 1; j < argc && ok == C_OK; j++) {
        if (strncmp(parts[j], "flags=", LITERAL_LEN("flags=")) == 0) {
            sdsrange(parts[j], LITERAL_LEN("flags="), -1);
            ok = parseShebangFlags(parts[j], flags, err);
        } else {
            *err = sdscatfmt(sdsempty(), "Unknown lua shebang option: %s", parts[j]);
            ok = C_ERR;
        }
    }
    sdsfreesplitres(parts, argc);
    return ok;
}

/* A script that declared flags replaces EVAL's write/deny-oom/stale flags
 * with what it declared (processCommand() then refuses it as it would a
 * write command: OOM, MISCONF). */
uint64_t scriptFlagsToCmdFlags(uint64_t cmd_flags, uint64_t script_flags) {
    if (script_flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) return cmd_flags;
    cmd_flags &= ~(CMD_STALE | CMD_DENYOOM | CMD_WRITE | CMD_MAY_REPLICATE);
    if (!(script_flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES))) cmd_flags |= CMD_DENYOOM;
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES)) cmd_flags |= CMD_WRITE;
    if (script_flags & SCRIPT_FLAG_ALLOW_STALE) cmd_flags |= CMD_STALE;
    return cmd_flags;
}

/* ---- a run -------------------------------------------------------------------------------- */

client *scriptCreateFakeClient(void) {
    client *fake = createClient(NULL);
    fake->flags |= CLIENT_FAKE | CLIENT_SCRIPT;
    clientSetAuthenticated(fake, 1);
    return fake;
}

static int overMaxmemory(void) { return server.maxmemory && zmalloc_used_memory() > server.maxmemory; }

static int runningStale(void) {
    return replicationIsReplica() && !replicaLinkUp() && !server.repl_serve_stale_data;
}

/* Refusals that depend on the script's declared flags. A body without a
 * shebang has none of them checked here, as in Redis, but is refused as a
 * whole on a stale replica: EVAL itself is flagged stale, and Redis 7.0
 * fails such a run (a failed call, not a rejected one) with -MASTERDOWN. */
static int refuseByFlags(client *caller, uint64_t script_flags, int read_only) {
    if (script_flags & SCRIPT_FLAG_EVAL_COMPAT_MODE) {
        if (!runningStale()) return 0;
        addReplyError(caller, "-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
        return 1;
    }
    if ((script_flags & SCRIPT_FLAG_NO_CLUSTER) && server.cluster_enabled) {
        addReplyError(caller, "Can not run script on cluster, 'no-cluster' flag is set.");
        return 1;
    }
    /* processCommand() refused most of what follows for a client's own EVAL
     * or FCALL; a module's RedisModule_Call reaches here without it */
    if (runningStale() && !(script_flags & SCRIPT_FLAG_ALLOW_STALE)) {
        addReplyError(caller, "-MASTERDOWN Link with MASTER is down, replica-serve-stale-data is set to 'no' "
                              "and 'allow-stale' flag is not set on the script.");
        return 1;
    }
    if (!(script_flags & SCRIPT_FLAG_NO_WRITES)) {
        int obey = clientMustObey(caller);
        if (replicationIsReplica() && server.repl_slave_ro && !obey) {
            addReplyError(caller, "-READONLY Can not run script with write flag on readonly replica");
            return 1;
        }
        sds misconf = obey ? NULL : aofWriteDeniedError();
        if (misconf == NULL && !obey) misconf = rdbWriteDeniedError();
        if (misconf) {
            addReplyErrorSds(caller, misconf);
            return 1;
        }
        if (read_only) {
            addReplyError(caller, "Can not execute a script with write flag using *_ro command.");
            return 1;
        }
        if (!replicationIsReplica() && replicationNotEnoughGoodReplicas()) {
            addReplyError(caller, "-NOREPLICAS Not enough good replicas to write.");
            return 1;
        }
    }
    if (!(script_flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)) && overMaxmemory()) {
        addReplyError(caller, "-OOM allow-oom flag is not set on the script, "
                              "can not run it when used memory > 'maxmemory'");
        return 1;
    }
    return 0;
}

int scriptPrepareRun(scriptRunCtx *ctx, client *fake, client *caller, const char *funcname,
                     uint64_t script_flags, int read_only) {
    if (refuseByFlags(caller, script_flags, read_only)) return C_ERR;
    memset(ctx, 0, sizeof *ctx);
    ctx->funcname = funcname;
    ctx->caller = caller;
    ctx->fake = fake;
    ctx->repl = SCRIPT_REPL_ALL;
    ctx->start_us = monotonicUs();
    ctx->over_memory_at_start = overMaxmemory();
    if (read_only || (script_flags & SCRIPT_FLAG_NO_WRITES)) ctx->flags |= SCRIPT_RUN_READ_ONLY;
    if (script_flags & (SCRIPT_FLAG_ALLOW_OOM | SCRIPT_FLAG_NO_WRITES)) ctx->flags |= SCRIPT_RUN_ALLOW_OOM;
    /* a body without shebang may touch keys of several slots, as in Redis 7.0 */
    if (script_flags & (SCRIPT_FLAG_ALLOW_CROSS_SLOT | SCRIPT_FLAG_EVAL_COMPAT_MODE))
        ctx->flags |= SCRIPT_RUN_ALLOW_CROSS_SLOT;
    fake->db = caller->db;
    fake->resp = 2;
    current_run = ctx;
    return C_OK;
}

void scriptResetRun(scriptRunCtx *ctx) {
    if (ctx->flags & SCRIPT_RUN_TIMEDOUT) {
        unprotectClient(ctx->caller);
        replicaResumeStream(); /* the primary's stream it held back (processInputBuffer) */
    }
    current_run = NULL;
}

scriptRunCtx *scriptCurrentRun(void) { return current_run; }

/* ---- redis.call --------------------------------------------------------------------------- */

/* min-replicas-to-write not met: -NOREPLICAS, as processCommand() says it
 * (reached by a script without flags: one with flags that may write was
 * refused before it ran). A replica's refusals are checked apart. */
static int verifyGoodReplicas(scriptRunCtx *ctx, redisCommand *cmd, sds *err) {
    if (replicationIsReplica() || !server.min_replicas_to_write) return C_OK;
    client *c = ctx->fake;
    redisCommand *saved = c->cmd;
    c->cmd = cmd;
    *err = replicationRefusal(c);
    c->cmd = saved;
    return *err ? C_ERR : C_OK;
}

static int verifyWriteAllowed(scriptRunCtx *ctx, redisCommand *cmd, sds *err) {
    if ((ctx->flags & SCRIPT_RUN_READ_ONLY) && (cmd->flags & (CMD_WRITE | CMD_MAY_REPLICATE))) {
        *err = sdsnew("Write commands are not allowed from read-only scripts.");
        return C_ERR;
    }
    if (!(cmd->flags & CMD_WRITE)) return C_OK;
    /* a script without flags (checked before the run otherwise) writing on a
     * read-only replica; its primary and the AOF loader are obeyed, a
     * module's RedisModule_Call is not */
    if (replicationIsReplica() && server.repl_slave_ro && ctx->caller && !clientMustObey(ctx->caller)) {
        *err = sdsnew("-READONLY You can't write against a read only replica.");
        return C_ERR;
    }
    if (ctx->flags & SCRIPT_RUN_WRITE_DIRTY) return C_OK;
    sds misconf = aofWriteDeniedError();
    if (misconf == NULL) misconf = rdbWriteDeniedError();
    if (misconf) {
        *err = misconf; /* "-MISCONF ..." */
        return C_ERR;
    }
    return verifyGoodReplicas(ctx, cmd, err);
}

/* Out of memory when the script started, and it has not written yet: a
 * deny-oom command is refused (after its first write a script is let
 * finish, or its effects would be half applied). */
static int verifyMemory(scriptRunCtx *ctx, redisCommand *cmd, sds *err) {
    if (ctx->flags & (SCRIPT_RUN_ALLOW_OOM | SCRIPT_RUN_WRITE_DIRTY)) return C_OK;
    if (!server.maxmemory || !ctx->over_memory_at_start || !(cmd->flags & CMD_DENYOOM)) return C_OK;
    *err = sdsdup(shared.oomerr->ptr);
    sdstrim(*err, "\r\n");
    return C_ERR;
}

/* The caller's user may run the command on these keys and channels (a
 * client without a user -- the AOF loader's -- may run anything). */
int scriptAclCheck(scriptRunCtx *ctx, redisCommand *cmd, robj **argv, int argc, int *errpos) {
    aclUser *user = ctx->caller ? ctx->caller->user : NULL;
    if (user == NULL) return ACL_OK;
    return aclCheckCommandOfUser(user, cmd, argv, argc, errpos);
}

/* A refusal is logged in ACL LOG with the "lua" context, under the
 * caller's name, with Redis 7.0's texts for the script's error. */
static int verifyAcl(scriptRunCtx *ctx, redisCommand *cmd, robj **argv, int argc, sds *err) {
    int errpos = 0;
    int result = scriptAclCheck(ctx, cmd, argv, argc, &errpos);
    if (result == ACL_OK) return C_OK;
    robj *culprit = argv[errpos];
    sds object = result == ACL_DENIED_CMD ? sdsdup(cmd->fullname)
                 : sdsEncodedObject(culprit) ? sdsdup(culprit->ptr)
                                             : sdsfromlonglong((long)culprit->ptr);
    aclLogAdd(ctx->caller, result, ACL_LOG_CTX_LUA, errpos, NULL, object);
    *err = sdsnew(result == ACL_DENIED_CMD ? "The user executing the script can't run this command or subcommand"
                  : result == ACL_DENIED_KEY
                      ? "The user executing the script can't access at least one of the keys mentioned in the "
                        "command arguments"
                      : "The user executing the script can't publish to the channel mentioned in the command");
    return C_ERR;
}

static int verifyCommand(scriptRunCtx *ctx, redisCommand *cmd, robj **argv, int argc, sds *err) {
    if (cmd == NULL) {
        *err = sdsnew("Unknown Redis command called from script");
        return C_ERR;
    }
    if ((cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity) {
        *err = sdsnew("Wrong number of args calling Redis command from script");
        return C_ERR;
    }
    if ((cmd->flags & CMD_NOSCRIPT) && !server.script_disable_deny_script) {
        *err = sdsnew("This Redis command is not allowed from script");
        return C_ERR;
    }
    /* an allow-stale script on a stale replica runs only "stale" commands */
    if (runningStale() && !(cmd->flags & CMD_STALE)) {
        *err = sdsnew("Can not execute the command on a stale replica");
        return C_ERR;
    }
    if (verifyAcl(ctx, cmd, argv, argc, err) != C_OK) return C_ERR;
    if (verifyWriteAllowed(ctx, cmd, err) != C_OK) return C_ERR;
    return verifyMemory(ctx, cmd, err);
}

/* The refusal counts as an error reply (INFO errorstats) and a rejected
 * call of the command, as in Redis. */
static void countRefusal(redisCommand *cmd, sds err) {
    const char *code = err[0] == '-' ? err + 1 : "ERR";
    size_t len = 0;
    while (code[len] && code[len] != ' ') len++;
    server.stat_total_error_replies++;
    incrementErrorCount(code, len);
    if (cmd) cmd->rejected_calls++;
    callChargeErrors();
}

/* argv becomes the fake client's whatever happens: the caller releases
 * the fake client's argv afterwards, which module filters may have
 * rewritten (as in Redis 7.0, scripts' calls pass them). */
void scriptCall(scriptRunCtx *ctx, robj **argv, int argc, sds *err) {
    client *c = ctx->fake;
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
    c->cmd = NULL;
    if (moduleCommandFiltersActive()) {
        moduleCallCommandFilters(c); /* module_filter.c */
        argv = c->argv;
        argc = c->argc;
    }
    redisCommand *cmd = argc ? lookupCommand(argv, argc) : NULL;
    if (verifyCommand(ctx, cmd, argv, argc, err) != C_OK) {
        countRefusal(cmd, *err);
        return;
    }
    if (cmd->flags & CMD_WRITE) ctx->flags |= SCRIPT_RUN_WRITE_DIRTY;
    c->cmd = c->lastcmd = c->realcmd = cmd;
    /* cluster mode: only this node's keys, of one slot unless allow-cross-slot-keys (cluster.c) */
    *err = clusterScriptRefusal(c, ctx->caller, (ctx->flags & SCRIPT_RUN_ALLOW_CROSS_SLOT) != 0);
    if (*err) {
        countRefusal(cmd, *err);
        return;
    }
    int narrowed = ctx->repl != SCRIPT_REPL_ALL; /* redis.set_repl() */
    if (narrowed) propagateSetTargets(ctx->repl & SCRIPT_REPL_AOF, ctx->repl & SCRIPT_REPL_REPLICA);
    call(c);
    if (narrowed) propagateSetTargets(1, 1);
    serverAssert(!(c->flags & CLIENT_BLOCKED));
}

/* ---- busy scripts ----------------------------------------------------------------------- */

/* One pass of file events, then what must follow it before replies go out
 * (as loading.c does during a load). The script's clocks and current
 * client are kept. */
static void serveClientsWhileBusy(void) {
    client *running = server.current_client;
    long long ustime = server.ustime, mstime = server.mstime;
    time_t unixtime = server.unixtime;
    aeProcessEvents(server.el, AE_FILE_EVENTS | AE_DONT_WAIT);
    shmRunWakes(); /* shm handlers queued without a wake-up descriptor (connection_shm.c) */
    aofBeforeSleep();
    handleClientsWithPendingWrites();
    freeClientsInAsyncFreeQueue();
    server.current_client = running;
    server.ustime = ustime;
    server.mstime = mstime;
    server.unixtime = unixtime;
    shutdownIfAsked();
}

static void enterTimedOut(scriptRunCtx *ctx, long long elapsed_ms) {
    serverLog(LL_WARNING,
              "Slow script detected: still in execution after %lld milliseconds. "
              "You can try killing the script using the %s command. Script name is: %s.",
              elapsed_ms, (ctx->flags & SCRIPT_RUN_EVAL_MODE) ? "SCRIPT KILL" : "FUNCTION KILL",
              ctx->funcname);
    ctx->flags |= SCRIPT_RUN_TIMEDOUT;
    protectClient(ctx->caller);
}

int scriptInterrupt(scriptRunCtx *ctx) {
    if (!(ctx->flags & SCRIPT_RUN_TIMEDOUT)) {
        long long elapsed_ms = (monotonicUs() - ctx->start_us) / 1000;
        if (elapsed_ms < server.busy_reply_threshold) return 0;
        enterTimedOut(ctx, elapsed_ms);
    }
    serveClientsWhileBusy();
    return (ctx->flags & SCRIPT_RUN_KILLED) != 0;
}

SCRIPT_RESIDENT int scriptIsTimedOut(void) { return current_run && (current_run->flags & SCRIPT_RUN_TIMEDOUT); }
int scriptIsRunning(void) { return current_run != NULL; } /* module_api.c: GetContextFlags' LUA */

int scriptIsEval(void) { return current_run && (current_run->flags & SCRIPT_RUN_EVAL_MODE); }

robj *scriptBusyError(void) {
    if (busyEvalError == NULL) {
        busyEvalError = createObject(OBJ_STRING, sdsnew("-BUSY Redis is busy running a script. You can only "
                                                         "call SCRIPT KILL or SHUTDOWN NOSAVE.\r\n"));
        busyFunctionError = createObject(OBJ_STRING, sdsnew("-BUSY Redis is busy running a script. You can only "
                                                             "call FUNCTION KILL or SHUTDOWN NOSAVE.\r\n"));
    }
    return scriptIsEval() ? busyEvalError : busyFunctionError;
}

void scriptKill(client *c, int is_eval) {
    if (current_run == NULL) {
        addReplyError(c, "-NOTBUSY No scripts in execution right now.");
        return;
    }
    if (current_run->flags & SCRIPT_RUN_WRITE_DIRTY) {
        addReplyError(c, "-UNKILLABLE Sorry the script already executed write commands against the "
                         "dataset. You can either wait the script termination or kill the server in a "
                         "hard way using the SHUTDOWN NOSAVE command.");
        return;
    }
    if (is_eval != scriptIsEval()) {
        addReplyErrorObject(c, scriptBusyError());
        return;
    }
    current_run->flags |= SCRIPT_RUN_KILLED;
    addReply(c, shared.ok);
}
