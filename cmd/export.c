// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail export: a trace (or folded stacks) as Chrome Trace Event JSON or
 * speedscope JSON, streamed in bounded memory.
 */
#include <dirent.h>
#include <errno.h>
#include <ftw.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "analysis/export_chrome.h"
#include "analysis/export_ctf.h"
#include "analysis/export_perfetto.h"
#include "analysis/export_pprof.h"
#include "analysis/export_progress.h"
#include "analysis/export_speedscope.h"
#include "analysis/export_trace.h"
#include "analysis/folded.h"
#include "core/outfile.h"
#include "core/util.h"

const char cmd_export_usage[] =
	"usage: ftrail export --format chrome|speedscope [-i FILE] -o FILE\n"
	"       ftrail export --format chrome|speedscope --from-folded FILE -o FILE\n"
	"       ftrail export --format pprof [--profile graph|stacks|offcpu] [-i FILE] -o FILE.pb.gz\n"
	"       ftrail export --format ctf [--force] [-i FILE] -o DIR\n"
	"       ftrail export --format perfetto [-i FILE] -o FILE.pftrace\n"
	"\n"
	"Write a trace for the viewers people already use:\n"
	"  chrome      Chrome Trace Event JSON (chrome://tracing, Perfetto, speedscope):\n"
	"              calls as X events (B/E pairs where a call stays open across\n"
	"              other events of its thread or a loss), timestamps in\n"
	"              microseconds with a nanosecond fraction, pid/tid, thread and\n"
	"              process names as metadata, kernel events and markers as instant\n"
	"              events with their fields, lost events as 'lost events' markers\n"
	"  speedscope  speedscope's JSON: one evented profile per thread, one shared\n"
	"              frame table (kernel events are left out: the format has no place\n"
	"              for them)\n"
	"  perfetto    Perfetto's protobuf trace (ui.perfetto.dev, trace_processor):\n"
	"              process and thread tracks, calls as slices with interned names,\n"
	"              kernel events and markers as instant events with their fields\n"
	"              as debug annotations, a 'lost events' counter track\n"
	"  pprof       a gzipped profile.proto for 'go tool pprof' and the tools that read\n"
	"              it, with mappings (build ids), functions, file:line from DWARF and\n"
	"              pid/tid/thread labels; --profile chooses what it holds:\n"
	"                graph   function_graph calls (default): calls and wall time;\n"
	"                        flat = ftrail report's self time, cum = its total time\n"
	"                stacks  the stacks ftrail stacks counts (-T kernel stacks,\n"
	"                        -O stacktrace / userstacktrace user stacks)\n"
	"                offcpu  ftrail offcpu's intervals: direct samples (labelled\n"
	"                        sample=direct, with their time) and the aggregates of\n"
	"                        shorter ones (sample=aggregate)\n"
	"  ctf         a CTF 1.8 trace directory shaped as LTTng's user-space traces\n"
	"              (babeltrace2, Trace Compass): calls as\n"
	"              lttng_ust_cyg_profile:func_entry/func_exit, user and kernel events\n"
	"              with their typed fields, stack ids with the stack map in a side\n"
	"              stream, lost events as the streams' discarded-event counts\n"
	"Output streams: memory stays bounded (per thread only its open calls), so\n"
	"traces of any length export.  Progress is shown when stderr is a terminal.\n"
	"\n"
	"  -F, --format F      chrome, speedscope, perfetto, pprof or ctf (required; -f,\n"
	"                      the old short spelling, still works with a warning)\n"
	"  -i FILE             trace file (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"       ") "  -o FILE             output file ('-' for standard output; required)\n"
			   "  --from-folded FILE  lay out folded stacks ('a;b;c COUNT') as one thread's\n"
			   "                      timeline instead of reading a trace\n"
			   "  --sample-ns N       --from-folded: duration of one count, in ns (1000)\n"
			   "  --complete          chrome: every call one X event, written as it returns\n"
			   "  --absolute-time     chrome: timestamps on the trace clock, not from 0\n"
			   "  --no-kernel         leave the trace's kernel events out\n"
			   "  --profile P         pprof: graph (default), stacks or offcpu\n"
			   "  --threshold MS      pprof --profile offcpu: direct-sample threshold (500)\n"
			   "  --force             ctf: replace an output directory that is not empty\n";

