/* hll.c -- HyperLogLog sketches in Redis's byte layout (see hll.h for the
 * format and the contract).
 *
 * Design decisions:
 *  - Byte identity with Redis is a requirement (a sketch may be built here
 *    and read there), so the sparse update reproduces Redis's observable
 *    choices exactly: how a run is split (ZERO up to 64 registers, XZERO
 *    beyond), when the sketch is promoted (a split that would grow it past
 *    the limit, or a value above 32), and the bounded clean-up that merges
 *    neighbouring equal VAL opcodes (at most five opcodes, starting at the
 *    one before the change).
 *  - Every multi-byte quantity goes through portable.h (the hash reads its
 *    input as little-endian words, the cache is little-endian): the same
 *    element gives the same register on every host.
 *  - Readers never trust the opcode stream: each opcode is decoded with the
 *    stream's end in hand, and a stream that is truncated or does not cover
 *    exactly 16384 registers is reported as corrupt. The dense register
 *    accessors never touch the byte after the last register.
 *  - The estimator must round exactly like Redis's on every CPU: products
 *    are not fused into multiply-adds (GCC would do so on aarch64, s390x,
 *    POWER), see HLL_NO_FMA.
 */
#include "hll.h"

#include <math.h>
#include <string.h>

#include "portable.h"

#define HLL_HASH_SEED 0xadc83b19ULL
#define HLL_ALPHA_INF 0.721347520444481703680 /* 1 / (2 ln 2) */
#define HLL_CACHE_STALE_BIT 0x80              /* in byte 7 of the cache */

#define OFF_ENCODING 4
#define OFF_CACHE 8

#if defined(__GNUC__) && !defined(__clang__)
#define HLL_NO_FMA __attribute__((optimize("fp-contract=off")))
#else
#define HLL_NO_FMA
#endif

/* ---- hashing ------------------------------------------------------------------ */

/* MurmurHash64A (Austin Appleby), with the input taken as little-endian
 * 64-bit words whatever the host's byte order. */
uint64_t hllMurmurHash64A(const void *key, size_t len, uint64_t seed) {
    const uint64_t m = 0xc6a4a7935bd1e995ULL;
    const int r = 47;
    const unsigned char *data = key;
    const unsigned char *blocks_end = data + (len & ~(size_t)7);
    uint64_t h = seed ^ ((uint64_t)len * m);

    for (; data != blocks_end; data += 8) {
        uint64_t k = load64le(data);
        k *= m;
        k ^= k >> r;
        k *= m;
        h ^= k;
        h *= m;
    }
    size_t tail = len & 7;
    if (tail) {
        for (size_t i = tail; i-- > 0;) h ^= (uint64_t)data[i] << (8 * i);
        h *= m;
    }
    h ^= h >> r;
    h *= m;
    h ^= h >> r;
    return h;
}

int hllPatternLength(const void *ele, size_t len, long *index) {
    uint64_t hash = hllMurmurHash64A(ele, len, HLL_HASH_SEED);
    *index = (long)(hash & (HLL_REGISTERS - 1));
    /* A sentinel bit above the HLL_Q usable bits bounds the run. */
    uint64_t rest = (hash >> HLL_P) | ((uint64_t)1 << HLL_Q);
    return __builtin_ctzll(rest) + 1;
}

/* ---- the header ------------------------------------------------------------------ */

int hllIsValidHeader(const unsigned char *s, size_t len) {
    if (len < HLL_HDR_SIZE || memcmp(s, "HYLL", 4) != 0) return 0;
    int enc = s[OFF_ENCODING];
    if (enc > HLL_MAX_ENCODING) return 0;
    return enc != HLL_DENSE || len == HLL_DENSE_SIZE;
}

int hllEncoding(const unsigned char *s) { return s[OFF_ENCODING]; }

int hllCacheIsValid(const unsigned char *s) {
    return (s[OFF_CACHE + 7] & HLL_CACHE_STALE_BIT) == 0;
}

uint64_t hllCacheGet(const unsigned char *s) { return load64le(s + OFF_CACHE); }

void hllCacheSet(unsigned char *s, uint64_t card) { store64le(s + OFF_CACHE, card); }

/* Only the flag changes: the other cache bytes keep the last estimate, as
 * they do in Redis (they are part of the stored bytes). */
void hllCacheInvalidate(unsigned char *s) { s[OFF_CACHE + 7] |= HLL_CACHE_STALE_BIT; }

/* ---- dense registers -------------------------------------------------------------- */

/* Register i is bits 6i..6i+5 of the little-endian bit stream: it starts at
 * bit (6i mod 8) of byte 6i/8 and spills into the next byte only when it
 * starts above bit 2. */
