// SPDX-License-Identifier: GPL-2.0
/*
 * The files of the live mount (live/mount.h): what each shows at open and
 * what a write does, with the kernel's errnos (EINVAL and a line in
 * error_log for what cannot be parsed, EBUSY for what cannot be done now).
 * A write that is refused changes nothing.
 *
 * Control values go through the session's seqlock (core/session.h:
 * ft_session_ctl_begin/end around the stores; tracing_on alone is one
 * atomic store), so the traced program applies them at its next hook.
 * Filter lists and set_ftrace_pid are written as the kernel writes them:
 * ">" (open with O_TRUNC) replaces, ">>" appends, and the new content is
 * committed once, when the file is closed, so the program never sees a
 * half-written list (an empty filter list would mean "every function").
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/options.h"
#include "core/record.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/symbols.h"
#include "core/uevent.h"
#include "core/util.h"
#include "live/mount_int.h"
#include "recorder/urecord.h"

#define N(p, k, a, m)                                                                              \
	{                                                                                          \
		p, k, a, m                                                                         \
	}
/* clang-format off */
#define X(name, bit, def, when) N("/options/" #name, MK_OPTION, FT_OPT_BIT_##bit, 0644),
const struct mnt_node mnt_nodes[] = {
	N("/", MK_DIR, 0, 0750),
	N("/options", MK_DIR, 0, 0750),
	N("/tracing_on", MK_TRACING_ON, 0, 0644),
	N("/current_tracer", MK_CURRENT_TRACER, 0, 0644),
	N("/available_tracers", MK_AVAILABLE_TRACERS, 0, 0444),
	N("/set_ftrace_filter", MK_LIST, FT_SL_FILTER, 0644),
	N("/set_ftrace_notrace", MK_LIST, FT_SL_NOTRACE, 0644),
	N("/set_graph_function", MK_LIST, FT_SL_GRAPH, 0644),
	N("/set_graph_notrace", MK_LIST, FT_SL_GRAPH_NOTRACE, 0644),
	N("/max_graph_depth", MK_MAX_GRAPH_DEPTH, 0, 0644),
	N("/tracing_thresh", MK_TRACING_THRESH, 0, 0644),
	N("/set_ftrace_pid", MK_FTRACE_PID, 0, 0644),
	N("/available_filter_functions", MK_AVAILABLE_FUNCS, 0, 0444),
	N("/enabled_functions", MK_ENABLED_FUNCS, 0, 0444),
	N("/trace_options", MK_TRACE_OPTIONS, 0, 0644),
	N("/buffer_size_kb", MK_BUFFER_SIZE, 0, 0644),
	N("/buffer_total_size_kb", MK_BUFFER_TOTAL, 0, 0444),
	N("/trace_marker", MK_MARKER, 0, 0220),
	N("/trace_marker_raw", MK_MARKER_RAW, 0, 0220),
	N("/error_log", MK_ERROR_LOG, 0, 0644),
	N("/stack_map", MK_STACK_MAP, 0, 0640),
	N("/stack_map_stat", MK_STACK_MAP_STAT, 0, 0440),
	N("/stack_map_bin", MK_STACK_MAP_BIN, 0, 0440),
	N("/snapshot", MK_SNAPSHOT, 0, 0644),
	N("/trace", MK_TRACE, 0, 0644),
	N("/trace_pipe", MK_TRACE_PIPE, 0, 0444),
	N("/per_thread", MK_DIR, 0, 0750),
	N("/events", MK_DIR, 0, 0750),
	N("/events/u", MK_DIR, 0, 0750),
	N("/events/u/enable", MK_EV_ENABLE, 0, 0644),
	N("/set_event", MK_SET_EVENT, 0, 0644),
	FT_OPTIONS(X)
};
#undef X
/* clang-format on */
const size_t mnt_nr_nodes = sizeof(mnt_nodes) / sizeof(mnt_nodes[0]);

/* per_thread/<tid>/: the nodes a thread's directory holds */
static const struct mnt_node pt_nodes[] = {
	N("", MK_PT_DIR, 0, 0750),
	N("/trace", MK_TRACE, 0, 0644),
	N("/trace_pipe", MK_TRACE_PIPE, 0, 0444),
	N("/stats", MK_PT_STATS, 0, 0444),
};

