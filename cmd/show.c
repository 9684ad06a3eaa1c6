// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail show: print a trace file in ftrace's text formats (what trace-cmd
 * report does for trace.dat), user records and kernel events merged by time.
 */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "analysis/ftrace_fmt.h"
#include "analysis/graphsel.h"
#include "analysis/kevents.h"
#include "analysis/prefetch.h"
#include "core/options.h"
#include "analysis/trace.h"
#include "analysis/ulat.h"
#include "analysis/wakeup.h"
#include "core/util.h"

const char cmd_show_usage[] =
	"usage: ftrail show [-i FILE] [-O [no]OPTION]... [--expand-stacks] [--snapshot[=N]]\n"
	"                   [--tid TID[,TID...]] [-g GLOB]... [-N GLOB]... [-D N] [-t TIME]\n"
	"                   [--jobs 1|2] [--full]\n"
	"\n"
	"Print the trace as /sys/kernel/tracing/trace would: the function tracer's\n"
	"'comm-tid [lvl] sec.usec: func <-parent' lines, or the function_graph\n"
	"layout with durations and their markers (+ >10us, ! >100us, # >1ms,\n"
	"* >10ms, @ >100ms, $ >1s), stacks as '<stack trace>' and ' => ' lines or\n"
	"'<stack_id N>', trace_marker text, and 'CPU:N [LOST n EVENTS]' where the\n"
	"ring buffer lost events.  Kernel events recorded with -e are merged in\n"
	"with their own CPU and irq-info flags.  In the function_graph layout other\n"
	"events are '/* text */' comments and full stacks keep the function\n"
	"tracer's line, as in the kernel's trace file.\n"
	"\n"
	"The CPU column of user events holds the nesting level instead (the\n"
	"runtime does not know the CPU): 0 for a thread's own code, N for the N-th\n"
	"nested signal handler, which latency-format also flags 'h'.  TASK-PID is\n"
	"the thread name and thread id.  A program signal handler is shown as the\n"
	"kernel's function_graph shows an interrupt: a '==========> |' line before\n"
	"its calls and a '<========== |' line after them, each with the signal in\n"
	"a comment ('(siglongjmp)' when the handler left that way), its calls\n"
	"indented from the interrupted call at the next level.\n"
	"In the function_graph layout of a trace with several threads, the\n"
	"TASK/PID column (funcgraph-proc) is on unless -O nofuncgraph-proc: it\n"
	"names the thread of every line, where the kernel's context-switch\n"
	"blocks need a CPU that user events do not have (kernel events keep\n"
	"their blocks, per CPU).\n"
	"A trace of a latency tracer (record -p stack, lockheld, sigsoff) prints\n"
	"its results instead, as ftrace prints them: stack_max_size and the\n"
	"stack_trace table of each thread's deepest stack, or the latency-format\n"
	"trace of the worst section (each one over --tracing-thresh when it was\n"
	"set) with the stacks where it began and ended (doc/latency-user.md).\n"
	"A wakeup tracer's (record -p wakeup, wakeup_rt, wakeup_dl) prints the\n"
	"worst wakeup latency (or each over --tracing-thresh) in the latency\n"
	"format: the waking event and what its task's CPU ran until the switch\n"
	"that ran it (doc/latency.md); --full prints every recorded event.\n"
	"\n"
	"  -i FILE            trace file (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"      ") "  -O [no]OPTION      display option, on top of those recorded; one of\n"
			  "                     print-parent sym-offset sym-addr sym-userobj\n"
			  "                     latency-format raw hex\n"
			  "                     funcgraph-proc funcgraph-abstime funcgraph-duration\n"
			  "                     funcgraph-cpu funcgraph-overhead funcgraph-tail\n"
			  "                     funcgraph-args funcgraph-retval expand-stacks\n"
			  "                     funcgraph-args/-retval: the arguments and return values\n"
			  "                     record captured (-A, --retval, -O funcgraph-args), as\n"
			  "                     func(a=1, s=\"x\") { ... } /* func = 0x1 */; on when\n"
			  "                     they were captured\n"
			  "                     sym-userobj: each function names its object\n"
			  "                     (malloc [libc.so.6]), user stack frames print as\n"
			  "                     /path/of/object[+0xoffset], as ftrace's\n"
			  "                     raw: 'tid cpu ts_ns' then numbers ('ip parent_ip'),\n"
			  "                     hex: the same in hexadecimal, as ftrace's raw and hex\n"
			  "                     options (the function_graph layout ignores them)\n"
			  "  --expand-stacks    print the stack of each <stack_id N> (-O expand-stacks)\n"
			  "  --tid TID,...      only these threads (user records by thread id, kernel\n"
			  "                     events by pid): a per-thread view; for a wakeup\n"
			  "                     tracer, the woken threads it follows\n"
			  "Choosing calls after recording, as record's options of the same names\n"
			  "do while recording (and uftrace replay's -F, -N, -D and -t):\n"
			  "  -g, --graph-function GLOB\n"
			  "                     only calls of matching functions and what they call,\n"
			  "                     the outermost such call at depth 0; repeatable\n"
			  "  -N, --graph-notrace GLOB\n"
			  "                     not calls of matching functions, nor what they call;\n"
			  "                     repeatable\n"
			  "  -D, --max-graph-depth N\n"
			  "                     only calls less than N deep (counted from the -g call)\n"
			  "  -t, --tracing-thresh TIME\n"
			  "                     only calls lasting at least TIME, with what they call:\n"
			  "                     a number with ns, us, ms or s (bare: us)\n"
			  "                     A call whose callees are all left out prints as a\n"
			  "                     leaf.  Markers, events and stacks show where a call at\n"
			  "                     their place would; losses, kernel events and thread\n"
			  "                     records always show.  A function tracer's trace: -g\n"
			  "                     and -N choose its records by name\n"
			  "  --jobs N           1 (default): decode and format in one thread; 2: decode\n"
			  "                     on a thread of its own, ahead of the formatter (traces\n"
			  "                     without kernel events, without latency-format); the\n"
			  "                     same output, about 40% more CPU time in all\n"
			  "  --full             latency tracers (wakeup*): every recorded event, not\n"
			  "                     only the worst case's window\n"
			  "  --snapshot[=N]     the last (or N-th, from 1) snapshot instead of the live\n"
			  "                     trace (ftrace's snapshot file): what the buffers held\n"
			  "                     when it was taken\n"
			  "\n"
			  "A file cut short (recorder killed) is read up to its last complete\n"
			  "section, with a warning.  A corrupt file is an error.\n";

