/* replica.c -- the replica side of replication: REPLICAOF/SLAVEOF and the
 * `replicaof` directive, the handshake with the primary, the snapshot
 * transfer, and the primary's stream applied as commands.
 *
 * The link is one non-blocking connection driven by a state machine:
 * CONNECT (due: connect within a second) -> CONNECTING -> HANDSHAKE (one
 * command at a time, each reply read as a line: PING, AUTH when masterauth
 * is set, REPLCONF listening-port / ip-address / capa eof capa psync2,
 * PSYNC <our replid> <our offset + 1>) -> TRANSFER (+FULLRESYNC: the RDB,
 * "$<len>" or "$EOF:<mark>" framed, into a temporary file or memory) -> CONNECTED.
 * +CONTINUE goes straight to CONNECTED. With tls-replication yes the
 * connection is a TLS one (tlsCreateConnection); nothing else differs, as
 * every byte goes through connRead/connWrite.
 *
 * Design decisions:
 * - The snapshot goes into a temporary file (repl-diskless-load disabled,
 *   and on-empty-db when we hold keys), received whole, then loaded with
 *   rdbLoadFd and kept as dump.rdb; or (swapdb, on-empty-db when empty)
 *   it is parsed as it arrives (loadStreamed): no disk writes, no copy in
 *   memory, and the primary is held back by TCP when we parse slower than
 *   it sends. A load that fails empties the dataset (swapdb: brings the
 *   old one back), so a half-loaded dataset is never served, and the link
 *   starts over. To a client a diskless load is a load from the first
 *   byte (loading:1), or with swapdb and the same history async loading:
 *   the old dataset served until the new one replaces it (streamLoadStart).
 *   The parser reads the link itself, between passes that serve clients;
 *   what follows the payload stays in inbuf for the stream.
 * - Once synced, the link becomes a client flagged CLIENT_MASTER whose
 *   commands run through processCommand()/call() like any other (with the
 *   primary's SELECTs); it is exempt from -READONLY, OOM and auth checks
 *   and gets no replies. After each of its commands (replicaCommandApplied,
 *   from networking.c) the bytes of that command are fed to
 *   replicationFeedRaw(): our offset, backlog and own replicas follow the
 *   primary's stream byte for byte, which is what PSYNC2 needs.
 * - Our replication id and offset are the primary's after a full sync, so
 *   the PSYNC we send after a lost link, or after a restart, or to a new
 *   primary that was our sibling, asks for exactly what we lack.
 * - Expiry on a replica is the primary's: a logically expired key reads as
 *   missing, but only the primary's DEL removes it (expire.c asks
 *   replicationIsReplica()).
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>

#include "replication.h"
#include "aof.h"
#include "persistio.h"
#include "snapshot.h"
#include "lazyfree.h"

#define LINK_NONE 0
#define LINK_CONNECT 1     /* a connection is due */
#define LINK_CONNECTING 2  /* TCP connect in progress */
#define LINK_HANDSHAKE 3   /* a command sent, its reply awaited */
#define LINK_TRANSFER 4    /* reading the snapshot */
#define LINK_CONNECTED 5

/* handshake steps: the command whose reply is awaited */
enum { STEP_PING, STEP_AUTH, STEP_PORT, STEP_IP, STEP_CAPA, STEP_PSYNC, STEP_DONE };

#define EOF_MARK_LEN CONFIG_RUN_ID_SIZE

static struct {
    char *host;
    int port;
    int state;
    int step;
    connection *conn;
    sds inbuf;                 /* handshake lines, then the start of the transfer */
    client *master;
    long long last_io_ms, link_start_ms, last_connect_ms, down_since_ms;
    /* the transfer */
    long long size;            /* -1: "$EOF:" framed */
    long long read;
    char mark[EOF_MARK_LEN];
    char tail[EOF_MARK_LEN];   /* the last bytes received (EOF framing) */
    int tmpfd;
    char tmpfile[128];
    char sync_replid[CONFIG_RUN_ID_SIZE + 1];
    long long sync_offset;
    int same_history;          /* +FULLRESYNC named the replid we hold: async loading may apply */
    int no_history;            /* the old dataset flushed for a load, until one succeeds (replicaProcessedOffset) */
    int streaming;             /* a diskless load parses the link's bytes (loadStreamed) */
    int stream_cancelled;      /* cancelLink was asked meanwhile: the load fails, then the link closes */
    int swapdb;                /* that load sets the old dataset aside (repl-diskless-load swapdb) */
    /* the stream */
    int applying;
    sds unfed;                 /* bytes read from the primary, still to apply and feed on */
    long long read_total;      /* bytes read since the master client exists */
    long long applied_total;
    int master_db;             /* the db the primary's stream had selected when the link went */
    int failover;              /* FAILOVER: our PSYNC asks the target to take over */
} replica_state = {.tmpfd = -1};

int replicationIsReplica(void) { return replica_state.host != NULL; }
int replicaLinkUp(void) { return replica_state.state == LINK_CONNECTED && replica_state.master != NULL; }

/* The link's phase as a module's GetContextFlags tells it: 1 connecting, 2
 * in the handshake, 3 reading the snapshot, 4 online; 0 not a replica. */
int replicaLinkPhase(void) {
    if (!replicationIsReplica()) return 0;
    switch (replica_state.state) {
    case LINK_CONNECT:
    case LINK_CONNECTING: return 1;
    case LINK_TRANSFER: return 3;
    case LINK_CONNECTED: return replica_state.master ? 4 : 2;
    default: return 2;
    }
}

/* The offset a cluster replica announces on the bus (and ranks itself by):
 * 0 from the moment a full sync's load flushes the old dataset until a
 * load succeeds, when what it holds is no history of its primary -- as
 * Redis 7.0's replicationGetSlaveOffset gives once the load has dropped
 * its cached primary (replicationAttachToNewMaster, at the flush; a
 * swapdb load drops it only when it swaps). Its primary then leaves it
 * out of CLUSTER SLOTS (a loading replica is hidden from clients; Redis's
 * cluster suite 22-replica-in-sync) and it ranks last. That holds after a
 * load that failed too: such a replica holds an emptied dataset, and its
 * old offset would let it win an election over a replica with data.
 * Before the load (the transfer to disk, or a transfer cut short) the old
 * dataset is whole and its offset is still true. */
