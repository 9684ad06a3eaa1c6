// SPDX-License-Identifier: GPL-2.0
/*
 * `trace` and `trace_pipe` of the live mount, in ftrace's text format,
 * from the trace file the recorder is writing.
 *
 * Why the file and not the rings: the recorder is the rings' one
 * consuming reader (core/ringbuf.h), and it must stay so -- a second
 * consumer would take records away from the trace file.  Reading never
 * touches the rings, so the traced program never waits for it.  The
 * descriptor we keep on the file (found among the recorder's open files)
 * follows it when it is renamed to FILE at the end.
 *
 * A follower thread (live/follow.h, what `record -o -` streams with)
 * reads the file at most every FOLLOW_POLL_MS when it grew, and appends
 * the events it formats to a log, in order: with `record --mount` the
 * recorder streams (pieces of the pages being written, a watermark every
 * 200 ms), so an event is in the log about half a second after it
 * happened; kernel events captured with -e are in it too.  A recording
 * started without --mount streams from the moment `ftrail mount` marks
 * its session live (the recorder sees ctl.live: recorder/urecord.c
 * stream_when_live); what reached the file before comes in the order it
 * came.
 *
 * The log holds what was not consumed yet, as the kernel's buffer does:
 * trace_pipe takes the oldest events (two readers share them, none gets
 * one twice); trace shows the log as it is at open, cached with the open
 * file; "> trace" consumes everything so far, and everything older still
 * on its way from the rings (events stamped before that moment are not
 * added any more).  per_thread/<tid>/ does the same for one thread's
 * events.  The log is bounded (MNT_LOG_MAX bytes of text): past it the
 * oldest unread events are dropped and counted, as the kernel's ring
 * overwrites (the header's entries-written counts them).
 *
 * Locking: the log is under m->lock; the follower takes it per event it
 * adds, never while it reads the file, so a request waits at most for one
 * event's append.  Readers of trace_pipe wait on log.cond with the lock.
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <pthread.h>
#include <signal.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/trace.h"
#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/util.h"
#include "live/follow.h"
#include "live/mount_int.h"

/* The recorder's FILE.partial, opened; -1 when it writes none (-o -). */
void mnt_trace_find(struct mnt *m)
{
	char dir[64], link[PATH_MAX], path[PATH_MAX + 80];
	pid_t rec = (pid_t)m->s.hdr->recorder_pid;
	struct dirent *de;
	DIR *d;

	m->trace_fd = -1;
	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)rec);
	d = opendir(dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		ssize_t n;
		size_t k;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			continue;
		link[n] = 0;
		k = strlen(link);
		if (k < 9 || strcmp(link + k - 8, ".partial") || link[0] != '/')
			continue;
		m->trace_fd = open(path, O_RDONLY | O_CLOEXEC);
		if (m->trace_fd >= 0)
			break;
	}
	closedir(d);
	snprintf(m->trace_path, sizeof(m->trace_path), "/proc/self/fd/%d", m->trace_fd);
}

/* The log's text past which the oldest unread events are dropped. */
#define MNT_LOG_MAX (64u << 20)
#define FOLLOW_POLL_MS 200 /* the shortest interval between passes */
#define END_WAIT_MS 10000  /* the last pass after the end, at most */
#define END_DRAIN_MS 5000  /* then trace_pipe's readers taking what is left */

static void deadline(struct timespec *until, uint64_t ms)
{
	clock_gettime(CLOCK_REALTIME, until);
	until->tv_sec += (time_t)(ms / 1000);
	until->tv_nsec += (long)(ms % 1000) * 1000000;
	if (until->tv_nsec >= 1000000000) {
		until->tv_sec++;
		until->tv_nsec -= 1000000000;
	}
}

static uint64_t mono_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* Forget the consumed entries at the log's front; move the rest down when worth it. */
static void log_trim(struct mnt_log *l)
{
	size_t shift, n;

	while (l->head < l->nr && l->ent[l->head].consumed)
		l->head++;
	if (l->head < 1024 || l->head * 2 < l->nr)
		return;
	shift = l->head < l->nr ? l->ent[l->head].off : l->tlen;
	n = l->nr - l->head;
	memmove(l->text, l->text + shift, l->tlen - shift);
	l->tlen -= shift;
	memmove(l->ent, l->ent + l->head, n * sizeof(*l->ent));
	for (size_t i = 0; i < n; i++)
		l->ent[i].off -= shift;
	l->head = 0;
	l->nr = n;
}

