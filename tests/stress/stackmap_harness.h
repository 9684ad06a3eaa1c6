/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the stack map stress tests with threads share (stackmap_threads.c,
 * stackmap_mixed.c): a table of NSTACKS synthetic stacks whose innermost
 * frame STACK_BASE + 4 * i names stack i, the check that a stack someone
 * read back is one of them, whole, a reset round as a controller between
 * "tracing sessions" makes it, and the scale knob.
 *
 * The including file defines STRESS_NAME (for messages), NSTACKS and
 * STACK_BASE first, and fills stacks[]/depths[] itself.
 */
#ifndef FTRAIL_TEST_STACKMAP_HARNESS_H
#define FTRAIL_TEST_STACKMAP_HARNESS_H

#include <errno.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "core/stackmap.h"

static uint64_t stacks[NSTACKS][FT_STACKMAP_MAX_DEPTH];
static uint32_t depths[NSTACKS];
static struct ft_stackmap *map;
static atomic_int tracing_on;

#define die(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, STRESS_NAME ": " __VA_ARGS__);                                     \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

static uint64_t xorshift(uint64_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 7;
	*s ^= *s << 17;
	return *s;
}

/* 1 when ips/nr is one of the generated stacks, whole. */
static int is_known(const uint64_t *ips, uint32_t nr)
{
	uint32_t i = (uint32_t)((ips[0] - STACK_BASE) / 4);

	return ips[0] >= STACK_BASE && i < NSTACKS && depths[i] == nr &&
	       !memcmp(stacks[i], ips, nr * sizeof(*ips));
}

/* The map's view of tracing: the controller's flag. */
static int is_tracing(void *arg)
{
	(void)arg;
	return atomic_load(&tracing_on);
}

/*
 * One round of the controller: after a nap of us microseconds, stop
 * tracing, reset the map with callers possibly still inside get_id, and
 * start again; counts a reset done or refused (-EBUSY), dies on any other
 * answer.
 */
static void reset_round(long us, long *resets, long *busy)
{
	struct timespec nap = { 0, us * 1000 };
	int ret;

	nanosleep(&nap, NULL);
	atomic_store(&tracing_on, 0);
	/* no wait: callers that saw tracing on are still inside get_id */
	ret = ft_stackmap_reset(map);
	if (ret == 0)
		(*resets)++;
	else if (ret == -EBUSY)
		(*busy)++;
	else
		die("reset returned %d", ret);
	atomic_store(&tracing_on, 1);
}

/* FTRAIL_STRESS_SCALE, a positive float (default 1). */
static double stress_scale(void)
{
	const char *env = getenv("FTRAIL_STRESS_SCALE");
	double scale = env ? atof(env) : 1.0;

	return scale > 0 ? scale : 1.0;
}

/* FTRAIL_TEST_ISA=base: run as a CPU without AVX2 would (tests/run.sh) */
static void stress_isa(void)
{
	const char *isa = getenv("FTRAIL_TEST_ISA");

	if (isa && !strcmp(isa, "base"))
		ft_stackmap_use_avx2(0);
}

#endif
