/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dispatch table of ftrail's subcommands, as an X-macro list.
 *
 * Checklist for adding a command (as git's builtin.h has one):
 *   1. cmd/<name>.c defines  int cmd_<name>(int argc, char **argv)
 *      and                   const char cmd_<name>_usage[]  (the --help page,
 *      first line "usage: ftrail <name> ...").
 *   2. One FTRAIL_CMD() line below, with its one-line summary.
 *   3. An end-to-end case in tests/e2e/ that runs it for real, and one that
 *      feeds it bad input.
 *
 * Commands check their own needs (root, tracefs) where their options call
 * for them (record -e does, record -- PROG does not), through kernel/.
 */
#ifndef FTRAIL_CMD
#error "define FTRAIL_CMD(name, summary) before including commands.h"
#endif

/* One aligned row per command: kept out of the formatter. */
/* clang-format off */
FTRAIL_CMD(record,   "trace a program and/or kernel events into a trace file")
FTRAIL_CMD(stream,   "trace a program, printing its trace while it runs (record -o -)")
FTRAIL_CMD(show,     "print a trace in ftrace's text formats")
FTRAIL_CMD(info,     "how a trace was recorded and what it holds (uftrace info)")
FTRAIL_CMD(report,   "per-function total time, self time and calls")
FTRAIL_CMD(graph,    "call graph: every call path with its calls and time (uftrace graph)")
FTRAIL_CMD(stacks,   "unique stacks with their counts, most frequent first")
FTRAIL_CMD(stackmap, "the stack map: show, stat, export (FSMB v2), dump")
FTRAIL_CMD(latency,  "durations of paired begin/end events")
FTRAIL_CMD(offcpu,   "off-CPU time per stack, with direct samples over a threshold")
FTRAIL_CMD(flame,    "flame graph (SVG/HTML) or folded stacks")
FTRAIL_CMD(export,   "export to Chrome/Perfetto trace-event JSON or speedscope")
FTRAIL_CMD(marker,   "write trace_marker text into a running trace from a shell")
FTRAIL_CMD(list,     "tracers, trace options and events that record accepts")
FTRAIL_CMD(snapshot, "take, clear or free the snapshot of a running trace (ftrace's snapshot file)")
FTRAIL_CMD(mount,    "a tracefs-like tree (FUSE) of a running trace: echo and cat control it")
/* clang-format on */
