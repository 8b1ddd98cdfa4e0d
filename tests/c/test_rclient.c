/* test_rclient.c -- unit tests of the client library (src/tools/rclient*.c):
 * the RESP2/RESP3 reply parser in both output modes, command formatting,
 * and connections against a tiny in-process server (a forked child); and of
 * redis-benchmark's latency histogram (src/tools/bench_hist.c) and of its
 * --cluster primaries and their slot tags (src/tools/bench_cluster.c).
 *
 * The parser tests compare a canonical text dump of each reply tree, so one
 * expected string covers type, length, contents and nesting. Robustness is
 * checked by feeding every reply split at every byte boundary and one byte
 * at a time, and by fuzzing with truncated, mutated and random input: the
 * parser must never crash or read out of bounds (run under ASan), and the
 * tree and skip modes must agree on what is valid.
 */
#include "test.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/un.h>

#include "ae.h"
#include "anet.h"
#include "tools/bench_cluster.h"
#include "tools/bench_hist.h"
#include "tools/rclient.h"
#include "zmalloc.h"

/* ---- helpers ------------------------------------------------------------------------ */

/* A canonical one-line dump of a reply tree. */
static sds dumpReply(sds s, const rcReply *r) {
    if (r->attribute) {
        s = sdscat(s, "attr");
        s = dumpReply(s, r->attribute);
    }
    s = sdscat(s, rcReplyTypeName(r->type));
    switch (r->type) {
    case RC_REPLY_INTEGER: case RC_REPLY_BOOL:
        return sdscatprintf(s, "(%lld)", r->integer);
    case RC_REPLY_NIL: case RC_REPLY_NULL:
        return s;
    case RC_REPLY_VERBATIM:
        s = sdscatprintf(s, "[%s]", r->vtype);
        /* fall through */
    case RC_REPLY_STATUS: case RC_REPLY_ERROR: case RC_REPLY_BULK: case RC_REPLY_DOUBLE: case RC_REPLY_BIGNUM:
        s = sdscat(s, "(");
        s = sdscatrepr(s, r->str, r->len);
        return sdscat(s, ")");
    default:
        s = sdscatprintf(s, "{%zu:", r->elements);
        for (size_t i = 0; i < r->elements; i++) {
            if (i) s = sdscat(s, ",");
            s = dumpReply(s, r->element[i]);
        }
        return sdscat(s, "}");
    }
}

/* Parses all of input (fed in one go) as tree replies; returns their dumps
 * separated by " | ", or "ERR:<message>" at the first protocol error. */
static sds parseAll(const char *input, size_t len) {
    rcParser *p = rcParserCreate();
    sds out = sdsempty();
    rcParserFeed(p, input, len);
    rcReply *r;
    while (rcParserGetReply(p, &r) == RC_OK && r) {
        if (sdslen(out)) out = sdscat(out, " | ");
        out = dumpReply(out, r);
        rcFreeReply(r);
    }
    if (rcParserError(p)) out = sdscatprintf(out, "%sERR:%s", sdslen(out) ? " | " : "", rcParserError(p));
    rcParserFree(p);
    return out;
}

static void checkParse(const char *input, const char *expected, int line) {
    sds got = parseAll(input, strlen(input));
    if (!test_check_(strcmp(got, expected) == 0, input, __FILE__, line))
        printf("      got      %s\n      expected %s\n", got, expected);
    sdsfree(got);
}
#define CHECK_PARSE(in, exp) checkParse((in), (exp), __LINE__)

/* ---- one reply of each type ------------------------------------------------------- */

static void test_resp2_types(void) {
    CHECK_PARSE("+OK\r\n", "status(\"OK\")");
    CHECK_PARSE("-ERR unknown command\r\n", "error(\"ERR unknown command\")");
    CHECK_PARSE(":0\r\n", "integer(0)");
    CHECK_PARSE(":-9223372036854775808\r\n", "integer(-9223372036854775808)");
    CHECK_PARSE(":9223372036854775807\r\n", "integer(9223372036854775807)");
    CHECK_PARSE("$5\r\nhello\r\n", "bulk(\"hello\")");
    CHECK_PARSE("$0\r\n\r\n", "bulk(\"\")");
    CHECK_PARSE("$4\r\na\r\nb\r\n", "bulk(\"a\\r\\nb\")");
    CHECK_PARSE("$-1\r\n", "nil");
    CHECK_PARSE("*-1\r\n", "nil");
    CHECK_PARSE("*0\r\n", "array{0:}");
    CHECK_PARSE("*2\r\n$1\r\na\r\n:1\r\n", "array{2:bulk(\"a\"),integer(1)}");
}

static void test_binary_bulk(void) {
    const char in[] = "$3\r\na\0b\r\n";
    rcParser *p = rcParserCreate();
    rcParserFeed(p, in, sizeof(in) - 1);
    rcReply *r;
    CHECK(rcParserGetReply(p, &r) == RC_OK && r);
    if (r) {
        CHECK_EQ_INT(r->len, 3);
        CHECK(memcmp(r->str, "a\0b", 3) == 0 && r->str[3] == '\0');
    }
    rcFreeReply(r);
    rcParserFree(p);
}

