/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The live tracefs-like tree: a FUSE file system (libfuse3) over the
 * session of a program that `ftrail record` traces now.  Every file reads
 * and writes the session's control plane (core/session.h), its stack map
 * (core/stackmap.h) and its ring area (core/ringbuf.h: markers, snapshot),
 * the same shared memory `ftrail marker` and `ftrail snapshot` reach through
 * recorder/attach.h.  doc/mount.md lists the files and how they differ from
 * tracefs.
 *
 * One server process per mount, one thread serving requests (so the
 * files' state needs no lock), and a watcher thread that ends the loop when
 * the traced program or its recorder is gone.  Reads copy what they show
 * at open; nothing the server does ever waits for the traced program, and
 * the traced program never waits for the server (it sees control changes
 * through the seqlock at its next hook).
 */
#ifndef FTRAIL_LIVE_MOUNT_H
#define FTRAIL_LIVE_MOUNT_H

#include <stddef.h>
#include <sys/types.h>

/*
 * Check that dir can be a mount point: an existing, empty directory, and
 * /dev/fuse can be opened.  Returns 0, or -1 with one line in err ("DIR is
 * not an empty directory", "no /dev/fuse: ...").
 */
int ft_mount_check(const char *dir, char *err, size_t errlen);

struct ft_mount_params {
	pid_t pid;	  /* the traced process (its session is mounted) */
	const char *dir;  /* mount point (ft_mount_check() is run again) */
	int wait_ms;	  /* > 0: retry reaching the session for this long (a
			    * program being spawned maps it at exec) */
	pid_t also_watch; /* != 0: end when this process is gone too (the recorder) */
};

/*
 * Mount the session of p->pid on p->dir and serve it until the traced
 * process or its recorder (the session's recorder_pid, and p->also_watch)
 * is gone, or SIGINT, SIGTERM or SIGHUP arrives; then unmount.  Blocking
 * readers get end-of-file before the tree goes.  Returns 0 after a clean
 * unmount, or -1 with one line in err (session not reachable, mount point
 * refused, FUSE mount failed).
 */
int ft_mount_serve(const struct ft_mount_params *p, char *err, size_t errlen);

/*
 * For `ftrail record --mount DIR` (live/mount_spawn.c): a server process
 * (this binary's `mount` command) started before the recording and not as
 * our child; it waits for the program's pid, mounts DIR and ends with the
 * recorder or when reaped.
 */
struct ft_mount_server {
	pid_t pid; /* the server, or -1 */
	int pidfd; /* its pidfd, or -1 */
	int pid_w; /* the pipe the program's pid goes to, or -1 once written */
};

/* Start the server for dir.  0, or -1 with one line in err. */
int ft_mount_spawn(const char *dir, struct ft_mount_server *s, char *err, size_t errlen);

/*
 * Give the server the traced program's pid (record's attached hook): it
 * then waits for the program to map its session and mounts.  0, or -1
 * with one line in err when the server is gone.
 */
int ft_mount_start(struct ft_mount_server *s, pid_t pid, char *err, size_t errlen);

/*
 * End the server (SIGTERM; never started: it just exits) and wait, up to
 * 30 s, until it has unmounted and exited.  Cannot fail.
 */
void ft_mount_reap(struct ft_mount_server *s);

#endif
