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
	uint64_t total, self, calls;
	int timed;
	char *name;
	const char *obj; /* --object: the object's file name ("?": unknown) */
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
	struct byarg r = { 0 };
	struct ft_callsums sums = { 0 };
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
	if (r.by) {
		sums.row = row_of_value;
		sums.rows_at_exit = r.by_ret;
		sums.arg = &r;
	}
	/* sums per function: the order across threads does not matter */
	if (ft_trace_call_sums(t, &sums, err, sizeof(err)) < 0)
		ft_die_file(input, err);

	out = ft_calloc(sums.nr_fn + r.nr_xr + 1, sizeof(*out));
	for (size_t i = 0; i < sums.nr_fn; i++) {
		char name[512];

		if (!sums.fn[i].calls && !sums.fn[i].timed)
			continue;
		out[n] = row_out(&sums.fn[i]);
		out[n].name = ft_strdup(ft_trace_func_name(t, (uint32_t)i, 0, name, sizeof(name)));
		out[n].obj = object_of(t, (uint32_t)i);
		n++;
	}
	for (size_t i = 0; i < r.nr_xr; i++) {
		char name[512], row[1200];

		ft_trace_func_name(t, r.xfid[i], 0, name, sizeof(name));
		if (r.by_ret)
			snprintf(row, sizeof(row), "%s() = %s", name, r.xval[i]);
		else
			snprintf(row, sizeof(row), "%s(%s=%s)", name, r.by, r.xval[i]);
		out[n] = row_out(&sums.x[i]);
		out[n].name = ft_strdup(row);
		out[n].obj = object_of(t, r.xfid[i]);
		n++;
		free(r.xval[i]);
	}
	if (sums.unknown.calls) {
		out[n] = row_out(&sums.unknown);
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

		ft_callsum_time_cell(tot, sizeof(tot), out[i].total, out[i].timed);
		ft_callsum_time_cell(self, sizeof(self), out[i].self, out[i].timed);
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
	ft_callsums_free(&sums);
	free(r.xfid);
	free(r.xval);
	ft_htab_free(&r.vr);
	ft_argfmt_free(r.af);
	ft_trace_close(t);
	return 0;
}
