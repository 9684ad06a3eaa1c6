/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Output files written atomically: every file ftrail writes (record -o,
 * stackmap export, export, flame) goes through here.
 *
 *   TARGET.partial   created new (O_CREAT|O_EXCL|O_NOFOLLOW|O_CLOEXEC) in the
 *                    target's directory and locked (flock) while written;
 *   commit           fsync, rename(TARGET.partial, TARGET), fsync of the
 *                    directory: readers see the old file or the whole new
 *                    one, never a torn one;
 *   abort            the partial file is removed (or, for a recording that
 *                    captured something, kept under its .partial name).
 *
 * So the previous TARGET survives every failure, and a writer killed with
 * SIGKILL leaves TARGET untouched plus TARGET.partial.  A TARGET.partial
 * left by a killed run is replaced by the next run (with a warning); one
 * still locked by a live writer makes the open fail (EBUSY); one that is a
 * symbolic link or belongs to another user is never touched.
 *
 * Symbolic links are never written through: a TARGET that is a symbolic
 * link is refused (ELOOP, "not following"), as a link planted in a shared
 * directory by another user must not redirect our data, and silently
 * replacing a user's own link with a file would put the data somewhere
 * other than where the link pointed.  A TARGET that exists and is neither
 * a regular file nor a link (/dev/null, a FIFO, a terminal) is written in
 * place, without a temporary file.  Tool only (the runtime never writes
 * files).
 */
#ifndef FTRAIL_CORE_OUTFILE_H
#define FTRAIL_CORE_OUTFILE_H

#include <stdio.h>
#include <sys/types.h>

struct ft_outfile {
	int fd;	      /* where to write */
	int in_place; /* fd is TARGET itself (a device or FIFO), no rename */
	int replaced; /* a stale TARGET.partial of a killed run was replaced */
	char *path;   /* TARGET */
	char *tmp;    /* TARGET.partial (NULL when in_place) */
	dev_t dev;    /* tmp's identity: only that file is ever removed */
	ino_t ino;
};

/*
 * ft_outfile_create - open a new output for TARGET path
 * @o:    filled on success
 * @path: the target; "-" is refused (EINVAL): callers that stream to
 *        standard output handle "-" themselves
 * @mode: creation mode of the new file (0600 for traces), umask applied
 *
 * Return: 0, or -1 with errno set and a one-line reason naming the file in
 * err (e.g. "ftrail.dat is a symbolic link: not following it").
 */
int ft_outfile_create(struct ft_outfile *o, const char *path, mode_t mode, char *err,
		      size_t errlen);

/*
 * ft_outfile_commit - make the new file TARGET: fsync, rename, fsync of
 * the directory, close.  @o is released either way.
 *
 * Return: 0, or -1 with a reason in err; on failure the partial file is
 * removed and TARGET is as before.
 */
int ft_outfile_commit(struct ft_outfile *o, char *err, size_t errlen);

/*
 * ft_outfile_abort - give up: close, and remove the partial file unless
 * @keep (it then stays as TARGET.partial).  TARGET is untouched.  Safe on
 * a zeroed or already released @o.
 */
void ft_outfile_abort(struct ft_outfile *o, int keep);

/*
 * Stream helpers for the text/JSON/SVG writers (flame, export).
 *
 * ft_outstream_open - open TARGET path as an ft_outfile behind a stdio
 * stream, or standard output when path is NULL or "-".  The partial file
 * is removed at exit (ft_die() exits) unless ft_outstream_close()
 * succeeded: at most one stream per process is tracked.
 * Return: the stream, or NULL with the reason in err.
 */
FILE *ft_outstream_open(const char *path, char *err, size_t errlen);

/*
 * ft_outstream_close - flush, check the stream's error flag, close and
 * commit (standard output is flushed only).
 * Return: 0, or -1 with the reason in err (the partial file is removed).
 */
int ft_outstream_close(FILE *out, char *err, size_t errlen);

#endif
