/* ldb.c -- the Lua debugger (LDB) of Redis 7.0: SCRIPT DEBUG YES|SYNC makes
 * the client's next EVAL run step by step, the client sending debugger
 * commands (step, continue, list, print, break, eval, redis, trace, maxlen,
 * abort) and reading back arrays of status lines, until "<endsession>" and
 * the EVAL's reply; the connection is then closed, as Redis closes it.
 *
 * Design decisions:
 * - The session runs inside the EVAL, in the Lua line hook (ldbLineHook):
 *   the client's socket is switched to blocking and read and written
 *   directly, so the debugger needs no re-entry into the event loop.
 *   Nothing else is served meanwhile: in SYNC mode the whole server waits
 *   for the debugging client, which is why YES forks.
 * - YES forks (ldbStartSession): the child runs the script and exits after
 *   the reply, so its writes are lost with it; the parent forgets the client
 *   (closing its copy of the socket, which the child keeps open) and reaps
 *   the child from a timer of its own. The child keeps no listening socket.
 *   SYNC runs the script in the server itself: its writes stay.
 * - The lines go out as Redis 7.0 writes them: one array of status replies
 *   per stop or command ("* Stopped at 2, stop reason = step over",
 *   "-> 2   code", "<redis> ...", "<reply> ...", "<value> ..."), CR and LF
 *   inside a line turned into spaces. Replies and values longer than maxlen
 *   (256 by default) are cut, with a hint the first time.
 * - Commands come as RESP arrays of bulk strings (at most 1024 of at most
 *   1024 bytes: anything else is a protocol error, which ends the script with
 *   "protocol error"); names compare whole, so a name with a NUL byte in it
 *   is unknown. Unlike 7.0, bytes after a command stay for the next one.
 * - Differences from 7.0 that only its bugs show: a breakpoint removed keeps
 *   the others intact (7.0 moves them as bytes); an error that is a table
 *   (redis.call's, in `eval`) is shown by its message (7.0 crashes); the
 *   current line is the script's own, not that of code run by `eval`.
 */
#include "ldb.h"
#include "script_lua.h"
#include "snapshot.h"

#include <errno.h>
#include <lauxlib.h>
#include <signal.h>
#include <sys/wait.h>

#define LDB_BREAKPOINTS_MAX 64
#define LDB_MAXLEN_DEFAULT 256    /* replies and values are cut past this */
#define LDB_MAXLEN_MIN 60         /* maxlen below this (but not 0) means this */
#define LDB_MAX_ARGS 1024         /* a debugger command's arguments */
#define LDB_MAX_ARG_LEN 1024      /* ... and their length */
#define LDB_MAX_INPUT (1 << 20)   /* unparsed input past this ends the script */
#define LDB_SEND_TIMEOUT_MS 5000
#define LDB_DEFAULT_TIMEOUT_MS 5000 /* a run with no stop this long stops (busy-reply-threshold if set) */
#define LDB_REAP_PERIOD_MS 100

static struct {
    connection *conn; /* the debugging client's, while a session runs */
    int active;
    int forked;
    int step;  /* stop at the next line */
    int luabp; /* redis.breakpoint() was called: stop at the next line */
    int bp[LDB_BREAKPOINTS_MAX];
    int bpcount;
    sds *src; /* the script's lines */
    int lines;
    int currentline;
    sds logs; /* lines waiting to be sent, as RESP status lines */
    int nlogs;
    sds input; /* what the client sent that no command was parsed from yet */
    int maxlen;
    int maxlen_hint_sent;
} ldb;

static struct {
    pid_t *pids;
    int count;
    long long timer; /* reaps them; -1 when there are none */
} ldb_children = {NULL, 0, -1};

int ldbActive(void) { return ldb.active; }
int ldbLogging(void) { return ldb.active && ldb.step; }

void ldbEnable(client *c, int sync) {
    c->flags |= CLIENT_LUA_DEBUG;
    if (sync) c->flags |= CLIENT_LUA_DEBUG_SYNC;
    else c->flags &= ~CLIENT_LUA_DEBUG_SYNC;
}

void ldbDisable(client *c) { c->flags &= ~(CLIENT_LUA_DEBUG | CLIENT_LUA_DEBUG_SYNC); }

/* ---- the lines sent to the client ------------------------------------------------------------ */

