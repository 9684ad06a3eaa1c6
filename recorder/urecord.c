// SPDX-License-Identifier: GPL-2.0
/*
 * The user-space recorder (urecord.h): shared memory, spawn, drain, close.
 *
 *   ftrail (this process)                      traced program (+ libftrail.so)
 *   ----------------------                     -------------------------------
 *   memfd (0600, CLOEXEC) = session block      maps the fd named by
 *     ft_session_init + ft_rb_area_init          FTRAIL_SHM_FD (inherited, no
 *   fork -> child waits on the "go" pipe         CLOEXEC in the child only)
 *   ft_urecord_go: one byte -> child execs     writes records into its
 *     with LD_PRELOAD=<libftrail.so>             thread's slot (ringbuf.h)
 *   drain loop, every few ms or when woken     forks: the child claims new
 *     by a half-full ring (futex):               slots in the same block
 *     consume complete pages -> UDATA          execs: the new image maps the
 *     thread gone -> final drain, recycle        block again from the fd
 *     waitpid(-1) (we are a subreaper, so      crashes: its committed records
 *     every descendant comes back to us)         stay in the block
 *   all gone: final drain of every slot,
 *     FUNCS, MODULES, SYMTAB, STACKMAP,
 *     TASKS, META (lost counts, exit status)
 *   lifeline (core/lifeline.h) held from      we die or finish first: the
 *     create to destroy                          runtime sees the lifeline go,
 *                                                switches tracing off, unpatches
 *
 * The memfd has no name in any file system (nothing to unlink), is mode
 * 0600 and is close-on-exec everywhere except in the traced child.  Nothing
 * here needs privileges.
 *
 * The files: urecord.c creates the session, runs the drain loop and its
 * writer thread, and tears down; urec_spawn.c starts the program;
 * urec_snapshot.c saves snapshots; urec_sections.c writes the sections
 * that name the records (FUNCS, MODULES, SYMTAB, STACKMAP) and the end's
 * TASKS and META; urec_int.h holds the state they share.
 *
 * Snapshots (core/ringbuf.h "Snapshot"): when a swap is seen (area
 * snap_state SAVING), one system-wide membarrier, then each ring of the old
 * set, once frozen, is copied whole into the snapshot, drained into UDATA
 * as usual and reset; the snapshot is written as a header and one
 * FT_SEC_SNAPSHOT section per buffer (core/snapshot.h), and the spare is
 * handed back.  Clears and frees write a header of their own.  Losses are
 * shown where they happened, each once (urec_take_page,
 * urec_report_tail_loss, show_noslot): the LOST lines of show add up to
 * the total record prints.
 *
 * Pages are batched per buffer id and written as compressed UDATA chunks
 * (a chunk per buffer when it reaches CHUNK_BYTES, when its slot is
 * recycled, when everything pending exceeds PENDING_MAX, at least once a
 * second so a killed recorder loses no more, and at the end),
 * compressed and appended by a writer thread so the drain loop only copies.
 */
#include <stddef.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/lifeline.h"
#include "core/options.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/tracefile.h"
#include "core/uevent.h"
#include "core/util.h"
#include "recorder/inject.h"
#include "recorder/urec_int.h"
#include "recorder/urecord.h"

#define CHUNK_BYTES (1u << 20)	  /* flush one buffer's pages at this size */
#define PENDING_MAX (16u << 20)	  /* flush everything above this */
#define POLL_MS 5		  /* drain interval when nobody wakes us */
#define BUSY_POLL_MS 1		  /* ... while pages keep coming */
#define DEAD_CHECK_NS 50000000ull /* look for dead threads every 50 ms */
#define QUEUE_MAX (64u << 20)	  /* chunks waiting for the writer thread */
/* pending pages go out at least this often: a killed recorder loses no more */
#define FLUSH_NS 1000000000ull

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* Queue a warning line (deduplicated) for ft_urecord_next_warning(). */
/* Queue line unless it is queued already; u->warn_lock held. */
static void warn_add(struct ft_urecord *u, const char *line, size_t l)
{
	char *nw;

	/* already said? */
	for (size_t i = 0; i < u->warn_len;) {
		size_t e = i;

		while (e < u->warn_len && u->warn[e] != '\n')
			e++;
		if (e - i == l && !memcmp(u->warn + i, line, l))
			return;
		i = e + 1;
	}
	nw = realloc(u->warn, u->warn_len + l + 2);
	if (!nw)
		return;
	u->warn = nw;
	memcpy(u->warn + u->warn_len, line, l);
	u->warn[u->warn_len + l] = '\n';
	u->warn_len += l + 1;
	u->warn[u->warn_len] = 0;
}

void urec_warn(struct ft_urecord *u, const char *fmt, ...)
{
	char line[512];
	va_list ap;
	size_t l;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	l = strlen(line);
	if (!l)
		return;
	pthread_mutex_lock(&u->warn_lock);
	warn_add(u, line, l);
	pthread_mutex_unlock(&u->warn_lock);
}

const char *ft_urecord_next_warning(struct ft_urecord *u)
{
	const char *r = NULL;
	size_t e;

	if (!u)
		return NULL;
	pthread_mutex_lock(&u->warn_lock);
	if (u->warn_pos < u->warn_len) {
		for (e = u->warn_pos; e < u->warn_len && u->warn[e] != '\n'; e++)
			;
		snprintf(u->cur_warn, sizeof(u->cur_warn), "%.*s", (int)(e - u->warn_pos),
			 u->warn + u->warn_pos);
		u->warn_pos = e + 1;
		r = u->cur_warn;
	}
	pthread_mutex_unlock(&u->warn_lock);
	return r;
}

/* Runtime warnings (session rt_msg) not yet queued; final: the writers are gone. */
static void pull_rt_msgs(struct ft_urecord *u, int final)
{
	char line[FT_SESSION_MSG_LINE_MAX + 1];
	uint32_t left;

	if (!u->h)
		return;
	while (ft_session_msg_next(u->h, &u->rt_msg_seen, line, sizeof(line)))
		if (line[0] && !(u->said_noinstr && strstr(line, "no instrumentation")))
			urec_warn(u, "%s", line);
	if (final && (left = ft_session_msg_left(u->h, u->rt_msg_seen)))
		urec_warn(u,
			  "%u runtime warning(s) lost (the message area is full, or the "
			  "program died writing one)",
			  left);
}

/* ---- tasks ---- */

static void read_comm(uint32_t pid, uint32_t tid, char *out, size_t len)
{
	char path[64];
	int fd;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%u/task/%u/comm", pid, tid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	n = read(fd, out, len - 1);
	close(fd);
	if (n <= 0)
		return;
	out[n] = 0;
	if (n && out[n - 1] == '\n')
		out[n - 1] = 0;
}

struct task *urec_task_find(struct ft_urecord *u, uint32_t pid, uint32_t tid)
{
	for (size_t i = 0; i < u->nr_tasks; i++)
		if (u->tasks[i].tid == tid && u->tasks[i].pid == pid)
			return &u->tasks[i];
	return NULL;
}

