// SPDX-License-Identifier: GPL-2.0
/*
 * The stack map (seed 003's ftrace_stackmap, after the kernel's tracing_map
 * and Cliff Click's non-blocking hash table), in one flat block of memory.
 *
 * Layout of the block (offsets, never pointers, so another process can map
 * it at another address):
 *
 *   +--------------------------+ 0
 *   | header: geometry, seed,  |  read-mostly: written by init and
 *   | hash keys (528 B),       |  (resetting, readers) by reset and
 *   | resetting, readers       |  walks only
 *   +--------------------------+ 576
 *   | next_elt (own line)      |
 *   +--------------------------+ 640
 *   | shards[64] (64 B each):  |  per-thread counters (a thread-local
 *   |  served, drops           |  index picks one): successes and
 *   |                          |  in-flight callers packed in `served`
 *   +--------------------------+ SLOTS_OFF
 *   | slots[2^(bits+1)]:       |  the hash table: key (0 = free) and
 *   |  key u32, val u32        |  val = element index + 1 (0 = none yet)
 *   +--------------------------+ ELTS_OFF
 *   | elts[2^bits] (520 B):    |  the element pool: one stack each
 *   |  nr, ref, ips[64]        |
 *   +--------------------------+ mem_size(bits)
 *
 * get_id (the hot path, any thread, also a signal handler that interrupted
 * get_id on the same thread):
 *
 *   enter   served += 1 (seq_cst)          -- "I am in flight"
 *           resetting? -> leave, -EINVAL
 *   hash    32-bit key, 0 forced to 1; first slot = top bits of the key
 *   probe   at most FT_STACKMAP_MAX_PROBE slots:
 *             key == ours:  val published (acquire)?  full compare -> hit,
 *                           ref += 1; else (being filled, claimed-but-empty,
 *                           or another stack with the same key) go on
 *             key == 0:     claim it with cmpxchg; take an element from the
 *                           pool (fetch_add on next_elt), fill it, publish
 *                           val (release).  No element left: the slot stays
 *                           "claimed but empty" (a key cannot be given back
 *                           without racing other claimers) and it is a drop.
 *                           Lost the cmpxchg: go on -- if the winner inserts
 *                           the same stack we may insert a duplicate, which
 *                           is tolerated (waiting for the winner could
 *                           deadlock: the winner may be the very code this
 *                           signal handler interrupted).
 *   leave   served += (1 success - 1 in flight) (release), or drops += 1
 *
 * Nothing on this path allocates, locks, or calls the kernel; every loop is
 * bounded (probe limit, memcmp of at most 64 words).  All atomics are
 * lock-free (static assertions below): an emulated atomic would take a lock,
 * and a signal handler interrupting its holder would deadlock, the reason
 * seed 003 uses local_t rather than atomic64_t.
 *
 * stack_id = slot index, as in the seed: stable for the life of the stack,
 * below 2^19, and lookup is one array access.
 *
 * Reset (control path, tracing stopped) without RCU: every get_id counts
 * itself in flight in its thread's shard before it reads `resetting`;
 * reset sets `resetting` and then waits until every shard (all of them,
 * whichever thread or process uses which) has no caller in flight.
 * Both sides are seq_cst (a store followed by a load of the other's
 * variable, Dekker's pattern), so either reset sees the caller's count and
 * waits for it, or the caller sees `resetting` and leaves without touching
 * the map.  A caller that never leaves (its process died inside get_id)
 * makes reset give up after FT_STACKMAP_DRAIN_MS with -EBUSY.
 *
 * Readers (for_each, export, write_text) run in any process while inserts
 * go on and see a best-effort snapshot: a slot is visible once its val is
 * published, and everything in the element was written before that
 * release.  Against reset they play the part of the seed's reader_sem,
 * without a lock: a reader counts itself in `readers` (seq_cst RMW) and
 * then checks `resetting`; reset, once it owns `resetting`, also waits for
 * `readers` to drop to 0.  So a walk never sees a cleared or refilled
 * element: a reader that comes during a reset gets -EBUSY, and a reset
 * that comes during a walk waits for it (up to FT_STACKMAP_DRAIN_MS).
 * Readers therefore need the block mapped writable.  lookup() and stat
 * take no part: lookup's pointer is valid until the next reset, and the
 * counters are statistics.
 */
#include "core/stackmap.h"
#include "core/hash.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <inttypes.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stack map needs lock-free 32-bit atomics");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the stack map needs lock-free 64-bit atomics");
_Static_assert(FT_HASH_MAX_WORDS >= FT_STACKMAP_MAX_DEPTH, "the hash keys cover every frame");

