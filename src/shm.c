/* shm.c -- CLIENT SHM: the handshake that moves a unix-socket client onto the
 * shared-memory transport (src/lib/connection_shm.c, rings in shmring.h).
 *
 *   client                                   server
 *   CLIENT SHM [RINGSIZE bytes]  ─ socket ─►  checks; creates the segment
 *                                            (sealed memfd) and a datagram
 *                                            socketpair for wake-ups
 *                    +OK + SCM_RIGHTS   ◄──  one sendmsg: "+OK\r\n" carrying
 *                    [memfd, wake end, wake end]
 *   from here on requests and replies go through the rings; the socket
 *   carries nothing and closing it (either side) ends the connection.
 *
 * Design decisions:
 *  - Only a unix-socket client may upgrade: the socket's permissions and
 *    requirepass/AUTH already decided who it is, and SCM_RIGHTS needs it.
 *  - The upgrade must be the only thing in flight (no earlier reply still
 *    queued, nothing pipelined behind it): the reply that carries the
 *    descriptors is the last byte on the socket, the first request in the
 *    ring the next one. It is the one reply written straight to the socket
 *    rather than through reply.c, because the descriptors must travel with
 *    it (sendmsg on the connection's fd, an exception to connGetFd's rule).
 *  - The client gets a new connection object on a dup of the socket, with
 *    the old one's read handler; the old one is closed (its struct lives on
 *    until the read callback we run in returns). Everything above the
 *    connection interface -- MULTI, pub/sub, blocking, MONITOR, limits,
 *    eviction -- is unchanged; CLIENT LIST shows flag 'm'.
 *  - Wake-ups: the server keeps one end of the socketpair and never passes
 *    it; the client gets the other end twice, in the two places where the
 *    first design passed two eventfds (the server's, which the client
 *    wrote 8 bytes to, and the client's, which it read 8 bytes from): a
 *    datagram sent on the client's end reaches the server and one sent on
 *    the server's reaches the client, so such a client works unchanged.
 *    Why not eventfds: a passed descriptor shares O_NONBLOCK with ours, so
 *    a client could make it blocking and hang the server in write() or
 *    read() (connection_shm.c; tests/unit/shm.tcl's block-* attacks).
 *  - Limits: shm-enabled, shm-max-clients, and the ring size (RINGSIZE or
 *    shm-ring-size, rounded up to a power of two, 4 KB to 256 MB).
 *  - Descriptors: a shm client holds two (its socket and our wake-up end;
 *    the memfd is closed once passed, the mapping is enough). The extra
 *    one counts against maxclients -- here and at accept (networking.c,
 *    shmExtraDescriptors) -- so the process never needs more than
 *    maxclients + the reserve that openfiles.c sizes the limit and
 *    server.c the event loop for: local clients upgrading could otherwise
 *    eat the descriptors kept for the AOF, RDB and listeners, or push a
 *    TCP client's descriptor past the event loop.
 *  - Only a sealed segment is offered: an unsealed one (the /dev/shm file
 *    where there is no memfd sealing) can be truncated by the client, and
 *    the server's next access past the new end is a SIGBUS -- checking
 *    its size first is a race the client wins, and the server also touches
 *    the rings outside any event (replies, the spin). Such a system
 *    refuses CLIENT SHM; shm-force-devshm, which forces the file, makes
 *    the test see the refusal.
 *  - The server's spin (shmSpinBeforeSleep, the last step of beforeSleep):
 *    connection_shm.c polls the rings of the clients served since the last
 *    pass for at most shm-spin-us microseconds (adaptive below that, never
 *    on a single-CPU machine) and runs what arrives; the replies go out in
 *    the next pass, which starts without sleeping, after its AOF write as
 *    always.
 *  - shm-force-devshm (hidden, for tests): the segment is the unlinked
 *    /dev/shm file even where memfd_create exists, so the refusal of an
 *    unsealed segment runs (and leaves nothing in /dev/shm).
 *  - INFO clients ends with the transport's figures (shmCatInfo).
 */
