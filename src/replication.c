/* replication.c -- the primary side of replication: SYNC/PSYNC, the backlog,
 * replica clients, REPLCONF, WAIT, min-replicas, ROLE and INFO replication.
 *
 * The stream: propagate.c hands every op to replicationFeed() (emitOp, next
 * to the AOF), which writes it as RESP, with a SELECT when the db changes,
 * to the backlog (a ring of repl-backlog-size bytes) and to every replica.
 * A replica that is receiving its snapshot gathers the stream in its
 * `pending` buffer (bounded by the replica class of
 * client-output-buffer-limit) and gets it once the snapshot is out; an
 * online one gets it as its output, so the output limit applies as for any
 * client.
 *
 * Full syncs: with repl-diskless-sync a fork child writes the RDB, with
 * Redis's "$EOF:<40 chars>" framing, to a pipe that the parent reads and
 * writes to every replica of the batch (repl_rdbpipe.c, as Redis 7.0: the
 * parent sees each replica's progress, drops one that stopped reading
 * after repl-timeout, and the others go on). Without it, the child saves
 * dump.rdb first and sends the file itself with "$<len>" framing, straight
 * to the replicas' sockets (made blocking in the child, repl-timeout as
 * send timeout); the parent never writes to a socket the child owns, and
 * learns from the child's exit status (a bit per failed replica) which
 * replicas are online. A TLS replica is the exception there: its TLS
 * session lives in the parent, so the child writes its payload to a pipe
 * and the parent relays it with connWrite (see "TLS replicas" below).
 * +FULLRESYNC carries the offset at fork time, so the snapshot plus the
 * gathered stream is exactly the history to that point. Without fork()
 * (persistence-mode forkless, HAVE_FORK=0, or a fork refused) snapshot.c
 * writes dump.rdb in slices from that same moment and the main thread
 * sends the file; diskless sync then goes through the disk (logged).
 * The full sync's snapshot counts as a BGSAVE (rdb.c): never two at once.
 * A replica asking while a disk-based sync runs shares it (its +FULLRESYNC
 * has that sync's offset, its pending stream is a copy of a sibling's) and
 * gets dump.rdb from the main thread when the snapshot is written.
 *
 * Partial syncs (PSYNC replid offset): accepted when the id is ours, or our
 * previous one up to second_repl_offset (a promoted replica's siblings),
 * and the backlog still holds the offset. A snapshot written while a
 * backlog exists carries repl-id/repl-offset, and a server that loads it at
 * start-up continues that history (restart-resync, as Redis 7.0).
 *
 * WAIT blocks the client (CLIENT_BLOCKED, our own list) until enough
 * replicas acknowledge the client's own last write: call() notes, per
 * client, the stream offset after each command that fed it (woff), as
 * Redis does, so a WAIT waits for nothing written by others. The replicas
 * are asked at once with REPLCONF GETACK *. In MULTI it answers at once;
 * scripts can't call it (CMD_NOSCRIPT); CLIENT UNBLOCK releases it with
 * the count or -UNBLOCKED (blocked.c asks replicationUnblockWait()). FAILOVER pauses writes, waits for a replica to
 * acknowledge everything, then follows it with "PSYNC ... FAILOVER".
 *
 * A replica (replica.c) runs its primary's stream through the normal call
 * path and feeds the bytes it applied to replicationFeedRaw(), so its
 * backlog and its own replicas see the primary's stream byte for byte.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/wait.h>

#include "replication.h"
#include "osrandom.h"
#include "persistio.h"
#include "snapshot.h"

int replicationStreamActive = 0;

static struct {
    char master_replid[CONFIG_RUN_ID_SIZE + 1], master_replid2[CONFIG_RUN_ID_SIZE + 1];
    long long master_repl_offset;
    long long second_repl_offset; /* -1: master_replid2 means nothing */
    int seldb;               /* the db of the stream's last SELECT, -1: none yet */
    char *repl_backlog;      /* a ring of repl_backlog_size bytes, NULL: no backlog */
    long long repl_backlog_size, repl_backlog_idx, repl_backlog_histlen, repl_backlog_first_byte_offset;
    list *replicas;
    list *waiters;           /* clients blocked in WAIT */
    list *resume;            /* WAIT clients released: their pipelined input runs in the cron */
    pid_t child;
    int forkless_sync;       /* a forkless snapshot (snapshot.c) is writing the RDB for a full sync */
    int child_diskless;
    long long child_start_ms;
    long long first_waiting_ms; /* the oldest replica waiting for a full sync, 0: none */
    char sync_replid[CONFIG_RUN_ID_SIZE + 1]; /* what the running full sync announced */
    long long sync_offset;
    long long no_replicas_since;
    long long last_ping_ms;
    long long sync_full, sync_partial_ok, sync_partial_err;
    long long net_output_bytes; /* the stream, as queued to replicas */
} repl = {.second_repl_offset = -1, .seldb = -1, .child = -1};

/* ---- ids and offsets ------------------------------------------------------------------------ */

static void randomHex(char *out, size_t n) {
    static const char hex[] = "0123456789abcdef";
    unsigned char raw[64];
    osRandomBytes(raw, n / 2 + 1);
    for (size_t j = 0; j < n; j++) out[j] = hex[(raw[j / 2] >> ((j & 1) * 4)) & 15];
    out[n] = '\0';
}

void changeReplicationId(void) { randomHex(repl.master_replid, CONFIG_RUN_ID_SIZE); }

static void clearReplicationId2(void) {
    memset(repl.master_replid2, '0', CONFIG_RUN_ID_SIZE);
    repl.master_replid2[CONFIG_RUN_ID_SIZE] = '\0';
    repl.second_repl_offset = -1;
}

const char *replicationReplId(void) { return repl.master_replid; }
const char *replicationReplId2(void) { return repl.master_replid2; }
long long replicationSecondOffset(void) { return repl.second_repl_offset; }
long long replicationOffset(void) { return repl.master_repl_offset; }

void replicationShiftId(void) {
    memcpy(repl.master_replid2, repl.master_replid, sizeof repl.master_replid);
    repl.second_repl_offset = repl.master_repl_offset + 1;
    changeReplicationId();
    serverLog(LL_NOTICE, "Setting secondary replication ID to %s, valid up to offset: %lld. New replication ID is %s",
              repl.master_replid2, repl.second_repl_offset, repl.master_replid);
}

void replicationContinueWithId(const char *replid) {
    if (!strcmp(replid, repl.master_replid)) return;
    memcpy(repl.master_replid2, repl.master_replid, sizeof repl.master_replid);
    repl.second_repl_offset = repl.master_repl_offset + 1;
    memcpy(repl.master_replid, replid, CONFIG_RUN_ID_SIZE);
    repl.master_replid[CONFIG_RUN_ID_SIZE] = '\0';
    replicationDropReplicas(); /* they must learn the new id: they PSYNC again, and continue */
}

/* After a full sync the history is the primary's: its id, its offset, and
 * a backlog that starts there. */
void replicationSetHistory(const char *replid, long long offset) {
    memcpy(repl.master_replid, replid, CONFIG_RUN_ID_SIZE);
    repl.master_replid[CONFIG_RUN_ID_SIZE] = '\0';
    clearReplicationId2();
    repl.master_repl_offset = offset;
    if (repl.repl_backlog) {
        repl.repl_backlog_histlen = 0;
        repl.repl_backlog_idx = 0;
        repl.repl_backlog_first_byte_offset = offset + 1;
    }
    replicationCreateBacklogIfNone();
}

void replicationNoteStreamDb(int dbid) { repl.seldb = dbid; }

/* ---- the backlog -------------------------------------------------------------------------------- */

/* The ring's memory, or NULL when size cannot be had: more than a 32-bit
 * size_t holds (repl-backlog-size is 64-bit everywhere), or more than the
 * system gives. A bad value must not truncate or abort. */
static char *backlogAlloc(long long size) {
    if (size <= 0 || (unsigned long long)size > SIZE_MAX / 2) return NULL;
    return ztrymalloc((size_t)size);
}

void replicationCreateBacklogIfNone(void) {
    if (repl.repl_backlog) return;
    repl.repl_backlog_size = server.repl_backlog_size;
    repl.repl_backlog = backlogAlloc(repl.repl_backlog_size);
    if (repl.repl_backlog == NULL) {
        serverLog(LL_WARNING, "Can't allocate a replication backlog of %lld bytes: it takes %d bytes instead",
                  repl.repl_backlog_size, REPL_BACKLOG_MIN_SIZE);
        repl.repl_backlog_size = REPL_BACKLOG_MIN_SIZE;
        repl.repl_backlog = zmalloc(REPL_BACKLOG_MIN_SIZE);
    }
    repl.repl_backlog_idx = repl.repl_backlog_histlen = 0;
    repl.repl_backlog_first_byte_offset = repl.master_repl_offset + 1;
    repl.seldb = -1;
    replicationStreamActive = 1;
}

/* INFO mem_replication_backlog, MEMORY STATS replication.backlog: what the
 * ring takes (allocated whole when the first replica comes). */
unsigned long replicationReplicaCount(void) { return listLength(repl.replicas); }

size_t replicationBacklogMemory(void) { return repl.repl_backlog ? zmalloc_size(repl.repl_backlog) : 0; }

/* The stream a replica has not been sent yet while its snapshot is sent or
 * its first ACK awaited: part of its output buffer. */
