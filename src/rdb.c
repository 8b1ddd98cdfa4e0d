/* rdb.c -- snapshots in Redis's RDB format: SAVE, BGSAVE, `save` rules,
 * loading at start-up (when the AOF is off) and DEBUG RELOAD.
 *
 * The file: "REDIS0010", AUX fields, per database SELECTDB + RESIZEDB and
 * its keys (optional EXPIRETIME_MS, a type byte, the key, the value), EOF,
 * and the CRC-64 (Jones) of everything before it, little-endian. Lengths
 * use RDB's 1/2/5/9-byte length encoding (big-endian where the format says
 * so), doubles are IEEE 754 little-endian; every multi-byte field goes
 * through portable.h, so a dump written on sparc64 loads on x86 and back.
 *
 * Design decisions:
 * - Version 10, and values written element by element in the types every
 *   Redis from 2.x to 7.x loads (STRING, LIST, SET, ZSET_2, HASH): Debian's
 *   Redis 7.0 loads our dumps, whatever our in-memory encodings are.
 * - Strings are written as Redis writes them: the canonical text of an
 *   integer that fits 32 bits as that integer, and (rdbcompression yes)
 *   strings over 20 bytes LZF-compressed when that saves 4 bytes or more.
 * - The writer and the reader also work in memory (fd -1): the writer keeps
 *   everything in its buffer (or only counts it, for DEBUG OBJECT), the
 *   reader consumes a caller's buffer. That
 *   is DUMP/RESTORE (dump.c) through rdbSerializeValue/rdbDeserializeValue,
 *   with exactly the file's encoder and validating decoder; the file path
 *   only gains a test of fd per 64 KB flush and per refill.
 * - Loading also takes Redis 7's compact types (HASH_LISTPACK, ZSET_LISTPACK,
 *   LIST_QUICKLIST_2, SET_INTSET, SET_LISTPACK) and LZF-compressed or
 *   integer-encoded strings, so Redis's dumps load here. Every blob is
 *   validated deeply before a single entry is read from it, then rebuilt
 *   through the types' own API (so our encodings and thresholds apply).
 *   The ziplist-era types (Redis < 7: zipmap, ziplist, quicklist v1) are
 *   validated and opened by rdb_legacy.c; one set of functions here turns
 *   the entries of any compact blob (old or new format) into the value.
 *   Streams (types 15, 19, 21) load with every node validated and kept
 *   as it is, and are written as type 19, as 7.0 writes them. Module
 *   values (type 7) are the loaded module's to write and read
 *   (moduleRdbSaveValue/moduleRdbLoadValue, module_api.c) through
 *   rdbModule*, the encoders and decoders of this file; a check walks them
 *   without the module. Hashes with field TTLs are refused with a message
 *   naming the type.
 * - Keys already expired at load time are skipped, as a Redis master does,
 *   except in an AOF's base (the incremental files after it were written
 *   against the keys as they were, and may make one persistent) and on a
 *   replica (replicaof set, or a cluster replica by nodes.conf): its
 *   primary sends the DEL when the key expires there, and until then the
 *   replica must hold what the primary holds (Redis 7.0's iAmMaster test;
 *   its cluster suite's 14-consistency-check counts the keys).
 * - Loading logs what Redis 7.0 logs (the producing version, the age and
 *   memory of the snapshot from its AUX fields, "Done loading RDB, keys
 *   loaded: N, keys expired: N.") and reports its position to loading.c
 *   between keys and at each buffer refill, which serves clients meanwhile.
 * - redis-check-rdb (rdb_check.c) is this loader, not a second parser:
 *   rdbCheckFd() runs the walk a load runs (readFile: header, body,
 *   checksum), with r->check set. Each key, read and validated exactly as a
 *   load would, is then counted and dropped instead of stored; AUX fields
 *   and SELECTDB are reported to the check instead of logged or applied,
 *   and doing() keeps the step under way (Redis's words) for its report.
 * - BGSAVE forks a child, or with persistence-mode forkless (or without
 *   fork()) hands the file to snapshot.c, which writes it key by key through
 *   rdbStream below while the server runs (a big collection in parts:
 *   rdbStreamKeyHead, then its elements) and, from its writer thread,
 *   renames it into place.
 * - Writes go through the persistence seam (persistio.h), so tests can make
 *   a snapshot fail, and a snapshot is written to a temporary file that is
 *   fsynced and renamed over the old one: a crash never leaves half a dump.
 */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "server.h"
#include "aof.h"
#include "persistio.h"
#include "crc64.h"
#include "intset.h"
#include "listpack.h"
#include "lzf.h"
#include "rdb_legacy.h"
#include "stream.h"
#include "snapshot.h"


#define RDB_TYPE_STRING 0
#define RDB_TYPE_LIST 1
#define RDB_TYPE_SET 2
#define RDB_TYPE_ZSET 3
#define RDB_TYPE_HASH 4
#define RDB_TYPE_MODULE_2 7 /* a module type's value: its 64-bit type id, the module's fields, EOF */
#define RDB_TYPE_ZSET_2 5
#define RDB_TYPE_SET_INTSET 11
#define RDB_TYPE_STREAM_LISTPACKS 15
#define RDB_TYPE_HASH_LISTPACK 16
#define RDB_TYPE_ZSET_LISTPACK 17
#define RDB_TYPE_LIST_QUICKLIST_2 18
#define RDB_TYPE_STREAM_LISTPACKS_2 19
#define RDB_TYPE_SET_LISTPACK 20
#define RDB_TYPE_STREAM_LISTPACKS_3 21

#define RDB_OPCODE_SLOT_INFO 244
#define RDB_OPCODE_FUNCTION2 245
#define RDB_OPCODE_FUNCTION_PRE_GA 246 /* Redis 7.0's release candidates */
#define RDB_OPCODE_MODULE_AUX 247
/* Module aux data's triggers, as REDISMODULE_AUX_BEFORE_RDB / _AFTER_RDB. */
#define MODULE_AUX_BEFORE_KEYS 1
#define MODULE_AUX_AFTER_KEYS 2
#define RDB_OPCODE_IDLE 248
#define RDB_OPCODE_FREQ 249
#define RDB_OPCODE_AUX 250
#define RDB_OPCODE_RESIZEDB 251
#define RDB_OPCODE_EXPIRETIME_MS 252
#define RDB_OPCODE_EXPIRETIME 253
#define RDB_OPCODE_SELECTDB 254
#define RDB_OPCODE_EOF 255

#define RDB_ENC_INT8 0
#define RDB_ENC_INT16 1
#define RDB_ENC_INT32 2
#define RDB_ENC_LZF 3

#define QUICKLIST_NODE_PLAIN 1
#define QUICKLIST_NODE_PACKED 2

/* ==== writing ================================================================================ */

#define RDB_WRITER_MEMORY -1 /* fd value: the whole output stays in buf */
#define RDB_WRITER_COUNT -2  /* fd value: output is only counted, 64 KB at a time */

typedef struct rdbWriter {
    int fd;                /* a file, or RDB_WRITER_MEMORY / RDB_WRITER_COUNT */
    sds buf;
    size_t counted;        /* RDB_WRITER_COUNT: bytes flushed so far */
    uint64_t crc;
    int failed;
    int incremental_fsync; /* fsync every 4 MB (rdb-save- or aof-rewrite-incremental-fsync) */
    size_t since_fsync;
    unsigned char *lzf;    /* scratch for LZF output, reused from string to string */
    size_t lzf_cap;
} rdbWriter;

static void writerFlush(rdbWriter *w) {
    size_t len = sdslen(w->buf);
    if (w->fd == RDB_WRITER_COUNT) {
        w->counted += len;
        sdsclear(w->buf);
        return;
    }
    w->crc = crc64(w->crc, (const unsigned char *)w->buf, len);
    if (!w->failed && len && persistWriteFully(w->fd, w->buf, len, NULL) != (ssize_t)len) w->failed = 1;
    if (!w->failed && persistIncrementalFsync(w->fd, &w->since_fsync, len, w->incremental_fsync) == -1) w->failed = 1;
    sdsclear(w->buf);
}

static void putBytes(rdbWriter *w, const void *p, size_t len) {
    w->buf = sdscatlen(w->buf, p, len);
    if (w->fd != RDB_WRITER_MEMORY && sdslen(w->buf) >= 64 * 1024) writerFlush(w);
}

static void putByte(rdbWriter *w, unsigned char b) { putBytes(w, &b, 1); }

static void putLen(rdbWriter *w, uint64_t len) {
    unsigned char b[9];
    if (len < (1 << 6)) {
        putByte(w, (unsigned char)len);
    } else if (len < (1 << 14)) {
        b[0] = (unsigned char)(0x40 | (len >> 8));
        b[1] = (unsigned char)(len & 0xFF);
        putBytes(w, b, 2);
    } else if (len <= UINT32_MAX) {
        b[0] = 0x80;
        store32be(b + 1, (uint32_t)len);
        putBytes(w, b, 5);
    } else {
        b[0] = 0x81;
        store64be(b + 1, len);
        putBytes(w, b, 9);
    }
}

/* v in one of the string encodings 0xC0 (int8), 0xC1 (int16), 0xC2
 * (int32), little-endian; 0 if it doesn't fit 32 bits. */
static int putIntEncoded(rdbWriter *w, long long v) {
    unsigned char b[5];
    size_t n;
    if (v >= INT8_MIN && v <= INT8_MAX) {
        b[1] = (unsigned char)(v & 0xFF);
        n = 2;
    } else if (v >= INT16_MIN && v <= INT16_MAX) {
        store16le(b + 1, (uint16_t)(v & 0xFFFF));
        n = 3;
    } else if (v >= INT32_MIN && v <= INT32_MAX) {
        store32le(b + 1, (uint32_t)(v & 0xFFFFFFFF));
        n = 5;
    } else {
        return 0;
    }
    b[0] = (unsigned char)(0xC0 | (n == 2 ? RDB_ENC_INT8 : n == 3 ? RDB_ENC_INT16 : RDB_ENC_INT32));
    putBytes(w, b, n);
    return 1;
}

/* A string that is the canonical text of a small integer (what string2ll
 * accepts and ll2string gives back) is stored as that integer. */
static int putIfInteger(rdbWriter *w, const char *p, size_t len) {
    long long v;
    char canon[LONG_STR_SIZE];
    if (len == 0 || len > 11 || !string2ll(p, len, &v)) return 0;
    if ((size_t)ll2string(canon, sizeof canon, v) != len || memcmp(canon, p, len) != 0) return 0;
    return putIntEncoded(w, v);
}

/* 0xC3, compressed length, original length, LZF block -- only when that
 * saves at least 4 bytes (less isn't worth the decompression). */
static int putLzf(rdbWriter *w, const void *p, size_t len) {
    size_t cap = len - 4;
    if (cap > w->lzf_cap) {
        w->lzf = zrealloc(w->lzf, cap);
        w->lzf_cap = cap;
    }
    size_t clen = lzfCompress(p, len, w->lzf, cap);
    if (clen == 0) return 0;
    putByte(w, 0xC0 | RDB_ENC_LZF);
    putLen(w, clen);
    putLen(w, len);
    putBytes(w, w->lzf, clen);
    return 1;
}

/* Every string of the stream (keys, values, elements, AUX fields) goes
 * through here: integer encoding always, LZF when rdbcompression is on and
 * the string is long enough to gain (shorter than 21 bytes never does). */
static void putString(rdbWriter *w, const void *p, size_t len) {
    if (len <= 11 && putIfInteger(w, p, len)) return;
    if (len > 20 && server.rdb_compression && putLzf(w, p, len)) return;
    putLen(w, len);
    putBytes(w, p, len);
}

