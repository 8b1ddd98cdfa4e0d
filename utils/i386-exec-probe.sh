#!/bin/sh
# i386-exec-probe.sh -- prints nothing when this kernel runs 32-bit x86
# programs itself (IA32 emulation), else "qemu-i386-static": the i386 port's
# PORT_QEMU (ports/i386/port.mk). Some kernels (Debian 12 VMs among them)
# are built or booted without IA32 emulation: a static i686 program then
# fails with "Exec format error", and the port's tests ran nothing (CI's
# i386 row: 0 passed, 166 failed on such a machine, 2026-11-30).
#
# The answer is cached in build/.i386-exec (delete it to ask again); the
# probe is a static "return 0" built with the port's compiler. Without that
# compiler nothing is printed (need-tools.sh then names the package).
set -u
cd "$(dirname "$0")/.." || exit 0
cache=build/.i386-exec
if [ -f "$cache" ]; then cat "$cache"; exit 0; fi
command -v i686-linux-gnu-gcc >/dev/null 2>&1 || exit 0
mkdir -p build
probe=build/.i386-probe
printf 'int main(void) { return 0; }\n' | i686-linux-gnu-gcc -static -x c - -o "$probe" 2>/dev/null || exit 0
if "$probe" 2>/dev/null; then answer=""; else answer="qemu-i386-static"; fi
rm -f "$probe"
printf '%s' "$answer" >"$cache"
printf '%s' "$answer"
