// SPDX-License-Identifier: GPL-2.0
/*
 * Trace file -> exporter events (see export_trace.h).
 */
#include "analysis/export_trace.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>

#include "analysis/argfmt.h"
#include "analysis/kevents.h"
#include "core/argspec.h"
#include "analysis/trace.h"
#include "core/hashtab.h"
#include "core/util.h"

#define MAX_ARGS 24
#define ARG_LEN 256
#define KSTACK_LEN 2048

struct bufdepth {	    /* per user buffer: calls passed on and still open */
	struct ft_hentry h; /* first (hashtab.h): key the buffer id */
	uint64_t depth;
	uint32_t tid, pid;
};

struct tinfo {		    /* per thread: its process, and whether it was named */
	struct ft_hentry h; /* first (hashtab.h): key the tid */
	uint32_t tid;
	uint32_t pid;
	int named;
};

struct ft_xtrace {
	struct ft_trace *t;
	struct ft_ksource ks;
	struct ft_trace_source src;
	struct ft_htab bd; /* struct bufdepth */
	struct ft_htab ti; /* struct tinfo */
	/*
	 * The entries of the last lookups (events come in runs of one buffer
	 * and thread): only buf_depth() and thread_info() add entries, and
	 * they reset these whenever they do, so the pointers never go stale.
	 */
	struct bufdepth *last_bd;
	struct tinfo *last_ti;
	struct ft_xtrace_stats st;
	int (*fn)(const struct ft_xevent *ev, void *arg);
	void *arg;
	int failed;
	char name[1024];
	char **names; /* per fid: its name, resolved on first use (func_name()) */
	uint32_t nr_names;
	char args_val[MAX_ARGS][ARG_LEN];
	struct ft_xarg args[MAX_ARGS + 2];
	char kstack[KSTACK_LEN];
	struct ft_argfmt *af; /* captured arguments, made on first use */
	int af_tried;
	size_t nxargs;
};

struct ft_xtrace *ft_xtrace_open(const char *path, int kernel, char *err, size_t errlen)
{
	struct ft_xtrace *x = calloc(1, sizeof(*x));

	if (!x) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	x->t = ft_trace_open(path, err, errlen);
	if (!x->t)
		goto fail;
	if (kernel) {
		err[0] = '\0';
		x->ks.k = ft_kevents_open(ft_trace_reader(x->t), err, errlen);
		if (x->ks.k)
			ft_kevents_fix_user_stacks(x->ks.k, path);
		if (!x->ks.k && err[0]) {
			char why[768];

			snprintf(why, sizeof(why), "%s", err);
			snprintf(err, errlen, "%s: %s", path, why);
			goto fail;
		}
		if (x->ks.k) {
			x->src.name = "kernel";
			x->src.next = ft_ksource_next;
			x->src.arg = &x->ks;
			if (ft_trace_add_source(x->t, &x->src) < 0) {
				snprintf(err, errlen, "out of memory");
				goto fail;
			}
		}
	}
	if (ft_htab_init(&x->bd, sizeof(struct bufdepth)) ||
	    ft_htab_init(&x->ti, sizeof(struct tinfo))) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return x;
fail:
	ft_xtrace_close(x);
	return NULL;
}

void ft_xtrace_close(struct ft_xtrace *x)
{
	if (!x)
		return;
	if (x->ks.k)
		ft_kevents_close(x->ks.k);
	if (x->t)
		ft_trace_close(x->t);
	ft_htab_free(&x->bd);
	ft_htab_free(&x->ti);
	ft_argfmt_free(x->af);
	for (uint32_t i = 0; i < x->nr_names; i++)
		free(x->names[i]);
	free(x->names);
	free(x);
}

size_t ft_xtrace_nr_warnings(const struct ft_xtrace *x)
{
	return ft_trace_nr_warnings(x->t);
}

const char *ft_xtrace_warning(const struct ft_xtrace *x, size_t i)
{
	return ft_trace_warning(x->t, i);
}

void ft_xtrace_get_stats(const struct ft_xtrace *x, struct ft_xtrace_stats *st)
{
	*st = x->st;
}

