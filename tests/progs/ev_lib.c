// SPDX-License-Identifier: GPL-2.0
/* A shared library with events of its own (tests/e2e/t0904). */
#include <ftrail/ftrail.h>

FTRAIL_EVENT(lib, work, (u32, n), (string, who));

void ev_lib_work(unsigned int n);
void ev_lib_work(unsigned int n)
{
	ftrail_trace(lib, work, n, "lib");
}
