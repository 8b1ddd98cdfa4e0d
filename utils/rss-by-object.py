#!/usr/bin/env python3
"""rss-by-object.py -- which object files of a running server are resident.

    utils/rss-by-object.py PID [--map FILE] [--binary FILE] [--layout | --brief]

Reads, for the process PID:
  - the binary's program and section headers (readelf), so each byte of the
    image is known as text, rodata, eh_frame, relro, data or bss;
  - the linker map the build writes next to the binary (<binary>.map, the
    Makefile links with -Wl,-Map): the address range of every input section,
    and so of every object file and archive member;
  - /proc/PID/maps (the load bias of a PIE) and /proc/PID/pagemap (bit 63:
    the page is present in the process's page tables, i.e. counted in RSS).

and prints, per group of object files and per kind of section, the bytes of
that group lying on resident pages over the group's size. Groups: scripting
(Lua, lua-cjson, our Lua libraries, the eval/function/script glue) and the
rest (server objects, src/lib, jemalloc, libc/libgcc/crt objects, and
"linker": padding and the sections the linker makes, PLT, GOT, dynamic
symbols and relocations, .eh_frame_hdr).
--layout adds the runs of scripting sections (where they sit, how big, how
many of their pages are resident); --brief prints only "scripting BYTES rest
BYTES" (for utils/bench-script-memory.sh).

Why bytes on resident pages: a page is resident as a whole, and the kernel
maps the pages around each faulting address that are in the page cache
(fault-around, 64 KB; a whole large folio on recent kernels), so code that
never ran becomes resident when it shares a window with code that did. The
scripting figure is therefore what the server would save if that code were
not in the binary at all. It varies from run to run with the page cache's
folios: compare several runs (utils/bench-script-memory.sh --fresh does).

Limits: the process must run natively (under QEMU user mode the PID is the
emulator's); reading pagemap needs the same user or root (the present bit is
readable without CAP_SYS_ADMIN, the frame numbers are not needed). The map
must come from the same link as the binary: the section addresses of both
are compared first and the tool stops if they differ.
"""

import argparse
import os
import re
import struct
import subprocess
import sys

# Object files that exist only for scripting. Keep in step with
# src/scripting.ld (which places them) and deps/lua/build.sh (liblua.a
# holds Lua and lua-cjson).
CJSON_MEMBERS = ("lua_cjson.o", "strbuf.o", "fpconv.o")
GLUE_OBJS = ("eval.o", "function.o", "script.o", "script_lua.o", "ldb.o", "ldb_show.o")
LUA_LIB_OBJS = ("lua_bit.o", "lua_cmsgpack.o", "lua_struct.o")

SCRIPTING_GROUPS = ("lua", "cjson", "lua libs", "glue")
REST_GROUPS = ("server", "src/lib", "jemalloc", "libc/crt", "linker")
# Output sections the linker makes itself (their map lines name the first
# input file, not an owner): counted as "linker", with the padding.
LINKER_MADE = (".interp", ".gnu.hash", ".hash", ".dynsym", ".dynstr", ".gnu.version", ".gnu.version_r",
               ".rela.dyn", ".rela.plt", ".rel.dyn", ".rel.plt", ".plt", ".plt.got", ".plt.sec", ".iplt",
               ".got", ".got.plt", ".dynamic", ".eh_frame_hdr")
KINDS = ("text", "rodata", "eh_frame", "relro", "data", "bss")


def group_of(filename):
    """The group an input file (path, or archive(member)) belongs to."""
    m = re.match(r"(.*)\((.*)\)$", filename)
    archive, member = (m.group(1), m.group(2)) if m else ("", filename)
    base = os.path.basename(member)
    if archive.endswith("liblua.a"):
        return "cjson" if base in CJSON_MEMBERS else "lua"
    if archive.endswith("libredis.a"):
        return "src/lib"
    if archive.endswith("libjemalloc.a"):
        return "jemalloc"
    if "/obj/" in filename and not archive:
        if base in GLUE_OBJS:
            return "glue"
        if base in LUA_LIB_OBJS:
            return "lua libs"
        return "server"
    return "libc/crt"


# ---------------------------------------------------------------- the binary

def readelf(binary, option):
    cmd = [os.environ.get("READELF", "readelf"), option, "-W", binary]
    return subprocess.run(cmd, check=True, capture_output=True, text=True).stdout


def elf_sections(binary):
    """[(name, type, addr, size, flags)] of the allocated sections."""
    out = []
    for line in readelf(binary, "-S").splitlines():
        m = re.match(r"\s*\[\s*\d+\]\s+(\S+)\s+(\S+)\s+([0-9a-f]+)\s+[0-9a-f]+\s+([0-9a-f]+)"
                     r"\s+[0-9a-f]+\s+(\S*)", line)
        if m and "A" in m.group(5):
            out.append((m.group(1), m.group(2), int(m.group(3), 16), int(m.group(4), 16), m.group(5)))
    return out


