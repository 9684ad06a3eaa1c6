// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the off-CPU engine (analysis/offcpu.h) with synthetic
 * scheduler event sequences: perf's off-CPU threshold rule (an interval at
 * or above the threshold is a direct sample, below it is aggregated, never
 * both), intervals cut by the start/end of the recording, exits, lost
 * events, wakeups, folded output in BCC offcputime's convention, and the
 * user stack tracker.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/folded.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_output.h"
#include "analysis/offcpu_ustack.h"

/* The lines of a folded map, collected by ft_folded_foreach(). */
struct folded_lines {
	char lines[64][512];
	uint64_t weights[64];
	int n;
};

static int collect_line(const char *stack, size_t len, uint64_t weight, void *arg)
{
	struct folded_lines *fl = arg;

	if (fl->n >= 64 || len >= 512)
		return 1;
	memcpy(fl->lines[fl->n], stack, len);
	fl->lines[fl->n][len] = 0;
	fl->weights[fl->n++] = weight;
	return 0;
}

#define MS 1000000ull
#define S_STATE 0x1u /* TASK_INTERRUPTIBLE as sched_switch reports it */
#define D_STATE 0x2u

static const uint64_t KSTACK_A[] = { 0xffffffff81000100ull, 0xffffffff81000200ull,
				     0xffffffff81000300ull };
static const uint64_t KSTACK_B[] = { 0xffffffff81000400ull, 0xffffffff81000200ull };
static const uint64_t USTACK_A[] = { 0x401010, 0x401020, 0x401030 };

static int out(struct ft_offcpu *oc, uint64_t ts, uint32_t tid, uint32_t state, const uint64_t *k,
	       uint32_t knr, const uint64_t *u, uint32_t unr)
{
	struct ft_offcpu_out ev = {
		.ts = ts,
		.cpu = 0,
		.tid = tid,
		.tgid = 100,
		.state = state,
		.comm = "prog",
		.kips = k,
		.knr = knr,
		.uips = u,
		.unr = unr,
	};

	return ft_offcpu_switch_out(oc, &ev);
}

/* Sum of every counted interval, from the rows (aggregates + direct samples). */
static uint64_t rows_total(struct ft_offcpu *oc, uint64_t *count)
{
	size_t nr;
	struct ft_offcpu_row *rows = ft_offcpu_rows(oc, &nr);
	uint64_t t = 0, c = 0;

	for (size_t i = 0; i < nr; i++) {
		t += rows[i].key.total;
		c += rows[i].key.count;
	}
	free(rows);
	if (count)
		*count = c;
	return t;
}

static int sum_agg(const struct ft_offcpu_agg *a, void *arg)
{
	uint64_t *s = arg;

	s[0] += a->total;
	s[1] += a->count;
	return 0;
}

/* perf's rule: "delta >= offcpu_thresh_ns" is a direct sample; == is one. */
static void test_threshold_boundary(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(100 * MS);
	struct ft_offcpu_stats st;
	uint64_t sums[2] = { 0 };

	assert_non_null(oc);
	ft_offcpu_begin(oc, 0);
	/* thread 1: 99.999999 ms, thread 2: exactly 100 ms, thread 3: 100 ms + 1 ns */
	assert_int_equal(out(oc, 1000, 1, S_STATE, KSTACK_A, 3, NULL, 0), 0);
	assert_int_equal(out(oc, 1000, 2, S_STATE, KSTACK_A, 3, NULL, 0), 0);
	assert_int_equal(out(oc, 1000, 3, S_STATE, KSTACK_A, 3, NULL, 0), 0);
	assert_int_equal(ft_offcpu_switch_in(oc, 1000 + 100 * MS - 1, 0, 1), 0);
	assert_int_equal(ft_offcpu_switch_in(oc, 1000 + 100 * MS, 0, 2), 0);
	assert_int_equal(ft_offcpu_switch_in(oc, 1000 + 100 * MS + 1, 0, 3), 0);
	assert_int_equal(ft_offcpu_end(oc, 1000 + 200 * MS), 0);

	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, 3);
	assert_int_equal(st.direct, 2);
	assert_int_equal(st.aggregated, 1);
	assert_int_equal(st.aggregated_ns, 100 * MS - 1);
	assert_int_equal(st.direct_ns, 200 * MS + 1);
	assert_int_equal(ft_offcpu_nr_samples(oc), 2);
	assert_int_equal(ft_offcpu_sample(oc, 0)->tid, 2);
	assert_int_equal(ft_offcpu_sample(oc, 0)->period, 100 * MS);
	assert_int_equal(ft_offcpu_sample(oc, 0)->ts_out, 1000);
	assert_int_equal(ft_offcpu_sample(oc, 0)->state, S_STATE);
	assert_int_equal(ft_offcpu_sample(oc, 0)->cut, FT_OFFCPU_WHOLE);
	assert_int_equal(ft_offcpu_sample(oc, 1)->tid, 3);
	assert_int_equal(ft_offcpu_sample(oc, 1)->period, 100 * MS + 1);
	assert_null(ft_offcpu_sample(oc, 2));
	/* the aggregate holds only the interval below the threshold */
	ft_offcpu_foreach_agg(oc, sum_agg, sums);
	assert_int_equal(sums[0], 100 * MS - 1);
	assert_int_equal(sums[1], 1);
	ft_offcpu_free(oc);
}

