/* propagate.c -- what a command changed, as commands, for the AOF and the
 * replication stream.
 *
 * call() (server.c) brackets every command with propagateBeforeCall() and
 * propagateAfterCall(). A command that changed the dataset (server.dirty
 * moved, or it called forceCommandPropagation()) is propagated as its own
 * argv, unless the command said otherwise, from its own code, where the
 * values it just computed are at hand:
 * - propagateCommandAs(c, argv, argc): "propagate this instead of my argv",
 *   for commands whose argv would not replay to the same result: relative
 *   times become absolute (EXPIRE -> PEXPIREAT, SET EX -> SET PXAT, expire.c
 *   and t_string.c), floating-point increments the value they produced
 *   (INCRBYFLOAT -> SET ... KEEPTTL, HINCRBYFLOAT -> HSET), random picks
 *   what was picked (SPOP -> SREM), a served blocking pop the pop it did.
 * - alsoPropagate(dbid, argv, argc): an effect besides the command's own (a
 *   lazily expired key's DEL), or one outside any command (active expiry,
 *   eviction).
 * The client's argv is never rewritten for propagation, so SLOWLOG,
 * MONITOR, commandstats and the argument pool (argpool.c) see what the
 * client sent. Both build nothing unless propagationEnabled() (server.h):
 * with no consumer (the AOF off) a write costs a branch, and a command
 * tests it before building a replacement vector.
 *
 * Design decisions:
 * - One path. Ops gathered while a command runs are queued and emitted, in
 *   order, when the outermost call() returns; several of them are wrapped
 *   in MULTI/EXEC, so a replay applies all or none (the commands of an EXEC,
 *   a command and the DEL of a key it found expired). Ops of an execution
 *   unit outside any command (a module's timer or thread, the active
 *   expiry cycle: propagateUnitBegin) go out when it ends; other effects
 *   produced outside any command go out at once.
 * - The consumers are called directly (emitOp: aofFeed, then
 *   replicationFeed, which drops ops while a replica applies its
 *   primary's stream: that stream is fed on byte for byte, replica.c). A script's effects wrapped in
 *   MULTI/EXEC need nothing new: the commands a script runs are nested
 *   call()s, queued until the outermost one returns.
 * - One target flag instead of call() flags: every effect goes to every
 *   consumer, except PUBLISH, which goes to the replicas only
 *   (propagateToReplicasOnly: their subscribers get the message; replaying
 *   it from the AOF would publish it again); MULTI/EXEC reach the AOF only
 *   around two or more ops of its own. Replaying a file (server.loading)
 *   propagates nothing, as its effects are already in the file. A script's
 *   redis.set_repl() narrows the targets of what its commands do
 *   (propagateSetTargets): the AOF, the replicas, both or neither.
 */
#include "server.h"

/* Where an op goes, a mask: every consumer, or only the replicas (PUBLISH,
 * so a replica's subscribers get the messages; replaying it from the AOF
 * would publish them again), or what a script's redis.set_repl() chose. */
#define TO_AOF 1
#define TO_REPLICAS 2
#define TO_ALL (TO_AOF | TO_REPLICAS)

typedef struct propagateOp {
    int dbid;
    int argc;
    int target; /* TO_AOF, TO_REPLICAS or both */
    robj **argv;
} propagateOp;

static struct {
    propagateOp *ops;
    int count, capacity;
    int depth; /* nesting of call() */
    int units; /* nesting of execution units (propagateUnitBegin) */
    int unit_wraps; /* the outermost unit, begun outside any command, may wrap in MULTI/EXEC */
    int targets; /* TO_ALL, or what a script's redis.set_repl() left (0: nothing is queued) */
} pending = {.targets = TO_ALL};

static void queueOp(int dbid, robj **argv, int argc, int target) {
    target &= pending.targets;
    if (target == 0) return;
    if (pending.count == pending.capacity) {
        pending.capacity = pending.capacity ? pending.capacity * 2 : 8;
        pending.ops = zrealloc(pending.ops, sizeof(propagateOp) * (size_t)pending.capacity);
    }
    propagateOp *op = &pending.ops[pending.count++];
    op->dbid = dbid;
    op->argc = argc;
    op->target = target;
    op->argv = zmalloc(sizeof(robj *) * (size_t)argc);
    for (int j = 0; j < argc; j++) {
        op->argv[j] = argv[j];
        incrRefCount(argv[j]);
    }
}

/* Hands one op to its consumers. */
static void emitOp(int dbid, robj **argv, int argc, int target) {
    if (target & TO_AOF) aofFeed(dbid, argv, argc);
    if (target & TO_REPLICAS) replicationFeed(dbid, argv, argc);
}

/* MULTI or EXEC around the pending ops, for the AOF only when more than one
 * of them goes there (the replicas get every op). */
static void emitMultiOrExec(int dbid, const char *name, int aof_ops) {
    robj *argv[1] = {createStringObject(name, strlen(name))};
    if (aof_ops > 1) aofFeed(dbid, argv, 1);
    replicationFeed(dbid, argv, 1);
    decrRefCount(argv[0]);
}

/* `wrappable`: MULTI/EXEC may go around several ops. Not when the command
 * was SCAN or RANDOMKEY run directly: the DELs of the keys they found
 * expired are independent, and Redis 7.0 sends them bare. */
