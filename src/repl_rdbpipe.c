/* repl_rdbpipe.c -- a diskless full sync's snapshot, carried from the fork
 * child to the replicas by the parent, as Redis 7.0 does it.
 *
 * The child writes the "$EOF:<mark>" framed RDB to one pipe; the parent
 * reads a buffer from it and writes that buffer to every replica of the
 * batch with connWrite (TLS or not: the TLS session lives in the parent).
 * A replica whose socket takes only part of the buffer gets a write
 * handler, and the pipe is not read again until every replica has the
 * whole buffer: the slowest replica sets the pace, and the child blocks on
 * the full pipe meanwhile. Why the parent and not the child: the parent
 * sees each replica's progress, so it can drop one that stopped reading
 * (repl-timeout, "Disconnecting timedout replica (full sync)") or that
 * died, and carry on with the others; a child blocked in write() on a
 * stopped replica's socket would hold every other replica back.
 *
 * The child does not exit when it has written its last byte: it waits
 * until the parent closes the "safe to exit" pipe, which it does when it
 * has read the pipe's end -- and so written everything to every replica
 * still up. So the child's exit (replication.c, childDone) means the
 * replicas it leaves in the batch have their whole snapshot. If the parent
 * dies, the child's read of that pipe ends, and it exits too.
 *
 * The log lines are Redis 7.0's, which operators and its test suite grep:
 * "Diskless rdb transfer, done reading from pipe, N replicas still up.",
 * "Diskless rdb transfer, last replica dropped, killing fork child.".
 */
#include <errno.h>
#include <fcntl.h>

#include "replication.h"

#define RDB_PIPE_BUF_LEN (16 * 1024)

typedef struct rdbPipeSlot {
    client *c;              /* NULL: dropped */
    size_t sent;            /* of the current buffer */
    long long partial_ms;   /* last write that left part of the buffer unsent, 0: none */
} rdbPipeSlot;

static struct {
    int read_fd;            /* the snapshot's pipe, parent's end; -1: no transfer */
    int child_write_fd;     /* its write end, the child's */
    int exit_fd;            /* "safe to exit": the parent's write end, closed to let the child go */
    int child_exit_fd;      /* its read end, the child's */
    rdbPipeSlot slots[REPL_MAX_BATCH];
    int n;
    int writing;            /* replicas with part of the buffer still to write */
    char buf[RDB_PIPE_BUF_LEN];
    size_t len;
} rdbpipe = {.read_fd = -1, .child_write_fd = -1, .exit_fd = -1, .child_exit_fd = -1};

static void rdbPipeReadable(aeEventLoop *el, int fd, void *privdata, int mask);

int rdbPipeActive(void) { return rdbpipe.read_fd != -1; }

static void closeFd(int *fd) {
    if (*fd == -1) return;
    close(*fd);
    *fd = -1;
}

static void resumeReading(void) {
    if (aeCreateFileEvent(server.el, rdbpipe.read_fd, AE_READABLE, rdbPipeReadable, NULL) == AE_ERR)
        serverPanic("Can't watch the diskless transfer's pipe");
}

/* The slot no longer waits for its socket: the pipe is read again when no
 * replica does. */
static void slotDoneWriting(rdbPipeSlot *s) {
    if (s->c && s->c->conn) connSetWriteHandler(s->c->conn, NULL);
    s->partial_ms = 0;
    if (--rdbpipe.writing == 0 && rdbpipe.read_fd != -1) resumeReading();
}

static rdbPipeSlot *slotOf(client *c) {
    for (int j = 0; j < rdbpipe.n; j++)
        if (rdbpipe.slots[j].c == c) return &rdbpipe.slots[j];
    return NULL;
}

/* The replica leaves the transfer (freed, or about to be). */
void rdbPipeReplicaGone(client *c) {
    rdbPipeSlot *s = rdbPipeActive() ? slotOf(c) : NULL;
    if (s == NULL) return;
    if (s->partial_ms) slotDoneWriting(s);
    s->c = NULL;
}

static void dropSlot(rdbPipeSlot *s) {
    client *c = s->c;
    rdbPipeReplicaGone(c);
    freeClientAsync(c);
}

int rdbPipeOpen(client **batch, int n) {
    int data[2], exit_pipe[2];
    if (pipe(data) == -1) return C_ERR;
    if (pipe(exit_pipe) == -1) {
        close(data[0]);
        close(data[1]);
        return C_ERR;
    }
    anetNonBlock(NULL, data[0]);
    anetCloexec(data[0]);
    anetCloexec(exit_pipe[1]);
    rdbpipe.read_fd = data[0];
    rdbpipe.child_write_fd = data[1];
    rdbpipe.exit_fd = exit_pipe[1];
    rdbpipe.child_exit_fd = exit_pipe[0];
    rdbpipe.n = n;
    for (int j = 0; j < n; j++) rdbpipe.slots[j] = (rdbPipeSlot){.c = batch[j]};
    rdbpipe.writing = 0;
    rdbpipe.len = 0;
    return C_OK;
}

/* In the child, after fork: the parent's ends go (a dead parent must be
 * seen as EPIPE and as the end of the exit pipe); returns the fd to write
 * the snapshot to. */
int rdbPipeChildBegin(void) {
    close(rdbpipe.read_fd);
    close(rdbpipe.exit_fd);
    return rdbpipe.child_write_fd;
}

/* In the child, the snapshot written: the pipe's end for the parent, then
 * wait until the parent has read it all (or is gone). */
