/* rclient_parser.c -- the incremental RESP2/RESP3 reply parser of the
 * client library (see rclient.h for the contract).
 *
 * Design decisions:
 *  - The unit of parsing is an "item": a type byte with its line, plus for
 *    the blob types (bulk, blob error, verbatim) the payload and its CRLF.
 *    An item is consumed only when all its bytes are buffered, so parsing
 *    never has to be undone; a reply spread over many reads is resumed
 *    where it stopped, using an explicit stack of the open aggregates.
 *  - The same item loop serves both outputs: with a tree (every frame holds
 *    the aggregate node it fills) and without (frames only count), so the
 *    benchmark validates exactly what the cli would accept.
 *  - Nothing is sized from a declared length before the bytes arrive: an
 *    aggregate's element array grows as elements complete (capped by the
 *    declared count), a bulk is copied only once it is entirely buffered.
 *    "*2000000000\r\n" costs nothing until the elements really come.
 *  - A reply node and its string are one allocation (the string follows the
 *    node), so a bulk reply costs a single malloc and a single free.
 *  - Attributes (RESP3 '|') are parsed like maps and attached to the value
 *    that follows them at the same level; they never count as an element or
 *    as a top-level reply.
 *  - Long lines without their CRLF are scanned once: the scan position is
 *    remembered between feeds.
 */
#include "rclient.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"
#include "zmalloc.h"

/* ---- reply nodes -------------------------------------------------------------- */

void rcFreeReply(rcReply *r) {
    if (r == NULL) return;
    for (size_t i = 0; i < r->elements; i++) rcFreeReply(r->element[i]);
    zfree(r->element);
    rcFreeReply(r->attribute);
    zfree(r); /* str, when present, lives in the same allocation */
}

const char *rcReplyTypeName(rcReplyType type) {
    switch (type) {
    case RC_REPLY_STATUS: return "status";
    case RC_REPLY_ERROR: return "error";
    case RC_REPLY_INTEGER: return "integer";
    case RC_REPLY_BULK: return "bulk";
    case RC_REPLY_ARRAY: return "array";
    case RC_REPLY_NIL: return "nil";
    case RC_REPLY_NULL: return "null";
    case RC_REPLY_MAP: return "map";
    case RC_REPLY_SET: return "set";
    case RC_REPLY_DOUBLE: return "double";
    case RC_REPLY_BOOL: return "bool";
    case RC_REPLY_BIGNUM: return "bignum";
    case RC_REPLY_VERBATIM: return "verbatim";
    case RC_REPLY_PUSH: return "push";
    case RC_REPLY_ATTRIBUTE: return "attribute";
    }
    return "unknown";
}

int rcReplyIsAggregate(rcReplyType type) {
    return type == RC_REPLY_ARRAY || type == RC_REPLY_MAP || type == RC_REPLY_SET ||
           type == RC_REPLY_PUSH || type == RC_REPLY_ATTRIBUTE;
}

/* A node with room for a len-byte string after it (str set when withstr). */
static rcReply *newReply(rcReplyType type, const char *str, size_t len, int withstr) {
    size_t extra = withstr ? len + 1 : 0;
    rcReply *r = ztrycalloc(sizeof(*r) + extra);
    if (r == NULL) return NULL;
    r->type = type;
    if (withstr) {
        r->str = (char *)(r + 1);
        memcpy(r->str, str, len);
        r->str[len] = '\0';
        r->len = len;
    }
    return r;
}

/* ---- parser state ----------------------------------------------------------------- */

typedef struct rcFrame {
    rcReplyType type;     /* of the aggregate being read */
    long long remaining;  /* elements still expected */
    rcReply *agg;         /* tree mode: the node being filled, else NULL */
    size_t cap;           /* tree mode: allocated slots in agg->element */
    rcReply *attr;        /* tree mode: attribute waiting for the next element */
} rcFrame;

struct rcParser {
    char *buf;            /* buf[pos..len) is unconsumed input */
    size_t pos, len, cap;
    size_t scanned;       /* bytes after pos already searched for '\r' */
    rcFrame *stack;
    int depth, stack_cap;
    int in_reply;         /* 0 idle, 1 tree, 2 skip: mode of the open reply */
    rcReply *top_attr;    /* tree mode: attribute before the top-level reply */
    int top_is_attr;      /* skip mode: the open top-level value is an attribute */
    long long max_bulk, max_elements;
    int max_depth;
    int failed;
    char err[RC_ERRSTR_LEN];
};

