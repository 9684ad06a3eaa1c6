// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of analysis/prefetch.c, the decoding thread ahead of show's
 * formatter: a trace of many buffers (threads, signal-handler levels,
 * markers, thread renames, stacks) is read serially and through the
 * prefetcher, again and again; every event, payload, thread name and
 * "next of its buffer" must be the same, in the same order.  Some rounds
 * stop the prefetcher part-way (the consumer leaving while the decoder
 * waits or fills).  Run it under TSan (make SAN=tsan) for the hand-over.
 *
 *   prefetch_stress [ROUNDS]
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analysis/prefetch.h"
#include "analysis/trace.h"
#include "tests/tools/mktrace.h"

#define THREADS 6
#define CALLS 3000

static char path[] = "/tmp/ftrail-prefetch-stress.XXXXXX";

static void die(const char *what)
{
	fprintf(stderr, "prefetch_stress: %s\n", what);
	unlink(path);
	exit(1);
}

/* THREADS threads, each with a signal-handler level, interleaved in time. */
static int make_trace(struct ft_writer *w)
{
	struct mk_buf b[THREADS][2];
	static const uint64_t ips[3] = { MK_BASE + 0x10, MK_BASE + 0x20, MK_BASE + 0x30 };
	int ret = 0;

	for (int i = 0; i < THREADS; i++) {
		for (int l = 0; l < 2; l++) {
			mk_init(&b[i][l], (uint64_t)i << 2 | (uint64_t)l, 1000, 1000 + (uint32_t)i,
				(uint16_t)l);
			mk_page(&b[i][l], S + (uint64_t)i, 0, 0);
		}
		mk_entry(&b[i][0], F_MAIN, S + (uint64_t)i);
	}
	for (int c = 0; c < CALLS; c++) {
		for (int i = 0; i < THREADS; i++) {
			uint64_t t = S + 10 + (uint64_t)c * 1000 + (uint64_t)i * 7;
			struct mk_buf *m = &b[i][0], *h = &b[i][1];

			if (c % 100 == 0) {
				mk_page(m, t, 0, 1);
				mk_page(h, t, 0, 0);
			}
			mk_entry(m, F_FOO, t);
			mk_entry(m, F_BAR, t + 100);
			mk_exit(m, t + 200);
			if (c % 7 == 0) {
				char text[64];

				snprintf(text, sizeof(text), "marker %d of thread %d", c, i);
				mk_marker(m, text, t + 250);
			}
			if (c % 11 == 0) {
				mk_entry(h, F_HANDLER, t + 260);
				mk_stack(h, ips, 3);
				mk_exit(h, t + 270);
			}
			if (c % 500 == 0) {
				char comm[32];

				snprintf(comm, sizeof(comm), "t%d-%d", i, c);
				mk_at(m, t + 280);
				mk_ext(m, FT_EXT_COMM, comm, strlen(comm) + 1);
			}
			mk_exit(m, t + 300);
		}
	}
	for (int i = 0; i < THREADS; i++) {
		mk_exit(&b[i][0], S + 10 + (uint64_t)CALLS * 1000 + 500);
		for (int l = 0; l < 2; l++) {
			ret |= mk_flush(&b[i][l], w, i & 1);
			mk_free(&b[i][l]);
		}
	}
	return ret;
}

static int same_event(const struct ft_event *a, const struct ft_event *b)
{
	if (a->type != b->type || a->ts != b->ts || a->tid != b->tid || a->pid != b->pid ||
	    a->level != b->level || a->buffer != b->buffer || a->depth != b->depth ||
	    a->fid != b->fid || a->duration != b->duration || a->has_entry != b->has_entry ||
	    a->count != b->count || a->len != b->len || a->nr_ips != b->nr_ips ||
	    a->stack_id != b->stack_id)
		return 0;
	if (a->len && (!a->data || !b->data || memcmp(a->data, b->data, a->len)))
		return 0;
	return !a->nr_ips || !memcmp(a->ips, b->ips, a->nr_ips * sizeof(*a->ips));
}

