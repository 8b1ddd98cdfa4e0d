/* aof.c -- the append-only file writer.
 *
 * propagate.c hands every change over as a command (aofFeed); it is
 * appended in RESP form to an in-memory buffer, preceded by a SELECT when
 * the database changes. The buffer is written once per event-loop pass
 * (before replies go out), so a burst of commands becomes one large write:
 * that is kinder to an SD card than a write per command, and with
 * `appendfsync always` the fsync also happens before any reply of the pass
 * is sent, so an acknowledged write is on disk. (A reply that is still
 * going out from an earlier pass is sent by a write handler installed with
 * a write barrier -- networking.c, installWriteHandler -- so it cannot
 * carry the reply to a command read in the same pass ahead of the AOF.)
 *
 * fsync policies: always (fsync after each write, in the event loop), everysec
 * (an fsync at most once a second on the background thread, bio.c; if one is
 * still running the write is postponed up to 2 s, then done anyway and
 * counted in aof_delayed_fsync), no (the kernel decides).
 *
 * Errors: a failed or short write is undone (ftruncate back to the last
 * good size) so no partial command stays in the file; the data stays in the
 * buffer and is retried every cron tick. Meanwhile write commands (and
 * PING) get -MISCONF; once a write succeeds the server recovers by itself.
 * With `appendfsync always` a failed write or fsync can't keep its promise,
 * so the server exits, as Redis does.
 *
 * Start-up on the data directory of Redis <= 6.2 (one appendonly.aof, no
 * folder, no manifest): the file is adopted as the base of the multi-part
 * layout, crash-safely, as Redis 7.0 does (adoptOldStyleAof).
 *
 * Flash statistics in INFO persistence: bytes written, write calls, fsync
 * calls and their latency, so write amplification can be computed.
 */
#include <errno.h>

#include "server.h"
#include "aof.h"
#include "bio.h"
#include "persistio.h"

#include <fcntl.h>
#include <sys/stat.h>

/* ---- state -------------------------------------------------------------------------------- */

static struct {
    sds buf;
    int fd;                      /* the incremental file being appended, -1 if none */
    int selected_db;             /* the db the file's last SELECT chose, -1 = none */
    aofManifest *manifest;
    off_t current_size;          /* base + incremental files */
    off_t base_size;             /* size right after the last rewrite (auto-rewrite growth) */
    off_t incr_size;             /* bytes in the open incremental file */
    long long last_fsync_ms;
    long long flush_postponed_since; /* 0 = not postponed */
    long long delayed_fsync;
    int last_write_status;       /* C_OK / C_ERR */
    int last_write_errno;
    long long last_error_log;
    long long bytes_written, write_calls;
    long long fsync_calls, fsync_total_us, fsync_max_us; /* main-thread fsyncs */
    int unsynced;                /* written since the last fsync */
    long long last_ts;           /* second of the last "#TS:" annotation in this file, 0 = none */
    int awaiting_first_base;     /* turned on at run time; its first rewrite still to be installed */
} aof = {.fd = -1, .selected_db = -1, .last_write_status = C_OK};

sds aofDirPath(void) { return sdsnew(server.aof_dirname); }

sds aofManifestPath(void) {
    sds name = sdscatfmt(sdsempty(), "%s.manifest", server.aof_filename);
    sds path = aofPathJoin(server.aof_dirname, name);
    sdsfree(name);
    return path;
}

aofManifest *aofCurrentManifest(void) { return aof.manifest; }

void aofSetCurrentManifest(aofManifest *am) {
    if (aof.manifest != am) aofManifestFree(aof.manifest);
    aof.manifest = am;
}

off_t aofCurrentSize(void) { return aof.current_size; }
off_t aofBaseSizeForGrowth(void) { return aof.base_size; }

void aofSetBaseSize(off_t size) {
    aof.base_size = size;
    aof.current_size = size + aof.incr_size;
}

/* ---- feeding ------------------------------------------------------------------------------ */