unsigned hllDenseGetRegister(const unsigned char *regs, long index) {
    size_t bit = (size_t)index * HLL_BITS;
    size_t byte = bit >> 3;
    unsigned shift = bit & 7;
    unsigned v = (unsigned)regs[byte] >> shift;
    if (shift > 8 - HLL_BITS) v |= (unsigned)regs[byte + 1] << (8 - shift);
    return v & HLL_REGISTER_MAX;
}

void hllDenseSetRegister(unsigned char *regs, long index, unsigned value) {
    size_t bit = (size_t)index * HLL_BITS;
    size_t byte = bit >> 3;
    unsigned shift = bit & 7;
    value &= HLL_REGISTER_MAX;
    regs[byte] = (unsigned char)((regs[byte] & ~(HLL_REGISTER_MAX << shift)) | (value << shift));
    if (shift > 8 - HLL_BITS) {
        unsigned spill = 8 - shift;
        regs[byte + 1] = (unsigned char)((regs[byte + 1] & ~(HLL_REGISTER_MAX >> spill)) | (value >> spill));
    }
}

/* Every 3 bytes hold exactly 4 registers: the decoders below take them in
 * such groups (16384 registers = 4096 groups), which is both fast and
 * never reads past the last register. */
static void denseGroup(const unsigned char *g, unsigned r[4]) {
    r[0] = g[0] & 63;
    r[1] = ((g[0] >> 6) | (g[1] << 2)) & 63;
    r[2] = ((g[1] >> 4) | (g[2] << 4)) & 63;
    r[3] = g[2] >> 2;
}

/* Four partial histograms, one per register of a group: see hllCountRaw(). */
static void denseHistogram(const unsigned char *regs, int histo[64]) {
    int part[4][64] = {{0}};
    for (long i = 0; i < HLL_REGISTERS; i += 4, regs += 3) {
        unsigned r[4];
        denseGroup(regs, r);
        part[0][r[0]]++;
        part[1][r[1]]++;
        part[2][r[2]]++;
        part[3][r[3]]++;
    }
    for (int v = 0; v < 64; v++) histo[v] += part[0][v] + part[1][v] + part[2][v] + part[3][v];
}

/* Branch-free maximum: with random registers a branch mispredicts half the time. */
static inline uint8_t maxByte(unsigned a, uint8_t b) { return (uint8_t)(a > b ? a : b); }

static void denseMerge(const unsigned char *regs, uint8_t *raw) {
    for (long i = 0; i < HLL_REGISTERS; i += 4, regs += 3) {
        unsigned r[4];
        denseGroup(regs, r);
        raw[i] = maxByte(r[0], raw[i]);
        raw[i + 1] = maxByte(r[1], raw[i + 1]);
        raw[i + 2] = maxByte(r[2], raw[i + 2]);
        raw[i + 3] = maxByte(r[3], raw[i + 3]);
    }
}

/* ---- sparse opcodes ------------------------------------------------------------------ */

#define SPARSE_XZERO_BIT 0x40
#define SPARSE_VAL_BIT 0x80

int hllSparseDecodeOp(const unsigned char *p, const unsigned char *end, hllSparseOp *op) {
    if (p >= end) return 0;
    unsigned b = *p;
    if (b & SPARSE_VAL_BIT) {
        *op = (hllSparseOp){.value = ((b >> 2) & 31) + 1, .runlen = (long)(b & 3) + 1, .oplen = 1};
    } else if (b & SPARSE_XZERO_BIT) {
        if (end - p < 2) return 0;
        long run = (long)(((b & 63) << 8) | p[1]) + 1;
        *op = (hllSparseOp){.is_zero = 1, .is_xzero = 1, .runlen = run, .oplen = 2};
    } else {
        *op = (hllSparseOp){.is_zero = 1, .runlen = (long)(b & 63) + 1, .oplen = 1};
    }
    return 1;
}

static void putVal(unsigned char *p, unsigned value, long runlen) {
    *p = (unsigned char)(SPARSE_VAL_BIT | ((value - 1) << 2) | (unsigned)(runlen - 1));
}

/* A run of zero registers as one opcode: ZERO up to 64, else XZERO.
 * Returns the bytes written. */
static size_t putZeroRun(unsigned char *p, long runlen) {
    if (runlen <= HLL_SPARSE_ZERO_MAX_LEN) {
        p[0] = (unsigned char)(runlen - 1);
        return 1;
    }
    p[0] = (unsigned char)(SPARSE_XZERO_BIT | ((runlen - 1) >> 8));
    p[1] = (unsigned char)((runlen - 1) & 0xff);
    return 2;
}