static void test_resp3_types(void) {
    CHECK_PARSE("_\r\n", "null");
    CHECK_PARSE("#t\r\n", "bool(1)");
    CHECK_PARSE("#f\r\n", "bool(0)");
    CHECK_PARSE(",3.25\r\n", "double(\"3.25\")");
    CHECK_PARSE(",inf\r\n", "double(\"inf\")");
    CHECK_PARSE(",-inf\r\n", "double(\"-inf\")");
    CHECK_PARSE(",nan\r\n", "double(\"nan\")");
    CHECK_PARSE(",1e3\r\n", "double(\"1e3\")");
    CHECK_PARSE("(3492890328409238509324850943850943825024385\r\n",
                "bignum(\"3492890328409238509324850943850943825024385\")");
    CHECK_PARSE("(-12\r\n", "bignum(\"-12\")");
    CHECK_PARSE("!21\r\nSYNTAX invalid syntax\r\n", "error(\"SYNTAX invalid syntax\")");
    CHECK_PARSE("=15\r\ntxt:Some string\r\n", "verbatim[txt](\"Some string\")");
    CHECK_PARSE("=4\r\nmkd:\r\n", "verbatim[mkd](\"\")");
    CHECK_PARSE("%2\r\n+a\r\n:1\r\n+b\r\n:2\r\n", "map{4:status(\"a\"),integer(1),status(\"b\"),integer(2)}");
    CHECK_PARSE("%0\r\n", "map{0:}");
    CHECK_PARSE("~3\r\n:1\r\n:2\r\n:3\r\n", "set{3:integer(1),integer(2),integer(3)}");
    CHECK_PARSE(">3\r\n$7\r\nmessage\r\n$2\r\nch\r\n$2\r\nhi\r\n",
                "push{3:bulk(\"message\"),bulk(\"ch\"),bulk(\"hi\")}");
}

static void test_double_values(void) {
    rcParser *p = rcParserCreate();
    rcParserFeed(p, ",-2.5\r\n,inf\r\n", 13);
    rcReply *r;
    CHECK(rcParserGetReply(p, &r) == RC_OK && r && r->dval == -2.5);
    rcFreeReply(r);
    CHECK(rcParserGetReply(p, &r) == RC_OK && r && isinf(r->dval) && r->dval > 0);
    rcFreeReply(r);
    rcParserFree(p);
}

static void test_nested_aggregates(void) {
    CHECK_PARSE("*3\r\n*2\r\n:1\r\n*1\r\n$1\r\nx\r\n*0\r\n%1\r\n~1\r\n_\r\n*1\r\n#t\r\n",
                "array{3:array{2:integer(1),array{1:bulk(\"x\")}},array{0:},"
                "map{2:set{1:null},array{1:bool(1)}}}");
    CHECK_PARSE("*2\r\n*-1\r\n$-1\r\n", "array{2:nil,nil}");
    /* several replies in one buffer */
    CHECK_PARSE("+a\r\n*1\r\n+b\r\n:3\r\n", "status(\"a\") | array{1:status(\"b\")} | integer(3)");
}

static void test_attributes(void) {
    /* attribute before a top-level reply */
    CHECK_PARSE("|1\r\n+key-popularity\r\n%1\r\n$1\r\na\r\n,0.19\r\n*2\r\n:2\r\n:9\r\n",
                "attrattribute{2:status(\"key-popularity\"),map{2:bulk(\"a\"),double(\"0.19\")}}"
                "array{2:integer(2),integer(9)}");
    /* attribute before an element */
    CHECK_PARSE("*2\r\n:1\r\n|1\r\n+ttl\r\n:3600\r\n:2\r\n",
                "array{2:integer(1),attrattribute{2:status(\"ttl\"),integer(3600)}integer(2)}");
    /* an empty attribute, and one that is not a reply on its own */
    CHECK_PARSE("|0\r\n+OK\r\n", "attrattribute{0:}status(\"OK\")");
    rcParser *p = rcParserCreate();
    rcParserFeed(p, "|1\r\n+a\r\n+b\r\n", 12);
    rcReply *r;
    CHECK(rcParserGetReply(p, &r) == RC_OK && r == NULL);
    rcParserFree(p);
}

/* ---- protocol errors and limits ------------------------------------------------------ */

