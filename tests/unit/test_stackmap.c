// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the stack map (core/stackmap.c): one test per rule of the
 * design it follows, ftrace's proposed lock-free stackmap (doc/stackmap.md,
 * the contract atop core/stackmap.c).  The concurrent rules (threads, a signal
 * handler interrupting an insert) are in tests/stress/stackmap_*.c.
 */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/mman.h>
#include <sys/wait.h>

#include <cmocka.h>

#include "core/stackmap.h"

/* A stack of depth nr unique to `seed` (return-address-like values). */
static void mkstack(uint64_t *ips, uint32_t nr, uint32_t seed)
{
	for (uint32_t i = 0; i < nr; i++)
		ips[i] = 0x401000 + (uint64_t)seed * 0x40 + i * 0x1000 + (seed % 7);
}

static uint32_t hash_zero(const uint64_t *ips, uint32_t nr, void *arg)
{
	return 0;
}

static uint32_t hash_const(const uint64_t *ips, uint32_t nr, void *arg)
{
	return 0x12345678;
}

static int tracing_on_flag;

static int tracing_is_on(void *arg)
{
	return *(int *)arg;
}

static void test_bits_clamp(void **state)
{
	struct ft_stackmap_stat st;
	struct ft_stackmap *h;

	assert_int_equal(ft_stackmap_clamp_bits(0), 14);
	assert_int_equal(ft_stackmap_clamp_bits(1), 10);
	assert_int_equal(ft_stackmap_clamp_bits(9), 10);
	assert_int_equal(ft_stackmap_clamp_bits(10), 10);
	assert_int_equal(ft_stackmap_clamp_bits(14), 14);
	assert_int_equal(ft_stackmap_clamp_bits(18), 18);
	assert_int_equal(ft_stackmap_clamp_bits(19), 18);
	assert_int_equal(ft_stackmap_clamp_bits(1000), 18);
	assert_true(ft_stackmap_mem_size(3) == ft_stackmap_mem_size(10));
	assert_true(ft_stackmap_mem_size(0) == ft_stackmap_mem_size(14));

	h = ft_stackmap_create(0);
	assert_non_null(h);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.max_entries, 16384);
	assert_int_equal(st.table_size, 32768);
	assert_int_equal(st.entries, 0);
	ft_stackmap_destroy(h);

	h = ft_stackmap_create(2);
	assert_non_null(h);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.max_entries, 1024);
	assert_int_equal(st.table_size, 2048);
	ft_stackmap_destroy(h);

	h = ft_stackmap_create(40);
	assert_non_null(h);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.max_entries, 1u << 18);
	assert_int_equal(st.table_size, 1u << 19);
	ft_stackmap_destroy(h);
}

static void test_basic_ids_and_refs(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	uint64_t a[16], b[16], big[70];
	const uint64_t *ips;
	struct ft_stackmap_stat st;
	uint32_t nr, ref, free_id;
	int ia, ib, id;

	mkstack(a, 16, 1);
	mkstack(b, 16, 2);
	ia = ft_stackmap_get_id(h, a, 16);
	ib = ft_stackmap_get_id(h, b, 16);
	assert_true(ia >= 0 && ib >= 0 && ia != ib);
	for (int i = 0; i < 9; i++)
		assert_int_equal(ft_stackmap_get_id(h, a, 16), ia);
	/* a prefix of a is another stack */
	id = ft_stackmap_get_id(h, a, 15);
	assert_true(id >= 0 && id != ia);

	assert_int_equal(ft_stackmap_lookup(h, ia, &ips, &nr, &ref), 0);
	assert_int_equal(nr, 16);
	assert_int_equal(ref, 10);
	assert_memory_equal(ips, a, sizeof(a));
	assert_int_equal(ft_stackmap_lookup(h, ib, &ips, &nr, &ref), 0);
	assert_int_equal(ref, 1);
	assert_memory_equal(ips, b, sizeof(b));
	/* a free slot: the first id none of the three stacks took */
	free_id = 0;
	while (free_id == (uint32_t)ia || free_id == (uint32_t)ib || free_id == (uint32_t)id)
		free_id++;
	assert_int_equal(ft_stackmap_lookup(h, free_id, &ips, &nr, &ref), -ENOENT);
	assert_int_equal(ft_stackmap_lookup(h, 1u << 30, &ips, &nr, &ref), -ENOENT);

	/* nr == 0 is refused; nr > 64 is clamped to the first 64 frames */
	assert_int_equal(ft_stackmap_get_id(h, a, 0), -EINVAL);
	mkstack(big, 70, 3);
	id = ft_stackmap_get_id(h, big, 70);
	assert_true(id >= 0);
	assert_int_equal(ft_stackmap_get_id(h, big, 64), id);
	assert_int_equal(ft_stackmap_lookup(h, id, &ips, &nr, &ref), 0);
	assert_int_equal(nr, 64);
	assert_int_equal(ref, 2);

	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 4);
	assert_int_equal(st.successes, 10 + 1 + 1 + 2);
	assert_int_equal(st.drops, 0);
	ft_stackmap_destroy(h);
}

