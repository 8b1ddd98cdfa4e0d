#!/usr/bin/env bash
# check-source-names.sh -- source rules about names and comments, run by
# `make test` beside check-casts.sh (issue #34, "Names and seams"):
#
# 1. No file-scope variable of struct or union type in src/ (src/*.c,
#    src/lib/*.c, src/tools/*.c) has a one- or two-letter name: a module's
#    state is named after the module (`repl`, `blocking`, `loading` ...),
#    so a grep for it lands somewhere meaningful.
# 2. The keyspace table's layout stays kvtable.c's: no file in src/ but
#    src/lib/kvtable.c includes kvtable_private.h, and the forkless
#    snapshot (src/snapshot.c) and MEMORY (src/memory_cmd.c), the two
#    modules that walk or measure tables, name none of its internals in
#    code: they use kvtable.h's cursor and size functions.
# 3. No comment in src/ and no comment line of redis.conf says "not yet",
#    "for now", "next," or "until ... lands": a comment says what the code
#    does, and such phrases go stale when the plan they announce lands.
#
# The C-aware work (comments vs code, file-scope declarations) is done by
# utils/source-scan.pl. Each check first proves itself on known-bad and
# legal snippets, so a broken pattern cannot pass silently. Ends with
# "N passed, N failed"; the exit status is non-zero on failure.
set -u
cd "$(dirname "$0")/.." || exit 1
SCAN=utils/source-scan.pl
passed=0; failed=0

check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "[ok] $what"; passed=$((passed + 1));
    else echo "[FAIL] $what"; failed=$((failed + 1)); fi
}

indent() { sed 's/^/    /'; }

# ---- 1. short names of file-scope struct variables -----------------------------------

short_structs() { # TYPES-LIST-FILE FILE...
    perl "$SCAN" shortstructs "$@"
}

names_self_test() {
    local tmp rc=0 out
    tmp=$(mktemp -d) || return 1
    cat >"$tmp/bad.c" <<'EOF'
typedef struct thing { int a; } thing;
static struct { int x; char *y; } R = {.x = -1};
static struct named ev;
struct named S;
static thing *ld;
static const thing tb[4];
static struct {
    int deep; /* } fake; */
} F;
EOF
    cat >"$tmp/good.c" <<'EOF'
#define MACRO(a) \
    static struct named xy;
typedef struct { int a; } R;
typedef struct thing2 { int a; } th;
static int ab;
static char *cd = "static struct named ef;";
/* static struct named gh; */
static struct { int a; } repl = {0};
static struct named *ab2(void);
static void fn(struct named *p) { struct named q; (void)p; (void)q; }
extern struct named ij;
static int (*kl)(struct named *);
struct named { int a; };
EOF
    printf '%s\n' "$tmp/bad.c" "$tmp/good.c" >"$tmp/types"
    out=$(short_structs "$tmp/types" "$tmp/bad.c" | sed 's/.*://' | sort | paste -sd' ' -)
    [ "$out" = "F R S ev ld tb" ] || { echo "    bad snippets: found '$out', want 'F R S ev ld tb'"; rc=1; }
    out=$(short_structs "$tmp/types" "$tmp/good.c")
    [ -z "$out" ] || { echo "    legal snippets flagged:"; echo "$out" | indent; rc=1; }
    rm -rf "$tmp"
    return $rc
}

