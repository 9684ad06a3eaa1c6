/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Capture specs for -O funcgraph-args / funcgraph-retval: from the
 * program's DWARF (elfutils libdw), the parameters of every function it
 * defines with their names and types, and the well-known libc functions'
 * prototypes for library calls.  Lines in core/argspec.h's grammar, plus
 * "#enum NAME V=NAME,..." lines that let readers print enums by name.
 */
#ifndef FTRAIL_ARGDWARF_H
#define FTRAIL_ARGDWARF_H

#include "core/opts.h"

#define FT_ARGDWARF_ARGS 1
#define FT_ARGDWARF_RET 2

/**
 * ft_argdwarf_specs() - spec lines from a program's DWARF
 * @prog: the program as given to record (resolved through $PATH)
 * @what: FT_ARGDWARF_ARGS and/or FT_ARGDWARF_RET
 * @out: lines are appended here
 *
 * The program's own libraries (found through its DT_RUNPATH / DT_RPATH or
 * LD_LIBRARY_PATH) are read too; libraries dlopen()ed later are not.
 * Tool side.  Functions whose parameters cannot all be placed (a small
 * struct mixing integer and floating fields, more than six integer
 * registers) get the parameters before that one.  Return: the number of
 * functions described (0: the file has no DWARF), or -1 with a reason in
 * err (the file cannot be read).
 */
int ft_argdwarf_specs(const char *prog, int what, struct ft_strv *out, char *err, size_t errlen);

/**
 * ft_argdwarf_libc() - spec lines for well-known libc functions
 * @what: FT_ARGDWARF_ARGS and/or FT_ARGDWARF_RET
 * @out: lines are appended here
 *
 * Their standard prototypes (open, read, write, malloc, free, strcmp...),
 * as uftrace's auto-args, for library calls.  Cannot fail.
 */
void ft_argdwarf_libc(int what, struct ft_strv *out);

#endif