const struct mnt_node *mnt_lookup(const char *path, uint32_t *tid)
{
	static const char pt[] = "/per_thread/";
	char *end;
	unsigned long v;

	*tid = 0;
	for (size_t i = 0; i < mnt_nr_nodes; i++)
		if (!strcmp(mnt_nodes[i].path, path))
			return &mnt_nodes[i];
	if (strncmp(path, pt, sizeof(pt) - 1) || path[sizeof(pt) - 1] < '1' ||
	    path[sizeof(pt) - 1] > '9')
		return NULL;
	v = strtoul(path + sizeof(pt) - 1, &end, 10);
	if (v > INT32_MAX)
		return NULL;
	for (size_t i = 0; i < sizeof(pt_nodes) / sizeof(pt_nodes[0]); i++)
		if (!strcmp(end, pt_nodes[i].path)) {
			*tid = (uint32_t)v;
			return &pt_nodes[i];
		}
	return NULL;
}

size_t mnt_threads(struct mnt *m, uint32_t *tids, size_t max)
{
	struct ft_rb_area *a = m->s.area;
	size_t n = 0;

	for (uint32_t s = 0; s < a->nr_slots && n < max; s++) {
		struct ft_rb_slotinfo si;
		size_t k;

		ft_rb_slot_info(a, s, &si);
		if (si.state != FT_RB_ACTIVE || !si.tid || si.pid == (uint32_t)getpid())
			continue;
		for (k = 0; k < n && tids[k] != si.tid; k++)
			;
		if (k == n)
			tids[n++] = si.tid;
	}
	return n;
}

static const char *node_name(const struct mnt_node *n)
{
	return strrchr(n->path, '/') + 1;
}

/* ---- error_log ---- */

/*
 * One entry as the kernel's tracing_log_err() lays it out: a time stamp
 * and "LOC: error: MSG", the command, and a caret under the fault.
 */
void mnt_elog(struct mnt *m, const char *loc, const char *msg, const char *cmd, int pos)
{
	struct timespec ts;
	char *e = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&e, &len);

	if (!f)
		return;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	fprintf(f, "[%5lld.%06ld] %s: error: %s\n  Command: %s\n", (long long)ts.tv_sec,
		ts.tv_nsec / 1000, loc, msg, cmd);
	fprintf(f, "%*s^\n", 11 + (pos > 0 ? pos : 0), "");
	fclose(f);
	free(m->elog[m->elog_next % MNT_ELOG_MAX]);
	m->elog[m->elog_next % MNT_ELOG_MAX] = e;
	m->elog_next++;
}

static void elog_clear(struct mnt *m)
{
	for (int i = 0; i < MNT_ELOG_MAX; i++) {
		free(m->elog[i]);
		m->elog[i] = NULL;
	}
	m->elog_next = 0;
}

static int smap_tracing_on(void *arg)
{
	struct mnt *m = arg;

	return (int)__atomic_load_n(&ft_session_ctl(m->s.hdr)->tracing_on, __ATOMIC_RELAXED);
}

void mnt_init_state(struct mnt *m)
{
	size_t len;
	void *mem = ft_session_stackmap_mem(m->s.hdr, &len);

	memset(&m->smap, 0, sizeof(m->smap));
	if (ft_stackmap_attach(&m->smap, mem, len))
		m->smap.shm = NULL;
	m->smap.tracing_is_on = smap_tracing_on;
	m->start_tracer = (int)__atomic_load_n(&ft_session_ctl(m->s.hdr)->tracer, __ATOMIC_RELAXED);
	m->smap.arg = m;
	ft_snapshot_init(&m->snap, &ft_urec_area_snapshot_ops, m->s.area);
}

void mnt_free_state(struct mnt *m)
{
	elog_clear(m);
	mnt_funcs_free(&m->funcs);
}

/* ---- helpers ---- */

/* Text of a write without its trailing newline and blanks (a copy). */
static char *trimmed(const char *buf, size_t len)
{
	char *s = ft_malloc(len + 1), *p = s;

	memcpy(s, buf, len);
	s[len] = 0;
	while (*p == ' ' || *p == '\t')
		p++;
	memmove(s, p, strlen(p) + 1);
	len = strlen(s);
	while (len && (s[len - 1] == '\n' || s[len - 1] == ' ' || s[len - 1] == '\t'))
		s[--len] = 0;
	return s;
}

