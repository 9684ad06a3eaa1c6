/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space latency tracers' results as ftrace prints its own
 * (doc/latency-user.md), read from a trace recorded with -p stack,
 * -p lockheld or -p sigsoff (FT_EV_ULAT events, core/ulat.h):
 *
 *   stack               per thread, stack_max_size and the stack_trace
 *                       table (Depth, Size, Location) of its deepest stack
 *   lockheld, sigsoff   the latency-format trace of the worst section
 *                       (tracing_max_latency), with its start and end and
 *                       the stacks there; with tracing_thresh, every
 *                       section that lasted at least that long; then the
 *                       sections by lock (or blocked set) with their max
 */
#ifndef FTRAIL_ULAT_ANALYSIS_H
#define FTRAIL_ULAT_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ft_trace;

/* 1 when tracer (META's name) is one of the user-space latency tracers. */
int ft_ulat_is_tracer(const char *tracer);

/*
 * Read t from its first event and print its results to out.  tids, nr:
 * only these threads' results (nr 0: every thread's).  Returns 0, or -1
 * with a one-line reason in err (a corrupt record, out of memory, a write
 * error).
 */
int ft_ulat_print(struct ft_trace *t, FILE *out, const uint32_t *tids, size_t nr, char *err,
		  size_t errlen);

#endif
