/* rclient_shm.c -- the client side of the shared-memory transport: an
 * rcTransport (rclient.h) that rcUpgradeShm installs, so rcConnRead/
 * rcConnWrite/rcConnWait use the rings from then on.
 *
 * The handshake (see src/shm.c for the server's side): on a unix socket with
 * nothing in flight, send CLIENT SHM [RINGSIZE n]; read the reply with
 * recvmsg, which also brings [memfd, wake end, wake end]: the segment and,
 * twice, our end of the server's wake-up socketpair (a datagram we send on
 * it wakes the server, one the server sends arrives on it); map and check
 * the segment (shmringSegmentAttach: size by fstat, magic, version,
 * byte-order mark). We keep one copy of the wake end (3 descriptors per
 * connection with the socket). From then on we produce into the request
 * ring and consume the reply ring; the socket carries nothing and is
 * watched only to notice the server going away.
 *
 * Waiting: a reader that finds the ring empty first spins for a few
 * microseconds (adaptive: the budget doubles when a spin succeeds and
 * halves when it does not, never on a single-CPU machine), then drains its
 * wake end, arms the ring's sleep flag, looks once more and sleeps in
 * poll() on the wake end and the socket. A read that finds nothing also
 * arms the flag, so an event loop can simply watch rcConnEventFd() (the
 * benchmark).
 * The server being killed closes the socket: poll wakes, the read returns
 * 0 and the caller gets "Server closed the connection", never a hang.
 */
#define _GNU_SOURCE
#include "rclient.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ae.h"
#include "shmring.h"
#include "zmalloc.h"

typedef struct rcShm {
    shmringSegment seg;
    shmring requests;    /* we produce */
    shmring replies;     /* we consume */
    int wake_fd;         /* our end of the wake-up socketpair */
    int server_gone;     /* EOF on the socket */
    unsigned spin_us, spin_max_us;
} rcShm;

/* ---- the transport --------------------------------------------------------- */

static int shmBroken(rcShm *sh, const char *why) {
    (void)sh;
    (void)why;
    errno = EPROTO;
    return -1;
}

