// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail record: trace a program (user functions through the injected
 * runtime) and/or kernel trace events, into one trace file.
 *
 * This file parses the command line with trace-cmd's option names; the
 * session that sequences the two capture engines (recorder/ for user space,
 * kernel/ for tracefs) so that nothing is missed is recorder/record_session.h,
 * shared with `ftrail offcpu --record`.
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "analysis/kevents.h"
#include "analysis/wakeup.h"
#include "core/argspec.h"
#include "core/filter.h"
#include "core/glob.h"
#include "recorder/argdwarf.h"
#include "core/options.h"
#include "core/session.h"
#include "core/stackmap.h"
#include "core/tracefile.h"
#include "recorder/record_session.h"
#include "live/mount.h"
#include "core/util.h"
#include "live/stream.h"

const char cmd_record_usage[] =
	"usage: ftrail record [options] [--] [PROG ARGS...]\n"
	"       ftrail record [options] -P PID\n"
	"\n"
	"Trace PROG's functions (compiled with -pg, -pg -mfentry, -mfentry -mnop-mcount,\n"
	"-fpatchable-function-entry=N or -finstrument-functions) and/or kernel trace\n"
	"events, into one trace file.  Without PROG, kernel events are recorded\n"
	"system-wide until Ctrl-C.\n"
	"\n"
	"  -P PID               attach to the running process PID instead of starting a\n"
	"                       program (ptrace: same user or root; it must not be\n"
	"                       traced already): the runtime is loaded into it, every\n"
	"                       thread is traced from its next traced call (calls\n"
	"                       entered before the attach are not shown, depths start\n"
	"                       there), threads it creates from their start; kernel\n"
	"                       events are limited to its threads and children.  Until\n"
	"                       Ctrl-C, --duration or its exit; then it is detached and\n"
	"                       runs on as before: tracing off, every patched function\n"
	"                       and hooked call restored.  Left in it: libftrail.so\n"
	"                       (mapped, with its per-thread state), reused by the next\n"
	"                       attach\n"
	"  --duration SEC       stop recording after SEC seconds (decimals allowed)\n"
	"  -p TRACER            nop | function | function_graph (default function_graph\n"
	"                       with a program, nop without); the user-space latency\n"
	"                       tracers (doc/latency-user.md): stack (deepest stack of\n"
	"                       each thread), lockheld (longest pthread mutex holds),\n"
	"                       sigsoff (longest sections with signals blocked); the\n"
	"                       wakeup latency tracers (doc/latency.md): wakeup,\n"
	"                       wakeup_rt, wakeup_dl: the latency from a task's wakeup\n"
	"                       to the switch that runs it, for PROG's threads (-P: the\n"
	"                       process's, -a or neither: every task; _rt: RT tasks\n"
	"                       only, _dl: deadline tasks only), from scheduler events\n"
	"                       recorded system-wide (root); show prints the worst case\n"
	"                       in the latency format\n"
	"  -l GLOB              set_ftrace_filter: trace only matching functions; '!GLOB'\n"
	"                       removes, 'GLOB:mod:MODULE' limits to a module,\n"
	"                       'FUNC:traceon|traceoff|stacktrace|snapshot[:COUNT]' is a\n"
	"                       function command (repeatable, appends); on a program\n"
	"                       with no instrumentation and no --patch, the functions\n"
	"                       -l and -g select are patched (as --patch GLOB)\n"
	"  -n GLOB              set_ftrace_notrace: never trace matching functions\n"
	"  -g FUNC              set_graph_function: graph only below FUNC\n"
	"  --graph-notrace FUNC set_graph_notrace: hide FUNC and below\n"
	"  --patch GLOB         patch the entry of matching functions that were built\n"
	"                       without instrumentation (x86-64: the first instructions\n"
	"                       are decoded with capstone and moved to a trampoline),\n"
	"                       at start or at the attach; GLOB alone names functions\n"
	"                       of the program, GLOB:mod:MODULE those of a library\n"
	"                       loaded with it; functions that cannot be moved safely\n"
	"                       are refused and listed (repeatable); given, it alone\n"
	"                       decides what is patched (not -l); the library calls\n"
	"                       of an object with patched functions are traced too\n"
	"                       (--no-libcall: not), doc/patching.md\n"
	"  --max-graph-depth N  max_graph_depth\n"
	"  --tracing-thresh US  function_graph: only calls lasting at least US microseconds;\n"
	"                       lockheld, sigsoff: every section lasting at least US\n"
	"                       microseconds instead of each new max; wakeup tracers:\n"
	"                       every latency of at least US, not only the max\n"
	"  --pid TID            set_ftrace_pid: trace only this thread (repeatable)\n"
	"  -e SYS:EVENT|SYS|all enable kernel events (repeatable); u:SYS:EVENT, u:SYS,\n"
	"                       u:all enable the program's own events (<ftrail/ftrail.h>)\n"
	"  -f FILTER            filter for the preceding -e (ftrace filter syntax)\n"
	"  -R TRIGGER           trigger for the preceding user -e: traceon, traceoff,\n"
	"                       stacktrace, snapshot, enable_event:SYS:EV,\n"
	"                       disable_event:SYS:EV, with [:COUNT] [if FILTER]\n"
	"  -A FUNC@ARGS         capture arguments of FUNC (a glob): ARGS is a list of\n"
	"                       [NAME=]argN[/FMT] (integer register N, 1..6),\n"
	"                       [NAME=]fpargN[/FMT] (xmm N-1, 1..8) or struct/{SIZE};\n"
	"                       FMT: i8..i64 u8..u64 x8..x64 p c b s s:CAP f32 f64\n"
	"                       e:ENUM {SIZE} (default i64; fparg f64); repeatable, the\n"
	"                       last -A matching a function wins\n"
	"  --retval FUNC@retval[/FMT]  capture FUNC's return value (rax, xmm0 for f32/f64)\n"
	"  -O funcgraph-args    capture every traced function's parameters, named and\n"
	"                       typed from PROG's DWARF (-g), libc's well-known functions\n"
	"                       by their prototypes; without DWARF the six integer\n"
	"                       registers in hex\n"
	"  -O funcgraph-retval  the same for return values (rax in hex without DWARF)\n"
	"  --filter 'FUNC: EXPR'  record only the calls of FUNC (a glob) whose captured\n"
	"                       arguments pass EXPR, in ftrace's event filter syntax over\n"
	"                       their names or argN/fpargN (read: n > 4096 && fd == 3)\n"
	"  -T                   stack trace with each event (option stacktrace)\n"
	"  -O [no]OPTION        set a trace option (ftrace's names: stackmap,\n"
	"                       userstacktrace, overwrite, print-parent, funcgraph-*...)\n"
	"                       buffer modes: by default a thread whose buffer is full\n"
	"                       waits for the recorder (block: nothing lost, the\n"
	"                       program slows down; a wait gives up after 1 s without\n"
	"                       progress); -O noblock drops the newest records instead\n"
	"                       (ftrace's producer/consumer mode), -O overwrite the\n"
	"                       oldest; either way every loss is counted\n"
	"  -b KB                buffer size per buffer (per thread, per CPU), KiB\n"
	"  --stackmap-bits N    stack map capacity 2^N stacks, N in [10,18] (else an\n"
	"                       error), default 14; 17 for the program's stacks with -T\n"
	"  --snapshot-alloc     allocate the snapshot buffer at start (see ftrail snapshot)\n"
	"  --no-libcall         do not trace calls into other shared objects (libc's malloc,\n"
	"                       printf...) through the PLT; same as -O nolibcall\n"
	"  -a                   kernel events from the whole system, not only PROG\n"
	"  -o FILE              output file (default ftrail.dat), written as FILE.partial\n"
	"                       and renamed over FILE when complete: a failed or killed\n"
	"                       recording leaves FILE as it was (killed: FILE.partial\n"
	"                       holds what was recorded); a symbolic link is refused\n"
	"  -o -                 stream: print the trace on standard output while PROG\n"
	"                       runs, as `ftrail show` prints it (without its header,\n"
	"                       as trace_pipe), in time order across threads, a line\n"
	"                       about a second after its event (more as the trace\n"
	"                       grows: doc/stream.md); with another -o FILE the trace\n"
	"                       is kept there too.  A closed output (| head) ends\n"
	"                       the stream, not the recording\n"
	"  --flight-recorder    keep only the recent past: the buffers (-b per thread,\n"
	"                       and per CPU for kernel events) overwrite their oldest\n"
	"                       records and nothing is written\n"
	"                       while PROG runs; a snapshot trigger (-l FUNC:snapshot,\n"
	"                       -R snapshot, ftrail snapshot -P PID 1) writes what\n"
	"                       they hold as a snapshot, and so does PROG's end (exit,\n"
	"                       crash, Ctrl-C); read them with show --snapshot[=N]\n"
	"  --last SEC           with --flight-recorder: a snapshot holds only the SEC\n"
	"                       seconds (decimals allowed) before its trigger\n"
	"  -q                   no summary on stderr\n"
	"  --mount DIR          while recording, serve a tracefs-like tree of the\n"
	"                       program on DIR, an empty directory (FUSE, owner only;\n"
	"                       see ftrail mount, doc/mount.md); unmounted at the end\n"
	"\n"
	"Exit status:\n"
	"  PROG's own, or 128+N when signal N killed it (as time and strace report\n"
	"  it); 0 when --duration ended the recording while PROG runs on; without\n"
	"  PROG (and with -P), 0 once the trace is written.  ftrail's own failures\n"
	"  exit 1 with one line on stderr.\n"
	"\n"
	"Signals:\n"
	"  SIGINT, SIGTERM and SIGHUP sent to ftrail are passed on to PROG (one from\n"
	"  the terminal, which PROG gets too, is not sent twice) and the recording\n"
	"  goes on while PROG exits.  If PROG still runs 2 seconds later, or at a\n"
	"  second signal, ftrail switches tracing off, writes the trace and exits with\n"
	"  128+N; PROG runs on, untraced.  Without PROG the first one ends the\n"
	"  recording.  Started with SIGHUP ignored (nohup), ftrail and PROG keep it\n"
	"  ignored.  If ftrail dies (even by SIGKILL), PROG's runtime notices at its\n"
	"  next traced call or event, stops tracing and restores its patched\n"
	"  functions: PROG runs on untraced, at full speed, and its buffers stop\n"
	"  growing.\n";

