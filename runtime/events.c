// SPDX-License-Identifier: GPL-2.0
/*
 * User trace events and trace_marker in the traced program.
 *
 * At load time (a constructor of libftrail.so) we attach to the user event
 * area the tool created (uevent.h; env FTRAIL_UEV_FD), read the selection
 * (one line per -e: name, filter, trigger), and walk every loaded object
 * (dl_iterate_phdr) for its "__ftrail_events" section: an array of pointers
 * to struct ftrail_event descriptors (include/ftrail/ftrail.h).  The
 * section is found through the object's section headers, read from its
 * file; no registration call is needed from the program.
 *
 * For each event name (sys:event; several descriptors may share one, one
 * per file that defines it) we keep a struct ev_type: its id in this trace,
 * compiled filter, triggers.  Every descriptor gets its write hook and priv;
 * the selected ones get enabled = 1.  Formats go to the area for the
 * recorder (UFORMATS).  Markers' descriptors are enabled whenever the area
 * exists.
 *
 * Setup runs with rt.lock-free private state (the constructor runs before
 * the program's threads exist; rt_events_rescan() after a dlopen takes
 * ev_lock).  The write hook (ev_write) runs in any thread, any time,
 * including signal handlers: no allocation, no lock, no system call.
 *
 * Memory ordering (pairs with the emitter in ftrail.h):
 *   - desc->priv, desc->id are plain stores, then desc->write is stored
 *     with release; the emitter loads write with acquire before calling it,
 *     so the hook always sees priv/id of its descriptor.
 *   - desc->enabled is stored relaxed: it only gates the fast path; a
 *     stale read costs at most one event more or less around a flip.
 *   - ev_type->enabled (what enable_event/disable_event triggers read) is
 *     relaxed for the same reason.
 */
#include <elf.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/filter.h"
#include "core/options.h"
#include "runtime/rt.h"
#include "core/trigger.h"
#include "core/uevent.h"

#define EV_MAX_TYPES 4096
#define EV_MAX_TRIG 8
#define EV_MAX_OBJS 512
#define EV_MAX_DESCS 64	    /* object files defining one event */
#define EV_MAX_MARKERS 1024 /* files with a trace_marker descriptor */

/*
 * An event's filter and triggers.  The hot path reads them through
 * ev_type.conf; a live edit (rt_events_edit) publishes a new copy and
 * never frees the old one: a writer in another thread or a signal handler
 * may still be reading it, and nothing tells when it is done (one copy,
 * a few KiB, per edit a person types).
 */
struct ev_conf {
	struct ft_filter *filter; /* compiled against the fields, or NULL */
	char *filter_text;	  /* its text (live edits only, for the live table) */
	struct ft_trigger trig[EV_MAX_TRIG];
	int nr_trig;
};

struct ev_type {
	char sys[64], name[64];
	uint32_t id;
	uint8_t enabled;  /* relaxed: the name's current state */
	uint8_t selected; /* an -e named it */
	uint8_t edited;	  /* a live edit changed conf: it is in the live table */
	/*
	 * What ev_write applies: &conf0 (the selection's -f and -R) until a
	 * live edit publishes another (release; ev_write acquires).
	 */
	struct ev_conf *conf;
	struct ev_conf conf0;
	struct ftrail_event *descs[EV_MAX_DESCS]; /* every descriptor of this name */
	uint32_t nr_descs;			  /* release-stored after descs[n] */
	const struct ftrail_event *first;	  /* the layout all descs share: a private
					    * copy (layout_copy), NULL when none */
};

/* A scanned object: where it was mapped, to forget it when it goes. */
struct ev_obj {
	uint64_t key;	 /* load bias ^ name hash */
	uint64_t lo, hi; /* its PT_LOAD range */
	int seen;
};

struct sel {
	char *name, *filter, *trigger;
	int matched;
};

static struct {
	struct ft_uev_area *area;
	struct sel *sels;
	int nr_sels;
	struct ev_type *types[EV_MAX_TYPES];
	uint32_t nr_types;		 /* release-stored after types[n] */
	struct ev_obj objs[EV_MAX_OBJS]; /* the objects scanned so far */
	int nr_objs;
	/* the marker descriptors we enabled, for a detach to disable (ev.lock) */
	struct ftrail_event *markers[EV_MAX_MARKERS];
	int nr_markers;
	char *sel_txt; /* what ev.sels point into */
	int edited;    /* a live edit changed a type: the live table is kept (live thread) */
	pthread_mutex_t lock;
} ev = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* A warning line for the recorder to print (area msg[], lock-free append). */
static void ev_msg(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void ev_msg(const char *fmt, ...)
{
	char line[256];
	va_list ap;
	int n;
	uint32_t off;

	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line) - 1, fmt, ap);
	va_end(ap);
	if (n < 0 || !ev.area)
		return;
	if (n > (int)sizeof(line) - 2)
		n = sizeof(line) - 2;
	line[n++] = '\n';
	off = __atomic_fetch_add(&ev.area->msg_used, (uint32_t)n, __ATOMIC_RELAXED);
	if (off + (uint32_t)n <= sizeof(ev.area->msg))
		memcpy(ev.area->msg + off, line, n);
	/* pairs with the tool's acquire load of msg_used after the program ended
	 * (exit orders it); overflow just drops the line */
}

/* ---- the hot path ---- */

static int tracing_is_on(void *ctx)
{
	(void)ctx;
	return rt.ctl ? (int)__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED) : 0;
}

