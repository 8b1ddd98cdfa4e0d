/* argpool.c -- the objects holding a client's command arguments, recycled
 * from one command to the next.
 *
 * Every argument of every request becomes a string object, and nearly all of
 * them die when the command ends: the keyspace copies what it keeps (kvobj.c),
 * collections copy their members. Allocating and freeing two to twenty small
 * blocks per command, with used_memory accounting on each, was a tenth of a
 * pipelined INCR's instructions. Instead, a short argument (an embstr, up to
 * OBJ_ENCODING_EMBSTR_SIZE_LIMIT bytes) gets a block with room for the
 * longest embstr, and when the command is done a block nobody else holds goes
 * on the client's spare list, to carry the next command's argument.
 *
 * Design decisions:
 *  - A block is recycled only when it is provably one of ours: an embstr with
 *    refcount 1 whose sds sits right after the robj with capacity for the
 *    longest embstr (createEmbeddedStringObjectWithRoom). Anything else --
 *    a shared object, one a command kept (refcount > 1), one re-encoded in
 *    place as an int, a raw string -- is released normally.
 *  - The spare list is threaded through the objects' own ptr fields: no array
 *    in the client, and a client without spares costs two fields.
 *  - At most ARGPOOL_MAX_SPARES per client (1.5 KB), given back by
 *    clientsCron once the client has been idle for a while. They are in
 *    used_memory like any allocation, but not in a client's own figure
 *    (tot-mem, maxmemory-clients): that counts the arguments of the command
 *    being run by their lengths, as Redis does, and must not change by a
 *    block or two between one command and the next -- maxmemory-clients
 *    evicts exactly down to the limit, and a client measured during one
 *    command is compared at the next.
 */
#include "argpool.h"

robj *argpoolCreateArg(client *c, const char *p, size_t len) {
    if (len > OBJ_ENCODING_EMBSTR_SIZE_LIMIT) return createRawStringObject(p, len);
    robj *o = c->argpool_head;
    if (o == NULL) return createEmbeddedStringObjectWithRoom(p, len);
    c->argpool_head = o->ptr;
    c->argpool_count--;
    return reuseEmbeddedStringObject(o, p, len);
}

void argpoolReleaseArg(client *c, robj *o) {
    if (c->argpool_count < ARGPOOL_MAX_SPARES && o->refcount == 1 && embeddedStringHasRoom(o)) {
        o->ptr = c->argpool_head;
        c->argpool_head = o;
        c->argpool_count++;
        return;
    }
    decrRefCount(o);
}

void argpoolFree(client *c) {
    while (c->argpool_head) {
        robj *o = c->argpool_head;
        c->argpool_head = o->ptr;
        zfree(o);
    }
    c->argpool_count = 0;
}