/* 1 when the socket says the server is gone (EOF or error). */
static int serverGone(rcConn *c) {
    rcShm *sh = c->transport_data;
    if (sh->server_gone) return 1;
    char byte;
    ssize_t n = recv(c->fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n == 0 || (n == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) sh->server_gone = 1;
    return sh->server_gone;
}

static ssize_t shmRead(rcConn *c, void *buf, size_t len) {
    rcShm *sh = c->transport_data;
    ssize_t n = shmringRead(&sh->replies, buf, len);
    if (n == 0) {
        shmringDrain(sh->wake_fd);
        int ready = shmringConsumerPrepareSleep(&sh->replies);
        n = ready > 0 ? shmringRead(&sh->replies, buf, len) : ready;
    }
    if (n < 0) return shmBroken(sh, sh->replies.violation);
    if (n > 0) {
        if (shmringTakeWakeRequest(&sh->replies)) shmringSignal(sh->wake_fd);
        return n;
    }
    if (serverGone(c)) return 0;
    errno = EAGAIN;
    return -1;
}

static ssize_t shmWrite(rcConn *c, const void *buf, size_t len) {
    rcShm *sh = c->transport_data;
    if (sh->server_gone) {
        errno = EPIPE;
        return -1;
    }
    ssize_t n = shmringWrite(&sh->requests, buf, len);
    if (n < 0) return shmBroken(sh, sh->requests.violation);
    if (n > 0 && shmringTakeWakeRequest(&sh->requests)) shmringSignal(sh->wake_fd);
    if (n == 0 && len > 0) {
        errno = EAGAIN;
        return -1;
    }
    return n;
}

/* Nothing is held back: what the rings have is read at once. */
static int shmBuffered(rcConn *c) {
    (void)c;
    return 0;
}

static int shmEventFd(const rcConn *c) {
    const rcShm *sh = c->transport_data;
    return sh->wake_fd;
}

static int shmLivenessFd(const rcConn *c) {
    return c->fd;
}

/* What a wait is for is there now (or the ring is broken: let I/O say so). */
static int shmReady(rcShm *sh, int mask) {
    ssize_t v = mask & AE_READABLE ? shmringReadable(&sh->replies) : shmringWritable(&sh->requests);
    return v != 0;
}

static int shmSpin(rcShm *sh, int mask) {
    if (sh->spin_us == 0) return 0;
    uint64_t start = aeMonotonicUs();
    do {
        for (int i = 0; i < 32; i++) {
            if (shmReady(sh, mask)) {
                if (sh->spin_us < sh->spin_max_us) sh->spin_us *= 2;
                if (sh->spin_us > sh->spin_max_us) sh->spin_us = sh->spin_max_us;
                return 1;
            }
            shmringCpuRelax();
        }
    } while (aeMonotonicUs() - start < sh->spin_us);
    if (sh->spin_us > 1) sh->spin_us /= 2;
    return 0;
}

/* Arms the sleep flag: 1 when what we wait for arrived meanwhile. */
static int shmArm(rcShm *sh, int mask) {
    shmringDrain(sh->wake_fd);
    int ready = mask & AE_READABLE ? shmringConsumerPrepareSleep(&sh->replies)
                                   : shmringProducerPrepareSleep(&sh->requests);
    return ready != 0;
}

static int shmWait(rcConn *c, int mask, long long ms) {
    rcShm *sh = c->transport_data;
    if (shmReady(sh, mask) || shmSpin(sh, mask) || shmArm(sh, mask)) return 1;
    struct pollfd pfd[2] = {{.fd = sh->wake_fd, .events = POLLIN}, {.fd = c->fd, .events = POLLIN}};
    int rc = poll(pfd, 2, ms < 0 ? -1 : (int)ms);
    if (rc <= 0) return rc;
    if (pfd[1].revents) serverGone(c);
    return 1;
}

static void shmFree(rcConn *c) {
    rcShm *sh = c->transport_data;
    if (sh == NULL) return;
    shmringSegmentRelease(&sh->seg);
    close(sh->wake_fd);
    zfree(sh);
    c->transport_data = NULL;
}

static const rcTransport shm_transport = {
    .read = shmRead,
    .write = shmWrite,
    .buffered = shmBuffered,
    .free = shmFree,
    .wait = shmWait,
    .event_fd = shmEventFd,
    .liveness_fd = shmLivenessFd,
};

/* ---- the handshake ------------------------------------------------------------------- */

static void closeFds(const int *fds, int n) {
    for (int i = 0; i < n; i++)
        if (fds[i] != -1) close(fds[i]);
}

/* One recvmsg into the parser, keeping descriptors that come with it
 * (three expected; any other count is closed and ignored). 1 bytes read,
 * 0 nothing yet, -1 error (errno) or EOF (errno 0). */
static int recvWithFds(rcConn *c, int fds[3], int *nfds) {
    size_t avail;
    char *space = rcParserSpace(c->parser, 64, &avail);
    if (space == NULL) { errno = ENOMEM; return -1; }
    struct iovec iov = {.iov_base = space, .iov_len = avail};
    union {
        char buf[CMSG_SPACE(8 * sizeof(int))];
        struct cmsghdr align;
    } control;
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                         .msg_controllen = sizeof(control.buf)};
    ssize_t n = recvmsg(c->fd, &msg, MSG_CMSG_CLOEXEC);
    if (n == -1) return errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR ? 0 : -1;
    for (struct cmsghdr *cm = CMSG_FIRSTHDR(&msg); cm; cm = CMSG_NXTHDR(&msg, cm)) {
        if (cm->cmsg_level != SOL_SOCKET || cm->cmsg_type != SCM_RIGHTS) continue;
        int count = (int)((cm->cmsg_len - CMSG_LEN(0)) / sizeof(int)), got[8];
        if (count > 8) count = 8;
        memcpy(got, CMSG_DATA(cm), (size_t)count * sizeof(int));
        if (count == 3 && *nfds == 0) {
            memcpy(fds, got, sizeof(got[0]) * 3);
            *nfds = 3;
        } else {
            closeFds(got, count);
        }
    }
    if (n == 0) { errno = 0; return -1; }
    rcParserCommit(c->parser, (size_t)n);
    return 1;
}

/* 1 when a and b are descriptors of one socket (the server sends its
 * wake-up end twice, where a server of the first design sent two eventfds). */
