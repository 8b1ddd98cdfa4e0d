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
 * - The snapshot is received whole before anything is loaded: into a
 *   temporary file (repl-diskless-load disabled, and on-empty-db when we
 *   hold keys), loaded with rdbLoadFd and kept as dump.rdb, or into memory
 *   (swapdb, on-empty-db when empty: no disk writes), loaded with
 *   rdbLoadBuffer. The old dataset is served meanwhile and emptied (or,
 *   swapdb, set aside) only once the whole snapshot is here; a load that
 *   fails empties the dataset again (swapdb: brings the old one back), so
 *   a half-loaded dataset is never served, and the link starts over.
 *   Parsing while the bytes arrive would save the buffer's memory, but the
 *   loader is synchronous and the link's bytes after the snapshot (the
 *   stream) must stay the link's, so it waits for the whole snapshot.
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
#include <sys/stat.h>

#include "replication.h"
#include "aof.h"

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
    sds membuf;                /* diskless load: the snapshot, received into memory (NULL: to tmpfile) */
    char sync_replid[CONFIG_RUN_ID_SIZE + 1];
    long long sync_offset;
    /* the stream */
    int applying;
    sds unfed;                 /* bytes read from the primary, not yet applied and fed on */
    long long read_total;      /* bytes read since the master client exists */
    long long applied_total;
    int master_db;             /* the db the primary's stream had selected when the link went */
    int failover;              /* FAILOVER: our PSYNC asks the target to take over */
} S = {.tmpfd = -1};

int replicationIsReplica(void) { return S.host != NULL; }
int replicaLinkUp(void) { return S.state == LINK_CONNECTED && S.master != NULL; }
int replicaIsApplyingStream(void) { return S.applying; }

void replicaResumeStream(void) {
    if (S.master) queueClientForReprocessing(S.master);
}

/* ---- ending a link ------------------------------------------------------------------------ */

static void dropTransferFile(void) {
    sdsfree(S.membuf);
    S.membuf = NULL;
    if (S.tmpfd == -1) return;
    close(S.tmpfd);
    unlink(S.tmpfile);
    S.tmpfd = -1;
}

/* Closes a link that is not (yet) a client; the next try comes from the cron. */
static void cancelLink(void) {
    if (S.conn) connClose(S.conn);
    S.conn = NULL;
    dropTransferFile();
    sdsfree(S.inbuf);
    S.inbuf = NULL;
    if (S.state != LINK_NONE) S.state = LINK_CONNECT;
    if (S.failover) {
        S.failover = 0;
        replicationFailoverFailed();
    }
}

static void linkFailed(const char *why) {
    serverLog(LL_WARNING, "%s", why);
    cancelLink();
}

void replicaMasterFreed(client *c) {
    if (c != S.master) return;
    serverLog(LL_NOTICE, "Connection with master lost.");
    S.master_db = c->db ? c->db->id : 0;
    S.master = NULL;
    S.conn = NULL; /* freeClient closes it */
    sdsfree(S.unfed);
    S.unfed = NULL;
    S.down_since_ms = server.mstime;
    if (S.state == LINK_CONNECTED) S.state = LINK_CONNECT;
}

