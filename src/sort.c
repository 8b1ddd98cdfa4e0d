/* sort.c -- SORT and SORT_RO.
 *
 * SORT key [BY pattern] [LIMIT offset count] [GET pattern ...] [ASC|DESC]
 *          [ALPHA] [STORE destination]
 *
 * The command works in four steps, each a small function below:
 *   1. parse the options into a sortSpec (SORT_RO knows no STORE);
 *   2. load the elements of the list, set or sorted set as text (sds) into
 *      an array of sortItems, through the cross-module iteration API
 *      (listTypeForEach, setTypeForEach, zsetTypeForEach);
 *   3. unless there is nothing to sort (BY without '*'), give every item
 *      its weight -- a double, or a string with ALPHA -- read from the
 *      element itself or from the key the BY pattern names, and sort;
 *   4. reply the selected window (or the GET lookups for each item), or
 *      store it as a list.
 *
 * Decisions:
 * - Elements are copied out of the collection before anything else runs,
 *   so BY/GET lookups and STORE (even onto the sorted key itself) never see
 *   a collection that changed under them.
 * - The sort is a merge sort of our own: stable, and it takes the options
 *   as an argument instead of through globals. Stability makes ties come
 *   out in load order, which is what Redis on glibc (whose qsort merges)
 *   returns; equal numeric weights are further ordered by the element's
 *   bytes, as Redis does, so numeric sorts are fully deterministic.
 * - ALPHA compares bytes (memcmp, shorter first on a common prefix), never
 *   the locale's collation: the result is the same on every machine.
 * - "Nothing to sort" (BY without '*') keeps the native order: list order
 *   (reversed by DESC), score order for sorted sets (DESC: highest first),
 *   iteration order for sets. LIMIT then selects the window while loading,
 *   so only the selected elements are copied. A set stored with STORE is
 *   sorted ALPHA anyway, so that what reaches the replicas and the AOF does
 *   not depend on a hash table's order (Redis's rule).
 * - Numeric weights are parsed as C's strtod would read the whole string;
 *   a weight that is not a number in full, overflows, or is NaN fails the
 *   command with Redis's error, and nothing is stored. A missing weight key
 *   counts as 0 (numeric) or sorts first (ALPHA).
 */
#include "server.h"
#include "acl.h"

#include <errno.h>
#include <math.h>

/* ---- options ------------------------------------------------------------------------ */

typedef struct sortSpec {
    sds by;               /* BY pattern, NULL: weigh the elements themselves */
    int dontsort;         /* BY without '*': keep the native order */
    int desc, alpha;
    long limit_start;     /* LIMIT offset; 0 when absent */
    long limit_count;     /* LIMIT count; -1 when absent (all) */
    robj *store;          /* STORE destination, NULL when absent */
    sds *gets;            /* GET patterns */
    int ngets;
} sortSpec;

static void freeSortSpec(sortSpec *spec) {
    sdsfree(spec->by);
    for (int j = 0; j < spec->ngets; j++) sdsfree(spec->gets[j]);
    zfree(spec->gets);
}

/* The text of a string object, as a new sds. */
static sds objectText(robj *o) {
    robj *decoded = getDecodedObject(o);
    sds s = sdsdup(decoded->ptr);
    decrRefCount(decoded);
    return s;
}

/* Fills spec from argv[2..]; replies and returns C_ERR on a bad option. */
static int parseSortOptions(client *c, int readonly, sortSpec *spec) {
    memset(spec, 0, sizeof *spec);
    spec->limit_count = -1;
    spec->gets = zmalloc(sizeof(sds) * (size_t)c->argc);
    for (int j = 2; j < c->argc; j++) {
        int left = c->argc - j - 1;
        if (argIsWord(c->argv[j], "asc")) {
            spec->desc = 0;
        } else if (argIsWord(c->argv[j], "desc")) {
            spec->desc = 1;
        } else if (argIsWord(c->argv[j], "alpha")) {
            spec->alpha = 1;
        } else if (argIsWord(c->argv[j], "limit") && left >= 2) {
            if (getLongFromObjectOrReply(c, c->argv[j + 1], &spec->limit_start, NULL) != C_OK ||
                getLongFromObjectOrReply(c, c->argv[j + 2], &spec->limit_count, NULL) != C_OK)
                return C_ERR;
            j += 2;
        } else if (!readonly && argIsWord(c->argv[j], "store") && left >= 1) {
            spec->store = c->argv[++j];
        } else if (argIsWord(c->argv[j], "by") && left >= 1) {
            sdsfree(spec->by);
            spec->by = objectText(c->argv[++j]);
            spec->dontsort = strchr(spec->by, '*') == NULL;
            if (!spec->dontsort && !aclClientHasFullKeyAccess(c)) {
                addReplyError(c, "BY option of SORT denied due to insufficient ACL permissions.");
                return C_ERR;
            }
        } else if (argIsWord(c->argv[j], "get") && left >= 1) {
            if (!aclClientHasFullKeyAccess(c)) { /* the patterns name keys the ACL check never saw */
                addReplyError(c, "GET option of SORT denied due to insufficient ACL permissions.");
                return C_ERR;
            }
            spec->gets[spec->ngets++] = objectText(c->argv[++j]);
        } else {
            addReplyErrorObject(c, shared.syntaxerr);
            return C_ERR;
        }
    }
    return C_OK;
}