/* Per-buffer depth entry (created on first use); NULL on ENOMEM. */
static struct bufdepth *buf_depth(struct ft_xtrace *x, uint64_t id)
{
	if (!x->last_bd || x->last_bd->h.key != id)
		x->last_bd = ft_htab_get(&x->bd, id, 1);
	return x->last_bd;
}

static struct tinfo *thread_info(struct ft_xtrace *x, uint32_t tid, int *created)
{
	*created = 0;
	if (x->last_ti && x->last_ti->tid == tid)
		return x->last_ti;
	x->last_ti = ft_htab_get_eq(&x->ti, tid, NULL, NULL, 1, created);
	if (x->last_ti)
		x->last_ti->tid = tid;
	return x->last_ti;
}

static int emit(struct ft_xtrace *x, const struct ft_xevent *ev)
{
	x->st.xevents++;
	if (x->fn(ev, x->arg)) {
		x->failed = 1;
		return -1;
	}
	return 0;
}

/*
 * Name a thread before its first event.  pid: its process when known (user
 * events), 0 for kernel-side threads (their own pid then, unless a user
 * event named the process first).  comm: the name to use, or NULL for the
 * trace's TASKS name.
 */
static int see_thread(struct ft_xtrace *x, uint32_t tid, uint32_t pid, const char *comm,
		      uint64_t ts, uint32_t *pid_out)
{
	struct ft_xevent ev = { .ts = ts, .cpu = -1 };
	struct tinfo *ti;
	int created;

	ti = thread_info(x, tid, &created);
	if (!ti)
		return -1;
	if (created)
		ti->pid = pid ? pid : tid;
	else if (pid && ti->pid != pid)
		ti->pid = pid; /* a user event knows better than a kernel one */
	*pid_out = ti->pid;
	if (ti->named)
		return 0;
	if (!comm || !*comm || !strcmp(comm, "<...>"))
		comm = ft_trace_comm(x->t, tid);
	if (!comm || !strcmp(comm, "<...>"))
		return 0; /* nothing to say yet */
	ti->named = 1;
	ev.pid = ti->pid;
	ev.tid = tid;
	ev.name = comm;
	if (tid == ti->pid) {
		ev.type = FT_XEV_PROCESS_NAME;
		if (emit(x, &ev))
			return -1;
	}
	ev.type = FT_XEV_THREAD_NAME;
	return emit(x, &ev);
}

/*
 * fid's name, resolved once and kept (a trace names few functions, each
 * many times); valid until the xtrace is closed.
 */
static const char *func_name(struct ft_xtrace *x, uint32_t fid)
{
	if (fid == FT_FID_UNKNOWN)
		return "[unknown]";
	if (fid < x->nr_names && x->names[fid])
		return x->names[fid];
	if (!x->names && ft_trace_nr_funcs(x->t)) {
		x->names = calloc(ft_trace_nr_funcs(x->t), sizeof(*x->names));
		if (x->names)
			x->nr_names = ft_trace_nr_funcs(x->t);
	}
	ft_trace_func_name(x->t, fid, 0, x->name, sizeof(x->name));
	if (fid < x->nr_names)
		x->names[fid] = strdup(x->name); /* NULL: asked again next time */
	return fid < x->nr_names && x->names[fid] ? x->names[fid] : x->name;
}

void ft_xmemo_set(struct ft_xmemo *m, uint32_t key, uint64_t v)
{
	size_t old = m->n;

	if (!key)
		return;
	if (key >= m->n) {
		if (FT_GROW(m->v, m->n, (size_t)key + 1, 256) < 0)
			return;
		memset(m->v + old, 0, (m->n - old) * sizeof(*m->v));
	}
	m->v[key] = v;
}

void ft_xmemo_free(struct ft_xmemo *m)
{
	free(m->v);
	m->v = NULL;
	m->n = 0;
}

/* Text payload (not NUL-terminated) into a value slot. */
static const char *payload(struct ft_xtrace *x, int slot, const void *data, size_t len)
{
	size_t n = len < ARG_LEN - 1 ? len : ARG_LEN - 1;

	memcpy(x->args_val[slot], data ? data : "", data ? n : 0);
	x->args_val[slot][data ? n : 0] = '\0';
	/* trace_marker text usually ends with a newline */
	while (n && (x->args_val[slot][n - 1] == '\n'))
		x->args_val[slot][--n] = '\0';
	return x->args_val[slot];
}

