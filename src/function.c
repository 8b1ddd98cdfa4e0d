/* function.c -- Redis 7.0 functions: FUNCTION LOAD / DELETE / FLUSH / LIST /
 * DUMP / RESTORE / STATS / KILL / HELP, FCALL and FCALL_RO, and functions in
 * RDB files and AOF rewrites.
 *
 * A library is Lua code starting with "#!lua name=<lib>"; running it calls
 * redis.register_function for each function it offers. Libraries live in a
 * "library set" (two dicts: library name -> library, function name ->
 * function), so FUNCTION RESTORE and the RDB loader can build a whole set
 * aside and join it to the current one only if every name fits: nothing is
 * ever half loaded.
 *
 * Design decisions:
 * - One Lua state for all libraries (script_lua.c's functions engine),
 *   separate from EVAL's, created with the first library (a server that
 *   has none keeps its footprint). A function is a registry reference to
 *   its callback; deleting a library drops its references, and FUNCTION
 *   FLUSH closes the state.
 * - FUNCTION LOAD / DELETE / FLUSH / RESTORE change the dataset: they count
 *   as writes (server.dirty) and are propagated as sent, as in Redis.
 * - Persistence as Redis 7.0 does it: each library's code as an
 *   RDB_OPCODE_FUNCTION2 string before the keys (rdb.c calls
 *   functionsRdbSave/functionsRdbLoad), a rewritten AOF without RDB preamble
 *   starts with one FUNCTION LOAD per library, and FUNCTION DUMP is those
 *   opcodes followed by the RDB version and a CRC-64, like DUMP's payload,
 *   so dumps and payloads move between this server and Redis both ways.
 */
#include "script_lua.h"
#include "crc64.h"

#include <lauxlib.h>

#include <ctype.h>

#define RDB_OPCODE_FUNCTION2 245

typedef struct functionLib functionLib;

typedef struct functionInfo {
    sds name;
    sds desc;       /* NULL: none */
    uint64_t flags; /* SCRIPT_FLAG_* */
    int ref;        /* the callback, in the Lua registry */
    functionLib *lib;
} functionInfo;

struct functionLib {
    sds name;
    sds code;       /* as loaded, shebang included */
    dict *functions; /* name -> functionInfo (owned) */
};

typedef struct librarySet {
    dict *libraries; /* name -> functionLib (owned) */
    dict *functions; /* name -> functionInfo (the libraries') */
} librarySet;

static struct {
    lua_State *lua;   /* NULL until the first library */
    client *fake;
    librarySet *current;
} functions;

/* ---- libraries and sets ------------------------------------------------------------------ */

static void functionInfoFree(dict *d, void *val) {
    (void)d;
    functionInfo *fi = val;
    if (functions.lua && fi->ref != LUA_NOREF) luaEngineUnref(functions.lua, fi->ref);
    sdsfree(fi->name);
    sdsfree(fi->desc);
    zfree(fi);
}

/* Function names are case-insensitive (Redis 7.0), library names are not. */
static dictType libraryFunctionsDictType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
    .valDestructor = functionInfoFree,
};

static dictType setFunctionsDictType = {
    .hashFunction = dictSdsCaseHash,
    .keyCompare = dictSdsKeyCaseCompare,
};

static void functionLibFree(functionLib *lib) {
    dictRelease(lib->functions);
    sdsfree(lib->name);
    sdsfree(lib->code);
    zfree(lib);
}

static void functionLibDictFree(dict *d, void *val) {
    (void)d;
    if (val) functionLibFree(val); /* NULL: unlinked, still alive (libraryUnlink) */
}

static dictType librariesDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .valDestructor = functionLibDictFree,
};

static librarySet *librarySetCreate(void) {
    librarySet *set = zmalloc(sizeof *set);
    set->libraries = dictCreate(&librariesDictType);
    set->functions = dictCreate(&setFunctionsDictType);
    return set;
}

static void librarySetFree(librarySet *set) {
    if (set == NULL) return;
    dictRelease(set->functions);
    dictRelease(set->libraries);
    zfree(set);
}

static void libraryLink(librarySet *set, functionLib *lib) {
    dictAdd(set->libraries, lib->name, lib);
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        dictAdd(set->functions, fi->name, fi);
    }
    dictReleaseIterator(it);
}

