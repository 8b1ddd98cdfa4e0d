/* t_geo.c -- the GEO commands: points on the Earth kept in a sorted set.
 *
 * A member's score is the 52-bit geohash of its position (src/lib/geohash.c
 * has the format and all the arithmetic), so the GEO commands are sorted
 * set commands with coordinates around them, as in Redis 7.0:
 *
 *   GEOADD      checks the pairs, turns them into scores and runs ZADD on
 *               the rewritten vector (same flags, same reply, "zadd"
 *               events); the AOF gets that ZADD, as Redis writes it.
 *   GEOPOS, GEOHASH, GEODIST  decode the scores of members.
 *   GEORADIUS[BYMEMBER][_RO], GEOSEARCH[STORE]  one search: the shape (a
 *               circle or a box around a point or a member) gives up to nine
 *               cells, each a score range of the set; the members found
 *               there are tested against the shape, then sorted, cut to
 *               COUNT and replied, or stored as a sorted set (scores: the
 *               geohash, or the distance with STOREDIST). They replicate as
 *               written; a store counts one change (dirty) per point
 *               stored, as 7.0 does.
 *
 * Replies match Redis 7.0's bytes: distances with 4 decimals as bulk
 * strings (RESP3 too; rounded as the reference rounds them, see
 * geohashFormatDistance), coordinates as the reference prints a long
 * double ("%.17Lf" minus trailing zeros; a RESP3 double), hashes as
 * integers. Options are parsed
 * in Redis's order, so the same malformed command gets the same error.
 *
 * Design decisions:
 * - The sorted set is reached only through t_zset.c's API (score of a
 *   member, members of a score range, storing a result), so both
 *   encodings are handled there.
 * - Arithmetic on coordinates and distances is left to the geohash library
 *   (it pins down rounding on every CPU); this file only compares.
 * - Results are sorted with a stable merge sort: glibc's qsort, which the
 *   reference uses for a full sort, is one too, so equal distances keep
 *   the order in which the cells were scanned. When COUNT keeps fewer than
 *   were found, the reference sorts only the first places with its partial
 *   quicksort, which leaves ties in another order: partialQuicksort()
 *   repeats it step for step.
 */
#include "server.h"
#include "geohash.h"

/* Which command a search is. */
#define GEO_FROM_LONLAT_ARGS (1 << 0) /* GEORADIUS: center in argv[2..3] */
#define GEO_FROM_MEMBER_ARG (1 << 1)  /* GEORADIUSBYMEMBER: center member argv[2] */
#define GEO_SEARCH (1 << 2)           /* GEOSEARCH: FROM and BY options */
#define GEO_SEARCHSTORE (1 << 3)      /* GEOSEARCHSTORE: destination argv[1] */
#define GEO_NOSTORE (1 << 4)          /* the _RO variants */

#define GEO_SORT_NONE 0
#define GEO_SORT_ASC 1
#define GEO_SORT_DESC 2

/* ---- arguments ----------------------------------------------------------------------------------------------------- */

/* A member argument as an sds: borrowed, or made from an integer (*tofree). */
static sds memberSds(robj *o, sds *tofree) {
    if (sdsEncodedObject(o)) {
        *tofree = NULL;
        return o->ptr;
    }
    *tofree = sdsfromlonglong((long long)(intptr_t)o->ptr);
    return *tofree;
}

static int parseLonLatOrReply(client *c, robj **argv, double xy[2]) {
    for (int i = 0; i < 2; i++)
        if (getDoubleFromObjectOrReply(c, argv[i], &xy[i], NULL) != C_OK) return C_ERR;
    if (!geohashValidLonLat(xy[0], xy[1])) {
        addReplyErrorFormat(c, "invalid longitude,latitude pair %f,%f", xy[0], xy[1]);
        return C_ERR;
    }
    return C_OK;
}

