// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail info: what a trace file holds and how it was recorded, as
 * `uftrace info` prints it -- the command line, the machine, the program's
 * exit, the tracer and its options, the threads with their names, the
 * records and losses of each side, the buffers and the file's sections.
 *
 * The recording's own counters come from META (written by the recorder at
 * the end and by the kernel capture); the time span, the threads and the
 * per-kind counts come from reading the whole trace once, so a file cut
 * short (a killed recorder) is described up to its last complete section,
 * with the reader's warning.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cmd/builtin.h"
#include "analysis/kevents.h"
#include "analysis/trace.h"
#include "core/tracefile.h"
#include "core/util.h"

const char cmd_info_usage[] =
	"usage: ftrail info [-i FILE] [--no-scan]\n"
	"\n"
	"What the trace holds and how it was recorded, as uftrace info prints it:\n"
	"the command line, host, kernel and CPUs, the program's exit status, the\n"
	"tracer and options, the time span, the threads and their names, records\n"
	"and losses (user and kernel), the buffers, and the file's sections.\n"
	"\n"
	"  -i FILE      trace file (default ./ftrail.dat)\n"
	"  --no-scan    only what the file's header and metadata say: no time span,\n"
	"               thread list or per-kind counts (which read every record)\n";

enum {
	OPT_NO_SCAN = 256,
};

static const struct option long_opts[] = {
	{ "input", required_argument, NULL, 'i' },
	{ "no-scan", no_argument, NULL, OPT_NO_SCAN },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* What one pass over the records finds. */
struct scan {
	uint64_t first, last; /* ns; first > last while nothing was seen */
	uint64_t kinds[FT_EV_SIGRET + 1];
	uint64_t kernel, kernel_missed;
	uint32_t *tids; /* distinct, in order of first appearance */
	size_t nr_tids, cap_tids;
};

static const char *const kind_names[FT_EV_SIGRET + 1] = {
	[FT_EV_ENTRY] = "function entries",
	[FT_EV_EXIT] = "function exits",
	[FT_EV_FUNC] = "function calls",
	[FT_EV_STACK] = "stacks",
	[FT_EV_LOST] = "loss marks",
	[FT_EV_MARKER] = "markers",
	[FT_EV_BINMARKER] = "raw markers",
	[FT_EV_EVENT] = "program events",
	[FT_EV_COMM] = "thread names",
	[FT_EV_FORK] = "forks",
	[FT_EV_EXEC] = "execs",
	[FT_EV_TEXIT] = "thread exits",
	[FT_EV_SIGNAL] = "signal handlers",
	[FT_EV_TRACE_ON] = "tracing on",
	[FT_EV_TRACE_OFF] = "tracing off",
};

static void span(struct scan *s, uint64_t ts)
{
	if (ts < s->first)
		s->first = ts;
	if (ts > s->last)
		s->last = ts;
}

static void add_tid(struct scan *s, uint32_t tid)
{
	/* a thread's records come in runs: the last one seen is the usual hit */
	if (s->nr_tids && s->tids[s->nr_tids - 1] == tid)
		return;
	for (size_t i = 0; i < s->nr_tids; i++)
		if (s->tids[i] == tid)
			return;
	if (FT_GROW(s->tids, s->cap_tids, s->nr_tids + 1, 16) < 0)
		ft_die("out of memory");
	s->tids[s->nr_tids++] = tid;
}

static void scan_user(struct ft_trace *t, struct scan *s, const char *input)
{
	const struct ft_event *ev;
	char err[512];
	int ret;

	while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
		if ((unsigned)ev->type < FT_EV_SOURCE)
			s->kinds[ev->type]++;
		if (ev->type == FT_EV_SOURCE)
			continue;
		span(s, ev->ts);
		add_tid(s, ev->tid);
	}
	if (ret < 0)
		ft_die_file(input, err);
}

static void scan_kernel(struct ft_kevents *k, struct scan *s, const char *input)
{
	struct ft_kevent kev;
	int ret;

	while ((ret = ft_kevents_next(k, &kev)) == 1) {
		if (kev.kind == FT_KEV_MISSED) {
			s->kernel_missed += kev.missed;
			continue;
		}
		if (kev.kind != FT_KEV_EVENT)
			continue;
		s->kernel++;
		span(s, kev.ts);
	}
	if (ret < 0)
		ft_die_file(input, ft_kevents_error(k));
}

