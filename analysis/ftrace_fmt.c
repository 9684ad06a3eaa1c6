// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's text formats (see ftrace_fmt.h for what the columns mean in
 * user space).  Column layouts follow the kernel's trace_output.c
 * (trace_print_context, trace_print_lat_context, print_raw_fmt,
 * print_hex_fmt) and trace_functions_graph.c (print_graph_prologue,
 * print_graph_comment, verif_pid) so scripts that parse the kernel's trace
 * file parse ftrail's output too.
 */
#include "analysis/argfmt.h"
#include "analysis/ftrace_fmt.h"

#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/kevents.h"
#include "analysis/numfmt.h"
#include "core/options.h"
#include "analysis/uevent_table.h"
#include "core/hashtab.h"

#define MAX_INDENT 512 /* levels; deeper calls print at this indentation */
#define MAX_KCPUS 8192 /* kernel CPUs tracked for the graph's context-switch lines */

struct buf_state {
	struct ft_hentry h; /* first (hashtab.h): key the buffer id */
	int skip_exit;	    /* the next EXIT of this buffer was printed as a leaf */
};

#define NR_CPU_COLS 8
#define NR_PROC_COLS 16

/* A function's name as printed, cached per fid (see fid_name()). */
struct name {
	char *s;
	uint32_t len;
};

struct ft_fmt {
	struct ft_trace *t;
	uint64_t opt;
	FILE *out;
	/*
	 * Output is formatted into ob by hand (the hot lines never go through
	 * printf: it was 30% of show's time) and handed to out in blocks of
	 * about OB_FLUSH bytes, always at an event's end, so that an event's
	 * text can still be edited in place while it is written.
	 */
	char *ob;
	size_t ob_len, ob_cap;
	int ob_err;
	struct name *names[2]; /* per fid: [0] bare, [1] with sym-offset */
	uint32_t nr_names;
	int graph;
	int irq_info;
	int cpu_width;
	/* " %*d) ", the funcgraph-cpu cell, for CPU (level) numbers below NR_CPU_COLS */
	char cpu_col[NR_CPU_COLS][16];
	uint8_t cpu_col_len[NR_CPU_COLS];
	/* the funcgraph-proc cell of recent threads, by tid % NR_PROC_COLS */
	struct proc_col {
		uint32_t tid;
		uint8_t len; /* 0: empty */
		char comm[8];
		char col[24];
	} proc_col[NR_PROC_COLS];
	uint64_t first_ts;
	int have_first;
	struct ft_htab bufs; /* struct buf_state, per user buffer */
	struct buf_state *last_buf;
	int given;			   /* in ft_fmt_event_next(): */
	const struct ft_event *given_next; /* its next (NULL: none) */
	/* kernel events (ft_fmt_set_kevents) */
	struct ft_kevents *kev;
	const struct ft_trace_source *ksrc;
	struct ft_fmt_kops kops;
	int64_t *klast; /* per kernel CPU: pid last shown in the graph, -1: none */
	size_t nr_klast;
	/* ft_fmt_scan(): latency-format delay marks, one per entry in stream order */
	char *marks;
	size_t nr_marks, cap_marks, pos;
	uint64_t scan_ts;
	int scanned, marks_failed;
	/* the latency header's task: the first user event's process */
	int have_task;
	char task_comm[32];
	uint32_t task_pid;
	/* a latency tracer's header (ft_fmt_set_latency), when have_lat */
	int have_lat;
	struct ft_fmt_lat lat;
	char lat_model[32], lat_comm[32], lat_started[128], lat_ended[128];
	/* UFORMATS, loaded on the first user event; a malformed one stays empty
	 * (its events then show as "user_event: id=N len=L").  Per formatter, not
	 * cached by reader address: a later reader may reuse a freed one's. */
	struct ft_uev_table uev;
	int uev_loaded;
	/* captured arguments and return values (funcgraph-args / -retval) */
	struct ft_argfmt *args;
	int args_loaded;
	char argbuf[4096];
};

/* What the kernel prints before an event's text (see print_ctx()). */
struct ctx {
	const char *comm;
	uint32_t pid;
	int cpu;
	const char *flags; /* the five irq-info columns */
	uint64_t ts;
	char mark; /* latency-format delay mark */
};

#define OPT(f, name) (((f)->opt & FT_OPT(name)) != 0)

/* The small pieces of every function_graph line, inlined into graph_event(). */
#define HOT_INLINE static inline __attribute__((always_inline))

/* ---------------------------------------------------------- output buffer */

#define OB_FLUSH (64u * 1024)

/*
 * One output buffer of the usual size (2 x OB_FLUSH) left by a freed
 * formatter, for the next one.  Programs that make a formatter per view
 * (the fuzz target: four per input; live/: one per refresh) otherwise
 * allocate and free 128 KB each time, which is above the largest size
 * class of malloc's arenas (and of ASan's allocator): an mmap, a page
 * fault per 4 KB written and a munmap, each time.  A mutex guards the slot.
 */
static struct {
	pthread_mutex_t lock;
	char *buf;
} ob_spare = { .lock = PTHREAD_MUTEX_INITIALIZER };

static char *ob_spare_take(void)
{
	char *b;

	pthread_mutex_lock(&ob_spare.lock);
	b = ob_spare.buf;
	ob_spare.buf = NULL;
	pthread_mutex_unlock(&ob_spare.lock);
	return b;
}

/* Keep b (of 2 x OB_FLUSH bytes) as the spare, or free it when there is one. */
static void ob_spare_put(char *b)
{
	pthread_mutex_lock(&ob_spare.lock);
	if (!ob_spare.buf) {
		ob_spare.buf = b;
		b = NULL;
	}
	pthread_mutex_unlock(&ob_spare.lock);
	free(b);
}

/* Free the spare at exit, so leak checkers see a clean heap. */
static void __attribute__((destructor)) ob_spare_drop(void)
{
	free(ob_spare_take());
}

/* ob_room()'s slow path: grow ob.  NULL (and ob_err) when out of memory. */
static __attribute__((noinline)) char *ob_grow(struct ft_fmt *f, size_t n)
{
	size_t nc = f->ob_cap ? f->ob_cap : 2 * OB_FLUSH;
	char *b;

	while (nc < f->ob_len + n)
		nc *= 2;
	if (!f->ob && nc == 2 * OB_FLUSH && (b = ob_spare_take())) {
		f->ob = b;
		f->ob_cap = nc;
		return f->ob;
	}
	b = realloc(f->ob, nc);
	if (!b) {
		f->ob_err = 1;
		return NULL;
	}
	f->ob = b;
	f->ob_cap = nc;
	return f->ob + f->ob_len;
}

/*
 * Room for n more bytes in ob; NULL (and ob_err) when out of memory.
 * Inline, as the writers below: they run several times per line.
 */
static inline char *ob_room(struct ft_fmt *f, size_t n)
{
	if (f->ob_len + n <= f->ob_cap)
		return f->ob + f->ob_len;
	return ob_grow(f, n);
}

/*
 * n bytes from p to d.  Most pieces of a line are short (a name, a
 * number, a duration cell): copied with at most two overlapping fixed-size
 * moves each, which the compiler inlines, rather than a call to memcpy().
 */
static inline void copy_short(char *d, const char *p, size_t n)
{
	if (n >= 8 && n <= 16) {
		memcpy(d, p, 8);
		memcpy(d + n - 8, p + n - 8, 8);
	} else if (n >= 4 && n < 8) {
		memcpy(d, p, 4);
		memcpy(d + n - 4, p + n - 4, 4);
	} else if (n < 4) {
		for (size_t i = 0; i < n; i++)
			d[i] = p[i];
	} else {
		memcpy(d, p, n);
	}
}

static inline __attribute__((always_inline)) void ob_write(struct ft_fmt *f, const void *p,
							   size_t n)
{
	char *d = ob_room(f, n);

	if (d) {
		copy_short(d, p, n);
		f->ob_len += n;
	}
}

static inline void ob_puts(struct ft_fmt *f, const char *s)
{
	ob_write(f, s, strlen(s));
}

