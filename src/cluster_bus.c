/* cluster_bus.c -- the cluster bus: links between nodes, the MEET / PING /
 * PONG handshake and heartbeat, gossip, epochs and slot ownership learnt
 * from headers, failure detection (PFAIL, failure reports, FAIL), UPDATE,
 * PUBLISH / PUBLISHSHARD propagation, CLUSTER LINKS and the message
 * statistics of CLUSTER INFO. The node table itself is cluster.c's.
 *
 * Every message is decoded by src/lib/clusterbus.c (byte by byte, endian
 * and alignment safe) and built with its encoders, so this file never
 * touches wire layout. The rules are Redis 7.0's, so that our nodes and
 * Redis 7.0 nodes form one cluster.
 *
 * Decisions:
 * - A link is a connection (src/lib/connection.h) with an sds send and
 *   receive buffer: TCP, or TLS with tls-cluster yes, as Redis 7.0 (both
 *   directions; an inbound peer must present a certificate our CA signed,
 *   whatever tls-auth-clients says). A node's port is then its TLS port and
 *   its pport the plain one (cluster.c's clientPort picks per client).
 * - Each node has at most one outbound link (node->link, ours, used to send
 *   PING/MEET and to judge liveness by its PONGs) and one inbound link (its
 *   PINGs to us, answered with PONGs), as in Redis 7.0.
 * - A malformed message closes nothing by itself: it is dropped, logged at
 *   most once a second; a stream whose framing is broken (bad signature or
 *   length) is closed, since nothing after it can be trusted.
 * - Failure reports are kept per node as (reporter, time) and expire after
 *   twice the node timeout, as Redis's.
 */
#include "server.h"
#include "cluster.h"
#include "cluster_private.h"
#include "anet.h"
#include "replication.h"

#include <errno.h>
#include <sys/socket.h>

#define BUS_MAX_MESSAGE (512u * 1024 * 1024 + 8192) /* the largest PUBLISH we accept */
#define BUS_READ_CHUNK (16 * 1024)
#define FAIL_REPORT_VALIDITY_MULT 2
#define FAIL_UNDO_TIME_MULT 2

typedef struct clusterLink {
    connection *conn;
    long long ctime;
    int inbound;
    int connecting;     /* outbound, connect() not finished */
    int writing;        /* a writable handler is installed */
    sds sndbuf, rcvbuf;
    clusterNode *node;  /* NULL for an inbound link until its first message names the sender */
    char peer_ip[NET_IP_STR_LEN];
} clusterLink;

typedef struct failReport {
    clusterNode *node; /* the primary that reports */
    long long time;
} failReport;

static list *inbound_links; /* every inbound link, named or not */
static struct clusterLink *processing; /* the link whose message is being processed */
static int processing_freed;           /* ... and it was freed meanwhile */

static long drop_packet_filter = -1; /* DEBUG DROP-CLUSTER-PACKET-FILTER: a type dropped on arrival */

void clusterSetDropPacketFilter(long type) { drop_packet_filter = type; }

static long long nodeTimeout(void) { return server.cluster_node_timeout; }

/* ---- links ------------------------------------------------------------------------------------ */

static void freeLink(clusterLink *link) {
    if (link == processing) processing_freed = 1;
    if (link->conn) {
        connSetPrivateData(link->conn, NULL);
        connClose(link->conn); /* inside one of its callbacks, freed when that returns */
    }
    sdsfree(link->sndbuf);
    sdsfree(link->rcvbuf);
    if (link->node) {
        if (link->node->link == link) link->node->link = NULL;
        if (link->node->inbound_link == link) link->node->inbound_link = NULL;
    }
    if (link->inbound) {
        listNode *ln = listSearchKey(inbound_links, link);
        if (ln) listDelNode(inbound_links, ln);
    }
    zfree(link);
}

static clusterLink *createLink(connection *conn, int inbound) {
    clusterLink *link = zcalloc(sizeof(*link));
    link->conn = conn;
    connSetPrivateData(conn, link);
    link->inbound = inbound;
    link->ctime = mstime();
    link->sndbuf = sdsempty();
    link->rcvbuf = sdsempty();
    if (inbound) listAddNodeTail(inbound_links, link);
    return link;
}

static void dropLog(const char *fmt, ...) {
    long long now = mstime();
    if (now - cstate->last_log_drop_ms < 1000) return;
    cstate->last_log_drop_ms = now;
    char msg[256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    serverLog(LL_WARNING, "%s", msg);
}

static void linkWritable(connection *conn);

/* Until the connect (and a TLS handshake) has finished, what is sent waits
 * in sndbuf; linkConnected installs the handler then. */
static void linkWantWrite(clusterLink *link) {
    if (link->writing || link->connecting) return;
    if (connSetWriteHandler(link->conn, linkWritable) == CONN_OK) link->writing = 1;
}

static void linkSend(clusterLink *link, const unsigned char *buf, size_t len) {
    if (link == NULL) return;
    link->sndbuf = sdscatlen(link->sndbuf, buf, len);
    linkWantWrite(link);
    uint16_t type = (uint16_t)((buf[12] << 8) | buf[13]);
    if (type < CLUSTERBUS_TYPE_COUNT) cstate->stats_sent[type]++;
}

static void linkWritable(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (link == NULL) return;
    while (sdslen(link->sndbuf)) {
        ssize_t n = connWrite(conn, link->sndbuf, sdslen(link->sndbuf));
        if (n <= 0) {
            if (n == -1 && errno == EAGAIN) return;
            freeLink(link);
            return;
        }
        sdsrange(link->sndbuf, n, -1);
    }
    connSetWriteHandler(conn, NULL);
    link->writing = 0;
}

static void processMessage(clusterLink *link, const unsigned char *buf, size_t len);

static void linkReadable(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (link == NULL) return;
    char tmp[BUS_READ_CHUNK];
    ssize_t n = connRead(conn, tmp, sizeof tmp);
    if (n == 0 || (n == -1 && errno != EAGAIN)) {
        freeLink(link);
        return;
    }
    if (n < 0) return;
    link->rcvbuf = sdscatlen(link->rcvbuf, tmp, (size_t)n);
    size_t off = 0;
    while (1) {
        uint32_t totlen;
        size_t avail = sdslen(link->rcvbuf) - off;
        int r = clusterBusFrameLength((unsigned char *)link->rcvbuf + off, avail, BUS_MAX_MESSAGE, &totlen);
        if (r == CLUSTERBUS_NEED_MORE || (r == CLUSTERBUS_OK && totlen > avail)) break;
        if (r != CLUSTERBUS_OK) {
            dropLog("Cluster bus: bad message framing from %s, closing the link", link->peer_ip);
            freeLink(link);
            return;
        }
        /* processing may free the link (a handshake node replaced, a
         * mismatching PONG): the buffer is held aside meanwhile */
        sds hold = link->rcvbuf;
        link->rcvbuf = sdsempty();
        processing = link;
        processing_freed = 0;
        processMessage(link, (unsigned char *)hold + off, totlen);
        processing = NULL;
        off += totlen;
        if (processing_freed) {
            sdsfree(hold);
            return;
        }
        sdsfree(link->rcvbuf);
        link->rcvbuf = hold;
    }
    if (off) sdsrange(link->rcvbuf, (ssize_t)off, -1);
}

/* An inbound connection's accept (for TLS, its handshake) finished. */
static void linkAccepted(connection *conn) {
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_VERBOSE, "Error accepting cluster node connection: %s", connGetLastError(conn));
        connClose(conn);
        return;
    }
    char ip[NET_IP_STR_LEN];
    int port;
    if (connPeerToString(conn, ip, sizeof ip, &port) == CONN_ERR) {
        connClose(conn);
        return;
    }
    if (inbound_links == NULL) inbound_links = listCreate();
    clusterLink *link = createLink(conn, 1);
    snprintf(link->peer_ip, sizeof link->peer_ip, "%s", ip);
    if (connSetReadHandler(conn, linkReadable) == CONN_ERR) {
        freeLink(link);
        return;
    }
    serverLog(LL_VERBOSE, "Accepting cluster node connection from %s:%d", ip, port);
}

