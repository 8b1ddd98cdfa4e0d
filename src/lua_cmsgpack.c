/* lua_cmsgpack.c -- the `cmsgpack` library of Redis scripts.
 *
 * Interim: the library table only, so the scripting engine can link and
 * open it; the functions follow in the next commits of this branch. */
#include <lauxlib.h>
#include <lua.h>

#include "lua_libs.h"

static const luaL_Reg cmsgpackFunctions[] = {
    {NULL, NULL},
};

int luaopen_cmsgpack(lua_State *L) {
    luaL_register(L, "cmsgpack", cmsgpackFunctions);
    return 1;
}
