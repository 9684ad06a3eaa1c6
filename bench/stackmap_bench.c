// SPDX-License-Identifier: GPL-2.0
/*
 * Stack map benchmark.
 *
 * ns per get_id, for hits and for first inserts, at depths 8/16/32/64 with
 * 1 and 2 threads, side by side in the same run with its peers:
 *
 *   ftrail   ft_stackmap_get_id (lock-free)
 *   mutex    the same open-addressing map (same hash, same pool, same full
 *            compare) with every call under one pthread mutex; its hash is
 *            the form get_id runs on this CPU (AVX2 where the CPU has it)
 *   copy     no deduplication: copy the whole stack into a per-thread
 *            buffer (what recording the full stack costs the writer)
 *
 * and, first, the hash functions of core/hash.h (speed, and quality as the
 * mean probe length in a half-full linear-probing table of realistic
 * stacks); the ft_hash_stack row times the form get_id runs on this CPU,
 * ft_hash_stack_avx2 where the CPU has AVX2 (the same function, bit for
 * bit).  Times are per call as seen by one thread (with 2 threads: the
 * mean of both threads' own time per call).  Ratios are computed within
 * the run, so a busy machine skews the absolute numbers, less the ratios.
 *
 * Three thread configurations, each a row per depth:
 *
 *   1    one thread: an uncontended mutex (two locked ops) against the
 *        lock-free hit (no locked op: plain stores into the thread's own
 *        shard).  Both pay the same hash, probe and compare.
 *   2s   two threads hitting the SAME hot stacks: the mutex map bounces
 *        its lock line and the stacks' reference counts; the lock-free
 *        map counts hits in each thread's own shard, so only the
 *        read-only elements are shared.
 *   2o   two threads, each hitting its OWN hot stacks (threads running
 *        different code, the common case): nothing the lock-free map
 *        writes is shared; the mutex map still bounces its lock.
 *
 * In both 2-thread configurations the threads are pinned to separate CPUs
 * and started by a barrier, and the share of their timed loops that ran
 * at the same time is printed (ovl): on a loaded machine it may be low,
 * and then those rows say little about contention.
 *
 * Then a scaling table (depth 16, hit16): 1, 2, 4 and 8 threads pinned
 * round-robin to the CPUs the process may use, on shared and on their own
 * stacks, with the aggregate rate (calls per second of all threads over
 * the wall-clock span of the run).  More threads than CPUs shows what
 * oversubscription does: a thread preempted inside the mutex stalls every
 * other; one preempted inside get_id stalls nobody.
 *
 *   build/bench/stackmap_bench [-q] [-c]   (-q: a shorter run, for tests;
 *                                           -c: thread CPU time)
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/hash.h"
#include "core/stackmap.h"

#define HOT 1024     /* distinct stacks of the "hit 1k" loops */
#define HOT_SMALL 16 /* distinct stacks of the "hit 16" loops */
#define INS_BITS 18  /* map for the insert loops: 2^18 stacks */
#define MAXT 8	     /* the scaling rows go up to 8 threads */
#define NSETS MAXT   /* hot sets: one per thread for the 2o and scaling rows */

static long hit_iters = 4000000, ins_per_thread = 100000;

/*
 * Wall-clock time by default: it shows what a thread waiting for the mutex
 * loses.  With -c, CPU time of the calling thread: on a shared machine a
 * thread that is not running is not charged, so the figures hold up better
 * under load, but a thread blocked on the mutex is not charged either.
 */