/* Add one event's text.  Lock held.  0, or -1 when out of memory (the event is dropped). */
static int log_add(struct mnt_log *l, uint32_t tid, const char *text, size_t len)
{
	/* bounded: the oldest unread go first, counted */
	while (l->head < l->nr && l->tlen - l->ent[l->head].off + len > MNT_LOG_MAX) {
		if (!l->ent[l->head].consumed)
			l->dropped++;
		l->ent[l->head++].consumed = 1;
	}
	log_trim(l);
	if (FT_GROW(l->text, l->tcap, l->tlen + len, 65536) ||
	    FT_GROW(l->ent, l->cap, l->nr + 1, 4096))
		goto drop;
	memcpy(l->text + l->tlen, text, len);
	l->ent[l->nr].off = l->tlen;
	l->ent[l->nr].len = (uint32_t)len;
	l->ent[l->nr].tid = tid;
	l->ent[l->nr].consumed = 0;
	l->nr++;
	l->tlen += len;
	return 0;
drop:
	l->dropped++;
	return -1;
}

/* The follower's callback: one event formatted, into the log. */
static int follow_emit(void *arg, struct ft_trace *t, const struct ft_event *ev, int late,
		       const char *text, size_t len)
{
	struct mnt *m = arg;
	struct mnt_log *l = &m->log;

	(void)late; /* shown anyway, out of order: nothing recorded is left out */
	if (!len)
		return 0; /* a leaf's exit: printed with its entry */
	pthread_mutex_lock(&m->lock);
	if (!l->clear_tsc || ev->ts >= ft_trace_tsc_to_ns(t, l->clear_tsc))
		log_add(l, ev->tid, text, len);
	pthread_mutex_unlock(&m->lock);
	return 0;
}

/*
 * The follower thread: a pass when the file grew (every FOLLOW_POLL_MS at
 * most, or twice what the last pass took when it read the file from its
 * start), the last one when the recording ended.
 */
static void *follow_main(void *arg)
{
	struct mnt *m = arg;
	struct mnt_log *l = &m->log;
	uint64_t wait_ms = FOLLOW_POLL_MS;
	off_t seen = -1;
	sigset_t all;

	/* the stop signals are the watcher's (mount.c) */
	sigfillset(&all);
	pthread_sigmask(SIG_BLOCK, &all, NULL);
	pthread_mutex_lock(&m->lock);
	for (;;) {
		struct timespec until;
		struct stat st;
		int final;

		deadline(&until, wait_ms);
		if (!l->quit && !__atomic_load_n(&m->ended, __ATOMIC_RELAXED))
			pthread_cond_timedwait(&l->cond, &m->lock, &until);
		if (l->quit)
			break;
		final = __atomic_load_n(&m->ended, __ATOMIC_RELAXED);
		pthread_mutex_unlock(&m->lock);
		if (!fstat(m->trace_fd, &st) && (final || st.st_size != seen)) {
			uint64_t t0 = mono_ms();
			char err[512];

			seen = st.st_size;
			ft_follow_set_options(l->fl,
					      __atomic_load_n(&ft_session_ctl(m->s.hdr)->options,
							      __ATOMIC_RELAXED));
			/* a file cut short (recorder killed): what reads is shown */
			ft_follow_pass(l->fl, m->trace_path, final, follow_emit, m, err,
				       sizeof(err));
			/* as the stream does (live/stream.c) */
			wait_ms = ft_follow_kept(l->fl) ? 0 : 2 * (mono_ms() - t0);
			if (wait_ms < FOLLOW_POLL_MS)
				wait_ms = FOLLOW_POLL_MS;
		}
		pthread_mutex_lock(&m->lock);
		l->kernel = ft_follow_kernel(l->fl);
		pthread_cond_broadcast(&l->cond);
		if (final) {
			l->done = 1;
			break;
		}
	}
	pthread_mutex_unlock(&m->lock);
	return NULL;
}

int mnt_trace_start(struct mnt *m, char *err, size_t errlen)
{
	struct ft_follow_conf conf = { .live_comm = 1 };
	struct mnt_log *l = &m->log;

	pthread_cond_init(&l->cond, NULL);
	if (m->trace_fd < 0)
		return 0;
	conf.options = __atomic_load_n(&ft_session_ctl(m->s.hdr)->options, __ATOMIC_RELAXED);
	l->fl = ft_follow_new(&conf);
	if (!l->fl) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	if (pthread_create(&l->th, NULL, follow_main, m)) {
		ft_seterr(err, errlen, "cannot start the trace's follower thread");
		ft_follow_free(l->fl);
		l->fl = NULL;
		return -1;
	}
	l->running = 1;
	return 0;
}