/* --tid: the threads shown, or all when n is 0. */
struct tids {
	uint32_t *v;
	size_t n;
};

static void parse_tids(struct tids *s, const char *arg)
{
	char *copy = ft_strdup(arg), *save = NULL;

	for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		uint64_t v;

		if (ft_parse_u64(tok, 1, UINT32_MAX, &v))
			ft_die("show: --tid wants thread ids separated by commas, not '%s'", arg);
		s->v = ft_realloc(s->v, (s->n + 1) * sizeof(*s->v));
		s->v[s->n++] = (uint32_t)v;
	}
	if (!s->n)
		ft_die("show: --tid wants thread ids separated by commas, not '%s'", arg);
	free(copy);
}

/* -g / -N: the globs given (pointers into argv). */
struct globs {
	char **v;
	size_t n;
};

static void add_glob(struct globs *g, char *glob)
{
	g->v = ft_realloc(g->v, (g->n + 1) * sizeof(*g->v));
	g->v[g->n++] = glob;
}

/* -t TIME: a number with ns, us, ms or s; bare: microseconds. */
static uint64_t parse_time(const char *arg)
{
	static const struct {
		const char *unit;
		double ns;
	} units[] = { { "", 1e3 }, { "ns", 1 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 } };
	char *end;
	double v;

	errno = 0;
	v = strtod(arg, &end);
	if (end != arg && !errno && isfinite(v) && v >= 0 && (*arg >= '0' && *arg <= '9'))
		for (size_t i = 0; i < ARRAY_SIZE(units); i++)
			if (!strcmp(end, units[i].unit) && v * units[i].ns < 1.8e19)
				return (uint64_t)(v * units[i].ns + 0.5);
	ft_die("show: -t wants a time such as 100us, 2ms or 1s, not '%s'", arg);
}

