// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space ring buffer: layout, slot claim/release, the writer's page
 * switch (slow path), and the reader side.  The design, the picture and the
 * memory-ordering contract are at the top of ringbuf.h; each barrier below
 * says which one of those rules it implements.
 *
 * Built into both the tool (libftrail-core.a) and the injected runtime
 * (libftrail.so): no allocation, no stdio, no locks; the only system calls
 * are futex (wake the recorder, page-switch slow path only) and madvise
 * (recorder side).
 */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <linux/membarrier.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/barrier.h"
#include "core/ringbuf.h"

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))

static int is_pow2(uint32_t x)
{
	return x && !(x & (x - 1));
}

/* Pages of one ring set of a slot, rounded so each set's page block is 4096-aligned. */
static uint32_t set_pages(const struct ft_rb_params *p)
{
	uint64_t n = 0;
	uint32_t per4k = p->page_size >= 4096 ? 1 : 4096 / p->page_size;

	for (int l = 0; l < FT_RB_LEVELS; l++)
		n += p->npages[l];
	n = ALIGN_UP(n, per4k);
	return n > UINT32_MAX / FT_RB_SETS ? 0 : (uint32_t)n;
}

/* Pages of one slot: FT_RB_SETS sets (live + spare), set s at s * set_pages. */
static uint32_t slot_pages(const struct ft_rb_params *p)
{
	return set_pages(p) * FT_RB_SETS;
}

static int params_ok(const struct ft_rb_params *p)
{
	if (!is_pow2(p->page_size) || p->page_size < FT_RB_PAGE_MIN ||
	    p->page_size > FT_RB_PAGE_MAX)
		return 0;
	if (!p->nr_slots || p->nr_slots > FT_RB_MAX_SLOTS)
		return 0;
	for (int l = 0; l < FT_RB_LEVELS; l++)
		if (p->npages[l] < 2 || p->npages[l] > (1u << 24))
			return 0;
	return slot_pages(p) != 0;
}

void ft_rb_params_default(struct ft_rb_params *p, unsigned int buffer_kb, int overwrite)
{
	uint64_t n0, n1, slot_bytes, slots;

	if (!buffer_kb)
		buffer_kb = FT_RB_DEFAULT_KB;
	memset(p, 0, sizeof(*p));
	p->page_size = buffer_kb < 16 ? FT_RB_PAGE_MIN : FT_RB_PAGE_DEFAULT;
	n0 = (uint64_t)buffer_kb * 1024 / p->page_size;
	if (n0 < 2)
		n0 = 2;
	if (n0 > (1u << 24))
		n0 = 1u << 24;
	n1 = n0 / 8 < 2 ? 2 : n0 / 8;
	p->npages[0] = (uint32_t)n0;
	for (int l = 1; l < FT_RB_LEVELS; l++)
		p->npages[l] = (uint32_t)n1;
	p->flags = overwrite ? FT_RB_F_OVERWRITE : 0;
	p->nr_slots = 1;
	/* the budget counts the live set: the spare is only touched after a swap */
	slot_bytes = (uint64_t)set_pages(p) * p->page_size;
	slots = (2ull << 30) / slot_bytes;
	if (slots < 8)
		slots = 8;
	if (slots > 1024)
		slots = 1024;
	p->nr_slots = (uint32_t)slots;
}

/* Offsets of the layout; 0 on overflow/invalid. */
static uint64_t layout(const struct ft_rb_params *p, uint64_t *slots_off, uint64_t *nev_off,
		       uint64_t *pages_off)
{
	uint64_t pps, npages_total;

	if (!params_ok(p))
		return 0;
	pps = slot_pages(p);
	npages_total = pps * p->nr_slots;
	*slots_off = ALIGN_UP(sizeof(struct ft_rb_area), 64);
	*nev_off = ALIGN_UP(*slots_off + (uint64_t)p->nr_slots * sizeof(struct ft_rb_slot), 64);
	*pages_off = ALIGN_UP(*nev_off + npages_total * 4, 4096);
	return ALIGN_UP(*pages_off + npages_total * p->page_size, 4096);
}

size_t ft_rb_area_size(const struct ft_rb_params *p)
{
	uint64_t a, b, c;

	return (size_t)layout(p, &a, &b, &c);
}

struct ft_rb_area *ft_rb_area_init(void *mem, size_t len, const struct ft_rb_params *p)
{
	struct ft_rb_area *a = mem;
	uint64_t slots_off, nev_off, pages_off, size;
	uint32_t pps;

	size = layout(p, &slots_off, &nev_off, &pages_off);
	if (!size || len < size || ((uintptr_t)mem & 63)) {
		errno = EINVAL;
		return NULL;
	}
	memset(a, 0, sizeof(*a));
	a->version = FT_RB_VERSION;
	a->page_size = p->page_size;
	a->nr_slots = p->nr_slots;
	memcpy(a->npages, p->npages, sizeof(a->npages));
	pps = slot_pages(p);
	a->pages_per_slot = pps;
	a->flags = p->flags;
	a->block_ms = p->block_ms ? p->block_ms : FT_RB_BLOCK_MS_DEFAULT;
	a->slots_off = slots_off;
	a->nev_off = nev_off;
	a->pages_off = pages_off;
	a->size = size;
	for (uint32_t i = 0; i < p->nr_slots; i++) {
		struct ft_rb_slot *s = ft_rb_slot_at(a, i);

		memset(s, 0, sizeof(*s));
		for (uint32_t set = 0; set < FT_RB_SETS; set++) {
			uint32_t first = i * pps + set * (pps / FT_RB_SETS);

			for (int l = 0; l < FT_RB_LEVELS; l++) {
				ft_rb_slot_ring(s, set, (uint32_t)l)->first_page = first;
				ft_rb_slot_ring(s, set, (uint32_t)l)->npages = p->npages[l];
				first += p->npages[l];
			}
		}
	}
	/*
	 * The magic goes last, with release: a process that attaches (and
	 * acquires it) sees a formatted area.  In practice the area is
	 * formatted before the program starts.
	 */
	__atomic_store_n(&a->magic, FT_RB_MAGIC, __ATOMIC_RELEASE);
	return a;
}

struct ft_rb_area *ft_rb_area_attach(void *mem, size_t len)
{
	struct ft_rb_area *a = mem;
	struct ft_rb_params p;
	uint64_t slots_off, nev_off, pages_off, size;

	if (!mem || len < sizeof(*a) ||
	    __atomic_load_n(&a->magic, __ATOMIC_ACQUIRE) != FT_RB_MAGIC ||
	    a->version != FT_RB_VERSION)
		goto bad;
	memset(&p, 0, sizeof(p));
	p.page_size = a->page_size;
	p.nr_slots = a->nr_slots;
	memcpy(p.npages, a->npages, sizeof(p.npages));
	size = layout(&p, &slots_off, &nev_off, &pages_off);
	if (!size || size > len || a->size != size || a->slots_off != slots_off ||
	    a->nev_off != nev_off || a->pages_off != pages_off ||
	    a->pages_per_slot != slot_pages(&p))
		goto bad;
	return a;
bad:
	errno = EINVAL;
	return NULL;
}

