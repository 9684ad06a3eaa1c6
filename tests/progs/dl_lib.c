// SPDX-License-Identifier: GPL-2.0
/* A library loaded with dlopen (dl_main.c): its functions are traced too. */
#define NOINLINE __attribute__((noinline))

volatile int lib_sink;

NOINLINE void lib_leaf(void)
{
	lib_sink++;
}

void lib_entry(void);
NOINLINE void lib_entry(void)
{
	lib_leaf();
}
