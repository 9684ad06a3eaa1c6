// SPDX-License-Identifier: GPL-2.0
/*
 * User trace events between runtime, recorder and readers (uevent.h).
 * Built into both the tool and the runtime; the tool-only half (setup,
 * finish, the reader) is left out of the runtime (FTRAIL_RUNTIME).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "filter.h"
#include "glob.h"
#include "uevent.h"

/* ---- shared by both sides ---- */

struct ft_uev_area *ft_uev_attach(void)
{
	const char *e = getenv(FT_UEV_ENV_FD);
	struct ft_uev_area *a;
	struct stat st;
	char *end;
	long fd;

	if (!e || !*e)
		return NULL;
	fd = strtol(e, &end, 10);
	if (*end || fd < 0 || fstat((int)fd, &st) || (size_t)st.st_size < sizeof(*a))
		return NULL;
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, (int)fd, 0);
	if (a == MAP_FAILED)
		return NULL;
	if (a->magic != FT_UEV_MAGIC || a->version != FT_UEV_VERSION) {
		munmap(a, sizeof(*a));
		return NULL;
	}
	return a;
}

/* Glob compare of one name component (a '*' or '?' or '[' makes it a glob). */
static int comp_match(const char *pat, size_t plen, const char *s)
{
	return ft_glob_match_n(pat, plen, s);
}

int ft_uev_name_match(const char *sel, const char *sys, const char *event)
{
	const char *colon;

	if (!strncmp(sel, "u:", 2))
		sel += 2;
	if (!strcmp(sel, "all"))
		return 1;
	colon = strchr(sel, ':');
	if (!colon)
		return comp_match(sel, strlen(sel), sys);
	return comp_match(sel, (size_t)(colon - sel), sys) &&
	       comp_match(colon + 1, strlen(colon + 1), event);
}

static const char *type_decl(const struct ftrail_field *f, char *buf, size_t len)
{
	static const char *const names[] = {
		[FTRAIL_T_U8] = "u8",   [FTRAIL_T_U16] = "u16", [FTRAIL_T_U32] = "u32",
		[FTRAIL_T_U64] = "u64", [FTRAIL_T_S8] = "s8",   [FTRAIL_T_S16] = "s16",
		[FTRAIL_T_S32] = "s32", [FTRAIL_T_S64] = "s64",
	};

	switch (f->type) {
	case FTRAIL_T_PTR:
		snprintf(buf, len, "void * %s", f->name);
		break;
	case FTRAIL_T_STRING:
		snprintf(buf, len, "__data_loc char[] %s", f->name);
		break;
	case FTRAIL_T_BYTES:
		snprintf(buf, len, "__data_loc u8[] %s", f->name);
		break;
	case FTRAIL_T_ARRAY:
		snprintf(buf, len, "u8 %s[%u]", f->name, f->size);
		break;
	default:
		snprintf(buf, len, "%s %s", f->type < FTRAIL_T_PTR ? names[f->type] : "u8",
			 f->name);
		break;
	}
	return buf;
}

int ft_uev_format(const struct ftrail_event *ev, uint32_t id, char *buf, size_t len)
{
	char decl[160];
	size_t n = 0;

#define OUT(...)                                                                    \
	do {                                                                        \
		int w_ = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, \
				  __VA_ARGS__);                                     \
		if (w_ > 0)                                                         \
			n += (size_t)w_;                                            \
	} while (0)

	OUT("name: %s\nID: %u\nsystem: %s\nformat:\n", ev->name, id, ev->subsys);
	OUT("\tfield:unsigned int common_type;\toffset:0;\tsize:4;\tsigned:0;\n\n");
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		const struct ftrail_field *f = &ev->fields[i];

		OUT("\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		    type_decl(f, decl, sizeof(decl)), f->offset, f->size, f->is_signed ? 1 : 0);
	}
	OUT("\nprint fmt: \"%s\"", ev->fmt ? ev->fmt : "");
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		const struct ftrail_field *f = &ev->fields[i];

		switch (f->type) {
		case FTRAIL_T_STRING:
			OUT(", __get_str(%s)", f->name);
			break;
		case FTRAIL_T_BYTES:
			OUT(", __print_hex_str(__get_dynamic_array(%s), __get_dynamic_array_len(%s))",
			    f->name, f->name);
			break;
		case FTRAIL_T_ARRAY:
			OUT(", __print_hex_str(REC->%s, %u)", f->name, f->size);
			break;
		default:
			OUT(", REC->%s", f->name);
			break;
		}
	}
	OUT("\n\n");