/* Threshold 0: everything is direct; UINT64_MAX: nothing is. */
static void test_threshold_extremes(void **state)
{
	struct ft_offcpu_stats st;

	for (int pass = 0; pass < 2; pass++) {
		struct ft_offcpu *oc = ft_offcpu_new(pass ? UINT64_MAX : 0);

		ft_offcpu_begin(oc, 0);
		for (uint64_t i = 0; i < 10; i++) {
			out(oc, 10 + i * 100, 7, S_STATE, KSTACK_B, 2, NULL, 0);
			ft_offcpu_switch_in(oc, 10 + i * 100 + i, 0, 7); /* lengths 0..9 */
		}
		ft_offcpu_end(oc, 5000);
		ft_offcpu_get_stats(oc, &st);
		assert_int_equal(st.intervals, 10);
		assert_int_equal(st.direct + st.aggregated, 10);
		assert_int_equal(st.direct_ns + st.aggregated_ns, 45);
		assert_int_equal(st.direct, pass ? 0 : 10);
		ft_offcpu_free(oc);
	}
}

/* Cut intervals are marked, with their own keys, and lower-bound periods. */
static void test_cut_start_end(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(50 * MS);
	struct ft_offcpu_stats st;
	struct ft_offcpu_row *rows;
	size_t nr;
	int seen_start = 0, seen_end = 0, seen_whole = 0;

	ft_offcpu_begin(oc, 1000 * MS);
	/* tid 5 first seen switching in: off-CPU since before the start */
	assert_int_equal(ft_offcpu_switch_in(oc, 1070 * MS, 0, 5), 0);
	/* a whole 10 ms interval of tid 5 */
	out(oc, 1100 * MS, 5, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	ft_offcpu_switch_in(oc, 1110 * MS, 1, 5);
	/* tid 6: a short cut-start, then off at the end with a known stack */
	ft_offcpu_switch_in(oc, 1001 * MS, 1, 6);
	out(oc, 1150 * MS, 6, D_STATE, KSTACK_B, 2, NULL, 0);
	/* tid 5 again off at the end, 20 ms before it: below the threshold */
	out(oc, 1180 * MS, 5, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	assert_int_equal(ft_offcpu_end(oc, 1200 * MS), 0);

	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.cut_start, 2);
	assert_int_equal(st.cut_start_ns, 70 * MS + 1 * MS);
	assert_int_equal(st.cut_end, 2);
	assert_int_equal(st.cut_end_ns, 50 * MS + 20 * MS);
	assert_int_equal(st.intervals, 5);
	/* 70 ms cut-start of tid 5 and 50 ms cut-end of tid 6 are direct (>= 50) */
	assert_int_equal(st.direct, 2);
	assert_int_equal(ft_offcpu_sample(oc, 0)->cut, FT_OFFCPU_CUT_START);
	assert_int_equal(ft_offcpu_sample(oc, 0)->ts_out, 1000 * MS);
	assert_int_equal(ft_offcpu_sample(oc, 0)->state, FT_OFFCPU_STATE_UNKNOWN);
	assert_int_equal(ft_offcpu_sample(oc, 0)->kstack, 0);
	assert_int_equal(ft_offcpu_sample(oc, 1)->cut, FT_OFFCPU_CUT_END);
	assert_int_equal(ft_offcpu_sample(oc, 1)->tid, 6);
	assert_int_equal(ft_offcpu_sample(oc, 1)->period, 50 * MS);
	assert_int_equal(ft_offcpu_sample(oc, 1)->state, D_STATE);
	assert_int_not_equal(ft_offcpu_sample(oc, 1)->kstack, 0);

	/* the whole 10 ms and the cut 20 ms of tid 5 (same stack) are separate rows */
	rows = ft_offcpu_rows(oc, &nr);
	assert_int_equal(nr, 5);
	for (size_t i = 0; i < nr; i++) {
		if (rows[i].key.tid != 5 || rows[i].key.kstack == 0)
			continue;
		if (rows[i].key.cut == FT_OFFCPU_CUT_END) {
			assert_int_equal(rows[i].key.total, 20 * MS);
			seen_end++;
		} else {
			assert_int_equal(rows[i].key.cut, FT_OFFCPU_WHOLE);
			assert_int_equal(rows[i].key.total, 10 * MS);
			seen_whole++;
		}
	}
	for (size_t i = 0; i < nr; i++)
		seen_start += rows[i].key.cut == FT_OFFCPU_CUT_START;
	assert_int_equal(seen_end, 1);
	assert_int_equal(seen_whole, 1);
	assert_int_equal(seen_start, 2);
	/* rows are heaviest first */
	for (size_t i = 1; i < nr; i++)
		assert_true(rows[i - 1].key.total >= rows[i].key.total);
	free(rows);
	/* events after end are ignored */
	assert_int_equal(ft_offcpu_switch_in(oc, 1300 * MS, 0, 5), 0);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, 5);
	ft_offcpu_free(oc);
}

