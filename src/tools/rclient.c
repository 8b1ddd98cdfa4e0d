/* rclient.c -- connections and command formatting of the client library
 * (see rclient.h for the contract; the reply parser is rclient_parser.c).
 *
 * Design decisions:
 *  - Sockets are always non-blocking; "blocking" calls wait with poll()
 *    (aeWait) so one timeout rule covers connect, write and read, and a
 *    caller can mix blocking and non-blocking use of one connection.
 *  - Connecting resolves with getaddrinfo() and tries every address in
 *    turn (IPv4 and IPv6), keeping the last failure's reason. The error
 *    text is only the reason ("Connection refused"); the caller adds
 *    "Could not connect to Redis at <addr>: " as redis-cli does.
 *  - Reads go straight into the parser's buffer (no intermediate copy).
 *  - Errors are sticky: after an I/O or protocol error the connection
 *    reports the same error on every call until freed.
 *  - All I/O goes through rcConnRead/rcConnWrite and all waiting through
 *    rcConnWait, so a transport slots in under everything: TLS
 *    (rclient_tls.c) and the shared-memory rings (rclient_shm.c). The
 *    socket's own waits wait for what the transport asked for (want_events).
 */
#include "rclient.h"

#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "ae.h"
#include "util.h"
#include "zmalloc.h"

#define RC_READ_CHUNK (16 * 1024)

/* ---- formatting ------------------------------------------------------------------ */

static size_t decimalDigits(unsigned long long v) {
    size_t n = 1;
    while (v >= 10) { v /= 10; n++; }
    return n;
}

static sds catCountLine(sds s, char prefix, long long v) {
    char num[32];
    int n = ll2string(num, sizeof(num), v);
    size_t len = sdslen(s);
    s[len] = prefix; /* room was made by the caller */
    memcpy(s + len + 1, num, (size_t)n);
    memcpy(s + len + 1 + n, "\r\n", 2);
    sdsIncrLen(s, 1 + n + 2);
    return s;
}

sds rcFormatCommandArgv(sds dst, int argc, const char **argv, const size_t *argvlen) {
    size_t total = 1 + decimalDigits((unsigned long long)argc) + 2;
    for (int i = 0; i < argc; i++) {
        size_t len = argvlen ? argvlen[i] : strlen(argv[i]);
        total += 1 + decimalDigits(len) + 2 + len + 2;
    }
    if (dst == NULL) dst = sdsempty();
    dst = sdsMakeRoomFor(dst, total);
    dst = catCountLine(dst, '*', argc);
    for (int i = 0; i < argc; i++) {
        size_t len = argvlen ? argvlen[i] : strlen(argv[i]);
        dst = catCountLine(dst, '$', (long long)len);
        size_t at = sdslen(dst);
        memcpy(dst + at, argv[i], len);
        memcpy(dst + at + len, "\r\n", 2);
        sdsIncrLen(dst, (ssize_t)(len + 2));
    }
    return dst;
}

/* ---- errors ---------------------------------------------------------------------- */

static int setError(rcConn *c, rcErrorCode code, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int setError(rcConn *c, rcErrorCode code, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(c->errstr, sizeof(c->errstr), fmt, ap);
    va_end(ap);
    c->err = code;
    return RC_ERR;
}

static int setIoError(rcConn *c, int errnum) {
    return setError(c, RC_E_IO, "%s", strerror(errnum));
}

/* ---- connecting -------------------------------------------------------------------- */

static rcConn *newConn(void) {
    rcConn *c = ztrycalloc(sizeof(*c));
    if (c == NULL) return NULL;
    c->fd = -1;
    c->obuf = sdsempty();
    c->parser = rcParserCreate();
    if (c->parser == NULL) {
        rcFree(c);
        return NULL;
    }
    return c;
}

static long long waitMs(const rcConn *c) {
    return c->timeout_ms > 0 ? c->timeout_ms : -1;
}

/* How a non-blocking connect that became writable ended: 0 connected, else
 * the errno value. Asked through getpeername() and read() rather than only
 * SO_ERROR because user-mode emulators (QEMU) pass SO_ERROR's value through
 * untranslated, so a big-endian target would show a wrong reason, while
 * read() reports the same pending error as a translated errno. */
static int pendingConnectError(int fd) {
    struct sockaddr_storage peer;
    socklen_t peerlen = sizeof(peer);
    if (getpeername(fd, (struct sockaddr *)&peer, &peerlen) == 0) return 0;
    if (errno != ENOTCONN) return errno;
    char byte;
    if (read(fd, &byte, 1) == -1 && errno != EAGAIN && errno != EWOULDBLOCK && errno != ENOTCONN) return errno;
    int soerr = 0;
    socklen_t len = sizeof(soerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &soerr, &len) == -1) return errno;
    return soerr ? soerr : ECONNREFUSED;
}

