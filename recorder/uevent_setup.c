// SPDX-License-Identifier: GPL-2.0
/*
 * User trace events, the recorder's half (uevent_setup.h): check a
 * program's -e selections against the events its ELF files define, create
 * the shared area before the program starts, and write UFORMATS after it
 * ended.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/filter.h"
#include "core/glob.h"
#include "core/symbols.h"
#include "core/tracefile.h"
#include "core/trigger.h"
#include "core/uevent.h"
#include "core/opts.h"
#include "recorder/uevent_setup.h"

/* ---- static view of a program's events (before it runs) ---- */

struct elfview {
	Elf *elf;
	size_t nsec;
	GElf_Rela *rel; /* RELATIVE relocations, sorted by offset */
	size_t nrel;
};

static int rel_cmp(const void *a, const void *b)
{
	const GElf_Rela *x = a, *y = b;

	return x->r_offset < y->r_offset ? -1 : x->r_offset > y->r_offset;
}

/* Copy len bytes at virtual address va out of the file's sections. */
static int ev_read(struct elfview *v, uint64_t va, void *dst, size_t len)
{
	for (size_t i = 1; i < v->nsec; i++) {
		Elf_Scn *scn = elf_getscn(v->elf, i);
		GElf_Shdr sh;
		Elf_Data *d;

		if (!scn || !gelf_getshdr(scn, &sh) || !(sh.sh_flags & SHF_ALLOC) ||
		    sh.sh_type == SHT_NOBITS || va < sh.sh_addr || va - sh.sh_addr >= sh.sh_size)
			continue;
		if (len > sh.sh_size - (va - sh.sh_addr))
			return -1;
		d = elf_getdata(scn, NULL);
		if (!d || !d->d_buf || d->d_size < sh.sh_size)
			return -1;
		memcpy(dst, (char *)d->d_buf + (va - sh.sh_addr), len);
		return 0;
	}
	return -1;
}

/* The pointer stored at va once relocated (RELATIVE addend, else the bytes). */
static uint64_t ev_ptr(struct elfview *v, uint64_t va)
{
	GElf_Rela key = { .r_offset = va }, *r;
	uint64_t p = 0;

	r = v->nrel ? bsearch(&key, v->rel, v->nrel, sizeof(*r), rel_cmp) : NULL;
	if (r)
		return (uint64_t)r->r_addend;
	if (ev_read(v, va, &p, sizeof(p)))
		return 0;
	return p;
}

static int ev_str(struct elfview *v, uint64_t va, char *buf, size_t len)
{
	for (size_t i = 0; i + 1 < len; i++) {
		if (ev_read(v, va + i, &buf[i], 1))
			return -1;
		if (!buf[i])
			return 0;
	}
	return -1;
}

