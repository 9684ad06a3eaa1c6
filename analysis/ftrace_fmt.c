// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's text formats (see ftrace_fmt.h for what the columns mean in
 * user space).  Column layouts follow the kernel's trace_output.c and
 * trace_functions_graph.c so existing scripts that parse the trace file
 * parse ftrail's output too.
 */
#include "ftrace_fmt.h"

#include <stdlib.h>
#include <string.h>

#include "options.h"
#include "uevent.h"

#define MAX_INDENT 512 /* levels; deeper calls print at this indentation */

struct buf_state {
	uint64_t id;
	int used;
	int skip_exit; /* the next EXIT of this buffer was printed as a leaf */
};

struct ft_fmt {
	struct ft_trace *t;
	uint64_t opt;
	FILE *out;
	int graph;
	int irq_info;
	int cpu_width;
	uint64_t first_ts;
	int have_first;
	struct buf_state *bufs; /* open addressing, cap power of 2 */
	size_t nr_bufs, cap_bufs;
	int64_t last_tid[64]; /* per level: thread last shown (context-switch lines) */
	/* UFORMATS, loaded on the first user event; a malformed one stays empty
	 * (its events then show as "user_event: id=N len=L").  Per formatter, not
	 * cached by reader address: a later reader may reuse a freed one's. */
	struct ft_uev_table uev;
	int uev_loaded;
};

#define OPT(f, name) (((f)->opt & FT_OPT(name)) != 0)

char ft_fmt_mark(uint64_t d)
{
	static const struct {
		uint64_t val;
		char sym;
	} mark[] = {
	    {1000000000ull, '$'}, {100000000ull, '@'}, {10000000ull, '*'},
	    {1000000ull, '#'},	  {100000ull, '!'},    {10000ull, '+'},
	};

	for (size_t i = 0; i < sizeof(mark) / sizeof(mark[0]); i++)
		if (d > mark[i].val)
			return mark[i].sym;
	return ' ';
}

void ft_fmt_graph_duration(char *buf, size_t len, uint64_t ns)
{
	char us[24], nsr[8];
	size_t l, n;

	snprintf(us, sizeof(us), "%llu", (unsigned long long)(ns / 1000));
	l = strlen(us);
	n = (size_t)snprintf(buf, len, "%s", us);
	if (l < 7 && n < len) {
		/* nsecs: at most 7 digits in all, as the kernel prints them */
		size_t keep = 8 - l - 1 < 3 ? 8 - l - 1 : 3;

		snprintf(nsr, sizeof(nsr), "%03llu", (unsigned long long)(ns % 1000));
		nsr[keep] = 0;
		n += (size_t)snprintf(buf + n, len - n, ".%s", nsr);
		l += strlen(nsr) + 1;
	}
	if (n < len)
		n += (size_t)snprintf(buf + n, len - n, " us ");
	for (; l < 8 && n + 1 < len; l++)
		buf[n++] = ' ';
	if (n < len)
		buf[n] = 0;
}

static struct buf_state *buf_get(struct ft_fmt *f, uint64_t id)
{
	size_t mask, i;

	if ((f->nr_bufs + 1) * 2 > f->cap_bufs) {
		size_t ocap = f->cap_bufs, ncap = ocap ? ocap * 2 : 64;
		struct buf_state *old = f->bufs, *n = calloc(ncap, sizeof(*n));

		if (!n)
			return NULL;
		f->bufs = n;
		f->cap_bufs = ncap;
		for (size_t j = 0; j < ocap; j++) {
			if (!old[j].used)
				continue;
			for (i = (old[j].id * 0x9E3779B97F4A7C15ull >> 17) & (ncap - 1); n[i].used;
			     i = (i + 1) & (ncap - 1))
				;
			n[i] = old[j];
		}
		free(old);
	}
	mask = f->cap_bufs - 1;
	for (i = (id * 0x9E3779B97F4A7C15ull >> 17) & mask; f->bufs[i].used; i = (i + 1) & mask)
		if (f->bufs[i].id == id)
			return &f->bufs[i];
	f->bufs[i].used = 1;
	f->bufs[i].id = id;
	f->nr_bufs++;
	return &f->bufs[i];
}

struct ft_fmt *ft_fmt_new(struct ft_trace *t, uint64_t options, FILE *out)
{
	struct ft_fmt *f = calloc(1, sizeof(*f));

