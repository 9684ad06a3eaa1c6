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
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/glob.h"
#include "runtime/rt.h"

/*
 * Objects come and go (dlopen/dlclose), and the next one may be mapped
 * exactly where a closed one was.  A module is identified by its lowest
 * address, its load bias AND the loader's name for it (dl_key); one that a
 * scan no longer finds is retired (rt_module_retire): its addresses leave
 * the lookup hash, its stub page is unmapped, it is never matched, filtered
 * or patched again, and whatever is loaded there next is a new module with
 * a new session index (so the reader, which resolves a fid through the
 * module index of its FUNCS entry, names it right).  A retired module's
 * funcs and file mapping are kept (a racing hook may still hold one of its
 * rt_func pointers) until its slot is needed again.
 *
 * Module memory guard.  The control path reads (site tables, nop bytes)
 * and writes (patching) the text of loaded objects; dlclose() unmaps it,
 * possibly in another thread at the same moment.  The two are kept apart
 * by two counters, without a lock a hook could wait on (dlclose runs the
 * library's destructors, which are traced):
 *   dlclose:   unmapping++; wait until !touching; real dlclose;
 *              unmap_gen++; unmapping--
 *   control:   touching = 1; if (unmapping) { touching = 0; pinned only }
 *              else { if (unmap_gen moved) rescan (retire the vanished);
 *                     touch; touching = 0 }
 * All four accesses are seq_cst, so of "unmapping++ then read touching" and
 * "touching = 1 then read unmapping" at least one sees the other: either
 * dlclose waits for the toucher, or the toucher keeps to the objects that
 * came with the program (pinned: the loader never unmaps them) and defers
 * the rest.  A toucher that misses unmapping entirely started after
 * unmapping-- and so sees the new unmap_gen, and rescans before touching
 * anything.  Deferred work is redone by a dlclose wrapper once no unmapping
 * is in flight (rt_modules_dlclose_end); under constant dlopen/dlclose in
 * several threads, patching the dlopen()ed objects may so lag behind a
 * filter change.  The control path runs under rt.lock, so the guard's own
 * state (depth, all, deferred, synced_gen) is plain.  dlclose()s the
 * program makes without our wrapper (glibc's internal ones) are not
 * fenced; the rescan in the next guard, the dlopen wrapper and the site
 * check in rt_patch_site (it never writes over bytes it does not expect)
 * limit the damage to lost events.
 */
static int touching;	    /* the lock holder is inside the guard */
static int unmapping;	    /* dlclose()s in flight */
static uint32_t unmap_gen;  /* dlclose()s finished */
static uint32_t synced_gen; /* unmap_gen the module list was last checked at */
static int guard_depth;	    /* nesting of rt_modmem_enter (lock holder only) */
static int guard_all;	    /* the outermost enter may touch every module */
static int deferred;	    /* module-memory work skipped during a dlclose */
static uint32_t scan_gen;   /* bumps per rt_modules_scan */
static uint64_t self_base;  /* libftrail.so's lowest address (dladdr, first scan) */

static unsigned long long last_subs; /* the loader's unload count at the last scan */

/* dl_iterate_phdr callback state */
struct scan_ctx {
	int is_dlopen;
	int main_seen;
	unsigned long long subs; /* the loader's unload count now */
	int republish;		 /* a new session (attach.c): known modules enter its table */
};

/* FNV-1a of the loader's name for an object ("" for the main program). */
static uint64_t name_key(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; s && *s; s++)
		h = (h ^ (uint8_t)*s) * 0x100000001b3ull;
	return h;
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

/*
 * Publish one module in the session table (see session.h ordering) and
 * return its index, or -1 (no session, or the table is full: said once in
 * a session message; its functions then get no fid, their calls are
 * counted as dropped rather than given a wrong name).  A load identical
 * to one already published by this process image -- same file, build id,
 * place and offset, i.e. the same library dlopen()ed again where it was
 * before -- gets that entry back: the names it resolves to are the same,
 * and a program that opens and closes a plugin in a loop does not fill the
 * table.  Any other object, even at a closed one's addresses, gets a new
 * index.
 */
