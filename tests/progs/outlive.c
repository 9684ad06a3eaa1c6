// SPDX-License-Identifier: GPL-2.0
/*
 * Recorder test (t0331, t0332): a program that may outlive its recorder.
 *   outlive DIR [ignore] [fork] [event]
 * Calls work() in a loop, 100 calls then a 200 us sleep (the trace stays
 * small), and, every 10 ms, writes DIR/state.PID (replaced
 * whole): "site=XX calls=N", XX the first byte of work()'s entry after an
 * endbr64 (e8: a patched call, when built with
 * -fpatchable-function-entry=5), N the calls so far.  Writes DIR/pid.PID
 * once running.  Exits 0 when DIR/stop exists (3 after 120 s: never hangs
 * a test), after writing DIR/done.PID.
 *   ignore  SIGINT, SIGTERM and SIGHUP are ignored
 *   count   SIGINT, SIGTERM and SIGHUP are counted; 300 ms after the
 *           first, exit with the count as status (how many reached us)
 *   fork    fork first: parent and child both run the loop (the parent
 *           waits for the child before it exits)
 *   event   also emit the user event outlive:tick every 64 calls
 *   threads=N  N-1 more threads call work() in a loop until the end
 *   signals    a SIGALRM every 100 us whose handler calls work(), so
 *              hooks run in handlers that interrupt hooks
 *   churn      every 10 ms, start a thread that calls work() and ends, and
 *              fork a child that does the same and exits
 */
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(outlive, tick, (u32, n));

#define NOINLINE __attribute__((noinline))

volatile long sink;

NOINLINE void work(long i)
{
	sink += i;
}

static volatile sig_atomic_t nsig;
static volatile int done;

static void count_sig(int sig)
{
	(void)sig;
	nsig++;
}

static void on_alarm(int sig)
{
	work(sig);
	work(sig);
}

static void *once(void *arg)
{
	for (long i = 0; i < 100; i++)
		work(i);
	return arg;
}

static void *spin(void *arg)
{
	(void)arg;
	for (long i = 0; !done; i++)
		work(i);
	return NULL;
}

static double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* DIR/NAME.PID := text, replaced whole (a reader never sees half of it) */
static void put(const char *dir, const char *name, const char *text)
{
	char tmp[4096], path[4096];
	FILE *f;

	snprintf(tmp, sizeof(tmp), "%s/.%s.%d", dir, name, (int)getpid());
	snprintf(path, sizeof(path), "%s/%s.%d", dir, name, (int)getpid());
	f = fopen(tmp, "w");
	if (!f)
		exit(4);
	fputs(text, f);
	if (fclose(f) || rename(tmp, path))
		exit(4);
}

static unsigned int site_byte(void)
{
	const unsigned char *p = (const unsigned char *)(void *)work;

	if (!memcmp(p, "\xf3\x0f\x1e\xfa", 4)) /* endbr64 */
		p += 4;
	return *p;
}

int main(int argc, char **argv)
{
	const char *dir = argc > 1 ? argv[1] : ".";
	int ignore = 0, forked = 0, event = 0, count = 0, nthreads = 1, sigs = 0, churn = 0;
	pthread_t th[64];
	char stop[4096], line[128];
	double start, next, first = 0;
	long calls = 0;
	pid_t child = 0;

	for (int i = 2; i < argc; i++) {
		ignore |= !strcmp(argv[i], "ignore");
		forked |= !strcmp(argv[i], "fork");
		event |= !strcmp(argv[i], "event");
		count |= !strcmp(argv[i], "count");
		sigs |= !strcmp(argv[i], "signals");
		churn |= !strcmp(argv[i], "churn");
		if (!strncmp(argv[i], "threads=", 8))
			nthreads = atoi(argv[i] + 8);
	}
	if (nthreads < 1 || nthreads > 64)
		return 6;
	if (count) {
		signal(SIGINT, count_sig);
		signal(SIGTERM, count_sig);
		signal(SIGHUP, count_sig);
	}
	if (ignore) {
		signal(SIGINT, SIG_IGN);
		signal(SIGTERM, SIG_IGN);
		signal(SIGHUP, SIG_IGN);
	}
	if (forked) {
		child = fork();
		if (child < 0)
			return 5;
	}
	snprintf(stop, sizeof(stop), "%s/stop", dir);
	for (int i = 1; i < nthreads; i++)
		if (pthread_create(&th[i], NULL, spin, NULL))
			return 7;
	if (sigs) {
		struct itimerval it = { { 0, 100 }, { 0, 100 } };
		struct sigaction sa;

		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = on_alarm;
		sa.sa_flags = SA_RESTART;
		sigaction(SIGALRM, &sa, NULL);
		setitimer(ITIMER_REAL, &it, NULL);
	}
	put(dir, "pid", "running\n");
	start = next = now();
	while (access(stop, F_OK)) {
		for (int i = 0; i < 100; i++) {
			work(i);
			if (event && !(++calls & 63))
				ftrail_trace(outlive, tick, (unsigned int)calls);
		}
		calls += event ? 0 : 100;
		usleep(200);
		if (now() >= next && churn) {
			pthread_t t;
			pid_t c = fork();

			if (c == 0) {
				once(NULL);
				_exit(0);
			}
			if (c > 0)
				waitpid(c, NULL, 0);
			if (!pthread_create(&t, NULL, once, NULL))
				pthread_join(t, NULL);
		}
		if (now() >= next) {
			snprintf(line, sizeof(line), "site=%02x calls=%ld\n", site_byte(), calls);
			put(dir, "state", line);
			next = now() + 0.01;
		}
		if (now() - start > 120)
			return 3;
		if (nsig && !first)
			first = now();
		if (first && now() - first > 0.3)
			return nsig;
	}
	if (sigs) {
		struct itimerval off = { { 0, 0 }, { 0, 0 } };

		setitimer(ITIMER_REAL, &off, NULL);
	}
	done = 1;
	for (int i = 1; i < nthreads; i++)
		pthread_join(th[i], NULL);
	snprintf(line, sizeof(line), "calls=%ld\n", calls);
	put(dir, "done", line);
	if (child > 0)
		waitpid(child, NULL, 0);
	return 0;
}
