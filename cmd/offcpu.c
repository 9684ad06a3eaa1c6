// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail offcpu: where a program waits, from scheduler events, with perf's
 * off-CPU semantics (doc/offcpu.md): intervals at or above --threshold are
 * direct samples, shorter ones are summed per (tgid, pid, stack, state).
 *
 *   --record   record what the analysis needs, with the session of
 *              `ftrail record` (recorder/record_session.h):
 *              sched_switch (prev_state), sched_wakeup(_new),
 *              sched_process_fork, kernel stacks (option stacktrace), user
 *              stacks (userstacktrace), and the runtime's function_graph
 *              for PROG, whose records give exact user stacks
 *   (default)  analyse an existing trace file (analysis/offcpu_file.h)
 */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "analysis/folded.h"
#include "kernel/kcapture.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_file.h"
#include "analysis/offcpu_output.h"
#include "core/options.h"
#include "recorder/record_session.h"
#include "core/symbols.h"
#include "core/tracefile.h"
#include "core/util.h"

const char cmd_offcpu_usage[] =
	"usage: ftrail offcpu --record [--threshold MS] [-o FILE] [-b KB] [-- PROG ARGS... | -P PID]\n"
	"       ftrail offcpu [-i FILE] [--threshold MS] [-P PID] [--top N]\n"
	"                     [--format text|folded|samples]\n"
	"\n"
	"Off-CPU analysis (perf's --off-cpu with --off-cpu-thresh): for every thread,\n"
	"the intervals from being switched out to being switched back in, with the\n"
	"state and the kernel and user stacks it was switched out with.  Intervals\n"
	"of at least the threshold are direct samples (time, tid, period,\n"
	"callchain); shorter ones are summed per (pid, tid, stack, state).  Intervals\n"
	"cut by the start or end of the recording are marked as such.\n"
	"\n"
	"  --record          record first (root): sched_switch/sched_wakeup with kernel\n"
	"                    stacks and userstacktrace, plus function_graph for PROG\n"
	"                    (exact user stacks when PROG is instrumented), then report\n"
	"  -P PID            --record: follow this running process until Ctrl-C or its\n"
	"                    exit; analysis: only this process and its children (-p PID,\n"
	"                    its old spelling, still works with a warning)\n"
	"  -o FILE           --record: output file (default ftrail.dat)\n"
	"  -b KB             --record: kernel buffer size per CPU, KiB\n"
	"  -i FILE           input trace file (default ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"     ") "  --threshold MS    direct-sample threshold in milliseconds (default 500)\n"
			 "  --top N           report the N heaviest stacks (default 20, 0 = all)\n"
			 "  -F, --format FMT  text (default: the report), folded (folded stacks for an\n"
			 "                    off-CPU flame graph, BCC offcputime's convention:\n"
			 "                    comm;user;-;kernel, microseconds) or samples (the direct\n"
			 "                    samples, perf script's shape); --folded and --samples,\n"
			 "                    the old spellings, still work with a warning\n"
			 "  -q                --record: no recording summary\n"
			 "\n"
			 "With --record, the exit status and the handling of signals are record's\n"
			 "(ftrail record --help): PROG's status, or 128+N when signal N killed it.\n";

enum {
	OPT_RECORD = 256,
	OPT_THRESHOLD,
	OPT_TOP,
	OPT_FOLDED,
	OPT_SAMPLES,
};

static const struct option long_options[] = {
	FT_NO_DEMANGLE_LONGOPT,
	{ "record", no_argument, NULL, OPT_RECORD },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "top", required_argument, NULL, OPT_TOP },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "samples", no_argument, NULL, OPT_SAMPLES },
	{ "format", required_argument, NULL, 'F' },
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --format: what the analysis prints (the order of formats[]) */
enum offcpu_format {
	FMT_TEXT,
	FMT_FOLDED,
	FMT_SAMPLES
};
static const char *const formats[] = { "text", "folded", "samples", NULL };

