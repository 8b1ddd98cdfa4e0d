/* rdb_check.c -- the program redis-check-rdb: tells whether an RDB file
 * would load, and if not where and why.
 *
 *   redis-check-rdb <rdb-file-name>      exit 0: the file is good; 1: it is not
 *
 * It is the server binary run under another name (main() in server.c
 * dispatches on argv[0]'s basename, as Redis does; `make` and `make install`
 * create the link), so it has the loader itself, not a second parser.
 *
 * Design decisions:
 * - The walk is rdbCheckFd() in rdb.c: the load path with every check a
 *   start-up load makes (lengths, LZF, the deep validation of every listpack,
 *   intset, ziplist and zipmap blob, duplicates inside a value, the
 *   checksum), whose keys are counted and dropped instead of stored. A file
 *   this program calls good is one the server loads, and the reasons it
 *   prints are the loader's own (the server logs the same words). Only a
 *   key that appears twice goes unnoticed: that needs the dataset.
 * - The output is Redis 7.0's redis-check-rdb's, line for line where the
 *   two agree: "[offset N] ..." for the header, each AUX field and SELECTDB,
 *   the checksum and the verdict; on an error the "--- RDB ERROR DETECTED
 *   ---" block with the step, the key and its type; then the "[info]"
 *   counts (keys read, keys with an expire, those already expired).
 *   Offsets are bytes read so far, so a reported error sits just after the
 *   bytes that showed it.
 * - A file that cannot be opened gets the error block with the reason
 *   (Redis's tool prints nothing): the exit code alone tells little.
 */
#include <errno.h>
#include <fcntl.h>
#include <sys/stat.h>

#include "server.h"

/* Redis's names for the RDB value types, which its tool prints. */
static const char *rdbTypeName(int type) {
    static const char *const names[] = {
        "string", "list-linked", "set-hashtable", "zset-v1", "hash-hashtable", "zset-v2",
        "module-pre-release", "module-value", "", "hash-zipmap", "list-ziplist", "set-intset",
        "zset-ziplist", "hash-ziplist", "quicklist", "stream", "hash-listpack", "zset-listpack",
        "quicklist-v2", "stream-v2", "set-listpack", "stream-v3", "hash-hashtable-md-prerelease",
        "hash-listpack-md-prerelease", "hash-hashtable-md", "hash-listpack-md",
    };
    if (type < 0 || type >= (int)(sizeof names / sizeof names[0]) || !names[type][0]) return "unknown";
    return names[type];
}

/* A key or value as text: printable bytes as they are, others as \xHH. */
static void printBytes(const char *p, size_t len) {
    for (size_t j = 0; j < len; j++) {
        unsigned char c = (unsigned char)p[j];
        if (c >= 32 && c < 127) putchar(c);
        else printf("\\x%02x", c);
    }
}

static void printAux(long long offset, sds name, sds value) {
    printf("[offset %lld] AUX FIELD %s = '", offset, name);
    printBytes(value, sdslen(value));
    printf("'\n");
}

static void printSelectDb(long long offset, long long id) { printf("[offset %lld] Selecting DB ID %lld\n", offset, id); }

static void printCounts(const rdbCheck *c) {
    printf("[info] %lld keys read\n", c->keys);
    printf("[info] %lld expires\n", c->expires);
    printf("[info] %lld already expired\n", c->already_expired);
}

static void printError(const rdbCheck *c) {
    printf("--- RDB ERROR DETECTED ---\n");
    printf("[offset %lld] %s\n", c->offset, c->error);
    printf("[additional info] While doing: %s\n", c->doing);
    if (c->key) {
        printf("[additional info] Reading key '");
        printBytes(c->key, sdslen(c->key));
        printf("'\n");
        printf("[additional info] Reading type %d (%s)\n", c->type, rdbTypeName(c->type));
    }
}

static void printVerdict(const rdbCheck *c) {
    if (c->checksum_verified) printf("[offset %lld] Checksum OK\n", c->offset);
    else printf("[offset %lld] RDB file was saved with checksum disabled: no check performed.\n", c->offset);
    printf("[offset %lld] \\o/ RDB looks OK! \\o/\n", c->offset);
}

/* The file at fd, already announced: 0 if good, 1 if not. */
static int checkFile(int fd) {
    rdbCheck check = {.aux = printAux, .selectDb = printSelectDb, .type = -1};
    int ok = rdbCheckFd(fd, &check) == C_OK;
    if (ok) printVerdict(&check);
    else printError(&check);
    printCounts(&check);
    sdsfree(check.key);
    return ok ? 0 : 1;
}

static int cannotCheck(const char *why, const char *detail) {
    printf("--- RDB ERROR DETECTED ---\n");
    printf("[offset 0] %s: %s\n", why, detail);
    return 1;
}

int rdbCheckMain(int argc, char **argv) {
    if (argc == 2 && (!strcmp(argv[1], "-v") || !strcmp(argv[1], "--version"))) {
        printf("redis-check-rdb %s\n", REDIS_VERSION);
        return 0;
    }
    if (argc != 2) {
        fprintf(stderr, "Usage: %s <rdb-file-name>\n", argv[0]);
        return 1;
    }
    const char *filename = argv[1];
    printf("[offset 0] Checking RDB file %s\n", filename);
    int fd = open(filename, O_RDONLY);
    if (fd == -1) return cannotCheck("Can't open the RDB file", strerror(errno));
    struct stat st;
    if (fstat(fd, &st) == 0 && S_ISDIR(st.st_mode)) {
        close(fd);
        return cannotCheck("Can't check the RDB file", "it is a directory");
    }
    int ret = checkFile(fd);
    close(fd);
    fflush(stdout);
    return ret;
}
