/* sds.c -- binary-safe dynamic strings (layout and rationale in sds.h).
 *
 * Design decisions:
 *   - Every size computation that could exceed SIZE_MAX is checked first. An
 *     impossible size is reported through zmalloc's out-of-memory handler, by
 *     asking zmalloc for SIZE_MAX bytes, so the server has one OOM path; the
 *     try variant returns NULL instead.
 *   - Capacity comes from zmalloc_usable/zrealloc_usable: bytes the allocator
 *     handed out anyway become room for appends, clamped to the largest value
 *     the header type can hold.
 *   - Greedy growth doubles the needed size below SDS_MAX_PREALLOC and adds
 *     SDS_MAX_PREALLOC above it, so appending N bytes one at a time costs
 *     O(N) copying; the non-greedy variant allocates exactly what is asked.
 *   - A header type change needs a fresh block (the buffer moves relative to
 *     the block start); otherwise realloc lets the allocator grow in place.
 *   - Appending or copying from a pointer into the string itself is allowed
 *     (s = sdscatsds(s, s)): the source is rebased if the string moves.
 *   - Character classes are ASCII and locale-independent, so results do not
 *     depend on setlocale().
 */
#include "sds.h"
#include "zmalloc.h"

#include "libassert.h"
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *SDS_NOINIT = "SDS_NOINIT";

/* ---- header types -------------------------------------------------------- */

unsigned sdsReqType(size_t string_size) {
    if (string_size <= 31) return SDS_TYPE_5;
    if (string_size <= UINT8_MAX) return SDS_TYPE_8;
    if (string_size <= UINT16_MAX) return SDS_TYPE_16;
#if SIZE_MAX > UINT32_MAX
    if (string_size > UINT32_MAX) return SDS_TYPE_64;
#endif
    return SDS_TYPE_32;
}

size_t sdsTypeMaxSize(unsigned type) {
    switch (type) {
    case SDS_TYPE_5: return 31;
    case SDS_TYPE_8: return UINT8_MAX;
    case SDS_TYPE_16: return UINT16_MAX;
#if SIZE_MAX > UINT32_MAX
    case SDS_TYPE_32: return UINT32_MAX;
#endif
    default: return SIZE_MAX;
    }
}

/* ---- sizes and allocation ------------------------------------------------- */

/* A size no allocation can satisfy: report it like any failed allocation.
 * zmalloc refuses SIZE_MAX and calls the OOM handler; should a handler return,
 * we still never continue with a wrapped size. */
static _Noreturn NOINLINE void sdsOversize(void) {
    zfree(zmalloc(SIZE_MAX));
    abort();
}

/* Bytes for a block holding a header, cap bytes and the terminator; 0 when
 * that does not fit in a size_t. */
static size_t sdsBlockSize(unsigned type, size_t cap) {
    size_t overhead = sdsHdrSize(type) + 1;
    return cap > SIZE_MAX - overhead ? 0 : overhead + cap;
}

/* Capacity of a block of `usable` bytes under a header of this type. */
static size_t sdsCapacityOf(size_t usable, unsigned type) {
    size_t cap = usable - sdsHdrSize(type) - 1;
    size_t max = sdsTypeMaxSize(type);
    return cap > max ? max : cap;
}

static char *sdsAllocBlock(size_t size, size_t *usable, int try_only) {
    if (!try_only) return zmalloc_usable(size, usable);
    char *block = ztrymalloc(size);
    if (block) *usable = zmalloc_size(block);
    return block;
}

/* Writes a header at the start of block and returns the buffer after it. */
static sds sdsInitHeader(char *block, unsigned type, size_t len, size_t alloc) {
    sds s = block + sdsHdrSize(type);
    s[-1] = (char)type;
    sdssetlen(s, len);
    sdssetalloc(s, alloc);
    return s;
}

/* ---- creation and destruction --------------------------------------------- */

