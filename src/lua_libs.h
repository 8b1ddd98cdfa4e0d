/* lua_libs.h -- the Lua libraries Redis scripts see besides Lua's own:
 * struct, cmsgpack, cjson and bit.
 *
 * Each luaopen_* follows Lua 5.1's convention for libraries: called as a Lua
 * C function (lua_pushcfunction + lua_call, or lua_cpcall), it creates the
 * library's table, stores it in the global of the library's name ("struct",
 * "cmsgpack", "cjson", "bit") and in package.loaded, and returns it (one
 * value on the stack). The scripting engine opens them after Lua's base,
 * table, string, math and debug libraries, before it locks the globals.
 *
 * Where they come from:
 *   luaopen_cjson     lua-cjson 2.1.0 inside liblua.a (deps/lua/build.sh);
 *                     decode nesting limited to 1000 levels (its default)
 *   luaopen_bit       src/lua_bit.c, LuaBitOp 1.0.2's API written here (the
 *                     release tarball is not reachable, see deps/lua/README.md)
 *   luaopen_struct    src/lua_struct.c
 *   luaopen_cmsgpack  src/lua_cmsgpack.c
 * They produce the same bytes on every port (byte order, word size), and the
 * same bytes as Redis 7.0 on a 64-bit host (tests/c/test_lua_libs.c). */
#ifndef REDIS_LUA_LIBS_H
#define REDIS_LUA_LIBS_H

#include <lua.h>

int luaopen_struct(lua_State *L);
int luaopen_cmsgpack(lua_State *L);
int luaopen_cjson(lua_State *L);
int luaopen_bit(lua_State *L);

#endif
