/* cluster.c -- CLUSTER, READONLY, READWRITE and ASKING on a server without
 * cluster support.
 *
 * Cluster mode is not built (a `cluster-enabled yes` directive still stops
 * start-up, config.c). These commands exist anyway because a standalone
 * Redis 7.0 (cluster-enabled no) has them: clients send CLUSTER INFO or
 * CLUSTER SLOTS to learn whether a server is a cluster, and expect the
 * commands to be listed by COMMAND with their flags (CLUSTER RESET is
 * noscript, so a script calling it is refused before it runs).
 *
 * Decisions:
 * - One handler for every subcommand and the three top-level commands,
 *   because a cluster-disabled Redis gives all of them the same error,
 *   CLUSTER HELP included. The checks that come before a handler (arity,
 *   unknown subcommand, noscript, ACL) are the dispatcher's, as for any
 *   command, so their errors match Redis's too.
 * - Nothing here changes state: the commands are declared in commands.def
 *   with Redis 7.0's arity, flags, tips and docs, and only answer.
 */
#include "server.h"

void clusterDisabledCommand(client *c) {
    addReplyError(c, "This instance has cluster support disabled");
}
