/* geohash.h -- 52-bit geohash cells, distances and the search areas of the
 * GEO commands (src/t_geo.c), with Redis 7.0's numbers.
 *
 * A point is stored as the score of a sorted-set member: its longitude and
 * latitude, each cut into 2^26 steps of its range (longitude -180..180,
 * latitude -85.05112878..85.05112878, the Web Mercator limits), with the
 * latitude step number in the even bits and the longitude one in the odd
 * bits. A cell of a coarser `step` (1..26) is the same with step bits per
 * coordinate; its members are the scores in [cell << (52 - 2 step),
 * (cell + 1) << (52 - 2 step)).
 *
 * A search (GEORADIUS, GEOSEARCH) is a shape -- a circle or a box around a
 * point -- turned into at most nine cells to scan (the cell of the centre
 * at a step where it is about as big as the shape, and its neighbours),
 * every member found there then tested against the shape exactly.
 *
 * Replies print coordinates with 17 decimals and distances with 4, so these
 * functions must produce the very bits x86_64 Redis produces, on every CPU:
 *   - no fused multiply-add (aarch64 and s390x would contract a*b+c);
 *   - on the x87 FPU (32-bit x86 without SSE2 math) every operation rounds
 *     to double precision, not to the 64-bit extended one.
 * geohash.c arranges both; callers do their arithmetic through the helpers
 * here (geohashToUnit, geohashShapeContains ...) rather than inline.
 * The sin/cos/asin/sqrt of the platform's libm are used as they are: a last
 * bit of difference there does not show in 4 decimals.
 */
#ifndef REDIS_GEOHASH_H
#define REDIS_GEOHASH_H

#include <stdint.h>

#define GEOHASH_OK 0
#define GEOHASH_ERR -1

#define GEOHASH_STEP_MAX 26 /* bits per coordinate of a stored point */
#define GEOHASH_LON_MIN -180.0
#define GEOHASH_LON_MAX 180.0
#define GEOHASH_LAT_MIN -85.05112878
#define GEOHASH_LAT_MAX 85.05112878
#define GEOHASH_EARTH_RADIUS_M 6372797.560856
#define GEOHASH_STRING_LEN 11 /* GEOHASH: 52 bits in base 32, then a '0' */

typedef struct geohashBits {
    uint64_t bits; /* 2 * step interleaved bits, latitude in the even ones */
    int step;      /* 0 only for "no cell" */
} geohashBits;

typedef struct geohashRange {
    double min, max;
} geohashRange;

/* The rectangle a cell covers, in degrees. */
typedef struct geohashArea {
    geohashRange lon, lat;
} geohashArea;

/* 1 if lon/lat may be stored (inside the ranges above, bounds included). */
int geohashValidLonLat(double lon, double lat);

/* The cell of `step` that holds lon/lat within the given ranges.
 * GEOHASH_ERR for a bad step or a point outside the stored ranges. */
int geohashEncode(const geohashRange *lonr, const geohashRange *latr, double lon, double lat, int step,
                  geohashBits *out);
int geohashEncodeWGS84(double lon, double lat, int step, geohashBits *out);

/* The cell's rectangle within the given ranges. */
void geohashDecode(const geohashRange *lonr, const geohashRange *latr, geohashBits cell, geohashArea *area);
void geohashDecodeWGS84(geohashBits cell, geohashArea *area);

/* The centre of an area, clamped to the stored ranges: xy[0] lon, xy[1] lat. */
void geohashAreaCenter(const geohashArea *area, double xy[2]);

/* The 52-bit score of a cell (its first point at step 26). */
uint64_t geohashScoreOf(geohashBits cell);

/* A sorted-set score as the step-26 cell it names: converted to an
 * unsigned 64-bit integer the way x86_64 does it (negative values wrap,
 * values from 2^64 up and infinities give what cvttsd2si gives), so odd
 * scores decode as they do on the reference. */
geohashBits geohashCellOfScore(double score);

/* The position (centre of the cell) a score stands for. */
void geohashScoreToLonLat(double score, double xy[2]);

/* The eight neighbours of a cell, in the order north, south, east, west,
 * north-east, north-west, south-east, south-west; both coordinates wrap
 * around at their range ends. */
void geohashNeighbors(geohashBits cell, geohashBits out[8]);

/* Great-circle distance in metres (haversine, Redis's Earth radius). */
double geohashDistance(double lon1, double lat1, double lon2, double lat2);

/* metres / unit, done here so that every CPU rounds it alike. */
double geohashToUnit(double meters, double unit_in_meters);

/* A distance as the reference replies it, with 4 decimals: d * 10^4
 * rounded to a double, then to the nearest integer (ties to even), which
 * is not always what "%.4f" prints (4947494.31254999990 -> "...3126").
 * Returns the length written into buf (at least 32 bytes), 0 if |d| is too
 * large for 64 bits at that scale. */
#define GEOHASH_DISTANCE_BUFSIZE 32
int geohashFormatDistance(char *buf, double d);

/* The shape of a search, sizes in `unit_m` metres each. */
#define GEOHASH_SHAPE_CIRCLE 0
#define GEOHASH_SHAPE_BOX 1
typedef struct geohashShape {
    int kind;
    double xy[2];         /* centre: lon, lat */
    double radius;        /* circle */
    double width, height; /* box */
    double unit_m;        /* metres per unit */
    /* Filled by geohashShapePrepare(); all 0 (not prepared) means every
     * point gets the exact test only. */
    double cos_lat;  /* cos of the centre's latitude, in radians */
    double max_dlat; /* degrees: a point further north or south is outside */
    double max_dlon; /* degrees: a point further east or west is outside */
} geohashShape;

/* Works out, once per search, what geohashShapeContains() would otherwise
 * compute for every point: the centre's cosine, and for a circle of up to
 * GEOHASH_PREFILTER_MAX_M the latitude and longitude spans outside which
 * no point can be within the radius (a cheap rejection, taken with a
 * margin far above the rounding error, so the exact test decides every
 * point near the edge and the set found is the same). */
#define GEOHASH_PREFILTER_MAX_M 1000000.0
void geohashShapePrepare(geohashShape *shape);

/* The cells to scan for a shape, in Redis's order and without the ones it
 * leaves out (outside the shape's bounding box, or the same as the cell
 * scanned just before). Returns how many (1..9). */
int geohashShapeCells(const geohashShape *shape, geohashBits cells[9]);

/* 1 and the distance from the centre in metres if the point is inside the
 * shape (a circle: at most radius away; a box: within half its height
 * north or south and half its width east or west, measured along the
 * point's parallel), else 0. */
int geohashShapeContains(const geohashShape *shape, double lon, double lat, double *dist);

/* GEOHASH's string: xy encoded again with latitude range -90..90, 52 bits
 * in base 32 and a final '0', NUL-terminated (GEOHASH_STRING_LEN + 1). */
void geohashToString(const double xy[2], char out[GEOHASH_STRING_LEN + 1]);

#endif /* REDIS_GEOHASH_H */
