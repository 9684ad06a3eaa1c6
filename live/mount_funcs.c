// SPDX-License-Identifier: GPL-2.0
/*
 * The live mount's view of the traced program's functions, from the
 * session's module table (core/session.h), and the selection a filter list makes, so that
 * available_filter_functions, enabled_functions and reading
 * set_ftrace_filter show names as the kernel's files do, and a write that
 * selects nothing is refused (EINVAL) as the kernel refuses it.
 *
 * Function names are the modules' ELF function symbols (.symtab, else
 * .dynsym): what the runtime's filters match.
 *
 * The list semantics are the runtime's (runtime/filter.c), which is what
 * decides in the traced program: lines in order, GLOB adds, !GLOB removes,
 * GLOB:mod:MOD limits to a module (its name is the file name up to ".so"),
 * FUNC:CMD[:N] is a function command and selects nothing.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/glob.h"
#include "core/session.h"
#include "core/symbols.h"
#include "core/util.h"
#include "live/mount_int.h"

static const char *const cmd_names[] = { "traceon", "traceoff", "stacktrace", "snapshot" };

void mnt_funcs_free(struct mnt_funcs *f)
{
	for (uint32_t i = 0; i < f->nr_mods && f->modname; i++)
		free(f->modname[i]);
	free(f->modname);
	free(f->name);
	free(f->mod);
	ft_symbols_free(f->syms);
	memset(f, 0, sizeof(*f));
}

/* (Re)build the list when modules were added (dlopen) or at first use. */
void mnt_funcs_refresh(struct mnt *m)
{
	struct ft_session_hdr *h = m->s.hdr;
	struct ft_session_module *mods = ft_session_modules(h);
	struct mnt_funcs *f = &m->funcs;
	uint32_t nm = ft_session_nr_modules(h), cap = 0;

	if (nm == f->nr_mods && f->syms)
		return;
	mnt_funcs_free(f);
	f->syms = ft_symbols_new();
	if (!f->syms)
		return;
	f->modname = ft_calloc(nm ? nm : 1, sizeof(*f->modname));
	for (uint32_t i = 0; i < nm; i++) {
		struct ft_session_module *md = &mods[i];
		char path[FT_SESSION_PATH_MAX], mn[128];
		struct ft_symtab *st;

		f->nr_mods = i + 1;
		if (!(__atomic_load_n(&md->flags, __ATOMIC_ACQUIRE) & FT_SMOD_VALID))
			continue;
		memcpy(path, md->path, sizeof(path));
		path[sizeof(path) - 1] = 0;
		st = ft_symtab_from_elf(path, NULL, 0, NULL, 0);
		ft_mod_name(mn, sizeof(mn), path, strlen(path));
		f->modname[i] = ft_strdup(mn);
		if (md->flags & FT_SMOD_MAIN)
			f->main_mod = f->modname[i];
		for (size_t k = 0; st && k < st->nr; k++) {
			const char *name = st->syms[k].name;

			if (!name || !*name || (k && !strcmp(name, st->syms[k - 1].name)))
				continue;
			if (f->nr == cap) {
				cap = cap ? cap * 2 : 1024;
				f->name = ft_realloc(f->name, cap * sizeof(*f->name));
				f->mod = ft_realloc(f->mod, cap * sizeof(*f->mod));
			}
			f->name[f->nr] = name;
			f->mod[f->nr] = f->modname[i];
			f->nr++;
		}
		/* the symbols object owns st from here: the names stay valid */
		ft_symbols_add_module_pid(f->syms, md->pid, md->start, md->end,
					  md->start - md->offset, path, st);
	}
	f->nr_mods = nm;
}

/* One parsed line: [!]GLOB[:mod:MOD] or FUNC:CMD[:N]. */
struct rule {
	char glob[256];
	char mod[128]; /* "" = any module */
	int neg;
	int cmd; /* -1: none */
	long count;
	int bad_pos; /* >= 0: where the line is wrong */
	const char *bad;
};

