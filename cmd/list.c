// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail list: what can be asked for, as `trace-cmd list` prints it:
 * tracers (available_tracers), trace options with their current defaults
 * (trace_options), the kernel's events (available_events) and the events a
 * program defines with <ftrail/ftrail.h>.  One name per line, so scripts and
 * the shell completion read it.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/glob.h"
#include "core/options.h"
#include "core/session.h"
#include "core/util.h"
#include "kernel/kevlist.h"
#include "recorder/uevent_setup.h"

const char cmd_list_usage[] =
	"usage: ftrail list [-t] [-o] [-e [GLOB]] [-u PROG [GLOB]]\n"
	"\n"
	"List what `ftrail record` accepts, one name per line.  Without options,\n"
	"tracers, options and (when tracefs is readable) kernel events, each under\n"
	"a heading.\n"
	"\n"
	"  -t          tracers for -p (ftrace's available_tracers)\n"
	"  -o          trace options for -O with their defaults, as ftrace's\n"
	"              trace_options prints them ('noNAME' when off)\n"
	"  -e [GLOB]   kernel events for -e as SYS:EVENT (tracefs available_events),\n"
	"              those matching GLOB ('sched:*', 'irq', '*wakeup*')\n"
	"  -u PROG     the events PROG defines for -e u:SYS:EVENT, read from its\n"
	"              ELF file without running it\n";

static const struct option long_options[] = {
	{ "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 },
};

static void list_tracers(void)
{
	for (int i = 0; ft_tracer_name(i); i++)
		puts(ft_tracer_name(i));
	for (int i = 0; ft_kernel_tracer_name(i); i++)
		puts(ft_kernel_tracer_name(i));
}

static void list_options(void)
{
	uint64_t def = ft_options_default();

	for (unsigned int i = 0; i < FT_OPT_NR; i++)
		printf("%s%s\n", def & (1ull << i) ? "" : "no", ft_option_name(i));
}

static int put_kevent(const char *sys, const char *event, void *arg)
{
	printf("%s:%s\n", sys, event);
	return 0;
}

struct uev_list {
	const char *glob;
	int n;
};

static int put_uevent(const struct ftrail_event *ev, void *arg)
{
	struct uev_list *l = arg;

	if (l->glob && !ft_uev_name_match(l->glob, ev->subsys, ev->name))
		return 0;
	printf("u:%s:%s\n", ev->subsys, ev->name);
	l->n++;
	return 0;
}

int cmd_list(int argc, char **argv)
{
	const char *prog = NULL, *kglob = NULL;
	int c, tracers = 0, options = 0, kevents = 0;
	char err[512];

	while ((c = getopt_long(argc, argv, "+:toeu:h", long_options, NULL)) != -1) {
		switch (c) {
		case 't':
			tracers = 1;
			break;
		case 'o':
			options = 1;
			break;
		case 'e':
			kevents = 1;
			/* an optional GLOB right after -e, as trace-cmd list -e REGEX */
			if (optind < argc && argv[optind][0] != '-')
				kglob = argv[optind++];
			break;
		case 'u':
			prog = optarg;
			break;
		case 'h':
			fputs(cmd_list_usage, stdout);
			return 0;
		default:
			ft_bad_option("list", c, argv);
		}
	}
	if (prog) {
		struct uev_list l = { optind < argc ? argv[optind++] : NULL, 0 };

		if (ft_uev_scan_file(prog, put_uevent, &l, err, sizeof(err)) < 0)
			ft_die("list: %s", err);
	}
	ft_no_operands("list", argc, argv, "see 'ftrail help list'");
	if (prog && !tracers && !options && !kevents)
		return 0;
	if (!tracers && !options && !kevents) {
		/* everything, under headings; kernel events only where readable */
		puts("tracers:");
		list_tracers();
		puts("\noptions:");
		list_options();
		puts("\nevents:");
		fflush(stdout);
		if (ft_kernel_events(NULL, put_kevent, NULL, err, sizeof(err)) < 0)
			printf("(%s)\n", err);
		return 0;
	}
	if (tracers)
		list_tracers();
	if (options)
		list_options();
	if (kevents) {
		int n = ft_kernel_events(kglob, put_kevent, NULL, err, sizeof(err));

		if (n < 0)
			ft_die("list: %s", err);
		if (n == 0 && kglob)
			ft_die("list: no kernel event matches '%s'", kglob);
	}
	return 0;
}
