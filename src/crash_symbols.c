/* crash_symbols.c -- names for the crash report's stack frames, read from
 * the executable's own symbol table.
 *
 * glibc's backtrace_symbols_fd() names an address only when the symbol is
 * in the dynamic symbol table, which holds just what a program exports.
 * We don't export our functions (no -rdynamic: a module would see every
 * one of our names, and its own functions of the same name would be bound
 * to ours), so the report showed bare offsets where Redis 7.0 shows
 * "redis-server(debugCommand+0x1a0)[0x...]" -- what operators and Redis's
 * integration/logging test look for. Here the crash handler reads
 * .symtab from /proc/self/exe instead: every function, static ones too.
 *
 * Decisions:
 * - Signal-safe: only open, pread, readlink and close, buffers on the
 *   (alternate) stack, nothing allocated and nothing read before a crash,
 *   so a server that never crashes pays nothing (no memory, no start-up).
 * - The load address comes from the program headers: getauxval(AT_PHDR)
 *   is where they are mapped; their link-time address is PT_PHDR's, or
 *   found through the PT_LOAD segment holding them. The same code serves
 *   PIE, static and static-pie builds.
 * - A frame is named only by a function that contains it (st_value <= pc <
 *   st_value + st_size); a frame outside the executable (libc) or in no
 *   sized function is left to the caller (backtrace_symbols_fd()).
 * - A stripped binary has no .symtab: nothing is found and the report is
 *   as before. Linux only (/proc/self/exe, <elf.h>); elsewhere the same.
 */
#include "crash_symbols.h"

#include <string.h>

#if defined(__linux__) && defined(__has_include)
#if __has_include(<elf.h>) && __has_include(<sys/auxv.h>)
#define HAVE_CRASH_SYMBOLS 1
#endif
#endif

#ifdef HAVE_CRASH_SYMBOLS
#include <elf.h>
#include <fcntl.h>
#include <sys/auxv.h>
#include <unistd.h>

#if UINTPTR_MAX == UINT64_MAX
typedef Elf64_Ehdr elfEhdr;
typedef Elf64_Phdr elfPhdr;
typedef Elf64_Shdr elfShdr;
typedef Elf64_Sym elfSym;
#define ELF_OWN_CLASS ELFCLASS64
#define ELF_SYM_TYPE(info) ELF64_ST_TYPE(info)
#else
typedef Elf32_Ehdr elfEhdr;
typedef Elf32_Phdr elfPhdr;
typedef Elf32_Shdr elfShdr;
typedef Elf32_Sym elfSym;
#define ELF_OWN_CLASS ELFCLASS32
#define ELF_SYM_TYPE(info) ELF32_ST_TYPE(info)
#endif

#define SYMS_PER_READ 64

static int readAt(int fd, void *buf, size_t len, uint64_t off) {
    return pread(fd, buf, len, (off_t)off) == (ssize_t)len ? 0 : -1;
}

/* The difference between run-time and link-time addresses, and whether
 * the program headers could be read. */
static int loadBias(int fd, const elfEhdr *eh, uintptr_t *bias) {
    uintptr_t runtime_phdr = (uintptr_t)getauxval(AT_PHDR);
    if (runtime_phdr == 0 || eh->e_phentsize != sizeof(elfPhdr)) return -1;
    uintptr_t link_phdr = 0;
    int found = 0;
    for (unsigned i = 0; i < eh->e_phnum && !found; i++) {
        elfPhdr ph;
        if (readAt(fd, &ph, sizeof ph, (uint64_t)eh->e_phoff + (uint64_t)i * sizeof ph) != 0) return -1;
        if (ph.p_type == PT_PHDR) {
            link_phdr = (uintptr_t)ph.p_vaddr;
            found = 1;
        } else if (ph.p_type == PT_LOAD && eh->e_phoff >= ph.p_offset && eh->e_phoff - ph.p_offset < ph.p_filesz) {
            link_phdr = (uintptr_t)(ph.p_vaddr + (eh->e_phoff - ph.p_offset));
            found = 1;
        }
    }
    if (!found) return -1;
    *bias = runtime_phdr - link_phdr;
    return 0;
}