static void set_tracing(void *ctx, int on)
{
	struct rt_thread *t;

	(void)ctx;
	/* the recorder is gone: tracing stays off (init.c, rt_detach) */
	if (!rt.sess || __atomic_load_n(&rt.detached, __ATOMIC_RELAXED) || rt_orphaned())
		return;
	t = rt_thread_get();
	/* the record first when turning off, after when turning on: both are seen */
	if (t && !on)
		rt_emit_ext(t, FT_EXT_TRACE_OFF, NULL, 0);
	ft_session_set_tracing_on(rt.sess, on);
	if (t && on)
		rt_emit_ext(t, FT_EXT_TRACE_ON, NULL, 0);
}

/*
 * stacktrace trigger: the program's stack where the event was written
 * (ctx: the rt_ustate ev_write took at its caller), unwound by unwind.c.
 */
static void stacktrace(void *ctx)
{
	struct rt_thread *t = rt_thread_get();

	if (t)
		rt_emit_stack(t, 0, ctx, 1);
}

/*
 * The snapshot trigger, and the snapshot function command (hooks.c):
 * swap the live ring set with the spare (ringbuf.h, "Snapshot"); lock-free,
 * no system call, safe in a signal handler -- the writers of every thread
 * move to the other set at their next record, nobody waits.  Without a
 * spare (freed with `ftrail snapshot 0`) the hit is counted and ftrace's
 * "*** SNAPSHOT NOT ALLOCATED ***" is written where it fired; a hit while
 * the recorder still saves the previous snapshot is counted (snapshot_skipped
 * in META).
 */
void rt_snapshot(struct rt_thread *t)
{
	if (!rt.area)
		return;
	if (ft_rb_snapshot_swap(rt.area, ft_rdtsc()) == -ENOENT) {
		if (ev.area)
			__atomic_add_fetch(&ev.area->snap_missed, 1, __ATOMIC_RELAXED);
		if (t)
			rt_emit_ext(t, FT_EXT_MARKER, "*** SNAPSHOT NOT ALLOCATED ***", 30);
	}
}

/* 0 while the recorder still saves the previous snapshot (a swap would be refused). */
int rt_snapshot_ready(void)
{
	int st = rt.area ? ft_rb_snapshot_state(rt.area) : FT_RB_SNAP_FREE;

	return st == FT_RB_SNAP_FREE || st == FT_RB_SNAP_READY;
}

static int snapshot_ready(void *ctx)
{
	(void)ctx;
	return rt_snapshot_ready();
}

static void snapshot(void *ctx)
{
	(void)ctx;
	rt_snapshot(rt_thread_get());
}

/*
 * The type named sys:name (the first one, for triggers).  Runs on the hot
 * path concurrently with a rescan that appends: nr_types is acquired, which
 * pairs with the release in add_desc after types[n] was filled.
 */
static struct ev_type *find_type(const char *sys, const char *name)
{
	uint32_t n = __atomic_load_n(&ev.nr_types, __ATOMIC_ACQUIRE);

	for (uint32_t i = 0; i < n; i++)
		if (!strcmp(ev.types[i]->sys, sys) && !strcmp(ev.types[i]->name, name))
			return ev.types[i];
	return NULL;
}

/* Same fields (names, types, offsets, sizes) and record size? */
static int same_layout(const struct ftrail_event *a, const struct ftrail_event *b)
{
	if (a->nr_fields != b->nr_fields || a->size != b->size)
		return 0;
	for (uint32_t i = 0; i < a->nr_fields; i++)
		if (a->fields[i].type != b->fields[i].type ||
		    a->fields[i].offset != b->fields[i].offset ||
		    a->fields[i].size != b->fields[i].size ||
		    strcmp(a->fields[i].name, b->fields[i].name))
			return 0;
	return 1;
}

/* The type a new descriptor belongs to: same name and same layout. */
static struct ev_type *find_type_for(const struct ftrail_event *d)
{
	for (uint32_t i = 0; i < ev.nr_types; i++)
		if (ev.types[i]->first && !strcmp(ev.types[i]->sys, d->subsys) &&
		    !strcmp(ev.types[i]->name, d->name) && same_layout(ev.types[i]->first, d))
			return ev.types[i];
	return NULL;
}

/*
 * Record the event or not.  Like the kernel's soft disable, an event with
 * triggers keeps its descriptors enabled so the triggers still run; only
 * e->enabled decides whether its records are written.
 */
static void type_set_enabled(struct ev_type *e, int on)
{
	uint32_t n = __atomic_load_n(&e->nr_descs, __ATOMIC_ACQUIRE);
	struct ft_uev_area *a = ev.area; /* NULL once an attach's events are reset */
	int nr_trig = __atomic_load_n(&e->conf, __ATOMIC_ACQUIRE)->nr_trig;

	__atomic_store_n(&e->enabled, (uint8_t)on, __ATOMIC_RELAXED);
	/* what a tool shows as the event's state (uevent.h, live enable) */
	if (a && e->id < FT_UEV_EN_IDS)
		__atomic_store_n(&a->en[e->id], (uint8_t)on, __ATOMIC_RELAXED);
	for (uint32_t i = 0; i < n; i++) {
		/* acquire: pairs with add_desc's and forget_range's release */
		struct ftrail_event *d = __atomic_load_n(&e->descs[i], __ATOMIC_ACQUIRE);

		__atomic_store_n(&d->enabled, (uint8_t)(on || nr_trig), __ATOMIC_RELAXED);
	}
}

/* enable_event / disable_event act on user events of this process. */
static int event_enabled(void *ctx, const struct ft_trigger *t)
{
	struct ev_type *e = find_type(t->sys, t->event);

	(void)ctx;
	return e ? __atomic_load_n(&e->enabled, __ATOMIC_RELAXED) : 1;
}

