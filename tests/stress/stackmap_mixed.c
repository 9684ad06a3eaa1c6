// SPDX-License-Identifier: GPL-2.0
/*
 * Everything at once on one stack map: several threads inserting and
 * hitting, each interrupted every 40 us by its own timer signal whose
 * handler calls get_id too (nested on the thread's shard), a reader
 * walking and exporting, and a controller resetting between "tracing
 * sessions".  The per-thread shards, the reference-count caches folded at
 * export and reset's membarrier handshake are all on the line:
 *
 * Phase 1 (resets): at the end the reference counts must add up to the
 * successes exactly.  A reset that did not wait for a caller (the
 * membarrier half of the handshake missing) lets that caller's count land
 * after the clearing, or be cleared with its success, and breaks it; so
 * does a count cached in a shard and missed by the fold.
 *
 * Phase 2 (no reset): every call a thread or a handler saw succeed is one
 * success, no more, no less, and the refs add up again.
 *
 * Half the calls of a thread whose stack it got an id for before take
 * ft_stackmap_hit() with that id and the generation read before the
 * get_id that gave it (the runtime's -T memo), handlers' too, and half of
 * the thread's take ft_stackmap_hit_ref() with the element
 * ft_stackmap_ref() gave after that get_id (the memo's): a hit on an
 * id a reset made void must be refused (else the counts above break, and
 * in phase 2 the id must name the stack), and a hit must count as a
 * get_id hit does.
 *
 * Fails also if no handler ever interrupted a get_id (outside TSan, which
 * defers asynchronous signals), on a deadlock (the harness timeout), if an
 * id resolves to another stack, or a reader sees a stack never inserted.
 *
 * Scale with FTRAIL_STRESS_SCALE (a float, default 1).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#ifdef __SANITIZE_THREAD__
#define TSAN 1
#else
#define TSAN 0
#endif

#define STRESS_NAME "stackmap_mixed"
#define NSTACKS 1024
#define STACK_BASE 0x600000
#define NTHREADS 4

#include "tests/stress/stackmap_harness.h"

static atomic_int stop_threads, stop_reader, check_ids;
static atomic_ullong total_ok, total_calls, total_inside, total_hits;

/*
 * Per worker: the id get_id gave for each stack and the generation read
 * before that call, -1 for none; written by the worker, read by its
 * handler (a handler that sees an id with an older generation is refused).
 * Kept from phase 1 to phase 2, so phase 2 starts with ids of the map
 * before the reset between them: hits must refuse every one.
 */
struct memo {
	int id[NSTACKS];
	uint32_t gen[NSTACKS];
	uint32_t ref[NSTACKS]; /* the worker's only */
};
static struct memo memos[NTHREADS];
static __thread struct memo *memo;
static __thread uint64_t t_hits;

/* Per thread, shared with its own signal handler only. */
static __thread volatile sig_atomic_t in_get_id;
static __thread uint64_t t_ok, h_ok, h_calls, h_inside, h_rng;
static __thread volatile sig_atomic_t h_bad;
/* set once the thread is done: TSan may run a deferred handler even later */
static __thread volatile sig_atomic_t h_done;

static void gen_stacks(void)
{
	uint64_t r = 0x2545F4914F6CDD1Dull;

	for (int i = 0; i < NSTACKS; i++) {
		depths[i] = 4 + (uint32_t)(xorshift(&r) % 29); /* 4..32 */
		for (uint32_t k = 0; k < depths[i]; k++)
			stacks[i][k] = 0x401000 + (xorshift(&r) % 4096) * 8;
		stacks[i][0] = STACK_BASE + (uint64_t)i * 4; /* unique innermost frame */
	}
}

/* 1 when id is stack i's (lookup is async-signal-safe: loads only). */
static int resolves(int id, uint32_t i)
{
	const uint64_t *ips;
	uint32_t nr;

	return ft_stackmap_lookup(map, (uint32_t)id, &ips, &nr, NULL) == 0 && nr == depths[i] &&
	       !memcmp(ips, stacks[i], nr * sizeof(*ips));
}