void busAccept(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    for (int max = 1000; max; max--) {
        char ip[NET_IP_STR_LEN];
        int port;
        int cfd = anetTcpAccept(NULL, fd, ip, sizeof ip, &port);
        if (cfd == ANET_ERR) return;
        anetNonBlock(NULL, cfd);
        connection *conn = tls_config.cluster ? tlsCreateAcceptedConnection(cfd, 1) : connCreateAcceptedSocket(cfd);
        if (connGetState(conn) != CONN_STATE_ACCEPTING) {
            serverLog(LL_VERBOSE, "Error creating an accepting connection for cluster node: %s", connGetLastError(conn));
            connClose(conn);
            continue;
        }
        connEnableTcpNoDelay(conn);
        connAccept(conn, linkAccepted);
    }
}

static void sendPing(clusterLink *link, int type);

/* An outbound connect (for TLS, with its handshake) finished: what was sent
 * meanwhile goes out now. */
static void linkConnected(connection *conn) {
    clusterLink *link = connGetPrivateData(conn);
    if (link == NULL) return;
    if (connGetState(conn) != CONN_STATE_CONNECTED) {
        serverLog(LL_VERBOSE, "Connection with Node %.40s at %s:%d failed: %s", link->node ? link->node->name : "?",
                  link->peer_ip, link->node ? link->node->cport : 0, connGetLastError(conn));
        freeLink(link);
        return;
    }
    link->connecting = 0;
    connEnableTcpNoDelay(conn);
    if (connSetReadHandler(conn, linkReadable) == CONN_ERR) {
        freeLink(link);
        return;
    }
    if (sdslen(link->sndbuf)) linkWantWrite(link);
}

static void connectNode(clusterNode *n) {
    const char *src = server.bindaddr_count ? server.bindaddr[0] : NULL;
    if (src && (!strcmp(src, "*") || !strcmp(src, "::*") || src[0] == '-')) src = NULL;
    connection *conn = tls_config.cluster ? tlsCreateConnection() : connCreateSocket();
    if (conn == NULL || connConnect(conn, n->ip, n->cport, src, linkConnected) == CONN_ERR) {
        if (conn) {
            serverLog(LL_DEBUG, "Unable to connect to Cluster Node [%s]:%d -> %s", n->ip, n->cport,
                      connGetLastError(conn));
            connClose(conn);
        }
        if (n->ping_sent == 0) n->ping_sent = mstime(); /* so it times out as unreachable */
        return;
    }
    clusterLink *link = createLink(conn, 0);
    link->connecting = 1;
    link->node = n;
    snprintf(link->peer_ip, sizeof link->peer_ip, "%s", n->ip);
    n->link = link;
    long long old_ping_sent = n->ping_sent;
    sendPing(link, (n->flags & NODE_MEET) ? CLUSTERBUS_MEET : CLUSTERBUS_PING);
    /* a reconnection keeps the time of the unanswered ping, as Redis does, so a dead node times out */
    if (old_ping_sent) n->ping_sent = old_ping_sent;
    n->flags &= ~NODE_MEET;
}

/* ---- building messages ------------------------------------------------------------------------ */

static void fillHeader(clusterBusMsg *m, int type) {
    memset(m, 0, sizeof(*m));
    clusterNode *me = cstate->myself;
    clusterNode *primary = isReplica(me) && me->replicaof ? me->replicaof : me;
    m->type = (uint16_t)type;
    memcpy(m->sender, me->name, CLUSTER_NAMELEN);
    memcpy(m->myslots, primary->slots, sizeof m->myslots);
    if (isReplica(me) && me->replicaof) memcpy(m->replicaof, me->replicaof->name, CLUSTER_NAMELEN);
    if (server.cluster_announce_ip) snprintf(m->myip, sizeof m->myip, "%s", server.cluster_announce_ip);
    m->port = (uint16_t)me->port;
    m->pport = (uint16_t)me->pport;
    m->cport = (uint16_t)me->cport;
    m->flags = (uint16_t)(me->flags & ~NODE_MEET);
    m->state = cstate->ok ? 0 : 1;
    m->current_epoch = cstate->current_epoch;
    m->config_epoch = primary->config_epoch;
    m->offset = (uint64_t)myselfOffset();
    if (failoverPaused()) m->mflags[0] |= CLUSTERBUS_MFLAG0_PAUSED;
}

/* Writes a message with no payload of its own (or a fixed one) to a buffer. */
static unsigned char *buildFixed(int type, int mflags0, size_t *len) {
    clusterBusMsg m;
    fillHeader(&m, type);
    m.mflags[0] = (unsigned char)mflags0;
    *len = clusterBusPayloadSize(type);
    unsigned char *buf = zcalloc(*len);
    clusterBusWriteHeader(buf, &m, (uint32_t)*len);
    return buf;
}