static int publish_module(const struct rt_module *m, struct dl_phdr_info *info, uint64_t offset,
			  int flags)
{
	static int full_said;
	struct ft_session_module *sm, *all;
	uint8_t bid[sizeof(sm->build_id)];
	uint32_t idx, bid_len, n;

	if (!rt.sess)
		return -1;
	all = ft_session_modules(rt.sess);
	bid_len = info ? find_build_id(info, bid, sizeof(bid)) : 0;
	n = __atomic_load_n(&rt.ctl->next_module, __ATOMIC_RELAXED);
	if (n > rt.sess->max_modules)
		n = rt.sess->max_modules;
	for (idx = 0; idx < n; idx++) {
		sm = &all[idx];
		/* acquire: pairs with the release of VALID below */
		if (!(__atomic_load_n(&sm->flags, __ATOMIC_ACQUIRE) & FT_SMOD_VALID) ||
		    sm->pid != (uint32_t)rt.pid || sm->space != rt.space || sm->start != m->start ||
		    sm->end != m->end || sm->offset != offset || sm->bias != m->bias ||
		    sm->build_id_len != bid_len || memcmp(sm->build_id, bid, bid_len) ||
		    strncmp(sm->path, m->path, sizeof(sm->path)))
			continue;
		return (int)idx;
	}
	idx = __atomic_fetch_add(&rt.ctl->next_module, 1, __ATOMIC_RELAXED);
	if (idx >= rt.sess->max_modules) {
		if (!full_said++) {
			char line[FT_SESSION_PATH_MAX + 96];

			snprintf(line, sizeof(line),
				 "module table full (%u objects): calls into %.400s and later "
				 "objects are counted as dropped",
				 rt.sess->max_modules, m->path);
			ft_session_msg(rt.sess, line);
		}
		return -1;
	}
	sm = &all[idx];
	sm->start = m->start;
	sm->end = m->end;
	sm->offset = offset;
	sm->bias = m->bias;
	sm->pid = (uint32_t)rt.pid;
	sm->space = rt.space;
	sm->build_id_len = bid_len;
	memcpy(sm->build_id, bid, bid_len);
	snprintf(sm->path, sizeof(sm->path), "%s", m->path);
	/* release: the fields above are visible to whoever sees VALID */
	__atomic_store_n(&sm->flags, (uint32_t)flags | FT_SMOD_VALID, __ATOMIC_RELEASE);
	return (int)idx;
}

/*
 * A slot for a new module: the next free one, else (table full) the oldest
 * retired one, whose file mapping is released first.  Its funcs are not:
 * a shadow-stack frame left by a longjmp out of the closed library may
 * still point to one (hooks.c compares frame->func->addr), so they stay
 * mapped, a leak bounded by what the program loaded.  NULL when none.
 */
static struct rt_module *alloc_slot(void)
{
	struct rt_module *m;

	if (rt.nr_mods < RT_MAX_MODS)
		return &rt.mods[rt.nr_mods]; /* counted by the caller once filled */
	for (int i = 1; i < RT_MAX_MODS; i++) {
		m = &rt.mods[i];
		if (!m->gone)
			continue;
		if (m->map)
			munmap(m->map, m->map_len);
		return m;
	}
	return NULL;
}

/*
 * An object dlclose() took away: forget its addresses (lookup hash, stub)
 * and never touch it again.  Its session entry stays: it describes the
 * past.  Caller holds rt.lock.
 */
static void rt_module_retire(struct rt_module *m)
{
	if (m->gone)
		return;
	rt_unwind_forget(); /* the unwinder's rules for its code too */
	rt_hash_forget(m->start, m->end);
	rt_plt_forget(m);
	rt_patch_forget((int)(m - rt.mods));
	m->gone = 1;
	m->sites_pending = 0;
	m->start = m->end = 0;
}

/*
 * A retired module whose very file is mapped again at the same place
 * (publish_module gave back its session index): it is live again with its
 * symbols and fids (fid -> address and module index are the same, so the
 * names are too, and a plugin opened in a loop does not use up fids).  The
 * new mapping holds the nops as compiled: nothing is patched, the sites
 * are read again (rt_modules_load_new), the flags recomputed.  Caller
 * holds rt.lock.
 */
