/* connection.c -- the socket transports (TCP and unix domain) behind the
 * connection interface, plus the generic conn* entry points that dispatch
 * through a connection's ConnectionType. See connection.h for the contract.
 *
 * Both socket transports share every function except their name, whether
 * the peer counts as local, and how they connect; a new transport supplies
 * its own vtable (typically reusing the event-handler pattern below).
 *
 * Close from inside a callback: every callback runs between refs++ and
 * refs--. connClose closes the fd and removes its events immediately (so
 * the event loop cannot report it again), but if refs > 0 it only sets
 * CONN_FLAG_CLOSE_SCHEDULED; the last callback to return then frees the
 * struct and tells the event handler to stop touching it.
 */
#include "connection.h"

#include <errno.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "anet.h"
#include "zmalloc.h"

static aeEventLoop *connDefaultLoop;

void connInit(aeEventLoop *el) {
    connDefaultLoop = el;
}

/* ---- the socket transports ---------------------------------------------- */

static connection *connNew(const ConnectionType *type, int fd, ConnectionState state) {
    connection *conn = zcalloc(sizeof(*conn));
    conn->type = type;
    conn->el = connDefaultLoop;
    conn->fd = fd;
    conn->state = state;
    return conn;
}

/* ---- the close-inside-a-callback protocol, shared by every transport ---- */

void connReleaseClosed(connection *conn, void (*free_now)(connection *)) {
    if (conn->refs > 0) {
        conn->state = CONN_STATE_CLOSED;
        conn->flags |= CONN_FLAG_CLOSE_SCHEDULED;
        return;
    }
    free_now(conn);
}

int connRunHeld(connection *conn, ConnectionCallbackFunc handler, void (*free_now)(connection *)) {
    conn->refs++;
    if (handler) handler(conn);
    conn->refs--;
    if (conn->flags & CONN_FLAG_CLOSE_SCHEDULED) {
        if (conn->refs == 0) free_now(conn);
        return 0;
    }
    return 1;
}

/* ---- the socket transports, continued ---------------------------------------- */

static void connSocketFree(connection *conn) {
    zfree(conn);
}

static void connSocketClose(connection *conn) {
    if (conn->fd != -1) {
        if (conn->el) aeDeleteFileEvent(conn->el, conn->fd, AE_READABLE | AE_WRITABLE);
        close(conn->fd);
        conn->fd = -1;
    }
    connReleaseClosed(conn, connSocketFree);
}

static int connRunCallback(connection *conn, ConnectionCallbackFunc handler) {
    return connRunHeld(conn, handler, connSocketFree);
}

/* Records errno unless it only means "try again later". */
static void connNoteIoError(connection *conn) {
    if (errno == EAGAIN || errno == EWOULDBLOCK) return;
    conn->last_errno = errno;
    if (errno != EINTR && conn->state == CONN_STATE_CONNECTED) conn->state = CONN_STATE_ERROR;
}

static ssize_t connSocketWrite(connection *conn, const void *data, size_t len) {
    ssize_t n = write(conn->fd, data, len);
    if (n < 0) connNoteIoError(conn);
    return n;
}

static ssize_t connSocketWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    ssize_t n = writev(conn->fd, iov, iovcnt);
    if (n < 0) connNoteIoError(conn);
    return n;
}

static ssize_t connSocketRead(connection *conn, void *buf, size_t len) {
    ssize_t n = read(conn->fd, buf, len);
    if (n == 0) conn->state = CONN_STATE_CLOSED;
    else if (n < 0) connNoteIoError(conn);
    return n;
}

static int connSocketAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    if (conn->state != CONN_STATE_ACCEPTING) {
        errno = EINVAL;
        return CONN_ERR;
    }
    conn->state = CONN_STATE_CONNECTED;
    connRunCallback(conn, accept_handler);
    return CONN_OK;
}