static int gossipWorthy(const clusterNode *n) {
    if (n == cstate->myself || (n->flags & (NODE_HANDSHAKE | NODE_NOADDR))) return 0;
    return n->link != NULL || n->numslots != 0;
}

static void setGossip(clusterBusGossip *g, const clusterNode *n) {
    memset(g, 0, sizeof(*g));
    memcpy(g->name, n->name, CLUSTER_NAMELEN);
    g->ping_sent = (uint32_t)(n->ping_sent / 1000);
    g->pong_received = (uint32_t)(n->pong_received / 1000);
    snprintf(g->ip, sizeof g->ip, "%s", n->ip);
    g->port = (uint16_t)n->port;
    g->cport = (uint16_t)n->cport;
    g->pport = (uint16_t)n->pport;
    g->flags = (uint16_t)(n->flags & ~NODE_MEET);
}

/* The gossip section: about a tenth of the nodes (at least 3) chosen at
 * random, plus every node we see as PFAIL, as Redis sends. */
static int pickGossip(clusterNode ***out) {
    int total = (int)listLength(cstate->order);
    clusterNode **all = zmalloc(sizeof(clusterNode *) * (size_t)(total ? total : 1));
    int worthy = 0, pfail = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (!gossipWorthy(n) && !((n->flags & NODE_PFAIL) && n != cstate->myself)) continue;
        if (n->flags & NODE_PFAIL) pfail++;
        else all[worthy++] = n;
    }
    int wanted = total / 10;
    if (wanted < 3) wanted = 3;
    if (wanted > worthy) wanted = worthy;
    for (int j = 0; j < wanted; j++) { /* partial Fisher-Yates */
        int k = j + (int)((unsigned)rand() % (unsigned)(worthy - j));
        clusterNode *t = all[j];
        all[j] = all[k];
        all[k] = t;
    }
    int count = wanted;
    if (pfail) {
        listRewind(cstate->order, &li);
        while ((ln = listNext(&li))) {
            clusterNode *n = listNodeValue(ln);
            if (n != cstate->myself && (n->flags & NODE_PFAIL) && !(n->flags & (NODE_HANDSHAKE | NODE_NOADDR)))
                all[count++] = n;
        }
    }
    *out = all;
    return count;
}

static void sendPing(clusterLink *link, int type) {
    clusterNode **nodes;
    int count = pickGossip(&nodes);
    const char *host = cstate->myself->hostname;
    size_t hostlen = sdslen(cstate->myself->hostname);
    size_t len = clusterBusPingSize(count, hostlen);
    unsigned char *buf = zcalloc(len);
    clusterBusMsg m;
    fillHeader(&m, type);
    m.count = (uint16_t)count;
    clusterBusWriteHeader(buf, &m, (uint32_t)len);
    for (int j = 0; j < count; j++) {
        clusterBusGossip g;
        setGossip(&g, nodes[j]);
        clusterBusWriteGossip(buf, j, &g);
    }
    if (hostlen) clusterBusWriteHostname(buf, count, host, hostlen);
    if (link->node && type == CLUSTERBUS_PING) link->node->ping_sent = mstime();
    if (link->node && type == CLUSTERBUS_MEET) link->node->ping_sent = mstime();
    linkSend(link, buf, len);
    zfree(buf);
    zfree(nodes);
}

void busPing(clusterNode *n) {
    if (n->link) sendPing(n->link, CLUSTERBUS_PING);
}

/* To every node we have a link to (and know: not in handshake). */
static void broadcast(const unsigned char *buf, size_t len) {
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n == cstate->myself || (n->flags & NODE_HANDSHAKE) || n->link == NULL) continue;
        linkSend(n->link, buf, len);
    }
}

void busBroadcastPong(void) {
    if (cstate == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n == cstate->myself || (n->flags & NODE_HANDSHAKE) || n->link == NULL) continue;
        sendPing(n->link, CLUSTERBUS_PONG);
    }
}

/* A message with no payload (FAILOVER_AUTH_REQUEST / _ACK, MFSTART) to
 * one node, or to every node when to is NULL. */
void busSendEmpty(clusterNode *to, int type, int mflags0) {
    size_t len;
    unsigned char *buf = buildFixed(type, mflags0, &len);
    if (to) linkSend(to->link, buf, len);
    else broadcast(buf, len);
    zfree(buf);
}

static void broadcastFail(clusterNode *failing) {
    size_t len;
    unsigned char *buf = buildFixed(CLUSTERBUS_FAIL, 0, &len);
    clusterBusWriteFail(buf, failing->name);
    broadcast(buf, len);
    zfree(buf);
}

static void sendUpdate(clusterLink *link, clusterNode *n) {
    if (link == NULL) return;
    size_t len;
    unsigned char *buf = buildFixed(CLUSTERBUS_UPDATE, 0, &len);
    clusterBusWriteUpdate(buf, n->config_epoch, n->name, n->slots);
    linkSend(link, buf, len);
    zfree(buf);
}

/* cluster.c's PUBLISH / SPUBLISH hook: the message to every node (Redis
 * 7.0 sends PUBLISH to all; a shard message goes to the shard only). */
void clusterPropagatePublish(robj *channel, robj *message, int sharded) {
    if (cstate == NULL) return;
    uint32_t clen = (uint32_t)sdslen(channel->ptr), mlen = (uint32_t)sdslen(message->ptr);
    size_t len = clusterBusPublishSize(clen, mlen);
    unsigned char *buf = zcalloc(len);
    clusterBusMsg m;
    fillHeader(&m, sharded ? CLUSTERBUS_PUBLISHSHARD : CLUSTERBUS_PUBLISH);
    clusterBusWriteHeader(buf, &m, (uint32_t)len);
    clusterBusWritePublish(buf, channel->ptr, clen, message->ptr, mlen);
    if (!sharded) {
        broadcast(buf, len);
    } else {
        clusterNode *me = cstate->myself;
        clusterNode *primary = isReplica(me) && me->replicaof ? me->replicaof : me;
        if (primary != me && primary->link) linkSend(primary->link, buf, len);
        for (int j = 0; j < primary->numreplicas; j++) {
            clusterNode *r = primary->replicas[j];
            if (r != me && r->link) linkSend(r->link, buf, len);
        }
    }
    zfree(buf);
}

/* RM_SendClusterMessage's message (cluster.h): refused, never cut, when
 * it is larger than a node of ours accepts. */