static void revive(struct rt_module *m, uint64_t lo, uint64_t hi)
{
	rt_plt_forget(m); /* the new mapping's GOT is unhooked: hooked again with the sites */
	for (uint32_t i = 0; i < m->nr_funcs; i++) {
		struct rt_func *f = &m->funcs[i];

		f->site = 0;
		f->site_kind = RT_SITE_NONE;
		f->site_len = 0;
		f->patched = 0;
		f->epoch = RT_EPOCH_NONE;
	}
	m->nr_sites = 0;
	m->sites_pending = m->loaded == RT_MOD_LOADED;
	m->seen = (int)scan_gen;
	m->end = hi;
	m->start = lo;
	/* release: the reset above before the module is found again */
	__atomic_store_n(&m->gone, 0, __ATOMIC_RELEASE);
}

/*
 * m's object was found where m is, under the same name, but something was
 * unloaded since the last scan without our dlclose wrapper noticing (a
 * glibc-internal dlclose, or a close and a reopen in other threads between
 * two scans): is the object there now another one?  1 when its extent
 * (hi) or build id differs from m's (a rebuilt file): a new module then.
 * Otherwise it is the same file, perhaps mapped afresh: if a site holds
 * the compiled bytes where m believes it patched or normalised it (patch.c),
 * it was, and m is revived: its sites are read and prepared again (by the
 * dlopen wrapper of whoever mapped it, before the program may run it).  Runs
 * in the dl_iterate_phdr callback, where the object cannot be unmapped.
 * Caller holds rt.lock.
 */
static int reloaded(struct rt_module *m, struct dl_phdr_info *info, uint64_t hi)
{
	static const uint8_t nop5[5] = { 0x0f, 0x1f, 0x44, 0x00, 0x00 };
	uint8_t bid[32];
	uint32_t n = find_build_id(info, bid, sizeof(bid));

	if (hi != m->end)
		return 1; /* not even the same size (files without build ids) */
	if (m->shm_idx >= 0) {
		struct ft_session_module *sm = &ft_session_modules(rt.sess)[m->shm_idx];

		if (sm->build_id_len != n || memcmp(sm->build_id, bid, n))
			return 1;
	}
	for (uint32_t i = 0; i < m->nr_funcs; i++) {
		struct rt_func *f = &m->funcs[i];
		const uint8_t *b = (const uint8_t *)f->site;

		if (f->site_kind == RT_SITE_NONE)
			continue;
		/* a patched site holding its nop, or a normalised one holding
		 * the compiler's 1-byte nops: the file was mapped afresh */
		if ((f->patched && f->site_kind == RT_SITE_NOP5 && !memcmp(b, nop5, 4)) ||
		    (f->site_kind == RT_SITE_NOP5 && b[0] == 0x90) ||
		    (f->site_kind == RT_SITE_NOPS && b[0] == 0x90)) {
			revive(m, m->start, m->end);
			break;
		}
	}
	return 0;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_ctx *sc = arg;
	uint64_t lo = UINT64_MAX, hi = 0, off = 0, key;
	static struct rt_module tmp; /* rt.lock */
	struct rt_module *m;
	char path[FT_SESSION_PATH_MAX];
	int flags = 0, idx;

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
	if (!info->dlpi_name || !info->dlpi_name[0]) {
		/* the first object is the main program; later nameless ones
		 * are the vdso on some systems: skipped */
		if (sc->main_seen++)
			return 0;
	} else if (strstr(info->dlpi_name, "linux-vdso") || strstr(info->dlpi_name, "linux-gate")) {
		return 0;
	}
	key = name_key(info->dlpi_name);
	if (size >= offsetof(struct dl_phdr_info, dlpi_subs) + sizeof(info->dlpi_subs))
		sc->subs = info->dlpi_subs;
	for (int i = 0; i < rt.nr_mods; i++) {
		m = &rt.mods[i];
		if (m->gone || m->start != lo || m->bias != info->dlpi_addr || m->dl_key != key)
			continue;
		/* objects were unloaded since the last scan: is it the same? */
		if (sc->subs != last_subs && reloaded(m, info, hi))
			continue;	 /* another object: added below, m retired */
		m->seen = (int)scan_gen; /* known */
		if (sc->republish)
			m->shm_idx = publish_module(m, info, off,
						    (m->pinned ? 0 : FT_SMOD_DLOPEN) |
							    (!info->dlpi_name || !info->dlpi_name[0]
								     ? FT_SMOD_MAIN
								     : 0));
		return 0;
	}
	if (!info->dlpi_name || !info->dlpi_name[0]) {
		ssize_t n = readlink("/proc/self/exe", path, sizeof(path) - 1);

		if (n <= 0)
			return 0;
		path[n] = '\0';
		flags |= FT_SMOD_MAIN;
	} else if (!realpath(info->dlpi_name, path)) {
		snprintf(path, sizeof(path), "%s", info->dlpi_name);
	}
	if (sc->is_dlopen)
		flags |= FT_SMOD_DLOPEN;
	memcpy(tmp.path, path, sizeof(tmp.path));
	tmp.start = lo;
	tmp.end = hi;
	tmp.bias = info->dlpi_addr;
	idx = publish_module(&tmp, info, off, flags);
	/* the same library back where it was: its old module comes back */
	for (int i = 0; idx >= 0 && i < rt.nr_mods; i++) {
		m = &rt.mods[i];
		if (m->gone && m->shm_idx == idx && m->bias == tmp.bias && m->dl_key == key) {
			revive(m, lo, hi);
			return 0;
		}
	}
	m = alloc_slot();
	if (!m)
		return 0;
	memset(m, 0, sizeof(*m));
	memcpy(m->path, path, sizeof(m->path));
	ft_mod_name(m->name, sizeof(m->name), m->path, strlen(m->path));
	m->start = lo;
	m->end = hi;
	m->bias = info->dlpi_addr;
	m->dl_key = key;
	m->seen = (int)scan_gen;
	m->pinned = !sc->is_dlopen;
	m->is_self = self_base && lo == self_base;
	m->shm_idx = idx;
	if (m == &rt.mods[rt.nr_mods])
		/* release: the slot is filled before lock-free readers
		 * (rt_module_of from the hooks) may look at it */
		__atomic_store_n(&rt.nr_mods, rt.nr_mods + 1, __ATOMIC_RELEASE);
	return 0;
}

