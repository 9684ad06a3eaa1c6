/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The wakeup latency tracers (ftrace's wakeup, wakeup_rt, wakeup_dl) run
 * over the kernel scheduler events of a trace file (analysis/kevents.h).
 *
 * A latency starts at the event that wakes a task (sched_waking when the
 * trace has it, as the kernel's tracer hooks it; sched_wakeup otherwise;
 * sched_wakeup_new for a new task) and ends at the sched_switch whose
 * next_pid is that task, on the CPU that then runs it.  The rules are the
 * kernel's (kernel/trace/trace_sched_wakeup.c):
 *
 *   - wakeup follows every task, wakeup_rt only real-time ones (kernel prio
 *     0..99), wakeup_dl only deadline ones (prio < 0);
 *   - without a threshold a latency is reported when it is greater than
 *     the maximum so far (tracing_max_latency); with tracing_thresh, every
 *     latency at or above the threshold is reported (and becomes the max
 *     as in the kernel, which then keeps the last one);
 *   - a task woken while it still runs (it has not switched out yet) is not
 *     a wakeup latency; a second wakeup before it runs keeps the first.
 *
 * Where ftrail differs, and why: the kernel follows one task at a time
 * (the highest-priority one woken); here every woken task of the selection
 * is followed at once, because the events are all in the file and the
 * program's threads are often woken together.  The kernel's max buffer is
 * the trace of the reported case; here every event stays in the file (no
 * event is dropped) and a reported case names the window to print: the
 * waking event, then everything its CPU recorded from the wakeup to the
 * switch that runs the task (what ran in between, with the stacks of the
 * preempting tasks when the recording had option stacktrace).
 *
 * Tasks: those of a process (root pid, the threads given, and every
 * child forked in the recording: sched_process_fork), some threads only,
 * or all of them.
 * Events lost by the kernel (FT_KEV_MISSED) forget every pending wakeup
 * (their switch may be the lost one); they are counted.
 *
 * Not thread-safe; returns -1/NULL with a reason, never prints.
 */
#ifndef FTRAIL_WAKEUP_H
#define FTRAIL_WAKEUP_H

#include <stddef.h>
#include <stdint.h>

struct ft_kevents;

enum ft_wakeup_class {
	FT_WAKEUP_ALL = 0, /* wakeup */
	FT_WAKEUP_RT = 1,  /* wakeup_rt */
	FT_WAKEUP_DL = 2,  /* wakeup_dl */
};

#define FT_WAKEUP_FRAMES 8

/* One measured latency: the task, where it was woken and where it ran. */
struct ft_wakeup_case {
	uint64_t wake_ts; /* ns: the waking event */
	uint64_t run_ts;  /* ns: the sched_switch that runs the task */
	/* the same two events' places in the kernel events' order (ft_kevent.seq) */
	uint64_t wake_seq, run_seq;
	uint64_t lat;  /* run_ts - wake_ts */
	int tid, prio; /* the woken task, its kernel priority when woken */
	char comm[16];
	int wake_cpu; /* CPU that recorded the waking event */
	int cpu;      /* CPU that ran the task (the window's CPU) */
	int waker_pid;
	char waker_comm[16];
	/* the innermost kernel frames of each event's stack (nr 0: no stack) */
	uint64_t wake_ips[FT_WAKEUP_FRAMES], run_ips[FT_WAKEUP_FRAMES];
	uint32_t wake_nr, run_nr;
};

struct ft_wakeup_stats {
	uint64_t wakeups;     /* wakeups of selected tasks */
	uint64_t latencies;   /* of which measured to their switch */
	uint64_t running;     /* woken while still running: not latencies */
	uint64_t again;	      /* woken again before running: the first kept */
	uint64_t forgotten;   /* pending when the kernel lost events */
	uint64_t missed;      /* kernel events lost (FT_KEV_MISSED) */
	uint64_t other_class; /* wakeups of tasks out of the tracer's class */
	uint64_t total, min;  /* of the latencies, ns */
	uint64_t max_latency; /* tracing_max_latency, ns */
	int have_waking;      /* the trace has sched_waking (else sched_wakeup) */
};

struct ft_wakeup;

/* "wakeup" | "wakeup_rt" | "wakeup_dl" -> class; -1 for any other name. */
int ft_wakeup_class_of(const char *tracer);

/*
 * A new tracer of class cls: thresh_ns > 0 reports every latency at or
 * above it (tracing_thresh), 0 only new maxima.  tids[0..ntids) select the
 * tasks, and with follow the threads and processes they fork later too;
 * ntids 0 selects every task.  NULL when out of memory.
 */
struct ft_wakeup *ft_wakeup_new(enum ft_wakeup_class cls, uint64_t thresh_ns, const int *tids,
				size_t ntids, int follow);
void ft_wakeup_free(struct ft_wakeup *w);

/*
 * The thread ids of META wakeup_tids ("1,2,3", written by record for a
 * program or -P) into *tids (malloc'ed, the caller frees it); their
 * number, 0 for none (meta NULL: -a, every task).  -1 when out of memory.
 */
int ft_wakeup_parse_tids(const char *meta, int **tids, size_t *n);

/*
 * Run every event of k through the tracer (from its first event; k is
 * rewound before and after).  Returns 0, or -1 with a reason in err: the
 * trace has no sched_switch format, or a corrupt stream.
 */
int ft_wakeup_run(struct ft_wakeup *w, struct ft_kevents *k, char *err, size_t errlen);

/*
 * The reported cases: without a threshold one, the maximum (the trace
 * ftrace's max buffer ends with); with one, every latency at or above it,
 * in time order.  *n gets their number (0: none reported).
 */
const struct ft_wakeup_case *ft_wakeup_cases(const struct ft_wakeup *w, size_t *n);

void ft_wakeup_get_stats(const struct ft_wakeup *w, struct ft_wakeup_stats *st);

/*
 * Is the kernel event of CPU cpu at place seq (ft_kevent.seq) in the window
 * of c: the waking event, or an event its CPU recorded from the wakeup to
 * the switch that ran the task, both included?  As ftrace's max buffer
 * (the wakeup resets the buffer, the switch ends the trace), the bounds are
 * those two events, not their times: an event of the CPU at the waking's
 * time that came before it, or at the switch's time after it, is out.
 */
int ft_wakeup_in_window(const struct ft_wakeup_case *c, int cpu, uint64_t seq);

#endif
