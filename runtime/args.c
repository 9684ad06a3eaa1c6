// SPDX-License-Identifier: GPL-2.0
/*
 * Argument and return-value capture (core/argspec.h) for the functions a
 * spec line names.
 *
 * Control path (rt.lock held): rt_args_parse() copies the session's spec
 * text and parses it; rt_args_eval() picks a function's lines (the last
 * matching line with arguments, the last with a return value) and returns
 * the RF_ARGS / RF_RETVAL flags -- every other function keeps the
 * assembly fast paths and its 8 bytes per call.  A line whose items are
 * all integer registers also gets a plan (struct rt_argplan: its record
 * words but the values, computed here once), which the hooks' C fast path
 * follows with no lookup and no call (hooks.c, fast_entry / fast_exit);
 * strings, floats, structs and --filter take the general path below.
 *
 * Hook path: rt_args_capture() / rt_retval_capture() encode the values
 * from the registers the trampolines saved.  No allocation, no lock; the
 * one system call is for strings: a pointer argument may be NULL, unmapped
 * or hostile, and dereferencing it would crash the program, so the string
 * is copied with process_vm_readv() on our own pid, which fails (EFAULT)
 * instead of faulting.  Copying at the call, not reading the pointer later
 * from the recorder, is what makes the value right: the memory may change
 * or be freed before the recorder could read it.  The cost (one syscall,
 * about 0.3-1 us) is paid only by string arguments.  The read stops at the
 * end of the page the string starts in and, when no NUL was found there,
 * goes on into the next one as a second piece: a string that ends just
 * before an unmapped page is still read whole.
 *
 * Filters ('%FUNC: EXPR' lines, record --filter): the calls of FUNC whose
 * arguments fail EXPR are not recorded.  The expression is compiled (core/
 * filter.c, control path) against FUNC's argument items as fields -- each
 * a u64 / s64 at 8 * its position, strings as data_loc words into the
 * bytes that follow -- and run at the entry on a record built from the
 * captured payload (rt_args_match(), no allocation).
 *
 * Specs are parsed once per control generation whose text changed; the
 * arrays and filters of an earlier parse are kept (never freed): a hook
 * of another thread may still be reading one.
 */
#include <string.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <unistd.h>

#include <stdio.h>
#include <stdlib.h>

#include "core/argspec.h"
#include "core/filter.h"
#include "core/glob.h"
#include "core/record.h"
#include "runtime/rt.h"

/* A spec line as the hooks use it. */
struct rt_cap_item {
	uint8_t fmt, loc, idx, w; /* w: ft_arg_fmt_width(fmt), 0 for strings, structs */
	uint32_t size;
};

struct rt_cap {
	const char *glob; /* into the copied text */
	uint32_t glob_len;
	uint8_t nargs, has_ret, matched, quiet; /* quiet: no warning when unmatched */
	struct rt_cap_item args[FT_ARG_MAX];
	struct rt_cap_item ret;
	const char *line; /* the line (NUL-terminated), for filters' field names */
	/* the same items for the hooks' fast path (rt_args_plan); n = 0: none */
	struct rt_argplan aplan, rplan;
};

struct rt_flt {
	const char *glob;
	uint32_t glob_len;
	const char *expr; /* NUL-terminated in the copied text */
};

static const char *raw;	    /* the spec text in force (mmap'ed, kept) */
static struct rt_cap *caps; /* its lines (mmap'ed, kept) */
static uint32_t nr_caps;
static struct rt_flt *flts; /* its '%' lines */
static uint32_t nr_flts;

/* compiled filters: (spec line, filter line) -> filter, NULL when it did not compile */
#define RT_FCACHE 256
static struct {
	uint32_t cap, flt, gen;
	struct ft_filter *f;
} fcache[RT_FCACHE];
static uint32_t nr_fcache, parse_gen;

/*
 * The fast path's plan of items it (n of them, of record type type), when
 * every one is an integer register: the head words and the record's EXT
 * word computed here once, so that the hook only copies registers.  Else
 * p->n stays 0 and the general path (put_item) captures them.
 */