#undef OUT
	return (int)n;
}

/*
 * An -e naming exactly one event ("u:sys:event", no glob) must accept its
 * filter; a subsystem, glob or "all" selection applies its filter only to
 * the events that have its fields (as a tracefs subsystem filter does),
 * and is an error only when no event at all accepts it.
 */
int ft_uev_sel_exact(const char *name)
{
	const char *n = strncmp(name, "u:", 2) ? name : name + 2;
	const char *c = strchr(n, ':');

	return c && c > n && c[1] && !strpbrk(n, "*?[");
}

#ifndef FTRAIL_RUNTIME
/* ---- tool side ---- */

#include "opts.h"
#include "symbols.h"
#include "tracefile.h"
#include "trigger.h"

/* ---- static view of a program's events (before it runs) ---- */

#include <gelf.h>
#include <libelf.h>

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

			if (!dva || ev_read(&v, dva, &d, sizeof(d)) || d.magic != FTRAIL_EVENT_MAGIC ||
			    d.abi != FTRAIL_ABI_VERSION || d.kind != FTRAIL_KIND_EVENT ||
			    d.nr_fields > FTRAIL_MAX_FIELDS)
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
	unsigned char *matched;  /* per -e: some event accepted its filter/trigger */
	char (*msgs)[512];       /* per -e: the first refusal */
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
						 "-e %s: filter '%s' for %s:%s: %s", s->name, s->filter,
						 d->subsys, d->name,
						 ft_filter_strerror(s->filter, &fe, 0, msg, sizeof(msg)));
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
 * defines (its libraries are checked by the runtime, which warns).
 */
static int check_program(const struct ft_record_opts *o, int (*is_kernel)(const char *),
			 char *err, size_t errlen)
{
	unsigned char matched[o->nr_events + 1];
	char (*msgs)[512] = calloc(o->nr_events + 1, sizeof(*msgs));
	struct check_arg a = { o, is_kernel, err, errlen, 0, matched, msgs };
	char buf[4096], e2[256];
	const char *prog;
	int n;

	if (!o->argv || !o->argv[0] || !(prog = find_program(o->argv[0], buf, sizeof(buf))))
		return 0; /* the recorder reports a missing program */
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
				 char *err, size_t errlen)
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
				snprintf(err, errlen, "-e %s: trigger '%s': %s", s->name, s->trigger,
					 msg);
				return NULL;
			}
			if (t.filter_text && check_filter_syntax(t.filter_text, msg, sizeof(msg))) {
				snprintf(err, errlen, "-e %s: trigger '%s': %s", s->name, s->trigger,
					 msg);
				ft_trigger_free(&t);
				return NULL;
			}
			ft_trigger_free(&t);
		}
		if (strchr(s->name, FT_UEV_SEP) || strchr(s->name, '\n') ||
		    (s->filter && (strchr(s->filter, FT_UEV_SEP) || strchr(s->filter, '\n'))) ||
		    (s->trigger && (strchr(s->trigger, FT_UEV_SEP) || strchr(s->trigger, '\n')))) {
			snprintf(err, errlen, "-e %s: control characters in the selection", s->name);
			return NULL;
		}
	}
	if (!any)
		return NULL;
	if (check_program(o, is_kernel, err, errlen))
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