static sds catArg(sds buf, robj *o) {
    char num[LONG_STR_SIZE];
    const char *p;
    size_t len;
    if (sdsEncodedObject(o)) {
        p = o->ptr;
        len = sdslen(o->ptr);
    } else {
        len = (size_t)ll2string(num, sizeof num, (long long)(intptr_t)o->ptr);
        p = num;
    }
    buf = sdscatfmt(buf, "$%U\r\n", (unsigned long long)len);
    buf = sdscatlen(buf, p, len);
    return sdscatlen(buf, "\r\n", 2);
}

static sds aofCatCommand(sds buf, robj **argv, int argc) {
    buf = sdscatfmt(buf, "*%i\r\n", argc);
    for (int j = 0; j < argc; j++) buf = catArg(buf, argv[j]);
    return buf;
}

/* aof-timestamp-enabled: "#TS:<unix seconds>" before the first command of
 * each new second, as Redis 7 writes it (the loaders skip '#' lines). */
static void feedTimestamp(void) {
    long long now = (long long)server.unixtime;
    if (!server.aof_timestamp_enabled || now <= aof.last_ts) return;
    aof.buf = sdscatfmt(aof.buf, "#TS:%I\r\n", now);
    aof.last_ts = now;
}

/* Appends one propagated op (propagate.c calls this), dropped unless the
 * file is open. */
void aofFeed(int dbid, robj **argv, int argc) {
    if (!server.aof_enabled || aof.fd == -1 || server.loading) return;
    feedTimestamp();
    if (dbid != aof.selected_db) {
        char id[LONG_STR_SIZE];
        int n = ll2string(id, sizeof id, dbid);
        aof.buf = sdscatfmt(aof.buf, "*2\r\n$6\r\nSELECT\r\n$%i\r\n%s\r\n", n, id);
        aof.selected_db = dbid;
    }
    aof.buf = aofCatCommand(aof.buf, argv, argc);
}

/* ---- writing ------------------------------------------------------------------------------ */

static void logWriteError(const char *what, int err) {
    long long now = mstime();
    if (now - aof.last_error_log < 30000) return; /* once every 30 s is enough */
    aof.last_error_log = now;
    serverLog(LL_WARNING, "Error writing to the AOF file (%s): %s", what, strerror(err));
}

static void fsyncNow(void) {
    long long start = ustime();
    if (persistio.fsync(aof.fd) == -1) {
        serverLog(LL_WARNING, "Can't persist the AOF with fsync (%s), and appendfsync is 'always': exiting.",
                  strerror(errno));
        exit(1);
    }
    long long took = ustime() - start;
    LATENCY_SAMPLE("aof-fsync-always", took / 1000);
    aof.fsync_calls++;
    aof.fsync_total_us += took;
    if (took > aof.fsync_max_us) aof.fsync_max_us = took;
    aof.last_fsync_ms = server.mstime;
    aof.unsynced = 0;
}

static int fsyncAllowedNow(void) { return !(server.aof_no_fsync_on_rewrite && aofRewriteInProgress()); }

static void fsyncPerPolicy(void) {
    if (!aof.unsynced || !fsyncAllowedNow()) return;
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        fsyncNow();
    } else if (server.aof_fsync == AOF_FSYNC_EVERYSEC && server.mstime - aof.last_fsync_ms >= 1000 &&
               bioPendingFsyncs() == 0) {
        bioSubmitFsync(aof.fd, persistio.fsync);
        aof.last_fsync_ms = server.mstime;
        aof.unsynced = 0;
    }
}

/* A write with everysec waits (up to 2 s) for a running background fsync:
 * write() on a file being fsynced would block the event loop anyway. */
static int postponeForBackgroundFsync(int force) {
    if (force || server.aof_fsync != AOF_FSYNC_EVERYSEC || bioPendingFsyncs() == 0) {
        aof.flush_postponed_since = 0;
        return 0;
    }
    if (aof.flush_postponed_since == 0) {
        aof.flush_postponed_since = server.mstime;
        return 1;
    }
    if (server.mstime - aof.flush_postponed_since < 2000) return 1;
    aof.delayed_fsync++;
    serverLog(LL_NOTICE, "Asynchronous AOF fsync is taking too long (disk is busy?). Writing the AOF buffer "
                         "without waiting for fsync to complete, this may slow down the server.");
    aof.flush_postponed_since = 0;
    return 0;
}