static void parse(int list, const char *line, struct rule *r)
{
	const char *s = line, *c1, *c2;
	size_t n;

	memset(r, 0, sizeof(*r));
	r->cmd = -1;
	r->count = -1;
	r->bad_pos = -1;
	if (*s == '!') {
		r->neg = 1;
		s++;
	}
	c1 = ft_glob_sep(s); /* "ns::f:traceoff": the "::" are the name's */
	n = c1 ? (size_t)(c1 - s) : strlen(s);
	if (!n || n >= sizeof(r->glob)) {
		r->bad = n ? "function name too long" : "no function name";
		r->bad_pos = (int)(s - line);
		return;
	}
	memcpy(r->glob, s, n);
	if (!c1)
		return;
	if (!strncmp(c1 + 1, "mod:", 4)) {
		const char *md = c1 + 5;

		if (!*md || strlen(md) >= sizeof(r->mod)) {
			r->bad = "bad module name";
			r->bad_pos = (int)(md - line);
			return;
		}
		ft_mod_name(r->mod, sizeof(r->mod), md, strlen(md));
		return;
	}
	if (list != FT_SL_FILTER) {
		r->bad = "commands are for set_ftrace_filter only";
		r->bad_pos = (int)(c1 + 1 - line);
		return;
	}
	c2 = strchr(c1 + 1, ':');
	for (int i = 0; i < 4; i++) {
		size_t k = strlen(cmd_names[i]);

		if (strncmp(c1 + 1, cmd_names[i], k) || (c1[1 + k] && c1[1 + k] != ':'))
			continue;
		r->cmd = i;
		if (c2) {
			char *end;
			long v = strtol(c2 + 1, &end, 10);

			if (!c2[1] || *end || v < 0) {
				r->bad = "bad count";
				r->bad_pos = (int)(c2 + 1 - line);
				return;
			}
			r->count = v;
		}
		return;
	}
	r->bad = "unknown command (traceon, traceoff, stacktrace, snapshot)";
	r->bad_pos = (int)(c1 + 1 - line);
}

/* One function as the kernel lists it: "name", or "name [module]" outside the program. */
static void put_func(FILE *out, const struct mnt_funcs *f, uint32_t i, const char *suffix)
{
	if (f->mod[i] == f->main_mod)
		fprintf(out, "%s%s\n", f->name[i], suffix);
	else
		fprintf(out, "%s [%s]%s\n", f->name[i], f->mod[i], suffix);
}

static int rule_match(const struct mnt_funcs *f, const struct rule *r, uint32_t i)
{
	if (r->mod[0] && !ft_glob_match(r->mod, f->mod[i]))
		return 0;
	return ft_glob_match(r->glob, f->name[i]);
}

int mnt_list_check(struct mnt *m, int list, const char *line, const char **msg, int *pos)
{
	struct rule r;
	int hit = 0;

	parse(list, line, &r);
	if (r.bad) {
		*msg = r.bad;
		*pos = r.bad_pos;
		return -1;
	}
	if (r.mod[0])
		return 0; /* a module not loaded yet may come (dlopen), as the kernel's */
	mnt_funcs_refresh(m);
	for (uint32_t i = 0; i < m->funcs.nr && !hit; i++)
		hit = rule_match(&m->funcs, &r, i);
	if (!hit) {
		*msg = "no function matches";
		*pos = r.neg;
		return -1;
	}
	return 0;
}

/*
 * The selection of a list (sel: one byte per function), and whether it
 * has any plain line (an empty FILTER list selects every function).  With
 * cmds, the function commands in force go there as the kernel lists its
 * function probes ("func:traceoff:count=3"), a "!FUNC:CMD" line removing
 * what the lines before it set.
 */
