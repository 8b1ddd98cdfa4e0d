/* connection_shm.c -- the shared-memory transport behind the connection
 * interface: a client's RESP bytes come through the request ring and its
 * replies go out through the reply ring (shmring.h), while the unix socket
 * it upgraded from stays open as the liveness channel.
 *
 * Two fds per connection are in the event loop:
 *  - our end of the wake-up socketpair (shmringWakePair; the client got the
 *    other end), which the client signals when it published requests
 *    while we slept, or freed room we were waiting for; we signal the
 *    client through it too (a datagram sent on our end arrives on its);
 *  - the socket: readable means the client closed it (EOF: the connection
 *    ends) or broke the protocol (bytes after the upgrade).
 *
 * NOTHING THE CLIENT DOES TO ITS DESCRIPTORS CAN BLOCK US: our end of the
 * socketpair is never passed, and we only send/recv on it with
 * MSG_DONTWAIT (shmring.c), so neither the flags of any descriptor (a
 * passed descriptor shares O_NONBLOCK with the sender's copy: with the
 * eventfds of the first design a client could clear it, fill or empty the
 * counter and hang us in write() or read()) nor a queue the client keeps
 * full or empty matters. A send that finds the client's queue full means
 * a wake-up is pending; a drain takes at most SHMRING_DRAIN_MAX datagrams
 * per call, the rest keep the end readable and bring us back.
 *
 * "Readable" is level-triggered, as for a socket: read() drains the
 * wake-up end only when it finds the ring empty, and then arms the ring's
 * sleep flag and looks once more (shmringConsumerPrepareSleep). So while
 * requests are waiting the handler keeps being called, and once the ring
 * is empty the client is asked to signal.
 *
 * SELF-WAKES: a handler installed later must run when there is something
 * to do (data already waiting, or room for a pending write), like a socket
 * that is reported ready at once. No descriptor carries that: the
 * connection goes on the wake list (shmWakeSelf), whose handlers
 * connShmRunWakes runs -- in beforeSleep's last step (connShmSpin, which
 * then keeps the loop from sleeping while the list is not empty) and in
 * the passes that serve clients during a load or a busy script.
 *
 * Nothing the client writes is trusted: every index is checked (shmring.c);
 * a violation is reported once (connShmSetViolationReporter: the server
 * logs it), moves the connection to CONN_STATE_ERROR and the next read or
 * write fails, so networking.c closes the client as for a socket error.
 * The segment is sealed against resizing (src/shm.c refuses any other:
 * a truncated segment would SIGBUS us); the size check on every event
 * (shmringSegmentIntact, free for a sealed one) is only a second line.
 *
 * Spinning (connShmSpin, called by the server as the last step before its
 * event loop sleeps): a client doing one request at a time sends its next
 * request a few microseconds after it got the reply, so instead of sleeping
 * and being woken through its wake-up socket the server may poll, for a bounded
 * and adaptive time, the request rings of the connections that read
 * requests since the last spin ("hot"; an idle connection is never polled,
 * so idle clients cost nothing). While polling, their sleep flags are down
 * (the client publishes without a system call); a ring that gets a request
 * is served at once by its event handler, and the others announce sleep
 * again (flag, fence, last look) before the loop sleeps. The served ones
 * stay awake into the next pass and are re-examined by the next spin,
 * which the loop reaches without sleeping (connShmSpin returned 1): no
 * connection ever sleeps with its flag down. The budget doubles (up to the
 * cap) when a spin catches a request and halves when it does not; at 0 a
 * spin at the full cap is tried once every SHM_SPIN_PROBE_EVERY chances,
 * so a client that speeds up is caught again. The cap is the caller's
 * (shm-spin-us, 0 on a single-CPU machine); the spin's length bounds the
 * delay it adds to every other client.
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
    int wake_fd;           /* our end of the wake-up socketpair (never passed) */
    int peer_closed;       /* EOF seen on the socket */
    int read_called;       /* the read handler called read() this round */
    const char *violation; /* the protocol violation, once there was one */
    int hot;               /* on the spin list (hot[]) */
    int spin_ready;        /* the current spin found requests (or a violation) */
    int wake_pending;      /* on the wake list */
    struct shmConnection *wake_prev, *wake_next;
} shmConnection;