void ft_rb_area_set_overwrite(struct ft_rb_area *a, int on)
{
	uint32_t f = __atomic_load_n(&a->flags, __ATOMIC_RELAXED);

	f = on ? f | FT_RB_F_OVERWRITE : f & ~FT_RB_F_OVERWRITE;
	/* relaxed: a mode, not a publication; writers read it at page switch */
	__atomic_store_n(&a->flags, f, __ATOMIC_RELAXED);
}

/* ------------------------------------------------------------------ */
/* writer side                                                         */

int ft_rb_thread_attach(struct ft_rb_thread *t, struct ft_rb_area *a, uint32_t pid, uint32_t tid)
{
	uint32_t n = a->nr_slots, start, sg;

	t->slot = NULL; /* first, for a handler's sake (see below) */
	ft_barrier();
	memset(t, 0, sizeof(*t));
	t->area = a;
	t->pid = pid;
	t->tid = tid;
	start = __atomic_fetch_add(&a->claim_hint, 1, __ATOMIC_RELAXED) % n;
	for (uint32_t i = 0; i < n; i++) {
		uint32_t idx = (start + i) % n;
		struct ft_rb_slot *s = ft_rb_slot_at(a, idx);
		uint32_t exp = FT_RB_FREE;

		if (__atomic_load_n(&s->state, __ATOMIC_RELAXED) != FT_RB_FREE)
			continue;
		/*
		 * acq_rel: the acquire pairs with the recorder's release of
		 * FREE in ft_rb_slot_recycle (the reset rings, gen, punched
		 * pages are visible to us); the release half is not needed
		 * by anyone but keeps the CAS symmetric with detach.
		 */
		if (!__atomic_compare_exchange_n(&s->state, &exp, FT_RB_ACTIVE, 0, __ATOMIC_ACQ_REL,
						 __ATOMIC_RELAXED))
			continue;
		__atomic_store_n(&s->pid, pid, __ATOMIC_RELAXED);
		__atomic_store_n(&s->tid, tid, __ATOMIC_RELAXED);
		t->slot_idx = idx;
		t->gen = __atomic_load_n(&s->gen, __ATOMIC_RELAXED);
		/*
		 * acquire: pairs with the swapper's release of snap_gen (the
		 * live set's rings were reset before it).  A swap right after
		 * this load is seen at our first begin (ft_rb__enter).
		 */
		sg = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE);
		for (int l = 0; l < FT_RB_LEVELS; l++) {
			struct ft_rb_ring *r = ft_rb_slot_ring(s, sg & 1, (uint32_t)l);

			t->lv[l].ring = r;
			t->lv[l].level = (uint32_t)l;
			t->lv[l].gen = sg;
			/* our own slot now: the reset values, seen through the acquire above */
			t->lv[l].wpage = __atomic_load_n(&r->wpage, __ATOMIC_RELAXED);
			/* release: a recorder freezing the other set knows we are here */
			__atomic_store_n(&s->entered[sg & 1][l], sg, __ATOMIC_RELEASE);
		}
		/*
		 * slot last: a handler on this thread that runs before this
		 * store finds no slot (its event is counted lost), never a
		 * half-filled t.
		 */
		ft_barrier();
		t->slot = s;
		__atomic_fetch_add(&a->claims, 1, __ATOMIC_RELAXED);
		return 0;
	}
	__atomic_fetch_add(&a->claim_fails, 1, __ATOMIC_RELAXED);
	return -1;
}

void ft_rb_thread_detach(struct ft_rb_thread *t)
{
	struct ft_rb_slot *s = t->slot;
	struct ft_rb_area *a = t->area;

	/*
	 * slot first: a handler on this thread that runs from here on finds
	 * no slot (counted lost) instead of a t being zeroed under it.
	 */
	t->slot = NULL;
	ft_barrier();
	if (s) {
		uint32_t exp = FT_RB_ACTIVE;

		/*
		 * release: every commit and page switch of this thread
		 * happens-before the recorder's acquire of EXITED, which then
		 * drains with final = 1.  Failure means the recorder already
		 * reaped the slot: nothing to do.
		 */
		__atomic_compare_exchange_n(&s->state, &exp, FT_RB_EXITED, 0, __ATOMIC_ACQ_REL,
					    __ATOMIC_RELAXED);
	}
	/* area next, whole: the memset below then only writes zeros over zeros there */
	t->area = NULL;
	ft_barrier();
	memset(t, 0, sizeof(*t));
	if (a && s)
		ft_rb_wake(a);
}

void ft_rb_thread_forget(struct ft_rb_thread *t)
{
	memset(t, 0, sizeof(*t));
}

unsigned int ft_rb_area_reap_pid(struct ft_rb_area *a, uint32_t pid)
{
	unsigned int n = 0;

	for (uint32_t i = 0; i < a->nr_slots; i++) {
		struct ft_rb_slot *s = ft_rb_slot_at(a, i);
		uint32_t exp = FT_RB_ACTIVE;

		if (__atomic_load_n(&s->pid, __ATOMIC_RELAXED) != pid)
			continue;
		if (__atomic_compare_exchange_n(&s->state, &exp, FT_RB_EXITED, 0, __ATOMIC_ACQ_REL,
						__ATOMIC_RELAXED))
			n++;
	}
	if (n)
		ft_rb_wake(a);
	return n;
}

void ft_rb__lost_nolevel(struct ft_rb_thread *t, uint32_t n)
{
	/* rare paths: shared counters, atomic add (lock-free, never blocks) */
	if (!t->slot) {
		__atomic_fetch_add(&t->area->lost_noslot, n, __ATOMIC_RELAXED);
	} else {
		__atomic_fetch_add(&t->area->lost_nest, n, __ATOMIC_RELAXED);
		/* the recorder shows these in the slot's level-0 buffer (exchange) */
		__atomic_fetch_add(&t->slot->nest_lost, n, __ATOMIC_RELAXED);
	}
}

/*
 * Level w moves to the live set of generation gen (called from begin, with
 * the level's nesting already taken, so a handler writes elsewhere).  The
 * old ring is left as it is: its last page stays partial, events dropped
 * since it started stay counted in its lost_new -- the recorder, which
 * freezes and saves it, shows them.  The new ring was reset by the
 * recorder before the swap that made it live (published through the
 * swapper's release of snap_gen, acquired in ft_rb__enter).
 */
void ft_rb__switch_set(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint32_t gen)
{
	struct ft_rb_slot *s = t->slot;
	struct ft_rb_ring *r = ft_rb_slot_ring(s, gen & 1, w->level);

	w->ring = r;
	w->gen = gen;
	w->page = NULL;
	w->nev = NULL;
	w->off = 0;
	w->lim = 0; /* no page: the fast paths' room check fails */
	w->pending_lost = 0;
	w->wpage = __atomic_load_n(&r->wpage, __ATOMIC_RELAXED);
	/*
	 * release: our last accesses to the old ring (program order) happen
	 * before a recorder that acquires entered[][] == gen and takes the old
	 * ring as frozen.
	 */
	__atomic_store_n(&s->entered[gen & 1][w->level], gen, __ATOMIC_RELEASE);
}