/* A module type's fields (module_api.c's RedisModuleIO), written with the
 * encoders every other value uses. */
void rdbModulePutLen(void *writer, uint64_t len) { putLen(writer, len); }
void rdbModulePutString(void *writer, const char *p, size_t len) { putString(writer, p, len); }
void rdbModulePutBytes(void *writer, const void *p, size_t len) { putBytes(writer, p, len); }

static void putInteger(rdbWriter *w, long long v) {
    if (putIntEncoded(w, v)) return;
    char num[LONG_STR_SIZE];
    int n = ll2string(num, sizeof num, v);
    putLen(w, (size_t)n);
    putBytes(w, num, (size_t)n);
}

static void putElem(rdbWriter *w, const elemRef *e) {
    if (e->s) putString(w, e->s, e->len);
    else putInteger(w, e->ll);
}

static void putObjectString(rdbWriter *w, robj *o) {
    if (o->encoding == OBJ_ENCODING_INT) putInteger(w, (long long)(intptr_t)o->ptr);
    else putString(w, o->ptr, sdslen(o->ptr));
}

static void putAux(rdbWriter *w, const char *key, const char *value) {
    putByte(w, RDB_OPCODE_AUX);
    putString(w, key, strlen(key));
    putString(w, value, strlen(value));
}

static int saveElem(void *ud, const elemRef *e) {
    putElem(ud, e);
    return 0;
}

static int savePair(void *ud, const elemRef *field, const elemRef *value) {
    putElem(ud, field);
    putElem(ud, value);
    return 0;
}

static int saveScored(void *ud, const elemRef *member, double score) {
    unsigned char bin[8];
    uint64_t bits;
    memcpy(&bits, &score, sizeof bits);
    store64le(bin, bits);
    putElem(ud, member);
    putBytes(ud, bin, 8);
    return 0;
}

static void saveType(rdbWriter *w, robj *o) {
    switch (o->type) {
    case OBJ_STRING: putByte(w, RDB_TYPE_STRING); break;
    case OBJ_LIST: putByte(w, RDB_TYPE_LIST); break;
    case OBJ_SET: putByte(w, RDB_TYPE_SET); break;
    case OBJ_ZSET: putByte(w, RDB_TYPE_ZSET_2); break;
    case OBJ_HASH: putByte(w, RDB_TYPE_HASH); break;
    case OBJ_STREAM: putByte(w, RDB_TYPE_STREAM_LISTPACKS_2); break;
    case OBJ_MODULE: putByte(w, RDB_TYPE_MODULE_2); break;
    default: serverPanic("Unknown object type %d in RDB save", o->type);
    }
}

static void saveStream(rdbWriter *w, stream *s);

/* The key saveKey is writing and its database, for a module's
 * GetKeyNameFromIO and GetDbIdFromIO; NULL and -1 for DUMP and DEBUG
 * OBJECT, which serialize a value alone. */
static sds saving_key;
static int saving_dbid = -1;

/* The value after its type byte (and, in a file, after the key). */
static void saveValue(rdbWriter *w, robj *o) {
    switch (o->type) {
    case OBJ_STRING: putObjectString(w, o); break;
    case OBJ_LIST:
        putLen(w, listTypeLength(o));
        listTypeForEach(o, saveElem, w);
        break;
    case OBJ_SET:
        putLen(w, setTypeSize(o));
        setTypeForEach(o, saveElem, w);
        break;
    case OBJ_ZSET:
        putLen(w, zsetLength(o));
        zsetTypeForEach(o, 0, saveScored, w);
        break;
    case OBJ_HASH:
        putLen(w, hashTypeLength(o));
        hashTypeForEach(o, savePair, w);
        break;
    case OBJ_STREAM: saveStream(w, o->ptr); break;
    case OBJ_MODULE: moduleRdbSaveValue(w, saving_key, o, saving_dbid); break;
    }
}

/* What a replica's REPLCONF rdb-filter-only leaves out of the snapshot
 * (redis-cli --functions-rdb: the functions only; --replica: neither).
 * Set only in the replication child that writes that replica's snapshot,
 * so nothing else the process saves is filtered. */
static int saveSkipData, saveSkipFunctions;

void rdbSetSaveFilter(int skip_data, int skip_functions) {
    saveSkipData = skip_data;
    saveSkipFunctions = skip_functions;
}

/* Each library's code as RDB_OPCODE_FUNCTION2 + a string, before the keys. */
static void saveFunctions(rdbWriter *w) {
    sds lib = functionsSerialize();
    putBytes(w, lib, sdslen(lib));
    sdsfree(lib);
}

static void saveKey(rdbWriter *w, kvobj *o, int dbid) {
    long long when = kvobjGetExpire(o);
    if (when != -1) {
        unsigned char ms[8];
        store64le(ms, (uint64_t)when);
        putByte(w, RDB_OPCODE_EXPIRETIME_MS);
        putBytes(w, ms, 8);
    }
    saveType(w, o);
    sds key = kvobjGetKey(o);
    putString(w, key, sdslen(key));
    saving_key = key;
    saving_dbid = dbid;
    saveValue(w, o);
    saving_key = NULL;
    saving_dbid = -1;
}

static void saveDb(rdbWriter *w, redisDb *db) {
    if (kvtableSize(db->keys) == 0) return;
    putByte(w, RDB_OPCODE_SELECTDB);
    putLen(w, (uint64_t)db->id);
    putByte(w, RDB_OPCODE_RESIZEDB);
    putLen(w, kvtableSize(db->keys));
    putLen(w, dictSize(db->expires));
    kvtableIterator *it = kvtableGetIterator(db->keys);
    kvobj *o;
    while ((o = kvtableNext(it)) != NULL && !w->failed) {
        saveKey(w, o, db->id);
        keySaveDelay();
        childInfoKeySaved();
    }
    kvtableReleaseIterator(it);
}

/* The whole dataset as an RDB stream on fd (also the preamble of a
 * rewritten AOF base: aof_base 1 marks it so in its AUX fields, and the
 * rewrite's incremental-fsync setting applies instead of the snapshot's). */
static void putHeader(rdbWriter *w, int aof_base) {
    char num[LONG_STR_SIZE];
    putBytes(w, "REDIS0010", 9);
    putAux(w, "redis-ver", REDIS_VERSION);
    putAux(w, "redis-bits", sizeof(void *) == 8 ? "64" : "32");
    ll2string(num, sizeof num, (long long)time(NULL));
    putAux(w, "ctime", num);
    ll2string(num, sizeof num, (long long)zmalloc_used_memory());
    putAux(w, "used-mem", num);
    if (replicationStreamActive) { /* restart-resync: the history this snapshot ends (replication.c) */
        putAux(w, "repl-stream-db", "0");
        putAux(w, "repl-id", replicationReplId());
        ll2string(num, sizeof num, replicationOffset());
        putAux(w, "repl-offset", num);
    }
    putAux(w, "aof-base", aof_base ? "1" : "0");
    if (!saveSkipData) moduleRdbSaveAux(w, MODULE_AUX_BEFORE_KEYS, RDB_OPCODE_MODULE_AUX);
    if (!saveSkipFunctions) saveFunctions(w);
}

/* EOF, then the checksum of everything before it; frees the writer's buffers. */
static int putTrailer(rdbWriter *w) {
    if (!saveSkipData) moduleRdbSaveAux(w, MODULE_AUX_AFTER_KEYS, RDB_OPCODE_MODULE_AUX);
    putByte(w, RDB_OPCODE_EOF);
    writerFlush(w);
    unsigned char sum[8];
    store64le(sum, server.rdb_checksum ? w->crc : 0);
    w->buf = sdscatlen(w->buf, sum, 8);
    writerFlush(w);
    sdsfree(w->buf);
    zfree(w->lzf);
    return w->failed ? C_ERR : C_OK;
}

int rdbSaveToFd(int fd, int aof_base) {
    rdbWriter w = {.fd = fd, .buf = sdsempty()};
    w.incremental_fsync = aof_base ? server.aof_rewrite_incremental_fsync : server.rdb_save_incremental_fsync;
    putHeader(&w, aof_base);
    for (int j = 0; j < server.dbnum && !w.failed && !saveSkipData; j++) saveDb(&w, &server.db[j]);
    return putTrailer(&w);
}

/* ---- the same file written key by key (snapshot.c: the forkless BGSAVE) ---- */

/* Keys come in any order of databases: a SELECTDB precedes each change of
 * database (no RESIZEDB: it is only a hint). The stream writes nothing
 * itself: the caller takes the bytes (a background thread writes them), and
 * the checksum covers them as they are taken. */
typedef struct rdbStream {
    rdbWriter w;
    int dbid;      /* the database of the last key written; -1 at first */
    int in_part;   /* a key written in parts is open (rdbStreamKeyHead) */
    sds later;     /* keys written meanwhile: they follow it in the file */
    int later_dbid;
} rdbStream;

static void *rdbStreamOpen(int aof_base) {
    rdbStream *s = zcalloc(sizeof(*s));
    s->w.fd = RDB_WRITER_MEMORY;
    s->w.buf = sdsempty();
    s->dbid = -1;
    s->later = sdsempty();
    putHeader(&s->w, aof_base);
    return s;
}

static void streamSelect(rdbStream *s, int dbid) {
    if (dbid == s->dbid) return;
    putByte(&s->w, RDB_OPCODE_SELECTDB);
    putLen(&s->w, (uint64_t)dbid);
    s->dbid = dbid;
}

static void rdbStreamKey(void *w, int dbid, kvobj *o) {
    rdbStream *s = w;
    if (!s->in_part) {
        streamSelect(s, dbid);
        saveKey(&s->w, o, dbid);
        return;
    }
    sds part = s->w.buf; /* the open key's bytes stay where they are */
    int part_dbid = s->dbid;
    s->w.buf = s->later;
    s->dbid = s->later_dbid;
    streamSelect(s, dbid);
    saveKey(&s->w, o, dbid);
    s->later = s->w.buf, s->later_dbid = s->dbid;
    s->w.buf = part, s->dbid = part_dbid;
}

/* A collection in parts (snapshot.c, for a value too big for one slice):
 * the head is what saveKey writes before the first element -- expire,
 * type, key, element count -- and the elements follow, each as saveValue
 * writes it (a hash's field and value are two elements). The caller writes
 * exactly the count of elements, with no other key in between. */
static void rdbStreamKeyHead(void *w, int dbid, kvobj *o) {
    rdbStream *s = w;
    streamSelect(s, dbid);
    s->in_part = 1;
    s->later_dbid = dbid;
    long long when = kvobjGetExpire(o);
    if (when != -1) {
        unsigned char ms[8];
        store64le(ms, (uint64_t)when);
        putByte(&s->w, RDB_OPCODE_EXPIRETIME_MS);
        putBytes(&s->w, ms, 8);
    }
    saveType(&s->w, o);
    sds key = kvobjGetKey(o);
    putString(&s->w, key, sdslen(key));
    switch (o->type) {
    case OBJ_LIST: putLen(&s->w, listTypeLength(o)); break;
    case OBJ_SET: putLen(&s->w, setTypeSize(o)); break;
    case OBJ_ZSET: putLen(&s->w, zsetLength(o)); break;
    case OBJ_HASH: putLen(&s->w, hashTypeLength(o)); break;
    default: serverPanic("rdbStreamKeyHead: type %d is not written in parts", o->type);
    }
}

static void rdbStreamElem(void *w, const elemRef *e) { putElem(&((rdbStream *)w)->w, e); }

static void rdbStreamScored(void *w, const elemRef *member, double score) {
    saveScored(&((rdbStream *)w)->w, member, score);
}

