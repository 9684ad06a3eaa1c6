// SPDX-License-Identifier: GPL-2.0
/*
 * Unit tests of the trace reader (analysis/trace.c), the symbol code
 * (core/symbols.c) and the ftrace text formatter (analysis/ftrace_fmt.c),
 * on synthetic traces built by tests/tools/mktrace.h.
 *
 * The formatter is compiled in; the reader (analysis/trace.c and
 * analysis/trace_tables.c) comes from libftrail-tool.a.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "analysis/ftrace_fmt.c"
#include "analysis/trace.h"
#include "core/options.h"
#include "tests/tools/mktrace.h"

#include "tests/unit/tmpfile.h"

typedef int (*scen_fn)(struct ft_writer *w, int compress);

static struct ft_trace *make(scen_fn fn, const char *tracer, int compress)
{
	struct ft_writer *w = ft_writer_open(path, 3, NULL, 0);
	struct ft_trace *t;
	char err[512];

	assert_non_null(w);
	assert_int_equal(mk_tables(w, tracer, NULL, compress), 0);
	assert_int_equal(fn(w, compress), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	t = ft_trace_open(path, err, sizeof(err));
	if (!t)
		fail_msg("open: %s", err);
	return t;
}

static int next(struct ft_trace *t, struct ft_event *ev)
{
	char err[512];
	int ret = ft_trace_next(t, ev, err, sizeof(err));

	if (ret < 0)
		fail_msg("next: %s", err);
	return ret;
}

static void expect(struct ft_trace *t, enum ft_ev_type type, uint32_t fid, int depth, uint64_t ts)
{
	struct ft_event ev;

	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, type);
	if (type == FT_EV_ENTRY || type == FT_EV_EXIT || type == FT_EV_FUNC)
		assert_int_equal(ev.fid, fid);
	assert_int_equal(ev.depth, depth);
	assert_int_equal(ev.ts, ts);
}

/* main() { foo() { bar() {, entered at @base, +100 and +200 ns (mk_lost, mk_unwind). */
static void expect_main_foo_bar(struct ft_trace *t, uint64_t base)
{
	expect(t, FT_EV_ENTRY, F_MAIN, 0, base);
	expect(t, FT_EV_ENTRY, F_FOO, 1, base + 100);
	expect(t, FT_EV_ENTRY, F_BAR, 2, base + 200);
}

/* The next event is a loss of @count events; returns its time. */
static uint64_t expect_lost(struct ft_trace *t, uint64_t count)
{
	struct ft_event ev;

	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_LOST);
	assert_int_equal(ev.count, count);
	return ev.ts;
}

static void test_graph_decode(void **state)
{
	for (int z = 0; z < 2; z++) {
		struct ft_trace *t = make(mk_graph, "function_graph", z);
		struct ft_event ev;
		char name[64];

		assert_string_equal(ft_trace_tracer(t), "function_graph");
		assert_int_equal(ft_trace_nr_warnings(t), 0);
		expect(t, FT_EV_ENTRY, F_MAIN, 0, S);
		expect(t, FT_EV_ENTRY, F_FOO, 1, S + 1000);
		expect(t, FT_EV_ENTRY, F_BAR, 2, S + 2000);
		assert_int_equal(next(t, &ev), 1);
		assert_int_equal(ev.type, FT_EV_EXIT);
		assert_int_equal(ev.fid, F_BAR);
		assert_true(ev.has_entry);
		assert_int_equal(ev.duration, 1382);
		assert_int_equal(ev.pid, 1000);
		assert_int_equal(ev.tid, 1000);
		assert_int_equal(ev.level, 0);
		expect(t, FT_EV_EXIT, F_FOO, 1, S + 15000);
		assert_int_equal(next(t, &ev), 1);
		assert_int_equal(ev.type, FT_EV_MARKER);
		assert_int_equal(ev.ts, S + 16000);
		assert_int_equal(ev.len, 6);
		assert_memory_equal(ev.data, "hello\n", 6);
		expect(t, FT_EV_ENTRY, F_BAZ, 1, S + 17000);
		expect(t, FT_EV_EXIT, F_BAZ, 1, S + 17500);
		assert_int_equal(next(t, &ev), 1);
		assert_int_equal(ev.fid, F_MAIN);
		assert_int_equal(ev.duration, 200000);
		assert_int_equal(next(t, &ev), 0);
		assert_int_equal(next(t, &ev), 0);
		assert_string_equal(ft_trace_func_name(t, F_BAZ, 0, name, sizeof(name)), "baz");
		assert_string_equal(ft_trace_func_name(t, F_BAZ, 1, name, sizeof(name)),
				    "baz+0x0/0x30");
		assert_string_equal(ft_trace_comm(t, 1001), "worker-thread");
		assert_string_equal(ft_trace_comm(t, 4242), "<...>");
		/* rewind gives the same stream again */
		assert_int_equal(ft_trace_rewind(t, NULL, 0), 0);
		expect(t, FT_EV_ENTRY, F_MAIN, 0, S);
		ft_trace_close(t);
	}
}

