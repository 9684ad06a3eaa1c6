// SPDX-License-Identifier: GPL-2.0
/*
 * A signal handler that inserts into the stack map while the thread it
 * interrupted is inside get_id (our analogue of an NMI hitting the
 * kernel's stack map during an insert).
 *
 * A POSIX timer fires SIGALRM every 50 us at the main thread.  The main
 * thread runs rounds: reset the map (signals blocked, as tracing is
 * stopped), then insert a set of stacks in a shuffled order and hit them
 * again, with a flag set around each get_id.  The handler calls get_id on
 * stacks of the same set (so it inserts stacks the main thread is
 * inserting at that very moment) and on stacks of its own, and counts the
 * calls that found the flag set: they interrupted a get_id.  The test
 * fails if none did (outside TSan, which defers asynchronous signals to
 * its own safe points), if any id does not resolve to its stack, on a
 * deadlock (the harness timeout), or if reference counts do not add up to
 * the successes of main thread and handler together.
 *
 * Scale with FTRAIL_STRESS_SCALE (a float, default 1).
 */
#include <errno.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/stackmap.h"

#ifdef __SANITIZE_THREAD__
#define TSAN 1
#else
#define TSAN 0
#endif

#define NSTACKS 6000 /* shared by main thread and handler */
#define NOWN 1000    /* the handler's own */
#define DEPTH_MAX 48

static uint64_t stacks[NSTACKS + NOWN][DEPTH_MAX];
static uint32_t depths[NSTACKS + NOWN];
static struct ft_stackmap *map;

/* Set by the main thread around get_id; read by the handler. */
static volatile sig_atomic_t in_get_id;
/* Written by the handler only (one thread), read by main with signals blocked. */
static atomic_ulong h_calls, h_inside, h_inside_insert, h_ok, h_fallback, h_bad;
static uint64_t h_rng = 0x1234567;

#define die(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, "stackmap_signal: " __VA_ARGS__);                                  \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

static int matches(int id, uint32_t i)
{
	const uint64_t *ips;
	uint32_t nr;

	return ft_stackmap_lookup(map, (uint32_t)id, &ips, &nr, NULL) == 0 && nr == depths[i] &&
	       !memcmp(ips, stacks[i], nr * sizeof(*ips));
}

/* Async-signal-safe: get_id and lookup only touch the map with atomics. */
static void on_alarm(int sig)
{
	int saved = errno, id;
	uint32_t i;

	atomic_fetch_add_explicit(&h_calls, 1, memory_order_relaxed);
	if (in_get_id) {
		atomic_fetch_add_explicit(&h_inside, 1, memory_order_relaxed);
		if (in_get_id == 2)
			atomic_fetch_add_explicit(&h_inside_insert, 1, memory_order_relaxed);
	}
	/* two calls: one from the shared set, one of the handler's own */
	for (int k = 0; k < 2; k++) {
		i = k ? NSTACKS + (uint32_t)(xorshift(&h_rng) % NOWN)
		      : (uint32_t)(xorshift(&h_rng) % NSTACKS);
		id = ft_stackmap_get_id(map, stacks[i], depths[i]);
		if (id >= 0) {
			atomic_fetch_add_explicit(&h_ok, 1, memory_order_relaxed);
			if (!matches(id, i))
				atomic_fetch_add_explicit(&h_bad, 1, memory_order_relaxed);
		} else {
			atomic_fetch_add_explicit(&h_fallback, 1, memory_order_relaxed);
		}
	}
	errno = saved;
}

static int sum_refs(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	uint32_t i = (uint32_t)((ips[0] - 0x700000) / 8);

	if (ips[0] < 0x700000 || i >= NSTACKS + NOWN || depths[i] != nr ||
	    memcmp(stacks[i], ips, nr * sizeof(*ips)))
		die("map holds an unknown stack at id %u", id);
	*(uint64_t *)arg += ref;
	return 0;
}

/* With signals blocked: refs add up to the successes of main and handler. */
static void check(int round, uint64_t m_ok)
{
	struct ft_stackmap_stat st;
	uint64_t refs = 0;

	ft_stackmap_get_stat(map, &st);
	if (ft_stackmap_for_each(map, sum_refs, &refs))
		die("walk failed");
	if (refs != st.successes || st.successes != m_ok + atomic_load(&h_ok))
		die("round %d: refs %llu, successes %llu, main %llu + handler %llu", round,
		    (unsigned long long)refs, (unsigned long long)st.successes,
		    (unsigned long long)m_ok, (unsigned long long)atomic_load(&h_ok));
	if (atomic_load(&h_bad))
		die("a handler's id resolved to another stack");
	if (st.drops)
		die("%llu drops", (unsigned long long)st.drops);
}

