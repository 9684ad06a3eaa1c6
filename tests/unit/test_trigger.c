// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/trigger.c: parsing of every command with and without
 * count and "if", function commands, errors with positions, and the count
 * semantics of ftrace's event triggers (decrement only when the trigger did
 * its work).
 */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/trigger.h"

FTRAIL_EVENT(blk, unplug, (u32, nr_rq), (string, who));

/* A fake world for the trigger to act on. */
struct world {
	int tracing_on;
	int ev_enabled;
	int stacks, snaps, set_tracing_calls, set_event_calls;
};

static int w_is_on(void *c)
{
	return ((struct world *)c)->tracing_on;
}
static void w_set_tracing(void *c, int on)
{
	((struct world *)c)->tracing_on = on;
	((struct world *)c)->set_tracing_calls++;
}
static void w_stack(void *c)
{
	__atomic_add_fetch(&((struct world *)c)->stacks, 1, __ATOMIC_RELAXED);
}
static void w_snap(void *c)
{
	((struct world *)c)->snaps++;
}
static int w_ev_enabled(void *c, const struct ft_trigger *t)
{
	assert_string_equal(t->sys, "kmem");
	assert_string_equal(t->event, "kmalloc");
	return ((struct world *)c)->ev_enabled;
}
static void w_set_event(void *c, const struct ft_trigger *t, int on)
{
	(void)t;
	((struct world *)c)->ev_enabled = on;
	((struct world *)c)->set_event_calls++;
}

static const struct ft_trigger_ops ops = {
	.tracing_is_on = w_is_on,
	.set_tracing = w_set_tracing,
	.stacktrace = w_stack,
	.snapshot = w_snap,
	.event_enabled = w_ev_enabled,
	.set_event = w_set_event,
};

static unsigned char rec[256];
static uint32_t rec_len;
static void capture(struct ftrail_event *ev, void *r, uint32_t len)
{
	(void)ev;
	memcpy(rec, r, len);
	rec_len = len;
}
static void mk(uint32_t nr_rq)
{
	ftrail__desc_blk__unplug.write = capture;
	ftrail__desc_blk__unplug.enabled = 1;
	ftrail_trace(blk, unplug, nr_rq, "kworker");
}

static void parse_ok(const char *text, struct ft_trigger *t)
{
	char err[256];

	if (ft_trigger_parse(text, t, err, sizeof(err)))
		fail_msg("'%s' refused: %s", text, err);
	if (ft_trigger_bind(t, ftrail__fields_blk__unplug, 2, err, sizeof(err)))
		fail_msg("'%s' filter refused: %s", text, err);
}

static void test_parse_all_commands(void **state)
{
	static const struct {
		const char *text;
		int cmd;
		int64_t count;
		const char *filter;
		const char *canon;
	} cases[] = {
		{ "traceon", FT_TRIG_TRACEON, -1, NULL, "traceon:unlimited" },
		{ "traceoff", FT_TRIG_TRACEOFF, -1, NULL, "traceoff:unlimited" },
		{ "stacktrace", FT_TRIG_STACKTRACE, -1, NULL, "stacktrace:unlimited" },
		{ "snapshot", FT_TRIG_SNAPSHOT, -1, NULL, "snapshot:unlimited" },
		{ "enable_event:kmem:kmalloc", FT_TRIG_ENABLE_EVENT, -1, NULL,
		  "enable_event:kmem:kmalloc:unlimited" },
		{ "disable_event:kmem:kmalloc", FT_TRIG_DISABLE_EVENT, -1, NULL,
		  "disable_event:kmem:kmalloc:unlimited" },
		{ "traceon:5", FT_TRIG_TRACEON, 5, NULL, "traceon:count=5" },
		{ "traceoff:3", FT_TRIG_TRACEOFF, 3, NULL, "traceoff:count=3" },
		{ "stacktrace:2", FT_TRIG_STACKTRACE, 2, NULL, "stacktrace:count=2" },
		{ "snapshot:1", FT_TRIG_SNAPSHOT, 1, NULL, "snapshot:count=1" },
		{ "enable_event:kmem:kmalloc:3 if nr_rq > 1", FT_TRIG_ENABLE_EVENT, 3, "nr_rq > 1",
		  "enable_event:kmem:kmalloc:count=3 if nr_rq > 1" },
		{ "disable_event:kmem:kmalloc if who ~ \"kw*\"", FT_TRIG_DISABLE_EVENT, -1,
		  "who ~ \"kw*\"", "disable_event:kmem:kmalloc:unlimited if who ~ \"kw*\"" },
		{ "traceoff if nr_rq == 2", FT_TRIG_TRACEOFF, -1, "nr_rq == 2",
		  "traceoff:unlimited if nr_rq == 2" },
		{ "  snapshot:7   if   (nr_rq & 1)", FT_TRIG_SNAPSHOT, 7, "(nr_rq & 1)",
		  "snapshot:count=7 if (nr_rq & 1)" },
	};
	char buf[256];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct ft_trigger t;

		parse_ok(cases[i].text, &t);
		assert_int_equal(t.cmd, cases[i].cmd);
		assert_int_equal(t.count, cases[i].count);
		if (cases[i].filter) {
			assert_string_equal(t.filter_text, cases[i].filter);
			assert_non_null(t.filter);
		} else {
			assert_null(t.filter_text);
		}
		assert_string_equal(ft_trigger_format(&t, buf, sizeof(buf)), cases[i].canon);
		ft_trigger_free(&t);
	}
}