static int shm_connections;
static long long shm_connections_total, shm_violations;
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

void connShmSegmentPassed(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    if (!connIsShm(conn) || !sc->seg.sealed || sc->seg.fd == -1) return;
    close(sc->seg.fd); /* the mapping stays valid; shmringSegmentIntact needs no fd when sealed */
    sc->seg.fd = -1;
}

static void shmViolation(shmConnection *sc, const char *why) {
    if (sc->violation) return;
    sc->violation = why;
    sc->c.last_errno = EPROTO;
    if (sc->c.state == CONN_STATE_CONNECTED) sc->c.state = CONN_STATE_ERROR;
    shm_violations++;
    if (violation_reporter) violation_reporter(&sc->c, why);
}

/* ---- the spin list ---------------------------------------------------------------- */

/* Connections the next spin polls: read requests since the last spin, or
 * served by it (their flag is still down). Bounded: past SHM_SPIN_MAX_HOT
 * a connection just is not spun for. */
#define SHM_SPIN_MAX_HOT 64
#define SHM_SPIN_PROBE_EVERY 16

static shmConnection *hot[SHM_SPIN_MAX_HOT];
static int hot_count;

static int shmMarkHot(shmConnection *sc) {
    if (sc->hot) return 1;
    if (hot_count == SHM_SPIN_MAX_HOT) return 0;
    hot[hot_count++] = sc;
    sc->hot = 1;
    return 1;
}

static void shmForgetHot(shmConnection *sc) {
    if (!sc->hot) return;
    for (int i = 0; i < hot_count; i++) {
        if (hot[i] != sc) continue;
        hot[i] = hot[--hot_count];
        break;
    }
    sc->hot = 0;
}

/* ---- the wake list ------------------------------------------------------------- */

/* Connections whose handler must run without a signal from the client
 * (a doubly-linked list through the connections: no bound, no allocation). */
static shmConnection *wake_head, *wake_tail;
static int wake_count;

static void shmWakeSelf(shmConnection *sc) {
    if (sc->wake_pending || sc->c.fd == -1) return;
    sc->wake_pending = 1;
    sc->wake_next = NULL;
    sc->wake_prev = wake_tail;
    if (wake_tail) wake_tail->wake_next = sc;
    else wake_head = sc;
    wake_tail = sc;
    wake_count++;
}

static void shmForgetWake(shmConnection *sc) {
    if (!sc->wake_pending) return;
    if (sc->wake_prev) sc->wake_prev->wake_next = sc->wake_next;
    else wake_head = sc->wake_next;
    if (sc->wake_next) sc->wake_next->wake_prev = sc->wake_prev;
    else wake_tail = sc->wake_prev;
    sc->wake_pending = 0;
    sc->wake_prev = sc->wake_next = NULL;
    wake_count--;
}

/* ---- closing ------------------------------------------------------------------ */

static void shmReleaseResources(shmConnection *sc) {
    if (sc->c.fd == -1) return;
    if (sc->c.el) {
        aeDeleteFileEvent(sc->c.el, sc->c.fd, AE_READABLE | AE_WRITABLE);
        aeDeleteFileEvent(sc->c.el, sc->wake_fd, AE_READABLE | AE_WRITABLE);
    }
    shmForgetHot(sc);
    shmForgetWake(sc);
    close(sc->c.fd);
    close(sc->wake_fd);
    shmringSegmentRelease(&sc->seg);
    sc->c.fd = -1;
    shm_connections--;
}

static void connShmFree(connection *conn) {
    zfree(conn);
}

static void connShmClose(connection *conn) {
    shmConnection *sc = (shmConnection *)conn;
    shmReleaseResources(sc);
    connReleaseClosed(conn, connShmFree);
}

