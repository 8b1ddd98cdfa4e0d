/* test_lua_libs.c -- the libraries Redis scripts see besides Lua's own:
 * struct (src/lua_struct.c), cmsgpack (src/lua_cmsgpack.c), bit
 * (src/lua_bit.c) and cjson (deps/lua), plus the Lua build itself
 * (deps/lua/build.sh: configuration and our security patches).
 *
 * Golden answers: lua_libs_golden.h holds ~430 expressions with what Redis
 * 7.0.15 returned for them on x86-64 (bytes as hex, numbers, error
 * messages). Every port -- big-endian s390x/sparc64, 32-bit armv6/i386 --
 * must give exactly the same answers, which is the point: a script's output
 * must not depend on the machine. The expressions cover every format letter
 * and encoding, bounds (unpacking past the end, huge counts and offsets,
 * truncated and invalid MessagePack, unpack_limit/offset edge cases), the
 * Lua-stack limits and error wording.
 *
 * The rest: round trips over many generated values (Lua loops asserting
 * equality), the globals the libraries register, number formatting through
 * a locale with a decimal comma, and regressions for the Lua fixes in
 * deps/lua/patches/.
 */
#include <locale.h>

#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#include "lua_libs.h"
#include "lua_libs_golden.h"
#include "test.h"

/* ---- harness -------------------------------------------------------------- */

static void open_library(lua_State *L, lua_CFunction open, const char *name) {
    lua_pushcfunction(L, open);
    lua_pushstring(L, name);
    lua_call(L, 1, 0);
}

/* A state with what the scripting engine opens: Lua's base, table, string,
 * math and debug libraries, then the four of lua_libs.h. */
static lua_State *new_script_state(void) {
    lua_State *L = luaL_newstate();
    open_library(L, luaopen_base, "");
    open_library(L, luaopen_table, LUA_TABLIBNAME);
    open_library(L, luaopen_string, LUA_STRLIBNAME);
    open_library(L, luaopen_math, LUA_MATHLIBNAME);
    open_library(L, luaopen_debug, LUA_DBLIBNAME);
    open_library(L, luaopen_struct, "struct");
    open_library(L, luaopen_cmsgpack, "cmsgpack");
    open_library(L, luaopen_cjson, "cjson");
    open_library(L, luaopen_bit, "bit");
    return L;
}

/* Runs code as the chunk "user_script" (Redis's name, so error positions
 * read "user_script:1:"); returns the string it returned (in buf) or
 * "LOADERR <message>". */
static const char *run_chunk(lua_State *L, const char *code, char *buf, size_t bufsize) {
    const char *result;
    if (luaL_loadbuffer(L, code, strlen(code), "@user_script") || lua_pcall(L, 0, 1, 0)) {
        snprintf(buf, bufsize, "LOADERR %s", lua_tostring(L, -1));
    } else {
        result = lua_tostring(L, -1);
        snprintf(buf, bufsize, "%s", result ? result : "(not a string)");
    }
    lua_settop(L, 0);
    return buf;
}

/* The harness the golden answers were recorded with. */
static const char *evaluate(lua_State *L, const char *expr, char *buf, size_t bufsize) {
    static const char format[] =
        "local function hex(s) return (string.gsub(s, '.', function(c) "
        "return string.format('%%02x', string.byte(c)) end)) end "
        "local ok, r = pcall(function() return {%s} end) "
        "if not ok then return 'ERR '..tostring(r) end "
        "local o = {} for i = 1, table.maxn(r) do local v = r[i] "
        "if type(v) == 'string' then o[#o+1] = 'h:'..hex(v) "
        "elseif type(v) == 'table' then o[#o+1] = 'table:table' "
        "else o[#o+1] = type(v)..':'..tostring(v) end end "
        "return table.concat(o, ' ')";
    char code[4096];
    snprintf(code, sizeof code, format, expr);
    return run_chunk(L, code, buf, bufsize);
}

static void check_golden(const luaGoldenCase *cases, size_t n) {
    lua_State *L = new_script_state();
    static char got[8192];
    for (size_t i = 0; i < n; i++) {
        evaluate(L, cases[i].expr, got, sizeof got);
        if (!CHECK(strcmp(got, cases[i].expected) == 0))
            printf("      %s\n      got      %s\n      expected %s\n", cases[i].expr, got, cases[i].expected);
    }
    lua_close(L);
}

