/* connection_shm.c -- the shared-memory transport behind the connection
 * interface: a client's RESP bytes come through the request ring and its
 * replies go out through the reply ring (shmring.h), while the unix socket
 * it upgraded from stays open as the liveness channel.
 *
 * Two fds per connection are in the event loop:
 *  - the server eventfd, which the client signals when it published
 *    requests while we slept, or freed room we were waiting for;
 *  - the socket: readable means the client closed it (EOF: the connection
 *    ends) or broke the protocol (bytes after the upgrade).
 *
 * "Readable" is level-triggered, as for a socket: read() drains the
 * eventfd only when it finds the ring empty, and then arms the ring's sleep
 * flag and looks once more (shmringConsumerPrepareSleep). So while requests
 * are waiting the eventfd stays readable and the loop keeps calling the read
 * handler, and once the ring is empty the client is asked to signal. A
 * handler installed later self-signals when there is something to do (data
 * already waiting, or room for a pending write), like a socket would be
 * reported ready at once.
 *
 * Nothing the client writes is trusted: every index is checked (shmring.c);
 * a violation is reported once (connShmSetViolationReporter: the server
 * logs it), moves the connection to CONN_STATE_ERROR and the next read or
 * write fails, so networking.c closes the client as for a socket error. An
 * unsealed segment (the /dev/shm fallback) has its size checked with fstat
 * on every event before the mapping is touched.
 *
 * The server does not spin: its event loop serves every client, and a
 * busy-wait there would delay all the others; it relies on the flags
 * instead (a busy pipeline needs no signal in either direction).
 *
 * Closing from inside a callback follows connection.c: resources are
 * released at once, the struct lives until the last callback returns.
 */
#define _GNU_SOURCE
#include "connection_shm.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "anet.h"
#include "zmalloc.h"

typedef struct shmConnection {
    connection c;          /* first: a connection * is a shmConnection * */
    shmringSegment seg;
    shmring requests;      /* we consume */
    shmring replies;       /* we produce */
    int server_efd, client_efd;
    int peer_closed;       /* EOF seen on the socket */
    int read_called;       /* the read handler called read() this round */
    const char *violation; /* the protocol violation, once there was one */
} shmConnection;

static int shm_connections;
static connShmViolationReporter *violation_reporter;

void connShmSetViolationReporter(connShmViolationReporter *fn) {
    violation_reporter = fn;
}

int connShmCount(void) {
    return shm_connections;
}

int connIsShm(const connection *conn) {
    return conn && conn->type == &CT_Shm;
}

static void shmViolation(shmConnection *sc, const char *why) {
    if (sc->violation) return;
    sc->violation = why;
    sc->c.last_errno = EPROTO;
    if (sc->c.state == CONN_STATE_CONNECTED) sc->c.state = CONN_STATE_ERROR;
    if (violation_reporter) violation_reporter(&sc->c, why);
}

/* ---- closing ------------------------------------------------------------------ */

static void shmReleaseResources(shmConnection *sc) {
    if (sc->c.fd == -1) return;
    if (sc->c.el) {
        aeDeleteFileEvent(sc->c.el, sc->c.fd, AE_READABLE | AE_WRITABLE);
        aeDeleteFileEvent(sc->c.el, sc->server_efd, AE_READABLE | AE_WRITABLE);
    }
    close(sc->c.fd);
    close(sc->server_efd);
    close(sc->client_efd);
    shmringSegmentRelease(&sc->seg);
    sc->c.fd = -1;
    shm_connections--;
}

static void connShmClose(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    shmReleaseResources(sc);
    if (conn->refs > 0) {
        conn->state = CONN_STATE_CLOSED;
        conn->flags |= CONN_FLAG_CLOSE_SCHEDULED;
        return;
    }
    zfree(sc);
}

/* As connection.c's: 0 when conn was closed meanwhile. */
static int shmRunCallback(connection *conn, ConnectionCallbackFunc handler) {
    conn->refs++;
    if (handler) handler(conn);
    conn->refs--;
    if (conn->flags & CONN_FLAG_CLOSE_SCHEDULED) {
        if (conn->refs == 0) connShmClose(conn);
        return 0;
    }
    return 1;
}

/* ---- I/O ------------------------------------------------------------------------ */

static ssize_t shmFail(shmConnection *sc) {
    errno = sc->c.last_errno ? sc->c.last_errno : EPROTO;
    return -1;
}