static clockid_t bench_clock = CLOCK_MONOTONIC;

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(bench_clock, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* ---- the mutex-protected peer: same table design, one lock ---- */

struct mmap_elt {
	uint32_t nr, ref;
	uint64_t ips[FT_STACKMAP_MAX_DEPTH];
};

struct mutex_map {
	pthread_mutex_t lock;
	uint32_t bits, size, max, next;
	uint64_t keys_h[FT_HASH_NKEYS];
	uint32_t *keys, *vals;
	struct mmap_elt *elts;
};

static void mutex_map_init(struct mutex_map *m, unsigned int bits)
{
	pthread_mutex_init(&m->lock, NULL);
	m->bits = bits;
	m->size = 2u << bits;
	m->max = 1u << bits;
	m->next = 0;
	ft_hash_keys(m->keys_h, 0x1234567890abcdefull);
	if (!m->keys) { /* sized once for the largest map, faulted in */
		m->keys = calloc(2u << INS_BITS, 4);
		m->vals = calloc(2u << INS_BITS, 4);
		m->elts = calloc(1u << INS_BITS, sizeof(*m->elts));
		if (!m->keys || !m->vals || !m->elts)
			abort();
		memset(m->elts, 0, sizeof(*m->elts) << INS_BITS);
	}
	memset(m->keys, 0, (size_t)m->size * 4);
	memset(m->vals, 0, (size_t)m->size * 4);
}

/* 1 when the CPU has AVX2: the map's hash is then ft_hash_stack_avx2, and the peers' too. */
static int use_avx2;

static inline __attribute__((always_inline)) int
mutex_map_get_id_isa(struct mutex_map *m, const uint64_t *ips, uint32_t nr, uint32_t key)
{
	uint32_t idx;
	int ret = -ENOSPC;

	if (!key)
		key = 1;
	idx = key >> (31 - m->bits);
	pthread_mutex_lock(&m->lock);
	for (int p = 0; p < FT_STACKMAP_MAX_PROBE; p++, idx = (idx + 1) & (m->size - 1)) {
		if (m->keys[idx] == key) {
			struct mmap_elt *e = &m->elts[m->vals[idx] - 1];

			if (e->nr == nr && !memcmp(e->ips, ips, nr * 8)) {
				e->ref++;
				ret = (int)idx;
				break;
			}
		} else if (!m->keys[idx]) {
			struct mmap_elt *e;

			if (m->next >= m->max)
				break;
			e = &m->elts[m->next++];
			e->nr = nr;
			e->ref = 1;
			memcpy(e->ips, ips, nr * 8);
			m->keys[idx] = key;
			m->vals[idx] = m->next;
			ret = (int)idx;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return ret;
}

static __attribute__((target("avx2"), noinline)) int
mutex_map_get_id_avx2(struct mutex_map *m, const uint64_t *ips, uint32_t nr)
{
	return mutex_map_get_id_isa(m, ips, nr, ft_hash_stack_avx2(ips, nr, m->keys_h));
}

static __attribute__((noinline)) int mutex_map_get_id_base(struct mutex_map *m, const uint64_t *ips,
							   uint32_t nr)
{
	return mutex_map_get_id_isa(m, ips, nr, ft_hash_stack(ips, nr, m->keys_h));
}

static int mutex_map_get_id(struct mutex_map *m, const uint64_t *ips, uint32_t nr)
{
	return use_avx2 ? mutex_map_get_id_avx2(m, ips, nr) : mutex_map_get_id_base(m, ips, nr);
}

/* ---- workloads ---- */

enum peer {
	FT,
	MUTEX,
	COPY,
	NPEERS
};
enum mode {
	HIT16,
	HIT1K,
	INSERT,
	NMODES
};
static const char *peer_name[NPEERS] = { "ftrail", "mutex", "copy" };

/* NSETS x HOT stacks: set 0 is the shared one; thread t's own is set t */
static uint64_t (*hot)[FT_STACKMAP_MAX_DEPTH];
static struct ft_stackmap ftmap;
static void *ftmem;
static size_t ftlen;
static struct mutex_map mmap_peer;
static pthread_barrier_t barrier;
static volatile uint64_t sink;

struct job {
	enum peer peer;
	int mode; /* HIT16, HIT1K: hits on a hot set; INSERT: first inserts */
	uint32_t depth;
	int tid;
	int own;    /* hits on hot set `tid` (2o) instead of set 0 */
	int cpu;    /* CPU to pin to, -1: not pinned */
	long iters; /* 0: the mode's default */
	double ns_per_call;
	double t0, t1; /* the timed loop, CLOCK_MONOTONIC (overlap of the threads) */
};

/*
 * 2-thread runs: each thread pinned to a CPU of its own (the first ones the
 * process may use), both started by a barrier, hitting the same hot stacks
 * (2s) or each its own (2o), so the lock-free map and the mutex map are
 * compared under real contention.  The share of each run during which the
 * threads ran at the same time is measured (wall-clock intervals of the
 * timed loops) and returned: on a loaded machine they may not overlap
 * much, and then the 2-thread rows say little about contention.
 */
static int cpus[MAXT];
static int ncpus;

static void pick_cpus(void)
{
	cpu_set_t set;

	ncpus = 0;
	if (sched_getaffinity(0, sizeof(set), &set))
		return;
	for (int c = 0; c < CPU_SETSIZE && ncpus < MAXT; c++)
		if (CPU_ISSET(c, &set))
			cpus[ncpus++] = c;
}

static double mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static void gen_hot(uint32_t depth, uint64_t seed)
{
	for (int i = 0; i < NSETS * HOT; i++) {
		for (uint32_t k = 0; k < depth; k++)
			hot[i][k] = 0x401000 + (xorshift(&seed) % 8192) * 16;
		hot[i][0] = 0x7f0000000000ull + (uint64_t)i * 32;
	}
}

static void *run_job(void *arg)
{
	struct job *j = arg;
	uint64_t buf[FT_STACKMAP_MAX_DEPTH], r = 0x9E3779B97F4A7C15ull * (uint64_t)(j->tid + 1);
	/* copy peer: a 1 MiB per-thread buffer written like a ring buffer */
	static __thread uint64_t ring[1 << 17];
	size_t pos = 0;
	long n = j->iters ? j->iters : j->mode == INSERT ? ins_per_thread : hit_iters;
	uint32_t nhot = j->mode == HIT16 ? HOT_SMALL : HOT;
	const uint64_t(*hs)[FT_STACKMAP_MAX_DEPTH] = hot + (j->own ? j->tid * HOT : 0);
	static __thread uint32_t idx[4096];
	uint64_t acc = 0;
	double t0, t1;

	for (int i = 0; i < 4096; i++)
		idx[i] = (uint32_t)(xorshift(&r) % nhot);
	memcpy(buf, hot[j->tid], sizeof(buf));
	memset(ring, 0, sizeof(ring));
	if (j->cpu >= 0) {
		cpu_set_t set;

		CPU_ZERO(&set);
		CPU_SET(j->cpu, &set);
		pthread_setaffinity_np(pthread_self(), sizeof(set), &set);
	}
	pthread_barrier_wait(&barrier);
	j->t0 = mono_ns();
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		const uint64_t *ips;
		int id = 0;

		if (j->mode == INSERT) {
			/* a stack never seen before: a fresh innermost frame */
			buf[0] = 0x10000000ull + ((uint64_t)j->tid << 40) + (uint64_t)i * 16;
			ips = buf;
		} else {
			ips = hs[idx[i & 4095]];
		}
		switch (j->peer) {
		case FT:
			id = ft_stackmap_get_id(&ftmap, ips, j->depth);
			break;
		case MUTEX:
			id = mutex_map_get_id(&mmap_peer, ips, j->depth);
			break;
		case COPY:
			if (pos + j->depth + 2 > (1u << 17))
				pos = 0;
			ring[pos] = j->depth; /* a record header, as a ring buffer has */
			memcpy(&ring[pos + 1], ips, j->depth * 8);
			pos += j->depth + 1;
			break;
		default:
			break;
		}
		acc += (uint64_t)id;
	}
	t1 = now_ns();
	j->t1 = mono_ns();
	sink += acc + ring[pos / 2];
	j->ns_per_call = (t1 - t0) / (double)n;
	if (j->peer == FT) /* its shard goes back, as the runtime's threads do */
		ft_stackmap_thread_detach(&ftmap);
	return NULL;
}

/*
 * Fresh maps (not timed), then nthreads workers, on their own hot sets when
 * own; mean ns per call per thread.  *ovl: the share of the longest loop
 * during which all threads ran (2 threads only).
 */
static double measure_n(enum peer peer, enum mode mode, uint32_t depth, int nthreads, int own,
			double *ovl, long iters, double *rate)
{
	int insert = mode == INSERT, nhot = mode == HIT16 ? HOT_SMALL : HOT;
	int nsets = own ? nthreads : 1;
	struct job jobs[MAXT];
	pthread_t th[MAXT];
	double sum = 0;

	ft_stackmap_init(&ftmap, ftmem, ftlen, insert ? INS_BITS : 14);
	mutex_map_init(&mmap_peer, insert ? INS_BITS : 14);
	if (!insert) /* warm: the hot set is in the map */
		for (int i = 0; i < nsets * HOT; i++) {
			if (i % HOT >= nhot)
				continue;
			if (peer == FT && ft_stackmap_get_id(&ftmap, hot[i], depth) < 0)
				abort();
			if (peer == MUTEX && mutex_map_get_id(&mmap_peer, hot[i], depth) < 0)
				abort();
		}
	pthread_barrier_init(&barrier, NULL, (unsigned)nthreads);
	for (int t = 0; t < nthreads; t++) {
		jobs[t] = (struct job){ .peer = peer,
					.mode = mode,
					.depth = depth,
					.tid = t,
					.own = own,
					.iters = iters };
		/* 2 threads: a CPU each (as before); more: round-robin, oversubscribed */
		jobs[t].cpu = nthreads == 1 || ncpus < 2 ? -1 : cpus[t % ncpus];
		pthread_create(&th[t], NULL, run_job, &jobs[t]);
	}
	for (int t = 0; t < nthreads; t++) {
		pthread_join(th[t], NULL);
		sum += jobs[t].ns_per_call;
	}
	pthread_barrier_destroy(&barrier);
	if (rate) { /* all threads' calls over the wall-clock span of the run */
		double lo = jobs[0].t0, hi = jobs[0].t1;

		for (int t = 1; t < nthreads; t++) {
			lo = jobs[t].t0 < lo ? jobs[t].t0 : lo;
			hi = jobs[t].t1 > hi ? jobs[t].t1 : hi;
		}
		*rate = hi > lo ? (double)nthreads * (double)(iters ? iters : hit_iters) /
					  (hi - lo) * 1e3
				: 0; /* M calls/s */
	}
	if (nthreads > 1) {
		/* the share of the longest loop during which all threads ran */
		double lo = jobs[0].t0, hi = jobs[0].t1, span = 0;

		for (int t = 0; t < nthreads; t++) {
			lo = jobs[t].t0 > lo ? jobs[t].t0 : lo;
			hi = jobs[t].t1 < hi ? jobs[t].t1 : hi;
			if (jobs[t].t1 - jobs[t].t0 > span)
				span = jobs[t].t1 - jobs[t].t0;
		}
		*ovl = span > 0 && hi > lo ? (hi - lo) / span : 0;
	}
	if (peer == FT) {
		struct ft_stackmap_stat st;

		ft_stackmap_get_stat(&ftmap, &st);
		if (st.drops)
			fprintf(stderr, "warning: %llu drops in the ftrail map\n",
				(unsigned long long)st.drops);
	}
	return sum / nthreads;
}

static double measure(enum peer peer, enum mode mode, uint32_t depth, int nthreads, int own,
		      double *ovl)
{
	return measure_n(peer, mode, depth, nthreads, own, ovl, 0, NULL);
}

/* ---- hash functions ---- */

/* ft_hash_stack_avx2 over n hot stacks (the loop compiled for AVX2, so the hash inlines). */
static __attribute__((target("avx2"), noinline)) uint32_t hash_loop_avx2(long n, uint32_t depth,
									 const uint64_t *keys)
{
	uint32_t acc = 0;

	for (long i = 0; i < n; i++)
		acc += ft_hash_stack_avx2(hot[i & (HOT - 1)], depth, keys);
	return acc;
}

static double hash_ns(int which, uint32_t depth)
{
	uint64_t keys[FT_HASH_NKEYS];
	long n = hit_iters;
	uint32_t acc = 0;
	double t0;

	ft_hash_keys(keys, 0x0123456789abcdefull);
	t0 = now_ns();
	if (which == 3 && use_avx2) {
		sink += hash_loop_avx2(n, depth, keys);
		return (now_ns() - t0) / (double)n;
	}
	for (long i = 0; i < n; i++) {
		const uint64_t *w = hot[i & (HOT - 1)];

		if (which == 0)
			acc += ft_hash_jhash2((const uint32_t *)w, depth * 2, (uint32_t)i);
		else if (which == 1)
			acc += ft_hash_mx(w, depth, (uint64_t)i);
		else if (which == 2)
			acc += ft_hash_mum2(w, depth, (uint64_t)i);
		else
			acc += ft_hash_stack(w, depth, keys);
	}
	sink += acc;
	return (now_ns() - t0) / (double)n;
}

/*
 * Mean probes per successful lookup after inserting 2^14 realistic stacks
 * (a shared call path, callers a few return addresses apart, at base) into a 2^15
 * linear-probing table indexed by the top bits, as the map does.  Ideal
 * (uniform hash) at load 0.5: (1 + 1/(1-0.5)) / 2 = 1.5.
 */
static double probe_len_seed(int which, uint64_t base, uint64_t seed)
{
	enum {
		BITS = 15,
		N = 1 << 14
	};
	static uint32_t table[1 << BITS];
	uint64_t s[16] = { 0 }, total = 0, keys[FT_HASH_NKEYS];

	memset(table, 0, sizeof(table));
	ft_hash_keys(keys, seed);
	for (uint32_t k = 0; k < 16; k++)
		s[k] = base + 0x1000 + k * 0x120;
	for (uint32_t i = 0; i < N; i++) {
		uint32_t h, idx, p = 1;

		/* the innermost frames vary a little, like call sites in one function */
		s[0] = base + 0x2000 + (i & 63) * 5;
		s[1] = base + 0x3000 + ((i >> 6) & 63) * 7;
		s[2] = base + 0x4000 + (i >> 12) * 3;
		if (which == 0)
			h = ft_hash_jhash2((const uint32_t *)s, 32, (uint32_t)seed);
		else if (which == 1)
			h = ft_hash_mx(s, 16, seed);
		else if (which == 2)
			h = ft_hash_mum2(s, 16, seed);
		else
			h = ft_hash_stack(s, 16, keys);
		h = h ? h : 1;
		idx = h >> (32 - BITS);
		while (table[idx]) {
			idx = (idx + 1) & ((1u << BITS) - 1);
			p++;
		}
		table[idx] = h;
		total += p;
	}
	return (double)total / N;
}

/* The same, averaged over 8 seeds. */
static double hash_probe_len(int which, uint64_t base)
{
	double sum = 0;

	for (uint64_t k = 0; k < 8; k++)
		sum += probe_len_seed(which, base, 0xfeedface12345678ull * (k + 1) + k);
	return sum / 8;
}

/* Thread configurations, one row each per depth (see the top of the file). */
enum cfg {
	C1,
	C2S,
	C2O,
	NCFGS
};
static const char *cfg_name[NCFGS] = { "1", "2s", "2o" };
static const int cfg_threads[NCFGS] = { 1, 2, 2 };

int main(int argc, char **argv)
{
	static const uint32_t depths[] = { 8, 16, 32, 64 };
	static const char *hname[] = { "jhash2 (kernel)", "mult-xorshift (serial)",
				       "mum pairs (wyhash-like)", "ft_hash_stack (NH+mum)" };
	double res[4][NCFGS][NMODES][NPEERS]; /* depth, configuration, mode, peer */
	double ovl[4][NCFGS];		      /* mean overlap of the row's runs */
	double ovl_cfg[NCFGS] = { 0 };

	for (int a = 1; a < argc; a++) {
		if (!strcmp(argv[a], "-q")) {
			hit_iters = 200000;
			ins_per_thread = 20000;
		} else if (!strcmp(argv[a], "-c")) {
			bench_clock = CLOCK_THREAD_CPUTIME_ID;
		} else {
			fprintf(stderr, "usage: stackmap_bench [-q] [-c]\n");
			return 2;
		}
	}
	pick_cpus();
	__builtin_cpu_init();
	use_avx2 = __builtin_cpu_supports("avx2");
	hot = aligned_alloc(64, sizeof(*hot) * NSETS * HOT);
	ftlen = ft_stackmap_mem_size(INS_BITS);
	ftmem = aligned_alloc(64, ftlen);
	if (!hot || !ftmem)
		return 1;
	memset(ftmem, 0, ftlen); /* fault the pool in: page faults are not get_id's cost */
	gen_hot(FT_STACKMAP_MAX_DEPTH, 1);

	printf("hash functions, ns per stack (and mean probes at load 0.5, ideal 1.50)\n");
	printf("%-24s %7s %7s %7s %7s   %s\n", "hash", "d=8", "d=16", "d=32", "d=64",
	       "probes user/kernel addresses");
	for (int w = 0; w < 4; w++) {
		printf("%-24s", hname[w]);
		for (int d = 0; d < 4; d++)
			printf(" %7.2f", hash_ns(w, depths[d]));
		printf("   %.2f / %.2f\n", hash_probe_len(w, 0x400000),
		       hash_probe_len(w, 0xffffffff81000000ull));
	}

	for (int d = 0; d < 4; d++) {
		gen_hot(depths[d], 7 + (uint64_t)d);
		for (int c = 0; c < NCFGS; c++) {
			int n = 0;

			ovl[d][c] = 0;
			for (int m = 0; m < NMODES; m++) {
				/* inserts are of new, per-thread stacks: 2o would repeat 2s */
				if (c == C2O && m == INSERT) {
					for (int p = 0; p < NPEERS; p++)
						res[d][c][m][p] = 0;
					continue;
				}
				for (int p = 0; p < NPEERS; p++) {
					double o = 0;

					res[d][c][m][p] = measure((enum peer)p, (enum mode)m,
								  depths[d], cfg_threads[c],
								  c == C2O, &o);
					ovl[d][c] += o;
					n++;
				}
			}
			ovl[d][c] /= n;
			ovl_cfg[c] += ovl[d][c] / 4;
		}
	}

	printf("\nget_id, ns per call per thread (%s time); hit16/hit1k: hits spread over "
	       "16 / %d stacks, ins: a new stack each call; copy: full stack into a buffer\n",
	       bench_clock == CLOCK_MONOTONIC ? "wall-clock" : "thread CPU", HOT);
	printf("thr: 1 = one thread; 2s = two threads, same hot stacks; 2o = two threads, each "
	       "its own hot stacks\n(ins is always new per-thread stacks: not repeated in 2o); "
	       "ovl: share of the 2-thread loops that ran at the same time\n");
	printf("%5s %3s | %-23s | %-23s | %6s | %-20s | %7s | %s\n", "", "", "       ftrail",
	       "       mutex", "", "     mutex/ftrail", "copy/ft", "");
	printf("%5s %3s | %7s %7s %7s | %7s %7s %7s | %6s | %6s %6s %6s | %7s | %4s\n", "depth",
	       "thr", "hit16", "hit1k", "ins", "hit16", "hit1k", "ins", "copy", "hit16", "hit1k",
	       "ins", "hit16", "ovl");
	for (int d = 0; d < 4; d++)
		for (int c = 0; c < NCFGS; c++) {
			double(*r)[NPEERS] = res[d][c];
			char ovs[8] = "   -", fi[16] = "      -", mi[16] = "      -",
			     ri[16] = "     -";

			if (cfg_threads[c] > 1)
				snprintf(ovs, sizeof(ovs), "%3.0f%%", 100 * ovl[d][c]);
			if (c != C2O) {
				snprintf(fi, sizeof(fi), "%7.2f", r[INSERT][FT]);
				snprintf(mi, sizeof(mi), "%7.2f", r[INSERT][MUTEX]);
				snprintf(ri, sizeof(ri), "%5.2fx",
					 r[INSERT][MUTEX] / r[INSERT][FT]);
			}
			printf("%5u %3s | %7.2f %7.2f %7s | %7.2f %7.2f %7s | %6.2f | %5.2fx "
			       "%5.2fx %6s | %6.2fx | %s\n",
			       depths[d], cfg_name[c], r[HIT16][FT], r[HIT1K][FT], fi,
			       r[HIT16][MUTEX], r[HIT1K][MUTEX], mi, r[HIT16][COPY],
			       r[HIT16][MUTEX] / r[HIT16][FT], r[HIT1K][MUTEX] / r[HIT1K][FT], ri,
			       r[HIT16][COPY] / r[HIT16][FT], ovs);
		}
	if (ncpus >= 2)
		printf("\n2-thread runs: threads pinned to CPUs %d and %d, started by a barrier; "
		       "mean overlap %.0f%% (2s), %.0f%% (2o)\n",
		       cpus[0], cpus[1], 100 * ovl_cfg[C2S], 100 * ovl_cfg[C2O]);
	else
		printf("\n2-thread runs: only %d CPU available, threads not pinned (no real "
		       "contention)\n",
		       ncpus);
	if (bench_clock != CLOCK_MONOTONIC)
		printf("thread CPU time does not charge a thread for time it sleeps on the mutex "
		       "(futex wait): the mutex rows under contention are a lower bound\n");
	printf("\nwhat each configuration shows (depth 16, mutex/ftrail):\n"
	       "  1  thread : uncontended mutex vs lock-free (no locked op): hit16 %.2f ns, "
	       "%.2fx; hit1k %.2f ns, %.2fx\n"
	       "  2s threads: shared stacks, the mutex's lock and refcounts bounce: "
	       "hit16 %.2f ns, %.2fx; hit1k %.2f ns, %.2fx (ovl %.0f%%)\n"
	       "  2o threads: own stacks, only the mutex's lock bounces: "
	       "hit16 %.2f ns, %.2fx; hit1k %.2f ns, %.2fx (ovl %.0f%%)\n",
	       res[1][C1][HIT16][FT], res[1][C1][HIT16][MUTEX] / res[1][C1][HIT16][FT],
	       res[1][C1][HIT1K][FT], res[1][C1][HIT1K][MUTEX] / res[1][C1][HIT1K][FT],
	       res[1][C2S][HIT16][FT], res[1][C2S][HIT16][MUTEX] / res[1][C2S][HIT16][FT],
	       res[1][C2S][HIT1K][FT], res[1][C2S][HIT1K][MUTEX] / res[1][C2S][HIT1K][FT],
	       100 * ovl[1][C2S], res[1][C2O][HIT16][FT],
	       res[1][C2O][HIT16][MUTEX] / res[1][C2O][HIT16][FT], res[1][C2O][HIT1K][FT],
	       res[1][C2O][HIT1K][MUTEX] / res[1][C2O][HIT1K][FT], 100 * ovl[1][C2O]);
	printf("target: hit at depth 16 <= 10 ns and >= 5x cheaper than the mutex map with 2 "
	       "threads\n");

	/* scaling: depth 16, hit16, 1..8 threads */
	gen_hot(16, 8);
	printf("\nscaling, depth 16, hit16: ns per call per thread (%s time) and aggregate M calls/s "
	       "over the run's wall-clock span;\nthreads pinned round-robin to %d CPU(s): more "
	       "threads than CPUs is oversubscription\n",
	       bench_clock == CLOCK_MONOTONIC ? "wall-clock" : "thread CPU", ncpus);
	printf("%4s | %-31s | %-31s\n", "", "     own stacks (2o-like)",
	       "     shared stacks (2s-like)");
	printf("%4s | %7s %7s %6s %8s | %7s %7s %6s %8s\n", "thr", "ftrail", "mutex", "m/ft",
	       "ft Mc/s", "ftrail", "mutex", "m/ft", "ft Mc/s");
	for (int n = 1; n <= MAXT; n *= 2) {
		double r[2][2], rate[2][2], o = 0;

		for (int sh = 0; sh < 2; sh++)
			for (int p = 0; p < 2; p++)
				r[sh][p] = measure_n((enum peer)p, HIT16, 16, n, !sh, &o,
						     hit_iters / 2, &rate[sh][p]);
		printf("%4d | %7.2f %7.2f %5.2fx %8.1f | %7.2f %7.2f %5.2fx %8.1f\n", n, r[0][FT],
		       r[0][MUTEX], r[0][MUTEX] / r[0][FT], rate[0][FT], r[1][FT], r[1][MUTEX],
		       r[1][MUTEX] / r[1][FT], rate[1][FT]);
	}
	(void)peer_name;
	return 0;
}
