/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Test-only builder of synthetic trace files: pages of record.h records
 * written through ft_writer_*, with the tables a reader needs.  Used by
 * tests/unit/test_decode.c and by tests/tools/mktrace.c (the e2e cases'
 * generator).  Timestamps are given in ticks; the traces say clock=mono with
 * mult 1, shift 0, so ticks are nanoseconds.
 *
 * Scenarios (mk_scenario names), each described where it is built:
 *   graph    function_graph, one thread: nesting, leaves, markers, durations
 *   func     function tracer: parents (traced and by address), stack ids,
 *            a full stack, a marker
 *   threads  function_graph, two threads and a signal handler interleaved
 *   lost     function_graph with lost events and a depth resync
 *   lostloop function_graph, a loss between a call's entry and a later
 *            call's exit of the same function at the same depth
 *   unwind   function_graph with a longjmp (UNWIND) and long deltas/fids
 *   cut      "graph" cut short: no END, last section half written
 */
#ifndef FTRAIL_TESTS_MKTRACE_H
#define FTRAIL_TESTS_MKTRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/argspec.h"
#include "core/record.h"
#include "core/stackmap.h"
#include "core/symbols.h"
#include "core/tracefile.h"

struct mk_buf {
	uint64_t id;
	uint32_t pid, tid;
	uint16_t level;
	unsigned char *data;
	size_t len, cap;
	size_t page; /* offset of the open page header, or SIZE_MAX */
	uint64_t t;  /* running time */
	uint32_t seq;
};

static inline void mk_put(struct mk_buf *b, const void *p, size_t n)
{
	if (b->len + n > b->cap) {
		b->cap = (b->len + n) * 2 + 256;
		b->data = realloc(b->data, b->cap);
		if (!b->data)
			abort();
	}
	memcpy(b->data + b->len, p, n);
	b->len += n;
}

static inline void mk_word(struct mk_buf *b, uint32_t w)
{
	mk_put(b, &w, 4);
}

static inline void mk_init(struct mk_buf *b, uint64_t id, uint32_t pid, uint32_t tid,
			   uint16_t level)
{
	memset(b, 0, sizeof(*b));
	b->id = id;
	b->pid = pid;
	b->tid = tid;
	b->level = level;
	b->page = SIZE_MAX;
}

static inline void mk_close_page(struct mk_buf *b)
{
	uint32_t size;

	if (b->page == SIZE_MAX)
		return;
	/* pages are 4-byte aligned in a buffer: no struct access */
	size = (uint32_t)(b->len - b->page - sizeof(struct ft_page));
	memcpy(b->data + b->page + offsetof(struct ft_page, size), &size, 4);
	b->page = SIZE_MAX;
}

/* Start a page at time ts, after `lost` lost events, at graph depth `depth`. */
static inline void mk_page(struct mk_buf *b, uint64_t ts, uint32_t lost, uint16_t depth)
{
	struct ft_page h = { 0 };

	mk_close_page(b);
	h.ts = ts;
	h.lost = lost;
	h.tid = b->tid;
	h.pid = b->pid;
	h.level = b->level;
	h.depth = depth;
	h.seq = b->seq++;
	b->page = b->len;
	mk_put(b, &h, sizeof(h));
	b->t = ts;
}

static inline void mk_ext(struct mk_buf *b, uint32_t type, const void *payload, size_t bytes)
{
	uint32_t nw = (uint32_t)((bytes + 3) / 4), pad = nw * 4 - (uint32_t)bytes;
	uint32_t zero = 0;

	mk_word(b, ft_rec_ext(type, nw, pad));
	mk_put(b, payload, bytes);
	mk_put(b, &zero, pad);
}

/* Make the running time t, with an FT_EXT_TIME unless delta fits in max. */
static inline uint32_t mk_delta(struct mk_buf *b, uint64_t t, uint64_t max)
{
	uint64_t d = t - b->t;

	if (t < b->t || d > max) {
		mk_ext(b, FT_EXT_TIME, &t, 8);
		b->t = t;
		return 0;
	}
	b->t = t;
	return (uint32_t)d;
}

static inline void mk_entry(struct mk_buf *b, uint32_t fid, uint64_t t)
{
	uint32_t d = mk_delta(b, t, FT_REC_EDELTA_MAX);

	if (fid > FT_REC_FID_MAX) {
		if (d) { /* ENTRY_LONG has no delta of its own */
			b->t -= d;
			mk_ext(b, FT_EXT_TIME, &t, 8);
			b->t = t;
		}
		mk_ext(b, FT_EXT_ENTRY_LONG, &fid, 4);
		return;
	}
	mk_word(b, ft_rec_entry(fid, d));
}

