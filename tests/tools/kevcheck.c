// SPDX-License-Identifier: GPL-2.0
/*
 * kevcheck: open the kernel events of trace files one after another in one
 * process, as a reader of many files (or the fuzz target) does (tests only).
 *
 *   kevcheck [-k] [-x] FILE...
 *
 * For each file one line: "FILE: N events, U unknown" (U: events whose
 * format is missing or was left out), "FILE: no kernel events", or
 * "FILE: error: REASON".  -k keeps one format checker from one check to
 * the next (ft_kevents_keep_checker()); -x kills every child of this
 * process after each file (a kept checker that died between checks).  At
 * the end, "children: N": the processes this one still has.
 */
#include <dirent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "analysis/kevents.h"
#include "core/tracefile.h"

/* Our children's pids (from /proc/self/task/ * /children) into pids; their number. */
static int children(pid_t *pids, int max)
{
	DIR *d = opendir("/proc/self/task");
	struct dirent *e;
	int n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d))) {
		char path[300];
		FILE *f;
		long p;

		if (e->d_name[0] == '.')
			continue;
		snprintf(path, sizeof(path), "/proc/self/task/%s/children", e->d_name);
		f = fopen(path, "r");
		if (!f)
			continue;
		while (n < max && fscanf(f, "%ld", &p) == 1)
			pids[n++] = (pid_t)p;
		fclose(f);
	}
	closedir(d);
	return n;
}

static void check(const char *path)
{
	char err[512] = "";
	struct ft_reader *r = ft_reader_open(path, err, sizeof(err));
	struct ft_kevents *k;
	struct ft_kevent ev;
	unsigned long n = 0, unknown = 0;
	int ret;

	if (!r) {
		printf("%s: error: %s\n", path, err);
		return;
	}
	k = ft_kevents_open(r, err, sizeof(err));
	if (!k) {
		if (err[0])
			printf("%s: error: %s\n", path, err);
		else
			printf("%s: no kernel events\n", path);
		ft_reader_close(r);
		return;
	}
	while ((ret = ft_kevents_next(k, &ev)) == 1) {
		if (ev.kind != FT_KEV_EVENT)
			continue;
		n++;
		unknown += !ev.event;
	}
	if (ret < 0)
		printf("%s: error: %s\n", path, ft_kevents_error(k));
	else
		printf("%s: %lu events, %lu unknown\n", path, n, unknown);
	ft_kevents_close(k);
	ft_reader_close(r);
}

int main(int argc, char **argv)
{
	pid_t pids[64];
	int opt, kill_them = 0, n;

	while ((opt = getopt(argc, argv, "kx")) != -1) {
		if (opt == 'k')
			ft_kevents_keep_checker(1);
		else if (opt == 'x')
			kill_them = 1;
		else
			return 2;
	}
	for (int i = optind; i < argc; i++) {
		check(argv[i]);
		fflush(stdout);
		if (!kill_them)
			continue;
		n = children(pids, 64);
		for (int c = 0; c < n; c++) {
			kill(pids[c], SIGKILL);
			/* reaped by its owner (analysis/kevents.c) at the next check */
		}
	}
	printf("children: %d\n", children(pids, 64));
	return 0;
}
