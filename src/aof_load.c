/* aof_load.c -- replaying the append-only file: at start-up (every file the
 * manifest names, base first) and for DEBUG LOADAOF.
 *
 * Commands are read as RESP multibulks and run by a fake client (no
 * connection, so no replies are produced), exactly as if a client had sent
 * them; MULTI/EXEC blocks are queued and executed as transactions.
 *
 * Design decisions:
 * - A file that ends in the middle of a command -- a crash during a write,
 *   or a power cut on an SD card -- is cut back to the end of the last
 *   complete command when `aof-load-truncated yes` (the default) and it is
 *   the last file; the offset is logged. A MULTI without its EXEC at the
 *   end counts as truncated at the MULTI, so a transaction is replayed
 *   whole or not at all. Anything malformed before the end stops start-up
 *   with the file name, the byte offset and what to do about it. So does
 *   a last command cut short and followed by zero bytes to the end of the
 *   last file (a power cut that kept the file's size but not its data: the
 *   power-cut checker, utils/powercut, draws such states), where Redis 7.0
 *   refuses to start: the zeros are logged, then truncated like a short read.
 * - A file that starts with "REDIS" is an RDB snapshot followed by
 *   commands (none in a .base.rdb; an old-style AOF's tail): the RDB is
 *   loaded, then the commands after it, as Redis 7.0 does.
 * - A read error is a failed load, never taken for the end of the file.
 * - Lines starting with '#' between commands are annotations (Redis 7's
 *   "#TS:<unix time>" from aof-timestamp-enabled) and are skipped.
 * - The file is read in large chunks into a buffer and parsed in place; no
 *   per-line stdio. The position after each command goes to loading.c,
 *   which serves clients meanwhile (-LOADING, INFO's progress) and logs the
 *   progress of long loads; an RDB base reports through rdb.c the same way.
 * - Logged as Redis 7.0 logs it: "DB loaded from base file <name>: N
 *   seconds", the same per incremental file, then the total.
 */
#include <errno.h>

#include "server.h"
#include "aof.h"
#include "persistio.h"

#include <fcntl.h>
#include <sys/stat.h>

#define AOF_READ_CHUNK (1024 * 1024)
#define AOF_MAX_ARGS (1024 * 1024)

typedef struct aofReader {
    int fd;
    char *buf;
    size_t len, pos;  /* bytes in buf, parse position */
    off_t consumed;   /* file offset of buf[0] */
    int eof;
    int read_errno;   /* a read() that failed (EIO ...): 0 if none */
} aofReader;

/* ---- reading ---------------------------------------------------------------------------- */

/* Makes at least `need` bytes available from pos; 0 at end of file. */
static int readerFill(aofReader *r, size_t need) {
    while (r->len - r->pos < need && !r->eof) {
        if (r->pos > 0) { /* slide the unparsed tail to the front */
            memmove(r->buf, r->buf + r->pos, r->len - r->pos);
            r->consumed += (off_t)r->pos;
            r->len -= r->pos;
            r->pos = 0;
        }
        size_t want = need > AOF_READ_CHUNK ? need : AOF_READ_CHUNK;
        r->buf = zrealloc(r->buf, r->len + want);
        ssize_t n = read(r->fd, r->buf + r->len, want);
        if (n == -1 && errno == EINTR) continue;
        if (n == -1) r->read_errno = errno; /* not an end of file: the load fails */
        if (n <= 0) r->eof = 1;
        else r->len += (size_t)n;
    }
    return r->len - r->pos >= need;
}

static off_t readerOffset(aofReader *r) { return r->consumed + (off_t)r->pos; }

#define READ_OK 0
#define READ_EOF 1       /* clean end of file */
#define READ_TRUNCATED 2 /* the file ends inside a command */
#define READ_BAD 3       /* malformed */

/* "<prefix><number>\r\n". A line that starts with another byte is
 * malformed even when the file ends before its newline: garbage at the
 * end is not a torn write to cut away (Redis 7.0 decides the same way,
 * by the first byte). */
