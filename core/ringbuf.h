/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space ring buffer: per-thread, lock-free, in shared memory.
 *
 * The injected runtime writes records (record.h) into it; the recorder, in
 * another process, drains it into the trace file.  It lives in the ring area
 * of the session block (session.h: hdr.ring_off / hdr.ring_size), so a crash
 * of the traced program loses nothing that was committed.  The area holds no
 * pointers, only offsets: every process maps it at its own address.
 *
 * The design (shape, page switch, blocking mode, memory budget, slot life,
 * snapshot) is described in doc/ringbuf-design.md; the modes and the
 * meaning of lost counts in doc/ringbuf.md.
 *
 * Concurrency rules in one place (each barrier is also commented in code):
 *   - ft_page.size:  writer release-stores after writing the record bytes;
 *                    readers acquire-load it before copying [0, size).
 *   - nev[page]:     the page's event count, kept there only (no TLS
 *                    mirror): its one writer (the level) relaxed-loads and
 *                    relaxed-stores it before size's release; readers read
 *                    it after acquiring size.
 *   - ring.wpage:    writer release-stores after finishing the old page
 *                    (its final size and nev) and initialising the new
 *                    page's header; readers acquire-load it.
 *   - ring.rpage:    reader acquire-CAS to take BUSY, release-store to give
 *                    the page back; the writer acquire-loads / acq_rel-CASes
 *                    it before reusing a physical page.
 *   - slot.state:    CAS with acq_rel both ways; the recorder's release of
 *                    FREE publishes the reset rings to the next claimer.
 *   - snap_gen:      swapper release-stores after claiming READY (which the
 *                    recorder released after resetting the spare); writers
 *                    acquire-load it at every begin, after storing busy.
 *   - slot.busy /    writer: relaxed store at begin, release at end;
 *     entered[][]:   release at a set switch.  The recorder acquires them
 *                    after membarrier (ft_rb__enter explains the Dekker pair).
 *   - nesting:       ft_rb_thread.nest is thread-local; signal fences order
 *                    it against the ring accesses for a handler that runs
 *                    on the same thread.
 *   struct ft_rb_thread and the ft_rb_wlevel in it are private to one
 *   thread (and its signal handlers, through the nesting rule).
 */
#ifndef FTRAIL_RINGBUF_H
#define FTRAIL_RINGBUF_H

#include <stddef.h>
#include <stdint.h>
#include <stdatomic.h>

#include "core/barrier.h"
#include "core/record.h"

#define FT_RB_MAGIC 0x42525446u /* "FTRB" */
#define FT_RB_VERSION 4
#define FT_RB_LEVELS 4
#define FT_RB_SETS 2 /* live + spare ring set per slot (snapshot) */
#define FT_RB_PAGE_MIN 1024u
#define FT_RB_PAGE_MAX 65536u
#define FT_RB_PAGE_DEFAULT 4096u
#define FT_RB_DEFAULT_KB 1024u /* level-0 buffer per thread when -b is not given */
#define FT_RB_MAX_SLOTS 4096u

#define FT_RB_BUSY 1ull

enum ft_rb_slot_state {
	FT_RB_FREE = 0,
	FT_RB_ACTIVE = 1,
	FT_RB_EXITED = 2,
};

#define FT_RB_F_OVERWRITE 0x1u /* area.flags: overwrite mode (else producer/consumer) */
#define FT_RB_F_BLOCK                                                                              \
	0x2u			     /* area.flags: producer/consumer writers wait for room
				* (bounded by area.block_ms); ignored in overwrite mode */
#define FT_RB_BLOCK_MS_DEFAULT 1000u /* longest wait without the reader making progress */

/* What ft_rb_area_init lays out. */
struct ft_rb_params {
	uint32_t page_size; /* bytes, header included; power of 2 in [PAGE_MIN, PAGE_MAX] */
	uint32_t npages[FT_RB_LEVELS]; /* pages per ring, per level, each >= 2 */
	uint32_t nr_slots;	       /* threads that can trace at once, <= FT_RB_MAX_SLOTS */
	uint32_t flags;		       /* FT_RB_F_* */
	uint32_t block_ms;	       /* FT_RB_F_BLOCK: drop (counted) after this long without the
			       * reader freeing a page; 0 = FT_RB_BLOCK_MS_DEFAULT */
};

/*
 * One ring's shared control (one per slot and level); 80 bytes.
 * Who writes what: W = the ring's writer, R = the consuming reader.
 */
