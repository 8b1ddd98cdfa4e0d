/* module_type.c -- data types of Redis 7.0 modules: CreateDataType, values
 * in the keyspace (OBJ_MODULE), their RDB form, AOF rewrite, digest, COPY
 * and MEMORY USAGE, and the RedisModuleIO / RedisModuleDigest functions a
 * type's callbacks call.
 *
 * A module value is an robj of type OBJ_MODULE whose ptr is a moduleValue:
 * the type and the module's own pointer. The server never looks inside it;
 * every operation goes to the type's callbacks.
 *
 * The RDB form is Redis 7.0's, so a dump with module data moves between
 * Redis 7.0.15 and this server in both directions (with the same module
 * loaded): type byte 7 (RDB_TYPE_MODULE_2), the key, the type's 64-bit id
 * as an RDB length -- nine 6-bit characters of its name from the set
 * A-Z a-z 0-9 - _, most significant first, then the 10-bit encoding
 * version -- then each field as an opcode length (1 signed, 2 unsigned,
 * 3 float, 4 double, 5 string) and the value (an RDB length, 4 or 8 bytes
 * little-endian, an RDB string), and opcode 0 to end.
 *
 * Decisions:
 * - A read that fails (a short or corrupt payload, a field of another
 *   kind) sets the IO's error and makes the whole load fail with Redis's
 *   message, whether or not the module checks IsIOError: Redis 7.0 exits
 *   the process there; failing the load is that, minus killing a server
 *   over a bad RESTORE payload.
 * - A module that has registered a type cannot be unloaded (module.c), as
 *   in Redis: values of it may be in the keyspace or in a snapshot.
 * - redis-check-rdb walks a module value's fields without the module.
 * - Module aux data (a type's globals, aux_save/aux_load) is Redis 7.0's
 *   RDB opcode 247: the type's id, a UINT opcode and the trigger (1 before
 *   the keys, 2 after), the module's fields, EOF. Written for every type
 *   with aux_save whose aux_save_triggers has that trigger, read back by
 *   the type's aux_load; a dump with aux data of a type no module here has
 *   (or one without aux_load) fails to load with Redis's message, where
 *   Redis exits. The forkless snapshot writes the after-keys part when its
 *   last key is written, so it holds the globals of that moment, not of the
 *   snapshot's start.
 */
#include "module_int.h"
#include "kvobj.h"

#include <errno.h>

#define MODULE_OPCODE_EOF 0
#define MODULE_OPCODE_SINT 1
#define MODULE_OPCODE_UINT 2
#define MODULE_OPCODE_FLOAT 3
#define MODULE_OPCODE_DOUBLE 4
#define MODULE_OPCODE_STRING 5

typedef struct RedisModuleIO RedisModuleIO;
typedef struct RedisModuleDigest RedisModuleDigest;

/* The callbacks a type has, as the module's TypeMethods gives them. */
typedef void *(*typeLoadFunc)(RedisModuleIO *io, int encver);
typedef void (*typeSaveFunc)(RedisModuleIO *io, void *value);
typedef void (*typeRewriteFunc)(RedisModuleIO *io, robj *key, void *value);
typedef size_t (*typeMemUsageFunc)(const void *value);
typedef void (*typeDigestFunc)(RedisModuleDigest *md, void *value);
typedef void (*typeFreeFunc)(void *value);
typedef void *(*typeCopyFunc)(robj *fromkey, robj *tokey, const void *value);
typedef size_t (*typeFreeEffortFunc)(robj *key, const void *value);
typedef void (*typeUnlinkFunc)(robj *key, const void *value);
typedef int (*typeAuxLoadFunc)(RedisModuleIO *io, int encver, int when);
typedef void (*typeAuxSaveFunc)(RedisModuleIO *io, int when);

/* RedisModuleKeyOptCtx: the keys and databases a version-4 callback is
 * about (GetKeyNameFromOptCtx and friends); -1 / NULL where none. */
typedef struct RedisModuleKeyOptCtx {
    robj *from_key, *to_key;
    int from_dbid, to_dbid;
} keyOptCtx;

typedef int (*typeDefragFunc)(moduleDefragCtx *ctx, robj *key, void **value);
typedef size_t (*typeMemUsage2Func)(keyOptCtx *ctx, const void *value, size_t sample_size);
typedef size_t (*typeFreeEffort2Func)(keyOptCtx *ctx, const void *value);
typedef void (*typeUnlink2Func)(keyOptCtx *ctx, const void *value);
typedef void *(*typeCopy2Func)(keyOptCtx *ctx, const void *value);

/* The layout of RedisModuleTypeMethods (versions 1 to 4): what a module
 * passes to CreateDataType. Only the fields of the version it declares
 * are read. */