names_scan() {
    local types hits
    types=$(mktemp) || return 1
    find src -name '*.[ch]' -type f | sort >"$types"
    hits=$(short_structs "$types" src/*.c src/lib/*.c src/tools/*.c)
    rm -f "$types"
    [ -z "$hits" ] && return 0
    echo "$hits" | indent
    return 1
}

# ---- 2. kvtable internals ---------------------------------------------------------------

# (A designated initializer's `.used =` is no table field: `used` counts only as `->used[`.)
KVT_INTERNALS='\b(buckets|sizeExp|KVTABLE_SIZE|rehashidx|pauserehash|randomState|walk_table1)\b|->used\[|(\.|->)(table|bucket)\b'
KVT_USERS=(src/snapshot.c src/memory_cmd.c)

kvtable_self_test() {
    local tmp rc=0 line
    tmp=$(mktemp -d) || return 1
    local bad=( 'kvobj *e = t->buckets[i][idx];' 'n = KVTABLE_SIZE(t->sizeExp[0]);' 'if (t->pauserehash > 0) x();'
                'return t->used[0];' 'c->walk.bucket++;' 'if (c->walk.table == 1) y();' )
    local good=( 'kvtableCursorNext(&c->walk);' '/* the buckets of t->sizeExp */ int n = 1;' 'o = (overview){.used = 1};'
                 's = "KVTABLE_SIZE buckets";' 'size_t b = kvtableBucketArrayBytes(t);' )
    for line in "${bad[@]}"; do
        echo "$line" >"$tmp/t.c"
        perl "$SCAN" code "$tmp/t.c" | grep -qE "$KVT_INTERNALS" || { echo "    misses: $line"; rc=1; }
    done
    for line in "${good[@]}"; do
        echo "$line" >"$tmp/t.c"
        perl "$SCAN" code "$tmp/t.c" | grep -qE "$KVT_INTERNALS" && { echo "    flags a legal line: $line"; rc=1; }
    done
    rm -rf "$tmp"
    return $rc
}

kvtable_private_included_only_by_kvtable() {
    local hits
    hits=$(grep -rlE '#[[:space:]]*include[[:space:]]*[<"]([^">]*/)?kvtable_private\.h[">]' src |
           grep -vxE 'src/lib/kvtable\.c')
    [ -z "$hits" ] && return 0
    echo "$hits" | indent
    return 1
}

kvtable_users_use_the_api() {
    local hits
    hits=$(perl "$SCAN" code "${KVT_USERS[@]}" | grep -E "$KVT_INTERNALS")
    [ -z "$hits" ] && return 0
    echo "$hits" | indent
    return 1
}

# ---- 3. stale phrases in comments --------------------------------------------------------

# "next," as an English word, not a field (o->next, iter.next).
STALE='\bnot yet\b|\bfor now\b|(^|[^>.[:alnum:]_])next,|\buntil\b.*\blands?\b'

stale_self_test() {
    local tmp rc=0 out
    tmp=$(mktemp -d) || return 1
    cat >"$tmp/t.c" <<'EOF'
/* case1: not yet done */
int a; // case2: for now
/* case3: for the AOF (and,
 * next, a replication stream) */
/* case4: unused until replication lands */
char *s = "not yet, for now"; /* case5: still to do */
x = o->next, y = it.next; /* case6: e->next, fine */
EOF
    printf '# case7: not yet here\nname value # for now\n' >"$tmp/t.conf"
    out=$(perl "$SCAN" comments "$tmp/t.c" "$tmp/t.conf" | grep -iE "$STALE" | grep -oE 'case[0-9]' | paste -sd' ' -)
    [ "$out" = "case1 case2 case4 case7" ] || { echo "    found in: '$out', want 'case1 case2 case4 case7' (and line 4 of case3)"; rc=1; }
    perl "$SCAN" comments "$tmp/t.c" | grep -iE "$STALE" | grep -q ':4: \* next, a replication' ||
        { echo "    misses 'next,' on a continuation line"; rc=1; }
    rm -rf "$tmp"
    return $rc
}

stale_scan() {
    local hits
    hits=$(perl "$SCAN" comments $(find src -name '*.[ch]' -type f | sort) redis.conf | grep -iE "$STALE")
    [ -z "$hits" ] && return 0
    echo "$hits" | indent
    return 1
}

check "the struct-name scanner finds known short names and passes legal code" names_self_test
check "no file-scope struct variable in src/ has a one- or two-letter name" names_scan
check "the kvtable-internals pattern catches known uses and passes legal code" kvtable_self_test
check "only src/lib/kvtable.c includes kvtable_private.h" kvtable_private_included_only_by_kvtable
check "snapshot.c and memory_cmd.c use kvtable.h's functions, no table internals" kvtable_users_use_the_api
check "the stale-phrase pattern catches known phrases and passes legal text" stale_self_test
check "no 'not yet', 'for now', 'next,' or 'until ... lands' in src/ comments or redis.conf" stale_scan
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
