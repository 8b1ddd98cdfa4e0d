/* networking.c -- clients: accepting them, reading and parsing their
 * requests, writing their replies, and closing them.
 *
 * Flow: the event loop calls readQueryFromClient() when a socket is
 * readable; bytes are appended to c->querybuf and parsed (inline or RESP
 * multibulk) into c->argv, and each complete command goes through
 * processCommand(). Replies accumulate in the client's buffers (reply.c);
 * beforeSleep() calls handleClientsWithPendingWrites(), which writes
 * directly and installs a write handler only for what the socket could not
 * take -- most replies never need an extra event-loop round. The inline
 * buffer and the blocks after it go out in one gathered write.
 *
 * Protocol errors reply "-ERR Protocol error: ..." and close the connection
 * after the reply, with the same texts and limits as Redis, plus one of our
 * own: a raw NUL byte in an inline request, which Redis never sees the end
 * of. A big argument's buffer grows as its bytes arrive, never by the
 * announced length alone (bigArgReadRoom). Clients are never
 * freed while one of their own callbacks runs: freeClientAsync() queues them
 * and beforeSleep() frees them.
 */
#include "server.h"
#include "acl.h"
#include "argpool.h"
#include "client_eviction.h"
#include "connection_shm.h"
#include "tracking.h"

#include <errno.h>
#include <sys/uio.h>

#define MAX_ACCEPTS_PER_CALL 1000
#define UNAUTHENTICATED_MAX_MULTIBULK 10
#define UNAUTHENTICATED_MAX_BULK 16384

static void sendReplyToClient(connection *conn);

/* ---- creating and freeing ---------------------------------------------------------- */

static void freeReplyBlock(void *block) { zfree(block); }

/* TCP options are no-ops on unix sockets (the connection layer knows). */
static void configureClientSocket(connection *conn) {
    connNonBlock(conn);
    connEnableTcpNoDelay(conn);
    if (server.tcpkeepalive) connKeepAlive(conn, server.tcpkeepalive);
}

static void readQueryFromClient(connection *conn); /* the read handler, below */

client *createClient(connection *conn) {
    client *c = zcalloc(sizeof(client));
    if (conn) {
        configureClientSocket(conn);
        connSetReadHandler(conn, readQueryFromClient);
        connSetPrivateData(conn, c);
    }
    c->buf = zmalloc_usable(PROTO_REPLY_CHUNK_BYTES, &c->buf_usable_size);
    c->buf_peak_reset_ms = server.mstime;
    c->id = server.next_client_id++;
    c->conn = conn;
    c->resp = 2;
    selectDb(c, 0);
    c->querybuf = sdsempty();
    c->bulklen = -1;
    c->reply = listCreate();
    listSetFreeMethod(c->reply, freeReplyBlock);
    c->ctime = server.unixtime;
    c->last_interaction_ms = server.mstime;
    c->user = conn ? aclDefaultUser() : NULL; /* NULL: a fake client (AOF loading), never checked */
    clientSetAuthenticated(c, !aclDefaultUserRequiresAuth()); /* as Redis 7.0: kept if a password comes later */
    c->watched_keys = listCreate();
    if (conn) {
        listAddNodeTail(server.clients, c);
        c->client_list_node = listLast(server.clients);
    }
    return c;
}

/* The argv array is kept for the next command, unless one request with
 * many arguments (a 100k-member SADD) grew it: that room goes back. */
#define ARGV_KEEP_SLOTS 1024

void freeClientArgv(client *c) {
    for (int j = 0; j < c->argc; j++) argpoolReleaseArg(c, c->argv[j]);
    c->argc = 0;
    c->cmd = NULL;
    c->argv_len_sum = 0;
    if (c->argv_len > ARGV_KEEP_SLOTS) {
        zfree(c->argv);
        c->argv = NULL;
        c->argv_len = 0;
    }
}

static void unlinkClient(client *c) {
    if (c->client_list_node) {
        listDelNode(server.clients, c->client_list_node);
        c->client_list_node = NULL;
    }
    if (c->flags & CLIENT_PENDING_WRITE) {
        listUnlinkNode(server.clients_pending_write, &c->pending_write_node);
        c->flags &= ~CLIENT_PENDING_WRITE;
    }
    if (c->conn) {
        connClose(c->conn);
        c->conn = NULL;
    }
}

void freeClient(client *c) {
    if (server.current_client == c || c->flags & CLIENT_PROTECTED) { /* still executing: defer */
        freeClientAsync(c);
        return;
    }
    if (c->flags & CLIENT_CLOSE_ASAP) {
        listNode *ln = listSearchKey(server.clients_to_close, c);
        if (ln) listDelNode(server.clients_to_close, ln);
    }
    if (c->conn) moduleFireClientChange(c, 1); /* modules' ClientChange event, as Redis: connections only */
    multiClientFreed(c);           /* UNWATCH; a transaction being queued goes */
    clientEvictionClientFreed(c);  /* its memory leaves the clients' total */
    pubsubClientFreed(c);          /* every subscription goes */
    trackingClientFreed(c);        /* tracking off; clients redirecting to it see it gone */
    moduleBlockedClientFreed(c);   /* blocked by a module: its disconnect callback */
    moduleAuthUserChanged(c);      /* authenticated by a module: its user-changed callback */
    blockedClientFreed(c);         /* out of every key's queue and the deadline heap */
    if (c->repl) replicationClientFreed(c); /* a replica, the primary's link, or a WAIT */
    unlinkClient(c);
    sdsfree(c->querybuf);
    freeClientArgv(c);
    argpoolFree(c);
    zfree(c->argv);
    listRelease(c->reply);
    listRelease(c->watched_keys);
    if (c->deferred_errors) listRelease(c->deferred_errors);
    zfree(c->buf);
    if (c->name) decrRefCount(c->name);
    if (c->flags & CLIENT_MONITOR) monitorClientFreed(c);
    sdsfree(c->peerid);
    sdsfree(c->sockname);
    zfree(c);
}