#define SHM_MAGIC 0x4D535446u /* "FTSM" */
#define SHM_VERSION 1
#define SHARD_BITS 6
#define NR_SHARDS (1u << SHARD_BITS)
/*
 * shard.served packs two counters so that leaving get_id is one atomic
 * add: bits 0..19 count callers in flight, bits 20..63 count successes
 * (2^44 per shard before it wraps: days at 100 M stacks/s).
 */
#define INFLIGHT_BITS 20
#define INFLIGHT_MASK ((1ull << INFLIGHT_BITS) - 1)
#define ONE_SUCCESS (1ull << INFLIGHT_BITS)

/* One cache line per shard (the block is 64-byte aligned, see layout). */
struct shard {
	_Atomic uint64_t served; /* successes << INFLIGHT_BITS | in flight */
	_Atomic uint64_t drops;
	char pad[48];
};
_Static_assert(sizeof(struct shard) == 64, "a shard fills one cache line");

struct slot {
	_Atomic uint32_t key; /* 0 = free; else the stack's hash, never 0 */
	_Atomic uint32_t val; /* 0 = not published; else element index + 1 */
};

struct elt {
	uint32_t nr;	      /* written before val's release, then constant */
	_Atomic uint32_t ref; /* successes served by this stack */
	uint64_t ips[FT_STACKMAP_MAX_DEPTH];
};

struct ft_stackmap_shared {
	/* Geometry: written by init before the block is shared, then constant. */
	uint32_t magic;
	uint32_t version;
	uint32_t bits;
	uint32_t table_size; /* 2^(bits+1) */
	uint32_t max_elts;   /* 2^bits */
	uint32_t nr_shards;
	uint64_t seed;		      /* per-instance random hash seed */
	uint64_t size;		      /* bytes of the block */
	uint64_t keys[FT_HASH_NKEYS]; /* ft_hash_stack's keys, from seed */
	/* Read by every get_id; written only by reset. */
	_Atomic uint32_t resetting; /* 1 while a reset owns the map */
	/* Walks in progress (control path). */
	_Atomic uint32_t readers;
	/*
	 * Pool cursor, on a line of its own so inserts do not bounce the line
	 * that every get_id reads `resetting` from.  May run past max_elts by
	 * the number of racing callers; readers clamp.
	 */
	alignas(64) _Atomic uint32_t next_elt;
	alignas(64) struct shard shards[NR_SHARDS];
	/* slots[table_size] then elts[max_elts] follow */
};

#define SLOTS_OFF sizeof(struct ft_stackmap_shared)
_Static_assert(offsetof(struct ft_stackmap_shared, next_elt) == 576, "layout drawn above");
_Static_assert(SLOTS_OFF == 640 + 64 * 64, "layout drawn above");

static size_t elts_off(unsigned int bits)
{
	return SLOTS_OFF + sizeof(struct slot) * ((size_t)2 << bits);
}

static inline struct slot *slots_of(const struct ft_stackmap_shared *m)
{
	return (struct slot *)((char *)m + SLOTS_OFF);
}

static inline struct elt *elts_of(const struct ft_stackmap_shared *m)
{
	return (struct elt *)((char *)m + elts_off(m->bits));
}

unsigned int ft_stackmap_clamp_bits(unsigned int bits)
{
	if (bits == 0)
		return FT_STACKMAP_BITS_DEFAULT;
	if (bits < FT_STACKMAP_BITS_MIN)
		return FT_STACKMAP_BITS_MIN;
	if (bits > FT_STACKMAP_BITS_MAX)
		return FT_STACKMAP_BITS_MAX;
	return bits;
}

size_t ft_stackmap_mem_size(unsigned int bits)
{
	bits = ft_stackmap_clamp_bits(bits);
	return elts_off(bits) + sizeof(struct elt) * ((size_t)1 << bits);
}

static uint64_t random_seed(const void *salt)
{
	uint64_t seed = 0;
	struct timespec ts;

	if (getrandom(&seed, sizeof(seed), GRND_NONBLOCK) == sizeof(seed))
		return seed;
	/* No entropy yet (early boot): still differ per instance and run. */
	clock_gettime(CLOCK_MONOTONIC, &ts);
	seed = (uint64_t)ts.tv_nsec ^ ((uint64_t)ts.tv_sec << 32) ^ (uintptr_t)salt;
	return ft_mum(seed ^ FT_HASH_P0, FT_HASH_P1);
}

/*
 * Format mem as an empty map.  Only the header, the shards and the slots
 * are cleared: an element is written in full before it is published, so
 * the (large) pool is never touched here and stays lazily paged.
 */
