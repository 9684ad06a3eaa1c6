// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of the ring buffer's write path (core/ringbuf.h), per function call
 * (one entry + one exit record), side by side with peers measured in the
 * same run:
 *
 *   floor       two TSC reads and a 16-byte store per call into a big
 *               array (the floor hook's storage part)
 *   ringbuf     ft_rb_entry + ft_rb_exit at the current TSC, producer/
 *               consumer mode, a reader thread consuming pages as they
 *               fill (the recorder's job), so nothing is lost
 *   overwrite   the same in overwrite mode with no reader at all
 *   nested      the same as ringbuf, each write made from inside a begin/
 *               end pair of level 0 (as from a signal handler: level 1)
 *
 * Prints ns/call, the ratio to the floor, and the buffer bytes per call
 * (two records, page headers included) of what the reader got.  Timings on a busy machine
 * are noisy: the best of several rounds is kept; compare ratios within one
 * run only.
 *
 *   build/bench/ringbuf_bench [calls]     (default 5000000)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "core/clock.h"
#include "core/ringbuf.h"

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

struct ctx {
	struct ft_rb_area *a;
	int stop;
	uint64_t read_bytes, read_events;
};

static void *reader(void *arg)
{
	struct ctx *c = arg;
	struct ft_rb_pageinfo info;
	char *page = malloc(c->a->page_size);
	int fin = 0;

	for (;;) {
		int got = 0, st = __atomic_load_n(&c->stop, __ATOMIC_ACQUIRE);

		for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
			while (ft_rb_consume(c->a, 0, l, st, page, &info) == 1) {
				c->read_bytes += info.len;
				c->read_events += info.nev;
				got = 1;
			}
		if (st) {
			if (fin++)
				break;
			continue;
		}
		if (!got)
			ft_rb_wait(c->a, 1);
	}
	free(page);
	return NULL;
}

/* One timed run; returns ns per call and the buffer bytes per call. */
static double run(const char *mode, long calls, double *bpc)
{
	struct ft_rb_params p;
	struct ft_rb_thread t;
	struct ctx c = { 0 };
	pthread_t rd;
	size_t len;
	void *mem;
	uint64_t t0, t1;
	int overwrite = !strcmp(mode, "overwrite"), nested = !strcmp(mode, "nested");

	ft_rb_params_default(&p, 1024, overwrite);
	p.nr_slots = 1;
	len = ft_rb_area_size(&p);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		exit(1);
	c.a = ft_rb_area_init(mem, len, &p);
	ft_rb_thread_attach(&t, c.a, 1, 1);
	if (!overwrite)
		pthread_create(&rd, NULL, reader, &c);
	t0 = now_ns();
	for (long i = 0; i < calls; i++) {
		if (nested)
			ft_rb_begin(&t);
		ft_rb_entry(&t, (uint32_t)(i & 1023), ft_rdtsc());
		ft_rb_exit(&t, ft_rdtsc());
		if (nested)
			ft_rb_end(&t);
	}
	t1 = now_ns();
	if (!overwrite) {
		__atomic_store_n(&c.stop, 1, __ATOMIC_RELEASE);
		pthread_join(rd, NULL);
		/* per call = 2 records read (records the reader was too slow for are dropped) */
		*bpc = c.read_events ? 2.0 * (double)c.read_bytes / (double)c.read_events : 0;
	} else {
		*bpc = 0; /* pages overwritten unread: see the ringbuf line for the size */
	}
	munmap(mem, len);
	return (double)(t1 - t0) / (double)calls;
}

static double floor_run(long calls)
{
	size_t n = 1u << 20; /* 16 MiB, wraps: stays in memory, not in cache */
	uint64_t(*buf)[2] = malloc(n * sizeof(*buf)), t0, t1;

	t0 = now_ns();
	for (long i = 0; i < calls; i++) {
		uint64_t a = ft_rdtsc(), b = ft_rdtsc();

		buf[i & (n - 1)][0] = a;
		buf[i & (n - 1)][1] = b;
		__asm__ volatile("" ::"r"(buf) : "memory");
	}
	t1 = now_ns();
	free(buf);
	return (double)(t1 - t0) / (double)calls;
}

int main(int argc, char **argv)
{
	long calls = argc > 1 ? atol(argv[1]) : 5000000;
	const char *modes[] = { "ringbuf", "overwrite", "nested" };
	double best[4] = { 1e9, 1e9, 1e9, 1e9 }, bpc[4] = { 0 };

	for (int round = 0; round < 5; round++) {
		double v = floor_run(calls), b;

		if (v < best[0])
			best[0] = v;
		for (int m = 0; m < 3; m++) {
			v = run(modes[m], calls, &b);
			if (v < best[m + 1]) {
				best[m + 1] = v;
				bpc[m + 1] = b;
			}
		}
	}
	printf("%-10s %10s %8s %14s\n", "mode", "ns/call", "x floor", "buffer B/call");
	printf("%-10s %10.2f %8.2f %14s\n", "floor", best[0], 1.0, "16.00");
	for (int m = 0; m < 3; m++) {
		if (bpc[m + 1] > 0)
			printf("%-10s %10.2f %8.2f %14.2f\n", modes[m], best[m + 1],
			       best[m + 1] / best[0], bpc[m + 1]);
		else
			printf("%-10s %10.2f %8.2f %14s\n", modes[m], best[m + 1],
			       best[m + 1] / best[0], "-");
	}
	return 0;
}