static inline void mk_exit(struct mk_buf *b, uint64_t t)
{
	uint64_t d = t - b->t;

	if (d > FT_REC_XDELTA_MAX) {
		mk_ext(b, FT_EXT_EXIT_LONG, &d, 8);
		b->t = t;
		return;
	}
	b->t = t;
	mk_word(b, ft_rec_exit((uint32_t)d));
}

/* Function tracer record; parent: fid, or -1 with parent_addr. */
static inline void mk_func(struct mk_buf *b, uint32_t fid, int64_t parent, uint64_t parent_addr,
			   uint64_t t)
{
	uint32_t d = mk_delta(b, t, FT_REC_EDELTA_MAX);

	mk_word(b, ft_rec_func(fid, d));
	mk_word(b, parent >= 0 ? (uint32_t)parent + 1 : 0);
	if (parent < 0)
		mk_ext(b, FT_EXT_PARENT_ADDR, &parent_addr, 8);
}

static inline void mk_at(struct mk_buf *b, uint64_t t)
{
	if (t != b->t) {
		mk_ext(b, FT_EXT_TIME, &t, 8);
		b->t = t;
	}
}

static inline void mk_marker(struct mk_buf *b, const char *text, uint64_t t)
{
	mk_at(b, t);
	mk_ext(b, FT_EXT_MARKER, text, strlen(text));
}

static inline void mk_u32(struct mk_buf *b, uint32_t type, uint32_t v)
{
	mk_ext(b, type, &v, 4);
}

static inline void mk_stack(struct mk_buf *b, const uint64_t *ips, uint32_t nr)
{
	uint32_t w[2] = { nr, 0 };

	mk_word(b, ft_rec_ext(FT_EXT_STACK, 2 + 2 * nr, 0));
	mk_put(b, w, 8);
	mk_put(b, ips, nr * 8u);
}

static inline int mk_flush(struct mk_buf *b, struct ft_writer *w, int compress)
{
	int ret;

	mk_close_page(b);
	ret = ft_writer_add(w, FT_SEC_UDATA, b->id, b->data, b->len, compress);
	b->len = 0;
	return ret;
}

static inline void mk_free(struct mk_buf *b)
{
	free(b->data);
	b->data = NULL;
}

/* The synthetic program: module 0 mapped at 0x400000, four functions and more. */
#define MK_BASE 0x400000ull
static const struct {
	const char *name;
	uint64_t off;
	uint32_t size;
} mk_syms[] = {
	{ "main", 0x1000, 0x80 },   { "foo", 0x1100, 0x40 },	 { "bar", 0x1200, 0x20 },
	{ "baz", 0x1300, 0x30 },    { "handler", 0x1400, 0x10 }, { "worker", 0x1500, 0x60 },
	{ "_start", 0x0f00, 0x2f },
};
#define MK_NR_SYMS (sizeof(mk_syms) / sizeof(mk_syms[0]))

