// SPDX-License-Identifier: GPL-2.0
/*
 * The stack map (the proposed ftrace stack map, after the kernel's tracing_map
 * and Cliff Click's non-blocking hash table), in one flat block of memory.
 *
 * The block's layout and the walk through get_id are described in
 * doc/stackmap.md; what follows is the concurrency contract.
 *
 * Shards.  A thread claims a shard (cmpxchg of `owner`) at its first call
 * on a map and keeps it (thread-local cache of map -> shard) until
 * ft_stackmap_thread_detach().  Only the owner writes a shard's counters,
 * rc[] and pending with plain (relaxed load + store) updates; a signal
 * handler on the owner's thread is the only other writer.  Plain
 * load+store is not atomic against a signal landing in between, so the
 * nesting level decides: the outermost call (nest was 0) uses the plain
 * updates; a call that interrupted another (nest > 0) uses atomic
 * read-modify-writes on the nested_* counters and refs[] and never touches
 * rc[] or pending.  A handler that lands
 * before the outer call stored nest = 1 runs to completion as a level-0
 * call before the outer call touches anything.  Threads past NR_SHARDS get
 * no shard and use `ovf`: atomic counters, seq_cst enter, atomic refs[].
 *
 * Reset (control path, tracing stopped) without RCU, with asymmetric fences
 * as user-space RCU's membarrier flavour has them.  A caller stores its
 * nest (in flight) and then loads `resetting`; reset stores `resetting` and
 * then loads every nest.  That store->load pattern (Dekker's) needs a full
 * fence on both sides; the caller's side is paid by reset instead:
 * membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) makes every thread of every
 * registered process that is running execute a full barrier (and one that
 * is not running passes through the scheduler's barrier before it runs
 * again).  Either a caller's load of `resetting` came before that barrier
 * -- then its nest store is visible to reset's loads, which come after, and
 * reset waits for it -- or after it, and then it sees `resetting` (stored
 * and fenced before the membarrier) and leaves without touching the map.
 *
 * The map lives in shared memory: the traced program's threads call get_id
 * (in every process it forks: registration is per mm and inherited across
 * fork), the recorder (another process) reads and exports, and a reset may
 * come from either.  So reset uses the GLOBAL command, which covers every
 * process that registered, not the PRIVATE one, which covers only the
 * resetting process.  Each process registers once, at its first
 * init/attach; one whose registration fails (old kernel, seccomp) pays the
 * fence itself (fast_enter = 0: a seq_cst fence after the nest store), and
 * so does the TSan build (below).  Readers (for_each, export) exclude
 * themselves from a reset with seq_cst read-modify-writes on `readers`
 * (Dekker again, both sides fenced: they are control path), so the
 * recorder needs no registration to read.
 *
 * A caller that never leaves (its process died inside get_id) makes reset
 * give up after FT_STACKMAP_DRAIN_MS with -EBUSY.
 *
 * Readers (for_each, export, write_text) run in any process while inserts
 * go on and see a best-effort snapshot: a slot is visible once its val is
 * published, and everything in the element was written before that
 * release.  A stack's reference count is refs[] plus the counts cached in
 * every shard's rc[] for that element, plus one for each shard whose
 * pending hit it is (folded at export): exact once the callers have left;
 * while they run, a count moving from pending to rc[] or from rc[] to
 * refs[] may be missed (never counted twice: the source is overwritten
 * before the destination is added to).  Against reset they play the part
 * of the kernel patch's reader_sem, without a lock: a reader counts itself in
 * `readers` (seq_cst RMW) and then checks `resetting`; reset, once it owns
 * `resetting`, also waits for `readers` to drop to 0.  So a walk never
 * sees a cleared or refilled element: a reader that comes during a reset
 * gets -EBUSY, and a reset that comes during a walk waits for it (up to
 * FT_STACKMAP_DRAIN_MS).
 * Readers therefore need the block mapped writable.  lookup() and stat
 * take no part: lookup's pointer is valid until the next reset, and the
 * counters are statistics.
 *
 * TSan does not know that membarrier() fences other threads, so under TSan
 * every caller fences itself (fast_enter is 0, a seq_cst exchange of nest):
 * the program stays correct under the C11 model TSan checks, and everything
 * else (publication through
 * val, shard hand-over through owner, reset's release of `resetting`, the
 * nest release/acquire pairs) is checked as in the production build.
 */
#include "core/stackmap.h"
#include "core/barrier.h"
#include "core/hash.h"

#include <errno.h>
#include <stddef.h>
#include <stdarg.h>
#include <inttypes.h>
#include <linux/membarrier.h>
#include <pthread.h>
#include <sched.h>
#include <stdalign.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

_Static_assert(ATOMIC_INT_LOCK_FREE == 2, "the stack map needs lock-free 32-bit atomics");
_Static_assert(ATOMIC_LLONG_LOCK_FREE == 2, "the stack map needs lock-free 64-bit atomics");
_Static_assert(FT_HASH_MAX_WORDS >= FT_STACKMAP_MAX_DEPTH, "the hash keys cover every frame");

#define SHM_MAGIC 0x4D535446u /* "FTSM" */
#define SHM_VERSION 3
#define NR_SHARDS 128u
#define RC_BITS 6
#define RC_ENTRIES (1u << RC_BITS)
/* Maps a thread can hold a shard in at once (thread-local cache entries). */
#define TLS_MAPS 4
/*
 * ovf.served packs two counters so that leaving get_id is one atomic add:
 * bits 0..19 count callers in flight, bits 20..63 count successes (2^44
 * before it wraps: days at 100 M stacks/s).
 */
#define INFLIGHT_BITS 20
#define INFLIGHT_MASK ((1ull << INFLIGHT_BITS) - 1)
#define ONE_SUCCESS (1ull << INFLIGHT_BITS)
/* A slot's val: element index + 1 in the low 24 bits, depth above. */
#define VAL_ELT_MASK ((1u << 24) - 1)
#define VAL_NR_SHIFT 24
_Static_assert((1u << FT_STACKMAP_BITS_MAX) < VAL_ELT_MASK, "element index fits val");
_Static_assert(((uint64_t)FT_STACKMAP_MAX_DEPTH << VAL_NR_SHIFT) < (1ull << 32), "depth fits val");

/* Counters of the threads without a shard of their own (all atomic RMW). */
struct ovf {
	_Atomic uint64_t served; /* successes << INFLIGHT_BITS | in flight */
	_Atomic uint64_t drops;
	char pad[48];
};

/*
 * One thread's shard.  owner: written by claim (cmpxchg) and detach.  nest,
 * served, drops, rc[], pending: written by the owner's outermost call
 * (plain), and by reset while no caller is in flight.  nested_*: atomic RMW by calls
 * that interrupted another.  Read by anyone (relaxed) for statistics and
 * folding.
 */
struct shard {
	_Atomic uint32_t owner; /* 0 free, 1 claimed */
	_Atomic uint32_t nest;	/* the owner's get_id calls in flight */
	_Atomic uint64_t served;
	_Atomic uint64_t drops;
	_Atomic uint64_t nested_served;
	_Atomic uint64_t nested_drops;
	/*
	 * One hit of the fast path not yet counted in rc[]: element index + 1,
	 * 0 none.  Readers count it as a reference (see get_id_fast).
	 */
	_Atomic uint32_t pending;
	char pad[20];
	/* count << 32 | (element index + 1); 0 = empty.  Direct-mapped by element. */
	_Atomic uint64_t rc[RC_ENTRIES];
};
_Static_assert(sizeof(struct shard) == 64 + 8 * RC_ENTRIES, "a shard is whole cache lines");