int main(void)
{
	const char *env = getenv("FTRAIL_STRESS_SCALE");
	const char *isa = getenv("FTRAIL_TEST_ISA");
	double scale = env ? atof(env) : 1.0;
	struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };
	struct sigevent sev = { 0 };
	struct sigaction sa = { 0 };
	uint64_t r = 42, m_ok = 0, m_fallback = 0;
	uint32_t order[NSTACKS];
	uint8_t seen[NSTACKS];
	sigset_t alrm;
	timer_t timer;
	int rounds;

	if (scale <= 0)
		scale = 1.0;
	/* tests/run.sh runs it again as a CPU without AVX2 would */
	if (isa && !strcmp(isa, "base"))
		ft_stackmap_use_avx2(0);
	rounds = (int)((TSAN ? 15 : 150) * scale);
	if (rounds < 1)
		rounds = 1;
	for (uint32_t i = 0; i < NSTACKS + NOWN; i++) {
		depths[i] = 4 + (uint32_t)(xorshift(&r) % (DEPTH_MAX - 4));
		stacks[i][0] = 0x700000 + (uint64_t)i * 8;
		for (uint32_t k = 1; k < depths[i]; k++)
			stacks[i][k] = 0x401000 + (xorshift(&r) % 512) * 16;
	}
	map = ft_stackmap_create(14); /* 16384 >= NSTACKS + NOWN + duplicates */
	if (!map)
		die("cannot create map");

	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	sa.sa_handler = on_alarm;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sev.sigev_notify = SIGEV_THREAD_ID;
	sev.sigev_signo = SIGALRM;
	sev._sigev_un._tid = (pid_t)syscall(SYS_gettid);
	if (timer_create(CLOCK_MONOTONIC, &sev, &timer))
		die("timer_create: %s", strerror(errno));

	sigprocmask(SIG_BLOCK, &alrm, NULL);
	timer_settime(timer, 0, &its, NULL);

	for (int round = 0; round < rounds; round++) {
		/* signals blocked: "tracing stopped"; check the last round, reset */
		check(round, m_ok);
		if (ft_stackmap_reset(map))
			die("reset failed");
		m_ok = 0;
		atomic_store(&h_ok, 0);

		for (uint32_t i = 0; i < NSTACKS; i++)
			order[i] = i;
		for (uint32_t i = NSTACKS - 1; i > 0; i--) {
			uint32_t j = (uint32_t)(xorshift(&r) % (i + 1)), t = order[i];

			order[i] = order[j];
			order[j] = t;
		}
		memset(seen, 0, sizeof(seen));
		sigprocmask(SIG_UNBLOCK, &alrm, NULL);
		for (int pass = 0; pass < 3; pass++) {
			for (uint32_t n = 0; n < NSTACKS; n++) {
				uint32_t i = order[n];
				int id;

				in_get_id = seen[i] ? 1 : 2;
				atomic_signal_fence(memory_order_seq_cst);
				id = ft_stackmap_get_id(map, stacks[i], depths[i]);
				atomic_signal_fence(memory_order_seq_cst);
				in_get_id = 0;
				seen[i] = 1;
				if (id < 0) {
					m_fallback++;
					continue;
				}
				m_ok++;
				if (!matches(id, i))
					die("id %d does not resolve to stack %u", id, i);
			}
		}
		sigprocmask(SIG_BLOCK, &alrm, NULL);
	}
	timer_delete(timer);
	check(rounds, m_ok);

	printf("%d rounds: handler ran %lu times, %lu inside get_id (%lu inside a first "
	       "insert), handler get_id ok %lu / fallback %lu; main fallbacks %llu\n",
	       rounds, atomic_load(&h_calls), atomic_load(&h_inside), atomic_load(&h_inside_insert),
	       atomic_load(&h_ok), atomic_load(&h_fallback), (unsigned long long)m_fallback);
	if (!atomic_load(&h_calls))
		die("the timer never fired");
	if (!atomic_load(&h_inside) && !TSAN)
		die("no signal interrupted a get_id: the test proved nothing");
	if (m_fallback || atomic_load(&h_fallback))
		die("unexpected fallbacks in a map far from full");
	ft_stackmap_destroy(map);
	printf("PASS\n");
	return 0;
}
