/* cluster_slotindex.c -- the keys of db 0 by hash slot, for CLUSTER
 * COUNTKEYSINSLOT / GETKEYSINSLOT, slot migration (redis-cli asks
 * GETKEYSINSLOT) and the deletion of the keys of a slot lost to a newer
 * primary, without walking the whole keyspace.
 *
 * Shape: per slot, a set of 32-bit fingerprints -- the low 32 bits of the
 * key's keyspace hash (kvtableHashKey) -- in an open-addressing table with
 * linear probing (empty cell = 0, backward-shift deletion, no tombstones).
 * Two keys of one slot may share a fingerprint: the set is a multiset, one
 * cell per key. A fingerprint names the keyspace bucket(s) its keys are in,
 * so the keys are found by walking those chains
 * (kvtableForEachWithHashLow32) and keeping the entries of the slot.
 *
 * Why fingerprints and not pointers to the key entries (Redis 7.0 links its
 * dict entries per slot, 16 B per key): the index holds nothing that points
 * into the keyspace. An entry moved elsewhere (active defrag, a kvobj
 * rebuilt to add an expire) is relinked by the keyspace table itself
 * (kvtableReplaceReallocated); its key, hence its hash and fingerprint, is
 * unchanged, so the index stays valid with no hook at all. The index
 * changes only when a key is added to or removed from db 0
 * (clusterKeyAdded / clusterKeyRemoved in db.c), and is rebuilt when the
 * whole db is replaced (clusterKeysRecount).
 *
 * Memory: 4 B per cell, grown x2 above a load of 3/4 and shrunk x1/2 below
 * 1/8, so 5.3 to 10.7 B per key while growing (utils/bench-cluster-memory.sh
 * measures it against Redis 7.0.15), plus 16384 x 12 B of slot headers.
 */
#include "server.h"
#include "cluster.h"
#include "cluster_private.h"

#define SLOTSET_MIN_CAP 4

typedef struct slotSet {
    uint32_t *cells;
    uint32_t cap;  /* a power of two, or 0 */
    uint32_t used;
} slotSet;

static slotSet *sets; /* CLUSTER_SLOTS of them, NULL until the first key */

/* 0 marks an empty cell, so a fingerprint of 0 is stored as 1; a lookup of
 * 1 visits the keys of both. */
static uint32_t fingerprint(const char *key, size_t len) {
    uint32_t fp = (uint32_t)kvtableHashKey(key, len);
    return fp ? fp : 1;
}

static uint32_t home(const slotSet *s, uint32_t fp) { return fp & (s->cap - 1); }

static void cellPut(slotSet *s, uint32_t fp) {
    uint32_t i = home(s, fp);
    while (s->cells[i]) i = (i + 1) & (s->cap - 1);
    s->cells[i] = fp;
}

static void resize(slotSet *s, uint32_t cap) {
    uint32_t *old = s->cells, oldcap = s->cap;
    s->cells = cap ? zcalloc(sizeof(uint32_t) * cap) : NULL;
    s->cap = cap;
    for (uint32_t i = 0; i < oldcap; i++)
        if (old[i]) cellPut(s, old[i]);
    zfree(old);
}

static void setAdd(slotSet *s, uint32_t fp) {
    if (s->cap == 0) resize(s, SLOTSET_MIN_CAP);
    else if ((uint64_t)(s->used + 1) * 4 > (uint64_t)s->cap * 3) resize(s, s->cap * 2);
    cellPut(s, fp);
    s->used++;
}

/* Removes one cell holding fp; the cells after it in its run move back so
 * that every cell stays reachable from its home without crossing a hole. */
