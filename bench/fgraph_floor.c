// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of bench/fgraph_bench.sh: the least a function_graph hook can
 * do.  -finstrument-functions hooks that read the TSC at entry and at exit
 * and store 8 bytes each (16 bytes per call) into a per-thread buffer,
 * nothing else: no filtering, no shadow stack, no encoding.  Built with
 * -shared by the script and preloaded; the Makefile also links it as a
 * program, whose main() only says so.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>

/*
 * 1 MiB per thread, wrapping, pre-faulted: the size of ftrail's default
 * per-thread buffer, so both write into memory that stays in cache and
 * neither pays page faults in the timed loop.
 */
#define FLOOR_WORDS (1u << 17)

static __thread uint64_t *buf __attribute__((tls_model("initial-exec")));
static __thread uint32_t pos __attribute__((tls_model("initial-exec")));

static inline uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
	return ((uint64_t)hi << 32) | lo;
}

__attribute__((no_instrument_function)) static void floor_store(uint64_t v)
{
	if (__builtin_expect(!buf, 0)) {
		buf = mmap(NULL, FLOOR_WORDS * 8, PROT_READ | PROT_WRITE,
			   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (buf == MAP_FAILED)
			abort();
	}
	buf[pos++ & (FLOOR_WORDS - 1)] = v;
}

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
	floor_store(rdtsc());
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
	floor_store(rdtsc());
}

int main(void);
int main(void)
{
	puts("fgraph_floor: a hook library; bench/fgraph_bench.sh builds it with -shared");
	return 0;
}