/* ---- patterns ----------------------------------------------------------------------- */

/* The first "->" after position `from` in s[0..len), followed by at least
 * one byte (the field name); NULL if there is none. */
static const char *findFieldArrow(const char *s, size_t from, size_t len) {
    for (size_t j = from; j + 2 < len; j++)
        if (s[j] == '-' && s[j + 1] == '>') return s + j;
    return NULL;
}

/* What a BY/GET pattern names for element `elem`, as a new sds, or NULL:
 *   "#"              the element itself;
 *   "pre*post"       the string value of key pre<elem>post;
 *   "pre*post->fld"  field fld of the hash at key pre<elem>post.
 * Only the first '*' is replaced. A missing key or field, a key of another
 * type, or a pattern without '*' name nothing. */
static sds lookupByPattern(redisDb *db, sds pattern, sds elem) {
    size_t plen = sdslen(pattern);
    if (plen == 1 && pattern[0] == '#') return sdsdup(elem);
    const char *star = memchr(pattern, '*', plen);
    if (star == NULL) return NULL;
    size_t star_at = (size_t)(star - pattern);
    const char *arrow = findFieldArrow(pattern, star_at + 1, plen);
    size_t key_end = arrow ? (size_t)(arrow - pattern) : plen;

    sds keyname = sdsnewlen(pattern, star_at);
    keyname = sdscatsds(keyname, elem);
    keyname = sdscatlen(keyname, star + 1, key_end - star_at - 1);
    robj *keyobj = createObject(OBJ_STRING, keyname);
    robj *o = lookupKeyRead(db, keyobj);
    decrRefCount(keyobj);
    if (o == NULL) return NULL;

    if (arrow == NULL) return o->type == OBJ_STRING ? objectText(o) : NULL;
    if (o->type != OBJ_HASH) return NULL;
    sds field = sdsnewlen(arrow + 2, plen - key_end - 2);
    robj *value = hashTypeGetValueObject(o, field);
    sdsfree(field);
    if (value == NULL) return NULL;
    sds text = objectText(value);
    decrRefCount(value);
    return text;
}

/* ---- loading the elements --------------------------------------------------------- */

typedef struct sortItem {
    sds elem;      /* the element, as text */
    double score;  /* numeric weight (0 when missing) */
    sds weight;    /* ALPHA with BY: the weight's text, NULL when missing */
} sortItem;

/* Copies the elements whose position in iteration order is in [from, to]. */
typedef struct itemLoader {
    sortItem *items;
    size_t count;
    unsigned long position, from, to;
} itemLoader;

static int loadElement(void *ud, const elemRef *e) {
    itemLoader *loader = ud;
    unsigned long position = loader->position++;
    if (position < loader->from) return 0;
    sortItem *item = &loader->items[loader->count++];
    item->elem = elemRefToSds(e);
    item->score = 0;
    item->weight = NULL;
    return position >= loader->to; /* stop once the window is full */
}

static int loadScoredElement(void *ud, const elemRef *member, double score) {
    (void)score;
    return loadElement(ud, member);
}

static unsigned long sortedValueLength(const robj *o) {
    if (o == NULL) return 0;
    switch (o->type) {
    case OBJ_LIST: return listTypeLength(o);
    case OBJ_SET: return setTypeSize(o);
    default: return zsetLength(o);
    }
}

/* Loads positions [from, to] (iteration order; reverse score order for a
 * sorted set when `reverse`) into a new array; *count gets their number. */
static sortItem *loadWindow(robj *o, unsigned long from, unsigned long to, int reverse, size_t *count) {
    itemLoader loader = {NULL, 0, 0, from, to};
    *count = 0;
    if (o == NULL || from > to) return NULL;
    loader.items = zmalloc(sizeof(sortItem) * (size_t)(to - from + 1));
    switch (o->type) {
    case OBJ_LIST: listTypeForEach(o, loadElement, &loader); break;
    case OBJ_SET: setTypeForEach(o, loadElement, &loader); break;
    default: zsetTypeForEach(o, reverse, loadScoredElement, &loader); break;
    }
    *count = loader.count;
    return loader.items;
}