static void test_hash_zero_is_not_free(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	uint64_t a[4], b[4];
	const uint64_t *ips;
	int ia, ib;

	h->hash_hook = hash_zero;
	mkstack(a, 4, 10);
	mkstack(b, 4, 11);
	assert_int_equal(ft_stackmap_hash(h, a, 4), 0);
	ia = ft_stackmap_get_id(h, a, 4);
	ib = ft_stackmap_get_id(h, b, 4);
	assert_true(ia >= 0 && ib >= 0 && ia != ib);
	/* the slot of a must not look free: the same id again, no new entry */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(ft_stackmap_get_id(h, a, 4), ia);
		assert_int_equal(ft_stackmap_get_id(h, b, 4), ib);
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 2);
	assert_int_equal(st.claimed_empty, 0);
	assert_int_equal(ft_stackmap_lookup(h, ia, &ips, NULL, NULL), 0);
	assert_memory_equal(ips, a, sizeof(a));
	assert_int_equal(ft_stackmap_lookup(h, ib, &ips, NULL, NULL), 0);
	assert_memory_equal(ips, b, sizeof(b));
	ft_stackmap_destroy(h);
}

static void test_probe_bound(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	int ids[FT_STACKMAP_MAX_PROBE];
	uint64_t s[8];

	h->hash_hook = hash_const; /* every stack lands on the same first slot */
	for (int i = 0; i < FT_STACKMAP_MAX_PROBE; i++) {
		mkstack(s, 8, 100 + i);
		ids[i] = ft_stackmap_get_id(h, s, 8);
		assert_true(ids[i] >= 0);
		if (i)
			assert_int_equal(ids[i], (ids[i - 1] + 1) % 2048);
	}
	/* the 65th colliding stack is past the probe limit: a drop */
	mkstack(s, 8, 100 + FT_STACKMAP_MAX_PROBE);
	assert_int_equal(ft_stackmap_get_id(h, s, 8), -ENOSPC);
	assert_int_equal(ft_stackmap_get_id(h, s, 8), -ENOSPC);
	/* the last one inside the bound is still found */
	mkstack(s, 8, 100 + FT_STACKMAP_MAX_PROBE - 1);
	assert_int_equal(ft_stackmap_get_id(h, s, 8), ids[FT_STACKMAP_MAX_PROBE - 1]);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, FT_STACKMAP_MAX_PROBE);
	assert_int_equal(st.drops, 2);
	assert_int_equal(st.successes, FT_STACKMAP_MAX_PROBE + 1);
	assert_int_equal(st.claimed_empty, 0);
	ft_stackmap_destroy(h);
}

static int sum_refs(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	*(uint64_t *)arg += ref;
	return 0;
}

static void test_pool_exhaustion(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	uint64_t s[12], refs = 0;
	int first;

	for (uint32_t i = 0; i < 1024; i++) {
		mkstack(s, 12, 1000 + i);
		assert_true(ft_stackmap_get_id(h, s, 12) >= 0);
	}
	for (uint32_t i = 0; i < 10; i++) {
		mkstack(s, 12, 5000 + i);
		assert_int_equal(ft_stackmap_get_id(h, s, 12), -ENOSPC);
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 1024);
	assert_int_equal(st.max_entries, 1024);
	assert_int_equal(st.drops, 10);
	/* each failed insert claimed a slot it could not fill */
	assert_int_equal(st.claimed_empty, 10);
	/* old stacks are still served: lookups probe past the empty slots */
	mkstack(s, 12, 1000);
	first = ft_stackmap_get_id(h, s, 12);
	assert_true(first >= 0);
	/* a stack dropped before is still dropped, and counted again */
	mkstack(s, 12, 5000);
	assert_int_equal(ft_stackmap_get_id(h, s, 12), -ENOSPC);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.drops, 11);
	assert_int_equal(st.successes, 1025);
	assert_int_equal(ft_stackmap_for_each(h, sum_refs, &refs), 0);
	assert_int_equal(refs, st.successes);
	ft_stackmap_destroy(h);
}

/*
 * Counters and reference counts are sharded per thread (a shard of 128
 * claimed at a thread's first call): with more threads alive than shards,
 * so that the last ones count in the shared overflow counters, every
 * success and every drop is still counted exactly once, the reference
 * counts (cached per thread, folded at export) add up to the successes, no
 * caller is left "in flight" (reset drains at once and clears every
 * shard), and counting goes on after the reset.
 */
#define CT_THREADS 160
#define CT_HITS 200
#define CT_DROPS 5

struct ct_arg {
	struct ft_stackmap *h;
	uint32_t tid;
	atomic_int *go;
	int bad;
};

static void *counter_thread(void *arg)
{
	struct ct_arg *a = arg;
	uint64_t s[12];

	while (!atomic_load(a->go))
		sched_yield();
	mkstack(s, 12, 1000 + a->tid % 1024);
	for (int i = 0; i < CT_HITS; i++)
		if (ft_stackmap_get_id(a->h, s, 12) < 0)
			a->bad++;
	for (uint32_t i = 0; i < CT_DROPS; i++) {
		mkstack(s, 12, 100000 + a->tid * CT_DROPS + i);
		if (ft_stackmap_get_id(a->h, s, 12) != -ENOSPC)
			a->bad++;
	}
	return NULL;
}

