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
 *
 * Two steps each (hooks.c): first the fast path (ft_rt_entry_fast,
 * ft_rt_exit_fast), compiled without vector registers and calling nothing,
 * so only the general-purpose registers are saved around it; when it says
 * it cannot handle the call (it then changed nothing), the vector
 * registers are saved too and the general path (ft_rt_entry, ft_rt_exit)
 * runs.  Where hooks.c cannot be built without vector registers (not GCC),
 * or under a sanitizer (its instrumentation calls into its runtime), the
 * vector registers are saved before the fast path as well (FT_SAVE_ALL).
 *
 * In front of all that, for every hook (fentry, patched sites, mcount,
 * ft_rt_return, and __cyg_profile_func_enter/_exit at the end of the file),
 * an assembly fast path does function_graph's common case itself, with no call and
 * only the registers it uses saved (ft_rt_return: only the return registers,
 * in registers a return leaves dead): the same checks and stores as hooks.c's
 * fast_entry / fast_exit and core/ringbuf_fast.h's ft_rb_fast_word, in the
 * same order (busy guard, frame filled, ring nesting and slot busy, snap_gen,
 * room, delta, word, the page's count, size, nesting back, frame made
 * visible).  At
 * the first doubt it puts everything back and jumps to the C trampoline
 * (ENTRY_HOOK), which starts over.  Offsets come from offsets.h, checked
 * against the structures by hooks.c.  x86-64 is TSO: a plain store is a
 * release store and a plain load an acquire load, and stores are seen by
 * a signal handler of this thread in program order.
 *
 * ft_rt_return ends with an indirect jump to the real return address, not
 * a ret: the hijacked function's ret already consumed the return-stack
 * buffer's entry for this call (and mispredicted: it came here), so a jmp
 * keeps the predictor's stack in step with the real call stack and the
 * callers' own returns predict; a ret here would pop the entry of the
 * caller's caller, and every return above would mispredict in turn.
 * That leaves one misprediction per hijacked call, which no return
 * trampoline can avoid: only a site entered by a jump, whose hook then
 * calls the body ("call-through"), has its ret predicted.  Measured by
 * bench/fgraph_hijack.c's floors (bench/RESULTS.md, "The return hijack's
 * share"): on AMD Zen 4 the hijack costs nothing next to the two TSC
 * reads, a ret here costs 11% more, call-through gains nothing.
 */
#include "core/barrier.h"
#include "runtime/arch/x86_64/offsets.h"
#include "runtime/arch/x86_64/regs.inc"


	.text
	.hidden	rt
	.hidden	ft_rt_return
	.hidden	ft_rt_cyg_enter
	.hidden	ft_rt_cyg_exit

/*
 * An entry hook.  r11 = the rsp at entry ((%r11) = the hook's return
 * address, the key); slot = where the function's return address is, in
 * terms of r11 or rbp; kind = ft_rt_entry's third argument.
 *   int ft_rt_entry_fast(uint64_t key, uint64_t *slot, const uint64_t *regs)  fast path
 *   void ft_rt_entry(uint64_t key, uint64_t *slot, uint32_t kind, const uint64_t *regs)
 *       regs: the frame above (rdi rsi rdx rcx r8 r9 at 0, xmm0-7 at 64)
 */
.macro ENTRY_HOOK slot, kind
	mov	%rsp, %r11			/* regs.inc's frame, the caller's rsp in it */
	FRAME_ENTER 208
#ifdef FT_SAVE_ALL
	SAVE_XMM
#endif
	mov	(%r11), %rdi
	lea	\slot, %rsi
	mov	%rsp, %rdx			/* the saved argument registers (args.c) */
	call	ft_rt_entry_fast
	test	%eax, %eax
	jnz	1f
	mov	FT_FRAME_SP(%rsp), %r11
	mov	(%r11), %rdi
	lea	\slot, %rsi
	mov	$\kind, %edx
#ifndef FT_SAVE_ALL
	SAVE_XMM
#endif
	mov	%rsp, %rcx			/* the saved argument registers (args.c) */
	call	ft_rt_entry
#ifndef FT_SAVE_ALL
	RESTORE_XMM
#endif
1:
#ifdef FT_SAVE_ALL
	RESTORE_XMM
#endif
	FRAME_LEAVE
	ret
.endm


