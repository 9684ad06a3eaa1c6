/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Following a trace file while the recorder writes it: what the stream
 * (live/stream.h) and the mount's trace and trace_pipe (live/mount_trace.c)
 * share.  Each pass reads what was appended to the file (FILE.partial) up
 * to its last complete section with show's reader and formatter
 * (analysis/trace.h, analysis/ftrace_fmt.h), kernel events included, and
 * hands every event not handed before, formatted as show formats it, to
 * a callback.
 *
 * Between passes the follower keeps the reader and the formatter: the
 * reader takes in the sections appended since (ft_trace_refresh(): new
 * chunks of each buffer, new buffers, thread names, functions, modules,
 * stacks) and goes on decoding where it stopped; the formatter keeps its
 * state (open calls, leaves, names).  So a pass costs what was appended,
 * not what the file holds.  The event a pass stops at is given back to
 * the reader (ft_trace_unget()) and comes first at the next pass.
 *
 * Opened again from the start (the events handed before formatted into
 * /dev/null, to rebuild the formatter's state) when it cannot go on: the
 * file has kernel events (their reader, analysis/kevents.h, does not take
 * appended sections), new user event formats came (the formatter loads
 * them once), the options changed (a live mount's), or the reader failed
 * or could not give an event back.  What was handed before is then
 * counted per buffer: a user buffer (a thread at one nesting level) or a
 * kernel CPU.  A buffer's events come in the same order at every pass over
 * the growing file, so "the first N events of buffer B" stays the same
 * set while other buffers' events come in between them.
 *
 * Ordering across buffers: a streamed recording writes a watermark after
 * its chunks (META stream_watermark=T, recorder/urecord.c "Streaming":
 * every record stamped before T is in the file before it).  A pass hands
 * on events up to the last watermark, in the reader's time order; one
 * stamped before an event already handed on came too late to be in order
 * and is handed on with late = 1.  A file with no watermark (a recording
 * that was not streamed) is handed on up to its end, in the order the
 * events came, never late.  A function_graph entry whose next record is
 * not in the file yet ends the pass (whether it prints as a leaf depends
 * on that record), for a second past the watermark at most: a thread that
 * sits longer in a call without traced callees would hold every other
 * thread back, so its entry then prints as an open call ("func() {",
 * where show prints "func();" -- its exit then prints nothing).
 *
 * Not thread-safe: one follower is used by one thread at a time.
 */
#ifndef FTRAIL_LIVE_FOLLOW_H
#define FTRAIL_LIVE_FOLLOW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ft_event;
struct ft_trace;
struct ft_follow;

/*
 * ft_follow_emit - one event handed on: text (len bytes, not terminated)
 * is its lines as show prints them; t is the trace open for this pass
 * (ft_trace_tsc_to_ns() and the like; valid during the call only).
 * Return 0 to go on, -1 to end the pass (the event counts as handed on).
 */
typedef int (*ft_follow_emit)(void *arg, struct ft_trace *t, const struct ft_event *ev, int late,
			      const char *text, size_t len);

struct ft_follow_conf {
	/*
	 * The formatter's options (core/options.h); use_file_options: the
	 * recording's display options instead (as show takes them).
	 */
	uint64_t options;
	int use_file_options;
	int need_watermark; /* a file without one hands nothing on until final */
	/* a thread the file has no name for yet: its name from /proc of pid */
	int live_comm;
};

/* Return: a follower, or NULL (out of memory, no /dev/null). */
struct ft_follow *ft_follow_new(const struct ft_follow_conf *conf);
void ft_follow_free(struct ft_follow *fl);

/*
 * ft_follow_pass() - one pass over path (the same file at every pass: a
 * kept reader reads the file it opened, renamed or not); final: the file
 * is complete, hand on every event left (no watermark, no waiting entry).
 * conf->options is read at each pass (a live mount's options change).
 *
 * Return: 1 when the pass read the file, 0 when there was nothing to read
 * yet (no complete section, no watermark), -1 with a one-line reason in
 * err (final only: while the file grows, a read error is a cut at its
 * end, tried again at the next pass).
 */
int ft_follow_pass(struct ft_follow *fl, const char *path, int final, ft_follow_emit emit,
		   void *arg, char *err, size_t errlen);

/*
 * ft_follow_header() - ftrace's header block of the trace at path, as a
 * follower with conf formats it (kernel: with the columns of kernel
 * events, ft_follow_kernel()), with these counts, to out.  Needs no
 * follower: another thread than the one following can call it.
 * Return: 0, or -1 (the file does not read yet, out of memory).
 */
int ft_follow_header(const struct ft_follow_conf *conf, int kernel, const char *path,
		     uint64_t entries, uint64_t written, FILE *out);

/*
 * Whether the last pass kept the trace for the next one (it then reads
 * only what is appended): a caller that spaces its passes by what the
 * last one took (the cost of reading the file from its start) need not.
 */
int ft_follow_kept(const struct ft_follow *fl);

/* Whether the last pass met kernel events (the header's columns). */
int ft_follow_kernel(const struct ft_follow *fl);

/* Events handed on with late = 1 so far. */
uint64_t ft_follow_late(const struct ft_follow *fl);

/* Update the options a live follower formats with (ft_follow_conf.options). */
void ft_follow_set_options(struct ft_follow *fl, uint64_t options);

#endif
