/* mcmdinfo.c -- a test module for SetCommandInfo, used by
 * tests/unit/moduleapi-cmdinfo.tcl. Built against Redis 7.0's
 * redismodule.h by utils/build-test-modules.sh, so the same .so runs in
 * Redis 7.0.15.
 *
 * In its OnLoad it describes two commands and tries invalid descriptions:
 * MCI.GET key [WITHX x | WITHY] [FLAG ...]: readonly, created with the range
 *   1 1 1; described with a summary, complexity, since, two history entries,
 *   a tip, arity -2, one key spec (RO ACCESS, index 1, find_keys omitted)
 *   and its arguments. Replies its key's type.
 * MCI.MOVE src dst... [STORE key]: write, created without keys; described
 *   with three specs (index 1 RW DELETE, index 2 to the end RW INSERT, and
 *   the key after STORE, OW UPDATE). Replies OK.
 * MCI.PLAIN: no description at all (a command without info).
 * MCI.RESULTS: what each invalid description got, as "name:errno" words
 *   (EINVAL, EEXIST or ok). */
#include "redismodule.h"
#include "mcall.h" /* mcallReply */

#include <errno.h>
#include <stdio.h>
#include <string.h>

static char results[512];

static int typeCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    if (argc < 2) return RedisModule_WrongArity(ctx);
    return mcallReply(ctx, RedisModule_Call(ctx, "TYPE", "s", argv[1]));
}

static int okCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return RedisModule_ReplyWithSimpleString(ctx, "OK");
}

static int resultsCmd(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    return RedisModule_ReplyWithSimpleString(ctx, results);
}

static void note(const char *name, int res) {
    char word[64];
    snprintf(word, sizeof word, "%s%s:%s", results[0] ? " " : "", name,
             res == REDISMODULE_OK ? "ok" : errno == EINVAL ? "EINVAL" : errno == EEXIST ? "EEXIST" : "other");
    strncat(results, word, sizeof results - strlen(results) - 1);
}

static int describeGet(RedisModuleCommand *cmd) {
    RedisModuleCommandHistoryEntry history[] = {{"1.1.0", "Added WITHY."}, {"1.2.0", "Added FLAG."}, {0}};
    RedisModuleCommandKeySpec specs[] = {
        {.flags = REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_ACCESS,
         .begin_search_type = REDISMODULE_KSPEC_BS_INDEX,
         .bs.index.pos = 1},
        {0}};
    RedisModuleCommandArg withx[] = {{.name = "withx", .type = REDISMODULE_ARG_TYPE_STRING, .token = "WITHX"},
                                     {.name = "withy", .type = REDISMODULE_ARG_TYPE_PURE_TOKEN, .token = "WITHY",
                                      .since = "1.1.0"},
                                     {0}};
    RedisModuleCommandArg args[] = {
        {.name = "key", .type = REDISMODULE_ARG_TYPE_KEY, .key_spec_index = 0},
        {.name = "mode", .type = REDISMODULE_ARG_TYPE_ONEOF, .flags = REDISMODULE_CMD_ARG_OPTIONAL, .subargs = withx},
        {.name = "flag", .type = REDISMODULE_ARG_TYPE_STRING, .token = "FLAG", .summary = "a flag",
         .flags = REDISMODULE_CMD_ARG_OPTIONAL | REDISMODULE_CMD_ARG_MULTIPLE_TOKEN, .deprecated_since = "1.3.0"},
        {0}};
    RedisModuleCommandInfo info = {
        .version = REDISMODULE_COMMAND_INFO_VERSION,
        .summary = "Returns the type of a key",
        .complexity = "O(1)",
        .since = "1.0.0",
        .history = history,
        .tips = "nondeterministic_output",
        .arity = -2,
        .key_specs = specs,
        .args = args,
    };
    return RedisModule_SetCommandInfo(cmd, &info);
}

