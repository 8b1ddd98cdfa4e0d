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
 * Exit status: 0 valid (or fixed), 1 invalid (or not fixed), 2 usage/IO error.
 *
 * Design decision: a standalone validator that reads the file in one pass
 * with its own minimal parser (no server code): it must work on a file the
 * server refuses to load, on any port, and never trust a length it reads.
 */
#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <unistd.h>

typedef struct checkResult {
    long long valid_up_to; /* offset after the last complete command (outside a MULTI) */
    long long lines;       /* line number at valid_up_to, for the report */
    const char *error;     /* NULL if the whole file is valid */
    long long error_at;
    long long cut_at;      /* --truncate-to-timestamp: where to cut, -1 = nothing later than T */
} checkResult;

typedef struct scanner {
    FILE *fp;
    long long pos, line;
} scanner;

/* Reads "<prefix><digits>\r\n"; returns 1, or 0 with *why set. */
static int readCount(scanner *s, char prefix, long long *out, const char **why) {
    int c = fgetc(s->fp);
    if (c == EOF) {
        *why = "Reached EOF";
        return 0;
    }
    s->pos++;
    if (c != prefix) {
        *why = prefix == '*' ? "Expected prefix '*'" : "Expected prefix '$'";
        return 0;
    }
    long long value = 0;
    int digits = 0;
    while ((c = fgetc(s->fp)) != EOF && isdigit(c) && digits < 18) {
        value = value * 10 + (c - '0');
        digits++;
        s->pos++;
    }
    if (c == EOF) {
        *why = "Reached EOF";
        return 0;
    }
    s->pos++;
    int lf = fgetc(s->fp);
    if (lf != EOF) s->pos++;
    if (digits == 0 || c != '\r' || lf != '\n') {
        *why = lf == EOF ? "Reached EOF" : "Malformed count line";
        return 0;
    }
    s->line++;
    *out = value;
    return 1;
}

/* One command; sets *is_multi / *is_exec from its name. */
static int readCommand(scanner *s, int *is_multi, int *is_exec, const char **why) {
    long long argc, len;
    if (!readCount(s, '*', &argc, why)) return 0;
    if (argc < 1) {
        *why = "Command with no arguments";
        return 0;
    }
    for (long long j = 0; j < argc; j++) {
        if (!readCount(s, '$', &len, why)) return 0;
        char name[6] = {0};
        for (long long i = 0; i < len + 2; i++) {
            int c = fgetc(s->fp);
            if (c == EOF) {
                *why = "Reached EOF";
                return 0;
            }
            s->pos++;
            if (j == 0 && i < 5) name[i] = (char)tolower(c);
            if (i == len && c != '\r') {
                *why = "Bulk string not followed by CRLF";
                return 0;
            }
            if (i == len + 1 && c != '\n') {
                *why = "Bulk string not followed by CRLF";
                return 0;
            }
        }
        s->line++;
        if (j == 0) {
            *is_multi = len == 5 && !strcmp(name, "multi");
            *is_exec = len == 4 && !strncmp(name, "exec", 4);
        }
    }
    return 1;
}

/* Skips one annotation line (the '#' is next); 0 at EOF before its
 * newline. *ts is its "#TS:" value, or -1. */
static int readAnnotation(scanner *s, long long *ts) {
    char head[32];
    size_t n = 0;
    int c;
    while ((c = fgetc(s->fp)) != EOF) {
        s->pos++;
        if (c == '\n') break;
        if (n < sizeof head - 1) head[n++] = (char)c;
    }
    if (c == EOF) return 0;
    head[n] = '\0';
    s->line++;
    char *end;
    *ts = -1;
    if (!strncmp(head, "#TS:", 4) && isdigit((unsigned char)head[4])) {
        long long v = strtoll(head + 4, &end, 10);
        if (*end == '\r' || *end == '\0') *ts = v;
    }
    return 1;
}

static checkResult checkFile(const char *path, long long to_ts) {
    checkResult r = {0, 0, NULL, 0, -1};
    scanner s = {fopen(path, "rb"), 0, 1};
    if (s.fp == NULL) {
        fprintf(stderr, "Cannot open file %s: %s\n", path, strerror(errno));
        exit(2);
    }
    long long multi_at = -1, multi_line = 0;
    for (;;) {
        long long start = s.pos, start_line = s.line;
        int c = fgetc(s.fp);
        if (c == EOF) break;
        ungetc(c, s.fp);
        if (c == '#') {
            long long ts;
            if (!readAnnotation(&s, &ts)) {
                r.error = "Reached EOF";
                r.error_at = start;
                break;
            }
            if (to_ts >= 0 && ts > to_ts) {
                r.cut_at = multi_at != -1 ? multi_at : start;
                break;
            }
            if (multi_at == -1) r.valid_up_to = s.pos, r.lines = s.line;
            continue;
        }
        int is_multi = 0, is_exec = 0;
        const char *why = NULL;
        if (!readCommand(&s, &is_multi, &is_exec, &why)) {
            r.error = why;
            r.error_at = start;
            break;
        }
        if (is_multi) {
            if (multi_at != -1) {
                r.error = "Unexpected MULTI";
                r.error_at = start;
                break;
            }
            multi_at = start;
            multi_line = start_line;
        } else if (is_exec) {
            if (multi_at == -1) {
                r.error = "Unexpected EXEC";
                r.error_at = start;
                break;
            }
            multi_at = -1;
        }
        if (multi_at == -1) {
            r.valid_up_to = s.pos;
            r.lines = s.line;
        }
    }
    if (r.error == NULL && r.cut_at == -1 && multi_at != -1) {
        r.error = "Reached EOF before reading EXEC for MULTI";
        r.error_at = multi_at;
    }
    if (multi_at != -1 && r.valid_up_to > multi_at) r.valid_up_to = multi_at, r.lines = multi_line;
    fclose(s.fp);
    return r;
}