/* As connection.c's: 0 when conn was closed meanwhile. */
static int shmRunCallback(connection *conn, ConnectionCallbackFunc handler) {
    return connRunHeld(conn, handler, connShmFree);
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
        shmringDrain(sc->wake_fd);
        int ready = shmringConsumerPrepareSleep(&sc->requests);
        n = ready > 0 ? shmringRead(&sc->requests, buf, len) : ready;
    }
    if (n < 0) {
        shmViolation(sc, sc->requests.violation);
        return shmFail(sc);
    }
    if (n > 0) {
        if (shmringTakeWakeRequest(&sc->requests)) shmringSignal(sc->wake_fd);
        shmMarkHot(sc);
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
    if (n > 0 && shmringTakeWakeRequest(&sc->replies)) shmringSignal(sc->wake_fd);
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
    if (room != 0) shmWakeSelf(sc);
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
    if (!sc->read_called && conn->fd != -1) shmringDrain(sc->wake_fd);
    shmKeepWriteHandlerLive(sc);
}

/* The wake-up end is watched while any handler is set, the socket while a
 * read handler is (its EOF is reported through read()). */
static int shmUpdateEvents(shmConnection *sc) {
    connection *conn = &sc->c;
    if (conn->fd == -1) {
        errno = EBADF;
        return CONN_ERR;
    }
    if (conn->read_handler || conn->write_handler) {
        if (aeCreateFileEvent(conn->el, sc->wake_fd, AE_READABLE, connShmEventHandler, sc) == AE_ERR)
            return CONN_ERR;
    } else {
        aeDeleteFileEvent(conn->el, sc->wake_fd, AE_READABLE);
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
    if (func && shmringReadable(&sc->requests) != 0) shmWakeSelf(sc);
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
    if (func) shmWakeSelf(sc); /* run it next round if there is room */
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

connection *connCreateShm(aeEventLoop *el, int sockfd, shmringSegment *seg, int wake_fd) {
    shmConnection *sc = zcalloc(sizeof(*sc));
    sc->c.type = &CT_Shm;
    sc->c.el = el;
    sc->c.fd = sockfd;
    sc->c.state = CONN_STATE_CONNECTED;
    sc->seg = *seg;
    sc->wake_fd = wake_fd;
    shmringOpen(&sc->requests, &sc->seg, SHMRING_REQUESTS, SHMRING_CONSUMER);
    shmringOpen(&sc->replies, &sc->seg, SHMRING_REPLIES, SHMRING_PRODUCER);
    /* The socket is watched from the start, so a client that dies before
     * any handler is set is still noticed once one is. */
    if (aeCreateFileEvent(el, wake_fd, AE_READABLE, connShmEventHandler, sc) == AE_ERR) {
        zfree(sc);
        return NULL;
    }
    aeDeleteFileEvent(el, wake_fd, AE_READABLE);
    /* Asleep from the start: the first request must signal us. */
    shmringConsumerPrepareSleep(&sc->requests);
    shm_connections++;
    shm_connections_total++;
    return &sc->c;
}

/* ---- spinning ------------------------------------------------------------------------ */

static struct {
    unsigned budget_us;  /* the next spin's length; 0: only probes */
    unsigned chances;    /* spins skipped at budget 0, for the probe */
    long long hits, misses, time_us;
} spin = {.budget_us = ~0u};

/* This spin's length in microseconds (0: don't spin). */
static unsigned shmSpinLength(unsigned cap_us) {
    if (spin.budget_us > cap_us) spin.budget_us = cap_us;
    if (spin.budget_us > 0) return spin.budget_us;
    if (cap_us == 0 || ++spin.chances < SHM_SPIN_PROBE_EVERY) return 0;
    spin.chances = 0;
    return cap_us;
}

static void shmSpinOutcome(int caught, unsigned length_us, unsigned cap_us) {
    if (caught) {
        spin.hits++;
        spin.budget_us = length_us * 2 > cap_us ? cap_us : length_us * 2;
        if (spin.budget_us == 0) spin.budget_us = cap_us ? 1 : 0;
    } else {
        spin.misses++;
        spin.budget_us /= 2; /* a probe's miss leaves it at 0 */
    }
}

/* Polls the rings of list[0..n) for up to length_us; marks spin_ready on
 * those with requests (or a broken index: the handler reports it). */
static int shmPollRings(shmConnection **list, int n, unsigned length_us) {
    uint64_t start = aeMonotonicUs();
    int found = 0, rounds = n >= 8 ? 1 : 16; /* the clock is read about every 100 ns */
    for (;;) {
        for (int k = 0; k < rounds; k++) {
            for (int i = 0; i < n; i++) {
                if (shmringReadable(&list[i]->requests) == 0) continue;
                list[i]->spin_ready = 1;
                found = 1;
            }
            if (found) break;
            shmringCpuRelax();
        }
        uint64_t elapsed = aeMonotonicUs() - start;
        if (found || elapsed >= length_us) {
            spin.time_us += (long long)elapsed;
            return found;
        }
    }
}

/* A connection that did not get a request announces sleep again; the last
 * look may still find one. */
static void shmRearm(shmConnection *sc) {
    if (sc->spin_ready) return;
    if (shmringConsumerPrepareSleep(&sc->requests) != 0) sc->spin_ready = 1;
}

/* After its handler ran: a connection that read stays on the list with its
 * flag down (the next spin looks at it first); one whose handler did not
 * read (none installed) announces sleep, and is woken when a read handler
 * is set again (connShmSetReadHandler looks at the ring), as after an
 * wake-up nobody read. */
static void shmAfterServe(shmConnection *sc) {
    if (sc->c.fd == -1) return;
    if (sc->read_called && shmMarkHot(sc)) return;
    if (shmringConsumerPrepareSleep(&sc->requests) != 0 && sc->read_called)
        shmWakeSelf(sc); /* no room on the list: served as a self-wake */
}

/* Runs the event handlers of the ready connections, each held by a
 * reference (a handler may close any of them). */
static void shmServeReady(shmConnection **list, int n) {
    for (int i = 0; i < n; i++)
        if (list[i]->spin_ready) list[i]->c.refs++;
    for (int i = 0; i < n; i++) {
        shmConnection *sc = list[i];
        if (!sc->spin_ready) continue;
        sc->spin_ready = 0;
        sc->read_called = 0;
        if (sc->c.fd != -1) connShmEventHandler(sc->c.el, sc->wake_fd, sc, AE_READABLE);
        shmAfterServe(sc);
        if (--sc->c.refs == 0 && (sc->c.flags & CONN_FLAG_CLOSE_SCHEDULED)) connShmClose(&sc->c);
    }
}

int connShmRunWakes(void) {
    int n = wake_count, ran = 0; /* those queued meanwhile wait for the next call */
    while (n-- > 0 && wake_head) {
        shmConnection *sc = wake_head;
        shmForgetWake(sc);
        sc->c.refs++;
        sc->read_called = 0;
        connShmEventHandler(sc->c.el, sc->wake_fd, sc, AE_READABLE);
        if (--sc->c.refs == 0 && (sc->c.flags & CONN_FLAG_CLOSE_SCHEDULED)) connShmClose(&sc->c);
        ran = 1;
    }
    return ran;
}

int connShmSpin(unsigned cap_us) {
    int woke = connShmRunWakes();
    if (hot_count == 0) return woke || wake_count > 0;
    shmConnection *list[SHM_SPIN_MAX_HOT];
    int n = hot_count;
    memcpy(list, hot, sizeof(hot[0]) * (size_t)n);
    for (int i = 0; i < n; i++) list[i]->hot = 0;
    hot_count = 0;

    unsigned length = shmSpinLength(cap_us);
    int caught = 0;
    if (length > 0) {
        for (int i = 0; i < n; i++) shmringConsumerStayAwake(&list[i]->requests);
        caught = shmPollRings(list, n, length);
        shmSpinOutcome(caught, length, cap_us);
    }
    int ready = caught;
    for (int i = 0; i < n; i++) {
        shmRearm(list[i]);
        ready |= list[i]->spin_ready;
    }
    if (ready) shmServeReady(list, n);
    return ready || woke || wake_count > 0;
}

void connShmGetStats(connShmStats *st) {
    st->connected = shm_connections;
    st->total_connections = shm_connections_total;
    st->violations = shm_violations;
    st->spin_hits = spin.hits;
    st->spin_misses = spin.misses;
    st->spin_time_us = spin.time_us;
    st->spin_budget_us = spin.budget_us == ~0u ? 0 : spin.budget_us;
}