/* Takes lib out of set without freeing it. */
static void libraryUnlink(librarySet *set, functionLib *lib) {
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) dictDelete(set->functions, ((functionInfo *)dictGetVal(de))->name);
    dictReleaseIterator(it);
    dictEntry *le = dictUnlink(set->libraries, lib->name);
    dictSetVal(set->libraries, le, NULL);
    dictFreeUnlinkedEntry(set->libraries, le);
}

static void functionsEnsureEngine(void) {
    if (functions.lua) return;
    functions.lua = luaEngineCreateForFunctions();
    functions.fake = scriptCreateFakeClient();
    if (functions.current == NULL) functions.current = librarySetCreate();
}

static librarySet *currentSet(void) {
    if (functions.current == NULL) functions.current = librarySetCreate();
    return functions.current;
}

/* All libraries gone; the Lua state closed (its references with it). */
static void functionsReset(void) {
    if (functions.current) {
        lua_State *lua = functions.lua;
        functions.lua = NULL; /* the state goes as a whole: no unref one by one */
        librarySetFree(functions.current);
        functions.current = NULL;
        functions.lua = lua;
    }
    if (functions.lua) {
        luaEngineClose(functions.lua);
        freeClient(functions.fake);
        functions.lua = NULL;
        functions.fake = NULL;
    }
}

/* ---- creating a library ---------------------------------------------------------------------- */

static int validName(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++)
        if (!isalnum((unsigned char)s[i]) && s[i] != '_') return 0;
    return 1;
}

static const char *badNameError =
    "Library names can only contain letters, numbers, or underscores(_) and must be at least one character long";

/* "#!<engine> name=<lib>": Redis's parse of the first line. */
static int parseLibraryHeader(sds code, sds *engine, sds *name, size_t *header_len, sds *err) {
    *engine = *name = NULL;
    /* strlen: the line ends at the first NUL too, as Redis's strchr() reads it */
    size_t len = strlen(code);
    if (!scriptHasShebang(code, len)) {
        *err = sdsnew("Missing library metadata");
        return C_ERR;
    }
    int argc;
    sds *parts = scriptSplitFirstLine(code, len, &argc, header_len);
    if (parts == NULL) {
        *err = sdsnew("Invalid library metadata");
        return C_ERR;
    }
    *engine = sdsnew(parts[0] + LITERAL_LEN("#!"));
    for (int j = 1; j < argc && *err == NULL; j++) {
        if (strncasecmp(parts[j], "name=", LITERAL_LEN("name=")) != 0)
            *err = sdscatfmt(sdsempty(), "Invalid metadata value given: %s", parts[j]);
        else if (*name)
            *err = sdsnew("Invalid metadata value, name argument was given multiple times");
        else
            *name = sdsnew(parts[j] + LITERAL_LEN("name="));
    }
    sdsfreesplitres(parts, argc);
    if (*err == NULL && *name == NULL) *err = sdsnew("Library name was not given");
    if (*err == NULL) return C_OK;
    sdsfree(*engine);
    sdsfree(*name);
    *engine = *name = NULL;
    return C_ERR;
}

/* redis.register_function, for the library being loaded. */
static int registerIntoLibrary(void *ud, sds name, int ref, uint64_t flags, sds desc, sds *err) {
    functionLib *lib = ud;
    if (!validName(name, sdslen(name))) {
        *err = sdsnew(badNameError);
        return C_ERR;
    }
    if (dictFind(lib->functions, name)) {
        *err = sdsnew("Function already exists in the library");
        return C_ERR;
    }
    functionInfo *fi = zcalloc(sizeof *fi);
    fi->name = sdsdup(name);
    fi->desc = desc ? sdsdup(desc) : NULL;
    fi->flags = flags;
    fi->ref = ref;
    fi->lib = lib;
    dictAdd(lib->functions, fi->name, fi);
    return C_OK;
}

