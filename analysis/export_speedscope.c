// SPDX-License-Identifier: GPL-2.0
/*
 * speedscope evented-profile writer (see export_speedscope.h).
 */
#include "analysis/export_speedscope.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/sendfile.h>
#include <unistd.h>

#include "analysis/escape.h"
#include "analysis/numfmt.h"
#include "core/hash.h"
#include "core/hashtab.h"
#include "core/util.h"
#include "core/version.h"

#define THREAD_BUF (32u << 10) /* per-thread event buffer before spilling */
#define EVENT_MAX 96	       /* bytes of one event: 2 + 9 + 1 + 10 + 20 + 6 + 20 + 1 */

struct chunk {
	uint64_t off;
	uint32_t len;
};

struct sthread {
	struct ft_hentry h; /* first (hashtab.h): key tid, aux pid */
	char *name;	    /* thread name, or NULL */
	char *buf;	    /* events not yet spilled */
	size_t blen;
	struct chunk *chunks; /* spilled parts, in order */
	size_t nchunks, cchunks;
	uint32_t *stack; /* frame ids of the open calls */
	size_t depth, cstack;
	uint64_t nevents;
	uint64_t first, last; /* relative ns */
	uint64_t calls;
	int direct;		   /* its events go straight to out (the first profile) */
	struct ft_decmemo at_text; /* its last event's "at" */
};

struct fslot {
	struct ft_hentry h; /* first (hashtab.h): key the name's hash, aux its id */
	uint32_t off;	    /* of the name in the frame arena */
};

struct ft_speedscope {
	FILE *out;
	char *name;
	int spill; /* fd of the unlinked temporary file, or -1 */
	/* the thread whose events go straight to out, by tid: a new thread
	 * may move every entry of threads */
	int have_direct;
	uint32_t direct_tid;
	struct sthread *last_thread; /* the latest lookup (valid until the next one) */
	uint64_t spill_off;
	struct ft_htab threads; /* struct sthread */
	struct ft_htab frames;	/* struct fslot: frame name -> id */
	size_t nframes;
	uint32_t *forder;	/* id -> arena offset */
	struct ft_xmemo by_key; /* ev->name_id -> 1 + frame id (0: not seen) */
	size_t ocap;		/* entries forder can hold */
	char *arena;
	size_t alen, acap;
	int have_base;
	uint64_t base, last;
	struct ft_speedscope_stats st;
	const char *tmpdir;
	int no_sendfile; /* the output takes no sendfile(2): copy by hand */
};

/* The name being looked up, for fslot_eq(). */
struct fkey {
	const char *arena;
	const char *name;
};

static int fslot_eq(const void *entry, const void *key)
{
	const struct fkey *k = key;

	return !strcmp(k->arena + ((const struct fslot *)entry)->off, k->name);
}

struct ft_speedscope *ft_speedscope_open(FILE *out, const char *name, const char *tmpdir)
{
	struct ft_speedscope *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->out = out;
	s->spill = -1;
	s->tmpdir = tmpdir;
	s->name = strdup(name ? name : "ftrail");
	if (ft_htab_init(&s->threads, sizeof(struct sthread)) ||
	    ft_htab_init(&s->frames, sizeof(struct fslot)) || !s->name) {
		free(s->name);
		ft_htab_free(&s->threads);
		ft_htab_free(&s->frames);
		free(s);
		errno = ENOMEM;
		return NULL;
	}
	return s;
}

/* The id of a frame name, adding it to the table.  -1 on ENOMEM. */
static int64_t frame_id(struct ft_speedscope *s, const char *name)
{
	size_t l = strlen(name) + 1;
	uint64_t h = ft_hash_fnv1a(name, l - 1);
	struct fkey k = { s->arena, name };
	struct fslot *e = ft_htab_get_eq(&s->frames, h, fslot_eq, &k, 0, NULL);

	if (e)
		return e->h.aux;
	if (s->alen + l > s->acap || s->alen + l > UINT32_MAX) {
		size_t n = s->acap ? s->acap * 2 : 65536;
		char *na;

		while (n < s->alen + l)
			n *= 2;
		if (s->alen + l > UINT32_MAX)
			return -1;
		na = realloc(s->arena, n);
		if (!na)
			return -1;
		s->arena = na;
		s->acap = n;
	}
	if (s->nframes == s->ocap && FT_GROW(s->forder, s->ocap, s->nframes + 1, 64))
		return -1;
	if (s->nframes >= UINT32_MAX)
		return -1;
	/* absent: this makes the entry (the arena may have moved) */
	k.arena = s->arena;
	e = ft_htab_get_eq(&s->frames, h, fslot_eq, &k, 1, NULL);
	if (!e)
		return -1;
	memcpy(s->arena + s->alen, name, l);
	e->h.aux = (uint32_t)s->nframes;
	e->off = (uint32_t)s->alen;
	s->forder[s->nframes] = (uint32_t)s->alen;
	s->alen += l;
	return (int64_t)s->nframes++;
}

