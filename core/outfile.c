// SPDX-License-Identifier: GPL-2.0
/*
 * Atomic output files (see outfile.h).  Written by hand: the pieces are
 * plain POSIX calls (open O_EXCL|O_NOFOLLOW, flock, fsync, rename), but no
 * library we use offers the whole policy (glib's g_file_set_contents() is
 * close, without the lock, the symlink refusal or the device case).
 */
#include "core/outfile.h"
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#define PARTIAL_SUFFIX ".partial"

/* Open TARGET itself when it is a device, FIFO or socket; 1 done, 0 not such, -1 error. */
static int open_in_place(struct ft_outfile *o, const char *path, char *err, size_t errlen)
{
	struct stat st;
	int fd;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		ft_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISLNK(st.st_mode)) {
		errno = ELOOP;
		ft_seterr(err, errlen,
			  "%s is a symbolic link: not following it (remove it, or name the file "
			  "it points to)",
			  path);
		return -1;
	}
	if (S_ISDIR(st.st_mode)) {
		errno = EISDIR;
		ft_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
		return -1;
	}
	if (S_ISREG(st.st_mode))
		return 0;
	fd = open(path, O_WRONLY | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
	if (fd < 0) {
		ft_seterr(err, errlen, "cannot open %s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || S_ISREG(st.st_mode)) {
		close(fd); /* replaced by a regular file meanwhile: go the atomic way */
		return 0;
	}
	o->fd = fd;
	o->in_place = 1;
	return 1;
}

/*
 * TARGET.partial exists: a run that was killed (unlocked, ours: removed so
 * the caller can retry), a live writer (locked: EBUSY) or something we must
 * not touch.  Returns 0 when removed, -1 with err set otherwise.
 */
static int clear_stale(const char *tmp, const char *path, int *replaced, char *err, size_t errlen)
{
	struct stat st, lst;
	int fd = open(tmp, O_RDONLY | O_NOFOLLOW | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		if (errno == ENOENT)
			return 0; /* gone meanwhile */
		if (errno == ELOOP)
			ft_seterr(err, errlen, "%s is a symbolic link: not following it", tmp);
		else
			ft_seterr(err, errlen, "cannot create %s: %s", tmp, strerror(errno));
		return -1;
	}
	if (fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		close(fd);
		errno = EEXIST;
		ft_seterr(err, errlen, "%s exists and is not a partial file of ours: remove it",
			  tmp);
		return -1;
	}
	if (flock(fd, LOCK_EX | LOCK_NB) < 0) {
		close(fd);
		errno = EBUSY;
		ft_seterr(err, errlen, "another ftrail is writing %s (%s is in use)", path, tmp);
		return -1;
	}
	/* still the file we locked at that name (not swapped meanwhile)? */
	if (lstat(tmp, &lst) == 0 && lst.st_dev == st.st_dev && lst.st_ino == st.st_ino &&
	    unlink(tmp) < 0 && errno != ENOENT) {
		ft_seterr(err, errlen, "cannot remove the stale %s: %s", tmp, strerror(errno));
		close(fd);
		return -1;
	}
	close(fd);
	*replaced = 1;
	return 0;
}

int ft_outfile_create(struct ft_outfile *o, const char *path, mode_t mode, char *err, size_t errlen)
{
	size_t n;
	int r;

	memset(o, 0, sizeof(*o));
	o->fd = -1;
	if (!path || !*path || !strcmp(path, "-")) {
		errno = EINVAL;
		ft_seterr(err, errlen, "'%s' is not a file name here", path ? path : "");
		return -1;
	}
	r = open_in_place(o, path, err, errlen);
	if (r < 0)
		return -1;
	o->path = strdup(path);
	if (!o->path)
		goto oom;
	if (r > 0)
		return 0;
	n = strlen(path) + sizeof(PARTIAL_SUFFIX);
	o->tmp = malloc(n);
	if (!o->tmp)
		goto oom;
	snprintf(o->tmp, n, "%s%s", path, PARTIAL_SUFFIX);
	for (int tries = 0; tries < 4; tries++) {
		int fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, mode);

		if (fd >= 0) {
			struct stat st;

			/* never blocks: the file is new; others see it in use */
			flock(fd, LOCK_EX | LOCK_NB);
			o->fd = fd;
			if (fstat(fd, &st) == 0) {
				o->dev = st.st_dev;
				o->ino = st.st_ino;
			}
			return 0;
		}
		if (errno != EEXIST) {
			ft_seterr(err, errlen, "cannot create %s: %s", o->tmp, strerror(errno));
			goto fail;
		}
		if (clear_stale(o->tmp, path, &o->replaced, err, errlen) < 0)
			goto fail;
	}
	errno = EEXIST;
	ft_seterr(err, errlen, "cannot create %s: it keeps reappearing", o->tmp);
	goto fail;
oom:
	errno = ENOMEM;
	ft_seterr(err, errlen, "out of memory");
fail : {
	int e = errno;

	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
	errno = e;
	return -1;
}
}