/* A string literal: its length known at compile time, no strlen(). */
#define ob_lit(f, lit) ob_write(f, "" lit, sizeof(lit) - 1)

static inline void ob_putc(struct ft_fmt *f, char c)
{
	char *d = ob_room(f, 1);

	if (d) {
		*d = c;
		f->ob_len++;
	}
}

static inline void ob_spaces(struct ft_fmt *f, size_t n)
{
	static const char sp[16] = "                ";
	char *d = ob_room(f, n + sizeof(sp));

	/* whole 16-byte stores, past n into room the next piece overwrites:
	 * indentation is short and a call to memset() cost more than it */
	if (d) {
		for (size_t i = 0; i < n; i += sizeof(sp))
			memcpy(d + i, sp, sizeof(sp));
		f->ob_len += n;
	}
}

/* The rare lines (headers, raw/hex, events' text): printf is fine there. */
__attribute__((format(printf, 2, 3))) static void ob_printf(struct ft_fmt *f, const char *fmt, ...)
{
	va_list ap;
	char *d;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	if (n < 0 || !(d = ob_room(f, (size_t)n + 1)))
		return;
	va_start(ap, fmt);
	vsnprintf(d, (size_t)n + 1, fmt, ap);
	va_end(ap);
	f->ob_len += (size_t)n;
}

/*
 * v in decimal, at least width characters: right-aligned in spaces
 * (printf's %*llu), in zeros with zero (%0*llu), or left-aligned with
 * left (%-*llu).
 */
static void ob_u64(struct ft_fmt *f, uint64_t v, int width, int zero, int left)
{
	char buf[24], *p = ft_u64_digits(buf + sizeof(buf), v);
	size_t n = (size_t)(buf + sizeof(buf) - p),
	       pad = width > 0 && (size_t)width > n ? (size_t)width - n : 0;
	char *d = ob_room(f, n + pad);

	if (!d)
		return;
	if (!left) {
		memset(d, zero ? '0' : ' ', pad);
		d += pad;
	}
	memcpy(d, p, n);
	if (left)
		memset(d + n, ' ', pad);
	f->ob_len += n + pad;
}

/* "sec.usec" of a ns time with the seconds right-aligned in width (%5llu.%06llu). */
static void ob_sec_usec(struct ft_fmt *f, uint64_t ns, int width)
{
	ob_u64(f, ns / 1000000000ull, width, 0, 0);
	ob_putc(f, '.');
	ob_u64(f, ns % 1000000000ull / 1000, 6, 1, 0);
}

/* A signed int right-aligned in width (%*d). */
static void ob_int(struct ft_fmt *f, int v, int width)
{
	if (v >= 0)
		ob_u64(f, (uint64_t)v, width, 0, 0);
	else
		ob_printf(f, "%*d", width, v);
}

/* s right-aligned in width (%*s), or as it is when longer. */
static void ob_rjust(struct ft_fmt *f, const char *s, size_t width)
{
	size_t n = strlen(s);

	if (n < width)
		ob_spaces(f, width - n);
	ob_write(f, s, n);
}

int ft_fmt_flush(struct ft_fmt *f)
{
	if (f->ob_len && fwrite(f->ob, 1, f->ob_len, f->out) != f->ob_len)
		f->ob_err = 1;
	f->ob_len = 0;
	return f->ob_err || ferror(f->out) ? -1 : 0;
}

int ft_fmt_set_output(struct ft_fmt *f, FILE *out)
{
	int r = ft_fmt_flush(f);

	f->out = out;
	return r;
}

char ft_fmt_mark(uint64_t d)
{
	static const struct {
		uint64_t val;
		char sym;
	} mark[] = {
		{ 1000000000ull, '$' }, { 100000000ull, '@' }, { 10000000ull, '*' },
		{ 1000000ull, '#' },	{ 100000ull, '!' },    { 10000ull, '+' },
	};

	if (d <= 10000ull) /* most calls */
		return ' ';
	for (size_t i = 0; i < sizeof(mark) / sizeof(mark[0]); i++)
		if (d > mark[i].val)
			return mark[i].sym;
	return ' ';
}

static size_t graph_duration_cell_long(char *buf, uint64_t ns);

/* The duration cell into buf (at least 24 bytes); returns its length. */
HOT_INLINE size_t graph_duration_cell(char *buf, uint64_t ns)
{
	/*
	 * Below 10 ms (nearly every call) the cell is "U.NNN us " and spaces
	 * to 12 bytes, U being 1 to 4 digits: written with fixed-size stores
	 * (up to 16 bytes, buf has room) instead of the general path's copies.
	 */
	if (ns < 10000000ull) {
		static const char digits2[200] =
			"00010203040506070809101112131415161718192021222324"
			"25262728293031323334353637383940414243444546474849"
			"50515253545556575859606162636465666768697071727374"
			"75767778798081828384858687888990919293949596979899";
		unsigned int us = (unsigned int)(ns / 1000), r = (unsigned int)(ns % 1000);
		char *p = buf;

		if (us >= 1000) {
			memcpy(p, digits2 + 2 * (us / 100), 2);
			memcpy(p + 2, digits2 + 2 * (us % 100), 2);
			p += 4;
		} else if (us >= 100) {
			*p++ = (char)('0' + us / 100);
			memcpy(p, digits2 + 2 * (us % 100), 2);
			p += 2;
		} else if (us >= 10) {
			memcpy(p, digits2 + 2 * us, 2);
			p += 2;
		} else {
			*p++ = (char)('0' + us);
		}
		p[0] = '.';
		p[1] = (char)('0' + r / 100);
		memcpy(p + 2, digits2 + 2 * (r % 100), 2);
		memcpy(p + 4, " us     ", 8);
		return 12;
	}
	return graph_duration_cell_long(buf, ns);
}

/* graph_duration_cell() from 10 ms up: any number of microsecond digits. */
static __attribute__((noinline)) size_t graph_duration_cell_long(char *buf, uint64_t ns)
{
	char tmp[24], *us = ft_u64_digits(tmp + sizeof(tmp), ns / 1000);
	size_t l = (size_t)(tmp + sizeof(tmp) - us), n = l;

	memcpy(buf, us, l);
	if (l < 7) {
		/* nsecs: at most 7 digits in all, as the kernel prints them */
		size_t keep = 8 - l - 1 < 3 ? 8 - l - 1 : 3;
		unsigned int r = (unsigned int)(ns % 1000);
		char d[3] = { (char)('0' + r / 100), (char)('0' + r / 10 % 10),
			      (char)('0' + r % 10) };

		buf[n++] = '.';
		memcpy(buf + n, d, keep);
		n += keep;
		l += keep + 1;
	}
	memcpy(buf + n, " us ", 4);
	n += 4;
	for (; l < 8; l++)
		buf[n++] = ' ';
	return n;
}

void ft_fmt_graph_duration(char *buf, size_t len, uint64_t ns)
{
	char cell[32];
	size_t n = graph_duration_cell(cell, ns);

	if (!len)
		return;
	if (n >= len)
		n = len - 1;
	memcpy(buf, cell, n);
	buf[n] = 0;
}

static struct buf_state *buf_get_slow(struct ft_fmt *f, uint64_t id);

/* The state of user buffer id (created on first use); NULL when out of memory. */
static inline struct buf_state *buf_get(struct ft_fmt *f, uint64_t id)
{
	/* consecutive events nearly always come from one buffer */
	if (f->last_buf && f->last_buf->h.key == id)
		return f->last_buf;
	return buf_get_slow(f, id);
}

/* buf_get() of another buffer than the last one. */
static __attribute__((noinline)) struct buf_state *buf_get_slow(struct ft_fmt *f, uint64_t id)
{
	if (!f->bufs.tab && ft_htab_init(&f->bufs, sizeof(struct buf_state)) < 0)
		return NULL;
	/* a create may move every entry: last_buf is always the latest lookup */
	f->last_buf = ft_htab_get(&f->bufs, id, 1);
	return f->last_buf;
}

struct ft_fmt *ft_fmt_new(struct ft_trace *t, uint64_t options, FILE *out)
{
	struct ft_fmt *f = calloc(1, sizeof(*f));
	const char *v;
	int n;