/* An unsigned number as echo writes it; -1 when it is not one. */
static int parse_num(const char *s, uint64_t max, uint64_t *v)
{
	if (*s < '0' || *s > '9')
		return -1;
	return ft_parse_u64(s, 0, max, v);
}

static uint64_t ticks_of_ns(struct ft_session_hdr *h, uint64_t ns)
{
	uint32_t mult = (uint32_t)(h->clock_mult_shift >> 32),
		 shift = (uint32_t)h->clock_mult_shift;

	if (!mult)
		return ns;
	return (uint64_t)(((unsigned __int128)ns << shift) / mult);
}

static uint64_t ns_of_ticks(struct ft_session_hdr *h, uint64_t t)
{
	uint32_t mult = (uint32_t)(h->clock_mult_shift >> 32),
		 shift = (uint32_t)h->clock_mult_shift;

	if (!mult)
		return t;
	return (uint64_t)(((unsigned __int128)t * mult) >> shift);
}

static void fh_set(struct mnt_fh *fh, char *buf, size_t len)
{
	free(fh->rbuf);
	fh->rbuf = buf;
	fh->rlen = len;
}

static void fh_printf(struct mnt_fh *fh, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void fh_printf(struct mnt_fh *fh, const char *fmt, ...)
{
	va_list ap;
	char *s = NULL;
	int n;

	va_start(ap, fmt);
	n = vasprintf(&s, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	fh_set(fh, s, (size_t)n);
}

static char *stackmap_text(struct mnt *m, int stat, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		return NULL;
	if (stat) {
		ft_stackmap_write_stat(&m->smap, f);
	} else {
		mnt_funcs_refresh(m);
		ft_stackmap_write_text(&m->smap, f, ft_symbols_resolve_fn, m->funcs.syms);
	}
	fclose(f);
	return buf;
}

/* ---- events/u (mount_events.c) ---- */

struct ev_out {
	const char *sys, *name; /* NULL: every event (set_event) */
	int kind;
	FILE *out;
	struct mnt *m;
	char **buf; /* out's text so far (set_event: a name once) */
};

/* Has set_event's text line already? */
static int ev_listed(struct ev_out *o, const char *line)
{
	size_t n = strlen(line);
	const char *p;

	fflush(o->out);
	for (p = *o->buf; p && (p = strstr(p, line)); p += n)
		if (p == *o->buf || p[-1] == '\n')
			return 1;
	return 0;
}

static int ev_show(const char *sys, const char *name, const char *text, size_t len, void *arg)
{
	struct ev_out *o = arg;
	int on;

	if (!o->sys) {
		char line[160];

		/* set_event: the events recorded now (once per name) */
		snprintf(line, sizeof(line), "u:%s:%s\n", sys, name);
		if (mnt_events_state(o->m, sys, name, NULL, &on) && on && !ev_listed(o, line))
			fputs(line, o->out);
		return 0;
	}
	if (strcmp(sys, o->sys) || strcmp(name, o->name))
		return 0;
	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) + 1 : len;

		if (o->kind == MK_EV_ID && !strncmp(text + i, "ID: ", 4))
			fprintf(o->out, "%.*s", (int)(e - i - 4), text + i + 4);
		/* the format file as the kernel's: without ftrail's "system:" line */
		else if (o->kind == MK_EV_FORMAT && strncmp(text + i, "system: ", 8))
			fprintf(o->out, "%.*s", (int)(e - i), text + i);
		i = e;
	}
	return 1;
}

