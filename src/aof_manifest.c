/* aof_manifest.c -- the multi-part AOF layout, as Redis 7 has it.
 *
 * <appenddirname>/ holds one base file (the dataset as of the last rewrite)
 * and the incremental files written since, listed in order by a manifest:
 *
 *   file appendonly.aof.1.base.aof seq 1 type b
 *   file appendonly.aof.1.incr.aof seq 1 type i
 *   file appendonly.aof.2.incr.aof seq 2 type i
 *
 * The same format as Redis 7, so a directory can move between the two.
 *
 * Design decisions:
 * - The manifest is the only truth about which files make up the AOF. It is
 *   replaced atomically: written to a temporary file, fsynced, renamed over
 *   the old one, and the directory fsynced, so after a crash either the old
 *   or the new layout is on disk, never a mix.
 * - A rewrite never touches the files the current manifest names; it adds
 *   files and then switches manifests (see aof_rewrite.c). Files the new
 *   manifest no longer names are deleted afterwards.
 */
#include <errno.h>

#include "server.h"
#include "aof.h"
#include "persistio.h"

#include <fcntl.h>

aofManifest *aofManifestCreate(void) { return zcalloc(sizeof(aofManifest)); }

static aofFile *fileCreate(const char *name, long long seq, char type) {
    aofFile *f = zmalloc(sizeof(*f));
    f->name = sdsnew(name);
    f->seq = seq;
    f->type = type;
    return f;
}

static void fileFree(aofFile *f) {
    if (!f) return;
    sdsfree(f->name);
    zfree(f);
}

void aofManifestFree(aofManifest *am) {
    if (!am) return;
    fileFree(am->base);
    for (int j = 0; j < am->incr_count; j++) fileFree(am->incrs[j]);
    zfree(am->incrs);
    aofManifestClearHistory(am);
    zfree(am);
}

static void addIncr(aofManifest *am, aofFile *f) {
    am->incrs = zrealloc(am->incrs, sizeof(aofFile *) * (size_t)(am->incr_count + 1));
    am->incrs[am->incr_count++] = f;
}

static void addHistory(aofManifest *am, aofFile *f, int at_head) {
    am->history = zrealloc(am->history, sizeof(aofFile *) * (size_t)(am->history_count + 1));
    if (at_head) {
        memmove(am->history + 1, am->history, sizeof(aofFile *) * (size_t)am->history_count);
        am->history[0] = f;
    } else {
        am->history[am->history_count] = f;
    }
    am->history_count++;
}

void aofManifestClearHistory(aofManifest *am) {
    for (int j = 0; j < am->history_count; j++) fileFree(am->history[j]);
    zfree(am->history);
    am->history = NULL;
    am->history_count = 0;
}

aofManifest *aofManifestDup(const aofManifest *am) {
    aofManifest *d = aofManifestCreate();
    if (am->base) d->base = fileCreate(am->base->name, am->base->seq, am->base->type);
    for (int j = 0; j < am->incr_count; j++)
        addIncr(d, fileCreate(am->incrs[j]->name, am->incrs[j]->seq, am->incrs[j]->type));
    for (int j = 0; j < am->history_count; j++)
        addHistory(d, fileCreate(am->history[j]->name, am->history[j]->seq, am->history[j]->type), 0);
    d->curr_base_seq = am->curr_base_seq;
    d->curr_incr_seq = am->curr_incr_seq;
    return d;
}

sds aofPathJoin(const char *dir, const char *name) { return sdscatfmt(sdsempty(), "%s/%s", dir, name); }

/* ---- reading ------------------------------------------------------------------------------ */

/* The manifest is read with Redis 7.0's rules, so that a manifest one of
 * the two refuses the other refuses too, with the same words:
 * - an empty file is an error ("Found an empty AOF manifest");
 * - a line starting with '#' is a comment;
 * - every other line must end with a newline within AOF_MANIFEST_MAX_LINE
 *   bytes (a last line without one is "too long" as well), must not be
 *   blank, and holds key/value pairs: at least "file", "seq" and "type"
 *   (keys case-insensitive, unknown keys ignored for forward
 *   compatibility), a sequence number > 0, a bare file name. */
#define AOF_MANIFEST_MAX_LINE 1024

static void setError(aofManifestError *err, const char *reason, long line_no, const char *line) {
    err->reason = sdsnew(reason);
    err->line_no = line_no;
    err->line = line ? sdsnew(line) : NULL;
}

