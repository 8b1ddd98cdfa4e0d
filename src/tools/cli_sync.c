/* cli_sync.c -- redis-cli's modes that speak the replication protocol:
 * --rdb and --functions-rdb (the server's snapshot saved to a file, or to
 * stdout with "-") and --replica (the command stream a replica receives,
 * printed as CSV).
 *
 * Compatibility target: Redis 7.0.15's redis-cli, whose stderr lines
 * ("sending REPLCONF capa eof", "SYNC sent to master, writing ...") and exit
 * statuses backup scripts check. A SYNC or PSYNC typed as a command enters
 * the --replica output too, as there. Its quirks are kept on purpose, since a
 * script may depend on them:
 *  - the file is opened without O_TRUNC: with "$<len>" framing an older,
 *    longer file keeps its tail; with "$EOF:<mark>" framing the file is cut
 *    to the payload, but stdout gets the 40-byte mark too;
 *  - a REPLCONF the server refuses is reported and the SYNC still sent
 *    (older servers lack the options), except the functions filter, whose
 *    refusal aborts --functions-rdb;
 *  - --replica acknowledges an "$EOF:" transfer with REPLCONF ACK 0 a second
 *    after it, and takes the first thing the server sends next for that
 *    command's reply (it is not printed).
 *
 * The SYNC reply is not RESP, so it is read byte by byte from the
 * connection's transport (plain or TLS) below the reply parser, which has
 * nothing buffered at that point: every command before SYNC got its reply.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "ae.h"
#include "cli_common.h"

#define SYNC_EOF_MARK_LEN 40
#define SYNC_LINE_MAX 4096

/* Sends REPLCONF opt value and reports it on stderr. 1 when accepted, 0
 * when refused (reported); a lost connection ends the program. */
int cliSendReplconf(const char *opt, const char *value) {
    fprintf(stderr, "sending REPLCONF %s %s\n", opt, value);
    rcReply *r = rcCommand(context, "REPLCONF", opt, value, NULL);
    if (r == NULL) {
        fprintf(stderr, "\nI/O error\n");
        exit(1);
    }
    int ok = r->type != RC_REPLY_ERROR;
    if (!ok) fprintf(stderr, "REPLCONF %s error: %.*s\n", opt, (int)r->len, r->str);
    rcFreeReply(r);
    return ok;
}

/* One read from the transport, waiting as long as it takes. >0 bytes, 0 at
 * the end of the stream, -1 on an error. */
static ssize_t readRaw(void *buf, size_t len) {
    for (;;) {
        ssize_t n = rcConnRead(context, buf, len);
        if (n >= 0) return n;
        if (errno == EINTR) continue;
        if (errno != EAGAIN && errno != EWOULDBLOCK) return -1;
        int mask = context->want_events ? context->want_events : AE_READABLE;
        if (rcConnWait(context, mask, -1) < 0 && errno != EINTR) return -1;
    }
}

/* Sends SYNC (unless the user's own SYNC or PSYNC went out already) and
 * reads the first line of the answer, skipping the newlines a primary sends
 * while it prepares the snapshot. Returns the payload length, or 0 with the
 * end mark copied to eofmark for "$EOF:<mark>" framing. Any other line
 * (PSYNC's "+FULLRESYNC ...") also gives 0 with eofmark untouched: Redis's
 * tool then waits for a mark that never comes, and so does this one. */