/* --tracing-thresh of a wakeup tracer (microseconds), for META */
static uint64_t wakeup_thresh_us;

enum {
	OPT_MAX_GRAPH_DEPTH = 256,
	OPT_GRAPH_NOTRACE,
	OPT_THRESH,
	OPT_PID,
	OPT_STACKMAP_BITS,
	OPT_SNAPSHOT_ALLOC,
	OPT_NO_LIBCALL,
	OPT_RETVAL,
	OPT_FILTER,
	OPT_DURATION,
	OPT_MOUNT,
	OPT_PATCH,
	OPT_FLIGHT,
	OPT_LAST,
};

/* --mount DIR (live/mount.h), or NULL */
static const char *mount_dir;

static const struct option long_options[] = {
	{ "max-graph-depth", required_argument, NULL, OPT_MAX_GRAPH_DEPTH },
	{ "graph-notrace", required_argument, NULL, OPT_GRAPH_NOTRACE },
	{ "tracing-thresh", required_argument, NULL, OPT_THRESH },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "stackmap-bits", required_argument, NULL, OPT_STACKMAP_BITS },
	{ "snapshot-alloc", no_argument, NULL, OPT_SNAPSHOT_ALLOC },
	{ "no-libcall", no_argument, NULL, OPT_NO_LIBCALL },
	{ "retval", required_argument, NULL, OPT_RETVAL },
	{ "filter", required_argument, NULL, OPT_FILTER },
	{ "duration", required_argument, NULL, OPT_DURATION },
	{ "mount", required_argument, NULL, OPT_MOUNT },
	{ "patch", required_argument, NULL, OPT_PATCH },
	{ "flight-recorder", no_argument, NULL, OPT_FLIGHT },
	{ "last", required_argument, NULL, OPT_LAST },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static int output_named; /* -o FILE was given (not only -o -) */

