// SPDX-License-Identifier: GPL-2.0
/*
 * Filters with ftrace's syntax, from the session's four list texts:
 *
 *   set_ftrace_filter   GLOB | !GLOB | GLOB:mod:MOD | !GLOB:mod:MOD
 *                       FUNC:traceon|traceoff|stacktrace|snapshot[:COUNT]
 *                       !FUNC:CMD   (removes the command)
 *   set_ftrace_notrace  GLOB | !GLOB | GLOB:mod:MOD
 *   set_graph_function  GLOB ...  (same forms)
 *   set_graph_notrace   GLOB ...
 *
 * Lines are applied in order, like successive appends to the file: a GLOB
 * line adds the matching functions to the set, a !GLOB line removes them.
 * An empty filter set traces every function (minus notrace), as ftrace.  A
 * line that matches no function is reported (one warning line through the
 * session for the recorder to print) but stays in force -- unlike ftrace's
 * EINVAL -- because it may name a function of a library dlopen()ed later;
 * so "-l nosuch" traces nothing, with a warning.  Command lines do not add to the filter set; they hook
 * their function even when it is not traced, like ftrace's function probes.
 *
 * All of this runs under rt.lock (control path).
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/demangle.h"
#include "core/glob.h"
#include "runtime/rt.h"

#define MAX_RULES 1024

struct rule {
	const char *glob;
	size_t glob_len;
	const char *mod; /* NULL: any module; else as written */
	size_t mod_len;
	char mod_name[128]; /* mod as a module name (ft_mod_name): a glob */
	int neg;
	int cmd;     /* enum rt_cmd, RT_CMD_NONE: a plain glob */
	int count;   /* RT_CMD_UNLIMITED, or the :count */
	int matched; /* matched at least one function */
};

static char lists[FT_SL_NR][FT_SESSION_LIST_MAX];
static struct rule rules[FT_SL_NR][MAX_RULES];
static int nr_rules[FT_SL_NR];
static int filter_active; /* the filter set is non-empty */
static int quiet;	  /* parse_line() does not warn (rt_filter_patch_parse) */

static const char *const cmd_names[RT_CMD_NR] = { "traceon", "traceoff", "stacktrace", "snapshot" };
static const char *const list_names[FT_SL_NR] = { "set_ftrace_filter", "set_ftrace_notrace",
						  "set_graph_function", "set_graph_notrace" };

/* One warning line for the recorder: "<list>: <what> '<text>'". */
static void warn(const char *list, const char *what, const char *text, size_t len)
{
	char line[256];

	snprintf(line, sizeof(line), "%s: %s '%.*s'", list, what, (int)len, text);
	if (rt.sess && !quiet)
		ft_session_msg(rt.sess, line);
}

/* Parse one line into r.  Returns 0, or -1 (bad line, warned). */
static int parse_line(int list, char *s, struct rule *r)
{
	char *c1, *c2;

	memset(r, 0, sizeof(*r));
	r->cmd = RT_CMD_NONE;
	r->count = RT_CMD_UNLIMITED;
	while (*s == ' ' || *s == '\t')
		s++;
	if (*s == '!') {
		r->neg = 1;
		s++;
	}
	r->glob = s;
	c1 = (char *)ft_glob_sep(s); /* "ns::f:traceoff": the "::" are the name's */
	if (!c1) {
		r->glob_len = strlen(s);
		return r->glob_len ? 0 : -1;
	}
	r->glob_len = (size_t)(c1 - s);
	c2 = strchr(c1 + 1, ':');
	if (!strncmp(c1 + 1, "mod:", 4)) {
		r->mod = c1 + 5;
		r->mod_len = strlen(r->mod);
		ft_mod_name(r->mod_name, sizeof(r->mod_name), r->mod, r->mod_len);
		return 0;
	}
	if (list != FT_SL_FILTER)
		goto bad;
	for (int i = 0; i < RT_CMD_NR; i++) {
		size_t n = strlen(cmd_names[i]);

		if (strncmp(c1 + 1, cmd_names[i], n) || (c1[1 + n] && c1[1 + n] != ':'))
			continue;
		r->cmd = i;
		if (c2) {
			char *end;
			long v = strtol(c2 + 1, &end, 10);

			if (*end || v < 0)
				goto bad;
			r->count = (int)v;
		}
		return 0;
	}
bad:
	warn(list_names[list], "cannot parse", r->glob, strlen(r->glob));
	return -1;
}

