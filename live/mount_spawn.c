// SPDX-License-Identifier: GPL-2.0
/*
 * `ftrail record --mount DIR`: the mount's server runs in a process of its
 * own (see live/mount.h), started from the recorder once the program's pid
 * is known.  A process rather than a thread of the recorder: the recorder
 * holds the trace file and the kernel instance's descriptors, drains
 * rings and handles stop signals on a schedule of its own; the server
 * blocks in FUSE reads and handles its own signals.  It is this binary
 * run again (/proc/self/exe mount ...), with every descriptor but the
 * standard three closed, so it holds nothing the recorder must release.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "live/mount.h"

pid_t ft_mount_spawn(pid_t pid, const char *dir, char *err, size_t errlen)
{
	pid_t parent = getpid(), child;
	char spid[32], sparent[32];
	sigset_t none;

	snprintf(spid, sizeof(spid), "%d", (int)pid);
	snprintf(sparent, sizeof(sparent), "%d", (int)parent);
	child = fork();
	if (child < 0) {
		ft_seterr(err, errlen, "--mount: fork: %s", strerror(errno));
		return -1;
	}
	if (child)
		return child;
	/* the server: ends with the recorder, whatever ends it */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent)
		_exit(1);
	close_range(3, ~0u, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN); /* the terminal's Ctrl-C is the recorder's to handle */
	execl("/proc/self/exe", "ftrail", "mount", "-P", spid, "--wait", "10000", "--watch",
	      sparent, "--", dir, (char *)NULL);
	fprintf(stderr, "ftrail: --mount: cannot run /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

int ft_mount_reap(pid_t server)
{
	int st;

	if (server <= 0)
		return 0;
	kill(server, SIGTERM);
	while (waitpid(server, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}