static unsigned valValue(const unsigned char *p) { return ((*p >> 2) & 31) + 1; }
static unsigned valLen(const unsigned char *p) { return (*p & 3) + 1; }
static int isVal(const unsigned char *p) { return (*p & SPARSE_VAL_BIT) != 0; }

/* Calls fn(ud, first, runlen, value) for each run of the stream; 0 if the
 * stream is truncated or does not cover exactly HLL_REGISTERS registers
 * (fn is not called for a run that would go beyond them). */
typedef void sparseRunFn(void *ud, long first, long runlen, unsigned value);

static int sparseForEachRun(const unsigned char *p, const unsigned char *end, sparseRunFn *fn, void *ud) {
    long idx = 0;
    while (p < end) {
        hllSparseOp op;
        if (!hllSparseDecodeOp(p, end, &op)) return 0;
        if (op.runlen > HLL_REGISTERS - idx) return 0;
        fn(ud, idx, op.runlen, op.value);
        idx += op.runlen;
        p += op.oplen;
    }
    return idx == HLL_REGISTERS;
}

typedef struct histogram {
    int counts[64]; /* counts[v]: registers holding v */
} histogram;

static void runToHistogram(void *ud, long first, long runlen, unsigned value) {
    histogram *h = ud;
    (void)first;
    h->counts[value] += (int)runlen;
}

static void runToRaw(void *ud, long first, long runlen, unsigned value) {
    uint8_t *raw = ud;
    for (long i = first; i < first + runlen; i++) raw[i] = maxByte(value, raw[i]);
}

static void runToDense(void *ud, long first, long runlen, unsigned value) {
    if (value == 0) return;
    for (long i = first; i < first + runlen; i++) hllDenseSetRegister(ud, i, value);
}

/* ---- whole sketches ------------------------------------------------------------------- */

sds hllCreate(void) {
    sds s = sdsnewlen(NULL, HLL_HDR_SIZE + 2);
    unsigned char *p = (unsigned char *)s;
    memcpy(p, "HYLL", 4);
    p[OFF_ENCODING] = HLL_SPARSE;
    putZeroRun(p + HLL_HDR_SIZE, HLL_REGISTERS);
    return s;
}

int hllMergeInto(uint8_t *raw, const unsigned char *s, size_t len) {
    if (!hllIsValidHeader(s, len)) return HLL_CORRUPT;
    if (s[OFF_ENCODING] == HLL_DENSE) {
        denseMerge(s + HLL_HDR_SIZE, raw);
        return HLL_CHANGED;
    }
    if (!sparseForEachRun(s + HLL_HDR_SIZE, s + len, runToRaw, raw)) return HLL_CORRUPT;
    return HLL_CHANGED;
}

int hllToDense(sds *hll) {
    const unsigned char *s = (const unsigned char *)*hll;
    size_t len = sdslen(*hll);
    if (!hllIsValidHeader(s, len)) return HLL_CORRUPT;
    if (s[OFF_ENCODING] == HLL_DENSE) return HLL_UNCHANGED;

    sds dense = sdsnewlen(NULL, HLL_DENSE_SIZE);
    unsigned char *d = (unsigned char *)dense;
    memcpy(d, s, HLL_HDR_SIZE); /* magic, unused bytes and cache */
    d[OFF_ENCODING] = HLL_DENSE;
    if (!sparseForEachRun(s + HLL_HDR_SIZE, s + len, runToDense, d + HLL_HDR_SIZE)) {
        sdsfree(dense);
        return HLL_CORRUPT;
    }
    sdsfree(*hll);
    *hll = dense;
    return HLL_CHANGED;
}

static int denseRaise(unsigned char *regs, long index, unsigned value) {
    if (hllDenseGetRegister(regs, index) >= value) return HLL_UNCHANGED;
    hllDenseSetRegister(regs, index, value);
    return HLL_CHANGED;
}

static int promoteAndRaise(sds *hll, long index, unsigned value) {
    if (hllToDense(hll) == HLL_CORRUPT) return HLL_CORRUPT;
    return denseRaise((unsigned char *)*hll + HLL_HDR_SIZE, index, value);
}

/* Replaces the opcode `op` at p, which covers registers first.., by the
 * sequence that sets register `index` to `value` and keeps the rest of its
 * run: up to three opcodes (XZERO VAL XZERO at worst, 3 bytes more). */
