/* shm-example.c -- the shared-memory transport from a client's side, in one
 * self-contained file (libc and C11 atomics only, none of our libraries), as
 * a readable reference of the protocol that README.md ("Shared-memory
 * transport") and src/lib/shmring.h describe. It is also a useful tool: a
 * relay between stdin/stdout and a server's rings, which the Tcl tests use
 * to run their clients over shared memory.
 *
 *   cc -O2 -o shm-example utils/shm-example.c
 *   ./shm-example /path/to/redis.sock [RINGSIZE] < requests > replies
 *   printf 'PING\r\n' | ./shm-example /tmp/redis.sock     # prints +PONG
 *
 * It prints "relay-connected\r\n" (or "relay-failed: why\r\n") first, then
 * copies stdin into the request ring and the reply ring to stdout until
 * stdin has ended and no reply came for 200 ms (then it closes the socket:
 * the server ends the connection), or the server goes away. Environment: REDISCLI_AUTH is sent as AUTH first.
 *
 * The steps:
 *  1. connect to the unix socket, send "CLIENT SHM [RINGSIZE n]";
 *  2. recvmsg the reply "+OK\r\n" together with three descriptors
 *     (SCM_RIGHTS): the segment's memfd, then twice our end of the server's
 *     wake-up socketpair (an AF_UNIX datagram socket, non-blocking): writing
 *     8 bytes to it wakes the server, and the server's wake-ups arrive on
 *     it as 8-byte datagrams (read one with an 8-byte read). The two copies
 *     are where the first design passed "the server's eventfd" and "ours";
 *     a client written for that keeps working. Read wake-ups until EAGAIN:
 *     unlike an eventfd, one read takes one wake-up, not all of them. The
 *     server keeps its end to itself and never blocks on it, whatever we do
 *     to ours;
 *  3. fstat + mmap the memfd, check magic, version, byte-order mark, sizes;
 *  4. write requests at the request ring's head, read replies at the reply
 *     ring's tail; publish an index with a release store, read the peer's
 *     with an acquire load; every index is a free-running 32-bit counter;
 *  5. before sleeping set the ring's "sleeping" flag, full fence, look
 *     again; after publishing, full fence, and signal the peer only if its
 *     flag was set (exchanging it back to 0).
 *
 * Whether the server is alive is the unix socket's business (EOF when it
 * closes): a wake-up write that fails (the server closed its end) is
 * ignored, the socket tells.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

/* The layout (shmring.h): static header, then two 256-byte control blocks. */
enum {
    OFF_VERSION = 8, OFF_BOM = 12, OFF_RINGSIZE = 20, OFF_REQ_DATA = 24, OFF_REP_DATA = 28,
    OFF_SEGSIZE = 32, OFF_REQ_CTL = 256, OFF_REP_CTL = 512,
    CTL_HEAD = 0, CTL_TAIL = 64, CTL_CONSUMER_SLEEPING = 128, CTL_PRODUCER_SLEEPING = 192
};

typedef struct ring {
    unsigned char *data;
    unsigned char *ctl;
    uint32_t size, head, tail; /* our own index is the one we own */
} ring;

static _Atomic uint32_t *field(ring *r, int off) {
    return (_Atomic uint32_t *)(void *)(r->ctl + off); /* 64-byte aligned in a page-aligned mapping */
}

static uint32_t headerU32(const unsigned char *base, int off) {
    uint32_t v;
    memcpy(&v, base + off, 4);
    return v;
}

static void die(const char *what) {
    printf("relay-failed: %s\r\n", what);
    exit(1);
}

/* EAGAIN: the server has unread wake-ups, this one is pending; another
 * error: the server closed its end, the socket will say so. */
static void signalFd(int wake_fd) {
    uint64_t one = 1;
    (void)!write(wake_fd, &one, 8);
}

/* One read per pending wake-up (bounded: what is left keeps it readable). */
static void drainFd(int wake_fd) {
    uint64_t v;
    for (int i = 0; i < 64 && read(wake_fd, &v, 8) >= 0; i++) {}
}