static int readNumberLine(aofReader *r, char prefix, long long *out) {
    char *nl;
    if (!readerFill(r, 1)) return READ_TRUNCATED;
    if (r->buf[r->pos] != prefix) return READ_BAD;
    for (;;) {
        nl = memchr(r->buf + r->pos, '\n', r->len - r->pos);
        if (nl) break;
        if (r->len - r->pos > 64) return READ_BAD;
        if (!readerFill(r, r->len - r->pos + 1)) return READ_TRUNCATED;
    }
    char *line = r->buf + r->pos;
    size_t linelen = (size_t)(nl - line);
    if (linelen < 2 || line[0] != prefix || line[linelen - 1] != '\r' ||
        !string2ll(line + 1, linelen - 2, out))
        return READ_BAD;
    r->pos += linelen + 1;
    return READ_OK;
}

/* Annotation lines ("#TS:1700000000\r\n", written by Redis 7 with
 * aof-timestamp-enabled, and by us) may come wherever a command may start:
 * they are skipped. One longer than AOF_MAX_ANNOTATION is not ours. */
#define AOF_MAX_ANNOTATION (64 * 1024)
static int skipAnnotations(aofReader *r) {
    while (readerFill(r, 1) && r->buf[r->pos] == '#') {
        char *nl;
        size_t scanned = 0;
        while ((nl = memchr(r->buf + r->pos + scanned, '\n', r->len - r->pos - scanned)) == NULL) {
            scanned = r->len - r->pos;
            if (scanned > AOF_MAX_ANNOTATION) return READ_BAD;
            if (!readerFill(r, scanned + 1)) return READ_TRUNCATED;
        }
        r->pos = (size_t)(nl - r->buf) + 1;
    }
    return READ_OK;
}

/* One command into argv; READ_EOF only at a command boundary. */
static int readCommand(aofReader *r, robj ***argv_out, int *argc_out) {
    int ret = skipAnnotations(r);
    if (ret != READ_OK) return ret;
    if (!readerFill(r, 1)) return READ_EOF;
    long long argc;
    ret = readNumberLine(r, '*', &argc);
    if (ret != READ_OK) return ret;
    if (argc < 1 || argc > AOF_MAX_ARGS) return READ_BAD;
    robj **argv = zcalloc(sizeof(robj *) * (size_t)argc);
    for (long long j = 0; j < argc; j++) {
        long long len;
        ret = readNumberLine(r, '$', &len);
        if (ret == READ_OK && (len < 0 || len > server.proto_max_bulk_len)) ret = READ_BAD;
        if (ret == READ_OK && !readerFill(r, (size_t)len + 2)) ret = READ_TRUNCATED;
        if (ret == READ_OK && (r->buf[r->pos + (size_t)len] != '\r' || r->buf[r->pos + (size_t)len + 1] != '\n'))
            ret = READ_BAD;
        if (ret != READ_OK) {
            for (long long i = 0; i < j; i++) decrRefCount(argv[i]);
            zfree(argv);
            return ret;
        }
        argv[j] = createStringObject(r->buf + r->pos, (size_t)len);
        r->pos += (size_t)len + 2;
    }
    *argv_out = argv;
    *argc_out = (int)argc;
    return READ_OK;
}

/* ---- executing ---------------------------------------------------------------------------- */

static client *createLoadingClient(void) {
    client *c = createClient(NULL);
    c->flags |= CLIENT_FAKE;
    clientSetAuthenticated(c, 1);
    return c;
}

static void freeLoadingClient(client *c) {
    c->argc = 0;
    c->argv = NULL;
    freeClient(c);
}

/* Runs one command; C_ERR if it names no command. */
static int executeLoaded(client *c, robj **argv, int argc) {
    c->argv = argv;
    c->argc = argc;
    c->argv_len = argc;
    c->cmd = c->lastcmd = c->realcmd = lookupCommand(argv, argc);
    redisCommand *cmd = c->cmd;
    if (cmd == NULL || cmd->proc == NULL || (cmd->arity > 0 && cmd->arity != argc) || argc < -cmd->arity)
        return C_ERR;
    if (c->flags & CLIENT_MULTI && !commandRunsInsideMulti(c->cmd)) queueMultiCommand(c);
    else call(c);
    freeClientArgv(c);
    zfree(c->argv);
    c->argv = NULL;
    c->argc = 0;
    return C_OK;
}

/* ---- one file ---------------------------------------------------------------------------- */

