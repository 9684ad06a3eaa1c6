// SPDX-License-Identifier: GPL-2.0
/*
 * The session block shared by the recorder and the injected runtime (layout
 * and ordering contract in session.h).  This file is linked into both: it
 * allocates nothing and makes no system call.
 */
#include <errno.h>
#include <linux/futex.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/barrier.h"
#include "core/clock.h"
#include "core/options.h"
#include "core/opts.h"
#include "core/session.h"
#include "core/stackmap.h"

#define ALIGN_UP(x, a) (((x) + (a)-1) & ~((uint64_t)(a)-1))
#define SPAGE 4096u

struct layout {
	uint64_t ctl_off, funcs_off, mods_off, stackmap_off, stackmap_size, ring_off, total;
	unsigned int bits;
};

static void compute_layout(struct layout *l, unsigned int bits, size_t ring_size)
{
	l->bits = ft_stackmap_clamp_bits(bits);
	l->ctl_off = SPAGE;
	l->funcs_off = ALIGN_UP(l->ctl_off + sizeof(struct ft_session_ctl), SPAGE);
	l->mods_off = ALIGN_UP(l->funcs_off + (uint64_t)FT_SESSION_MAX_FUNCS *
						      sizeof(struct ft_session_func),
			       SPAGE);
	l->stackmap_off = ALIGN_UP(l->mods_off + (uint64_t)FT_SESSION_MAX_MODULES *
							 sizeof(struct ft_session_module),
				   SPAGE);
	l->stackmap_size = ALIGN_UP(ft_stackmap_mem_size(l->bits), SPAGE);
	l->ring_off = l->stackmap_off + l->stackmap_size;
	l->total = ALIGN_UP(l->ring_off + ring_size, SPAGE);
}

/*
 * The user stack map's capacity: --stackmap-bits, else the map's default
 * (2^14, as the kernel's), raised to 2^FT_SESSION_STACK_BITS when every
 * traced call records its stack (-T): a real program's calls have many
 * more distinct stacks than a kernel event's (Lua's workload in
 * bench/stacktrace_bench.sh: 75k), and each one the map cannot hold is
 * written in full, 8 bytes a frame, at every call.  Only the header,
 * shards and slots are written at init (2 MiB at 2^17); elements are
 * paged in as stacks arrive.
 */
