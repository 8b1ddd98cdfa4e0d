/* blobs.c -- fuzz harness: the validators of the packed encodings an RDB
 * file or a RESTORE payload hands the server (src/lib: listpack, intset,
 * ziplist, zipmap, stream_lp), then the object itself when it is accepted.
 *
 * Why: these validators are the only thing between bytes from the network
 * and code that trusts the layout (the iterators skip bound checks). A
 * validator that accepts a blob it should refuse is found here by using
 * the blob the way the server would after accepting it -- walking it both
 * ways, reading every entry, changing it -- under ASan/UBSan, and by
 * checking that what the walk sees agrees with what the validator said.
 *
 * Input: byte 0 picks the encoding (mod 5), the rest is the blob, copied
 * into a heap block of exactly its size so any read past it is caught.
 * stream_lp: bytes 1..16 are the node's master ID (ms, seq: little-endian
 * 64-bit), the rest the node.
 */
#include <string.h>

#include "fuzz.h"
#include "intset.h"
#include "listpack.h"
#include "portable.h"
#include "stream_lp.h"
#include "ziplist.h"
#include "zipmap.h"
#include "zmalloc.h"

static volatile unsigned sink; /* entries are read into it, so the reads happen */

static unsigned char *copyBlob(const uint8_t *p, size_t len) {
    unsigned char *b = zmalloc(len ? len : 1);
    if (len) memcpy(b, p, len);
    return b;
}

/* listpack: walk forwards and backwards, read every entry, seek, then
 * change it (the changed listpack must still validate). */
static void useListpack(unsigned char *lp) {
    unsigned long n = lpLength(lp), seen = 0;
    unsigned char buf[LP_INTBUF_SIZE];
    for (unsigned char *p = lpFirst(lp); p; p = lpNext(lp, p)) {
        size_t len;
        long long ll;
        const unsigned char *s = lpGetValue(p, &len, &ll);
        if (s && len) sink += s[0] + s[len - 1];
        lpGetString(p, &len, buf);
        seen++;
    }
    FUZZ_CHECK(seen == n);
    for (unsigned char *p = lpLast(lp); p; p = lpPrev(lp, p)) seen--;
    FUZZ_CHECK(seen == 0);
    if (n) {
        FUZZ_CHECK(lpSeek(lp, (long)n - 1) != NULL && lpSeek(lp, -(long)n) != NULL);
        FUZZ_CHECK(lpSeek(lp, (long)n) == NULL);
        size_t len;
        long long ll;
        const unsigned char *s = lpGetValue(lpFirst(lp), &len, &ll);
        if (s) FUZZ_CHECK(lpFind(lp, lpFirst(lp), s, len, 0) != NULL);
    }
    lp = lpAppend(lp, (const unsigned char *)"fuzz", 4);
    lp = lpPrependInteger(lp, -12345);
    unsigned char *first = lpFirst(lp);
    lp = lpDelete(lp, first, NULL);
    FUZZ_CHECK(lpValidateIntegrity(lp, lpBytes(lp), 1, NULL, NULL));
    FUZZ_CHECK(lpLength(lp) == n + 1);
    lpFree(lp);
}

static void fuzzListpack(const uint8_t *data, size_t size) {
    unsigned char *lp = copyBlob(data, size);
    int shallow = lpValidateIntegrity(lp, size, 0, NULL, NULL);
    int deep = lpValidateIntegrity(lp, size, 1, NULL, NULL);
    if (deep) FUZZ_CHECK(shallow);
    if (deep) useListpack(lp); /* frees it */
    else zfree(lp);
}

static void fuzzIntset(const uint8_t *data, size_t size) {
    void *blob = copyBlob(data, size); /* zmalloc'd: aligned as an intset is */
    if (!intsetValidateIntegrity(blob, size, 1)) {
        zfree(blob);
        return;
    }
    intset *is = blob;
    uint32_t n = intsetLen(is);
    FUZZ_CHECK(n > 0 && intsetBlobLen(is) == size);
    int64_t prev = 0, v;
    for (uint32_t j = 0; j < n; j++) {
        FUZZ_CHECK(intsetGet(is, j, &v));
        if (j) FUZZ_CHECK(v > prev);
        FUZZ_CHECK(intsetFind(is, v));
        prev = v;
    }
    FUZZ_CHECK(!intsetGet(is, n, &v));
    FUZZ_CHECK(intsetMax(is) == prev);
    int added;
    is = intsetAdd(is, INT64_MIN, &added);
    FUZZ_CHECK(intsetValidateIntegrity((unsigned char *)is, intsetBlobLen(is), 1));
    intsetFree(is);
}