void aofManifestErrorFree(aofManifestError *err) {
    sdsfree(err->reason);
    sdsfree(err->line);
    err->reason = err->line = NULL;
}

/* Redis 7.0's report, line for line (its lines carry a trailing newline,
 * so the log shows them separated by blank lines, as Redis's does). */
void aofManifestLogError(const aofManifestError *err) {
    serverLog(LL_WARNING, "\n*** FATAL AOF MANIFEST FILE ERROR ***\n");
    if (err->line) {
        serverLog(LL_WARNING, "Reading the manifest file, at line %ld\n", err->line_no);
        serverLog(LL_WARNING, ">>> '%s'\n", err->line);
    }
    serverLog(LL_WARNING, "%s\n", err->reason);
}

/* The pairs of one trimmed, non-blank line; NULL with *reason set if bad. */
static aofFile *parseLine(sds line, const char **reason) {
    int argc = 0;
    sds *argv = sdssplitargs(line, &argc);
    aofFile *f = NULL;
    const char *name = NULL;
    long long seq = 0;
    char type = 0;
    *reason = "Invalid AOF manifest file format";
    if (argv == NULL || argc < 6 || argc % 2 != 0) goto done;
    for (int j = 0; j < argc; j += 2) {
        const char *val = argv[j + 1];
        if (!strcasecmp(argv[j], "file")) name = val;
        else if (!strcasecmp(argv[j], "seq") && !string2ll(val, sdslen(argv[j + 1]), &seq)) seq = 0;
        else if (!strcasecmp(argv[j], "type")) type = val[0];
    }
    if (name && strchr(name, '/')) {
        *reason = "File can't be a path, just a filename";
        goto done;
    }
    if (name == NULL || !name[0] || seq <= 0 || type == 0) goto done;
    f = fileCreate(name, seq, type);
done:
    if (argv) sdsfreesplitres(argv, argc);
    return f;
}

/* Takes f into am; the reason if the manifest can't hold it. */
static const char *addParsedFile(aofManifest *am, aofFile *f) {
    if (f->type == AOF_FILE_BASE) {
        if (am->base) return "Found duplicate base file information";
        am->base = f;
        am->curr_base_seq = f->seq;
    } else if (f->type == AOF_FILE_INCR) {
        if (f->seq <= am->curr_incr_seq) return "Found a non-monotonic sequence number";
        addIncr(am, f);
        am->curr_incr_seq = f->seq;
    } else if (f->type == AOF_FILE_HISTORY) {
        addHistory(am, f, 0); /* replaced files, not data: deleted once aof-disable-auto-gc is no */
    } else {
        return "Unknown AOF file type";
    }
    return NULL;
}

/* One line of the manifest (buf, as fgets() read it); C_ERR with err set. */
static int loadLine(aofManifest *am, const char *buf, long line_no, aofManifestError *err) {
    if (buf[0] == '#') return C_OK;
    if (strchr(buf, '\n') == NULL) {
        setError(err, "The AOF manifest file contains too long line", line_no, NULL);
        return C_ERR;
    }
    sds line = sdstrim(sdsnew(buf), " \t\r\n");
    const char *reason = "Invalid AOF manifest file format";
    aofFile *f = sdslen(line) ? parseLine(line, &reason) : NULL;
    if (f) reason = addParsedFile(am, f);
    if (f && reason) fileFree(f);
    if (reason) setError(err, reason, line_no, line);
    sdsfree(line);
    return reason ? C_ERR : C_OK;
}

int aofManifestLoad(const char *path, aofManifest **out, aofManifestError *err) {
    memset(err, 0, sizeof(*err));
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        err->reason = sdscatfmt(sdsempty(), "Can't open the AOF manifest %s: %s", path, strerror(errno));
        return C_ERR;
    }
    aofManifest *am = aofManifestCreate();
    char buf[AOF_MANIFEST_MAX_LINE + 1];
    long line_no = 0;
    int ok = 1;
    while (ok && fgets(buf, sizeof buf, fp) != NULL) ok = loadLine(am, buf, ++line_no, err) == C_OK;
    if (ok && ferror(fp)) {
        setError(err, "Read AOF manifest failed", line_no, NULL);
        ok = 0;
    } else if (ok && line_no == 0) {
        setError(err, "Found an empty AOF manifest", 0, NULL);
        ok = 0;
    }
    fclose(fp);
    if (!ok) {
        aofManifestFree(am);
        return C_ERR;
    }
    *out = am;
    return C_OK;
}

