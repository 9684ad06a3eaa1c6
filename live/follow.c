// SPDX-License-Identifier: GPL-2.0
/*
 * Following a trace file while it is written: one pass hands on the events
 * not handed on before, formatted as show does (live/follow.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/ftrace_fmt.h"
#include "analysis/kevents.h"
#include "analysis/trace.h"
#include "core/options.h"
#include "core/tracefile.h"
#include "core/util.h"
#include "live/follow.h"

#define KBUF_KEY (1ull << 63) /* a kernel CPU's events: this bit, then the CPU */
#define TEXT_RESET (1u << 20) /* the pass's text buffer starts again past this */
#define MAX_COMMS 256
#define ENTRY_WAIT_NS 1000000000ull /* an entry waits for its next record this long */

/* Events per buffer: an open-addressing table. */
struct bufcount {
	uint64_t key;  /* buffer key + 1, 0: empty */
	uint64_t n;    /* handed on */
	uint64_t seen; /* met in this pass */
};

struct ft_follow {
	struct ft_follow_conf conf;
	FILE *null;
	struct bufcount *bc;
	size_t bc_size, bc_used; /* size a power of two */
	uint64_t passed;	 /* the latest time handed on (ns), 0: none yet */
	int ordered;		 /* the file has watermarks: its events come in time order */
	uint64_t late;
	int kernel; /* the last pass had kernel events (the header's columns) */
	/*
	 * Kept from one pass to the next when the file has no kernel events:
	 * the trace open (ft_trace_refresh() takes in what was appended), the
	 * formatter with its state, and the options it formats with.  NULL:
	 * the next pass opens the file again.
	 */
	struct ft_trace *t;
	struct ft_fmt *f;
	uint64_t f_options;
	/* kernel events of the pass (read with the file: opened at each pass) */
	struct ft_ksource ks;
	struct ft_trace_source src;
	/* live_comm: names read from /proc, per thread ("" = unknown) */
	uint32_t comm_tid[MAX_COMMS];
	char comm[MAX_COMMS][17];
	unsigned int nr_comms;
};

struct ft_follow *ft_follow_new(const struct ft_follow_conf *conf)
{
	struct ft_follow *fl = calloc(1, sizeof(*fl));

	if (!fl)
		return NULL;
	fl->conf = *conf;
	fl->bc_size = 256;
	fl->bc = calloc(fl->bc_size, sizeof(*fl->bc));
	fl->null = fopen("/dev/null", "we");
	if (!fl->bc || !fl->null) {
		if (fl->null)
			fclose(fl->null);
		free(fl->bc);
		free(fl);
		return NULL;
	}
	return fl;
}

static void drop_trace(struct ft_follow *fl);

void ft_follow_free(struct ft_follow *fl)
{
	if (!fl)
		return;
	drop_trace(fl);
	fclose(fl->null);
	free(fl->bc);
	free(fl);
}

int ft_follow_kept(const struct ft_follow *fl)
{
	return fl->t != NULL;
}

int ft_follow_kernel(const struct ft_follow *fl)
{
	return fl->kernel;
}

uint64_t ft_follow_late(const struct ft_follow *fl)
{
	return fl->late;
}

void ft_follow_set_options(struct ft_follow *fl, uint64_t options)
{
	fl->conf.options = options;
}

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	return k;
}

/* The counts of buffer key, added at 0 when new; NULL when out of memory. */
static struct bufcount *count_of(struct ft_follow *fl, uint64_t key)
{
	size_t i, mask = fl->bc_size - 1;