static void test_lost_and_resync(void **state)
{
	struct ft_trace *t = make(mk_lost, "function_graph", 0);
	struct ft_event ev;

	expect_main_foo_bar(t, 4 * S);
	assert_int_equal(expect_lost(t, 7), 4 * S + 10000);
	/* the page says depth 1: foo and bar's exits were lost */
	expect(t, FT_EV_ENTRY, F_BAZ, 1, 4 * S + 11000);
	expect(t, FT_EV_EXIT, F_BAZ, 1, 4 * S + 11200);
	/* main's exit: the loss may hide its return and another call at depth 0 */
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_EXIT);
	assert_int_equal(ev.fid, FT_FID_UNKNOWN);
	assert_int_equal(ev.depth, 0);
	assert_false(ev.has_entry);
	assert_int_equal(ev.duration, 0);
	expect_lost(t, 2);
	/* depth 1 with nothing open: an exit whose entry is unknown */
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_EXIT);
	assert_int_equal(ev.fid, FT_FID_UNKNOWN);
	assert_false(ev.has_entry);
	assert_int_equal(next(t, &ev), 0);
	assert_int_equal(ft_trace_nr_lost(t), 9);
	ft_trace_close(t);
}

/* ft_trace_scan_buffers() callback: exits that pair with their entry, and their time */
struct paired {
	int n;
	uint64_t ns;
};

static int count_paired(const struct ft_event *ev, void *arg)
{
	struct paired *p = arg;

	if (ev->type == FT_EV_EXIT && ev->has_entry) {
		p->n++;
		p->ns += ev->duration;
	}
	return 0;
}

static void test_lost_gap_pairs(void **state)
{
	struct ft_trace *t = make(mk_lostloop, "function_graph", 0);
	struct paired p = { 0, 0 };
	struct ft_event ev;
	char err[256];

	expect(t, FT_EV_ENTRY, F_MAIN, 0, 6 * S);
	expect(t, FT_EV_ENTRY, F_FOO, 1, 6 * S + 100);
	expect_lost(t, 6);
	/* same depth, same function before the loss: still not its exit */
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_EXIT);
	assert_int_equal(ev.fid, FT_FID_UNKNOWN);
	assert_int_equal(ev.depth, 1);
	assert_false(ev.has_entry);
	expect(t, FT_EV_ENTRY, F_FOO, 1, 6 * S + 50200);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, F_FOO);
	assert_true(ev.has_entry);
	assert_int_equal(ev.duration, 100);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, FT_FID_UNKNOWN);
	assert_false(ev.has_entry);
	assert_int_equal(next(t, &ev), 0);
	/* the scanning decoder (report, exports) agrees: one paired call, 100 ns */
	assert_int_equal(ft_trace_scan_buffers(t, count_paired, &p, err, sizeof(err)), 0);
	assert_int_equal(p.n, 1);
	assert_int_equal(p.ns, 100);
	ft_trace_close(t);
}

static void test_unwind_long(void **state)
{
	struct ft_trace *t = make(mk_unwind, "function_graph", 1);
	struct ft_event ev;

	expect_main_foo_bar(t, 5 * S);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_EXIT);
	assert_true(ev.unwound);
	assert_int_equal(ev.fid, F_BAR);
	assert_int_equal(ev.duration, 4800);
	assert_int_equal(next(t, &ev), 1);
	assert_true(ev.unwound);
	assert_int_equal(ev.fid, F_FOO);
	assert_int_equal(ev.depth, 1);
	expect(t, FT_EV_ENTRY, 300000, 1, 5 * S + 6000);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, 300000);
	assert_int_equal(ev.duration, 1ull << 31);
	assert_false(ev.unwound);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, F_MAIN);
	assert_int_equal(ev.duration, 7000 + (1ull << 31));
	assert_int_equal(next(t, &ev), 0);
	ft_trace_close(t);
}

static void test_threads_merge(void **state)
{
	struct ft_trace *t = make(mk_threads, "function_graph", 0);
	static const struct {
		enum ft_ev_type type;
		uint32_t tid;
		uint16_t level;
		uint64_t ts;
	} want[] = {
		{ FT_EV_ENTRY, 1000, 0, 3 * S },	{ FT_EV_ENTRY, 1001, 0, 3 * S + 1000 },
		{ FT_EV_ENTRY, 1000, 0, 3 * S + 2000 }, { FT_EV_SIGNAL, 1000, 0, 3 * S + 2400 },
		{ FT_EV_ENTRY, 1000, 1, 3 * S + 2500 }, { FT_EV_EXIT, 1000, 1, 3 * S + 2600 },
		{ FT_EV_EXIT, 1000, 0, 3 * S + 3000 },	{ FT_EV_EXIT, 1001, 0, 3 * S + 4000 },
		{ FT_EV_EXIT, 1000, 0, 3 * S + 5000 },
	};
	struct ft_event ev, nx;

	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		assert_int_equal(next(t, &ev), 1);
		assert_int_equal(ev.type, want[i].type);
		assert_int_equal(ev.tid, want[i].tid);
		assert_int_equal(ev.level, want[i].level);
		assert_int_equal(ev.ts, want[i].ts);
		if (i == 1) {
			/* the worker's next record is its exit, 3 us later */
			assert_int_equal(ft_trace_peek_buffer(t, &ev, &nx), 1);
			assert_int_equal(nx.type, FT_EV_EXIT);
			assert_int_equal(nx.duration, 3000);
		}
		if (i == 3)
			assert_int_equal(ev.count, 10);
	}
	assert_int_equal(next(t, &ev), 0);
	ft_trace_close(t);
}