/*
 * HOT_F t, key, f, fail, other -- hooks.c hot_ok() and lookup_fast(): the
 * thread's gate is open for the session's current gen, no hook of the
 * thread is active, no graph_notrace region is open and no ring write is
 * in progress (one compare, see below), key's function is in the hash (16
 * probes at most), its flags are valid for the filter epoch and are
 * exactly RF_TRACE (else: jump to other with f set, where FLAGS_OTHER
 * tells "not hooked, nothing to do" from "the C path").  t: the TLS
 * offset of rt_self.  Out: f (a register, key or rdx), rcx = the control
 * block (rt.ctl, for TRACED).  Clobbers rax rcx rdx.
 */
.macro HOT_F t, key, f, fail, other
	mov	%fs:FT_OFF_T_HOT(\t), %eax
	sub	$1, %eax
	jb	\fail				/* closed (0): rt.ctl may not even exist */
	/*
	 * One compare for four conditions: hot - 1 - busy - notrace - nest
	 * equals the control block's gen exactly when the gate is open for
	 * that gen (hot = gen + 1) and busy, notrace and rb.nest are all 0.
	 * The three counters are small and never negative (notrace <=
	 * RT_MAX_FRAMES, busy and nest a few), and ctl gen only grows, from
	 * one session's control block to the next too (init.c starts a new
	 * block above the old gates), so a stale gate's hot - 1 - gen is a
	 * "negative" number no sum of counters reaches.
	 */
	sub	%fs:FT_OFF_T_BUSY(\t), %eax
	sub	%fs:FT_OFF_T_NOTRACE(\t), %eax
	sub	%fs:FT_OFF_RB_NEST(\t), %eax
	mov	rt+FT_OFF_RT_CTL(%rip), %rcx
	cmp	FT_OFF_CTL_GEN(%rcx), %eax	/* acquire (x86: any load) */
	jne	\fail
	/*
	 * rt.h rt_hash_key() & hmask, doubled: rax counts 8-byte words of
	 * htab, whose slots are 16 bytes (key, f).  Bit 31 of the product
	 * falls to bit 0, which hmask2 (even) clears.
	 */
	imul	$FT_C_HASH_MUL, \key, %rax
	shr	$31, %rax
	and	rt+FT_OFF_RT_HMASK2(%rip), %eax	/* != 0: the gate is closed without a table */
	mov	rt+FT_OFF_RT_HTAB(%rip), %rdx
	cmp	(%rdx,%rax,8), \key		/* the first probe hits, mostly (acquire) */
	je	102f
	push	%r8				/* the probe count (r8 is not saved otherwise) */
	mov	$16, %r8d
	mov	rt+FT_OFF_RT_HMASK2(%rip), %ecx
101:	cmp	(%rdx,%rax,8), \key
	je	103f
	cmpq	$0, (%rdx,%rax,8)		/* RT_HASH_EMPTY ends the chain */
	je	104f
	add	$2, %eax
	and	%ecx, %eax
	dec	%r8d
	jnz	101b
104:	pop	%r8
	jmp	\fail
103:	pop	%r8
	mov	rt+FT_OFF_RT_CTL(%rip), %rcx	/* the loop took rcx: the control block again */
102:	mov	8(%rdx,%rax,8), \f		/* never NULL, stored before the key (lookup.c) */
	mov	FT_OFF_F_EPOCH(\f), %eax
	cmp	rt+FT_OFF_RT_EPOCH(%rip), %eax
	jne	\fail
	cmpw	$FT_C_RF_TRACE, FT_OFF_F_FLAGS(\f)	/* traced, and nothing more */
	jne	\other
.endm

/* FLAGS_OTHER f, done, fail -- HOT_F's other: f not hooked (done), or hooked otherwise */
.macro FLAGS_OTHER f, done, fail
	testw	$FT_C_RF_HOOK, FT_OFF_F_FLAGS(\f)
	jz	\done
	jmp	\fail
.endm

/*
 * TRACED f, fail -- the rest of hooks.c fast_entry()'s first checks:
 * tracing is on (rcx: the control block HOT_F's gate compared with), f's
 * fid fits an ENTRY word.  Out: ecx = the fid.
 */
.macro TRACED f, fail
	cmpl	$0, FT_OFF_CTL_TRACING_ON(%rcx)
	je	\fail
	mov	FT_OFF_F_FID(\f), %ecx
	cmp	$FT_C_FID_MAX, %ecx
	ja	\fail
.endm