size_t replicationPendingMemory(const client *c) {
    return c->repl && c->repl->pending ? sdsAllocSize(c->repl->pending) : 0;
}

/* What our replicas' output buffers hold: like the AOF buffer, not counted
 * against maxmemory (as in Redis), so a slow replica never evicts keys. */
size_t replicationReplicasOutputMemory(void) {
    size_t total = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) total += getClientOutputBufferMemoryUsage(listNodeValue(ln));
    return total;
}

/* The ring at server.repl_backlog_size, with the newest bytes it held
 * (as many as fit); see config.c's applyReplBacklogSize. A size that
 * cannot be allocated leaves the ring as it is (and says so): Redis 7.0
 * grows its backlog block by block, so CONFIG SET never fails there. */
void replicationResizeBacklog(void) {
    if (!repl.repl_backlog || repl.repl_backlog_size == server.repl_backlog_size) return;
    long long size = server.repl_backlog_size;
    long long keep = repl.repl_backlog_histlen < size ? repl.repl_backlog_histlen : size;
    char *ring = backlogAlloc(size);
    if (ring == NULL) {
        serverLog(LL_WARNING, "Can't resize the replication backlog to %lld bytes: it stays at %lld bytes", size,
                  repl.repl_backlog_size);
        return;
    }
    long long j = (repl.repl_backlog_idx - keep + repl.repl_backlog_size) % repl.repl_backlog_size;
    for (long long done = 0; done < keep;) {
        long long n = repl.repl_backlog_size - j < keep - done ? repl.repl_backlog_size - j : keep - done;
        memcpy(ring + done, repl.repl_backlog + j, (size_t)n);
        done += n;
        j = (j + n) % repl.repl_backlog_size;
    }
    zfree(repl.repl_backlog);
    repl.repl_backlog = ring;
    repl.repl_backlog_size = size;
    repl.repl_backlog_idx = keep % size;
    repl.repl_backlog_histlen = keep;
    repl.repl_backlog_first_byte_offset = repl.master_repl_offset - keep + 1;
}

static void freeBacklog(void) {
    zfree(repl.repl_backlog);
    repl.repl_backlog = NULL;
    repl.repl_backlog_histlen = 0;
    replicationStreamActive = 0;
}

static void backlogAppend(const char *p, size_t len) {
    repl.master_repl_offset += (long long)len;
    while (len) {
        size_t room = (size_t)(repl.repl_backlog_size - repl.repl_backlog_idx), n = len < room ? len : room;
        memcpy(repl.repl_backlog + repl.repl_backlog_idx, p, n);
        repl.repl_backlog_idx = (repl.repl_backlog_idx + (long long)n) % repl.repl_backlog_size;
        repl.repl_backlog_histlen += (long long)n;
        p += n;
        len -= n;
    }
    if (repl.repl_backlog_histlen > repl.repl_backlog_size) repl.repl_backlog_histlen = repl.repl_backlog_size;
    repl.repl_backlog_first_byte_offset = repl.master_repl_offset - repl.repl_backlog_histlen + 1;
}

/* The backlog from offset `from` (which it holds) to its end, as c's output. */
static long long sendBacklogFrom(client *c, long long from) {
    long long skip = from - repl.repl_backlog_first_byte_offset, len = repl.repl_backlog_histlen - skip;
    long long j = (repl.repl_backlog_idx - repl.repl_backlog_histlen + skip + 2 * repl.repl_backlog_size) %
                  repl.repl_backlog_size;
    long long left = len;
    while (left > 0) {
        long long n = repl.repl_backlog_size - j < left ? repl.repl_backlog_size - j : left;
        addReplyProto(c, repl.repl_backlog + j, (size_t)n);
        j = (j + n) % repl.repl_backlog_size;
        left -= n;
    }
    return len;
}

/* ---- feeding the stream --------------------------------------------------------------------- */

static sds catBulk(sds buf, const char *p, size_t len) {
    buf = sdscatfmt(buf, "$%U\r\n", (unsigned long long)len);
    buf = sdscatlen(buf, p, len);
    return sdscatlen(buf, "\r\n", 2);
}

static sds catSelect(sds buf, int dbid) {
    char id[LONG_STR_SIZE];
    int n = ll2string(id, sizeof id, dbid);
    return sdscatfmt(buf, "*2\r\n$6\r\nSELECT\r\n$%i\r\n%s\r\n", n, id);
}

static sds catCommand(sds buf, robj **argv, int argc) {
    buf = sdscatfmt(buf, "*%i\r\n", argc);
    for (int j = 0; j < argc; j++) {
        if (sdsEncodedObject(argv[j])) {
            buf = catBulk(buf, argv[j]->ptr, sdslen(argv[j]->ptr));
        } else {
            char num[LONG_STR_SIZE];
            int n = ll2string(num, sizeof num, (long)argv[j]->ptr);
            buf = catBulk(buf, num, (size_t)n);
        }
    }
    return buf;
}

static void gatherPending(client *c, replClient *r, const char *buf, size_t len) {
    r->pending = sdscatlen(r->pending, buf, len);
    unsigned long long hard = clientHardLimitBytes(CLIENT_TYPE_REPLICA);
    if (hard && sdslen(r->pending) > hard && !(c->flags & CLIENT_CLOSE_ASAP)) {
        serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.",
                  getClientPeerId(c));
        server.stat_client_outbuf_limit_disconnections++;
        freeClientAsync(c);
    }
}

void replicationFeedRaw(const char *buf, size_t len) {
    if (!repl.repl_backlog) return;
    backlogAppend(buf, len);
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        if (r->state == REPLICA_ONLINE && !r->wait_first_ack) {
            addReplyProto(c, buf, len);
            repl.net_output_bytes += (long long)len;
        } else if (r->state == REPLICA_WAIT_BGSAVE_END || r->wait_first_ack) {
            gatherPending(c, r, buf, len);
        }
    }
}

/* One op of our own (a replica's stream comes through replicationFeedRaw). */
void replicationFeed(int dbid, robj **argv, int argc) {
    if (!repl.repl_backlog || replicationIsReplica() || replicaIsApplyingStream()) return;
    sds buf = sdsempty();
    if (dbid != repl.seldb) {
        buf = catSelect(buf, dbid);
        repl.seldb = dbid;
    }
    buf = catCommand(buf, argv, argc);
    replicationFeedRaw(buf, sdslen(buf));
    sdsfree(buf);
}

/* DEBUG REPLICATE: argv goes to the replicas in whatever database the
 * stream is in (no SELECT), and not to the AOF, as Redis 7.0 sends it: a
 * test's way to make a replica diverge. */
void replicationFeedInStreamDb(robj **argv, int argc) { replicationFeed(repl.seldb, argv, argc); }

static void feedPlain(const char *resp) {
    if (replicationIsReplica()) return;
    replicationFeedRaw(resp, strlen(resp));
}

/* ---- replica clients ------------------------------------------------------------------------ */

replClient *replClientOf(client *c) {
    if (c->repl == NULL) c->repl = zcalloc(sizeof(replClient));
    return c->repl;
}

static const char *replicaIp(client *c) {
    replClient *r = c->repl;
    if (r->announced_ip[0]) return r->announced_ip;
    static char ip[NET_ADDR_STR_LEN];
    snprintf(ip, sizeof ip, "%s", getClientPeerId(c)); /* "ip:port", cached: it outlives the socket */
    char *colon = strrchr(ip, ':');
    if (colon) *colon = '\0';
    return ip;
}

const char *replicaName(client *c) {
    static char name[NET_ADDR_STR_LEN + 16];
    if (c->repl->listening_port == 0) /* redis-cli --rdb, a raw SYNC: Redis's words */
        snprintf(name, sizeof name, "%s:<unknown-replica-port>", replicaIp(c));
    else
        snprintf(name, sizeof name, "%s:%d", replicaIp(c), c->repl->listening_port);
    return name;
}

void replicationDropReplicas(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) freeClientAsync(listNodeValue(ln));
}

static int countAcked(long long offset) {
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        replClient *r = ((client *)listNodeValue(ln))->repl;
        if (r->state == REPLICA_ONLINE && r->ack_off >= offset) n++;
    }
    return n;
}

int replicationPrimaryOnline(void) {
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) n += ((client *)listNodeValue(ln))->repl->state == REPLICA_ONLINE;
    return n;
}

static int countGoodReplicas(void) {
    int n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        replClient *r = ((client *)listNodeValue(ln))->repl;
        if (r->state == REPLICA_ONLINE && (server.mstime - r->ack_ms) / 1000 <= server.min_replicas_max_lag) n++;
    }
    return n;
}

static void unwait(client *c, int acked);
static void relayStop(client *c);
static void killChildIfUnused(int freed_was_waiting);

void replicationClientFreed(client *c) {
    replClient *r = c->repl;
    int r_was_waiting = r->state == REPLICA_WAIT_BGSAVE_END;
    if (c->flags & CLIENT_SLAVE) {
        listNode *ln = listSearchKey(repl.replicas, c);
        if (ln) listDelNode(repl.replicas, ln);
        if (r->state == REPLICA_WAIT_BGSAVE_END && c->conn) shutdown(connGetFd(c->conn), SHUT_RDWR);
        serverLog(LL_NOTICE, "Connection with replica %s lost.", replicaName(c));
        if (listLength(repl.replicas) == 0) repl.no_replicas_since = server.mstime;
        if (r->state == REPLICA_ONLINE) moduleFireReplicaChange(0);
    }
    if (r->waiting) {
        listNode *ln = listSearchKey(repl.waiters, c);
        if (ln) listDelNode(repl.waiters, ln);
    }
    listNode *ln = listSearchKey(repl.resume, c);
    if (ln) listDelNode(repl.resume, ln);
    if (c->flags & CLIENT_MASTER) replicaMasterFreed(c);
    relayStop(c);
    rdbPipeReplicaGone(c);
    sdsfree(r->pending);
    zfree(r);
    c->repl = NULL;
    if (c->flags & CLIENT_SLAVE) killChildIfUnused(r_was_waiting);
}