static void test_func_stacks(void **state)
{
	struct ft_trace *t = make(mk_funcs, "function", 0);
	struct ft_event ev;

	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_FUNC);
	assert_int_equal(ev.fid, F_MAIN);
	assert_int_equal(ev.parent_fid, FT_FID_UNKNOWN);
	assert_int_equal(ev.parent_addr, MK_BASE + 0x0f1a);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.parent_fid, F_MAIN);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, F_BAR);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_STACK);
	assert_int_equal(ev.stack_id, 0);
	assert_int_equal(ev.fid, F_BAR);
	assert_int_equal(ev.nr_ips, 3);
	assert_int_equal(ev.ips[0], MK_BASE + 0x1208);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, F_BAZ);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_STACK);
	assert_int_equal(ev.stack_id, -1);
	assert_int_equal(ev.nr_ips, 2);
	assert_int_equal(ev.ips[1], MK_BASE + 0x1044);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_MARKER);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.parent_addr, 0x7f0000001000ull);
	assert_int_equal(next(t, &ev), 0);
	ft_trace_close(t);
}

/* Corrupt buffers: one clear error from next(), never a crash. */
static void corrupt_case(void (*build)(struct mk_buf *b), const char *needle)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	struct ft_trace *t;
	struct ft_event ev;
	struct mk_buf b;
	char err[512];
	int ret;

	assert_int_equal(mk_tables(w, "function_graph", NULL, 0), 0);
	mk_init(&b, 0, 1, 1, 0);
	build(&b);
	assert_int_equal(ft_writer_add(w, FT_SEC_UDATA, 0, b.data, b.len, 0), 0);
	mk_free(&b);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	t = ft_trace_open(path, err, sizeof(err));
	assert_non_null(t);
	while ((ret = ft_trace_next(t, &ev, err, sizeof(err))) == 1)
		;
	assert_int_equal(ret, -1);
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
	/* it stays failed */
	assert_int_equal(ft_trace_next(t, &ev, err, sizeof(err)), -1);
	ft_trace_close(t);
}

static void bad_page_size(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_entry(b, 1, 1);
	mk_close_page(b);
	((struct ft_page *)b->data)->size = 1000;
}

static void bad_page_align(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_entry(b, 1, 1);
	mk_close_page(b);
	((struct ft_page *)b->data)->size = 2;
	b->len = sizeof(struct ft_page) + 2;
}

static void bad_header_cut(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_entry(b, 1, 1);
	mk_close_page(b);
	mk_put(b, "0123456789", 10);
}

static void bad_ext_len(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_word(b, ft_rec_ext(FT_EXT_MARKER, 50, 0));
	mk_word(b, 0);
	mk_close_page(b);
}

static void bad_stack_nr(struct mk_buf *b)
{
	uint32_t w[2] = { 1000, 0 };

	mk_page(b, 1, 0, 0);
	mk_word(b, ft_rec_ext(FT_EXT_STACK, 2, 0));
	mk_put(b, w, 8);
	mk_close_page(b);
}

static void bad_func_cut(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_word(b, ft_rec_func(1, 0));
	mk_close_page(b);
}

static void bad_pad(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_word(b, ft_rec_ext(FT_EXT_MARKER, 0, 3));
	mk_close_page(b);
}

static void bad_time_short(struct mk_buf *b)
{
	mk_page(b, 1, 0, 0);
	mk_word(b, ft_rec_ext(FT_EXT_TIME, 1, 0));
	mk_word(b, 0);
	mk_close_page(b);
}

static void test_corrupt_records(void **state)
{
	corrupt_case(bad_page_size, "runs past the end");
	corrupt_case(bad_page_align, "not a multiple of 4");
	corrupt_case(bad_header_cut, "page header cut short");
	corrupt_case(bad_ext_len, "runs past the page");
	corrupt_case(bad_stack_nr, "stack of 1000 frames");
	corrupt_case(bad_func_cut, "FUNC record cut short");
	corrupt_case(bad_pad, "pads 3 bytes");
	corrupt_case(bad_time_short, "too short");
}