/* One event dropped at level w (newest lost): ring counter + next page's header. */
static void lost_new(struct ft_rb_wlevel *w)
{
	w->pending_lost++;
	/* single writer: load + store, no RMW; relaxed (a counter, read by totals) */
	__atomic_store_n(&w->ring->lost_new,
			 __atomic_load_n(&w->ring->lost_new, __ATOMIC_RELAXED) + 1,
			 __ATOMIC_RELAXED);
}

void ft_rb_count_lost(struct ft_rb_thread *t, uint32_t n)
{
	struct ft_rb_wlevel *w;

	if (!t->area || !n)
		return;
	if (!t->slot || t->nest >= FT_RB_LEVELS) {
		ft_rb__lost_nolevel(t, n);
		return;
	}
	/* inside begin/end: a handler interrupting the counter update goes one level up */
	w = ft_rb_begin(t);
	if (!w)
		return; /* cannot happen: slot and nesting checked above */
	if (w->page) {
		/* where it happened: an FT_EXT_LOST record (an attachment: 0 events) */
		uint32_t cap = t->area->page_size - (uint32_t)sizeof(struct ft_page);

		if (w->off + 8 <= cap) {
			uint32_t *p = (uint32_t *)(w->page + 1) + w->off / 4;

			p[0] = ft_rec_ext(FT_EXT_LOST, 1, 0);
			p[1] = n;
			ft_rb_commit(w, 2, 0);
		} else {
			w->pending_lost += n; /* the next page's header says it */
		}
	} else {
		w->pending_lost += n;
	}
	__atomic_store_n(&w->ring->lost_new,
			 __atomic_load_n(&w->ring->lost_new, __ATOMIC_RELAXED) + n,
			 __ATOMIC_RELAXED);
	ft_rb_end(t);
}

static long futex(uint32_t *uaddr, int op, uint32_t val, const struct timespec *ts)
{
	return syscall(SYS_futex, uaddr, op, val, ts, NULL, 0);
}