/* Copy the control block's lists into txt and parse them into rs (nr each). */
static void parse_lists(char (*txt)[FT_SESSION_LIST_MAX], struct rule (*rs)[MAX_RULES], int *nr)
{
	for (int l = 0; l < FT_SL_NR; l++) {
		char *p, *save = NULL;

		memcpy(txt[l], rt.ctl->lists[l], FT_SESSION_LIST_MAX);
		txt[l][FT_SESSION_LIST_MAX - 1] = '\0';
		nr[l] = 0;
		for (p = strtok_r(txt[l], "\n", &save); p; p = strtok_r(NULL, "\n", &save)) {
			if (nr[l] >= MAX_RULES)
				break;
			if (!parse_line(l, p, &rs[l][nr[l]]))
				nr[l]++;
		}
	}
}

/*
 * Copy the control block's lists (seqlock read: retried by the caller when
 * gen moved) and parse them into rules.
 */
void rt_filters_parse(void)
{
	rt_args_parse();
	parse_lists(lists, rules, nr_rules);
}

/*
 * Dynamic patching chosen by -l / -g (dynpatch.c): when no --patch line is
 * given, the functions these lists select are patched in the objects that
 * have no compiled-in hook at all.  A plain GLOB names the program's own
 * functions, GLOB:mod:MODULE those of the module.  Own copies of the
 * rules, parsed quietly (the control sync parses and warns later), so this
 * can run before the first sync.  Caller holds rt.lock.
 */
static char patch_lists[FT_SL_NR][FT_SESSION_LIST_MAX];
static struct rule patch_rules[FT_SL_NR][MAX_RULES];
static int nr_patch_rules[FT_SL_NR];

int rt_filter_patch_parse(void)
{
	static const int sel[] = { FT_SL_FILTER, FT_SL_GRAPH };

	quiet = 1;
	parse_lists(patch_lists, patch_rules, nr_patch_rules);
	quiet = 0;
	for (size_t k = 0; k < sizeof(sel) / sizeof(sel[0]); k++)
		for (int i = 0; i < nr_patch_rules[sel[k]]; i++)
			if (!patch_rules[sel[k]][i].neg)
				return 1;
	return 0;
}

/* Does r apply to m's functions for patching?  prog: the program's module. */
static int patch_rule_mod(const struct rule *r, const struct rt_module *m,
			  const struct rt_module *prog)
{
	if (!r->mod)
		return m == prog;
	return ft_glob_match_n(r->mod_name, strlen(r->mod_name), m->name);
}

int rt_filter_patch_mod(const struct rt_module *m, const struct rt_module *prog)
{
	static const int sel[] = { FT_SL_FILTER, FT_SL_GRAPH };

	for (size_t k = 0; k < sizeof(sel) / sizeof(sel[0]); k++)
		for (int i = 0; i < nr_patch_rules[sel[k]]; i++) {
			const struct rule *r = &patch_rules[sel[k]][i];

			if (!r->neg && patch_rule_mod(r, m, prog))
				return 1;
		}
	return 0;
}

/* Fold list l over f (f in m) as in_set(), commands skipped. */
static int patch_in_set(int l, const struct rt_func *f, const struct rt_module *m,
			const struct rt_module *prog, struct rt_name_memo *memo)
{
	int in = 0;

	for (int i = 0; i < nr_patch_rules[l]; i++) {
		const struct rule *r = &patch_rules[l][i];

		if (r->cmd == RT_CMD_NONE && patch_rule_mod(r, m, prog) &&
		    rt_func_glob_match(r->glob, r->glob_len, f, memo))
			in = !r->neg;
	}
	return in;
}

int rt_filter_patch_func(const struct rt_func *f, const struct rt_module *m,
			 const struct rt_module *prog)
{
	struct rt_name_memo memo;

	rt_name_memo_init(&memo, f);
	if (patch_in_set(FT_SL_FILTER, f, m, prog, &memo) &&
	    !patch_in_set(FT_SL_NOTRACE, f, m, prog, &memo))
		return 1;
	if (patch_in_set(FT_SL_GRAPH, f, m, prog, &memo))
		return 1;
	/* a function command hooks its function even when it is not traced */
	for (int i = 0; i < nr_patch_rules[FT_SL_FILTER]; i++) {
		const struct rule *r = &patch_rules[FT_SL_FILTER][i];

		if (r->cmd != RT_CMD_NONE && !r->neg && patch_rule_mod(r, m, prog) &&
		    rt_func_glob_match(r->glob, r->glob_len, f, &memo))
			return 1;
	}
	return 0;
}