/* Creates a non-blocking socket and connects it, waiting up to the
 * timeout. Returns the fd, or -1 with the reason in errno (ETIMEDOUT for a
 * timeout). */
static int connectAddr(rcConn *c, int family, const struct sockaddr *sa, socklen_t salen) {
    int fd = socket(family, SOCK_STREAM, 0);
    if (fd == -1) return -1;
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1 || fcntl(fd, F_SETFL, flags | O_NONBLOCK) == -1 || fcntl(fd, F_SETFD, FD_CLOEXEC) == -1)
        goto fail;
    if (connect(fd, sa, salen) == 0) return fd;
    if (errno != EINPROGRESS && errno != EAGAIN) goto fail;
    int ready = aeWait(fd, AE_WRITABLE, waitMs(c));
    if (ready < 0) goto fail;
    if (ready == 0) {
        errno = ETIMEDOUT;
        goto fail;
    }
    int result = pendingConnectError(fd);
    if (result == 0) return fd;
    errno = result;
fail:;
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

static void connectFailed(rcConn *c, int errnum) {
    if (errnum == ETIMEDOUT) setError(c, RC_E_TIMEOUT, "Connection timed out");
    else setError(c, RC_E_CONNECT, "%s", strerror(errnum));
}

static void formatAddr(rcConn *c) {
    char buf[512];
    if (c->path) snprintf(buf, sizeof(buf), "%s", c->path);
    else if (strchr(c->host, ':')) snprintf(buf, sizeof(buf), "[%s]:%d", c->host, c->port);
    else snprintf(buf, sizeof(buf), "%s:%d", c->host, c->port);
    c->addr = zstrdup(buf);
}

rcConn *rcConnectTcp(const char *host, int port, long long timeout_ms) {
    rcConn *c = newConn();
    if (c == NULL) return NULL;
    c->host = zstrdup(host);
    c->port = port;
    c->timeout_ms = timeout_ms;
    formatAddr(c);
    if (port < 0 || port > 65535) {
        setError(c, RC_E_CONNECT, "Invalid port %d", port);
        return c;
    }
    char portstr[16];
    snprintf(portstr, sizeof(portstr), "%d", port);
    struct addrinfo hints = { .ai_family = AF_UNSPEC, .ai_socktype = SOCK_STREAM }, *res;
    int rc = getaddrinfo(host, portstr, &hints, &res);
    if (rc != 0) {
        setError(c, RC_E_CONNECT, "%s", rc == EAI_SYSTEM ? strerror(errno) : gai_strerror(rc));
        return c;
    }
    int last_errno = ECONNREFUSED;
    for (struct addrinfo *ai = res; ai != NULL && c->fd == -1; ai = ai->ai_next) {
        c->fd = connectAddr(c, ai->ai_family, ai->ai_addr, ai->ai_addrlen);
        if (c->fd == -1) last_errno = errno;
    }
    freeaddrinfo(res);
    if (c->fd == -1) {
        connectFailed(c, last_errno);
        return c;
    }
    int one = 1;
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one)); /* best effort */
    return c;
}