/* ---- SYNC and PSYNC ---------------------------------------------------------------------------- */

static int tryPartialResync(client *c, const char *replid, const char *offstr) {
    long long off;
    if (string2ll(offstr, strlen(offstr), &off) == 0) return 0;
    int ours = !strcasecmp(replid, repl.master_replid);
    int previous = !strcasecmp(replid, repl.master_replid2) && off <= repl.second_repl_offset;
    if (!ours && !previous) {
        if (strcmp(replid, "?"))
            serverLog(LL_NOTICE,
                      "Partial resynchronization not accepted: Replication ID mismatch (Replica asked for '%s', my "
                      "replication IDs are '%s' and '%s')",
                      replid, repl.master_replid, repl.master_replid2);
        else
            serverLog(LL_NOTICE, "Full resync requested by replica %s", replicaName(c));
        return 0;
    }
    if (!repl.repl_backlog || off < repl.repl_backlog_first_byte_offset || off > repl.master_repl_offset + 1) {
        serverLog(LL_NOTICE,
                  "Unable to partial resync with replica %s for lack of backlog (Replica request was: %lld).",
                  replicaName(c), off);
        return 0;
    }
    replClient *r = c->repl;
    r->state = REPLICA_ONLINE;
    r->ack_ms = server.mstime;
    r->ack_off = off - 1;
    moduleFireReplicaChange(1);
    char line[128];
    int n = r->capa_psync2 ? snprintf(line, sizeof line, "+CONTINUE %s\r\n", repl.master_replid)
                           : snprintf(line, sizeof line, "+CONTINUE\r\n");
    addReplyProto(c, line, (size_t)n);
    long long sent = sendBacklogFrom(c, off);
    repl.net_output_bytes += sent;
    serverLog(LL_NOTICE,
              "Partial resynchronization request from %s accepted. Sending %lld bytes of backlog starting from offset "
              "%lld.",
              replicaName(c), sent, off);
    return 1;
}

static void announceFullResync(client *c);

/* A replica whose snapshot leaves something out (rdb-filter-only) gets one
 * of its own, diskless when it declared capa eof, as Redis 7.0 does. */
static int replicaFiltered(const replClient *r) { return r->skip_data || r->skip_functions; }

/* The snapshot goes to the replica's socket ("$EOF:" framing) rather than
 * through dump.rdb. A SYNC (not PSYNC) client that declared capa eof
 * (redis-cli --rdb / --replica) gets it diskless too. */
static int replicaWantsDiskless(const replClient *r) {
    return (server.repl_diskless_sync || replicaFiltered(r)) && r->capa_eof;
}

/* A disk-based full sync is running: a replica asking now shares its
 * snapshot, as Redis does, with the stream gathered since the snapshot's
 * moment copied from a replica of that sync; the file goes to it from the
 * main thread once written (fileSendStart). */
static int attachToRunningSync(client *c) {
    if (!replicationChildActive() || repl.child_diskless || strcmp(repl.sync_replid, repl.master_replid)) return 0;
    if (replicaFiltered(c->repl)) return 0;
    client *sibling = NULL;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li)) && sibling == NULL) {
        client *s = listNodeValue(ln);
        if (s != c && s->repl->state == REPLICA_WAIT_BGSAVE_END && s->repl->pending && !(s->flags & CLIENT_CLOSE_ASAP))
            sibling = s;
    }
    if (sibling == NULL) return 0;
    announceFullResync(c);
    sdsfree(c->repl->pending);
    c->repl->pending = sdsdup(sibling->repl->pending);
    c->repl->attached = 1;
    serverLog(LL_NOTICE, "Waiting for end of BGSAVE for SYNC");
    return 1;
}

void syncCommand(client *c) {
    if (c->flags & CLIENT_SLAVE) return;
    int psync = !strcasecmp(c->argv[0]->ptr, "psync");
    if (psync && c->argc == 4 && !strcasecmp(c->argv[3]->ptr, "failover")) {
        if (strcasecmp(c->argv[1]->ptr, repl.master_replid)) {
            addReplyError(c, "PSYNC FAILOVER replid must match my replid.");
            return;
        }
        serverLog(LL_NOTICE, "Failover request received for replid %s.", repl.master_replid);
        replicaPromoteForFailover();
    } else if (psync && c->argc != 3) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (replicationIsReplica() && !replicaLinkUp()) {
        addReplyError(c, "-NOMASTERSYNC Can't SYNC while not connected with my master");
        return;
    }
    if (clientHasPendingReplies(c)) {
        addReplyError(c, "SYNC and PSYNC are invalid with pending output");
        return;
    }
    replClient *r = replClientOf(c);
    serverLog(LL_NOTICE, "Replica %s asks for synchronization", replicaName(c));
    long long offset;
    if (psync && getLongLongFromObjectOrReply(c, c->argv[2], &offset, NULL) != C_OK) { /* as Redis 7.0 */
        serverLog(LL_WARNING, "Replica %s asks for synchronization but with a wrong offset", replicaName(c));
        return;
    }
    c->flags |= CLIENT_SLAVE;
    listAddNodeTail(repl.replicas, c);
    replicationCreateBacklogIfNone();
    if (psync && tryPartialResync(c, c->argv[1]->ptr, c->argv[2]->ptr)) {
        repl.sync_partial_ok++;
        return;
    }
    if (psync && strcmp(c->argv[1]->ptr, "?")) repl.sync_partial_err++;
    r->old_sync = !psync;
    repl.sync_full++;
    r->state = REPLICA_WAIT_BGSAVE_START;
    if (attachToRunningSync(c)) return;
    if (repl.first_waiting_ms == 0) repl.first_waiting_ms = server.mstime;
    serverLog(LL_NOTICE, "Starting BGSAVE for SYNC with target: %s",
              replicaWantsDiskless(r) && !snapshotForklessWanted() ? "replicas sockets" : "disk");
}

/* ---- the snapshot child ------------------------------------------------------------------------ */

