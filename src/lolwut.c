/* lolwut.c -- LOLWUT [VERSION v] [args]: a piece of computer art and the
 * version of Redis whose behaviour the server implements.
 *
 * As in Redis, the art depends on the version asked for (by default the
 * server's own): version 5 draws a grid of squares that fall into disorder
 * row by row, after Georg Nees's "Schotter" (1968), in Unicode braille
 * (each character a 2x4 block of dots); version 6 draws a night skyline
 * in ANSI colours; any other version prints only the version line, as
 * Redis 7.0 does for itself. The drawings are this project's own; only the
 * arguments (and their clamping) and the reply's shape follow Redis's:
 *   VERSION 5 [columns [squares-per-row [squares-per-column]]]
 *             defaults 66, 8, 12; columns 1..1000, squares 1..200
 *   VERSION 6 [columns [rows]]  defaults 80, 20; each 1..1000
 * A non-integer argument is "value is not an integer or out of range". The
 * reply is verbatim text ("txt"), a bulk string under RESP2.
 *
 * Decisions: the version is matched as Redis does, on the unsigned 32-bit
 * value ("VERSION 4294967301" is version 5); every number is read as 64-bit
 * (long long), so 32-bit ports answer as 64-bit Redis does; randomness
 * comes from random(), so each call draws a different picture.
 */
#include "server.h"
#include "version.h"

#include <math.h>

#define LOLWUT_VERSION_LINE "Redis ver. " REDIS_VERSION "\n"

static long long clampLong(long long v, long long lo, long long hi) { return v < lo ? lo : v > hi ? hi : v; }

static double randomUnit(void) { return (double)random() / RAND_MAX * 2.0 - 1.0; } /* [-1, 1] */

/* ---- a canvas of dots, rendered in braille ----------------------------------------------- */

typedef struct {
    int width, height; /* in dots */
    unsigned char *dots;
} dotCanvas;

static dotCanvas *canvasCreate(int width, int height) {
    dotCanvas *cv = zmalloc(sizeof(*cv));
    cv->width = width;
    cv->height = height;
    cv->dots = zcalloc((size_t)width * (size_t)height);
    return cv;
}

static void canvasFree(dotCanvas *cv) {
    zfree(cv->dots);
    zfree(cv);
}

static void canvasSet(dotCanvas *cv, int x, int y) {
    if (x >= 0 && y >= 0 && x < cv->width && y < cv->height) cv->dots[(size_t)y * cv->width + x] = 1;
}

static int canvasGet(dotCanvas *cv, int x, int y) {
    return x < cv->width && y < cv->height && cv->dots[(size_t)y * cv->width + x];
}

static void canvasLine(dotCanvas *cv, int x0, int y0, int x1, int y1) { /* Bresenham */
    int dx = abs(x1 - x0), dy = -abs(y1 - y0), sx = x0 < x1 ? 1 : -1, sy = y0 < y1 ? 1 : -1;
    int err = dx + dy;
    for (;;) {
        canvasSet(cv, x0, y0);
        if (x0 == x1 && y0 == y1) return;
        int e2 = 2 * err;
        if (e2 >= dy) { err += dy; x0 += sx; }
        if (e2 <= dx) { err += dx; y0 += sy; }
    }
}

/* A braille character's dot bits, by the dot's column (0-1) and row (0-3). */
static const unsigned char braille_bit[4][2] = {{0x01, 0x08}, {0x02, 0x10}, {0x04, 0x20}, {0x40, 0x80}};

static sds canvasRender(dotCanvas *cv) {
    sds out = sdsempty();
    for (int y = 0; y < cv->height; y += 4) {
        for (int x = 0; x < cv->width; x += 2) {
            unsigned bits = 0;
            for (int r = 0; r < 4; r++)
                for (int c = 0; c < 2; c++)
                    if (canvasGet(cv, x + c, y + r)) bits |= braille_bit[r][c];
            char utf8[3] = {(char)0xE2, (char)(0xA0 | (bits >> 6)), (char)(0x80 | (bits & 0x3F))}; /* U+2800 + bits */
            out = sdscatlen(out, utf8, 3);
        }
        out = sdscatlen(out, "\n", 1);
    }
    return out;
}

/* ---- version 5: squares into disorder -------------------------------------------------------- */

static int roundToInt(double v) { return (int)(v < 0 ? v - 0.5 : v + 0.5); } /* libm's lround is not linked */

static void drawTiltedSquare(dotCanvas *cv, double cx, double cy, double half, double angle) {
    double px[4], py[4];
    for (int i = 0; i < 4; i++) {
        double a = angle + M_PI / 4 + i * M_PI / 2; /* the corners, a quarter turn apart */
        px[i] = cx + half * M_SQRT2 * cos(a);
        py[i] = cy + half * M_SQRT2 * sin(a);
    }
    for (int i = 0; i < 4; i++)
        canvasLine(cv, roundToInt(px[i]), roundToInt(py[i]), roundToInt(px[(i + 1) % 4]), roundToInt(py[(i + 1) % 4]));
}