/* After publishing: wake the peer if it said it sleeps. */
static int peerWantsWake(ring *r, int flag_off) {
    atomic_thread_fence(memory_order_seq_cst);
    return atomic_exchange(field(r, flag_off), 0) != 0;
}

static size_t ringWrite(ring *r, const unsigned char *buf, size_t len) {
    uint32_t tail = atomic_load_explicit(field(r, CTL_TAIL), memory_order_acquire);
    if (r->head - tail > r->size) die("server broke the request ring");
    size_t room = r->size - (r->head - tail), n = len < room ? len : room;
    for (size_t i = 0; i < n; i++) r->data[(r->head + i) & (r->size - 1)] = buf[i];
    r->head += (uint32_t)n;
    atomic_store_explicit(field(r, CTL_HEAD), r->head, memory_order_release);
    return n;
}

static size_t ringRead(ring *r, unsigned char *buf, size_t len) {
    uint32_t head = atomic_load_explicit(field(r, CTL_HEAD), memory_order_acquire);
    if (head - r->tail > r->size) die("server broke the reply ring");
    size_t avail = head - r->tail, n = len < avail ? len : avail;
    for (size_t i = 0; i < n; i++) buf[i] = r->data[(r->tail + i) & (r->size - 1)];
    r->tail += (uint32_t)n;
    atomic_store_explicit(field(r, CTL_TAIL), r->tail, memory_order_release);
    return n;
}

/* Announce sleep, fence, look again: nonzero when we must not sleep. */
static int armAndRecheck(ring *r, int flag_off, int consumer) {
    atomic_store(field(r, flag_off), 1);
    atomic_thread_fence(memory_order_seq_cst);
    if (consumer) return atomic_load_explicit(field(r, CTL_HEAD), memory_order_acquire) != r->tail;
    uint32_t tail = atomic_load_explicit(field(r, CTL_TAIL), memory_order_acquire);
    return r->head - tail < r->size;
}

static int connectUnix(const char *path) {
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    struct sockaddr_un sa = {.sun_family = AF_UNIX};
    if (fd == -1 || strlen(path) >= sizeof(sa.sun_path)) die("socket");
    memcpy(sa.sun_path, path, strlen(path) + 1);
    if (connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == -1) die(strerror(errno));
    return fd;
}

/* Reads one "+..." / "-..." line; fds[] gets the descriptors if any came. */
static void readLine(int fd, char *line, size_t cap, int fds[3]) {
    size_t len = 0;
    while (len + 1 < cap) {
        char c;
        union { char buf[CMSG_SPACE(3 * sizeof(int))]; struct cmsghdr align; } control;
        struct iovec iov = {.iov_base = &c, .iov_len = 1};
        struct msghdr msg = {.msg_iov = &iov, .msg_iovlen = 1, .msg_control = control.buf,
                             .msg_controllen = sizeof(control.buf)};
        if (recvmsg(fd, &msg, MSG_CMSG_CLOEXEC) != 1) die("server closed the connection");
        struct cmsghdr *cm = CMSG_FIRSTHDR(&msg);
        if (fds && cm && cm->cmsg_type == SCM_RIGHTS && cm->cmsg_len == CMSG_LEN(3 * sizeof(int)))
            memcpy(fds, CMSG_DATA(cm), 3 * sizeof(int));
        if (c == '\n') break;
        if (c != '\r') line[len++] = c;
    }
    line[len] = '\0';
}

