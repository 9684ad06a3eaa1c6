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

/*
 * ft_mod_name() - the :mod: name of an object (GLOB:mod:MODULE): its
 * basename up to ".so" ("/usr/lib/libfoo.so.1" -> "libfoo", "prog" ->
 * "prog"), from path_len bytes of path.  The rules' module texts go
 * through it too, so "libfoo", "libfoo.so" and "libfoo.so.1.2" all name
 * the same object.  dst gets at most len - 1 characters and a NUL.  The
 * runtime and the live mount name modules with it alike.
 */
void ft_mod_name(char *dst, size_t len, const char *path, size_t path_len);

/*
 * ft_glob_sep() - the ':' that ends the function glob of a filter line
 * ("GLOB:mod:MODULE", "GLOB:COMMAND[:COUNT]", "FUNC: EXPR"), or NULL when
 * there is none.  A "::" belongs to the glob, so C++ names select as they
 * print ("ns::Cls::f:traceoff", "ns::*:mod:libfoo").
 */
const char *ft_glob_sep(const char *s);

#endif
