/* persistio.h -- file I/O of the persistence files: the AOF (aof*.c), its
 * manifest, and RDB snapshots (rdb.c).
 *
 * Every system call that can fail on a data file goes through `persistio`,
 * a table of function pointers (the seam SQLite calls a VFS): tests replace
 * its entries to inject ENOSPC, EIO or short writes (DEBUG AOF-FAULT, the
 * name Redis's test suite knows), so the error paths are exercised, not just
 * written. Code that writes a data file uses these and the helpers below,
 * never write()/fsync()/rename() directly.
 */
#ifndef PERSISTIO_H
#define PERSISTIO_H

#include <stddef.h>
#include <sys/types.h>

typedef struct persistIo {
    ssize_t (*write)(int fd, const void *buf, size_t len);
    int (*fsync)(int fd); /* fdatasync where it exists */
    int (*rename)(const char *from, const char *to);
    int (*open)(const char *path, int flags, mode_t mode);
    int (*ftruncate)(int fd, off_t len);
} persistIo;
extern persistIo persistio;

/* write() until all of buf is written or an error: the bytes written (fewer
 * than len on error, errno set; a write of 0 counts as ENOSPC). `calls` (may
 * be NULL) counts the write() calls. */
ssize_t persistWriteFully(int fd, const void *buf, size_t len, long long *calls);
int persistFsyncDir(const char *dirname);
/* fsync of the directory that holds `path` (after a rename or a creation
 * in it: until then a power cut may undo it). EINVAL (a file system whose
 * directories can't be fsynced) counts as done. */
int persistFsyncDirOf(const char *path);
/* aof-rewrite-incremental-fsync / rdb-save-incremental-fsync: counts
 * `written` more bytes on fd and, when `enabled`, fsyncs once 4 MB piled
 * up. -1 when that fsync failed, else 0. */
int persistIncrementalFsync(int fd, size_t *since_fsync, size_t written, int enabled);
int persistChildWriteFault(void); /* errno a fork child's data-file write must fail with, or 0 */

#endif /* PERSISTIO_H */