int ft_stackmap_init(struct ft_stackmap *h, void *mem, size_t len, unsigned int bits)
{
	struct ft_stackmap_shared *m = mem;

	bits = ft_stackmap_clamp_bits(bits);
	if (!h || !mem || ((uintptr_t)mem & 63) || len < ft_stackmap_mem_size(bits))
		return -EINVAL;
	memset(m, 0, elts_off(bits));
	m->magic = SHM_MAGIC;
	m->version = SHM_VERSION;
	m->bits = bits;
	m->table_size = 2u << bits;
	m->max_elts = 1u << bits;
	m->nr_shards = NR_SHARDS;
	m->seed = random_seed(m);
	ft_hash_keys(m->keys, m->seed);
	m->size = ft_stackmap_mem_size(bits);
	/*
	 * Whoever shares the block with other threads or processes after this
	 * (a release store of a pointer, a thread or process creation) makes
	 * this geometry visible before any get_id runs on it.
	 */
	h->shm = m;
	h->hash_hook = NULL;
	h->hash_hook_arg = NULL;
	return 0;
}

/* Check a block formatted elsewhere; never trusts its sizes beyond len. */
int ft_stackmap_attach(struct ft_stackmap *h, void *mem, size_t len)
{
	const struct ft_stackmap_shared *m = mem;

	if (!h || !mem || ((uintptr_t)mem & 63) || len < sizeof(*m))
		return -EINVAL;
	if (m->magic != SHM_MAGIC || m->version != SHM_VERSION || m->bits < FT_STACKMAP_BITS_MIN ||
	    m->bits > FT_STACKMAP_BITS_MAX || m->table_size != (2u << m->bits) ||
	    m->max_elts != (1u << m->bits) || m->nr_shards != NR_SHARDS ||
	    m->size != ft_stackmap_mem_size(m->bits) || len < m->size)
		return -EINVAL;
	h->shm = mem;
	h->hash_hook = NULL;
	h->hash_hook_arg = NULL;
	return 0;
}

struct ft_stackmap *ft_stackmap_create(unsigned int bits)
{
	struct ft_stackmap *h = calloc(1, sizeof(*h));
	size_t len = ft_stackmap_mem_size(bits);
	void *mem;

	if (!h)
		return NULL;
	mem = aligned_alloc(64, (len + 63) & ~(size_t)63);
	if (!mem || ft_stackmap_init(h, mem, len, bits)) {
		free(mem);
		free(h);
		return NULL;
	}
	return h;
}

void ft_stackmap_destroy(struct ft_stackmap *h)
{
	if (!h)
		return;
	free(h->shm);
	free(h);
}

uint32_t ft_stackmap_hash(const struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	if (nr > FT_STACKMAP_MAX_DEPTH)
		nr = FT_STACKMAP_MAX_DEPTH;
	if (__builtin_expect(h->hash_hook != NULL, 0))
		return h->hash_hook(ips, nr, h->hash_hook_arg);
	return ft_hash_stack(ips, nr, h->shm->keys);
}

/*
 * The caller's counter shard: one per thread, not per stack.
 *
 * Each thread takes an index, round-robin from a process-wide cursor, the
 * first time it calls get_id, and keeps it in static TLS.  initial-exec:
 * the map is linked into the ftrail tool and into libftrail.so, which is
 * LD_PRELOADed (never dlopen'ed), so the variable lives in the static TLS
 * block that the loader allocates with the thread.  Reading it is an
 * %fs-relative load (in libftrail.so after one GOT load of its offset):
 * no __tls_get_addr, no lazy allocation (which could call malloc, unsafe
 * in a signal handler), no system call.  Shards are
 * 64 bytes apart (one cache line each, struct shard), so threads with
 * distinct indexes never write the same line; the first NR_SHARDS threads
 * of a process get distinct indexes, later ones wrap.
 *
 * A shard is not owned by one thread: threads past NR_SHARDS, and threads
 * of other processes that share the block (the cursor is per process; a
 * forked child inherits its parent's cursor and its forking thread's
 * index), may land on the same shard.  So
 * every update of a shard stays an atomic read-modify-write.  That also
 * covers a signal handler that interrupts get_id on the same thread: it
 * uses the same shard, and a relaxed atomic add is still one indivisible
 * RMW (one `lock xadd`/`lock add` on x86), which a signal cannot split; a
 * plain `x++` (load, add, store) would lose the handler's increment if the
 * signal landed between the load and the store.
 *
 * Lazy assignment and signals: if a handler interrupts the first call
 * between the load of tls_shard and the store below, both pick an index
 * and the later store wins; each get_id uses the shard it picked for both
 * its enter and its leave (the pointer is kept in a local), so the counts
 * stay balanced whichever index the thread keeps.  tls_shard is an atomic
 * accessed relaxed only because a handler may write it; it is thread-
 * private, so it orders nothing.
 */