static sds sdsNewLenImpl(const void *init, size_t initlen, int try_only) {
    unsigned type = sdsReqType(initlen);
    /* An empty string is almost always created to be appended to. */
    if (type == SDS_TYPE_5 && initlen == 0) type = SDS_TYPE_8;
    size_t size = sdsBlockSize(type, initlen), usable;
    if (size == 0) {
        if (try_only) return NULL;
        sdsOversize();
    }
    char *block = sdsAllocBlock(size, &usable, try_only);
    if (block == NULL) return NULL;
    sds s = sdsInitHeader(block, type, initlen, sdsCapacityOf(usable, type));
    if (init == NULL)
        memset(s, 0, initlen);
    else if (init != SDS_NOINIT)
        memcpy(s, init, initlen);
    s[initlen] = '\0';
    return s;
}

sds sdsnewlen(const void *init, size_t initlen) {
    return sdsNewLenImpl(init, initlen, 0);
}

sds sdstrynewlen(const void *init, size_t initlen) {
    return sdsNewLenImpl(init, initlen, 1);
}

sds sdsnew(const char *init) {
    return sdsnewlen(init, init ? strlen(init) : 0);
}

sds sdsempty(void) {
    return sdsnewlen("", 0);
}

sds sdsdup(const sds s) {
    return sdsnewlen(s, sdslen(s));
}

void sdsfree(sds s) {
    if (s != NULL) zfree(sdsAllocPtr(s));
}

/* Writes v in decimal to buf (at least 20 bytes, no terminator); returns
 * the number of characters. */
