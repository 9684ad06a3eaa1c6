// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for every reader of trace files: the input is a trace
 * file (or, for the stack map reader, a raw FSMB blob).  One input goes, in
 * process, through everything the readers and analyses do with a file, or
 * through one group of them (FTRAIL_FUZZ_FOCUS: trace, kernel, export; see
 * LLVMFuzzerInitialize below):
 *
 *   core/tracefile.c   the index (ft_reader_open), loading and inflating
 *                      every section, META lookups
 *   section parsers    FSMB (ft_fsmb_parse, on every STACKMAP section and on
 *                      the raw input, as `ftrail stackmap dump` reads one),
 *                      SYMTAB (ft_symtab_decode), KALLSYMS (ft_kallsyms_parse),
 *                      UFORMATS (ft_uev_table_parse)
 *   analysis/trace.c   tables, every UDATA buffer decoded in time order with
 *                      the kernel events merged in (as `show` does), symbol
 *                      resolution of functions, parents and stack addresses,
 *                      stacks by id; the SNAPSHOT sections the same way
 *   analysis/ftrace_fmt.c + core/uevent.c   every event formatted as `show`
 *                      does, in the function and function_graph layouts and
 *                      with every display option, user events rendered from
 *                      UFORMATS
 *   analysis/callsum.c + callgraph.c + graphsel.c   `report`'s sums,
 *                      `graph` (the whole tree and a function's view) and
 *                      show's -g/-N/-D/-t selection over the events
 *   analysis/kevents.c KFORMATS / KDATA / KALLSYMS / kernel STACKMAP through
 *                      libtraceevent: every event printed, every field read
 *                      as a number and as text (what `latency` does with
 *                      --key/--label), stack symbols (what `stacks` does)
 *   analysis/export_trace.c + export_chrome.c + export_speedscope.c
 *                      `export` in both formats
 *   analysis/folded.c + flamegraph.c   `flame` (function_graph self time and
 *                      stacks folded, then drawn as an SVG)
 *   analysis/offcpu_file.c + offcpu.c + offcpu_output.c + offcpu_ustack.c
 *                      `offcpu`: report, samples, folded stacks
 *
 * Everything is written to /dev/null.  The command-line parts of `report`,
 * `stacks` and `latency` (small aggregations in cmd/) are fuzzed out of
 * process by tests/e2e/t0290-readers-mutated.sh.
 *
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined),
 * with the structure-aware mutator of tests/fuzz/trace_mutator.c: mutants
 * keep valid section checksums, so they reach the decoders above.
 */
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include <event-parse.h>
#include <sanitizer/lsan_interface.h>

#include "analysis/callgraph.h"
#include "analysis/callsum.h"
#include "analysis/export_chrome.h"
#include "analysis/export_speedscope.h"
#include "analysis/export_trace.h"
#include "analysis/flamegraph.h"
#include "analysis/folded.h"
#include "analysis/ftrace_fmt.h"
#include "analysis/graphsel.h"
#include "analysis/kevents.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_file.h"
#include "analysis/offcpu_output.h"
#include "core/options.h"
#include "core/stackmap.h"
#include "core/symbols.h"
#include "analysis/trace.h"
#include "core/tracefile.h"
#include "analysis/uevent_table.h"

/*
 * Enough events per pass to reach every decoder, few enough to stay fast.
 * The first pass of each reader decodes up to MAX_EVENTS; what only looks
 * at events one by one (the other display options, the export writers,
 * name lookups) sees the first MAX_OPT_EVENTS: its paths depend on the
 * event, not on where it is in the stream, and running it on every event
 * was most of an execution.
 * Every field of a kernel event by name (three lookups each, a linear
 * strcmp scan in libtraceevent) is done on the first MAX_FIELD_EVENTS:
 * at 256 it was 8% of the kernel group's time, and 32 reached the same
 * coverage after equal runs.
 */
#define MAX_EVENTS 20000
#define MAX_OPT_EVENTS 256
#define MAX_FIELD_EVENTS 32

static FILE *sink;