/* ---- writing ------------------------------------------------------------------------------ */

/* A name with a space, a quote or an unprintable byte (appendfilename "my
 * aof") is written quoted, as Redis writes it: unquoted, the line read
 * back split into other words and the server could not restart. */
static sds fileLine(sds out, const aofFile *f) {
    char type[2] = {f->type, '\0'};
    out = sdscat(out, "file ");
    out = sdsneedsrepr(f->name) ? sdscatrepr(out, f->name, sdslen(f->name)) : sdscatsds(out, f->name);
    return sdscatfmt(out, " seq %I type %s\n", f->seq, type);
}

int aofManifestPersist(const aofManifest *am, const char *dirname, const char *path) {
    sds content = sdsempty();
    if (am->base) content = fileLine(content, am->base); /* Redis 7.0's order: base, history, incrs */
    for (int j = 0; j < am->history_count; j++) content = fileLine(content, am->history[j]);
    for (int j = 0; j < am->incr_count; j++) content = fileLine(content, am->incrs[j]);
    sds tmp = sdscatfmt(sdsempty(), "%s.tmp", path);
    int ret = C_ERR, fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open the AOF manifest file %s: %s", tmp, strerror(errno));
    } else if (persistWriteFully(fd, content, sdslen(content), NULL) != (ssize_t)sdslen(content) ||
               persistio.fsync(fd) == -1) {
        serverLog(LL_WARNING, "Can't write the AOF manifest file %s: %s", tmp, strerror(errno));
    } else if (persistFsyncDir(dirname) == -1 && errno != EINVAL) {
        serverLog(LL_WARNING, "Can't fsync the AOF directory %s: %s", dirname, strerror(errno));
    } else if (persistio.rename(tmp, path) == -1) {
        serverLog(LL_WARNING, "Can't rename the AOF manifest file %s to %s: %s", tmp, path, strerror(errno));
    } else {
        if (persistFsyncDir(dirname) == -1)
            serverLog(LL_WARNING, "Can't fsync the AOF directory %s: %s", dirname, strerror(errno));
        ret = C_OK;
    }
    if (fd != -1) close(fd);
    if (ret != C_OK) unlink(tmp);
    sdsfree(tmp);
    sdsfree(content);
    return ret;
}

void aofManifestSetBase(aofManifest *am, const char *name, long long seq) {
    fileFree(am->base);
    am->base = fileCreate(name, seq, AOF_FILE_BASE);
}

void aofManifestAddIncr(aofManifest *am, const char *name, long long seq) {
    addIncr(am, fileCreate(name, seq, AOF_FILE_INCR));
}

/* Drops the incremental files up to and including `last_seq` (they are in a
 * new base now). */
void aofManifestDropIncrsUpTo(aofManifest *am, long long last_seq) {
    int kept = 0;
    for (int j = 0; j < am->incr_count; j++) {
        if (am->incrs[j]->seq <= last_seq) fileFree(am->incrs[j]);
        else am->incrs[kept++] = am->incrs[j];
    }
    am->incr_count = kept;
}

/* aof-disable-auto-gc yes: a rewrite's replaced files stay on disk, named
 * in the manifest as history (type h), newest first -- the base, then each
 * incremental file it replaces, each put first as Redis 7.0 does. */
void aofManifestBaseAndIncrsToHistory(aofManifest *am, long long last_seq) {
    if (am->base) {
        am->base->type = AOF_FILE_HISTORY;
        addHistory(am, am->base, 1);
        am->base = NULL;
    }
    int kept = 0;
    for (int j = 0; j < am->incr_count; j++) {
        if (am->incrs[j]->seq <= last_seq) {
            am->incrs[j]->type = AOF_FILE_HISTORY;
            addHistory(am, am->incrs[j], 1);
        } else {
            am->incrs[kept++] = am->incrs[j];
        }
    }
    am->incr_count = kept;
}

sds aofManifestNewBaseName(aofManifest *am, const char *prefix, const char *ext) {
    return sdscatfmt(sdsempty(), "%s.%I.base.%s", prefix, ++am->curr_base_seq, ext);
}

sds aofManifestNewIncrName(aofManifest *am, const char *prefix) {
    return sdscatfmt(sdsempty(), "%s.%I.incr.aof", prefix, ++am->curr_incr_seq);
}
