// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of the stack map with several threads (the hammer of
 * kernel/trace's ring_buffer self-test, for the map).
 *
 * Phase 1: NTHREADS threads insert overlapping sets of stacks, millions of
 * get_id calls in total, while a reader thread walks the map and exports
 * it.  Checks: every id a thread gets resolves to exactly the stack it
 * passed; every stack a reader sees is one of the generated stacks, whole;
 * at the end, the sum of the reference counts equals the successes, no
 * drops, and duplicates (tolerated under races) are few.
 *
 * Phase 2: the same inserters while a controller stops "tracing", resets
 * the map and restarts, over and over.  Reset must drain callers already
 * inside get_id: if it did not, a late caller's reference would survive
 * the clearing (or be cleared with its success), and the final check
 * "sum of refs == successes" would fail.
 *
 * Scale with FTRAIL_STRESS_SCALE (a float, default 1); the default keeps
 * the TSan build at a few seconds on 2 cores.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if defined(__SANITIZE_THREAD__)
#define SLOW_BUILD 2 /* ~10x slower, and 2 cores: keep it to a few seconds */
#elif defined(__SANITIZE_ADDRESS__)
#define SLOW_BUILD 1
#else
#define SLOW_BUILD 0
#endif

#define STRESS_NAME "stackmap_threads"
#define NSTACKS 2048
#define STACK_BASE 0x500000
#define NTHREADS 4

#include "tests/stress/stackmap_harness.h"

static atomic_int stop_readers, stop_all;
static atomic_ullong calls_ok, calls_fallback;
static long iters_per_thread;
/* Off in phase 2: a reset may come between get_id and the lookup. */
static int verify_ids = 1;
/* On in phase 2: walks may meet a reset and get -EBUSY. */
static int allow_busy;

static void gen_stacks(void)
{
	uint64_t r = 88172645463325252ull;

	for (int i = 0; i < NSTACKS; i++) {
		/* shared outer frames (main, start), varying inner ones */
		depths[i] = 1 + (uint32_t)(xorshift(&r) % FT_STACKMAP_MAX_DEPTH);
		for (uint32_t k = 0; k < depths[i]; k++)
			stacks[i][k] = k + 2 >= depths[i] ? 0x401000 + k * 0x10
							  : 0x402000 + (xorshift(&r) % 4096) * 8;
		stacks[i][0] = STACK_BASE + (uint64_t)i * 4; /* unique innermost frame */
	}
}

static void *inserter(void *arg)
{
	long t = (long)arg;
	uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1), ok = 0, fb = 0;

	for (long n = 0; n < iters_per_thread && !atomic_load(&stop_all); n++) {
		/* thread t works on a window of half the stacks, overlapping its neighbours' */
		uint32_t i = (uint32_t)((t * NSTACKS / 8 + xorshift(&r) % (NSTACKS / 2)) % NSTACKS);
		const uint64_t *ips;
		uint32_t nr;
		int id;

		if (!atomic_load_explicit(&tracing_on, memory_order_relaxed)) {
			n--;
			continue;
		}
		id = ft_stackmap_get_id(map, stacks[i], depths[i]);
		if (id == -EINVAL || id == -ENOSPC) { /* reset running, or full: fall back */
			fb++;
			continue;
		}
		if (id < 0)
			die("get_id returned %d", id);
		ok++;
		if (!verify_ids)
			continue;
		if (ft_stackmap_lookup(map, (uint32_t)id, &ips, &nr, NULL))
			die("id %d of stack %u does not resolve", id, i);
		if (nr != depths[i] || memcmp(ips, stacks[i], nr * sizeof(*ips)))
			die("id %d resolves to another stack than %u", id, i);
	}
	atomic_fetch_add(&calls_ok, ok);
	atomic_fetch_add(&calls_fallback, fb);
	return NULL;
}

static int check_known(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	if (!is_known(ips, nr))
		die("reader saw a stack that was never inserted (id %u, depth %u)", id, nr);
	*(uint64_t *)arg += ref;
	return 0;
}

static void *reader(void *arg)
{
	long walks = 0;
	char err[256];

	while (!atomic_load(&stop_readers)) {
		uint64_t refs = 0;
		size_t len;
		void *bin;

		if (ft_stackmap_for_each(map, check_known, &refs) < 0 && !allow_busy)
			die("for_each failed without a reset");
		bin = ft_stackmap_export_bin(map, &len);
		if (!bin && allow_busy && errno == EBUSY)
			continue;
		if (!bin)
			die("export failed");
		if (ft_fsmb_parse(bin, len, check_known, &refs, err, sizeof(err)))
			die("export of a live map does not parse: %s", err);
		free(bin);
		walks++;
	}
	*(long *)arg = walks;
	return NULL;
}

