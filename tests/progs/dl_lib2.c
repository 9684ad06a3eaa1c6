// SPDX-License-Identifier: GPL-2.0
/* A second library with other names, loaded after dl_lib.so was closed. */
#define NOINLINE __attribute__((noinline))

volatile int lib2_sink;

NOINLINE void other_leaf(void)
{
	lib2_sink++;
}

void lib_entry(void);
NOINLINE void lib_entry(void)
{
	other_leaf();
}