	key++;
	for (i = mix(key) & mask; fl->bc[i].key; i = (i + 1) & mask)
		if (fl->bc[i].key == key)
			return &fl->bc[i];
	if ((fl->bc_used + 1) * 2 > fl->bc_size) {
		struct bufcount *old = fl->bc, *nb = calloc(fl->bc_size * 2, sizeof(*nb));
		size_t osize = fl->bc_size;

		if (!nb)
			return NULL;
		fl->bc = nb;
		fl->bc_size *= 2;
		mask = fl->bc_size - 1;
		for (size_t j = 0; j < osize; j++) {
			if (!old[j].key)
				continue;
			for (i = mix(old[j].key) & mask; nb[i].key; i = (i + 1) & mask)
				;
			nb[i] = old[j];
		}
		free(old);
		for (i = mix(key) & mask; fl->bc[i].key; i = (i + 1) & mask)
			;
	}
	fl->bc[i].key = key;
	fl->bc[i].n = 0;
	fl->bc[i].seen = 0;
	fl->bc_used++;
	return &fl->bc[i];
}

/*
 * The name of thread tid of process pid from /proc while it runs, as the
 * kernel's comm cache gives it; NULL when unknown (then "<...>", as the
 * kernel prints a name it lost).  Looked up once per thread.
 */
static const char *live_comm(struct ft_follow *fl, uint32_t pid, uint32_t tid)
{
	char path[64], *nl;
	unsigned int i;
	FILE *f;

	for (i = 0; i < fl->nr_comms; i++)
		if (fl->comm_tid[i] == tid)
			return fl->comm[i][0] ? fl->comm[i] : NULL;
	if (fl->nr_comms == MAX_COMMS)
		return NULL;
	i = fl->nr_comms++;
	fl->comm_tid[i] = tid;
	fl->comm[i][0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(fl->comm[i], sizeof(fl->comm[i]), f) && (nl = strchr(fl->comm[i], '\n')))
			*nl = 0;
		fclose(f);
	}
	return fl->comm[i][0] ? fl->comm[i] : NULL;
}

/* The options a pass formats with. */
static uint64_t pass_options(const struct ft_follow_conf *conf, struct ft_trace *t)
{
	uint64_t options = conf->use_file_options ? ft_fmt_recorded_options(t) : conf->options;

	/* a follower cannot know whether a second thread will come: name them always */
	if (!strcmp(ft_trace_tracer(t), "function_graph"))
		options |= FT_OPT(FUNCGRAPH_PROC);
	return options;
}

int ft_follow_header(const struct ft_follow_conf *conf, int kernel, const char *path,
		     uint64_t entries, uint64_t written, FILE *out)
{
	struct ft_trace *t;
	struct ft_fmt *f;
	char err[256];
	int r = -1;

	t = ft_trace_open(path, err, sizeof(err));
	if (!t)
		return -1;
	f = ft_fmt_new(t, pass_options(conf, t), out);
	if (f) {
		ft_fmt_set_irq_info(f, kernel);
		ft_fmt_header(f, entries, written);
		r = ft_fmt_flush(f);
		ft_fmt_free(f);
	}
	ft_trace_close(t);
	return r;
}

/* The formatter's text of one pass, handed on event by event. */
struct text {
	FILE *mem;
	char *buf;
	size_t len;
	size_t mark; /* the end of what was handed on */
};

static int text_open(struct text *x)
{
	x->buf = NULL;
	x->len = x->mark = 0;
	x->mem = open_memstream(&x->buf, &x->len);
	return x->mem ? 0 : -1;
}

static void text_close(struct text *x)
{
	if (x->mem)
		fclose(x->mem);
	free(x->buf);
	x->mem = NULL;
	x->buf = NULL;
}

/*
 * Close the pass's trace: the next pass opens the file again and replays
 * it (the events handed on before go to /dev/null: counted per buffer).
 */
static void drop_trace(struct ft_follow *fl)
{
	if (fl->f) {
		ft_fmt_set_output(fl->f, fl->null);
		ft_fmt_free(fl->f);
	}
	if (fl->ks.k)
		ft_kevents_close(fl->ks.k);
	ft_trace_close(fl->t);
	fl->f = NULL;
	fl->ks.k = NULL;
	fl->t = NULL;
	for (size_t i = 0; i < fl->bc_size; i++)
		fl->bc[i].seen = 0;
}