	if (!f)
		return NULL;
	f->t = t;
	f->opt = options;
	f->out = out;
	f->graph = !strcmp(ft_trace_tracer(t), "function_graph");
	/* print_graph_cpu(): as wide as the highest CPU number */
	v = ft_trace_meta(t, "nr_cpus");
	n = v ? atoi(v) : 1;
	f->cpu_width = 1;
	for (n = n > 1 ? n - 1 : 0; n >= 10; n /= 10)
		f->cpu_width++;
	for (int i = 0; i < NR_CPU_COLS; i++) {
		int l = snprintf(f->cpu_col[i], sizeof(f->cpu_col[i]), " %*d) ", f->cpu_width, i);

		f->cpu_col_len[i] = l > 0 && (size_t)l < sizeof(f->cpu_col[i]) ? (uint8_t)l : 0;
	}
	return f;
}

void ft_fmt_free(struct ft_fmt *f)
{
	if (!f)
		return;
	ft_fmt_flush(f);
	if (f->ob && f->ob_cap == 2 * OB_FLUSH)
		ob_spare_put(f->ob);
	else
		free(f->ob);
	for (int k = 0; k < 2; k++) {
		for (uint32_t i = 0; f->names[k] && i < f->nr_names; i++)
			free(f->names[k][i].s);
		free(f->names[k]);
	}
	ft_uev_table_free(&f->uev);
	ft_argfmt_free(f->args);
	ft_htab_free(&f->bufs);
	free(f->klast);
	free(f->marks);
	free(f);
}

void ft_fmt_set_irq_info(struct ft_fmt *f, int on)
{
	f->irq_info = on;
}

void ft_fmt_set_kevents(struct ft_fmt *f, struct ft_kevents *k, const struct ft_trace_source *src,
			const struct ft_fmt_kops *ops)
{
	if (!ops || !ops->print_info || !ops->lat_flags || !ops->used_stackmap || !ops->sym ||
	    !ops->comm)
		return; /* then its events print through src->print() */
	f->kev = k;
	f->ksrc = src;
	f->kops = *ops;
}

/* The kernel event behind a source event, or NULL when it is not one. */
static const struct ft_kevent *kevent_of(const struct ft_fmt *f, const struct ft_event *ev)
{
	if (ev->type != FT_EV_SOURCE || !f->kev || !ev->src || ev->src != f->ksrc || !ev->priv)
		return NULL;
	return ev->priv;
}

/* Lost-event notes are not entries: they take no delay mark. */
static int is_lost(const struct ft_fmt *f, const struct ft_event *ev)
{
	const struct ft_kevent *ke = kevent_of(f, ev);

	return ev->type == FT_EV_LOST || (ke && ke->kind == FT_KEV_MISSED);
}

void ft_fmt_scan(struct ft_fmt *f, const struct ft_event *ev)
{
	if (is_lost(f, ev))
		return;
	if (!f->scanned) {
		f->scanned = 1;
		f->have_first = 1;
		f->first_ts = ev->ts;
	}
	if (!f->have_task && ev->type != FT_EV_SOURCE) {
		f->have_task = 1;
		f->task_pid = ev->pid;
		snprintf(f->task_comm, sizeof(f->task_comm), "%.16s", ft_trace_comm(f->t, ev->pid));
	}
	if (f->marks_failed)
		return;
	if (f->nr_marks == f->cap_marks) {
		size_t nc = f->cap_marks ? f->cap_marks * 2 : 4096;
		char *n = realloc(f->marks, nc);

		if (!n) {
			f->marks_failed = 1; /* no marks then: ' ' everywhere */
			return;
		}
		f->marks = n;
		f->cap_marks = nc;
	}
	/* the previous entry's delay is the time to this one, in whole usecs */
	if (f->nr_marks)
		f->marks[f->nr_marks - 1] =
			ft_fmt_mark(ev->ts > f->scan_ts ? (ev->ts - f->scan_ts) / 1000 * 1000 : 0);
	f->marks[f->nr_marks++] = ' ';
	f->scan_ts = ev->ts;
}

/*
 * The next event of ev's buffer: the one ft_fmt_event_next() was given,
 * or the reader's (valid until the reader moves on).  NULL when none.
 */
static const struct ft_event *peek(struct ft_fmt *f, const struct ft_event *ev)
{
	const struct ft_event *next;

	if (f->given)
		return f->given_next;
	return ft_trace_peek_buffer_ref(f->t, ev, &next) == 1 ? next : NULL;
}

/*
 * The delay mark of the entry being printed (called once per entry, lost
 * notes excepted, in stream order).  Without a scan: the time to the next
 * record of the same user buffer.
 */
static char take_mark(struct ft_fmt *f, const struct ft_event *ev)
{
	const struct ft_event *next;

	if (f->scanned) {
		if (f->marks_failed || f->pos >= f->nr_marks)
			return ' ';
		return f->marks[f->pos++];
	}
	if (!OPT(f, LATENCY_FORMAT) || ev->type == FT_EV_SOURCE)
		return ' ';
	next = peek(f, ev);
	if (next && next->ts > ev->ts)
		return ft_fmt_mark((next->ts - ev->ts) / 1000 * 1000);
	return ' ';
}

static int nr_cpus(struct ft_fmt *f)
{
	const char *v = ft_trace_meta(f->t, "nr_cpus");
	int n = v ? atoi(v) : 1;

	return n > 0 ? n : 1;
}

void ft_fmt_set_latency(struct ft_fmt *f, const struct ft_fmt_lat *lat)
{
	f->have_lat = 1;
	f->lat = *lat;
	snprintf(f->lat_model, sizeof(f->lat_model), "%s", lat->model ? lat->model : "unknown");
	snprintf(f->lat_comm, sizeof(f->lat_comm), "%s", lat->comm ? lat->comm : "");
	snprintf(f->lat_started, sizeof(f->lat_started), "%s", lat->started ? lat->started : "");
	snprintf(f->lat_ended, sizeof(f->lat_ended), "%s", lat->ended ? lat->ended : "");
}

/* print_trace_header() of a latency tracer's case (ft_fmt_set_latency). */
static void lat_tracer_header(struct ft_fmt *f, uint64_t entries, uint64_t written)
{
	const char *kr = ft_trace_meta(f->t, "kernel");
	const struct ft_fmt_lat *l = &f->lat;

	ob_printf(f, "# %s latency trace v1.1.5 on %s\n", ft_trace_tracer(f->t),
		  kr ? kr : "unknown");
	ob_printf(f, "# --------------------------------------------------------------------\n");
	ob_printf(f,
		  "# latency: %llu us, #%llu/%llu, CPU#%d | (M:%s VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		  (unsigned long long)l->latency_us, (unsigned long long)entries,
		  (unsigned long long)written, l->cpu, f->lat_model, nr_cpus(f));
	ob_printf(f, "#    -----------------\n");
	ob_printf(f, "#    | task: %.16s-%d (uid:%d nice:%d policy:%d rt_prio:%d)\n", f->lat_comm,
		  l->pid, l->uid, l->nice, l->policy, l->rt_prio);
	ob_printf(f, "#    -----------------\n");
	if (f->lat_started[0]) {
		ob_printf(f, "#  => started at: %s\n", f->lat_started);
		ob_printf(f, "#  => ended at:   %s\n", f->lat_ended);
	}
	ob_printf(f, "#\n");
}

/* print_trace_header(): the latency-format header block. */
static void lat_trace_header(struct ft_fmt *f, uint64_t entries, uint64_t written)
{
	const char *kr = ft_trace_meta(f->t, "kernel");

	if (f->have_lat) {
		lat_tracer_header(f, entries, written);
		return;
	}

	ob_printf(f, "# %s latency trace v1.1.5 on %s\n", ft_trace_tracer(f->t),
		  kr ? kr : "unknown");
	ob_printf(f, "# --------------------------------------------------------------------\n");
	ob_printf(f, "# latency: 0 us, #%llu/%llu, CPU#0 | (M:user VP:0, KP:0, SP:0 HP:0 #P:%d)\n",
		  (unsigned long long)entries, (unsigned long long)written, nr_cpus(f));
	ob_printf(f, "#    -----------------\n");
	ob_printf(f, "#    | task: %.16s-%u (uid:0 nice:0 policy:0 rt_prio:0)\n",
		  f->have_task ? f->task_comm : "", f->have_task ? f->task_pid : 0);
	ob_printf(f, "#    -----------------\n");
	ob_printf(f, "#\n");
}

