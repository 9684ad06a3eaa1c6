// SPDX-License-Identifier: GPL-2.0
/*
 * events/u/<sys>/<event>/{enable,filter,trigger,format,id} and set_event
 * of the live mount: the traced program's own trace events
 * (<ftrail/ftrail.h>), read from its user-event area (core/uevent.h), a
 * memfd of its own named by the program's FTRAIL_UEV_FD variable and
 * mapped read-only here.
 *
 * The area holds the selection record made (-e u:..., -f, -R: one line
 * per -e), for each event the runtime gave an id to its format text
 * ("name:", "ID:", "system:", fields, "print fmt:"), and per id whether it
 * is recorded (en[]).  enable and set_event switch events through en[]
 * (core/uevent.h, live enable): the runtime applies the switch at its next
 * hook or in its live thread, as it applies a filter change.  filter and
 * trigger take a write as the kernel's do (a filter replaces the last,
 * "0" clears it; a trigger adds, "!trigger" removes it): the edit goes to
 * the runtime's live thread through the area's mailbox (core/uevent.h,
 * live edits), which compiles it against the event's fields and answers;
 * what it refuses comes back as the errno and the reason for error_log,
 * with nothing changed.  Reads show the runtime's table of edited events
 * (live[]), else what the selection gave.
 */
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/barrier.h"
#include "core/session.h"
#include "core/uevent.h"
#include "core/util.h"
#include "live/mount_int.h"

/* The program's FTRAIL_UEV_FD, or -1. */
static int uev_fd_of(pid_t pid)
{
	static const char key[] = FT_UEV_ENV_FD "=";
	char path[64], *buf = ft_malloc(65536);
	int fd = -1;
	size_t n;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (f) {
		n = fread(buf, 1, 65535, f);
		fclose(f);
		buf[n] = 0;
		for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
			if (!strncmp(buf + i, key, sizeof(key) - 1))
				fd = atoi(buf + i + sizeof(key) - 1);
	}
	free(buf);
	return fd;
}

/* The program's user-event area, mapped (read-write: en[]), or NULL. */
static struct ft_uev_area *uev_map(pid_t pid)
{
	char path[64];
	int n = uev_fd_of(pid), fd;
	struct ft_uev_area *a;
	void *p;

	if (n < 0)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, n);
	/* read-write: enable and set_event store into en[] */
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	p = mmap(NULL, sizeof(struct ft_uev_area), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (p == MAP_FAILED)
		return NULL;
	a = p;
	if (a->magic != FT_UEV_MAGIC || a->version != FT_UEV_VERSION) {
		munmap(p, sizeof(struct ft_uev_area));
		return NULL;
	}
	return a;
}

void mnt_events_attach(struct mnt *m)
{
	m->uev = uev_map(m->pid);
}

/*
 * The area, mapped on first need when the mount came before it could be
 * found: record --mount may attach to the program between its fork and
 * its exec, when /proc/PID/environ is still the recorder's and names no
 * FTRAIL_UEV_FD; events/u would then stay empty for the whole run.
 * Requests run on several FUSE threads, without the mount's lock: the
 * first mapping is published with a compare-and-swap (release, paired
 * with the acquire loads here), a loser unmaps its own.
 */
static struct ft_uev_area *uev_get(struct mnt *m)
{
	struct ft_uev_area *a = __atomic_load_n(&m->uev, __ATOMIC_ACQUIRE), *none = NULL;