void freeClientAsync(client *c) {
    if (c->flags & CLIENT_CLOSE_ASAP) return;
    c->flags |= CLIENT_CLOSE_ASAP;
    listAddNodeTail(server.clients_to_close, c);
    clientMemoryChanged(c); /* a closing client no longer counts toward maxmemory-clients */
}

/* A protected client (its command is loading the dataset) stays queued. */
void freeClientsInAsyncFreeQueue(void) {
    unsigned long kept = 0;
    while (listLength(server.clients_to_close) > kept) {
        listNode *ln = listFirst(server.clients_to_close);
        client *c = listNodeValue(ln);
        if (c->flags & CLIENT_PROTECTED) {
            listRotateHeadToTail(server.clients_to_close);
            kept++;
            continue;
        }
        listDelNode(server.clients_to_close, ln);
        c->flags &= ~CLIENT_CLOSE_ASAP;
        if (server.current_client == c) server.current_client = NULL;
        freeClient(c);
    }
}

/* While c's command loads the dataset (DEBUG RELOAD, DEBUG LOADAOF) and
 * other clients are served meanwhile, c's input is left unread, so no
 * second command of c starts inside the first, and freeing c waits. */
void protectClient(client *c) {
    c->flags |= CLIENT_PROTECTED;
    if (c->conn) connSetReadHandler(c->conn, NULL);
}

void unprotectClient(client *c) {
    c->flags &= ~CLIENT_PROTECTED;
    if (c->conn) connSetReadHandler(c->conn, readQueryFromClient);
}

/* ---- accepting ---------------------------------------------------------------------- */

static const char *protected_mode_error =
    "-DENIED Redis is running in protected mode because protected "
    "mode is enabled and no password is set for the default user. "
    "In this mode connections are only accepted from the loopback interface. "
    "If you want to connect from external computers to Redis you "
    "may adopt one of the following solutions: "
    "1) Just disable protected mode sending the command "
    "'CONFIG SET protected-mode no' from the loopback interface "
    "by connecting to Redis from the same host the server is "
    "running, however MAKE SURE Redis is not publicly accessible "
    "from internet if you do so. Use CONFIG REWRITE to make this "
    "change permanent. "
    "2) Alternatively you can just disable the protected mode by "
    "editing the Redis configuration file, and setting the protected "
    "mode option to 'no', and then restarting the server. "
    "3) If you started the server manually just for testing, restart "
    "it with the '--protected-mode no' option. "
    "4) Set up an authentication password for the default user. "
    "NOTE: You only need to do one of the above things in order for "
    "the server to start accepting connections from the outside.\r\n";

/* Rejects a connection with a one-line error, written best-effort. */
static void rejectConnection(connection *conn, const char *err) {
    if (connWrite(conn, err, strlen(err)) == -1) { /* nothing more to do */ }
    server.stat_rejected_conn++;
    connClose(conn);
}

/* Runs when the transport has finished accepting (at once for plain
 * sockets, after the handshake for TLS). Only a handshake can fail here
 * (garbage, a plaintext client, a certificate we refuse): logged as a
 * warning with OpenSSL's reason, as Redis 7.0 does, so an operator whose
 * clients cannot connect finds why at the default loglevel. */
static void clientAcceptHandler(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_WARNING, "Error accepting a client connection: %s", connGetLastError(conn));
        freeClientAsync(c);
        return;
    }
    server.stat_numconnections++;
    moduleFireClientChange(c, 0); /* modules' ClientChange event (module_events.c) */
}

void acceptCommonHandler(connection *conn, int flags) {
    if (listLength(server.clients) + shmExtraDescriptors() >= server.maxclients) { /* shm.c: "Descriptors" */
        rejectConnection(conn, "-ERR max number of clients reached\r\n");
        return;
    }
    if (server.protected_mode && aclDefaultUserHasNoPassword() && !(flags & CLIENT_UNIX_SOCKET) &&
        !connIsLocal(conn)) {
        rejectConnection(conn, protected_mode_error);
        return;
    }
    client *c = createClient(conn);
    c->flags |= (uint64_t)flags;
    if (connAccept(conn, clientAcceptHandler) == CONN_ERR) {
        serverLog(LL_WARNING, "Error accepting a client connection: %s", connGetLastError(conn));
        freeClient(c);
    }
}

/* Accepts what is pending on a listener, at most MAX_ACCEPTS_PER_CALL at a
 * time so other clients are served too. Each socket is wrapped by its
 * transport (`wrap`: plain sockets, or TLS's) and handed to
 * acceptCommonHandler with `flags`; `what` names the listener in the log. */
void acceptConnections(int fd, const char *what, int flags, connection *(*wrap)(int cfd)) {
    char ip[NET_IP_STR_LEN], err[ANET_ERR_LEN];
    int is_unix = (flags & CLIENT_UNIX_SOCKET) != 0;
    for (int i = 0; i < MAX_ACCEPTS_PER_CALL; i++) {
        int port = 0;
        int cfd = is_unix ? anetUnixAccept(err, fd) : anetTcpAccept(err, fd, ip, sizeof ip, &port);
        if (cfd == ANET_ERR) {
            int exhausted = openFilesRefuseWhenExhausted(fd, what);
            if (exhausted == 1) continue;
            if (exhausted == -1) return;
            if (errno != EWOULDBLOCK && errno != EAGAIN)
                serverLog(LL_WARNING, "Accepting client connection: %s", err);
            return;
        }
        if (is_unix) serverLog(LL_VERBOSE, "Accepted connection to %s", server.unixsocket);
        else serverLog(LL_VERBOSE, "Accepted %s:%d", ip, port);
        acceptCommonHandler(wrap(cfd), flags);
    }
}

void acceptTcpHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el; (void)privdata; (void)mask;
    acceptConnections(fd, "TCP", 0, connCreateAcceptedSocket);
}

void acceptUnixHandler(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el; (void)privdata; (void)mask;
    acceptConnections(fd, "unix socket", CLIENT_UNIX_SOCKET, connCreateAcceptedSocket);
}

/* ---- parsing requests ----------------------------------------------------------------- */

static int authRequired(client *c) { return !c->authenticated && aclDefaultUserRequiresAuth(); }

