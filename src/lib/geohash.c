/* geohash.c -- 52-bit geohash cells, haversine distances and the cells a
 * GEO search scans (the format and the contract are in geohash.h).
 *
 * Design decisions:
 * - Every number a reply shows comes out of double arithmetic done here, so
 *   this file pins down how that arithmetic rounds. Fused multiply-add is
 *   switched off for the file (GCC contracts a*b+c on aarch64 and s390x in
 *   its default gnu mode). On the x87 FPU each public function that
 *   computes sets the precision control to 53 bits for its duration and
 *   puts it back, so every +, -, *, / rounds once to a double as SSE2 does
 *   (rounding first to 64 bits and then to 53 differs in rare ties); the
 *   work itself sits in a separate function the compiler may not inline or
 *   analyse, so none of it can move out of the bracket. sin, cos and asin
 *   are called at the FPU's usual precision (libm()), which they need.
 * - Neighbours are computed on the two coordinates taken apart (step
 *   numbers plus or minus one, modulo 2^step), not on the interleaved word.
 * - The search cells follow Redis 7.0's choices (the step estimate from the
 *   radius, one step coarser when a neighbour does not reach the bounding
 *   box, neighbours outside the box dropped, a repeat of the cell scanned
 *   just before skipped), because which members a COUNT ANY search meets
 *   first, and the order of an unsorted reply, depend on them.
 * - Most members of the scanned cells are outside a circle, and the
 *   haversine (sin, cos, asin) is most of a search's cost, so
 *   geohashShapePrepare() derives, once, a latitude and a longitude span
 *   beyond which no member can be inside (provable bounds, widened by far
 *   more than any rounding), and the centre's cosine; members beyond the
 *   spans are dropped unmeasured, every other one gets Redis's exact test,
 *   so the members found and their distances are unchanged.
 */
#include "geohash.h"

#include <math.h>
#include <stdio.h>

#if defined(__clang__)
#pragma STDC FP_CONTRACT OFF
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

/* ---- the x87 precision bracket ------------------------------------------- */

#if defined(__i386__) && defined(__GNUC__) && !defined(__SSE2_MATH__)
typedef unsigned short fpuState;
#define FPU_PRECISION_MASK 0x300u
#define FPU_PRECISION_DOUBLE 0x200u

static fpuState fpuEnterDouble(void) {
    unsigned short old, cw;
    __asm__ __volatile__("fnstcw %0" : "=m"(old) : : "memory");
    cw = (unsigned short)((old & ~FPU_PRECISION_MASK) | FPU_PRECISION_DOUBLE);
    __asm__ __volatile__("fldcw %0" : : "m"(cw) : "memory");
    return old;
}

static void fpuLeave(fpuState old) { __asm__ __volatile__("fldcw %0" : : "m"(old) : "memory"); }

/* The libm functions run at the precision they were written for (the
 * 64-bit default: at 53 bits glibc's x87 code loses its last bits), and
 * their result is rounded to a double before the arithmetic goes on. */
static double libm(double (*fn)(double), double x) {
    unsigned short old, cw;
    __asm__ __volatile__("fnstcw %0" : "=m"(old) : : "memory");
    cw = (unsigned short)(old | FPU_PRECISION_MASK);
    __asm__ __volatile__("fldcw %0" : : "m"(cw) : "memory");
    volatile double r = fn(x);
    fpuLeave(old);
    return r;
}

#if defined(__clang__) || __GNUC__ < 8
#define FPU_BODY __attribute__((noinline))
#else
#define FPU_BODY __attribute__((noinline, noipa))
#endif
#else
typedef int fpuState;
static inline fpuState fpuEnterDouble(void) { return 0; }
static inline void fpuLeave(fpuState old) { (void)old; }
static inline double libm(double (*fn)(double), double x) { return fn(x); }
#define FPU_BODY
#endif

/* ---- constants ----------------------------------------------------------- */

#define DEG_TO_RAD 0x1.1df46a2529d39p-6 /* M_PI / 180.0 rounded to a double */
#define MERCATOR_MAX 20037726.37        /* half the equator, metres */

