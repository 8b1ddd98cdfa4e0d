/* ldb.h -- the Lua debugger of EVAL (SCRIPT DEBUG YES|SYNC|NO), as Redis
 * 7.0 speaks it: eval.c starts and ends the sessions, script_lua.c calls
 * the hooks below while a debugged script runs, server.c kills the forked
 * sessions at shutdown. The session itself is ldb.c; how values and replies
 * are shown is ldb_show.c.
 */
#ifndef REDIS_LDB_H
#define REDIS_LDB_H

#include "script.h"

#include <lua.h>

/* SCRIPT DEBUG: the client's next EVAL runs under the debugger, forked
 * (YES: in a child, its changes discarded) or in the server itself (SYNC). */
void ldbEnable(client *c, int sync);
void ldbDisable(client *c);

/* Around the EVAL of a client that asked for debugging. Start returns 0
 * when the caller must not run the script: in the parent of a forked
 * session (the client is then the child's and is closed here) or when the
 * fork failed (the error was replied). End sends the last lines and the
 * "<endsession>" mark; a forked child then exits. */
int ldbStartSession(client *c);
void ldbEndSession(client *c);

int ldbActive(void);  /* a session runs (in this process) */
int ldbLogging(void); /* ... and the current line is stepped: redis.call and errors are logged */

/* What script_lua.c reports while ldbLogging(): the command a script sends,
 * its reply (RESP, NUL-terminated) and the errors it raises. */
void ldbLogRedisCommand(robj **argv, int argc);
void ldbLogRedisReply(const char *reply);
void ldbLogError(const char *text, size_t len);

/* The hook a debugged script runs under (lines, and every `count`
 * instructions for the timeout), and redis.debug() / redis.breakpoint(). */
#define LDB_HOOK_INSTRUCTIONS 100000
void ldbLineHook(lua_State *lua, lua_Debug *ar);
int ldbLuaDebug(lua_State *lua);
int ldbLuaBreakpoint(lua_State *lua);

/* ldb_show.c: a Lua value (at idx) and a RESP reply, in the debugger's words. */
sds ldbCatLuaValue(sds s, lua_State *lua, int idx);
sds ldbCatReply(sds s, const char *reply);

#endif /* REDIS_LDB_H */