static ssize_t connShmRead(connection *conn, void *buf, size_t len) {
    shmConnection *sc = (shmConnection *)conn;
    sc->read_called = 1;
    if (conn->state != CONN_STATE_CONNECTED) return conn->state == CONN_STATE_CLOSED ? 0 : shmFail(sc);
    ssize_t n = shmringRead(&sc->requests, buf, len);
    if (n == 0 && !sc->peer_closed) {
        shmringDrain(sc->server_efd);
        int ready = shmringConsumerPrepareSleep(&sc->requests);
        n = ready > 0 ? shmringRead(&sc->requests, buf, len) : ready;
    }
    if (n < 0) {
        shmViolation(sc, sc->requests.violation);
        return shmFail(sc);
    }
    if (n > 0) {
        if (shmringTakeWakeRequest(&sc->requests)) shmringSignal(sc->client_efd);
        return n;
    }
    if (sc->peer_closed) {
        conn->state = CONN_STATE_CLOSED;
        return 0;
    }
    errno = EAGAIN;
    return -1;
}

static ssize_t connShmWrite(connection *conn, const void *data, size_t len) {
    shmConnection *sc = (shmConnection *)conn;
    if (conn->state != CONN_STATE_CONNECTED) return shmFail(sc);
    if (sc->peer_closed) {
        conn->last_errno = EPIPE;
        conn->state = CONN_STATE_ERROR;
        return shmFail(sc);
    }
    ssize_t n = shmringWrite(&sc->replies, data, len);
    if (n == 0 && len > 0) {
        int room = shmringProducerPrepareSleep(&sc->replies);
        n = room > 0 ? shmringWrite(&sc->replies, data, len) : room;
    }
    if (n < 0) {
        shmViolation(sc, sc->replies.violation);
        return shmFail(sc);
    }
    if (n > 0 && shmringTakeWakeRequest(&sc->replies)) shmringSignal(sc->client_efd);
    if (n == 0 && len > 0) {
        errno = EAGAIN;
        return -1;
    }
    return n;
}

static ssize_t connShmWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    ssize_t total = 0;
    for (int i = 0; i < iovcnt; i++) {
        ssize_t n = connShmWrite(conn, iov[i].iov_base, iov[i].iov_len);
        if (n < 0) return total ? total : -1;
        total += n;
        if ((size_t)n < iov[i].iov_len) break;
    }
    return total;
}

/* ---- events ---------------------------------------------------------------------- */

/* The socket is readable: EOF (the client is gone) or a protocol violation. */
static void shmCheckSocket(shmConnection *sc) {
    char byte;
    ssize_t n = recv(sc->c.fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) {
        shmViolation(sc, "bytes on the control socket after the upgrade");
    } else if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) {
        sc->peer_closed = 1;
    }
    if (sc->peer_closed || sc->violation) aeDeleteFileEvent(sc->c.el, sc->c.fd, AE_READABLE);
}

static int shmWriteReady(shmConnection *sc) {
    if (sc->c.state != CONN_STATE_CONNECTED || sc->peer_closed) return 1; /* let write() report it */
    ssize_t room = shmringWritable(&sc->replies);
    if (room < 0) shmViolation(sc, sc->replies.violation);
    return room != 0;
}

/* A write handler still installed stopped early (a fair share per event)
 * or on a full ring. Like a socket's writable event, it must fire again:
 * at once if there is room, else when the client frees some (flag armed,
 * then looked at once more). */
static void shmKeepWriteHandlerLive(shmConnection *sc) {
    if (sc->c.fd == -1 || !sc->c.write_handler || sc->c.state != CONN_STATE_CONNECTED) return;
    ssize_t room = shmringWritable(&sc->replies);
    if (room == 0) room = shmringProducerPrepareSleep(&sc->replies);
    if (room != 0) shmringSignal(sc->server_efd);
}

/* The aeFileProc of both fds: the same dispatch as a socket's (read before
 * write unless the barrier is set), whichever fd woke us. */
static void connShmEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    (void)el;
    (void)mask;
    shmConnection *sc = clientData;
    connection *conn = &sc->c;
    if (fd == conn->fd) shmCheckSocket(sc);
    if (!sc->violation && !shmringSegmentIntact(&sc->seg)) shmViolation(sc, "the segment was truncated");
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    sc->read_called = 0;
    if (!barrier && conn->read_handler) {
        if (!shmRunCallback(conn, conn->read_handler)) return;
    }
    if (conn->write_handler && shmWriteReady(sc)) {
        if (!shmRunCallback(conn, conn->write_handler)) return;
    }
    if (barrier && conn->read_handler) {
        if (!shmRunCallback(conn, conn->read_handler)) return;
    }
    /* Nobody read (no handler, or one that is done with this client): the
     * signal must not keep the loop spinning. */
    if (!sc->read_called && conn->fd != -1) shmringDrain(sc->server_efd);
    shmKeepWriteHandlerLive(sc);
}

