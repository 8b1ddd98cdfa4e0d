/* test_geohash.c -- the geohash library against digits taken from the
 * reference server (Debian's Redis 7.0.15 on x86_64): for each point the
 * score GEOADD stored (ZSCORE), the position GEOPOS replies ("%.17Lf" of
 * the decoded centre, trailing zeros dropped), the GEOHASH string, and the
 * GEODIST between neighbours in the table in m, km, mi and ft ("%.4f").
 * These run on every port (under QEMU too), so the x87 FPU of i386, the
 * fused multiply-add of aarch64/s390x and soft-float ARM must all give the
 * same digits. Plus the neighbours' wrap-around, odd scores decoded as the
 * reference does, the cells of a search, and a prepared search shape
 * (its prefilter) answering as an unprepared one.
 */
#include "test.h"
#include "geohash.h"

#include <math.h>

typedef struct goldenPoint {
    const char *name;
    double lon, lat;
    uint64_t score;
    const char *pos_lon, *pos_lat, *hash;
} goldenPoint;

static const goldenPoint points[] = {
    {"palermo", 13.361389, 38.115556, 3479099956230698ULL, "13.36138933897018433", "38.11555639549629859", "sqc8b49rny0"},
    {"catania", 15.087269, 37.502669, 3479447370796909ULL, "15.08726745843887329", "37.50266842333162032", "sqdtr74hyu0"},
    {"origin", 0, 0, 3377699720527872ULL, "0.00000268220901489", "0.00000126736058093", "s0000000000"},
    {"ne", 180, 85.05112878, 13510798882111488ULL, "180", "85.0511287799999991", "bp05b5048p0"},
    {"sw", -180, -85.05112878, 0ULL, "-179.99999731779098511", "-85.05112751263942528", "00bh0hbj200"},
    {"se", 180, -85.05112878, 9007199254740992ULL, "180", "-85.05112751263942528", "00bh0hbj200"},
    {"nw", -180, 85.05112878, 4503599627370496ULL, "-179.99999731779098511", "85.0511287799999991", "bp05b5048p0"},
    {"london", -0.1275, 51.507222, 2163557714840001ULL, "-0.1274988055229187", "51.50722081469902491", "gcpvj0e5m10"},
    {"sf", -122.4194155, 37.7749295, 1367859919124776ULL, "-122.41941779851913452", "37.77493042721969374", "9q8yyk8yuv0"},
    {"tokyo", 139.6917, 35.6895, 4171231230197045ULL, "139.69170123338699341", "35.68950126697937009", "xn774c06kt0"},
    {"nyc", -73.935242, 40.730610, 1791875640195835ULL, "-73.93524438142776489", "40.73061047253818145", "dr5rtwccpb0"},
    {"sydney", 151.2093, -33.8688, 3252046221964352ULL, "151.20929986238479614", "-33.86880091934155956", "r3gx2f77bj0"},
    {"tiny", 0.000001, -0.000001, 2627099782632789ULL, "0.00000268220901489", "-0.00000126736058093", "kpbpbpbpbp0"},
    {"dateline", 179.999999, 0.5, 4128321133538042ULL, "179.99999731779098511", "0.50000036325177888", "xbpfzgpbxy0"},
};
#define NPOINTS (sizeof(points) / sizeof(points[0]))

/* GEODIST points[i] points[i+1] in m, km, mi, ft. */
static const char *distances[NPOINTS - 1][4] = {
    {"166274.1516", "166.2742", "103.3182", "545518.8700"},
    {"4449695.8942", "4449.6959", "2764.9197", "14598739.8105"},
    {"10560811.4940", "10560.8115", "6562.2003", "34648331.6733"},
    {"18919844.5891", "18919.8446", "11756.2756", "62072980.9353"},
    {"0.0257", "0.0000", "0.0000", "0.0844"},
    {"18919844.5891", "18919.8446", "11756.2756", "62072980.9353"},
    {"4831852.8083", "4831.8528", "3002.3816", "15852535.4604"},
    {"8618888.4307", "8618.8884", "5355.5423", "28277193.0140"},
    {"8273044.3608", "8273.0444", "5140.6442", "27142533.9920"},
    {"10852812.6605", "10852.8127", "6743.6419", "35606340.7496"},
    {"15999353.1876", "15999.3532", "9941.5619", "52491316.2322"},
    {"15203738.3042", "15203.7383", "9447.1885", "49881031.1819"},
    {"19965120.9506", "19965.1210", "12405.7818", "65502365.3234"},
};
static const double units[4] = {1, 1000, 1609.34, 0.3048};