static void on_timer(int sig)
{
	int saved = errno, id;
	uint32_t i;

	(void)sig;
	if (h_done || !memo || !atomic_load_explicit(&tracing_on, memory_order_relaxed))
		goto out;
	h_calls++;
	if (in_get_id)
		h_inside++;
	i = (uint32_t)(xorshift(&h_rng) % NSTACKS);
	id = -1;
	if (memo->id[i] >= 0) /* -EAGAIN when it interrupted a call: then get_id */
		id = ft_stackmap_hit(map, (uint32_t)memo->id[i], memo->gen[i]);
	if (id < 0)
		id = ft_stackmap_get_id(map, stacks[i], depths[i]);
	if (id >= 0) {
		h_ok++;
		if (atomic_load_explicit(&check_ids, memory_order_relaxed) && !resolves(id, i))
			h_bad = 1;
	} else if (id != -EINVAL) {
		h_bad = 1; /* -ENOSPC: the map is far from full */
	}
out:
	errno = saved;
}

static void *worker(void *arg)
{
	long t = (long)arg;
	uint64_t r = 0x9E3779B97F4A7C15ull * (uint64_t)(t + 1), calls = 0;
	struct sigevent sev = { 0 };
	struct itimerspec its = { { 0, 40 * 1000 }, { 0, 40 * 1000 } };
	timer_t tm;
	sigset_t set;

	h_rng = r ^ 0x1234;
	memo = &memos[t];
	t_hits = 0;
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGRTMIN;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &tm))
		die("timer_create: %s", strerror(errno));
	timer_settime(tm, 0, &its, NULL);
	while (!atomic_load_explicit(&stop_threads, memory_order_relaxed)) {
		uint32_t i = (uint32_t)(xorshift(&r) % NSTACKS);
		int id;

		if (!atomic_load_explicit(&tracing_on, memory_order_relaxed))
			continue;
		in_get_id = 1;
		id = -1;
		if (memo->id[i] >= 0 && (calls & 1)) {
			id = calls & 2 ? ft_stackmap_hit_ref(map, (uint32_t)memo->id[i],
							     memo->ref[i], memo->gen[i])
				       : ft_stackmap_hit(map, (uint32_t)memo->id[i], memo->gen[i]);
			if (id >= 0 && id != memo->id[i])
				die("hit returned %d for id %d", id, memo->id[i]);
			if (id >= 0)
				t_hits++;
			else if (id != -EINVAL && id != -EAGAIN)
				die("hit returned %d", id);
		}
		if (id < 0) {
			/* the generation before the call: an id of a later one is refused, never wrong */
			uint32_t g = ft_stackmap_gen(map);

			id = ft_stackmap_get_id(map, stacks[i], depths[i]);
			if (id >= 0) {
				memo->gen[i] = g;
				/* a reset in between voids it with the id: gen is older */
				memo->ref[i] = ft_stackmap_ref(map, (uint32_t)id);
				atomic_signal_fence(
					memory_order_seq_cst); /* gen before id (handler) */
				memo->id[i] = id;
			}
		}
		in_get_id = 0;
		calls++;
		if (id >= 0) {
			t_ok++;
			if (atomic_load_explicit(&check_ids, memory_order_relaxed) &&
			    !resolves(id, i))
				die("id %d resolves to another stack than %u", id, i);
		} else if (id != -EINVAL) {
			die("get_id returned %d in a map far from full", id);
		}
	}
	timer_delete(tm);
	sigemptyset(&set);
	sigaddset(&set, SIGRTMIN);
	pthread_sigmask(SIG_BLOCK, &set, NULL); /* a pending one must not run after this */
	/*
	 * ... but TSan defers a signal it caught to its next interceptor,
	 * which may come after the detach below: such a handler would claim a
	 * new shard for a thread about to end.  It does nothing once h_done.
	 */
	h_done = 1;
	atomic_signal_fence(memory_order_seq_cst); /* before the detach */
	if (h_bad)
		die("a handler's id did not resolve to its stack, or it was dropped");
	atomic_fetch_add(&total_ok, t_ok + h_ok);
	atomic_fetch_add(&total_calls, calls + h_calls);
	atomic_fetch_add(&total_inside, h_inside);
	atomic_fetch_add(&total_hits, t_hits);
	ft_stackmap_thread_detach(map);
	return NULL;
}

static int known_cb(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	(void)id;
	(void)ref;
	(void)arg;
	if (!is_known(ips, nr))
		die("a reader saw a stack never inserted (depth %u)", nr);
	return 0;
}