long long replicaProcessedOffset(void) {
    if (replica_state.host != NULL && replica_state.no_history) return 0;
    return replicationOffset();
}

/* How old this replica's data may be, in ms, as Redis counts it for
 * cluster-replica-validity-factor: whole seconds since the primary last sent
 * anything while the link is up, else since the link went down (never
 * connected: since the epoch, so such a replica never runs for election). */
long long replicaDataAgeMs(void) {
    long long now_s = server.mstime / 1000;
    if (replicaLinkUp()) return (now_s - replica_state.last_io_ms / 1000) * 1000;
    return (now_s - replica_state.down_since_ms / 1000) * 1000;
}
int replicaIsApplyingStream(void) { return replica_state.applying; }

void replicaResumeStream(void) {
    if (replica_state.master) queueClientForReprocessing(replica_state.master);
}

/* ---- ending a link ------------------------------------------------------------------------ */

static void dropTransferFile(void) {
    if (replica_state.tmpfd == -1) return;
    close(replica_state.tmpfd);
    unlink(replica_state.tmpfile);
    replica_state.tmpfd = -1;
}

/* Closes a link that is not (yet) a client; the next try comes from the
 * cron. Asked while a diskless load reads the link (a client or the cluster
 * bus, served by the load, changed our primary), it only marks the load to
 * fail: the link closes once the parser has let go of it. */
static void cancelLink(void) {
    if (replica_state.streaming) {
        replica_state.stream_cancelled = 1;
        return;
    }
    if (replica_state.conn) connClose(replica_state.conn);
    replica_state.conn = NULL;
    dropTransferFile();
    sdsfree(replica_state.inbuf);
    replica_state.inbuf = NULL;
    if (replica_state.state != LINK_NONE) replica_state.state = LINK_CONNECT;
    if (replica_state.failover) {
        replica_state.failover = 0;
        replicationFailoverFailed();
    }
}

static void linkFailed(const char *why) {
    serverLog(LL_WARNING, "%s", why);
    cancelLink();
}

void replicaMasterFreed(client *c) {
    if (c != replica_state.master) return;
    serverLog(LL_NOTICE, "Connection with master lost.");
    replica_state.master_db = c->db ? c->db->id : 0;
    replica_state.master = NULL;
    replica_state.conn = NULL; /* freeClient closes it */
    sdsfree(replica_state.unfed);
    replica_state.unfed = NULL;
    replica_state.down_since_ms = server.mstime;
    if (replica_state.state == LINK_CONNECTED) {
        replica_state.state = LINK_CONNECT;
        moduleFireMasterLink(0);
    }
}

static void dropMasterLink(void) {
    if (replica_state.master) {
        client *m = replica_state.master;
        replicaMasterFreed(m);
        freeClient(m);
    }
    cancelLink();
}

/* ---- talking during the handshake --------------------------------------------------------- */

static int sendCommandLen(int argc, const char **argv, const size_t *lens) {
    sds cmd = sdscatfmt(sdsempty(), "*%i\r\n", argc);
    for (int j = 0; j < argc; j++) {
        size_t len = lens ? lens[j] : strlen(argv[j]);
        cmd = sdscatfmt(cmd, "$%U\r\n", (unsigned long long)len);
        cmd = sdscatlen(cmd, argv[j], len);
        cmd = sdscatlen(cmd, "\r\n", 2);
    }
    ssize_t n = connWrite(replica_state.conn, cmd, sdslen(cmd));
    int ok = n == (ssize_t)sdslen(cmd);
    sdsfree(cmd);
    return ok;
}

static int sendCommand(int argc, const char **argv) { return sendCommandLen(argc, argv, NULL); }

/* The next whole line of the input (without its end), or NULL. */
static sds nextLine(void) {
    char *nl = memchr(replica_state.inbuf, '\n', sdslen(replica_state.inbuf));
    if (nl == NULL) return NULL;
    size_t len = (size_t)(nl - replica_state.inbuf);
    sds line = sdsnewlen(replica_state.inbuf, len && nl[-1] == '\r' ? len - 1 : len);
    sdsrange(replica_state.inbuf, (ssize_t)len + 1, -1);
    return line;
}

static int sendStep(int step) {
    char port[16], off[LONG_STR_SIZE + 1];
    replica_state.step = step;
    switch (step) {
    case STEP_PING: return sendCommand(1, (const char *[]){"PING"});
    case STEP_AUTH:
        if (server.masteruser)
            return sendCommandLen(3, (const char *[]){"AUTH", server.masteruser, server.masterauth},
                                  (const size_t[]){4, strlen(server.masteruser), sdslen(server.masterauth)});
        return sendCommandLen(2, (const char *[]){"AUTH", server.masterauth}, (const size_t[]){4, sdslen(server.masterauth)});
    case STEP_PORT: /* as Redis 7.0: the announced port, else the TLS one when replication is over TLS */
        snprintf(port, sizeof port, "%d",
                 server.replica_announce_port                  ? server.replica_announce_port
                 : tls_config.replication && tls_config.port ? tls_config.port
                                                               : server.port);
        return sendCommand(3, (const char *[]){"REPLCONF", "listening-port", port});
    case STEP_IP: return sendCommand(3, (const char *[]){"REPLCONF", "ip-address", server.replica_announce_ip});
    case STEP_CAPA: return sendCommand(5, (const char *[]){"REPLCONF", "capa", "eof", "capa", "psync2"});
    case STEP_PSYNC:
        snprintf(off, sizeof off, "%lld", replicationOffset() + 1);
        serverLog(LL_NOTICE, "Trying a partial resynchronization (request %s:%s).", replicationReplId(), off);
        if (replica_state.failover)
            return sendCommand(4, (const char *[]){"PSYNC", replicationReplId(), off, "FAILOVER"});
        return sendCommand(3, (const char *[]){"PSYNC", replicationReplId(), off});
    }
    return 0;
}

static int stepAfter(int step) {
    int next = step + 1;
    if (next == STEP_AUTH && !server.masterauth) next++;
    if (next == STEP_IP && !server.replica_announce_ip) next++;
    return next;
}

