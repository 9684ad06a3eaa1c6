// SPDX-License-Identifier: GPL-2.0
/*
 * Arguments across a library of our own (t0451): ./args_main MODE [LIB]
 *   l  lib_sum, lib_word, lib_sort (qsort calling the library's callback)
 *   j  lib_jump longjmp()s out of the library back into jump_out()
 *   t  two threads, each calling lib_sum with its own arguments
 *   f  fork: the child calls lib_sum, then execs ./args_main l
 *   d  dlopen(LIB), lib_sum through dlsym
 * No other library call is made below main, so the graph is exact.
 */
#include <dlfcn.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

int lib_sum(int a, int b);
const char *lib_word(int i);
int lib_sort(int *v, long n);
void lib_jump(jmp_buf *env, int v);

#define F __attribute__((noinline))

static volatile long sink;

F int jump_out(int v)
{
	jmp_buf env;
	int r = setjmp(env);

	if (!r)
		lib_jump(&env, v);
	return r;
}

F void *worker(void *arg)
{
	sink += lib_sum((int)(long)arg, 100);
	return NULL;
}

int main(int argc, char **argv)
{
	char mode = argc > 1 ? argv[1][0] : 'l';
	int v[3] = { 30, 10, 20 };

	if (mode == 'l') {
		sink += lib_sum(2, 3);
		sink += (long)lib_word(1);
		sink += lib_sort(v, 3);
	} else if (mode == 'j') {
		sink += jump_out(5);
	} else if (mode == 't') {
		pthread_t t;

		pthread_create(&t, NULL, worker, (void *)1L);
		pthread_join(t, NULL);
		pthread_create(&t, NULL, worker, (void *)2L);
		pthread_join(t, NULL);
	} else if (mode == 'f') {
		pid_t pid = fork();

		if (pid == 0) {
			sink += lib_sum(7, 8);
			execl(argv[0], argv[0], "l", (char *)NULL);
			_exit(127);
		}
		waitpid(pid, NULL, 0);
	} else if (mode == 'd') {
		void *h = dlopen(argv[2], RTLD_NOW);
		int (*sum)(int, int) = h ? (int (*)(int, int))dlsym(h, "lib_sum") : NULL;

		if (sum)
			sink += sum(4, 5);
	}
	return 0;
}