static int writeAll(int fd, const char *p, size_t len) {
    while (len) {
        ssize_t n = write(fd, p, len);
        if (n <= 0) {
            if (n == -1 && errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

/* Blocking writes that give up after repl-timeout. The socket's flags are
 * the parent's too: it restores them once the child is done
 * (restoreSocketAfterChild). */
static void prepareSocket(int fd) {
    int flags = fcntl(fd, F_GETFL);
    fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
    struct timeval tv = {.tv_sec = server.repl_timeout, .tv_usec = 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, sizeof tv);
}

static int failBit(int j) { return j < 7 ? 1 << j : 1 << 7; }

/* Diskless: "$EOF:<mark>\r\n", the RDB, the mark, to the pipe the parent
 * reads for every replica of the batch (repl_rdbpipe.c). */
static int sendDiskless(int fd) {
    char mark[CONFIG_RUN_ID_SIZE + 1], head[64];
    randomHex(mark, CONFIG_RUN_ID_SIZE);
    snprintf(head, sizeof head, "$EOF:%s\r\n", mark);
    server.rdb_save_incremental_fsync = 0; /* pipes can't be fsynced */
    moduleFirePersistence(0, 0, 0);
    int failed = writeAll(fd, head, strlen(head)) == -1 || rdbSaveToFd(fd, 0) != C_OK ||
                 writeAll(fd, mark, CONFIG_RUN_ID_SIZE) == -1;
    moduleFirePersistence(0, 1, !failed);
    rdbPipeChildEnd();
    return failed;
}

/* Disk: save dump.rdb, then "$<len>\r\n" and the file to each replica. */
static int sendFromDisk(const int *fds, int n) {
    if (rdbSaveNow() != C_OK) return 255;
    int failed = 0;
    for (int j = 0; j < n; j++) {
        int fd = open(server.rdb_filename, O_RDONLY);
        struct stat st;
        if (fd == -1 || fstat(fd, &st) == -1) return 255;
        char head[64], buf[65536];
        snprintf(head, sizeof head, "$%lld\r\n", (long long)st.st_size);
        int ok = writeAll(fds[j], head, strlen(head)) == 0;
        ssize_t got;
        while (ok && (got = read(fd, buf, sizeof buf)) > 0) ok = writeAll(fds[j], buf, (size_t)got) == 0;
        close(fd);
        if (!ok) failed |= failBit(j);
    }
    return failed;
}

/* filter: the batch's first replica, whose rdb-filter-only all share. */
static void childMain(const int *fds, int n, int diskless, const replClient *filter) {
    setupForkChild(server.bgsave_cpulist, "the replication snapshot child (bgsave_cpulist)",
                   diskless ? "redis-rdb-to-slaves" : "redis-rdb-bgsave");
    if (diskless) {
        rdbSetSaveFilter(filter->skip_data, filter->skip_functions);
        _exit(sendDiskless(rdbPipeChildBegin()));
    }
    for (int j = 0; j < n; j++) prepareSocket(fds[j]);
    _exit(sendFromDisk(fds, n));
}

/* ---- TLS replicas of a disk-based sync: the file relayed by the parent ----------------------- */

/* The child can't write to a TLS replica's socket: the TLS session state
 * (sequence numbers, keys) lives in the parent's SSL object, which the
 * child's writes would not advance. So a disk-based sync's child writes
 * such a replica's payload, framing included, to a pipe, and the parent
 * reads the pipe in its event loop and passes the bytes on with connWrite,
 * one buffer at a time (the pipe is not read while the socket can't take
 * the buffer). The replica goes online when both the child has exited and
 * the relay has seen the pipe's end. Plain TCP replicas keep the direct
 * path. (A diskless sync goes through the parent for every replica:
 * repl_rdbpipe.c.) */
typedef struct replRelay {
    int fd;                /* the pipe's read end, -1 once at its end */
    char buf[16384];
    size_t len, pos;       /* buf[pos..len) still to be written */
    int child_done;        /* the child exited with this replica's bit clear */
    long long last_io_ms;  /* progress; a socket blocked longer than repl-timeout drops the replica,
                            * as SO_SNDTIMEO does in the child for plain ones */
} replRelay;

static void replicaSynced(client *c, int diskless);
static void relayPipeReadable(aeEventLoop *el, int fd, void *privdata, int mask);

static int relayFinished(replRelay *rl) { return rl->fd == -1 && rl->pos == rl->len; }

static void relayStop(client *c) {
    replRelay *rl = c->repl->relay;
    if (rl == NULL) return;
    if (rl->fd != -1) {
        aeDeleteFileEvent(server.el, rl->fd, AE_READABLE);
        close(rl->fd);
    }
    if (c->conn && rl->pos != rl->len) connSetWriteHandler(c->conn, NULL);
    zfree(rl);
    c->repl->relay = NULL;
}

static void relayCompleted(client *c) {
    relayStop(c);
    replicaSynced(c, 0);
}

/* Writes what the buffer holds; 0 when the client was dropped. */
static int relayFlush(client *c) {
    replRelay *rl = c->repl->relay;
    while (rl->pos < rl->len) {
        ssize_t n = connWrite(c->conn, rl->buf + rl->pos, rl->len - rl->pos);
        if (n > 0) {
            rl->pos += (size_t)n;
            rl->last_io_ms = server.mstime;
            continue;
        }
        if (n == -1 && connGetState(c->conn) == CONN_STATE_CONNECTED) return 1; /* full: wait */
        serverLog(LL_WARNING, "Sending the snapshot to replica %s failed: %s", replicaName(c),
                  connGetLastError(c->conn));
        relayStop(c);
        freeClientAsync(c);
        return 0;
    }
    return 1;
}

static void relaySocketWritable(connection *conn) {
    client *c = connGetPrivateData(conn);
    replRelay *rl = c->repl->relay;
    if (rl == NULL || !relayFlush(c) || rl->pos != rl->len) return;
    connSetWriteHandler(conn, NULL);
    if (rl->fd != -1) aeCreateFileEvent(server.el, rl->fd, AE_READABLE, relayPipeReadable, c);
    else if (rl->child_done) relayCompleted(c);
}

static void relayPipeReadable(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)mask;
    client *c = privdata;
    replRelay *rl = c->repl->relay;
    ssize_t n = read(fd, rl->buf, sizeof rl->buf);
    if (n == -1 && (errno == EAGAIN || errno == EINTR)) return;
    if (n <= 0) { /* the child's end: closed (or broken, and its exit status says so) */
        aeDeleteFileEvent(server.el, fd, AE_READABLE);
        close(fd);
        rl->fd = -1;
        if (rl->child_done) relayCompleted(c);
        return;
    }
    rl->len = (size_t)n;
    rl->pos = 0;
    rl->last_io_ms = server.mstime;
    if (!relayFlush(c) || rl->pos == rl->len) return;
    aeDeleteFileEvent(server.el, fd, AE_READABLE);
    connSetWriteHandler(c->conn, relaySocketWritable);
}

/* For a TLS replica: a pipe the child writes to instead (-1: none). */
static int relayStart(client *c) {
    if (strcmp(connGetType(c->conn), "tls")) return connGetFd(c->conn);
    int p[2];
    if (pipe(p) == -1) return -1;
    fcntl(p[0], F_SETFL, fcntl(p[0], F_GETFL) | O_NONBLOCK);
    fcntl(p[0], F_SETFD, FD_CLOEXEC);
    replRelay *rl = zcalloc(sizeof(*rl));
    rl->fd = p[0];
    rl->last_io_ms = server.mstime;
    c->repl->relay = rl;
    aeCreateFileEvent(server.el, p[0], AE_READABLE, relayPipeReadable, c);
    return p[1];
}

/* After the fork each side closes the other's ends: the write ends are the
 * child's, the read ends the parent's (a child holding one would never see
 * EPIPE when the parent drops the replica). */
static void relayCloseEnds(client **batch, const int *fds, int n, int in_child) {
    for (int j = 0; j < n; j++)
        if (batch[j]->repl->relay) close(in_child ? batch[j]->repl->relay->fd : fds[j]);
}

/* ---- full syncs without fork() ------------------------------------------------------------------
 * With persistence-mode forkless (or no fork()), snapshot.c writes the RDB
 * to a temp file in time slices, which becomes dump.rdb as a disk-based
 * sync's file does; then the main thread sends it to each replica of the
 * batch, "$<len>" framing, through the relay above (a file instead of a
 * pipe: read when the socket has room). A diskless sync falls back to this
 * (logged): streaming would need the slices to wait for every socket. */

static void forklessTempName(char *buf, size_t len) {
    snprintf(buf, len, "temp-repl-forkless-%d.rdb", (int)getpid());
}

static void fileSendWritable(connection *conn);

/* The file, with its "$<len>" line, to one replica; 0 when it was dropped. */
static int fileSendStart(client *c) {
    int fd = open(server.rdb_filename, O_RDONLY);
    struct stat st;
    if (fd == -1 || fstat(fd, &st) == -1) {
        serverLog(LL_WARNING, "Can't open the RDB file for replica %s: %s", replicaName(c), strerror(errno));
        if (fd != -1) close(fd);
        freeClientAsync(c);
        return 0;
    }
    replRelay *rl = zcalloc(sizeof(*rl));
    rl->fd = fd;
    rl->len = (size_t)snprintf(rl->buf, sizeof rl->buf, "$%lld\r\n", (long long)st.st_size);
    rl->last_io_ms = server.mstime;
    rl->child_done = 1;
    c->repl->relay = rl;
    connSetWriteHandler(c->conn, fileSendWritable);
    return 1;
}

static void fileSendWritable(connection *conn) {
    client *c = connGetPrivateData(conn);
    replRelay *rl = c->repl ? c->repl->relay : NULL;
    if (rl == NULL) return;
    for (;;) {
        if (!relayFlush(c) || rl->pos != rl->len) return; /* dropped, or the socket is full */
        ssize_t n = read(rl->fd, rl->buf, sizeof rl->buf);
        if (n == -1 && errno == EINTR) continue;
        if (n == -1) {
            serverLog(LL_WARNING, "Reading the RDB file for replica %s failed: %s", replicaName(c), strerror(errno));
            relayStop(c);
            freeClientAsync(c);
            return;
        }
        if (n == 0) break;
        rl->len = (size_t)n;
        rl->pos = 0;
    }
    connSetWriteHandler(conn, NULL);
    close(rl->fd);
    rl->fd = -1;
    relayCompleted(c);
}

static void forklessSyncDone(int ok, void *privdata) {
    (void)privdata;
    char tmp[64];
    forklessTempName(tmp, sizeof tmp);
    repl.forkless_sync = 0;
    updateDictResizePolicy();
    if (ok && persistio.rename(tmp, server.rdb_filename) == -1) {
        serverLog(LL_WARNING, "Error moving the temp DB file %s on the final destination %s: %s", tmp,
                  server.rdb_filename, strerror(errno));
        ok = 0;
    }
    if (!ok) unlink(tmp);
    serverLog(ok ? LL_NOTICE : LL_WARNING, "Background RDB transfer (forkless) %s",
              ok ? "snapshot on disk: sending it" : "failed");
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->repl->state != REPLICA_WAIT_BGSAVE_END || c->repl->relay) continue;
        c->repl->attached = 0;
        if (!ok) freeClientAsync(c);
        else fileSendStart(c);
    }
}

static void announceFullResync(client *c);

/* announced: +FULLRESYNC went out just before a fork() that failed. */
static void startForklessSync(client **batch, int n, int wanted_diskless, int announced) {
    if (snapshotInProgress()) return; /* a forkless BGSAVE or rewrite: the batch waits for it */
    char tmp[64];
    forklessTempName(tmp, sizeof tmp);
    int fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't start the replication snapshot: opening %s: %s", tmp, strerror(errno));
        for (int j = 0; j < n; j++) freeClientAsync(batch[j]);
        return;
    }
    if (wanted_diskless)
        serverLog(LL_NOTICE, "Diskless sync is not available without a fork child: the snapshot goes to disk first");
    repl.seldb = -1; /* the stream after the snapshot starts with a SELECT */
    for (int j = 0; j < n && !announced; j++) announceFullResync(batch[j]);
    repl.first_waiting_ms = 0;
    repl.forkless_sync = 1;
    repl.child_diskless = 0;
    repl.child_start_ms = server.mstime;
    snapshotStart(fd, &snapshotRdbFormat, 0, forklessSyncDone, NULL);
    updateDictResizePolicy();
    serverLog(LL_NOTICE, "Background RDB transfer started (forkless, disk)");
}