/* ---- the master client ----------------------------------------------------------------------- */

static void readFromMaster(connection *conn);

static void becomeConnected(int db) {
    client *c = createClient(replica_state.conn);
    connSetReadHandler(replica_state.conn, readFromMaster);
    c->flags |= CLIENT_MASTER | CLIENT_REPLY_OFF;
    clientSetAuthenticated(c, 1);
    selectDb(c, db);
    replClientOf(c);
    replica_state.master = c;
    replica_state.unfed = sdsempty();
    replica_state.read_total = replica_state.applied_total = 0;
    replica_state.state = LINK_CONNECTED;
    replica_state.last_io_ms = server.mstime;
    replica_state.down_since_ms = 0;
    if (sdslen(replica_state.inbuf)) { /* the stream that came with the last reply */
        c->querybuf = sdscatsds(c->querybuf, replica_state.inbuf);
        replica_state.unfed = sdscatsds(replica_state.unfed, replica_state.inbuf);
        replica_state.read_total += (long long)sdslen(replica_state.inbuf);
    }
    sdsfree(replica_state.inbuf);
    replica_state.inbuf = NULL;
    moduleFireMasterLink(1);
    replicaSendAck();
    if (sdslen(c->querybuf)) {
        replica_state.applying = 1;
        processInputBuffer(c);
        replica_state.applying = 0;
    }
}

#define UNFED_SPARE_MAX (1024 * 1024)

void replicaCommandApplied(client *c) {
    if (c != replica_state.master || replica_state.unfed == NULL) return;
    long long applied = replica_state.read_total - (long long)(sdslen(c->querybuf) - c->qb_pos);
    long long delta = applied - replica_state.applied_total;
    if (delta <= 0) return;
    replicationFeedRaw(replica_state.unfed, (size_t)delta);
    sdsrange(replica_state.unfed, (ssize_t)delta, -1);
    /* A big command grew the buffer to its size (and more: sds doubles),
     * and sdsrange keeps the room. Given back past UNFED_SPARE_MAX: a
     * 32 MB SET kept 40 MB more on every replica, outside every client's
     * figure, until the link dropped (Redis's suite, unit/pendingquerybuf).
     * The usual 16 KB reads never get near it. */
    if (sdsavail(replica_state.unfed) > UNFED_SPARE_MAX)
        replica_state.unfed = sdsRemoveFreeSpace(replica_state.unfed);
    replica_state.applied_total = applied;
}

static void readFromMaster(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    char buf[PROTO_IOBUF_LEN];
    ssize_t n = connRead(conn, buf, sizeof buf);
    if (n == -1 && connGetState(conn) == CONN_STATE_CONNECTED) return;
    if (n <= 0) {
        serverLog(LL_NOTICE, "MASTER closed the connection or reading from it failed: %s",
                  n == 0 ? "connection closed" : connGetLastError(conn));
        freeClientAsync(c);
        return;
    }
    replica_state.last_io_ms = c->last_interaction_ms = server.mstime;
    server.stat_net_input_bytes += n;
    c->querybuf = sdscatlen(c->querybuf, buf, (size_t)n);
    replica_state.unfed = sdscatlen(replica_state.unfed, buf, (size_t)n);
    replica_state.read_total += n;
    replicationNetInputBytes += n;
    replica_state.applying = 1;
    processInputBuffer(c);
    replica_state.applying = 0;
}

void replicaSendAck(void) {
    if (!replica_state.master || !replica_state.master->conn) return;
    char off[LONG_STR_SIZE], cmd[96];
    int len = ll2string(off, sizeof off, replicationOffset());
    int n = snprintf(cmd, sizeof cmd, "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", len, off);
    connWrite(replica_state.master->conn, cmd, (size_t)n);
}

/* ---- the snapshot ------------------------------------------------------------------------------ */

static int openTransferFile(void) {
    snprintf(replica_state.tmpfile, sizeof replica_state.tmpfile, "temp-%d.%lld.rdb", (int)getpid(),
             (long long)server.mstime);
    replica_state.tmpfd = open(replica_state.tmpfile, O_CREAT | O_WRONLY | O_TRUNC | O_EXCL, 0644);
    if (replica_state.tmpfd == -1) {
        serverLog(LL_WARNING, "Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                  strerror(errno));
        return 0;
    }
    return 1;
}

/* repl-diskless-load swapdb (always) and on-empty-db (when we hold no
 * key): the snapshot is parsed as it arrives (loadStreamed), with no temp
 * file (no writes to an SD card) and no copy of it in memory. */
#define DISKLESS_LOAD_ON_EMPTY_DB 1
#define DISKLESS_LOAD_SWAPDB 2

static int loadFromMemory(void) {
    if (server.repl_diskless_load == DISKLESS_LOAD_SWAPDB) return 1;
    return server.repl_diskless_load == DISKLESS_LOAD_ON_EMPTY_DB && dbTotalServerKeyCount() == 0;
}

/* A diskless load is a load from the transfer's first byte, as in Redis:
 * loading:1, and -LOADING for commands not flagged "loading", until the
 * new dataset is whole. With swapdb, when the primary's
 * +FULLRESYNC names the history we already hold (a restart, or a link lost
 * for longer than the backlog covers), what we hold is an older point of
 * the very dataset that arrives: it stays served throughout -- async
 * loading, async_loading:1, only "no_async_loading" commands refused --
 * and is exchanged for the new one once that is whole (Redis 7.0's rule,
 * and its module event REPL_ASYNC_LOAD for every swapdb load). */
static void streamLoadStart(void) {
    replica_state.swapdb = server.repl_diskless_load == DISKLESS_LOAD_SWAPDB;
    server.async_loading = replica_state.swapdb && replica_state.same_history;
    loadingStart(replica_state.size > 0 ? replica_state.size : 0, "RDB");
    if (replica_state.swapdb) moduleFireReplAsyncLoad(0); /* started */
}

/* completed: the new dataset is the one served now. */
static void streamLoadEnd(int completed) {
    if (replica_state.swapdb) moduleFireReplAsyncLoad(completed ? 2 : 1); /* completed, aborted */
    server.async_loading = 0;
    loadingEnd();
}

/* 1: a diskless load follows the header (loadStreamed); 0: the temp file
 * is open; -1: it could not be. */
static int startReceiving(void) {
    if (loadFromMemory()) return 1;
    return openTransferFile() ? 0 : -1;
}

/* "$<len>" or "$EOF:<mark>"; empty lines are the primary's keep-alives.
 * 0: more to read; -1: a failure; 1: the temp file receives what follows;
 * 2: a diskless load parses it. */
static int readTransferHeader(void) {
    sds line;
    while ((line = nextLine()) != NULL && sdslen(line) == 0) sdsfree(line);
    if (line == NULL) return 0;
    int ok = 1;
    if (line[0] == '-') {
        serverLog(LL_WARNING, "MASTER aborted replication with an error: %s", line + 1);
        ok = -1;
    } else if (line[0] != '$') {
        serverLog(LL_WARNING,
                  "Bad protocol from MASTER, the first byte is not '$' (we received '%s'), are you sure the host "
                  "and port are right?",
                  line);
        ok = -1;
    } else if (!strncmp(line + 1, "EOF:", 4) && sdslen(line) == 5 + EOF_MARK_LEN) {
        memcpy(replica_state.mark, line + 5, EOF_MARK_LEN);
        replica_state.size = -1;
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
                  loadFromMemory() ? "parser" : "disk");
    } else if (string2ll(line + 1, sdslen(line) - 1, &replica_state.size) && replica_state.size >= 0) {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving %lld bytes from master to %s", replica_state.size,
                  loadFromMemory() ? "parser" : "disk");
    } else {
        serverLog(LL_WARNING, "Bad transfer header from MASTER: '%s'", line);
        ok = -1;
    }
    sdsfree(line);
    if (ok == 1) {
        int how = startReceiving();
        ok = how == -1 ? -1 : how == 1 ? 2 : 1;
    }
    replica_state.read = 0;
    return ok;
}