static void *reader(void *arg)
{
	long *walks = arg;
	char err[256];

	while (!atomic_load(&stop_reader)) {
		size_t len;
		void *bin;
		int ret = ft_stackmap_for_each(map, known_cb, NULL);

		if (ret && ret != -EBUSY)
			die("for_each returned %d", ret);
		bin = ft_stackmap_export_bin(map, &len);
		if (!bin && errno == EBUSY)
			continue;
		if (!bin)
			die("export failed");
		if (ft_fsmb_parse(bin, len, known_cb, NULL, err, sizeof(err)))
			die("export of a live map does not parse: %s", err);
		free(bin);
		(*walks)++;
	}
	return NULL;
}

static int sum_refs(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	(void)id;
	(void)ips;
	(void)nr;
	*(uint64_t *)arg += ref;
	return 0;
}

/* Start the workers and the reader; run `rounds` resets (0: none) or sleep. */
static void run_phase(const char *name, int rounds, double secs)
{
	pthread_t th[NTHREADS], rd;
	long walks = 0, resets = 0, busy = 0;
	struct ft_stackmap_stat st;
	uint64_t refs = 0;

	atomic_store(&stop_threads, 0);
	atomic_store(&stop_reader, 0);
	atomic_store(&total_ok, 0);
	atomic_store(&total_calls, 0);
	atomic_store(&total_inside, 0);
	atomic_store(&total_hits, 0);
	atomic_store(&tracing_on, 1);
	pthread_create(&rd, NULL, reader, &walks);
	for (long t = 0; t < NTHREADS; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	for (int r = 0; r < rounds; r++)
		reset_round(300, &resets, &busy); /* handlers may be inside get_id too */
	{
		struct timespec nap = { (time_t)secs, (long)((secs - (time_t)secs) * 1e9) };

		nanosleep(&nap, NULL);
	}
	atomic_store(&stop_threads, 1);
	for (int t = 0; t < NTHREADS; t++)
		pthread_join(th[t], NULL);
	atomic_store(&stop_reader, 1);
	pthread_join(rd, NULL);

	ft_stackmap_get_stat(map, &st);
	if (ft_stackmap_for_each(map, sum_refs, &refs))
		die("%s: final walk failed", name);
	if (refs != st.successes)
		die("%s: refs sum to %llu but successes = %llu", name, (unsigned long long)refs,
		    (unsigned long long)st.successes);
	if (st.drops || st.claimed_empty)
		die("%s: %llu drops, %u claimed-but-empty in a map far from full", name,
		    (unsigned long long)st.drops, st.claimed_empty);
	if (st.threads)
		die("%s: %u shards still claimed after every thread detached", name, st.threads);
	if (!rounds && st.successes != atomic_load(&total_ok))
		die("%s: %llu successes counted, %llu calls served", name,
		    (unsigned long long)st.successes, (unsigned long long)atomic_load(&total_ok));
	if (rounds && !resets)
		die("%s: no reset succeeded", name);
	if (!TSAN && !atomic_load(&total_inside))
		die("%s: no handler interrupted a get_id", name);
	if (!atomic_load(&total_hits))
		die("%s: no call went through ft_stackmap_hit", name);
	printf("%s: %llu calls (%llu by hit), %llu successes, %llu handler calls inside get_id, "
	       "%ld resets (%ld busy), %ld reader walks\n",
	       name, (unsigned long long)atomic_load(&total_calls),
	       (unsigned long long)atomic_load(&total_hits), (unsigned long long)st.successes,
	       (unsigned long long)atomic_load(&total_inside), resets, busy, walks);
}

int main(void)
{
	double scale = stress_scale();
	struct sigaction sa = { 0 };

	stress_isa();
	gen_stacks();
	memset(memos, 0xff, sizeof(memos)); /* no ids yet */
	map = ft_stackmap_create(12);
	if (!map)
		die("cannot create map");
	map->tracing_is_on = is_tracing;
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGRTMIN, &sa, NULL);

	run_phase("phase 1 (resets)", (int)((TSAN ? 30 : 150) * scale), 0.05);
	atomic_store(&tracing_on, 0);
	if (ft_stackmap_reset(map))
		die("reset failed with nobody in flight");
	atomic_store(&check_ids, 1);
	run_phase("phase 2 (no reset)", 0, (TSAN ? 0.3 : 0.5) * scale);
	ft_stackmap_destroy(map);
	printf("PASS\n");
	return 0;
}