int ft_uev_scan_file(const char *path, int (*fn)(const struct ftrail_event *ev, void *arg),
		     void *arg, char *err, size_t errlen)
{
	struct elfview v = { 0 };
	size_t shstr;
	int fd, count = 0;
	Elf_Scn *scn = NULL;

	v.elf = ft_elf_open(path, &fd, err, errlen);
	if (!v.elf)
		return -1;
	if (gelf_getclass(v.elf) != ELFCLASS64 || elf_getshdrnum(v.elf, &v.nsec) ||
	    elf_getshdrstrndx(v.elf, &shstr)) {
		snprintf(err, errlen, "%s: not a 64-bit ELF file", path);
		count = -1;
		goto out;
	}
	/* RELATIVE relocations: the pointers of a PIE or a library */
	while ((scn = elf_nextscn(v.elf, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_RELA || !sh.sh_entsize)
			continue;
		d = elf_getdata(scn, NULL);
		for (size_t i = 0; d && i < sh.sh_size / sh.sh_entsize; i++) {
			GElf_Rela r;
			GElf_Rela *nr;

			if (!gelf_getrela(d, (int)i, &r))
				break;
			if (GELF_R_TYPE(r.r_info) != R_X86_64_RELATIVE &&
			    GELF_R_TYPE(r.r_info) != 1027 /* R_AARCH64_RELATIVE */)
				continue;
			nr = realloc(v.rel, (v.nrel + 1) * sizeof(*nr));
			if (!nr)
				break;
			v.rel = nr;
			v.rel[v.nrel++] = r;
		}
	}
	if (v.nrel)
		qsort(v.rel, v.nrel, sizeof(*v.rel), rel_cmp);
	scn = NULL;
	while ((scn = elf_nextscn(v.elf, scn))) {
		GElf_Shdr sh;
		const char *name;

		if (!gelf_getshdr(scn, &sh) || !(name = elf_strptr(v.elf, shstr, sh.sh_name)) ||
		    strcmp(name, FTRAIL_SECTION))
			continue;
		for (uint64_t off = 0; off + 8 <= sh.sh_size; off += 8) {
			uint64_t dva = ev_ptr(&v, sh.sh_addr + off), fva;
			struct ftrail_event d;
			struct ftrail_field fields[FTRAIL_MAX_FIELDS];
			char sys[64], evn[64], fnames[FTRAIL_MAX_FIELDS][64];
			int bad = 0;

			if (!dva || ev_read(&v, dva, &d, sizeof(d)) ||
			    d.magic != FTRAIL_EVENT_MAGIC || d.abi != FTRAIL_ABI_VERSION ||
			    d.kind != FTRAIL_KIND_EVENT || d.nr_fields > FTRAIL_MAX_FIELDS)
				continue;
			if (ev_str(&v, ev_ptr(&v, dva + offsetof(struct ftrail_event, subsys)), sys,
				   sizeof(sys)) ||
			    ev_str(&v, ev_ptr(&v, dva + offsetof(struct ftrail_event, name)), evn,
				   sizeof(evn)))
				continue;
			fva = ev_ptr(&v, dva + offsetof(struct ftrail_event, fields));
			for (uint32_t i = 0; i < d.nr_fields && !bad; i++) {
				uint64_t at = fva + i * sizeof(struct ftrail_field);

				if (ev_read(&v, at, &fields[i], sizeof(fields[i])) ||
				    ev_str(&v, ev_ptr(&v, at + offsetof(struct ftrail_field, name)),
					   fnames[i], sizeof(fnames[i])))
					bad = 1;
				fields[i].name = fnames[i];
			}
			if (bad)
				continue;
			d.subsys = sys;
			d.name = evn;
			d.fmt = NULL;
			d.fields = fields;
			d.write = NULL;
			d.priv = NULL;
			count++;
			if (fn && fn(&d, arg))
				break;
		}
	}
out:
	free(v.rel);
	if (v.elf)
		elf_end(v.elf);
	close(fd);
	return count;
}

/* The program execvp would run for name, into buf; NULL when not found. */
static const char *find_program(const char *name, char *buf, size_t len)
{
	const char *path = getenv("PATH"), *p;

	if (strchr(name, '/'))
		return name;
	for (p = path ? path : "/usr/bin:/bin"; *p;) {
		const char *e = strchr(p, ':');
		size_t n = e ? (size_t)(e - p) : strlen(p);

		snprintf(buf, len, "%.*s/%s", (int)n, n ? p : ".", name);
		if (!access(buf, X_OK))
			return buf;
		p += n + (e ? 1 : 0);
	}
	return NULL;
}

struct check_arg {
	const struct ft_record_opts *o;
	int (*is_kernel)(const char *);
	char *err;
	size_t errlen;
	int failed;
	unsigned char *matched; /* per -e: some event accepted its filter/trigger */
	char (*msgs)[512];	/* per -e: the first refusal */
};

static int is_user_sel(const char *name, int (*is_kernel)(const char *));

/* For one event of the program: compile the filters and triggers that name it. */
static int check_event(const struct ftrail_event *d, void *argp)
{
	struct check_arg *a = argp;

	for (size_t i = 0; i < a->o->nr_events; i++) {
		const struct ft_event_sel *s = &a->o->events[i];
		int exact = ft_uev_sel_exact(s->name), ok = 1;
		struct ft_filter_err fe;
		struct ft_filter *f;
		struct ft_trigger t;
		char msg[384], e2[400];

		if (!is_user_sel(s->name, a->is_kernel) ||
		    !ft_uev_name_match(s->name, d->subsys, d->name))
			continue;
		if (s->filter) {
			f = ft_filter_compile(s->filter, d->fields, d->nr_fields, &fe);
			if (!f) {
				ok = 0;
				if (!a->msgs[i][0] || exact)
					snprintf(a->msgs[i], sizeof(a->msgs[i]),
						 "-e %s: filter '%s' for %s:%s: %s", s->name,
						 s->filter, d->subsys, d->name,
						 ft_filter_strerror(s->filter, &fe, 0, msg,
								    sizeof(msg)));
			}
			ft_filter_free(f);
		}
		if (ok && s->trigger && !ft_trigger_parse(s->trigger, &t, msg, sizeof(msg))) {
			if (ft_trigger_bind(&t, d->fields, d->nr_fields, e2, sizeof(e2))) {
				ok = 0;
				if (!a->msgs[i][0] || exact)
					snprintf(a->msgs[i], sizeof(a->msgs[i]), "-e %s: %s:%s: %s",
						 s->name, d->subsys, d->name, e2);
			}
			ft_trigger_free(&t);
		}
		if (ok)
			a->matched[i] = 1;
		else if (exact) {
			snprintf(a->err, a->errlen, "%s", a->msgs[i]);
			a->failed = 1;
			return 1;
		}
	}
	return 0;
}

/*
 * Check the user -e selections against the events the program file
 * defines (its libraries are checked by the runtime, which warns): the
 * file of PROG, or of the -P process (/proc/PID/exe), before it is
 * attached to.
 */
static int check_program(const struct ft_record_opts *o, int (*is_kernel)(const char *), char *err,
			 size_t errlen)
{
	unsigned char matched[o->nr_events + 1];
	char(*msgs)[512];
	struct check_arg a = { o, is_kernel, err, errlen, 0, matched, NULL };
	char buf[4096], e2[256];
	const char *prog;
	int n;

	if (!o->argv && o->attach_pid > 0) {
		snprintf(buf, sizeof(buf), "/proc/%d/exe", (int)o->attach_pid);
		prog = buf;
	} else if (!o->argv || !o->argv[0] ||
		   !(prog = find_program(o->argv[0], buf, sizeof(buf)))) {
		return 0; /* the recorder reports a missing program */
	}
	a.msgs = msgs = calloc(o->nr_events + 1, sizeof(*msgs));
	if (!msgs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	memset(matched, 0, sizeof(matched));
	n = ft_uev_scan_file(prog, check_event, &a, e2, sizeof(e2));
	/* n < 0: not ELF (a script...): the runtime will look */
	for (size_t i = 0; n > 0 && !a.failed && i < o->nr_events; i++)
		if (!matched[i] && msgs[i][0]) { /* refused by every event it names */
			snprintf(err, errlen, "%s", msgs[i]);
			a.failed = 1;
		}
	free(msgs);
	return a.failed ? -1 : 0;
}

/* Check a filter's syntax before the event's fields are known (the
 * runtime checks fields and types against the real event). */
static int check_filter_syntax(const char *expr, char *err, size_t errlen)
{
	struct ft_filter_err fe;
	char msg[384];

	if (!ft_filter_check_syntax(expr, &fe))
		return 0;
	snprintf(err, errlen, "filter '%s': %s", expr,
		 ft_filter_strerror(expr, &fe, 0, msg, sizeof(msg)));
	return -1;
}

/* -e names for user events: "u:..." always, others when the kernel does
 * not take them (kernel/: every name without "u:" is a kernel one). */
static int is_user_sel(const char *name, int (*is_kernel)(const char *))
{
	return !strncmp(name, "u:", 2) || !is_kernel || !is_kernel(name);
}

struct ft_uev_area *ft_uev_setup(const struct ft_record_opts *o, int (*is_kernel)(const char *),
				 int always, char *err, size_t errlen)
{
	struct ft_uev_area *a;
	size_t n = 0;
	int fd, any = 0;
	char fdstr[16];

	err[0] = 0;
	for (size_t i = 0; i < o->nr_events; i++) {
		const struct ft_event_sel *s = &o->events[i];
		int user = is_user_sel(s->name, is_kernel);
		struct ft_trigger t;
		char msg[384];

		if (!user)
			continue;
		any = 1;
		if (!s->name[strncmp(s->name, "u:", 2) ? 0 : 2]) {
			snprintf(err, errlen, "-e '%s': empty event name", s->name);
			return NULL;
		}
		if (s->filter && check_filter_syntax(s->filter, msg, sizeof(msg))) {
			snprintf(err, errlen, "-e %s: %s", s->name, msg);
			return NULL;
		}
		if (s->trigger) {
			if (ft_trigger_parse(s->trigger, &t, msg, sizeof(msg))) {
				snprintf(err, errlen, "-e %s: trigger '%s': %s", s->name,
					 s->trigger, msg);
				return NULL;
			}
			if (t.filter_text && check_filter_syntax(t.filter_text, msg, sizeof(msg))) {
				snprintf(err, errlen, "-e %s: trigger '%s': %s", s->name,
					 s->trigger, msg);
				ft_trigger_free(&t);
				return NULL;
			}
			ft_trigger_free(&t);
		}
		if (strchr(s->name, FT_UEV_SEP) || strchr(s->name, '\n') ||
		    (s->filter && (strchr(s->filter, FT_UEV_SEP) || strchr(s->filter, '\n'))) ||
		    (s->trigger && (strchr(s->trigger, FT_UEV_SEP) || strchr(s->trigger, '\n')))) {
			snprintf(err, errlen, "-e %s: control characters in the selection",
				 s->name);
			return NULL;
		}
	}
	if (!any && !always)
		return NULL;
	if (any && check_program(o, is_kernel, err, errlen))
		return NULL;

	fd = memfd_create("ftrail-uev", 0); /* inherited by the program on purpose */
	if (fd < 0 || ftruncate(fd, sizeof(*a))) {
		snprintf(err, errlen, "cannot create the user event area: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the user event area: %s", strerror(errno));
		close(fd);
		return NULL;
	}
	a->magic = FT_UEV_MAGIC;
	a->version = FT_UEV_VERSION;
	for (size_t i = 0; i < o->nr_events; i++) {
		const struct ft_event_sel *s = &o->events[i];
		int w;

		if (!is_user_sel(s->name, is_kernel))
			continue;
		w = snprintf(a->sel + n, sizeof(a->sel) - n, "%s%c%s%c%s\n", s->name, FT_UEV_SEP,
			     s->filter ? s->filter : "", FT_UEV_SEP, s->trigger ? s->trigger : "");
		if (w < 0 || (size_t)w >= sizeof(a->sel) - n) {
			snprintf(err, errlen, "too many user event selections (%zu bytes max)",
				 sizeof(a->sel));
			munmap(a, sizeof(*a));
			close(fd);
			return NULL;
		}
		n += (size_t)w;
	}
	snprintf(fdstr, sizeof(fdstr), "%d", fd);
	setenv(FT_UEV_ENV_FD, fdstr, 1);
	return a;
}

/*
 * What ft_uev_sync() wrote of the format area (one recording at a time per
 * process, from the thread that drains it): ft_uev_finish() starts there.
 */
static uint32_t fmt_synced;
static const struct ft_uev_area *fmt_synced_area;

/* Write the formats from *off on (those ready), advancing *off.  0, or -1. */
static int write_formats(struct ft_uev_area *a, struct ft_writer *w, uint32_t *offp)
{
	uint32_t used = __atomic_load_n(&a->fmt_used, __ATOMIC_ACQUIRE), off = *offp;
	char *text = malloc(used + 1);
	size_t n = 0;
	int ret = 0;

	if (!text) {
		errno = ENOMEM;
		return -1;
	}
	if (used > sizeof(a->fmt))
		used = sizeof(a->fmt);
	while (off + 8 <= used) {
		uint32_t len, ready;

		memcpy(&len, a->fmt + off, 4);
		/* pairs with the runtime's release store of ready */
		ready = __atomic_load_n((uint32_t *)(void *)(a->fmt + off + 4), __ATOMIC_ACQUIRE);
		if (!ready || len > used - off - 8)
			break;
		memcpy(text + n, a->fmt + off + 8, len);
		n += len;
		off += 8 + ((len + 3) & ~3u);
	}
	if (n && w && ft_writer_add(w, FT_SEC_UFORMATS, 0, text, n, 1))
		ret = -1;
	else
		*offp = off;
	free(text);
	return ret;
}

int ft_uev_sync(struct ft_uev_area *a, struct ft_writer *w)
{
	if (fmt_synced_area != a) {
		fmt_synced_area = a;
		fmt_synced = 0;
	}
	return write_formats(a, w, &fmt_synced);
}

int ft_uev_finish(struct ft_uev_area *a, struct ft_writer *w, struct ft_uev_stats *st, char *msg,
		  size_t msglen)
{
	uint32_t off = fmt_synced_area == a ? fmt_synced : 0;
	int ret = write_formats(a, w, &off);

	fmt_synced_area = NULL;
	if (st) {
		st->written = __atomic_load_n(&a->written, __ATOMIC_RELAXED);
		st->filtered = __atomic_load_n(&a->filtered, __ATOMIC_RELAXED);
		st->lost = __atomic_load_n(&a->lost, __ATOMIC_RELAXED);
		st->truncated = __atomic_load_n(&a->truncated, __ATOMIC_RELAXED);
		st->triggers = __atomic_load_n(&a->triggers, __ATOMIC_RELAXED);
		st->snap_missed = __atomic_load_n(&a->snap_missed, __ATOMIC_RELAXED);
		st->nr_events = __atomic_load_n(&a->nr_events, __ATOMIC_RELAXED);
	}
	if (msg && msglen) {
		uint32_t m = __atomic_load_n(&a->msg_used, __ATOMIC_ACQUIRE);

		if (m > sizeof(a->msg))
			m = sizeof(a->msg);
		if (m >= msglen)
			m = (uint32_t)msglen - 1;
		memcpy(msg, a->msg, m);
		msg[m] = 0;
	}
	munmap(a, sizeof(*a));
	return ret;
}
