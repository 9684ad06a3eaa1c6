// SPDX-License-Identifier: GPL-2.0
/*
 * Address lookups, shared by the tracers, the module loader, the PLT hooks
 * and the unwinder: which module holds an address (rt_module_of), which of
 * its functions (rt_func_in), a function's fid (rt_func_fid), and the
 * hooks' lock-free address -> function hash (rt_hash_*; hooks.c probes it
 * inline, tramp.S in assembly).  Calls only thread.c.
 */
#include <stdint.h>

#include "runtime/rt.h"

/* ---- address -> function hash ---- */

/* Allocate the table for about nr functions (control path, at init). */
void rt_hash_init(uint32_t nr)
{
	uint32_t size = 4096;

	while (size < nr * 4 && size < (1u << 22))
		size <<= 1;
	rt.htab = rt_mmap_anon(size * sizeof(struct rt_hslot));
	if (!rt.htab) {
		rt.hmask = rt.hmask2 = 0;
		return;
	}
	rt.hmask = size - 1;
	rt.hmask2 = rt.hmask << 1;
}

/*
 * Insert key -> f (never NULL).  Lock-free against lookups: the value is
 * stored first, then the key with a release store, so a lookup that sees
 * the key (acquire; x86: any load) sees its value -- tramp.S does not test
 * it for NULL.  Inserts are serialised by
 * rt.lock.  Never more than 3/4 full (then slow lookups continue to work).
 * The first tombstone of the chain (rt_hash_forget) is reused, so a
 * library closed and opened again in a loop keeps its keys near their
 * home slot instead of pushing them past the lookup's probe limit; a
 * lookup passing a reused tombstone sees another key and goes on, as it
 * did past the tombstone.
 */
static void hash_insert(uint64_t key, struct rt_func *f)
{
	uint32_t i, tomb = UINT32_MAX;

	if (!rt.hmask)
		return;
	i = rt_hash_key(key) & rt.hmask;
	for (;;) { /* ends: at most 3/4 of the slots are ever non-empty */
		uint64_t k = __atomic_load_n(&rt.htab[i].key, __ATOMIC_ACQUIRE);

		if (k == key)
			return;
		if (k == RT_HASH_TOMB && tomb == UINT32_MAX)
			tomb = i;
		if (k == RT_HASH_EMPTY)
			break;
		i = (i + 1) & rt.hmask;
	}
	if (tomb != UINT32_MAX)
		i = tomb;
	else if (rt.hused * 4 > rt.hmask * 3)
		return;
	else
		rt.hused++;
	/*
	 * relaxed: no lookup reads a slot's value before it sees the slot's
	 * key, which is stored next (a reused tombstone's old value is never
	 * read: no address of the closed object is looked up any more)
	 */
	__atomic_store_n(&rt.htab[i].f, f, __ATOMIC_RELAXED);
	/* release: pairs with the lookup's acquire of the key (the value, f's fields) */
	__atomic_store_n(&rt.htab[i].key, key, __ATOMIC_RELEASE);
}

/* Insert key -> f (plt.c: a stub's hook key).  Caller holds rt.lock. */
void rt_hash_add(uint64_t key, struct rt_func *f)
{
	hash_insert(key, f);
}

/*
 * Drop every key in [lo, hi) (an object was dlclose()d): the tombstone keeps
 * the probe chains intact and matches no address.  Caller holds rt.lock.
 * A lookup racing with this may still return the old function: harmless,
 * no code of the closed object can be running any more.
 */
void rt_hash_forget(uint64_t lo, uint64_t hi)
{
	if (!rt.hmask)
		return;
	for (uint32_t i = 0; i <= rt.hmask; i++) {
		uint64_t k = __atomic_load_n(&rt.htab[i].key, __ATOMIC_RELAXED);

		/* the value stays: a lookup that matched the key just before reads it */
		if (k >= lo && k < hi)
			__atomic_store_n(&rt.htab[i].key, RT_HASH_TOMB, __ATOMIC_RELEASE);
	}
}

/* ---- the module table ---- */

struct rt_module *rt_module_of(uint64_t addr)
{
	for (int i = 0; i < rt.nr_mods; i++)
		if (addr >= rt.mods[i].start && addr < rt.mods[i].end)
			return &rt.mods[i];
	return NULL;
}

/* The function whose [addr, addr+size) holds a, or NULL (binary search). */
struct rt_func *rt_func_in(struct rt_module *m, uint64_t a)
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

/*
 * f's fid, handing one out (and publishing its FUNCS entry) on first use.
 * Lock-free: two threads racing both publish an entry; one fid wins the
 * CAS, the other entry is a harmless duplicate.  RT_NOFID when the table
 * is full (counted in rt_funcs_dropped).
 */
uint32_t rt_func_fid(struct rt_func *f)
{
	uint32_t fid = __atomic_load_n(&f->fid, __ATOMIC_ACQUIRE), want = RT_NOFID, lib = 0;
	struct ft_session_func *e;

	if (likely(fid != RT_NOFID))
		return fid;
	if (rt.mods[f->mod].shm_idx < 0) {
		/* its module is not in the session table: no name to give */
		__atomic_fetch_add(&rt.ctl->rt_funcs_dropped, 1, __ATOMIC_RELAXED);
		return RT_NOFID;
	}
	fid = __atomic_fetch_add(&rt.ctl->next_fid, 1, __ATOMIC_RELAXED);
	if (fid >= rt.sess->max_funcs) {
		__atomic_fetch_add(&rt.ctl->rt_funcs_dropped, 1, __ATOMIC_RELAXED);
		return RT_NOFID;
	}
	e = &rt.ftab[fid];
	e->addr = f->addr;
	e->module = (uint32_t)rt.mods[f->mod].shm_idx;
	/* a library call: the library that defines it, for the readers' sym-userobj */
	if (f->lib && rt.mods[f->lib - 1].shm_idx >= 0 &&
	    (uint32_t)rt.mods[f->lib - 1].shm_idx < FT_FUNC_LIB_MASK)
		lib = ((uint32_t)rt.mods[f->lib - 1].shm_idx + 1) << FT_FUNC_LIB_SHIFT;
	/* release: addr and module are visible to whoever sees VALID */
	__atomic_store_n(&e->flags, FT_SFUNC_VALID | (f->site ? FT_SFUNC_PATCHED : 0) | lib,
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

	if (!m || m->loaded != RT_MOD_LOADED)
		return RT_NOFID;
	f = rt_func_in(m, addr - 1);
	return f ? rt_func_fid(f) : RT_NOFID;
}