static void plan_items(struct rt_argplan *p, const struct rt_cap_item *it, uint32_t n,
		       uint32_t type)
{
	uint32_t nw = 0;

	p->n = 0;
	for (uint32_t i = 0; i < n; i++) {
		int ret = it[i].loc == FT_AL_RET;

		if (!it[i].w || (it[i].loc != FT_AL_INT && !ret) || it[i].fmt == FT_AF_F32 ||
		    it[i].fmt == FT_AF_F64)
			return;
		p->head[i] = ft_arg_head(it[i].fmt, it[i].loc, it[i].idx, 0, it[i].w);
		p->reg[i] = ret ? 0 : it[i].idx;
		p->wide[i] = it[i].w > 4;
		nw += 2u + p->wide[i]; /* the same bytes as put_item() writes */
	}
	p->ext = ft_rec_ext(type, nw, 0);
	p->nw = nw;
	p->n = n;
}

const struct rt_argplan *rt_args_plan(const struct rt_cap *c, int ret)
{
	const struct rt_argplan *p = c ? ret ? &c->rplan : &c->aplan : NULL;

	return p && p->n ? p : NULL;
}

/* Parse the session's spec text when it changed.  Caller holds rt.lock. */
void rt_args_parse(void)
{
	const char *src = rt.ctl->args;
	size_t len = strnlen(src, FT_SESSION_ARGS_MAX), n = 0;
	struct rt_cap *nc;
	struct rt_flt *nf;
	uint32_t nnf = 0;
	int quiet = 0;
	char *nt;

	if (raw ? !strncmp(raw, src, len + 1) : !len)
		return;
	nt = rt_mmap_anon(2 * (len + 1));
	if (!nt)
		return;
	memcpy(nt, src, len);
	nt[len] = 0;
	memcpy(nt + len + 1, src, len); /* the raw text, to see the next change */
	nt[2 * len + 1] = 0;
	for (size_t i = 0; i < len; i++)
		n += nt[i] == '\n';
	nc = rt_mmap_anon((n + 1) * sizeof(*nc));
	nf = rt_mmap_anon((n + 1) * sizeof(*nf));
	if (!nc || !nf)
		return;
	n = 0;
	for (size_t i = 0; i < len; i++) /* one NUL-terminated line each */
		if (nt[i] == '\n')
			nt[i] = 0;
	for (char *p = nt, *end = nt + len; p < end; p += strlen(p) + 1) {
		struct ft_arg_spec sp;
		size_t pos, l = strlen(p);
		char err[96];

		if (p[0] == '%') {
			char *colon = (char *)ft_glob_sep(p);

			if (colon) {
				nf[nnf].glob = p + 1;
				nf[nnf].glob_len = (uint32_t)(colon - p - 1);
				nf[nnf].expr = colon + 1;
				nnf++;
			}
			continue;
		}
		if (!strcmp(p, "#quiet") || !strcmp(p, "#warn"))
			quiet = p[1] == 'q';
		if (p[0] == '#' || !l)
			continue;
		if (ft_argspec_parse(p, l, FT_ARGSPEC_ANY, &sp, &pos, err, sizeof(err))) {
			char line[256];

			snprintf(line, sizeof(line), "argument spec '%.*s': at position %zu: %s",
				 (int)(l > 120 ? 120 : l), p, pos + 1, err);
			ft_session_msg(rt.sess, line);
			continue;
		}
		nc[n].glob = sp.glob;
		nc[n].glob_len = (uint32_t)sp.glob_len;
		nc[n].nargs = sp.nargs;
		nc[n].has_ret = sp.has_ret;
		for (int i = 0; i < sp.nargs; i++)
			nc[n].args[i] = (struct rt_cap_item){
				sp.args[i].fmt, sp.args[i].loc, sp.args[i].idx,
				(uint8_t)ft_arg_fmt_width(sp.args[i].fmt), sp.args[i].size
			};
		nc[n].ret = (struct rt_cap_item){ sp.ret.fmt, sp.ret.loc, sp.ret.idx,
						  (uint8_t)ft_arg_fmt_width(sp.ret.fmt),
						  sp.ret.size };
		plan_items(&nc[n].aplan, nc[n].args, nc[n].nargs, FT_EXT_ARGS);
		plan_items(&nc[n].rplan, &nc[n].ret, nc[n].has_ret, FT_EXT_RETVAL);
		nc[n].line = p;
		nc[n].quiet = (uint8_t)quiet;
		n++;
	}
	/* the old arrays stay mapped: see the top of the file */
	raw = nt + len + 1;
	caps = nc;
	nr_caps = (uint32_t)n;
	flts = nf;
	nr_flts = nnf;
	parse_gen++;
}

