// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail latency: durations of paired begin/end kernel events (e.g.
 * cpuhp_enter -> cpuhp_exit per CPU, each step labelled by its callback).
 *
 * Pairing: events are read in time order (analysis/kevents.h).  Per key
 * (a field value, e.g. the target "cpu") a stack of open begins is kept;
 * an end closes the most recent open begin of its key, so nested sequences
 * (cpuhp_kick_ap_work around the steps the AP thread runs) pair correctly.
 * Begins still open at the end and ends without a begin are counted.
 */
#include <fnmatch.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "cmd/builtin.h"
#include "analysis/kevents.h"
#include "core/tracefile.h"
#include "core/util.h"

const char cmd_latency_usage[] =
	"usage: ftrail latency --from SYS:EVENT --to SYS:EVENT [--key FIELD] [--label FIELD]\n"
	"                      [--from-key FIELD] [--to-key FIELD] [-i FILE] [--summary]\n"
	"                      [--hist]\n"
	"\n"
	"Pair each begin event (--from) with the next end event (--to) of the same key\n"
	"and print the time between them: every pair, then per label the count, total,\n"
	"min, avg and max, then a log2 histogram of all durations.  Pairing is\n"
	"nesting-aware: per key, an end closes the most recent open begin.\n"
	"\n"
	"  --from SYS:EVENT   begin event; a glob or a comma-separated list, e.g.\n"
	"                     'cpuhp:cpuhp_enter,cpuhp:cpuhp_multi_enter'\n"
	"  --to SYS:EVENT     end event (same syntax)\n"
	"  --key FIELD        field that both events carry and pairs them (default:\n"
	"                     pid: the event's own pid field if it has one, else the\n"
	"                     thread); 'cpu' is the event's own cpu field if it has\n"
	"                     one, else the CPU that recorded it\n"
	"  --from-key FIELD   the key of --from events, when it lives in another field\n"
	"  --to-key FIELD     the key of --to events (default: --key's); e.g. a wakeup's\n"
	"                     latency: --from sched:sched_waking --from-key pid\n"
	"                     --to sched:sched_switch --to-key next_pid\n"
	"  --label FIELD      field of the begin event that names the pair; pointers\n"
	"                     are shown as kernel symbols (cpuhp_enter's fun)\n"
	"  --summary          only the per-label table and the histogram\n"
	"  --hist             instead of pairs and table, two histograms in the shape of\n"
	"                     the kernel's hist triggers (events/.../hist): per key the\n"
	"                     hitcount, the summed latency and its max (us), sorted by\n"
	"                     the max; then the latencies in log2 buckets (lat.log2)\n"
	"  -i FILE            trace file (default ./ftrail.dat)\n"
	"\n"
	"Example (CPU hotplug steps): ftrail latency --from cpuhp:cpuhp_enter --to cpuhp:cpuhp_exit\n"
	"                    --key cpu --label fun\n";

enum {
	OPT_FROM = 256,
	OPT_TO,
	OPT_KEY,
	OPT_LABEL,
	OPT_SUMMARY,
	OPT_FROM_KEY,
	OPT_TO_KEY,
	OPT_HIST,
};