static __thread _Atomic uint32_t tls_shard __attribute__((tls_model("initial-exec")));
static _Atomic uint32_t shard_cursor; /* next index to hand out, mod NR_SHARDS */

static inline struct shard *pick_shard(struct ft_stackmap_shared *m)
{
	uint32_t i = atomic_load_explicit(&tls_shard, memory_order_relaxed);

	if (__builtin_expect(i == 0, 0)) {
		/* Relaxed: the index only spreads threads; it publishes nothing. */
		i = atomic_fetch_add_explicit(&shard_cursor, 1, memory_order_relaxed);
		i = i % NR_SHARDS + 1;
		atomic_store_explicit(&tls_shard, i, memory_order_relaxed);
	}
	return &m->shards[i - 1]; /* 0 means "not assigned yet" */
}

/*
 * Take an element from the pool, or -1 when it is exhausted.  The plain
 * read first keeps callers off the contended fetch_add once the pool is
 * full (the seed's early-out).  fetch_add may carry next_elt past
 * max_elts by the number of racing callers; readers clamp.  Relaxed: the
 * index only has to be unique; the element's contents are published by
 * the release store of slot.val.
 */
static inline int64_t get_elt(struct ft_stackmap_shared *m)
{
	uint32_t i;

	if (atomic_load_explicit(&m->next_elt, memory_order_relaxed) >= m->max_elts)
		return -1;
	i = atomic_fetch_add_explicit(&m->next_elt, 1, memory_order_relaxed);
	return i < m->max_elts ? (int64_t)i : -1;
}

int ft_stackmap_get_id(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	struct ft_stackmap_shared *m = h->shm;
	struct slot *slots;
	struct shard *sh;
	uint32_t key, idx, mask, probe;
	int64_t ei;

	if (__builtin_expect(nr == 0, 0))
		return -EINVAL;
	if (nr > FT_STACKMAP_MAX_DEPTH)
		nr = FT_STACKMAP_MAX_DEPTH;

	sh = pick_shard(m);
	/*
	 * Enter: count ourselves in flight, then look at `resetting`.  Both
	 * seq_cst: this RMW and the load below pair with reset's seq_cst
	 * cmpxchg of `resetting` and its seq_cst loads of `served`, so the
	 * two cannot both miss each other (store->load ordering, which
	 * acquire/release alone does not give).  On x86 the RMW is one
	 * `lock xadd` either way.
	 */
	atomic_fetch_add_explicit(&sh->served, 1, memory_order_seq_cst);
	if (__builtin_expect(atomic_load_explicit(&m->resetting, memory_order_seq_cst), 0)) {
		/* Release: our (absent) map accesses are done before reset sees 0. */
		atomic_fetch_sub_explicit(&sh->served, 1, memory_order_release);
		return -EINVAL;
	}

	key = ft_stackmap_hash(h, ips, nr);
	if (!key)
		key = 1; /* 0 marks a free slot */
	mask = m->table_size - 1;
	idx = key >> (31 - m->bits); /* top bits+1 bits of the key */
	slots = slots_of(m);

	for (probe = 0; probe < FT_STACKMAP_MAX_PROBE; probe++, idx = (idx + 1) & mask) {
		struct slot *s = &slots[idx];
		/*
		 * Relaxed: the key carries no data; it only says which stack
		 * may live here.  What we dereference is published by val.
		 */
		uint32_t k = atomic_load_explicit(&s->key, memory_order_relaxed);

		if (k == key) {
			/*
			 * Acquire pairs with the inserter's release store of
			 * val: e->nr and e->ips are complete once val is seen.
			 */
			uint32_t v = atomic_load_explicit(&s->val, memory_order_acquire);
			struct elt *e;

			if (!v)
				continue; /* being filled, or claimed but empty */
			e = &elts_of(m)[v - 1];
			/* Full compare (glibc's vector memcmp measured faster than an inline loop).
			 */
			if (e->nr != nr || memcmp(e->ips, ips, nr * sizeof(*ips)))
				continue; /* another stack with the same key */
			/* Relaxed: a count, publishes nothing. */
			atomic_fetch_add_explicit(&e->ref, 1, memory_order_relaxed);
			goto served;
		}
		if (k != 0)
			continue;
		/*
		 * Free: claim it.  Relaxed on success and failure: the claim
		 * only decides who fills the slot; val publishes the fill.
		 */
		if (!atomic_compare_exchange_strong_explicit(&s->key, &k, key, memory_order_relaxed,
							     memory_order_relaxed))
			continue; /* someone else claimed it: duplicates tolerated */
		ei = get_elt(m);
		if (ei < 0)
			goto drop; /* the slot stays claimed but empty */
		{
			struct elt *e = &elts_of(m)[ei];

			e->nr = nr;
			atomic_store_explicit(&e->ref, 1, memory_order_relaxed);
			memcpy(e->ips, ips, nr * sizeof(*ips));
			/*
			 * Release: publishes nr, ref and ips above to every
			 * acquire load of val (get_id, lookup, for_each, and
			 * readers in other processes).
			 */
			atomic_store_explicit(&s->val, (uint32_t)ei + 1, memory_order_release);
		}
		goto served;
	}
drop:
	atomic_fetch_add_explicit(&sh->drops, 1, memory_order_relaxed);
	/* Release: our map accesses happen before reset sees us gone. */
	atomic_fetch_sub_explicit(&sh->served, 1, memory_order_release);
	return -ENOSPC;
served:
	/*
	 * One add: +1 success, -1 in flight.  Release pairs with reset's
	 * acquire load of `served`, so our map accesses happen before its
	 * clearing stores.
	 */
	atomic_fetch_add_explicit(&sh->served, ONE_SUCCESS - 1, memory_order_release);
	return (int)idx;
}