static char *events_text(struct mnt *m, struct mnt_fh *fh, size_t *len)
{
	struct ev_out o = { NULL, NULL, fh->node->kind, NULL, m, NULL };
	char *buf = NULL, sel[FT_UEV_SEL_MAX];
	int nr, on;

	o.out = open_memstream(&buf, len);
	if (!o.out)
		return NULL;
	o.buf = &buf;
	switch (fh->node->kind) {
	case MK_EV_ENABLE:
		/* as the kernel's: 1 all recorded, 0 none, X some */
		nr = mnt_events_state(m, fh->ev_sys, fh->ev_name, NULL, &on);
		fputs(!on ? "0\n" : on == nr ? "1\n" : "X\n", o.out);
		break;
	case MK_EV_FILTER:
		mnt_events_sel(m, fh->ev_sys, fh->ev_name, 1, sel, sizeof(sel));
		fprintf(o.out, "%s\n", sel[0] ? sel : "none");
		break;
	case MK_EV_TRIGGER:
		mnt_events_sel(m, fh->ev_sys, fh->ev_name, 2, sel, sizeof(sel));
		if (sel[0])
			fprintf(o.out, "%s\n", sel);
		else
			fputs("# Available triggers:\n# traceon traceoff snapshot stacktrace "
			      "enable_event disable_event\n",
			      o.out);
		break;
	default:
		if (fh->node->kind != MK_SET_EVENT) {
			o.sys = fh->ev_sys;
			o.name = fh->ev_name;
		}
		mnt_events_each(m, ev_show, &o);
		break;
	}
	fclose(o.out);
	return buf;
}

/* ---- open: what a read shows ---- */

int mnt_fill(struct mnt *m, struct mnt_fh *fh)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_ctl *c = ft_session_ctl(h);
	struct ft_rb_area *a = m->s.area;
	const struct mnt_node *n = fh->node;
	size_t len = 0;
	char *buf;

	switch (n->kind) {
	case MK_TRACING_ON:
		fh_printf(fh, "%u\n", __atomic_load_n(&c->tracing_on, __ATOMIC_RELAXED) ? 1 : 0);
		break;
	case MK_CURRENT_TRACER: {
		const char *t = ft_tracer_name((int)__atomic_load_n(&c->tracer, __ATOMIC_RELAXED));

		fh_printf(fh, "%s\n", t ? t : "nop");
		break;
	}
	case MK_AVAILABLE_TRACERS:
		if (FT_TRACER_IS_ULAT(m->start_tracer))
			fh_printf(fh, "%s function_graph function nop\n",
				  ft_tracer_name(m->start_tracer));
		else
			fh_printf(fh, "function_graph function nop\n");
		break;
	case MK_LIST:
		buf = mnt_list_show(m, n->arg, &len);
		fh_set(fh, buf, len);
		break;
	case MK_MAX_GRAPH_DEPTH:
		fh_printf(fh, "%d\n", __atomic_load_n(&c->max_graph_depth, __ATOMIC_RELAXED));
		break;
	case MK_TRACING_THRESH:
		fh_printf(fh, "%llu\n",
			  (unsigned long long)(ns_of_ticks(h, __atomic_load_n(&c->thresh_ticks,
									      __ATOMIC_RELAXED)) +
					       500) /
				  1000);
		break;
	case MK_FTRACE_PID: {
		uint32_t nr = __atomic_load_n(&c->nr_pids, __ATOMIC_RELAXED);
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			return -ENOMEM;
		if (!nr)
			fputs("no pid\n", f);
		for (uint32_t i = 0; i < nr && i < FT_SESSION_MAX_PIDS; i++)
			fprintf(f, "%u\n", c->pids[i]);
		fclose(f);
		fh_set(fh, buf, len);
		break;
	}
	case MK_AVAILABLE_FUNCS:
		buf = mnt_funcs_show(m, &len);
		fh_set(fh, buf, len);
		break;
	case MK_ENABLED_FUNCS:
		buf = mnt_enabled_show(m, &len);
		fh_set(fh, buf, len);
		break;
	case MK_OPTION:
		fh_printf(fh, "%d\n", (int)((c->options >> n->arg) & 1));
		break;
	case MK_TRACE_OPTIONS: {
		uint64_t o = __atomic_load_n(&c->options, __ATOMIC_RELAXED);
		FILE *f = open_memstream(&buf, &len);

		if (!f)
			return -ENOMEM;
		for (unsigned int i = 0; i < FT_OPT_NR; i++)
			fprintf(f, "%s%s\n", (o >> i) & 1 ? "" : "no", ft_option_name(i));
		fclose(f);
		fh_set(fh, buf, len);
		break;
	}
	case MK_BUFFER_SIZE:
		fh_printf(fh, "%llu\n", (unsigned long long)a->npages[0] * a->page_size / 1024);
		break;
	case MK_BUFFER_TOTAL:
		fh_printf(fh, "%llu\n", (unsigned long long)a->size / 1024);
		break;
	case MK_ERROR_LOG: {
		FILE *f = open_memstream(&buf, &len);
		unsigned int first = m->elog_next > MNT_ELOG_MAX ? m->elog_next - MNT_ELOG_MAX : 0;

		if (!f)
			return -ENOMEM;
		for (unsigned int i = first; i < m->elog_next; i++)
			fputs(m->elog[i % MNT_ELOG_MAX], f);
		fclose(f);
		fh_set(fh, buf, len);
		break;
	}
	case MK_STACK_MAP:
	case MK_STACK_MAP_STAT:
		if (!m->smap.shm)
			return -ENODEV;
		buf = stackmap_text(m, n->kind == MK_STACK_MAP_STAT, &len);
		if (!buf)
			return -ENOMEM;
		fh_set(fh, buf, len);
		break;
	case MK_STACK_MAP_BIN:
		if (!m->smap.shm)
			return -ENODEV;
		buf = ft_stackmap_export_bin(&m->smap, &len);
		if (!buf)
			return errno == EBUSY ? -EBUSY : -ENOMEM;
		fh_set(fh, buf, len);
		break;
	case MK_SNAPSHOT:
		if (ft_rb_snapshot_state(a) == FT_RB_SNAP_FREE)
			fh_printf(fh,
				  "# *** SNAPSHOT NOT ALLOCATED ***\n"
				  "# echo 1 > snapshot : allocates the snapshot buffer and takes a "
				  "snapshot\n");
		else
			fh_printf(fh,
				  "# snapshot allocated: %llu taken; the recorder saves each in "
				  "the trace file (ftrail show --snapshot)\n"
				  "# echo 0 > snapshot : frees the snapshot buffer\n"
				  "# echo 1 > snapshot : takes a snapshot\n"
				  "# echo 2 > snapshot : clears the snapshot buffer\n",
				  (unsigned long long)__atomic_load_n(&a->snap_swaps,
								      __ATOMIC_RELAXED));
		break;
	case MK_EV_ENABLE:
	case MK_EV_FILTER:
	case MK_EV_TRIGGER:
	case MK_EV_FORMAT:
	case MK_EV_ID:
	case MK_SET_EVENT:
		buf = events_text(m, fh, &len);
		if (!buf)
			return -ENOMEM;
		fh_set(fh, buf, len);
		break;
	case MK_PT_STATS:
		buf = mnt_thread_stats(m, fh->tid, &len);
		if (!buf)
			return -ENOMEM;
		fh_set(fh, buf, len);
		break;
	case MK_TRACE: {
		int r = mnt_trace_text(m, fh->tid, &buf, &len);

		if (r < 0)
			return r;
		fh_set(fh, buf, len);
		break;
	}
	default:
		break;
	}
	return 0;
}

