/* redis-check-aof -- checks an append-only file, and repairs a truncated one.
 *
 *   redis-check-aof [--fix] [--yes] <appendonly.aof.manifest | file.aof>
 *   redis-check-aof --truncate-to-timestamp <unix time> <manifest | file.aof>
 *
 * Given a manifest, every file it names is checked in order (base first);
 * given a single file, just that file. Each file must be a sequence of
 * complete RESP multibulk commands, and a MULTI must be closed by its EXEC.
 * The report gives the offset of the first problem and what is wrong.
 *
 * --fix truncates the LAST file (the only one a crash can leave cut short)
 * back to the end of its last valid command -- before an unterminated MULTI
 * -- after asking for confirmation, or at once with --yes. A problem in any
 * other file can't be fixed by truncation: the tool says so and exits 1.
 *
 * Lines starting with '#' where a command may start are annotations (Redis
 * 7's "#TS:<unix time>", written with aof-timestamp-enabled) and are
 * skipped. --truncate-to-timestamp T cuts the last file at the first
 * "#TS:" later than T (at the MULTI, if that annotation is inside one),
 * undoing what was written after T; such an annotation in an earlier file
 * can't be handled by truncation and is reported.
 *
 * A base file that is an RDB snapshot (aof-use-rdb-preamble) is recognised
 * and reported, not parsed: the server validates it fully when loading.
 *
 * The report and the exit status are Redis 7.0's tool's, which operators'
 * scripts and Redis's own tests read ("Start checking Multi Part AOF",
 * "Start to check BASE AOF (RESP format).", "AOF analyzed: ...", "INCR AOF
 * <name> is valid", "All AOF files and manifest are valid"): 0 valid (or
 * fixed), 1 anything else, usage and I/O errors included, everything on
 * stdout. One difference: an RDB base is not parsed here (Redis's tool
 * runs its RDB checker on it); the report says so.
 *
 * Design decision: a standalone validator that reads the file in one pass
 * with its own minimal parser (no server code): it must work on a file the
 * server refuses to load, on any port, and never trust a length it reads.
 */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

/* ---- one file: Redis 7.0's checker's reading, report and positions ---------------------- */

/* The reading follows Redis 7.0's tool so that its report is the same
 * byte for byte -- the error texts, the offset each names (the start of
 * the count line or of the bulk bytes being read), ok_up_to (the start of
 * the first command not whole, or of an unfinished MULTI), and its line
 * counter, which counts the lines of commands read, the failing one's
 * included, and runs on from one file of a manifest to the next -- while
 * never allocating a length it reads: a bulk string is streamed through
 * and only its first bytes (the command name) and last two are kept. */
typedef struct checkResult {
    long long ok_up_to;
    char error[1100];      /* empty if no error to print */
    int format_error;      /* a line starting with neither '*' nor '#' */
    long long cut_at;      /* --truncate-to-timestamp: where to cut, -1 = nothing later than T */
} checkResult;

typedef struct scanner {
    FILE *fp;
    long long pos;         /* of the next byte */
    long long epos;        /* where the last read started, as the error reports it */
    checkResult *r;
} scanner;

static long long check_line = 1; /* Redis's counter: not reset between the files of a manifest */