struct offcpu_args {
	int record;
	const char *input, *output;
	uint64_t thresh_ns;
	uint64_t top;
	int format, quiet;
	uint32_t pid;
	unsigned int buffer_kb;
	char **argv;
};

static void parse_args(int argc, char **argv, struct offcpu_args *a)
{
	uint64_t v;
	int c;

	memset(a, 0, sizeof(*a));
	a->input = "ftrail.dat";
	a->output = "ftrail.dat";
	a->thresh_ns = FT_OFFCPU_DEFAULT_THRESH_MS * 1000000ull;
	a->top = 20;
	a->format = -1;
	while ((c = getopt_long(argc, argv, "+:i:o:p:P:b:F:qh", long_options, NULL)) != -1) {
		switch (c) {
		case OPT_RECORD:
			a->record = 1;
			break;
		case OPT_THRESHOLD:
			if (ft_parse_u64(optarg, 0, UINT64_MAX / 1000000, &v))
				ft_die("--threshold wants milliseconds, not '%s'", optarg);
			a->thresh_ns = v * 1000000;
			break;
		case OPT_TOP:
			if (ft_parse_u64(optarg, 0, UINT32_MAX, &v))
				ft_die("--top wants a number, not '%s'", optarg);
			a->top = v;
			break;
		case 'F':
			a->format = ft_format_choose("offcpu", optarg, formats, a->format);
			break;
		case OPT_FOLDED:
			a->format = ft_format_deprecated("offcpu", "--folded", "folded", formats,
							 a->format);
			break;
		case OPT_SAMPLES:
			a->format = ft_format_deprecated("offcpu", "--samples", "samples", formats,
							 a->format);
			break;
		case 'i':
			a->input = optarg;
			break;
		case 'o':
			a->output = optarg;
			break;
		case 'p':
			/* -p is the tracer in record: the pid is -P everywhere (trace-cmd's) */
			ft_warn("offcpu: -p PID is deprecated, use -P PID");
			/* fall through */
		case 'P':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("-P wants a process id, not '%s'", optarg);
			a->pid = (uint32_t)v;
			break;
		case 'b':
			if (ft_parse_u64(optarg, 4, 4u << 20, &v))
				ft_die("-b wants a buffer size in KiB in [4,4194304], not '%s'",
				       optarg);
			a->buffer_kb = (unsigned int)v;
			break;
		case 'q':
			a->quiet = 1;
			break;
		case 'h':
			fputs(cmd_offcpu_usage, stdout);
			exit(0);
		default:
			ft_shared_option("offcpu", c, argv);
		}
	}
	if (optind < argc)
		a->argv = argv + optind;
	if (a->argv && !a->record)
		ft_die("offcpu: a program to run needs --record: ftrail offcpu --record -- %s",
		       a->argv[0]);
	if (a->argv && a->pid)
		ft_die("offcpu: give a program or -P PID, not both");
	if (a->format < 0)
		a->format = FMT_TEXT;
}

/*
 * For -P PID, where no runtime runs in the process to describe it: the
 * MODULES lines (executable file mappings, tracefile.h's format) with their
 * SYMTABs, and TASKS (threads and names), so user stacks from
 * userstacktrace are symbolised.  Best effort: a process that exits while
 * this reads it is described as far as it was read; a module whose symbols
 * cannot be read gets no SYMTAB (its addresses print as path+offset).
 * Returns 0, or -1 with err when the file cannot be written.
 */
