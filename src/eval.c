/* eval.c -- EVAL, EVALSHA, EVAL_RO, EVALSHA_RO and SCRIPT: Lua scripts sent
 * by clients, kept in a cache named by the SHA-1 of their body.
 *
 * Design decisions:
 * - The Lua state (script_lua.c) and the fake client that runs the
 *   scripts' commands are created by the first script (EVAL or SCRIPT
 *   LOAD): a server that runs none keeps its footprint. SCRIPT FLUSH
 *   closes the state and drops the cache; the next script starts afresh.
 * - Each cached body is compiled once and kept in the Lua registry under
 *   a reference number held by its cache entry, so EVALSHA is one array
 *   read (Redis names it "f_<sha>" instead: a string and a hash node more
 *   per script in the Lua heap, see luaEngineCompile). The cache
 *   (sha -> body and its shebang flags) is what SCRIPT EXISTS answers
 *   and what processCommand() asks for the script's flags
 *   (evalCommandFlags), so a "#!lua" script that may write is refused
 *   under OOM or MISCONF before it starts, as a write command would be.
 * - An EVAL is never propagated itself: the commands it ran are
 *   (script.c), so EVAL marks itself not to be propagated.
 * - SCRIPT FLUSH and SCRIPT LOAD are not propagated (Redis 7.0 replicates
 *   scripts by their effects only).
 * - SCRIPT DEBUG YES|SYNC flags the client; its next EVAL (or EVAL_RO) is a
 *   debugging session (ldb.c), started before anything else of the EVAL is
 *   checked, as 7.0 does: a bad numkeys or a compile error then comes after
 *   "<endsession>". EVALSHA is refused while debugging (7.0's rule: the
 *   debugger shows the source it was sent).
 */
#include "script_lua.h"
#include "ldb.h"
#include "sha1.h"
#include "util.h"

typedef struct evalScript {
    sds body;
    uint64_t flags; /* SCRIPT_FLAG_*, from the shebang */
    int ref;        /* the compiled function in the Lua registry */
} evalScript;

static void evalScriptFree(dict *d, void *val) {
    (void)d;
    evalScript *es = val;
    sdsfree(es->body);
    zfree(es);
}

static dictType evalScriptsDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
    .valDestructor = evalScriptFree,
};

static struct {
    lua_State *lua;    /* NULL until the first script */
    client *fake;      /* runs the scripts' redis.call commands */
    dict *scripts;     /* sha (40 lower-case hex digits) -> evalScript */
    size_t scripts_bytes; /* the entries' memory, for INFO used_memory_scripts_eval */
    sds lookup_key;    /* 40 bytes reused by every lookup (evalFindScript) */
} eval_state;

/* ---- the engine, created on first use --------------------------------------------------- */

static void evalEnsureEngine(void) {
    if (eval_state.lua) return;
    eval_state.lua = luaEngineCreate();
    eval_state.fake = scriptCreateFakeClient();
    eval_state.scripts = dictCreate(&evalScriptsDictType);
    eval_state.scripts_bytes = 0;
    eval_state.lookup_key = sdsnewlen(NULL, SHA1_HEX_LEN);
}

static void evalReset(void) {
    if (eval_state.lua == NULL) return;
    luaEngineClose(eval_state.lua);
    freeClient(eval_state.fake);
    dictRelease(eval_state.scripts);
    sdsfree(eval_state.lookup_key);
    memset(&eval_state, 0, sizeof eval_state);
}

/* What INFO counts for one cached script, in Redis 7.0's terms (its dict
 * entry, its key, its body as an object and a string). */
static size_t scriptEntryBytes(sds key, sds body) {
    return sdsMemoryUsage(key) + 3 * sizeof(void *) + sizeof(robj) + sdsMemoryUsage(body);
}

/* Compiles and caches body under sha; C_ERR with *err on a bad shebang or
 * a compile error. */
static int evalCacheScript(const char *sha, sds body, sds *err) {
    uint64_t flags;
    size_t shebang_len;
    if (scriptParseShebang(body, sdslen(body), &flags, &shebang_len, err) != C_OK) return C_ERR;
    int ref;
    if (luaEngineCompile(eval_state.lua, body, sdslen(body), shebang_len, &ref, err) != C_OK) return C_ERR;
    evalScript *es = zmalloc(sizeof *es);
    es->body = sdsdup(body);
    es->flags = flags;
    es->ref = ref;
    sds key = sdsnewlen(sha, SHA1_HEX_LEN);
    dictAdd(eval_state.scripts, key, es);
    eval_state.scripts_bytes += scriptEntryBytes(key, es->body);
    return C_OK;
}

/* The entry of a sha given in any case (SHA1_HEX_LEN bytes), or NULL.
 * Every EVALSHA looks its script up twice (its flags in processCommand,
 * then the run), so this allocates nothing: the digits are lowered into a
 * key kept for lookups. */