static void test_counters_per_thread(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	struct ct_arg args[CT_THREADS];
	pthread_t th[CT_THREADS];
	atomic_int go = 0;
	uint64_t s[12], refs = 0;

	assert_non_null(h);
	for (uint32_t i = 0; i < 1024; i++) { /* fill the pool: later inserts drop */
		mkstack(s, 12, 1000 + i);
		assert_true(ft_stackmap_get_id(h, s, 12) >= 0);
	}
	for (uint32_t t = 0; t < CT_THREADS; t++) {
		args[t] = (struct ct_arg){ h, t, &go, 0 };
		assert_int_equal(pthread_create(&th[t], NULL, counter_thread, &args[t]), 0);
	}
	atomic_store(&go, 1);
	for (uint32_t t = 0; t < CT_THREADS; t++) {
		pthread_join(th[t], NULL);
		assert_int_equal(args[t].bad, 0);
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.successes, 1024 + CT_THREADS * CT_HITS);
	assert_int_equal(st.drops, CT_THREADS * CT_DROPS);
	assert_int_equal(ft_stackmap_for_each(h, sum_refs, &refs), 0);
	assert_int_equal(refs, st.successes);
	/* nobody is left in flight: the drain ends at once */
	assert_int_equal(ft_stackmap_reset(h), 0);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.successes, 0);
	assert_int_equal(st.drops, 0);
	mkstack(s, 12, 7);
	assert_true(ft_stackmap_get_id(h, s, 12) >= 0);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.successes, 1);
	ft_stackmap_destroy(h);
}

static int inner_reset_ret;

static int tracing_is_on_resets(void *arg)
{
	/* called by reset while it owns the map: a second reset is refused */
	inner_reset_ret = ft_stackmap_reset(arg);
	return 0;
}

static void test_reset_rules(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	uint64_t s[8];
	int id;

	h->tracing_is_on = tracing_is_on;
	h->arg = &tracing_on_flag;
	for (uint32_t i = 0; i < 1100; i++) { /* past the pool: drops and empty slots */
		mkstack(s, 8, i);
		ft_stackmap_get_id(h, s, 8);
	}
	mkstack(s, 8, 0);
	id = ft_stackmap_get_id(h, s, 8);
	assert_true(id >= 0);

	tracing_on_flag = 1;
	assert_int_equal(ft_stackmap_reset(h), -EBUSY);
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 1024);		   /* untouched */
	assert_int_equal(ft_stackmap_get_id(h, s, 8), id); /* and still usable */

	/* a reset while another one runs */
	h->tracing_is_on = tracing_is_on_resets;
	h->arg = h;
	inner_reset_ret = 1;
	assert_int_equal(ft_stackmap_reset(h), 0);
	assert_int_equal(inner_reset_ret, -EBUSY);

	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.successes, 0);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.claimed_empty, 0);
	assert_int_equal(ft_stackmap_lookup(h, id, NULL, NULL, NULL), -ENOENT);

	/* tracing stopped: plain reset works, and the map works again */
	h->tracing_is_on = tracing_is_on;
	h->arg = &tracing_on_flag;
	tracing_on_flag = 0;
	assert_true(ft_stackmap_get_id(h, s, 8) >= 0);
	assert_int_equal(ft_stackmap_reset(h), 0);
	for (uint32_t i = 0; i < 1024; i++) {
		mkstack(s, 8, 7000 + i);
		assert_true(ft_stackmap_get_id(h, s, 8) >= 0);
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 1024);
	assert_int_equal(st.drops, 0);
	ft_stackmap_destroy(h);
}

/* ---- reset drains callers already inside get_id ---- */

static atomic_int hook_entered, hook_release, reset_done;

static uint32_t hash_blocking(const uint64_t *ips, uint32_t nr, void *arg)
{
	atomic_store(&hook_entered, 1);
	while (!atomic_load(&hook_release))
		usleep(1000);
	return 42;
}

struct getid_arg {
	struct ft_stackmap *h;
	int ret;
};

static void *getid_thread(void *p)
{
	struct getid_arg *a = p;
	uint64_t s[4];

	mkstack(s, 4, 77);
	a->ret = ft_stackmap_get_id(a->h, s, 4);
	return NULL;
}

static void *reset_thread(void *p)
{
	struct getid_arg *a = p;

	a->ret = ft_stackmap_reset(a->h);
	atomic_store(&reset_done, 1);
	return NULL;
}

static int blocking_cb(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	atomic_store(&hook_entered, 1);
	while (!atomic_load(&hook_release))
		usleep(1000);
	return 0;
}

static int count_cb(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	(*(int *)arg)++;
	return 0;
}

static void *walk_thread(void *p)
{
	struct getid_arg *a = p;

	a->ret = ft_stackmap_for_each(a->h, blocking_cb, NULL);
	return NULL;
}

