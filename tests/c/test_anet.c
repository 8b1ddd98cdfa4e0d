/* test_anet.c -- unit tests for the socket helpers (src/lib/anet.c).
 *
 * Only loopback addresses and unix sockets in a private temporary directory
 * are used. 192.0.2.1 (TEST-NET-1, never assigned to a host) is used only as
 * an address bind() must refuse; no packet is ever sent to it. IPv6 tests
 * skip, saying why, when the host has no ::1.
 */
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <unistd.h>

#include "ae.h"
#include "anet.h"
#include "test.h"

static char tmpdir[64];

static int sock_port(int fd) {
    int port = -1;
    char ip[ANET_ADDR_STR_LEN];
    CHECK_EQ_INT(anetFdToString(fd, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    return port;
}

static int int_sockopt(int fd, int level, int option) {
    int value = -1;
    socklen_t len = sizeof(value);
    if (getsockopt(fd, level, option, &value, &len) == -1) return -1;
    return value;
}

static void test_tcp_server_connect_accept_exchange(void) {
    char err[ANET_ERR_LEN] = "";
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    CHECK(server >= 0);
    if (server < 0) {
        printf("      %s\n", err);
        return;
    }
    CHECK(fcntl(server, F_GETFD) & FD_CLOEXEC);
    CHECK(int_sockopt(server, SOL_SOCKET, SO_REUSEADDR) != 0);
    char ip[ANET_ADDR_STR_LEN];
    int port = 0;
    CHECK_EQ_INT(anetFdToString(server, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    CHECK(port > 0 && port <= 65535);

    int client = anetTcpConnect(err, "127.0.0.1", port);
    CHECK(client >= 0);
    char peer_ip[ANET_IP_STR_LEN];
    int peer_port = 0;
    int conn = anetTcpAccept(err, server, peer_ip, sizeof(peer_ip), &peer_port);
    CHECK(conn >= 0);
    CHECK_EQ_STR(peer_ip, "127.0.0.1");
    CHECK_EQ_INT(peer_port, sock_port(client));
    CHECK(fcntl(conn, F_GETFL) & O_NONBLOCK);   /* accepted sockets are non-blocking */
    CHECK(fcntl(conn, F_GETFD) & FD_CLOEXEC);
    CHECK(fcntl(client, F_GETFD) & FD_CLOEXEC);

    /* Both ends agree on who is who. */
    int p = 0;
    CHECK_EQ_INT(anetFdToString(client, ip, sizeof(ip), &p, FD_TO_PEER_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    CHECK_EQ_INT(p, port);
    char addr[ANET_PEER_STR_LEN], expect[ANET_PEER_STR_LEN];
    anetFormatFdAddr(conn, addr, sizeof(addr), FD_TO_PEER_NAME);
    snprintf(expect, sizeof(expect), "127.0.0.1:%d", peer_port);
    CHECK_EQ_STR(addr, expect);
    CHECK_EQ_INT(anetIsLocalPeer(conn), 1);
    CHECK_EQ_INT(anetIsLocalPeer(client), 1);

    /* Non-blocking exchange. */
    char buf[16];
    errno = 0;
    CHECK(read(conn, buf, sizeof(buf)) == -1 && (errno == EAGAIN || errno == EWOULDBLOCK));
    CHECK(write(client, "hello", 5) == 5);
    CHECK_EQ_INT(aeWait(conn, AE_READABLE, 5000), AE_READABLE);
    CHECK(read(conn, buf, sizeof(buf)) == 5);
    CHECK_EQ_MEM(buf, "hello", 5);
    CHECK(write(conn, "world!", 6) == 6);
    CHECK(read(client, buf, sizeof(buf)) == 6);   /* client is blocking */
    CHECK_EQ_MEM(buf, "world!", 6);

    /* Nothing pending on a non-blocking server: EAGAIN, with a message. */
    CHECK_EQ_INT(anetNonBlock(err, server), ANET_OK);
    err[0] = '\0';
    errno = 0;
    CHECK_EQ_INT(anetTcpAccept(err, server, NULL, 0, NULL), ANET_ERR);
    CHECK(errno == EAGAIN || errno == EWOULDBLOCK);
    CHECK(strncmp(err, "accept: ", 8) == 0);
    close(client);
    close(conn);
    close(server);
}

static void test_nonblocking_connect(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    CHECK(server >= 0);
    int client = anetTcpNonBlockConnect(err, "127.0.0.1", sock_port(server));
    CHECK(client >= 0);
    CHECK(fcntl(client, F_GETFL) & O_NONBLOCK);
    CHECK(aeWait(client, AE_WRITABLE, 5000) & AE_WRITABLE);
    CHECK_EQ_INT(anetGetError(client), 0);
    int conn = anetTcpAccept(err, server, NULL, 0, NULL);   /* ip/port optional */
    CHECK(conn >= 0);
    close(conn);
    close(client);

    /* An unbindable source address is given up on, not fatal. */
    client = anetTcpNonBlockBestEffortBindConnect(err, "127.0.0.1", sock_port(server), "192.0.2.1");
    CHECK(client >= 0);
    CHECK(aeWait(client, AE_WRITABLE, 5000) & AE_WRITABLE);
    CHECK_EQ_INT(anetGetError(client), 0);
    close(client);
    /* A bindable one is used. */
    client = anetTcpNonBlockBestEffortBindConnect(err, "127.0.0.1", sock_port(server), "127.0.0.1");
    CHECK(client >= 0);
    CHECK(aeWait(client, AE_WRITABLE, 5000) & AE_WRITABLE);
    char ip[ANET_ADDR_STR_LEN];
    CHECK_EQ_INT(anetFdToString(client, ip, sizeof(ip), NULL, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    close(client);
    close(server);
}

static void test_connect_refused(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    CHECK(server >= 0);
    int port = sock_port(server);
    close(server);   /* nobody listens there now */
    err[0] = '\0';
    errno = 0;
    CHECK_EQ_INT(anetTcpConnect(err, "127.0.0.1", port), ANET_ERR);
    CHECK_EQ_INT(errno, ECONNREFUSED);
    CHECK(strstr(err, "connect") != NULL);
    CHECK_EQ_INT(anetTcpConnect(NULL, "127.0.0.1", port), ANET_ERR);   /* err optional */
}

static void test_tcp_server_errors(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    CHECK(server >= 0);
    int port = sock_port(server);

    err[0] = '\0';
    errno = 0;
    CHECK_EQ_INT(anetTcpServer(err, port, "127.0.0.1", 16), ANET_ERR);
    CHECK_EQ_INT(errno, EADDRINUSE);
    CHECK(strstr(err, "bind") != NULL);
    CHECK(strstr(err, strerror(EADDRINUSE)) != NULL);
    CHECK_EQ_INT(anetIsAddrUnavailable(errno), 0);   /* in use is a real error */
    CHECK_EQ_INT(anetTcpServer(NULL, port, "127.0.0.1", 16), ANET_ERR);

    err[0] = '\0';
    CHECK_EQ_INT(anetTcpServer(err, 70000, "127.0.0.1", 16), ANET_ERR);
    CHECK(strstr(err, "invalid port") != NULL);
    CHECK_EQ_INT(anetTcpServer(err, -1, NULL, 16), ANET_ERR);

    /* An address this host does not have: the optional-bind case. */
    err[0] = '\0';
    errno = 0;
    CHECK_EQ_INT(anetTcpServer(err, 0, "192.0.2.1", 16), ANET_ERR);
    CHECK_EQ_INT(anetIsAddrUnavailable(errno), 1);
    CHECK(err[0] != '\0');

    /* A numeric address of the wrong family for the call. */
    errno = 0;
    CHECK_EQ_INT(anetTcpServer(err, 0, "::1", 16), ANET_ERR);
    CHECK_EQ_INT(anetIsAddrUnavailable(errno), 1);
    close(server);
}

static void test_wildcard_bind(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "*", 16);
    CHECK(server >= 0);
    char ip[ANET_ADDR_STR_LEN];
    int port;
    CHECK_EQ_INT(anetFdToString(server, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "0.0.0.0");
    close(server);
    server = anetTcpServer(err, 0, NULL, 16);
    CHECK(server >= 0);
    CHECK_EQ_INT(anetFdToString(server, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "0.0.0.0");
    /* Reachable through loopback. */
    int client = anetTcpConnect(err, "127.0.0.1", port);
    CHECK(client >= 0);
    close(client);
    close(server);
}

static void test_ipv6_loopback(void) {
    char err[ANET_ERR_LEN] = "";
    int server = anetTcp6Server(err, 0, "::1", 16);
    if (server == ANET_ERR) {
        CHECK(anetIsAddrUnavailable(errno));   /* any other failure is a bug */
        printf("    [skip] IPv6 loopback tests: this host cannot bind ::1 (%s)\n", err);
        return;
    }
    CHECK_EQ_INT(int_sockopt(server, IPPROTO_IPV6, IPV6_V6ONLY), 1);
    char ip[ANET_ADDR_STR_LEN];
    int port = 0;
    CHECK_EQ_INT(anetFdToString(server, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, "::1");
    int client = anetTcpConnect(err, "::1", port);
    CHECK(client >= 0);
    char peer[ANET_IP_STR_LEN];
    int peer_port = 0;
    int conn = anetTcpAccept(err, server, peer, sizeof(peer), &peer_port);
    CHECK(conn >= 0);
    CHECK_EQ_STR(peer, "::1");
    CHECK_EQ_INT(peer_port, sock_port(client));
    CHECK_EQ_INT(anetIsLocalPeer(conn), 1);
    char addr[ANET_PEER_STR_LEN], expect[ANET_PEER_STR_LEN];
    anetFormatFdAddr(client, addr, sizeof(addr), FD_TO_PEER_NAME);
    snprintf(expect, sizeof(expect), "[::1]:%d", port);
    CHECK_EQ_STR(addr, expect);
    close(conn);
    close(client);
    close(server);

    /* Wildcard IPv6 with V6ONLY can share a port number with IPv4. */
    server = anetTcp6Server(err, 0, "::*", 16);
    CHECK(server >= 0);
    int v4 = anetTcpServer(err, sock_port(server), "0.0.0.0", 16);
    CHECK(v4 >= 0);
    if (v4 >= 0) close(v4);
    close(server);
}

static void test_unix_socket_server(void) {
    char err[ANET_ERR_LEN] = "";
    char path[128];
    snprintf(path, sizeof(path), "%s/srv.sock", tmpdir);
    int server = anetUnixServer(err, path, 0700, 16);
    CHECK(server >= 0);
    if (server < 0) {
        printf("      %s\n", err);
        return;
    }
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISSOCK(st.st_mode));
    CHECK_EQ_INT(st.st_mode & 0777, 0700);
    CHECK(fcntl(server, F_GETFD) & FD_CLOEXEC);

    int client = anetUnixConnect(err, path);
    CHECK(client >= 0);
    int conn = anetUnixAccept(err, server);
    CHECK(conn >= 0);
    CHECK(fcntl(conn, F_GETFL) & O_NONBLOCK);
    CHECK(fcntl(conn, F_GETFD) & FD_CLOEXEC);

    /* Unix addresses are the socket path, port 0, from either end. */
    char ip[ANET_ADDR_STR_LEN];
    int port = -1;
    CHECK_EQ_INT(anetFdToString(conn, ip, sizeof(ip), &port, FD_TO_PEER_NAME), ANET_OK);
    CHECK_EQ_STR(ip, path);
    CHECK_EQ_INT(port, 0);
    CHECK_EQ_INT(anetFdToString(conn, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, path);
    CHECK_EQ_INT(anetFdToString(client, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK_EQ_STR(ip, path);
    char addr[ANET_PEER_STR_LEN], expect[ANET_PEER_STR_LEN];
    anetFormatFdAddr(conn, addr, sizeof(addr), FD_TO_PEER_NAME);
    snprintf(expect, sizeof(expect), "%s:0", path);
    CHECK_EQ_STR(addr, expect);
    CHECK_EQ_INT(anetIsLocalPeer(conn), 1);
    /* Too small a buffer is an error, not a silently cut path. */
    CHECK_EQ_INT(anetFdToString(conn, ip, 8, &port, FD_TO_PEER_NAME), ANET_ERR);
    CHECK_EQ_STR(ip, "?");

    CHECK(write(client, "ux", 2) == 2);
    char buf[4];
    CHECK_EQ_INT(aeWait(conn, AE_READABLE, 5000), AE_READABLE);
    CHECK(read(conn, buf, sizeof(buf)) == 2);
    CHECK_EQ_MEM(buf, "ux", 2);

    /* Keepalive and no-delay do not apply to unix sockets; no crash. */
    CHECK_EQ_INT(anetEnableTcpNoDelay(err, conn), ANET_ERR);
    CHECK(strstr(err, "TCP_NODELAY") != NULL);

    /* A live socket at the path is refused, and left alone. */
    err[0] = '\0';
    CHECK_EQ_INT(anetUnixServer(err, path, 0, 16), ANET_ERR);
    CHECK(strstr(err, "in use") != NULL);
    int again = anetUnixConnect(err, path);   /* the first server still answers */
    CHECK(again >= 0);
    if (again >= 0) close(again);
    close(conn);
    close(client);
    close(server);

    /* Once its owner is gone the file is stale: replaced silently. */
    CHECK(stat(path, &st) == 0);
    server = anetUnixServer(err, path, 0755, 16);
    CHECK(server >= 0);
    CHECK(stat(path, &st) == 0);
    CHECK_EQ_INT(st.st_mode & 0777, 0755);
    client = anetUnixNonBlockConnect(err, path);
    CHECK(client >= 0);
    close(client);
    close(server);
    unlink(path);
}

static void test_unix_socket_errors(void) {
    char err[ANET_ERR_LEN] = "";
    char path[400];
    /* Longer than any sun_path (108 on Linux, 104 on the BSDs). */
    int n = snprintf(path, sizeof(path), "%s/", tmpdir);
    memset(path + n, 'a', 300);
    path[n + 300] = '\0';
    errno = 0;
    CHECK_EQ_INT(anetUnixServer(err, path, 0, 16), ANET_ERR);
    CHECK_EQ_INT(errno, ENAMETOOLONG);
    CHECK(strstr(err, "too long") != NULL);
    CHECK_EQ_INT(anetUnixConnect(err, path), ANET_ERR);
    CHECK(strstr(err, "too long") != NULL);
    CHECK_EQ_INT(anetUnixServer(err, "", 0, 16), ANET_ERR);
    CHECK(strstr(err, "empty") != NULL);

    /* A regular file at the path is never unlinked. */
    snprintf(path, sizeof(path), "%s/regular", tmpdir);
    int fd = open(path, O_CREAT | O_WRONLY, 0600);
    CHECK(fd >= 0);
    close(fd);
    err[0] = '\0';
    CHECK_EQ_INT(anetUnixServer(err, path, 0, 16), ANET_ERR);
    CHECK(strstr(err, "not a unix socket") != NULL);
    struct stat st;
    CHECK(stat(path, &st) == 0 && S_ISREG(st.st_mode));
    unlink(path);

    /* A directory that does not exist. */
    snprintf(path, sizeof(path), "%s/missing/dir/s.sock", tmpdir);
    err[0] = '\0';
    CHECK_EQ_INT(anetUnixServer(err, path, 0, 16), ANET_ERR);
    CHECK(strstr(err, "bind") != NULL);
    snprintf(path, sizeof(path), "%s/nobody.sock", tmpdir);
    CHECK_EQ_INT(anetUnixConnect(err, path), ANET_ERR);
    CHECK(strstr(err, "connect") != NULL);
}

static void test_socket_options(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    int fd = anetTcpConnect(err, "127.0.0.1", sock_port(server));
    CHECK(fd >= 0);

    CHECK_EQ_INT(anetEnableTcpNoDelay(err, fd), ANET_OK);
    CHECK(int_sockopt(fd, IPPROTO_TCP, TCP_NODELAY) != 0);
    CHECK_EQ_INT(anetDisableTcpNoDelay(err, fd), ANET_OK);
    CHECK_EQ_INT(int_sockopt(fd, IPPROTO_TCP, TCP_NODELAY), 0);

    CHECK_EQ_INT(anetKeepAlive(err, fd, 0), ANET_OK);   /* OS defaults */
    CHECK(int_sockopt(fd, SOL_SOCKET, SO_KEEPALIVE) != 0);
    CHECK_EQ_INT(anetKeepAlive(err, fd, 300), ANET_OK);
#ifdef TCP_KEEPIDLE
    CHECK_EQ_INT(int_sockopt(fd, IPPROTO_TCP, TCP_KEEPIDLE), 300);
#endif
#ifdef TCP_KEEPINTVL
    CHECK_EQ_INT(int_sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 100);
#endif
#ifdef TCP_KEEPCNT
    CHECK_EQ_INT(int_sockopt(fd, IPPROTO_TCP, TCP_KEEPCNT), 3);
#endif
    CHECK_EQ_INT(anetKeepAlive(err, fd, 1), ANET_OK);   /* interval/3 rounds up to 1 */
#ifdef TCP_KEEPINTVL
    CHECK_EQ_INT(int_sockopt(fd, IPPROTO_TCP, TCP_KEEPINTVL), 1);
#endif

    CHECK_EQ_INT(anetRecvTimeout(err, fd, 1500), ANET_OK);
    struct timeval tv;
    socklen_t len = sizeof(tv);
    CHECK(getsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, &len) == 0);
    CHECK_EQ_INT(tv.tv_sec, 1);
    CHECK(tv.tv_usec >= 490000 && tv.tv_usec <= 510000);   /* kernel rounds to ticks */
    CHECK_EQ_INT(anetSendTimeout(err, fd, 2000), ANET_OK);
    len = sizeof(tv);
    CHECK(getsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &tv, &len) == 0);
    CHECK_EQ_INT(tv.tv_sec, 2);
    err[0] = '\0';
    CHECK_EQ_INT(anetSendTimeout(err, fd, -1), ANET_ERR);
    CHECK(strstr(err, "negative") != NULL);
    CHECK_EQ_INT(anetRecvTimeout(err, fd, 0), ANET_OK);   /* 0: no timeout */

    CHECK_EQ_INT(anetNonBlock(err, fd), ANET_OK);
    CHECK(fcntl(fd, F_GETFL) & O_NONBLOCK);
    CHECK_EQ_INT(anetNonBlock(err, fd), ANET_OK);   /* idempotent */
    CHECK_EQ_INT(anetBlock(err, fd), ANET_OK);
    CHECK(!(fcntl(fd, F_GETFL) & O_NONBLOCK));
    CHECK_EQ_INT(anetSetReuseAddr(err, fd), ANET_OK);
    CHECK_EQ_INT(anetGetError(fd), 0);
    close(fd);
    close(server);

    /* Options on something that is not a socket fail with a message. */
    int p[2];
    CHECK(pipe(p) == 0);
    err[0] = '\0';
    CHECK_EQ_INT(anetEnableTcpNoDelay(err, p[0]), ANET_ERR);
    CHECK(err[0] != '\0');
    CHECK_EQ_INT(anetKeepAlive(err, p[0], 10), ANET_ERR);
    CHECK_EQ_INT(anetCloexec(p[0]), ANET_OK);
    CHECK(fcntl(p[0], F_GETFD) & FD_CLOEXEC);
    CHECK(anetGetError(p[0]) != 0);   /* ENOTSOCK */
    char ip[ANET_ADDR_STR_LEN] = "unchanged";
    int port = 77;
    CHECK_EQ_INT(anetFdToString(p[0], ip, sizeof(ip), &port, FD_TO_PEER_NAME), ANET_ERR);
    CHECK_EQ_STR(ip, "?");
    CHECK_EQ_INT(port, 0);
    CHECK_EQ_INT(anetIsLocalPeer(p[0]), 0);
    close(p[0]);
    close(p[1]);
    CHECK_EQ_INT(anetNonBlock(err, p[0]), ANET_ERR);   /* closed fd */
    CHECK(strstr(err, "fcntl") != NULL);
    CHECK_EQ_INT(anetCloexec(-1), ANET_ERR);
}

static void test_fd_to_string_small_buffers(void) {
    char err[ANET_ERR_LEN];
    int server = anetTcpServer(err, 0, "127.0.0.1", 16);
    char ip[8];   /* "127.0.0.1" needs 10 */
    int port = 5;
    CHECK_EQ_INT(anetFdToString(server, ip, sizeof(ip), &port, FD_TO_SOCK_NAME), ANET_ERR);
    CHECK_EQ_STR(ip, "?");
    CHECK_EQ_INT(port, 0);
    CHECK_EQ_INT(anetFdToString(server, NULL, 0, &port, FD_TO_SOCK_NAME), ANET_OK);
    CHECK(port > 0);
    close(server);

    /* socketpair: both ends unnamed. */
    int sp[2];
    CHECK(socketpair(AF_UNIX, SOCK_STREAM, 0, sp) == 0);
    char name[ANET_ADDR_STR_LEN];
    CHECK_EQ_INT(anetFdToString(sp[0], name, sizeof(name), &port, FD_TO_PEER_NAME), ANET_OK);
    CHECK_EQ_STR(name, "/unixsocket");
    CHECK_EQ_INT(anetIsLocalPeer(sp[0]), 1);
    close(sp[0]);
    close(sp[1]);
}

static void test_format_addr(void) {
    char buf[ANET_PEER_STR_LEN];
    CHECK_EQ_INT(anetFormatAddr(buf, sizeof(buf), "10.1.2.3", 6379), 13);
    CHECK_EQ_STR(buf, "10.1.2.3:6379");
    anetFormatAddr(buf, sizeof(buf), "::1", 6379);
    CHECK_EQ_STR(buf, "[::1]:6379");
    anetFormatAddr(buf, sizeof(buf), "fe80::1:2", 0);
    CHECK_EQ_STR(buf, "[fe80::1:2]:0");
    anetFormatAddr(buf, sizeof(buf), "/tmp/redis.sock", 0);
    CHECK_EQ_STR(buf, "/tmp/redis.sock:0");
    anetFormatAddr(buf, sizeof(buf), "/tmp/odd:name.sock", 0);   /* a path, not IPv6 */
    CHECK_EQ_STR(buf, "/tmp/odd:name.sock:0");
    char tiny[6];
    CHECK_EQ_INT(anetFormatAddr(tiny, sizeof(tiny), "1.2.3.4", 80), 10);   /* needed length */
    CHECK_EQ_STR(tiny, "1.2.3");
}

static void test_resolve(void) {
    char err[ANET_ERR_LEN];
    char ip[ANET_IP_STR_LEN];
    CHECK_EQ_INT(anetResolve(err, "127.0.0.1", ip, sizeof(ip), ANET_IP_ONLY), ANET_OK);
    CHECK_EQ_STR(ip, "127.0.0.1");
    CHECK_EQ_INT(anetResolve(err, "::1", ip, sizeof(ip), ANET_IP_ONLY), ANET_OK);
    CHECK_EQ_STR(ip, "::1");
    CHECK_EQ_INT(anetResolve(err, "0:0:0:0:0:0:0:1", ip, sizeof(ip), ANET_IP_ONLY), ANET_OK);
    CHECK_EQ_STR(ip, "::1");   /* canonical form */
    /* IP only: a name is refused without any lookup. */
    err[0] = '\0';
    CHECK_EQ_INT(anetResolve(err, "localhost", ip, sizeof(ip), ANET_IP_ONLY), ANET_ERR);
    CHECK(strstr(err, "localhost") != NULL);
    CHECK_EQ_INT(anetResolve(err, "127.0.0.1", ip, 4, ANET_IP_ONLY), ANET_ERR);
}

static void test_optional_bind_helpers(void) {
    CHECK_EQ_INT(anetIsOptionalBindAddr("-::1"), 1);
    CHECK_EQ_INT(anetIsOptionalBindAddr("-127.0.0.1"), 1);
    CHECK_EQ_INT(anetIsOptionalBindAddr("::1"), 0);
    CHECK_EQ_INT(anetIsOptionalBindAddr(""), 0);
    CHECK_EQ_INT(anetIsOptionalBindAddr(NULL), 0);
    CHECK_EQ_INT(anetIsAddrUnavailable(EADDRNOTAVAIL), 1);
    CHECK_EQ_INT(anetIsAddrUnavailable(EAFNOSUPPORT), 1);
    CHECK_EQ_INT(anetIsAddrUnavailable(EPROTONOSUPPORT), 1);
    CHECK_EQ_INT(anetIsAddrUnavailable(EADDRINUSE), 0);
    CHECK_EQ_INT(anetIsAddrUnavailable(EACCES), 0);
    CHECK_EQ_INT(anetIsAddrUnavailable(0), 0);
}

static void setup_tmpdir(void) {
    snprintf(tmpdir, sizeof(tmpdir), "/tmp/test-anet-XXXXXX");
    if (mkdtemp(tmpdir) == NULL) {
        perror("mkdtemp");
        exit(1);
    }
}

static void cleanup_tmpdir(void) {
    rmdir(tmpdir);
}

TEST_MAIN(
    signal(SIGPIPE, SIG_IGN);
    setup_tmpdir();
    RUN(test_tcp_server_connect_accept_exchange);
    RUN(test_nonblocking_connect);
    RUN(test_connect_refused);
    RUN(test_tcp_server_errors);
    RUN(test_wildcard_bind);
    RUN(test_ipv6_loopback);
    RUN(test_unix_socket_server);
    RUN(test_unix_socket_errors);
    RUN(test_socket_options);
    RUN(test_fd_to_string_small_buffers);
    RUN(test_format_addr);
    RUN(test_resolve);
    RUN(test_optional_bind_helpers);
    cleanup_tmpdir();
)