/*
 * RB_WORD t, dmax, entry, undo, slot -- core/ringbuf_fast.h
 * ft_rb_fast_word() at level 0, the caller having checked that no write is
 * in progress (rb.nest 0) and that the thread has a ring slot (slot: a
 * register holding it, else it is loaded from t): nest and the slot's busy
 * raised, then snap_gen compared (the snapshot protocol's order), room (one
 * compare with the level's lim: 0 without a page) and delta checked -- on
 * failure jump to undo with the begin to take back, nothing written --
 * then last_ts, the word (word | delta << 2), off, the page's event count
 * (in its nev word), the committed size (release: x86 stores are ordered),
 * the level's depth (+1 entry, -1 exit but never below 0), nest and busy
 * lowered.  The word: an ENTRY's in ecx (ft_rec_entry(fid, 0), upper half
 * of rcx zero); an EXIT's is ft_rec_exit(0) = 1.  Built with one lea:
 * delta <= dmax leaves the word's bits alone, so + is |.  Four registers:
 * rax, rdx (the TSC, then the page), rcx (the word), r11 (the offset).
 */
.macro RB_WORD t, dmax, entry, undo, slot
.ifb \slot
	mov	%fs:FT_OFF_RB_SLOT(\t), %rax
	movl	$1, %fs:FT_OFF_RB_NEST(\t)
	movl	$1, FT_OFF_SLOT_BUSY(%rax)
.else
	movl	$1, %fs:FT_OFF_RB_NEST(\t)
	movl	$1, FT_OFF_SLOT_BUSY(\slot)
.endif
	rdtsc
	shl	$32, %rdx
	or	%rax, %rdx			/* now */
	mov	%fs:FT_OFF_RB_AREA(\t), %rax
	mov	FT_OFF_AREA_SNAP_GEN(%rax), %eax
	cmp	%fs:FT_OFF_W_GEN(\t), %eax
	jne	\undo
	/* room: off + 4 <= lim, i.e. off < lim (both multiples of 4) */
	mov	%fs:FT_OFF_W_OFF(\t), %r11d
	cmp	%fs:FT_OFF_W_LIM(\t), %r11d
	jae	\undo
	mov	%rdx, %rax
	sub	%fs:FT_OFF_W_LAST_TS(\t), %rax
	cmp	$\dmax, %rax
	ja	\undo
	/* committed from here on */
	mov	%rdx, %fs:FT_OFF_W_LAST_TS(\t)
	mov	%fs:FT_OFF_W_PAGE(\t), %rdx
.if \entry
	lea	(%rcx,%rax,4), %ecx		/* word | delta << 2 */
.else
	lea	1(,%rax,4), %ecx		/* ft_rec_exit(0) | delta << 2 */
.endif
	mov	%ecx, FT_SIZEOF_PAGE(%rdx,%r11)	/* the record */
	add	$4, %r11d
	mov	%r11d, %fs:FT_OFF_W_OFF(\t)
	mov	%fs:FT_OFF_W_NEV(\t), %rax
	incl	(%rax)				/* the page's event count (its one writer) */
	mov	%r11d, FT_OFF_PAGE_SIZE(%rdx)	/* release: the committed size */
.if \entry
	incl	%fs:FT_OFF_W_DEPTH(\t)
.else
	cmpl	$1, %fs:FT_OFF_W_DEPTH(\t)	/* CF: depth 0 */
	adcl	$-1, %fs:FT_OFF_W_DEPTH(\t)	/* depth - 1, never below 0 */
.endif
	movl	$0, %fs:FT_OFF_RB_NEST(\t)
.ifb \slot
	mov	%fs:FT_OFF_RB_SLOT(\t), %rax
	movl	$0, FT_OFF_SLOT_BUSY(%rax)	/* release: the write is over */
.else
	movl	$0, FT_OFF_SLOT_BUSY(\slot)	/* release: the write is over */
.endif
.endm

/* RB_UNDO t, slot -- take back RB_WORD's begin and the hook's busy guard */
.macro RB_UNDO t, slot
	movl	$0, %fs:FT_OFF_RB_NEST(\t)
.ifb \slot
	mov	%fs:FT_OFF_RB_SLOT(\t), %rax
	movl	$0, FT_OFF_SLOT_BUSY(%rax)
.else
	movl	$0, FT_OFF_SLOT_BUSY(\slot)
.endif
	movl	$0, %fs:FT_OFF_T_BUSY(\t)
.endm

/*
 * RING_IDLE t, slot, fail -- no ring write in progress, and the thread
 * has a ring slot.  Out: slot = the ring slot.
 */