/* Queues one line (taking it over). */
static void logLine(sds line) {
    if (ldb.logs == NULL) ldb.logs = sdsempty();
    sdsmapchars(line, "\r\n", "  ", 2);
    ldb.logs = sdscatlen(ldb.logs, "+", 1);
    ldb.logs = sdscatsds(ldb.logs, line);
    ldb.logs = sdscatlen(ldb.logs, "\r\n", 2);
    ldb.nlogs++;
    sdsfree(line);
}

/* A reply or a value: cut at maxlen, with a hint the first time. */
static void logLineCut(sds line) {
    int cut = ldb.maxlen && sdslen(line) > (size_t)ldb.maxlen;
    if (cut) {
        sdsrange(line, 0, ldb.maxlen - 1);
        line = sdscatlen(line, " ...", 4);
    }
    logLine(line);
    if (cut && !ldb.maxlen_hint_sent) {
        ldb.maxlen_hint_sent = 1;
        logLine(sdsnew("<hint> The above reply was trimmed. Use 'maxlen 0' to disable trimming."));
    }
}

/* The value on top of the stack, after prefix (not popped). */
static void logValue(lua_State *lua, const char *prefix) { logLineCut(ldbCatLuaValue(sdsnew(prefix), lua, -1)); }

/* The queued lines as one array; a failed write shows at the next read. */
static void sendLogs(void) {
    sds out = sdscatfmt(sdsempty(), "*%i\r\n", ldb.nlogs);
    if (ldb.logs) out = sdscatsds(out, ldb.logs);
    if (connWrite(ldb.conn, out, sdslen(out)) == -1) {
        /* the next connRead() ends the session's input */
    }
    sdsfree(out);
    sdsclear(ldb.logs);
    ldb.nlogs = 0;
}

void ldbLogRedisCommand(robj **argv, int argc) {
    sds line = sdsnew("<redis>");
    for (int j = 0; j < argc; j++) {
        if (j == 10) { /* 7.0's count, one short */
            line = sdscatprintf(line, " ... (%d more)", argc - j - 1);
            break;
        }
        line = sdscatlen(line, " ", 1);
        line = sdscatlen(line, argv[j]->ptr, sdslen(argv[j]->ptr));
    }
    logLine(line);
}

void ldbLogRedisReply(const char *reply) { logLineCut(ldbCatReply(sdsnew("<reply> "), reply)); }

void ldbLogError(const char *text, size_t len) { logLine(sdscatlen(sdsnew("<error> "), text, len)); }

/* ---- source and breakpoints ----------------------------------------------------------------- */

static const char *sourceLine(int line) {
    if (line < 1 || line > ldb.lines) return "<out of range source code line>";
    return ldb.src[line - 1];
}

static int isBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++)
        if (ldb.bp[j] == line) return 1;
    return 0;
}

static int addBreakpoint(int line) {
    if (line < 1 || line > ldb.lines || isBreakpoint(line) || ldb.bpcount == LDB_BREAKPOINTS_MAX) return 0;
    ldb.bp[ldb.bpcount++] = line;
    return 1;
}

static int deleteBreakpoint(int line) {
    for (int j = 0; j < ldb.bpcount; j++) {
        if (ldb.bp[j] != line) continue;
        ldb.bpcount--;
        memmove(ldb.bp + j, ldb.bp + j + 1, sizeof(ldb.bp[0]) * (size_t)(ldb.bpcount - j));
        return 1;
    }
    return 0;
}

/* "-> 3   code": the current line marked "->", a breakpoint "#". */
static void logSourceLine(int line) {
    int current = line == ldb.currentline, bp = isBreakpoint(line);
    const char *mark = current && bp ? "->#" : current ? "-> " : bp ? "  #" : "   ";
    logLine(sdscatprintf(sdsempty(), "%s%-3d %s", mark, line, sourceLine(line)));
}

/* The lines within context of around (all of them when around is 0). */
static void listSource(int around, int context) {
    for (int j = 1; j <= ldb.lines; j++) {
        if (around != 0 && abs(around - j) > context) continue;
        logSourceLine(j);
    }
}

/* ---- reading commands -------------------------------------------------------------------------- */

static const char *findCrlf(const char *p, const char *end) {
    for (; p + 1 < end; p++)
        if (p[0] == '\r' && p[1] == '\n') return p;
    return NULL;
}

