// SPDX-License-Identifier: GPL-2.0
/*
 * Streaming a recording: follow the trace file being written and print it
 * as show does (live/stream.h has the design and its costs).
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "analysis/ftrace_fmt.h"
#include "analysis/kevents.h"
#include "analysis/trace.h"
#include "core/options.h"
#include "core/util.h"
#include "live/stream.h"

#define STREAM_POLL_MS 200 /* the shortest interval between refreshes */

/* The options show takes from a recording (cmd/show.c DISPLAY_OPTS). */
#define DISPLAY_OPTS                                                                               \
	(FT_OPT(PRINT_PARENT) | FT_OPT(SYM_OFFSET) | FT_OPT(SYM_ADDR) | FT_OPT(LATENCY_FORMAT) |   \
	 FT_OPT(FUNCGRAPH_PROC) | FT_OPT(FUNCGRAPH_ABSTIME) | FT_OPT(FUNCGRAPH_DURATION) |         \
	 FT_OPT(FUNCGRAPH_CPU) | FT_OPT(FUNCGRAPH_OVERHEAD) | FT_OPT(FUNCGRAPH_TAIL) |             \
	 FT_OPT(FUNCGRAPH_ARGS) | FT_OPT(FUNCGRAPH_RETVAL) | FT_OPT(EXPAND_STACKS) | FT_OPT(RAW) | \
	 FT_OPT(HEX))

static const struct ft_fmt_kops kops = {
	.print_info = ft_kevents_print_info,
	.lat_flags = ft_kevents_lat_flags,
	.used_stackmap = ft_kevents_used_stackmap,
	.sym = ft_kevents_sym,
	.comm = ft_kevents_comm,
};

/*
 * Who touches what: path, out and null are set at start and read by the
 * thread only; quit is set by the caller under lock; everything else is
 * the thread's until it is joined, the caller's after.
 */
struct ft_stream {
	char *path;
	FILE *out;
	FILE *null;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int quit;

	struct ft_event last; /* the last event printed (its pointers are not used) */
	uint64_t printed;     /* events printed: the reader's first ones */
	uint64_t late;	      /* events that came in before some printed ones */
	off_t seen_size;      /* the file's size at the last refresh */
	int closed;	      /* the output was closed: nothing more is printed */
	int failed;
	char err[512];
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Is a the event b was (same time, kind, place)? */
static int same_event(const struct ft_event *a, const struct ft_event *b)
{
	return a->ts == b->ts && a->type == b->type && a->buffer == b->buffer && a->tid == b->tid &&
	       a->fid == b->fid && a->depth == b->depth;
}

/*
 * One refresh: read path from its start, bring the formatter to where the
 * last refresh stopped, print what follows up to the watermark (final: to
 * the end).  Returns 0, or -1 with s->err (final only: while following, a
 * file that does not read yet is tried again at the next refresh).
 */
static int refresh(struct ft_stream *s, const char *path, int final)
{
	struct ft_trace_source src;
	struct ft_ksource ks = { 0 };
	const struct ft_event *ev;
	uint64_t options, wm = UINT64_MAX, def = ft_options_default(), seen = 0;
	struct ft_trace *t;
	struct ft_fmt *f;
	const char *v;
	char err[512];
	int ret, live = 0, graph;

	t = ft_trace_open(path, err, sizeof(err));
	if (!t) {
		if (final)
			snprintf(s->err, sizeof(s->err), "%s", err);
		return final ? -1 : 0;
	}
	if (!final) {
		v = ft_trace_meta(t, "stream_watermark");
		/* 0: a writer of the file (a kernel CPU) has written nothing yet */
		if (!v || !strtoull(v, NULL, 10)) {
			ft_trace_close(t);
			return 0;
		}
		wm = ft_trace_tsc_to_ns(t, strtoull(v, NULL, 10));
	}
	v = ft_trace_meta(t, "options");
	options = v ? (ft_options_parse(v) & DISPLAY_OPTS) | (def & ~DISPLAY_OPTS) : def;
	graph = !strcmp(ft_trace_tracer(t), "function_graph");
	/* a stream cannot know whether a second thread will come: name them always */
	if (graph)
		options |= FT_OPT(FUNCGRAPH_PROC);
	ks.k = ft_kevents_open(ft_trace_reader(t), err, sizeof(err));
	if (!ks.k && err[0] && final) {
		snprintf(s->err, sizeof(s->err), "%.200s: %.300s", path, err);
		ft_trace_close(t);
		return -1;
	}
	if (ks.k) {
		ft_kevents_fix_user_stacks(ks.k, path);
		ks.options = options;
		src.name = "kernel";
		src.next = ft_ksource_next;
		src.print = ft_ksource_print;
		src.arg = &ks;
		if (ft_trace_add_source(t, &src) < 0) {
			ft_kevents_close(ks.k);
			ks.k = NULL;
		}
	}
	f = ft_fmt_new(t, options, s->null);
	if (!f) {
		snprintf(s->err, sizeof(s->err), "out of memory");
		goto fail;
	}
	ft_fmt_set_irq_info(f, ks.k != NULL);
	if (ks.k)
		ft_fmt_set_kevents(f, ks.k, &src, &kops);
	while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
		const struct ft_event *next;

		if (seen < s->printed) {
			/* printed already: the formatter's state only */
			if (ft_fmt_event(f, ev) < 0)
				break;
			/*
			 * The last one printed must be where it was: if not,
			 * events came in before it (late); they count as
			 * printed, they cannot be shown in order any more.
			 */
			if (++seen == s->printed && !same_event(ev, &s->last) &&
			    ev->ts <= s->last.ts) {
				s->printed++;
				s->late++;
			}
			continue;
		}
		if (!final && ev->ts > wm)
			break;
		/* a leaf or not depends on the next record of its buffer */
		if (!final && graph && ev->type == FT_EV_ENTRY &&
		    ft_trace_peek_buffer_ref(t, ev, &next) != 1)
			break;
		if (!live) {
			ft_fmt_set_output(f, s->out);
			live = 1;
		}
		if (ft_fmt_event(f, ev) < 0) {
			s->closed = 1;
			break;
		}
		s->last = *ev;
		s->printed++;
		seen++;
	}
	if (ret < 0 && final) {
		snprintf(s->err, sizeof(s->err), "%s", err);
		ft_fmt_free(f);
		goto fail;
	}
	if (ft_fmt_flush(f) < 0 || (live && (fflush(s->out) || ferror(s->out))))
		s->closed = 1;
	ft_fmt_set_output(f, s->null);
	ft_fmt_free(f);
	if (ks.k)
		ft_kevents_close(ks.k);
	ft_trace_close(t);
	return 0;
fail:
	if (ks.k)
		ft_kevents_close(ks.k);
	ft_trace_close(t);
	return -1;
}