static void noteTail(const char *p, size_t len) {
    if (len >= EOF_MARK_LEN) {
        memcpy(replica_state.tail, p + len - EOF_MARK_LEN, EOF_MARK_LEN);
    } else {
        memmove(replica_state.tail, replica_state.tail + len, EOF_MARK_LEN - len);
        memcpy(replica_state.tail + EOF_MARK_LEN - len, p, len);
    }
}

/* Writes what arrived of the snapshot; 1 when it is complete, 0 for more,
 * -1 on an error. What follows the snapshot stays in replica_state.inbuf. */
static int consumeTransfer(void) {
    size_t take = sdslen(replica_state.inbuf);
    if (replica_state.size >= 0 && (long long)take > replica_state.size - replica_state.read)
        take = (size_t)(replica_state.size - replica_state.read);
    if (take && write(replica_state.tmpfd, replica_state.inbuf, take) != (ssize_t)take) {
        serverLog(LL_WARNING, "Write error or short write writing to the DB dump file needed for MASTER <-> "
                              "REPLICA synchronization: %s", strerror(errno));
        return -1;
    }
    if (replica_state.size < 0) noteTail(replica_state.inbuf, take);
    replica_state.read += (long long)take;
    sdsrange(replica_state.inbuf, (ssize_t)take, -1);
    if (replica_state.size >= 0) return replica_state.read == replica_state.size;
    if (replica_state.read < EOF_MARK_LEN || memcmp(replica_state.tail, replica_state.mark, EOF_MARK_LEN)) return 0;
    if (ftruncate(replica_state.tmpfd, (off_t)(replica_state.read - EOF_MARK_LEN)) == -1) return -1;
    return 1;
}

/* repl-diskless-load swapdb: the old dataset -- keys, expires, the
 * libraries, the cluster slot index -- is set aside while the new one
 * loads (twice the memory for a while), and comes back if the load fails.
 * exchangeWithStash() is the one primitive: the dataset in use and the one
 * set aside change places. Async loading calls it around each pass that
 * serves clients (loadingServeSwapped), so the loader fills the new
 * dataset and clients read the old one with neither knowing. */

typedef struct stashedDb {
    kvtable *keys;
    dict *expires;
} stashedDb;

static struct {
    stashedDb *dbs; /* NULL: nothing is set aside */
    struct functionsStash *functions;
    void *slot_index;
} stash;

static void exchangeWithStash(void) {
    for (int j = 0; j < server.dbnum; j++) {
        stashedDb cur = {server.db[j].keys, server.db[j].expires};
        server.db[j].keys = stash.dbs[j].keys;
        server.db[j].expires = stash.dbs[j].expires;
        stash.dbs[j] = cur;
    }
    functionsSwapStash(stash.functions);
    clusterKeysExchange(&stash.slot_index);
}

static void stashDataset(void) {
    stash.dbs = zmalloc(sizeof(stashedDb) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        stash.dbs[j].keys = kvtableCreate(kvtableGetType(server.db[j].keys));
        stash.dbs[j].expires = dictCreate(server.db[j].expires->type);
    }
    stash.functions = functionsStashEmpty();
    stash.slot_index = NULL;
    exchangeWithStash();
}

/* Frees a dataset set aside, in the background as Redis does ("Discarding
 * ... in background"); a table a running snapshot still writes is handed
 * to it (snapshot.c frees it when done). */
static void releaseStashedDb(stashedDb *d) {
    int adopted = snapshotAdoptTable(d->keys);
    if (adopted || kvtableSize(d->keys) == 0) {
        dictRelease(d->expires); /* borrows from keys: first */
        if (!adopted) kvtableRelease(d->keys);
        return;
    }
    redisDb tmp = {.keys = d->keys, .expires = d->expires};
    lazyfreeDbTables(&tmp); /* a job owns them now; tmp got empty tables */
    dictRelease(tmp.expires);
    kvtableRelease(tmp.keys);
}

/* back: the dataset set aside replaces the current one (which is dropped);
 * else the one set aside is dropped. */
