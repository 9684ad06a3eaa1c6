// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space latency tracers' results, printed in ftrace's shapes:
 * stack_trace / stack_max_size for -p stack, the latency-format trace for
 * -p lockheld and -p sigsoff (analysis/ulat.h, doc/latency-user.md).
 *
 * Two passes over the trace: the first gathers the FT_EV_ULAT records (the
 * runtime writes a thread's stack max once it is past it, and a section
 * when it is a new max or over tracing_thresh); the second picks the
 * function records that fall in each section to print, on that section's
 * thread and between its start and end: the trace of the section.
 */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/trace.h"
#include "analysis/ulat.h"
#include "core/ulat.h"
#include "core/util.h"

struct ulat_stack {
	uint32_t pid, tid;
	char comm[32];
	struct ft_ulat_stack h;
	uint64_t *ips;
	uint32_t *depth;
};

struct ulat_line {
	uint64_t ts; /* ns */
	uint32_t fid, parent_fid;
	uint64_t parent_addr;
	uint16_t level;
};

struct ulat_sec {
	uint32_t pid, tid;
	char comm[32];
	struct ft_ulat_sec r;
	uint64_t begin_ns, end_ns;
	int shown; /* its trace is printed */
	struct ulat_line *lines;
	size_t nr_lines, cap_lines;
};

struct ulat {
	struct ft_trace *t;
	const uint32_t *tids; /* shown, nr_tids of them; all when 0 */
	size_t nr_tids;
	struct ulat_stack *stacks;
	size_t nr_stacks;
	struct ulat_sec *secs;
	size_t nr_secs;
	int thresh; /* sections were written over tracing_thresh */
};

int ft_ulat_is_tracer(const char *tracer)
{
	return tracer && (!strcmp(tracer, "stack") || !strcmp(tracer, "lockheld") ||
			  !strcmp(tracer, "sigsoff"));
}

static void copy_comm(struct ft_trace *t, uint32_t tid, char *dst, size_t len)
{
	const char *c = ft_trace_comm(t, tid);

	snprintf(dst, len, "%s", c ? c : "<...>");
}

static int add_stack(struct ulat *u, const struct ft_event *ev, char *err, size_t errlen)
{
	struct ft_ulat_stack h;
	struct ulat_stack *s = NULL;
	size_t need;

	if (ev->len < sizeof(h)) {
		snprintf(err, errlen, "stack tracer record too short (%zu bytes)", ev->len);
		return -1;
	}
	memcpy(&h, ev->data, sizeof(h));
	need = sizeof(h) + (size_t)h.nr * (sizeof(uint64_t) + sizeof(uint32_t));
	if (ev->len < need) {
		snprintf(err, errlen, "stack tracer record of %u entries cut short (%zu bytes)",
			 h.nr, ev->len);
		return -1;
	}
	for (size_t i = 0; i < u->nr_stacks; i++)
		if (u->stacks[i].tid == ev->tid && u->stacks[i].pid == ev->pid)
			s = &u->stacks[i];
	if (s && s->h.max_size >= h.max_size)
		return 0; /* the thread's max only grows: an older one */
	if (!s) {
		s = realloc(u->stacks, (u->nr_stacks + 1) * sizeof(*s));
		if (!s)
			goto oom;
		u->stacks = s;
		s = &u->stacks[u->nr_stacks++];
		memset(s, 0, sizeof(*s));
		s->pid = ev->pid;
		s->tid = ev->tid;
	}
	free(s->ips);
	s->ips = malloc(h.nr ? h.nr * sizeof(uint64_t) : 1);
	free(s->depth);
	s->depth = malloc(h.nr ? h.nr * sizeof(uint32_t) : 1);
	if (!s->ips || !s->depth)
		goto oom;
	s->h = h;
	memcpy(s->ips, (const char *)ev->data + sizeof(h), h.nr * sizeof(uint64_t));
	memcpy(s->depth, (const char *)ev->data + sizeof(h) + h.nr * sizeof(uint64_t),
	       h.nr * sizeof(uint32_t));
	copy_comm(u->t, ev->tid, s->comm, sizeof(s->comm));
	return 0;
oom:
	snprintf(err, errlen, "out of memory");
	return -1;
}

