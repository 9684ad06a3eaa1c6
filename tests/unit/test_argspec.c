// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the argument / return-value spec parser (core/argspec.c):
 * every location and format, names, and the byte position of each error.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "core/argspec.h"

static struct ft_arg_spec parse_ok(const char *s, int which)
{
	struct ft_arg_spec sp;
	size_t pos = 0;
	char err[160];

	if (ft_argspec_parse(s, strlen(s), which, &sp, &pos, err, sizeof(err)) < 0)
		fail_msg("'%s': at %zu: %s", s, pos, err);
	return sp;
}

static void parse_bad(const char *s, int which, size_t want_pos, const char *want)
{
	struct ft_arg_spec sp;
	size_t pos = 999;
	char err[160];

	if (ft_argspec_parse(s, strlen(s), which, &sp, &pos, err, sizeof(err)) == 0)
		fail_msg("'%s' parsed", s);
	if (pos != want_pos || !strstr(err, want))
		fail_msg("'%s': at %zu (want %zu): %s (want '%s')", s, pos, want_pos, err, want);
}

static void test_args_forms(void **state)
{
	struct ft_arg_spec sp;

	(void)state;
	sp = parse_ok("read@arg1/i32,arg2/p,arg3/u64", FT_ARGSPEC_ARGS);
	assert_int_equal(sp.glob_len, 4);
	assert_memory_equal(sp.glob, "read", 4);
	assert_int_equal(sp.nargs, 3);
	assert_int_equal(sp.has_ret, 0);
	assert_int_equal(sp.args[0].fmt, FT_AF_I32);
	assert_int_equal(sp.args[0].loc, FT_AL_INT);
	assert_int_equal(sp.args[0].idx, 0);
	assert_int_equal(sp.args[1].fmt, FT_AF_PTR);
	assert_int_equal(sp.args[2].fmt, FT_AF_U64);
	assert_int_equal(sp.args[2].idx, 2);

	sp = parse_ok("f*@arg6,fparg1,fparg8/f32,arg2/s,arg3/s:200,arg4/c,arg5/b,arg1/x16",
		      FT_ARGSPEC_ARGS);
	assert_int_equal(sp.nargs, 8);
	assert_int_equal(sp.args[0].fmt, FT_AF_I64); /* the default */
	assert_int_equal(sp.args[0].idx, 5);
	assert_int_equal(sp.args[1].fmt, FT_AF_F64);
	assert_int_equal(sp.args[1].loc, FT_AL_FP);
	assert_int_equal(sp.args[2].fmt, FT_AF_F32);
	assert_int_equal(sp.args[2].idx, 7);
	assert_int_equal(sp.args[3].fmt, FT_AF_STR);
	assert_int_equal(sp.args[3].size, FT_ARG_STR_DEFAULT);
	assert_int_equal(sp.args[4].size, 200);
	assert_int_equal(sp.args[5].fmt, FT_AF_CHAR);
	assert_int_equal(sp.args[6].fmt, FT_AF_BOOL);
	assert_int_equal(sp.args[7].fmt, FT_AF_X16);

	sp = parse_ok("g@n=arg1/i8,color=arg2/e:color_t,big=struct/{40},pt=arg3/{16}",
		      FT_ARGSPEC_ARGS);
	assert_string_equal(sp.args[0].name, "n");
	assert_int_equal(sp.args[0].fmt, FT_AF_I8);
	assert_int_equal(sp.args[1].fmt, FT_AF_ENUM);
	assert_string_equal(sp.args[1].ename, "color_t");
	assert_int_equal(sp.args[2].loc, FT_AL_STACK);
	assert_int_equal(sp.args[2].fmt, FT_AF_STRUCT);
	assert_int_equal(sp.args[2].size, 40);
	assert_int_equal(sp.args[3].size, 16);

	sp = parse_ok("malloc@retval/p", FT_ARGSPEC_RET);
	assert_int_equal(sp.nargs, 0);
	assert_int_equal(sp.has_ret, 1);
	assert_int_equal(sp.ret.fmt, FT_AF_PTR);
	sp = parse_ok("sqrt@retval/f64\n", FT_ARGSPEC_RET);
	assert_int_equal(sp.ret.fmt, FT_AF_F64);
	sp = parse_ok("big@retval/{40}", FT_ARGSPEC_RET);
	assert_int_equal(sp.ret.fmt, FT_AF_STRUCT);
	assert_int_equal(sp.ret.size, 40);
	sp = parse_ok("h@a=arg1/u8,retval/x32", FT_ARGSPEC_ANY);
	assert_int_equal(sp.nargs, 1);
	assert_int_equal(sp.ret.fmt, FT_AF_X32);
}

