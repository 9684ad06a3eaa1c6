// SPDX-License-Identifier: GPL-2.0
/* A library that calls libc, dlopen()ed by dl_main.c (t0432). */
#include <stdlib.h>

void *volatile lc_keep;

void lib_entry(void)
{
	lc_keep = malloc(16);
	free(lc_keep);
}
