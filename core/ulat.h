/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space latency tracers' records: the payload of FT_EXT_ULAT
 * (core/record.h), written by the runtime (runtime/stacktracer.c,
 * runtime/locklat.c) and read by analysis/ulat.c.  Native endian, like
 * every record.  doc/latency-user.md maps each one to its kernel tracer.
 *
 * Every payload starts with a u32 kind (enum ft_ulat_kind).
 *
 *   FT_ULAT_STACK   struct ft_ulat_stack, then u64 ips[nr], then u32
 *                   depth[nr]: a thread's new deepest stack (tracer
 *                   "stack").  ips[0] is the function whose entry set the
 *                   max, ips[i > 0] the return addresses above it, as
 *                   ftrace's stack_trace lists them; depth[i] is the stack
 *                   in use, in bytes from the top of the thread's stack,
 *                   at the place where ips[i] was found -- ftrace's
 *                   stack_trace_index.  Each thread's last one is its max.
 *   FT_ULAT_LOCK    struct ft_ulat_sec: a mutex held (tracer "lockheld")
 *   FT_ULAT_SIGS    struct ft_ulat_sec: signals blocked (tracer "sigsoff")
 */
#ifndef FTRAIL_ULAT_H
#define FTRAIL_ULAT_H

#include <stdint.h>

enum ft_ulat_kind {
	FT_ULAT_STACK = 1,
	FT_ULAT_LOCK = 2,
	FT_ULAT_SIGS = 3,
};

/* ft_ulat_stack.flags */
#define FT_ULAT_CUT 0x1 /* the stack went on beyond ips[nr - 1] (not all shown) */

struct ft_ulat_stack {
	uint32_t kind;	   /* FT_ULAT_STACK */
	uint32_t nr;	   /* entries that follow */
	uint32_t max_size; /* stack_max_size: bytes in use at ips[0]'s entry */
	uint32_t flags;	   /* FT_ULAT_CUT */
};

/* ft_ulat_sec.flags */
#define FT_ULAT_THRESH 0x1  /* written because it lasted tracing_thresh or more */
#define FT_ULAT_NOSTACK 0x2 /* the stack map could not serve: the stacks are the ips only */

/*
 * A section, written at its end when it is a new max for its kind in its
 * process (tracing_max_latency) or, with tracing_thresh, when it lasted at
 * least that long.  Times in TSC ticks of the trace clock.
 */
struct ft_ulat_sec {
	uint32_t kind;	      /* FT_ULAT_LOCK or FT_ULAT_SIGS */
	uint32_t flags;	      /* FT_ULAT_THRESH, FT_ULAT_NOSTACK */
	uint64_t key;	      /* LOCK: the mutex's address; SIGS: the blocked set at the start */
	uint64_t begin_ts;    /* the lock's return (acquired) / the mask call's return */
	uint64_t end_ts;      /* the unlock's entry / the unblocking call's return */
	uint64_t begin_ip;    /* return address of the call that began it (in its caller) */
	uint64_t end_ip;      /* ... and of the call that ended it */
	uint32_t begin_stack; /* stack_id in the user map (UINT32_MAX: none) */
	uint32_t end_stack;
	uint32_t cpu;	    /* CPU at the end (sched_getcpu), UINT32_MAX when unknown */
	uint32_t held;	    /* LOCK: other locks this thread held meanwhile (preempt-depth) */
	uint32_t begin_fid; /* the call that began it (pthread_mutex_lock...), UINT32_MAX */
	uint32_t end_fid;   /* the call that ended it, UINT32_MAX */
};

#endif
