/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The dispatch table of ftrail's subcommands, as an X-macro list.
 *
 * Checklist for adding a command (as git's builtin.h has one):
 *   1. cmd/<name>.c defines  int cmd_<name>(int argc, char **argv)
 *      and                   const char cmd_<name>_usage[]  (the --help page,
 *      first line "usage: ftrail <name> ...").
 *   2. One FTRAIL_CMD() line below, with its flags and one-line summary.
 *   3. An end-to-end case in tests/e2e/ that runs it for real, and one that
 *      feeds it bad input.
 *
 * Flags: CMD_NEEDS_ROOT / CMD_NEEDS_TRACEFS are checked by the dispatcher
 * only when the command says the check is unconditional; commands whose need
 * depends on their options (record -e) check themselves via kernel/ helpers.
 */
#ifndef FTRAIL_CMD
#error "define FTRAIL_CMD(name, flags, summary) before including commands.h"
#endif

FTRAIL_CMD(record,   0, "trace a program and/or kernel events into a trace file")
FTRAIL_CMD(show,     0, "print a trace in ftrace's text formats")
FTRAIL_CMD(report,   0, "per-function total time, self time and calls")
FTRAIL_CMD(stacks,   0, "unique stacks with their counts, most frequent first")
FTRAIL_CMD(stackmap, 0, "the stack map: show, stat, export (FSMB v2), dump")
FTRAIL_CMD(latency,  0, "durations of paired begin/end events")
FTRAIL_CMD(offcpu,   0, "off-CPU time per stack, with direct samples over a threshold")
FTRAIL_CMD(flame,    0, "flame graph (SVG/HTML) or folded stacks")
FTRAIL_CMD(export,   0, "export to Chrome/Perfetto trace-event JSON or speedscope")
FTRAIL_CMD(marker,   0, "write trace_marker text into a running trace from a shell")
FTRAIL_CMD(snapshot, 0, "take, clear or free the snapshot of a running trace (ftrace's snapshot file)")