/* Check one -A / --retval spec; a bad one dies naming the position (1-based). */
static void add_spec(struct ft_strv *sv, const char *opt, const char *arg, int which)
{
	struct ft_arg_spec sp;
	size_t pos = 0;
	char err[160];

	if (strchr(arg, '\n'))
		ft_die("%s '%s': a spec is one line", opt, arg);
	if (ft_argspec_parse(arg, strlen(arg), which, &sp, &pos, err, sizeof(err)) < 0)
		ft_die("%s '%s': at position %zu: %s", opt, arg, pos + 1, err);
	ft_strv_push(sv, arg);
}

/*
 * Check one --filter 'FUNC: EXPR' (the expression's syntax; its fields are
 * checked by the runtime against FUNC's spec) and keep it as a '%' line.
 */
static void add_filter(struct ft_strv *sv, const char *arg)
{
	const char *colon = ft_glob_sep(arg); /* "ns::f: x > 1" */
	struct ft_filter_err e;
	char *line;
	size_t n = strlen(arg) + 2;

	if (strchr(arg, '\n'))
		ft_die("--filter '%s': a filter is one line", arg);
	if (!colon || colon == arg || strpbrk(arg, " \t") < colon)
		ft_die("--filter '%s': at position 1: expected FUNC: EXPR", arg);
	if (ft_filter_check_syntax(colon + 1, &e) < 0)
		ft_die("--filter '%s': at position %zu: %s", arg,
		       (size_t)(colon + 1 - arg) + e.pos + 1, e.msg);
	line = ft_malloc(n);
	snprintf(line, n, "%%%s", arg);
	ft_strv_push(sv, line);
	free(line);
}

/*
 * The capture specs, in the order the runtime folds them (the last match
 * wins): generated ones for -O funcgraph-args / funcgraph-retval (libc's
 * prototypes, then PROG's DWARF, or every function's registers without
 * DWARF), then -A, then --retval.
 */