static void test_protocol_errors(void) {
    CHECK_PARSE("xhello\r\n", "ERR:Protocol error, got \"x\" as reply type byte");
    CHECK_PARSE("\x01\r\n", "ERR:Protocol error, got \"\\x01\" as reply type byte");
    CHECK_PARSE("+OK\r\n\"", "status(\"OK\") | ERR:Protocol error, got \"\\x22\" as reply type byte");
    CHECK_PARSE(":12a\r\n", "ERR:Protocol error: bad integer \"12a\"");
    CHECK_PARSE(":\r\n", "ERR:Protocol error: bad integer \"\"");
    CHECK_PARSE(":99999999999999999999\r\n", "ERR:Protocol error: bad integer \"99999999999999999999\"");
    CHECK_PARSE("$-2\r\n", "ERR:Protocol error: invalid bulk length -2");
    CHECK_PARSE("$x\r\n", "ERR:Protocol error: bad bulk length \"x\"");
    CHECK_PARSE("$3\r\nabcde\r\n", "ERR:Protocol error: bulk string not terminated by CRLF");
    CHECK_PARSE("*-2\r\n", "ERR:Protocol error: invalid aggregate length -2");
    CHECK_PARSE("%-1\r\n", "ERR:Protocol error: invalid aggregate length -1");
    CHECK_PARSE("+OK\rX", "ERR:Protocol error: missing \\n after \\r");
    CHECK_PARSE("#x\r\n", "ERR:Protocol error: bad boolean");
    CHECK_PARSE("_x\r\n", "ERR:Protocol error: bad null");
    CHECK_PARSE("(12a\r\n", "ERR:Protocol error: bad big number");
    CHECK_PARSE("(\r\n", "ERR:Protocol error: bad big number");
    CHECK_PARSE(",abc\r\n", "ERR:Protocol error: bad double \"abc\"");
    CHECK_PARSE("=3\r\ntxt\r\n", "ERR:Protocol error: verbatim string without its format");
    CHECK_PARSE("$?\r\n", "ERR:Protocol error: streamed strings are not supported");
    CHECK_PARSE("*?\r\n", "ERR:Protocol error: streamed aggregates are not supported");
    /* the error is sticky until reset */
    rcParser *p = rcParserCreate();
    rcParserFeed(p, "?\r\n", 3);
    rcReply *r;
    CHECK(rcParserGetReply(p, &r) == RC_ERR && r == NULL);
    rcParserFeed(p, "+OK\r\n", 5);
    CHECK(rcParserGetReply(p, &r) == RC_ERR);
    CHECK(rcParserSkipReply(p, NULL, NULL, 0) == -1);
    rcParserReset(p);
    CHECK(rcParserError(p) == NULL);
    rcParserFeed(p, "+OK\r\n", 5);
    CHECK(rcParserGetReply(p, &r) == RC_OK && r && r->type == RC_REPLY_STATUS);
    rcFreeReply(r);
    rcParserFree(p);
}

static void test_limits(void) {
    rcParser *p = rcParserCreate();
    rcParserSetLimits(p, 10, 3, 2);
    rcReply *r;
    rcParserFeed(p, "$11\r\n", 5);
    CHECK(rcParserGetReply(p, &r) == RC_ERR);
    CHECK_EQ_STR(rcParserError(p), "Protocol error: invalid bulk length 11");
    rcParserReset(p);
    rcParserFeed(p, "*4\r\n", 4);
    CHECK(rcParserGetReply(p, &r) == RC_ERR);
    rcParserReset(p);
    rcParserFeed(p, "*1\r\n*1\r\n*1\r\n:1\r\n", 16);
    CHECK(rcParserGetReply(p, &r) == RC_ERR);
    CHECK_EQ_STR(rcParserError(p), "Protocol error: nesting deeper than 2");
    rcParserReset(p);
    rcParserFeed(p, "*1\r\n*1\r\n:1\r\n", 12);
    CHECK(rcParserGetReply(p, &r) == RC_OK && r);
    rcFreeReply(r);
    rcParserFree(p);

    /* a huge declared count costs nothing until elements arrive */
    p = rcParserCreate();
    rcParserFeed(p, "*2000000000\r\n:1\r\n", 17);
    CHECK(rcParserGetReply(p, &r) == RC_OK && r == NULL);
    rcParserFree(p); /* frees the partial reply */

    /* the default depth limit stops a deep nest, without recursion trouble */
    p = rcParserCreate();
    for (int i = 0; i < 1000; i++) rcParserFeed(p, "*1\r\n", 4);
    CHECK(rcParserGetReply(p, &r) == RC_ERR);
    CHECK(rcParserSkipReply(p, NULL, NULL, 0) == -1);
    rcParserFree(p);
}

/* ---- skip mode ------------------------------------------------------------------------- */

static void test_skip_mode(void) {
    const char *in = "+OK\r\n-ERR wrong number of arguments\r\n*1\r\n$1\r\na\r\n*-1\r\n"
                     "|1\r\n+a\r\n+b\r\n%1\r\n|1\r\n+x\r\n+y\r\n+k\r\n:1\r\n";
    rcParser *p = rcParserCreate();
    rcParserFeed(p, in, strlen(in));
    rcReplyType t;
    char err[8];
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 1 && t == RC_REPLY_STATUS);
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 1 && t == RC_REPLY_ERROR);
    CHECK_EQ_STR(err, "ERR wro");
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 1 && t == RC_REPLY_ARRAY);
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 1 && t == RC_REPLY_NIL);
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 1 && t == RC_REPLY_MAP);
    CHECK(rcParserSkipReply(p, &t, err, sizeof(err)) == 0);
    CHECK_EQ_INT(rcParserBuffered(p), 0);
    rcParserFree(p);
}

/* ---- every split, byte by byte ------------------------------------------------------- */

/* One stream holding every type, nesting and attributes. */
static const char *const corpus[] = {
    "+OK\r\n", "-ERR x\r\n", ":42\r\n", "$5\r\nhe\r\no\r\n", "$-1\r\n", "*-1\r\n", "*0\r\n",
    "*3\r\n:1\r\n*2\r\n$1\r\na\r\n_\r\n%1\r\n+k\r\n~2\r\n#t\r\n#f\r\n",
    ",1.5\r\n", "(123456789012345678901234567890\r\n", "!3\r\nERR\r\n", "=7\r\ntxt:abc\r\n",
    ">2\r\n+pubsub\r\n:1\r\n", "|1\r\n+a\r\n:1\r\n*2\r\n|1\r\n+b\r\n:2\r\n:3\r\n:4\r\n", "|0\r\n_\r\n",
};

