/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace's text output for the events of analysis/trace.h: what
 * /sys/kernel/tracing/trace prints for the function, function_graph and nop
 * tracers, with the display options of core/options.h.
 *
 * User-space specifics (what the kernel's columns mean here):
 *   - CPU column ("[000]", " 0)", latency "cpu"): the runtime does not know
 *     the CPU; ftrail prints the buffer's nesting level instead: 0 for the
 *     thread's own context, N for the N-th nested signal handler.  Kernel
 *     events merged into the stream print their real CPU.
 *   - TASK-PID shows the thread name and thread id, as the kernel does.
 *   - The irq-info flags are not printed (user space has none) unless
 *     kernel events are merged in; then, and with latency-format, user
 *     events show "....." there, with 'h' in the hardirq column for events
 *     of a signal handler (level > 0).
 *   - function_graph prints no context-switch block for user events (the
 *     kernel prints one when the task on a CPU changes, and user events
 *     have no CPU): the TASK/PID column (funcgraph-proc) names the thread
 *     instead.  It prints leaf calls as "func();", durations
 *     with the kernel's markers (+ > 10us, ! > 100us, # > 1ms, * > 10ms,
 *     @ > 100ms, $ > 1s), a closing brace with the function's name in a C
 *     comment with funcgraph-tail or when the entry is not in the trace,
 *     and frames left by longjmp/throw with "(unwound)" after that name.
 *     Other events are C comments ("/\* text *\/"), indented as
 *     print_graph_comment() does (not at all inside the outermost frame).
 *   - Lost events print where they happened: "CPU:N [LOST n EVENTS]".
 *   - Stacks print as "<stack trace>" then " => sym" lines (innermost
 *     first), or as "<stack_id N>" when the recording used the stack map,
 *     unless option expand-stacks is set.  In function_graph, as in the
 *     kernel, a full stack is the trace file's own line (not a comment)
 *     and a stack id is a "/\* <stack_id N> *\/" comment.
 *   - Kernel events (ft_fmt_set_kevents()) print with their own comm, pid,
 *     CPU and irq-info flags; in function_graph as comments on their CPU,
 *     with the context-switch block per CPU; user stacks of kernel events
 *     (userstacktrace) as "<user stack trace>" and " =>  <addr>" lines.
 *   - raw and hex (trace_options raw / hex) change the function layout's
 *     lines as print_raw_fmt() / print_hex_fmt() do: "tid cpu ts_ns "
 *     (hex: zero-padded hex) then, for function events, "ip parent_ip";
 *     markers "# 0 text"; kernel events "name: fields" with raw values
 *     (hex: numbers in hex); stack addresses as numbers.  Where the kernel
 *     itself prints only "type: N" (stacks, events) ftrail prints those
 *     numbers instead.  The function_graph layout ignores raw and hex, as
 *     the kernel's does, except on its full-stack lines.
 */
#ifndef FTRAIL_FTRACE_FMT_H
#define FTRAIL_FTRACE_FMT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "analysis/trace.h"

struct ft_fmt;

/* A formatter writing to out with option bits (core/options.h).  NULL: ENOMEM. */
struct ft_fmt *ft_fmt_new(struct ft_trace *t, uint64_t options, FILE *out);

/*
 * The options a recording is displayed with: its display options as
 * recorded (META options: print-parent, funcgraph-*, ...), the others as
 * the defaults -- what show, the stream and the live mount format with.
 */
uint64_t ft_fmt_recorded_options(struct ft_trace *t);
void ft_fmt_free(struct ft_fmt *f);

/*
 * Print the irq-info flag columns (irqs-off, need-resched, hardirq/softirq,
 * preempt-depth, migrate-disable) in the function layout, as the kernel
 * does by default: used when kernel events, which have them, are merged in.
 * User events show "....." there ('h' in the hardirq column for a signal
 * handler).  Call before ft_fmt_header().
 */
void ft_fmt_set_irq_info(struct ft_fmt *f, int on);