static void expect_trace_open_error(const char *meta_or_null, uint32_t type, const void *p,
				    size_t n, const char *needle)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	char err[512];

	assert_int_equal(ft_writer_add(w, type, 0, p, n, 0), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	assert_null(ft_trace_open(path, err, sizeof(err)));
	if (!strstr(err, needle))
		fail_msg("error '%s' lacks '%s'", err, needle);
}

static void test_corrupt_tables(void **state)
{
	uint32_t funcs[2] = { 1000, 0 };
	uint32_t fsmb[4] = { FT_FSMB_MAGIC, FT_FSMB_VERSION, 1000000, 0 };
	uint32_t symtab[2] = { 100, 0 };

	expect_trace_open_error(NULL, FT_SEC_FUNCS, funcs, sizeof(funcs), "corrupt FUNCS");
	expect_trace_open_error(NULL, FT_SEC_MODULES, "12 zz\n", 6, "corrupt MODULES line 1");
	expect_trace_open_error(NULL, FT_SEC_STACKMAP, fsmb, sizeof(fsmb), "STACKMAP");
	{
		/* a SYMTAB for module 0 that claims 100 symbols in 8 bytes */
		struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
		const char *mods = "1 1000 2000 0 - /x\n";
		char err[512];

		ft_writer_add(w, FT_SEC_MODULES, 0, mods, strlen(mods), 0);
		ft_writer_add(w, FT_SEC_SYMTAB, 0, symtab, sizeof(symtab), 0);
		ft_writer_close(w, NULL, 0);
		assert_null(ft_trace_open(path, err, sizeof(err)));
		assert_non_null(strstr(err, "claims 100 symbols"));
	}
}

static int mk_rename(struct ft_writer *w, int compress)
{
	struct mk_buf b;
	int ret;

	mk_init(&b, 0, 1000, 1001, 0);
	mk_page(&b, S, 0, 0);
	mk_entry(&b, F_WORKER, S);
	mk_ext(&b, FT_EXT_COMM, "renamed", 7);
	mk_exit(&b, S + 10);
	ret = mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/* The "threads" scenario with every buffer cut into chunks of `step` bytes. */
static int chunked_step;

/* The chunk of @b's buffer at @off (none past its end), as a section of its own. */
static int add_chunk(struct ft_writer *w, const struct mk_buf *b, size_t off, int compress)
{
	size_t step = (size_t)chunked_step;

	if (off >= b->len)
		return 0;
	return ft_writer_add(w, FT_SEC_UDATA, b->id, b->data + off,
			     b->len - off < step ? b->len - off : step, compress);
}

static int mk_threads_chunked(struct ft_writer *w, int compress)
{
	struct mk_buf m, k;
	int ret = 0;

	mk_init(&m, 0, 1000, 1000, 0);
	mk_init(&k, 1, 1000, 1001, 0);
	mk_page(&m, 3 * S, 0, 0);
	mk_page(&k, 3 * S + 1000, 0, 0);
	mk_entry(&m, F_MAIN, 3 * S);
	mk_entry(&k, F_WORKER, 3 * S + 1000);
	mk_marker(&m, "a marker long enough to cross chunk boundaries", 3 * S + 1500);
	mk_page(&m, 3 * S + 1600, 0, 1);
	mk_entry(&m, F_FOO, 3 * S + 2000);
	mk_exit(&m, 3 * S + 3000);
	mk_exit(&k, 3 * S + 4000);
	mk_page(&m, 3 * S + 4500, 3, 1);
	mk_exit(&m, 3 * S + 5000);
	mk_close_page(&m);
	mk_close_page(&k);
	/* interleave the two buffers' chunks in the file */
	for (size_t off = 0; off < m.len || off < k.len; off += (size_t)chunked_step)
		ret |= add_chunk(w, &m, off, compress) | add_chunk(w, &k, off, compress);
	mk_free(&m);
	mk_free(&k);
	return ret;
}

/* Pages cut across chunks decode exactly as one chunk, and again after rewind. */
static void test_chunked_pages(void **state)
{
	static const int steps[] = { 100000, 4, 13, 32, 33, 64 };
	char ref[4096] = "", got[4096];

	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		struct ft_trace *t;
		struct ft_event ev;

		chunked_step = steps[i];
		t = make(mk_threads_chunked, "function_graph", (int)(i & 1));
		for (int pass = 0; pass < 2; pass++) {
			size_t n = 0;

			got[0] = 0;
			while (next(t, &ev) == 1)
				n += (size_t)snprintf(got + n, sizeof(got) - n,
						      "%d/%u/%u/%llu/%d/%llu;", ev.type, ev.tid,
						      ev.fid, (unsigned long long)ev.ts, ev.depth,
						      (unsigned long long)ev.count);
			if (!ref[0])
				memcpy(ref, got, sizeof(ref));
			if (strcmp(ref, got))
				fail_msg("step %d pass %d:\n%s\n!=\n%s", steps[i], pass, got, ref);
			assert_int_equal(ft_trace_rewind(t, NULL, 0), 0);
		}
		ft_trace_close(t);
	}
	/* main, worker, marker, foo, foo exit, worker exit, lost 3, main exit */
	assert_non_null(strstr(ref, "5/1000/0/3000001500/1/0;")); /* marker */
	assert_non_null(strstr(ref, "4/1000/0/3000004500/1/3;"));
}

