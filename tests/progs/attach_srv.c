/*
 * A server-like program for `ftrail record -P` (t0340): THREADS workers loop
 * on work with short sleeps until the file STOPFILE appears, each checking
 * every result against its closed form.  At start it keeps the first bytes
 * of its traced functions, its SIGTRAP action and its open fds; at the end
 * it prints whether any of them differ (an attach that did not put the
 * program back as it was), the iterations and the errors.
 *
 *   attach_srv STOPFILE [THREADS] [FORK]   FORK=1: a worker forks a child
 *                                          that runs work() and exits
 */
#include <pthread.h>
#include <signal.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static const char *stopfile;
static volatile int done;
static long iters[16], errors[16];
static int do_fork;

__attribute__((noinline)) long leaf(long x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

__attribute__((noinline)) long step(long x)
{
	return leaf(x) + leaf(x + 1);
}

__attribute__((noinline)) long work(long n)
{
	long s = 0;

	for (long i = 0; i < n; i++)
		s += step(i);
	return s;
}

/* sum over i < n of (3i+1) + (3i+4) = 3n(n-1) + 5n */
static long expect(long n)
{
	return 3 * n * (n - 1) + 5 * n;
}

__attribute__((noinline)) void nap(void)
{
	struct timespec ts = { 0, 2 * 1000 * 1000 };

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	int id = (int)(long)arg;

	while (!done) {
		long n = 20 + id;

		if (work(n) != expect(n))
			errors[id]++;
		iters[id]++;
		if (do_fork && id == 0 && iters[id] % 50 == 0) {
			pid_t c = fork();

			if (c == 0)
				_exit(work(7) == expect(7) ? 0 : 1);
			if (c > 0) {
				int st;

				waitpid(c, &st, 0);
				if (!WIFEXITED(st) || WEXITSTATUS(st))
					errors[id]++;
			}
		}
		nap();
	}
	return NULL;
}

static int count_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;
	int n = 0;

	while (d && (de = readdir(d)))
		n += de->d_name[0] != '.';
	if (d)
		closedir(d);
	return n;
}

int main(int argc, char **argv)
{
	void *fns[] = { (void *)leaf, (void *)step, (void *)work, (void *)nap, (void *)worker };
	unsigned char text[5][16];
	struct sigaction trap0, trap1;
	pthread_t th[16];
	int nth = argc > 2 ? atoi(argv[2]) : 4, fds0, fds1, changed = 0;
	long total = 0, errs = 0;

	if (argc < 2 || nth < 1 || nth > 16)
		return 2;
	stopfile = argv[1];
	do_fork = argc > 3 && atoi(argv[3]);
	for (int i = 0; i < 5; i++)
		memcpy(text[i], fns[i], 16);
	sigaction(SIGTRAP, NULL, &trap0);
	fds0 = count_fds();
	for (long i = 0; i < nth; i++)
		pthread_create(&th[i], NULL, worker, (void *)i);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(stopfile, F_OK))
		usleep(20 * 1000);
	done = 1;
	for (int i = 0; i < nth; i++) {
		pthread_join(th[i], NULL);
		total += iters[i];
		errs += errors[i];
	}
	for (int i = 0; i < 5; i++)
		changed += memcmp(text[i], fns[i], 16) != 0;
	sigaction(SIGTRAP, NULL, &trap1);
	fds1 = count_fds();
	printf("iterations=%ld errors=%ld text_changed=%d sigtrap_changed=%d fds_changed=%d\n",
	       total, errs, changed, trap0.sa_handler != trap1.sa_handler, fds1 - fds0);
	return errs || changed ? 1 : 0;
}