static void dropStash(int back) {
    if (stash.dbs == NULL) return;
    if (back) {
        for (int j = 0; j < server.dbnum; j++) emptyData(j, 0);
        exchangeWithStash();
    }
    functionsDropStash(stash.functions);
    clusterKeysIndexFree(stash.slot_index);
    for (int j = 0; j < server.dbnum; j++) releaseStashedDb(&stash.dbs[j]);
    zfree(stash.dbs);
    stash.dbs = NULL;
    stash.functions = NULL;
    stash.slot_index = NULL;
}

/* Async loading: clients are served the old dataset (see above). */
static void serveOldDataset(void) { exchangeWithStash(); }

/* loaded as an AOF base is (1): logically expired keys are kept, as a
 * Redis replica keeps them; the primary's DELs remove them */
static int loadFromFile(void) {
    int fd = open(replica_state.tmpfile, O_RDONLY);
    if (fd == -1) return C_ERR;
    struct stat st;
    loadingStart(fstat(fd, &st) == 0 ? st.st_size : 0, "RDB");
    int ret = rdbLoadFd(fd, "from the MASTER", 1);
    loadingEnd();
    close(fd);
    return ret;
}

/* ---- the diskless load: the link's bytes parsed as they come -------------------------------- */

/* Bytes of the payload for the parser: those read with the header first,
 * then the link's, never past a "$<len>" payload's end. The link is
 * non-blocking: while nothing has come, clients are served (a pass every
 * LINK_WAIT_MS at most) and repl-timeout counts; the primary's silence
 * longer than that, its close, or cancelLink fails the load. */
#define LINK_WAIT_MS 2

static void payloadRead(long long n) {
    replica_state.read += n;
    replica_state.last_io_ms = mstime();
    server.stat_net_input_bytes += n;
}

static ssize_t readPayload(void *ctx, void *buf, size_t len) {
    (void)ctx;
    if (replica_state.size >= 0) {
        long long left = replica_state.size - replica_state.read;
        if (left <= 0) return 0;
        if ((long long)len > left) len = (size_t)left;
    }
    size_t have = sdslen(replica_state.inbuf);
    if (have) {
        size_t take = have < len ? have : len;
        memcpy(buf, replica_state.inbuf, take);
        sdsrange(replica_state.inbuf, (ssize_t)take, -1);
        replica_state.read += (long long)take; /* counted as input when it was read */
        return (ssize_t)take;
    }
    for (;;) {
        if (replica_state.stream_cancelled) return -1;
        ssize_t n = connRead(replica_state.conn, buf, len);
        if (n > 0) {
            payloadRead(n);
            return n;
        }
        if (n == 0 || connGetState(replica_state.conn) != CONN_STATE_CONNECTED) {
            serverLog(LL_WARNING, "I/O error trying to sync with MASTER: connection lost");
            return -1;
        }
        if (mstime() - replica_state.last_io_ms > (long long)server.repl_timeout * 1000) {
            serverLog(LL_WARNING, "Timeout receiving bulk data from MASTER... If the problem persists try to set the "
                                  "'repl-timeout' parameter in redis.conf to a larger value.");
            return -1;
        }
        struct pollfd pfd = {.fd = connGetFd(replica_state.conn), .events = POLLIN};
        poll(&pfd, 1, LINK_WAIT_MS);
        loadingServeNow();
    }
}

/* After the RDB: a "$EOF:" payload ends with its mark (rest holds what the
 * parser's reads took past the RDB: part of it, all of it, or more); a
 * "$<len>" one at its length. What follows is the stream: it stays in
 * inbuf for the link. */
static int payloadEnd(sds rest) {
    if (replica_state.size >= 0) {
        char skip[1024];
        while (replica_state.read < replica_state.size) /* bytes past the RDB's end: not ours to parse */
            if (readPayload(NULL, skip, sizeof skip) <= 0) return C_ERR;
        replica_state.inbuf = sdscatsds(replica_state.inbuf, rest);
        return C_OK;
    }
    while (sdslen(rest) < EOF_MARK_LEN) {
        char more[EOF_MARK_LEN];
        ssize_t n = readPayload(NULL, more, EOF_MARK_LEN - sdslen(rest));
        if (n <= 0) return C_ERR;
        rest = sdscatlen(rest, more, (size_t)n);
    }
    int ok = memcmp(rest, replica_state.mark, EOF_MARK_LEN) == 0;
    if (!ok) serverLog(LL_WARNING, "Replication stream EOF marker is broken");
    else replica_state.inbuf = sdscatlen(replica_state.inbuf, rest + EOF_MARK_LEN, sdslen(rest) - EOF_MARK_LEN);
    sdsfree(rest);
    return ok ? C_OK : C_ERR;
}

static int loadFromLink(void) {
    sds rest = NULL;
    loadingParseStart(replica_state.size > 0 ? replica_state.size : 0);
    if (rdbLoadStream(readPayload, NULL, "received from the MASTER", 1, &rest) != C_OK) return C_ERR;
    if (payloadEnd(rest) != C_OK) return C_ERR;
    return replica_state.stream_cancelled ? C_ERR : C_OK;
}

/* streamed: a diskless load reads the link; else the snapshot is in
 * replica_state.tmpfile. */
static int loadTransferred(int streamed) {
    int swapdb = streamed && replica_state.swapdb, async = swapdb && server.async_loading;
    if (!async) signalFlushedDb(-1); /* async: once the new dataset is in place */
    if (swapdb) {
        stashDataset();
        if (async) loadingServeSwapped(serveOldDataset);
    } else {
        replica_state.no_history = 1;
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Flushing old data");
        emptyData(-1, server.repl_slave_lazy_flush);
        functionsFlushAll(); /* the snapshot brings the primary's libraries */
    }
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory");
    int ret = streamed ? loadFromLink() : loadFromFile(); /* C_ERR for a file that won't open too */
    loadingServeSwapped(NULL);
    if (swapdb && ret == C_OK) {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Swapping active DB with loaded DB");
        dropStash(0);
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Discarding old DB in background");
        if (async) signalFlushedDb(-1); /* WATCH, blocked readers, tracking: the keys changed */
    } else if (swapdb) {
        dropStash(1);
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Discarding temporary DB in background");
    }
    if (streamed) streamLoadEnd(ret == C_OK);
    return ret;
}