/*
 * The spec lines of f: *args / *ret (NULL: none), and its --filter (NULL:
 * none).  Returns RF_ARGS | RF_RETVAL as they apply.  Caller holds rt.lock.
 */
/*
 * The filter of spec line ci for filter line fi, compiled once per parse
 * (NULL when it does not compile: warned, the calls are all recorded).
 */
static const struct ft_filter *filter_for(uint32_t ci, uint32_t fi)
{
	struct ftrail_field *fl;
	struct ft_filter_err e;
	struct ft_arg_spec sp;
	struct ft_filter *flt;
	size_t pos, nf = 0;
	char err[96], line[400];

	for (uint32_t i = 0; i < nr_fcache; i++)
		if (fcache[i].cap == ci && fcache[i].flt == fi && fcache[i].gen == parse_gen)
			return fcache[i].f;
	if (ft_argspec_parse(caps[ci].line, strlen(caps[ci].line), FT_ARGSPEC_ANY, &sp, &pos, err,
			     sizeof(err)))
		return NULL;
	/* fields: each item by its name and as argN / fpargN; kept for good (control path) */
	fl = calloc(2 * FT_ARG_MAX, sizeof(*fl));
	if (!fl)
		return NULL;
	for (int i = 0; i < sp.nargs; i++) {
		const struct ft_arg_item *it = &sp.args[i];
		uint16_t type;
		char reg[16];

		switch (it->fmt) {
		case FT_AF_I8:
		case FT_AF_I16:
		case FT_AF_I32:
		case FT_AF_I64:
		case FT_AF_ENUM:
			type = FTRAIL_T_S64;
			break;
		case FT_AF_STR:
			type = FTRAIL_T_STRING;
			break;
		case FT_AF_F32:
		case FT_AF_F64:
		case FT_AF_STRUCT:
			continue; /* no integer to compare */
		default:
			type = FTRAIL_T_U64;
		}
		snprintf(reg, sizeof(reg), "%s%u", it->loc == FT_AL_FP ? "fparg" : "arg",
			 it->idx + 1);
		fl[nf++] = (struct ftrail_field){ strdup(reg), type, (uint16_t)(8 * i),
						  type == FTRAIL_T_STRING ? 4 : 8,
						  type == FTRAIL_T_S64 };
		if (it->name[0])
			fl[nf++] = (struct ftrail_field){ strdup(it->name), type, (uint16_t)(8 * i),
							  type == FTRAIL_T_STRING ? 4 : 8,
							  type == FTRAIL_T_S64 };
	}
	flt = ft_filter_compile(flts[fi].expr, fl, nf, &e);
	if (!flt) {
		snprintf(line, sizeof(line), "--filter '%.*s:%.100s': at position %d: %s",
			 (int)(flts[fi].glob_len > 60 ? 60 : flts[fi].glob_len), flts[fi].glob,
			 flts[fi].expr, e.pos + 1, e.msg);
		ft_session_msg(rt.sess, line);
	}
	if (nr_fcache < RT_FCACHE)
		fcache[nr_fcache++] = (typeof(fcache[0])){ ci, fi, parse_gen, flt };
	return flt;
}

uint16_t rt_args_eval(const struct rt_func *f, const struct rt_cap **args,
		      const struct rt_cap **ret, const struct ft_filter **flt,
		      struct rt_name_memo *memo)
{
	uint32_t fi = UINT32_MAX, ai = 0, ri = 0;