static dictEntry *evalFindEntry(const char *sha) {
    if (eval_state.lua == NULL) return NULL;
    memLowerAscii(eval_state.lookup_key, sha, SHA1_HEX_LEN);
    return dictFind(eval_state.scripts, eval_state.lookup_key);
}

static evalScript *evalFindScript(const char *sha) {
    dictEntry *de = evalFindEntry(sha);
    return de ? dictGetVal(de) : NULL;
}

/* The body's sha, compiling and caching it first if it is new. */
static int evalLoadBody(client *c, sds body, char sha[SHA1_HEX_LEN + 1]) {
    sha1Hex(sha, body, sdslen(body));
    evalEnsureEngine();
    if (evalFindScript(sha)) return C_OK;
    sds err = NULL;
    if (evalCacheScript(sha, body, &err) == C_OK) return C_OK;
    addReplyErrorSds(c, err);
    return C_ERR;
}

/* ---- EVAL family ----------------------------------------------------------------------- */

static int isEvalCommand(redisCommand *cmd) {
    return cmd->proc == evalCommand || cmd->proc == evalRoCommand || cmd->proc == evalShaCommand ||
           cmd->proc == evalShaRoCommand;
}

static int isEvalSha(redisCommand *cmd) { return cmd->proc == evalShaCommand || cmd->proc == evalShaRoCommand; }

/* processCommand(): the flags of an EVAL are its script's, when the script
 * declared some (a body not cached yet is read for its shebang). */
SCRIPT_RESIDENT uint64_t evalCommandFlags(client *c, uint64_t cmd_flags) {
    if (!isEvalCommand(c->cmd) || c->argc < 2) return cmd_flags;
    sds arg = c->argv[1]->ptr;
    uint64_t script_flags;
    if (isEvalSha(c->cmd)) {
        if (sdslen(arg) != SHA1_HEX_LEN) return cmd_flags;
        evalScript *es = evalFindScript(arg);
        if (es == NULL) return cmd_flags;
        script_flags = es->flags;
    } else {
        char sha[SHA1_HEX_LEN + 1];
        sha1Hex(sha, arg, sdslen(arg));
        evalScript *es = evalFindScript(sha);
        size_t shebang_len;
        sds err = NULL;
        if (es) {
            script_flags = es->flags;
        } else if (scriptParseShebang(arg, sdslen(arg), &script_flags, &shebang_len, &err) != C_OK) {
            sdsfree(err);
            return cmd_flags;
        }
    }
    return scriptFlagsToCmdFlags(cmd_flags, script_flags);
}

static int parseNumkeys(client *c, long long *numkeys) {
    if (getLongLongFromObjectOrReply(c, c->argv[2], numkeys, NULL) != C_OK) return C_ERR;
    if (*numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return C_ERR;
    }
    if (*numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return C_ERR;
    }
    return C_OK;
}

static void evalRun(client *c, int evalsha, int read_only) {
    long long numkeys;
    char sha[SHA1_HEX_LEN + 1];
    if (parseNumkeys(c, &numkeys) != C_OK) return;
    evalScript *es;
    if (evalsha) {
        dictEntry *de = sdslen(c->argv[1]->ptr) == SHA1_HEX_LEN ? evalFindEntry(c->argv[1]->ptr) : NULL;
        if (de == NULL) {
            addReplyErrorObject(c, shared.noscripterr);
            return;
        }
        es = dictGetVal(de);
        memcpy(sha, dictGetKey(de), SHA1_HEX_LEN); /* the digits in lower case, as stored */
        sha[SHA1_HEX_LEN] = '\0';
    } else if (evalLoadBody(c, c->argv[1]->ptr, sha) != C_OK) {
        return;
    } else {
        es = evalFindScript(sha);
    }
    scriptRunCtx ctx;
    if (scriptPrepareRun(&ctx, eval_state.fake, c, sha, es->flags, read_only) != C_OK) return;
    ctx.flags |= SCRIPT_RUN_EVAL_MODE;
    luaEngineRunEval(&ctx, eval_state.lua, es->ref, c->argv + 3, (int)numkeys, c->argv + 3 + numkeys,
                     c->argc - 3 - (int)numkeys);
    scriptResetRun(&ctx);
}

/* The EVAL of a client that asked for SCRIPT DEBUG. */
static void evalDebugged(client *c, int evalsha, int read_only) {
    if (evalsha) {
        if (sdslen(c->argv[1]->ptr) != SHA1_HEX_LEN) addReplyErrorObject(c, shared.noscripterr);
        else addReplyError(c, "Please use EVAL instead of EVALSHA for debugging");
        return;
    }
    if (!ldbStartSession(c)) { /* the parent of a forked session, or no fork */
        ldbDisable(c);
        return;
    }
    evalRun(c, 0, read_only);
    ldbEndSession(c); /* a forked session's child exits there */
}

