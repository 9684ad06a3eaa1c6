/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Small helpers shared by the tool and its tests.
 *
 * Error layering (trace-cmd's habit): core/ and kernel/ functions return -1
 * (or NULL) and set errno or fill an error string; only the command-line tool
 * prints, through ft_die() / ft_warn(), one line on stderr prefixed "ftrail: ".
 * The injected runtime never uses these.
 */
#ifndef FTRAIL_UTIL_H
#define FTRAIL_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <stdnoreturn.h>

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))
#define FT_MIN(a, b) ((a) < (b) ? (a) : (b))
#define FT_MAX(a, b) ((a) > (b) ? (a) : (b))

/*
 * Format a one-line error into err[errlen] for the caller to print; a NULL
 * err or zero errlen is ignored.  The library half of the error layering.
 */
void ft_seterr(char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* Print "ftrail: <msg>" on stderr and exit(1).  Tool only. */
noreturn void ft_die(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/**
 * ft_die_file() - ft_die() for an error about the file @path
 * @path: the file the command read or wrote
 * @msg: a library's one-line reason, which may already quote "PATH: ..."
 *       (the file layer names the file in its messages, and readers wrap them)
 *
 * Prints "ftrail: PATH: MSG" naming the file once: every "PATH: " that starts
 * msg or follows a ": " in it is dropped first.  Tool only.
 */
noreturn void ft_die_file(const char *path, const char *msg);
/* Print "ftrail: warning: <msg>" on stderr.  Tool only. */
void ft_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Allocation that cannot fail: dies with "out of memory".  Tool only. */
void *ft_malloc(size_t n);
void *ft_calloc(size_t nmemb, size_t n);
void *ft_realloc(void *p, size_t n);
char *ft_strdup(const char *s);

/**
 * ft_grow() - room for @need elements in an array that doubles as it grows
 * @p:     the array (NULL while *@cap is 0)
 * @cap:   its capacity in elements, updated when it grows
 * @need:  how many elements it must hold
 * @size:  the size of one element
 * @first: the capacity of its first allocation
 *
 * Like realloc(), the array may move.  By hand, as git's ALLOC_GROW: libc
 * has no growth policy, and the tool's readers must fail softly, not die.
 * Return: the array, or NULL with errno ENOMEM (@p and *@cap as they were)
 * when the size overflows or memory runs out.
 */
void *ft_grow(void *p, size_t *cap, size_t need, size_t size, size_t first);

/*
 * FT_GROW(p, cap, need, first): ft_grow() on the array pointer @p and its
 * size_t capacity @cap, updated in place.  0, or -1 (ENOMEM, nothing changed).
 */
#define FT_GROW(p, cap, need, first)                                                               \
	({                                                                                         \
		void *grown_ = ft_grow((p), &(cap), (need), sizeof(*(p)), (first));                \
		grown_ ? ((p) = grown_, 0) : -1;                                                   \
	})

struct stat;

/*
 * Open path read-only (close-on-exec) as a regular file, for readers of
 * files whose paths may come from hostile input: never blocks on a FIFO,
 * never acquires a terminal, refuses devices and directories.  Returns the
 * fd with *st filled, or -1 with "PATH: reason" or "PATH: not a regular
 * file" in err (nothing left open).
 */
int ft_open_regular(const char *path, struct stat *st, char *err, size_t errlen);

/* Monotonic nanoseconds (CLOCK_MONOTONIC). */
uint64_t ft_now_ns(void);

/* Parse an unsigned decimal/hex integer in [min,max]; -1 on junk or range. */
int ft_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out);

/* Is this the --help/-h flag? */
int ft_is_help(const char *arg);

#endif
