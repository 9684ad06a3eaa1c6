/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU analysis of a trace file: runs the engine (offcpu.h) over the
 * file's kernel sched_switch / sched_wakeup / sched_wakeup_new /
 * sched_process_fork events (kevents.h), merged in time with its user
 * function_graph records (trace.h) so that each switch-out gets the
 * thread's exact user call stack when the thread was traced
 * (offcpu_ustack.h), and the kernel's userstacktrace stack otherwise.
 *
 * Threads analysed: those of pid (and of the children it forked in the
 * recording) when pid > 0; else those of the program `ftrail offcpu
 * --record` started (META offcpu_pid), else those the TASKS section names
 * (the traced program's), else every thread but the idle task.
 */
#ifndef FTRAIL_OFFCPU_FILE_H
#define FTRAIL_OFFCPU_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/offcpu.h"

struct ft_folded;

struct ft_offcpu_file;

struct ft_offcpu_file_stats {
	uint64_t kevents;	/* kernel events read */
	uint64_t kmissed;	/* of which the kernel reported lost (events) */
	uint64_t uevents;	/* user records read */
	uint64_t ustack_graph;	/* switch-outs with a function_graph user stack */
	uint64_t ustack_joined; /* ... of which with untraced leaf frames of the walk */
	uint64_t ustack_kernel; /* ... with the kernel's userstacktrace stack */
	uint64_t ustack_none;	/* ... with no user stack */
	uint64_t kstack_none;	/* ... with no kernel stack */
	uint64_t begin_ts, end_ts;
	int filtered; /* a thread filter applied (see above) */
};

/*
 * Open the trace file at path and run every event through a new engine
 * with threshold thresh_ns, for the threads of pid (0: as said above).
 * Returns NULL with a one-line reason in err (no kernel sched_switch events,
 * corrupt file, out of memory).  The result stays readable until closed.
 */
struct ft_offcpu_file *ft_offcpu_file_open(const char *path, uint64_t thresh_ns, uint32_t pid,
					   char *err, size_t errlen);
/* Free the file, its engine and its readers; NULL is ignored. */
void ft_offcpu_file_close(struct ft_offcpu_file *f);
/* The finished engine, owned by f: read it with offcpu.h and offcpu_output.h. */
struct ft_offcpu *ft_offcpu_file_engine(struct ft_offcpu_file *f);
/* What was read from the file (see struct ft_offcpu_file_stats). */
void ft_offcpu_file_get_stats(const struct ft_offcpu_file *f, struct ft_offcpu_file_stats *st);

/* The ft_offcpu_sym_fn for this file's symbols (arg = the ft_offcpu_file). */
int ft_offcpu_file_sym(uint64_t ip, int kernel, int with_offset, char *buf, size_t len, void *arg);

/*
 * One call for `ftrail flame --offcpu`: the off-CPU folded stacks of a trace
 * file (ft_offcpu_fold's convention) added into out, weights in ns /
 * unit_ns.  thresh_ns does not change the folded totals (every interval is
 * folded once, direct or not).  Returns 0, or -1 with a reason in err.
 */
int ft_offcpu_fold_file(const char *path, uint64_t thresh_ns, uint32_t pid, struct ft_folded *out,
			uint64_t unit_ns, char *err, size_t errlen);

#endif
