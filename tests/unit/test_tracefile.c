// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the trace file (core/tracefile.c): round trips, compression,
 * mode 0600, concurrent writers, cut-short files and hostile headers.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>
#include <zlib.h>

#include "core/tracefile.h"

#include "tests/unit/tmpfile.h"

static void write_file(const void *p, size_t n)
{
	FILE *f = fopen(path, "wb");

	assert_non_null(f);
	assert_int_equal(fwrite(p, 1, n, f), n);
	fclose(f);
}

static void *read_whole(size_t *n)
{
	FILE *f = fopen(path, "rb");
	char *buf;
	long l;

	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	l = ftell(f);
	fseek(f, 0, SEEK_SET);
	buf = malloc((size_t)l + 1);
	assert_int_equal(fread(buf, 1, (size_t)l, f), (size_t)l);
	fclose(f);
	*n = (size_t)l;
	return buf;
}

/* On-disk section header (tracefile.h): 40 bytes, checksums last. */
#define SH 40u

/*
 * After a test edits the section header at off (and maybe its payload),
 * recompute its checksums so the reader's later checks are what is tested.
 */
static void reseal(char *all, size_t off)
{
	uint64_t disk, o = off;
	uint32_t c;

	memcpy(&disk, all + off + 16, 8);
	c = (uint32_t)crc32(0, (const Bytef *)all + off + SH, (uInt)disk);
	memcpy(all + off + 32, &c, 4);
	c = (uint32_t)crc32(0, (const Bytef *)&o, 8);
	c = (uint32_t)crc32(c, (const Bytef *)all + off, SH - 4);
	memcpy(all + off + 36, &c, 4);
}

static void test_roundtrip(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 3, NULL, 0);
	char big[10000], err[256];
	struct ft_reader *r;
	const struct ft_section *s;
	struct stat st;
	size_t len;
	char *p;

	for (size_t i = 0; i < sizeof(big); i++)
		big[i] = (char)('a' + i % 7);
	assert_non_null(w);
	assert_int_equal(ft_writer_add(w, FT_SEC_META, 0, "tracer=function\nclock=mono\n", 27, 0),
			 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_UDATA, 5, big, sizeof(big), 1), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_UDATA, 5, "tail", 4, 1), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_META, 0, "tracer=function_graph\n", 22, 0), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_TASKS, 0, "", 0, 0), 0);
	assert_true(ft_writer_bytes(w) > 24);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);

	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);

	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_false(ft_reader_truncated(r));
	assert_int_equal(ft_reader_nr_sections(r), 5);
	s = ft_reader_section(r, 1);
	assert_int_equal(s->type, FT_SEC_UDATA);
	assert_int_equal(s->id, 5);
	assert_int_equal(s->flags, FT_SF_ZSTD); /* compressible: compressed */
	assert_true(s->disk_size < sizeof(big));
	assert_int_equal(s->raw_size, sizeof(big));
	assert_int_equal(ft_reader_section(r, 2)->flags, 0); /* too small to shrink */
	p = ft_reader_load(r, s, &len, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(len, sizeof(big));
	assert_memory_equal(p, big, sizeof(big));
	free(p);
	p = ft_reader_load_all(r, FT_SEC_UDATA, 5, &len, err, sizeof(err));
	assert_int_equal(len, sizeof(big) + 4);
	assert_memory_equal(p + sizeof(big), "tail", 4);
	free(p);
	p = ft_reader_load_all(r, FT_SEC_UDATA, 6, &len, err, sizeof(err));
	assert_null(p);
	assert_int_equal(len, 0);
	assert_string_equal(err, "");
	/* the last value of a key wins */
	assert_string_equal(ft_reader_meta(r, "tracer"), "function_graph");
	assert_string_equal(ft_reader_meta(r, "clock"), "mono");
	assert_null(ft_reader_meta(r, "nope"));
	ft_reader_close(r);
}

static void test_existing_file_becomes_0600(void **state)
{
	struct ft_writer *w;
	struct stat st;

	chmod(path, 0644);
	w = ft_writer_open(path, 1, NULL, 0);
	assert_non_null(w);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
}

struct thr {
	struct ft_writer *w;
	int id;
};

#define NTHR 4
#define NSEC 200