/* Runs the code into a new library (not linked anywhere yet). */
static functionLib *libraryCompile(sds code, sds name, size_t header_len, sds *err) {
    functionsEnsureEngine();
    functionLib *lib = zcalloc(sizeof *lib);
    lib->name = sdsdup(name);
    lib->code = sdsdup(code);
    lib->functions = dictCreate(&libraryFunctionsDictType);
    if (luaEngineLoadLibrary(functions.lua, code, sdslen(code), header_len, registerIntoLibrary, lib, err) != C_OK) {
        functionLibFree(lib);
        return NULL;
    }
    if (dictSize(lib->functions) == 0) {
        *err = sdsnew("No functions registered");
        functionLibFree(lib);
        return NULL;
    }
    return lib;
}

/* A function of lib already named in set (by another library). */
static functionInfo *functionCollision(librarySet *set, functionLib *lib) {
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    functionInfo *found = NULL;
    while (!found && (de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        if (dictFind(set->functions, fi->name)) found = fi;
    }
    dictReleaseIterator(it);
    return found;
}

/* Creates the library of code in set (replacing one of the same name if
 * replace). Returns its name (the set's), or NULL with *err. */
static sds libraryCreate(librarySet *set, sds code, int replace, sds *err) {
    sds engine, name;
    size_t header_len;
    *err = NULL;
    if (parseLibraryHeader(code, &engine, &name, &header_len, err) != C_OK) return NULL;
    functionLib *old = NULL, *lib = NULL;
    if (!validName(name, sdslen(name))) *err = sdsnew(badNameError);
    else if (strcasecmp(engine, "lua")) *err = sdscatfmt(sdsempty(), "Engine '%S' not found", engine);
    else if ((old = dictFetchValue(set->libraries, name)) && !replace) {
        *err = sdscatfmt(sdsempty(), "Library '%S' already exists", name);
        old = NULL;
    }
    if (*err == NULL) {
        if (old) libraryUnlink(set, old);
        lib = libraryCompile(code, name, header_len, err);
        functionInfo *clash = lib ? functionCollision(set, lib) : NULL;
        if (clash) {
            *err = sdscatfmt(sdsempty(), "Function %S already exists", clash->name);
            functionLibFree(lib);
            lib = NULL;
        }
        if (lib) {
            libraryLink(set, lib);
            if (old) functionLibFree(old);
        } else if (old) {
            libraryLink(set, old);
        }
    }
    sdsfree(engine);
    sdsfree(name);
    return lib ? lib->name : NULL;
}

/* Moves every library of from into to; on a name clash nothing moves and
 * C_ERR says which (replace: a library of the same name is replaced). */
static int librarySetJoin(librarySet *to, librarySet *from, int replace, sds *err) {
    dictIterator *it = dictGetIterator(from->libraries);
    dictEntry *de;
    list *replaced = listCreate();
    *err = NULL;
    while (*err == NULL && (de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        functionLib *old = dictFetchValue(to->libraries, lib->name);
        if (old && !replace) *err = sdscatfmt(sdsempty(), "Library %S already exists", lib->name);
        else if (old) {
            libraryUnlink(to, old);
            listAddNodeTail(replaced, old);
        }
    }
    dictReleaseIterator(it);
    it = dictGetIterator(from->libraries);
    while (*err == NULL && (de = dictNext(it))) {
        functionInfo *clash = functionCollision(to, dictGetVal(de));
        if (clash) *err = sdscatfmt(sdsempty(), "Function %S already exists", clash->name);
    }
    dictReleaseIterator(it);
    listIter li;
    listNode *ln;
    listRewind(replaced, &li);
    while ((ln = listNext(&li))) {
        if (*err) libraryLink(to, listNodeValue(ln)); /* put back */
        else functionLibFree(listNodeValue(ln));
    }
    listRelease(replaced);
    if (*err) return C_ERR;
    it = dictGetSafeIterator(from->libraries);
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        libraryUnlink(from, lib);
        libraryLink(to, lib);
    }
    dictReleaseIterator(it);
    return C_OK;
}

/* ---- FCALL ---------------------------------------------------------------------------------- */

static int isFcall(redisCommand *cmd) { return cmd->proc == fcallCommand || cmd->proc == fcallroCommand; }

/* processCommand(): FCALL has its function's flags. */
SCRIPT_RESIDENT uint64_t fcallCommandFlags(client *c, uint64_t cmd_flags) {
    if (!isFcall(c->cmd) || c->argc < 2 || functions.current == NULL) return cmd_flags;
    functionInfo *fi = dictFetchValue(functions.current->functions, c->argv[1]->ptr);
    if (fi == NULL) return cmd_flags;
    return scriptFlagsToCmdFlags(cmd_flags, fi->flags);
}

static void fcallGeneric(client *c, int read_only) {
    feedMonitors(c, c->argv, c->argc);
    preventCommandPropagation(c);
    functionInfo *fi = functions.current ? dictFetchValue(functions.current->functions, c->argv[1]->ptr) : NULL;
    if (fi == NULL) {
        addReplyError(c, "Function not found");
        return;
    }
    long long numkeys;
    if (getLongLongFromObject(c->argv[2], &numkeys) != C_OK) {
        addReplyError(c, "Bad number of keys provided");
        return;
    }
    if (numkeys > c->argc - 3) {
        addReplyError(c, "Number of keys can't be greater than number of args");
        return;
    }
    if (numkeys < 0) {
        addReplyError(c, "Number of keys can't be negative");
        return;
    }
    scriptRunCtx ctx;
    if (scriptPrepareRun(&ctx, functions.fake, c, fi->name, fi->flags, read_only) != C_OK) return;
    luaEngineRunFunction(&ctx, functions.lua, fi->ref, c->argv + 3, (int)numkeys, c->argv + 3 + numkeys,
                         c->argc - 3 - (int)numkeys);
    scriptResetRun(&ctx);
}

void fcallCommand(client *c) { fcallGeneric(c, 0); }
void fcallroCommand(client *c) { fcallGeneric(c, 1); }

/* ---- FUNCTION subcommands ------------------------------------------------------------------ */

static void functionLoad(client *c) {
    int replace = 0;
    for (int j = 2; j < c->argc - 1; j++) {
        if (strcasecmp(c->argv[j]->ptr, "replace")) {
            addReplyErrorFormat(c, "Unknown option given: %s", (char *)c->argv[j]->ptr);
            return;
        }
        replace = 1;
    }
    sds err;
    sds name = libraryCreate(currentSet(), c->argv[c->argc - 1]->ptr, replace, &err);
    if (name == NULL) {
        addReplyErrorSds(c, err);
        return;
    }
    server.dirty++;
    addReplyBulkCBuffer(c, name, sdslen(name));
}

static void functionDelete(client *c) {
    functionLib *lib = functions.current ? dictFetchValue(functions.current->libraries, c->argv[2]->ptr) : NULL;
    if (lib == NULL) {
        addReplyError(c, "Library not found");
        return;
    }
    libraryUnlink(functions.current, lib);
    functionLibFree(lib);
    server.dirty++;
    addReply(c, shared.ok);
}

static void functionFlush(client *c) {
    if (c->argc == 3 && strcasecmp(c->argv[2]->ptr, "sync") && strcasecmp(c->argv[2]->ptr, "async")) {
        addReplyError(c, "FUNCTION FLUSH only supports SYNC|ASYNC option");
        return;
    }
    if (c->argc > 3) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    functionsReset();
    server.dirty++;
    addReply(c, shared.ok);
}

static void replyFunctionFlags(client *c, uint64_t flags) {
    int n = 0;
    uint64_t flag;
    for (int j = 0; scriptFlagName(j, &flag); j++)
        if (flags & flag) n++;
    addReplySetLen(c, n);
    const char *name;
    for (int j = 0; (name = scriptFlagName(j, &flag)); j++)
        if (flags & flag) addReplyStatus(c, name);
}

static void replyLibrary(client *c, functionLib *lib, int with_code) {
    addReplyMapLen(c, with_code ? 4 : 3);
    addReplyBulkCString(c, "library_name");
    addReplyBulkCBuffer(c, lib->name, sdslen(lib->name));
    addReplyBulkCString(c, "engine");
    addReplyBulkCString(c, "LUA");
    addReplyBulkCString(c, "functions");
    addReplyArrayLen(c, (long)dictSize(lib->functions));
    dictIterator *it = dictGetIterator(lib->functions);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionInfo *fi = dictGetVal(de);
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCBuffer(c, fi->name, sdslen(fi->name));
        addReplyBulkCString(c, "description");
        if (fi->desc) addReplyBulkCBuffer(c, fi->desc, sdslen(fi->desc));
        else addReplyNull(c);
        addReplyBulkCString(c, "flags");
        replyFunctionFlags(c, fi->flags);
    }
    dictReleaseIterator(it);
    if (with_code) {
        addReplyBulkCString(c, "library_code");
        addReplyBulkCBuffer(c, lib->code, sdslen(lib->code));
    }
}