static int write_process_tables(struct ft_writer *w, const char *path, pid_t pid, char *err,
				size_t errlen)
{
	char fn[64], line[4096], bid[128];
	char *mods = NULL, *tasks = NULL;
	size_t mods_len = 0, tasks_len = 0;
	FILE *maps, *mf = open_memstream(&mods, &mods_len),
		    *tf = open_memstream(&tasks, &tasks_len);
	uint64_t idx = 0;
	int werr = 0; /* errno of the first failed write */
	DIR *d;
	struct dirent *de;

	if (!mf || !tf)
		ft_die("out of memory");
	snprintf(fn, sizeof(fn), "/proc/%d/maps", (int)pid);
	maps = fopen(fn, "r");
	while (maps && fgets(line, sizeof(line), maps)) {
		unsigned long long start, end, off;
		char perms[8], file[2048];
		struct ft_symtab *st;

		if (sscanf(line, "%llx-%llx %7s %llx %*s %*s %2047[^\n]", &start, &end, perms, &off,
			   file) != 5 ||
		    perms[2] != 'x' || file[0] != '/')
			continue;
		st = ft_symtab_from_elf(file, bid, sizeof(bid), NULL, 0);
		fprintf(mf, "%d %llx %llx %llx %s %s\n", (int)pid, start, end, off,
			st && bid[0] ? bid : "-", file);
		if (st) {
			size_t len;
			void *enc = ft_symtab_encode(st, &len);

			if (enc && ft_writer_add(w, FT_SEC_SYMTAB, idx, enc, len, 1) && !werr)
				werr = errno;
			free(enc);
			ft_symtab_free(st);
		}
		idx++;
	}
	if (maps)
		fclose(maps);
	snprintf(fn, sizeof(fn), "/proc/%d/task", (int)pid);
	d = opendir(fn);
	while (d && (de = readdir(d))) {
		char cfn[300], comm[64] = "";
		FILE *cf;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		snprintf(cfn, sizeof(cfn), "/proc/%d/task/%s/comm", (int)pid, de->d_name);
		cf = fopen(cfn, "r");
		if (cf && fgets(comm, sizeof(comm), cf))
			comm[strcspn(comm, "\n")] = 0;
		if (cf)
			fclose(cf);
		fprintf(tf, "%d %s %s\n", (int)pid, de->d_name, comm[0] ? comm : "<...>");
	}
	if (d)
		closedir(d);
	fclose(mf);
	fclose(tf);
	if (!werr && ((mods_len && ft_writer_add(w, FT_SEC_MODULES, 0, mods, mods_len, 1)) ||
		      (tasks_len && ft_writer_add(w, FT_SEC_TASKS, 0, tasks, tasks_len, 0))))
		werr = errno;
	free(mods);
	free(tasks);
	if (werr) {
		ft_seterr(err, errlen, "cannot write %s: %s", path, strerror(werr));
		return -1;
	}
	return 0;
}

/*
 * The session's attached hook (record_session.h): META offcpu_pid for the
 * program or the followed process, and for a followed one (no runtime in
 * it to describe it) its MODULES, SYMTABs and TASKS.
 */
