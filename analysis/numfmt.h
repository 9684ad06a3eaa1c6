/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Numbers to text without printf, for the readers' hot lines (show's
 * function_graph lines, export's JSON events): a trace prints millions of
 * them, and vfprintf's format parsing was the largest cost of both.
 */
#ifndef FTRAIL_NUMFMT_H
#define FTRAIL_NUMFMT_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The room ft_u64_digits() needs. */
#define FT_U64_DIGITS 20

/* Decimal digits of v written backwards, ending just before end; returns where they start. */
static inline char *ft_u64_digits(char *end, uint64_t v)
{
	do {
		*--end = (char)('0' + v % 10);
		v /= 10;
	} while (v);
	return end;
}

/* v in decimal at dst (no NUL); returns the length. */
static inline size_t ft_u64_dec(char *dst, uint64_t v)
{
	char buf[FT_U64_DIGITS], *p = ft_u64_digits(buf + sizeof(buf), v);
	size_t n = (size_t)(buf + sizeof(buf) - p);

	memcpy(dst, p, n);
	return n;
}

/* ns as "usecs.nnn" (microseconds with three decimals) at dst; returns the length. */
static inline size_t ft_ns_as_us(char *dst, uint64_t ns)
{
	size_t n = ft_u64_dec(dst, ns / 1000);
	unsigned int r = (unsigned int)(ns % 1000);

	dst[n] = '.';
	dst[n + 1] = (char)('0' + r / 100);
	dst[n + 2] = (char)('0' + r / 10 % 10);
	dst[n + 3] = (char)('0' + r % 10);
	return n + 4;
}

#endif