/* One RESP array of bulk strings from ldb.input: 1 with *argv (consumed
 * from the input), 0 when more input is needed, -1 on a protocol error.
 * Bytes before the first '*' are skipped, as 7.0 skips them. */
static int parseCommand(sds **argvp, int *argcp) {
    const char *start = ldb.input, *end = start + sdslen(ldb.input);
    if (start == end) return 0;
    const char *p = memchr(start, '*', (size_t)(end - start));
    if (p == NULL) return -1;
    const char *crlf = findCrlf(p, end);
    if (crlf == NULL) return 0;
    long count = strtol(p + 1, NULL, 10);
    if (count <= 0 || count > LDB_MAX_ARGS) return -1;
    p = crlf + 2;
    sds *argv = zmalloc(sizeof(sds) * (size_t)count);
    int argc = 0, verdict = 1;
    while (argc < count) {
        if (p == end || (crlf = findCrlf(p, end)) == NULL) {
            verdict = 0;
            break;
        }
        long len = *p == '$' ? strtol(p + 1, NULL, 10) : 0;
        if (len <= 0 || len > LDB_MAX_ARG_LEN) {
            verdict = -1;
            break;
        }
        p = crlf + 2;
        if (end - p < len + 2) {
            verdict = 0;
            break;
        }
        if (p[len] != '\r' || p[len + 1] != '\n') {
            verdict = -1;
            break;
        }
        argv[argc++] = sdsnewlen(p, (size_t)len);
        p += len + 2;
    }
    if (verdict != 1) {
        sdsfreesplitres(argv, argc);
        return verdict;
    }
    sdsrange(ldb.input, p - start, -1);
    *argvp = argv;
    *argcp = argc;
    return 1;
}

/* ---- the commands ---------------------------------------------------------------------------- */

typedef enum { LDB_STAY, LDB_RESUME, LDB_ABORT } ldbVerdict;

static ldbVerdict cmdHelp(lua_State *lua, sds *argv, int argc) {
    (void)lua, (void)argv, (void)argc;
    static const char *help[] = {
        "Redis Lua debugger help:",
        "[h]elp               Show this help.",
        "[s]tep               Run current line and stop again.",
        "[n]ext               Alias for step.",
        "[c]ontinue           Run till next breakpoint.",
        "[l]ist               List source code around current line.",
        "[l]ist [line]        List source code around [line].",
        "                     line = 0 means: current position.",
        "[l]ist [line] [ctx]  In this form [ctx] specifies how many lines",
        "                     to show before/after [line].",
        "[w]hole              List all source code. Alias for 'list 1 1000000'.",
        "[p]rint              Show all the local variables.",
        "[p]rint <var>        Show the value of the specified variable.",
        "                     Can also show global vars KEYS and ARGV.",
        "[b]reak              Show all breakpoints.",
        "[b]reak <line>       Add a breakpoint to the specified line.",
        "[b]reak -<line>      Remove breakpoint from the specified line.",
        "[b]reak 0            Remove all breakpoints.",
        "[t]race              Show a backtrace.",
        "[e]val <code>        Execute some Lua code (in a different callframe).",
        "[r]edis <cmd>        Execute a Redis command.",
        "[m]axlen [len]       Trim logged Redis replies and Lua var dumps to len.",
        "                     Specifying zero as <len> means unlimited.",
        "[a]bort              Stop the execution of the script. In sync",
        "                     mode dataset changes will be retained.",
        "",
        "Debugger functions you can call from Lua scripts:",
        "redis.debug()        Produce logs in the debugger console.",
        "redis.breakpoint()   Stop execution like if there was a breakpoint in the",
        "                     next line of code.",
        NULL};
    for (int j = 0; help[j]; j++) logLine(sdsnew(help[j]));
    return LDB_STAY;
}

static ldbVerdict cmdStep(lua_State *lua, sds *argv, int argc) {
    (void)lua, (void)argv, (void)argc;
    ldb.step = 1;
    return LDB_RESUME;
}

static ldbVerdict cmdContinue(lua_State *lua, sds *argv, int argc) {
    (void)lua, (void)argv, (void)argc;
    return LDB_RESUME;
}

static ldbVerdict cmdAbort(lua_State *lua, sds *argv, int argc) {
    (void)lua, (void)argv, (void)argc;
    return LDB_ABORT;
}

