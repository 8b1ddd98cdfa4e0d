/* rdb_legacy.c -- the compact blobs of the RDB value types of Redis before
 * 7.0 (see rdb_legacy.h): zipmap hashes, ziplist lists, hashes and sorted
 * sets, and the ziplist nodes of version-1 quicklists.
 *
 * Design decisions:
 * - Every blob is validated whole (ziplist.c / zipmap.c: encodings, sizes,
 *   prevlens, zltail, counts) before a single entry is handed out; the walk
 *   that follows re-checks as it goes, so nothing here can read outside a
 *   blob.
 * - Only decoding lives here: the entries go back to rdb.c through the same
 *   rdbBlobEntries source as a listpack's, and rdb.c builds the value with
 *   the types' API (so our encodings and thresholds apply) and refuses
 *   duplicates, odd pair counts and bad scores in one place for every
 *   format, naming the type and format in its message ("Hash ziplist integrity
 *   check failed (duplicate hash field)"), like Redis 7.
 * - Also here: the names of the types this server does not load, so the
 *   loader's error says which one it met.
 */
#include "server.h"
#include "rdb_legacy.h"

static int nextZiplistEntry(rdbBlobEntries *b, elemRef *e) {
    ziplistValue v;
    int r = ziplistIterNext(&b->u.zl, &v);
    if (r == 1) {
        e->s = v.s;
        e->len = v.len;
        e->ll = v.ll;
    }
    return r;
}

/* A zipmap's pairs as two entries each: the field, then (from the state)
 * its value. */
static int nextZipmapEntry(rdbBlobEntries *b, elemRef *e) {
    e->ll = 0;
    if (b->u.zm.value != NULL) {
        e->s = b->u.zm.value;
        e->len = b->u.zm.vlen;
        b->u.zm.value = NULL;
        return 1;
    }
    return zipmapIterNext(&b->u.zm.it, &e->s, &e->len, &b->u.zm.value, &b->u.zm.vlen);
}

int rdbLegacyOpenBlob(int rdbtype, const unsigned char *blob, size_t len, rdbBlobEntries *b) {
    if (rdbtype == RDB_TYPE_HASH_ZIPMAP) {
        b->format = "zipmap";
        b->next = nextZipmapEntry;
        b->u.zm.value = NULL;
        unsigned long pairs = 0; /* an empty zipmap is corrupt (no Redis wrote one), as Redis 7.0 has it */
        return zipmapValidateIntegrity(blob, len, &pairs) && pairs > 0 && zipmapIterInit(&b->u.zm.it, blob, len);
    }
    b->format = "ziplist";
    b->next = nextZiplistEntry;
    return ziplistValidateIntegrity(blob, len, NULL) && ziplistIterInit(&b->u.zl, blob, len);
}

const char *rdbUnsupportedTypeName(int rdbtype) {
    switch (rdbtype) {
    case 6: return "module (pre-GA)";
    case 7: return "module";
    case 15: return "stream (listpacks)";
    case 19: return "stream (listpacks, v2)";
    case 21: return "stream (listpacks, v3)";
    case 22: return "hash with field TTLs (pre-GA)";
    case 23: return "hash listpack with field TTLs (pre-GA)";
    case 24: return "hash with field TTLs";
    case 25: return "hash listpack with field TTLs";
    default: return "unknown";
    }
}
