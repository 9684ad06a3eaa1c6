// SPDX-License-Identifier: GPL-2.0
/*
 * The wakeup latency tracers over a trace file's scheduler events (see
 * wakeup.h for the rules and where they differ from the kernel's).
 */
#include "analysis/wakeup.h"

#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "analysis/kevents.h"
#include "core/hashtab.h"
#include "core/util.h"

/* Per task: selected, running, a pending wakeup. */
struct task {
	struct ft_hentry h; /* key: tid */
	int selected;
	int running;
	int pending;
	struct ft_wakeup_case c; /* the pending wakeup's start */
};

struct ft_wakeup {
	enum ft_wakeup_class cls;
	uint64_t thresh;
	int all;    /* no tid list: every task */
	int follow; /* the selection takes in what its tasks fork */
	struct ft_htab tasks;
	struct ft_wakeup_case *cases;
	size_t nr_cases, cap_cases;
	struct ft_wakeup_stats st;
	/* the formats of the events used, from the file */
	struct tep_event *waking, *wakeup, *wakeup_new, *sw, *fork;
};

int ft_wakeup_class_of(const char *tracer)
{
	if (!tracer)
		return -1;
	if (!strcmp(tracer, "wakeup"))
		return FT_WAKEUP_ALL;
	if (!strcmp(tracer, "wakeup_rt"))
		return FT_WAKEUP_RT;
	if (!strcmp(tracer, "wakeup_dl"))
		return FT_WAKEUP_DL;
	return -1;
}

struct ft_wakeup *ft_wakeup_new(enum ft_wakeup_class cls, uint64_t thresh_ns, const int *tids,
				size_t ntids, int follow)
{
	struct ft_wakeup *w = calloc(1, sizeof(*w));

	if (!w)
		return NULL;
	w->cls = cls;
	w->thresh = thresh_ns;
	w->all = ntids == 0;
	w->follow = follow;
	w->st.min = UINT64_MAX;
	if (ft_htab_init(&w->tasks, sizeof(struct task)) < 0) {
		free(w);
		return NULL;
	}
	for (size_t i = 0; i < ntids; i++) {
		struct task *t = ft_htab_get(&w->tasks, (uint64_t)(uint32_t)tids[i], 1);

		if (!t) {
			ft_wakeup_free(w);
			return NULL;
		}
		t->selected = 1;
	}
	return w;
}

void ft_wakeup_free(struct ft_wakeup *w)
{
	if (!w)
		return;
	ft_htab_free(&w->tasks);
	free(w->cases);
	free(w);
}

int ft_wakeup_parse_tids(const char *s, int **tids, size_t *n)
{
	*tids = NULL;
	*n = 0;
	while (s && *s) {
		char *end;
		long x = strtol(s, &end, 10);

		if (end == s)
			break;
		if (x > 0 && x <= INT32_MAX) {
			int *v = realloc(*tids, (*n + 1) * sizeof(**tids));

			if (!v) {
				free(*tids);
				*tids = NULL;
				*n = 0;
				return -1;
			}
			*tids = v;
			v[(*n)++] = (int)x;
		}
		s = *end == ',' ? end + 1 : end;
	}
	return 0;
}

/* A numeric field of the event's own format (never a pseudo-field). */
static int num(const struct ft_kevent *ev, const char *name, long long *v)
{
	struct tep_format_field *f = tep_find_field(ev->event, name);
	unsigned long long u;

	if (!f || (int)(f->offset + f->size) > ev->record->size ||
	    tep_read_number_field(f, ev->record->data, &u))
		return -1;
	/* pid_t, int: sign-extend what the field holds */
	if (f->size == 4)
		*v = (long long)(int32_t)(uint32_t)u;
	else
		*v = (long long)u;
	return 0;
}