static void graph_header(struct ft_fmt *f, int lat)
{
	if (lat) {
		static const char spaces[] = "                                     ";
		int size = 0;

		if (OPT(f, FUNCGRAPH_ABSTIME))
			size += 16;
		if (OPT(f, FUNCGRAPH_CPU))
			size += 4;
		if (OPT(f, FUNCGRAPH_PROC))
			size += 17;
		ob_printf(f, "#%.*s  _-----=> irqs-off        \n", size, spaces);
		ob_printf(f, "#%.*s / _----=> need-resched    \n", size, spaces);
		ob_printf(f, "#%.*s| / _---=> hardirq/softirq \n", size, spaces);
		ob_printf(f, "#%.*s|| / _--=> preempt-depth   \n", size, spaces);
		ob_printf(f, "#%.*s||| /                      \n", size, spaces);
	}
	ob_putc(f, '#');
	if (OPT(f, FUNCGRAPH_ABSTIME))
		ob_puts(f, "     TIME       ");
	if (OPT(f, FUNCGRAPH_CPU))
		ob_puts(f, " CPU");
	if (OPT(f, FUNCGRAPH_PROC))
		ob_puts(f, "  TASK/PID       ");
	if (lat)
		ob_puts(f, "||||   ");
	if (OPT(f, FUNCGRAPH_DURATION))
		ob_puts(f, "  DURATION   ");
	ob_puts(f, "               FUNCTION CALLS\n");
	ob_putc(f, '#');
	if (OPT(f, FUNCGRAPH_ABSTIME))
		ob_puts(f, "      |         ");
	if (OPT(f, FUNCGRAPH_CPU))
		ob_puts(f, " |  ");
	if (OPT(f, FUNCGRAPH_PROC))
		ob_puts(f, "   |    |        ");
	if (lat)
		ob_puts(f, "||||   ");
	if (OPT(f, FUNCGRAPH_DURATION))
		ob_puts(f, "   |   |      ");
	ob_puts(f, "               |   |   |   |\n");
}

/* The options the display takes from a recording. */
#define DISPLAY_OPTS                                                                               \
	(FT_OPT(PRINT_PARENT) | FT_OPT(SYM_OFFSET) | FT_OPT(SYM_ADDR) | FT_OPT(LATENCY_FORMAT) |   \
	 FT_OPT(FUNCGRAPH_PROC) | FT_OPT(FUNCGRAPH_ABSTIME) | FT_OPT(FUNCGRAPH_DURATION) |         \
	 FT_OPT(FUNCGRAPH_CPU) | FT_OPT(FUNCGRAPH_OVERHEAD) | FT_OPT(FUNCGRAPH_TAIL) |             \
	 FT_OPT(FUNCGRAPH_ARGS) | FT_OPT(FUNCGRAPH_RETVAL) | FT_OPT(EXPAND_STACKS) | FT_OPT(RAW) | \
	 FT_OPT(HEX) | FT_OPT(SYM_USEROBJ))

uint64_t ft_fmt_recorded_options(struct ft_trace *t)
{
	const char *rec = ft_trace_meta(t, "options");
	uint64_t def = ft_options_default();

	if (!rec)
		return def;
	/* display options as recorded; the rest as default */
	return (ft_options_parse(rec) & DISPLAY_OPTS) | (def & ~DISPLAY_OPTS);
}

void ft_fmt_header(struct ft_fmt *f, uint64_t entries, uint64_t written)
{
	int lat = OPT(f, LATENCY_FORMAT);

	ob_printf(f, "# tracer: %s\n#\n", ft_trace_tracer(f->t));
	/* record -P: the program ran before us; what it had entered is not here */
	if (ft_trace_meta(f->t, "attached_pid"))
		ob_printf(f,
			  "# attached to process %s while it ran: calls entered before the attach\n"
			  "# are not shown (nor their returns), depths start at the attach\n#\n",
			  ft_trace_meta(f->t, "attached_pid"));
	if (f->graph) {
		if (lat)
			lat_trace_header(f, entries, written);
		graph_header(f, lat);
		return;
	}
	if (lat) {
		lat_trace_header(f, entries, written);
		ob_puts(f, "#                    _------=> CPU#            \n"
			   "#                   / _-----=> irqs-off/BH-disabled\n"
			   "#                  | / _----=> need-resched    \n"
			   "#                  || / _---=> hardirq/softirq \n"
			   "#                  ||| / _--=> preempt-depth   \n"
			   "#                  |||| / _-=> migrate-disable \n"
			   "#                  ||||| /     delay           \n"
			   "#  cmd     pid     |||||| time  |   caller     \n"
			   "#     \\   /        ||||||  \\    |    /       \n");
		return;
	}
	ob_printf(f, "# entries-in-buffer/entries-written: %llu/%llu   #P:%d\n#\n",
		  (unsigned long long)entries, (unsigned long long)written, nr_cpus(f));
	if (f->irq_info) {
		ob_puts(f, "#                                _-----=> irqs-off/BH-disabled\n"
			   "#                               / _----=> need-resched\n"
			   "#                              | / _---=> hardirq/softirq\n"
			   "#                              || / _--=> preempt-depth\n"
			   "#                              ||| / _-=> migrate-disable\n"
			   "#                              |||| /     delay\n"
			   "#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
			   "#              | |         |   |||||     |         |\n");
		return;
	}
	ob_puts(f, "#           TASK-PID     CPU#     TIMESTAMP  FUNCTION\n"
		   "#              | |         |         |         |\n");
}

static const char *comm_of(struct ft_fmt *f, const struct ft_event *ev)
{
	/* a prefetched event carries its name (analysis/prefetch.h) */
	return ev->comm ? ev->comm : ft_trace_comm(f->t, ev->tid);
}

/*
 * The columns before an event's text, as the kernel prints them:
 * print_hex_fmt() (hex), print_raw_fmt() (raw), trace_print_lat_context()
 * (latency-format) or trace_print_context() -- "comm-pid [cpu] flags
 * sec.usec: ", the flags only with irq-info.
 */
static void print_ctx(struct ft_fmt *f, const struct ctx *c)
{
	if (!f->have_first) {
		f->have_first = 1;
		f->first_ts = c->ts;
	}
	if (OPT(f, HEX)) {
		ob_printf(f, "%08x %08x %016llx ", c->pid, (unsigned int)c->cpu,
			  (unsigned long long)c->ts);
		return;
	}
	if (OPT(f, RAW)) {
		ob_printf(f, "%u %d %llu ", c->pid, c->cpu, (unsigned long long)c->ts);
		return;
	}
	if (OPT(f, LATENCY_FORMAT)) {
		uint64_t rel = c->ts >= f->first_ts ? c->ts - f->first_ts : 0;

		ob_printf(f, "%8.8s-%-7u %3d%s %4lluus%c: ", c->comm, c->pid, c->cpu, c->flags,
			  (unsigned long long)(rel / 1000), c->mark);
		return;
	}
	/* "%16s-%-7u [%03d] %s %5llu.%06llu: " */
	ob_rjust(f, c->comm, 16);
	ob_putc(f, '-');
	ob_u64(f, c->pid, 7, 0, 1);
	ob_write(f, " [", 2);
	if (c->cpu >= 0)
		ob_u64(f, (uint64_t)c->cpu, 3, 1, 0);
	else
		ob_printf(f, "%03d", c->cpu);
	ob_write(f, "] ", 2);
	if (f->irq_info)
		ob_puts(f, c->flags);
	ob_putc(f, ' ');
	ob_sec_usec(f, c->ts, 5);
	ob_write(f, ": ", 2);
}

