/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The trace clock.  User records and kernel events share one timebase: the
 * TSC (rdtsc in the runtime, trace_clock "x86-tsc" in the kernel instance),
 * so they order on one clock without conversion at record time.  Readers turn
 * ticks into nanoseconds with the calibration stored in the trace file's META:
 *
 *   clock=x86-tsc
 *   tsc_mult=<u32>  tsc_shift=<u32>     ns = ((ticks - tsc_ref) * mult) >> shift
 *   tsc_ref=<u64 ticks>                 (ticks at the start of the recording)
 *   tsc_ref_ns=<u64>                    CLOCK_MONOTONIC ns at tsc_ref
 *
 * On machines without a usable TSC the clock is CLOCK_MONOTONIC ns
 * (clock=mono, mult 1, shift 0) -- the runtime then uses clock_gettime.
 */
#ifndef FTRAIL_CLOCK_H
#define FTRAIL_CLOCK_H

#include <stdint.h>

struct ft_clock {
	uint32_t mult;
	uint32_t shift;
	uint64_t ref_ticks;
	uint64_t ref_ns;
	int tsc; /* 1: TSC ticks, 0: CLOCK_MONOTONIC ns */
};

static inline uint64_t ft_rdtsc(void)
{
#if defined(__x86_64__)
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
#else
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + ts.tv_nsec;
#endif
}

/* Calibrate ticks -> ns against CLOCK_MONOTONIC (takes ~20 ms). */
void ft_clock_calibrate(struct ft_clock *c);

/* Ticks to ns on the calibrated clock (monotonic ns). */
static inline uint64_t ft_clock_ns(const struct ft_clock *c, uint64_t ticks)
{
	int64_t d = (int64_t)(ticks - c->ref_ticks);
	__int128 v = (__int128)d * c->mult;

	return c->ref_ns + (int64_t)(v >> c->shift);
}

/* Write the META lines above into buf; returns length. */
int ft_clock_meta(const struct ft_clock *c, char *buf, int len);

/* Read them back from a META lookup function; 0 or -1 when absent/bad. */
int ft_clock_from_meta(struct ft_clock *c, const char *(*get)(void *arg, const char *key),
		       void *arg);

#endif
