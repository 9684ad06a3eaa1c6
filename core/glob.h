/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace's glob matching for function filters (set_ftrace_filter & co):
 *   "name"     exact match
 *   "prefix*"  "*suffix"  "*mid*"    the kernel's fast forms
 *   anything with ?, [...] or * elsewhere: a full glob ('?' one character,
 *   '[abc]' '[a-z]' '[!a-z]' a class, '\\x' a literal x)
 * Pure functions: no allocation, no state, safe in a signal handler.
 */
#ifndef FTRAIL_GLOB_H
#define FTRAIL_GLOB_H

#include <stddef.h>

/* 1 when str matches the whole of pattern pat (len bytes of it), else 0. */
int ft_glob_match_n(const char *pat, size_t len, const char *str);

/* Same with a NUL-terminated pattern. */
int ft_glob_match(const char *pat, const char *str);

/* 1 when pat contains glob metacharacters (*, ?, [). */
int ft_glob_is_glob(const char *pat, size_t len);

#endif
