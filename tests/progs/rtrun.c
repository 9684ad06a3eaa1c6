// SPDX-License-Identifier: GPL-2.0
/*
 * rtrun: a minimal recorder for testing the runtime on its own, without the
 * trace file: it formats a session block (core/session.h) and a ring area
 * (core/ringbuf.h) in a memfd, runs a program with libftrail.so preloaded,
 * drains the rings, and prints every record decoded, one per line:
 *
 *   <pid> <tid> <level> <indent>name() {      ENTRY
 *   <pid> <tid> <level> <indent>}             EXIT
 *   <pid> <tid> <level> <indent>name() <- parent       FUNC
 *   <pid> <tid> <level> #UNWIND n | #FORK pid | #EXEC path | #EXIT st |
 *                       #TRACE_ON | #TRACE_OFF | #MARKER text | #STACK a;b;c |
 *                       #LOST n | #DUR name ticks  (tracing_thresh pairs)
 *
 * then "#stat calls=N bytes=B lost=L" (record bytes in pages, B/N = bytes
 * per call) and the runtime's warnings as "#msg ...".  The real tool is
 * `ftrail record`; this one exists so the runtime has tests that do not
 * depend on it, and so bench/ can count bytes per call exactly.
 *
 * usage: rtrun [-p TRACER] [-l GLOB]... [-n GLOB]... [-g FUNC]... [-G FUNC]...
 *              [-D DEPTH] [-t THRESH_US] [-T] [-b KB] [-q] [-C MS:TEXT]... [-X GLOB]...
 *              -- PROG ARGS
 *   -q  print only the #stat line (benchmarks)
 *   -X  record --patch GLOB: patch functions without instrumentation
 *   -C  MS milliseconds after the start, replace set_ftrace_filter with TEXT
 *       ('|' separates lines) through the live control block (session.h's
 *       seqlock): the runtime re-patches while the program's threads run;
 *       a live session (ctl.live): the changes apply at once, even when the
 *       selection before them patched nothing the program runs
 *   -R  PERIOD_MS: apply the -C texts in a loop, one every PERIOD_MS ms, for
 *       as long as the program runs (their MS is ignored, but needed); prints
 *       "#flips N" at the end instead of one "#control" line per change
 * The runtime is $FTRAIL_LIB (default ./libftrail.so).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/options.h"
#include "core/opts.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/stackmap.h"
#include "core/symbols.h"

void ft_strv_push(struct ft_strv *sv, const char *s)
{
	sv->v = realloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = strdup(s);
	sv->v[sv->n] = NULL;
}

static struct ft_session_hdr *sess;
static struct ft_rb_area *area;
static struct ft_symbols *syms;
static int quiet;
static uint64_t calls, bytes, lost;

struct change {
	long ms;
	char *text;
};
static struct change changes[16];
static int nr_changes;
static long cycle_ms;		    /* -R */
static uint64_t fid_calls[1 << 16]; /* -q: calls per fid, printed as #count lines */

struct walk {
	uint32_t pid, tid, level;
	int depth;
	uint32_t stack[256];
};

static void name_of(uint32_t fid, char *buf, size_t len)
{
	struct ft_session_func *f;

	if (fid >= ft_session_nr_funcs(sess)) {
		snprintf(buf, len, "fid%u", fid);
		return;
	}
	f = &ft_session_funcs(sess)[fid];
	/* through the module index, as the reader: exact when a library was
	 * closed and another one loaded at its addresses */
	if (ft_symbols_resolve_module(syms, f->module, f->addr, 0, buf, len))
		snprintf(buf, len, "0x%llx", (unsigned long long)f->addr);
}

static void indent(struct walk *w)
{
	printf("%u %u %u ", w->pid, w->tid, w->level);
	for (int i = 0; i < w->depth; i++)
		printf("  ");
}

static uint32_t last_entry_fid = UINT32_MAX;
static uint64_t last_entry_ts;