/* A failed or partial write is cut back off the file, so it never ends in
 * the middle of a command; the buffer keeps everything for the retry. */
static void handleWriteError(ssize_t written, int err) {
    if (written > 0 && persistio.ftruncate(aof.fd, aof.incr_size) == -1) {
        /* can't undo: keep what reached the file, drop it from the buffer */
        sdsrange(aof.buf, written, -1);
        aof.incr_size += written;
        aof.current_size += written;
    }
    aof.last_write_status = C_ERR;
    aof.last_write_errno = err;
    logWriteError(written > 0 ? "short write" : "write", err);
    if (server.aof_fsync == AOF_FSYNC_ALWAYS) {
        serverLog(LL_WARNING, "Can't recover from AOF write error when the AOF fsync policy is 'always'. Exiting...");
        exit(1);
    }
}

void aofFlush(int force) {
    if (aof.fd == -1) return;
    if (sdslen(aof.buf) == 0) {
        fsyncPerPolicy();
        return;
    }
    if (postponeForBackgroundFsync(force)) return;
    if (server.aof_flush_sleep > 0) usleep((useconds_t)server.aof_flush_sleep); /* DEBUG AOF-FLUSH-SLEEP */
    size_t len = sdslen(aof.buf);
    LATENCY_START(write_latency);
    ssize_t written = persistWriteFully(aof.fd, aof.buf, len, &aof.write_calls);
    LATENCY_END_AOF_WRITE(write_latency);
    if (written != (ssize_t)len) {
        handleWriteError(written, errno);
        return;
    }
    if (aof.last_write_status == C_ERR) serverLog(LL_NOTICE, "AOF write error looks solved. The server can write again.");
    aof.last_write_status = C_OK;
    aof.bytes_written += (long long)len;
    aof.incr_size += (off_t)len;
    aof.current_size += (off_t)len;
    aof.unsynced = 1;
    if (sdsalloc(aof.buf) > 4 * 1024 * 1024) {
        sdsfree(aof.buf);
        aof.buf = sdsempty();
    } else {
        sdsclear(aof.buf);
    }
    fsyncPerPolicy();
}

/* -MISCONF while the AOF can't be written: the error text, or NULL. */
sds aofWriteDeniedError(void) {
    if (!server.aof_enabled || aof.last_write_status == C_OK) return NULL;
    return sdscatfmt(sdsempty(), "-MISCONF Errors writing to the AOF file: %s", strerror(aof.last_write_errno));
}

/* ---- opening files ------------------------------------------------------------------------- */

/* The folder, and its entry in the working directory made durable when
 * created: until that fsync a power cut may undo the mkdir and, with it,
 * every file the AOF then puts there. */
static int ensureDir(void) {
    if (mkdir(server.aof_dirname, 0755) == -1) {
        if (errno == EEXIST) return C_OK;
        serverLog(LL_WARNING, "Can't create the append-only directory %s: %s", server.aof_dirname, strerror(errno));
        return C_ERR;
    }
    if (persistFsyncDirOf(server.aof_dirname) == -1) {
        serverLog(LL_WARNING, "Can't fsync the directory of the append-only directory %s: %s", server.aof_dirname,
                  strerror(errno));
        return C_ERR;
    }
    return C_OK;
}

static int openForAppend(const char *name) {
    sds path = aofPathJoin(server.aof_dirname, name);
    int fd = persistio.open(path, O_WRONLY | O_APPEND | O_CREAT, 0644);
    if (fd == -1) serverLog(LL_WARNING, "Can't open the append-only file %s: %s", path, strerror(errno));
    sdsfree(path);
    return fd;
}

static void switchToFile(int fd) {
    aofFlush(1);
    if (aof.fd != -1) {
        if (aof.unsynced && server.aof_fsync != AOF_FSYNC_NO) persistio.fsync(aof.fd);
        bioSubmitClose(aof.fd);
    }
    aof.fd = fd;
    aof.incr_size = 0;
    aof.selected_db = -1; /* a new file starts with its own SELECT */
    aof.last_ts = 0;      /* ... and its own timestamp */
    aof.unsynced = 0;
}