int ft_uev_finish(struct ft_uev_area *a, struct ft_writer *w, struct ft_uev_stats *st,
		  char *msg, size_t msglen)
{
	uint32_t used = __atomic_load_n(&a->fmt_used, __ATOMIC_ACQUIRE), off = 0;
	char *text = malloc(used + 1);
	size_t n = 0;
	int ret = 0;

	if (!text) {
		errno = ENOMEM;
		ret = -1;
		goto out;
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
	free(text);
out:
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

/* ---- reader ---- */

void ft_uev_table_free(struct ft_uev_table *t)
{
	free(t->fmts);
	t->fmts = NULL;
	t->nr = 0;
}

const struct ft_uev_fmt *ft_uev_table_find(const struct ft_uev_table *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->fmts[i].id == id)
			return &t->fmts[i];
	return NULL;
}

static int perr(char *err, size_t errlen, int line, const char *what)
{
	snprintf(err, errlen, "UFORMATS: line %d: %s", line, what);
	return -1;
}

/* "field:<decl>;\toffset:N;\tsize:N;\tsigned:N;" -> f (name into nbuf). */
static int parse_field(const char *l, struct ftrail_field *f, char *nbuf)
{
	char decl[160], *name, *br;
	unsigned int off, size, sgn;
	const char *semi = strchr(l, ';');
	size_t dl;

	if (strncmp(l, "field:", 6) || !semi)
		return -1;
	dl = (size_t)(semi - (l + 6));
	if (dl >= sizeof(decl) || !dl)
		return -1;
	memcpy(decl, l + 6, dl);
	decl[dl] = 0;
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%u;", &off, &size, &sgn) != 3 ||
	    off > 0xffff || size > 0xffff)
		return -1;
	name = strrchr(decl, ' ');
	if (!name || !name[1])
		return -1;
	*name++ = 0;
	br = strchr(name, '[');
	if (br)
		*br = 0;
	if (strlen(name) >= 64 || !*name)
		return -1;
	strcpy(nbuf, name);
	f->name = nbuf;
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn ? 1 : 0;
	if (!strcmp(decl, "__data_loc char[]"))
		f->type = FTRAIL_T_STRING;
	else if (!strcmp(decl, "__data_loc u8[]"))
		f->type = FTRAIL_T_BYTES;
	else if (!strcmp(decl, "void *"))
		f->type = FTRAIL_T_PTR;
	else if (br && !strcmp(decl, "u8"))
		f->type = FTRAIL_T_ARRAY;
	else if (decl[0] == 'u' || decl[0] == 's') {
		int bits = atoi(decl + 1);
		int base = decl[0] == 'u' ? FTRAIL_T_U8 : FTRAIL_T_S8;

		switch (bits) {
		case 8: f->type = (uint16_t)base; break;
		case 16: f->type = (uint16_t)(base + 1); break;
		case 32: f->type = (uint16_t)(base + 2); break;
		case 64: f->type = (uint16_t)(base + 3); break;
		default: return -1;
		}
		if ((1u << (f->type - base)) != size)
			return -1;
	} else {
		return -1;
	}
	if ((f->type == FTRAIL_T_STRING || f->type == FTRAIL_T_BYTES) && size != 4)
		return -1;
	if (f->type == FTRAIL_T_PTR && size != 8)
		return -1;
	return 0;
}

int ft_uev_table_parse(struct ft_uev_table *t, const char *text, size_t len, char *err,
		       size_t errlen)
{
	struct ft_uev_fmt *cur = NULL;
	size_t i = 0, cap = 0;
	int line = 0;
	char l[512];

	memset(t, 0, sizeof(*t));
	while (i < len) {
		size_t j = i, ll;

		while (j < len && text[j] != '\n')
			j++;
		ll = j - i;
		line++;
		if (ll >= sizeof(l))
			goto bad_line;
		memcpy(l, text + i, ll);
		l[ll] = 0;
		if (memchr(l, 0, ll))
			goto bad_line;
		i = j + 1;
		if (!strncmp(l, "name: ", 6)) {
			if (t->nr == cap) {
				size_t nc = cap ? cap * 2 : 16;
				struct ft_uev_fmt *nf = realloc(t->fmts, nc * sizeof(*nf));

				if (!nf) {
					ft_uev_table_free(t);
					return perr(err, errlen, line, "out of memory");
				}
				t->fmts = nf;
				cap = nc;
			}
			cur = &t->fmts[t->nr++];
			memset(cur, 0, sizeof(*cur));
			if (strlen(l + 6) >= sizeof(cur->name))
				goto bad_line;
			strcpy(cur->name, l + 6);
		} else if (!cur) {
			if (ll)
				goto bad_line;
		} else if (!strncmp(l, "ID: ", 4)) {
			char *end;
			unsigned long v = strtoul(l + 4, &end, 10);

			if (*end || v > UINT32_MAX)
				goto bad_line;
			cur->id = (uint32_t)v;
		} else if (!strncmp(l, "system: ", 8)) {
			if (strlen(l + 8) >= sizeof(cur->sys))
				goto bad_line;
			strcpy(cur->sys, l + 8);
		} else if (l[0] == '\t' && !strncmp(l + 1, "field:", 6)) {
			struct ftrail_field f;
			char nb[64];

			if (strstr(l, "common_type;"))
				continue;
			if (cur->nr_fields >= FTRAIL_MAX_FIELDS || parse_field(l + 1, &f, nb))
				goto bad_line;
			strcpy(cur->fnames[cur->nr_fields], nb);
			f.name = NULL; /* fixed up below: fmts may move while growing */
			cur->fields[cur->nr_fields++] = f;
		}
		/* "format:", "print fmt:", blank lines: nothing to keep */
	}
	for (size_t k = 0; k < t->nr; k++)
		for (uint32_t f = 0; f < t->fmts[k].nr_fields; f++)
			t->fmts[k].fields[f].name = t->fmts[k].fnames[f];
	return 0;
bad_line:
	ft_uev_table_free(t);
	return perr(err, errlen, line, "malformed line");
}

