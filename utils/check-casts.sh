#!/usr/bin/env bash
# check-casts.sh -- enforce the rule in src/lib/portable.h: no byte buffer is cast
# to a pointer to a wider type and dereferenced, outside that header.
#
# Two shapes are searched in src/ and tests/ (C sources and headers):
#   *(T *)p        and  *(const volatile T *)expr
#   ((T *)p)[i]    and  ((T *)p)->field is not searched (structs are allowed)
# where T is any integer or floating type wider than a byte. Allowed files:
# src/lib/portable.h (the helpers) and tests/c/canary.c (the deliberate trap).
# The script first proves its own patterns on known-bad lines, so a broken
# regex cannot pass silently. Ends with "N passed, N failed".
set -u
cd "$(dirname "$0")/.." || exit 1
T='(u?int(16|32|64)_t|(unsigned[[:space:]]+|signed[[:space:]]+)?(short|int|long|long[[:space:]]+long)|unsigned|size_t|ssize_t|uintptr_t|intptr_t|float|double)'
Q='((const|volatile)[[:space:]]+)*'
DEREF="\\*[[:space:]]*\\([[:space:]]*${Q}${T}[[:space:]]*${Q}\\*[[:space:]]*\\)"
INDEX="\\([[:space:]]*\\([[:space:]]*${Q}${T}[[:space:]]*${Q}\\*[[:space:]]*\\)[^()]*\\)[[:space:]]*\\["
passed=0; failed=0

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
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
