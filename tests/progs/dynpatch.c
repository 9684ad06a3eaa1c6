/*
 * A program built without any instrumentation flag, for `ftrail record
 * --patch` (t0345-t0348): functions whose first instructions a patch must
 * move -- a rip-relative load (C and assembly), a rip-relative lea, a
 * call, tail calls (C and assembly), a conditional jump before a jump table, a 5-byte
 * function ending in its ret, a function in a shared library -- and
 * functions that must be refused: too short, a loop jumping back into its
 * first bytes, a jrcxz.  Each call's result is checked against its closed
 * form; the program counts the calls it makes to each function.
 *
 *   dynpatch N THREADS          N iterations per thread, then prints
 *                               "calls NAME COUNT" per function and
 *                               "errors=E"
 *   dynpatch -s STOPFILE THREADS  loops (with short sleeps) until STOPFILE
 *                               exists, keeping the first 16 bytes of
 *                               every function; prints "ready" once
 *                               running and at the end "errors=E
 *                               text_changed=C"; one more thread
 *                               sits in pause(2) inside the first
 *                               bytes of hold_syscall, for ever
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <sys/syscall.h>
#include <unistd.h>

volatile long dp_bias = 5;
const long dp_table[8] = { 10, 20, 30, 40, 50, 60, 70, 80 };

/* lea eax,[rdi+rdi*2+1]; ret: 5 bytes, the ret moved too */
__attribute__((noinline)) int dp_leaf(int x)
{
	return x * 3 + 1;
}

/* a rip-relative load first */
__attribute__((noinline)) long dp_global(long x)
{
	return x + dp_bias;
}

/* add; jmp dp_global: a tail call in the moved bytes */
__attribute__((noinline)) long dp_tail(long x)
{
	return dp_global(x + 1);
}

/* cmp; ja: a conditional jump in the moved bytes, then a jump table */
__attribute__((noinline)) int dp_switch(int k)
{
	switch (k) {
	case 0:
		return 11;
	case 1:
		return dp_leaf(k) + 100;
	case 2:
		return 13 * k;
	case 3:
		return 17 - k;
	case 4:
		return k << 3;
	case 5:
		return 29;
	case 6:
		return k * k;
	default:
		return -1;
	}
}

static int switch_expect(int k)
{
	static const int v[8] = { 11, 104, 26, 14, 32, 29, 36, -1 };

	return v[k];
}

/* lea eax,[rdi+1]; ret: 4 bytes, too short for a jump */
__attribute__((noinline)) int dp_short(int x)
{
	return x + 1;
}

/* assembly: the shapes a compiler may or may not produce, exactly */
long dp_riprel(long x);	   /* lea rax,[rip+dp_table] first */
long dp_callfirst(long x); /* call dp_riprel first (returns into the trampoline) */
long dp_backjump(long n);  /* a loop jumping back to +2: refused */
long dp_jrcxz(long x);	   /* jrcxz in the first bytes: refused */
long dp_tailasm(long x);   /* add; jmp dp_leaf: refused when dp_leaf has a compiled-in hook */
__asm__(".text\n"
	".globl dp_riprel\n.type dp_riprel,@function\n"
	"dp_riprel:\n"
	"	lea dp_table(%rip), %rax\n"
	"	and $7, %edi\n"
	"	mov (%rax,%rdi,8), %rax\n"
	"	ret\n"
	".size dp_riprel, .-dp_riprel\n"
	".globl dp_callfirst\n.type dp_callfirst,@function\n"
	"dp_callfirst:\n"
	"	call dp_riprel\n"
	"	add $100, %rax\n"
	"	ret\n"
	".size dp_callfirst, .-dp_callfirst\n"
	".globl dp_backjump\n.type dp_backjump,@function\n"
	"dp_backjump:\n"
	"	xor %eax, %eax\n"
	"1:	add $1, %rax\n"
	"	cmp %rdi, %rax\n"
	"	jl 1b\n"
	"	ret\n"
	".size dp_backjump, .-dp_backjump\n"
	".globl dp_jrcxz\n.type dp_jrcxz,@function\n"
	"dp_jrcxz:\n"
	"	mov %rdi, %rcx\n"
	"	jrcxz 1f\n"
	"	lea 1(%rdi), %rax\n"
	"	ret\n"
	"1:	xor %eax, %eax\n"
	"	ret\n"
	".size dp_jrcxz, .-dp_jrcxz\n"
	".globl dp_tailasm\n.type dp_tailasm,@function\n"
	"dp_tailasm:\n"
	"	add $2, %rdi\n"
	"	jmp dp_leaf\n"
	".size dp_tailasm, .-dp_tailasm\n"
	/* hold_syscall(NR): system call NR without arguments, its pc at +4 */
	".globl hold_syscall\n.type hold_syscall,@function\n"
	"hold_syscall:\n"
	"	mov %edi, %eax\n"
	"	syscall\n"
	"	mov %rax, %rdx\n"
	"	mov %rdx, %rax\n"
	"	ret\n"
	".size hold_syscall, .-hold_syscall\n");
