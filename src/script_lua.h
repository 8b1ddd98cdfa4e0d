/* script_lua.h -- the Lua engine: a sandboxed Lua 5.1 state with the redis.*
 * API, and the conversions between Lua values and RESP replies. EVAL
 * (eval.c) and, later, FUNCTION (function.c) each own a state made here.
 */
#ifndef REDIS_SCRIPT_LUA_H
#define REDIS_SCRIPT_LUA_H

#include "script.h"

#include <lua.h>

/* A new state: libraries, redis.*, the error handler, globals protection.
 * Its heap is allocated through zmalloc (so used_memory counts it). */
lua_State *luaEngineCreate(void);
void luaEngineClose(lua_State *lua);
size_t luaEngineMemory(lua_State *lua); /* bytes of the Lua heap */

/* Compiles body (its shebang line, shebang_len bytes, skipped but its
 * newline kept so line numbers stay the user's) as chunk "@user_script"
 * and keeps the function in the registry under *ref (a luaL_ref number).
 * C_ERR: *err says why, in Redis's words ("Error compiling script (new
 * function): ..."). */
int luaEngineCompile(lua_State *lua, const char *body, size_t len, size_t shebang_len, int *ref, sds *err);

/* Runs the compiled script ref with KEYS and ARGV set, replying to
 * ctx->caller (the script's value, or its error with the "script: ..., on
 * @user_script:N." suffix). */
void luaEngineRunEval(scriptRunCtx *ctx, lua_State *lua, int ref, robj **keys, int nkeys, robj **args,
                      int nargs);

/* For the debugger (ldb.c): raise an error {err="ERR <text>"} (does not
 * return), and give the function on top the scripts' environment. */
int luaEngineRaiseError(lua_State *lua, const char *text);
void luaEngineSetScriptEnv(lua_State *lua);

/* ---- functions (function.c) ---- */

/* Called by redis.register_function while a library loads: C_OK takes the
 * callback (a registry reference) over; C_ERR with *err refuses it. */
typedef int luaRegisterProc(void *ud, sds name, int ref, uint64_t flags, sds desc, sds *err);

lua_State *luaEngineCreateForFunctions(void); /* + the library API of FUNCTION LOAD */
/* Runs a library's code (chunk "@user_function", shebang skipped as for
 * EVAL) with only the library API visible; each register_function goes to
 * proc. C_ERR with *err in Redis's words ("Error compiling function: ...",
 * "Error registering functions: ..."). */
int luaEngineLoadLibrary(lua_State *lua, const char *code, size_t len, size_t shebang_len, luaRegisterProc *proc,
                         void *ud, sds *err);
void luaEngineUnref(lua_State *lua, int ref);
/* Calls the registered callback ref(keys, args), replying to ctx->caller. */
void luaEngineRunFunction(scriptRunCtx *ctx, lua_State *lua, int ref, robj **keys, int nkeys, robj **args,
                          int nargs);

#endif /* REDIS_SCRIPT_LUA_H */
