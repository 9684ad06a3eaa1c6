// SPDX-License-Identifier: GPL-2.0
/*
 * Uses libev_lib.so (tests/e2e/t0904).  lib:work is defined here too, with
 * the same fields: the two descriptors are one event with one id.
 */
#include <ftrail/ftrail.h>

FTRAIL_EVENT(app, start, (u32, n));
FTRAIL_EVENT(lib, work, (u32, n), (string, who));

void ev_lib_work(unsigned int n);

int main(void)
{
	ftrail_trace(app, start, 1);
	for (unsigned int i = 0; i < 3; i++)
		ev_lib_work(i);
	ftrail_trace(lib, work, 99, "main");
	return 0;
}