struct ft_rb_ring {
	uint64_t wpage;	       /* W (release): page number being written */
	uint64_t rpage;	       /* R (CAS/release), W (CAS, overwrite mode): rnum<<1 | BUSY */
	uint64_t lost_new;     /* W (relaxed store): events dropped, newest (no page free) */
	uint64_t lost_old;     /* W (relaxed store): events in pages overwritten unread */
	uint64_t pages_old;    /* W (release store, after lost_old): pages overwritten unread */
	uint64_t r_lost_seen;  /* R only (under BUSY): lost_old already attributed to a page */
	uint64_t r_next;       /* R only (under BUSY): the page after the last one consumed */
	uint64_t r_pages_seen; /* R only (under BUSY): pages_old when it was consumed */
	uint64_t written; /* W (relaxed store, at page switch): events committed in pages < wpage */
	uint32_t first_page; /* set at init: index of the ring's first page in the page region */
	uint32_t npages;     /* set at init */
};

struct ft_rb_slot {
	uint32_t state;	    /* enum ft_rb_slot_state; CAS acq_rel */
	uint32_t gen;	    /* recycles of this slot (recorder, before FREE) */
	uint32_t pid;	    /* claimer's tgid: relaxed store right after the claim, 0 until then */
	uint32_t tid;	    /* claimer's tid: same */
	uint64_t nest_lost; /* atomic add (thread + handlers): events nested too deep, not
			      * yet shown; the recorder takes them (exchange) into a page */
	uint32_t busy;	    /* W: writes in progress on this thread (its nesting depth):
			      * relaxed store at begin, release store at end (Snapshot) */
	uint32_t pad;
	uint32_t entered[FT_RB_SETS][FT_RB_LEVELS]; /* W (release): the snap_gen with which
			      * the writer of that level entered that set's ring */
	struct ft_rb_ring ring[FT_RB_LEVELS];	    /* set 0 */
	struct ft_rb_ring sring[FT_RB_LEVELS];	    /* set 1 */
};

static inline struct ft_rb_ring *ft_rb_slot_ring(struct ft_rb_slot *s, uint32_t set, uint32_t level)
{
	return set ? &s->sring[level] : &s->ring[level];
}

/* Header at offset 0 of the ring area. */
struct ft_rb_area {
	uint32_t magic; /* FT_RB_MAGIC */
	uint32_t version;
	uint32_t page_size;
	uint32_t nr_slots;
	uint32_t npages[FT_RB_LEVELS];
	uint32_t pages_per_slot;
	uint32_t flags; /* FT_RB_F_*; may be changed while running (relaxed; read at page switch) */
	uint64_t slots_off; /* offsets from the area start */
	uint64_t nev_off; /* u32 per page: events committed in it (W relaxed, before size release) */
	uint64_t pages_off;  /* 4096-aligned */
	uint64_t size;	     /* total bytes */
	uint32_t claim_hint; /* atomic: where the next claim starts looking */
	uint32_t wake_seq;   /* futex word: bumped by a writer to wake the recorder */
	uint32_t waiting;    /* 1 while the recorder sleeps in ft_rb_wait() */
	uint32_t pad0;
	uint64_t lost_noslot; /* atomic add: events of threads that got no slot */
	uint64_t lost_nest;   /* atomic add: events nested deeper than FT_RB_LEVELS */
	uint64_t claims;      /* atomic add: slots claimed over the run (threads seen) */
	uint64_t claim_fails; /* atomic add: threads that found no free slot */
	/* counters of recycled slots' rings, folded in by the recorder (R only) */
	uint64_t retired_written;
	uint64_t retired_lost_new;
	uint64_t retired_lost_old;
	uint64_t retired_pages_old;

	/*
	 * Snapshot (see "Snapshot" above).  snap_gen is loaded by every
	 * writer at every begin: a line of its own, written once per swap.
	 */
	uint32_t snap_gen __attribute__((aligned(64))); /* swaps so far; live set = snap_gen & 1 */
	uint32_t pad1[15];
	uint32_t snap_state;	 /* enum ft_rb_snap_state: CAS (any process) */
	uint32_t snap_free_req;	 /* 1: free once the snapshot being saved is saved */
	uint32_t snap_clear_req; /* atomic add: clears asked (the recorder records them) */
	uint32_t pad2;
	uint64_t snap_ts;      /* clock of the last swap (stored before snap_gen) */
	uint64_t snap_swaps;   /* atomic add: swaps done */
	uint64_t snap_missed;  /* atomic add: swap asked while not allocated */
	uint64_t snap_skipped; /* atomic add: swap asked while the last one was being saved */

