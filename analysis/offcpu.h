/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Off-CPU analysis engine (perf's off-cpu with --off-cpu-thresh; the design
 * is in doc/offcpu.md): where threads wait, for how long, and in which call
 * path.  offcpu_output.h writes its results; offcpu_file.h feeds it from a
 * trace file.
 *
 * The engine is fed scheduler events in time order (offcpu_file.h does it
 * for a trace file; the unit tests do it by hand):
 *
 *   switch-out  a thread leaves the CPU at ts with a state (sched_switch's
 *               prev_state) and the stacks it was switched out with
 *   switch-in   a thread gets a CPU back at ts (sched_switch's next_pid)
 *   wakeup      optional: the thread was made runnable at ts (sched_wakeup);
 *               it splits an interval into "blocked" and "runnable" time
 *
 * An off-CPU interval runs from a thread's switch-out to its next switch-in.
 * Each interval is counted exactly once, in one of two places (perf's rule):
 *
 *   period >= threshold  a DIRECT SAMPLE: (switch-out time, tid, period,
 *                        state, callchain), kept one by one
 *   period <  threshold  added to an AGGREGATE keyed by (tgid, pid, kernel
 *                        stack, user stack, state): total ns and a count
 *
 * A lost switch-in (the thread is seen switching out again while still
 * off-CPU: some kernels do not report every switch away from the idle task)
 * ends the interval at the first record the thread wrote from user space
 * after its switch-out (a traced program writes one as soon as the blocking
 * call returns into its code), else at its wakeup when one was seen -- it was
 * runnable from then on, but an idle virtual CPU may take milliseconds to
 * run it when the host is busy, time the thread spent off-CPU -- or else at
 * the first kernel event the thread emitted itself (ft_offcpu_running()),
 * and is counted as estimated
 * (stats.estimated, sample.estimated); with neither, the interval cannot be
 * bounded and is dropped (stats.unpaired).
 *
 * Intervals cut by the recording are marked, never merged silently with
 * whole ones: a thread first seen switching IN was off-CPU since before the
 * recording began, or was created in it when sched_wakeup_new was not
 * recorded (cut at start: its stack and state are unknown, its period is a
 * lower bound); a thread still off-CPU when the recording ends was cut
 * at end (stack and state known, period a lower bound).  Cut intervals go
 * through the same threshold rule and carry their cut flag in the aggregate
 * key and in the sample.  Threads that switched out dead (X, Z) are not
 * off-CPU and are counted apart; so are new threads' first waits, which have
 * no stack (sched_wakeup_new, see ft_offcpu_new_task()).
 *
 * Memory is bounded by what is distinct, not by the number of intervals:
 * one entry per thread, one per distinct stack, one per aggregate key, and
 * one per direct sample (a direct sample lasts at least the threshold, so
 * there are at most duration x threads / threshold of them).
 *
 * Stacks are given as arrays of addresses (kernel ips leaf first, user ips
 * leaf first) and interned by the engine into small ids; a caller holding a
 * file's stack_id looks its ips up first.  User stacks rebuilt from a
 * thread's function_graph records (exact, no frame pointers needed) are
 * given the same way, as the entered functions' addresses, leaf first:
 * analysis/offcpu_ustack.h tracks them.
 */
#ifndef FTRAIL_OFFCPU_H
#define FTRAIL_OFFCPU_H

#include <stddef.h>
#include <stdint.h>

/* perf's default --off-cpu-thresh, in milliseconds */
#define FT_OFFCPU_DEFAULT_THRESH_MS 500

/*
 * sched_switch's prev_state as the tracepoint reports it (kernel >= 4.14):
 * 0 for runnable (R), bit (i-1) for state index i of "SDTtXZPI", and
 * TASK_REPORT_MAX (0x100) added when the task was preempted (R+).
 */
#define FT_OFFCPU_STATE_PREEMPT 0x100u
#define FT_OFFCPU_STATE_DEAD_MASK 0x30u	    /* X (0x10), Z (0x20) */
#define FT_OFFCPU_STATE_UNKNOWN 0xffffffffu /* cut at start: never seen going off */

enum ft_offcpu_cut {
	FT_OFFCPU_WHOLE = 0,
	FT_OFFCPU_CUT_START = 1, /* began before the recording: stack/state unknown */
	FT_OFFCPU_CUT_END = 2,	 /* still off-CPU when the recording ended */
};

/* A switch-out, as sched_switch (plus its stack events) describes it. */
struct ft_offcpu_out {
	uint64_t ts; /* ns */
	int cpu;
	uint32_t tid;	      /* prev_pid */
	uint32_t tgid;	      /* 0 when unknown */
	uint32_t state;	      /* prev_state, see FT_OFFCPU_STATE_* */
	const char *comm;     /* prev_comm, or NULL */
	const uint64_t *kips; /* kernel stack, leaf first, or NULL */
	uint32_t knr;
	const uint64_t *uips; /* user stack, leaf first, or NULL */
	uint32_t unr;
};

/* One direct sample (period >= threshold). */
struct ft_offcpu_sample {
	uint64_t ts_out;  /* switch-out (for cut at start: the recording start) */
	uint64_t ts_in;	  /* switch-in (for cut at end: the recording end) */
	uint64_t period;  /* ts_in - ts_out, ns */
	uint64_t blocked; /* ts_out .. wakeup (0 when no wakeup was seen) */
	uint32_t tid, tgid;
	uint32_t state;
	uint32_t kstack, ustack; /* interned ids, 0 = none */
	uint8_t cut;		 /* enum ft_offcpu_cut */
	uint8_t estimated;	 /* switch-in lost: ts_in is the wakeup */
};

/* One aggregate (period < threshold), or a summary row of the report. */
struct ft_offcpu_agg {
	uint32_t tgid, tid;
	uint32_t kstack, ustack;
	uint32_t state;
	uint8_t cut;
	uint64_t total;	  /* ns, summed periods of intervals below the threshold */
	uint64_t count;	  /* intervals below the threshold */
	uint64_t blocked; /* of total: ns before the wakeup (where one was seen) */
};

struct ft_offcpu_stats {
	uint64_t switch_out, switch_in, wakeups;
	uint64_t intervals; /* counted intervals (whole and cut) */
	uint64_t direct, direct_ns;
	uint64_t aggregated, aggregated_ns;
	uint64_t cut_start, cut_start_ns;
	uint64_t cut_end, cut_end_ns;
	uint64_t dead;			  /* switched out dead: not off-CPU */
	uint64_t new_task;		  /* first waits of threads born in the recording */
	uint64_t unordered;		  /* events earlier than the thread's last one (ignored) */
	uint64_t unpaired;		  /* switch-out while off-CPU without a wakeup, or
					   * switch-in while on it (lost events): dropped */
	uint64_t estimated, estimated_ns; /* intervals ended at the wakeup (see above) */
	uint32_t threads, stacks;
};

struct ft_offcpu;

/*
 * A new engine.  thresh_ns: direct-sample threshold (0 means every
 * interval is a direct sample; UINT64_MAX means none is).  Returns NULL
 * (errno ENOMEM).  Free with ft_offcpu_free().
 */
struct ft_offcpu *ft_offcpu_new(uint64_t thresh_ns);

/* Free oc with its stacks, aggregates and samples (NULL is fine). */
void ft_offcpu_free(struct ft_offcpu *oc);

/*
 * Only threads accepted by the filter are analysed (e.g. the traced
 * program's); NULL (the default) accepts all but the idle task (tid 0).
 */
void ft_offcpu_set_filter(struct ft_offcpu *oc,
			  int (*accept)(uint32_t tid, uint32_t tgid, void *arg), void *arg);

/* The recording started at ts (ns).  Call before any event. */
void ft_offcpu_begin(struct ft_offcpu *oc, uint64_t ts);

/*
 * Feed events in time order.  Each returns 0, or -1 with errno ENOMEM
 * (the event is then not counted and ft_offcpu_stats says nothing about it:
 * the caller must stop).  Events out of order for their thread are counted
 * in stats.unordered and ignored.
 */
int ft_offcpu_switch_out(struct ft_offcpu *oc, const struct ft_offcpu_out *ev);
int ft_offcpu_switch_in(struct ft_offcpu *oc, uint64_t ts, int cpu, uint32_t tid);
int ft_offcpu_wakeup(struct ft_offcpu *oc, uint64_t ts, uint32_t tid);

/*
 * tid was running at ts: an event it emitted itself (user 1: a record it
 * wrote from user space; 0: a kernel event whose common_pid it is) other
 * than its own switch-out.  While the engine has it off-CPU, its switch-in
 * was lost: the interval ends at ts for a user record (the switch-in lay
 * just before it), else at its wakeup if one was seen (a kernel event may
 * come long after the thread resumed), else at ts, and is counted as
 * estimated.  Otherwise nothing happens.  0, or -1 (ENOMEM).
 */
int ft_offcpu_running(struct ft_offcpu *oc, uint64_t ts, uint32_t tid, int user);

/*
 * A thread was created at ts (sched_wakeup_new): its first switch-in ends a
 * runqueue wait without a stack, not an off-CPU interval (stats.new_task).
 */
int ft_offcpu_new_task(struct ft_offcpu *oc, uint64_t ts, uint32_t tid, uint32_t tgid);

/* Name a thread (TASKS section, comm events).  0, or -1 (ENOMEM). */
int ft_offcpu_set_comm(struct ft_offcpu *oc, uint32_t tid, uint32_t tgid, const char *comm);

/*
 * The recording ended at ts: threads still off-CPU are closed as cut at end.
 * Threads seen only running (never switched out) are not off-CPU.  Call
 * once, after the last event; the engine is read-only afterwards.
 * Returns 0 or -1 (ENOMEM).
 */
int ft_offcpu_end(struct ft_offcpu *oc, uint64_t ts);

/* --- results ----------------------------------------------------------- */

/* The counters so far, and the threshold given to ft_offcpu_new().  Cannot fail. */
void ft_offcpu_get_stats(const struct ft_offcpu *oc, struct ft_offcpu_stats *st);
uint64_t ft_offcpu_threshold(const struct ft_offcpu *oc);

/* Direct samples in the order they were closed (by switch-in time). */
size_t ft_offcpu_nr_samples(const struct ft_offcpu *oc);
const struct ft_offcpu_sample *ft_offcpu_sample(const struct ft_offcpu *oc, size_t i);

/*
 * Call fn for each aggregate (intervals below the threshold), in no
 * particular order.  Stops and returns fn's value when it is non-zero.
 */
int ft_offcpu_foreach_agg(const struct ft_offcpu *oc,
			  int (*fn)(const struct ft_offcpu_agg *a, void *arg), void *arg);

/*
 * Report rows: aggregates and direct samples merged per key, heaviest first.
 * In each row total includes the direct samples' periods and direct counts
 * them (struct ft_offcpu_row).  Returns a malloc'ed array (free() it) and
 * its length in *nr, or NULL with *nr = 0 when there is nothing (errno 0)
 * or no memory (errno ENOMEM).
 */
struct ft_offcpu_row {
	struct ft_offcpu_agg key; /* key fields; total/count/blocked: all intervals */
	uint64_t direct;	  /* of count: direct samples */
	uint64_t direct_ns;	  /* of total: in direct samples */
	uint64_t max;		  /* longest interval */
};
struct ft_offcpu_row *ft_offcpu_rows(const struct ft_offcpu *oc, size_t *nr);

/*
 * Call fn for each report row (as ft_offcpu_rows() makes them), unsorted,
 * without allocating.  Stops and returns fn's value when it is non-zero.
 */
int ft_offcpu_foreach_row(const struct ft_offcpu *oc,
			  int (*fn)(const struct ft_offcpu_row *r, void *arg), void *arg);

/* An interned stack by id (1..): 0 and ips/nr, or -1 for 0/unknown ids. */
int ft_offcpu_stack(const struct ft_offcpu *oc, uint32_t id, const uint64_t **ips, uint32_t *nr);

/* The last name seen for tid, or NULL. */
const char *ft_offcpu_comm(const struct ft_offcpu *oc, uint32_t tid);

/* "S", "D", "R+", "S|D"... into buf (>= 16 bytes); returns buf. */
const char *ft_offcpu_state_str(uint32_t state, char *buf, size_t len);

#endif