static size_t sdsFormatUnsigned(char *buf, unsigned long long v) {
    char reversed[20];
    size_t n = 0;
    do {
        reversed[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v != 0);
    for (size_t i = 0; i < n; i++) buf[i] = reversed[n - 1 - i];
    return n;
}

/* As above for a signed value; buf needs 21 bytes. */
static size_t sdsFormatSigned(char *buf, long long v) {
    if (v >= 0) return sdsFormatUnsigned(buf, (unsigned long long)v);
    buf[0] = '-';
    /* Negate in unsigned arithmetic so LLONG_MIN does not overflow. */
    return 1 + sdsFormatUnsigned(buf + 1, 0ULL - (unsigned long long)v);
}

sds sdsfromlonglong(long long value) {
    char buf[21];
    return sdsnewlen(buf, sdsFormatSigned(buf, value));
}

/* ---- capacity ---------------------------------------------------------------- */

/* Moves s into a block with a `type` header and room for cap bytes, keeping
 * its first len bytes (len <= cap) as the content. */
static sds sdsReshape(sds s, unsigned type, size_t cap, size_t len) {
    size_t size = sdsBlockSize(type, cap), usable;
    if (size == 0) sdsOversize();
    if (type == sdsType(s)) {
        char *block = zrealloc_usable(sdsAllocPtr(s), size, &usable);
        s = block + sdsHdrSize(type);
        sdssetlen(s, len);
    } else {
        char *block = zmalloc_usable(size, &usable);
        memcpy(block + sdsHdrSize(type), s, len);
        sdsfree(s);
        s = sdsInitHeader(block, type, len, 0);
    }
    s[len] = '\0';
    sdssetalloc(s, sdsCapacityOf(usable, type));
    return s;
}

static size_t sdsGreedyCapacity(size_t needed) {
    if (needed < SDS_MAX_PREALLOC) return needed * 2;
    if (needed > SIZE_MAX - SDS_MAX_PREALLOC) return needed;
    return needed + SDS_MAX_PREALLOC;
}

static sds sdsGrow(sds s, size_t addlen, int greedy) {
    if (sdsavail(s) >= addlen) return s;
    size_t len = sdslen(s);
    if (addlen > SIZE_MAX - len) sdsOversize();
    size_t needed = len + addlen;
    size_t cap = greedy ? sdsGreedyCapacity(needed) : needed;
    /* Doubling may have pushed a barely possible size over the limit. */
    if (sdsBlockSize(SDS_TYPE_64, cap) == 0) cap = needed;
    unsigned type = sdsReqType(cap);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8; /* type 5 cannot record spare room */
    return sdsReshape(s, type, cap, len);
}

sds sdsMakeRoomFor(sds s, size_t addlen) {
    return sdsGrow(s, addlen, 1);
}

sds sdsMakeRoomForNonGreedy(sds s, size_t addlen) {
    return sdsGrow(s, addlen, 0);
}

size_t sdsNonGreedyCapacity(const sds s, size_t addlen) {
    if (sdsavail(s) >= addlen) return sdsalloc(s);
    size_t len = sdslen(s);
    if (addlen > SIZE_MAX - len) return SIZE_MAX;
    size_t needed = len + addlen;
    unsigned type = sdsReqType(needed);
    if (type == SDS_TYPE_5) type = SDS_TYPE_8;
    size_t size = sdsBlockSize(type, needed);
    return size == 0 ? needed : sdsCapacityOf(zmalloc_good_size(size), type);
}

/* Adjusts the length after the caller wrote into (or gave up) the spare room,
 * and re-terminates. The caller must stay within [0, sdsalloc]. */
void sdsIncrLen(sds s, ssize_t incr) {
    size_t len = sdslen(s);
    if (incr >= 0)
        libAssert((size_t)incr <= sdsavail(s));
    else
        libAssert((size_t)-(incr + 1) < len); /* -incr <= len, without overflow */
    len += (size_t)incr;                   /* modular: a negative incr subtracts */
    sdssetlen(s, len);
    s[len] = '\0';
}

/* Whether shrinking s (same header type) to a capacity of `size` would get
 * a block of the size it has: the allocator's size classes round the new
 * size up to the old one. A fresh string's allocator slack looks like free
 * space (a 1 KB SET value has 250 bytes of it, over the tenth the server
 * trims, object.c), and the realloc that frees nothing cost such a SET a
 * sixth of its instructions. A capacity at its type's limit may sit in a
 * bigger block: not judged, reshaped as before. */
static int sdsShrinkKeepsBlock(sds s, size_t size) {
    unsigned type = sdsType(s);
    size_t cap = sdsalloc(s);
    if (size >= cap || cap >= sdsTypeMaxSize(type)) return 0;
    return zmalloc_good_size(sdsBlockSize(type, size)) == sdsBlockSize(type, cap);
}

/* Reallocates s to a capacity of exactly `size` bytes (plus allocator slack),
 * truncating the content if it is longer. would_regrow avoids the type 5
 * header, which must be converted again on the next append. A smaller header
 * type is adopted only for sizes where its few saved bytes matter (types 5
 * and 8); larger strings keep their header so realloc can shrink in place. */
sds sdsResize(sds s, size_t size, int would_regrow) {
    if (sdsalloc(s) == size) return s;
    size_t len = sdslen(s);
    if (len > size) len = size;
    unsigned oldtype = sdsType(s);
    unsigned type = sdsReqType(size);
    if (would_regrow && type == SDS_TYPE_5) type = SDS_TYPE_8;
    if (type < oldtype && type > SDS_TYPE_8) type = oldtype;
    if (type == oldtype && sdsShrinkKeepsBlock(s, size)) {
        sdssetlen(s, len);
        s[len] = '\0';
        return s;
    }
    return sdsReshape(s, type, size, len);
}

sds sdsRemoveFreeSpace(sds s) {
    return sdsResize(s, sdslen(s), 0);
}

size_t sdsAllocSize(const sds s) {
    return sdsHdrSize(sdsType(s)) + sdsalloc(s) + 1;
}

void *sdsAllocPtr(const sds s) {
    return s - sdsHdrSize(sdsType(s));
}

sds sdsgrowzero(sds s, size_t len) {
    size_t cur = sdslen(s);
    if (len <= cur) return s;
    s = sdsMakeRoomFor(s, len - cur);
    memset(s + cur, 0, len - cur + 1);
    sdssetlen(s, len);
    return s;
}

/* ---- appending and copying ---------------------------------------------------- */

/* sdsMakeRoomFor that also moves *src along when it points into s's block. */
static sds sdsGrowKeepingSource(sds s, size_t addlen, const char **src) {
    if (sdsavail(s) >= addlen) return s;
    uintptr_t start = (uintptr_t)s, p = (uintptr_t)*src;
    int inside = p >= start && p - start <= sdsalloc(s);
    s = sdsMakeRoomFor(s, addlen);
    if (inside) *src = s + (p - start);
    return s;
}

sds sdscatlen(sds s, const void *t, size_t len) {
    const char *src = t;
    size_t cur = sdslen(s);
    if (len == 0) return s; /* t may be NULL then */
    s = sdsGrowKeepingSource(s, len, &src);
    memmove(s + cur, src, len);
    sdssetlen(s, cur + len);
    s[cur + len] = '\0';
    return s;
}

sds sdscat(sds s, const char *t) {
    return sdscatlen(s, t, strlen(t));
}

sds sdscatsds(sds s, const sds t) {
    return sdscatlen(s, t, sdslen(t));
}

sds sdscpylen(sds s, const char *t, size_t len) {
    if (sdsalloc(s) < len) s = sdsGrowKeepingSource(s, len - sdslen(s), &t);
    memmove(s, t, len);
    s[len] = '\0';
    sdssetlen(s, len);
    return s;
}

sds sdscpy(sds s, const char *t) {
    return sdscpylen(s, t, strlen(t));
}

/* Formats into a scratch buffer first: the arguments may point into s itself.
 * A formatting error (e.g. an invalid wide character) leaves s unchanged. */
sds sdscatvprintf(sds s, const char *fmt, va_list ap) {
    char stackbuf[256];
    va_list cp;
    va_copy(cp, ap);
    int n = vsnprintf(stackbuf, sizeof stackbuf, fmt, cp);
    va_end(cp);
    if (n < 0) return s;
    if ((size_t)n < sizeof stackbuf) return sdscatlen(s, stackbuf, (size_t)n);

    char *heapbuf = zmalloc((size_t)n + 1);
    va_copy(cp, ap);
    vsnprintf(heapbuf, (size_t)n + 1, fmt, cp);
    va_end(cp);
    s = sdscatlen(s, heapbuf, (size_t)n);
    zfree(heapbuf);
    return s;
}

sds sdscatprintf(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    s = sdscatvprintf(s, fmt, ap);
    va_end(ap);
    return s;
}

static sds sdsCatFmtVerb(sds s, char verb, va_list *ap) {
    char num[21];
    size_t n;
    switch (verb) {
    case 's': {
        const char *str = va_arg(*ap, const char *);
        return sdscatlen(s, str, strlen(str));
    }
    case 'S': {
        sds str = va_arg(*ap, sds);
        return sdscatlen(s, str, sdslen(str));
    }
    case 'i': n = sdsFormatSigned(num, va_arg(*ap, int)); break;
    case 'I': n = sdsFormatSigned(num, va_arg(*ap, long long)); break;
    case 'u': n = sdsFormatUnsigned(num, va_arg(*ap, unsigned int)); break;
    case 'U': n = sdsFormatUnsigned(num, va_arg(*ap, unsigned long long)); break;
    default: return sdscatlen(s, &verb, 1); /* "%%", and any other verb, emit the character */
    }
    return sdscatlen(s, num, n);
}

/* A printf subset that avoids libc's formatting: %s (C string), %S (sds),
 * %i / %I (int / long long), %u / %U (unsigned / unsigned long long), %%.
 * A '%' ending the format is dropped. */
sds sdscatfmt(sds s, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    const char *f = fmt;
    while (*f != '\0') {
        size_t literal = strcspn(f, "%");
        if (literal > 0) {
            s = sdscatlen(s, f, literal);
            f += literal;
            continue;
        }
        char verb = f[1];
        if (verb == '\0') break;
        f += 2;
        s = sdsCatFmtVerb(s, verb, &ap);
    }
    va_end(ap);
    return s;
}

/* Writes the quoted-string form of byte c to out; returns its length. */
static size_t sdsReprByte(unsigned char c, char out[4]) {
    static const char hex[] = "0123456789abcdef";
    char escape = 0;
    switch (c) {
    case '\\': escape = '\\'; break;
    case '"': escape = '"'; break;
    case '\n': escape = 'n'; break;
    case '\r': escape = 'r'; break;
    case '\t': escape = 't'; break;
    case '\a': escape = 'a'; break;
    case '\b': escape = 'b'; break;
    }
    if (escape) {
        out[0] = '\\';
        out[1] = escape;
        return 2;
    }
    if (c >= 0x20 && c < 0x7f) {
        out[0] = (char)c;
        return 1;
    }
    out[0] = '\\';
    out[1] = 'x';
    out[2] = hex[c >> 4];
    out[3] = hex[c & 15];
    return 4;
}

/* Appends p[0..len) as a double-quoted string that sdssplitargs reads back. */
sds sdscatrepr(sds s, const char *p, size_t len) {
    if (len <= SIZE_MAX - 2) s = sdsMakeRoomFor(s, len + 2);
    s = sdscatlen(s, "\"", 1);
    for (size_t i = 0; i < len; i++) {
        char piece[4];
        s = sdscatlen(s, piece, sdsReprByte((unsigned char)p[i], piece));
    }
    return sdscatlen(s, "\"", 1);
}

sds sdsjoin(char **argv, int argc, const char *sep) {
    sds joined = sdsempty();
    size_t seplen = strlen(sep);
    for (int i = 0; i < argc; i++) {
        if (i > 0) joined = sdscatlen(joined, sep, seplen);
        joined = sdscat(joined, argv[i]);
    }
    return joined;
}

sds sdsjoinsds(sds *argv, int argc, const char *sep, size_t seplen) {
    sds joined = sdsempty();
    for (int i = 0; i < argc; i++) {
        if (i > 0) joined = sdscatlen(joined, sep, seplen);
        joined = sdscatsds(joined, argv[i]);
    }
    return joined;
}

/* ---- in-place edits ------------------------------------------------------------- */

/* strchr would also "find" the NUL byte, which must not count as in a set. */
static int sdsInSet(const char *cset, char c) {
    return c != '\0' && strchr(cset, c) != NULL;
}

/* Removes leading and trailing bytes that occur in the C string cset. */
sds sdstrim(sds s, const char *cset) {
    size_t start = 0, end = sdslen(s);
    while (start < end && sdsInSet(cset, s[start])) start++;
    while (end > start && sdsInSet(cset, s[end - 1])) end--;
    sdssubstr(s, start, end - start);
    return s;
}

/* Keeps len bytes from offset start; both are clamped to the content. */
void sdssubstr(sds s, size_t start, size_t len) {
    size_t oldlen = sdslen(s);
    if (start >= oldlen) start = len = 0;
    if (len > oldlen - start) len = oldlen - start;
    if (len > 0) memmove(s, s + start, len);
    s[len] = '\0';
    sdssetlen(s, len);
}

/* An index counted from the end when negative (-1 = last byte) as an offset;
 * one before the start clamps to 0. */
static size_t sdsOffsetOf(ssize_t index, size_t len) {
    if (index >= 0) return (size_t)index;
    size_t back = (size_t)-(index + 1) + 1; /* |index| without overflow */
    return back > len ? 0 : len - back;
}

/* Keeps bytes start..end inclusive; negative indexes count from the end. */
void sdsrange(sds s, ssize_t start, ssize_t end) {
    size_t len = sdslen(s);
    if (len == 0) return;
    size_t from = sdsOffsetOf(start, len), to = sdsOffsetOf(end, len);
    if (to >= len) to = len - 1;
    if (from > to)
        sdssubstr(s, 0, 0);
    else
        sdssubstr(s, from, to - from + 1);
}

void sdsupdatelen(sds s) {
    sdssetlen(s, strlen(s));
}

void sdsclear(sds s) {
    sdssetlen(s, 0);
    s[0] = '\0';
}

void sdstolower(sds s) {
    size_t len = sdslen(s);
    for (size_t i = 0; i < len; i++)
        if (s[i] >= 'A' && s[i] <= 'Z') s[i] = (char)(s[i] - 'A' + 'a');
}

void sdstoupper(sds s) {
    size_t len = sdslen(s);
    for (size_t i = 0; i < len; i++)
        if (s[i] >= 'a' && s[i] <= 'z') s[i] = (char)(s[i] - 'a' + 'A');
}

/* Replaces every byte equal to from[i] by to[i] (the first matching i). */
sds sdsmapchars(sds s, const char *from, const char *to, size_t setlen) {
    size_t len = sdslen(s);
    for (size_t j = 0; j < len; j++) {
        for (size_t i = 0; i < setlen; i++) {
            if (s[j] == from[i]) {
                s[j] = to[i];
                break;
            }
        }
    }
    return s;
}

/* ---- inspection --------------------------------------------------------------------- */

/* memcmp order; a proper prefix sorts first. Returns <0, 0 or >0. */
int sdscmp(const sds s1, const sds s2) {
    size_t l1 = sdslen(s1), l2 = sdslen(s2);
    int cmp = memcmp(s1, s2, l1 < l2 ? l1 : l2);
    if (cmp != 0) return cmp;
    return (l1 > l2) - (l1 < l2);
}

/* Whether s must go through sdscatrepr to be read back intact, as one
 * argument, by sdssplitargs (as a config file rewrite needs): it is empty,
 * or holds whitespace, a quote of either kind, a backslash or a byte
 * outside printable ASCII. Redis leaves out the empty string and the single
 * quote, though both break the round trip when written bare. */
int sdsneedsrepr(const sds s) {
    size_t len = sdslen(s);
    if (len == 0) return 1;
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c <= 0x20 || c >= 0x7f || c == '\\' || c == '"' || c == '\'') return 1;
    }
    return 0;
}