static void sendCommand(int fd, const char *resp) {
    if (write(fd, resp, strlen(resp)) != (ssize_t)strlen(resp)) die("write");
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: %s SOCKET [RINGSIZE]\n", argv[0]);
        return 2;
    }
    int sock = connectUnix(argv[1]);
    char line[512], cmd[128];
    const char *pass = getenv("REDISCLI_AUTH");
    if (pass && *pass) {
        char auth[600];
        snprintf(auth, sizeof(auth), "*2\r\n$4\r\nAUTH\r\n$%zu\r\n%s\r\n", strlen(pass), pass);
        sendCommand(sock, auth);
        readLine(sock, line, sizeof(line), NULL);
        if (line[0] != '+') die(line);
    }
    if (argc > 2) snprintf(cmd, sizeof(cmd), "*4\r\n$6\r\nCLIENT\r\n$3\r\nSHM\r\n$8\r\nRINGSIZE\r\n$%zu\r\n%s\r\n", strlen(argv[2]), argv[2]);
    else snprintf(cmd, sizeof(cmd), "*2\r\n$6\r\nCLIENT\r\n$3\r\nSHM\r\n");
    sendCommand(sock, cmd);
    int fds[3] = {-1, -1, -1};
    readLine(sock, line, sizeof(line), fds);
    if (strcmp(line, "+OK") != 0) die(line);
    if (fds[0] == -1) die("no descriptors");

    /* map and check the segment */
    struct stat st;
    if (fstat(fds[0], &st) == -1 || st.st_size < 4096 * 3) die("bad segment size");
    unsigned char *base = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fds[0], 0);
    if (base == MAP_FAILED) die("mmap");
    uint32_t size = headerU32(base, OFF_RINGSIZE);
    if (memcmp(base, "RSHMRING", 8) || headerU32(base, OFF_VERSION) != 1 || headerU32(base, OFF_BOM) != 0x01020304u ||
        headerU32(base, OFF_SEGSIZE) != (uint64_t)st.st_size || (size & (size - 1)) ||
        (uint64_t)headerU32(base, OFF_REP_DATA) + size > (uint64_t)st.st_size)
        die("bad segment header");
    ring req = {.data = base + headerU32(base, OFF_REQ_DATA), .ctl = base + OFF_REQ_CTL, .size = size};
    ring rep = {.data = base + headerU32(base, OFF_REP_DATA), .ctl = base + OFF_REP_CTL, .size = size};
    int server_efd = fds[1], my_efd = fds[2]; /* one socket, two descriptors */
    printf("relay-connected\r\n");
    fflush(stdout);

    static unsigned char in[65536], out[65536];
    size_t inlen = 0, inoff = 0;
    int stdin_done = 0;
    for (;;) {
        size_t n;
        while ((n = ringRead(&rep, out, sizeof(out))) > 0) {
            if (peerWantsWake(&rep, CTL_PRODUCER_SLEEPING)) signalFd(server_efd);
            for (size_t done = 0; done < n;) {
                ssize_t w = write(1, out + done, n - done);
                if (w <= 0) return 0;
                done += (size_t)w;
            }
        }
        if (inlen > inoff && (n = ringWrite(&req, in + inoff, inlen - inoff)) > 0) {
            inoff += n;
            if (peerWantsWake(&req, CTL_CONSUMER_SLEEPING)) signalFd(server_efd);
            continue;
        }
        drainFd(my_efd);
        if (armAndRecheck(&rep, CTL_CONSUMER_SLEEPING, 1)) continue;
        if (inlen > inoff && armAndRecheck(&req, CTL_PRODUCER_SLEEPING, 0)) continue;
        struct pollfd pfd[3] = {{.fd = my_efd, .events = POLLIN}, {.fd = sock, .events = POLLIN},
                                {.fd = inlen > inoff || stdin_done ? -1 : 0, .events = POLLIN}};
        int ready = poll(pfd, 3, stdin_done && inlen == inoff ? 200 : -1);
        if (ready < 0 && errno != EINTR) die("poll");
        if (ready == 0) return 0; /* stdin ended and the replies stopped */
        if (pfd[1].revents) return 0; /* the server closed the socket */
        if (pfd[2].revents) {
            ssize_t r = read(0, in, sizeof(in));
            if (r <= 0) stdin_done = 1; /* closing the socket will end the connection */
            inlen = r > 0 ? (size_t)r : 0;
            inoff = 0;
        }
    }
}