/* Metres per unit, or -1 after replying the error. */
static double parseUnitOrReply(client *c, robj *unit) {
    if (argIsWord(unit, "m")) return 1;
    if (argIsWord(unit, "km")) return 1000;
    if (argIsWord(unit, "ft")) return 0.3048;
    if (argIsWord(unit, "mi")) return 1609.34;
    addReplyError(c, "unsupported unit provided. please use M, KM, FT, MI");
    return -1;
}

/* radius unit */
static int parseRadiusOrReply(client *c, robj **argv, geohashShape *shape) {
    double radius;
    if (getDoubleFromObjectOrReply(c, argv[0], &radius, "need numeric radius") != C_OK) return C_ERR;
    if (radius < 0) {
        addReplyError(c, "radius cannot be negative");
        return C_ERR;
    }
    double unit = parseUnitOrReply(c, argv[1]);
    if (unit < 0) return C_ERR;
    shape->kind = GEOHASH_SHAPE_CIRCLE;
    shape->radius = radius;
    shape->unit_m = unit;
    return C_OK;
}

/* width height unit */
static int parseBoxOrReply(client *c, robj **argv, geohashShape *shape) {
    double w, h;
    if (getDoubleFromObjectOrReply(c, argv[0], &w, "need numeric width") != C_OK ||
        getDoubleFromObjectOrReply(c, argv[1], &h, "need numeric height") != C_OK)
        return C_ERR;
    if (h < 0 || w < 0) {
        addReplyError(c, "height or width cannot be negative");
        return C_ERR;
    }
    double unit = parseUnitOrReply(c, argv[2]);
    if (unit < 0) return C_ERR;
    shape->kind = GEOHASH_SHAPE_BOX;
    shape->width = w;
    shape->height = h;
    shape->unit_m = unit;
    return C_OK;
}

/* 1 and the member's position if it is in the set. */
static int memberPosition(robj *zobj, robj *member, double xy[2]) {
    sds tofree, ele = memberSds(member, &tofree);
    double score;
    int found = zsetTypeScore(zobj, ele, &score);
    sdsfree(tofree);
    if (found) geohashScoreToLonLat(score, xy);
    return found;
}

/* ---- replies ------------------------------------------------------------------------------------------------------- */

static void addReplyDistance(client *c, double d) {
    char buf[GEOHASH_DISTANCE_BUFSIZE];
    int len = geohashFormatDistance(buf, d);
    addReplyBulkCBuffer(c, buf, (size_t)len);
}

/* A coordinate as the reference prints a long double: "%.17Lf" without
 * trailing zeros; a bulk string in RESP2, a double in RESP3. The value is
 * a double, exact in any long double, so every port prints these digits. */
static void addReplyCoordinate(client *c, double v) {
    char buf[MAX_LONG_DOUBLE_CHARS];
    int len = ld2string(buf, sizeof buf, (long double)v, LD_STR_HUMAN);
    if (c->resp == 2) {
        addReplyBulkCBuffer(c, buf, (size_t)len);
        return;
    }
    addReplyProto(c, ",", 1);
    addReplyProto(c, buf, (size_t)len);
    addReplyProto(c, "\r\n", 2);
}

static void addReplyPosition(client *c, const double xy[2]) {
    addReplyArrayLen(c, 2);
    addReplyCoordinate(c, xy[0]);
    addReplyCoordinate(c, xy[1]);
}

/* ---- GEOADD -------------------------------------------------------------------------------------------------------- */

/* The ZADD vector of a GEOADD: "zadd", key, its flags, then score member
 * for each longitude latitude member. NULL after replying an error. */
static robj **geoaddToZaddVector(client *c, int first, int *argc) {
    int elements = (c->argc - first) / 3;
    int n = first + elements * 2;
    robj **argv = zcalloc(sizeof(robj *) * (size_t)n);
    argv[0] = createStringObject("zadd", 4);
    for (int i = 1; i < first; i++) {
        argv[i] = c->argv[i];
        incrRefCount(argv[i]);
    }
    for (int i = 0; i < elements; i++) {
        double xy[2];
        geohashBits cell;
        if (parseLonLatOrReply(c, c->argv + first + i * 3, xy) != C_OK) {
            for (int j = 0; j < n; j++)
                if (argv[j]) decrRefCount(argv[j]);
            zfree(argv);
            return NULL;
        }
        geohashEncodeWGS84(xy[0], xy[1], GEOHASH_STEP_MAX, &cell);
        argv[first + i * 2] = createStringObjectFromLongLong((long long)geohashScoreOf(cell));
        argv[first + i * 2 + 1] = c->argv[first + i * 3 + 2];
        incrRefCount(argv[first + i * 2 + 1]);
    }
    *argc = n;
    return argv;
}