static uint64_t mono_ns(void)
{
	struct timespec ts;

	/* async-signal-safe (POSIX), a vDSO call on Linux */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Blocking mode (ringbuf.h, "Blocking mode"): wait until the reader has
 * consumed page `old` of r.  Returns 0 when it has, -1 when the wait gave
 * up (block_ms without the reader consuming a page of THIS ring -- the
 * reader draining other rings does not make us wait longer -- or blocking
 * switched off): the caller drops the event.  Sleeps in slices, so a
 * waiter whose futex wake went to the wrong round still looks again soon.
 */
static int wait_space(struct ft_rb_area *a, struct ft_rb_ring *r, uint64_t old)
{
	uint64_t start = mono_ns(), last = start, limit, rnum;
	uint64_t seen = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE) >> 1;
	uint32_t seq;
	int ret = -1;

	limit = (uint64_t)__atomic_load_n(&a->block_ms, __ATOMIC_RELAXED) * 1000000ull;
	__atomic_fetch_add(&a->block_waits, 1, __ATOMIC_RELAXED);
	for (;;) {
		struct timespec slice = { 0, 20 * 1000000L };
		uint64_t now;

		seq = __atomic_load_n(&a->space_seq, __ATOMIC_ACQUIRE);
		/* seq_cst: the writer's half of the Dekker pair (ringbuf.h) */
		__atomic_fetch_add(&a->space_waiters, 1, __ATOMIC_SEQ_CST);
		/* acquire: pairs with the reader's release of rpage (its copy is done) */
		if ((__atomic_load_n(&r->rpage, __ATOMIC_SEQ_CST) >> 1) > old) {
			__atomic_fetch_sub(&a->space_waiters, 1, __ATOMIC_RELAXED);
			ret = 0;
			break;
		}
		if (__atomic_load_n(&a->block_off, __ATOMIC_RELAXED)) {
			__atomic_fetch_sub(&a->space_waiters, 1, __ATOMIC_RELAXED);
			break;
		}
		/* the reader may be asleep: a ring waiting for it is more than half full */
		if (__atomic_load_n(&a->waiting, __ATOMIC_SEQ_CST))
			ft_rb_wake(a);
		futex(&a->space_seq, FUTEX_WAIT, seq, &slice);
		__atomic_fetch_sub(&a->space_waiters, 1, __ATOMIC_RELAXED);
		now = mono_ns();
		rnum = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE) >> 1;
		if (rnum != seen) { /* the reader consumed pages of ours: wait on */
			seen = rnum;
			last = now;
		} else if (now - last >= limit) {
			/* relaxed: a hint; the reader clears it on its next pass */
			__atomic_store_n(&a->block_off, 1, __ATOMIC_RELAXED);
			__atomic_fetch_add(&a->block_timeouts, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	__atomic_fetch_add(&a->block_wait_ns, mono_ns() - start, __ATOMIC_RELAXED);
	return ret;
}

/*
 * Move level w to its next page (or to its first one).  Returns 0, or -1
 * when the event that needed room must be dropped (counted here).
 */
int ft_rb__new_page(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint64_t now)
{
	struct ft_rb_area *a = t->area;
	struct ft_rb_ring *r = w->ring;
	uint64_t n = r->npages, q, rp, rnum;
	struct ft_page *pg;
	uint32_t idx, *nev, fl;

	q = w->page ? w->wpage + 1 : w->wpage;
	if (q >= n) {
		uint64_t old = q - n; /* the page whose physical slot q reuses */

		for (int tries = 0;; tries++) {
			/*
			 * acquire: pairs with the reader's release store of
			 * rpage after copying a page, so its reads of that
			 * page are done before we overwrite it.
			 */
			rp = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE);
			rnum = rp >> 1;
			if (rnum > old)
				break; /* consumed: free */
			fl = __atomic_load_n(&a->flags, __ATOMIC_RELAXED);
			if ((fl & (FT_RB_F_OVERWRITE | FT_RB_F_BLOCK)) == FT_RB_F_BLOCK &&
			    !__atomic_load_n(&a->block_off, __ATOMIC_RELAXED) &&
			    !wait_space(a, r, old))
				continue; /* the reader freed it: look again */
			if (!(fl & FT_RB_F_OVERWRITE) || (rp & FT_RB_BUSY) || tries >= 4) {
				/* producer/consumer, or the reader holds it: drop the newest */
				lost_new(w);
				if (__atomic_load_n(&a->waiting, __ATOMIC_RELAXED))
					ft_rb_wake(a);
				return -1;
			}
			/*
			 * Overwrite: take page `old` away from the reader.
			 * acq_rel: acquire as above; release so a reader that
			 * later acquires rpage sees our lost_old update order
			 * (it attributes lost_old deltas after its own CAS).
			 */
			if (__atomic_compare_exchange_n(&r->rpage, &rp, (old + 1) << 1, 0,
							__ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
				uint32_t dropped =
					*ft_rb_nev_at(a, r->first_page, (uint32_t)(old % n));

				__atomic_store_n(&r->lost_old,
						 __atomic_load_n(&r->lost_old, __ATOMIC_RELAXED) +
							 dropped,
						 __ATOMIC_RELAXED);
				/*
				 * release: lost_old before pages_old -- a reader
				 * that acquires pages_old covering this page sees
				 * its count (ft_rb_consume_set: the page after a
				 * gap carries the gap's loss).
				 */
				__atomic_store_n(&r->pages_old,
						 __atomic_load_n(&r->pages_old, __ATOMIC_RELAXED) +
							 1,
						 __ATOMIC_RELEASE);
				break;
			}
			/* the reader moved rpage meanwhile: look again (bounded) */
		}
	}
	if (w->page)
		__atomic_store_n(&r->written,
				 __atomic_load_n(&r->written, __ATOMIC_RELAXED) +
					 __atomic_load_n(w->nev, __ATOMIC_RELAXED),
				 __ATOMIC_RELAXED);

	idx = (uint32_t)(q % n);
	pg = ft_rb_page_at(a, r->first_page, idx);
	nev = ft_rb_nev_at(a, r->first_page, idx);
	/*
	 * Seqlock for non-consuming readers (ft_rb_peek): the new seq goes
	 * first, then a release fence, then the header and records; a peeker
	 * that copied any of those and then re-reads seq after an acquire
	 * fence sees the change and discards its copy.
	 */
	__atomic_store_n(&pg->seq, (uint32_t)q, __ATOMIC_RELAXED);
	ft_fence(__ATOMIC_RELEASE);
	__atomic_store_n(&pg->size, 0, __ATOMIC_RELAXED);
	__atomic_store_n(nev, 0, __ATOMIC_RELAXED);
	pg->ts = now;
	/* relaxed atomic: ft_rb_ring_unread may look at it while we write (a hint there) */
	__atomic_store_n(&pg->lost,
			 w->pending_lost > UINT32_MAX ? UINT32_MAX : (uint32_t)w->pending_lost,
			 __ATOMIC_RELAXED);
	pg->tid = t->tid;
	pg->pid = t->pid;
	pg->level = (uint16_t)w->level;
	pg->depth = w->depth > UINT16_MAX ? UINT16_MAX : (uint16_t)w->depth;

	w->page = pg;
	w->nev = nev;
	w->off = 0;
	/* the fast paths' room check (ringbuf_fast.h): one compare, page and size in it */
	w->lim = a->page_size - (uint32_t)sizeof(struct ft_page);
	w->wpage = q;
	w->last_ts = now;
	w->pending_lost = 0;
	/*
	 * release: publishes the previous page's final size and nev (stored
	 * by its last commit) and this page's header to a reader that
	 * acquires wpage and sees q.
	 */
	__atomic_store_n(&r->wpage, q, __ATOMIC_RELEASE);

	/* ask for a drain when the ring is half full and the recorder sleeps */
	if (__atomic_load_n(&a->waiting, __ATOMIC_RELAXED) &&
	    q - (__atomic_load_n(&r->rpage, __ATOMIC_RELAXED) >> 1) >= n / 2)
		ft_rb_wake(a);
	return 0;
}

int ft_rb_ext(struct ft_rb_thread *t, uint32_t type, const void *payload, uint32_t len,
	      uint64_t now, int with_time, uint32_t nevents)
{
	struct ft_rb_wlevel *w;
	uint32_t nw = (len + 3) / 4, d, *p;
	int ret = -1;

	w = ft_rb_begin(t);
	if (!w)
		return -1;
	if (nw + 1 > ft_rb_max_words(t->area) || nw > 0xffff) {
		if (nevents)
			lost_new(w);
	} else {
		p = ft_rb_reserve(t, w, now, nw + 1, with_time ? 0 : UINT64_MAX, &d);
		if (p) {
			p[0] = ft_rec_ext(type, nw, nw * 4 - len);
			if (nw)
				p[nw] = 0; /* the pad bytes */
			if (len)
				memcpy(&p[1], payload, len);
			ft_rb_commit(w, nw + 1, nevents);
			ret = 0;
		}
	}
	ft_rb_end(t);
	return ret;
}

/* A record word (entry or exit) and an attachment, in one reservation. */
static int rec_ext(struct ft_rb_thread *t, int entry, uint32_t fid, uint64_t now, uint32_t type,
		   const void *payload, uint32_t len)
{
	struct ft_rb_wlevel *w;
	uint32_t nw = (len + 3) / 4, lead, d, *p;
	int ret = -1;

	w = ft_rb_begin(t);
	if (!w)
		return -1;
	/* the record: one word, or FT_EXT_ENTRY_LONG's two (a delta of 0: a TIME before it) */
	lead = entry && fid > FT_REC_FID_MAX ? 2 : 1;
	if (nw + lead + 1 > ft_rb_max_words(t->area) || nw > 0xffff) {
		lost_new(w);
	} else {
		p = ft_rb_reserve(t, w, now, lead + nw + 1,
				  lead == 2 ? 0
				  : entry   ? FT_REC_EDELTA_MAX
					    : FT_REC_XDELTA_MAX,
				  &d);
		if (p) {
			if (lead == 2) {
				p[0] = ft_rec_ext(FT_EXT_ENTRY_LONG, 1, 0);
				p[1] = fid;
			} else {
				p[0] = entry ? ft_rec_entry(fid, d) : ft_rec_exit(d);
			}
			p[lead] = ft_rec_ext(type, nw, nw * 4 - len);
			if (nw)
				p[lead + nw] = 0; /* the pad bytes */
			/* word by word: payloads are short, a memcpy call costs more */
			for (uint32_t i = 0; i < len / 4; i++)
				__builtin_memcpy(&p[lead + 1 + i], (const char *)payload + 4 * i,
						 4);
			if (len & 3)
				__builtin_memcpy(&p[lead + 1 + len / 4],
						 (const char *)payload + (len & ~3u), len & 3);
			ft_rb_commit(w, lead + nw + 1, 1);
			ret = 0;
		}
	}
	if (entry)
		w->depth++; /* the call happened even if its record was lost */
	else if (w->depth)
		w->depth--;
	ft_rb_end(t);
	return ret;
}

int ft_rb_entry_ext(struct ft_rb_thread *t, uint32_t fid, uint64_t now, uint32_t type,
		    const void *payload, uint32_t len)
{
	return rec_ext(t, 1, fid, now, type, payload, len);
}

int ft_rb_exit_ext(struct ft_rb_thread *t, uint64_t now, uint32_t type, const void *payload,
		   uint32_t len)
{
	return rec_ext(t, 0, 0, now, type, payload, len);
}

/* ------------------------------------------------------------------ */
/* reader side                                                         */

/*
 * Reader side: ring (slot, level), put back where the layout says it is.
 * The traced program can scribble over the shared area; a ring's place is
 * fully determined by the area header, so the reader restores it rather
 * than read or write out of bounds (every other ring field is used modulo
 * npages or clamped).  The area header itself is the caller's to protect:
 * the recorder restores it from a private copy.
 */
static struct ft_rb_ring *ring_checked(struct ft_rb_area *a, uint32_t slot, uint32_t set,
				       uint32_t level)
{
	struct ft_rb_ring *r;
	uint32_t first;

	if (slot >= a->nr_slots || level >= FT_RB_LEVELS || set >= FT_RB_SETS)
		return NULL;
	r = ft_rb_slot_ring(ft_rb_slot_at(a, slot), set, level);
	first = slot * a->pages_per_slot + set * (a->pages_per_slot / FT_RB_SETS);
	for (uint32_t l = 0; l < level; l++)
		first += a->npages[l];
	/* relaxed: nobody legitimately writes these after ft_rb_area_init */
	if (__atomic_load_n(&r->first_page, __ATOMIC_RELAXED) != first)
		__atomic_store_n(&r->first_page, first, __ATOMIC_RELAXED);
	if (__atomic_load_n(&r->npages, __ATOMIC_RELAXED) != a->npages[level])
		__atomic_store_n(&r->npages, a->npages[level], __ATOMIC_RELAXED);
	return r;
}

/* Copy a page header field by field (size comes from the caller's acquire load). */
static void copy_header(struct ft_page *dst, const struct ft_page *pg, uint32_t size)
{
	dst->ts = pg->ts;
	dst->size = size;
	dst->lost = pg->lost;
	dst->tid = pg->tid;
	dst->pid = pg->pid;
	dst->level = pg->level;
	dst->depth = pg->depth;
	dst->seq = __atomic_load_n(&pg->seq, __ATOMIC_RELAXED);
}

/*
 * The reader freed a page: wake writers that wait for room (blocking mode).
 * The reader's half of the Dekker pair in ringbuf.h, as a read-modify-write
 * (adds 0) rather than a fence: when it reads 0, a writer's later increment
 * reads from it and synchronises with it (both seq_cst RMWs), so that
 * writer's load of rpage sees our release; when it reads more, we wake.
 */
static void space_notify(struct ft_rb_area *a)
{
	if (__atomic_fetch_add(&a->space_waiters, 0, __ATOMIC_SEQ_CST)) {
		__atomic_fetch_add(&a->space_seq, 1, __ATOMIC_SEQ_CST);
		futex(&a->space_seq, FUTEX_WAKE, INT_MAX, NULL);
	}
}

int ft_rb_consume_set(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level, int final,
		      void *dst, struct ft_rb_pageinfo *info)
{
	struct ft_rb_slot *s;
	struct ft_rb_ring *r = ring_checked(a, slot, set, level);
	uint32_t cap = a->page_size - (uint32_t)sizeof(struct ft_page);

	if (!r)
		return 0;
	s = ft_rb_slot_at(a, slot);
	for (;;) {
		uint64_t rp, wp, rnum, lo, add, po;
		struct ft_page *pg, *out = dst;
		uint32_t idx, size, nev;

		/* acquire: pairs with the writer's release of wpage (page contents) */
		wp = __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);
		rp = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE);
		if (rp & FT_RB_BUSY)
			return 0; /* another consumer holds this ring (not expected) */
		rnum = rp >> 1;
		if (rnum > wp || (rnum == wp && !final))
			return 0;
		/*
		 * Take page rnum.  acq_rel: acquire orders our copy after the
		 * writer's last reuse of the page (its CAS/release chain on
		 * rpage); the writer, seeing BUSY, will not reuse the page
		 * until our release below.  Fails when the writer pushed rpage
		 * (overwrite mode): look again.
		 */
		if (!__atomic_compare_exchange_n(&r->rpage, &rp, rp | FT_RB_BUSY, 0,
						 __ATOMIC_ACQ_REL, __ATOMIC_RELAXED))
			continue;
		idx = (uint32_t)(rnum % r->npages);
		pg = ft_rb_page_at(a, r->first_page, idx);
		/*
		 * acquire: pairs with the commit's release of size; for a
		 * complete page it is final already (published by wpage).
		 */
		size = __atomic_load_n(&pg->size, __ATOMIC_ACQUIRE);
		if (size > cap)
			size = cap; /* a scribbled page: never copy past it */
		size &= ~3u;
		if (!size && rnum == wp) {
			/*
			 * The page being written holds nothing (or was never
			 * started: its writer has not written yet): leave it,
			 * so a first record written later is not lost.
			 * release: as below.
			 */
			__atomic_store_n(&r->rpage, rnum << 1, __ATOMIC_RELEASE);
			return 0;
		}
		/*
		 * Pages overwritten since our last page (rnum - r_next of
		 * them): their loss is shown on this page, so a reader sees
		 * the gap where it is.  The writer counts a page it took in
		 * lost_old, then pages_old, just AFTER its CAS on rpage: when
		 * pages_old does not cover the gap yet, a count is still on
		 * its way -- leave the page for the next pass rather than show
		 * it as following its predecessor.  No more drops meanwhile:
		 * we hold BUSY.  A final pass (the writer is gone) takes it:
		 * a count that never came stays in the totals.
		 * acquire: pairs with the writer's release of pages_old.
		 */
		po = __atomic_load_n(&r->pages_old, __ATOMIC_ACQUIRE);
		if (rnum >= r->r_next && rnum - r->r_next > po - r->r_pages_seen && !final) {
			/* release: as below (nothing copied) */
			__atomic_store_n(&r->rpage, rnum << 1, __ATOMIC_RELEASE);
			return 0;
		}
		r->r_next = rnum + 1;
		r->r_pages_seen = po;
		nev = __atomic_load_n(ft_rb_nev_at(a, r->first_page, idx), __ATOMIC_RELAXED);
		copy_header(out, pg, size);
		memcpy(out + 1, pg + 1, size);
		/* overwritten pages since our last page: attribute them here */
		lo = __atomic_load_n(&r->lost_old, __ATOMIC_RELAXED);
		add = lo - r->r_lost_seen;
		r->r_lost_seen = lo;
		if (add + out->lost > UINT32_MAX)
			out->lost = UINT32_MAX;
		else
			out->lost += (uint32_t)add;
		/* release: our reads of the page are done before the writer may reuse it */
		__atomic_store_n(&r->rpage, (rnum + 1) << 1, __ATOMIC_RELEASE);
		space_notify(a);
		if (!size && !add)
			continue; /* empty page (never started, or nothing committed) */
		info->buf_id =
			ft_rb_buf_id(slot, level, __atomic_load_n(&s->gen, __ATOMIC_RELAXED));
		info->number = rnum;
		info->len = (uint32_t)sizeof(struct ft_page) + size;
		info->nev = nev;
		info->lost = out->lost;
		info->partial = rnum == wp;
		return 1;
	}
}