rcParser *rcParserCreate(void) {
    rcParser *p = ztrycalloc(sizeof(*p));
    if (p == NULL) return NULL;
    p->max_bulk = RC_DEFAULT_MAX_BULK;
    p->max_elements = RC_DEFAULT_MAX_ELEMENTS;
    p->max_depth = RC_DEFAULT_MAX_DEPTH;
    return p;
}

static void dropPartialReply(rcParser *p) {
    for (int i = 0; i < p->depth; i++) {
        rcFreeReply(p->stack[i].agg);
        rcFreeReply(p->stack[i].attr);
    }
    p->depth = 0;
    rcFreeReply(p->top_attr);
    p->top_attr = NULL;
    p->top_is_attr = 0;
    p->in_reply = 0;
}

void rcParserReset(rcParser *p) {
    dropPartialReply(p);
    p->pos = p->len = p->scanned = 0;
    p->failed = 0;
    p->err[0] = '\0';
}

void rcParserFree(rcParser *p) {
    if (p == NULL) return;
    dropPartialReply(p);
    zfree(p->stack);
    zfree(p->buf);
    zfree(p);
}

void rcParserSetLimits(rcParser *p, long long max_bulk, long long max_elements, int max_depth) {
    if (max_bulk > 0) p->max_bulk = max_bulk;
    if (max_elements > 0) p->max_elements = max_elements;
    if (max_depth > 0) p->max_depth = max_depth;
}

const char *rcParserError(const rcParser *p) {
    return p->failed ? p->err : NULL;
}