static void functionList(client *c) {
    int with_code = 0;
    sds pattern = NULL;
    for (int j = 2; j < c->argc; j++) {
        if (!with_code && !strcasecmp(c->argv[j]->ptr, "withcode")) {
            with_code = 1;
        } else if (!pattern && !strcasecmp(c->argv[j]->ptr, "libraryname")) {
            if (j == c->argc - 1) {
                addReplyError(c, "library name argument was not given");
                return;
            }
            pattern = c->argv[++j]->ptr;
        } else {
            addReplyErrorSds(c, sdscatfmt(sdsempty(), "Unknown argument %s", (char *)c->argv[j]->ptr));
            return;
        }
    }
    librarySet *set = currentSet();
    void *len = addReplyDeferredLen(c);
    long n = 0;
    dictIterator *it = dictGetIterator(set->libraries);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        if (pattern && !stringmatchlen(pattern, (int)sdslen(pattern), lib->name, (int)sdslen(lib->name), 1)) continue;
        replyLibrary(c, lib, with_code);
        n++;
    }
    dictReleaseIterator(it);
    setDeferredArrayLen(c, len, n);
}

static void functionStats(client *c) {
    scriptRunCtx *run = scriptCurrentRun();
    if (run && scriptIsEval()) { /* a busy EVAL: the -BUSY of EVAL, as Redis */
        addReplyErrorObject(c, scriptBusyError());
        return;
    }
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "running_script");
    if (run == NULL) {
        addReplyNull(c);
    } else {
        addReplyMapLen(c, 3);
        addReplyBulkCString(c, "name");
        addReplyBulkCString(c, run->funcname);
        addReplyBulkCString(c, "command");
        addReplyArrayLen(c, run->caller->argc);
        for (int j = 0; j < run->caller->argc; j++) addReplyBulk(c, run->caller->argv[j]);
        addReplyBulkCString(c, "duration_ms");
        addReplyLongLong(c, (monotonicUs() - run->start_us) / 1000);
    }
    addReplyBulkCString(c, "engines");
    addReplyMapLen(c, 1);
    addReplyBulkCString(c, "LUA");
    addReplyMapLen(c, 2);
    addReplyBulkCString(c, "libraries_count");
    addReplyLongLong(c, functions.current ? (long long)dictSize(functions.current->libraries) : 0);
    addReplyBulkCString(c, "functions_count");
    addReplyLongLong(c, functions.current ? (long long)dictSize(functions.current->functions) : 0);
}

