/*
 * A server-like program with user events and trace_marker calls, for
 * `ftrail record -P -e u:...` (t0350): THREADS workers loop on work with
 * short sleeps until STOPFILE appears; each request emits srv:req with its
 * result and a marker.  At the end it prints the checksum errors and
 * whether the events' and markers' enabled bytes are still set (a detach
 * must leave them disabled, as they were before the attach).
 *
 *   attach_ev STOPFILE [THREADS]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

#include "attach_work.h"

FTRAIL_EVENT(srv, req, (u32, worker), (s64, n), (s64, sum));

static volatile int done;
static long iters[16], errors[16];

static void *worker(void *arg)
{
	int id = (int)(long)arg;
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	while (!done) {
		long n = 10 + (iters[id] % 7), s = work(n);

		if (s != expect(n))
			errors[id]++;
		ftrail_trace(srv, req, (unsigned int)id, n, s);
		ftrail_marker("req %d %ld", id, n);
		iters[id]++;
		nanosleep(&ts, NULL);
	}
	return NULL;
}

int main(int argc, char **argv)
{
	int nth = argc > 2 ? atoi(argv[2]) : 3;
	long total = 0, errs = 0;
	pthread_t th[16];

	if (argc < 2 || nth < 1 || nth > 16)
		return 2;
	for (long i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[1], F_OK))
		usleep(20 * 1000);
	done = 1;
	for (int i = 0; i < nth; i++) {
		pthread_join(th[i], NULL);
		total += iters[i];
		errs += errors[i];
	}
	printf("iterations=%ld errors=%ld event_enabled=%d marker_enabled=%d\n", total, errs,
	       ftrail_enabled(srv, req) ? 1 : 0,
	       __atomic_load_n(&ftrail__marker_desc.enabled, __ATOMIC_RELAXED) ? 1 : 0);
	return errs ? 1 : 0;
}