/* +FULLRESYNC with the offset of the snapshot's moment: now for a new
 * sync, that of the running one for a replica attached to it. */
static void announceFullResync(client *c) {
    replClient *r = c->repl;
    if (!replicationChildActive()) {
        memcpy(repl.sync_replid, repl.master_replid, sizeof repl.sync_replid);
        repl.sync_offset = repl.master_repl_offset;
    }
    r->state = REPLICA_WAIT_BGSAVE_END;
    r->pending = sdsempty();
    r->ack_off = 0; /* nothing acknowledged until it has loaded the snapshot (WAIT, failover, INFO offset=0) */
    r->ack_ms = server.mstime; /* INFO's lag counts from the sync's start, as Redis's */
    if (r->old_sync) return;
    char line[128];
    int n = snprintf(line, sizeof line, "+FULLRESYNC %s %lld\r\n", repl.sync_replid, repl.sync_offset);
    if (connWrite(c->conn, line, (size_t)n) != n) freeClientAsync(c);
}

static int fullSyncDue(int waiting, int diskless) {
    if (!waiting || replicationChildActive() || hasActiveChildProcess() || snapshotInProgress()) return 0;
    if (!diskless) return 1;
    if (server.repl_diskless_sync_max_replicas > 0 && waiting >= server.repl_diskless_sync_max_replicas) return 1;
    return server.mstime - repl.first_waiting_ms >= (long long)server.repl_diskless_sync_delay * 1000;
}

/* A batch shares one snapshot: its replicas all have the first one's
 * rdb-filter-only; the others wait for the next batch. */
static void startFullSyncIfDue(void) {
    client *batch[REPL_MAX_BATCH];
    int n = 0, diskless = 1;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li)) && n < REPL_MAX_BATCH) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        if (r->state != REPLICA_WAIT_BGSAVE_START) continue;
        if (n > 0 && (r->skip_data != batch[0]->repl->skip_data || r->skip_functions != batch[0]->repl->skip_functions))
            continue;
        if (!replicaWantsDiskless(r)) diskless = 0;
        batch[n++] = c;
    }
    int wanted_diskless = n > 0 && diskless;
    if (snapshotForklessWanted() || n == 0) diskless = 0;
    /* repl-diskless-sync-delay waits for more replicas only when diskless sync is configured */
    if (!fullSyncDue(n, diskless && server.repl_diskless_sync)) return;
    if (snapshotForklessWanted()) {
        startForklessSync(batch, n, wanted_diskless, 0);
        return;
    }
    if (diskless && rdbPipeOpen(batch, n) != C_OK) {
        serverLog(LL_WARNING, "Can't start the replication snapshot: pipe: %s", strerror(errno));
        for (int j = 0; j < n; j++) freeClientAsync(batch[j]);
        return;
    }
    int fds[REPL_MAX_BATCH];
    repl.seldb = -1; /* the stream after the snapshot starts with a SELECT */
    for (int j = 0; j < n; j++) {
        announceFullResync(batch[j]);
        batch[j]->repl->batch_index = j;
        fds[j] = diskless ? -1 : relayStart(batch[j]);
    }
    repl.first_waiting_ms = 0;
    pid_t pid = snapshotFork();
    if (pid == 0) {
        relayCloseEnds(batch, fds, n, 1);
        childMain(fds, n, diskless, batch[0]->repl);
    }
    int err = errno;
    relayCloseEnds(batch, fds, n, 0);
    if (pid == -1) {
        for (int j = 0; j < n; j++) relayStop(batch[j]);
        rdbPipeClose();
        if (snapshotForkFailedFallback(err, "replication snapshot")) {
            startForklessSync(batch, n, wanted_diskless, 1); /* announced: the same moment */
            return;
        }
        serverLog(LL_WARNING, "Can't start the replication snapshot child: fork: %s", strerror(err));
        for (int j = 0; j < n; j++) freeClientAsync(batch[j]);
        return;
    }
    repl.child = pid;
    repl.child_diskless = diskless;
    repl.child_start_ms = server.mstime;
    if (diskless) rdbPipeParentBegin();
    updateDictResizePolicy();
    serverLog(LL_NOTICE, "Background RDB transfer started by pid %d (%s)", (int)pid,
              diskless ? "diskless" : "disk");
}

int replicationChildActive(void) { return repl.child != -1 || repl.forkless_sync; }

long long replicationChildStartMs(void) { return repl.child_start_ms; }

/* The stream gathered during the snapshot goes out. After an "$EOF:"
 * transfer it waits for the replica's first ACK (it has read the mark):
 * sent earlier, it could arrive in the read that ends with the mark, and a
 * replica (Redis's too) would not see the mark at the end of its data. */
static void sendPending(client *c) {
    replClient *r = c->repl;
    r->wait_first_ack = 0;
    if (sdslen(r->pending)) addReplyProto(c, r->pending, sdslen(r->pending));
    repl.net_output_bytes += (long long)sdslen(r->pending);
    sdsfree(r->pending);
    r->pending = NULL;
}

/* The snapshot child made the replica's socket blocking, with a send
 * timeout (prepareSocket). Both belong to the socket, which the parent
 * shares: put back, or the stream's writes to a replica that stops reading
 * would block the whole server for up to repl-timeout each. */
static void restoreSocketAfterChild(client *c) {
    int fd = connGetFd(c->conn);
    if (fd == -1) return;
    anetNonBlock(NULL, fd);
    struct timeval none = {0, 0};
    setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &none, sizeof none);
}

/* An rdb-only replica (redis-cli --rdb) is done once it has the snapshot:
 * closed, with Redis 7.0's log line. */
static void replicaSynced(client *c, int diskless) {
    replClient *r = c->repl;
    restoreSocketAfterChild(c);
    if (r->rdb_only) {
        serverLog(LL_NOTICE, "RDB transfer completed, rdb only replica (%s) should be disconnected asap",
                  replicaName(c));
        freeClientAsync(c);
        return;
    }
    if (diskless)
        serverLog(LL_NOTICE, "Streamed RDB transfer with replica %s succeeded (socket). Waiting for REPLCONF ACK "
                  "from slave to enable streaming", replicaName(c));
    r->state = REPLICA_ONLINE;
    r->ack_ms = server.mstime;
    moduleFireReplicaChange(1);
    if (diskless) r->wait_first_ack = 1;
    else sendPending(c);
    serverLog(LL_NOTICE, "Synchronization with replica %s succeeded", replicaName(c));
}

/* failed: the child's exit code (a bit per replica of its batch that it
 * could not feed), 255 for the whole snapshot (or killed). A diskless
 * child's replicas are those the parent fed to the pipe's end: its exit
 * code only says whether it wrote the whole snapshot. */
static void childDone(int failed) {
    repl.child = -1;
    if (repl.child_diskless) {
        rdbPipeClose();
        if (failed) failed = 255;
    }
    updateDictResizePolicy();
    serverLog(failed ? LL_WARNING : LL_NOTICE, "Background RDB transfer %s", failed ? "failed" : "terminated with success");
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->repl->state != REPLICA_WAIT_BGSAVE_END) continue;
        if (c->repl->attached) { /* dump.rdb is written (unless the child failed whole) */
            c->repl->attached = 0;
            if (failed == 255) freeClientAsync(c);
            else fileSendStart(c);
            continue;
        }
        if (failed & failBit(c->repl->batch_index)) {
            serverLog(LL_WARNING, "Sending the snapshot to replica %s failed: closing its link", replicaName(c));
            relayStop(c);
            freeClientAsync(c);
        } else if (c->repl->relay && !relayFinished(c->repl->relay)) {
            c->repl->relay->child_done = 1; /* online when the relay has sent the rest */
        } else {
            relayStop(c);
            replicaSynced(c, repl.child_diskless);
        }
    }
}

/* ---- REPLCONF ------------------------------------------------------------------------------------ */

static void checkWaiters(void);

static void replconfAck(client *c, robj *offarg) {
    long long off;
    if (!(c->flags & CLIENT_SLAVE) || getLongLongFromObject(offarg, &off) != C_OK) return;
    replClient *r = c->repl;
    if (off > r->ack_off) r->ack_off = off;
    r->ack_ms = server.mstime;
    if (r->wait_first_ack) sendPending(c);
    if (listLength(repl.waiters)) checkWaiters();
}

/* REPLCONF rdb-filter-only "<what to keep> ...": everything is left out
 * but what is named, and "functions" is the only name there is (Redis
 * 7.0); "" keeps nothing but the header (redis-cli --replica). */
static int replconfFilter(client *c, replClient *r, const char *value) {
    int count = 0;
    sds *names = sdssplitargs(value, &count);
    if (names == NULL) {
        addReplyError(c, "Missing rdb-filter-only values");
        return C_ERR;
    }
    int skip_functions = 1;
    for (int i = 0; i < count; i++) {
        if (strcasecmp(names[i], "functions") != 0) {
            addReplyErrorFormat(c, "Unsupported rdb-filter-only option: %s", names[i]);
            sdsfreesplitres(names, count);
            return C_ERR;
        }
        skip_functions = 0;
    }
    sdsfreesplitres(names, count);
    r->skip_data = 1;
    r->skip_functions = skip_functions;
    return C_OK;
}

