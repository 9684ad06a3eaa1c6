/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Internals of the trace reader shared by its files:
 * analysis/trace_tables.c (open, the section tables, the index of UDATA
 * buffers, names), analysis/trace.c (decoding records, the merge by
 * time) and analysis/callsum.c (report's sums, made in a decoding loop of
 * their own).  Not for other users: they go through analysis/trace.h.
 */
#ifndef FTRAIL_TRACE_INT_H
#define FTRAIL_TRACE_INT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "analysis/trace.h"
#include "core/clock.h"
#include "core/hashtab.h"
#include "core/record.h"
#include "core/tracefile.h"

#define MAX_FRAMES (1u << 20) /* bound on tracked function_graph depth */

struct frame {
	uint32_t fid;
	int known;
	uint64_t ts;
	/* analysis/callsum.c's, set at the call's entry by it, except row
	 * FT_FRAME_NO_ROW for the unknown frames a lost page leaves */
	uint64_t child; /* time of the call's children so far */
	uint32_t row;	/* the row the call counts in */
};

#define FT_FRAME_NO_ROW UINT32_MAX

/* The open calls of a user context the thread switched away from (FT_EXT_CTXSW). */
struct ctx_stack {
	uint32_t id;
	struct frame *frames;
	size_t nr, cap;
};

#define MAX_CTXS 4096 /* bound on contexts parked per buffer */

/*
 * One user buffer.  Its UDATA chunks are loaded one at a time (memory stays
 * bounded by about two chunks per buffer); a page cut across chunks is
 * joined by trace_fill_page().  data/len is the current window, pos the next page
 * header in it; prev is the window before, kept so events handed out from
 * it stay valid until the following ft_trace_next().
 */
struct cursor {
	uint64_t id;
	unsigned char *data;
	size_t len;
	size_t pos; /* next page header */
	unsigned char *prev;
	const size_t *secs; /* section indexes of this buffer, file order */
	size_t nr_secs, next_sec;
	int in_page;
	size_t rec, page_end;
	struct ft_page hdr;
	uint64_t t; /* running ticks */
	uint32_t last_fid;
	struct frame *frames;
	size_t nr_frames, cap_frames;
	uint32_t unwind_pending;
	uint32_t sig_level;	/* program signal handlers open in this stream (FT_EXT_SIGNAL) */
	uint32_t ctx;		/* the running user context (FT_EXT_CTXSW) */
	struct ctx_stack *ctxs; /* the parked ones */
	size_t nr_ctxs;
	/* head slots holding an ENTRY/EXIT of this page (see call_event()) */
	const struct ft_event *lean[2];
	uint64_t *scratch[2];
	uint32_t scratch_cap[2];
	int which;
	uint64_t seq; /* page count, for messages */
};

struct stream {
	struct cursor *c; /* user buffer, or NULL */
	const struct ft_trace_source *src;
	/*
	 * The head is ev[hi]; a refill decodes into the other slot, so the
	 * event handed out last (by pointer, ft_trace_next_ref()) stays intact
	 * while its buffer is peeked at and until the following refill.
	 */
	struct ft_event ev[2];
	int hi;
	int fresh; /* the head holds the next event */
	int ended;
	int failed; /* decoding failed: every later refill fails with t->failure */
};

struct stack_ent {
	uint32_t id;
	uint32_t nr;
	uint64_t *ips;
};

struct stackset {
	struct stack_ent *e;
	size_t nr, cap;
};

struct task {
	struct ft_hentry h; /* first (core/hashtab.h): key the tid */
	char *comm;
};

struct func {
	uint64_t addr;
	uint32_t module;
	uint32_t lib; /* a library call: 1 + the defining library's module index, else 0 */
};

struct ft_trace {
	struct ft_reader *r;
	struct ft_clock clk;
	int have_clock;
	char tracer[32];
	char **warn;
	size_t nr_warn;