static void dropMasterLink(void) {
    if (S.master) {
        client *m = S.master;
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
    ssize_t n = connWrite(S.conn, cmd, sdslen(cmd));
    int ok = n == (ssize_t)sdslen(cmd);
    sdsfree(cmd);
    return ok;
}

static int sendCommand(int argc, const char **argv) { return sendCommandLen(argc, argv, NULL); }

/* The next whole line of the input (without its end), or NULL. */
static sds nextLine(void) {
    char *nl = memchr(S.inbuf, '\n', sdslen(S.inbuf));
    if (nl == NULL) return NULL;
    size_t len = (size_t)(nl - S.inbuf);
    sds line = sdsnewlen(S.inbuf, len && nl[-1] == '\r' ? len - 1 : len);
    sdsrange(S.inbuf, (ssize_t)len + 1, -1);
    return line;
}

static int sendStep(int step) {
    char port[16], off[LONG_STR_SIZE + 1];
    S.step = step;
    switch (step) {
    case STEP_PING: return sendCommand(1, (const char *[]){"PING"});
    case STEP_AUTH:
        if (server.masteruser)
            return sendCommandLen(3, (const char *[]){"AUTH", server.masteruser, server.masterauth},
                                  (const size_t[]){4, strlen(server.masteruser), sdslen(server.masterauth)});
        return sendCommandLen(2, (const char *[]){"AUTH", server.masterauth}, (const size_t[]){4, sdslen(server.masterauth)});
    case STEP_PORT:
        snprintf(port, sizeof port, "%d", server.replica_announce_port ? server.replica_announce_port : server.port);
        return sendCommand(3, (const char *[]){"REPLCONF", "listening-port", port});
    case STEP_IP: return sendCommand(3, (const char *[]){"REPLCONF", "ip-address", server.replica_announce_ip});
    case STEP_CAPA: return sendCommand(5, (const char *[]){"REPLCONF", "capa", "eof", "capa", "psync2"});
    case STEP_PSYNC:
        snprintf(off, sizeof off, "%lld", replicationOffset() + 1);
        serverLog(LL_NOTICE, "Trying a partial resynchronization (request %s:%s).", replicationReplId(), off);
        if (S.failover) return sendCommand(4, (const char *[]){"PSYNC", replicationReplId(), off, "FAILOVER"});
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
    client *c = createClient(S.conn);
    connSetReadHandler(S.conn, readFromMaster);
    c->flags |= CLIENT_MASTER | CLIENT_REPLY_OFF;
    clientSetAuthenticated(c, 1);
    selectDb(c, db);
    replClientOf(c);
    S.master = c;
    S.unfed = sdsempty();
    S.read_total = S.applied_total = 0;
    S.state = LINK_CONNECTED;
    S.last_io_ms = server.mstime;
    S.down_since_ms = 0;
    if (sdslen(S.inbuf)) { /* the stream that came with the last reply */
        c->querybuf = sdscatsds(c->querybuf, S.inbuf);
        S.unfed = sdscatsds(S.unfed, S.inbuf);
        S.read_total += (long long)sdslen(S.inbuf);
    }
    sdsfree(S.inbuf);
    S.inbuf = NULL;
    replicaSendAck();
    if (sdslen(c->querybuf)) {
        S.applying = 1;
        processInputBuffer(c);
        S.applying = 0;
    }
}

void replicaCommandApplied(client *c) {
    if (c != S.master || S.unfed == NULL) return;
    long long applied = S.read_total - (long long)(sdslen(c->querybuf) - c->qb_pos);
    long long delta = applied - S.applied_total;
    if (delta <= 0) return;
    replicationFeedRaw(S.unfed, (size_t)delta);
    sdsrange(S.unfed, (ssize_t)delta, -1);
    S.applied_total = applied;
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
    S.last_io_ms = c->last_interaction_ms = server.mstime;
    server.stat_net_input_bytes += n;
    c->querybuf = sdscatlen(c->querybuf, buf, (size_t)n);
    S.unfed = sdscatlen(S.unfed, buf, (size_t)n);
    S.read_total += n;
    replicationNetInputBytes += n;
    S.applying = 1;
    processInputBuffer(c);
    S.applying = 0;
}

void replicaSendAck(void) {
    if (!S.master || !S.master->conn) return;
    char off[LONG_STR_SIZE], cmd[96];
    int len = ll2string(off, sizeof off, replicationOffset());
    int n = snprintf(cmd, sizeof cmd, "*3\r\n$8\r\nREPLCONF\r\n$3\r\nACK\r\n$%d\r\n%s\r\n", len, off);
    connWrite(S.master->conn, cmd, (size_t)n);
}

/* ---- the snapshot ------------------------------------------------------------------------------ */

static int openTransferFile(void) {
    snprintf(S.tmpfile, sizeof S.tmpfile, "temp-%d.%lld.rdb", (int)getpid(), (long long)server.mstime);
    S.tmpfd = open(S.tmpfile, O_CREAT | O_WRONLY | O_TRUNC | O_EXCL, 0644);
    if (S.tmpfd == -1) {
        serverLog(LL_WARNING, "Opening the temp file needed for MASTER <-> REPLICA synchronization: %s",
                  strerror(errno));
        return 0;
    }
    return 1;
}

/* repl-diskless-load swapdb (always) and on-empty-db (when we hold no
 * key): the snapshot is received into memory and loaded from there, with
 * no temp file (no writes to an SD card). */
#define DISKLESS_LOAD_ON_EMPTY_DB 1
#define DISKLESS_LOAD_SWAPDB 2

static int loadFromMemory(void) {
    if (server.repl_diskless_load == DISKLESS_LOAD_SWAPDB) return 1;
    return server.repl_diskless_load == DISKLESS_LOAD_ON_EMPTY_DB && dbTotalServerKeyCount() == 0;
}

static int startReceiving(void) {
    if (!loadFromMemory()) return openTransferFile();
    S.membuf = sdsempty();
    return 1;
}

/* "$<len>" or "$EOF:<mark>"; empty lines are the primary's keep-alives. */
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
        memcpy(S.mark, line + 5, EOF_MARK_LEN);
        S.size = -1;
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving streamed RDB from master with EOF to %s",
                  loadFromMemory() ? "memory" : "disk");
    } else if (string2ll(line + 1, sdslen(line) - 1, &S.size) && S.size >= 0) {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: receiving %lld bytes from master to %s", S.size,
                  loadFromMemory() ? "memory" : "disk");
    } else {
        serverLog(LL_WARNING, "Bad transfer header from MASTER: '%s'", line);
        ok = -1;
    }
    sdsfree(line);
    if (ok == 1 && !startReceiving()) ok = -1;
    S.read = 0;
    return ok;
}

