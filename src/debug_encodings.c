/* debug_encodings.c -- DEBUG subcommands that look inside compact encodings.
 *
 *   DEBUG LISTPACK <key>        deep integrity check of a listpack-encoded
 *                               value; its entries are dumped to the log
 *                               (notice level); +OK or an error.
 *   DEBUG INTSET <key>          the same for an intset-encoded set.
 *   DEBUG QUICKLIST <key>       every node of a quicklist-encoded list: a
 *                               packed node's listpack is valid and not
 *                               empty, a plain node holds bytes, and the
 *                               node and element counts add up; the nodes
 *                               are listed in the log.
 *   DEBUG ENCODING-CHECK <key>  checks the value against the rules of its
 *                               encoding, whatever it is: the blob is valid,
 *                               and its entries make sense for the type --
 *                               hashes hold field/value pairs with distinct
 *                               fields, sorted sets member/score pairs in
 *                               (score, member) order with numeric scores,
 *                               sets distinct elements; quicklists as for
 *                               DEBUG QUICKLIST. Encodings without a blob
 *                               (hashtable, skiplist) pass.
 *
 * Decisions:
 * - The tests use these to prove that what the type modules build is a
 *   well-formed blob, byte for byte Redis's format, not just something that
 *   answers the right replies.
 * - Validation goes through the libraries' own untrusted-input validators
 *   (lpValidateIntegrity, intsetValidateIntegrity), given the size the blob
 *   claims for itself; the type-level checks then walk the entries.
 * - Errors say what is wrong ("listpack hash has an odd number of entries")
 *   and never crash: they are for corrupted values.
 * - Duplicate checks are quadratic; they run only up to DUP_CHECK_LIMIT
 *   entries (compact encodings are small unless the thresholds are raised).
 * - The dump is capped at DUMP_LIMIT entries, each shown quoted (sdscatrepr)
 *   and cut at DUMP_TEXT_LIMIT bytes, so a big value cannot flood the log.
 */
#include "server.h"
#include "intset.h"
#include "listpack.h"
#include "quicklist.h"

#include <errno.h>
#include <math.h>

#define DUP_CHECK_LIMIT 1024
#define DUMP_LIMIT 1000
#define DUMP_TEXT_LIMIT 64

static robj *lookupForDebug(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[2],
                                     LOOKUP_NOTOUCH | LOOKUP_NONOTIFY | LOOKUP_NOSTATS | LOOKUP_NOEXPIRE);
    if (o == NULL) addReplyErrorObject(c, shared.nokeyerr);
    return o;
}

/* ---- listpack entries ------------------------------------------------------------------- */

static int entriesEqual(unsigned char *a, unsigned char *b) {
    unsigned char buf[LP_INTBUF_SIZE];
    size_t len;
    const unsigned char *s = lpGetString(b, &len, buf);
    return lpCompare(a, s, len);
}

/* The entry `n` places after p, NULL past the end. */
static unsigned char *skipEntries(unsigned char *lp, unsigned char *p, int n) {
    while (p && n--) p = lpNext(lp, p);
    return p;
}

/* 1 if the entry parses entirely as a double (not NaN). */
static int entryScore(unsigned char *p, double *score) {
    size_t len;
    long long ll;
    const unsigned char *s = lpGetValue(p, &len, &ll);
    if (s == NULL) {
        *score = (double)ll;
        return 1;
    }
    if (len == 0 || len > 256) return 0;
    char text[257];
    memcpy(text, s, len);
    text[len] = '\0';
    char *end;
    errno = 0;
    *score = strtod(text, &end);
    return *end == '\0' && !isnan(*score);
}

static int compareEntryText(unsigned char *a, unsigned char *b) {
    unsigned char bufa[LP_INTBUF_SIZE], bufb[LP_INTBUF_SIZE];
    size_t la, lb;
    const unsigned char *sa = lpGetString(a, &la, bufa), *sb = lpGetString(b, &lb, bufb);
    int cmp = memcmp(sa, sb, la < lb ? la : lb);
    if (cmp) return cmp;
    return la < lb ? -1 : la > lb;
}

/* ---- listpack checks ------------------------------------------------------------------------ */

