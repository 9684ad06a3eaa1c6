// SPDX-License-Identifier: GPL-2.0
/*
 * The library of patch_storm.c, built twice (-DSTORM_K=2, -DSTORM_K=3) so
 * that the two copies alternate at the same address: same names, other
 * results.  storm_lib_entry(x) = STORM_K * x + 1, through three calls.
 */
#ifndef STORM_K
#define STORM_K 2
#endif
#define NOINLINE __attribute__((noinline))

volatile long storm_lib_sink;

NOINLINE long storm_lib_leaf(long x)
{
	storm_lib_sink++;
	return x * STORM_K;
}

NOINLINE long storm_lib_mid(long x)
{
	return storm_lib_leaf(x) + 1;
}

long storm_lib_k(void);
NOINLINE long storm_lib_k(void)
{
	return STORM_K;
}

long storm_lib_entry(long x);
NOINLINE long storm_lib_entry(long x)
{
	return storm_lib_mid(x);
}