static void set_event(void *ctx, const struct ft_trigger *t, int on)
{
	struct ev_type *e = find_type(t->sys, t->event);

	(void)ctx;
	if (e)
		type_set_enabled(e, on);
}

static const struct ft_trigger_ops trig_ops = {
	.tracing_is_on = tracing_is_on,
	.set_tracing = set_tracing,
	.stacktrace = stacktrace,
	.snapshot = snapshot,
	.snapshot_ready = snapshot_ready,
	.event_enabled = event_enabled,
	.set_event = set_event,
};

/*
 * The descriptors' write hook.  Event: stamp the id, run the triggers
 * (their own "if" filters), then write the record when tracing is on and
 * the event's filter passes.  Marker: write FT_EXT_MARKER/BINMARKER.
 */
static void ev_write(struct ftrail_event *d, void *rec, uint32_t len)
{
	struct ev_type *e = d->priv;
	struct ev_conf *c;
	struct rt_thread *t;
	uint32_t type = FT_EXT_EVENT;

	if (rt_orphaned())
		rt_detach();
	if (unlikely(__atomic_load_n(&rt.detached, __ATOMIC_RELAXED))) {
		/* nobody records any more: the emitter stops calling us */
		__atomic_store_n(&d->enabled, 0, __ATOMIC_RELAXED);
		return;
	}
	if (d->kind == FTRAIL_KIND_MARKER) {
		type = (len & FTRAIL_MARKER_BINARY) ? FT_EXT_BINMARKER : FT_EXT_MARKER;
		len &= ~FTRAIL_MARKER_BINARY;
	} else {
		if (!e)
			return;
		/* acquire: pairs with rt_events_edit's release of a new conf */
		c = __atomic_load_n(&e->conf, __ATOMIC_ACQUIRE);
		memcpy(rec, &e->id, 4);
		if (c->nr_trig) {
			/* the program's state at its call here, for stacktrace */
			uint64_t *fp = __builtin_frame_address(0);
			struct rt_ustate us = { fp[1], (uint64_t)(fp + 2), fp[0] };

			for (int i = 0; i < c->nr_trig; i++)
				if (ft_trigger_fire(&c->trig[i], rec, len, &trig_ops, &us))
					__atomic_add_fetch(&ev.area->triggers, 1, __ATOMIC_RELAXED);
		}
		/* enabled for its triggers only (or disabled by disable_event) */
		if (!__atomic_load_n(&e->enabled, __ATOMIC_RELAXED))
			return;
		if (c->filter && !ft_filter_match(c->filter, rec, len)) {
			__atomic_add_fetch(&ev.area->filtered, 1, __ATOMIC_RELAXED);
			return;
		}
	}
	if (!tracing_is_on(NULL))
		return;
	t = rt_thread_get();
	if (!t || !t->rb.area || !t->rb.slot) {
		__atomic_add_fetch(&ev.area->lost, 1, __ATOMIC_RELAXED);
		/*
		 * A thread with no ring (exiting: a signal handler that runs
		 * after its detach; or no slot): counted with the ring's
		 * no-slot losses too, so record's total and show's LOST lines
		 * include it (the recorder shows them: urecord.c show_noslot).
		 */
		if (rt.area)
			__atomic_add_fetch(&rt.area->lost_noslot, 1, __ATOMIC_RELAXED);
		return;
	}
	if (ft_rb_ext(&t->rb, type, rec, len, ft_rdtsc(), 1, 1))
		__atomic_add_fetch(&ev.area->lost, 1, __ATOMIC_RELAXED);
	else if (type == FT_EXT_EVENT)
		__atomic_add_fetch(&ev.area->written, 1, __ATOMIC_RELAXED);
}

/* ---- setup ---- */

/* Append the format of e (first descriptor) to the area. */
static void publish_format(struct ev_type *e, const struct ftrail_event *d)
{
	char buf[8192];
	int n = ft_uev_format(d, e->id, buf, sizeof(buf));
	uint32_t need, off;

	if (n <= 0 || n >= (int)sizeof(buf)) {
		ev_msg("event %s:%s: format too long, not recorded", e->sys, e->name);
		return;
	}
	need = 8 + (((uint32_t)n + 3) & ~3u);
	off = __atomic_fetch_add(&ev.area->fmt_used, need, __ATOMIC_RELAXED);
	if (off + need > sizeof(ev.area->fmt)) {
		ev_msg("event %s:%s: no room left for its format", e->sys, e->name);
		return;
	}
	memcpy(ev.area->fmt + off, &n, 4);
	memcpy(ev.area->fmt + off + 8, buf, (size_t)n);
	/* publishes the entry to the recorder's acquire load of ready */
	__atomic_store_n((uint32_t *)(void *)(ev.area->fmt + off + 4), 1u, __ATOMIC_RELEASE);
}

static int sane_desc(const struct ftrail_event *d)
{
	if (d->magic != FTRAIL_EVENT_MAGIC || d->abi != FTRAIL_ABI_VERSION)
		return 0;
	if (d->kind == FTRAIL_KIND_MARKER)
		return 1;
	return d->subsys && d->name && d->fields && d->nr_fields <= FTRAIL_MAX_FIELDS &&
	       strlen(d->subsys) < 64 && strlen(d->name) < 64;
}