#define CHECK_GOLDEN(table) check_golden(table, sizeof(table) / sizeof((table)[0]))

/* Runs a Lua chunk that must return true (else it returns a message). */
static void check_lua_true(lua_State *L, const char *code) {
    char buf[1024];
    if (luaL_loadbuffer(L, code, strlen(code), "@user_script") || lua_pcall(L, 0, 1, 0)) {
        CHECK(0);
        printf("      error: %s\n", lua_tostring(L, -1));
    } else if (!CHECK(lua_isboolean(L, -1) && lua_toboolean(L, -1))) {
        snprintf(buf, sizeof buf, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "(false)");
        printf("      returned: %s\n", buf);
    }
    lua_settop(L, 0);
}

/* ---- golden answers ------------------------------------------------------------ */

static void test_struct_matches_reference(void) { CHECK_GOLDEN(golden_struct); }
static void test_cmsgpack_matches_reference(void) { CHECK_GOLDEN(golden_cmsgpack); }
static void test_bit_matches_reference(void) { CHECK_GOLDEN(golden_bit); }
static void test_cjson_matches_reference(void) { CHECK_GOLDEN(golden_cjson); }

/* ---- round trips ------------------------------------------------------------------ */

static void test_struct_round_trips(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "local fmts = {'b','B','h','H','i','I','l','L','T','i1','i2','i3','i5','i7','I6','i8'} "
        "local seed = 12345 "
        "local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n end "
        "for _, e in ipairs({'<', '>', '!4<', '!8>'}) do for _, f in ipairs(fmts) do "
        "  local size = struct.size(f) "
        "  for i = 1, 200 do "
        "    local v = rnd(2^(math.min(size, 4) * 8 - 1)) "
        "    if string.sub(f, 1, 1) == string.lower(string.sub(f, 1, 1)) and rnd(2) == 1 then v = -v end "
        "    if f == 'b' and v > 127 then v = v % 128 end "
        "    local s = struct.pack(e .. 'b' .. f .. 's', 7, v, 'tail') "
        "    local a, b, c, nextpos = struct.unpack(e .. 'b' .. f .. 's', s) "
        "    if a ~= 7 or b ~= v or c ~= 'tail' or nextpos ~= #s + 1 then "
        "      return e .. f .. ' ' .. v .. ' -> ' .. tostring(b) end "
        "  end end end "
        "for _, d in ipairs({0, 1.5, -2.25, 1/3, 1e300, -1e-300, 2^53, 1/0, -1/0}) do "
        "  for _, e in ipairs({'<', '>'}) do "
        "    if struct.unpack(e .. 'd', struct.pack(e .. 'd', d)) ~= d then return 'double ' .. d end "
        "    local f = struct.unpack(e .. 'f', struct.pack(e .. 'f', d)) "
        "    if d == 1.5 and f ~= d then return 'float ' .. d end end end "
        "local s = struct.pack('>Bc0', 5, 'hello') "
        "local str, pos = struct.unpack('>Bc0', s) "
        "return str == 'hello' and pos == 7");
    lua_close(L);
}