struct elt {
	uint64_t ips[FT_STACKMAP_MAX_DEPTH]; /* written before val's release, then constant */
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
	/* refs_off(bits), elts_off(bits): no shifts on the hot path */
	uint64_t refs_at, elts_at;
	/* Read by every get_id; written only by reset. */
	_Atomic uint32_t resetting; /* 1 while a reset owns the map */
	/* Walks in progress (control path). */
	_Atomic uint32_t readers;
	/*
	 * Resets done: bumped by reset while it owns the map, before its
	 * release of `resetting`, so a caller that sees `resetting` 0 in
	 * flight sees the generation its ids belong to (ft_stackmap_hit).
	 */
	_Atomic uint32_t gen;
	/*
	 * Pool cursor, on a line of its own so inserts do not bounce the line
	 * that every get_id reads `resetting` from.  May run past max_elts by
	 * the number of racing callers; readers clamp.
	 */
	alignas(64) _Atomic uint32_t next_elt;
	/* 1 + the highest shard index ever claimed: folds stop there. */
	_Atomic uint32_t shards_used;
	alignas(64) struct ovf ovf;
	alignas(64) struct shard shards[NR_SHARDS];
	/* slots[table_size], refs[max_elts], elts[max_elts] follow */
};

#define SLOTS_OFF sizeof(struct ft_stackmap_shared)
_Static_assert(offsetof(struct ft_stackmap_shared, next_elt) == 640, "layout drawn above");
_Static_assert(offsetof(struct ft_stackmap_shared, shards) == 768, "layout drawn above");
_Static_assert(SLOTS_OFF % 64 == 0, "slots start on a cache line");

static size_t refs_off(unsigned int bits)
{
	return SLOTS_OFF + sizeof(uint64_t) * ((size_t)2 << bits);
}

static size_t elts_off(unsigned int bits)
{
	/* 4 << bits is a multiple of 64 (bits >= 10): elements stay line aligned */
	return refs_off(bits) + sizeof(uint32_t) * ((size_t)1 << bits);
}

static inline _Atomic uint64_t *slots_of(const struct ft_stackmap_shared *m)
{
	return (_Atomic uint64_t *)((char *)m + SLOTS_OFF);
}

static inline _Atomic uint32_t *refs_of(const struct ft_stackmap_shared *m)
{
	return (_Atomic uint32_t *)((char *)m + m->refs_at);
}

static inline struct elt *elts_of(const struct ft_stackmap_shared *m)
{
	return (struct elt *)((char *)m + m->elts_at);
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

/* ---- per-thread shards ---- */

/*
 * The thread's map -> shard cache.  initial-exec: the map is linked into
 * the ftrail tool and into libftrail.so, which is LD_PRELOADed (never
 * dlopen'ed), so the variable lives in the static TLS block that the loader
 * allocates with the thread: an %fs-relative load, no __tls_get_addr, no
 * lazy allocation (which could call malloc, unsafe in a signal handler).
 * block is the map's address in this process and inst its seed (a block
 * formatted again at the same address is another map).  Written by the
 * thread and by its signal handlers only: relaxed atomics with signal
 * fences, block last, so a handler that sees block == m sees the entry
 * whole.  sh is the shard's address in this process (the thread-local
 * cache is per process too): get_id's fast path uses it as is.
 */
struct tls_map {
	_Atomic uintptr_t block;
	_Atomic uint64_t inst;
	_Atomic(struct shard *) sh; /* NULL: no shard left, use ovf */
};
static __thread struct tls_map tls_maps[TLS_MAPS] __attribute__((tls_model("initial-exec")));
static __thread _Atomic uint32_t tls_victim __attribute__((tls_model("initial-exec")));

/*
 * 1 when this process registered for MEMBARRIER_CMD_GLOBAL_EXPEDITED: then
 * reset's membarrier fences our callers and get_id needs only a compiler
 * barrier.  0 (the TSan build, or registration refused): get_id fences
 * itself.  Written once per process before its first get_id (pthread_once
 * in init/attach/create, which happen before the handle is used), read
 * relaxed.
 */
static _Atomic int fast_enter;
/*
 * 1 when get_id's hash and compare use AVX2: the CPU has it (cpu_avx2),
 * and no test asked for the baseline (ft_stackmap_use_avx2).  Set with
 * fast_enter.
 */
static _Atomic int have_avx2, cpu_avx2;
/*
 * Which body ft_stackmap_get_id() jumps to, from have_avx2 and fast_enter
 * (one load there): MODE_AVX2 (bit 0) selects the AVX2 forms, MODE_FAST
 * (bit 1) get_id_fast, whose enter is a plain store: set when this process
 * registered (reset's membarrier fences it), and in the TSan build, where
 * the fast path fences itself.  Without it the general body serves every
 * call and fences itself.
 */
#define MODE_AVX2 1
#define MODE_FAST 2
static _Atomic int get_id_mode;
static pthread_once_t proc_once = PTHREAD_ONCE_INIT;

static long sys_membarrier(int cmd)
{
	return syscall(__NR_membarrier, cmd, 0, 0);
}

/*
 * fork: the child's only thread inherits the forking thread's cache, whose
 * shards the parent's thread still owns.  Forget them (the child claims its
 * own).  The membarrier registration is per mm and is inherited.
 */
static void atfork_child(void)
{
	for (int i = 0; i < TLS_MAPS; i++)
		atomic_store_explicit(&tls_maps[i].block, 0, memory_order_relaxed);
}

static void set_mode(void)
{
	int mode = atomic_load_explicit(&have_avx2, memory_order_relaxed) ? MODE_AVX2 : 0;

#if FT_TSAN
	mode |= MODE_FAST;
#else
	if (atomic_load_explicit(&fast_enter, memory_order_relaxed))
		mode |= MODE_FAST;
#endif
	atomic_store_explicit(&get_id_mode, mode, memory_order_relaxed);
}

static void proc_setup(void)
{
#if defined(__x86_64__)
	__builtin_cpu_init();
	if (__builtin_cpu_supports("avx2")) {
		atomic_store_explicit(&cpu_avx2, 1, memory_order_relaxed);
		atomic_store_explicit(&have_avx2, 1, memory_order_relaxed);
	}
#endif
#if !FT_TSAN /* TSan cannot see that membarrier() fences other threads */
	if (sys_membarrier(MEMBARRIER_CMD_REGISTER_GLOBAL_EXPEDITED) == 0)
		atomic_store_explicit(&fast_enter, 1, memory_order_relaxed);
#endif
	set_mode();
	pthread_atfork(NULL, NULL, atfork_child);
}

/* Install (m, sh) in the thread's cache: block last (see struct tls_map). */
static void tls_install(struct ft_stackmap_shared *m, struct shard *sh)
{
	struct tls_map *t = NULL;

	for (int i = 0; i < TLS_MAPS && !t; i++) {
		uintptr_t b = atomic_load_explicit(&tls_maps[i].block, memory_order_relaxed);

		/* a free entry, or m's stale one (a map formatted again here) */
		if (!b || b == (uintptr_t)m)
			t = &tls_maps[i];
	}
	if (!t) { /* evict: that map's shard stays claimed (counts kept) */
		uint32_t v = atomic_load_explicit(&tls_victim, memory_order_relaxed);

		atomic_store_explicit(&tls_victim, v + 1, memory_order_relaxed);
		t = &tls_maps[v % TLS_MAPS];
	}
	atomic_store_explicit(&t->block, 0, memory_order_relaxed);
	ft_barrier();
	atomic_store_explicit(&t->inst, m->seed, memory_order_relaxed);
	atomic_store_explicit(&t->sh, sh, memory_order_relaxed);
	ft_barrier();
	atomic_store_explicit(&t->block, (uintptr_t)m, memory_order_relaxed);
}

/*
 * First call of this thread on m: claim a free shard.  Acquire on the
 * claim pairs with detach's release of owner: the previous owner's plain
 * writes to the shard happen before ours.  Bounded: one pass.  A signal
 * handler that interrupts a claim may claim a second shard for the same
 * thread; the entry installed last wins and the other stays claimed, its
 * counts still folded.
 */
static __attribute__((noinline, cold)) struct shard *claim_shard(struct ft_stackmap_shared *m)
{
	struct shard *sh;
	uint32_t idx = NR_SHARDS, used;

	for (uint32_t i = 0; i < NR_SHARDS; i++) {
		uint32_t zero = 0;

		if (atomic_load_explicit(&m->shards[i].owner, memory_order_relaxed) == 0 &&
		    atomic_compare_exchange_strong_explicit(&m->shards[i].owner, &zero, 1,
							    memory_order_acquire,
							    memory_order_relaxed)) {
			idx = i;
			break;
		}
	}
	if (idx != NR_SHARDS) {
		/*
		 * Raise the high-water mark before the shard counts anything.
		 * Release pairs with the folds' acquire load: a fold that sees
		 * the mark covers this shard.  The loop ends: each failure
		 * means the mark rose, at most NR_SHARDS times.
		 */
		used = atomic_load_explicit(&m->shards_used, memory_order_relaxed);
		while (used < idx + 1 && !atomic_compare_exchange_weak_explicit(
						 &m->shards_used, &used, idx + 1,
						 memory_order_release, memory_order_relaxed))
			;
	}
	sh = idx == NR_SHARDS ? NULL : &m->shards[idx];
	tls_install(m, sh);
	return sh;
}

/* The thread's cache entries past the first one, or a claim. */
static __attribute__((noinline)) struct shard *find_shard(struct ft_stackmap_shared *m)
{
	for (int i = 1; i < TLS_MAPS; i++) {
		if (atomic_load_explicit(&tls_maps[i].block, memory_order_relaxed) != (uintptr_t)m)
			continue;
		ft_barrier(); /* block before the rest */
		if (atomic_load_explicit(&tls_maps[i].inst, memory_order_relaxed) != m->seed)
			break; /* m was formatted again: claim in the new map */
		return atomic_load_explicit(&tls_maps[i].sh, memory_order_relaxed);
	}
	return claim_shard(m);
}

/*
 * The calling thread's shard in m, claimed at its first call; NULL: use
 * ovf.  The first cache entry inline (one map per thread is the common
 * case), the others out of line.
 */
static inline struct shard *my_shard(struct ft_stackmap_shared *m)
{
	if (__builtin_expect(atomic_load_explicit(&tls_maps[0].block, memory_order_relaxed) !=
				     (uintptr_t)m,
			     0))
		return find_shard(m);
	ft_barrier(); /* block before the rest */
	if (__builtin_expect(
		    atomic_load_explicit(&tls_maps[0].inst, memory_order_relaxed) != m->seed, 0))
		return claim_shard(m);
	return atomic_load_explicit(&tls_maps[0].sh, memory_order_relaxed);
}

void ft_stackmap_thread_detach(struct ft_stackmap *h)
{
	struct ft_stackmap_shared *m = h->shm;

	for (int i = 0; i < TLS_MAPS; i++) {
		struct shard *sh;

		if (atomic_load_explicit(&tls_maps[i].block, memory_order_relaxed) !=
			    (uintptr_t)m ||
		    atomic_load_explicit(&tls_maps[i].inst, memory_order_relaxed) != m->seed)
			continue;
		sh = atomic_load_explicit(&tls_maps[i].sh, memory_order_relaxed);
		/* forget it first: a signal handler from here on claims anew */
		atomic_store_explicit(&tls_maps[i].block, 0, memory_order_relaxed);
		ft_barrier();
		/*
		 * Release pairs with the next claimer's acquire cmpxchg: our
		 * writes to the shard happen before its own.  The counts stay:
		 * the next owner adds to them.
		 */
		if (sh)
			atomic_store_explicit(&sh->owner, 0, memory_order_release);
	}
}

/* ---- create, attach ---- */

/*
 * Format mem as an empty map.  Only the header, the shards and the slots
 * are cleared: an element (and its refs[] entry) is written in full before
 * it is published, so the (large) pool is never touched here and stays
 * lazily paged.
 */
int ft_stackmap_init(struct ft_stackmap *h, void *mem, size_t len, unsigned int bits)
{
	struct ft_stackmap_shared *m = mem;

	bits = ft_stackmap_clamp_bits(bits);
	if (!h || !mem || ((uintptr_t)mem & 63) || len < ft_stackmap_mem_size(bits))
		return -EINVAL;
	pthread_once(&proc_once, proc_setup);
	memset(m, 0, refs_off(bits));
	m->magic = SHM_MAGIC;
	m->version = SHM_VERSION;
	m->bits = bits;
	m->table_size = 2u << bits;
	m->max_elts = 1u << bits;
	m->nr_shards = NR_SHARDS;
	m->seed = random_seed(m);
	ft_hash_keys(m->keys, m->seed);
	m->size = ft_stackmap_mem_size(bits);
	m->refs_at = refs_off(bits);
	m->elts_at = elts_off(bits);
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
	    m->size != ft_stackmap_mem_size(m->bits) || len < m->size ||
	    m->refs_at != refs_off(m->bits) || m->elts_at != elts_off(m->bits))
		return -EINVAL;
	pthread_once(&proc_once, proc_setup);
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
	ft_stackmap_thread_detach(h);
	free(h->shm);
	free(h);
}