static const geohashRange lonRangeWGS84 = {GEOHASH_LON_MIN, GEOHASH_LON_MAX};
static const geohashRange latRangeWGS84 = {GEOHASH_LAT_MIN, GEOHASH_LAT_MAX};

static double degToRad(double deg) { return deg * DEG_TO_RAD; }
static double radToDeg(double rad) { return rad / DEG_TO_RAD; }

/* ---- bit interleaving ---------------------------------------------------- */

/* The 32 bits of v moved to the even positions of a 64-bit word. */
static uint64_t spreadBits(uint32_t v) {
    uint64_t x = v;
    x = (x | (x << 16)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x << 8)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x << 4)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x << 2)) & 0x3333333333333333ULL;
    x = (x | (x << 1)) & 0x5555555555555555ULL;
    return x;
}

/* The even bits of x gathered into 32 bits. */
static uint32_t gatherBits(uint64_t x) {
    x &= 0x5555555555555555ULL;
    x = (x | (x >> 1)) & 0x3333333333333333ULL;
    x = (x | (x >> 2)) & 0x0F0F0F0F0F0F0F0FULL;
    x = (x | (x >> 4)) & 0x00FF00FF00FF00FFULL;
    x = (x | (x >> 8)) & 0x0000FFFF0000FFFFULL;
    x = (x | (x >> 16)) & 0x00000000FFFFFFFFULL;
    return (uint32_t)x;
}

static uint64_t interleave(uint32_t lat, uint32_t lon) { return spreadBits(lat) | (spreadBits(lon) << 1); }

/* ---- encode and decode --------------------------------------------------- */

int geohashValidLonLat(double lon, double lat) {
    return lon >= GEOHASH_LON_MIN && lon <= GEOHASH_LON_MAX && lat >= GEOHASH_LAT_MIN && lat <= GEOHASH_LAT_MAX;
}

/* Step number of v in r at `step` bits (v inside r). */
static uint32_t stepNumber(const geohashRange *r, double v, int step) {
    double offset = (v - r->min) / (r->max - r->min);
    offset *= (double)(1ULL << step);
    return (uint32_t)offset;
}

static FPU_BODY void encodeBody(const geohashRange *lonr, const geohashRange *latr, double lon, double lat, int step,
                                geohashBits *out) {
    out->bits = interleave(stepNumber(latr, lat, step), stepNumber(lonr, lon, step));
    out->step = step;
}

int geohashEncode(const geohashRange *lonr, const geohashRange *latr, double lon, double lat, int step,
                  geohashBits *out) {
    if (step < 1 || step > GEOHASH_STEP_MAX || !geohashValidLonLat(lon, lat)) return GEOHASH_ERR;
    if (lon < lonr->min || lon > lonr->max || lat < latr->min || lat > latr->max) return GEOHASH_ERR;
    fpuState fpu = fpuEnterDouble();
    encodeBody(lonr, latr, lon, lat, step, out);
    fpuLeave(fpu);
    return GEOHASH_OK;
}

int geohashEncodeWGS84(double lon, double lat, int step, geohashBits *out) {
    return geohashEncode(&lonRangeWGS84, &latRangeWGS84, lon, lat, step, out);
}

/* The interval of step number n (n + 1 wraps in 32 bits, as on the reference). */
static void stepInterval(const geohashRange *r, uint32_t n, int step, geohashRange *out) {
    double scale = r->max - r->min, cells = (double)(1ULL << step);
    uint32_t next = n + 1;
    out->min = r->min + (n * 1.0 / cells) * scale;
    out->max = r->min + (next * 1.0 / cells) * scale;
}

static FPU_BODY void decodeBody(const geohashRange *lonr, const geohashRange *latr, geohashBits cell,
                                geohashArea *area) {
    stepInterval(latr, gatherBits(cell.bits), cell.step, &area->lat);
    stepInterval(lonr, gatherBits(cell.bits >> 1), cell.step, &area->lon);
}

