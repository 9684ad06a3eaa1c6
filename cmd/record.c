// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail record: trace a program (user functions through the injected
 * runtime) and/or kernel trace events, into one trace file.
 *
 * This file parses the command line with trace-cmd's option names and
 * sequences the two capture engines; the engines are recorder/ (user space)
 * and kernel/ (tracefs).  Order matters for not missing anything:
 *   open the file -> start kernel capture (so the program's first syscalls
 *   are seen) -> spawn the program paused -> attach kernel capture to its pid
 *   -> let it run -> drain until it exits -> stop kernel capture -> close.
 */
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>
#include <unistd.h>

#include "builtin.h"
#include "clock.h"
#include "kcapture.h"
#include "options.h"
#include "tracefile.h"
#include "urecord.h"
#include "uevent.h" /* issue 7: user events (uev) */
#include "util.h"
#include "version.h"

const char cmd_record_usage[] =
	"usage: ftrail record [options] [--] [PROG ARGS...]\n"
	"\n"
	"Trace PROG's functions (compiled with -pg, -pg -mfentry, -mfentry -mnop-mcount,\n"
	"-fpatchable-function-entry=N or -finstrument-functions) and/or kernel trace\n"
	"events, into one trace file.  Without PROG, kernel events are recorded\n"
	"system-wide until Ctrl-C.\n"
	"\n"
	"  -p TRACER            nop | function | function_graph (default function_graph\n"
	"                       with a program, nop without)\n"
	"  -l GLOB              set_ftrace_filter: trace only matching functions; '!GLOB'\n"
	"                       removes, 'GLOB:mod:MODULE' limits to a module,\n"
	"                       'FUNC:traceon|traceoff|stacktrace|snapshot[:COUNT]' is a\n"
	"                       function command (repeatable, appends)\n"
	"  -n GLOB              set_ftrace_notrace: never trace matching functions\n"
	"  -g FUNC              set_graph_function: graph only below FUNC\n"
	"  --graph-notrace FUNC set_graph_notrace: hide FUNC and below\n"
	"  --max-graph-depth N  max_graph_depth\n"
	"  --tracing-thresh US  function_graph: only calls lasting at least US microseconds\n"
	"  --pid TID            set_ftrace_pid: trace only this thread (repeatable)\n"
	"  -e SYS:EVENT|SYS|all enable kernel events (repeatable); u:SYS:EVENT, u:SYS,\n"
	"                       u:all enable the program's own events (<ftrail/ftrail.h>)\n"
	"  -f FILTER            filter for the preceding -e (ftrace filter syntax)\n"
	"  -R TRIGGER           trigger for the preceding user -e: traceon, traceoff,\n"
	"                       stacktrace, snapshot, enable_event:SYS:EV,\n"
	"                       disable_event:SYS:EV, with [:COUNT] [if FILTER]\n"
	"  -T                   stack trace with each event (option stacktrace)\n"
	"  -O [no]OPTION        set a trace option (ftrace's names: stackmap,\n"
	"                       userstacktrace, overwrite, print-parent, funcgraph-*...)\n"
	"  -b KB                buffer size per buffer (per thread, per CPU), KiB\n"
	"  --stackmap-bits N    stack map capacity 2^N stacks, N in [10,18], default 14\n"
	"  --snapshot-alloc     allocate the snapshot buffer at start (see ftrail snapshot)\n"
	"  -a                   kernel events from the whole system, not only PROG\n"
	"  -o FILE              output file (default ftrail.dat)\n"
	"  -q                   no summary on stderr\n";

enum {
	OPT_MAX_GRAPH_DEPTH = 256,
	OPT_GRAPH_NOTRACE,
	OPT_THRESH,
	OPT_PID,
	OPT_STACKMAP_BITS,
	OPT_SNAPSHOT_ALLOC,
};

