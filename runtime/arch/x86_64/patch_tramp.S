/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The entry and return trampolines of functions patched without
 * instrumentation (runtime/dynpatch.c: record --patch).
 *
 * Why not tramp.S's ft_rt_patched and ft_rt_return: those keep the
 * registers the ABI says a call may clobber only where a hook could see
 * them (the argument and return registers).  A compiled-in hook is known
 * to the compiler, which assumes the ABI's clobbers around it.  A function
 * built without one may have callers -- in its own object, compiled with
 * gcc's -fipa-ra (on at -O2) -- that keep values in caller-saved registers
 * across the call because they know which registers the callee really
 * touches.  Behind a dynamic patch, the hook's C code runs inside that
 * call; so here every general register but rsp/rbp (which the C code keeps
 * itself), the flags and xmm0-15 are saved and put back, on entry and on
 * return -- xmm0-15 only before the general C hooks, as tramp.S does, when
 * hooks.c's fast paths are built to use no vector register (gcc, no
 * sanitizer).  The upper halves of ymm/zmm registers are not: C code built
 * for SSE (the runtime) leaves them alone, but glibc's AVX string
 * functions it may call end with vzeroupper.
 *
 * They call hooks.c's C hooks as tramp.S's general paths do:
 *   int ft_rt_entry_fast(key, slot, regs); void ft_rt_entry(key, slot, kind, regs)
 *   uint64_t ft_rt_exit_fast(sp, rv);    uint64_t ft_rt_exit(sp, rv)
 * After the entry hook, a return address it hijacked (the slot holds
 * ft_rt_return) is pointed to ft_rt_dyn_return instead, which pops the
 * frame as ft_rt_return would.  Tail calls: a patched function
 * tail-called from another finds ft_rt_dyn_return in its slot, which is
 * shown to the hook as ft_rt_return (hooks.c keeps both frames then, the
 * callee's "return address" being ft_rt_return), and ft_rt_dyn_return
 * pops such pairs itself.  A function behind tramp.S's hooks (a library
 * call through the hooked PLT, plt.c) tail-called from a patched one finds
 * ft_rt_dyn_return in its slot, which hooks.c takes for a tail call too;
 * its return through ft_rt_return then goes on here (dynpatch.c's
 * tail_call() says when that is safe).
 *
 * Frame (rsp 16-aligned): 0-47 rdi rsi rdx rcx r8 r9 (args.c's order),
 * 48 rax, 56 r10, 64-191 xmm0-7 (args.c), 192 the rsp after our two
 * pushes (r11, rflags), 200 scratch, 208 r11, 224-351 xmm8-15, 352-383
 * the return values for ft_rt_exit (rax at 0, rdx at 8, xmm0 at 16).
 */
#include "core/barrier.h"
#include "runtime/arch/x86_64/offsets.h"
#include "runtime/arch/x86_64/regs.inc"

#define DYN_FRAME 384

	.text
	.hidden	ft_rt_entry_fast
	.hidden	ft_rt_entry
	.hidden	ft_rt_exit_fast
	.hidden	ft_rt_exit
	.hidden	ft_rt_return

/* xmm0-7 where regs.inc's frame has them (args.c), xmm8-15 at 224 */
.macro DYN_SAVE_XMM
	SAVE_XMM
	XMM_SAVE 224, xmm8, xmm9, xmm10, xmm11, xmm12, xmm13, xmm14, xmm15
.endm

.macro DYN_RESTORE_XMM
	RESTORE_XMM
	XMM_RESTORE 224, xmm8, xmm9, xmm10, xmm11, xmm12, xmm13, xmm14, xmm15
.endm

/*
 * DYN_ENTER -- r11 and rflags pushed, then regs.inc's frame (DYN_FRAME
 * bytes, the rsp after the two pushes at 192 and in r11), and xmm0-15
 * when hooks.c's fast paths may use them (FT_SAVE_ALL).
 */
.macro DYN_ENTER
	push	%r11
	pushfq
	mov	%rsp, %r11
	FRAME_ENTER DYN_FRAME
#ifdef FT_SAVE_ALL
	DYN_SAVE_XMM
#endif
.endm

/*
 * Called by a patched function's slot ("call *hook(%rip)"): (%rsp) = the
 * key (the slot's address + 6, hashed to the function by dynpatch.c),
 * 8(%rsp) = the function's return-address slot.  After the two pushes
 * they are at 16(%r11) and 24(%r11).
 */
	.globl	ft_rt_dyn_entry
	.hidden	ft_rt_dyn_entry
	.type	ft_rt_dyn_entry, @function
ft_rt_dyn_entry:
	DYN_ENTER
	/*
	 * A tail call from a patched function: its slot holds our return
	 * trampoline, shown to hooks.c as the ft_rt_return it knows (a tail
	 * call keeps both frames; ft_rt_dyn_return pops the pair).
	 */
	lea	ft_rt_dyn_return(%rip), %rax
	cmp	%rax, 24(%r11)
	jne	3f
	lea	ft_rt_return(%rip), %rax
	mov	%rax, 24(%r11)
3:	mov	16(%r11), %rdi
	lea	24(%r11), %rsi
	mov	%rsp, %rdx			/* the saved argument registers (args.c) */
	call	ft_rt_entry_fast
	test	%eax, %eax
	jnz	1f
#ifndef FT_SAVE_ALL
	DYN_SAVE_XMM
#endif
	mov	FT_FRAME_SP(%rsp), %r11
	mov	16(%r11), %rdi
	lea	24(%r11), %rsi
	mov	$FT_C_HOOK_PATCHED, %edx
	mov	%rsp, %rcx			/* the saved argument registers (args.c) */
	call	ft_rt_entry
#ifndef FT_SAVE_ALL
	DYN_RESTORE_XMM
#endif
1:
#ifdef FT_SAVE_ALL
	DYN_RESTORE_XMM
#endif
	/* a hijacked return comes to us, which keeps every register */
	mov	FT_FRAME_SP(%rsp), %r11
	lea	ft_rt_return(%rip), %rax
	cmp	%rax, 24(%r11)
	jne	2f
	lea	ft_rt_dyn_return(%rip), %rax
	mov	%rax, 24(%r11)
2:	FRAME_LEAVE
	popfq
	pop	%r11
	ret
	.size	ft_rt_dyn_entry, .-ft_rt_dyn_entry

/*
 * Where a patched function whose return was hijacked returns to: rsp is
 * S, the stack pointer after its ret.  The pushes put r11 in the dead
 * slot (S - 8) and rflags below; r11 = S - 16.
 */
	.globl	ft_rt_dyn_return
	.hidden	ft_rt_dyn_return
	.type	ft_rt_dyn_return, @function
ft_rt_dyn_return:
	DYN_ENTER
	mov	48(%rsp), %rax
	mov	%rax, 352(%rsp)
	mov	16(%rsp), %rax
	mov	%rax, 360(%rsp)
4:	lea	16(%r11), %rdi
	lea	352(%rsp), %rsi			/* rax (args.c) */
	call	ft_rt_exit_fast
	test	%rax, %rax
	jnz	1f
#ifndef FT_SAVE_ALL
	DYN_SAVE_XMM
#endif
	movaps	%xmm0, 368(%rsp)
	mov	FT_FRAME_SP(%rsp), %r11
	lea	16(%r11), %rdi
	lea	352(%rsp), %rsi			/* rax, rdx, xmm0 (args.c) */
	call	ft_rt_exit
#ifndef FT_SAVE_ALL
	DYN_RESTORE_XMM
#endif
1:	/*
	 * A tail callee's frame returned the trampoline its caller's
	 * hijack left in the slot: pop that frame too, here, every register
	 * still saved, rather than through ft_rt_return.
	 */
	mov	FT_FRAME_SP(%rsp), %r11
	lea	ft_rt_return(%rip), %rcx
	cmp	%rcx, %rax
	je	4b
	lea	ft_rt_dyn_return(%rip), %rcx
	cmp	%rcx, %rax
	je	4b
#ifdef FT_SAVE_ALL
	DYN_RESTORE_XMM
#endif
	/* the real return address where r11 was kept, r11 into the frame */
	mov	8(%r11), %rcx
	mov	%rcx, 208(%rsp)
	mov	%rax, 8(%r11)
	mov	208(%rsp), %r11
	FRAME_LEAVE
	popfq
	ret
	.size	ft_rt_dyn_return, .-ft_rt_dyn_return

	.section .note.GNU-stack,"",@progbits