static long long fileSize(const char *path) {
    struct stat st;
    return stat(path, &st) == 0 ? (long long)st.st_size : -1;
}

static int confirm(long long from, long long to) {
    printf("This will shrink the AOF from %lld bytes, with %lld bytes, to %lld bytes\nContinue? [y/N]: ", from,
           from - to, to);
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

/* --truncate-to-timestamp found an annotation later than T in this file. */
static int truncateToTimestamp(const char *path, int last, long long cut_at, long long to_ts) {
    if (!last) {
        printf("AOF %s has a timestamp later than %lld but is not the last file: it can't be truncated to that "
               "timestamp.\n", path, to_ts);
        return 1;
    }
    if (truncate(path, cut_at) == -1) {
        printf("Failed to truncate AOF %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("Successfully truncated AOF %s to timestamp %lld (at offset %lld)\n", path, to_ts, cut_at);
    return 0;
}

/* Checks one file; returns 0 if valid or fixed, 1 otherwise. */
static int checkAndMaybeFix(const char *path, int last, int fix, int yes, long long to_ts) {
    if (startsWithRdbMagic(path)) { /* a base written with aof-use-rdb-preamble */
        printf("AOF %s has an RDB preamble (an RDB base file): its commands are not checked by this tool\n", path);
        return 0;
    }
    checkResult r = checkFile(path, to_ts);
    if (r.cut_at != -1) return truncateToTimestamp(path, last, r.cut_at, to_ts);
    long long size = fileSize(path);
    printf("AOF analyzed: filename=%s, size=%lld, ok_up_to=%lld, ok_up_to_line=%lld, diff=%lld\n", path, size,
           r.valid_up_to, r.lines, size - r.valid_up_to);
    if (r.error == NULL) {
        printf("AOF %s is valid\n", path);
        return 0;
    }
    printf("0x%8llx: %s\n", (unsigned long long)r.error_at, r.error);
    if (!fix) {
        printf("AOF %s is not valid. Use the --fix option to try fixing it.\n", path);
        return 1;
    }
    if (!last) {
        printf("AOF %s is not the last file of the manifest: it can't be fixed by truncation.\n", path);
        return 1;
    }
    if (!yes && !confirm(size, r.valid_up_to)) {
        printf("Aborting...\n");
        return 1;
    }
    if (truncate(path, r.valid_up_to) == -1) {
        printf("Failed to truncate AOF %s: %s\n", path, strerror(errno));
        return 1;
    }
    printf("Successfully truncated AOF %s\n", path);
    return 0;
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
        fprintf(stderr, "Cannot open manifest %s: %s\n", mpath, strerror(errno));
        return 2;
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
    int status = 0;
    for (int j = 0; j < mf.n && status == 0; j++) {
        char path[4096 + 256 + 2];
        snprintf(path, sizeof path, "%.4095s/%.255s", dir, mf.names[j]);
        status = checkAndMaybeFix(path, j == mf.n - 1, fix, yes, to_ts);
    }
    if (status == 0) printf("All AOF files and manifest are valid\n");
    return status;
}

static int endsWith(const char *s, const char *suffix) {
    size_t a = strlen(s), b = strlen(suffix);
    return a >= b && !strcmp(s + a - b, suffix);
}

static int usage(const char *prog) {
    fprintf(stderr, "Usage: %s [--fix [--yes] | --truncate-to-timestamp <unix time>] <file.manifest|file.aof>\n",
            prog);
    return 2;
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
                fprintf(stderr, "Invalid timestamp: %s\n", argv[j]);
                return 2;
            }
        } else if (argv[j][0] == '-' || path) return usage(argv[0]);
        else path = argv[j];
    }
    if (path == NULL || (fix && to_ts >= 0)) return usage(argv[0]);
    if (fileSize(path) < 0) {
        fprintf(stderr, "Cannot stat file: %s: %s\n", path, strerror(errno));
        return 2;
    }
    if (endsWith(path, ".manifest")) return checkManifest(path, fix, yes, to_ts);
    return checkAndMaybeFix(path, 1, fix, yes, to_ts);
}
