// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/filter.c: ftrace's filter grammar on user event
 * records built by the public header's emitter (include/ftrail/ftrail.h),
 * so the field table the filter compiles against is the real one.
 * Each operator, precedence and grouping, each error with its position.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "core/filter.h"

FTRAIL_EVENT(tst, all, (u8, a8), (u16, a16), (u32, a32), (u64, a64), (s8, b8), (s16, b16),
	     (s32, b32), (s64, b64), (ptr, p), (string, name), (array, tag, 8), (bytes, blob));

static unsigned char rec[4096];
static uint32_t rec_len;

static void capture(struct ftrail_event *ev, void *r, uint32_t len)
{
	(void)ev;
	assert_true(len <= sizeof(rec));
	memcpy(rec, r, len);
	rec_len = len;
}

/* Build the record with these values. */
static void mk(uint8_t a8, uint32_t a32, int32_t b32, int64_t b64, const char *name,
	       const char *tag)
{
	char t[8] = { 0 };

	strncpy(t, tag, sizeof(t));
	ftrail__desc_tst__all.write = capture;
	ftrail__desc_tst__all.enabled = 1;
	rec_len = 0;
	ftrail_trace(tst, all, a8, 1000, a32, 1ull << 40, -8, -16, b32, b64, (void *)0x1234, name,
		     t, "\x01\x02", 2);
	assert_true(rec_len > 0);
}

static int match(const char *expr)
{
	struct ft_filter_err err;
	struct ft_filter *f = ft_filter_compile(expr, ftrail__fields_tst__all,
						ftrail__desc_tst__all.nr_fields, &err);
	int r;

	if (!f) {
		char buf[256];

		fail_msg("'%s' did not compile: %s", expr,
			 ft_filter_strerror(expr, &err, 0, buf, sizeof(buf)));
	}
	r = ft_filter_match(f, rec, rec_len);
	ft_filter_free(f);
	return r;
}

/* Compile must fail; returns the one-line message, checks kind and pos. */
static const char *bad(const char *expr, int kind, int pos)
{
	static char buf[512];
	struct ft_filter_err err;
	struct ft_filter *f = ft_filter_compile(expr, ftrail__fields_tst__all,
						ftrail__desc_tst__all.nr_fields, &err);

	if (f)
		fail_msg("'%s' compiled but should not", expr);
	ft_filter_strerror(expr, &err, 0, buf, sizeof(buf));
	if (err.kind != kind || err.pos != pos)
		fail_msg("'%s': got kind %d pos %d (%s), expected kind %d pos %d", expr, err.kind,
			 err.pos, buf, kind, pos);
	return buf;
}

static void test_numeric_ops(void **state)
{
	(void)state;
	mk(7, 100, -5, -1000000000000ll, "bash", "abc");
	assert_int_equal(match("a8 == 7"), 1);
	assert_int_equal(match("a8 != 7"), 0);
	assert_int_equal(match("a32 < 101"), 1);
	assert_int_equal(match("a32 < 100"), 0);
	assert_int_equal(match("a32 <= 100"), 1);
	assert_int_equal(match("a32 > 99"), 1);
	assert_int_equal(match("a32 > 100"), 0);
	assert_int_equal(match("a32 >= 100"), 1);
	assert_int_equal(match("a32 >= 101"), 0);
	assert_int_equal(match("a32 & 4"), 1); /* 100 = 0b1100100 */
	assert_int_equal(match("a32 & 3"), 0);
	assert_int_equal(match("a32 == 0x64"), 1);
	assert_int_equal(match("a32 == 0144"), 1); /* octal, like kstrtoull base 0 */
	assert_int_equal(match("a16 == 1000"), 1);
	assert_int_equal(match("a64 == 1099511627776"), 1);
	assert_int_equal(match("p == 0x1234"), 1);
}

static void test_signed(void **state)
{
	(void)state;
	mk(7, 100, -5, -1000000000000ll, "bash", "abc");
	assert_int_equal(match("b32 < 0"), 1);
	assert_int_equal(match("b32 == -5"), 1);
	assert_int_equal(match("b32 > -6"), 1);
	assert_int_equal(match("b8 == -8"), 1);
	assert_int_equal(match("b16 <= -16"), 1);
	assert_int_equal(match("b64 < -999999999999"), 1);
	/* unsigned compare: a32 is 100, 100 > 4294967295 is false */
	assert_int_equal(match("a32 > 4294967295"), 0);
}