/* META, MODULES, SYMTAB, FUNCS, TASKS and a user STACKMAP (SYMTAB, FUNCS compressed or not). */
static inline int mk_tables(struct ft_writer *w, const char *tracer, const char *extra_meta,
			    int compress)
{
	char meta[1024];
	struct ft_symtab st = { 0 };
	struct ft_sym syms[MK_NR_SYMS];
	unsigned char funcs[4 + 16 * MK_NR_SYMS];
	const char *mods = "1000 400000 402000 0 - /nonexistent/ftrail-synthetic-prog\n";
	const char *tasks = "1000 1000 prog\n1000 1001 worker-thread\n";
	void *sp;
	size_t slen;
	uint32_t n = MK_NR_SYMS;
	/* FSMB v2: stack 0 = bar <- foo <- main, stack 1 = baz <- main */
	unsigned char fsmb[16 + (16 + 24) + (16 + 16)];
	struct ft_fsmb_header fh = { FT_FSMB_MAGIC, FT_FSMB_VERSION, 2, 0 };
	struct ft_fsmb_entry e0 = { 0, 3, 5, 0 }, e1 = { 1, 2, 1, 0 };
	uint64_t ips0[3] = { MK_BASE + 0x1208, MK_BASE + 0x1110, MK_BASE + 0x1020 };
	uint64_t ips1[2] = { MK_BASE + 0x1304, MK_BASE + 0x1030 };
	size_t o = 0;
	int ret = 0;

	snprintf(meta, sizeof(meta),
		 "clock=mono\ntsc_mult=1\ntsc_shift=0\ntsc_ref=0\ntsc_ref_ns=0\ntracer=%s\n"
		 "nr_cpus=1\nkernel=6.1.0-synthetic\ncmdline=prog\n%s",
		 tracer, extra_meta ? extra_meta : "");
	for (uint32_t i = 0; i < n; i++) {
		syms[i].addr = mk_syms[i].off;
		syms[i].size = mk_syms[i].size;
		syms[i].name = mk_syms[i].name;
	}
	st.syms = syms;
	st.nr = n;
	sp = ft_symtab_encode(&st, &slen);
	memcpy(funcs, &n, 4);
	for (uint32_t i = 0; i < n; i++) {
		uint64_t a = MK_BASE + mk_syms[i].off;
		uint32_t z = 0;

		memcpy(funcs + 4 + 16 * i, &a, 8);
		memcpy(funcs + 4 + 16 * i + 8, &z, 4);
		memcpy(funcs + 4 + 16 * i + 12, &z, 4);
	}
	memcpy(fsmb + o, &fh, 16), o += 16;
	memcpy(fsmb + o, &e0, 16), o += 16;
	memcpy(fsmb + o, ips0, 24), o += 24;
	memcpy(fsmb + o, &e1, 16), o += 16;
	memcpy(fsmb + o, ips1, 16), o += 16;

	ret |= ft_writer_add(w, FT_SEC_META, 0, meta, strlen(meta), 0);
	ret |= ft_writer_add(w, FT_SEC_MODULES, 0, mods, strlen(mods), 0);
	ret |= ft_writer_add(w, FT_SEC_SYMTAB, 0, sp, slen, compress);
	ret |= ft_writer_add(w, FT_SEC_FUNCS, 0, funcs, sizeof(funcs), compress);
	ret |= ft_writer_add(w, FT_SEC_TASKS, 0, tasks, strlen(tasks), 0);
	ret |= ft_writer_add(w, FT_SEC_STACKMAP, 0, fsmb, o, 0);
	free(sp);
	return ret;
}

enum {
	F_MAIN,
	F_FOO,
	F_BAR,
	F_BAZ,
	F_HANDLER,
	F_WORKER,
	F_START
};
#define S 1000000000ull /* one second, in ticks (= ns) */

/*
 * graph: main { foo { bar(); } marker "hello"; baz(); }
 *   main 200us (!), foo 14us (+), bar 1.382us, baz 0.5us; two pages, each
 *   its own UDATA chunk (the second starts at depth 1)
 */