	/*
	 * Blocking mode (FT_RB_F_BLOCK; "Blocking mode" above).  A line of
	 * its own: writers touch it only when their ring is full.
	 */
	uint32_t space_seq __attribute__((aligned(64))); /* futex word: bumped by the
			       * reader after freeing pages while space_waiters != 0 */
	uint32_t space_waiters;	 /* atomic add/sub: writers about to sleep on space_seq */
	uint32_t block_ms;	 /* set at init (params.block_ms) */
	uint32_t block_off;	 /* 1: a wait timed out (or the reader has finished):
			         * writers drop instead of waiting; the reader's next
			         * pass (ft_rb_reader_alive) clears it */
	uint64_t block_waits;	 /* atomic add: page switches that had to wait */
	uint64_t block_timeouts; /* atomic add: waits that gave up (their event dropped) */
	uint64_t block_wait_ns;	 /* atomic add: time writers spent waiting */
};

/*
 * Snapshot states (area.snap_state):
 *   FREE    no spare: a swap is a miss
 *   READY   spare set reset and unused: a swap may flip
 *   SWAPPING a swapper owns the flip (transient)
 *   SAVING  flipped; the recorder freezes, saves and resets the old set,
 *           then READY (or FREE when a free was asked meanwhile)
 */
enum ft_rb_snap_state {
	FT_RB_SNAP_FREE = 0,
	FT_RB_SNAP_READY = 1,
	FT_RB_SNAP_SWAPPING = 2,
	FT_RB_SNAP_SAVING = 3,
};

/* Writer-side per-level state, thread-local in the runtime. */
struct ft_rb_wlevel {
	struct ft_page *page; /* current page, NULL before the first write */
	uint32_t *nev;	      /* its nev[] word */
	struct ft_rb_ring *ring;
	uint64_t wpage;	       /* mirror of ring->wpage */
	uint64_t last_ts;      /* time of the previous record in the page */
	uint64_t pending_lost; /* dropped since the current page started */
	uint32_t off;	       /* committed bytes of records (mirror of page->size) */
	uint32_t lim;	       /* room: a word fits at off while off < lim (the page's
				* record capacity; 0 without a page): ft_rb__set_page */
	uint32_t depth;	       /* function_graph depth (entry/exit helpers keep it) */
	uint32_t level;
	uint32_t gen; /* area.snap_gen when `ring` was entered (set = gen & 1) */
	uint32_t pad;
};

/*
 * Per-thread writer handle.  The runtime keeps one in TLS (initial-exec TLS
 * or anything a signal handler may touch), zero-initialised.
 */
struct ft_rb_thread {
	struct ft_rb_area *area; /* NULL: not attached (every write is a no-op) */
	struct ft_rb_slot *slot; /* NULL when no slot was free: writes counted lost */
	uint32_t slot_idx;
	uint32_t gen;
	uint32_t pid, tid;
	uint32_t nest; /* writes in progress on this thread (nesting level) */
	uint32_t pad;
	struct ft_rb_wlevel lv[FT_RB_LEVELS];
};

/* ---- layout (tool side) ---- */

/*
 * Fill p from a per-thread buffer size in KiB (0: FT_RB_DEFAULT_KB) and the
 * overwrite flag: page size 4096 (1024 for buffers under 16 KiB), level 0
 * gets buffer_kb worth of pages (at least 2), levels 1..3 an eighth of it
 * (at least 2), and as many slots as fit 2 GiB, at least 8 and at most
 * 1024.  nr_slots may be changed by the caller afterwards (<=
 * FT_RB_MAX_SLOTS).
 */
void ft_rb_params_default(struct ft_rb_params *p, unsigned int buffer_kb, int overwrite);

/* Bytes of the ring area for p (a multiple of 4096); 0 when p is invalid. */
size_t ft_rb_area_size(const struct ft_rb_params *p);

/*
 * Format mem (len >= ft_rb_area_size(p), zero-filled) as an empty area.
 * Returns the area, or NULL (errno EINVAL) when p is invalid or len short.
 */
struct ft_rb_area *ft_rb_area_init(void *mem, size_t len, const struct ft_rb_params *p);

/*
 * Check a formatted area (any process): magic, version, and that every
 * offset and size stays within len.  Returns the area or NULL (EINVAL).
 */
struct ft_rb_area *ft_rb_area_attach(void *mem, size_t len);

/* Switch overwrite mode on or off while running (takes effect per page). */
void ft_rb_area_set_overwrite(struct ft_rb_area *a, int on);

static inline struct ft_rb_slot *ft_rb_slot_at(struct ft_rb_area *a, uint32_t i)
{
	return (struct ft_rb_slot *)((char *)a + a->slots_off) + i;
}

static inline struct ft_page *ft_rb_page_at(struct ft_rb_area *a, uint32_t ring_first, uint32_t idx)
{
	return (struct ft_page *)((char *)a + a->pages_off +
				  (uint64_t)(ring_first + idx) * a->page_size);
}

