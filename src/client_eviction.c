/* client_eviction.c -- `maxmemory-clients`: disconnecting the clients that use
 * the most memory when all clients together use more than a limit, and the
 * running total of client memory that INFO's mem_clients_normal shows.
 *
 * Design decisions:
 * - A client's memory is what CLIENT LIST shows as tot-mem: the struct, the
 *   query buffer, the current argv, the inline reply buffer, the reply
 *   list (clientTotalMemory()), and its MULTI queue, WATCHed keys, pub/sub
 *   subscriptions and tracking prefixes (clientStateMemory()). Each client remembers the amount it last
 *   contributed (c->mem_counted) and server.clients_mem_total is the sum,
 *   so an update after a read, a write, a new reply block, a command or a
 *   cron resize is O(1): subtract the old figure, add the new one. Nothing
 *   walks the client list per command.
 * - Without maxmemory-clients (the default) nothing needs the total between
 *   two INFOs, so the updates are skipped (an inline test in the header:
 *   they were ~150 instructions of a GET at -P 1, issue #39) and INFO walks
 *   the clients instead (clientsMemoryTotal()): its figure is as exact as
 *   the per-event one, at O(clients) per INFO. Setting a limit walks them
 *   once, so the total is right before the first eviction check. The sum
 *   of the clients' mem_counted is the total in both modes, so a client
 *   freed while its share is stale still leaves an exact total.
 * - The list is walked only when the total is at or over the limit (the
 *   same comparison Redis makes), to pick the largest evictable client; the
 *   walk repeats until the total is under the limit. If a walk finds no
 *   candidate (everyone is NO-EVICT), further walks wait for the next cron
 *   tick, so a stuck state costs one walk per tick, not one per command.
 * - An evicted client is freed at once (as CLIENT KILL frees others), so
 *   it is gone from CLIENT LIST and its memory is back before the next
 *   command's maxmemory check (else keys would be evicted too). The one
 *   exception is the client whose read handler or command called the check
 *   (`caller`): it is closed with freeClientAsync(), stops counting at once
 *   and has its query and reply buffers released right away.
 * - Never evicted: clients with CLIENT NO-EVICT, clients without a
 *   connection (the AOF loader's fake client is not even counted), our
 *   replicas (not counted either: theirs is mem_clients_slaves) and the
 *   client whose command is running (server.current_client); networking.c
 *   checks again right after the command ends.
 * - The setting is a memory value or a whole percentage of maxmemory
 *   ("10%"); a percentage with maxmemory 0 means off. The effective limit
 *   is at least 128 KB, as in Redis. Parsing, validation
 *   messages and the CONFIG GET form are those of Redis 7.0, except that a
 *   value past LLONG_MAX is refused as "not a memory value" (Redis wraps).
 */
#include "client_eviction.h"
#include "tracking.h"

#define CLIENT_EVICTION_MIN_LIMIT (128 * 1024)

static int eviction_stuck; /* a walk found nothing evictable; cleared by the cron */

/* ---- accounting -------------------------------------------------------------------- */

/* Transaction, subscriptions and tracking prefixes: they grow with what
 * the client asks for, so a client can be evicted for them as in Redis. */
size_t clientStateMemory(client *c) {
    return multiStateMemory(c) + pubsubClientMemory(c) + trackingClientMemory(c);
}

size_t clientTotalMemory(client *c) {
    size_t bytes = sizeof(client) + c->buf_usable_size + getClientOutputBufferMemoryUsage(c) + c->argv_len_sum;
    if (c->querybuf) bytes += sdsalloc(c->querybuf); /* its capacity: no allocator call on this hot path */
    bytes += queryBufferClaim(c); /* a big argument's announced rest, as Redis reserves it */
    bytes += (size_t)c->argv_len * sizeof(robj *);
    return bytes + clientStateMemory(c);
}

/* Brings c's share of the running total up to date. A client being closed
 * counts for nothing, and so does a replica of ours, as in Redis: its
 * memory is INFO's mem_clients_slaves, and a slow replica's stream must not
 * get ordinary clients evicted. */
void clientMemoryUpdate(client *c) {
    if (c->conn == NULL && c->mem_counted == 0) return;
    int counted = c->conn != NULL && !(c->flags & CLIENT_CLOSE_ASAP) && getClientType(c) != CLIENT_TYPE_REPLICA;
    size_t now = counted ? clientTotalMemory(c) : 0;
    server.clients_mem_total = server.clients_mem_total - c->mem_counted + now;
    c->mem_counted = now;
}

static void updateEveryClient(void) {
    listIter li;
    listNode *ln;
    if (server.clients == NULL) return; /* reading the config file */
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) clientMemoryUpdate(listNodeValue(ln));
}

size_t clientsMemoryTotal(void) {
    if (!clientEvictionConfigured()) updateEveryClient();
    return server.clients_mem_total;
}

/* freeClient(): its memory leaves the clients' total. */
void clientEvictionClientFreed(client *c) {
    server.clients_mem_total -= c->mem_counted;
    c->mem_counted = 0;
}

/* ---- evicting ------------------------------------------------------------------------ */

/* The limit in bytes, 0 when off. Like Redis, never under 128 KB: a tiny
 * setting would disconnect every client, including the one fixing it. */