static unsigned long long sendSync(int send, char *eofmark) {
    if (send && (rcAppendRaw(context, "SYNC\r\n", 6) != RC_OK || rcFlush(context) != RC_OK)) {
        fprintf(stderr, "Error writing to master\n");
        exit(1);
    }
    char line[SYNC_LINE_MAX];
    size_t len = 0;
    for (;;) {
        char ch;
        if (readRaw(&ch, 1) <= 0) {
            fprintf(stderr, "Error reading bulk length while SYNCing\n");
            exit(1);
        }
        if (ch == '\n' && len > 0) break;
        if (ch != '\n' && len < sizeof(line) - 1) line[len++] = ch;
    }
    line[len] = '\0'; /* the '\r' stays: Redis's tool prints it in the error too */
    if (line[0] == '-') {
        fprintf(stderr, "SYNC with master failed: %s\n", line);
        exit(1);
    }
    if (strncmp(line + 1, "EOF:", 4) == 0 && strlen(line + 5) >= SYNC_EOF_MARK_LEN) {
        memcpy(eofmark, line + 5, SYNC_EOF_MARK_LEN);
        return 0;
    }
    return strtoull(line + 1, NULL, 10);
}

/* The last SYNC_EOF_MARK_LEN bytes seen, to spot the end mark. */
typedef struct markWindow {
    char last[SYNC_EOF_MARK_LEN];
} markWindow;

/* Slides n new bytes into the window; 1 when it now holds the mark. */
static int markSeen(markWindow *w, const char *mark, const char *p, size_t n) {
    if (n >= SYNC_EOF_MARK_LEN) {
        memcpy(w->last, p + n - SYNC_EOF_MARK_LEN, SYNC_EOF_MARK_LEN);
    } else {
        memmove(w->last, w->last + n, SYNC_EOF_MARK_LEN - n);
        memcpy(w->last + SYNC_EOF_MARK_LEN - n, p, n);
    }
    return memcmp(w->last, mark, SYNC_EOF_MARK_LEN) == 0;
}

/* Reads the snapshot that follows SYNC's reply: `left` bytes, or up to and
 * including `mark` when it is not NULL (EOF framing). Written to `fd`
 * unless it is -1. Returns the bytes read; a read or write failure ends
 * the program with Redis's tool's message (`read_error` for a read). */
static unsigned long long readSnapshot(unsigned long long left, const char *mark, int fd, const char *read_error) {
    markWindow window;
    memset(&window, 0, sizeof(window));
    unsigned long long got = 0;
    char buf[4096];
    while (left) {
        ssize_t n = readRaw(buf, left < sizeof(buf) ? (size_t)left : sizeof(buf));
        if (n <= 0) {
            fprintf(stderr, "%s\n", read_error);
            exit(1);
        }
        if (fd != -1) {
            ssize_t w = write(fd, buf, (size_t)n);
            if (w != n) {
                fprintf(stderr, "Error writing data to file: %s\n", w == -1 ? strerror(errno) : "short write");
                exit(1);
            }
        }
        left -= (unsigned long long)n;
        got += (unsigned long long)n;
        if (mark && markSeen(&window, mark, buf, (size_t)n)) break;
    }
    return got;
}

/* --rdb / --functions-rdb: the snapshot to `filename` ("-": stdout). */
static int saveSnapshot(const char *filename) {
    char mark[SYNC_EOF_MARK_LEN];
    unsigned long long left = sendSync(1, mark);
    int use_mark = left == 0;
    int to_stdout = strcmp(filename, "-") == 0;
    if (use_mark) {
        left = ~0ULL;
        fprintf(stderr, "SYNC sent to master, writing bytes of bulk transfer until EOF marker to '%s'\n", filename);
    } else {
        fprintf(stderr, "SYNC sent to master, writing %llu bytes to '%s'\n", left, filename);
    }
    int fd = to_stdout ? STDOUT_FILENO : open(filename, O_CREAT | O_WRONLY, 0644);
    if (fd == -1) {
        fprintf(stderr, "Error opening '%s': %s\n", filename, strerror(errno));
        exit(1);
    }
    unsigned long long written =
        readSnapshot(left, use_mark ? mark : NULL, fd, "I/O Error reading RDB payload from socket");
    if (use_mark) {
        unsigned long long size = written - SYNC_EOF_MARK_LEN;
        if (!to_stdout && ftruncate(fd, (off_t)size) == -1) fprintf(stderr, "ftruncate failed: %s.\n", strerror(errno));
        fprintf(stderr, "Transfer finished with success after %llu bytes\n", size);
    } else {
        fprintf(stderr, "Transfer finished with success.\n");
    }
    rcFree(context); /* the server may go on before our fsync ends */
    context = NULL;
    if (!to_stdout && fsync(fd) == -1) {
        fprintf(stderr, "Fail to fsync '%s': %s\n", filename, strerror(errno));
        exit(1);
    }
    close(fd);
    return 0;
}

