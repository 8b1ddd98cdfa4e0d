/* adlist.h -- a generic doubly linked list.
 *
 * Used where the server needs O(1) append, O(1) removal of a known node and
 * ordered traversal: the list of clients, a client's reply blocks, clients
 * blocked on a key. Values are void pointers; an optional free method
 * releases them when a node or the list is deleted, and an optional match
 * method lets listSearchKey compare values instead of pointers.
 */
#ifndef REDIS_ADLIST_H
#define REDIS_ADLIST_H

typedef struct listNode {
    struct listNode *prev;
    struct listNode *next;
    void *value;
} listNode;

typedef struct list {
    listNode *head;
    listNode *tail;
    void (*free)(void *value);
    int (*match)(void *value, void *key);
    unsigned long len;
} list;

typedef struct listIter {
    listNode *next;
    int direction;
} listIter;

#define AL_START_HEAD 0
#define AL_START_TAIL 1

#define listLength(l) ((l)->len)
#define listFirst(l) ((l)->head)
#define listLast(l) ((l)->tail)
#define listPrevNode(n) ((n)->prev)
#define listNextNode(n) ((n)->next)
#define listNodeValue(n) ((n)->value)
#define listSetFreeMethod(l, m) ((l)->free = (m))
#define listSetMatchMethod(l, m) ((l)->match = (m))

list *listCreate(void);
void listRelease(list *l);
void listEmpty(list *l);
list *listAddNodeHead(list *l, void *value);
list *listAddNodeTail(list *l, void *value);
void listLinkNodeTail(list *l, listNode *node);
void listUnlinkNode(list *l, listNode *node);
void listDelNode(list *l, listNode *node);
void listRewind(list *l, listIter *li);
void listRewindTail(list *l, listIter *li);
listNode *listNext(listIter *li);
listNode *listSearchKey(list *l, void *key);
listNode *listIndex(list *l, long index);
void listRotateTailToHead(list *l);
void listRotateHeadToTail(list *l);

#endif /* REDIS_ADLIST_H */