typedef struct typeMethodsAbi {
    uint64_t version;
    typeLoadFunc rdb_load;
    typeSaveFunc rdb_save;
    typeRewriteFunc aof_rewrite;
    typeMemUsageFunc mem_usage;
    typeDigestFunc digest;
    typeFreeFunc free;
    typeAuxLoadFunc aux_load; /* version 2 */
    typeAuxSaveFunc aux_save;
    int aux_save_triggers;
    typeFreeEffortFunc free_effort; /* version 3 */
    typeUnlinkFunc unlink;
    typeCopyFunc copy;
    typeDefragFunc defrag;
    typeMemUsage2Func mem_usage2; /* version 4 */
    typeFreeEffort2Func free_effort2;
    typeUnlink2Func unlink2;
    typeCopy2Func copy2;
} typeMethodsAbi;

typedef struct moduleType {
    uint64_t id;
    module *owner;
    char name[10];
    typeLoadFunc rdb_load;
    typeSaveFunc rdb_save;
    typeRewriteFunc aof_rewrite;
    typeMemUsageFunc mem_usage;
    typeDigestFunc digest;
    typeFreeFunc free;
    typeCopyFunc copy;
    typeAuxLoadFunc aux_load; /* version 2 */
    typeAuxSaveFunc aux_save;
    int aux_save_triggers;
    typeFreeEffortFunc free_effort; /* version 3 */
    typeUnlinkFunc unlink;
    typeDefragFunc defrag;
    typeMemUsage2Func mem_usage2; /* version 4: preferred over their version-1/3 forms */
    typeFreeEffort2Func free_effort2;
    typeUnlink2Func unlink2;
    typeCopy2Func copy2;
} moduleType;

typedef struct moduleValue {
    moduleType *type;
    void *value;
} moduleValue;

/* What a type's rdb_load/rdb_save/aof_rewrite callback works on. */
struct RedisModuleIO {
    moduleType *type;
    void *rdb;            /* rdb.c's writer or reader */
    sds aof;              /* aof_rewrite: EmitAOF's commands */
    robj *key;
    int dbid;
    int error;
    RedisModuleCtx *ctx;  /* GetContextFromIO's, made on demand */
};

struct RedisModuleDigest {
    unsigned char o[20]; /* the sequence being mixed */
    unsigned char x[20]; /* the xor of the ended sequences: the value's digest */
    robj *key;
    int dbid;
};

static list *types; /* moduleType *, every module's */

/* ---- type ids ------------------------------------------------------------------------ */