/* Messages name a file as Redis 7.0's do: by its name in the manifest
 * (the directory is appenddirname), with its words first, so that what
 * operators and tools search the log for is found; our detail (a byte
 * offset) follows. */
static void logTruncated(const char *name, off_t valid_len) {
    serverLog(LL_WARNING, "!!! Warning: short read while loading the AOF file %s!!!", name);
    serverLog(LL_WARNING, "!!! Truncating the AOF %s at offset %lld !!!", name, (long long)valid_len);
}

static int truncateFile(const char *path, off_t valid_len) {
    int fd = persistio.open(path, O_WRONLY, 0644);
    int ok = fd != -1 && persistio.ftruncate(fd, valid_len) == 0 && persistio.fsync(fd) == 0;
    if (fd != -1) close(fd);
    if (!ok) serverLog(LL_WARNING, "Error truncating the AOF file %s: %s", path, strerror(errno));
    return ok;
}

/* A file that ends inside a command. Only the last file may be cut back
 * (a hole in the middle of the history is not a torn last write); one
 * before it is refused with Redis 7.0's line, but left as it is. */
static int handleTruncation(const char *path, const char *name, int is_last, off_t valid_len) {
    if (!server.aof_load_truncated) {
        serverLog(LL_WARNING,
                  "Unexpected end of file reading the append only file %s. You can: 1) Make a backup of your AOF "
                  "file, then use ./redis-check-aof --fix <filename.manifest>. 2) Alternatively you can set the "
                  "'aof-load-truncated' configuration option to yes and restart the server. (The last complete "
                  "command ends at byte %lld.)",
                  name, (long long)valid_len);
        return AOF_LOAD_FAILED;
    }
    if (!is_last) {
        serverLog(LL_WARNING, "!!! Warning: short read while loading the AOF file %s!!!", name);
        serverLog(LL_WARNING, "Fatal error: the truncated file is not the last file (%s ends inside a command "
                              "after byte %lld; it was left as it is)", name, (long long)valid_len);
        return AOF_LOAD_FAILED;
    }
    logTruncated(name, valid_len);
    if (!truncateFile(path, valid_len)) return AOF_LOAD_FAILED;
    serverLog(LL_WARNING, "AOF %s loaded anyway because aof-load-truncated is enabled", name);
    return AOF_LOAD_TRUNCATED;
}

/* 1 when the file from `from` on is some bytes, then only zero bytes (at
 * least one) to its end: a command cut short by a power cut that kept the
 * file's new size but not all of its data (the file system fills the rest
 * with zeros). Any non-zero byte after the first zero means corruption. */
static int zeroTailFrom(int fd, off_t from) {
    char buf[65536];
    int seen_zero = 0;
    ssize_t n;
    while ((n = pread(fd, buf, sizeof buf, from)) > 0) {
        for (ssize_t j = 0; j < n; j++) {
            if (buf[j] == 0) seen_zero = 1;
            else if (seen_zero) return 0;
        }
        from += n;
    }
    return n == 0 && seen_zero;
}

static void logRevertMulti(const char *name) {
    serverLog(LL_WARNING, "Revert incomplete MULTI/EXEC transaction in AOF file %s", name);
}