void replconfCommand(client *c) {
    if (c->argc % 2 == 0) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    replClient *r = replClientOf(c);
    for (int j = 1; j < c->argc; j += 2) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "ack")) {
            replconfAck(c, c->argv[j + 1]);
            return; /* no reply to an ACK */
        } else if (!strcasecmp(opt, "getack")) {
            if (c->flags & CLIENT_MASTER) replicaSendAck();
            return;
        } else if (!strcasecmp(opt, "listening-port")) {
            long port;
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], 0, 65535, &port, NULL) != C_OK) return;
            r->listening_port = (int)port;
        } else if (!strcasecmp(opt, "ip-address")) {
            sds ip = c->argv[j + 1]->ptr;
            if (sdslen(ip) >= sizeof r->announced_ip) {
                addReplyErrorFormat(c, "REPLCONF ip-address provided by replica instance is too long: %zd bytes",
                                    sdslen(ip));
                return;
            }
            memcpy(r->announced_ip, ip, sdslen(ip) + 1);
        } else if (!strcasecmp(opt, "capa")) {
            if (!strcasecmp(c->argv[j + 1]->ptr, "eof")) r->capa_eof = 1;
            else if (!strcasecmp(c->argv[j + 1]->ptr, "psync2")) r->capa_psync2 = 1;
        } else if (!strcasecmp(opt, "rdb-only")) {
            long rdb_only;
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 1], 0, 1, &rdb_only, NULL) != C_OK) return;
            r->rdb_only = (int)rdb_only;
        } else if (!strcasecmp(opt, "rdb-filter-only")) {
            if (replconfFilter(c, r, c->argv[j + 1]->ptr) != C_OK) return;
        } else {
            addReplyErrorFormat(c, "Unrecognized REPLCONF option: %s", opt);
            return;
        }
    }
    addReply(c, shared.ok);
}

/* ---- WAIT ---------------------------------------------------------------------------------------- */

static int resumeTimerProc(struct aeEventLoop *el, long long id, void *data);

/* The client leaves WAIT: its reply is already queued. Its pipelined input
 * runs from a timer due at once (the next event-loop pass), outside the
 * command (a replica's ACK) that released it. */
static void unwaitQuietly(client *c) {
    replClient *r = c->repl;
    listNode *ln = listSearchKey(repl.waiters, c);
    if (ln) listDelNode(repl.waiters, ln);
    r->waiting = 0;
    c->flags &= ~CLIENT_BLOCKED;
    resetClient(c);
    if (sdslen(c->querybuf) <= c->qb_pos) return;
    if (listLength(repl.resume) == 0 && aeCreateTimeEvent(server.el, 0, resumeTimerProc, NULL, NULL) == AE_ERR)
        serverPanic("Can't create the WAIT resume timer");
    listAddNodeTail(repl.resume, c);
}

static void unwait(client *c, int acked) {
    addReplyLongLong(c, acked);
    unwaitQuietly(c);
}

/* We become a replica: every blocked client (WAIT, and those waiting for
 * keys) gets Redis's -UNBLOCKED error and is closed after it. */
void replicationDisconnectBlocked(void) {
    static const char *err = "-UNBLOCKED force unblock from blocking operation, instance state changed (master -> "
                             "replica?)";
    blockedDisconnectAll(err);
    while (listLength(repl.waiters)) {
        client *c = listNodeValue(listFirst(repl.waiters));
        addReplyError(c, err);
        unwaitQuietly(c);
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
    }
}

/* CLIENT UNBLOCK: the count as on timeout, or an -UNBLOCKED error. */
int replicationUnblockWait(client *c, int with_error) {
    if (c->repl == NULL || !c->repl->waiting) return 0;
    if (with_error) {
        addReplyError(c, "-UNBLOCKED client unblocked via CLIENT UNBLOCK");
        if (c->cmd) c->cmd->failed_calls++;
        unwaitQuietly(c);
    } else {
        unwait(c, countAcked(c->repl->wait_off));
    }
    return 1;
}

/* A command (not one run inside another) moved the stream: WAIT from this
 * client now waits for this offset. A client that never wrote waits for 0. */
void replicationNoteClientWrite(client *c, long long offset_before) {
    if (repl.master_repl_offset != offset_before) replClientOf(c)->woff = repl.master_repl_offset;
}

static void checkWaiters(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.waiters, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        int acked = countAcked(r->wait_off);
        if (acked >= r->wait_replicas || (r->wait_deadline_ms && server.mstime >= r->wait_deadline_ms))
            unwait(c, acked);
    }
}

static void requestAcks(void) {
    feedPlain("*3\r\n$8\r\nREPLCONF\r\n$6\r\nGETACK\r\n$1\r\n*\r\n");
}

void replicationRequestAcks(void) {
    if (listLength(repl.replicas)) requestAcks();
}

static const char *replicaStateName(int state);

/* shutdown-timeout: how many replicas (in any state) have not acknowledged
 * the whole stream; with log, Redis 7.0's lines for each and the total. */
int replicationLaggingReplicas(int log) {
    int lagging = 0, total = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        total++;
        if (r->ack_off == repl.master_repl_offset) continue;
        lagging++;
        if (!log) continue;
        long long lag = r->state == REPLICA_ONLINE ? (server.mstime - r->ack_ms) / 1000 : 0;
        serverLog(LL_WARNING, "Lagging replica %s reported offset %lld behind master, lag=%lld, state=%s.",
                  replicaName(c), repl.master_repl_offset - r->ack_off, lag, replicaStateName(r->state));
    }
    if (log && total) serverLog(LL_NOTICE, "%d of %d replicas are in sync when shutting down.", total - lagging, total);
    return lagging;
}

void waitCommand(client *c) {
    if (replicationIsReplica()) {
        addReplyError(c, "WAIT cannot be used with replica instances. Please also note that since Redis 4.0 if a "
                         "replica is configured to be writable (which is not the default) writes to replicas are "
                         "just local and are not propagated.");
        return;
    }
    long numreplicas;
    long long deadline;
    if (getLongFromObjectOrReply(c, c->argv[1], &numreplicas, NULL) != C_OK) return;
    if (getMsTimeoutFromObjectOrReply(c, c->argv[2], &deadline) != C_OK) return;
    long long target = c->repl ? c->repl->woff : 0;
    /* Redis feeds a transaction's writes to the stream as they run: a WAIT
     * after one counts the replicas that have it, none yet. Ours are queued
     * until EXEC returns. */
    if (server.in_exec && propagateQueuedOps()) target = repl.master_repl_offset + 1;
    int acked = countAcked(target);
    if (acked >= numreplicas || server.in_exec || (c->flags & CLIENT_MULTI)) {
        addReplyLongLong(c, acked);
        return;
    }
    replClient *r = replClientOf(c);
    r->waiting = 1;
    r->wait_off = target;
    r->wait_replicas = numreplicas;
    r->wait_deadline_ms = deadline;
    c->flags |= CLIENT_BLOCKED;
    listAddNodeTail(repl.waiters, c);
    requestAcks();
}

/* ---- what other modules ask ------------------------------------------------------------------ */

sds replicationRefusal(client *c) {
    if (c->flags & CLIENT_MASTER) return NULL;
    uint64_t flags = c->cmd->flags;
    if (c->cmd->proc == execCommand) flags |= multiQueuedFlags(c);
    else flags = scriptDeclaredFlags(c, flags); /* a script's declared flags */
    return replicationRefusalWithFlags(c, flags);
}

/* The checks of a replica, or of a primary with min-replicas-to-write: out
 * of line, so the common case's function below saves no registers for them. */
static NOINLINE sds refusalOf(client *c, uint64_t flags, int replica) {
    int is_exec = c->cmd->proc == execCommand;
    /* EXEC itself may run on a stale replica, not a queued command that may not */
    int denied_when_stale = !(flags & CMD_STALE) || (is_exec && (multiQueuedMissingFlags(c) & CMD_STALE));
    if (replica) {
        if (!replicaLinkUp() && !server.repl_serve_stale_data && denied_when_stale)
            return sdsnew("-MASTERDOWN Link with MASTER is down and replica-serve-stale-data is set to 'no'.");
        if (server.repl_slave_ro && (flags & CMD_WRITE))
            return sdsnew("-READONLY You can't write against a read only replica.");
        return NULL;
    }
    if ((flags & CMD_WRITE) && replicationNotEnoughGoodReplicas())
        return sdsnew("-NOREPLICAS Not enough good replicas to write.");
    return NULL;
}

int replicationNotEnoughGoodReplicas(void) {
    return server.min_replicas_to_write && server.min_replicas_max_lag &&
           countGoodReplicas() < server.min_replicas_to_write;
}

/* flags: c's command's as EXEC's queue or a script's declaration widen them
 * (processCommand has them already: computing them again was ~16
 * instructions a request, make bench-gate). */
sds replicationRefusalWithFlags(client *c, uint64_t flags) {
    if (c->flags & CLIENT_MASTER) return NULL;
    /* A primary without min-replicas-to-write refuses nothing, whatever the
     * command: the common case returns before the EXEC and stale checks. */
    int replica = replicationIsReplica();
    if (!replica && !(server.min_replicas_to_write && server.min_replicas_max_lag)) return NULL;
    return refusalOf(c, flags, replica);
}