enum {
	OPT_FROM_FOLDED = 256,
	OPT_SAMPLE_NS,
	OPT_COMPLETE,
	OPT_ABSOLUTE,
	OPT_NO_KERNEL,
	OPT_PROFILE,
	OPT_THRESHOLD,
	OPT_FORCE,
};

static const struct option long_opts[] = {
	FT_NO_DEMANGLE_LONGOPT,
	{ "format", required_argument, NULL, 'F' },
	{ "input", required_argument, NULL, 'i' },
	{ "output", required_argument, NULL, 'o' },
	{ "from-folded", required_argument, NULL, OPT_FROM_FOLDED },
	{ "sample-ns", required_argument, NULL, OPT_SAMPLE_NS },
	{ "complete", no_argument, NULL, OPT_COMPLETE },
	{ "absolute-time", no_argument, NULL, OPT_ABSOLUTE },
	{ "no-kernel", no_argument, NULL, OPT_NO_KERNEL },
	{ "profile", required_argument, NULL, OPT_PROFILE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "force", no_argument, NULL, OPT_FORCE },
	{ NULL, 0, NULL, 0 },
};

enum fmt {
	FMT_CHROME,
	FMT_SPEEDSCOPE,
	FMT_PERFETTO,
	FMT_PPROF,
	FMT_CTF
};

struct sink {
	enum fmt fmt;
	struct ft_chrome *c;
	struct ft_speedscope *s;
	struct ft_perfetto *p;
	uint64_t events;
	int failed; /* the last write to the output failed */
};

static int sink_event(const struct ft_xevent *ev, void *arg)
{
	struct sink *k = arg;

	k->events++;
	k->failed = k->fmt == FMT_CHROME     ? ft_chrome_event(k->c, ev)
		    : k->fmt == FMT_PERFETTO ? ft_perfetto_event(k->p, ev)
					     : ft_speedscope_event(k->s, ev);
	return k->failed;
}

/*
 * Folded stacks as a timeline of one thread: each line lasts count x
 * sample_ns; a frame stays open across consecutive lines that share it.
 * Only the previous line is kept.  Dies with one line on malformed input.
 */