/* A user event's context: thread, nesting level as CPU, 'h' for a signal handler. */
static struct ctx user_ctx(struct ft_fmt *f, const struct ft_event *ev, char mark)
{
	struct ctx c = {
		.comm = comm_of(f, ev),
		.pid = ev->tid,
		.cpu = ev->level,
		.flags = ev->level ? "..h.." : ".....",
		.ts = ev->ts,
		.mark = mark,
	};

	return c;
}

/*
 * fid's name as ft_trace_func_name() gives it (with sym-offset: k = 1),
 * resolved once per fid and kept: a trace names few functions, often.
 */
static void print_fid_name_slow(struct ft_fmt *f, uint32_t fid, int k);

static inline void print_fid_name(struct ft_fmt *f, uint32_t fid, int k)
{
	if (fid < f->nr_names && f->names[k][fid].s) {
		struct name *n = &f->names[k][fid];

		ob_write(f, n->s, n->len);
		return;
	}
	print_fid_name_slow(f, fid, k);
}

/* print_fid_name() the first time fid is named, or when names cannot be kept. */
static __attribute__((noinline)) void print_fid_name_slow(struct ft_fmt *f, uint32_t fid, int k)
{
	char buf[512];
	struct name *n;

	if (fid < ft_trace_nr_funcs(f->t) && fid >= f->nr_names) {
		uint32_t nr = ft_trace_nr_funcs(f->t);

		/* the trace grew (a followed file): the names kept stay */
		for (int i = 0; i < 2; i++) {
			struct name *v = realloc(f->names[i], nr * sizeof(*v));

			if (!v)
				goto plain;
			memset(v + f->nr_names, 0, (nr - f->nr_names) * sizeof(*v));
			f->names[i] = v;
		}
		f->nr_names = nr;
	}
	if (fid >= f->nr_names)
		goto plain;
	n = &f->names[k][fid];
	if (!n->s) {
		ft_trace_func_name(f->t, fid, k, buf, sizeof(buf));
		n->s = strdup(buf);
		if (!n->s)
			goto plain;
		n->len = (uint32_t)strlen(buf);
	}
	ob_write(f, n->s, n->len);
	return;
plain:
	ob_puts(f, ft_trace_func_name(f->t, fid, k, buf, sizeof(buf)));
}

/*
 * sym-userobj: " [libc.so.6]", the file name of the object fid's code is
 * in (a library call's: the library's, not the PLT of its caller).
 */
static void print_fid_object(struct ft_fmt *f, uint32_t fid)
{
	const char *obj, *b;

	if (!OPT(f, SYM_USEROBJ) || !(obj = ft_trace_func_object(f->t, fid)))
		return;
	b = strrchr(obj, '/');
	ob_printf(f, " [%s]", b ? b + 1 : obj);
}

static void print_sym_fid(struct ft_fmt *f, uint32_t fid)
{
	print_fid_name(f, fid, OPT(f, SYM_OFFSET));
	print_fid_object(f, fid);
	if (OPT(f, SYM_ADDR))
		ob_printf(f, " <%016llx>", (unsigned long long)ft_trace_func_addr(f->t, fid));
}

/* function_graph names: "%ps", the sym-* options do not apply but sym-userobj */
static void print_graph_fid(struct ft_fmt *f, uint32_t fid)
{
	print_fid_name(f, fid, 0);
	print_fid_object(f, fid);
}

/*
 * A user address as ftrace's seq_print_user_ip() prints it with
 * sym-userobj: "/path/of/object[+0xoff]" (the offset from the object's
 * load base), " <addr>" too with sym-addr.  Returns 0 when no module of
 * the trace holds addr (nothing printed).
 */
static int print_userobj(struct ft_fmt *f, uint32_t pid, uint64_t addr)
{
	char buf[512];

	if (ft_symbols_userobj(ft_trace_symbols(f->t), pid, addr, buf, sizeof(buf)))
		return 0;
	ob_puts(f, buf);
	if (OPT(f, SYM_ADDR))
		ob_printf(f, " <%016llx>", (unsigned long long)addr);
	return 1;
}

static void print_sym_addr(struct ft_fmt *f, uint32_t pid, uint64_t addr)
{
	char buf[512];

	if (OPT(f, SYM_USEROBJ) && print_userobj(f, pid, addr))
		return;
	ob_puts(f, ft_trace_addr_name_pid(f->t, pid, addr, OPT(f, SYM_OFFSET), buf, sizeof(buf)));
	if (OPT(f, SYM_ADDR))
		ob_printf(f, " <%016llx>", (unsigned long long)addr);
}

/* A stack address with raw/hex: the number alone. */
static int print_num_addr(struct ft_fmt *f, uint64_t addr)
{
	if (OPT(f, HEX))
		ob_printf(f, "%016llx", (unsigned long long)addr);
	else if (OPT(f, RAW))
		ob_printf(f, "%llx", (unsigned long long)addr);
	else
		return 0;
	return 1;
}

/* Marker text without its trailing newlines/NULs. */
static size_t marker_len(const struct ft_event *ev)
{
	const char *d = ev->data;
	size_t n = strnlen(d, ev->len);

	while (n && (d[n - 1] == '\n' || d[n - 1] == 0))
		n--;
	return n;
}

/* Text of a non-function event (no newline). */
static void event_text(struct ft_fmt *f, const struct ft_event *ev)
{
	const char *d = ev->data;
	size_t n = ev->len;

	switch (ev->type) {
	case FT_EV_MARKER:
		n = marker_len(ev);
		if (OPT(f, HEX))
			/* trace_print_raw()'s "# ip text"; user markers have no ip */
			ob_printf(f, "# %016x %.*s", 0, (int)n, d);
		else if (OPT(f, RAW))
			ob_printf(f, "# %x %.*s", 0, (int)n, d);
		else
			ob_printf(f, "tracing_mark_write: %.*s", (int)n, d);
		break;
	case FT_EV_BINMARKER:
		ob_puts(f, "raw_data:");
		for (size_t i = 0; i < n && i < 64; i++)
			ob_printf(f, " %02x", (unsigned char)d[i]);
		break;
	case FT_EV_EVENT: { /* user events: "name: field=value ..." from UFORMATS */
		char line[8192], err[256];

		if (!f->uev_loaded) {
			f->uev_loaded = 1;
			if (ft_uev_table_load(&f->uev, ft_trace_reader(f->t), err, sizeof(err)))
				ft_uev_table_free(&f->uev);
		}
		ob_puts(f, ft_uev_render(&f->uev, ev->event_id, d, n, line, sizeof(line)));
		break;
	}
	case FT_EV_COMM:
		ob_printf(f, "task_rename: newcomm=%.*s", (int)strnlen(d, n), d);
		break;
	case FT_EV_EXEC:
		ob_printf(f, "sched_process_exec: filename=%.*s", (int)strnlen(d, n), d);
		break;
	case FT_EV_FORK:
		ob_printf(f, "sched_process_fork: child_pid=%llu", (unsigned long long)ev->count);
		break;
	case FT_EV_TEXIT:
		ob_printf(f, "sched_process_exit: status=%lld", (long long)(int64_t)ev->count);
		break;
	case FT_EV_SIGNAL:
		ob_printf(f, "signal_deliver: sig=%llu", (unsigned long long)ev->count);
		break;
	case FT_EV_SIGRET:
		ob_printf(f, "signal_return: sig=%llu%s", (unsigned long long)ev->count,
			  ev->unwound ? " (siglongjmp)" : "");
		break;
	case FT_EV_TRACE_ON:
		ob_puts(f, "tracing_on");
		break;
	case FT_EV_TRACE_OFF:
		ob_puts(f, "tracing_off");
		break;
	default:
		ob_printf(f, "event type %d", (int)ev->type);
		break;
	}
}