static sds corpusStream(void) {
    sds s = sdsempty();
    for (size_t i = 0; i < sizeof(corpus) / sizeof(corpus[0]); i++) s = sdscat(s, corpus[i]);
    return s;
}

/* Parses input fed in pieces of at most `step` bytes after an initial
 * piece of `first` bytes; returns the dumps as parseAll does. */
static sds parseInPieces(const char *in, size_t len, size_t first, size_t step) {
    rcParser *p = rcParserCreate();
    sds out = sdsempty();
    size_t fed = 0;
    while (fed < len) {
        size_t n = fed == 0 ? first : step;
        if (n > len - fed) n = len - fed;
        rcParserFeed(p, in + fed, n);
        fed += n;
        rcReply *r;
        while (rcParserGetReply(p, &r) == RC_OK && r) {
            if (sdslen(out)) out = sdscat(out, " | ");
            out = dumpReply(out, r);
            rcFreeReply(r);
        }
    }
    rcParserFree(p);
    return out;
}

static int skipCountInPieces(const char *in, size_t len, size_t first, size_t step) {
    rcParser *p = rcParserCreate();
    int count = 0;
    size_t fed = 0;
    while (fed < len) {
        size_t n = fed == 0 ? first : step;
        if (n > len - fed) n = len - fed;
        /* through the zero-copy interface this time */
        size_t avail;
        char *space = rcParserSpace(p, n, &avail);
        memcpy(space, in + fed, n);
        rcParserCommit(p, n);
        fed += n;
        while (rcParserSkipReply(p, NULL, NULL, 0) == 1) count++;
    }
    rcParserFree(p);
    return count;
}

static void test_every_split(void) {
    sds in = corpusStream();
    size_t len = sdslen(in);
    sds whole = parseAll(in, len);
    int replies = (int)(sizeof(corpus) / sizeof(corpus[0]));
    CHECK(strstr(whole, "ERR:") == NULL);
    int bad = 0;
    for (size_t k = 1; k < len; k++) {
        sds got = parseInPieces(in, len, k, len);
        if (strcmp(got, whole) != 0) bad++;
        sdsfree(got);
        if (skipCountInPieces(in, len, k, len) != replies) bad++;
    }
    CHECK_EQ_INT(bad, 0);
    sds bytewise = parseInPieces(in, len, 1, 1);
    CHECK(strcmp(bytewise, whole) == 0);
    CHECK_EQ_INT(skipCountInPieces(in, len, 1, 1), replies);
    CHECK_EQ_INT(skipCountInPieces(in, len, 3, 7), replies);
    sdsfree(bytewise);
    sdsfree(whole);
    sdsfree(in);
}

/* A large reply arriving in small pieces is not re-parsed from its start:
 * this would take minutes if it were (100k elements, 1-byte feeds). */
static void test_large_reply_incremental(void) {
    int n = (int)test_scaled(100000);
    sds in = sdscatprintf(sdsempty(), "*%d\r\n", n);
    for (int i = 0; i < n; i++) in = sdscatprintf(in, "$%d\r\n%d\r\n", i < 10 ? 1 : i < 100 ? 2 : i < 1000 ? 3 : i < 10000 ? 4 : i < 100000 ? 5 : 6, i);
    rcParser *p = rcParserCreate();
    rcReply *r = NULL;
    size_t len = sdslen(in);
    for (size_t i = 0; i < len && r == NULL; i += 3) {
        rcParserFeed(p, in + i, len - i < 3 ? len - i : 3);
        CHECK(rcParserGetReply(p, &r) == RC_OK);
    }
    CHECK(r && r->elements == (size_t)n);
    char last[32];
    snprintf(last, sizeof(last), "%d", n - 1);
    if (r && r->elements == (size_t)n) CHECK_EQ_STR(r->element[n - 1]->str, last);
    rcFreeReply(r);
    rcParserFree(p);
    sdsfree(in);
}

/* ---- fuzzing ---------------------------------------------------------------------------- */

/* Feeds `in` (exactly len bytes, in a private allocation so ASan sees any
 * overread) in random pieces to both modes; they must agree. */
static int fuzzOne(const char *in, size_t len) {
    char *copy = zmalloc(len ? len : 1);
    memcpy(copy, in, len);
    rcParser *tp = rcParserCreate(), *sp = rcParserCreate();
    rcParserSetLimits(tp, 1 << 20, 1 << 20, 16);
    rcParserSetLimits(sp, 1 << 20, 1 << 20, 16);
    int tree = 0, skip = 0, terr = 0, serr = 0;
    size_t fed = 0;
    while (fed < len) {
        size_t n = 1 + test_rand() % 16;
        if (n > len - fed) n = len - fed;
        rcParserFeed(tp, copy + fed, n);
        rcParserFeed(sp, copy + fed, n);
        fed += n;
        rcReply *r;
        int rc;
        while (!terr && (rc = rcParserGetReply(tp, &r)) == RC_OK && r) { tree++; rcFreeReply(r); }
        if (rcParserError(tp)) terr = 1;
        while (!serr && (rc = rcParserSkipReply(sp, NULL, NULL, 0)) == 1) skip++;
        if (rcParserError(sp)) serr = 1;
    }
    rcParserFree(tp);
    rcParserFree(sp);
    zfree(copy);
    return tree == skip && terr == serr;
}