static int describeMove(RedisModuleCommand *cmd) {
    RedisModuleCommandKeySpec specs[] = {
        {.flags = REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_DELETE,
         .begin_search_type = REDISMODULE_KSPEC_BS_INDEX,
         .bs.index.pos = 1,
         .find_keys_type = REDISMODULE_KSPEC_FK_RANGE,
         .fk.range = {0, 1, 0}},
        {.flags = REDISMODULE_CMD_KEY_RW | REDISMODULE_CMD_KEY_INSERT,
         .begin_search_type = REDISMODULE_KSPEC_BS_INDEX,
         .bs.index.pos = 2,
         .find_keys_type = REDISMODULE_KSPEC_FK_RANGE,
         .fk.range = {-1, 1, 0}},
        {.flags = REDISMODULE_CMD_KEY_OW | REDISMODULE_CMD_KEY_UPDATE,
         .begin_search_type = REDISMODULE_KSPEC_BS_KEYWORD,
         .bs.keyword = {"STORE", 1},
         .find_keys_type = REDISMODULE_KSPEC_FK_RANGE,
         .fk.range = {0, 1, 0}},
        {0}};
    RedisModuleCommandInfo info = {.version = REDISMODULE_COMMAND_INFO_VERSION, .key_specs = specs};
    return RedisModule_SetCommandInfo(cmd, &info);
}

/* Each invalid description, on a command of its own. */
static void tryInvalid(RedisModuleCtx *ctx) {
    RedisModuleCommandInfo none = {.version = NULL, .summary = "x"};
    RedisModuleCommand *c = RedisModule_GetCommand(ctx, "mci.bad1");
    note("noversion", RedisModule_SetCommandInfo(c, &none));

    RedisModuleCommandKeySpec two_access[] = {{.flags = REDISMODULE_CMD_KEY_RO | REDISMODULE_CMD_KEY_RW,
                                               .begin_search_type = REDISMODULE_KSPEC_BS_INDEX,
                                               .bs.index.pos = 1},
                                              {0}};
    RedisModuleCommandInfo i1 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .key_specs = two_access};
    note("twoaccess", RedisModule_SetCommandInfo(c, &i1));

    RedisModuleCommandKeySpec no_keyword[] = {
        {.flags = REDISMODULE_CMD_KEY_RO, .begin_search_type = REDISMODULE_KSPEC_BS_KEYWORD}, {0}};
    RedisModuleCommandInfo i2 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .key_specs = no_keyword};
    note("nokeyword", RedisModule_SetCommandInfo(c, &i2));

    RedisModuleCommandArg no_token[] = {{.name = "t", .type = REDISMODULE_ARG_TYPE_PURE_TOKEN}, {0}};
    RedisModuleCommandInfo i3 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .args = no_token};
    note("notoken", RedisModule_SetCommandInfo(c, &i3));

    RedisModuleCommandArg no_subargs[] = {{.name = "o", .type = REDISMODULE_ARG_TYPE_ONEOF}, {0}};
    RedisModuleCommandInfo i4 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .args = no_subargs};
    note("nosubargs", RedisModule_SetCommandInfo(c, &i4));

    RedisModuleCommandArg bad_type[] = {{.name = "b", .type = (RedisModuleCommandArgType)42}, {0}};
    RedisModuleCommandInfo i5 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .args = bad_type};
    note("badtype", RedisModule_SetCommandInfo(c, &i5));

    RedisModuleCommandHistoryEntry no_changes[] = {{"1.0.0", NULL}, {0}};
    RedisModuleCommandInfo i6 = {.version = REDISMODULE_COMMAND_INFO_VERSION, .history = no_changes};
    note("nochanges", RedisModule_SetCommandInfo(c, &i6));

    RedisModuleCommandInfo ok = {.version = REDISMODULE_COMMAND_INFO_VERSION, .summary = "once"};
    note("first", RedisModule_SetCommandInfo(c, &ok));
    note("again", RedisModule_SetCommandInfo(c, &ok));
}

int RedisModule_OnLoad(RedisModuleCtx *ctx, RedisModuleString **argv, int argc) {
    (void)argv;
    (void)argc;
    if (RedisModule_Init(ctx, "mcmdinfo", 1, REDISMODULE_APIVER_1) == REDISMODULE_ERR) return REDISMODULE_ERR;
    if (RedisModule_CreateCommand(ctx, "mci.get", typeCmd, "readonly", 1, 1, 1) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mci.move", okCmd, "write", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mci.plain", okCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mci.bad1", okCmd, "", 0, 0, 0) == REDISMODULE_ERR ||
        RedisModule_CreateCommand(ctx, "mci.results", resultsCmd, "", 0, 0, 0) == REDISMODULE_ERR)
        return REDISMODULE_ERR;
    if (describeGet(RedisModule_GetCommand(ctx, "mci.get")) != REDISMODULE_OK) return REDISMODULE_ERR;
    if (describeMove(RedisModule_GetCommand(ctx, "mci.move")) != REDISMODULE_OK) return REDISMODULE_ERR;
    tryInvalid(ctx);
    return REDISMODULE_OK;
}