static void noteTail(const char *p, size_t len) {
    if (len >= EOF_MARK_LEN) {
        memcpy(S.tail, p + len - EOF_MARK_LEN, EOF_MARK_LEN);
    } else {
        memmove(S.tail, S.tail + len, EOF_MARK_LEN - len);
        memcpy(S.tail + EOF_MARK_LEN - len, p, len);
    }
}

/* Writes what arrived of the snapshot; 1 when it is complete, 0 for more,
 * -1 on an error. What follows the snapshot stays in S.inbuf. */
static int consumeTransfer(void) {
    size_t take = sdslen(S.inbuf);
    if (S.size >= 0 && (long long)take > S.size - S.read) take = (size_t)(S.size - S.read);
    if (take && S.membuf) {
        S.membuf = sdscatlen(S.membuf, S.inbuf, take);
    } else if (take && write(S.tmpfd, S.inbuf, take) != (ssize_t)take) {
        serverLog(LL_WARNING, "Write error or short write writing to the DB dump file needed for MASTER <-> "
                              "REPLICA synchronization: %s", strerror(errno));
        return -1;
    }
    if (S.size < 0) noteTail(S.inbuf, take);
    S.read += (long long)take;
    sdsrange(S.inbuf, (ssize_t)take, -1);
    if (S.size >= 0) return S.read == S.size;
    if (S.read < EOF_MARK_LEN || memcmp(S.tail, S.mark, EOF_MARK_LEN)) return 0;
    if (S.membuf) sdsrange(S.membuf, 0, (ssize_t)(S.read - EOF_MARK_LEN) - 1);
    else if (ftruncate(S.tmpfd, (off_t)(S.read - EOF_MARK_LEN)) == -1) return -1;
    return 1;
}

