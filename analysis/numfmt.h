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

/* "00" to "99": two digits per division in ft_u64_digits(). */
static const char ft_digit_pairs[201] = "00010203040506070809101112131415161718192021222324"
					"25262728293031323334353637383940414243444546474849"
					"50515253545556575859606162636465666768697071727374"
					"75767778798081828384858687888990919293949596979899";

/* Decimal digits of v written backwards, ending just before end; returns where they start. */
static inline char *ft_u64_digits(char *end, uint64_t v)
{
	while (v >= 100) {
		unsigned int r = (unsigned int)(v % 100);

		v /= 100;
		end -= 2;
		memcpy(end, ft_digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		end -= 2;
		memcpy(end, ft_digit_pairs + 2 * v, 2);
	} else {
		*--end = (char)('0' + v);
	}
	return end;
}

/* 10^i for i in 0..19: ft_u64_len()'s table. */
static const uint64_t ft_pow10[20] = { 1ull,
				       10ull,
				       100ull,
				       1000ull,
				       10000ull,
				       100000ull,
				       1000000ull,
				       10000000ull,
				       100000000ull,
				       1000000000ull,
				       10000000000ull,
				       100000000000ull,
				       1000000000000ull,
				       10000000000000ull,
				       100000000000000ull,
				       1000000000000000ull,
				       10000000000000000ull,
				       100000000000000000ull,
				       1000000000000000000ull,
				       10000000000000000000ull };

/*
 * The number of decimal digits of v: from its bit length (log10(2) is
 * about 1233 / 4096), corrected by one comparison.  No loop: it is asked
 * for every number of an export.
 */
static inline size_t ft_u64_len(uint64_t v)
{
	unsigned int t = ((64u - (unsigned int)__builtin_clzll(v | 1)) * 1233u) >> 12;

	return t + 1 - ((v | 1) < ft_pow10[t]); /* v | 1: 0 has one digit */
}

/* v in decimal at dst (no NUL); returns the length. */
static inline size_t ft_u64_dec(char *dst, uint64_t v)
{
	/* count the digits, then write them in place: no copy of a variable length */
	size_t n = ft_u64_len(v);

	ft_u64_digits(dst + n, v);
	return n;
}

/* The n bytes of lit, then v in decimal, at dst ("\"at\":" 123); returns the end. */
static inline char *ft_lit_u64(char *dst, const char *lit, size_t n, uint64_t v)
{
	memcpy(dst, lit, n);
	return dst + n + ft_u64_dec(dst + n, v);
}

/* ns as "usecs.nnn" (microseconds with three decimals) at dst; returns the length. */
static inline size_t ft_ns_as_us(char *dst, uint64_t ns)
{
	unsigned int r = (unsigned int)(ns % 1000);
	size_t n = ft_u64_dec(dst, ns / 1000);

	dst[n] = '.';
	dst[n + 1] = (char)('0' + r / 100);
	memcpy(dst + n + 2, ft_digit_pairs + 2 * (r % 100), 2);
	return n + 4;
}

/*
 * A number's text kept for the next one: the timestamps of a trace come
 * in order, a few ns apart, and most share all but their last 4 digits
 * with the one before.  Zeroed: empty.
 */
struct ft_decmemo {
	uint64_t hi;  /* the kept number / 10000 */
	uint8_t len;  /* of txt; 0: nothing kept */
	char txt[23]; /* its digits (no NUL) */
};

/*
 * ft_u64_dec() through m: when v / 10000 is the kept number's, only its
 * last 4 digits are made.  dst must have room for 23 bytes (a fixed-size
 * copy), whatever v's length; returns the length.
 */
static inline size_t ft_u64_dec_memo(struct ft_decmemo *m, char *dst, uint64_t v)
{
	uint64_t hi = v / 10000;

	if (hi && m->len && hi == m->hi) {
		unsigned int lo = (unsigned int)(v % 10000);

		memcpy(m->txt + m->len - 4, ft_digit_pairs + 2 * (lo / 100), 2);
		memcpy(m->txt + m->len - 2, ft_digit_pairs + 2 * (lo % 100), 2);
	} else {
		m->len = (uint8_t)ft_u64_dec(m->txt, v);
		m->hi = hi;
	}
	memcpy(dst, m->txt, sizeof(m->txt));
	return m->len;
}

/* ft_ns_as_us() through m (see ft_u64_dec_memo()): dst needs room for 24 bytes. */
static inline size_t ft_ns_as_us_memo(struct ft_decmemo *m, char *dst, uint64_t ns)
{
	size_t n;
	char frac[3];

	if (ns < 10000)
		return ft_ns_as_us(dst, ns);
	n = ft_u64_dec_memo(m, dst, ns); /* at least 5 digits: "us" then 3 of ns */
	memcpy(frac, dst + n - 3, 3);
	dst[n - 3] = '.';
	memcpy(dst + n - 2, frac, 3);
	return n + 1;
}

#endif