static void test_strings(void **state)
{
	(void)state;
	mk(7, 100, -5, 0, "bash", "abc");
	assert_int_equal(match("name == \"bash\""), 1);
	assert_int_equal(match("name == 'bash'"), 1);
	assert_int_equal(match("name == bash"), 1); /* bare word */
	assert_int_equal(match("name == bas"), 0);
	assert_int_equal(match("name != bash"), 0);
	assert_int_equal(match("name ~ \"ba*\""), 1);
	assert_int_equal(match("name ~ \"*sh\""), 1);
	assert_int_equal(match("name ~ \"*as*\""), 1);
	assert_int_equal(match("name ~ \"b?sh\""), 1);
	assert_int_equal(match("name ~ \"[a-c]ash\""), 1);
	assert_int_equal(match("name ~ \"[!a-c]ash\""), 0);
	assert_int_equal(match("name ~ \"zsh\""), 0);
	assert_int_equal(match("name ~ *"), 1);
	assert_int_equal(match("tag == abc"), 1); /* fixed array up to its NUL */
	assert_int_equal(match("tag ~ \"a*\""), 1);
	assert_int_equal(match("blob != x"), 1);
	mk(7, 100, -5, 0, "", "abc");
	assert_int_equal(match("name == \"\""), 1);
	assert_int_equal(match("name ~ \"*\""), 1);
	mk(7, 100, -5, 0, NULL, "abc");
	assert_int_equal(match("name == \"(null)\""), 1);
}

static void test_glob(void **state)
{
	(void)state;
	assert_int_equal(ft_filter_glob("a*b*c", "axxbyyc", 7), 1);
	assert_int_equal(ft_filter_glob("a*b*c", "axxbyy", 6), 0);
	assert_int_equal(ft_filter_glob("*", "", 0), 1);
	assert_int_equal(ft_filter_glob("", "", 0), 1);
	assert_int_equal(ft_filter_glob("?", "", 0), 0);
	assert_int_equal(ft_filter_glob("\\*", "*", 1), 1);
	assert_int_equal(ft_filter_glob("\\*", "a", 1), 0);
	assert_int_equal(ft_filter_glob("[", "[", 1), 1);
	assert_int_equal(ft_filter_glob("*.c", "x.c.c", 5), 1);
	/* the string need not be NUL-terminated: only slen bytes count */
	assert_int_equal(ft_filter_glob("ab", "abc", 2), 1);
}

static void test_logic_and_precedence(void **state)
{
	(void)state;
	mk(7, 100, -5, 0, "bash", "abc");
	assert_int_equal(match("a8 == 7 && a32 == 100"), 1);
	assert_int_equal(match("a8 == 7 && a32 == 1"), 0);
	assert_int_equal(match("a8 == 1 || a32 == 100"), 1);
	assert_int_equal(match("a8 == 1 || a32 == 1"), 0);
	assert_int_equal(match("!(a8 == 7)"), 0);
	assert_int_equal(match("!a8 == 1"), 1); /* ! applies to the predicate */
	assert_int_equal(match("!!(a8 == 7)"), 1);
	/* && binds tighter than ||: 1 || (0 && 0) = 1, (1 || 0) && 0 = 0 */
	assert_int_equal(match("a8 == 7 || a8 == 1 && a32 == 1"), 1);
	assert_int_equal(match("(a8 == 7 || a8 == 1) && a32 == 1"), 0);
	/* 0 && 1 || 1 = (0 && 1) || 1 = 1 */
	assert_int_equal(match("a8 == 1 && a32 == 100 || name == bash"), 1);
	assert_int_equal(match("a8 == 1 && (a32 == 100 || name == bash)"), 0);
	assert_int_equal(match("((((a8 == 7))))"), 1);
	assert_int_equal(match("a8==7&&a32==100"), 1); /* no blanks needed */
	assert_int_equal(match("(name ~ \"b*\" || a8 == 0) && !(b32 >= 0) && a32 & 0x60"), 1);
}

static void test_deep_postfix(void **state)
{
	char expr[4096];
	int n = 0;

	(void)state;
	mk(7, 100, -5, 0, "bash", "abc");
	/* 64 predicates, right-nested: the evaluation stack is at its deepest */
	for (int i = 0; i < 31; i++)
		n += snprintf(expr + n, sizeof(expr) - n, "(a8 == 7 && ");
	n += snprintf(expr + n, sizeof(expr) - n, "a8 == 7");
	for (int i = 0; i < 31; i++)
		n += snprintf(expr + n, sizeof(expr) - n, ")");
	assert_int_equal(match(expr), 1);
	n = 0;
	for (int i = 0; i < 64; i++)
		n += snprintf(expr + n, sizeof(expr) - n, "%sa8 == %d", i ? " || " : "", i);
	assert_int_equal(match(expr), 1);
	n = 0;
	for (int i = 0; i < 65; i++)
		n += snprintf(expr + n, sizeof(expr) - n, "%sa8 == %d", i ? " || " : "", i);
	/* the 65th predicate is refused where its field name starts */
	bad(expr, FT_FERR_LIMIT, (int)(strstr(expr, "a8 == 64") - expr));
}

