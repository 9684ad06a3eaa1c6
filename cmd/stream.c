// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail stream: `ftrail record -o -` under trace-cmd stream's name -- the
 * trace printed while the program runs (live/stream.h), nothing kept.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/util.h"

const char cmd_stream_usage[] =
	"usage: ftrail stream [record options] [--] PROG ARGS...\n"
	"\n"
	"Trace PROG and print its trace on standard output while it runs, as\n"
	"`ftrail show` prints it (without its header), as trace-cmd stream does:\n"
	"the same as `ftrail record -o - ...`, with record's options (see\n"
	"`ftrail help record`; -o FILE keeps the trace too).  Lines come in time\n"
	"order across threads, about a second after their events (more as the\n"
	"trace grows: doc/stream.md); a closed output (| head) ends the stream,\n"
	"not the recording.  Exit status: PROG's.\n";

int cmd_stream(int argc, char **argv)
{
	char **v;

	if (argc > 1 && (!strcmp(argv[1], "-h") || !strcmp(argv[1], "--help"))) {
		fputs(cmd_stream_usage, stdout);
		return 0;
	}
	/* record -o - ARGS...: argv[0] stays "stream" in the trace's cmdline */
	v = ft_malloc((size_t)(argc + 3) * sizeof(*v));
	v[0] = argv[0];
	v[1] = "-o";
	v[2] = "-";
	memcpy(v + 3, argv + 1, (size_t)argc * sizeof(*v)); /* the NULL too */
	return cmd_record(argc + 2, v);
}