#include "server.h"

#include <errno.h>
#include <sys/socket.h>
#include <unistd.h>

#include "connection_shm.h"

#define SHM_RING_MAX (256u * 1024 * 1024)
/* Descriptors a shm client holds beyond a socket client's one: the
 * wake-up end (the segment's memfd is closed once passed). */
#define SHM_EXTRA_FDS 1

static void shmLogViolation(connection *conn, const char *why) {
    client *c = connGetPrivateData(conn);
    serverLog(LL_WARNING, "Shared-memory protocol violation by client id=%llu (%s): closing it",
              c ? (unsigned long long)c->id : 0ULL, why);
}

/* Sends "+OK\r\n" with the three descriptors in one message. */
static int sendUpgradeReply(int sockfd, const int fds[3]) {
    char payload[] = "+OK\r\n";
    struct iovec iov = {.iov_base = payload, .iov_len = sizeof(payload) - 1};
    union {
        char buf[CMSG_SPACE(3 * sizeof(int))];
        struct cmsghdr align;
    } control;
    memset(&control, 0, sizeof(control));
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof(control.buf)};
    struct cmsghdr *cmsg = CMSG_FIRSTHDR(&msg);
    cmsg->cmsg_level = SOL_SOCKET;
    cmsg->cmsg_type = SCM_RIGHTS;
    cmsg->cmsg_len = CMSG_LEN(3 * sizeof(int));
    memcpy(CMSG_DATA(cmsg), fds, 3 * sizeof(int));
    ssize_t n;
    do n = sendmsg(sockfd, &msg, MSG_NOSIGNAL);
    while (n == -1 && errno == EINTR);
    return n == (ssize_t)iov.iov_len ? C_OK : C_ERR;
}

/* The refusals, in the order they are checked. NULL: the client may upgrade. */
static const char *shmRefusal(client *c) {
    if (connIsShm(c->conn)) return "-ERR this connection already uses shared memory";
    if (!(c->flags & CLIENT_UNIX_SOCKET) || c->conn == NULL)
        return "-ERR CLIENT SHM is only available on a unix socket connection";
    if (!server.shm_enabled) return "-ERR shared-memory transport is disabled (shm-enabled no)";
    if ((unsigned)connShmCount() >= server.shm_max_clients)
        return "-ERR max number of shared-memory clients reached";
    if (listLength(server.clients) + shmExtraDescriptors() + SHM_EXTRA_FDS > server.maxclients)
        return "-ERR max number of clients reached"; /* its wake-up end takes a client's descriptor */
    if (c->flags & CLIENT_MULTI || server.in_exec) return "-ERR CLIENT SHM is not allowed in a transaction";
    if (c->bufpos || listLength(c->reply) || sdslen(c->querybuf) > c->qb_pos)
        return "-ERR CLIENT SHM must be the only command in flight (read earlier replies, pipeline nothing after it)";
    return NULL;
}

/* RINGSIZE's value, or the configured default; C_ERR after replying. */
static int shmRingSizeArg(client *c, uint32_t *size) {
    long long want = server.shm_ring_size;
    if (c->argc == 4 && !strcasecmp(c->argv[2]->ptr, "ringsize")) {
        if (getLongLongFromObjectOrReply(c, c->argv[3], &want, NULL) != C_OK) return C_ERR;
        if (want < (long long)SHMRING_MIN_SIZE || want > (long long)SHM_RING_MAX) {
            addReplyErrorFormat(c, "RINGSIZE must be between %u and %u", SHMRING_MIN_SIZE, SHM_RING_MAX);
            return C_ERR;
        }
    } else if (c->argc != 2) {
        addReplyErrorObject(c, shared.syntaxerr);
        return C_ERR;
    }
    *size = shmringRoundSize((unsigned long long)want);
    return C_OK;
}

