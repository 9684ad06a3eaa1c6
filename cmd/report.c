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
 * The sums are analysis/callsum.h's.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/argspec.h"
#include "analysis/argfmt.h"
#include "analysis/callsum.h"
#include "analysis/trace.h"
#include "core/hashtab.h"
#include "core/util.h"

const char cmd_report_usage[] =
	"usage: ftrail report [-i FILE] [-s total|self|calls|name|object] [--object]\n"
	"                     [--diff BASE]\n"
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
			"                   that captured it (record -A / --retval / -O funcgraph-args)\n"
			"  --diff BASE      compare with the trace BASE, function by function (by\n"
			"                   name): base, new and new - base of each column, the\n"
			"                   largest change of the sort key (-s) first, as uftrace\n"
			"                   report --diff\n";

struct fstat {
	uint64_t total, self, calls;
	int timed;
	char *name;
	const char *obj; /* --object: the object's file name ("?": unknown); owned */
};

/* A row by argument value: fid and value text. */
struct vrow {
	struct ft_hentry h; /* first (hashtab.h): key the hash of fid and value */
	uint32_t row;
};

/* --by-arg: the rows by value (the sums are in ft_callsums' x[]) */
struct byarg {
	const char *by;
	int by_ret; /* by the return value: rows chosen at the exit */
	struct ft_argfmt *af;
	struct ft_trace *t;
	uint32_t *xfid; /* per row: its function */
	char **xval;	/* per row: its value */
	size_t nr_xr;
	struct ft_htab vr; /* struct vrow */
};

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

struct vkey {
	uint32_t fid;
	const char *value;
};

static const struct byarg *eq_byarg; /* vrow_eq()'s rows (single-threaded) */

static int vrow_eq(const void *entry, const void *key)
{
	const struct vrow *v = entry;
	const struct vkey *k = key;

	return eq_byarg->xfid[v->row] == k->fid && !strcmp(eq_byarg->xval[v->row], k->value);
}

/*
 * The row of the call ev belongs to (at_exit: ev is its exit; the sums'
 * row hook, called for calls that captured something): -1 for its
 * function's own, else the index of its (function, value) row.
 */
static int64_t row_of_value(void *arg, const struct ft_event *ev, int at_exit)
{
	struct byarg *r = arg;
	struct pick p = { r->by, "", 0 };
	struct vrow *v;
	uint64_t h = 1469598103934665603ull; /* FNV-1a */
	int created;

	if (at_exit != r->by_ret)
		return -1;
	if (!r->af) {
		r->af = ft_argfmt_new(r->t);
		if (!r->af)
			ft_die("out of memory");
	}
	if (ft_argfmt_each(r->af, ev->fid, ev->data, ev->len, at_exit, pick_fn, &p) < 0 || !p.found)
		return -1;
	h = (h ^ ev->fid) * 1099511628211ull;
	for (const char *c = p.value; *c; c++)
		h = (h ^ (unsigned char)*c) * 1099511628211ull;
	if (!r->vr.tab && ft_htab_init(&r->vr, sizeof(struct vrow)) < 0)
		ft_die("out of memory");
	eq_byarg = r;
	v = ft_htab_get_eq(&r->vr, h, vrow_eq, &(struct vkey){ ev->fid, p.value }, 1, &created);
	if (!v)
		ft_die("out of memory");
	if (created) {
		r->xfid = ft_realloc(r->xfid, (r->nr_xr + 1) * sizeof(*r->xfid));
		r->xval = ft_realloc(r->xval, (r->nr_xr + 1) * sizeof(*r->xval));
		r->xfid[r->nr_xr] = ev->fid;
		r->xval[r->nr_xr] = ft_strdup(p.value);
		v->row = (uint32_t)r->nr_xr++;
	}
	return v->row;
}

