/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User call stacks rebuilt from function_graph records, for the off-CPU
 * analysis: per-thread shadow stacks of open calls.  Feed each thread's
 * entry/exit records in time order up to a switch-out, then read the
 * thread's stack of open calls, leaf first, exact without frame pointers.
 * Depth per thread is bounded (FT_OFFCPU_USTACK_MAX; deeper entries are
 * counted, not stored, and popped again by their exits).  Single-threaded:
 * one reader feeds it.
 */
#ifndef FTRAIL_OFFCPU_USTACK_H
#define FTRAIL_OFFCPU_USTACK_H

#include <stdint.h>

#define FT_OFFCPU_USTACK_MAX 256

struct ft_offcpu_ustack;

/* An empty tracker, or NULL when out of memory.  Free with ft_offcpu_ustack_free(). */
struct ft_offcpu_ustack *ft_offcpu_ustack_new(void);
/* Free the tracker and every thread's stack; NULL is ignored. */
void ft_offcpu_ustack_free(struct ft_offcpu_ustack *us);

/*
 * tid entered the function at addr.  depth is the entry's nesting depth
 * (0 outermost) when the reader knows it: the stack is first cut (or padded
 * with unknown frames, after lost records) to depth; -1 pushes on top.
 * Returns 0, or -1 (ENOMEM).
 */
int ft_offcpu_ustack_entry(struct ft_offcpu_ustack *us, uint32_t tid, int depth, uint64_t addr);

/*
 * The call of tid at depth returned (the stack becomes depth deep); -1
 * pops one.  An exit with no open call is ignored (the trace began inside
 * it); so is one that would deepen the stack.
 */
void ft_offcpu_ustack_exit(struct ft_offcpu_ustack *us, uint32_t tid, int depth);

/*
 * The open calls of tid, leaf first, into ips (at most max); unknown frames
 * (padding) are left out.  Returns the number written (0 when the thread
 * has none or is unknown).
 */
uint32_t ft_offcpu_ustack_get(const struct ft_offcpu_ustack *us, uint32_t tid, uint64_t *ips,
			      uint32_t max);

#endif