/* Configure a new type from the selection lines that name it. */
static void type_configure(struct ev_type *e, const struct ftrail_event *d)
{
	char err[512];

	for (int i = 0; i < ev.nr_sels; i++) {
		struct sel *s = &ev.sels[i];

		if (!ft_uev_name_match(s->name, e->sys, e->name))
			continue;
		s->matched = 1;
		e->selected = 1;
		/* a later -e naming the event replaces an earlier filter; a
		 * subsystem/glob filter skips events without its fields */
		if (s->filter && *s->filter) {
			struct ft_filter_err fe;
			struct ft_filter *f =
				ft_filter_compile(s->filter, d->fields, d->nr_fields, &fe);

			if (f) {
				ft_filter_free(e->conf0.filter);
				free(e->conf0.filter_text);
				e->conf0.filter = f;
				e->conf0.filter_text = strdup(s->filter);
			} else if (ft_uev_sel_exact(s->name)) {
				ev_msg("-e %s: filter for %s:%s: %s", s->name, e->sys, e->name,
				       ft_filter_strerror(s->filter, &fe, 0, err, sizeof(err)));
			}
		}
		if (s->trigger && *s->trigger && e->conf0.nr_trig < EV_MAX_TRIG) {
			struct ft_trigger *t = &e->conf0.trig[e->conf0.nr_trig];

			if (ft_trigger_parse(s->trigger, t, err, sizeof(err)) ||
			    ft_trigger_bind(t, d->fields, d->nr_fields, err, sizeof(err))) {
				if (ft_uev_sel_exact(s->name))
					ev_msg("-e %s: trigger for %s:%s: %s", s->name, e->sys,
					       e->name, err);
				ft_trigger_free(t);
				continue;
			}
			e->conf0.nr_trig++;
		}
	}
}

/*
 * Stands in for the descriptors of an object that was dlclose()d
 * (forget_range): type_set_enabled may still store into it, harmlessly.
 */
static struct ftrail_event ev_gone;

/*
 * A copy of d's name and layout that outlives d's object (which dlclose
 * may unmap): what a type compares new descriptors with.  NULL when out of
 * memory.
 */
static const struct ftrail_event *layout_copy(const struct ftrail_event *d)
{
	struct ftrail_event *c = calloc(1, sizeof(*c));
	struct ftrail_field *f = calloc(d->nr_fields ? d->nr_fields : 1, sizeof(*f));
	uint32_t i = 0;

	if (!c || !f)
		goto fail;
	c->kind = d->kind;
	c->nr_fields = d->nr_fields;
	c->size = d->size;
	c->subsys = strdup(d->subsys);
	c->name = strdup(d->name);
	c->fmt = d->fmt ? strdup(d->fmt) : NULL;
	c->fields = f;
	if (!c->subsys || !c->name || (d->fmt && !c->fmt))
		goto fail;
	for (i = 0; i < d->nr_fields; i++) {
		f[i] = d->fields[i];
		f[i].name = strdup(d->fields[i].name);
		if (!f[i].name)
			goto fail;
	}
	return c;
fail:
	while (f && i--)
		free((char *)f[i].name);
	if (c) {
		free((char *)c->subsys);
		free((char *)c->name);
		free((char *)c->fmt);
	}
	free(f);
	free(c);
	return NULL;
}

static void add_desc(struct ftrail_event *d)
{
	uint32_t k;
	struct ev_type *e;

	if (!sane_desc(d))
		return;
	if (d->kind == FTRAIL_KIND_MARKER) {
		int j;

		for (j = 0; j < ev.nr_markers && ev.markers[j] != d; j++)
			;
		if (j == ev.nr_markers && j < EV_MAX_MARKERS)
			ev.markers[ev.nr_markers++] = d;
		d->priv = NULL;
		__atomic_store_n(&d->write, ev_write, __ATOMIC_RELEASE);
		__atomic_store_n(&d->enabled, 1, __ATOMIC_RELAXED);
		return;
	}
	if (d->priv) /* already ours (a section seen twice) */
		return;
	e = find_type_for(d);
	if (!e) {
		if (find_type(d->subsys, d->name))
			ev_msg("event %s:%s is defined with different fields in two objects: "
			       "each layout gets its own id",
			       d->subsys, d->name);
		if (ev.nr_types >= EV_MAX_TYPES)
			return;
		e = calloc(1, sizeof(*e));
		if (!e)
			return;
		strcpy(e->sys, d->subsys);
		strcpy(e->name, d->name);
		e->first = layout_copy(d);
		e->conf = &e->conf0;
		e->id = __atomic_add_fetch(&ev.area->next_id, 1, __ATOMIC_RELAXED);
		type_configure(e, d);
		publish_format(e, d);
		e->enabled = e->selected;
		if (e->id < FT_UEV_EN_IDS)
			__atomic_store_n(&ev.area->en[e->id], e->enabled, __ATOMIC_RELAXED);
		if (e->selected)
			__atomic_add_fetch(&ev.area->nr_events, 1, __ATOMIC_RELAXED);
		ev.types[ev.nr_types] = e;
		/* publishes the filled type to find_type's acquire */
		__atomic_store_n(&ev.nr_types, ev.nr_types + 1, __ATOMIC_RELEASE);
	}
	/* the place of a descriptor whose object went away, else a new one */
	for (k = 0; k < e->nr_descs && e->descs[k] != &ev_gone; k++)
		;
	if (k == EV_MAX_DESCS) {
		ev_msg("event %s:%s: more than %d copies, the others stay disabled", e->sys,
		       e->name, EV_MAX_DESCS);
		return;
	}
	/* release: d's fields are ours to read before type_set_enabled sees it */
	__atomic_store_n(&e->descs[k], d, __ATOMIC_RELEASE);
	if (k == e->nr_descs)
		/* publishes descs[n] to type_set_enabled's acquire */
		__atomic_store_n(&e->nr_descs, e->nr_descs + 1, __ATOMIC_RELEASE);
	d->id = e->id;
	d->priv = e;
	/* publishes priv and id to the emitter's acquire load of write */
	__atomic_store_n(&d->write, ev_write, __ATOMIC_RELEASE);
	/* enabled for recording, or for its triggers */
	__atomic_store_n(&d->enabled, (uint8_t)(e->enabled || e->conf->nr_trig), __ATOMIC_RELAXED);
}