/* The section headers of .symtab and of its string table. */
static int findSymtab(int fd, const elfEhdr *eh, elfShdr *symtab, elfShdr *strtab) {
    if (eh->e_shentsize != sizeof(elfShdr) || eh->e_shnum == 0) return -1;
    for (unsigned i = 0; i < eh->e_shnum; i++) {
        if (readAt(fd, symtab, sizeof *symtab, (uint64_t)eh->e_shoff + (uint64_t)i * sizeof *symtab) != 0) return -1;
        if (symtab->sh_type != SHT_SYMTAB || symtab->sh_entsize != sizeof(elfSym)) continue;
        if (symtab->sh_link >= eh->e_shnum) return -1;
        return readAt(fd, strtab, sizeof *strtab, (uint64_t)eh->e_shoff + (uint64_t)symtab->sh_link * sizeof *strtab);
    }
    return -1;
}

/* One pass over the symbols: for each address, the function holding it. */
static void matchSymbols(int fd, const elfShdr *symtab, void *const *addrs, int n, uintptr_t bias,
                         crashSymbol *out, uint32_t *name_at) {
    elfSym syms[SYMS_PER_READ];
    uint64_t count = symtab->sh_size / sizeof(elfSym);
    for (uint64_t first = 0; first < count; first += SYMS_PER_READ) {
        uint64_t batch = count - first < SYMS_PER_READ ? count - first : SYMS_PER_READ;
        if (readAt(fd, syms, (size_t)batch * sizeof(elfSym), symtab->sh_offset + first * sizeof(elfSym)) != 0) return;
        for (uint64_t k = 0; k < batch; k++) {
            const elfSym *s = &syms[k];
            if (ELF_SYM_TYPE(s->st_info) != STT_FUNC || s->st_shndx == SHN_UNDEF || s->st_size == 0) continue;
            for (int j = 0; j < n; j++) {
                uintptr_t at = (uintptr_t)addrs[j] - bias;
                if (out[j].found || at < (uintptr_t)s->st_value || at - (uintptr_t)s->st_value >= s->st_size) continue;
                out[j].found = 1;
                out[j].offset = at - (uintptr_t)s->st_value;
                name_at[j] = s->st_name;
            }
        }
    }
}

int crashSymbolsFind(void *const *addrs, int n, crashSymbol *out, char *exe, size_t exe_cap) {
    for (int j = 0; j < n; j++) {
        out[j].found = 0;
        out[j].name[0] = '\0';
    }
    if (exe_cap == 0) return 0;
    ssize_t len = readlink("/proc/self/exe", exe, exe_cap - 1);
    exe[len > 0 ? len : 0] = '\0';
    if (len <= 0 || n <= 0 || n > CRASH_SYMBOLS_MAX) return 0;
    int fd = open("/proc/self/exe", O_RDONLY | O_CLOEXEC);
    if (fd == -1) return 0;
    int found = 0;
    elfEhdr eh;
    elfShdr symtab, strtab;
    uintptr_t bias;
    uint32_t name_at[CRASH_SYMBOLS_MAX];
    if (readAt(fd, &eh, sizeof eh, 0) == 0 && memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0 &&
        eh.e_ident[EI_CLASS] == ELF_OWN_CLASS && loadBias(fd, &eh, &bias) == 0 &&
        findSymtab(fd, &eh, &symtab, &strtab) == 0) {
        matchSymbols(fd, &symtab, addrs, n, bias, out, name_at);
        for (int j = 0; j < n; j++) {
            if (!out[j].found) continue;
            size_t room = sizeof out[j].name - 1;
            if (name_at[j] >= strtab.sh_size) {
                out[j].found = 0;
                continue;
            }
            if (strtab.sh_size - name_at[j] < room) room = (size_t)(strtab.sh_size - name_at[j]);
            ssize_t got = pread(fd, out[j].name, room, (off_t)(strtab.sh_offset + name_at[j]));
            out[j].name[got > 0 ? got : 0] = '\0'; /* the name ends at its NUL, or is cut at the buffer */
            if (out[j].name[0] == '\0') out[j].found = 0;
            else found++;
        }
    }
    close(fd);
    return found;
}

#else /* no ELF reader here: nothing is found, the caller names frames its own way */

int crashSymbolsFind(void *const *addrs, int n, crashSymbol *out, char *exe, size_t exe_cap) {
    (void)addrs;
    for (int j = 0; j < n; j++) out[j].found = 0;
    if (exe_cap) exe[0] = '\0';
    return 0;
}

#endif
