/* stream_lp.h -- one node of a stream: a listpack of entries whose IDs are
 * stored as deltas from the node's master ID.
 *
 * A stream is a radix tree keyed by each node's master ID (16 bytes, ms then
 * seq, both big-endian) whose values are these listpacks. The layout is
 * Redis's, element for element, so a node taken from an RDB file is used as
 * it is:
 *
 *   master entry:  count  deleted  nfields  field_1 ... field_n  0
 *   each entry:    flags  ms-delta  seq-delta
 *                  [nfields field_1 value_1 ... field_k value_k]  (no SAMEFIELDS)
 *                  [value_1 ... value_n]                          (SAMEFIELDS)
 *                  lp-count
 *
 * count = live entries, deleted = entries flagged DELETED still in the node.
 * ms-delta/seq-delta are the entry's ID minus the master ID, each part
 * subtracted as an unsigned 64-bit value and stored as a signed integer.
 * SAMEFIELDS means the entry has exactly the master entry's fields in its
 * order (only values are stored). lp-count is the number of elements of the
 * entry before it (3 + n with SAMEFIELDS, 4 + 2k without), so the node can
 * be walked backwards.
 *
 * This file knows nothing of the radix tree: the caller passes each node's
 * master ID. Functions that change a node return the listpack's new address.
 */
#ifndef STREAM_LP_H
#define STREAM_LP_H

#include <stddef.h>
#include <stdint.h>

typedef struct streamID {
    uint64_t ms;
    uint64_t seq;
} streamID;

#define SLP_FLAG_NONE 0
#define SLP_FLAG_DELETED 1
#define SLP_FLAG_SAMEFIELDS 2

#define SLP_ID_KEY_LEN 16

/* ---- IDs ----------------------------------------------------------------- */
int streamIDCompare(const streamID *a, const streamID *b); /* -1, 0, 1 */
void streamIDEncode(unsigned char key[SLP_ID_KEY_LEN], const streamID *id); /* big-endian tree key */
void streamIDDecode(const unsigned char key[SLP_ID_KEY_LEN], streamID *id);
/* The next / previous ID; -1 (id unchanged) past the largest / below 0-0. */
int streamIDIncr(streamID *id);
int streamIDDecr(streamID *id);

/* ---- one field or value, as given by the caller --------------------------- */
typedef struct slpString {
    const unsigned char *ptr;
    size_t len;
} slpString;

/* ---- building ------------------------------------------------------------ */
/* A new node whose master entry has the given fields (the first entry's),
 * and no entries yet: slpAppend adds the first. */
unsigned char *slpNew(const slpString *fields, int nfields, size_t capacity);
/* Appends the entry id (>= master, > the node's last) with nfields pairs
 * (fv[0] field, fv[1] value, ...). */
unsigned char *slpAppend(unsigned char *lp, const streamID *master, const streamID *id, const slpString *fv,
                         int nfields);
/* Bytes the node will roughly grow by for these pairs (the node-size rule
 * compares the sum of the lengths of fields and values with the limit). */
size_t slpPairsLength(const slpString *fv, int nfields);

/* ---- the master entry ----------------------------------------------------- */
int64_t slpLiveCount(unsigned char *lp);
int64_t slpDeletedCount(unsigned char *lp);

/* ---- walking ------------------------------------------------------------- */
typedef struct slpEntry {
    streamID id;
    int flags;
    int nfields;
    unsigned char *flags_p;   /* the entry's first element */
    /* private: the fields cursor */
    int fields_left;
    unsigned char *master_field; /* next master field (SAMEFIELDS) */
    unsigned char *next;         /* next field (or value, SAMEFIELDS) element */
    /* private: the node's master entry, read once by slpFirst/slpLast (so
     * stepping through a node never walks it again) */
    int master_nfields;
    unsigned char *master_fields; /* the master entry's first field */
    unsigned char *first_p;       /* the node's first entry (NULL: none) */
    unsigned char fbuf[21], vbuf[21];
} slpEntry;

/* The first / last entry of the node (deleted ones included); 0 if none. */
int slpFirst(unsigned char *lp, const streamID *master, slpEntry *e);
int slpLast(unsigned char *lp, const streamID *master, slpEntry *e);
/* The entry after / before e; 0 at the end. */
int slpNext(unsigned char *lp, const streamID *master, slpEntry *e);
int slpPrev(unsigned char *lp, const streamID *master, slpEntry *e);
/* Each call gives the next field and value of the entry e (valid until the
 * node changes); 0 after the last. */
int slpEntryField(unsigned char *lp, slpEntry *e, slpString *field, slpString *value);

/* Marks e deleted: count-1, deleted+1. e->flags is updated. */
unsigned char *slpMarkDeleted(unsigned char *lp, slpEntry *e);

/* The ID of the first / last live entry; 0 if the node has none. */
int slpFirstLiveID(unsigned char *lp, const streamID *master, streamID *id);
int slpLastLiveID(unsigned char *lp, const streamID *master, streamID *id);

/* ---- untrusted nodes (RDB, RESTORE) --------------------------------------- */
/* Checks the node's structure: the listpack itself (lpValidateIntegrity,
 * deep), the master entry, every entry's flags, deltas, field counts and
 * lp-count, IDs strictly increasing from the master ID, and the counts in
 * the master entry. *first and *last get the first and last entry's IDs.
 * Returns 1 if valid; never reads outside [lp, lp+size). */
int slpValidate(unsigned char *lp, size_t size, const streamID *master, streamID *first, streamID *last);

#endif /* STREAM_LP_H */
