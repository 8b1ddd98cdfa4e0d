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
    zfree(am);
}

static void addIncr(aofManifest *am, aofFile *f) {
    am->incrs = zrealloc(am->incrs, sizeof(aofFile *) * (size_t)(am->incr_count + 1));
    am->incrs[am->incr_count++] = f;
}

aofManifest *aofManifestDup(const aofManifest *am) {
    aofManifest *d = aofManifestCreate();
    if (am->base) d->base = fileCreate(am->base->name, am->base->seq, am->base->type);
    for (int j = 0; j < am->incr_count; j++)
        addIncr(d, fileCreate(am->incrs[j]->name, am->incrs[j]->seq, am->incrs[j]->type));
    d->curr_base_seq = am->curr_base_seq;
    d->curr_incr_seq = am->curr_incr_seq;
    return d;
}

sds aofPathJoin(const char *dir, const char *name) { return sdscatfmt(sdsempty(), "%s/%s", dir, name); }

/* ---- reading ------------------------------------------------------------------------------ */

/* One "file <name> seq <n> type <t>" line (keys in any order, as Redis
 * allows). */
static aofFile *parseLine(sds line, sds *err) {
    int argc;
    sds *argv = sdssplitargs(line, &argc);
    aofFile *f = NULL;
    const char *name = NULL;
    long long seq = -1;
    char type = 0;
    if (argv == NULL || argc % 2 != 0) goto bad;
    for (int j = 0; j < argc; j += 2) {
        if (!strcmp(argv[j], "file")) name = argv[j + 1];
        else if (!strcmp(argv[j], "seq") && !string2ll(argv[j + 1], sdslen(argv[j + 1]), &seq)) goto bad;
        else if (!strcmp(argv[j], "type")) type = sdslen(argv[j + 1]) == 1 ? argv[j + 1][0] : 0;
    }
    if (name == NULL || seq < 0 || (type != AOF_FILE_BASE && type != AOF_FILE_HISTORY && type != AOF_FILE_INCR) ||
        strchr(name, '/'))
        goto bad;
    f = fileCreate(name, seq, type);
    sdsfreesplitres(argv, argc);
    return f;
bad:
    if (argv) sdsfreesplitres(argv, argc);
    *err = sdscatfmt(sdsempty(), "Invalid AOF manifest line: %s", line);
    return NULL;
}

static int addParsedFile(aofManifest *am, aofFile *f, sds *err) {
    if (f->type == AOF_FILE_BASE) {
        if (am->base) {
            *err = sdsnew("Found duplicate base file information in the AOF manifest");
            fileFree(f);
            return C_ERR;
        }
        am->base = f;
        am->curr_base_seq = f->seq;
    } else if (f->type == AOF_FILE_INCR) {
        if (f->seq <= am->curr_incr_seq) {
            *err = sdsnew("Found a non-monotonic sequence number in the AOF manifest");
            fileFree(f);
            return C_ERR;
        }
        addIncr(am, f);
        am->curr_incr_seq = f->seq;
    } else {
        fileFree(f); /* history files are leftovers to delete, not data */
    }
    return C_OK;
}

int aofManifestLoad(const char *path, aofManifest **out, sds *err) {
    FILE *fp = fopen(path, "r");
    if (fp == NULL) {
        *err = sdscatfmt(sdsempty(), "Can't open the AOF manifest %s: %s", path, strerror(errno));
        return C_ERR;
    }
    aofManifest *am = aofManifestCreate();
    char buf[1024];
    int ok = 1;
    while (ok && fgets(buf, sizeof buf, fp) != NULL) {
        size_t len = strlen(buf);
        if (len == sizeof buf - 1 && buf[len - 1] != '\n') {
            *err = sdsnew("The AOF manifest has a line too long");
            ok = 0;
            break;
        }
        sds line = sdstrim(sdsnew(buf), " \t\r\n");
        if (sdslen(line) && line[0] != '#') {
            aofFile *f = parseLine(line, err);
            ok = f && addParsedFile(am, f, err) == C_OK;
        }
        sdsfree(line);
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
    if (am->base) content = fileLine(content, am->base);
    for (int j = 0; j < am->incr_count; j++) content = fileLine(content, am->incrs[j]);
    sds tmp = sdscatfmt(sdsempty(), "%s.tmp", path);
    int ret = C_ERR, fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Can't open the AOF manifest file %s: %s", tmp, strerror(errno));
    } else if (persistWriteFully(fd, content, sdslen(content), NULL) != (ssize_t)sdslen(content) ||
               persistio.fsync(fd) == -1) {
        serverLog(LL_WARNING, "Can't write the AOF manifest file %s: %s", tmp, strerror(errno));
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

sds aofManifestNewBaseName(aofManifest *am, const char *prefix, const char *ext) {
    return sdscatfmt(sdsempty(), "%s.%I.base.%s", prefix, ++am->curr_base_seq, ext);
}

sds aofManifestNewIncrName(aofManifest *am, const char *prefix) {
    return sdscatfmt(sdsempty(), "%s.%I.incr.aof", prefix, ++am->curr_incr_seq);
}
