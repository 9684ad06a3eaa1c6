// SPDX-License-Identifier: GPL-2.0
/*
 * Loaded objects: registering them in the session's module table (so the
 * recorder can symbolise the trace even after a crash), reading their
 * function symbols and patch sites from the ELF files, and turning an
 * address into a function and a function into a fid.
 *
 * The runtime may not use libelf (it lives inside someone else's process),
 * so this reads ELF64 section headers, .symtab/.dynsym and build-id notes
 * with <elf.h>'s structures over a read-only mapping of the file, checking
 * every offset against the mapping's size.  Patch-site tables
 * (__mcount_loc, __patchable_function_entries) are read from MEMORY, where
 * the dynamic linker has already relocated them to run-time addresses.
 */
#include <dlfcn.h>
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "rt.h"

/* dl_iterate_phdr callback state */
struct scan_ctx {
	int is_dlopen;
};

static void mod_name_from_path(char *dst, size_t len, const char *path)
{
	const char *b = strrchr(path, '/');
	char *dot;

	snprintf(dst, len, "%s", b ? b + 1 : path);
	/* :mod: names: "libfoo.so.1" -> "libfoo", "prog" -> "prog" */
	dot = strstr(dst, ".so");
	if (dot)
		*dot = '\0';
}

/* Copy the GNU build id out of the object's mapped PT_NOTE segments. */
static uint32_t find_build_id(struct dl_phdr_info *info, uint8_t *out, size_t cap)
{
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];
		const char *p, *end;

		if (ph->p_type != PT_NOTE)
			continue;
		p = (const char *)(info->dlpi_addr + ph->p_vaddr);
		end = p + ph->p_memsz;
		while (p + sizeof(ElfW(Nhdr)) <= end) {
			const ElfW(Nhdr) *n = (const ElfW(Nhdr) *)p;
			const char *name = p + sizeof(*n);
			const char *desc = name + ((n->n_namesz + 3) & ~3u);

			if (desc + n->n_descsz > end)
				break;
			if (n->n_type == NT_GNU_BUILD_ID && n->n_namesz == 4 &&
			    !memcmp(name, "GNU", 4) && n->n_descsz <= cap) {
				memcpy(out, desc, n->n_descsz);
				return n->n_descsz;
			}
			p = desc + ((n->n_descsz + 3) & ~3u);
		}
	}
	return 0;
}

/* Publish one module in the session table (see session.h ordering). */
static int publish_module(struct rt_module *m, struct dl_phdr_info *info, uint64_t offset,
			  int flags)
{
	struct ft_session_module *sm;
	uint32_t idx;

	if (!rt.sess)
		return -1;
	idx = __atomic_fetch_add(&rt.ctl->next_module, 1, __ATOMIC_RELAXED);
	if (idx >= rt.sess->max_modules)
		return -1;
	sm = &ft_session_modules(rt.sess)[idx];
	sm->start = m->start;
	sm->end = m->end;
	sm->offset = offset;
	sm->bias = m->bias;
	sm->pid = (uint32_t)rt.pid;
	sm->space = rt.space;
	sm->build_id_len = info ? find_build_id(info, sm->build_id, sizeof(sm->build_id)) : 0;
	snprintf(sm->path, sizeof(sm->path), "%s", m->path);
	/* release: the fields above are visible to whoever sees VALID */
	__atomic_store_n(&sm->flags, (uint32_t)flags | FT_SMOD_VALID, __ATOMIC_RELEASE);
	return (int)idx;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_ctx *sc = arg;
	uint64_t lo = UINT64_MAX, hi = 0, off = 0;
	struct rt_module *m;
	Dl_info self;
	int flags = 0;

	(void)size;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo) {
			lo = info->dlpi_addr + ph->p_vaddr;
			off = ph->p_offset;
		}
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (lo == UINT64_MAX)
		return 0;
	for (int i = 0; i < rt.nr_mods; i++)
		if (rt.mods[i].start == lo && rt.mods[i].bias == info->dlpi_addr)
			return 0; /* known */
	if (rt.nr_mods >= RT_MAX_MODS)
		return 0;
	m = &rt.mods[rt.nr_mods];
	memset(m, 0, sizeof(*m));
	if (!info->dlpi_name || !info->dlpi_name[0]) {
		ssize_t n;

		if (rt.nr_mods != 0)
			return 0; /* the vdso has no name on some systems: skip */
		n = readlink("/proc/self/exe", m->path, sizeof(m->path) - 1);
		if (n <= 0)
			return 0;
		m->path[n] = '\0';
		flags |= FT_SMOD_MAIN;
	} else {
		if (strstr(info->dlpi_name, "linux-vdso") || strstr(info->dlpi_name, "linux-gate"))
			return 0;
		if (!realpath(info->dlpi_name, m->path))
			snprintf(m->path, sizeof(m->path), "%s", info->dlpi_name);
	}
	if (sc->is_dlopen)
		flags |= FT_SMOD_DLOPEN;
	mod_name_from_path(m->name, sizeof(m->name), m->path);
	m->start = lo;
	m->end = hi;
	m->bias = info->dlpi_addr;
	if (dladdr((void *)ft_rt_return, &self) && (uint64_t)self.dli_fbase == lo)
		m->is_self = 1;
	m->shm_idx = publish_module(m, info, off, flags);
	rt.nr_mods++;
	return 0;
}