/* "<stack_id N>" or "<stack trace>" and its " => " lines, all newline-ended. */
static void print_stack_lines(struct ft_fmt *f, const struct ft_event *ev)
{
	if (ev->stack_id >= 0 && !OPT(f, EXPAND_STACKS)) {
		ob_printf(f, "<stack_id %lld>\n", (long long)ev->stack_id);
		return;
	}
	ob_puts(f, "<stack trace>\n");
	if (ev->stack_id >= 0 && !ev->ips) {
		ob_printf(f, " => <stack_id %lld not in the trace's stack map>\n",
			  (long long)ev->stack_id);
		return;
	}
	for (uint32_t i = 0; i < ev->nr_ips; i++) {
		ob_puts(f, " => ");
		if (!print_num_addr(f, ev->ips[i]))
			print_sym_addr(f, ev->pid, ev->ips[i]);
		ob_putc(f, '\n');
	}
}

static void print_lost(struct ft_fmt *f, int cpu, uint64_t n)
{
	if (n)
		ob_printf(f, "CPU:%d [LOST %llu EVENTS]\n", cpu, (unsigned long long)n);
	else
		ob_printf(f, "CPU:%d [LOST EVENTS]\n", cpu);
}

/* The function tracer's line for a user event (also the graph's stack lines). */
static void function_event(struct ft_fmt *f, const struct ft_event *ev, char mark)
{
	struct ctx c;

	if (ev->type == FT_EV_LOST) {
		print_lost(f, ev->level, ev->count);
		return;
	}
	c = user_ctx(f, ev, mark);
	print_ctx(f, &c);
	switch (ev->type) {
	case FT_EV_FUNC:
	case FT_EV_ENTRY:
	case FT_EV_EXIT:
		if (OPT(f, RAW) || OPT(f, HEX)) {
			/* trace_fn_raw() / trace_fn_hex(): ip and parent ip */
			uint64_t ip = ft_trace_func_addr(f->t, ev->fid), pip = 0;

			if (ev->type == FT_EV_FUNC)
				pip = ev->parent_addr ? ev->parent_addr
				      : ev->parent_fid != FT_FID_UNKNOWN
					      ? ft_trace_func_addr(f->t, ev->parent_fid)
					      : 0;
			if (OPT(f, HEX))
				ob_printf(f, "%016llx %016llx \n", (unsigned long long)ip,
					  (unsigned long long)pip);
			else
				ob_printf(f, "%llx %llx\n", (unsigned long long)ip,
					  (unsigned long long)pip);
			break;
		}
		if (ev->type == FT_EV_EXIT)
			ob_puts(f, "return from ");
		print_sym_fid(f, ev->fid);
		if (OPT(f, PRINT_PARENT) && ev->type == FT_EV_FUNC) {
			if (ev->parent_fid != FT_FID_UNKNOWN) {
				ob_puts(f, " <-");
				print_sym_fid(f, ev->parent_fid);
			} else if (ev->parent_addr) {
				ob_puts(f, " <-");
				print_sym_addr(f, ev->pid, ev->parent_addr);
			}
		}
		ob_putc(f, '\n');
		break;
	case FT_EV_STACK:
		print_stack_lines(f, ev);
		break;
	default:
		event_text(f, ev);
		ob_putc(f, '\n');
		break;
	}
}

/* " %*d) " then the proc column, centered in 14 like print_graph_proc(). */
static void graph_proc(struct ft_fmt *f, const char *comm, uint32_t tid)
{
	const char *cm = comm ? comm : "<...>";
	struct proc_col *pc = &f->proc_col[tid % NR_PROC_COLS];

	/* made once per thread (and name): printf per line was most of a
	 * multi-threaded show; the cell holds the name's first 7 bytes */
	if (!pc->len || pc->tid != tid || strncmp(pc->comm, cm, sizeof(pc->comm) - 1)) {
		char c[sizeof(pc->comm)], pid[12];
		int len, spaces = 0, n;

		snprintf(c, sizeof(c), "%s", cm);
		snprintf(pid, sizeof(pid), "%u", tid);
		len = (int)(strlen(c) + strlen(pid) + 1);
		if (len < 14)
			spaces = 14 - len;
		/* at most 7 + 1 + 10 bytes, or 14 padded: col holds it */
		n = snprintf(pc->col, sizeof(pc->col), "%*s%s-%s%*s", spaces / 2, "", c, pid,
			     spaces - spaces / 2, "");
		memcpy(pc->comm, c, sizeof(c));
		pc->tid = tid;
		pc->len = (uint8_t)n;
	}
	ob_write(f, pc->col, pc->len);
}

/* verif_pid(): the context-switch block when another task shows on a CPU. */
static void switch_block(struct ft_fmt *f, int cpu, const char *prev_comm, uint32_t prev,
			 const char *comm, uint32_t pid)
{
	ob_puts(f, " ------------------------------------------\n");
	ob_printf(f, " %*d) ", f->cpu_width, cpu);
	graph_proc(f, prev_comm, prev);
	ob_puts(f, " => ");
	graph_proc(f, comm, pid);
	ob_puts(f, "\n ------------------------------------------\n\n");
}

/* print_graph_prologue()'s columns: abstime, cpu, proc, latency flags. */
static void graph_columns(struct ft_fmt *f, const struct ctx *c)
{
	if (!f->have_first) {
		f->have_first = 1;
		f->first_ts = c->ts;
	}
	if (OPT(f, FUNCGRAPH_ABSTIME)) {
		ob_sec_usec(f, c->ts, 5);
		ob_write(f, " |  ", 4);
	}
	if (OPT(f, FUNCGRAPH_CPU)) {
		if (c->cpu >= 0 && c->cpu < NR_CPU_COLS && f->cpu_col_len[c->cpu]) {
			ob_write(f, f->cpu_col[c->cpu], f->cpu_col_len[c->cpu]);
		} else {
			ob_putc(f, ' ');
			ob_int(f, c->cpu, f->cpu_width);
			ob_write(f, ") ", 2);
		}
	}
	if (OPT(f, FUNCGRAPH_PROC)) {
		graph_proc(f, c->comm, c->pid);
		ob_puts(f, " | ");
	}
	if (OPT(f, LATENCY_FORMAT))
		ob_printf(f, " %s | ", c->flags);
}

/*
 * A user event's columns.  No context-switch block: the kernel prints one
 * when another task shows on a CPU, and the runtime does not know the CPU
 * (the column holds the nesting level), so a block at every change of
 * thread would only say that threads ran at the same time.  The TASK/PID
 * column (funcgraph-proc, on by default in show when the trace has several
 * threads) names the thread on every line instead, as uftrace's TID column.
 */
static void graph_prologue_full(struct ft_fmt *f, const struct ft_event *ev);

static inline void graph_prologue(struct ft_fmt *f, const struct ft_event *ev)
{
	/* the default columns (at most the CPU's): no ctx to build, no call */
	if (f->have_first && !(f->opt & (FT_OPT(FUNCGRAPH_ABSTIME) | FT_OPT(FUNCGRAPH_PROC) |
					 FT_OPT(LATENCY_FORMAT)))) {
		int cpu = ev->level;

		if (!OPT(f, FUNCGRAPH_CPU))
			return;
		if (cpu < NR_CPU_COLS && f->cpu_col_len[cpu]) {
			ob_write(f, f->cpu_col[cpu], f->cpu_col_len[cpu]);
			return;
		}
	}
	graph_prologue_full(f, ev);
}

/* graph_prologue() with any columns. */
static __attribute__((noinline)) void graph_prologue_full(struct ft_fmt *f,
							  const struct ft_event *ev)
{
	struct ctx c = {
		/* the thread's name only where a column shows it (a lookup per line) */
		.comm = OPT(f, FUNCGRAPH_PROC) ? comm_of(f, ev) : NULL,
		.pid = ev->tid,
		.cpu = ev->level,
		.flags = ev->level ? "..h.." : ".....",
		.ts = ev->ts,
		.mark = ' ',
	};

	graph_columns(f, &c);
}

enum {
	FILL_NONE,
	FILL_FULL
};