static inline uint32_t *ft_rb_nev_at(struct ft_rb_area *a, uint32_t ring_first, uint32_t idx)
{
	return (uint32_t *)((char *)a + a->nev_off) + ring_first + idx;
}

static inline uint64_t ft_rb_buf_id(uint32_t slot, uint32_t level, uint32_t gen)
{
	return (uint64_t)gen << 32 | (uint64_t)slot << 2 | level;
}
static inline uint32_t ft_rb_id_slot(uint64_t id)
{
	return (uint32_t)id >> 2;
}
static inline uint32_t ft_rb_id_level(uint64_t id)
{
	return (uint32_t)id & 3u;
}
static inline uint32_t ft_rb_id_gen(uint64_t id)
{
	return (uint32_t)(id >> 32);
}

/* ---- writer side (runtime) ---- */

/*
 * Claim a slot for the calling thread.  t must be zeroed (or forgotten).
 * Lock-free; no system call.  Returns 0, or -1 when every slot is taken: t
 * stays attached to the area with slot NULL, and its writes are counted in
 * area->lost_noslot.  Async-signal-safe, and safe against a handler on the
 * same thread that writes through t meanwhile (t->slot is published last;
 * the handler's event is counted lost).  Not reentrant for one t: a
 * handler must not attach the t whose attach it interrupted (one slot would
 * stay claimed until the recorder sees the thread die).
 */
int ft_rb_thread_attach(struct ft_rb_thread *t, struct ft_rb_area *a, uint32_t pid, uint32_t tid);

/*
 * Thread exit: hand the slot to the recorder (ACTIVE -> EXITED, release:
 * publishes every commit) and wake it.  t is zeroed (t->slot first, so a
 * handler that writes meanwhile is counted lost).  Safe to call twice.
 */
void ft_rb_thread_detach(struct ft_rb_thread *t);

/*
 * In a forked child: drop the parent's slot from t without touching the
 * slot (the parent thread still owns it), then zero t.  Attach again after.
 */
void ft_rb_thread_forget(struct ft_rb_thread *t);

/*
 * After exec (runtime init in a new image): mark every ACTIVE slot whose
 * pid is pid as EXITED -- those threads died with the old image.  Call it
 * before the new image's first attach.  Returns the number reaped.
 */
unsigned int ft_rb_area_reap_pid(struct ft_rb_area *a, uint32_t pid);

/* Slow paths behind the inline writers below (ringbuf.c). */
int ft_rb__new_page(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint64_t now);
void ft_rb__lost_nolevel(struct ft_rb_thread *t, uint32_t n);
void ft_rb__switch_set(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint32_t gen);

/*
 * The writer's half of the snapshot protocol, shared by ft_rb_begin() and
 * any hand-written fast path (runtime/hooks.c): with t->nest already
 * incremented to depth, publish depth in slot.busy, THEN load snap_gen; a
 * level whose ring belongs to an older generation moves to the live set
 * before writing.
 *
 * Ordering (the swap is in ringbuf.c, ft_rb_snapshot_swap/_quiesce):
 *   writer:   busy = depth (relaxed) ; gen = snap_gen (acquire) ; write ;
 *             busy = depth - 1 (release)
 *   swapper:  snap_gen++ (release) ; snap_state = SAVING (release)
 *   recorder: acquire SAVING ; membarrier(GLOBAL) ; acquire busy
 * The store->load pair on each side is the Dekker pattern; the writer has
 * no fence (its fast path stays fence-free), the recorder's membarrier
 * supplies it for every thread on the system (the asymmetric-fence idiom
 * of liburcu): a writer that still loaded the old generation stored busy
 * before that load, so the recorder sees busy >= level + 1 until that
 * write ends (the release store of busy publishes its commits).  The
 * compiler barriers keep the same order against a signal handler of this
 * thread.  Returns 1 when the level had to switch sets (nothing for the
 * caller to do: w is ready for a new page).
 */
static inline int ft_rb__enter(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint32_t depth)
{
	uint32_t g;

	__atomic_store_n(&t->slot->busy, depth, __ATOMIC_RELAXED);
	ft_barrier();
	/* acquire: pairs with the swapper's release of snap_gen (the reset spare rings) */
	g = __atomic_load_n(&t->area->snap_gen, __ATOMIC_ACQUIRE);
	if (__builtin_expect(g != w->gen, 0)) {
		ft_rb__switch_set(t, w, g);
		return 1;
	}
	return 0;
}