/* GEOADD key [NX|XX] [CH] longitude latitude member [...]: ZADD does the
 * work on the vector it would have been; the client's own argv is put back
 * afterwards, so SLOWLOG and MONITOR show the GEOADD. */
void geoaddCommand(client *c) {
    int first = 2, nx = 0, xx = 0;
    for (; first < c->argc; first++) {
        if (argIsWord(c->argv[first], "nx")) nx = 1;
        else if (argIsWord(c->argv[first], "xx")) xx = 1;
        else if (!argIsWord(c->argv[first], "ch")) break;
    }
    if ((c->argc - first) % 3 || (nx && xx)) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    int argc;
    robj **argv = geoaddToZaddVector(c, first, &argc);
    if (argv == NULL) return;

    robj **own_argv = c->argv;
    int own_argc = c->argc;
    long long dirty = server.dirty;
    c->argv = argv;
    c->argc = argc;
    zaddCommand(c);
    c->argv = own_argv;
    c->argc = own_argc;
    if (server.dirty != dirty && propagationEnabled()) propagateCommandAs(c, argv, argc);
    for (int j = 0; j < argc; j++) decrRefCount(argv[j]);
    zfree(argv);
}

/* ---- GEOPOS, GEOHASH, GEODIST -------------------------------------------------------------------------------------- */

void geoposCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double xy[2];
        if (zobj && memberPosition(zobj, c->argv[j], xy)) addReplyPosition(c, xy);
        else addReplyNullArray(c);
    }
}