	if (a)
		return a;
	a = uev_map(m->pid);
	if (!a)
		return NULL;
	if (__atomic_compare_exchange_n(&m->uev, &none, a, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return a;
	munmap(a, sizeof(struct ft_uev_area));
	return none; /* the winner's */
}

void mnt_events_detach(struct mnt *m)
{
	if (m->uev)
		munmap((void *)m->uev, sizeof(struct ft_uev_area));
	m->uev = NULL;
}

/* A "key: value" line of a format block, into out; 0 or -1. */
static int fmt_key(const char *text, size_t len, const char *key, char *out, size_t outlen)
{
	size_t k = strlen(key);

	for (size_t i = 0; i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t e = nl ? (size_t)(nl - text) : len;

		if (e - i > k && !strncmp(text + i, key, k)) {
			size_t n = e - i - k;

			if (n >= outlen)
				n = outlen - 1;
			memcpy(out, text + i + k, n);
			out[n] = 0;
			return 0;
		}
		i = e + 1;
	}
	return -1;
}

/*
 * Walk the formats published so far: fn(sys, name, text, len) for each;
 * stops when fn returns non-zero (returned).  Entries are { u32 len; u32
 * ready; text }, 4-byte aligned; ready is stored last with release by the
 * runtime, acquired here before the text is read.
 */
int mnt_events_each(struct mnt *m,
		    int (*fn)(const char *sys, const char *name, const char *text, size_t len,
			      void *arg),
		    void *arg)
{
	const struct ft_uev_area *a = uev_get(m);
	uint32_t used, off = 0;

	if (!a)
		return 0;
	used = __atomic_load_n(&a->fmt_used, __ATOMIC_ACQUIRE);
	if (used > sizeof(a->fmt))
		used = sizeof(a->fmt);
	while (off + 8 <= used) {
		char sys[64], name[64];
		uint32_t len, ready;
		int r;

		memcpy(&len, a->fmt + off, 4);
		ready = __atomic_load_n((const uint32_t *)(const void *)(a->fmt + off + 4),
					__ATOMIC_ACQUIRE);
		if (!ready || len > used - off - 8)
			break;
		if (!fmt_key(a->fmt + off + 8, len, "system: ", sys, sizeof(sys)) &&
		    !fmt_key(a->fmt + off + 8, len, "name: ", name, sizeof(name))) {
			r = fn(sys, name, a->fmt + off + 8, len, arg);
			if (r)
				return r;
		}
		off += 8 + ((len + 3) & ~3u);
	}
	return 0;
}

/*
 * The runtime's live line of sys:name (core/uevent.h, seqlock read) into
 * out: its filter (which 1) or its triggers, one a line (2).  0, or -1
 * when the event was never edited live.
 */
static int live_sel(const struct ft_uev_area *a, const char *sys, const char *name, int which,
		    char *out, size_t len)
{
	char *text = ft_malloc(FT_UEV_LIVE_MAX + 1), *p, *save = NULL;
	uint32_t s1, n;
	int tries = 0, r = -1;

	for (;;) {
		/* acquire: pairs with the runtime's release of the even count */
		s1 = __atomic_load_n(&a->live_seq, __ATOMIC_ACQUIRE);
		n = __atomic_load_n(&a->live_len, __ATOMIC_RELAXED);
		if (n > FT_UEV_LIVE_MAX)
			n = FT_UEV_LIVE_MAX;
		memcpy(text, a->live, n);
		/* acquire fence: the copy happens before the re-check */
		ft_fence(__ATOMIC_ACQUIRE);
		if (!(s1 & 1) && __atomic_load_n(&a->live_seq, __ATOMIC_RELAXED) == s1)
			break;
		if (++tries > 1000) {
			free(text);
			return -1;
		}
		sched_yield();
	}
	text[n] = 0;
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *f[4] = { p, NULL, NULL, NULL };

		for (int i = 1; i < 4 && f[i - 1]; i++) {
			f[i] = strchr(f[i - 1], FT_UEV_SEP);
			if (f[i])
				*f[i]++ = 0;
		}
		if (!f[3] || strcmp(f[0], sys) || strcmp(f[1], name))
			continue;
		for (char *c = f[1 + which]; *c; c++)
			if (*c == FT_UEV_TRIG_SEP)
				*c = '\n';
		snprintf(out, len, "%s", f[1 + which]);
		r = 0;
	}
	free(text);
	return r;
}

/*
 * The filter (which 1) or trigger (2) of sys:name: the runtime's live
 * edits, else the last -e line naming it that has one ("" for none).
 */
void mnt_events_sel(struct mnt *m, const char *sys, const char *name, int which, char *out,
		    size_t len)
{
	const struct ft_uev_area *a = uev_get(m);
	char *text, *p, *save = NULL;

	out[0] = 0;
	if (!a || !live_sel(a, sys, name, which, out, len))
		return;
	text = ft_malloc(FT_UEV_SEL_MAX + 1);
	memcpy(text, a->sel, FT_UEV_SEL_MAX);
	text[FT_UEV_SEL_MAX] = 0;
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		char *f[3] = { p, NULL, NULL };

		for (int i = 1; i < 3 && f[i - 1]; i++) {
			f[i] = strchr(f[i - 1], FT_UEV_SEP);
			if (f[i])
				*f[i]++ = 0;
		}
		if (!ft_uev_name_match(f[0], sys, name) || !f[which] || !*f[which])
			continue;
		snprintf(out, len, "%s", f[which]);
	}
	free(text);
}