static void test_fuzz_truncated_and_mutated(void) {
    sds in = corpusStream();
    size_t len = sdslen(in);
    int disagree = 0;
    for (size_t cut = 0; cut <= len; cut++) disagree += !fuzzOne(in, cut);
    unsigned long rounds = test_scaled(20000);
    char *buf = zmalloc(len);
    for (unsigned long i = 0; i < rounds; i++) {
        memcpy(buf, in, len);
        int flips = 1 + (int)(test_rand() % 4);
        for (int f = 0; f < flips; f++) {
            size_t at = test_rand() % len;
            static const char interesting[] = "\r\n*$%|>~-+:_#,(!=0123456789?";
            buf[at] = (test_rand() & 1) ? (char)test_rand() : interesting[test_rand() % (sizeof(interesting) - 1)];
        }
        disagree += !fuzzOne(buf, test_rand() % (len + 1));
    }
    zfree(buf);
    sdsfree(in);
    CHECK_EQ_INT(disagree, 0);
}

static void test_fuzz_garbage(void) {
    unsigned long rounds = test_scaled(20000);
    char buf[256];
    int disagree = 0;
    for (unsigned long i = 0; i < rounds; i++) {
        size_t len = test_rand() % sizeof(buf);
        for (size_t j = 0; j < len; j++) {
            uint64_t v = test_rand();
            /* mostly protocol-looking bytes, so parsing gets somewhere */
            buf[j] = (v & 3) ? "*$:+-%~|>\r\n0123456789_#tf,."[v % 27] : (char)(v >> 8);
        }
        disagree += !fuzzOne(buf, len);
    }
    CHECK_EQ_INT(disagree, 0);
}

/* ---- formatting --------------------------------------------------------------------------- */

static void test_format_command(void) {
    const char *argv[] = { "SET", "k\r\n", "a\0b" };
    size_t lens[] = { 3, 3, 3 };
    sds s = rcFormatCommandArgv(NULL, 3, argv, lens);
    const char exp[] = "*3\r\n$3\r\nSET\r\n$3\r\nk\r\n\r\n$3\r\na\0b\r\n";
    CHECK_EQ_INT(sdslen(s), sizeof(exp) - 1);
    CHECK(memcmp(s, exp, sizeof(exp) - 1) == 0);
    const char *ping[] = { "PING" };
    s = rcFormatCommandArgv(s, 1, ping, NULL); /* appends */
    CHECK_EQ_INT(sdslen(s), sizeof(exp) - 1 + 14);
    CHECK(memcmp(s + sizeof(exp) - 1, "*1\r\n$4\r\nPING\r\n", 14) == 0);
    sdsfree(s);
    s = rcFormatCommandArgv(NULL, 0, NULL, NULL);
    CHECK_EQ_STR(s, "*0\r\n");
    sdsfree(s);
}

/* ---- connections --------------------------------------------------------------------------- */

/* A one-shot server in a child: accepts one client, reads until it has seen
 * `expect_bytes` bytes, writes `reply`, then keeps reading (and discarding)
 * for `linger_ms` and exits, closing the connection cleanly. */
static pid_t serveOnce(int lfd, size_t expect_bytes, const char *reply, int linger_ms) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid != 0) return pid;
    int cfd = accept(lfd, NULL, NULL);
    if (cfd < 0) _exit(1);
    char buf[4096];
    size_t got = 0;
    while (got < expect_bytes) {
        ssize_t n = read(cfd, buf, sizeof(buf));
        if (n <= 0) _exit(2);
        got += (size_t)n;
    }
    if (reply && write(cfd, reply, strlen(reply)) < 0) _exit(3);
    uint64_t deadline = aeMonotonicUs() + (uint64_t)linger_ms * 1000;
    for (uint64_t now = aeMonotonicUs(); now < deadline; now = aeMonotonicUs()) {
        if (aeWait(cfd, AE_READABLE, (long long)(deadline - now) / 1000 + 1) > 0 &&
            read(cfd, buf, sizeof(buf)) <= 0)
            break;
    }
    _exit(0);
}

static int listenLocal(int *port) {
    char err[ANET_ERR_LEN];
    int fd = anetTcpServer(err, 0, "127.0.0.1", 16);
    if (fd < 0) return -1;
    anetFdToString(fd, NULL, 0, port, FD_TO_SOCK_NAME);
    return fd;
}

static void test_connect_errors(void) {
    int port;
    int lfd = listenLocal(&port);
    CHECK(lfd >= 0);
    close(lfd); /* now nobody listens there */
    rcConn *c = rcConnectTcp("127.0.0.1", port, 1000);
    CHECK(c && c->err == RC_E_CONNECT);
    CHECK_EQ_STR(c->errstr, "Connection refused");
    char addr[64];
    snprintf(addr, sizeof(addr), "127.0.0.1:%d", port);
    CHECK_EQ_STR(rcConnAddr(c), addr);
    CHECK(rcCommand(c, "PING", NULL) == NULL);
    rcFree(c);
    c = rcConnectUnix("/nonexistent/dir/x.sock", 1000);
    CHECK(c && c->err == RC_E_CONNECT);
    CHECK_EQ_STR(c->errstr, "No such file or directory");
    CHECK_EQ_STR(rcConnAddr(c), "/nonexistent/dir/x.sock");
    rcFree(c);
    c = rcConnectTcp("::1", 1, 1000);
    CHECK_EQ_STR(rcConnAddr(c), "[::1]:1");
    rcFree(c);
}