static void functionHelp(client *c) {
    static const char *help[] = {
        "LOAD [REPLACE] <FUNCTION CODE>",
        "    Create a new library with the given library name and code.",
        "DELETE <LIBRARY NAME>",
        "    Delete the given library.",
        "LIST [LIBRARYNAME PATTERN] [WITHCODE]",
        "    Return general information on all the libraries:",
        "    * Library name",
        "    * The engine used to run the Library",
        "    * Library description",
        "    * Functions list",
        "    * Library code (if WITHCODE is given)",
        "    It also possible to get only function that matches a pattern using LIBRARYNAME argument.",
        "STATS",
        "    Return information about the current function running:",
        "    * Function name",
        "    * Command used to run the function",
        "    * Duration in MS that the function is running",
        "    If no function is running, return nil",
        "    In addition, returns a list of available engines.",
        "KILL",
        "    Kill the current running function.",
        "FLUSH [ASYNC|SYNC]",
        "    Delete all the libraries.",
        "    When called without the optional mode argument, the behavior is determined by the",
        "    lazyfree-lazy-user-flush configuration directive. Valid modes are:",
        "    * ASYNC: Asynchronously flush the libraries.",
        "    * SYNC: Synchronously flush the libraries.",
        "DUMP",
        "    Return a serialized payload representing the current libraries, can be restored using FUNCTION RESTORE command",
        "RESTORE <PAYLOAD> [FLUSH|APPEND|REPLACE]",
        "    Restore the libraries represented by the given payload, it is possible to give a restore policy to",
        "    control how to handle existing libraries (default APPEND):",
        "    * FLUSH: delete all existing libraries.",
        "    * APPEND: appends the restored libraries to the existing libraries. On collision, abort.",
        "    * REPLACE: appends the restored libraries to the existing libraries, On collision, replace the old",
        "      libraries with the new libraries (notice that even on this option there is a chance of failure",
        "      in case of functions name collision with another library).",
        NULL};
    addReplyHelp(c, help);
}

