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

#include "core/util.h"
#include "live/follow.h"
#include "live/stream.h"

#define STREAM_POLL_MS 200 /* the shortest interval between refreshes */

/*
 * Who touches what: path and out are set at start and read by the thread
 * only; quit is set by the caller under lock; everything else is the
 * thread's until it is joined, the caller's after.
 */
struct ft_stream {
	char *path;
	FILE *out;
	struct ft_follow *fl;
	pthread_t th;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int quit;

	off_t seen_size; /* the file's size at the last refresh */
	int closed;	 /* the output was closed: nothing more is printed */
	int wrote;	 /* this refresh printed something (to flush) */
};

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* An event's lines: printed, unless it came after the stream passed its time. */
static int emit(void *arg, struct ft_trace *t, const struct ft_event *ev, int late,
		const char *text, size_t len)
{
	struct ft_stream *s = arg;

	(void)t;
	(void)ev;
	if (late)
		return 0; /* counted by the follower; it is in the file */
	if (len && fwrite(text, 1, len, s->out) != len) {
		s->closed = 1;
		return -1;
	}
	s->wrote = 1;
	return 0;
}

/*
 * One refresh (final: the file is complete, print everything left).
 * Returns 0, or -1 with err (final only).
 */
static int refresh(struct ft_stream *s, const char *path, int final, char *err, size_t errlen)
{
	int r;

	s->wrote = 0;
	r = ft_follow_pass(s->fl, path, final, emit, s, err, errlen);
	if (s->wrote && (fflush(s->out) || ferror(s->out)))
		s->closed = 1;
	return r < 0 && final ? -1 : 0;
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
			char err[512];

			refresh(s, s->path, 0, err, sizeof(err));
			/*
			 * A refresh that read only what was appended costs what
			 * was recorded since: the next one comes STREAM_POLL_MS
			 * later, whatever this one took (spacing them by it would
			 * let a backlog grow).  One that read the file from its
			 * start (kernel events): at most a third of a CPU, wait
			 * twice what reading took.
			 */
			wait_ms = ft_follow_kept(s->fl) ? 0 : 2 * (mono_ms() - t0);
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
	struct ft_follow_conf conf = { .use_file_options = 1, .need_watermark = 1 };
	struct ft_stream *s = calloc(1, sizeof(*s));

	if (!s || !(s->path = strdup(path))) {
		free(s);
		ft_seterr(err, errlen, "out of memory");
		return NULL;
	}
	s->out = out;
	s->fl = ft_follow_new(&conf);
	if (!s->fl) {
		ft_seterr(err, errlen, "cannot follow the trace: %s", strerror(errno));
		free(s->path);
		free(s);
		return NULL;
	}
	pthread_mutex_init(&s->lock, NULL);
	pthread_cond_init(&s->cond, NULL);
	if (pthread_create(&s->th, NULL, stream_main, s)) {
		ft_seterr(err, errlen, "cannot start the stream's thread");
		ft_follow_free(s->fl);
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
	if (!s->closed && refresh(s, path, 1, err, errlen) < 0)
		r = -1;
	{
		/* a SIGPIPE pending from our writes must not outlive the block */
		struct timespec zero = { 0, 0 };

		while (sigtimedwait(&pipe, NULL, &zero) == SIGPIPE)
			;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	*late = ft_follow_late(s->fl);
	*closed = s->closed;
	ft_follow_free(s->fl);
	pthread_mutex_destroy(&s->lock);
	pthread_cond_destroy(&s->cond);
	free(s->path);
	free(s);
	return r;
}