static void setError(scanner *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void setError(scanner *s, const char *fmt, ...) {
    char text[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(text, sizeof text, fmt, ap);
    va_end(ap);
    snprintf(s->r->error, sizeof s->r->error, "0x%16llx: %s", (unsigned long long)s->epos, text);
}

/* fgets(buf, size): up to size-1 bytes or through a newline; 0 at EOF
 * before any byte. The buffer is zeroed first: a count line cut short
 * ("*" at the end of the file) is reported as "Expected \r\n, got: 0000",
 * where Redis's tool prints as the second byte whatever its stack buffer
 * held (undefined: it differs between its builds). */
static int readLine(scanner *s, char *buf, size_t size) {
    memset(buf, 0, size);
    size_t n = 0;
    int c = EOF;
    while (n < size - 1 && (c = fgetc(s->fp)) != EOF) {
        buf[n++] = (char)c;
        if (c == '\n') break;
    }
    s->pos += (long long)n;
    return n > 0;
}

static int consumeNewline(scanner *s, const char *p) {
    if (p[0] != '\r' || p[1] != '\n') {
        setError(s, "Expected \\r\\n, got: %02x%02x", (unsigned)(unsigned char)p[0], (unsigned)(unsigned char)p[1]);
        return 0;
    }
    check_line++;
    return 1;
}

/* "<prefix><number>\r\n"; 0 at EOF (no error) or with the error set. */
static int readLong(scanner *s, char prefix, long *out) {
    char buf[130], *end;
    s->epos = s->pos;
    if (!readLine(s, buf, 128)) return 0;
    if (buf[0] != prefix) {
        setError(s, "Expected prefix '%c', got: '%c'", prefix, buf[0]);
        return 0;
    }
    *out = strtol(buf + 1, &end, 10);
    return consumeNewline(s, end);
}

/* One bulk string and its CRLF, streamed; name gets its first bytes. */
static int readString(scanner *s, char *name, size_t name_size) {
    long len;
    if (!readLong(s, '$', &len)) return 0;
    if (len < 0 || len > LONG_MAX - 2) {
        setError(s, "Expected to read string of %ld bytes, which is not in the suitable range", len);
        return 0;
    }
    long want = len + 2, got = 0;
    char tail[2] = {0, 0};
    memset(name, 0, name_size);
    s->epos = s->pos;
    int c;
    while (got < want && (c = fgetc(s->fp)) != EOF) {
        if ((size_t)got < name_size - 1 && got < len) name[got] = (char)c;
        if (got >= len) tail[got - len] = (char)c;
        got++;
    }
    s->pos += got;
    if (got != want) {
        setError(s, "Expected to read %ld bytes, got %ld bytes", want, got);
        return 0;
    }
    return consumeNewline(s, tail);
}

/* One command; *multi counts an open MULTI as Redis's tool does. */
static int readCommand(scanner *s, const char *path, int *multi) {
    long argc;
    char name[8];
    if (!readLong(s, '*', &argc)) return 0;
    for (long j = 0; j < argc; j++) {
        if (!readString(s, name, sizeof name)) return 0;
        if (j != 0) continue;
        if (!strcasecmp(name, "multi") && (*multi)++) {
            setError(s, "Unexpected MULTI in AOF %s", path);
            return 0;
        }
        if (!strcasecmp(name, "exec") && --(*multi)) {
            setError(s, "Unexpected EXEC in AOF %s", path);
            return 0;
        }
    }
    return 1;
}

/* An annotation line ('#' next). Returns 1 to go on, 0 when the file is to
 * be cut at r->cut_at (a "#TS:" later than to_ts: at the annotation, or at
 * the MULTI it is inside, so no transaction is left half). */
static int readAnnotation(scanner *s, const char *path, long long to_ts, long long multi_at) {
    char buf[1026];
    long long at = s->pos;
    if (!readLine(s, buf, 1024)) {
        printf("Failed to read annotations from AOF %s, aborting...\n", path);
        exit(1);
    }
    if (to_ts < 0 || strncmp(buf, "#TS:", 4) != 0) return 1;
    char *end;
    errno = 0;
    long long ts = strtoll(buf + 4, &end, 10);
    if (errno != 0 || *end != '\r') {
        printf("Invalid timestamp annotation\n");
        exit(1);
    }
    if (ts <= to_ts) return 1;
    s->r->cut_at = multi_at != -1 ? multi_at : at;
    return 0;
}

static void checkFile(const char *path, long long to_ts, checkResult *r) {
    memset(r, 0, sizeof *r);
    r->cut_at = -1;
    scanner s = {fopen(path, "rb"), 0, 0, r};
    if (s.fp == NULL) {
        printf("Cannot open file %s: %s, aborting...\n", path, strerror(errno));
        exit(1);
    }
    int multi = 0, at_eof = 0;
    long long multi_at = -1;
    for (;;) {
        if (!multi) r->ok_up_to = s.pos, multi_at = -1;
        int c = fgetc(s.fp);
        if (c == EOF) {
            at_eof = 1;
            break;
        }
        ungetc(c, s.fp);
        if (c == '#') {
            if (!readAnnotation(&s, path, to_ts, multi_at)) break;
        } else if (c == '*') {
            long long start = s.pos;
            int was = multi;
            if (!readCommand(&s, path, &multi)) {
                at_eof = feof(s.fp);
                break;
            }
            if (!was && multi) multi_at = start;
        } else {
            r->format_error = 1;
            break;
        }
    }
    if (at_eof && multi && r->error[0] == '\0') setError(&s, "Reached EOF before reading EXEC for MULTI");
    fclose(s.fp);
}

static long long fileSize(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int confirm(const char *name, long long from, long long to) {
    printf("This will shrink the AOF %s from %lld bytes, with %lld bytes, to %lld bytes\nContinue? [y/N]: ", name,
           from, from - to, to);
    fflush(stdout);
    char answer[16];
    return fgets(answer, sizeof answer, stdin) != NULL && (answer[0] == 'y' || answer[0] == 'Y');
}

static int startsWithRdbMagic(const char *path) {
    char magic[5];
    FILE *fp = fopen(path, "rb");
    int is_rdb = fp && fread(magic, 1, 5, fp) == 5 && memcmp(magic, "REDIS", 5) == 0;
    if (fp) fclose(fp);
    return is_rdb;
}

/* What became of one file, as Redis 7.0's tool reports it afterwards. */
enum { CHECK_OK, CHECK_EMPTY, CHECK_TS_TRUNCATED, CHECK_TRUNCATED };

/* --truncate-to-timestamp found an annotation later than T in this file
 * (path: the file as given or found; name: as the report names it). Redis
 * 7.0's words; failures exit 1 at once, as its tool does. */
static int truncateToTimestamp(const char *path, int last, long long cut_at, long long to_ts) {
    if (cut_at == 0) {
        printf("AOF %s has nothing before timestamp %lld, aborting...\n", path, to_ts);
        exit(1);
    }
    if (!last) {
        printf("Failed to truncate AOF %s to timestamp %lld to offset %lld because it is not the last file.\n", path,
               to_ts, cut_at);
        printf("If you insist, please delete all files after this file according to the manifest file and delete "
               "the corresponding records in manifest file manually. Then re-run redis-check-aof.\n");
        exit(1);
    }
    if (truncate(path, cut_at) == -1) {
        printf("Failed to truncate AOF %s to timestamp %lld\n", path, to_ts);
        exit(1);
    }
    return CHECK_TS_TRUNCATED;
}

/* Checks one file: the CHECK_* outcome, or exit(1) after the report when
 * it is not valid and not fixed (Redis 7.0's tool stops there too). `name`
 * is how the report names it: the manifest's file name, or the path given. */
static int checkAndMaybeFix(const char *path, const char *name, int last, int fix, int yes, long long to_ts) {
    long long size = fileSize(path);
    if (size < 0) {
        printf("Cannot open file %s: %s, aborting...\n", path, strerror(errno));
        exit(1);
    }
    if (size == 0) return CHECK_EMPTY;
    if (startsWithRdbMagic(path)) { /* a base written with aof-use-rdb-preamble */
        printf("AOF %s has an RDB preamble (an RDB base file): its commands are not checked by this tool "
               "(redis-check-rdb checks the snapshot)\n", name);
        return CHECK_OK;
    }
    static checkResult r;
    checkFile(path, to_ts, &r);
    if (r.cut_at != -1) return truncateToTimestamp(path, last, r.cut_at, to_ts);
    if (r.format_error) printf("AOF %s format error\n", name);
    if (r.error[0]) printf("%s\n", r.error);
    long long diff = size - r.ok_up_to;
    if (diff == 0 && to_ts >= 0) {
        printf("Truncate nothing in AOF %s to timestamp %lld\n", name, to_ts);
        return CHECK_OK;
    }
    printf("AOF analyzed: filename=%s, size=%lld, ok_up_to=%lld, ok_up_to_line=%lld, diff=%lld\n", name, size,
           r.ok_up_to, check_line, diff);
    if (diff == 0) return CHECK_OK;
    if (!fix) {
        printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", name);
        exit(1);
    }
    if (!last) {
        printf("Failed to truncate AOF %s because it is not the last file\n", name);
        exit(1);
    }
    if (!yes && !confirm(name, size, r.ok_up_to)) {
        printf("Aborting...\n");
        exit(1);
    }
    if (truncate(path, r.ok_up_to) == -1) {
        printf("Failed to truncate AOF %s\n", name);
        exit(1);
    }
    return CHECK_TRUNCATED;
}

/* The line after a file's check, as Redis 7.0's tool words it; kind is
 * "BASE AOF", "INCR AOF" or "AOF" (a single file). */
static void reportOutcome(const char *kind, const char *name, int outcome, long long to_ts) {
    switch (outcome) {
    case CHECK_OK: printf("%s %s is valid\n", kind, name); break;
    case CHECK_EMPTY: printf("%s %s is empty\n", kind, name); break;
    case CHECK_TS_TRUNCATED: printf("Successfully truncated AOF %s to timestamp %lld\n", name, to_ts); break;
    default: printf("Successfully truncated AOF %s\n", name); break;
    }
}

/* ---- the manifest ------------------------------------------------------------------------ */

/* A manifest is read with the server's rules, which are Redis 7.0's
 * (src/aof_manifest.c): a manifest the server refuses is refused here with
 * the same report, never called valid. '#' lines are comments; any other
 * line ends with a newline within MANIFEST_MAX_LINE bytes, is not blank,
 * and holds at least "file", "seq" (> 0) and "type" pairs (keys in any
 * case, unknown keys ignored); the file is a bare name. As Redis's tool
 * does, an empty manifest is reported as an empty AOF, not an error. */
#define MANIFEST_MAX_LINE 1024
#define MANIFEST_MAX_FILES 1024
#define MANIFEST_MAX_WORDS 64

typedef struct manifestFiles {
    char names[MANIFEST_MAX_FILES][256]; /* base first, then the incremental files in order */
    int n, has_base;
    long long max_incr_seq;
} manifestFiles;

/* Redis's report; 1 (invalid). line NULL: the reason is not about one line. */
static int manifestError(long line_no, const char *line, const char *reason) {
    printf("\n*** FATAL AOF MANIFEST FILE ERROR ***\n\n");
    if (line) {
        printf("Reading the manifest file, at line %ld\n\n", line_no);
        printf(">>> '%s'\n\n", line);
    }
    printf("%s\n\n", reason);
    return 1;
}

/* Splits line in place into words: bare, or "quoted" with \" \\ \n \r \t
 * \xHH escapes (how the server writes a name with spaces). -1 if a quote
 * is not closed or there are too many words. */
static int splitWords(char *line, char **words, int max) {
    int n = 0;
    char *p = line;
    for (;;) {
        while (*p == ' ' || *p == '\t') p++;
        if (*p == '\0') return n;
        if (n == max) return -1;
        char *out = p;
        words[n++] = out;
        if (*p != '"') {
            while (*p && *p != ' ' && *p != '\t') p++;
            if (*p) *p++ = '\0';
            continue;
        }
        p++;
        while (*p != '"') {
            if (*p == '\0') return -1;
            if (*p == '\\' && p[1]) {
                p++;
                if (*p == 'n') *out++ = '\n';
                else if (*p == 'r') *out++ = '\r';
                else if (*p == 't') *out++ = '\t';
                else if (*p == 'x' && isxdigit((unsigned char)p[1]) && isxdigit((unsigned char)p[2])) {
                    char hex[3] = {p[1], p[2], '\0'};
                    *out++ = (char)strtol(hex, NULL, 16);
                    p += 2;
                } else *out++ = *p;
                p++;
            } else {
                *out++ = *p++;
            }
        }
        p++;
        if (*p != '\0' && *p != ' ' && *p != '\t') return -1; /* "a"b */
        if (*p) p++;
        *out = '\0';
    }
}

static void trimLine(char *line) {
    size_t len = strlen(line);
    while (len && strchr(" \t\r\n", line[len - 1])) line[--len] = '\0';
    size_t lead = strspn(line, " \t\r\n");
    memmove(line, line + lead, len - lead + 1);
}

/* One trimmed, non-blank line into mf; NULL, or the reason it is refused. */
static const char *addManifestLine(manifestFiles *mf, char *line) {
    char copy[MANIFEST_MAX_LINE + 1], *words[MANIFEST_MAX_WORDS];
    snprintf(copy, sizeof copy, "%s", line);
    int argc = splitWords(copy, words, MANIFEST_MAX_WORDS);
    if (argc < 6 || argc % 2 != 0) return "Invalid AOF manifest file format";
    const char *name = NULL;
    long long seq = 0;
    char type = 0;
    for (int j = 0; j < argc; j += 2) {
        if (!strcasecmp(words[j], "file")) name = words[j + 1];
        else if (!strcasecmp(words[j], "seq")) seq = strtoll(words[j + 1], NULL, 10);
        else if (!strcasecmp(words[j], "type")) type = words[j + 1][0];
    }
    if (name && strchr(name, '/')) return "File can't be a path, just a filename";
    if (name == NULL || !name[0] || seq <= 0 || type == 0) return "Invalid AOF manifest file format";
    if (type == 'h') return NULL; /* history: a leftover to delete, not data */
    if (type != 'b' && type != 'i') return "Unknown AOF file type";
    if (type == 'b' && mf->has_base) return "Found duplicate base file information";
    if (type == 'i' && seq <= mf->max_incr_seq) return "Found a non-monotonic sequence number";
    if (mf->n == MANIFEST_MAX_FILES || strlen(name) >= sizeof mf->names[0]) return "Invalid AOF manifest file format";
    if (type == 'b') { /* the base goes first */
        memmove(mf->names[1], mf->names[0], sizeof mf->names[0] * (size_t)mf->n);
        snprintf(mf->names[0], sizeof mf->names[0], "%s", name);
        mf->has_base = 1;
    } else {
        snprintf(mf->names[mf->n], sizeof mf->names[0], "%s", name);
        mf->max_incr_seq = seq;
    }
    mf->n++;
    return NULL;
}

/* 0: read into mf; 1: refused (reported). */
static int readManifest(FILE *fp, manifestFiles *mf) {
    char buf[MANIFEST_MAX_LINE + 1];
    long line_no = 0;
    while (fgets(buf, sizeof buf, fp)) {
        line_no++;
        if (buf[0] == '#') continue;
        if (strchr(buf, '\n') == NULL) return manifestError(line_no, NULL, "The AOF manifest file contains too long line");
        trimLine(buf);
        const char *reason = buf[0] ? addManifestLine(mf, buf) : "Invalid AOF manifest file format";
        if (reason) return manifestError(line_no, buf, reason);
    }
    if (ferror(fp)) return manifestError(line_no, NULL, "Read AOF manifest failed");
    return 0;
}

/* The files a manifest names, joined to the manifest's directory. */
static int checkManifest(const char *mpath, int fix, int yes, long long to_ts) {
    FILE *fp = fopen(mpath, "r");
    if (fp == NULL) {
        printf("Cannot open file %s: %s\n", mpath, strerror(errno));
        return 1;
    }
    char dir[4096];
    snprintf(dir, sizeof dir, "%s", mpath);
    char *slash = strrchr(dir, '/');
    if (slash) *slash = '\0';
    else snprintf(dir, sizeof dir, ".");
    if (fileSize(mpath) == 0) { /* what Redis's tool says of it (the server refuses it) */
        fclose(fp);
        printf("Start checking Old-Style AOF\nAOF %s is empty\n", mpath);
        return 0;
    }
    static manifestFiles mf;
    memset(&mf, 0, sizeof mf);
    printf("Start checking Multi Part AOF\n");
    int ret = readManifest(fp, &mf);
    fclose(fp);
    if (ret != 0) return ret;
    for (int j = 0; j < mf.n; j++) {
        char path[4096 + 256 + 2];
        snprintf(path, sizeof path, "%.4095s/%.255s", dir, mf.names[j]);
        int base = j == 0 && mf.has_base;
        if (base) printf("Start to check BASE AOF (%s format).\n", startsWithRdbMagic(path) ? "RDB" : "RESP");
        else if (j == (mf.has_base ? 1 : 0)) printf("Start to check INCR files.\n");
        int outcome = checkAndMaybeFix(path, mf.names[j], j == mf.n - 1, fix, yes, to_ts);
        reportOutcome(base ? "BASE AOF" : "INCR AOF", mf.names[j], outcome, to_ts);
    }
    printf("All AOF files and manifest are valid\n");
    return 0;
}

static int endsWith(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int usage(const char *prog) {
    printf("Usage: %s [--fix [--yes]|--truncate-to-timestamp $timestamp] <file.manifest|file.aof>\n",
            prog);
    return 1;
}

/* A non-negative number of seconds, the whole string; -1 otherwise. */
static long long parseTimestamp(const char *s) {
    char *end;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    return (end == s || *end != '\0' || errno == ERANGE || v < 0 || !isdigit((unsigned char)s[0])) ? -1 : v;
}

int main(int argc, char **argv) {
    int fix = 0, yes = 0;
    long long to_ts = -1;
    const char *path = NULL;
    for (int j = 1; j < argc; j++) {
        if (!strcmp(argv[j], "--fix")) fix = 1;
        else if (!strcmp(argv[j], "--yes")) yes = 1;
        else if (!strcmp(argv[j], "--truncate-to-timestamp") && j + 1 < argc) {
            to_ts = parseTimestamp(argv[++j]);
            if (to_ts < 0) {
                printf("Invalid timestamp, aborting...\n");
                return 1;
            }
        } else if (argv[j][0] == '-' || path) return usage(argv[0]);
        else path = argv[j];
    }
    if (path == NULL || (fix && to_ts >= 0)) return usage(argv[0]);
    if (fileSize(path) < 0) {
        printf("Cannot open file %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (endsWith(path, ".manifest")) return checkManifest(path, fix, yes, to_ts);
    printf("Start checking Old-Style AOF\n");
    reportOutcome("AOF", path, checkAndMaybeFix(path, path, 1, fix, yes, to_ts), to_ts);
    return 0;
}