def elf_segments(binary):
    """(is_pie, [(vaddr, memsz, offset)] of PT_LOAD, relro (start, end) or None)."""
    text = readelf(binary, "-l")
    is_pie = "DYN" in (re.search(r"Elf file type is (\S+)", text) or [None, ""])[1]
    loads, relro = [], None
    for line in text.splitlines():
        f = line.split()
        if f and f[0] in ("LOAD", "GNU_RELRO"):
            off, vaddr, memsz = int(f[1], 16), int(f[2], 16), int(f[5], 16)
            if f[0] == "LOAD":
                loads.append((vaddr, memsz, off))
            else:
                relro = (vaddr, vaddr + memsz)
    return is_pie, loads, relro


def kind_of(name, sec_type, flags, addr, relro):
    if "X" in flags:
        return "text"
    if name.startswith((".eh_frame", ".gcc_except_table")):
        return "eh_frame"
    if "W" not in flags:
        return "rodata"
    if sec_type == "NOBITS":
        return "bss"
    if relro and relro[0] <= addr < relro[1]:
        return "relro"
    return "data"


# ---------------------------------------------------------------- the map

def parse_map(path):
    """{output section name: (addr, size)} and [(addr, size, output section, file)]."""
    outputs, inputs = {}, []
    current, pending = None, None  # pending: a name whose numbers are on the next line
    started = False
    with open(path, errors="replace") as f:
        for line in f:
            if not started:
                started = line.startswith("Linker script and memory map")
                continue
            line = line.rstrip("\n")
            if pending is not None:
                name, is_output = pending
                pending = None
                m = re.match(r"\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)(?:\s+(.*))?$", line)
                if m:
                    consume(name, is_output, m, outputs, inputs, current)
                    if is_output:
                        current = name
                    continue
                if is_output:
                    current = name
            m = re.match(r"(\.?[A-Za-z_][\w.$-]*)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)", line)
            if m:  # output section with its numbers on one line
                current = m.group(1)
                outputs[current] = (int(m.group(2), 16), int(m.group(3), 16))
                continue
            m = re.match(r"(\.?[A-Za-z_][\w.$-]*)\s*$", line)
            if m:  # output section whose numbers follow (or an empty one)
                pending = (m.group(1), True)
                continue
            m = re.match(r" (\.[\w.$-]+|COMMON)\s+0x([0-9a-f]+)\s+0x([0-9a-f]+)\s+(.*)$", line)
            if m:
                consume(m.group(1), False, m, outputs, inputs, current, 1)
                continue
            m = re.match(r" (\.[\w.$-]+|COMMON)\s*$", line)
            if m:
                pending = (m.group(1), False)
    return outputs, inputs


def consume(name, is_output, m, outputs, inputs, current, first=0):
    addr, size = int(m.group(first + 1), 16), int(m.group(first + 2), 16)
    if is_output:
        outputs[name] = (addr, size)
    elif size and m.group(first + 3):
        inputs.append((addr, size, current, m.group(first + 3).strip()))


def check_map_matches(sections, outputs, map_path, binary):
    for name, _, addr, size, _ in sections:
        if name in outputs and outputs[name] != (addr, size):
            sys.exit(f"{map_path} is not the map of {binary}: {name} is at {addr:#x}+{size:#x} "
                     f"in the binary, {outputs[name][0]:#x}+{outputs[name][1]:#x} in the map")


# ---------------------------------------------------------------- the process

def load_bias(pid, binary, is_pie, loads, page):
    if not is_pie:
        return 0
    real = os.path.realpath(binary)
    first = min(loads)
    with open(f"/proc/{pid}/maps") as f:
        for line in f:
            fields = line.split()
            if len(fields) >= 6 and os.path.realpath(fields[5]) == real:
                start, off = int(fields[0].split("-")[0], 16), int(fields[2], 16)
                if off == first[2] & ~(page - 1):
                    return start - (first[0] & ~(page - 1))
    sys.exit(f"process {pid} does not map {binary}")


