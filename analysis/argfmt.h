/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Captured arguments and return values as text: the items of an ENTRY's or
 * EXIT's data (core/argspec.h) with the names and enum types the
 * recording's specs give (ft_trace_argspec()).
 *
 *   integers        decimal (i*, u*), 0x-hex (x*, p); enums by name when the
 *                   recording knew the enumerators, else decimal
 *   chars, bools    'a', '\n', '\xc8';  true / false
 *   strings         "text" with C escapes, "text"... when cut at the cap;
 *                   (null) for NULL; 0xADDR(bad) when unreadable
 *   floats          %g
 *   structs         {...}(SIZE B)  (a struct passed by value is not copied)
 *
 * Arguments print as "name=value" joined by ", " (value alone for an
 * unnamed item, as uftrace prints -A values).
 */
#ifndef FTRAIL_ARGFMT_H
#define FTRAIL_ARGFMT_H

#include <stddef.h>
#include <stdint.h>

#include "analysis/trace.h"

struct ft_argfmt;

/*
 * The names of t's specs (none when it has no ARGSPEC section: values then
 * print unnamed).  NULL only when out of memory.  Tool side; one user at a
 * time.
 */
struct ft_argfmt *ft_argfmt_new(struct ft_trace *t);
void ft_argfmt_free(struct ft_argfmt *a);

/*
 * Format the arguments data/len of a call of fid into out (NUL-terminated,
 * cut to outlen).  Returns the length written, or -1 when the data is
 * malformed (out then says "<bad args>").
 */
int ft_argfmt_args(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, char *out,
		   size_t outlen);

/* The same for a return value (the first item of data). */
int ft_argfmt_retval(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, char *out,
		     size_t outlen);

/*
 * Visit each item: its name (may be ""), its register class and index
 * (core/argspec.h enum ft_arg_loc), and its value as text.  For exporters
 * and filters.  Returns 0, or -1 when the data is malformed.
 */
typedef void (*ft_argfmt_fn)(void *arg, const char *name, unsigned int loc, unsigned int idx,
			     const char *value, int64_t num, int is_num);
int ft_argfmt_each(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, int retval,
		   ft_argfmt_fn fn, void *arg);

#endif