static void build_specs(struct ft_record_opts *o, struct ft_strv *a, struct ft_strv *r,
			struct ft_strv *flt)
{
	int what = (o->options & FT_OPT(FUNCGRAPH_ARGS) ? FT_ARGDWARF_ARGS : 0) |
		   (o->options & FT_OPT(FUNCGRAPH_RETVAL) ? FT_ARGDWARF_RET : 0);
	char err[512];

	if (what && o->argv) {
		struct ft_strv gen = { NULL, 0 };

		/* generated lines need not match anything: no warning (runtime/args.c) */
		ft_strv_push(&o->argspec, "#quiet");
		int n = ft_argdwarf_specs(o->argv[0], what, &gen, err, sizeof(err));

		if (n < 0)
			ft_die("%s", err);
		if (n == 0) {
			ft_warn("%s has no DWARF information: -O funcgraph-%s captures "
				"integer registers only, in hex",
				o->argv[0], what == FT_ARGDWARF_RET ? "retval" : "args");
			ft_strv_push(
				&o->argspec,
				what == FT_ARGDWARF_RET ? "*@retval/x64"
				: what == FT_ARGDWARF_ARGS
					? "*@arg1/x64,arg2/x64,arg3/x64,arg4/x64,arg5/x64,arg6/x64"
					: "*@arg1/x64,arg2/x64,arg3/x64,arg4/x64,arg5/x64,arg6/x64,"
					  "retval/x64");
		}
		if (o->options & FT_OPT(LIBCALL))
			ft_argdwarf_libc(what, &o->argspec);
		for (size_t i = 0; i < gen.n; i++) {
			ft_strv_push(&o->argspec, gen.v[i]);
			free(gen.v[i]);
		}
		free(gen.v);
	}
	/* e:ENUM in a spec: the enumerators' names from DWARF, for readers */
	if (!what && o->argv) {
		int enums = 0;

		for (size_t i = 0; i < a->n; i++)
			enums |= strstr(a->v[i], "/e:") != NULL;
		for (size_t i = 0; i < r->n; i++)
			enums |= strstr(r->v[i], "/e:") != NULL;
		if (enums) {
			struct ft_strv gen = { NULL, 0 };

			if (ft_argdwarf_specs(o->argv[0], FT_ARGDWARF_ARGS | FT_ARGDWARF_RET, &gen,
					      err, sizeof(err)) < 0)
				ft_die("%s", err);
			for (size_t i = 0; i < gen.n; i++) {
				if (!strncmp(gen.v[i], "#enum ", 6))
					ft_strv_push(&o->argspec, gen.v[i]);
				free(gen.v[i]);
			}
			free(gen.v);
		}
	}
	if (a->n || r->n || flt->n)
		ft_strv_push(&o->argspec, "#warn");
	for (size_t i = 0; i < a->n; i++)
		ft_strv_push(&o->argspec, a->v[i]);
	for (size_t i = 0; i < r->n; i++)
		ft_strv_push(&o->argspec, r->v[i]);
	for (size_t i = 0; i < flt->n; i++)
		ft_strv_push(&o->argspec, flt->v[i]);
	/* what show prints by default */
	if (a->n)
		o->options |= FT_OPT(FUNCGRAPH_ARGS);
	if (r->n)
		o->options |= FT_OPT(FUNCGRAPH_RETVAL);
}

/*
 * -p wakeup, wakeup_rt, wakeup_dl (doc/latency.md): the scheduler events
 * the tracer reads, captured system-wide even for a program (what ran on
 * a CPU between a wakeup and the switch is other tasks' events), with a
 * generous buffer; the latencies and the worst case's window are worked
 * out by readers (analysis/wakeup.h), shown in the latency format.
 * --tracing-thresh goes to META for them, not to the runtime.
 */
static void wakeup_setup(struct ft_record_opts *o)
{
	static const char *const evs[] = {
		"sched:sched_waking",	    "sched:sched_wakeup",	"sched:sched_wakeup_new",
		"sched:sched_switch",	    "sched:sched_migrate_task", "sched:sched_process_fork",
		"sched:sched_process_exit",
	};

	for (size_t i = 0; i < ARRAY_SIZE(evs); i++)
		ft_record_opts_add_event(o, evs[i]);
	o->all_cpus = 1;
	if (!o->buffer_kb)
		o->buffer_kb = 8192;
	if (!(o->options_set & FT_OPT(LATENCY_FORMAT)))
		o->options |= FT_OPT(LATENCY_FORMAT);
	wakeup_thresh_us = o->thresh_us;
	o->thresh_us = 0;
}

/*
 * The kernel's preemption model as print_trace_header() names it (M:):
 * from the running kernel's version string, and for PREEMPT_DYNAMIC from
 * debugfs's sched/preempt when it is mounted; "unknown" otherwise, as the
 * kernel says when no model matches.
 */