/* The end of a load, either kind: a failure empties what is half-loaded
 * (swapdb brought the old dataset back already) and the link starts over;
 * a success makes the primary's history ours. */
static void loadFinished(int loaded, int streamed) {
    if (loaded != C_OK) {
        serverLog(LL_WARNING, streamed ? "Failed trying to load the MASTER synchronization DB from socket, check "
                                         "server logs."
                                       : "Failed trying to load the MASTER synchronization DB from disk, check "
                                         "server logs.");
        if (!(streamed && replica_state.swapdb)) {
            emptyData(-1, 0);      /* never a half-loaded dataset */
            functionsFlushAll();
            changeReplicationId(); /* what we hold is no history of the primary's */
        }
        if (!streamed) unlink(replica_state.tmpfile);
        cancelLink();
        return;
    }
    if (streamed) server.dirty++; /* nothing on disk holds it: a save rule will (as Redis counts it) */
    if (!streamed && rename(replica_state.tmpfile, server.rdb_filename) == -1) unlink(replica_state.tmpfile);
    else if (!streamed && persistFsyncDirOf(server.rdb_filename) == -1)
        serverLog(LL_WARNING, "Failed trying to sync DB directory %s in MASTER <-> REPLICA synchronization: %s",
                  server.rdb_filename, strerror(errno));
    replicationSetHistory(replica_state.sync_replid, replica_state.sync_offset);
    replica_state.no_history = 0;
    replicationDropReplicas(); /* our own replicas hold the old history: they sync again */
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Finished with success");
    if (server.aof_enabled) { /* the AOF holds the old dataset: a new base from the loaded one */
        aofRewriteKill();
        aofRewriteStart();
    }
    becomeConnected(0);
}

/* A diskless load, from the header on: the parser reads the link itself
 * (its read handler is off meanwhile; the passes that serve clients skip
 * it). cancelLink only marks it while it runs (see there). */
static void loadStreamed(void) {
    connSetReadHandler(replica_state.conn, NULL);
    rdbKillChildBeforeSync(0);
    streamLoadStart();
    replica_state.streaming = 1;
    replica_state.stream_cancelled = 0;
    int loaded = loadTransferred(1);
    replica_state.streaming = 0;
    loadFinished(loaded, 1);
}

/* The snapshot received to disk is fsynced before it is loaded and then
 * renamed over the dump, and the directory after the rename: a power cut
 * never leaves half of it as dump.rdb (utils/powercut found that it could). */
static void transferDone(void) {
    if (persistio.fsync(replica_state.tmpfd) == -1) {
        serverLog(LL_WARNING, "Failed trying to sync the temp DB to disk in MASTER <-> REPLICA synchronization: %s",
                  strerror(errno));
        cancelLink(); /* drops the temp file; the next try comes from the cron */
        return;
    }
    close(replica_state.tmpfd);
    replica_state.tmpfd = -1;
    connSetReadHandler(replica_state.conn, NULL); /* the load serves clients: not this link */
    rdbKillChildBeforeSync(1);
    loadFinished(loadTransferred(0), 0);
}

/* ---- the handshake ------------------------------------------------------------------------- */

static int psyncReply(sds line) {
    if (replica_state.failover && line[0] == '+') {
        replica_state.failover = 0;
        replicationFailoverDone();
    }
    if (!strncmp(line, "+FULLRESYNC", 11)) {
        char *id = line + 12;
        if (sdslen(line) < 12 + CONFIG_RUN_ID_SIZE + 2) {
            serverLog(LL_WARNING, "Master replied with wrong +FULLRESYNC syntax.");
            return -1;
        }
        memcpy(replica_state.sync_replid, id, CONFIG_RUN_ID_SIZE);
        replica_state.sync_replid[CONFIG_RUN_ID_SIZE] = '\0';
        replica_state.same_history = !strcmp(replicationReplId(), replica_state.sync_replid);
        replica_state.sync_offset = strtoll(id + CONFIG_RUN_ID_SIZE + 1, NULL, 10);
        serverLog(LL_NOTICE, "Full resync from master: %s:%lld", replica_state.sync_replid, replica_state.sync_offset);
        replica_state.state = LINK_TRANSFER;
        replica_state.tmpfd = -1;
        return 1;
    }
    if (!strncmp(line, "+CONTINUE", 9)) {
        if (sdslen(line) >= 10 + CONFIG_RUN_ID_SIZE) {
            line[10 + CONFIG_RUN_ID_SIZE] = '\0';
            replicationContinueWithId(line + 10);
        }
        replica_state.no_history = 0; /* the primary continues what we hold */
        serverLog(LL_NOTICE, "Successful partial resynchronization with master.");
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        becomeConnected(replica_state.master_db);
        return 2;
    }
    serverLog(LL_WARNING, "Unexpected reply to PSYNC from master: %s", line);
    return -1;
}

/* One reply line of the handshake: 1 to go on, 0 to stop reading (the
 * link was replaced or closed), -1 on a failure. */
static int handshakeReply(sds line) {
    if (sdslen(line) == 0) return 1; /* a keep-alive newline */
    int err = line[0] == '-';
    switch (replica_state.step) {
    case STEP_PING:
        if (err && strncmp(line, "-NOAUTH", 7) && strncmp(line, "-NOPERM", 7) &&
            strncmp(line, "-ERR operation not permitted", 28)) {
            serverLog(LL_WARNING, "Error reply to PING from master: '%s'", line);
            return -1;
        }
        serverLog(LL_NOTICE, "Master replied to PING, replication can continue...");
        break;
    case STEP_AUTH:
        if (err) {
            serverLog(LL_WARNING, "Unable to AUTH to MASTER: %s", line);
            return -1;
        }
        break;
    case STEP_PORT:
    case STEP_IP:
    case STEP_CAPA:
        if (err) serverLog(LL_NOTICE, "(Non critical) Master does not understand REPLCONF: %s", line);
        break;
    case STEP_PSYNC: {
        if (err) {
            serverLog(LL_WARNING, "Unexpected reply to PSYNC from master: %s", line);
            return -1;
        }
        int r = psyncReply(line);
        return r == -1 ? -1 : r == 2 ? 0 : 1;
    }
    }
    return sendStep(stepAfter(replica_state.step)) ? 1 : -1;
}