/*
 * Register every object not yet known (at init, and again after dlopen).
 * Caller holds rt.lock.
 */
void rt_modules_scan(int is_dlopen)
{
	struct scan_ctx sc = { is_dlopen };

	dl_iterate_phdr(scan_cb, &sc);
}

/* ---- ELF reading ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct rt_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static const ElfW(Shdr) *find_section(const ElfW(Ehdr) *eh, const ElfW(Shdr) *sh,
				      const char *shstr, size_t shstr_len, const char *name)
{
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_name < shstr_len && !strcmp(shstr + sh[i].sh_name, name))
			return &sh[i];
	return NULL;
}

/* The function whose [addr, addr+size) holds a, or NULL (binary search). */
static struct rt_func *func_in(struct rt_module *m, uint64_t a)
{
	uint32_t lo = 0, hi = m->nr_funcs;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->funcs[mid].addr <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	struct rt_func *f = &m->funcs[lo - 1];

	if (a < f->addr + (f->size ? f->size : 1))
		return f;
	return NULL;
}

/* The first function starting at or after a (sites placed before the symbol). */
static struct rt_func *func_at_or_after(struct rt_module *m, uint64_t a)
{
	uint32_t lo = 0, hi = m->nr_funcs;

	while (lo < hi) {
		uint32_t mid = (lo + hi) / 2;

		if (m->funcs[mid].addr < a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < m->nr_funcs ? &m->funcs[lo] : NULL;
}

static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };

/* Decide how the site at p (function f's entry area) can be patched. */
static void classify_site(struct rt_func *f, uint64_t p)
{
	const uint8_t *b = (const uint8_t *)p;

	if (!memcmp(b, nop5, 4)) { /* 0f 1f 44 00 xx: one 5-byte nop */
		f->site = p;
		f->site_kind = 1;
		f->site_len = 5;
		f->site_b4 = b[4];
	} else if (b[0] == 0x90 && b[1] == 0x90 && b[2] == 0x90 && b[3] == 0x90 &&
		   b[4] == 0x90) {
		f->site = p;
		f->site_kind = 2;
		f->site_len = 5;
	}
}

/* Read the relocated site table at [addr, addr+size) from memory. */
static void read_sites(struct rt_module *m, uint64_t addr, uint64_t size, int patchable)
{
	const uint64_t *v = (const uint64_t *)addr;

	for (uint64_t i = 0; i < size / 8; i++) {
		uint64_t s = v[i];
		struct rt_func *f;

		if (s < m->start || s >= m->end)
			continue;
		if (patchable) {
			/* -fpatchable-function-entry=N,M: s is the first nop, the
			 * entry is M bytes later; patch at the entry */
			f = func_at_or_after(m, s);
			if (!f || f->addr - s > 64)
				continue;
			classify_site(f, f->addr);
		} else {
			/* __mcount_loc: s is the call/nop itself */
			f = func_in(m, s);
			if (!f)
				continue;
			if (((const uint8_t *)s)[0] == 0xe8 || ((const uint8_t *)s)[0] == 0xff)
				continue; /* a real call to mcount/__fentry__: already hooked */
			classify_site(f, s);
		}
		if (f->site_kind)
			m->nr_sites++;
	}
}

/*
 * Map m's file and read its function symbols (.symtab, else .dynsym) and
 * patch sites.  Returns 0, or -1 (file unreadable or not ELF64; the module
 * is then never traced).  Caller holds rt.lock.
 */
int rt_module_load(struct rt_module *m)
{
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh, *symsec = NULL, *strsec, *sec;
	const char *shstr;
	size_t shstr_len, nsyms, n = 0;
	struct stat st;
	int fd;

	if (m->loaded)
		return m->loaded > 0 ? 0 : -1;
	m->loaded = -1;
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return -1;
	}
	m->map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (m->map == MAP_FAILED) {
		m->map = NULL;
		return -1;
	}
	m->map_len = (size_t)st.st_size;
	eh = m->map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shoff == 0 || eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)) > m->map_len ||
	    eh->e_shstrndx >= eh->e_shnum)
		return -1;
	sh = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset + sh[eh->e_shstrndx].sh_size > m->map_len)
		return -1;
	shstr = (const char *)m->map + sh[eh->e_shstrndx].sh_offset;
	shstr_len = sh[eh->e_shstrndx].sh_size;
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_type == SHT_SYMTAB)
			symsec = &sh[i];
	if (!symsec)
		for (int i = 0; i < eh->e_shnum; i++)
			if (sh[i].sh_type == SHT_DYNSYM)
				symsec = &sh[i];
	if (!symsec || symsec->sh_link >= eh->e_shnum ||
	    symsec->sh_offset + symsec->sh_size > m->map_len)
		return -1;
	strsec = &sh[symsec->sh_link];
	if (strsec->sh_offset + strsec->sh_size > m->map_len)
		return -1;
	nsyms = symsec->sh_size / sizeof(ElfW(Sym));
	m->funcs = mmap(NULL, (nsyms + 1) * sizeof(struct rt_func), PROT_READ | PROT_WRITE,
			MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (m->funcs == MAP_FAILED) {
		m->funcs = NULL;
		return -1;
	}
	const ElfW(Sym) *syms = (const ElfW(Sym) *)((const char *)m->map + symsec->sh_offset);
	const char *strs = (const char *)m->map + strsec->sh_offset;

	for (size_t i = 0; i < nsyms; i++) {
		const ElfW(Sym) *s = &syms[i];
		int type = ELF64_ST_TYPE(s->st_info);
		struct rt_func *f;

		if ((type != STT_FUNC && type != STT_GNU_IFUNC) || s->st_shndx == SHN_UNDEF ||
		    !s->st_value || s->st_name >= strsec->sh_size)
			continue;
		f = &m->funcs[n++];
		f->addr = s->st_value + m->bias;
		f->size = (uint32_t)s->st_size;
		f->name = strs + s->st_name;
		f->fid = RT_NOFID;
		f->mod = (uint16_t)(m - rt.mods);
		f->epoch = UINT32_MAX;
		/* prefer a global name for aliases: mark locals with flags bit 15 */
		f->flags = ELF64_ST_BIND(s->st_info) == STB_GLOBAL ? 0 : 0x8000;
	}
	qsort(m->funcs, n, sizeof(*m->funcs), sym_cmp);
	/* dedupe aliases (same address), keeping a global name and the largest size */
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		if (w && m->funcs[w - 1].addr == m->funcs[i].addr) {
			struct rt_func *k = &m->funcs[w - 1];

			if ((k->flags & 0x8000) && !(m->funcs[i].flags & 0x8000))
				k->name = m->funcs[i].name, k->flags = 0;
			if (m->funcs[i].size > k->size)
				k->size = m->funcs[i].size;
			continue;
		}
		m->funcs[w++] = m->funcs[i];
	}
	for (size_t i = 0; i < w; i++)
		m->funcs[i].flags = 0;
	m->nr_funcs = (uint32_t)w;

	sec = find_section(eh, sh, shstr, shstr_len, "__mcount_loc");
	if (sec && (sec->sh_flags & SHF_ALLOC) && sec->sh_addr) {
		read_sites(m, sec->sh_addr + m->bias, sec->sh_size, 0);
		if (m->nr_sites && rt.ctl)
			__atomic_fetch_or(&rt.ctl->rt_hooks, FT_HOOK_NOP_SITES, __ATOMIC_RELAXED);
	}
	sec = find_section(eh, sh, shstr, shstr_len, "__patchable_function_entries");
	if (sec && (sec->sh_flags & SHF_ALLOC) && sec->sh_addr) {
		uint32_t before = m->nr_sites;

		read_sites(m, sec->sh_addr + m->bias, sec->sh_size, 1);
		if (m->nr_sites > before && rt.ctl)
			__atomic_fetch_or(&rt.ctl->rt_hooks, FT_HOOK_PATCHABLE, __ATOMIC_RELAXED);
	}
	m->loaded = 1;
	return 0;
}