/* The published element of slot id, or NULL (free, being filled, empty). */
static const struct elt *slot_elt(const struct ft_stackmap_shared *m, uint32_t id)
{
	const struct slot *s;
	uint32_t v;

	if (id >= m->table_size)
		return NULL;
	s = &slots_of(m)[id];
	if (!atomic_load_explicit(&s->key, memory_order_relaxed))
		return NULL;
	/* Acquire pairs with get_id's release store of val. */
	v = atomic_load_explicit(&s->val, memory_order_acquire);
	if (!v || v > m->max_elts) /* bounds check: the block may be foreign */
		return NULL;
	return &elts_of(m)[v - 1];
}

static inline uint32_t clamp_nr(uint32_t nr)
{
	return nr > FT_STACKMAP_MAX_DEPTH ? FT_STACKMAP_MAX_DEPTH : nr;
}

int ft_stackmap_lookup(const struct ft_stackmap *h, uint32_t id, const uint64_t **ips, uint32_t *nr,
		       uint32_t *ref)
{
	const struct elt *e = slot_elt(h->shm, id);

	if (!e)
		return -ENOENT;
	if (ips)
		*ips = e->ips;
	if (nr)
		*nr = clamp_nr(e->nr);
	if (ref)
		*ref = atomic_load_explicit(&e->ref, memory_order_relaxed);
	return 0;
}

/*
 * Enter a walk: -EBUSY while a reset owns the map.  seq_cst RMW then
 * seq_cst load, the mirror of reset's cmpxchg of `resetting` then load of
 * `readers` (Dekker): either reset waits for us or we see it and leave.
 */
static int reader_enter(struct ft_stackmap_shared *m)
{
	atomic_fetch_add_explicit(&m->readers, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&m->resetting, memory_order_seq_cst)) {
		atomic_fetch_sub_explicit(&m->readers, 1, memory_order_release);
		return -EBUSY;
	}
	return 0;
}

/* Release: our element reads happen before reset's clearing (its acquire). */
static void reader_leave(struct ft_stackmap_shared *m)
{
	atomic_fetch_sub_explicit(&m->readers, 1, memory_order_release);
}

static int walk(const struct ft_stackmap_shared *m, ft_stackmap_iter_fn fn, void *arg)
{
	for (uint32_t id = 0; id < m->table_size; id++) {
		const struct elt *e = slot_elt(m, id);
		int ret;

		if (!e)
			continue;
		ret = fn(id, e->ips, clamp_nr(e->nr),
			 atomic_load_explicit(&e->ref, memory_order_relaxed), arg);
		if (ret)
			return ret;
	}
	return 0;
}

int ft_stackmap_for_each(const struct ft_stackmap *h, ft_stackmap_iter_fn fn, void *arg)
{
	int ret = reader_enter(h->shm);

	if (ret)
		return ret;
	ret = walk(h->shm, fn, arg);
	reader_leave(h->shm);
	return ret;
}