/*
 * The "__ftrail_events" section of the object in file path, loaded at
 * bias: read its section headers (the file is mapped read-only just for
 * this).  Calls add_desc for each descriptor.  Silently skips objects that
 * cannot be read (they cannot have been built with our header then, or
 * the file changed under us).
 */
static void scan_object(const char *path, uint64_t bias)
{
	struct stat st;
	const Elf64_Ehdr *eh;
	const Elf64_Shdr *sh;
	const char *strtab;
	void *map;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (fstat(fd, &st) || (size_t)st.st_size < sizeof(Elf64_Ehdr)) {
		close(fd);
		return;
	}
	map = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fd, 0);
	close(fd);
	if (map == MAP_FAILED)
		return;
	eh = map;
	if (memcmp(eh->e_ident, ELFMAG, SELFMAG) || eh->e_ident[EI_CLASS] != ELFCLASS64 ||
	    eh->e_shentsize != sizeof(Elf64_Shdr) || eh->e_shstrndx >= eh->e_shnum ||
	    eh->e_shoff > (uint64_t)st.st_size ||
	    (uint64_t)eh->e_shnum * sizeof(Elf64_Shdr) > (uint64_t)st.st_size - eh->e_shoff)
		goto out;
	sh = (const Elf64_Shdr *)((const char *)map + eh->e_shoff);
	if (sh[eh->e_shstrndx].sh_offset > (uint64_t)st.st_size ||
	    sh[eh->e_shstrndx].sh_size > (uint64_t)st.st_size - sh[eh->e_shstrndx].sh_offset)
		goto out;
	strtab = (const char *)map + sh[eh->e_shstrndx].sh_offset;
	for (unsigned int i = 0; i < eh->e_shnum; i++) {
		struct ftrail_event **p;
		size_t n;

		if (sh[i].sh_name >= sh[eh->e_shstrndx].sh_size ||
		    strncmp(strtab + sh[i].sh_name, FTRAIL_SECTION,
			    sh[eh->e_shstrndx].sh_size - sh[i].sh_name) ||
		    !(sh[i].sh_flags & SHF_ALLOC))
			continue;
		/* the section as loaded (relocated) in memory */
		p = (struct ftrail_event **)(uintptr_t)(bias + sh[i].sh_addr);
		n = sh[i].sh_size / sizeof(*p);
		for (size_t k = 0; k < n; k++)
			if (p[k])
				add_desc(p[k]);
	}
out:
	munmap(map, (size_t)st.st_size);
}

/*
 * An object dlclose() took away was mapped at [lo, hi): its descriptors
 * leave the types (their slots point to ev_gone, which a later descriptor
 * may take), so no trigger writes into the unmapped memory.  A trigger
 * running in another thread between the unmapping and this call may still
 * do so: dlclose gives no notice before it unmaps.  Caller holds ev.lock.
 */
static void forget_range(uint64_t lo, uint64_t hi)
{
	for (uint32_t i = 0; i < ev.nr_types; i++) {
		struct ev_type *e = ev.types[i];

		for (uint32_t k = 0; k < e->nr_descs; k++) {
			uint64_t a = (uint64_t)(uintptr_t)e->descs[k];

			if (a >= lo && a < hi)
				/* release: pairs with type_set_enabled's acquire */
				__atomic_store_n(&e->descs[k], &ev_gone, __ATOMIC_RELEASE);
		}
		if (e->first && (uint64_t)(uintptr_t)e->first >= lo &&
		    (uint64_t)(uintptr_t)e->first < hi)
			e->first = NULL; /* not a copy (out of memory): gone with it */
	}
	for (int k = 0; k < ev.nr_markers;) {
		uint64_t a = (uint64_t)(uintptr_t)ev.markers[k];

		if (a >= lo && a < hi)
			ev.markers[k] = ev.markers[--ev.nr_markers];
		else
			k++;
	}
}

struct scan_arg {
	int main_seen;
	int mark_only; /* only mark the known objects still loaded */
};

/* Identity of a loaded object: its load bias and the loader's name for it. */
static uint64_t obj_key(const char *name, uint64_t bias)
{
	uint64_t h = 0xcbf29ce484222325ull;

	for (; name && *name; name++)
		h = (h ^ (uint8_t)*name) * 0x100000001b3ull;
	return h ^ bias;
}

static int scan_cb(struct dl_phdr_info *info, size_t size, void *arg)
{
	struct scan_arg *sa = arg;
	const char *path = info->dlpi_name;
	uint64_t key, lo = UINT64_MAX, hi = 0;
	char exe[4096];

	(void)size;
	if (!path || !*path) {
		/* the main program (the first entry has an empty name) */
		ssize_t n;

		if (sa->main_seen++)
			return 0;
		n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0)
			return 0;
		exe[n] = 0;
		path = exe;
	}
	if (strstr(path, "linux-vdso") || strstr(path, "libftrail.so"))
		return 0;
	key = obj_key(info->dlpi_name, (uint64_t)info->dlpi_addr);
	for (int i = 0; i < ev.nr_objs; i++)
		if (ev.objs[i].key == key) {
			ev.objs[i].seen = 1;
			return 0;
		}
	if (sa->mark_only)
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type != PT_LOAD)
			continue;
		if (info->dlpi_addr + ph->p_vaddr < lo)
			lo = info->dlpi_addr + ph->p_vaddr;
		if (info->dlpi_addr + ph->p_vaddr + ph->p_memsz > hi)
			hi = info->dlpi_addr + ph->p_vaddr + ph->p_memsz;
	}
	if (ev.nr_objs < EV_MAX_OBJS)
		ev.objs[ev.nr_objs++] = (struct ev_obj){ key, lo, hi, 1 };
	scan_object(path, (uint64_t)info->dlpi_addr);
	return 0;
}