static void evalGeneric(client *c, int evalsha, int read_only) {
    preventCommandPropagation(c); /* its commands are, not the script */
    feedMonitors(c, c->argv, c->argc); /* before its commands (EVAL is skip-monitor in call()) */
    if (c->flags & CLIENT_LUA_DEBUG) evalDebugged(c, evalsha, read_only);
    else evalRun(c, evalsha, read_only);
}

void evalCommand(client *c) { evalGeneric(c, 0, 0); }
void evalRoCommand(client *c) { evalGeneric(c, 0, 1); }
void evalShaCommand(client *c) { evalGeneric(c, 1, 0); }
void evalShaRoCommand(client *c) { evalGeneric(c, 1, 1); }

/* ---- SCRIPT ------------------------------------------------------------------------------ */

static void scriptHelp(client *c) {
    static const char *help[] = {
        "DEBUG (YES|SYNC|NO)",
        "    Set the debug mode for subsequent scripts executed.",
        "EXISTS <sha1> [<sha1> ...]",
        "    Return information about the existence of the scripts in the script cache.",
        "FLUSH [ASYNC|SYNC]",
        "    Flush the Lua scripts cache. Very dangerous on replicas.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the scripts cache.",
        "    * SYNC: Synchronously flush the scripts cache.",
        "KILL",
        "    Kill the currently executing Lua script.",
        "LOAD <script>",
        "    Load a script into the scripts cache without executing it.",
        NULL};
    addReplyHelp(c, help);
}

/* ASYNC or SYNC: the state is closed at once either way (there is no lazy
 * free thread for it); the reply is the same. */
static void scriptFlush(client *c) {
    if (c->argc == 3 && strcasecmp(c->argv[2]->ptr, "sync") && strcasecmp(c->argv[2]->ptr, "async")) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    if (c->argc > 3) {
        addReplyError(c, "SCRIPT FLUSH only support SYNC|ASYNC option");
        return;
    }
    evalReset();
    addReply(c, shared.ok);
}

static void scriptExists(client *c) {
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        sds sha = c->argv[j]->ptr;
        addReply(c, sdslen(sha) == SHA1_HEX_LEN && evalFindScript(sha) ? shared.cone : shared.czero);
    }
}

static void scriptLoad(client *c) {
    char sha[SHA1_HEX_LEN + 1];
    if (evalLoadBody(c, c->argv[2]->ptr, sha) != C_OK) return;
    addReplyBulkCBuffer(c, sha, SHA1_HEX_LEN);
}

/* SCRIPT DEBUG YES|SYNC|NO: the session needs the client's socket to
 * itself, so nothing may be owed to it before (a pipeline, EXEC's array);
 * a shared-memory client has no socket to block on. */
static void scriptDebug(client *c) {
    const char *mode = c->argv[2]->ptr;
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SCRIPT DEBUG must be called outside a pipeline");
        return;
    }
    int sync = !strcasecmp(mode, "sync");
    if (!strcasecmp(mode, "no")) {
        ldbDisable(c);
    } else if (!sync && strcasecmp(mode, "yes")) {
        addReplyError(c, "Use SCRIPT DEBUG YES/SYNC/NO");
        return;
    } else if (c->conn == NULL || !strcmp(connGetType(c->conn), "shm")) {
        addReplyError(c, "SCRIPT DEBUG needs a socket connection (not shared memory)");
        return;
    } else {
        ldbEnable(c, sync);
    }
    addReply(c, shared.ok);
}

void scriptCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) scriptHelp(c);
    else if (!strcasecmp(sub, "flush")) scriptFlush(c);
    else if (!strcasecmp(sub, "exists")) scriptExists(c);
    else if (!strcasecmp(sub, "load")) scriptLoad(c);
    else if (!strcasecmp(sub, "kill")) scriptKill(c, 1);
    else if (!strcasecmp(sub, "debug")) scriptDebug(c);
    else addReplySubcommandSyntaxError(c);
}

/* ---- INFO ------------------------------------------------------------------------------- */

SCRIPT_RESIDENT size_t evalMemoryLua(void) { return luaEngineMemory(eval_state.lua); }

/* The cache, counted as Redis 7.0 counts it: per script its dict entry,
 * its sha key and its body (an object and its string), plus the buckets. */
SCRIPT_RESIDENT size_t evalMemoryScripts(void) {
    if (eval_state.scripts == NULL) return 0;
    return eval_state.scripts_bytes + dictSlots(eval_state.scripts) * sizeof(void *);
}


SCRIPT_RESIDENT unsigned long evalCachedScripts(void) { return eval_state.scripts ? dictSize(eval_state.scripts) : 0; }
