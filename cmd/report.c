// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail report: per-function total time, self time and calls, as uftrace
 * report prints them.
 *
 * Total time of a function counts each outermost activation once: a
 * recursive call inside an activation of the same function adds its calls
 * but not its time again.  Self time is the duration minus the durations of
 * the direct children.  Calls that have no exit in the trace (still running
 * at the end, or their exit was lost) count as calls without time; function
 * tracer records count as calls only.
 *
 * With --by-arg ITEM a function whose calls captured ITEM (an argument by
 * name, argN, fpargN, or retval) gets one row per value of it; rows by an
 * argument are chosen at the entry, rows by the return value at the exit
 * (a call without its exit then stays in the function's plain row).
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/argspec.h"
#include "analysis/argfmt.h"
#include "analysis/trace.h"
#include "core/hashtab.h"
#include "core/util.h"

const char cmd_report_usage[] =
	"usage: ftrail report [-i FILE] [-s total|self|calls|name|object] [--object]\n"
	"\n"
	"Per-function total time, self time and number of calls, like uftrace\n"
	"report.  Times come from function_graph entries and exits; recursion is\n"
	"counted once in the total time.  Functions recorded by the function\n"
	"tracer show their calls only.\n"
	"\n"
	"  -i FILE          trace file (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"    ") "  -s KEY           sort by total (default), self, calls, name or object\n"
			"  --object         an Object column: the file name of the object each\n"
			"                   function's code is in (a library call: its library's,\n"
			"                   as show -O sym-userobj); -s object implies it\n"
			"  --by-arg ITEM    a row per value of a captured argument (its name, argN,\n"
			"                   fpargN) or of the return value (retval), for the calls\n"
			"                   that captured it (record -A / --retval / -O funcgraph-args)\n";

struct fstat {
	uint32_t fid;
	uint64_t total, self, calls;
	int timed;
	char *name;
	const char *obj; /* --object: the object's file name ("?": unknown) */
};

struct frame {
	uint32_t fid;
	uint32_t row; /* index into the report's rows */
	uint64_t child;
};

/* A row by argument value: fid and value text. */
struct vrow {
	struct ft_hentry h; /* first (hashtab.h): key the hash of fid and value */
	uint32_t row;
};

struct bufstack {
	struct ft_hentry h; /* first (hashtab.h): key the buffer id */
	struct frame *f;
	size_t cap;
};

struct report {
	struct fstat *fs; /* indexed by fid, grown on demand */
	size_t nr_fs;
	struct fstat unknown;
	struct ft_htab bs;     /* struct bufstack, per user buffer */
	struct bufstack *last; /* the one used last (creating may move it); never NULL */
	size_t fast_fids; /* account_cb()'s fast path takes fids below: nr_fs, 0 with --by-arg */
	/* --by-arg: rows after the nr_fs per-function ones */
	const char *by;
	struct ft_argfmt *af;
	struct ft_trace *t;
	struct fstat *xr;
	char **xval; /* per extra row: its value */
	size_t nr_xr;
	struct ft_htab vr; /* struct vrow */
	int by_ret;	   /* by the return value: rows chosen at the exit */
};

/* The entries of fids up to fid, or of the unknown function (see stat_of()). */
static struct fstat *stat_grow(struct report *r, uint32_t fid)
{
	size_t n;

	if (fid == FT_FID_UNKNOWN || fid > (1u << 26))
		return &r->unknown;
	n = fid + 1 > r->nr_fs * 2 ? fid + 1 : r->nr_fs * 2;
	if (n > (1u << 26) + 1)
		n = (1u << 26) + 1; /* fids beyond count as unknown (stat_of() never sees them) */
	r->fs = ft_realloc(r->fs, n * sizeof(*r->fs));
	memset(r->fs + r->nr_fs, 0, (n - r->nr_fs) * sizeof(*r->fs));
	for (size_t i = r->nr_fs; i < n; i++)
		r->fs[i].fid = (uint32_t)i;
	r->nr_fs = n;
	r->fast_fids = r->by ? 0 : n;
	return &r->fs[fid];
}

/* The sums of fid: an array indexed by fid (fids are dense), grown on demand. */
static inline struct fstat *stat_of(struct report *r, uint32_t fid)
{
	return fid < r->nr_fs ? &r->fs[fid] : stat_grow(r, fid);
}

static struct bufstack *stack_of_slow(struct report *r, uint64_t id);

/* r->last before any buffer is seen: no frames, so account_cb() passes it on. */
static struct bufstack no_stack;

/* The frame stack of user buffer id (created on first use). */
static inline struct bufstack *stack_of(struct report *r, uint64_t id)
{
	if (r->last->h.key == id && r->last != &no_stack)
		return r->last;
	return stack_of_slow(r, id);
}

/* stack_of() of another buffer than the last one. */
static __attribute__((noinline)) struct bufstack *stack_of_slow(struct report *r, uint64_t id)
{
	struct bufstack *b;

	if (!r->bs.tab && ft_htab_init(&r->bs, sizeof(struct bufstack)) < 0)
		ft_die("out of memory");
	b = ft_htab_get(&r->bs, id, 1);
	if (!b)
		ft_die("out of memory");
	r->last = b;
	return b;
}

static struct frame *frame_grow(struct bufstack *b, size_t d)
{
	size_t n = d + 1 > b->cap * 2 ? d + 1 : b->cap * 2;

	b->f = ft_realloc(b->f, n * sizeof(*b->f));
	memset(b->f + b->cap, 0, (n - b->cap) * sizeof(*b->f));
	b->cap = n;
	return &b->f[d];
}

static inline struct frame *frame_at(struct bufstack *b, size_t d)
{
	return d < b->cap ? &b->f[d] : frame_grow(b, d);
}

struct pick {
	const char *by;
	char value[512];
	int found;
};

/* Does captured item (name, loc, idx) answer to the --by-arg selector? */
static int selected(const char *by, const char *name, unsigned int loc, unsigned int idx)
{
	char reg[16];

	if (name[0] && !strcmp(name, by))
		return 1;
	if (loc == FT_AL_RET)
		return !strcmp(by, "retval");
	snprintf(reg, sizeof(reg), "%s%u", loc == FT_AL_FP ? "fparg" : "arg", idx + 1);
	return !strcmp(reg, by);
}

static void pick_fn(void *arg, const char *name, unsigned int loc, unsigned int idx,
		    const char *value, int64_t num, int is_num)
{
	struct pick *p = arg;

	(void)num;
	(void)is_num;
	if (!p->found && selected(p->by, name, loc, idx)) {
		snprintf(p->value, sizeof(p->value), "%s", value);
		p->found = 1;
	}
}

#define XROW 0x80000000u /* a row of r->xr, not a function's own */

struct vkey {
	uint32_t fid;
	const char *value;
};

static const struct report *eq_report; /* vrow_eq()'s report (single-threaded) */

static int vrow_eq(const void *entry, const void *key)
{
	const struct vrow *v = entry;
	const struct vkey *k = key;

	return eq_report->xr[v->row].fid == k->fid && !strcmp(eq_report->xval[v->row], k->value);
}

/*
 * The row of the call ev belongs to (retval: ev is its exit): its
 * function's own (fid), unless --by-arg picks one of its captured values:
 * then XROW | the index of that (function, value) row.
 */
static uint32_t row_of_value(struct report *r, const struct ft_event *ev, int retval);

static inline uint32_t row_of(struct report *r, const struct ft_event *ev, int retval)
{
	if (!r->by || !ev->data || ev->fid == FT_FID_UNKNOWN)
		return ev->fid;
	return row_of_value(r, ev, retval);
}

/* row_of() when --by-arg may pick one of ev's captured values. */
static __attribute__((noinline)) uint32_t row_of_value(struct report *r, const struct ft_event *ev,
						       int retval)
{
	struct pick p = { r->by, "", 0 };
	struct vrow *v;
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	int created;

	if (!r->af) {
		r->af = ft_argfmt_new(r->t);
		if (!r->af)
			ft_die("out of memory");
	}
	if (ft_argfmt_each(r->af, ev->fid, ev->data, ev->len, retval, pick_fn, &p) < 0 || !p.found)
		return ev->fid;
	h = (h ^ ev->fid) * 1099511628211ull;
	for (const char *c = p.value; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	if (!r->vr.tab && ft_htab_init(&r->vr, sizeof(struct vrow)) < 0)
		ft_die("out of memory");
	eq_report = r;
	v = ft_htab_get_eq(&r->vr, h, vrow_eq, &(struct vkey){ ev->fid, p.value }, 1, &created);
	if (!v)
		ft_die("out of memory");
	if (created) {
		r->xr = ft_realloc(r->xr, (r->nr_xr + 1) * sizeof(*r->xr));
		r->xval = ft_realloc(r->xval, (r->nr_xr + 1) * sizeof(*r->xval));
		memset(&r->xr[r->nr_xr], 0, sizeof(*r->xr));
		r->xr[r->nr_xr].fid = ev->fid;
		r->xval[r->nr_xr] = ft_strdup(p.value);
		v->row = (uint32_t)r->nr_xr++;
	}
	return XROW | v->row;
}

static struct fstat *row_stat(struct report *r, uint32_t row)
{
	return row & XROW ? &r->xr[row & ~XROW] : stat_of(r, row);
}

static void account(struct report *r, const struct ft_event *ev)
{
	struct bufstack *b;
	struct frame *fr;
	struct fstat *s;
	size_t d;
	int recursive = 0;
	uint32_t row;

	switch (ev->type) {
	case FT_EV_FUNC:
		stat_of(r, ev->fid)->calls++;
		return;
	case FT_EV_ENTRY:
		row = r->by_ret ? ev->fid : row_of(r, ev, 0);
		row_stat(r, row)->calls++;
		if (ev->depth < 0)
			return;
		b = stack_of(r, ev->buffer);
		fr = frame_at(b, (size_t)ev->depth);
		fr->fid = ev->fid;
		fr->row = row;
		fr->child = 0;
		return;
	case FT_EV_EXIT:
		if (!ev->has_entry || ev->depth < 0)
			return;
		d = (size_t)ev->depth;
		b = stack_of(r, ev->buffer);
		fr = frame_at(b, d);
		if (fr->fid != ev->fid)
			return; /* depth resynchronised under us: no reliable frame */
		if (r->by_ret && ev->data) {
			/* the call moves from its function's row to its value's */
			row = row_of(r, ev, 1);
			if (row != ev->fid) {
				stat_of(r, ev->fid)->calls--;
				row_stat(r, row)->calls++;
			}
		} else {
			row = fr->row;
		}
		s = row_stat(r, row);
		s->timed = 1;
		s->self += ev->duration > fr->child ? ev->duration - fr->child : 0;
		for (size_t i = 0; i < d; i++)
			if (b->f[i].fid == ev->fid) {
				recursive = 1;
				break;
			}
		if (!recursive)
			s->total += ev->duration;
		if (d > 0)
			b->f[d - 1].child += ev->duration;
		return;
	default:
		return;
	}
}

static __attribute__((noinline)) int account_slow(struct report *r, const struct ft_event *ev)
{
	account(r, ev);
	return 0;
}

/*
 * account() for the events most traces are made of -- a plain ENTRY or
 * EXIT of the buffer used last, its function and depth already known --
 * with no call on the way, so that the compiler saves no registers for
 * it; everything else goes to account() whole.  The same sums as account().
 */
static int account_cb(const struct ft_event *ev, void *arg)
{
	struct report *r = arg;
	struct bufstack *b = r->last;
	struct frame *fr;
	struct fstat *s;
	size_t d = (size_t)(int64_t)ev->depth; /* a negative depth is beyond b->cap */

	if (__builtin_expect(b->h.key != ev->buffer || d >= b->cap || ev->fid >= r->fast_fids, 0))
		return account_slow(r, ev);
	fr = &b->f[d];
	s = &r->fs[ev->fid];
	if (ev->type == FT_EV_ENTRY) {
		s->calls++;
		fr->fid = ev->fid;
		fr->row = ev->fid;
		fr->child = 0;
		return 0;
	}
	if (ev->type != FT_EV_EXIT || !ev->has_entry || fr->fid != ev->fid)
		return account_slow(r, ev);
	s->timed = 1;
	s->self += ev->duration > fr->child ? ev->duration - fr->child : 0;
	for (size_t i = d; i--;) /* nearest first */
		if (b->f[i].fid == ev->fid)
			goto parent; /* recursion counts once in the total */
	s->total += ev->duration;
parent:
	if (d > 0)
		b->f[d - 1].child += ev->duration;
	return 0;
}

static int sort_key;

static int cmp_stat(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;

	switch (sort_key) {
	case 0:
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	case 1:
		if (x->self != y->self)
			return x->self > y->self ? -1 : 1;
		break;
	case 2:
		if (x->calls != y->calls)
			return x->calls > y->calls ? -1 : 1;
		break;
	case 4: {
		int o = strcmp(x->obj, y->obj);

		if (o)
			return o;
		if (x->total != y->total)
			return x->total > y->total ? -1 : 1;
		break;
	}
	default:
		break;
	}
	return strcmp(x->name, y->name);
}

/* The file name of fid's object (report --object), "?" when the trace does not say. */
static const char *object_of(struct ft_trace *t, uint32_t fid)
{
	const char *o = ft_trace_func_object(t, fid), *b;

	if (!o)
		return "?";
	b = strrchr(o, '/');
	return b ? b + 1 : o;
}

/* uftrace's time cell: "150.829 us", "1.234 ms", "2.000  s"; blank when untimed. */
static void time_cell(char *buf, size_t len, uint64_t ns, int timed)
{
	static const char *const units[] = { "us", "ms", " s", " m", " h" };
	static const uint64_t limit[] = { 1000, 1000, 1000, 60, 24, UINT64_MAX };
	uint64_t v = ns, rem = 0;
	size_t i;

	if (!timed) {
		snprintf(buf, len, "%s", "");
		return;
	}
	for (i = 0; i < ARRAY_SIZE(units); i++) {
		rem = v % limit[i];
		v /= limit[i];
		if (v < limit[i + 1])
			break;
	}
	if (i == ARRAY_SIZE(units))
		i--;
	snprintf(buf, len, "%llu.%03llu %s", (unsigned long long)v, (unsigned long long)rem,
		 units[i]);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		FT_NO_DEMANGLE_LONGOPT,
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "by-arg", required_argument, NULL, 'B' },
		{ "object", no_argument, NULL, 'b' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "ftrail.dat";
	struct report r = { .last = &no_stack };
	struct ft_trace *t;
	struct fstat *out;
	size_t n = 0;
	char err[1024];
	int c, objects = 0;

	while ((c = getopt_long(argc, argv, ":i:s:B:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 's':
			if (!strcmp(optarg, "total"))
				sort_key = 0;
			else if (!strcmp(optarg, "self"))
				sort_key = 1;
			else if (!strcmp(optarg, "calls"))
				sort_key = 2;
			else if (!strcmp(optarg, "name") || !strcmp(optarg, "func"))
				sort_key = 3;
			else if (!strcmp(optarg, "object"))
				sort_key = 4, objects = 1;
			else
				ft_die("report: unknown sort key '%s' (total, self, calls, name or "
				       "object)",
				       optarg);
			break;
		case 'b':
			objects = 1;
			break;
		case 'B':
			if (!*optarg || strpbrk(optarg, " ,=/@"))
				ft_die("report: --by-arg wants an argument name, argN, fpargN or "
				       "retval, not '%s'",
				       optarg);
			r.by = optarg;
			r.by_ret = !strcmp(optarg, "retval");
			break;
		default:
			ft_shared_option("report", c, argv);
		}
	}
	ft_no_operands("report", argc, argv, "the trace file is given with -i");
	t = ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	r.t = t;
	/* sums per function: the order across threads does not matter */
	if (ft_trace_scan_buffers(t, account_cb, &r, err, sizeof(err)) < 0)
		ft_die_file(input, err);

	out = ft_calloc(r.nr_fs + r.nr_xr + 1, sizeof(*out));
	for (size_t i = 0; i < r.nr_fs; i++) {
		char name[512];

		if (!r.fs[i].calls && !r.fs[i].timed)
			continue;
		out[n] = r.fs[i];
		out[n].name = ft_strdup(ft_trace_func_name(t, (uint32_t)i, 0, name, sizeof(name)));
		out[n].obj = object_of(t, (uint32_t)i);
		n++;
	}
	for (size_t i = 0; i < r.nr_xr; i++) {
		char name[512], row[1200];

		ft_trace_func_name(t, r.xr[i].fid, 0, name, sizeof(name));
		if (r.by_ret)
			snprintf(row, sizeof(row), "%s() = %s", name, r.xval[i]);
		else
			snprintf(row, sizeof(row), "%s(%s=%s)", name, r.by, r.xval[i]);
		out[n] = r.xr[i];
		out[n].name = ft_strdup(row);
		out[n].obj = object_of(t, r.xr[i].fid);
		n++;
		free(r.xval[i]);
	}
	if (r.unknown.calls) {
		out[n] = r.unknown;
		out[n].name = ft_strdup("?");
		out[n].obj = "?";
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_stat);
	if (objects) {
		printf("  Total time   Self time       Calls  Object                Function\n");
		printf("  ==========  ==========  ==========  ====================  "
		       "====================\n");
	} else {
		printf("  Total time   Self time       Calls  Function\n");
		printf("  ==========  ==========  ==========  ====================\n");
	}
	for (size_t i = 0; i < n; i++) {
		char tot[32], self[32];

		time_cell(tot, sizeof(tot), out[i].total, out[i].timed);
		time_cell(self, sizeof(self), out[i].self, out[i].timed);
		printf("  %10s  %10s  %10llu  ", tot, self, (unsigned long long)out[i].calls);
		if (objects)
			printf("%-20s  ", out[i].obj);
		printf("%s\n", out[i].name);
		free(out[i].name);
	}
	if (ft_trace_nr_lost(t))
		printf("\n  (%llu events were lost: totals are incomplete)\n",
		       (unsigned long long)ft_trace_nr_lost(t));
	if (fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	free(out);
	free(r.fs);
	free(r.xr);
	free(r.xval);
	ft_htab_free(&r.vr);
	ft_argfmt_free(r.af);
	for (size_t i = 0; r.bs.tab && i < r.bs.cap; i++) {
		struct bufstack *b = ft_htab_slot(&r.bs, i);

		if (b)
			free(b->f);
	}
	ft_htab_free(&r.bs);
	ft_trace_close(t);
	return 0;
}
