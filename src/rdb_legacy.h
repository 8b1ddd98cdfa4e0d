/* rdb_legacy.h -- the RDB value types only Redis < 7 writes, decoded by
 * rdb_legacy.c for rdb.c's loader:
 *
 *   9  HASH_ZIPMAP      a zipmap blob (Redis < 2.6)
 *   10 LIST_ZIPLIST     a ziplist blob (Redis < 3.2)
 *   12 ZSET_ZIPLIST     a ziplist of member, score, member, score ...
 *   13 HASH_ZIPLIST     a ziplist of field, value, field, value ...
 *   14 LIST_QUICKLIST   a node count, then one ziplist blob per node
 *
 * and the entry source (rdbBlobEntries) through which rdb.c reads every
 * compact blob, old (ziplist, zipmap) or current (listpack, intset): rdb.c
 * reads the blob as an RDB string (so LZF-compressed ones work), has it
 * validated and opened -- here for the old formats -- and builds the value
 * from its entries the same way whatever the format. Nothing here touches
 * the file or builds objects.
 */
#ifndef RDB_LEGACY_H
#define RDB_LEGACY_H

#include <stddef.h>
#include <stdint.h>

#include "ziplist.h"
#include "zipmap.h"

#define RDB_TYPE_HASH_ZIPMAP 9
#define RDB_TYPE_LIST_ZIPLIST 10
#define RDB_TYPE_ZSET_ZIPLIST 12
#define RDB_TYPE_HASH_ZIPLIST 13
#define RDB_TYPE_LIST_QUICKLIST 14

struct elemRef;

/* The entries of one validated compact blob, in order; a pairs format gives
 * name, value, name, value ... (a zipmap's pairs too). next(): 1 with the
 * next entry in *e (pointing into the blob), 0 at the end, -1 if the walk
 * meets a corruption the validation let through. The union is the walk's
 * state, one member per format. */
typedef struct rdbBlobEntries {
    const char *format; /* "listpack", "intset", "ziplist", "zipmap": named in errors */
    int (*next)(struct rdbBlobEntries *b, struct elemRef *e);
    union {
        struct { unsigned char *lp, *p; } lp;                     /* rdb.c */
        struct { const unsigned char *blob; uint32_t pos; } is;   /* rdb.c */
        ziplistIter zl;
        struct {
            zipmapIter it;
            const unsigned char *value; /* the value of the pair whose field was handed out */
            size_t vlen;
        } zm;
    } u;
} rdbBlobEntries;

/* Validates the blob of a type-9/10/12/13 value or of a type-14 node and
 * opens its entries: 1, or 0 if it is corrupt. b->format is set either way. */
int rdbLegacyOpenBlob(int rdbtype, const unsigned char *blob, size_t len, rdbBlobEntries *b);

/* The name of an RDB value type this server does not load (module,
 * stream, hash with field TTLs ...), for the error message. */
const char *rdbUnsupportedTypeName(int rdbtype);

#endif /* RDB_LEGACY_H */