/* Has the ring a page not consumed yet that holds something (or may soon)? */
static int ring_has_unread(struct ft_rb_area *a, struct ft_rb_ring *r)
{
	uint64_t wp = __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);
	uint64_t rnum = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE) >> 1;
	struct ft_page *pg;

	if (rnum < wp)
		return 1;
	if (rnum > wp)
		return 0;
	pg = ft_rb_page_at(a, r->first_page, (uint32_t)(wp % r->npages));
	return __atomic_load_n(&pg->size, __ATOMIC_ACQUIRE) != 0 ||
	       __atomic_load_n(&pg->lost, __ATOMIC_RELAXED) != 0;
}

/*
 * Both sets, oldest first: the spare set (the one not live) holds pages
 * of this thread older than the live set's when a snapshot was just taken
 * and not saved yet.  While it still has a page that is not complete (its
 * writer may not have left it) and final is 0, the live set waits: pages
 * of one buffer are handed out in order.
 */
int ft_rb_consume(struct ft_rb_area *a, uint32_t slot, uint32_t level, int final, void *dst,
		  struct ft_rb_pageinfo *info)
{
	uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;
	struct ft_rb_ring *o = ring_checked(a, slot, live ^ 1, level);

	if (!o)
		return 0;
	if (ft_rb_consume_set(a, slot, live ^ 1, level, final, dst, info))
		return 1;
	if (!final && ring_has_unread(a, o))
		return 0;
	return ft_rb_consume_set(a, slot, live, level, final, dst, info);
}

