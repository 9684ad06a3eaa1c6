/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Entry points of the subcommands listed in commands.h (see its checklist).
 * Each cmd/<name>.c includes this header.
 */
#ifndef FTRAIL_BUILTIN_H
#define FTRAIL_BUILTIN_H

#define FTRAIL_CMD(n, s)                     \
	int cmd_##n(int argc, char **argv);  \
	extern const char cmd_##n##_usage[];
#include "cmd/commands.h"
#undef FTRAIL_CMD

/*
 * Report a getopt failure as one line and exit(1).  Use an optstring that
 * starts with ':' (after any '+'), and call it from the default case with
 * getopt's return value c ('?' unknown option, ':' missing argument).
 */
void ft_bad_option(const char *cmd, int c, char **argv) __attribute__((noreturn));

#endif
