/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Event filters with ftrace's grammar (events/<sys>/<event>/filter):
 *
 *   expr  := and ( "||" and )*
 *   and   := unary ( "&&" unary )*           && binds tighter than ||, as in C
 *   unary := "!" unary | "(" expr ")" | pred
 *   pred  := FIELD op VALUE
 *   op    := == | != | < | <= | > | >=       numbers (and == != on strings)
 *          | &                               bit test: (field & VALUE) != 0
 *          | ~                               glob on strings: * ? [...] \x
 *   VALUE := integer (decimal, 0x hex, 0 octal, optional -) | "string" |
 *            'string' | bare word (a string, for string fields)
 *
 * String fields are FTRAIL_T_STRING and FTRAIL_T_BYTES (data_loc) and
 * FTRAIL_T_ARRAY (fixed char array, compared up to its first NUL).  Every
 * other type is a number, signed or not as the field says.
 *
 * A filter compiles to a postfix program (predicates, AND, OR, NOT) that
 * ft_filter_match() runs on a record without allocating, locking or making
 * system calls: it may run in the traced program's hot path and in signal
 * handlers.  Compilation allocates and is meant for setup time.
 *
 * Errors name the 0-based byte offset where they were found (the kernel's
 * error_log caret column): ft_filter_compile() fills a struct ft_filter_err
 * and ft_filter_strerror() renders it as one line, or error_log-like with
 * the command and a caret line under it.
 */
#ifndef FTRAIL_FILTER_H
#define FTRAIL_FILTER_H

#include <stddef.h>
#include <stdint.h>

#include <ftrail/ftrail.h>

#define FT_FILTER_MAX_PREDS 64 /* predicates in one filter */
#define FT_FILTER_MAX_DEPTH 32 /* parentheses / ! nesting */
#define FT_FILTER_MAX_STR 256  /* bytes of one string literal */

enum ft_filter_errkind {
	FT_FERR_SYNTAX = 1, /* malformed expression */
	FT_FERR_FIELD,	    /* unknown field */
	FT_FERR_TYPE,	    /* operator or value not valid for the field's type */
	FT_FERR_LIMIT,	    /* too many predicates, too deep, literal too long */
	FT_FERR_NOMEM,
};

struct ft_filter_err {
	int kind;      /* enum ft_filter_errkind, 0 = no error */
	int pos;       /* 0-based offset in the expression */
	char msg[160]; /* what is wrong, without the position */
};

struct ft_filter;

/*
 * Compile expr against the event's fields (nr entries).  Returns the filter,
 * to be freed with ft_filter_free(), or NULL with err filled.  An empty or
 * blank expression is an error ("empty filter"): no filter is written as
 * no -f at all.
 */
struct ft_filter *ft_filter_compile(const char *expr, const struct ftrail_field *fields, size_t nr,
				    struct ft_filter_err *err);

void ft_filter_free(struct ft_filter *f);

/*
 * Check the syntax alone, before the event's fields are known (any word is
 * taken as a field, no type checks): 0, or -1 with err filled.
 */
int ft_filter_check_syntax(const char *expr, struct ft_filter_err *err);

/*
 * 1 when the record (len bytes, laid out as the fields say; data_loc words
 * point inside it) passes the filter, 0 otherwise.  A field outside len or a
 * data_loc pointing outside the record compares as 0 / the empty string.
 * Async-signal-safe, no allocation.
 */
int ft_filter_match(const struct ft_filter *f, const void *rec, size_t len);

/*
 * Render err for expr into buf.  multiline = 0: one line,
 *   "syntax error at position 12: expected a value after '=='"
 * multiline = 1: that line, then "  Command: <expr>" and a caret line
 * under the position (the kernel's error_log layout).  Returns buf.
 */
char *ft_filter_strerror(const char *expr, const struct ft_filter_err *err, int multiline,
			 char *buf, size_t len);

/* The expression the filter was compiled from. */
const char *ft_filter_text(const struct ft_filter *f);

/*
 * Glob match used by "~" (exported for its tests and for show-time
 * filters): pat is NUL-terminated, str has slen bytes (need not be
 * NUL-terminated).  '*' any run, '?' one byte, '[a-z]' '[!a-z]' a class,
 * '\x' a literal x.  Returns 1 on a whole-string match.
 */
int ft_filter_glob(const char *pat, const char *str, size_t slen);

#endif