void clientSetAuthenticated(client *c, int authenticated) {
    c->authenticated = authenticated;
    if (authenticated) c->ever_authenticated = 1;
}

static void setProtocolError(client *c, const char *errstr) {
    if (server.verbosity <= LL_VERBOSE) {
        sds peer = sdsnew(getClientPeerId(c));
        serverLog(LL_VERBOSE, "Protocol error (%s) from client: %s", errstr, peer);
        sdsfree(peer);
    }
    c->flags |= CLIENT_CLOSE_AFTER_REPLY;
}

static void protocolError(client *c, const char *msg) {
    addReplyErrorFormat(c, "Protocol error: %s", msg);
    setProtocolError(c, msg);
}

static void ensureArgvCapacity(client *c, int needed) {
    if (needed <= c->argv_len) return;
    int len = c->argv_len ? c->argv_len : 8;
    while (len < needed) len = len > INT_MAX / 2 ? INT_MAX : len * 2;
    c->argv = zrealloc(c->argv, sizeof(robj *) * (size_t)len);
    c->argv_len = len;
}

static void appendArg(client *c, const char *p, size_t len) {
    ensureArgvCapacity(c, c->argc + 1);
    c->argv[c->argc++] = argpoolCreateArg(c, p, len);
    c->argv_len_sum += len;
}

/* One line of text, split like redis-cli splits its input. The splitter
 * reads C strings, so a raw NUL byte would silently cut the line short
 * ("SET k a\0b" stored "a"): such a line is refused instead. Redis 7.0
 * doesn't see the line end past a NUL and waits until "too big inline
 * request"; refusing at once is the same outcome without the wait. Quoted
 * escapes ("\x00") still give NUL bytes in arguments. */
static int processInlineBuffer(client *c) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    char *newline = memchr(start, '\n', avail);
    if (newline == NULL) {
        if (avail > PROTO_INLINE_MAX_SIZE) protocolError(c, "too big inline request");
        return C_ERR;
    }
    size_t linefeed_chars = 1;
    if (newline != start && newline[-1] == '\r') { newline--; linefeed_chars++; }
    size_t querylen = (size_t)(newline - start);
    if (memchr(start, '\0', querylen) != NULL) {
        protocolError(c, "NUL byte in inline request");
        return C_ERR;
    }
    sds line = sdsnewlen(start, querylen);
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    sdsfree(line);
    if (argv == NULL) {
        protocolError(c, "unbalanced quotes in request");
        return C_ERR;
    }
    c->qb_pos += querylen + linefeed_chars;
    for (int j = 0; j < argc; j++) appendArg(c, argv[j], sdslen(argv[j]));
    sdsfreesplitres(argv, argc);
    return C_OK;
}

/* The common "*N\r\n" / "$N\r\n" line, N of 1 to 9 digits without a
 * leading zero, read in one pass; anything else (signs, leading zeros,
 * long numbers, an incomplete line) goes the general way. Pipelined
 * MSETs spent a sixth of their time on these lines. */
static inline int readSmallCount(const char *start, size_t avail, long long *value, size_t *linelen) {
    long long v = 0;
    size_t i = 1;
    while (i < avail && i <= 9 && start[i] >= '0' && start[i] <= '9') v = v * 10 + (start[i++] - '0');
    if (i == 1 || i + 2 > avail || start[i] != '\r' || (start[1] == '0' && i > 2)) return 0;
    *value = v;
    *linelen = i + 2;
    return 1;
}

/* Reads "<prefix><number>\r\n" at qb_pos. Returns 1 when the whole line is
 * there (*valid says whether it held a number, stored in *value), 0 when
 * more bytes are needed, -1 on a protocol error (already replied). */
static int readCountLine(client *c, const char *too_big_msg, long long *value, int *valid) {
    char *start = c->querybuf + c->qb_pos;
    size_t avail = sdslen(c->querybuf) - c->qb_pos;
    size_t linelen;
    if (readSmallCount(start, avail, value, &linelen)) {
        *valid = 1;
        c->qb_pos += linelen;
        return 1;
    }
    char *cr = memchr(start, '\r', avail);
    if (cr == NULL) {
        if (avail > PROTO_INLINE_MAX_SIZE) {
            protocolError(c, too_big_msg);
            return -1;
        }
        return 0;
    }
    if ((size_t)(cr - start) + 2 > avail) return 0; /* the '\n' has not arrived */
    *valid = string2ll(start + 1, (size_t)(cr - start - 1), value);
    c->qb_pos += (size_t)(cr - start) + 2;
    return 1;
}

static int readMultibulkHeader(client *c) {
    long long ll;
    int valid;
    int got = readCountLine(c, "too big mbulk count string", &ll, &valid);
    if (got <= 0) return got;
    if (!valid || ll > INT_MAX) {
        protocolError(c, "invalid multibulk length");
        return -1;
    }
    if (ll > UNAUTHENTICATED_MAX_MULTIBULK && authRequired(c)) {
        protocolError(c, "unauthenticated multibulk length");
        return -1;
    }
    c->multibulklen = ll > 0 ? (int)ll : 0;
    if (c->multibulklen) ensureArgvCapacity(c, c->multibulklen < 1024 ? c->multibulklen : 1024);
    return 1;
}

static int readBulkHeader(client *c) {
    if (c->querybuf[c->qb_pos] != '$' && memchr(c->querybuf + c->qb_pos, '\r', sdslen(c->querybuf) - c->qb_pos)) {
        addReplyErrorFormat(c, "Protocol error: expected '$', got '%c'", c->querybuf[c->qb_pos]);
        setProtocolError(c, "expected $ but got something else");
        return -1;
    }
    long long ll;
    int valid;
    int got = readCountLine(c, "too big bulk count string", &ll, &valid);
    if (got <= 0) return got;
    if (!valid || ll < 0 || ll > server.proto_max_bulk_len) {
        protocolError(c, "invalid bulk length");
        return -1;
    }
    if (ll > UNAUTHENTICATED_MAX_BULK && authRequired(c)) {
        protocolError(c, "unauthenticated bulk length");
        return -1;
    }
    c->bulklen = ll; /* a big one gets its room as it arrives (bigArgReadRoom) */
    return 1;
}

