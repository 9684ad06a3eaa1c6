// SPDX-License-Identifier: GPL-2.0
/*
 * A library with a user event, for dlopen/dlclose churn (tests/e2e/t0424):
 * built twice, with -DN=1 -DWHO='"one"' and -DN=2 -DWHO='"two"'.
 */
#include <ftrail/ftrail.h>

FTRAIL_EVENT(lib, work, (u32, n), (string, who));

void lib_entry(void);
void lib_entry(void)
{
	ftrail_trace(lib, work, N, WHO);
}