/*
 * Whether ev belongs to a thread shown.  Lost-event notes of a user buffer
 * belong to its thread; those of the kernel (source events) to none, so
 * they stay: the view must not hide that events are missing.
 */
static int tid_shown(const struct tids *s, const struct ft_event *ev, const struct ft_ksource *ks)
{
	if (!s->n)
		return 1;
	for (size_t i = 0; i < s->n; i++)
		if (ev->tid == s->v[i])
			return 1;
	return ks->k && ev->type == FT_EV_SOURCE && ev->priv == &ks->cur &&
	       ks->cur.kind == FT_KEV_MISSED;
}

/*
 * ev as the view shows it (--tid; -g, -N, -D, -t through gs when not
 * NULL), or NULL.
 */
static const struct ft_event *view_event(const struct tids *tids, struct ft_graphsel *gs,
					 const struct ft_event *ev, const struct ft_ksource *ks)
{
	int nomem;

	if (!tid_shown(tids, ev, ks))
		return NULL;
	if (!gs)
		return ev;
	ev = ft_graphsel_event(gs, ev, &nomem);
	if (!ev && nomem)
		ft_die("out of memory");
	return ev;
}

/* The events of t formatted while a thread of their own decodes them.  0, or -1 (err). */
static int show_prefetched(struct ft_trace *t, struct ft_fmt *f, const struct tids *tids,
			   struct ft_graphsel *gs, const struct ft_ksource *ks, char *err,
			   size_t errlen)
{
	const struct ft_event *ev, *next;
	struct ft_prefetch *p = ft_prefetch_start(t, err, errlen);
	int ret;

	if (!p)
		ft_die("show: %s", err);
	while ((ret = ft_prefetch_next(p, &ev, &next, err, errlen)) == 1) {
		if (!(ev = view_event(tids, gs, ev, ks)))
			continue;
		if (gs)
			next = ft_graphsel_next(gs, next);
		if (ft_fmt_event_next(f, ev, next) < 0)
			ft_die("writing the output: write error");
	}
	ft_prefetch_stop(p);
	return ret;
}

/* ------------------------------------------------ latency tracers (wakeup) */

/* Is ev a kernel event of case c's window (analysis/wakeup.h)? */
static int in_window(const struct ft_wakeup_case *c, const struct ft_event *ev,
		     const struct ft_ksource *ks)
{
	return ev->type == FT_EV_SOURCE && ev->priv == &ks->cur && ks->cur.kind == FT_KEV_EVENT &&
	       ft_wakeup_in_window(c, ks->cur.cpu, ks->cur.seq);
}

/*
 * "=> started at" / "ended at": the first frame of an event's stack that
 * is not the tracepoint's own machinery (trace_event_raw_event_*,
 * perf_trace_*, __traceiter_*), with its caller, as "func (caller)";
 * the event's name when it has no stack.
 */
static void where(struct ft_kevents *k, const uint64_t *ips, uint32_t nr, const char *event,
		  char *buf, size_t len)
{
	char fn[128], caller[128];

	for (uint32_t i = 0; i < nr; i++) {
		if (ft_kevents_sym(k, ips[i], 0, fn, sizeof(fn)) ||
		    !strncmp(fn, "trace_event_raw_event_", 22) || !strncmp(fn, "perf_trace_", 11) ||
		    !strncmp(fn, "__traceiter_", 12) || !strncmp(fn, "__trace_", 8))
			continue;
		if (i + 1 < nr && !ft_kevents_sym(k, ips[i + 1], 0, caller, sizeof(caller)))
			snprintf(buf, len, "%s (%s)", fn, caller);
		else
			snprintf(buf, len, "%s", fn);
		return;
	}
	snprintf(buf, len, "%s", event);
}

