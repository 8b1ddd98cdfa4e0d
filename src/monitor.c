/* monitor.c -- MONITOR: stream every command the server executes to the
 * clients that asked for it.
 *
 * call() passes each executed command to feedMonitors() (except commands
 * flagged admin or skip_monitor, as in Redis 7); each monitor receives one
 * status line
 *     +<unix time with microseconds> [<db> <client addr>] "cmd" "arg" ...
 * with arguments quoted like redis-cli does, unix-socket clients shown as
 * "unix:<path>", and AUTH/HELLO credentials shown as "(redacted)".
 *
 * Decisions:
 * - Monitors live in a list owned here; networking.c calls
 *   monitorClientFreed() for clients flagged CLIENT_MONITOR, so the list
 *   never holds a freed client.
 * - The line is built once per command and shared by all monitors
 *   (including a monitor that runs a command itself, as in Redis).
 * - A client that becomes a monitor sees the commands executed after its
 *   MONITOR, not MONITOR itself (admin commands are never shown).
 */
#include "server.h"

#include <sys/time.h>

static list *monitors;

void monitorClientFreed(client *c) {
    if (monitors == NULL) return;
    listNode *ln = listSearchKey(monitors, c);
    if (ln) listDelNode(monitors, ln);
}

static sds catMonitorSource(sds line, client *c) {
    if (c->flags & CLIENT_SCRIPT) return sdscat(line, "lua"); /* a script's command, as Redis shows it */
    if (c->flags & CLIENT_UNIX_SOCKET) return sdscatprintf(line, "unix:%s", server.unixsocket ? server.unixsocket : "");
    return sdscat(line, getClientPeerId(c));
}

static sds catMonitorArgument(sds line, robj **argv, int argc, int j) {
    robj *arg = argv[j];
    if (commandArgIsRedacted(argv, argc, j)) return sdscat(line, "\"(redacted)\"");
    if (arg->encoding == OBJ_ENCODING_INT) return sdscatprintf(line, "\"%ld\"", (long)(intptr_t)arg->ptr);
    return sdscatrepr(line, arg->ptr, sdslen(arg->ptr));
}

static robj *monitorLine(client *c, robj **argv, int argc) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    sds line = sdscatprintf(sdsempty(), "+%ld.%06ld [%d ", (long)tv.tv_sec, (long)tv.tv_usec, c->db ? c->db->id : 0);
    line = catMonitorSource(line, c);
    line = sdscat(line, "] ");
    for (int j = 0; j < argc; j++) {
        line = catMonitorArgument(line, argv, argc, j);
        if (j != argc - 1) line = sdscatlen(line, " ", 1);
    }
    line = sdscatlen(line, "\r\n", 2);
    return createObject(OBJ_STRING, line);
}

void feedMonitors(client *c, robj **argv, int argc) {
    if (monitors == NULL || listLength(monitors) == 0 || argc == 0) return;
    robj *line = monitorLine(c, argv, argc);
    listIter li;
    listNode *ln;
    listRewind(monitors, &li);
    while ((ln = listNext(&li)) != NULL) {
        addReply(listNodeValue(ln), line);
    }
    decrRefCount(line);
}

void monitorCommand(client *c) {
    if (c->flags & (CLIENT_MULTI | CLIENT_MODULE)) { /* inside MULTI, or a module's Call: one reply per command */
        addReplyError(c, "MONITOR isn't allowed for DENY BLOCKING client");
        return;
    }
    if (c->flags & CLIENT_MONITOR) return; /* already one: ignore, as Redis does */
    if (monitors == NULL) monitors = listCreate();
    c->flags |= CLIENT_MONITOR;
    listAddNodeTail(monitors, c);
    addReply(c, shared.ok);
}