static void fuzzZiplist(const uint8_t *data, size_t size) {
    unsigned char *zl = copyBlob(data, size);
    unsigned long count = 0, walked = 0;
    int valid = ziplistValidateIntegrity(zl, size, &count);
    ziplistIter it;
    int r = -1;
    if (ziplistIterInit(&it, zl, size)) {
        ziplistValue v;
        while ((r = ziplistIterNext(&it, &v)) == 1) {
            if (v.s && v.len) FUZZ_CHECK(v.s >= zl && v.s + v.len <= zl + size);
            walked++;
        }
    }
    /* The validator and a checking walk must agree. */
    FUZZ_CHECK(valid == (r == 0));
    if (valid) FUZZ_CHECK(walked == count);
    zfree(zl);
}

static void fuzzZipmap(const uint8_t *data, size_t size) {
    unsigned char *zm = copyBlob(data, size);
    unsigned long pairs = 0, walked = 0;
    int valid = zipmapValidateIntegrity(zm, size, &pairs);
    zipmapIter it;
    int r = -1;
    if (zipmapIterInit(&it, zm, size)) {
        const unsigned char *f, *v;
        size_t flen, vlen;
        while ((r = zipmapIterNext(&it, &f, &flen, &v, &vlen)) == 1) {
            FUZZ_CHECK(f >= zm && f + flen <= zm + size && v >= zm && v + vlen <= zm + size);
            walked++;
        }
    }
    FUZZ_CHECK(valid == (r == 0));
    if (valid) FUZZ_CHECK(walked == pairs);
    zfree(zm);
}

static int sameID(const streamID *a, const streamID *b) { return streamIDCompare(a, b) == 0; }

/* A valid node: every entry's fields read, the walk's first and last IDs
 * are the validator's, backwards gives as many entries as forwards. */
static void useStreamNode(unsigned char *lp, const streamID *master, const streamID *first, const streamID *last) {
    slpEntry e;
    long entries = 0, live = 0;
    streamID prev = {0, 0};
    for (int ok = slpFirst(lp, master, &e); ok; ok = slpNext(lp, master, &e)) {
        if (entries == 0) FUZZ_CHECK(sameID(&e.id, first));
        else FUZZ_CHECK(streamIDCompare(&e.id, &prev) > 0);
        prev = e.id;
        slpString f, v;
        int fields = 0;
        while (slpEntryField(lp, &e, &f, &v)) fields++;
        FUZZ_CHECK(fields == e.nfields);
        if (!(e.flags & SLP_FLAG_DELETED)) live++;
        entries++;
    }
    if (entries) FUZZ_CHECK(sameID(&prev, last));
    FUZZ_CHECK(live == slpLiveCount(lp));
    for (int ok = slpLast(lp, master, &e); ok; ok = slpPrev(lp, master, &e)) entries--;
    FUZZ_CHECK(entries == 0);
    streamID id;
    if (live) FUZZ_CHECK(slpFirstLiveID(lp, master, &id) && slpLastLiveID(lp, master, &id));
    if (slpFirst(lp, master, &e) && !(e.flags & SLP_FLAG_DELETED)) {
        lp = slpMarkDeleted(lp, &e);
        FUZZ_CHECK(slpLiveCount(lp) == live - 1);
    }
    zfree(lp);
}

static void fuzzStreamNode(const uint8_t *data, size_t size) {
    if (size < 16) return;
    streamID master = {load64le(data), load64le(data + 8)}, first, last;
    unsigned char *lp = copyBlob(data + 16, size - 16);
    if (slpValidate(lp, size - 16, &master, &first, &last)) useStreamNode(lp, &master, &first, &last);
    else zfree(lp);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 1) return 0;
    switch (data[0] % 5) {
    case 0: fuzzListpack(data + 1, size - 1); break;
    case 1: fuzzIntset(data + 1, size - 1); break;
    case 2: fuzzZiplist(data + 1, size - 1); break;
    case 3: fuzzZipmap(data + 1, size - 1); break;
    default: fuzzStreamNode(data + 1, size - 1); break;
    }
    return 0;
}
