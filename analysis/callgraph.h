/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The call graph of a function_graph trace (uftrace graph): every call
 * path seen, from a thread's outermost calls down, with the calls made
 * along it and their total time; all threads in one tree.
 *
 * A path is a node: the same function called from two places is two
 * nodes, recursion nests.  A call counts at its entry; its time (the
 * duration of its exit) adds to its node's total.  A call whose entry the
 * trace does not hold (lost, or before an attach) is not counted; one
 * still open at the end counts without time.  After lost events a
 * thread's calls hang from the depth the reader resynced to: those whose
 * callers are not known start at the top.
 *
 * For a function F, ft_callgraph_print() prints the two views of uftrace
 * graph F: the backtraces (the distinct paths that reach F's outermost
 * calls, with their hits and time) and F's graph (its calls merged from
 * every path into one tree).
 *
 * Memory: one node (about 48 bytes plus its hash slot) per distinct path,
 * whatever the number of calls.
 */
#ifndef FTRAIL_ANALYSIS_CALLGRAPH_H
#define FTRAIL_ANALYSIS_CALLGRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"

struct ft_callgraph;

/* The graph of t's calls (reads t whole).  NULL with a reason in err. */
struct ft_callgraph *ft_callgraph_build(struct ft_trace *t, char *err, size_t errlen);
void ft_callgraph_free(struct ft_callgraph *g);

struct ft_callgraph_view {
	const char *func; /* a glob: the graphs of matching functions; NULL: the whole tree */
	int max_depth;	  /* levels printed below a root (0: all) */
};

/*
 * Print the view to out (names through t, which built g).  Returns the
 * number of functions func matched (1 for the whole tree), or -1 on a
 * write error.
 */
int ft_callgraph_print(struct ft_callgraph *g, struct ft_trace *t,
		       const struct ft_callgraph_view *v, FILE *out);

#endif
