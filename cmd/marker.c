// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail marker: write trace_marker text (or raw bytes) into a running
 * trace from a shell, as `echo text > trace_marker` does for the kernel.
 *
 * The traced program's session is mapped with recorder/attach.h; we claim
 * a ring slot of our own (ringbuf.h: slots are claimed lock-free by any
 * process), write one
 * FT_EXT_MARKER / FT_EXT_BINMARKER record with the common TSC clock, and
 * detach: the recorder drains and recycles the slot like a thread that
 * exited.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/attach.h"
#include "cmd/builtin.h"
#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/util.h"

const char cmd_marker_usage[] =
	"usage: ftrail marker [-P PID] [--raw] TEXT...\n"
	"\n"
	"Write TEXT (the words joined by spaces, as echo does) into the trace of a\n"
	"program that `ftrail record` is tracing now, as a trace_marker record\n"
	"('tracing_mark_write: TEXT' in `ftrail show`).  Without -P, the one traced\n"
	"program running is found in /proc.\n"
	"\n"
	"  -P PID     the traced process (any process of the traced session); -p PID,\n"
	"             its old spelling, still works with a warning\n"
	"  --raw      write TEXT's bytes as a trace_marker_raw record ('raw_data:')\n";

static const struct option long_options[] = {
	{ "raw", no_argument, NULL, 'r' },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_marker(int argc, char **argv)
{
	struct ft_rb_thread t = { 0 };
	struct ft_live_session s;
	char err[256], *text;
	size_t len = 0;
	pid_t pid = 0;
	int c, raw = 0;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "+:p:P:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			/* -p is the tracer in record: the pid is -P everywhere (trace-cmd's) */
			ft_warn("marker: -p PID is deprecated, use -P PID");
			/* fall through */
		case 'P':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("marker: -P wants a process id, not '%s'", optarg);
			pid = (pid_t)v;
			break;
		case 'r':
			raw = 1;
			break;
		case 'h':
			fputs(cmd_marker_usage, stdout);
			return 0;
		default:
			ft_bad_option("marker", c, argv);
		}
	}
	if (optind >= argc)
		ft_die("marker: no text (usage: ftrail marker [-P PID] [--raw] TEXT...)");
	for (int i = optind; i < argc; i++)
		len += strlen(argv[i]) + 1;
	text = ft_malloc(len);
	text[0] = 0;
	for (int i = optind; i < argc; i++) {
		strcat(text, argv[i]);
		if (i + 1 < argc)
			strcat(text, " ");
	}
	len = strlen(text);
	if (len > 4000)
		ft_die("marker: text of %zu bytes is longer than a record may be (4000)", len);

	if (ft_live_session_attach(pid, &s, err, sizeof(err)))
		ft_die("marker: %s", err);
	if (!__atomic_load_n(&ft_session_ctl(s.hdr)->tracing_on, __ATOMIC_RELAXED))
		ft_die("marker: tracing is off in the traced program: nothing written");
	if (ft_rb_thread_attach(&t, s.area, (uint32_t)getpid(), (uint32_t)gettid()))
		ft_die("marker: every ring slot is taken: marker lost");
	if (ft_rb_ext(&t, raw ? FT_EXT_BINMARKER : FT_EXT_MARKER, text, (uint32_t)len, ft_rdtsc(),
		      1, 1))
		ft_die("marker: the ring buffer refused the record (counted as lost)");
	ft_rb_thread_detach(&t);
	ft_live_session_detach(&s);
	free(text);
	return 0;
}