static void flushPendingOps(int wrappable) {
    int wrap = wrappable && pending.count > 1, aof_ops = 0;
    for (int j = 0; j < pending.count; j++) aof_ops += (pending.ops[j].target & TO_AOF) != 0;
    if (wrap) emitMultiOrExec(pending.ops[0].dbid, "MULTI", aof_ops);
    for (int j = 0; j < pending.count; j++) {
        propagateOp *op = &pending.ops[j];
        emitOp(op->dbid, op->argv, op->argc, op->target);
        for (int i = 0; i < op->argc; i++) decrRefCount(op->argv[i]);
        zfree(op->argv);
    }
    if (wrap) emitMultiOrExec(pending.ops[pending.count - 1].dbid, "EXEC", aof_ops);
    pending.count = 0;
}

/* ---- the API commands use ------------------------------------------------------------ */

/* argv stays the caller's: the op keeps references of its own. */
void alsoPropagate(int dbid, robj **argv, int argc) {
    if (!propagationEnabled() || pending.targets == 0) return;
    if (pending.depth == 0 && pending.units == 0) emitOp(dbid, argv, argc, TO_ALL);
    else queueOp(dbid, argv, argc, TO_ALL);
}

/* The command goes to the replicas as it is, and not to the AOF (PUBLISH). */
void propagateToReplicasOnly(client *c) {
    if (!propagationEnabled() || !(pending.targets & TO_REPLICAS)) return;
    if (pending.depth == 0 && pending.units == 0) emitOp(c->db->id, c->argv, c->argc, TO_REPLICAS);
    else queueOp(c->db->id, c->argv, c->argc, TO_REPLICAS);
    preventCommandPropagation(c);
}

void propagateCommandAs(client *c, robj **argv, int argc) {
    alsoPropagate(c->db->id, argv, argc);
    preventCommandPropagation(c);
}

/* The command's effect as `name key [count]`: how Redis rewrites a pop
 * that must replay without blocking or choosing (a served BLPOP as LPOP,
 * LMPOP as LPOP key n, ZMPOP as ZPOPMIN key n, GETDEL as DEL key). */
void propagateAsKeyCommand(client *c, const char *name, robj *key, long long count, int with_count) {
    if (!propagationEnabled()) return;
    robj *argv[3] = {createStringObject(name, strlen(name)), key,
                     with_count ? createStringObjectFromLongLong(count) : NULL};
    propagateCommandAs(c, argv, with_count ? 3 : 2);
    decrRefCount(argv[0]);
    if (with_count) decrRefCount(argv[2]);
}

int propagateQueuedOps(void) { return pending.count; }

/* An execution unit outside any command, as Redis 7.0 has them: a module's
 * callback (a timer, a server event, a keyspace notification, a blocked
 * client's callback, OnLoad) or a module thread holding the lock; the
 * active expiry and eviction cycles. What it propagates, its own ops and
 * those of the commands it runs (a module's Call), is queued and goes out
 * when the outermost unit ends: wrapped in MULTI/EXEC when there are two
 * or more and the unit wraps (a module's, so a replay applies all its
 * effects or none), bare for the cycles (each DEL stands alone, as in
 * Redis 7.0). Units nest (a module's notification during active expiry
 * belongs to the cycle's unit). Begun inside a command, a unit changes
 * nothing: the command's ops go out when the outermost call() returns. */
void propagateUnitBegin(int wraps) {
    if (pending.units++ == 0 && pending.depth == 0) pending.unit_wraps = wraps;
}

void propagateUnitEnd(void) {
    if (--pending.units == 0 && pending.depth == 0 && pending.count) flushPendingOps(pending.unit_wraps);
}

/* Where what commands do is propagated to, until set back (script.c:
 * around each command of a script that called redis.set_repl()). */
void propagateSetTargets(int to_aof, int to_replicas) {
    pending.targets = (to_aof ? TO_AOF : 0) | (to_replicas ? TO_REPLICAS : 0);
}

/* propagateSetTargets() for a command run inside another (a module's
 * Call): returns the targets in force, for propagateRestoreTargets once
 * that command ran, so the caller's own targets (a script's
 * redis.set_repl()) hold again after it. */
int propagateSwapTargets(int to_aof, int to_replicas) {
    int previous = pending.targets;
    propagateSetTargets(to_aof, to_replicas);
    return previous;
}

void propagateRestoreTargets(int targets) { pending.targets = targets; }

void preventCommandPropagation(client *c) { c->flags |= CLIENT_PREVENT_PROP; }
void forceCommandPropagation(client *c) { c->flags |= CLIENT_FORCE_PROP; }

/* ---- around call() ------------------------------------------------------------------------- */

void propagateBeforeCall(client *c) {
    pending.depth++;
    c->flags &= ~(uint64_t)(CLIENT_PREVENT_PROP | CLIENT_FORCE_PROP);
}

/* EXEC's own effects are the commands it ran, each propagated by its call(). */
void propagateAfterCall(client *c, long long dirty_delta) {
    int prevented = c->flags & CLIENT_PREVENT_PROP;
    int wanted = dirty_delta > 0 || (c->flags & CLIENT_FORCE_PROP);
    c->flags &= ~(uint64_t)(CLIENT_PREVENT_PROP | CLIENT_FORCE_PROP);
    if (wanted && !prevented && c->cmd->proc != execCommand && propagationEnabled())
        queueOp(c->db->id, c->argv, c->argc, TO_ALL);
    if (--pending.depth == 0 && pending.count && pending.units == 0) {
        int arbitrary_keys = c->cmd->proc == scanCommand || c->cmd->proc == randomkeyCommand;
        flushPendingOps(!arbitrary_keys);
    }
}