/* ---- switching events on and off (en[]) ---- */

struct sw {
	const char *sys, *name; /* "" for any */
	const char *pat;	/* or an -e name ("u:SYS:EVENT", globs), NULL */
	int set, on;		/* set: store on, else count */
	int nr, nr_on;		/* ids matched, of them recorded */
	struct ft_uev_area *a;
};

static int sw_cb(const char *sys, const char *name, const char *text, size_t len, void *arg)
{
	struct sw *w = arg;
	char idtxt[16];
	unsigned long id;

	if (w->pat ? !ft_uev_name_match(w->pat, sys, name)
		   : (w->sys[0] && strcmp(sys, w->sys)) || (w->name[0] && strcmp(name, w->name)))
		return 0;
	if (fmt_key(text, len, "ID: ", idtxt, sizeof(idtxt)))
		return 0;
	id = strtoul(idtxt, NULL, 10);
	if (id >= FT_UEV_EN_IDS)
		return 0;
	w->nr++;
	if (w->set)
		__atomic_store_n(&w->a->en[id], (uint8_t)w->on, __ATOMIC_RELAXED);
	else
		w->nr_on += __atomic_load_n(&w->a->en[id], __ATOMIC_RELAXED) != 0;
	return 0;
}

int mnt_events_switch(struct mnt *m, const char *sys, const char *name, const char *pat, int on)
{
	struct sw w = { sys, name, pat, 1, on, 0, 0, uev_get(m) };

	if (!w.a)
		return 0;
	mnt_events_each(m, sw_cb, &w);
	return w.nr;
}

int mnt_events_state(struct mnt *m, const char *sys, const char *name, const char *pat, int *nr_on)
{
	struct sw w = { sys, name, pat, 0, 0, 0, 0, uev_get(m) };

	*nr_on = 0;
	if (!w.a)
		return 0;
	mnt_events_each(m, sw_cb, &w);
	*nr_on = w.nr_on;
	return w.nr;
}

void mnt_events_publish(struct mnt *m)
{
	struct ft_uev_area *a = uev_get(m);

	if (!a)
		return;
	/* release: the en[] stores before it (core/uevent.h, live enable) */
	__atomic_add_fetch(&a->en_gen, 1, __ATOMIC_RELEASE);
	/* the runtime syncs when the control generation moves (and is woken) */
	ft_session_ctl_begin(m->s.hdr);
	ft_session_ctl_end(m->s.hdr);
}

#define EDIT_WAIT_MS 5000 /* the runtime's live thread answers an edit within this */

int mnt_events_edit(struct mnt *m, const char *sys, const char *name, int op, const char *text,
		    char *msg, size_t msglen)
{
	struct ft_uev_area *a = uev_get(m);
	uint32_t g;
	int waited = 0;

	msg[0] = 0;
	if (!a) {
		snprintf(msg, msglen, "the program's event area is not found");
		return -ENODEV;
	}
	if (strlen(text) >= sizeof(a->edit_text)) {
		snprintf(msg, msglen, "too long (%zu bytes at most)", sizeof(a->edit_text) - 1);
		return -EINVAL;
	}
	/* the last request must be answered before the mailbox is reused */
	g = __atomic_load_n(&a->edit_gen, __ATOMIC_RELAXED);
	if (__atomic_load_n(&a->edit_done, __ATOMIC_ACQUIRE) != g) {
		snprintf(msg, msglen, "the program has not answered the last edit yet");
		return -EBUSY;
	}
	a->edit_op = (uint32_t)op;
	snprintf(a->edit_sys, sizeof(a->edit_sys), "%s", sys);
	snprintf(a->edit_name, sizeof(a->edit_name), "%s", name);
	snprintf(a->edit_text, sizeof(a->edit_text), "%s", text);
	/* release: the request before the runtime's acquire of edit_gen */
	__atomic_store_n(&a->edit_gen, g + 1, __ATOMIC_RELEASE);
	/* wakes the runtime's live thread (the mount made the session live) */
	ft_session_ctl_begin(m->s.hdr);
	ft_session_ctl_end(m->s.hdr);
	/* acquire: pairs with the runtime's release of edit_done after its answer */
	while (__atomic_load_n(&a->edit_done, __ATOMIC_ACQUIRE) != g + 1) {
		struct timespec ms = { 0, 1000000 };

		if (++waited > EDIT_WAIT_MS || __atomic_load_n(&m->ended, __ATOMIC_RELAXED)) {
			snprintf(msg, msglen,
				 "the program did not answer (stopped, or no live thread)");
			return -EBUSY;
		}
		nanosleep(&ms, NULL);
	}
	if (a->edit_res)
		snprintf(msg, msglen, "%s", a->edit_text);
	return a->edit_res;
}

