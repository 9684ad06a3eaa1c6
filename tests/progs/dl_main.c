// SPDX-License-Identifier: GPL-2.0
/*
 * For each argument: dlopen it, call its lib_entry() from call_lib(), and
 * with -c before it dlclose it afterwards (so the next one may load at
 * the same address).
 */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#define NOINLINE __attribute__((noinline))

static int do_close;

NOINLINE int call_lib(const char *path)
{
	void *h = dlopen(path, RTLD_NOW);
	void (*fn)(void);

	if (!h) {
		fprintf(stderr, "%s\n", dlerror());
		return 1;
	}
	fn = (void (*)(void))dlsym(h, "lib_entry");
	if (!fn)
		return 1;
	fn();
	if (do_close)
		dlclose(h);
	return 0;
}

int main(int argc, char **argv)
{
	int r = 0;

	if (argc < 2)
		return 2;
	for (int i = 1; i < argc && !r; i++) {
		if (!strcmp(argv[i], "-c"))
			do_close = 1;
		else
			r = call_lib(argv[i]);
	}
	return r;
}