/* The arguments already in the buffer whose "$N" lines are the plain kind
 * (1 to 9 digits, within every limit), taken with local pointers and no
 * state written per step: a pipelined MSET is mostly this loop. It stops
 * at the first argument that is not whole or not plain, leaving the state
 * exactly as the general loop would, which then reads it -- and says what
 * is wrong, if anything is. */
static void readPlainBulks(client *c) {
    const char *base = c->querybuf, *p = base + c->qb_pos, *end = base + sdslen(c->querybuf);
    int left = c->multibulklen;
    while (left && p < end && *p == '$') {
        long long len;
        size_t linelen;
        if (!readSmallCount(p, (size_t)(end - p), &len, &linelen)) break;
        if (len >= PROTO_MBULK_BIG_ARG || len > server.proto_max_bulk_len) break;
        if (len > UNAUTHENTICATED_MAX_BULK && authRequired(c)) break;
        const char *data = p + linelen;
        if ((size_t)(end - data) < (size_t)len + 2) break;
        appendArg(c, data, (size_t)len);
        p = data + len + 2;
        left--;
    }
    c->qb_pos = (size_t)(p - base);
    c->multibulklen = left;
}

/* Returns C_OK when a whole command is in argv, C_ERR when more input is
 * needed or a protocol error was replied (CLIENT_CLOSE_AFTER_REPLY set). */
static int processMultibulkBuffer(client *c) {
    if (c->multibulklen == 0) {
        int got = readMultibulkHeader(c);
        if (got <= 0) return C_ERR;
        if (c->multibulklen == 0) return C_OK; /* "*0" or "*-1": an empty command */
    }
    if (c->bulklen == -1) readPlainBulks(c);
    while (c->multibulklen) {
        if (c->bulklen == -1) {
            if (c->qb_pos >= sdslen(c->querybuf)) return C_ERR;
            if (readBulkHeader(c) <= 0) return C_ERR;
        }
        if (sdslen(c->querybuf) - c->qb_pos < (size_t)c->bulklen + 2) return C_ERR;
        appendArg(c, c->querybuf + c->qb_pos, (size_t)c->bulklen);
        c->qb_pos += (size_t)c->bulklen + 2;
        c->bulklen = -1;
        c->multibulklen--;
    }
    return C_OK;
}

void resetClient(client *c) {
    redisCommand *prev = c->cmd;
    freeClientArgv(c);
    c->reqtype = 0;
    c->multibulklen = 0;
    c->bulklen = -1;
    if (prev) c->lastcmd = prev;
    if (c->tracking) trackingCommandDone(c, prev); /* CLIENT CACHING lasts one command */
    if (c->flags & CLIENT_ASKING) clusterCommandDone(c, prev);
    /* CLIENT REPLY SKIP applies to exactly one command after it. */
    c->flags &= ~CLIENT_REPLY_SKIP;
    if (c->flags & CLIENT_REPLY_SKIP_NEXT) {
        c->flags |= CLIENT_REPLY_SKIP;
        c->flags &= ~CLIENT_REPLY_SKIP_NEXT;
    }
}

static void processCommandAndResetClient(client *c) {
    server.current_client = c;
    processCommand(c);
    if ((c->flags & (CLIENT_MASTER | CLIENT_BLOCKED)) == CLIENT_MASTER) /* not when paused (CLIENT PAUSE) */
        replicaCommandApplied(c); /* the command's bytes go on to our replicas */
    if (!(c->flags & CLIENT_BLOCKED)) resetClient(c);
    server.current_client = NULL;
    if (c->flags & CLIENT_CLOSE_AFTER_COMMAND) { /* e.g. ACL DELUSER of its own user: the reply, then the close */
        c->flags &= ~CLIENT_CLOSE_AFTER_COMMAND;
        c->flags |= CLIENT_CLOSE_AFTER_REPLY;
        if (!clientHasPendingReplies(c)) freeClientAsync(c);
    }
    /* maxmemory-clients: c itself is a candidate again. Without a limit the
     * running total waits for the end of the batch (processInputBuffer). */
    if (clientEvictionLimit()) {
        clientMemoryChanged(c);
        evictClientsIfNeeded(c);
    }
}

int processInputBuffer(client *c) {
    commandClockChain(1);
    while (c->qb_pos < sdslen(c->querybuf)) {
        if (c->flags & (CLIENT_BLOCKED | CLIENT_CLOSE_AFTER_REPLY | CLIENT_CLOSE_ASAP)) break;
        /* While a script is busy (its events served from inside it), the
         * primary's stream is only read, not run: a -BUSY would drop the
         * write (or panic); it runs when the script ends (scriptResetRun). */
        if ((c->flags & CLIENT_MASTER) && scriptIsTimedOut()) break;
        if (moduleBusyHoldsInput()) { /* a module yields without serving clients: runs after it ends */
            queueClientForReprocessing(c);
            break;
        }
        if (!c->reqtype) c->reqtype = c->querybuf[c->qb_pos] == '*' ? PROTO_REQ_MULTIBULK : PROTO_REQ_INLINE;
        int ok = c->reqtype == PROTO_REQ_INLINE ? processInlineBuffer(c) : processMultibulkBuffer(c);
        if (ok != C_OK) break;
        if (c->argc == 0) {
            resetClient(c);
        } else {
            prefetchPipelinedKeys(c);
            processCommandAndResetClient(c);
        }
    }
    commandClockChain(0);
    if (c->qb_pos) {
        sdsrange(c->querybuf, (ssize_t)c->qb_pos, -1);
        c->qb_pos = 0;
    }
    clientMemoryChanged(c);
    return C_OK;
}

/* ---- reading ------------------------------------------------------------------------- */

static int queryBufferOverLimit(client *c) {
    return server.client_max_querybuf_len && sdslen(c->querybuf) > server.client_max_querybuf_len;
}