	*flt = NULL;
	*args = *ret = NULL;
	for (uint32_t i = 0; i < nr_caps; i++) {
		struct rt_cap *c = &caps[i];

		if (!rt_func_glob_match(c->glob, c->glob_len, f, memo))
			continue;
		c->matched = 1;
		if (c->nargs)
			ai = i + 1;
		if (c->has_ret)
			ri = i + 1;
	}
	for (uint32_t i = 0; ai && i < nr_flts; i++)
		if (rt_func_glob_match(flts[i].glob, flts[i].glob_len, f, memo))
			fi = i;
	if (fi != UINT32_MAX)
		*flt = filter_for(ai - 1, fi);
	/* entries of an array that is never freed: see the top of the file */
	*args = ai ? &caps[ai - 1] : NULL;
	*ret = ri ? &caps[ri - 1] : NULL;
	return (uint16_t)((ai ? RF_ARGS : 0) | (ri ? RF_RETVAL : 0));
}

/* Forget which lines matched (before a pass over every function). */
void rt_args_unmark(void)
{
	for (uint32_t i = 0; i < nr_caps; i++)
		caps[i].matched = 0;
}

/* Warn about lines that named no function (the program may dlopen it later). */
void rt_args_warn_unmatched(void)
{
	for (uint32_t i = 0; i < nr_caps; i++) {
		char line[200];

		if (caps[i].matched || caps[i].quiet)
			continue;
		snprintf(line, sizeof(line), "argument spec: no function matches '%.*s'",
			 (int)(caps[i].glob_len > 120 ? 120 : caps[i].glob_len), caps[i].glob);
		ft_session_msg(rt.sess, line);
	}
}

/*
 * Does the payload (rt_args_capture() of spec line c) pass flt?
 * Builds the filter's record on the stack.  Hook path.
 */
int rt_args_match(const struct ft_filter *flt, const struct rt_cap *c, const void *payload,
		  uint32_t len)
{
	unsigned char rec[8 * FT_ARG_MAX + FT_ARG_STR_MAX + 64];
	const unsigned char *p = payload, *end = p + len;
	uint32_t tail = 8 * FT_ARG_MAX;

	if (!c)
		return 1;
	memset(rec, 0, 8 * FT_ARG_MAX);
	while (end - p >= 4) {
		uint32_t h, n, w, pos;
		uint64_t u = 0;

		memcpy(&h, p, 4);
		n = ft_argh_len(h);
		if ((uint32_t)(end - p - 4) < ((n + 3) & ~3u))
			break;
		for (pos = 0; pos < c->nargs; pos++)
			if (c->args[pos].loc == ft_argh_loc(h) &&
			    c->args[pos].idx == ft_argh_idx(h))
				break;
		w = ft_arg_fmt_width(ft_argh_fmt(h));
		if (pos < c->nargs && ft_argh_fmt(h) == FT_AF_STR && !(h & FT_ARGH_BAD) &&
		    tail + n + 1 <= sizeof(rec)) {
			uint32_t loc = (n + 1) << 16 | tail;

			memcpy(rec + tail, p + 4, n);
			rec[tail + n] = 0;
			tail += n + 1;
			memcpy(rec + 8 * pos, &loc, 4);
		} else if (pos < c->nargs && w && w <= n) {
			int64_t s;

			memcpy(&u, p + 4, w);
			s = w == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * w)) >> (64 - 8 * w);
			if (ft_argh_fmt(h) <= FT_AF_I64 || ft_argh_fmt(h) == FT_AF_ENUM)
				u = (uint64_t)s;
			memcpy(rec + 8 * pos, &u, 8);
		}
		p += 4 + ((n + 3) & ~3u);
	}
	return ft_filter_match(flt, rec, tail);
}

/*
 * Copy the C string at addr (at most cap bytes) into dst without ever
 * faulting.  Returns the bytes copied (no NUL), with *trunc set when cap
 * cut it, or -1 when addr cannot be read at all.
 */