/*
 * Bring the descriptors up to date with the loaded objects: forget those
 * of objects that went away (dlclose), then scan the new ones.  Caller
 * holds ev.lock (or is the constructor).
 */
static void scan_all(void)
{
	struct scan_arg sa = { 0, 1 };

	for (int i = 0; i < ev.nr_objs; i++)
		ev.objs[i].seen = 0;
	dl_iterate_phdr(scan_cb, &sa);
	for (int i = 0; i < ev.nr_objs;) {
		if (ev.objs[i].seen) {
			i++;
			continue;
		}
		forget_range(ev.objs[i].lo, ev.objs[i].hi);
		ev.objs[i] = ev.objs[--ev.nr_objs];
	}
	sa = (struct scan_arg){ 0, 0 };
	dl_iterate_phdr(scan_cb, &sa);
}

/* Parse the area's selection text into ev.sels. */
static int parse_sel(void)
{
	char *txt = strndup(ev.area->sel, sizeof(ev.area->sel));
	char *line, *save = NULL;

	if (!txt)
		return -1;
	ev.sel_txt = txt;
	for (line = strtok_r(txt, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *f = strchr(line, FT_UEV_SEP), *t = f ? strchr(f + 1, FT_UEV_SEP) : NULL;
		struct sel *ns = realloc(ev.sels, (ev.nr_sels + 1) * sizeof(*ns));

		if (!ns || !f || !t)
			break;
		*f++ = 0;
		*t++ = 0;
		ev.sels = ns;
		ev.sels[ev.nr_sels].name = line;
		ev.sels[ev.nr_sels].filter = f;
		ev.sels[ev.nr_sels].trigger = t;
		ev.sels[ev.nr_sels].matched = 0;
		ev.nr_sels++;
	}
	return 0; /* txt stays (ev.sel_txt): the selections point into it */
}

/* After a dlopen or dlclose: pick up the events of newly loaded objects, forget the gone. */
void rt_events_rescan(void)
{
	if (!ev.area)
		return;
	pthread_mutex_lock(&ev.lock);
	scan_all();
	pthread_mutex_unlock(&ev.lock);
}

/*
 * A tool switched events on or off (uevent.h, live enable): apply en[] to
 * every event of this process.  Called under rt.lock when the session's
 * control generation moved (control.c).
 */
void rt_events_sync(void)
{
	static const struct ft_uev_area *applied_area; /* an attach brings another */
	static uint32_t applied;
	uint32_t g, n;

	if (!ev.area)
		return;
	if (ev.area != applied_area) {
		applied_area = ev.area;
		applied = 0;
	}
	/* acquire: pairs with the tool's release increment after its en[] stores */
	g = __atomic_load_n(&ev.area->en_gen, __ATOMIC_ACQUIRE);
	if (g == applied)
		return;
	applied = g;
	/* acquire: pairs with add_desc's release of nr_types */
	n = __atomic_load_n(&ev.nr_types, __ATOMIC_ACQUIRE);
	for (uint32_t i = 0; i < n; i++) {
		struct ev_type *e = ev.types[i];
		uint8_t want;

		if (e->id >= FT_UEV_EN_IDS)
			continue;
		want = __atomic_load_n(&ev.area->en[e->id], __ATOMIC_RELAXED);
		if (want != __atomic_load_n(&e->enabled, __ATOMIC_RELAXED))
			type_set_enabled(e, want != 0);
	}
}

/* ---- live edits of filters and triggers (uevent.h, "Live edits") ---- */

/* Which trigger of c does the same as t (a second one is refused, as ftrace does); -1: none. */
static int conf_find_trig(const struct ev_conf *c, const struct ft_trigger *t)
{
	for (int i = 0; i < c->nr_trig; i++) {
		const struct ft_trigger *o = &c->trig[i];

		if (o->cmd != t->cmd)
			continue;
		if ((t->cmd == FT_TRIG_ENABLE_EVENT || t->cmd == FT_TRIG_DISABLE_EVENT) &&
		    (strcmp(o->sys, t->sys) || strcmp(o->event, t->event)))
			continue;
		return i;
	}
	return -1;
}

/*
 * The conf e would have after the edit (op, text), or NULL with -errno in
 * *res and a one-line reason in msg.  e->conf is not touched.
 */
static struct ev_conf *conf_edited(const struct ev_type *e, uint32_t op, const char *text, int *res,
				   char *msg, size_t len)
{
	const struct ftrail_event *d = e->first;
	struct ev_conf *c;

	*res = 0;
	if (!d) {
		*res = -ENODEV;
		snprintf(msg, len, "the event's layout is not known");
		return NULL;
	}
	c = malloc(sizeof(*c));
	if (!c) {
		*res = -ENOMEM;
		snprintf(msg, len, "out of memory");
		return NULL;
	}
	*c = *e->conf; /* the triggers' filters are shared: neither copy frees them */
	if (op == FT_UEV_EDIT_FILTER) {
		struct ft_filter_err fe;

		c->filter = NULL;
		c->filter_text = NULL;
		if (!*text || !strcmp(text, "0"))
			return c; /* "echo 0 > filter" clears */
		c->filter = ft_filter_compile(text, d->fields, d->nr_fields, &fe);
		c->filter_text = strdup(text);
		if (!c->filter || !c->filter_text) {
			*res = c->filter ? -ENOMEM : -EINVAL;
			if (c->filter)
				snprintf(msg, len, "out of memory");
			else
				ft_filter_strerror(text, &fe, 0, msg, len);
			ft_filter_free(c->filter);
			free(c->filter_text);
			free(c);
			return NULL;
		}
		return c;
	}
	if (op == FT_UEV_EDIT_TRIGGER) {
		int rm = text[0] == '!', i;
		struct ft_trigger t;

		if (ft_trigger_parse(text + rm, &t, msg, len) ||
		    (!rm && ft_trigger_bind(&t, d->fields, d->nr_fields, msg, len))) {
			ft_trigger_free(&t);
			free(c);
			*res = -EINVAL;
			return NULL;
		}
		i = conf_find_trig(c, &t);
		if (rm) {
			ft_trigger_free(&t);
			if (i < 0) {
				snprintf(msg, len, "no such trigger on %s:%s", e->sys, e->name);
				free(c);
				*res = -ENOENT;
				return NULL;
			}
			/* the old conf keeps the removed trigger's filter: not freed */
			memmove(&c->trig[i], &c->trig[i + 1],
				(size_t)(c->nr_trig - i - 1) * sizeof(c->trig[0]));
			c->nr_trig--;
			return c;
		}
		if (i >= 0 || c->nr_trig == EV_MAX_TRIG) {
			snprintf(msg, len,
				 i >= 0 ? "the event has this trigger already"
					: "too many triggers on the event (8)");
			ft_trigger_free(&t);
			free(c);
			*res = i >= 0 ? -EEXIST : -ENOSPC;
			return NULL;
		}
		c->trig[c->nr_trig++] = t;
		return c;
	}
	snprintf(msg, len, "unknown edit");
	free(c);
	*res = -EINVAL;
	return NULL;
}

/* One line of the live table for e into buf; bytes (snprintf-like). */
static size_t live_line(const struct ev_type *e, char *buf, size_t len)
{
	const struct ev_conf *c = e->conf;
	size_t n = (size_t)snprintf(buf, len, "%s%c%s%c%s%c", e->sys, FT_UEV_SEP, e->name,
				    FT_UEV_SEP, c->filter_text ? c->filter_text : "", FT_UEV_SEP);

	for (int i = 0; i < c->nr_trig && n < len; i++) {
		char t[512];

		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? "\x1e" : "",
				      ft_trigger_format(&c->trig[i], t, sizeof(t)));
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, "\n");
	return n;
}