/* The script's frames, innermost first ("In f:", "From top level:"). */
static ldbVerdict cmdTrace(lua_State *lua, sds *argv, int argc) {
    (void)argv, (void)argc;
    lua_Debug ar;
    int level = 0;
    for (; lua_getstack(lua, level, &ar); level++) {
        lua_getinfo(lua, "Snl", &ar);
        if (strstr(ar.short_src, "user_script") == NULL) continue;
        logLine(sdscatprintf(sdsempty(), "%s %s:", level == 0 ? "In" : "From", ar.name ? ar.name : "top level"));
        logSourceLine(ar.currentline);
    }
    if (level == 0) logLine(sdsnew("<error> Can't retrieve Lua stack."));
    return LDB_STAY;
}

static ldbVerdict cmdMaxlen(lua_State *lua, sds *argv, int argc) {
    (void)lua;
    if (argc == 2) {
        int len = atoi(argv[1]);
        ldb.maxlen_hint_sent = 1; /* the user knows about maxlen */
        ldb.maxlen = len != 0 && len <= LDB_MAXLEN_MIN ? LDB_MAXLEN_MIN : len;
    }
    if (ldb.maxlen) logLine(sdscatprintf(sdsempty(), "<value> replies are truncated at %d bytes.", ldb.maxlen));
    else logLine(sdsnew("<value> replies are unlimited."));
    return LDB_STAY;
}

static void breakAt(sds arg) {
    long line;
    if (!string2l(arg, sdslen(arg), &line)) {
        logLine(sdscatfmt(sdsempty(), "Invalid argument:'%s'", arg));
    } else if (line == 0) {
        ldb.bpcount = 0;
        logLine(sdsnew("All breakpoints removed."));
    } else if (line > 0) {
        if (ldb.bpcount == LDB_BREAKPOINTS_MAX) logLine(sdsnew("Too many breakpoints set."));
        else if (line <= INT_MAX && addBreakpoint((int)line)) listSource((int)line, 1);
        else logLine(sdsnew("Wrong line number."));
    } else {
        int removed = line >= -INT_MAX && deleteBreakpoint((int)-line);
        logLine(sdsnew(removed ? "Breakpoint removed." : "No breakpoint in the specified line."));
    }
}

static ldbVerdict cmdBreak(lua_State *lua, sds *argv, int argc) {
    (void)lua;
    if (argc > 1) {
        for (int j = 1; j < argc; j++) breakAt(argv[j]);
    } else if (ldb.bpcount == 0) {
        logLine(sdsnew("No breakpoints set. Use 'b <line>' to add one."));
    } else {
        logLine(sdscatfmt(sdsempty(), "%i breakpoints set:", ldb.bpcount));
        for (int j = 0; j < ldb.bpcount; j++) logSourceLine(ldb.bp[j]);
    }
    return LDB_STAY;
}

/* print <var>: the innermost local of that name, else KEYS or ARGV. */
static void printVariable(lua_State *lua, const char *name) {
    lua_Debug ar;
    for (int level = 0; lua_getstack(lua, level, &ar); level++) {
        const char *local;
        for (int i = 1; (local = lua_getlocal(lua, &ar, i)) != NULL; i++) {
            int found = strcmp(name, local) == 0;
            if (found) logValue(lua, "<value> ");
            lua_pop(lua, 1);
            if (found) return;
        }
    }
    if (strcmp(name, "KEYS") && strcmp(name, "ARGV")) {
        logLine(sdsnew("No such variable."));
        return;
    }
    lua_getglobal(lua, name);
    logValue(lua, "<value> ");
    lua_pop(lua, 1);
}

/* print: the current function's locals. */
static void printLocals(lua_State *lua) {
    lua_Debug ar;
    int shown = 0;
    if (lua_getstack(lua, 0, &ar)) {
        const char *local;
        for (int i = 1; (local = lua_getlocal(lua, &ar, i)) != NULL; i++) {
            if (strstr(local, "(*temporary)") == NULL) {
                sds prefix = sdscatprintf(sdsempty(), "<value> %s = ", local);
                logValue(lua, prefix);
                sdsfree(prefix);
                shown++;
            }
            lua_pop(lua, 1);
        }
    }
    if (shown == 0) logLine(sdsnew("No local variables in the current context."));
}