/*
 * No double counting: a pseudo-random schedule of 8 threads over 2 CPUs;
 * the engine's total equals the true off-CPU time, split exactly between
 * direct samples and aggregates, and the rows add up to the same.
 */
static void test_no_double_counting(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(5 * MS);
	struct ft_offcpu_stats st;
	uint64_t truth = 0, truth_direct = 0, n_direct = 0, n = 0, rows_n, sums[2] = { 0 };
	uint64_t off_since[9] = { 0 }, ts = 1000;
	int off[9] = { 0 }, seen[9] = { 0 };
	unsigned int seed = 12345;
	uint64_t ks[4][2];

	for (int i = 0; i < 4; i++) {
		ks[i][0] = 0xffffffff81100000ull + i * 16;
		ks[i][1] = 0xffffffff81200000ull;
	}
	ft_offcpu_begin(oc, ts);
	/* every thread starts on a CPU (switch-out first): no cut at start */
	for (uint32_t t = 1; t <= 8; t++) {
		out(oc, ts, t, S_STATE, ks[t % 4], 2, NULL, 0);
		off[t] = 1;
		off_since[t] = ts;
		seen[t] = 1;
	}
	for (int step = 0; step < 20000; step++) {
		uint32_t t = 1 + rand_r(&seed) % 8;

		ts += rand_r(&seed) % (2 * MS);
		if (off[t]) {
			uint64_t p = ts - off_since[t];

			ft_offcpu_switch_in(oc, ts, step & 1, t);
			truth += p;
			n++;
			if (p >= 5 * MS) {
				truth_direct += p;
				n_direct++;
			}
			off[t] = 0;
		} else {
			out(oc, ts, t, (step & 2) ? D_STATE : S_STATE, ks[step % 4], 2, NULL, 0);
			off[t] = 1;
			off_since[t] = ts;
		}
		if (rand_r(&seed) % 50 == 0)
			ft_offcpu_wakeup(oc, ts, t); /* wakeups change nothing in totals */
	}
	/* close what is open as cut at end */
	ts += MS;
	for (uint32_t t = 1; t <= 8; t++)
		if (off[t]) {
			uint64_t p = ts - off_since[t];

			truth += p;
			n++;
			if (p >= 5 * MS) {
				truth_direct += p;
				n_direct++;
			}
		}
	assert_int_equal(ft_offcpu_end(oc, ts), 0);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, n);
	assert_int_equal(st.direct_ns + st.aggregated_ns, truth);
	assert_int_equal(st.direct_ns, truth_direct);
	assert_int_equal(st.direct, n_direct);
	assert_int_equal(ft_offcpu_nr_samples(oc), n_direct);
	assert_int_equal(st.unpaired, 0);
	assert_int_equal(st.cut_start, 0);
	assert_int_equal(rows_total(oc, &rows_n), truth);
	assert_int_equal(rows_n, n);
	ft_offcpu_foreach_agg(oc, sum_agg, sums);
	assert_int_equal(sums[0], truth - truth_direct);
	assert_int_equal(sums[1], n - n_direct);
	/* only 4 distinct kernel stacks were ever interned */
	assert_int_equal(st.stacks, 4);
	assert_int_equal(st.threads, 8);
	(void)seen;
	ft_offcpu_free(oc);
}