static int instant(struct ft_xtrace *x, const struct ft_event *e, uint32_t pid, const char *name,
		   const char *cat, size_t nargs)
{
	struct ft_xevent ev = {
		.type = FT_XEV_INSTANT,
		.ts = e->ts,
		.pid = pid,
		.tid = e->tid,
		.cpu = e->cpu,
		.name = name,
		.cat = cat,
		.args = x->args,
		.nargs = nargs,
	};

	return emit(x, &ev);
}

static void xarg_fn(void *arg, const char *name, unsigned int loc, unsigned int idx,
		    const char *value, int64_t num, int is_num)
{
	struct ft_xtrace *x = arg;
	size_t i = x->nxargs;

	(void)num;
	(void)is_num;
	if (i >= MAX_ARGS / 2)
		return;
	/* keys in args_val[i], values in args_val[MAX_ARGS / 2 + i] */
	if (name[0])
		snprintf(x->args_val[i], ARG_LEN, "%s", name);
	else if (loc == FT_AL_RET)
		snprintf(x->args_val[i], ARG_LEN, "retval");
	else
		snprintf(x->args_val[i], ARG_LEN, "%s%u", loc == FT_AL_FP ? "fparg" : "arg",
			 idx + 1);
	snprintf(x->args_val[MAX_ARGS / 2 + i], ARG_LEN, "%s", value);
	x->args[i] = (struct ft_xarg){ x->args_val[i], x->args_val[MAX_ARGS / 2 + i] };
	x->nxargs++;
}

/* The captured arguments (retval: return value) of e into x->args; how many. */
static size_t call_args(struct ft_xtrace *x, const struct ft_event *e, int retval)
{
	if (!e->data)
		return 0;
	if (!x->af_tried) {
		x->af_tried = 1;
		x->af = ft_argfmt_new(x->t);
	}
	x->nxargs = 0;
	if (!x->af || ft_argfmt_each(x->af, e->fid, e->data, e->len, retval, xarg_fn, x) < 0)
		return 0;
	/* a return value is named retval in the export, whatever the spec called it */
	if (retval && x->nxargs)
		x->args[0].key = "retval";
	return x->nxargs;
}