/* The header's task line and start/end, from case c (see doc/latency.md). */
static void case_header(struct ft_kevents *k, struct ft_trace *t, const struct ft_wakeup_case *c,
			struct ft_fmt_lat *l, char *started, char *ended, size_t len)
{
	const char *uid = ft_trace_meta(t, "wakeup_uid");

	memset(l, 0, sizeof(*l));
	l->latency_us = c->lat / 1000;
	l->cpu = c->cpu;
	l->model = ft_trace_meta(t, "preempt_model");
	l->comm = c->comm;
	l->pid = c->tid;
	l->uid = uid ? atoi(uid) : 0;
	/* kernel prio: <0 deadline, 0..99 real-time (99 - rt_prio), 100..139 nice + 120 */
	l->nice = c->prio >= 100 ? c->prio - 120 : 0;
	l->policy = c->prio < 0 ? 6 : c->prio < 100 ? 1 : 0;
	l->rt_prio = c->prio >= 0 && c->prio < 100 ? 99 - c->prio : 0;
	where(k, c->wake_ips, c->wake_nr, "sched_waking", started, len);
	where(k, c->run_ips, c->run_nr, "sched_switch", ended, len);
	l->started = started;
	l->ended = ended;
}

/*
 * show for a latency tracer's trace: each reported case (the max, or every
 * latency at or above tracing_thresh) as the kernel prints its max
 * buffer, then a '#' line with the tracer's counts.
 */