/* The key in parts is complete: the keys written meanwhile follow. */
static void rdbStreamKeyEnd(void *w) {
    rdbStream *s = w;
    s->in_part = 0;
    if (sdslen(s->later) == 0) return;
    s->w.buf = sdscatsds(s->w.buf, s->later);
    sdsclear(s->later);
    s->dbid = s->later_dbid;
}

static size_t rdbStreamBuffered(const void *w) {
    const rdbStream *s = w;
    return sdslen(s->w.buf) + sdslen(s->later);
}

static sds rdbStreamTake(void *w) {
    rdbStream *s = w;
    sds out = s->w.buf;
    s->w.crc = crc64(s->w.crc, (const unsigned char *)out, sdslen(out));
    s->w.buf = sdsempty();
    return out;
}

/* EOF and the checksum: the last bytes of the file. Frees s. */
static void rdbStreamDiscard(void *w);

static sds rdbStreamFinish(void *w) {
    rdbStream *s = w;
    moduleRdbSaveAux(&s->w, MODULE_AUX_AFTER_KEYS, RDB_OPCODE_MODULE_AUX);
    putByte(&s->w, RDB_OPCODE_EOF);
    sds out = rdbStreamTake(s);
    unsigned char sum[8];
    store64le(sum, server.rdb_checksum ? s->w.crc : 0);
    out = sdscatlen(out, sum, 8);
    rdbStreamDiscard(s);
    return out;
}

static void rdbStreamDiscard(void *w) {
    rdbStream *s = w;
    sdsfree(s->w.buf);
    sdsfree(s->later);
    zfree(s->w.lzf);
    zfree(s);
}

/* The fork-less snapshot's RDB format (snapshot.h): these functions. */
const snapshotFormat snapshotRdbFormat = {
    .open = rdbStreamOpen,
    .key = rdbStreamKey,
    .buffered = rdbStreamBuffered,
    .take = rdbStreamTake,
    .finish = rdbStreamFinish,
    .discard = rdbStreamDiscard,
    .keyHead = rdbStreamKeyHead,
    .elem = rdbStreamElem,
    .scored = rdbStreamScored,
    .keyEnd = rdbStreamKeyEnd,
};

/* One value in memory: its type byte and its body, no key (DUMP's payload
 * before the version and the checksum). */
sds rdbSerializeValue(robj *o) {
    rdbWriter w = {.fd = RDB_WRITER_MEMORY, .buf = sdsempty()};
    saveType(&w, o);
    saveValue(&w, o);
    zfree(w.lzf);
    return w.buf;
}

/* A module type's fields alone, in memory (SaveDataTypeToString): save()
 * writes them through rdbModulePut* on the writer it is given. */
sds rdbModuleSaveToString(void (*save)(void *writer, void *ud), void *ud) {
    rdbWriter w = {.fd = RDB_WRITER_MEMORY, .buf = sdsempty()};
    save(&w, ud);
    zfree(w.lzf);
    return w.buf;
}

/* One string as the stream writes it (FUNCTION DUMP's library code). */
sds rdbEncodeString(const char *p, size_t len) {
    rdbWriter w = {.fd = RDB_WRITER_MEMORY, .buf = sdsempty()};
    putString(&w, p, len);
    zfree(w.lzf);
    return w.buf;
}

/* What the value takes in a snapshot, without type and key (DEBUG OBJECT's
 * serializedlength), counted without keeping the bytes. */
size_t rdbSerializedValueLength(robj *o) {
    rdbWriter w = {.fd = RDB_WRITER_COUNT, .buf = sdsempty()};
    saveValue(&w, o);
    writerFlush(&w);
    sdsfree(w.buf);
    zfree(w.lzf);
    return w.counted;
}

/* Writes the dataset to `filename` atomically. */
static int rdbSave(const char *filename) {
    char tmp[256];
    snprintf(tmp, sizeof tmp, "temp-%d.rdb", (int)getpid());
    int fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Failed opening the temp RDB file %s (in server root dir %s) for saving: %s", tmp,
                  server.dir ? server.dir : ".", strerror(errno));
        return C_ERR;
    }
    moduleFirePersistence(0, 0, 0);
    int ok = rdbSaveToFd(fd, 0) == C_OK && persistio.fsync(fd) == 0;
    int err = errno;
    close(fd);
    if (ok && persistio.rename(tmp, filename) == -1) {
        err = errno;
        ok = 0;
    }
    moduleFirePersistence(0, 1, ok);
    if (!ok) {
        serverLog(LL_WARNING, "Write error saving DB on disk: %s", strerror(err));
        unlink(tmp);
        return C_ERR;
    }
    persistFsyncDir(".");
    return C_OK;
}

/* ==== loading ================================================================================ */

#define RDB_READER_STREAM (-2) /* fd of a reader fed by a callback (rdbLoadStream) */

typedef struct rdbReader {
    int fd;                   /* -1: memory mode, buf[0..len) is all the input; RDB_READER_STREAM */
    rdbStreamReadFn *stream;  /* RDB_READER_STREAM: where the bytes come from */
    void *stream_ctx;
    const unsigned char *buf;
    unsigned char *chunk;     /* file mode: what reads fill (buf points here) */
    size_t len, pos;
    uint64_t crc;       /* over every byte consumed */
    off_t consumed;
    int version;
    const char *error;  /* the first problem found */
    int aof_base;       /* the base of an AOF: expired keys are kept (the AOF's commands may need them) */
    rdbCheck *check;    /* redis-check-rdb: keys go to it, not to the dataset; NULL for a load */
    long long keys_loaded, keys_expired, empty_skipped;
} rdbReader;

static off_t readerOffset(const rdbReader *r) { return r->consumed + (off_t)r->pos; }

/* What a check reports as the step that failed (Redis's words). */
static void doing(rdbReader *r, const char *what) {
    if (r->check) r->check->doing = what;
}

#define RDB_READ_CHUNK (256 * 1024)

static int readerRefill(rdbReader *r) {
    if (r->fd == -1) return 0;
    r->crc = crc64(r->crc, r->buf, r->pos); /* account for what was consumed */
    r->consumed += (off_t)r->pos;
    if (!r->check) loadingProgress(r->consumed); /* inside a big value too: it is not in the dataset yet */
    memmove(r->chunk, r->chunk + r->pos, r->len - r->pos);
    r->len -= r->pos;
    r->pos = 0;
    ssize_t n;
    if (r->stream) n = r->stream(r->stream_ctx, r->chunk + r->len, RDB_READ_CHUNK - r->len);
    else do n = read(r->fd, r->chunk + r->len, RDB_READ_CHUNK - r->len);
        while (n == -1 && errno == EINTR);
    if (n <= 0) return 0;
    r->len += (size_t)n;
    return 1;
}

static int getBytes(rdbReader *r, void *dst, size_t n) {
    unsigned char *out = dst;
    while (n) {
        if (r->pos == r->len && !readerRefill(r)) {
            r->error = "Unexpected EOF reading RDB file";
            return 0;
        }
        size_t take = r->len - r->pos < n ? r->len - r->pos : n;
        memcpy(out, r->buf + r->pos, take);
        r->pos += take;
        out += take;
        n -= take;
    }
    return 1;
}

/* Whether n more bytes may follow: in memory mode the answer is exact, so
 * a corrupt length fails before anything is allocated for it. */
static int mayHave(rdbReader *r, uint64_t n) {
    if (r->fd != -1 || n <= r->len - r->pos) return 1;
    r->error = "Unexpected end of the serialized value";
    return 0;
}

static int getByte(rdbReader *r, int *b) {
    unsigned char c;
    if (!getBytes(r, &c, 1)) return 0;
    *b = c;
    return 1;
}

/* A length, or (is_encoded) a special string encoding in *len. */
static int getLen(rdbReader *r, uint64_t *len, int *is_encoded) {
    unsigned char b[8];
    int first;
    if (is_encoded) *is_encoded = 0;
    if (!getByte(r, &first)) return 0;
    switch (first >> 6) {
    case 0: *len = (uint64_t)(first & 0x3F); return 1;
    case 1:
        if (!getBytes(r, b, 1)) return 0;
        *len = ((uint64_t)(first & 0x3F) << 8) | b[0];
        return 1;
    case 3:
        if (!is_encoded) break;
        *is_encoded = 1;
        *len = (uint64_t)(first & 0x3F);
        return 1;
    default:
        if (first == 0x80 && getBytes(r, b, 4)) { *len = load32be(b); return 1; }
        if (first == 0x81 && getBytes(r, b, 8)) { *len = load64be(b); return 1; }
        if (r->error) return 0;
    }
    r->error = "Invalid length encoding";
    return 0;
}

static sds getLzfString(rdbReader *r) {
    uint64_t clen, len;
    if (!getLen(r, &clen, NULL) || !getLen(r, &len, NULL)) return NULL;
    /* An LZF chunk of 3 bytes expands to 264 at most: more is corrupt. */
    if (clen > (uint64_t)server.proto_max_bulk_len || len > (uint64_t)server.proto_max_bulk_len || len == 0 ||
        len / 88 > clen) {
        r->error = "Invalid LZF string lengths";
        return NULL;
    }
    if (!mayHave(r, clen)) return NULL;
    unsigned char *in = zmalloc((size_t)clen);
    sds out = sdsnewlen(NULL, (size_t)len);
    int ok = getBytes(r, in, (size_t)clen) &&
             lzfDecompress(in, (size_t)clen, (unsigned char *)out, (size_t)len) == (size_t)len;
    zfree(in);
    if (!ok) {
        if (!r->error) r->error = "Invalid LZF compressed string";
        sdsfree(out);
        return NULL;
    }
    return out;
}

static sds getIntString(rdbReader *r, int enc) {
    unsigned char b[4];
    long long v;
    if (enc == RDB_ENC_INT8 && getBytes(r, b, 1)) v = (int8_t)b[0];
    else if (enc == RDB_ENC_INT16 && getBytes(r, b, 2)) v = (int16_t)load16le(b);
    else if (enc == RDB_ENC_INT32 && getBytes(r, b, 4)) v = (int32_t)load32le(b);
    else {
        if (!r->error) r->error = "Unknown RDB string encoding";
        return NULL;
    }
    return sdsfromlonglong(v);
}

static sds getString(rdbReader *r) {
    uint64_t len;
    int encoded;
    if (!getLen(r, &len, &encoded)) return NULL;
    if (encoded) return len == RDB_ENC_LZF ? getLzfString(r) : getIntString(r, (int)len);
    if (len > (uint64_t)server.proto_max_bulk_len) {
        r->error = "String too long";
        return NULL;
    }
    if (!mayHave(r, len)) return NULL;
    sds s = sdsnewlen(NULL, (size_t)len);
    if (!getBytes(r, s, (size_t)len)) {
        sdsfree(s);
        return NULL;
    }
    return s;
}

/* A module type's fields, read back (module_api.c). A failure leaves the
 * reader's error set; the module notices through its IO's error flag. */
int rdbModuleGetLen(void *reader, uint64_t *len) { return getLen(reader, len, NULL); }
sds rdbModuleGetString(void *reader) { return getString(reader); }
int rdbModuleGetBytes(void *reader, void *p, size_t len) { return mayHave(reader, len) && getBytes(reader, p, len); }
void rdbModuleSetError(void *reader, const char *msg) {
    rdbReader *r = reader;
    if (r->error == NULL) r->error = msg;
}
int rdbModuleChecking(void *reader) { return ((rdbReader *)reader)->check != NULL; }

static int getBinaryDouble(rdbReader *r, double *out) {
    unsigned char b[8];
    if (!getBytes(r, b, 8)) return 0;
    uint64_t bits = load64le(b);
    memcpy(out, &bits, sizeof bits);
    return 1;
}

