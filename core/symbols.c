// SPDX-License-Identifier: GPL-2.0
/*
 * Symbolisation through libelf, kallsyms parsing, and the SYMTAB payload
 * codec.  See symbols.h for the module-relative offset convention.
 */
#include "core/demangle.h"
#include "core/symbols.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <libiberty/demangle.h>

void ft_symtab_free(struct ft_symtab *st)
{
	if (!st)
		return;
	for (size_t i = 0; st->demangled && i < st->nr; i++)
		if (st->demangled[i] != st->syms[i].name)
			free(st->demangled[i]);
	free(st->demangled);
	free(st->syms);
	free(st->strings);
	free(st);
}

static int sym_cmp(const void *a, const void *b)
{
	const struct ft_sym *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	/* prefer the sized symbol first, then by name for determinism */
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	return strcmp(x->name, y->name);
}

/* Sort and drop exact duplicates (same addr and name, e.g. aliases twice). */
static void symtab_sort(struct ft_symtab *st)
{
	size_t j = 0;

	if (st->nr > 1)
		qsort(st->syms, st->nr, sizeof(*st->syms), sym_cmp);
	for (size_t i = 0; i < st->nr; i++) {
		if (j && st->syms[j - 1].addr == st->syms[i].addr)
			continue; /* keep one name per address */
		st->syms[j++] = st->syms[i];
	}
	st->nr = j;
}

/*
 * Builder: collects (addr, size, name) with names copied into one string
 * table; pointers are fixed up at the end (the table may move).
 */
struct builder {
	struct ft_symtab *st;
	size_t cap, scap;
	size_t *name_off;
};

static int b_add(struct builder *b, uint64_t addr, uint32_t size, const char *name, size_t nlen)
{
	struct ft_symtab *st = b->st;

	if (st->nr == b->cap) {
		size_t ncap = b->cap ? b->cap * 2 : 256;
		struct ft_sym *n = realloc(st->syms, ncap * sizeof(*n));
		size_t *no = realloc(b->name_off, ncap * sizeof(*no));

		if (n)
			st->syms = n;
		if (no)
			b->name_off = no;
		if (!n || !no)
			return -1;
		b->cap = ncap;
	}
	if (FT_GROW(st->strings, b->scap, st->strings_len + nlen + 1, 4096))
		return -1;
	memcpy(st->strings + st->strings_len, name, nlen);
	st->strings[st->strings_len + nlen] = 0;
	b->name_off[st->nr] = st->strings_len;
	st->syms[st->nr].addr = addr;
	st->syms[st->nr].size = size;
	st->nr++;
	st->strings_len += nlen + 1;
	return 0;
}

static struct ft_symtab *b_finish(struct builder *b)
{
	for (size_t i = 0; i < b->st->nr; i++)
		b->st->syms[i].name = b->st->strings + b->name_off[i];
	free(b->name_off);
	symtab_sort(b->st);
	return b->st;
}

static int b_init(struct builder *b)
{
	memset(b, 0, sizeof(*b));
	b->st = calloc(1, sizeof(*b->st));
	return b->st ? 0 : -1;
}

static void b_abort(struct builder *b)
{
	free(b->name_off);
	ft_symtab_free(b->st);
}

/* Hex of the NT_GNU_BUILD_ID note of an open ELF, into hex ("" if none). */
static void elf_build_id(Elf *e, char *hex, size_t len)
{
	Elf_Scn *scn = NULL;

	if (len)
		hex[0] = 0;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;
		GElf_Nhdr nh;
		size_t off = 0, noff, doff;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_NOTE)
			continue;
		d = elf_getdata(scn, NULL);
		if (!d)
			continue;
		while ((off = gelf_getnote(d, off, &nh, &noff, &doff)) > 0) {
			const unsigned char *desc = (const unsigned char *)d->d_buf + doff;

			if (nh.n_type != NT_GNU_BUILD_ID || nh.n_namesz != 4 ||
			    memcmp((const char *)d->d_buf + noff, "GNU", 4))
				continue;
			for (size_t i = 0; i < nh.n_descsz && 2 * i + 3 <= len; i++)
				snprintf(hex + 2 * i, 3, "%02x", desc[i]);
			return;
		}
	}
}

