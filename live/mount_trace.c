// SPDX-License-Identifier: GPL-2.0
/*
 * `trace` and `trace_pipe` of the live mount, in ftrace's text format
 * (analysis/ftrace_fmt.h), read from the trace file the recorder is
 * writing.
 *
 * Why the file and not the rings: the recorder is the rings' one
 * consuming reader (core/ringbuf.h), and it must stay so -- a second
 * consumer would take records away from the trace file.  What the
 * recorder has drained goes into FILE.partial as complete sections
 * (recorder/urecord.c: at least once a second), which the trace reader
 * reads up to its last complete section while it grows
 * (analysis/trace.h).  So the mount shows what is on its way to disk:
 * complete ring pages, up to about a second after they filled.  Reading
 * never touches the rings, so the traced program never waits for it.
 * The descriptor we keep on the file (found among the recorder's open
 * files) follows it when it is renamed to FILE at the end.
 *
 * Consuming reads, as the kernel's: each user buffer (a thread at one
 * nesting level, the UDATA id) has a count of events consumed; a buffer's
 * events come in the same order at every reading of the growing file, so
 * "the first N events of buffer B" stays the same set.  trace_pipe shows
 * and consumes what is past the counts; trace shows what is past them
 * without consuming; opening trace with O_TRUNC consumes everything so
 * far (the kernel's "echo > trace" clears the buffer trace_pipe reads
 * too), and everything older, still on its way from the rings: events
 * before that moment are not shown any more.  The counts are under m->lock.
 */
#define FUSE_USE_VERSION 31

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fuse.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analysis/ftrace_fmt.h"
#include "analysis/trace.h"
#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/util.h"
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

/* Thread names the trace file does not have yet (its TASKS come at the end). */
struct comm_cache {
	uint32_t tid[64];
	char name[64][17];
	unsigned int nr;
};

/*
 * The name of thread tid of process pid, from /proc while it runs, as the
 * kernel's comm cache gives it; NULL when unknown (then "<...>", as the
 * kernel prints a name it lost).
 */
static const char *live_comm(struct comm_cache *c, uint32_t pid, uint32_t tid)
{
	char path[64], *nl;
	unsigned int i;
	FILE *f;

	for (i = 0; i < c->nr; i++)
		if (c->tid[i] == tid)
			return c->name[i][0] ? c->name[i] : NULL;
	if (c->nr == 64)
		return NULL;
	i = c->nr++;
	c->tid[i] = tid;
	c->name[i][0] = 0;
	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	f = fopen(path, "re");
	if (f) {
		if (fgets(c->name[i], sizeof(c->name[i]), f) && (nl = strchr(c->name[i], '\n')))
			*nl = 0;
		fclose(f);
	}
	return c->name[i][0] ? c->name[i] : NULL;
}

/* The consumed count of buffer id (added at 0 when new). */
static uint64_t *pos_of(struct mnt_bufpos **v, size_t *nr, uint64_t id, uint32_t tid)
{
	for (size_t i = 0; i < *nr; i++)
		if ((*v)[i].id == id)
			return &(*v)[i].n;
	*v = ft_realloc(*v, (*nr + 1) * sizeof(**v));
	(*v)[*nr].id = id;
	(*v)[*nr].n = 0;
	(*v)[*nr].tid = tid;
	return &(*v)[(*nr)++].n;
}

/*
 * The events past the consumed counts, formatted; consume: count them as
 * consumed; header: the kernel's header block first (trace), none
 * (trace_pipe); show: 0 to consume without formatting (trace's O_TRUNC);
 * limit: stop once the text is that long (0: no limit).
 * Caller holds m->lock.  Returns 0 with a malloc'ed text (maybe empty),
 * or -errno.
 */