/*
 * Remember (pid, tid) with its name, read now while it (probably) lives;
 * with reread, read the name again (threads often name themselves after
 * they start; called at the dead-thread cadence, not on every pass).
 */
static void note_task(struct ft_urecord *u, uint32_t pid, uint32_t tid, int reread)
{
	struct task *t;

	if (!pid || !tid)
		return;
	t = urec_task_find(u, pid, tid);
	if (!t) {
		if (u->nr_tasks == u->cap_tasks) {
			size_t nc = u->cap_tasks ? u->cap_tasks * 2 : 64;
			struct task *nt = realloc(u->tasks, nc * sizeof(*nt));

			if (!nt)
				return;
			u->tasks = nt;
			u->cap_tasks = nc;
		}
		t = &u->tasks[u->nr_tasks++];
		t->pid = pid;
		t->tid = tid;
		t->comm[0] = 0;
	}
	if (!t->comm[0] || reread)
		read_comm(pid, tid, t->comm, sizeof(t->comm));
}

void urec_note_task(struct ft_urecord *u, uint32_t pid, uint32_t tid)
{
	note_task(u, pid, tid, 0);
}

int urec_task_gone(uint32_t pid, uint32_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%u/task/%u", pid, tid);
	return stat(path, &st) && errno == ENOENT;
}

/* ---- pending UDATA ---- */

static struct pend *pend_get(struct ft_urecord *u, uint64_t id)
{
	for (size_t i = 0; i < u->nr_pend; i++)
		if (u->pend[i].id == id)
			return &u->pend[i];
	if (u->nr_pend == u->cap_pend) {
		size_t nc = u->cap_pend ? u->cap_pend * 2 : 32;
		struct pend *np = realloc(u->pend, nc * sizeof(*np));

		if (!np)
			return NULL;
		u->pend = np;
		u->cap_pend = nc;
	}
	memset(&u->pend[u->nr_pend], 0, sizeof(struct pend));
	u->pend[u->nr_pend].id = id;
	return &u->pend[u->nr_pend++];
}

/*
 * The writer thread: compresses and appends UDATA chunks handed over by the
 * drain loop, so draining (copying pages out of the rings) never waits for
 * zstd.  One thread and a FIFO: chunks of one buffer land in order.  The
 * queue is bounded (QUEUE_MAX bytes); when it is full the drain loop writes
 * the chunk itself (back-pressure, never unbounded memory) -- but only when
 * no chunk of the same buffer is queued or being written: readers take a
 * buffer's chunks in file order, and one written around the queue would
 * land before older pages of its buffer.  Otherwise the drain loop waits
 * for room (q->room, signalled after each chunk).
 */
struct chunk {
	struct chunk *next;
	uint32_t type; /* FT_SEC_UDATA (compressed), or FT_SEC_META (a stream watermark) */
	uint64_t id;
	char *buf;
	size_t len;
};

struct wqueue {
	pthread_mutex_t lock;
	pthread_cond_t cond; /* a chunk was queued, or quit */
	pthread_cond_t room; /* a chunk was written: bytes went down */
	struct chunk *head, *tail;
	size_t bytes;
	const struct chunk *cur; /* the chunk being written (writer thread), or NULL */
	int quit;
	int failed; /* a write failed (errno in saved_errno) */
	int saved_errno;
	int running;
	pthread_t th;
	struct ft_writer *w;
	struct ft_urecord *u;
};

/*
 * The writer thread: for each queued chunk, first the names its records
 * need (urec_sync_tables: reading ELF symbol tables takes milliseconds, kept
 * off the drain loop), then the chunk.  Ordering: every fid, module and
 * stack a chunk names was published by the runtime (release) before the
 * drain loop consumed the chunk's pages (acquire); the drain loop then
 * queued the chunk under q->lock, which we took to dequeue it, so the
 * acquire loads in urec_sync_tables see them all.
 */
static void *writer_main(void *arg)
{
	struct wqueue *q = arg;

	pthread_mutex_lock(&q->lock);
	for (;;) {
		struct chunk *c = q->head;

		if (!c) {
			if (q->quit)
				break;
			pthread_cond_wait(&q->cond, &q->lock);
			continue;
		}
		q->head = c->next;
		if (!q->head)
			q->tail = NULL;
		q->cur = c;
		pthread_mutex_unlock(&q->lock);
		if (urec_sync_tables(q->u, q->w, 0) ||
		    ft_writer_add(q->w, c->type, c->id, c->buf, c->len, c->type == FT_SEC_UDATA)) {
			pthread_mutex_lock(&q->lock);
			q->failed = 1;
			q->saved_errno = errno;
			pthread_mutex_unlock(&q->lock);
		}
		pthread_mutex_lock(&q->lock);
		q->bytes -= c->len;
		q->cur = NULL;
		pthread_cond_broadcast(&q->room);
		free(c->buf);
		free(c);
	}
	pthread_mutex_unlock(&q->lock);
	return NULL;
}

static void queue_start(struct ft_urecord *u, struct ft_writer *w)
{
	struct wqueue *q = u->q;

	q->w = w;
	q->u = u;
	q->running = !pthread_create(&q->th, NULL, writer_main, q);
	/* seen in ps -L and top -H beside the drain loop (a name, nothing depends on it) */
	if (q->running)
		pthread_setname_np(q->th, "ftrail-writer");
}

/* Wait until every queued chunk is written; returns -1 when one failed. */
static int queue_stop(struct ft_urecord *u)
{
	struct wqueue *q = u->q;

	if (q->running) {
		pthread_mutex_lock(&q->lock);
		q->quit = 1;
		pthread_cond_signal(&q->cond);
		pthread_mutex_unlock(&q->lock);
		pthread_join(q->th, NULL);
		q->running = 0;
	}
	if (q->failed)
		errno = q->saved_errno;
	return q->failed ? -1 : 0;
}

/* Is a UDATA chunk of buffer id queued or being written?  q->lock held. */
static int queue_holds(const struct wqueue *q, uint64_t id)
{
	if (q->cur && q->cur->type == FT_SEC_UDATA && q->cur->id == id)
		return 1;
	for (const struct chunk *c = q->head; c; c = c->next)
		if (c->type == FT_SEC_UDATA && c->id == id)
			return 1;
	return 0;
}

