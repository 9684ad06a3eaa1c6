// SPDX-License-Identifier: GPL-2.0
/*
 * Reads a trace file into the off-CPU engine (see offcpu_file.h): kernel
 * events from kevents.h merged in time with the user records of trace.h,
 * whose function_graph entries/exits keep a shadow stack per thread
 * (offcpu_ustack.h) that gives each switch-out its exact user stack.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "analysis/kevents.h"
#include "analysis/offcpu.h"
#include "analysis/offcpu_file.h"
#include "analysis/offcpu_output.h"
#include "analysis/offcpu_ustack.h"
#include "analysis/trace.h"
#include "core/hashtab.h"
#include "core/tracefile.h"

/* tid -> tgid, and whether the thread is one of those analysed. */
struct tident {
	struct ft_hentry h; /* first (hashtab.h): key the tid */
	uint32_t tgid;
	uint8_t in;
};

struct ft_offcpu_file {
	struct ft_offcpu *oc;
	struct ft_trace *t;
	struct ft_reader *r; /* ft_trace_reader(t), or our own when t is NULL */
	int own_reader;
	struct ft_kevents *k;
	struct ft_offcpu_ustack *us;
	struct ft_htab ids; /* struct tident */
	int filter;	    /* 1: only threads marked in */
	uint32_t root;	    /* pid whose forks are followed, 0 none */
	struct ft_offcpu_file_stats st;
};

static struct tident *tident_get(struct ft_offcpu_file *f, uint32_t tid, int create)
{
	if (!tid)
		return NULL;
	if (!f->ids.tab && (!create || ft_htab_init(&f->ids, sizeof(struct tident)) < 0))
		return NULL;
	return ft_htab_get(&f->ids, tid, create);
}

static int file_accept(uint32_t tid, uint32_t tgid, void *arg)
{
	struct ft_offcpu_file *f = arg;
	struct tident *id;

	if (!f->filter)
		return 1;
	id = tident_get(f, tid, 0);
	return id && id->in;
}

/* TASKS: "<pid> <tid> <comm>" lines: tgids and names; marks pid's threads. */
static int load_tasks_section(struct ft_offcpu_file *f, uint32_t only_pid, int mark_all, char *err,
			      size_t errlen)
{
	size_t len;
	char *text = ft_reader_load_all(f->r, FT_SEC_TASKS, UINT64_MAX, &len, err, errlen);
	char *p, *end;
	int marked = 0;

	if (!text)
		return err[0] ? -1 : 0;
	for (p = text, end = text + len; p < end;) {
		char *nl = memchr(p, '\n', (size_t)(end - p)), line[256];
		size_t l = (size_t)((nl ? nl : end) - p);
		unsigned int pid, tid;
		int n = 0;

		if (l < sizeof(line)) {
			memcpy(line, p, l);
			line[l] = 0;
			if (sscanf(line, "%u %u %n", &pid, &tid, &n) == 2 && tid) {
				struct tident *id = tident_get(f, tid, 1);

				if (!id ||
				    ft_offcpu_set_comm(f->oc, tid, pid, n ? line + n : NULL)) {
					free(text);
					snprintf(err, errlen, "out of memory");
					return -1;
				}
				id->tgid = pid;
				if (mark_all ||
				    (only_pid && (pid == only_pid || tid == only_pid))) {
					id->in = 1;
					marked++;
				}
			}
		}
		p += l + 1;
	}
	free(text);
	return marked;
}

static int kfield(const struct ft_kevent *ev, const char *name, unsigned long long *v)
{
	return tep_get_field_val(NULL, ev->event, name, ev->record, v, 0);
}

static void kcomm(const struct ft_kevent *ev, const char *name, char *buf, size_t len)
{
	int n = 0;
	const char *s = tep_get_field_raw(NULL, ev->event, name, ev->record, &n, 0);

	buf[0] = 0;
	if (s && n > 0)
		snprintf(buf, len, "%.*s", (int)((size_t)n < len - 1 ? (size_t)n : len - 1), s);
}

