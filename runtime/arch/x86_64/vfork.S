/* SPDX-License-Identifier: GPL-2.0 */
/*
 * vfork() for traced programs (the C side is runtime/proc.c).
 *
 * The child of vfork runs in the parent's memory -- its stack, and the
 * calling thread's TLS: the runtime's per-thread state, shadow stack and
 * ring writer -- until it execs or _exits, while the parent waits.  It must
 * not record into the parent's stream (its calls, exec and exit would be
 * shown as the parent's) nor push shadow frames the parent would inherit,
 * so tracing is suspended for the calling thread (ft_rt_vfork_enter:
 * rt_self.busy++) before the system call, stays suspended in the child,
 * and resumes in the parent when the child is gone (ft_rt_vfork_leave,
 * which also records FT_EXT_FORK with the child's pid).  The exec'd image
 * traces itself as a new process.
 *
 * Like glibc's vfork, this cannot be C: the child returns first and may
 * overwrite the stack below its caller's frame (our own frame included),
 * so the return address is kept in a register across the system call,
 * and nothing else of ours lives on the stack meanwhile.
 */
	.text
	.globl	vfork
	.type	vfork, @function
vfork:
	sub	$8, %rsp		/* 16-byte alignment for the C call */
	call	ft_rt_vfork_enter
	add	$8, %rsp
	pop	%rdi			/* the return address, in a register */
	mov	$58, %eax		/* __NR_vfork */
	syscall
	push	%rdi
	test	%rax, %rax
	jz	1f			/* the child: tracing stays off, returns 0 */
	sub	$8, %rsp
	mov	%rax, %rdi
	call	ft_rt_vfork_leave	/* the parent: pid, or -1 with errno */
	add	$8, %rsp
1:	ret
	.size	vfork, .-vfork

	.section .note.GNU-stack,"",@progbits