static const char type_charset[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_";

/* The id, or 0 for a name that is not 9 characters of the set or a
 * version outside 0..1023. */
uint64_t moduleTypeEncodeId(const char *name, int encver) {
    if (strlen(name) != 9 || encver < 0 || encver > 1023) return 0;
    uint64_t id = 0;
    for (int j = 0; j < 9; j++) {
        const char *p = strchr(type_charset, name[j]);
        if (p == NULL || name[j] == '\0') return 0;
        id = (id << 6) | (uint64_t)(p - type_charset);
    }
    return (id << 10) | (uint64_t)encver;
}

static void typeNameFromId(uint64_t id, char name[10]) {
    id >>= 10;
    for (int j = 8; j >= 0; j--) {
        name[j] = type_charset[id & 63];
        id >>= 6;
    }
    name[9] = '\0';
}

static moduleType *typeByName(const char *name) {
    if (types == NULL) return NULL;
    listIter li;
    listNode *ln;
    listRewind(types, &li);
    while ((ln = listNext(&li))) {
        moduleType *mt = listNodeValue(ln);
        if (!memcmp(mt->name, name, 9)) return mt;
    }
    return NULL;
}

/* The type whose name the id carries, whatever the encoding version. */
static moduleType *typeById(uint64_t id) {
    char name[10];
    typeNameFromId(id, name);
    return typeByName(name);
}

/* ---- CreateDataType and values -------------------------------------------------------- */

/* As in Redis 7.0 a name is busy when a loaded module has it: the module
 * being loaded is not in the registry yet, so its own types do not count. */
static moduleType *RM_CreateDataType(RedisModuleCtx *ctx, const char *name, int encver, void *typemethods) {
    uint64_t id = moduleTypeEncodeId(name, encver);
    moduleType *busy = typeByName(name);
    if (ctx->module == NULL || id == 0 || (busy && busy->owner != ctx->module)) return NULL;
    const typeMethodsAbi *tm = typemethods;
    if (tm->version == 0) return NULL;
    moduleType *mt = zcalloc(sizeof(*mt));
    mt->id = id;
    mt->owner = ctx->module;
    memcpy(mt->name, name, 9);
    mt->rdb_load = tm->rdb_load;
    mt->rdb_save = tm->rdb_save;
    mt->aof_rewrite = tm->aof_rewrite;
    mt->mem_usage = tm->mem_usage;
    mt->digest = tm->digest;
    mt->free = tm->free;
    if (tm->version >= 2) {
        mt->aux_load = tm->aux_load;
        mt->aux_save = tm->aux_save;
        mt->aux_save_triggers = tm->aux_save_triggers;
    }
    if (tm->version >= 3) {
        mt->copy = tm->copy;
        mt->free_effort = tm->free_effort;
        mt->unlink = tm->unlink;
        mt->defrag = tm->defrag;
    }
    if (tm->version >= 4) {
        mt->mem_usage2 = tm->mem_usage2;
        mt->free_effort2 = tm->free_effort2;
        mt->unlink2 = tm->unlink2;
        mt->copy2 = tm->copy2;
    }
    if (types == NULL) types = listCreate();
    listAddNodeTail(types, mt);
    ctx->module->types++;
    return mt;
}

/* A module that failed to load takes its types with it. */
void moduleTypesRelease(module *m) {
    if (types == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(types, &li);
    while ((ln = listNext(&li))) {
        moduleType *mt = listNodeValue(ln);
        if (mt->owner != m) continue;
        zfree(mt);
        listDelNode(types, ln);
    }
    m->types = 0;
}

static robj *createModuleObject(moduleType *mt, void *value) {
    moduleValue *mv = zmalloc(sizeof(*mv));
    mv->type = mt;
    mv->value = value;
    return createObject(OBJ_MODULE, mv);
}

static int RM_ModuleTypeSetValue(moduleKey *k, moduleType *mt, void *value) {
    if (k == NULL || !(k->mode & MODAPI_KEY_WRITE)) return MODAPI_ERR;
    if (moduleKeyValue(k)) dbSyncDelete(k->db, k->key);
    setKeyTake(k->ctx->client, k->db, k->key, createModuleObject(mt, value), SETKEY_NO_SIGNAL);
    return MODAPI_OK;
}

static moduleType *RM_ModuleTypeGetType(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    return v && v->type == OBJ_MODULE ? ((moduleValue *)v->ptr)->type : NULL;
}

static void *RM_ModuleTypeGetValue(moduleKey *k) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    return v && v->type == OBJ_MODULE ? ((moduleValue *)v->ptr)->value : NULL;
}

static int RM_ModuleTypeReplaceValue(moduleKey *k, moduleType *mt, void *new_value, void **old_value) {
    robj *v = k ? moduleKeyValue(k) : NULL;
    if (v == NULL || !(k->mode & MODAPI_KEY_WRITE) || v->type != OBJ_MODULE) return MODAPI_ERR;
    moduleValue *mv = v->ptr;
    if (mv->type != mt) return MODAPI_ERR;
    if (old_value) *old_value = mv->value;
    mv->value = new_value;
    return MODAPI_OK;
}

void moduleFreeValue(robj *o) {
    moduleValue *mv = o->ptr;
    if (mv->type->free) mv->type->free(mv->value);
    zfree(mv);
}

/* The keyspace entry's name as a string object (a module value in the
 * keyspace is a kvobj: the key lives in it); the caller releases it. */
static robj *entryKeyName(robj *o) {
    sds name = kvobjGetKey(o);
    return createStringObject(name, sdslen(name));
}

size_t moduleValueMemUsage(robj *o, size_t samples, int dbid) {
    moduleValue *mv = o->ptr;
    size_t size = sizeof(*mv);
    if (mv->type->mem_usage2) {
        keyOptCtx ctx = {entryKeyName(o), NULL, dbid, -1};
        size += mv->type->mem_usage2(&ctx, mv->value, samples);
        decrRefCount(ctx.from_key);
    } else if (mv->type->mem_usage) {
        size += mv->type->mem_usage(mv->value);
    }
    return size;
}

/* Redis 7.0's: 1 unless the type says (free_effort2, else free_effort); a
 * type's 0 means "always in the background". */
size_t moduleValueFreeEffort(robj *o, int dbid) {
    moduleValue *mv = o->ptr;
    size_t effort = 1;
    if (mv->type->free_effort2 || mv->type->free_effort) {
        robj *key = entryKeyName(o);
        if (mv->type->free_effort2) {
            keyOptCtx ctx = {key, NULL, dbid, -1};
            effort = mv->type->free_effort2(&ctx, mv->value);
        } else {
            effort = mv->type->free_effort(key, mv->value);
        }
        decrRefCount(key);
    }
    return effort == 0 ? SIZE_MAX : effort;
}

/* Active defrag (defrag.c), as Redis 7.0 does it: the moduleValue block
 * moves whatever the type provides; then, with a defrag callback, a value
 * whose free effort (0: unbounded) is within active-defrag-max-scan-fields
 * is done at once, a bigger one is left for moduleDefragLater (return 0). */
int moduleDefragValue(robj *o, int dbid) {
    moduleValue *mv = defragMoveBlock(o->ptr);
    if (mv) o->ptr = mv;
    else mv = o->ptr;
    if (mv->type->defrag == NULL) return 1;
    if (moduleValueFreeEffort(o, dbid) > (size_t)server.active_defrag_max_scan_fields) return 0;
    robj *key = entryKeyName(o);
    moduleDefragCtx ctx = {0, 0, NULL, key, dbid};
    mv->type->defrag(&ctx, key, &mv->value);
    decrRefCount(key);
    return 1;
}

/* A queued big value: its callback with the cursor and the slice's end;
 * 1 while it says there is more (the cursor then tells where). */
int moduleDefragLater(robj *o, int dbid, unsigned long *cursor, long long endtime_us) {
    moduleValue *mv = o->ptr;
    if (mv->type->defrag == NULL) return 0; /* replaced by another type meanwhile */
    robj *key = entryKeyName(o);
    moduleDefragCtx ctx = {0, endtime_us, cursor, key, dbid};
    int more = mv->type->defrag(&ctx, key, &mv->value);
    decrRefCount(key);
    if (!more) *cursor = 0;
    return more != 0;
}

/* The key leaves the keyspace (deleted, or overwritten: unlink then add,
 * as Redis 7.0 sees it); the value is freed later, maybe in a thread. */
void moduleNotifyKeyUnlink(robj *key, robj *o, int dbid) {
    moduleValue *mv = o->ptr;
    if (mv->type->unlink2) {
        keyOptCtx ctx = {key, NULL, dbid, -1};
        mv->type->unlink2(&ctx, mv->value);
    } else if (mv->type->unlink) {
        mv->type->unlink(key, mv->value);
    }
}

const char *moduleValueTypeName(robj *o) {
    moduleValue *mv = o->ptr;
    return mv->type->name;
}

robj *moduleDupValueOrReply(client *c, robj *fromkey, robj *tokey, int fromdb, int todb, robj *o) {
    moduleValue *mv = o->ptr;
    if (mv->type->copy == NULL && mv->type->copy2 == NULL) {
        addReplyError(c, "not supported for this module key");
        return NULL;
    }
    void *copy;
    if (mv->type->copy2) {
        keyOptCtx ctx = {fromkey, tokey, fromdb, todb};
        copy = mv->type->copy2(&ctx, mv->value);
    } else {
        copy = mv->type->copy(fromkey, tokey, mv->value);
    }
    if (copy == NULL) {
        addReplyError(c, "module key failed to copy");
        return NULL;
    }
    return createModuleObject(mv->type, copy);
}

/* ---- IO: RDB fields --------------------------------------------------------------------- */

static void ioInit(RedisModuleIO *io, moduleType *mt, void *rdb, robj *key) {
    memset(io, 0, sizeof(*io));
    io->type = mt;
    io->rdb = rdb;
    io->key = key;
}

static void ioFinish(RedisModuleIO *io) {
    if (io->ctx) {
        moduleCtxFinish(io->ctx);
        zfree(io->ctx);
    }
}

static void RM_SaveUnsigned(RedisModuleIO *io, uint64_t value) {
    if (io->error) return;
    rdbModulePutLen(io->rdb, MODULE_OPCODE_UINT);
    rdbModulePutLen(io->rdb, value);
}

static void RM_SaveSigned(RedisModuleIO *io, int64_t value) { RM_SaveUnsigned(io, (uint64_t)value); }

static void RM_SaveStringBuffer(RedisModuleIO *io, const char *str, size_t len) {
    if (io->error) return;
    rdbModulePutLen(io->rdb, MODULE_OPCODE_STRING);
    rdbModulePutString(io->rdb, str, len);
}

static void RM_SaveString(RedisModuleIO *io, robj *s) {
    moduleStringDecode(s);
    RM_SaveStringBuffer(io, s->ptr, sdslen(s->ptr));
}

/* A fixed-size field: its opcode, then its bytes (the writer of
 * ioLoadFixed's fields). */
static void ioSaveFixed(RedisModuleIO *io, int opcode, const unsigned char *b, size_t n) {
    rdbModulePutLen(io->rdb, opcode);
    rdbModulePutBytes(io->rdb, b, n);
}

static void RM_SaveDouble(RedisModuleIO *io, double value) {
    if (io->error) return;
    unsigned char b[8];
    uint64_t bits;
    memcpy(&bits, &value, sizeof bits);
    store64le(b, bits);
    ioSaveFixed(io, MODULE_OPCODE_DOUBLE, b, sizeof b);
}

static void RM_SaveFloat(RedisModuleIO *io, float value) {
    if (io->error) return;
    unsigned char b[4];
    uint32_t bits;
    memcpy(&bits, &value, sizeof bits);
    store32le(b, bits);
    ioSaveFixed(io, MODULE_OPCODE_FLOAT, b, sizeof b);
}

/* As Redis: the hex text of the value, as a string field. */
static void RM_SaveLongDouble(RedisModuleIO *io, long double value) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof buf, value, LD_STR_HEX);
    RM_SaveStringBuffer(io, buf, (size_t)len);
}