static void run_folded(const char *path, uint64_t sample_ns, struct sink *k)
{
	struct ft_xevent ev = { .pid = 1, .tid = 1, .cpu = -1 };
	struct ft_folded_file ff;
	char *prev = NULL, err[1024];
	size_t pcap = 0, nprev = 0, cprev = 0;
	size_t *poff = NULL; /* start of each open frame's name in prev */
	uint64_t ts = 0;
	struct ft_progress pr;
	const char *stack;
	size_t len;
	uint64_t w;
	int r;

	if (ft_folded_file_open(&ff, path, err, sizeof(err)))
		ft_die("%s", err);
	ft_progress_init(&pr, "export", -1);
	ev.type = FT_XEV_PROCESS_NAME;
	ev.name = "folded stacks";
	if (sink_event(&ev, k))
		goto werr;
	ev.type = FT_XEV_THREAD_NAME;
	if (sink_event(&ev, k))
		goto werr;
	while ((r = ft_folded_file_next(&ff, &stack, &len, &w, err, sizeof(err))) == 1) {
		size_t depth = 0, i;
		char *p;

		ft_progress_update(&pr, ff.done, ff.size, k->events);
		/* frames shared with the previous line stay open */
		p = (char *)stack;
		while (depth < nprev) {
			char *semi = strchr(p, ';');
			size_t fl = semi ? (size_t)(semi - p) : strlen(p);

			if (strlen(prev + poff[depth]) != fl || memcmp(prev + poff[depth], p, fl))
				break;
			depth++;
			if (!semi) {
				p += fl;
				break;
			}
			p = semi + 1;
		}
		ev.ts = ts;
		ev.type = FT_XEV_EXIT;
		for (i = nprev; i > depth; i--)
			if (sink_event(&ev, k))
				goto werr;
		/* keep this line as the new previous one, frames NUL-separated */
		if (len + 1 > pcap) {
			pcap = len + 1;
			prev = ft_realloc(prev, pcap);
		}
		memcpy(prev, stack, len + 1);
		nprev = 0;
		for (char *q = prev;; q++) {
			if (nprev == cprev) {
				cprev = cprev ? cprev * 2 : 64;
				poff = ft_realloc(poff, cprev * sizeof(*poff));
			}
			poff[nprev++] = (size_t)(q - prev);
			q = strchr(q, ';');
			if (!q)
				break;
			*q = '\0';
		}
		ev.type = FT_XEV_ENTRY;
		ev.cat = "function";
		for (i = depth; i < nprev; i++) {
			ev.name = prev + poff[i];
			if (sink_event(&ev, k))
				goto werr;
		}
		ts += w * sample_ns;
	}
	if (r < 0) {
		ft_progress_done(&pr);
		ft_die("%s", err);
	}
	ev.ts = ts;
	ev.type = FT_XEV_EXIT;
	for (size_t i = nprev; i > 0; i--)
		if (sink_event(&ev, k))
			goto werr;
	ft_progress_done(&pr);
	free(prev);
	free(poff);
	ft_folded_file_close(&ff);
	return;
werr:
	ft_progress_done(&pr);
	ft_die("writing the export: %s", strerror(errno ? errno : EIO));
}

/*
 * The pprof formats: a profile of the trace (analysis/export_pprof.h),
 * written through the atomic output.  Dies with one line on failure.
 */
static void run_pprof(const char *input, const char *output, const struct ft_pprof_opts *po)
{
	struct ft_pprof_export_stats st;
	struct ft_progress pr;
	char err[1024];
	FILE *out;
	int r;

	/* a bad input must not leave an empty output */
	if (access(input, R_OK))
		ft_die("cannot open %s: %s", input, strerror(errno));
	out = ft_outstream_open(output, err, sizeof(err));
	if (!out)
		ft_die("%s", err);
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	ft_progress_init(&pr, "export", -1);
	r = ft_pprof_export(input, po, out, &pr, &st, err, sizeof(err));
	ft_progress_done(&pr);
	if (r)
		ft_die_file(input, err);
	if (ft_outstream_close(out, err, sizeof(err)))
		ft_die("%s", err);
}

static int rm_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
	return flag == FTW_DP ? rmdir(path) : unlink(path);
}

/* Remove a directory tree, never following links.  0 or -1 (errno). */
static int remove_tree(const char *dir)
{
	return nftw(dir, rm_entry, 16, FTW_DEPTH | FTW_PHYS);
}

static int dir_is_empty(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int empty = 1;

	if (!d)
		return 0;
	while (empty && (e = readdir(d)))
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	closedir(d);
	return empty;
}

/*
 * CTF: a directory, written as DIR.partial and renamed over DIR once
 * complete; an existing DIR must be empty unless force.  Dies with one
 * line on failure, leaving DIR as it was.
 */