int clusterSendModuleMessage(const char *id, uint64_t module_id, uint8_t type, const void *payload, uint32_t len) {
    clusterNode *to;
    if (clusterModuleTarget(id, &to) != 0 || clusterBusModuleSize(len) > BUS_MAX_MESSAGE) return -1;
    size_t size = clusterBusModuleSize(len);
    unsigned char *buf = zmalloc(size);
    clusterBusMsg m;
    fillHeader(&m, CLUSTERBUS_MODULE);
    clusterBusWriteHeader(buf, &m, (uint32_t)size);
    clusterBusWriteModule(buf, module_id, type, payload, len);
    if (to) linkSend(to->link, buf, size);
    else broadcast(buf, size);
    zfree(buf);
    return 0;
}

/* ---- failure reports ----------------------------------------------------------------------------- */

static void expireFailReports(clusterNode *n) {
    if (n->fail_reports == NULL) return;
    long long maxtime = nodeTimeout() * FAIL_REPORT_VALIDITY_MULT, now = mstime();
    listIter li;
    listNode *ln;
    listRewind(n->fail_reports, &li);
    while ((ln = listNext(&li))) {
        failReport *fr = listNodeValue(ln);
        if (now - fr->time > maxtime) {
            zfree(fr);
            listDelNode(n->fail_reports, ln);
        }
    }
}

int busFailureReports(clusterNode *n) {
    expireFailReports(n);
    return n->fail_reports ? (int)listLength(n->fail_reports) : 0;
}

static int addFailReport(clusterNode *n, clusterNode *sender) {
    if (n->fail_reports == NULL) n->fail_reports = listCreate();
    listIter li;
    listNode *ln;
    listRewind(n->fail_reports, &li);
    while ((ln = listNext(&li))) {
        failReport *fr = listNodeValue(ln);
        if (fr->node == sender) {
            fr->time = mstime();
            return 0;
        }
    }
    failReport *fr = zmalloc(sizeof(*fr));
    fr->node = sender;
    fr->time = mstime();
    listAddNodeTail(n->fail_reports, fr);
    return 1;
}

static int delFailReport(clusterNode *n, clusterNode *sender) {
    if (n->fail_reports == NULL) return 0;
    listIter li;
    listNode *ln;
    listRewind(n->fail_reports, &li);
    while ((ln = listNext(&li))) {
        failReport *fr = listNodeValue(ln);
        if (fr->node != sender) continue;
        zfree(fr);
        listDelNode(n->fail_reports, ln);
        return 1;
    }
    return 0;
}

/* PFAIL becomes FAIL once a majority of the slot-serving primaries
 * (counting myself when I am one) report the node failing. */
static void markFailingIfNeeded(clusterNode *n) {
    if (!(n->flags & NODE_PFAIL) || (n->flags & NODE_FAIL)) return;
    int needed = cstate->size / 2 + 1;
    int failures = busFailureReports(n);
    if (isMaster(cstate->myself)) failures++;
    if (failures < needed) return;
    serverLog(LL_NOTICE, "Marking node %.40s as failing (quorum reached).", n->name);
    n->flags = (n->flags & ~NODE_PFAIL) | NODE_FAIL;
    n->fail_time = mstime();
    broadcastFail(n);
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
}

/* A FAIL node that answers again: replicas and primaries without slots are
 * cleared at once, a primary with slots once nobody failed it over in
 * FAIL_UNDO_TIME_MULT node timeouts. */
static void clearFailureIfNeeded(clusterNode *n) {
    long long now = mstime();
    if (isReplica(n) || n->numslots == 0) {
        serverLog(LL_NOTICE, "Clear FAIL state for node %.40s: %s is reachable again.", n->name,
                  isReplica(n) ? "replica" : "master without slots");
        n->flags &= ~NODE_FAIL;
        doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    } else if (now - n->fail_time > nodeTimeout() * FAIL_UNDO_TIME_MULT) {
        serverLog(LL_NOTICE,
                  "Clear FAIL state for node %.40s: is reachable again and nobody is serving its slots after some "
                  "time.",
                  n->name);
        n->flags &= ~NODE_FAIL;
        doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
    }
}

/* ---- handshake -------------------------------------------------------------------------------------- */

static int handshakeInProgress(const char *ip, int port, int cport) {
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if ((n->flags & NODE_HANDSHAKE) && !strcasecmp(n->ip, ip) && n->port == port && n->cport == cport) return 1;
    }
    return 0;
}

void busStartHandshake(const char *ip, int port, int cport) {
    if (handshakeInProgress(ip, port, cport)) return;
    clusterNode *n = createNode(NULL, NODE_HANDSHAKE | NODE_MEET);
    snprintf(n->ip, sizeof n->ip, "%s", ip);
    n->port = port;
    n->cport = cport;
    addNode(n);
}

/* ---- forgotten nodes: CLUSTER FORGET keeps a node out of gossip for a minute ---- */

#define FORGET_TTL_MS 60000

static dict *forgotten; /* name (sds) -> expiry (ms) */

static dictType forgottenDictType = {
    .hashFunction = dictSdsHash,
    .keyCompare = dictSdsKeyCompare,
    .keyDestructor = dictSdsDestructor,
};

void busForget(const char *name) {
    if (forgotten == NULL) forgotten = dictCreate(&forgottenDictType);
    sds key = sdsnewlen(name, CLUSTER_NAMELEN);
    dictEntry *de = dictFind(forgotten, key);
    if (de == NULL) de = dictAddRaw(forgotten, key, NULL);
    else sdsfree(key);
    dictSetSignedIntegerVal(de, mstime() + FORGET_TTL_MS);
}

static int isForgotten(const char *name) {
    if (forgotten == NULL || dictSize(forgotten) == 0) return 0;
    sds key = sdsnewlen(name, CLUSTER_NAMELEN);
    dictEntry *de = dictFind(forgotten, key);
    int found = de && dictGetSignedIntegerVal(de) > mstime();
    if (de && !found) dictDelete(forgotten, key);
    sdsfree(key);
    return found;
}

/* ---- processing ------------------------------------------------------------------------------------ */

/* ip strings from the wire may be one byte longer than a node's field */
static void copyIp(char *dst, const char *src) {
    size_t l = strnlen(src, NET_IP_STR_LEN - 1);
    memcpy(dst, src, l);
    dst[l] = '\0';
}

static int nameIsNull(const char *name) {
    for (int j = 0; j < CLUSTER_NAMELEN; j++)
        if (name[j]) return 0;
    return 1;
}

/* The sender's address: the header's myip when set, else the socket's peer. */
static void senderIp(const clusterLink *link, const clusterBusMsg *m, char *ip) {
    if (m->myip[0]) copyIp(ip, m->myip);
    else snprintf(ip, NET_IP_STR_LEN, "%s", link->peer_ip);
}

