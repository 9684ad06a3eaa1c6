// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/snapshot.c: every cell of ftrace's snapshot table
 * (not allocated / allocated x 0 / 1 / other), the EBUSY and EINVAL cases,
 * allocation failure, and the snapshot trigger's path.
 *
 * The "buffers" here are two integer arrays standing for the live and the
 * spare buffer, so a swap, a clear and a free are visible in their contents.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include <sys/mman.h>

#include "core/ringbuf.h"
#include "core/snapshot.h"

struct bufs {
	int *live, *spare;
	int allocs, frees, swaps, clears;
	int fail_alloc;
};

static int b_alloc(void *c)
{
	struct bufs *b = c;

	if (b->fail_alloc)
		return -ENOMEM;
	assert_null(b->spare);
	b->spare = calloc(4, sizeof(int));
	b->allocs++;
	return 0;
}

static int b_swap(void *c)
{
	struct bufs *b = c;
	int *t = b->live;

	assert_non_null(b->spare);
	b->live = b->spare;
	b->spare = t;
	b->swaps++;
	return 0;
}

static void b_clear(void *c)
{
	struct bufs *b = c;

	memset(b->spare, 0, 4 * sizeof(int));
	b->clears++;
}

static void b_free(void *c)
{
	struct bufs *b = c;

	free(b->spare);
	b->spare = NULL;
	b->frees++;
}

static const struct ft_snapshot_ops ops = { b_alloc, b_swap, b_clear, b_free };

static struct bufs *mkbufs(void)
{
	static struct bufs b;

	free(b.live);
	free(b.spare);
	memset(&b, 0, sizeof(b));
	b.live = calloc(4, sizeof(int));
	return &b;
}

static int wr(struct ft_snapshot *s, const char *in)
{
	char err[256];

	return ft_snapshot_write(s, in, err, sizeof(err));
}

static void test_table(void **state)
{
	(void)state;
	assert_int_equal(ft_snapshot_action(FT_SNAP_UNALLOCATED, 0), FT_SNAP_NOTHING);
	assert_int_equal(ft_snapshot_action(FT_SNAP_UNALLOCATED, 1), FT_SNAP_ALLOC_SWAP);
	assert_int_equal(ft_snapshot_action(FT_SNAP_UNALLOCATED, 2), FT_SNAP_NOTHING);
	assert_int_equal(ft_snapshot_action(FT_SNAP_UNALLOCATED, 99), FT_SNAP_NOTHING);
	assert_int_equal(ft_snapshot_action(FT_SNAP_ALLOCATED, 0), FT_SNAP_FREE);
	assert_int_equal(ft_snapshot_action(FT_SNAP_ALLOCATED, 1), FT_SNAP_SWAP);
	assert_int_equal(ft_snapshot_action(FT_SNAP_ALLOCATED, 2), FT_SNAP_CLEAR);
	assert_int_equal(ft_snapshot_action(FT_SNAP_ALLOCATED, UINT64_MAX), FT_SNAP_CLEAR);
}

/* not allocated x 0: nothing */
static void test_unalloc_0(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	assert_int_equal(wr(&s, "0"), FT_SNAP_NOTHING);
	assert_int_equal(s.state, FT_SNAP_UNALLOCATED);
	assert_int_equal(b->allocs + b->frees + b->swaps + b->clears, 0);
}

/* not allocated x 1: alloc + swap; the old live is now the snapshot */
static void test_unalloc_1(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	b->live[0] = 42; /* "events" in the live buffer */
	assert_int_equal(wr(&s, "1\n"), FT_SNAP_ALLOC_SWAP);
	assert_int_equal(s.state, FT_SNAP_ALLOCATED);
	assert_int_equal(b->allocs, 1);
	assert_int_equal(b->swaps, 1);
	assert_int_equal(b->spare[0], 42); /* the snapshot holds what was live */
	assert_int_equal(b->live[0], 0);   /* tracing goes on in the former spare */
	assert_int_equal(s.swaps, 1);
}