static char load_error[512];

/* Redis's words for a read a module made that the payload could not give. */
static void ioLoadError(RedisModuleIO *io) {
    if (io->error) return;
    io->error = 1;
    snprintf(load_error, sizeof load_error,
             "Error loading data from RDB (short read or EOF). Read performed by module '%s' about type '%s' "
             "after reading '0' bytes of a value for key named: '%s'.",
             io->type->owner->name, io->type->name, io->key ? (char *)io->key->ptr : "(null)");
    rdbModuleSetError(io->rdb, load_error);
}

static int ioExpect(RedisModuleIO *io, uint64_t opcode) {
    uint64_t got;
    if (io->error) return 0;
    if (!rdbModuleGetLen(io->rdb, &got) || got != opcode) {
        ioLoadError(io);
        return 0;
    }
    return 1;
}

static uint64_t RM_LoadUnsigned(RedisModuleIO *io) {
    uint64_t value;
    if (!ioExpect(io, MODULE_OPCODE_UINT)) return 0;
    if (!rdbModuleGetLen(io->rdb, &value)) {
        ioLoadError(io);
        return 0;
    }
    return value;
}

static int64_t RM_LoadSigned(RedisModuleIO *io) { return (int64_t)RM_LoadUnsigned(io); }

static sds ioLoadSds(RedisModuleIO *io) {
    if (!ioExpect(io, MODULE_OPCODE_STRING)) return NULL;
    sds s = rdbModuleGetString(io->rdb);
    if (s == NULL) ioLoadError(io);
    return s;
}

