/* propagate.c -- what a command changed, as commands for the AOF.
 *
 * call() (server.c) runs a command and then calls propagateAfterCall(). A
 * command that changed the dataset (server.dirty moved) is propagated as
 * itself, after translation to a form that replays to the same result
 * whenever it is replayed: relative expire times become absolute
 * (EXPIRE -> PEXPIREAT, SET EX -> SET PXAT), and floating-point increments
 * become the value they produced (INCRBYFLOAT -> SET ... KEEPTTL), so a
 * replay on another CPU or at another time gives the same bytes. Commands
 * whose effect isn't their argv (SPOP, a served blocking pop) rewrite their
 * argv themselves (rewriteClientCommandVector) or add the effect with
 * alsoPropagate() and call preventCommandPropagation().
 *
 * Design decisions:
 * - Effects gathered while a command runs (alsoPropagate: a lazily expired
 *   key's DEL, the commands of an EXEC) are queued and emitted, in order,
 *   when the outermost call() returns; several of them are wrapped in
 *   MULTI/EXEC so that a replay applies all or none. Effects produced
 *   outside any command (active expiry, eviction before a command) go out
 *   at once.
 * - The consumer is a single hook (propagateOpsHook, set by aof.c), so this
 *   file has no idea where the bytes end up.
 */
#include "server.h"

typedef struct propagateOp {
    int dbid;
    int argc;
    robj **argv;
} propagateOp;

static struct {
    propagateOp *ops;
    int count, capacity;
    int depth; /* nesting of call() */
} pending;

void (*propagateOpsHook)(int dbid, robj **argv, int argc) = NULL;

static void queueOp(int dbid, robj **argv, int argc) {
    if (pending.count == pending.capacity) {
        pending.capacity = pending.capacity ? pending.capacity * 2 : 8;
        pending.ops = zrealloc(pending.ops, sizeof(propagateOp) * (size_t)pending.capacity);
    }
    propagateOp *op = &pending.ops[pending.count++];
    op->dbid = dbid;
    op->argc = argc;
    op->argv = zmalloc(sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        op->argv[j] = argv[j];
        incrRefCount(argv[j]);
    }
}

static void emitOp(int dbid, robj **argv, int argc) {
    if (propagateOpsHook) propagateOpsHook(dbid, argv, argc);
}

static void emitMultiOrExec(int dbid, const char *name) {
    robj *argv[1] = {createStringObject(name, strlen(name))};
    emitOp(dbid, argv, 1);
    decrRefCount(argv[0]);
}

static void flushPendingOps(void) {
    int wrap = pending.count > 1;
    if (wrap) emitMultiOrExec(pending.ops[0].dbid, "MULTI");
    for (int j = 0; j < pending.count; j++) {
        propagateOp *op = &pending.ops[j];
        emitOp(op->dbid, op->argv, op->argc);
        for (int i = 0; i < op->argc; i++) decrRefCount(op->argv[i]);
        zfree(op->argv);
    }
    if (wrap) emitMultiOrExec(pending.ops[pending.count - 1].dbid, "EXEC");
    pending.count = 0;
}

/* Replaying a file (server.loading) propagates nothing: the effects are
 * already in the file being replayed. */
void alsoPropagate(int dbid, robj **argv, int argc, int target) {
    (void)target;
    if (propagateOpsHook == NULL || server.loading) return;
    if (pending.depth == 0) emitOp(dbid, argv, argc);
    else queueOp(dbid, argv, argc);
}

void preventCommandPropagation(client *c) { c->flags |= CLIENT_PREVENT_PROP; }
void forceCommandPropagation(client *c, int flags) {
    (void)flags;
    c->flags |= CLIENT_FORCE_PROP;
}

/* ---- translation to absolute, replay-stable forms -------------------------------------- */

static robj *msObject(long long ms) { return createStringObjectFromLongLong(ms); }
static robj *cstr(const char *s) { return createStringObject(s, strlen(s)); }

/* The key's absolute expire time after the command, or -1. */
static long long expireAfter(client *c, robj *key) { return getExpire(c->db, key); }