Elf *ft_elf_open(const char *path, int *fdp, char *err, size_t errlen)
{
	struct stat st;
	Elf *e;
	int fd;

	if (elf_version(EV_CURRENT) == EV_NONE) {
		ft_seterr(err, errlen, "libelf: %s", elf_errmsg(-1));
		return NULL;
	}
	/*
	 * Paths come from trace files, which may be hostile: never block on a
	 * FIFO or read a device; only regular files are ELF candidates.
	 */
	fd = ft_open_regular(path, &st, err, errlen);
	if (fd < 0)
		return NULL;
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e || elf_kind(e) != ELF_K_ELF) {
		ft_seterr(err, errlen, "%s: not an ELF file", path);
		if (e)
			elf_end(e);
		close(fd);
		return NULL;
	}
	*fdp = fd;
	return e;
}

int ft_elf_build_id(const char *path, char *hex, size_t len)
{
	int fd;
	Elf *e = ft_elf_open(path, &fd, NULL, 0);

	if (!e)
		return -1;
	elf_build_id(e, hex, len);
	elf_end(e);
	close(fd);
	return len && hex[0] ? 0 : -1;
}

/* Read function symbols of one symbol table section. */
static int read_syms(Elf *e, Elf_Scn *scn, const GElf_Shdr *sh, uint64_t vbase, struct builder *b)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	size_t n;

	if (!d || !sh->sh_entsize)
		return 0;
	n = sh->sh_size / sh->sh_entsize;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym sym;
		const char *name;

		if (!gelf_getsym(d, (int)i, &sym))
			continue;
		if (GELF_ST_TYPE(sym.st_info) != STT_FUNC &&
		    GELF_ST_TYPE(sym.st_info) != STT_GNU_IFUNC)
			continue;
		if (sym.st_shndx == SHN_UNDEF || !sym.st_value)
			continue;
		name = elf_strptr(e, sh->sh_link, sym.st_name);
		if (!name || !*name)
			continue;
		if (b_add(b, sym.st_value - vbase,
			  sym.st_size > UINT32_MAX ? UINT32_MAX : (uint32_t)sym.st_size, name,
			  strlen(name)) < 0)
			return -1;
	}
	return 0;
}

/*
 * The imports called through the PLT (JUMP_SLOT relocations of
 * .rela.plt): one symbol per import, named after it, at its GOT slot,
 * 8 bytes long.  The runtime hooks library calls by rewriting those
 * slots (runtime/plt.c) and gives each hooked import the address of its
 * slot, so the importing module's table names the call "malloc" as the
 * program wrote it, not one of the library's aliases (__libc_malloc).
 */
static int read_plt_imports(Elf *e, uint64_t vbase, struct builder *b)
{
	Elf_Scn *scn = NULL;
	GElf_Shdr sh, dsh;
	size_t shstrndx;

	if (elf_getshdrstrndx(e, &shstrndx))
		return 0;
	while ((scn = elf_nextscn(e, scn))) {
		const char *sname;
		Elf_Data *d, *dd;
		Elf_Scn *dyn;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		sname = elf_strptr(e, shstrndx, sh.sh_name);
		if (!sname || strcmp(sname, ".rela.plt"))
			continue;
		dyn = elf_getscn(e, sh.sh_link);
		if (!dyn || !gelf_getshdr(dyn, &dsh) || dsh.sh_type != SHT_DYNSYM)
			continue;
		d = elf_getdata(scn, NULL);
		dd = elf_getdata(dyn, NULL);
		if (!d || !dd)
			continue;
		for (size_t i = 0; i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Sym sym;
			const char *name;

			if (!gelf_getrela(d, (int)i, &r) ||
			    GELF_R_TYPE(r.r_info) != R_X86_64_JUMP_SLOT ||
			    !gelf_getsym(dd, (int)GELF_R_SYM(r.r_info), &sym))
				continue;
			name = elf_strptr(e, dsh.sh_link, sym.st_name);
			if (!name || !*name || r.r_offset < vbase)
				continue;
			if (b_add(b, r.r_offset - vbase, 8, name, strlen(name)) < 0)
				return -1;
		}
	}
	return 0;
}