void ft_stackmap_get_stat(const struct ft_stackmap *h, struct ft_stackmap_stat *st)
{
	const struct ft_stackmap_shared *m = h->shm;
	const struct slot *slots = slots_of(m);
	uint32_t next, i;

	memset(st, 0, sizeof(*st));
	next = atomic_load_explicit(&m->next_elt, memory_order_relaxed);
	st->entries = next < m->max_elts ? next : m->max_elts;
	st->max_entries = m->max_elts;
	st->table_size = m->table_size;
	/* Relaxed: statistics, read while callers may still add to them. */
	for (i = 0; i < NR_SHARDS; i++) {
		st->successes += atomic_load_explicit(&m->shards[i].served, memory_order_relaxed) >>
				 INFLIGHT_BITS;
		st->drops += atomic_load_explicit(&m->shards[i].drops, memory_order_relaxed);
	}
	for (i = 0; i < m->table_size; i++)
		if (atomic_load_explicit(&slots[i].key, memory_order_relaxed) &&
		    !atomic_load_explicit(&slots[i].val, memory_order_relaxed))
			st->claimed_empty++;
}

int ft_stackmap_meta_lines(const struct ft_stackmap *h, const char *which, char *buf, size_t len)
{
	struct ft_stackmap_stat st;

	ft_stackmap_get_stat(h, &st);
	return snprintf(buf, len,
			"stackmap.%s.bits=%u\nstackmap.%s.successes=%llu\n"
			"stackmap.%s.drops=%llu\n",
			which, h->shm->bits, which, (unsigned long long)st.successes, which,
			(unsigned long long)st.drops);
}

/* Sleep a little while draining; 1 once FT_STACKMAP_DRAIN_MS have passed. */
static int drain_wait(const struct timespec *t0, unsigned int *spins)
{
	struct timespec nap = {0, 50 * 1000}, t;

	if (++*spins < 100) {
		sched_yield();
		return 0;
	}
	clock_gettime(CLOCK_MONOTONIC, &t);
	if ((t.tv_sec - t0->tv_sec) * 1000 + (t.tv_nsec - t0->tv_nsec) / 1000000 >=
	    FT_STACKMAP_DRAIN_MS)
		return 1;
	nanosleep(&nap, NULL);
	return 0;
}

/*
 * Wait until no get_id caller and no reader is in flight; -EBUSY after
 * FT_STACKMAP_DRAIN_MS.
 */
static int drain(struct ft_stackmap_shared *m)
{
	unsigned int i, spins = 0;
	struct timespec t0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	/* seq_cst and acquire, as for `served` below, paired with reader_enter/leave. */
	while (atomic_load_explicit(&m->readers, memory_order_seq_cst))
		if (drain_wait(&t0, &spins))
			return -EBUSY;
	/* Every shard: a caller counts itself in its thread's, whichever that is. */
	for (i = 0; i < NR_SHARDS; i++) {
		/*
		 * seq_cst: the load half of the Dekker pair (see get_id's
		 * enter).  It is also an acquire: it pairs with the release
		 * RMW with which a caller leaves, so that caller's map
		 * accesses happen before our clearing stores.
		 */
		while (atomic_load_explicit(&m->shards[i].served, memory_order_seq_cst) &
		       INFLIGHT_MASK)
			if (drain_wait(&t0, &spins))
				return -EBUSY;
	}
	return 0;
}

int ft_stackmap_reset(struct ft_stackmap *h)
{
	struct ft_stackmap_shared *m = h->shm;
	struct slot *slots = slots_of(m);
	uint32_t zero = 0, i;

	/*
	 * Claim the reset (seq_cst: the store half of the Dekker pair with
	 * get_id; also makes a concurrent reset fail).  From here on new
	 * get_id callers leave at once with -EINVAL.
	 */
	if (!atomic_compare_exchange_strong_explicit(&m->resetting, &zero, 1, memory_order_seq_cst,
						     memory_order_relaxed))
		return -EBUSY;
	/* Asked after the claim, as the seed does: the flag blocks inserts. */
	if ((h->tracing_is_on && h->tracing_is_on(h->arg)) || drain(m)) {
		atomic_store_explicit(&m->resetting, 0, memory_order_release);
		return -EBUSY;
	}

	/* Elements need no clearing: each is rewritten before it is published. */
	for (i = 0; i < m->table_size; i++) {
		atomic_store_explicit(&slots[i].val, 0, memory_order_relaxed);
		atomic_store_explicit(&slots[i].key, 0, memory_order_relaxed);
	}
	atomic_store_explicit(&m->next_elt, 0, memory_order_relaxed);
	for (i = 0; i < NR_SHARDS; i++) {
		/*
		 * Keep the in-flight bits: a caller turned away by
		 * `resetting` may still be between its +1 and its -1.
		 */
		atomic_fetch_and_explicit(&m->shards[i].served, INFLIGHT_MASK,
					  memory_order_relaxed);
		atomic_store_explicit(&m->shards[i].drops, 0, memory_order_relaxed);
	}

	/*
	 * Release pairs with get_id's load of `resetting` (seq_cst, so at
	 * least acquire): a caller that sees 0 sees every clearing store.
	 */
	atomic_store_explicit(&m->resetting, 0, memory_order_release);
	return 0;
}