static void test_errors(void **state)
{
	(void)state;
	parse_bad("read", FT_ARGSPEC_ARGS, 4, "expected FUNC@");
	parse_bad("@arg1", FT_ARGSPEC_ARGS, 0, "empty function name");
	parse_bad("read@arg7", FT_ARGSPEC_ARGS, 8, "1..6");
	parse_bad("read@arg0", FT_ARGSPEC_ARGS, 8, "1..6");
	parse_bad("read@fparg9", FT_ARGSPEC_ARGS, 10, "1..8");
	parse_bad("read@arg1/q", FT_ARGSPEC_ARGS, 10, "unknown format");
	parse_bad("read@arg1/i12", FT_ARGSPEC_ARGS, 11, "8, 16, 32 or 64");
	parse_bad("read@arg1/f16", FT_ARGSPEC_ARGS, 11, "32 or 64");
	parse_bad("read@arg1/s:0", FT_ARGSPEC_ARGS, 12, "1..1024");
	parse_bad("read@arg1,", FT_ARGSPEC_ARGS, 10, "expected argN");
	parse_bad("read@arg1;arg2", FT_ARGSPEC_ARGS, 9, "expected ','");
	parse_bad("read@argx", FT_ARGSPEC_ARGS, 8, "1..6");
	parse_bad("read@arg1x", FT_ARGSPEC_ARGS, 9, "unexpected 'x'");
	parse_bad("read@retval", FT_ARGSPEC_ARGS, 5, "belongs in --retval");
	parse_bad("read@arg1", FT_ARGSPEC_RET, 5, "expected retval");
	parse_bad("read@retval,retval", FT_ARGSPEC_RET, 12, "twice");
	parse_bad("read@fparg1/i32", FT_ARGSPEC_ARGS, 5, "f32, f64 or {SIZE}");
	parse_bad("read@struct", FT_ARGSPEC_ARGS, 5, "needs a size");
	parse_bad("read@arg1/{24}", FT_ARGSPEC_ARGS, 5, "passed in memory");
	parse_bad("read@arg1/{x}", FT_ARGSPEC_ARGS, 10, "{SIZE}");
	parse_bad("read@arg1/e:", FT_ARGSPEC_ARGS, 12, "enum name");
	parse_bad("f@arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1,arg1", FT_ARGSPEC_ARGS, 42,
		  "more than 8");
}

static void test_widths(void **state)
{
	(void)state;
	assert_int_equal(ft_arg_fmt_width(FT_AF_I8), 1);
	assert_int_equal(ft_arg_fmt_width(FT_AF_X16), 2);
	assert_int_equal(ft_arg_fmt_width(FT_AF_U32), 4);
	assert_int_equal(ft_arg_fmt_width(FT_AF_PTR), 8);
	assert_int_equal(ft_arg_fmt_width(FT_AF_STR), 0);
	assert_string_equal(ft_arg_fmt_name(FT_AF_F32), "f32");
	assert_int_equal(ft_argh_fmt(ft_arg_head(FT_AF_STR, FT_AL_INT, 5, FT_ARGH_TRUNC, 300)),
			 FT_AF_STR);
	assert_int_equal(ft_argh_idx(ft_arg_head(FT_AF_STR, FT_AL_FP, 7, FT_ARGH_BAD, 300)), 7);
	assert_int_equal(ft_argh_loc(ft_arg_head(FT_AF_STR, FT_AL_FP, 7, FT_ARGH_BAD, 300)),
			 FT_AL_FP);
	assert_int_equal(ft_argh_len(ft_arg_head(FT_AF_STR, FT_AL_FP, 7, FT_ARGH_BAD, 300)), 300);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_args_forms),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_widths),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