/* GEOPOS's text: "%.17Lf" of a double is its exact expansion rounded to 17
 * places, the same with any long double, so "%.17f" prints the same. */
static void coordText(char *buf, size_t len, double v) {
    int n = snprintf(buf, len, "%.17f", v);
    while (buf[n - 1] == '0') n--;
    if (buf[n - 1] == '.') n--;
    buf[n] = '\0';
}

static double scoreOf(const goldenPoint *p) {
    geohashBits cell;
    CHECK_EQ_INT(geohashEncodeWGS84(p->lon, p->lat, GEOHASH_STEP_MAX, &cell), GEOHASH_OK);
    return (double)geohashScoreOf(cell);
}

static void test_encode_matches_reference(void) {
    for (size_t i = 0; i < NPOINTS; i++) {
        double score = scoreOf(&points[i]);
        if (!CHECK(score == (double)points[i].score)) printf("      %s: got %.0f\n", points[i].name, score);
    }
}

static void test_decode_matches_reference(void) {
    char buf[64];
    for (size_t i = 0; i < NPOINTS; i++) {
        double xy[2];
        geohashScoreToLonLat((double)points[i].score, xy);
        coordText(buf, sizeof buf, xy[0]);
        CHECK_EQ_STR(buf, points[i].pos_lon);
        coordText(buf, sizeof buf, xy[1]);
        CHECK_EQ_STR(buf, points[i].pos_lat);
    }
}

static void test_geohash_string_matches_reference(void) {
    for (size_t i = 0; i < NPOINTS; i++) {
        double xy[2];
        char hash[GEOHASH_STRING_LEN + 1];
        geohashScoreToLonLat((double)points[i].score, xy);
        geohashToString(xy, hash);
        CHECK_EQ_STR(hash, points[i].hash);
    }
}

static void test_distance_matches_reference(void) {
    char buf[64];
    for (size_t i = 0; i + 1 < NPOINTS; i++) {
        double a[2], b[2];
        geohashScoreToLonLat((double)points[i].score, a);
        geohashScoreToLonLat((double)points[i + 1].score, b);
        double m = geohashDistance(a[0], a[1], b[0], b[1]);
        for (int u = 0; u < 4; u++) {
            geohashFormatDistance(buf, geohashToUnit(m, units[u]));
            CHECK_EQ_STR(buf, distances[i][u]);
        }
    }
}

/* The reference rounds d * 10^4 (a double) to an integer, ties to even:
 * 4947494.31254999990 m scales to exactly 49474943125.5 and prints
 * ...3126 where "%.4f" would print ...3125 (GEODIST of two members whose
 * scores are these, from the reference). */
static void test_distance_rounding_matches_reference(void) {
    static const char *expect[4] = {"4947494.3126", "4947.4943", "3074.2381", "16231936.7210"};
    char buf[GEOHASH_DISTANCE_BUFSIZE];
    double a[2], b[2];
    geohashScoreToLonLat(875699003552875.0, a);
    geohashScoreToLonLat(447043673876457.0, b);
    double m = geohashDistance(a[0], a[1], b[0], b[1]);
    for (int u = 0; u < 4; u++) {
        geohashFormatDistance(buf, geohashToUnit(m, units[u]));
        CHECK_EQ_STR(buf, expect[u]);
    }
    geohashFormatDistance(buf, 0.0);
    CHECK_EQ_STR(buf, "0.0000");
    geohashFormatDistance(buf, 0.00005); /* scales to 0.5: to even */
    CHECK_EQ_STR(buf, "0.0000");
    geohashFormatDistance(buf, 0.00035); /* 3.5 */
    CHECK_EQ_STR(buf, "0.0004");
    geohashFormatDistance(buf, 12.5);
    CHECK_EQ_STR(buf, "12.5000");
}