static void test_reset_drains_inflight(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10), h2;
	size_t len;
	int n = 0;
	struct getid_arg ga = { h, 0 }, ra = { h, 1 };
	struct ft_stackmap_stat st;
	pthread_t tg, tr;
	uint64_t s[4];

	h->hash_hook = hash_blocking;
	pthread_create(&tg, NULL, getid_thread, &ga);
	while (!atomic_load(&hook_entered))
		usleep(1000);
	/* the caller is inside get_id: reset must wait for it */
	pthread_create(&tr, NULL, reset_thread, &ra);
	usleep(100 * 1000);
	assert_int_equal(atomic_load(&reset_done), 0);
	/* meanwhile new callers are turned away (a second handle, no hook) */
	h2 = *h;
	h2.hash_hook = NULL;
	mkstack(s, 4, 78);
	assert_int_equal(ft_stackmap_get_id(&h2, s, 4), -EINVAL);
	atomic_store(&hook_release, 1);
	pthread_join(tg, NULL);
	pthread_join(tr, NULL);
	assert_true(ga.ret >= 0);    /* it finished its insert ... */
	assert_int_equal(ra.ret, 0); /* ... then reset cleared it */
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.entries, 0);
	assert_int_equal(st.successes, 0);

	/* a caller that never leaves: reset gives up with EBUSY */
	atomic_store(&hook_entered, 0);
	atomic_store(&hook_release, 0);
	pthread_create(&tg, NULL, getid_thread, &ga);
	while (!atomic_load(&hook_entered))
		usleep(1000);
	assert_int_equal(ft_stackmap_reset(h), -EBUSY);
	atomic_store(&hook_release, 1);
	pthread_join(tg, NULL);
	assert_true(ga.ret >= 0); /* the map stayed usable */
	assert_int_equal(ft_stackmap_reset(h), 0);

	/* a walk in progress: reset waits for it; walks started meanwhile get EBUSY */
	h->hash_hook = NULL;
	ft_stackmap_get_id(h, s, 4);
	atomic_store(&hook_entered, 0);
	atomic_store(&hook_release, 0);
	atomic_store(&reset_done, 0);
	pthread_create(&tg, NULL, walk_thread, &ga);
	while (!atomic_load(&hook_entered))
		usleep(1000);
	pthread_create(&tr, NULL, reset_thread, &ra);
	usleep(100 * 1000);
	assert_int_equal(atomic_load(&reset_done), 0);
	assert_int_equal(ft_stackmap_for_each(h, count_cb, &n), -EBUSY);
	assert_null(ft_stackmap_export_bin(h, &len));
	atomic_store(&hook_release, 1);
	pthread_join(tg, NULL);
	pthread_join(tr, NULL);
	assert_int_equal(ga.ret, 0);
	assert_int_equal(ra.ret, 0);
	assert_int_equal(ft_stackmap_for_each(h, count_cb, &n), 0);
	assert_int_equal(n, 0);
	ft_stackmap_destroy(h);
}

/* ---- exports ---- */

static int fake_resolve(uint64_t ip, char *buf, size_t len, void *arg)
{
	if (ip >= 0x2000)
		return -1;
	snprintf(buf, len, "func_%llx+0x%llx/0x100", (unsigned long long)(ip & ~0xffull),
		 (unsigned long long)(ip & 0xff));
	return 0;
}

static char *capture_text(struct ft_stackmap *h, int stat)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	if (stat)
		ft_stackmap_write_stat(h, f);
	else
		ft_stackmap_write_text(h, f, fake_resolve, NULL);
	fclose(f);
	return buf;
}

static void test_text_shapes(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	uint64_t a[3] = { 0x1010, 0x1120, 0x3000 }, b[1] = { 0x1234 };
	char expect[512], *text;
	int ia, ib;

	text = capture_text(h, 1);
	assert_string_equal(text, "entries: 0 / 1024\n"
				  "table_size: 2048\n"
				  "successes: 0\n"
				  "drops: 0\n");
	free(text);

	ia = ft_stackmap_get_id(h, a, 3);
	ft_stackmap_get_id(h, a, 3);
	ib = ft_stackmap_get_id(h, b, 1);
	assert_true(ia >= 0 && ib >= 0);
	if (ia < ib)
		snprintf(expect, sizeof(expect),
			 "stack_id %d [ref 2, depth 3]\n"
			 "  [0] func_1000+0x10/0x100\n"
			 "  [1] func_1100+0x20/0x100\n"
			 "  [2] 0x3000\n"
			 "\n"
			 "stack_id %d [ref 1, depth 1]\n"
			 "  [0] func_1200+0x34/0x100\n"
			 "\n",
			 ia, ib);
	else
		snprintf(expect, sizeof(expect),
			 "stack_id %d [ref 1, depth 1]\n"
			 "  [0] func_1200+0x34/0x100\n"
			 "\n"
			 "stack_id %d [ref 2, depth 3]\n"
			 "  [0] func_1000+0x10/0x100\n"
			 "  [1] func_1100+0x20/0x100\n"
			 "  [2] 0x3000\n"
			 "\n",
			 ib, ia);
	text = capture_text(h, 0);
	assert_string_equal(text, expect);
	free(text);

	ft_stackmap_destroy(h);

	/* all stacks on one first slot: 64 fit within the probe bound, 6 drop */
	h = ft_stackmap_create(10);
	h->hash_hook = hash_const;
	for (int i = 0; i < 70; i++) {
		uint64_t s[2] = { 0x5000, (uint64_t)i };

		ft_stackmap_get_id(h, s, 2);
	}
	text = capture_text(h, 1);
	assert_string_equal(text, "entries: 64 / 1024\n"
				  "table_size: 2048\n"
				  "successes: 64\n"
				  "drops: 6\n"
				  "success_rate: 91%\n");
	free(text);
	ft_stackmap_destroy(h);
}