/*
 * libtraceevent leaks on some error paths of tep_parse_event() (see
 * lsan.supp).  That suppression matches frames of the allocation stack,
 * which ASan keeps 30 deep (malloc_context_size), and a format nested deeply
 * enough keeps all 30 inside the library's recursive-descent parser: a
 * 30-minute campaign ended on such a leak (454 bytes, 30 frames of
 * libtraceevent, reported at exit with no input).  No fixed depth covers
 * every input, so this definition interposes on the library's
 * tep_parse_event() (in this target its one caller is tep_take() in
 * analysis/kevents.c; dlsym(RTLD_NEXT) reaches the library's) and has
 * LSan ignore what is allocated inside it: parsed events belong to the
 * handle, which tep_free() frees, or are the library's own leak.  A
 * handle our code forgets to free is still reported: tep_alloc()'s blocks
 * are outside.
 */
enum tep_errno tep_parse_event(struct tep_handle *tep, const char *buf, unsigned long size,
			       const char *sys)
{
	static enum tep_errno (*real)(struct tep_handle *, const char *, unsigned long,
				      const char *);
	enum tep_errno ret;

	if (!real) {
		*(void **)&real = dlsym(RTLD_NEXT, "tep_parse_event");
		if (!real)
			abort();
	}
	__lsan_disable();
	ret = real(tep, buf, size, sys);
	__lsan_enable();
	return ret;
}

static int count_stack(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	uint64_t *sum = arg;

	for (uint32_t i = 0; i < nr; i++)
		*sum += ips[i] ^ id ^ ref;
	return 0;
}

/* The index, every section, and the parsers of the self-contained tables. */
static void walk_sections(const char *path)
{
	char err[512];
	struct ft_reader *r = ft_reader_open(path, err, sizeof(err));
	uint64_t sum = 0;

	if (!r)
		return;
	for (size_t i = 0; i < ft_reader_nr_sections(r); i++) {
		const struct ft_section *s = ft_reader_section(r, i);
		struct ft_uev_table ut = { 0 };
		struct ft_symtab *st;
		size_t len;
		void *p = ft_reader_load(r, s, &len, err, sizeof(err));

		if (!p)
			continue;
		switch (s->type) {
		case FT_SEC_STACKMAP:
			(void)ft_fsmb_parse(p, len, count_stack, &sum, err, sizeof(err));
			break;
		case FT_SEC_SYMTAB:
			st = ft_symtab_decode(p, len, err, sizeof(err));
			if (st) {
				(void)ft_symtab_lookup(st, sum);
				ft_symtab_free(st);
			}
			break;
		case FT_SEC_KALLSYMS:
			st = ft_kallsyms_parse(p, len, err, sizeof(err));
			if (st) {
				(void)ft_symtab_lookup(st, 0xffffffff81000000ull);
				ft_symtab_free(st);
			}
			break;
		case FT_SEC_UFORMATS:
			if (!ft_uev_table_parse(&ut, p, len, err, sizeof(err)))
				ft_uev_table_free(&ut);
			break;
		}
		free(p);
	}
	(void)ft_reader_meta(r, "tracer");
	ft_reader_close(r);
}

/* Names of everything an event refers to, as report/stacks/flame ask. */
static void resolve_event(struct ft_trace *t, const struct ft_uev_table *ut,
			  const struct ft_event *ev)
{
	char buf[512];
	const uint64_t *ips;
	uint32_t nr;

	switch (ev->type) {
	case FT_EV_ENTRY:
	case FT_EV_EXIT:
		ft_trace_func_name(t, ev->fid, 1, buf, sizeof(buf));
		(void)ft_trace_func_addr(t, ev->fid);
		break;
	case FT_EV_FUNC:
		ft_trace_func_name(t, ev->fid, 0, buf, sizeof(buf));
		if (ev->parent_fid != FT_FID_UNKNOWN)
			ft_trace_func_name(t, ev->parent_fid, 1, buf, sizeof(buf));
		else
			ft_trace_addr_name_pid(t, ev->pid, ev->parent_addr, 1, buf, sizeof(buf));
		break;
	case FT_EV_STACK:
		for (uint32_t i = 0; i < ev->nr_ips; i++) {
			ft_trace_addr_name(t, ev->ips[i], 1, buf, sizeof(buf));
			ft_trace_addr_name_pid(t, ev->pid, ev->ips[i], 0, buf, sizeof(buf));
		}
		if (ev->stack_id >= 0 && ev->stack_id <= UINT32_MAX)
			(void)ft_trace_stack(t, 0, (uint32_t)ev->stack_id, &ips, &nr);
		break;
	case FT_EV_EVENT:
		ft_uev_render(ut, ev->event_id, ev->data, ev->len, buf, sizeof(buf));
		break;
	default:
		break;
	}
	(void)ft_trace_comm(t, ev->tid);
}