/* not allocated x other: nothing */
static void test_unalloc_other(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	assert_int_equal(wr(&s, "2"), FT_SNAP_NOTHING);
	assert_int_equal(wr(&s, " 17 "), FT_SNAP_NOTHING);
	assert_int_equal(s.state, FT_SNAP_UNALLOCATED);
	assert_null(b->spare);
}

/* allocated x 0: free */
static void test_alloc_0(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	assert_int_equal(wr(&s, "1"), FT_SNAP_ALLOC_SWAP);
	assert_int_equal(wr(&s, "0"), FT_SNAP_FREE);
	assert_int_equal(s.state, FT_SNAP_UNALLOCATED);
	assert_int_equal(b->frees, 1);
	assert_null(b->spare);
	/* and 0 again: nothing (already freed) */
	assert_int_equal(wr(&s, "0"), FT_SNAP_NOTHING);
	assert_int_equal(b->frees, 1);
}

/* allocated x 1: swap, no new allocation; two swaps give the buffers back */
static void test_alloc_1(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	b->live[0] = 1;
	assert_int_equal(wr(&s, "1"), FT_SNAP_ALLOC_SWAP);
	b->live[0] = 2;
	assert_int_equal(wr(&s, "1"), FT_SNAP_SWAP);
	assert_int_equal(b->allocs, 1);
	assert_int_equal(b->swaps, 2);
	assert_int_equal(b->spare[0], 2); /* newest snapshot */
	assert_int_equal(b->live[0], 1);  /* the old snapshot buffer is live again, as in ftrace */
	assert_int_equal(s.state, FT_SNAP_ALLOCATED);
}

/* allocated x other: clear the snapshot, keep it allocated */
static void test_alloc_other(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	b->live[0] = 7;
	assert_int_equal(wr(&s, "1"), FT_SNAP_ALLOC_SWAP);
	assert_int_equal(b->spare[0], 7);
	assert_int_equal(wr(&s, "2"), FT_SNAP_CLEAR);
	assert_int_equal(b->spare[0], 0);
	assert_int_equal(s.state, FT_SNAP_ALLOCATED);
	assert_int_equal(b->clears, 1);
	assert_int_equal(b->frees, 0);
	assert_int_equal(b->swaps, 1);
}

static void test_bad_input_and_busy(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;
	char err[256];

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	assert_int_equal(ft_snapshot_write(&s, "-1", err, sizeof(err)), -EINVAL);
	assert_non_null(strstr(err, "'-1' is not 0, 1 or a positive number"));
	assert_int_equal(wr(&s, "abc"), -EINVAL);
	assert_int_equal(wr(&s, ""), -EINVAL);
	assert_int_equal(wr(&s, "1x"), -EINVAL);
	assert_int_equal(wr(&s, "99999999999999999999999"), -EINVAL);
	assert_int_equal(s.state, FT_SNAP_UNALLOCATED);
	/* a latency tracer owns the spare: every input is EBUSY, nothing moves */
	s.busy = 1;
	assert_int_equal(ft_snapshot_write(&s, "1", err, sizeof(err)), -EBUSY);
	assert_non_null(strstr(err, "busy"));
	assert_int_equal(wr(&s, "0"), -EBUSY);
	assert_int_equal(ft_snapshot_take(&s), -EBUSY);
	assert_int_equal(ft_snapshot_prepare(&s), -EBUSY);
	assert_int_equal(b->allocs + b->swaps, 0);
}

static void test_alloc_failure(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;
	char err[256];

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	b->fail_alloc = 1;
	assert_int_equal(ft_snapshot_write(&s, "1", err, sizeof(err)), -ENOMEM);
	assert_non_null(strstr(err, "alloc+swap failed"));
	assert_int_equal(s.state, FT_SNAP_UNALLOCATED);
	assert_int_equal(b->swaps, 0);
}