.macro RING_IDLE t, slot, fail
	cmpl	$0, %fs:FT_OFF_RB_NEST(\t)
	jne	\fail
	mov	%fs:FT_OFF_RB_SLOT(\t), \slot
	test	\slot, \slot
	jz	\fail
.endm

/*
 * FRAME_OK t, slot, fail -- the last checks of hooks.c fast_entry(): room
 * on the shadow stack, no dead frame (the top frame's slot is above ours;
 * frames[-1] is a sentinel above every stack).  No ring write in progress
 * and a ring slot: HOT_F's gate (an open gate promises a slot: hooks.c
 * rt_hot_update).  Out: rax = &frames[depth].
 */
.macro FRAME_OK t, slot, fail
	imul	$FT_SIZEOF_FRAME, %fs:FT_OFF_T_DEPTH(\t), %eax	/* depth <= RT_MAX_FRAMES */
	cmp	$FT_C_RT_MAX_FRAMES * FT_SIZEOF_FRAME, %eax
	jae	\fail
	add	%fs:FT_OFF_T_FRAMES(\t), %rax
	cmp	FT_OFF_FR_SLOT-FT_SIZEOF_FRAME(%rax), \slot
	jae	\fail
.endm

/*
 * TOP_FRAME t, fr, fail -- the first checks of hooks.c fast_exit(): no
 * hook of the thread active and the thread ready (state READY and busy 0:
 * one 8-byte compare, hooks.c checks the two fields' layout).  Out: fr =
 * &frames[depth] (frd: its 32-bit name): the top frame is at
 * -FT_SIZEOF_FRAME from it (FR_TOP; at depth 0 the sentinel).
 */
.macro TOP_FRAME t, fr, frd, fail
	cmpq	$FT_C_T_READY, %fs:FT_OFF_T_STATE(\t)
	jne	\fail
	imul	$FT_SIZEOF_FRAME, %fs:FT_OFF_T_DEPTH(\t), \frd	/* depth <= RT_MAX_FRAMES */
	add	%fs:FT_OFF_T_FRAMES(\t), \fr
.endm
#define FR_TOP(off) ((off) - FT_SIZEOF_FRAME)

/* FRAME_POP t -- after the EXIT: the top frame gone, the busy guard down */
.macro FRAME_POP t
	decl	%fs:FT_OFF_T_DEPTH(\t)
	decl	%fs:FT_OFF_T_REC_DEPTH(\t)
	movl	$0, %fs:FT_OFF_T_BUSY(\t)
.endm

/*
 * The assembly fast path of an entry hook (see the top).  At entry
 * (%rsp) = the hook's return address (the key); slot = where the function's
 * return address is once rax rcx rdx rsi are pushed (32 bytes down);
 * full = the C trampoline to jump to, with the stack as at entry, when this
 * path cannot finish.  rsi: the TLS offset of rt_self; r11: the key, then
 * the slot's address, then the page offset; rdx: f, then the TSC and the
 * ring page; rcx: the control block, then the fid, then the word; rax:
 * the frame.  r11 is the one register a call leaves free at a function's
 * first instruction, so four are pushed.
 */
.macro ENTRY_FAST slot, full
	PUSH_SCRATCH
	mov	rt_self@gottpoff(%rip), %rsi
	mov	32(%rsp), %r11
	HOT_F	%rsi, %r11, %rdx, 90f, 95f
	TRACED	%rdx, 90f
	lea	\slot, %r11
	FRAME_OK %rsi, %r11, 90f
	/* busy: a signal handler's hooks leave the shadow stack alone from here */
	movl	$1, %fs:FT_OFF_T_BUSY(%rsi)
	/* the frame, invisible until depth moves */
	mov	%rdx, FT_OFF_FR_FUNC(%rax)
	mov	(%r11), %rdx
	mov	%rdx, FT_OFF_FR_RET(%rax)
	mov	%r11, FT_OFF_FR_SLOT(%rax)
	mov	%ecx, FT_OFF_FR_FID(%rax)
	/* flags, pad and sid1 = 0 (no stack id: sepoch unread, unwind.c) */
	movq	$FT_C_FR_RECORDED, FT_OFF_FR_FLAGS(%rax)
	shl	$14, %ecx			/* ft_rec_entry(fid, 0) */
	RB_WORD	%rsi, FT_C_EDELTA_MAX, 1, 85f
	/* the frame becomes visible, then the slot is hijacked */
	incl	%fs:FT_OFF_T_REC_DEPTH(%rsi)
	incl	%fs:FT_OFF_T_DEPTH(%rsi)
	lea	ft_rt_return(%rip), %rax
	mov	%rax, \slot
	movl	$0, %fs:FT_OFF_T_BUSY(%rsi)