/*
 * A file being written, followed: ft_trace_refresh() takes in the chunks
 * appended since (a buffer that had ended goes on with its open calls, a
 * new buffer joins the merge, new thread names count), ft_trace_unget()
 * gives an event back, and the events come as from the finished file.
 */
static void test_follow_growing(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	static const char tasks[] = "1000 1001 late-thread\n";
	struct mk_buf m, k;
	struct ft_trace *t;
	struct ft_event ev;
	char err[512];

	assert_non_null(w);
	assert_int_equal(mk_tables(w, "function_graph", NULL, 0), 0);
	mk_init(&m, 0, 1000, 1000, 0);
	mk_init(&k, 1 << 2, 1000, 1001, 0);
	mk_page(&m, S, 0, 0);
	mk_entry(&m, F_MAIN, S);
	mk_entry(&m, F_FOO, S + 1000);
	assert_int_equal(mk_flush(&m, w, 1), 0);
	t = ft_trace_open(ft_writer_partial_path(w), err, sizeof(err));
	if (!t)
		fail_msg("open: %s", err);
	expect(t, FT_EV_ENTRY, F_MAIN, 0, S);
	expect(t, FT_EV_ENTRY, F_FOO, 1, S + 1000);
	assert_int_equal(next(t, &ev), 0);
	assert_int_equal(ft_trace_refresh(t, err, sizeof(err)), 0);

	/* foo returns; a second thread comes, named by a TASKS chunk */
	mk_page(&m, S + 3000, 0, 2);
	mk_exit(&m, S + 3000);
	mk_page(&k, S + 2000, 0, 0);
	mk_entry(&k, F_WORKER, S + 2000);
	mk_exit(&k, S + 4000);
	assert_int_equal(mk_flush(&m, w, 0) | mk_flush(&k, w, 1), 0);
	assert_int_equal(ft_writer_add(w, FT_SEC_TASKS, 0, tasks, strlen(tasks), 0), 0);
	assert_int_equal(ft_trace_refresh(t, err, sizeof(err)), 1);
	assert_string_equal(ft_trace_comm(t, 1001), "late-thread");
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.tid, 1001);
	assert_int_equal(ev.ts, S + 2000);
	assert_int_equal(ft_trace_unget(t), 0);
	expect(t, FT_EV_ENTRY, F_WORKER, 0, S + 2000);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_EXIT);
	assert_int_equal(ev.fid, F_FOO);
	assert_true(ev.has_entry);
	assert_int_equal(ev.duration, 2000);
	expect(t, FT_EV_EXIT, F_WORKER, 0, S + 4000);
	assert_int_equal(next(t, &ev), 0);

	/* main returns and the file is finished (END, renamed) */
	mk_page(&m, S + 5000, 0, 1);
	mk_exit(&m, S + 5000);
	assert_int_equal(mk_flush(&m, w, 1), 0);
	assert_int_equal(ft_writer_close(w, NULL, 0), 0);
	assert_int_equal(ft_trace_refresh(t, err, sizeof(err)), 1);
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.fid, F_MAIN);
	assert_int_equal(ev.duration, 5000);
	assert_int_equal(next(t, &ev), 0);
	assert_int_equal(ft_trace_refresh(t, err, sizeof(err)), 0);
	assert_int_equal(ft_trace_nr_decoded(t), 6);
	ft_trace_close(t);
	mk_free(&m);
	mk_free(&k);
}

/* COMM renames a thread from that point on; a rewind starts from TASKS again. */
static void test_comm_rename(void **state)
{
	struct ft_trace *t = make(mk_rename, "function_graph", 0);
	struct ft_event ev;

	assert_string_equal(ft_trace_comm(t, 1001), "worker-thread");
	assert_int_equal(next(t, &ev), 1);
	assert_string_equal(ft_trace_comm(t, 1001), "worker-thread");
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(ev.type, FT_EV_COMM);
	assert_string_equal(ft_trace_comm(t, 1001), "renamed");
	assert_int_equal(next(t, &ev), 1);
	assert_int_equal(next(t, &ev), 0);
	assert_int_equal(ft_trace_rewind(t, NULL, 0), 0);
	assert_string_equal(ft_trace_comm(t, 1001), "worker-thread");
	assert_string_equal(ft_trace_comm(t, 1000), "prog");
	ft_trace_close(t);
}

static void test_no_clock_warns(void **state)
{
	struct ft_writer *w = ft_writer_open(path, 1, NULL, 0);
	struct ft_trace *t;
	char err[256];

	ft_writer_add(w, FT_SEC_META, 0, "tracer=nop\n", 11, 0);
	ft_writer_close(w, NULL, 0);
	t = ft_trace_open(path, err, sizeof(err));
	assert_non_null(t);
	assert_int_equal(ft_trace_nr_warnings(t), 1);
	assert_non_null(strstr(ft_trace_warning(t, 0), "no clock"));
	assert_string_equal(ft_trace_tracer(t), "nop");
	ft_trace_close(t);
}