static ldbVerdict cmdPrint(lua_State *lua, sds *argv, int argc) {
    if (argc == 2) printVariable(lua, argv[1]);
    else printLocals(lua);
    return LDB_STAY;
}

static ldbVerdict cmdList(lua_State *lua, sds *argv, int argc) {
    (void)lua;
    int around = ldb.currentline, context = 5;
    if (argc > 1 && atoi(argv[1]) > 0) around = atoi(argv[1]);
    if (argc > 2) context = atoi(argv[2]);
    listSource(around, context);
    return LDB_STAY;
}

static ldbVerdict cmdWhole(lua_State *lua, sds *argv, int argc) {
    (void)lua, (void)argv, (void)argc;
    listSource(1, 1000000);
    return LDB_STAY;
}

/* An error value: a string, or an error table's message. */
static void logErrorValue(lua_State *lua) {
    if (lua_istable(lua, -1)) {
        lua_getfield(lua, -1, "err");
        lua_replace(lua, -2);
    }
    if (lua_isstring(lua, -1)) logLine(sdscatfmt(sdsempty(), "<error> %s", lua_tostring(lua, -1)));
    else logValue(lua, "<error> ");
}

/* eval <code>: as an expression ("return <code>") if it compiles so, else as
 * statements; run in the scripts' environment, in a frame of its own. */
static ldbVerdict cmdEval(lua_State *lua, sds *argv, int argc) {
    sds code = sdsjoinsds(argv + 1, argc - 1, " ", 1);
    sds expr = sdscatsds(sdsnew("return "), code);
    int failed = luaL_loadbuffer(lua, expr, sdslen(expr), "@ldb_eval");
    if (failed) {
        lua_pop(lua, 1);
        failed = luaL_loadbuffer(lua, code, sdslen(code), "@ldb_eval");
    }
    sdsfree(code);
    sdsfree(expr);
    if (!failed) {
        luaEngineSetScriptEnv(lua);
        failed = lua_pcall(lua, 0, 1, 0);
    }
    if (failed) logErrorValue(lua);
    else logValue(lua, "<retval> ");
    lua_pop(lua, 1);
    return LDB_STAY;
}

/* redis <cmd> ...: through redis.call, logged as a stepped line's calls are. */
static ldbVerdict cmdRedis(lua_State *lua, sds *argv, int argc) {
    if (!lua_checkstack(lua, argc + 1)) {
        logLine(sdsnew("<error> max lua stack reached"));
        return LDB_STAY;
    }
    lua_getglobal(lua, "redis");
    lua_getfield(lua, -1, "call");
    for (int j = 1; j < argc; j++) lua_pushlstring(lua, argv[j], sdslen(argv[j]));
    ldb.step = 1; /* so the command and its reply are logged */
    lua_pcall(lua, argc - 1, 1, 0);
    ldb.step = 0;
    lua_pop(lua, 2);
    return LDB_STAY;
}

static const struct {
    const char *short_name, *name;
    int min_argc;
    ldbVerdict (*run)(lua_State *lua, sds *argv, int argc);
} ldb_commands[] = {
    {"h", "help", 1, cmdHelp},   {"s", "step", 1, cmdStep},     {"n", "next", 1, cmdStep},
    {"c", "continue", 1, cmdContinue}, {"t", "trace", 1, cmdTrace}, {"m", "maxlen", 1, cmdMaxlen},
    {"b", "break", 1, cmdBreak}, {"e", "eval", 1, cmdEval},     {"a", "abort", 1, cmdAbort},
    {"r", "redis", 2, cmdRedis}, {"p", "print", 1, cmdPrint},   {"l", "list", 1, cmdList},
    {"w", "whole", 1, cmdWhole},
};

/* The whole argument against a name: "s\0x" is no "s". */
static int nameIs(sds arg, const char *name) { return sdslen(arg) == strlen(name) && !strcasecmp(arg, name); }

static ldbVerdict runCommand(lua_State *lua, sds *argv, int argc) {
    for (size_t j = 0; j < sizeof ldb_commands / sizeof ldb_commands[0]; j++) {
        if (!nameIs(argv[0], ldb_commands[j].short_name) && !nameIs(argv[0], ldb_commands[j].name)) continue;
        if (argc < ldb_commands[j].min_argc) break;
        ldbVerdict verdict = ldb_commands[j].run(lua, argv, argc);
        if (verdict == LDB_STAY) sendLogs();
        return verdict;
    }
    logLine(sdsnew("<error> Unknown Redis Lua debugger command or wrong number of arguments."));
    sendLogs();
    return LDB_STAY;
}