/*
 * Kernel events: source events from src (show.c's kernel source, whose
 * ft_event.priv is the struct ft_kevent of analysis/kevents.h) are laid
 * out here, in every mode, rather than through src->print().
 */
struct ft_kevents;
struct ft_kevent;
/*
 * What this formatter needs of analysis/kevents.h, passed in (show.c
 * fills it with the ft_kevents_* functions of the same names) so that the
 * formatter links without the kernel-event reader.
 */
struct ft_fmt_kops {
	int (*print_info)(struct ft_kevents *k, const struct ft_kevent *ev, uint64_t options,
			  FILE *out);
	void (*lat_flags)(struct ft_kevents *k, const struct ft_kevent *ev, char *buf, size_t len);
	int (*used_stackmap)(const struct ft_kevents *k);
	int (*sym)(struct ft_kevents *k, uint64_t addr, int with_offset, char *buf, size_t len);
	const char *(*comm)(struct ft_kevents *k, int pid);
};
void ft_fmt_set_kevents(struct ft_fmt *f, struct ft_kevents *k, const struct ft_trace_source *src,
			const struct ft_fmt_kops *ops);

/*
 * Optional first pass: call for every event of the stream, in order,
 * before ft_fmt_header().  It gives latency-format's delay column the
 * time to the next entry of the whole stream (as the kernel's
 * trace_print_lat_context() does; without it, the next record of the same
 * buffer), its time origin, and its header's "task: comm-pid" (the first
 * user event's process).  Out of memory: delays print as ' '.
 */
void ft_fmt_scan(struct ft_fmt *f, const struct ft_event *ev);

/*
 * What a latency tracer's header tells (print_trace_header()): the
 * latency, the CPU it happened on, the preemption model, the task it was
 * measured for and where it started and ended.  Strings are copied.
 */
struct ft_fmt_lat {
	uint64_t latency_us;
	int cpu;
	const char *model; /* M: server, desktop, preempt, preempt_rt, unknown */
	const char *comm;
	int pid, uid, nice, policy, rt_prio;
	const char *started, *ended; /* NULL: no "=> started at" lines */
};

/* Use lat in the latency-format header instead of the user trace's zeros. */
void ft_fmt_set_latency(struct ft_fmt *f, const struct ft_fmt_lat *lat);

/* The header block: "# tracer: ...", entries line, column headers. */
void ft_fmt_header(struct ft_fmt *f, uint64_t entries, uint64_t written);

/*
 * Print one event (several lines for stacks).  For function_graph, an entry
 * whose next record in its buffer is its exit prints as a leaf and that exit
 * is then skipped when it arrives.  Returns 0, or -1 on a write error.
 */
int ft_fmt_event(struct ft_fmt *f, const struct ft_event *ev);

/*
 * Hand what is formatted so far to the output stream (ft_fmt_event()
 * buffers up to about 64 KiB; ft_fmt_free() flushes too).  0, or -1 on a
 * write error or when the formatter ran out of memory.
 */
int ft_fmt_flush(struct ft_fmt *f);

/*
 * Flush what is formatted so far to the current stream, then write to out
 * from now on (a follower of a growing trace formats the events it showed
 * already into /dev/null, to bring the formatter's state where it was, and
 * the new ones to its output: live/stream.c).  0, or -1 as ft_fmt_flush().
 */
int ft_fmt_set_output(struct ft_fmt *f, FILE *out);

/*
 * The same for an event read ahead of the formatter (analysis/prefetch.h):
 * next is the following event of ev's buffer (NULL: none), which the
 * formatter would otherwise ask the reader for; ev->comm, when set, is the
 * thread's name.  Then the formatter does not touch the reader's stream.
 */
int ft_fmt_event_next(struct ft_fmt *f, const struct ft_event *ev, const struct ft_event *next);

/* The kernel's duration marker for ns: one of "$@*#!+" or ' '. */
char ft_fmt_mark(uint64_t ns);

/* function_graph duration cell: "1.382 us    " (usecs.nsecs, " us ", padded to 8+4). */
void ft_fmt_graph_duration(char *buf, size_t len, uint64_t ns);

#endif