int ft_rb_ring_unread(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level)
{
	struct ft_rb_ring *r = ring_checked(a, slot, set, level);

	return r ? ring_has_unread(a, r) : 0;
}

void ft_rb_peek_range(struct ft_rb_area *a, uint32_t slot, uint32_t level, uint64_t *first,
		      uint64_t *last)
{
	uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;
	struct ft_rb_ring *r = ring_checked(a, slot, live, level);
	uint64_t wp, rnum;

	*first = 1;
	*last = 0;
	if (!r)
		return;
	wp = __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);
	rnum = __atomic_load_n(&r->rpage, __ATOMIC_ACQUIRE) >> 1;
	if (wp + 1 >= r->npages && rnum < wp + 1 - r->npages)
		rnum = wp + 1 - r->npages;
	*first = rnum;
	*last = wp;
}

int ft_rb_peek(struct ft_rb_area *a, uint32_t slot, uint32_t level, uint64_t number, void *dst,
	       struct ft_rb_pageinfo *info)
{
	uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;

	return ft_rb_peek_set(a, slot, live, level, number, dst, info);
}

int ft_rb_peek_set(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level,
		   uint64_t number, void *dst, struct ft_rb_pageinfo *info)
{
	struct ft_rb_slot *s;
	struct ft_rb_ring *r;
	struct ft_page *pg, *out = dst;
	uint32_t idx, size, seq, nev, cap = a->page_size - (uint32_t)sizeof(struct ft_page);
	uint32_t *src, *to;

	r = ring_checked(a, slot, set, level);
	if (!r)
		return 0;
	s = ft_rb_slot_at(a, slot);
	idx = (uint32_t)(number % r->npages);
	pg = ft_rb_page_at(a, r->first_page, idx);
	/* acquire: pairs with the release fence after the writer's seq store */
	seq = __atomic_load_n(&pg->seq, __ATOMIC_ACQUIRE);
	if (seq != (uint32_t)number)
		return 0;
	size = __atomic_load_n(&pg->size, __ATOMIC_ACQUIRE);
	if (size > cap)
		size = cap;
	size &= ~3u;
	nev = __atomic_load_n(ft_rb_nev_at(a, r->first_page, idx), __ATOMIC_RELAXED);
	copy_header(out, pg, size);
	src = (uint32_t *)(pg + 1);
	to = (uint32_t *)(out + 1);
	for (uint32_t i = 0; i < size / 4; i++)
		to[i] = __atomic_load_n(&src[i], __ATOMIC_RELAXED);
	/* acquire fence, then seq again: a writer that reused the page changed it first */
	ft_fence(__ATOMIC_ACQUIRE);
	if (__atomic_load_n(&pg->seq, __ATOMIC_RELAXED) != seq)
		return 0;
	/* a page reused and given the same seq is impossible: seq = number, 2^32 pages apart */
	if (__atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE) >= number + r->npages)
		return 0;
	info->buf_id = ft_rb_buf_id(slot, level, __atomic_load_n(&s->gen, __ATOMIC_RELAXED));
	info->number = number;
	info->len = (uint32_t)sizeof(struct ft_page) + size;
	info->nev = nev;
	info->lost = out->lost;
	info->partial = number == __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);
	return 1;
}

void ft_rb_slot_info(struct ft_rb_area *a, uint32_t slot, struct ft_rb_slotinfo *si)
{
	struct ft_rb_slot *s = ft_rb_slot_at(a, slot);

	/* acquire: an EXITED state publishes the thread's last commits */
	si->state = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	si->gen = __atomic_load_n(&s->gen, __ATOMIC_RELAXED);
	si->pid = __atomic_load_n(&s->pid, __ATOMIC_RELAXED);
	si->tid = __atomic_load_n(&s->tid, __ATOMIC_RELAXED);
}

int ft_rb_slot_reap(struct ft_rb_area *a, uint32_t slot)
{
	uint32_t exp = FT_RB_ACTIVE;

	if (slot >= a->nr_slots)
		return -1;
	return __atomic_compare_exchange_n(&ft_rb_slot_at(a, slot)->state, &exp, FT_RB_EXITED, 0,
					   __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)
		       ? 0
		       : -1;
}

/*
 * Fold a ring's counters into the area's retired totals and reset it
 * (recorder only, the ring's writer gone or moved away; published by the
 * caller's later release).
 */
static void fold_ring(struct ft_rb_area *a, struct ft_rb_ring *r)
{
	uint64_t wp = r->wpage;

	a->retired_written +=
		r->written + *ft_rb_nev_at(a, r->first_page, (uint32_t)(wp % r->npages));
	a->retired_lost_new += r->lost_new;
	a->retired_lost_old += r->lost_old;
	a->retired_pages_old += r->pages_old;
	r->wpage = 0;
	r->rpage = 0;
	r->lost_new = 0;
	r->lost_old = 0;
	r->pages_old = 0;
	r->r_lost_seen = 0;
	r->r_next = 0;
	r->r_pages_seen = 0;
	r->written = 0;
}

int ft_rb_slot_recycle(struct ft_rb_area *a, uint32_t slot)
{
	struct ft_rb_slot *s;
	char *base;
	size_t len;

	if (slot >= a->nr_slots)
		return -1;
	s = ft_rb_slot_at(a, slot);
	if (__atomic_load_n(&s->state, __ATOMIC_ACQUIRE) != FT_RB_EXITED)
		return -1;
	for (uint32_t set = 0; set < FT_RB_SETS; set++)
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
			fold_ring(a, ring_checked(a, slot, set, l));
	memset(ft_rb_nev_at(a, s->ring[0].first_page, 0), 0, (size_t)a->pages_per_slot * 4);
	memset(s->entered, 0, sizeof(s->entered));
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELAXED);
	base = (char *)ft_rb_page_at(a, s->ring[0].first_page, 0);
	len = (size_t)a->pages_per_slot * a->page_size;
	/*
	 * Give the memory back (shared tmpfs/memfd mapping: the pages read as
	 * zeros afterwards, in every process).  Elsewhere (tests on private
	 * memory) clear what a new claimer could mistake for data: the header
	 * of every page.
	 */
	if (madvise(base, len, MADV_REMOVE)) {
		for (uint32_t i = 0; i < a->pages_per_slot; i++)
			memset(base + (size_t)i * a->page_size, 0, sizeof(struct ft_page));
	}
	s->pid = 0;
	s->tid = 0;
	s->gen++;
	/* release: the reset above is visible to the next claimer's acquire CAS */
	__atomic_store_n(&s->state, FT_RB_FREE, __ATOMIC_RELEASE);
	return 0;
}