static void test_command_roundtrip(void) {
    int port;
    int lfd = listenLocal(&port);
    pid_t pid = serveOnce(lfd, 14, "+PONG\r\n$5\r\nhello\r\n", 300);
    rcConn *c = rcConnectTcp("127.0.0.1", port, 5000);
    CHECK(c->err == RC_E_NONE);
    rcReply *r = rcCommand(c, "PING", NULL);
    CHECK(r && r->type == RC_REPLY_STATUS && strcmp(r->str, "PONG") == 0);
    rcFreeReply(r);
    CHECK(rcAppendRaw(c, "*1\r\n$4\r\nECHO\r\n", 14) == RC_OK);
    CHECK_EQ_INT(rcPendingOutput(c), 14);
    CHECK(rcReadReply(c, &r) == RC_OK && r && r->type == RC_REPLY_BULK && r->len == 5);
    rcFreeReply(r);
    /* the server is gone: EOF is reported as such */
    CHECK(rcReadReply(c, &r) == RC_ERR && r == NULL);
    CHECK(c->err == RC_E_EOF);
    CHECK_EQ_STR(c->errstr, "Server closed the connection");
    rcFree(c);
    waitpid(pid, NULL, 0);
    close(lfd);
}

static void test_read_timeout(void) {
    int port;
    int lfd = listenLocal(&port);
    pid_t pid = serveOnce(lfd, 14, NULL, 2000);
    rcConn *c = rcConnectTcp("localhost", port, 200);
    CHECK(c->err == RC_E_NONE);
    CHECK(rcCommand(c, "PING", NULL) == NULL);
    CHECK(c->err == RC_E_TIMEOUT);
    CHECK_EQ_STR(c->errstr, "Timeout reading from server");
    rcFree(c);
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
    close(lfd);
}

static void test_protocol_error_on_conn(void) {
    int port;
    int lfd = listenLocal(&port);
    pid_t pid = serveOnce(lfd, 14, "hello\r\n", 500);
    rcConn *c = rcConnectTcp("127.0.0.1", port, 5000);
    CHECK(rcCommand(c, "PING", NULL) == NULL);
    CHECK(c->err == RC_E_PROTOCOL);
    CHECK_EQ_STR(c->errstr, "Protocol error, got \"h\" as reply type byte");
    rcFree(c);
    waitpid(pid, NULL, 0);
    close(lfd);
}

static void test_unix_socket(void) {
    char path[64];
    snprintf(path, sizeof(path), "/tmp/test_rclient_%d.sock", (int)getpid());
    char err[ANET_ERR_LEN];
    int lfd = anetUnixServer(err, path, 0700, 4);
    CHECK(lfd >= 0);
    pid_t pid = serveOnce(lfd, 14, ":7\r\n", 0);
    rcConn *c = rcConnectUnix(path, 5000);
    CHECK(c->err == RC_E_NONE);
    rcReply *r = rcCommand(c, "INCR", NULL);
    CHECK(r && r->type == RC_REPLY_INTEGER && r->integer == 7);
    rcFreeReply(r);
    rcFree(c);
    waitpid(pid, NULL, 0);
    close(lfd);
    unlink(path);
}

/* ---- the benchmark's histogram ------------------------------------------------------- */