static void updateAddressIfNeeded(clusterNode *n, clusterLink *link, const clusterBusMsg *m) {
    if (link == n->link) return;
    char ip[NET_IP_STR_LEN];
    senderIp(link, m, ip);
    if (n->port == m->port && n->cport == m->cport && n->pport == m->pport && !strcmp(ip, n->ip)) return;
    snprintf(n->ip, sizeof n->ip, "%s", ip);
    n->port = m->port;
    n->pport = m->pport;
    n->cport = m->cport;
    if (n->link) freeLink(n->link);
    n->flags &= ~NODE_NOADDR;
    serverLog(LL_WARNING, "Address updated for node %.40s, now %s:%d", n->name, n->ip, n->port);
    if (isReplica(cstate->myself) && cstate->myself->replicaof == n) replicaClusterFollow(n->ip, n->port);
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
}

static void updateHostname(clusterNode *n, const clusterBusMsg *m) {
    size_t len = m->hostname ? strnlen(m->hostname, m->hostname_len) : 0;
    if (sdslen(n->hostname) == len && (len == 0 || !memcmp(n->hostname, m->hostname, len))) return;
    sdsclear(n->hostname);
    if (len) n->hostname = sdscatlen(n->hostname, m->hostname, len);
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
}

/* Two primaries with the same configEpoch: the one with the smaller name
 * takes a new epoch, as Redis resolves it. */
static void handleEpochCollision(clusterNode *sender) {
    clusterNode *me = cstate->myself;
    if (sender->config_epoch != me->config_epoch || !isMaster(sender) || !isMaster(me)) return;
    if (memcmp(sender->name, me->name, CLUSTER_NAMELEN) <= 0) return;
    cstate->current_epoch++;
    me->config_epoch = cstate->current_epoch;
    doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
    serverLog(LL_VERBOSE, "WARNING: configEpoch collision with node %.40s. configEpoch set to %llu", sender->name,
              (unsigned long long)cstate->current_epoch);
}

/* sender (a primary, at config epoch epoch) claims the slots of bitmap:
 * every slot unowned or owned at a lower epoch becomes its, as Redis 7.0's
 * rules say (an importing slot is left to the operator). Then, in Redis's
 * order of preference: when myself (or my primary) lost its last slot to
 * it, I follow the sender (unless cluster-allow-replica-migration is off
 * and the sender took more than our slots); a replica whose primary became
 * a replica follows the grandprimary; otherwise the keys of the slots we
 * lost are deleted, so that keys and slots agree. */
static void updateSlotsWith(clusterNode *sender, uint64_t epoch, const unsigned char *bitmap) {
    clusterNode *me = cstate->myself;
    clusterNode *curprimary = isMaster(me) ? me : me->replicaof;
    clusterNode *newprimary = NULL;
    int *dirty = NULL, ndirty = 0, sender_slots = 0, migrated_ours = 0;
    if (sender == me) {
        serverLog(LL_WARNING, "Discarding UPDATE message about myself.");
        return;
    }
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!((bitmap[j >> 3] >> (j & 7)) & 1)) continue;
        sender_slots++;
        clusterNode *owner = cstate->slots[j];
        if (owner == sender || cstate->importing_from[j]) continue;
        if (owner && owner->config_epoch >= epoch) continue;
        if (owner == me && slotIndexCount(j)) {
            if (dirty == NULL) dirty = zmalloc(sizeof(int) * CLUSTER_SLOTS);
            dirty[ndirty++] = j;
        }
        if (owner && owner == curprimary) {
            newprimary = sender;
            migrated_ours++;
        }
        delSlot(j);
        addSlot(sender, j);
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    }
    if (cluster_module_flags & CLUSTER_MODULE_NO_REDIRECTION) {
        /* a module keeps every key here: the slots moved, nothing else does (7.0) */
        zfree(dirty);
        return;
    }
    if (newprimary && curprimary && curprimary->numslots == 0 &&
        (server.cluster_allow_replica_migration || sender_slots == migrated_ours)) {
        serverLog(LL_WARNING, "Configuration change detected. Reconfiguring myself as a replica of %.40s",
                  sender->name);
        setMyPrimary(sender);
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    } else if (me->replicaof && me->replicaof->replicaof && me->replicaof->replicaof != me) {
        clusterNode *grand = me->replicaof->replicaof;
        serverLog(LL_WARNING, "I'm a sub-replica! Reconfiguring myself as a replica of grandmaster %.40s",
                  grand->name);
        setMyPrimary(grand);
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_FSYNC_CONFIG);
    } else {
        for (int i = 0; i < ndirty; i++) delKeysInSlot(dirty[i]);
    }
    zfree(dirty);
}

static void processGossip(const clusterBusMsg *m, clusterNode *sender) {
    for (int i = 0; i < m->count; i++) {
        clusterBusGossip g;
        clusterBusGossipAt(m, i, &g);
        clusterNode *n = lookupNode(g.name, CLUSTER_NAMELEN);
        if (n) {
            if (sender && isMaster(sender) && n != cstate->myself) {
                if (g.flags & (NODE_FAIL | NODE_PFAIL)) {
                    if (addFailReport(n, sender))
                        serverLog(LL_VERBOSE, "Node %.40s reported node %.40s as not reachable.", sender->name,
                                  n->name);
                    markFailingIfNeeded(n);
                } else if (delFailReport(n, sender)) {
                    serverLog(LL_VERBOSE, "Node %.40s reported node %.40s is back online.", sender->name, n->name);
                }
            }
            if (!(g.flags & (NODE_FAIL | NODE_PFAIL)) && n->ping_sent == 0 && busFailureReports(n) == 0) {
                long long pongtime = (long long)g.pong_received * 1000;
                if (pongtime <= mstime() + 500 && pongtime > n->pong_received) n->pong_received = pongtime;
            }
            if ((n->flags & (NODE_FAIL | NODE_PFAIL)) && !(g.flags & (NODE_NOADDR | NODE_FAIL | NODE_PFAIL)) &&
                (strcasecmp(n->ip, g.ip) || n->port != g.port || n->cport != g.cport)) {
                if (n->link) freeLink(n->link);
                copyIp(n->ip, g.ip);
                n->port = g.port;
                n->pport = g.pport;
                n->cport = g.cport;
                n->flags &= ~NODE_NOADDR;
            }
        } else if (sender && !(g.flags & NODE_NOADDR) && validNodeName(g.name, CLUSTER_NAMELEN) &&
                   !isForgotten(g.name)) {
            /* a node we did not know: known by its name at once, pinged by the cron */
            n = createNode(g.name, g.flags & (NODE_MASTER | NODE_SLAVE | NODE_NOFAILOVER));
            copyIp(n->ip, g.ip);
            n->port = g.port;
            n->pport = g.pport;
            n->cport = g.cport;
            addNode(n);
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
        }
    }
}