/* The end of a write at nesting depth (t->nest already decremented to it). */
static inline void ft_rb__leave(struct ft_rb_thread *t, uint32_t depth)
{
	struct ft_rb_slot *s = t->slot;

	ft_barrier();
	/* release: every commit of the write happens-before a recorder that acquires busy */
	if (s)
		__atomic_store_n(&s->busy, depth, __ATOMIC_RELEASE);
}

/*
 * Begin a write: returns the level to write at, or NULL when the event is
 * lost (no slot, or nesting deeper than FT_RB_LEVELS; counted).  Must be
 * paired with ft_rb_end() unless NULL is returned.  Everything between begin
 * and end is async-signal-safe and lock-free.
 */
static inline struct ft_rb_wlevel *ft_rb_begin(struct ft_rb_thread *t)
{
	uint32_t n = t->nest;

	if (__builtin_expect(!t->slot || n >= FT_RB_LEVELS, 0)) {
		if (t->area)
			ft_rb__lost_nolevel(t, 1);
		return NULL;
	}
	t->nest = n + 1;
	/*
	 * A signal handler that runs from here on sees nest = n + 1 and
	 * writes at the next level; the fence keeps the compiler from moving
	 * our ring accesses above the increment (same thread: a signal fence
	 * is enough).  busy is stored after the increment: a handler between
	 * the two stores its own depth and restores n + 1 on its way out.
	 */
	ft_barrier();
	ft_rb__enter(t, &t->lv[n], n + 1);
	return &t->lv[n];
}

static inline void ft_rb_end(struct ft_rb_thread *t)
{
	/* the ring accesses stay before the decrement, for a handler's sake */
	ft_barrier();
	t->nest--;
	/* busy after the decrement: a handler in between leaves busy = nest itself */
	ft_rb__leave(t, t->nest);
}

/*
 * Reserve room for a record of nwords 32-bit words whose first word holds
 * a time delta of at most dmax (FT_REC_EDELTA_MAX for ENTRY/FUNC,
 * FT_REC_XDELTA_MAX for EXIT, 0 for an EXT record that carries its own
 * time, UINT64_MAX for one that takes the previous record's time).  When
 * the delta since the previous record does not fit, an FT_EXT_TDELTA word
 * (up to FT_REC_TDELTA_MAX ticks) or an FT_EXT_TIME record (3 words) is
 * written first and *delta is 0.
 * Starts a new page when needed.  Returns where to write the nwords words,
 * or NULL when the event is lost (counted; nothing to commit).
 */
static inline uint32_t *ft_rb_reserve(struct ft_rb_thread *t, struct ft_rb_wlevel *w, uint64_t now,
				      uint32_t nwords, uint64_t dmax, uint32_t *delta)
{
	uint64_t d = now - w->last_ts;
	/* one TDELTA word covers up to ~1.4 ms; beyond, an absolute time */
	uint32_t extra = d <= dmax ? 0 : d <= FT_REC_TDELTA_MAX ? 1 : 3;
	uint32_t cap = t->area->page_size - (uint32_t)sizeof(struct ft_page);
	uint32_t *p;

	*delta = 0;
	if (__builtin_expect(!w->page || w->off + (nwords + extra) * 4 > cap, 0)) {
		if (ft_rb__new_page(t, w, now))
			return NULL;
		d = 0; /* a new page's ts is now */
		extra = 0;
		if (nwords * 4 > cap)
			return NULL; /* cannot happen for records <= ft_rb_max_words() */
	}
	p = (uint32_t *)(w->page + 1) + w->off / 4;
	if (extra == 1) {
		p[0] = ft_rec_tdelta((uint32_t)d);
		p += 1;
		w->off += 4; /* published by the commit's release store */
		d = 0;
	} else if (extra) {
		p[0] = ft_rec_ext(FT_EXT_TIME, 2, 0);
		__builtin_memcpy(&p[1], &now, 8);
		p += 3;
		w->off += 12; /* published by the commit's release store */
		d = 0;
	}
	w->last_ts = now;
	*delta = (uint32_t)d;
	return p;
}

/*
 * Publish nwords words written at the pointer ft_rb_reserve() returned, as
 * nevents events (1 for a record; 0 for an attachment such as a stack id
 * written on its own).  One relaxed store of the page's event count, one
 * release store of the page's committed size: a reader that acquires the
 * size sees every byte below it.
 */
static inline void ft_rb_commit(struct ft_rb_wlevel *w, uint32_t nwords, uint32_t nevents)
{
	w->off += nwords * 4;
	/* the event count lives in the page's nev word only: this thread is its one writer */
	__atomic_store_n(w->nev, __atomic_load_n(w->nev, __ATOMIC_RELAXED) + nevents,
			 __ATOMIC_RELAXED); /* ordered by the release below */
	__atomic_store_n(&w->page->size, w->off, __ATOMIC_RELEASE);
}

