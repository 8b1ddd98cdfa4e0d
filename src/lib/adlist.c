/* adlist.c -- a generic doubly linked list (see adlist.h).
 *
 * Nodes are allocated one by one with zmalloc; a list never owns its values
 * unless a free method is set. Iterators remember the next node before
 * returning the current one, so the current node may be deleted while
 * iterating.
 */
#include "adlist.h"
#include "zmalloc.h"

list *listCreate(void) {
    list *l = zmalloc(sizeof(*l));
    l->head = l->tail = NULL;
    l->len = 0;
    l->free = NULL;
    l->match = NULL;
    return l;
}

void listEmpty(list *l) {
    listNode *node = l->head;
    while (node) {
        listNode *next = node->next;
        if (l->free) l->free(node->value);
        zfree(node);
        node = next;
    }
    l->head = l->tail = NULL;
    l->len = 0;
}

void listRelease(list *l) {
    if (!l) return;
    listEmpty(l);
    zfree(l);
}

static void link_head(list *l, listNode *node) {
    node->prev = NULL;
    node->next = l->head;
    if (l->head) l->head->prev = node;
    else l->tail = node;
    l->head = node;
    l->len++;
}

void listLinkNodeTail(list *l, listNode *node) {
    node->next = NULL;
    node->prev = l->tail;
    if (l->tail) l->tail->next = node;
    else l->head = node;
    l->tail = node;
    l->len++;
}

static listNode *new_node(void *value) {
    listNode *node = zmalloc(sizeof(*node));
    node->value = value;
    return node;
}

list *listAddNodeHead(list *l, void *value) {
    link_head(l, new_node(value));
    return l;
}

list *listAddNodeTail(list *l, void *value) {
    listLinkNodeTail(l, new_node(value));
    return l;
}

/* Detach a node without freeing it or its value. */
void listUnlinkNode(list *l, listNode *node) {
    if (node->prev) node->prev->next = node->next;
    else l->head = node->next;
    if (node->next) node->next->prev = node->prev;
    else l->tail = node->prev;
    node->prev = node->next = NULL;
    l->len--;
}

void listDelNode(list *l, listNode *node) {
    listUnlinkNode(l, node);
    if (l->free) l->free(node->value);
    zfree(node);
}

void listRewind(list *l, listIter *li) {
    li->next = l->head;
    li->direction = AL_START_HEAD;
}

void listRewindTail(list *l, listIter *li) {
    li->next = l->tail;
    li->direction = AL_START_TAIL;
}

listNode *listNext(listIter *li) {
    listNode *current = li->next;
    if (current) li->next = li->direction == AL_START_HEAD ? current->next : current->prev;
    return current;
}

listNode *listSearchKey(list *l, void *key) {
    listIter li;
    listNode *node;
    listRewind(l, &li);
    while ((node = listNext(&li)) != NULL) {
        if (l->match ? l->match(node->value, key) : node->value == key) return node;
    }
    return NULL;
}

/* Index from the head (0 = first) or, when negative, from the tail (-1 = last). */
listNode *listIndex(list *l, long index) {
    listNode *node;
    if (index < 0) {
        index = (-index) - 1;
        node = l->tail;
        while (index-- && node) node = node->prev;
    } else {
        node = l->head;
        while (index-- && node) node = node->next;
    }
    return node;
}

void listRotateTailToHead(list *l) {
    if (l->len <= 1) return;
    listNode *tail = l->tail;
    listUnlinkNode(l, tail);
    link_head(l, tail);
}

void listRotateHeadToTail(list *l) {
    if (l->len <= 1) return;
    listNode *head = l->head;
    listUnlinkNode(l, head);
    listLinkNodeTail(l, head);
}