HOT_INLINE void graph_duration(struct ft_fmt *f, uint64_t ns, int fill)
{
	char *d;
	size_t n;

	if (!OPT(f, FUNCGRAPH_DURATION))
		return;
	if (fill == FILL_FULL) {
		ob_write(f, "              |  ", 17);
		return;
	}
	/* mark, space, the cell (at most 24 bytes), "|  ": written in place */
	d = ob_room(f, 2 + 24 + 3);
	if (!d)
		return;
	d[0] = OPT(f, FUNCGRAPH_OVERHEAD) ? ft_fmt_mark(ns) : ' ';
	d[1] = ' ';
	n = 2 + graph_duration_cell(d + 2, ns);
	memcpy(d + n, "|  ", 3);
	f->ob_len += n + 3;
}

static void indent(struct ft_fmt *f, int depth)
{
	if (depth < 0)
		depth = 0;
	if (depth > MAX_INDENT)
		depth = MAX_INDENT;
	ob_spaces(f, (size_t)depth * 2);
}

/*
 * print_graph_comment()'s indentation: open is the number of frames open
 * in the thread.  The kernel indents (depth + 1) levels where depth is the
 * innermost open frame's (0 for the outermost), and not at all at depth 0.
 */
static void comment_indent(struct ft_fmt *f, int open)
{
	indent(f, open >= 2 ? open : 0);
}

/* The formatter of captured values, made on first use; NULL when out of memory. */
static struct ft_argfmt *argfmt(struct ft_fmt *f)
{
	if (!f->args_loaded) {
		f->args_loaded = 1;
		f->args = ft_argfmt_new(f->t);
	}
	return f->args;
}

/* "(args)" of an entry: its captured arguments with funcgraph-args, else "()" */
HOT_INLINE void graph_args(struct ft_fmt *f, const struct ft_event *ev)
{
	struct ft_argfmt *a;
	int n;

	if (!ev->data) {
		ob_lit(f, "()");
		return;
	}
	ob_putc(f, '(');
	if (OPT(f, FUNCGRAPH_ARGS) && (a = argfmt(f))) {
		n = ft_argfmt_args(a, ev->fid, ev->data, ev->len, f->argbuf, sizeof(f->argbuf));
		ob_write(f, f->argbuf, n >= 0 ? (size_t)n : strlen(f->argbuf));
	}
	ob_putc(f, ')');
}

/* The return value of exit ev as text in f->argbuf, or NULL (none, or not shown). */
HOT_INLINE const char *graph_retval(struct ft_fmt *f, const struct ft_event *ev)
{
	struct ft_argfmt *a;

	if (!ev->data || !OPT(f, FUNCGRAPH_RETVAL) || !(a = argfmt(f)))
		return NULL;
	ft_argfmt_retval(a, ev->fid, ev->data, ev->len, f->argbuf, sizeof(f->argbuf));
	return f->argbuf;
}

static void graph_event(struct ft_fmt *f, const struct ft_event *ev, char mark)
{
	const struct ft_event *next;
	const char *rv;
	struct buf_state *b;

	switch (ev->type) {
	case FT_EV_LOST:
		print_lost(f, ev->level, ev->count);
		return;
	case FT_EV_ENTRY:
		b = buf_get(f, ev->buffer);
		graph_prologue(f, ev);
		next = peek(f, ev);
		if (next && next->type == FT_EV_EXIT && next->has_entry && !next->unwound &&
		    next->depth == ev->depth) {
			graph_duration(f, next->duration, FILL_NONE);
			indent(f, ev->depth);
			print_graph_fid(f, ev->fid);
			graph_args(f, ev);
			/* funcgraph-retval: the kernel's "func(); /\* = 0x1 *\/" */
			rv = graph_retval(f, next);
			if (rv) {
				ob_puts(f, "; /* = ");
				ob_puts(f, rv);
				ob_puts(f, " */\n");
			} else {
				ob_lit(f, ";\n");
			}
			if (b)
				b->skip_exit = 1;
			return;
		}
		graph_duration(f, 0, FILL_FULL);
		indent(f, ev->depth);
		print_graph_fid(f, ev->fid);
		graph_args(f, ev);
		ob_lit(f, " {\n");
		return;
	case FT_EV_EXIT:
		b = buf_get(f, ev->buffer);
		if (b && b->skip_exit) {
			b->skip_exit = 0;
			return;
		}
		graph_prologue(f, ev);
		graph_duration(f, ev->duration, ev->has_entry ? FILL_NONE : FILL_FULL);
		indent(f, ev->depth);
		if (ev->unwound) {
			ob_puts(f, "} /* ");
			print_graph_fid(f, ev->fid);
			ob_puts(f, " (unwound) */\n");
		} else if ((rv = graph_retval(f, ev))) {
			/* funcgraph-retval: the kernel's "} /\* func = 0x1 *\/" */
			ob_puts(f, "} /* ");
			print_graph_fid(f, ev->fid);
			ob_puts(f, " = ");
			ob_puts(f, rv);
			ob_puts(f, " */\n");
		} else if (OPT(f, FUNCGRAPH_TAIL) || !ev->has_entry) {
			ob_puts(f, "} /* ");
			print_graph_fid(f, ev->fid);
			ob_puts(f, " */\n");
		} else {
			ob_lit(f, "}\n");
		}
		return;
	case FT_EV_FUNC:
		/* TRACE_FN in the graph: the function tracer's own line */
		function_event(f, ev, mark);
		return;
	case FT_EV_SIGNAL:
	case FT_EV_SIGRET: {
		if (ev->type == FT_EV_SIGNAL && !ev->event_id)
			goto comment; /* no SIGRET will follow: no arrows to pair */
		/*
		 * A program signal handler starts or ends: the kernel's
		 * print_graph_irq() arrows for an interrupt (funcgraph-irqs), in
		 * the duration column, then the signal in a comment.  The
		 * handler's calls between them are indented from the
		 * interrupted depth and carry the next level.
		 */
		const char *name = sigabbrev_np((int)ev->count);

		graph_prologue(f, ev);
		if (OPT(f, FUNCGRAPH_DURATION))
			ob_puts(f, "  ");
		ob_puts(f, ev->type == FT_EV_SIGNAL ? "==========>" : "<==========");
		if (OPT(f, FUNCGRAPH_DURATION))
			ob_puts(f, " |");
		if (name)
			ob_printf(f, "  /* SIG%s", name);
		else
			ob_printf(f, "  /* signal %llu", (unsigned long long)ev->count);
		ob_puts(f, ev->unwound ? " (siglongjmp) */\n" : " */\n");
		return;
	}
	case FT_EV_STACK:
		if (ev->stack_id >= 0 && !OPT(f, EXPAND_STACKS)) {
			/* a stack-map id entry is a comment, like any other event */
			graph_prologue(f, ev);
			graph_duration(f, 0, FILL_FULL);
			comment_indent(f, ev->depth);
			ob_printf(f, "/* <stack_id %lld> */\n", (long long)ev->stack_id);
			return;
		}
		/* TRACE_STACK is not a graph comment: the trace file's own line */
		function_event(f, ev, mark);
		return;
	default:
comment:
		/* markers and task events: a comment at the current depth */
		graph_prologue(f, ev);
		graph_duration(f, 0, FILL_FULL);
		comment_indent(f, ev->depth);
		ob_puts(f, "/* ");
		if (ev->type == FT_EV_MARKER) {
			/* trace_marker text alone, as the kernel prints trace_printk */
			ob_printf(f, "%.*s", (int)marker_len(ev), (const char *)ev->data);
		} else {
			event_text(f, ev);
		}
		ob_puts(f, " */\n");
		return;
	}
}

/* ---------------------------------------------------------- kernel events */

static int64_t *klast_slot(struct ft_fmt *f, int cpu)
{
	if (cpu < 0 || cpu >= MAX_KCPUS)
		return NULL;
	if ((size_t)cpu >= f->nr_klast) {
		size_t n = (size_t)cpu + 1 > 64 ? (size_t)cpu + 1 : 64;
		int64_t *k = realloc(f->klast, n * sizeof(*k));

		if (!k)
			return NULL;
		for (size_t i = f->nr_klast; i < n; i++)
			k[i] = -1;
		f->klast = k;
		f->nr_klast = n;
	}
	return &f->klast[cpu];
}

