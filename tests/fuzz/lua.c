/* lua.c -- fuzz harness: the decoders scripts can feed with any bytes a
 * client sends: cjson.decode (lua-cjson in deps/lua), cmsgpack.unpack
 * (src/lua_cmsgpack.c) and struct.unpack (src/lua_struct.c).
 *
 * Why: a script may decode a value read from a key (EVAL "return
 * cjson.decode(redis.call('get', KEYS[1]))"), so these parsers see data
 * chosen by whoever can write a key. Each runs in a Lua state opened as the
 * scripting engine opens it (the same libraries); a decoded value is
 * encoded again (cjson.encode, cmsgpack.pack, struct.pack) to walk what
 * the decoder built. A Lua error is a normal outcome (pcall); a finding is
 * a sanitizer report, or a JSON document that cjson encoded but cannot
 * decode again.
 *
 * Input: byte 0 picks the decoder (mod 3); for struct, the format is the
 * bytes up to the first NUL (at most 64), the data the rest.
 */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <string.h>

#include "fuzz.h"
#include "lua_libs.h"

static lua_State *L;

static const char *lua_side =
    "function fuzz_json(s)\n"
    "  local ok, v = pcall(cjson.decode, s)\n"
    "  if not ok then return true end\n"
    "  local ok2, e = pcall(cjson.encode, v)\n"
    "  if not ok2 then return true end\n"
    "  return (pcall(cjson.decode, e))\n"
    "end\n"
    "function fuzz_msgpack(s)\n"
    "  local r = {pcall(cmsgpack.unpack, s)}\n"
    "  if r[1] then pcall(function() return cmsgpack.pack(unpack(r, 2, table.maxn(r))) end) end\n"
    "  pcall(cmsgpack.unpack_limit, s, 2)\n"
    "  pcall(cmsgpack.unpack_one, s, 1)\n"
    "  return true\n"
    "end\n"
    "function fuzz_struct(fmt, s)\n"
    "  pcall(struct.size, fmt)\n"
    "  local r = {pcall(struct.unpack, fmt, s)}\n"
    "  if r[1] then pcall(function() return struct.pack(fmt, unpack(r, 2, table.maxn(r) - 1)) end) end\n"
    "  pcall(struct.unpack, fmt, s, 2)\n"
    "  return true\n"
    "end\n";

static void openLibrary(lua_CFunction open, const char *name) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

int LLVMFuzzerInitialize(int *argc, char ***argv) {
    (void)argc;
    (void)argv;
    L = luaL_newstate();
    openLibrary(luaopen_base, "");
    openLibrary(luaopen_table, LUA_TABLIBNAME);
    openLibrary(luaopen_string, LUA_STRLIBNAME);
    openLibrary(luaopen_math, LUA_MATHLIBNAME);
    openLibrary(luaopen_struct, "struct");
    openLibrary(luaopen_cmsgpack, "cmsgpack");
    openLibrary(luaopen_cjson, "cjson");
    openLibrary(luaopen_bit, "bit");
    FUZZ_CHECK(luaL_dostring(L, lua_side) == 0);
    return 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (L == NULL) LLVMFuzzerInitialize(NULL, NULL);
    if (size < 1) return 0;
    const char *s = (const char *)data + 1;
    size_t len = size - 1;
    int sel = data[0] % 3;
    lua_getglobal(L, sel == 0 ? "fuzz_json" : sel == 1 ? "fuzz_msgpack" : "fuzz_struct");
    if (sel == 2) {
        const char *nul = memchr(s, '\0', len < 64 ? len : 64);
        size_t flen = nul ? (size_t)(nul - s) : (len < 64 ? len : 64);
        lua_pushlstring(L, s, flen);
        size_t skip = nul ? flen + 1 : flen;
        lua_pushlstring(L, s + skip, len - skip);
    } else {
        lua_pushlstring(L, s, len);
    }
    int failed = lua_pcall(L, sel == 2 ? 2 : 1, 1, 0);
    if (failed) fprintf(stderr, "harness error: %s\n", lua_tostring(L, -1));
    FUZZ_CHECK(!failed);
    if (!lua_toboolean(L, -1)) fprintf(stderr, "cjson encoded a value it cannot decode\n");
    FUZZ_CHECK(lua_toboolean(L, -1));
    lua_settop(L, 0);
    lua_gc(L, LUA_GCCOLLECT, 0); /* what an input allocated is freed by the end of it: no leak check per input */
    return 0;
}