/* Builds the new connection and sends the reply; C_ERR with everything
 * undone and *why set. */
static int shmUpgrade(client *c, uint32_t ring_size, const char **why) {
    *why = NULL;
    shmringSegment seg;
    shmringBacking backing = server.shm_force_devshm ? SHMRING_BACKING_DEVSHM : SHMRING_BACKING_BEST;
    if (shmringSegmentCreateBacked(&seg, ring_size, backing) == SHMRING_ERR) {
        *why = strerror(errno);
        return C_ERR;
    }
    if (!seg.sealed) { /* see "Only a sealed segment" above */
        shmringSegmentRelease(&seg);
        *why = "the segment can't be sealed against resizing on this system (no memfd sealing)";
        return C_ERR;
    }
    int wake[2] = {-1, -1}; /* [0] ours, [1] the client's */
    if (shmringWakePair(wake) == SHMRING_ERR) wake[0] = wake[1] = -1;
    int sockfd = dup(connGetFd(c->conn));
    connection *conn = NULL;
    if (wake[0] != -1 && sockfd != -1) conn = connCreateShm(server.el, sockfd, &seg, wake[0]);
    int fds[3] = {seg.fd, wake[1], wake[1]};
    int sent = conn && connSetReadHandler(conn, c->conn->read_handler) == CONN_OK &&
               sendUpgradeReply(connGetFd(c->conn), fds) == C_OK;
    int saved = errno;
    if (wake[1] != -1) close(wake[1]); /* the client has its copies now (or never will) */
    if (sent) {
        connection *old = c->conn;
        connShmSegmentPassed(conn);
        connSetPrivateData(conn, c);
        c->conn = conn;
        connClose(old);
        sdsfree(c->peerid);
        c->peerid = NULL;
        return C_OK;
    }
    if (conn) {
        connClose(conn); /* closes all it took */
    } else {
        if (sockfd != -1) close(sockfd);
        if (wake[0] != -1) close(wake[0]);
        shmringSegmentRelease(&seg);
    }
    *why = strerror(saved);
    return C_ERR;
}

/* At start-up: the connection layer reports a peer's protocol violations
 * through our log. */
void shmInit(void) { connShmSetViolationReporter(shmLogViolation); }

void clientShmCommand(client *c) {
    const char *refusal = shmRefusal(c);
    if (refusal) {
        addReplyError(c, refusal);
        return;
    }
    uint32_t ring_size;
    if (shmRingSizeArg(c, &ring_size) != C_OK) return;
    const char *why;
    if (shmUpgrade(c, ring_size, &why) != C_OK) {
        addReplyErrorFormat(c, "could not set up shared memory: %s", why);
        return;
    }
    serverLog(LL_VERBOSE, "Client id=%llu moved to shared memory (rings of %u bytes)",
              (unsigned long long)c->id, ring_size);
}

unsigned long shmExtraDescriptors(void) {
    return (unsigned long)connShmCount() * SHM_EXTRA_FDS;
}

int shmRunWakes(void) {
    return connShmRunWakes();
}

int shmSpinBeforeSleep(void) {
    unsigned cap = shmringSpinBudgetUs() ? server.shm_spin_us : 0; /* 0 on a single CPU */
    return connShmSpin(cap);
}

sds shmCatInfo(sds info) {
    connShmStats st;
    connShmGetStats(&st);
    return sdscatprintf(info,
                        "shm_connected_clients:%d\r\n"
                        "shm_total_connections:%lld\r\n"
                        "shm_protocol_violations:%lld\r\n"
                        "shm_spin_hits:%lld\r\n"
                        "shm_spin_misses:%lld\r\n"
                        "shm_spin_time_usec:%lld\r\n"
                        "shm_spin_budget_usec:%u\r\n",
                        st.connected, st.total_connections, st.violations, st.spin_hits, st.spin_misses,
                        st.spin_time_us, st.spin_budget_us);
}