static unsigned int map_bits(const struct ft_record_opts *o)
{
	if (!o)
		return 0;
	if (o->stackmap_bits)
		return o->stackmap_bits;
	if (o->options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
		return FT_SESSION_STACK_BITS;
	return 0;
}

size_t ft_session_size(const struct ft_record_opts *o, size_t ring_size)
{
	struct layout l;

	compute_layout(&l, map_bits(o), ring_size);
	return (size_t)l.total;
}

int ft_tracer_from_name(const char *name)
{
	if (!name)
		return -1;
	if (!strcmp(name, "nop"))
		return FT_TRACER_NOP;
	if (!strcmp(name, "function"))
		return FT_TRACER_FUNCTION;
	if (!strcmp(name, "function_graph"))
		return FT_TRACER_FUNCTION_GRAPH;
	if (!strcmp(name, "stack"))
		return FT_TRACER_STACK;
	if (!strcmp(name, "lockheld"))
		return FT_TRACER_LOCKHELD;
	if (!strcmp(name, "sigsoff"))
		return FT_TRACER_SIGSOFF;
	return -1;
}

static const char *const kernel_tracers[] = { "wakeup", "wakeup_rt", "wakeup_dl" };

int ft_tracer_is_kernel(const char *name)
{
	for (size_t i = 0; name && i < sizeof(kernel_tracers) / sizeof(kernel_tracers[0]); i++)
		if (!strcmp(name, kernel_tracers[i]))
			return 1;
	return 0;
}

const char *ft_kernel_tracer_name(int i)
{
	return i >= 0 && (size_t)i < sizeof(kernel_tracers) / sizeof(kernel_tracers[0])
		       ? kernel_tracers[i]
		       : NULL;
}

const char *ft_tracer_name(int tracer)
{
	switch (tracer) {
	case FT_TRACER_NOP:
		return "nop";
	case FT_TRACER_FUNCTION:
		return "function";
	case FT_TRACER_FUNCTION_GRAPH:
		return "function_graph";
	case FT_TRACER_STACK:
		return "stack";
	case FT_TRACER_LOCKHELD:
		return "lockheld";
	case FT_TRACER_SIGSOFF:
		return "sigsoff";
	}
	return NULL;
}

/* Join sv's lines into dst (cap bytes) with '\n'; -1 when too long. */
static int join_list(char *dst, size_t cap, const struct ft_strv *sv)
{
	size_t pos = 0;

	dst[0] = '\0';
	for (size_t i = 0; i < sv->n; i++) {
		size_t n = strlen(sv->v[i]);

		if (pos + n + 2 > cap)
			return -1;
		memcpy(dst + pos, sv->v[i], n);
		pos += n;
		dst[pos++] = '\n';
		dst[pos] = '\0';
	}
	return 0;
}

/* ns -> ticks on clk (inverse of ft_clock_ns without the reference). */
static uint64_t ns_to_ticks(const struct ft_clock *clk, uint64_t ns)
{
	if (!clk || !clk->mult)
		return ns;
	return (uint64_t)(((unsigned __int128)ns << clk->shift) / clk->mult);
}

int ft_session_init(void *mem, size_t len, const struct ft_record_opts *o, size_t ring_size,
		    const struct ft_clock *clk, char *err, size_t errlen)
{
	static const char *const names[FT_SL_NR] = { "set_ftrace_filter", "set_ftrace_notrace",
						     "set_graph_function", "set_graph_notrace" };
	struct ft_session_hdr *h = mem;
	struct ft_session_ctl *c;
	struct ft_stackmap sm;
	struct layout l;
	int tracer;

	compute_layout(&l, map_bits(o), ring_size);
	if (len < l.total) {
		snprintf(err, errlen, "session block too small: %zu < %llu", len,
			 (unsigned long long)l.total);
		return -1;
	}
	tracer = o->tracer ? ft_tracer_from_name(o->tracer) : FT_TRACER_FUNCTION_GRAPH;
	if (ft_tracer_is_kernel(o->tracer))
		tracer = FT_TRACER_NOP;
	if (tracer < 0) {
		snprintf(err, errlen,
			 "unknown tracer '%s' (available: nop function function_graph stack "
			 "lockheld sigsoff)",
			 o->tracer);
		return -1;
	}
	if (o->pids.n > FT_SESSION_MAX_PIDS) {
		snprintf(err, errlen, "too many --pid values (at most %d)", FT_SESSION_MAX_PIDS);
		return -1;
	}
	memset(h, 0, sizeof(*h));
	h->total_size = l.total;
	h->ctl_off = l.ctl_off;
	h->funcs_off = l.funcs_off;
	h->max_funcs = FT_SESSION_MAX_FUNCS;
	h->max_modules = FT_SESSION_MAX_MODULES;
	h->mods_off = l.mods_off;
	h->stackmap_off = l.stackmap_off;
	h->stackmap_size = l.stackmap_size;
	h->ring_off = l.ring_off;
	h->ring_size = ring_size;
	h->stackmap_bits = l.bits;
	h->recorder_pid = (uint32_t)getpid(); /* the tool formats the session */
	if (clk)
		h->clock_mult_shift = ((uint64_t)clk->mult << 32) | clk->shift;

	c = ft_session_ctl(h);
	memset(c, 0, sizeof(*c));
	c->tracer = (uint32_t)tracer;
	c->tracing_on = 1;
	c->max_graph_depth = o->max_graph_depth;
	c->options = o->options;
	c->thresh_ticks = ns_to_ticks(clk, o->thresh_us * 1000ull);
	c->stack_depth = FT_STACKMAP_MAX_DEPTH;
	c->live = o->live != 0;
	for (size_t i = 0; i < o->pids.n; i++) {
		char *end;
		unsigned long v = strtoul(o->pids.v[i], &end, 10);

		if (!*o->pids.v[i] || *end || v == 0 || v > 0x7fffffffUL) {
			snprintf(err, errlen, "--pid wants a thread id, not '%s'", o->pids.v[i]);
			return -1;
		}
		c->pids[c->nr_pids++] = (uint32_t)v;
	}
	const struct ft_strv *lists[FT_SL_NR] = { &o->filter, &o->notrace, &o->graph,
						  &o->graph_notrace };
	for (int i = 0; i < FT_SL_NR; i++) {
		if (join_list(c->lists[i], FT_SESSION_LIST_MAX, lists[i])) {
			snprintf(err, errlen, "%s: list longer than %d bytes", names[i],
				 FT_SESSION_LIST_MAX);
			return -1;
		}
	}
	if (join_list(c->args, FT_SESSION_ARGS_MAX, &o->argspec)) {
		snprintf(err, errlen, "argument specs longer than %d bytes", FT_SESSION_ARGS_MAX);
		return -1;
	}
	if (join_list(c->patch, FT_SESSION_PATCH_MAX, &o->patch)) {
		snprintf(err, errlen, "--patch lines longer than %d bytes", FT_SESSION_PATCH_MAX);
		return -1;
	}
	if (ft_stackmap_init(&sm, (char *)mem + l.stackmap_off, l.stackmap_size, l.bits)) {
		snprintf(err, errlen, "cannot format the stack map (%u bits)", l.bits);
		return -1;
	}
	/* magic last: a half-formatted block never passes ft_session_check() */
	h->version = FT_SESSION_VERSION;
	__atomic_store_n(&h->magic, FT_SESSION_MAGIC, __ATOMIC_RELEASE);
	return 0;
}

struct ft_session_hdr *ft_session_check(void *mem, size_t len, char *err, size_t errlen)
{
	struct ft_session_hdr *h = mem;
	struct layout l;

	if (!mem || len < sizeof(*h) ||
	    __atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) != FT_SESSION_MAGIC) {
		snprintf(err, errlen, "not an ftrail session block");
		return NULL;
	}
	if (h->version != FT_SESSION_VERSION) {
		snprintf(err, errlen, "session version %u, expected %u", h->version,
			 FT_SESSION_VERSION);
		return NULL;
	}
	compute_layout(&l, h->stackmap_bits, h->ring_size);
	if (h->total_size > len || l.total != h->total_size || h->ctl_off != l.ctl_off ||
	    h->funcs_off != l.funcs_off || h->mods_off != l.mods_off ||
	    h->stackmap_off != l.stackmap_off || h->stackmap_size != l.stackmap_size ||
	    h->ring_off != l.ring_off || h->max_funcs != FT_SESSION_MAX_FUNCS ||
	    h->max_modules != FT_SESSION_MAX_MODULES) {
		snprintf(err, errlen, "session block layout mismatch (size %zu)", len);
		return NULL;
	}
	return h;
}

