/* bench_cluster.c -- the cluster's primaries for redis-benchmark --cluster
 * (see bench_cluster.h).
 *
 * Redis 7.0's tool sends all of a primary's keys to the first slot it
 * lists, through a "{tag}" placeholder in the key replaced by a string from
 * a table of tags; we search three characters from [a-zA-Z0-9] whose
 * CRC16 slot (rclient_slot.c) is that slot instead: the same placement, the
 * key names differ (they are never printed).
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

void benchClusterFree(benchMaster *masters, int count) {
    for (int k = 0; k < count; k++) {
        sdsfree(masters[k].ip);
        sdsfree(masters[k].name);
        sdsfree(masters[k].save);
        sdsfree(masters[k].appendonly);
    }
    zfree(masters);
}
