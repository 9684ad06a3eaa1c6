// SPDX-License-Identifier: GPL-2.0
/*
 * Events of every field type with fixed values (extremes, empty, NULL,
 * long), and trace_marker text and binary.  Used by tests/e2e/t0900.
 * Runs fine without ftrail too: then every event is disabled.
 */
#include <string.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(evt, ints, (u8, a8), (u16, a16), (u32, a32), (u64, a64), (s8, b8), (s16, b16),
	     (s32, b32), (s64, b64));
FTRAIL_EVENT(evt, misc, (ptr, p), (string, s), (array, tag, 6), (bytes, blob), (u32, tail));
FTRAIL_EVENT(other, one, (u8, x));

int main(void)
{
	static const unsigned char tag[6] = { 0x00, 0x01, 0x7f, 0x80, 0xfe, 0xff };
	char longs[1500];

	ftrail_trace(evt, ints, 0, 0, 0, 0, 0, 0, 0, 0);
	ftrail_trace(evt, ints, 255, 65535, 4294967295u, 18446744073709551615ull, 127, 32767,
		     2147483647, 9223372036854775807ll);
	ftrail_trace(evt, ints, 1, 2, 3, 4, -128, -32768, -2147483647 - 1,
		     -9223372036854775807ll - 1);
	ftrail_trace(evt, misc, (void *)0x1234abcd, "hello, world", tag, "\x00\xff\x10", 3, 7);
	ftrail_trace(evt, misc, (void *)0, "", tag, "", 0, 8);
	ftrail_trace(evt, misc, (void *)-1, (const char *)0, tag, tag, 1, 9);
	memset(longs, 'y', sizeof(longs) - 1);
	longs[sizeof(longs) - 1] = 0;
	ftrail_trace(evt, misc, (void *)1, longs, tag, tag, 2, 10);
	ftrail_trace(other, one, 42);
	ftrail_marker("marker %d: %s", 1, "text");
	ftrail_marker_raw("\x01\x02\x03", 3);
	return 0;
}