/* Largest record (in words, FT_EXT_TIME prefix included) a page holds. */
static inline uint32_t ft_rb_max_words(const struct ft_rb_area *a)
{
	return (a->page_size - (uint32_t)sizeof(struct ft_page)) / 4 - 3;
}

/* ---- record helpers (one event each; all async-signal-safe) ---- */

/* function_graph entry of fid at time now.  Returns 0, or -1 if lost. */
static inline int ft_rb_entry(struct ft_rb_thread *t, uint32_t fid, uint64_t now)
{
	struct ft_rb_wlevel *w = ft_rb_begin(t);
	uint32_t *p, d;
	int ret = -1;

	if (!w)
		return -1;
	if (__builtin_expect(fid <= FT_REC_FID_MAX, 1)) {
		p = ft_rb_reserve(t, w, now, 1, FT_REC_EDELTA_MAX, &d);
		if (p) {
			p[0] = ft_rec_entry(fid, d);
			ft_rb_commit(w, 1, 1);
			ret = 0;
		}
	} else {
		p = ft_rb_reserve(t, w, now, 2, 0, &d);
		if (p) {
			p[0] = ft_rec_ext(FT_EXT_ENTRY_LONG, 1, 0);
			p[1] = fid;
			ft_rb_commit(w, 2, 1);
			ret = 0;
		}
	}
	w->depth++; /* the call happened even if its record was lost */
	ft_rb_end(t);
	return ret;
}

/* function_graph exit of the innermost open entry.  0, or -1 if lost. */
static inline int ft_rb_exit(struct ft_rb_thread *t, uint64_t now)
{
	struct ft_rb_wlevel *w = ft_rb_begin(t);
	uint32_t *p, d;
	int ret = -1;

	if (!w)
		return -1;
	p = ft_rb_reserve(t, w, now, 1, FT_REC_XDELTA_MAX, &d);
	if (p) {
		p[0] = ft_rec_exit(d);
		ft_rb_commit(w, 1, 1);
		ret = 0;
	}
	if (w->depth)
		w->depth--;
	ft_rb_end(t);
	return ret;
}

/*
 * function tracer record: fid called from parent_fid1 (parent's fid + 1, or
 * 0 with parent_addr the raw return address).  0, or -1 if lost.
 */
static inline int ft_rb_func(struct ft_rb_thread *t, uint32_t fid, uint32_t parent_fid1,
			     uint64_t parent_addr, uint64_t now)
{
	struct ft_rb_wlevel *w = ft_rb_begin(t);
	uint32_t *p, d, n;
	int ret = -1;

	if (!w)
		return -1;
	n = parent_fid1 ? 0 : 3; /* FT_EXT_PARENT_ADDR attachment */
	if (__builtin_expect(fid <= FT_REC_FID_MAX, 1)) {
		p = ft_rb_reserve(t, w, now, 2 + n, FT_REC_EDELTA_MAX, &d);
		if (p) {
			p[0] = ft_rec_func(fid, d);
			p[1] = parent_fid1;
		}
	} else {
		p = ft_rb_reserve(t, w, now, 3 + n, 0, &d);
		if (p) {
			p[0] = ft_rec_ext(FT_EXT_FUNC_LONG, 2, 0);
			p[1] = fid;
			p[2] = parent_fid1;
			p++;
		}
	}
	if (p) {
		if (n) {
			p[2] = ft_rec_ext(FT_EXT_PARENT_ADDR, 2, 0);
			__builtin_memcpy(&p[3], &parent_addr, 8);
		}
		ft_rb_commit(w, (uint32_t)(fid <= FT_REC_FID_MAX ? 2 : 3) + n, 1);
		ret = 0;
	}
	ft_rb_end(t);
	return ret;
}

/*
 * An FT_EXT_* record with a payload of len bytes (padded to words; the pad
 * count goes in the header).  with_time: the record carries its own time
 * (an FT_EXT_TIME precedes it when now differs from the previous record);
 * otherwise it takes the previous record's time.  nevents: 1 for an event,
 * 0 for an attachment.  Returns 0, or -1 if lost or longer than a page.
 */
int ft_rb_ext(struct ft_rb_thread *t, uint32_t type, const void *payload, uint32_t len,
	      uint64_t now, int with_time, uint32_t nevents);

/*
 * function_graph entry of fid (exit: of the innermost open entry) at now,
 * followed by an FT_EXT_* attachment of len payload bytes (FT_EXT_ARGS /
 * FT_EXT_RETVAL): both are reserved at once, so they land in one page and
 * a reader finds the attachment right after its record.  One event.  The
 * depth moves as ft_rb_entry() / ft_rb_exit() move it.  Returns 0, or -1
 * if lost (the payload longer than a page loses the whole event).
 * Async-signal-safe.
 */