/* ---- splitting ------------------------------------------------------------------------ */

/* A growable array of sds, as returned by the split functions. */
typedef struct {
    sds *items;
    size_t slots;
    int count;
} sdsVector;

/* Appends item (ownership passes to v); 0 when the count would overflow an int. */
static int sdsVectorPush(sdsVector *v, sds item) {
    if ((size_t)v->count == v->slots) {
        if (v->count == INT_MAX) return 0;
        size_t slots = v->slots ? v->slots * 2 : 8;
        if (slots > (size_t)INT_MAX) slots = (size_t)INT_MAX;
        if (slots > SIZE_MAX / sizeof(sds)) return 0;
        v->items = zrealloc(v->items, slots * sizeof(sds));
        v->slots = slots;
    }
    v->items[v->count++] = item;
    return 1;
}

/* The vector's array, allocated even when empty so callers can tell an empty
 * result from an error. */
static sds *sdsVectorFinish(sdsVector *v, int *count) {
    if (v->items == NULL) v->items = zmalloc(sizeof(sds));
    *count = v->count;
    return v->items;
}

static sds *sdsVectorFail(sdsVector *v, sds pending, int *count) {
    sdsfree(pending);
    sdsfreesplitres(v->items, v->count);
    *count = 0;
    return NULL;
}