static int read_str(uint64_t addr, char *dst, uint32_t cap, int *trunc)
{
	uint64_t page_end = (addr | 4095) + 1;
	uint32_t got = 0;

	*trunc = 0;
	if (!addr || !cap)
		return addr ? 0 : -1;
	while (got < cap) {
		uint64_t at = addr + got;
		uint32_t want = cap - got;
		struct iovec l, r;
		long n;
		char *z;

		if (at + want > page_end)
			want = (uint32_t)(page_end - at);
		l = (struct iovec){ dst + got, want };
		r = (struct iovec){ (void *)at, want };
		n = syscall(SYS_process_vm_readv, rt.pid, &l, 1UL, &r, 1UL, 0UL);
		if (n <= 0)
			return got ? (int)got : -1; /* what was read before the hole */
		z = memchr(dst + got, 0, (size_t)n);
		if (z)
			return (int)(z - dst);
		got += (uint32_t)n;
		page_end += 4096;
	}
	*trunc = 1;
	return (int)got;
}

/* One item from the value v (an integer register or a vector register's low bytes). */
static inline __attribute__((always_inline)) uint32_t put_item(unsigned char *buf, uint32_t off,
							       uint32_t cap,
							       const struct rt_cap_item *it,
							       const void *v)
{
	uint32_t w = it->w, h;

	if (likely(w)) { /* integers, chars, floats...: the head and the low w bytes */
		if (unlikely(off + 4 + 8 > cap))
			return off;
		h = ft_arg_head(it->fmt, it->loc, it->idx, 0, w);
		__builtin_memcpy(buf + off, &h, 4);
		__builtin_memcpy(buf + off + 4, v, 8); /* little endian: the low w bytes first */
		return off + 4 + ((w + 3) & ~3u);
	}
	if (it->fmt == FT_AF_STRUCT) {
		if (off + 8 > cap)
			return off;
		h = ft_arg_head(it->fmt, it->loc, it->idx, 0, 4);
		memcpy(buf + off, &h, 4);
		memcpy(buf + off + 4, &it->size, 4);
		return off + 8;
	}
	if (it->fmt == FT_AF_STR) {
		uint64_t p;
		uint32_t room;
		int trunc, n;

		memcpy(&p, v, 8);
		if (off + 12 > cap)
			return off;
		room = cap - off - 4;
		if (room > it->size)
			room = it->size;
		n = read_str(p, (char *)buf + off + 4, room, &trunc);
		if (n < 0) {
			h = ft_arg_head(it->fmt, it->loc, it->idx, FT_ARGH_BAD, 8);
			memcpy(buf + off + 4, &p, 8);
			n = 8;
		} else {
			h = ft_arg_head(it->fmt, it->loc, it->idx, trunc ? FT_ARGH_TRUNC : 0,
					(uint32_t)n);
		}
		memcpy(buf + off, &h, 4);
		while (n & 3)
			buf[off + 4 + n++] = 0;
		return off + 4 + (uint32_t)n;
	}
	return off;
}

/*
 * Encode the arguments spec line c asks for (NULL: none) from the saved
 * registers: gpr = rdi rsi rdx rcx r8 r9, xmm = xmm0..7 (16 bytes each).
 * Returns the payload's length in buf (at most cap).  Hook path.
 */
uint32_t rt_args_capture(const struct rt_cap *c, const uint64_t *gpr, const unsigned char *xmm,
			 void *buf, uint32_t cap)
{
	uint32_t off = 0;
	uint64_t zero = 0;

	if (!c)
		return 0;
	for (int i = 0; i < c->nargs; i++) {
		const struct rt_cap_item *it = &c->args[i];
		const void *v = it->loc == FT_AL_INT  ? (const void *)&gpr[it->idx]
				: it->loc == FT_AL_FP ? (const void *)(xmm + 16 * it->idx)
						      : (const void *)&zero;

		off = put_item(buf, off, cap, it, v);
	}
	return off;
}

/* The same for the return value: rax, and xmm0 for float formats.  Hook path. */
uint32_t rt_retval_capture(const struct rt_cap *c, uint64_t rax, const unsigned char *xmm0,
			   void *buf, uint32_t cap)
{
	const struct rt_cap_item *it;

	if (!c)
		return 0;
	it = &c->ret;
	return put_item(buf, 0, cap, it,
			it->fmt == FT_AF_F32 || it->fmt == FT_AF_F64 ? (const void *)xmm0
								     : (const void *)&rax);
}