static const struct option long_options[] = {
	{ "max-graph-depth", required_argument, NULL, OPT_MAX_GRAPH_DEPTH },
	{ "graph-notrace", required_argument, NULL, OPT_GRAPH_NOTRACE },
	{ "tracing-thresh", required_argument, NULL, OPT_THRESH },
	{ "pid", required_argument, NULL, OPT_PID },
	{ "stackmap-bits", required_argument, NULL, OPT_STACKMAP_BITS },
	{ "snapshot-alloc", no_argument, NULL, OPT_SNAPSHOT_ALLOC },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

void ft_strv_push(struct ft_strv *sv, const char *s)
{
	sv->v = ft_realloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = ft_strdup(s);
	sv->v[sv->n] = NULL;
}

static volatile sig_atomic_t stop_requested;
static struct ft_kcapture *active_kc;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

static void parse_args(int argc, char **argv, struct ft_record_opts *o)
{
	uint64_t v;
	int c;

	memset(o, 0, sizeof(*o));
	o->output = "ftrail.dat";
	o->options = ft_options_default();
	/* '+': stop at the program's name so its own options stay its own */
	while ((c = getopt_long(argc, argv, "+:p:l:n:g:e:f:R:TO:b:ao:qh", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			if (strcmp(optarg, "nop") && strcmp(optarg, "function") &&
			    strcmp(optarg, "function_graph"))
				ft_die("unknown tracer '%s' (available: nop function function_graph)",
				       optarg);
			o->tracer = optarg;
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
				ft_die("--max-graph-depth wants a number in [0,1024], not '%s'", optarg);
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
			o->events = ft_realloc(o->events, (o->nr_events + 1) * sizeof(*o->events));
			o->events[o->nr_events].name = ft_strdup(optarg);
			o->events[o->nr_events].filter = NULL;
			o->events[o->nr_events].trigger = NULL;
			o->nr_events++;
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
			break;
		case 'b':
			if (ft_parse_u64(optarg, 4, 4u << 20, &v))
				ft_die("-b wants a buffer size in KiB in [4,4194304], not '%s'", optarg);
			o->buffer_kb = (unsigned int)v;
			break;
		case OPT_SNAPSHOT_ALLOC:
			o->snapshot_alloc = 1;
			break;
		case OPT_STACKMAP_BITS:
			if (ft_parse_u64(optarg, 0, 64, &v))
				ft_die("--stackmap-bits wants a number, not '%s'", optarg);
			/* clamped to [10,18] like the kernel's ftrace_stackmap.bits */
			o->stackmap_bits = v < 10 ? 10 : v > 18 ? 18 : (unsigned int)v;
			break;
		case 'a':
			o->all_cpus = 1;
			break;
		case 'o':
			o->output = optarg;
			break;
		case 'q':
			o->quiet = 1;
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
	if (!o->tracer)
		o->tracer = o->argv ? "function_graph" : "nop";
	if (!o->argv && strcmp(o->tracer, "nop"))
		ft_die("the %s tracer needs a program: ftrail record -p %s -- ./prog", o->tracer,
		       o->tracer);
	if (!o->argv && !o->nr_events)
		ft_die("nothing to record: give a program (-- ./prog) and/or events (-e)");
}

static void free_strv(struct ft_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
}

static void free_opts(struct ft_record_opts *o)
{
	free_strv(&o->filter);
	free_strv(&o->notrace);
	free_strv(&o->graph);
	free_strv(&o->graph_notrace);
	free_strv(&o->pids);
	for (size_t i = 0; i < o->nr_events; i++) {
		free(o->events[i].name);
		free(o->events[i].filter);
		free(o->events[i].trigger);
	}
	free(o->events);
}

/* META: what a reader needs to know about how this trace was made. */
static void write_meta(struct ft_writer *w, const struct ft_record_opts *o, int argc, char **argv,
		       const struct ft_clock *clk)
{
	char buf[8192], host[256] = "";
	struct utsname u;
	int n = 0;

	uname(&u);
	gethostname(host, sizeof(host) - 1);
	n += snprintf(buf + n, sizeof(buf) - n, "ftrail_version=%s\n", FTRAIL_VERSION);
	n += snprintf(buf + n, sizeof(buf) - n, "tracer=%s\n", o->tracer);
	n += snprintf(buf + n, sizeof(buf) - n, "options=%s\n", ft_options_format(o->options));
	n += snprintf(buf + n, sizeof(buf) - n, "hostname=%s\nkernel=%s\narch=%s\n", host,
		      u.release, u.machine);
	n += snprintf(buf + n, sizeof(buf) - n, "nr_cpus=%ld\n", sysconf(_SC_NPROCESSORS_CONF));
	n += snprintf(buf + n, sizeof(buf) - n, "start_time=%lld\n", (long long)time(NULL));
	n += snprintf(buf + n, sizeof(buf) - n, "cmdline=");
	for (int i = 0; i < argc && n < (int)sizeof(buf) - 512; i++)
		n += snprintf(buf + n, sizeof(buf) - n, "%s%s", i ? " " : "", argv[i]);
	n += snprintf(buf + n, sizeof(buf) - n, "\n");
	n += ft_clock_meta(clk, buf + n, sizeof(buf) - n);
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	if (ft_writer_add(w, FT_SEC_META, 0, buf, n, 0))
		ft_die("cannot write %s: %s", o->output, strerror(errno));
}

static void print_urecord_warnings(struct ft_urecord *u)
{
	const char *m;

	while ((m = ft_urecord_next_warning(u)))
		ft_warn("%s", m);
}

static void report_program(const struct ft_record_opts *o, const struct ft_urecord_result *r)
{
	if (r->signaled)
		ft_warn("%s was killed by signal %d (%s)%s; events written before it are in %s",
			o->argv[0], r->signo, strsignal(r->signo),
			r->core_dumped ? ", core dumped" : "", o->output);
	else if (r->exited && r->exit_status && !o->quiet)
		ft_warn("%s exited with status %d", o->argv[0], r->exit_status);
}

int cmd_record(int argc, char **argv)
{
	struct ft_record_opts o;
	struct ft_urecord_result ures = { 0 };
	struct ft_uev_area *uev; /* uev: user events, NULL when none selected */
	struct ft_kcapture_stats kst = { 0 };
	struct ft_urecord *u = NULL;
	struct ft_writer *w;
	struct ft_clock clk;
	struct sigaction sa;
	char err[512] = "";
	int want_kernel = 0, want_user_events = 0, inject;
	pid_t pid = 0;

	parse_args(argc, argv, &o);
	for (size_t i = 0; i < o.nr_events; i++)
		if (ft_kcapture_is_kernel_event(o.events[i].name))
			want_kernel = 1;
		else
			want_user_events = 1;
	if (want_kernel && ft_kcapture_available(err, sizeof(err)))
		ft_die("%s", err);
	/* the runtime goes in for function tracers and for user events (u:...) */
	inject = strcmp(o.tracer, "nop") || want_user_events;
	uev = ft_uev_setup(&o, ft_kcapture_is_kernel_event, err, sizeof(err)); /* uev */
	if (!uev && err[0])
		ft_die("%s", err);

	ft_clock_calibrate(&clk);
	w = ft_writer_open(o.output, 3);
	if (!w)
		ft_die("cannot create %s: %s", o.output, strerror(errno));
	write_meta(w, &o, argc, argv, &clk);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop_signal;
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);

	if (o.argv) {
		u = ft_urecord_create(&o, inject, err, sizeof(err));
		if (!u || ft_urecord_spawn(u, &pid, err, sizeof(err))) {
			ft_writer_close(w);
			unlink(o.output);
			ft_die("%s", err);
		}
		print_urecord_warnings(u);
	}
	if (want_kernel) {
		active_kc = ft_kcapture_start(&o, w, o.all_cpus ? 0 : pid, err, sizeof(err));
		if (!active_kc) {
			if (u)
				ft_urecord_destroy(u); /* kills the paused child */
			ft_writer_close(w);
			unlink(o.output);
			ft_die("%s", err);
		}
	}

	if (u) {
		ft_urecord_go(u);
		if (ft_urecord_run(u, w, &stop_requested, &ures, err, sizeof(err)))
			ft_warn("%s", err);
		print_urecord_warnings(u);
	} else {
		if (!o.quiet)
			fprintf(stderr, "ftrail: recording kernel events, Ctrl-C to stop\n");
		while (!stop_requested)
			pause();
	}

	if (active_kc && ft_kcapture_stop(active_kc, &kst, err, sizeof(err)))
		ft_warn("%s", err);
	active_kc = NULL;
	if (uev && ft_uev_finish(uev, w, NULL, err, sizeof(err))) /* uev */
		ft_warn("cannot write the user event formats: %s", strerror(errno));
	for (char *l = uev ? strtok(err, "\n") : NULL; l; l = strtok(NULL, "\n"))
		ft_warn("%s", l);
	if (ft_writer_close(w))
		ft_die("cannot finish %s: %s", o.output, strerror(errno));
	if (u) {
		report_program(&o, &ures);
		ft_urecord_destroy(u);
	}
	if (!o.quiet) {
		if (u && inject)
			fprintf(stderr,
				"ftrail: %llu user records (%llu lost) from %u threads\n",
				(unsigned long long)ures.events, (unsigned long long)ures.lost,
				ures.threads);
		if (want_kernel)
			fprintf(stderr, "ftrail: %llu kernel events (%llu lost), %llu stacks\n",
				(unsigned long long)kst.events, (unsigned long long)kst.lost,
				(unsigned long long)kst.stacks);
		fprintf(stderr, "ftrail: trace written to %s\n", o.output);
	}
	free_opts(&o);
	return 0;
}
