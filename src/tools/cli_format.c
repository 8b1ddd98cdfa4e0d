/* cli_format.c -- the reply formats of redis-cli (see cli_format.h).
 *
 * TTY format rules (Redis 7's, observed byte for byte):
 *  - scalars: "(integer) 1", "(double) 1.5", "(true)", "(nil)", "(error) ...",
 *    status text as is, bulk strings quoted and escaped, verbatim strings as is;
 *  - aggregates number their elements "1) ", sets "1~ ", maps "1# key => value";
 *    the number is right-aligned to the width of the largest index, and the
 *    lines of nested elements are indented by that width plus two. The first
 *    element of a nested aggregate continues the parent's line;
 *  - a map value that is a non-empty array or set starts on its own line
 *    (its first element indented too); a map value that is a map does not;
 *  - empty aggregates: "(empty array)", "(empty hash)", "(empty set)",
 *    "(empty push)".
 * Raw: text only, error text followed by a newline even when nested,
 * aggregate elements joined by the -d delimiter, map entries "key value".
 * CSV: strings quoted, NULL, true/false, ERROR,"msg", everything flat and
 * joined by commas.
 * JSON (Redis 7.0's, observed byte for byte): numbers, doubles, true/false
 * and null bare; strings quoted with ", \, \n, \r, \t, \b, \f escaped,
 * other control bytes as \u00XX and bytes from 0x7f on as they are; with
 * --quoted-json the string's quoted form (\xHH ...) with each backslash
 * doubled (the quote is left as \", as 7.0 does). Errors are error:"text";
 * arrays, sets and pushes [a,b], maps {k:v} where a key that is not a string
 * is its own JSON text between quotes ("1", "null", "[1]").
 * Reports (cliPrintsVerbatim): the raw format with nothing appended, in
 * every mode, so INFO on a terminal reads as lines, not one escaped string.
 */
#include "cli_format.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

static int isListLike(rcReplyType t) {
    return t == RC_REPLY_ARRAY || t == RC_REPLY_SET || t == RC_REPLY_PUSH;
}

static int isAggregate(rcReplyType t) { return isListLike(t) || t == RC_REPLY_MAP; }

/* ---- TTY ------------------------------------------------------------------ */

static sds formatTTY(sds out, const rcReply *r, const char *prefix, const char *first_prefix);

static const char *emptyAggregateText(rcReplyType t) {
    switch (t) {
    case RC_REPLY_MAP: return "(empty hash)\n";
    case RC_REPLY_SET: return "(empty set)\n";
    case RC_REPLY_PUSH: return "(empty push)\n";
    default: return "(empty array)\n";
    }
}

static char numberSeparator(rcReplyType t) {
    if (t == RC_REPLY_SET) return '~';
    if (t == RC_REPLY_MAP) return '#';
    return ')';
}

static unsigned decimalWidth(size_t n) {
    unsigned w = 1;
    while (n >= 10) {
        n /= 10;
        w++;
    }
    return w;
}

static sds formatMapValue(sds out, const rcReply *v, const char *child_prefix) {
    if (isListLike(v->type) && v->elements > 0) {
        out = sdscat(out, "\n");
        return formatTTY(out, v, child_prefix, child_prefix);
    }
    return formatTTY(out, v, child_prefix, "");
}

static sds formatAggregateTTY(sds out, const rcReply *r, const char *prefix, const char *first_prefix) {
    if (r->elements == 0) return sdscat(out, emptyAggregateText(r->type));
    int is_map = r->type == RC_REPLY_MAP;
    size_t count = is_map ? r->elements / 2 : r->elements;
    unsigned width = decimalWidth(count);
    char sep = numberSeparator(r->type);
    sds child_prefix = sdscatprintf(sdsnew(prefix), "%*s", (int)width + 2, "");
    size_t step = is_map ? 2 : 1;
    for (size_t i = 0; i + step - 1 < r->elements; i += step) {
        out = sdscatprintf(out, "%s%*zu%c ", i == 0 ? first_prefix : prefix, (int)width, i / step + 1, sep);
        out = formatTTY(out, r->element[i], child_prefix, "");
        if (is_map) {
            sdsrange(out, 0, -2); /* the key's newline */
            out = sdscat(out, " => ");
            out = formatMapValue(out, r->element[i + 1], child_prefix);
        }
    }
    sdsfree(child_prefix);
    return out;
}