/* Adds or removes one direction's event; the handler pointer is already set. */
static int connSocketUpdateEvent(connection *conn, int mask, ConnectionCallbackFunc func) {
    if (conn->fd == -1 || conn->el == NULL) {
        errno = EBADF;
        return func ? CONN_ERR : CONN_OK;
    }
    if (func == NULL) {
        aeDeleteFileEvent(conn->el, conn->fd, mask);
        return CONN_OK;
    }
    if (aeCreateFileEvent(conn->el, conn->fd, mask, conn->type->ae_handler, conn) == AE_ERR)
        return CONN_ERR;
    return CONN_OK;
}

static int connSocketSetWriteHandler(connection *conn, ConnectionCallbackFunc func, int barrier) {
    if (barrier) conn->flags |= CONN_FLAG_WRITE_BARRIER;
    else conn->flags &= ~CONN_FLAG_WRITE_BARRIER;
    if (func == conn->write_handler) return CONN_OK;
    conn->write_handler = func;
    /* While connecting, writability signals completion: keep the event. */
    if (func == NULL && conn->state == CONN_STATE_CONNECTING) return CONN_OK;
    if (connSocketUpdateEvent(conn, AE_WRITABLE, func) == CONN_OK) return CONN_OK;
    conn->write_handler = NULL;
    return CONN_ERR;
}

static int connSocketSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    if (func == conn->read_handler) return CONN_OK;
    conn->read_handler = func;
    if (connSocketUpdateEvent(conn, AE_READABLE, func) == CONN_OK) return CONN_OK;
    conn->read_handler = NULL;
    return CONN_ERR;
}

/* A pending non-blocking connect finished (fd became writable): record the
 * outcome and run the connect handler. Returns 0 if conn is gone. */
static int connSocketFinishConnect(connection *conn) {
    int err = anetGetError(conn->fd);
    if (err) {
        conn->last_errno = err;
        conn->state = CONN_STATE_ERROR;
    } else {
        conn->state = CONN_STATE_CONNECTED;
    }
    if (conn->write_handler == NULL) aeDeleteFileEvent(conn->el, conn->fd, AE_WRITABLE);
    ConnectionCallbackFunc handler = conn->conn_handler;
    conn->conn_handler = NULL;
    return connRunCallback(conn, handler);
}

/* The aeFileProc of both socket transports: one call per loop iteration
 * with whatever is ready; read before write unless the barrier is set. The
 * handlers are re-read after each callback, which may have changed them. */
static void connSocketEventHandler(aeEventLoop *el, int fd, void *clientData, int mask) {
    (void)el;
    (void)fd;
    connection *conn = clientData;
    if (conn->state == CONN_STATE_CONNECTING && (mask & AE_WRITABLE) && conn->conn_handler) {
        if (!connSocketFinishConnect(conn)) return;
    }
    int barrier = conn->flags & CONN_FLAG_WRITE_BARRIER;
    if (!barrier && (mask & AE_READABLE) && conn->read_handler) {
        if (!connRunCallback(conn, conn->read_handler)) return;
    }
    if ((mask & AE_WRITABLE) && conn->write_handler) {
        if (!connRunCallback(conn, conn->write_handler)) return;
    }
    if (barrier && (mask & AE_READABLE) && conn->read_handler) {
        connRunCallback(conn, conn->read_handler);
    }
}

/* Starts watching a connect that anet began (fd non-blocking). */
static int connSocketStartConnect(connection *conn, int fd, ConnectionCallbackFunc connect_handler) {
    if (fd == -1) {
        conn->last_errno = errno;
        conn->state = CONN_STATE_ERROR;
        return CONN_ERR;
    }
    conn->fd = fd;
    conn->state = CONN_STATE_CONNECTING;
    conn->conn_handler = connect_handler;
    if (conn->el == NULL ||
        aeCreateFileEvent(conn->el, fd, AE_WRITABLE, conn->type->ae_handler, conn) == AE_ERR) {
        conn->last_errno = conn->el ? errno : EINVAL;
        conn->state = CONN_STATE_ERROR;
        conn->conn_handler = NULL;
        return CONN_ERR;
    }
    return CONN_OK;
}

