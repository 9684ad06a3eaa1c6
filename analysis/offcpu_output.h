/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The off-CPU engine's results written out: folded stacks for off-CPU
 * flame graphs, the text report of the heaviest stacks, and the list of
 * direct samples.  They read a finished engine (after ft_offcpu_end())
 * through its header only, and name frames through a caller's resolver
 * (ft_offcpu_sym_fn), so they work for a trace file or for hand-fed events.
 */
#ifndef FTRAIL_OFFCPU_OUTPUT_H
#define FTRAIL_OFFCPU_OUTPUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/offcpu.h"

/*
 * Resolve an address into a frame name ("name" or "name+0xoff/0xsize");
 * kernel says which table.  Returns 0, or -1 to print "0x<addr>".
 */
typedef int (*ft_offcpu_sym_fn)(uint64_t ip, int kernel, int with_offset, char *buf, size_t len,
				void *arg);

/*
 * Folded stacks for off-CPU flame graphs, in BCC offcputime's convention:
 * "comm;user frames root first;-;kernel frames root first weight".  The
 * "-" separates the two when both exist; a missing stack is written as
 * "[missing user stack]" / "[missing kernel stack]" only when the other
 * exists; cut intervals end with a "[cut at start]" / "[cut at end]" leaf.
 * Every interval is folded once (aggregates and direct samples alike).
 * Weights are ns divided by unit_ns (1: ns, 1000: us as BCC prints them).
 * This is what `ftrail flame --offcpu` draws.  Returns 0, or as
 * ft_folded_add() (-1 with errno) on the first failure.
 */
struct ft_folded;
int ft_offcpu_fold(const struct ft_offcpu *oc, struct ft_folded *out, ft_offcpu_sym_fn sym,
		   void *arg, uint64_t unit_ns);

/*
 * The text report: a summary header, then the top `top` rows (0: all) by
 * off-CPU time with state, share, counts and their callchains.  Returns 0
 * or -1 on a write error.
 */
int ft_offcpu_write_report(const struct ft_offcpu *oc, FILE *out, size_t top, ft_offcpu_sym_fn sym,
			   void *arg);

/*
 * The direct samples, one block each (perf script's shape): a header line
 * "comm tid/tgid [cpu] time: period ns state" then the callchain, leaf
 * first.  Returns 0 or -1 on a write error.
 */
int ft_offcpu_write_samples(const struct ft_offcpu *oc, FILE *out, ft_offcpu_sym_fn sym, void *arg);

#endif