static sds formatTTY(sds out, const rcReply *r, const char *prefix, const char *first_prefix) {
    switch (r->type) {
    case RC_REPLY_ERROR:
        out = sdscat(out, "(error) ");
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_STATUS:
    case RC_REPLY_VERBATIM:
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_BULK:
        out = sdscatrepr(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_INTEGER: return sdscatprintf(out, "(integer) %lld\n", r->integer);
    case RC_REPLY_DOUBLE:
        out = sdscat(out, "(double) ");
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_BIGNUM:
        out = sdscat(out, "(big number) ");
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_BOOL: return sdscat(out, r->integer ? "(true)\n" : "(false)\n");
    case RC_REPLY_NIL:
    case RC_REPLY_NULL: return sdscat(out, "(nil)\n");
    default:
        if (isAggregate(r->type)) return formatAggregateTTY(out, r, prefix, first_prefix);
        return sdscatprintf(out, "(unknown reply type %d)\n", (int)r->type);
    }
}

sds cliFormatTTY(const rcReply *r, const char *prefix) {
    return formatTTY(sdsempty(), r, prefix, "");
}

/* ---- raw ------------------------------------------------------------------- */

static sds formatRaw(sds out, const rcReply *r, const char *delim) {
    switch (r->type) {
    case RC_REPLY_ERROR:
        out = sdscatlen(out, r->str, r->len);
        return sdscat(out, "\n");
    case RC_REPLY_STATUS:
    case RC_REPLY_BULK:
    case RC_REPLY_VERBATIM:
    case RC_REPLY_DOUBLE:
    case RC_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case RC_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case RC_REPLY_BOOL: return sdscat(out, r->integer ? "(true)" : "(false)");
    case RC_REPLY_NIL:
    case RC_REPLY_NULL: return out;
    case RC_REPLY_MAP:
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            if (i > 0) out = sdscat(out, delim);
            out = formatRaw(out, r->element[i], delim);
            out = sdscat(out, " ");
            out = formatRaw(out, r->element[i + 1], delim);
        }
        return out;
    default:
        for (size_t i = 0; i < r->elements; i++) {
            if (i > 0) out = sdscat(out, delim);
            out = formatRaw(out, r->element[i], delim);
        }
        return out;
    }
}

sds cliFormatRaw(const rcReply *r, const char *elem_delim) {
    return formatRaw(sdsempty(), r, elem_delim);
}

/* ---- CSV ------------------------------------------------------------------------ */

static sds formatCSV(sds out, const rcReply *r) {
    switch (r->type) {
    case RC_REPLY_ERROR:
        out = sdscat(out, "ERROR,");
        return sdscatrepr(out, r->str, r->len);
    case RC_REPLY_STATUS:
    case RC_REPLY_BULK:
    case RC_REPLY_VERBATIM: return sdscatrepr(out, r->str, r->len);
    case RC_REPLY_DOUBLE:
    case RC_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case RC_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case RC_REPLY_BOOL: return sdscat(out, r->integer ? "true" : "false");
    case RC_REPLY_NIL:
    case RC_REPLY_NULL: return sdscat(out, "NULL");
    default:
        for (size_t i = 0; i < r->elements; i++) {
            if (i > 0) out = sdscat(out, ",");
            out = formatCSV(out, r->element[i]);
        }
        return out;
    }
}

sds cliFormatCSV(const rcReply *r) { return formatCSV(sdsempty(), r); }

/* ---- JSON ----------------------------------------------------------------------- */

static sds jsonString(sds out, const char *s, size_t len, int quoted) {
    out = sdscat(out, "\"");
    if (quoted) {
        sds repr = sdscatrepr(sdsempty(), s, len);
        for (size_t i = 1; i + 1 < sdslen(repr); i++) /* without repr's own quotes */
            out = repr[i] == '\\' ? sdscat(out, "\\\\") : sdscatlen(out, repr + i, 1);
        sdsfree(repr);
        return sdscat(out, "\"");
    }
    for (size_t i = 0; i < len; i++) {
        unsigned char c = (unsigned char)s[i];
        switch (c) {
        case '"': out = sdscat(out, "\\\""); break;
        case '\\': out = sdscat(out, "\\\\"); break;
        case '\n': out = sdscat(out, "\\n"); break;
        case '\r': out = sdscat(out, "\\r"); break;
        case '\t': out = sdscat(out, "\\t"); break;
        case '\b': out = sdscat(out, "\\b"); break;
        case '\f': out = sdscat(out, "\\f"); break;
        default:
            if (c < 0x20) out = sdscatprintf(out, "\\u%04x", c);
            else out = sdscatlen(out, s + i, 1);
        }
    }
    return sdscat(out, "\"");
}

