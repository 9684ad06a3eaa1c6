// SPDX-License-Identifier: GPL-2.0
/*
 * Preloaded into a test program: pthread_mutex_lock() on a mutex held by
 * another thread polls with pthread_mutex_trylock() every 5 ms instead of
 * sleeping in the kernel, so a waiter takes the mutex only up to 5 ms after
 * it is released, as a waiter woken late does on a loaded machine.  A
 * program whose handoff assumes a woken waiter runs first then shows its
 * hang every time (tests/e2e/t0804).
 */
#include <pthread.h>
#include <time.h>

int pthread_mutex_lock(pthread_mutex_t *m)
{
	const struct timespec ts = { 0, 5 * 1000 * 1000 };

	while (pthread_mutex_trylock(m))
		nanosleep(&ts, NULL);
	return 0;
}