static void str(const struct ft_kevent *ev, const char *name, char *buf, size_t len)
{
	struct tep_format_field *f = tep_find_field(ev->event, name);
	size_t n;

	buf[0] = 0;
	if (!f || (f->flags & TEP_FIELD_IS_DYNAMIC) ||
	    (int)(f->offset + f->size) > ev->record->size)
		return;
	n = (size_t)f->size < len - 1 ? (size_t)f->size : len - 1;
	memcpy(buf, (const char *)ev->record->data + f->offset, n);
	buf[n] = 0;
}

/* The innermost FT_WAKEUP_FRAMES frames of ev's kernel stack into ips. */
static uint32_t frames(const struct ft_kevent *ev, uint64_t *ips)
{
	uint32_t n = ev->kstack_nr < FT_WAKEUP_FRAMES ? ev->kstack_nr : FT_WAKEUP_FRAMES;

	for (uint32_t i = 0; i < n; i++)
		ips[i] = ev->kstack[i];
	return n;
}

static struct task *task_of(struct ft_wakeup *w, int tid, int create)
{
	struct task *t = ft_htab_get(&w->tasks, (uint64_t)(uint32_t)tid, create);

	if (t && w->all)
		t->selected = 1;
	return t;
}

static int in_class(const struct ft_wakeup *w, int prio)
{
	switch (w->cls) {
	case FT_WAKEUP_RT:
		return prio >= 0 && prio < 100;
	case FT_WAKEUP_DL:
		return prio < 0;
	default:
		return 1;
	}
}

static int add_case(struct ft_wakeup *w, const struct ft_wakeup_case *c)
{
	if (!w->thresh) {
		/* the max buffer: only the latest maximum is kept */
		w->nr_cases = 0;
	}
	if (w->nr_cases == w->cap_cases) {
		size_t nc = w->cap_cases ? 2 * w->cap_cases : 16;
		struct ft_wakeup_case *v = realloc(w->cases, nc * sizeof(*v));

		if (!v)
			return -1;
		w->cases = v;
		w->cap_cases = nc;
	}
	w->cases[w->nr_cases++] = *c;
	return 0;
}

static int on_wake(struct ft_wakeup *w, const struct ft_kevent *ev)
{
	long long pid, prio;
	struct task *t;

	if (num(ev, "pid", &pid) || num(ev, "prio", &prio))
		return 0;
	t = task_of(w, (int)pid, w->all);
	if (!t || !t->selected)
		return 0;
	if (!in_class(w, (int)prio)) {
		w->st.other_class++;
		return 0;
	}
	w->st.wakeups++;
	if (t->running) {
		w->st.running++;
		return 0;
	}
	if (t->pending) {
		w->st.again++;
		return 0;
	}
	t->pending = 1;
	memset(&t->c, 0, sizeof(t->c));
	t->c.wake_ts = ev->ts;
	t->c.wake_seq = ev->seq;
	t->c.tid = (int)pid;
	t->c.prio = (int)prio;
	str(ev, "comm", t->c.comm, sizeof(t->c.comm));
	t->c.wake_cpu = ev->cpu;
	t->c.waker_pid = ev->pid;
	t->c.wake_nr = frames(ev, t->c.wake_ips);
	snprintf(t->c.waker_comm, sizeof(t->c.waker_comm), "%s", ev->comm ? ev->comm : "<...>");
	return 0;
}

static int on_switch(struct ft_wakeup *w, const struct ft_kevent *ev)
{
	long long prev, next;
	struct task *t;

	if (num(ev, "prev_pid", &prev) || num(ev, "next_pid", &next))
		return 0;
	t = task_of(w, (int)prev, 0);
	if (t) {
		t->running = 0;
		/* woken before its switch-in was seen: no latency to measure */
		if (t->pending) {
			t->pending = 0;
			w->st.running++;
		}
	}
	t = task_of(w, (int)next, 1);
	if (!t)
		return -1;
	t->running = prev != next;
	if (!t->pending)
		return 0;
	t->pending = 0;
	t->c.run_ts = ev->ts;
	t->c.run_seq = ev->seq;
	t->c.cpu = ev->cpu;
	t->c.run_nr = frames(ev, t->c.run_ips);
	/* the name it runs under now (the kernel's header shows the current one) */
	str(ev, "next_comm", t->c.comm, sizeof(t->c.comm));
	t->c.lat = ev->ts >= t->c.wake_ts ? ev->ts - t->c.wake_ts : 0;
	w->st.latencies++;
	w->st.total += t->c.lat;
	if (t->c.lat < w->st.min)
		w->st.min = t->c.lat;
	/* report_latency(): at or above tracing_thresh, else above the max */
	if (w->thresh ? t->c.lat < w->thresh : w->nr_cases && t->c.lat <= w->st.max_latency)
		return 0;
	w->st.max_latency = t->c.lat;
	return add_case(w, &t->c);
}

