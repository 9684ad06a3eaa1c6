// SPDX-License-Identifier: GPL-2.0
/*
 * Benchmark workload for bench/kernel_capture.sh: two processes bounce one
 * byte over a pair of pipes N times (default 10000), so each round trip
 * costs at least two context switches.  The process name is
 * "kernel_pingpong" in both, so recorders can filter on it
 * (prev_comm == "kernel_pingpong").  With KPP_CPU_FILE set, the CPU time
 * (user+sys seconds) of both processes is written there at the end, so the
 * caller can subtract it from the recorder's total.
 */
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

static double tv(struct timeval t)
{
	return t.tv_sec + t.tv_usec / 1e6;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 10000;
	int ab[2], ba[2];
	char c = 'x';
	pid_t pid;

	if (n <= 0 || pipe(ab) || pipe(ba)) {
		fprintf(stderr, "usage: kernel_pingpong [ROUNDS]\n");
		return 2;
	}
	pid = fork();
	if (pid < 0)
		return 1;
	if (pid == 0) {
		for (long i = 0; i < n; i++)
			if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
				_exit(1);
		_exit(0);
	}
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	waitpid(pid, NULL, 0);
	if (getenv("KPP_CPU_FILE")) {
		struct rusage s, ch;
		FILE *f = fopen(getenv("KPP_CPU_FILE"), "w");

		getrusage(RUSAGE_SELF, &s);
		getrusage(RUSAGE_CHILDREN, &ch);
		if (f) {
			fprintf(f, "%.6f\n",
				tv(s.ru_utime) + tv(s.ru_stime) + tv(ch.ru_utime) +
					tv(ch.ru_stime));
			fclose(f);
		}
	}
	return 0;
}
