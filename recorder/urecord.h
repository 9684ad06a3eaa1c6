/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The user-space recorder: sets up the shared memory the injected runtime
 * writes into (control block, stack map, per-thread ring buffers), starts the
 * program with the runtime preloaded, drains its buffers into the trace file
 * while it runs, and writes what is needed to read the trace elsewhere
 * (MODULES, FUNCS, SYMTAB, STACKMAP, TASKS).
 */
#ifndef FTRAIL_URECORD_H
#define FTRAIL_URECORD_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/opts.h"

struct ft_writer;
struct ft_urecord;
struct ft_snapshot_ops;

/*
 * The snapshot table's buffer side (core/snapshot.h) on a session's ring
 * area (ctx: its struct ft_rb_area *), for the tools that drive it from
 * outside the recorder: ftrail snapshot and the live mount's snapshot
 * file.  swap waits up to 5 s while the recorder still saves the previous
 * snapshot.  Code: urec_snapshot.c.
 */
extern const struct ft_snapshot_ops ft_urec_area_snapshot_ops;

struct ft_urecord_result {
	int exited; /* the program exited: status in exit_status */
	int exit_status;
	int signaled; /* the program was killed by a signal */
	int signo;
	int core_dumped;
	uint64_t events;	/* records written */
	uint64_t lost;		/* records lost (overwritten or dropped), all buffers */
	uint64_t bytes;		/* record bytes drained */
	unsigned int threads;	/* threads that traced */
	const char *mode;	/* buffer mode: "block", "producer-consumer", "overwrite" */
	unsigned int buffer_kb; /* per thread (level 0) */
	uint64_t peak_bytes;  /* most shared memory resident at once (rings, stack map, control) */
	uint64_t size_bytes;  /* the shared memory's size: the bound of peak_bytes */
	uint64_t block_waits; /* block mode: page switches that waited for the recorder */
	uint64_t block_wait_ns; /* ... time spent waiting, all threads */
	int not_run;		/* the program could not be executed: nothing recorded */
	int attached;		/* -P: attached to a running process ... */
	int target_exited;	/* ... which exited while traced (else it was detached) */
	uint64_t attach_ns;	/* time to stop it, load the runtime and start tracing */
	uint64_t detach_ns;	/* time to stop it, unpatch and let it go */
	uint32_t snapshots;	/* snapshots written (a flight recorder's dumps) */
	uint64_t snap_events;	/* records in them */
	uint64_t snap_evicted;	/* flight recorder: pages of exited threads dropped for room */
};

/*
 * Prepare the recorder: find the program (PATH search, executable check),
 * the runtime (libftrail.so next to the ftrail binary, or $FTRAIL_LIB), and
 * create the session's shared memory (memfd, 0600) sized from opts->buffer_kb
 * and the overwrite option (tracing_thresh is converted to clock ticks with a
 * calibration of its own when set).  inject =
 * 0 runs the program untraced (kernel events only).  opts must outlive the
 * recorder.  Returns NULL with a one-line reason in err ("no such program:
 * ./x", "./x is not executable: Permission denied", ...).
 */
struct ft_urecord *ft_urecord_create(const struct ft_record_opts *opts, int inject, char *err,
				     size_t errlen);

/*
 * Warnings for the tool to print (one line each, no "ftrail: " prefix),
 * gathered by spawn (a binary without instrumentation) and run (runtime
 * messages such as a filter line that matches nothing, descendants killed
 * by a signal).  Returns the next one, or NULL; the string stays valid
 * until the next call.
 */
const char *ft_urecord_next_warning(struct ft_urecord *u);

/*
 * Fork and exec opts->argv with the runtime preloaded; the child waits until
 * ft_urecord_go() so the caller can attach kernel capture to its pid first.
 * While it waits it already has the signal dispositions the program will
 * have (what the caller catches is back to default, except the signals in
 * ignore (may be NULL), which the caller's own parent had ignored; what is
 * ignored stays ignored), so a signal sent to it acts as on the program.  It inherits
 * the recorder's lifeline (core/lifeline.h) with the session: if the
 * recorder dies, the program's runtime detaches.  Returns 0 and the pid, or
 * -1 with err ("no such program: ./x" ...).
 */
int ft_urecord_spawn(struct ft_urecord *u, const sigset_t *ignore, pid_t *pid, char *err,
		     size_t errlen);
/*
 * Instead of spawning (opts->attach_pid, record -P): stop every thread of
 * the running process with ptrace, load the runtime into it (dlopen) unless
 * it is there from an earlier attach, start it on this session
 * (ftrail_attach) and let the process go (recorder/inject.h).  Threads trace
 * from their next traced call on.  ft_urecord_run then drains until the
 * process exits or *stop / opts->duration_ms, and detaches from it
 * (ftrail_detach: nop, every site and GOT slot back as it was).  Returns 0,
 * or -1 with err (no such process, another user's, already traced, a
 * static binary, exited meanwhile...); the process then runs on as before.
 */
int ft_urecord_attach(struct ft_urecord *u, char *err, size_t errlen);

/*
 * A streamed or followed recording (opts->follow): fn(w, arg, &wm) is called before
 * each watermark (urecord.c "Streaming"), on the drain thread, to write
 * what readers need to name the records before it that the recorder does
 * not write itself (the user event formats), and to lower wm (clock ticks)
 * to what the other writers of the file (kernel capture) have written.
 * fn returns 0, or -1 with errno.
 */
void ft_urecord_set_stream_sync(struct ft_urecord *u,
				int (*fn)(struct ft_writer *w, void *arg, uint64_t *wm), void *arg);

/*
 * A flight recorder (opts->flight) with kernel events: fn(arg, snap, err)
 * is called on the drain thread as snapshot number snap is taken (after
 * its header, urec_snapshot.c), to write the kernel's side of it
 * (kernel/kcapture.h ft_kcapture_dump).  fn returns 0, or -1 with a
 * reason in err (warned; the user side is written all the same).
 */
void ft_urecord_set_flight_kdump(struct ft_urecord *u,
				 int (*fn)(void *arg, unsigned int snap, char *err, size_t errlen),
				 void *arg);

/* The program as messages name it: argv[0], or "process N (comm)" for -P. */
const char *ft_urecord_name(const struct ft_urecord *u);

/* Let the child exec.  0, or -1 when it is gone already (killed while it waited). */
int ft_urecord_go(struct ft_urecord *u);

/*
 * Drain into w until every traced process (the program and all its
 * descendants: the recorder is their subreaper) has exited or *stop becomes
 * non-zero (SIGINT) -- then tracing is switched off and the program left to
 * run -- and write the closing sections: the last pages, FUNCS, MODULES,
 * SYMTAB, STACKMAP (id 0), TASKS and a META chunk with the user_* counts and
 * the program's exit status.  res says how the program ended (a crash:
 * signaled, signo, core_dumped).  Returns 0, or -1 with err (exec failed,
 * the file cannot be written).
 */
int ft_urecord_run(struct ft_urecord *u, struct ft_writer *w, volatile sig_atomic_t *stop,
		   struct ft_urecord_result *res, char *err, size_t errlen);

/*
 * Free u (NULL is fine): a program spawned but never let go is killed and
 * reaped; one still running detaches when the lifeline goes.  Unmaps and
 * closes the shared memory.
 */
void ft_urecord_destroy(struct ft_urecord *u);

#endif