/* frame_id() of an ENTRY's name, by its name_id when it has one.  -1 on ENOMEM. */
static int64_t entry_frame(struct ft_speedscope *s, const struct ft_xevent *ev)
{
	uint64_t m = ft_xmemo_get(&s->by_key, ev->name_id);
	int64_t id;

	if (m)
		return (int64_t)m - 1;
	id = frame_id(s, ev->name ? ev->name : "?");
	if (id >= 0)
		ft_xmemo_set(&s->by_key, ev->name_id, (uint64_t)id + 1);
	return id;
}

static struct sthread *get_thread(struct ft_speedscope *s, uint32_t tid, uint32_t pid)
{
	/* events come in runs of one thread */
	if (s->last_thread && s->last_thread->h.key == tid)
		return s->last_thread;
	s->last_thread = ft_htab_get_aux(&s->threads, tid, pid);
	return s->last_thread;
}

static int open_spill(struct ft_speedscope *s)
{
	const char *dir = s->tmpdir ? s->tmpdir : getenv("TMPDIR");
	char path[4096];

	if (!dir || !*dir)
		dir = "/tmp";
	snprintf(path, sizeof(path), "%s/ftrail-speedscope.XXXXXX", dir);
	s->spill = mkstemp(path);
	if (s->spill < 0)
		return -1;
	unlink(path); /* gone when closed, whatever happens */
	return 0;
}

