/* snapshot.h -- the forkless snapshot engine (snapshot.c): a point-in-time
 * RDB stream of the dataset written by the main thread in small time
 * slices while clients keep being served, with a write barrier in db.c.
 *
 * Used by BGSAVE (rdb.c) and the AOF rewrite (aof_rewrite.c) when
 * `persistence-mode forkless` is set, when the build has no fork()
 * (HAVE_FORK=0), or when fork() fails with ENOSYS, EPERM or ENOMEM.
 */
#ifndef SNAPSHOT_H
#define SNAPSHOT_H

#include "server.h"

#define PERSISTENCE_MODE_FORK 0
#define PERSISTENCE_MODE_FORKLESS 1

/* Called once when the snapshot is complete: ok is 1 when every byte
 * reached the file and it was fsynced (fd is closed either way). */
typedef void snapshotDoneFn(int ok, void *privdata);

/* What a snapshot is written as: the RDB format (snapshotRdbFormat, rdb.c's
 * writer) or an AOF's command stream (aof_rewrite.c). A format only builds
 * bytes in memory: it writes the database change (SELECTDB / SELECT)
 * itself when a key of another database comes, and hands its bytes over
 * with take(); snapshot.c's writer thread puts them in the file. */
typedef struct snapshotFormat {
    void *(*open)(int aof_base);
    void (*key)(void *w, int dbid, kvobj *o);
    size_t (*buffered)(const void *w);
    sds (*take)(void *w);     /* the bytes built since the last take */
    sds (*finish)(void *w);   /* the last bytes (trailer); frees w */
    void (*discard)(void *w); /* frees w */
    /* Optional (NULL: every key is written whole): a big collection in
     * parts, over several slices. keyHead starts it (the key, its expire and
     * element count), elem / scored add elements (a hash's field and value
     * are two elems; scored is for sorted sets), keyEnd closes it. Keys
     * written with key() meanwhile (the write barrier) come after it in the
     * file. */
    void (*keyHead)(void *w, int dbid, kvobj *o);
    void (*elem)(void *w, const elemRef *e);
    void (*scored)(void *w, const elemRef *member, double score);
    void (*keyEnd)(void *w);
} snapshotFormat;
extern const snapshotFormat snapshotRdbFormat;

/* Starts writing the dataset as it is now to fd (aof_base: the AUX field
 * of an AOF's RDB preamble). The snapshot owns fd from here on. */
void snapshotStart(int fd, const snapshotFormat *format, int aof_base, snapshotDoneFn *done, void *privdata);
/* Optional, right after snapshotStart: once the file is complete and
 * fsynced, the writer thread renames tmp to final and fsyncs final's
 * directory (as a fork child would, off the event loop); a failed rename
 * makes the snapshot fail (ok 0, logged). */
void snapshotRenameWhenDone(const char *tmp, const char *final);
int snapshotInProgress(void);
/* Keys written so far and keys there were at the start (0, 0 when no
 * snapshot runs): INFO's current_save_keys_processed/_total. */
void snapshotProgress(size_t *keys_processed, size_t *keys_total);
/* Stops the snapshot now, closing its file; its callback is not called. */
void snapshotAbort(void);

/* The write barrier: before the key is modified, replaced, deleted,
 * renamed or created in db (db.c, expire.c). */
void snapshotBeforeKeyWrite(redisDb *db, sds key);
/* Before db's keys are all dropped (emptyData): the snapshot keeps the
 * table it still has to write, db gets a new empty one. */
void snapshotBeforeEmpty(redisDb *db);
int snapshotAdoptTable(kvtable *t); /* t leaves the dataset: 1 if a running snapshot took it (and frees it) */

/* Is a fork child running, whose pages the parent's writes copy? (A
 * forkless snapshot copies nothing: tables may resize, lookups may touch
 * access times while it runs.) The answer is kept by
 * snapshotForkStateChanged() rather than asked of rdb.c, aof_rewrite.c,
 * replication.c and module_fork.c each time: lookupKey asks on every key it
 * finds, and those calls out were ~48 instructions a hit (make bench-gate). */
extern int snapshotForkChildNow;
extern int snapshotInForkChild; /* this process is a child snapshotFork() made */
static inline int snapshotForkChildExists(void) { return snapshotForkChildNow; }
/* Recomputes it: called wherever a fork child (RDB, AOF rewrite, full sync,
 * module) or a forkless snapshot starts or ends (updateDictResizePolicy(),
 * which all of them call, and the forkless paths that don't). */
void snapshotForkStateChanged(void);
int snapshotForkChildCheck(void); /* computed afresh (serverCron refreshes the cached answer each tick) */

/* Persistence without a fork child: asked for, or the only way there is. */
int snapshotForklessWanted(void);
/* fork(), or -1 with errno ENOSYS in a build without it (HAVE_FORK=0). */
pid_t snapshotFork(void);
/* After fork() failed with err: 1 (and a log line) when a forkless
 * snapshot should be taken instead. */
int snapshotForkFailedFallback(int err, const char *what);

sds snapshotInfoString(sds info);

#endif /* SNAPSHOT_H */