int mnt_trace_text(struct mnt *m, uint32_t tid, int header, int consume, int show, size_t limit,
		   char **out, size_t *len)
{
	uint64_t options = __atomic_load_n(&ft_session_ctl(m->s.hdr)->options, __ATOMIC_RELAXED);
	struct mnt_bufpos *seen = NULL;
	size_t nr_seen = 0, blen = 0, hlen = 0;
	char err[256], *body = NULL, *head = NULL;
	const struct ft_event *ev;
	uint64_t entries = 0;
	struct ft_fmt *f = NULL;
	struct comm_cache comms = { .nr = 0 };
	struct ft_trace *t;
	FILE *bf, *hf;
	int ret;

	*out = NULL;
	*len = 0;
	if (m->trace_fd < 0)
		return -ENODEV;
	t = ft_trace_open(m->trace_path, err, sizeof(err));
	if (!t)
		return -EAGAIN; /* no complete section yet */
	bf = open_memstream(&body, &blen);
	if (!bf) {
		ft_trace_close(t);
		return -ENOMEM;
	}
	if (show)
		f = ft_fmt_new(t, options, bf);
	else if (!tid) /* "> trace": also what is still on its way from the rings */
		m->clear_ns = ft_trace_tsc_to_ns(t, ft_rdtsc());
	while ((ret = ft_trace_next_ref(t, &ev, err, sizeof(err))) == 1) {
		uint64_t idx = (*pos_of(&seen, &nr_seen, ev->buffer, ev->tid))++;
		uint64_t *cons = pos_of(&m->pos, &m->nr_pos, ev->buffer, ev->tid);

		if (idx < *cons || (tid && ev->tid != tid))
			continue;
		if (consume)
			*cons = idx + 1;
		if (ev->ts < m->clear_ns)
			continue;
		if (ev->type != FT_EV_LOST)
			entries++;
		if (f && !strcmp(ft_trace_comm(t, ev->tid), "<...>")) {
			struct ft_event named = *ev;

			named.comm = live_comm(&comms, ev->pid, ev->tid);
			if (ft_fmt_event(f, &named) < 0)
				break;
		} else if (f && ft_fmt_event(f, ev) < 0) {
			break;
		}
		/*
		 * Enough for the read that asked (trace_pipe): the rest stays
		 * unconsumed, so a reader that goes away loses little.  Not
		 * after an entry: its exit may have been printed with it (leaf).
		 */
		if (f && limit && ev->type != FT_EV_ENTRY) {
			ft_fmt_flush(f);
			fflush(bf);
			if (blen >= limit)
				break;
		}
	}
	/* a cut at the end of a growing file is not an error: what is complete is shown */
	if (f) {
		ft_fmt_flush(f);
		ft_fmt_free(f);
	}
	fclose(bf);
	free(seen);
	if (header) {
		hf = open_memstream(&head, &hlen);
		f = hf ? ft_fmt_new(t, options, hf) : NULL;
		if (f) {
			ft_fmt_header(f, entries, entries + ft_trace_nr_lost(t));
			ft_fmt_flush(f);
			ft_fmt_free(f);
		}
		if (hf)
			fclose(hf);
		if (head) {
			head = ft_realloc(head, hlen + blen + 1);
			memcpy(head + hlen, body, blen + 1);
			free(body);
			body = head;
			blen += hlen;
		}
	}
	ft_trace_close(t);
	*out = body;
	*len = blen;
	return 0;
}

/* Blocking, consuming read of trace_pipe into fh's buffer.  Lock not held. */
int mnt_trace_pipe_read(struct mnt *m, struct mnt_fh *fh, char *buf, size_t size)
{
	struct timespec ts = { 0, 100 * 1000 * 1000 };

	for (;;) {
		int ended = __atomic_load_n(&m->ended, __ATOMIC_RELAXED);
		struct stat st;

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
		if (!fstat(m->trace_fd, &st) && (st.st_size != fh->pipe_size || ended)) {
			char *text;
			size_t len;

			if (!mnt_trace_text(m, fh->tid, 0, 1, 1, size, &text, &len)) {
				/* a pass cut at size: look again at once, unchanged file or not */
				fh->pipe_size = len >= size ? -1 : st.st_size;
				free(fh->rbuf);
				fh->rbuf = text;
				fh->rlen = len;
				fh->rpos = 0;
			}
		}
		pthread_mutex_unlock(&m->lock);
		if (fh->rpos < fh->rlen)
			continue;
		if (ended)
			return 0; /* the recording is over: end of file */
		if (fuse_interrupted())
			return -EINTR;
		nanosleep(&ts, NULL);
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
	for (size_t i = 0; i < m->nr_pos; i++)
		if (m->pos[i].tid == tid)
			read += m->pos[i].n;
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