/* The role the header gives the sender: primary, or replica of replicaof. */
static void updateRole(clusterNode *sender, const clusterBusMsg *m) {
    if (nameIsNull(m->replicaof)) {
        setNodeAsPrimary(sender);
        return;
    }
    clusterNode *primary = lookupNode(m->replicaof, CLUSTER_NAMELEN);
    if (isMaster(sender)) {
        /* a primary turned replica: its slots are no longer its */
        for (int j = 0; j < CLUSTER_SLOTS; j++)
            if (cstate->slots[j] == sender) delSlot(j);
        sender->flags = (sender->flags & ~(NODE_MASTER | NODE_MIGRATE_TO)) | NODE_SLAVE;
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_UPDATE_STATE);
    }
    if (primary && sender->replicaof != primary) {
        setReplicaOf(sender, primary);
        doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
    }
}

static void processSlots(clusterNode *sender, clusterLink *link, const clusterBusMsg *m) {
    clusterNode *primary = isMaster(sender) ? sender : sender->replicaof;
    if (primary == NULL) return;
    int dirty = memcmp(primary->slots, m->myslots, sizeof m->myslots) != 0;
    if (!dirty) return;
    if (isMaster(sender)) updateSlotsWith(sender, m->config_epoch, m->myslots);
    /* the sender claims slots someone newer owns: tell it (UPDATE) */
    for (int j = 0; j < CLUSTER_SLOTS; j++) {
        if (!((m->myslots[j >> 3] >> (j & 7)) & 1)) continue;
        clusterNode *owner = cstate->slots[j];
        if (owner == primary || owner == NULL) continue;
        if (owner->config_epoch > m->config_epoch) {
            sendUpdate(sender->link ? sender->link : link, owner);
            break;
        }
    }
}

/* PING, PONG, MEET. */
static void processHeartbeat(clusterLink *link, const clusterBusMsg *m, clusterNode *sender) {
    int type = m->type;
    if (type == CLUSTERBUS_PING || type == CLUSTERBUS_MEET) {
        /* learn our own address from the socket, as Redis */
        if ((type == CLUSTERBUS_MEET || cstate->myself->ip[0] == '\0') && server.cluster_announce_ip == NULL) {
            char ip[NET_IP_STR_LEN];
            if (connSockName(link->conn, ip, sizeof ip, NULL) == CONN_OK && strcmp(ip, cstate->myself->ip)) {
                snprintf(cstate->myself->ip, sizeof cstate->myself->ip, "%s", ip);
                serverLog(LL_WARNING, "IP address for this node updated to %s", ip);
                doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
            }
        }
        if (!sender && type == CLUSTERBUS_MEET) {
            char ip[NET_IP_STR_LEN];
            senderIp(link, m, ip);
            clusterNode *n = createNode(NULL, NODE_HANDSHAKE);
            snprintf(n->ip, sizeof n->ip, "%s", ip);
            n->port = m->port;
            n->pport = m->pport;
            n->cport = m->cport;
            addNode(n);
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
            processGossip(m, NULL);
        }
        if (sender && link->inbound && sender->inbound_link != link) {
            if (sender->inbound_link) freeLink(sender->inbound_link);
            sender->inbound_link = link;
            link->node = sender;
        }
        sendPing(link, CLUSTERBUS_PONG);
    }
    if (!link->inbound) {
        clusterNode *n = link->node;
        clusterNode *known = lookupNode(m->sender, CLUSTER_NAMELEN);
        if (n->flags & NODE_HANDSHAKE) {
            if (known) {
                /* already known under its real name (maybe myself, met by mistake): the handshake node goes */
                serverLog(LL_DEBUG, "Handshake: we already know node %.40s", known->name);
                if (known != cstate->myself && !(known->flags & NODE_HANDSHAKE)) updateAddressIfNeeded(known, link, m);
                freeNode(n); /* frees link */
                doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
                return;
            }
            renameNode(n, m->sender);
            serverLog(LL_DEBUG, "Handshake with node %.40s completed.", n->name);
            n->flags &= ~NODE_HANDSHAKE;
            n->flags |= m->flags & (NODE_MASTER | NODE_SLAVE);
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
            sender = n;
        } else if (memcmp(n->name, m->sender, CLUSTER_NAMELEN)) {
            serverLog(LL_DEBUG, "PONG contains mismatching sender ID. About node %.40s added %d ms ago, having flags %d",
                      n->name, (int)(mstime() - n->ctime), n->flags);
            n->flags |= NODE_NOADDR;
            n->ip[0] = '\0';
            n->port = n->pport = n->cport = 0;
            freeLink(link);
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
            return;
        }
    }
    if (sender) {
        if (m->flags & NODE_NOFAILOVER) sender->flags |= NODE_NOFAILOVER;
        else sender->flags &= ~NODE_NOFAILOVER;
    }
    if (sender && type == CLUSTERBUS_PING && !(sender->flags & NODE_HANDSHAKE)) updateAddressIfNeeded(sender, link, m);
    if (!link->inbound && type == CLUSTERBUS_PONG) {
        clusterNode *n = link->node;
        n->pong_received = mstime();
        n->ping_sent = 0;
        if (n->flags & NODE_PFAIL) {
            n->flags &= ~NODE_PFAIL;
            doBeforeSleep(CLUSTER_TODO_UPDATE_STATE);
        } else if (n->flags & NODE_FAIL) {
            clearFailureIfNeeded(n);
        }
    }
    if (sender == NULL) return;
    failoverHeartbeat(m, sender);
    updateHostname(sender, m);
    updateRole(sender, m);
    processSlots(sender, link, m);
    if (isMaster(sender) && isMaster(cstate->myself)) handleEpochCollision(sender);
    processGossip(m, sender);
}

static void processUpdate(const clusterBusMsg *m, clusterNode *sender) {
    if (sender == NULL) return;
    clusterNode *n = lookupNode(m->update_name, CLUSTER_NAMELEN);
    if (n == NULL || n->config_epoch >= m->update_epoch) return;
    if (isReplica(n)) setNodeAsPrimary(n);
    n->config_epoch = m->update_epoch;
    updateSlotsWith(n, m->update_epoch, m->update_slots);
}