static size_t splitRun(const hllSparseOp *op, long first, long index, unsigned value, unsigned char seq[5]) {
    long last = first + op->runlen - 1;
    size_t n = 0;
    if (op->is_zero) {
        if (index > first) n += putZeroRun(seq + n, index - first);
        putVal(seq + n++, value, 1);
        if (index < last) n += putZeroRun(seq + n, last - index);
    } else {
        if (index > first) putVal(seq + n++, op->value, index - first);
        putVal(seq + n++, value, 1);
        if (index < last) putVal(seq + n++, op->value, last - index);
    }
    return n;
}

/* Merges neighbouring VAL opcodes of equal value whose runs fit one opcode,
 * looking at no more than five opcodes from p. Returns the new end. */
static unsigned char *mergeNeighbours(sds s, unsigned char *p, unsigned char *end) {
    for (int budget = 5; p < end && budget > 0; budget--) {
        if (!isVal(p)) {
            p += (*p & SPARSE_XZERO_BIT) ? 2 : 1;
            continue;
        }
        if (end - p > 1 && isVal(p + 1) && valValue(p) == valValue(p + 1)) {
            unsigned runlen = valLen(p) + valLen(p + 1);
            if (runlen <= HLL_SPARSE_VAL_MAX_LEN) {
                putVal(p + 1, valValue(p), runlen);
                memmove(p, p + 1, (size_t)(end - p - 1));
                sdsIncrLen(s, -1);
                end--;
                continue; /* the merged opcode may merge with the next one */
            }
        }
        p++;
    }
    return end;
}

/* Registers covered by the opcode at p (0 if it is a truncated XZERO), and
 * its size: the hot loop of sparse updates, ordered by opcode frequency. */
static inline long opRun(const unsigned char *p, const unsigned char *end) {
    unsigned b = *p;
    if ((b & 0xc0) == 0) return (long)(b & 63) + 1;
    if (b & SPARSE_VAL_BIT) return (long)(b & 3) + 1;
    return end - p < 2 ? 0 : (long)(((b & 63) << 8) | p[1]) + 1;
}

static inline size_t opSize(const unsigned char *p) { return (*p & 0xc0) == SPARSE_XZERO_BIT ? 2 : 1; }

/* 1 if the opcodes from p to end are complete and, added to the `first`
 * registers before p, cover exactly HLL_REGISTERS. */
static int sparseTailIsValid(const unsigned char *p, const unsigned char *end, long first) {
    while (p < end) {
        long run = opRun(p, end);
        if (run == 0 || run > HLL_REGISTERS - first) return 0;
        first += run;
        p += opSize(p);
    }
    return first == HLL_REGISTERS;
}

/* Like Redis, finds the opcode covering `index` without reading the rest of
 * the stream, so a lookup that changes nothing stays cheap; the rest is
 * checked only before a change is written (it is then moved anyway), so a
 * damaged sketch is never modified. */
static int sparseRaise(sds *hll, long index, unsigned value, size_t sparse_max_bytes) {
    if (value > HLL_SPARSE_VAL_MAX_VALUE) return promoteAndRaise(hll, index, value);

    *hll = sdsMakeRoomFor(*hll, 3); /* the largest growth of a split */
    unsigned char *start = (unsigned char *)*hll + HLL_HDR_SIZE;
    unsigned char *end = (unsigned char *)*hll + sdslen(*hll);
    unsigned char *p = start, *prev = NULL;
    long first = 0;
    for (;;) {
        if (p >= end) return HLL_CORRUPT;
        long run = opRun(p, end);
        if (run == 0) return HLL_CORRUPT;
        if (index - first < run) break;
        first += run;
        prev = p;
        p += opSize(p);
    }
    hllSparseOp op;
    hllSparseDecodeOp(p, end, &op);
    if (!op.is_zero && op.value >= value) return HLL_UNCHANGED;
    if (!sparseTailIsValid(p, end, first)) return HLL_CORRUPT;

    if (op.oplen == 1 && op.runlen == 1) {
        putVal(p, value, 1); /* a one-register ZERO or VAL: rewrite in place */
    } else {
        unsigned char seq[5];
        size_t seqlen = splitRun(&op, first, index, value, seq);
        ptrdiff_t delta = (ptrdiff_t)seqlen - (ptrdiff_t)op.oplen;
        if (delta > 0 && sdslen(*hll) + (size_t)delta > sparse_max_bytes)
            return promoteAndRaise(hll, index, value);
        unsigned char *next = p + op.oplen;
        memmove(next + delta, next, (size_t)(end - next));
        memcpy(p, seq, seqlen);
        sdsIncrLen(*hll, delta);
        end += delta;
    }
    mergeNeighbours(*hll, prev ? prev : start, end);
    return HLL_CHANGED;
}