static int on_rec(const uint32_t *r, uint32_t n, uint64_t ts, void *arg)
{
	struct walk *w = arg;
	char name[256], pname[256];
	uint32_t k = ft_rec_kind(r[0]);

	if (k == FT_REC_ENTRY || (k == FT_REC_EXT && ft_ext_type(r[0]) == FT_EXT_ENTRY_LONG)) {
		uint32_t fid = k == FT_REC_ENTRY ? ft_rec_fid(r[0]) : r[1];

		calls++;
		if (fid < (1u << 16))
			fid_calls[fid]++;
		if (quiet)
			goto entered;
		name_of(fid, name, sizeof(name));
		{
			indent(w);
			printf("%s() {\n", name);
		}
entered:
		if (w->depth < 256)
			w->stack[w->depth] = fid;
		w->depth++;
		last_entry_fid = fid;
		last_entry_ts = ts;
		return 0;
	}
	if (k == FT_REC_EXIT || (k == FT_REC_EXT && ft_ext_type(r[0]) == FT_EXT_EXIT_LONG)) {
		if (w->depth > 0)
			w->depth--;
		if (!quiet) {
			indent(w);
			if (last_entry_fid != UINT32_MAX && w->depth < 256 &&
			    w->stack[w->depth] == last_entry_fid) {
				name_of(last_entry_fid, name, sizeof(name));
				printf("} #DUR %s %llu\n", name,
				       (unsigned long long)(ts - last_entry_ts));
			} else {
				printf("}\n");
			}
		}
		last_entry_fid = UINT32_MAX;
		return 0;
	}
	last_entry_fid = UINT32_MAX;
	if (k == FT_REC_FUNC || (k == FT_REC_EXT && ft_ext_type(r[0]) == FT_EXT_FUNC_LONG)) {
		uint32_t fid = k == FT_REC_FUNC ? ft_rec_fid(r[0]) : r[1];
		uint32_t p1 = k == FT_REC_FUNC ? r[1] : r[2];

		calls++;
		if (quiet)
			return 0;
		name_of(fid, name, sizeof(name));
		if (p1)
			name_of(p1 - 1, pname, sizeof(pname));
		else
			snprintf(pname, sizeof(pname), "?");
		indent(w);
		printf("%s() <- %s\n", name, pname);
		return 0;
	}
	if (quiet)
		return 0;
	switch (ft_ext_type(r[0])) {
	case FT_EXT_UNWIND:
		indent(w);
		printf("#UNWIND %u\n", r[1]);
		w->depth -= (int)r[1];
		if (w->depth < 0)
			w->depth = 0;
		break;
	case FT_EXT_FORK:
		indent(w);
		printf("#FORK\n");
		break;
	case FT_EXT_EXEC:
		indent(w);
		printf("#EXEC %.*s\n", (int)((n - 1) * 4 - ft_ext_pad(r[0])), (const char *)&r[1]);
		break;
	case FT_EXT_EXIT:
		indent(w);
		printf("#EXIT %d\n", (int32_t)r[1]);
		break;
	case FT_EXT_TRACE_ON:
		indent(w);
		printf("#TRACE_ON\n");
		break;
	case FT_EXT_TRACE_OFF:
		indent(w);
		printf("#TRACE_OFF\n");
		break;
	case FT_EXT_MARKER:
		indent(w);
		printf("#MARKER %.*s\n", (int)((n - 1) * 4 - ft_ext_pad(r[0])),
		       (const char *)&r[1]);
		break;
	case FT_EXT_LOST:
		indent(w);
		printf("#LOST %u\n", r[1]);
		break;
	case FT_EXT_STACK_ID:
	case FT_EXT_STACK: {
		struct ft_stackmap sm;
		const uint64_t *ips = NULL;
		uint32_t nr = 0, ref;
		size_t len;
		void *mem = ft_session_stackmap_mem(sess, &len);

		if (ft_ext_type(r[0]) == FT_EXT_STACK_ID) {
			if (ft_stackmap_attach(&sm, mem, len) ||
			    ft_stackmap_lookup(&sm, r[1], &ips, &nr, &ref))
				nr = 0;
			indent(w);
			printf("#STACK_ID %u ", r[1]);
		} else {
			nr = r[1];
			ips = (const uint64_t *)&r[3];
			indent(w);
			printf("#STACK ");
		}
		for (uint32_t i = 0; i < nr; i++) {
			ft_symbols_resolve(syms, ips[i], 0, name, sizeof(name));
			printf("%s%s", i ? ";" : "", name);
		}
		printf("\n");
		break;
	}
	default:
		break;
	}
	return 0;
}