/*
 * Does m import one of the hooks the compiler emits calls to?  Such objects
 * are loaded eagerly (their functions must be known to the filters).
 */
int rt_module_wants_load(struct rt_module *m)
{
	static const char *const hooks[] = { "mcount", "_mcount", "__fentry__",
					     "__cyg_profile_func_enter" };
	const ElfW(Ehdr) *eh;
	const ElfW(Shdr) *sh;
	int fd, want = 0;
	struct stat st;
	void *map;

	if (m->is_self)
		return 0;
	fd = open(m->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || st.st_size < (off_t)sizeof(ElfW(Ehdr))) {
		close(fd);
		return 0;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return 0;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(ElfW(Shdr)) ||
	    eh->e_shoff + (uint64_t)eh->e_shnum * sizeof(ElfW(Shdr)) > (uint64_t)st.st_size ||
	    eh->e_shstrndx >= eh->e_shnum)
		goto out;
	sh = (const ElfW(Shdr) *)((const char *)map + eh->e_shoff);
	const char *shstr = (const char *)map + sh[eh->e_shstrndx].sh_offset;
	size_t shstr_len = sh[eh->e_shstrndx].sh_size;

	if (sh[eh->e_shstrndx].sh_offset + shstr_len > (uint64_t)st.st_size)
		goto out;
	if (find_section(eh, sh, shstr, shstr_len, "__mcount_loc") ||
	    find_section(eh, sh, shstr, shstr_len, "__patchable_function_entries"))
		want |= 1;
	for (int i = 0; i < eh->e_shnum && !(want & 0x10); i++) {
		const ElfW(Sym) *syms;
		const char *strs;

		if (sh[i].sh_type != SHT_DYNSYM && sh[i].sh_type != SHT_SYMTAB)
			continue;
		if (sh[i].sh_link >= eh->e_shnum ||
		    sh[i].sh_offset + sh[i].sh_size > (uint64_t)st.st_size ||
		    sh[sh[i].sh_link].sh_offset + sh[sh[i].sh_link].sh_size > (uint64_t)st.st_size)
			continue;
		syms = (const ElfW(Sym) *)((const char *)map + sh[i].sh_offset);
		strs = (const char *)map + sh[sh[i].sh_link].sh_offset;
		for (size_t j = 0; j < sh[i].sh_size / sizeof(ElfW(Sym)); j++) {
			if (syms[j].st_shndx != SHN_UNDEF ||
			    syms[j].st_name >= sh[sh[i].sh_link].sh_size)
				continue;
			for (unsigned int k = 0; k < sizeof(hooks) / sizeof(hooks[0]); k++) {
				if (strcmp(strs + syms[j].st_name, hooks[k]))
					continue;
				want |= 1;
				if (rt.ctl)
					__atomic_fetch_or(&rt.ctl->rt_hooks,
							  k < 2 ? FT_HOOK_MCOUNT :
							  k == 2 ? FT_HOOK_FENTRY : FT_HOOK_CYG,
							  __ATOMIC_RELAXED);
			}
		}
	}
out:
	munmap(map, (size_t)st.st_size);
	return want & 1;
}