static void parse_bad(const char *text, const char *want)
{
	struct ft_trigger t;
	char err[256];

	if (!ft_trigger_parse(text, &t, err, sizeof(err))) {
		ft_trigger_free(&t);
		fail_msg("'%s' accepted", text);
	}
	if (!strstr(err, want))
		fail_msg("'%s': error '%s' lacks '%s'", text, err, want);
}

static void test_parse_errors(void **state)
{
	struct ft_trigger t;
	char err[256];

	(void)state;
	parse_bad("", "missing trigger command at position 0");
	parse_bad("traceof", "unknown trigger command 'traceof' at position 0");
	parse_bad("  dump", "unknown trigger command 'dump' at position 2");
	parse_bad("traceoff:", "expected a count after ':' at position 9");
	parse_bad("traceoff:x", "expected a count after ':' at position 9");
	parse_bad("traceoff:0", "count 0 at position 9");
	parse_bad("traceoff:3x", "unexpected 'x' at position 10");
	parse_bad("traceoff fi x", "unexpected 'fi x' at position 9");
	parse_bad("traceoff if", "missing filter after 'if' at position 11");
	parse_bad("traceoff if   ", "missing filter after 'if' at position 14");
	parse_bad("enable_event", "enable_event needs :SYS:EVENT, at position 12");
	parse_bad("enable_event:kmem", "enable_event needs :SYS:EVENT, at position 17");
	parse_bad("disable_event::x", "missing system name at position 14");
	parse_bad("disable_event:kmem:", "missing event name at position 19");
	parse_bad("traceoff:99999999999999999999", "count out of range at position 9");

	/* a filter that does not compile is refused at bind time, before tracing */
	assert_int_equal(ft_trigger_parse("traceoff if foo > 1", &t, err, sizeof(err)), 0);
	assert_int_equal(ft_trigger_bind(&t, ftrail__fields_blk__unplug, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown field 'foo'"));
	assert_non_null(strstr(err, "at position 0"));
	ft_trigger_free(&t);
	assert_int_equal(ft_trigger_parse("traceoff if nr_rq >", &t, err, sizeof(err)), 0);
	assert_int_equal(ft_trigger_bind(&t, ftrail__fields_blk__unplug, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "syntax error at position 7"));
	ft_trigger_free(&t);
}

static void test_parse_func(void **state)
{
	struct ft_trigger t;
	char err[256], buf[256];

	(void)state;
	assert_int_equal(ft_trigger_parse_func("do_trap:traceoff:3", &t, err, sizeof(err)), 0);
	assert_string_equal(t.glob, "do_trap");
	assert_int_equal(t.cmd, FT_TRIG_TRACEOFF);
	assert_int_equal(t.count, 3);
	assert_string_equal(ft_trigger_format(&t, buf, sizeof(buf)), "do_trap:traceoff:count=3");
	ft_trigger_free(&t);
	assert_int_equal(
		ft_trigger_parse_func("do_*:enable_event:kmem:kmalloc", &t, err, sizeof(err)), 0);
	assert_string_equal(t.glob, "do_*");
	assert_string_equal(t.sys, "kmem");
	ft_trigger_free(&t);
	assert_int_equal(ft_trigger_parse_func("f:stacktrace", &t, err, sizeof(err)), 0);
	assert_int_equal(t.count, FT_TRIG_UNLIMITED);
	ft_trigger_free(&t);
	assert_int_equal(ft_trigger_parse_func("do_fault", &t, err, sizeof(err)), -1);
	assert_int_equal(ft_trigger_parse_func(":traceoff", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "position 0"));
	assert_int_equal(ft_trigger_parse_func("do_trap:traceoff if x == 1", &t, err, sizeof(err)),
			 -1);
	assert_non_null(strstr(err, "at position 17 (expected ':COUNT')"));
	assert_int_equal(ft_trigger_parse_func("do_trap:bogus", &t, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'bogus' at position 8"));
}

/* ftrace's rule: the count does not decrement if tracing is already disabled */
static void test_traceoff_count(void **state)
{
	struct world w = { .tracing_on = 1 };
	struct ft_trigger t;

	(void)state;
	parse_ok("traceoff:3", &t);
	mk(1);
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 1);
	assert_int_equal(w.tracing_on, 0);
	assert_int_equal(t.count, 2);
	/* already off: no work, no decrement */
	for (int i = 0; i < 5; i++)
		assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 0);
	assert_int_equal(t.count, 2);
	w.tracing_on = 1;
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 1);
	w.tracing_on = 1;
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 1);
	assert_int_equal(t.count, 0);
	/* used up: tracing stays on */
	w.tracing_on = 1;
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 0);
	assert_int_equal(w.tracing_on, 1);
	assert_int_equal(w.set_tracing_calls, 3);
	ft_trigger_free(&t);
}

