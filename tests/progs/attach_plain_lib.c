/*
 * A library built without instrumentation that a program dlopen()s while
 * attached (t0351): its own calls to fork and _exit must reach the
 * runtime's wrappers too, though no file of it is read.
 */
#include <sys/wait.h>
#include <unistd.h>

int plain_fork(void);
int plain_fork(void)
{
	pid_t c = fork();
	int st;

	if (c == 0)
		_exit(5);
	if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st) || WEXITSTATUS(st) != 5)
		return 1;
	return 0;
}