int ft_uev_table_load(struct ft_uev_table *t, struct ft_reader *r, char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int ret;

	memset(t, 0, sizeof(*t));
	err[0] = 0;
	text = ft_reader_load_all(r, FT_SEC_UFORMATS, UINT64_MAX, &len, err, errlen);
	if (!text)
		return err[0] ? -1 : 0;
	ret = ft_uev_table_parse(t, text, len, err, errlen);
	free(text);
	return ret;
}

const struct ft_uev_table *ft_uev_table_cached(struct ft_reader *r)
{
	static struct ft_reader *cached_r;
	static struct ft_uev_table table;
	char err[256];

	if (r != cached_r) {
		ft_uev_table_free(&table);
		cached_r = r;
		if (r && ft_uev_table_load(&table, r, err, sizeof(err)))
			ft_uev_table_free(&table);
	}
	return &table;
}

char *ft_uev_render(const struct ft_uev_table *t, uint32_t id, const void *data, size_t len,
		    char *out, size_t outlen)
{
	const struct ft_uev_fmt *fm = t ? ft_uev_table_find(t, id) : NULL;
	const unsigned char *d = data;
	size_t n = 0;

#define OUT(...)                                                                           \
	do {                                                                               \
		int w_ = snprintf(out + (n < outlen ? n : outlen), n < outlen ? outlen - n : 0, \
				  __VA_ARGS__);                                            \
		if (w_ > 0)                                                                \
			n += (size_t)w_;                                                   \
	} while (0)

	if (outlen)
		out[0] = 0;
	if (!fm) {
		OUT("user_event: id=%u len=%zu", id, len);
		return out;
	}
	OUT("%s:", fm->name);
	/* offsets count from the record start; data starts after the 4-byte id */
	for (uint32_t i = 0; i < fm->nr_fields; i++) {
		const struct ftrail_field *f = &fm->fields[i];
		size_t off = f->offset >= 4 ? f->offset - 4u : SIZE_MAX;
		uint64_t u = 0;

		OUT(" %s=", f->name);
		if (off == SIZE_MAX || off + f->size > len) {
			OUT("?");
			continue;
		}
		switch (f->type) {
		case FTRAIL_T_STRING:
		case FTRAIL_T_BYTES: {
			uint32_t loc, o, l;

			memcpy(&loc, d + off, 4);
			o = loc & 0xffff;
			l = loc >> 16;
			if (o < 4 || o - 4 + (size_t)l > len) {
				OUT("?");
				break;
			}
			if (f->type == FTRAIL_T_STRING)
				OUT("%.*s", (int)strnlen((const char *)d + o - 4, l),
				    (const char *)d + o - 4);
			else
				for (uint32_t k = 0; k < l; k++)
					OUT("%02x", d[o - 4 + k]);
			break;
		}
		case FTRAIL_T_ARRAY:
			for (uint32_t k = 0; k < f->size; k++)
				OUT("%02x", d[off + k]);
			break;
		default:
			memcpy(&u, d + off, f->size <= 8 ? f->size : 8);
			if (f->type == FTRAIL_T_PTR)
				OUT("0x%llx", (unsigned long long)u);
			else if (f->is_signed) {
				int64_t s = f->size == 1   ? (int8_t)u
					    : f->size == 2 ? (int16_t)u
					    : f->size == 4 ? (int32_t)u
							   : (int64_t)u;
				OUT("%lld", (long long)s);
			} else {
				OUT("%llu", (unsigned long long)u);
			}
			break;
		}
	}
#undef OUT
	return out;
}
#endif /* !FTRAIL_RUNTIME */