	if (!f)
		return NULL;
	f->t = t;
	f->opt = options;
	f->out = out;
	f->graph = !strcmp(ft_trace_tracer(t), "function_graph");
	f->cpu_width = 1;
	for (size_t i = 0; i < sizeof(f->last_tid) / sizeof(f->last_tid[0]); i++)
		f->last_tid[i] = -1;
	return f;
}

void ft_fmt_free(struct ft_fmt *f)
{
	if (!f)
		return;
	ft_uev_table_free(&f->uev);
	free(f->bufs);
	free(f);
}

static int nr_cpus(struct ft_fmt *f)
{
	const char *v = ft_trace_meta(f->t, "nr_cpus");
	int n = v ? atoi(v) : 1;

	return n > 0 ? n : 1;
}

static void lat_trace_header(struct ft_fmt *f, uint64_t entries, uint64_t written)
{
	const char *kr = ft_trace_meta(f->t, "kernel");

	fprintf(f->out, "# %s latency trace v1.1.5 on %s\n", ft_trace_tracer(f->t),
		kr ? kr : "unknown");
	fprintf(f->out, "# --------------------------------------------------------------------\n");
	fprintf(f->out,
		"# latency: 0 us, #%llu/%llu, CPU#0 | (M:user VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		(unsigned long long)entries, (unsigned long long)written, nr_cpus(f));
	fprintf(f->out, "#    -----------------\n");
	fprintf(f->out, "#    | task: %s (uid:%d nice:0 policy:0 rt_prio:0)\n",
		ft_trace_meta(f->t, "cmdline") ? ft_trace_meta(f->t, "cmdline") : "-", 0);
	fprintf(f->out, "#    -----------------\n");
	fprintf(f->out, "#\n");
}

static void graph_header(struct ft_fmt *f, int lat)
{
	FILE *o = f->out;

	if (lat) {
		static const char spaces[] = "                                     ";
		int size = 0;

		if (OPT(f, FUNCGRAPH_ABSTIME))
			size += 16;
		if (OPT(f, FUNCGRAPH_CPU))
			size += 4;
		if (OPT(f, FUNCGRAPH_PROC))
			size += 17;
		fprintf(o, "#%.*s  _-----=> irqs-off        \n", size, spaces);
		fprintf(o, "#%.*s / _----=> need-resched    \n", size, spaces);
		fprintf(o, "#%.*s| / _---=> hardirq/softirq \n", size, spaces);
		fprintf(o, "#%.*s|| / _--=> preempt-depth   \n", size, spaces);
		fprintf(o, "#%.*s||| /                      \n", size, spaces);
	}
	fputc('#', o);
	if (OPT(f, FUNCGRAPH_ABSTIME))
		fputs("     TIME       ", o);
	if (OPT(f, FUNCGRAPH_CPU))
		fputs(" CPU", o);
	if (OPT(f, FUNCGRAPH_PROC))
		fputs("  TASK/PID       ", o);
	if (lat)
		fputs("||||   ", o);
	if (OPT(f, FUNCGRAPH_DURATION))
		fputs("  DURATION   ", o);
	fputs("               FUNCTION CALLS\n", o);
	fputc('#', o);
	if (OPT(f, FUNCGRAPH_ABSTIME))
		fputs("      |         ", o);
	if (OPT(f, FUNCGRAPH_CPU))
		fputs(" |  ", o);
	if (OPT(f, FUNCGRAPH_PROC))
		fputs("   |    |        ", o);
	if (lat)
		fputs("||||   ", o);
	if (OPT(f, FUNCGRAPH_DURATION))
		fputs("   |   |      ", o);
	fputs("               |   |   |   |\n", o);
}

void ft_fmt_header(struct ft_fmt *f, uint64_t entries, uint64_t written)
{
	int lat = OPT(f, LATENCY_FORMAT);

	fprintf(f->out, "# tracer: %s\n#\n", ft_trace_tracer(f->t));
	if (f->graph) {
		if (lat)
			lat_trace_header(f, entries, written);
		graph_header(f, lat);
		return;
	}
	if (lat) {
		lat_trace_header(f, entries, written);
		fputs("#                    _------=> CPU#            \n"
		      "#                   / _-----=> irqs-off        \n"
		      "#                  | / _----=> need-resched    \n"
		      "#                  || / _---=> hardirq/softirq \n"
		      "#                  ||| / _--=> preempt-depth   \n"
		      "#                  |||| /     delay           \n"
		      "#  cmd     pid     ||||| time  |   caller     \n"
		      "#     \\   /        |||||  \\    |    /       \n",
		      f->out);
		return;
	}
	fprintf(f->out, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n#\n",
		(unsigned long long)entries, (unsigned long long)written, nr_cpus(f));
	if (f->irq_info) {
		fputs("#                                _-----=> irqs-off/BH-disabled\n"
		      "#                               / _----=> need-resched\n"
		      "#                              | / _---=> hardirq/softirq\n"
		      "#                              || / _--=> preempt-depth\n"
		      "#                              ||| / _-=> migrate-disable\n"
		      "#                              |||| /     delay\n"
		      "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
		      "#              | |         |   |||||     |         |\n",
		      f->out);
		return;
	}
	fputs("#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
	      "#              | |         |         |         |\n",
	      f->out);
}

void ft_fmt_set_irq_info(struct ft_fmt *f, int on)
{
	f->irq_info = on;
}

static const char *comm_of(struct ft_fmt *f, const struct ft_event *ev)
{
	return ft_trace_comm(f->t, ev->tid);
}

static void lat_flags(struct ft_fmt *f, const struct ft_event *ev)
{
	fprintf(f->out, "..%c.", ev->level ? 'h' : '.');
}

/* "  comm-tid  [lvl] sec.usec: " or, with latency-format, its columns. */
static void context(struct ft_fmt *f, const struct ft_event *ev)
{
	if (!f->have_first) {
		f->have_first = 1;
		f->first_ts = ev->ts;
	}
	if (OPT(f, LATENCY_FORMAT)) {
		struct ft_event next;
		uint64_t rel = 0;

		if (ft_trace_peek_buffer(f->t, ev, &next) == 1 && next.ts > ev->ts)
			rel = next.ts - ev->ts;
		fprintf(f->out, "%8.8s-%-7u %3d", comm_of(f, ev), ev->tid, ev->level);
		lat_flags(f, ev);
		fprintf(
		    f->out, " %4lluus%c: ",
		    (unsigned long long)((ev->ts - (ev->ts >= f->first_ts ? f->first_ts : ev->ts)) /
					 1000),
		    ft_fmt_mark(rel / 1000 * 1000));
		return;
	}
	fprintf(f->out, "%16s-%-7u [%03d] ", comm_of(f, ev), ev->tid, ev->level);
	if (f->irq_info)
		fprintf(f->out, "..%c.. ", ev->level ? 'h' : '.');
	fprintf(f->out, "%5llu.%06llu: ", (unsigned long long)(ev->ts / 1000000000ull),
		(unsigned long long)(ev->ts % 1000000000ull / 1000));
}

static void print_sym_fid(struct ft_fmt *f, uint32_t fid)
{
	char buf[512];

	fputs(ft_trace_func_name(f->t, fid, OPT(f, SYM_OFFSET), buf, sizeof(buf)), f->out);
	if (OPT(f, SYM_ADDR))
		fprintf(f->out, " <%016llx>", (unsigned long long)ft_trace_func_addr(f->t, fid));
}

static void print_sym_addr(struct ft_fmt *f, uint32_t pid, uint64_t addr)
{
	char buf[512];

	fputs(ft_trace_addr_name_pid(f->t, pid, addr, OPT(f, SYM_OFFSET), buf, sizeof(buf)),
	      f->out);
	if (OPT(f, SYM_ADDR))
		fprintf(f->out, " <%016llx>", (unsigned long long)addr);
}

/* Text of a non-function event (no newline). */
static void event_text(struct ft_fmt *f, const struct ft_event *ev)
{
	const char *d = ev->data;
	size_t n = ev->len;

	switch (ev->type) {
	case FT_EV_MARKER:
		n = strnlen(d, n);
		while (n && (d[n - 1] == '\n' || d[n - 1] == 0))
			n--;
		fprintf(f->out, "tracing_mark_write: %.*s", (int)n, d);
		break;
	case FT_EV_BINMARKER:
		fputs("raw_data:", f->out);
		for (size_t i = 0; i < n && i < 64; i++)
			fprintf(f->out, " %02x", (unsigned char)d[i]);
		break;
	case FT_EV_EVENT: { /* issue 7 (uev): "name: field=value ..." from UFORMATS */
		char line[8192], err[256];

		if (!f->uev_loaded) {
			f->uev_loaded = 1;
			if (ft_uev_table_load(&f->uev, ft_trace_reader(f->t), err, sizeof(err)))
				ft_uev_table_free(&f->uev);
		}
		fputs(ft_uev_render(&f->uev, ev->event_id, d, n,
				    line, sizeof(line)),
		      f->out);
		break;
	}
	case FT_EV_COMM:
		fprintf(f->out, "task_rename: newcomm=%.*s", (int)strnlen(d, n), d);
		break;
	case FT_EV_EXEC:
		fprintf(f->out, "sched_process_exec: filename=%.*s", (int)strnlen(d, n), d);
		break;
	case FT_EV_FORK:
		fprintf(f->out, "sched_process_fork: child_pid=%llu",
			(unsigned long long)ev->count);
		break;
	case FT_EV_TEXIT:
		fprintf(f->out, "sched_process_exit: status=%lld", (long long)(int64_t)ev->count);
		break;
	case FT_EV_SIGNAL:
		fprintf(f->out, "signal_deliver: sig=%llu", (unsigned long long)ev->count);
		break;
	case FT_EV_TRACE_ON:
		fputs("tracing_on", f->out);
		break;
	case FT_EV_TRACE_OFF:
		fputs("tracing_off", f->out);
		break;
	default:
		fprintf(f->out, "event type %d", (int)ev->type);
		break;
	}
}

static void print_stack_lines(struct ft_fmt *f, const struct ft_event *ev)
{
	if (ev->stack_id >= 0 && !OPT(f, EXPAND_STACKS)) {
		fprintf(f->out, "<stack_id %lld>\n", (long long)ev->stack_id);
		return;
	}
	fputs("<stack trace>\n", f->out);
	if (ev->stack_id >= 0 && !ev->ips) {
		fprintf(f->out, " => <stack_id %lld not in the trace's stack map>\n",
			(long long)ev->stack_id);
		return;
	}
	for (uint32_t i = 0; i < ev->nr_ips; i++) {
		fputs(" => ", f->out);
		print_sym_addr(f, ev->pid, ev->ips[i]);
		fputc('\n', f->out);
	}
}

static int function_event(struct ft_fmt *f, const struct ft_event *ev)
{
	if (ev->type == FT_EV_LOST) {
		fprintf(f->out, "CPU:%d [LOST %llu EVENTS]\n", ev->level,
			(unsigned long long)ev->count);
		return 0;
	}
	context(f, ev);
	switch (ev->type) {
	case FT_EV_FUNC:
	case FT_EV_ENTRY:
		print_sym_fid(f, ev->fid);
		if (OPT(f, PRINT_PARENT) && ev->type == FT_EV_FUNC) {
			if (ev->parent_fid != FT_FID_UNKNOWN) {
				fputs(" <-", f->out);
				print_sym_fid(f, ev->parent_fid);
			} else if (ev->parent_addr) {
				fputs(" <-", f->out);
				print_sym_addr(f, ev->pid, ev->parent_addr);
			}
		}
		fputc('\n', f->out);
		break;
	case FT_EV_EXIT:
		fputs("return from ", f->out);
		print_sym_fid(f, ev->fid);
		fputc('\n', f->out);
		break;
	case FT_EV_STACK:
		print_stack_lines(f, ev);
		break;
	default:
		event_text(f, ev);
		fputc('\n', f->out);
		break;
	}
	return 0;
}

/* " %*d) " then the proc column, centered in 14 like print_graph_proc(). */
static void graph_proc(struct ft_fmt *f, const char *comm, uint32_t tid)
{
	char c[8], pid[12];
	int len, spaces = 0;

	snprintf(c, sizeof(c), "%s", comm);
	snprintf(pid, sizeof(pid), "%u", tid);
	len = (int)(strlen(c) + strlen(pid) + 1);
	if (len < 14)
		spaces = 14 - len;
	fprintf(f->out, "%*s%s-%s%*s", spaces / 2, "", c, pid, spaces - spaces / 2, "");
}

static void graph_prologue(struct ft_fmt *f, const struct ft_event *ev)
{
	int lvl = ev->level < 64 ? ev->level : 63;

	if (!f->have_first) {
		f->have_first = 1;
		f->first_ts = ev->ts;
	}
	/* the kernel's context-switch block, per "CPU" (level) */
	if (f->last_tid[lvl] >= 0 && f->last_tid[lvl] != (int64_t)ev->tid) {
		fputs(" ------------------------------------------\n", f->out);
		fprintf(f->out, " %*d) ", f->cpu_width, ev->level);
		graph_proc(f, ft_trace_comm(f->t, (uint32_t)f->last_tid[lvl]),
			   (uint32_t)f->last_tid[lvl]);
		fputs(" => ", f->out);
		graph_proc(f, comm_of(f, ev), ev->tid);
		fputs("\n ------------------------------------------\n\n", f->out);
	}
	f->last_tid[lvl] = ev->tid;
	if (OPT(f, FUNCGRAPH_ABSTIME))
		fprintf(f->out, "%5llu.%06llu |  ", (unsigned long long)(ev->ts / 1000000000ull),
			(unsigned long long)(ev->ts % 1000000000ull / 1000));
	if (OPT(f, FUNCGRAPH_CPU))
		fprintf(f->out, " %*d) ", f->cpu_width, ev->level);
	if (OPT(f, FUNCGRAPH_PROC)) {
		graph_proc(f, comm_of(f, ev), ev->tid);
		fputs(" | ", f->out);
	}
	if (OPT(f, LATENCY_FORMAT)) {
		lat_flags(f, ev);
		fputc(' ', f->out);
	}
}

enum { FILL_NONE, FILL_FULL };

static void graph_duration(struct ft_fmt *f, uint64_t ns, int fill)
{
	char buf[64];

	if (!OPT(f, FUNCGRAPH_DURATION))
		return;
	if (fill == FILL_FULL) {
		fputs("              |  ", f->out);
		return;
	}
	if (OPT(f, FUNCGRAPH_OVERHEAD))
		fprintf(f->out, "%c ", ft_fmt_mark(ns));
	else
		fputs("  ", f->out);
	ft_fmt_graph_duration(buf, sizeof(buf), ns);
	fputs(buf, f->out);
	fputs("|  ", f->out);
}

static void indent(struct ft_fmt *f, int depth)
{
	if (depth < 0)
		depth = 0;
	if (depth > MAX_INDENT)
		depth = MAX_INDENT;
	fprintf(f->out, "%*s", depth * 2, "");
}

static int graph_event(struct ft_fmt *f, const struct ft_event *ev)
{
	struct buf_state *b;
	struct ft_event next;

	switch (ev->type) {
	case FT_EV_LOST:
		fprintf(f->out, "CPU:%d [LOST %llu EVENTS]\n", ev->level,
			(unsigned long long)ev->count);
		return 0;
	case FT_EV_ENTRY:
		b = buf_get(f, ev->buffer);
		graph_prologue(f, ev);
		if (ft_trace_peek_buffer(f->t, ev, &next) == 1 && next.type == FT_EV_EXIT &&
		    next.has_entry && !next.unwound && next.depth == ev->depth) {
			graph_duration(f, next.duration, FILL_NONE);
			indent(f, ev->depth);
			print_sym_fid(f, ev->fid);
			fputs("();\n", f->out);
			if (b)
				b->skip_exit = 1;
			return 0;
		}
		graph_duration(f, 0, FILL_FULL);
		indent(f, ev->depth);
		print_sym_fid(f, ev->fid);
		fputs("() {\n", f->out);
		return 0;
	case FT_EV_EXIT:
		b = buf_get(f, ev->buffer);
		if (b && b->skip_exit) {
			b->skip_exit = 0;
			return 0;
		}
		graph_prologue(f, ev);
		graph_duration(f, ev->duration, ev->has_entry ? FILL_NONE : FILL_FULL);
		indent(f, ev->depth);
		if (ev->unwound) {
			fputs("} /* ", f->out);
			print_sym_fid(f, ev->fid);
			fputs(" (unwound) */\n", f->out);
		} else if (OPT(f, FUNCGRAPH_TAIL) || !ev->has_entry) {
			fputs("} /* ", f->out);
			print_sym_fid(f, ev->fid);
			fputs(" */\n", f->out);
		} else {
			fputs("}\n", f->out);
		}
		return 0;
	case FT_EV_FUNC:
		graph_prologue(f, ev);
		graph_duration(f, 0, FILL_FULL);
		indent(f, ev->depth);
		print_sym_fid(f, ev->fid);
		fputs("();\n", f->out);
		return 0;
	case FT_EV_STACK:
		graph_prologue(f, ev);
		graph_duration(f, 0, FILL_FULL);
		indent(f, ev->depth);
		fputs("/* ", f->out);
		if (ev->stack_id >= 0 && !OPT(f, EXPAND_STACKS)) {
			fprintf(f->out, "<stack_id %lld> */\n", (long long)ev->stack_id);
			return 0;
		}
		fputs("<stack trace> */\n", f->out);
		for (uint32_t i = 0; i < ev->nr_ips; i++) {
			fputs(" => ", f->out);
			print_sym_addr(f, ev->pid, ev->ips[i]);
			fputc('\n', f->out);
		}
		return 0;
	default:
		/* markers and task events: a comment at the current depth */
		graph_prologue(f, ev);
		graph_duration(f, 0, FILL_FULL);
		indent(f, ev->depth);
		fputs("/* ", f->out);
		if (ev->type == FT_EV_MARKER) {
			/* trace_marker text alone, as the kernel prints trace_printk */
			const char *d = ev->data;
			size_t n = strnlen(d, ev->len);

			while (n && d[n - 1] == '\n')
				n--;
			fprintf(f->out, "%.*s", (int)n, d);
		} else {
			event_text(f, ev);
		}
		fputs(" */\n", f->out);
		return 0;
	}
}

/*
 * A source (kernel) event inside the function_graph layout: like the
 * kernel, as a comment in the FUNCTION CALLS column, on its own CPU.  The
 * source renders a full trace line; its text after the timestamp becomes
 * the comment and any further lines (stacks) follow unchanged.  Falls back
 * to the full line when the rendering has no "sec.usec: " part.
 */
static void graph_source(struct ft_fmt *f, const struct ft_event *ev)
{
	char *buf = NULL, *p, *nl, *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	ev->src->print(ev->src->arg, ev, m);
	fclose(m);
	nl = memchr(buf, '\n', len);
	if (nl)
		*nl = 0;
	/* the timestamp: digits '.' six digits ':' ' ' */
	for (p = buf; (p = strchr(p, '.')); p++) {
		size_t d = strspn(p + 1, "0123456789");

		if (d == 6 && p > buf && p[-1] >= '0' && p[-1] <= '9' && p[7] == ':' &&
		    p[8] == ' ') {
			text = p + 9;
			break;
		}
	}
	if (!text) {
		if (nl)
			*nl = '\n';
		fwrite(buf, 1, len, f->out);
		free(buf);
		return;
	}
	if (OPT(f, FUNCGRAPH_ABSTIME))
		fprintf(f->out, "%5llu.%06llu |  ", (unsigned long long)(ev->ts / 1000000000ull),
			(unsigned long long)(ev->ts % 1000000000ull / 1000));
	if (OPT(f, FUNCGRAPH_CPU))
		fprintf(f->out, " %*d) ", f->cpu_width, ev->cpu);
	if (OPT(f, FUNCGRAPH_PROC)) {
		graph_proc(f, ev->comm ? ev->comm : ft_trace_comm(f->t, ev->tid), ev->tid);
		fputs(" | ", f->out);
	}
	if (OPT(f, LATENCY_FORMAT))
		fputs(".... ", f->out);
	graph_duration(f, 0, FILL_FULL);
	fprintf(f->out, "/* %s */\n", text);
	if (nl && (size_t)(nl + 1 - buf) < len)
		fwrite(nl + 1, 1, len - (size_t)(nl + 1 - buf), f->out);
	free(buf);
}

int ft_fmt_event(struct ft_fmt *f, const struct ft_event *ev)
{
	if (ev->type == FT_EV_SOURCE) {
		if (!ev->src || !ev->src->print)
			return 0;
		if (f->graph)
			graph_source(f, ev);
		else
			ev->src->print(ev->src->arg, ev, f->out);
	} else if (f->graph) {
		graph_event(f, ev);
	} else {
		function_event(f, ev);
	}
	return ferror(f->out) ? -1 : 0;
}