/* Aggregates are keyed by (tgid, pid, kstack, ustack, state). */
static void test_aggregation_keys(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(500 * MS);
	struct ft_offcpu_row *rows;
	size_t nr;

	ft_offcpu_begin(oc, 0);
	for (int i = 0; i < 3; i++) { /* 3 x 2 ms, same key */
		out(oc, 10 * MS * i + 1, 9, S_STATE, KSTACK_A, 3, USTACK_A, 3);
		ft_offcpu_switch_in(oc, 10 * MS * i + 1 + 2 * MS, 0, 9);
	}
	out(oc, 100 * MS, 9, D_STATE, KSTACK_A, 3, USTACK_A, 3); /* other state */
	ft_offcpu_switch_in(oc, 101 * MS, 0, 9);
	out(oc, 110 * MS, 9, S_STATE, KSTACK_A, 3, NULL, 0); /* no user stack */
	ft_offcpu_switch_in(oc, 114 * MS, 0, 9);
	out(oc, 120 * MS, 9, S_STATE, KSTACK_B, 2, USTACK_A, 3); /* other kernel stack */
	ft_offcpu_switch_in(oc, 125 * MS, 0, 9);
	ft_offcpu_end(oc, 200 * MS);

	rows = ft_offcpu_rows(oc, &nr);
	assert_int_equal(nr, 4);
	assert_int_equal(rows[0].key.total, 6 * MS);
	assert_int_equal(rows[0].key.count, 3);
	assert_int_equal(rows[0].key.state, S_STATE);
	assert_int_equal(rows[0].max, 2 * MS);
	assert_int_equal(rows[0].direct, 0);
	assert_int_equal(rows[1].key.total, 5 * MS);
	assert_int_equal(rows[2].key.total, 4 * MS);
	assert_int_equal(rows[2].key.ustack, 0);
	assert_int_equal(rows[3].key.total, 1 * MS);
	assert_int_equal(rows[3].key.state, D_STATE);
	assert_int_equal(rows[3].key.tgid, 100);
	free(rows);
	ft_offcpu_free(oc);
}

/* Exits, new threads, lost and out-of-order events are counted apart. */
static void test_not_counted(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(MS);
	struct ft_offcpu_stats st;

	ft_offcpu_begin(oc, 0);
	/* a thread that exits: switched out as Z, never back */
	out(oc, 10, 20, 0x20, KSTACK_A, 3, NULL, 0);
	/* a thread born in the recording: its first switch-in is not a block */
	ft_offcpu_new_task(oc, 100, 21, 100);
	ft_offcpu_switch_in(oc, 5 * MS, 0, 21);
	/* a switch-out lost: two switch-ins in a row */
	ft_offcpu_switch_in(oc, 6 * MS, 0, 21);
	/* a switch-in lost: two switch-outs in a row; the first interval is dropped */
	out(oc, 7 * MS, 21, S_STATE, KSTACK_A, 3, NULL, 0);
	out(oc, 8 * MS, 21, S_STATE, KSTACK_B, 2, NULL, 0);
	ft_offcpu_switch_in(oc, 9 * MS, 0, 21);
	/* out of order for its thread */
	ft_offcpu_switch_in(oc, 8 * MS + 5, 0, 21);
	/* the idle task is never analysed */
	ft_offcpu_switch_in(oc, 9 * MS, 0, 0);
	ft_offcpu_end(oc, 20 * MS);

	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.dead, 1);
	assert_int_equal(st.new_task, 1);
	assert_int_equal(st.unpaired, 2);
	assert_int_equal(st.unordered, 1);
	assert_int_equal(st.intervals, 1);
	assert_int_equal(st.direct_ns + st.aggregated_ns, 1 * MS);
	assert_int_equal(st.cut_end, 0);
	assert_int_equal(st.cut_start, 0);
	ft_offcpu_free(oc);
}