/* ---- FAILOVER ------------------------------------------------------------------------------------
 * Writes are paused, the target (named, or the first replica to catch up)
 * must acknowledge our whole stream, then we become its replica with
 * "PSYNC <replid> <offset> FAILOVER", which makes it promote itself and
 * continue our history: we resync partially from it. */

#define FAILOVER_NONE 0
#define FAILOVER_WAIT_FOR_SYNC 1
#define FAILOVER_IN_PROGRESS 2

static struct {
    int state;
    char host[NET_IP_STR_LEN];
    int port;             /* 0: any replica */
    long long deadline_ms; /* 0: none */
    int force;
} failover;

static const char *failoverStateName(void) {
    return failover.state == FAILOVER_WAIT_FOR_SYNC ? "waiting-for-sync"
         : failover.state == FAILOVER_IN_PROGRESS   ? "failover-in-progress"
                                             : "no-failover";
}

static void failoverReset(void) {
    failover.state = FAILOVER_NONE;
    failover.host[0] = '\0';
    failover.port = 0;
    clientsUnpause();
}

static void abortFailover(const char *why) {
    if (failover.state == FAILOVER_NONE) return;
    if (failover.port)
        serverLog(LL_NOTICE, "FAILOVER to %s:%d aborted: %s", failover.host, failover.port, why);
    else
        serverLog(LL_NOTICE, "FAILOVER to any replica aborted: %s", why);
    if (failover.state == FAILOVER_IN_PROGRESS) replicaFailoverRevert();
    failoverReset();
}

void replicationFailoverDone(void) {
    if (failover.state != FAILOVER_IN_PROGRESS) return;
    serverLog(LL_NOTICE, "Failover target %s:%d is now our primary: failover complete", failover.host, failover.port);
    failoverReset();
}

int replicationFailoverInProgress(void) { return failover.state != FAILOVER_NONE; }

void replicationFailoverFailed(void) { abortFailover("Failover target rejected psync request"); }

static client *findReplica(const char *host, int port) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->repl->state == REPLICA_ONLINE && c->repl->listening_port == port && !strcmp(replicaIp(c), host))
            return c;
    }
    return NULL;
}

static client *caughtUpReplica(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->repl->state != REPLICA_ONLINE || c->repl->ack_off != repl.master_repl_offset) continue;
        if (failover.port == 0 || (c->repl->listening_port == failover.port && !strcmp(replicaIp(c), failover.host)))
            return c;
    }
    return NULL;
}

static void failoverProceed(const char *host, int port, int forced) {
    if (host != failover.host) snprintf(failover.host, sizeof failover.host, "%s", host);
    failover.port = port;
    failover.state = FAILOVER_IN_PROGRESS;
    if (forced) /* Redis 7.0's line for FORCE after TIMEOUT */
        serverLog(LL_NOTICE, "FAILOVER to %s:%d time out exceeded, failing over.", host, port);
    else
        serverLog(LL_NOTICE, "Failover target %s:%d caught up: starting the failover", host, port);
    replicaFailoverTo(failover.host, failover.port);
}

static void failoverCron(void) {
    if (failover.state != FAILOVER_WAIT_FOR_SYNC) return;
    client *c = caughtUpReplica();
    if (c) {
        failoverProceed(replicaIp(c), c->repl->listening_port, 0);
    } else if (failover.deadline_ms && server.mstime >= failover.deadline_ms) {
        if (failover.force && failover.port) failoverProceed(failover.host, failover.port, 1);
        else abortFailover("Replica never caught up before timeout");
    }
}

static int parseFailoverArgs(client *c, int *abort_it) {
    long long timeout = 0;
    for (int j = 1; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "to") && j + 2 < c->argc && !failover.port) {
            long port;
            if (getRangeLongFromObjectOrReply(c, c->argv[j + 2], 1, 65535, &port, NULL) != C_OK) return 0;
            snprintf(failover.host, sizeof failover.host, "%s", (char *)c->argv[j + 1]->ptr);
            failover.port = (int)port;
            j += 2;
        } else if (!strcasecmp(opt, "force")) {
            failover.force = 1;
        } else if (!strcasecmp(opt, "abort")) {
            *abort_it = 1;
        } else if (!strcasecmp(opt, "timeout") && j + 1 < c->argc && !timeout) {
            if (getLongLongFromObjectOrReply(c, c->argv[++j], &timeout, NULL) != C_OK) return 0;
            if (timeout <= 0) {
                addReplyError(c, "FAILOVER timeout must be greater than 0");
                return 0;
            }
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return 0;
        }
    }
    failover.deadline_ms = timeout ? server.mstime + timeout : 0;
    return 1;
}

static const char *failoverRefusal(int abort_it, int had_target) {
    if (abort_it) return (had_target || failover.force) ? "FAILOVER ABORT takes no other argument" : NULL;
    if (replicationIsReplica()) return "FAILOVER is not valid when server is a replica.";
    if (replicationPrimaryOnline() == 0) return "FAILOVER requires connected replicas.";
    if (failover.force && (!failover.deadline_ms || !had_target))
        return "FAILOVER with force option requires both a timeout and target HOST and IP.";
    if (had_target && !findReplica(failover.host, failover.port))
        return "FAILOVER target HOST and PORT is not a replica.";
    return NULL;
}

void failoverCommand(client *c) {
    int abort_it = 0;
    if (failover.state != FAILOVER_NONE) {
        if (c->argc == 2 && !strcasecmp(c->argv[1]->ptr, "abort")) {
            abortFailover("Failover manually aborted");
            addReply(c, shared.ok);
        } else {
            addReplyError(c, "FAILOVER already in progress.");
        }
        return;
    }
    failover.host[0] = '\0';
    failover.port = 0;
    failover.force = 0;
    if (!parseFailoverArgs(c, &abort_it)) {
        failover.port = 0;
        return;
    }
    const char *refusal = failoverRefusal(abort_it, failover.port != 0);
    if (abort_it && !refusal) refusal = "No failover in progress.";
    if (refusal) {
        failover.port = 0;
        addReplyError(c, refusal);
        return;
    }
    failover.state = FAILOVER_WAIT_FOR_SYNC;
    clientsPauseWrites(LLONG_MAX / 2);
    requestAcks();
    if (failover.port)
        serverLog(LL_NOTICE, "FAILOVER requested to %s:%d.", failover.host, failover.port);
    else
        serverLog(LL_NOTICE, "FAILOVER requested to any replica.");
    addReply(c, shared.ok);
}

/* ---- INFO and ROLE ----------------------------------------------------------------------------- */

static const char *replicaStateName(int state) {
    switch (state) {
    case REPLICA_WAIT_BGSAVE_START:
    case REPLICA_WAIT_BGSAVE_END: return "wait_bgsave";
    case REPLICA_ONLINE: return "online";
    }
    return "";
}

static sds catReplicas(sds info) {
    info = sdscatprintf(info, "connected_slaves:%lu\r\n", replicationReplicaCount());
    int j = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        info = sdscatprintf(info, "slave%d:ip=%s,port=%d,state=%s,offset=%lld,lag=%lld\r\n", j++, replicaIp(c),
                            r->listening_port, replicaStateName(r->state), r->ack_off,
                            (server.mstime - r->ack_ms) / 1000);
    }
    return info;
}

sds replicationInfoString(sds info) {
    if (replicationIsReplica()) info = replicaInfoString(info);
    else info = sdscat(info, "role:master\r\n");
    info = catReplicas(info);
    return sdscatprintf(info,
                        "master_failover_state:%s\r\n"
                        "master_replid:%s\r\n"
                        "master_replid2:%s\r\n"
                        "master_repl_offset:%lld\r\n"
                        "second_repl_offset:%lld\r\n"
                        "repl_backlog_active:%d\r\n"
                        "repl_backlog_size:%lld\r\n"
                        "repl_backlog_first_byte_offset:%lld\r\n"
                        "repl_backlog_histlen:%lld\r\n",
                        failoverStateName(), repl.master_replid, repl.master_replid2, repl.master_repl_offset,
                        repl.second_repl_offset, repl.repl_backlog != NULL,
                        repl.repl_backlog ? repl.repl_backlog_size : server.repl_backlog_size,
                        repl.repl_backlog ? repl.repl_backlog_first_byte_offset : 0,
                        repl.repl_backlog ? repl.repl_backlog_histlen : 0);
}

long long replicationNetInputBytes; /* replica.c: the primary's stream, read */

void replicationSyncCounts(long long out[5]) {
    out[0] = repl.sync_full;
    out[1] = repl.sync_partial_ok;
    out[2] = repl.sync_partial_err;
    out[3] = replicationNetInputBytes;
    out[4] = repl.net_output_bytes;
}

/* A diskless sync's snapshot bytes count as replication output, as Redis's. */
void replicationNoteRdbBytes(ssize_t n) { repl.net_output_bytes += (long long)n; }

/* CONFIG RESETSTAT: the INFO stats fields above start again from 0, as in
 * Redis (tests read sync_partial_ok after a reset). */
void replicationResetStats(void) {
    repl.sync_full = repl.sync_partial_ok = repl.sync_partial_err = 0;
    replicationNetInputBytes = repl.net_output_bytes = 0;
}

