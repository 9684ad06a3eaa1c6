// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of captured arguments and return values on the reader side:
 * FT_EXT_ARGS / FT_EXT_RETVAL attached to entries and exits (analysis/
 * trace.c), their text (analysis/argfmt.c) with the names and enums of
 * the ARGSPEC section, and the function_graph layout with
 * funcgraph-args / funcgraph-retval (analysis/ftrace_fmt.c), on synthetic
 * traces (tests/tools/mktrace.h).
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/argfmt.h"
#include "analysis/ftrace_fmt.h"
#include "analysis/trace.h"
#include "core/argspec.h"
#include "core/options.h"
#include "tests/tools/mktrace.h"

#include "tests/unit/tmpfile.h"

static struct ft_trace *make(void)
{
	struct ft_writer *w = ft_writer_open(path, 3, NULL, 0);
	struct ft_trace *t;
	char err[512];

	assert_non_null(w);
	assert_int_equal(mk_tables(w, "function_graph", NULL, 0), 0);
	assert_int_equal(mk_args(w, 0), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	t = ft_trace_open(path, err, sizeof(err));
	if (!t)
		fail_msg("open: %s", err);
	return t;
}

static char *render(struct ft_trace *t, uint64_t opts)
{
	struct ft_fmt *f;
	struct ft_event ev;
	char *out = NULL, err[256];
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);

	f = ft_fmt_new(t, opts, m);
	while (ft_trace_next(t, &ev, err, sizeof(err)) == 1)
		assert_int_equal(ft_fmt_event(f, &ev), 0);
	ft_fmt_free(f);
	fclose(m);
	return out;
}

static void test_graph_args_retval(void **state)
{
	struct ft_trace *t = make();
	uint64_t o = ft_options_default();
	char *s;

	(void)state;
	ft_options_apply(&o, "nofuncgraph-duration");
	ft_options_apply(&o, "nofuncgraph-cpu");
	ft_options_apply(&o, "funcgraph-args");
	ft_options_apply(&o, "funcgraph-retval");
	s = render(t, o);
	assert_string_equal(s, "main() {\n"
			       "  foo(a=-2, s=\"hi\\n\", c=BLUE, big={...}(40B)) {\n"
			       "    bar(); /* = -1 */\n"
			       "  }\n"
			       "  baz(0xdead, 0.25); /* = 1.5 */\n"
			       "  foo(a=-2, s=0x10(bad), \"abc\\\"\"...);\n"
			       "}\n");
	free(s);
	/* without the options: the plain graph */
	assert_int_equal(ft_trace_rewind(t, NULL, 0), 0);
	o &= ~(FT_OPT(FUNCGRAPH_ARGS) | FT_OPT(FUNCGRAPH_RETVAL));
	s = render(t, o);
	assert_string_equal(s, "main() {\n"
			       "  foo() {\n"
			       "    bar();\n"
			       "  }\n"
			       "  baz();\n"
			       "  foo();\n"
			       "}\n");
	free(s);
	ft_trace_close(t);
}

struct seen {
	char text[512];
};

static void collect(void *arg, const char *name, unsigned int loc, unsigned int idx,
		    const char *value, int64_t num, int is_num)
{
	struct seen *x = arg;
	size_t n = strlen(x->text);

	snprintf(x->text + n, sizeof(x->text) - n, "[%s %u.%u %s %lld%s]", name, loc, idx, value,
		 (long long)num, is_num ? "" : "?");
}

static void test_each_and_bad(void **state)
{
	struct ft_trace *t = make();
	struct ft_argfmt *a = ft_argfmt_new(t);
	struct ft_event ev;
	struct seen x = { "" };
	char err[256], out[64];
	unsigned char junk[8] = { 0xff, 0xff, 0xff, 0xff, 1, 2, 3, 4 };

	(void)state;
	assert_non_null(a);
	while (ft_trace_next(t, &ev, err, sizeof(err)) == 1)
		if (ev.type == FT_EV_ENTRY && ev.fid == F_FOO)
			break;
	assert_non_null(ev.data);
	assert_int_equal(ft_argfmt_each(a, ev.fid, ev.data, ev.len, 0, collect, &x), 0);
	assert_string_equal(x.text, "[a 0.0 -2 -2][s 0.1 \"hi\\n\" 0?][c 0.2 BLUE 7][big 3.0 "
				    "{...}(40B) 0?]");
	/* an item running past the payload, an unknown format: errors, no read past */
	assert_int_equal(ft_argfmt_args(a, F_FOO, junk, sizeof(junk), out, sizeof(out)), -1);
	assert_string_equal(out, "<bad args>");
	junk[0] = FT_AF_NR;
	junk[2] = junk[3] = 0;
	assert_int_equal(ft_argfmt_args(a, F_FOO, junk, 4, out, sizeof(out)), -1);
	/* a payload that is not a whole number of items */
	assert_int_equal(ft_argfmt_args(a, F_FOO, ev.data, ev.len - 1, out, sizeof(out)), -1);
	ft_argfmt_free(a);
	ft_trace_close(t);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_graph_args_retval, setup, teardown),
		cmocka_unit_test_setup_teardown(test_each_and_bad, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