struct collected {
	uint32_t n;
	uint32_t ids[4096];
	uint32_t refs[4096];
	uint32_t nrs[4096];
	uint64_t ips[4096][FT_STACKMAP_MAX_DEPTH];
};

static int collect(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct collected *c = arg;

	if (c->n >= 4096)
		return -1;
	c->ids[c->n] = id;
	c->refs[c->n] = ref;
	c->nrs[c->n] = nr;
	memcpy(c->ips[c->n], ips, nr * sizeof(*ips));
	c->n++;
	return 0;
}

/* Byte-swap an FSMB buffer in place, as a big-endian kernel would write it. */
static void fsmb_swap(unsigned char *p, size_t len)
{
	uint32_t v32, nr_stacks, nr;
	uint64_t v64;
	size_t off = 16;

	memcpy(&nr_stacks, p + 8, 4);
	for (int i = 0; i < 4; i++) {
		memcpy(&v32, p + 4 * i, 4);
		v32 = __builtin_bswap32(v32);
		memcpy(p + 4 * i, &v32, 4);
	}
	for (uint32_t s = 0; s < nr_stacks; s++) {
		memcpy(&nr, p + off + 4, 4);
		for (int i = 0; i < 4; i++) {
			memcpy(&v32, p + off + 4 * i, 4);
			v32 = __builtin_bswap32(v32);
			memcpy(p + off + 4 * i, &v32, 4);
		}
		off += 16;
		for (uint32_t k = 0; k < nr; k++, off += 8) {
			memcpy(&v64, p + off, 8);
			v64 = __builtin_bswap64(v64);
			memcpy(p + off, &v64, 8);
		}
	}
	assert_int_equal(off, len);
}

static void check_against_map(struct ft_stackmap *h, struct collected *c, uint32_t expect_n)
{
	assert_int_equal(c->n, expect_n);
	for (uint32_t i = 0; i < c->n; i++) {
		const uint64_t *ips;
		uint32_t nr, ref;

		assert_int_equal(ft_stackmap_lookup(h, c->ids[i], &ips, &nr, &ref), 0);
		assert_int_equal(nr, c->nrs[i]);
		assert_int_equal(ref, c->refs[i]);
		assert_memory_equal(ips, c->ips[i], nr * sizeof(*ips));
		if (i)
			assert_true(c->ids[i] > c->ids[i - 1]);
	}
}

static void test_export_parse_round_trip(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct collected *c = calloc(1, sizeof(*c));
	unsigned char *bin, *copy;
	char err[256];
	size_t len;
	uint64_t s[64];
	struct ft_fsmb_header hdr;

	for (uint32_t i = 0; i < 300; i++) {
		uint32_t nr = 1 + i % 64;

		mkstack(s, nr, i);
		for (uint32_t r = 0; r <= i % 3; r++)
			assert_true(ft_stackmap_get_id(h, s, nr) >= 0);
	}
	bin = ft_stackmap_export_bin(h, &len);
	assert_non_null(bin);
	memcpy(&hdr, bin, sizeof(hdr));
	assert_int_equal(hdr.magic, FT_FSMB_MAGIC);
	assert_int_equal(hdr.version, 2);
	assert_int_equal(hdr.nr_stacks, 300);
	assert_int_equal(hdr.reserved, 0);
	assert_int_equal(memcmp(bin, "BSMF", 4), 0); /* little-endian host: 'FSMB' reversed */

	assert_int_equal(ft_fsmb_parse(bin, len, collect, c, err, sizeof(err)), 0);
	check_against_map(h, c, 300);

	/* the same stacks from a big-endian writer */
	copy = malloc(len);
	memcpy(copy, bin, len);
	fsmb_swap(copy, len);
	assert_int_not_equal(memcmp(copy, bin, 16), 0);
	memset(c, 0, sizeof(*c));
	assert_int_equal(ft_fsmb_parse(copy, len, collect, c, err, sizeof(err)), 0);
	check_against_map(h, c, 300);

	/* every truncation fails cleanly, in both byte orders */
	for (size_t l = 0; l < len; l += (l < 4096 ? 1 : 97)) {
		memset(c, 0, offsetof(struct collected, ids));
		assert_int_equal(ft_fsmb_parse(bin, l, collect, c, err, sizeof(err)), -1);
		assert_true(err[0] != 0);
		assert_int_equal(ft_fsmb_parse(copy, l, NULL, NULL, err, sizeof(err)), -1);
	}
	free(copy);
	free(bin);
	free(c);
	ft_stackmap_destroy(h);
}