void rdbPipeChildEnd(void) {
    close(rdbpipe.child_write_fd);
    char byte;
    while (read(rdbpipe.child_exit_fd, &byte, 1) == -1 && errno == EINTR) {}
}

/* In the parent, after a fork that worked: the child's ends go, and the
 * pipe is read from now on. */
void rdbPipeParentBegin(void) {
    closeFd(&rdbpipe.child_write_fd);
    closeFd(&rdbpipe.child_exit_fd);
    resumeReading();
}

/* The transfer is over (the child exited or was killed, or the fork failed). */
void rdbPipeClose(void) {
    if (!rdbPipeActive()) return;
    aeDeleteFileEvent(server.el, rdbpipe.read_fd, AE_READABLE);
    for (int j = 0; j < rdbpipe.n; j++) {
        rdbPipeSlot *s = &rdbpipe.slots[j];
        if (s->c && s->partial_ms && s->c->conn) connSetWriteHandler(s->c->conn, NULL);
        s->c = NULL;
    }
    closeFd(&rdbpipe.read_fd);
    closeFd(&rdbpipe.child_write_fd);
    closeFd(&rdbpipe.exit_fd);
    closeFd(&rdbpipe.child_exit_fd);
    rdbpipe.n = rdbpipe.writing = 0;
}

static void rdbPipeWritable(connection *conn) {
    client *c = connGetPrivateData(conn);
    rdbPipeSlot *s = slotOf(c);
    if (s == NULL) {
        connSetWriteHandler(conn, NULL);
        return;
    }
    ssize_t n = connWrite(conn, rdbpipe.buf + s->sent, rdbpipe.len - s->sent);
    if (n == -1) {
        if (connGetState(conn) == CONN_STATE_CONNECTED) return; /* EAGAIN */
        serverLog(LL_WARNING, "Write error sending DB to replica: %s", connGetLastError(conn));
        dropSlot(s);
        return;
    }
    s->sent += (size_t)n;
    replicationNoteRdbBytes(n);
    if (s->sent < rdbpipe.len) s->partial_ms = server.mstime;
    else slotDoneWriting(s);
}

/* One buffer to every replica still up; 0 when none is. */
static int writeToSlots(void) {
    int alive = 0;
    for (int j = 0; j < rdbpipe.n; j++) {
        rdbPipeSlot *s = &rdbpipe.slots[j];
        if (s->c == NULL) continue;
        ssize_t n = connWrite(s->c->conn, rdbpipe.buf, rdbpipe.len);
        if (n == -1 && connGetState(s->c->conn) != CONN_STATE_CONNECTED) {
            serverLog(LL_WARNING, "Diskless rdb transfer, write error sending DB to replica: %s",
                      connGetLastError(s->c->conn));
            dropSlot(s);
            continue;
        }
        s->sent = n == -1 ? 0 : (size_t)n;
        if (n > 0) replicationNoteRdbBytes(n);
        if (s->sent != rdbpipe.len) {
            s->partial_ms = server.mstime;
            rdbpipe.writing++;
            connSetWriteHandler(s->c->conn, rdbPipeWritable);
        }
        alive++;
    }
    return alive;
}

static void pipeAtEnd(void) {
    int up = 0;
    aeDeleteFileEvent(server.el, rdbpipe.read_fd, AE_READABLE);
    for (int j = 0; j < rdbpipe.n; j++) up += rdbpipe.slots[j].c != NULL;
    serverLog(LL_WARNING, "Diskless rdb transfer, done reading from pipe, %d replicas still up.", up);
    closeFd(&rdbpipe.exit_fd); /* the child may exit: its exit puts these replicas online */
}

static void rdbPipeReadable(aeEventLoop *el, int fd, void *privdata, int mask) {
    (void)el, (void)privdata, (void)mask;
    for (;;) {
        ssize_t n = read(fd, rdbpipe.buf, sizeof rdbpipe.buf);
        if (n == -1 && errno == EINTR) continue;
        if (n == -1 && errno == EAGAIN) return;
        if (n == -1) {
            serverLog(LL_WARNING, "Diskless rdb transfer, read error sending DB to replicas: %s", strerror(errno));
            for (int j = 0; j < rdbpipe.n; j++)
                if (rdbpipe.slots[j].c) dropSlot(&rdbpipe.slots[j]);
            replicationKillChild();
            return;
        }
        if (n == 0) {
            pipeAtEnd();
            return;
        }
        rdbpipe.len = (size_t)n;
        if (writeToSlots() == 0) {
            serverLog(LL_WARNING, "Diskless rdb transfer, last replica dropped, killing fork child.");
            replicationKillChild();
            return;
        }
        if (rdbpipe.writing) {
            aeDeleteFileEvent(server.el, fd, AE_READABLE);
            return;
        }
    }
}

/* replicationCron: a replica that took no part of the buffer for longer
 * than repl-timeout is dropped, so the others go on (Redis 7.0's line). */
void rdbPipeDropTimedOut(void) {
    for (int j = 0; j < rdbpipe.n; j++) {
        rdbPipeSlot *s = &rdbpipe.slots[j];
        if (s->c == NULL || s->partial_ms == 0) continue;
        if ((server.mstime - s->partial_ms) / 1000 <= server.repl_timeout) continue;
        serverLog(LL_WARNING, "Disconnecting timedout replica (full sync): %s", replicaName(s->c));
        dropSlot(s);
    }
}
