/* SPDX-License-Identifier: GPL-2.0 */
/*
 * x86-64 trampolines of the runtime.
 *
 *   __fentry__, ft_rt_patched   called as the first instruction of a
 *       function (-pg -mfentry, or a patched nop site via its stub):
 *       (%rsp) = address after the call (inside the function),
 *       8(%rsp) = the function's return-address slot.
 *   mcount, _mcount   called after the prologue (-pg): (%rsp) = address
 *       after the call, the function's return-address slot is 8(%rbp)
 *       (-pg keeps the frame pointer).
 *   ft_rt_return   where a hijacked function returns to (function_graph):
 *       asks ft_rt_exit for the real return address and jumps there.
 *
 * Every entry trampoline preserves the argument registers (rdi rsi rdx rcx
 * r8 r9, rax for varargs, r10 for the static chain) and xmm0-7, and aligns
 * the stack to 16 bytes before calling C.  The return trampoline preserves
 * the return registers rax, rdx, xmm0, xmm1 (x87 st0 is not touched by the
 * C code, which does no long double arithmetic).
 */
	.text

.macro SAVE_ARGS
	mov	%rsp, %r11
	and	$-16, %rsp
	sub	$208, %rsp
	mov	%r11, 192(%rsp)
	mov	%rdi, 0(%rsp)
	mov	%rsi, 8(%rsp)
	mov	%rdx, 16(%rsp)
	mov	%rcx, 24(%rsp)
	mov	%r8, 32(%rsp)
	mov	%r9, 40(%rsp)
	mov	%rax, 48(%rsp)
	mov	%r10, 56(%rsp)
	movaps	%xmm0, 64(%rsp)
	movaps	%xmm1, 80(%rsp)
	movaps	%xmm2, 96(%rsp)
	movaps	%xmm3, 112(%rsp)
	movaps	%xmm4, 128(%rsp)
	movaps	%xmm5, 144(%rsp)
	movaps	%xmm6, 160(%rsp)
	movaps	%xmm7, 176(%rsp)
.endm

.macro RESTORE_ARGS
	mov	0(%rsp), %rdi
	mov	8(%rsp), %rsi
	mov	16(%rsp), %rdx
	mov	24(%rsp), %rcx
	mov	32(%rsp), %r8
	mov	40(%rsp), %r9
	mov	48(%rsp), %rax
	mov	56(%rsp), %r10
	movaps	64(%rsp), %xmm0
	movaps	80(%rsp), %xmm1
	movaps	96(%rsp), %xmm2
	movaps	112(%rsp), %xmm3
	movaps	128(%rsp), %xmm4
	movaps	144(%rsp), %xmm5
	movaps	160(%rsp), %xmm6
	movaps	176(%rsp), %xmm7
	mov	192(%rsp), %rsp
.endm

/* void ft_rt_entry(uint64_t key, uint64_t *slot, uint32_t kind) in hooks.c */

	.globl	__fentry__
	.type	__fentry__, @function
	.globl	ft_rt_fentry
	.hidden	ft_rt_fentry
	.type	ft_rt_fentry, @function
__fentry__:
ft_rt_fentry:
	SAVE_ARGS
	mov	(%r11), %rdi
	lea	8(%r11), %rsi
	mov	$1, %edx
	call	ft_rt_entry
	RESTORE_ARGS
	ret
	.size	__fentry__, .-__fentry__

	.globl	ft_rt_patched
	.hidden	ft_rt_patched
	.type	ft_rt_patched, @function
ft_rt_patched:
	SAVE_ARGS
	mov	(%r11), %rdi
	lea	8(%r11), %rsi
	mov	$2, %edx
	call	ft_rt_entry
	RESTORE_ARGS
	ret
	.size	ft_rt_patched, .-ft_rt_patched

	.globl	mcount
	.type	mcount, @function
	.globl	_mcount
	.type	_mcount, @function
mcount:
_mcount:
	SAVE_ARGS
	mov	(%r11), %rdi
	lea	8(%rbp), %rsi
	mov	$0, %edx
	call	ft_rt_entry
	RESTORE_ARGS
	ret
	.size	mcount, .-mcount

/* uint64_t ft_rt_exit(uint64_t sp) in hooks.c: sp = stack pointer after the original ret */
	.globl	ft_rt_return
	.hidden	ft_rt_return
	.type	ft_rt_return, @function
ft_rt_return:
	sub	$8, %rsp		/* the dead slot S: will hold the real return address */
	push	%rbp
	mov	%rsp, %rbp
	and	$-16, %rsp
	sub	$64, %rsp
	mov	%rax, 0(%rsp)
	mov	%rdx, 8(%rsp)
	movaps	%xmm0, 16(%rsp)
	movaps	%xmm1, 32(%rsp)
	lea	16(%rbp), %rdi
	call	ft_rt_exit
	mov	%rax, 8(%rbp)
	mov	0(%rsp), %rax
	mov	8(%rsp), %rdx
	movaps	16(%rsp), %xmm0
	movaps	32(%rsp), %xmm1
	leave
	ret
	.size	ft_rt_return, .-ft_rt_return

	.section .note.GNU-stack,"",@progbits