static void release(struct ft_outfile *o)
{
	if (o->fd >= 0)
		close(o->fd);
	free(o->path);
	free(o->tmp);
	memset(o, 0, sizeof(*o));
	o->fd = -1;
}

/* Remove o->tmp if it is still the file we created. */
static void remove_tmp(struct ft_outfile *o)
{
	struct stat b;

	if (o->tmp && lstat(o->tmp, &b) == 0 && b.st_dev == o->dev && b.st_ino == o->ino)
		unlink(o->tmp);
}

void ft_outfile_abort(struct ft_outfile *o, int keep)
{
	if (!o || !o->path)
		return;
	if (!keep)
		remove_tmp(o);
	release(o);
}

int ft_outfile_commit(struct ft_outfile *o, char *err, size_t errlen)
{
	char *dir;
	int dfd;

	if (o->in_place) {
		if (close(o->fd) < 0) {
			ft_seterr(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
			o->fd = -1;
			release(o);
			return -1;
		}
		o->fd = -1;
		release(o);
		return 0;
	}
	/* the data reaches the disk before the name does (a crash then shows the old file) */
	if (fsync(o->fd) < 0 && errno != EINVAL) {
		ft_seterr(err, errlen, "cannot write %s: %s", o->tmp, strerror(errno));
		goto fail;
	}
	/* rename replaces whatever TARGET is now, a link included: never follows it */
	if (rename(o->tmp, o->path) < 0) {
		ft_seterr(err, errlen, "cannot rename %s to %s: %s", o->tmp, o->path,
			  strerror(errno));
		goto fail;
	}
	dir = strdup(o->path);
	if (dir) {
		dfd = open(dirname(dir), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd); /* best effort: the rename is done either way */
			close(dfd);
		}
		free(dir);
	}
	if (close(o->fd) < 0) {
		o->fd = -1;
		ft_seterr(err, errlen, "cannot write %s: %s", o->path, strerror(errno));
		release(o);
		return -1;
	}
	o->fd = -1;
	release(o);
	return 0;
fail : {
	int e = errno;

	remove_tmp(o);
	release(o);
	errno = e;
	return -1;
}
}

/* ---- streams ---- */

/* The stream's file until committed; removed at exit while set. */
static struct ft_outfile stream_file = { .fd = -1 };
static FILE *stream;

static void remove_stream_at_exit(void)
{
	if (stream) {
		/* the FILE may hold our fd: the partial file goes, the stream is left to exit */
		remove_tmp(&stream_file);
		stream = NULL;
	}
}

FILE *ft_outstream_open(const char *path, char *err, size_t errlen)
{
	static int registered;
	FILE *out;

	if (!path || !strcmp(path, "-"))
		return stdout;
	if (stream) {
		errno = EBUSY;
		ft_seterr(err, errlen, "one output stream at a time");
		return NULL;
	}
	if (ft_outfile_create(&stream_file, path, 0666, err, errlen) < 0)
		return NULL;
	out = fdopen(stream_file.fd, "w");
	if (!out) {
		ft_seterr(err, errlen, "cannot create %s: %s", path, strerror(errno));
		ft_outfile_abort(&stream_file, 0);
		return NULL;
	}
	if (!registered && !atexit(remove_stream_at_exit))
		registered = 1;
	stream = out;
	return out;
}

int ft_outstream_close(FILE *out, char *err, size_t errlen)
{
	const char *name = out == stdout ? "standard output" : stream_file.path;
	int e;

	if (fflush(out) || ferror(out)) {
		e = errno ? errno : EIO; /* most likely the failed write's */
		ft_seterr(err, errlen, "write error on %s: %s", name, strerror(e));
		errno = e;
		return -1; /* a stream of ours is removed at exit */
	}
	if (out == stdout)
		return 0;
	/* the stream owns the fd: duplicate it for the commit's fsync */
	e = dup(stream_file.fd);
	if (e < 0 || fclose(out)) {
		ft_seterr(err, errlen, "write error on %s: %s", name, strerror(errno));
		if (e >= 0)
			close(e);
		return -1;
	}
	stream_file.fd = e;
	stream = NULL;
	return ft_outfile_commit(&stream_file, err, errlen);
}