rcConn *rcConnectUnix(const char *path, long long timeout_ms) {
    rcConn *c = newConn();
    if (c == NULL) return NULL;
    c->path = zstrdup(path);
    c->timeout_ms = timeout_ms;
    formatAddr(c);
    struct sockaddr_un sa = { .sun_family = AF_UNIX };
    size_t len = strlen(path);
    if (len >= sizeof(sa.sun_path)) {
        setError(c, RC_E_CONNECT, "%s", strerror(ENAMETOOLONG));
        return c;
    }
    memcpy(sa.sun_path, path, len + 1);
    c->fd = connectAddr(c, AF_UNIX, (struct sockaddr *)&sa, sizeof(sa));
    if (c->fd == -1) connectFailed(c, errno);
    return c;
}

void rcFree(rcConn *c) {
    if (c == NULL) return;
    if (c->transport) c->transport->free(c);
    if (c->fd != -1) close(c->fd);
    zfree(c->host);
    zfree(c->path);
    zfree(c->addr);
    sdsfree(c->obuf);
    rcParserFree(c->parser);
    zfree(c);
}

const char *rcConnAddr(rcConn *c) {
    return c->addr;
}

void rcSetTimeout(rcConn *c, long long timeout_ms) {
    c->timeout_ms = timeout_ms;
}

/* ---- the transport ------------------------------------------------------------------------ */

ssize_t rcConnRead(rcConn *c, void *buf, size_t len) {
    if (c->transport) return c->transport->read(c, buf, len);
    c->want_events = AE_READABLE;
    return read(c->fd, buf, len);
}

int rcConnHasBufferedInput(rcConn *c) {
    return c->transport ? c->transport->buffered(c) : 0;
}

ssize_t rcConnWrite(rcConn *c, const void *buf, size_t len) {
    if (c->transport) return c->transport->write(c, buf, len);
    c->want_events = AE_WRITABLE;
    return write(c->fd, buf, len);
}

int rcConnWait(rcConn *c, int mask, long long ms) {
    if (c->transport && c->transport->wait) return c->transport->wait(c, mask, ms);
    return aeWait(c->fd, c->want_events ? c->want_events : mask, ms);
}

int rcConnEventFd(const rcConn *c) {
    return c->transport && c->transport->event_fd ? c->transport->event_fd(c) : c->fd;
}

int rcConnLivenessFd(const rcConn *c) {
    return c->transport && c->transport->liveness_fd ? c->transport->liveness_fd(c) : -1;
}

/* ---- output ---------------------------------------------------------------------------- */

int rcAppendCommandArgv(rcConn *c, int argc, const char **argv, const size_t *argvlen) {
    if (c->err) return RC_ERR;
    c->obuf = rcFormatCommandArgv(c->obuf, argc, argv, argvlen);
    return RC_OK;
}

int rcAppendRaw(rcConn *c, const char *buf, size_t len) {
    if (c->err) return RC_ERR;
    c->obuf = sdscatlen(c->obuf, buf, len);
    return RC_OK;
}

size_t rcPendingOutput(const rcConn *c) {
    return sdslen(c->obuf);
}

/* Writes what the socket takes now. 1 when all was written, 0 when the
 * socket is full, -1 on error. */
static int writeSome(rcConn *c) {
    size_t done = 0, len = sdslen(c->obuf);
    int rc = 1;
    while (done < len) {
        ssize_t n = rcConnWrite(c, c->obuf + done, len - done);
        if (n > 0) {
            done += (size_t)n;
        } else if (n == -1 && errno == EINTR) {
            continue;
        } else if (n == -1 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
            rc = 0;
            break;
        } else {
            rc = setIoError(c, n == 0 ? EIO : errno);
            break;
        }
    }
    sdsrange(c->obuf, (ssize_t)done, -1);
    return rc;
}

int rcFlushNonBlocking(rcConn *c) {
    if (c->err) return RC_ERR;
    if (c->fd == -1) return setError(c, RC_E_IO, "Not connected");
    return writeSome(c) < 0 ? RC_ERR : RC_OK;
}

