// SPDX-License-Identifier: GPL-2.0
/* Runs for a while (tests/e2e/t0906: a shell writes markers meanwhile). */
#include <stdlib.h>
#include <unistd.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(sleepy, tick, (u32, n));

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 30;

	for (int i = 0; i < n; i++) {
		ftrail_trace(sleepy, tick, (unsigned int)i);
		usleep(50000);
	}
	return 0;
}