/* repl-diskless-load swapdb: the old dataset is set aside while the new one
 * loads (twice the memory for a while), and comes back if the load fails. */

typedef struct stashedDb {
    kvtable *keys;
    dict *expires;
} stashedDb;

static struct functionsStash *stashed_functions; /* with the stashed keys */

static stashedDb *stashDataset(void) {
    stashed_functions = functionsStashAll();
    stashedDb *st = zmalloc(sizeof(stashedDb) * (size_t)server.dbnum);
    for (int j = 0; j < server.dbnum; j++) {
        redisDb fresh;
        initDb(&fresh, j);
        st[j].keys = server.db[j].keys;
        st[j].expires = server.db[j].expires;
        server.db[j].keys = fresh.keys;
        server.db[j].expires = fresh.expires;
    }
    return st;
}

/* back: the stashed dataset replaces the current one; else it is freed */
static void dropStash(stashedDb *st, int back) {
    if (st == NULL) return;
    functionsDropStash(stashed_functions, back);
    stashed_functions = NULL;
    for (int j = 0; j < server.dbnum; j++) {
        redisDb *db = &server.db[j];
        if (back) {
            emptyData(j, 0);
            dictRelease(db->expires); /* borrows from keys: first */
            kvtableRelease(db->keys);
            db->keys = st[j].keys;
            db->expires = st[j].expires;
        } else {
            dictRelease(st[j].expires);
            kvtableRelease(st[j].keys);
        }
    }
    zfree(st);
}

/* loaded as an AOF base is (1): logically expired keys are kept, as a
 * Redis replica keeps them; the primary's DELs remove them */
static int loadFromFile(void) {
    int fd = open(S.tmpfile, O_RDONLY);
    if (fd == -1) return C_ERR;
    struct stat st;
    loadingStart(fstat(fd, &st) == 0 ? st.st_size : 0, "RDB");
    int ret = rdbLoadFd(fd, "from the MASTER", 1);
    loadingEnd();
    close(fd);
    return ret;
}

static int loadFromBuffer(sds rdb) {
    loadingStart((off_t)sdslen(rdb), "RDB");
    int ret = rdbLoadBuffer(rdb, sdslen(rdb), "received from the MASTER", 1);
    loadingEnd();
    return ret;
}

/* rdb: the snapshot received into memory, or NULL: it is in S.tmpfile. */
static int loadTransferred(sds rdb) {
    stashedDb *stash = NULL;
    signalFlushedDb(-1);
    if (server.repl_diskless_load == DISKLESS_LOAD_SWAPDB) {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Keeping the old data until the new one is loaded");
        stash = stashDataset();
    } else {
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Flushing old data");
        emptyData(-1, server.repl_slave_lazy_flush);
        functionsFlushAll(); /* the snapshot brings the primary's libraries */
    }
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Loading DB in memory");
    int ret = rdb ? loadFromBuffer(rdb) : loadFromFile(); /* C_ERR for a file that won't open too */
    if (stash && ret != C_OK)
        serverLog(LL_WARNING, "MASTER <-> REPLICA sync: Discarding the half-loaded data, restoring the old data");
    dropStash(stash, ret != C_OK);
    return ret;
}

static void transferDone(void) {
    if (S.tmpfd != -1) close(S.tmpfd);
    S.tmpfd = -1;
    sds rdb = S.membuf; /* ours now: the link may be cancelled while the load serves clients */
    S.membuf = NULL;
    connSetReadHandler(S.conn, NULL); /* the load serves clients: not this link */
    int loaded = loadTransferred(rdb);
    sdsfree(rdb);
    if (loaded != C_OK) {
        serverLog(LL_WARNING, "Failed trying to load the MASTER synchronization DB from disk, check server logs.");
        if (server.repl_diskless_load != DISKLESS_LOAD_SWAPDB) {
            emptyData(-1, 0);      /* never a half-loaded dataset */
            functionsFlushAll();
            changeReplicationId(); /* what we hold is no history of the primary's */
        }
        if (!rdb) unlink(S.tmpfile);
        cancelLink();
        return;
    }
    if (!rdb && rename(S.tmpfile, server.rdb_filename) == -1) unlink(S.tmpfile);
    replicationSetHistory(S.sync_replid, S.sync_offset);
    replicationDropReplicas(); /* our own replicas hold the old history: they sync again */
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Finished with success");
    if (server.aof_enabled) { /* the AOF holds the old dataset: a new base from the loaded one */
        aofRewriteKill();
        aofRewriteStart();
    }
    becomeConnected(0);
}

