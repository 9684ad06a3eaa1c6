// SPDX-License-Identifier: GPL-2.0
/*
 * Library calls that land in libftrail's own wrappers (t0435): ./lc_wrappers MODE
 *   s  sigs(): signal() and sigaction()
 *   f  do_fork(): fork(); the child calls child_work() and _exit()s, the
 *      parent waitpid()s
 *   d  do_dl(LIB): dlopen() then dlclose()
 *   e  do_exec(): execve() of itself with "x", whose main calls after()
 * No other library call is made below main, so the graph is exact.
 */
#include <dlfcn.h>
#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define NOINLINE __attribute__((noinline))

extern char **environ;
static volatile int sink;

static void on_usr1(int s)
{
	(void)s;
}

NOINLINE void sigs(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_usr1;
	signal(SIGUSR1, on_usr1);
	sigaction(SIGUSR2, &sa, NULL);
}

NOINLINE void child_work(void)
{
	sink++;
}

NOINLINE void do_fork(void)
{
	pid_t p = fork();

	if (p == 0) {
		child_work();
		_exit(0);
	}
	waitpid(p, NULL, 0);
}

NOINLINE void do_dl(const char *lib)
{
	void *h = dlopen(lib, RTLD_NOW);

	if (h)
		dlclose(h);
}

NOINLINE void do_exec(const char *self)
{
	char *av[] = { (char *)self, (char *)"x", NULL };

	execve(self, av, environ);
}

NOINLINE void after(void)
{
	sink++;
}

int main(int argc, char **argv)
{
	if (argc < 2)
		return 2;
	switch (argv[1][0]) {
	case 's':
		sigs();
		return 0;
	case 'f':
		do_fork();
		return 0;
	case 'd':
		do_dl(argc > 2 ? argv[2] : "libm.so.6");
		return 0;
	case 'e':
		do_exec(argv[0]);
		return 1;
	case 'x':
		after();
		return 0;
	}
	return 2;
}