void geohashCommand(client *c) {
    robj *zobj = lookupKeyRead(c->db, c->argv[1]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    addReplyArrayLen(c, c->argc - 2);
    for (int j = 2; j < c->argc; j++) {
        double xy[2];
        char hash[GEOHASH_STRING_LEN + 1];
        if (zobj && memberPosition(zobj, c->argv[j], xy)) {
            geohashToString(xy, hash);
            addReplyBulkCBuffer(c, hash, GEOHASH_STRING_LEN);
        } else {
            addReplyNull(c);
        }
    }
}

/* GEODIST key member1 member2 [unit] */
void geodistCommand(client *c) {
    double unit = 1;
    if (c->argc == 5) {
        unit = parseUnitOrReply(c, c->argv[4]);
        if (unit < 0) return;
    } else if (c->argc > 5) {
        addReplyErrorObject(c, shared.syntaxerr);
        return;
    }
    robj *zobj = lookupKeyReadOrReply(c, c->argv[1], shared.null[c->resp]);
    if (zobj == NULL || checkType(c, zobj, OBJ_ZSET)) return;
    double a[2], b[2];
    if (!memberPosition(zobj, c->argv[2], a) || !memberPosition(zobj, c->argv[3], b)) {
        addReplyNull(c);
        return;
    }
    addReplyDistance(c, geohashToUnit(geohashDistance(a[0], a[1], b[0], b[1]), unit));
}

/* ---- the search's results ---------------------------------------------------------------------------------------- */

typedef struct geoPoint {
    double xy[2];
    double dist; /* metres from the centre */
    double score;
    sds member;
} geoPoint;

typedef struct geoResults {
    geoPoint *items;
    size_t used, size;
    size_t limit; /* COUNT ... ANY: stop at this many; 0 = all */
    const geohashShape *shape;
    double xy[2], dist; /* the member insideShape() just accepted */
} geoResults;

static void geoResultsFree(geoResults *r) {
    for (size_t i = 0; i < r->used; i++) sdsfree(r->items[i].member);
    zfree(r->items);
}

static int geoResultsFull(const geoResults *r) { return r->limit && r->used >= r->limit; }

/* Score filter of a cell's walk: is the point inside the shape? */
static int insideShape(void *ud, double score) {
    geoResults *r = ud;
    geohashScoreToLonLat(score, r->xy);
    return geohashShapeContains(r->shape, r->xy[0], r->xy[1], &r->dist);
}

/* Visitor of the members insideShape() accepted. */
static int collectPoint(void *ud, const elemRef *member, double score) {
    geoResults *r = ud;
    if (r->used == r->size) {
        r->size = r->size ? r->size * 2 : 16;
        r->items = zrealloc(r->items, sizeof(geoPoint) * r->size);
    }
    geoPoint *p = &r->items[r->used++];
    p->xy[0] = r->xy[0];
    p->xy[1] = r->xy[1];
    p->dist = r->dist;
    p->score = score;
    p->member = elemRefToSds(member);
    return geoResultsFull(r);
}

static void collectPoints(robj *zobj, const geohashShape *shape, geoResults *r) {
    geohashBits cells[9];
    int n = geohashShapeCells(shape, cells);
    for (int i = 0; i < n && !geoResultsFull(r); i++) {
        geohashBits next = {cells[i].bits + 1, cells[i].step};
        zsetTypeForEachInRange(zobj, (double)geohashScoreOf(cells[i]), (double)geohashScoreOf(next), insideShape,
                               collectPoint, r);
    }
}

static int goesAfter(const geoPoint *a, const geoPoint *b, int sort) {
    return sort == GEO_SORT_ASC ? b->dist < a->dist : a->dist < b->dist;
}

/* Stable merge sort by distance: of two points equally far, the one found
 * first stays first. */
static void sortPoints(geoPoint *p, size_t n, geoPoint *tmp, int sort) {
    if (n < 2) return;
    size_t half = n / 2;
    sortPoints(p, half, tmp, sort);
    sortPoints(p + half, n - half, tmp, sort);
    size_t i = 0, j = half, k = 0;
    while (i < half && j < n) tmp[k++] = goesAfter(&p[i], &p[j], sort) ? p[j++] : p[i++];
    while (i < half) tmp[k++] = p[i++];
    while (j < n) tmp[k++] = p[j++];
    memcpy(p, tmp, sizeof(geoPoint) * n);
}

/* The first `keep` places only (COUNT without ANY): Redis sorts them with
 * its partial quicksort (Bentley and McIlroy's, recursing only into the
 * parts that overlap the places wanted), and members at equal distances
 * come out in the order that algorithm leaves them, not in scan order. So
 * this is the same algorithm, step for step. */
typedef struct partialSort {
    geoPoint *p;
    int sort;
    long keep_last; /* index of the last place wanted */
} partialSort;

static int compareDist(const partialSort *ps, long i, long j) {
    int asc = ps->p[i].dist > ps->p[j].dist ? 1 : ps->p[i].dist == ps->p[j].dist ? 0 : -1;
    return ps->sort == GEO_SORT_ASC ? asc : -asc;
}

static void swapPoints(const partialSort *ps, long i, long j) {
    geoPoint t = ps->p[i];
    ps->p[i] = ps->p[j];
    ps->p[j] = t;
}

static void swapRuns(const partialSort *ps, long i, long j, long n) {
    for (long k = 0; k < n; k++) swapPoints(ps, i + k, j + k);
}

static long median3(const partialSort *ps, long a, long b, long c) {
    if (compareDist(ps, a, b) < 0) return compareDist(ps, b, c) < 0 ? b : (compareDist(ps, a, c) < 0 ? c : a);
    return compareDist(ps, b, c) > 0 ? b : (compareDist(ps, a, c) < 0 ? a : c);
}

static long pivotOf(const partialSort *ps, long base, long n) {
    long m = base + n / 2;
    if (n == 7) return m;
    long l = base, r = base + n - 1;
    if (n > 40) {
        long d = n / 8;
        l = median3(ps, l, l + d, l + 2 * d);
        m = median3(ps, m - d, m, m + d);
        r = median3(ps, r - 2 * d, r - d, r);
    }
    return median3(ps, l, m, r);
}

static int wanted(const partialSort *ps, long first) { return first <= ps->keep_last; }

static void partialQuicksort(const partialSort *ps, long base, long n) {
    for (;;) {
        if (n < 7) {
            for (long m = base + 1; m < base + n; m++)
                for (long l = m; l > base && compareDist(ps, l - 1, l) > 0; l--) swapPoints(ps, l, l - 1);
            return;
        }
        swapPoints(ps, base, pivotOf(ps, base, n));
        /* [base+1, a): equal to the pivot, [a, b): less, (c, d]: greater, (d, end): equal */
        long a = base + 1, b = base + 1, c = base + n - 1, d = base + n - 1, cmp;
        for (;;) {
            for (; b <= c && (cmp = compareDist(ps, b, base)) <= 0; b++)
                if (cmp == 0) swapPoints(ps, a++, b);
            for (; b <= c && (cmp = compareDist(ps, c, base)) >= 0; c--)
                if (cmp == 0) swapPoints(ps, c, d--);
            if (b > c) break;
            swapPoints(ps, b++, c--);
        }
        long end = base + n;
        long r = a - base < b - a ? a - base : b - a;
        swapRuns(ps, base, b - r, r);
        r = d - c < end - d - 1 ? d - c : end - d - 1;
        swapRuns(ps, b, end - r, r);
        if ((r = b - a) > 1 && wanted(ps, base)) partialQuicksort(ps, base, r);
        if ((r = d - c) <= 1 || !wanted(ps, end - r)) return;
        base = end - r;
        n = r;
    }
}

/* ---- the search ------------------------------------------------------------------------------------------------------ */

typedef struct geoQuery {
    geohashShape shape;
    robj *storekey;
    int storedist;
    int withdist, withhash, withcoord;
    int frommember, fromlonlat, byradius, bybox;
    int sort, any;
    long long count; /* 0 = no limit */
} geoQuery;

/* FROMMEMBER member: the centre, unless the key is missing (then only parsed). */
static int parseFromMember(client *c, robj *zobj, robj *member, geoQuery *q) {
    if (zobj && !memberPosition(zobj, member, q->shape.xy)) {
        addReplyError(c, "could not decode requested zset member");
        return C_ERR;
    }
    q->frommember = 1;
    return C_OK;
}

/* One option at argv[i]; returns how many arguments it took, or -1 after
 * replying an error. `left` counts the arguments after argv[i]. */
static int parseSearchOption(client *c, robj *zobj, int flags, int i, int left, geoQuery *q) {
    robj *arg = c->argv[i];
    int search = flags & GEO_SEARCH;
    if (argIsWord(arg, "withdist")) q->withdist = 1;
    else if (argIsWord(arg, "withhash")) q->withhash = 1;
    else if (argIsWord(arg, "withcoord")) q->withcoord = 1;
    else if (argIsWord(arg, "any")) q->any = 1;
    else if (argIsWord(arg, "asc")) q->sort = GEO_SORT_ASC;
    else if (argIsWord(arg, "desc")) q->sort = GEO_SORT_DESC;
    else if (argIsWord(arg, "count") && left >= 1) {
        if (getLongLongFromObjectOrReply(c, c->argv[i + 1], &q->count, NULL) != C_OK) return -1;
        if (q->count <= 0) {
            addReplyError(c, "COUNT must be > 0");
            return -1;
        }
        return 2;
    } else if ((argIsWord(arg, "store") || argIsWord(arg, "storedist")) && left >= 1 && !(flags & GEO_NOSTORE) &&
               !search) {
        q->storekey = c->argv[i + 1];
        q->storedist = argIsWord(arg, "storedist");
        return 2;
    } else if (argIsWord(arg, "storedist") && (flags & GEO_SEARCHSTORE)) {
        q->storedist = 1;
    } else if (argIsWord(arg, "frommember") && left >= 1 && search && !q->fromlonlat) {
        return parseFromMember(c, zobj, c->argv[i + 1], q) == C_OK ? 2 : -1;
    } else if (argIsWord(arg, "fromlonlat") && left >= 2 && search && !q->frommember) {
        if (parseLonLatOrReply(c, c->argv + i + 1, q->shape.xy) != C_OK) return -1;
        q->fromlonlat = 1;
        return 3;
    } else if (argIsWord(arg, "byradius") && left >= 2 && search && !q->bybox) {
        if (parseRadiusOrReply(c, c->argv + i + 1, &q->shape) != C_OK) return -1;
        q->byradius = 1;
        return 3;
    } else if (argIsWord(arg, "bybox") && left >= 3 && search && !q->byradius) {
        if (parseBoxOrReply(c, c->argv + i + 1, &q->shape) != C_OK) return -1;
        q->bybox = 1;
        return 4;
    } else {
        addReplyErrorObject(c, shared.syntaxerr);
        return -1;
    }
    return 1;
}

/* The fixed arguments of each form; returns where the options begin, or
 * -1 after replying an error. */
static int parseSearchHead(client *c, robj *zobj, int flags, geoQuery *q) {
    if (flags & GEO_FROM_LONLAT_ARGS) {
        if (parseLonLatOrReply(c, c->argv + 2, q->shape.xy) != C_OK) return -1;
        if (parseRadiusOrReply(c, c->argv + 4, &q->shape) != C_OK) return -1;
        return 6;
    }
    if (flags & GEO_FROM_MEMBER_ARG) {
        if (zobj == NULL) return 5; /* the reply to a missing key depends on STORE: parse on */
        if (!memberPosition(zobj, c->argv[2], q->shape.xy)) {
            addReplyError(c, "could not decode requested zset member");
            return -1;
        }
        if (parseRadiusOrReply(c, c->argv + 3, &q->shape) != C_OK) return -1;
        return 5;
    }
    if (flags & GEO_SEARCHSTORE) q->storekey = c->argv[1];
    return flags & GEO_SEARCHSTORE ? 3 : 2;
}

/* The checks Redis makes once every option is read. */
static int checkSearchQuery(client *c, int flags, geoQuery *q) {
    if (q->storekey && (q->withdist || q->withhash || q->withcoord)) {
        addReplyErrorFormat(c, "%s is not compatible with WITHDIST, WITHHASH and WITHCOORD options",
                            flags & GEO_SEARCHSTORE ? "GEOSEARCHSTORE" : "STORE option in GEORADIUS");
        return C_ERR;
    }
    if ((flags & GEO_SEARCH) && !(q->frommember || q->fromlonlat)) {
        addReplyErrorFormat(c, "exactly one of FROMMEMBER or FROMLONLAT can be specified for %s",
                            (char *)c->argv[0]->ptr);
        return C_ERR;
    }
    if ((flags & GEO_SEARCH) && !(q->byradius || q->bybox)) {
        addReplyErrorFormat(c, "exactly one of BYRADIUS and BYBOX can be specified for %s", (char *)c->argv[0]->ptr);
        return C_ERR;
    }
    if (q->any && !q->count) {
        addReplyError(c, "the ANY argument requires COUNT argument");
        return C_ERR;
    }
    return C_OK;
}

static int parseSearchOrReply(client *c, robj *zobj, int flags, geoQuery *q) {
    int i = parseSearchHead(c, zobj, flags, q);
    if (i < 0) return C_ERR;
    while (i < c->argc) {
        int took = parseSearchOption(c, zobj, flags, i, c->argc - i - 1, q);
        if (took < 0) return C_ERR;
        i += took;
    }
    return checkSearchQuery(c, flags, q);
}

/* A missing destination is deleted (as an empty result would be). */
static void replyMissingSource(client *c, geoQuery *q) {
    if (q->storekey == NULL) {
        addReply(c, shared.emptyarray);
        return;
    }
    if (dbDelete(c->db, q->storekey)) {
        signalModifiedKey(c, c->db, q->storekey);
        notifyKeyspaceEvent(NOTIFY_GENERIC, "del", q->storekey, c->db->id);
        server.dirty++;
    }
    addReply(c, shared.czero);
}

static void replyPoints(client *c, geoQuery *q, geoPoint *p, long n) {
    int extra = q->withdist + q->withhash + q->withcoord;
    addReplyArrayLen(c, n);
    for (long i = 0; i < n; i++) {
        if (extra) addReplyArrayLen(c, extra + 1);
        addReplyBulkCBuffer(c, p[i].member, sdslen(p[i].member));
        if (q->withdist) addReplyDistance(c, geohashToUnit(p[i].dist, q->shape.unit_m));
        if (q->withhash) addReplyLongLong(c, (long long)p[i].score);
        if (q->withcoord) addReplyPosition(c, p[i].xy);
    }
}

static void storePoints(client *c, geoQuery *q, int flags, geoPoint *p, long n) {
    robj *dst = createZsetObject();
    size_t maxelelen = 0, totelelen = 0;
    for (long i = 0; i < n; i++) {
        size_t len = sdslen(p[i].member);
        double score = q->storedist ? geohashToUnit(p[i].dist, q->shape.unit_m) : p[i].score;
        if (len > maxelelen) maxelelen = len;
        totelelen += len;
        zsetAddCBuffer(dst, score, p[i].member, len);
    }
    long long dirty = server.dirty;
    zsetStoreResult(c, q->storekey, dst, flags & GEO_SEARCH ? "geosearchstore" : "georadiusstore", maxelelen,
                    totelelen);
    if (n > 0) server.dirty = dirty + n; /* as 7.0 counts it: one change per stored point */
}

static void geoSearchGeneric(client *c, int srcidx, int flags) {
    robj *zobj = lookupKeyRead(c->db, c->argv[srcidx]);
    if (checkType(c, zobj, OBJ_ZSET)) return;
    geoQuery q;
    memset(&q, 0, sizeof q);
    if (parseSearchOrReply(c, zobj, flags, &q) != C_OK) return;
    if (zobj == NULL) {
        replyMissingSource(c, &q);
        return;
    }
    if (q.count && q.sort == GEO_SORT_NONE && !q.any) q.sort = GEO_SORT_ASC;

    geoResults r = {.limit = q.any ? (size_t)q.count : 0, .shape = &q.shape};
    geohashShapePrepare(&q.shape);
    collectPoints(zobj, &q.shape, &r);
    long n = (q.count == 0 || (long long)r.used < q.count) ? (long)r.used : (long)q.count;
    if (q.sort != GEO_SORT_NONE && n < (long)r.used) {
        partialSort ps = {r.items, q.sort, n - 1};
        partialQuicksort(&ps, 0, (long)r.used);
    } else if (q.sort != GEO_SORT_NONE && r.used > 1) {
        geoPoint *tmp = zmalloc(sizeof(geoPoint) * r.used);
        sortPoints(r.items, r.used, tmp, q.sort);
        zfree(tmp);
    }
    if (q.storekey) storePoints(c, &q, flags, r.items, n);
    else replyPoints(c, &q, r.items, n);
    geoResultsFree(&r);
}

void georadiusCommand(client *c) { geoSearchGeneric(c, 1, GEO_FROM_LONLAT_ARGS); }
void georadiusbymemberCommand(client *c) { geoSearchGeneric(c, 1, GEO_FROM_MEMBER_ARG); }
void georadiusroCommand(client *c) { geoSearchGeneric(c, 1, GEO_FROM_LONLAT_ARGS | GEO_NOSTORE); }
void georadiusbymemberroCommand(client *c) { geoSearchGeneric(c, 1, GEO_FROM_MEMBER_ARG | GEO_NOSTORE); }
void geosearchCommand(client *c) { geoSearchGeneric(c, 1, GEO_SEARCH); }
void geosearchstoreCommand(client *c) { geoSearchGeneric(c, 2, GEO_SEARCH | GEO_SEARCHSTORE); }