static void test_cmsgpack_round_trips(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "local function same(a, b) "
        "  if type(a) ~= type(b) then return false end "
        "  if type(a) ~= 'table' then return a == b end "
        "  for k, v in pairs(a) do if not same(v, b[k]) then return false end end "
        "  for k in pairs(b) do if a[k] == nil then return false end end "
        "  return true end "
        "local values = {0, 1, -1, 31, 32, -32, -33, 127, 128, 255, 256, 65535, 65536, "
        "  -128, -129, -32768, -32769, 2^31, -2^31, -2^31-1, 2^32, 2^53, -2^53, -2^63, "
        "  0.5, -0.25, 1/3, 1e300, -1e-300, 1/0, -1/0, 3.4028234663852886e38, "
        "  '', 'a', string.rep('b', 31), string.rep('c', 32), string.rep('d', 255), "
        "  string.rep('e', 256), string.rep('f', 65535), string.rep('g', 65536), "
        "  true, false, {}, {1, 2, 3}, {a = 1, b = {c = {1, 'x', {d = false}}}}, "
        "  {[1] = 'x', [3] = 'y'}, {[0] = 0}, {[-1] = 1, [2.5] = 2}} "
        "for i = 1, 40 do local t = {} for j = 1, i * 3 do t[j] = j * 1.5 end values[#values+1] = t end "
        "local m = {} for i = 1, 70000 do m[i] = i end values[#values+1] = m "
        "local h = {} for i = 1, 300 do h['k' .. i] = i end values[#values+1] = h "
        "for i, v in ipairs(values) do "
        "  local s = cmsgpack.pack(v) "
        "  local back = cmsgpack.unpack(s) "
        "  if not same(v, back) then return 'value ' .. i end "
        "  local off, one = cmsgpack.unpack_one(s .. s, 0) "
        "  if off ~= #s or not same(v, one) then return 'unpack_one ' .. i end "
        "  off, one = cmsgpack.unpack_one(s .. s, off) "
        "  if off ~= -1 or not same(v, one) then return 'unpack_one end ' .. i end "
        "end "
        "local all = cmsgpack.pack(unpack(values, 1, 20)) "
        "local back = {cmsgpack.unpack(all)} "
        "if #back ~= 20 then return 'multi ' .. #back end "
        "for i = 1, 20 do if not same(values[i], back[i]) then return 'multi ' .. i end end "
        "local off, a, b = cmsgpack.unpack_limit(all, 2, 0) "
        "return off == #cmsgpack.pack(values[1], values[2]) and a == values[1] and b == values[2]");
    lua_close(L);
}

/* Every prefix of valid MessagePack is "Missing bytes", never a crash or an
 * over-read (ASan makes the latter visible), and garbage never crashes. */
static void test_cmsgpack_truncated_and_random_input(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "local s = cmsgpack.pack({1, 'abc', {x = 1.5, y = {2^40, -2^40}}, string.rep('z', 300), true}) "
        "for n = 0, #s - 1 do "
        "  local ok, err = pcall(cmsgpack.unpack, string.sub(s, 1, n)) "
        "  if n > 0 and (ok or not string.find(err, 'Missing bytes in input.', 1, true)) then "
        "    return 'prefix ' .. n .. ': ' .. tostring(err) end end "
        "local seed = 99 "
        "local function rnd(n) seed = (seed * 1103515245 + 12345) % 2147483648 return seed % n end "
        "for i = 1, 3000 do local t = {} for j = 1, rnd(12) + 1 do t[j] = string.char(rnd(256)) end "
        "  pcall(cmsgpack.unpack, table.concat(t)) end "
        "return true");
    lua_close(L);
}

/* ---- the libraries as the engine opens them ---------------------------------- */

static void test_libraries_register_globals(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "return type(struct.pack) == 'function' and type(struct.unpack) == 'function' "
        "and type(struct.size) == 'function' and type(cmsgpack.pack) == 'function' "
        "and type(cmsgpack.unpack_one) == 'function' and type(cmsgpack.unpack_limit) == 'function' "
        "and type(cjson.encode) == 'function' and type(cjson.decode) == 'function' "
        "and type(bit.tohex) == 'function'");
    lua_close(L);
    /* Each luaopen_* also returns its table. */
    L = luaL_newstate();
    lua_CFunction opens[] = {luaopen_struct, luaopen_cmsgpack, luaopen_cjson, luaopen_bit};
    for (size_t i = 0; i < sizeof opens / sizeof opens[0]; i++) {
        lua_pushcfunction(L, opens[i]);
        lua_call(L, 0, 1);
        CHECK(lua_istable(L, -1));
        lua_pop(L, 1);
    }
    lua_close(L);
}

/* cjson prints and parses numbers with snprintf/strtod, swapping the
 * locale's decimal point for '.': a decimal-comma LC_NUMERIC (set before
 * the library is opened, when fpconv reads it) changes nothing. */