/* Room to read the rest of a big argument into: what already arrived of it
 * (at least PROTO_MBULK_BIG_ARG), so its buffer doubles as the bytes come
 * in -- a few reallocations for a value sent at once -- or, once a third of
 * it is here (what is left is at most twice the step), all the rest: the
 * buffer then always ends holding exactly the whole argument, the size
 * Redis 7.0 reserves at the header, whatever pieces the bytes came in (two
 * clients sending the same 1 MB argument showed tot-mem 25% apart when one
 * doubling happened to end past the jemalloc size class of the whole).
 * The announced length alone reserves nothing: a client that sends
 * "$536870912" and waits costs 32 KB, not 512 MB (six of them exhausted a
 * 32-bit server's address space); what is reserved stays within three
 * times what was sent. */
static size_t bigArgReadRoom(client *c) {
    size_t have = sdslen(c->querybuf) - c->qb_pos, whole = (size_t)c->bulklen + 2;
    if (have >= whole) return PROTO_IOBUF_LEN;
    size_t step = have > PROTO_MBULK_BIG_ARG ? have : PROTO_MBULK_BIG_ARG;
    return whole - have <= 2 * step ? whole - have : step;
}

/* What the big argument being read has announced beyond the buffer's room:
 * Redis 7.0 reserves it at the header, so its CLIENT LIST (qbuf-free,
 * tot-mem) and maxmemory-clients count it from then on; we reserve as the
 * bytes come (bigArgReadRoom) but count the claim the same way, so a client
 * sending a value the limit cannot hold is evicted as soon as its header
 * is read, as in Redis, not only when enough of it has crossed the network
 * (a command another client sent meanwhile could still see it). Nothing is
 * allocated for it: used_memory and MEMORY STATS count real blocks. */
size_t queryBufferClaim(client *c) {
    if (c->querybuf == NULL || c->reqtype != PROTO_REQ_MULTIBULK || !c->multibulklen ||
        c->bulklen < PROTO_MBULK_BIG_ARG)
        return 0;
    size_t have = sdslen(c->querybuf) - c->qb_pos, whole = (size_t)c->bulklen + 2;
    if (have >= whole) return 0;
    /* the buffer it will end as (bigArgReadRoom's last step), size class included */
    size_t cap = sdsNonGreedyCapacity(c->querybuf, whole - have);
    return cap > sdsalloc(c->querybuf) ? cap - sdsalloc(c->querybuf) : 0;
}

/* One read into the query buffer: the bytes read (> 0), 0 when the socket
 * had nothing (EAGAIN), or -1 when the client is gone or closed for its
 * query buffer. *full: the read filled the room of a big argument that is
 * still incomplete, so more may be waiting. */
static ssize_t readQueryOnce(client *c, int *full) {
    *full = 0;
    size_t readlen = PROTO_IOBUF_LEN;
    int big_arg = c->reqtype == PROTO_REQ_MULTIBULK && c->multibulklen && c->bulklen >= PROTO_MBULK_BIG_ARG;
    if (big_arg) readlen = bigArgReadRoom(c);
    /* The first room, and a big argument's, is exactly what is needed;
     * after that the buffer grows greedily (fewer reallocations). */
    if (sdsalloc(c->querybuf) < PROTO_IOBUF_LEN || big_arg)
        c->querybuf = sdsMakeRoomForNonGreedy(c->querybuf, readlen);
    else
        c->querybuf = sdsMakeRoomFor(c->querybuf, readlen);
    size_t before = sdslen(c->querybuf);
    size_t room = sdsavail(c->querybuf);
    if (room > readlen && !big_arg) room = readlen;
    int nread = connRead(c->conn, c->querybuf + before, room);
    if (nread == -1) {
        if (connGetState(c->conn) == CONN_STATE_CONNECTED) return 0; /* EAGAIN */
        serverLog(LL_VERBOSE, "Reading from client: %s", connGetLastError(c->conn));
        freeClientAsync(c);
        return -1;
    }
    if (nread == 0) {
        serverLog(LL_VERBOSE, "Client closed connection");
        freeClientAsync(c);
        return -1;
    }
    sdsIncrLen(c->querybuf, nread);
    if (sdslen(c->querybuf) > c->querybuf_peak) c->querybuf_peak = sdslen(c->querybuf);
    c->last_interaction_ms = server.mstime;
    server.stat_net_input_bytes += nread;
    if (queryBufferOverLimit(c)) {
        sds info = catClientInfoString(sdsempty(), c);
        serverLog(LL_WARNING, "Closing client that reached max query buffer length: %s", info);
        sdsfree(info);
        server.stat_client_qbuf_limit_disconnections++;
        freeClientAsync(c);
        return -1;
    }
    *full = big_arg && (size_t)nread == room && sdslen(c->querybuf) - c->qb_pos < (size_t)c->bulklen + 2;
    return nread;
}

/* A big argument is read on while the socket has more of it: Redis reads it
 * in one go (into a buffer reserved from the announced length), so the
 * bytes a client sent at once count -- for maxmemory-clients, the query
 * buffer limit -- before another client's command runs; ours grows its
 * buffer as they arrive (bigArgReadRoom), a read per doubling. */
static void readQueryInput(client *c) {
    int full;
    ssize_t got = 0, nread;
    do {
        server.stat_total_reads_processed++; /* every read attempt, as Redis counts them */
        nread = readQueryOnce(c, &full);
        if (nread < 0) return;
        got += nread;
        if (nread > 0) {
            clientMemoryChanged(c);
            evictClientsIfNeeded(c); /* a growing query buffer counts before it is parsed */
            if (c->flags & CLIENT_CLOSE_ASAP) return;
        }
    } while (full);
    if (got == 0) return;
    processInputBuffer(c);
    evictClientsIfNeeded(c); /* parsing may have reserved room for a big argument */
}

/* A client closed while its input was read (evicted for its growing query
 * buffer, over client-query-buffer-limit, gone) is freed before the next
 * event, as Redis 7.0 does (beforeNextClient): not left in CLIENT LIST, with
 * the 'A' flag, until beforeSleep, where a command another client sent in
 * the same moment (CLIENT LIST, a maxmemory-clients check) would still
 * see it. The connection layer defers the socket's own close to the end of
 * this callback. Not for a primary, a replica or a WAIT (c->repl): their
 * teardown stays in beforeSleep with the rest of replication's. */