static void processFail(const clusterBusMsg *m, clusterNode *sender) {
    if (sender == NULL) return;
    clusterNode *n = lookupNode(m->about, CLUSTER_NAMELEN);
    if (n == NULL || (n->flags & (NODE_FAIL | NODE_MYSELF))) return;
    serverLog(LL_NOTICE, "FAIL message received from %.40s about %.40s", sender->name, n->name);
    n->flags = (n->flags & ~NODE_PFAIL) | NODE_FAIL;
    n->fail_time = mstime();
    doBeforeSleep(CLUSTER_TODO_UPDATE_STATE | CLUSTER_TODO_SAVE_CONFIG);
}

static void processPublish(const clusterBusMsg *m, clusterNode *sender) {
    if (sender == NULL) return;
    robj *channel = createStringObject((const char *)m->channel, m->channel_len);
    robj *message = createStringObject((const char *)m->message, m->message_len);
    pubsubPublishMessage(channel, message, m->type == CLUSTERBUS_PUBLISHSHARD);
    decrRefCount(channel);
    decrRefCount(message);
}

static void processMessage(clusterLink *link, const unsigned char *buf, size_t len) {
    clusterBusMsg m;
    int r = clusterBusDecode(buf, len, &m);
    if (r != CLUSTERBUS_OK) {
        dropLog("Cluster bus: dropped a malformed message from %s (error %d)", link->peer_ip, r);
        return;
    }
    if (!validNodeName(m.sender, CLUSTER_NAMELEN)) {
        dropLog("Cluster bus: dropped a message from %s with an invalid sender id", link->peer_ip);
        return;
    }
    cstate->stats_received[m.type]++;
    if ((long)m.type == drop_packet_filter) {
        serverLog(LL_WARNING, "Dropping packet that matches debug drop filter");
        return;
    }
    clusterNode *sender = NULL;
    if (link->node && !(link->node->flags & NODE_HANDSHAKE) && !link->inbound) sender = link->node;
    else sender = lookupNode(m.sender, CLUSTER_NAMELEN);
    if (sender && (sender->flags & NODE_HANDSHAKE)) sender = NULL;
    if (sender == cstate->myself) sender = NULL; /* a peer claiming our own id is nobody we know */
    if (sender && memcmp(sender->name, m.sender, CLUSTER_NAMELEN)) sender = lookupNode(m.sender, CLUSTER_NAMELEN);
    if (sender && link->inbound && link->node == NULL && m.type != CLUSTERBUS_MEET) {
        /* an inbound link is its sender's once it speaks */
        if (sender->inbound_link && sender->inbound_link != link) freeLink(sender->inbound_link);
        sender->inbound_link = link;
        link->node = sender;
    }
    if (sender) sender->data_received = mstime();
    if (sender) {
        if (m.current_epoch > cstate->current_epoch) {
            cstate->current_epoch = m.current_epoch;
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG);
        }
        /* whatever the sender's role in our table, as Redis 7.0: a replica just
         * promoted says master with its new epoch before updateRole (below)
         * makes it one here, and its slots must carry that epoch at once, or a
         * restarted old primary's stale claim (a lower epoch) would take them
         * back until its next message (Redis's 03-failover-loop read
         * -CLUSTERDOWN in that window) */
        if (m.config_epoch > sender->config_epoch) {
            sender->config_epoch = m.config_epoch;
            doBeforeSleep(CLUSTER_TODO_SAVE_CONFIG | CLUSTER_TODO_FSYNC_CONFIG);
        }
        sender->repl_offset = (long long)m.offset;
    }
    switch (m.type) {
    case CLUSTERBUS_PING:
    case CLUSTERBUS_PONG:
    case CLUSTERBUS_MEET: processHeartbeat(link, &m, sender); break;
    case CLUSTERBUS_FAIL: processFail(&m, sender); break;
    case CLUSTERBUS_PUBLISH:
    case CLUSTERBUS_PUBLISHSHARD: processPublish(&m, sender); break;
    case CLUSTERBUS_UPDATE: processUpdate(&m, sender); break;
    case CLUSTERBUS_FAILOVER_AUTH_REQUEST:
    case CLUSTERBUS_FAILOVER_AUTH_ACK:
    case CLUSTERBUS_MFSTART: failoverMessage(&m, sender); break;
    case CLUSTERBUS_MODULE: /* as 7.0: only from a node we know */
        if (sender)
            moduleClusterMessage(sender->name, m.module_id, m.module_type, m.module_payload, m.module_len);
        break;
    default: break;
    }
}

/* ---- cron ------------------------------------------------------------------------------------------ */

static void pingOldest(void) {
    clusterNode *best = NULL;
    int total = (int)dictSize(cstate->nodes);
    for (int j = 0; j < 5 && total > 1; j++) {
        dictEntry *de = dictGetRandomKey(cstate->nodes);
        clusterNode *n = dictGetVal(de);
        if (n->link == NULL || n->ping_sent != 0 || (n->flags & (NODE_MYSELF | NODE_HANDSHAKE))) continue;
        if (best == NULL || n->pong_received < best->pong_received) best = n;
    }
    if (best) sendPing(best->link, CLUSTERBUS_PING);
}

/* As Redis 7.0: any message from a node (a PING, a PUBLISH) shows it is
 * alive, so a node is PFAIL only when neither its PONG nor anything else
 * came for the node timeout. */
static void checkNode(clusterNode *n, long long now) {
    long long timeout = nodeTimeout();
    long long ping_delay = now - n->ping_sent, data_delay = now - n->data_received;
    if (n->link && now - n->link->ctime > timeout && n->ping_sent && ping_delay > timeout / 2 &&
        data_delay > timeout / 2) {
        freeLink(n->link); /* reconnect: maybe only the link is stuck */
    }
    if (n->link && n->ping_sent == 0 && now - n->pong_received > timeout / 2) {
        sendPing(n->link, CLUSTERBUS_PING);
        return;
    }
    if (n->ping_sent == 0) return;
    if ((ping_delay < data_delay ? ping_delay : data_delay) > timeout && !(n->flags & (NODE_PFAIL | NODE_FAIL))) {
        serverLog(LL_DEBUG, "*** NODE %.40s possibly failing", n->name);
        n->flags |= NODE_PFAIL;
        doBeforeSleep(CLUSTER_TODO_UPDATE_STATE);
    }
}