/*
 * Bring the module list up to date with the loader's: register every
 * object not yet known (at init, and again after dlopen), retire the ones
 * that went away (dlclose).  Caller holds rt.lock.  The first call (from
 * the constructor, single-threaded) also finds libftrail.so itself --
 * dladdr takes the loader's lock, so it is never called later, when
 * another thread may hold that lock and wait for rt.lock.
 */
void rt_modules_scan(int is_dlopen)
{
	struct scan_ctx sc = { is_dlopen, 0 };
	Dl_info self;

	if (!self_base && dladdr((void *)ft_rt_return, &self))
		self_base = (uint64_t)self.dli_fbase;
	scan_gen++;
	sc.subs = last_subs;
	dl_iterate_phdr(scan_cb, &sc);
	last_subs = sc.subs;
	for (int i = 0; i < rt.nr_mods; i++) {
		struct rt_module *m = &rt.mods[i];

		if (!m->gone && m->seen != (int)scan_gen)
			rt_module_retire(m);
	}
}

/*
 * A new session replaces the old one (attach.c): every known module gets
 * an entry in its table, every function a new fid on first use, and the
 * filters are evaluated afresh.  Caller holds rt.lock; the program's other
 * threads are stopped (a racing hook could otherwise keep an old fid).
 */
void rt_modules_republish(void)
{
	struct scan_ctx sc = { 0, 0, 0, 1 };

	for (int i = 0; i < rt.nr_mods; i++) {
		struct rt_module *m = &rt.mods[i];

		m->shm_idx = -1;
		for (uint32_t k = 0; k < m->nr_funcs + m->nr_plt; k++) {
			struct rt_func *f = k < m->nr_funcs ? &m->funcs[k]
							    : &m->plt[k - m->nr_funcs];

			__atomic_store_n(&f->fid, RT_NOFID, __ATOMIC_RELAXED);
			__atomic_store_n(&f->epoch, UINT32_MAX, __ATOMIC_RELAXED);
		}
		if (m->wants && !m->gone)
			rt_module_wants_load(m); /* sets the session's hook kinds again */
	}
	scan_gen++;
	sc.subs = last_subs;
	dl_iterate_phdr(scan_cb, &sc);
	last_subs = sc.subs;
}