/* ---- the handshake ------------------------------------------------------------------------- */

static int psyncReply(sds line) {
    if (S.failover && line[0] == '+') {
        S.failover = 0;
        replicationFailoverDone();
    }
    if (!strncmp(line, "+FULLRESYNC", 11)) {
        char *id = line + 12;
        if (sdslen(line) < 12 + CONFIG_RUN_ID_SIZE + 2) {
            serverLog(LL_WARNING, "Master replied with wrong +FULLRESYNC syntax.");
            return -1;
        }
        memcpy(S.sync_replid, id, CONFIG_RUN_ID_SIZE);
        S.sync_replid[CONFIG_RUN_ID_SIZE] = '\0';
        S.sync_offset = strtoll(id + CONFIG_RUN_ID_SIZE + 1, NULL, 10);
        serverLog(LL_NOTICE, "Full resync from master: %s:%lld", S.sync_replid, S.sync_offset);
        S.state = LINK_TRANSFER;
        S.tmpfd = -1;
        return 1;
    }
    if (!strncmp(line, "+CONTINUE", 9)) {
        if (sdslen(line) >= 10 + CONFIG_RUN_ID_SIZE) {
            line[10 + CONFIG_RUN_ID_SIZE] = '\0';
            replicationContinueWithId(line + 10);
        }
        serverLog(LL_NOTICE, "Successful partial resynchronization with master.");
        serverLog(LL_NOTICE, "MASTER <-> REPLICA sync: Master accepted a Partial Resynchronization.");
        becomeConnected(S.master_db);
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
    switch (S.step) {
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
    return sendStep(stepAfter(S.step)) ? 1 : -1;
}

/* Reads into S.inbuf; 0 when nothing came (or the link failed). */
static int readLink(void) {
    char buf[PROTO_IOBUF_LEN];
    ssize_t n = connRead(S.conn, buf, sizeof buf);
    if (n == -1 && connGetState(S.conn) == CONN_STATE_CONNECTED) return 0;
    if (n <= 0) {
        linkFailed(S.state == LINK_TRANSFER ? "I/O error trying to sync with MASTER: connection lost"
                                            : "Master closed the connection during the handshake");
        return 0;
    }
    S.inbuf = sdscatlen(S.inbuf, buf, (size_t)n);
    S.last_io_ms = server.mstime;
    server.stat_net_input_bytes += n;
    return 1;
}

static void handleTransfer(void) {
    if (S.tmpfd == -1 && S.membuf == NULL) {
        int h = readTransferHeader();
        if (h == 0) return;
        if (h == -1) {
            cancelLink();
            return;
        }
    }
    int done = consumeTransfer();
    if (done == -1) linkFailed("MASTER <-> REPLICA sync: the snapshot could not be written");
    else if (done == 1) transferDone();
}

static void readLinkHandler(connection *conn) {
    (void)conn;
    if (!readLink()) return;
    while (S.state == LINK_HANDSHAKE) {
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
    if (S.state == LINK_TRANSFER) handleTransfer();
}

static void connectedHandler(connection *conn) {
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error condition on socket for SYNC: %s", connGetLastError(conn));
        cancelLink();
        return;
    }
    serverLog(LL_NOTICE, "Non blocking connect for SYNC fired the event.");
    S.state = LINK_HANDSHAKE;
    S.inbuf = sdsempty();
    connSetReadHandler(conn, readLinkHandler);
    if (!sendStep(STEP_PING)) linkFailed("Error writing PING to the master");
}

static void startConnect(void) {
    S.last_connect_ms = S.link_start_ms = S.last_io_ms = server.mstime;
    serverLog(LL_NOTICE, "Connecting to MASTER %s:%d", S.host, S.port);
    S.conn = tls_config.replication ? tlsCreateConnection() : connCreateSocket(); /* tls-replication */
    if (connConnect(S.conn, S.host, S.port, server.bind_source_addr, connectedHandler) == C_ERR) {
        serverLog(LL_WARNING, "Unable to connect to MASTER: %s", connGetLastError(S.conn));
        connClose(S.conn);
        S.conn = NULL;
        return;
    }
    S.state = LINK_CONNECTING;
    serverLog(LL_NOTICE, "MASTER <-> REPLICA sync started");
}

/* ---- cron ----------------------------------------------------------------------------------- */

void replicaCron(void) {
    if (S.host == NULL) return;
    long long idle = server.mstime - S.last_io_ms, limit = (long long)server.repl_timeout * 1000;
    if ((S.state == LINK_CONNECTING || S.state == LINK_HANDSHAKE) && idle > limit) {
        linkFailed("Timeout connecting to the MASTER...");
    } else if (S.state == LINK_TRANSFER && idle > limit) {
        linkFailed("Timeout receiving bulk data from MASTER... If the problem persists try to set the "
                   "'repl-timeout' parameter in redis.conf to a larger value.");
    } else if (S.state == LINK_CONNECTED && S.master && idle > limit) {
        serverLog(LL_WARNING, "MASTER timeout: no data nor PING received...");
        freeClientAsync(S.master);
    }
    if (S.state == LINK_CONNECT && server.mstime - S.last_connect_ms >= 1000) startConnect();
    static long long last_ack;
    if (S.state == LINK_CONNECTED && server.mstime - last_ack >= 1000) {
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
    zfree(S.host);
    S.host = zstrdup(host);
    S.port = port;
    S.state = LINK_CONNECT;
    S.last_connect_ms = 0;
    S.master_db = 0;
    S.down_since_ms = server.mstime;
    replicationDisconnectBlocked();
    oomScoreApplyServer(); /* a replica's oom-score-adj-values entry now */
}

static void unsetPrimary(void) {
    if (S.host == NULL) return;
    dropMasterLink();
    zfree(S.host);
    S.host = NULL;
    S.state = LINK_NONE;
    oomScoreApplyServer();
    replicationShiftId();
    replicationNoteStreamDb(-1);
    replicationDropReplicas();
}

void replicaFailoverTo(const char *host, int port) {
    setPrimary(host, port);
    S.failover = 1;
}

void replicaFailoverRevert(void) {
    S.failover = 0;
    unsetPrimary();
}

void replicaPromoteForFailover(void) {
    unsetPrimary();
    serverLog(LL_NOTICE, "MASTER MODE enabled (failover request from our primary)");
}

void replicaofCommand(client *c) {
    if (replicationFailoverInProgress()) {
        addReplyError(c, "REPLICAOF not allowed while failing over.");
        return;
    }
    if (!strcasecmp(c->argv[1]->ptr, "no") && !strcasecmp(c->argv[2]->ptr, "one")) {
        if (S.host) {
            unsetPrimary();
            serverLog(LL_NOTICE, "MASTER MODE enabled (user request from '%s')", getClientPeerId(c));
        }
        addReply(c, shared.ok);
        return;
    }
    long port;
    if (getRangeLongFromObjectOrReply(c, c->argv[2], 0, 65535, &port, "Invalid master port") != C_OK) return;
    if (S.host && !strcasecmp(S.host, c->argv[1]->ptr) && S.port == port) {
        serverLog(LL_NOTICE, "REPLICAOF would result into synchronization with the master we are already "
                             "connected with. No operation performed.");
        addReplyStatus(c, "OK Already connected to specified master");
        return;
    }
    setPrimary(c->argv[1]->ptr, (int)port);
    serverLog(LL_NOTICE, "REPLICAOF %s:%d enabled (user request from '%s')", S.host, S.port, getClientPeerId(c));
    addReply(c, shared.ok);
}

/* `replicaof host port` in the config file (start-up): the link starts
 * from replicaInit(). */
int replicaConfigSet(sds *argv, int argc, sds *err) {
    if (argc == 0) { /* the default: no primary */
        zfree(S.host);
        S.host = NULL;
        return C_OK;
    }
    if (argc != 2) {
        *err = sdsnew("wrong number of arguments");
        return C_ERR;
    }
    if (!strcasecmp(argv[0], "no") && !strcasecmp(argv[1], "one")) {
        zfree(S.host);
        S.host = NULL;
        return C_OK;
    }
    long long port;
    if (!string2ll(argv[1], sdslen(argv[1]), &port) || port < 0 || port > 65535) {
        *err = sdsnew("Invalid master port");
        return C_ERR;
    }
    zfree(S.host);
    S.host = zstrdup(argv[0]);
    S.port = (int)port;
    return C_OK;
}

sds replicaConfigGet(sds out) {
    if (S.host) out = sdscatprintf(out, "%s %d", S.host, S.port);
    return out;
}

void replicaInit(void) {
    if (S.host == NULL) return;
    S.state = LINK_CONNECT;
    S.down_since_ms = mstime();
}

/* ---- INFO and ROLE --------------------------------------------------------------------------- */

static const char *roleStateName(void) {
    switch (S.state) {
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
    addReplyBulkCString(c, S.host);
    addReplyLongLong(c, S.port);
    addReplyBulkCString(c, roleStateName());
    addReplyLongLong(c, S.master ? replicationOffset() : -1);
}

sds replicaInfoString(sds info) {
    long long offset = replicationOffset();
    info = sdscatprintf(info,
                        "role:slave\r\n"
                        "master_host:%s\r\n"
                        "master_port:%d\r\n"
                        "master_link_status:%s\r\n"
                        "master_last_io_seconds_ago:%d\r\n"
                        "master_sync_in_progress:%d\r\n"
                        "slave_read_repl_offset:%lld\r\n"
                        "slave_repl_offset:%lld\r\n",
                        S.host, S.port, replicaLinkUp() ? "up" : "down",
                        S.master ? (int)((server.mstime - S.last_io_ms) / 1000) : -1, S.state == LINK_TRANSFER,
                        S.master ? offset + (long long)sdslen(S.unfed) : offset, offset);
    if (S.state == LINK_TRANSFER) {
        long long total = S.size < 0 ? 0 : S.size;
        info = sdscatprintf(info,
                            "master_sync_total_bytes:%lld\r\n"
                            "master_sync_read_bytes:%lld\r\n"
                            "master_sync_left_bytes:%lld\r\n"
                            "master_sync_perc:%.2f\r\n"
                            "master_sync_last_io_seconds_ago:%d\r\n",
                            S.size, S.read, total - S.read, total ? (double)S.read * 100 / (double)total : 0.0,
                            (int)((server.mstime - S.last_io_ms) / 1000));
    }
    if (!replicaLinkUp())
        info = sdscatprintf(info, "master_link_down_since_seconds:%lld\r\n",
                            S.down_since_ms ? (server.mstime - S.down_since_ms) / 1000 : -1LL);
    return sdscatprintf(info, "slave_priority:%d\r\nslave_read_only:%d\r\nreplica_announced:%d\r\n",
                        server.replica_priority, server.repl_slave_ro, server.replica_announced);
}