static int connTcpConnect(connection *conn, const char *addr, int port, const char *source_addr,
                          ConnectionCallbackFunc connect_handler) {
    int fd = anetTcpNonBlockBestEffortBindConnect(NULL, addr, port, source_addr);
    return connSocketStartConnect(conn, fd, connect_handler);
}

/* addr is the socket path; port and source_addr are ignored. */
static int connUnixConnect(connection *conn, const char *addr, int port, const char *source_addr,
                           ConnectionCallbackFunc connect_handler) {
    (void)port;
    (void)source_addr;
    int fd = anetUnixNonBlockConnect(NULL, addr);
    return connSocketStartConnect(conn, fd, connect_handler);
}

static const char *connSocketGetLastError(connection *conn) {
    return strerror(conn->last_errno);
}

static const char *connTcpGetType(connection *conn) {
    (void)conn;
    return "tcp";
}

static const char *connUnixGetType(connection *conn) {
    (void)conn;
    return "unix";
}

static int connTcpIsLocal(connection *conn) {
    return anetIsLocalPeer(conn->fd);
}

static int connUnixIsLocal(connection *conn) {
    (void)conn;
    return 1;
}

static int connSocketAddr(connection *conn, char *ip, size_t ip_len, int *port, int remote) {
    int which = remote ? FD_TO_PEER_NAME : FD_TO_SOCK_NAME;
    return anetFdToString(conn->fd, ip, ip_len, port, which) == ANET_OK ? CONN_OK : CONN_ERR;
}

const ConnectionType CT_Socket = {
    .ae_handler = connSocketEventHandler,
    .connect = connTcpConnect,
    .accept = connSocketAccept,
    .close = connSocketClose,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .read = connSocketRead,
    .set_write_handler = connSocketSetWriteHandler,
    .set_read_handler = connSocketSetReadHandler,
    .get_last_error = connSocketGetLastError,
    .get_type = connTcpGetType,
    .is_local = connTcpIsLocal,
    .addr = connSocketAddr,
};

const ConnectionType CT_Unix = {
    .ae_handler = connSocketEventHandler,
    .connect = connUnixConnect,
    .accept = connSocketAccept,
    .close = connSocketClose,
    .write = connSocketWrite,
    .writev = connSocketWritev,
    .read = connSocketRead,
    .set_write_handler = connSocketSetWriteHandler,
    .set_read_handler = connSocketSetReadHandler,
    .get_last_error = connSocketGetLastError,
    .get_type = connUnixGetType,
    .is_local = connUnixIsLocal,
    .addr = connSocketAddr,
};

/* ---- creating ------------------------------------------------------------------ */

connection *connCreateSocket(void) {
    return connNew(&CT_Socket, -1, CONN_STATE_NONE);
}

connection *connCreateUnixSocket(void) {
    return connNew(&CT_Unix, -1, CONN_STATE_NONE);
}

connection *connCreateAcceptedSocket(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    memset(&ss, 0, sizeof(ss));
    int isUnix = getsockname(fd, (struct sockaddr *)&ss, &len) == 0 && ss.ss_family == AF_UNIX;
    return connNew(isUnix ? &CT_Unix : &CT_Socket, fd, CONN_STATE_ACCEPTING);
}

/* ---- generic entry points --------------------------------------------------------- */

int connAccept(connection *conn, ConnectionCallbackFunc accept_handler) {
    return conn->type->accept(conn, accept_handler);
}

int connConnect(connection *conn, const char *addr, int port, const char *source_addr,
                ConnectionCallbackFunc connect_handler) {
    return conn->type->connect(conn, addr, port, source_addr, connect_handler);
}