/* ---- DUMP / RESTORE and persistence ------------------------------------------------------ */

/* Each library as RDB_OPCODE_FUNCTION2 + its code as an RDB string. */
SCRIPT_RESIDENT sds functionsSerialize(void) {
    sds out = sdsempty();
    if (functions.current == NULL) return out;
    dictIterator *it = dictGetIterator(functions.current->libraries);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        unsigned char op = RDB_OPCODE_FUNCTION2;
        out = sdscatlen(out, &op, 1);
        sds s = rdbEncodeString(lib->code, sdslen(lib->code));
        out = sdscatsds(out, s);
        sdsfree(s);
    }
    dictReleaseIterator(it);
    return out;
}

static void functionDump(client *c) {
    sds payload = functionsSerialize();
    unsigned char footer[10];
    store16le(footer, RDB_VERSION);
    payload = sdscatlen(payload, footer, 2);
    store64le(footer + 2, crc64(0, (unsigned char *)payload, sdslen(payload)));
    payload = sdscatlen(payload, footer + 2, 8);
    addReplyBulkSds(c, payload);
}

/* Loads the libraries of a FUNCTION DUMP payload (opcode + string ...,
 * then the 10-byte footer) into set; stops at the first error. As in
 * Redis, a string may run into the footer: only what starts before it is
 * read as a library. */
static int functionsDeserialize(librarySet *set, const unsigned char *p, size_t len, int replace, sds *err) {
    size_t pos = 0;
    while (len - pos > 10) {
        size_t used;
        sds code = rdbDecodeFunction(p + pos, len - pos, &used, err);
        if (code == NULL) return C_ERR;
        pos += used;
        sds name = libraryCreate(set, code, replace, err);
        sdsfree(code);
        if (name == NULL) return C_ERR;
    }
    return C_OK;
}

static int payloadFooterValid(const unsigned char *p, size_t len) {
    if (len < 10) return 0;
    uint16_t version = load16le(p + len - 10);
    if (version > RDB_MAX_READ_VERSION) return 0;
    if (server.skip_checksum_validation) return 1;
    uint64_t crc = load64le(p + len - 8);
    return crc == crc64(0, p, len - 8);
}

static void functionRestore(client *c) {
    if (c->argc > 4) {
        addReplySubcommandSyntaxError(c);
        return;
    }
    int policy_flush = 0, policy_replace = 0;
    if (c->argc == 4) {
        const char *policy = c->argv[3]->ptr;
        if (!strcasecmp(policy, "flush")) policy_flush = 1;
        else if (!strcasecmp(policy, "replace")) policy_replace = 1;
        else if (strcasecmp(policy, "append")) {
            addReplyError(c, "Wrong restore policy given, value should be either FLUSH, APPEND or REPLACE.");
            return;
        }
    }
    sds data = c->argv[2]->ptr;
    if (!payloadFooterValid((unsigned char *)data, sdslen(data))) {
        addReplyError(c, "DUMP payload version or checksum are wrong");
        return;
    }
    functionsEnsureEngine();
    librarySet *staged = librarySetCreate();
    sds err = NULL;
    if (functionsDeserialize(staged, (unsigned char *)data, sdslen(data), 0, &err) == C_OK) {
        if (policy_flush) {
            librarySetFree(functions.current);
            functions.current = staged;
            staged = NULL;
        } else {
            librarySetJoin(functions.current, staged, policy_replace, &err);
        }
    }
    librarySetFree(staged);
    if (err) {
        addReplyErrorSds(c, err);
        return;
    }
    server.dirty++;
    addReply(c, shared.ok);
}

void functionCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "load")) functionLoad(c);
    else if (!strcasecmp(sub, "delete")) functionDelete(c);
    else if (!strcasecmp(sub, "flush")) functionFlush(c);
    else if (!strcasecmp(sub, "list")) functionList(c);
    else if (!strcasecmp(sub, "stats")) functionStats(c);
    else if (!strcasecmp(sub, "kill")) scriptKill(c, 0);
    else if (!strcasecmp(sub, "dump")) functionDump(c);
    else if (!strcasecmp(sub, "restore")) functionRestore(c);
    else if (!strcasecmp(sub, "help")) functionHelp(c);
    else addReplySubcommandSyntaxError(c);
}

/* rdb.c, loading: one library's code from an RDB_OPCODE_FUNCTION2; a
 * library of the same name is an error unless replace (DEBUG RELOAD
 * MERGE). C_ERR with *err stops the load. */
int functionsLoadLibraryCode(sds code, int replace, sds *err) {
    sds name = libraryCreate(currentSet(), code, replace, err);
    return name ? C_OK : C_ERR;
}

/* DEBUG RELOAD and a replica's full sync, before loading the dump: no
 * library left (the dump brings its own; one of the same name would make
 * the load fail with "Library ... already exists"). */
void functionsFlushAll(void) { functionsReset(); }

/* A replica's swapdb load sets the libraries aside with the keys: the
 * whole engine (Lua state, its client, the set) moves into the stash, so
 * the load starts from no library, and comes back if the load fails. */
struct functionsStash {
    lua_State *lua;
    client *fake;
    librarySet *current;
};

/* Exchanges the current engine with the one in st. */
static void engineSwap(struct functionsStash *st) {
    struct functionsStash cur = {functions.lua, functions.fake, functions.current};
    functions.lua = st->lua;
    functions.fake = st->fake;
    functions.current = st->current;
    *st = cur;
}

/* An empty stash: swapped with the current engine, the load starts from
 * no library (the engine is created on first use). */
struct functionsStash *functionsStashEmpty(void) { return zcalloc(sizeof(struct functionsStash)); }

void functionsSwapStash(struct functionsStash *st) { engineSwap(st); }

/* Frees the libraries a stash holds (the set-aside ones after a load that
 * completed, or the half-loaded ones swapped back into it). */
void functionsDropStash(struct functionsStash *st) {
    if (st == NULL) return;
    engineSwap(st); /* reset it while it is the current one */
    functionsReset();
    engineSwap(st);
    zfree(st);
}

/* The FUNCTION LOAD commands of a rewritten AOF, as RESP. */
SCRIPT_RESIDENT sds functionsAofCommands(void) {
    sds out = sdsempty();
    if (functions.current == NULL) return out;
    dictIterator *it = dictGetIterator(functions.current->libraries);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        out = sdscatfmt(out, "*3\r\n$8\r\nFUNCTION\r\n$4\r\nLOAD\r\n$%U\r\n", (unsigned long long)sdslen(lib->code));
        out = sdscatlen(out, lib->code, sdslen(lib->code));
        out = sdscatlen(out, "\r\n", 2);
    }
    dictReleaseIterator(it);
    return out;
}

/* ---- INFO ------------------------------------------------------------------------------------ */

SCRIPT_RESIDENT size_t functionsMemoryLua(void) { return luaEngineMemory(functions.lua); }
SCRIPT_RESIDENT unsigned long functionsCount(void) {
    return functions.current ? dictSize(functions.current->functions) : 0;
}
SCRIPT_RESIDENT unsigned long functionsLibraryCount(void) {
    return functions.current ? dictSize(functions.current->libraries) : 0;
}

SCRIPT_RESIDENT size_t functionsMemoryOverhead(void) {
    if (functions.current == NULL) return 0;
    size_t bytes = 0;
    dictIterator *it = dictGetIterator(functions.current->libraries);
    dictEntry *de;
    while ((de = dictNext(it))) {
        functionLib *lib = dictGetVal(de);
        bytes += sizeof(*lib) + sdslen(lib->code) + sdslen(lib->name) + dictSize(lib->functions) * sizeof(functionInfo);
    }
    dictReleaseIterator(it);
    return bytes;
}