static void reverseItems(sortItem *items, size_t count) {
    for (size_t a = 0, b = count; a + 1 < b; a++, b--) {
        sortItem tmp = items[a];
        items[a] = items[b - 1];
        items[b - 1] = tmp;
    }
}

static void freeItems(sortItem *items, size_t count) {
    for (size_t j = 0; j < count; j++) {
        sdsfree(items[j].elem);
        sdsfree(items[j].weight);
    }
    zfree(items);
}

/* ---- weights and ordering ------------------------------------------------------------ */

/* strtod over the whole string: C_ERR unless all of it is a number that
 * neither overflows nor is NaN. */
static int parseWeight(sds text, double *score) {
    char *end;
    errno = 0;
    *score = strtod(text, &end);
    if (*end != '\0' || errno == ERANGE || isnan(*score)) return C_ERR;
    return C_OK;
}

/* Gives every item its weight; C_ERR if a numeric weight is not a number. */
static int weighItems(redisDb *db, const sortSpec *spec, sortItem *items, size_t count) {
    int ok = C_OK;
    for (size_t j = 0; j < count; j++) {
        sds weight = spec->by ? lookupByPattern(db, spec->by, items[j].elem) : items[j].elem;
        if (weight == NULL) continue; /* missing: 0, or first with ALPHA */
        if (!spec->alpha && parseWeight(weight, &items[j].score) == C_ERR) ok = C_ERR;
        if (spec->by && spec->alpha) items[j].weight = weight;
        else if (spec->by) sdsfree(weight);
    }
    return ok;
}

static int compareBytes(sds a, sds b) {
    size_t la = sdslen(a), lb = sdslen(b);
    int cmp = memcmp(a, b, la < lb ? la : lb);
    if (cmp) return cmp;
    return la < lb ? -1 : la > lb;
}

static int compareItems(const sortSpec *spec, const sortItem *a, const sortItem *b) {
    int cmp;
    if (!spec->alpha) {
        cmp = a->score < b->score ? -1 : a->score > b->score;
        if (cmp == 0) cmp = compareBytes(a->elem, b->elem);
    } else if (spec->by) {
        if (a->weight == NULL || b->weight == NULL) cmp = (a->weight != NULL) - (b->weight != NULL);
        else cmp = compareBytes(a->weight, b->weight);
    } else {
        cmp = compareBytes(a->elem, b->elem);
    }
    return spec->desc ? -cmp : cmp;
}

/* Stable merge sort of items[0..n) using tmp (n slots) as scratch. */
static void mergeSortItems(const sortSpec *spec, sortItem *items, sortItem *tmp, size_t n) {
    if (n < 2) return;
    size_t half = n / 2;
    mergeSortItems(spec, items, tmp, half);
    mergeSortItems(spec, items + half, tmp, n - half);
    size_t a = 0, b = half, out = 0;
    while (a < half && b < n) tmp[out++] = compareItems(spec, &items[b], &items[a]) < 0 ? items[b++] : items[a++];
    while (a < half) tmp[out++] = items[a++];
    while (b < n) tmp[out++] = items[b++];
    memcpy(items, tmp, sizeof(sortItem) * n);
}

static void sortItems(const sortSpec *spec, sortItem *items, size_t count) {
    if (count < 2) return;
    sortItem *tmp = zmalloc(sizeof(sortItem) * count);
    mergeSortItems(spec, items, tmp, count);
    zfree(tmp);
}

/* ---- output -------------------------------------------------------------------------------- */

static void replySorted(client *c, const sortSpec *spec, sortItem *items, size_t first, size_t count) {
    addReplyArrayLen(c, (long)(count * (size_t)(spec->ngets ? spec->ngets : 1)));
    for (size_t j = first; j < first + count; j++) {
        if (spec->ngets == 0) addReplyBulkCBuffer(c, items[j].elem, sdslen(items[j].elem));
        for (int g = 0; g < spec->ngets; g++) {
            sds value = lookupByPattern(c->db, spec->gets[g], items[j].elem);
            if (value) addReplyBulkSds(c, value);
            else addReplyNull(c);
        }
    }
}

static void pushText(robj *dst, const char *text, size_t len) {
    robj *value = createStringObject(text, len);
    listTypePush(dst, value, LIST_TAIL);
    decrRefCount(value);
}

/* STORE: the window (or its GET lookups; a missing one as "") becomes the
 * list at the destination; an empty result deletes it. */