static int replayFrom(aofReader *r, const char *path, const char *name, int is_last, off_t *valid_len) {
    client *c = createLoadingClient();
    off_t multi_start = -1; /* offset of an open MULTI */
    int result = AOF_LOAD_OK;
    for (;;) {
        off_t command_start = readerOffset(r);
        robj **argv = NULL;
        int argc = 0;
        int ret = readCommand(r, &argv, &argc);
        if (r->read_errno) { /* whatever it looked like, the file was not read to its end */
            serverLog(LL_WARNING, "Unrecoverable error reading the append only file %s: %s", name,
                      strerror(r->read_errno));
            if (ret == READ_OK) {
                for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
                zfree(argv);
            }
            result = AOF_LOAD_FAILED;
            break;
        }
        if (ret == READ_EOF) {
            *valid_len = readerOffset(r); /* annotations after the last command included */
            if (multi_start != -1) { /* a transaction without its EXEC */
                *valid_len = multi_start;
                logRevertMulti(name);
                result = handleTruncation(path, name, is_last, multi_start);
            }
            break;
        }
        if (ret == READ_TRUNCATED) {
            *valid_len = multi_start != -1 ? multi_start : command_start;
            if (multi_start != -1) logRevertMulti(name);
            result = handleTruncation(path, name, is_last, *valid_len);
            break;
        }
        if (ret == READ_BAD && is_last && server.aof_load_truncated && zeroTailFrom(r->fd, command_start)) {
            serverLog(LL_WARNING, "!!! Warning: the AOF file %s ends in zero bytes after byte %lld (an append a "
                                  "power cut interrupted) !!!", name, (long long)command_start);
            *valid_len = multi_start != -1 ? multi_start : command_start;
            if (multi_start != -1) logRevertMulti(name);
            result = handleTruncation(path, name, is_last, *valid_len);
            break;
        }
        if (ret == READ_BAD) {
            serverLog(LL_WARNING,
                      "Bad file format reading the append only file %s: make a backup of your AOF file, then use "
                      "./redis-check-aof --fix <filename.manifest> (the command at byte %lld)",
                      name, (long long)command_start);
            result = AOF_LOAD_FAILED;
            break;
        }
        int is_multi = !strcasecmp(argv[0]->ptr, "multi"), is_exec = !strcasecmp(argv[0]->ptr, "exec");
        if (executeLoaded(c, argv, argc) != C_OK) {
            serverLog(LL_WARNING, "%s '%s' reading the append only file %s (the command at byte %lld)",
                      lookupCommand(argv, argc) ? "Wrong number of arguments for" : "Unknown command",
                      (char *)argv[0]->ptr, name, (long long)command_start);
            for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
            zfree(argv);
            result = AOF_LOAD_FAILED;
            break;
        }
        loadingKeyDelay();
        if (is_multi) multi_start = command_start;
        if (is_exec) multi_start = -1;
        loadingProgress(readerOffset(r));
    }
    freeLoadingClient(c);
    return result;
}

/* A file that starts with "REDIS" opens with an RDB snapshot: a base
 * written with aof-use-rdb-preamble (ours or Redis 7's .base.rdb), or the
 * single AOF of Redis 4-6.2 with its preamble, then commands. */
static int startsWithRdbMagic(int fd) {
    char magic[5];
    int is_rdb = read(fd, magic, 5) == 5 && memcmp(magic, "REDIS", 5) == 0;
    lseek(fd, 0, SEEK_SET);
    return is_rdb;
}

/* Loads the RDB part and leaves r at the commands after it (none in a
 * .base.rdb). An old-style file (named appendfilename: adopted from Redis
 * <= 6.2, see aof.c) is logged as 7.0 logs its "preamble". */
static int loadRdbPart(aofReader *r, const char *path, const char *name) {
    int old_style = !strcmp(name, server.aof_filename);
    serverLog(LL_NOTICE, old_style ? "Reading RDB preamble from AOF file..." : "Reading RDB base file on AOF loading...");
    off_t end = 0;
    if (rdbLoadFdPrefix(r->fd, path, 1, &end) != C_OK || lseek(r->fd, end, SEEK_SET) != end) {
        serverLog(LL_WARNING, "Error reading the RDB %s of the AOF file %s, AOF loading aborted",
                  old_style ? "preamble" : "base file", path);
        return C_ERR;
    }
    if (old_style) serverLog(LL_NOTICE, "Reading the remaining AOF tail...");
    r->consumed = end;
    return C_OK;
}

/* Replays one file. valid_len: the offset after the last complete command. */
static int aofReplayFile(const char *path, const char *name, int is_last, off_t *valid_len) {
    aofReader r = {.fd = open(path, O_RDONLY)};
    if (r.fd == -1) {
        serverLog(LL_WARNING, "Can't open the append-only file %s: %s", path, strerror(errno));
        return AOF_LOAD_FAILED;
    }
    int result = AOF_LOAD_FAILED;
    if (!startsWithRdbMagic(r.fd) || loadRdbPart(&r, path, name) == C_OK)
        result = replayFrom(&r, path, name, is_last, valid_len);
    close(r.fd);
    zfree(r.buf);
    return result;
}

static off_t sizeOf(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? st.st_size : 0;
}