void geohashDecode(const geohashRange *lonr, const geohashRange *latr, geohashBits cell, geohashArea *area) {
    fpuState fpu = fpuEnterDouble();
    decodeBody(lonr, latr, cell, area);
    fpuLeave(fpu);
}

void geohashDecodeWGS84(geohashBits cell, geohashArea *area) { geohashDecode(&lonRangeWGS84, &latRangeWGS84, cell, area); }

static double clamp(double v, double lo, double hi) { return v > hi ? hi : v < lo ? lo : v; }

static FPU_BODY void centerBody(const geohashArea *area, double xy[2]) {
    xy[0] = clamp((area->lon.min + area->lon.max) / 2, GEOHASH_LON_MIN, GEOHASH_LON_MAX);
    xy[1] = clamp((area->lat.min + area->lat.max) / 2, GEOHASH_LAT_MIN, GEOHASH_LAT_MAX);
}

void geohashAreaCenter(const geohashArea *area, double xy[2]) {
    fpuState fpu = fpuEnterDouble();
    centerBody(area, xy);
    fpuLeave(fpu);
}

uint64_t geohashScoreOf(geohashBits cell) { return cell.bits << (2 * (GEOHASH_STEP_MAX - cell.step)); }

/* cvttsd2si's answer for a value outside the signed 64-bit range. */
#define X86_INTEGER_INDEFINITE 0x8000000000000000ULL
#define TWO_POW_63 9223372036854775808.0

static uint64_t x86DoubleToU64(double d) {
    if (d < TWO_POW_63) {
        if (d > -TWO_POW_63) return (uint64_t)(int64_t)d;
        return X86_INTEGER_INDEFINITE;
    }
    double high = d - TWO_POW_63;
    if (high < TWO_POW_63) return (uint64_t)(int64_t)high ^ X86_INTEGER_INDEFINITE;
    return 0; /* indefinite ^ indefinite */
}

geohashBits geohashCellOfScore(double score) {
    fpuState fpu = fpuEnterDouble();
    geohashBits cell = {x86DoubleToU64(score), GEOHASH_STEP_MAX};
    fpuLeave(fpu);
    return cell;
}

void geohashScoreToLonLat(double score, double xy[2]) {
    geohashArea area;
    geohashDecodeWGS84(geohashCellOfScore(score), &area);
    geohashAreaCenter(&area, xy);
}

/* ---- neighbours ---------------------------------------------------------- */

/* A moved coordinate wraps modulo 2^step; one that does not move is kept
 * whole, even when it is 2^step itself (a point on the east edge, lon 180,
 * or the north one), as Redis keeps it: the north and south neighbours of
 * such a cell lie past the range too. */
static geohashBits moved(geohashBits cell, int dlon, int dlat) {
    uint32_t mask = (uint32_t)((1ULL << cell.step) - 1);
    uint32_t lat = gatherBits(cell.bits), lon = gatherBits(cell.bits >> 1);
    if (dlat) lat = (lat + (uint32_t)dlat) & mask;
    if (dlon) lon = (lon + (uint32_t)dlon) & mask;
    geohashBits out = {interleave(lat, lon), cell.step};
    return out;
}

void geohashNeighbors(geohashBits cell, geohashBits out[8]) {
    static const int moves[8][2] = {{0, 1}, {0, -1}, {1, 0}, {-1, 0}, {1, 1}, {-1, 1}, {1, -1}, {-1, -1}};
    for (int i = 0; i < 8; i++) out[i] = moved(cell, moves[i][0], moves[i][1]);
}

/* ---- distances ----------------------------------------------------------- */

static double latDistance(double lat1, double lat2) {
    return GEOHASH_EARTH_RADIUS_M * fabs(degToRad(lat2) - degToRad(lat1));
}

/* Redis's haversine, with its shortcut for points on one meridian;
 * cos_lat1 is cos(degToRad(lat1)), given when the caller has it already. */