static void *stream_main(void *arg)
{
	struct ft_stream *s = arg;
	uint64_t wait_ms = STREAM_POLL_MS;
	sigset_t pipe;

	/* a closed output is EPIPE here, not a signal that ends the recorder */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, NULL);
	pthread_mutex_lock(&s->lock);
	while (!s->quit && !s->closed) {
		struct timespec until;
		struct stat st;
		uint64_t t0;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_sec += (time_t)(wait_ms / 1000);
		until.tv_nsec += (long)(wait_ms % 1000) * 1000000;
		if (until.tv_nsec >= 1000000000) {
			until.tv_sec++;
			until.tv_nsec -= 1000000000;
		}
		pthread_cond_timedwait(&s->cond, &s->lock, &until);
		if (s->quit)
			break;
		pthread_mutex_unlock(&s->lock);
		t0 = mono_ms();
		if (!stat(s->path, &st) && st.st_size != s->seen_size) {
			s->seen_size = st.st_size;
			refresh(s, s->path, 0);
			/* at most a third of a CPU: wait twice what reading took */
			wait_ms = 2 * (mono_ms() - t0);
			if (wait_ms < STREAM_POLL_MS)
				wait_ms = STREAM_POLL_MS;
		}
		pthread_mutex_lock(&s->lock);
	}
	pthread_mutex_unlock(&s->lock);
	return NULL;
}

struct ft_stream *ft_stream_start(const char *path, FILE *out, char *err, size_t errlen)
{
	struct ft_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path))) {
		free(s);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	s->out = out;
	s->null = fopen("/dev/null", "we");
	if (!s->null) {
		ft_seterr(err, errlen, "cannot open /dev/null: %s", strerror(errno));
		free(s->path);
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (pthread_create(&s->th, NULL, stream_main, s)) {
		ft_seterr(err, errlen, "cannot start the stream's thread");
		fclose(s->null);
		free(s->path);
		free(s);
		return NULL;
	}
	return s;
}

int ft_stream_finish(struct ft_stream *s, const char *path, uint64_t *late, int *closed, char *err,
		     size_t errlen)
{
	sigset_t pipe, old;
	int r = 0;

	pthread_mutex_lock(&s->lock);
	s->quit = 1;
	pthread_cond_signal(&s->cond);
	pthread_mutex_unlock(&s->lock);
	pthread_join(s->th, NULL);
	/* the last refresh runs here: the same rule for a closed output */
	sigemptyset(&pipe);
	sigaddset(&pipe, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe, &old);
	if (!s->closed && refresh(s, path, 1) < 0) {
		ft_seterr(err, errlen, "%s", s->err);
		r = -1;
	}
	{
		/* a SIGPIPE pending from our writes must not outlive the block */
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*late = s->late;
	*closed = s->closed;
	fclose(s->null);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->path);
	free(s);
	return r;
}