static void kgraph_prologue(struct ft_fmt *f, const struct ctx *c)
{
	int64_t *last = klast_slot(f, c->cpu);

	if (last && *last >= 0 && *last != (int64_t)c->pid)
		switch_block(f, c->cpu, f->kops.comm(f->kev, (int)*last), (uint32_t)*last, c->comm,
			     c->pid);
	if (last)
		*last = c->pid;
	graph_columns(f, c);
}

/* Whether a kernel event's stack prints as "<[user_]stack_id N>". */
static int kstack_as_id(struct ft_fmt *f, int id)
{
	return id >= 0 && f->kops.used_stackmap(f->kev) && !OPT(f, EXPAND_STACKS);
}

/*
 * A kernel event's kernel (user = 0) or user stack: trace_stack_print()'s
 * "<stack trace>" and " => sym" lines, trace_user_stack_print()'s
 * "<user stack trace>" and " =>  <addr>" lines, or the stack map's id.
 * Every line ends with a newline.
 */
static void kstack_lines(struct ft_fmt *f, const struct ft_kevent *ke, int user)
{
	int id = user ? ke->ustack_id : ke->kstack_id;
	const uint64_t *ips = user ? ke->ustack : ke->kstack;
	uint32_t nr = user ? ke->ustack_nr : ke->kstack_nr;
	char sym[512];

	if (kstack_as_id(f, id)) {
		ob_printf(f, "<%sstack_id %d>\n", user ? "user_" : "", id);
		return;
	}
	ob_printf(f, "<%sstack trace>\n", user ? "user " : "");
	for (uint32_t i = 0; i < nr; i++) {
		ob_puts(f, " => ");
		if (print_num_addr(f, ips[i])) {
			ob_putc(f, '\n');
			continue;
		}
		if (user) {
			/* seq_print_user_ip(): the object with sym-userobj, else " <addr>" */
			if (!OPT(f, SYM_USEROBJ) || !print_userobj(f, (uint32_t)ke->pid, ips[i]))
				ob_printf(f, " <%016llx>", (unsigned long long)ips[i]);
			ob_putc(f, '\n');
			continue;
		}
		f->kops.sym(f->kev, ips[i], OPT(f, SYM_OFFSET), sym, sizeof(sym));
		ob_puts(f, sym);
		if (OPT(f, SYM_ADDR))
			ob_printf(f, " <%016llx>", (unsigned long long)ips[i]);
		ob_putc(f, '\n');
	}
}

static int has_kstack(const struct ft_kevent *ke, int user)
{
	return user ? ke->ustack_id >= 0 || ke->ustack_nr : ke->kstack_id >= 0 || ke->kstack_nr;
}

/*
 * A kernel event.  Function layout: its line, then each stack as a line
 * of its own (the kernel's stack entries), the delay mark on the last.
 * function_graph: the event as a comment on its CPU; a full kernel stack
 * as the trace file's own line (print_graph_function_flags() leaves
 * TRACE_STACK to it), a stack id or a user stack as a comment.
 */
static void kernel_event(struct ft_fmt *f, const struct ft_kevent *ke, const struct ft_event *ev,
			 char mark)
{
	char flags[16];
	int nk = has_kstack(ke, 0), nu = has_kstack(ke, 1);
	struct ctx c;

	if (ke->kind == FT_KEV_MISSED) {
		print_lost(f, ke->cpu, ke->missed);
		return;
	}
	f->kops.lat_flags(f->kev, ke, flags, sizeof(flags));
	c = (struct ctx){
		.comm = ke->comm ? ke->comm : "<...>",
		.pid = (uint32_t)ke->pid,
		.cpu = ke->cpu,
		.flags = flags,
		.ts = ev->ts,
		.mark = nk || nu ? ' ' : mark,
	};
	if (!f->graph) {
		print_ctx(f, &c);
		ft_fmt_flush(f); /* print_info() writes to out itself */
		f->kops.print_info(f->kev, ke, f->opt, f->out);
		ob_putc(f, '\n');
		for (int user = 0; user < 2; user++) {
			if (!(user ? nu : nk))
				continue;
			c.mark = user || !nu ? mark : ' ';
			print_ctx(f, &c);
			kstack_lines(f, ke, user);
		}
		return;
	}
	kgraph_prologue(f, &c);
	graph_duration(f, 0, FILL_FULL);
	ob_puts(f, "/* ");
	/* the graph's comments print the event's own text: no raw/hex there */
	ft_fmt_flush(f); /* print_info() writes to out itself */
	f->kops.print_info(f->kev, ke, f->opt & ~(FT_OPT(RAW) | FT_OPT(HEX)), f->out);
	ob_puts(f, " */\n");
	if (nk) {
		c.mark = !nu ? mark : ' ';
		if (kstack_as_id(f, ke->kstack_id)) {
			kgraph_prologue(f, &c);
			graph_duration(f, 0, FILL_FULL);
			ob_printf(f, "/* <stack_id %d> */\n", ke->kstack_id);
		} else {
			print_ctx(f, &c);
			kstack_lines(f, ke, 0);
		}
	}
	if (nu) {
		size_t start;

		kgraph_prologue(f, &c);
		graph_duration(f, 0, FILL_FULL);
		/* the comment: the lines less the last newline, then the closing mark */
		ob_puts(f, "/* ");
		start = f->ob_len;
		kstack_lines(f, ke, 1);
		while (f->ob_len > start && f->ob[f->ob_len - 1] == '\n')
			f->ob_len--;
		ob_puts(f, " */\n");
	}
}

/*
 * Another source's event (not the kernel's): its print() renders a full
 * trace line.  In the function_graph layout its text after the timestamp
 * becomes a comment and any further lines follow unchanged; a rendering
 * without a "sec.usec: " part prints as it is.  Always newline-ended.
 */
static void source_event(struct ft_fmt *f, const struct ft_event *ev)
{
	char *buf = NULL, *p, *nl, *text = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);

	if (!m)
		return;
	ev->src->print(ev->src->arg, ev, m);
	fclose(m);
	if (!buf)
		return;
	nl = memchr(buf, '\n', len);
	if (f->graph) {
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
		if (nl)
			*nl = '\n';
	}
	if (text) {
		struct ctx c = {
			.comm = ev->comm ? ev->comm : ft_trace_comm(f->t, ev->tid),
			.pid = ev->tid,
			.cpu = ev->cpu,
			.flags = ".....",
			.ts = ev->ts,
		};

		const char *rest = nl ? nl + 1 : buf + len;
		size_t rest_len = (size_t)(buf + len - rest);

		graph_columns(f, &c);
		graph_duration(f, 0, FILL_FULL);
		ob_printf(f, "/* %.*s */\n", (int)(nl ? (size_t)(nl - text) : strlen(text)), text);
		ob_write(f, rest, rest_len);
		if (rest_len && rest[rest_len - 1] != '\n')
			ob_putc(f, '\n');
	} else {
		ob_write(f, buf, len);
		if (len && buf[len - 1] != '\n')
			ob_putc(f, '\n');
	}
	free(buf);
}

int ft_fmt_event_next(struct ft_fmt *f, const struct ft_event *ev, const struct ft_event *next)
{
	int ret;

	f->given = 1;
	f->given_next = next;
	ret = ft_fmt_event(f, ev);
	f->given = 0;
	return ret;
}

int ft_fmt_event(struct ft_fmt *f, const struct ft_event *ev)
{
	const struct ft_kevent *ke = kevent_of(f, ev);
	char mark = is_lost(f, ev) ? ' ' : take_mark(f, ev);

	if (ke)
		kernel_event(f, ke, ev, mark);
	else if (ev->type == FT_EV_SOURCE) {
		if (ev->src && ev->src->print)
			source_event(f, ev);
	} else if (f->graph)
		graph_event(f, ev, mark);
	else
		function_event(f, ev, mark);
	if (f->ob_len >= OB_FLUSH)
		return ft_fmt_flush(f);
	/* out is written only by flushes, and by kernel events' print_info() */
	if (ke)
		return f->ob_err || ferror(f->out) ? -1 : 0;
	return f->ob_err ? -1 : 0;
}