/*
 * Sections from index from of t's file that the kept trace and formatter
 * cannot take in: kernel events (analysis/kevents.h reads them at open),
 * user event formats (the formatter loads them once).
 */
static int restart_sections(struct ft_trace *t, size_t from)
{
	struct ft_reader *r = ft_trace_reader(t);

	for (size_t i = from; i < ft_reader_nr_sections(r); i++) {
		uint32_t type = ft_reader_section(r, i)->type;

		if (type == FT_SEC_KDATA || type == FT_SEC_KFORMATS || type == FT_SEC_KSNAP ||
		    type == FT_SEC_UFORMATS)
			return 1;
	}
	return 0;
}

/*
 * The trace of this pass: the one kept, with what was appended since
 * (1), or the file opened anew (1), or nothing new to read (0), or -1
 * with err (final only).
 */
static int pass_trace(struct ft_follow *fl, const char *path, int final, char *err, size_t errlen)
{
	char rerr[512];
	struct ft_trace *t;
	int r;

	if (fl->t) {
		size_t from = ft_reader_nr_sections(ft_trace_reader(fl->t));

		r = ft_trace_refresh(fl->t, rerr, sizeof(rerr));
		if (r > 0 && restart_sections(fl->t, from))
			r = -1; /* read with the file: kernel events, new event formats */
		if (r >= 0 && pass_options(&fl->conf, fl->t) != fl->f_options)
			r = -1; /* a live mount's options changed: format again */
		if (!r && !final)
			return 0;
		if (r >= 0)
			return 1;
		drop_trace(fl);
	}
	t = ft_trace_open(path, rerr, sizeof(rerr));
	if (!t) {
		if (!final)
			return 0;
		ft_seterr(err, errlen, "%s", rerr);
		return -1;
	}
	fl->t = t;
	fl->f_options = pass_options(&fl->conf, t);
	fl->ks.k = ft_kevents_open(ft_trace_reader(t), rerr, sizeof(rerr));
	if (!fl->ks.k && rerr[0] && final) {
		ft_seterr(err, errlen, "%.200s: %.300s", path, rerr);
		drop_trace(fl);
		return -1;
	}
	if (fl->ks.k) {
		ft_kevents_fix_user_stacks(fl->ks.k, path);
		fl->ks.options = fl->f_options;
		fl->src.name = "kernel";
		fl->src.next = ft_ksource_next;
		fl->src.print = ft_ksource_print;
		fl->src.arg = &fl->ks;
		if (ft_trace_add_source(t, &fl->src) < 0) {
			ft_kevents_close(fl->ks.k);
			fl->ks.k = NULL;
		}
	}
	fl->f = ft_fmt_new(t, fl->f_options, fl->null);
	if (!fl->f) {
		ft_seterr(err, errlen, "out of memory");
		drop_trace(fl);
		return -1;
	}
	ft_fmt_set_irq_info(fl->f, fl->ks.k != NULL);
	fl->kernel = fl->ks.k != NULL;
	if (fl->ks.k)
		ft_fmt_set_kevents(fl->f, fl->ks.k, &fl->src, &ft_kevents_fmt_ops);
	return 1;
}

