/* aof.h -- the append-only file, shared between its parts:
 *   aof.c          the writer: feed, coalesced writes, fsync policies, errors
 *   aof_manifest.c the multi-part layout: base + incremental files + manifest
 *   aof_load.c     replay at start-up and DEBUG LOADAOF
 *   aof_rewrite.c  BGREWRITEAOF: a forked child writes a new base
 *
 * Every system call that can fail on the data files goes through the
 * persistence files' seam (persistio.h).
 */
#ifndef AOF_H
#define AOF_H

#include <sys/types.h>

/* ---- the manifest (aof_manifest.c) ------------------------------------------------ */
#define AOF_FILE_BASE 'b'
#define AOF_FILE_HISTORY 'h'
#define AOF_FILE_INCR 'i'

typedef struct aofFile {
    sds name;
    long long seq;
    char type;
} aofFile;

typedef struct aofManifest {
    aofFile *base;           /* NULL if none */
    aofFile **incrs;         /* in replay order */
    int incr_count;
    aofFile **history;       /* replaced files kept while aof-disable-auto-gc is yes, newest first */
    int history_count;
    long long curr_base_seq; /* highest seq used so far */
    long long curr_incr_seq;
} aofManifest;

aofManifest *aofManifestCreate(void);
void aofManifestFree(aofManifest *am);
aofManifest *aofManifestDup(const aofManifest *am);
/* Why a manifest was refused: Redis 7.0's reason, and the line it is
 * about (line NULL when the reason is not about one line). */
typedef struct aofManifestError {
    sds reason;
    long line_no;
    sds line;
} aofManifestError;
int aofManifestLoad(const char *path, aofManifest **out, aofManifestError *err); /* C_ERR: err set */
void aofManifestLogError(const aofManifestError *err); /* Redis's "FATAL AOF MANIFEST FILE ERROR" lines */
void aofManifestErrorFree(aofManifestError *err);
int aofManifestPersist(const aofManifest *am, const char *dirname, const char *path); /* atomic */
void aofManifestSetBase(aofManifest *am, const char *name, long long seq);
void aofManifestAddIncr(aofManifest *am, const char *name, long long seq);
void aofManifestDropIncrsUpTo(aofManifest *am, long long last_seq);
void aofManifestBaseAndIncrsToHistory(aofManifest *am, long long last_seq); /* base, incrs <= last_seq */
void aofManifestClearHistory(aofManifest *am);
sds aofManifestNewBaseName(aofManifest *am, const char *prefix, const char *ext); /* bumps curr_base_seq */
sds aofManifestNewIncrName(aofManifest *am, const char *prefix);
sds aofPathJoin(const char *dir, const char *name);

/* ---- the writer (aof.c) ------------------------------------------------------------ */
void aofInit(void);                   /* at start-up: open or create, and replay */
sds aofDirPath(void);                 /* <dir>/<appenddirname>, relative to the working dir */
sds aofManifestPath(void);
aofManifest *aofCurrentManifest(void);
void aofSetCurrentManifest(aofManifest *am);
int aofOpenNewIncr(void);             /* switch writes to a new incremental file */
int aofPrepareDirAndManifest(void);   /* AOF off: directory made, manifest on disk loaded */
void aofFlush(int force);
off_t aofCurrentSize(void);
void aofSetBaseSize(off_t size);
off_t aofBaseSizeForGrowth(void);

/* ---- loading (aof_load.c) ----------------------------------------------------------- */
#define AOF_LOAD_OK 0
#define AOF_LOAD_EMPTY 1
#define AOF_LOAD_TRUNCATED 2 /* truncated and repaired */
#define AOF_LOAD_FAILED 3
int aofLoadFiles(aofManifest *am, off_t *total_size);

/* ---- rewriting (aof_rewrite.c) ------------------------------------------------------ */
int aofRewriteStart(void);            /* C_ERR if it couldn't start */
void aofRewriteSchedule(void);        /* started by the cron when nothing else runs */
void aofRewriteUnschedule(void);      /* the AOF turned off before its first rewrite started */
int aofOpenTempIncr(void);            /* the first rewrite's writes, in temp-<name>.incr (aof.c says why) */
int aofAdoptTempIncr(aofManifest *am); /* ... which becomes the first incr file in am */
void aofReturnTempIncr(const char *name); /* ... or goes back to its temporary name */
int aofRewriteInProgress(void);
void aofRewriteInstalled(int ok);     /* a rewrite ended: installed (ok) or failed */
void aofRewriteCron(void);            /* reap the child, auto-rewrite */
sds aofRewriteInfo(sds info);
sds aofRewriteCowInfo(sds info); /* aof_last_cow_size, module_fork_*: after aof_last_write_status */
void aofRewriteKill(void);
int aofRewriteBaseAtStartup(const char *name); /* a first start's base (Redis 7.0: base 1 + incr 1) */

#endif /* AOF_H */
