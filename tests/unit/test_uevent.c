// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of core/uevent.c: an event of every field type, emitted by
 * the public header's macros, described as format text, parsed back as
 * the UFORMATS reader does, and rendered to the exact text `ftrail show`
 * prints; -e name matching; hostile format text.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "analysis/uevent_table.h"

FTRAIL_EVENT(tst, every, (u8, a8), (u16, a16), (u32, a32), (u64, a64), (s8, b8), (s16, b16),
	     (s32, b32), (s64, b64), (ptr, p), (string, name), (array, tag, 4), (bytes, blob));
FTRAIL_EVENT(tst, one, (string, s));

static unsigned char rec[4096];
static uint32_t rec_len;

static void capture(struct ftrail_event *ev, void *r, uint32_t len)
{
	memcpy(rec, r, len);
	rec_len = len;
	memcpy(rec, &ev->id, 4); /* as the runtime does */
}

static void test_roundtrip_every_type(void **state)
{
	struct ft_uev_table t;
	char text[8192], err[256], out[1024];
	int n;

	(void)state;
	ftrail__desc_tst__every.write = capture;
	ftrail__desc_tst__every.enabled = 1;
	ftrail__desc_tst__every.id = 7;
	ftrail_trace(tst, every, 255, 65535, 4294967295u, 18446744073709551615ull, -128, -32768,
		     -2147483647 - 1, -9223372036854775807ll - 1, (void *)0xdeadbeef, "hello world",
		     "\x01\x02\xab\xff", "\x00\x10", 2);
	n = ft_uev_format(&ftrail__desc_tst__every, 7, text, sizeof(text));
	assert_true(n > 0 && n < (int)sizeof(text));
	assert_non_null(strstr(text, "name: every\nID: 7\nsystem: tst\nformat:\n"));
	assert_non_null(strstr(text, "\tfield:__data_loc char[] name;"));
	assert_non_null(strstr(text, "\tfield:u8 tag[4];"));
	assert_non_null(strstr(text, "\tfield:s64 b64;\toffset:"));
	assert_non_null(strstr(text, "print fmt: \"a8=%u a16=%u a32=%u a64=%llu b8=%d"));
	assert_int_equal(ft_uev_table_parse(&t, text, (size_t)n, err, sizeof(err)), 0);
	assert_int_equal(t.nr, 1);
	assert_string_equal(t.fmts[0].sys, "tst");
	assert_int_equal(t.fmts[0].nr_fields, 12);
	for (int i = 0; i < 12; i++) {
		assert_string_equal(t.fmts[0].fields[i].name, ftrail__fields_tst__every[i].name);
		assert_int_equal(t.fmts[0].fields[i].type, ftrail__fields_tst__every[i].type);
		assert_int_equal(t.fmts[0].fields[i].offset, ftrail__fields_tst__every[i].offset);
		assert_int_equal(t.fmts[0].fields[i].size, ftrail__fields_tst__every[i].size);
		assert_int_equal(t.fmts[0].fields[i].is_signed,
				 ftrail__fields_tst__every[i].is_signed);
	}
	ft_uev_render(&t, 7, rec + 4, rec_len - 4, out, sizeof(out));
	assert_string_equal(out, "every: a8=255 a16=65535 a32=4294967295 a64=18446744073709551615 "
				 "b8=-128 b16=-32768 b32=-2147483648 b64=-9223372036854775808 "
				 "p=0xdeadbeef name=hello world tag=0102abff blob=0010");
	/* unknown id */
	ft_uev_render(&t, 99, rec + 4, rec_len - 4, out, sizeof(out));
	/* 64 bytes of fixed record (aligned), 12 of string, 2 of bytes, minus the id */
	assert_int_equal(rec_len, 64 + 12 + 2);
	assert_string_equal(out, "user_event: id=99 len=74");
	/* a cut record shows '?' instead of reading past it */
	ft_uev_render(&t, 7, rec + 4, 8, out, sizeof(out));
	assert_non_null(strstr(out, "a8=255 a16=65535 a32=4294967295 a64=? "));
	ft_uev_table_free(&t);
}

static void test_long_string_is_cut(void **state)
{
	char big[3000], text[2048], err[128], out[4096];
	struct ft_uev_table t;

	(void)state;
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = 0;
	ftrail__desc_tst__one.write = capture;
	ftrail__desc_tst__one.enabled = 1;
	ftrail__desc_tst__one.id = 1;
	ftrail_trace(tst, one, big);
	assert_int_equal(rec_len, ftrail__desc_tst__one.size + FTRAIL_MAX_DYN);
	ft_uev_format(&ftrail__desc_tst__one, 1, text, sizeof(text));
	assert_int_equal(ft_uev_table_parse(&t, text, strlen(text), err, sizeof(err)), 0);
	ft_uev_render(&t, 1, rec + 4, rec_len - 4, out, sizeof(out));
	assert_int_equal(strlen(out), strlen("one: s=") + FTRAIL_MAX_DYN - 1);
	ft_uev_table_free(&t);
}

static void test_name_match(void **state)
{
	(void)state;
	assert_true(ft_uev_name_match("all", "a", "b"));
	assert_true(ft_uev_name_match("u:all", "a", "b"));
	assert_true(ft_uev_name_match("myapp", "myapp", "req"));
	assert_false(ft_uev_name_match("myapp", "other", "req"));
	assert_true(ft_uev_name_match("myapp:req", "myapp", "req"));
	assert_true(ft_uev_name_match("u:myapp:req", "myapp", "req"));
	assert_false(ft_uev_name_match("myapp:re", "myapp", "req"));
	assert_true(ft_uev_name_match("myapp:re*", "myapp", "req"));
	assert_true(ft_uev_name_match("*:req", "x", "req"));
}

static void test_hostile_formats(void **state)
{
	static const char *bad[] = {
		"junk\n",
		"name: a\n\tfield:u32 x;\toffset:4;\tsize:8;\tsigned:0;\n", /* size mismatch */
		"name: a\n\tfield:u33 x;\toffset:4;\tsize:4;\tsigned:0;\n",
		"name: a\n\tfield:x;\toffset:4;\tsize:4;\tsigned:0;\n",
		"name: a\n\tfield:u32 x;\toffset:99999;\tsize:4;\tsigned:0;\n",
		"name: a\n\tfield:__data_loc char[] s;\toffset:4;\tsize:8;\tsigned:0;\n",
		"name: a\nID: 12x\n",
	};
	struct ft_uev_table t;
	char err[128], big[2000];

	(void)state;
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(ft_uev_table_parse(&t, bad[i], strlen(bad[i]), err, sizeof(err)),
				 -1);
		assert_non_null(strstr(err, "UFORMATS: line"));
	}
	memset(big, 'a', sizeof(big));
	assert_int_equal(ft_uev_table_parse(&t, big, sizeof(big), err, sizeof(err)), -1);
	/* 17 fields: more than an event may have */
	{
		char txt[4096] = "name: a\n";
		for (int i = 0; i < 17; i++)
			sprintf(txt + strlen(txt),
				"\tfield:u8 f%d;\toffset:%d;\tsize:1;\tsigned:0;\n", i, 4 + i);
		assert_int_equal(ft_uev_table_parse(&t, txt, strlen(txt), err, sizeof(err)), -1);
	}
	assert_int_equal(ft_uev_table_parse(&t, "", 0, err, sizeof(err)), 0);
	assert_int_equal(t.nr, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_roundtrip_every_type),
		cmocka_unit_test(test_long_string_is_cut),
		cmocka_unit_test(test_name_match),
		cmocka_unit_test(test_hostile_formats),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
