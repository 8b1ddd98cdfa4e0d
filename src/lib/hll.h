/* hll.h -- HyperLogLog sketches in Redis's exact byte layout (a library).
 *
 * A sketch is a plain string (an sds) so it travels through GET/SET, RDB and
 * replication like any other value, and one written here is byte-for-byte
 * the one Redis writes for the same inputs, on every architecture:
 *
 *   offset 0   "HYLL"                magic
 *          4   encoding              0 dense, 1 sparse (255 raw: in memory only)
 *          5   3 unused bytes        zero
 *          8   cached cardinality    8 bytes little-endian; bit 7 of byte 15
 *                                    set = the cache is stale
 *         16   registers             16384 of them, see below
 *
 * Dense: 16384 6-bit registers packed LSB first: register i occupies bits
 * 6i .. 6i+5 of the little-endian bit stream (12288 bytes, 12304 in all).
 * Sparse: a run-length code over the registers, three opcodes:
 *   00xxxxxx            ZERO   xxxxxx+1 (1..64) registers are 0
 *   01xxxxxx yyyyyyyy   XZERO  xxxxxxyyyyyyyy+1 (1..16384) registers are 0
 *   1vvvvvxx            VAL    xx+1 (1..4) registers hold vvvvv+1 (1..32)
 * A new sketch is sparse (one XZERO: 18 bytes) and becomes dense for good
 * when it outgrows the caller's byte limit or needs a register above 32.
 *
 * Element -> register: the 64-bit MurmurHash64A of the element (seed
 * 0xadc83b19, input read as little-endian words on every host); the low 14
 * bits pick the register, and the run of zero bits above them, plus one,
 * is the value (1..51) the register is raised to.
 *
 * Cardinality: Otmar Ertl's improved raw estimator ("New cardinality
 * estimation algorithms for HyperLogLog sketches", 2017), computed from the
 * histogram of register values with the same floating-point operations in
 * the same order as Redis 5+, so estimates are equal, not just close.
 *
 * Design decisions:
 *  - Every function that reads a stored sketch takes its length and is
 *    defensive: a sketch is user data (SET, SETRANGE, APPEND can forge
 *    one), so no opcode stream is trusted to stay in bounds or to cover
 *    exactly 16384 registers; the verdict is returned, never assumed.
 *  - Mutators take `sds *` because the string can grow or be replaced
 *    (sparse splits, promotion to dense).
 *  - No server state: the sparse size limit is a parameter, so this file
 *    is a library with unit tests (tests/c/test_hyperloglog.c).
 */
#ifndef REDIS_HLL_H
#define REDIS_HLL_H

#include <stddef.h>
#include <stdint.h>

#include "sds.h"

#define HLL_P 14                          /* index bits */
#define HLL_Q (64 - HLL_P)                /* bits left for the run of zeros */
#define HLL_REGISTERS (1 << HLL_P)        /* 16384 */
#define HLL_BITS 6
#define HLL_REGISTER_MAX ((1 << HLL_BITS) - 1)
#define HLL_HDR_SIZE 16
#define HLL_DENSE_SIZE (HLL_HDR_SIZE + (HLL_REGISTERS * HLL_BITS + 7) / 8)

#define HLL_DENSE 0
#define HLL_SPARSE 1
#define HLL_RAW 255          /* one byte per register; never stored */
#define HLL_MAX_ENCODING 1   /* highest encoding a stored sketch may have */

#define HLL_SPARSE_VAL_MAX_VALUE 32
#define HLL_SPARSE_VAL_MAX_LEN 4
#define HLL_SPARSE_ZERO_MAX_LEN 64
#define HLL_SPARSE_XZERO_MAX_LEN 16384
#define HLL_SPARSE_MAX_BYTES_DEFAULT 3000 /* Redis's hll-sparse-max-bytes default */

/* Results of the mutators and readers. */
#define HLL_UNCHANGED 0
#define HLL_CHANGED 1
#define HLL_CORRUPT (-1)

/* ---- hashing ---------------------------------------------------------------- */
uint64_t hllMurmurHash64A(const void *key, size_t len, uint64_t seed);
/* Register index of an element and the value it proposes (1..HLL_Q+1). */
int hllPatternLength(const void *ele, size_t len, long *index);

/* ---- the header ---------------------------------------------------------------- */
/* 1 if s[0..len) has the magic, a storable encoding and, when dense, the
 * exact dense size: what makes a string a HyperLogLog at all. */
int hllIsValidHeader(const unsigned char *s, size_t len);
/* hllIsValidHeader() and, when sparse, an opcode stream that is complete
 * and covers exactly HLL_REGISTERS registers. A sketch that passes can be
 * given to every function below without any of them failing. */
int hllIsWellFormed(const unsigned char *s, size_t len);
int hllEncoding(const unsigned char *s);
int hllCacheIsValid(const unsigned char *s);
uint64_t hllCacheGet(const unsigned char *s);
void hllCacheSet(unsigned char *s, uint64_t card);
void hllCacheInvalidate(unsigned char *s);

/* ---- registers --------------------------------------------------------------- */
unsigned hllDenseGetRegister(const unsigned char *regs, long index);
void hllDenseSetRegister(unsigned char *regs, long index, unsigned value);

/* ---- whole sketches ------------------------------------------------------------ */
sds hllCreate(void); /* empty, sparse, cache valid (0) */
/* Decodes any encoding into raw[HLL_REGISTERS], taking the maximum with
 * what raw already holds (a union). HLL_CHANGED when done, HLL_CORRUPT if
 * the value is not a well-formed sketch (raw is then partly updated). */
int hllMergeInto(uint8_t *raw, const unsigned char *s, size_t len);
/* Converts a sparse sketch to dense in place (no-op when dense), keeping
 * the cached cardinality bytes. HLL_CHANGED, HLL_UNCHANGED or HLL_CORRUPT. */
int hllToDense(sds *hll);
/* Raises register `index` to `value` if it is lower. Promotes a sparse
 * sketch to dense when needed or when it would exceed sparse_max_bytes.
 * Does not touch the cache bytes. */
int hllSetRegister(sds *hll, long index, unsigned value, size_t sparse_max_bytes);
/* Adds one element: HLL_CHANGED if a register was raised. */
int hllAdd(sds *hll, const void *ele, size_t len, size_t sparse_max_bytes);
/* The estimated cardinality, ignoring the cache. *invalid set to 1 (and
 * the result meaningless) if the sketch is corrupt. */
uint64_t hllCount(const unsigned char *s, size_t len, int *invalid);
/* The estimate from raw[HLL_REGISTERS] (one byte per register). */
uint64_t hllCountRaw(const uint8_t *raw);

/* ---- sparse opcode stream (exposed for PFDEBUG DECODE and the tests) ---------- */
typedef struct hllSparseOp {
    int is_zero;      /* ZERO or XZERO */
    int is_xzero;
    unsigned value;   /* 0 for zero runs */
    long runlen;
    size_t oplen;     /* 1 or 2 bytes */
} hllSparseOp;
/* Decodes the opcode at p (end = one past the stream); 0 if it is truncated. */
int hllSparseDecodeOp(const unsigned char *p, const unsigned char *end, hllSparseOp *op);

#endif /* REDIS_HLL_H */
