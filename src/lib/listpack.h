/* listpack.h -- a packed list of strings and integers in one byte array.
 *
 * The blob layout is Redis's listpack format, byte for byte, so a blob
 * taken from (or written to) an RDB file needs no conversion:
 *
 *   <total-bytes u32 LE> <num-elements u16 LE> <entry> ... <entry> <0xFF>
 *
 * Each entry is <encoding+data> <backlen>: the encoding byte says whether
 * the entry is an integer (7, 13, 16, 24, 32 or 64 bits, little-endian,
 * two's complement) or a string (6-, 12- or 32-bit length, then the bytes);
 * backlen is the size of <encoding+data>, written in 1..5 bytes of 7 bits
 * each, readable right to left so the list can be walked backwards.
 * num-elements saturates at 65535 ("unknown"): the length is then counted.
 *
 * Strings that are canonical integers (what string2ll() accepts, no leading
 * zeros, no '+') are stored as integers, as Redis does.
 *
 * Every multi-byte field is read and written through portable.h's helpers:
 * a listpack may start at any address, and so may each entry.
 *
 * Functions that change the list may reallocate it: they return the new
 * pointer, and the old one is invalid afterwards. Entry pointers ("p") point
 * at an entry's first byte; they are invalidated by any change, except
 * where a function hands back a new one through an out-parameter.
 */
#ifndef LISTPACK_H
#define LISTPACK_H

#include <stddef.h>
#include <stdint.h>

#define LP_HDR_SIZE 6
#define LP_EOF 0xFF
#define LP_INTBUF_SIZE 21 /* enough for a 64-bit integer as text */

#define LP_BEFORE 0
#define LP_AFTER 1
#define LP_REPLACE 2

/* Creation and size. `capacity` is a hint for the first allocation. */
unsigned char *lpNew(size_t capacity);
void lpFree(unsigned char *lp);
unsigned char *lpDup(const unsigned char *lp);
unsigned char *lpShrinkToFit(unsigned char *lp);
size_t lpBytes(const unsigned char *lp);
unsigned long lpLength(const unsigned char *lp); /* counts (and caches) if the header saturated */

/* Walking. All return NULL past either end. lpSeek takes a negative index
 * from the tail (-1 = last). */
unsigned char *lpFirst(unsigned char *lp);
unsigned char *lpLast(unsigned char *lp);
unsigned char *lpNext(unsigned char *lp, unsigned char *p);
unsigned char *lpPrev(unsigned char *lp, unsigned char *p);
unsigned char *lpSeek(unsigned char *lp, long index);

/* Reading an entry: for a string, returns a pointer to its bytes and sets
 * *len; for an integer, returns NULL and sets *ll. */
const unsigned char *lpGetValue(const unsigned char *p, size_t *len, long long *ll);
/* The entry as text: strings as they are, integers formatted into buf
 * (LP_INTBUF_SIZE bytes). */
const unsigned char *lpGetString(const unsigned char *p, size_t *len, unsigned char *buf);
/* 1 if the entry equals the string s (integers compare by their text). */
int lpCompare(const unsigned char *p, const unsigned char *s, size_t len);

/* Finding: the first entry at or after p equal to s, looking only at every
 * (skip+1)-th entry (skip 1 walks the keys of a key/value listpack). NULL if
 * absent. */
unsigned char *lpFind(unsigned char *lp, unsigned char *p, const unsigned char *s, size_t len, unsigned int skip);

/* Adding. lpAppend/lpPrepend store canonical integer strings as integers.
 * The string may point into lp itself (it is copied first). All return NULL,
 * leaving lp as it was, only if the result would exceed 4 GB: callers keep
 * listpacks far below that with lpSafeToAdd(). */
unsigned char *lpAppend(unsigned char *lp, const unsigned char *s, size_t len);
unsigned char *lpPrepend(unsigned char *lp, const unsigned char *s, size_t len);
unsigned char *lpAppendInteger(unsigned char *lp, long long value);
unsigned char *lpPrependInteger(unsigned char *lp, long long value);
/* Inserts before or after p, or replaces p (LP_BEFORE/LP_AFTER/LP_REPLACE);
 * *newp (if not NULL) is set to the inserted/replaced entry. */
unsigned char *lpInsertString(unsigned char *lp, const unsigned char *s, size_t len, unsigned char *p, int where,
                              unsigned char **newp);
unsigned char *lpInsertInteger(unsigned char *lp, long long value, unsigned char *p, int where, unsigned char **newp);
/* Replace the entry at *p; *p is updated to the new entry. */
unsigned char *lpReplace(unsigned char *lp, unsigned char **p, const unsigned char *s, size_t len);
unsigned char *lpReplaceInteger(unsigned char *lp, unsigned char **p, long long value);

/* Deleting. lpDelete sets *newp to the entry that followed p (NULL if p was
 * the last). lpDeleteRange removes `count` entries from `index` (negative
 * from the tail); lpDeleteRangeWithEntry from *p, leaving *p at the entry
 * that followed (NULL if none did). */
unsigned char *lpDelete(unsigned char *lp, unsigned char *p, unsigned char **newp);
unsigned char *lpDeleteRange(unsigned char *lp, long index, unsigned long count);
unsigned char *lpDeleteRangeWithEntry(unsigned char *lp, unsigned char **p, unsigned long count);

/* Concatenates two listpacks (first's entries, then second's) into whichever
 * is larger: that one's pointer is updated, the other is freed and its
 * pointer set to NULL. Returns the merged one, or NULL (nothing changed) if
 * an argument is NULL or both are the same listpack. */
unsigned char *lpMerge(unsigned char **first, unsigned char **second);

/* Validation of an untrusted blob of `size` bytes: header, total bytes,
 * terminator, and -- when deep -- every entry's encoding, lengths and
 * backlen stay inside the blob and the entry count matches the header.
 * entry_cb (may be NULL) sees each entry and may reject it by returning 0.
 * Returns 1 if valid. Never reads outside [lp, lp+size). */
typedef int lpValidateEntryCB(unsigned char *p, unsigned int head_count, void *userdata);
int lpValidateIntegrity(unsigned char *lp, size_t size, int deep, lpValidateEntryCB *entry_cb, void *userdata);

/* 1 if growing the listpack by `add` bytes keeps it under the 1 GB safety
 * limit (past it, callers convert to their non-packed encoding). */
int lpSafeToAdd(const unsigned char *lp, size_t add);

#endif /* LISTPACK_H */