void ft_rb_area_totals(struct ft_rb_area *a, struct ft_rb_totals *tot)
{
	memset(tot, 0, sizeof(*tot));
	tot->written = a->retired_written;
	tot->lost_new = a->retired_lost_new;
	tot->lost_old = a->retired_lost_old;
	tot->pages_old = a->retired_pages_old;
	for (uint32_t i = 0; i < a->nr_slots * FT_RB_SETS; i++) {
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
			struct ft_rb_ring *r = ring_checked(a, i / FT_RB_SETS, i % FT_RB_SETS, l);
			uint64_t wp;

			if (!r)
				continue;
			wp = __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);

			tot->written += __atomic_load_n(&r->written, __ATOMIC_RELAXED) +
					__atomic_load_n(ft_rb_nev_at(a, r->first_page,
								     (uint32_t)(wp % r->npages)),
							__ATOMIC_RELAXED);
			tot->lost_new += __atomic_load_n(&r->lost_new, __ATOMIC_RELAXED);
			tot->lost_old += __atomic_load_n(&r->lost_old, __ATOMIC_RELAXED);
			tot->pages_old += __atomic_load_n(&r->pages_old, __ATOMIC_RELAXED);
		}
	}
	tot->lost_noslot = __atomic_load_n(&a->lost_noslot, __ATOMIC_RELAXED);
	tot->lost_nest = __atomic_load_n(&a->lost_nest, __ATOMIC_RELAXED);
	tot->lost = tot->lost_new + tot->lost_old + tot->lost_noslot + tot->lost_nest;
	tot->claims = __atomic_load_n(&a->claims, __ATOMIC_RELAXED);
	tot->claim_fails = __atomic_load_n(&a->claim_fails, __ATOMIC_RELAXED);
	tot->block_waits = __atomic_load_n(&a->block_waits, __ATOMIC_RELAXED);
	tot->block_timeouts = __atomic_load_n(&a->block_timeouts, __ATOMIC_RELAXED);
	tot->block_wait_ns = __atomic_load_n(&a->block_wait_ns, __ATOMIC_RELAXED);
}

void ft_rb_wait(struct ft_rb_area *a, int timeout_ms)
{
	struct timespec ts = { timeout_ms / 1000, (long)(timeout_ms % 1000) * 1000000L };
	uint32_t seq = __atomic_load_n(&a->wake_seq, __ATOMIC_ACQUIRE);

	/*
	 * seq_cst store then futex wait on the value read before: a writer
	 * that bumps wake_seq after our load makes the wait return at once;
	 * one that checked `waiting` before our store does not wake us and we
	 * sleep at most timeout_ms (the poll interval) -- never lose data,
	 * only latency.  Not a private futex: the word is in shared memory.
	 */
	__atomic_store_n(&a->waiting, 1, __ATOMIC_SEQ_CST);
	/* a writer waits for room (blocking mode): drain again now */
	if (!__atomic_load_n(&a->space_waiters, __ATOMIC_SEQ_CST))
		futex(&a->wake_seq, FUTEX_WAIT, seq, &ts);
	__atomic_store_n(&a->waiting, 0, __ATOMIC_RELAXED);
}

void ft_rb_wake(struct ft_rb_area *a)
{
	/* one wake per sleep: whoever swaps waiting 1 -> 0 makes the system call */
	if (__atomic_exchange_n(&a->waiting, 0, __ATOMIC_ACQ_REL)) {
		__atomic_fetch_add(&a->wake_seq, 1, __ATOMIC_RELEASE);
		futex(&a->wake_seq, FUTEX_WAKE, INT_MAX, NULL);
	}
}

void ft_rb_reader_alive(struct ft_rb_area *a)
{
	/* relaxed: a hint for writers, who look at it before each wait */
	if (__atomic_load_n(&a->block_off, __ATOMIC_RELAXED))
		__atomic_store_n(&a->block_off, 0, __ATOMIC_RELAXED);
}

void ft_rb_reader_done(struct ft_rb_area *a)
{
	__atomic_store_n(&a->block_off, 1, __ATOMIC_SEQ_CST);
	/* waiters look at block_off after their futex wait returns */
	__atomic_fetch_add(&a->space_seq, 1, __ATOMIC_SEQ_CST);
	futex(&a->space_seq, FUTEX_WAKE, INT_MAX, NULL);
}

int ft_rb_page_walk(const struct ft_page *pg, size_t len, ft_rb_rec_fn fn, void *arg)
{
	const uint32_t *w = (const uint32_t *)(pg + 1);
	uint64_t ts = pg->ts;
	uint32_t n, i = 0;

	if (len < sizeof(*pg) || pg->size > len - sizeof(*pg) || (pg->size & 3))
		return -1;
	n = pg->size / 4;
	while (i < n) {
		uint32_t k = ft_rec_kind(w[i]), nw;

		switch (k) {
		case FT_REC_ENTRY:
			nw = 1;
			ts += ft_rec_edelta(w[i]);
			break;
		case FT_REC_EXIT:
			nw = 1;
			ts += ft_rec_xdelta(w[i]);
			break;
		case FT_REC_FUNC:
			nw = 2;
			ts += ft_rec_edelta(w[i]);
			break;
		default:
			nw = 1 + ft_ext_words(w[i]);
			if (i + nw > n)
				return -1;
			if (ft_ext_type(w[i]) == FT_EXT_TIME && nw >= 3)
				memcpy(&ts, &w[i + 1], 8);
			else if (ft_ext_type(w[i]) == FT_EXT_TDELTA)
				ts += ft_ext_tdelta(w[i]);
			else if (ft_ext_type(w[i]) == FT_EXT_EXIT_LONG && nw >= 3) {
				uint64_t d;

				memcpy(&d, &w[i + 1], 8);
				ts += d;
			}
			break;
		}
		if (i + nw > n)
			return -1;
		if (fn) {
			int r = fn(&w[i], nw, ts, arg);

			if (r)
				return r;
		}
		i += nw;
	}
	return 0;
}

/* ------------------------------------------------------------------ */
/* snapshot: the spare ring set (ringbuf.h, "Snapshot")                */

int ft_rb_snapshot_state(struct ft_rb_area *a)
{
	return (int)__atomic_load_n(&a->snap_state, __ATOMIC_ACQUIRE);
}