static int pend_flush(struct ft_urecord *u, struct ft_writer *w, struct pend *p)
{
	struct wqueue *q = u->q;
	struct chunk *c;
	int r = 0;

	if (!p->len)
		return 0;
	c = q->running ? malloc(sizeof(*c)) : NULL;
	pthread_mutex_lock(&q->lock);
	/* written here (a full queue, no memory) only behind its buffer's older chunks */
	while (q->running && (!c || q->bytes + p->len > QUEUE_MAX) && queue_holds(q, p->id))
		pthread_cond_wait(&q->room, &q->lock);
	if (c && q->bytes + p->len <= QUEUE_MAX) {
		/* hand the buffer over; the next page starts a new one */
		c->next = NULL;
		c->type = FT_SEC_UDATA;
		c->id = p->id;
		c->buf = p->buf;
		c->len = p->len;
		if (q->tail)
			q->tail->next = c;
		else
			q->head = c;
		q->tail = c;
		q->bytes += p->len;
		pthread_cond_signal(&q->cond);
		pthread_mutex_unlock(&q->lock);
		p->buf = NULL;
		p->cap = 0;
	} else {
		pthread_mutex_unlock(&q->lock);
		free(c);
		/* written here: the names it needs first, as the writer thread does */
		r = urec_sync_tables(u, w, 0);
		r |= ft_writer_add(w, FT_SEC_UDATA, p->id, p->buf, p->len, 1);
	}
	u->pend_bytes -= p->len;
	p->len = 0;
	return r;
}

/* Flush and forget the buffers of one slot life (slot, gen). */
static int pend_flush_slot(struct ft_urecord *u, struct ft_writer *w, uint32_t slot, uint32_t gen)
{
	int r = 0;

	for (size_t i = 0; i < u->nr_pend;) {
		struct pend *p = &u->pend[i];

		if (ft_rb_id_slot(p->id) == slot && ft_rb_id_gen(p->id) == gen) {
			r |= pend_flush(u, w, p);
			free(p->buf);
			*p = u->pend[--u->nr_pend];
			continue;
		}
		i++;
	}
	return r;
}

static int pend_flush_all(struct ft_urecord *u, struct ft_writer *w)
{
	int r = 0;

	for (size_t i = 0; i < u->nr_pend; i++)
		r |= pend_flush(u, w, &u->pend[i]);
	return r;
}

/*
 * Append len bytes to p's buffer, growing it (64 KiB, then doubling).
 * Returns 0, or -1 (ENOMEM) with p unchanged.
 */
int urec_pend_append(struct pend *p, const void *data, size_t len)
{
	if (p->len + len > p->cap) {
		size_t nc = p->cap ? p->cap * 2 : 64 * 1024;
		char *nb;

		while (nc < p->len + len)
			nc *= 2;
		nb = realloc(p->buf, nc);
		if (!nb)
			return -1;
		p->buf = nb;
		p->cap = nc;
	}
	memcpy(p->buf + p->len, data, len);
	p->len += len;
	return 0;
}

static int pend_add(struct ft_urecord *u, struct ft_writer *w, const struct ft_rb_pageinfo *info,
		    const void *page)
{
	struct pend *p = pend_get(u, info->buf_id);

	if (!p || urec_pend_append(p, page, info->len))
		return -1;
	u->pend_bytes += info->len;
	if (p->len >= CHUNK_BYTES)
		return pend_flush(u, w, p);
	return 0;
}

/* ---- draining ---- */

/*
 * Streaming (record -o -, live/stream.h): the stream follows the trace
 * file, so whatever was recorded must reach it within a bounded time --
 * also the records of a thread that writes a few and then sleeps, whose
 * page may take minutes to fill.  So in stream mode each pass also takes
 * what was committed to the page being written (ft_rb_peek_set: the
 * committed bytes, read after the writer's release of the size), as a
 * page of its own; when the page is complete and consumed, what was taken
 * is cut from its front (urec_stream.c).  A piece after the first has
 * depth FT_PAGE_DEPTH_CONT and the time of the record before it as its
 * ts, so a reader decodes the pieces as the whole page.  Losses and
 * event counts are split between the pieces and add up to the page's.
 *
 * Then every STREAM_WM_NS a watermark goes out after the chunks, through
 * the writer thread's FIFO: META stream_watermark=T (ticks) says every
 * record stamped before T is in the file before it.  T is the clock at
 * the start of the pass minus STREAM_SLACK_NS: a writer reads the clock
 * before it reserves room, and one preempted in between commits a record
 * older than the pass; the slack covers such a delay (the stream counts
 * any record that comes later still, and says so).
 */
#define STREAM_WM_NS 200000000ull    /* a watermark (and a flush) this often */
#define STREAM_SLACK_NS 200000000ull /* a writer delayed this long between clock and commit */

/* Start streaming (see above): 0, or -1 when out of memory. */
static int stream_begin(struct ft_urecord *u)
{
	struct ft_clock clk;

	u->spart = calloc(RIDX(u->area->nr_slots, 0, 0), sizeof(*u->spart));
	if (!u->spart)
		return -1;
	ft_clock_calibrate(&clk);
	u->stream_slack = (uint64_t)(((unsigned __int128)STREAM_SLACK_NS << clk.shift) /
				     (clk.mult ? clk.mult : 1));
	return 0;
}

/*
 * A tool made the session live after it started (`ftrail mount` on a
 * recording started without --mount: live/mount.c make_live): stream from
 * this pass on, as record --mount does, so that its trace and trace_pipe
 * are as live as a --mount one's.  The pages being written then are empty
 * of pieces taken (spart zeroed): their first piece starts at the page's
 * start, which nothing has taken yet.  Not for a flight recorder (it
 * writes nothing until a trigger).
 */
static void stream_when_live(struct ft_urecord *u)
{
	if (u->spart || u->stream_failed || u->o->flight || !u->h ||
	    !__atomic_load_n(&ft_session_ctl(u->h)->live, __ATOMIC_RELAXED))
		return;
	if (stream_begin(u)) {
		u->stream_failed = 1;
		urec_warn(u, "out of memory: a live mount shows events as their pages are written");
	}
}

/*
 * Stream mode: take what was committed to the page being written of ring
 * (s, set, l) since the last look, as a page of its own (urec_stream.c).
 * 0, or -1 when writing failed.
 */
static int stream_take_partial(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
			       uint32_t l)
{
	struct ft_rb_pageinfo info;
	int r = 0, got, pages = 0;

	/* pages completed since the pass consumed them go first, a few at most */
	while ((got = urec_piece_take(u->area, s, set, l, &u->spart[RIDX(s, set, l)], u->page,
				      &info)) == 2) {
		r |= urec_take_page(u, w, s, set, l, &info);
		if (++pages == 8)
			break;
	}
	if (got < 0 || got == 2) {
		u->stream_behind = 1;
		return r;
	}
	if (!got)
		return r;
	u->events += info.nev;
	u->bytes += info.len - sizeof(struct ft_page);
	u->reported[RIDX(s, set, l)] += info.lost;
	return r | pend_add(u, w, &info, u->page);
}

/*
 * Stream mode, after a pass: every STREAM_WM_NS, flush what is pending
 * and queue the watermark behind it (see "Streaming").  0, or -1.
 */