void connClose(connection *conn) {
    conn->type->close(conn);
}

ssize_t connWrite(connection *conn, const void *data, size_t len) {
    return conn->type->write(conn, data, len);
}

ssize_t connWritev(connection *conn, const struct iovec *iov, int iovcnt) {
    return conn->type->writev(conn, iov, iovcnt);
}

ssize_t connRead(connection *conn, void *buf, size_t len) {
    return conn->type->read(conn, buf, len);
}

int connSetReadHandler(connection *conn, ConnectionCallbackFunc func) {
    return conn->type->set_read_handler(conn, func);
}

int connSetWriteHandler(connection *conn, ConnectionCallbackFunc func) {
    return conn->type->set_write_handler(conn, func, 0);
}

int connSetWriteHandlerWithBarrier(connection *conn, ConnectionCallbackFunc func, int barrier) {
    return conn->type->set_write_handler(conn, func, barrier);
}

int connHasReadHandler(connection *conn) {
    return conn->read_handler != NULL;
}

int connHasWriteHandler(connection *conn) {
    return conn->write_handler != NULL;
}

void connSetPrivateData(connection *conn, void *data) {
    conn->private_data = data;
}

void *connGetPrivateData(connection *conn) {
    return conn->private_data;
}

ConnectionState connGetState(connection *conn) {
    return conn->state;
}

const char *connGetLastError(connection *conn) {
    return conn->type->get_last_error(conn);
}

const char *connGetType(connection *conn) {
    return conn->type->get_type(conn);
}

int connGetFd(connection *conn) {
    return conn->fd;
}

int connIsLocal(connection *conn) {
    return conn->type->is_local(conn);
}

int connPeerToString(connection *conn, char *ip, size_t ip_len, int *port) {
    return conn->type->addr(conn, ip, ip_len, port, 1);
}

int connSockName(connection *conn, char *ip, size_t ip_len, int *port) {
    return conn->type->addr(conn, ip, ip_len, port, 0);
}

int connFormatAddr(connection *conn, char *buf, size_t buf_len, int remote) {
    char ip[ANET_ADDR_STR_LEN];
    int port = 0;
    int rc = conn->type->addr(conn, ip, sizeof(ip), &port, remote);
    anetFormatAddr(buf, buf_len, ip, port);
    return rc;
}

/* ---- socket options ------------------------------------------------------------------ */

/* TCP-level options mean nothing on a unix socket; succeed without them.
 * Every other transport (TCP, and TLS, which runs over TCP) takes them. */
static int connHasTcpOptions(connection *conn) {
    return conn->type != &CT_Unix;
}

static int connAnetResult(int rc) {
    return rc == ANET_OK ? CONN_OK : CONN_ERR;
}

int connBlock(connection *conn) {
    return connAnetResult(anetBlock(NULL, conn->fd));
}

int connNonBlock(connection *conn) {
    return connAnetResult(anetNonBlock(NULL, conn->fd));
}

int connEnableTcpNoDelay(connection *conn) {
    if (!connHasTcpOptions(conn)) return CONN_OK;
    return connAnetResult(anetEnableTcpNoDelay(NULL, conn->fd));
}

int connDisableTcpNoDelay(connection *conn) {
    if (!connHasTcpOptions(conn)) return CONN_OK;
    return connAnetResult(anetDisableTcpNoDelay(NULL, conn->fd));
}

int connKeepAlive(connection *conn, int interval) {
    if (!connHasTcpOptions(conn)) return CONN_OK;
    return connAnetResult(anetKeepAlive(NULL, conn->fd, interval));
}

int connSendTimeout(connection *conn, long long ms) {
    return connAnetResult(anetSendTimeout(NULL, conn->fd, ms));
}

int connRecvTimeout(connection *conn, long long ms) {
    return connAnetResult(anetRecvTimeout(NULL, conn->fd, ms));
}
