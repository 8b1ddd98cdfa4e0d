/* shm-fault.c -- a misbehaving shared-memory client for tests/unit/shm.tcl.
 * It upgrades a unix-socket connection with CLIENT SHM, then commits one
 * fault and prints what it saw, one word per line:
 *
 *   shm-fault SOCKET MODE
 *   garbage        random bytes published as requests      -> "closed" (protocol error)
 *   head-beyond    request head past the ring               -> "closed"
 *   head-backwards a request, then head moved back          -> "closed"
 *   wrap-twice     request head two ring lengths ahead      -> "closed"
 *   tail-lie       reply tail ahead of the server's head    -> "closed"
 *   socket-bytes   bytes on the socket after the upgrade    -> "closed"
 *   truncate       ftruncate the memfd (smaller, larger)    -> "refused refused", then "+PONG"
 *   unmap          munmap the segment, then exit            -> "unmapped"
 *   half-request   half a command, then exit                -> "exiting"
 *   wait-reply     PING, then block for the reply (the test kills the
 *                  server meanwhile)                        -> "+PONG", then "error: ..."
 *   block-signal   clears O_NONBLOCK on every descriptor it got, fills the
 *                  one the server signals (an eventfd's counter to its
 *                  maximum; a socket: a datagram, then the server's side
 *                  as full as it goes), raises its "sleeping" flag and
 *                  sends PING: a server that writes its wake-up into a
 *                  descriptor the client can make blocking hangs there
 *                                                           -> "attacked", then waits
 *   block-drain    clears O_NONBLOCK, gets its connection closing after a
 *                  reply bigger than the ring (COMMAND, QUIT), empties the
 *                  server's wake-up descriptor itself and writes a byte on
 *                  the socket: a server that then drains that descriptor
 *                  with a plain read() hangs there             -> "attacked", then waits
 *
 * The two "block-" modes use plain system calls on the descriptors, not
 * the ring library's wake-up helpers, so they attack any server the same
 * way (they were written against the eventfd handshake, which hung).
 *
 * Built by the test with: cc -Isrc/lib tests/helpers/shm-fault.c src/lib/shmring.c src/lib/libassert.c
 * (the ring library itself, so the faults are precise; the server must
 * survive every one of them).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "shmring.h"

static int sock;
static shmringSegment seg;
static shmring req, rep;
static int server_efd, my_efd, seg_fd;

static void fail(const char *what) {
    printf("error: %s\n", what);
    exit(1);
}

static void upgrade(const char *path) {
    sock = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", path);
    if (connect(sock, (struct sockaddr *)&sa, sizeof(sa)) == -1) fail(strerror(errno));
    const char *cmd = "*4\r\n$6\r\nCLIENT\r\n$3\r\nSHM\r\n$8\r\nRINGSIZE\r\n$4\r\n4096\r\n";
    if (write(sock, cmd, strlen(cmd)) != (ssize_t)strlen(cmd)) fail("write");
    char buf[64];
    union { char b[CMSG_SPACE(3 * sizeof(int))]; struct cmsghdr a; } control;
    struct iovec iov = {.iov_base = buf, .iov_len = 5};
    struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.b, .msg_controllen = sizeof(control.b)};
    if (recvmsg(sock, &msg, MSG_WAITALL) != 5 || memcmp(buf, "+OK\r\n", 5)) fail("no +OK");
    struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
    if (!cm || cm->cmsg_type != SCM_RIGHTS) fail("no descriptors");
    int fds[3];
    memcpy(fds, CMSG_DATA(cm), sizeof(fds));
    const char *why;
    if (shmringSegmentAttach(&seg, fds[0], &why) != SHMRING_OK) fail(why);
    seg_fd = fds[0];
    server_efd = fds[1];
    my_efd = fds[2];
    shmringOpen(&req, &seg, SHMRING_REQUESTS, SHMRING_PRODUCER);
    shmringOpen(&rep, &seg, SHMRING_REPLIES, SHMRING_CONSUMER);
}

static void pokeHead(uint32_t v) {
    atomic_store((_Atomic uint32_t *)(void *)(seg.base + SHMRING_OFF_REQ_CTL), v);
    shmringSignal(server_efd);
}

/* Waits (5 s) for the server to close the socket. */
static void expectClosed(void) {
    struct pollfd p = {.fd = sock, .events = POLLIN};
    char b;
    if (poll(&p, 1, 5000) == 1 && recv(sock, &b, 1, MSG_DONTWAIT) <= 0) printf("closed\n");
    else printf("still-open\n");
}