/* Starts a new incremental file and records it in the manifest (used at
 * start-up and when a rewrite begins). The current file is written out and
 * fsynced first, whatever appendfsync says: once the manifest names a file
 * after it, it is no longer the last, and a tail a power cut cut short is
 * only forgiven (aof-load-truncated) in the last file (utils/powercut found
 * the server refusing to start there). */
int aofOpenNewIncr(void) {
    if (aof.fd != -1) {
        aofFlush(1);
        if (persistio.fsync(aof.fd) == 0) aof.unsynced = 0;
    }
    aofManifest *am = aofManifestDup(aof.manifest);
    sds name = aofManifestNewIncrName(am, server.aof_filename);
    int fd = openForAppend(name);
    sds mpath = aofManifestPath();
    int ok = fd != -1;
    if (ok) aofManifestAddIncr(am, name, am->curr_incr_seq);
    if (ok && aofManifestPersist(am, server.aof_dirname, mpath) != C_OK) {
        close(fd);
        sds path = aofPathJoin(server.aof_dirname, name);
        unlink(path);
        sdsfree(path);
        ok = 0;
    }
    sdsfree(mpath);
    sdsfree(name);
    if (!ok) {
        aofManifestFree(am);
        return C_ERR;
    }
    aofSetCurrentManifest(am);
    switchToFile(fd);
    return C_OK;
}

/* ---- the first rewrite after CONFIG SET appendonly yes: a temporary incr file ----------------- */

/* Until the AOF enabled at run time has its first base, there is no AOF to
 * add files to: the writes made while that rewrite runs go to a file the
 * manifest does not name, temp-<appendfilename>.incr, which becomes the
 * first incremental file when the base is installed (aofAdoptTempIncr) and
 * is removed if the rewrite fails (the next one's base holds its writes).
 * Writes before the rewrite starts (it waits for a BGSAVE, or for EXEC to
 * end) go nowhere: the base will hold them. This is Redis 7.0's
 * AOF_WAIT_REWRITE: no manifest, base or incr file is made until the
 * first base is whole, and the files are then base N + incr 1. */
static sds tempIncrName(void) { return sdscatfmt(sdsempty(), "temp-%s.incr", server.aof_filename); }

int aofOpenTempIncr(void) {
    sds name = tempIncrName(), path = aofPathJoin(server.aof_dirname, name);
    int fd = persistio.open(path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) serverLog(LL_WARNING, "Can't open the append-only file %s: %s", path, strerror(errno));
    else switchToFile(fd);
    sdsfree(name), sdsfree(path);
    return fd == -1 ? C_ERR : C_OK;
}

/* The base is in place: the temporary file gets the next incremental name
 * in `am`, which the caller's manifest write persists, making the file
 * part of the AOF. It stays open, the same file under its new name. */
int aofAdoptTempIncr(aofManifest *am) {
    sds tmp = tempIncrName(), name = aofManifestNewIncrName(am, server.aof_filename);
    sds tmppath = aofPathJoin(server.aof_dirname, tmp), path = aofPathJoin(server.aof_dirname, name);
    int ok = persistio.rename(tmppath, path) == 0;
    if (!ok) serverLog(LL_WARNING, "Error trying to rename the temporary AOF incr file %s into %s: %s", tmppath, path,
                       strerror(errno));
    else aofManifestAddIncr(am, name, am->curr_incr_seq);
    sdsfree(tmp), sdsfree(name), sdsfree(tmppath), sdsfree(path);
    return ok ? C_OK : C_ERR;
}

/* The manifest naming an adopted file could not be written: it goes back
 * to its temporary name, for dropTempIncr to remove. */
void aofReturnTempIncr(const char *name) {
    sds tmp = tempIncrName(), tmppath = aofPathJoin(server.aof_dirname, tmp), path = aofPathJoin(server.aof_dirname, name);
    if (persistio.rename(path, tmppath) != 0) unlink(path);
    sdsfree(tmp), sdsfree(tmppath), sdsfree(path);
}

