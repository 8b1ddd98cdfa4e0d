#!/usr/bin/env bash
# need-tools.sh COMMAND:PACKAGE ... -- make sure build tools exist.
#
# For each pair, if COMMAND is not on PATH, install PACKAGE with apt-get when
# running as root (apt-get update runs once first); otherwise stop with a
# message naming exactly what to install. An empty COMMAND (":libssl-dev")
# checks that the package itself is installed, for packages with no command
# to look for (headers, a Python module). Used by the Makefile before a
# port's first compile and by .ci/run.
set -u
missing=()
for pair in "$@"; do
    cmd=${pair%%:*}; pkg=${pair#*:}
    if [ -z "$cmd" ]; then
        dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q 'ok installed' || missing+=("$pkg")
    else
        command -v "$cmd" >/dev/null 2>&1 || missing+=("$pkg")
    fi
done
[ ${#missing[@]} -eq 0 ] && exit 0
pkgs=$(printf '%s\n' "${missing[@]}" | sort -u | tr '\n' ' ')
if [ "$(id -u)" != 0 ]; then
    echo "missing build tools: install them with: sudo apt-get install $pkgs" >&2
    exit 1
fi
echo "installing missing build tools: $pkgs"
export DEBIAN_FRONTEND=noninteractive
# The one apt lock shared with deps/common.sh: apt-get refuses at once when
# another apt-get (a parallel recipe) holds apt's own lock.
exec 7>>"${APT_LOCK_FILE:-/tmp/.redis-portable-apt.lock}"
flock 7
apt-get update -qq >/dev/null && apt-get install -y -qq $pkgs >/dev/null || {
    echo "apt-get could not install: $pkgs" >&2
    exit 1
}