struct totals {
	uint64_t refs, entries, distinct;
	uint8_t seen[NSTACKS];
};

static int total_one(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct totals *t = arg;
	uint32_t i = (uint32_t)((ips[0] - STACK_BASE) / 4);

	if (!is_known(ips, nr))
		die("map holds an unknown stack at id %u", id);
	t->refs += ref;
	t->entries++;
	if (!t->seen[i]++)
		t->distinct++;
	return 0;
}

static void final_check(const char *phase, int allow_fallback)
{
	struct ft_stackmap_stat st;
	struct totals *t = calloc(1, sizeof(*t));

	ft_stackmap_get_stat(map, &st);
	if (ft_stackmap_for_each(map, total_one, t))
		die("%s: final walk failed", phase);
	if (t->refs != st.successes)
		die("%s: refs sum to %llu but successes = %llu", phase, (unsigned long long)t->refs,
		    (unsigned long long)st.successes);
	if (st.drops)
		die("%s: %llu drops in a map far from full", phase, (unsigned long long)st.drops);
	if (t->entries != st.entries || st.claimed_empty)
		die("%s: %llu stacks listed, %u entries, %u claimed-but-empty", phase,
		    (unsigned long long)t->entries, st.entries, st.claimed_empty);
	if (!allow_fallback && st.successes != atomic_load(&calls_ok))
		die("%s: %llu successes counted, %llu calls served", phase,
		    (unsigned long long)st.successes, (unsigned long long)atomic_load(&calls_ok));
	printf("%s: %llu calls, %llu successes, %llu fallbacks, %u entries for %llu distinct "
	       "stacks (%llu duplicates)\n",
	       phase, (unsigned long long)(atomic_load(&calls_ok) + atomic_load(&calls_fallback)),
	       (unsigned long long)st.successes, (unsigned long long)atomic_load(&calls_fallback),
	       st.entries, (unsigned long long)t->distinct,
	       (unsigned long long)(t->entries - t->distinct));
	if (t->entries - t->distinct > t->distinct / 10)
		die("%s: too many duplicates", phase);
	free(t);
}

int main(void)
{
	double scale = stress_scale();
	pthread_t th[NTHREADS], rd;
	long walks = 0, resets = 0, busy = 0;
	struct timespec t0, t1;

	stress_isa();
	gen_stacks();
	map = ft_stackmap_create(14);
	if (!map)
		die("cannot create map");
	map->tracing_is_on = is_tracing;

	/* Phase 1: inserters and a reader. */
	iters_per_thread = (long)((SLOW_BUILD == 2 ? 150000
				   : SLOW_BUILD	   ? 250000
						   : 1000000) *
				  scale);
	atomic_store(&tracing_on, 1);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_create(&rd, NULL, reader, &walks);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, inserter, (void *)t);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	atomic_store(&stop_readers, 1);
	pthread_join(rd, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	final_check("phase 1", 0);
	printf("phase 1: %ld reader walks, %.2f s\n", walks,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9);

	/* Phase 2: resets between tracing sessions while callers are in flight. */
	atomic_store(&calls_ok, 0);
	atomic_store(&calls_fallback, 0);
	if (ft_stackmap_reset(map) == 0)
		/* tracing is on: reset must refuse */
		die("reset succeeded while tracing was on");
	iters_per_thread = __LONG_MAX__; /* until stop_all */
	verify_ids = 0;
	allow_busy = 1;
	atomic_store(&stop_readers, 0);
	pthread_create(&rd, NULL, reader, &walks);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, inserter, (void *)t);
	for (int round = 0; round < (int)((SLOW_BUILD == 2 ? 25
					   : SLOW_BUILD	   ? 40
							   : 150) *
					  scale);
	     round++)
		reset_round(200, &resets, &busy);
	{
		/* a last session, so the map is checked with stacks in it */
		struct timespec nap = { 0, 20 * 1000 * 1000 };

		nanosleep(&nap, NULL);
	}
	atomic_store(&stop_all, 1);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	atomic_store(&stop_readers, 1);
	pthread_join(rd, NULL);
	if (!resets)
		die("no reset succeeded");
	final_check("phase 2", 1);
	printf("phase 2: %ld resets, %ld busy, %ld reader walks\n", resets, busy, walks);
	ft_stackmap_destroy(map);
	printf("PASS\n");
	return 0;
}
