/* shim.c -- LD_PRELOAD recorder of the file operations a server makes in its
 * data directory, for the power-cut checker (utils/powercut/README.md).
 *
 * Environment (the shim does nothing without POWERCUT_DIR):
 *   POWERCUT_DIR      absolute, canonical path of the data directory
 *   POWERCUT_LOG      the record, appended to
 *   POWERCUT_COUNTER  a 64-byte file of little-endian u64 counters, shared
 *                     (mmap) by the server, its fork children and the
 *                     workload driver, which reads them after each reply:
 *                     [0] the last sequence number handed out, [1] fsyncs
 *                     (files and directories), [2] bytes written
 *   POWERCUT_LOG      may be unset: then only the counters are kept (the
 *                     wear measurement, utils/bench-wear.py)
 *
 * Each record is one header line
 *   seq pid op fd a b datalen mono_ns path1<TAB>path2\n
 * followed by datalen raw bytes (the bytes of a write), written with a single
 * writev() to the O_APPEND log, so records of threads and fork children never
 * interleave and each is on the file when the call returns (no user-space
 * buffer to flush). Ops: open (a = flags), write (a = offset), fsync, rename,
 * unlink, trunc (a = length), mkdir.
 *
 * Decisions:
 * - The real calls are made with syscall(): no dlsym() lookups on the common
 *   path, and no recursion into these wrappers.
 * - A write's sequence number is taken after it returns, an fsync's before it
 *   starts: a write numbered below an fsync had completed when that fsync
 *   began, so the checker never credits an fsync with data it may not cover.
 * - stdio streams (Redis writes its RDB and rewritten AOF with fopen/fwrite,
 *   whose internal write() calls an LD_PRELOAD library cannot see): a write
 *   mode fopen() of a data file returns an fopencookie() stream whose writes
 *   come through the wrappers below; fileno() answers its descriptor.
 * - mkstemp() files are recorded as created (O_CREAT|O_EXCL).
 */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/types.h>
#include <sys/uio.h>
#include <time.h>
#include <unistd.h>

#define MAX_FDS 4096
#define MAX_STREAMS 64

static int active;
static int log_fd = -1;
static char data_dir[PATH_MAX];
static size_t data_dir_len;
static volatile uint64_t *counter;
static char *fd_path[MAX_FDS]; /* data-directory files we saw opened */

static struct {
    FILE *fp;
    int fd;
} streams[MAX_STREAMS];

/* ---- setup ---------------------------------------------------------------------- */

__attribute__((constructor)) static void shimInit(void) {
    const char *dir = getenv("POWERCUT_DIR"), *logp = getenv("POWERCUT_LOG"), *cnt = getenv("POWERCUT_COUNTER");
    if (!dir || !cnt || strlen(dir) >= sizeof data_dir) return;
    strcpy(data_dir, dir);
    data_dir_len = strlen(data_dir);
    while (data_dir_len > 1 && data_dir[data_dir_len - 1] == '/') data_dir[--data_dir_len] = '\0';
    if (logp) log_fd = (int)syscall(SYS_openat, AT_FDCWD, logp, O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0644);
    int cfd = (int)syscall(SYS_openat, AT_FDCWD, cnt, O_RDWR | O_CLOEXEC, 0);
    if ((logp && log_fd == -1) || cfd == -1) return;
    void *p = mmap(NULL, 3 * sizeof(uint64_t), PROT_READ | PROT_WRITE, MAP_SHARED, cfd, 0);
    syscall(SYS_close, cfd);
    if (p == MAP_FAILED) return;
    counter = p;
    active = 1;
}

/* ---- paths ------------------------------------------------------------------------ */

/* `path` made absolute (against the working directory) with "." and empty
 * components dropped; "" when it does not fit. */