static void drain(int final)
{
	static char page[FT_RB_PAGE_MAX];
	struct ft_rb_pageinfo info;

	for (uint32_t s = 0; s < area->nr_slots; s++) {
		struct ft_rb_slotinfo si;

		ft_rb_slot_info(area, s, &si);
		if (si.state == FT_RB_FREE)
			continue;
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
			while (ft_rb_consume(area, s, l, final, page, &info) == 1) {
				struct ft_page *pg = (struct ft_page *)page;
				struct walk w = { pg->pid, pg->tid, l, pg->depth, { 0 } };

				bytes += pg->size;
				lost += info.lost;
				if (info.lost && !quiet)
					printf("%u %u %u #LOST %u\n", pg->pid, pg->tid, l,
					       info.lost);
				ft_rb_page_walk(pg, info.len, on_rec, &w);
			}
		}
	}
}

static void load_symbols(void)
{
	uint32_t n = ft_session_nr_modules(sess);

	syms = ft_symbols_new();
	for (uint32_t i = 0; i < n; i++) {
		struct ft_session_module *m = &ft_session_modules(sess)[i];
		char err[256];
		struct ft_symtab *st;

		if (!(__atomic_load_n(&m->flags, __ATOMIC_ACQUIRE) & FT_SMOD_VALID)) {
			/* keeps the indexes of ft_symbols equal to the session's */
			ft_symbols_add_module(syms, 0, 0, 0, NULL, NULL);
			continue;
		}
		st = ft_symtab_from_elf(m->path, NULL, 0, err, sizeof(err));
		ft_symbols_add_module(syms, m->start, m->end, m->start - m->offset, m->path, st);
	}
}