static const char *preempt_model(void)
{
	struct utsname u;
	char line[128] = "";
	FILE *f;

	if (uname(&u))
		return "unknown";
	if (strstr(u.version, "PREEMPT_RT"))
		return "preempt_rt";
	if (!strstr(u.version, "PREEMPT_DYNAMIC"))
		return strstr(u.version, "PREEMPT") ? "preempt" : "server";
	f = fopen("/sys/kernel/debug/sched/preempt", "r");
	if (f) {
		if (!fgets(line, sizeof(line), f))
			line[0] = 0;
		fclose(f);
	}
	if (strstr(line, "(none)"))
		return "server";
	if (strstr(line, "(voluntary)"))
		return "desktop";
	if (strstr(line, "(full)"))
		return "preempt";
	if (strstr(line, "(lazy)"))
		return "lazy";
	return "unknown";
}

/*
 * The session's attached hook for the wakeup tracers: META with the
 * tracing_thresh, the process and its threads now (-P: they exist
 * already; a spawned program has one), whose wakeups are measured.
 */
static int wakeup_attached(struct ft_writer *w, const char *path, pid_t pid, int spawned, void *arg,
			   char *err, size_t errlen)
{
	char meta[4096], fn[64], line[256];
	size_t n;
	FILE *st;
	DIR *d;
	struct dirent *de;

	(void)spawned;
	(void)arg;
	n = (size_t)snprintf(meta, sizeof(meta), "wakeup_pid=%d\nwakeup_tids=%d", (int)pid,
			     (int)pid);
	snprintf(fn, sizeof(fn), "/proc/%d/task", (int)pid);
	d = opendir(fn);
	while (d && (de = readdir(d)) && n + 16 < sizeof(meta)) {
		if (de->d_name[0] >= '0' && de->d_name[0] <= '9' && atoi(de->d_name) != (int)pid)
			n += (size_t)snprintf(meta + n, sizeof(meta) - n, ",%s", de->d_name);
	}
	if (d)
		closedir(d);
	n += (size_t)snprintf(meta + n, sizeof(meta) - n, "\n");
	snprintf(fn, sizeof(fn), "/proc/%d/status", (int)pid);
	st = fopen(fn, "r");
	while (st && fgets(line, sizeof(line), st))
		if (!strncmp(line, "Uid:", 4) && n + 32 < sizeof(meta))
			n += (size_t)snprintf(meta + n, sizeof(meta) - n, "wakeup_uid=%d\n",
					      atoi(line + 4));
	if (st)
		fclose(st);
	if (ft_writer_add(w, FT_SEC_META, 0, meta, n, 0)) {
		ft_seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/*
 * After a wakeup tracer's recording, what the kernel's tracing_max_latency
 * would read: the tracer run over the file just written (analysis/wakeup.h),
 * one line on stderr with the summary.  Best effort: a file that cannot be
 * read back gets a warning, the recording stands.
 */
static void wakeup_summary(const struct ft_record_opts *o)
{
	struct ft_reader *r;
	struct ft_kevents *k = NULL;
	struct ft_wakeup *w = NULL;
	struct ft_wakeup_stats st;
	const struct ft_wakeup_case *c;
	char err[512] = "";
	int *tids = NULL;
	size_t ntids = 0, n;

	r = ft_reader_open(o->output, err, sizeof(err));
	if (r)
		k = ft_kevents_open(r, err, sizeof(err));
	if (k && ft_wakeup_parse_tids(ft_reader_meta(r, "wakeup_tids"), &tids, &ntids) < 0)
		ft_die("out of memory");
	if (k)
		w = ft_wakeup_new((enum ft_wakeup_class)ft_wakeup_class_of(o->tracer),
				  wakeup_thresh_us * 1000, tids, ntids, 1);
	if (!k || !w || ft_wakeup_run(w, k, err, sizeof(err))) {
		ft_warn("%s: cannot work out the wakeup latencies: %s", o->output,
			err[0] ? err : "out of memory");
	} else {
		c = ft_wakeup_cases(w, &n);
		ft_wakeup_get_stats(w, &st);
		if (n && !wakeup_thresh_us)
			fprintf(stderr,
				"ftrail: %s: tracing_max_latency %llu us (%s-%d on CPU %d), the max "
				"of %llu latencies; 'ftrail show' prints its trace\n",
				o->tracer, (unsigned long long)(st.max_latency / 1000),
				c[n - 1].comm, c[n - 1].tid, c[n - 1].cpu,
				(unsigned long long)st.latencies);
		else if (n)
			fprintf(stderr,
				"ftrail: %s: %zu of %llu latencies at or above tracing_thresh %llu us, "
				"the last %llu us (%s-%d on CPU %d); 'ftrail show' prints them\n",
				o->tracer, n, (unsigned long long)st.latencies,
				(unsigned long long)wakeup_thresh_us,
				(unsigned long long)(st.max_latency / 1000), c[n - 1].comm,
				c[n - 1].tid, c[n - 1].cpu);
		else
			fprintf(stderr, "ftrail: %s: no latency %s(%llu wakeups seen)\n", o->tracer,
				wakeup_thresh_us ? "at or above tracing_thresh " : "",
				(unsigned long long)st.wakeups);
	}
	ft_wakeup_free(w);
	free(tids);
	ft_kevents_close(k);
	if (r)
		ft_reader_close(r);
}

/*
 * Streaming and the flight recorder against the rest of the command line:
 * what cannot go together gets one line.
 */
static void check_modes(struct ft_record_opts *o)
{
	if (o->flight_last_ms && !o->flight)
		ft_die("--last needs --flight-recorder (it bounds what a flight recorder dump "
		       "keeps)");
	if (o->flight && o->stream)
		ft_die("--flight-recorder writes nothing until a trigger: it cannot stream (-o -)");
	if (o->flight && !o->argv && !o->attach_pid)
		ft_die("--flight-recorder needs a program (-- ./prog) or a process (-P PID)");
	if (o->flight && o->tracer && !strcmp(o->tracer, "nop") && !o->nr_events)
		ft_die("--flight-recorder with the nop tracer and no event records nothing");
	if (o->flight) {
		/* the rings overwrite; nobody drains them, so nobody may be waited for */
		o->options |= FT_OPT(OVERWRITE);
		o->options &= ~FT_OPT(BLOCK);
	}
	if (o->stream && !o->argv && !o->attach_pid)
		ft_die("-o - streams a program's trace: give a program (-- ./prog) or a process "
		       "(-P PID)");
	if (o->stream && o->tracer &&
	    (!strcmp(o->tracer, "stack") || !strcmp(o->tracer, "lockheld") ||
	     !strcmp(o->tracer, "sigsoff")))
		ft_die("-o - cannot stream the %s tracer: show prints its result, known once the "
		       "program ends (record to a file, then show)",
		       o->tracer);
	if (o->stream && (o->options & FT_OPT(LATENCY_FORMAT)))
		ft_die("-o - cannot stream -O latency-format: its delay column needs the event "
		       "after each one, over the whole trace (record to a file, then show)");
}

static void parse_args(int argc, char **argv, struct ft_record_opts *o)
{
	struct ft_strv user_args = { NULL, 0 }, user_ret = { NULL, 0 }, user_flt = { NULL, 0 };
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "ftrail.dat";
	o->options = ft_options_default();
	/* '+': stop at the program's name so its own options stay its own */
	while ((c = getopt_long(argc, argv, "+:p:P:l:n:g:e:f:R:TO:b:ao:qhA:", long_options,
				NULL)) != -1) {
		switch (c) {
		case 'p':
			if (ft_tracer_from_name(optarg) < 0 && !ft_tracer_is_kernel(optarg))
				ft_die("unknown tracer '%s' (available: nop function function_graph "
				       "stack lockheld sigsoff wakeup wakeup_rt wakeup_dl)",
				       optarg);
			o->tracer = optarg;
			break;
		case 'P':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("-P wants a process id, not '%s'", optarg);
			o->attach_pid = (pid_t)v;
			break;
		case OPT_DURATION: {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(d > 0) || d > 1e9)
				ft_die("--duration wants seconds (> 0), not '%s'", optarg);
			o->duration_ms = (uint64_t)(d * 1000 + 0.5);
			if (!o->duration_ms)
				o->duration_ms = 1;
			break;
		}
		case OPT_PATCH:
			if (!*optarg || strchr(optarg, '\n'))
				ft_die("--patch wants a function glob (GLOB or GLOB:mod:MODULE), not "
				       "'%s'",
				       optarg);
			ft_strv_push(&o->patch, optarg);
			break;
		case 'l':
			ft_strv_push(&o->filter, optarg);
			break;
		case 'n':
			ft_strv_push(&o->notrace, optarg);
			break;
		case 'g':
			ft_strv_push(&o->graph, optarg);
			break;
		case OPT_GRAPH_NOTRACE:
			ft_strv_push(&o->graph_notrace, optarg);
			break;
		case OPT_MAX_GRAPH_DEPTH:
			if (ft_parse_u64(optarg, 0, 1024, &v))
				ft_die("--max-graph-depth wants a number in [0,1024], not '%s'",
				       optarg);
			o->max_graph_depth = (int)v;
			break;
		case OPT_THRESH:
			if (ft_parse_u64(optarg, 0, UINT32_MAX, &v))
				ft_die("--tracing-thresh wants microseconds, not '%s'", optarg);
			o->thresh_us = v;
			break;
		case OPT_PID:
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("--pid wants a thread id, not '%s'", optarg);
			ft_strv_push(&o->pids, optarg);
			break;
		case 'e':
			ft_record_opts_add_event(o, optarg);
			break;
		case 'R': /* uev: one trigger per -e, like trace-cmd record -R */
			if (!o->nr_events || o->events[o->nr_events - 1].trigger)
				ft_die("-R '%s' must follow an -e that has no trigger yet", optarg);
			o->events[o->nr_events - 1].trigger = ft_strdup(optarg);
			break;
		case 'f':
			if (!o->nr_events)
				ft_die("-f '%s' must follow the -e it filters", optarg);
			if (o->events[o->nr_events - 1].filter)
				ft_die("event '%s' already has a filter",
				       o->events[o->nr_events - 1].name);
			o->events[o->nr_events - 1].filter = ft_strdup(optarg);
			break;
		case 'T':
			o->options |= FT_OPT(STACKTRACE);
			break;
		case 'O':
			if (ft_options_apply(&o->options, optarg))
				ft_die("unknown option '%s' (see 'ftrail help record')", optarg);
			{
				uint64_t on = 0, off = ~0ull; /* which bit optarg names */

				ft_options_apply(&on, optarg);
				ft_options_apply(&off, optarg);
				o->options_set |= on | ~off;
			}
			break;
		case 'b':
			if (ft_parse_u64(optarg, 4, 4u << 20, &v))
				ft_die("-b wants a buffer size in KiB in [4,4194304], not '%s'",
				       optarg);
			o->buffer_kb = (unsigned int)v;
			break;
		case OPT_SNAPSHOT_ALLOC:
			o->snapshot_alloc = 1;
			break;
		case OPT_NO_LIBCALL:
			o->options &= ~FT_OPT(LIBCALL);
			break;
		case 'A':
			add_spec(&user_args, "-A", optarg, FT_ARGSPEC_ARGS);
			break;
		case OPT_RETVAL:
			add_spec(&user_ret, "--retval", optarg, FT_ARGSPEC_RET);
			break;
		case OPT_FILTER:
			add_filter(&user_flt, optarg);
			break;
		case OPT_STACKMAP_BITS:
			/* out of range is an error, as tracefs refuses a bad value */
			if (ft_parse_u64(optarg, FT_STACKMAP_BITS_MIN, FT_STACKMAP_BITS_MAX, &v))
				ft_die("--stackmap-bits wants a number in [%d,%d], not '%s'",
				       FT_STACKMAP_BITS_MIN, FT_STACKMAP_BITS_MAX, optarg);
			o->stackmap_bits = (unsigned int)v;
			break;
		case 'a':
			o->all_cpus = 1;
			break;
		case OPT_FLIGHT:
			o->flight = 1;
			break;
		case OPT_LAST: {
			char *end;
			double d;

			errno = 0;
			d = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(d > 0) || d > 1e6)
				ft_die("--last wants seconds (> 0), not '%s'", optarg);
			o->flight_last_ms = (uint64_t)(d * 1000 + 0.5);
			if (!o->flight_last_ms)
				o->flight_last_ms = 1;
			break;
		}
		case 'o':
			/* -o - streams; another -o names the file kept as well */
			if (!strcmp(optarg, "-")) {
				o->stream = 1;
			} else {
				o->output = optarg;
				output_named = 1;
			}
			break;
		case 'q':
			o->quiet = 1;
			break;
		case OPT_MOUNT:
			mount_dir = optarg;
			break;
		case 'h':
			fputs(cmd_record_usage, stdout);
			exit(0);
		default:
			ft_bad_option("record", c, argv);
		}
	}
	if (optind < argc)
		o->argv = argv + optind;
	if (o->argv && o->attach_pid)
		ft_die("give a program or -P PID, not both");
	if (!o->tracer)
		o->tracer = o->argv || o->attach_pid ? "function_graph" : "nop";
	if (!o->argv && !o->attach_pid && strcmp(o->tracer, "nop") &&
	    !ft_tracer_is_kernel(o->tracer))
		ft_die("the %s tracer needs a program: ftrail record -p %s -- ./prog", o->tracer,
		       o->tracer);
	if (ft_tracer_is_kernel(o->tracer))
		wakeup_setup(o);
	if (o->patch.n && !o->argv && !o->attach_pid)
		ft_die("--patch needs a program (-- ./prog) or a process (-P PID)");
	if (o->patch.n && !strcmp(o->tracer, "nop"))
		ft_die("--patch needs a function tracer (-p function or function_graph), not nop");
	if (!o->argv && !o->attach_pid && !o->nr_events)
		ft_die("nothing to record: give a program (-- ./prog), a process (-P PID) and/or "
		       "events (-e)");
	check_modes(o);
	build_specs(o, &user_args, &user_ret, &user_flt);
	for (size_t i = 0; i < user_args.n; i++)
		free(user_args.v[i]);
	for (size_t i = 0; i < user_ret.n; i++)
		free(user_ret.v[i]);
	for (size_t i = 0; i < user_flt.n; i++)
		free(user_flt.v[i]);
	free(user_args.v);
	free(user_ret.v);
	free(user_flt.v);
}