/* The first rewrite failed or the AOF is turned off again: the writes it
 * collected are in the dataset, which the next base takes whole. */
static void dropTempIncr(void) {
    if (aof.fd != -1) {
        sdsclear(aof.buf);
        bioSubmitClose(aof.fd);
        aof.fd = -1;
    }
    sds name = tempIncrName(), path = aofPathJoin(server.aof_dirname, name);
    serverLog(LL_NOTICE, "Removing the temp incr aof file %s in the background", name);
    if (unlink(path) == -1 && errno != ENOENT) serverLog(LL_WARNING, "Can't delete %s: %s", path, strerror(errno));
    sdsfree(name), sdsfree(path);
}

static off_t fileSize(const char *name) {
    sds path = aofPathJoin(server.aof_dirname, name);
    struct stat st;
    off_t size = stat(path, &st) == 0 ? st.st_size : 0;
    sdsfree(path);
    return size;
}

/* An AOF with neither base nor incremental file (a first start, or every
 * file gone) gets a base of the dataset now, as Redis 7.0 does
 * (aofRewriteBaseAtStartup says why); the new incremental file's manifest
 * write then names both. */
static int createBaseAtStartup(void) {
    aofManifest *am = aofManifestDup(aof.manifest);
    sds base = aofManifestNewBaseName(am, server.aof_filename, server.aof_use_rdb_preamble ? "rdb" : "aof");
    if (aofRewriteBaseAtStartup(base) != C_OK) {
        aofManifestFree(am);
        sdsfree(base);
        return C_ERR;
    }
    aofManifestSetBase(am, base, am->curr_base_seq);
    aofSetCurrentManifest(am);
    aofSetBaseSize(fileSize(base));
    serverLog(LL_NOTICE, "Creating AOF base file %s on server start", base);
    sdsfree(base);
    return C_OK;
}

/* Reopens the last incremental file the manifest names, for appending. */
static int openLastIncr(void) {
    aofManifest *am = aof.manifest;
    if (am->base == NULL && am->incr_count == 0 && createBaseAtStartup() != C_OK) return C_ERR;
    am = aof.manifest;
    if (am->incr_count == 0) {
        if (aofOpenNewIncr() != C_OK) return C_ERR;
        am = aof.manifest;
        serverLog(LL_NOTICE, "Creating AOF incr file %s on server start", am->incrs[am->incr_count - 1]->name);
        return C_OK;
    }
    const char *name = am->incrs[am->incr_count - 1]->name;
    serverLog(LL_NOTICE, "Opening AOF incr file %s on server start", name);
    int fd = openForAppend(name);
    if (fd == -1) return C_ERR;
    switchToFile(fd);
    aof.incr_size = fileSize(name);
    return C_OK;
}

/* ---- start-up, enabling and disabling -------------------------------------------------------- */

/* The reason is already logged, last, as Redis 7.0 leaves it (operators
 * and tools read the last line of the log): nothing follows it. */
static void exitOnLoadFailure(void) { exit(1); }

/* ---- adopting the single AOF of Redis <= 6.2 ------------------------------------------------ */

static int isRegularFile(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 && S_ISREG(st.st_mode);
}

/* Whether <dir>/<appendfilename> is an AOF of Redis <= 6.2 to adopt, in
 * Redis 7.0's three cases: no manifest (no appenddirname folder, or one
 * left by a crash before the manifest was written); a manifest that names
 * no file; or the manifest this adoption writes, naming it as the base,
 * when the crash came before the file was moved. A complete layout wins:
 * the old file is then left alone, as Redis 7.0 does. */
static int oldStyleAofToAdopt(const aofManifest *am) {
    if (!isRegularFile(server.aof_filename)) return 0;
    if (am == NULL || (am->base == NULL && am->incr_count == 0)) return 1;
    if (am->base == NULL || am->incr_count != 0 || strcmp(am->base->name, server.aof_filename) != 0) return 0;
    sds moved = aofPathJoin(server.aof_dirname, server.aof_filename);
    int missing = access(moved, F_OK) != 0;
    sdsfree(moved);
    return missing;
}