	struct func *funcs;
	uint32_t nr_funcs;
	char **names[2]; /* fid -> resolved name, without / with offset (lazy) */
	struct ft_symbols *syms;
	struct stackset maps[2];

	struct ft_htab tasks; /* struct task by tid (tab NULL until the first name) */
	uint64_t names_gen;   /* bumped by every trace_task_set() (ft_trace_names_gen) */
	char *tasks_text;     /* the TASKS section */
	size_t tasks_len;
	char *argspec; /* the ARGSPEC section, NUL-terminated, or NULL */
	size_t argspec_len;

	struct cursor *cursors;
	size_t nr_cursors;
	size_t *sec_idx; /* UDATA section indexes grouped by buffer id */
	const struct ft_trace_source **srcs;
	size_t nr_srcs;

	struct stream *streams;
	size_t nr_streams;
	size_t *heap; /* stream indexes */
	size_t heap_n;
	int started;
	unsigned int passes; /* passes begun over the events (the first needs no reset) */
	int root_stale;	     /* heap[0] was handed out and needs refill + sift */

	uint64_t decoded, lost;
	int snapshot;	     /* --snapshot: a SNAPSHOT's buffers instead of UDATA */
	int snap_which;	     /* which one: N >= 1, or 0 for the last */
	char *snap_hdr;	     /* that snapshot's header text (NULL: none in the file) */
	uint64_t snap_since; /* a flight recorder's window (header last_ns=): user
			      * events before this time (ns) are left out, losses kept */
	char failure[512];
	int failed; /* ft_trace_next failed: it fails from then on (until rewind) */
};

static inline uint32_t rd32(const unsigned char *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return v;
}

static inline uint64_t rd64(const unsigned char *p)
{
	uint64_t v;

	memcpy(&v, p, 8);
	return v;
}

/* ticks -> ns with META's clock (ft_trace_tsc_to_ns(), inline for the decoder). */
static inline uint64_t trace_ns(const struct ft_trace *t, uint64_t ticks)
{
	return t->have_clock ? ft_clock_ns(&t->clk, ticks) : ticks;
}

/* Set tid's name (TASKS, COMM events): control characters become '?'. */
void trace_task_set(struct ft_trace *t, uint32_t tid, const char *comm, size_t len);

/* Load the "<pid> <tid> <comm>" lines of a TASKS section. */
void trace_load_tasks(struct ft_trace *t, const char *text, size_t len);

/* Forget every thread name (the table keeps its memory). */
void trace_forget_tasks(struct ft_trace *t);

/*
 * Make sure a whole page of cursor c starts at c->pos, loading its next
 * chunks as needed (see trace.c).  0, or -1 with err.
 */
int trace_fill_page(struct ft_trace *t, struct cursor *c, char *err, size_t errlen);

/*
 * After ft_reader_extend() added sections [from, ...): load what they add
 * -- thread names, functions, modules, stacks -- and index their UDATA
 * chunks (ft_trace_refresh()).  *moved: NULL when no UDATA came, else
 * (malloc'ed) each old cursor's new index, or SIZE_MAX for one that is
 * gone; a new buffer's cursor starts empty.  0, or -1 with err.
 */
int trace_extend(struct ft_trace *t, size_t from, size_t **moved, char *err, size_t errlen);

/*
 * For a pass that decodes the buffers itself (analysis/callsum.c), as
 * ft_trace_scan_buffers() does: trace_scan_begin() before it (counters at
 * zero; a later ft_trace_next() starts over), trace_reset_cursor() before
 * and after each buffer, trace_decode_next() for the next event of one
 * (1, 0 at its end, -1 with err), and trace_scan_failed() when a buffer
 * fails (the reader then fails as after ft_trace_next()).
 */
void trace_scan_begin(struct ft_trace *t);
void trace_reset_cursor(struct cursor *c);
int trace_decode_next(struct ft_trace *t, struct cursor *c, struct ft_event *ev, char *err,
		      size_t errlen);
void trace_scan_failed(struct ft_trace *t, const char *err);

#endif
