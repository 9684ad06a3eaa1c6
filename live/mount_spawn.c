// SPDX-License-Identifier: GPL-2.0
/*
 * `ftrail record --mount DIR`: the mount's server runs in a process of its
 * own (see live/mount.h), this binary run again (/proc/self/exe mount ...).
 * A process rather than a thread of the recorder: the recorder drains
 * rings and handles stop signals on a schedule of its own; the server
 * blocks in FUSE requests and handles its own signals.
 *
 * It is started before the recording, and not as the recorder's child:
 * the recorder is a child subreaper that waits for every child to end
 * with the program (recorder/urec_spawn.c), so a child server would hold
 * the recording open.  A short-lived child forks the server and exits; the
 * server, now nobody's child of ours, waits on a pipe for the program's
 * pid (the recorder writes it once it has spawned or attached to the
 * program; a recorder that fails first closes the pipe, and the server
 * exits), then execs with no descriptor but the standard three.  It ends
 * when the recorder ends (it watches the recorder's pidfd) or when
 * ft_mount_reap() asks.
 */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/util.h"
#include "live/mount.h"

static void server(int pid_r, int back_w, pid_t recorder, const char *dir)
{
	char spid[32], srec[32];
	pid_t me = getpid(), prog;
	sigset_t none;

	if (write(back_w, &me, sizeof(me)) != (ssize_t)sizeof(me))
		_exit(1);
	close(back_w);
	if (read(pid_r, &prog, sizeof(prog)) != (ssize_t)sizeof(prog))
		_exit(0); /* the recording did not start */
	snprintf(spid, sizeof(spid), "%d", (int)prog);
	snprintf(srec, sizeof(srec), "%d", (int)recorder);
	close_range(3, ~0u, 0);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	signal(SIGINT, SIG_IGN); /* the terminal's Ctrl-C is the recorder's to handle */
	execl("/proc/self/exe", "ftrail", "mount", "-P", spid, "--wait", "10000", "--watch", srec,
	      "--", dir, (char *)NULL);
	fprintf(stderr, "ftrail: --mount: cannot run /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

int ft_mount_spawn(const char *dir, struct ft_mount_server *s, char *err, size_t errlen)
{
	int pidp[2], back[2], st;
	pid_t mid, recorder = getpid();

	s->pid = -1;
	s->pidfd = -1;
	s->pid_w = -1;
	if (pipe2(pidp, O_CLOEXEC)) {
		ft_seterr(err, errlen, "--mount: pipe: %s", strerror(errno));
		return -1;
	}
	if (pipe2(back, O_CLOEXEC)) {
		ft_seterr(err, errlen, "--mount: pipe: %s", strerror(errno));
		close(pidp[0]);
		close(pidp[1]);
		return -1;
	}
	mid = fork();
	if (mid == 0) {
		close(pidp[1]);
		close(back[0]);
		if (fork() == 0)
			server(pidp[0], back[1], recorder, dir);
		_exit(0);
	}
	close(pidp[0]);
	close(back[1]);
	if (mid > 0) {
		while (waitpid(mid, &st, 0) < 0 && errno == EINTR)
			;
		if (read(back[0], &s->pid, sizeof(s->pid)) != (ssize_t)sizeof(s->pid))
			s->pid = -1;
	}
	close(back[0]);
	if (s->pid <= 0) {
		ft_seterr(err, errlen, "--mount: cannot start the mount's server: %s",
			  mid < 0 ? strerror(errno) : "it did not start");
		close(pidp[1]);
		return -1;
	}
	s->pidfd = (int)syscall(SYS_pidfd_open, s->pid, 0);
	s->pid_w = pidp[1];
	return 0;
}

int ft_mount_start(struct ft_mount_server *s, pid_t pid, char *err, size_t errlen)
{
	ssize_t n = write(s->pid_w, &pid, sizeof(pid));

	close(s->pid_w);
	s->pid_w = -1;
	if (n != (ssize_t)sizeof(pid)) {
		ft_seterr(err, errlen, "--mount: the mount's server is gone");
		return -1;
	}
	return 0;
}

void ft_mount_reap(struct ft_mount_server *s)
{
	struct pollfd p = { s->pidfd, POLLIN, 0 };

	if (s->pid_w >= 0)
		close(s->pid_w); /* never started: it exits on its own */
	s->pid_w = -1;
	if (s->pid <= 0)
		return;
	kill(s->pid, SIGTERM);
	/* it unmounts, then exits; readers in trace_pipe get their last events first */
	if (s->pidfd >= 0) {
		while (poll(&p, 1, 30000) < 0 && errno == EINTR)
			;
		close(s->pidfd);
	}
	s->pid = -1;
	s->pidfd = -1;
}
