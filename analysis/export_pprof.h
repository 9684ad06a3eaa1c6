/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A trace file as a pprof profile (analysis/pprof.h), one of three kinds:
 *
 *   graph   function_graph calls: one sample per (thread, call path) with
 *           values calls/count and wall/nanoseconds, the wall value being
 *           the path's SELF time; pprof's flat column is then `ftrail
 *           report`'s self time and calls, its cum column the total time
 *           (recursion counted once, as report does).  Function tracer hits
 *           count as calls of (parent, function).
 *   stacks  the stacks `ftrail stacks` counts (kernel stacks of events
 *           recorded with -T, user stacks of -O stacktrace records and of
 *           userstacktrace): one sample per unique stack, stacks/count
 *   offcpu  the off-CPU engine (offcpu.h) over the file: each direct
 *           sample (period >= threshold) is a sample of its own, labelled
 *           sample=direct with its time; each aggregate below the threshold
 *           one sample labelled sample=aggregate; values intervals/count and
 *           offcpu/nanoseconds; frames kernel leaf..root then user leaf..root
 *
 * Every sample carries labels pid, tid and thread (the thread's name).
 * Locations name their function (ftrail's symbolisation), the file and
 * line from the module's DWARF when the object is on this machine with
 * the recorded build id, and their mapping (MODULES line: path, build id;
 * "[kernel.kallsyms]" for kernel frames).
 *
 * Memory: graph keeps one node per distinct call path and one counter per
 * (thread, path) plus each buffer's open frames; stacks one entry per
 * unique stack; offcpu what the engine keeps (offcpu.h).  Never the events.
 */
#ifndef FTRAIL_EXPORT_PPROF_H
#define FTRAIL_EXPORT_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/export_progress.h"

enum ft_pprof_kind {
	FT_PPROF_GRAPH,
	FT_PPROF_STACKS,
	FT_PPROF_OFFCPU,
};

struct ft_pprof_opts {
	enum ft_pprof_kind kind;
	uint64_t offcpu_thresh_ns; /* offcpu: direct-sample threshold */
	uint32_t pid;		   /* offcpu: only this process (0: as ftrail offcpu) */
};

struct ft_pprof_export_stats {
	uint64_t samples;
	uint64_t events; /* trace events read */
};

/* "graph" / "stacks" / "offcpu" -> kind: 0, or -1 for another name. */
int ft_pprof_kind_from_name(const char *name, enum ft_pprof_kind *kind);

/*
 * Write the profile of the trace file at path to out (gzip).  progress may
 * be NULL.  Returns 0; -1 with a one-line reason in err: the file cannot
 * be read, a write failed (errno set, out is then to be discarded), or the
 * trace has nothing for this kind (errno ENODATA; the reason says which
 * kind is empty and which recording flags give it data).
 */
int ft_pprof_export(const char *path, const struct ft_pprof_opts *o, FILE *out,
		    struct ft_progress *progress, struct ft_pprof_export_stats *st, char *err,
		    size_t errlen);

#endif