static void test_errors(void **state)
{
	const char *m;
	char buf[512];
	struct ft_filter_err err;

	(void)state;
	m = bad("", FT_FERR_SYNTAX, 0);
	assert_string_equal(m, "syntax error at position 0: empty filter");
	bad("   ", FT_FERR_SYNTAX, 3);
	m = bad("a32 == 1 && foo > 3", FT_FERR_FIELD, 12);
	assert_non_null(strstr(m, "unknown field 'foo'"));
	assert_non_null(strstr(m, "a8 a16"));
	m = bad("a32 1", FT_FERR_SYNTAX, 4);
	assert_non_null(strstr(m, "expected an operator"));
	m = bad("a32 ==", FT_FERR_SYNTAX, 6);
	assert_string_equal(m, "syntax error at position 6: expected a value after '=='");
	bad("a32 = 1", FT_FERR_SYNTAX, 4);
	bad("(a32 == 1", FT_FERR_SYNTAX, 0);
	m = bad("a32 == 1)", FT_FERR_SYNTAX, 8);
	assert_non_null(strstr(m, "unbalanced"));
	bad("a32 == 1 a8 == 2", FT_FERR_SYNTAX, 9);
	bad("a32 == 1 &&", FT_FERR_SYNTAX, 11);
	bad("a32 == 1 | a8 == 1", FT_FERR_SYNTAX, 9);
	bad("&& a32 == 1", FT_FERR_SYNTAX, 0);
	bad("()", FT_FERR_SYNTAX, 1);
	m = bad("a32 == abc", FT_FERR_TYPE, 7);
	assert_non_null(strstr(m, "not a number"));
	bad("a32 == \"1\"", FT_FERR_TYPE, 7);
	bad("a32 == -1", FT_FERR_TYPE, 7); /* unsigned field */
	bad("a32 == 99999999999999999999", FT_FERR_TYPE, 7);
	m = bad("name < abc", FT_FERR_TYPE, 5);
	assert_non_null(strstr(m, "not valid for string field 'name'"));
	bad("name & 1", FT_FERR_TYPE, 5);
	bad("a32 ~ \"1*\"", FT_FERR_TYPE, 4);
	m = bad("name == \"abc", FT_FERR_SYNTAX, 8);
	assert_non_null(strstr(m, "unterminated"));

	/* error_log-like rendering: caret under the position */
	assert_null(ft_filter_compile("a32 == 1 && foo > 3", ftrail__fields_tst__all,
				      ftrail__desc_tst__all.nr_fields, &err));
	ft_filter_strerror("a32 == 1 && foo > 3", &err, 1, buf, sizeof(buf));
	assert_non_null(strstr(buf, "\n  Command: a32 == 1 && foo > 3\n"));
	assert_non_null(strstr(buf, "\n                       ^"));
	assert_int_equal(strlen(strrchr(buf, '\n') + 1), strlen("  Command: ") + 12 + 1);
	/* nesting limit */
	{
		char deep[256] = "";
		for (int i = 0; i < 40; i++)
			strcat(deep, "(");
		bad(deep, FT_FERR_LIMIT, 32);
	}
}

static void test_short_record(void **state)
{
	struct ft_filter_err err;
	struct ft_filter *f;

	(void)state;
	mk(7, 100, -5, 0, "bash", "abc");
	f = ft_filter_compile("a32 == 0 && name == \"\"", ftrail__fields_tst__all,
			      ftrail__desc_tst__all.nr_fields, &err);
	assert_non_null(f);
	/* a truncated record: fields beyond len read as 0 / "" -- never out of bounds */
	assert_int_equal(ft_filter_match(f, rec, 4), 1);
	/* a data_loc pointing past the record */
	{
		unsigned char r2[4096];
		uint32_t loc = (10u << 16) | 4000u;
		const struct ftrail_field *nf = &ftrail__fields_tst__all[9];

		memcpy(r2, rec, rec_len);
		assert_string_equal(nf->name, "name");
		memcpy(r2 + nf->offset, &loc, 4);
		assert_int_equal(ft_filter_match(f, r2, rec_len), 0); /* a32 != 0 */
	}
	ft_filter_free(f);
	assert_string_equal(ft_filter_text(f = ft_filter_compile("a8 == 1", ftrail__fields_tst__all,
								 ftrail__desc_tst__all.nr_fields,
								 &err)),
			    "a8 == 1");
	ft_filter_free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_numeric_ops),
		cmocka_unit_test(test_signed),
		cmocka_unit_test(test_strings),
		cmocka_unit_test(test_glob),
		cmocka_unit_test(test_logic_and_precedence),
		cmocka_unit_test(test_deep_postfix),
		cmocka_unit_test(test_errors),
		cmocka_unit_test(test_short_record),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
