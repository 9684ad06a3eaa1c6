// SPDX-License-Identifier: GPL-2.0
/*
 * Output files removed when a command fails before finishing them (see
 * outfile.h).
 */
#include "analysis/outfile.h"

#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

/* The output being written, removed at exit while set; owned by the caller. */
static const char *partial_output;

static void remove_partial(void)
{
	if (partial_output)
		unlink(partial_output);
}

static int is_regular(FILE *f)
{
	struct stat st;

	return !fstat(fileno(f), &st) && S_ISREG(st.st_mode);
}

FILE *ft_outfile_open(const char *path)
{
	static int registered;
	FILE *out;

	if (!path)
		return stdout;
	out = fopen(path, "w");
	if (!out)
		return NULL;
	/* only a regular file is removed on failure, never e.g. /dev/null */
	if (is_regular(out)) {
		partial_output = path;
		if (!registered && !atexit(remove_partial))
			registered = 1;
	}
	return out;
}

int ft_outfile_close(FILE *out)
{
	if (fflush(out))
		return -1;
	if (ferror(out)) {
		if (!errno)
			errno = EIO; /* else, most likely the failed write's */
		return -1;
	}
	if (out != stdout && fclose(out))
		return -1;
	partial_output = NULL;
	return 0;
}