static void test_parse_hostile(void **state)
{
	unsigned char buf[16 + 16 + 64 * 8 + 8];
	uint32_t w[4];
	char err[256];

	/* empty map: valid */
	w[0] = FT_FSMB_MAGIC, w[1] = 2, w[2] = 0, w[3] = 0;
	memcpy(buf, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 16, NULL, NULL, err, sizeof(err)), 0);
	/* trailing garbage */
	assert_int_equal(ft_fsmb_parse(buf, 17, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "trailing"));
	/* bad magic, bad version */
	w[0] = 0x12345678;
	memcpy(buf, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 16, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "magic"));
	w[0] = FT_FSMB_MAGIC, w[1] = 3;
	memcpy(buf, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 16, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "version"));
	/* a header announcing 4 billion stacks in 16 bytes */
	w[1] = 2, w[2] = 0xffffffff;
	memcpy(buf, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 16, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "stacks"));
	/* depth 65 */
	w[2] = 1;
	memcpy(buf, w, 16);
	w[0] = 5, w[1] = 65, w[2] = 1, w[3] = 0;
	memcpy(buf + 16, w, 16);
	memset(buf + 32, 0, sizeof(buf) - 32);
	assert_int_equal(ft_fsmb_parse(buf, 32 + 65 * 8, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "depth"));
	/* depth 64, complete: valid; depth 0xffffffff: refused */
	w[1] = 64;
	memcpy(buf + 16, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 32 + 64 * 8, NULL, NULL, err, sizeof(err)), 0);
	w[1] = 0xffffffff;
	memcpy(buf + 16, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 32 + 64 * 8, NULL, NULL, err, sizeof(err)), -1);
	/* stack_id beyond any table */
	w[0] = 1u << 20, w[1] = 1;
	memcpy(buf + 16, w, 16);
	assert_int_equal(ft_fsmb_parse(buf, 40, NULL, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "stack_id"));
}

/* Random corruption of a valid file: parse returns 0 or -1, never reads out of bounds. */
static void test_parse_mutations(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	unsigned char *bin, *m;
	uint64_t s[64], r = 0x853c49e6748fea9bull;
	size_t len;
	char err[256];
	int ok = 0, bad = 0;

	for (uint32_t i = 0; i < 20; i++) {
		mkstack(s, 1 + i * 3, i);
		ft_stackmap_get_id(h, s, 1 + i * 3);
	}
	bin = ft_stackmap_export_bin(h, &len);
	assert_non_null(bin);
	for (int n = 0; n < 20000; n++) {
		size_t l = len;

		r ^= r << 13, r ^= r >> 7, r ^= r << 17;
		if (r % 4 == 0)
			l = (size_t)(r >> 8) % (len + 1); /* also truncate */
		m = malloc(l ? l : 1); /* exact size: ASan catches any overread */
		memcpy(m, bin, l);
		for (int k = 0; k < 1 + (int)(r % 4); k++) {
			r ^= r << 13, r ^= r >> 7, r ^= r << 17;
			if (l)
				m[r % l] ^= (unsigned char)(1u << (r >> 32) % 8);
		}
		if (ft_fsmb_parse(m, l, NULL, NULL, err, sizeof(err)) == 0)
			ok++;
		else
			bad++, assert_true(err[0] != 0);
		free(m);
	}
	assert_true(bad > 0 && ok > 0); /* flipped ip bits still parse */
	free(bin);
	ft_stackmap_destroy(h);
}

static void test_attach_shared_block(void **state)
{
	size_t len = ft_stackmap_mem_size(10);
	void *mem = aligned_alloc(64, len), *bad;
	struct ft_stackmap a = { 0 }, b = { 0 };
	const uint64_t *ips;
	uint64_t s[5];
	int id;

	assert_int_equal(ft_stackmap_init(&a, mem, len - 1, 10), -EINVAL);
	assert_int_equal(ft_stackmap_init(&a, mem, len, 10), 0);
	assert_int_equal(ft_stackmap_attach(&b, mem, len), 0);
	mkstack(s, 5, 9);
	id = ft_stackmap_get_id(&a, s, 5);
	assert_true(id >= 0);
	assert_int_equal(ft_stackmap_get_id(&b, s, 5), id);
	assert_int_equal(ft_stackmap_lookup(&b, id, &ips, NULL, NULL), 0);
	assert_memory_equal(ips, s, sizeof(s));
	assert_int_equal(ft_stackmap_attach(&b, mem, len - 64), -EINVAL);

	bad = aligned_alloc(64, len);
	memcpy(bad, mem, len);
	((uint32_t *)bad)[2] = 30; /* bits */
	assert_int_equal(ft_stackmap_attach(&b, bad, len), -EINVAL);
	memset(bad, 0xff, 4096);
	assert_int_equal(ft_stackmap_attach(&b, bad, len), -EINVAL);
	free(bad);
	free(mem);
}

/* Two instances hash the same stack differently (per-instance seed). */
static void test_per_instance_seed(void **state)
{
	struct ft_stackmap *a = ft_stackmap_create(10), *b = ft_stackmap_create(10);
	int differ = 0;
	uint64_t s[8];

	for (uint32_t i = 0; i < 8; i++) {
		mkstack(s, 8, i);
		differ += ft_stackmap_hash(a, s, 8) != ft_stackmap_hash(b, s, 8);
	}
	assert_true(differ >= 7);
	ft_stackmap_destroy(a);
	ft_stackmap_destroy(b);
}