static const struct ft_fmt_kops kops = {
	.print_info = ft_kevents_print_info,
	.lat_flags = ft_kevents_lat_flags,
	.used_stackmap = ft_kevents_used_stackmap,
	.sym = ft_kevents_sym,
	.comm = ft_kevents_comm,
};

/*
 * `show` as cmd/show.c runs it (a counting pass that lets the formatter scan
 * the stream, rewind, the printing pass), once per display-option set on one
 * open trace, with report's/stacks' lookups on the events of the first.
 */
static void walk_events(const char *path, const uint64_t *optsets, size_t nr_optsets, int snapshot)
{
	char err[512], buf[64];
	struct ft_trace *t = snapshot ? ft_trace_open_snapshot(path, 0, err, sizeof(err))
				      : ft_trace_open(path, err, sizeof(err));
	struct ft_trace_source src;
	struct ft_ksource ks = { 0 };
	struct ft_uev_table ut = { 0 };
	struct ft_event ev, next;
	struct ft_fmt *f;
	int n, ret = 0;

	if (!t)
		return;
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		(void)ft_trace_warning(t, i);
	(void)ft_trace_tracer(t);
	(void)ft_trace_snapshot_info(t, "state", buf, sizeof(buf));
	if (ft_uev_table_load(&ut, ft_trace_reader(t), err, sizeof(err)))
		ft_uev_table_free(&ut);
	if (!snapshot) {
		ks.k = ft_kevents_open(ft_trace_reader(t), err, sizeof(err));
		if (ks.k) {
			src = (struct ft_trace_source){ "kernel", ft_ksource_next, ft_ksource_print,
							&ks };
			if (ft_trace_add_source(t, &src) < 0) {
				ft_kevents_close(ks.k);
				ks.k = NULL;
			}
		}
	}
	for (size_t o = 0; o < nr_optsets; o++) {
		int max = o ? MAX_OPT_EVENTS : MAX_EVENTS;

		ks.options = optsets[o];
		if (o) {
			if (ks.k)
				ft_kevents_rewind(ks.k);
			if (ft_trace_rewind(t, err, sizeof(err)))
				break;
		}
		f = ft_fmt_new(t, optsets[o], sink);
		if (!f)
			break;
		ft_fmt_set_irq_info(f, ks.k != NULL);
		if (ks.k)
			ft_fmt_set_kevents(f, ks.k, &src, &kops);
		for (n = 0; n < max && (ret = ft_trace_next(t, &ev, err, sizeof(err))) == 1; n++) {
			ft_fmt_scan(f, &ev);
			if (o == 0 && n < MAX_OPT_EVENTS) {
				resolve_event(t, &ut, &ev);
				if (ev.buffer != UINT64_MAX)
					(void)ft_trace_peek_buffer(t, &ev, &next);
			}
		}
		(void)ft_trace_nr_decoded(t);
		(void)ft_trace_nr_lost(t);
		if (ks.k)
			ft_kevents_rewind(ks.k);
		if (ret >= 0 && !ft_trace_rewind(t, err, sizeof(err))) {
			ft_fmt_header(f, 1, 2);
			for (n = 0; n < max && ft_trace_next(t, &ev, err, sizeof(err)) == 1; n++)
				ft_fmt_event(f, &ev);
		}
		ft_fmt_free(f);
	}
	ft_uev_table_free(&ut);
	ft_trace_close(t);
	ft_kevents_close(ks.k);
}