80:	POP_SCRATCH
	ret
85:	RB_UNDO	%rsi
90:	POP_SCRATCH
	jmp	\full
95:	FLAGS_OTHER %rdx, 80b, 90b
.endm

	.globl	__fentry__
	.type	__fentry__, @function
	.globl	ft_rt_fentry
	.hidden	ft_rt_fentry
	.type	ft_rt_fentry, @function
__fentry__:
ft_rt_fentry:
	ENTRY_FAST 40(%rsp), fentry_c
	.size	__fentry__, .-__fentry__

	.type	fentry_c, @function
fentry_c:
	ENTRY_HOOK 8(%r11), FT_C_HOOK_FENTRY
	.size	fentry_c, .-fentry_c

	.globl	ft_rt_patched
	.hidden	ft_rt_patched
	.type	ft_rt_patched, @function
ft_rt_patched:
	ENTRY_FAST 40(%rsp), patched_c
	.size	ft_rt_patched, .-ft_rt_patched

	.type	patched_c, @function
patched_c:
	ENTRY_HOOK 8(%r11), FT_C_HOOK_PATCHED
	.size	patched_c, .-patched_c

	/* -pg keeps the frame pointer: the return-address slot is 8(%rbp) */
	.globl	mcount
	.type	mcount, @function
	.globl	_mcount
	.type	_mcount, @function
mcount:
_mcount:
	ENTRY_FAST 8(%rbp), mcount_c
	.size	mcount, .-mcount

	.type	mcount_c, @function
mcount_c:
	ENTRY_HOOK 8(%rbp), FT_C_HOOK_MCOUNT
	.size	mcount_c, .-mcount_c

/*
 * Where a hijacked function returns to.  rbp+8 = the stack pointer after
 * its ret (the push of rbp reuses the dead return-address slot).
 *   uint64_t ft_rt_exit_fast(uint64_t sp, const uint64_t *rv)   real return address, or 0
 *   uint64_t ft_rt_exit(uint64_t sp)        real return address
 */
	.globl	ft_rt_return
	.type	ft_rt_return, @function
ft_rt_return:
	/*
	 * The assembly fast path (hooks.c fast_exit()): the top frame is a
	 * plain recorded one owned by the slot just below our stack pointer;
	 * write its EXIT, pop it, jump to its caller.  rsi: the TLS offset of
	 * rt_self; rdi: the frame; r9: the ring slot; r11: at the end, the
	 * real return address.
	 *
	 * A function's return leaves only rax and rdx (and xmm0-1, st0,
	 * untouched here) for its caller, every other caller-saved register
	 * is dead (the C path below clobbers them as well): rax goes on the
	 * stack, into the dead return-address slot the ret just left (so rsp
	 * is that slot's address, the frame's key), rdx waits in r10.
	 */
	push	%rax
	mov	%rdx, %r10
	mov	rt_self@gottpoff(%rip), %rsi
	TOP_FRAME %rsi, %rdi, %edi, 90f
	cmp	FR_TOP(FT_OFF_FR_SLOT)(%rdi), %rsp	/* the slot: where the ret found us */
	jne	90f
	cmpw	$FT_C_FR_RECORDED, FR_TOP(FT_OFF_FR_FLAGS)(%rdi)
	jne	90f
	RING_IDLE %rsi, %r9, 90f
	movl	$1, %fs:FT_OFF_T_BUSY(%rsi)
	RB_WORD	%rsi, FT_C_XDELTA_MAX, 0, 85f, %r9
	/* the record first, then the pop */
	mov	FR_TOP(FT_OFF_FR_RET)(%rdi), %r11
	FRAME_POP %rsi
	pop	%rax
	mov	%r10, %rdx
	jmp	*%r11
85:	RB_UNDO	%rsi, %r9
90:	pop	%rax
	mov	%r10, %rdx
	/* the C path, with the stack as the hijacked function's ret left it */
	push	%rbp
	mov	%rsp, %rbp
	and	$-16, %rsp
	sub	$48, %rsp
	mov	%rax, 0(%rsp)
	mov	%rdx, 8(%rsp)
#ifdef FT_SAVE_ALL
	XMM_SAVE 16, xmm0, xmm1