static int user_event(struct ft_xtrace *x, const struct ft_event *e)
{
	struct ft_xevent ev = { .ts = e->ts, .tid = e->tid, .cpu = -1 };
	struct bufdepth *b;
	uint32_t pid;
	char num[2][32];

	x->st.user_events++;
	if (e->type == FT_EV_LOST) {
		ev.type = FT_XEV_LOST;
		ev.pid = e->pid;
		ev.count = e->count;
		x->st.lost += e->count;
		return emit(x, &ev);
	}
	if (e->type == FT_EV_STACK)
		return 0; /* stacks belong to flame --stacks, not to timelines */
	if (see_thread(x, e->tid, e->pid, NULL, e->ts, &pid))
		return -1;
	ev.pid = pid;
	switch (e->type) {
	case FT_EV_ENTRY:
		b = buf_depth(x, e->buffer);
		if (!b)
			return -1;
		b->tid = e->tid;
		b->pid = pid;
		/* the reader dropped frames whose exits were lost: close them */
		ev.type = FT_XEV_EXIT;
		while (b->depth > (uint64_t)(e->depth > 0 ? e->depth : 0)) {
			if (emit(x, &ev))
				return -1;
			b->depth--;
			x->st.resync_exits++;
		}
		/* ... or padded with frames whose entries were lost */
		ev.type = FT_XEV_ENTRY;
		ev.name = "[unknown]";
		while (b->depth < (uint64_t)(e->depth > 0 ? e->depth : 0)) {
			if (emit(x, &ev))
				return -1;
			b->depth++;
			x->st.resync_entries++;
		}
		ev.name = func_name(x, e->fid);
		/* 0 for FT_FID_UNKNOWN ("[unknown]") and for an id the trace does
		 * not name (a hostile file): writers size their memos by it */
		ev.name_id = e->fid < ft_trace_nr_funcs(x->t) ? e->fid + 1 : 0;
		ev.cat = "function";
		ev.nargs = call_args(x, e, 0);
		ev.args = x->args;
		{
			/* a library call names its library (sym-userobj's object) */
			const char *lib = ft_trace_func_library(x->t, e->fid), *base;

			if (lib) {
				base = strrchr(lib, '/');
				x->args[ev.nargs++] =
					(struct ft_xarg){ "object", base ? base + 1 : lib };
			}
		}
		if (emit(x, &ev))
			return -1;
		b->depth++;
		return 0;
	case FT_EV_EXIT:
		b = buf_depth(x, e->buffer);
		if (!b)
			return -1;
		/* e->depth is the depth after the return */
		if (b->depth <= (uint64_t)(e->depth > 0 ? e->depth : 0)) {
			x->st.skipped_exits++;
			return 0;
		}
		ev.type = FT_XEV_EXIT;
		while (b->depth > (uint64_t)(e->depth > 0 ? e->depth : 0)) {
			/* the return value belongs to the call that returned, the innermost */
			ev.nargs = b->depth == (uint64_t)(e->depth > 0 ? e->depth : 0) + 1
					   ? call_args(x, e, 1)
					   : 0;
			ev.args = x->args;
			if (emit(x, &ev))
				return -1;
			b->depth--;
		}
		return 0;
	case FT_EV_FUNC:
		x->args[0] = (struct ft_xarg){ "parent", NULL };
		if (e->parent_fid != FT_FID_UNKNOWN)
			x->args[0].value =
				ft_trace_func_name(x->t, e->parent_fid, 0, x->args_val[0], ARG_LEN);
		else
			x->args[0].value = ft_trace_addr_name(x->t, e->parent_addr, 0,
							      x->args_val[0], ARG_LEN);
		return instant(x, e, pid, func_name(x, e->fid), "function", 1);
	case FT_EV_MARKER:
		x->args[0] = (struct ft_xarg){ "text", payload(x, 0, e->data, e->len) };
		return instant(x, e, pid, "trace_marker", "marker", 1);
	case FT_EV_BINMARKER:
		snprintf(num[0], sizeof(num[0]), "%zu", e->len);
		x->args[0] = (struct ft_xarg){ "bytes", num[0] };
		return instant(x, e, pid, "trace_marker_raw", "marker", 1);
	case FT_EV_EVENT:
		snprintf(num[0], sizeof(num[0]), "%" PRIu32, e->event_id);
		snprintf(num[1], sizeof(num[1]), "%zu", e->len);
		x->args[0] = (struct ft_xarg){ "id", num[0] };
		x->args[1] = (struct ft_xarg){ "bytes", num[1] };
		return instant(x, e, pid, "user_event", "event", 2);
	case FT_EV_COMM: {
		struct ft_xevent ne = { .type = FT_XEV_THREAD_NAME,
					.ts = e->ts,
					.pid = pid,
					.tid = e->tid,
					.cpu = -1 };

		ne.name = payload(x, 0, e->data, e->len);
		return emit(x, &ne);
	}
	case FT_EV_EXEC:
		x->args[0] = (struct ft_xarg){ "program", payload(x, 0, e->data, e->len) };
		return instant(x, e, pid, "exec", "task", 1);
	case FT_EV_FORK:
	case FT_EV_TEXIT:
	case FT_EV_SIGNAL:
		snprintf(num[0], sizeof(num[0]), "%" PRId64, (int64_t)e->count);
		x->args[0] = (struct ft_xarg){ e->type == FT_EV_FORK	? "child"
					       : e->type == FT_EV_TEXIT ? "status"
									: "signal",
					       num[0] };
		return instant(x, e, pid,
			       e->type == FT_EV_FORK	? "fork"
			       : e->type == FT_EV_TEXIT ? "exit"
							: "signal",
			       "task", 1);
	case FT_EV_TRACE_ON:
	case FT_EV_TRACE_OFF:
		return instant(x, e, pid, e->type == FT_EV_TRACE_ON ? "tracing_on" : "tracing_off",
			       "ftrail", 0);
	default:
		return 0;
	}
}