static const struct option long_options[] = {
	{ "from", required_argument, NULL, OPT_FROM },
	{ "to", required_argument, NULL, OPT_TO },
	{ "key", required_argument, NULL, OPT_KEY },
	{ "label", required_argument, NULL, OPT_LABEL },
	{ "summary", no_argument, NULL, OPT_SUMMARY },
	{ "from-key", required_argument, NULL, OPT_FROM_KEY },
	{ "to-key", required_argument, NULL, OPT_TO_KEY },
	{ "hist", no_argument, NULL, OPT_HIST },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

struct open_begin {
	uint64_t ts;
	int cpu;
	char *label;
	int depth;
};

struct keyq {
	char *key;
	struct open_begin *v;
	size_t n, cap;
};

struct label_stat {
	char *label;
	uint64_t count, total, min, max;
};

/* --hist: per key of the end event, as a hist trigger's entry */
struct key_stat {
	char *key;
	uint64_t hitcount, total, max;
};

struct lat {
	struct keyq *keys;
	size_t nkeys;
	struct label_stat *labels;
	size_t nlabels;
	struct key_stat *kstats;
	size_t nkstats;
	uint64_t hist[64];
	uint64_t ushist[64]; /* --hist: lat.log2 of microseconds, bucket = ilog2 */
	uint64_t pairs, total, min, max, unmatched_end;
};

/* Does "sys:name" of e match the pattern list (globs, comma separated)? */
static int matches(struct tep_event *e, const char *list)
{
	char name[512], pat[512];
	const char *p = list;

	if (!e)
		return 0;
	snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
	while (*p) {
		size_t n = strcspn(p, ",");

		snprintf(pat, sizeof(pat), "%.*s", (int)n, p);
		if (!fnmatch(pat, name, 0))
			return 1;
		p += n;
		if (*p == ',')
			p++;
	}
	return 0;
}

/* Can --key/--label name read on event e?  cpu and pid always work. */
static int has_field(struct tep_event *e, const char *name)
{
	return !strcmp(name, "cpu") || !strcmp(name, "pid") || tep_find_any_field(e, name);
}

/* Die: e has no field f for option opt; name the fields it has. */
static void no_field(struct tep_event *e, const char *f, const char *opt)
{
	struct tep_format_field **fl = tep_event_fields(e);
	char list[1024];
	size_t n = 0;

	list[0] = 0;
	for (size_t i = 0; fl && fl[i] && n + 1 < sizeof(list); i++) {
		int r = snprintf(list + n, sizeof(list) - n, "%s%s", n ? " " : "", fl[i]->name);

		n += r > 0 ? (size_t)r : 0;
	}
	free(fl);
	ft_die("latency: event %s:%s has no field '%s' to use as %s; its fields: %s (also: "
	       "common_pid, cpu)",
	       e->system, e->name, f, opt, list[0] ? list : "none");
}

/*
 * Before any output: --from and --to each name an event the trace has a
 * format for, and every such event has its key (and, for --from, the
 * --label) field.
 */
static void check_events(struct ft_kevents *k, const char *from, const char *to,
			 const char *fromkey, const char *tokey, const char *fromopt,
			 const char *toopt, const char *labelf, const char *input)
{
	struct tep_event **evs = tep_list_events(ft_kevents_tep(k), TEP_EVENT_SORT_ID);
	int saw_from = 0, saw_to = 0;

	for (size_t i = 0; evs && evs[i]; i++) {
		struct tep_event *e = evs[i];
		int is_from = matches(e, from), is_to = matches(e, to);

		saw_from |= is_from;
		saw_to |= is_to;
		if (is_from && !has_field(e, fromkey))
			no_field(e, fromkey, fromopt);
		if (is_to && !has_field(e, tokey))
			no_field(e, tokey, toopt);
		if (is_from && labelf && !has_field(e, labelf))
			ft_die("latency: event %s:%s has no field '%s' to use as --label",
			       e->system, e->name, labelf);
	}
	if (!saw_from)
		ft_die("latency: no '%s' event in %s", from, input);
	if (!saw_to)
		ft_die("latency: no '%s' event in %s", to, input);
}

static void print_header(void)
{
	printf("%-18s %-6s %-12s %-40s %s\n", "BEGIN(s)", "CPU", "KEY", "LABEL", "DURATION(us)");
}

static struct keyq *get_key(struct lat *l, const char *key)
{
	for (size_t i = 0; i < l->nkeys; i++)
		if (!strcmp(l->keys[i].key, key))
			return &l->keys[i];
	l->keys = ft_realloc(l->keys, (l->nkeys + 1) * sizeof(*l->keys));
	l->keys[l->nkeys] = (struct keyq){ ft_strdup(key), NULL, 0, 0 };
	return &l->keys[l->nkeys++];
}

static void add_label(struct lat *l, const char *label, uint64_t d)
{
	struct label_stat *s = NULL;

	for (size_t i = 0; i < l->nlabels; i++)
		if (!strcmp(l->labels[i].label, label)) {
			s = &l->labels[i];
			break;
		}
	if (!s) {
		l->labels = ft_realloc(l->labels, (l->nlabels + 1) * sizeof(*l->labels));
		s = &l->labels[l->nlabels++];
		*s = (struct label_stat){ ft_strdup(label), 0, 0, UINT64_MAX, 0 };
	}
	s->count++;
	s->total += d;
	s->min = d < s->min ? d : s->min;
	s->max = d > s->max ? d : s->max;
}

static void add_kstat(struct lat *l, const char *key, uint64_t d)
{
	struct key_stat *s = NULL;

	for (size_t i = 0; i < l->nkstats; i++)
		if (!strcmp(l->kstats[i].key, key)) {
			s = &l->kstats[i];
			break;
		}
	if (!s) {
		l->kstats = ft_realloc(l->kstats, (l->nkstats + 1) * sizeof(*l->kstats));
		s = &l->kstats[l->nkstats++];
		*s = (struct key_stat){ ft_strdup(key), 0, 0, 0 };
	}
	s->hitcount++;
	s->total += d;
	s->max = d > s->max ? d : s->max;
}

static int by_max(const void *a, const void *b)
{
	const struct key_stat *x = a, *y = b;

	if (x->max != y->max)
		return x->max > y->max ? -1 : 1;
	return strcmp(x->key, y->key);
}

/*
 * --hist: the two histograms as the kernel's hist trigger prints them
 * (hist_trigger_show(): the "# event histogram" block, one
 * "{ key: value } hitcount: N  val: N" line per entry, then Totals).
 * Values are microseconds, as a hist of common_timestamp.usecs; the key
 * is printed as a number when it is one (%10llu), else as a string.
 */
static void print_hist_trigger(struct lat *l, const char *from, const char *to, const char *fromkey,
			       const char *tokey)
{
	uint64_t hits = 0, entries = 0;

	qsort(l->kstats, l->nkstats, sizeof(*l->kstats), by_max);
	printf("# event histogram\n#\n# trigger info: hist:keys=%s:vals=hitcount,lat,lat_max:"
	       "sort=lat_max.descending [%s %s -> %s %s, lat in usecs]\n#\n\n",
	       tokey, from, fromkey, to, tokey);
	for (size_t i = 0; i < l->nkstats; i++) {
		const struct key_stat *k = &l->kstats[i];
		char *end;
		unsigned long long v = strtoull(k->key, &end, 10);

		if (*k->key && !*end)
			printf("{ %s: %10llu }", tokey, v);
		else
			printf("{ %s: %-30s }", tokey, k->key);
		printf(" hitcount: %10llu  lat: %10llu  lat_max: %10llu\n",
		       (unsigned long long)k->hitcount, (unsigned long long)(k->total / 1000),
		       (unsigned long long)(k->max / 1000));
		hits += k->hitcount;
	}
	printf("\nTotals:\n    Hits: %llu\n    Entries: %llu\n    Dropped: 0\n",
	       (unsigned long long)hits, (unsigned long long)l->nkstats);

	printf("\n# event histogram\n#\n# trigger info: hist:keys=lat.log2:vals=hitcount:"
	       "sort=lat.log2 [%s -> %s, lat in usecs]\n#\n\n",
	       from, to);
	hits = 0;
	for (int b = 0; b < 64; b++) {
		if (!l->ushist[b])
			continue;
		printf("{ lat: ~ 2^%-2d } hitcount: %10llu\n", b, (unsigned long long)l->ushist[b]);
		hits += l->ushist[b];
		entries++;
	}
	printf("\nTotals:\n    Hits: %llu\n    Entries: %llu\n    Dropped: 0\n",
	       (unsigned long long)hits, (unsigned long long)entries);
}

static int by_total(const void *a, const void *b)
{
	const struct label_stat *x = a, *y = b;

	if (x->total != y->total)
		return x->total > y->total ? -1 : 1;
	return strcmp(x->label, y->label);
}

/* ns as "12.345 us" style text with a fixed unit (us). */
static void fmt_us(char *buf, size_t len, uint64_t ns)
{
	snprintf(buf, len, "%llu.%03llu", (unsigned long long)(ns / 1000),
		 (unsigned long long)(ns % 1000));
}

static const char *unit_name(unsigned int b)
{
	static char buf[4][32];
	static int i;
	uint64_t v = b ? 1ull << (b - 1) : 0;
	char *s = buf[i++ & 3];

	if (v >= 1000000000ull && !(v % 1000000000ull))
		snprintf(s, 32, "%llus", (unsigned long long)(v / 1000000000ull));
	else if (v >= 1048576)
		snprintf(s, 32, "%lluM", (unsigned long long)(v >> 20));
	else if (v >= 1024)
		snprintf(s, 32, "%lluK", (unsigned long long)(v >> 10));
	else
		snprintf(s, 32, "%llu", (unsigned long long)v);
	return s;
}

static void print_hist(const struct lat *l)
{
	uint64_t maxc = 0;
	int lo = 64, hi = -1;

	for (int b = 0; b < 64; b++) {
		if (!l->hist[b])
			continue;
		lo = b < lo ? b : lo;
		hi = b;
		maxc = l->hist[b] > maxc ? l->hist[b] : maxc;
	}
	if (hi < 0)
		return;
	printf("\nduration (ns), log2 histogram:\n");
	for (int b = lo; b <= hi; b++) {
		int bar = (int)(l->hist[b] * 52 / maxc);
		char range[64];

		/* bucket b holds [2^(b-1), 2^b) ns; bucket 0 holds 0 */
		if (b == 0)
			snprintf(range, sizeof(range), "[0]");
		else
			snprintf(range, sizeof(range), "[%s, %s)", unit_name((unsigned int)b),
				 unit_name((unsigned int)b + 1));
		printf("%-20s %8llu |%.*s%*s|\n", range, (unsigned long long)l->hist[b], bar,
		       "@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@@", 52 - bar, "");
	}
}

/* The per-label table, then the (all) line. */
static void print_table(struct lat *l)
{
	char b1[32], b2[32], b3[32], b4[32];

	if (l->nlabels)
		qsort(l->labels, l->nlabels, sizeof(*l->labels), by_total);
	printf("\n%-40s %8s %14s %12s %12s %12s\n", "LABEL", "COUNT", "TOTAL(us)", "MIN(us)",
	       "AVG(us)", "MAX(us)");
	for (size_t i = 0; i < l->nlabels; i++) {
		struct label_stat *s = &l->labels[i];

		fmt_us(b1, sizeof(b1), s->total);
		fmt_us(b2, sizeof(b2), s->min);
		fmt_us(b3, sizeof(b3), s->total / s->count);
		fmt_us(b4, sizeof(b4), s->max);
		printf("%-40s %8llu %14s %12s %12s %12s\n", s->label, (unsigned long long)s->count,
		       b1, b2, b3, b4);
	}
	if (l->pairs) {
		fmt_us(b1, sizeof(b1), l->total);
		fmt_us(b2, sizeof(b2), l->min);
		fmt_us(b3, sizeof(b3), l->total / l->pairs);
		fmt_us(b4, sizeof(b4), l->max);
		printf("%-40s %8llu %14s %12s %12s %12s\n", "(all)", (unsigned long long)l->pairs,
		       b1, b2, b3, b4);
	}
}

int cmd_latency(int argc, char **argv)
{
	const char *input = "ftrail.dat", *from = NULL, *to = NULL, *keyf = "pid", *labelf = NULL;
	const char *fromkey = NULL, *tokey = NULL;
	int hist = 0;
	struct lat l = { .min = UINT64_MAX };
	struct ft_reader *r;
	struct ft_kevents *k;
	struct ft_kevent ev;
	char err[512] = "", key[256], label[256], b1[32];
	int summary = 0, c, ret, saw_from = 0, saw_to = 0, header = 0;
	uint64_t open_left = 0;

	while ((c = getopt_long(argc, argv, ":i:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case OPT_FROM:
			from = optarg;
			break;
		case OPT_TO:
			to = optarg;
			break;
		case OPT_KEY:
			keyf = optarg;
			break;
		case OPT_LABEL:
			labelf = optarg;
			break;
		case OPT_SUMMARY:
			summary = 1;
			break;
		case OPT_FROM_KEY:
			fromkey = optarg;
			break;
		case OPT_TO_KEY:
			tokey = optarg;
			break;
		case OPT_HIST:
			hist = 1;
			break;
		case 'h':
			fputs(cmd_latency_usage, stdout);
			return 0;
		default:
			ft_bad_option("latency", c, argv);
		}
	}
	ft_no_operands("latency", argc, argv, "the trace file is given with -i");
	if (!from || !to)
		ft_die("latency: --from SYS:EVENT and --to SYS:EVENT are both needed");
	if (hist && summary)
		ft_die("latency: --hist and --summary are separate outputs; give one");
	if (hist)
		summary = 1; /* no pair lines */

	r = ft_reader_open(input, err, sizeof(err));
	if (!r)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_reader_nr_warnings(r); i++)
		ft_warn("%s", ft_reader_warning(r, i));
	k = ft_kevents_open(r, err, sizeof(err));
	if (!k)
		ft_die_file(input, err[0] ? err : "no kernel events in this trace");

	check_events(k, from, to, fromkey ? fromkey : keyf, tokey ? tokey : keyf,
		     fromkey ? "--from-key" : "--key", tokey ? "--to-key" : "--key", labelf, input);
	if (!fromkey)
		fromkey = keyf;
	if (!tokey)
		tokey = keyf;

	while ((ret = ft_kevents_next(k, &ev)) == 1) {
		int is_from, is_to;

		if (ev.kind != FT_KEV_EVENT)
			continue;
		is_from = matches(ev.event, from);
		is_to = matches(ev.event, to);
		if (!is_from && !is_to)
			continue;
		if (ft_kevents_field_str(k, &ev, is_from ? fromkey : tokey, key, sizeof(key)))
			no_field(ev.event, is_from ? fromkey : tokey,
				 is_from ? "--from-key" : "--to-key");
		if (is_from) {
			struct keyq *q = get_key(&l, key);

			saw_from = 1;
			label[0] = 0;
			if (labelf && ft_kevents_field_str(k, &ev, labelf, label, sizeof(label)))
				ft_die("latency: event %s:%s has no field '%s' to use as --label",
				       ev.event->system, ev.event->name, labelf);
			if (!labelf)
				snprintf(label, sizeof(label), "%s", ev.event->name);
			if (q->n == q->cap) {
				q->cap = q->cap ? q->cap * 2 : 8;
				q->v = ft_realloc(q->v, q->cap * sizeof(*q->v));
			}
			q->v[q->n] = (struct open_begin){ ev.ts, ev.cpu, ft_strdup(label),
							  (int)(q->n < 10 ? q->n : 10) };
			q->n++;
			continue;
		}
		saw_to = 1;
		{
			struct keyq *q = get_key(&l, key);
			struct open_begin *b;
			uint64_t d;
			int bucket = 0;

			if (!q->n) {
				l.unmatched_end++;
				continue;
			}
			b = &q->v[--q->n];
			d = ev.ts >= b->ts ? ev.ts - b->ts : 0;
			if (!summary && !header++)
				print_header();
			if (!summary)
				printf("%7llu.%09llu   %-6d %-12s %*s%-*s %s\n",
				       (unsigned long long)(b->ts / 1000000000ull),
				       (unsigned long long)(b->ts % 1000000000ull), b->cpu, key,
				       2 * b->depth, "", 40 - 2 * b->depth, b->label,
				       (fmt_us(b1, sizeof(b1), d), b1));
			add_label(&l, b->label, d);
			l.pairs++;
			l.total += d;
			l.min = d < l.min ? d : l.min;
			l.max = d > l.max ? d : l.max;
			while (d >> bucket)
				bucket++;
			l.hist[bucket < 64 ? bucket : 63]++;
			/* the kernel's log2 key: ilog2(v), 0 for v 0 and 1 */
			bucket = 0;
			while ((d / 1000) >> (bucket + 1))
				bucket++;
			l.ushist[bucket]++;
			add_kstat(&l, key, d);
			free(b->label);
		}
	}
	if (ret < 0)
		ft_die_file(input, ft_kevents_error(k));
	if (!saw_from)
		ft_die("latency: no '%s' event in %s", from, input);
	if (!saw_to)
		ft_die("latency: no '%s' event in %s", to, input);
	if (!summary && !header)
		print_header();

	for (size_t i = 0; i < l.nkeys; i++) {
		for (size_t j = 0; j < l.keys[i].n; j++)
			free(l.keys[i].v[j].label);
		open_left += l.keys[i].n;
		free(l.keys[i].v);
		free(l.keys[i].key);
	}
	if (hist)
		print_hist_trigger(&l, from, to, fromkey, tokey);
	else
		print_table(&l);
	printf("\npairs: %llu, begins left open: %llu, ends without a begin: %llu\n",
	       (unsigned long long)l.pairs, (unsigned long long)open_left,
	       (unsigned long long)l.unmatched_end);
	if (!hist)
		print_hist(&l);
	if (fflush(stdout) || ferror(stdout))
		ft_die("writing the output: write error");
	for (size_t i = 0; i < l.nlabels; i++)
		free(l.labels[i].label);
	free(l.labels);
	for (size_t i = 0; i < l.nkstats; i++)
		free(l.kstats[i].key);
	free(l.kstats);
	free(l.keys);
	ft_kevents_close(k);
	ft_reader_close(r);
	return 0;
}
