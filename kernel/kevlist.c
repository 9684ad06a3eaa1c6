// SPDX-License-Identifier: GPL-2.0
/*
 * The kernel's trace events, from tracefs's available_events ("sys:event"
 * per line), for `ftrail list -e` and shell completion.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <unistd.h>

#include <tracefs.h>

#include "core/glob.h"
#include "core/util.h"
#include "kernel/kevlist.h"

static int matches(const char *glob, const char *sys, const char *event)
{
	const char *colon;
	char gsys[256];

	if (!glob)
		return 1;
	colon = strchr(glob, ':');
	if (!colon)
		return ft_glob_match(glob, sys) || ft_glob_match(glob, event);
	if ((size_t)(colon - glob) >= sizeof(gsys))
		return 0;
	memcpy(gsys, glob, colon - glob);
	gsys[colon - glob] = 0;
	return ft_glob_match(gsys, sys) && ft_glob_match(colon + 1, event);
}

int ft_kernel_events(const char *glob, int (*fn)(const char *sys, const char *event, void *arg),
		     void *arg, char *err, size_t errlen)
{
	const char *dir = tracefs_tracing_dir(); /* mounts tracefs when it can */
	char *path, *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int count = 0;
	FILE *f;

	if (!dir) {
		ft_seterr(err, errlen,
			  "tracefs is not mounted and could not be (mount -t tracefs nodev "
			  "/sys/kernel/tracing, as root)");
		return -1;
	}
	if (asprintf(&path, "%s/available_events", dir) < 0) {
		ft_seterr(err, errlen, "out of memory");
		return -1;
	}
	f = fopen(path, "re");
	if (!f) {
		ft_seterr(err, errlen, "cannot read %s: %s%s", path, strerror(errno),
			  errno == EACCES ? " (run as root)" : "");
		free(path);
		return -1;
	}
	free(path);
	while ((n = getline(&line, &cap, f)) > 0) {
		char *colon;

		if (line[n - 1] == '\n')
			line[--n] = 0;
		colon = strchr(line, ':');
		if (!colon)
			continue;
		*colon = 0;
		if (!matches(glob, line, colon + 1))
			continue;
		count++;
		if (fn(line, colon + 1, arg))
			break;
	}
	free(line);
	fclose(f);
	return count;
}