static int write_all(int fd, const char *p, size_t n)
{
	while (n) {
		ssize_t w = write(fd, p, n);

		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* Move a thread's buffered events to the spill file. */
static int spill_thread(struct ft_speedscope *s, struct sthread *t)
{
	if (!t->blen)
		return 0;
	if (s->spill < 0 && open_spill(s))
		return -1;
	if (t->nchunks == t->cchunks) {
		size_t n = t->cchunks ? t->cchunks * 2 : 16;
		struct chunk *nc = realloc(t->chunks, n * sizeof(*nc));

		if (!nc) {
			errno = ENOMEM;
			return -1;
		}
		t->chunks = nc;
		t->cchunks = n;
	}
	if (write_all(s->spill, t->buf, t->blen))
		return -1;
	t->chunks[t->nchunks++] = (struct chunk){ s->spill_off, (uint32_t)t->blen };
	s->spill_off += t->blen;
	s->st.spilled += t->blen;
	t->blen = 0;
	return 0;
}

/* Empty a thread's buffer: to out for the direct thread, else to the spill file. */
static int flush_thread(struct ft_speedscope *s, struct sthread *t)
{
	if (!t->direct)
		return spill_thread(s, t);
	if (t->blen && fwrite(t->buf, 1, t->blen, s->out) != t->blen)
		return -1;
	t->blen = 0;
	return 0;
}

/* Append one O/C event to a thread's buffer. */
static int add_event(struct ft_speedscope *s, struct sthread *t, char type, uint32_t frame,
		     uint64_t at)
{
	/* ,\n{"type":"O","frame":F,"at":A} without printf (analysis/numfmt.h),
	 * made in place: it takes at most EVENT_MAX bytes */
	char *p;

	if (!t->buf) {
		t->buf = malloc(THREAD_BUF);
		if (!t->buf) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (t->blen + EVENT_MAX > THREAD_BUF && flush_thread(s, t))
		return -1;
	p = t->buf + t->blen;
	if (t->nevents) {
		memcpy(p, ",\n", 2);
		p += 2;
	}
	memcpy(p, "{\"type\":\"", 9);
	p += 9;
	*p++ = type;
	p = ft_lit_u64(p, "\",\"frame\":", 10, frame);
	memcpy(p, ",\"at\":", 6);
	p += 6 + ft_u64_dec_memo(&t->at_text, p + 6, at); /* writes 23 bytes */
	*p++ = '}';
	t->blen = (size_t)(p - t->buf);
	if (!t->nevents)
		t->first = at;
	t->last = at;
	t->nevents++;
	return 0;
}

/* The document up to the first profile's events. */
static void doc_head(struct ft_speedscope *s)
{
	char ex[64];

	fputs("{\"$schema\":\"https://www.speedscope.app/file-format-schema.json\",\n\"exporter\":",
	      s->out);
	snprintf(ex, sizeof(ex), "ftrail %s", FTRAIL_VERSION);
	ft_json_str(s->out, ex);
	fputs(",\n\"activeProfileIndex\":0,\n\"profiles\":[", s->out);
}

/* t, with its first event at at, becomes the profile written as it goes. */
static void start_direct(struct ft_speedscope *s, struct sthread *t, uint64_t at)
{
	doc_head(s);
	fprintf(s->out,
		"\n{\"type\":\"evented\",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
		",\"events\":[\n",
		at);
	t->direct = 1;
	s->have_direct = 1;
	s->direct_tid = (uint32_t)t->h.key;
}

int ft_speedscope_event(struct ft_speedscope *s, const struct ft_xevent *ev)
{
	struct sthread *t;
	uint64_t at;
	int64_t id;

	if (!s->have_base) {
		s->base = ev->ts;
		s->have_base = 1;
	}
	at = ev->ts > s->base ? ev->ts - s->base : 0;
	if (at > s->last)
		s->last = at;
	switch (ev->type) {
	case FT_XEV_ENTRY:
		t = get_thread(s, ev->tid, ev->pid);
		id = entry_frame(s, ev);
		if (!t || id < 0)
			goto nomem;
		if (t->depth == t->cstack) {
			size_t n = t->cstack ? t->cstack * 2 : 32;
			uint32_t *ns = realloc(t->stack, n * sizeof(*ns));

			if (!ns)
				goto nomem;
			t->stack = ns;
			t->cstack = n;
		}
		/* a profile's time never goes back, even across merged sources */
		if (t->nevents && at < t->last)
			at = t->last;
		if (!s->have_direct)
			start_direct(s, t, at);
		if (add_event(s, t, 'O', (uint32_t)id, at))
			return -1;
		t->stack[t->depth++] = (uint32_t)id;
		break;
	case FT_XEV_EXIT:
		t = get_thread(s, ev->tid, ev->pid);
		if (!t)
			goto nomem;
		if (!t->depth) {
			s->st.unmatched_exits++;
			break;
		}
		if (at < t->last)
			at = t->last;
		if (add_event(s, t, 'C', t->stack[t->depth - 1], at))
			return -1;
		t->depth--;
		t->calls++;
		s->st.calls++;
		break;
	case FT_XEV_THREAD_NAME:
		t = get_thread(s, ev->tid, ev->pid);
		if (!t)
			goto nomem;
		free(t->name);
		t->name = strdup(ev->name ? ev->name : "");
		if (!t->name)
			goto nomem;
		break;
	case FT_XEV_PROCESS_NAME:
		break;
	case FT_XEV_INSTANT:
		s->st.skipped++;
		break;
	case FT_XEV_LOST:
		s->st.lost_events += ev->count;
		break;
	}
	return 0;
nomem:
	errno = ENOMEM;
	return -1;
}

/*
 * Copy a spilled chunk to the output: by sendfile(2), which copies in the
 * kernel (no read into a buffer and write back), to a file or a pipe
 * alike; by pread and fwrite where the output is no file descriptor or
 * the kernel refuses (s->no_sendfile from then on).  out must have been
 * flushed before the first chunk of a profile.
 */
static int copy_chunk(struct ft_speedscope *s, const struct chunk *c)
{
	char buf[65536];
	uint64_t off = c->off;
	size_t left = c->len;
	int fd = s->no_sendfile ? -1 : fileno(s->out);

	while (left && fd >= 0) {
		off_t o = (off_t)off;
		ssize_t r = sendfile(fd, s->spill, &o, left);

		if (r > 0) {
			off += (uint64_t)r;
			left -= (size_t)r;
			continue;
		}
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0 && errno != EINVAL && errno != ENOSYS && errno != EOPNOTSUPP)
			return -1;  /* a write error (ENOSPC, EPIPE...) */
		s->no_sendfile = 1; /* nothing was copied by this call: go on below */
		break;
	}
	while (left) {
		ssize_t r =
			pread(s->spill, buf, left < sizeof(buf) ? left : sizeof(buf), (off_t)off);

		if (r <= 0) {
			if (r < 0 && errno == EINTR)
				continue;
			if (!r)
				errno = EIO;
			return -1;
		}
		if (fwrite(buf, 1, (size_t)r, s->out) != (size_t)r)
			return -1;
		off += (uint64_t)r;
		left -= (size_t)r;
	}
	return 0;
}

/* Close what is still open in t at the end of the trace. */
static int close_open(struct ft_speedscope *s, struct sthread *t)
{
	while (t->depth) {
		if (add_event(s, t, 'C', t->stack[t->depth - 1], s->last))
			return -1;
		t->depth--;
		s->st.closed_at_end++;
	}
	return 0;
}

/* ,"name":"comm (tid T)","endValue":N} of t's profile. */
static void profile_tail(struct ft_speedscope *s, struct sthread *t)
{
	char pname[512];

	if (t->name && *t->name)
		snprintf(pname, sizeof(pname), "%s (tid %" PRIu32 ")", t->name, (uint32_t)t->h.key);
	else
		snprintf(pname, sizeof(pname), "tid %" PRIu32 " (pid %" PRIu32 ")",
			 (uint32_t)t->h.key, t->h.aux);
	fputs(",\"name\":", s->out);
	ft_json_str(s->out, pname);
	fprintf(s->out, ",\"endValue\":%" PRIu64 "}", t->last);
	s->st.profiles++;
}

/* A buffered thread's profile, after the first one. */
static int write_profile(struct ft_speedscope *s, struct sthread *t)
{
	if (close_open(s, t))
		return -1;
	fprintf(s->out,
		",\n{\"type\":\"evented\",\"unit\":\"nanoseconds\",\"startValue\":%" PRIu64
		",\"events\":[\n",
		t->first);
	if (t->nchunks && fflush(s->out)) /* the chunks go past out's buffer */
		return -1;
	for (size_t i = 0; i < t->nchunks; i++)
		if (copy_chunk(s, &t->chunks[i]))
			return -1;
	if (t->blen && fwrite(t->buf, 1, t->blen, s->out) != t->blen)
		return -1;
	fputs("\n]", s->out);
	profile_tail(s, t);
	return 0;
}

static int cmp_tid(const void *a, const void *b)
{
	const struct sthread *x = *(const struct sthread *const *)a;
	const struct sthread *y = *(const struct sthread *const *)b;

	return x->h.key < y->h.key ? -1 : x->h.key > y->h.key;
}

int ft_speedscope_close(struct ft_speedscope *s, struct ft_speedscope_stats *stats)
{
	struct sthread **order = calloc(s->threads.used ? s->threads.used : 1, sizeof(*order));
	struct sthread *direct = s->have_direct ? ft_htab_find(&s->threads, s->direct_tid) : NULL;
	size_t n = 0;
	int ret = -1;
	char dname[512];

	if (!order) {
		errno = ENOMEM;
		goto out;
	}
	for (size_t i = 0; i < s->threads.cap; i++) {
		struct sthread *t = ft_htab_slot(&s->threads, i);

		if (t && !t->direct && (t->nevents || t->depth))
			order[n++] = t;
	}
	qsort(order, n, sizeof(*order), cmp_tid);

	if (s->st.lost_events)
		snprintf(dname, sizeof(dname), "%s (%" PRIu64 " events lost)", s->name,
			 s->st.lost_events);
	else
		snprintf(dname, sizeof(dname), "%s", s->name);
	if (direct) {
		if (close_open(s, direct) || flush_thread(s, direct))
			goto out;
		fputs("\n]", s->out);
		profile_tail(s, direct);
	} else { /* speedscope wants at least one profile */
		doc_head(s);
		fputs("\n{\"type\":\"evented\",\"name\":\"no calls\",\"unit\":\"nanoseconds\","
		      "\"startValue\":0,\"endValue\":0,\"events\":[]}",
		      s->out);
	}
	for (size_t i = 0; i < n; i++)
		if (write_profile(s, order[i]))
			goto out;
	fputs("\n],\n\"name\":", s->out);
	ft_json_str(s->out, dname);
	fputs(",\n\"shared\":{\"frames\":[", s->out);
	for (size_t i = 0; i < s->nframes; i++) {
		fputs(i ? ",\n{\"name\":" : "\n{\"name\":", s->out);
		ft_json_str(s->out, s->arena + s->forder[i]);
		fputc('}', s->out);
	}
	fputs("\n]}}\n", s->out);
	if (fflush(s->out) || ferror(s->out)) {
		if (!errno)
			errno = EIO;
		goto out;
	}
	ret = 0;
out:
	s->st.frames = s->nframes;
	if (stats)
		*stats = s->st;
	for (size_t i = 0; i < s->threads.cap; i++) {
		struct sthread *t = ft_htab_slot(&s->threads, i);

		if (t) {
			free(t->name);
			free(t->buf);
			free(t->chunks);
			free(t->stack);
		}
	}
	if (s->spill >= 0)
		close(s->spill);
	free(order);
	ft_htab_free(&s->threads);
	ft_htab_free(&s->frames);
	free(s->forder);
	ft_xmemo_free(&s->by_key);
	free(s->arena);
	free(s->name);
	free(s);
	return ret;
}
