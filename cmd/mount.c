// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail mount: the tracefs-like tree of a program that `ftrail record`
 * traces now, through FUSE (live/mount.h; the files: doc/mount.md).
 */
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "cmd/builtin.h"
#include "core/util.h"
#include "live/mount.h"

const char cmd_mount_usage[] =
	"usage: ftrail mount [-P PID] DIR\n"
	"\n"
	"Mount on DIR (an empty directory) a tracefs-like tree of the program that\n"
	"`ftrail record` traces now: tracing_on, current_tracer, set_ftrace_filter,\n"
	"options/*, trace_marker, snapshot, stack_map... (doc/mount.md).  Writes\n"
	"change the running program's tracing at once.  Runs in the foreground until\n"
	"the program or its recorder ends, or SIGINT/SIGTERM/SIGHUP, then unmounts.\n"
	"Only its owner can use the tree (FUSE default_permissions, no allow_other).\n"
	"`ftrail record --mount DIR ...` does the same for the program it starts.\n"
	"\n"
	"  -P PID      the traced process (any process of the traced session);\n"
	"              without it, the one traced program running is used\n"
	"  --wait MS   wait up to MS milliseconds for PID's session to appear\n"
	"  --watch PID also end when process PID ends (record --mount: the recorder)\n";

enum {
	OPT_WAIT = 256,
	OPT_WATCH
};

static const struct option long_options[] = {
	{ "wait", required_argument, NULL, OPT_WAIT },
	{ "watch", required_argument, NULL, OPT_WATCH },
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_mount(int argc, char **argv)
{
	struct ft_mount_params p = { 0 };
	char err[512];
	uint64_t v;
	int c;

	while ((c = getopt_long(argc, argv, "+:P:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'P':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("mount: -P wants a process id, not '%s'", optarg);
			p.pid = (pid_t)v;
			break;
		case OPT_WAIT:
			if (ft_parse_u64(optarg, 0, 3600000, &v))
				ft_die("mount: --wait wants milliseconds, not '%s'", optarg);
			p.wait_ms = (int)v;
			break;
		case OPT_WATCH:
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("mount: --watch wants a process id, not '%s'", optarg);
			p.also_watch = (pid_t)v;
			break;
		case 'h':
			fputs(cmd_mount_usage, stdout);
			return 0;
		default:
			ft_bad_option("mount", c, argv);
		}
	}
	if (argc - optind != 1)
		ft_die("mount: one mount point (usage: ftrail mount [-P PID] DIR)");
	p.dir = argv[optind];
	/*
	 * SIGINT and SIGTERM end the mount cleanly even when the shell started
	 * us in the background with them ignored; record --mount's server
	 * (--watch) keeps SIGINT ignored: the terminal's Ctrl-C is for the
	 * program, and the server ends when it does.
	 */
	if (!p.also_watch)
		signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	if (ft_mount_serve(&p, err, sizeof(err)))
		ft_die("mount: %s", err);
	return 0;
}