static double distanceCos(double lon1, double lat1, double cos_lat1, double lon2, double lat2) {
    double v = libm(sin, (degToRad(lon2) - degToRad(lon1)) / 2);
    if (v == 0.0) return latDistance(lat1, lat2);
    double lat1r = degToRad(lat1), lat2r = degToRad(lat2);
    double u = libm(sin, (lat2r - lat1r) / 2);
    double a = u * u + cos_lat1 * libm(cos, lat2r) * v * v;
    return 2.0 * GEOHASH_EARTH_RADIUS_M * libm(asin, sqrt(a));
}

static double distance(double lon1, double lat1, double lon2, double lat2) {
    return distanceCos(lon1, lat1, libm(cos, degToRad(lat1)), lon2, lat2);
}

static FPU_BODY double distanceBody(double lon1, double lat1, double lon2, double lat2) {
    return distance(lon1, lat1, lon2, lat2);
}

double geohashDistance(double lon1, double lat1, double lon2, double lat2) {
    fpuState fpu = fpuEnterDouble();
    double d = distanceBody(lon1, lat1, lon2, lat2);
    fpuLeave(fpu);
    return d;
}

static FPU_BODY double divideBody(double a, double b) { return a / b; }

double geohashToUnit(double meters, double unit_in_meters) {
    fpuState fpu = fpuEnterDouble();
    double d = divideBody(meters, unit_in_meters);
    fpuLeave(fpu);
    return d;
}

static FPU_BODY int scaledDistance(double d, long long *out) {
    double scaled = d * 10000.0;
    if (!(fabs(scaled) < 9.2e18)) return 0;
    *out = llrint(scaled);
    return 1;
}

int geohashFormatDistance(char *buf, double d) {
    long long v;
    fpuState fpu = fpuEnterDouble();
    int ok = scaledDistance(d, &v);
    fpuLeave(fpu);
    if (!ok) return 0;
    unsigned long long mag = v < 0 ? 0ULL - (unsigned long long)v : (unsigned long long)v;
    return snprintf(buf, GEOHASH_DISTANCE_BUFSIZE, "%s%llu.%04llu", v < 0 ? "-" : "", mag / 10000, mag % 10000);
}

/* ---- the cells of a search ---------------------------------------------- */

/* Step at which a cell is about range_m across (poles: coarser). */
static int stepsForRadius(double range_m, double lat) {
    if (range_m == 0) return GEOHASH_STEP_MAX;
    int step = 1;
    while (range_m < MERCATOR_MAX) {
        range_m *= 2;
        step++;
    }
    step -= 2;
    if (lat > 66 || lat < -66) {
        step--;
        if (lat > 80 || lat < -80) step--;
    }
    if (step < 1) step = 1;
    if (step > GEOHASH_STEP_MAX) step = GEOHASH_STEP_MAX;
    return step;
}

/* min lon, min lat, max lon, max lat of the shape; the longitude span
 * taken at the edge nearer the pole. */
static void boundingBox(const geohashShape *s, double box[4]) {
    double half_h = s->unit_m * (s->kind == GEOHASH_SHAPE_CIRCLE ? s->radius : s->height / 2);
    double half_w = s->unit_m * (s->kind == GEOHASH_SHAPE_CIRCLE ? s->radius : s->width / 2);
    double lon = s->xy[0], lat = s->xy[1];
    double lat_delta = radToDeg(half_h / GEOHASH_EARTH_RADIUS_M);
    double lon_delta_top = radToDeg(half_w / GEOHASH_EARTH_RADIUS_M / libm(cos, degToRad(lat + lat_delta)));
    double lon_delta_bottom = radToDeg(half_w / GEOHASH_EARTH_RADIUS_M / libm(cos, degToRad(lat - lat_delta)));
    double lon_delta = lat < 0 ? lon_delta_bottom : lon_delta_top;
    box[0] = lon - lon_delta;
    box[1] = lat - lat_delta;
    box[2] = lon + lon_delta;
    box[3] = lat + lat_delta;
}

static double shapeReach(const geohashShape *s) {
    double r = s->kind == GEOHASH_SHAPE_CIRCLE ? s->radius
                                               : sqrt((s->width / 2) * (s->width / 2) + (s->height / 2) * (s->height / 2));
    return r * s->unit_m;
}

