/* module_cmd.c -- MODULE on a server that does not load modules.
 *
 * Redis modules are shared objects built against Redis's module API; this
 * server does not implement that API, so nothing can be loaded. MODULE
 * exists anyway because clients and tools ask a server what it has loaded
 * (MODULE LIST on connect, to find RedisJSON or RediSearch) and expect the
 * command, its subcommands and their flags where Redis 7.0 has them.
 *
 * Decisions:
 * - MODULE LIST is the empty list: the truth, and what a Redis with no
 *   modules answers.
 * - LOAD, LOADEX and UNLOAD are "protected" as in Redis: refused by
 *   processCommand (server.c) unless enable-module-command allows them.
 *   When allowed, LOAD and LOADEX fail as a Redis whose module did not
 *   load does (its error, the reason in the log), and UNLOAD finds no
 *   module of that name. The arguments are not parsed further: whatever
 *   they are, the load could not succeed.
 * - Arity, unknown subcommands and ACL are the dispatcher's, as for any
 *   container command.
 */
#include "server.h"

static void moduleHelp(client *c) {
    const char *help[] = {
        "LIST",
        "    Return a list of loaded modules.",
        "LOAD <path> [<arg> ...]",
        "    Load a module library from <path>, passing to it any optional arguments.",
        "LOADEX <path> [[CONFIG NAME VALUE] [CONFIG NAME VALUE]] [ARGS ...]",
        "    Load a module library from <path>, while passing it module configurations and optional arguments.",
        "UNLOAD <name>",
        "    Unload a module.",
        NULL};
    addReplyHelp(c, help);
}

static void moduleRefuseLoad(client *c) {
    serverLog(LL_WARNING, "Module %s failed to load: this server does not support Redis modules",
              (char *)c->argv[2]->ptr);
    addReplyError(c, "Error loading the extension. Please check the server logs.");
}

void moduleCommand(client *c) {
    const char *sub = c->argv[1]->ptr;
    if (!strcasecmp(sub, "help")) {
        moduleHelp(c);
    } else if (!strcasecmp(sub, "list")) {
        addReplyArrayLen(c, 0);
    } else if (!strcasecmp(sub, "load") || !strcasecmp(sub, "loadex")) {
        moduleRefuseLoad(c);
    } else { /* unload: the only other subcommand the table has */
        addReplyError(c, "Error unloading module: no such module with that name");
    }
}