/* rt_func_glob_match()'s demangled-name half, with the name from memo. */
static int glob_match_demangled(const char *glob, size_t len, const struct rt_func *f,
				struct rt_name_memo *memo)
{
	if (!memo->state) {
		stack_t ss;

		memo->state = -1;
		/* the raw call: sigaltstack() is the runtime's own wrapper (signal.c) */
		if (!syscall(SYS_sigaltstack, NULL, &ss) && !(ss.ss_flags & SS_ONSTACK) &&
		    !ft_demangle_simple(f->name, memo->name, sizeof(memo->name)))
			memo->state = 1;
	}
	return memo->state > 0 && ft_glob_match_n(glob, len, memo->name);
}

/* A call without a memo: one of its own, for this match alone (its frame, not the caller's). */
static __attribute__((noinline)) int glob_match_demangled_once(const char *glob, size_t len,
							       const struct rt_func *f)
{
	struct rt_name_memo memo;

	rt_name_memo_init(&memo, f);
	return glob_match_demangled(glob, len, f, &memo);
}

int rt_func_glob_match(const char *glob, size_t len, const struct rt_func *f,
		       struct rt_name_memo *memo)
{
	if (ft_glob_match_n(glob, len, f->name))
		return 1;
	if (strncmp(f->name, "_Z", 2) || !memmem(glob, len, "::", 2))
		return 0;
	return memo && memo->f == f ? glob_match_demangled(glob, len, f, memo)
				    : glob_match_demangled_once(glob, len, f);
}

static int rule_match(struct rule *r, struct rt_func *f, struct rt_name_memo *memo)
{
	/* a library call is in the module that defines the function (plt.c) */
	if (r->mod && !ft_glob_match_n(r->mod_name, strlen(r->mod_name),
				       rt.mods[f->lib ? f->lib - 1 : f->mod].name))
		return 0;
	if (!rt_func_glob_match(r->glob, r->glob_len, f, memo))
		return 0;
	r->matched = 1;
	return 1;
}

/* Fold list l over f: 1 when f ends up in the set.  Commands are skipped. */
static int in_set(int l, struct rt_func *f, struct rt_name_memo *memo)
{
	int in = 0;

	for (int i = 0; i < nr_rules[l]; i++) {
		struct rule *r = &rules[l][i];

		if (r->cmd == RT_CMD_NONE && rule_match(r, f, memo))
			in = !r->neg;
	}
	return in;
}

/* Recompute f's RF_* flags and command counts for the current rules. */
void rt_func_eval(struct rt_func *f)
{
	struct rt_name_memo memo; /* f's demangled name: once for all the rules below */
	uint16_t fl = 0;
	int traced;

	if (__atomic_load_n(&rt.detached, __ATOMIC_RELAXED)) {
		/* the recorder is gone (init.c, rt_detach): nothing is hooked */
		f->cmd_mask = 0;
		f->flags = 0;
		__atomic_store_n(&f->epoch, rt.epoch, __ATOMIC_RELEASE);
		return;
	}
	rt_name_memo_init(&memo, f);
	traced = filter_active ? in_set(FT_SL_FILTER, f, &memo) : 1;
	if (traced && in_set(FT_SL_NOTRACE, f, &memo))
		traced = 0;
	if (traced)
		fl |= RF_TRACE;
	if (in_set(FT_SL_GRAPH, f, &memo))
		fl |= RF_GRAPH_ROOT;
	if (in_set(FT_SL_GRAPH_NOTRACE, f, &memo))
		fl |= RF_GRAPH_NOTRACE;
	f->cmd_mask = 0;
	for (int i = 0; i < nr_rules[FT_SL_FILTER]; i++) {
		struct rule *r = &rules[FT_SL_FILTER][i];

		if (r->cmd == RT_CMD_NONE || !rule_match(r, f, &memo))
			continue;
		if (r->neg) {
			f->cmd_mask &= (uint8_t) ~(1u << r->cmd);
		} else {
			f->cmd_mask |= (uint8_t)(1u << r->cmd);
			f->cmd_count[r->cmd] = r->count;
		}
	}
	if (f->cmd_mask)
		fl |= RF_CMD;
	/* a capture spec sends a traced function's calls to the general path */
	{
		const struct rt_cap *ca, *cr;
		const struct ft_filter *flt;
		uint16_t cap = rt_args_eval(f, &ca, &cr, &flt, &memo);

		f->cap_args = ca;
		f->cap_filter = flt;
		/* a --filter needs the general path's match */
		f->plan_args = flt ? NULL : rt_args_plan(ca, 0);
		/* relaxed: see rt_func.cap_ret */
		__atomic_store_n(&f->cap_ret, cr, __ATOMIC_RELAXED);
		__atomic_store_n(&f->plan_ret, rt_args_plan(cr, 1), __ATOMIC_RELAXED);
		if (traced)
			fl |= cap;
	}
	f->flags = fl;
	/* release: the flags above before the epoch that validates them */
	__atomic_store_n(&f->epoch, rt.epoch, __ATOMIC_RELEASE);
}