/* cluster-link-sendbuf-limit, checked by the cron as Redis does (a link
 * whose peer stopped reading grows its buffer until then): the link is
 * freed, counted, logged with Redis's line, and the cron reconnects. */
static void freeLinkOverLimit(clusterLink *link) {
    unsigned long long limit = server.cluster_link_sendbuf_limit;
    if (link == NULL || limit == 0) return;
    unsigned long long mem = sdsalloc(link->sndbuf);
    if (mem <= limit) return;
    serverLog(LL_WARNING,
              "Freeing cluster link(%s node %.40s, used memory: %llu) due to exceeding send buffer memory limit.",
              link->inbound ? "from" : "to", link->node ? link->node->name : "", mem);
    freeLink(link);
    cstate->links_buffer_limit_exceeded++;
}

static size_t linkMemory(const clusterLink *link) {
    return link ? sizeof(*link) + sdsalloc(link->sndbuf) + sdsalloc(link->rcvbuf) : 0;
}

/* INFO memory's mem_cluster_links: every link of a known node. */
size_t clusterLinksMemory(void) {
    if (cstate == NULL) return 0;
    size_t mem = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        mem += linkMemory(n->link) + linkMemory(n->inbound_link);
    }
    return mem;
}

void busCron(void) {
    static long long iteration;
    long long now = mstime();
    long long handshake_timeout = nodeTimeout() < 1000 ? 1000 : nodeTimeout();
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->flags & (NODE_MYSELF | NODE_NOADDR)) continue;
        freeLinkOverLimit(n->link);
        freeLinkOverLimit(n->inbound_link);
        if ((n->flags & NODE_HANDSHAKE) && now - n->ctime > handshake_timeout) {
            freeNode(n);
            continue;
        }
        if (n->link == NULL && n->ip[0] && n->cport) connectNode(n);
    }
    if (++iteration % 10 == 0) pingOldest();
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->flags & (NODE_MYSELF | NODE_NOADDR | NODE_HANDSHAKE)) continue;
        checkNode(n, now);
    }
    /* failure reports may reach the quorum by our own PFAIL too */
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->flags & NODE_PFAIL) markFailingIfNeeded(n);
    }
    failoverCron();
    migrationCron();
}

/* ---- what cluster.c asks -------------------------------------------------------------------------- */

void busNodeFreed(clusterNode *n) {
    if (n->link) freeLink(n->link);
    if (n->inbound_link) freeLink(n->inbound_link);
    if (n->fail_reports) {
        listIter li;
        listNode *ln;
        listRewind(n->fail_reports, &li);
        while ((ln = listNext(&li))) zfree(listNodeValue(ln));
        listRelease(n->fail_reports);
        n->fail_reports = NULL;
    }
    /* its reports about others, and inbound links still pointing at it */
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *o = listNodeValue(ln);
        if (o != n) delFailReport(o, n);
    }
    if (inbound_links) {
        listRewind(inbound_links, &li);
        while ((ln = listNext(&li))) {
            clusterLink *link = listNodeValue(ln);
            if (link->node == n) link->node = NULL;
        }
    }
}

/* DEBUG CLUSTERLINK KILL to|from|all <node-id>: frees the links to and/or
 * from a node (they are made again by the cron and by the peer), for
 * Redis's cluster tests. */
void clusterDebugKillLink(client *c, robj *dir, robj *name) {
    if (cstate == NULL) {
        addReplyError(c, "Debug option only available for cluster mode enabled setup!");
        return;
    }
    clusterNode *n = lookupNode(name->ptr, sdslen(name->ptr));
    if (n == NULL) {
        addReplyErrorFormat(c, "Unknown node %s", (char *)name->ptr);
        return;
    }
    int to = !strcasecmp(dir->ptr, "to"), from = !strcasecmp(dir->ptr, "from"), all = !strcasecmp(dir->ptr, "all");
    if (!to && !from && !all) {
        addReplyErrorFormat(c, "Unknown direction %s", (char *)dir->ptr);
        return;
    }
    if ((to || all) && n->link) freeLink(n->link);
    if ((from || all) && n->inbound_link) freeLink(n->inbound_link);
    addReply(c, shared.ok);
}

int busNodeConnected(const clusterNode *n) { return (n->flags & NODE_MYSELF) || n->link != NULL; }

static void linkReply(client *c, clusterLink *link) {
    addReplyMapLen(c, 6);
    addReplyBulkCString(c, "direction");
    addReplyBulkCString(c, link->inbound ? "from" : "to");
    addReplyBulkCString(c, "node");
    addReplyBulkCBuffer(c, link->node->name, CLUSTER_NAMELEN);
    addReplyBulkCString(c, "create-time");
    addReplyLongLong(c, link->ctime);
    addReplyBulkCString(c, "events");
    addReplyBulkCString(c, link->writing ? "rw" : "r");
    addReplyBulkCString(c, "send-buffer-allocated");
    addReplyLongLong(c, (long long)sdsalloc(link->sndbuf));
    addReplyBulkCString(c, "send-buffer-used");
    addReplyLongLong(c, (long long)sdslen(link->sndbuf));
}

void busLinksReply(client *c) {
    long count = 0;
    listIter li;
    listNode *ln;
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        count += (n->link != NULL) + (n->inbound_link != NULL);
    }
    addReplyArrayLen(c, count);
    listRewind(cstate->order, &li);
    while ((ln = listNext(&li))) {
        clusterNode *n = listNodeValue(ln);
        if (n->link) linkReply(c, n->link);
        if (n->inbound_link) linkReply(c, n->inbound_link);
    }
}

sds busInfoStats(sds info) {
    long long sent = 0, received = 0;
    for (int t = 0; t < CLUSTERBUS_TYPE_COUNT; t++) {
        if (!cstate->stats_sent[t]) continue;
        sent += cstate->stats_sent[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_sent:%lld\r\n", clusterBusTypeName(t), cstate->stats_sent[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_sent:%lld\r\n", sent);
    for (int t = 0; t < CLUSTERBUS_TYPE_COUNT; t++) {
        if (!cstate->stats_received[t]) continue;
        received += cstate->stats_received[t];
        info = sdscatprintf(info, "cluster_stats_messages_%s_received:%lld\r\n", clusterBusTypeName(t),
                            cstate->stats_received[t]);
    }
    info = sdscatprintf(info, "cluster_stats_messages_received:%lld\r\n", received);
    return sdscatprintf(info, "total_cluster_links_buffer_limit_exceeded:%llu\r\n",
                        cstate->links_buffer_limit_exceeded);
}