static void lolwutSquares(client *c) {
    long long cols = 66, per_row = 8, per_col = 12;
    if (c->argc > 1 && getLongLongFromObjectOrReply(c, c->argv[1], &cols, NULL) != C_OK) return;
    if (c->argc > 2 && getLongLongFromObjectOrReply(c, c->argv[2], &per_row, NULL) != C_OK) return;
    if (c->argc > 3 && getLongLongFromObjectOrReply(c, c->argv[3], &per_col, NULL) != C_OK) return;
    cols = clampLong(cols, 1, 1000);
    per_row = clampLong(per_row, 1, 200);
    per_col = clampLong(per_col, 1, 200);

    int width = (int)cols * 2, side = width / (int)(per_row + 2); /* a square's margin on each side */
    if (side < 1) side = 1;
    dotCanvas *cv = canvasCreate(width, side * (int)(per_col + 2));
    for (long long row = 0; row < per_col; row++) {
        double disorder = (double)row / (double)per_col; /* none on top, most at the bottom */
        for (long long col = 0; col < per_row; col++) {
            double cx = (col + 1.5) * side + randomUnit() * disorder * side / 3;
            double cy = (row + 1.5) * side + randomUnit() * disorder * side / 3;
            drawTiltedSquare(cv, cx, cy, side / 2.0, randomUnit() * disorder * M_PI / 4);
        }
    }
    sds art = canvasRender(cv);
    canvasFree(cv);
    art = sdscat(art, "\nAfter Georg Nees - schotter, plotter on paper, 1968. " LOLWUT_VERSION_LINE);
    addReplyVerbatim(c, art, sdslen(art), "txt");
    sdsfree(art);
}

/* ---- version 6: a skyline at night ------------------------------------------------------------- */

enum { SKY, STAR, WALL, WINDOW };
static const char *const skyline_colour[] = {"\033[0;44m", "\033[0;97;44m", "\033[0;40m", "\033[0;30;103m"};
static const char skyline_glyph[] = {' ', '.', ' ', ' '};

static void lolwutSkyline(client *c) {
    long long cols_asked = 80, rows_asked = 20;
    if (c->argc > 1 && getLongLongFromObjectOrReply(c, c->argv[1], &cols_asked, NULL) != C_OK) return;
    if (c->argc > 2 && getLongLongFromObjectOrReply(c, c->argv[2], &rows_asked, NULL) != C_OK) return;
    long cols = (long)clampLong(cols_asked, 1, 1000), rows = (long)clampLong(rows_asked, 1, 1000);

    unsigned char *cell = zmalloc((size_t)cols * (size_t)rows);
    for (long i = 0; i < cols * rows; i++) cell[i] = random() % 40 == 0 ? STAR : SKY;
    for (long x = 0; x < cols;) { /* buildings side by side, each 3 to 8 cells wide */
        long w = 3 + random() % 6, h = rows / 4 + random() % (rows - rows / 4 + 1);
        for (long bx = x; bx < x + w && bx < cols; bx++)
            for (long y = rows - h; y < rows; y++) {
                int lit = bx > x && bx < x + w - 1 && (y - (rows - h)) % 2 == 1 && random() % 3 == 0;
                cell[y * cols + bx] = lit ? WINDOW : WALL;
            }
        x += w + random() % 2; /* sometimes a gap */
    }
    sds art = sdsempty();
    for (long y = 0; y < rows; y++) {
        int last = -1;
        for (long x = 0; x < cols; x++) {
            int kind = cell[y * cols + x];
            if (kind != last) art = sdscat(art, skyline_colour[kind]);
            art = sdscatlen(art, &skyline_glyph[kind], 1);
            last = kind;
        }
        art = sdscat(art, "\033[0m\n");
    }
    zfree(cell);
    art = sdscat(art, "\nDedicated to the 8 bit game developers of past and present.\n" LOLWUT_VERSION_LINE);
    addReplyVerbatim(c, art, sdslen(art), "txt");
    sdsfree(art);
}

/* ---- the command ----------------------------------------------------------------------------------- */

void lolwutCommand(client *c) {
    unsigned int version = 0; /* 0: the server's own, which has no drawing */
    int shift = 0;
    if (c->argc >= 3 && !strcasecmp(c->argv[1]->ptr, "version")) {
        long long asked; /* 64-bit on every port, so they all answer alike */
        if (getLongLongFromObjectOrReply(c, c->argv[2], &asked, NULL) != C_OK) return;
        version = (unsigned int)asked;
        shift = 2;
    }
    c->argv += shift; /* the drawings read their arguments from argv[1] */
    c->argc -= shift;
    if (version == 5) lolwutSquares(c);
    else if (version == 6) lolwutSkyline(c);
    else addReplyVerbatim(c, LOLWUT_VERSION_LINE, strlen(LOLWUT_VERSION_LINE), "txt");
    c->argv -= shift;
    c->argc += shift;
}