/* ZSET (type 3): a length byte, then the text; 253 nan, 254 inf, 255 -inf. */
static int getTextDouble(rdbReader *r, double *out) {
    int len;
    char text[256];
    if (!getByte(r, &len)) return 0;
    if (len == 253) *out = NAN;
    else if (len == 254) *out = INFINITY;
    else if (len == 255) *out = -INFINITY;
    else {
        if (!getBytes(r, text, (size_t)len)) return 0;
        text[len] = '\0';
        char *end;
        *out = strtod(text, &end);
        if (end != text + len) {
            r->error = "Invalid double in a ZSET";
            return 0;
        }
    }
    return 1;
}

/* ---- values of each type ---------------------------------------------------------------------- */

static robj *loadList(rdbReader *r) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return NULL;
    robj *o = createListObject();
    for (uint64_t j = 0; j < n; j++) {
        sds e = getString(r);
        if (e == NULL) return decrRefCount(o), NULL;
        robj *eo = createObject(OBJ_STRING, e);
        listTypePush(o, eo, LIST_TAIL);
        decrRefCount(eo);
    }
    return o;
}

static robj *loadSet(rdbReader *r) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return NULL;
    robj *o = createSetObject();
    for (uint64_t j = 0; j < n; j++) {
        sds e = getString(r);
        if (e == NULL) return decrRefCount(o), NULL;
        int added = setTypeAddCBuffer(o, e, sdslen(e));
        sdsfree(e);
        if (!added) {
            r->error = "Duplicate set member";
            return decrRefCount(o), NULL;
        }
    }
    return o;
}

static robj *loadZset(rdbReader *r, int binary_scores) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return NULL;
    robj *o = createZsetObject();
    for (uint64_t j = 0; j < n; j++) {
        sds m = getString(r);
        double score;
        int ok = m && (binary_scores ? getBinaryDouble(r, &score) : getTextDouble(r, &score));
        if (ok && isnan(score)) {
            r->error = "Zset with NAN score";
            ok = 0;
        }
        if (ok && !zsetAddCBuffer(o, score, m, sdslen(m))) {
            r->error = "Duplicate zset member";
            ok = 0;
        }
        sdsfree(m);
        if (!ok) return decrRefCount(o), NULL;
    }
    return o;
}

static robj *loadHash(rdbReader *r) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return NULL;
    robj *o = createHashObject();
    for (uint64_t j = 0; j < n; j++) {
        sds f = getString(r), v = f ? getString(r) : NULL;
        int ok = v && hashTypeSetFromSds(o, f, v);
        if (v && !ok) r->error = "Duplicate hash field";
        sdsfree(f);
        sdsfree(v);
        if (!ok) return decrRefCount(o), NULL;
    }
    return o;
}

/* ---- compact blobs ---------------------------------------------------------------------------------
 * Listpacks and intsets (Redis 7), ziplists and zipmaps (older, opened by
 * rdb_legacy.c): each blob is validated whole, then its entries, whatever
 * the format, are added to the value through the types' API by one set of
 * functions, which refuse duplicates, odd pair counts and bad scores with a
 * message naming the format. */

static int nextListpackEntry(rdbBlobEntries *b, elemRef *e) {
    unsigned char *p = b->u.lp.p;
    if (p == NULL) return 0;
    size_t len;
    long long ll;
    const unsigned char *s = lpGetValue(p, &len, &ll);
    e->s = s;
    e->len = s ? len : 0;
    e->ll = ll;
    b->u.lp.p = lpNext(b->u.lp.lp, p);
    return 1;
}

static int nextIntsetEntry(rdbBlobEntries *b, elemRef *e) {
    int64_t v;
    const intset *is = (const intset *)(const void *)b->u.is.blob;
    if (!intsetGet(is, b->u.is.pos, &v)) return 0;
    b->u.is.pos++;
    e->s = NULL;
    e->len = 0;
    e->ll = v;
    return 1;
}

/* Validates the blob of compact type `rdbtype` and opens its entries: 1, or
 * 0 if it is corrupt (b->format is set either way). */
static int openBlob(int rdbtype, sds blob, rdbBlobEntries *b) {
    unsigned char *p = (unsigned char *)blob;
    switch (rdbtype) {
    case RDB_TYPE_SET_INTSET:
        b->format = "intset";
        b->next = nextIntsetEntry;
        b->u.is.blob = p;
        b->u.is.pos = 0;
        return intsetValidateIntegrity(p, sdslen(blob), 1);
    case RDB_TYPE_HASH_LISTPACK:
    case RDB_TYPE_ZSET_LISTPACK:
    case RDB_TYPE_SET_LISTPACK:
    case RDB_TYPE_LIST_QUICKLIST_2:
        b->format = "listpack";
        b->next = nextListpackEntry;
        b->u.lp.lp = p;
        if (!lpValidateIntegrity(p, sdslen(blob), 1, NULL, NULL)) return 0;
        b->u.lp.p = lpFirst(p);
        return 1;
    default: return rdbLegacyOpenBlob(rdbtype, p, sdslen(blob), b);
    }
}

/* The messages of this section are Redis 7.0's: the value's type and its
 * format ("Zset ziplist integrity check failed", "Hash listpack integrity
 * check failed"), which operators and Redis's tests look for in the log;
 * a problem found inside a sane blob is added ("Hash ziplist integrity
 * check failed (duplicate hash field)"). `what` is the type, or the
 * problem (then the type is its first word after "duplicate"/"invalid"/
 * "odd number of"). One buffer: the reader's error points to it until
 * the next one. */
static char blob_error[112];

static int blobCorrupt(rdbReader *r, const rdbBlobEntries *b, const char *what) {
    static const char *problem_prefixes[] = {"duplicate ", "invalid ", "odd number of "};
    const char *type = what, *problem = NULL;
    size_t type_len = strlen(what);
    for (size_t j = 0; j < sizeof problem_prefixes / sizeof problem_prefixes[0]; j++) {
        size_t plen = strlen(problem_prefixes[j]);
        if (strncmp(what, problem_prefixes[j], plen)) continue;
        problem = what;
        type = what + plen;
        type_len = strcspn(type, " ");
        break;
    }
    if (problem == NULL && !strcmp(b->format, "zipmap")) /* Redis 7.0 names no type for this one */
        snprintf(blob_error, sizeof blob_error, "Zipmap integrity check failed");
    else
        snprintf(blob_error, sizeof blob_error, "%c%.*s %s integrity check failed%s%s%s",
                 toupper((unsigned char)type[0]), (int)type_len - 1, type + 1, b->format, problem ? " (" : "",
                 problem ? problem : "", problem ? ")" : "");
    r->error = blob_error;
    return 0;
}

#define BLOB_ODD_COUNT (-2) /* nextPair(): a name without its value */

/* The next (name, value) pair: 1, 0 at the end, -1 for a corrupt step (as
 * b->next), BLOB_ODD_COUNT for a name that ends the blob. */
static int nextPair(rdbBlobEntries *b, elemRef *name, elemRef *value) {
    int n = b->next(b, name);
    if (n != 1) return n;
    n = b->next(b, value);
    return n == 0 ? BLOB_ODD_COUNT : n;
}

/* How a walk over pairs ended: 1 at the end, else 0 with r->error set. */
static int pairsEnd(rdbReader *r, const rdbBlobEntries *b, int n, const char *what, const char *odd) {
    if (n == 0) return 1;
    return blobCorrupt(r, b, n == BLOB_ODD_COUNT ? odd : what);
}

static int addListEntries(rdbReader *r, robj *o, rdbBlobEntries *b) {
    elemRef e;
    int n;
    while ((n = b->next(b, &e)) == 1) {
        robj *eo = elemRefToObject(&e);
        listTypePush(o, eo, LIST_TAIL);
        decrRefCount(eo);
    }
    return n == 0 || blobCorrupt(r, b, "list");
}

static int addSetEntries(rdbReader *r, robj *o, rdbBlobEntries *b) {
    elemRef e;
    int n;
    while ((n = b->next(b, &e)) == 1) {
        sds m = elemRefToSds(&e);
        int added = setTypeAddCBuffer(o, m, sdslen(m));
        sdsfree(m);
        if (!added) return blobCorrupt(r, b, "duplicate set member");
    }
    return n == 0 || blobCorrupt(r, b, "set");
}

static int addHashPairs(rdbReader *r, robj *o, rdbBlobEntries *b) {
    elemRef f, v;
    int n;
    while ((n = nextPair(b, &f, &v)) == 1) {
        sds fs = elemRefToSds(&f), vs = elemRefToSds(&v);
        int added = hashTypeSetFromSds(o, fs, vs);
        sdsfree(fs);
        sdsfree(vs);
        if (!added) return blobCorrupt(r, b, "duplicate hash field");
    }
    return pairsEnd(r, b, n, "hash", "odd number of hash entries");
}

/* A score is an integer entry or the text of a double ("1.5", "inf"), never NaN. */
static int entryScore(const elemRef *e, double *score) {
    if (e->s == NULL) {
        *score = (double)e->ll;
        return 1;
    }
    return string2d((const char *)e->s, e->len, score) && !isnan(*score);
}

static int addZsetPairs(rdbReader *r, robj *o, rdbBlobEntries *b) {
    elemRef m, s;
    int n;
    while ((n = nextPair(b, &m, &s)) == 1) {
        double score;
        if (!entryScore(&s, &score)) return blobCorrupt(r, b, "invalid zset score");
        sds ms = elemRefToSds(&m);
        int added = zsetAddCBuffer(o, score, ms, sdslen(ms));
        sdsfree(ms);
        if (!added) return blobCorrupt(r, b, "duplicate zset member");
    }
    return pairsEnd(r, b, n, "zset", "odd number of zset entries");
}

/* Reads one blob of compact type `rdbtype` and adds its entries to o (a
 * list, set, hash or sorted set); `what` names it in an integrity error.
 * 1, or 0 with r->error set. */
static int addBlobEntries(rdbReader *r, robj *o, int rdbtype, const char *what) {
    sds blob = getString(r);
    if (blob == NULL) return 0;
    rdbBlobEntries b;
    int ok = openBlob(rdbtype, blob, &b) || blobCorrupt(r, &b, what);
    switch (ok ? o->type : -1) {
    case OBJ_LIST: ok = addListEntries(r, o, &b); break;
    case OBJ_SET: ok = addSetEntries(r, o, &b); break;
    case OBJ_HASH: ok = addHashPairs(r, o, &b); break;
    case OBJ_ZSET: ok = addZsetPairs(r, o, &b); break;
    default: break;
    }
    sdsfree(blob);
    return ok;
}

/* A value stored as one blob: types 9-13, 16, 17 and 20. */
static robj *loadBlobValue(rdbReader *r, int rdbtype, robj *o, const char *what) {
    if (!addBlobEntries(r, o, rdbtype, what)) return decrRefCount(o), NULL;
    return o;
}

/* A quicklist: a node count, then per node (version 2) its container (a
 * plain element or a listpack), or (version 1) always a ziplist. */
static robj *loadQuicklist(rdbReader *r, int rdbtype) {
    uint64_t nodes;
    if (!getLen(r, &nodes, NULL)) return NULL;
    robj *o = createListObject();
    for (uint64_t j = 0; j < nodes; j++) {
        uint64_t container = QUICKLIST_NODE_PACKED;
        if (rdbtype == RDB_TYPE_LIST_QUICKLIST_2 && !getLen(r, &container, NULL)) return decrRefCount(o), NULL;
        if (container == QUICKLIST_NODE_PLAIN) {
            sds e = getString(r);
            if (e == NULL) return decrRefCount(o), NULL;
            if (sdslen(e) == 0) { /* a plain node holds one element too big to pack: never an empty one */
                sdsfree(e);
                r->error = "Empty quicklist node";
                return decrRefCount(o), NULL;
            }
            robj *eo = createObject(OBJ_STRING, e);
            listTypePush(o, eo, LIST_TAIL);
            decrRefCount(eo);
            continue;
        }
        if (container != QUICKLIST_NODE_PACKED) {
            r->error = "Invalid quicklist node container";
            return decrRefCount(o), NULL;
        }
        if (!addBlobEntries(r, o, rdbtype, "quicklist node")) return decrRefCount(o), NULL;
    }
    return o;
}