static int stream_watermark(struct ft_urecord *u, struct ft_writer *w, uint64_t pass_ticks,
			    uint64_t now)
{
	struct wqueue *q = u->q;
	struct chunk *c;
	char line[64];
	uint64_t slack = u->stream_slack;
	int n, r;

	if (now - u->stream_wm_last < STREAM_WM_NS || u->stream_behind)
		return 0;
	u->stream_wm_last = now;
	r = pend_flush_all(u, w);
	/* the names of what went before: threads, user event formats */
	r |= urec_write_tasks(u, w);
	if (u->stream_sync)
		r |= u->stream_sync(w, u->stream_sync_arg, &pass_ticks);
	n = snprintf(line, sizeof(line), "stream_watermark=%llu\n",
		     (unsigned long long)(pass_ticks > slack ? pass_ticks - slack : 0));
	if (!q->running)
		return r | urec_sync_tables(u, w, 0) |
		       ft_writer_add(w, FT_SEC_META, 0, line, (size_t)n, 0);
	c = malloc(sizeof(*c));
	if (c)
		c->buf = malloc((size_t)n);
	if (!c || !c->buf) {
		/*
		 * No memory to queue it: written here it would pass the chunks
		 * still queued and claim records not in the file yet.  The
		 * next pass tries again.
		 */
		free(c);
		u->stream_wm_last = 0;
		return r;
	}
	memcpy(c->buf, line, (size_t)n);
	c->next = NULL;
	c->type = FT_SEC_META;
	c->id = 0;
	c->len = (size_t)n;
	pthread_mutex_lock(&q->lock);
	if (q->tail)
		q->tail->next = c;
	else
		q->head = c;
	q->tail = c;
	q->bytes += c->len;
	pthread_cond_signal(&q->cond);
	pthread_mutex_unlock(&q->lock);
	return r;
}

/* Buffer id of the losses of threads that got no slot (no thread of its own). */
#define NOSLOT_BUF ft_rb_buf_id((1u << 30) - 1, 0, 0)

/* A page that holds nothing but a loss of n events (n may exceed a page's u32). */
static int add_lost_page(struct ft_urecord *u, struct ft_writer *w, uint64_t buf_id, uint64_t n,
			 uint64_t ts, uint32_t pid, uint32_t tid, uint32_t level, uint32_t seq)
{
	struct ft_rb_pageinfo info = { 0 };
	struct ft_page pg = { 0 };
	int r = 0;

	while (n && !r) {
		pg.ts = ts;
		pg.lost = n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
		pg.tid = tid;
		pg.pid = pid;
		pg.level = (uint16_t)level;
		pg.seq = seq;
		n -= pg.lost;
		info.buf_id = buf_id;
		info.len = sizeof(pg);
		r = pend_add(u, w, &info, &pg);
	}
	return r;
}

/*
 * Events dropped because handlers nested deeper than FT_RB_LEVELS: the
 * writers count them in the slot (nest_lost, atomic); take them into the
 * slot's carry, to be shown on the next level-0 page of that thread.
 */
static void take_nest_lost(struct ft_urecord *u, uint32_t s)
{
	struct ft_rb_slot *sl = ft_rb_slot_at(u->area, s);

	if (__atomic_load_n(&sl->nest_lost, __ATOMIC_RELAXED))
		u->nest_carry[s] += __atomic_exchange_n(&sl->nest_lost, 0, __ATOMIC_RELAXED);
}

/* Hand a consumed page (in u->page) to UDATA, with the nest carry on level 0. */
int urec_take_page(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set, uint32_t l,
		   struct ft_rb_pageinfo *info)
{
	struct ft_page *pg = (struct ft_page *)u->page;

	if (u->spart)
		urec_piece_strip(&u->spart[RIDX(s, set, l)], u->page, info);
	u->events += info->nev;
	u->bytes += info->len - sizeof(struct ft_page);
	u->pages++;
	u->reported[RIDX(s, set, l)] += info->lost;
	if (!l && u->nest_carry[s] && pg->lost + u->nest_carry[s] <= UINT32_MAX) {
		pg->lost += (uint32_t)u->nest_carry[s];
		info->lost = pg->lost;
		u->nest_carry[s] = 0;
	}
	return pend_add(u, w, info, u->page);
}

/*
 * A ring's writer is gone: losses its pages never reported (events dropped
 * after its last page began, or overwritten after the last page we read)
 * get a page of their own, with no records, at the end of that buffer, so
 * readers show them where they happened -- at the end -- not only in the
 * totals.  Its time is now: after everything the thread wrote.
 */
int urec_report_tail_loss(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
			  uint32_t l, const struct ft_rb_slotinfo *si, uint64_t ts)
{
	struct ft_rb_ring *r = ft_rb_slot_ring(ft_rb_slot_at(u->area, s), set, l);
	uint64_t total = __atomic_load_n(&r->lost_new, __ATOMIC_RELAXED) +
			 __atomic_load_n(&r->lost_old, __ATOMIC_RELAXED);
	uint64_t *rep = &u->reported[RIDX(s, set, l)];
	uint64_t n = total > *rep ? total - *rep : 0;

	if (!l) {
		take_nest_lost(u, s);
		n += u->nest_carry[s];
		u->nest_carry[s] = 0;
	}
	if (total > *rep)
		*rep = total;
	return add_lost_page(u, w, ft_rb_buf_id(s, l, si->gen), n, ts, si->pid, si->tid, l,
			     (uint32_t)__atomic_load_n(&r->wpage, __ATOMIC_RELAXED) + 1);
}

/*
 * One pass over every slot.  everything = 1 at the end (no writer left):
 * partial pages are taken too.  Returns 0, or -1 when writing failed.
 */
/*
 * Events of threads that found no slot: shown in a buffer of their own
 * (NOSLOT_BUF, tid 0), at the time we noticed them.
 */
static int show_noslot(struct ft_urecord *u, struct ft_writer *w)
{
	uint64_t n = __atomic_load_n(&u->area->lost_noslot, __ATOMIC_RELAXED);
	int r;

	if (n <= u->noslot_shown)
		return 0;
	r = add_lost_page(u, w, NOSLOT_BUF, n - u->noslot_shown, ft_rdtsc(),
			  u->pid > 0 ? (uint32_t)u->pid : 0, 0, 0, 0);
	u->noslot_shown = n;
	return r;
}