struct ft_session_ctl *ft_session_ctl(struct ft_session_hdr *h)
{
	return (struct ft_session_ctl *)((char *)h + h->ctl_off);
}

struct ft_session_func *ft_session_funcs(struct ft_session_hdr *h)
{
	return (struct ft_session_func *)((char *)h + h->funcs_off);
}

struct ft_session_module *ft_session_modules(struct ft_session_hdr *h)
{
	return (struct ft_session_module *)((char *)h + h->mods_off);
}

void *ft_session_stackmap_mem(struct ft_session_hdr *h, size_t *len)
{
	if (len)
		*len = h->stackmap_size;
	return (char *)h + h->stackmap_off;
}

void *ft_session_ring(struct ft_session_hdr *h, size_t *len)
{
	if (len)
		*len = h->ring_size;
	return (char *)h + h->ring_off;
}

uint32_t ft_session_nr_funcs(struct ft_session_hdr *h)
{
	uint32_t n = __atomic_load_n(&ft_session_ctl(h)->next_fid, __ATOMIC_ACQUIRE);

	return n < h->max_funcs ? n : h->max_funcs;
}

uint32_t ft_session_nr_modules(struct ft_session_hdr *h)
{
	uint32_t n = __atomic_load_n(&ft_session_ctl(h)->next_module, __ATOMIC_ACQUIRE);

	return n < h->max_modules ? n : h->max_modules;
}

void ft_session_ctl_begin(struct ft_session_hdr *h)
{
	struct ft_session_ctl *c = ft_session_ctl(h);

	/* gen becomes odd; the fence orders it before the data stores */
	__atomic_fetch_add(&c->gen, 1, __ATOMIC_RELAXED);
	ft_fence(__ATOMIC_RELEASE);
}

void ft_session_ctl_end(struct ft_session_hdr *h)
{
	struct ft_session_ctl *c = ft_session_ctl(h);

	/* release: publishes every store made since begin; pairs with the
	 * runtime's acquire load of gen */
	__atomic_fetch_add(&c->gen, 1, __ATOMIC_RELEASE);
	/*
	 * The runtime's control thread (live sessions) sleeps on gen; a
	 * shared futex (no FUTEX_PRIVATE_FLAG): the word is in a mapping
	 * both processes share.  Without a sleeper this is one cheap syscall.
	 */
	if (__atomic_load_n(&c->live, __ATOMIC_RELAXED))
		syscall(SYS_futex, &c->gen, FUTEX_WAKE, INT32_MAX, NULL, NULL, 0);
}

int ft_session_set_list(struct ft_session_hdr *h, enum ft_session_list which, const char *text)
{
	struct ft_session_ctl *c = ft_session_ctl(h);
	size_t n = strlen(text);

	if ((unsigned int)which >= FT_SL_NR || n + 1 > FT_SESSION_LIST_MAX)
		return -1;
	memcpy(c->lists[which], text, n + 1);
	return 0;
}

int ft_session_append_list(struct ft_session_hdr *h, enum ft_session_list which, const char *line)
{
	struct ft_session_ctl *c = ft_session_ctl(h);
	size_t cur, n = strlen(line);

	if ((unsigned int)which >= FT_SL_NR)
		return -1;
	cur = strnlen(c->lists[which], FT_SESSION_LIST_MAX);
	if (cur + n + 2 > FT_SESSION_LIST_MAX)
		return -1;
	memcpy(c->lists[which] + cur, line, n);
	c->lists[which][cur + n] = '\n';
	c->lists[which][cur + n + 1] = '\0';
	return 0;
}