static void absPath(const char *path, char *out, size_t outlen) {
    char raw[2 * PATH_MAX];
    if (path[0] == '/') snprintf(raw, sizeof raw, "%s", path);
    else {
        char cwd[PATH_MAX];
        if (!getcwd(cwd, sizeof cwd)) {
            out[0] = '\0';
            return;
        }
        snprintf(raw, sizeof raw, "%s/%s", cwd, path);
    }
    size_t o = 0;
    char *save = NULL;
    for (char *c = strtok_r(raw, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
        if (!strcmp(c, ".")) continue;
        size_t l = strlen(c);
        if (o + l + 2 > outlen) {
            out[0] = '\0';
            return;
        }
        out[o++] = '/';
        memcpy(out + o, c, l);
        o += l;
    }
    if (o == 0) out[o++] = '/';
    out[o] = '\0';
}

/* The absolute path when it is the data directory or inside it, else NULL. */
static const char *inDataDir(const char *path, char *buf, size_t len) {
    if (!active || !path) return NULL;
    absPath(path, buf, len);
    if (strncmp(buf, data_dir, data_dir_len)) return NULL;
    if (buf[data_dir_len] != '\0' && buf[data_dir_len] != '/') return NULL;
    return buf;
}

/* ---- the record ------------------------------------------------------------------- */

static uint64_t nextSeq(void) { return __atomic_add_fetch(counter, 1, __ATOMIC_SEQ_CST); }
static void count(int slot, uint64_t n) { __atomic_add_fetch(counter + slot, n, __ATOMIC_SEQ_CST); }

static void emit(uint64_t seq, const char *op, int fd, long long a, long long b, const char *p1, const char *p2,
                 const struct iovec *data, int ndata, size_t datalen) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    char head[2 * PATH_MAX + 200];
    int n = snprintf(head, sizeof head, "%llu %d %s %d %lld %lld %zu %lld %s\t%s\n", (unsigned long long)seq,
                     (int)getpid(), op, fd, a, b, datalen, (long long)ts.tv_sec * 1000000000LL + ts.tv_nsec,
                     p1 ? p1 : "-", p2 ? p2 : "-");
    if (log_fd == -1) return;
    struct iovec iov[1 + 256];
    iov[0].iov_base = head;
    iov[0].iov_len = (size_t)n;
    int cnt = 1;
    for (int j = 0; j < ndata && cnt < 257; j++) iov[cnt++] = data[j];
    int saved = errno;
    syscall(SYS_writev, log_fd, iov, cnt);
    errno = saved;
}

/* The old name is not freed: another thread (the server's fsync or close
 * thread) may be reading it; a run opens few data files, so this leaks
 * little. */
static void track(int fd, const char *abs) {
    if (fd < 0 || fd >= MAX_FDS) return;
    fd_path[fd] = abs ? strdup(abs) : NULL;
}

static const char *tracked(int fd) { return active && fd >= 0 && fd < MAX_FDS ? fd_path[fd] : NULL; }

/* ---- opening ---------------------------------------------------------------------- */

static int openCommon(int dirfd, const char *path, int flags, mode_t mode) {
    char buf[PATH_MAX];
    const char *abs = dirfd == AT_FDCWD ? inDataDir(path, buf, sizeof buf) : NULL;
    if (dirfd != AT_FDCWD && path && path[0] != '/' && tracked(dirfd)) {
        char joined[2 * PATH_MAX];
        snprintf(joined, sizeof joined, "%s/%s", tracked(dirfd), path);
        abs = inDataDir(joined, buf, sizeof buf);
    } else if (dirfd != AT_FDCWD && path && path[0] == '/') abs = inDataDir(path, buf, sizeof buf);
    int fd = (int)syscall(SYS_openat, dirfd, path, flags, mode);
    if (fd >= 0 && active) {
        track(fd, abs);
        if (abs) emit(nextSeq(), "open", fd, flags, mode, abs, NULL, NULL, 0, 0);
    }
    return fd;
}

static mode_t modeArg(int flags, va_list ap) {
    return (flags & O_CREAT) || (flags & O_TMPFILE) == O_TMPFILE ? (mode_t)va_arg(ap, int) : 0;
}

