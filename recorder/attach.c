// SPDX-License-Identifier: GPL-2.0
/*
 * Finding and mapping a running trace session (see attach.h).
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/attach.h"
#include "core/ringbuf.h"
#include "core/session.h"
#include "core/util.h"

/* The session fd number in PID's environment, or -1. */
static int session_fd_of(pid_t pid)
{
	char path[64], buf[65536];
	size_t n, key = strlen(FT_SESSION_ENV_FD "=");
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/environ", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return -1;
	n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	for (size_t i = 0; i < n; i += strlen(buf + i) + 1)
		if (!strncmp(buf + i, FT_SESSION_ENV_FD "=", key))
			return atoi(buf + i + key);
	return -1;
}

static const char session_name[] = "/memfd:ftrail-session";

/* Does a /proc link or maps path name the session memfd ("ftrail-session", recorder/urecord.c)? */
static int is_session_name(const char *s)
{
	size_t l = sizeof(session_name) - 1;

	return !strncmp(s, session_name, l) && (!s[l] || s[l] == ' ' || s[l] == '\n');
}

/*
 * The session memfd among PID's open files: the recorder's own (record -P
 * attaches to a program whose environment never names it).  With nr
 * inodes in ino[], only a memfd with one of those.  The fd number, or -1.
 */
static int session_fd_listed(pid_t pid, const ino_t *ino, int nr)
{
	char dir[64], path[64 + 256 + 2], link[128];
	struct dirent *de;
	int n = -1;
	DIR *d;

	snprintf(dir, sizeof(dir), "/proc/%d/fd", (int)pid);
	d = opendir(dir);
	if (!d)
		return -1;
	while (n < 0 && (de = readdir(d))) {
		struct stat st;
		ssize_t k;
		int i;

		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		k = readlink(path, link, sizeof(link) - 1);
		if (k < (ssize_t)sizeof(session_name) - 1)
			continue;
		link[k] = 0;
		if (!is_session_name(link))
			continue;
		for (i = 0; i < nr && !stat(path, &st) && st.st_ino != ino[i]; i++)
			;
		if (!nr || i < nr)
			n = atoi(de->d_name);
	}
	closedir(d);
	return n;
}

#define MAX_MAPPED 64

/*
 * A process that record -P attached to holds no fd of its session, only
 * its mapping -- and the mappings of earlier attaches, which stay mapped
 * after a detach (doc/attach.md).  The session it is traced into now is
 * the one of those memfds that a live process, its recorder, still holds
 * open: matched by inode among every process's open files.  Returns that
 * process's pid with the fd number in *fdn, or 0.
 */
static pid_t session_fd_holder(pid_t pid, int *fdn)
{
	char path[64], line[512];
	ino_t ino[MAX_MAPPED];
	struct dirent *de;
	pid_t found = 0;
	int nr = 0;
	DIR *d;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/maps", (int)pid);
	f = fopen(path, "re");
	if (!f)
		return 0;
	while (nr < MAX_MAPPED && fgets(line, sizeof(line), f)) {
		unsigned long long i;
		int off = 0;

		if (sscanf(line, "%*s %*s %*s %*s %llu %n", &i, &off) == 1 && off &&
		    is_session_name(line + off) && (!nr || ino[nr - 1] != (ino_t)i))
			ino[nr++] = (ino_t)i;
	}
	fclose(f);
	if (!nr || !(d = opendir("/proc")))
		return 0;
	while (!found && (de = readdir(d))) {
		pid_t p = (pid_t)atoi(de->d_name);

		if (p > 0 && p != pid && (*fdn = session_fd_listed(p, ino, nr)) >= 0)
			found = p;
	}
	closedir(d);
	return found;
}

/*
 * PID's session memfd, opened read-write, and its stat; -1 when it has
 * none we can open.  listed: also look for it among PID's open files
 * (the recorder of an attached program); mapped: also through the
 * recorder of the session PID has mapped (the attached program itself).
 */
static int open_session(pid_t pid, struct stat *st, int listed, int mapped)
{
	char path[64];
	int fd, n = session_fd_of(pid);

	if (n < 0 && listed)
		n = session_fd_listed(pid, NULL, 0);
	if (n < 0 && mapped && (pid = session_fd_holder(pid, &n)) == 0)
		return -1;
	if (n < 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/fd/%d", (int)pid, n);
	fd = open(path, O_RDWR | O_CLOEXEC);
	if (fd >= 0 && fstat(fd, st)) {
		close(fd);
		fd = -1;
	}
	return fd;
}

/*
 * The one traced session running now: its fd and stat in *out, or -1 with
 * why not in err.
 */
static int find_session(struct stat *out, char *err, size_t errlen)
{
	struct stat st;
	struct dirent *de;
	int fd = -1, nr = 0;
	pid_t self = getpid(), pids[2] = { 0, 0 };
	DIR *d = opendir("/proc");

	if (!d) {
		ft_seterr(err, errlen, "cannot read /proc: %s", strerror(errno));
		return -1;
	}
	while ((de = readdir(d))) {
		pid_t pid = (pid_t)atoi(de->d_name);
		int f;

		if (pid <= 0 || pid == self)
			continue;
		f = open_session(pid, &st, 1, 0); /* a recorder that attached counts too */
		if (f < 0)
			continue;
		if (fd >= 0 && st.st_dev == out->st_dev && st.st_ino == out->st_ino) {
			close(f); /* another process of the same session (fork) */
			continue;
		}
		if (nr < 2)
			pids[nr] = pid;
		nr++;
		if (fd < 0) {
			fd = f;
			*out = st;
		} else {
			close(f);
		}
	}
	closedir(d);
	if (nr == 1)
		return fd;
	if (fd >= 0)
		close(fd);
	if (!nr)
		ft_seterr(err, errlen,
			  "no program is being traced by ftrail record now (or not as this user)");
	else
		ft_seterr(err, errlen,
			  "%d traced sessions are running (pids %d, %d...): choose one with -P PID",
			  nr, (int)pids[0], (int)pids[1]);
	return -1;
}

int ft_live_session_attach(pid_t pid, struct ft_live_session *s, char *err, size_t errlen)
{
	struct stat st;
	size_t ring_len;
	void *ring;
	int fd;

	memset(s, 0, sizeof(*s));
	if (pid) {
		fd = open_session(pid, &st, 1, 1);
		if (fd < 0) {
			ft_seterr(err, errlen,
				  "process %d is not traced by ftrail record (or not ours)",
				  (int)pid);
			return -1;
		}
	} else {
		fd = find_session(&st, err, errlen);
		if (fd < 0)
			return -1;
	}
	s->len = (size_t)st.st_size;
	s->mem = mmap(NULL, s->len, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (s->mem == MAP_FAILED) {
		ft_seterr(err, errlen, "cannot map the session: %s", strerror(errno));
		s->mem = NULL;
		return -1;
	}
	s->hdr = ft_session_check(s->mem, s->len, err, errlen);
	if (!s->hdr)
		goto fail;
	ring = ft_session_ring(s->hdr, &ring_len);
	s->area = ft_rb_area_attach(ring, ring_len);
	if (!s->area) {
		ft_seterr(err, errlen, "the session's ring buffer is not usable");
		goto fail;
	}
	return 0;
fail:
	ft_live_session_detach(s);
	return -1;
}

void ft_live_session_detach(struct ft_live_session *s)
{
	if (s->mem)
		munmap(s->mem, s->len);
	memset(s, 0, sizeof(*s));
}
