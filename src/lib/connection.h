/* connection.h -- the transport interface between sockets and the code that
 * speaks RESP over them.
 *
 * networking.c, replication and the tools reach a client's byte stream only
 * through conn* calls; which transport sits underneath (TCP, a unix socket,
 * TLS, later perhaps shared memory) is decided by the ConnectionType
 * vtable a connection was created with. Adding a transport means writing one
 * vtable, not touching command code. TLS is such a vtable, CT_TLS, in the
 * server's src/tls.c (it links OpenSSL, which this library layer must not).
 *
 * Design decisions:
 *  - The event loop: connInit(el) names the loop new connections register
 *    with; each connection remembers its loop, so a test or tool may switch
 *    loops between creating connections. Call connInit before creating any.
 *  - Callbacks are ConnectionCallbackFunc(conn). A callback may call
 *    connClose(conn) on its own connection: the fd is closed and its events
 *    removed at once, but the struct lives until the callback returns (a
 *    reference count held around every callback), so the layer never touches
 *    freed memory. After connClose the caller must forget the pointer.
 *  - Read/write return what read(2)/write(2) return. -1 with errno EAGAIN
 *    (no data / no room right now) leaves the state CONNECTED; any other
 *    error moves it to CONN_STATE_ERROR (connGetLastError says why); a read
 *    of 0 bytes means the peer closed, state CONN_STATE_CLOSED.
 *  - Write barrier: connSetWriteHandlerWithBarrier(conn, h, 1) makes the
 *    write handler run before the read handler when both are ready in one
 *    loop iteration (e.g. so a reply is flushed only after the data it
 *    depends on was fsynced in beforesleep, never after a read that follows).
 *  - Return codes: CONN_OK / CONN_ERR (same values as the server's C_OK /
 *    C_ERR).
 */
#ifndef REDIS_CONNECTION_H
#define REDIS_CONNECTION_H

#include <stddef.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "ae.h"

#define CONN_OK 0
#define CONN_ERR (-1)

typedef enum {
    CONN_STATE_NONE = 0,
    CONN_STATE_CONNECTING,
    CONN_STATE_ACCEPTING,
    CONN_STATE_CONNECTED,
    CONN_STATE_CLOSED,
    CONN_STATE_ERROR
} ConnectionState;

#define CONN_FLAG_CLOSE_SCHEDULED (1 << 0)   /* connClose ran inside a callback */
#define CONN_FLAG_WRITE_BARRIER (1 << 1)     /* write handler before read handler */

typedef struct connection connection;
typedef void (*ConnectionCallbackFunc)(connection *conn);

/* One transport. Every entry is required except where noted. */
typedef struct ConnectionType {
    /* The aeFileProc registered for this transport's fds. */
    void (*ae_handler)(aeEventLoop *el, int fd, void *clientData, int mask);
    int (*connect)(connection *conn, const char *addr, int port, const char *source_addr,
                   ConnectionCallbackFunc connect_handler);
    int (*accept)(connection *conn, ConnectionCallbackFunc accept_handler);
    void (*close)(connection *conn);
    ssize_t (*write)(connection *conn, const void *data, size_t len);
    ssize_t (*writev)(connection *conn, const struct iovec *iov, int iovcnt);
    ssize_t (*read)(connection *conn, void *buf, size_t len);
    int (*set_write_handler)(connection *conn, ConnectionCallbackFunc handler, int barrier);
    int (*set_read_handler)(connection *conn, ConnectionCallbackFunc handler);
    const char *(*get_last_error)(connection *conn);
    const char *(*get_type)(connection *conn);     /* "tcp", "unix", ... */
    int (*is_local)(connection *conn);
    /* ip/port of the peer (remote=1) or of our end, as anetFdToString. */
    int (*addr)(connection *conn, char *ip, size_t ip_len, int *port, int remote);
} ConnectionType;

struct connection {
    const ConnectionType *type;
    aeEventLoop *el;
    ConnectionState state;
    short flags;
    short refs;              /* callbacks in progress on this connection */
    int last_errno;
    int fd;
    void *private_data;
    ConnectionCallbackFunc conn_handler;    /* pending connect/accept */
    ConnectionCallbackFunc write_handler;
    ConnectionCallbackFunc read_handler;
};

