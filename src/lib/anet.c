/* anet.c -- socket helpers; see anet.h for the contract (ANET_OK/ANET_ERR,
 * messages in the caller's err buffer, errno preserved, close-on-exec).
 *
 * Implementation notes:
 *  - Addresses are resolved with getaddrinfo() for every family, so the same
 *    code serves IPv4, IPv6 and host names. Socket addresses are copied out
 *    of sockaddr_storage with memcpy rather than reached through casts.
 *  - Errors that happen while cleaning up (close, unlink) never replace the
 *    errno of the failure being reported: anetFail() saves and restores it.
 *  - Linux accept4() sets SOCK_NONBLOCK|SOCK_CLOEXEC atomically; elsewhere
 *    accept() is followed by two fcntl() calls.
 */
#if defined(__linux__) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1   /* accept4 */
#endif

#include "anet.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <unistd.h>

#include "platform.h"

#define ANET_CONNECT_NONE 0
#define ANET_CONNECT_NONBLOCK (1 << 0)
#define ANET_CONNECT_BE_BINDING (1 << 1)   /* best effort binding */

/* ---- error reporting ----------------------------------------------------------- */

static void anetSetError(char *err, const char *fmt, ...) PRINTF_FMT(2, 3);

static void anetSetError(char *err, const char *fmt, ...) {
    if (err == NULL) return;
    int saved = errno;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err, ANET_ERR_LEN, fmt, ap);
    va_end(ap);
    errno = saved;
}

/* Closes fd (if any) keeping errno, and returns ANET_ERR. */
static int anetFail(int fd) {
    int saved = errno;
    if (fd != -1) close(fd);
    errno = saved;
    return ANET_ERR;
}

/* ---- socket options --------------------------------------------------------------- */

