/* test_connection.c -- unit tests for the connection layer (src/lib/connection.c)
 * driven through a real event loop: accept, connect, read/write, states,
 * write barrier, and closing connections from inside their own callbacks
 * (run under ASan this also proves no freed connection is touched).
 *
 * Loopback TCP and a unix socket in a private temporary directory only.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "ae.h"
#include "anet.h"
#include "connection.h"
#include "test.h"

#define DEADLINE_US (20ull * 1000 * 1000)

static aeEventLoop *el;
static char tmpdir[64];

/* Iterates the loop until *flag is set (or the deadline passes). */
static void spin_until(const int *flag) {
    uint64_t start = aeMonotonicUs();
    while (!*flag && aeMonotonicUs() - start < DEADLINE_US)
        aeProcessEvents(el, AE_ALL_EVENTS | AE_DONT_WAIT);
    CHECK(*flag);
}

/* A connected (server-side accepted, client-side plain fd) TCP pair. */
typedef struct tcp_pair {
    int listener;
    int client_fd;
    connection *server_conn;   /* ACCEPTING until connAccept */
} tcp_pair;

static void open_tcp_pair(tcp_pair *p) {
    char err[ANET_ERR_LEN];
    p->listener = anetTcpServer(err, 0, "127.0.0.1", 16);
    CHECK(p->listener >= 0);
    int port;
    anetFdToString(p->listener, NULL, 0, &port, FD_TO_SOCK_NAME);
    p->client_fd = anetTcpConnect(err, "127.0.0.1", port);
    CHECK(p->client_fd >= 0);
    int fd = anetTcpAccept(err, p->listener, NULL, 0, NULL);
    CHECK(fd >= 0);
    p->server_conn = connCreateAcceptedSocket(fd);
}

static void close_tcp_pair(tcp_pair *p) {
    if (p->client_fd >= 0) close(p->client_fd);
    close(p->listener);
}

/* ---- accept, identity, private data ------------------------------------- */

static int accepted_calls;
static void on_accepted(connection *conn) {
    accepted_calls++;
    CHECK_EQ_INT(connGetState(conn), CONN_STATE_CONNECTED);
}