static void *writer_thread(void *arg)
{
	struct thr *t = arg;
	uint32_t buf[257];

	for (int i = 0; i < NSEC; i++) {
		for (int j = 0; j < 257; j++)
			buf[j] = (uint32_t)(t->id << 24 | i << 8 | (j & 0xff));
		if (ft_writer_add(t->w, FT_SEC_UDATA, (uint64_t)t->id, buf,
				  sizeof(buf) - (size_t)(i % 3) * 4, i & 1))
			return (void *)1;
	}
	return NULL;
}

/* Several drain threads at once: every section lands whole, in order per id. */
static void test_concurrent_writers(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	pthread_t th[NTHR];
	struct thr a[NTHR];
	struct ft_reader *r;
	int seen[NTHR] = { 0 };
	char err[256];

	assert_non_null(w);
	for (int i = 0; i < NTHR; i++) {
		a[i].w = w;
		a[i].id = i;
		assert_int_equal(pthread_create(&th[i], NULL, writer_thread, &a[i]), 0);
	}
	for (int i = 0; i < NTHR; i++) {
		void *ret;

		pthread_join(th[i], &ret);
		assert_null(ret);
	}
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(ft_reader_nr_sections(r), NTHR * NSEC);
	for (size_t k = 0; k < ft_reader_nr_sections(r); k++) {
		const struct ft_section *s = ft_reader_section(r, k);
		int id = (int)s->id, i = seen[id]++;
		size_t len;
		uint32_t *p = ft_reader_load(r, s, &len, err, sizeof(err));

		assert_non_null(p);
		assert_int_equal(len, 257 * 4 - (size_t)(i % 3) * 4);
		for (size_t j = 0; j < len / 4; j++)
			assert_int_equal(p[j], (uint32_t)(id << 24 | i << 8 | (j & 0xff)));
		free(p);
	}
	ft_reader_close(r);
}

static void make_small(void)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);

	assert_non_null(w);
	assert_int_equal(ft_writer_add(w, FT_SEC_META, 0, "a=1\n", 4, 0), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_TASKS, 0, "1 1 x\n", 6, 0), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
}

/* A file without END, or with its last section cut: read with truncated set. */
static void test_cut_short(void **state)
{
	struct ft_reader *r;
	char err[256];
	size_t n;
	char *all;

	make_small();
	all = read_whole(&n);
	/* no END: both sections */
	write_file(all, n - SH);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_true(ft_reader_truncated(r));
	assert_int_equal(ft_reader_nr_sections(r), 2);
	ft_reader_close(r);
	/* cut inside the TASKS payload: META only */
	write_file(all, n - SH - 3);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_true(ft_reader_truncated(r));
	assert_int_equal(ft_reader_nr_sections(r), 1);
	ft_reader_close(r);
	/* cut inside a section header */
	write_file(all, n - SH - 6 - 10);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(ft_reader_nr_sections(r), 1);
	ft_reader_close(r);
	free(all);
}

