/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry points of the subcommands listed in commands.h (see its checklist).
 * Each cmd/<name>.c includes this header.
 */
#ifndef FTRAIL_BUILTIN_H
#define FTRAIL_BUILTIN_H

#define FTRAIL_CMD(n, s)                                                                           \
	int cmd_##n(int argc, char **argv);                                                        \
	extern const char cmd_##n##_usage[];
#include "cmd/commands.h"
#undef FTRAIL_CMD

/*
 * Report a getopt failure as one line and exit(1).  Use an optstring that
 * starts with ':' (after any '+'), and call it from the default case with
 * getopt's return value c ('?' unknown option, ':' missing argument).
 */
void ft_bad_option(const char *cmd, int c, char **argv) __attribute__((noreturn));

/*
 * The default case of a reader's getopt loop: the options every reader
 * takes (--demangle, --no-demangle) are applied and it returns; anything else goes to
 * ft_bad_option() (one line, exit(1)).
 */
void ft_shared_option(const char *cmd, int c, char **argv);

/*
 * After the options of a command that takes no operand: an operand left
 * at argv[optind] is one line, "CMD: unexpected argument 'ARG' (HINT)",
 * and exit(1).
 */
void ft_no_operands(const char *cmd, int argc, char **argv, const char *hint);

/*
 * --format NAME (-F NAME), the one way every command chooses its output.
 * names: the command's formats, NULL-terminated; cur: the format chosen so
 * far, or -1.  Returns name's index.  An unknown name, or a second format
 * other than cur, is one line on stderr and exit(1).
 */
int ft_format_choose(const char *cmd, const char *name, const char *const *names, int cur);

/*
 * An old spelling of --format (--folded, --html, --json, ...): warns once
 * on stderr that it is deprecated, then chooses as ft_format_choose().
 */
int ft_format_deprecated(const char *cmd, const char *old, const char *name,
			 const char *const *names, int cur);

/*
 * --demangle=simple|full|no and --no-demangle, for every command that prints
 * user symbols: their getopt entries, their case values (ft_shared_option()
 * takes them) and help lines.
 */
#define FT_OPT_NO_DEMANGLE 0x4e444d /* "NDM": apart from every command's own values */
#define FT_OPT_DEMANGLE 0x444d47    /* "DMG" */
#define FT_NO_DEMANGLE_LONGOPT                                                                     \
	{ "no-demangle", no_argument, NULL, FT_OPT_NO_DEMANGLE },                                  \
	{                                                                                          \
		"demangle", required_argument, NULL, FT_OPT_DEMANGLE                               \
	}
/* pad: the spaces that put the text in the command's description column */
#define FT_NO_DEMANGLE_HELP(pad)                                                                   \
	"  --no-demangle" pad "C++ names as stored (mangled): --demangle=no\n"                     \
	"  --demangle=simple|full|no\n"                                                            \
	"               " pad "C++ names as uftrace prints them: simple (the default)\n"           \
	"               " pad "drops template arguments and parameters, full keeps both\n"

#endif