static const char *checkListpackBlob(unsigned char *lp) {
    if (lp == NULL) return "listpack pointer is NULL";
    if (!lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL)) return "listpack failed the integrity check";
    return NULL;
}

/* No two entries equal among every `stride`-th entry (the keys). */
static const char *checkDistinct(unsigned char *lp, int stride, const char *what) {
    if (lpLength(lp) > DUP_CHECK_LIMIT) return NULL;
    for (unsigned char *a = lpFirst(lp); a; a = skipEntries(lp, a, stride))
        for (unsigned char *b = skipEntries(lp, a, stride); b; b = skipEntries(lp, b, stride))
            if (entriesEqual(a, b)) return what;
    return NULL;
}

static const char *checkZsetListpack(unsigned char *lp) {
    if (lpLength(lp) % 2) return "listpack zset has an odd number of entries";
    double prev_score = 0;
    unsigned char *prev_member = NULL;
    for (unsigned char *member = lpFirst(lp); member; member = skipEntries(lp, member, 2)) {
        double score;
        if (!entryScore(lpNext(lp, member), &score)) return "listpack zset has a score that is not a number";
        if (prev_member && (score < prev_score || (score == prev_score && compareEntryText(prev_member, member) >= 0)))
            return "listpack zset is not in (score, member) order";
        prev_score = score;
        prev_member = member;
    }
    return NULL;
}

/* The type-level rules for a listpack holding a value of o's type. */
static const char *checkListpackValue(robj *o) {
    unsigned char *lp = o->ptr;
    const char *err = checkListpackBlob(lp);
    if (err) return err;
    switch (o->type) {
    case OBJ_HASH:
        if (lpLength(lp) % 2) return "listpack hash has an odd number of entries";
        return checkDistinct(lp, 2, "listpack hash has a duplicate field");
    case OBJ_SET: return checkDistinct(lp, 1, "listpack set has a duplicate element");
    case OBJ_ZSET:
        err = checkZsetListpack(lp);
        return err ? err : checkDistinct(lp, 2, "listpack zset has a duplicate member");
    default: return NULL; /* a list: any entries */
    }
}

static const char *checkIntsetValue(robj *o) {
    const intset *is = o->ptr;
    if (is == NULL) return "intset pointer is NULL";
    if (!intsetValidateIntegrity((const unsigned char *)is, intsetBlobLen(is), 1))
        return "intset failed the integrity check";
    return NULL;
}

/* ---- quicklists -------------------------------------------------------------------------------- */

typedef struct quicklistCheck {
    const char *err;
    unsigned long nodes, elements;
    robj *log_key; /* log each node under this name; NULL: no log */
} quicklistCheck;

static int checkQuicklistNode(const unsigned char *data, size_t sz, int container, void *ud) {
    quicklistCheck *check = ud;
    unsigned long entries = 1;
    if (container == QUICKLIST_NODE_CONTAINER_PACKED) {
        /* the validator does not write; it takes a non-const pointer */
        unsigned char *lp = (unsigned char *)(uintptr_t)data;
        if (!lpValidateIntegrity(lp, sz, 1, NULL, NULL) || lpBytes(lp) != sz) {
            check->err = "quicklist node's listpack failed the integrity check";
            return 0;
        }
        entries = lpLength(lp);
        if (entries == 0) check->err = "quicklist has an empty node";
    } else if (container != QUICKLIST_NODE_CONTAINER_PLAIN || sz == 0) {
        check->err = "quicklist has a malformed plain node";
    }
    if (check->log_key)
        serverLog(LL_NOTICE, "  node %lu: %s, %lu entries, %zu bytes", check->nodes,
                  container == QUICKLIST_NODE_CONTAINER_PACKED ? "packed" : "plain", entries, sz);
    check->nodes++;
    check->elements += entries;
    return check->err == NULL;
}