/* ---- streams ------------------------------------------------------------------------------------ */
/* Type 19 (what 7.0 writes): the nodes (master ID key, listpack) as strings,
 * the length, last ID, first ID, largest deleted ID and entries added, then
 * each group: name, last ID, entries read, its PEL (raw 16-byte IDs, the
 * delivery time as 8 bytes little-endian, the delivery count) and its
 * consumers (name, seen time, and the IDs they own). Type 15 lacks the
 * 7.0 counters, type 21 (7.2) adds each consumer's active time. */

static void putMillis(rdbWriter *w, long long ms) {
    unsigned char b[8];
    store64le(b, (uint64_t)ms);
    putBytes(w, b, 8);
}

static void putStreamID(rdbWriter *w, const streamID *id) {
    putLen(w, id->ms);
    putLen(w, id->seq);
}

static void saveConsumers(rdbWriter *w, streamCG *cg) {
    raxIterator ci;
    putLen(w, raxSize(cg->consumers));
    raxStart(&ci, cg->consumers);
    raxSeek(&ci, "^", NULL, 0);
    while (raxNext(&ci)) {
        streamConsumer *consumer = ci.data;
        putString(w, ci.key, ci.key_len);
        putMillis(w, consumer->seen_time);
        putLen(w, raxSize(consumer->pel));
        raxIterator pi;
        raxStart(&pi, consumer->pel);
        raxSeek(&pi, "^", NULL, 0);
        while (raxNext(&pi)) putBytes(w, pi.key, pi.key_len);
        raxStop(&pi);
    }
    raxStop(&ci);
}

static void saveGroup(rdbWriter *w, const unsigned char *name, size_t len, streamCG *cg) {
    putString(w, name, len);
    putStreamID(w, &cg->last_id);
    putLen(w, (uint64_t)cg->entries_read);
    putLen(w, raxSize(cg->pel));
    raxIterator pi;
    raxStart(&pi, cg->pel);
    raxSeek(&pi, "^", NULL, 0);
    while (raxNext(&pi)) {
        streamNACK *nack = pi.data;
        putBytes(w, pi.key, pi.key_len);
        putMillis(w, nack->delivery_time);
        putLen(w, nack->delivery_count);
    }
    raxStop(&pi);
    saveConsumers(w, cg);
}

static void saveStream(rdbWriter *w, stream *s) {
    raxIterator ri;
    putLen(w, raxSize(s->rax));
    raxStart(&ri, s->rax);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) {
        putString(w, ri.key, ri.key_len);
        putString(w, ri.data, lpBytes(ri.data));
    }
    raxStop(&ri);
    putLen(w, s->length);
    putStreamID(w, &s->last_id);
    putStreamID(w, &s->first_id);
    putStreamID(w, &s->max_deleted_entry_id);
    putLen(w, s->entries_added);
    putLen(w, s->cgroups ? raxSize(s->cgroups) : 0);
    if (s->cgroups == NULL) return;
    raxStart(&ri, s->cgroups);
    raxSeek(&ri, "^", NULL, 0);
    while (raxNext(&ri)) saveGroup(w, ri.key, ri.key_len, ri.data);
    raxStop(&ri);
}

static int streamCorrupt(rdbReader *r, const char *what) {
    r->error = what;
    return 0;
}

static int getStreamID(rdbReader *r, streamID *id) { return getLen(r, &id->ms, NULL) && getLen(r, &id->seq, NULL); }

static int getMillis(rdbReader *r, long long *ms) {
    unsigned char b[8];
    if (!getBytes(r, b, 8)) return 0;
    *ms = (long long)load64le(b);
    return 1;
}

/* One node: its master ID key and its listpack, validated (IDs after
 * *prev_last, which is updated) before it joins the stream. */
static int loadStreamNode(rdbReader *r, stream *s, streamID *prev_last, int first_node, uint64_t *live) {
    sds key = getString(r);
    if (key == NULL) return 0;
    if (sdslen(key) != SLP_ID_KEY_LEN) {
        sdsfree(key);
        return streamCorrupt(r, "Stream node key entry is not the size of a stream ID");
    }
    streamID master, first, last;
    streamIDDecode((unsigned char *)key, &master);
    sdsfree(key);
    sds blob = getString(r);
    if (blob == NULL) return 0;
    int ok = slpValidate((unsigned char *)blob, sdslen(blob), &master, &first, &last) &&
             (first_node || streamIDCompare(&master, prev_last) > 0);
    if (!ok) {
        sdsfree(blob);
        return streamCorrupt(r, "Stream listpack integrity check failed");
    }
    unsigned char *lp = zmalloc(sdslen(blob));
    memcpy(lp, blob, sdslen(blob));
    sdsfree(blob);
    if (slpLiveCount(lp) == 0) {
        lpFree(lp);
        return streamCorrupt(r, "Empty listpack inside stream");
    }
    *live += (uint64_t)slpLiveCount(lp);
    *prev_last = last;
    streamAppendNode(s, &master, lp);
    return 1;
}

static int loadStreamMeta(rdbReader *r, stream *s, int rdbtype, uint64_t live, const streamID *top) {
    if (!getLen(r, &s->length, NULL) || !getStreamID(r, &s->last_id)) return 0;
    if (rdbtype >= RDB_TYPE_STREAM_LISTPACKS_2) {
        if (!getStreamID(r, &s->first_id) || !getStreamID(r, &s->max_deleted_entry_id) ||
            !getLen(r, &s->entries_added, NULL))
            return 0;
    } else {
        s->entries_added = s->length;
        if (!streamFirstValidID(s, &s->first_id)) /* empty: 7.0 records the largest ID */
            s->first_id.ms = s->first_id.seq = UINT64_MAX;
    }
    if (s->length != live) return streamCorrupt(r, "Stream length does not match its entries");
    if (raxSize(s->rax) && streamIDCompare(&s->last_id, top) < 0)
        return streamCorrupt(r, "Stream last ID is smaller than its last entry");
    return 1;
}

static int loadGroupPEL(rdbReader *r, streamCG *cg) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return 0;
    for (uint64_t j = 0; j < n; j++) {
        unsigned char key[SLP_ID_KEY_LEN];
        if (!mayHave(r, sizeof key + 9) || !getBytes(r, key, sizeof key)) return 0;
        streamNACK *nack = streamCreateNACK(NULL);
        if (!getMillis(r, &nack->delivery_time) || !getLen(r, &nack->delivery_count, NULL)) {
            zfree(nack);
            return 0;
        }
        if (!raxTryInsert(cg->pel, key, sizeof key, nack, NULL)) {
            zfree(nack);
            return streamCorrupt(r, "Duplicated global PEL entry loading stream consumer group");
        }
    }
    return 1;
}

static int loadConsumerPEL(rdbReader *r, streamCG *cg, streamConsumer *consumer) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return 0;
    for (uint64_t j = 0; j < n; j++) {
        unsigned char key[SLP_ID_KEY_LEN];
        if (!mayHave(r, sizeof key) || !getBytes(r, key, sizeof key)) return 0;
        streamNACK *nack = raxFind(cg->pel, key, sizeof key);
        if (nack == raxNotFound) return streamCorrupt(r, "Consumer entry not found in group global PEL");
        if (nack->consumer != NULL || !raxTryInsert(consumer->pel, key, sizeof key, nack, NULL))
            return streamCorrupt(r, "Duplicated consumer PEL entry loading a stream consumer group");
        nack->consumer = consumer;
    }
    return 1;
}

static int loadConsumers(rdbReader *r, streamCG *cg, int rdbtype) {
    uint64_t n;
    if (!getLen(r, &n, NULL)) return 0;
    for (uint64_t j = 0; j < n; j++) {
        sds name = getString(r);
        if (name == NULL) return 0;
        streamConsumer *consumer = streamCreateConsumer(cg, name);
        sdsfree(name);
        if (consumer == NULL) return streamCorrupt(r, "Duplicate stream consumer detected.");
        if (!getMillis(r, &consumer->seen_time)) return 0;
        if (rdbtype >= RDB_TYPE_STREAM_LISTPACKS_3 && !getMillis(r, &consumer->active_time)) return 0;
        if (!loadConsumerPEL(r, cg, consumer)) return 0;
    }
    return 1;
}

/* Every entry of the group's PEL must belong to a consumer. */
static int groupPELOwned(streamCG *cg) {
    raxIterator pi;
    int owned = 1;
    raxStart(&pi, cg->pel);
    raxSeek(&pi, "^", NULL, 0);
    while (owned && raxNext(&pi)) owned = ((streamNACK *)pi.data)->consumer != NULL;
    raxStop(&pi);
    return owned;
}

static int loadGroup(rdbReader *r, stream *s, int rdbtype) {
    sds name = getString(r);
    if (name == NULL) return 0;
    streamID last;
    uint64_t entries_read = 0;
    if (!getStreamID(r, &last) ||
        (rdbtype >= RDB_TYPE_STREAM_LISTPACKS_2 && !getLen(r, &entries_read, NULL))) {
        sdsfree(name);
        return 0;
    }
    long long read = rdbtype >= RDB_TYPE_STREAM_LISTPACKS_2 ? (long long)entries_read
                                                             : streamEstimateEntriesRead(s, &last);
    streamCG *cg = streamCreateCG(s, name, sdslen(name), &last, read);
    sdsfree(name);
    if (cg == NULL) return streamCorrupt(r, "Duplicated consumer group name loading a stream");
    if (!loadGroupPEL(r, cg) || !loadConsumers(r, cg, rdbtype)) return 0;
    if (!groupPELOwned(cg)) return streamCorrupt(r, "Stream CG PEL entry without a consumer");
    return 1;
}

static robj *loadStream(rdbReader *r, int rdbtype) {
    uint64_t nodes, live = 0, groups;
    if (!getLen(r, &nodes, NULL)) return NULL;
    robj *o = createStreamObject();
    stream *s = o->ptr;
    streamID top = {0, 0};
    for (uint64_t j = 0; j < nodes; j++)
        if (!loadStreamNode(r, s, &top, j == 0, &live)) return decrRefCount(o), NULL;
    if (!loadStreamMeta(r, s, rdbtype, live, &top) || !getLen(r, &groups, NULL)) return decrRefCount(o), NULL;
    for (uint64_t j = 0; j < groups; j++)
        if (!loadGroup(r, s, rdbtype)) return decrRefCount(o), NULL;
    return o;
}

static robj *unsupportedType(rdbReader *r, int type) {
    static char msg[96];
    snprintf(msg, sizeof msg, "Unsupported RDB value type %d (%s)", type, rdbUnsupportedTypeName(type));
    r->error = msg;
    return NULL;
}

/* The key being loaded, for a module's GetKeyNameFromIO (NULL in RESTORE). */
static robj *loading_key;
static int loading_dbid = -1;