/* Feed user records up to and including time ts into the shadow stacks. */
static int feed_user(struct ft_offcpu_file *f, struct ft_event *pend, int *have, uint64_t ts,
		     char *err, size_t errlen)
{
	while (*have == 1 && pend->ts <= ts) {
		f->st.uevents++;
		/* the thread wrote this record: it was on a CPU */
		if (ft_offcpu_running(f->oc, pend->ts, pend->tid, 1)) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		if (pend->level == 0) {
			if (pend->type == FT_EV_ENTRY) {
				uint64_t a = pend->fid == FT_FID_UNKNOWN
						     ? 0
						     : ft_trace_func_addr(f->t, pend->fid);

				if (ft_offcpu_ustack_entry(f->us, pend->tid, pend->depth, a)) {
					snprintf(err, errlen, "out of memory");
					return -1;
				}
			} else if (pend->type == FT_EV_EXIT) {
				ft_offcpu_ustack_exit(f->us, pend->tid, pend->depth);
			} else if (pend->type == FT_EV_TEXIT || pend->type == FT_EV_EXEC) {
				ft_offcpu_ustack_exit(f->us, pend->tid, 0);
			}
		}
		*have = ft_trace_next(f->t, pend, err, errlen);
		if (*have < 0)
			return -1;
	}
	return 0;
}

/*
 * Leaf frames that belong to the tracing machinery that took the stack
 * (trace_event_raw_event_sched_switch, __traceiter_sched_switch, ...), not
 * to the code that blocked: how many of ips[] to skip.
 */
static uint32_t tracing_frames(struct ft_offcpu_file *f, const uint64_t *ips, uint32_t nr)
{
	uint32_t i;

	for (i = 0; i < nr && i < 8; i++) {
		uint64_t off;
		const char *n = ft_kevents_sym_name(f->k, ips[i], &off);

		if (!n || (strncmp(n, "trace_event_raw_event_", 22) &&
			   strncmp(n, "__traceiter_", 12) && strncmp(n, "perf_trace_", 11) &&
			   strncmp(n, "__bpf_trace_", 12) && strncmp(n, "trace_sched_", 12)))
			break;
	}
	return i < nr ? i : 0;
}

#define LEAF_MAX 16

/*
 * A function_graph stack (graph[0] is the deepest open traced call) ends
 * where tracing ends: the untraced frames below it (libc's
 * pthread_cond_wait, the system call wrapper...) are not in it.  The kernel's
 * userstacktrace walk has them at its leaf end.  Returns how many leaf
 * frames of the walk to put in front of the graph stack, copied to
 * graph[-n..-1]: those before the first frame inside graph[0]'s function;
 * when the walk never reaches that function (glibc has no frame pointers),
 * only the walk's first address, the exact user instruction pointer, unless
 * it is already inside graph[0]'s function.  The caller leaves LEAF_MAX
 * free slots in front of graph.
 */
static uint32_t join_leaf(struct ft_offcpu_file *f, const struct ft_kevent *ev, uint64_t *graph)
{
	const struct ft_symbols *syms = ft_trace_symbols(f->t);
	const char *path;
	uint64_t start;
	uint32_t i, n;

	if (!ev->ustack_nr || !syms)
		return 0;
	for (i = 0; i < ev->ustack_nr && i < LEAF_MAX; i++) {
		start = 0;
		if (ft_symbols_find(syms, ev->ustack[i], &start, &path) && start == graph[0])
			break;
	}
	if (i == 0)
		return 0; /* the thread is in the traced function itself */
	n = i < ev->ustack_nr && i < LEAF_MAX ? i : 1;
	for (uint32_t j = 0; j < n; j++)
		graph[(int)j - (int)n] = ev->ustack[j];
	return n;
}

static int is_event(const struct ft_kevent *ev, const char *name)
{
	return ev->event && ev->event->name && !strcmp(ev->event->name, name) &&
	       ev->event->system && !strcmp(ev->event->system, "sched");
}