/* Serves commands until one resumes the script. C_ERR: the client is gone
 * (the script then runs on with no stops). Protocol errors, too much
 * input and abort raise a Lua error, which ends the script. */
static int repl(lua_State *lua) {
    for (;;) {
        sds *argv = NULL;
        int argc = 0, parsed;
        while ((parsed = parseCommand(&argv, &argc)) == 0) {
            char buf[1024];
            ssize_t nread = connRead(ldb.conn, buf, sizeof buf);
            if (nread <= 0) {
                ldb.step = 0;
                ldb.bpcount = 0;
                return C_ERR;
            }
            ldb.input = sdscatlen(ldb.input, buf, (size_t)nread);
            if (sdslen(ldb.input) > LDB_MAX_INPUT) {
                sdsclear(ldb.input);
                luaEngineRaiseError(lua, "max client buffer reached");
            }
        }
        if (parsed < 0) {
            sdsclear(ldb.input);
            luaEngineRaiseError(lua, "protocol error");
        }
        ldbVerdict verdict = runCommand(lua, argv, argc);
        sdsfreesplitres(argv, argc);
        if (verdict == LDB_ABORT) luaEngineRaiseError(lua, "script aborted for user request");
        if (verdict == LDB_RESUME) return C_OK;
    }
}

/* ---- the hook and the script's functions ------------------------------------------------------- */

/* Each line of the script (and every LDB_HOOK_INSTRUCTIONS instructions,
 * for a run that never stops: past busy-reply-threshold, or 5 s, it stops
 * as on a breakpoint). Lines of other chunks (eval's) are not stops. */
void ldbLineHook(lua_State *lua, lua_Debug *ar) {
    scriptRunCtx *ctx = scriptCurrentRun();
    lua_getstack(lua, 0, ar);
    lua_getinfo(lua, "Sl", ar);
    if (strstr(ar->short_src, "user_script") == NULL) return;
    ldb.currentline = ar->currentline;
    int bp = isBreakpoint(ldb.currentline) || ldb.luabp, timeout = 0;
    if (ar->event == LUA_HOOKCOUNT && !ldb.step && !bp) {
        long long limit = server.busy_reply_threshold ? server.busy_reply_threshold : LDB_DEFAULT_TIMEOUT_MS;
        if (ctx == NULL || (monotonicUs() - ctx->start_us) / 1000 < limit) return;
        timeout = 1;
    }
    if (!ldb.step && !bp && !timeout) return;
    const char *reason = bp ? (ldb.luabp ? "redis.breakpoint() called" : "break point")
                            : timeout ? "timeout reached, infinite loop?" : "step over";
    ldb.step = ldb.luabp = 0;
    logLine(sdscatprintf(sdsempty(), "* Stopped at %d, stop reason = %s", ldb.currentline, reason));
    logSourceLine(ldb.currentline);
    sendLogs();
    if (repl(lua) == C_ERR && timeout)
        luaEngineRaiseError(lua, "timeout during Lua debugging with client closing connection");
    if (ctx) ctx->start_us = monotonicUs(); /* time at the prompt is no run time */
}

/* redis.debug(...): a "<debug> line N: a, b" line. */
int ldbLuaDebug(lua_State *lua) {
    if (!ldb.active) return 0;
    int argc = lua_gettop(lua);
    sds line = sdscatprintf(sdsempty(), "<debug> line %d: ", ldb.currentline);
    for (int j = 1; j <= argc; j++) {
        line = ldbCatLuaValue(line, lua, j);
        if (j != argc) line = sdscatlen(line, ", ", 2);
    }
    logLine(line);
    return 0;
}

/* redis.breakpoint(): stop at the next line; true when debugging. */
int ldbLuaBreakpoint(lua_State *lua) {
    if (ldb.active) ldb.luabp = 1;
    lua_pushboolean(lua, ldb.active);
    return 1;
}

/* ---- sessions ------------------------------------------------------------------------------------ */