static void run_ctf(const char *input, const char *dir, int kernel, int force)
{
	struct ft_ctf_stats st;
	struct ft_progress pr;
	char err[1024], *tmp;
	struct stat sb;
	int exists = 0, r;

	if (access(input, R_OK))
		ft_die("cannot open %s: %s", input, strerror(errno));
	if (!strcmp(dir, "-"))
		ft_die("export: ctf writes a directory: -o DIR");
	if (!lstat(dir, &sb)) {
		if (S_ISLNK(sb.st_mode))
			ft_die("%s is a symbolic link: not following it", dir);
		if (!S_ISDIR(sb.st_mode))
			ft_die("%s exists and is not a directory", dir);
		if (!force && !dir_is_empty(dir))
			ft_die("%s is not empty (--force replaces it)", dir);
		exists = 1;
	} else if (errno != ENOENT) {
		ft_die("%s: %s", dir, strerror(errno));
	}
	if (asprintf(&tmp, "%s.partial", dir) < 0)
		ft_die("out of memory");
	/* the leftover of a killed run, if it is ours */
	if (!lstat(tmp, &sb) && S_ISDIR(sb.st_mode) && sb.st_uid == getuid())
		remove_tree(tmp);
	if (mkdir(tmp, 0700))
		ft_die("cannot create %s: %s", tmp, strerror(errno));
	ft_progress_init(&pr, "export", -1);
	r = ft_ctf_export(input, tmp, kernel, &pr, &st, err, sizeof(err));
	ft_progress_done(&pr);
	if (r) {
		remove_tree(tmp);
		free(tmp);
		ft_die_file(input, err);
	}
	if (exists && remove_tree(dir)) {
		remove_tree(tmp);
		ft_die("cannot replace %s: %s", dir, strerror(errno));
	}
	if (rename(tmp, dir)) {
		r = errno;
		remove_tree(tmp);
		ft_die("cannot rename %s to %s: %s", tmp, dir, strerror(r));
	}
	free(tmp);
	if (st.lost_user + st.lost_kernel)
		ft_warn("%llu events were lost while recording; the streams count them as discarded",
			(unsigned long long)(st.lost_user + st.lost_kernel));
}