static int add_sec(struct ulat *u, const struct ft_event *ev, char *err, size_t errlen)
{
	struct ulat_sec *s;

	if (ev->len < sizeof(struct ft_ulat_sec)) {
		snprintf(err, errlen, "section record too short (%zu bytes)", ev->len);
		return -1;
	}
	s = realloc(u->secs, (u->nr_secs + 1) * sizeof(*s));
	if (!s) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	u->secs = s;
	s = &u->secs[u->nr_secs++];
	memset(s, 0, sizeof(*s));
	memcpy(&s->r, ev->data, sizeof(s->r));
	s->pid = ev->pid;
	s->tid = ev->tid;
	s->begin_ns = ft_trace_tsc_to_ns(u->t, s->r.begin_ts);
	s->end_ns = ft_trace_tsc_to_ns(u->t, s->r.end_ts);
	copy_comm(u->t, ev->tid, s->comm, sizeof(s->comm));
	if (s->r.flags & FT_ULAT_THRESH)
		u->thresh = 1;
	return 0;
}

static int tid_shown(const struct ulat *u, uint32_t tid)
{
	for (size_t i = 0; i < u->nr_tids; i++)
		if (u->tids[i] == tid)
			return 1;
	return !u->nr_tids;
}

/* Pass 1: the records. */
static int gather(struct ulat *u, char *err, size_t errlen)
{
	const struct ft_event *ev;
	int ret;

	while ((ret = ft_trace_next_ref(u->t, &ev, err, errlen)) == 1) {
		uint32_t kind;

		if (ev->type != FT_EV_ULAT || !tid_shown(u, ev->tid))
			continue;
		if (ev->len < 4) {
			snprintf(err, errlen, "latency tracer record too short (%zu bytes)",
				 ev->len);
			return -1;
		}
		memcpy(&kind, ev->data, 4);
		if (kind == FT_ULAT_STACK)
			ret = add_stack(u, ev, err, errlen);
		else if (kind == FT_ULAT_LOCK || kind == FT_ULAT_SIGS)
			ret = add_sec(u, ev, err, errlen);
		else
			ret = 0; /* a kind of a newer version: not ours to print */
		if (ret < 0)
			return -1;
	}
	return ret;
}

/* Pass 2: the function records inside the sections to print. */
static int collect_lines(struct ulat *u, char *err, size_t errlen)
{
	const struct ft_event *ev;
	int ret;

	if (ft_trace_rewind(u->t, err, errlen) < 0)
		return -1;
	while ((ret = ft_trace_next_ref(u->t, &ev, err, errlen)) == 1) {
		if (ev->type != FT_EV_FUNC)
			continue;
		for (size_t i = 0; i < u->nr_secs; i++) {
			struct ulat_sec *s = &u->secs[i];
			struct ulat_line *l;

			if (!s->shown || ev->tid != s->tid || ev->pid != s->pid ||
			    ev->ts < s->begin_ns || ev->ts > s->end_ns)
				continue;
			if (s->nr_lines == s->cap_lines) {
				size_t cap = s->cap_lines ? 2 * s->cap_lines : 64;

				l = realloc(s->lines, cap * sizeof(*l));
				if (!l) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				s->lines = l;
				s->cap_lines = cap;
			}
			l = &s->lines[s->nr_lines++];
			l->ts = ev->ts;
			l->fid = ev->fid;
			l->parent_fid = ev->parent_fid;
			l->parent_addr = ev->parent_addr;
			l->level = ev->level;
		}
	}
	return ret;
}

/* ---- stack ---- */