int open(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t m = modeArg(flags, ap);
    va_end(ap);
    return openCommon(AT_FDCWD, path, flags, m);
}
int open64(const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t m = modeArg(flags, ap);
    va_end(ap);
    return openCommon(AT_FDCWD, path, flags | O_LARGEFILE, m);
}
int openat(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t m = modeArg(flags, ap);
    va_end(ap);
    return openCommon(dirfd, path, flags, m);
}
int openat64(int dirfd, const char *path, int flags, ...) {
    va_list ap;
    va_start(ap, flags);
    mode_t m = modeArg(flags, ap);
    va_end(ap);
    return openCommon(dirfd, path, flags | O_LARGEFILE, m);
}
int creat(const char *path, mode_t mode) { return openCommon(AT_FDCWD, path, O_WRONLY | O_CREAT | O_TRUNC, mode); }
int creat64(const char *path, mode_t mode) { return creat(path, mode); }

static int mkstempCommon(const char *name, char *tmpl, int suffixlen, int flags) {
    int (*real)(char *, int, int) = (int (*)(char *, int, int))dlsym(RTLD_NEXT, name);
    int fd = real ? real(tmpl, suffixlen, flags) : -1;
    char buf[PATH_MAX];
    const char *abs = fd >= 0 ? inDataDir(tmpl, buf, sizeof buf) : NULL;
    if (fd >= 0 && active) {
        track(fd, abs);
        if (abs) emit(nextSeq(), "open", fd, O_RDWR | O_CREAT | O_EXCL | flags, 0600, abs, NULL, NULL, 0, 0);
    }
    return fd;
}
int mkstemp(char *tmpl) { return mkstempCommon("mkostemps", tmpl, 0, 0); }
int mkostemp(char *tmpl, int flags) { return mkstempCommon("mkostemps", tmpl, 0, flags); }
int mkstemps(char *tmpl, int suffixlen) { return mkstempCommon("mkostemps", tmpl, suffixlen, 0); }
int mkostemps(char *tmpl, int suffixlen, int flags) { return mkstempCommon("mkostemps", tmpl, suffixlen, flags); }
int mkstemp64(char *tmpl) { return mkstemp(tmpl); }
int mkostemp64(char *tmpl, int flags) { return mkostemp(tmpl, flags); }
int mkstemps64(char *tmpl, int suffixlen) { return mkstemps(tmpl, suffixlen); }
int mkostemps64(char *tmpl, int suffixlen, int flags) { return mkostemps(tmpl, suffixlen, flags); }

int close(int fd) {
    if (tracked(fd)) track(fd, NULL);
    return (int)syscall(SYS_close, fd);
}

/* ---- writing ---------------------------------------------------------------------- */

static void emitWrite(int fd, long long off, const struct iovec *iov, int iovcnt, size_t n) {
    struct iovec part[256];
    int cnt = 0;
    size_t left = n;
    for (int j = 0; j < iovcnt && left > 0 && cnt < 256; j++) {
        size_t l = iov[j].iov_len < left ? iov[j].iov_len : left;
        part[cnt].iov_base = iov[j].iov_base;
        part[cnt++].iov_len = l;
        left -= l;
    }
    count(2, n - left);
    emit(nextSeq(), "write", fd, off, 0, tracked(fd), NULL, part, cnt, n - left);
}

/* The offset a write that just ended at the file position started at. */
static long long startOffset(int fd, ssize_t n) {
    long long pos = (long long)syscall(SYS_lseek, fd, 0, SEEK_CUR);
    return pos < 0 ? -1 : pos - n;
}

ssize_t write(int fd, const void *buf, size_t len) {
    ssize_t n = (ssize_t)syscall(SYS_write, fd, buf, len);
    if (n > 0 && tracked(fd)) {
        struct iovec v = {(void *)buf, (size_t)n};
        emitWrite(fd, startOffset(fd, n), &v, 1, (size_t)n);
    }
    return n;
}

