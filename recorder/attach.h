/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reaching a trace session that `ftrail record` runs now, from another
 * process (ftrail marker, ftrail snapshot): the traced program holds the
 * session block (core/session.h) in the memfd named by its FTRAIL_SHM_FD
 * variable; it is opened through /proc/PID/fd/N (same user or root, as for
 * ptrace) and mapped read-write, so the caller can write into the ring
 * area (ringbuf.h: slots are claimed lock-free by any process) or drive
 * its snapshot buffer.
 */
#ifndef FTRAIL_ATTACH_H
#define FTRAIL_ATTACH_H

#include <stddef.h>
#include <sys/types.h>

struct ft_session_hdr;
struct ft_rb_area;

/* A running session, mapped.  Filled by ft_live_session_attach(). */
struct ft_live_session {
	void *mem; /* the whole session block */
	size_t len;
	struct ft_session_hdr *hdr; /* checked by ft_session_check() */
	struct ft_rb_area *area;    /* its ring area, checked by ft_rb_area_attach() */
};

/*
 * Map the session of process pid (a process of the traced session, named
 * by its FTRAIL_SHM_FD variable; or the recorder, which holds the session
 * memfd open; or a program traced with record -P, which has no such
 * variable: its session is found through the recorder that holds the
 * memfd it maps), or with pid 0 the one traced session running now
 * (processes of one session, after fork, and its recorder count once).  Returns
 * 0, or -1 with a one-line reason in err: "process N is not traced by ftrail
 * record (or not ours)", "no program is being traced by ftrail record now
 * (or not as this user)", "N traced sessions are running (pids A, B...):
 * choose one with -P PID", a mapping failure or a session block that fails
 * its checks.  On success, release with ft_live_session_detach().
 */
int ft_live_session_attach(pid_t pid, struct ft_live_session *s, char *err, size_t errlen);

/* Unmap what ft_live_session_attach() mapped.  Cannot fail. */
void ft_live_session_detach(struct ft_live_session *s);

#endif
