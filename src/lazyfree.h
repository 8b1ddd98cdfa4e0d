/* lazyfree.h -- freeing big values and flushed databases in a background
 * thread (lazyfree.c). */
#ifndef LAZYFREE_H
#define LAZYFREE_H

#include <stddef.h>

size_t lazyfreeEffort(robj *o, int dbid);
size_t lazyfreeValue(robj *o, int dbid); /* what the thread will free (an estimate), 0: freed at once */
void lazyfreeDbTables(redisDb *db);
size_t lazyfreePendingObjects(void);
size_t lazyfreePendingBytes(void); /* estimated memory of the values still queued */
size_t lazyfreeFreedObjects(void);
void lazyfreeResetStats(void);

#endif