struct rt_module *rt_module_of(uint64_t addr)
{
	for (int i = 0; i < rt.nr_mods; i++)
		if (addr >= rt.mods[i].start && addr < rt.mods[i].end)
			return &rt.mods[i];
	return NULL;
}

/*
 * The function containing addr, loading its module's symbols on first use.
 * NULL for addresses outside any traceable object.  Caller holds rt.lock.
 */
struct rt_func *rt_func_of(uint64_t addr)
{
	struct rt_module *m = rt_module_of(addr);

	if (!m) {
		rt_modules_scan(1); /* a dlopen we have not seen yet */
		m = rt_module_of(addr);
	}
	if (!m || m->is_self || rt_module_load(m))
		return NULL;
	return func_in(m, addr);
}

/*
 * f's fid, handing one out (and publishing its FUNCS entry) on first use.
 * Lock-free: two threads racing both publish an entry; one fid wins the
 * CAS, the other entry is a harmless duplicate.  RT_NOFID when the table
 * is full (counted in rt_funcs_dropped).
 */
uint32_t rt_func_fid(struct rt_func *f)
{
	uint32_t fid = __atomic_load_n(&f->fid, __ATOMIC_ACQUIRE), want = RT_NOFID;
	struct ft_session_func *e;

	if (likely(fid != RT_NOFID))
		return fid;
	fid = __atomic_fetch_add(&rt.ctl->next_fid, 1, __ATOMIC_RELAXED);
	if (fid >= rt.sess->max_funcs) {
		__atomic_fetch_add(&rt.ctl->rt_funcs_dropped, 1, __ATOMIC_RELAXED);
		return RT_NOFID;
	}
	e = &rt.ftab[fid];
	e->addr = f->addr;
	e->module = (uint32_t)rt.mods[f->mod].shm_idx;
	/* release: addr and module are visible to whoever sees VALID */
	__atomic_store_n(&e->flags, FT_SFUNC_VALID | (f->site ? FT_SFUNC_PATCHED : 0),
			 __ATOMIC_RELEASE);
	if (!__atomic_compare_exchange_n(&f->fid, &want, fid, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_ACQUIRE))
		return want;
	return fid;
}

/* fid of the function containing addr (a return address), or RT_NOFID. */
uint32_t rt_addr_fid(uint64_t addr)
{
	struct rt_module *m = rt_module_of(addr);
	struct rt_func *f;

	if (!m || m->loaded <= 0)
		return RT_NOFID;
	f = func_in(m, addr - 1);
	return f ? rt_func_fid(f) : RT_NOFID;
}