/* Reads into replica_state.inbuf; 0 when nothing came (or the link failed). */
static int readLink(void) {
    char buf[PROTO_IOBUF_LEN];
    ssize_t n = connRead(replica_state.conn, buf, sizeof buf);
    if (n == -1 && connGetState(replica_state.conn) == CONN_STATE_CONNECTED) return 0;
    if (n <= 0) {
        linkFailed(replica_state.state == LINK_TRANSFER ? "I/O error trying to sync with MASTER: connection lost"
                                            : "Master closed the connection during the handshake");
        return 0;
    }
    replica_state.inbuf = sdscatlen(replica_state.inbuf, buf, (size_t)n);
    replica_state.last_io_ms = server.mstime;
    server.stat_net_input_bytes += n;
    return 1;
}

static void handleTransfer(void) {
    if (replica_state.tmpfd == -1) {
        int h = readTransferHeader();
        if (h == 0) return;
        if (h == -1) {
            cancelLink();
            return;
        }
        if (h == 2) {
            loadStreamed();
            return;
        }
    }
    int done = consumeTransfer();
    if (done == -1) linkFailed("MASTER <-> REPLICA sync: the snapshot could not be written");
    else if (done == 1) transferDone();
}

static void readLinkHandler(connection *conn) {
    (void)conn;
    /* Another load (DEBUG RELOAD) serves clients: the link waits for its
     * end, its bytes in the socket (a load cannot start inside a load). */
    if (server.loading) return;
    if (!readLink()) return;
    while (replica_state.state == LINK_HANDSHAKE) {
        sds line = nextLine();
        if (line == NULL) return;
        int r = handshakeReply(line);
        sdsfree(line);
        if (r == -1) {
            cancelLink();
            return;
        }
        if (r == 0) return;
    }
    if (replica_state.state == LINK_TRANSFER) handleTransfer();
}

static void connectedHandler(connection *conn) {
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error condition on socket for SYNC: %s", connGetLastError(conn));
        cancelLink();
        return;
    }
    serverLog(LL_NOTICE, "Non blocking connect for SYNC fired the event.");
    replica_state.state = LINK_HANDSHAKE;
    replica_state.inbuf = sdsempty();
    connSetReadHandler(conn, readLinkHandler);
    if (!sendStep(STEP_PING)) linkFailed("Error writing PING to the master");
}

static void startConnect(void) {
    replica_state.last_connect_ms = replica_state.link_start_ms = replica_state.last_io_ms = server.mstime;
    serverLog(LL_NOTICE, "Connecting to MASTER %s:%d", replica_state.host, replica_state.port);
    replica_state.conn = tls_config.replication ? tlsCreateConnection() : connCreateSocket(); /* tls-replication */
    if (connConnect(replica_state.conn, replica_state.host, replica_state.port, server.bind_source_addr,
                    connectedHandler) == C_ERR) {
        serverLog(LL_WARNING, "Unable to connect to MASTER: %s", connGetLastError(replica_state.conn));
        connClose(replica_state.conn);
        replica_state.conn = NULL;
        return;
    }
    replica_state.state = LINK_CONNECTING;
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync started");
}

/* ---- cron ----------------------------------------------------------------------------------- */

void replicaCron(void) {
    if (replica_state.host == NULL) return;
    long long idle = server.mstime - replica_state.last_io_ms, limit = (long long)server.repl_timeout * 1000;
    if ((replica_state.state == LINK_CONNECTING || replica_state.state == LINK_HANDSHAKE) && idle > limit) {
        linkFailed("Timeout connecting to the MASTER...");
    } else if (replica_state.state == LINK_TRANSFER && idle > limit) {
        linkFailed("Timeout receiving bulk data from MASTER... If the problem persists try to set the "
                   "'repl-timeout' parameter in redis.conf to a larger value.");
    } else if (replica_state.state == LINK_CONNECTED && replica_state.master && idle > limit) {
        serverLog(LL_WARNING, "MASTER timeout: no data nor PING received...");
        freeClientAsync(replica_state.master);
    }
    if (replica_state.state == LINK_CONNECT && server.mstime - replica_state.last_connect_ms >= 1000) startConnect();
    static long long last_ack;
    if (replica_state.state == LINK_CONNECTED && server.mstime - last_ack >= 1000) {
        last_ack = server.mstime;
        replicaSendAck();
    }
}

/* ---- REPLICAOF ------------------------------------------------------------------------------ */

/* Our own replicas stay connected, as in Redis 7.0: while we have no link
 * nothing is fed to them, and if our new primary continues our history
 * (PSYNC +CONTINUE with our id) they simply go on with its stream. They are
 * dropped, to sync again, when the history changes: a full sync, or a
 * +CONTINUE under another id (replicationContinueWithId). */
static void setPrimary(const char *host, int port) {
    dropMasterLink();
    if (replica_state.host == NULL) replica_state.no_history = 0; /* a primary's data is its own history */
    zfree(replica_state.host);
    replica_state.host = zstrdup(host);
    replica_state.port = port;
    replica_state.state = LINK_CONNECT;
    replica_state.last_connect_ms = 0;
    replica_state.master_db = 0;
    replica_state.down_since_ms = server.mstime;
    replicationDisconnectBlocked();
    oomScoreApplyServer(); /* a replica's oom-score-adj-values entry now */
    moduleFireRoleChanged(replica_state.host, replica_state.port);
}

static void unsetPrimary(void) {
    if (replica_state.host == NULL) return;
    dropMasterLink();
    zfree(replica_state.host);
    replica_state.host = NULL;
    replica_state.state = LINK_NONE;
    oomScoreApplyServer();
    replicationShiftId();
    replicationNoteStreamDb(-1);
    replicationDropReplicas();
    moduleFireRoleChanged(NULL, replica_state.port);
}

void replicaFailoverTo(const char *host, int port) {
    setPrimary(host, port);
    replica_state.failover = 1;
}

void replicaFailoverRevert(void) {
    replica_state.failover = 0;
    unsetPrimary();
}