/* Queues argv[0..argc) (objects whose reference the caller gives away). */
static void queueOwned(int dbid, robj **argv, int argc) {
    queueOp(dbid, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
}

static int isCommand(client *c, const char *name) { return !strcasecmp(c->cmd->declared_name, name); }

/* EXPIRE/PEXPIRE/EXPIREAT/PEXPIREAT/GETEX with a time -> PEXPIREAT key ms.
 * (A time already past deleted the key: expire.c propagated a DEL.) */
static int translateExpire(client *c) {
    long long when = expireAfter(c, c->argv[1]);
    if (when == -1) return 0;
    robj *argv[3] = {cstr("PEXPIREAT"), c->argv[1], msObject(when)};
    incrRefCount(c->argv[1]);
    queueOwned(c->db->id, argv, 3);
    return 1;
}

/* SET with EX/PX/EXAT or SETEX/PSETEX -> SET key value PXAT ms; SET with
 * KEEPTTL keeps it; GET, NX and XX have done their work already. */
static int translateSet(client *c, robj *key, robj *value, int keepttl) {
    long long when = expireAfter(c, key);
    robj *argv[5] = {cstr("SET"), key, value, NULL, NULL};
    int argc = 3;
    incrRefCount(key);
    incrRefCount(value);
    if (when != -1 && !keepttl) {
        argv[argc++] = cstr("PXAT");
        argv[argc++] = msObject(when);
    } else if (keepttl) {
        argv[argc++] = cstr("KEEPTTL");
    }
    queueOwned(c->db->id, argv, argc);
    return 1;
}

static int setHasOption(client *c, const char *option) {
    for (int j = 3; j < c->argc; j++)
        if (!strcasecmp(c->argv[j]->ptr, option)) return 1;
    return 0;
}

/* INCRBYFLOAT -> SET key <result> KEEPTTL; HINCRBYFLOAT -> HSET key field <result>. */
static int translateFloatIncr(client *c) {
    robj *o = lookupKeyReadWithFlags(c->db, c->argv[1], LOOKUP_NOTOUCH | LOOKUP_NOSTATS | LOOKUP_NONOTIFY);
    if (o == NULL) return 0;
    if (o->type == OBJ_STRING) return translateSet(c, c->argv[1], o, 1);
    robj *value = hashTypeGetValueObject(o, c->argv[2]->ptr);
    if (value == NULL) return 0;
    robj *argv[4] = {cstr("HSET"), c->argv[1], c->argv[2], value};
    incrRefCount(c->argv[1]);
    incrRefCount(c->argv[2]);
    queueOwned(c->db->id, argv, 4);
    return 1;
}

/* Queues the command's replay-stable form; 1 if it did (else the caller
 * queues argv as it is). */
static int queueTranslated(client *c) {
    if (isCommand(c, "expire") || isCommand(c, "pexpire") || isCommand(c, "expireat") ||
        isCommand(c, "pexpireat"))
        return translateExpire(c);
    if (isCommand(c, "getex")) {
        if (expireAfter(c, c->argv[1]) == -1) {
            robj *argv[2] = {cstr("PERSIST"), c->argv[1]};
            incrRefCount(c->argv[1]);
            queueOwned(c->db->id, argv, 2);
            return 1;
        }
        return translateExpire(c);
    }
    if (isCommand(c, "setex") || isCommand(c, "psetex")) return translateSet(c, c->argv[1], c->argv[3], 0);
    if (isCommand(c, "set") && c->argc > 3) return translateSet(c, c->argv[1], c->argv[2], setHasOption(c, "keepttl"));
    if (isCommand(c, "incrbyfloat") || isCommand(c, "hincrbyfloat")) return translateFloatIncr(c);
    return 0;
}

/* ---- around call() ------------------------------------------------------------------------- */

void propagateBeforeCall(client *c) {
    pending.depth++;
    c->flags &= ~(uint64_t)(CLIENT_PREVENT_PROP | CLIENT_FORCE_PROP);
}

void propagateAfterCall(client *c, long long dirty_delta) {
    int prevented = c->flags & CLIENT_PREVENT_PROP;
    int wanted = dirty_delta > 0 || (c->flags & CLIENT_FORCE_PROP);
    c->flags &= ~(uint64_t)(CLIENT_PREVENT_PROP | CLIENT_FORCE_PROP);
    /* EXEC's own effects are the queued commands it ran */
    if (propagateOpsHook && wanted && !prevented && !server.loading && c->cmd->proc != execCommand)
        if (!queueTranslated(c)) queueOp(c->db->id, c->argv, c->argc);
    if (--pending.depth == 0 && pending.count) flushPendingOps();
}