/* fsync of a directory, fatal before the old file moves: a directory
 * entry a power cut can undo must not be what the next step relies on
 * (EINVAL: a file system that can't, where nothing better is possible). */
static int fsyncDirOrLog(const char *dir, int fatal) {
    if (persistFsyncDir(dir) == 0 || errno == EINVAL) return C_OK;
    serverLog(LL_WARNING, "Can't fsync the directory %s while migrating the old-style AOF: %s", dir, strerror(errno));
    return fatal ? C_ERR : C_OK;
}

/* Makes the old file the base of the multi-part layout, as Redis 7.0 does
 * (it keeps its name: "file appendonly.aof seq 1 type b"). The steps, each
 * durable before the next: the folder exists (the working directory
 * fsynced), the manifest naming the base is written (write, fsync, rename,
 * fsync of the folder), then the file is moved in (rename, both folders
 * fsynced). A crash at any point leaves a state oldStyleAofToAdopt()
 * adopts again, or the finished layout: never a manifest without its base
 * file. Any failure stops start-up with the old data untouched. */
static aofManifest *adoptOldStyleAof(void) {
    aofManifest *am = aofManifestCreate();
    aofManifestSetBase(am, server.aof_filename, 1);
    am->curr_base_seq = 1;
    sds mpath = aofManifestPath(), moved = aofPathJoin(server.aof_dirname, server.aof_filename);
    int ok = fsyncDirOrLog(".", 1) == C_OK && aofManifestPersist(am, server.aof_dirname, mpath) == C_OK &&
             fsyncDirOrLog(server.aof_dirname, 1) == C_OK;
    if (ok && persistio.rename(server.aof_filename, moved) == -1) {
        serverLog(LL_WARNING, "Error trying to rename the existing AOF to old AOF file: %s", strerror(errno));
        ok = 0;
    }
    sdsfree(mpath);
    sdsfree(moved);
    if (!ok) {
        serverLog(LL_WARNING, "Can't migrate the old-style AOF file %s into the AOF directory %s: the server can't "
                              "start.", server.aof_filename, server.aof_dirname);
        exit(1);
    }
    fsyncDirOrLog(server.aof_dirname, 0);
    fsyncDirOrLog(".", 0);
    serverLog(LL_NOTICE, "Successfully migrated an old-style AOF file (%s) into the AOF directory (%s).",
              server.aof_filename, server.aof_dirname);
    return am;
}

/* The files earlier rewrites replaced while aof-disable-auto-gc was yes
 * (history, type h in the manifest) go: first out of the manifest, then
 * off the disk, so a power cut between leaves only unnamed files. Called
 * when the setting goes back to no, at start-up and by DEBUG LOADAOF, as
 * in Redis 7.0. */
void aofDeleteHistoryFiles(void) {
    if (server.aof_disable_auto_gc || aof.manifest == NULL || aof.manifest->history_count == 0) return;
    aofManifest *am = aofManifestDup(aof.manifest);
    aofManifestClearHistory(am);
    sds mpath = aofManifestPath();
    int ok = aofManifestPersist(am, server.aof_dirname, mpath) == C_OK;
    sdsfree(mpath);
    if (!ok) {
        aofManifestFree(am);
        return;
    }
    aofManifest *old = aof.manifest;
    for (int j = 0; j < old->history_count; j++) {
        serverLog(LL_NOTICE, "Removing the history file %s in the background", old->history[j]->name);
        sds path = aofPathJoin(server.aof_dirname, old->history[j]->name);
        if (unlink(path) == -1 && errno != ENOENT) serverLog(LL_WARNING, "Can't delete %s: %s", path, strerror(errno));
        sdsfree(path);
    }
    aofSetCurrentManifest(am);
}

/* ---- start-up ------------------------------------------------------------------------------ */

/* The manifest on disk, NULL if there is none; a corrupt one stops start-up. */
static aofManifest *manifestAtStartup(void) {
    sds mpath = aofManifestPath();
    aofManifestError err;
    aofManifest *am = NULL;
    if (access(mpath, F_OK) == 0 && aofManifestLoad(mpath, &am, &err) != C_OK) {
        aofManifestLogError(&err);
        exitOnLoadFailure();
    }
    sdsfree(mpath);
    return am;
}

