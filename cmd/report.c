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
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/symbols.h"
#include "analysis/trace.h"
#include "core/hashtab.h"
#include "core/util.h"

const char cmd_report_usage[] =
    "usage: ftrail report [-i FILE] [-s total|self|calls|name]\n"
    "\n"
    "Per-function total time, self time and number of calls, like uftrace\n"
    "report.  Times come from function_graph entries and exits; recursion is\n"
    "counted once in the total time.  Functions recorded by the function\n"
    "tracer show their calls only.\n"
    "\n"
    "  -i FILE          trace file (default ./ftrail.dat)\n"
    FT_NO_DEMANGLE_HELP
    "  -s KEY           sort by total (default), self, calls or name\n";

struct fstat {
	uint32_t fid;
	uint64_t total, self, calls;
	int timed;
	char *name;
};

struct frame {
	uint32_t fid;
	uint64_t child;
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
	struct bufstack *last; /* the one used last (creating may move it) */
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
	return &r->fs[fid];
}

/* The sums of fid: an array indexed by fid (fids are dense), grown on demand. */
static inline struct fstat *stat_of(struct report *r, uint32_t fid)
{
	return fid < r->nr_fs ? &r->fs[fid] : stat_grow(r, fid);
}

/* The frame stack of user buffer id (created on first use). */
static struct bufstack *stack_of(struct report *r, uint64_t id)
{
	struct bufstack *b;

	if (r->last && r->last->h.key == id)
		return r->last;
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

static void account(struct report *r, const struct ft_event *ev)
{
	struct bufstack *b;
	struct frame *fr;
	struct fstat *s;
	size_t d;
	int recursive = 0;

	switch (ev->type) {
	case FT_EV_FUNC:
		stat_of(r, ev->fid)->calls++;
		return;
	case FT_EV_ENTRY:
		stat_of(r, ev->fid)->calls++;
		if (ev->depth < 0)
			return;
		b = stack_of(r, ev->buffer);
		fr = frame_at(b, (size_t)ev->depth);
		fr->fid = ev->fid;
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
		s = stat_of(r, ev->fid);
		s->timed = 1;
		s->self += ev->duration > fr->child ? ev->duration - fr->child : 0;
		for (size_t i = 0; i < d && !recursive; i++)
			recursive = b->f[i].fid == ev->fid;
		if (!recursive)
			s->total += ev->duration;
		if (d > 0)
			b->f[d - 1].child += ev->duration;
		return;
	default:
		return;
	}
}

static int account_cb(const struct ft_event *ev, void *arg)
{
	account(arg, ev);
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
	default:
		break;
	}
	return strcmp(x->name, y->name);
}

/* uftrace's time cell: "150.829 us", "1.234 ms", "2.000  s"; blank when untimed. */
static void time_cell(char *buf, size_t len, uint64_t ns, int timed)
{
	static const char *const units[] = {"us", "ms", " s", " m", " h"};
	static const uint64_t limit[] = {1000, 1000, 1000, 60, 24, UINT64_MAX};
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
	    {"input", required_argument, NULL, 'i'},
	    {"sort", required_argument, NULL, 's'},
	    {NULL, 0, NULL, 0},
	};
	const char *input = "ftrail.dat";
	struct report r = {0};
	struct ft_trace *t;
	struct fstat *out;
	size_t n = 0;
	char err[1024];
	int c;

	while ((c = getopt_long(argc, argv, ":i:s:", longopts, NULL)) != -1) {
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
			else
				ft_die("report: unknown sort key '%s' (total, self, calls or name)",
				       optarg);
			break;
		case FT_OPT_NO_DEMANGLE:
			ft_symbols_set_demangle(0);
			break;
		default:
			ft_bad_option("report", c, argv);
		}
	}
	if (optind < argc)
		ft_die("report: unexpected argument '%s' (the trace file is given with -i)",
		       argv[optind]);
	t = ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	/* sums per function: the order across threads does not matter */
	if (ft_trace_scan_buffers(t, account_cb, &r, err, sizeof(err)) < 0)
		ft_die_file(input, err);

	out = ft_calloc(r.nr_fs + 1, sizeof(*out));
	for (size_t i = 0; i < r.nr_fs; i++) {
		char name[512];

		if (!r.fs[i].calls)
			continue;
		out[n] = r.fs[i];
		out[n].name = ft_strdup(ft_trace_func_name(t, (uint32_t)i, 0, name, sizeof(name)));
		n++;
	}
	if (r.unknown.calls) {
		out[n] = r.unknown;
		out[n].name = ft_strdup("?");
		n++;
	}
	qsort(out, n, sizeof(*out), cmp_stat);
	printf("  Total time   Self time       Calls  Function\n");
	printf("  ==========  ==========  ==========  ====================\n");
	for (size_t i = 0; i < n; i++) {
		char tot[32], self[32];

		time_cell(tot, sizeof(tot), out[i].total, out[i].timed);
		time_cell(self, sizeof(self), out[i].self, out[i].timed);
		printf("  %10s  %10s  %10llu  %s\n", tot, self, (unsigned long long)out[i].calls,
		       out[i].name);
		free(out[i].name);
	}
	if (ft_trace_nr_lost(t))
		printf("\n  (%llu events were lost: totals are incomplete)\n",
		       (unsigned long long)ft_trace_nr_lost(t));
	if (fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	free(out);
	free(r.fs);
	for (size_t i = 0; r.bs.tab && i < r.bs.cap; i++) {
		struct bufstack *b = ft_htab_slot(&r.bs, i);

		if (b)
			free(b->f);
	}
	ft_htab_free(&r.bs);
	ft_trace_close(t);
	return 0;
}