static void test_cjson_under_decimal_comma_locale(void) {
    const char *locales[] = {"de_DE.UTF-8", "de_DE.utf8", "fr_FR.UTF-8", "fr_FR.utf8", "nl_NL.UTF-8"};
    const char *chosen = NULL;
    for (size_t i = 0; i < sizeof locales / sizeof locales[0] && !chosen; i++)
        if (setlocale(LC_NUMERIC, locales[i]) && localeconv()->decimal_point[0] == ',') chosen = locales[i];
    if (!chosen) {
        setlocale(LC_NUMERIC, "C");
        printf("    skipped: no decimal-comma locale (localedef -i de_DE -f UTF-8 DIR/de_DE.UTF-8, then LOCPATH=DIR, runs it)\n");
        return;
    }
    lua_State *L = new_script_state();
    check_lua_true(L,
        "return cjson.encode({1.5, -0.25, 1/3, 1e300}) == '[1.5,-0.25,0.33333333333333,1e+300]' "
        "and cjson.decode('[2.5, -1e-2]')[1] == 2.5 and cjson.decode('[2.5, -1e-2]')[2] == -0.01");
    lua_close(L);
    setlocale(LC_NUMERIC, "C");
}

/* ---- the Lua build --------------------------------------------------------------- */

static void test_lua_build_configuration(void) {
    lua_State *L = new_script_state();
    /* LUA_USELONGLONG: 32-bit ports format like 64-bit ones. */
    check_lua_true(L, "return string.format('%d %d %x', 2^40, -2^40 - 1, 2^36) == "
                      "'1099511627776 -1099511627777 1000000000'");
    check_lua_true(L, "return tostring(2^63) == '9.2233720368548e+18' and tostring(-0.1) == '-0.1' "
                      "and tostring(1/0) == 'inf' and 2^53 + 1 == 2^53");
    /* Numbers become integers by truncation on every port (patch
     * lua-number2int-truncate: i386 rounded). */
    check_lua_true(L, "return string.sub('hello', 2.7) == 'ello' and string.rep('x', 2.5) == 'xx' "
                      "and string.rep('x', 3.9) == 'xxx' and string.byte('abc', 1.9) == 97");
    lua_close(L);
}

/* Binary chunks are never loaded: Lua 5.1's bytecode loader trusts its
 * input, so a crafted chunk is arbitrary memory access from a script. Text
 * is always parsed as text, as Redis does (patch lua-no-bytecode). */
static void test_lua_refuses_bytecode(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "local f, err = loadstring(string.dump(function() return 1 end)) "
        "return f == nil and string.find(err, \"unexpected symbol near 'char(27)'\", 1, true) ~= nil");
    lua_close(L);
}

/* unpack() over a huge range must fail cleanly (CVE-2025-46817: the count
 * e - i + 1 overflowed int, the check was compiled away and the stack was
 * overrun); a vararg function with many arguments must get its stack
 * (CVE-2014-5461). */
static void test_lua_security_fixes(void) {
    lua_State *L = new_script_state();
    check_lua_true(L,
        "local ok, err = pcall(unpack, {}, -2^31, 2^31 - 1) "
        "if ok or not string.find(err, 'too many results to unpack', 1, true) then return err end "
        "ok, err = pcall(unpack, {}, 1, 2^31 - 1) "
        "if ok or not string.find(err, 'too many results to unpack', 1, true) then return err end "
        "ok, err = pcall(unpack, {}, 2^31 - 1, 2^31 - 1) "
        "if not ok then return err end "
        "return select('#', unpack({1, 2, 3}, -1, 1)) == 3");
    check_lua_true(L,
        "local function count(...) return select('#', ...) end "
        "local t = {} for i = 1, 200 do t[i] = i end "
        "return count(unpack(t)) == 200");
    lua_close(L);
}

TEST_MAIN(
    RUN(test_struct_matches_reference);
    RUN(test_cmsgpack_matches_reference);
    RUN(test_bit_matches_reference);
    RUN(test_cjson_matches_reference);
    RUN(test_struct_round_trips);
    RUN(test_cmsgpack_round_trips);
    RUN(test_cmsgpack_truncated_and_random_input);
    RUN(test_libraries_register_globals);
    RUN(test_cjson_under_decimal_comma_locale);
    RUN(test_lua_build_configuration);
    RUN(test_lua_refuses_bytecode);
    RUN(test_lua_security_fixes);
)