static void readQueryFromClient(connection *conn) {
    client *c = connGetPrivateData(conn);
    if (c->flags & (CLIENT_CLOSE_ASAP | CLIENT_CLOSE_AFTER_REPLY)) return;
    readQueryInput(c);
    if ((c->flags & (CLIENT_CLOSE_ASAP | CLIENT_PROTECTED)) == CLIENT_CLOSE_ASAP && server.current_client != c &&
        c->repl == NULL)
        freeClient(c);
}

/* ---- writing ---------------------------------------------------------------------------- */

int clientHasPendingReplies(client *c) { return c->bufpos || listLength(c->reply); }

#define WRITE_MAX_PIECES 16 /* 16 blocks of 16 KB is past NET_MAX_WRITES_PER_EVENT */

/* Points iov at the pending replies in order -- the inline buffer, then the
 * blocks -- up to WRITE_MAX_PIECES pieces or NET_MAX_WRITES_PER_EVENT bytes.
 * c->sentlen counts what was already sent of the first piece. Returns the
 * number of pieces; empty blocks (unused placeholders) are skipped here and
 * dropped by dropWrittenReplies(). */
static int gatherPendingReplies(client *c, struct iovec *iov, size_t *total) {
    int count = 0;
    size_t skip = c->sentlen;
    *total = 0;
    if (c->bufpos > 0) {
        iov[count].iov_base = c->buf + skip;
        iov[count].iov_len = c->bufpos - skip;
        *total += iov[count++].iov_len;
        skip = 0;
    }
    for (listNode *ln = listFirst(c->reply); ln && count < WRITE_MAX_PIECES; ln = listNextNode(ln)) {
        if (*total >= NET_MAX_WRITES_PER_EVENT) break;
        clientReplyBlock *block = listNodeValue(ln);
        if (block->used > skip) {
            iov[count].iov_base = block->buf + skip;
            iov[count].iov_len = block->used - skip;
            *total += iov[count++].iov_len;
        }
        skip = 0;
    }
    return count;
}

/* Forgets the first `written` pending bytes: the inline buffer first, then
 * whole blocks, leaving c->sentlen at the offset into what is left. */
static void dropWrittenReplies(client *c, size_t written) {
    if (c->bufpos > 0) {
        size_t left = c->bufpos - c->sentlen;
        if (written < left) {
            c->sentlen += written;
            return;
        }
        written -= left;
        replyBufferNoteFlush(c);
        c->bufpos = c->sentlen = 0;
    }
    while (listLength(c->reply)) {
        clientReplyBlock *block = listNodeValue(listFirst(c->reply));
        size_t left = block->used - c->sentlen;
        if (written < left) {
            c->sentlen += written;
            return;
        }
        written -= left;
        c->reply_bytes -= block->size;
        listDelNode(c->reply, listFirst(c->reply));
        c->sentlen = 0;
    }
}

/* Writes what it can of the pending replies, the buffer and the blocks in
 * one writev() where there are several pieces, as Redis does: a reply that
 * overflowed the inline buffer then reaches the peer in one segment, and
 * the peer reads it in one wake-up instead of two. Returns C_ERR if the
 * client was freed (or scheduled to be). */
static int writeToClient(client *c, int handler_installed) {
    server.stat_total_writes_processed++; /* every write attempt, as Redis counts them */
    ssize_t totwritten = 0;
    while (clientHasPendingReplies(c)) {
        struct iovec iov[WRITE_MAX_PIECES];
        size_t total;
        int pieces = gatherPendingReplies(c, iov, &total);
        if (pieces == 0) { /* only empty blocks are left */
            dropWrittenReplies(c, 0);
            continue;
        }
        ssize_t nwritten = pieces == 1 ? connWrite(c->conn, iov[0].iov_base, iov[0].iov_len)
                                       : connWritev(c->conn, iov, pieces);
        if (nwritten <= 0) break;
        dropWrittenReplies(c, (size_t)nwritten);
        totwritten += nwritten;
        if ((size_t)nwritten < total) break;                 /* the socket is full */
        if (totwritten > NET_MAX_WRITES_PER_EVENT) break; /* be fair to other clients */
    }
    server.stat_net_output_bytes += totwritten;
    clientMemoryChanged(c);
    if (connGetState(c->conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_VERBOSE, "Error writing to client: %s", connGetLastError(c->conn));
        freeClientAsync(c);
        return C_ERR;
    }
    if (totwritten > 0) c->last_interaction_ms = server.mstime;
    if (!clientHasPendingReplies(c)) {
        c->sentlen = 0;
        if (handler_installed) connSetWriteHandler(c->conn, NULL);
        if (c->flags & CLIENT_CLOSE_AFTER_REPLY) {
            freeClientAsync(c);
            return C_ERR;
        }
    }
    return C_OK;
}

/* The Lua debugger (ldb.c) owns a blocking socket for its session: the
 * replies pending before it and the EVAL's after it go out at once, until
 * everything is written or a write makes no progress (its send timeout). */
void writeClientRepliesNow(client *c) {
    while (clientHasPendingReplies(c) && !(c->flags & CLIENT_CLOSE_ASAP)) {
        long long before = server.stat_net_output_bytes;
        if (writeToClient(c, 0) == C_ERR || server.stat_net_output_bytes == before) break;
    }
}

static void sendReplyToClient(connection *conn) {
    client *c = connGetPrivateData(conn);
    writeToClient(c, 1);
}

/* The rest of a reply goes out when the socket is writable again. With the
 * AOF on, through a write barrier: when the socket is readable and writable
 * in the same event-loop pass, the write runs first, so the reply to a
 * command read in that pass waits for the next one -- after beforeSleep()
 * has written the AOF. Without it the write handler would send the reply
 * before the AOF has the write (and under appendfsync always, a write the
 * AOF then failed to take would be acknowledged anyway). */
static void installWriteHandler(client *c) {
    connSetWriteHandlerWithBarrier(c->conn, sendReplyToClient, server.aof_enabled);
}