/* The hash of ips[0..nr), nr already clamped; inlined into get_id. */
static inline __attribute__((always_inline)) uint32_t map_hash(const struct ft_stackmap *h,
							       const uint64_t *ips, uint32_t nr)
{
	if (__builtin_expect(h->hash_hook != NULL, 0))
		return h->hash_hook(ips, nr, h->hash_hook_arg);
	return ft_hash_stack(ips, nr, h->shm->keys);
}

int ft_stackmap_use_avx2(int on)
{
	pthread_once(&proc_once, proc_setup);
	/* Relaxed: callers make sure no get_id runs meanwhile (thread creation orders it). */
	atomic_store_explicit(&have_avx2,
			      on && atomic_load_explicit(&cpu_avx2, memory_order_relaxed),
			      memory_order_relaxed);
	set_mode();
	return atomic_load_explicit(&have_avx2, memory_order_relaxed);
}

uint32_t ft_stackmap_hash(const struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	if (nr > FT_STACKMAP_MAX_DEPTH)
		nr = FT_STACKMAP_MAX_DEPTH;
	return map_hash(h, ips, nr);
}

/* ---- the hot path ---- */

/*
 * Take an element from the pool, or -1 when it is exhausted.  The plain
 * read first keeps callers off the contended fetch_add once the pool is
 * full (the kernel patch's early-out).  fetch_add may carry next_elt past
 * max_elts by the number of racing callers; readers clamp.  Relaxed: the
 * index only has to be unique; the element's contents are published by
 * the release store of the slot's val.
 */
static inline int64_t get_elt(struct ft_stackmap_shared *m)
{
	uint32_t i;

	if (atomic_load_explicit(&m->next_elt, memory_order_relaxed) >= m->max_elts)
		return -1;
	i = atomic_fetch_add_explicit(&m->next_elt, 1, memory_order_relaxed);
	return i < m->max_elts ? (int64_t)i : -1;
}

/*
 * a[0..nr) == b[0..nr)?  Two words per vector lane pair (SSE2 on x86-64,
 * the baseline; NEON elsewhere), no early exit (the hit path expects
 * equality), no call: measured faster than glibc's memcmp through the PLT
 * of libftrail.so at depths 8..64.  The blocks follow the bits of nr, as
 * the hash's do.
 */
typedef uint64_t ft_v2u64 __attribute__((vector_size(16), aligned(8), may_alias));

static inline ft_v2u64 xor2(const uint64_t *a, const uint64_t *b)
{
	return *(const ft_v2u64 *)a ^ *(const ft_v2u64 *)b;
}

static inline __attribute__((always_inline)) int ips_equal(const uint64_t *a, const uint64_t *b,
							   uint32_t nr)
{
	ft_v2u64 acc = { 0, 0 };
	uint64_t d = 0;
	uint32_t i = 0;

	for (; i + 8 <= nr; i += 8)
		acc |= xor2(a + i, b + i) | xor2(a + i + 2, b + i + 2) |
		       xor2(a + i + 4, b + i + 4) | xor2(a + i + 6, b + i + 6);
	if (nr & 4) {
		acc |= xor2(a + i, b + i) | xor2(a + i + 2, b + i + 2);
		i += 4;
	}
	if (nr & 2) {
		acc |= xor2(a + i, b + i);
		i += 2;
	}
	if (nr & 1)
		d = a[i] ^ b[i];
	return (d | acc[0] | acc[1]) == 0;
}

