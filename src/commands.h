/* commands.h -- the prototype of every command handler and getkeys function
 * that commands.def names, expanded from the .def itself: adding a command
 * is one entry there, and the handler then only has to exist (commands.c's
 * table refers to it, so a missing one is a link error).
 *
 * Included by server.h once client, robj, redisCommand and getKeysResult are
 * declared. A handler shared by several entries is declared several times,
 * identically, which C allows. NO_HANDLER (a container without a handler of
 * its own) expands here to a name that is declared and never defined or used.
 */
#ifndef REDIS_COMMANDS_H
#define REDIS_COMMANDS_H

#define CMD(name, handler, arity, flags, fk, lk, step, group, since, summary, args, subs, ...) \
    void handler(client *c);                                                                  \
    CMDDEF_EACH_EXTRA(COMMAND_PROTO_EXTRA, __VA_ARGS__)
#define SUB(name, handler, arity, flags, fk, lk, step, summary, args, ...) \
    void handler(client *c);                                                \
    CMDDEF_EACH_EXTRA(COMMAND_PROTO_EXTRA, __VA_ARGS__)
#define NO_HANDLER commandWithoutHandler
#define SUBCOMMANDS_BEGIN(parent)
#define SUBCOMMANDS_END(parent)
#define COMMANDS_BEGIN
#define COMMANDS_END

#define COMMAND_PROTO_EXTRA(x) COMMAND_PROTO_EXTRA_##x
#define COMMAND_PROTO_EXTRA_
#define COMMAND_PROTO_EXTRA_KEYS(...)
#define COMMAND_PROTO_EXTRA_TIPS(text)
#define COMMAND_PROTO_EXTRA_SINCE(version)
#define COMMAND_PROTO_EXTRA_GETKEYS(fn) redisGetKeysProc fn;
#define COMMAND_PROTO_EXTRA_ACL(categories)

#include "commands.def"

#undef CMD
#undef SUB
#undef NO_HANDLER
#undef SUBCOMMANDS_BEGIN
#undef SUBCOMMANDS_END
#undef COMMANDS_BEGIN
#undef COMMANDS_END
#undef COMMAND_PROTO_EXTRA
#undef COMMAND_PROTO_EXTRA_
#undef COMMAND_PROTO_EXTRA_KEYS
#undef COMMAND_PROTO_EXTRA_TIPS
#undef COMMAND_PROTO_EXTRA_SINCE
#undef COMMAND_PROTO_EXTRA_GETKEYS
#undef COMMAND_PROTO_EXTRA_ACL

#endif