/*
 * A lost switch-in (two switch-outs in a row) with a wakeup in between: the
 * interval ends at the wakeup, is counted once and marked estimated.
 */
static void test_lost_switch_in_wakeup(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(50 * MS);
	struct ft_offcpu_stats st;
	const struct ft_offcpu_sample *s;

	ft_offcpu_begin(oc, 0);
	out(oc, 10 * MS, 22, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	ft_offcpu_wakeup(oc, 80 * MS, 22); /* runnable after 70 ms */
	/* the switch-in from idle was not reported; the thread runs and blocks again */
	out(oc, 81 * MS, 22, D_STATE, KSTACK_B, 2, NULL, 0);
	ft_offcpu_wakeup(oc, 85 * MS, 22);
	ft_offcpu_switch_in(oc, 86 * MS, 1, 22); /* this one is seen */
	ft_offcpu_end(oc, 100 * MS);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, 2);
	assert_int_equal(st.estimated, 1);
	assert_int_equal(st.estimated_ns, 70 * MS);
	assert_int_equal(st.unpaired, 0);
	assert_int_equal(st.direct, 1);
	assert_int_equal(st.direct_ns + st.aggregated_ns, 70 * MS + 5 * MS);
	s = ft_offcpu_sample(oc, 0);
	assert_int_equal(s->period, 70 * MS);
	assert_int_equal(s->estimated, 1);
	assert_int_equal(s->state, S_STATE);
	assert_int_equal(s->ts_in, 80 * MS);
	/* the second interval is whole: 81 -> 86 ms, 4 ms blocked */
	assert_int_equal(st.aggregated_ns, 5 * MS);
	assert_int_equal(rows_total(oc, NULL), 75 * MS);
	ft_offcpu_free(oc);
}

/*
 * A lost switch-in without a wakeup: the thread's own next event (a user
 * record, a kernel event it emitted) ends the interval, once.  With a
 * wakeup: a kernel event of the thread ends it at the wakeup, a user
 * record where it lies (the time from the wakeup to it was spent waiting
 * for a CPU: an idle virtual CPU of a busy host takes that long).
 */