static robj *loadValue(rdbReader *r, int type) {
    switch (type) {
    case RDB_TYPE_MODULE_2: return moduleRdbLoadValue(r, loading_key, loading_dbid);
    case RDB_TYPE_STRING: {
        sds s = getString(r);
        return s ? tryObjectEncoding(createObject(OBJ_STRING, s)) : NULL;
    }
    case RDB_TYPE_LIST: return loadList(r);
    case RDB_TYPE_SET: return loadSet(r);
    case RDB_TYPE_ZSET: return loadZset(r, 0);
    case RDB_TYPE_ZSET_2: return loadZset(r, 1);
    case RDB_TYPE_HASH: return loadHash(r);
    case RDB_TYPE_LIST_ZIPLIST: return loadBlobValue(r, type, createListObject(), "list");
    case RDB_TYPE_SET_INTSET:
    case RDB_TYPE_SET_LISTPACK: return loadBlobValue(r, type, createSetObject(), "set");
    case RDB_TYPE_HASH_ZIPMAP:
    case RDB_TYPE_HASH_ZIPLIST:
    case RDB_TYPE_HASH_LISTPACK: return loadBlobValue(r, type, createHashObject(), "hash");
    case RDB_TYPE_ZSET_ZIPLIST:
    case RDB_TYPE_ZSET_LISTPACK: return loadBlobValue(r, type, createZsetObject(), "zset");
    case RDB_TYPE_LIST_QUICKLIST:
    case RDB_TYPE_LIST_QUICKLIST_2: return loadQuicklist(r, type);
    case RDB_TYPE_STREAM_LISTPACKS:
    case RDB_TYPE_STREAM_LISTPACKS_2:
    case RDB_TYPE_STREAM_LISTPACKS_3: return loadStream(r, type);
    default: return unsupportedType(r, type);
    }
}

static int emptyCollection(robj *o) {
    switch (o->type) {
    case OBJ_LIST: return listTypeLength(o) == 0;
    case OBJ_SET: return setTypeSize(o) == 0;
    case OBJ_ZSET: return zsetLength(o) == 0;
    case OBJ_HASH: return hashTypeLength(o) == 0;
    default: return 0;
    }
}

/* DEBUG RELOAD MERGE: a loaded key (or library) replaces one already in
 * the dataset instead of being a duplicate. */
static int load_replaces_existing;

/* The code of one library after its opcode: RDB_OPCODE_FUNCTION2 holds the
 * code; the format of Redis 7.0's release candidates (name, engine, an
 * optional description, the body) becomes "#!<engine> name=<name>\n<body>",
 * as Redis converts it. NULL with *error in Redis's words. */
static sds getFunctionCode(rdbReader *r, int type, const char **error) {
    if (type == RDB_OPCODE_FUNCTION2) {
        sds code = getString(r);
        if (code == NULL) *error = "Failed loading library payload";
        return code;
    }
    sds name = NULL, engine = NULL, desc = NULL, body = NULL, code = NULL;
    uint64_t has_desc = 0;
    if (!(name = getString(r))) *error = "Failed loading library name";
    else if (!(engine = getString(r))) *error = "Failed loading engine name";
    else if (!getLen(r, &has_desc, NULL)) *error = "Failed loading library description indicator";
    else if (has_desc && !(desc = getString(r))) *error = "Failed loading library description";
    else if (!(body = getString(r))) *error = "Failed loading library blob";
    else code = sdscatfmt(sdsempty(), "#!%S name=%S\n%S", engine, name, body);
    sdsfree(name);
    sdsfree(engine);
    sdsfree(desc);
    sdsfree(body);
    return code;
}

/* FUNCTION RESTORE: the opcode and code of one library at p; *used: its
 * bytes. NULL with *err (a new sds) when p holds no whole library. */
sds rdbDecodeFunction(const unsigned char *p, size_t len, size_t *used, sds *err) {
    rdbReader r = {.fd = -1, .buf = p, .len = len, .version = RDB_VERSION};
    const char *error = "can not read data type";
    int type;
    sds code = NULL;
    if (getByte(&r, &type)) {
        if (type != RDB_OPCODE_FUNCTION2 && type != RDB_OPCODE_FUNCTION_PRE_GA) error = "given type is not a function";
        else code = getFunctionCode(&r, type, &error);
    }
    *used = r.pos;
    if (code == NULL) *err = sdsnew(error);
    return code;
}

/* A library (RDB_OPCODE_FUNCTION2 or the pre-GA form): created at once,
 * before the keys that follow; a check only reads it. */
static int loadFunction(rdbReader *r, int type) {
    const char *error = NULL;
    sds code = getFunctionCode(r, type, &error);
    if (code == NULL) {
        if (r->error == NULL) r->error = error;
        return 0;
    }
    sds err = NULL;
    if (!r->check && functionsLoadLibraryCode(code, load_replaces_existing, &err) != C_OK) {
        static char msg[256];
        snprintf(msg, sizeof msg, "Failed loading library: %s", err);
        sdsfree(err);
        r->error = msg;
    }
    sdsfree(code);
    return r->error == NULL;
}

/* One value serialized by rdbSerializeValue (or Redis's DUMP): a type
 * byte and the value, validated as deeply as a file's. Bytes after the
 * value are ignored, as Redis does. NULL with *err (a new sds) on failure. */
robj *rdbDeserializeValue(const unsigned char *p, size_t len, int rdbver, sds *err) {
    rdbReader r = {.fd = -1, .buf = p, .len = len, .version = rdbver};
    int type;
    robj *o = getByte(&r, &type) ? loadValue(&r, type) : NULL;
    if (o && emptyCollection(o)) {
        decrRefCount(o);
        o = NULL;
        r.error = "Empty collection";
    }
    if (o == NULL && err) *err = sdsnew(r.error ? r.error : "Bad data format");
    return o;
}

/* A module type's fields read back (LoadDataTypeFromString): the first error, or NULL. */
const char *rdbModuleLoadFromString(const unsigned char *p, size_t len, void (*load)(void *reader, void *ud), void *ud) {
    rdbReader r = {.fd = -1, .buf = p, .len = len, .version = 10};
    load(&r, ud);
    return r.error;
}

/* ---- the file ---------------------------------------------------------------------------------- */

static int checkHeader(rdbReader *r) {
    char magic[9];
    if (!getBytes(r, magic, 9)) return 0;
    if (memcmp(magic, "REDIS", 5) != 0) {
        r->error = "Wrong signature trying to load DB from file";
        return 0;
    }
    int version = 0;
    for (int j = 5; j < 9; j++) version = isdigit((unsigned char)magic[j]) ? version * 10 + (magic[j] - '0') : -1000;
    if (version < 1 || version > RDB_MAX_READ_VERSION) {
        static char msg[64];
        snprintf(msg, sizeof msg, "Can't handle RDB format version %d", version < 0 ? -1 : version);
        r->error = msg;
        return 0;
    }
    r->version = (int)version;
    return 1;
}

/* An AUX field: the ones Redis 7.0 logs are logged with its words; a
 * check is handed every one. */
static int loadAux(rdbReader *r) {
    sds key = getString(r), value = key ? getString(r) : NULL;
    if (value == NULL) {
        sdsfree(key);
        return 0;
    }
    if (r->check) {
        r->check->aux((long long)readerOffset(r), key, value);
        sdsfree(key);
        sdsfree(value);
        return 1;
    }
    long long v = strtoll(value, NULL, 10);
    if (!strcmp(key, "redis-ver")) {
        serverLog(LL_NOTICE, "Loading RDB produced by version %s", value);
    } else if (!strcmp(key, "ctime")) {
        long long age = (long long)time(NULL) - v;
        serverLog(LL_NOTICE, "RDB age %lld seconds", age < 0 ? 0 : age);
    } else if (!strcmp(key, "used-mem")) {
        serverLog(LL_NOTICE, "RDB memory usage when created %.2f Mb", (double)v / (1024 * 1024));
        loadingSetRdbUsedMem(v);
    } else if (!strcmp(key, "repl-id") || !strcmp(key, "repl-offset")) {
        replicationLoadedAux(key, value);
    } else if (!strcmp(key, "aof-base") && v != 0) {
        serverLog(LL_NOTICE, "RDB is base AOF");
    }
    sdsfree(key);
    sdsfree(value);
    return 1;
}


/* A check counts the key and drops it: it was read and validated as a
 * load reads it, and goes no further (nor is it named in a report). */
static void checkedKey(rdbReader *r, sds key, robj *val, long long expire, long long now) {
    if (expire != -1 && expire < now) r->check->already_expired++;
    decrRefCount(val);
    sdsfree(key);
    sdsfree(r->check->key);
    r->check->key = NULL;
}

/* A load drops keys already expired only on a primary (see the header). */
static int loadDropsExpired(void) {
    return server.cluster_enabled ? !clusterMyselfIsReplica() : !replicationIsReplica();
}

/* Adds key -> val to db, or drops it if empty or expired (an AOF base and
 * a replica keep expired keys, as Redis does); 0 on a duplicate key. */
static int storeLoaded(rdbReader *r, redisDb *db, sds key, robj *val, long long expire, long long now) {
    if (r->check) return checkedKey(r, key, val, expire, now), 1;
    int empty = emptyCollection(val);
    int expired = !r->aof_base && expire != -1 && expire < now && loadDropsExpired();
    if (empty || expired) {
        if (empty) {
            /* Redis's line, for the first 10 (a bug of old Redis versions
             * could save empty collections; loading goes on without them) */
            if (r->empty_skipped++ < 10) serverLog(LL_WARNING, "rdbLoadObject skipping empty key: %s", key);
        } else {
            r->keys_expired++;
            loadingCountKey(1);
            replicationLoadedExpired(db->id, key);
        }
        decrRefCount(val);
        sdsfree(key);
        return 1;
    }
    robj keyobj = {.type = OBJ_STRING, .encoding = OBJ_ENCODING_RAW, .refcount = 1, .ptr = key};
    if (load_replaces_existing) dbDelete(db, &keyobj);
    if (dbExists(db, &keyobj)) {
        decrRefCount(val);
        sdsfree(key);
        return 0;
    }
    if (expire != -1) dbAddWithExpire(db, &keyobj, val, expire);
    else dbAdd(db, &keyobj, val);
    if (moduleNotifyMask & NOTIFY_LOADED) { /* modules only; a heap key: the module may hold it */
        robj *k = createStringObject(key, sdslen(key));
        moduleNotifyKeyspaceEvent(NOTIFY_LOADED, "loaded", k, db->id);
        decrRefCount(k);
    }
    sdsfree(key);
    r->keys_loaded++;
    loadingCountKey(0);
    return 1;
}

/* The key of the next value (of RDB type `type`); a check keeps a copy,
 * to name it if its value turns out corrupt. */
static sds loadKey(rdbReader *r, int type) {
    doing(r, "read-object-key");
    sds key = getString(r);
    if (key && r->check) {
        sdsfree(r->check->key);
        r->check->key = sdsdup(key);
        r->check->type = type;
        r->check->keys++;
    }
    doing(r, "read-object-value");
    return key;
}

static void gotExpire(rdbReader *r) {
    if (r->check) r->check->expires++;
}

static int loadSelectDb(rdbReader *r, redisDb **db) {
    uint64_t id;
    doing(r, "read-selectdb");
    if (!getLen(r, &id, NULL)) return 0;
    if (id >= (uint64_t)server.dbnum) {
        r->error = "FATAL: Data file was created with a Redis server configured to handle more databases";
        return 0;
    }
    if (r->check) r->check->selectDb((long long)readerOffset(r), (long long)id);
    else *db = &server.db[id];
    return 1;
}

/* Everything between the header and EOF: opcodes and keys, into the
 * dataset (a load) or to r->check. */