#if defined(__x86_64__)
__attribute__((target("avx2"))) static inline __m256i xor4(const uint64_t *a, const uint64_t *b)
{
	return _mm256_xor_si256(_mm256_loadu_si256((const __m256i *)a),
				_mm256_loadu_si256((const __m256i *)b));
}

/*
 * ips_equal with AVX2: four words per compare, entered as the hash is (one
 * jump on the number of whole 4-word blocks into a straight run of them).
 * a is the element (64 words, always readable); b the caller's stack, read
 * up to b[nr) only (the last nr & 3 words through a masked load).
 */
__attribute__((target("avx2"))) static inline int ips_equal_avx2(const uint64_t *a,
								 const uint64_t *b, uint32_t nr)
{
	__m256i d0 = _mm256_setzero_si256(), d1 = _mm256_setzero_si256();

	__asm__("" : "+x"(d0), "+x"(d1)); /* zeroed once here, not at each entry of the jump */
	switch (nr >> 2) {
	case 16:
		d1 = _mm256_or_si256(d1, xor4(a + 60, b + 60));
		/* fallthrough */
	case 15:
		d0 = _mm256_or_si256(d0, xor4(a + 56, b + 56));
		/* fallthrough */
	case 14:
		d1 = _mm256_or_si256(d1, xor4(a + 52, b + 52));
		/* fallthrough */
	case 13:
		d0 = _mm256_or_si256(d0, xor4(a + 48, b + 48));
		/* fallthrough */
	case 12:
		d1 = _mm256_or_si256(d1, xor4(a + 44, b + 44));
		/* fallthrough */
	case 11:
		d0 = _mm256_or_si256(d0, xor4(a + 40, b + 40));
		/* fallthrough */
	case 10:
		d1 = _mm256_or_si256(d1, xor4(a + 36, b + 36));
		/* fallthrough */
	case 9:
		d0 = _mm256_or_si256(d0, xor4(a + 32, b + 32));
		/* fallthrough */
	case 8:
		d1 = _mm256_or_si256(d1, xor4(a + 28, b + 28));
		/* fallthrough */
	case 7:
		d0 = _mm256_or_si256(d0, xor4(a + 24, b + 24));
		/* fallthrough */
	case 6:
		d1 = _mm256_or_si256(d1, xor4(a + 20, b + 20));
		/* fallthrough */
	case 5:
		d0 = _mm256_or_si256(d0, xor4(a + 16, b + 16));
		/* fallthrough */
	case 4:
		d1 = _mm256_or_si256(d1, xor4(a + 12, b + 12));
		/* fallthrough */
	case 3:
		d0 = _mm256_or_si256(d0, xor4(a + 8, b + 8));
		/* fallthrough */
	case 2:
		d1 = _mm256_or_si256(d1, xor4(a + 4, b + 4));
		/* fallthrough */
	case 1:
		d0 = _mm256_or_si256(d0, xor4(a + 0, b + 0));
		/* fallthrough */
	default:
		break;
	}
	if (nr & 3) {
		uint32_t i = nr & ~3u;
		__m256i m = _mm256_loadu_si256((const __m256i *)(ft_tail_mask4 + 4 - (nr & 3)));
		__m256i x = _mm256_xor_si256(_mm256_maskload_epi64((const long long *)(b + i), m),
					     _mm256_loadu_si256((const __m256i *)(a + i)));

		d1 = _mm256_or_si256(d1, _mm256_and_si256(x, m));
	}
	d0 = _mm256_or_si256(d0, d1);
	return _mm256_testz_si256(d0, d0);
}
#define HAVE_AVX2_PATH 1
#else
#define HAVE_AVX2_PATH 0
#define ips_equal_avx2 ips_equal
#define ft_hash_stack_avx2 ft_hash_stack
#endif

/*
 * The key of ips[0..nr) without the tests' hash hook: the hash with its
 * low bit set, since 0 marks a free slot (an or, where making only 0 into
 * 1 took a test and a conditional move; the first slot comes from the
 * top bits).
 */
static inline __attribute__((always_inline)) uint32_t
map_key(const struct ft_stackmap_shared *m, const uint64_t *ips, uint32_t nr, const int avx2)
{
	return (avx2 ? ft_hash_stack_avx2(ips, nr, m->keys) : ft_hash_stack(ips, nr, m->keys)) | 1;
}

/* The key of ips[0..nr). */
static inline __attribute__((always_inline)) uint32_t stack_key(const struct ft_stackmap *h,
								const struct ft_stackmap_shared *m,
								const uint64_t *ips, uint32_t nr,
								const int avx2)
{
	uint32_t key;

	if (__builtin_expect(h->hash_hook != NULL, 0)) {
		key = h->hash_hook(ips, nr, h->hash_hook_arg);
		return key | 1;
	}
	return map_key(m, ips, nr, avx2);
}

/* The first slot of key: the top bits+1 bits of the key. */
static inline uint32_t first_slot(const struct ft_stackmap_shared *m, uint32_t key)
{
	return key >> (31 - m->bits);
}

/*
 * Find or insert the stack of key: the slot index, with *ei its element;
 * -ENOSPC (probe limit, or pool exhausted: then the slot stays claimed
 * but empty).  Called in flight only.
 */
static inline __attribute__((always_inline)) int find_or_insert(struct ft_stackmap_shared *m,
								const uint64_t *ips, uint32_t nr,
								uint32_t key, uint32_t *ei,
								int *inserted, const int avx2)
{
	_Atomic uint64_t *slots = slots_of(m);
	uint32_t idx = first_slot(m, key), mask = m->table_size - 1;
	uint32_t want = (uint32_t)nr << VAL_NR_SHIFT;

	for (uint32_t probe = 0; probe < FT_STACKMAP_MAX_PROBE; probe++, idx = (idx + 1) & mask) {
		/*
		 * Acquire pairs with the inserter's release store of the
		 * slot: the element's ips and its refs[] entry are complete
		 * once val is seen.  Key and val in one load: the first
		 * probe's compare (key, depth) stays in the slot's line.
		 */
		uint64_t s = atomic_load_explicit(&slots[idx], memory_order_acquire);
		uint32_t k = (uint32_t)s, v = (uint32_t)(s >> 32);
		int64_t e;

		if (k == key) {
			/* unpublished (being filled, claimed-but-empty) or other depth */
			if ((v & ~VAL_ELT_MASK) != want || !(v & VAL_ELT_MASK))
				continue;
			*ei = (v & VAL_ELT_MASK) - 1;
			if (!(avx2 ? ips_equal_avx2(elts_of(m)[*ei].ips, ips, nr)
				   : ips_equal(elts_of(m)[*ei].ips, ips, nr)))
				continue; /* another stack with the same key */
			*inserted = 0;
			return (int)idx;
		}
		if (k != 0)
			continue;
		/*
		 * Free: claim it.  Relaxed on success and failure: the claim
		 * only decides who fills the slot; val publishes the fill.
		 */
		if (!atomic_compare_exchange_strong_explicit(
			    &slots[idx], &s, key, memory_order_relaxed, memory_order_relaxed))
			continue; /* someone else claimed it: duplicates tolerated */
		e = get_elt(m);
		if (e < 0)
			return -ENOSPC; /* the slot stays claimed but empty */
		memcpy(elts_of(m)[e].ips, ips, nr * sizeof(*ips));
		/* Relaxed: published by the release below. */
		atomic_store_explicit(&refs_of(m)[e], 1, memory_order_relaxed);
		/*
		 * Release: publishes ips and refs[e] above to every acquire
		 * load of the slot (get_id, lookup, for_each, and readers in
		 * other processes).  A plain store: nobody else writes a
		 * claimed slot (reset runs with no caller in flight).
		 */
		atomic_store_explicit(&slots[idx], key | (uint64_t)(want | ((uint32_t)e + 1)) << 32,
				      memory_order_release);
		*ei = (uint32_t)e;
		*inserted = 1;
		return (int)idx;
	}
	return -ENOSPC;
}

