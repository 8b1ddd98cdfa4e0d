/* module_dict.c -- the dictionary API of Redis 7.0 modules (CreateDict,
 * DictSet/Get/Del/Replace, the iterators with seek, prev and next and compare,
 * MallocSizeDict):
 * an ordered map from byte-string keys to pointers, over our rax.
 *
 * Decisions:
 * - Results are Redis's, including its quirks: DictIteratorReseek answers
 *   raxSeek's 1 on success (which a module reads as REDISMODULE_ERR) and 0
 *   for an unknown operator.
 * - A dict created with a context is freed with the context's auto memory;
 *   FreeDict takes it off that list first.
 * - DictCompare compares the iterator's current key with the given one as
 *   memcmp-then-length (the rax order).
 */
#include "module_int.h"
#include "rax.h"

typedef struct redisObject RString;

typedef struct moduleDict {
    rax *rax;
} moduleDict;

typedef struct moduleDictIter {
    moduleDict *dict;
    raxIterator ri;
} moduleDictIter;

static moduleDict *RM_CreateDict(RedisModuleCtx *ctx) {
    moduleDict *d = zmalloc(sizeof(*d));
    d->rax = raxNew();
    if (ctx) moduleAutoAdd(ctx, AUTO_DICT, d);
    return d;
}

void moduleDictFree(void *ptr) {
    moduleDict *d = ptr;
    raxFree(d->rax);
    zfree(d);
}

static void RM_FreeDict(RedisModuleCtx *ctx, moduleDict *d) {
    if (ctx) moduleAutoForget(ctx, d);
    moduleDictFree(d);
}

static uint64_t RM_DictSize(moduleDict *d) { return raxSize(d->rax); }

static int RM_DictSetC(moduleDict *d, void *key, size_t keylen, void *ptr) {
    return raxTryInsert(d->rax, key, keylen, ptr, NULL) == 1 ? MODAPI_OK : MODAPI_ERR;
}

static int RM_DictReplaceC(moduleDict *d, void *key, size_t keylen, void *ptr) {
    return raxInsert(d->rax, key, keylen, ptr, NULL) == 1 ? MODAPI_OK : MODAPI_ERR;
}

static const unsigned char *strBytes(RString *s, size_t *len) {
    moduleStringDecode(s);
    *len = sdslen(s->ptr);
    return (const unsigned char *)s->ptr;
}

static int RM_DictSet(moduleDict *d, RString *key, void *ptr) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictSetC(d, (void *)k, len, ptr);
}

static int RM_DictReplace(moduleDict *d, RString *key, void *ptr) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictReplaceC(d, (void *)k, len, ptr);
}

static void *RM_DictGetC(moduleDict *d, void *key, size_t keylen, int *nokey) {
    void *v = raxFind(d->rax, key, keylen);
    if (nokey) *nokey = v == raxNotFound;
    return v == raxNotFound ? NULL : v;
}

static void *RM_DictGet(moduleDict *d, RString *key, int *nokey) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictGetC(d, (void *)k, len, nokey);
}

/* oldval, when not NULL, is a void ** receiving the removed value. */
static int RM_DictDelC(moduleDict *d, void *key, size_t keylen, void *oldval) {
    return raxRemove(d->rax, key, keylen, oldval) ? MODAPI_OK : MODAPI_ERR;
}

static int RM_DictDel(moduleDict *d, RString *key, void *oldval) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictDelC(d, (void *)k, len, oldval);
}

static moduleDictIter *RM_DictIteratorStartC(moduleDict *d, const char *op, void *key, size_t keylen) {
    moduleDictIter *di = zmalloc(sizeof(*di));
    di->dict = d;
    raxStart(&di->ri, d->rax);
    raxSeek(&di->ri, op, key, keylen);
    return di;
}

static moduleDictIter *RM_DictIteratorStart(moduleDict *d, const char *op, RString *key) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictIteratorStartC(d, op, (void *)k, len);
}

static void RM_DictIteratorStop(moduleDictIter *di) {
    raxStop(&di->ri);
    zfree(di);
}

static int RM_DictIteratorReseekC(moduleDictIter *di, const char *op, void *key, size_t keylen) {
    return raxSeek(&di->ri, op, key, keylen);
}