/* Loads an existing AOF (the manifest decides which files; an old-style
 * single file is adopted first) or creates an empty one, then opens the
 * last incremental file for appending. */
static void openOrCreateAtStartup(void) {
    if (ensureDir() != C_OK) exit(1);
    aofManifest *am = manifestAtStartup();
    off_t total = 0;
    if (oldStyleAofToAdopt(am)) {
        aofManifestFree(am);
        am = adoptOldStyleAof();
    }
    if (am != NULL && aofLoadFiles(am, &total) == AOF_LOAD_FAILED) exitOnLoadFailure();
    aofSetCurrentManifest(am ? am : aofManifestCreate());
    aofDeleteHistoryFiles();
    if (openLastIncr() != C_OK) exit(1);
    aof.current_size = total > aof.incr_size ? total : aof.incr_size;
    aof.base_size = aof.current_size; /* auto-rewrite measures growth from here */
}

/* With the AOF off (CONFIG SET appendonly yes, BGREWRITEAOF): the directory
 * exists and the manifest already on disk, if any, is the current one, so
 * new files continue its sequence numbers instead of reusing a name. */
int aofPrepareDirAndManifest(void) {
    if (ensureDir() != C_OK) return C_ERR;
    if (aof.manifest != NULL) return C_OK;
    sds mpath = aofManifestPath();
    aofManifestError err;
    aofManifest *am = NULL;
    int res = C_OK;
    if (access(mpath, F_OK) != 0) {
        am = aofManifestCreate();
    } else if (aofManifestLoad(mpath, &am, &err) != C_OK) {
        aofManifestLogError(&err);
        aofManifestErrorFree(&err);
        res = C_ERR;
    }
    sdsfree(mpath);
    if (res == C_OK) aofSetCurrentManifest(am);
    return res;
}

/* beforeSleep(): what this event-loop pass propagated goes to the file,
 * before any reply of the pass is written. */
void aofBeforeSleep(void) {
    if (server.aof_enabled) aofFlush(0);
}

static int aofCron(struct aeEventLoop *el, long long id, void *data) {
    (void)el;
    (void)id;
    (void)data;
    if (server.aof_enabled) {
        int err = bioLastFsyncErrno();
        if (err && aof.last_write_status == C_OK) {
            aof.last_write_status = C_ERR;
            aof.last_write_errno = err;
            logWriteError("fsync", err);
        } else if (!err && aof.last_write_status == C_ERR && sdslen(aof.buf) == 0) {
            aof.last_write_status = C_OK;
        }
        aofFlush(0); /* retries after errors, postponed writes, everysec fsync */
    }
    aofRewriteCron();
    return 100;
}

void aofInit(void) {
    aof.buf = sdsempty();
    if (aeCreateTimeEvent(server.el, 100, aofCron, NULL, NULL) == AE_ERR) serverPanic("Can't create the AOF timer");
    if (server.aof_enabled) openOrCreateAtStartup();
}

/* The rewrite that writes the dataset as the new AOF's base. Inside EXEC it
 * is only scheduled, as in Redis: a base taken now would hold the commands
 * of the transaction run so far, and the transaction, propagated whole
 * once it ends, would then be in the incremental file as well (an INCR
 * applied twice on load). Scheduled, it starts from the cron after EXEC. */
static int startRewriteForNewAof(void) {
    if (server.in_exec) {
        serverLog(LL_WARNING, "AOF was enabled during a transaction. An AOF background was scheduled to start "
                              "when possible.");
        aofRewriteSchedule();
        return C_OK;
    }
    if (rdbBgsaveInProgress())
        serverLog(LL_WARNING, "AOF was enabled but there is already another background operation. An AOF "
                              "background was scheduled to start when possible.");
    return aofRewriteStart(); /* which waits for the BGSAVE itself */
}

/* CONFIG SET appendonly yes|no. Turning it on writes the whole dataset as a
 * new base with a rewrite; writes meanwhile go to a new incremental file. */
