// SPDX-License-Identifier: GPL-2.0
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "core/clock.h"

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/*
 * Pair a TSC read with CLOCK_MONOTONIC twice, 20 ms apart, taking at each end
 * the tightest of a few bracketing reads.  The resulting mult/shift gives
 * ns = ticks * mult >> shift with shift chosen so mult keeps ~31 bits.
 */
void ft_clock_calibrate(struct ft_clock *c)
{
	uint64_t t0 = 0, n0 = 0, t1 = 0, n1 = 0, best;
	struct timespec d = { 0, 20 * 1000 * 1000 };

#if !defined(__x86_64__)
	c->tsc = 0;
	c->mult = 1;
	c->shift = 0;
	c->ref_ticks = c->ref_ns = mono_ns();
	return;
#endif
	for (int end = 0; end < 2; end++) {
		best = UINT64_MAX;
		for (int i = 0; i < 8; i++) {
			uint64_t a = ft_rdtsc(), n = mono_ns(), b = ft_rdtsc();

			if (b - a < best) {
				best = b - a;
				if (end) {
					t1 = a + (b - a) / 2;
					n1 = n;
				} else {
					t0 = a + (b - a) / 2;
					n0 = n;
				}
			}
		}
		if (!end)
			nanosleep(&d, NULL);
	}
	c->tsc = 1;
	c->ref_ticks = t0;
	c->ref_ns = n0;
	/* ns per tick = (n1-n0)/(t1-t0); scale by 2^shift keeping mult < 2^31 */
	c->shift = 31;
	while (c->shift > 0) {
		unsigned __int128 m = ((unsigned __int128)(n1 - n0) << c->shift) / (t1 - t0);

		if (m < (1ull << 31)) {
			c->mult = (uint32_t)m;
			break;
		}
		c->shift--;
	}
}

int ft_clock_meta(const struct ft_clock *c, char *buf, int len)
{
	return snprintf(buf, len,
			"clock=%s\ntsc_mult=%u\ntsc_shift=%u\ntsc_ref=%llu\ntsc_ref_ns=%llu\n",
			c->tsc ? "x86-tsc" : "mono", c->mult, c->shift,
			(unsigned long long)c->ref_ticks, (unsigned long long)c->ref_ns);
}

int ft_clock_from_meta(struct ft_clock *c, const char *(*get)(void *arg, const char *key),
		       void *arg)
{
	const char *clk = get(arg, "clock"), *m = get(arg, "tsc_mult"), *s = get(arg, "tsc_shift");
	const char *r = get(arg, "tsc_ref"), *rn = get(arg, "tsc_ref_ns");

	if (!clk || !m || !s || !r || !rn)
		return -1;
	c->tsc = clk[0] == 'x';
	c->mult = (uint32_t)strtoul(m, NULL, 10);
	c->shift = (uint32_t)strtoul(s, NULL, 10);
	c->ref_ticks = strtoull(r, NULL, 10);
	c->ref_ns = strtoull(rn, NULL, 10);
	if (c->shift > 63 || !c->mult)
		return -1;
	return 0;
}
