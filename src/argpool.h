/* argpool.h -- argument objects recycled per client (see argpool.c). */
#ifndef ARGPOOL_H
#define ARGPOOL_H

#include "server.h"

/* At most this many spare objects wait per client: a pipelined MSET of ten
 * pairs (21 arguments) runs with no allocation at all. */
#define ARGPOOL_MAX_SPARES 24

robj *argpoolCreateArg(client *c, const char *p, size_t len);
void argpoolReleaseArg(client *c, robj *o);
void argpoolFree(client *c);

#endif