/*
 * Rewrite the area's live table (seqlock: uevent.h).  Types whose line
 * does not fit are left out (a tool then shows their selection's).
 * Caller holds ev.lock.
 */
static void live_table_write(void)
{
	struct ft_uev_area *a = ev.area;
	char *buf = malloc(FT_UEV_LIVE_MAX), line[4096];
	size_t n = 0;
	uint32_t seq;

	if (!buf)
		return;
	for (uint32_t i = 0; i < ev.nr_types; i++) {
		size_t l;

		if (!ev.types[i]->edited)
			continue;
		l = live_line(ev.types[i], line, sizeof(line));
		if (l < sizeof(line) && n + l <= FT_UEV_LIVE_MAX) {
			memcpy(buf + n, line, l);
			n += l;
		}
	}
	/* only this thread writes it: unchanged text (no count moved) stays as it is */
	if (n == a->live_len && !memcmp(buf, a->live, n)) {
		free(buf);
		return;
	}
	seq = __atomic_load_n(&a->live_seq, __ATOMIC_RELAXED);
	__atomic_store_n(&a->live_seq, seq + 1, __ATOMIC_RELAXED);
	/* release fence: the odd count is seen before any byte of the text changes */
	ft_fence(__ATOMIC_RELEASE);
	memcpy(a->live, buf, n);
	__atomic_store_n(&a->live_len, (uint32_t)n, __ATOMIC_RELAXED);
	/* release: publishes the text to a reader's acquire of live_seq */
	__atomic_store_n(&a->live_seq, seq + 2, __ATOMIC_RELEASE);
	free(buf);
}

/*
 * A tool's live edit of a filter or a trigger (uevent.h, "Live edits"):
 * apply it to every type of the name, or to none when one refuses it.
 * Runs in the live-control thread (control.c), never in a hook: compiling
 * allocates.  The hot path sees a type's new conf at its next event
 * (ev_write's acquire of e->conf).
 */