static int select_list(struct mnt *m, int list, unsigned char *sel, FILE *cmds)
{
	struct ft_session_ctl *c = ft_session_ctl(m->s.hdr);
	char *text = ft_malloc(FT_SESSION_LIST_MAX), *p, *save = NULL;
	struct mnt_funcs *f = &m->funcs;
	long *cmd = NULL; /* per function and command: -2 none, -1 unlimited, else count */
	int any = 0;

	if (cmds) {
		cmd = ft_malloc((f->nr ? f->nr : 1) * 4 * sizeof(*cmd));
		for (uint32_t i = 0; i < f->nr * 4; i++)
			cmd[i] = -2;
	}
	memcpy(text, c->lists[list], FT_SESSION_LIST_MAX);
	text[FT_SESSION_LIST_MAX - 1] = 0;
	for (p = strtok_r(text, "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
		struct rule r;

		parse(list, p, &r);
		if (r.bad)
			continue;
		if (r.cmd >= 0) {
			for (uint32_t i = 0; cmd && i < f->nr; i++)
				if (rule_match(f, &r, i))
					cmd[i * 4 + (uint32_t)r.cmd] = r.neg ? -2 : r.count;
			continue;
		}
		any = 1;
		for (uint32_t i = 0; i < f->nr; i++)
			if (rule_match(f, &r, i))
				sel[i] = !r.neg;
	}
	for (uint32_t i = 0; cmd && i < f->nr * 4; i++) {
		if (cmd[i] == -1)
			fprintf(cmds, "%s:%s:unlimited\n", f->name[i / 4], cmd_names[i % 4]);
		else if (cmd[i] >= 0)
			fprintf(cmds, "%s:%s:count=%ld\n", f->name[i / 4], cmd_names[i % 4],
				cmd[i]);
	}
	free(cmd);
	free(text);
	return any;
}

char *mnt_list_show(struct mnt *m, int list, size_t *len)
{
	unsigned char *sel;
	char *buf = NULL;
	size_t n = 0, seln;
	int any, shown = 0;
	FILE *out;

	mnt_funcs_refresh(m);
	seln = m->funcs.nr ? m->funcs.nr : 1;
	sel = ft_calloc(seln, 1);
	out = open_memstream(&buf, &n);
	if (!out) {
		free(sel);
		return NULL;
	}
	any = select_list(m, list, sel, NULL);
	for (uint32_t i = 0; i < m->funcs.nr; i++)
		if (sel[i]) {
			put_func(out, &m->funcs, i, "");
			shown = 1;
		}
	if (!shown && (list == FT_SL_FILTER || list == FT_SL_GRAPH))
		fputs("#### all functions enabled ####\n", out);
	if (list == FT_SL_FILTER)
		select_list(m, list, sel, out);
	(void)any;
	fclose(out);
	free(sel);
	*len = n;
	return buf;
}

char *mnt_funcs_show(struct mnt *m, size_t *len)
{
	char *buf = NULL;
	size_t n = 0;
	FILE *out;

	mnt_funcs_refresh(m);
	out = open_memstream(&buf, &n);
	if (!out)
		return NULL;
	for (uint32_t i = 0; i < m->funcs.nr; i++)
		put_func(out, &m->funcs, i, "");
	fclose(out);
	*len = n;
	return buf;
}

char *mnt_enabled_show(struct mnt *m, size_t *len)
{
	struct ft_session_ctl *c = ft_session_ctl(m->s.hdr);
	unsigned char *sel, *no;
	char *buf = NULL;
	size_t n = 0, seln;
	FILE *out;

	mnt_funcs_refresh(m);
	seln = m->funcs.nr ? m->funcs.nr : 1;
	sel = ft_calloc(seln, 1);
	no = ft_calloc(seln, 1);
	out = open_memstream(&buf, &n);
	if (!out) {
		free(sel);
		free(no);
		return NULL;
	}
	if (__atomic_load_n(&c->tracer, __ATOMIC_RELAXED) != FT_TRACER_NOP) {
		if (!select_list(m, FT_SL_FILTER, sel, NULL))
			memset(sel, 1, seln);
		select_list(m, FT_SL_NOTRACE, no, NULL);
		for (uint32_t i = 0; i < m->funcs.nr; i++)
			if (sel[i] && !no[i])
				put_func(out, &m->funcs, i, " (1)");
	}
	fclose(out);
	free(sel);
	free(no);
	*len = n;
	return buf;
}