/* the snapshot trigger: a miss while unallocated, swaps once prepared */
static void test_trigger_path(void **state)
{
	struct bufs *b = mkbufs();
	struct ft_snapshot s;

	(void)state;
	ft_snapshot_init(&s, &ops, b);
	assert_int_equal(ft_snapshot_take(&s), -ENOENT);
	assert_int_equal(s.missed, 1);
	assert_int_equal(ft_snapshot_prepare(&s), 0);
	assert_int_equal(ft_snapshot_prepare(&s), 0); /* idempotent */
	assert_int_equal(b->allocs, 1);
	assert_int_equal(b->swaps, 0); /* prepare allocates, does not swap */
	assert_int_equal(ft_snapshot_take(&s), 0);
	assert_int_equal(ft_snapshot_take(&s), 0);
	assert_int_equal(b->swaps, 2);
	assert_int_equal(s.swaps, 2);
	assert_string_equal(ft_snapshot_state_name(s.state), "allocated");
}

/* The table over the ring buffer's spare set, state kept in the shared area. */
static int a_alloc(void *c)
{
	return ft_rb_snapshot_alloc(c);
}
static int a_swap(void *c)
{
	return ft_rb_snapshot_swap(c, 1);
}
static void a_clear(void *c)
{
	ft_rb_snapshot_clear(c);
}
static void a_free(void *c)
{
	ft_rb_snapshot_free(c);
}
static int a_state(void *c)
{
	return ft_rb_snapshot_state(c) == FT_RB_SNAP_FREE ? FT_SNAP_UNALLOCATED : FT_SNAP_ALLOCATED;
}
static const struct ft_snapshot_ops area_ops = { a_alloc, a_swap, a_clear, a_free, a_state };

static void test_shared_state(void **state)
{
	struct ft_rb_params p;
	struct ft_snapshot one, two; /* two control processes, one traced area */
	struct ft_rb_area *a;
	size_t len;
	void *mem;

	(void)state;
	ft_rb_params_default(&p, 8, 0);
	p.nr_slots = 2;
	len = ft_rb_area_size(&p);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	assert_true(mem != MAP_FAILED);
	a = ft_rb_area_init(mem, len, &p);
	assert_non_null(a);
	ft_snapshot_init(&one, &area_ops, a);
	ft_snapshot_init(&two, &area_ops, a);
	assert_int_equal(wr(&two, "2"), FT_SNAP_NOTHING);
	assert_int_equal(wr(&one, "1"), FT_SNAP_ALLOC_SWAP);
	assert_int_equal(a->snap_gen, 1);
	/* the other instance sees the area's state: allocated */
	assert_int_equal(wr(&two, "2"), FT_SNAP_CLEAR);
	assert_int_equal(a->snap_clear_req, 1);
	/* a swap while the recorder saves the last one: EBUSY, state unchanged */
	assert_int_equal(wr(&two, "1"), -EBUSY);
	ft_rb_snapshot_saved(a);
	assert_int_equal(wr(&two, "1"), FT_SNAP_SWAP);
	assert_int_equal(a->snap_gen, 2);
	assert_int_equal(wr(&one, "0"), FT_SNAP_FREE);
	ft_rb_snapshot_saved(a); /* the free takes effect once saved */
	assert_int_equal(ft_rb_snapshot_state(a), FT_RB_SNAP_FREE);
	assert_int_equal(wr(&two, "0"), FT_SNAP_NOTHING);
	assert_int_equal(ft_snapshot_take(&two), -ENOENT);
	munmap(mem, len);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table),	      cmocka_unit_test(test_unalloc_0),
		cmocka_unit_test(test_unalloc_1),     cmocka_unit_test(test_unalloc_other),
		cmocka_unit_test(test_alloc_0),	      cmocka_unit_test(test_alloc_1),
		cmocka_unit_test(test_alloc_other),   cmocka_unit_test(test_bad_input_and_busy),
		cmocka_unit_test(test_alloc_failure), cmocka_unit_test(test_trigger_path),
		cmocka_unit_test(test_shared_state),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