static int reapChildren(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    int kept = 0;
    for (int j = 0; j < ldb_children.count; j++) {
        int status;
        pid_t r = waitpid(ldb_children.pids[j], &status, WNOHANG);
        if (r == 0 || (r == -1 && errno == EINTR)) ldb_children.pids[kept++] = ldb_children.pids[j];
    }
    ldb_children.count = kept;
    if (kept) return LDB_REAP_PERIOD_MS;
    ldb_children.timer = -1;
    return AE_NOMORE;
}

static void childStarted(pid_t pid) {
    ldb_children.pids = zrealloc(ldb_children.pids, sizeof(pid_t) * (size_t)(ldb_children.count + 1));
    ldb_children.pids[ldb_children.count++] = pid;
    if (ldb_children.timer == -1)
        ldb_children.timer = aeCreateTimeEvent(server.el, LDB_REAP_PERIOD_MS, reapChildren, NULL, NULL);
}

SCRIPT_RESIDENT void ldbKillForkedSessions(void) {
    for (int j = 0; j < ldb_children.count; j++) {
        serverLog(LL_WARNING, "Killing debugging session %ld", (long)ldb_children.pids[j]);
        kill(ldb_children.pids[j], SIGKILL);
    }
    ldb_children.count = 0;
}

/* The child: ignores the signals that stop the server, keeps no listener. */
static void childSetup(void) {
    setShutdownSignalsHandler(SIG_IGN);
    setupForkChild(NULL, "the Lua debugger's child", NULL);
    serverLog(LL_WARNING, "Redis forked for debugging eval");
}

/* 1 when this process runs the session (the child, or SYNC). */
static int sessionProcess(client *c) {
    ldb.forked = !(c->flags & CLIENT_LUA_DEBUG_SYNC);
    if (!ldb.forked) {
        serverLog(LL_WARNING, "Redis synchronous debugging eval session started");
        return 1;
    }
    pid_t pid = snapshotFork();
    if (pid == -1) {
        addReplyErrorFormat(c, "Fork() failed: can't run EVAL in debugging mode: %s", strerror(errno));
        return 0;
    }
    if (pid == 0) {
        childSetup();
        return 1;
    }
    childStarted(pid);
    /* The connection is the child's now: closing our copy must say nothing
     * on it (a TLS close_notify would end the child's session). */
    c->conn->state = CONN_STATE_CLOSED;
    freeClientAsync(c);
    return 0;
}

/* The script's lines, from the EVAL's body without its final newlines. */
static void loadSource(sds body) {
    size_t len = sdslen(body);
    while (len && (body[len - 1] == '\n' || body[len - 1] == '\r')) len--;
    ldb.src = sdssplitlen(body, (ssize_t)len, "\n", 1, &ldb.lines);
}

int ldbStartSession(client *c) {
    if (!sessionProcess(c)) return 0;
    ldb.conn = c->conn;
    ldb.active = 1;
    ldb.step = 1;
    ldb.luabp = 0;
    ldb.bpcount = 0;
    ldb.currentline = 0;
    ldb.maxlen = LDB_MAXLEN_DEFAULT;
    ldb.maxlen_hint_sent = 0;
    ldb.nlogs = 0;
    sdsfree(ldb.logs);
    ldb.logs = sdsempty();
    sdsfree(ldb.input);
    ldb.input = sdsempty();
    connBlock(ldb.conn);
    connSendTimeout(ldb.conn, LDB_SEND_TIMEOUT_MS);
    writeClientRepliesNow(c); /* what it was owed before the EVAL comes first */
    loadSource(c->argv[1]->ptr);
    return 1;
}

void ldbEndSession(client *c) {
    logLine(sdsnew("<endsession>"));
    sendLogs();
    if (ldb.forked) {
        writeClientRepliesNow(c);
        serverLog(LL_WARNING, "Lua debugging session child exiting");
        _exit(0);
    }
    serverLog(LL_WARNING, "Redis synchronous debugging eval session ended");
    connNonBlock(ldb.conn);
    connSendTimeout(ldb.conn, 0);
    c->flags |= CLIENT_CLOSE_AFTER_REPLY; /* the end of the session, for the client */
    sdsfreesplitres(ldb.src, ldb.lines);
    ldb.src = NULL;
    ldb.lines = 0;
    ldb.active = 0;
    ldb.conn = NULL;
}
