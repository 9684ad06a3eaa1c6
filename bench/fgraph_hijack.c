// SPDX-License-Identifier: GPL-2.0
/*
 * The floor of bench/fgraph_bench.sh for the flags whose exit is not a
 * compiled-in call (-pg -mfentry, -pg, -fpatchable-function-entry): the
 * least any tracer that hijacks return addresses can pay, as the kernel's
 * function_graph and uftrace do.  The entry hook reads the TSC and stores
 * 8 bytes (as bench/fgraph_floor.c), moves the function's return address
 * to a tiny per-thread shadow stack and puts the return trampoline in its
 * place; the trampoline reads the TSC, stores 8 bytes, pops the shadow
 * stack and jumps back to the real caller.  No filtering, no records, no
 * checks beyond the shadow stack's room: the difference between this and
 * the -finstrument-functions floor is what hijacking costs on this CPU,
 * the difference between ftrail and this is what ftrail adds.
 *
 * Preloaded as a -shared library by the script, in three builds of this
 * one file and three ways of reaching the hook:
 *
 *   __fentry__, mcount/_mcount   the compiled-in calls (-pg -mfentry, -pg)
 *   FLOOR_PATCH=call             a constructor turns each 5-byte nop of
 *                                -fpatchable-function-entry=5 into "call
 *                                stub", stub = "jmp *abs" to the same hook
 *                                (as ftrail's patched sites)
 *   FLOOR_PATCH=jmp              "call-through", for the return-stack-buffer
 *                                study below: each nop becomes "jmp stub_f",
 *                                stub_f = "movabs $body, %r11; jmp *abs";
 *                                the hook pops the return address to the
 *                                shadow stack and *calls* the body, whose
 *                                ret then lands right behind that call
 *
 * and the trampoline's way back to the caller: "jmp *%r11" (default), or
 * "push %r11; ret" when built with -DFLOOR_RET_PUSH.  -DFLOOR_PAD=N adds
 * N plain instructions per call (below).
 *
 * The return-stack buffer (RSB) and the three ways back.  A call pushes
 * its return address on the RSB, a ret pops the top as its prediction.
 * In a hijacked call the caller's "call f" pushed the real return
 * address; f's ret pops it but goes to the trampoline: one misprediction
 * per call that nothing in the trampoline can avoid.  The RSB is now in
 * step with the real stack, so the trampoline must leave it alone:
 * "jmp *%r11" does (the indirect-branch predictor guesses the target
 * from the branch history), "push; ret" pops the caller's caller's entry
 * and leaves the RSB one entry short, so every return above mispredicts in
 * turn until the call depth comes back below it.  Call-through keeps both
 * predictions: the hook's "call *%r11" pushes the trampoline, which f's
 * ret predicts; the real return address pushed by the caller is still
 * under it, and the trampoline's "push; ret" predicts it.  The price: the
 * site must be entered by a jump (a call pushes a return address that
 * nothing then pops), which only a patched site allows.
 *
 * What this leaves out, as a benchmark may: longjmp and exceptions
 * (frames skipped over stay on the shadow stack), signals, threads other
 * than by their own TLS, unwinding.  Functions deeper than 64 frames are
 * recorded at entry but not hijacked.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* dl_iterate_phdr, MAP_FIXED_NOREPLACE */
#endif
#include <elf.h>
#include <fcntl.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#define FLOOR_WORDS (1u << 17) /* 1 MiB per thread, as fgraph_floor.c */
#define FLOOR_SS 64	       /* shadow stack frames */
#define STR_(x) #x
#define STR(x) STR_(x)

/* Layout known to the assembly below: buf at 0, pos at 8, sp at 12, ss at 16. */
struct floor_thread {
	uint64_t *buf;
	uint32_t pos;
	uint32_t sp;
	uint64_t ss[FLOOR_SS];
};

__attribute__((visibility("hidden"),
	       tls_model("initial-exec"))) __thread struct floor_thread floor_hj;