/* `report`'s sums, `graph`'s tree and views, show's selection (walk_calls). */
static void walk_calls(const char *path)
{
	static const char *const sel[] = { "m*" }, *const notrace[] = { "*a*" };
	const struct ft_graphsel_opts so = { sel, 1, notrace, 1, 3, 1000 };
	struct ft_callgraph_view v = { NULL, 0 };
	struct ft_callsums sums = { 0 };
	const struct ft_event *ev;
	struct ft_callgraph *g;
	struct ft_graphsel *gs;
	char err[512];
	int n, nomem;
	struct ft_trace *t = ft_trace_open(path, err, sizeof(err));

	if (!t)
		return;
	(void)ft_trace_call_sums(t, &sums, err, sizeof(err));
	ft_callsums_free(&sums);
	if (ft_trace_rewind(t, err, sizeof(err)))
		goto out;
	g = ft_callgraph_build(t, err, sizeof(err));
	if (g) {
		(void)ft_callgraph_print(g, t, &v, sink);
		v.func = "*";
		v.max_depth = 4;
		(void)ft_callgraph_print(g, t, &v, sink);
		ft_callgraph_free(g);
	}
	if (ft_trace_rewind(t, err, sizeof(err)))
		goto out;
	gs = ft_graphsel_new(t, &so, err, sizeof(err));
	if (gs) {
		for (n = 0; n < MAX_EVENTS && ft_trace_next_ref(t, &ev, err, sizeof(err)) == 1; n++)
			if (ft_graphsel_event(gs, ev, &nomem))
				(void)ft_graphsel_next(gs, NULL);
		ft_graphsel_free(gs);
	}
out:
	ft_trace_close(t);
}

static int stack_cb(uint32_t id, const uint64_t *ips, uint32_t nr, void *arg)
{
	struct ft_kevents *k = arg;
	char buf[256];

	for (uint32_t i = 0; i < nr && i < 64; i++)
		ft_kevents_sym(k, ips[i], 1, buf, sizeof(buf));
	return id > 100000;
}

/* Every field of a kernel event, as a number and as text. */
static void kevent_fields(struct ft_kevents *k, const struct ft_kevent *ev)
{
	static const char *const pseudo[] = { "cpu", "pid", "common_pid", "prev_pid", "nosuch" };
	struct tep_format_field **lists[2];
	unsigned long long v;
	char buf[256];

	for (size_t i = 0; i < sizeof(pseudo) / sizeof(pseudo[0]); i++) {
		(void)ft_kevents_field_num(k, ev, pseudo[i], &v);
		(void)ft_kevents_field_str(k, ev, pseudo[i], buf, sizeof(buf));
	}
	if (!ev->event)
		return;
	lists[0] = tep_event_common_fields(ev->event);
	lists[1] = tep_event_fields(ev->event);
	for (int l = 0; l < 2; l++) {
		for (int i = 0; lists[l] && lists[l][i]; i++) {
			(void)ft_kevents_field_num(k, ev, lists[l][i]->name, &v);
			(void)ft_kevents_field_str(k, ev, lists[l][i]->name, buf, sizeof(buf));
			/* a short buffer: truncation paths */
			(void)ft_kevents_field_str(k, ev, lists[l][i]->name, buf, 3);
		}
		free(lists[l]);
	}
}

/* The kernel side alone: `show` of a kernel trace, `latency`, `stacks`. */
static void walk_kevents(const char *path)
{
	static const uint64_t optsets[] = {
		0,
		FT_OPT(EXPAND_STACKS) | FT_OPT(SYM_OFFSET) | FT_OPT(SYM_ADDR),
		FT_OPT(RAW) | FT_OPT(HEX) | FT_OPT(LATENCY_FORMAT),
	};
	char err[512], buf[256];
	struct ft_reader *r = ft_reader_open(path, err, sizeof(err));
	struct ft_kevents *k;
	struct ft_kevent ev;
	uint64_t ts, off;
	int n = 0;

	if (!r)
		return;
	k = ft_kevents_open(r, err, sizeof(err));
	if (!k) {
		ft_reader_close(r);
		return;
	}
	(void)ft_kevents_nr_cpus(k);
	(void)ft_kevents_tep(k);
	(void)ft_kevents_find_event(k, "sched:sched_switch");
	(void)ft_kevents_find_event(k, "bogus");
	(void)ft_kevents_for_each_stack(k, stack_cb, k);
	for (size_t pass = 0; pass < sizeof(optsets) / sizeof(optsets[0]); pass++) {
		ft_kevents_rewind(k);
		int max = pass ? MAX_OPT_EVENTS : MAX_EVENTS;

		for (n = 0; n < max && ft_kevents_peek_ts(k, &ts) == 1; n++) {
			if (ft_kevents_next(k, &ev) != 1)
				break;
			ft_kevents_print(k, &ev, optsets[pass], sink);
			if (pass || ev.kind != FT_KEV_EVENT || n >= MAX_OPT_EVENTS)
				continue;
			if (n < MAX_FIELD_EVENTS)
				kevent_fields(k, &ev);
			for (uint32_t i = 0; i < ev.kstack_nr; i++)
				(void)ft_kevents_sym_name(k, ev.kstack[i], &off);
			for (uint32_t i = 0; i < ev.ustack_nr; i++)
				(void)ft_kevents_sym_fn(ev.ustack[i], buf, sizeof(buf), k);
		}
	}
	(void)ft_kevents_error(k);
	ft_kevents_close(k);
	ft_reader_close(r);
}