static void test_hist_buckets(void) {
    /* every value falls in a bucket whose upper edge is >= it and within 0.2% */
    int bad = 0, prev = -1;
    for (uint64_t v = 0; v < (1ULL << 41); v = v < 5000 ? v + 1 : v + v / 977 + 1) {
        int idx = benchHistIndex(v);
        uint64_t edge = benchHistUpperEdge(idx);
        if (idx < prev || idx >= BENCH_HIST_BUCKETS) bad++;
        if (v < (1ULL << 40) && (edge < v || (double)(edge - v) > (double)v * 0.002)) bad++;
        prev = idx;
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(benchHistIndex(UINT64_MAX), BENCH_HIST_BUCKETS - 1);
    CHECK_EQ_INT(benchHistIndex(1023), 1023);
    CHECK_EQ_INT(benchHistUpperEdge(benchHistIndex(1024)), 1025);
}

static void test_hist_percentiles(void) {
    static benchHist h; /* 130 KB: not on the stack */
    benchHistReset(&h);
    CHECK_EQ_INT(benchHistPercentile(&h, 50), 0);
    for (uint64_t v = 1; v <= 1000; v++) benchHistRecord(&h, v);
    CHECK_EQ_INT(h.count, 1000);
    CHECK_EQ_INT(h.min_us, 1);
    CHECK_EQ_INT(h.max_us, 1000);
    CHECK_EQ_INT(benchHistPercentile(&h, 50), 500);
    CHECK_EQ_INT(benchHistPercentile(&h, 99), 990);
    CHECK_EQ_INT(benchHistPercentile(&h, 100), 1000);
    CHECK_EQ_INT(benchHistPercentile(&h, 0), 1);
    CHECK(benchHistAverage(&h) == 500.5);
    CHECK_EQ_INT(benchHistCountAtOrBelow(&h, 250), 250);
    benchHistRecord(&h, 5000000); /* 5 s: one slow outlier */
    uint64_t p100 = benchHistPercentile(&h, 99.99);
    CHECK(p100 >= 5000000 * 0.998 && p100 <= 5000000);
    static benchHist other;
    benchHistReset(&other);
    benchHistRecord(&other, 0);
    benchHistMerge(&h, &other);
    CHECK_EQ_INT(h.count, 1002);
    CHECK_EQ_INT(h.min_us, 0);
}

/* ---- redis:// addresses (rclient_uri.c) ---------------------------------------- */

static void test_uri_parts(void) {
    rcUri u;
    const char *err = NULL;
    CHECK_EQ_INT(rcParseUri("redis://alice:s3cr:et@db.local:6380/4", &u, &err), RC_OK);
    CHECK_EQ_STR(u.user, "alice");
    CHECK_EQ_STR(u.password, "s3cr:et"); /* the first ':' splits user and password */
    CHECK_EQ_STR(u.host, "db.local");
    CHECK_EQ_INT(u.port, 6380);
    CHECK_EQ_INT(u.dbnum, 4);
    rcUriFree(&u);

    CHECK_EQ_INT(rcParseUri("REDIS://:pw@h", &u, &err), RC_OK); /* scheme in any case; "" user */
    CHECK_EQ_STR(u.user, "");
    CHECK_EQ_STR(u.password, "pw");
    CHECK_EQ_STR(u.host, "h");
    CHECK_EQ_INT(u.port, 0);
    CHECK_EQ_INT(u.dbnum, -1);
    rcUriFree(&u);

    CHECK_EQ_INT(rcParseUri("redis://h:7000/", &u, &err), RC_OK); /* no credentials, no db */
    CHECK(u.user == NULL && u.password == NULL);
    CHECK_EQ_INT(u.port, 7000);
    CHECK_EQ_INT(u.dbnum, -1);
    rcUriFree(&u);
}

static void test_uri_bad_scheme(void) {
    rcUri u;
    const char *err = NULL;
    CHECK_EQ_INT(rcParseUri("http://h", &u, &err), RC_ERR);
    CHECK_EQ_STR(err, "Invalid URI scheme");
    if (rcTlsAvailable()) { /* rediss:// is TLS; a build without it says so */
        CHECK_EQ_INT(rcParseUri("rediss://h:7000", &u, &err), RC_OK);
        CHECK(u.tls == 1 && u.port == 7000 && strcmp(u.host, "h") == 0);
        rcUriFree(&u);
    } else {
        CHECK_EQ_INT(rcParseUri("rediss://h", &u, &err), RC_ERR);
        CHECK(strstr(err, "TLS") != NULL);
    }
    CHECK_EQ_INT(rcParseUri("redis://h", &u, &err), RC_OK);
    CHECK(u.tls == 0);
    rcUriFree(&u);
}

/* CRC-16/XMODEM's catalogue check value, and slots Redis 7.0.15's
 * CLUSTER KEYSLOT answers for the same keys (hash tags included). */
static void test_key_hash_slot(void) {
    CHECK_EQ_INT(rcCrc16("123456789", 9), 0x31C3);
    CHECK_EQ_INT(rcCrc16("", 0), 0);
    static const struct { const char *key; unsigned int slot; } v[] = {
        {"foo", 12182}, {"bar", 5061}, {"{user1000}.following", 3443}, {"{user1000}.followers", 3443},
        {"foo{}{bar}", 8363}, {"foo{{bar}}zap", 4015}, {"foo{bar}{zap}", 5061}, {"", 0}, {"a", 15495},
        {"{}", 15257}, {"123456789", 12739}};
    for (size_t i = 0; i < sizeof(v) / sizeof(v[0]); i++)
        CHECK_EQ_INT(rcKeyHashSlot(v[i].key, strlen(v[i].key)), v[i].slot);
    CHECK_EQ_INT(rcKeyHashSlot("a{b", 3), rcCrc16("a{b", 3) & 16383); /* no closing brace */
}

/* ---- redis-benchmark --cluster ------------------------------------------------------ */

#define NODE_A "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"
#define NODE_B "bbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbbb"
#define NODE_C "cccccccccccccccccccccccccccccccccccccccc"

static const char cluster_nodes[] =
    NODE_A " 127.0.0.1:7000@17000 myself,master - 0 0 1 connected 0-5460\n"
    NODE_B " 127.0.0.1:7001@17001 master - 0 0 2 connected 5461-10922 [77->-" NODE_A "]\n"
    "dddddddddddddddddddddddddddddddddddddddd 127.0.0.1:7003@17003 slave " NODE_A " 0 0 1 connected\n"
    NODE_C " 127.0.0.1:7002@17002 master - 0 0 3 connected 10923-16383\n";

static rcReply *parseOne(const char *resp) {
    rcParser *p = rcParserCreate();
    rcParserFeed(p, resp, strlen(resp));
    rcReply *r = NULL;
    if (rcParserGetReply(p, &r) != RC_OK) r = NULL;
    rcParserFree(p);
    return r;
}

static int tagSlot(const benchMaster *m) {
    return (int)rcKeyHashSlot(m->tag, 3);
}

static void test_bench_cluster_parse(void) {
    benchMaster *m;
    sds err;
    int n = benchClusterParse(cluster_nodes, strlen(cluster_nodes), &m, &err);
    CHECK_EQ_INT(n, 3);
    CHECK(err == NULL);
    CHECK_EQ_STR(m[1].name, NODE_B);
    CHECK_EQ_STR(m[1].ip, "127.0.0.1");
    CHECK_EQ_INT(m[1].port, 7001);
    int want[3] = {0, 5461, 10923};
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(m[k].first_slot, want[k]);
        CHECK_EQ_INT(tagSlot(&m[k]), want[k]);
    }
    benchClusterFree(m, n);
    const char bad[] = "onlyid\n";
    CHECK_EQ_INT(benchClusterParse(bad, strlen(bad), &m, &err), -1);
    CHECK_EQ_STR(err, "Invalid CLUSTER NODES reply: missing flags.");
    sdsfree(err);
}