/* The centre cell at `step` and its neighbours, as cells[0..8]. */
static void cellAndNeighbors(const geohashShape *s, int step, geohashBits cells[9], geohashArea *area) {
    encodeBody(&lonRangeWGS84, &latRangeWGS84, s->xy[0], s->xy[1], step, &cells[0]);
    geohashNeighbors(cells[0], cells + 1);
    decodeBody(&lonRangeWGS84, &latRangeWGS84, cells[0], area);
}

/* 1 if one of the four side neighbours does not reach the box's edge. */
static int neighborsFallShort(const geohashBits cells[9], const double box[4]) {
    geohashArea n, so, e, w;
    decodeBody(&lonRangeWGS84, &latRangeWGS84, cells[1], &n);
    decodeBody(&lonRangeWGS84, &latRangeWGS84, cells[2], &so);
    decodeBody(&lonRangeWGS84, &latRangeWGS84, cells[3], &e);
    decodeBody(&lonRangeWGS84, &latRangeWGS84, cells[4], &w);
    return n.lat.max < box[3] || so.lat.min > box[1] || e.lon.max < box[2] || w.lon.min > box[0];
}

#define CELL_N 1
#define CELL_S 2
#define CELL_E 3
#define CELL_W 4
#define CELL_NE 5
#define CELL_NW 6
#define CELL_SE 7
#define CELL_SW 8

static void dropCells(geohashBits cells[9], int a, int b, int c) { cells[a].step = cells[b].step = cells[c].step = 0; }

static FPU_BODY void shapeCellsBody(const geohashShape *s, geohashBits cells[9]) {
    double box[4];
    geohashArea area;
    boundingBox(s, box);
    int step = stepsForRadius(shapeReach(s), s->xy[1]);
    cellAndNeighbors(s, step, cells, &area);
    if (step > 1 && neighborsFallShort(cells, box)) cellAndNeighbors(s, --step, cells, &area);
    if (step < 2) return;
    if (area.lat.min < box[1]) dropCells(cells, CELL_S, CELL_SW, CELL_SE);
    if (area.lat.max > box[3]) dropCells(cells, CELL_N, CELL_NE, CELL_NW);
    if (area.lon.min < box[0]) dropCells(cells, CELL_W, CELL_SW, CELL_NW);
    if (area.lon.max > box[2]) dropCells(cells, CELL_E, CELL_SE, CELL_NE);
}

int geohashShapeCells(const geohashShape *shape, geohashBits cells[9]) {
    geohashBits all[9];
    fpuState fpu = fpuEnterDouble();
    shapeCellsBody(shape, all);
    fpuLeave(fpu);
    /* Redis compares a cell with the last one scanned only once that is
     * not the centre cell (its "last processed" index starts at 0). */
    int n = 0, last = 0;
    for (int i = 0; i < 9; i++) {
        if (all[i].step == 0) continue;
        if (last && all[i].bits == all[last].bits && all[i].step == all[last].step) continue;
        cells[n++] = all[i];
        last = i;
    }
    return n;
}

/* ---- the prefilter of a circle ------------------------------------------ */

/* The prefilter's bounds are widened by this much (relative, plus a
 * micrometre) over the exact ones: rounding moves a haversine of at most
 * GEOHASH_PREFILTER_MAX_M by a few parts in 10^15, so a point the
 * prefilter drops is far outside the radius by any rounding. */
#define PREFILTER_SLACK 1e-7
#define PREFILTER_SLACK_M 1e-6
#define HALF_PI 1.5707963267948966

/* For a point of the circle, R*|dlat| <= d, so |dlat| <= reach/R. With
 * both latitudes in that band, a point at longitude difference dlon is at
 * least 2R*asin(sqrt(cos(lat1)*cos_min)*|sin(dlon/2)|) away, cos_min the
 * smallest cosine in the band; solved for dlon, that is the widest
 * longitude difference a point of the circle can have. */