static void send_(const char *s) {
    if (shmringWrite(&req, s, strlen(s)) != (ssize_t)strlen(s)) fail("ring write");
    shmringSignal(server_efd);
}

/* Reads one reply line through the ring (waiting on our wake-up end). */
static void printReply(void) {
    char line[256];
    size_t len = 0;
    for (;;) {
        char c;
        ssize_t n = shmringRead(&rep, &c, 1);
        if (n < 0) fail("reply ring broken");
        if (n == 1) {
            if (c == '\n') break;
            if (c != '\r' && len + 1 < sizeof(line)) line[len++] = c;
            continue;
        }
        shmringDrain(my_efd);
        if (shmringConsumerPrepareSleep(&rep)) continue;
        struct pollfd p[2] = {{.fd = my_efd, .events = POLLIN}, {.fd = sock, .events = POLLIN}};
        if (poll(p, 2, 10000) <= 0) fail("timeout");
        char b;
        if (p[1].revents && recv(sock, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0) fail("server closed the connection");
    }
    line[len] = '\0';
    printf("%s\n", line);
    fflush(stdout);
}

/* ---- the denial-of-service attempts ---- */

static void setNonblocking(int fd, int on) {
    int fl = fcntl(fd, F_GETFL);
    if (fl == -1 || fcntl(fd, F_SETFL, on ? fl | O_NONBLOCK : fl & ~O_NONBLOCK) == -1) fail("fcntl");
}

/* O_NONBLOCK is a property of the open file description: clearing it on
 * our copy clears it on the server's copy of the same descriptor. */
static void makeAllBlocking(void) {
    setNonblocking(seg_fd, 0);
    setNonblocking(server_efd, 0);
    setNonblocking(my_efd, 0);
}

static void writeU64(int fd, uint64_t v) {
    unsigned char b[8];
    memcpy(b, &v, 8);
    if (write(fd, b, 8) != 8) fail("write to a wake-up descriptor");
}

static void publish(const char *s) {
    if (shmringWrite(&req, s, strlen(s)) != (ssize_t)strlen(s)) fail("ring write");
}

static void holdOn(void) {
    printf("attacked\n");
    fflush(stdout);
    sleep(120); /* the test kills us */
}

static void attackSignal(void) {
    makeAllBlocking();
    writeU64(my_efd, 0xfffffffffffffffeULL); /* an eventfd: the largest count; +1 would block */
    atomic_store((_Atomic uint32_t *)(void *)(seg.base + SHMRING_OFF_REP_CTL + 128), 1); /* wake me */
    publish("*1\r\n$4\r\nPING\r\n");
    writeU64(server_efd, 1);
    unsigned char b[8] = {1};
    for (int i = 0; i < 100000; i++) /* a socket: fill the server's side (an eventfd: ENOTSOCK at once) */
        if (send(server_efd, b, 8, MSG_DONTWAIT) != 8) break;
    /* The server publishes the reply, then signals: once +PONG is in the
     * ring, a server that can block is blocked (or about to be). */
    _Atomic uint32_t *rep_head = (_Atomic uint32_t *)(void *)(seg.base + SHMRING_OFF_REP_CTL);
    for (int i = 0; atomic_load(rep_head) < 7; i++) {
        if (i == 10000) fail("no reply");
        usleep(1000);
    }
    holdOn();
}

static void attackDrain(void) {
    makeAllBlocking();
    publish("*1\r\n$7\r\nCOMMAND\r\n*1\r\n$4\r\nQUIT\r\n");
    writeU64(server_efd, 1);
    /* The reply ring fills (COMMAND's reply is far bigger), QUIT has been
     * read with it: the read handler now returns without reading. */
    _Atomic uint32_t *rep_head = (_Atomic uint32_t *)(void *)(seg.base + SHMRING_OFF_REP_CTL);
    for (int i = 0; atomic_load(rep_head) != seg.ring_size; i++) {
        if (i == 10000) fail("the reply ring did not fill");
        usleep(1000);
    }
    /* Empty the server's wake-up descriptor ourselves (non-blocking for a
     * moment, so we don't hang on it), then make the server look at it:
     * bytes on the socket wake its handler, which drains it. */
    setNonblocking(server_efd, 1);
    unsigned char b[8];
    for (int i = 0; i < 100000 && read(server_efd, b, 8) > 0; i++) {}
    setNonblocking(server_efd, 0);
    if (write(sock, "x", 1) != 1) fail("socket write");
    holdOn();
}

int main(int argc, char **argv) {
    if (argc != 3) return 2;
    upgrade(argv[1]);
    const char *mode = argv[2];
    setvbuf(stdout, NULL, _IONBF, 0);
    if (!strcmp(mode, "garbage")) {
        char junk[512];
        for (size_t i = 0; i < sizeof(junk); i++) junk[i] = (char)(rand() | 0x80);
        junk[0] = '*';
        memcpy(junk + sizeof(junk) - 2, "\r\n", 2); /* a whole, invalid, line */
        shmringWrite(&req, junk, sizeof(junk));
        shmringSignal(server_efd);
        expectClosed();
    } else if (!strcmp(mode, "head-beyond")) {
        pokeHead(4097);
        expectClosed();
    } else if (!strcmp(mode, "head-backwards")) {
        send_("*1\r\n$4\r\nPING\r\n");
        printReply();
        pokeHead(3);
        expectClosed();
    } else if (!strcmp(mode, "wrap-twice")) {
        pokeHead(2 * 4096);
        expectClosed();
    } else if (!strcmp(mode, "tail-lie")) {
        atomic_store((_Atomic uint32_t *)(void *)(seg.base + SHMRING_OFF_REP_CTL + 64), 1000);
        send_("*1\r\n$4\r\nPING\r\n");
        expectClosed();
    } else if (!strcmp(mode, "socket-bytes")) {
        if (write(sock, "PING\r\n", 6) != 6) fail("write");
        expectClosed();
    } else if (!strcmp(mode, "truncate")) {
        printf("%s ", ftruncate(seg.fd, 4096) == -1 ? "refused" : "truncated");
        printf("%s\n", ftruncate(seg.fd, (off_t)seg.len * 4) == -1 ? "refused" : "grown");
        send_("*1\r\n$4\r\nPING\r\n");
        printReply();
    } else if (!strcmp(mode, "unmap")) {
        send_("*3\r\n$3\r\nSET\r\n$1\r\nu\r\n$1\r\n1\r\n");
        munmap(seg.base, seg.len);
        printf("unmapped\n");
    } else if (!strcmp(mode, "half-request")) {
        send_("*3\r\n$3\r\nSET\r\n$4\r\nhalf\r\n$100\r\nabc");
        printf("exiting\n");
    } else if (!strcmp(mode, "wait-reply")) {
        send_("*1\r\n$4\r\nPING\r\n");
        printReply();
        send_("*3\r\n$5\r\nBLPOP\r\n$7\r\nnothing\r\n$1\r\n0\r\n");
        printReply(); /* fails when the server is killed */
    } else if (!strcmp(mode, "block-signal")) {
        attackSignal();
    } else if (!strcmp(mode, "block-drain")) {
        attackDrain();
    } else {
        return 2;
    }
    return 0;
}