int handleClientsWithPendingWrites(void) {
    int processed = 0;
    while (listLength(server.clients_pending_write)) {
        client *c = listNodeValue(listFirst(server.clients_pending_write));
        c->flags &= ~CLIENT_PENDING_WRITE;
        listUnlinkNode(server.clients_pending_write, &c->pending_write_node);
        if (c->flags & CLIENT_CLOSE_ASAP || c->conn == NULL) continue;
        processed++;
        if (writeToClient(c, 0) == C_ERR) continue;
        if (clientHasPendingReplies(c)) installWriteHandler(c);
    }
    return processed;
}

/* ---- output buffer limits --------------------------------------------------------------- */

int getClientType(client *c) {
    if (c->flags & CLIENT_MASTER) return CLIENT_TYPE_NORMAL; /* never closed for its (absent) output */
    if (c->flags & CLIENT_SLAVE) return CLIENT_TYPE_REPLICA;
    if (c->flags & CLIENT_PUBSUB) return CLIENT_TYPE_PUBSUB;
    return CLIENT_TYPE_NORMAL;
}

unsigned long getClientOutputBufferMemoryUsage(client *c) {
    size_t held_back = (c->flags & CLIENT_SLAVE) ? replicationPendingMemory(c) : 0; /* not for the common client */
    return (unsigned long)(c->reply_bytes + sizeof(listNode) * listLength(c->reply) + held_back);
}

/* A client that never authenticated while a password is required gets only
 * this much unread output (CVE-2025-21605: otherwise it could pile up
 * NOAUTH errors without reading them until memory runs out). */
#define UNAUTHENTICATED_MAX_REPLY_BYTES 1024

/* client-output-buffer-limit's hard limit of a class. A replica's is never
 * below repl-backlog-size, as in Redis 7.0: with a lower one a partial
 * sync would be accepted and the replica then dropped for the very
 * backlog it was sent. */
unsigned long long clientHardLimitBytes(int type) {
    unsigned long long hard = server.client_obuf_limits[type].hard_limit_bytes;
    if (type == CLIENT_TYPE_REPLICA && hard && hard < (unsigned long long)server.repl_backlog_size)
        hard = (unsigned long long)server.repl_backlog_size;
    return hard;
}

static int checkClientOutputBufferLimits(client *c) {
    clientBufferLimitsConfig *limit = &server.client_obuf_limits[getClientType(c)];
    unsigned long long used = getClientOutputBufferMemoryUsage(c);
    if (used > UNAUTHENTICATED_MAX_REPLY_BYTES && authRequired(c) && !c->ever_authenticated) return 1;
    unsigned long long hard_limit = clientHardLimitBytes(getClientType(c));
    int hard = hard_limit && used >= hard_limit;
    int soft = limit->soft_limit_bytes && used >= limit->soft_limit_bytes;
    if (soft) {
        if (c->obuf_soft_limit_reached_time == 0) {
            c->obuf_soft_limit_reached_time = server.unixtime;
            soft = 0; /* the first time we see it, the clock starts */
        } else if (server.unixtime - c->obuf_soft_limit_reached_time <= limit->soft_limit_seconds) {
            soft = 0;
        }
    } else {
        c->obuf_soft_limit_reached_time = 0;
    }
    return hard || soft;
}

void closeClientOnOutputBufferLimitReached(client *c) {
    if (c->conn == NULL || c->flags & CLIENT_CLOSE_ASAP) return;
    if (!checkClientOutputBufferLimits(c)) return;
    sds info = catClientInfoString(sdsempty(), c);
    serverLog(LL_WARNING, "Client %s scheduled to be closed ASAP for overcoming of output buffer limits.", info);
    sdsfree(info);
    server.stat_client_outbuf_limit_disconnections++;
    freeClientAsync(c);
}

/* ---- periodic work ------------------------------------------------------------------------- */

static int clientIsIdleTooLong(client *c, long long now_ms) {
    if (!server.maxidletime || c->flags & (CLIENT_BLOCKED | CLIENT_PUBSUB | CLIENT_MONITOR | CLIENT_MASTER | CLIENT_SLAVE))
        return 0;
    return (now_ms - c->last_interaction_ms) / 1000 > server.maxidletime;
}

#define QUERYBUF_RESIZE_THRESHOLD (32 * 1024)
#define QUERYBUF_IDLE_FREE_MS 2000

/* A query buffer keeps its room between requests (no reallocation per read)
 * but doesn't waste more than 4 KB for long: it is freed once the client
 * has been quiet for 2 s, and trimmed to the peak seen since the last visit
 * when it is over 32 KB and twice that peak -- a buffer grown by one big
 * request. The peak restarts at each visit; a big argument being read
 * counts with its announced length, so its buffer is left alone. */
static void resizeQueryBuffer(client *c, long long now_ms) {
    if (c->qb_pos == 0 && sdsavail(c->querybuf) > 4 * 1024) {
        size_t size = sdsalloc(c->querybuf);
        if (now_ms - c->last_interaction_ms > QUERYBUF_IDLE_FREE_MS) {
            c->querybuf = sdsRemoveFreeSpace(c->querybuf);
        } else if (size > QUERYBUF_RESIZE_THRESHOLD && size / 2 > c->querybuf_peak) {
            size_t keep = sdslen(c->querybuf);
            if (keep < c->querybuf_peak) keep = c->querybuf_peak;
            /* a trim, never a growth: the peak counts a big argument's
             * announced length, and reserving that would undo what
             * bigArgReadRoom() saves (a header and three bytes made this
             * 256 MB) */
            if (keep < size) c->querybuf = sdsResize(c->querybuf, keep, 1);
        }
    }
    c->querybuf_peak = sdslen(c->querybuf);
    if (c->bulklen > 0 && (size_t)c->bulklen > c->querybuf_peak) c->querybuf_peak = (size_t)c->bulklen;
}

/* Called every cron tick: visits a slice of the clients so each is seen about
 * once a second whatever the count, closing idle ones and those past an
 * output buffer limit, resizing their query buffers and giving back the
 * spare argument objects of quiet ones. */