/* Own copies of what the reader's next call overwrites (none when !has). */
static void own(struct ft_event *ev, int has)
{
	void *d;

	if (!has) {
		ev->len = ev->nr_ips = 0;
		return;
	}
	if (ev->len) {
		d = malloc(ev->len);
		if (!d)
			die("out of memory");
		memcpy(d, ev->data, ev->len);
		ev->data = d;
	}
	if (ev->nr_ips) {
		d = malloc(ev->nr_ips * sizeof(*ev->ips));
		if (!d)
			die("out of memory");
		memcpy(d, ev->ips, ev->nr_ips * sizeof(*ev->ips));
		ev->ips = d;
	}
}

static void disown(struct ft_event *ev)
{
	if (ev->len)
		free((void *)ev->data);
	if (ev->nr_ips)
		free((void *)ev->ips);
}

/* One serial pass and one prefetched pass (stopped after stop_at events, 0: none). */
static uint64_t round_trip(struct ft_trace *t, uint64_t stop_at)
{
	struct ft_event *want = NULL, nx;
	struct ft_event *wnext = NULL;
	char **wcomm = NULL;
	int *whas = NULL;
	size_t n = 0, cap = 0;
	char err[512];
	struct ft_prefetch *p;
	const struct ft_event *ev, *next;
	uint64_t got = 0;
	int ret;

	while ((ret = ft_trace_next(t, &nx, err, sizeof(err))) == 1) {
		if (n == cap) {
			cap = cap ? cap * 2 : 4096;
			want = realloc(want, cap * sizeof(*want));
			wnext = realloc(wnext, cap * sizeof(*wnext));
			wcomm = realloc(wcomm, cap * sizeof(*wcomm));
			whas = realloc(whas, cap * sizeof(*whas));
			if (!want || !wnext || !wcomm || !whas)
				die("out of memory");
		}
		want[n] = nx;
		own(&want[n], 1);
		wcomm[n] = strdup(ft_trace_comm(t, nx.tid));
		whas[n] = nx.type == FT_EV_ENTRY && ft_trace_peek_buffer(t, &nx, &wnext[n]) == 1;
		own(&wnext[n], whas[n]);
		n++;
	}
	if (ret < 0)
		die(err);
	if (ft_trace_rewind(t, err, sizeof(err)) < 0)
		die(err);
	p = ft_prefetch_start(t, err, sizeof(err));
	if (!p)
		die(err);
	while ((!stop_at || got < stop_at) &&
	       (ret = ft_prefetch_next(p, &ev, &next, err, sizeof(err))) == 1) {
		if (got >= n || !same_event(ev, &want[got]))
			die("an event differs");
		if (!ev->comm || strcmp(ev->comm, wcomm[got]))
			die("a thread name differs");
		if (!!next != whas[got] || (next && !same_event(next, &wnext[got])))
			die("the next event of a buffer differs");
		got++;
	}
	if (!stop_at && (ret < 0 || got != n))
		die(ret < 0 ? err : "events missing");
	ft_prefetch_stop(p);
	if (ft_trace_rewind(t, err, sizeof(err)) < 0)
		die(err);
	for (size_t i = 0; i < n; i++) {
		disown(&want[i]);
		disown(&wnext[i]);
		free(wcomm[i]);
	}
	free(want);
	free(wnext);
	free(wcomm);
	free(whas);
	return stop_at ? got : n;
}

int main(int argc, char **argv)
{
	int rounds = argc > 1 ? atoi(argv[1]) : 6, fd = mkstemp(path);
	struct ft_writer *w;
	struct ft_trace *t;
	char err[512];
	uint64_t n = 0;

	if (fd < 0)
		die("mkstemp");
	close(fd);
	w = ft_writer_open(path, 3, NULL, 0);
	if (!w || mk_tables(w, "function_graph", NULL, 1) || make_trace(w) ||
	    ft_writer_close(w, NULL, 0))
		die("writing the trace");
	t = ft_trace_open(path, err, sizeof(err));
	if (!t)
		die(err);
	for (int r = 0; r < rounds; r++) {
		/* odd rounds leave early: before, at and after a batch boundary */
		uint64_t stop =
			r & 1 ? (uint64_t)FT_PREFETCH_EVENTS * (uint64_t)(r + 1) + (uint64_t)r - 1
			      : 0;

		uint64_t got = round_trip(t, stop);

		if (!stop)
			n = got;
	}
	ft_trace_close(t);
	unlink(path);
	printf("prefetch_stress: %d rounds, %llu events each, same as the serial reader\n", rounds,
	       (unsigned long long)n);
	return 0;
}