unsigned long long clientEvictionLimit(void) {
    unsigned long long limit = server.maxmemory_clients;
    if (server.maxmemory_clients_perc)
        limit = server.maxmemory / 100 * (unsigned long long)server.maxmemory_clients_perc +
                server.maxmemory % 100 * (unsigned long long)server.maxmemory_clients_perc / 100;
    if (limit == 0) return 0;
    return limit < CLIENT_EVICTION_MIN_LIMIT ? CLIENT_EVICTION_MIN_LIMIT : limit;
}

static int clientIsEvictable(client *c) {
    if (c->conn == NULL || c == server.current_client) return 0;
    return !(c->flags & (CLIENT_NO_EVICT | CLIENT_CLOSE_ASAP));
}

static client *largestEvictableClient(void) {
    client *best = NULL;
    listIter li;
    listNode *ln;
    listRewind(server.clients, &li);
    while ((ln = listNext(&li)) != NULL) {
        client *c = listNodeValue(ln);
        if (clientIsEvictable(c) && (best == NULL || c->mem_counted > best->mem_counted)) best = c;
    }
    return best;
}

/* An evicted client gets no more replies and reads nothing (it is closing),
 * so its buffers can go at once: the memory must be back before the next
 * command checks maxmemory, or keys would be evicted for a client that is
 * already gone. The struct itself waits for beforeSleep(). */
static void releaseClientBuffers(client *c) {
    listEmpty(c->reply);
    c->reply_bytes = 0;
    replyBufferNoteFlush(c);
    c->bufpos = c->sentlen = 0;
    sdsfree(c->querybuf);
    c->querybuf = sdsempty();
    c->qb_pos = 0;
}

static void evictClient(client *c, client *caller) {
    sds info = catClientInfoString(sdsempty(), c);
    serverLog(LL_NOTICE, "Evicting client: %s", info);
    sdsfree(info);
    server.stat_evictedclients++;
    if (c != caller) {
        freeClient(c); /* as CLIENT KILL does: gone before the next command */
        return;
    }
    freeClientAsync(c);
    releaseClientBuffers(c);
    clientMemoryUpdate(c); /* its share drops to zero now */
}

void evictClientsOverLimit(client *caller) {
    unsigned long long limit = clientEvictionLimit();
    if (limit == 0 || eviction_stuck) return;
    while (server.clients_mem_total >= limit) {
        client *c = largestEvictableClient();
        if (c == NULL) {
            eviction_stuck = 1;
            return;
        }
        evictClient(c, caller);
    }
}

void clientEvictionRecheck(void) { eviction_stuck = 0; }

void clientEvictionCron(void) {
    eviction_stuck = 0;
    evictClientsIfNeeded(NULL);
}

/* ---- the maxmemory-clients directive ------------------------------------------------- */

static int allDigits(const char *s, size_t len) {
    if (len == 0) return 0;
    for (size_t i = 0; i < len; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* "N%" with 0 <= N <= 100. Returns C_ERR with *err set when malformed. */
static int parsePercent(const char *s, size_t len, int *perc, sds *err) {
    unsigned long long v;
    if (!allDigits(s, len - 1) || !string2ull(s, len - 1, &v)) {
        *err = sdsnew("argument must be a memory or percent value");
        return C_ERR;
    }
    if (v > 100) {
        *err = sdsnew("percentage argument must be less or equal to 100");
        return C_ERR;
    }
    *perc = (int)v;
    return C_OK;
}

/* A memory value; "" and a bare unit ("kb") read as 0, as in Redis. */
static int parseBytes(const char *s, unsigned long long *bytes, sds *err) {
    int bad = 0;
    if (s[0] == '\0' || (s[0] >= 'a' && s[0] <= 'z') || (s[0] >= 'A' && s[0] <= 'Z')) {
        sds padded = sdscat(sdsnew("0"), s);
        *bytes = memtoull(padded, &bad);
        sdsfree(padded);
    } else {
        *bytes = memtoull(s, &bad);
    }
    if (bad || *bytes > (unsigned long long)LLONG_MAX) {
        *err = sdsnew("argument must be a memory or percent value");
        return C_ERR;
    }
    return C_OK;
}

int clientEvictionSetConfig(sds *argv, int argc, int accumulate, sds *err) {
    (void)accumulate;
    if (argc != 1) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    const char *s = argv[0];
    size_t len = strlen(s);
    int perc = 0;
    unsigned long long bytes = 0;
    if (len > 0 && s[len - 1] == '%') {
        if (parsePercent(s, len, &perc, err) != C_OK) return C_ERR;
    } else if (parseBytes(s, &bytes, err) != C_OK) {
        return C_ERR;
    }
    int was_configured = clientEvictionConfigured();
    server.maxmemory_clients_perc = perc;
    server.maxmemory_clients = bytes;
    eviction_stuck = 0;
    if (!was_configured) updateEveryClient(); /* the shares were not kept up to date */
    return C_OK;
}

sds clientEvictionGetConfig(sds out) {
    if (server.maxmemory_clients_perc) return sdscatprintf(out, "%d%%", server.maxmemory_clients_perc);
    return sdscatprintf(out, "%llu", server.maxmemory_clients);
}