/*
 * Enter the module memory guard (see the top of this file).  Returns
 * RT_MODMEM_ALL: the caller may read and write the text of every module
 * that is not gone -- it must check m->gone AFTER this call, which may
 * retire modules -- or RT_MODMEM_PINNED: a dlclose is in flight, only
 * pinned modules may be touched (ask
 * rt_modmem_may, which records the rest as deferred).  Either way the
 * caller calls rt_modmem_exit().  Caller holds rt.lock.
 */
enum rt_modmem rt_modmem_enter(void)
{
	uint32_t g;

	if (guard_depth++)
		return guard_all ? RT_MODMEM_ALL : RT_MODMEM_PINNED;
	__atomic_store_n(&touching, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&unmapping, __ATOMIC_SEQ_CST)) {
		__atomic_store_n(&touching, 0, __ATOMIC_SEQ_CST);
		guard_all = 0;
		return RT_MODMEM_PINNED;
	}
	guard_all = 1;
	g = __atomic_load_n(&unmap_gen, __ATOMIC_SEQ_CST);
	if (g != synced_gen) {
		synced_gen = g;
		rt_modules_scan(1);
	}
	return RT_MODMEM_ALL;
}

/* May the guard holder (mem: rt_modmem_enter's answer) touch m now? */
int rt_modmem_may(const struct rt_module *m, enum rt_modmem mem)
{
	if (mem == RT_MODMEM_ALL || m->pinned || m->held)
		return 1;
	deferred = 1;
	return 0;
}

void rt_modmem_exit(void)
{
	if (--guard_depth == 0 && guard_all) {
		guard_all = 0;
		/* release (seq_cst): our reads and writes of module text are
		 * done before a waiting dlclose may unmap it */
		__atomic_store_n(&touching, 0, __ATOMIC_SEQ_CST);
	}
}

/* dlclose wrapper, before the real dlclose: fence off the control path. */
void rt_modules_dlclose_begin(void)
{
	__atomic_add_fetch(&unmapping, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&touching, __ATOMIC_SEQ_CST))
		sched_yield();
}

/* dlclose wrapper, after the real dlclose: let the control path back in. */
void rt_modules_dlclose_unmapped(void)
{
	/* unmap_gen moves before unmapping drops: see the top of this file */
	__atomic_add_fetch(&unmap_gen, 1, __ATOMIC_SEQ_CST);
	__atomic_sub_fetch(&unmapping, 1, __ATOMIC_SEQ_CST);
}

/*
 * Was module-memory work skipped during a dlclose (rt_modmem_may said no)?
 * Clears the mark: the caller redoes the work.  Caller holds rt.lock.
 */
int rt_modmem_take_deferred(void)
{
	int d = deferred;

	deferred = 0;
	return d;
}

/* fork child: only the forking thread exists; no dlclose, no toucher. */
void rt_modules_atfork_child(void)
{
	touching = 0;
	unmapping = 0;
	guard_depth = 0;
	guard_all = 0;
}

/* ---- ELF reading ---- */

static int sym_cmp(const void *a, const void *b)
{
	const struct rt_func *x = a, *y = b;

	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	return 0;
}

static const ElfW(Shdr) * find_section(const ElfW(Ehdr) * eh, const ElfW(Shdr) * sh,
				       const char *shstr, size_t shstr_len, const char *name)
{
	for (int i = 0; i < eh->e_shnum; i++)
		if (sh[i].sh_name < shstr_len && !strcmp(shstr + sh[i].sh_name, name))
			return &sh[i];
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
		f->site_kind = RT_SITE_NOP5;
		f->site_len = 5;
		f->site_b4 = b[4];
	} else if (b[0] == 0x90 && b[1] == 0x90 && b[2] == 0x90 && b[3] == 0x90 && b[4] == 0x90) {
		f->site = p;
		f->site_kind = RT_SITE_NOPS;
		f->site_len = 5;
	}
}