/*
 * `export` in both formats (and both Chrome layouts) and `flame`'s
 * function_graph folding, all fed by one pass over the trace.
 */
struct xsink {
	struct ft_chrome *c[2];
	struct ft_speedscope *s;
	struct ft_graphfold *g;
	uint64_t last, n;
};

static int xevent(const struct ft_xevent *ev, void *arg)
{
	struct xsink *x = arg;

	if (++x->n > MAX_EVENTS)
		return 1;
	/* the writers format what the reader gives them: the first events do */
	for (int i = 0; i < 2 && x->n <= MAX_OPT_EVENTS; i++)
		if (x->c[i] && ft_chrome_event(x->c[i], ev))
			return 1;
	if (x->s && x->n <= MAX_OPT_EVENTS && ft_speedscope_event(x->s, ev))
		return 1;
	x->last = ev->ts;
	if (x->g && ev->type == FT_XEV_ENTRY)
		return ft_graphfold_entry(x->g, ev->tid, NULL, ev->name, ev->ts) != 0;
	if (x->g && ev->type == FT_XEV_EXIT)
		return ft_graphfold_exit(x->g, ev->tid, ev->ts) != 0;
	return 0;
}

static void draw(struct ft_folded *fo)
{
	struct ft_flame_opts o = { .title = "fuzz", .unit = "ns", .html = 1 };
	char err[256];

	if (ft_folded_count(fo)) {
		ft_flame_write(fo, sink, &o, NULL, err, sizeof(err));
		ft_folded_write(fo, sink);
	}
}

static void walk_export(const char *path)
{
	struct ft_chrome_opts co[2] = { { .complete = 0, .source = path },
					{ .complete = 1, .source = path } };
	struct ft_xtrace_stats st;
	struct xsink x = { 0 };
	struct ft_folded *fo;
	char err[512];
	struct ft_xtrace *xt = ft_xtrace_open(path, 1, err, sizeof(err));

	if (!xt)
		return;
	for (size_t i = 0; i < ft_xtrace_nr_warnings(xt); i++)
		(void)ft_xtrace_warning(xt, i);
	fo = ft_folded_new(1u << 20);
	for (int i = 0; i < 2; i++)
		x.c[i] = ft_chrome_open(sink, &co[i]);
	x.s = ft_speedscope_open(sink, path, NULL);
	x.g = fo ? ft_graphfold_new(fo) : NULL;
	(void)ft_xtrace_run(xt, xevent, &x, NULL, err, sizeof(err));
	ft_xtrace_get_stats(xt, &st);
	for (int i = 0; i < 2; i++)
		if (x.c[i])
			ft_chrome_close(x.c[i], NULL);
	if (x.s)
		ft_speedscope_close(x.s, NULL);
	if (x.g) {
		ft_graphfold_finish(x.g, x.last);
		ft_graphfold_free(x.g);
	}
	if (fo)
		draw(fo);
	ft_folded_free(fo);
	ft_xtrace_close(xt);
}

/*
 * `offcpu` (report, samples, folded stacks drawn) with every interval
 * counted as a sample, and `flame --offcpu` with ftrail's default threshold.
 */