/* Slot 0 moved from A to B: A's first slot becomes 1, B's 0 (its first
 * range in the reply), C keeps its own; an unknown primary or a malformed
 * reply changes nothing. */
static void test_bench_cluster_slots_update(void) {
    benchMaster *m;
    sds err;
    int n = benchClusterParse(cluster_nodes, strlen(cluster_nodes), &m, &err);
    CHECK_EQ_INT(n, 3);
    rcReply *r = parseOne("*3\r\n"
        "*3\r\n:0\r\n:0\r\n*3\r\n$9\r\n127.0.0.1\r\n:7001\r\n$40\r\n" NODE_B "\r\n"
        "*3\r\n:1\r\n:5460\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$40\r\n" NODE_A "\r\n"
        "*3\r\n:5461\r\n:10922\r\n*3\r\n$9\r\n127.0.0.1\r\n:7001\r\n$40\r\n" NODE_B "\r\n");
    CHECK(r != NULL);
    CHECK_EQ_INT(benchClusterApplySlots(m, n, r, &err), 0);
    CHECK(err == NULL);
    int want[3] = {1, 0, 10923};
    for (int k = 0; k < 3; k++) {
        CHECK_EQ_INT(m[k].first_slot, want[k]);
        CHECK_EQ_INT(tagSlot(&m[k]), want[k]);
    }
    rcFreeReply(r);

    r = parseOne("*2\r\n"
        "*3\r\n:0\r\n:99\r\n*3\r\n$9\r\n127.0.0.1\r\n:7000\r\n$40\r\n" NODE_A "\r\n"
        "*3\r\n:100\r\n:200\r\n*3\r\n$9\r\n127.0.0.1\r\n:7009\r\n$40\r\neeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee\r\n");
    CHECK_EQ_INT(benchClusterApplySlots(m, n, r, &err), -1);
    CHECK_EQ_STR(err, "Failed to update cluster slots configuration: could not find node with ID "
                      "eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee in current configuration.");
    CHECK_EQ_INT(m[0].first_slot, 1);
    sdsfree(err);
    rcFreeReply(r);

    const char *bad[] = {"+OK\r\n", "*1\r\n:1\r\n", "*1\r\n*3\r\n:5\r\n:2\r\n*3\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n",
                         "*1\r\n*3\r\n:0\r\n:16384\r\n*3\r\n$1\r\na\r\n:1\r\n$1\r\nb\r\n",
                         "*1\r\n*3\r\n:0\r\n:1\r\n*2\r\n$1\r\na\r\n:1\r\n", "*1\r\n*3\r\n:0\r\n:1\r\n*3\r\n$1\r\na\r\n:1\r\n:7\r\n"};
    for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
        r = parseOne(bad[i]);
        CHECK_EQ_INT(benchClusterApplySlots(m, n, r, &err), -1);
        CHECK(err != NULL && strncmp(err, "Failed to update cluster slots configuration", 44) == 0);
        sdsfree(err);
        rcFreeReply(r);
    }
    CHECK_EQ_INT(benchClusterApplySlots(m, n, NULL, &err), -1);
    sdsfree(err);
    CHECK_EQ_INT(m[0].first_slot, 1);
    CHECK_EQ_INT(benchClusterRedirect("MOVED 0 127.0.0.1:7001"), BENCH_REDIRECT_MOVED);
    CHECK_EQ_INT(benchClusterRedirect("ASK 0 127.0.0.1:7001"), BENCH_REDIRECT_MOVED);
    CHECK_EQ_INT(benchClusterRedirect("CLUSTERDOWN The cluster is down"), BENCH_REDIRECT_DOWN);
    CHECK_EQ_INT(benchClusterRedirect("ERR unknown command"), BENCH_REDIRECT_NONE);
    benchClusterFree(m, n);
}

TEST_MAIN(
    signal(SIGPIPE, SIG_IGN);
    RUN(test_resp2_types);
    RUN(test_binary_bulk);
    RUN(test_resp3_types);
    RUN(test_double_values);
    RUN(test_nested_aggregates);
    RUN(test_attributes);
    RUN(test_protocol_errors);
    RUN(test_limits);
    RUN(test_skip_mode);
    RUN(test_every_split);
    RUN(test_large_reply_incremental);
    RUN(test_fuzz_truncated_and_mutated);
    RUN(test_fuzz_garbage);
    RUN(test_format_command);
    RUN(test_connect_errors);
    RUN(test_command_roundtrip);
    RUN(test_read_timeout);
    RUN(test_protocol_error_on_conn);
    RUN(test_unix_socket);
    RUN(test_hist_buckets);
    RUN(test_hist_percentiles);
    RUN(test_uri_parts);
    RUN(test_uri_bad_scheme);
    RUN(test_key_hash_slot);
    RUN(test_bench_cluster_parse);
    RUN(test_bench_cluster_slots_update);
)