/* ---- the tree under events/u ---- */

static const struct mnt_node ev_nodes[] = {
	{ "", MK_EV_DIR, 0, 0750 },	      { "/enable", MK_EV_ENABLE, 0, 0644 },
	{ "/filter", MK_EV_FILTER, 0, 0644 }, { "/trigger", MK_EV_TRIGGER, 0, 0644 },
	{ "/format", MK_EV_FORMAT, 0, 0444 }, { "/id", MK_EV_ID, 0, 0444 },
};

struct find {
	const char *sys, *name; /* name NULL: any event of sys */
	int found;
};

static int find_cb(const char *sys, const char *name, const char *text, size_t len, void *arg)
{
	struct find *f = arg;

	if (strcmp(sys, f->sys) || (f->name && strcmp(name, f->name)))
		return 0;
	f->found = 1;
	return 1;
}

const struct mnt_node *mnt_events_lookup(struct mnt *m, const char *path, char *sys, char *name)
{
	static const char pre[] = "/events/u/";
	const char *p = path + sizeof(pre) - 1, *s2, *s3;
	struct find f = { sys, NULL, 0 };
	size_t n;

	if (strncmp(path, pre, sizeof(pre) - 1))
		return NULL;
	s2 = strchr(p, '/');
	n = s2 ? (size_t)(s2 - p) : strlen(p);
	if (!n || n >= 64)
		return NULL;
	memcpy(sys, p, n);
	sys[n] = 0;
	name[0] = 0;
	if (!s2) {
		mnt_events_each(m, find_cb, &f);
		return f.found ? &ev_nodes[0] : NULL;
	}
	p = s2 + 1;
	s3 = strchr(p, '/');
	n = s3 ? (size_t)(s3 - p) : strlen(p);
	if (!n || n >= 64)
		return NULL;
	memcpy(name, p, n);
	name[n] = 0;
	f.name = name;
	mnt_events_each(m, find_cb, &f);
	if (!f.found && !s3 && !strcmp(name, "enable")) {
		/* events/u/SYS/enable: every event of SYS */
		f.name = NULL;
		mnt_events_each(m, find_cb, &f);
		name[0] = 0;
		return f.found ? &ev_nodes[1] : NULL;
	}
	if (!f.found)
		return NULL;
	for (size_t i = 0; i < sizeof(ev_nodes) / sizeof(ev_nodes[0]); i++)
		if (!strcmp(s3 ? s3 : "", ev_nodes[i].path))
			return &ev_nodes[i];
	return NULL;
}

struct dir {
	const char *sys; /* NULL: list the systems */
	void *buf;
	int (*fill)(void *buf, const char *name);
	char seen[64][64];
	int nr;
};

static int dir_cb(const char *sys, const char *name, const char *text, size_t len, void *arg)
{
	struct dir *d = arg;

	if (d->sys) {
		if (!strcmp(sys, d->sys))
			d->fill(d->buf, name);
		return 0;
	}
	for (int i = 0; i < d->nr; i++)
		if (!strcmp(d->seen[i], sys))
			return 0;
	if (d->nr < 64)
		snprintf(d->seen[d->nr++], sizeof(d->seen[0]), "%s", sys);
	d->fill(d->buf, sys);
	return 0;
}

void mnt_events_readdir(struct mnt *m, const char *sys, void *buf,
			int (*fill)(void *buf, const char *name))
{
	struct dir *d = ft_calloc(1, sizeof(*d));

	d->sys = sys;
	d->buf = buf;
	d->fill = fill;
	mnt_events_each(m, dir_cb, d);
	free(d);
}