/* O_TRUNC at open (or a truncate() just before): "> file". */
int mnt_open_trunc(struct mnt *m, struct mnt_fh *fh)
{
	switch (fh->node->kind) {
	case MK_LIST:
	case MK_FTRACE_PID:
		fh->trunc = 1;
		break;
	case MK_ERROR_LOG:
		elog_clear(m);
		break;
	case MK_TRACE:
		/* everything so far counts as consumed: trace and trace_pipe start empty */
		mnt_trace_clear(m, fh->tid);
		break;
	case MK_SET_EVENT:
		/* "> set_event": every user event off, as the kernel clears them at open */
		if (mnt_events_switch(m, "", "", NULL, 0))
			mnt_events_publish(m);
		break;
	default:
		break;
	}
	return 0;
}

/* ---- write ---- */

static void fh_addline(struct mnt_fh *fh, const char *s, size_t n)
{
	if (fh->wlen + n + 2 > fh->wcap) {
		fh->wcap = (fh->wlen + n + 2) * 2;
		fh->wbuf = ft_realloc(fh->wbuf, fh->wcap);
	}
	memcpy(fh->wbuf + fh->wlen, s, n);
	fh->wlen += n;
	fh->wbuf[fh->wlen++] = '\n';
	fh->wbuf[fh->wlen] = 0;
}

