// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail snapshot: ftrace's snapshot file for a program being traced now.
 *
 *   ftrail snapshot [-P PID] N     echo N > snapshot
 *   ftrail snapshot [-P PID]       the state (allocated / freed) and counts
 *
 * ftrace's snapshot table (core/snapshot.h) decides; the buffers are the traced
 * program's ring area (core/ringbuf.h "Snapshot"), reached like `ftrail
 * marker` reaches it (recorder/attach.h).  A
 * swap is one atomic increment the writers notice at their next record;
 * the recorder saves the swapped-out set into the trace file
 * (FT_SEC_SNAPSHOT), and `ftrail show --snapshot` prints the last one.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>

#include "recorder/attach.h"
#include "cmd/builtin.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/snapshot.h"
#include "core/util.h"
#include "recorder/urecord.h"

const char cmd_snapshot_usage[] =
	"usage: ftrail snapshot [-P PID] [N]\n"
	"\n"
	"ftrace's snapshot control for a program that `ftrail record` traces now\n"
	"(echo N > snapshot).  With the snapshot buffer not allocated: 1 allocates\n"
	"it and takes a snapshot, 0 and other numbers do nothing.  Allocated: 0\n"
	"frees it, 1 takes a snapshot (swaps it with the live buffer, without\n"
	"stopping tracing), other numbers clear it.  The recorder keeps every\n"
	"snapshot in the trace file; `ftrail show --snapshot` prints the last.\n"
	"Without N, print the state.  Snapshots are also taken by the snapshot\n"
	"trigger (-R snapshot[:COUNT]) and function command (-l FUNC:snapshot);\n"
	"`ftrail record --snapshot-alloc` allocates the buffer at start.\n"
	"\n"
	"  -P PID     the traced process (any process of the traced session);\n"
	"             without it, the one traced program running is used (-p PID,\n"
	"             its old spelling, still works with a warning)\n";

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

int cmd_snapshot(int argc, char **argv)
{
	struct ft_live_session s;
	struct ft_snapshot snap;
	struct ft_rb_area *a;
	char err[256];
	pid_t pid = 0;
	int c, r;
	uint64_t v;

	while ((c = getopt_long(argc, argv, "+:p:P:h", long_options, NULL)) != -1) {
		switch (c) {
		case 'p':
			/* -p is the tracer in record: the pid is -P everywhere (trace-cmd's) */
			ft_warn("snapshot: -p PID is deprecated, use -P PID");
			/* fall through */
		case 'P':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &v))
				ft_die("snapshot: -P wants a process id, not '%s'", optarg);
			pid = (pid_t)v;
			break;
		case 'h':
			fputs(cmd_snapshot_usage, stdout);
			return 0;
		default:
			ft_bad_option("snapshot", c, argv);
		}
	}
	if (argc - optind > 1)
		ft_die("snapshot: one value at most (usage: ftrail snapshot [-P PID] [N])");
	if (optind < argc) {
		/* the table's own parser says the same, but before we touch any process */
		const char *p = argv[optind];

		while (*p == ' ' || *p == '\t')
			p++;
		if (*p < '0' || *p > '9' || ft_parse_u64(p, 0, UINT64_MAX, &v))
			ft_die("snapshot: '%s' is not 0, 1 or a positive number", argv[optind]);
	}
	if (ft_live_session_attach(pid, &s, err, sizeof(err)))
		ft_die("snapshot: %s", err);
	a = s.area;
	if (optind == argc) {
		printf("snapshot: %s\nswaps: %llu\nmissed (not allocated): %llu\n"
		       "skipped (previous one being saved): %llu\n",
		       ft_rb_snapshot_state(a) == FT_RB_SNAP_FREE ? "not allocated" : "allocated",
		       (unsigned long long)__atomic_load_n(&a->snap_swaps, __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&a->snap_missed, __ATOMIC_RELAXED),
		       (unsigned long long)__atomic_load_n(&a->snap_skipped, __ATOMIC_RELAXED));
		ft_live_session_detach(&s);
		return 0;
	}
	ft_snapshot_init(&snap, &ft_urec_area_snapshot_ops, a);
	r = ft_snapshot_write(&snap, argv[optind], err, sizeof(err));
	ft_live_session_detach(&s);
	if (r < 0)
		ft_die("%s", err);
	return 0;
}
