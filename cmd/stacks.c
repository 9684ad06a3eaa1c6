// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail stacks: unique stacks with their counts, most frequent first --
 * what bpftrace's `@[kstack()] = count()` prints, for the kernel stacks of
 * kernel events (analysis/kevents.h) and the user stacks of user records
 * (analysis/trace.h) alike.
 *
 * Stacks are counted by their frames (not by stack_id), so duplicates the
 * lock-free map may create under races count as one stack.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "cmd/builtin.h"
#include "analysis/kevents.h"
#include "analysis/stackset.h"
#include "analysis/trace.h"
#include "core/smapfull.h"
#include "core/tracefile.h"
#include "core/util.h"

const char cmd_stacks_usage[] =
	"usage: ftrail stacks [-i FILE] [-e EVENT]... [--top N] [--format text|folded]\n"
	"                     [--user|--kernel] [--sym-userobj]\n"
	"\n"
	"Unique stacks with the number of events that had them, most frequent first,\n"
	"as bpftrace prints @[kstack()] = count():\n"
	"\n"
	"  @[\n"
	"      cpu_device_down+12\n"
	"      cpu_subsys_offline+32\n"
	"  ]: 1\n"
	"\n"
	"Kernel stacks come from kernel events recorded with -T (ftrail record -e ... -T),\n"
	"user stacks from user records (-O stacktrace) and, with -O userstacktrace, from\n"
	"the user stacks the kernel took with its events.\n"
	"\n"
	"  -i FILE        trace file (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"  ") "  -e EVENT       only stacks of these kernel events: SYS:EVENT, SYS or a glob\n"
		      "                 like 'sched:sched_*' (repeatable)\n"
		      "  --top N        only the N most frequent stacks\n"
		      "  -F, --format FMT  text (default) or folded: 'root;caller;leaf count' lines\n"
		      "                 (flame graph input; --folded, the old spelling, still works\n"
		      "                 with a warning)\n"
		      "  --kernel       only kernel stacks\n"
		      "  --user         only user stacks\n"
		      "  --sym-userobj  user frames as /path/of/object[+0xoffset] (the offset\n"
		      "                 from its load base), as ftrace's sym-userobj option\n";

enum {
	OPT_TOP = 256,
	OPT_FOLDED,
	OPT_USER,
	OPT_KERNEL,
	OPT_USEROBJ
};