static int loadBody(rdbReader *r) {
    redisDb *db = server.db ? &server.db[0] : NULL; /* a check has no dataset */
    long long expire = -1, now = mstime();
    for (;;) {
        int type;
        doing(r, "read-type");
        if (!getByte(r, &type)) return 0;
        uint64_t a, b;
        unsigned char buf[8];
        switch (type) {
        case RDB_OPCODE_EOF: return 1;
        case RDB_OPCODE_SELECTDB:
            if (!loadSelectDb(r, &db)) return 0;
            continue;
        case RDB_OPCODE_RESIZEDB:
            doing(r, "read-resizedb");
            if (!getLen(r, &a, NULL) || !getLen(r, &b, NULL)) return 0;
            continue;
        case RDB_OPCODE_EXPIRETIME_MS:
            doing(r, "read-expire");
            if (!getBytes(r, buf, 8)) return 0;
            expire = (long long)load64le(buf);
            gotExpire(r);
            continue;
        case RDB_OPCODE_EXPIRETIME:
            doing(r, "read-expire");
            if (!getBytes(r, buf, 4)) return 0;
            expire = (long long)(int32_t)load32le(buf) * 1000; /* signed, as Redis reads it */
            gotExpire(r);
            continue;
        case RDB_OPCODE_AUX:
            doing(r, "read-aux");
            if (!loadAux(r)) return 0;
            continue;
        case RDB_OPCODE_IDLE:
            if (!getLen(r, &a, NULL)) return 0;
            continue;
        case RDB_OPCODE_FREQ:
            if (!getBytes(r, buf, 1)) return 0;
            continue;
        case RDB_OPCODE_SLOT_INFO: /* 7.4 cluster: slot id, keys, expires */
            if (!getLen(r, &a, NULL) || !getLen(r, &b, NULL) || !getLen(r, &b, NULL)) return 0;
            continue;
        case RDB_OPCODE_FUNCTION2:
        case RDB_OPCODE_FUNCTION_PRE_GA:
            doing(r, "read-functions");
            if (!loadFunction(r, type)) return 0;
            continue;
        case RDB_OPCODE_MODULE_AUX:
            doing(r, "read-module-aux");
            if (!moduleRdbLoadAux(r)) return 0;
            continue;
        }
        sds key = loadKey(r, type);
        if (key) loading_key = createStringObject(key, sdslen(key));
        loading_dbid = db ? db->id : -1;
        robj *val = key ? loadValue(r, type) : NULL;
        if (loading_key) decrRefCount(loading_key);
        loading_key = NULL;
        loading_dbid = -1;
        if (val == NULL) {
            sdsfree(key);
            return 0;
        }
        if (!storeLoaded(r, db, key, val, expire, now)) {
            r->error = "Duplicate key in the RDB file";
            return 0;
        }
        expire = -1;
        loadingKeyDelay();
        if (!r->check) loadingProgress(readerOffset(r)); /* between two keys: clients may be served */
    }
}

/* The 8 bytes after EOF: the CRC-64 of everything before them (0 = the
 * writer didn't compute one). Files before version 5 have none. */
static int verifyChecksum(rdbReader *r) {
    if (r->version < 5) return 1;
    doing(r, "check-sum");
    uint64_t crc = crc64(r->crc, r->buf, r->pos);
    unsigned char sum[8];
    if (!getBytes(r, sum, 8)) return 0;
    uint64_t expected = load64le(sum);
    if (expected != 0 && expected != crc && !server.skip_checksum_validation) {
        /* Redis 7.0's words, which runbooks search for: "expected" is what
         * the bytes give, "got" what the file says. */
        if (!r->check)
            serverLog(LL_WARNING, "Wrong RDB checksum expected: (%llx) but got (%llx). Aborting now.",
                      (unsigned long long)crc, (unsigned long long)expected);
        r->error = "RDB CRC error";
        return 0;
    }
    if (r->check) r->check->checksum_verified = expected != 0 && !server.skip_checksum_validation;
    return 1;
}

static void logLoaded(rdbReader *r) {
    if (r->empty_skipped)
        serverLog(LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys expired: %lld, empty keys skipped: %lld.",
                  r->keys_loaded, r->keys_expired, r->empty_skipped);
    else
        serverLog(LL_NOTICE, "Done loading RDB, keys loaded: %lld, keys expired: %lld.", r->keys_loaded,
                  r->keys_expired);
}

/* The walk shared by a load and a check: header, body, checksum. rest
 * (stream mode, may be NULL) gets the bytes read past the RDB's end. */
static int readFile(rdbReader *r, sds *rest) {
    if (r->fd != -1) { /* file and stream modes: reads fill a chunk (in memory mode buf is the whole input) */
        r->chunk = zmalloc(RDB_READ_CHUNK);
        r->buf = r->chunk;
    }
    doing(r, "start");
    int ok = checkHeader(r) && loadBody(r) && verifyChecksum(r);
    if (rest) *rest = ok ? sdsnewlen(r->buf + r->pos, r->len - r->pos) : NULL;
    zfree(r->chunk);
    if (!ok && !r->error) r->error = "read error";
    return ok;
}

/* Loads an RDB stream from fd (named `name` in messages) into the dataset
 * (aof_base: the base file of an AOF). C_ERR with a logged reason. The
 * caller brackets it with loadingStart()/loadingEnd(). */
int rdbLoadFd(int fd, const char *name, int aof_base) { return rdbLoadFdPrefix(fd, name, aof_base, NULL); }

/* The same, for an RDB followed by more data (an AOF's RDB preamble and its
 * command tail): *end (if not NULL) gets the offset just past the RDB --
 * the reads went further, in chunks, so the caller seeks back to it. */
int rdbLoadFdPrefix(int fd, const char *name, int aof_base, off_t *end) {
    rdbReader r = {.fd = fd, .aof_base = aof_base};
    int was_rdb = loadingEnterRdb(1);
    int ok = readFile(&r, NULL);
    loadingEnterRdb(was_rdb);
    if (!ok) {
        serverLog(LL_WARNING, "Error loading the RDB file %s at about byte %lld: %s", name,
                  (long long)readerOffset(&r), r.error);
        return C_ERR;
    }
    if (end) *end = readerOffset(&r);
    logLoaded(&r);
    return C_OK;
}

/* A load from a reader set up by the caller; name in messages ("Error
 * loading the RDB <name> ..."); rest as readFile's. */
static int loadWith(rdbReader *r, const char *name, sds *rest) {
    if (!readFile(r, rest)) {
        serverLog(LL_WARNING, "Error loading the RDB %s at about byte %lld: %s", name, (long long)readerOffset(r),
                  r->error);
        return C_ERR;
    }
    logLoaded(r);
    return C_OK;
}

/* The same, from bytes a callback delivers as they come (a replica's
 * diskless load reads its primary's link). *rest gets what was read past
 * the RDB's end (the reads go in chunks): the framing's end mark, and
 * maybe more, for the caller. */
int rdbLoadStream(rdbStreamReadFn *fn, void *ctx, const char *name, int aof_base, sds *rest) {
    rdbReader r = {.fd = RDB_READER_STREAM, .stream = fn, .stream_ctx = ctx, .aof_base = aof_base};
    return loadWith(&r, name, rest);
}

/* The same, from a whole RDB held in memory (the RDB fuzzer's entry). */
int rdbLoadBuffer(const void *buf, size_t len, const char *name, int aof_base) {
    rdbReader r = {.fd = -1, .buf = buf, .len = len, .aof_base = aof_base};
    return loadWith(&r, name, NULL);
}

/* redis-check-rdb: walks the RDB stream on fd exactly as rdbLoadFd() does,
 * every check included, reporting to *check instead of filling the
 * dataset. C_OK if the file is good; check->offset and error say where and
 * why it is not. */
int rdbCheckFd(int fd, rdbCheck *check) {
    rdbReader r = {.fd = fd, .check = check};
    int ok = readFile(&r, NULL);
    check->offset = (long long)readerOffset(&r);
    check->error = ok ? NULL : r.error;
    return ok ? C_OK : C_ERR;
}

/* Loads `filename` into the (empty) dataset; a missing file is no error.
 * Redis 7.0's last lines when start-up stops: the file could not be
 * opened ("Fatal error loading the DB: <errno text>. Exiting."), or its
 * content was bad: the reason, the checker's report, then "Terminating
 * server after rdb file reading failure.". */
static int rdbLoad(const char *filename) {
    int fd = open(filename, O_RDONLY);
    if (fd == -1) {
        if (errno == ENOENT) return C_OK;
        serverLog(LL_WARNING, "Fatal error loading the DB: %s. Exiting.", strerror(errno));
        return C_ERR;
    }
    struct stat st;
    loadingStart(fstat(fd, &st) == 0 ? st.st_size : 0, "RDB");
    int ret = rdbLoadFd(fd, filename, 0);
    loadingEnd();
    close(fd);
    if (ret != C_OK) {
        /* Redis runs its checker on the file here: its report (offsets,
         * the key being read, the counts) goes to stdout, which is the log
         * unless a logfile is set */
        char *check_argv[2] = {"redis-check-rdb", (char *)filename};
        rdbCheckMain(2, check_argv);
        serverLog(LL_WARNING, "Terminating server after rdb file reading failure.");
    }
    return ret;
}

/* ==== SAVE, BGSAVE, save rules, start-up ======================================================= */

static struct {
    pid_t child;
    long long start_ms;
    int last_status;          /* C_OK / C_ERR */
    long long last_time_sec;
    long long last_try_ms;
    long long dirty_before;   /* server.dirty when the snapshot began */
    int scheduled;
    long long saves;          /* snapshots taken: SAVE and BGSAVE (INFO rdb_saves) */
    size_t last_cow;          /* copy-on-write of the last successful BGSAVE child */
    int forkless;             /* a forkless BGSAVE is running (snapshot.c) */
} bgsave = {.child = -1, .last_status = C_OK, .last_time_sec = -1};

/* A full sync's snapshot counts as a BGSAVE, as in Redis (it is one
 * there): BGSAVE and SAVE answer "already in progress", save rules and
 * AOF rewrites wait, and no two snapshots run at once. */
static int bgsaveRunning(void) { return bgsave.child != -1 || bgsave.forkless || replicationChildActive(); }
int rdbBgsaveInProgress(void) { return bgsaveRunning(); }
static long long bgsaveStartMs(void) {
    return bgsave.child != -1 || bgsave.forkless ? bgsave.start_ms : replicationChildStartMs();
}

static void savedOk(long long dirty_before) {
    server.dirty -= dirty_before;
    if (server.dirty < 0) server.dirty = 0;
    server.lastsave = time(NULL);
    bgsave.last_status = C_OK;
}

int rdbSaveNow(void) {
    long long dirty = server.dirty;
    /* A failed foreground save (SAVE, shutdown) leaves rdb_last_bgsave_status
     * as it was, as in Redis: only a BGSAVE's failure stops writes (MISCONF),
     * so a shutdown that could not save keeps serving everything. */
    if (rdbSave(server.rdb_filename) != C_OK) return C_ERR;
    serverLog(LL_NOTICE, "DB saved on disk");
    bgsave.saves++;
    savedOk(dirty);
    return C_OK;
}

static void bgsaveChild(void) {
    childInfoChildStart();
    setupForkChild(server.bgsave_cpulist, "the background save child (bgsave_cpulist)", "redis-rdb-bgsave");
    if (rdbSave(server.rdb_filename) != C_OK) _exit(1);
    serverLog(LL_NOTICE, "DB saved on disk");
    childInfoSendFinal("RDB");
    _exit(0);
}

/* The forkless BGSAVE (snapshot.c) writes temp-forkless-<pid>.rdb: SAVE
 * and DEBUG RELOAD may write temp-<pid>.rdb meanwhile. */
static void forklessTempName(char *buf, size_t len) { snprintf(buf, len, "temp-forkless-%d.rdb", (int)getpid()); }