static void circleSpans(geohashShape *s) {
    double reach = s->radius * s->unit_m * (1 + PREFILTER_SLACK) + PREFILTER_SLACK_M;
    double dlat = reach / GEOHASH_EARTH_RADIUS_M;
    s->max_dlat = radToDeg(dlat);
    s->max_dlon = 360; /* no longitude bound */
    double far_lat = fabs(degToRad(s->xy[1])) + dlat;
    if (far_lat >= HALF_PI) return;
    double k = s->cos_lat * libm(cos, far_lat);
    double sin_dlon = libm(sin, reach / (2 * GEOHASH_EARTH_RADIUS_M)) / sqrt(k);
    if (!(sin_dlon < 0.5)) return; /* asin is well conditioned below this */
    s->max_dlon = radToDeg(2 * libm(asin, sin_dlon)) * (1 + PREFILTER_SLACK);
}

static FPU_BODY void shapePrepareBody(geohashShape *s) {
    s->cos_lat = libm(cos, degToRad(s->xy[1]));
    s->max_dlat = s->max_dlon = 360; /* no bound */
    if (s->kind == GEOHASH_SHAPE_CIRCLE && s->radius * s->unit_m <= GEOHASH_PREFILTER_MAX_M) circleSpans(s);
}

void geohashShapePrepare(geohashShape *shape) {
    fpuState fpu = fpuEnterDouble();
    shapePrepareBody(shape);
    fpuLeave(fpu);
}

/* 1 if the prefilter shows the point is outside the shape. */
static int prefilterRejects(const geohashShape *s, double lon, double lat) {
    if (s->cos_lat == 0) return 0; /* not prepared */
    if (fabs(lat - s->xy[1]) > s->max_dlat) return 1;
    double dlon = fabs(lon - s->xy[0]);
    if (dlon > 180) dlon = 360 - dlon; /* the same sin^2(dlon/2) */
    return dlon > s->max_dlon;
}

/* The distance from the centre, with its cosine taken once if prepared. */
static double distanceFromCentre(const geohashShape *s, double lon, double lat) {
    if (s->cos_lat == 0) return distance(s->xy[0], s->xy[1], lon, lat);
    return distanceCos(s->xy[0], s->xy[1], s->cos_lat, lon, lat);
}

static FPU_BODY int shapeContainsBody(const geohashShape *s, double lon, double lat, double *dist) {
    double cy = s->xy[1];
    if (s->kind == GEOHASH_SHAPE_CIRCLE) {
        if (prefilterRejects(s, lon, lat)) return 0;
        *dist = distanceFromCentre(s, lon, lat);
        return *dist <= s->radius * s->unit_m;
    }
    if (latDistance(lat, cy) > s->height * s->unit_m / 2) return 0;
    if (distance(lon, lat, s->xy[0], lat) > s->width * s->unit_m / 2) return 0;
    *dist = distanceFromCentre(s, lon, lat);
    return 1;
}

int geohashShapeContains(const geohashShape *shape, double lon, double lat, double *dist) {
    fpuState fpu = fpuEnterDouble();
    int in = shapeContainsBody(shape, lon, lat, dist);
    fpuLeave(fpu);
    return in;
}

/* ---- GEOHASH strings ----------------------------------------------------- */

void geohashToString(const double xy[2], char out[GEOHASH_STRING_LEN + 1]) {
    static const char alphabet[] = "0123456789bcdefghjkmnpqrstuvwxyz";
    static const geohashRange lonr = {-180, 180}, latr = {-90, 90};
    geohashBits cell = {0, GEOHASH_STEP_MAX};
    geohashEncode(&lonr, &latr, xy[0], xy[1], GEOHASH_STEP_MAX, &cell);
    for (int i = 0; i < GEOHASH_STRING_LEN - 1; i++) out[i] = alphabet[(cell.bits >> (52 - (i + 1) * 5)) & 0x1f];
    out[GEOHASH_STRING_LEN - 1] = '0';
    out[GEOHASH_STRING_LEN] = '\0';
}