void floor_hj_init(void);
__attribute__((visibility("hidden"))) void floor_hj_init(void)
{
	void *p = mmap(NULL, FLOOR_WORDS * 8, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	if (p == MAP_FAILED)
		abort();
	floor_hj.buf = p;
}

/*
 * -DFLOOR_PAD=N: N more instructions per call, N/2 in the entry hook and
 * N/2 in the trampoline, each "test %r11, %r11" (one ALU operation: no
 * register but the flags written, no memory, nothing waits on it): what
 * a hook's instruction count costs on its own, with nothing else changed.
 * (Not "test %rsp, %rsp": every explicit use of rsp between pushes and
 * pops costs the stack engine a synchronisation, 4x the time here.)
 */
#ifndef FLOOR_PAD
#define FLOOR_PAD 0
#endif

#ifdef FLOOR_RET_PUSH
#define FLOOR_BACK "	push %r11\n	ret\n"
#else
#define FLOOR_BACK "	jmp *%r11\n"
#endif

/* clang-format off */
__asm__(".text\n"
	/* FLOOR_STORE tls: buf[pos++ & mask] = TSC.  Clobbers rax rcx rdx. */
	".macro FLOOR_STORE tls\n"
	"	rdtsc\n"
	"	shl $32, %rdx\n"
	"	or %rax, %rdx\n"
	"	mov %fs:0(\\tls), %rax\n"
	"	mov %fs:8(\\tls), %ecx\n"
	"	and $" STR(FLOOR_WORDS) "-1, %ecx\n"
	"	mov %rdx, (%rax,%rcx,8)\n"
	"	incl %fs:8(\\tls)\n"
	".endm\n"

	/* FLOOR_ENTRY slot: slot = the return address, with rax rdx rcx pushed */
	".macro FLOOR_ENTRY slot\n"
	"	push %rax\n"
	"	push %rdx\n"
	"	push %rcx\n"
	"	mov floor_hj@gottpoff(%rip), %r11\n"
	"	cmpq $0, %fs:0(%r11)\n"
	"	jne 1f\n"
	"	call floor_hj_slow\n"
	"	mov floor_hj@gottpoff(%rip), %r11\n"
	"1:	FLOOR_STORE %r11\n"
	"	.rept " STR(FLOOR_PAD) "/2\n	test %r11, %r11\n	.endr\n"
	"	mov %fs:12(%r11), %ecx\n"
	"	cmp $" STR(FLOOR_SS) ", %ecx\n"
	"	jae 2f\n"
	"	mov \\slot, %rax\n"
	"	mov %rax, %fs:16(%r11,%rcx,8)\n"
	"	inc %ecx\n"
	"	mov %ecx, %fs:12(%r11)\n"
	"	lea floor_hj_return(%rip), %rax\n"
	"	mov %rax, \\slot\n"
	"2:	pop %rcx\n"
	"	pop %rdx\n"
	"	pop %rax\n"
	"	ret\n"
	".endm\n"

	/* FLOOR_EXIT: the exit's store and the shadow stack's pop; r11 = where to go */
	".macro FLOOR_EXIT\n"
	"	mov %rax, %r8\n" /* rax, rdx: return values; r8-r10 are dead here */
	"	mov %rdx, %r9\n"
	"	mov floor_hj@gottpoff(%rip), %r11\n"
	"	FLOOR_STORE %r11\n"
	"	.rept " STR(FLOOR_PAD) "/2\n	test %r11, %r11\n	.endr\n"
	"	mov %fs:12(%r11), %ecx\n"
	"	dec %ecx\n"
	"	mov %ecx, %fs:12(%r11)\n"
	"	mov %fs:16(%r11,%rcx,8), %r11\n"
	"	mov %r8, %rax\n"
	"	mov %r9, %rdx\n"
	".endm\n"

	/* a thread's first hook: its buffer, every register but r11 kept */
	".type floor_hj_slow, @function\n"
	"floor_hj_slow:\n"
	"	push %rdi\n push %rsi\n push %r8\n push %r9\n push %r10\n push %r11\n"
	"	push %rbp\n"
	"	mov %rsp, %rbp\n"
	"	and $-16, %rsp\n"
	"	sub $128, %rsp\n"
	"	movdqa %xmm0, 0(%rsp)\n movdqa %xmm1, 16(%rsp)\n"
	"	movdqa %xmm2, 32(%rsp)\n movdqa %xmm3, 48(%rsp)\n"
	"	movdqa %xmm4, 64(%rsp)\n movdqa %xmm5, 80(%rsp)\n"
	"	movdqa %xmm6, 96(%rsp)\n movdqa %xmm7, 112(%rsp)\n"
	"	call floor_hj_init\n"
	"	movdqa 0(%rsp), %xmm0\n movdqa 16(%rsp), %xmm1\n"
	"	movdqa 32(%rsp), %xmm2\n movdqa 48(%rsp), %xmm3\n"
	"	movdqa 64(%rsp), %xmm4\n movdqa 80(%rsp), %xmm5\n"
	"	movdqa 96(%rsp), %xmm6\n movdqa 112(%rsp), %xmm7\n"
	"	mov %rbp, %rsp\n"
	"	pop %rbp\n"
	"	pop %r11\n pop %r10\n pop %r9\n pop %r8\n pop %rsi\n pop %rdi\n"
	"	ret\n"
	".size floor_hj_slow, .-floor_hj_slow\n"

	".globl __fentry__\n.type __fentry__, @function\n"
	".globl floor_hj_patched\n.hidden floor_hj_patched\n"
	"__fentry__:\n"
	"floor_hj_patched:\n"
	"	FLOOR_ENTRY 32(%rsp)\n"
	".size __fentry__, .-__fentry__\n"

	".globl mcount\n.type mcount, @function\n"
	".globl _mcount\n.type _mcount, @function\n"
	"mcount:\n"
	"_mcount:\n"
	"	FLOOR_ENTRY 8(%rbp)\n"
	".size mcount, .-mcount\n"

	".globl floor_hj_return\n.hidden floor_hj_return\n.type floor_hj_return, @function\n"
	"floor_hj_return:\n"
	"	FLOOR_EXIT\n"
	FLOOR_BACK
	".size floor_hj_return, .-floor_hj_return\n"

	/* call-through: r11 = the body, the stack as at the function's entry */
	".globl floor_ct_entry\n.hidden floor_ct_entry\n.type floor_ct_entry, @function\n"
	"floor_ct_entry:\n"
	"	push %rax\n"
	"	push %rdx\n"
	"	push %rcx\n"
	"	push %rsi\n"
	"	mov floor_hj@gottpoff(%rip), %rsi\n"
	"	cmpq $0, %fs:0(%rsi)\n"
	"	jne 1f\n"
	"	call floor_hj_slow\n"
	"1:	FLOOR_STORE %rsi\n"
	"	mov %fs:12(%rsi), %ecx\n"
	"	cmp $" STR(FLOOR_SS) ", %ecx\n"
	"	jae 2f\n"
	"	mov 32(%rsp), %rax\n" /* the real return address */
	"	mov %rax, %fs:16(%rsi,%rcx,8)\n"
	"	inc %ecx\n"
	"	mov %ecx, %fs:12(%rsi)\n"
	"	pop %rsi\n"
	"	pop %rcx\n"
	"	pop %rdx\n"
	"	pop %rax\n"
	"	lea 8(%rsp), %rsp\n" /* its slot now gets the call's return address */
	"	call *%r11\n"
	"	FLOOR_EXIT\n"
	"	push %r11\n" /* the caller's call pushed this address: predicted */
	"	ret\n"
	"2:	pop %rsi\n"
	"	pop %rcx\n"
	"	pop %rdx\n"
	"	pop %rax\n"
	"	jmp *%r11\n"
	".size floor_ct_entry, .-floor_ct_entry\n");
/* clang-format on */

__attribute__((visibility("hidden"))) void floor_hj_patched(void);
__attribute__((visibility("hidden"))) void floor_ct_entry(void);

/* The main program's load bias (dl_iterate_phdr lists it first). */
static int first_bias(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size;
	*(uint64_t *)data = info->dlpi_addr;
	return 1;
}

/*
 * The address and size of the program's __patchable_function_entries, or
 * -1.  The file is named by readlink (valgrind answers that one with the
 * program it runs; opening /proc/self/exe gives valgrind's own).
 */
static int find_entries(uint64_t *addr, uint64_t *size)
{
	char path[4096];
	ssize_t len = readlink("/proc/self/exe", path, sizeof(path) - 1);
	int fd;
	Elf64_Ehdr eh;
	Elf64_Shdr *sh = NULL;
	char *names = NULL;
	int ret = -1;

	if (len <= 0)
		return -1;
	path[len] = 0;
	fd = open(path, O_RDONLY);
	if (fd < 0 || pread(fd, &eh, sizeof(eh), 0) != sizeof(eh) || eh.e_shstrndx >= eh.e_shnum)
		goto out;
	sh = calloc(eh.e_shnum, sizeof(*sh));
	if (!sh || pread(fd, sh, eh.e_shnum * sizeof(*sh), (off_t)eh.e_shoff) !=
			   (ssize_t)(eh.e_shnum * sizeof(*sh)))
		goto out;
	names = calloc(1, sh[eh.e_shstrndx].sh_size + 1);
	if (!names ||
	    pread(fd, names, sh[eh.e_shstrndx].sh_size, (off_t)sh[eh.e_shstrndx].sh_offset) !=
		    (ssize_t)sh[eh.e_shstrndx].sh_size)
		goto out;
	for (int i = 0; i < eh.e_shnum; i++) {
		if (sh[i].sh_name < sh[eh.e_shstrndx].sh_size &&
		    !strcmp(names + sh[i].sh_name, "__patchable_function_entries")) {
			*addr = sh[i].sh_addr;
			*size = sh[i].sh_size;
			ret = 0;
		}
	}
out:
	free(names);
	free(sh);
	if (fd >= 0)
		close(fd);
	return ret;
}

/* An executable page within rel32 reach of near, or NULL. */
static uint8_t *page_near(uint64_t near, size_t len)
{
	for (uint64_t step = 1; step < 1024; step++) {
		uint64_t base = (near & ~0xfffull) - step * (1ull << 20);
		void *p = mmap((void *)base, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED)
			continue;
		if ((uint64_t)p == base)
			return p;
		munmap(p, len);
	}
	return NULL;
}

/* "jmp *0(%rip); .quad to" at c: 14 bytes */
static void put_jmp_abs(uint8_t *c, uint64_t to)
{
	c[0] = 0xff;
	c[1] = 0x25;
	memset(c + 2, 0, 4);
	memcpy(c + 6, &to, 8);
}

/*
 * FLOOR_PATCH=call|jmp: every 5-byte nop of the program's
 * __patchable_function_entries becomes "call stub" or "jmp stub_f" (see
 * the top).  Runs before main, one thread: no cross-modifying care needed.
 */
__attribute__((constructor)) static void floor_patch(void)
{
	const char *mode = getenv("FLOOR_PATCH");
	uint64_t bias = 0, addr, size, *ent;
	size_t n, len;
	uint8_t *stubs;
	int jmp;

	if (!mode || !*mode)
		return;
	jmp = !strcmp(mode, "jmp");
	if (!jmp && strcmp(mode, "call")) {
		fprintf(stderr, "fgraph_hijack: FLOOR_PATCH is call or jmp\n");
		exit(2);
	}
	dl_iterate_phdr(first_bias, &bias);
	/*
	 * Quietly nothing in a process without the section: valgrind's
	 * launcher and env run with the preload too, on their way to the
	 * program (fgraph_bench.sh checks that hj_pfe paid for its hooks).
	 */
	if (find_entries(&addr, &size) || size < 8)
		return;
	ent = (uint64_t *)(bias + addr); /* relocated by the loader */
	n = size / 8;
	len = ((n + 1) * 32 + 4095) & ~(size_t)4095;
	stubs = page_near(ent[0], len);
	if (!stubs) {
		fprintf(stderr, "fgraph_hijack: no page for the stubs near the program\n");
		exit(2);
	}
	put_jmp_abs(stubs, (uint64_t)floor_hj_patched);
	for (size_t i = 0; i < n; i++) {
		uint8_t *site = (uint8_t *)ent[i], b[5], *to = stubs;
		uint64_t page = (uint64_t)site & ~0xfffull;
		size_t plen = (((uint64_t)site + 5 + 4095) & ~0xfffull) - page;
		int64_t rel;

		if (memcmp(site, "\x90\x90\x90\x90\x90", 5) &&
		    memcmp(site, "\x0f\x1f\x44\x00\x00", 5)) {
			fprintf(stderr, "fgraph_hijack: %p is not a 5-byte nop\n", (void *)site);
			exit(2);
		}
		if (jmp) { /* movabs $site+5, %r11; jmp *abs floor_ct_entry */
			uint64_t body = (uint64_t)site + 5;

			to = stubs + 32 * (i + 1);
			to[0] = 0x49;
			to[1] = 0xbb;
			memcpy(to + 2, &body, 8);
			put_jmp_abs(to + 10, (uint64_t)floor_ct_entry);
		}
		rel = (int64_t)to - (int64_t)(site + 5);
		if (rel != (int32_t)rel) {
			fprintf(stderr, "fgraph_hijack: the stubs are out of reach of %p\n",
				(void *)site);
			exit(2);
		}
		b[0] = jmp ? 0xe9 : 0xe8;
		memcpy(b + 1, &(int32_t){ (int32_t)rel }, 4);
		if (mprotect((void *)page, plen, PROT_READ | PROT_WRITE | PROT_EXEC))
			abort();
		memcpy(site, b, 5);
		if (mprotect((void *)page, plen, PROT_READ | PROT_EXEC))
			abort();
	}
	if (mprotect(stubs, len, PROT_READ | PROT_EXEC))
		abort();
}

int main(void);
int main(void)
{
	puts("fgraph_hijack: a hook library; bench/fgraph_bench.sh builds it with -shared");
	return 0;
}