static void bgsaveForklessDone(int ok, void *privdata) {
    (void)privdata;
    char tmp[64];
    forklessTempName(tmp, sizeof tmp);
    bgsave.forkless = 0;
    snapshotForkStateChanged(); /* lookupKey's cached answer (snapshot.h) */
    bgsave.last_time_sec = (mstime() - bgsave.start_ms) / 1000;
    if (ok) { /* snapshot.c's thread has moved it into place */
        serverLog(LL_NOTICE, "DB saved on disk");
        serverLog(LL_NOTICE, "Background saving terminated with success");
        savedOk(bgsave.dirty_before);
    } else {
        unlink(tmp);
        serverLog(LL_WARNING, "Background saving error");
        bgsave.last_status = C_ERR;
    }
}

static int bgsaveStartForkless(void) {
    char tmp[64];
    forklessTempName(tmp, sizeof tmp);
    int fd = persistio.open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0644);
    if (fd == -1) {
        serverLog(LL_WARNING, "Failed opening the temp RDB file %s (in server root dir %s) for saving: %s", tmp,
                  server.dir ? server.dir : ".", strerror(errno));
        bgsave.last_status = C_ERR;
        return C_ERR;
    }
    snapshotStart(fd, &snapshotRdbFormat, 0, bgsaveForklessDone, NULL);
    snapshotRenameWhenDone(tmp, server.rdb_filename);
    bgsave.forkless = 1;
    snapshotForkStateChanged(); /* lookupKey's cached answer (snapshot.h) */
    bgsave.start_ms = mstime();
    bgsave.saves++;
    serverLog(LL_NOTICE, "Background saving started (forkless)");
    return C_OK;
}

static int bgsaveStart(void) {
    bgsave.last_try_ms = mstime();
    bgsave.dirty_before = server.dirty;
    if (snapshotForklessWanted()) return bgsaveStartForkless();
    childInfoPrepare();
    LATENCY_START(fork_latency);
    pid_t pid = snapshotFork();
    if (pid == 0) bgsaveChild();
    childInfoParentStarted();
    if (pid == -1) {
        int err = errno;
        childInfoFinish();
        if (snapshotForkFailedFallback(err, "background save")) return bgsaveStartForkless();
        serverLog(LL_WARNING, "Can't save in background: fork: %s", strerror(err));
        bgsave.last_status = C_ERR;
        return C_ERR;
    }
    LATENCY_END("fork", fork_latency);
    bgsave.child = pid;
    updateDictResizePolicy();
    bgsave.start_ms = mstime();
    bgsave.saves++;
    serverLog(LL_NOTICE, "Background saving started by pid %d", (int)pid);
    return C_OK;
}

static void bgsaveDone(pid_t pid, int status) {
    size_t cow = childInfoFinish();
    bgsave.child = -1;
    updateDictResizePolicy(); /* tables may grow again from the next write on, not from the next cron tick */
    bgsave.last_time_sec = (mstime() - bgsave.start_ms) / 1000;
    if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
        serverLog(LL_NOTICE, "Background saving terminated with success");
        bgsave.last_cow = cow;
        savedOk(bgsave.dirty_before);
    } else if (WIFEXITED(status)) {
        serverLog(LL_WARNING, "Background saving error");
        bgsave.last_status = C_ERR;
    } else {
        /* killed: its temporary file is left behind; SIGUSR1 is the way to
         * stop a child without making it an error (Redis 7.0's words and
         * rule) */
        int sig = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
        serverLog(LL_WARNING, "Background saving terminated by signal %d", sig);
        char tmp[64];
        snprintf(tmp, sizeof tmp, "temp-%d.rdb", (int)pid);
        LATENCY_START(unlink_latency);
        unlink(tmp);
        LATENCY_END("rdb-unlink-temp-file", unlink_latency);
        if (sig != SIGUSR1) bgsave.last_status = C_ERR;
    }
}

void saveCommand(client *c) {
    if (bgsaveRunning()) {
        addReplyError(c, "Background save already in progress");
        return;
    }
    if (rdbSaveNow() == C_OK) addReply(c, shared.ok);
    else addReplyErrorObject(c, shared.err);
}

void bgsaveCommand(client *c) {
    int schedule = c->argc == 2 && !strcasecmp(c->argv[1]->ptr, "schedule");
    if (c->argc > 2 || (c->argc == 2 && !schedule)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    if (bgsaveRunning()) {
        addReplyError(c, "Background save already in progress");
    } else if (aofRewriteInProgress() || moduleForkInProgress()) {
        if (schedule) {
            bgsave.scheduled = 1;
            addReplyStatus(c, "Background saving scheduled");
        } else {
            addReplyError(c, "Another child process is active (AOF?): can't BGSAVE right now. Use BGSAVE SCHEDULE "
                             "in order to schedule a BGSAVE whenever possible.");
        }
    } else if (bgsaveStart() == C_OK) {
        addReplyStatus(c, "Background saving started");
    } else {
        addReplyErrorObject(c, shared.err);
    }
}

/* `save <seconds> <changes>` rules; a failed snapshot is retried after 5 s. */
static int saveRuleDue(void) {
    time_t now = time(NULL);
    if (bgsave.last_status == C_ERR && mstime() - bgsave.last_try_ms < 5000) return 0;
    for (int j = 0; j < server.saveparamslen; j++) {
        struct saveparam *sp = &server.saveparams[j];
        if (server.dirty >= sp->changes && now - server.lastsave > sp->seconds) {
            serverLog(LL_NOTICE, "%d changes in %d seconds. Saving...", sp->changes, (int)sp->seconds);
            return 1;
        }
    }
    return 0;
}

static int rdbCron(struct aeEventLoop *el, long long id, void *data) {
    (void)el, (void)id, (void)data;
    if (bgsave.child != -1) {
        int status;
        if (waitpid(bgsave.child, &status, WNOHANG) == bgsave.child) bgsaveDone(bgsave.child, status);
        else childInfoPoll();
    } else if (!bgsaveRunning() && !aofRewriteInProgress() && !moduleForkInProgress() &&
               (bgsave.scheduled || saveRuleDue())) {
        bgsave.scheduled = 0;
        bgsaveStart();
    }
    return 100;
}

/* MISCONF while snapshots fail and stop-writes-on-bgsave-error is on. */
sds rdbWriteDeniedError(void) {
    if (!server.stop_writes_on_bgsave_err || server.saveparamslen == 0 || bgsave.last_status == C_OK) return NULL;
    return sdsnew("-MISCONF Redis is configured to save RDB snapshots, but it's currently unable to persist to "
                  "disk. Commands that may modify the data set are disabled, because this instance is configured to "
                  "report errors during writes if RDB snapshotting fails (stop-writes-on-bgsave-error option). "
                  "Please check the Redis logs for details about the RDB error.");
}

/* A replica about to load its primary's snapshot: a BGSAVE of the old
 * dataset must not land after it, as Redis kills its RDB child then (with
 * this line when the snapshot is loaded from disk). */
void rdbKillChildBeforeSync(int from_disk) {
    if (bgsave.child == -1 && !bgsave.forkless) return;
    if (from_disk && bgsave.child != -1)
        serverLog(LL_NOTICE, "Replica is about to load the RDB file received from the master, but there is a pending "
                             "RDB child running. Killing process %ld and removing its temp file to avoid any race",
                  (long)bgsave.child);
    rdbKillChild();
}

/* Stops a running BGSAVE child and removes its unfinished file: its data is
 * no longer what should reach the disk (FLUSHALL, SHUTDOWN). */
void rdbKillChild(void) {
    if (bgsave.forkless) {
        char tmp[64];
        forklessTempName(tmp, sizeof tmp);
        snapshotAbort();
        unlink(tmp);
        bgsave.forkless = 0;
        snapshotForkStateChanged(); /* lookupKey's cached answer (snapshot.h) */
        serverLog(LL_NOTICE, "Forkless background saving stopped");
        return;
    }
    if (bgsave.child == -1) return;
    pid_t pid = bgsave.child;
    childKill(pid);
    childInfoFinish();
    bgsave.child = -1;
    char tmp[64];
    snprintf(tmp, sizeof tmp, "temp-%d.rdb", (int)pid);
    LATENCY_START(unlink_latency);
    unlink(tmp);
    LATENCY_END("rdb-unlink-temp-file", unlink_latency);
    updateDictResizePolicy();
    serverLog(LL_NOTICE, "Background saving child %d killed", (int)pid);
}

/* SHUTDOWN saves when save points exist (or SAVE was asked for). */
int rdbSaveOnShutdown(int flags) {
    int want = (flags & SHUTDOWN_SAVE) || (!(flags & SHUTDOWN_NOSAVE) && server.saveparamslen > 0);
    if (!want) return C_OK;
    serverLog(LL_NOTICE, "Saving the final RDB snapshot before exiting.");
    return rdbSaveNow();
}

void rdbInit(void) {
    if (aeCreateTimeEvent(server.el, 100, rdbCron, NULL, NULL) == AE_ERR) serverPanic("Can't create the RDB timer");
    if (server.aof_enabled) return; /* the AOF is the truth then */
    long long start = ustime();
    if (rdbLoad(server.rdb_filename) != C_OK) exit(1); /* the reason is logged last */
    if (access(server.rdb_filename, F_OK) == 0)
        serverLog(LL_NOTICE, "DB loaded from disk: %.3f seconds", (double)(ustime() - start) / 1e6);
}

/* DEBUG RELOAD: save, empty, load back (exercises both directions). */
/* DEBUG RELOAD [MERGE] [NOFLUSH] [NOSAVE]: saves (unless NOSAVE), empties
 * the dataset (unless NOFLUSH) and loads the file back. With NOFLUSH a key
 * already in memory is a duplicate, an error, unless MERGE lets the file's
 * value replace it. */
void debugReloadCommand(client *c) {
    int merge = 0, flush = 1, save = 1;
    for (int j = 2; j < c->argc; j++) {
        const char *opt = c->argv[j]->ptr;
        if (!strcasecmp(opt, "MERGE")) merge = 1;
        else if (!strcasecmp(opt, "NOFLUSH")) flush = 0;
        else if (!strcasecmp(opt, "NOSAVE")) save = 0;
        else {
            addReplyError(c, "DEBUG RELOAD only supports the MERGE, NOFLUSH and NOSAVE options.");
            return;
        }
    }
    if (save && rdbSaveNow() != C_OK) {
        addReplyErrorObject(c, shared.err);
        return;
    }
    if (flush) {
        emptyData(-1, 0);
        functionsFlushAll(); /* as Redis's emptyData: the dump has the functions too */
    }
    load_replaces_existing = merge;
    int loaded = rdbLoad(server.rdb_filename);
    load_replaces_existing = 0;
    if (loaded != C_OK) {
        addReplyError(c, "Error trying to load the RDB dump, check server logs.");
        return;
    }
    serverLog(LL_NOTICE, "DB reloaded by DEBUG RELOAD");
    addReply(c, shared.ok);
}

sds rdbInfoString(sds info) {
    return sdscatfmt(info,
                     "rdb_changes_since_last_save:%I\r\n"
                     "rdb_bgsave_in_progress:%i\r\n"
                     "rdb_last_save_time:%I\r\n"
                     "rdb_last_bgsave_status:%s\r\n"
                     "rdb_last_bgsave_time_sec:%I\r\n"
                     "rdb_current_bgsave_time_sec:%I\r\n"
                     "rdb_saves:%I\r\n"
                     "rdb_last_cow_size:%U\r\n",
                     server.dirty, bgsaveRunning(), (long long)server.lastsave,
                     bgsave.last_status == C_OK ? "ok" : "err", bgsave.last_time_sec,
                     bgsaveRunning() ? (mstime() - bgsaveStartMs()) / 1000 : -1LL, bgsave.saves,
                     (unsigned long long)bgsave.last_cow);
}
