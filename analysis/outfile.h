/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The output file of a writer command (ftrail flame -o, ftrail export -o):
 * created for writing, and removed again if the command fails before
 * finishing it, so a failure never leaves a half-written picture or JSON
 * file that looks complete.  Removal happens at exit (ft_die() exits), so
 * at most one output file per process is tracked.  Only a regular file is
 * ever removed (never e.g. /dev/null or a pipe).  Tool only.
 */
#ifndef FTRAIL_OUTFILE_H
#define FTRAIL_OUTFILE_H

#include <stdio.h>

/*
 * Open path for writing (created or truncated), or standard output when
 * path is NULL.  A regular file is removed at exit unless
 * ft_outfile_close() succeeds first.  Returns the stream, or NULL with
 * errno set.
 */
FILE *ft_outfile_open(const char *path);

/*
 * Finish out: flush it, check its error flag (a write that failed earlier)
 * and close it (standard output is flushed, not closed).  Returns 0 and the
 * file is kept; or -1 with errno set (when only the error flag tells,
 * errno as the failed write left it, or EIO) and the file is still removed
 * at exit.
 */
int ft_outfile_close(FILE *out);

#endif