/*
 * Has the loader relocated the site table at [addr, addr+size) yet?  An
 * object being dlopen()ed in another thread is listed by the loader (and
 * found by a scan) before its relocations are applied: its table then
 * holds zeros (RELA), not addresses in m.  Read too early, it would give
 * no sites, and the object's nop runs would never be made patchable.  One
 * entry inside m is enough: entries of functions the linker discarded
 * (--gc-sections) stay outside for good.
 */
static int table_ready(const struct rt_module *m, uint64_t addr, uint64_t size)
{
	const uint64_t *v = (const uint64_t *)addr;

	for (uint64_t i = 0; i < size / 8; i++)
		if (v[i] >= m->start && v[i] < m->end)
			return 1;
	return size < 8;
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
			f = rt_func_in(m, s);
			if (!f)
				continue;
			if (((const uint8_t *)s)[0] == 0xe8 || ((const uint8_t *)s)[0] == 0xff)
				continue; /* a real call to mcount/__fentry__: already hooked */
			classify_site(f, s);
		}
		if (f->site_kind != RT_SITE_NONE)
			m->nr_sites++;
	}
}

/*
 * Read m's patch sites (__mcount_loc, __patchable_function_entries) from
 * its memory, where the loader relocated them, and the nop bytes at each.
 * Inside the module memory guard; when a dlclose is in flight the sites of
 * an unpinned module stay pending (rt_modules_load_new reads them later).  The section headers
 * come from m's file mapping, checked by rt_module_load.  Caller holds
 * rt.lock.
 */
/* A loaded (SHF_ALLOC) section that lies inside m's mapped range. */
static int in_module(const struct rt_module *m, const ElfW(Shdr) * sec)
{
	uint64_t a = sec->sh_addr + m->bias;

	return (sec->sh_flags & SHF_ALLOC) && sec->sh_addr && a >= m->start && a <= m->end &&
	       sec->sh_size <= m->end - a;
}

static void load_sites(struct rt_module *m)
{
	const ElfW(Ehdr) *eh = m->map;
	const ElfW(Shdr) * sh, *sec;
	const char *shstr;
	size_t shstr_len;

	if (!rt_modmem_may(m, rt_modmem_enter())) {
		m->sites_pending = 1;
		rt_modmem_exit();
		return;
	}
	m->sites_pending = 0;
	if (m->gone) { /* the guard's rescan found it closed */
		rt_modmem_exit();
		return;
	}
	sh = (const ElfW(Shdr) *)((const char *)m->map + eh->e_shoff);
	shstr = (const char *)m->map + sh[eh->e_shstrndx].sh_offset;
	shstr_len = sh[eh->e_shstrndx].sh_size;
	for (int k = 0; k < 2; k++) {
		sec = find_section(eh, sh, shstr, shstr_len,
				   k ? "__patchable_function_entries" : "__mcount_loc");
		if (sec && in_module(m, sec) &&
		    !table_ready(m, sec->sh_addr + m->bias, sec->sh_size)) {
			m->sites_pending = 1; /* its dlopen is not over: read by the opener */
			rt_modmem_exit();
			return;
		}
	}
	sec = find_section(eh, sh, shstr, shstr_len, "__mcount_loc");
	if (sec && in_module(m, sec)) {
		read_sites(m, sec->sh_addr + m->bias, sec->sh_size, 0);
		if (m->nr_sites && rt.ctl)
			__atomic_fetch_or(&rt.ctl->rt_hooks, FT_HOOK_NOP_SITES, __ATOMIC_RELAXED);
	}
	sec = find_section(eh, sh, shstr, shstr_len, "__patchable_function_entries");
	if (sec && in_module(m, sec)) {
		uint32_t before = m->nr_sites;

		read_sites(m, sec->sh_addr + m->bias, sec->sh_size, 1);
		if (m->nr_sites > before && rt.ctl)
			__atomic_fetch_or(&rt.ctl->rt_hooks, FT_HOOK_PATCHABLE, __ATOMIC_RELAXED);
	}
	rt_patch_normalize(m); /* 1-byte nop runs: one 5-byte nop each (patch.c) */
	if (rt.got_more)
		rt.got_more(m); /* attached: hooks and wrapped calls to ours (attach.c) */
	rt_plt_hook(m);		/* its library calls (plt.c) */
	rt_modmem_exit();
}