void replicaPromoteForFailover(void) {
    unsetPrimary();
    serverLog(LL_NOTICE, "MASTER MODE enabled (failover request from our primary)");
}

/* cluster.c: a node set to replicate another (CLUSTER REPLICATE, nodes.conf)
 * follows it; NULL host: primary again. A no-op when already so. */
void replicaClusterFollow(const char *host, int port) {
    if (host == NULL) {
        if (replica_state.host == NULL) return;
        unsetPrimary();
        serverLog(LL_NOTICE, "MASTER MODE enabled (cluster configuration)");
        return;
    }
    if (replica_state.host && !strcmp(replica_state.host, host) && replica_state.port == port) return;
    setPrimary(host, port);
    serverLog(LL_NOTICE, "Connecting to MASTER %s:%d (cluster configuration)", host, port);
}

void replicaofCommand(client *c) {
    if (server.cluster_enabled) {
        addReplyError(c, "REPLICAOF not allowed in cluster mode.");
        return;
    }
    if (replicationFailoverInProgress()) {
        addReplyError(c, "REPLICAOF not allowed while failing over.");
        return;
    }
    if (!strcasecmp(c->argv[1]->ptr, "no") && !strcasecmp(c->argv[2]->ptr, "one")) {
        if (replica_state.host) {
            unsetPrimary();
            serverLog(LL_NOTICE, "MASTER MODE enabled (user request from '%s')", getClientPeerId(c));
        }
        addReply(c, shared.ok);
        return;
    }
    long port;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], 0, 65535, &port, "Invalid master port") != C_OK) return;
    if (replica_state.host && !strcasecmp(replica_state.host, c->argv[1]->ptr) && replica_state.port == port) {
        serverLog(LL_NOTICE, "REPLICAOF would result into synchronization with the master we are already "
                             "connected with. No operation performed.");
        addReplyStatus(c, "OK Already connected to specified master");
        return;
    }
    setPrimary(c->argv[1]->ptr, (int)port);
    serverLog(LL_NOTICE, "REPLICAOF %s:%d enabled (user request from '%s')", replica_state.host, replica_state.port,
              getClientPeerId(c));
    addReply(c, shared.ok);
}

/* `replicaof host port` in the config file (start-up): the link starts
 * from replicaInit(). */
int replicaConfigSet(sds *argv, int argc, sds *err) {
    if (argc == 0) { /* the default: no primary */
        zfree(replica_state.host);
        replica_state.host = NULL;
        return C_OK;
    }
    if (argc != 2) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    if (!strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one")) {
        zfree(replica_state.host);
        replica_state.host = NULL;
        return C_OK;
    }
    long long port;
    if (!string2ll(argv[1], sdslen(argv[1]), &port) || port < 0 || port > 65535) {
        *err = sdsnew("Invalid master port");
        return C_ERR;
    }
    zfree(replica_state.host);
    replica_state.host = zstrdup(argv[0]);
    replica_state.port = (int)port;
    return C_OK;
}

sds replicaConfigGet(sds out) {
    if (replica_state.host) out = sdscatprintf(out, "%s %d", replica_state.host, replica_state.port);
    return out;
}

void replicaInit(void) {
    if (replica_state.host == NULL) return;
    replica_state.state = LINK_CONNECT;
    replica_state.down_since_ms = mstime();
}

/* ---- INFO and ROLE --------------------------------------------------------------------------- */

static const char *roleStateName(void) {
    switch (replica_state.state) {
    case LINK_CONNECT: return "connect";
    case LINK_CONNECTING: return "connecting";
    case LINK_HANDSHAKE: return "handshake";
    case LINK_TRANSFER: return "sync";
    case LINK_CONNECTED: return "connected";
    }
    return "none";
}

void replicaRoleReply(client *c) {
    addReplyArrayLen(c, 5);
    addReplyBulkCBuffer(c, "slave", 5);
    addReplyBulkCString(c, replica_state.host);
    addReplyLongLong(c, replica_state.port);
    addReplyBulkCString(c, roleStateName());
    addReplyLongLong(c, replica_state.master ? replicationOffset() : -1);
}

sds replicaInfoString(sds info) {
    long long offset = replicationOffset();
    /* No history of the primary (a full sync's load under way or failed):
     * Redis 7.0 prints 1 for both offsets then (no master client, no
     * cached one); Sentinel ranks replicas by this field. */
    if (replica_state.no_history && replica_state.master == NULL) offset = 1;
    info = sdscatprintf(info,
                        "role:slave\r\n"
                        "master_host:%s\r\n"
                        "master_port:%d\r\n"
                        "master_link_status:%s\r\n"
                        "master_last_io_seconds_ago:%d\r\n"
                        "master_sync_in_progress:%d\r\n"
                        "slave_read_repl_offset:%lld\r\n"
                        "slave_repl_offset:%lld\r\n",
                        replica_state.host, replica_state.port, replicaLinkUp() ? "up" : "down",
                        replica_state.master ? (int)((server.mstime - replica_state.last_io_ms) / 1000) : -1,
                        replica_state.state == LINK_TRANSFER,
                        replica_state.master ? offset + (long long)sdslen(replica_state.unfed) : offset, offset);
    if (replica_state.state == LINK_TRANSFER) {
        long long total = replica_state.size < 0 ? 0 : replica_state.size;
        info = sdscatprintf(info,
                            "master_sync_total_bytes:%lld\r\n"
                            "master_sync_read_bytes:%lld\r\n"
                            "master_sync_left_bytes:%lld\r\n"
                            "master_sync_perc:%.2f\r\n"
                            "master_sync_last_io_seconds_ago:%d\r\n",
                            replica_state.size, replica_state.read, total - replica_state.read,
                            total ? (double)replica_state.read * 100 / (double)total : 0.0,
                            (int)((server.mstime - replica_state.last_io_ms) / 1000));
    }
    if (!replicaLinkUp())
        info = sdscatprintf(info, "master_link_down_since_seconds:%lld\r\n",
                            replica_state.down_since_ms ? (server.mstime - replica_state.down_since_ms) / 1000 : -1LL);
    return sdscatprintf(info, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                        server.replica_priority, server.repl_slave_ro, server.replica_announced);
}
