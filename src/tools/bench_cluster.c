/* bench_cluster.c -- the cluster's primaries for redis-benchmark --cluster
 * (see bench_cluster.h).
 *
 * Redis 7.0's tool sends all of a primary's keys to the first slot it
 * lists, through a "{tag}" placeholder in the key replaced by a string from
 * a table of tags; we search three characters from [a-zA-Z0-9] whose
 * CRC16 slot (rclient_slot.c) is that slot instead: the same placement, the
 * key names differ (they are never printed).
 *
 * When a slot moves during a run (-MOVED/-ASK), the tool re-reads CLUSTER
 * SLOTS and each primary's first slot becomes the first one the reply lists
 * for it, as in Redis 7.0's tool (benchClusterApplySlots).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "bench_cluster.h"
#include "zmalloc.h"

static const char tag_chars[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";

/* 62^3 candidates for 16384 slots: every slot has some. */
static void findTag(int slot, char tag[3]) {
    int n = (int)sizeof(tag_chars) - 1;
    for (int a = 0; a < n; a++)
        for (int b = 0; b < n; b++)
            for (int c = 0; c < n; c++) {
                char t[3] = {tag_chars[a], tag_chars[b], tag_chars[c]};
                if ((int)rcKeyHashSlot(t, 3) != slot) continue;
                memcpy(tag, t, 3);
                return;
            }
    memcpy(tag, "tag", 3);
}

/* The first plain slot field ("5461-10922" or "42"), -1 for none. */
static int firstSlot(sds *t, int count) {
    for (int k = 8; k < count; k++)
        if (sdslen(t[k]) && t[k][0] != '[') return atoi(t[k]);
    return -1;
}

static int parseLine(const char *line, benchMaster **masters, int *count, sds *err) {
    int n = 0;
    sds *t = sdssplitlen(line, (ssize_t)strlen(line), " ", 1, &n);
    int ok = 1;
    if (n < 3) {
        if (n > 0) *err = sdsnew("Invalid CLUSTER NODES reply: missing flags.");
        ok = n == 0;
    } else if (!strstr(t[2], "slave") && !(n > 3 && t[3][0] != '-')) {
        char *colon = strrchr(t[1], ':');
        char *at = colon ? strchr(colon, '@') : NULL;
        if (at) *at = '\0';
        if (colon) *colon = '\0';
        int slot = firstSlot(t, n);
        if (slot < 0) {
            fprintf(stderr, "WARNING: Master node %s:%d has no slots, skipping...\n", t[1], colon ? atoi(colon + 1) : 0);
        } else {
            *masters = zrealloc(*masters, sizeof(benchMaster) * (size_t)(*count + 1));
            benchMaster *m = &(*masters)[(*count)++];
            memset(m, 0, sizeof(*m));
            m->ip = sdsnew(t[1]);
            m->port = colon ? atoi(colon + 1) : 0;
            m->name = sdsdup(t[0]);
            m->first_slot = slot;
            findTag(slot, m->tag);
        }
    }
    sdsfreesplitres(t, n);
    return ok;
}

int benchClusterParse(const char *nodes, size_t len, benchMaster **masters, sds *err) {
    *masters = NULL;
    *err = NULL;
    int count = 0, lines = 0;
    sds *l = sdssplitlen(nodes, (ssize_t)len, "\n", 1, &lines);
    for (int k = 0; k < lines; k++) {
        if (!parseLine(l[k], masters, &count, err)) {
            sdsfreesplitres(l, lines);
            benchClusterFree(*masters, count);
            *masters = NULL;
            return -1;
        }
    }
    sdsfreesplitres(l, lines);
    return count;
}

/* The master entry of one CLUSTER SLOTS range: [from, to, [ip, port, id ...] ...]. */
static int slotRangeValid(const rcReply *e) {
    if (e->type != RC_REPLY_ARRAY || e->elements < 3) return 0;
    if (e->element[0]->type != RC_REPLY_INTEGER || e->element[1]->type != RC_REPLY_INTEGER) return 0;
    long long from = e->element[0]->integer, to = e->element[1]->integer;
    if (from < 0 || to < from || to >= BENCH_CLUSTER_SLOTS) return 0;
    const rcReply *m = e->element[2];
    return m->type == RC_REPLY_ARRAY && m->elements >= 3 && m->element[2]->type == RC_REPLY_BULK;
}

static int findMaster(const benchMaster *masters, int count, const char *id, size_t len) {
    for (int k = 0; k < count; k++)
        if (sdslen(masters[k].name) == len && !memcmp(masters[k].name, id, len)) return k;
    return -1;
}

/* Nothing changes unless the whole reply is good: a primary the reply names
 * that we do not know (added during the run) fails the update with Redis's
 * message, and a primary the reply does not name keeps its slot. */
int benchClusterApplySlots(benchMaster *masters, int count, const rcReply *slots, sds *err) {
    *err = NULL;
    const char *prefix = "Failed to update cluster slots configuration";
    if (slots == NULL || slots->type != RC_REPLY_ARRAY) {
        *err = sdscatprintf(sdsempty(), "%s: CLUSTER SLOTS did not reply with an array.", prefix);
        return -1;
    }
    int *first = zmalloc(sizeof(int) * (size_t)(count ? count : 1));
    for (int k = 0; k < count; k++) first[k] = -1;
    for (size_t i = 0; i < slots->elements; i++) {
        const rcReply *e = slots->element[i];
        if (!slotRangeValid(e)) {
            *err = sdscatprintf(sdsempty(), "%s: malformed CLUSTER SLOTS entry %zu.", prefix, i);
            break;
        }
        const rcReply *id = e->element[2]->element[2];
        int k = findMaster(masters, count, id->str, id->len);
        if (k < 0) {
            *err = sdscatprintf(sdsempty(), "%s: could not find node with ID %s in current configuration.", prefix,
                                id->str);
            break;
        }
        if (first[k] < 0) first[k] = (int)e->element[0]->integer;
    }
    if (*err == NULL) {
        for (int k = 0; k < count; k++) {
            if (first[k] < 0 || first[k] == masters[k].first_slot) continue;
            masters[k].first_slot = first[k];
            findTag(first[k], masters[k].tag);
        }
    }
    zfree(first);
    return *err ? -1 : 0;
}

int benchClusterRedirect(const char *err) {
    if (!strncmp(err, "MOVED", 5) || !strncmp(err, "ASK", 3)) return BENCH_REDIRECT_MOVED;
    if (!strncmp(err, "CLUSTERDOWN", 11)) return BENCH_REDIRECT_DOWN;
    return BENCH_REDIRECT_NONE;
}

void benchClusterFree(benchMaster *masters, int count) {
    for (int k = 0; k < count; k++) {
        sdsfree(masters[k].ip);
        sdsfree(masters[k].name);
        sdsfree(masters[k].save);
        sdsfree(masters[k].appendonly);
    }
    zfree(masters);
}
