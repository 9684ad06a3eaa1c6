// SPDX-License-Identifier: GPL-2.0
/*
 * For each argument: dlopen it, call its lib_entry() when it has one,
 * dlclose it, then emit ctl:go n=<argument number> (tests/e2e/t0424).
 */
#include <dlfcn.h>
#include <stdio.h>

#include <ftrail/ftrail.h>

FTRAIL_EVENT(ctl, go, (u32, n));

int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		void *h = dlopen(argv[i], RTLD_NOW);
		void (*fn)(void);

		if (!h) {
			fprintf(stderr, "%s\n", dlerror());
			return 1;
		}
		fn = (void (*)(void))dlsym(h, "lib_entry");
		if (fn)
			fn();
		dlclose(h);
		ftrail_trace(ctl, go, (unsigned int)i);
	}
	printf("ok\n");
	return 0;
}