/* Tokens of a list write, checked all before any is kept. */
static int write_list(struct mnt *m, struct mnt_fh *fh, const char *text)
{
	const char *p = text;
	size_t keep = fh->wlen;

	while (*p) {
		const char *msg;
		char tok[512];
		size_t n;
		int pos;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		n = strcspn(p, " \t\n");
		if (n >= sizeof(tok)) {
			mnt_elog(m, node_name(fh->node), "entry too long", text, (int)(p - text));
			goto bad;
		}
		memcpy(tok, p, n);
		tok[n] = 0;
		if (fh->node->kind == MK_FTRACE_PID) {
			uint64_t v;

			if (parse_num(tok, INT32_MAX, &v)) {
				mnt_elog(m, node_name(fh->node), "not a thread id", text,
					 (int)(p - text));
				goto bad;
			}
		} else if (mnt_list_check(m, fh->node->arg, tok, &msg, &pos)) {
			mnt_elog(m, node_name(fh->node), msg, text, (int)(p - text) + pos);
			goto bad;
		}
		fh_addline(fh, tok, n);
		p += n;
	}
	return 0;
bad:
	fh->wlen = keep;
	if (fh->wbuf)
		fh->wbuf[keep] = 0;
	fh->failed = 1;
	return -EINVAL;
}

static int write_option(struct mnt *m, const char *name, int on)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_ctl *c = ft_session_ctl(h);
	uint64_t o = __atomic_load_n(&c->options, __ATOMIC_RELAXED);
	char arg[64];

	snprintf(arg, sizeof(arg), "%s%s", on ? "" : "no", name);
	if (ft_options_apply(&o, arg))
		return -1;
	ft_session_ctl_begin(h);
	__atomic_store_n(&c->options, o, __ATOMIC_RELAXED);
	ft_session_ctl_end(h);
	if (!strcmp(name, "overwrite"))
		ft_rb_area_set_overwrite(m->s.area, on);
	return 0;
}

static int write_marker(struct mnt *m, int raw, const char *buf, size_t len)
{
	struct ft_rb_thread t = { 0 };
	int r;

	if (len > 4000)
		len = 4000; /* the kernel cuts a marker at its maximum, too */
	if (!__atomic_load_n(&ft_session_ctl(m->s.hdr)->tracing_on, __ATOMIC_RELAXED))
		return -EBADF; /* as the kernel's buffer, disabled */
	if (ft_rb_thread_attach(&t, m->s.area, (uint32_t)getpid(), (uint32_t)gettid()))
		return -ENOSPC; /* every ring slot taken: the kernel's "no room" */
	if (!raw && len && buf[len - 1] == '\n')
		len--; /* the line's newline: show adds its own */
	r = ft_rb_ext(&t, raw ? FT_EXT_BINMARKER : FT_EXT_MARKER, buf, (uint32_t)len, ft_rdtsc(), 1,
		      1);
	ft_rb_thread_detach(&t);
	return r ? -ENOSPC : 0;
}

/*
 * set_event: "[!][u:]SYS:EVENT" words (globs, "all" as -e takes them):
 * each switches the user events it names on, or off with '!'.  Every word
 * is checked first: one that names no user event changes nothing (EINVAL).
 */
static int write_set_event(struct mnt *m, const char *file, char *s)
{
	char *save = NULL, *w, *copy = ft_strdup(s);
	int on, pos;

	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save)) {
		const char *pat = w + (w[0] == '!');

		if (!*pat || !mnt_events_state(m, "", "", pat, &on)) {
			pos = (int)(w - copy);
			mnt_elog(m, file,
				 "no such user event (kernel events are chosen with record -e)", s,
				 pos);
			free(copy);
			return -EINVAL;
		}
	}
	free(copy);
	copy = ft_strdup(s);
	save = NULL;
	for (w = strtok_r(copy, " \t\n", &save); w; w = strtok_r(NULL, " \t\n", &save))
		mnt_events_switch(m, "", "", w + (w[0] == '!'), w[0] != '!');
	free(copy);
	if (*s)
		mnt_events_publish(m);
	return 0;
}