int cmd_export(int argc, char **argv)
{
	const char *input = "ftrail.dat", *output = NULL, *format = NULL, *from_folded = NULL;
	struct ft_chrome_opts co = { 0 };
	struct ft_pprof_opts po = { .kind = FT_PPROF_GRAPH, .offcpu_thresh_ns = 500 * 1000000ull };
	const char *profile = NULL;
	int force = 0;
	uint64_t sample_ns = 1000, ms;
	int kernel = 1, c;
	struct sink k = { 0 };
	struct ft_xtrace *x = NULL;
	FILE *out;
	char err[1024];

	optind = 1;
	while ((c = getopt_long(argc, argv, ":f:F:i:o:", long_opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			/* -f is a filter in trace-cmd's letters: the format is -F everywhere */
			ft_warn("export: -f is deprecated, use -F or --format");
			/* fall through */
		case 'F':
			format = optarg;
			break;
		case 'i':
			input = optarg;
			break;
		case 'o':
			output = optarg;
			break;
		case OPT_FROM_FOLDED:
			from_folded = optarg;
			break;
		case OPT_SAMPLE_NS:
			if (ft_parse_u64(optarg, 1, 1000000000000ull, &sample_ns))
				ft_die("export: --sample-ns wants a number of ns in [1,10^12], not '%s'",
				       optarg);
			break;
		case OPT_COMPLETE:
			co.complete = 1;
			break;
		case OPT_ABSOLUTE:
			co.absolute_time = 1;
			break;
		case OPT_NO_KERNEL:
			kernel = 0;
			break;
		case OPT_FORCE:
			force = 1;
			break;
		case OPT_PROFILE:
			profile = optarg;
			if (ft_pprof_kind_from_name(optarg, &po.kind))
				ft_die("export: unknown profile '%s' (graph, stacks or offcpu)",
				       optarg);
			break;
		case OPT_THRESHOLD:
			if (ft_parse_u64(optarg, 0, UINT64_MAX / 1000000, &ms))
				ft_die("export: --threshold wants milliseconds, not '%s'", optarg);
			po.offcpu_thresh_ns = ms * 1000000;
			break;
		default:
			ft_shared_option("export", c, argv);
		}
	}
	ft_no_operands("export", argc, argv, "see ftrail export --help");
	if (!format)
		ft_die("export: --format chrome|speedscope|perfetto|pprof|ctf is required");
	if (!strcmp(format, "chrome"))
		k.fmt = FMT_CHROME;
	else if (!strcmp(format, "perfetto"))
		k.fmt = FMT_PERFETTO;
	else if (!strcmp(format, "speedscope"))
		k.fmt = FMT_SPEEDSCOPE;
	else if (!strcmp(format, "pprof"))
		k.fmt = FMT_PPROF;
	else if (!strcmp(format, "ctf"))
		k.fmt = FMT_CTF;
	else
		ft_die("export: unknown format '%s' (chrome, speedscope, perfetto, pprof or ctf)",
		       format);
	if (!output)
		ft_die("export: -o FILE is required ('-' for standard output)");
	if (profile && k.fmt != FMT_PPROF)
		ft_die("export: --profile is for --format pprof");
	if (force && k.fmt != FMT_CTF)
		ft_die("export: --force is for --format ctf");
	if (k.fmt == FMT_PPROF || k.fmt == FMT_CTF) {
		if (from_folded)
			ft_die("export: --from-folded is for the chrome and speedscope formats");
		if (k.fmt == FMT_PPROF)
			run_pprof(input, output, &po);
		else
			run_ctf(input, output, kernel, force);
		return 0;
	}

	/* open the input first: a bad input must not leave an empty output */
	if (!from_folded) {
		x = ft_xtrace_open(input, kernel, err, sizeof(err));
		if (!x)
			ft_die_file(input, err);
		for (size_t i = 0; i < ft_xtrace_nr_warnings(x); i++)
			ft_warn("%s", ft_xtrace_warning(x, i));
	} else if (strcmp(from_folded, "-") && access(from_folded, R_OK)) {
		ft_die("cannot open %s: %s", from_folded, strerror(errno));
	}

	/* written to OUTPUT.partial, renamed over OUTPUT only once complete */
	out = ft_outstream_open(output, err, sizeof(err));
	if (!out) {
		ft_xtrace_close(x); /* every exit frees what it opened (ASan's leak check) */
		ft_die("%s", err);
	}
	setvbuf(out, NULL, _IOFBF, 1 << 20);
	co.source = from_folded ? from_folded : input;
	if (k.fmt == FMT_CHROME)
		k.c = ft_chrome_open(out, &co);
	else if (k.fmt == FMT_PERFETTO)
		k.p = ft_perfetto_open(out);
	else
		k.s = ft_speedscope_open(out, from_folded ? from_folded : input, NULL);
	if (!k.c && !k.s && !k.p)
		ft_die("out of memory");

	if (from_folded) {
		run_folded(from_folded, sample_ns, &k);
	} else {
		struct ft_progress pr;
		struct ft_xtrace_stats xs;
		int r;

		ft_progress_init(&pr, "export", -1);
		r = ft_xtrace_run(x, sink_event, &k, &pr, err, sizeof(err));
		ft_progress_done(&pr);
		if (r) {
			ft_xtrace_close(x);
			/* the output failed (a full disk), or the input (corrupt) */
			ft_die_file(k.failed ? output : input, err);
		}
		ft_xtrace_get_stats(x, &xs);
		if (xs.lost)
			ft_warn("%llu events were lost while recording; the export marks where",
				(unsigned long long)xs.lost);
		ft_xtrace_close(x);
	}

	if (k.fmt == FMT_CHROME) {
		struct ft_chrome_stats st;

		if (ft_chrome_close(k.c, &st))
			ft_die("writing %s: %s", output, strerror(errno));
	} else if (k.fmt == FMT_PERFETTO) {
		struct ft_perfetto_stats st;

		if (ft_perfetto_close(k.p, &st))
			ft_die("writing %s: %s", output, strerror(errno));
	} else {
		struct ft_speedscope_stats st;

		if (ft_speedscope_close(k.s, &st))
			ft_die("writing %s: %s", output, strerror(errno));
	}
	if (ft_outstream_close(out, err, sizeof(err)))
		ft_die("%s", err);
	return 0;
}