int main(int argc, char **argv)
{
	struct ft_record_opts o;
	struct ft_rb_params p;
	struct ft_clock clk;
	size_t ring, total;
	char err[256], fdbuf[16];
	const char *lib = getenv("FTRAIL_LIB");
	void *mem;
	pid_t pid;
	int c, fd, status;

	memset(&o, 0, sizeof(o));
	o.options = ft_options_default();
	while ((c = getopt(argc, argv, "+p:l:n:g:G:D:t:Tb:qP:O:C:R:X:")) != -1) {
		switch (c) {
		case 'p':
			o.tracer = optarg;
			break;
		case 'l':
			ft_strv_push(&o.filter, optarg);
			break;
		case 'n':
			ft_strv_push(&o.notrace, optarg);
			break;
		case 'g':
			ft_strv_push(&o.graph, optarg);
			break;
		case 'G':
			ft_strv_push(&o.graph_notrace, optarg);
			break;
		case 'D':
			o.max_graph_depth = atoi(optarg);
			break;
		case 't':
			o.thresh_us = strtoull(optarg, NULL, 0);
			break;
		case 'T':
			o.options |= FT_OPT(STACKTRACE);
			break;
		case 'O':
			ft_options_apply(&o.options, optarg);
			break;
		case 'b':
			o.buffer_kb = (unsigned int)atoi(optarg);
			break;
		case 'q':
			quiet = 1;
			break;
		case 'P':
			ft_strv_push(&o.pids, optarg);
			break;
		case 'X':
			ft_strv_push(&o.patch, optarg);
			break;
		case 'R':
			cycle_ms = atol(optarg) > 0 ? atol(optarg) : 1;
			break;
		case 'C':
			if (nr_changes < 16 && strchr(optarg, ':')) {
				changes[nr_changes].ms = atol(optarg);
				changes[nr_changes].text = strdup(strchr(optarg, ':') + 1);
				for (char *q = changes[nr_changes].text; *q; q++)
					if (*q == '|')
						*q = '\n';
				nr_changes++;
			}
			break;
		default:
			return 2;
		}
	}
	if (optind >= argc) {
		fprintf(stderr, "usage: rtrun [opts] -- PROG ARGS\n");
		return 2;
	}
	ft_clock_calibrate(&clk);
	ft_rb_params_default(&p, o.buffer_kb, 0);
	p.nr_slots = 64;
	ring = ft_rb_area_size(&p);
	total = ft_session_size(&o, ring);
	fd = memfd_create("ftrail-rtrun", 0);
	if (fd < 0 || ftruncate(fd, (off_t)total))
		return perror("memfd"), 1;
	mem = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return perror("mmap"), 1;
	if (ft_session_init(mem, total, &o, ring, &clk, err, sizeof(err))) {
		fprintf(stderr, "rtrun: %s\n", err);
		return 1;
	}
	sess = mem;
	if (nr_changes)
		ft_session_ctl(sess)->live = 1;
	area = ft_rb_area_init(ft_session_ring(sess, NULL), ring, &p);
	if (!area)
		return fprintf(stderr, "rtrun: ring init\n"), 1;
	snprintf(fdbuf, sizeof(fdbuf), "%d", fd);
	setenv(FT_SESSION_ENV_FD, fdbuf, 1);
	setenv("LD_PRELOAD", lib ? lib : "./libftrail.so", 1);
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		execvp(argv[optind], argv + optind);
		perror("exec");
		_exit(127);
	}
	/* drain while it runs; children of the program (fork) keep the fd */
	struct timespec t0, tn;
	int next = 0;
	unsigned long flips = 0;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);

		if (r == pid)
			break;
		clock_gettime(CLOCK_MONOTONIC, &tn);
		while (cycle_ms && nr_changes &&
		       (tn.tv_sec - t0.tv_sec) * 1000 + (tn.tv_nsec - t0.tv_nsec) / 1000000 >=
			       (long)flips * cycle_ms) {
			ft_session_ctl_begin(sess);
			ft_session_set_list(sess, FT_SL_FILTER, changes[flips % nr_changes].text);
			ft_session_ctl_end(sess);
			flips++;
		}
		while (!cycle_ms && next < nr_changes &&
		       (tn.tv_sec - t0.tv_sec) * 1000 + (tn.tv_nsec - t0.tv_nsec) / 1000000 >=
			       changes[next].ms) {
			ft_session_ctl_begin(sess);
			ft_session_set_list(sess, FT_SL_FILTER, changes[next].text);
			ft_session_ctl_end(sess);
			printf("#control %s\n", changes[next].text);
			next++;
		}
		drain(0);
		ft_rb_wait(area, cycle_ms ? 1 : nr_changes ? 5 : 20);
	}
	/* forked descendants may still run: wait for them to close the session */
	while (waitpid(-1, NULL, 0) > 0)
		;
	usleep(1000);
	load_symbols();
	drain(1);
	{
		struct ft_rb_totals tot;
		struct ft_session_ctl *ctl = ft_session_ctl(sess);
		char line[FT_SESSION_MSG_LINE_MAX + 1];
		uint32_t mpos = 0;

		ft_rb_area_totals(area, &tot);
		if (quiet) {
			for (uint32_t f = 0; f < (1u << 16); f++) {
				char name[256];

				if (!fid_calls[f])
					continue;
				name_of(f, name, sizeof(name));
				printf("#count %s %llu\n", name, (unsigned long long)fid_calls[f]);
			}
		}
		if (cycle_ms)
			printf("#flips %lu\n", flips);
		printf("#stat calls=%llu bytes=%llu lost=%llu hooks=0x%x patched=%u\n",
		       (unsigned long long)calls, (unsigned long long)bytes,
		       (unsigned long long)tot.lost, ctl->rt_hooks, ctl->rt_patched);
		while (ft_session_msg_next(sess, &mpos, line, sizeof(line)))
			printf("#msg %s\n", line);
	}
	if (getenv("RTRUN_FUNCS")) { /* debugging: the function table */
		for (uint32_t f = 0; f < ft_session_nr_funcs(sess); f++) {
			struct ft_session_func *e = &ft_session_funcs(sess)[f];
			struct ft_session_module *m = &ft_session_modules(sess)[e->module];

			printf("#func %u 0x%llx mod %u %s\n", f, (unsigned long long)e->addr,
			       e->module, e->module < ft_session_nr_modules(sess) ? m->path : "?");
		}
	}
	if (WIFSIGNALED(status))
		printf("#signaled %d\n", WTERMSIG(status));
	else
		printf("#exit %d\n", WEXITSTATUS(status));
	return 0;
}
