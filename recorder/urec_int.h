/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the user-space recorder (the files in recorder/). */
#ifndef FTRAIL_UREC_INT_H
#define FTRAIL_UREC_INT_H

#include <stddef.h>

/*
 * Resolve a program name like execvp would (a name with '/' as is, else
 * through $PATH) into out, checking it is an executable regular file.
 * Returns 0, or -1 with one line in err: "no such program: NAME",
 * "NAME is not executable: ...", "NAME is a directory, not a program".
 */
int urec_find_program(const char *name, char *out, size_t outlen, char *err, size_t errlen);

/*
 * Does the ELF file carry instrumentation the runtime can hook: references
 * to mcount/_mcount/__fentry__/__cyg_profile_func_enter, or an
 * __patchable_function_entries / __mcount_loc section?  1 yes, 0 no, -1
 * cannot tell (not ELF, e.g. a script; unreadable).
 */
int urec_elf_instrumented(const char *path);

/*
 * Is the ELF file statically linked (no PT_INTERP: LD_PRELOAD cannot load
 * the runtime into it)?  1 yes, 0 no, -1 cannot tell.
 */
int urec_elf_static(const char *path);

#endif