/* The eventfd is watched while any handler is set, the socket while a read
 * handler is (its EOF is reported through read()). */
static int shmUpdateEvents(shmConnection *sc) {
    connection *conn = &sc->c;
    if (conn->fd == -1) {
        errno = EBADF;
        return CONN_ERR;
    }
    if (conn->read_handler || conn->write_handler) {
        if (aeCreateFileEvent(conn->el, sc->server_efd, AE_READABLE, connShmEventHandler, sc) == AE_ERR)
            return CONN_ERR;
    } else {
        aeDeleteFileEvent(conn->el, sc->server_efd, AE_READABLE);
    }
    if (conn->read_handler && !sc->peer_closed && !sc->violation) {
        if (aeCreateFileEvent(conn->el, conn->fd, AE_READABLE, connShmEventHandler, sc) == AE_ERR)
            return CONN_ERR;
    } else {
        aeDeleteFileEvent(conn->el, conn->fd, AE_READABLE);
    }
    return CONN_OK;
}

static int connShmSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    shmConnection *sc = (shmConnection *)conn;
    if (func == conn->read_handler) return CONN_OK;
    conn->read_handler = func;
    if (shmUpdateEvents(sc) == CONN_ERR) {
        conn->read_handler = NULL;
        return CONN_ERR;
    }
    /* Requests may have arrived while nobody listened, without a signal. */
    if (func && shmringReadable(&sc->requests) != 0) shmringSignal(sc->server_efd);
    return CONN_OK;
}

static int connShmSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    shmConnection *sc = (shmConnection *)conn;
    if (barrier) conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    if (func == conn->write_handler) return CONN_OK;
    conn->write_handler = func;
    if (shmUpdateEvents(sc) == CONN_ERR) {
        conn->write_handler = NULL;
        return CONN_ERR;
    }
    if (func) shmringSignal(sc->server_efd); /* run it next round if there is room */
    return CONN_OK;
}

/* ---- identity ---------------------------------------------------------------------- */

static int connShmConnect(connection *conn, const char *addr, int port, const char *source_addr,
                          ConnectionCallbackFunc connect_handler) {
    (void)addr; (void)port; (void)source_addr; (void)connect_handler;
    conn->last_errno = ENOTSUP;
    conn->state = CONN_STATE_ERROR;
    return CONN_ERR;
}

static int connShmAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    (void)accept_handler;
    (void)conn;
    errno = EINVAL;
    return CONN_ERR;
}

static const char *connShmGetLastError(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    return sc->violation ? sc->violation : strerror(conn->last_errno);
}

static const char *connShmGetType(connection *conn) {
    (void)conn;
    return "shm";
}

static int connShmIsLocal(connection *conn) {
    (void)conn;
    return 1;
}

static int connShmAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote) {
    int which = remote ? FD_TO_PEER_NAME : FD_TO_SOCK_NAME;
    return anetFdToString(conn->fd, ip, ip_len, port, which) == ANET_OK ? CONN_OK : CONN_ERR;
}

const ConnectionType CT_Shm = {
    .ae_handler = connShmEventHandler,
    .connect = connShmConnect,
    .accept = connShmAccept,
    .close = connShmClose,
    .write = connShmWrite,
    .writev = connShmWritev,
    .read = connShmRead,
    .set_write_handler = connShmSetWriteHandler,
    .set_read_handler = connShmSetReadHandler,
    .get_last_error = connShmGetLastError,
    .get_type = connShmGetType,
    .is_local = connShmIsLocal,
    .addr = connShmAddr,
};

connection *connCreateShm(aeEventLoop *el, int sockfd, shmringSegment *seg, int server_efd, int client_efd) {
    shmConnection *sc = zcalloc(sizeof(*sc));
    sc->c.type = &CT_Shm;
    sc->c.el = el;
    sc->c.fd = sockfd;
    sc->c.state = CONN_STATE_CONNECTED;
    sc->seg = *seg;
    sc->server_efd = server_efd;
    sc->client_efd = client_efd;
    shmringOpen(&sc->requests, &sc->seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    shmringOpen(&sc->replies, &sc->seg, SHMRING_REPLIES, SHMRING_PRODUCER);
    /* The socket is watched from the start, so a client that dies before
     * any handler is set is still noticed once one is. */
    if (aeCreateFileEvent(el, server_efd, AE_READABLE, connShmEventHandler, sc) == AE_ERR) {
        zfree(sc);
        return NULL;
    }
    aeDeleteFileEvent(el, server_efd, AE_READABLE);
    /* Asleep from the start: the first request must signal us. */
    shmringConsumerPrepareSleep(&sc->requests);
    shm_connections++;
    return &sc->c;
}