void roleCommand(client *c) {
    if (replicationIsReplica()) {
        replicaRoleReply(c);
        return;
    }
    addReplyArrayLen(c, 3);
    addReplyBulkCBuffer(c, "master", 6);
    addReplyLongLong(c, repl.master_repl_offset);
    void *len = addReplyDeferredLen(c);
    long n = 0;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *rc = listNodeValue(ln);
        if (rc->repl->state != REPLICA_ONLINE) continue;
        char port[16];
        snprintf(port, sizeof port, "%d", rc->repl->listening_port);
        addReplyArrayLen(c, 3);
        addReplyBulkCString(c, replicaIp(rc));
        addReplyBulkCString(c, port);
        char off[LONG_STR_SIZE];
        ll2string(off, sizeof off, rc->repl->ack_off);
        addReplyBulkCString(c, off);
        n++;
    }
    setDeferredArrayLen(c, len, n);
}

/* ---- cron ------------------------------------------------------------------------------------------ */

static void dropTimedOutReplicas(void) {
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        replClient *r = c->repl;
        replRelay *rl = r->relay;
        if (rl && rl->pos != rl->len && (server.mstime - rl->last_io_ms) / 1000 > server.repl_timeout) {
            serverLog(LL_WARNING, "Sending the snapshot to replica %s timed out", replicaName(c));
            relayStop(c); /* the child sees EPIPE */
            freeClientAsync(c);
            continue;
        }
        if (r->state != REPLICA_ONLINE || r->old_sync) continue;
        if ((server.mstime - r->ack_ms) / 1000 > server.repl_timeout) {
            serverLog(LL_WARNING, "Disconnecting timedout replica (streaming sync): %s", replicaName(c));
            freeClientAsync(c);
        }
    }
}

static void backlogTtlCheck(void) {
    if (!repl.repl_backlog || listLength(repl.replicas) || replicationIsReplica() || !server.repl_backlog_ttl) return;
    if (repl.no_replicas_since && (server.mstime - repl.no_replicas_since) / 1000 > server.repl_backlog_ttl) {
        changeReplicationId();
        clearReplicationId2();
        freeBacklog();
        serverLog(LL_NOTICE, "Replication backlog freed after %lld seconds without connected replicas.",
                  server.repl_backlog_ttl);
    }
}

static int resumeTimerProc(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    while (listLength(repl.resume)) {
        client *c = listNodeValue(listFirst(repl.resume));
        listDelNode(repl.resume, listFirst(repl.resume));
        if (!(c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_ASAP))) processInputBuffer(c);
    }
    return AE_NOMORE;
}

/* The snapshot child that serves full syncs, reaped as soon as it exits
 * (before every sleep as well as from the cron): its replicas go online
 * then, so a write right after a replica read its payload reaches it
 * before anything can drop the link. */
void replicationReapChild(void) {
    if (repl.child == -1) return;
    int status;
    if (waitpid(repl.child, &status, WNOHANG) == repl.child) childDone(WIFEXITED(status) ? WEXITSTATUS(status) : 255);
}

/* Stops the full sync's fork child and drops the replicas it was to feed
 * (they sync again); a disk-based sync's unfinished file goes too. */
void replicationKillChild(void) {
    /* A child that already exited has fed its replicas whole: reaped as
     * such, not killed. (FLUSHALL right after a replica read its payload
     * dropped that replica -- Redis's unit/type/list saw its stream close.
     * A child still finishing after its last write is still killed, and
     * its replicas sync again: the window is narrower, not gone.) */
    replicationReapChild();
    if (repl.child == -1) return;
    pid_t pid = repl.child;
    childKill(pid);
    char tmp[64];
    snprintf(tmp, sizeof tmp, "temp-%d.rdb", (int)pid);
    unlink(tmp);
    childDone(255);
}

/* A replica that waited for the running sync's snapshot was dropped: a
 * child with nobody left to feed is stopped, as Redis does. A diskless one
 * always (with Redis's line), at once: waiting for its next buffer (the
 * pipe's reader stops it then too) takes long with rdb-key-save-delay, and
 * it holds the next full sync back. A disk-based one only without save
 * points: else its dump.rdb is worth finishing. */
static void killChildIfUnused(int freed_was_waiting) {
    if (repl.child == -1 || !freed_was_waiting) return;
    if (!repl.child_diskless && server.saveparamslen > 0) return;
    listIter li;
    listNode *ln;
    listRewind(repl.replicas, &li);
    while ((ln = listNext(&li))) {
        client *c = listNodeValue(ln);
        if (c->repl && c->repl->state == REPLICA_WAIT_BGSAVE_END) return;
    }
    if (repl.child_diskless) serverLog(LL_WARNING, "Diskless rdb transfer, last replica dropped, killing fork child.");
    replicationKillChild();
}

static int replicationCron(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    replicationReapChild();
    startFullSyncIfDue();
    failoverCron();
    if (listLength(repl.waiters)) checkWaiters();
    /* The period runs while there are replicas: the first one attached
     * gets its first PING a period later, not at once (tools that read the
     * stream set a long period to see only the commands). */
    if (listLength(repl.replicas) == 0) repl.last_ping_ms = server.mstime;
    else if (server.mstime - repl.last_ping_ms >= (long long)server.repl_ping_replica_period * 1000 &&
             !clusterManualFailoverPaused()) { /* the replica waits for a still offset */
        repl.last_ping_ms = server.mstime;
        feedPlain("*1\r\n$4\r\nPING\r\n");
    }
    dropTimedOutReplicas();
    rdbPipeDropTimedOut();
    backlogTtlCheck();
    replicaCron();
    return 100;
}

/* The snapshot loaded at start-up ended this history: we continue it, so
 * replicas (or our primary, if we are a replica) can resync partially.
 *
 * As a primary (Redis 7.0's restart-resync): the saved id becomes our
 * secondary id, valid up to the saved offset + 1, under a new id of our
 * own, and the keys that expired while we were down are dropped at load
 * and their DELs (UNLINKs with lazyfree-lazy-expire) start the backlog
 * after the saved offset -- the replicas resync partially and drop them
 * too. Too many of them for the backlog, and the replicas resync fully.
 * As a replica the id is our primary's: we continue it as it is. */
static struct {
    char replid[CONFIG_RUN_ID_SIZE + 1];
    long long offset;
    int has_id, has_offset;
    int primary_startup; /* the start-up load of a primary: expired keys become `expired` */
    sds expired;         /* their SELECTs and DELs, as the stream will carry them */
    int expired_db;      /* the db the last SELECT in `expired` names, -1 none */
} loaded = {.expired_db = -1};

void replicationLoadedAux(const char *key, const char *value) {
    if (!strcmp(key, "repl-id") && strlen(value) == CONFIG_RUN_ID_SIZE) {
        memcpy(loaded.replid, value, CONFIG_RUN_ID_SIZE + 1);
        loaded.has_id = 1;
    } else if (!strcmp(key, "repl-offset")) {
        loaded.has_offset = string2ll(value, strlen(value), &loaded.offset);
    }
}

/* rdb.c, start-up load: a key already expired, dropped. */
void replicationLoadedExpired(int dbid, sds key) {
    if (!loaded.primary_startup) return;
    if (loaded.expired == NULL) loaded.expired = sdsempty();
    if (dbid != loaded.expired_db) {
        loaded.expired = catSelect(loaded.expired, dbid);
        loaded.expired_db = dbid;
    }
    robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = 1, .ptr = key};
    robj *argv[2] = {server.lazyfree_lazy_expire ? shared.unlink_cmd : shared.del_cmd, &keyobj};
    loaded.expired = catCommand(loaded.expired, argv, 2);
}

static void restoreLoadedHistory(void) {
    int usable = loaded.has_id && loaded.has_offset && !server.aof_enabled;
    if (usable && loaded.primary_startup) {
        memcpy(repl.master_replid2, loaded.replid, sizeof repl.master_replid2);
        repl.second_repl_offset = loaded.offset + 1;
        repl.master_repl_offset = loaded.offset;
        replicationCreateBacklogIfNone();
        if (loaded.expired) {
            replicationFeedRaw(loaded.expired, sdslen(loaded.expired)); /* no replica yet: the backlog only */
            repl.seldb = loaded.expired_db;
        }
        serverLog(LL_NOTICE,
                  "Restored the replication history from the RDB: secondary ID %s valid up to offset %lld, "
                  "new replication ID %s, offset %lld",
                  repl.master_replid2, repl.second_repl_offset, repl.master_replid, repl.master_repl_offset);
    } else if (usable) {
        memcpy(repl.master_replid, loaded.replid, sizeof repl.master_replid);
        repl.master_repl_offset = loaded.offset;
        replicationCreateBacklogIfNone();
        serverLog(LL_NOTICE, "Restored the replication ID and offset from the RDB: %s:%lld", repl.master_replid,
                  repl.master_repl_offset);
    }
    sdsfree(loaded.expired);
    loaded.expired = NULL;
    loaded.primary_startup = 0;
}

/* The lists and a new replication id, before the dataset loads: clients are
 * served while it loads (INFO, ROLE, CLIENT LIST ...), before
 * replicationInit has run; an RDB's saved history replaces the id then. */
void replicationEarlyInit(void) {
    changeReplicationId();
    loaded.primary_startup = !replicationIsReplica();
    repl.replicas = listCreate();
    repl.waiters = listCreate();
    repl.resume = listCreate();
}

void replicationInit(void) {
    clearReplicationId2();
    restoreLoadedHistory();
    repl.no_replicas_since = repl.last_ping_ms = mstime();
    if (aeCreateTimeEvent(server.el, 100, replicationCron, NULL, NULL) == AE_ERR)
        serverPanic("Can't create the replication timer");
    replicaInit();
}