extern const ConnectionType CT_Socket;     /* TCP */
extern const ConnectionType CT_Unix;       /* unix domain sockets */

/* The event loop new connections register their events with. */
void connInit(aeEventLoop *el);

/* ---- creating --------------------------------------------------------------- */
/* An unconnected TCP connection, for connConnect. */
connection *connCreateSocket(void);
/* An unconnected unix-socket connection; connConnect's addr is the path. */
connection *connCreateUnixSocket(void);
/* Wraps an fd from anetTcpAccept/anetUnixAccept, state ACCEPTING; the
 * transport (TCP or unix) is detected from the socket's family. */
connection *connCreateAcceptedSocket(int fd);
/* Completes the accept (for sockets: at once) and calls accept_handler,
 * which then owns conn and may close it. CONN_ERR, with nothing called, if
 * conn is not in the ACCEPTING state. */
int connAccept(connection *conn, ConnectionCallbackFunc accept_handler);
/* Starts a non-blocking TCP connect; connect_handler runs when it completes
 * or fails (check connGetState). CONN_ERR if it failed at once. */
int connConnect(connection *conn, const char *addr, int port, const char *source_addr,
                ConnectionCallbackFunc connect_handler);
void connClose(connection *conn);

/* ---- I/O ------------------------------------------------------------------------ */
ssize_t connWrite(connection *conn, const void *data, size_t len);
ssize_t connWritev(connection *conn, const struct iovec *iov, int iovcnt);
ssize_t connRead(connection *conn, void *buf, size_t len);

/* NULL removes the handler. CONN_ERR (errno ERANGE) when the fd does not fit
 * the event loop's set size, as aeCreateFileEvent. */
int connSetReadHandler(connection *conn, ConnectionCallbackFunc func);
int connSetWriteHandler(connection *conn, ConnectionCallbackFunc func);
int connSetWriteHandlerWithBarrier(connection *conn, ConnectionCallbackFunc func, int barrier);
int connHasReadHandler(connection *conn);
int connHasWriteHandler(connection *conn);

/* ---- state and identity ---------------------------------------------------------- */
void connSetPrivateData(connection *conn, void *data);
void *connGetPrivateData(connection *conn);
ConnectionState connGetState(connection *conn);
const char *connGetLastError(connection *conn);
const char *connGetType(connection *conn);
/* The OS fd, for logging, INFO and CLIENT LIST only; never do I/O on it. */
int connGetFd(connection *conn);
/* 1 for a unix socket or a loopback peer (protected mode). */
int connIsLocal(connection *conn);
/* Peer / own address as anetFdToString; CONN_ERR leaves "?" and port 0. */
int connPeerToString(connection *conn, char *ip, size_t ip_len, int *port);
int connSockName(connection *conn, char *ip, size_t ip_len, int *port);
/* "ip:port" / "[ip6]:port" / "/path:0" of the peer (remote=1) or our end. */
int connFormatAddr(connection *conn, char *buf, size_t buf_len, int remote);

/* ---- for transports: the close-inside-a-callback protocol ---------------------- */
/* Called by a transport's close once its fd is closed: frees conn with
 * free_now at once, or, while a callback holds a reference, marks it closed
 * (CONN_FLAG_CLOSE_SCHEDULED) so the last callback to return frees it. */
void connReleaseClosed(connection *conn, void (*free_now)(connection *));
/* Runs handler (if any) holding a reference. Returns 0 when conn was closed
 * meanwhile -- then freed with free_now unless an outer callback still runs
 * -- and the caller must not touch conn; 1 otherwise. */
int connRunHeld(connection *conn, ConnectionCallbackFunc handler, void (*free_now)(connection *));

/* ---- socket options (no-ops returning CONN_OK where they do not apply) ------- */
int connBlock(connection *conn);
int connNonBlock(connection *conn);
int connEnableTcpNoDelay(connection *conn);
int connDisableTcpNoDelay(connection *conn);
int connKeepAlive(connection *conn, int interval);
int connSendTimeout(connection *conn, long long ms);
int connRecvTimeout(connection *conn, long long ms);

#endif /* REDIS_CONNECTION_H */