static void test_out_of_range_refused(void) {
    geohashBits cell;
    CHECK_EQ_INT(geohashEncodeWGS84(180.0000001, 0, 26, &cell), GEOHASH_ERR);
    CHECK_EQ_INT(geohashEncodeWGS84(0, -85.05112879, 26, &cell), GEOHASH_ERR);
    CHECK_EQ_INT(geohashEncodeWGS84(0, 0, 0, &cell), GEOHASH_ERR);
    CHECK_EQ_INT(geohashEncodeWGS84(0, 0, 27, &cell), GEOHASH_ERR);
    CHECK(!geohashValidLonLat(NAN, 0));
    CHECK(geohashValidLonLat(-180, 85.05112878));
}

/* Scores no GEOADD writes decode as on x86_64 Redis (ZADD then GEOPOS):
 * -1 wraps to all ones (clamped to the north-east corner), 1e30 converts
 * to 0, 1.5 truncates to 1. */
static void test_odd_scores(void) {
    char buf[64];
    double xy[2];
    CHECK(geohashCellOfScore(-1).bits == UINT64_MAX);
    CHECK(geohashCellOfScore(1e30).bits == 0);
    CHECK(geohashCellOfScore(1.5).bits == 1);
    CHECK(geohashCellOfScore(INFINITY).bits == 0);
    CHECK(geohashCellOfScore(-INFINITY).bits == 0x8000000000000000ULL);
    CHECK(geohashCellOfScore(1e19).bits == 10000000000000000000ULL);
    geohashScoreToLonLat(-1, xy);
    coordText(buf, sizeof buf, xy[0]);
    CHECK_EQ_STR(buf, "180");
    coordText(buf, sizeof buf, xy[1]);
    CHECK_EQ_STR(buf, "85.0511287799999991");
    geohashScoreToLonLat(1.5, xy);
    coordText(buf, sizeof buf, xy[1]);
    CHECK_EQ_STR(buf, "-85.05112497791824921");
}

static void test_neighbors_wrap(void) {
    geohashBits n[8];
    geohashBits corner = {0, 2}; /* lat 0, lon 0 of 4 x 4 */
    geohashNeighbors(corner, n);
    /* north: lat 1 -> bit 0; south wraps to lat 3 -> bits 0 and 2 */
    CHECK_EQ_INT(n[0].bits, 0x1);
    CHECK_EQ_INT(n[1].bits, 0x5);
    CHECK_EQ_INT(n[2].bits, 0x2);  /* east: lon 1 */
    CHECK_EQ_INT(n[3].bits, 0xa);  /* west wraps: lon 3 */
    CHECK_EQ_INT(n[4].bits, 0x3);  /* north-east */
    CHECK_EQ_INT(n[5].bits, 0xb);  /* north-west */
    CHECK_EQ_INT(n[6].bits, 0x7);  /* south-east */
    CHECK_EQ_INT(n[7].bits, 0xf);  /* south-west */
    for (int i = 0; i < 8; i++) CHECK_EQ_INT(n[i].step, 2);
}

/* Every stored point inside a circle lies in one of the cells to scan. */
static void test_shape_cells_cover_circle(void) {
    geohashShape s = {.kind = GEOHASH_SHAPE_CIRCLE, .xy = {13.5, 38}, .radius = 200, .unit_m = 1000};
    geohashBits cells[9];
    int n = geohashShapeCells(&s, cells);
    CHECK(n >= 1 && n <= 9);
    for (double lon = 10; lon <= 17; lon += 0.05) {
        for (double lat = 35.5; lat <= 40.5; lat += 0.05) {
            geohashBits p;
            double d;
            geohashEncodeWGS84(lon, lat, GEOHASH_STEP_MAX, &p);
            double xy[2];
            geohashScoreToLonLat((double)geohashScoreOf(p), xy);
            if (!geohashShapeContains(&s, xy[0], xy[1], &d)) continue;
            int found = 0;
            for (int i = 0; i < n; i++) {
                uint64_t lo = geohashScoreOf(cells[i]);
                geohashBits next = {cells[i].bits + 1, cells[i].step};
                if (geohashScoreOf(p) >= lo && geohashScoreOf(p) < geohashScoreOf(next)) found = 1;
            }
            if (!CHECK(found)) return;
        }
    }
}