static void test_accept_and_identity(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    CHECK_EQ_INT(connGetState(c), CONN_STATE_ACCEPTING);
    CHECK_EQ_STR(connGetType(c), "tcp");
    accepted_calls = 0;
    CHECK_EQ_INT(connAccept(c, on_accepted), CONN_OK);
    CHECK_EQ_INT(accepted_calls, 1);
    errno = 0;
    CHECK_EQ_INT(connAccept(c, on_accepted), CONN_ERR);   /* not ACCEPTING any more */
    CHECK_EQ_INT(accepted_calls, 1);

    CHECK_EQ_INT(connIsLocal(c), 1);
    char ip[ANET_ADDR_STR_LEN];
    int port = 0;
    CHECK_EQ_INT(connPeerToString(c, ip, sizeof(ip), &port), CONN_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    int client_port = 0;
    anetFdToString(p.client_fd, NULL, 0, &client_port, FD_TO_SOCK_NAME);
    CHECK_EQ_INT(port, client_port);
    CHECK_EQ_INT(connSockName(c, ip, sizeof(ip), &port), CONN_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    char addr[ANET_PEER_STR_LEN], expect[ANET_PEER_STR_LEN];
    connFormatAddr(c, addr, sizeof(addr), 1);
    snprintf(expect, sizeof(expect), "127.0.0.1:%d", client_port);
    CHECK_EQ_STR(addr, expect);
    CHECK(connGetFd(c) >= 0);

    int tag;
    CHECK(connGetPrivateData(c) == NULL);
    connSetPrivateData(c, &tag);
    CHECK(connGetPrivateData(c) == &tag);

    CHECK_EQ_INT(connEnableTcpNoDelay(c), CONN_OK);
    CHECK_EQ_INT(connDisableTcpNoDelay(c), CONN_OK);
    CHECK_EQ_INT(connKeepAlive(c, 60), CONN_OK);
    CHECK_EQ_INT(connSendTimeout(c, 100), CONN_OK);
    CHECK_EQ_INT(connRecvTimeout(c, 100), CONN_OK);
    CHECK_EQ_INT(connBlock(c), CONN_OK);
    CHECK(!(fcntl(connGetFd(c), F_GETFL) & O_NONBLOCK));
    CHECK_EQ_INT(connNonBlock(c), CONN_OK);
    CHECK(fcntl(connGetFd(c), F_GETFL) & O_NONBLOCK);
    connClose(c);   /* outside any callback: freed at once */
    close_tcp_pair(&p);
}

static void close_in_accept(connection *conn) {
    accepted_calls++;
    connClose(conn);
}

static void test_close_inside_accept_handler(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    accepted_calls = 0;
    CHECK_EQ_INT(connAccept(p.server_conn, close_in_accept), CONN_OK);
    CHECK_EQ_INT(accepted_calls, 1);
    /* The peer sees the close. */
    char buf[4];
    CHECK(read(p.client_fd, buf, sizeof(buf)) == 0);
    close_tcp_pair(&p);
}

/* ---- read / write / states ------------------------------------------------- */

static void test_read_write_states(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    connAccept(c, NULL);
    char buf[32];
    errno = 0;
    CHECK_EQ_INT(connRead(c, buf, sizeof(buf)), -1);   /* nothing yet */
    CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
    CHECK_EQ_INT(connGetState(c), CONN_STATE_CONNECTED);   /* EAGAIN is not an error */

    CHECK(write(p.client_fd, "abc", 3) == 3);
    CHECK(aeWait(connGetFd(c), AE_READABLE, 5000) & AE_READABLE);
    CHECK_EQ_INT(connRead(c, buf, sizeof(buf)), 3);
    CHECK_EQ_MEM(buf, "abc", 3);

    CHECK_EQ_INT(connWrite(c, "xyz", 3), 3);
    struct iovec iov[3] = { { "one ", 4 }, { "two ", 4 }, { "three", 5 } };
    CHECK_EQ_INT(connWritev(c, iov, 3), 13);
    size_t got = 0;
    while (got < 16) {
        ssize_t n = read(p.client_fd, buf + got, sizeof(buf) - got);
        if (n <= 0) break;
        got += (size_t)n;
    }
    CHECK_EQ_INT(got, 16);
    CHECK_EQ_MEM(buf, "xyzone two three", 16);

    /* Peer closes: read returns 0, state CLOSED. */
    close(p.client_fd);
    p.client_fd = -1;
    CHECK(aeWait(connGetFd(c), AE_READABLE, 5000) & AE_READABLE);
    CHECK_EQ_INT(connRead(c, buf, sizeof(buf)), 0);
    CHECK_EQ_INT(connGetState(c), CONN_STATE_CLOSED);
    connClose(c);
    close_tcp_pair(&p);
}

static void test_write_error_sets_error_state(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    connAccept(c, NULL);
    /* Unread data at close makes the peer reset the connection. */
    CHECK(write(c->fd, "x", 1) == 1);
    usleep(1000);
    close(p.client_fd);
    p.client_fd = -1;
    ssize_t n = 0;
    char chunk[4096];
    memset(chunk, 'w', sizeof(chunk));
    uint64_t start = aeMonotonicUs();
    while (aeMonotonicUs() - start < DEADLINE_US) {
        n = connWrite(c, chunk, sizeof(chunk));
        if (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK) break;
        usleep(1000);
    }
    CHECK(n < 0);
    CHECK_EQ_INT(connGetState(c), CONN_STATE_ERROR);
    CHECK(c->last_errno == EPIPE || c->last_errno == ECONNRESET);
    CHECK_EQ_STR(connGetLastError(c), strerror(c->last_errno));
    connClose(c);
    close_tcp_pair(&p);
}

/* ---- handlers through the loop ---------------------------------------------- */

static char order[16];
static int order_len;
static void order_add(char ch) {
    if (order_len < (int)sizeof(order) - 1) order[order_len++] = ch;
    order[order_len] = '\0';
}

static void reader(connection *conn) {
    char buf[64];
    while (connRead(conn, buf, sizeof(buf)) > 0) { /* drain */ }
    order_add('R');
}

static void writer(connection *conn) {
    order_add('W');
    connSetWriteHandler(conn, NULL);   /* one shot */
}

static void test_handlers_and_barrier(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    connAccept(c, NULL);
    order_len = 0;
    order[0] = '\0';
    CHECK(write(p.client_fd, "1", 1) == 1);
    CHECK(aeWait(connGetFd(c), AE_READABLE, 5000) & AE_READABLE);
    CHECK_EQ_INT(connSetReadHandler(c, reader), CONN_OK);
    CHECK_EQ_INT(connSetWriteHandler(c, writer), CONN_OK);
    CHECK(connHasReadHandler(c) && connHasWriteHandler(c));
    CHECK_EQ_INT(aeGetFileEvents(el, connGetFd(c)) & (AE_READABLE | AE_WRITABLE),
                 AE_READABLE | AE_WRITABLE);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(order, "RW");
    CHECK(!connHasWriteHandler(c));
    CHECK_EQ_INT(aeGetFileEvents(el, connGetFd(c)), AE_READABLE);

    order_len = 0;
    CHECK(write(p.client_fd, "2", 1) == 1);
    CHECK(aeWait(connGetFd(c), AE_READABLE, 5000) & AE_READABLE);
    CHECK_EQ_INT(connSetWriteHandlerWithBarrier(c, writer, 1), CONN_OK);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_STR(order, "WR");

    /* Setting the same handler again is a no-op; NULL removes it. */
    CHECK_EQ_INT(connSetReadHandler(c, reader), CONN_OK);
    CHECK_EQ_INT(connSetReadHandler(c, NULL), CONN_OK);
    CHECK(!connHasReadHandler(c));
    CHECK_EQ_INT(aeGetFileEvents(el, connGetFd(c)), AE_NONE);
    connClose(c);
    close_tcp_pair(&p);
}

static int closer_calls, writer_after_close_calls;
static void reader_that_closes(connection *conn) {
    char buf[16];
    closer_calls++;
    CHECK(connRead(conn, buf, sizeof(buf)) == 3);   /* read first: a clean FIN, not a reset */
    connClose(conn);
    /* Still safe to look at: the struct lives until the callback returns. */
    CHECK_EQ_INT(connGetState(conn), CONN_STATE_CLOSED);
    CHECK_EQ_INT(connGetFd(conn), -1);
}
static void writer_must_not_run(connection *conn) {
    (void)conn;
    writer_after_close_calls++;
}

static void test_close_inside_read_handler(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    connAccept(c, NULL);
    closer_calls = writer_after_close_calls = 0;
    int fd = connGetFd(c);
    CHECK(write(p.client_fd, "bye", 3) == 3);
    CHECK(aeWait(fd, AE_READABLE, 5000) & AE_READABLE);
    connSetReadHandler(c, reader_that_closes);
    connSetWriteHandler(c, writer_must_not_run);   /* also ready this iteration */
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_INT(closer_calls, 1);
    CHECK_EQ_INT(writer_after_close_calls, 0);
    CHECK_EQ_INT(aeGetFileEvents(el, fd), AE_NONE);
    char buf[4];
    CHECK(read(p.client_fd, buf, sizeof(buf)) == 0);   /* the peer sees EOF */
    close_tcp_pair(&p);
}

static void writer_that_closes(connection *conn) {
    closer_calls++;
    connClose(conn);
}
static void reader_must_not_run(connection *conn) {
    (void)conn;
    writer_after_close_calls++;
}

static void test_close_inside_write_handler_with_barrier(void) {
    tcp_pair p;
    open_tcp_pair(&p);
    connection *c = p.server_conn;
    connAccept(c, NULL);
    closer_calls = writer_after_close_calls = 0;
    CHECK(write(p.client_fd, "x", 1) == 1);
    CHECK(aeWait(connGetFd(c), AE_READABLE, 5000) & AE_READABLE);
    connSetReadHandler(c, reader_must_not_run);
    connSetWriteHandlerWithBarrier(c, writer_that_closes, 1);
    aeProcessEvents(el, AE_FILE_EVENTS);
    CHECK_EQ_INT(closer_calls, 1);
    CHECK_EQ_INT(writer_after_close_calls, 0);
    close_tcp_pair(&p);
}

/* ---- connecting, echo through the loop ------------------------------------------ */

static int echo_done, server_saw_eof, connect_state, connect_calls;
static char echo_reply[32];
static size_t echo_reply_len;

static void server_echo(connection *conn) {
    char buf[64];
    ssize_t n;
    while ((n = connRead(conn, buf, sizeof(buf))) > 0) connWrite(conn, buf, (size_t)n);
    if (n == 0 || connGetState(conn) != CONN_STATE_CONNECTED) {
        server_saw_eof = 1;
        connClose(conn);   /* from inside its own read handler */
    }
}

static void server_accept_handler(aeEventLoop *loop, int fd, void *data, int mask) {
    (void)loop;
    (void)data;
    (void)mask;
    char err[ANET_ERR_LEN];
    int cfd = anetTcpAccept(err, fd, NULL, 0, NULL);
    if (cfd == ANET_ERR) return;
    connection *conn = connCreateAcceptedSocket(cfd);
    connAccept(conn, NULL);
    connSetReadHandler(conn, server_echo);
}

static void client_reader(connection *conn) {
    ssize_t n = connRead(conn, echo_reply + echo_reply_len, sizeof(echo_reply) - 1 - echo_reply_len);
    if (n > 0) echo_reply_len += (size_t)n;
    if (echo_reply_len >= 5) {
        echo_done = 1;
        connClose(conn);
    }
}

static void client_connected(connection *conn) {
    connect_calls++;
    connect_state = connGetState(conn);
    if (connect_state != CONN_STATE_CONNECTED) {
        connClose(conn);
        return;
    }
    CHECK_EQ_INT(connWrite(conn, "hello", 5), 5);
    connSetReadHandler(conn, client_reader);
}

static void run_echo(connection *client, const char *addr, int port) {
    echo_done = server_saw_eof = connect_calls = 0;
    connect_state = -1;
    echo_reply_len = 0;
    memset(echo_reply, 0, sizeof(echo_reply));
    CHECK_EQ_INT(connConnect(client, addr, port, NULL, client_connected), CONN_OK);
    CHECK_EQ_INT(connGetState(client), CONN_STATE_CONNECTING);
    spin_until(&echo_done);
    spin_until(&server_saw_eof);
    CHECK_EQ_INT(connect_calls, 1);
    CHECK_EQ_INT(connect_state, CONN_STATE_CONNECTED);
    CHECK_EQ_STR(echo_reply, "hello");
}

static void test_tcp_echo_through_the_loop(void) {
    char err[ANET_ERR_LEN];
    int listener = anetTcpServer(err, 0, "127.0.0.1", 16);
    anetNonBlock(err, listener);
    int port;
    anetFdToString(listener, NULL, 0, &port, FD_TO_SOCK_NAME);
    CHECK_EQ_INT(aeCreateFileEvent(el, listener, AE_READABLE, server_accept_handler, NULL), AE_OK);
    run_echo(connCreateSocket(), "127.0.0.1", port);
    aeDeleteFileEvent(el, listener, AE_READABLE);
    close(listener);
}

static int unix_accepted;
static void unix_accept_handler(aeEventLoop *loop, int fd, void *data, int mask) {
    (void)loop;
    (void)data;
    (void)mask;
    char err[ANET_ERR_LEN];
    int cfd = anetUnixAccept(err, fd);
    if (cfd == ANET_ERR) return;
    connection *conn = connCreateAcceptedSocket(cfd);
    CHECK_EQ_STR(connGetType(conn), "unix");
    CHECK_EQ_INT(connIsLocal(conn), 1);
    char addr[ANET_PEER_STR_LEN];
    connFormatAddr(conn, addr, sizeof(addr), 1);
    CHECK(strstr(addr, "/srv.sock:0") != NULL);
    /* TCP-only options succeed as no-ops on a unix connection. */
    CHECK_EQ_INT(connEnableTcpNoDelay(conn), CONN_OK);
    CHECK_EQ_INT(connKeepAlive(conn, 10), CONN_OK);
    unix_accepted++;
    connAccept(conn, NULL);
    connSetReadHandler(conn, server_echo);
}

static void test_unix_echo_through_the_loop(void) {
    char err[ANET_ERR_LEN], path[128];
    snprintf(path, sizeof(path), "%s/srv.sock", tmpdir);
    int listener = anetUnixServer(err, path, 0700, 16);
    CHECK(listener >= 0);
    anetNonBlock(err, listener);
    unix_accepted = 0;
    aeCreateFileEvent(el, listener, AE_READABLE, unix_accept_handler, NULL);
    connection *client = connCreateUnixSocket();
    CHECK_EQ_STR(connGetType(client), "unix");
    run_echo(client, path, 0);
    CHECK_EQ_INT(unix_accepted, 1);
    aeDeleteFileEvent(el, listener, AE_READABLE);
    close(listener);
    unlink(path);
}

static void test_connect_refused(void) {
    char err[ANET_ERR_LEN];
    int listener = anetTcpServer(err, 0, "127.0.0.1", 16);
    int port;
    anetFdToString(listener, NULL, 0, &port, FD_TO_SOCK_NAME);
    close(listener);   /* nobody listens there now */
    connection *c = connCreateSocket();
    connect_calls = 0;
    connect_state = -1;
    if (connConnect(c, "127.0.0.1", port, NULL, client_connected) == CONN_ERR) {
        /* Refused at once: reported synchronously, handler never called. */
        CHECK_EQ_INT(connGetState(c), CONN_STATE_ERROR);
        CHECK_EQ_STR(connGetLastError(c), strerror(ECONNREFUSED));
        connClose(c);
    } else {
        spin_until(&connect_calls);
        CHECK_EQ_INT(connect_state, CONN_STATE_ERROR);   /* handler closed it */
    }
    CHECK(connect_calls <= 1);
}

static void test_fd_beyond_set_size(void) {
    int sp[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
    int high = aeGetSetSize(el) + 5;
    CHECK(dup2(sp[0], high) == high);
    connection *c = connCreateAcceptedSocket(high);
    connAccept(c, NULL);
    errno = 0;
    CHECK_EQ_INT(connSetReadHandler(c, reader), CONN_ERR);
    CHECK_EQ_INT(errno, ERANGE);
    CHECK(!connHasReadHandler(c));   /* not left half-installed */
    CHECK_EQ_INT(connSetWriteHandler(c, writer), CONN_ERR);
    CHECK(!connHasWriteHandler(c));
    connClose(c);   /* closes `high` */
    CHECK(fcntl(high, F_GETFD) == -1);
    close(sp[0]);
    close(sp[1]);
}

static void test_closed_connection_handlers(void) {
    connection *c = connCreateSocket();   /* never connected: no fd */
    CHECK_EQ_INT(connGetFd(c), -1);
    CHECK_EQ_INT(connGetState(c), CONN_STATE_NONE);
    CHECK_EQ_INT(connSetReadHandler(c, reader), CONN_ERR);
    CHECK_EQ_INT(connSetReadHandler(c, NULL), CONN_OK);
    char buf[4];
    CHECK_EQ_INT(connRead(c, buf, sizeof(buf)), -1);
    char addr[ANET_PEER_STR_LEN];
    CHECK_EQ_INT(connFormatAddr(c, addr, sizeof(addr), 1), CONN_ERR);
    CHECK_EQ_STR(addr, "?:0");
    connClose(c);
}

static void setup(void) {
    signal(SIGPIPE, SIG_IGN);
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-conn-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
    el = aeCreateEventLoop(64);
    connInit(el);
}

static void teardown(void) {
    aeDeleteEventLoop(el);
    rmdir(tmpdir);
}

TEST_MAIN(
    setup();
    RUN(test_accept_and_identity);
    RUN(test_close_inside_accept_handler);
    RUN(test_read_write_states);
    RUN(test_write_error_sets_error_state);
    RUN(test_handlers_and_barrier);
    RUN(test_close_inside_read_handler);
    RUN(test_close_inside_write_handler_with_barrier);
    RUN(test_tcp_echo_through_the_loop);
    RUN(test_unix_echo_through_the_loop);
    RUN(test_connect_refused);
    RUN(test_fd_beyond_set_size);
    RUN(test_closed_connection_handlers);
    teardown();
)
