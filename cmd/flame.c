// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail flame: a flame graph (SVG or HTML) or folded stacks, from a trace
 * file or from a folded-stacks file.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/export_progress.h"
#include "analysis/export_trace.h"
#include "analysis/kevents.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_file.h"
#include "analysis/trace.h"
#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "analysis/stackset.h"
#include "cmd/builtin.h"
#include "core/outfile.h"
#include "core/util.h"

const char cmd_flame_usage[] =
	"usage: ftrail flame [-i FILE] [--graph | --stacks | --offcpu] [-o OUT] [--format svg|html|folded]\n"
	"       ftrail flame --from-folded FILE [-o OUT] [--format svg|html|folded]\n"
	"\n"
	"Draw a self-contained interactive flame graph (no network access needed):\n"
	"click a frame to zoom, Reset Zoom or Escape to zoom out, Search or Ctrl-F\n"
	"to highlight frames matching a regular expression (and the share of the\n"
	"total they cover); hover for names and weights.  #search=REGEX in the URL\n"
	"searches on load.\n"
	"\n"
	"  -i FILE            trace file to read (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"      ") "  --graph            weight = self time of function_graph calls (default)\n"
			  "  --stacks           weight = number of times each recorded stack was seen\n"
			  "  --offcpu           weight = off-CPU time per stack (see ftrail offcpu)\n"
			  "  --from-folded FILE read folded stacks ('a;b;c COUNT' lines, '-' = stdin)\n"
			  "                     instead of a trace file\n"
			  "  -o FILE            output ('-' or none: standard output), written to FILE.partial\n"
			  "                     and renamed over FILE when complete\n"
			  "  -F, --format FMT   svg (an SVG picture), html (an HTML page holding it) or\n"
			  "                     folded (folded stacks, which FlameGraph, inferno and\n"
			  "                     speedscope read; streams in bounded memory); default:\n"
			  "                     html when OUT ends in .html, svg otherwise\n"
			  "                     (--html and --folded, the old spellings, still work\n"
			  "                     with a warning)\n"
			  "  --title TEXT       title of the picture\n"
			  "  --width PX         width in pixels (default 1200)\n"
			  "  --minwidth PX      frames narrower than this are merged or left out (0.1)\n"
			  "  --inverted         icicle graph: roots at the top\n"
			  "  --unit NAME        name of the weight for --from-folded (default samples;\n"
			  "                     'ns' shows weights as times)\n"
			  "  --max-memory MB    memory for aggregating stacks (default 256)\n"
			  "  --sym-userobj      --graph: a library call's frame names its library\n"
			  "                     (malloc [libc.so.6]); --stacks: user frames as\n"
			  "                     /path/of/object[+0xoffset], as ftrace's sym-userobj\n";

enum {
	OPT_GRAPH = 256,
	OPT_STACKS,
	OPT_OFFCPU,
	OPT_FROM_FOLDED,
	OPT_HTML,
	OPT_FOLDED,
	OPT_TITLE,
	OPT_WIDTH,
	OPT_MINWIDTH,
	OPT_INVERTED,
	OPT_UNIT,
	OPT_MAXMEM,
	OPT_USEROBJ,
};

static const struct option long_opts[] = {
	FT_NO_DEMANGLE_LONGOPT,
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "graph", no_argument, NULL, OPT_GRAPH },
	{ "stacks", no_argument, NULL, OPT_STACKS },
	{ "offcpu", no_argument, NULL, OPT_OFFCPU },
	{ "from-folded", required_argument, NULL, OPT_FROM_FOLDED },
	{ "html", no_argument, NULL, OPT_HTML },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "format", required_argument, NULL, 'F' },
	{ "title", required_argument, NULL, OPT_TITLE },
	{ "width", required_argument, NULL, OPT_WIDTH },
	{ "minwidth", required_argument, NULL, OPT_MINWIDTH },
	{ "inverted", no_argument, NULL, OPT_INVERTED },
	{ "unit", required_argument, NULL, OPT_UNIT },
	{ "max-memory", required_argument, NULL, OPT_MAXMEM },
	{ "sym-userobj", no_argument, NULL, OPT_USEROBJ },
	{ NULL, 0, NULL, 0 },
};

/* --format: what flame writes (the order of formats[]) */
enum flame_format {
	FMT_SVG,
	FMT_HTML,
	FMT_FOLDED
};
static const char *const formats[] = { "svg", "html", "folded", NULL };

enum flame_mode {
	MODE_GRAPH,
	MODE_STACKS,
	MODE_OFFCPU
};

