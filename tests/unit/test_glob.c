// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/glob.c (ftrace's filter globs) and core/session.c
 * (layout, init from record options, the seqlock'ed control setters).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/glob.h"
#include "core/opts.h"
#include "core/options.h"
#include "core/session.h"
#include "core/stackmap.h"

static void test_glob_forms(void **state)
{
	(void)state;
	assert_true(ft_glob_match("schedule", "schedule"));
	assert_false(ft_glob_match("schedule", "schedule_tail"));
	assert_true(ft_glob_match("sched*", "schedule_tail"));
	assert_true(ft_glob_match("sched*", "sched"));
	assert_true(ft_glob_match("*tail", "schedule_tail"));
	assert_false(ft_glob_match("*tail", "tails"));
	assert_true(ft_glob_match("*ule_t*", "schedule_tail"));
	assert_true(ft_glob_match("*", ""));
	assert_true(ft_glob_match("*", "x"));
	assert_false(ft_glob_match("", "x"));
	assert_true(ft_glob_match("", ""));
	assert_true(ft_glob_match("f?o", "foo"));
	assert_false(ft_glob_match("f?o", "fo"));
	assert_true(ft_glob_match("[ab]", "a"));
	assert_false(ft_glob_match("[ab]", "c"));
	assert_true(ft_glob_match("[a-c]x", "bx"));
	assert_true(ft_glob_match("[!a-c]x", "dx"));
	assert_false(ft_glob_match("[!a-c]x", "ax"));
	assert_true(ft_glob_match("a[]]b", "a]b"));
	assert_true(ft_glob_match("a\\*b", "a*b"));
	assert_false(ft_glob_match("a\\*b", "axb"));
	assert_true(ft_glob_match("a[b", "a[b")); /* unclosed class: literal */
	assert_true(ft_glob_match("*a*b*c*", "xxaxxbxxcxx"));
	assert_false(ft_glob_match("*a*b*c*", "xxaxxcxxbxx"));
	/* no exponential blow-up */
	assert_false(
		ft_glob_match("*a*a*a*a*a*a*a*a*b", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"));
	assert_true(ft_glob_match_n("sched*xxx", 6, "schedule"));
	assert_true(ft_glob_is_glob("a*", 2));
	assert_false(ft_glob_is_glob("a*", 1));
}

void ft_strv_push(struct ft_strv *sv, const char *s)
{
	sv->v = realloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = strdup(s);
	sv->v[sv->n] = NULL;
}

static void strv_free(struct ft_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	memset(sv, 0, sizeof(*sv));
}

static void opts_free(struct ft_record_opts *o)
{
	strv_free(&o->filter);
	strv_free(&o->notrace);
	strv_free(&o->graph);
	strv_free(&o->graph_notrace);
	strv_free(&o->pids);
}

static void test_session_init(void **state)
{
	struct ft_record_opts o;
	struct ft_session_hdr *h;
	struct ft_session_ctl *c;
	struct ft_stackmap sm;
	char err[128];
	size_t len, ring = 65536;
	void *mem, *p;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.tracer = "function";
	o.options = ft_options_default();
	o.max_graph_depth = 3;
	ft_strv_push(&o.filter, "sched*");
	ft_strv_push(&o.filter, "!schedule_tail");
	ft_strv_push(&o.graph, "main");
	ft_strv_push(&o.pids, "42");
	len = ft_session_size(&o, ring);
	assert_true(len % 4096 == 0);
	mem = aligned_alloc(4096, len); /* a memfd mapping is page aligned */
	memset(mem, 0, len);
	if (ft_session_init(mem, len, &o, ring, NULL, err, sizeof(err)))
		fail_msg("init: %s", err);
	h = ft_session_check(mem, len, err, sizeof(err));
	assert_non_null(h);
	assert_null(ft_session_check(mem, len - 4096, err, sizeof(err)));
	c = ft_session_ctl(h);
	assert_int_equal(c->tracer, FT_TRACER_FUNCTION);
	assert_int_equal(c->tracing_on, 1);
	assert_int_equal(c->max_graph_depth, 3);
	assert_int_equal(c->nr_pids, 1);
	assert_int_equal(c->pids[0], 42);
	assert_string_equal(c->lists[FT_SL_FILTER], "sched*\n!schedule_tail\n");
	assert_string_equal(c->lists[FT_SL_GRAPH], "main\n");
	assert_string_equal(c->lists[FT_SL_NOTRACE], "");
	p = ft_session_ring(h, &len);
	assert_int_equal(len, ring);
	assert_true((char *)p + len <= (char *)mem + h->total_size);
	p = ft_session_stackmap_mem(h, &len);
	assert_int_equal(ft_stackmap_attach(&sm, p, len), 0);
	assert_int_equal(ft_session_nr_funcs(h), 0);
	assert_int_equal(ft_session_nr_modules(h), 0);

	/* live control */
	ft_session_ctl_begin(h);
	assert_int_equal(c->gen & 1, 1);
	assert_int_equal(ft_session_set_list(h, FT_SL_NOTRACE, "foo\n"), 0);
	assert_int_equal(ft_session_append_list(h, FT_SL_NOTRACE, "bar"), 0);
	ft_session_ctl_end(h);
	assert_int_equal(c->gen, 2);
	assert_string_equal(c->lists[FT_SL_NOTRACE], "foo\nbar\n");
	ft_session_set_tracing_on(h, 0);
	assert_int_equal(c->tracing_on, 0);

	/* runtime messages are lines, delivered whole or counted dropped */
	{
		char line[FT_SESSION_MSG_LINE_MAX + 1];
		uint32_t pos = 0, got = 0;

		assert_int_equal(ft_session_msg_next(h, &pos, line, sizeof(line)), 0);
		ft_session_msg(h, "one");
		ft_session_msg(h, "two");
		assert_int_equal(ft_session_msg_next(h, &pos, line, sizeof(line)), 1);
		assert_string_equal(line, "one");
		assert_int_equal(ft_session_msg_next(h, &pos, line, sizeof(line)), 1);
		assert_string_equal(line, "two");
		assert_int_equal(ft_session_msg_next(h, &pos, line, sizeof(line)), 0);
		for (int i = 0; i < 200; i++)
			ft_session_msg(h, "a fairly long warning line that fills the area");
		while (ft_session_msg_next(h, &pos, line, sizeof(line))) {
			assert_string_equal(line, "a fairly long warning line that fills the area");
			got++;
		}
		assert_true(got > 0 && got < 200);
		assert_int_equal(ft_session_msg_left(h, pos), 200 - got);
		/* a line cut short: a truncated copy for a small buffer */
		assert_int_equal(ft_session_msg_next(h, &(uint32_t){ 0 }, line, 3), 1);
		assert_string_equal(line, "on");
	}
	free(mem);
	opts_free(&o);
}

static void test_session_bad(void **state)
{
	struct ft_record_opts o;
	char err[128];
	size_t len;
	void *mem;

	(void)state;
	memset(&o, 0, sizeof(o));
	o.tracer = "irqsoff";
	len = ft_session_size(&o, 4096);
	mem = calloc(1, len);
	assert_int_equal(ft_session_init(mem, len, &o, 4096, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "unknown tracer"));
	/* the wakeup tracers run on kernel events: the runtime runs nop */
	o.tracer = "wakeup_rt";
	assert_int_equal(ft_tracer_is_kernel("wakeup_rt"), 1);
	assert_int_equal(ft_tracer_is_kernel("function"), 0);
	{
		void *m = aligned_alloc(4096, len); /* as a memfd mapping */

		assert_non_null(m);
		memset(m, 0, len);
		if (ft_session_init(m, len, &o, 4096, NULL, err, sizeof(err)))
			fail_msg("init: %s", err);
		assert_int_equal(ft_session_ctl(ft_session_check(m, len, err, sizeof(err)))->tracer,
				 FT_TRACER_NOP);
		free(m);
	}
	o.tracer = NULL;
	ft_strv_push(&o.pids, "12x");
	assert_int_equal(ft_session_init(mem, len, &o, 4096, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--pid"));
	assert_int_equal(ft_session_init(mem, 4096, &o, 4096, NULL, err, sizeof(err)), -1);
	assert_null(ft_session_check(mem, len, err, sizeof(err)));
	assert_int_equal(ft_tracer_from_name("function_graph"), FT_TRACER_FUNCTION_GRAPH);
	assert_string_equal(ft_tracer_name(FT_TRACER_NOP), "nop");
	free(mem);
	opts_free(&o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_glob_forms),
		cmocka_unit_test(test_session_init),
		cmocka_unit_test(test_session_bad),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
