/* script.h -- what EVAL and FCALL share: the run of one script (who called
 * it, its flags, whether it wrote, timed out or was killed), the commands it
 * runs through redis.call, the busy state, and the "#!lua" shebang flags.
 *
 * One script runs at a time (scripts cannot call EVAL/FCALL: those are
 * "noscript"), so the run context is a single global, current or NULL. The
 * engine (script_lua.c) runs the code; this file decides what the code may
 * do and what the rest of the server sees while it runs.
 */
#ifndef REDIS_SCRIPT_H
#define REDIS_SCRIPT_H

#include "server.h"

/* Flags a script declares (shebang "flags=" or register_function's flags). */
#define SCRIPT_FLAG_NO_WRITES (1ULL << 0)
#define SCRIPT_FLAG_ALLOW_OOM (1ULL << 1)
#define SCRIPT_FLAG_ALLOW_STALE (1ULL << 2)
#define SCRIPT_FLAG_NO_CLUSTER (1ULL << 3)
#define SCRIPT_FLAG_EVAL_COMPAT_MODE (1ULL << 4) /* an EVAL body without shebang */
#define SCRIPT_FLAG_ALLOW_CROSS_SLOT (1ULL << 5)

/* The state of the current run. */
#define SCRIPT_RUN_WRITE_DIRTY (1 << 0) /* a write command ran: can't be killed */
#define SCRIPT_RUN_TIMEDOUT (1 << 1)    /* past busy-reply-threshold: others get -BUSY */
#define SCRIPT_RUN_KILLED (1 << 2)      /* SCRIPT/FUNCTION KILL asked to stop */
#define SCRIPT_RUN_READ_ONLY (1 << 3)   /* no-writes, or an *_RO command */
#define SCRIPT_RUN_ALLOW_OOM (1 << 4)
#define SCRIPT_RUN_EVAL_MODE (1 << 5)   /* EVAL (vs FCALL): which KILL and which -BUSY */
#define SCRIPT_RUN_ALLOW_CROSS_SLOT (1 << 6) /* allow-cross-slot-keys: keys of several slots (cluster) */

/* redis.set_repl() targets */
#define SCRIPT_REPL_NONE 0
#define SCRIPT_REPL_AOF 1
#define SCRIPT_REPL_REPLICA 2
#define SCRIPT_REPL_ALL 3

typedef struct scriptRunCtx {
    const char *funcname;   /* the sha (EVAL) or the function's name (FCALL) */
    client *caller;         /* the client that sent EVAL/FCALL */
    client *fake;           /* the engine's client, that runs redis.call's commands */
    int flags;              /* SCRIPT_RUN_* */
    int repl;               /* SCRIPT_REPL_*, from redis.set_repl */
    int over_memory_at_start; /* used memory > maxmemory when the script started */
    long long start_us;     /* monotonic */
} scriptRunCtx;

/* The scripting objects' code has a segment of its own (src/scripting.ld),
 * so a server that runs no script leaves it unpaged. The few functions of
 * these objects that the server calls with no script (every command's
 * flags, the busy check, INFO's figures, the functions' part of an RDB
 * save or an AOF rewrite) are marked SCRIPT_RESIDENT: they go with the hot
 * server code, so calling them does not page that segment in. Only their
 * placement changes. */
#if defined(__GNUC__) && defined(__ELF__)
#define SCRIPT_RESIDENT __attribute__((section(".text.hot.script_resident")))
#else
#define SCRIPT_RESIDENT
#endif

/* Whether body starts with "#!", and the words of that first line split like
 * a command line ("#!lua flags=no-writes" -> "#!lua", "flags=no-writes"),
 * shared by EVAL's shebang and FUNCTION LOAD's metadata line. The split
 * returns NULL if no newline ends the line within len or the line has no
 * word; *line_len is the line's length, newline excluded. */
int scriptHasShebang(const char *body, size_t len);
sds *scriptSplitFirstLine(const char *body, size_t len, int *argc, size_t *line_len);
/* The shebang's flags (*flags), its length (the first line, newline
 * excluded; 0 if none); C_ERR with *err (Redis's wording) on a bad one. */
int scriptParseShebang(const char *body, size_t len, uint64_t *flags, size_t *shebang_len, sds *err);
int scriptParseFlagName(const char *name, uint64_t *flag); /* one flag: C_ERR if unknown */
int scriptParseFlagNameNoCase(const char *name, uint64_t *flag); /* register_function's flags */
const char *scriptFlagName(int index, uint64_t *flag); /* the index-th flag's name, NULL past the last */
uint64_t scriptFlagsToCmdFlags(uint64_t cmd_flags, uint64_t script_flags);

/* The client a script's redis.call runs its commands on: fake (no
 * connection), flagged as a script's, authenticated. */
client *scriptCreateFakeClient(void);
/* A run: prepare (may refuse, replying to the caller), run, reset. */
int scriptPrepareRun(scriptRunCtx *ctx, client *fake, client *caller, const char *funcname,
                     uint64_t script_flags, int read_only);
void scriptResetRun(scriptRunCtx *ctx);
scriptRunCtx *scriptCurrentRun(void); /* NULL when no script runs */

/* redis.call: runs argv on the fake client; on refusal *err gets the error
 * (Redis's text, without code: the engine adds it) and nothing ran. */
void scriptCall(scriptRunCtx *ctx, robj **argv, int argc, sds *err);
/* ACL_OK or ACL_DENIED_*: may the script's caller run this (redis.acl_check_cmd)? */
int scriptAclCheck(scriptRunCtx *ctx, redisCommand *cmd, robj **argv, int argc, int *errpos);

/* Called by the engine every so many instructions: past the threshold it
 * serves clients (once per call); returns 1 when the script must stop. */
int scriptInterrupt(scriptRunCtx *ctx);
int scriptIsEval(void);              /* the running one is an EVAL (not an FCALL) */
/* (scriptIsTimedOut and scriptBusyError are in server.h: processCommand uses them) */
void scriptKill(client *c, int is_eval); /* SCRIPT KILL / FUNCTION KILL */

#endif /* REDIS_SCRIPT_H */