#endif
	lea	8(%rbp), %rdi
	mov	%rsp, %rsi			/* rax as saved (args.c) */
	call	ft_rt_exit_fast
	test	%rax, %rax
	jnz	1f
	lea	8(%rbp), %rdi
#ifndef FT_SAVE_ALL
	XMM_SAVE 16, xmm0, xmm1
#endif
	mov	%rsp, %rsi			/* rax, rdx, xmm0 as saved (args.c) */
	call	ft_rt_exit
#ifndef FT_SAVE_ALL
	XMM_RESTORE 16, xmm0, xmm1
#endif
1:
#ifdef FT_SAVE_ALL
	XMM_RESTORE 16, xmm0, xmm1
#endif
	mov	%rax, %r11
	mov	0(%rsp), %rax
	mov	8(%rsp), %rdx
	leave
	jmp	*%r11
	.size	ft_rt_return, .-ft_rt_return


/*
 * -finstrument-functions: __cyg_profile_func_enter(fn, call_site) and
 * __cyg_profile_func_exit(fn, call_site), ordinary calls, so every
 * caller-saved register is ours.  The same fast paths as above (no hijack:
 * the compiled code calls the exit hook), else a tail jump, with the
 * arguments and the stack untouched, to hooks.c's C hooks, which start
 * over.  r10: the TLS offset of rt_self; r9: f; r8: the slot.
 */
	.globl	__cyg_profile_func_enter
	.type	__cyg_profile_func_enter, @function
__cyg_profile_func_enter:
	mov	rt_self@gottpoff(%rip), %r10
	mov	%rdi, %r9
	HOT_F	%r10, %r9, %r9, 90f, 95f
	TRACED	%r9, 90f
	/*
	 * The instrumented function's return-address slot (hooks.c
	 * cyg_slot()): the first of 32 words above our return address that
	 * holds call_site, else the word just above it.
	 */
	lea	8(%rsp), %rdx
	lea	8+32*8(%rsp), %r11
3:	cmp	(%rdx), %rsi
	je	4f
	add	$8, %rdx
	cmp	%r11, %rdx
	jne	3b
	lea	8(%rsp), %rdx
4:	mov	%rdx, %r8
	FRAME_OK %r10, %r8, 90f
	movl	$1, %fs:FT_OFF_T_BUSY(%r10)
	mov	%r9, FT_OFF_FR_FUNC(%rax)
	mov	%rsi, FT_OFF_FR_RET(%rax)
	mov	%r8, FT_OFF_FR_SLOT(%rax)
	mov	%ecx, FT_OFF_FR_FID(%rax)
	movq	$FT_C_FR_RECORDED_CYG, FT_OFF_FR_FLAGS(%rax)	/* + pad, sid1 = 0 */
	shl	$14, %ecx
	RB_WORD	%r10, FT_C_EDELTA_MAX, 1, 85f
	incl	%fs:FT_OFF_T_REC_DEPTH(%r10)
	incl	%fs:FT_OFF_T_DEPTH(%r10)
	movl	$0, %fs:FT_OFF_T_BUSY(%r10)
80:	ret
85:	RB_UNDO	%r10
90:	jmp	ft_rt_cyg_enter
95:	FLAGS_OTHER %r9, 80b, 90b
	.size	__cyg_profile_func_enter, .-__cyg_profile_func_enter

	.globl	__cyg_profile_func_exit
	.type	__cyg_profile_func_exit, @function
__cyg_profile_func_exit:
	mov	rt_self@gottpoff(%rip), %r10
	TOP_FRAME %r10, %r8, %r8d, 90f
	cmpw	$FT_C_FR_RECORDED_CYG, FR_TOP(FT_OFF_FR_FLAGS)(%r8)
	jne	90f
	mov	FR_TOP(FT_OFF_FR_FUNC)(%r8), %rax
	cmp	FT_OFF_F_ADDR(%rax), %rdi
	jne	90f
	RING_IDLE %r10, %r9, 90f
	movl	$1, %fs:FT_OFF_T_BUSY(%r10)
	RB_WORD	%r10, FT_C_XDELTA_MAX, 0, 85f, %r9
	FRAME_POP %r10
	ret
85:	RB_UNDO	%r10, %r9
90:	jmp	ft_rt_cyg_exit
	.size	__cyg_profile_func_exit, .-__cyg_profile_func_exit

	.section .note.GNU-stack,"",@progbits
