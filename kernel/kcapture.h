/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Kernel capture: trace events (and their kernel/user stacks) from a private
 * tracefs instance, read per CPU in parallel, written into the trace file.
 * Implemented in kernel/ with libtracefs and libtraceevent.
 *
 * Lifetime: start() creates the instance, enables the events with their
 * filters and options, starts one reader thread per CPU, then returns; the
 * caller runs its workload; stop() disables, drains what is left, writes the
 * remaining sections (KFORMATS, KALLSYMS, kernel STACKMAP, ...) and removes
 * the instance.  The instance is also removed when the tool dies on SIGINT,
 * SIGTERM, or a crash of the traced command (the caller calls
 * ft_kcapture_abort() from its signal path).
 */
#ifndef FTRAIL_KCAPTURE_H
#define FTRAIL_KCAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/opts.h"

struct ft_writer;
struct ft_kcapture;

struct ft_kcapture_stats {
	uint64_t events;    /* events written (a stack that lost its event counts here) */
	uint64_t lost;	    /* ring entries the kernel lost (overrun + commit overrun +
			    * dropped, from its per-CPU counters): events and stacks
			    * alike, so events + stacks + lost = entries the kernel wrote */
	uint64_t stacks;    /* kernel stack records attached to their event */
	uint64_t stack_ids; /* of which deduplicated into stack ids */
	double cpu_seconds; /* user+sys CPU time of the reader threads */
	char map_full[320]; /* "" or the stack map filled: ft_smap_full_line() */
};

/*
 * Check that kernel capture can run here (root, tracefs mounted or
 * mountable).  Returns 0, or -1 with a one-line reason and remedy in err.
 */
int ft_kcapture_available(char *err, size_t errlen);

/*
 * Does this -e name select kernel events (as opposed to user events of
 * the program)?  Kernel names are "sys:event", "sys" or "all" known to tracefs.
 */
int ft_kcapture_is_kernel_event(const char *name);

/*
 * Start capturing the kernel events of opts->events (kernel ones only) with
 * opts->options' stacktrace/userstacktrace/stackmap, into w.  opts->pids
 * (--pid) limits events to those threads; else, when pid > 0, to that
 * process and the children it forks (set_event_pid + event-fork); pid 0
 * means system-wide.
 * Returns NULL with a one-line reason in err.
 */
struct ft_kcapture *ft_kcapture_start(const struct ft_record_opts *opts, struct ft_writer *w,
				      pid_t pid, char *err, size_t errlen);

/*
 * A streamed or followed recording (opts->follow): the clock (ticks) before which every
 * kernel event of every CPU is in the trace file, or 0 while a CPU has not
 * been read and written yet.  Each reader thread, when it writes its chunk
 * (every 200 ms then, 1 s otherwise), publishes the clock it read before
 * reading what the chunk holds.  Any thread.
 */
uint64_t ft_kcapture_watermark(struct ft_kcapture *kc);

/*
 * ft_kcapture_follow() - stream from now on, as opts->follow does from the
 * start (a tool made a recording live while it runs): chunks every 200 ms
 * with the page the kernel still writes, and watermarks.  Until each CPU
 * wrote one such chunk, ft_kcapture_watermark() is 0.  Any thread;
 * calling it again does nothing.
 */
void ft_kcapture_follow(struct ft_kcapture *kc);

/*
 * A streamed recording: write the kernel's task names known now (a
 * KFORMATS chunk with saved_cmdlines; the end writes the final one), so
 * readers of the growing file name the tasks of the events before it.
 * 0, or -1 with errno.
 */
int ft_kcapture_sync_names(struct ft_kcapture *kc);

/*
 * ft_kcapture_dump() - a flight recorder's trigger (opts->flight): write
 * what every CPU's ring holds now -- the instance's rings run in
 * overwrite mode and are read only here, so that is the recent past --
 * as the KSNAP sections of snapshot snap (core/tracefile.h), and empty
 * them, as a user snapshot leaves its live rings.  What the kernel
 * overwrote since the last dump is a KREC_MISSED in it.  Returns when
 * every reader wrote its part: 0, or -1 with a reason in err.  Does
 * nothing without opts->flight.  One caller at a time.
 */
int ft_kcapture_dump(struct ft_kcapture *kc, unsigned int snap, char *err, size_t errlen);

/* Stop, drain, write the final sections, remove the instance, free kc. */
int ft_kcapture_stop(struct ft_kcapture *kc, struct ft_kcapture_stats *st, char *err,
		     size_t errlen);

/* Async-signal-safe best effort: disable tracing and remove the instance. */
void ft_kcapture_abort(struct ft_kcapture *kc);

#endif