ssize_t pwrite(int fd, const void *buf, size_t len, off_t off) {
    ssize_t n = (ssize_t)syscall(SYS_pwrite64, fd, buf, len, off);
    if (n > 0 && tracked(fd)) {
        struct iovec v = {(void *)buf, (size_t)n};
        emitWrite(fd, off, &v, 1, (size_t)n);
    }
    return n;
}
ssize_t pwrite64(int fd, const void *buf, size_t len, off_t off) { return pwrite(fd, buf, len, off); }

ssize_t writev(int fd, const struct iovec *iov, int iovcnt) {
    ssize_t n = (ssize_t)syscall(SYS_writev, fd, iov, iovcnt);
    if (n > 0 && tracked(fd)) emitWrite(fd, startOffset(fd, n), iov, iovcnt, (size_t)n);
    return n;
}

static int syncCommon(long nr, int fd) {
    const char *p = tracked(fd);
    uint64_t seq = p ? nextSeq() : 0;
    int r = (int)syscall(nr, fd);
    if (p && r == 0) count(1, 1);
    if (p && r == 0) emit(seq, "fsync", fd, nr == SYS_fdatasync, 0, p, NULL, NULL, 0, 0);
    return r;
}
int fsync(int fd) { return syncCommon(SYS_fsync, fd); }
int fdatasync(int fd) { return syncCommon(SYS_fdatasync, fd); }

int ftruncate(int fd, off_t len) {
    int r = (int)syscall(SYS_ftruncate, fd, len);
    if (r == 0 && tracked(fd)) emit(nextSeq(), "trunc", fd, len, 0, tracked(fd), NULL, NULL, 0, 0);
    return r;
}
int ftruncate64(int fd, off_t len) { return ftruncate(fd, len); }

int truncate(const char *path, off_t len) {
    char buf[PATH_MAX];
    const char *abs = inDataDir(path, buf, sizeof buf);
    int r = (int)syscall(SYS_truncate, path, len);
    if (r == 0 && abs) emit(nextSeq(), "trunc", -1, len, 0, abs, NULL, NULL, 0, 0);
    return r;
}
int truncate64(const char *path, off_t len) { return truncate(path, len); }

/* ---- names ------------------------------------------------------------------------- */

static int renameCommon(int olddirfd, const char *from, int newdirfd, const char *to, unsigned flags) {
    char b1[PATH_MAX], b2[PATH_MAX];
    const char *a1 = olddirfd == AT_FDCWD ? inDataDir(from, b1, sizeof b1) : NULL;
    const char *a2 = newdirfd == AT_FDCWD ? inDataDir(to, b2, sizeof b2) : NULL;
    int r = (int)syscall(SYS_renameat2, olddirfd, from, newdirfd, to, flags);
    if (r == 0 && (a1 || a2)) emit(nextSeq(), "rename", -1, flags, 0, a1 ? a1 : "?", a2 ? a2 : "?", NULL, 0, 0);
    return r;
}
int rename(const char *from, const char *to) { return renameCommon(AT_FDCWD, from, AT_FDCWD, to, 0); }
int renameat(int ofd, const char *from, int nfd, const char *to) { return renameCommon(ofd, from, nfd, to, 0); }
int renameat2(int ofd, const char *from, int nfd, const char *to, unsigned flags) {
    return renameCommon(ofd, from, nfd, to, flags);
}