static int RM_DictIteratorReseek(moduleDictIter *di, const char *op, RString *key) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictIteratorReseekC(di, op, (void *)k, len);
}

static void *dictStep(moduleDictIter *di, int (*step)(raxIterator *), size_t *keylen, void **dataptr) {
    if (!step(&di->ri)) return NULL;
    if (keylen) *keylen = di->ri.key_len;
    if (dataptr) *dataptr = di->ri.data;
    return di->ri.key;
}

static void *RM_DictNextC(moduleDictIter *di, size_t *keylen, void **dataptr) {
    return dictStep(di, raxNext, keylen, dataptr);
}

static void *RM_DictPrevC(moduleDictIter *di, size_t *keylen, void **dataptr) {
    return dictStep(di, raxPrev, keylen, dataptr);
}

static RString *dictStepString(RedisModuleCtx *ctx, moduleDictIter *di, int (*step)(raxIterator *), void **dataptr) {
    size_t len;
    void *key = dictStep(di, step, &len, dataptr);
    if (key == NULL) return NULL;
    RString *s = createStringObject(key, len);
    moduleAutoAdd(ctx, AUTO_STRING, s);
    return s;
}

static RString *RM_DictNext(RedisModuleCtx *ctx, moduleDictIter *di, void **dataptr) {
    return dictStepString(ctx, di, raxNext, dataptr);
}

static RString *RM_DictPrev(RedisModuleCtx *ctx, moduleDictIter *di, void **dataptr) {
    return dictStepString(ctx, di, raxPrev, dataptr);
}

/* The current key against key under op (">", ">=", "<", "<=", "=="). */
static int RM_DictCompareC(moduleDictIter *di, const char *op, void *key, size_t keylen) {
    if (raxEOF(&di->ri)) return MODAPI_ERR;
    size_t minlen = di->ri.key_len < keylen ? di->ri.key_len : keylen;
    int cmp = minlen ? memcmp(di->ri.key, key, minlen) : 0;
    if (cmp == 0) cmp = di->ri.key_len < keylen ? -1 : di->ri.key_len > keylen ? 1 : 0;
    int eq = op[0] == '=' || op[1] == '=';
    int res;
    if (op[0] == '>') res = cmp > 0 || (eq && cmp == 0);
    else if (op[0] == '<') res = cmp < 0 || (eq && cmp == 0);
    else if (op[1] == '=') res = cmp == 0; /* "==" (a lone "=" is no operator here) */
    else return MODAPI_ERR;
    return res ? MODAPI_OK : MODAPI_ERR;
}

static int RM_DictCompare(moduleDictIter *di, const char *op, RString *key) {
    size_t len;
    const unsigned char *k = strBytes(key, &len);
    return RM_DictCompareC(di, op, (void *)k, len);
}

/* MallocSizeDict: the dict's own allocations (its header and the tree's
 * nodes, which hold the key bytes), not the values it points to. The
 * figure is ours: 7.0 estimates from its node count. */
static size_t RM_MallocSizeDict(moduleDict *d) { return zmalloc_size(d) + raxAllocSize(d->rax); }

/* ---- the lookup ----------------------------------------------------------------------- */

static const moduleApiEntry dict_table[] = {
    MODULE_API(CreateDict), MODULE_API(FreeDict), MODULE_API(DictSize), MODULE_API(DictSetC), MODULE_API(DictReplaceC), MODULE_API(DictSet),
    MODULE_API(DictReplace), MODULE_API(DictGetC), MODULE_API(DictGet), MODULE_API(DictDelC), MODULE_API(DictDel), MODULE_API(DictIteratorStartC),
    MODULE_API(DictIteratorStart), MODULE_API(DictIteratorStop), MODULE_API(DictIteratorReseekC), MODULE_API(DictIteratorReseek),
    MODULE_API(DictNextC), MODULE_API(DictPrevC), MODULE_API(DictNext), MODULE_API(DictPrev), MODULE_API(DictCompareC), MODULE_API(DictCompare),
    MODULE_API(MallocSizeDict),
};

int moduleDictGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(dict_table, name, target);
}
