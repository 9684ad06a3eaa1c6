/* SPDX-License-Identifier: GPL-2.0 */
/*
 * One recording session, as `ftrail record` and `ftrail offcpu --record`
 * run it: the tool's side of the two capture engines (recorder/urecord.h
 * for the program, kernel/kcapture.h for tracefs) sequenced so that nothing
 * is missed:
 *
 *   META (how the trace was made, clock calibration) -> file open ->
 *   SIGINT/SIGTERM/SIGHUP handlers -> program spawned paused -> kernel
 *   capture attached to its pid -> caller's tables -> go -> drain until it
 *   exits (or a stop signal) -> stop kernel capture -> user event formats
 *   -> close -> program-status warnings -> summary lines.
 *
 * Stop signals, with a program: SIGINT, SIGTERM and SIGHUP are forwarded to
 * it (not when the terminal sent them: the program, in our process group,
 * got them too), and the drain goes on while it exits; if it still runs 2
 * seconds after the first one, or at a second one, tracing is switched off
 * and the trace finished.  The program then runs on; its runtime detaches
 * (unpatches, records nothing) when the recorder's lifeline goes at the
 * end of the session -- or whenever the recorder dies, SIGKILL included
 * (core/lifeline.h).  Without a program the first one ends the recording.
 *
 * This is tool code (linked into the ftrail binary only): it prints
 * warnings through ft_warn() and the summary on stderr, as the commands
 * that use it did; fatal errors are returned for the command to die with.
 */
#ifndef FTRAIL_RECORD_SESSION_H
#define FTRAIL_RECORD_SESSION_H

#include <stddef.h>
#include <sys/types.h>

#include "core/opts.h"

struct ft_writer;

/*
 * What a command adds to the plain `ftrail record` flow (offcpu --record).
 * A zeroed struct (or NULL) is `ftrail record`.
 */
struct ft_record_extra {
	/*
	 * META lines ("key=value\n"...) written with the session's own META,
	 * before cmdline=; NULL for none.
	 */
	const char *meta;
	/*
	 * Without a program (opts->argv NULL): a running process to follow
	 * instead of spawning one.  Its threads that exist already are not
	 * covered by set_event_pid (it holds thread ids), so kernel events are
	 * captured system-wide and the caller's analysis keeps the process's
	 * threads; the session ends at Ctrl-C or when the process is gone.
	 * 0: none (system-wide until Ctrl-C).
	 */
	pid_t follow_pid;
	/*
	 * What the "ftrail: recording ..., Ctrl-C to stop" line names when no
	 * program runs; NULL: "kernel events".
	 */
	const char *waiting;
	/*
	 * Called once, after kernel capture is attached and before the program
	 * runs, when there is a process (spawned: the program's pid, spawned=1;
	 * followed: follow_pid, spawned=0), e.g. to write META about it and the
	 * MODULES/SYMTAB/TASKS tables of a process no runtime describes.
	 * Returns 0, or -1 with a one-line reason in err (the session is then
	 * torn down as on any fatal error).  NULL: nothing to do.
	 */
	int (*attached)(struct ft_writer *w, const char *path, pid_t pid, int spawned, void *arg,
			char *err, size_t errlen);
	void *arg;
	/*
	 * Called once the trace file is open, before anything runs, with the
	 * path being written (FILE.partial), e.g. to follow it (live/stream.h).
	 * Returns 0, or -1 with a one-line reason in err (the session is then
	 * torn down).  NULL: nothing to do.
	 */
	int (*opened)(const char *partial, void *arg, char *err, size_t errlen);
	void *opened_arg;
	/*
	 * How messages name the output (a scratch file that is removed
	 * afterwards has no name worth giving); NULL: opts->output.
	 */
	const char *output_name;
};

/*
 * Record opts (events, tracer, options, program...) into opts->output, with
 * extra (may be NULL).  argv[0..argc) is the subcommand's command line
 * (argv[0] its name), stored as META cmdline="ftrail <argv...>".  Kernel
 * capture runs when opts has a kernel -e; the runtime is injected when the
 * tracer is not nop or user events (u:...) are selected.  Prints the
 * runtime's and the engines' warnings, the program's status (killed by a
 * signal; non-zero exit unless quiet) and, unless quiet, the summary lines.
 * The trace is written to OUTPUT.partial and renamed over OUTPUT when
 * complete (core/outfile.h), so OUTPUT is never seen half written.
 * Returns the command's exit status once the file is complete: without a
 * program 0; else the program's exit status, 128+N when signal N killed
 * it, or 128+N for the stop signal N after which it ran on (as time, strace
 * and valgrind).  Returns -1 with a one-line reason in err: kernel capture
 * unavailable, the file cannot be created or written, the program cannot
 * be started (the partial file is then removed and OUTPUT is untouched),
 * or the trace cannot be written or finished (what was recorded stays in
 * OUTPUT.partial, with a warning; OUTPUT is untouched).  A recorder killed
 * with SIGKILL leaves OUTPUT untouched and its OUTPUT.partial readable up
 * to its last complete section.  Stop signals are caught only while it
 * runs (see above).
 */
int ft_record_session(const struct ft_record_opts *opts, const struct ft_record_extra *extra,
		      int argc, char **argv, char *err, size_t errlen);

#endif