static void test_traceon_unlimited(void **state)
{
	struct world w = { .tracing_on = 0 };
	struct ft_trigger t;

	(void)state;
	parse_ok("traceon", &t);
	for (int i = 0; i < 10; i++) {
		w.tracing_on = 0;
		assert_int_equal(ft_trigger_fire(&t, NULL, 0, &ops, &w), 1);
		assert_int_equal(w.tracing_on, 1);
		assert_int_equal(ft_trigger_fire(&t, NULL, 0, &ops, &w), 0); /* already on */
	}
	assert_int_equal(t.count, FT_TRIG_UNLIMITED);
	ft_trigger_free(&t);
}

static void test_stacktrace_snapshot_count(void **state)
{
	struct world w = { .tracing_on = 1 };
	struct ft_trigger st, sn;

	(void)state;
	parse_ok("stacktrace:2", &st);
	parse_ok("snapshot", &sn);
	for (int i = 0; i < 5; i++) {
		ft_trigger_fire(&st, NULL, 0, &ops, &w);
		ft_trigger_fire(&sn, NULL, 0, &ops, &w);
	}
	assert_int_equal(w.stacks, 2); /* always works: each hit uses a count */
	assert_int_equal(w.snaps, 5);
	ft_trigger_free(&st);
	ft_trigger_free(&sn);
}

/* ftrace's documented example: 'enable_event:kmem:kmalloc:3 if nr_rq > 1' */
static void test_enable_event_if_count(void **state)
{
	struct world w = { .tracing_on = 1, .ev_enabled = 0 };
	struct ft_trigger t, d;

	(void)state;
	parse_ok("enable_event:kmem:kmalloc:3 if nr_rq > 1", &t);
	parse_ok("disable_event:kmem:kmalloc", &d);
	mk(1);
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 0); /* filter false */
	assert_int_equal(t.count, 3);
	for (int i = 0; i < 3; i++) {
		mk(2);
		assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 1);
		assert_int_equal(w.ev_enabled, 1);
		/* already enabled: no decrement */
		assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 0);
		assert_int_equal(t.count, 2 - i);
		assert_int_equal(ft_trigger_fire(&d, rec, rec_len, &ops, &w), 1);
		assert_int_equal(w.ev_enabled, 0);
		assert_int_equal(ft_trigger_fire(&d, rec, rec_len, &ops, &w), 0);
	}
	mk(5);
	assert_int_equal(ft_trigger_fire(&t, rec, rec_len, &ops, &w), 0); /* count used up */
	assert_int_equal(w.ev_enabled, 0);
	assert_int_equal(w.set_event_calls, 6);
	ft_trigger_free(&t);
	ft_trigger_free(&d);
}

static void test_filter_without_record(void **state)
{
	struct world w = { .tracing_on = 1 };
	struct ft_trigger t;

	(void)state;
	parse_ok("traceoff if nr_rq == 0", &t);
	/* a filtered trigger hit without a record (cannot evaluate) does nothing */
	assert_int_equal(ft_trigger_fire(&t, NULL, 0, &ops, &w), 0);
	assert_int_equal(w.tracing_on, 1);
	ft_trigger_free(&t);
}

/* Concurrent hits never act more than count times. */
static struct ft_trigger conc;
static struct world conc_w = { .tracing_on = 1 };
static void *hammer(void *arg)
{
	(void)arg;
	for (int i = 0; i < 100000; i++)
		ft_trigger_fire(&conc, NULL, 0, &ops, &conc_w);
	return NULL;
}

static void test_concurrent_count(void **state)
{
	pthread_t th[4];

	(void)state;
	parse_ok("stacktrace:1000", &conc);
	for (int i = 0; i < 4; i++)
		pthread_create(&th[i], NULL, hammer, NULL);
	for (int i = 0; i < 4; i++)
		pthread_join(th[i], NULL);
	assert_int_equal(conc_w.stacks, 1000);
	assert_int_equal(conc.count, 0);
	ft_trigger_free(&conc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_all_commands),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_parse_func),
		cmocka_unit_test(test_traceoff_count),
		cmocka_unit_test(test_traceon_unlimited),
		cmocka_unit_test(test_stacktrace_snapshot_count),
		cmocka_unit_test(test_enable_event_if_count),
		cmocka_unit_test(test_filter_without_record),
		cmocka_unit_test(test_concurrent_count),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
