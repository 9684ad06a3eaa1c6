/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space record encoding: what the injected runtime writes into its
 * ring buffer pages, what the recorder copies into the trace file unchanged,
 * and what every reader decodes.  One definition, shared by all three.
 *
 * Records live in pages.  A page is a fixed-size block of a per-thread ring
 * buffer (the runtime's business, see ringbuf.h); the recorder stores each
 * page it drains as it is, trimmed to its committed size.  A page starts with
 * struct ft_page and is followed by `size` bytes of records.  Within a page
 * timestamps are deltas chained from ft_page.ts: each record's time is the
 * previous record's time plus its delta, the first record's time is
 * ft_page.ts plus its delta.  Timestamps are TSC ticks (x86-64) on the same
 * clock the kernel instance uses (trace_clock x86-tsc); the trace file's
 * META section gives the ticks-to-nanoseconds conversion.
 *
 * Records are sequences of 32-bit little-endian words (native on x86-64 and
 * aarch64).  The low two bits of the first word give the kind:
 *
 *   kind 0  FT_REC_ENTRY   [31:14] fid (18 bits)  [13:2] delta (12 bits)
 *           A function was entered.  fid indexes the FUNCS table of the
 *           trace file (module-relative function ids, see tracefile.h).
 *   kind 1  FT_REC_EXIT    [31:2] delta (30 bits)
 *           The innermost open entry of this buffer returned (function_graph).
 *   kind 2  FT_REC_EXT     [7:2] subtype  [9:8] pad bytes  [15:10] reserved
 *                          [31:16] payload length in 32-bit words
 *           followed by the payload; delta 0 (it takes the time of the
 *           previous record) unless the subtype says otherwise.
 *   kind 3  FT_REC_FUNC    [31:14] fid  [13:2] delta, then one payload word:
 *           the parent's fid + 1, or 0 when the parent is not a traced
 *           function (followed then by FT_EXT_PARENT_ADDR).  The function
 *           tracer's record: an entry that has no exit.
 *
 * A delta that does not fit is carried by an FT_EXT_TDELTA word in front
 * of the record (22 more bits, about 1.4 ms of TSC, in one word) or, beyond
 * that, by FT_EXT_TIME (absolute time, three words); an fid >= 2^18 takes
 * FT_EXT_ENTRY_LONG: a writer never loses precision.  Only the entries and
 * exits of functions with a capture spec (core/argspec.h) are followed by
 * FT_EXT_ARGS / FT_EXT_RETVAL; every other call keeps its 8 bytes.  With short deltas and fids a function_graph call costs 8 bytes
 * (entry + exit), against uftrace's 32.
 */
#ifndef FTRAIL_RECORD_H
#define FTRAIL_RECORD_H

#include <stdint.h>

/* Page header: 32 bytes. */
struct ft_page {
	uint64_t ts;	/* absolute TSC the first record's delta is from */
	uint32_t size;	/* committed bytes of records after this header */
	uint32_t lost;	/* events lost in this buffer just before this page */
	uint32_t tid;	/* writer thread */
	uint32_t pid;	/* writer process (tgid) */
	uint16_t level; /* 0 = thread context, 1.. = nested signal handlers */
	uint16_t depth; /* function_graph depth when the page was started, or
			 * FT_PAGE_DEPTH_CONT */
	uint32_t seq;	/* page sequence number within its buffer */
};

/*
 * ft_page.depth of a page that continues the previous page of its buffer:
 * a streaming recorder takes a page still being written in pieces, each
 * with a header of its own (ts: the time of the last record before it);
 * readers carry the depth on instead of resynchronising it.
 */
#define FT_PAGE_DEPTH_CONT 0xffffu

enum ft_rec_kind {
	FT_REC_ENTRY = 0,
	FT_REC_EXIT = 1,
	FT_REC_EXT = 2,
	FT_REC_FUNC = 3,
};

#define FT_REC_FID_BITS 18
#define FT_REC_FID_MAX ((1u << FT_REC_FID_BITS) - 1)
#define FT_REC_EDELTA_MAX ((1u << 12) - 1) /* ENTRY / FUNC delta */
#define FT_REC_XDELTA_MAX ((1u << 30) - 1) /* EXIT delta */
#define FT_REC_TDELTA_MAX ((1u << 22) - 1) /* FT_EXT_TDELTA delta */

enum ft_ext_type {
	FT_EXT_PAD = 0,		/* filler to the end of a page; no payload meaning */
	FT_EXT_TIME = 1,	/* u64 absolute TSC: the running time becomes it */
	FT_EXT_ENTRY_LONG = 2,	/* u32 fid: an entry with fid > FT_REC_FID_MAX */
	FT_EXT_FUNC_LONG = 3,	/* u32 fid, u32 parent fid + 1 (0: none) */
	FT_EXT_PARENT_ADDR = 4, /* u64 return address of the function tracer's parent */
	FT_EXT_STACK_ID = 5,	/* u32 stack_id: the stack of the previous record */
	FT_EXT_STACK = 6,	/* u32 nr, u32 0, u64 ips[nr]: full stack (fallback) */
	FT_EXT_LOST = 7,	/* u32 count: events lost at this point */
	FT_EXT_MARKER = 8,	/* bytes: trace_marker text (pad tells the length) */
	FT_EXT_EVENT = 9,	/* u32 event id, then the event's fields (user events) */
	FT_EXT_COMM = 10,	/* bytes: the thread's new name */
	FT_EXT_FORK = 11,	/* u32 child pid */
	FT_EXT_EXEC = 12,	/* bytes: new program path */
	FT_EXT_EXIT = 13,	/* i32 status: thread/process exit */
	FT_EXT_SIGNAL = 14,	/* u32 signo[, u32 level]: the program's handler for
				 * signo starts, nested level deep (1: it interrupted
				 * no other handler); its calls follow in this stream */
	FT_EXT_TRACE_ON = 15,	/* tracing switched on (trigger or control) */
	FT_EXT_TRACE_OFF = 16,	/* tracing switched off */
	FT_EXT_EXIT_LONG = 17,	/* u64 delta: an exit whose delta exceeds 30 bits */
	FT_EXT_UNWIND = 18,	/* u32 n: n frames left without exit (longjmp, throw) */
	FT_EXT_BINMARKER = 19,	/* bytes: trace_marker_raw payload */
	FT_EXT_TDELTA = 20,	/* no payload: [31:10] is a 22-bit delta added to the
				 * running time (the next record's delta follows it) */
	FT_EXT_CTXSW = 21,	/* u32 context id: the thread switched to another user
				 * context (swapcontext); its open calls are that
				 * context's (0: the thread's own) */
	FT_EXT_ARGS = 22,	/* arguments of the entry just before it, in the same
				 * page (core/argspec.h items); no time of its own */
	FT_EXT_RETVAL = 23,	/* return value of the exit just before it, same page
				 * (one core/argspec.h item); no time of its own */
	FT_EXT_SIGRET = 24,	/* u32 signo, u32 level, u32 how: that handler is
				 * done (how 0: returned, 1: left by siglongjmp) */
	FT_EXT_ULAT = 25,	/* a user-space latency tracer's result (core/ulat.h):
				 * a new max stack, a lock or signals-blocked section */
	FT_EXT_TNAME = 26,	/* bytes: the thread's name as its stream starts (its
				 * first record, written once per ring attachment):
				 * readers name the thread by it, but it is no event
				 * and no rename (no task_rename line); readers older
				 * than it skip it as an unknown subtype */
	FT_EXT_MAX = 63,
};

static inline uint32_t ft_rec_kind(uint32_t w)
{
	return w & 3u;
}

static inline uint32_t ft_rec_entry(uint32_t fid, uint32_t delta)
{
	return (fid << 14) | (delta << 2) | FT_REC_ENTRY;
}

static inline uint32_t ft_rec_func(uint32_t fid, uint32_t delta)
{
	return (fid << 14) | (delta << 2) | FT_REC_FUNC;
}

static inline uint32_t ft_rec_exit(uint32_t delta)
{
	return (delta << 2) | FT_REC_EXIT;
}

static inline uint32_t ft_rec_ext(uint32_t type, uint32_t nwords, uint32_t pad)
{
	return (nwords << 16) | (pad << 8) | (type << 2) | FT_REC_EXT;
}

static inline uint32_t ft_rec_tdelta(uint32_t delta)
{
	return (delta << 10) | (FT_EXT_TDELTA << 2) | FT_REC_EXT;
}

static inline uint32_t ft_rec_fid(uint32_t w)
{
	return w >> 14;
}

static inline uint32_t ft_rec_edelta(uint32_t w)
{
	return (w >> 2) & FT_REC_EDELTA_MAX;
}

static inline uint32_t ft_rec_xdelta(uint32_t w)
{
	return w >> 2;
}

static inline uint32_t ft_ext_type(uint32_t w)
{
	return (w >> 2) & 63u;
}

/* FT_EXT_TDELTA has neither payload nor pad: its upper bits are the delta. */
static inline uint32_t ft_ext_pad(uint32_t w)
{
	return ft_ext_type(w) == FT_EXT_TDELTA ? 0 : (w >> 8) & 3u;
}

static inline uint32_t ft_ext_words(uint32_t w)
{
	return ft_ext_type(w) == FT_EXT_TDELTA ? 0 : w >> 16;
}

static inline uint32_t ft_ext_tdelta(uint32_t w)
{
	return w >> 10;
}

#endif