def resident_pages(pid, bias, loads, page):
    """The set of page numbers (link-time addresses // page) present in RSS."""
    present = set()
    with open(f"/proc/{pid}/pagemap", "rb") as f:
        for vaddr, memsz, _ in loads:
            first, last = vaddr // page, (vaddr + memsz - 1) // page
            f.seek(((bias // page) + first) * 8)
            data = f.read((last - first + 1) * 8)
            for i, (entry,) in enumerate(struct.iter_unpack("<Q", data)):
                if entry >> 63:
                    present.add(first + i)
    return present


def resident_bytes(addr, size, present, page):
    total, a, end = 0, addr, addr + size
    while a < end:
        next_page = (a // page + 1) * page
        if a // page in present:
            total += min(end, next_page) - a
        a = next_page
    return total


# ---------------------------------------------------------------- report

def attribute(sections, inputs, relro, present, page):
    """{(group, kind): [resident, size]}; bytes no input section covers are the linker's."""
    table = {}

    def add(group, kind, addr, size):
        cell = table.setdefault((group, kind), [0, 0])
        cell[0] += resident_bytes(addr, size, present, page)
        cell[1] += size

    for name, sec_type, addr, size, flags in sections:
        kind = kind_of(name, sec_type, flags, addr, relro)
        covered = sorted((a, s, f) for a, s, out, f in inputs if out == name)
        cursor = addr
        for a, s, f in covered:
            if a > cursor:
                add("linker", kind, cursor, a - cursor)
            linker_made = name in LINKER_MADE or name.startswith(".note")
            add("linker" if linker_made else group_of(f), kind, a, s)
            cursor = max(cursor, a + s)
        if cursor < addr + size:
            add("linker", kind, cursor, addr + size - cursor)
    return table


def kb(n):
    return f"{n / 1024:.1f}"


def print_table(table):
    print(f"{'resident KB / size KB':<22}" + "".join(f"{k:>16}" for k in KINDS) + f"{'all':>18}")

    def row(label, groups):
        cells, res_all, size_all = [], 0, 0
        for k in KINDS:
            r = sum(table.get((g, k), [0, 0])[0] for g in groups)
            s = sum(table.get((g, k), [0, 0])[1] for g in groups)
            res_all, size_all = res_all + r, size_all + s
            cells.append(f"{kb(r)}/{kb(s)}" if s else "-")
        print(f"{label:<22}" + "".join(f"{c:>16}" for c in cells) + f"{kb(res_all) + '/' + kb(size_all):>18}")
        return res_all

    for g in SCRIPTING_GROUPS:
        row("  " + g, (g,))
    scripting = row("scripting", SCRIPTING_GROUPS)
    for g in REST_GROUPS:
        row("  " + g, (g,))
    rest = row("rest", REST_GROUPS)
    print(f"resident bytes: scripting {scripting} ({kb(scripting)} KB), rest {rest} ({kb(rest)} KB), "
          f"image total {scripting + rest} ({kb(scripting + rest)} KB)")


def print_layout(inputs, sections, relro, present, page):
    """Runs of scripting input sections per kind, with what is resident in them."""
    kinds = {}
    for name, sec_type, addr, size, flags in sections:
        kinds[name] = kind_of(name, sec_type, flags, addr, relro)
    for want in ("text", "rodata", "relro", "data", "bss"):
        runs = []
        for a, s, out, f in sorted(inputs):
            if kinds.get(out) != want:
                continue
            scripting = group_of(f) in SCRIPTING_GROUPS
            if runs and runs[-1][2] == scripting:
                runs[-1][1] = a + s
            else:
                runs.append([a, a + s, scripting])
        big = [r for r in runs if r[2]]
        if not big:
            continue
        print(f"scripting {want}: {len(big)} runs; the largest:")
        for start, end, _ in sorted(big, key=lambda r: r[0] - r[1])[:4]:
            pages = range(start // page, (end - 1) // page + 1)
            res = sum(1 for p in pages if p in present)
            print(f"  {start:#x}-{end:#x} {kb(end - start)} KB, pages {len(pages)}, resident {res}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("pid", type=int)
    ap.add_argument("--binary", help="the server binary (default: /proc/PID/exe)")
    ap.add_argument("--map", help="its linker map (default: the binary's path + .map, "
                    "or build/native/redis-server.map for src/redis-server)")
    ap.add_argument("--layout", action="store_true", help="also list the scripting runs")
    ap.add_argument("--brief", action="store_true", help='only "scripting BYTES rest BYTES"')
    args = ap.parse_args()

    binary = args.binary or os.path.realpath(f"/proc/{args.pid}/exe")
    map_path = args.map or binary + ".map"
    if not args.map and not os.path.exists(map_path) and binary.endswith("/src/redis-server"):
        map_path = os.path.join(os.path.dirname(os.path.dirname(binary)), "build/native/redis-server.map")
    if not os.path.exists(map_path):
        sys.exit(f"no linker map {map_path}: build with the Makefile (it links with -Wl,-Map), or --map FILE")
    page = os.sysconf("SC_PAGE_SIZE")

    sections = elf_sections(binary)
    is_pie, loads, relro = elf_segments(binary)
    outputs, inputs = parse_map(map_path)
    check_map_matches(sections, outputs, map_path, binary)
    bias = load_bias(args.pid, binary, is_pie, loads, page)
    present = resident_pages(args.pid, bias, loads, page)

    table = attribute(sections, inputs, relro, present, page)
    if args.brief:
        resident = [sum(table.get((g, k), [0, 0])[0] for g in groups for k in KINDS)
                    for groups in (SCRIPTING_GROUPS, REST_GROUPS)]
        print(f"scripting {resident[0]} rest {resident[1]}")
        return
    print(f"{binary} (pid {args.pid}), map {map_path}, page {page} B, "
          f"{len(present)} image pages resident")
    print_table(table)
    if args.layout:
        print_layout(inputs, sections, relro, present, page)


if __name__ == "__main__":
    main()