static int drain(struct ft_urecord *u, struct ft_writer *w, int everything)
{
	struct ft_rb_area *a = u->area;
	struct ft_rb_pageinfo info;
	int check_dead = 0, r = 0;
	uint64_t now = mono_ns(), pass_ticks = ft_rdtsc();

	u->stream_behind = 0;
	if (!everything)
		stream_when_live(u);
	r |= urec_snap_poll(u, w);
	ft_rb_reader_alive(a);
	{
		struct stat st;

		/* resident shared memory: rings are allocated when first written */
		if (!fstat(u->memfd, &st) && (uint64_t)st.st_blocks * 512 > u->peak_bytes)
			u->peak_bytes = (uint64_t)st.st_blocks * 512;
	}

	if (now - u->last_dead_check > DEAD_CHECK_NS) {
		check_dead = 1;
		u->last_dead_check = now;
	}
	/*
	 * The layout fields of the area header are fixed at creation; a
	 * traced program that scribbled over them must not make us read out
	 * of bounds: put them back (the counters after them are left alone).
	 */
	{
		const size_t l1 = offsetof(struct ft_rb_area, flags);
		const size_t o2 = offsetof(struct ft_rb_area, slots_off);
		const size_t l2 = offsetof(struct ft_rb_area, claim_hint) - o2;

		if (memcmp(a, &u->area_copy, l1) ||
		    memcmp((char *)a + o2, (char *)&u->area_copy + o2, l2)) {
			memcpy(a, &u->area_copy, l1);
			memcpy((char *)a + o2, (char *)&u->area_copy + o2, l2);
			urec_warn(u, "the traced program overwrote the ring buffer's layout "
				     "(restored; its records may be lost)");
		}
	}
	if (u->o->flight) {
		/* nothing is drained: the rings are the record (urec_flight.c) */
		if (check_dead)
			r |= urec_flight_pass(u, w, everything);
		else if (u->snap_saving || everything)
			r |= urec_flight_pass(u, w, everything);
		return r;
	}
	for (uint32_t s = 0; s < a->nr_slots; s++) {
		struct ft_rb_slotinfo si;
		int final, skipped;

		ft_rb_slot_info(a, s, &si);
		if (si.state == FT_RB_FREE)
			continue;
		note_task(u, si.pid, si.tid, check_dead && si.state == FT_RB_ACTIVE);
		/*
		 * A thread that died without detaching (killed with its
		 * process, _exit from another thread): nobody writes there
		 * any more, take everything.  pid 0: claimed a moment ago.
		 */
		if (si.state == FT_RB_ACTIVE && check_dead && !everything && si.pid &&
		    urec_task_gone(si.pid, si.tid) && !ft_rb_slot_reap(a, s))
			si.state = FT_RB_EXITED;
		final = everything || si.state == FT_RB_EXITED;
		take_nest_lost(u, s);
		skipped = 0;
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
			uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;

			/*
			 * Pages of one buffer go out in order: the old set's
			 * before the live set's.  While a snapshot is being
			 * saved (no other swap can happen then, so `live` is
			 * exact), a frozen old ring is saved, drained and
			 * reset; one not frozen yet gives its complete pages
			 * and the live ring waits.  Otherwise the old set is
			 * empty -- unless a swap happened since this pass
			 * began: then this ring waits for the next pass, which
			 * saves it.  (`live` read before that swap names the
			 * set that is old now: draining it is right.)
			 */
			if (u->snap_saving) {
				if (!(u->snap_done[s] & (1u << l))) {
					if (everything || ft_rb_ring_frozen(a, s, live ^ 1, l)) {
						r |= urec_snap_save_ring(u, w, s, live ^ 1, l, &si);
						u->snap_done[s] |= (uint8_t)(1u << l);
					} else {
						while (ft_rb_consume_set(a, s, live ^ 1, l, 0,
									 u->page, &info) == 1)
							r |= urec_take_page(u, w, s, live ^ 1, l,
									    &info);
						skipped = 1;
						u->stream_behind = 1;
						continue;
					}
				}
			} else if (ft_rb_ring_unread(a, s, live ^ 1, l)) {
				skipped = 1;
				u->stream_behind = 1; /* its live ring waits */
				continue;
			}
			while (ft_rb_consume_set(a, s, live, l, final, u->page, &info) == 1)
				r |= urec_take_page(u, w, s, live, l, &info);
			if (u->spart && !final)
				r |= stream_take_partial(u, w, s, live, l);
			if (final)
				r |= urec_report_tail_loss(u, w, s, live, l, &si, ft_rdtsc());
		}
		if (si.state == FT_RB_EXITED && !everything && !skipped &&
		    (!u->snap_saving || u->snap_done[s] == (1u << FT_RB_LEVELS) - 1)) {
			r |= pend_flush_slot(u, w, s, si.gen);
			ft_rb_slot_recycle(a, s);
			memset(&u->reported[RIDX(s, 0, 0)], 0,
			       FT_RB_SETS * FT_RB_LEVELS * sizeof(uint64_t));
			if (u->spart)
				memset(&u->spart[RIDX(s, 0, 0)], 0,
				       FT_RB_SETS * FT_RB_LEVELS * sizeof(*u->spart));
			u->nest_carry[s] = 0;
		}
	}
	if (u->snap_saving) {
		/* slots free now have nothing in either set (recycled or never used) */
		for (uint32_t s = 0; s < a->nr_slots; s++) {
			struct ft_rb_slotinfo si;

			ft_rb_slot_info(a, s, &si);
			if (si.state == FT_RB_FREE)
				u->snap_done[s] = (1u << FT_RB_LEVELS) - 1;
		}
		r |= urec_snap_finish(u, w);
	}
	r |= show_noslot(u, w);
	if (u->spart && !everything)
		r |= stream_watermark(u, w, pass_ticks, now);
	if (u->pend_bytes > PENDING_MAX || now - u->last_flush > FLUSH_NS) {
		r |= pend_flush_all(u, w);
		u->last_flush = now;
	}
	return r;
}

/* ---- setup ---- */

/*
 * The runtime the program gets preloaded: $FTRAIL_LIB, else libftrail.so
 * next to the ftrail binary (a build tree), else ../lib/ftrail/libftrail.so
 * relative to it (what `make install` lays out under any PREFIX, DESTDIR
 * staging included).  Returns 0 with the path in out, or -1 with a reason.
 */
static int find_lib(char *out, size_t len, char *err, size_t errlen)
{
	static const char *const rel[] = { "libftrail.so", "../lib/ftrail/libftrail.so" };
	const char *env = getenv("FTRAIL_LIB");
	char self[PATH_MAX];
	ssize_t n;
	char *slash;

	if (env && *env) {
		if (access(env, R_OK)) {
			snprintf(err, errlen, "FTRAIL_LIB=%s: %s", env, strerror(errno));
			return -1;
		}
		snprintf(out, len, "%s", env);
		return 0;
	}
	n = readlink("/proc/self/exe", self, sizeof(self) - 1);
	if (n < 0) {
		snprintf(err, errlen, "cannot find the ftrail binary: %s", strerror(errno));
		return -1;
	}
	self[n] = 0;
	slash = strrchr(self, '/');
	if (slash)
		*slash = 0;
	for (size_t i = 0; i < sizeof(rel) / sizeof(rel[0]); i++)
		if ((size_t)snprintf(out, len, "%s/%s", self, rel[i]) < len && !access(out, R_OK))
			return 0;
	snprintf(err, errlen,
		 "cannot find the runtime libftrail.so in %s or %s/../lib/ftrail (set FTRAIL_LIB)",
		 self, self);
	return -1;
}

/* Does a function command or an event trigger take snapshots? */
static int wants_snapshot(const struct ft_record_opts *o)
{
	for (size_t i = 0; i < o->filter.n; i++)
		if (strstr(o->filter.v[i], ":snapshot"))
			return 1;
	for (size_t i = 0; i < o->nr_events; i++)
		if (o->events[i].trigger && strstr(o->events[i].trigger, "snapshot"))
			return 1;
	return 0;
}