int mnt_write(struct mnt *m, struct mnt_fh *fh, const char *buf, size_t len)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_ctl *c = ft_session_ctl(h);
	const struct mnt_node *n = fh->node;
	const char *name = node_name(n);
	char *s;
	uint64_t v;
	int r = 0, t;

	fh->wrote = 1;
	if (n->kind == MK_MARKER || n->kind == MK_MARKER_RAW) {
		r = write_marker(m, n->kind == MK_MARKER_RAW, buf, len);
		return r ? r : (int)len;
	}
	s = trimmed(buf, len);
	switch (n->kind) {
	case MK_TRACING_ON:
		if (parse_num(s, UINT64_MAX, &v)) {
			mnt_elog(m, name, "not a number", s, 0);
			r = -EINVAL;
			break;
		}
		ft_session_set_tracing_on(h, v != 0);
		break;
	case MK_CURRENT_TRACER:
		t = ft_tracer_from_name(s);
		if (t < 0) {
			mnt_elog(m, name, "no such tracer (see available_tracers)", s, 0);
			r = -EINVAL;
			break;
		}
		if (FT_TRACER_IS_ULAT(t) && t != m->start_tracer) {
			/* they report through the recorder, set up when recording starts */
			mnt_elog(m, name,
				 "latency tracers are chosen when recording starts (record -p)", s,
				 0);
			r = -EINVAL;
			break;
		}
		ft_session_ctl_begin(h);
		__atomic_store_n(&c->tracer, (uint32_t)t, __ATOMIC_RELAXED);
		ft_session_ctl_end(h);
		break;
	case MK_LIST:
	case MK_FTRACE_PID:
		r = write_list(m, fh, s);
		break;
	case MK_MAX_GRAPH_DEPTH:
		if (parse_num(s, INT32_MAX, &v)) {
			mnt_elog(m, name, "not a depth (0: unlimited)", s, 0);
			r = -EINVAL;
			break;
		}
		ft_session_ctl_begin(h);
		__atomic_store_n(&c->max_graph_depth, (int32_t)v, __ATOMIC_RELAXED);
		ft_session_ctl_end(h);
		break;
	case MK_TRACING_THRESH:
		if (parse_num(s, UINT64_MAX / 1000, &v)) {
			mnt_elog(m, name, "not a number of microseconds", s, 0);
			r = -EINVAL;
			break;
		}
		ft_session_ctl_begin(h);
		__atomic_store_n(&c->thresh_ticks, ticks_of_ns(h, v * 1000), __ATOMIC_RELAXED);
		ft_session_ctl_end(h);
		break;
	case MK_OPTION:
		if (parse_num(s, 1, &v)) {
			mnt_elog(m, name, "options take 0 or 1", s, 0);
			r = -EINVAL;
			break;
		}
		write_option(m, name, (int)v);
		break;
	case MK_TRACE_OPTIONS: {
		const char *o = strncmp(s, "no", 2) ? s : s + 2;

		if (!*s || strchr(s, ' ') || write_option(m, o, o == s)) {
			mnt_elog(m, name, "no such option", s, 0);
			r = -EINVAL;
		}
		break;
	}
	case MK_BUFFER_SIZE:
		if (parse_num(s, UINT32_MAX, &v)) {
			mnt_elog(m, name, "not a number of KiB", s, 0);
			r = -EINVAL;
			break;
		}
		if (v != (uint64_t)m->s.area->npages[0] * m->s.area->page_size / 1024) {
			mnt_elog(m, name, "the buffers are sized when recording starts (record -b)",
				 s, 0);
			r = -EBUSY;
		}
		break;
	case MK_ERROR_LOG:
	case MK_TRACE:
		break; /* the kernel takes any write (O_TRUNC clears) */
	case MK_EV_ENABLE:
		if (strcmp(s, "0") && strcmp(s, "1")) {
			mnt_elog(m, name, "write 0 or 1", s, 0);
			r = -EINVAL;
			break;
		}
		if (!mnt_events_switch(m, fh->ev_sys, fh->ev_name, NULL, s[0] == '1')) {
			mnt_elog(m, name,
				 "no user event to switch (the program has none with an id)", s, 0);
			r = -ENODEV;
			break;
		}
		mnt_events_publish(m);
		break;
	case MK_SET_EVENT:
		r = write_set_event(m, name, s);
		break;
	case MK_EV_FILTER:
	case MK_EV_TRIGGER: {
		char msg[FT_UEV_EDIT_MAX];

		if (fh->node->kind == MK_EV_TRIGGER && !strncmp(s, "snapshot", 8))
			/* as ftrace, a snapshot trigger allocates the spare first */
			ft_snapshot_prepare(&m->snap);
		r = mnt_events_edit(m, fh->ev_sys, fh->ev_name,
				    fh->node->kind == MK_EV_FILTER ? FT_UEV_EDIT_FILTER
								   : FT_UEV_EDIT_TRIGGER,
				    s, msg, sizeof(msg));
		if (r < 0)
			mnt_elog(m, name, msg, s, 0);
		break;
	}
	case MK_STACK_MAP:
		if (strcmp(s, "0") && strcmp(s, "reset")) {
			mnt_elog(m, name, "write 0 or reset to clear the stack map", s, 0);
			r = -EINVAL;
			break;
		}
		if (!m->smap.shm) {
			r = -ENODEV;
			break;
		}
		r = ft_stackmap_reset(&m->smap);
		if (r == -EBUSY)
			mnt_elog(m, name,
				 smap_tracing_on(m) ? "tracing is on: echo 0 > tracing_on first"
						    : "a reset is in progress",
				 s, 0);
		else if (r < 0)
			mnt_elog(m, name, strerror(-r), s, 0);
		break;
	case MK_SNAPSHOT: {
		char err[256];

		r = ft_snapshot_write(&m->snap, s, err, sizeof(err));
		if (r < 0)
			mnt_elog(m, name, err, s, 0);
		else
			r = 0;
		break;
	}
	default:
		r = -EACCES;
		break;
	}
	free(s);
	if (r < 0) {
		fh->failed = 1;
		return r;
	}
	return (int)len;
}