/*
 * Re-evaluate every known function after a control change or a dlopen:
 * decide whether the filter set is empty, warn (warn_now) about lines that
 * match nothing in the objects loaded so far, and
 * (re)patch the nop sites whose selection changed.  Caller holds rt.lock
 * and has called rt_filters_parse().
 */
void rt_filters_apply_all(int warn_now)
{
	uint32_t selected = 0, patched = 0;
	enum rt_modmem mem;
	int pos = 0;

	rt.epoch++;
	rt_args_unmark();
	for (int l = 0; l < FT_SL_NR; l++)
		for (int i = 0; i < nr_rules[l]; i++)
			rules[l][i].matched = 0;
	/* pass 1: which filter lines match anything (ftrace's EINVAL check) */
	filter_active = 0;
	for (int i = 0; i < nr_rules[FT_SL_FILTER]; i++)
		if (rules[FT_SL_FILTER][i].cmd == RT_CMD_NONE && !rules[FT_SL_FILTER][i].neg)
			pos = 1;
	/*
	 * A filter with a positive line is active even when nothing matches
	 * yet: the line may name a library loaded later (dlopen, :mod:).
	 */
	filter_active = pos;
	/*
	 * Patching writes module text: inside the module memory guard (which
	 * may retire modules a dlclose took away, so it comes first).  When
	 * a dlclose is in flight, the flags are computed now and the patching
	 * of dlopen()ed objects is redone by a dlclose wrapper (module.c).
	 */
	mem = rt_modmem_enter();
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		if (m->loaded != RT_MOD_LOADED || m->gone)
			continue;
		for (uint32_t i = 0; i < m->nr_funcs + m->nr_plt; i++) {
			struct rt_func *f = i < m->nr_funcs ? &m->funcs[i]
							    : &m->plt[i - m->nr_funcs];
			struct rt_name_memo memo;

			rt_name_memo_init(&memo, f);
			in_set(FT_SL_FILTER, f, &memo);
			in_set(FT_SL_NOTRACE, f, &memo);
			in_set(FT_SL_GRAPH, f, &memo);
			in_set(FT_SL_GRAPH_NOTRACE, f, &memo);
		}
	}
	for (int l = 0; l < FT_SL_NR; l++)
		for (int i = 0; i < nr_rules[l]; i++) {
			struct rule *r = &rules[l][i];
			char what[200];

			if (!warn_now || r->matched || r->neg || r->cmd != RT_CMD_NONE)
				continue;
			snprintf(what, sizeof(what), "%.*s%s%.*s", (int)r->glob_len, r->glob,
				 r->mod ? ":mod:" : "", (int)r->mod_len, r->mod ? r->mod : "");
			warn(list_names[l], "no function matches", what, strlen(what));
		}
	/* pass 2: flags and patching */
	for (int mi = 0; mi < rt.nr_mods; mi++) {
		struct rt_module *m = &rt.mods[mi];

		if (m->loaded != RT_MOD_LOADED || m->gone)
			continue;
		for (uint32_t i = 0; i < m->nr_funcs; i++) {
			struct rt_func *f = &m->funcs[i];
			int want;

			rt_func_eval(f);
			want = rt.tracer != FT_TRACER_NOP && (f->flags & RF_HOOK);
			if (f->flags & RF_TRACE)
				selected++;
			if (f->site_kind != RT_SITE_NONE && want != f->patched &&
			    rt_modmem_may(m, mem))
				rt_patch_site(f, want);
		}
		/* library calls: always hooked, the flags say what they do */
		for (uint32_t i = 0; i < m->nr_plt; i++) {
			rt_func_eval(&m->plt[i]);
			if (m->plt[i].flags & RF_TRACE)
				selected++;
		}
	}
	if (warn_now)
		rt_args_warn_unmatched();
	rt_patch_flush(); /* the sites queued above, in one batch (patch.c) */
	rt_modmem_exit();
	for (int mi = 0; mi < rt.nr_mods; mi++)
		for (uint32_t i = 0; !rt.mods[mi].gone && i < rt.mods[mi].nr_funcs; i++)
			patched += rt.mods[mi].funcs[i].patched;
	rt.have_graph_roots = 0;
	for (int i = 0; i < nr_rules[FT_SL_GRAPH]; i++)
		if (!rules[FT_SL_GRAPH][i].neg)
			rt.have_graph_roots = 1;
	rt.ctl->rt_selected = selected;
	rt.ctl->rt_patched = patched;
}