static void row(const char *name, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void row(const char *name, const char *fmt, ...)
{
	va_list ap;

	printf("# %-20s: ", name);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}

/* A META value as a row, when the file has it. */
static void meta_row(struct ft_trace *t, const char *name, const char *key)
{
	const char *v = ft_trace_meta(t, key);

	if (v && *v)
		row(name, "%s", v);
}

static uint64_t meta_u64(struct ft_trace *t, const char *key, int *have)
{
	const char *v = ft_trace_meta(t, key);
	uint64_t n = 0;

	*have = v && !ft_parse_u64(v, 0, UINT64_MAX, &n);
	return n;
}

static void print_exit(struct ft_trace *t)
{
	const char *code = ft_trace_meta(t, "program_exit");
	const char *sig = ft_trace_meta(t, "program_signal");
	const char *core = ft_trace_meta(t, "program_core");

	if (sig) {
		int n = atoi(sig);
		const char *name = sigabbrev_np(n);

		row("exit status", "terminated by signal %d%s%s%s%s", n, name ? " (SIG" : "",
		    name ? name : "", name ? ")" : "",
		    core && !strcmp(core, "1") ? ", core dumped" : "");
	} else if (code) {
		row("exit status", "exited with code %s", code);
	} else if (ft_trace_meta(t, "attached_pid")) {
		row("exit status", "%s",
		    !strcmp(ft_trace_meta(t, "attached_exited") ?: "0", "1")
			    ? "the attached process exited while traced"
			    : "detached (the process went on running)");
	}
}

static void print_time(const char *name, uint64_t ns)
{
	if (ns >= 1000000000)
		row(name, "%" PRIu64 ".%09" PRIu64 " s", ns / 1000000000, ns % 1000000000);
	else if (ns >= 1000000)
		row(name, "%" PRIu64 ".%06" PRIu64 " ms", ns / 1000000, ns % 1000000);
	else
		row(name, "%" PRIu64 ".%03" PRIu64 " us", ns / 1000, ns % 1000);
}

static void print_threads(struct ft_trace *t, const struct scan *s)
{
	const char *attached = ft_trace_meta(t, "attached_threads");

	row("number of tasks", "%zu%s%s%s", s->nr_tids, attached ? " (" : "",
	    attached ? attached : "", attached ? " when attached)" : "");
	printf("# %-20s: ", "task list");
	for (size_t i = 0; i < s->nr_tids; i++)
		printf("%s%" PRIu32 "(%s)", i ? ", " : "", s->tids[i],
		       ft_trace_comm(t, s->tids[i]));
	putchar('\n');
}

static void print_records(struct ft_trace *t, const struct scan *s, int scanned)
{
	int have_ev, have_lost;
	uint64_t events = meta_u64(t, "user_events", &have_ev);
	uint64_t lost = meta_u64(t, "user_lost", &have_lost);
	uint64_t klost;
	int have_klost;

	/* the recorder's count, as its summary line said; the reader's without it */
	if (have_ev)
		row("user records", "%" PRIu64 " (%" PRIu64 " lost)", events, have_lost ? lost : 0);
	else if (scanned)
		row("user records", "%" PRIu64 " (%" PRIu64 " lost)", ft_trace_nr_decoded(t),
		    ft_trace_nr_lost(t));
	for (int k = 0; scanned && k <= FT_EV_SIGRET; k++)
		if (s->kinds[k] && kind_names[k])
			row(kind_names[k], "%" PRIu64, s->kinds[k]);
	klost = meta_u64(t, "kernel_lost", &have_klost);
	if (scanned && (s->kernel || s->kernel_missed))
		row("kernel events", "%" PRIu64 " (%" PRIu64 " lost)", s->kernel,
		    have_klost && klost > s->kernel_missed ? klost : s->kernel_missed);
	else if (!scanned && have_klost)
		row("kernel lost", "%" PRIu64, klost);
}

static void print_buffers(struct ft_trace *t)
{
	const char *mode = ft_trace_meta(t, "buffer_mode");
	const char *kb = ft_trace_meta(t, "buffer_kb");
	const char *peak = ft_trace_meta(t, "buffer_peak_kb");
	const char *waits = ft_trace_meta(t, "buffer_block_waits");
	const char *kmode = ft_trace_meta(t, "kernel_buffer_mode");

	if (mode && kb)
		row("user buffers", "%s mode, %s KiB per thread%s%s%s%s%s", mode, kb,
		    peak ? ", peak " : "", peak ? peak : "", peak ? " KiB" : "",
		    waits && strcmp(waits, "0") ? ", threads waited " : "",
		    waits && strcmp(waits, "0") ? waits : "");
	if (kmode)
		row("kernel buffers", "%s mode", kmode);
}

static const char *section_name(uint32_t type)
{
	static const char *const names[FT_SEC_MAX] = {
		[FT_SEC_END] = "END",		[FT_SEC_META] = "META",
		[FT_SEC_MODULES] = "MODULES",	[FT_SEC_FUNCS] = "FUNCS",
		[FT_SEC_SYMTAB] = "SYMTAB",	[FT_SEC_KALLSYMS] = "KALLSYMS",
		[FT_SEC_STACKMAP] = "STACKMAP", [FT_SEC_UDATA] = "UDATA",
		[FT_SEC_KFORMATS] = "KFORMATS", [FT_SEC_KDATA] = "KDATA",
		[FT_SEC_TASKS] = "TASKS",	[FT_SEC_UFORMATS] = "UFORMATS",
		[FT_SEC_SNAPSHOT] = "SNAPSHOT", [FT_SEC_ARGSPEC] = "ARGSPEC",
		[FT_SEC_KSNAP] = "KSNAP",
	};

	return type < FT_SEC_MAX && names[type] ? names[type] : "?";
}

/* One row per section type: how many, bytes on disk and once decompressed. */
static void print_sections(struct ft_reader *r)
{
	uint64_t nr[FT_SEC_MAX] = { 0 }, disk[FT_SEC_MAX] = { 0 }, raw[FT_SEC_MAX] = { 0 };
	uint64_t all_disk = 0, all_raw = 0;
	char name[32];

	for (size_t i = 0; i < ft_reader_nr_sections(r); i++) {
		const struct ft_section *s = ft_reader_section(r, i);

		if (s->type >= FT_SEC_MAX)
			continue;
		nr[s->type]++;
		disk[s->type] += s->disk_size;
		raw[s->type] += s->raw_size;
		all_disk += s->disk_size;
		all_raw += s->raw_size;
	}
	for (uint32_t ty = 1; ty < FT_SEC_MAX; ty++) {
		if (!nr[ty])
			continue;
		snprintf(name, sizeof(name), "section %s", section_name(ty));
		row(name, "%" PRIu64 " chunk%s, %" PRIu64 " bytes (%" PRIu64 " raw)", nr[ty],
		    nr[ty] == 1 ? "" : "s", disk[ty], raw[ty]);
	}
	row("sections in all", "%" PRIu64 " bytes (%" PRIu64 " raw)%s", all_disk, all_raw,
	    ft_reader_truncated(r) ? ", the file is cut short" : "");
}

int cmd_info(int argc, char **argv)
{
	const char *input = "ftrail.dat", *v;
	struct scan s = { .first = UINT64_MAX };
	struct ft_kevents *k = NULL;
	struct ft_trace *t;
	char err[512] = "";
	int c, scanned = 1, have;
	time_t when;

	while ((c = getopt_long(argc, argv, ":i:h", long_opts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case OPT_NO_SCAN:
			scanned = 0;
			break;
		case 'h':
			fputs(cmd_info_usage, stdout);
			return 0;
		default:
			ft_bad_option("info", c, argv);
		}
	}
	ft_no_operands("info", argc, argv, "the trace file is given with -i");
	t = ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	if (scanned) {
		k = ft_kevents_open(ft_trace_reader(t), err, sizeof(err));
		if (!k && err[0])
			ft_die_file(input, err);
		scan_user(t, &s, input);
		if (k)
			scan_kernel(k, &s, input);
	}

	printf("# system information\n# ==================\n");
	v = ft_trace_meta(t, "ftrail_version");
	row("program version", "ftrail %s", v ? v : "(unknown)");
	when = (time_t)meta_u64(t, "start_time", &have);
	if (have) {
		char date[64];
		struct tm tm;

		if (localtime_r(&when, &tm) && strftime(date, sizeof(date), "%a %b %e %T %Y", &tm))
			row("recorded on", "%s", date);
	}
	meta_row(t, "cmdline", "cmdline");
	meta_row(t, "hostname", "hostname");
	meta_row(t, "kernel version", "kernel");
	v = ft_trace_meta(t, "nr_cpus");
	if (v)
		row("cpu info", "%s, %s online", ft_trace_meta(t, "arch") ?: "?", v);
	meta_row(t, "clock", "clock");

	printf("#\n# process information\n# ===================\n");
	print_exit(t);
	meta_row(t, "attached pid", "attached_pid");
	row("tracer", "%s", ft_trace_tracer(t));
	meta_row(t, "options", "options");
	if (scanned && s.first <= s.last)
		print_time("elapsed time", s.last - s.first);
	if (scanned)
		print_threads(t, &s);
	print_records(t, &s, scanned);
	print_buffers(t);
	print_sections(ft_trace_reader(t));
	if (fflush(stdout) || ferror(stdout))
		ft_die("writing the output: write error");
	free(s.tids);
	ft_kevents_close(k);
	ft_trace_close(t);
	return 0;
}
