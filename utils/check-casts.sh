#!/usr/bin/env bash
# check-casts.sh -- enforce the rule in src/lib/portable.h: no byte buffer is cast
# to a pointer to a wider type and dereferenced, outside that header.
#
# Two shapes are searched in src/ and tests/ (C sources and headers):
#   *(T *)p        and  *(const volatile T *)expr
#   ((T *)p)[i]    and  ((T *)p)->field is not searched (structs are allowed)
# where T is any integer or floating type wider than a byte. Allowed files:
# src/lib/portable.h (the helpers) and tests/c/canary.c (the deliberate trap).
#
# The same holds for structs: a byte buffer cast to a struct pointer and
# dereferenced is an unaligned load of each field. Three shapes of a cast to
# a pointer to a non-primitive type (struct tag or typedef name) are found:
#   (struct s *)(buf + off)        pointer arithmetic cast to a struct
#   (T *)((char *)p + n)           a char/uint8_t/void cast cast on to a struct
#   (T *)lp                        a name the same file declares as a byte
#                                  buffer (char/unsigned char/uint8_t/sds,
#                                  pointer or array) cast to a struct
# A cast that is safe -- the type is incomplete so nothing can dereference
# it, or the pointer is aligned by construction and asserted -- goes on the
# STRUCT_ALLOW list below with its file, its cast text and the reason.
#
# The script first proves its own patterns on known-bad lines, so a broken
# regex cannot pass silently. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
T='(u?int(16|32|64)_t|(unsigned[[:space:]]+|signed[[:space:]]+)?(short|int|long|long[[:space:]]+long)|unsigned|size_t|ssize_t|uintptr_t|intptr_t|float|double)'
Q='((const|volatile)[[:space:]]+)*'
DEREF="\\*[[:space:]]*\\([[:space:]]*${Q}${T}[[:space:]]*${Q}\\*[[:space:]]*\\)"
INDEX="\\([[:space:]]*\\([[:space:]]*${Q}${T}[[:space:]]*${Q}\\*[[:space:]]*\\)[^()]*\\)[[:space:]]*\\["
passed=0; failed=0

# Struct casts. PRIM: the types that are not structs (casts to them are the
# integer check's business, or harmless). BYTEPTR: what declares a byte buffer.
NAME='[A-Za-z_][A-Za-z0-9_]*'
SCAST="\\([[:space:]]*${Q}(struct[[:space:]]+)?${NAME}[[:space:]]*${Q}\\*[[:space:]]*\\)[[:space:]]*"
PRIM="(unsigned|signed|char|void|short|int|long|float|double|bool|_Bool|u?int(8|16|32|64)_t|size_t|ssize_t|u?intptr_t|off_t|sds)"
SARITH="${SCAST}\\([[:space:]]*${NAME}(->${NAME}|\\.${NAME})*[[:space:]]*[-+][^-+=]"
SOVERBYTE="${SCAST}(\\([[:space:]]*)?\\([[:space:]]*${Q}((unsigned|signed)[[:space:]]+)?(char|u?int8_t|void)[[:space:]]*${Q}\\*"
BYTEDECL="(((unsigned|signed)[[:space:]]+)?char|u?int8_t)[[:space:]]*${Q}\\*+[[:space:]]*${Q}${NAME}|(((unsigned|signed)[[:space:]]+)?char|u?int8_t)[[:space:]]+${NAME}[[:space:]]*\\[|\\bsds[[:space:]]+${NAME}"

# file|cast text|why it is safe. Matched on the cast text, not line numbers.
STRUCT_ALLOW=(
    'src/rdb.c|(const intset *)(const void *)b->u.is.blob|intset is an incomplete type (lib/intset.h): a name for a blob read only through load32le/loadN, never dereferenced'
    'tests/c/test_intset.c|(const intset *)(buf + off)|intset is an incomplete type: the test hands odd offsets to the byte-wise accessors on purpose'
    'tests/c/test_intset.c|(const intset *)blob|intset is an incomplete type: never dereferenced'
    'tests/deb-nss-module.c|(struct gaih_addrtuple *)(void *)(buffer + pad)|glibc NSS API: the tuple must live in the caller'"'"'s buffer; the offset is aligned to alignof(struct gaih_addrtuple) just above'
)

check() { # description, command...
    local what=$1; shift
    if "$@"; then echo "[ok] $what"; passed=$((passed + 1));
    else echo "[FAIL] $what"; failed=$((failed + 1)); fi
}

self_test() {
    local bad=( 'x = *(uint64_t *)p;' 'x = *(const uint32_t*)(buf + 1);' 'y = ((uint16_t *)buf)[3];'
                'z = *(volatile unsigned long long *)q;' 'w = *(double *)s;' )
    local good=( 'x = load64(p);' 'memcpy(&v, p, sizeof v);' 'char *c = (char *)p;' 'n = (size_t)len * 2;' )
    for line in "${bad[@]}"; do
        echo "$line" | grep -qE "$DEREF|$INDEX" || { echo "    pattern misses: $line"; return 1; }
    done
    for line in "${good[@]}"; do
        echo "$line" | grep -qE "$DEREF|$INDEX" && { echo "    pattern flags a legal line: $line"; return 1; }
    done
    return 0
}