static inline int mk_graph(struct ft_writer *w, int compress)
{
	struct mk_buf b;
	int ret;

	mk_init(&b, 0, 1000, 1000, 0);
	mk_page(&b, S, 0, 0);
	mk_entry(&b, F_MAIN, S);
	mk_entry(&b, F_FOO, S + 1000);
	mk_entry(&b, F_BAR, S + 2000);
	mk_exit(&b, S + 3382);
	mk_exit(&b, S + 15000);
	ret = mk_flush(&b, w, compress);
	mk_page(&b, S + 16000, 0, 1);
	mk_marker(&b, "hello\n", S + 16000);
	mk_entry(&b, F_BAZ, S + 17000);
	mk_exit(&b, S + 17500);
	mk_exit(&b, S + 200000);
	ret |= mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/* func: function tracer records with parents, stacks and a marker. */
static inline int mk_funcs(struct ft_writer *w, int compress)
{
	uint64_t ips[2] = { MK_BASE + 0x1305, MK_BASE + 0x1044 };
	struct mk_buf b;
	int ret;

	mk_init(&b, 0, 1000, 1000, 0);
	mk_page(&b, 2 * S + 5000, 0, 0);
	mk_func(&b, F_MAIN, -1, MK_BASE + 0x0f1a, 2 * S + 5000);
	mk_func(&b, F_FOO, F_MAIN, 0, 2 * S + 6000);
	mk_func(&b, F_BAR, F_FOO, 0, 2 * S + 7000);
	mk_u32(&b, FT_EXT_STACK_ID, 0);
	mk_func(&b, F_BAZ, F_MAIN, 0, 2 * S + 9000);
	mk_stack(&b, ips, 2);
	mk_marker(&b, "checkpoint", 2 * S + 12000);
	mk_func(&b, F_BAR, -1, 0x7f0000001000ull, 2 * S + 13000);
	ret = mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/*
 * threads: main thread (buffer 0), a worker (buffer 1) and a signal
 * handler on the main thread (buffer 2, level 1), interleaved in time.
 */
static inline int mk_threads(struct ft_writer *w, int compress)
{
	struct mk_buf m, k, h;
	int ret;

	/* buffer ids as the recorder makes them: slot << 2 | level (core/ringbuf.h) */
	mk_init(&m, 0, 1000, 1000, 0);
	mk_init(&k, 1 << 2, 1000, 1001, 0);
	mk_init(&h, 0 << 2 | 1, 1000, 1000, 1);
	mk_page(&m, 3 * S, 0, 0);
	mk_page(&k, 3 * S + 1000, 0, 0);
	mk_page(&h, 3 * S + 2500, 0, 0);
	mk_entry(&m, F_MAIN, 3 * S);
	mk_entry(&k, F_WORKER, 3 * S + 1000);
	mk_entry(&m, F_FOO, 3 * S + 2000);
	mk_at(&m, 3 * S + 2400);
	mk_u32(&m, FT_EXT_SIGNAL, 10);
	mk_entry(&h, F_HANDLER, 3 * S + 2500);
	mk_exit(&h, 3 * S + 2600);
	mk_exit(&m, 3 * S + 3000);
	mk_exit(&k, 3 * S + 4000);
	mk_exit(&m, 3 * S + 5000);
	ret = mk_flush(&m, w, compress) | mk_flush(&k, w, compress) | mk_flush(&h, w, compress);
	mk_free(&m);
	mk_free(&k);
	mk_free(&h);
	return ret;
}

/* One buffer (pid = tid = 1000) whose first page at @base opens main { foo { bar {, 100 ns apart. */
static inline void mk_main_foo_bar(struct mk_buf *b, uint64_t base)
{
	mk_init(b, 0, 1000, 1000, 0);
	mk_page(b, base, 0, 0);
	mk_entry(b, F_MAIN, base);
	mk_entry(b, F_FOO, base + 100);
	mk_entry(b, F_BAR, base + 200);
}

/*
 * lost: main { foo { bar { -- 7 lost, page resumes at depth 1 -- baz(); }
 * then 2 more lost and a page at depth 1 whose exit has no entry.
 */
static inline int mk_lost(struct ft_writer *w, int compress)
{
	struct mk_buf b;
	int ret;

	mk_main_foo_bar(&b, 4 * S);
	mk_page(&b, 4 * S + 10000, 7, 1);
	mk_entry(&b, F_BAZ, 4 * S + 11000);
	mk_exit(&b, 4 * S + 11200);
	mk_exit(&b, 4 * S + 20000);
	mk_page(&b, 4 * S + 30000, 2, 1);
	mk_exit(&b, 4 * S + 31000);
	ret = mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/*
 * lostloop: main { foo { -- 6 lost, a page at the same depth 2 -- }, then
 * foo() whole and main's exit.  The first exit after the loss is not the
 * foo call entered before it (a later call of foo in a loop, or another
 * function, may have been entered at that depth): neither it nor main's
 * exit pairs with an entry from before the loss.
 */
static inline int mk_lostloop(struct ft_writer *w, int compress)
{
	struct mk_buf b;
	int ret;

	mk_init(&b, 0, 1000, 1000, 0);
	mk_page(&b, 6 * S, 0, 0);
	mk_entry(&b, F_MAIN, 6 * S);
	mk_entry(&b, F_FOO, 6 * S + 100);
	mk_page(&b, 6 * S + 50000, 6, 2);
	mk_exit(&b, 6 * S + 50100);
	mk_entry(&b, F_FOO, 6 * S + 50200);
	mk_exit(&b, 6 * S + 50300);
	mk_exit(&b, 6 * S + 60000);
	ret = mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/* unwind: a longjmp out of foo/bar, an fid beyond 18 bits, a 2^31 ns call. */
static inline int mk_unwind(struct ft_writer *w, int compress)
{
	struct mk_buf b;
	int ret;

	mk_main_foo_bar(&b, 5 * S);
	mk_at(&b, 5 * S + 5000);
	mk_u32(&b, FT_EXT_UNWIND, 2);
	mk_entry(&b, 300000, 5 * S + 6000);
	mk_exit(&b, 5 * S + 6000 + (1ull << 31));
	mk_exit(&b, 5 * S + 7000 + (1ull << 31));
	ret = mk_flush(&b, w, compress);
	mk_free(&b);
	return ret;
}

/* One item: head and data (padded). */
static inline void mk_arg_item(struct mk_buf *p, unsigned int fmt, unsigned int loc,
			       unsigned int idx, unsigned int flags, const void *d, size_t n)
{
	uint32_t zero = 0;

	mk_word(p, ft_arg_head(fmt, loc, idx, flags, (unsigned int)n));
	mk_put(p, d, n);
	mk_put(p, &zero, (4 - n % 4) % 4);
}

static const char mk_arg_specs[] = "foo@a=arg1/i32,s=arg2/s,c=arg3/e:color,big=struct/{40}\n"
				   "#enum color 0=RED,1=GREEN,7=BLUE\n"
				   "bar@retval/i32\n"
				   "baz@arg1/x64,fparg1/f32,retval/f64\n";

/*
 * args: main { foo(a=-2, s="hi\n", c=BLUE, big={...}(40B)) { bar() = -1; } = ...
 * baz(0xdead, 0.25) = 1.5 } with one more foo: a bad string and a cut one.
 */
static inline int mk_args(struct ft_writer *w, int compress)
{
	struct mk_buf b, p;
	int32_t a = -2, r = -1, e = 7;
	uint32_t size = 40;
	uint64_t x = 0xdead, bad = 0x10;
	float fl = 0.25f;
	double d = 1.5;
	int ret;

	ret = ft_writer_add(w, FT_SEC_ARGSPEC, 0, mk_arg_specs, strlen(mk_arg_specs), 0);
	mk_init(&b, 0, 1000, 1000, 0);
	mk_page(&b, S, 0, 0);
	mk_entry(&b, F_MAIN, S);
	mk_entry(&b, F_FOO, S + 1000);
	memset(&p, 0, sizeof(p));
	mk_arg_item(&p, FT_AF_I32, FT_AL_INT, 0, 0, &a, 4);
	mk_arg_item(&p, FT_AF_STR, FT_AL_INT, 1, 0, "hi\n", 3);
	mk_arg_item(&p, FT_AF_ENUM, FT_AL_INT, 2, 0, &e, 4);
	mk_arg_item(&p, FT_AF_STRUCT, FT_AL_STACK, 0, 0, &size, 4);
	mk_ext(&b, FT_EXT_ARGS, p.data, p.len);
	mk_entry(&b, F_BAR, S + 2000);
	mk_exit(&b, S + 3000);
	p.len = 0;
	mk_arg_item(&p, FT_AF_I32, FT_AL_RET, 0, 0, &r, 4);
	mk_ext(&b, FT_EXT_RETVAL, p.data, p.len);
	mk_exit(&b, S + 4000);
	mk_entry(&b, F_BAZ, S + 5000);
	p.len = 0;
	mk_arg_item(&p, FT_AF_X64, FT_AL_INT, 0, 0, &x, 8);
	mk_arg_item(&p, FT_AF_F32, FT_AL_FP, 0, 0, &fl, 4);
	mk_ext(&b, FT_EXT_ARGS, p.data, p.len);
	mk_exit(&b, S + 6000);
	p.len = 0;
	mk_arg_item(&p, FT_AF_F64, FT_AL_RET, 0, 0, &d, 8);
	mk_ext(&b, FT_EXT_RETVAL, p.data, p.len);
	mk_entry(&b, F_FOO, S + 7000);
	p.len = 0;
	mk_arg_item(&p, FT_AF_I32, FT_AL_INT, 0, 0, &a, 4);
	mk_arg_item(&p, FT_AF_STR, FT_AL_INT, 1, FT_ARGH_BAD, &bad, 8);
	mk_arg_item(&p, FT_AF_STR, FT_AL_INT, 5, FT_ARGH_TRUNC, "abc\"", 4);
	mk_ext(&b, FT_EXT_ARGS, p.data, p.len);
	mk_exit(&b, S + 8000);
	mk_exit(&b, S + 9000);
	ret |= mk_flush(&b, w, compress);
	mk_free(&b);
	mk_free(&p);
	return ret;
}

#endif