int hllIsWellFormed(const unsigned char *s, size_t len) {
    if (!hllIsValidHeader(s, len)) return 0;
    if (s[OFF_ENCODING] == HLL_DENSE) return 1;
    return sparseTailIsValid(s + HLL_HDR_SIZE, s + len, 0);
}

int hllSetRegister(sds *hll, long index, unsigned value, size_t sparse_max_bytes) {
    unsigned char *s = (unsigned char *)*hll;
    if (index < 0 || index >= HLL_REGISTERS || value > HLL_REGISTER_MAX) return HLL_CORRUPT;
    if (!hllIsValidHeader(s, sdslen(*hll))) return HLL_CORRUPT;
    if (s[OFF_ENCODING] == HLL_DENSE) return denseRaise(s + HLL_HDR_SIZE, index, value);
    return sparseRaise(hll, index, value, sparse_max_bytes);
}

int hllAdd(sds *hll, const void *ele, size_t len, size_t sparse_max_bytes) {
    long index;
    int value = hllPatternLength(ele, len, &index);
    return hllSetRegister(hll, index, (unsigned)value, sparse_max_bytes);
}

/* ---- the estimator ------------------------------------------------------------------ */

/* sigma(x) = x + sum_{k>=1} x^(2^k) 2^(k-1), summed until it stops changing. */
HLL_NO_FMA static double hllSigma(double x) {
    if (x == 1.0) return INFINITY;
    double y = 1.0, z = x, before;
    do {
        x *= x;
        before = z;
        z += x * y;
        y += y;
    } while (z != before);
    return z;
}

/* tau(x) = (1 - x - sum_{k>=1} (1 - x^(2^-k))^2 2^-k) / 3. */
HLL_NO_FMA static double hllTau(double x) {
    if (x == 0.0 || x == 1.0) return 0.0;
    double y = 1.0, z = 1.0 - x, before;
    do {
        x = sqrt(x);
        before = z;
        y *= 0.5;
        double gap = 1.0 - x;
        z -= gap * gap * y;
    } while (z != before);
    return z / 3.0;
}

/* llroundl() for a positive x, without libm: halves round up. Where long
 * double is a double, an x of 2^53 or more has no fraction left. */
static uint64_t roundPositive(long double x) {
    uint64_t whole = (uint64_t)x;
    return x - (long double)whole >= 0.5L ? whole + 1 : whole;
}

/* histo[v] = number of registers holding v. */
HLL_NO_FMA static uint64_t estimateFromHistogram(const int histo[64]) {
    const double m = HLL_REGISTERS;
    double z = m * hllTau((m - histo[HLL_Q + 1]) / m);
    for (int j = HLL_Q; j >= 1; j--) {
        z += histo[j];
        z *= 0.5;
    }
    z += m * hllSigma(histo[0] / m);
    return roundPositive(HLL_ALPHA_INF * m * m / z);
}

uint64_t hllCountRaw(const uint8_t *raw) {
    /* Four partial histograms: neighbouring registers often hold the same
     * value, and one counter incremented back to back would serialise. */
    int part[4][64] = {{0}};
    int zero_words = 0;
    for (long i = 0; i < HLL_REGISTERS; i += 8) {
        if (load64(raw + i) == 0) { /* unions of small sketches: mostly zero */
            zero_words++;
            continue;
        }
        const uint8_t *r = raw + i;
        part[0][r[0] & 63]++;
        part[1][r[1] & 63]++;
        part[2][r[2] & 63]++;
        part[3][r[3] & 63]++;
        part[0][r[4] & 63]++;
        part[1][r[5] & 63]++;
        part[2][r[6] & 63]++;
        part[3][r[7] & 63]++;
    }
    int histo[64];
    for (int v = 0; v < 64; v++) histo[v] = part[0][v] + part[1][v] + part[2][v] + part[3][v];
    histo[0] += 8 * zero_words;
    return estimateFromHistogram(histo);
}

uint64_t hllCount(const unsigned char *s, size_t len, int *invalid) {
    histogram histo = {{0}};
    *invalid = 0;
    if (!hllIsValidHeader(s, len)) {
        *invalid = 1;
        return 0;
    }
    if (s[OFF_ENCODING] == HLL_DENSE) {
        denseHistogram(s + HLL_HDR_SIZE, histo.counts);
    } else if (!sparseForEachRun(s + HLL_HDR_SIZE, s + len, runToHistogram, &histo)) {
        *invalid = 1;
        return 0;
    }
    return estimateFromHistogram(histo.counts);
}