static int on_attached(struct ft_writer *w, const char *path, pid_t pid, int spawned, void *arg,
		       char *err, size_t errlen)
{
	char meta[64];
	int n = snprintf(meta, sizeof(meta), "offcpu_pid=%d\n", (int)pid);

	if (ft_writer_add(w, FT_SEC_META, 0, meta, (size_t)n, 0)) {
		ft_seterr(err, errlen, "cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return spawned ? 0 : write_process_tables(w, path, pid, err, errlen);
}

/*
 * Record into a->output with `ftrail record`'s session
 * (recorder/record_session.h): scheduler events with kernel and user
 * stacks, plus function_graph for PROG.  Returns record's exit status
 * (PROG's, 128+N for a signal); dies on failure.
 */
static int do_record(struct offcpu_args *a, int argc, char **argv)
{
	struct ft_record_opts o;
	struct ft_record_extra x = { 0 };
	char err[512] = "", meta[64];
	int status;

	if (ft_kcapture_available(err, sizeof(err)))
		ft_die("%s", err);
	if (a->pid && kill((pid_t)a->pid, 0) && errno == ESRCH)
		ft_die("offcpu: no process %u", a->pid);

	memset(&o, 0, sizeof(o));
	o.output = a->output;
	o.tracer = a->argv ? "function_graph" : "nop";
	o.options = ft_options_default() | FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE);
	o.buffer_kb = a->buffer_kb ? a->buffer_kb : 8192;
	o.quiet = a->quiet;
	o.argv = a->argv;
	ft_record_opts_add_event(&o, "sched:sched_switch");
	ft_record_opts_add_event(&o, "sched:sched_wakeup");
	ft_record_opts_add_event(&o, "sched:sched_wakeup_new");
	ft_record_opts_add_event(&o, "sched:sched_process_fork");

	snprintf(meta, sizeof(meta), "offcpu_threshold_ms=%llu\n",
		 (unsigned long long)(a->thresh_ns / 1000000));
	x.meta = meta;
	x.follow_pid = (pid_t)a->pid;
	x.waiting = a->pid ? "off-CPU events of the process" : "off-CPU events system-wide";
	x.attached = on_attached;
	status = ft_record_session(&o, &x, argc, argv, err, sizeof(err));
	if (status < 0)
		ft_die("%s", err);
	ft_record_opts_free(&o);
	a->input = a->output;
	return status;
}

static void write_source_line(struct ft_offcpu_file *f, FILE *out)
{
	struct ft_offcpu_file_stats fs;
	struct ft_offcpu_stats st;

	ft_offcpu_file_get_stats(f, &fs);
	ft_offcpu_get_stats(ft_offcpu_file_engine(f), &st);
	fprintf(out,
		"# %llu kernel events (%llu lost), %llu user records; user stacks of %llu "
		"switch-outs: %llu from function_graph records (%llu with untraced leaf frames "
		"from userstacktrace), %llu from userstacktrace, %llu none; %llu without kernel "
		"stack\n",
		(unsigned long long)fs.kevents, (unsigned long long)fs.kmissed,
		(unsigned long long)fs.uevents, (unsigned long long)st.switch_out,
		(unsigned long long)fs.ustack_graph, (unsigned long long)fs.ustack_joined,
		(unsigned long long)fs.ustack_kernel, (unsigned long long)fs.ustack_none,
		(unsigned long long)fs.kstack_none);
}

int cmd_offcpu(int argc, char **argv)
{
	struct offcpu_args a;
	struct ft_offcpu_file *f;
	struct ft_offcpu *oc;
	char err[512] = "";
	int rc = 0, status = 0;

	parse_args(argc, argv, &a);
	if (a.record)
		status = do_record(&a, argc, argv);
	if (access(a.input, R_OK))
		ft_die("cannot open %s: %s", a.input, strerror(errno));
	f = ft_offcpu_file_open(a.input, a.thresh_ns, a.record ? 0 : a.pid, err, sizeof(err));
	if (!f)
		ft_die_file(a.input, err);
	oc = ft_offcpu_file_engine(f);
	if (a.format == FMT_FOLDED) {
		struct ft_folded *fo = ft_folded_new(0);

		if (!fo)
			ft_die("out of memory");
		ft_folded_set_sink(fo, stdout);
		if (ft_offcpu_fold(oc, fo, ft_offcpu_file_sym, f, 1000) ||
		    ft_folded_write(fo, stdout))
			rc = -1;
		ft_folded_free(fo);
	} else if (a.format == FMT_SAMPLES) {
		rc = ft_offcpu_write_samples(oc, stdout, ft_offcpu_file_sym, f);
	} else {
		write_source_line(f, stdout);
		rc = ft_offcpu_write_report(oc, stdout, (size_t)a.top, ft_offcpu_file_sym, f);
	}
	ft_offcpu_file_close(f);
	if (rc || fflush(stdout))
		ft_die("cannot write the output: %s", strerror(errno));
	return status; /* --record: PROG's, as record's (see ftrail record --help) */
}