/* The kernel stack as "leaf <- caller <- ..." text. */
static const char *kstack_text(struct ft_xtrace *x, const struct ft_kevent *k)
{
	size_t pos = 0;

	x->kstack[0] = '\0';
	for (uint32_t i = 0; i < k->kstack_nr && pos + 64 < KSTACK_LEN; i++) {
		uint64_t off;
		const char *n = ft_kevents_sym_name(x->ks.k, k->kstack[i], &off);
		int w;

		if (n)
			w = snprintf(x->kstack + pos, KSTACK_LEN - pos, "%s%s", i ? " <- " : "", n);
		else
			w = snprintf(x->kstack + pos, KSTACK_LEN - pos, "%s0x%" PRIx64,
				     i ? " <- " : "", k->kstack[i]);
		if (w < 0 || (size_t)w >= KSTACK_LEN - pos)
			break;
		pos += (size_t)w;
	}
	return x->kstack;
}

static int kernel_event(struct ft_xtrace *x, const struct ft_event *e)
{
	const struct ft_kevent *k = e->priv;
	struct ft_xevent ev = { .ts = e->ts, .tid = (uint32_t)k->pid, .cpu = k->cpu };
	struct tep_format_field *f;
	size_t n = 0;
	uint32_t pid;

	x->st.kernel_events++;
	if (k->kind == FT_KEV_MISSED) {
		ev.type = FT_XEV_LOST;
		ev.tid = 0;
		ev.count = k->missed;
		x->st.lost += k->missed;
		return emit(x, &ev);
	}
	if (see_thread(x, (uint32_t)k->pid, 0, k->comm, e->ts, &pid))
		return -1;
	for (f = k->event ? k->event->format.fields : NULL; f && n < MAX_ARGS; f = f->next) {
		if (ft_kevents_field_str(x->ks.k, k, f->name, x->args_val[n], ARG_LEN))
			continue;
		x->args[n].key = f->name;
		x->args[n].value = x->args_val[n];
		n++;
	}
	if (k->kstack_nr)
		x->args[n++] = (struct ft_xarg){ "kernel_stack", kstack_text(x, k) };
	ev.type = FT_XEV_INSTANT;
	ev.pid = pid;
	ev.name = k->event ? k->event->name : "unknown_event";
	ev.cat = k->event && k->event->system ? k->event->system : "kernel";
	ev.args = x->args;
	ev.nargs = n;
	return emit(x, &ev);
}

int ft_xtrace_run(struct ft_xtrace *x, int (*fn)(const struct ft_xevent *ev, void *arg), void *arg,
		  struct ft_progress *progress, char *err, size_t errlen)
{
	const struct ft_event *e;
	int ret;

	x->fn = fn;
	x->arg = arg;
	while ((ret = ft_trace_next_ref(x->t, &e, err, errlen)) == 1) {
		int r = e->type == FT_EV_SOURCE ? kernel_event(x, e) : user_event(x, e);

		if (r) {
			if (!x->failed)
				snprintf(err, errlen, "out of memory");
			else
				snprintf(err, errlen, "write error: %s",
					 strerror(errno ? errno : EIO));
			return -1;
		}
		if (progress)
			ft_progress_update(progress, 0, 0, x->st.xevents);
	}
	if (ret < 0)
		return -1;
	/*
	 * Threads whose name never became known (a kernel-side task that exited
	 * before its comm was saved) are named as the kernel's trace file names
	 * them, "<...>", so every thread of the export has its metadata.
	 */
	for (size_t i = 0; i < x->ti.cap; i++) {
		struct tinfo *ti = ft_htab_slot(&x->ti, i);
		struct ft_xevent ev = { .type = FT_XEV_THREAD_NAME, .cpu = -1, .name = "<...>" };

		if (!ti || ti->named)
			continue;
		ti->named = 1;
		ev.pid = ti->pid;
		ev.tid = ti->tid;
		if (emit(x, &ev)) {
			snprintf(err, errlen, "write error: %s", strerror(errno ? errno : EIO));
			return -1;
		}
	}
	return 0;
}