int aofSetEnabled(int on, sds *err) {
    if (on && aof.fd == -1 && !aof.awaiting_first_base) {
        aofRewriteKill(); /* a BGREWRITEAOF of the AOF-off kind would drop the new incremental file */
        aof.awaiting_first_base = 1; /* the rewrite writes to a temporary incr file (aofOpenTempIncr) */
        if (aofPrepareDirAndManifest() != C_OK || startRewriteForNewAof() != C_OK) {
            aof.awaiting_first_base = 0;
            if (aof.fd != -1) dropTempIncr();
            *err = sdsnew("Failed to enable the AOF: see the server log");
            return C_ERR;
        }
    } else if (!on && aof.awaiting_first_base) {
        aof.awaiting_first_base = 0;
        aofRewriteKill();
        aofRewriteUnschedule();
        dropTempIncr();
        aof.last_write_status = C_OK;
    } else if (!on && aof.fd != -1) {
        aofRewriteKill();
        aofFlush(1);
        if (aof.unsynced) persistio.fsync(aof.fd);
        bioSubmitClose(aof.fd); /* after any background fsync still queued for it */
        aof.fd = -1;
        aof.last_write_status = C_OK;
    }
    return C_OK;
}

/* Until the rewrite that follows CONFIG SET appendonly yes is installed,
 * the files hold only the writes made since (Redis's AOF_WAIT_REWRITE):
 * the dataset before them is nowhere in the AOF. A shutdown then would
 * restart from an AOF that lacks it, so it is refused, as in Redis 7.0
 * (shutdownRefusedByAof, server.c), and a failed rewrite is tried again. */
int aofAwaitingFirstBase(void) { return aof.awaiting_first_base; }

void aofRewriteInstalled(int ok) {
    if (ok) {
        aof.awaiting_first_base = 0;
    } else if (aof.awaiting_first_base) {
        dropTempIncr();
        aofRewriteSchedule();
    }
}

/* SHUTDOWN: everything written and on disk. */
void aofShutdown(void) {
    if (aof.fd == -1) return;
    aofRewriteKill();
    aofFlush(1);
    bioDrain();
    persistio.fsync(aof.fd);
}

/* ---- INFO ----------------------------------------------------------------------------------- */

/* The AOF buffer's memory: not counted against maxmemory (evicting keys
 * appends DELs to it, which must not make eviction go on), as in Redis. */
size_t aofBufferMemory(void) { return aof.buf ? zmalloc_size(sdsAllocPtr(aof.buf)) : 0; }

sds aofInfoString(sds info) {
    long long bg_calls, bg_total, bg_max;
    bioFsyncStats(&bg_calls, &bg_total, &bg_max);
    long long calls = aof.fsync_calls + bg_calls, total = aof.fsync_total_us + bg_total;
    info = aofRewriteInfo(info);
    info = sdscatfmt(info, "aof_last_write_status:%s\r\n", aof.last_write_status == C_OK ? "ok" : "err");
    info = aofRewriteCowInfo(info);
    if (!server.aof_enabled) return info;
    info = sdscatfmt(info,
                     "aof_current_size:%I\r\n"
                     "aof_base_size:%I\r\n"
                     "aof_pending_rewrite:0\r\n"
                     "aof_buffer_length:%U\r\n"
                     "aof_pending_bio_fsync:%U\r\n"
                     "aof_delayed_fsync:%I\r\n"
                     "aof_bytes_written:%I\r\n"
                     "aof_write_calls:%I\r\n"
                     "aof_fsync_calls:%I\r\n"
                     "aof_fsync_avg_usec:%I\r\n"
                     "aof_fsync_max_usec:%I\r\n",
                     (long long)aof.current_size, (long long)aof.base_size, (unsigned long long)sdslen(aof.buf),
                     (unsigned long long)bioPendingFsyncs(), aof.delayed_fsync, aof.bytes_written, aof.write_calls,
                     calls, calls ? total / calls : 0, aof.fsync_max_us > bg_max ? aof.fsync_max_us : bg_max);
    return info;
}