/* Relaxed load + store: the owner's counters (see "Shards" at the top). */
static inline void own_add(_Atomic uint64_t *c, uint64_t n)
{
	atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + n,
			      memory_order_relaxed);
}

/* A hit by the owner's outermost call: count it in the thread's rc[] cache. */
static inline void rc_hit(struct ft_stackmap_shared *m, struct shard *sh, uint32_t ei)
{
	_Atomic uint64_t *c = &sh->rc[ei & (RC_ENTRIES - 1)];
	uint64_t v = atomic_load_explicit(c, memory_order_relaxed);

	if (__builtin_expect((uint32_t)v == ei + 1, 1)) {
		atomic_store_explicit(c, v + (1ull << 32), memory_order_relaxed);
		return;
	}
	/*
	 * Evict: the entry first, then the add, so a concurrent fold may
	 * miss the evicted count for an instant but never counts it twice.
	 * Relaxed: counts publish nothing.
	 */
	atomic_store_explicit(c, (1ull << 32) | (ei + 1), memory_order_relaxed);
	if ((uint32_t)v)
		atomic_fetch_add_explicit(&refs_of(m)[(uint32_t)v - 1], (uint32_t)(v >> 32),
					  memory_order_relaxed);
}

/* Threads without a shard: the seq_cst read-modify-write protocol. */
static __attribute__((noinline)) int get_id_ovf(struct ft_stackmap *h, struct ft_stackmap_shared *m,
						const uint64_t *ips, uint32_t nr)
{
	struct ovf *o = &m->ovf;
	uint32_t ei;
	int id, ins;

	/*
	 * Enter: count ourselves in flight, then look at `resetting`.  Both
	 * seq_cst: this RMW and the load pair with reset's seq_cst cmpxchg
	 * of `resetting` and its seq_cst loads of ovf.served (Dekker, fenced
	 * on both sides: no membarrier needed for these callers).
	 */
	atomic_fetch_add_explicit(&o->served, 1, memory_order_seq_cst);
	if (atomic_load_explicit(&m->resetting, memory_order_seq_cst)) {
		/* Release: our (absent) map accesses are done before reset sees 0. */
		atomic_fetch_sub_explicit(&o->served, 1, memory_order_release);
		return -EINVAL;
	}
	id = find_or_insert(m, ips, nr, stack_key(h, m, ips, nr, 0), &ei, &ins, 0);
	if (id < 0) {
		atomic_fetch_add_explicit(&o->drops, 1, memory_order_relaxed);
		/* Release: our map accesses happen before reset sees us gone. */
		atomic_fetch_sub_explicit(&o->served, 1, memory_order_release);
		return id;
	}
	if (!ins) /* Relaxed: a count, publishes nothing. */
		atomic_fetch_add_explicit(&refs_of(m)[ei], 1, memory_order_relaxed);
	/*
	 * One add: +1 success, -1 in flight.  Release pairs with reset's
	 * acquire load of ovf.served, so our map accesses happen before its
	 * clearing stores.
	 */
	atomic_fetch_add_explicit(&o->served, ONE_SUCCESS - 1, memory_order_release);
	return id;
}

/*
 * get_id's general body, expanded once per instruction set (avx2: 0 or 1):
 * any nesting level, a thread's first call on the map, no shard left, the
 * tests' hash hook.  get_id_fast below serves the common calls.
 */
static inline __attribute__((always_inline)) int get_id(struct ft_stackmap *h, const uint64_t *ips,
							uint32_t nr, const int avx2)
{
	struct ft_stackmap_shared *m = h->shm;
	struct shard *sh;
	uint32_t lvl, ei;
	int id, ins;

	if (__builtin_expect(nr == 0, 0))
		return -EINVAL;
	if (nr > FT_STACKMAP_MAX_DEPTH)
		nr = FT_STACKMAP_MAX_DEPTH;
	sh = my_shard(m);
	if (__builtin_expect(!sh, 0))
		return get_id_ovf(h, m, ips, nr);

	/*
	 * Enter: nest += 1 ("in flight"), then load `resetting`.  A plain
	 * load + store: only this thread and its signal handlers write nest,
	 * and a handler leaves it as it found it.  The store->load order with
	 * the load of `resetting` below is the caller's half of the Dekker
	 * pair; its hardware fence is reset's membarrier (see the top of the
	 * file), so a compiler barrier is enough here, unless this process
	 * could not register (fast_enter == 0: fence ourselves with a seq_cst
	 * exchange, the C11 Dekker pair with reset's seq_cst cmpxchg of
	 * `resetting` and seq_cst loads of nest; TSan checks this form).
	 */
	lvl = atomic_load_explicit(&sh->nest, memory_order_relaxed);
	if (__builtin_expect(atomic_load_explicit(&fast_enter, memory_order_relaxed), 1)) {
		atomic_store_explicit(&sh->nest, lvl + 1, memory_order_relaxed);
		ft_barrier();
	} else {
		atomic_exchange_explicit(&sh->nest, lvl + 1, memory_order_seq_cst);
	}
	/*
	 * seq_cst (a plain load on x86, as acquire would be): the load half
	 * of the pair above.  Its acquire pairs with reset's release store
	 * of 0: a caller that sees 0 sees every clearing store (slots,
	 * counters, rc[]).
	 */
	if (__builtin_expect(atomic_load_explicit(&m->resetting, memory_order_seq_cst), 0)) {
		atomic_store_explicit(&sh->nest, lvl, memory_order_release);
		return -EINVAL;
	}

	id = find_or_insert(m, ips, nr, stack_key(h, m, ips, nr, avx2), &ei, &ins, avx2);
	if (__builtin_expect(lvl == 0, 1)) {
		/* outermost: plain updates of our own shard */
		if (id < 0)
			own_add(&sh->drops, 1);
		else {
			if (!ins)
				rc_hit(m, sh, ei);
			own_add(&sh->served, 1);
		}
	} else {
		/* we interrupted a call of this thread: atomic RMW, no rc[] */
		if (id < 0)
			atomic_fetch_add_explicit(&sh->nested_drops, 1, memory_order_relaxed);
		else {
			if (!ins)
				atomic_fetch_add_explicit(&refs_of(m)[ei], 1, memory_order_relaxed);
			atomic_fetch_add_explicit(&sh->nested_served, 1, memory_order_relaxed);
		}
	}
	/*
	 * Leave.  Release pairs with reset's acquire load of nest: our map
	 * accesses and counts happen before its clearing stores.  On x86 a
	 * plain mov.
	 */
	atomic_store_explicit(&sh->nest, lvl, memory_order_release);
	return id;
}

/*
 * The rest of an outermost call on a thread's shard after the first probe
 * missed (a later slot, an insert, a drop), down to leaving: see
 * get_id_fast.  Out of line, so that nothing on the fast path lives across
 * a call and the fast path saves no registers.
 */
static inline __attribute__((always_inline)) int get_id_miss(struct ft_stackmap_shared *m,
							     struct shard *sh, const uint64_t *ips,
							     uint32_t nr, uint32_t key,
							     const int avx2)
{
	uint32_t ei = 0;
	int id, ins = 0;

	id = find_or_insert(m, ips, nr, key, &ei, &ins, avx2);
	/* outermost: plain updates of our own shard */
	if (id < 0)
		own_add(&sh->drops, 1);
	else {
		if (!ins)
			rc_hit(m, sh, ei);
		own_add(&sh->served, 1);
	}
	/* Leave: release, paired as in get_id. */
	atomic_store_explicit(&sh->nest, 0, memory_order_release);
	return id;
}

/* The general body and the miss, out of line, once per instruction set. */
#if HAVE_AVX2_PATH
/* flatten: the AVX2 hash and compare inline here, where AVX2 is allowed. */
static __attribute__((target("avx2"), flatten, noinline)) int
get_id_slow_avx2(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	return get_id(h, ips, nr, 1);
}

