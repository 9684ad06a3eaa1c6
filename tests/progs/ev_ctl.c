// SPDX-License-Identifier: GPL-2.0
/*
 * A loop of events for filters and triggers (tests/e2e/t0901, t0902):
 * each i emits ctl:off, ctl:on and data:v, then data:name.
 */
#include <stdio.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(ctl, off, (u32, i));
FTRAIL_EVENT(ctl, on, (u32, i));
FTRAIL_EVENT(data, v, (u32, i), (s32, neg), (u64, flags));
FTRAIL_EVENT(data, name, (string, comm), (u32, i));

int main(void)
{
	static const char *const names[] = { "bash", "zsh", "bashful", "sh", "dash" };

	for (unsigned int i = 0; i < 10; i++) {
		ftrail_trace(ctl, off, i);
		ftrail_trace(ctl, on, i);
		ftrail_trace(data, v, i, -(int)i, 1ull << i);
		ftrail_trace(data, name, names[i % 5], i);
	}
	return 0;
}