void ft_session_set_tracing_on(struct ft_session_hdr *h, int on)
{
	/* a lone flag: the runtime loads it relaxed on each hook */
	__atomic_store_n(&ft_session_ctl(h)->tracing_on, on ? 1u : 0u, __ATOMIC_RELEASE);
}

/*
 * The runtime warning area (ctl->rt_msg) is an append-only sequence of
 * records, each a 4-byte header then the text, padded to 4 bytes:
 *
 *	header = MSG_DONE | text length      (0 until the text is complete)
 *
 * Memory-ordering contract:
 *   - a writer reserves [pos, pos + size) with one fetch_add on rt_msg_len:
 *     relaxed, since the reservation publishes nothing; distinct writers
 *     (threads, or a signal handler interrupting a writer) get disjoint
 *     ranges.
 *   - it copies the text with plain stores, then stores the header with
 *     release: the header is the only thing a reader trusts, and it pairs
 *     with the reader's acquire load, so text is visible before the header.
 *   - the reader walks records from its cursor and stops at the first header
 *     that is still 0 (a writer between reserve and publish), even when
 *     later records are complete: no record is skipped, none is read torn.
 * A record that would cross the end of the area is not written; it is
 * counted in rt_msg_dropped (relaxed: read once the writers are gone), and
 * the first such writes MSG_END in place of its header (every later
 * reservation starts past the end).  The
 * area lives in memory the traced program can scribble on, so the reader
 * bounds every length it reads.
 */
#define MSG_DONE 0x80000000u
#define MSG_END 0x40000000u /* no record here or after: the area is full */
#define MSG_LEN_MASK 0xffffu

typedef uint32_t __attribute__((may_alias)) msg_word;

static uint32_t msg_size(uint32_t n)
{
	return 4 + ((n + 3) & ~3u);
}

void ft_session_msg(struct ft_session_hdr *h, const char *line)
{
	struct ft_session_ctl *c = ft_session_ctl(h);
	uint32_t n = (uint32_t)strnlen(line, FT_SESSION_MSG_LINE_MAX), size = msg_size(n), pos;

	pos = __atomic_fetch_add(&c->rt_msg_len, size, __ATOMIC_RELAXED);
	if (pos > FT_SESSION_MSG_MAX || size > FT_SESSION_MSG_MAX - pos) {
		__atomic_fetch_add(&c->rt_msg_dropped, 1, __ATOMIC_RELAXED);
		/* the first record that does not fit ends the area for the reader */
		if (pos <= FT_SESSION_MSG_MAX - 4)
			__atomic_store_n((msg_word *)(c->rt_msg + pos), MSG_END, __ATOMIC_RELEASE);
		return;
	}
	memcpy(c->rt_msg + pos + 4, line, n);
	/* publishes the text above: pairs with the acquire in ft_session_msg_next() */
	__atomic_store_n((msg_word *)(c->rt_msg + pos), MSG_DONE | n, __ATOMIC_RELEASE);
}

int ft_session_msg_next(struct ft_session_hdr *h, uint32_t *pos, char *buf, size_t len)
{
	struct ft_session_ctl *c = ft_session_ctl(h);
	uint32_t p = *pos, hdr, n;

	if (p > FT_SESSION_MSG_MAX - 4 || (p & 3))
		return 0;
	/* pairs with the release in ft_session_msg(): the text is complete */
	hdr = __atomic_load_n((msg_word *)(c->rt_msg + p), __ATOMIC_ACQUIRE);
	n = hdr & MSG_LEN_MASK;
	if ((hdr & (MSG_DONE | MSG_END)) != MSG_DONE || n > FT_SESSION_MSG_MAX - p - 4)
		return 0;
	if (len) {
		size_t k = n < len - 1 ? n : len - 1;

		memcpy(buf, c->rt_msg + p + 4, k);
		buf[k] = 0;
	}
	*pos = p + msg_size(n);
	return 1;
}

uint32_t ft_session_msg_left(struct ft_session_hdr *h, uint32_t pos)
{
	struct ft_session_ctl *c = ft_session_ctl(h);
	uint32_t reserved = __atomic_load_n(&c->rt_msg_len, __ATOMIC_ACQUIRE);
	uint32_t left = __atomic_load_n(&c->rt_msg_dropped, __ATOMIC_RELAXED);

	/* space reserved at pos but no header: its writer died between the two */
	if (pos < reserved && pos <= FT_SESSION_MSG_MAX - 4 && !(pos & 3) &&
	    !__atomic_load_n((msg_word *)(c->rt_msg + pos), __ATOMIC_ACQUIRE))
		left++;
	return left;
}