/*
 * Map m's file and read its function symbols (.symtab, else .dynsym) and
 * patch sites.  Returns 0, or -1 (file unreadable or not ELF64; the module
 * is then never traced).  Caller holds rt.lock.
 */
int rt_module_load(struct rt_module *m)
{
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh, *symsec = NULL, *strsec;
	size_t nsyms, n = 0;
	struct stat st;
	int fd;

	if (m->loaded != RT_MOD_UNLOADED)
		return m->loaded == RT_MOD_LOADED ? 0 : -1;
	m->loaded = RT_MOD_LOAD_FAILED; /* unless it gets to the end */
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
	m->funcs_len = (nsyms + 1) * sizeof(struct rt_func);
	m->funcs = mmap(NULL, m->funcs_len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
			0);
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
		f->epoch = RT_EPOCH_NONE;
		/* prefer a global name for aliases: mark the locals */
		f->flags = ELF64_ST_BIND(s->st_info) == STB_GLOBAL ? 0 : RF_LOAD_LOCAL;
	}
	qsort(m->funcs, n, sizeof(*m->funcs), sym_cmp);
	/* dedupe aliases (same address), keeping a global name and the largest size */
	size_t w = 0;

	for (size_t i = 0; i < n; i++) {
		if (w && m->funcs[w - 1].addr == m->funcs[i].addr) {
			struct rt_func *k = &m->funcs[w - 1];

			if ((k->flags & RF_LOAD_LOCAL) && !(m->funcs[i].flags & RF_LOAD_LOCAL))
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

	/* release: funcs and nr_funcs before loaded (rt_addr_fid reads it lock-free) */
	__atomic_store_n(&m->loaded, RT_MOD_LOADED, __ATOMIC_RELEASE);
	load_sites(m);
	return 0;
}

/*
 * Does m import one of the hooks the compiler emits calls to?  Such objects
 * are loaded eagerly (their functions must be known to the filters).
 */
int rt_module_wants_load(struct rt_module *m)
{
	static const struct {
		const char *name;
		uint32_t flag; /* FT_HOOK_*: the instrumentation it stands for */
	} hooks[] = {
		{ "mcount", FT_HOOK_MCOUNT },
		{ "_mcount", FT_HOOK_MCOUNT },
		{ "__fentry__", FT_HOOK_FENTRY },
		{ "__cyg_profile_func_enter", FT_HOOK_CYG },
	};
	const ElfW(Ehdr) * eh;
	const ElfW(Shdr) * sh;
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
		want = 1;
	for (int i = 0; i < eh->e_shnum; i++) {
		const ElfW(Sym) * syms;
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
				if (strcmp(strs + syms[j].st_name, hooks[k].name))
					continue;
				want = 1;
				if (rt.ctl)
					__atomic_fetch_or(&rt.ctl->rt_hooks, hooks[k].flag,
							  __ATOMIC_RELAXED);
			}
		}
	}
out:
	munmap(map, (size_t)st.st_size);
	return want;
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
	/* gone: loading it found it closed (see load_sites) */
	if (!m || m->is_self || rt_module_load(m) || m->gone)
		return NULL;
	return rt_func_in(m, addr);
}

/*
 * Read the symbols and sites of the objects that import a hook (and the
 * sites left pending during a dlclose).  Caller holds rt.lock.
 */
void rt_modules_load_new(void)
{
	for (int i = 0; i < rt.nr_mods; i++) {
		struct rt_module *m = &rt.mods[i];

		if (m->gone)
			continue;
		if (m->loaded == RT_MOD_UNLOADED && rt_module_wants_load(m)) {
			m->wants = 1;
			rt_module_load(m);
		} else if (m->loaded == RT_MOD_LOADED && m->sites_pending)
			load_sites(m);
	}
}