/* Replays the base and every incremental file in order. */
int aofLoadFiles(aofManifest *am, off_t *total_size) {
    int nfiles = am->incr_count + (am->base ? 1 : 0);
    const char **names = zmalloc(sizeof(char *) * (size_t)(nfiles ? nfiles : 1));
    sds *paths = zmalloc(sizeof(sds) * (size_t)(nfiles ? nfiles : 1));
    int n = 0;
    if (am->base) names[n++] = am->base->name;
    for (int j = 0; j < am->incr_count; j++) names[n++] = am->incrs[j]->name;
    off_t total = 0, loaded = 0;
    int result = nfiles ? AOF_LOAD_OK : AOF_LOAD_EMPTY;
    for (int j = 0; j < n; j++) {
        paths[j] = aofPathJoin(server.aof_dirname, names[j]);
        struct stat st;
        if (result == AOF_LOAD_FAILED) continue;
        if (stat(paths[j], &st) == -1) { /* every file must be there before any is loaded, as in Redis */
            serverLog(LL_WARNING, "Unable to obtain the AOF file %s length. stat: %s", names[j], strerror(errno));
            result = AOF_LOAD_FAILED;
            continue;
        }
        total += st.st_size;
    }

    loadingStart(total, "AOF");
    long long start = ustime();
    for (int j = 0; j < n && result != AOF_LOAD_FAILED; j++) {
        off_t valid = 0;
        long long file_start = ustime();
        loadingFileStart(loaded);
        int ret = aofReplayFile(paths[j], names[j], j == n - 1, &valid);
        if (ret == AOF_LOAD_FAILED || ret == AOF_LOAD_TRUNCATED) result = ret;
        if (ret != AOF_LOAD_FAILED && sizeOf(paths[j]) > 0) /* an empty file: not logged, as in Redis */
            serverLog(LL_NOTICE, "DB loaded from %s file %s: %.3f seconds", am->base && j == 0 ? "base" : "incr",
                      names[j], (double)(ustime() - file_start) / 1e6);
        loaded += valid;
    }
    loadingEnd();
    *total_size = loaded;
    if (result != AOF_LOAD_FAILED)
        serverLog(LL_NOTICE, "DB loaded from append only file: %.3f seconds", (double)(ustime() - start) / 1e6);
    for (int j = 0; j < n; j++) sdsfree(paths[j]);
    zfree(paths);
    zfree(names);
    return result;
}

/* With the AOF off, the files the last BGREWRITEAOF wrote (the manifest
 * on disk), as Redis loads them; NULL when there is none. It is read
 * afresh, as Redis 7.0's DEBUG LOADAOF does: the sequence numbers then
 * restart from the files the manifest names (an AOF turned on again after
 * a BGREWRITEAOF with it off and a DEBUG LOADAOF has incr 1 again, which
 * Redis's aof-multi-part test expects). */
static aofManifest *manifestOfAofOff(void) {
    sds mpath = aofManifestPath();
    int exists = access(mpath, F_OK) == 0;
    sdsfree(mpath);
    if (!exists) return aofCurrentManifest();
    aofSetCurrentManifest(NULL);
    if (aofPrepareDirAndManifest() != C_OK) return NULL;
    return aofCurrentManifest();
}

/* DEBUG LOADAOF: flush the AOF, empty the dataset and load it back. With
 * appendonly no it loads the files of the last BGREWRITEAOF; with none
 * there, it refuses and leaves the dataset alone (Redis exits). */
void debugLoadAofCommand(client *c) {
    if (server.aof_enabled) {
        aofFlush(1);
    } else if (manifestOfAofOff() == NULL) {
        addReplyError(c, "DEBUG LOADAOF found no AOF to load: appendonly is no and no BGREWRITEAOF wrote one");
        return;
    }
    aofDeleteHistoryFiles(); /* as Redis's DEBUG LOADAOF */
    emptyData(-1, 0);
    functionsFlushAll(); /* the files bring them back (base and FUNCTION LOADs), as DEBUG RELOAD's dump does */
    off_t total;
    if (aofLoadFiles(aofCurrentManifest(), &total) == AOF_LOAD_FAILED) {
        addReplyError(c, "Error trying to load the AOF files, check the server logs.");
        return;
    }
    server.dirty = 0;
    serverLog(LL_NOTICE, "Append Only File loaded by DEBUG LOADAOF");
    addReply(c, shared.ok);
}