long hold_syscall(long nr);

/* -s: a thread blocked inside hold_syscall's first bytes (pause(2)) */
static void *holder(void *arg)
{
	(void)arg;
	hold_syscall(SYS_pause);
	return NULL;
}

long dp_libfn(long x); /* dynpatch_lib.c */

enum {
	C_LEAF,
	C_GLOBAL,
	C_TAIL,
	C_SWITCH,
	C_SHORT,
	C_RIPREL,
	C_CALLFIRST,
	C_BACKJUMP,
	C_JRCXZ,
	C_LIB,
	C_TAILASM,
	C_WORK,
	C_NR
};
static const char *const names[C_NR] = { "dp_leaf",  "dp_global", "dp_tail",	  "dp_switch",
					 "dp_short", "dp_riprel", "dp_callfirst", "dp_backjump",
					 "dp_jrcxz", "dp_libfn",  "dp_tailasm",	  "dp_work" };
static long counts[64][C_NR], errors[64];
static const char *stopfile;
static volatile int done;

/* One round of calls; returns the number of wrong results. */
__attribute__((noinline)) long dp_work(long i, long *c)
{
	long bad = 0, k = i & 7;

	bad += dp_leaf((int)i) != (int)i * 3 + 1;
	bad += dp_global(i) != i + 5;
	bad += dp_tail(i) != i + 6;
	bad += dp_switch((int)k) != switch_expect((int)k);
	bad += dp_short((int)i) != (int)i + 1;
	bad += dp_riprel(i) != dp_table[k];
	bad += dp_callfirst(i) != dp_table[k] + 100;
	bad += dp_backjump(k + 1) != k + 1;
	bad += dp_jrcxz(k) != (k ? k + 1 : 0);
	bad += dp_libfn(i) != 2 * i + 7;
	bad += dp_tailasm(k) != (k + 2) * 3 + 1;
	c[C_LEAF] += 2 + (k == 1);
	c[C_TAILASM]++;
	c[C_GLOBAL] += 2;
	c[C_TAIL]++;
	c[C_SWITCH]++;
	c[C_SHORT]++;
	c[C_RIPREL] += 2;
	c[C_CALLFIRST]++;
	c[C_BACKJUMP]++;
	c[C_JRCXZ]++;
	c[C_LIB]++;
	c[C_WORK]++;
	return bad;
}

static long iters;

static void *worker(void *arg)
{
	long id = (long)arg;

	for (long i = 0; stopfile ? !done : i < iters; i++) {
		errors[id] += dp_work(i, counts[id]);
		if (stopfile && !(i % 64)) {
			struct timespec ts = { 0, 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	static void *const fns[] = { (void *)dp_leaf,	   (void *)dp_global,	(void *)dp_tail,
				     (void *)dp_switch,	   (void *)dp_short,	(void *)dp_riprel,
				     (void *)dp_callfirst, (void *)dp_backjump, (void *)dp_jrcxz,
				     (void *)dp_libfn,	   (void *)dp_tailasm,	(void *)dp_work };
	unsigned char text[C_NR][16];
	pthread_t th[64];
	long nth, err = 0, changed = 0;

	if (argc == 4 && !strcmp(argv[1], "-s")) {
		stopfile = argv[2];
		nth = atol(argv[3]);
	} else if (argc == 3) {
		iters = atol(argv[1]);
		nth = atol(argv[2]);
	} else {
		fprintf(stderr, "usage: dynpatch N THREADS | dynpatch -s STOPFILE THREADS\n");
		return 2;
	}
	if (nth < 1 || nth > 64)
		return 2;
	for (int i = 0; i < C_NR; i++)
		memcpy(text[i], fns[i], 16);
	for (long t = 0; t < nth; t++)
		pthread_create(&th[t], NULL, worker, (void *)t);
	if (stopfile) {
		pthread_t h;

		pthread_create(&h, NULL, holder, NULL);
		pthread_detach(h);
		printf("ready\n");
		fflush(stdout);
		while (access(stopfile, F_OK)) {
			struct timespec ts = { 0, 20 * 1000 * 1000 };

			nanosleep(&ts, NULL);
		}
		done = 1;
	}
	for (long t = 0; t < nth; t++) {
		pthread_join(th[t], NULL);
		err += errors[t];
	}
	for (int i = 0; i < C_NR; i++) {
		long s = 0;

		for (long t = 0; t < nth; t++)
			s += counts[t][i];
		if (!stopfile)
			printf("calls %s %ld\n", names[i], s);
		changed += memcmp(text[i], fns[i], 16) != 0;
	}
	printf("errors=%ld text_changed=%ld\n", err, changed);
	return err || changed ? 1 : 0;
}