struct text_ctx {
	FILE *f;
	ft_sym_resolve_fn res;
	void *arg;
};

/* One stack in the seed's stack_map shape. */
static int text_one(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct text_ctx *c = arg;
	char sym[512];

	fprintf(c->f, "stack_id %" PRIu32 " [ref %" PRIu32 ", depth %" PRIu32 "]\n", id, ref, nr);
	for (uint32_t i = 0; i < nr; i++) {
		if (c->res && c->res(ips[i], sym, sizeof(sym), c->arg) == 0)
			fprintf(c->f, "  [%" PRIu32 "] %s\n", i, sym);
		else
			fprintf(c->f, "  [%" PRIu32 "] 0x%" PRIx64 "\n", i, ips[i]);
	}
	fputc('\n', c->f);
	return 0;
}

/*
 * The seed's stack_map listing.  Prints nothing while a reset runs (a
 * reset waits for the listing, as the seed's reader_sem makes it).
 */
void ft_stackmap_write_text(const struct ft_stackmap *h, FILE *f, ft_sym_resolve_fn res, void *arg)
{
	struct text_ctx c = {f, res, arg};

	ft_stackmap_for_each(h, text_one, &c);
}

/* Print stat counters in the seed's stack_map_stat shape. */
static void write_stat(FILE *f, const struct ft_stackmap_stat *st)
{
	fprintf(f, "entries: %" PRIu32 " / %" PRIu32 "\n", st->entries, st->max_entries);
	fprintf(f, "table_size: %" PRIu32 "\n", st->table_size);
	fprintf(f, "successes: %" PRIu64 "\n", st->successes);
	fprintf(f, "drops: %" PRIu64 "\n", st->drops);
	/* The seed prints the rate only once something was counted. */
	if (st->successes + st->drops > 0)
		fprintf(f, "success_rate: %" PRIu64 "%%\n",
			st->successes * 100 / (st->successes + st->drops));
}

void ft_stackmap_write_stat(const struct ft_stackmap *h, FILE *f)
{
	struct ft_stackmap_stat st;

	ft_stackmap_get_stat(h, &st);
	write_stat(f, &st);
}

void ft_stackmap_write_stat_struct(const struct ft_stackmap_stat *st, FILE *f)
{
	write_stat(f, st);
}

struct bin_ctx {
	char *buf;
	size_t off, cap;
	uint32_t nr_stacks;
};

static int bin_one(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct bin_ctx *c = arg;
	struct ft_fsmb_entry e = {id, nr, ref, 0};

	/* Bounds check: stacks published after the count do not fit. */
	if (c->off + sizeof(e) + nr * sizeof(*ips) > c->cap)
		return 1;
	memcpy(c->buf + c->off, &e, sizeof(e));
	c->off += sizeof(e);
	memcpy(c->buf + c->off, ips, nr * sizeof(*ips));
	c->off += nr * sizeof(*ips);
	c->nr_stacks++;
	return 0;
}

static int count_one(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	*(size_t *)arg += sizeof(struct ft_fsmb_entry) + nr * sizeof(*ips);
	return 0;
}

/*
 * FSMB v2: header, then per published stack (id order) an entry and its
 * ips.  Sized by a first walk; stacks inserted between the two walks are
 * left out (the seed's best-effort snapshot).
 */
void *ft_stackmap_export_bin(const struct ft_stackmap *h, size_t *len)
{
	struct ft_fsmb_header hdr = {FT_FSMB_MAGIC, FT_FSMB_VERSION, 0, 0};
	struct bin_ctx c = {0};
	size_t need = 0;

	*len = 0;
	if (reader_enter(h->shm)) {
		errno = EBUSY;
		return NULL;
	}
	walk(h->shm, count_one, &need);
	c.cap = sizeof(hdr) + need;
	c.buf = malloc(c.cap);
	if (!c.buf) {
		reader_leave(h->shm);
		errno = ENOMEM;
		return NULL;
	}
	c.off = sizeof(hdr);
	walk(h->shm, bin_one, &c);
	reader_leave(h->shm);
	hdr.nr_stacks = c.nr_stacks;
	memcpy(c.buf, &hdr, sizeof(hdr));
	*len = c.off;
	return c.buf;
}