void clientsCron(void) {
    int numclients = (int)listLength(server.clients);
    int iterations = numclients / server.hz;
    if (iterations < 5) iterations = numclients < 5 ? numclients : 5;
    while (listLength(server.clients) && iterations--) {
        listRotateTailToHead(server.clients);
        client *c = listNodeValue(listFirst(server.clients));
        c->client_list_node = listFirst(server.clients);
        if (clientIsIdleTooLong(c, server.mstime)) {
            serverLog(LL_VERBOSE, "Closing idle client");
            freeClient(c);
            continue;
        }
        resizeQueryBuffer(c, server.mstime);
        replyBufferCron(c, server.mstime);
        /* spare argument objects go back after the same quiet time */
        if (server.mstime - c->last_interaction_ms > QUERYBUF_IDLE_FREE_MS) argpoolFree(c);
        clientMemoryChanged(c);
        closeClientOnOutputBufferLimitReached(c); /* a soft limit runs out without new output too */
    }
}

/* ---- client descriptions ------------------------------------------------------------------- */

char *getClientPeerId(client *c) {
    if (c->peerid == NULL) {
        char peerid[NET_ADDR_STR_LEN] = "?:0";
        if (c->conn) connFormatAddr(c->conn, peerid, sizeof peerid, 1);
        c->peerid = sdsnew(peerid);
    }
    return c->peerid;
}

static char *getClientSockname(client *c) {
    if (c->sockname == NULL) {
        char name[NET_ADDR_STR_LEN] = "?:0";
        if (c->conn) connFormatAddr(c->conn, name, sizeof name, 0);
        c->sockname = sdsnew(name);
    }
    return c->sockname;
}

static void clientFlagsString(client *c, char *flags) {
    char *p = flags;
    if (c->flags & CLIENT_SLAVE) *p++ = 'S';
    if (c->flags & CLIENT_MASTER) *p++ = 'M';
    if (c->flags & CLIENT_PUBSUB) *p++ = 'P';
    if (c->flags & CLIENT_MULTI) *p++ = 'x';
    if (c->flags & CLIENT_BLOCKED) *p++ = 'b';
    unsigned tracking = trackingFlags(c);
    if (tracking & TRACKING_ON) *p++ = 't';
    if (tracking & TRACKING_BROKEN_REDIR) *p++ = 'R';
    if (tracking & TRACKING_BCAST) *p++ = 'B';
    if (c->flags & CLIENT_DIRTY_CAS) *p++ = 'd';
    if (c->flags & CLIENT_CLOSE_AFTER_REPLY) *p++ = 'c';
    if (c->flags & CLIENT_UNIX_SOCKET) *p++ = 'U';
    if (connIsShm(c->conn)) *p++ = 'm'; /* shared-memory transport (shm.c) */
    if (c->flags & CLIENT_CLOSE_ASAP) *p++ = 'A';
    if (c->flags & CLIENT_NO_EVICT) *p++ = 'e';
    if (c->flags & CLIENT_MONITOR) *p++ = 'O';
    if (p == flags) *p++ = 'N';
    *p = '\0';
}

/* One CLIENT LIST line, fields in Redis's order. */
sds catClientInfoString(sds s, client *c) {
    char flags[24];
    clientFlagsString(c, flags);
    const char *events = "";
    if (c->conn) events = connHasWriteHandler(c->conn) ? (connHasReadHandler(c->conn) ? "rw" : "w")
                                                       : (connHasReadHandler(c->conn) ? "r" : "");
    size_t obufmem = getClientOutputBufferMemoryUsage(c);
    size_t qbuf = sdslen(c->querybuf), qbuf_free = sdsavail(c->querybuf) + queryBufferClaim(c);
    size_t total = clientTotalMemory(c);
    return sdscatfmt(
        s,
        "id=%U addr=%s laddr=%s fd=%i name=%s age=%I idle=%I flags=%s db=%i sub=%i psub=%i ssub=%i "
        "multi=%i qbuf=%U qbuf-free=%U argv-mem=%U multi-mem=%U rbs=%U rbp=%U obl=%U oll=%U omem=%U "
        "tot-mem=%U events=%s cmd=%s user=%s redir=%I resp=%i",
        (unsigned long long)c->id, getClientPeerId(c), getClientSockname(c), c->conn ? connGetFd(c->conn) : -1,
        c->name ? (char *)c->name->ptr : "", (long long)(server.unixtime - c->ctime),
        (long long)((server.mstime - c->last_interaction_ms) / 1000), flags, c->db ? c->db->id : 0,
        c->pubsub_channels ? (int)dictSize(c->pubsub_channels) : 0,
        c->pubsub_patterns ? (int)dictSize(c->pubsub_patterns) : 0,
        c->pubsubshard_channels ? (int)dictSize(c->pubsubshard_channels) : 0, multiQueuedCount(c),
        (unsigned long long)qbuf, (unsigned long long)qbuf_free, (unsigned long long)c->argv_len_sum,
        (unsigned long long)multiQueuedArgvMemory(c), (unsigned long long)c->buf_usable_size,
        (unsigned long long)replyBufferPeak(c), (unsigned long long)c->bufpos,
        (unsigned long long)listLength(c->reply), (unsigned long long)obufmem,
        (unsigned long long)total, events, c->lastcmd ? c->lastcmd->fullname : "NULL",
        c->user ? aclUserName(c->user) : "default", trackingRedirectId(c), c->resp);
}

/* ---- rewriting argv ------------------------------------------------------------------------ */

/* Only for what SLOWLOG and MONITOR must not see (CONFIG SET redacts a
 * secret). Propagation never rewrites argv: a command that replays in
 * another form hands that form to propagateCommandAs() (propagate.c). */
void rewriteClientCommandArgument(client *c, int i, robj *newval) {
    ensureArgvCapacity(c, i + 1);
    if (i < c->argc && c->argv[i]) decrRefCount(c->argv[i]);
    else if (i >= c->argc) {
        for (int j = c->argc; j < i; j++) c->argv[j] = NULL;
        c->argc = i + 1;
    }
    c->argv[i] = newval;
    incrRefCount(newval);
    if (i == 0) c->cmd = lookupCommand(c->argv, c->argc);
}