/* GEOSEARCH ... BYBOX: half the width along the point's parallel, half the
 * height along the meridian (palermo from catania, reference WITHDIST). */
static void test_box_contains(void) {
    double c[2], p[2], d;
    geohashScoreToLonLat((double)points[1].score, c);
    geohashScoreToLonLat((double)points[0].score, p);
    geohashShape box = {.kind = GEOHASH_SHAPE_BOX, .xy = {c[0], c[1]}, .width = 400, .height = 400, .unit_m = 1000};
    CHECK(geohashShapeContains(&box, p[0], p[1], &d));
    char buf[GEOHASH_DISTANCE_BUFSIZE];
    geohashFormatDistance(buf, geohashToUnit(d, 1000));
    CHECK_EQ_STR(buf, "166.2742");
    box.height = 130; /* the latitudes differ by about 68 km */
    CHECK(!geohashShapeContains(&box, p[0], p[1], &d));
    box.height = 400;
    box.width = 300; /* about 151 km apart along the parallel */
    CHECK(!geohashShapeContains(&box, p[0], p[1], &d));
}

static double rand_between(double lo, double hi) { return lo + (hi - lo) * (double)(test_rand() >> 11) / 9007199254740992.0; }

/* geohashShapePrepare()'s prefilter only saves work: for circles of every
 * size it bounds (and none beyond) and centres from the equator to the
 * poles and across the date line, a prepared shape finds exactly the
 * points an unprepared one finds, at the same distances. The points are
 * taken around the circle's edge, where a wrong bound would show. */
static void test_prepared_shape_same_answers(void) {
    static const double radii_m[] = {0, 1, 150, 5000, 50000, 400000, 999000, 1500000};
    for (int t = 0; t < 400; t++) {
        double r = radii_m[t % 8] * rand_between(0.5, 1.0);
        double lat = t % 5 == 0 ? rand_between(-85, 85) : rand_between(-84.9, 84.9) * (t % 3 ? 1 : 0.1);
        double lon = t % 7 == 0 ? 179.99 : rand_between(-180, 180);
        geohashShape raw = {.kind = GEOHASH_SHAPE_CIRCLE, .xy = {lon, lat}, .radius = r / 1000, .unit_m = 1000};
        geohashShape fast = raw;
        geohashShapePrepare(&fast);
        for (int i = 0; i < 200; i++) {
            double reach = (r + 1) * 1.3 / 111000;
            double plat = lat + rand_between(-reach, reach), plon = lon + rand_between(-reach, reach) * 3;
            if (plat > 85 || plat < -85) continue;
            if (plon > 180) plon -= 360;
            if (plon < -180) plon += 360;
            double d1 = -1, d2 = -1;
            int in1 = geohashShapeContains(&raw, plon, plat, &d1), in2 = geohashShapeContains(&fast, plon, plat, &d2);
            if (!CHECK(in1 == in2)) return;
            if (in1 && !CHECK(d1 == d2)) return;
        }
    }
}

TEST_MAIN(RUN(test_encode_matches_reference); RUN(test_decode_matches_reference);
          RUN(test_geohash_string_matches_reference); RUN(test_distance_matches_reference);
          RUN(test_distance_rounding_matches_reference);
          RUN(test_out_of_range_refused); RUN(test_odd_scores); RUN(test_neighbors_wrap);
          RUN(test_shape_cells_cover_circle); RUN(test_box_contains);
          RUN(test_prepared_shape_same_answers);)