static void storeSorted(client *c, const sortSpec *spec, sortItem *items, size_t first, size_t count) {
    robj *stored_list = createListObject();
    long long stored = 0;
    for (size_t j = first; j < first + count; j++) {
        if (spec->ngets == 0) {
            pushText(stored_list, items[j].elem, sdslen(items[j].elem));
            stored++;
        }
        for (int g = 0; g < spec->ngets; g++) {
            sds value = lookupByPattern(c->db, spec->gets[g], items[j].elem);
            if (value) pushText(stored_list, value, sdslen(value));
            else pushText(stored_list, "", 0);
            sdsfree(value);
            stored++;
        }
    }
    if (stored) {
        /* replaces any old value and its TTL; dbAdd takes our reference */
        dbDelete(c->db, spec->store);
        dbAdd(c->db, spec->store, stored_list);
        signalModifiedKey(c, c->db, spec->store);
        notifyKeyspaceEvent(NOTIFY_LIST, "sortstore", spec->store, c->db->id);
        server.dirty += stored;
    } else {
        decrRefCount(stored_list);
        if (dbDelete(c->db, spec->store)) {
            signalModifiedKey(c, c->db, spec->store);
            notifyKeyspaceEvent(NOTIFY_GENERIC, "del", spec->store, c->db->id);
            server.dirty++;
        }
    }
    addReplyLongLong(c, stored);
}

/* ---- the command ---------------------------------------------------------------------------- */

/* LIMIT applied to `len` elements: the first position and how many. */
static void limitWindow(const sortSpec *spec, unsigned long len, unsigned long *first, unsigned long *count) {
    unsigned long start = spec->limit_start < 0 ? 0 : (unsigned long)spec->limit_start;
    if (start >= len) {
        *first = 0;
        *count = 0;
        return;
    }
    unsigned long left = len - start;
    *first = start;
    *count = spec->limit_count < 0 || (unsigned long)spec->limit_count > left ? left : (unsigned long)spec->limit_count;
}

/* Loads what will be output; first and count say which items that is. */
static sortItem *loadForSort(robj *o, const sortSpec *spec, size_t *loaded, unsigned long *first,
                             unsigned long *count) {
    unsigned long len = sortedValueLength(o);
    limitWindow(spec, len, first, count);
    if (!spec->dontsort) return loadWindow(o, 0, len ? len - 1 : 0, 0, loaded);
    if (*count == 0) {
        *loaded = 0;
        return NULL;
    }
    unsigned long from = *first, to = *first + *count - 1;
    sortItem *items;
    if (o->type == OBJ_LIST && spec->desc) {
        items = loadWindow(o, len - 1 - to, len - 1 - from, 0, loaded);
        reverseItems(items, *loaded);
    } else {
        items = loadWindow(o, from, to, spec->desc, loaded);
    }
    *first = 0;
    *count = *loaded;
    return items;
}

/* Sorts o (NULL: a missing key, sorted as empty) and replies or stores. */
static void sortValue(client *c, robj *o, sortSpec *spec) {
    if (o && o->type == OBJ_SET && spec->dontsort && (spec->store || (c->flags & CLIENT_SCRIPT))) {
        /* what is stored, or a script sees (its effects replicate), must not
         * depend on a hash table's order: sorted as strings, as Redis does */
        spec->dontsort = 0;
        spec->alpha = 1;
        sdsfree(spec->by);
        spec->by = NULL;
    }
    size_t loaded = 0;
    unsigned long first = 0, count = 0;
    sortItem *items = o ? loadForSort(o, spec, &loaded, &first, &count) : NULL;
    if (!spec->dontsort && weighItems(c->db, spec, items, loaded) == C_ERR) {
        addReplyError(c, "One or more scores can't be converted into double");
    } else {
        if (!spec->dontsort) sortItems(spec, items, loaded);
        if (spec->store) storeSorted(c, spec, items, first, count);
        else replySorted(c, spec, items, first, count);
    }
    freeItems(items, loaded);
}

static void sortGenericCommand(client *c, int readonly) {
    sortSpec spec;
    if (parseSortOptions(c, readonly, &spec) == C_OK) {
        robj *o = lookupKeyRead(c->db, c->argv[1]);
        if (o && o->type != OBJ_LIST && o->type != OBJ_SET && o->type != OBJ_ZSET)
            addReplyErrorObject(c, shared.wrongtypeerr);
        else
            sortValue(c, o, &spec);
    }
    freeSortSpec(&spec);
}

void sortCommand(client *c) { sortGenericCommand(c, 0); }

void sortroCommand(client *c) { sortGenericCommand(c, 1); }