static int anetSetFlag(char *err, int fd, int flag, int on) {
    int flags = fcntl(fd, F_GETFL);
    if (flags == -1) {
        anetSetError(err, "fcntl(F_GETFL): %s", strerror(errno));
        return ANET_ERR;
    }
    int wanted = on ? (flags | flag) : (flags & ~flag);
    if (wanted != flags && fcntl(fd, F_SETFL, wanted) == -1) {
        anetSetError(err, "fcntl(F_SETFL): %s", strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

int anetNonBlock(char *err, int fd) {
    return anetSetFlag(err, fd, O_NONBLOCK, 1);
}

int anetBlock(char *err, int fd) {
    return anetSetFlag(err, fd, O_NONBLOCK, 0);
}

int anetCloexec(int fd) {
    int flags = fcntl(fd, F_GETFD);
    if (flags == -1) return ANET_ERR;
    if (flags & FD_CLOEXEC) return ANET_OK;
    return fcntl(fd, F_SETFD, flags | FD_CLOEXEC) == -1 ? ANET_ERR : ANET_OK;
}

static int anetSetIntOption(char *err, int fd, int level, int option, int value,
                            const char *name) {
    if (setsockopt(fd, level, option, &value, sizeof(value)) == -1) {
        anetSetError(err, "setsockopt %s: %s", name, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

int anetSetReuseAddr(char *err, int fd) {
    /* Lets a restarted server bind while old connections sit in TIME_WAIT. */
    return anetSetIntOption(err, fd, SOL_SOCKET, SO_REUSEADDR, 1, "SO_REUSEADDR");
}

int anetEnableTcpNoDelay(char *err, int fd) {
    return anetSetIntOption(err, fd, IPPROTO_TCP, TCP_NODELAY, 1, "TCP_NODELAY");
}

int anetDisableTcpNoDelay(char *err, int fd) {
    return anetSetIntOption(err, fd, IPPROTO_TCP, TCP_NODELAY, 0, "TCP_NODELAY");
}

int anetKeepAlive(char *err, int fd, int interval) {
    if (anetSetIntOption(err, fd, SOL_SOCKET, SO_KEEPALIVE, 1, "SO_KEEPALIVE") == ANET_ERR)
        return ANET_ERR;
    if (interval <= 0) return ANET_OK;   /* the OS defaults */
#if defined(TCP_KEEPIDLE)
    if (anetSetIntOption(err, fd, IPPROTO_TCP, TCP_KEEPIDLE, interval, "TCP_KEEPIDLE") == ANET_ERR)
        return ANET_ERR;
#elif defined(TCP_KEEPALIVE)   /* macOS names the idle time this way */
    if (anetSetIntOption(err, fd, IPPROTO_TCP, TCP_KEEPALIVE, interval, "TCP_KEEPALIVE") == ANET_ERR)
        return ANET_ERR;
#endif
#if defined(TCP_KEEPINTVL)
    int probeInterval = interval / 3 > 0 ? interval / 3 : 1;
    if (anetSetIntOption(err, fd, IPPROTO_TCP, TCP_KEEPINTVL, probeInterval, "TCP_KEEPINTVL") == ANET_ERR)
        return ANET_ERR;
#endif
#if defined(TCP_KEEPCNT)
    if (anetSetIntOption(err, fd, IPPROTO_TCP, TCP_KEEPCNT, 3, "TCP_KEEPCNT") == ANET_ERR)
        return ANET_ERR;
#endif
    return ANET_OK;
}

static int anetSetTimeout(char *err, int fd, int option, long long ms, const char *name) {
    if (ms < 0) {
        anetSetError(err, "setsockopt %s: negative timeout %lld ms", name, ms);
        errno = EINVAL;
        return ANET_ERR;
    }
    struct timeval tv;
    long long secs = ms / 1000;
    tv.tv_sec = (time_t)(secs > INT_MAX ? INT_MAX : secs);   /* time_t may be 32-bit */
    tv.tv_usec = (suseconds_t)((ms % 1000) * 1000);
    if (setsockopt(fd, SOL_SOCKET, option, &tv, sizeof(tv)) == -1) {
        anetSetError(err, "setsockopt %s: %s", name, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

int anetSendTimeout(char *err, int fd, long long ms) {
    return anetSetTimeout(err, fd, SO_SNDTIMEO, ms, "SO_SNDTIMEO");
}

int anetRecvTimeout(char *err, int fd, long long ms) {
    return anetSetTimeout(err, fd, SO_RCVTIMEO, ms, "SO_RCVTIMEO");
}

int anetGetError(int fd) {
    int sockerr = 0;
    socklen_t len = sizeof(sockerr);
    if (getsockopt(fd, SOL_SOCKET, SO_ERROR, &sockerr, &len) == -1) sockerr = errno;
    return sockerr;
}

/* ---- addresses ------------------------------------------------------------------- */

/* getaddrinfo errors as errno values, for anetIsAddrUnavailable(). */
static int anetGaiErrno(int gaiErr) {
    switch (gaiErr) {
    case EAI_FAMILY:
    case EAI_NONAME:
#ifdef EAI_ADDRFAMILY
    case EAI_ADDRFAMILY:
#endif
        return EADDRNOTAVAIL;
    case EAI_MEMORY: return ENOMEM;
    case EAI_SYSTEM: return errno;
    default: return EINVAL;
    }
}

static int anetGetAddrInfo(char *err, const char *host, int port, int family, int flags,
                           struct addrinfo **res) {
    char portstr[16];
    struct addrinfo hints;
    if (port < 0 || port > 65535) {
        anetSetError(err, "invalid port %d", port);
        errno = EINVAL;
        return ANET_ERR;
    }
    snprintf(portstr, sizeof(portstr), "%d", port);
    memset(&hints, 0, sizeof(hints));
    hints.ai_family = family;
    hints.ai_socktype = SOCK_STREAM;
    hints.ai_flags = flags;
    int rc = getaddrinfo(host, portstr, &hints, res);
    if (rc != 0) {
        int e = anetGaiErrno(rc);
        anetSetError(err, "getaddrinfo %s: %s", host ? host : "*", gai_strerror(rc));
        errno = e;
        return ANET_ERR;
    }
    return ANET_OK;
}

/* Text form of an IPv4/IPv6 socket address; ANET_ERR (ENOSPC) if ip_len is
 * too small, (EAFNOSUPPORT) for other families. */
static int anetInetToString(const struct sockaddr_storage *ss, char *ip, size_t ip_len, int *port) {
    if (ss->ss_family == AF_INET) {
        struct sockaddr_in sin;
        memcpy(&sin, ss, sizeof(sin));
        if (ip && inet_ntop(AF_INET, &sin.sin_addr, ip, (socklen_t)ip_len) == NULL) return ANET_ERR;
        if (port) *port = ntohs(sin.sin_port);
        return ANET_OK;
    }
    if (ss->ss_family == AF_INET6) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, ss, sizeof(sin6));
        if (ip && inet_ntop(AF_INET6, &sin6.sin6_addr, ip, (socklen_t)ip_len) == NULL) return ANET_ERR;
        if (port) *port = ntohs(sin6.sin6_port);
        return ANET_OK;
    }
    errno = EAFNOSUPPORT;
    return ANET_ERR;
}

/* Reads one end's address of a unix socket into *sun; *pathlen is 0 when
 * that end is unnamed. */
static int anetUnixEndPath(int fd, int peer, struct sockaddr_un *sun, size_t *pathlen) {
    socklen_t len = sizeof(*sun);
    memset(sun, 0, sizeof(*sun));
    int rc = peer ? getpeername(fd, (struct sockaddr *)sun, &len)
                  : getsockname(fd, (struct sockaddr *)sun, &len);
    if (rc == -1) return ANET_ERR;
    size_t max = len > offsetof(struct sockaddr_un, sun_path)
                     ? len - offsetof(struct sockaddr_un, sun_path) : 0;
    if (max > sizeof(sun->sun_path)) max = sizeof(sun->sun_path);
    *pathlen = strnlen(sun->sun_path, max);
    return ANET_OK;
}

/* A unix socket is named by its path at the listening end; report that end
 * whichever was asked for (see anet.h). */
static int anetUnixToString(int fd, int fd_to_str_type, char *ip, size_t ip_len, int *port) {
    struct sockaddr_un sun;
    size_t pathlen = 0;
    int peer = fd_to_str_type == FD_TO_PEER_NAME;
    if (anetUnixEndPath(fd, peer, &sun, &pathlen) == ANET_ERR) return ANET_ERR;
    if (pathlen == 0 && anetUnixEndPath(fd, !peer, &sun, &pathlen) == ANET_ERR) return ANET_ERR;
    if (port) *port = 0;
    if (ip == NULL) return ANET_OK;
    int n = pathlen ? snprintf(ip, ip_len, "%.*s", (int)pathlen, sun.sun_path)
                    : snprintf(ip, ip_len, "/unixsocket");
    if (n < 0 || (size_t)n >= ip_len) {
        errno = ENOSPC;
        return ANET_ERR;
    }
    return ANET_OK;
}

int anetFdToString(int fd, char *ip, size_t ip_len, int *port, int fd_to_str_type) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    memset(&ss, 0, sizeof(ss));
    int rc = fd_to_str_type == FD_TO_PEER_NAME ? getpeername(fd, (struct sockaddr *)&ss, &len)
                                               : getsockname(fd, (struct sockaddr *)&ss, &len);
    if (rc == 0) {
        rc = ss.ss_family == AF_UNIX ? anetUnixToString(fd, fd_to_str_type, ip, ip_len, port)
                                     : anetInetToString(&ss, ip, ip_len, port);
    }
    if (rc == 0) return ANET_OK;
    int saved = errno;
    if (ip && ip_len >= 2) memcpy(ip, "?", 2);
    else if (ip && ip_len == 1) ip[0] = '\0';
    if (port) *port = 0;
    errno = saved;
    return ANET_ERR;
}

int anetFormatAddr(char *buf, size_t buf_len, const char *ip, int port) {
    int bracket = ip[0] != '/' && strchr(ip, ':') != NULL;   /* IPv6, not a path */
    return snprintf(buf, buf_len, bracket ? "[%s]:%d" : "%s:%d", ip, port);
}

int anetFormatFdAddr(int fd, char *buf, size_t buf_len, int fd_to_str_type) {
    char ip[ANET_ADDR_STR_LEN];
    int port;
    anetFdToString(fd, ip, sizeof(ip), &port, fd_to_str_type);
    return anetFormatAddr(buf, buf_len, ip, port);
}

int anetIsLocalPeer(int fd) {
    struct sockaddr_storage ss;
    socklen_t len = sizeof(ss);
    memset(&ss, 0, sizeof(ss));
    if (getpeername(fd, (struct sockaddr *)&ss, &len) == -1) return 0;
    if (ss.ss_family == AF_UNIX) return 1;
    if (ss.ss_family == AF_INET) {
        struct sockaddr_in sin;
        memcpy(&sin, &ss, sizeof(sin));
        return (ntohl(sin.sin_addr.s_addr) >> 24) == 127;
    }
    if (ss.ss_family == AF_INET6) {
        struct sockaddr_in6 sin6;
        memcpy(&sin6, &ss, sizeof(sin6));
        const unsigned char *a = sin6.sin6_addr.s6_addr;
        if (IN6_IS_ADDR_LOOPBACK(&sin6.sin6_addr)) return 1;
        return IN6_IS_ADDR_V4MAPPED(&sin6.sin6_addr) && a[12] == 127;
    }
    return 0;
}

int anetIsOptionalBindAddr(const char *addr) {
    return addr != NULL && addr[0] == '-';
}

int anetIsAddrUnavailable(int err) {
    switch (err) {
    case EADDRNOTAVAIL:
    case EAFNOSUPPORT:
    case EPROTONOSUPPORT:
    case ENOPROTOOPT:
#ifdef ESOCKTNOSUPPORT
    case ESOCKTNOSUPPORT:
#endif
#ifdef EPFNOSUPPORT
    case EPFNOSUPPORT:
#endif
        return 1;
    default:
        return 0;
    }
}

int anetResolve(char *err, const char *host, char *ipbuf, size_t ipbuf_len, int flags) {
    struct addrinfo *info;
    int aiflags = (flags & ANET_IP_ONLY) ? AI_NUMERICHOST : 0;
    if (anetGetAddrInfo(err, host, 0, AF_UNSPEC, aiflags, &info) == ANET_ERR) return ANET_ERR;
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    memcpy(&ss, info->ai_addr, info->ai_addrlen < sizeof(ss) ? info->ai_addrlen : sizeof(ss));
    freeaddrinfo(info);
    if (anetInetToString(&ss, ipbuf, ipbuf_len, NULL) == ANET_ERR) {
        anetSetError(err, "resolve %s: %s", host, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* ---- creating sockets --------------------------------------------------------------- */

static int anetSocket(char *err, int family, int type, int protocol) {
    int fd = socket(family, type, protocol);
    if (fd == -1) {
        anetSetError(err, "creating socket: %s", strerror(errno));
        return ANET_ERR;
    }
    if (anetCloexec(fd) == ANET_ERR) {
        anetSetError(err, "fcntl(FD_CLOEXEC): %s", strerror(errno));
        return anetFail(fd);
    }
    return fd;
}

static int anetListen(char *err, int fd, const struct sockaddr *sa, socklen_t len, int backlog) {
    if (bind(fd, sa, len) == -1) {
        anetSetError(err, "bind: %s", strerror(errno));
        return anetFail(fd);
    }
    if (listen(fd, backlog) == -1) {
        anetSetError(err, "listen: %s", strerror(errno));
        return anetFail(fd);
    }
    return fd;
}

/* A listening TCP socket on the first address bindaddr resolves to. */
static int anetTcpGenericServer(char *err, int port, const char *bindaddr, int family, int backlog) {
    struct addrinfo *info;
    if (bindaddr && (strcmp(bindaddr, "*") == 0 ||
                     (family == AF_INET6 && strcmp(bindaddr, "::*") == 0)))
        bindaddr = NULL;
    if (anetGetAddrInfo(err, bindaddr, port, family, AI_PASSIVE, &info) == ANET_ERR)
        return ANET_ERR;
    int fd = anetSocket(err, info->ai_family, info->ai_socktype, info->ai_protocol);
    if (fd != ANET_ERR && family == AF_INET6 &&
        anetSetIntOption(err, fd, IPPROTO_IPV6, IPV6_V6ONLY, 1, "IPV6_V6ONLY") == ANET_ERR)
        fd = anetFail(fd);
    if (fd != ANET_ERR && anetSetReuseAddr(err, fd) == ANET_ERR) fd = anetFail(fd);
    if (fd != ANET_ERR) fd = anetListen(err, fd, info->ai_addr, info->ai_addrlen, backlog);
    int saved = errno;
    freeaddrinfo(info);
    errno = saved;
    return fd;
}

int anetTcpServer(char *err, int port, const char *bindaddr, int backlog) {
    return anetTcpGenericServer(err, port, bindaddr, AF_INET, backlog);
}

int anetTcp6Server(char *err, int port, const char *bindaddr, int backlog) {
    return anetTcpGenericServer(err, port, bindaddr, AF_INET6, backlog);
}

static int anetUnixFillAddr(char *err, const char *path, struct sockaddr_un *sun) {
    size_t len = strlen(path);
    memset(sun, 0, sizeof(*sun));
    sun->sun_family = AF_UNIX;
    if (len == 0 || len >= sizeof(sun->sun_path)) {
        anetSetError(err, "unix socket path %s (%zu bytes; the limit is %zu)",
                     len ? "too long" : "empty", len, sizeof(sun->sun_path) - 1);
        errno = ENAMETOOLONG;
        return ANET_ERR;
    }
    memcpy(sun->sun_path, path, len + 1);
    return ANET_OK;
}

/* Removes a leftover socket file at path, unless a process still listens on
 * it (then binding would silently steal its clients) or it is not a socket. */
static int anetUnixRemoveStale(char *err, const char *path, const struct sockaddr_un *sun) {
    struct stat st;
    if (lstat(path, &st) == -1) return ANET_OK;   /* nothing there; bind decides */
    if (!S_ISSOCK(st.st_mode)) {
        anetSetError(err, "%s exists and is not a unix socket", path);
        errno = EADDRINUSE;
        return ANET_ERR;
    }
    int probe = anetSocket(err, AF_UNIX, SOCK_STREAM, 0);
    if (probe == ANET_ERR) return ANET_ERR;
    int rc = connect(probe, (const struct sockaddr *)sun, sizeof(*sun));
    int connectErrno = errno;
    close(probe);
    if (rc == 0 || connectErrno == EAGAIN) {
        anetSetError(err, "unix socket %s is in use by another process", path);
        errno = EADDRINUSE;
        return ANET_ERR;
    }
    if (unlink(path) == -1 && errno != ENOENT) {
        anetSetError(err, "removing stale unix socket %s: %s", path, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

int anetUnixServer(char *err, const char *path, mode_t perm, int backlog) {
    struct sockaddr_un sun;
    if (anetUnixFillAddr(err, path, &sun) == ANET_ERR) return ANET_ERR;
    if (anetUnixRemoveStale(err, path, &sun) == ANET_ERR) return ANET_ERR;
    int fd = anetSocket(err, AF_UNIX, SOCK_STREAM, 0);
    if (fd == ANET_ERR) return ANET_ERR;
    if (anetListen(err, fd, (struct sockaddr *)&sun, sizeof(sun), backlog) == ANET_ERR)
        return ANET_ERR;
    if (perm != 0 && chmod(path, perm) == -1) {
        anetSetError(err, "chmod %s: %s", path, strerror(errno));
        int saved = errno;
        unlink(path);
        errno = saved;
        return anetFail(fd);
    }
    return fd;
}

/* A group's id from /etc/group itself: a static glibc build's getgrnam()
 * needs the NSS modules of the glibc it was linked with, which a machine
 * (or an emulator) running it may not have. 1 found. */
static int anetGroupFromFile(const char *group, gid_t *gid) {
    FILE *fp = fopen("/etc/group", "r");
    if (fp == NULL) return 0;
    char line[1024];
    size_t len = strlen(group);
    int found = 0;
    while (!found && fgets(line, sizeof line, fp)) {
        if (strncmp(line, group, len) != 0 || line[len] != ':') continue;
        char *gidField = strchr(line + len + 1, ':'); /* after the password field */
        if (gidField == NULL) continue;
        char *end;
        unsigned long n = strtoul(gidField + 1, &end, 10);
        if (end != gidField + 1 && (*end == ':' || *end == '\n' || *end == '\0')) {
            *gid = (gid_t)n;
            found = 1;
        }
    }
    fclose(fp);
    return found;
}

/* A group name, or a number, as a gid. 1 found. */
static int anetResolveGroup(const char *group, gid_t *gid) {
    struct group *gr = getgrnam(group);
    if (gr) {
        *gid = gr->gr_gid;
        return 1;
    }
    if (anetGroupFromFile(group, gid)) return 1;
    char *end;
    errno = 0;
    unsigned long n = strtoul(group, &end, 10);
    if (*group == '\0' || *end != '\0' || errno != 0 || n != (gid_t)n) return 0;
    *gid = (gid_t)n;
    return 1;
}

/* Gives the socket file at `path` to `group` -- a group name, or a number --
 * or back to the process's own group when group is NULL. */
int anetUnixSetGroup(char *err, const char *path, const char *group) {
    gid_t gid = getegid();
    if (group && !anetResolveGroup(group, &gid)) {
        anetSetError(err, "unknown group %s", group);
        return ANET_ERR;
    }
    if (chown(path, (uid_t)-1, gid) == -1) {
        anetSetError(err, "chown %s: %s", path, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* ---- accepting ------------------------------------------------------------------- */

static int anetGenericAccept(char *err, int serversock, struct sockaddr_storage *ss) {
    socklen_t len = sizeof(*ss);
    int fd;
    do {
#if defined(__linux__)
        fd = accept4(serversock, (struct sockaddr *)ss, &len, SOCK_NONBLOCK | SOCK_CLOEXEC);
#else
        fd = accept(serversock, (struct sockaddr *)ss, &len);
#endif
    } while (fd == -1 && errno == EINTR);
    if (fd == -1) {
        anetSetError(err, "accept: %s", strerror(errno));
        return ANET_ERR;
    }
#if !defined(__linux__)
    if (anetCloexec(fd) == ANET_ERR || anetNonBlock(err, fd) == ANET_ERR) {
        anetSetError(err, "accept: setting flags: %s", strerror(errno));
        return anetFail(fd);
    }
#endif
    return fd;
}

int anetTcpAccept(char *err, int serversock, char *ip, size_t ip_len, int *port) {
    struct sockaddr_storage ss;
    memset(&ss, 0, sizeof(ss));
    int fd = anetGenericAccept(err, serversock, &ss);
    if (fd == ANET_ERR) return ANET_ERR;
    if ((ip || port) && anetInetToString(&ss, ip, ip_len, port) == ANET_ERR) {
        anetSetError(err, "accept: formatting the peer address: %s", strerror(errno));
        return anetFail(fd);
    }
    return fd;
}

int anetUnixAccept(char *err, int serversock) {
    struct sockaddr_storage ss;
    return anetGenericAccept(err, serversock, &ss);
}

/* ---- connecting ------------------------------------------------------------------ */

/* Binds fd to the first address source_addr resolves to. */
static int anetBindSource(char *err, int fd, const char *source_addr, int family) {
    struct addrinfo *info;
    if (anetGetAddrInfo(err, source_addr, 0, family, AI_PASSIVE, &info) == ANET_ERR)
        return ANET_ERR;
    int rc = bind(fd, info->ai_addr, info->ai_addrlen);
    int saved = errno;
    freeaddrinfo(info);
    errno = saved;
    if (rc == -1) {
        anetSetError(err, "bind %s: %s", source_addr, strerror(errno));
        return ANET_ERR;
    }
    return ANET_OK;
}

/* One connection attempt to one resolved address; the fd, or ANET_ERR. */
static int anetTryConnect(char *err, const struct addrinfo *ai, const char *source_addr, int flags) {
    int fd = anetSocket(err, ai->ai_family, ai->ai_socktype, ai->ai_protocol);
    if (fd == ANET_ERR) return ANET_ERR;
    if (anetSetReuseAddr(err, fd) == ANET_ERR) return anetFail(fd);
    if ((flags & ANET_CONNECT_NONBLOCK) && anetNonBlock(err, fd) == ANET_ERR) return anetFail(fd);
    if (source_addr && anetBindSource(err, fd, source_addr, ai->ai_family) == ANET_ERR) {
        if (!(flags & ANET_CONNECT_BE_BINDING)) return anetFail(fd);
        close(fd);
        return anetTryConnect(err, ai, NULL, flags);
    }
    if (connect(fd, ai->ai_addr, ai->ai_addrlen) == 0) return fd;
    if (errno == EINPROGRESS && (flags & ANET_CONNECT_NONBLOCK)) return fd;
    anetSetError(err, "connect: %s", strerror(errno));
    return anetFail(fd);
}

static int anetTcpGenericConnect(char *err, const char *addr, int port,
                                 const char *source_addr, int flags) {
    struct addrinfo *info;
    if (anetGetAddrInfo(err, addr, port, AF_UNSPEC, 0, &info) == ANET_ERR) return ANET_ERR;
    int fd = ANET_ERR;
    for (struct addrinfo *ai = info; ai != NULL && fd == ANET_ERR; ai = ai->ai_next)
        fd = anetTryConnect(err, ai, source_addr, flags);
    int saved = errno;
    freeaddrinfo(info);
    errno = saved;
    return fd;
}

int anetTcpConnect(char *err, const char *addr, int port) {
    return anetTcpGenericConnect(err, addr, port, NULL, ANET_CONNECT_NONE);
}

int anetTcpNonBlockConnect(char *err, const char *addr, int port) {
    return anetTcpGenericConnect(err, addr, port, NULL, ANET_CONNECT_NONBLOCK);
}

int anetTcpNonBlockBestEffortBindConnect(char *err, const char *addr, int port,
                                         const char *source_addr) {
    return anetTcpGenericConnect(err, addr, port, source_addr,
                                 ANET_CONNECT_NONBLOCK | ANET_CONNECT_BE_BINDING);
}

static int anetUnixGenericConnect(char *err, const char *path, int flags) {
    struct sockaddr_un sun;
    if (anetUnixFillAddr(err, path, &sun) == ANET_ERR) return ANET_ERR;
    int fd = anetSocket(err, AF_UNIX, SOCK_STREAM, 0);
    if (fd == ANET_ERR) return ANET_ERR;
    if ((flags & ANET_CONNECT_NONBLOCK) && anetNonBlock(err, fd) == ANET_ERR) return anetFail(fd);
    if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == 0) return fd;
    if (errno == EINPROGRESS && (flags & ANET_CONNECT_NONBLOCK)) return fd;
    anetSetError(err, "connect %s: %s", path, strerror(errno));
    return anetFail(fd);
}

int anetUnixConnect(char *err, const char *path) {
    return anetUnixGenericConnect(err, path, ANET_CONNECT_NONE);
}

int anetUnixNonBlockConnect(char *err, const char *path) {
    return anetUnixGenericConnect(err, path, ANET_CONNECT_NONBLOCK);
}
