#!/usr/bin/env bash
# install-guard.sh FILE... -- `make install` (into the live system, no
# DESTDIR) calls this with every path it is about to write: a file that a
# Debian package owns is refused, with the package's name, before anything
# is written. `make install PREFIX=/usr` would otherwise replace
# /usr/bin/redis-server and redis-cli of Debian's redis-server and
# redis-tools packages, and the next upgrade of those would put theirs back.
#
# A staged install (DESTDIR) is not checked: the staged tree is for another
# machine, whose packages this one's dpkg database does not know.
# DPKG_ADMINDIR (tests) points dpkg-query at another database. Without
# dpkg-query (not a Debian system) nothing is checked.
set -u
command -v dpkg-query >/dev/null 2>&1 || exit 0
admin=()
[ -n "${DPKG_ADMINDIR:-}" ] && admin=(--admindir="$DPKG_ADMINDIR")
refused=0
for f in "$@"; do
    # dpkg-query -S matches substrings; keep only an exact "pkg: FILE" line
    owner=$(dpkg-query "${admin[@]}" -S "$f" 2>/dev/null | awk -v f="$f" '
        { i = index($0, ": "); if (substr($0, i + 2) == f) { print substr($0, 1, i - 1); exit } }')
    if [ -n "$owner" ]; then
        echo "make install: refusing to overwrite $f: it belongs to the Debian package '$owner' (dpkg -S $f)." >&2
        refused=1
    fi
done
if [ "$refused" -ne 0 ]; then
    echo "make install: nothing was installed. Choose another PREFIX (the default, /usr/local, is no package's), or remove the package first." >&2
    exit 1
fi
exit 0