static int setRemove(slotSet *s, uint32_t fp) {
    if (s->cap == 0) return 0;
    uint32_t mask = s->cap - 1, i = home(s, fp);
    while (s->cells[i] && s->cells[i] != fp) i = (i + 1) & mask;
    if (s->cells[i] == 0) return 0;
    for (uint32_t j = (i + 1) & mask; s->cells[j]; j = (j + 1) & mask) {
        uint32_t h = home(s, s->cells[j]);
        /* j's cell may fill the hole at i unless its home lies in (i, j] */
        int stays = (i <= j) ? (i < h && h <= j) : (i < h || h <= j);
        if (stays) continue;
        s->cells[i] = s->cells[j];
        i = j;
    }
    s->cells[i] = 0;
    s->used--;
    if (s->used == 0) resize(s, 0);
    else if (s->cap > SLOTSET_MIN_CAP && (uint64_t)s->used * 8 < s->cap) resize(s, s->cap / 2);
    return 1;
}

/* Is cell i the first holding its fingerprint on the probe path from its
 * home? Each fingerprint's chain walk is done once, at that cell. */
static int firstOfItsValue(const slotSet *s, uint32_t i) {
    uint32_t fp = s->cells[i], mask = s->cap - 1;
    for (uint32_t j = home(s, fp); j != i; j = (j + 1) & mask)
        if (s->cells[j] == fp) return 0;
    return 1;
}

/* ---- the server's side ------------------------------------------------------------------------- */

void slotIndexAdd(int slot, const char *key, size_t len) {
    if (sets == NULL) sets = zcalloc(sizeof(slotSet) * CLUSTER_SLOTS);
    setAdd(&sets[slot], fingerprint(key, len));
}

void slotIndexRemove(int slot, const char *key, size_t len) {
    int removed = sets ? setRemove(&sets[slot], fingerprint(key, len)) : 0;
    serverAssert(removed);
}

void slotIndexFree(void *index) {
    slotSet *s = index;
    if (s == NULL) return;
    for (int j = 0; j < CLUSTER_SLOTS; j++) zfree(s[j].cells);
    zfree(s);
}

void slotIndexClear(void) {
    slotIndexFree(sets);
    sets = NULL;
}

/* A replica's swapdb full sync keeps the old dataset's index with the old
 * dataset while the new one loads (replica.c): the index in use and
 * *other change places. */
void slotIndexExchange(void **other) {
    slotSet *s = *other;
    *other = sets;
    sets = s;
}

unsigned long slotIndexCount(int slot) { return sets ? sets[slot].used : 0; }

/* The allocator's bytes the index holds (DEBUG SLOTINDEX-BYTES, the
 * memory measurement). */
size_t slotIndexBytes(void) {
    if (sets == NULL) return 0;
    size_t n = zmalloc_size(sets);
    for (int j = 0; j < CLUSTER_SLOTS; j++)
        if (sets[j].cells) n += zmalloc_size(sets[j].cells);
    return n;
}

typedef struct walk {
    int slot;
    unsigned long max, seen;
    slotIndexKeyFn *fn;
    void *privdata;
} walk;

static void walkEntry(void *privdata, kvobj *o) {
    walk *w = privdata;
    sds k = kvobjGetKey(o);
    if (w->seen >= w->max || (int)keyHashSlot(k, sdslen(k)) != w->slot) return;
    w->seen++;
    w->fn(w->privdata, o);
}

/* Calls fn for up to max keys of the slot in db 0's keyspace; returns how
 * many. fn must not change the keyspace (collect, then act). */
unsigned long slotIndexForEach(int slot, unsigned long max, slotIndexKeyFn *fn, void *privdata) {
    if (sets == NULL || sets[slot].used == 0) return 0;
    slotSet *s = &sets[slot];
    walk w = {slot, max, 0, fn, privdata};
    kvtable *t = server.db[0].keys;
    for (uint32_t i = 0; i < s->cap && w.seen < w.max; i++) {
        if (s->cells[i] == 0 || !firstOfItsValue(s, i)) continue;
        kvtableForEachWithHashLow32(t, s->cells[i], walkEntry, &w);
        if (s->cells[i] == 1) kvtableForEachWithHashLow32(t, 0, walkEntry, &w);
    }
    return w.seen;
}