# The struct casts in one file, as "file:line:cast text", allowed ones left out.
struct_casts_in() {
    local file=$1 names hits
    names=$(grep -oE "$BYTEDECL" "$file" | grep -oE "${NAME}[[:space:]]*\\[?\$" | tr -d '[ \t' | sort -u | paste -sd'|' -)
    hits=$( { grep -noE "${SARITH}|${SOVERBYTE}" "$file"
              [ -n "$names" ] && grep -noE "${SCAST}(${names})\\b" "$file"; } |
            grep -vE "^[0-9]+:\\([[:space:]]*${Q}${PRIM}\\b" | sort -u)
    [ -z "$hits" ] && return 0
    local entry cast
    while IFS= read -r hit; do
        cast=${hit#*:}
        for entry in "${STRUCT_ALLOW[@]}"; do
            IFS='|' read -r afile acast _ <<<"$entry"
            [ "$afile" = "$file" ] && [ "${cast#"$acast"}" != "$cast" ] && continue 2
            [ "$afile" = "$file" ] && [ "${acast#"$cast"}" != "$acast" ] && continue 2
        done
        echo "$file:$hit"
    done <<<"$hits"
}

# Self-test of the struct patterns: a scratch file with known-bad and legal lines.
struct_self_test() {
    local tmp rc=0 line out
    tmp=$(mktemp -d) || return 1
    local bad=( 'h = (struct hdr *)(buf + off);' 'h = (const hdr *)((char *)p + n);'
                'e = (entry *)((unsigned char *)lp + 6);' 'q = (T *)lp;' 'r = (struct x *)(const void *)raw;'
                'm = (meta *)(s->buf + 3);' )
    local good=( 'c = (char *)(buf + 1);' 'x = load32(p + off);' 'n = (size_t)(a + b);'
                 'sa = (struct sockaddr *)&ss;' 'k = (kvobjHead *)o;' 'v = (uint8_t *)(p + 2);'
                 'w = (void *)(lp + 1);' 'f = (T *)other;' )
    printf 'unsigned char *lp;\nchar raw[16];\nstruct S { unsigned char *buf; } *s;\n' >"$tmp/decl.c"
    for line in "${bad[@]}"; do
        cp "$tmp/decl.c" "$tmp/t.c"; echo "$line" >>"$tmp/t.c"
        out=$(struct_casts_in "$tmp/t.c")
        [ -n "$out" ] || { echo "    struct pattern misses: $line"; rc=1; }
    done
    for line in "${good[@]}"; do
        cp "$tmp/decl.c" "$tmp/t.c"; echo "$line" >>"$tmp/t.c"
        out=$(struct_casts_in "$tmp/t.c")
        [ -z "$out" ] || { echo "    struct pattern flags a legal line: $line"; rc=1; }
    done
    rm -rf "$tmp"
    return $rc
}

# Two workers (subshells inherit the functions and the allow-list), each
# taking every other file: a dozen processes per file made this the
# longest of make test's source checks (30 s in CI, one core).
scan_structs() {
    local tmp worker file all=""
    tmp=$(mktemp -d) || return 1
    find src tests utils \( -name '*.c' -o -name '*.h' \) -type f |
        grep -vE '^(src/lib/portable\.h|tests/c/canary\.c)$' | sort >"$tmp/files"
    for worker in 0 1; do
        ( awk -v w=$worker 'NR % 2 == w' "$tmp/files" | while IFS= read -r file; do
              struct_casts_in "$file"
          done >"$tmp/out$worker" ) &
    done
    wait
    all=$(cat "$tmp/out0" "$tmp/out1")
    rm -rf "$tmp"
    [ -z "$all" ] && return 0
    printf '%s\n' "$all" | sort | sed 's/^/    /'
    return 1
}

allow_list_current() {
    local entry afile acast rc=0
    for entry in "${STRUCT_ALLOW[@]}"; do
        IFS='|' read -r afile acast _ <<<"$entry"
        grep -qF -- "$acast" "$afile" 2>/dev/null || { echo "    stale allow-list entry: $afile $acast"; rc=1; }
    done
    return $rc
}

scan_tree() {
    local hits
    hits=$(grep -rnE "$DEREF|$INDEX" src tests utils --include='*.c' --include='*.h' |
           grep -vE '^(src/lib/portable\.h|tests/c/canary\.c):')
    [ -z "$hits" ] && return 0
    echo "$hits" | sed 's/^/    /'
    return 1
}

check "the cast patterns catch known violations and pass legal code" self_test
check "no wide-pointer cast-and-dereference outside src/lib/portable.h" scan_tree
check "the struct-cast patterns catch known violations and pass legal code" struct_self_test
check "no byte buffer cast to a struct pointer (bar the allow-list)" scan_structs
check "every struct-cast allow-list entry still matches its file" allow_list_current
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
