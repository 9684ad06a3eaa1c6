// SPDX-License-Identifier: GPL-2.0
/*
 * Hooks that do nothing, for bench/fgraph_bench.sh: what each
 * instrumentation flag costs a program before any tracer runs -- the call
 * to the hook (and -pg's frame pointer and its call after the prologue).
 * mcount, _mcount and __fentry__ are a bare ret (their callers expect
 * every register kept); the -finstrument-functions hooks are empty C
 * functions.  Built with -shared by the script and preloaded; the
 * Makefile also links it as a program, whose main() only says so.
 */
#include <stdio.h>

__asm__(".text\n"
	".globl mcount\n.type mcount, @function\nmcount:\n\tret\n.size mcount, .-mcount\n"
	".globl _mcount\n.type _mcount, @function\n_mcount:\n\tret\n.size _mcount, .-_mcount\n"
	".globl __fentry__\n.type __fentry__, @function\n__fentry__:\n\tret\n"
	".size __fentry__, .-__fentry__\n");

void __cyg_profile_func_enter(void *fn, void *site);
void __cyg_profile_func_exit(void *fn, void *site);

__attribute__((no_instrument_function)) void __cyg_profile_func_enter(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

__attribute__((no_instrument_function)) void __cyg_profile_func_exit(void *fn, void *site)
{
	(void)fn;
	(void)site;
}

int main(void);
int main(void)
{
	puts("fgraph_null: a hook library; bench/fgraph_bench.sh builds it with -shared");
	return 0;
}