static int isStringReply(rcReplyType t) {
    return t == RC_REPLY_STATUS || t == RC_REPLY_BULK || t == RC_REPLY_VERBATIM;
}

static sds formatJSON(sds out, const rcReply *r, int quoted);

static sds formatJSONKey(sds out, const rcReply *key, int quoted) {
    if (isStringReply(key->type) || key->type == RC_REPLY_ERROR) return formatJSON(out, key, quoted);
    out = sdscat(out, "\"");
    out = formatJSON(out, key, quoted);
    return sdscat(out, "\"");
}

static sds formatJSON(sds out, const rcReply *r, int quoted) {
    switch (r->type) {
    case RC_REPLY_ERROR:
        out = sdscat(out, "error:");
        return jsonString(out, r->str, r->len, quoted);
    case RC_REPLY_STATUS:
    case RC_REPLY_BULK:
    case RC_REPLY_VERBATIM: return jsonString(out, r->str, r->len, quoted);
    case RC_REPLY_DOUBLE:
    case RC_REPLY_BIGNUM: return sdscatlen(out, r->str, r->len);
    case RC_REPLY_INTEGER: return sdscatprintf(out, "%lld", r->integer);
    case RC_REPLY_BOOL: return sdscat(out, r->integer ? "true" : "false");
    case RC_REPLY_NIL:
    case RC_REPLY_NULL: return sdscat(out, "null");
    case RC_REPLY_MAP:
        out = sdscat(out, "{");
        for (size_t i = 0; i + 1 < r->elements; i += 2) {
            if (i > 0) out = sdscat(out, ",");
            out = formatJSONKey(out, r->element[i], quoted);
            out = sdscat(out, ":");
            out = formatJSON(out, r->element[i + 1], quoted);
        }
        return sdscat(out, "}");
    default:
        out = sdscat(out, "[");
        for (size_t i = 0; i < r->elements; i++) {
            if (i > 0) out = sdscat(out, ",");
            out = formatJSON(out, r->element[i], quoted);
        }
        return sdscat(out, "]");
    }
}

sds cliFormatJSON(const rcReply *r, int quoted) { return formatJSON(sdsempty(), r, quoted); }

/* ---- reports printed as they are ------------------------------------------------ */

static int is(const char *arg, const char *name) { return strcasecmp(arg, name) == 0; }

/* The command lines Redis 7.0's redis-cli prints this way, with its
 * argument counts (LATENCY DOCTOR with an extra argument is not one). */
int cliPrintsVerbatim(int argc, char **argv) {
    if (argc < 1) return 0;
    const char *cmd = argv[0], *sub = argc >= 2 ? argv[1] : "";
    if (is(cmd, "info") || is(cmd, "lolwut")) return 1;
    if (argc < 2) return 0;
    if (is(cmd, "debug")) return is(sub, "htstats") || is(sub, "htstats-key") || is(sub, "client-eviction");
    if (is(cmd, "memory")) return is(sub, "malloc-stats") || is(sub, "doctor");
    if (is(cmd, "client")) return is(sub, "list") || is(sub, "info");
    if (is(cmd, "proxy")) return is(sub, "info");
    if (is(cmd, "cluster")) return argc == 2 && (is(sub, "nodes") || is(sub, "info"));
    if (is(cmd, "latency")) return (argc == 3 && is(sub, "graph")) || (argc == 2 && is(sub, "doctor"));
    return 0;
}

sds cliFormatReply(const rcReply *r, cliOutputMode mode, const char *elem_delim, const char *resp_delim) {
    sds out;
    switch (mode) {
    case CLI_OUT_TTY: return cliFormatTTY(r, "");
    case CLI_OUT_CSV:
        out = cliFormatCSV(r);
        return sdscat(out, "\n");
    case CLI_OUT_JSON:
    case CLI_OUT_QUOTED_JSON:
        out = cliFormatJSON(r, mode == CLI_OUT_QUOTED_JSON);
        return sdscat(out, "\n");
    default:
        out = cliFormatRaw(r, elem_delim);
        return sdscat(out, resp_delim);
    }
}
