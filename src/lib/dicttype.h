/* dicttype.h -- ready-made dictType parts for the key kinds the server's
 * tables use, so each table's dictType names them instead of carrying its
 * own copy:
 *
 *   sds strings       dictSdsHash + dictSdsKeyCompare (binary safe), and
 *                     dictSdsDestructor when the dict owns its keys (or
 *                     values: it fits both slots);
 *   sds, ASCII case   dictSdsCaseHash + dictSdsKeyCaseCompare, for names
 *   ignored           such as commands ("GET" finds "get");
 *   pointers          dictPointerHash, with no keyCompare (pointer ==), for
 *                     sets of objects by identity.
 *
 * A dictType takes only the parts it needs, e.g.
 *
 *     dictType owned = {.hashFunction = dictSdsHash,
 *                       .keyCompare = dictSdsKeyCompare,
 *                       .keyDestructor = dictSdsDestructor};
 *
 * The hashes are dict.c's seeded dictGenHashFunction/dictGenCaseHashFunction,
 * so equal keys (equal ignoring ASCII case, for the case pair) hash equally.
 */
#ifndef REDIS_DICTTYPE_H
#define REDIS_DICTTYPE_H

#include <stdint.h>

#include "dict.h"

uint64_t dictSdsHash(const void *key);
int dictSdsKeyCompare(dict *d, const void *a, const void *b);
uint64_t dictSdsCaseHash(const void *key);
int dictSdsKeyCaseCompare(dict *d, const void *a, const void *b);
void dictSdsDestructor(dict *d, void *s);
uint64_t dictPointerHash(const void *key);

#endif /* REDIS_DICTTYPE_H */