static void test_lost_switch_in_running(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(50 * MS);
	struct ft_offcpu_stats st;

	ft_offcpu_begin(oc, 0);
	out(oc, 10 * MS, 23, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	assert_int_equal(ft_offcpu_running(oc, 5 * MS, 23, 1), 0);  /* before: ignored */
	assert_int_equal(ft_offcpu_running(oc, 70 * MS, 23, 1), 0); /* it ran: 60 ms */
	assert_int_equal(ft_offcpu_running(oc, 71 * MS, 23, 1), 0); /* on CPU: nothing */
	out(oc, 75 * MS, 23, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	/* a kernel event of the thread after its wakeup: the interval ends at the wakeup */
	ft_offcpu_wakeup(oc, 78 * MS, 23);
	ft_offcpu_running(oc, 79 * MS, 23, 0);
	ft_offcpu_switch_in(oc, 80 * MS, 0, 23); /* a switch-in while on: unpaired */
	ft_offcpu_running(oc, 81 * MS, 99, 1);	 /* unknown thread: nothing */
	out(oc, 82 * MS, 23, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	/* a user record after the wakeup: it ends there, 2 ms later than the wakeup */
	ft_offcpu_wakeup(oc, 88 * MS, 23);
	ft_offcpu_running(oc, 90 * MS, 23, 1);
	ft_offcpu_running(oc, 91 * MS, 23, 0); /* on CPU: nothing */
	ft_offcpu_end(oc, 100 * MS);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, 3);
	assert_int_equal(st.estimated, 3);
	assert_int_equal(st.estimated_ns, 60 * MS + 3 * MS + 8 * MS);
	assert_int_equal(st.direct, 1);
	assert_int_equal(ft_offcpu_sample(oc, 0)->period, 60 * MS);
	assert_int_equal(ft_offcpu_sample(oc, 0)->estimated, 1);
	assert_int_equal(st.aggregated_ns, 3 * MS + 8 * MS);
	assert_int_equal(st.unpaired, 1);
	assert_int_equal(rows_total(oc, NULL), 71 * MS);
	ft_offcpu_free(oc);
}

static int only_tgid_100(uint32_t tid, uint32_t tgid, void *arg)
{
	(void)arg;
	return tgid == 100;
}

/* The filter keeps other processes out; wakeups split blocked from runnable. */
static void test_filter_and_wakeup(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(10 * MS);
	struct ft_offcpu_out ev = {
		.ts = MS, .tid = 30, .tgid = 555, .state = S_STATE, .kips = KSTACK_A, .knr = 3
	};
	struct ft_offcpu_stats st;

	ft_offcpu_set_filter(oc, only_tgid_100, NULL);
	ft_offcpu_begin(oc, 0);
	ft_offcpu_switch_out(oc, &ev); /* other process: ignored */
	ft_offcpu_switch_in(oc, 20 * MS, 0, 30);
	out(oc, MS, 31, S_STATE, KSTACK_A, 3, NULL, 0);
	ft_offcpu_wakeup(oc, 16 * MS, 31);
	ft_offcpu_wakeup(oc, 17 * MS, 31); /* only the first wakeup counts */
	ft_offcpu_switch_in(oc, 21 * MS, 0, 31);
	ft_offcpu_end(oc, 30 * MS);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.intervals, 1);
	assert_int_equal(st.direct, 1);
	assert_int_equal(ft_offcpu_sample(oc, 0)->period, 20 * MS);
	assert_int_equal(ft_offcpu_sample(oc, 0)->blocked, 15 * MS);
	assert_int_equal(st.threads, 1);
	ft_offcpu_free(oc);
}

static int fake_sym(uint64_t ip, int kernel, int with_offset, char *buf, size_t len, void *arg)
{
	if (ip == 0xffffffff81000200ull)
		return -1; /* unresolvable: printed as an address */
	snprintf(buf, len, "%c%llx", kernel ? 'k' : 'u', (unsigned long long)(ip & 0xfff));
	return 0;
}

/* BCC offcputime's folded lines: comm;user root..leaf;-;kernel root..leaf */
static void test_folded(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(3 * MS);
	struct ft_folded *fo = ft_folded_new(0);
	struct folded_lines f = { .n = 0 };
	int found = 0;

	assert_non_null(fo);

	ft_offcpu_begin(oc, 0);
	ft_offcpu_switch_in(oc, 2 * MS, 0, 40); /* cut at start, 2 ms */
	out(oc, 3 * MS, 40, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	ft_offcpu_switch_in(oc, 4 * MS, 0, 40); /* 1 ms, aggregated */
	out(oc, 5 * MS, 40, S_STATE, KSTACK_A, 3, USTACK_A, 3);
	ft_offcpu_switch_in(oc, 9 * MS, 0, 40); /* 4 ms, direct, same stack */
	out(oc, 10 * MS, 40, S_STATE, KSTACK_B, 2, NULL, 0);
	ft_offcpu_end(oc, 11 * MS); /* 1 ms, cut at end, kernel only */
	assert_int_equal(ft_offcpu_fold(oc, fo, fake_sym, NULL, 1000), 0);
	assert_int_equal(ft_folded_foreach(fo, collect_line, &f), 0);
	assert_int_equal(f.n, 3);
	for (int i = 0; i < f.n; i++) {
		if (!strcmp(f.lines[i], "prog;u30;u20;u10;-;k300;0xffffffff81000200;k100")) {
			assert_int_equal(f.weights[i], 5000); /* 1 ms + 4 ms in us */
			found |= 1;
		} else if (!strcmp(f.lines[i], "prog;[missing user stack];0xffffffff81000200;k400;"
					       "[cut at end]")) {
			assert_int_equal(f.weights[i], 1000);
			found |= 2;
		} else if (!strcmp(f.lines[i], "prog;[cut at start]")) {
			assert_int_equal(f.weights[i], 2000);
			found |= 4;
		} else {
			fail_msg("unexpected folded line '%s'", f.lines[i]);
		}
	}
	assert_int_equal(found, 7);
	ft_folded_free(fo);
	ft_offcpu_free(oc);
}

/* The report and sample list are written (smoke, with exact key lines). */
static void test_text_outputs(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(3 * MS);
	char *buf = NULL;
	size_t len = 0;
	FILE *f;

	ft_offcpu_begin(oc, 0);
	out(oc, 5 * MS, 40, D_STATE, KSTACK_A, 3, USTACK_A, 3);
	ft_offcpu_switch_in(oc, 9 * MS, 0, 40);
	ft_offcpu_end(oc, 11 * MS);
	f = open_memstream(&buf, &len);
	assert_int_equal(ft_offcpu_write_report(oc, f, 10, fake_sym, NULL), 0);
	assert_int_equal(ft_offcpu_write_samples(oc, f, fake_sym, NULL), 0);
	fclose(f);
	assert_non_null(strstr(buf, "# ftrail offcpu: threshold 3.000 ms"));
	assert_non_null(strstr(buf, "4.000 100.00%      D       1       1"));
	assert_non_null(strstr(buf, "prog 100/40\n"));
	assert_non_null(strstr(buf, "=> k100\n"));
	assert_non_null(strstr(buf, "=> -- user --\n"));
	assert_non_null(strstr(buf, "prog 100/40 0.005000: offcpu period=4000000 ns state=D\n"));
	free(buf);
	ft_offcpu_free(oc);
}

static void test_state_str(void **state)
{
	char b[32];

	assert_string_equal(ft_offcpu_state_str(0, b, sizeof(b)), "R");
	assert_string_equal(ft_offcpu_state_str(0x100, b, sizeof(b)), "R+");
	assert_string_equal(ft_offcpu_state_str(1, b, sizeof(b)), "S");
	assert_string_equal(ft_offcpu_state_str(2, b, sizeof(b)), "D");
	assert_string_equal(ft_offcpu_state_str(0x80, b, sizeof(b)), "I");
	assert_string_equal(ft_offcpu_state_str(3, b, sizeof(b)), "S|D");
	assert_string_equal(ft_offcpu_state_str(FT_OFFCPU_STATE_UNKNOWN, b, sizeof(b)), "?");
	assert_string_equal(ft_offcpu_state_str(2, b, 2), "D");
}

/* Shadow stacks from function_graph entries/exits, with depth resync. */
static void test_ustack(void **state)
{
	struct ft_offcpu_ustack *us = ft_offcpu_ustack_new();
	uint64_t ips[8];

	assert_non_null(us);
	assert_int_equal(ft_offcpu_ustack_get(us, 1, ips, 8), 0);
	ft_offcpu_ustack_entry(us, 1, 0, 0x100);  /* main */
	ft_offcpu_ustack_entry(us, 1, 1, 0x200);  /* worker */
	ft_offcpu_ustack_entry(us, 1, 2, 0x300);  /* helper */
	ft_offcpu_ustack_exit(us, 1, 2);	  /* helper returns */
	ft_offcpu_ustack_entry(us, 1, -1, 0x400); /* block_here, pushed */
	ft_offcpu_ustack_entry(us, 2, 0, 0x900);  /* another thread */
	assert_int_equal(ft_offcpu_ustack_get(us, 1, ips, 8), 3);
	assert_int_equal(ips[0], 0x400);
	assert_int_equal(ips[1], 0x200);
	assert_int_equal(ips[2], 0x100);
	assert_int_equal(ft_offcpu_ustack_get(us, 1, ips, 2), 2);
	/* an entry at depth 1 cuts frames whose exits were lost */
	ft_offcpu_ustack_entry(us, 1, 1, 0x500);
	assert_int_equal(ft_offcpu_ustack_get(us, 1, ips, 8), 2);
	assert_int_equal(ips[0], 0x500);
	/* an entry at depth 4 after lost entries: unknown frames are left out */
	ft_offcpu_ustack_entry(us, 1, 4, 0x600);
	assert_int_equal(ft_offcpu_ustack_get(us, 1, ips, 8), 3);
	assert_int_equal(ips[0], 0x600);
	assert_int_equal(ips[1], 0x500);
	/* exits below an empty stack are ignored */
	for (int i = 0; i < 10; i++)
		ft_offcpu_ustack_exit(us, 2, -1);
	assert_int_equal(ft_offcpu_ustack_get(us, 2, ips, 8), 0);
	ft_offcpu_ustack_entry(us, 2, -1, 0x901);
	assert_int_equal(ft_offcpu_ustack_get(us, 2, ips, 8), 1);
	/* deeper than the bound: counted, not stored, popped again */
	for (int i = 0; i < FT_OFFCPU_USTACK_MAX + 10; i++)
		assert_int_equal(ft_offcpu_ustack_entry(us, 3, -1, 0x1000 + i), 0);
	for (int i = 0; i < 10; i++)
		ft_offcpu_ustack_exit(us, 3, -1);
	assert_int_equal(ft_offcpu_ustack_get(us, 3, ips, 8), 8);
	assert_int_equal(ips[0], 0x1000 + FT_OFFCPU_USTACK_MAX - 1);
	/* many threads: the table grows */
	for (uint32_t t = 100; t < 1100; t++)
		assert_int_equal(ft_offcpu_ustack_entry(us, t, 0, t), 0);
	assert_int_equal(ft_offcpu_ustack_get(us, 777, ips, 8), 1);
	assert_int_equal(ips[0], 777);
	ft_offcpu_ustack_free(us);
}

/* Many threads and stacks: tables grow and keep every entry. */
static void test_growth(void **state)
{
	struct ft_offcpu *oc = ft_offcpu_new(MS);
	struct ft_offcpu_stats st;
	uint64_t k[2];

	ft_offcpu_begin(oc, 0);
	for (uint32_t t = 1; t <= 3000; t++) {
		k[0] = 0xffffffff81000000ull + t;
		k[1] = 0xffffffff82000000ull;
		assert_int_equal(out(oc, t * 10, t, S_STATE, k, 2, NULL, 0), 0);
	}
	for (uint32_t t = 1; t <= 3000; t++)
		assert_int_equal(ft_offcpu_switch_in(oc, 100000 + t, 0, t), 0);
	ft_offcpu_end(oc, 200000);
	ft_offcpu_get_stats(oc, &st);
	assert_int_equal(st.threads, 3000);
	assert_int_equal(st.stacks, 3000);
	assert_int_equal(st.intervals, 3000);
	assert_int_equal(st.aggregated, 3000);
	assert_int_equal(rows_total(oc, NULL), st.aggregated_ns);
	for (uint32_t id = 1; id <= 3000; id++) {
		const uint64_t *ips;
		uint32_t nr;

		assert_int_equal(ft_offcpu_stack(oc, id, &ips, &nr), 0);
		assert_int_equal(nr, 2);
	}
	assert_int_equal(ft_offcpu_stack(oc, 3001, &(const uint64_t *){ NULL }, &(uint32_t){ 0 }),
			 -1);
	assert_string_equal(ft_offcpu_comm(oc, 77), "prog");
	ft_offcpu_free(oc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold_boundary),
		cmocka_unit_test(test_threshold_extremes),
		cmocka_unit_test(test_cut_start_end),
		cmocka_unit_test(test_no_double_counting),
		cmocka_unit_test(test_aggregation_keys),
		cmocka_unit_test(test_not_counted),
		cmocka_unit_test(test_lost_switch_in_wakeup),
		cmocka_unit_test(test_lost_switch_in_running),
		cmocka_unit_test(test_filter_and_wakeup),
		cmocka_unit_test(test_folded),
		cmocka_unit_test(test_text_outputs),
		cmocka_unit_test(test_state_str),
		cmocka_unit_test(test_ustack),
		cmocka_unit_test(test_growth),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