static __attribute__((target("avx2"), flatten, noinline)) int
get_id_miss_avx2(struct ft_stackmap_shared *m, struct shard *sh, const uint64_t *ips, uint32_t nr,
		 uint32_t key)
{
	return get_id_miss(m, sh, ips, nr, key, 1);
}
#endif

static __attribute__((noinline)) int get_id_slow_base(struct ft_stackmap *h, const uint64_t *ips,
						      uint32_t nr)
{
	return get_id(h, ips, nr, 0);
}

static __attribute__((noinline)) int get_id_miss_base(struct ft_stackmap_shared *m,
						      struct shard *sh, const uint64_t *ips,
						      uint32_t nr, uint32_t key)
{
	return get_id_miss(m, sh, ips, nr, key, 0);
}

/*
 * A fast hit's count, then the leave (get_id_fast, stackmap_hit): ev
 * (the element + 1) waits in sh->pending, and the previous pending hit
 * goes into rc[] now: rc[]'s address depends on the element, known only
 * after the hash and the slot's load, and a store to such a late address
 * held back this thread's next calls (measured: 2 ns of a 10.5 ns hit);
 * pending's address is known at once, and so is the previous element.
 * Pending first, then rc[]: a reader may miss that count for an instant,
 * never count it twice.  Plain, as rc[] (only the outermost call of the
 * owner writes them).  Returns id.
 */
static inline __attribute__((always_inline)) int
hit_leave(struct ft_stackmap_shared *m, struct shard *sh, uint32_t ev, uint32_t id)
{
	uint32_t prev = atomic_load_explicit(&sh->pending, memory_order_relaxed);

	atomic_store_explicit(&sh->pending, ev, memory_order_relaxed);
	if (prev)
		rc_hit(m, sh, prev - 1);
	own_add(&sh->served, 1);
	/* Leave: release, paired as in get_id. */
	atomic_store_explicit(&sh->nest, 0, memory_order_release);
	return (int)id;
}

/*
 * The thread's shard in m when its first cache entry holds it, else NULL
 * (get_id's general body then finds or claims one).  Orders as my_shard.
 */
static inline struct shard *cached_shard(const struct ft_stackmap_shared *m)
{
	if (__builtin_expect(atomic_load_explicit(&tls_maps[0].block, memory_order_relaxed) !=
				     (uintptr_t)m,
			     0))
		return NULL;
	ft_barrier(); /* block before the rest */
	if (__builtin_expect(
		    atomic_load_explicit(&tls_maps[0].inst, memory_order_relaxed) != m->seed, 0))
		return NULL;
	return atomic_load_explicit(&tls_maps[0].sh, memory_order_relaxed);
}

/*
 * get_id's fast path: the outermost call of a thread that has its shard
 * (nest was 0), and the stack in its first slot.  The same protocol as
 * get_id above, specialised: nest goes 0 -> 1 -> 0, and the first probe's
 * hit is checked here with one compare of the slot (key, depth, element
 * published); anything else goes through the out-of-line probe.  Calls
 * that are not outermost, the thread's first, without a shard, of a
 * depth out of range or with the tests' hash hook take the general body.
 */
static inline __attribute__((always_inline)) int
get_id_fast(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr, const int avx2)
{
	struct ft_stackmap_shared *m = h->shm;
	struct shard *sh;
	uint32_t key, idx, ev;
	uint64_t s;

	if (__builtin_expect(nr == 0 || nr > FT_STACKMAP_MAX_DEPTH || h->hash_hook != NULL, 0))
		goto general;
	sh = cached_shard(m);
	if (__builtin_expect(!sh || atomic_load_explicit(&sh->nest, memory_order_relaxed), 0))
		goto general;
		/*
	 * Enter: nest 0 -> 1, then load `resetting`; as in get_id (a handler
	 * landing between the load of nest above and this store runs as an
	 * outermost call and leaves nest at 0).  Only processes whose callers
	 * reset's membarrier fences come here (MODE_FAST), so a plain store
	 * and a compiler barrier; the TSan build fences itself, as get_id does
	 * when fast_enter is 0.
	 */
#if FT_TSAN
	atomic_exchange_explicit(&sh->nest, 1, memory_order_seq_cst);
#else
	atomic_store_explicit(&sh->nest, 1, memory_order_relaxed);
	ft_barrier();
#endif
	/* seq_cst, paired as in get_id */
	if (__builtin_expect(atomic_load_explicit(&m->resetting, memory_order_seq_cst), 0)) {
		atomic_store_explicit(&sh->nest, 0, memory_order_release);
		return -EINVAL;
	}

	key = map_key(m, ips, nr, avx2);
	idx = first_slot(m, key);
	/* Acquire, as in find_or_insert: the element is complete once val is seen. */
	s = atomic_load_explicit(&slots_of(m)[idx], memory_order_acquire);
	ev = (uint32_t)(s >> 32) & VAL_ELT_MASK;
	/*
	 * Our key and depth: then the element is published too (val is 0
	 * until then, and its depth byte with it, while nr >= 1).
	 */
	if (__builtin_expect((s & ~((uint64_t)VAL_ELT_MASK << 32)) ==
				     (key | (uint64_t)nr << (32 + VAL_NR_SHIFT)),
			     1) &&
	    __builtin_expect(avx2 ? ips_equal_avx2((elts_of(m) - 1)[ev].ips, ips, nr)
				  : ips_equal((elts_of(m) - 1)[ev].ips, ips, nr),
			     1)) {
		return hit_leave(m, sh, ev, idx);
	}
#if HAVE_AVX2_PATH
	return avx2 ? get_id_miss_avx2(m, sh, ips, nr, key) : get_id_miss_base(m, sh, ips, nr, key);
#else
	return get_id_miss_base(m, sh, ips, nr, key);
#endif

general:
#if HAVE_AVX2_PATH
	return avx2 ? get_id_slow_avx2(h, ips, nr) : get_id_slow_base(h, ips, nr);
#else
	return get_id_slow_base(h, ips, nr);
#endif
}

#if HAVE_AVX2_PATH
/* flatten, as get_id_slow_avx2 */
static __attribute__((target("avx2"), flatten, noinline)) int
get_id_avx2(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	return get_id_fast(h, ips, nr, 1);
}
#endif

/* The other modes: the baseline instruction set (SSE2 on x86-64), the general body. */
static __attribute__((noinline)) int get_id_other(struct ft_stackmap *h, const uint64_t *ips,
						  uint32_t nr, int mode)
{
	if (mode == MODE_FAST)
		return get_id_fast(h, ips, nr, 0);
#if HAVE_AVX2_PATH
	if (mode == MODE_AVX2)
		return get_id_slow_avx2(h, ips, nr);
#endif
	return get_id_slow_base(h, ips, nr);
}

/*
 * Only the dispatch: every body out of line, so that this stays a load,
 * a branch and a tail jump (with one body inline here the compiler saved
 * and restored its registers before the dispatch, on every call).
 */
int ft_stackmap_get_id(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr)
{
	int mode = atomic_load_explicit(&get_id_mode, memory_order_relaxed);

#if HAVE_AVX2_PATH
	if (__builtin_expect(mode == (MODE_FAST | MODE_AVX2), 1))
		return get_id_avx2(h, ips, nr);
#endif
	return get_id_other(h, ips, nr, mode);
}

/* ---- readers ---- */

/* The published element of slot id and its depth, or NULL (free, being filled, empty). */
static const struct elt *slot_elt(const struct ft_stackmap_shared *m, uint32_t id, uint32_t *ei,
				  uint32_t *nr)
{
	uint64_t s;
	uint32_t v;

	if (id >= m->table_size)
		return NULL;
	/* Acquire pairs with get_id's release store of the slot. */
	s = atomic_load_explicit(&slots_of(m)[id], memory_order_acquire);
	v = (uint32_t)(s >> 32);
	if (!(uint32_t)s || !(v & VAL_ELT_MASK) || (v & VAL_ELT_MASK) > m->max_elts)
		return NULL; /* bounds check: the block may be foreign */
	*ei = (v & VAL_ELT_MASK) - 1;
	*nr = v >> VAL_NR_SHIFT;
	if (*nr > FT_STACKMAP_MAX_DEPTH)
		*nr = FT_STACKMAP_MAX_DEPTH;
	return &elts_of(m)[*ei];
}