/* ---- symbols ---- */

static void test_symtab_codec(void **state)
{
	struct ft_sym syms[3] = { { 0x2000, 0x10, "b" },
				  { 0x1000, 0x80, "a_long_name" },
				  { 0x3000, 0, "c" } };
	struct ft_symtab st = { syms, 3, NULL, 0 }, *d;
	const struct ft_sym *s;
	char err[256];
	size_t len;
	void *p = ft_symtab_encode(&st, &len);

	assert_non_null(p);
	d = ft_symtab_decode(p, len, err, sizeof(err));
	assert_non_null(d);
	assert_int_equal(d->nr, 3);
	assert_string_equal(d->syms[0].name, "a_long_name"); /* sorted */
	s = ft_symtab_lookup(d, 0x107f);
	assert_non_null(s);
	assert_string_equal(s->name, "a_long_name");
	assert_null(ft_symtab_lookup(d, 0x1080)); /* past its size */
	assert_null(ft_symtab_lookup(d, 0xfff));
	assert_string_equal(ft_symtab_lookup(d, 0x3500)->name, "c"); /* size unknown */
	ft_symtab_free(d);
	/* a name offset outside the strings, a missing NUL */
	((unsigned char *)p)[4 + 12] = 0xff;
	assert_null(ft_symtab_decode(p, len, err, sizeof(err)));
	assert_non_null(strstr(err, "bad name offset"));
	assert_null(ft_symtab_decode(p, len - 1, err, sizeof(err)) ? p : NULL);
	free(p);
	assert_null(ft_symtab_decode("ab", 2, err, sizeof(err)));
}

