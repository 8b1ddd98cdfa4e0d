/* rdb_legacy.h -- the RDB value types only Redis < 7 writes, loaded by
 * rdb_legacy.c and dispatched from rdb.c's type switch:
 *
 *   9  HASH_ZIPMAP      a zipmap blob (Redis < 2.6)
 *   10 LIST_ZIPLIST     a ziplist blob (Redis < 3.2)
 *   12 ZSET_ZIPLIST     a ziplist of member, score, member, score ...
 *   13 HASH_ZIPLIST     a ziplist of field, value, field, value ...
 *   14 LIST_QUICKLIST   a node count, then one ziplist blob per node
 *
 * rdb.c reads the blobs as RDB strings (so LZF-compressed ones work) and
 * hands them over; nothing here touches the file.
 */
#ifndef RDB_LEGACY_H
#define RDB_LEGACY_H

#include <stddef.h>

#define RDB_TYPE_HASH_ZIPMAP 9
#define RDB_TYPE_LIST_ZIPLIST 10
#define RDB_TYPE_ZSET_ZIPLIST 12
#define RDB_TYPE_HASH_ZIPLIST 13
#define RDB_TYPE_LIST_QUICKLIST 14

struct redisObject;

/* A new object from the blob of a type-9/10/12/13 value, built through the
 * types' own API (our encodings and *-max-listpack-* thresholds apply), or
 * NULL with *err set if the blob is corrupt or holds duplicates. */
struct redisObject *rdbLegacyLoadBlob(int rdbtype, const unsigned char *blob, size_t len, const char **err);

/* Appends the entries of one type-14 node (a ziplist) to `list`; 0 with
 * *err set if the node is corrupt. An empty node adds nothing. */
int rdbLegacyAppendZiplist(struct redisObject *list, const unsigned char *blob, size_t len, const char **err);

/* The name of an RDB value type this server does not load (module,
 * stream, hash with field TTLs ...), for the error message. */
const char *rdbUnsupportedTypeName(int rdbtype);

#endif /* RDB_LEGACY_H */
