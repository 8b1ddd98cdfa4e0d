/* anet.h -- thin helpers over BSD sockets: listening, accepting, connecting,
 * socket options and address formatting, for TCP (IPv4/IPv6) and unix
 * domain sockets.
 *
 * Design decisions:
 *  - Every function returns ANET_OK (or a file descriptor) on success and
 *    ANET_ERR on failure, with a one-line reason written to `err` (a buffer
 *    of at least ANET_ERR_LEN bytes, or NULL when the caller does not care)
 *    and errno left as the failing system call set it, so a caller can tell
 *    e.g. EADDRNOTAVAIL from EADDRINUSE. Nothing here logs or exits.
 *  - Every socket anet creates or accepts is close-on-exec (a forked child
 *    that execs must not keep clients' connections open); accepted sockets
 *    are also non-blocking, which is how the event loop uses them.
 *  - Optional bind addresses: a configured address written with a leading
 *    '-' (e.g. "-::1") means "skip it if this host cannot have it". anet
 *    does not interpret the '-': the caller checks anetIsOptionalBindAddr(),
 *    passes addr + 1, and on ANET_ERR consults anetIsAddrUnavailable(errno)
 *    to decide whether the failure is ignorable.
 *  - Unix-socket addresses are reported as the socket's path with port 0,
 *    from whichever end of the connection is named (an accepted client's
 *    own end is unnamed), which is what CLIENT LIST shows: addr=/path:0.
 */
#ifndef REDIS_ANET_H
#define REDIS_ANET_H

#include <stddef.h>
#include <sys/types.h>

#define ANET_OK 0
#define ANET_ERR (-1)
#define ANET_ERR_LEN 256

/* Buffer sizes: an IP address as text (INET6_ADDRSTRLEN), and any address
 * anetFdToString can produce (an IP, or a unix socket path). */
#define ANET_IP_STR_LEN 46
#define ANET_ADDR_STR_LEN 128
/* "ip:port" / "[ip6]:port" / "/path:0" */
#define ANET_PEER_STR_LEN (ANET_ADDR_STR_LEN + 16)

/* anetResolve flags */
#define ANET_NONE 0
#define ANET_IP_ONLY (1 << 0)   /* numeric addresses only, no DNS */

/* anetFdToString: which end of the socket */
#define FD_TO_PEER_NAME 0
#define FD_TO_SOCK_NAME 1

/* ---- listening and accepting ---------------------------------------------- */
/* bindaddr NULL or "*" (IPv6 also "::*") binds every address. port 0 lets
 * the OS pick one (read it back with anetFdToString(..., FD_TO_SOCK_NAME)).
 * The listening socket is blocking; make it non-blocking before handing it
 * to the event loop. anetTcp6Server sets IPV6_V6ONLY. */
int anetTcpServer(char *err, int port, const char *bindaddr, int backlog);
int anetTcp6Server(char *err, int port, const char *bindaddr, int backlog);
/* Removes a stale socket file at path first (one nobody listens on); refuses
 * a path another process is listening on or a non-socket file. perm != 0 is
 * applied with chmod after bind (until then the umask decides; put the
 * socket in a private directory if that window matters). */
int anetUnixServer(char *err, const char *path, mode_t perm, int backlog);
int anetUnixSetGroup(char *err, const char *path, const char *group); /* NULL: our own group */
/* Return a non-blocking, close-on-exec fd; ip/port may be NULL. ANET_ERR with
 * errno EAGAIN/EWOULDBLOCK when nothing is pending on a non-blocking server. */
int anetTcpAccept(char *err, int serversock, char *ip, size_t ip_len, int *port);
int anetUnixAccept(char *err, int serversock);

/* ---- connecting ------------------------------------------------------------------ */
/* addr may be a host name or a numeric IPv4/IPv6 address. The non-blocking
 * forms return as soon as the connection is under way (EINPROGRESS is
 * success): wait for writability, then check anetGetError(). */
int anetTcpConnect(char *err, const char *addr, int port);
int anetTcpNonBlockConnect(char *err, const char *addr, int port);
/* Binds to source_addr first when it is not NULL; if that bind fails the
 * connection is retried without it. */
int anetTcpNonBlockBestEffortBindConnect(char *err, const char *addr, int port,
                                         const char *source_addr);
int anetUnixConnect(char *err, const char *path);
int anetUnixNonBlockConnect(char *err, const char *path);
/* Resolves host to its first address as text into ipbuf. */
int anetResolve(char *err, const char *host, char *ipbuf, size_t ipbuf_len, int flags);

/* ---- socket options ---------------------------------------------------------- */
int anetNonBlock(char *err, int fd);
int anetBlock(char *err, int fd);
int anetCloexec(int fd);
int anetSetReuseAddr(char *err, int fd);
int anetEnableTcpNoDelay(char *err, int fd);
int anetDisableTcpNoDelay(char *err, int fd);
/* SO_KEEPALIVE; with interval > 0 seconds, also the first probe after
 * `interval` idle seconds, then probes every interval/3 s, 3 probes, where
 * the OS lets us set them. */
int anetKeepAlive(char *err, int fd, int interval);
/* ms >= 0; 0 means no timeout. */
int anetSendTimeout(char *err, int fd, long long ms);
int anetRecvTimeout(char *err, int fd, long long ms);
/* The pending socket error (SO_ERROR), e.g. of a non-blocking connect: 0 if
 * none, else an errno value. */
int anetGetError(int fd);

/* ---- addresses ----------------------------------------------------------------- */
/* ip gets the address text (or unix socket path, port 0); ip and port may be
 * NULL. On failure ip becomes "?" and port 0, and ANET_ERR is returned. A
 * buffer too small for the text is a failure (ENOSPC), not a truncation. */
int anetFdToString(int fd, char *ip, size_t ip_len, int *port, int fd_to_str_type);
/* "ip:port", "[ipv6]:port" or "/path:port"; returns what snprintf returns. */
int anetFormatAddr(char *buf, size_t buf_len, const char *ip, int port);
/* anetFdToString + anetFormatAddr. */
int anetFormatFdAddr(int fd, char *buf, size_t buf_len, int fd_to_str_type);
/* 1 when fd's peer is on this host: a unix socket, 127.0.0.0/8, ::1, or
 * ::ffff:127.x.y.z. 0 otherwise, and on error. */
int anetIsLocalPeer(int fd);

/* ---- optional bind addresses ("-::1") ------------------------------------ */
/* 1 when addr starts with '-': bind addr + 1, and ignore a failure for which
 * anetIsAddrUnavailable(errno) is true. */
int anetIsOptionalBindAddr(const char *addr);
/* 1 for errno values meaning "this host has no such address or family"
 * (EADDRNOTAVAIL, EAFNOSUPPORT, EPROTONOSUPPORT, ...), not "in use". */
int anetIsAddrUnavailable(int err);

#endif /* REDIS_ANET_H */