/* Does an open trace_pipe still have events to take?  Lock held. */
static int pipes_pending(struct mnt *m)
{
	const struct mnt_log *l = &m->log;

	for (const struct mnt_fh *fh = m->open; fh; fh = fh->next) {
		if (fh->node->kind != MK_TRACE_PIPE)
			continue;
		for (size_t i = l->head; i < l->nr; i++)
			if (!l->ent[i].consumed && (!fh->tid || l->ent[i].tid == fh->tid))
				return 1;
	}
	return 0;
}

void mnt_trace_end(struct mnt *m)
{
	struct mnt_log *l = &m->log;
	uint64_t t0 = mono_ms();

	pthread_mutex_lock(&m->lock);
	pthread_cond_broadcast(&l->cond);
	while (l->running && !l->done && mono_ms() - t0 < END_WAIT_MS) {
		struct timespec until;

		deadline(&until, 100);
		pthread_cond_timedwait(&l->cond, &m->lock, &until);
	}
	/* the readers of trace_pipe take what is left (a few seconds at most) */
	t0 = mono_ms();
	while (pipes_pending(m) && mono_ms() - t0 < END_DRAIN_MS) {
		struct timespec ts = { 0, 50 * 1000 * 1000 };

		pthread_mutex_unlock(&m->lock);
		nanosleep(&ts, NULL);
		pthread_mutex_lock(&m->lock);
	}
	pthread_mutex_unlock(&m->lock);
}

void mnt_trace_stop(struct mnt *m)
{
	struct mnt_log *l = &m->log;

	if (l->running) {
		pthread_mutex_lock(&m->lock);
		l->quit = 1;
		pthread_cond_broadcast(&l->cond);
		pthread_mutex_unlock(&m->lock);
		pthread_join(l->th, NULL);
		l->running = 0;
	}
	ft_follow_free(l->fl);
	l->fl = NULL;
	free(l->text);
	free(l->ent);
	free(l->readc);
	pthread_cond_destroy(&l->cond);
	memset(l, 0, sizeof(*l));
}

int mnt_trace_text(struct mnt *m, uint32_t tid, char **out, size_t *len)
{
	struct ft_follow_conf conf = { 0 };
	struct mnt_log *l = &m->log;
	uint64_t entries = 0;
	FILE *f;

	*out = NULL;
	*len = 0;
	if (m->trace_fd < 0)
		return -ENODEV;
	for (size_t i = l->head; i < l->nr; i++)
		if (!l->ent[i].consumed && (!tid || l->ent[i].tid == tid))
			entries++;
	f = open_memstream(out, len);
	if (!f)
		return -ENOMEM;
	conf.options = __atomic_load_n(&ft_session_ctl(m->s.hdr)->options, __ATOMIC_RELAXED);
	if (ft_follow_header(&conf, l->kernel, m->trace_path, entries, entries + l->dropped, f)) {
		fclose(f);
		free(*out);
		*out = NULL;
		*len = 0;
		return -EAGAIN; /* no complete section yet */
	}
	for (size_t i = l->head; i < l->nr; i++)
		if (!l->ent[i].consumed && (!tid || l->ent[i].tid == tid))
			fwrite(l->text + l->ent[i].off, 1, l->ent[i].len, f);
	if (fclose(f)) {
		free(*out);
		*out = NULL;
		return -ENOMEM;
	}
	return 0;
}

void mnt_trace_clear(struct mnt *m, uint32_t tid)
{
	struct mnt_log *l = &m->log;

	for (size_t i = l->head; i < l->nr; i++)
		if (!tid || l->ent[i].tid == tid)
			l->ent[i].consumed = 1;
	/* the kernel clears the whole buffer: what is on its way goes too */
	if (!tid)
		l->clear_tsc = ft_rdtsc();
	log_trim(l);
}

/* A thread's count of events read through trace_pipe.  Lock held; NULL: out of memory. */
static uint64_t *readc_of(struct mnt_log *l, uint32_t tid)
{
	for (size_t i = 0; i < l->nr_readc; i++)
		if (l->readc[i].tid == tid)
			return &l->readc[i].n;
	if (FT_GROW(l->readc, l->cap_readc, l->nr_readc + 1, 16))
		return NULL;
	l->readc[l->nr_readc].tid = tid;
	l->readc[l->nr_readc].n = 0;
	return &l->readc[l->nr_readc++].n;
}