static void show_wakeup(struct ft_trace *t, struct ft_ksource *ks,
			const struct ft_trace_source *src, uint64_t options, int cls,
			const struct tids *only, const char *input)
{
	const char *th = ft_trace_meta(t, "tracing_thresh_us");
	uint64_t thresh_ns = th ? strtoull(th, NULL, 10) * 1000 : 0;
	const struct ft_wakeup_case *cases;
	struct ft_wakeup_stats st;
	struct ft_wakeup *w;
	const struct ft_event *ev;
	char err[512], started[300], ended[300];
	size_t ncases, ntids;
	int *tids, ret;

	if (ft_wakeup_parse_tids(ft_trace_meta(t, "wakeup_tids"), &tids, &ntids) < 0)
		ft_die("out of memory");
	/* --tid: the tracer follows those threads instead, and only them */
	if (only->n) {
		tids = ft_realloc(tids, only->n * sizeof(*tids));
		for (size_t i = 0; i < only->n; i++)
			tids[i] = (int)only->v[i];
		ntids = only->n;
	}
	w = ft_wakeup_new((enum ft_wakeup_class)cls, thresh_ns, tids, ntids, !only->n);
	free(tids);
	if (!w)
		ft_die("out of memory");
	if (ft_wakeup_run(w, ks->k, err, sizeof(err)) < 0)
		ft_die_file(input, err);
	cases = ft_wakeup_cases(w, &ncases);
	ft_wakeup_get_stats(w, &st);
	for (size_t i = 0; i < ncases; i++) {
		const struct ft_wakeup_case *c = &cases[i];
		struct ft_fmt *f = ft_fmt_new(t, options, stdout);
		struct ft_fmt_lat lat;
		uint64_t entries = 0;

		if (!f)
			ft_die("out of memory");
		ft_fmt_set_irq_info(f, 1);
		ft_fmt_set_kevents(f, ks->k, src, &ft_kevents_fmt_ops);
		case_header(ks->k, t, c, &lat, started, ended, sizeof(started));
		ft_fmt_set_latency(f, &lat);
		while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
			if (ev->ts > c->run_ts)
				break; /* time order: the window is over (in_window() says where it ends) */
			if (!in_window(c, ev, ks))
				continue;
			entries += 1 + (ks->cur.kstack_id >= 0 || ks->cur.kstack_nr) +
				   (ks->cur.ustack_id >= 0 || ks->cur.ustack_nr);
			if (options & FT_OPT(LATENCY_FORMAT))
				ft_fmt_scan(f, ev);
		}
		if (ret < 0)
			ft_die_file(input, err);
		ft_kevents_rewind(ks->k);
		if (ft_trace_rewind(t, err, sizeof(err)) < 0)
			ft_die_file(input, err);
		if (i)
			putchar('\n');
		ft_fmt_header(f, entries, entries);
		while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
			if (!in_window(c, ev, ks))
				continue;
			if (ft_fmt_event(f, ev) < 0)
				ft_die("writing the output: write error");
			/* the window ends at the switch that runs the task */
			if (ks->cur.seq == c->run_seq)
				break;
		}
		if (ret < 0)
			ft_die_file(input, err);
		if (ft_fmt_flush(f) < 0)
			ft_die("writing the output: write error");
		ft_fmt_free(f);
		ft_kevents_rewind(ks->k);
		if (ft_trace_rewind(t, err, sizeof(err)) < 0)
			ft_die_file(input, err);
	}
	if (!ncases)
		printf("# tracer: %s\n#\n# no %swakeup latency measured%s%s\n", ft_trace_tracer(t),
		       cls == FT_WAKEUP_RT   ? "real-time "
		       : cls == FT_WAKEUP_DL ? "deadline "
					     : "",
		       cls == FT_WAKEUP_DL && !st.wakeups
			       ? ": no SCHED_DEADLINE task was woken (wakeup_dl follows only those)"
		       : cls == FT_WAKEUP_RT && !st.wakeups
			       ? ": no SCHED_FIFO/SCHED_RR task was woken (wakeup_rt follows only "
				 "those)"
		       : thresh_ns ? " at or above tracing_thresh"
				   : "",
		       "");
	printf("\n# tracing_max_latency: %llu us, tracing_thresh: %llu us; %llu latencies "
	       "(min %llu us, avg %llu us) of %llu wakeups; %llu of tasks still running, %llu "
	       "repeated, %llu forgotten at %llu lost events, %llu out of class\n",
	       (unsigned long long)(st.max_latency / 1000), (unsigned long long)(thresh_ns / 1000),
	       (unsigned long long)st.latencies, (unsigned long long)(st.min / 1000),
	       (unsigned long long)(st.latencies ? st.total / st.latencies / 1000 : 0),
	       (unsigned long long)st.wakeups, (unsigned long long)st.running,
	       (unsigned long long)st.again, (unsigned long long)st.forgotten,
	       (unsigned long long)st.missed, (unsigned long long)st.other_class);
	ft_wakeup_free(w);
}

/* The first pass of a trace without kernel events: entries shown. */
struct count_arg {
	const struct tids *tids;
	const struct ft_ksource *ks;
	uint64_t entries;
};

static int count_cb(const struct ft_event *ev, void *arg)
{
	struct count_arg *ca = arg;

	if (ev->type != FT_EV_LOST && tid_shown(ca->tids, ev, ca->ks))
		ca->entries++;
	return 0;
}

static uint64_t options_of(struct ft_trace *t)
{
	return ft_fmt_recorded_options(t);
}

/*
 * --snapshot with nothing to show (none taken, cleared, freed): ftrace's
 * note on the snapshot's state and the commands, and 1; 0 when there is a
 * snapshot to print.
 */
/*
 * The kernel events of the snapshot t shows (a flight recorder's dump),
 * within its --last window; NULL with err "" when it has none.
 */
static struct ft_kevents *ksnap_open(struct ft_trace *t, char *err, size_t errlen)
{
	char n[32], ts[32], last[32];
	uint64_t since = 0;