static int protocolError(rcParser *p, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int protocolError(rcParser *p, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(p->err, sizeof(p->err), fmt, ap);
    va_end(ap);
    p->failed = 1;
    return -1;
}

/* ---- input buffer --------------------------------------------------------------- */

size_t rcParserBuffered(const rcParser *p) {
    return p->len - p->pos;
}

char *rcParserSpace(rcParser *p, size_t min, size_t *avail) {
    if (p->pos == p->len) {
        p->pos = p->len = 0; /* everything consumed: start over, free of charge */
    } else if (p->pos > 0 && p->cap - p->len < min && p->pos >= (p->len - p->pos)) {
        memmove(p->buf, p->buf + p->pos, p->len - p->pos); /* compact: cheap when mostly consumed */
        p->len -= p->pos;
        p->pos = 0;
    }
    if (p->cap - p->len < min) {
        if (min > SIZE_MAX / 2 - p->len) return NULL;
        size_t newcap = p->cap ? p->cap : 16384;
        while (newcap - p->len < min) newcap *= 2;
        char *nb = ztryrealloc(p->buf, newcap);
        if (nb == NULL) return NULL;
        p->buf = nb;
        p->cap = newcap;
    }
    if (avail) *avail = p->cap - p->len;
    return p->buf + p->len;
}

void rcParserCommit(rcParser *p, size_t n) {
    if (n > p->cap - p->len) n = p->cap - p->len; /* never past the buffer */
    p->len += n;
}

int rcParserFeed(rcParser *p, const char *buf, size_t len) {
    if (len == 0) return RC_OK;
    char *dst = rcParserSpace(p, len, NULL);
    if (dst == NULL) return RC_ERR;
    memcpy(dst, buf, len);
    rcParserCommit(p, len);
    return RC_OK;
}

/* ---- items ---------------------------------------------------------------------------- */

typedef struct rcItem {
    char type;            /* the type byte */
    const char *line;     /* the line after the type byte, without CRLF */
    size_t linelen;
    long long n;          /* lengths and counts, integers, booleans */
    const char *data;     /* blob payload */
    size_t datalen;
    size_t size;          /* bytes the item occupies in the buffer */
} rcItem;

/* The line at pos: 1 found, 0 incomplete, -1 protocol error. */
static int findLine(rcParser *p, rcItem *it) {
    const char *start = p->buf + p->pos + 1;
    size_t avail = p->len - p->pos - 1;
    size_t from = p->scanned;
    const char *cr = from < avail ? memchr(start + from, '\r', avail - from) : NULL;
    if (cr == NULL) {
        p->scanned = avail;
        if ((long long)avail > p->max_bulk) return protocolError(p, "Protocol error: line too long");
        return 0;
    }
    size_t linelen = (size_t)(cr - start);
    if (linelen + 1 >= avail) { /* the '\n' has not arrived */
        p->scanned = linelen;
        return 0;
    }
    if (cr[1] != '\n') return protocolError(p, "Protocol error: missing \\n after \\r");
    it->line = start;
    it->linelen = linelen;
    it->size = 1 + linelen + 2;
    return 1;
}

static int lineToLongLong(rcParser *p, rcItem *it, const char *what) {
    if (!string2ll(it->line, it->linelen, &it->n))
        return protocolError(p, "Protocol error: bad %s \"%.*s\"", what,
                             (int)(it->linelen > 40 ? 40 : it->linelen), it->line);
    return 1;
}

/* A blob: its length line, then the payload and CRLF once all buffered. */
static int readBlob(rcParser *p, rcItem *it) {
    if (it->linelen == 1 && it->line[0] == '?')
        return protocolError(p, "Protocol error: streamed strings are not supported");
    if (lineToLongLong(p, it, "bulk length") < 0) return -1;
    if (it->n == -1 && it->type == '$') return 1; /* RESP2 nil */
    if (it->n < 0 || it->n > p->max_bulk)
        return protocolError(p, "Protocol error: invalid bulk length %lld", it->n);
    size_t need = it->size + (size_t)it->n + 2;
    if (p->len - p->pos < need) return 0;
    const char *payload = p->buf + p->pos + it->size;
    if (payload[it->n] != '\r' || payload[it->n + 1] != '\n')
        return protocolError(p, "Protocol error: bulk string not terminated by CRLF");
    it->data = payload;
    it->datalen = (size_t)it->n;
    it->size = need;
    return 1;
}

static int checkCount(rcParser *p, rcItem *it) {
    if (it->linelen == 1 && it->line[0] == '?')
        return protocolError(p, "Protocol error: streamed aggregates are not supported");
    if (lineToLongLong(p, it, "aggregate length") < 0) return -1;
    if (it->n == -1 && it->type == '*') return 1; /* RESP2 null array */
    if (it->n < 0 || it->n > p->max_elements)
        return protocolError(p, "Protocol error: invalid aggregate length %lld", it->n);
    return 1;
}

static int checkBool(rcParser *p, rcItem *it) {
    if (it->linelen == 1 && (it->line[0] == 't' || it->line[0] == 'f')) {
        it->n = it->line[0] == 't';
        return 1;
    }
    return protocolError(p, "Protocol error: bad boolean");
}

static int checkBignum(rcParser *p, rcItem *it) {
    size_t i = it->linelen > 0 && it->line[0] == '-';
    if (i == it->linelen) return protocolError(p, "Protocol error: bad big number");
    for (; i < it->linelen; i++)
        if (it->line[i] < '0' || it->line[i] > '9') return protocolError(p, "Protocol error: bad big number");
    return 1;
}

static int checkDouble(rcParser *p, rcItem *it, double *d) {
    char tmp[512];
    if (it->linelen == 0 || it->linelen >= sizeof(tmp)) return protocolError(p, "Protocol error: bad double");
    memcpy(tmp, it->line, it->linelen);
    tmp[it->linelen] = '\0';
    if (!strcasecmp(tmp, "inf") || !strcasecmp(tmp, "+inf")) { *d = INFINITY; return 1; }
    if (!strcasecmp(tmp, "-inf")) { *d = -INFINITY; return 1; }
    if (!strcasecmp(tmp, "nan") || !strcasecmp(tmp, "-nan")) { *d = NAN; return 1; }
    char *end;
    errno = 0;
    *d = strtod(tmp, &end);
    if (end != tmp + it->linelen || tmp[0] == ' ' || isnan(*d))
        return protocolError(p, "Protocol error: bad double \"%s\"", tmp);
    return 1;
}

static int badTypeByte(rcParser *p, unsigned char c) {
    if (c >= 32 && c < 127 && c != '"' && c != '\\')
        return protocolError(p, "Protocol error, got \"%c\" as reply type byte", c);
    return protocolError(p, "Protocol error, got \"\\x%02x\" as reply type byte", c);
}

/* One item at pos: 1 complete (it filled in), 0 incomplete, -1 error. */
static int parseItem(rcParser *p, rcItem *it, double *d) {
    if (p->pos == p->len) return 0;
    it->type = p->buf[p->pos];
    if (!strchr("+-:$*_,#!=(%~>|", it->type) || it->type == '\0')
        return badTypeByte(p, (unsigned char)it->type);
    int rc = findLine(p, it);
    if (rc <= 0) return rc;
    switch (it->type) {
    case '+': case '-': return 1;
    case ':': return lineToLongLong(p, it, "integer");
    case '$': case '!': case '=': return readBlob(p, it);
    case '*': case '%': case '~': case '>': case '|': return checkCount(p, it);
    case '_': return it->linelen == 0 ? 1 : protocolError(p, "Protocol error: bad null");
    case '#': return checkBool(p, it);
    case '(': return checkBignum(p, it);
    case ',': return checkDouble(p, it, d);
    }
    return badTypeByte(p, (unsigned char)it->type);
}

static rcReplyType aggregateType(char c) {
    switch (c) {
    case '%': return RC_REPLY_MAP;
    case '~': return RC_REPLY_SET;
    case '>': return RC_REPLY_PUSH;
    case '|': return RC_REPLY_ATTRIBUTE;
    default: return RC_REPLY_ARRAY;
    }
}

static int isAggregateItem(const rcItem *it) {
    return strchr("*%~>|", it->type) != NULL && !(it->type == '*' && it->n == -1);
}

/* The element count of an aggregate item (maps count keys and values). */
static long long itemElements(const rcItem *it) {
    return (it->type == '%' || it->type == '|') ? it->n * 2 : it->n;
}

static rcReplyType scalarType(const rcItem *it) {
    switch (it->type) {
    case '+': return RC_REPLY_STATUS;
    case '-': case '!': return RC_REPLY_ERROR;
    case ':': return RC_REPLY_INTEGER;
    case '$': return it->n == -1 ? RC_REPLY_NIL : RC_REPLY_BULK;
    case '*': return RC_REPLY_NIL;
    case '_': return RC_REPLY_NULL;
    case ',': return RC_REPLY_DOUBLE;
    case '#': return RC_REPLY_BOOL;
    case '(': return RC_REPLY_BIGNUM;
    default: return RC_REPLY_VERBATIM;
    }
}

static int pushFrame(rcParser *p, rcReplyType type, long long count, rcReply *agg) {
    if (p->depth >= p->max_depth) return protocolError(p, "Protocol error: nesting deeper than %d", p->max_depth);
    if (p->depth == p->stack_cap) {
        int ncap = p->stack_cap ? p->stack_cap * 2 : 8;
        rcFrame *ns = ztryrealloc(p->stack, sizeof(*ns) * (size_t)ncap);
        if (ns == NULL) return protocolError(p, "Out of memory");
        p->stack = ns;
        p->stack_cap = ncap;
    }
    p->stack[p->depth++] = (rcFrame){ .type = type, .remaining = count, .agg = agg };
    return 1;
}

/* ---- tree mode ---------------------------------------------------------------------- */

static rcReply *scalarReply(rcParser *p, const rcItem *it, double d) {
    rcReplyType type = scalarType(it);
    rcReply *r;
    switch (type) {
    case RC_REPLY_INTEGER: case RC_REPLY_BOOL:
        r = newReply(type, NULL, 0, 0);
        if (r) r->integer = it->n;
        break;
    case RC_REPLY_NIL: case RC_REPLY_NULL:
        r = newReply(type, NULL, 0, 0);
        break;
    case RC_REPLY_BULK:
        r = newReply(type, it->data, it->datalen, 1);
        break;
    case RC_REPLY_ERROR:
        r = it->type == '!' ? newReply(type, it->data, it->datalen, 1) : newReply(type, it->line, it->linelen, 1);
        break;
    case RC_REPLY_VERBATIM:
        if (it->datalen < 4 || it->data[3] != ':') {
            protocolError(p, "Protocol error: verbatim string without its format");
            return NULL;
        }
        r = newReply(type, it->data + 4, it->datalen - 4, 1);
        if (r) memcpy(r->vtype, it->data, 3);
        break;
    default: /* STATUS DOUBLE BIGNUM: the line itself */
        r = newReply(type, it->line, it->linelen, 1);
        if (r) r->dval = d;
        break;
    }
    if (r == NULL && !p->failed) protocolError(p, "Out of memory");
    return r;
}

static int appendElement(rcParser *p, rcFrame *f, rcReply *r) {
    if (f->agg->elements == f->cap) {
        size_t ncap = f->cap ? f->cap * 2 : 4;
        if ((long long)ncap > (long long)f->agg->elements + f->remaining)
            ncap = f->agg->elements + (size_t)f->remaining;
        rcReply **ne = ztryrealloc(f->agg->element, sizeof(*ne) * ncap);
        if (ne == NULL) return protocolError(p, "Out of memory");
        f->agg->element = ne;
        f->cap = ncap;
    }
    f->agg->element[f->agg->elements++] = r;
    f->remaining--;
    return 1;
}

/* Places a finished value: into its aggregate (closing the aggregates it
 * completes), or as the reply. 1 when the top-level reply is *out, 0 when
 * more is expected, -1 on error (r freed). */
static int placeValue(rcParser *p, rcReply *r, rcReply **out) {
    for (;;) {
        rcReply **attr_slot = p->depth ? &p->stack[p->depth - 1].attr : &p->top_attr;
        if (r->type == RC_REPLY_ATTRIBUTE) {
            rcFreeReply(*attr_slot);
            *attr_slot = r;
            return 0;
        }
        r->attribute = *attr_slot;
        *attr_slot = NULL;
        if (p->depth == 0) {
            *out = r;
            return 1;
        }
        rcFrame *f = &p->stack[p->depth - 1];
        if (appendElement(p, f, r) < 0) {
            rcFreeReply(r);
            return -1;
        }
        if (f->remaining > 0) return 0;
        r = f->agg;
        rcFreeReply(f->attr); /* an attribute after the last element: nothing to attach to */
        p->depth--;
    }
}

int rcParserGetReply(rcParser *p, rcReply **reply) {
    *reply = NULL;
    if (p->failed) return RC_ERR;
    if (p->in_reply == 2) {
        protocolError(p, "Protocol error: tree and skip reads mixed within a reply");
        return RC_ERR;
    }
    for (;;) {
        rcItem it = { 0 };
        double d = 0;
        int rc = parseItem(p, &it, &d);
        if (rc == 0) return RC_OK;
        if (rc < 0) return RC_ERR;
        p->in_reply = 1;
        rcReply *r;
        if (isAggregateItem(&it)) {
            r = newReply(aggregateType(it.type), NULL, 0, 0);
            if (r == NULL) return protocolError(p, "Out of memory"), RC_ERR;
            long long count = itemElements(&it);
            if (count > 0) {
                if (pushFrame(p, r->type, count, r) < 0) { rcFreeReply(r); return RC_ERR; }
                p->pos += it.size;
                p->scanned = 0;
                continue;
            }
        } else {
            r = scalarReply(p, &it, d);
            if (r == NULL) return RC_ERR;
        }
        p->pos += it.size;
        p->scanned = 0;
        rc = placeValue(p, r, reply);
        if (rc < 0) return RC_ERR;
        if (rc == 1) {
            p->in_reply = 0;
            return RC_OK;
        }
    }
}

/* ---- skip mode ------------------------------------------------------------------------ */

/* Closes the aggregates a finished value completes. 1 when a top-level
 * (non-attribute) reply is done. */
static int placeSkipped(rcParser *p, int is_attr) {
    for (;;) {
        if (p->depth == 0) {
            if (is_attr || p->top_is_attr) {
                p->top_is_attr = 0;
                return 0;
            }
            return 1;
        }
        rcFrame *f = &p->stack[p->depth - 1];
        if (is_attr) return 0; /* attributes are not elements */
        if (--f->remaining > 0) return 0;
        is_attr = f->type == RC_REPLY_ATTRIBUTE;
        p->depth--;
    }
}

int rcParserSkipReply(rcParser *p, rcReplyType *type, char *errbuf, size_t errbuf_len) {
    if (p->failed) return -1;
    if (p->in_reply == 1) return protocolError(p, "Protocol error: tree and skip reads mixed within a reply");
    for (;;) {
        rcItem it = { 0 };
        double d = 0;
        int rc = parseItem(p, &it, &d);
        if (rc <= 0) return rc;
        p->in_reply = 2;
        int agg = isAggregateItem(&it);
        rcReplyType t = agg ? aggregateType(it.type) : scalarType(&it);
        if (t == RC_REPLY_VERBATIM && (it.datalen < 4 || it.data[3] != ':'))
            return protocolError(p, "Protocol error: verbatim string without its format");
        if (p->depth == 0 && t != RC_REPLY_ATTRIBUTE) {
            if (type) *type = t;
            if (t == RC_REPLY_ERROR && errbuf_len > 0) {
                const char *msg = it.type == '!' ? it.data : it.line;
                size_t n = it.type == '!' ? it.datalen : it.linelen;
                if (n >= errbuf_len) n = errbuf_len - 1;
                memcpy(errbuf, msg, n);
                errbuf[n] = '\0';
            }
        }
        p->pos += it.size;
        p->scanned = 0;
        if (agg && itemElements(&it) > 0) {
            if (p->depth == 0 && t == RC_REPLY_ATTRIBUTE) p->top_is_attr = 1;
            if (pushFrame(p, t, itemElements(&it), NULL) < 0) return -1;
            continue;
        }
        if (placeSkipped(p, t == RC_REPLY_ATTRIBUTE)) {
            p->in_reply = 0;
            return 1;
        }
    }
}
