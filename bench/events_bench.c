// SPDX-License-Identifier: GPL-2.0
/*
 * Cost of a user trace event (include/ftrail/ftrail.h), in ns per call,
 * side by side with its peers measured in the same run:
 *
 *   loop        the loop alone (the arguments computed, nothing called)
 *   call        a plain non-inlined function call with the same arguments
 *   disabled    ftrail_trace() of a disabled event
 *   lttng       LTTng-UST lttng_ust_tracepoint() with no session (disabled),
 *               when <lttng/tracepoint.h> is installed (liblttng-ust-dev)
 *   enabled/nop ftrail_trace() of an enabled event whose write hook returns
 *               at once: the emitter alone (record built, indirect call)
 *   enabled     the runtime's write path: id stamped, record written into a
 *               real ring buffer (core/ringbuf.c, overwrite mode) with its
 *               timestamp, as runtime/events.c does
 *   filtered    the same with a filter 'a > 5 && b != 3' (passes)
 *   rejected    the same with a filter that rejects ('a == 0')
 *
 * Prints ns/call and the ratio to `loop` and to `call`.  Timings on a busy
 * machine are noisy: the best of several rounds is kept, and only the
 * ratios within one run are meant to be compared.
 *
 *   build/bench/events_bench [iterations]     (default 20000000)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <ftrail/ftrail.h>

#include "core/clock.h"
#include "core/filter.h"
#include "core/ringbuf.h"

#if defined(__has_include)
#if __has_include(<lttng/tracepoint.h>)
#define HAVE_LTTNG 1
#define LTTNG_UST_TRACEPOINT_DEFINE
#define LTTNG_UST_TRACEPOINT_PROBE_DYNAMIC_LINKAGE
#include "bench/events_tp.h"
#endif
#endif

FTRAIL_EVENT(bench, ev, (u32, a), (u32, b));

static struct ft_rb_thread rbt;
static struct ft_filter *filter;

__attribute__((noinline)) static void plain_call(unsigned int a, unsigned int b)
{
	__asm__ volatile("" ::"r"(a), "r"(b) : "memory");
}

static void hook_nop(struct ftrail_event *ev, void *rec, uint32_t len)
{
	(void)ev;
	__asm__ volatile("" ::"r"(rec), "r"(len) : "memory");
}

/* What runtime/events.c's hook does on its common path. */
static void hook_ring(struct ftrail_event *ev, void *rec, uint32_t len)
{
	memcpy(rec, &ev->id, 4);
	if (filter && !ft_filter_match(filter, rec, len))
		return;
	ft_rb_ext(&rbt, FT_EXT_EVENT, rec, len, ft_rdtsc(), 1, 1);
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

enum {
	V_LOOP,
	V_CALL,
	V_DISABLED,
	V_LTTNG,
	V_NOP,
	V_RING,
	V_FILTERED,
	V_REJECTED,
	V_NR
};
static const char *const names[V_NR] = {
	"loop",	       "call",	  "disabled", "lttng (disabled)",
	"enabled/nop", "enabled", "filtered", "rejected",
};

__attribute__((noinline)) static double run(int v, unsigned long n)
{
	double t0 = now_ns();

	switch (v) {
	case V_LOOP:
		for (unsigned long i = 0; i < n; i++)
			__asm__ volatile("" ::"r"((unsigned int)i), "r"((unsigned int)i * 3)
					 : "memory");
		break;
	case V_CALL:
		for (unsigned long i = 0; i < n; i++)
			plain_call((unsigned int)i, (unsigned int)i * 3);
		break;
	case V_LTTNG:
#ifdef HAVE_LTTNG
		for (unsigned long i = 0; i < n; i++) {
			lttng_ust_tracepoint(ftbench, ev, (unsigned int)i, (unsigned int)i * 3);
			__asm__ volatile("" ::: "memory");
		}
#endif
		break;
	default:
		for (unsigned long i = 0; i < n; i++) {
			ftrail_trace(bench, ev, (unsigned int)i, (unsigned int)i * 3);
			__asm__ volatile("" ::: "memory");
		}
		break;
	}
	return (now_ns() - t0) / (double)n;
}

static void setup(int v)
{
	struct ftrail_event *d = &ftrail__desc_bench__ev;
	struct ft_filter_err fe;

	ft_filter_free(filter);
	filter = NULL;
	d->id = 1;
	switch (v) {
	case V_DISABLED:
		d->enabled = 0;
		break;
	case V_NOP:
		d->write = hook_nop;
		d->enabled = 1;
		break;
	case V_RING:
	case V_FILTERED:
	case V_REJECTED:
		d->write = hook_ring;
		d->enabled = 1;
		if (v != V_RING) {
			filter = ft_filter_compile(v == V_FILTERED ? "a > 5 && b != 3" : "a == 0",
						   d->fields, d->nr_fields, &fe);
			if (!filter) {
				fprintf(stderr, "events_bench: filter: %s\n", fe.msg);
				exit(1);
			}
		}
		break;
	default:
		d->enabled = 0;
		break;
	}
}

int main(int argc, char **argv)
{
	unsigned long n = argc > 1 ? strtoul(argv[1], NULL, 0) : 20000000ul;
	double best[V_NR];
	struct ft_rb_params p;
	struct ft_rb_totals tot;
	size_t sz;
	void *mem;

	if (!n)
		n = 1;
	ft_rb_params_default(&p, 1024, 1);
	p.nr_slots = 8;
	sz = ft_rb_area_size(&p);
	mem = aligned_alloc(4096, sz); /* the area wants 64-byte alignment; sz is a page multiple */
	if (mem)
		memset(mem, 0, sz);
	if (!mem || !ft_rb_area_init(mem, sz, &p) ||
	    ft_rb_thread_attach(&rbt, (struct ft_rb_area *)mem, 1, 1)) {
		fprintf(stderr, "events_bench: cannot set up a ring buffer\n");
		return 1;
	}
	for (int v = 0; v < V_NR; v++)
		best[v] = 1e30;
	for (int round = 0; round < 5; round++)
		for (int v = 0; v < V_NR; v++) {
			double t;

			setup(v);
			t = run(v, n);
			if (t < best[v])
				best[v] = t;
		}
	printf("# user trace events: ns per call, best of 5 rounds of %lu calls\n", n);
	printf("%-18s %10s %10s %10s\n", "variant", "ns/call", "x loop", "x call");
	for (int v = 0; v < V_NR; v++) {
#ifndef HAVE_LTTNG
		if (v == V_LTTNG) {
			printf("%-18s %10s   (liblttng-ust-dev not installed)\n", names[v], "-");
			continue;
		}
#endif
		printf("%-18s %10.2f %10.2f %10.2f\n", names[v], best[v], best[v] / best[V_LOOP],
		       best[v] / best[V_CALL]);
	}
	printf("disabled - loop: %.2f ns; enabled record: %u bytes\n",
	       best[V_DISABLED] - best[V_LOOP], (unsigned int)ftrail__desc_bench__ev.size);
	ft_rb_area_totals((struct ft_rb_area *)mem, &tot);
	printf("ring: %llu events in complete pages, %llu overwritten (overwrite mode)\n",
	       (unsigned long long)tot.written, (unsigned long long)tot.lost_old);
	ft_filter_free(filter);
	free(mem);
	return 0;
}