static int unlinkCommon(int dirfd, const char *path, int flags) {
    char buf[PATH_MAX];
    const char *abs = dirfd == AT_FDCWD ? inDataDir(path, buf, sizeof buf) : NULL;
    int r = (int)syscall(SYS_unlinkat, dirfd, path, flags);
    if (r == 0 && abs) emit(nextSeq(), (flags & AT_REMOVEDIR) ? "rmdir" : "unlink", -1, 0, 0, abs, NULL, NULL, 0, 0);
    return r;
}
int unlink(const char *path) { return unlinkCommon(AT_FDCWD, path, 0); }
int unlinkat(int dirfd, const char *path, int flags) { return unlinkCommon(dirfd, path, flags); }
int remove(const char *path) {
    int r = unlinkCommon(AT_FDCWD, path, 0);
    return r == -1 && errno == EISDIR ? unlinkCommon(AT_FDCWD, path, AT_REMOVEDIR) : r;
}
int rmdir(const char *path) { return unlinkCommon(AT_FDCWD, path, AT_REMOVEDIR); }

int mkdir(const char *path, mode_t mode) {
    char buf[PATH_MAX];
    const char *abs = inDataDir(path, buf, sizeof buf);
    int r = (int)syscall(SYS_mkdirat, AT_FDCWD, path, mode);
    if (r == 0 && abs) emit(nextSeq(), "mkdir", -1, mode, 0, abs, NULL, NULL, 0, 0);
    return r;
}

/* ---- stdio streams of data files ----------------------------------------------------- */

static ssize_t cookieRead(void *c, char *buf, size_t len) { return (ssize_t)syscall(SYS_read, (int)(intptr_t)c, buf, len); }
static ssize_t cookieWrite(void *c, const char *buf, size_t len) {
    size_t done = 0;
    while (done < len) {
        ssize_t n = write((int)(intptr_t)c, buf + done, len - done);
        if (n <= 0) return done ? (ssize_t)done : -1;
        done += (size_t)n;
    }
    return (ssize_t)done;
}
static int cookieSeek(void *c, off64_t *off, int whence) {
    long long r = (long long)syscall(SYS_lseek, (int)(intptr_t)c, (off_t)*off, whence);
    if (r < 0) return -1;
    *off = r;
    return 0;
}
static int cookieClose(void *c) {
    int fd = (int)(intptr_t)c;
    for (int j = 0; j < MAX_STREAMS; j++)
        if (streams[j].fd == fd && streams[j].fp) streams[j].fp = NULL;
    return close(fd);
}

static FILE *fopenCommon(const char *name, const char *path, const char *mode) {
    char buf[PATH_MAX];
    int writing = strpbrk(mode, "wa+") != NULL;
    if (!writing || !inDataDir(path, buf, sizeof buf)) {
        FILE *(*real)(const char *, const char *) = (FILE * (*)(const char *, const char *)) dlsym(RTLD_NEXT, name);
        return real(path, mode);
    }
    int flags = strchr(mode, '+') ? O_RDWR : mode[0] == 'r' ? O_RDONLY : O_WRONLY;
    if (mode[0] == 'w') flags |= O_CREAT | O_TRUNC;
    if (mode[0] == 'a') flags |= O_CREAT | O_APPEND;
    if (strchr(mode, 'e')) flags |= O_CLOEXEC;
    int fd = openCommon(AT_FDCWD, path, flags, 0666);
    if (fd == -1) return NULL;
    cookie_io_functions_t io = {cookieRead, cookieWrite, cookieSeek, cookieClose};
    FILE *fp = fopencookie((void *)(intptr_t)fd, mode, io);
    if (!fp) {
        close(fd);
        return NULL;
    }
    for (int j = 0; j < MAX_STREAMS; j++)
        if (!streams[j].fp) {
            streams[j].fp = fp;
            streams[j].fd = fd;
            break;
        }
    return fp;
}
FILE *fopen(const char *path, const char *mode) { return fopenCommon("fopen", path, mode); }
FILE *fopen64(const char *path, const char *mode) { return fopenCommon("fopen64", path, mode); }

int fileno(FILE *fp) {
    for (int j = 0; j < MAX_STREAMS; j++)
        if (fp && streams[j].fp == fp) return streams[j].fd;
    int (*real)(FILE *) = (int (*)(FILE *))dlsym(RTLD_NEXT, "fileno");
    return real(fp);
}