/*
 * Consume the oldest events (of fh->tid's thread, or all) into fh's
 * buffer: about size bytes, at least one event.  Lock held.  Returns how
 * many bytes, 0 when there is none, -ENOMEM.
 */
static int pipe_take(struct mnt *m, struct mnt_fh *fh, size_t size)
{
	struct mnt_log *l = &m->log;
	size_t want = 0, n = 0;
	char *buf;

	for (size_t i = l->head; i < l->nr && want < size; i++)
		if (!l->ent[i].consumed && (!fh->tid || l->ent[i].tid == fh->tid))
			want += l->ent[i].len;
	if (!want)
		return 0;
	buf = malloc(want);
	if (!buf)
		return -ENOMEM;
	for (size_t i = l->head; i < l->nr && n < want; i++) {
		struct mnt_ent *e = &l->ent[i];
		uint64_t *rc;

		if (e->consumed || (fh->tid && e->tid != fh->tid))
			continue;
		memcpy(buf + n, l->text + e->off, e->len);
		n += e->len;
		e->consumed = 1;
		rc = readc_of(l, e->tid);
		if (rc)
			(*rc)++;
	}
	log_trim(l);
	free(fh->rbuf);
	fh->rbuf = buf;
	fh->rlen = n;
	fh->rpos = 0;
	return (int)n;
}

/* Blocking, consuming read of trace_pipe into fh's buffer.  Lock not held. */
int mnt_trace_pipe_read(struct mnt *m, struct mnt_fh *fh, char *buf, size_t size)
{
	struct mnt_log *l = &m->log;

	for (;;) {
		struct timespec until;
		int r;

		if (fh->rpos < fh->rlen) {
			if (size > fh->rlen - fh->rpos)
				size = fh->rlen - fh->rpos;
			memcpy(buf, fh->rbuf + fh->rpos, size);
			fh->rpos += size;
			return (int)size;
		}
		if (m->trace_fd < 0)
			return -ENODEV;
		pthread_mutex_lock(&m->lock);
		r = pipe_take(m, fh, size);
		if (!r && (l->done || !l->running)) {
			pthread_mutex_unlock(&m->lock);
			return 0; /* the recording is over and read: end of file */
		}
		if (!r) {
			/* woken by the follower's next pass; 100 ms to see an interrupt */
			deadline(&until, 100);
			pthread_cond_timedwait(&l->cond, &m->lock, &until);
		}
		pthread_mutex_unlock(&m->lock);
		if (r < 0)
			return r;
		if (!r && fuse_interrupted())
			return -EINTR;
	}
}

/*
 * The kernel's per_cpu/cpuN/stats, for one thread's rings (every nesting
 * level, live and snapshot sets): entries committed to complete pages,
 * overrun (lost to overwrite), dropped events (no room, newest lost), and
 * read events (consumed through trace_pipe).
 */
char *mnt_thread_stats(struct mnt *m, uint32_t tid, size_t *len)
{
	struct ft_rb_area *a = m->s.area;
	uint64_t written = 0, lost_new = 0, lost_old = 0, read = 0;
	char *buf = NULL;
	FILE *f;

	for (uint32_t s = 0; s < a->nr_slots; s++) {
		struct ft_rb_slotinfo si;
		struct ft_rb_slot *sl;

		ft_rb_slot_info(a, s, &si);
		if (si.state != FT_RB_ACTIVE || si.tid != tid)
			continue;
		sl = ft_rb_slot_at(a, s);
		for (uint32_t set = 0; set < FT_RB_SETS; set++)
			for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
				struct ft_rb_ring *r = ft_rb_slot_ring(sl, set, l);

				written += __atomic_load_n(&r->written, __ATOMIC_RELAXED);
				lost_new += __atomic_load_n(&r->lost_new, __ATOMIC_RELAXED);
				lost_old += __atomic_load_n(&r->lost_old, __ATOMIC_RELAXED);
			}
	}
	for (size_t i = 0; i < m->log.nr_readc; i++)
		if (m->log.readc[i].tid == tid)
			read += m->log.readc[i].n;
	f = open_memstream(&buf, len);
	if (!f)
		return NULL;
	fprintf(f,
		"entries: %llu\noverrun: %llu\ncommit overrun: 0\nbytes: %llu\n"
		"dropped events: %llu\nread events: %llu\n",
		(unsigned long long)written, (unsigned long long)lost_old,
		(unsigned long long)a->page_size * a->npages[0], (unsigned long long)lost_new,
		(unsigned long long)read);
	fclose(f);
	return buf;
}