/* One kernel event into the engine.  0, or -1 with err. */
static int feed_kernel(struct ft_offcpu_file *f, const struct ft_kevent *ev, char *err,
		       size_t errlen)
{
	unsigned long long a, b, c;
	char comm[32];

	/* the task that emitted an event (other than its switch-out) was running */
	if (ev->pid > 0 && !is_event(ev, "sched_switch") &&
	    ft_offcpu_running(f->oc, ev->ts, (uint32_t)ev->pid, 0))
		goto nomem;
	if (is_event(ev, "sched_switch")) {
		struct ft_offcpu_out o = { 0 };
		uint64_t uips[LEAF_MAX + FT_OFFCPU_USTACK_MAX];
		struct tident *id;

		if (kfield(ev, "prev_pid", &a) || kfield(ev, "prev_state", &b) ||
		    kfield(ev, "next_pid", &c))
			return 0;
		id = tident_get(f, (uint32_t)a, 0);
		kcomm(ev, "prev_comm", comm, sizeof(comm));
		o.ts = ev->ts;
		o.cpu = ev->cpu;
		o.tid = (uint32_t)a;
		o.tgid = id ? id->tgid : 0;
		o.state = (uint32_t)b;
		o.comm = comm;
		o.kips = ev->kstack;
		o.knr = ev->kstack_nr;
		if (o.knr) {
			uint32_t skip = tracing_frames(f, o.kips, o.knr);

			o.kips += skip;
			o.knr -= skip;
		}
		if (a && file_accept(o.tid, o.tgid, f)) {
			/* leave room in front for the walk's leaf frames */
			o.unr = f->t ? ft_offcpu_ustack_get(f->us, o.tid, uips + LEAF_MAX,
							    FT_OFFCPU_USTACK_MAX)
				     : 0;
			if (o.unr) {
				uint32_t n = join_leaf(f, ev, uips + LEAF_MAX);

				o.uips = uips + LEAF_MAX - n;
				o.unr += n;
				f->st.ustack_graph++;
				if (n)
					f->st.ustack_joined++;
			} else if (ev->ustack_nr) {
				o.uips = ev->ustack;
				o.unr = ev->ustack_nr;
				f->st.ustack_kernel++;
			} else {
				f->st.ustack_none++;
			}
			if (!o.knr)
				f->st.kstack_none++;
		}
		if (ft_offcpu_switch_out(f->oc, &o) ||
		    ft_offcpu_switch_in(f->oc, ev->ts, ev->cpu, (uint32_t)c))
			goto nomem;
		/* an exited thread's tid may be reused by another process */
		if (f->filter && id && (o.state & FT_OFFCPU_STATE_DEAD_MASK))
			id->in = 0;
	} else if (is_event(ev, "sched_wakeup") || is_event(ev, "sched_waking")) {
		if (!kfield(ev, "pid", &a) && ft_offcpu_wakeup(f->oc, ev->ts, (uint32_t)a))
			goto nomem;
	} else if (is_event(ev, "sched_wakeup_new")) {
		struct tident *id;

		if (kfield(ev, "pid", &a))
			return 0;
		id = tident_get(f, (uint32_t)a, 0);
		if (ft_offcpu_new_task(f->oc, ev->ts, (uint32_t)a, id ? id->tgid : 0))
			goto nomem;
	} else if (is_event(ev, "sched_process_fork")) {
		struct tident *p, *ch;

		if (kfield(ev, "parent_pid", &a) || kfield(ev, "child_pid", &b))
			return 0;
		p = tident_get(f, (uint32_t)a, 0);
		if (p && p->in) {
			ch = tident_get(f, (uint32_t)b, 1);
			if (!ch)
				goto nomem;
			ch->in = 1;
		} else if ((ch = tident_get(f, (uint32_t)b, 0))) {
			ch->in = 0; /* a reused tid, now another process's */
			ch->tgid = 0;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "out of memory");
	return -1;
}

/* Read every event of the file into the engine.  0, or -1 with err. */
static int file_run(struct ft_offcpu_file *f, char *err, size_t errlen)
{
	struct ft_kevent ev;
	struct ft_event pend;
	int have = 0, rc, first = 1;
	uint64_t last = 0;

	if (f->t) {
		have = ft_trace_next(f->t, &pend, err, errlen);
		if (have < 0)
			return -1;
	}
	while ((rc = ft_kevents_next(f->k, &ev)) == 1) {
		if (first) {
			/* user records before the first kernel event only build stacks */
			ft_offcpu_begin(f->oc, ev.ts);
			f->st.begin_ts = ev.ts;
			first = 0;
		}
		if (have == 1 && feed_user(f, &pend, &have, ev.ts, err, errlen))
			return -1;
		f->st.kevents++;
		last = ev.ts;
		if (ev.kind == FT_KEV_MISSED) {
			f->st.kmissed += ev.missed;
			continue;
		}
		if (ev.event && feed_kernel(f, &ev, err, errlen))
			return -1;
	}
	if (rc < 0) {
		snprintf(err, errlen, "%s", ft_kevents_error(f->k));
		return -1;
	}
	if (first) {
		snprintf(err, errlen, "the trace has no kernel events");
		return -1;
	}
	f->st.end_ts = last;
	if (ft_offcpu_end(f->oc, last)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

struct ft_offcpu_file *ft_offcpu_file_open(const char *path, uint64_t thresh_ns, uint32_t pid,
					   char *err, size_t errlen)
{
	struct ft_offcpu_file *f = calloc(1, sizeof(*f));
	char terr[512] = "";
	const char *m;
	int marked;

	err[0] = 0;
	if (!f || !(f->oc = ft_offcpu_new(thresh_ns)) || !(f->us = ft_offcpu_ustack_new())) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	f->t = ft_trace_open(path, terr, sizeof(terr));
	if (f->t) {
		f->r = ft_trace_reader(f->t);
	} else {
		/* the user-side reader refused: kernel events may still be readable */
		f->r = ft_reader_open(path, err, errlen);
		if (!f->r)
			goto fail;
		f->own_reader = 1;
	}
	f->k = ft_kevents_open(f->r, err, errlen);
	if (f->k && f->t)
		ft_kevents_fix_user_stacks(f->k, path);
	if (!f->k) {
		if (!err[0])
			snprintf(err, errlen,
				 "%s has no kernel events (record with 'ftrail offcpu --record' or "
				 "'ftrail record -e sched:sched_switch -T')",
				 path);
		goto fail;
	}
	ft_offcpu_set_filter(f->oc, file_accept, f);
	m = ft_reader_meta(f->r, "offcpu_pid");
	if (!pid && m)
		pid = (uint32_t)strtoul(m, NULL, 10);
	marked = load_tasks_section(f, pid, !pid, err, errlen);
	if (marked < 0)
		goto fail;
	if (pid) {
		struct tident *id = tident_get(f, pid, 1);

		if (!id) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		id->in = 1;
		f->root = pid;
		f->filter = 1;
	} else {
		f->filter = marked > 0;
	}
	f->st.filtered = f->filter;
	if (file_run(f, err, errlen))
		goto fail;
	return f;
fail:
	ft_offcpu_file_close(f);
	return NULL;
}

void ft_offcpu_file_close(struct ft_offcpu_file *f)
{
	if (!f)
		return;
	if (f->k)
		ft_kevents_close(f->k);
	if (f->t)
		ft_trace_close(f->t);
	else if (f->own_reader)
		ft_reader_close(f->r);
	ft_offcpu_ustack_free(f->us);
	ft_offcpu_free(f->oc);
	ft_htab_free(&f->ids);
	free(f);
}

struct ft_offcpu *ft_offcpu_file_engine(struct ft_offcpu_file *f)
{
	return f->oc;
}

void ft_offcpu_file_get_stats(const struct ft_offcpu_file *f, struct ft_offcpu_file_stats *st)
{
	*st = f->st;
}

int ft_offcpu_file_sym(uint64_t ip, int kernel, int with_offset, char *buf, size_t len, void *arg)
{
	struct ft_offcpu_file *f = arg;

	if (kernel && f->k)
		return ft_kevents_sym(f->k, ip, with_offset, buf, len);
	if (f->t) {
		char *plus;

		ft_trace_addr_name(f->t, ip, with_offset, buf, len);
		/* frames rebuilt from function_graph records are function entries */
		plus = strstr(buf, "+0x0/");
		if (plus)
			*plus = 0;
		return 0;
	}
	return -1;
}

int ft_offcpu_fold_file(const char *path, uint64_t thresh_ns, uint32_t pid, struct ft_folded *out,
			uint64_t unit_ns, char *err, size_t errlen)
{
	struct ft_offcpu_file *f = ft_offcpu_file_open(path, thresh_ns, pid, err, errlen);
	int rc;

	if (!f)
		return -1;
	rc = ft_offcpu_fold(f->oc, out, ft_offcpu_file_sym, f, unit_ns);
	if (rc)
		snprintf(err, errlen, "cannot fold the off-CPU stacks: %s",
			 rc < 0 ? strerror(errno) : "out of the folded budget");
	ft_offcpu_file_close(f);
	return rc ? -1 : 0;
}