/* Close: commit a list written through this handle. */
int mnt_release(struct mnt *m, struct mnt_fh *fh)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_ctl *c = ft_session_ctl(h);
	const struct mnt_node *n = fh->node;
	int r = 0;

	if (fh->failed || !(fh->trunc || fh->wlen))
		return 0;
	if (n->kind == MK_LIST) {
		char *text = ft_malloc(FT_SESSION_LIST_MAX);
		size_t cur = fh->trunc ? 0 : strnlen(c->lists[n->arg], FT_SESSION_LIST_MAX - 1);

		memcpy(text, c->lists[n->arg], cur);
		text[cur] = 0;
		if (cur + fh->wlen + 1 > FT_SESSION_LIST_MAX) {
			mnt_elog(m, node_name(n), "the list is full (16 KiB)", fh->wbuf, 0);
			r = -ENOSPC;
		} else {
			memcpy(text + cur, fh->wbuf ? fh->wbuf : "", fh->wlen + 1);
			ft_session_ctl_begin(h);
			ft_session_set_list(h, n->arg, text);
			ft_session_ctl_end(h);
		}
		free(text);
	} else if (n->kind == MK_FTRACE_PID) {
		uint32_t pids[FT_SESSION_MAX_PIDS], nr = 0;
		const char *p = fh->wbuf ? fh->wbuf : "";

		if (!fh->trunc) {
			nr = __atomic_load_n(&c->nr_pids, __ATOMIC_RELAXED);
			if (nr > FT_SESSION_MAX_PIDS)
				nr = FT_SESSION_MAX_PIDS;
			memcpy(pids, c->pids, nr * sizeof(pids[0]));
		}
		for (; *p; p += strcspn(p, "\n") + (p[strcspn(p, "\n")] ? 1 : 0)) {
			if (nr == FT_SESSION_MAX_PIDS) {
				mnt_elog(m, node_name(n), "too many thread ids (64)", fh->wbuf, 0);
				return -ENOSPC;
			}
			pids[nr++] = (uint32_t)strtoul(p, NULL, 10);
		}
		ft_session_ctl_begin(h);
		memcpy(c->pids, pids, nr * sizeof(pids[0]));
		__atomic_store_n(&c->nr_pids, nr, __ATOMIC_RELAXED);
		ft_session_ctl_end(h);
	}
	return r;
}
