/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Streaming a recording (`ftrail record -o -`): ftrace's text on an output
 * while the program runs -- the lines `ftrail show` prints for the same
 * trace, after its header block (as trace_pipe prints no header).
 *
 * The stream follows the trace file the recorder writes (FILE.partial)
 * with live/follow.h, which formats it with show's own reader and
 * formatter: that is what makes the lines the same.  Ordering: the
 * recorder writes a watermark after its chunks (META stream_watermark=T,
 * recorder/urecord.c "Streaming"): every user record stamped before T is
 * in the file before it, and every kernel event stamped before it too
 * (each kernel reader publishes the clock before its last read of a chunk
 * it wrote: kernel/kcapture.h ft_kcapture_watermark).  At each refresh the
 * stream prints the events not printed yet up to T, in the reader's time
 * order; a function_graph entry whose next record is not in the file yet
 * waits (whether it prints as a leaf depends on it), and everything after
 * it waits with it -- for a second at most, then it prints as an open
 * call.  So a line is printed within about the watermark's period plus
 * its slack (0.2 s + 0.2 s) plus the refresh interval of its event (more
 * behind such an entry).
 *
 * Every event the file gets is streamed, in order: the stream's "passed"
 * point is the time of the last event it printed, never a watermark it
 * did not reach.  The one exception is an event that reaches the file
 * after a watermark that claimed its time: a user record whose writer was
 * preempted longer than the slack between reading the clock and
 * committing, or -- seen on this project's test machine -- now and then a
 * kernel event that the kernel's trace_pipe_raw keeps back in the page it
 * still writes until that page fills.  Printing it would break the time
 * order, so it is left out; ft_stream_finish() counts them (record says
 * how many), and they are in the trace file.
 *
 * The cost: a refresh reads only what was appended since the last one
 * (live/follow.h keeps the reader and the formatter between refreshes),
 * so it does not grow with the trace, and refreshes come every
 * STREAM_POLL_MS.  A trace with kernel events is the exception: their
 * reader takes no appended sections, so each refresh reads the file from
 * its start; the interval is then twice what the last refresh took (at
 * most a third of a CPU), and the latency grows with the trace.
 *
 * Thread names are those the file holds when a line is printed (the
 * recorder writes TASKS and the kernel's saved comms with each watermark);
 * show uses the final ones, so a thread renamed without a COMM record (or a
 * kernel task renamed later) can differ.  In the function_graph layout the
 * TASK/PID column is always on (show turns it on for several threads; a
 * stream cannot know that a second thread will come).
 *
 * Threads: the stream runs a thread of its own; the caller's thread only
 * starts and finishes it.  SIGPIPE is blocked in that thread: a closed
 * output (`| head -1`) ends the stream (ft_stream_finish() says so in
 * *closed), never the recording.
 */
#ifndef FTRAIL_LIVE_STREAM_H
#define FTRAIL_LIVE_STREAM_H

#include <stdint.h>
#include <stdio.h>

struct ft_stream;

/*
 * ft_stream_start() - follow the trace being written at path, printing to out
 *
 * Return: the stream, or NULL with a one-line reason in err (out of memory,
 * no thread).  Must be ended with ft_stream_finish().
 */
struct ft_stream *ft_stream_start(const char *path, FILE *out, char *err, size_t errlen);

/*
 * ft_stream_finish() - the recording is complete, at path (the file the
 * partial one was renamed to): stop following, print what is left (every
 * event, no watermark), and free s.  *late gets the events that were not
 * streamed because they reached the file too late (see above), *closed
 * whether the output was closed before the end.
 *
 * Return: 0 (a closed output included), or -1 with a one-line reason in err (the trace cannot be read,
 * a write error other than a closed output).
 */
int ft_stream_finish(struct ft_stream *s, const char *path, uint64_t *late, int *closed, char *err,
		     size_t errlen);

#endif