int ft_rb_entry_ext(struct ft_rb_thread *t, uint32_t fid, uint64_t now, uint32_t type,
		    const void *payload, uint32_t len);
int ft_rb_exit_ext(struct ft_rb_thread *t, uint64_t now, uint32_t type, const void *payload,
		   uint32_t len);

/*
 * Count n events the caller could not write (its own overflow, e.g. a full
 * shadow stack): they go to the current level's lost_new, and show where
 * they happened as an FT_EXT_LOST record (or, when the page is full or not
 * started, in the next page's ft_page.lost).  Without a slot, or too deep,
 * they count as area.lost_noslot / lost_nest.  Async-signal-safe.
 */
void ft_rb_count_lost(struct ft_rb_thread *t, uint32_t n);

/* Set the function_graph depth of the current level (after longjmp etc.). */
static inline void ft_rb_set_depth(struct ft_rb_thread *t, uint32_t depth)
{
	if (t->slot && t->nest < FT_RB_LEVELS)
		t->lv[t->nest].depth = depth;
}

/* ---- reader side (recorder; one consumer per ring at a time) ---- */

struct ft_rb_pageinfo {
	uint64_t buf_id;  /* ft_rb_buf_id(slot, level, gen) */
	uint64_t number;  /* page number */
	uint32_t len;	  /* bytes copied: sizeof(struct ft_page) + page.size */
	uint32_t nev;	  /* events in the page */
	uint32_t lost;	  /* copy's ft_page.lost: dropped before it, incl. overwritten pages */
	uint32_t partial; /* 1: the page was still being written (final read) */
};

/*
 * Consume the oldest unread page of ring (slot, level) into dst
 * (page_size bytes): the header (with lost set as in info) and the
 * committed records.  With final = 0 only complete pages are taken; with
 * final = 1 the page being written is taken too -- call that only when the
 * writer can no longer write (thread exited, process dead), or accept that
 * records committed after the copy are neither read nor counted.  Complete
 * pages with no records are consumed and skipped; the page being written
 * is left in place while it holds nothing (its writer may not have started
 * it yet).  Returns 1 (page in dst), 0 (nothing to read).  Lock-free
 * against the writer; never waits.
 */
int ft_rb_consume(struct ft_rb_area *a, uint32_t slot, uint32_t level, int final, void *dst,
		  struct ft_rb_pageinfo *info);

/*
 * Non-consuming read (ftrace's "trace" file): copy page number `number` of
 * ring (slot, level) if it is still in the ring, checking afterwards that
 * the writer did not reuse it during the copy (page seq recheck).  Returns
 * 1, 0 (not or no longer there, or torn).  The page range worth asking for
 * is [*first, *last] from ft_rb_peek_range (empty when first > last).
 * The copy of a page the writer is reusing at that moment is discarded,
 * never returned; meant for quiescent or best-effort live views.
 */
void ft_rb_peek_range(struct ft_rb_area *a, uint32_t slot, uint32_t level, uint64_t *first,
		      uint64_t *last);
int ft_rb_peek(struct ft_rb_area *a, uint32_t slot, uint32_t level, uint64_t number, void *dst,
	       struct ft_rb_pageinfo *info);

/* Snapshot of a slot for the recorder. */
struct ft_rb_slotinfo {
	uint32_t state, gen, pid, tid;
};
void ft_rb_slot_info(struct ft_rb_area *a, uint32_t slot, struct ft_rb_slotinfo *si);

/* Recorder: mark an ACTIVE slot EXITED (its thread is known dead).  0 or -1. */
int ft_rb_slot_reap(struct ft_rb_area *a, uint32_t slot);

/*
 * Recorder: after draining every page of an EXITED slot with final = 1,
 * reset its rings, release its memory (MADV_REMOVE on the pages), gen++,
 * and make it FREE (release).  Returns 0, or -1 when the slot is not EXITED.
 */
int ft_rb_slot_recycle(struct ft_rb_area *a, uint32_t slot);

/* Totals over the area (consistent once writers are gone). */
struct ft_rb_totals {
	uint64_t written; /* events committed in complete pages (+ partial pages: see below) */
	uint64_t lost_new;
	uint64_t lost_old;
	uint64_t pages_old;
	uint64_t lost_noslot;
	uint64_t lost_nest;
	uint64_t lost; /* sum of the four lost counters */
	uint64_t claims;
	uint64_t claim_fails;
	uint64_t block_waits;	 /* blocking mode: page switches that waited */
	uint64_t block_timeouts; /* ... waits that gave up (their event is in lost_new) */
	uint64_t block_wait_ns;	 /* ... time spent waiting, all writers */
};
void ft_rb_area_totals(struct ft_rb_area *a, struct ft_rb_totals *tot);