void rt_events_edit(void)
{
	static const struct ft_uev_area *answered_area; /* an attach brings another */
	static uint32_t answered;
	struct ft_uev_area *a;
	struct ev_conf *nc[64];
	struct ev_type *types[64];
	char msg[FT_UEV_EDIT_MAX], text[FT_UEV_EDIT_MAX];
	int res = 0, nr = 0;
	uint32_t g;

	pthread_mutex_lock(&ev.lock);
	a = ev.area;
	if (a != answered_area) {
		answered_area = a;
		answered = 0;
	}
	/* acquire: pairs with the tool's release increment after its request */
	if (!a || (g = __atomic_load_n(&a->edit_gen, __ATOMIC_ACQUIRE)) == answered) {
		/* the triggers' counts move as they fire: the table follows (1 s at most) */
		if (a && ev.edited)
			live_table_write();
		pthread_mutex_unlock(&ev.lock);
		return;
	}
	answered = g;
	msg[0] = 0;
	memcpy(text, a->edit_text, sizeof(text));
	text[sizeof(text) - 1] = 0;
	for (uint32_t i = 0; i < ev.nr_types && !res; i++) {
		struct ev_type *e = ev.types[i];

		if (strncmp(e->sys, a->edit_sys, sizeof(a->edit_sys)) ||
		    strncmp(e->name, a->edit_name, sizeof(a->edit_name)))
			continue;
		if (nr == (int)(sizeof(types) / sizeof(types[0]))) {
			res = -ENOSPC;
			snprintf(msg, sizeof(msg), "too many layouts of one event");
			break;
		}
		nc[nr] = conf_edited(e, a->edit_op, text, &res, msg, sizeof(msg));
		if (nc[nr])
			types[nr++] = e;
	}
	if (!res && !nr) {
		res = -ENODEV;
		snprintf(msg, sizeof(msg), "the program has no event %.64s:%.64s", a->edit_sys,
			 a->edit_name);
	}
	if (res) {
		/* nothing changes: the copies made for the others go */
		while (nr--)
			free(nc[nr]);
	} else {
		for (int i = 0; i < nr; i++) {
			/* release: the new conf's filter and triggers before the pointer */
			__atomic_store_n(&types[i]->conf, nc[i], __ATOMIC_RELEASE);
			types[i]->edited = 1;
			ev.edited = 1;
			/* descriptors stay enabled for triggers (type_set_enabled) */
			type_set_enabled(types[i],
					 __atomic_load_n(&types[i]->enabled, __ATOMIC_RELAXED));
		}
		live_table_write();
	}
	a->edit_res = res;
	snprintf(a->edit_text, sizeof(a->edit_text), "%s", res ? msg : "");
	/* release: edit_res and the reason before the tool's acquire of edit_done */
	__atomic_store_n(&a->edit_done, g, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&ev.lock);
}

/*
 * Use area a: parse its selection, enable the selected events of every
 * loaded object, warn about names nothing defines.  Caller holds ev.lock.
 */
static void start_locked(struct ft_uev_area *a)
{
	ev.area = a;
	if (parse_sel()) {
		ev_msg("user events: out of memory");
		return;
	}
	scan_all();
	for (int i = 0; i < ev.nr_sels; i++)
		if (!ev.sels[i].matched && strcmp(ev.sels[i].name, "all") &&
		    strcmp(ev.sels[i].name, "u:all"))
			ev_msg("-e %s: no such user event in %s (events are looked up in the program and its libraries)",
			       ev.sels[i].name, program_invocation_short_name);
}

/*
 * Every descriptor we enabled (markers included) back to disabled, as
 * the program's enabled bytes were before: the emitters stop calling us.
 * Their write hooks stay set (harmless while disabled).  Caller holds
 * ev.lock.
 */
static void disable_all(void)
{
	for (uint32_t i = 0; i < ev.nr_types; i++) {
		struct ev_type *e = ev.types[i];

		__atomic_store_n(&e->enabled, 0, __ATOMIC_RELAXED);
		for (uint32_t k = 0; k < e->nr_descs; k++)
			if (e->descs[k] != &ev_gone)
				__atomic_store_n(&e->descs[k]->enabled, 0, __ATOMIC_RELAXED);
	}
	for (int k = 0; k < ev.nr_markers; k++)
		__atomic_store_n(&ev.markers[k]->enabled, 0, __ATOMIC_RELAXED);
}

/*
 * Forget the previous attach's area, selection, types and scanned
 * objects, so the next one starts as a load-time start would (new ids,
 * its own selection and formats).  The old types are not freed: a thread
 * that was inside ev_write when the process was stopped may still read
 * one (a few hundred bytes per event type and attach).  Caller holds
 * ev.lock, the program's other threads stopped (ftrail_attach).
 */
static void reset_locked(void)
{
	disable_all();
	for (uint32_t i = 0; i < ev.nr_types; i++) {
		struct ev_type *e = ev.types[i];

		/* disabled above: a new scan gives them a type again (add_desc) */
		for (uint32_t k = 0; k < e->nr_descs; k++)
			if (e->descs[k] != &ev_gone)
				e->descs[k]->priv = NULL;
	}
	/* pairs with find_type's acquire: no type is found any more */
	__atomic_store_n(&ev.nr_types, 0, __ATOMIC_RELEASE);
	ev.edited = 0;
	ev.nr_objs = 0;
	ev.nr_markers = 0;
	free(ev.sels);
	free(ev.sel_txt);
	ev.sels = NULL;
	ev.sel_txt = NULL;
	ev.nr_sels = 0;
	ev.area = NULL;
}

/*
 * `ftrail record -P` attached (attach.c): user events and markers record
 * into this attach's area a (the selection of its -e u:...), or, a NULL,
 * stay disabled.  What an earlier attach set up is forgotten first.
 */
void rt_events_attach(struct ft_uev_area *a)
{
	pthread_mutex_lock(&ev.lock);
	reset_locked();
	if (a)
		start_locked(a);
	pthread_mutex_unlock(&ev.lock);
}

/* The detach (attach.c): every event and marker disabled again. */
void rt_events_detach(void)
{
	pthread_mutex_lock(&ev.lock);
	disable_all();
	pthread_mutex_unlock(&ev.lock);
}

/*
 * Runs at load time, before the program's constructors.  Without the
 * area (not under `ftrail record -e`, or a kernel-only selection) nothing
 * is enabled and every event keeps costing one byte test.
 */
__attribute__((constructor)) static void events_init(void)
{
	struct ft_uev_area *a = ft_uev_attach();

	if (!a)
		return;
	pthread_mutex_lock(&ev.lock);
	start_locked(a);
	pthread_mutex_unlock(&ev.lock);
}