static robj *RM_LoadString(RedisModuleIO *io) {
    sds s = ioLoadSds(io);
    return s ? createObject(OBJ_STRING, s) : NULL;
}

/* A plain buffer the module frees with RedisModule_Free. */
static char *RM_LoadStringBuffer(RedisModuleIO *io, size_t *lenptr) {
    sds s = ioLoadSds(io);
    if (s == NULL) return NULL;
    size_t len = sdslen(s);
    char *buf = zmalloc(len + 1);
    memcpy(buf, s, len);
    buf[len] = '\0';
    sdsfree(s);
    if (lenptr) *lenptr = len;
    return buf;
}

/* A fixed-size field of `opcode` into b: 0 (the load marked failed) if
 * the opcode or the bytes are not there. */
static int ioLoadFixed(RedisModuleIO *io, int opcode, unsigned char *b, size_t n) {
    if (!ioExpect(io, opcode)) return 0;
    if (!rdbModuleGetBytes(io->rdb, b, n)) {
        ioLoadError(io);
        return 0;
    }
    return 1;
}

static double RM_LoadDouble(RedisModuleIO *io) {
    unsigned char b[8];
    if (!ioLoadFixed(io, MODULE_OPCODE_DOUBLE, b, sizeof b)) return 0;
    uint64_t bits = load64le(b);
    double value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static float RM_LoadFloat(RedisModuleIO *io) {
    unsigned char b[4];
    if (!ioLoadFixed(io, MODULE_OPCODE_FLOAT, b, sizeof b)) return 0;
    uint32_t bits = load32le(b);
    float value;
    memcpy(&value, &bits, sizeof value);
    return value;
}

static long double RM_LoadLongDouble(RedisModuleIO *io) {
    size_t len;
    char *str = RM_LoadStringBuffer(io, &len);
    if (str == NULL) return 0;
    long double value = 0;
    string2ld(str, len, &value);
    zfree(str);
    return value;
}

static int RM_IsIOError(RedisModuleIO *io) { return io->error; }

static robj *RM_GetKeyNameFromIO(RedisModuleIO *io) { return io->key; }

static RedisModuleCtx *RM_GetContextFromIO(RedisModuleIO *io) {
    if (io->ctx == NULL) {
        io->ctx = zmalloc(sizeof(RedisModuleCtx));
        moduleCtxInitOffThread(io->ctx, io->type->owner, NULL);
    }
    return io->ctx;
}

static int RM_GetDbIdFromIO(RedisModuleIO *io) { return io->dbid; }

/* LogIOError: a line under the name of the module that owns the type, as
 * Log writes it (module_api.c's, reached by its ABI name). */
static void RM_LogIOError(RedisModuleIO *io, const char *levelstr, const char *fmt, ...) {
    void (*logf)(RedisModuleCtx *, const char *, const char *, ...) = NULL;
    if (moduleGetApi("RedisModule_Log", &logf) != MODAPI_OK) return;
    char msg[8192];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    logf(RM_GetContextFromIO(io), levelstr, "%s", msg);
}

/* ---- a value as a string (SaveDataTypeToString / LoadDataTypeFromString) -------------------- */

/* The fields alone, as rdb_save writes them: no type id, no EOF. */
typedef struct stringIO {
    moduleType *type;
    void *value;
    int encver;
    int error;
} stringIO;

static void saveFieldsTo(void *writer, void *ud) {
    stringIO *s = ud;
    RedisModuleIO io;
    ioInit(&io, s->type, writer, NULL);
    io.dbid = -1;
    s->type->rdb_save(&io, s->value);
    s->error = io.error;
    ioFinish(&io);
}

static void loadFieldsFrom(void *reader, void *ud) {
    stringIO *s = ud;
    RedisModuleIO io;
    ioInit(&io, s->type, reader, NULL);
    io.dbid = -1;
    s->value = s->type->rdb_load(&io, s->encver);
    s->error = io.error;
    ioFinish(&io);
}

static robj *RM_SaveDataTypeToString(RedisModuleCtx *ctx, void *data, moduleType *mt) {
    stringIO s = {.type = mt, .value = data};
    sds payload = rdbModuleSaveToString(saveFieldsTo, &s);
    if (s.error) {
        sdsfree(payload);
        return NULL;
    }
    robj *str = createObject(OBJ_STRING, payload);
    moduleAutoAdd(ctx, AUTO_STRING, str);
    return str;
}

static void *RM_LoadDataTypeFromStringEncver(robj *str, moduleType *mt, int encver) {
    moduleStringDecode(str);
    stringIO s = {.type = mt, .encver = encver};
    rdbModuleLoadFromString((const unsigned char *)str->ptr, sdslen(str->ptr), loadFieldsFrom, &s);
    if (s.error && s.value) {
        if (mt->free) mt->free(s.value);
        s.value = NULL;
    }
    return s.value;
}

static void *RM_LoadDataTypeFromString(robj *str, moduleType *mt) { return RM_LoadDataTypeFromStringEncver(str, mt, 0); }

/* ---- RDB: a whole value ------------------------------------------------------------------- */

void moduleRdbSaveValue(void *writer, sds key, robj *o, int dbid) {
    moduleValue *mv = o->ptr;
    robj *keyobj = key ? createStringObject(key, sdslen(key)) : NULL;
    RedisModuleIO io;
    ioInit(&io, mv->type, writer, keyobj);
    io.dbid = dbid;
    rdbModulePutLen(writer, mv->type->id);
    if (mv->type->rdb_save) mv->type->rdb_save(&io, mv->value);
    rdbModulePutLen(writer, MODULE_OPCODE_EOF);
    ioFinish(&io);
    if (keyobj) decrRefCount(keyobj);
}

/* redis-check-rdb: the fields walked without the module. */
static robj *walkModuleValue(void *reader) {
    for (;;) {
        uint64_t opcode, len;
        unsigned char b[8];
        if (!rdbModuleGetLen(reader, &opcode)) return NULL;
        int ok;
        switch (opcode) {
        case MODULE_OPCODE_EOF: return createStringObject("", 0); /* counted, then dropped */
        case MODULE_OPCODE_SINT:
        case MODULE_OPCODE_UINT: ok = rdbModuleGetLen(reader, &len); break;
        case MODULE_OPCODE_FLOAT: ok = rdbModuleGetBytes(reader, b, 4); break;
        case MODULE_OPCODE_DOUBLE: ok = rdbModuleGetBytes(reader, b, 8); break;
        case MODULE_OPCODE_STRING: {
            sds s = rdbModuleGetString(reader);
            ok = s != NULL;
            sdsfree(s);
            break;
        }
        default:
            rdbModuleSetError(reader, "Unknown module opcode in the RDB file");
            return NULL;
        }
        if (!ok) return NULL;
    }
}

static char type_error[256];

static robj *moduleLoadFailed(void *reader, const char *fmt, const char *name) {
    snprintf(type_error, sizeof type_error, fmt, name);
    rdbModuleSetError(reader, type_error);
    return NULL;
}

robj *moduleRdbLoadValue(void *reader, robj *key, int dbid) {
    uint64_t id;
    if (!rdbModuleGetLen(reader, &id)) return NULL;
    if (rdbModuleChecking(reader)) return walkModuleValue(reader);
    moduleType *mt = typeById(id);
    char name[10];
    typeNameFromId(id, name);
    if (mt == NULL)
        return moduleLoadFailed(reader, "The RDB file contains module data I can't load: no matching module type '%s'",
                                name);
    RedisModuleIO io;
    ioInit(&io, mt, reader, key);
    io.dbid = dbid;
    void *value = mt->rdb_load ? mt->rdb_load(&io, (int)(id & 1023)) : NULL;
    ioFinish(&io);
    uint64_t eof = 1;
    int ok = !io.error && rdbModuleGetLen(reader, &eof);
    if (ok && eof != MODULE_OPCODE_EOF) {
        moduleLoadFailed(reader, "The RDB file contains module data for the module '%s' that is not terminated by "
                         "the proper module value EOF marker", mt->owner->name);
        ok = 0;
    }
    if (ok && value == NULL) {
        moduleLoadFailed(reader, "The RDB file contains module data for the module type '%s', that the responsible "
                         "module is not able to load. Check for modules log above for additional clues.",
                         mt->owner->name);
        ok = 0;
    }
    if (!ok) {
        if (value && mt->free) mt->free(value);
        return NULL;
    }
    return createModuleObject(mt, value);
}

/* ---- RDB: aux data (a type's globals) ------------------------------------------------------ */

void moduleRdbSaveAux(void *writer, int when, unsigned char opcode) {
    if (types == NULL) return;
    listIter li;
    listNode *ln;
    listRewind(types, &li);
    while ((ln = listNext(&li))) {
        moduleType *mt = listNodeValue(ln);
        if (mt->aux_save == NULL || !(mt->aux_save_triggers & when)) continue;
        rdbModulePutBytes(writer, &opcode, 1);
        rdbModulePutLen(writer, mt->id);
        rdbModulePutLen(writer, MODULE_OPCODE_UINT);
        rdbModulePutLen(writer, (uint64_t)when);
        RedisModuleIO io;
        ioInit(&io, mt, writer, NULL);
        io.dbid = -1;
        mt->aux_save(&io, when);
        ioFinish(&io);
        rdbModulePutLen(writer, MODULE_OPCODE_EOF);
    }
}

static int auxLoadFailed(void *reader, const char *fmt, const char *name) {
    moduleLoadFailed(reader, fmt, name);
    return 0;
}

int moduleRdbLoadAux(void *reader) {
    uint64_t id, when_opcode, when;
    if (!rdbModuleGetLen(reader, &id) || !rdbModuleGetLen(reader, &when_opcode) || !rdbModuleGetLen(reader, &when))
        return 0;
    if (when_opcode != MODULE_OPCODE_UINT) return auxLoadFailed(reader, "%s", "Module aux data with a bad when opcode");
    if (rdbModuleChecking(reader)) {
        robj *walked = walkModuleValue(reader);
        if (walked == NULL) return 0;
        decrRefCount(walked);
        return 1;
    }
    char name[10];
    typeNameFromId(id, name);
    moduleType *mt = typeById(id);
    if (mt == NULL)
        return auxLoadFailed(reader, "The RDB file contains AUX module data I can't load: no matching module '%s'", name);
    if (mt->aux_load == NULL)
        return auxLoadFailed(reader, "The RDB file contains module AUX data, but the module '%s' doesn't seem to support it.",
                             name);
    RedisModuleIO io;
    ioInit(&io, mt, reader, NULL);
    io.dbid = -1;
    int rc = mt->aux_load(&io, (int)(id & 1023), (int)when);
    ioFinish(&io);
    if (rc != MODAPI_OK || io.error)
        return auxLoadFailed(reader, "The RDB file contains module AUX data for the module type '%s', that the responsible "
                             "module is not able to load. Check for modules log above for additional clues.", name);
    uint64_t eof = 1;
    if (!rdbModuleGetLen(reader, &eof)) return 0;
    if (eof != MODULE_OPCODE_EOF)
        return auxLoadFailed(reader, "The RDB file contains module AUX data for the module '%s' that is not terminated by "
                             "the proper module value EOF marker", name);
    return 1;
}

/* ---- AOF rewrite --------------------------------------------------------------------------- */

/* Appends the command, as RESP, to what the rewrite writes. */
static void RM_EmitAOF(RedisModuleIO *io, const char *cmdname, const char *fmt, ...) {
    if (io->error) return;
    int argc = 0, flags = 0;
    va_list ap;
    va_start(ap, fmt);
    robj **argv = moduleFormatArgv(cmdname, fmt, &ap, &argc, &flags);
    va_end(ap);
    if (argv == NULL) {
        serverLog(LL_WARNING,
                  "Fatal: AOF method for module data type '%s' tried to call RedisModule_EmitAOF() with wrong "
                  "format specifiers '%s'",
                  io->type->name, fmt);
        io->error = 1;
        errno = EINVAL;
        return;
    }
    if (lookupCommand(argv, argc) == NULL) {
        serverLog(LL_WARNING, "Fatal: AOF method for module data type '%s' tried to emit unknown command '%s'",
                  io->type->name, cmdname);
        io->error = 1;
        errno = EINVAL;
    } else {
        io->aof = sdscatfmt(io->aof, "*%i\r\n", argc);
        for (int j = 0; j < argc; j++) {
            size_t len = sdslen(argv[j]->ptr);
            io->aof = sdscatfmt(io->aof, "$%U\r\n", (unsigned long long)len);
            io->aof = sdscatlen(io->aof, argv[j]->ptr, len);
            io->aof = sdscatlen(io->aof, "\r\n", 2);
        }
    }
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
}

sds moduleRewriteValue(sds buf, sds key, robj *o, int dbid) {
    moduleValue *mv = o->ptr;
    if (mv->type->aof_rewrite == NULL) return buf;
    robj *keyobj = createStringObject(key, sdslen(key));
    RedisModuleIO io;
    ioInit(&io, mv->type, NULL, keyobj);
    io.dbid = dbid;
    io.aof = buf;
    mv->type->aof_rewrite(&io, keyobj, mv->value);
    ioFinish(&io);
    decrRefCount(keyobj);
    return io.aof;
}

/* ---- digest ---------------------------------------------------------------------------------- */

static void RM_DigestAddStringBuffer(RedisModuleDigest *md, const char *ele, size_t len) {
    mixDigest(md->o, ele, len);
}

static void RM_DigestAddLongLong(RedisModuleDigest *md, long long ll) {
    char buf[LONG_STR_SIZE];
    int len = ll2string(buf, sizeof buf, ll);
    mixDigest(md->o, buf, (size_t)len);
}

static void RM_DigestEndSequence(RedisModuleDigest *md) {
    xorDigest(md->x, md->o, sizeof md->o);
    memset(md->o, 0, sizeof md->o);
}

static robj *RM_GetKeyNameFromDigest(RedisModuleDigest *md) { return md->key; }
static int RM_GetDbIdFromDigest(RedisModuleDigest *md) { return md->dbid; }

void moduleDigestValue(robj *key, int dbid, robj *o, unsigned char digest[20]) {
    moduleValue *mv = o->ptr;
    if (mv->type->digest == NULL) return;
    RedisModuleDigest md;
    memset(&md, 0, sizeof md);
    md.key = key;
    md.dbid = dbid;
    mv->type->digest(&md, mv->value);
    xorDigest(digest, md.x, sizeof md.x);
}

/* ---- the names modules ask for ------------------------------------------------------------- */

/* The version-4 callbacks' context (RedisModuleKeyOptCtx). */
static robj *RM_GetKeyNameFromOptCtx(keyOptCtx *ctx) { return ctx->from_key; }
static robj *RM_GetToKeyNameFromOptCtx(keyOptCtx *ctx) { return ctx->to_key; }
static int RM_GetDbIdFromOptCtx(keyOptCtx *ctx) { return ctx->from_dbid; }
static int RM_GetToDbIdFromOptCtx(keyOptCtx *ctx) { return ctx->to_dbid; }

static const moduleApiEntry type_api[] = {
    MODULE_API(GetKeyNameFromOptCtx), MODULE_API(GetToKeyNameFromOptCtx), MODULE_API(GetDbIdFromOptCtx),
    MODULE_API(GetToDbIdFromOptCtx),
    MODULE_API(CreateDataType), MODULE_API(ModuleTypeSetValue), MODULE_API(ModuleTypeGetType), MODULE_API(ModuleTypeGetValue),
    MODULE_API(ModuleTypeReplaceValue), MODULE_API(SaveUnsigned), MODULE_API(SaveSigned), MODULE_API(SaveString), MODULE_API(SaveStringBuffer),
    MODULE_API(SaveDouble), MODULE_API(SaveFloat), MODULE_API(SaveLongDouble), MODULE_API(LoadUnsigned), MODULE_API(LoadSigned), MODULE_API(LoadString),
    MODULE_API(LoadStringBuffer), MODULE_API(LoadDouble), MODULE_API(LoadFloat), MODULE_API(LoadLongDouble), MODULE_API(IsIOError),
    MODULE_API(GetKeyNameFromIO), MODULE_API(GetContextFromIO), MODULE_API(GetDbIdFromIO), MODULE_API(LogIOError), MODULE_API(EmitAOF),
    MODULE_API(DigestAddStringBuffer), MODULE_API(DigestAddLongLong), MODULE_API(DigestEndSequence), MODULE_API(GetKeyNameFromDigest),
    MODULE_API(GetDbIdFromDigest), MODULE_API(SaveDataTypeToString), MODULE_API(LoadDataTypeFromString), MODULE_API(LoadDataTypeFromStringEncver),
};

int moduleTypeGetApi(const char *name, void *target) {
    return MODULE_API_LOOKUP(type_api, name, target);
}