int ft_rb_snapshot_alloc(struct ft_rb_area *a)
{
	uint32_t exp = FT_RB_SNAP_FREE;

	__atomic_store_n(&a->snap_free_req, 0, __ATOMIC_RELAXED);
	/*
	 * The spare set is reset (area init, or the recorder's reset after a
	 * save / a free): acq_rel publishes nothing new, it only orders this
	 * claim with the recorder's release of FREE.  Already allocated: 0.
	 */
	__atomic_compare_exchange_n(&a->snap_state, &exp, FT_RB_SNAP_READY, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	return 0;
}

int ft_rb_snapshot_swap(struct ft_rb_area *a, uint64_t now)
{
	uint32_t exp = FT_RB_SNAP_READY, g;

	/*
	 * acquire: pairs with the recorder's release of READY, after it reset
	 * the spare set (the rings writers are about to enter).  One swapper
	 * wins; the others see SWAPPING/SAVING and are refused.
	 */
	if (!__atomic_compare_exchange_n(&a->snap_state, &exp, FT_RB_SNAP_SWAPPING, 0,
					 __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (exp == FT_RB_SNAP_FREE) {
			__atomic_fetch_add(&a->snap_missed, 1, __ATOMIC_RELAXED);
			return -ENOENT;
		}
		__atomic_fetch_add(&a->snap_skipped, 1, __ATOMIC_RELAXED);
		return -EBUSY;
	}
	__atomic_store_n(&a->snap_ts, now, __ATOMIC_RELAXED);
	g = __atomic_load_n(&a->snap_gen, __ATOMIC_RELAXED);
	/*
	 * release: the reset spare (acquired above) and snap_ts are visible to
	 * a writer that acquires the new generation.  From here on writers
	 * move to the other set at their next begin; none waits.
	 */
	__atomic_store_n(&a->snap_gen, g + 1, __ATOMIC_RELEASE);
	__atomic_fetch_add(&a->snap_swaps, 1, __ATOMIC_RELAXED);
	/* release: the recorder that acquires SAVING sees the new generation */
	__atomic_store_n(&a->snap_state, FT_RB_SNAP_SAVING, __ATOMIC_RELEASE);
	if (__atomic_load_n(&a->waiting, __ATOMIC_RELAXED))
		ft_rb_wake(a);
	return 0;
}

int ft_rb_snapshot_free(struct ft_rb_area *a)
{
	uint32_t exp = FT_RB_SNAP_READY;

	/* a save in progress finishes first, then ft_rb_snapshot_saved frees */
	__atomic_store_n(&a->snap_free_req, 1, __ATOMIC_RELEASE);
	__atomic_compare_exchange_n(&a->snap_state, &exp, FT_RB_SNAP_FREE, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
	return 0;
}

void ft_rb_snapshot_clear(struct ft_rb_area *a)
{
	__atomic_fetch_add(&a->snap_clear_req, 1, __ATOMIC_RELEASE);
	if (__atomic_load_n(&a->waiting, __ATOMIC_RELAXED))
		ft_rb_wake(a);
}

void ft_rb_snapshot_quiesce(void)
{
	static int cmd = -1;

	/*
	 * MEMBARRIER_CMD_GLOBAL: every running thread of every process passes
	 * a full memory barrier before this returns -- the writers' half of
	 * the Dekker pair in ft_rb__enter.  Where the kernel lacks it, wait:
	 * a store buffer drains in far less than a millisecond (best effort,
	 * documented).
	 */
	if (cmd < 0) {
		long q = syscall(SYS_membarrier, MEMBARRIER_CMD_QUERY, 0);

		cmd = q > 0 && (q & MEMBARRIER_CMD_GLOBAL) ? MEMBARRIER_CMD_GLOBAL : 0;
	}
	if (!cmd || syscall(SYS_membarrier, cmd, 0)) {
		struct timespec ts = { 0, 2000000 };

		nanosleep(&ts, NULL);
	}
}

int ft_rb_ring_frozen(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level)
{
	struct ft_rb_slot *s;
	uint32_t g = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE), st;

	if (slot >= a->nr_slots || level >= FT_RB_LEVELS || set >= FT_RB_SETS)
		return 1;
	if ((g & 1) == set)
		return 0; /* the live set: never frozen */
	s = ft_rb_slot_at(a, slot);
	/* acquire: EXITED publishes the thread's last commits (detach's release) */
	st = __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
	if (st != FT_RB_ACTIVE)
		return 1;
	/* acquire: pairs with the release in ft_rb__switch_set / attach */
	if (__atomic_load_n(&s->entered[set ^ 1][level], __ATOMIC_ACQUIRE) == g)
		return 1;
	/*
	 * acquire: pairs with the release of busy at the end of a write.  A
	 * depth <= level means no write at this level is in progress, and
	 * (after ft_rb_snapshot_quiesce) every later one loads the new
	 * generation and goes to the live set.
	 */
	return __atomic_load_n(&s->busy, __ATOMIC_ACQUIRE) <= level;
}

void ft_rb_snap_range(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level,
		      uint64_t *first, uint64_t *last)
{
	struct ft_rb_ring *r = ring_checked(a, slot, set, level);
	uint64_t wp;

	*first = 1;
	*last = 0;
	if (!r)
		return;
	/* every page still in the ring, consumed or not: what the buffer held */
	wp = __atomic_load_n(&r->wpage, __ATOMIC_ACQUIRE);
	*first = wp + 1 >= r->npages ? wp + 1 - r->npages : 0;
	*last = wp;
}

void ft_rb_ring_reset(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level)
{
	struct ft_rb_ring *r = ring_checked(a, slot, set, level);

	if (!r)
		return;
	fold_ring(a, r);
	memset(ft_rb_nev_at(a, r->first_page, 0), 0, (size_t)r->npages * 4);
	/* the page headers a new writer or reader could mistake for data */
	for (uint32_t i = 0; i < r->npages; i++)
		memset(ft_rb_page_at(a, r->first_page, i), 0, sizeof(struct ft_page));
}

void ft_rb_snapshot_saved(struct ft_rb_area *a)
{
	uint32_t exp = FT_RB_SNAP_SAVING;
	uint32_t to = __atomic_load_n(&a->snap_free_req, __ATOMIC_ACQUIRE) ? FT_RB_SNAP_FREE
									   : FT_RB_SNAP_READY;

	/*
	 * release: the reset of the old set (now the spare) happens-before a
	 * swapper's acquire of READY, hence before any writer enters it.
	 */
	__atomic_compare_exchange_n(&a->snap_state, &exp, to, 0, __ATOMIC_ACQ_REL,
				    __ATOMIC_ACQUIRE);
}

void ft_rb_spare_release(struct ft_rb_area *a)
{
	uint32_t spare = (__atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1) ^ 1;
	uint32_t half = a->pages_per_slot / FT_RB_SETS;

	for (uint32_t i = 0; i < a->nr_slots; i++) {
		char *base = (char *)ft_rb_page_at(a, i * a->pages_per_slot + spare * half, 0);

		/* reset rings read as zeros afterwards; private memory keeps its (reset) headers */
		madvise(base, (size_t)half * a->page_size, MADV_REMOVE);
	}
}