static void test_kallsyms(void **state)
{
	const char *text = "ffffffff81000000 T _stext\n"
			   "ffffffff81000100 t do_one\n"
			   "ffffffff81000180 D some_data\n"
			   "0000000000000000 T hidden\n"
			   "ffffffff81000200 T schedule\t[kvm]\n"
			   "garbage line\n";
	struct ft_symtab *k = ft_kallsyms_parse(text, strlen(text), NULL, 0);
	struct ft_symbols *s = ft_symbols_new();
	char buf[128];

	assert_non_null(k);
	assert_int_equal(k->nr, 3);
	ft_symbols_set_kernel(s, k);
	assert_int_equal(ft_symbols_resolve(s, 0xffffffff81000148ull, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "do_one+0x48/0x100");
	assert_int_equal(ft_symbols_resolve(s, 0xffffffff81000204ull, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "schedule");
	assert_int_equal(ft_symbols_resolve(s, 0x1234, 1, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "0x1234");
	ft_symbols_free(s);
}

/* The one kallsyms line parser: what it takes and what it refuses. */
static void test_kallsyms_line(void **state)
{
	static const char *const no[] = {
		"ffffffff81000180 D some_data",
		"0000000000000000 T hidden",
		"garbage line",
		"ffffffff81000180 T",
		"ffffffff81000180 T ",
		"11112222333344445 T too_long",
		"ffffffff81000180  T two_spaces",
		"",
	};
	struct ft_kallsyms_ent e;
	const char *l = "ffffffff81000200 W schedule\t[kvm]\n";

	(void)state;
	assert_int_equal(ft_kallsyms_line(l, strlen(l), &e), 1);
	assert_true(e.addr == 0xffffffff81000200ull);
	assert_int_equal(e.type, 'W');
	assert_int_equal(e.name_len, 8);
	assert_memory_equal(e.name, "schedule", 8);
	/* the length bounds the line: no NUL needed, none read past */
	assert_int_equal(ft_kallsyms_line("FFFF8000 t a_long_name", 12, &e), 1);
	assert_int_equal(e.name_len, 1);
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++)
		assert_int_equal(ft_kallsyms_line(no[i], strlen(no[i]), &e), 0);
}

/* After an exec two programs share addresses: module and pid pick the right one. */
static void test_overlapping_modules(void **state)
{
	struct ft_sym a[1] = { { 0x1000, 0x100, "old_main" } };
	struct ft_sym b[1] = { { 0x1000, 0x100, "new_main" } };
	struct ft_symtab ta = { a, 1, NULL, 0 }, tb = { b, 1, NULL, 0 };
	struct ft_symbols *s = ft_symbols_new();
	struct ft_symtab *da, *db;
	char buf[128];
	size_t la, lb;
	void *pa = ft_symtab_encode(&ta, &la), *pb = ft_symtab_encode(&tb, &lb);

	da = ft_symtab_decode(pa, la, NULL, 0);
	db = ft_symtab_decode(pb, lb, NULL, 0);
	free(pa);
	free(pb);
	ft_symbols_add_module_pid(s, 7, 0x400000, 0x500000, 0x400000, "/old", da);
	ft_symbols_add_module_pid(s, 7, 0x400000, 0x500000, 0x400000, "/new", db);
	ft_symbols_add_module_pid(s, 9, 0x600000, 0x700000, 0x600000, "/other", NULL);
	assert_int_equal(ft_symbols_resolve_module(s, 0, 0x401010, 1, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "old_main+0x10/0x100");
	assert_int_equal(ft_symbols_resolve_module(s, 1, 0x401010, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "new_main");
	/* by pid: the latest mapping of that process */
	assert_int_equal(ft_symbols_resolve_pid(s, 7, 0x401010, 0, buf, sizeof(buf)), 0);
	assert_string_equal(buf, "new_main");
	/* a module without symbols: its path and offset, as sym-userobj prints */
	assert_int_equal(ft_symbols_resolve_pid(s, 9, 0x600123, 0, buf, sizeof(buf)), -1);
	assert_string_equal(buf, "/other[+0x123]");
	ft_symbols_free(s);
}

int ftrail_test_marker_function(int x);
int ftrail_test_marker_function(int x)
{
	return x * 3 + 1;
}

/* Our own executable through libelf, placed as /proc/self/maps says. */
static void test_elf_self(void **state)
{
	char exe[4096], line[4600], bid[128], buf[256], err[256];
	unsigned long long start = 0, end = 0, off = 0;
	struct ft_symtab *st;
	struct ft_symbols *s;
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	FILE *f = fopen("/proc/self/maps", "r");
	uint64_t ip = (uint64_t)(uintptr_t)&ftrail_test_marker_function + 4;
	int found = 0;

	assert_true(n > 0);
	exe[n] = 0;
	assert_non_null(f);
	while (fgets(line, sizeof(line), f)) {
		char p[4096] = "";

		if (sscanf(line, "%llx-%llx %*s %llx %*s %*s %4095s", &start, &end, &off, p) >= 3 &&
		    !strcmp(p, exe) && ip >= start && ip < end) {
			found = 1;
			break;
		}
	}
	fclose(f);
	assert_true(found);
	st = ft_symtab_from_elf(exe, bid, sizeof(bid), err, sizeof(err));
	assert_non_null(st);
	assert_true(st->nr > 10);
	assert_true(strlen(bid) >= 16); /* gcc/ld give a build id by default on Debian */
	assert_int_equal(ft_elf_build_id(exe, buf, sizeof(buf)), 0);
	assert_string_equal(buf, bid);
	s = ft_symbols_new();
	ft_symbols_add_module(s, start, end, start - off, exe, st);
	assert_int_equal(ft_symbols_resolve(s, ip, 1, buf, sizeof(buf)), 0);
	assert_non_null(strstr(buf, "ftrail_test_marker_function+0x4/0x"));
	ft_symbols_free(s);
	assert_null(ft_symtab_from_elf("/etc/hostname", NULL, 0, err, sizeof(err)));
	assert_non_null(strstr(err, "not an ELF file"));
}

/* ---- the text formats ---- */

static char *render(struct ft_trace *t, uint64_t opts)
{
	struct ft_fmt *f;
	struct ft_event ev;
	char *out = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&out, &len);
	uint64_t n = 0;

	while (next(t, &ev) == 1)
		n++;
	assert_int_equal(ft_trace_rewind(t, NULL, 0), 0);
	f = ft_fmt_new(t, opts, m);
	ft_fmt_header(f, n, n);
	while (next(t, &ev) == 1)
		assert_int_equal(ft_fmt_event(f, &ev), 0);
	ft_fmt_free(f);
	fclose(m);
	return out;
}

/*
 * The trace @fn makes for @tracer, rendered with the default options and
 * then each of @opts (NULL-terminated), must read @want.
 */
static void expect_render(scen_fn fn, const char *tracer, const char *const *opts, const char *want)
{
	struct ft_trace *t = make(fn, tracer, 0);
	uint64_t o = ft_options_default();
	char *s;

	for (; *opts; opts++)
		assert_int_equal(ft_options_apply(&o, *opts), 0);
	s = render(t, o);
	assert_string_equal(s, want);
	free(s);
	ft_trace_close(t);
}

static void test_fmt_graph_options(void **state)
{
	static const char *const opts[] = { "funcgraph-proc", "funcgraph-abstime", "funcgraph-tail",
					    "nofuncgraph-overhead", NULL };

	(void)state;
	expect_render(
		mk_graph, "function_graph", opts,
		"# tracer: function_graph\n"
		"#\n"
		"#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS\n"
		"#      |          |     |    |           |   |                     |   |   |   |\n"
		"    1.000000 |   0)   prog-1000    |               |  main() {\n"
		"    1.000001 |   0)   prog-1000    |               |    foo() {\n"
		"    1.000002 |   0)   prog-1000    |   1.382 us    |      bar();\n"
		"    1.000015 |   0)   prog-1000    |   14.000 us   |    } /* foo */\n"
		"    1.000016 |   0)   prog-1000    |               |  /* hello */\n"
		"    1.000017 |   0)   prog-1000    |   0.500 us    |    baz();\n"
		"    1.000200 |   0)   prog-1000    |   200.000 us  |  } /* main */\n");
}

static void test_fmt_function_options(void **state)
{
	static const char *const opts[] = { "sym-offset", "expand-stacks", NULL };

	(void)state;
	expect_render(
		mk_funcs, "function", opts,
		"# tracer: function\n"
		"#\n"
		"# entries-in-buffer/entries-written: 8/8   #P:1\n"
		"#\n"
		"#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
		"#              | |         |         |         |\n"
		"            prog-1000    [000]      2.000005: main+0x0/0x80 <-_start+0x1a/0x2f\n"
		"            prog-1000    [000]      2.000006: foo+0x0/0x40 <-main+0x0/0x80\n"
		"            prog-1000    [000]      2.000007: bar+0x0/0x20 <-foo+0x0/0x40\n"
		"            prog-1000    [000]      2.000007: <stack trace>\n"
		" => bar+0x8/0x20\n"
		" => foo+0x10/0x40\n"
		" => main+0x20/0x80\n"
		"            prog-1000    [000]      2.000009: baz+0x0/0x30 <-main+0x0/0x80\n"
		"            prog-1000    [000]      2.000009: <stack trace>\n"
		" => baz+0x5/0x30\n"
		" => main+0x44/0x80\n"
		"            prog-1000    [000]      2.000012: tracing_mark_write: checkpoint\n"
		"            prog-1000    [000]      2.000013: bar+0x0/0x20 <-0x7f0000001000\n");
}

static void test_fmt_durations(void **state)
{
	static const struct {
		uint64_t ns;
		const char *cell;
		char mark;
	} c[] = {
		{ 0, "0.000 us    ", ' ' },
		{ 999, "0.999 us    ", ' ' },
		{ 10000, "10.000 us   ", ' ' },
		{ 10001, "10.001 us   ", '+' },
		{ 100001, "100.001 us  ", '!' },
		{ 1000001, "1000.001 us ", '#' },
		{ 10000001, "10000.00 us ", '*' },
		{ 100000001, "100000.0 us ", '@' },
		{ 1000000001, "1000000 us  ", '$' },
		{ 1000, "1.000 us    ", ' ' },
		{ 99999, "99.999 us   ", '+' },
		{ 123456, "123.456 us  ", '!' },
		{ 9999999, "9999.999 us ", '#' },
		{ 10000000, "10000.00 us ", '#' },
		{ 12345678901ull, "12345678 us ", '$' },
	};
	char buf[64], want[64], us[32], frac[8];

	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++) {
		ft_fmt_graph_duration(buf, sizeof(buf), c[i].ns);
		assert_string_equal(buf, c[i].cell);
		assert_int_equal(ft_fmt_mark(c[i].ns), c[i].mark);
	}
	/*
	 * Every width the cell takes, across the fast path's end (10 ms),
	 * against the rule written with printf: microseconds, then as many of
	 * the three nanosecond digits as fit in 7 digits, " us ", spaces to 8.
	 */
	for (uint64_t ns = 0; ns < 40000000; ns += ns < 20000 ? 1 : 7919) {
		size_t l, keep;
		int n;

		snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
		snprintf(frac, sizeof(frac), "%03u", (unsigned int)(ns % 1000));
		l = strlen(us);
		keep = l < 7 ? (7 - l < 3 ? 7 - l : 3) : 0;
		n = snprintf(want, sizeof(want), "%s%s%.*s", us, keep ? "." : "", (int)keep, frac);
		snprintf(want + n, sizeof(want) - (size_t)n, " us %*s", n < 8 ? 8 - n : 0, "");
		ft_fmt_graph_duration(buf, sizeof(buf), ns);
		if (strcmp(buf, want))
			fail_msg("%llu ns: '%s', want '%s'", (unsigned long long)ns, buf, want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kallsyms_line),
		cmocka_unit_test_setup_teardown(test_graph_decode, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_and_resync, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lost_gap_pairs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_unwind_long, setup, teardown),
		cmocka_unit_test_setup_teardown(test_threads_merge, setup, teardown),
		cmocka_unit_test_setup_teardown(test_func_stacks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_records, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_no_clock_warns, setup, teardown),
		cmocka_unit_test_setup_teardown(test_comm_rename, setup, teardown),
		cmocka_unit_test_setup_teardown(test_chunked_pages, setup, teardown),
		cmocka_unit_test_setup_teardown(test_follow_growing, setup, teardown),
		cmocka_unit_test(test_symtab_codec),
		cmocka_unit_test(test_kallsyms),
		cmocka_unit_test(test_overlapping_modules),
		cmocka_unit_test(test_elf_self),
		cmocka_unit_test_setup_teardown(test_fmt_graph_options, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fmt_function_options, setup, teardown),
		cmocka_unit_test(test_fmt_durations),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