static int ends_with(const char *s, const char *suf)
{
	size_t n = strlen(s), l = strlen(suf);

	return n >= l && !strcasecmp(s + n - l, suf);
}

/* Read a folded file into f, with progress by bytes when stderr is a tty.
 * Dies with one line on malformed input. */
static void read_folded(struct ft_folded *f, const char *path)
{
	struct ft_progress pr;
	char err[1024];
	int r;

	ft_progress_init(&pr, "reading folded stacks", -1);
	r = ft_folded_read(f, path, &pr, err, sizeof(err));
	ft_progress_done(&pr);
	if (r)
		ft_die("%s", err);
	/* an empty picture is no answer: say so, as for a trace with no calls */
	if (!ft_folded_count(f) && !ft_folded_flushes(f))
		ft_die("%s: no folded stacks ('a;b;c COUNT' lines) to draw",
		       strcmp(path, "-") ? path : "stdin");
}

/* --sym-userobj: library calls and user frames name their object */
static int userobj;

struct graph_ctx {
	struct ft_graphfold *g;
	uint64_t last; /* latest timestamp seen */
	int err;
};

/* ev's name, with its library's for a library call under --sym-userobj (buf) */
static const char *graph_name(const struct ft_xevent *ev, char *buf, size_t len)
{
	for (size_t i = 0; userobj && i < ev->nargs; i++)
		if (!strcmp(ev->args[i].key, "object") && ev->args[i].value) {
			snprintf(buf, len, "%s [%s]", ev->name, ev->args[i].value);
			return buf;
		}
	return ev->name;
}

/* function_graph entries/exits -> self time per stack. */
static int graph_event(const struct ft_xevent *ev, void *arg)
{
	struct graph_ctx *gc = arg;

	if (ev->ts > gc->last)
		gc->last = ev->ts;
	if (ev->type == FT_XEV_ENTRY) {
		char buf[600];

		gc->err = ft_graphfold_entry(gc->g, ev->tid, NULL, graph_name(ev, buf, sizeof(buf)),
					     ev->ts);
	} else if (ev->type == FT_XEV_EXIT)
		gc->err = ft_graphfold_exit(gc->g, ev->tid, ev->ts);
	return gc->err;
}

static uint64_t graph_from_trace(struct ft_folded *f, const char *path)
{
	struct ft_xtrace *x;
	struct graph_ctx gc = { 0 };
	struct ft_progress pr;
	struct ft_xtrace_stats xs;
	char err[1024];

	x = ft_xtrace_open(path, 0, err, sizeof(err));
	if (!x)
		ft_die_file(path, err);
	for (size_t i = 0; i < ft_xtrace_nr_warnings(x); i++)
		ft_warn("%s", ft_xtrace_warning(x, i));
	gc.g = ft_graphfold_new(f);
	if (!gc.g)
		ft_die("out of memory");
	ft_progress_init(&pr, "flame", -1);
	if (ft_xtrace_run(x, graph_event, &gc, &pr, err, sizeof(err))) {
		ft_progress_done(&pr);
		ft_die_file(path, gc.err ? strerror(errno) : err);
	}
	ft_progress_done(&pr);
	ft_xtrace_get_stats(x, &xs);
	/* calls still open when the recording ended are cut there */
	if (ft_graphfold_finish(gc.g, gc.last) < 0)
		ft_die("%s: %s", path, strerror(errno));
	ft_graphfold_free(gc.g);
	ft_xtrace_close(x);
	return xs.lost;
}

/* One unique stack (leaf first) as frame names into f, with its count as weight. */
static void add_stack(struct ft_folded *f, struct ft_trace *t, struct ft_kevents *k,
		      const struct ft_ustack *u)
{
	char **names = ft_calloc(u->nr ? u->nr : 1, sizeof(*names));
	char buf[512];

	for (uint32_t i = 0; i < u->nr; i++) {
		const char *n = NULL;
		uint64_t off;

		if (u->kind == 'k') {
			n = k ? ft_kevents_sym_name(k, u->ips[i], &off) : NULL;
			if (n)
				snprintf(buf, sizeof(buf), "%s_[k]", n);
			else
				snprintf(buf, sizeof(buf), "0x%llx_[k]",
					 (unsigned long long)u->ips[i]);
		} else if (!userobj || ft_symbols_userobj(ft_trace_symbols(t), 0, u->ips[i], buf,
							  sizeof(buf))) {
			ft_trace_addr_name(t, u->ips[i], 0, buf, sizeof(buf));
		}
		names[i] = ft_strdup(buf);
	}
	if (ft_folded_add_frames(f, (const char *const *)names, u->nr, 1, u->count) < 0)
		ft_die("adding a stack: %s", strerror(errno));
	for (uint32_t i = 0; i < u->nr; i++)
		free(names[i]);
	free(names);
}