struct ft_urecord *ft_urecord_create(const struct ft_record_opts *o, int inject, char *err,
				     size_t errlen)
{
	struct ft_clock clk;
	struct ft_urecord *u = calloc(1, sizeof(*u));
	struct ft_rb_params p;
	char lerr[160];
	size_t ring_size;
	void *ring;

	if (!u) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	u->o = o;
	u->inject = inject;
	u->q = calloc(1, sizeof(*u->q));
	if (!u->q) {
		free(u);
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	pthread_mutex_init(&u->q->lock, NULL);
	pthread_cond_init(&u->q->cond, NULL);
	pthread_cond_init(&u->q->room, NULL);
	pthread_mutex_init(&u->sync_lock, NULL);
	pthread_mutex_init(&u->warn_lock, NULL);
	u->memfd = u->go_fd = u->err_fd = u->life.fd = -1;
	u->pid = -1;
	if (o->attach_pid) {
		char exe[64], comm[32] = "?";
		ssize_t n;

		snprintf(exe, sizeof(exe), "/proc/%d/exe", (int)o->attach_pid);
		n = readlink(exe, u->prog, sizeof(u->prog) - 1);
		u->prog[n > 0 ? n : 0] = 0;
		read_comm((uint32_t)o->attach_pid, (uint32_t)o->attach_pid, comm, sizeof(comm));
		snprintf(u->name, sizeof(u->name), "process %d (%s)", (int)o->attach_pid, comm);
	} else if (!o->argv ||
		   urec_find_program(o->argv[0], u->prog, sizeof(u->prog), err, errlen)) {
		goto fail;
	} else {
		snprintf(u->name, sizeof(u->name), "%s", o->argv[0]);
	}
	if (!inject)
		return u;
	if (find_lib(u->lib, sizeof(u->lib), err, errlen))
		goto fail;

	ft_rb_params_default(&p, o->buffer_kb, o->flight || (o->options & FT_OPT(OVERWRITE)));
	/* lossless by default: writers wait for the drain (ringbuf.h, "Blocking mode") */
	if ((o->options & FT_OPT(BLOCK)) && !(o->options & FT_OPT(OVERWRITE)))
		p.flags |= FT_RB_F_BLOCK;
	ring_size = ft_rb_area_size(&p);
	u->len = ft_session_size(o, ring_size);
	u->memfd = memfd_create("ftrail-session", MFD_CLOEXEC);
	if (u->memfd < 0) {
		snprintf(err, errlen, "cannot create the shared memory: %s", strerror(errno));
		goto fail;
	}
	if (fchmod(u->memfd, 0600) || ftruncate(u->memfd, (off_t)u->len)) {
		snprintf(err, errlen, "cannot size the shared memory (%zu bytes): %s", u->len,
			 strerror(errno));
		goto fail;
	}
	u->mem = mmap(NULL, u->len, PROT_READ | PROT_WRITE, MAP_SHARED, u->memfd, 0);
	if (u->mem == MAP_FAILED) {
		u->mem = NULL;
		snprintf(err, errlen, "cannot map the shared memory (%zu bytes): %s", u->len,
			 strerror(errno));
		goto fail;
	}
	/* ticks for tracing_thresh; the tool's own calibration goes to META */
	if (o->thresh_us)
		ft_clock_calibrate(&clk);
	if (ft_session_init(u->mem, u->len, o, ring_size, o->thresh_us ? &clk : NULL, err, errlen))
		goto fail;
	u->h = ft_session_check(u->mem, u->len, err, errlen);
	if (!u->h)
		goto fail;
	ring = ft_session_ring(u->h, &ring_size);
	u->area = ft_rb_area_init(ring, ring_size, &p);
	if (!u->area) {
		snprintf(err, errlen, "cannot format the ring buffer area (%zu bytes)", ring_size);
		goto fail;
	}
	u->area_copy = *u->area;
	/*
	 * Without it a recorder that dies (SIGKILL, crash) leaves the program
	 * traced into buffers nobody drains: say so, but record anyway.
	 */
	if (ft_lifeline_create(&u->life, lerr, sizeof(lerr)))
		urec_warn(u, "%s; if ftrail dies, %s stays traced until it exits", lerr, u->name);
	/*
	 * The spare ring set: allocated up front when asked (--snapshot-alloc)
	 * or when a snapshot trigger / function command is set, as ftrace
	 * allocates it when such a trigger is registered.  It costs address
	 * space only until a swap writes into it.
	 */
	if (o->snapshot_alloc || wants_snapshot(o) || o->flight)
		ft_rb_snapshot_alloc(u->area);
	/* --last in ticks, for leaving out pages older than a dump's window */
	if (o->flight && o->flight_last_ms) {
		ft_clock_calibrate(&clk);
		u->fl_window =
			(uint64_t)(((unsigned __int128)o->flight_last_ms * 1000000u << clk.shift) /
				   (clk.mult ? clk.mult : 1));
	}
	u->reported = calloc(RIDX(u->area->nr_slots, 0, 0), sizeof(*u->reported));
	u->nest_carry = calloc(u->area->nr_slots, sizeof(*u->nest_carry));
	u->snap_done = calloc(u->area->nr_slots, 1);
	if (!u->reported || !u->nest_carry || !u->snap_done) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	if (o->follow && stream_begin(u)) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	u->page = malloc(u->area->page_size);
	if (!u->page) {
		snprintf(err, errlen, "out of memory");
		goto fail;
	}
	return u;
fail:
	ft_urecord_destroy(u);
	return NULL;
}

/* ---- the run ---- */

/* ---- attaching to a running process (-P) ---- */

#define RTLD_NOW_ 0x2 /* <dlfcn.h>'s values, as the target's libc reads them */
#define RTLD_NODELETE_ 0x1000
#define INJECT_TIMEOUT_MS 10000

/* Call fn in the stopped process; *ret its value.  0, or -1 with err. */
static int call_in(struct ft_inject *in, uint64_t fn, const uint64_t *args, int nargs,
		   const char *str, uint64_t *ret, char *err, size_t errlen)
{
	return ft_inject_call(in, fn, args, nargs, str, ret, INJECT_TIMEOUT_MS, err, errlen);
}

/* dlopen() in the process, and why it failed (its dlerror()). */
static int inject_dlopen(struct ft_urecord *u, struct ft_inject *in, char *err, size_t errlen)
{
	uint64_t fn = ft_inject_sym(in, "libc.so", "dlopen"), h = 0, msg = 0;
	uint64_t args[2] = { 0, RTLD_NOW_ | RTLD_NODELETE_ };
	char why[256] = "";

	if (!fn) /* glibc before 2.34: libdl, else libc's private entry */
		fn = ft_inject_sym(in, "libdl.so", "dlopen");
	if (!fn)
		fn = ft_inject_sym(in, "libc.so", "__libc_dlopen_mode");
	if (!fn) {
		ft_seterr(err, errlen,
			  "%s has no dlopen() in a libc ftrail knows (glibc): the runtime cannot "
			  "be loaded into it",
			  u->name);
		return -1;
	}
	if (call_in(in, fn, args, 2, u->lib, &h, err, errlen))
		return -1;
	if (h)
		return 0;
	fn = ft_inject_sym(in, "libc.so", "dlerror");
	if (fn && !call_in(in, fn, NULL, 0, NULL, &msg, err, errlen) && msg &&
	    !ft_inject_read(in, msg, why, sizeof(why) - 1)) {
		why[sizeof(why) - 1] = 0;
	} else {
		/* the string may end before a page that cannot be read: byte by byte */
		for (size_t i = 0; msg && i < sizeof(why) - 1; i++)
			if (ft_inject_read(in, msg + i, why + i, 1) || !why[i])
				break;
	}
	ft_seterr(err, errlen, "cannot load %s into %s: %s", u->lib, u->name,
		  why[0] ? why : "dlopen failed");
	return -1;
}

void ft_urecord_set_flight_kdump(struct ft_urecord *u,
				 int (*fn)(void *arg, unsigned int snap, char *err, size_t errlen),
				 void *arg)
{
	u->flight_kdump = fn;
	u->flight_kdump_arg = arg;
}

void ft_urecord_set_stream_sync(struct ft_urecord *u,
				int (*fn)(struct ft_writer *w, void *arg, uint64_t *wm), void *arg)
{
	u->stream_sync = fn;
	u->stream_sync_arg = arg;
}

const char *ft_urecord_name(const struct ft_urecord *u)
{
	return u->name;
}

int ft_urecord_attach(struct ft_urecord *u, char *err, size_t errlen)
{
	pid_t pid = u->o->attach_pid;
	uint64_t fn, rc = 0, t0 = mono_ns();
	uint64_t args[5] = { (uint64_t)getpid(), (uint64_t)u->memfd, (uint64_t)(int64_t)u->life.fd,
			     0, (uint64_t)(int64_t)-1 };
	const char *uev = getenv(FT_UEV_ENV_FD); /* -e u:...: uevent_setup.c made the area */
	char other[PATH_MAX];
	struct ft_inject *in;

	if (!u->area) {
		ft_seterr(err, errlen, "nothing to attach: the runtime is not needed");
		return -1;
	}
	in = ft_inject_stop(pid, err, errlen);
	if (!in)
		return -1;
	fn = ft_inject_sym(in, u->lib, "ftrail_attach");
	if (!fn && ft_inject_mapped(in, "libftrail", other, sizeof(other))) {
		ft_seterr(err, errlen,
			  "%s already runs another ftrail runtime (%s): record it with the ftrail "
			  "it came with",
			  u->name, other);
		goto fail;
	}
	if (!fn) {
		if (inject_dlopen(u, in, err, errlen))
			goto fail;
		fn = ft_inject_sym(in, u->lib, "ftrail_attach");
	}
	if (!fn) {
		ft_seterr(err, errlen, "%s has no ftrail_attach: an older runtime?", u->lib);
		goto fail;
	}
	urec_noinstr_say(u, u->name);
	/* its thread's pc: --patch never overwrites the bytes it resumes in */
	args[3] = ft_inject_caller_pc(in);
	if (uev && *uev)
		args[4] = (uint64_t)(int64_t)atoi(uev);
	if (call_in(in, fn, args, 5, NULL, &rc, err, errlen))
		goto fail;
	if ((int)rc) {
		int e = -(int)rc;

		if (e == EBUSY)
			ft_seterr(err, errlen,
				  "%s is already traced by ftrail (started under ftrail record, or "
				  "attached by another ftrail record -P)",
				  u->name);
		else
			ft_seterr(err, errlen, "the runtime in %s cannot open the session: %s",
				  u->name, strerror(e));
		goto fail;
	}
	u->threads_at_attach = ft_inject_nr_threads(in);
	ft_inject_resume(in);
	u->attached = 1;
	u->went = 1;
	u->pid = pid;
	u->attach_ns = mono_ns() - t0;
	return 0;
fail:
	ft_inject_resume(in);
	return -1;
}

/*
 * End of an attach: make the runtime stop and unpatch everything
 * (ftrail_detach in the process), then let it run on.  Nothing to do when
 * the process is gone.
 */
static void detach_target(struct ft_urecord *u)
{
	char err[256];
	uint64_t fn, rc = 0, t0 = mono_ns();
	struct ft_inject *in = ft_inject_stop(u->pid, err, sizeof(err));

	if (!in) {
		if (!(kill(u->pid, 0) && errno == ESRCH))
			urec_warn(u,
				  "cannot stop %s to detach (%s): its runtime detaches at its "
				  "next traced call",
				  u->name, err);
		return;
	}
	fn = ft_inject_sym(in, u->lib, "ftrail_detach");
	if (!fn || call_in(in, fn, NULL, 0, NULL, &rc, err, sizeof(err)))
		urec_warn(u,
			  "cannot detach the runtime of %s (%s): it detaches at its next "
			  "traced call",
			  u->name, fn ? err : "no ftrail_detach");
	ft_inject_resume(in);
	u->detach_ns = mono_ns() - t0;
}

/* Has the attached process exited (gone, or a zombie its parent did not reap yet)? */
static int target_gone(pid_t pid)
{
	char path[64], buf[512], *p;
	ssize_t n;
	int fd;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return errno == ENOENT || errno == ESRCH;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 1;
	buf[n] = 0;
	p = strrchr(buf, ')'); /* the state follows the name, which may hold anything */
	return p && p[1] == ' ' && (p[2] == 'Z' || p[2] == 'X');
}

/* Reap whatever exited.  Returns 1 when no descendant is left. */
static int reap(struct ft_urecord *u)
{
	for (;;) {
		int st;
		pid_t p = waitpid(-1, &st, WNOHANG);

		if (p == 0)
			return 0;
		if (p < 0)
			return errno == ECHILD;
		if (p == u->pid) {
			u->main_done = 1;
			u->main_status = st;
		} else if (WIFSIGNALED(st)) {
			urec_warn(u, "process %d was killed by signal %d (%s)%s", (int)p,
				  WTERMSIG(st), strsignal(WTERMSIG(st)),
				  WCOREDUMP(st) ? ", core dumped" : "");
		}
	}
}

static void check_exec_error(struct ft_urecord *u)
{
	int e;
	ssize_t n;

	if (u->err_fd < 0)
		return;
	n = read(u->err_fd, &e, sizeof(e));
	if (n == (ssize_t)sizeof(e)) {
		u->exec_errno = e;
	} else if (n < 0 && errno == EINTR) {
		return;
	}
	/* EOF (exec succeeded: the pipe closed on exec) or the errno: done */
	close(u->err_fd);
	u->err_fd = -1;
}

int ft_urecord_run(struct ft_urecord *u, struct ft_writer *w, volatile sig_atomic_t *stop,
		   struct ft_urecord_result *res, char *err, size_t errlen)
{
	struct ft_rb_totals tot;
	int all_gone = 0, stopped = 0, wr = 0;
	uint64_t t_start;

	memset(res, 0, sizeof(*res));
	if (!u->went) {
		snprintf(err, errlen, "the program was not started");
		return -1;
	}
	/* blocks until the child execs (pipe closes) or reports its errno */
	check_exec_error(u);
	if (u->exec_errno) {
		while (!reap(u))
			usleep(1000);
		snprintf(err, errlen, "cannot execute %s: %s", u->o->argv[0],
			 strerror(u->exec_errno));
		res->not_run = 1;
		return -1;
	}
	if (u->area)
		queue_start(u, w);
	t_start = mono_ns();
	while (!all_gone) {
		uint64_t pages_before = u->pages;

		if ((stop && *stop) ||
		    (u->o->duration_ms && mono_ns() - t_start >= u->o->duration_ms * 1000000ull)) {
			stopped = 1;
			break;
		}
		if (u->area) {
			wr |= drain(u, w, 0);
			pull_rt_msgs(u, 0);
		}
		all_gone = u->attached ? target_gone(u->pid) : reap(u);
		if (all_gone)
			break;
		if (u->area)
			ft_rb_wait(u->area, u->pages != pages_before ? BUSY_POLL_MS : POLL_MS);
		else
			usleep(POLL_MS * 1000);
	}
	if (stopped && u->h)
		ft_session_set_tracing_on(u->h, 0); /* the program goes on, untraced */
	if (stopped && u->attached) {
		detach_target(u); /* unpatched, running on as before */
	} else if (u->attached) {
		u->target_exited = 1;
	} else if (stopped) {
		/*
		 * A terminal's Ctrl-C reached the program too: give the tree a
		 * moment to die, so its last records are final when drained.
		 */
		for (int i = 0; i < 40 && !reap(u); i++) {
			if (u->area)
				wr |= drain(u, w, 0);
			usleep(5000);
		}
	}

	if (u->area) {
		wr |= drain(u, w, 1);
		/* a swap during that pass (a program still running after Ctrl-C): save it too */
		if (ft_rb_snapshot_state(u->area) == FT_RB_SNAP_SAVING)
			wr |= drain(u, w, 1);
		if (u->o->flight) {
			/* the end is a trigger: what the rings hold now (urec_flight.c) */
			int crash = u->main_done && WIFSIGNALED(u->main_status);

			wr |= urec_flight_dump(u, w,
					       stopped ? (u->attached ? "detach" : "stop")
					       : crash ? "crash"
						       : "exit",
					       crash && !stopped ? WTERMSIG(u->main_status) : 0);
		}
		/* a writer still running (untraced after Ctrl-C, or a leftover child) never waits */
		ft_rb_reader_done(u->area);
		wr |= pend_flush_all(u, w);
		wr |= queue_stop(u); /* every UDATA chunk written */
		pull_rt_msgs(u, all_gone);
		if (u->h) {
			struct ft_session_ctl *c = ft_session_ctl(u->h);

			/* after -P's detach nothing is selected (and there is no argv) */
			if (u->o->filter.n && !u->attached &&
			    __atomic_load_n(&c->rt_attached, __ATOMIC_RELAXED) &&
			    !__atomic_load_n(&c->rt_selected, __ATOMIC_RELAXED))
				urec_warn(u, "the function filter (-l) matches no function of %s",
					  u->o->argv[0]);
			if (!__atomic_load_n(&c->rt_attached, __ATOMIC_RELAXED) && u->main_done &&
			    !u->said_static)
				urec_warn(u,
					  "the runtime never started in %s (statically linked, "
					  "or LD_PRELOAD removed?)",
					  u->o->argv[0]);
		}
		ft_rb_area_totals(u->area, &tot);
		wr |= urec_sync_tables(u, w, 1);
		wr |= urec_write_tasks(u, w);
		wr |= urec_write_meta(u, w, &tot, stopped);
		res->lost = tot.lost;
		res->threads = (unsigned int)tot.claims;
		res->mode = (u->area->flags & FT_RB_F_OVERWRITE) ? "overwrite"
			    : (u->area->flags & FT_RB_F_BLOCK)	 ? "block"
								 : "producer-consumer";
		res->buffer_kb = u->o->buffer_kb ? u->o->buffer_kb : FT_RB_DEFAULT_KB;
		res->peak_bytes = u->peak_bytes;
		res->size_bytes = u->len;
		res->block_waits = tot.block_waits;
		res->block_wait_ns = tot.block_wait_ns;
	}
	res->events = u->events;
	res->bytes = u->bytes;
	res->snapshots = u->snaps_taken;
	res->snap_events = u->snap_events;
	res->snap_evicted = u->fl_evicted;
	res->attached = u->attached;
	res->target_exited = u->target_exited;
	res->attach_ns = u->attach_ns;
	res->detach_ns = u->detach_ns;
	if (u->main_done) {
		res->exited = WIFEXITED(u->main_status);
		res->exit_status = res->exited ? WEXITSTATUS(u->main_status) : 0;
		res->signaled = WIFSIGNALED(u->main_status);
		res->signo = res->signaled ? WTERMSIG(u->main_status) : 0;
		res->core_dumped = res->signaled && WCOREDUMP(u->main_status);
	}
	if (wr) {
		snprintf(err, errlen, "cannot write the trace: %s", strerror(errno));
		return -1;
	}
	return 0;
}

void ft_urecord_destroy(struct ft_urecord *u)
{
	if (!u)
		return;
	if (u->q) {
		queue_stop(u);
		for (struct chunk *c = u->q->head, *n; c; c = n) {
			n = c->next;
			free(c->buf);
			free(c);
		}
		pthread_mutex_destroy(&u->q->lock);
		pthread_cond_destroy(&u->q->cond);
		pthread_cond_destroy(&u->q->room);
		free(u->q);
	}
	if (u->pid > 0 && !u->went) {
		/* spawned, never let go: it waits on the pipe; make sure it is gone */
		kill(u->pid, SIGKILL);
		waitpid(u->pid, NULL, 0);
	}
	if (u->go_fd >= 0)
		close(u->go_fd);
	if (u->err_fd >= 0)
		close(u->err_fd);
	ft_lifeline_release(&u->life); /* a program still running detaches (lifeline.h) */
	if (u->mem)
		munmap(u->mem, u->len);
	if (u->memfd >= 0)
		close(u->memfd);
	for (size_t i = 0; i < u->nr_pend; i++)
		free(u->pend[i].buf);
	free(u->pend);
	free(u->reported);
	free(u->spart);
	free(u->nest_carry);
	free(u->snap_done);
	free(u->sbuf.buf);
	for (size_t i = 0; i < u->nr_fl_ret; i++)
		free(u->fl_ret[i].buf);
	free(u->fl_ret);
	free(u->tasks);
	free(u->page);
	free(u->warn);
	free(u->sm_seen);
	for (size_t k = 0; k < u->nr_symc; k++) {
		free(u->symc[k].path);
		free(u->symc[k].blob);
	}
	free(u->symc);
	pthread_mutex_destroy(&u->sync_lock);
	pthread_mutex_destroy(&u->warn_lock);
	free(u);
}