static int cmp_stack(const void *a, const void *b)
{
	const struct ulat_stack *x = a, *y = b;

	if (x->pid != y->pid)
		return x->pid < y->pid ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void print_stacks(struct ulat *u, FILE *o)
{
	const struct ulat_stack *top = NULL;
	char name[512];

	if (u->nr_stacks)
		qsort(u->stacks, u->nr_stacks, sizeof(*u->stacks), cmp_stack);
	for (size_t i = 0; i < u->nr_stacks; i++)
		if (!top || u->stacks[i].h.max_size > top->h.max_size)
			top = &u->stacks[i];
	fprintf(o, "# tracer: stack\n#\n");
	if (!top) {
		fprintf(o, "# no stack recorded (no traced function was entered)\n");
		return;
	}
	/* ftrace's stack_max_size: the deepest of all */
	fprintf(o, "# stack_max_size: %u (%s-%u)\n", top->h.max_size, top->comm, top->tid);
	for (size_t i = 0; i < u->nr_stacks; i++) {
		const struct ulat_stack *s = &u->stacks[i];

		fprintf(o, "\n# thread %s-%u (pid %u)\nstack_max_size: %u\n", s->comm, s->tid,
			s->pid, s->h.max_size);
		fprintf(o,
			"        Depth    Size   Location    (%u entries)\n"
			"        -----    ----   --------\n",
			s->h.nr);
		for (uint32_t k = 0; k < s->h.nr; k++) {
			uint32_t d = s->depth[k];
			uint32_t next = k + 1 < s->h.nr ? s->depth[k + 1] : 0;

			ft_trace_addr_name_pid(u->t, s->pid, s->ips[k], 1, name, sizeof(name));
			fprintf(o, "%3u) %8u   %5u   %s\n", k, d, d >= next ? d - next : 0, name);
		}
		if (s->h.flags & FT_ULAT_CUT)
			fprintf(o, "# the stack goes on: a record holds %u entries (a ring page)\n",
				s->h.nr);
	}
}

/* ---- sections ---- */

static const char *fid_name(struct ulat *u, uint32_t fid, char *buf, size_t len)
{
	if (fid == UINT32_MAX || fid == FT_FID_UNKNOWN)
		return "?";
	return ft_trace_func_name(u->t, fid, 0, buf, len);
}

static char depth_char(unsigned int d)
{
	return d == 0 ? '.' : d < 16 ? "0123456789abcdef"[d] : 'f';
}

static void sec_line(FILE *o, const struct ulat_sec *s, int sigs, uint64_t ts, uint64_t next_ts,
		     uint16_t level, const char *fn, const char *parent)
{
	uint64_t rel = ts > s->begin_ns ? (ts - s->begin_ns) / 1000 : 0;
	uint64_t gap = next_ts > ts ? next_ts - ts : 0;
	char cpu = s->r.cpu < 10 ? (char)('0' + s->r.cpu) : '?';

	fprintf(o, "%8.8s-%-5u %c%c.%c%c %4" PRIu64 "us%c: %s (%s)\n", s->comm, s->tid, cpu,
		sigs ? 'd' : '.', level ? 'h' : '.', sigs ? '.' : depth_char(s->r.held + 1), rel,
		gap > 100000 ? '!'
		: gap > 1000 ? '+'
			     : ' ',
		fn, parent);
}

static void print_stack(struct ulat *u, FILE *o, const struct ulat_sec *s, const char *what,
			uint32_t id, uint64_t ip)
{
	const uint64_t *ips;
	uint32_t nr;
	char name[512];

	fprintf(o, "# stack where it %s:\n", what);
	if (id == UINT32_MAX || ft_trace_stack(u->t, 0, id, &ips, &nr) < 0) {
		/* no stack map id: the caller alone */
		fprintf(o, " => %s\n",
			ft_trace_addr_name_pid(u->t, s->pid, ip, 1, name, sizeof(name)));
		return;
	}
	for (uint32_t i = 0; i < nr; i++)
		fprintf(o, " => %s\n",
			ft_trace_addr_name_pid(u->t, s->pid, ips[i], 1, name, sizeof(name)));
}

static void print_sec(struct ulat *u, FILE *o, const char *tracer, const struct ulat_sec *s)
{
	const char *kernel = ft_trace_meta(u->t, "kernel"), *ncpu = ft_trace_meta(u->t, "nr_cpus");
	int sigs = s->r.kind == FT_ULAT_SIGS;
	uint64_t lat = (s->end_ns - s->begin_ns) / 1000;
	char a[512], b[512];
	size_t n = s->nr_lines + 1;

	fprintf(o, "%s latency trace v1.1.5 on %s\n", tracer, kernel ? kernel : "?");
	fprintf(o, "--------------------------------------------------------------------\n");
	fprintf(o, " latency: %" PRIu64 " us, #%zu/%zu, CPU#", lat, n, n);
	if (s->r.cpu == UINT32_MAX)
		fprintf(o, "?");
	else
		fprintf(o, "%u", s->r.cpu);
	fprintf(o, " | (M:user VP:0, KP:0, SP:0 HP:0 #P:%s)\n", ncpu ? ncpu : "1");
	fprintf(o, "    -----------------\n    | task: %s-%u (pid:%u)\n    -----------------\n",
		s->comm, s->tid, s->pid);
	ft_trace_addr_name_pid(u->t, s->pid, s->r.begin_ip, 0, a, sizeof(a));
	ft_trace_addr_name_pid(u->t, s->pid, s->r.end_ip, 0, b, sizeof(b));
	fprintf(o, " => started at: %s\n => ended at:   %s\n", a, b);
	if (sigs)
		fprintf(o, " => blocked:    0x%" PRIx64 "\n", s->r.key);
	else
		fprintf(o, " => lock:       0x%" PRIx64 "\n", s->r.key);
	fprintf(o, "\n"
		   "#                _------=> CPU#\n"
		   "#               / _-----=> signals blocked\n"
		   "#              | / _----=> need-resched\n"
		   "#              || / _---=> in a signal handler\n"
		   "#              ||| / _--=> locks held\n"
		   "#              |||| /\n"
		   "#              |||||     delay\n"
		   "#  cmd     pid ||||| time  |   caller\n"
		   "#     \\   /    |||||   \\   |   /\n");
	/* the call that began it, at its return: time 0 */
	sec_line(o, s, sigs, s->begin_ns, s->nr_lines ? s->lines[0].ts : s->end_ns, 0,
		 fid_name(u, s->r.begin_fid, a, sizeof(a)),
		 ft_trace_addr_name_pid(u->t, s->pid, s->r.begin_ip, 0, b, sizeof(b)));
	for (size_t i = 0; i < s->nr_lines; i++) {
		const struct ulat_line *l = &s->lines[i];
		char p[512];

		if (l->parent_fid != FT_FID_UNKNOWN)
			ft_trace_func_name(u->t, l->parent_fid, 0, p, sizeof(p));
		else
			ft_trace_addr_name_pid(u->t, s->pid, l->parent_addr, 0, p, sizeof(p));
		sec_line(o, s, sigs, l->ts, i + 1 < s->nr_lines ? s->lines[i + 1].ts : l->ts,
			 l->level, ft_trace_func_name(u->t, l->fid, 0, a, sizeof(a)), p);
	}
	fprintf(o, "\n");
	print_stack(u, o, s, "began", s->r.begin_stack, s->r.begin_ip);
	print_stack(u, o, s, "ended", s->r.end_stack, s->r.end_ip);
	fprintf(o, "\n");
}

static int cmp_sec_key(const void *a, const void *b)
{
	const struct ulat_sec *x = *(const struct ulat_sec *const *)a;
	const struct ulat_sec *y = *(const struct ulat_sec *const *)b;

	if (x->r.key != y->r.key)
		return x->r.key < y->r.key ? -1 : 1;
	return x->begin_ns < y->begin_ns ? -1 : x->begin_ns > y->begin_ns;
}

/* Each lock (or blocked set): its sections written, and their max. */
static int print_by_key(struct ulat *u, FILE *o, int sigs, char *err, size_t errlen)
{
	struct ulat_sec **v = malloc((u->nr_secs ? u->nr_secs : 1) * sizeof(*v));
	size_t n = 0;

	if (!v) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (size_t i = 0; i < u->nr_secs; i++)
		v[n++] = &u->secs[i];
	if (n)
		qsort(v, n, sizeof(*v), cmp_sec_key);
	fprintf(o, "# %s, by %s: the sections written (%s)\n", sigs ? "sigsoff" : "lockheld",
		sigs ? "blocked set" : "lock",
		u->thresh ? "each one over tracing_thresh" : "each new max when it happened");
	fprintf(o, "# %-18s %10s %9s  %s\n", sigs ? "blocked" : "lock", "max(us)", "sections",
		"thread of the max");
	for (size_t i = 0; i < n;) {
		size_t j = i, best = i;

		for (; j < n && v[j]->r.key == v[i]->r.key; j++)
			if (v[j]->end_ns - v[j]->begin_ns > v[best]->end_ns - v[best]->begin_ns)
				best = j;
		fprintf(o, "  0x%-16" PRIx64 " %10" PRIu64 " %9zu  %s-%u\n", v[i]->r.key,
			(v[best]->end_ns - v[best]->begin_ns) / 1000, j - i, v[best]->comm,
			v[best]->tid);
		i = j;
	}
	free(v);
	return 0;
}

static int print_secs(struct ulat *u, FILE *o, const char *tracer, char *err, size_t errlen)
{
	struct ulat_sec *worst = NULL;

	for (size_t i = 0; i < u->nr_secs; i++) {
		struct ulat_sec *s = &u->secs[i];

		if (!worst || s->end_ns - s->begin_ns > worst->end_ns - worst->begin_ns)
			worst = s;
		if (u->thresh)
			s->shown = 1;
	}
	if (worst)
		worst->shown = 1;
	if (collect_lines(u, err, errlen) < 0)
		return -1;
	fprintf(o, "# tracer: %s\n#\n", tracer);
	if (!worst) {
		fprintf(o, "# no section recorded (%s)\n",
			!strcmp(tracer, "sigsoff")
				? "no traced sigprocmask or pthread_sigmask call blocked a signal"
				: "no traced pthread_mutex_lock or _trylock call took a mutex");
		return 0;
	}
	fprintf(o, "# tracing_max_latency: %" PRIu64 " us\n",
		(worst->end_ns - worst->begin_ns) / 1000);
	if (u->thresh)
		fprintf(o,
			"# tracing_thresh: every section that lasted at least it, in time order\n");
	fprintf(o, "#\n");
	for (size_t i = 0; i < u->nr_secs; i++)
		if (u->secs[i].shown)
			print_sec(u, o, tracer, &u->secs[i]);
	return print_by_key(u, o, !strcmp(tracer, "sigsoff"), err, errlen);
}

int ft_ulat_print(struct ft_trace *t, FILE *out, const uint32_t *tids, size_t nr, char *err,
		  size_t errlen)
{
	struct ulat u = { .t = t, .tids = tids, .nr_tids = nr };
	const char *tracer = ft_trace_tracer(t);
	int ret = gather(&u, err, errlen);

	if (ret == 0) {
		if (!strcmp(tracer, "stack"))
			print_stacks(&u, out);
		else
			ret = print_secs(&u, out, tracer, err, errlen);
	}
	for (size_t i = 0; i < u.nr_stacks; i++) {
		free(u.stacks[i].ips);
		free(u.stacks[i].depth);
	}
	for (size_t i = 0; i < u.nr_secs; i++)
		free(u.secs[i].lines);
	free(u.stacks);
	free(u.secs);
	if (ret == 0 && (fflush(out) != 0 || ferror(out))) {
		snprintf(err, errlen, "writing the output: write error");
		ret = -1;
	}
	return ret;
}