static const struct option long_options[] = {
	FT_NO_DEMANGLE_LONGOPT,
	{ "top", required_argument, NULL, OPT_TOP },
	{ "folded", no_argument, NULL, OPT_FOLDED },
	{ "format", required_argument, NULL, 'F' },
	{ "user", no_argument, NULL, OPT_USER },
	{ "kernel", no_argument, NULL, OPT_KERNEL },
	{ "sym-userobj", no_argument, NULL, OPT_USEROBJ },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

/* --format: what stacks prints (the order of formats[]) */
enum stacks_format {
	FMT_TEXT,
	FMT_FOLDED
};
static const char *const formats[] = { "text", "folded", NULL };

/* Does kernel event "sys:name" match the -e pattern p? */
static int event_matches(const struct tep_event *e, const char *p)
{
	char name[512];

	snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
	return !strcmp(p, "all") || !fnmatch(p, name, 0) ||
	       (!strchr(p, ':') && !strcmp(p, e->system));
}

/* Does kernel event e match one of the -e patterns? */
static int event_selected(struct tep_event *e, char **pats, size_t n)
{
	if (!n)
		return 1;
	if (!e)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (event_matches(e, pats[i]))
			return 1;
	return 0;
}

/* Every -e pattern names at least one event the trace has a format for. */
static void check_patterns(struct ft_kevents *k, char **pats, size_t n, const char *input)
{
	struct tep_event **evs = tep_list_events(ft_kevents_tep(k), TEP_EVENT_SORT_ID);

	for (size_t i = 0; i < n; i++) {
		size_t j = 0;

		while (evs && evs[j] && !event_matches(evs[j], pats[i]))
			j++;
		if (!evs || !evs[j])
			ft_die("stacks: no event matches '%s' in %s", pats[i], input);
	}
}

static void add(struct ft_stackset *s, char kind, const uint64_t *ips, uint32_t nr)
{
	if (ft_stackset_add(s, kind, ips, nr, 1) < 0)
		ft_die("out of memory");
}

struct printer {
	struct ft_kevents *k;
	struct ft_trace *t;
	int userobj; /* --sym-userobj */
};

/* Frame text: "sym+off" (decimal offset, as bpftrace) or the bare name. */
static void frame(struct printer *p, char kind, uint64_t ip, int with_off, char *buf, size_t len)
{
	if (kind == 'k' && p->k) {
		uint64_t off;
		const char *n = ft_kevents_sym_name(p->k, ip, &off);

		if (n) {
			if (with_off)
				snprintf(buf, len, "%s+%llu", n, (unsigned long long)off);
			else
				snprintf(buf, len, "%s", n);
			return;
		}
	} else if (kind == 'u' && p->t) {
		if (p->userobj && !ft_symbols_userobj(ft_trace_symbols(p->t), 0, ip, buf, len))
			return;
		ft_trace_addr_name(p->t, ip, 0, buf, len);
		if (strncmp(buf, "0x", 2))
			return;
	}
	snprintf(buf, len, "0x%llx", (unsigned long long)ip);
}

int cmd_stacks(int argc, char **argv)
{
	const char *input = "ftrail.dat";
	struct ft_stackset set;
	struct ft_ustack **v;
	size_t n;
	struct printer pr = { 0 };
	char **pats = NULL, err[512] = "", buf[512];
	size_t npats = 0;
	uint64_t top = 0;
	int fmt = -1, folded, want_user = 1, want_kernel = 1, c, ret;
	struct ft_kevent kev;
	struct ft_event ev;

	while ((c = getopt_long(argc, argv, ":i:e:F:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'e':
			pats = ft_realloc(pats, (npats + 1) * sizeof(*pats));
			pats[npats++] = optarg;
			break;
		case OPT_TOP:
			if (ft_parse_u64(optarg, 1, UINT32_MAX, &top))
				ft_die("stacks: --top wants a positive number, not '%s'", optarg);
			break;
		case 'F':
			fmt = ft_format_choose("stacks", optarg, formats, fmt);
			break;
		case OPT_FOLDED:
			fmt = ft_format_deprecated("stacks", "--folded", "folded", formats, fmt);
			break;
		case OPT_USER:
			want_kernel = 0;
			break;
		case OPT_KERNEL:
			want_user = 0;
			break;
		case OPT_USEROBJ:
			pr.userobj = 1;
			break;
		case 'h':
			fputs(cmd_stacks_usage, stdout);
			return 0;
		default:
			ft_shared_option("stacks", c, argv);
		}
	}
	folded = fmt == FMT_FOLDED;
	ft_no_operands("stacks", argc, argv, "the trace file is given with -i");
	if (!want_user && !want_kernel)
		ft_die("stacks: --user and --kernel exclude each other");

	if (ft_stackset_init(&set) < 0)
		ft_die("out of memory");
	pr.t = ft_trace_open(input, err, sizeof(err));
	if (!pr.t)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_trace_nr_warnings(pr.t); i++)
		ft_warn("%s", ft_trace_warning(pr.t, i));
	pr.k = ft_kevents_open(ft_trace_reader(pr.t), err, sizeof(err));
	if (!pr.k && err[0])
		ft_die_file(input, err);
	if (pr.k)
		ft_kevents_fix_user_stacks(pr.k, input);
	if (npats && !pr.k)
		ft_die("stacks: %s has no kernel events to select with -e", input);
	if (npats)
		check_patterns(pr.k, pats, npats, input);

	if (pr.k) {
		while ((ret = ft_kevents_next(pr.k, &kev)) == 1) {
			if (kev.kind != FT_KEV_EVENT || !event_selected(kev.event, pats, npats))
				continue;
			if (want_kernel && kev.kstack_nr)
				add(&set, 'k', kev.kstack, kev.kstack_nr);
			if (want_user && kev.ustack_nr)
				add(&set, 'u', kev.ustack, kev.ustack_nr);
		}
		if (ret < 0)
			ft_die_file(input, ft_kevents_error(pr.k));
	}
	/* user records' stacks (not selectable by kernel event names) */
	if (want_user && !npats) {
		while ((ret = ft_trace_next(pr.t, &ev, err, sizeof(err))) == 1)
			if (ev.type == FT_EV_STACK && ev.nr_ips)
				add(&set, 'u', ev.ips, ev.nr_ips);
		if (ret < 0)
			ft_die_file(input, err);
	}

	v = ft_stackset_sorted(&set, &n);
	if (!v && ft_stackset_count(&set))
		ft_die("out of memory");
	for (size_t i = 0; i < n && (!top || i < top); i++) {
		struct ft_ustack *u = v[i];

		if (folded) {
			for (uint32_t j = u->nr; j-- > 0;) {
				frame(&pr, u->kind, u->ips[j], 0, buf, sizeof(buf));
				for (char *q = buf; *q; q++)
					if (*q == ';' || *q == ' ')
						*q = '_';
				printf("%s%s", buf, j ? ";" : "");
			}
			printf(" %llu\n", (unsigned long long)u->count);
			continue;
		}
		printf("@[\n");
		for (uint32_t j = 0; j < u->nr; j++) {
			frame(&pr, u->kind, u->ips[j], 1, buf, sizeof(buf));
			printf("    %s\n", buf);
		}
		printf("]: %llu\n\n", (unsigned long long)u->count);
	}
	if (!folded)
		printf("%zu unique stacks, %llu stacks in all\n", n, (unsigned long long)set.total);
	if (fflush(stdout) || ferror(stdout))
		ft_die("writing the output: write error");
	/* the counts stand (refused stacks were recorded in full); say why ids were few */
	for (int k = 0; k < 2; k++) {
		const char *which = k ? "kernel" : "user";

		if ((k ? want_kernel : want_user) &&
		    ft_smap_full_meta(ft_trace_reader(pr.t), which, buf, sizeof(buf)))
			ft_warn("%s", buf);
	}
	free(v);
	ft_stackset_free(&set);
	free(pats);
	ft_kevents_close(pr.k);
	ft_trace_close(pr.t);
	return 0;
}