static int sameSocket(int a, int b) {
    struct stat sa, sb;
    return fstat(a, &sa) == 0 && fstat(b, &sb) == 0 && S_ISSOCK(sa.st_mode) && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

static int upgradeFailed(rcConn *c, int fds[3], int nfds, rcErrorCode code, const char *why) {
    closeFds(fds, nfds);
    snprintf(c->errstr, sizeof(c->errstr), "%s", why);
    c->err = code;
    return RC_ERR;
}

/* Reads the reply to CLIENT SHM, with its descriptors. */
static int readUpgradeReply(rcConn *c, rcReply **reply, int fds[3], int *nfds) {
    for (;;) {
        if (rcParserGetReply(c->parser, reply) == RC_ERR) return upgradeFailed(c, fds, *nfds, RC_E_PROTOCOL, rcParserError(c->parser));
        if (*reply) return RC_OK;
        int rc = recvWithFds(c, fds, nfds);
        if (rc < 0) return upgradeFailed(c, fds, *nfds, errno ? RC_E_IO : RC_E_EOF,
                                         errno ? strerror(errno) : "Server closed the connection");
        if (rc == 0 && aeWait(c->fd, AE_READABLE, c->timeout_ms > 0 ? c->timeout_ms : -1) == 0)
            return upgradeFailed(c, fds, *nfds, RC_E_TIMEOUT, "Timeout reading from server");
    }
}

static void attachRings(rcConn *c, const shmringSegment *seg, int wake_fd) {
    rcShm *sh = zcalloc(sizeof(*sh));
    sh->seg = *seg;
    shmringOpen(&sh->requests, &sh->seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
    shmringOpen(&sh->replies, &sh->seg, SHMRING_REPLIES, SHMRING_CONSUMER);
    sh->wake_fd = wake_fd;
    sh->spin_max_us = shmringSpinBudgetUs();
    sh->spin_us = sh->spin_max_us;
    /* Asleep from the start, so an event loop watching the wake end is
     * signalled for the first reply (the invariant: the wake end is
     * readable or the flag armed). */
    shmringConsumerPrepareSleep(&sh->replies);
    c->transport_data = sh;
    c->transport = &shm_transport;
}

int rcUpgradeShm(rcConn *c, unsigned long long ring_size) {
    if (c->err) return RC_ERR;
    if (c->transport == &shm_transport) return RC_OK;
    if (c->path == NULL || c->transport) return upgradeFailed(c, NULL, 0, RC_E_CONNECT, "shared memory needs a unix socket (-s)");
    if (rcParserBuffered(c->parser) || rcPendingOutput(c))
        return upgradeFailed(c, NULL, 0, RC_E_CONNECT, "shared memory upgrade with commands in flight");
    char size[32];
    snprintf(size, sizeof(size), "%llu", ring_size);
    const char *argv[] = {"CLIENT", "SHM", "RINGSIZE", size};
    if (rcAppendCommandArgv(c, ring_size ? 4 : 2, argv, NULL) == RC_ERR || rcFlush(c) == RC_ERR) return RC_ERR;
    int fds[3] = {-1, -1, -1}, nfds = 0;
    rcReply *reply = NULL;
    if (readUpgradeReply(c, &reply, fds, &nfds) == RC_ERR) return RC_ERR;
    if (reply->type == RC_REPLY_ERROR) {
        char why[RC_ERRSTR_LEN];
        snprintf(why, sizeof(why), "%.*s", (int)reply->len, reply->str);
        rcFreeReply(reply);
        return upgradeFailed(c, fds, nfds, RC_E_CONNECT, why);
    }
    int ok = reply->type == RC_REPLY_STATUS && reply->len == 2 && !memcmp(reply->str, "OK", 2);
    rcFreeReply(reply);
    if (!ok || nfds != 3) return upgradeFailed(c, fds, nfds, RC_E_PROTOCOL, "Protocol error: no descriptors with CLIENT SHM's reply");
    if (!sameSocket(fds[1], fds[2]))
        return upgradeFailed(c, fds, nfds, RC_E_PROTOCOL, "Protocol error: CLIENT SHM's wake-up descriptors are not one socket");
    shmringSegment seg;
    const char *why;
    if (shmringSegmentAttach(&seg, fds[0], &why) == SHMRING_ERR) return upgradeFailed(c, fds, nfds, RC_E_PROTOCOL, why);
    close(fds[2]); /* the same socket as fds[1] */
    attachRings(c, &seg, fds[1]);
    return RC_OK;
}

int rcConnUsesShm(const rcConn *c) {
    return c->transport == &shm_transport;
}
