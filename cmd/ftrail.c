// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail: the command-line tool.  Dispatches to cmd/<name>.c through the
 * table in commands.h.  Only the tool prints and exits; core/ returns codes.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "core/symbols.h"
#include "core/util.h"
#include "core/version.h"

struct ftrail_cmd {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *usage;
	const char *summary;
};

static const struct ftrail_cmd commands[] = {
#define FTRAIL_CMD(n, s) { #n, cmd_##n, cmd_##n##_usage, s },
#include "cmd/commands.h"
#undef FTRAIL_CMD
};

void ft_bad_option(const char *cmd, int c, char **argv)
{
	const char *arg = argv[optind - 1];

	if (c == ':') {
		/* a long option whose value is its short letter: name it as given */
		if (optopt > ' ' && optopt < 127 && strncmp(arg, "--", 2))
			ft_die("%s: option '-%c' needs an argument", cmd, optopt);
		ft_die("%s: option '%s' needs an argument", cmd, arg);
	}
	if (optopt > ' ' && optopt < 127)
		ft_die("%s: unknown option '-%c' (see 'ftrail help %s')", cmd, optopt, cmd);
	ft_die("%s: unknown option '%s' (see 'ftrail help %s')", cmd, arg, cmd);
}

void ft_shared_option(const char *cmd, int c, char **argv)
{
	static const struct {
		const char *name;
		enum ft_demangle mode;
	} modes[] = { { "simple", FT_DEMANGLE_SIMPLE },
		      { "full", FT_DEMANGLE_FULL },
		      { "no", FT_DEMANGLE_NO } };

	if (c == FT_OPT_NO_DEMANGLE) {
		ft_symbols_set_demangle(FT_DEMANGLE_NO);
		return;
	}
	if (c != FT_OPT_DEMANGLE)
		ft_bad_option(cmd, c, argv);
	for (size_t i = 0; i < ARRAY_SIZE(modes); i++)
		if (!strcmp(optarg, modes[i].name)) {
			ft_symbols_set_demangle(modes[i].mode);
			return;
		}
	ft_die("%s: --demangle wants simple, full or no, not '%s'", cmd, optarg);
}

void ft_no_operands(const char *cmd, int argc, char **argv, const char *hint)
{
	if (optind < argc)
		ft_die("%s: unexpected argument '%s' (%s)", cmd, argv[optind], hint);
}

int ft_format_choose(const char *cmd, const char *name, const char *const *names, int cur)
{
	char list[256] = "";
	size_t len = 0;
	int i;

	for (i = 0; names[i]; i++)
		if (!strcmp(names[i], name))
			break;
	if (!names[i]) {
		for (int j = 0; names[j]; j++)
			len += (size_t)snprintf(list + len, sizeof(list) - len, "%s%s",
						j ? (names[j + 1] ? ", " : " or ") : "", names[j]);
		ft_die("%s: unknown format '%s' (%s)", cmd, name, list);
	}
	if (cur >= 0 && cur != i)
		ft_die("%s: two output formats, %s and %s: give one --format", cmd, names[cur],
		       names[i]);
	return i;
}

int ft_format_deprecated(const char *cmd, const char *old, const char *name,
			 const char *const *names, int cur)
{
	ft_warn("%s: %s is deprecated, use --format %s", cmd, old, name);
	return ft_format_choose(cmd, name, names, cur);
}

static const struct ftrail_cmd *find_cmd(const char *name)
{
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		if (!strcmp(commands[i].name, name))
			return &commands[i];
	return NULL;
}

static void usage(FILE *f)
{
	fprintf(f,
		"usage: ftrail <command> [options]\n\n"
		"ftrace's design for any Linux program, with kernel events in the same trace.\n\n"
		"commands:\n");
	for (size_t i = 0; i < ARRAY_SIZE(commands); i++)
		fprintf(f, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(f, "  %-10s %s\n", "help", "describe a command: ftrail help <command>");
	fprintf(f, "  %-10s %s\n", "version", "print the version");
	fprintf(f, "\nThe default trace file is ./ftrail.dat (-o for record, -i for readers).\n");
}

/* ftrail's name for a command of uftrace's that ftrail names otherwise, or NULL */
static const char *peer_command(const char *name)
{
	static const char *const peers[][2] = { { "replay", "show" }, { "live", "stream" } };

	for (size_t i = 0; i < ARRAY_SIZE(peers); i++)
		if (!strcmp(name, peers[i][0]))
			return peers[i][1];
	return NULL;
}

static int cmd_help(int argc, char **argv)
{
	const struct ftrail_cmd *c;

	if (argc < 2) {
		usage(stdout);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c && peer_command(argv[1]))
		ft_die("no such command '%s'; the nearest is 'ftrail %s'", argv[1],
		       peer_command(argv[1]));
	if (!c)
		ft_die("no such command '%s' (try 'ftrail help')", argv[1]);
	fputs(c->usage, stdout);
	return 0;
}

int main(int argc, char **argv)
{
	const struct ftrail_cmd *c;

	if (argc < 2) {
		usage(stderr);
		return 1;
	}
	if (!strcmp(argv[1], "help") || ft_is_help(argv[1]))
		return cmd_help(argc - 1, argv + 1);
	if (!strcmp(argv[1], "version") || !strcmp(argv[1], "--version")) {
		printf("ftrail %s\n", FTRAIL_VERSION);
		return 0;
	}
	c = find_cmd(argv[1]);
	if (!c && peer_command(argv[1]))
		ft_die("'%s' is not an ftrail command; the nearest is 'ftrail %s' (try 'ftrail "
		       "help %s')",
		       argv[1], peer_command(argv[1]), peer_command(argv[1]));
	if (!c)
		ft_die("'%s' is not an ftrail command (try 'ftrail help')", argv[1]);
	if (argc > 2 && ft_is_help(argv[2])) {
		fputs(c->usage, stdout);
		return 0;
	}
	return c->fn(argc - 1, argv + 1);
}