static int on_fork(struct ft_wakeup *w, const struct ft_kevent *ev)
{
	long long parent, child;
	struct task *p, *c;

	if (w->all || !w->follow || num(ev, "parent_pid", &parent) || num(ev, "child_pid", &child))
		return 0;
	p = task_of(w, (int)parent, 0);
	if (!p || !p->selected)
		return 0;
	c = task_of(w, (int)child, 1);
	if (!c)
		return -1;
	c->selected = 1;
	return 0;
}

/* Events were lost: a pending wakeup's switch may be among them. */
static void forget_pending(struct ft_wakeup *w)
{
	for (size_t i = 0; i < w->tasks.cap; i++) {
		struct task *t = ft_htab_slot(&w->tasks, i);

		if (t && t->pending) {
			t->pending = 0;
			w->st.forgotten++;
		}
	}
}

int ft_wakeup_run(struct ft_wakeup *w, struct ft_kevents *k, char *err, size_t errlen)
{
	struct ft_kevent ev;
	int ret, r = 0;

	w->sw = ft_kevents_find_event(k, "sched:sched_switch");
	w->waking = ft_kevents_find_event(k, "sched:sched_waking");
	w->wakeup = ft_kevents_find_event(k, "sched:sched_wakeup");
	w->wakeup_new = ft_kevents_find_event(k, "sched:sched_wakeup_new");
	w->fork = ft_kevents_find_event(k, "sched:sched_process_fork");
	if (!w->sw || (!w->waking && !w->wakeup)) {
		ft_seterr(
			err, errlen,
			"no sched:sched_switch and sched:sched_waking (or sched_wakeup) events in "
			"this trace: record it with ftrail record -p wakeup");
		return -1;
	}
	w->st.have_waking = w->waking != NULL;
	ft_kevents_rewind(k);
	while ((ret = ft_kevents_next(k, &ev)) == 1) {
		if (ev.kind == FT_KEV_MISSED) {
			w->st.missed += ev.missed ? ev.missed : 1;
			forget_pending(w);
			continue;
		}
		if (!ev.event || !ev.record)
			continue;
		if (ev.event == w->sw)
			r = on_switch(w, &ev);
		else if (ev.event == (w->waking ? w->waking : w->wakeup) ||
			 ev.event == w->wakeup_new)
			r = on_wake(w, &ev);
		else if (ev.event == w->fork)
			r = on_fork(w, &ev);
		if (r < 0) {
			ft_kevents_rewind(k);
			ft_seterr(err, errlen, "out of memory");
			return -1;
		}
	}
	ft_kevents_rewind(k);
	if (ret < 0) {
		ft_seterr(err, errlen, "%s", ft_kevents_error(k));
		return -1;
	}
	if (!w->st.latencies)
		w->st.min = 0;
	return 0;
}

const struct ft_wakeup_case *ft_wakeup_cases(const struct ft_wakeup *w, size_t *n)
{
	*n = w->nr_cases;
	return w->cases;
}

void ft_wakeup_get_stats(const struct ft_wakeup *w, struct ft_wakeup_stats *st)
{
	*st = w->st;
}

int ft_wakeup_in_window(const struct ft_wakeup_case *c, int cpu, uint64_t seq)
{
	return seq == c->wake_seq || (cpu == c->cpu && seq >= c->wake_seq && seq <= c->run_seq);
}