	err[0] = 0;
	if (!ft_trace_snapshot_info(t, "snapshot", n, sizeof(n)))
		return NULL;
	if (ft_trace_snapshot_info(t, "last_ns", last, sizeof(last)) &&
	    ft_trace_snapshot_info(t, "swap_ts", ts, sizeof(ts))) {
		uint64_t at = ft_trace_tsc_to_ns(t, strtoull(ts, NULL, 10));
		uint64_t win = strtoull(last, NULL, 10);

		since = at > win ? at - win : 0;
	}
	return ft_kevents_open_snapshot(ft_trace_reader(t), (unsigned int)strtoul(n, NULL, 10),
					since, err, errlen);
}

static int snapshot_note(struct ft_trace *t, uint64_t options)
{
	char st[32];
	const char *state = ft_trace_snapshot_info(t, "state", st, sizeof(st));
	const char *meta = ft_trace_meta(t, "snapshot_state");
	int allocated;

	(void)options;
	if (state && !strcmp(state, "taken"))
		return 0;
	allocated = state ? strcmp(state, "freed") != 0 : meta && !strcmp(meta, "allocated");
	printf("# tracer: %s\n#\n", ft_trace_tracer(t));
	printf("# * Snapshot is %s *\n#\n", allocated ? "allocated" : "freed");
	printf("# Snapshot commands (ftrail snapshot [-P PID] N, while the program is traced):\n"
	       "# 0: free the snapshot buffer\n"
	       "# 1: allocate it if needed, then take a snapshot (swap it with the live buffer)\n"
	       "# 2 (any other number): empty the snapshot, keeping the buffer\n");
	if (fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	ft_trace_close(t);
	return 1;
}

int cmd_show(int argc, char **argv)
{
	static const struct option longopts[] = {
		FT_NO_DEMANGLE_LONGOPT,
		{ "input", required_argument, NULL, 'i' },
		{ "expand-stacks", no_argument, NULL, 'E' },
		{ "snapshot", optional_argument, NULL, 'S' },
		{ "tid", required_argument, NULL, 'T' },
		{ "jobs", required_argument, NULL, 'j' },
		{ "full", no_argument, NULL, 'f' },
		{ "graph-function", required_argument, NULL, 'g' },
		{ "graph-notrace", required_argument, NULL, 'N' },
		{ "max-graph-depth", required_argument, NULL, 'D' },
		{ "tracing-thresh", required_argument, NULL, 't' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "ftrail.dat";
	struct ft_trace_source src;
	struct ft_ksource ks = { 0 };
	char *opts[64];
	int nopts = 0, expand = 0, snapshot = 0, proc_set = 0, full = 0, c;
	struct tids tids = { 0 };
	struct globs sel = { 0 }, notrace = { 0 };
	struct ft_graphsel_opts so = { 0 };
	struct ft_graphsel *gs = NULL;
	uint64_t depth;
	uint64_t options, entries = 0, lost = 0, klost = 0, nth = 0;
	uint64_t jobs = 1; /* 2 is not the default until it is measured to pay off */
	const struct ft_event *ev;
	struct ft_trace *t;
	struct ft_fmt *f;
	const char *w;
	char err[1024];
	int ret;

	while ((c = getopt_long(argc, argv, ":i:O:g:N:D:t:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'O':
			if (nopts == (int)ARRAY_SIZE(opts))
				ft_die("show: too many -O options");
			opts[nopts++] = optarg;
			break;
		case 'E':
			expand = 1;
			break;
		case 'f':
			full = 1;
			break;
		case 'g':
			add_glob(&sel, optarg);
			break;
		case 'N':
			add_glob(&notrace, optarg);
			break;
		case 'D':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &depth))
				ft_die("show: -D wants a depth of at least 1, not '%s'", optarg);
			so.max_depth = (int)depth;
			break;
		case 't':
			so.thresh_ns = parse_time(optarg);
			break;
		case 'T':
			parse_tids(&tids, optarg);
			break;
		case 'j':
			if (ft_parse_u64(optarg, 1, 2, &jobs))
				ft_die("show: --jobs wants 1 or 2, not '%s'", optarg);
			break;
		case 'S':
			snapshot = 1;
			if (optarg && (ft_parse_u64(optarg, 1, INT32_MAX, &nth)))
				ft_die("show: --snapshot=N wants a snapshot number (1 is the first), not '%s'",
				       optarg);
			break;
		default:
			ft_shared_option("show", c, argv);
		}
	}
	ft_no_operands("show", argc, argv, "the trace file is given with -i");

	t = snapshot ? ft_trace_open_snapshot(input, (int)nth, err, sizeof(err))
		     : ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	/* the latency tracers' results: their own shapes (stack_trace, latency format) */
	if (!snapshot && ft_ulat_is_tracer(ft_trace_tracer(t))) {
		for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
			ft_warn("%s", ft_trace_warning(t, i));
		if (ft_ulat_print(t, stdout, tids.v, tids.n, err, sizeof(err)) < 0)
			ft_die_file(input, err);
		ft_trace_close(t);
		free(tids.v);
		return 0;
	}
	options = options_of(t);
	for (int i = 0; i < nopts; i++) {
		if (ft_options_apply(&options, opts[i]) < 0)
			ft_die("show: unknown option '%s' (see ftrail show --help)", opts[i]);
		proc_set |=
			!strcmp(opts[i] + (strncmp(opts[i], "no", 2) ? 0 : 2), "funcgraph-proc");
	}
	/* several threads in one graph: name the thread on every line */
	if (!proc_set && ft_trace_nr_threads(t) > 1 && tids.n != 1)
		options |= FT_OPT(FUNCGRAPH_PROC);
	if (expand)
		options |= FT_OPT(EXPAND_STACKS);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));

	if (snapshot && nth && !ft_trace_snapshot_info(t, "state", err, sizeof(err)))
		ft_die("show: %s holds no snapshot %llu", input, (unsigned long long)nth);
	if (snapshot && snapshot_note(t, options))
		return 0;
	{
		/* a flight recorder's snapshot holds the kernel's side of it too */
		ks.k = snapshot ? ksnap_open(t, err, sizeof(err))
				: ft_kevents_open(ft_trace_reader(t), err, sizeof(err));
		if (!ks.k && err[0])
			ft_die_file(input, err);
		if (ks.k)
			ft_kevents_fix_user_stacks(ks.k, input);
		if (ks.k) {
			ks.options = options;
			src.name = "kernel";
			src.next = ft_ksource_next;
			src.print = ft_ksource_print;
			src.arg = &ks;
			if (ft_trace_add_source(t, &src) < 0)
				ft_die("out of memory");
		}
	}

	if (!snapshot && !full && ft_wakeup_class_of(ft_trace_tracer(t)) >= 0) {
		if (!ks.k)
			ft_die_file(input, "no kernel events in this trace (the wakeup tracers "
					   "read the scheduler's)");
		show_wakeup(t, &ks, &src, options, ft_wakeup_class_of(ft_trace_tracer(t)), &tids,
			    input);
		if (fflush(stdout) != 0 || ferror(stdout))
			ft_die("writing the output: write error");
		ft_kevents_close(ks.k);
		ft_trace_close(t);
		free(tids.v);
		return 0;
	}
	so.functions = (const char *const *)sel.v;
	so.n_functions = sel.n;
	so.notrace = (const char *const *)notrace.v;
	so.n_notrace = notrace.n;
	if ((so.max_depth || so.thresh_ns) && strcmp(ft_trace_tracer(t), "function_graph"))
		ft_die("show: -D and -t select function_graph calls; %s holds the %s tracer's",
		       input, ft_trace_tracer(t));
	if (ft_graphsel_wanted(&so) && !(gs = ft_graphsel_new(t, &so, err, sizeof(err))))
		ft_die_file(input, err);
	f = ft_fmt_new(t, options, stdout);
	if (!f)
		ft_die("out of memory");
	ft_fmt_set_irq_info(f, ks.k != NULL);
	if (ks.k)
		ft_fmt_set_kevents(f, ks.k, &src, &ft_kevents_fmt_ops);
	/*
	 * First pass: count what the header announces, and with
	 * latency-format let the formatter see the whole stream (the delay
	 * column is the time to the next entry).  The function_graph header
	 * has no counts unless latency-format asks for them.
	 */
	if (!gs && !ks.k && !(options & FT_OPT(LATENCY_FORMAT)) &&
	    strcmp(ft_trace_tracer(t), "function_graph")) {
		/* counts only: no merge by time (the order does not change them) */
		struct count_arg ca = { &tids, &ks, 0 };

		if (ft_trace_scan_buffers(t, count_cb, &ca, err, sizeof(err)) < 0)
			ft_die_file(input, err);
		entries = ca.entries;
		lost = ft_trace_nr_lost(t);
	} else if (strcmp(ft_trace_tracer(t), "function_graph") ||
		   (options & FT_OPT(LATENCY_FORMAT))) {
		/* the same view as the printing pass (the selection rewound below) */
		while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
			if (!(ev = view_event(&tids, gs, ev, &ks)))
				continue;
			if (ev->type == FT_EV_SOURCE && ks.k && ev->priv == &ks.cur) {
				/* the kernel's stacks are entries of their own */
				if (ks.cur.kind == FT_KEV_EVENT)
					entries += 1 + (ks.cur.kstack_id >= 0 || ks.cur.kstack_nr) +
						   (ks.cur.ustack_id >= 0 || ks.cur.ustack_nr);
				/* the kernel's losses, in the same unit (entries) */
				else if (ks.cur.kind == FT_KEV_MISSED)
					klost += ks.cur.missed;
			} else if (ev->type != FT_EV_LOST) {
				entries++;
			}
			if (options & FT_OPT(LATENCY_FORMAT))
				ft_fmt_scan(f, ev);
		}
		if (ret < 0)
			ft_die_file(input, err);
		lost = ft_trace_nr_lost(t);
		if (ks.k)
			ft_kevents_rewind(ks.k);
		if (ft_trace_rewind(t, err, sizeof(err)) < 0)
			ft_die_file(input, err);
		if (gs)
			ft_graphsel_rewind(gs);
	}
	/* entries-written: what the runtime wrote, lost ones included */
	/* (a snapshot's own counts are its pages': the totals are the live trace's) */
	w = snapshot ? NULL : ft_trace_meta(t, "user_lost");
	if (w && strtoull(w, NULL, 10) > lost)
		lost = strtoull(w, NULL, 10);
	w = snapshot ? NULL : ft_trace_meta(t, "written");
	ft_fmt_header(f, entries, w ? strtoull(w, NULL, 10) : entries + lost + klost);
	if (jobs > 1 && !ks.k && !(options & FT_OPT(LATENCY_FORMAT)))
		ret = show_prefetched(t, f, &tids, gs, &ks, err, sizeof(err));
	else if (!gs)
		while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
			if (tid_shown(&tids, ev, &ks) && ft_fmt_event(f, ev) < 0)
				ft_die("writing the output: write error");
		}
	else
		while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
			const struct ft_event *next = NULL, *shown;

			/* a selection shifts depths: the formatter's lookahead too */
			if (!(shown = view_event(&tids, gs, ev, &ks)))
				continue;
			if (ev->type != FT_EV_SOURCE &&
			    (ev->type == FT_EV_ENTRY || (options & FT_OPT(LATENCY_FORMAT))) &&
			    ft_trace_peek_buffer_ref(t, ev, &next) != 1)
				next = NULL;
			if (ft_fmt_event_next(f, shown, ft_graphsel_next(gs, next)) < 0)
				ft_die("writing the output: write error");
		}
	if (ret < 0)
		ft_die_file(input, err);
	if (ft_fmt_flush(f) < 0 || fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	ft_fmt_free(f);
	ft_graphsel_free(gs);
	if (ks.k)
		ft_kevents_close(ks.k);
	ft_trace_close(t);
	free(tids.v);
	free(sel.v);
	free(notrace.v);
	return 0;
}