static void walk_offcpu(const char *path)
{
	struct ft_offcpu_file_stats st;
	struct ft_offcpu_file *f;
	struct ft_folded *fo;
	char err[512];

	f = ft_offcpu_file_open(path, 1, 0, err, sizeof(err));
	if (!f)
		return;
	ft_offcpu_file_get_stats(f, &st);
	ft_offcpu_write_report(ft_offcpu_file_engine(f), sink, 0, ft_offcpu_file_sym, f);
	ft_offcpu_write_samples(ft_offcpu_file_engine(f), sink, ft_offcpu_file_sym, f);
	fo = ft_folded_new(1u << 20);
	if (fo) {
		ft_offcpu_fold(ft_offcpu_file_engine(f), fo, ft_offcpu_file_sym, f, 1000);
		draw(fo);
		ft_folded_free(fo);
	}
	ft_offcpu_file_close(f);
	fo = ft_folded_new(1u << 20);
	if (fo) {
		(void)ft_offcpu_fold_file(path, 1000000, 0, fo, 1, err, sizeof(err));
		ft_folded_free(fo);
	}
}

/*
 * What one execution runs (FTRAIL_FUZZ_FOCUS, read once at start): every
 * reader by default, or one group of them.  A focused execution opens the
 * input two or three times instead of eight and its coverage is that of
 * one reader, so libFuzzer runs several times more inputs a second and
 * its feedback (features, rare-feature scheduling) is about that reader
 * alone.  tests/fuzz/run.sh shares its time between the groups, on one
 * corpus: every group's findings seed the others.
 */
enum {
	FOCUS_TRACE = 1,  /* the index, the tables, `show` with kernel events merged */
	FOCUS_KERNEL = 2, /* the kernel sections alone: `show`, `latency`, `stacks`, `offcpu` */
	FOCUS_EXPORT = 4, /* `export` and `flame` (the writers see the first events) */
	FOCUS_ALL = 7,
};

static const struct {
	const char *name;
	int bits;
} focuses[] = {
	{ "all", FOCUS_ALL },
	{ "trace", FOCUS_TRACE },
	{ "kernel", FOCUS_KERNEL },
	{ "export", FOCUS_EXPORT },
};

static int focus = FOCUS_ALL;

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerInitialize(int *argc, char ***argv)
{
	const char *f = getenv("FTRAIL_FUZZ_FOCUS");

	(void)argc;
	(void)argv;
	/* formats never seen come in all the time: one format checker, not a
	 * fork per new format (see analysis/kevents.h) */
	ft_kevents_keep_checker(1);
	if (!f || !*f)
		return 0;
	for (size_t i = 0; i < sizeof(focuses) / sizeof(focuses[0]); i++) {
		if (!strcmp(f, focuses[i].name)) {
			focus = focuses[i].bits;
			return 0;
		}
	}
	fprintf(stderr, "fuzz_reader: FTRAIL_FUZZ_FOCUS=%s: not all, trace, kernel or export\n", f);
	exit(2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	static uint64_t optsets[3];
	uint64_t sum = 0;
	char err[256];

	if (fd < 0) {
		/* the defaults, then every display option (other code paths of
		 * the formatter), then the raw layouts */
		static const char *const more[] = { "latency-format",	 "sym-offset",
						    "sym-addr",		 "funcgraph-proc",
						    "funcgraph-abstime", "funcgraph-tail",
						    "funcgraph-cpu",	 "expand-stacks" };
		static const char *const raw[] = { "raw", "hex", "nofuncgraph-duration" };

		optsets[0] = ft_options_default();
		optsets[1] = optsets[0];
		for (size_t i = 0; i < sizeof(more) / sizeof(more[0]); i++)
			ft_options_apply(&optsets[1], more[i]);
		optsets[2] = optsets[1];
		for (size_t i = 0; i < sizeof(raw) / sizeof(raw[0]); i++)
			ft_options_apply(&optsets[2], raw[i]);
		fd = memfd_create("ftrail-fuzz", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sink = fopen("/dev/null", "w");
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	if (focus & FOCUS_TRACE) {
		/* `ftrail stackmap dump FILE`: the input as a bare FSMB blob */
		(void)ft_fsmb_parse(data, size, count_stack, &sum, err, sizeof(err));
	}
	if (size < 8 || memcmp(data, FT_FILE_MAGIC, 8))
		return 0;
	if (focus & FOCUS_TRACE) {
		walk_sections(path);
		walk_events(path, optsets, sizeof(optsets) / sizeof(optsets[0]), 0);
		walk_events(path, optsets, 1, 1);
		walk_calls(path);
	}
	if (focus & FOCUS_KERNEL) {
		walk_kevents(path);
		walk_offcpu(path);
	}
	if (focus & FOCUS_EXPORT)
		walk_export(path);
	return 0;
}