static void count_stack(struct ft_stackset *set, char kind, const uint64_t *ips, uint32_t nr)
{
	if (ft_stackset_add(set, kind, ips, nr, 1) < 0)
		ft_die("out of memory");
}

/*
 * Every recorded stack (user records' and kernel events'), counted by
 * frames first and symbolised once per unique stack: a trace holds
 * millions of stacks but few distinct ones.
 */
static uint64_t stacks_from_trace(struct ft_folded *f, const char *path)
{
	struct ft_trace *t;
	struct ft_kevents *k;
	struct ft_event ev;
	struct ft_kevent kev;
	char err[1024] = "";
	uint64_t n = 0, lost = 0;
	struct ft_stackset set;
	int ret;

	if (ft_stackset_init(&set) < 0)
		ft_die("out of memory");
	t = ft_trace_open(path, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	k = ft_kevents_open(ft_trace_reader(t), err, sizeof(err));
	if (!k && err[0])
		ft_die_file(path, err);
	if (k)
		ft_kevents_fix_user_stacks(k, path);
	while ((ret = ft_trace_next(t, &ev, err, sizeof(err))) == 1) {
		if (ev.type == FT_EV_LOST)
			lost += ev.count;
		if (ev.type == FT_EV_STACK && ev.nr_ips) {
			count_stack(&set, 'u', ev.ips, ev.nr_ips);
			n++;
		}
	}
	if (ret < 0)
		ft_die_file(path, err);
	while (k && (ret = ft_kevents_next(k, &kev)) == 1) {
		if (kev.kind == FT_KEV_MISSED) {
			lost += kev.missed;
			continue;
		}
		if (kev.kstack_nr) {
			count_stack(&set, 'k', kev.kstack, kev.kstack_nr);
			n++;
		}
		if (kev.ustack_nr) {
			count_stack(&set, 'u', kev.ustack, kev.ustack_nr);
			n++;
		}
	}
	if (k && ret < 0)
		ft_die_file(path, ft_kevents_error(k));
	if (!n)
		ft_die("%s: no stacks recorded (record with -O stacktrace, or -T for kernel events)",
		       path);
	for (size_t i = 0; i < set.tab.cap; i++) {
		const struct ft_ustack *u = ft_htab_slot(&set.tab, i);

		if (u && u->ips)
			add_stack(f, t, k, u);
	}
	ft_stackset_free(&set);
	if (k)
		ft_kevents_close(k);
	ft_trace_close(t);
	return lost;
}

/*
 * Fill f from a trace file in the given mode; *unit gets the weight's
 * unit.  Dies with one line on any error.
 */
static void read_trace(struct ft_folded *f, const char *path, enum flame_mode mode,
		       const char **unit)
{
	char err[1024];
	uint64_t lost = 0;

	switch (mode) {
	case MODE_GRAPH:
		*unit = "ns";
		lost = graph_from_trace(f, path);
		if (!ft_folded_count(f) && !ft_folded_flushes(f))
			ft_die("%s: no function_graph calls to draw (try --stacks or --offcpu)",
			       path);
		break;
	case MODE_STACKS:
		*unit = "samples";
		lost = stacks_from_trace(f, path);
		break;
	case MODE_OFFCPU:
		*unit = "ns";
		if (ft_offcpu_fold_file(path, (uint64_t)FT_OFFCPU_DEFAULT_THRESH_MS * 1000000, 0, f,
					1, err, sizeof(err)))
			ft_die_file(path, err);
		break;
	}
	if (lost)
		ft_warn("%llu events were lost while recording: the graph misses them",
			(unsigned long long)lost);
}

int cmd_flame(int argc, char **argv)
{
	const char *input = "ftrail.dat", *output = NULL, *from_folded = NULL;
	struct ft_flame_opts o = { 0 };
	enum flame_mode mode = MODE_GRAPH;
	int fmt = -1, nmodes = 0, c;
	uint64_t maxmem = 256, width = 0;
	struct ft_folded *f;
	FILE *out;
	char err[512];

	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:F:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case 'F':
			fmt = ft_format_choose("flame", optarg, formats, fmt);
			break;
		case OPT_GRAPH:
			mode = MODE_GRAPH;
			nmodes++;
			break;
		case OPT_STACKS:
			mode = MODE_STACKS;
			nmodes++;
			break;
		case OPT_OFFCPU:
			mode = MODE_OFFCPU;
			nmodes++;
			break;
		case OPT_FROM_FOLDED:
			from_folded = optarg;
			break;
		case OPT_HTML:
			fmt = ft_format_deprecated("flame", "--html", "html", formats, fmt);
			break;
		case OPT_FOLDED:
			fmt = ft_format_deprecated("flame", "--folded", "folded", formats, fmt);
			break;
		case OPT_TITLE:
			o.title = optarg;
			break;
		case OPT_WIDTH:
			if (ft_parse_u64(optarg, 200, 100000, &width))
				ft_die("--width wants a number of pixels in [200,100000], not '%s'",
				       optarg);
			o.width = (unsigned int)width;
			break;
		case OPT_MINWIDTH: {
			char *end;

			errno = 0;
			o.min_width = strtod(optarg, &end);
			if (o.min_width == 0)
				o.min_width = 1e-12; /* 0 means the default in opts */
			if (errno || *end || end == optarg || o.min_width < 0 || o.min_width > 1000)
				ft_die("--minwidth wants pixels in [0,1000], not '%s'", optarg);
			break;
		}
		case OPT_USEROBJ:
			userobj = 1;
			break;
		case OPT_INVERTED:
			o.inverted = 1;
			break;
		case OPT_UNIT:
			o.unit = optarg;
			break;
		case OPT_MAXMEM:
			if (ft_parse_u64(optarg, 1, 1u << 20, &maxmem))
				ft_die("--max-memory wants megabytes in [1,1048576], not '%s'",
				       optarg);
			break;
		default:
			ft_shared_option("flame", c, argv);
		}
	}
	ft_no_operands("flame", argc, argv, "see ftrail flame --help");
	if (nmodes > 1)
		ft_die("flame: choose one of --graph, --stacks, --offcpu");
	if (from_folded && nmodes)
		ft_die("flame: --%s does not apply to --from-folded input",
		       mode == MODE_STACKS   ? "stacks"
		       : mode == MODE_OFFCPU ? "offcpu"
					     : "graph");
	if (fmt < 0)
		fmt = output && ends_with(output, ".html") ? FMT_HTML : FMT_SVG;
	o.html = fmt == FMT_HTML;

	f = ft_folded_new((size_t)maxmem << 20);
	if (!f)
		ft_die("out of memory");
	/* written to OUTPUT.partial, renamed over OUTPUT only once complete */
	out = ft_outstream_open(output, err, sizeof(err));
	if (!out)
		ft_die("%s", err);
	/* folded output streams: when memory runs out, what was gathered so far
	 * is written out and aggregation starts again */
	if (fmt == FMT_FOLDED)
		ft_folded_set_sink(f, out);

	if (from_folded) {
		read_folded(f, from_folded);
	} else {
		const char *unit = NULL;

		read_trace(f, input, mode, &unit);
		if (!o.unit)
			o.unit = unit;
		if (!o.title)
			o.title = mode == MODE_OFFCPU	? "Off-CPU Time Flame Graph"
				  : mode == MODE_STACKS ? "Stack Count Flame Graph"
							: "Function Call Time Flame Graph";
		o.subtitle = input;
		o.palette = mode == MODE_OFFCPU	  ? FT_PAL_IO
			    : mode == MODE_STACKS ? FT_PAL_MEM
						  : FT_PAL_HOT;
	}
	if (ft_folded_dropped_stacks(f))
		ft_warn("%llu stacks (weight %llu) did not fit in --max-memory %llu MB and are left out",
			(unsigned long long)ft_folded_dropped_stacks(f),
			(unsigned long long)ft_folded_dropped_weight(f),
			(unsigned long long)maxmem);

	if (fmt == FMT_FOLDED) {
		if (ft_folded_write(f, out))
			ft_die("write error on %s: %s", output ? output : "stdout",
			       strerror(errno));
	} else {
		struct ft_flame_stats st;

		if (!o.subtitle && from_folded)
			o.subtitle = strcmp(from_folded, "-") ? from_folded : "stdin";
		if (ft_flame_write(f, out, &o, &st, err, sizeof(err)))
			ft_die("%s", err);
	}
	if (ft_outstream_close(out, err, sizeof(err)))
		ft_die("%s", err);
	ft_folded_free(f);
	return 0;
}