int cliRdbMode(const char *filename, int functions_only) {
    cliSendReplconf("capa", "eof");
    cliSendReplconf("rdb-only", "1");
    if (functions_only && !cliSendReplconf("rdb-filter-only", "functions")) {
        fprintf(stderr, "Failed requesting functions only RDB from server, aborting\n");
        exit(1);
    }
    return saveSnapshot(filename);
}

int cliSaveSnapshotOf(rcConn *c, const char *filename) {
    rcConn *saved = context;
    context = c;
    int status = saveSnapshot(filename); /* frees c */
    context = saved;
    return status;
}

/* Reads and drops the snapshot; returns the bytes read (for "$EOF:"
 * framing Redis's tool counts the mark too, unlike --rdb's count). */
static unsigned long long discardSnapshot(unsigned long long left, const char *mark) {
    return readSnapshot(left, mark, -1, "Error reading RDB payload while SYNCing");
}

/* REPLCONF ACK gets no reply: what the server sends next (the stream's
 * first command) is taken for one and dropped, as Redis's tool does. */
static void acknowledgeSnapshot(void) {
    cliSleepSeconds(1);
    cliSendReplconf("ACK", "0");
}

/* The snapshot dropped, then the stream as CSV lines until the connection
 * ends: reported, and the end of the program unless at the prompt (where
 * Redis's tool goes back to the prompt quietly). */
static int followStream(int send_sync) {
    char mark[SYNC_EOF_MARK_LEN];
    memset(mark, 0, sizeof(mark));
    unsigned long long len = sendSync(send_sync, mark);
    if (len == 0) {
        fprintf(stderr, "SYNC with master, discarding bytes of bulk transfer until EOF marker...\n");
        unsigned long long size = discardSnapshot(~0ULL, mark);
        fprintf(stderr, "SYNC done after %llu bytes. Logging commands from master.\n", size);
        acknowledgeSnapshot();
    } else {
        fprintf(stderr, "SYNC with master, discarding %llu bytes of bulk transfer...\n", len);
        discardSnapshot(len, NULL);
        fprintf(stderr, "SYNC done. Logging commands from master.\n");
    }
    for (;;) {
        rcReply *r = NULL;
        if (rcReadReply(context, &r) != RC_OK) {
            if (config.interactive) return 1;
            fprintf(stderr, "Error: %s\n", context->errstr);
            exit(1);
        }
        sds out = cliFormatReply(r, CLI_OUT_CSV, config.elem_delim, config.resp_delim);
        fwrite(out, 1, sdslen(out), stdout);
        fflush(stdout);
        sdsfree(out);
        rcFreeReply(r);
    }
}

/* --replica: what a replica would be sent, without the snapshot's data. */
int cliReplicaMode(void) {
    cliSendReplconf("capa", "eof");
    cliSendReplconf("rdb-filter-only", "");
    return followStream(1);
}

/* SYNC or PSYNC typed as a command: sent as it is, then the same output. */
int cliSyncCommand(int argc, const char **argv, const size_t *lens) {
    printf("Entering replica output mode...  (press Ctrl-C to quit)\n");
    fflush(stdout);
    if (rcAppendCommandArgv(context, argc, argv, lens) != RC_OK || rcFlush(context) != RC_OK) {
        fprintf(stderr, "Error writing to master\n");
        exit(1);
    }
    return followStream(0);
}
