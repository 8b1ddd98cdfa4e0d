/* object.h -- the value object (robj): its types, encodings and layout.
 *
 * Every value the server keeps or passes around is an robj: a 4-bit type, a
 * 4-bit encoding, the LRU/LFU clock, a reference count and a pointer to the
 * encoded payload (an sds, a listpack, an intset, a quicklist, a dict ...).
 *
 * Design decisions:
 *  - This header is part of the library layer (src/lib/): it only describes
 *    the object, so the keyspace's entry library (kvobj) can build objects
 *    without knowing the server. The functions that create, convert and
 *    free objects live in the server (object.c, declared in server.h).
 *  - The refcount gives 3 bits of its word to the layout flags of a
 *    keyspace entry (kvobj.h); they are zero on any other robj.
 */
#ifndef REDIS_OBJECT_H
#define REDIS_OBJECT_H

/* ---- types and encodings ------------------------------------------------- */
#define OBJ_STRING 0
#define OBJ_LIST 1
#define OBJ_SET 2
#define OBJ_ZSET 3
#define OBJ_HASH 4
#define OBJ_MODULE 5 /* a module's data type (module_api.c): ptr is a moduleValue */
#define OBJ_STREAM 6 /* MODULE and STREAM stay the highest: db.c (dbReplaceEntry) tests type >= OBJ_MODULE first */

#define OBJ_ENCODING_RAW 0
#define OBJ_ENCODING_INT 1
#define OBJ_ENCODING_HT 2
#define OBJ_ENCODING_INTSET 6
#define OBJ_ENCODING_SKIPLIST 7
#define OBJ_ENCODING_EMBSTR 8
#define OBJ_ENCODING_QUICKLIST 9
#define OBJ_ENCODING_STREAM 10
#define OBJ_ENCODING_LISTPACK 11

#define LRU_BITS 24
#define LRU_CLOCK_MAX ((1 << LRU_BITS) - 1)
#define LRU_CLOCK_RESOLUTION 1000 /* ms */
/* refcount is 29 bits: the other 3 of its word are the kvobj flags below. */
#define OBJ_REFCOUNT_BITS 29
#define OBJ_SHARED_REFCOUNT ((1 << OBJ_REFCOUNT_BITS) - 1)
#define OBJ_SHARED_INTEGERS 10000
#define OBJ_ENCODING_EMBSTR_SIZE_LIMIT 44

typedef struct redisObject {
    unsigned type : 4;
    unsigned encoding : 4;
    unsigned lru : LRU_BITS; /* LRU clock, or LFU data (8-bit counter + 16-bit minutes) */
    unsigned refcount : OBJ_REFCOUNT_BITS;
    /* Layout flags of a keyspace object (kvobj.h); zero on any other robj. */
    unsigned hasexpire : 1; /* the block has an expire slot */
    unsigned hasembkey : 1; /* the key is embedded in the block */
    unsigned hasembval : 1; /* the block has an embedded string value area */
    void *ptr;
} robj;

#endif