int rcFlush(rcConn *c) {
    if (c->err) return RC_ERR;
    if (c->fd == -1) return setError(c, RC_E_IO, "Not connected");
    for (;;) {
        int rc = writeSome(c);
        if (rc < 0) return RC_ERR;
        if (rc == 1) return RC_OK;
        int ready = rcConnWait(c, AE_WRITABLE, waitMs(c));
        if (ready == 0) return setError(c, RC_E_TIMEOUT, "Timeout writing to server");
        if (ready < 0 && errno != EINTR) return setIoError(c, errno);
    }
}

/* ---- input ------------------------------------------------------------------------------- */

/* Reads once into the parser. 1 bytes read, 0 nothing available, -1 error. */
static int readSome(rcConn *c) {
    size_t avail;
    char *space = rcParserSpace(c->parser, RC_READ_CHUNK, &avail);
    if (space == NULL) return setError(c, RC_E_OOM, "Out of memory");
    for (;;) {
        ssize_t n = rcConnRead(c, space, avail);
        if (n > 0) {
            rcParserCommit(c->parser, (size_t)n);
            return 1;
        }
        if (n == 0) return setError(c, RC_E_EOF, "Server closed the connection");
        if (errno == EINTR) continue;
        if (errno == EAGAIN || errno == EWOULDBLOCK) return 0;
        return setIoError(c, errno);
    }
}

/* A complete reply from what is buffered: 1 yes, 0 incomplete, -1 error. */
static int parseBuffered(rcConn *c, rcReply **reply) {
    if (rcParserGetReply(c->parser, reply) == RC_ERR) {
        const char *why = rcParserError(c->parser);
        setError(c, strcmp(why, "Out of memory") ? RC_E_PROTOCOL : RC_E_OOM, "%s", why);
        return -1;
    }
    return *reply != NULL;
}

int rcTryReadReply(rcConn *c, rcReply **reply) {
    *reply = NULL;
    if (c->err) return RC_ERR;
    if (c->fd == -1) return setError(c, RC_E_IO, "Not connected");
    int rc = parseBuffered(c, reply);
    if (rc != 0) return rc < 0 ? RC_ERR : RC_OK;
    for (;;) {
        rc = readSome(c);
        if (rc < 0) return RC_ERR;
        if (rc == 0) return RC_OK;
        rc = parseBuffered(c, reply);
        if (rc != 0) return rc < 0 ? RC_ERR : RC_OK;
    }
}

int rcReadReply(rcConn *c, rcReply **reply) {
    *reply = NULL;
    if (rcFlush(c) == RC_ERR) return RC_ERR;
    for (;;) {
        if (rcTryReadReply(c, reply) == RC_ERR) return RC_ERR;
        if (*reply) return RC_OK;
        int ready = rcConnWait(c, AE_READABLE, waitMs(c));
        if (ready == 0) return setError(c, RC_E_TIMEOUT, "Timeout reading from server");
        if (ready < 0 && errno != EINTR) return setIoError(c, errno);
    }
}

rcReply *rcCommandArgv(rcConn *c, int argc, const char **argv, const size_t *argvlen) {
    rcReply *reply;
    if (rcAppendCommandArgv(c, argc, argv, argvlen) == RC_ERR) return NULL;
    if (rcReadReply(c, &reply) == RC_ERR) return NULL;
    return reply;
}

#define RC_MAX_VARARGS 64

rcReply *rcCommand(rcConn *c, const char *arg0, ...) {
    const char *argv[RC_MAX_VARARGS];
    int argc = 0;
    va_list ap;
    va_start(ap, arg0);
    for (const char *a = arg0; a != NULL; a = va_arg(ap, const char *)) {
        if (argc == RC_MAX_VARARGS) {
            va_end(ap);
            setError(c, RC_E_IO, "Too many arguments");
            return NULL;
        }
        argv[argc++] = a;
    }
    va_end(ap);
    return rcCommandArgv(c, argc, argv, NULL);
}