#if defined(__x86_64__)
#include "core/hash.h"

/* The AVX2 hash get_id uses on this CPU is the portable one, bit for bit. */
static void test_hash_avx2_same(void **state)
{
	uint64_t k[FT_HASH_NKEYS], w[64], r = 0x9E3779B97F4A7C15ull;

	__builtin_cpu_init();
	if (!__builtin_cpu_supports("avx2"))
		skip();
	for (int t = 0; t < 500; t++) {
		ft_hash_keys(k, r + (uint64_t)t);
		for (int i = 0; i < 64; i++) {
			r ^= r << 13;
			r ^= r >> 7;
			r ^= r << 17;
			w[i] = t & 1 ? r : 0x401000 + (r & 0xffff); /* random, and address-like */
		}
		for (uint32_t n = 0; n <= 64; n++)
			assert_int_equal(ft_hash_stack(w, n, k), ft_hash_stack_avx2(w, n, k));
	}
}
#endif

/* A first slot per depth, 32 apart in a 2^12 map: the stacks of a depth collide. */
static uint32_t hash_by_depth(const uint64_t *ips, uint32_t nr, void *arg)
{
	return nr << 24 | 1;
}

/*
 * The full compare, at every depth, with each instruction set get_id may
 * use (the baseline is what a CPU without AVX2 runs): stacks that differ
 * only in their first, a middle or their last word share a key here, and
 * each keeps its own id; stacks inserted with one instruction set are hits
 * with the other; and words an element holds past its depth (left by a
 * longer stack before a reset) are not compared.
 */
static void test_compare_each_isa(void **state)
{
	static const uint32_t pos[] = { 0, 1, 2 }; /* 0: first word, 1: middle, 2: last */
	struct ft_stackmap *h = ft_stackmap_create(12);
	int avx2 = ft_stackmap_use_avx2(1), ids[65][4];
	struct ft_stackmap_stat st;
	uint64_t s[64], v[64];
	uint32_t ref;

	assert_non_null(h);
	h->hash_hook = hash_by_depth;
	for (int isa = 0; isa < 2; isa++) {
		/* pass 0 inserts with AVX2 (if any), pass 1 hits with the baseline */
		ft_stackmap_use_avx2(!isa);
		for (uint32_t n = 1; n <= 64; n++) {
			mkstack(s, n, n);
			ids[n][3] = ft_stackmap_get_id(h, s, n);
			assert_true(ids[n][3] >= 0);
			for (uint32_t p = 0; p < 3; p++) {
				uint32_t at = pos[p] == 0 ? 0 : pos[p] == 1 ? n / 2 : n - 1;
				int id;

				memcpy(v, s, sizeof(v));
				v[at] ^= 0x10;
				id = ft_stackmap_get_id(h, v, n);
				if (isa)
					assert_int_equal(id, ids[n][p]);
				else
					ids[n][p] = id;
				assert_true(id >= 0);
				if (n > 1 || p == 0)
					assert_int_not_equal(id, ids[n][3]);
			}
		}
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.drops, 0);
	assert_int_equal(st.successes, 2 * 64 * 4);
	for (uint32_t n = 1; n <= 64; n++) {
		assert_int_equal(ft_stackmap_lookup(h, (uint32_t)ids[n][3], NULL, NULL, &ref), 0);
		assert_int_equal(ref, 2);
	}
	/* depth 1: the three variants are one stack; depth 2: middle and last coincide */
	assert_int_equal(st.entries, 64 + 1 + 2 + 62 * 3);

	/* an element reused by a shorter stack keeps the longer one's words past it */
	for (int isa = 0; isa < 2; isa++) {
		ft_stackmap_use_avx2(!isa);
		for (uint32_t n = 1; n < 64; n++) {
			int id;

			assert_int_equal(ft_stackmap_reset(h), 0);
			mkstack(s, 64, 1000 + n);
			assert_true(ft_stackmap_get_id(h, s, 64) >= 0);
			assert_int_equal(ft_stackmap_reset(h), 0);
			mkstack(v, n, 2000 + n);
			id = ft_stackmap_get_id(h, v, n);
			assert_true(id >= 0);
			assert_int_equal(ft_stackmap_get_id(h, v, n), id);
			ft_stackmap_get_stat(h, &st);
			assert_int_equal(st.entries, 1);
		}
	}
	ft_stackmap_use_avx2(avx2);
	ft_stackmap_destroy(h);
}

/*
 * Threads that detach give their shard back: 3 x 128 threads one after
 * another each claim a shard (none is left for the overflow counters),
 * and their counts, cached per thread, survive the hand-over exactly.
 */
struct det_arg {
	struct ft_stackmap *h;
	uint32_t seed;
	int bad;
};

static void *detach_thread(void *arg)
{
	struct det_arg *a = arg;
	uint64_t s[16];

	for (int i = 0; i < 50; i++) {
		mkstack(s, 16, a->seed + (uint32_t)(i % 5));
		if (ft_stackmap_get_id(a->h, s, 16) < 0)
			a->bad++;
	}
	ft_stackmap_thread_detach(a->h);
	return NULL;
}

