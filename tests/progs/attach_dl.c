/*
 * A running program that, once attached (t0351), loads a library, forks,
 * execs and starts a thread: what `ftrail record -P` must follow through
 * the runtime's wrappers, which an attach reaches through the GOT.  A
 * worker thread loops on work with short sleeps until STOPFILE appears.
 * When GOFILE appears, the main thread:
 *   dlopen(LIB) and calls its lib_entry() three times, then dlclose();
 *   forks a child that calls work(5) and _exit(3)s;
 *   forks a child that execs /bin/true, vforks one that does the same;
 *   starts a thread running late_worker() (work(6) twice);
 *   with PLAINLIB (attach_plain_lib.c, not instrumented): dlopen()s it and
 *   calls its plain_fork(), which forks a child that _exit(5)s;
 * checks every result and status, and prints "went".  At the end it prints
 * the errors and whether the first bytes of its functions changed.
 *
 *   attach_dl STOPFILE GOFILE LIB [PLAINLIB]
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "attach_work.h"

static volatile int done;
static long iters, errors;

static void nap(int ms)
{
	struct timespec ts = { 0, ms * 1000L * 1000L };

	nanosleep(&ts, NULL);
}

static void *worker(void *arg)
{
	(void)arg;
	while (!done) {
		if (work(9) != expect(9))
			errors++;
		iters++;
		nap(2);
	}
	return NULL;
}

__attribute__((noinline)) void *late_worker(void *arg)
{
	long *res = arg;

	res[0] = work(6);
	res[1] = work(6);
	return NULL;
}

/* Everything an attach must follow, in the main thread; 0 when all went right. */
__attribute__((noinline)) int go(const char *lib, const char *plain)
{
	long res[2] = { 0, 0 };
	int st, bad = 0;
	pthread_t th;
	void (*entry)(void);
	void *h = dlopen(lib, RTLD_NOW);
	pid_t c;

	if (!h || !(entry = (void (*)(void))dlsym(h, "lib_entry")))
		return 1;
	for (int i = 0; i < 3; i++)
		entry();
	bad += dlclose(h) != 0;
	c = fork();
	if (c == 0)
		_exit(work(5) == expect(5) ? 3 : 4);
	bad += c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 3;
	c = fork();
	if (c == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	bad += c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	c = vfork();
	if (c == 0) {
		execl("/bin/true", "true", (char *)NULL);
		_exit(127);
	}
	bad += c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 0;
	bad += work(8) != expect(8); /* the vfork child ran in our memory */
	bad += pthread_create(&th, NULL, late_worker, res) != 0 || pthread_join(th, NULL) != 0;
	bad += res[0] != expect(6) || res[1] != expect(6);
	if (plain) {
		int (*plain_fork)(void);

		h = dlopen(plain, RTLD_NOW);
		if (!h || !(plain_fork = (int (*)(void))dlsym(h, "plain_fork")))
			return bad + 1;
		bad += plain_fork();
	}
	return bad;
}

int main(int argc, char **argv)
{
	void *fns[] = { (void *)leaf, (void *)work, (void *)late_worker, (void *)go };
	unsigned char text[4][16];
	int changed = 0;
	pthread_t th;

	if (argc < 4)
		return 2;
	for (int i = 0; i < 4; i++)
		memcpy(text[i], fns[i], 16);
	pthread_create(&th, NULL, worker, NULL);
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	while (access(argv[2], F_OK) && access(argv[1], F_OK))
		nap(20);
	if (!access(argv[2], F_OK)) {
		int bad = go(argv[3], argc > 4 ? argv[4] : NULL);

		errors += bad;
		printf("went %d\n", bad);
		fflush(stdout);
	}
	while (access(argv[1], F_OK))
		nap(20);
	done = 1;
	pthread_join(th, NULL);
	for (int i = 0; i < 4; i++)
		changed += memcmp(text[i], fns[i], 16) != 0;
	printf("iterations=%ld errors=%ld text_changed=%d\n", iters, errors, changed);
	return errors || changed ? 1 : 0;
}