int ft_follow_pass(struct ft_follow *fl, const char *path, int final, ft_follow_emit emit,
		   void *arg, char *err, size_t errlen)
{
	const struct ft_event *ev;
	uint64_t wm = UINT64_MAX;
	struct text x = { 0 };
	struct ft_trace *t;
	struct ft_fmt *f;
	const char *v;
	char rerr[512];
	int ret, to_text = 0, graph, r = -1, keep;

	ret = pass_trace(fl, path, final, err, errlen);
	if (ret <= 0)
		return ret;
	t = fl->t;
	f = fl->f;
	v = ft_trace_meta(t, "stream_watermark");
	if (!final) {
		/* 0: a writer of the file (a kernel CPU) has written nothing yet */
		if (v && !strtoull(v, NULL, 10))
			return 0;
		if (v) {
			wm = ft_trace_tsc_to_ns(t, strtoull(v, NULL, 10));
			fl->ordered = 1;
		} else if (fl->conf.need_watermark) {
			return 0;
		}
	}
	graph = !strcmp(ft_trace_tracer(t), "function_graph");
	if (text_open(&x) < 0)
		goto oom;
	while ((ret = ft_trace_next_ref(t, &ev, rerr, sizeof(rerr))) == 1) {
		uint64_t key = ev->type == FT_EV_SOURCE ? KBUF_KEY | ev->cpu : ev->buffer;
		struct bufcount *bc = count_of(fl, key);
		const struct ft_event *next;
		struct ft_event named;
		int late;

		if (!bc)
			goto oom;
		/* the events of a buffer before bc->n were handed on: state only */
		if (++bc->seen <= bc->n) {
			if (to_text) {
				if (ft_fmt_set_output(f, fl->null) < 0)
					goto oom;
				to_text = 0;
			}
			if (ft_fmt_event(f, ev) < 0)
				goto oom;
			continue;
		}
		/*
		 * A leaf or not depends on the next record of its buffer: wait
		 * for it -- unless the entry precedes the watermark by more than
		 * ENTRY_WAIT_NS: then its thread sits in that call (the next
		 * record is stamped after the watermark) and every other thread
		 * would wait with it; it prints as an open call ("func() {")
		 * where show, knowing the end, prints "func();".  Either way
		 * the event is given back: the next pass starts with it.
		 */
		if (!final &&
		    (ev->ts > wm || (graph && ev->type == FT_EV_ENTRY &&
				     ft_trace_peek_buffer_ref(t, ev, &next) != 1 &&
				     (wm == UINT64_MAX || ev->ts + ENTRY_WAIT_NS > wm)))) {
			bc->seen--;
			if (ft_trace_unget(t) < 0)
				drop_trace(fl); /* cannot: the next pass replays the file */
			break;
		}
		if (!to_text) {
			if (ft_fmt_set_output(f, x.mem) < 0)
				goto oom;
			to_text = 1;
		}
		if (fl->conf.live_comm && ev->type != FT_EV_SOURCE &&
		    !strcmp(ft_trace_comm(t, ev->tid), "<...>")) {
			named = *ev;
			named.comm = live_comm(fl, ev->pid, ev->tid);
			ev = &named;
		}
		if (ft_fmt_event(f, ev) < 0 || ft_fmt_flush(f) < 0 || fflush(x.mem))
			goto oom;
		bc->n++;
		/*
		 * Late: an event stamped before one already handed on (it
		 * reached the file after a watermark that claimed its time).
		 * Not the watermark of the last pass: a pass can stop short of
		 * it (an entry waiting for its next record), and what it did
		 * not reach yet is still in order at the next one.  A file
		 * without watermarks promises no order: never late.
		 */
		late = fl->ordered && ev->ts < fl->passed;
		if (!late)
			fl->passed = ev->ts;
		fl->late += (uint64_t)late;
		if (emit(arg, t, ev, late, x.buf + x.mark, x.len - x.mark) < 0)
			break;
		x.mark = x.len;
		if (x.len > TEXT_RESET) {
			/* the text handed on is not needed any more */
			if (ft_fmt_set_output(f, fl->null) < 0)
				goto oom;
			to_text = 0;
			text_close(&x);
			if (text_open(&x) < 0)
				goto oom;
		}
	}
	if (ret < 0 && final) {
		ft_seterr(err, errlen, "%s", rerr);
		goto out;
	}
	r = 1;
	goto out;
oom:
	ft_seterr(err, errlen, "out of memory");
out:
	/*
	 * Kept for the next pass: a trace without kernel events (their
	 * reader takes no appended sections) that read well.
	 */
	keep = fl->t && !final && r > 0 && ret >= 0 && !fl->ks.k;
	if (fl->f)
		ft_fmt_set_output(fl->f, fl->null);
	text_close(&x);
	if (!keep)
		drop_trace(fl);
	return r;
}