struct ft_symtab *ft_symtab_from_elf(const char *path, char *build_id, size_t bidlen, char *err,
				     size_t errlen)
{
	Elf_Scn *scn = NULL, *symtab = NULL, *dynsym = NULL;
	GElf_Shdr sh_symtab, sh_dynsym, sh;
	uint64_t vbase = 0;
	struct builder b;
	size_t nph = 0;
	int fd, ret = 0;
	Elf *e;

	e = ft_elf_open(path, &fd, err, errlen);
	if (!e)
		return NULL;
	if (build_id)
		elf_build_id(e, build_id, bidlen);
	/* The module base: p_vaddr - p_offset of the first PT_LOAD. */
	if (elf_getphdrnum(e, &nph) == 0) {
		for (size_t i = 0; i < nph; i++) {
			GElf_Phdr ph;

			if (gelf_getphdr(e, (int)i, &ph) && ph.p_type == PT_LOAD) {
				vbase = ph.p_vaddr - ph.p_offset;
				break;
			}
		}
	}
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		if (sh.sh_type == SHT_SYMTAB) {
			symtab = scn;
			sh_symtab = sh;
		} else if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			sh_dynsym = sh;
		}
	}
	if (b_init(&b) < 0) {
		ft_seterr(err, errlen, "out of memory");
		goto out;
	}
	if (symtab)
		ret = read_syms(e, symtab, &sh_symtab, vbase, &b);
	if (!ret && (!symtab || !b.st->nr) && dynsym)
		ret = read_syms(e, dynsym, &sh_dynsym, vbase, &b);
	if (!ret)
		ret = read_plt_imports(e, vbase, &b);
	if (ret < 0) {
		ft_seterr(err, errlen, "out of memory");
		b_abort(&b);
		b.st = NULL;
		goto out;
	}
	elf_end(e);
	close(fd);
	return b_finish(&b);
out:
	elf_end(e);
	close(fd);
	return NULL;
}