/* Splits s[0..len) at every occurrence of the separator sep[0..seplen).
 * An empty input gives zero tokens; otherwise there is one token more than
 * separators found (tokens may be empty). NULL if len < 0 or seplen < 1. */
sds *sdssplitlen(const char *s, ssize_t len, const char *sep, int seplen, int *count) {
    *count = 0;
    if (len < 0 || seplen < 1) return NULL;
    sdsVector v = {NULL, 0, 0};
    size_t total = (size_t)len, slen = (size_t)seplen, start = 0, j = 0;
    if (total == 0) return sdsVectorFinish(&v, count);
    while (j + slen <= total) {
        if (memcmp(s + j, sep, slen) != 0) {
            j++;
            continue;
        }
        sds token = sdsnewlen(s + start, j - start);
        if (!sdsVectorPush(&v, token)) return sdsVectorFail(&v, token, count);
        j += slen;
        start = j;
    }
    sds last = sdsnewlen(s + start, total - start);
    if (!sdsVectorPush(&v, last)) return sdsVectorFail(&v, last, count);
    return sdsVectorFinish(&v, count);
}

void sdsfreesplitres(sds *tokens, int count) {
    if (tokens == NULL) return;
    for (int i = 0; i < count; i++) sdsfree(tokens[i]);
    zfree(tokens);
}