/*
 * --mount: the server is started before the recording and told the
 * program's pid once known (it then waits for the program to map its
 * session); it is waited for here so the tree is gone when record returns.
 */
static struct ft_mount_server mount_server = { -1, -1, -1 };

static int start_mount(struct ft_writer *w, const char *path, pid_t pid, int spawned, void *arg,
		       char *err, size_t errlen)
{
	return ft_mount_start(&mount_server, pid, err, errlen);
}

/* -o - with no -o FILE: the trace goes to a scratch directory, removed at the end */
static char scratch_dir[4096], scratch_file[4200];

static void scratch_remove(void)
{
	if (!scratch_dir[0])
		return;
	unlink(scratch_file);
	snprintf(scratch_file + strlen(scratch_file), sizeof(scratch_file) - strlen(scratch_file),
		 ".partial");
	unlink(scratch_file);
	rmdir(scratch_dir);
	scratch_dir[0] = 0;
}

static int start_stream(const char *partial, void *arg, char *err, size_t errlen)
{
	struct ft_stream **s = arg;

	*s = ft_stream_start(partial, stdout, err, errlen);
	return *s ? 0 : -1;
}

int cmd_record(int argc, char **argv)
{
	struct ft_record_extra x = { 0 };
	struct ft_stream *stream = NULL;
	struct ft_record_opts o;
	char err[512] = "";
	int status;
	char meta[128];

	parse_args(argc, argv, &o);
	if (ft_tracer_is_kernel(o.tracer)) {
		snprintf(meta, sizeof(meta), "tracing_thresh_us=%llu\npreempt_model=%s\n",
			 (unsigned long long)wakeup_thresh_us, preempt_model());
		x.meta = meta;
		x.attached = wakeup_attached;
		x.waiting = "scheduler events for the wakeup tracer";
	}
	if (mount_dir) {
		if (!o.argv && !o.attach_pid)
			ft_die("--mount needs a program (-- ./prog) or a process (-P PID)");
		if (ft_tracer_is_kernel(o.tracer))
			ft_die("--mount serves a program's own tracing, not the %s tracer's",
			       o.tracer);
		if (ft_mount_check(mount_dir, err, sizeof(err)) ||
		    ft_mount_spawn(mount_dir, &mount_server, err, sizeof(err)))
			ft_die("%s", err);
		x.attached = start_mount;
		o.live = 1; /* a write to the tree must reach the program at once */
		/* trace and trace_pipe follow the file: events within about 0.5 s */
		o.follow = !o.flight;
	}
	if (o.stream) {
		if (!output_named) {
			const char *tmp = getenv("TMPDIR");

			snprintf(scratch_dir, sizeof(scratch_dir), "%s/ftrail-stream-XXXXXX",
				 tmp && *tmp ? tmp : "/tmp");
			if (!mkdtemp(scratch_dir))
				ft_die("cannot create a directory for the stream's trace in %s: %s",
				       tmp && *tmp ? tmp : "/tmp", strerror(errno));
			snprintf(scratch_file, sizeof(scratch_file), "%s/trace.dat", scratch_dir);
			o.output = scratch_file;
			x.output_name = "the stream";
		}
		x.opened = start_stream;
		x.opened_arg = &stream;
		o.follow = 1;
	}
	status = ft_record_session(&o, &x, argc, argv, err, sizeof(err));
	ft_mount_reap(&mount_server);
	if (stream) {
		char serr[512];
		uint64_t late = 0;
		int closed = 0;

		/* the complete file when there is one, else what the partial holds */
		if (ft_stream_finish(stream, status < 0 ? "" : o.output, &late, &closed, serr,
				     sizeof(serr)) &&
		    status >= 0) {
			scratch_remove();
			ft_die("stream: %s", serr);
		}
		if (late)
			ft_warn("stream: %llu events reached the trace after the stream had passed "
				"their time and are not in it%s%s",
				(unsigned long long)late, output_named ? "; they are in " : "",
				output_named ? o.output : "");
		if (closed && !o.quiet)
			ft_warn("stream: the output was closed; the recording went on to the end");
	}
	scratch_remove();
	if (status < 0)
		ft_die("%s", err);
	if (ft_tracer_is_kernel(o.tracer) && !o.quiet)
		wakeup_summary(&o);
	ft_record_opts_free(&o);
	return status;
}