/*
 * Recorder: sleep until a writer asks for a drain (a ring half full), a
 * thread exits, or timeout_ms passes.  Writers wake it with one futex wake
 * at most per sleep (a system call on the page-switch slow path only).
 */
void ft_rb_wait(struct ft_rb_area *a, int timeout_ms);
void ft_rb_wake(struct ft_rb_area *a);

/*
 * Reader: it is alive and draining (call once per pass): writers of a
 * blocking-mode area may wait again after a timeout (clears block_off).
 */
void ft_rb_reader_alive(struct ft_rb_area *a);

/*
 * Reader: it will drain no more; writers of a blocking-mode area drop (and
 * count) instead of waiting, and those waiting now stop waiting.
 */
void ft_rb_reader_done(struct ft_rb_area *a);

/* ---- snapshot (ftrace's spare buffer; see doc/ringbuf-design.md) ---- */

/* FT_RB_SNAP_* of the area (acquire). */
int ft_rb_snapshot_state(struct ft_rb_area *a);

/*
 * Allocate the spare set (FREE -> READY).  The spare rings live in the area
 * from the start (address space only: shared-memory pages are allocated when
 * first written), so allocation cannot fail: returns 0, also when already
 * allocated.  Any process.
 */
int ft_rb_snapshot_alloc(struct ft_rb_area *a);

/*
 * Swap live and spare without stopping anyone: 0 swapped (now = the swap's
 * clock, stored in snap_ts), -ENOENT no spare (counted in snap_missed),
 * -EBUSY the previous snapshot is still being saved by the recorder
 * (counted in snap_skipped).  Lock-free, no system call: callable from a
 * traced thread (trigger) or a signal handler.  Any process.
 */
int ft_rb_snapshot_swap(struct ft_rb_area *a, uint64_t now);

/*
 * Free the spare: READY -> FREE (the recorder gives its pages back), or,
 * while a snapshot is being saved, FREE once saved.  0.  Any process.
 */
int ft_rb_snapshot_free(struct ft_rb_area *a);

/* Ask the recorder to clear the snapshot (an empty one replaces it).  Any process. */
void ft_rb_snapshot_clear(struct ft_rb_area *a);

/*
 * Recorder side.  After observing SAVING (ft_rb_snapshot_state), call
 * ft_rb_snapshot_quiesce() once: the system-wide memory barrier that makes
 * slot.busy trustworthy (see ft_rb__enter).  Then, for each ring of the old
 * set (set = (snap_gen & 1) ^ 1), ft_rb_ring_frozen() says when its writer
 * can no longer write there; copy it (ft_rb_snap_range + ft_rb_peek_set),
 * drain it (ft_rb_consume_set, final = 1), reset it (ft_rb_ring_reset), and
 * when every ring is done call ft_rb_snapshot_saved().
 */
void ft_rb_snapshot_quiesce(void);
/*
 * Does ring (slot, set, level) still hold a page not consumed (complete, or
 * partial with records)?  A reader that drains sets one by one must not
 * take the live set's pages while the other set has some: right after a
 * swap the other set's last page is older than anything in the live set.
 */
int ft_rb_ring_unread(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level);
int ft_rb_ring_frozen(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level);
void ft_rb_snap_range(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level,
		      uint64_t *first, uint64_t *last);
int ft_rb_peek_set(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level,
		   uint64_t number, void *dst, struct ft_rb_pageinfo *info);
int ft_rb_consume_set(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level, int final,
		      void *dst, struct ft_rb_pageinfo *info);
void ft_rb_ring_reset(struct ft_rb_area *a, uint32_t slot, uint32_t set, uint32_t level);
/* SAVING -> READY, or -> FREE (pages given back) when a free was asked. */
void ft_rb_snapshot_saved(struct ft_rb_area *a);

/*
 * Recorder, with the snapshot FREE and the spare set reset: give the spare
 * set's shared-memory pages back to the system (MADV_REMOVE).
 */
void ft_rb_spare_release(struct ft_rb_area *a);

/*
 * Events per record walk, for readers: call fn for every record of a page
 * copy (header validated: size within len, record lengths within size)
 * with its absolute time.  Returns 0, or -1 when the page is malformed.
 */
typedef int (*ft_rb_rec_fn)(const uint32_t *rec, uint32_t nwords, uint64_t ts, void *arg);
int ft_rb_page_walk(const struct ft_page *pg, size_t len, ft_rb_rec_fn fn, void *arg);

#endif