/* ---- FSMB reader ---- */

static inline uint32_t rd32(const unsigned char *p, int swap)
{
	uint32_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap32(v) : v;
}

static inline uint64_t rd64(const unsigned char *p, int swap)
{
	uint64_t v;

	memcpy(&v, p, sizeof(v));
	return swap ? __builtin_bswap64(v) : v;
}

/* Fill err with a one-line reason; returns -1. */
__attribute__((format(printf, 3, 4))) static int fsmb_fail(char *err, size_t errlen,
							   const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

#define fsmb_err(...) fsmb_fail(err, errlen, __VA_ARGS__)

/*
 * Validate and walk an FSMB v2 buffer.  Every count is checked against the
 * bytes left before it is used: nr_stacks against (len - 16) / 16, each nr
 * against FT_STACKMAP_MAX_DEPTH (the seed's writer clamps to 64) and the
 * bytes left, stack_id against the largest table (2^19 slots).  Trailing
 * bytes are an error: both writers produce exactly the records announced.
 * No allocation: ips are converted into a 64-entry stack buffer.
 */
int ft_fsmb_parse(const void *buf, size_t len, ft_stackmap_iter_fn fn, void *arg, char *err,
		  size_t errlen)
{
	const unsigned char *p = buf;
	uint64_t ips[FT_STACKMAP_MAX_DEPTH];
	uint32_t magic, version, nr_stacks, i, k;
	size_t off;
	int swap;

	if (err && errlen)
		err[0] = '\0';
	if (len < sizeof(struct ft_fsmb_header))
		return fsmb_err("truncated FSMB header (%zu of 16 bytes)", len);
	magic = rd32(p, 0);
	if (magic == FT_FSMB_MAGIC)
		swap = 0;
	else if (magic == __builtin_bswap32(FT_FSMB_MAGIC))
		swap = 1;
	else
		return fsmb_err("bad FSMB magic 0x%08" PRIx32 " (not a stack_map_bin)", magic);
	version = rd32(p + 4, swap);
	if (version != FT_FSMB_VERSION)
		return fsmb_err("unsupported FSMB version %" PRIu32 " (expected 2)", version);
	nr_stacks = rd32(p + 8, swap);
	if (nr_stacks > (len - sizeof(struct ft_fsmb_header)) / sizeof(struct ft_fsmb_entry))
		return fsmb_err("FSMB header announces %" PRIu32
				" stacks, more than %zu bytes can hold",
				nr_stacks, len);
	if (nr_stacks > (1u << FT_STACKMAP_BITS_MAX))
		return fsmb_err("FSMB announces %" PRIu32 " stacks (at most %u)", nr_stacks,
				1u << FT_STACKMAP_BITS_MAX);
	off = sizeof(struct ft_fsmb_header);
	for (i = 0; i < nr_stacks; i++) {
		uint32_t id, nr, ref;

		if (len - off < sizeof(struct ft_fsmb_entry))
			return fsmb_err("truncated FSMB: stack %" PRIu32 " of %" PRIu32
					" header at offset %zu",
					i, nr_stacks, off);
		id = rd32(p + off, swap);
		nr = rd32(p + off + 4, swap);
		ref = rd32(p + off + 8, swap);
		if (nr > FT_STACKMAP_MAX_DEPTH)
			return fsmb_err("FSMB stack %" PRIu32 " at offset %zu has depth %" PRIu32
					" (at most %d)",
					i, off, nr, FT_STACKMAP_MAX_DEPTH);
		if (id >= (2u << FT_STACKMAP_BITS_MAX))
			return fsmb_err("FSMB stack %" PRIu32 " at offset %zu has stack_id %" PRIu32
					" (out of range)",
					i, off, id);
		off += sizeof(struct ft_fsmb_entry);
		if ((len - off) / sizeof(uint64_t) < nr)
			return fsmb_err("truncated FSMB: stack %" PRIu32
					" needs %zu bytes at offset %zu, "
					"%zu left",
					i, nr * sizeof(uint64_t), off, len - off);
		for (k = 0; k < nr; k++)
			ips[k] = rd64(p + off + k * sizeof(uint64_t), swap);
		off += nr * sizeof(uint64_t);
		if (fn) {
			int ret = fn(id, ips, nr, ref, arg);

			if (ret)
				return ret < 0 ? fsmb_err("FSMB reader stopped (%d)", ret) : 0;
		}
	}
	if (off != len)
		return fsmb_err("%zu trailing bytes after %" PRIu32 " FSMB stacks", len - off,
				nr_stacks);
	return 0;
}