static void test_thread_detach(void **state)
{
	struct ft_stackmap *h = ft_stackmap_create(10);
	struct ft_stackmap_stat st;
	uint64_t refs = 0;

	for (uint32_t t = 0; t < 3 * 128; t++) {
		struct det_arg a = { h, (t % 7) * 5, 0 };
		pthread_t th;

		assert_int_equal(pthread_create(&th, NULL, detach_thread, &a), 0);
		pthread_join(th, NULL);
		assert_int_equal(a.bad, 0);
	}
	ft_stackmap_get_stat(h, &st);
	assert_int_equal(st.successes, 3 * 128 * 50);
	assert_int_equal(st.drops, 0);
	assert_int_equal(ft_stackmap_for_each(h, sum_refs, &refs), 0);
	assert_int_equal(refs, st.successes);
	assert_int_equal(st.entries, 35);
	assert_int_equal(st.threads, 0); /* every thread gave its shard back */
	ft_stackmap_destroy(h);
}

/*
 * fork: the child's thread must not keep counting in the shard its parent
 * thread owns (plain, non-atomic updates from two processes at once would
 * lose counts).  Parent and child hit the same stacks of a map in shared
 * memory at the same time; every success is counted and the reference
 * counts add up.
 */
#define FK_HITS 200000

static void test_fork_child_own_shard(void **state)
{
	size_t len = ft_stackmap_mem_size(10);
	void *mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct ft_stackmap h = { 0 };
	struct ft_stackmap_stat st;
	uint64_t s[4][16], refs = 0;
	volatile uint32_t *go;
	int status, bad = 0;
	pid_t pid, reaped = 0;

	assert_true(mem != MAP_FAILED);
	go = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(go != MAP_FAILED);
	assert_int_equal(ft_stackmap_init(&h, mem, len, 10), 0);
	for (uint32_t i = 0; i < 4; i++) {
		mkstack(s[i], 16, 40 + i);
		assert_true(ft_stackmap_get_id(&h, s[i], 16) >= 0); /* the parent's shard */
	}
	ft_stackmap_get_stat(&h, &st);
	assert_int_equal(st.threads, 1);
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		if (ft_stackmap_get_id(&h, s[0], 16) < 0)
			_exit(2);
		ft_stackmap_get_stat(&h, &st);
		if (st.threads != 2) /* the child claimed a shard of its own */
			_exit(3);
		__atomic_store_n(go, 1, __ATOMIC_RELEASE);
		for (int i = 0; i < FK_HITS; i++)
			if (ft_stackmap_get_id(&h, s[i & 3], 16) < 0)
				_exit(2);
		_exit(0);
	}
	/* the child may have done all its hits and exited: then this reaps it */
	while (!__atomic_load_n(go, __ATOMIC_ACQUIRE) &&
	       (reaped = waitpid(pid, &status, WNOHANG)) == 0)
		sched_yield();
	assert_int_equal(__atomic_load_n(go, __ATOMIC_ACQUIRE), 1); /* else the child failed */
	for (int i = 0; i < FK_HITS; i++)
		bad += ft_stackmap_get_id(&h, s[i & 3], 16) < 0;
	if (reaped != pid)
		assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	assert_int_equal(bad, 0);
	ft_stackmap_get_stat(&h, &st);
	assert_int_equal(st.successes, 4 + 1 + 2 * FK_HITS);
	assert_int_equal(ft_stackmap_for_each(&h, sum_refs, &refs), 0);
	assert_int_equal(refs, st.successes);
	assert_int_equal(ft_stackmap_reset(&h), 0); /* nobody left in flight */
	ft_stackmap_thread_detach(&h);
	munmap(mem, len);
	munmap((void *)go, 4096);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bits_clamp),
		cmocka_unit_test(test_basic_ids_and_refs),
		cmocka_unit_test(test_hash_zero_is_not_free),
		cmocka_unit_test(test_probe_bound),
		cmocka_unit_test(test_pool_exhaustion),
		cmocka_unit_test(test_counters_per_thread),
		cmocka_unit_test(test_reset_rules),
		cmocka_unit_test(test_reset_drains_inflight),
		cmocka_unit_test(test_text_shapes),
		cmocka_unit_test(test_export_parse_round_trip),
		cmocka_unit_test(test_parse_hostile),
		cmocka_unit_test(test_parse_mutations),
		cmocka_unit_test(test_attach_shared_block),
		cmocka_unit_test(test_per_instance_seed),
#if defined(__x86_64__)
		cmocka_unit_test(test_hash_avx2_same),
#endif
		cmocka_unit_test(test_compare_each_isa),
		cmocka_unit_test(test_thread_detach),
		cmocka_unit_test(test_fork_child_own_shard),
	};
	const char *isa = getenv("FTRAIL_TEST_ISA");

	/* tests/run.sh runs the suite again as a CPU without AVX2 would */
	if (isa && !strcmp(isa, "base")) {
		ft_stackmap_use_avx2(0);
		printf("stack map: baseline instruction set (FTRAIL_TEST_ISA=base)\n");
	}
	return cmocka_run_group_tests(tests, NULL, NULL);
}
