/*
 * A shared library built without instrumentation for tests/progs/lpatch.c
 * (t0356-t0359): its function makes a library call of its own, hooked
 * only when a function of this library is patched.
 */
#include <unistd.h>

__attribute__((noinline)) long lpl_pid(void)
{
	return getpid() > 0;
}