static const char *checkQuicklistValue(robj *o, robj *log_key) {
    quicklist *ql = o->ptr;
    if (ql == NULL) return "quicklist pointer is NULL";
    quicklistCheck check = {NULL, 0, 0, log_key};
    if (log_key)
        serverLog(LL_NOTICE, "DEBUG QUICKLIST %s: %lu nodes, %lu elements, fill %d, compress %u", (char *)log_key->ptr,
                  quicklistNodeCount(ql), quicklistCount(ql), ql->fill, ql->compress);
    quicklistVisitNodes(ql, checkQuicklistNode, &check);
    if (check.err) return check.err;
    if (check.nodes != quicklistNodeCount(ql)) return "quicklist node count does not match its nodes";
    if (check.elements != quicklistCount(ql)) return "quicklist element count does not match its nodes";
    return NULL;
}

/* ---- the dump ------------------------------------------------------------------------------------- */

static void logListpack(robj *key, unsigned char *lp) {
    serverLog(LL_NOTICE, "DEBUG LISTPACK %s: %lu entries, %zu bytes", (char *)key->ptr, lpLength(lp), lpBytes(lp));
    long index = 0;
    for (unsigned char *p = lpFirst(lp); p && index < DUMP_LIMIT; p = lpNext(lp, p), index++) {
        size_t len;
        long long ll;
        const unsigned char *s = lpGetValue(p, &len, &ll);
        if (s == NULL) {
            serverLog(LL_NOTICE, "  [%ld] int %lld", index, ll);
            continue;
        }
        sds repr = sdscatrepr(sdsempty(), (const char *)s, len < DUMP_TEXT_LIMIT ? len : DUMP_TEXT_LIMIT);
        serverLog(LL_NOTICE, "  [%ld] str(%zu) %s%s", index, len, repr, len > DUMP_TEXT_LIMIT ? "..." : "");
        sdsfree(repr);
    }
    if (index == DUMP_LIMIT && lpLength(lp) > DUMP_LIMIT) serverLog(LL_NOTICE, "  ... (dump cut)");
}

static void logIntset(robj *key, const intset *is) {
    uint32_t len = intsetLen(is);
    serverLog(LL_NOTICE, "DEBUG INTSET %s: %u values of %u bytes, %zu bytes", (char *)key->ptr, len,
              intsetEncoding(is), intsetBlobLen(is));
    for (uint32_t j = 0; j < len && j < DUMP_LIMIT; j++) {
        int64_t value;
        if (intsetGet(is, j, &value)) serverLog(LL_NOTICE, "  [%u] %lld", j, (long long)value);
    }
}

/* ---- the subcommands --------------------------------------------------------------------------------- */

static void replyCheck(client *c, const char *err) {
    if (err) addReplyError(c, err);
    else addReply(c, shared.ok);
}

void debugListpackCommand(client *c) {
    robj *o = lookupForDebug(c);
    if (o == NULL) return;
    if (o->encoding != OBJ_ENCODING_LISTPACK) {
        addReplyError(c, "Not a listpack encoded object.");
        return;
    }
    const char *err = checkListpackBlob(o->ptr);
    if (err == NULL) logListpack(c->argv[2], o->ptr);
    replyCheck(c, err);
}

void debugIntsetCommand(client *c) {
    robj *o = lookupForDebug(c);
    if (o == NULL) return;
    if (o->encoding != OBJ_ENCODING_INTSET) {
        addReplyError(c, "Not an intset encoded object.");
        return;
    }
    const char *err = checkIntsetValue(o);
    if (err == NULL) logIntset(c->argv[2], o->ptr);
    replyCheck(c, err);
}

void debugQuicklistCommand(client *c) {
    robj *o = lookupForDebug(c);
    if (o == NULL) return;
    if (o->encoding != OBJ_ENCODING_QUICKLIST) {
        addReplyError(c, "Not a quicklist encoded object.");
        return;
    }
    replyCheck(c, checkQuicklistValue(o, c->argv[2]));
}

void debugEncodingCheckCommand(client *c) {
    robj *o = lookupForDebug(c);
    if (o == NULL) return;
    if (o->encoding == OBJ_ENCODING_LISTPACK) replyCheck(c, checkListpackValue(o));
    else if (o->encoding == OBJ_ENCODING_INTSET) replyCheck(c, checkIntsetValue(o));
    else if (o->encoding == OBJ_ENCODING_QUICKLIST) replyCheck(c, checkQuicklistValue(o, NULL));
    else replyCheck(c, NULL);
}