static void put32(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#define SYMREC 16u /* u64 offset, u32 size, u32 name_off */

void *ft_symtab_encode(const struct ft_symtab *st, size_t *len)
{
	size_t strl = 0, n = st->nr, pos;
	unsigned char *buf;

	for (size_t i = 0; i < n; i++)
		strl += strlen(st->syms[i].name) + 1;
	*len = 4 + n * SYMREC + strl;
	buf = malloc(*len);
	if (!buf)
		return NULL;
	put32(buf, (uint32_t)n);
	pos = 0;
	for (size_t i = 0; i < n; i++) {
		unsigned char *r = buf + 4 + i * SYMREC;
		size_t l = strlen(st->syms[i].name) + 1;

		put32(r, (uint32_t)st->syms[i].addr);
		put32(r + 4, (uint32_t)(st->syms[i].addr >> 32));
		put32(r + 8, st->syms[i].size);
		put32(r + 12, (uint32_t)pos);
		memcpy(buf + 4 + n * SYMREC + pos, st->syms[i].name, l);
		pos += l;
	}
	return buf;
}

struct ft_symtab *ft_symtab_decode(const void *buf, size_t len, char *err, size_t errlen)
{
	const unsigned char *p = buf;
	struct ft_symtab *st;
	size_t n, strl;

	if (len < 4) {
		ft_seterr(err, errlen, "SYMTAB payload too short (%zu bytes)", len);
		return NULL;
	}
	n = get32(p);
	if (n > (len - 4) / SYMREC) {
		ft_seterr(err, errlen, "SYMTAB claims %zu symbols in %zu bytes", n, len);
		return NULL;
	}
	strl = len - 4 - n * SYMREC;
	st = calloc(1, sizeof(*st));
	if (!st)
		goto oom;
	st->strings = malloc(strl + 1);
	st->syms = malloc((n ? n : 1) * sizeof(*st->syms));
	if (!st->strings || !st->syms)
		goto oom;
	memcpy(st->strings, p + 4 + n * SYMREC, strl);
	st->strings[strl] = 0;
	st->strings_len = strl;
	for (size_t i = 0; i < n; i++) {
		const unsigned char *r = p + 4 + i * SYMREC;
		uint32_t noff = get32(r + 12);

		if (noff >= strl || !memchr(st->strings + noff, 0, strl - noff)) {
			ft_seterr(err, errlen, "SYMTAB symbol %zu has a bad name offset %u", i,
				  noff);
			ft_symtab_free(st);
			return NULL;
		}
		st->syms[i].addr = (uint64_t)get32(r) | (uint64_t)get32(r + 4) << 32;
		st->syms[i].size = get32(r + 8);
		st->syms[i].name = st->strings + noff;
	}
	st->nr = n;
	symtab_sort(st);
	return st;
oom:
	ft_seterr(err, errlen, "out of memory decoding SYMTAB");
	ft_symtab_free(st);
	return NULL;
}

int ft_kallsyms_line(const char *line, size_t len, struct ft_kallsyms_ent *e)
{
	const char *p = line, *end = line + len, *name;
	uint64_t addr = 0;
	int digits = 0;

	/* by hand rather than sscanf: ~200k lines, and the line is not a C string */
	for (; p < end && digits <= 16; p++, digits++) {
		int v = *p >= '0' && *p <= '9'	 ? *p - '0'
			: *p >= 'a' && *p <= 'f' ? *p - 'a' + 10
			: *p >= 'A' && *p <= 'F' ? *p - 'A' + 10
						 : -1;
		if (v < 0)
			break;
		addr = addr << 4 | (uint64_t)v;
	}
	if (!digits || digits > 16 || end - p < 4 || p[0] != ' ' || p[2] != ' ' || !addr)
		return 0;
	if (p[1] != 't' && p[1] != 'T' && p[1] != 'w' && p[1] != 'W')
		return 0;
	e->addr = addr;
	e->type = p[1];
	name = p + 3;
	for (p = name; p < end && *p != ' ' && *p != '\t' && *p != '\n'; p++)
		;
	if (p == name)
		return 0;
	e->name = name;
	e->name_len = (size_t)(p - name);
	return 1;
}

struct ft_symtab *ft_kallsyms_parse(const char *text, size_t len, char *err, size_t errlen)
{
	const char *p = text, *end = text + len;
	struct builder b;

	if (b_init(&b) < 0) {
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	while (p < end) {
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		const char *le = nl ? nl : end;
		struct ft_kallsyms_ent e;

		if (ft_kallsyms_line(p, (size_t)(le - p), &e) &&
		    b_add(&b, e.addr, 0, e.name, e.name_len) < 0) {
			ft_seterr(err, errlen, "out of memory");
			b_abort(&b);
			return NULL;
		}
		p = le + 1;
	}
	b_finish(&b);
	/* sizes: distance to the next symbol (kallsyms has none of its own) */
	for (size_t i = 0; i + 1 < b.st->nr; i++) {
		uint64_t d = b.st->syms[i + 1].addr - b.st->syms[i].addr;

		b.st->syms[i].size = d > UINT32_MAX ? 0 : (uint32_t)d;
	}
	return b.st;
}

const struct ft_sym *ft_symtab_lookup(const struct ft_symtab *st, uint64_t addr)
{
	size_t lo = 0, hi;
	const struct ft_sym *s;

	if (!st || !st->nr)
		return NULL;
	hi = st->nr;
	/* last symbol with s->addr <= addr */
	while (hi - lo > 1) {
		size_t mid = lo + (hi - lo) / 2;

		if (st->syms[mid].addr <= addr)
			lo = mid;
		else
			hi = mid;
	}
	s = &st->syms[lo];
	if (s->addr > addr)
		return NULL;
	if (s->size && addr - s->addr >= s->size) {
		/* may sit in an earlier, larger symbol (nested aliases): give up */
		return NULL;
	}
	return s;
}

struct module {
	uint64_t start, end, base;
	uint32_t pid;
	char *path;
	struct ft_symtab *st;
};

struct ft_symbols {
	struct module *mods;
	size_t nr, cap;
	struct ft_symtab *kernel;
};

struct ft_symbols *ft_symbols_new(void)
{
	return calloc(1, sizeof(struct ft_symbols));
}

void ft_symbols_free(struct ft_symbols *s)
{
	if (!s)
		return;
	for (size_t i = 0; i < s->nr; i++) {
		free(s->mods[i].path);
		ft_symtab_free(s->mods[i].st);
	}
	free(s->mods);
	ft_symtab_free(s->kernel);
	free(s);
}

int ft_symbols_add_module_pid(struct ft_symbols *s, uint32_t pid, uint64_t start, uint64_t end,
			      uint64_t base, const char *path, struct ft_symtab *st)
{
	if (FT_GROW(s->mods, s->cap, s->nr + 1, 16)) {
		ft_symtab_free(st);
		return -1;
	}
	s->mods[s->nr].start = start;
	s->mods[s->nr].end = end;
	s->mods[s->nr].base = base;
	s->mods[s->nr].pid = pid;
	s->mods[s->nr].path = path ? strdup(path) : NULL;
	s->mods[s->nr].st = st;
	s->nr++;
	return 0;
}

int ft_symbols_add_module(struct ft_symbols *s, uint64_t start, uint64_t end, uint64_t base,
			  const char *path, struct ft_symtab *st)
{
	return ft_symbols_add_module_pid(s, 0, start, end, base, path, st);
}

void ft_symbols_set_kernel(struct ft_symbols *s, struct ft_symtab *st)
{
	ft_symtab_free(s->kernel);
	s->kernel = st;
}

/*
 * The module holding ip: module `only` when it holds it (SIZE_MAX: none
 * preferred), else one of process pid (latest first), else any.
 */
static const struct module *find_module(const struct ft_symbols *s, uint32_t pid, size_t only,
					uint64_t ip)
{
	if (!s)
		return NULL;
	if (only < s->nr && ip >= s->mods[only].start && ip < s->mods[only].end)
		return &s->mods[only];
	if (pid)
		for (size_t i = s->nr; i-- > 0;)
			if (s->mods[i].pid == pid && ip >= s->mods[i].start && ip < s->mods[i].end)
				return &s->mods[i];
	for (size_t i = 0; i < s->nr; i++)
		if (ip >= s->mods[i].start && ip < s->mods[i].end)
			return &s->mods[i];
	return NULL;
}

static const struct ft_sym *find_sym(const struct ft_symbols *s, uint32_t pid, size_t only,
				     uint64_t ip, uint64_t *sym_start, const struct module **mod)
{
	const struct module *m = find_module(s, pid, only, ip);

	*mod = m;
	if (m) {
		const struct ft_sym *sym = ft_symtab_lookup(m->st, ip - m->base);

		if (sym) {
			*sym_start = m->base + sym->addr;
			return sym;
		}
		return NULL;
	}
	if (s && s->kernel) {
		const struct ft_sym *sym = ft_symtab_lookup(s->kernel, ip);

		/* the last kallsyms symbol has no size: accept only within 64K */
		if (sym && (sym->size || ip - sym->addr < 65536)) {
			*sym_start = sym->addr;
			return sym;
		}
	}
	return NULL;
}

const struct ft_sym *ft_symbols_find(const struct ft_symbols *s, uint64_t ip, uint64_t *sym_start,
				     const char **path)
{
	const struct module *m;
	const struct ft_sym *sym = find_sym(s, 0, SIZE_MAX, ip, sym_start, &m);

	*path = m ? m->path : NULL;
	return sym;
}

static enum ft_demangle demangle_mode = FT_DEMANGLE_SIMPLE;

void ft_symbols_set_demangle(enum ft_demangle mode)
{
	demangle_mode = mode;
}

/*
 * The name to print for sym of table st: demangled when it is a C++
 * (Itanium ABI, "_Z") name and demangling is on, by libiberty's demangler
 * (the one of binutils and gdb): in the simple form of core/demangle.h by
 * default, as uftrace's --demangle=simple, so the function_graph layout's
 * "name() {" reads as for C and the names are those the runtime's filters
 * match; in full under --demangle=full.  Each name is demangled once, on first use, into
 * st->demangled (a trace names few of a library's symbols); one that does
 * not demangle prints as stored.
 */
static const char *sym_name(struct ft_symtab *st, const struct ft_sym *sym)
{
	size_t i = (size_t)(sym - st->syms);
	char *d;

	if (demangle_mode == FT_DEMANGLE_NO || strncmp(sym->name, "_Z", 2) || i >= st->nr)
		return sym->name;
	if (!st->demangled) {
		st->demangled = calloc(st->nr, sizeof(*st->demangled));
		if (!st->demangled)
			return sym->name;
	}
	if (!st->demangled[i]) {
		char simple[FT_DEMANGLE_MAX];

		if (demangle_mode == FT_DEMANGLE_FULL)
			d = cplus_demangle(sym->name, DMGL_PARAMS | DMGL_ANSI);
		else
			d = ft_demangle_simple(sym->name, simple, sizeof(simple)) ? NULL
										  : strdup(simple);
		if (!d)
			d = (char *)sym->name; /* not owned: ft_symtab_free() skips it */
		st->demangled[i] = d;
	}
	return st->demangled[i];
}

/* ftrace's sym-userobj shape: the object and the offset in it, else the address */
static int print_userobj(const struct module *m, uint64_t ip, char *buf, size_t len)
{
	if (m && m->path) {
		snprintf(buf, len, "%s[+0x%llx]", m->path, (unsigned long long)(ip - m->base));
		return 0;
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)ip);
	return -1;
}

static int resolve(const struct ft_symbols *s, uint32_t pid, size_t only, uint64_t ip,
		   int with_offset, char *buf, size_t len)
{
	const struct module *m;
	uint64_t start = 0;
	const struct ft_sym *sym = find_sym(s, pid, only, ip, &start, &m);
	const char *name;

	if (!sym) {
		print_userobj(m, ip, buf, len);
		return -1;
	}
	name = sym_name(m ? m->st : s->kernel, sym);
	if (with_offset)
		snprintf(buf, len, "%s+0x%llx/0x%x", name, (unsigned long long)(ip - start),
			 sym->size);
	else
		snprintf(buf, len, "%s", name);
	return 0;
}

int ft_symbols_resolve_pid(const struct ft_symbols *s, uint32_t pid, uint64_t ip, int with_offset,
			   char *buf, size_t len)
{
	return resolve(s, pid, SIZE_MAX, ip, with_offset, buf, len);
}

int ft_symbols_resolve_module(const struct ft_symbols *s, size_t index, uint64_t ip,
			      int with_offset, char *buf, size_t len)
{
	return resolve(s, 0, index, ip, with_offset, buf, len);
}

int ft_symbols_userobj(const struct ft_symbols *s, uint32_t pid, uint64_t ip, char *buf, size_t len)
{
	return print_userobj(find_module(s, pid, SIZE_MAX, ip), ip, buf, len);
}

const char *ft_symbols_module_path(const struct ft_symbols *s, size_t index)
{
	return s && index < s->nr ? s->mods[index].path : NULL;
}

int ft_symbols_resolve(const struct ft_symbols *s, uint64_t ip, int with_offset, char *buf,
		       size_t len)
{
	return resolve(s, 0, SIZE_MAX, ip, with_offset, buf, len);
}

int ft_symbols_resolve_fn(uint64_t ip, char *buf, size_t len, void *arg)
{
	return ft_symbols_resolve(arg, ip, 1, buf, len);
}