/*
 * Element ei's reference count: refs[] plus the counts still cached in the
 * shards' rc[].  Relaxed: statistics; exact once the callers have left
 * (their nest release, or thread join / process exit, orders their counts
 * before our loads).  Acquire on shards_used pairs with claim's release.
 */
static uint32_t elt_ref(const struct ft_stackmap_shared *m, uint32_t ei)
{
	uint32_t ref = atomic_load_explicit(&refs_of(m)[ei], memory_order_relaxed);
	uint32_t used = atomic_load_explicit(&m->shards_used, memory_order_acquire);

	if (used > NR_SHARDS)
		used = NR_SHARDS;
	for (uint32_t i = 0; i < used; i++) {
		uint64_t v = atomic_load_explicit(&m->shards[i].rc[ei & (RC_ENTRIES - 1)],
						  memory_order_relaxed);

		if ((uint32_t)v == ei + 1)
			ref += (uint32_t)(v >> 32);
		/* the fast path's hit not yet in rc[] */
		ref += atomic_load_explicit(&m->shards[i].pending, memory_order_relaxed) == ei + 1;
	}
	return ref;
}

int ft_stackmap_lookup(const struct ft_stackmap *h, uint32_t id, const uint64_t **ips, uint32_t *nr,
		       uint32_t *ref)
{
	uint32_t ei, n;
	const struct elt *e = slot_elt(h->shm, id, &ei, &n);

	if (!e)
		return -ENOENT;
	if (ips)
		*ips = e->ips;
	if (nr)
		*nr = n;
	if (ref)
		*ref = elt_ref(h->shm, ei);
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
		uint32_t ei, nr;
		const struct elt *e = slot_elt(m, id, &ei, &nr);
		int ret;

		if (!e)
			continue;
		ret = fn(id, e->ips, nr, elt_ref(m, ei), arg);
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
	const _Atomic uint64_t *slots = slots_of(m);
	uint32_t next, i;

	memset(st, 0, sizeof(*st));
	next = atomic_load_explicit(&m->next_elt, memory_order_relaxed);
	st->entries = next < m->max_elts ? next : m->max_elts;
	st->max_entries = m->max_elts;
	st->table_size = m->table_size;
	/* Relaxed: statistics, read while callers may still add to them. */
	st->successes = atomic_load_explicit(&m->ovf.served, memory_order_relaxed) >> INFLIGHT_BITS;
	st->drops = atomic_load_explicit(&m->ovf.drops, memory_order_relaxed);
	for (i = 0; i < NR_SHARDS; i++) {
		const struct shard *s = &m->shards[i];

		st->successes += atomic_load_explicit(&s->served, memory_order_relaxed) +
				 atomic_load_explicit(&s->nested_served, memory_order_relaxed);
		st->drops += atomic_load_explicit(&s->drops, memory_order_relaxed) +
			     atomic_load_explicit(&s->nested_drops, memory_order_relaxed);
		st->threads += atomic_load_explicit(&s->owner, memory_order_relaxed) != 0;
	}
	for (i = 0; i < m->table_size; i++) {
		uint64_t s = atomic_load_explicit(&slots[i], memory_order_relaxed);

		if ((uint32_t)s && !(s >> 32))
			st->claimed_empty++;
	}
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

/* ---- reset ---- */

/* Sleep a little while draining; 1 once FT_STACKMAP_DRAIN_MS have passed. */
static int drain_wait(const struct timespec *t0, unsigned int *spins)
{
	struct timespec nap = { 0, 50 * 1000 }, t;

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
	/* seq_cst and acquire, as for ovf.served below, paired with reader_enter/leave. */
	while (atomic_load_explicit(&m->readers, memory_order_seq_cst))
		if (drain_wait(&t0, &spins))
			return -EBUSY;
	/*
	 * seq_cst: the load half of the Dekker pair with get_id_ovf's enter.
	 * Also an acquire: pairs with the release RMW with which a caller
	 * leaves, so its map accesses happen before our clearing stores.
	 */
	while (atomic_load_explicit(&m->ovf.served, memory_order_seq_cst) & INFLIGHT_MASK)
		if (drain_wait(&t0, &spins))
			return -EBUSY;
	/*
	 * Every shard, claimed or not (a claim may be racing with us).  After
	 * the membarrier: the load half of the asymmetric Dekker pair; seq_cst
	 * for the callers that fence themselves (see get_id's enter).  Also
	 * an acquire: pairs with get_id's release store of nest on leaving.
	 */
	for (i = 0; i < NR_SHARDS; i++)
		while (atomic_load_explicit(&m->shards[i].nest, memory_order_seq_cst))
			if (drain_wait(&t0, &spins))
				return -EBUSY;
	return 0;
}

/*
 * Reset's half of the asymmetric fence: a full barrier on every CPU that
 * runs a thread of a registered process (see the top of the file).  0, or
 * a negative errno when the kernel refuses it (then a registered caller
 * might be missed).  ENOSYS/EINVAL: the kernel has no such command, so no
 * process could register and every caller fences itself.
 */
static int fence_callers(void)
{
	/* our own store of `resetting` before everyone's barrier */
	ft_fence(__ATOMIC_SEQ_CST);
	if (sys_membarrier(MEMBARRIER_CMD_GLOBAL_EXPEDITED) == 0)
		return 0;
	if (errno == ENOSYS || errno == EINVAL)
		return 0;
	return -errno;
}

int ft_stackmap_reset(struct ft_stackmap *h)
{
	struct ft_stackmap_shared *m = h->shm;
	_Atomic uint64_t *slots = slots_of(m);
	uint32_t zero = 0, i;
	int ret;

	/*
	 * Claim the reset (seq_cst: the store half of the Dekker pairs with
	 * get_id and the readers; also makes a concurrent reset fail).  From
	 * here on new get_id callers leave at once with -EINVAL.
	 */
	if (!atomic_compare_exchange_strong_explicit(&m->resetting, &zero, 1, memory_order_seq_cst,
						     memory_order_relaxed))
		return -EBUSY;
	/* Asked after the claim, as the kernel patch does: the flag blocks inserts. */
	ret = (h->tracing_is_on && h->tracing_is_on(h->arg)) ? -EBUSY : fence_callers();
	if (!ret)
		ret = drain(m);
	if (ret) {
		atomic_store_explicit(&m->resetting, 0, memory_order_release);
		return ret;
	}

	/* Elements need no clearing: each is rewritten before it is published. */
	for (i = 0; i < m->table_size; i++)
		atomic_store_explicit(&slots[i], 0, memory_order_relaxed);
	atomic_store_explicit(&m->next_elt, 0, memory_order_relaxed);
	/*
	 * Keep the in-flight bits: a caller turned away by `resetting` may
	 * still be between its +1 and its -1.  Likewise nest and owner.
	 */
	atomic_fetch_and_explicit(&m->ovf.served, INFLIGHT_MASK, memory_order_relaxed);
	atomic_store_explicit(&m->ovf.drops, 0, memory_order_relaxed);
	for (i = 0; i < NR_SHARDS; i++) {
		struct shard *s = &m->shards[i];

		atomic_store_explicit(&s->served, 0, memory_order_relaxed);
		atomic_store_explicit(&s->drops, 0, memory_order_relaxed);
		atomic_store_explicit(&s->nested_served, 0, memory_order_relaxed);
		atomic_store_explicit(&s->nested_drops, 0, memory_order_relaxed);
		for (uint32_t k = 0; k < RC_ENTRIES; k++)
			atomic_store_explicit(&s->rc[k], 0, memory_order_relaxed);
		atomic_store_explicit(&s->pending, 0, memory_order_relaxed);
	}

	/* ids handed out before are void: ft_stackmap_hit() refuses them */
	atomic_store_explicit(&m->gen, atomic_load_explicit(&m->gen, memory_order_relaxed) + 1,
			      memory_order_relaxed);
	/*
	 * Release pairs with get_id's acquire load of `resetting`: a caller
	 * that sees 0 sees every clearing store, and the new gen.
	 */
	atomic_store_explicit(&m->resetting, 0, memory_order_release);
	return 0;
}

uint32_t ft_stackmap_gen(const struct ft_stackmap *h)
{
	/* relaxed: a hint; ft_stackmap_hit() checks it again in flight */
	return atomic_load_explicit(&h->shm->gen, memory_order_relaxed);
}

/*
 * A hit whose id the caller already knows: get_id_fast's protocol without
 * the hash and the compare.  In flight (nest 0 -> 1 -> 0, as get_id_fast,
 * fenced as get_id when this process could not register), the map must
 * still be at generation gen -- a caller that sees `resetting` 0 either
 * came before the reset, which then waits for it to leave before clearing
 * anything, or after its release, and then sees the new gen -- and slot
 * id must hold a published element.  Only the outermost call of a thread
 * with its shard counts here; anything else returns -EAGAIN and the caller
 * takes get_id with the whole stack (nested calls, a thread's first call,
 * threads without a shard, the tests' hash hook are rare).
 *
 * ref: the element slot id held in generation gen (ft_stackmap_ref), or 0
 * to read it from the slot.  A published slot never changes until a
 * reset, so a ref read in gen is the slot's element for as long as the
 * map stays at gen -- which the check above establishes -- and the slot's
 * load (a cache miss at every -T call: the table is 2 MiB at 2^17
 * stacks) is not needed.
 */
static inline __attribute__((always_inline)) int stackmap_hit(struct ft_stackmap *h, uint32_t id,
							      uint32_t ref, uint32_t gen)
{
	struct ft_stackmap_shared *m = h->shm;
	struct shard *sh;
	uint32_t ev = ref;
	uint64_t s;

	if (__builtin_expect(id >= m->table_size || ref > m->max_elts || h->hash_hook != NULL, 0))
		return -EINVAL;
	sh = cached_shard(m);
	if (__builtin_expect(!sh || atomic_load_explicit(&sh->nest, memory_order_relaxed), 0))
		return -EAGAIN;
	/* Enter, as get_id: a plain store when reset's membarrier fences us */
	if (__builtin_expect(atomic_load_explicit(&fast_enter, memory_order_relaxed), 1)) {
		atomic_store_explicit(&sh->nest, 1, memory_order_relaxed);
		ft_barrier();
	} else {
		atomic_exchange_explicit(&sh->nest, 1, memory_order_seq_cst);
	}
	/* seq_cst, paired as in get_id; gen after it (see above) */
	if (__builtin_expect(atomic_load_explicit(&m->resetting, memory_order_seq_cst), 0) ||
	    __builtin_expect(atomic_load_explicit(&m->gen, memory_order_relaxed) != gen, 0)) {
		atomic_store_explicit(&sh->nest, 0, memory_order_release);
		return -EINVAL;
	}
	if (!ev) {
		/* Acquire, as in find_or_insert: published, and its element complete */
		s = atomic_load_explicit(&slots_of(m)[id], memory_order_acquire);
		ev = (uint32_t)(s >> 32) & VAL_ELT_MASK;
		if (__builtin_expect(!(uint32_t)s || !ev, 0)) {
			atomic_store_explicit(&sh->nest, 0, memory_order_release);
			return -EINVAL;
		}
	}
	return hit_leave(m, sh, ev, id);
}

int ft_stackmap_hit(struct ft_stackmap *h, uint32_t id, uint32_t gen)
{
	return stackmap_hit(h, id, 0, gen);
}

int ft_stackmap_hit_ref(struct ft_stackmap *h, uint32_t id, uint32_t ref, uint32_t gen)
{
	return stackmap_hit(h, id, ref, gen);
}

uint32_t ft_stackmap_ref(const struct ft_stackmap *h, uint32_t id)
{
	const struct ft_stackmap_shared *m = h->shm;
	uint64_t s;

	if (id >= m->table_size)
		return 0;
	/* Acquire, as in find_or_insert: the slot get_id returned, published */
	s = atomic_load_explicit(&slots_of(m)[id], memory_order_acquire);
	return (uint32_t)s ? (uint32_t)(s >> 32) & VAL_ELT_MASK : 0;
}

struct text_ctx {
	FILE *f;
	ft_sym_resolve_fn res;
	void *arg;
};

/* One stack in the kernel stackmap's stack_map shape. */
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
 * The kernel stackmap's stack_map listing.  Prints nothing while a reset
 * runs (a reset waits for the listing, as the patch's reader_sem makes it).
 */
void ft_stackmap_write_text(const struct ft_stackmap *h, FILE *f, ft_sym_resolve_fn res, void *arg)
{
	struct text_ctx c = { f, res, arg };

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
	struct ft_fsmb_entry e = { id, nr, ref, 0 };

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

struct delta_ctx {
	char *buf;
	size_t off, cap;
	uint32_t nr_stacks;
	uint32_t *seen;
	int refs, oom;
};

static int delta_one(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct delta_ctx *c = arg;
	struct ft_fsmb_entry e = { id, nr, ref, 0 };
	uint32_t mark = ref == UINT32_MAX ? ref : ref + 1; /* 0: never exported */
	size_t need = sizeof(e) + nr * sizeof(*ips);

	if (c->seen[id] && (!c->refs || c->seen[id] == mark))
		return 0;
	if (c->off + need > c->cap) {
		size_t ncap = (c->cap + need) * 2;
		char *n = realloc(c->buf, ncap);

		if (!n) {
			c->oom = 1;
			return 1;
		}
		c->buf = n;
		c->cap = ncap;
	}
	memcpy(c->buf + c->off, &e, sizeof(e));
	memcpy(c->buf + c->off + sizeof(e), ips, nr * sizeof(*ips));
	c->off += need;
	c->nr_stacks++;
	c->seen[id] = mark;
	return 0;
}

uint32_t ft_stackmap_table_size(const struct ft_stackmap *h)
{
	return h->shm->table_size;
}

uint32_t ft_stackmap_nr_entries(const struct ft_stackmap *h)
{
	/* Relaxed: a hint for skipping a walk, exact once inserts stopped. */
	uint32_t next = atomic_load_explicit(&h->shm->next_elt, memory_order_relaxed);

	return next < h->shm->max_elts ? next : h->shm->max_elts;
}

void *ft_stackmap_export_delta(const struct ft_stackmap *h, uint32_t *seen, int refs, size_t *len)
{
	struct ft_fsmb_header hdr = { FT_FSMB_MAGIC, FT_FSMB_VERSION, 0, 0 };
	struct delta_ctx c = { .seen = seen, .refs = refs };

	*len = 0;
	errno = 0;
	if (reader_enter(h->shm)) {
		errno = EBUSY;
		return NULL;
	}
	c.off = sizeof(hdr);
	walk(h->shm, delta_one, &c);
	reader_leave(h->shm);
	if (c.oom) {
		free(c.buf);
		errno = ENOMEM;
		return NULL;
	}
	if (!c.nr_stacks) {
		free(c.buf);
		return NULL;
	}
	hdr.nr_stacks = c.nr_stacks;
	memcpy(c.buf, &hdr, sizeof(hdr));
	*len = c.off;
	return c.buf;
}

/*
 * FSMB v2: header, then per published stack (id order) an entry and its
 * ips.  Sized by a first walk; stacks inserted between the two walks are
 * left out (the seed's best-effort snapshot).
 */
void *ft_stackmap_export_bin(const struct ft_stackmap *h, size_t *len)
{
	struct ft_fsmb_header hdr = { FT_FSMB_MAGIC, FT_FSMB_VERSION, 0, 0 };
	struct bin_ctx c = { 0 };
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
