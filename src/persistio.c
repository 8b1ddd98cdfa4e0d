/* persistio.c -- the system-call seam of the persistence files and its
 * fault injection (see persistio.h).
 *
 * DEBUG AOF-FAULT <write|fsync|open|rename|child-write> <ENOSPC|EIO|SHORT|OFF>
 * [count] makes the next `count` calls (default: until OFF) fail with that
 * errno; SHORT makes a write store half of its bytes and then fail with
 * ENOSPC. "child-write" fails only the writes of a fork child (an AOF
 * rewrite), which checks persistChildWriteFault() itself: after fork() it
 * has its own copy of this table. The fault counters are taken under a
 * lock: the forkless snapshot's writer thread writes through here too.
 * Once a fault has been set, the table
 * points at the faulty wrappers for good; with every fault off they only
 * cost a check.
 */
#include <errno.h>
#include <pthread.h>

#include "server.h"
#include "persistio.h"

#include <fcntl.h>

#define INCREMENTAL_FSYNC_BYTES (4 * 1024 * 1024)

/* ---- the real calls ------------------------------------------------------------------ */

static ssize_t sysWrite(int fd, const void *buf, size_t len) { return write(fd, buf, len); }
static int sysFsync(int fd) {
#ifdef __linux__
    return fdatasync(fd);
#else
    return fsync(fd);
#endif
}
static int sysOpen(const char *path, int flags, mode_t mode) { return open(path, flags, mode); }

persistIo persistio = {sysWrite, sysFsync, rename, sysOpen, ftruncate};

/* ---- helpers every writer of a data file uses -------------------------------------------- */

ssize_t persistWriteFully(int fd, const void *buf, size_t len, long long *calls) {
    const char *p = buf;
    size_t done = 0;
    while (done < len) {
        ssize_t n = persistio.write(fd, p + done, len - done);
        if (n == -1 && errno == EINTR) continue;
        if (n <= 0) {
            if (n == 0) errno = ENOSPC;
            break;
        }
        done += (size_t)n;
        if (calls) (*calls)++;
    }
    return (ssize_t)done;
}

int persistFsyncDir(const char *dirname) {
    int fd = open(dirname, O_RDONLY);
    if (fd == -1) return -1;
    int ret = persistio.fsync(fd);
    close(fd);
    return ret;
}

int persistFsyncDirOf(const char *path) {
    const char *slash = strrchr(path, '/');
    char dir[PATH_MAX];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    if (persistFsyncDir(dir) == 0 || errno == EINVAL) return 0;
    return -1;
}

int persistIncrementalFsync(int fd, size_t *since_fsync, size_t written, int enabled) {
    *since_fsync += written;
    if (!enabled || *since_fsync < INCREMENTAL_FSYNC_BYTES) return 0;
    *since_fsync = 0;
    return persistio.fsync(fd) == -1 ? -1 : 0;
}

/* ---- fault injection ------------------------------------------------------------------------ */

static struct {
    int err;    /* 0 = off, -1 = short write */
    long count; /* calls left to fail, -1 = unlimited */
} faults[5];
enum { FAULT_WRITE, FAULT_FSYNC, FAULT_OPEN, FAULT_RENAME, FAULT_CHILD_WRITE };
/* The forkless snapshot's writer thread (snapshot.c) makes these calls
 * too, while the main thread writes the AOF or sets faults. */
static pthread_mutex_t faults_lock = PTHREAD_MUTEX_INITIALIZER;

/* This call's fault, taken under the lock: 0 none, else the errno, or -1
 * for a short write -- which doesn't use up the count: the write of the
 * rest follows, halved again, until one byte is left and fails. */
static int faultFires(int which, size_t len) {
    pthread_mutex_lock(&faults_lock);
    int err = faults[which].err;
    if (err == 0 || faults[which].count == 0) err = 0;
    else if ((err != -1 || len <= 1) && faults[which].count > 0) faults[which].count--;
    pthread_mutex_unlock(&faults_lock);
    return err;
}

static ssize_t faultyWrite(int fd, const void *buf, size_t len) {
    int err = faultFires(FAULT_WRITE, len);
    if (err == 0) return sysWrite(fd, buf, len);
    if (err == -1 && len > 1) return sysWrite(fd, buf, len / 2);
    errno = err == -1 ? ENOSPC : err;
    return -1;
}

static int faultyFsync(int fd) {
    int err = faultFires(FAULT_FSYNC, 0);
    if (err == 0) return sysFsync(fd);
    errno = err;
    return -1;
}

static int faultyOpen(const char *path, int flags, mode_t mode) {
    int err = faultFires(FAULT_OPEN, 0);
    if (err == 0) return sysOpen(path, flags, mode);
    errno = err;
    return -1;
}

static int faultyRename(const char *from, const char *to) {
    int err = faultFires(FAULT_RENAME, 0);
    if (err == 0) return rename(from, to);
    errno = err;
    return -1;
}

int persistChildWriteFault(void) { return faultFires(FAULT_CHILD_WRITE, 0); }

void debugAofFaultCommand(client *c) {
    static const char *calls[] = {"write", "fsync", "open", "rename", "child-write"};
    int which = -1, err;
    for (int j = 0; j < 5; j++)
        if (!strcasecmp(c->argv[2]->ptr, calls[j])) which = j;
    const char *e = c->argv[3]->ptr;
    if (!strcasecmp(e, "off")) err = 0;
    else if (!strcasecmp(e, "enospc")) err = ENOSPC;
    else if (!strcasecmp(e, "eio")) err = EIO;
    else if (!strcasecmp(e, "short") && which == FAULT_WRITE) err = -1;
    else which = -1;
    long count = -1;
    if (which == -1 || (c->argc == 5 && getLongFromObjectOrReply(c, c->argv[4], &count, NULL) != C_OK)) {
        if (which == -1) addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    pthread_mutex_lock(&faults_lock);
    faults[which].err = err;
    faults[which].count = count;
    pthread_mutex_unlock(&faults_lock);
    persistio = (persistIo){faultyWrite, faultyFsync, faultyRename, faultyOpen, ftruncate};
    addReply(c, shared.ok);
}

