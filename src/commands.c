/* commands.c -- the command table: redisCommandTable[] and its subcommand
 * arrays, expanded from commands.def. The table is the single source of
 * truth for dispatch, arity and flag checks, COMMAND INFO/DOCS/COUNT/LIST/
 * GETKEYS and INFO commandstats (redis-cli reads the same .def for its help).
 *
 * Each entry of commands.def becomes one designated initializer, a key-spec
 * list a file-scope compound literal, so the table is one static initializer
 * with nothing built at start-up. server.c registers every entry at start-up
 * (name -> entry dicts, full names, ids).
 *
 * The table refers to every handler and getkeys function by name, with the
 * prototypes commands.h generates from the same .def: a handler that is
 * listed but not defined anywhere fails the link, instead of leaving a
 * command silently missing.
 */
#include "server.h"

#define SUB(name, handler, arity_, flags_, fk, lk, step, summary_, args, ...)                            \
    {.declared_name = name, .proc = handler, .arity = arity_, .flags = flags_, .firstkey = fk, .lastkey = lk, \
     .keystep = step, .summary = summary_, .args_hint = args, __VA_ARGS__},
#define CMD(name, handler, arity_, flags_, fk, lk, step, group_, since_, summary_, args, subs, ...)     \
    {.declared_name = name, .proc = handler, .arity = arity_, .flags = flags_, .firstkey = fk, .lastkey = lk, \
     .keystep = step, .group = CMD_GROUP_##group_, .since = since_, .summary = summary_, .args_hint = args,           \
     .subcommands = subs, __VA_ARGS__},
#define NO_HANDLER NULL
#define SUBCOMMANDS_BEGIN(parent) static redisCommand parent##Subcommands[] = {
#define SUBCOMMANDS_END(parent) {.declared_name = NULL}};
#define COMMANDS_BEGIN redisCommand redisCommandTable[] = {
#define COMMANDS_END {.declared_name = NULL}};

#define KEYS(...)                                         \
    .key_specs = (const keySpec[]){__VA_ARGS__},          \
    .key_specs_num = (int)(sizeof((const keySpec[]){__VA_ARGS__}) / sizeof(keySpec))
#define KS(flags_, begin, find, ...) {.flags = flags_, begin, find, __VA_ARGS__}
#define INDEX(i) .bs_type = KSPEC_BS_INDEX, .bs.index = (i)
#define KEYWORD(word, from) .bs_type = KSPEC_BS_KEYWORD, .bs.keyword = {word, from}
#define BS_UNKNOWN .bs_type = KSPEC_BS_UNKNOWN
#define RANGE(last, step, lim) .fk_type = KSPEC_FK_RANGE, .fk.range = {last, step, lim}
#define KEYNUM(idx, first, step) .fk_type = KSPEC_FK_KEYNUM, .fk.keynum = {idx, first, step}
#define FK_UNKNOWN .fk_type = KSPEC_FK_UNKNOWN
#define NOTES(text) .notes = text
#define TIPS(text) .tips = text
#define GETKEYS(fn) .getkeys_proc = fn
#define SINCE(version) .since = version
#define ACL(categories) .acl_categories = (categories), .acl_categories_explicit = 1

#include "commands.def"

#undef SUB
#undef CMD
#undef NO_HANDLER
#undef SUBCOMMANDS_BEGIN
#undef SUBCOMMANDS_END
#undef COMMANDS_BEGIN
#undef COMMANDS_END
#undef KEYS
#undef KS
#undef INDEX
#undef KEYWORD
#undef BS_UNKNOWN
#undef RANGE
#undef KEYNUM
#undef FK_UNKNOWN
#undef NOTES
#undef TIPS
#undef GETKEYS
#undef SINCE
#undef ACL