/* A row of the output from its sums. */
static struct fstat row_out(const struct ft_callsum *c)
{
	return (struct fstat){
		.total = c->total, .self = c->self, .calls = c->calls, .timed = c->timed
	};
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

/* A report's rows. */
struct rows {
	struct fstat *v;
	size_t n;
	uint64_t lost;
};

/*
 * The rows of the trace at input: per function (and per --by-arg value
 * when r->by), names and object names copied.
 */
static void collect(const char *input, struct byarg *r, struct rows *out)
{
	struct ft_callsums sums = { 0 };
	struct ft_trace *t;
	char err[1024];
	size_t n = 0;

	t = ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	r->t = t;
	if (r->by) {
		sums.row = row_of_value;
		sums.rows_at_exit = r->by_ret;
		sums.arg = r;
	}
	/* sums per function: the order across threads does not matter */
	if (ft_trace_call_sums(t, &sums, err, sizeof(err)) < 0)
		ft_die_file(input, err);

	out->v = ft_calloc(sums.nr_fn + r->nr_xr + 1, sizeof(*out->v));
	for (size_t i = 0; i < sums.nr_fn; i++) {
		char name[512];

		if (!sums.fn[i].calls && !sums.fn[i].timed)
			continue;
		out->v[n] = row_out(&sums.fn[i]);
		out->v[n].name =
			ft_strdup(ft_trace_func_name(t, (uint32_t)i, 0, name, sizeof(name)));
		out->v[n].obj = ft_strdup(object_of(t, (uint32_t)i));
		n++;
	}
	for (size_t i = 0; i < r->nr_xr; i++) {
		char name[512], row[1200];

		ft_trace_func_name(t, r->xfid[i], 0, name, sizeof(name));
		if (r->by_ret)
			snprintf(row, sizeof(row), "%s() = %s", name, r->xval[i]);
		else
			snprintf(row, sizeof(row), "%s(%s=%s)", name, r->by, r->xval[i]);
		out->v[n] = row_out(&sums.x[i]);
		out->v[n].name = ft_strdup(row);
		out->v[n].obj = ft_strdup(object_of(t, r->xfid[i]));
		n++;
		free(r->xval[i]);
	}
	if (sums.unknown.calls) {
		out->v[n] = row_out(&sums.unknown);
		out->v[n].name = ft_strdup("?");
		out->v[n].obj = ft_strdup("?");
		n++;
	}
	out->n = n;
	out->lost = ft_trace_nr_lost(t);
	ft_callsums_free(&sums);
	free(r->xfid);
	free(r->xval);
	r->xfid = NULL;
	r->xval = NULL;
	r->nr_xr = 0;
	ft_htab_free(&r->vr);
	memset(&r->vr, 0, sizeof(r->vr));
	ft_argfmt_free(r->af);
	r->af = NULL;
	ft_trace_close(t);
	r->t = NULL;
}

static void free_rows(struct rows *rs)
{
	for (size_t i = 0; i < rs->n; i++) {
		free(rs->v[i].name);
		free((char *)rs->v[i].obj);
	}
	free(rs->v);
}

static void print_rows(const struct rows *rs, int objects)
{
	if (objects) {
		printf("  Total time   Self time       Calls  Object                Function\n");
		printf("  ==========  ==========  ==========  ====================  "
		       "====================\n");
	} else {
		printf("  Total time   Self time       Calls  Function\n");
		printf("  ==========  ==========  ==========  ====================\n");
	}
	for (size_t i = 0; i < rs->n; i++) {
		const struct fstat *f = &rs->v[i];
		char tot[32], self[32];

		ft_callsum_time_cell(tot, sizeof(tot), f->total, f->timed);
		ft_callsum_time_cell(self, sizeof(self), f->self, f->timed);
		printf("  %10s  %10s  %10llu  ", tot, self, (unsigned long long)f->calls);
		if (objects)
			printf("%-20s  ", f->obj);
		printf("%s\n", f->name);
	}
}

/* --diff: a function's row in the base and in the new trace (NULL: absent). */
struct drow {
	const struct fstat *base, *cur;
	int64_t dtotal, dself, dcalls;
};

static int cmp_name(const void *a, const void *b)
{
	const struct fstat *x = a, *y = b;

	return strcmp(x->name, y->name);
}

static int cmp_drow(const void *a, const void *b)
{
	const struct drow *x = a, *y = b;
	int64_t kx, ky;

	switch (sort_key) {
	case 1:
		kx = llabs(x->dself), ky = llabs(y->dself);
		break;
	case 2:
		kx = llabs(x->dcalls), ky = llabs(y->dcalls);
		break;
	case 3:
		kx = ky = 0;
		break;
	default:
		kx = llabs(x->dtotal), ky = llabs(y->dtotal);
	}
	if (kx != ky)
		return kx > ky ? -1 : 1;
	return strcmp((x->cur ? x->cur : x->base)->name, (y->cur ? y->cur : y->base)->name);
}

/* A time cell of one side: blank when the function is absent there or untimed. */
static void side_cell(char *buf, size_t len, const struct fstat *f, int self)
{
	ft_callsum_time_cell(buf, len, f ? (self ? f->self : f->total) : 0, f && f->timed);
}

/* A signed difference of times: "+1.234 ms", "-0.027 us", "0" when equal. */
static void diff_cell(char *buf, size_t len, int64_t d, int timed)
{
	char mag[32];

	if (!timed) {
		snprintf(buf, len, "%s", "");
		return;
	}
	if (!d) {
		snprintf(buf, len, "%s", "0");
		return;
	}
	ft_callsum_time_cell(mag, sizeof(mag), (uint64_t)llabs(d), 1);
	snprintf(buf, len, "%c%s", d < 0 ? '-' : '+', mag);
}

/*
 * report --diff BASE: both traces' rows side by side by function name,
 * with new - base, the largest changes of the sort key first (as uftrace
 * report --diff).
 */
static void print_diff(const char *base_path, const char *input, struct rows *base,
		       struct rows *cur)
{
	struct drow *d = ft_calloc(base->n + cur->n + 1, sizeof(*d));
	size_t n = 0, i = 0, j = 0;