static void expect_open_error(const char *needle)
{
	char err[256] = "";
	struct ft_reader *r = ft_reader_open(path, err, sizeof(err));

	assert_null(r);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_hostile_headers(void **state)
{
	size_t n;
	char *all;
	uint32_t v;
	uint64_t q;

	write_file("FTRAIL", 6);
	expect_open_error("truncated file header");
	write_file("NOTATRACEFILE_PADDING_XXXXXXXX", 30);
	expect_open_error("not an ftrail trace file");

	make_small();
	all = read_whole(&n);
	v = 3;
	memcpy(all + 8, &v, 4);
	write_file(all, n);
	expect_open_error("unsupported trace file version 3");

	free(all);
	all = read_whole(&n);
	v = FT_FILE_VERSION;
	memcpy(all + 8, &v, 4);
	v = 99; /* unknown section type */
	memcpy(all + 24, &v, 4);
	reseal(all, 24);
	write_file(all, n);
	expect_open_error("unknown section type 99");

	v = FT_SEC_META;
	memcpy(all + 24, &v, 4);
	v = 0x80; /* unknown flag */
	memcpy(all + 28, &v, 4);
	reseal(all, 24);
	write_file(all, n);
	expect_open_error("unknown flags");

	v = 0;
	memcpy(all + 28, &v, 4);
	q = 1ull << 40; /* raw size beyond the limit */
	memcpy(all + 24 + 24, &q, 8);
	reseal(all, 24);
	write_file(all, n);
	expect_open_error("bad sizes");

	q = 4;
	memcpy(all + 24 + 24, &q, 8);
	reseal(all, 24);
	/* data after END */
	{
		char *more = malloc(n + 5);

		memcpy(more, all, n);
		memcpy(more + n, "junk!", 5);
		write_file(more, n + 5);
		free(more);
	}
	expect_open_error("data after the END");
	free(all);

	write_file("", 0);
	expect_open_error("truncated file header");
	unlink(path);
	expect_open_error("No such file");
}

/* A compressed section whose payload is junk or lies about its size. */
static void test_corrupt_compressed(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	char big[4096], err[256];
	struct ft_reader *r;
	const struct ft_section *s;
	size_t n, len;
	char *all;
	uint64_t raw;

	memset(big, 'x', sizeof(big));
	assert_int_equal(ft_writer_add(w, FT_SEC_UDATA, 0, big, sizeof(big), 1), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	all = read_whole(&n);
	/* declared raw size smaller than the real output */
	raw = 100;
	memcpy(all + 24 + 24, &raw, 8);
	reseal(all, 24);
	write_file(all, n);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	s = ft_reader_section(r, 0);
	assert_null(ft_reader_load(r, s, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "beyond its declared"));
	ft_reader_close(r);
	/* declared larger than the real output */
	raw = 8192;
	memcpy(all + 24 + 24, &raw, 8);
	reseal(all, 24);
	write_file(all, n);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_null(ft_reader_load(r, ft_reader_section(r, 0), &len, err, sizeof(err)));
	assert_non_null(strstr(err, "header says 8192"));
	ft_reader_close(r);
	/* junk payload */
	raw = 4096;
	memcpy(all + 24 + 24, &raw, 8);
	memset(all + 24 + SH, 0x5a, 8);
	reseal(all, 24);
	write_file(all, n);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_null(ft_reader_load_all(r, FT_SEC_UDATA, 0, &len, err, sizeof(err)));
	assert_non_null(strstr(err, "corrupt compressed UDATA"));
	ft_reader_close(r);
	free(all);
}

static int has_warning(struct ft_reader *r, const char *needle)
{
	for (size_t i = 0; i < ft_reader_nr_warnings(r); i++)
		if (strstr(ft_reader_warning(r, i), needle))
			return 1;
	return 0;
}

/*
 * Checksums: a changed payload byte drops that section (named) and the rest
 * is read; a changed header byte ends the index there; sections swapped or
 * duplicated whole (each sound on its own) are caught by the offset bound
 * into the header's checksum.
 */
static void test_checksums(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	size_t n, len, off2;
	struct ft_reader *r;
	char err[256], *all, *p;

	assert_non_null(w);
	assert_int_equal(ft_writer_add(w, FT_SEC_META, 0, "a=1\n", 4, 0), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_TASKS, 0, "1 1 x\n", 6, 0), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_TASKS, 1, "2 2 y\n", 6, 0), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	all = read_whole(&n);
	off2 = 24 + SH + 4; /* the first TASKS header */

	/* sound: no warning */
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(ft_reader_nr_warnings(r), 0);
	assert_int_equal(ft_reader_nr_sections(r), 3);
	ft_reader_close(r);

	/* a payload byte: META dropped and named, both TASKS still there */
	all[24 + SH] ^= 0x01;
	write_file(all, n);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_true(has_warning(r, "corrupt META section (id 0) at offset 24"));
	assert_int_equal(ft_reader_nr_sections(r), 2);
	assert_false(ft_reader_truncated(r));
	p = ft_reader_load_all(r, FT_SEC_TASKS, UINT64_MAX, &len, err, sizeof(err));
	assert_non_null(p);
	assert_int_equal(len, 12);
	free(p);
	ft_reader_close(r);
	all[24 + SH] ^= 0x01;

	/* a header byte (the id): the index ends before it */
	all[off2 + 8] ^= 0x04;
	write_file(all, n);
	r = ft_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_true(has_warning(r, "corrupt section header at offset"));
	assert_int_equal(ft_reader_nr_sections(r), 1);
	assert_true(ft_reader_truncated(r));
	ft_reader_close(r);
	all[off2 + 8] ^= 0x04;

	/* the two TASKS sections swapped: each whole and sound, at the wrong place */
	{
		char tmp[SH + 6];
		size_t off3 = off2 + SH + 6;

		memcpy(tmp, all + off2, sizeof(tmp));
		memcpy(all + off2, all + off3, sizeof(tmp));
		memcpy(all + off3, tmp, sizeof(tmp));
		write_file(all, n);
		r = ft_reader_open(path, err, sizeof(err));
		assert_non_null(r);
		assert_true(has_warning(r, "corrupt section header"));
		assert_int_equal(ft_reader_nr_sections(r), 1);
		ft_reader_close(r);
	}
	free(all);
}

/*
 * The writer goes through PATH.partial: the previous file stays whole until
 * close, an abort leaves it as it was (the partial kept or removed), a
 * symbolic link at PATH is refused, a stale partial is replaced and a
 * partial in use (locked) is not.
 */
static void test_atomic_output(void **state)
{
	char tmp[80], link[80], err[256], *all;
	struct ft_writer *w, *w2;
	struct ft_reader *r;
	struct stat st;
	size_t n;

	snprintf(tmp, sizeof(tmp), "%s.partial", path);
	make_small();
	all = read_whole(&n);

	/* aborted (not kept): the old file, no partial */
	w = ft_writer_open(path, 1, err, sizeof(err));
	assert_non_null(w);
	assert_int_equal(stat(tmp, &st), 0);
	assert_int_equal(st.st_mode & 0777, 0600);
	ft_writer_add(w, FT_SEC_META, 0, "b=2\n", 4, 0);
	ft_writer_abort(w, 0);
	assert_int_equal(stat(tmp, &st), -1);
	{
		size_t m;
		char *now = read_whole(&m);

		assert_int_equal(m, n);
		assert_memory_equal(now, all, n);
		free(now);
	}

	/* kept: the partial reads as cut short, the old file untouched */
	w = ft_writer_open(path, 1, err, sizeof(err));
	ft_writer_add(w, FT_SEC_META, 0, "b=2\n", 4, 0);
	ft_writer_abort(w, 1);
	r = ft_reader_open(tmp, err, sizeof(err));
	assert_non_null(r);
	assert_true(ft_reader_truncated(r));
	assert_string_equal(ft_reader_meta(r, "b"), "2");
	ft_reader_close(r);

	/* the next writer replaces that stale partial, and says so */
	w = ft_writer_open(path, 1, err, sizeof(err));
	assert_non_null(w);
	assert_true(ft_writer_replaced_stale(w));
	/* ... while a second one finds it in use */
	w2 = ft_writer_open(path, 1, err, sizeof(err));
	assert_null(w2);
	assert_int_equal(errno, EBUSY);
	assert_non_null(strstr(err, "another ftrail is writing"));
	assert_int_equal(ft_writer_close(w, err, sizeof(err)), 0);
	assert_int_equal(stat(tmp, &st), -1);

	/* a symbolic link at the target: refused, its target untouched */
	snprintf(link, sizeof(link), "%s.link", path);
	assert_int_equal(symlink(path, link), 0);
	assert_int_equal(stat(path, &st), 0);
	n = (size_t)st.st_size;
	assert_null(ft_writer_open(link, 1, err, sizeof(err)));
	assert_int_equal(errno, ELOOP);
	assert_non_null(strstr(err, "is a symbolic link: not following it"));
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal((size_t)st.st_size, n);
	unlink(link);

	/* "-" is no file name */
	assert_null(ft_writer_open("-", 1, err, sizeof(err)));
	free(all);
}

static void test_writer_rejects(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);

	assert_int_equal(ft_writer_add(w, FT_SEC_END, 0, "", 0, 0), -1);
	assert_int_equal(errno, EINVAL);
	assert_int_equal(ft_writer_add(w, FT_SEC_MAX, 0, "", 0, 0), -1);
	assert_int_equal(ft_writer_add(w, FT_SEC_META, 0, NULL, 3, 0), -1);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	assert_null(ft_writer_open("/nonexistent-dir/x.dat", 1, NULL, 0));
	assert_int_equal(errno, ENOENT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_roundtrip, setup, teardown),
		cmocka_unit_test_setup_teardown(test_existing_file_becomes_0600, setup, teardown),
		cmocka_unit_test_setup_teardown(test_concurrent_writers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cut_short, setup, teardown),
		cmocka_unit_test_setup_teardown(test_hostile_headers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_compressed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_checksums, setup, teardown),
		cmocka_unit_test_setup_teardown(test_atomic_output, setup, teardown),
		cmocka_unit_test_setup_teardown(test_writer_rejects, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