static int sdsIsSpace(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\v' || c == '\f';
}

/* Inside an unquoted word only these end it; \v and \f are part of the
 * word (they separate words only where blanks are skipped), as in Redis. */
static int sdsEndsUnquotedWord(char c) {
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int sdsHexValue(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

/* The byte a backslash escape inside double quotes stands for. */
static char sdsUnescape(char c) {
    switch (c) {
    case 'n': return '\n';
    case 'r': return '\r';
    case 't': return '\t';
    case 'b': return '\b';
    case 'a': return '\a';
    default: return c;
    }
}

/* Inside "...": consumes one character or escape at *p into *arg.
 * Returns 1 to continue, 0 at the closing quote (consumed). */
static int sdsParseDoubleQuoted(const char **p, sds *arg) {
    const char *c = *p;
    char byte;
    if (c[0] == '"') {
        *p = c + 1;
        return 0;
    }
    if (c[0] == '\\' && c[1] == 'x' && sdsHexValue(c[2]) >= 0 && sdsHexValue(c[3]) >= 0) {
        byte = (char)(sdsHexValue(c[2]) * 16 + sdsHexValue(c[3]));
        *p = c + 4;
    } else if (c[0] == '\\' && c[1] != '\0') {
        byte = sdsUnescape(c[1]);
        *p = c + 2;
    } else {
        byte = c[0];
        *p = c + 1;
    }
    *arg = sdscatlen(*arg, &byte, 1);
    return 1;
}

/* Inside '...': only \' is an escape. Same contract as above. */
static int sdsParseSingleQuoted(const char **p, sds *arg) {
    const char *c = *p;
    if (c[0] == '\'') {
        *p = c + 1;
        return 0;
    }
    if (c[0] == '\\' && c[1] == '\'') {
        *arg = sdscatlen(*arg, "'", 1);
        *p = c + 2;
        return 1;
    }
    *arg = sdscatlen(*arg, c, 1);
    *p = c + 1;
    return 1;
}

/* Parses one argument starting at *p (neither whitespace nor the end) and
 * advances *p past it. NULL when a quote is not closed, or a closing quote
 * is followed by something other than whitespace or the end. */
static sds sdsParseArg(const char **p) {
    sds arg = sdsempty();
    while (**p != '\0' && !sdsEndsUnquotedWord(**p)) {
        char c = *(*p)++;
        if (c != '"' && c != '\'') {
            arg = sdscatlen(arg, &c, 1);
            continue;
        }
        int (*step)(const char **, sds *) = c == '"' ? sdsParseDoubleQuoted : sdsParseSingleQuoted;
        for (;;) {
            if (**p == '\0') goto unbalanced;
            if (!step(p, &arg)) break;
        }
        if (**p != '\0' && !sdsIsSpace(**p)) goto unbalanced;
        break;
    }
    return arg;

unbalanced:
    sdsfree(arg);
    return NULL;
}

/* Splits a line into arguments the way redis-cli and the config file do:
 * whitespace separates; "..." supports \n \r \t \b \a \xHH and \<any>;
 * '...' supports only \'. A quote may start mid-argument (a"b c" is one
 * argument, "ab c"), but a closing quote must end it. Returns an array (never
 * NULL on success, even for an empty line) to free with sdsfreesplitres, or
 * NULL with *argc = 0 on unbalanced quotes. */
sds *sdssplitargs(const char *line, int *argc) {
    sdsVector v = {NULL, 0, 0};
    const char *p = line;
    *argc = 0;
    for (;;) {
        while (sdsIsSpace(*p)) p++;
        if (*p == '\0') return sdsVectorFinish(&v, argc);
        sds arg = sdsParseArg(&p);
        if (arg == NULL || !sdsVectorPush(&v, arg)) return sdsVectorFail(&v, arg, argc);
    }
}