	qsort(base->v, base->n, sizeof(*base->v), cmp_name);
	qsort(cur->v, cur->n, sizeof(*cur->v), cmp_name);
	while (i < base->n || j < cur->n) {
		int c = i == base->n  ? 1
			: j == cur->n ? -1
				      : strcmp(base->v[i].name, cur->v[j].name);
		const struct fstat *b = c <= 0 ? &base->v[i++] : NULL;
		const struct fstat *f = c >= 0 ? &cur->v[j++] : NULL;

		d[n].base = b;
		d[n].cur = f;
		d[n].dtotal = (int64_t)(f ? f->total : 0) - (int64_t)(b ? b->total : 0);
		d[n].dself = (int64_t)(f ? f->self : 0) - (int64_t)(b ? b->self : 0);
		d[n].dcalls = (int64_t)(f ? f->calls : 0) - (int64_t)(b ? b->calls : 0);
		n++;
	}
	qsort(d, n, sizeof(*d), cmp_drow);
	printf("# %s against the base %s (diff: %s - base)\n#\n", input, base_path, input);
	printf("  %-34s  %-34s  %-32s  Function\n", "Total time (base, new, diff)",
	       "Self time (base, new, diff)", "Calls (base, new, diff)");
	printf("  ==================================  ==================================  "
	       "================================  ====================\n");
	for (size_t k = 0; k < n; k++) {
		const struct fstat *b = d[k].base, *f = d[k].cur;
		int timed = (b && b->timed) || (f && f->timed);
		char bt[32], ft[32], dt[40], bs[32], fs[32], ds[40], bc[24], fc[24];

		side_cell(bt, sizeof(bt), b, 0);
		side_cell(ft, sizeof(ft), f, 0);
		diff_cell(dt, sizeof(dt), d[k].dtotal, timed);
		side_cell(bs, sizeof(bs), b, 1);
		side_cell(fs, sizeof(fs), f, 1);
		diff_cell(ds, sizeof(ds), d[k].dself, timed);
		snprintf(bc, sizeof(bc), b ? "%llu" : "-", b ? (unsigned long long)b->calls : 0ULL);
		snprintf(fc, sizeof(fc), f ? "%llu" : "-", f ? (unsigned long long)f->calls : 0ULL);
		printf("  %10s  %10s  %10s  %10s  %10s  %10s  %10s %10s %+10lld  %s\n", bt, ft, dt,
		       bs, fs, ds, bc, fc, (long long)d[k].dcalls, (f ? f : b)->name);
	}
	if (base->lost || cur->lost)
		printf("\n  (events were lost: %llu in the base, %llu in %s: totals are incomplete)\n",
		       (unsigned long long)base->lost, (unsigned long long)cur->lost, input);
	free(d);
}

int cmd_report(int argc, char **argv)
{
	static const struct option longopts[] = {
		FT_NO_DEMANGLE_LONGOPT,
		{ "input", required_argument, NULL, 'i' },
		{ "sort", required_argument, NULL, 's' },
		{ "by-arg", required_argument, NULL, 'B' },
		{ "object", no_argument, NULL, 'b' },
		{ "diff", required_argument, NULL, 'd' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "ftrail.dat", *base_path = NULL;
	struct byarg r = { 0 };
	struct rows rows = { 0 }, base = { 0 };
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
		case 'd':
			base_path = optarg;
			break;
		default:
			ft_shared_option("report", c, argv);
		}
	}
	ft_no_operands("report", argc, argv, "the trace file is given with -i");
	if (base_path && objects)
		ft_die("report: --diff compares functions by name; --object and -s object do not "
		       "apply");
	collect(input, &r, &rows);
	if (base_path) {
		collect(base_path, &r, &base);
		print_diff(base_path, input, &base, &rows);
		free_rows(&base);
	} else {
		qsort(rows.v, rows.n, sizeof(*rows.v), cmp_stat);
		print_rows(&rows, objects);
		if (rows.lost)
			printf("\n  (%llu events were lost: totals are incomplete)\n",
			       (unsigned long long)rows.lost);
	}
	if (fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	free_rows(&rows);
	return 0;
}
