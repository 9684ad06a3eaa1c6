// SPDX-License-Identifier: GPL-2.0
/*
 * The tracers behind every hook.
 *
 *   ft_rt_entry()   from mcount / __fentry__ / a patched site (tramp.S)
 *   ft_rt_exit()    from ft_rt_return, where hijacked functions return
 *   ft_rt_cyg_enter / _exit   from __cyg_profile_func_enter / _exit
 *                   (-finstrument-functions, tramp.S)
 *
 * Hot path, in three tiers.  (1) tramp.S's assembly fast paths do
 * function_graph's common case (a traced function, nothing but filters set,
 * the ring page has room) with no call and only the registers they use
 * saved: about 100 instructions per entry and 75 per exit, two of them
 * rdtsc.  (2) When they cannot, the trampoline saves the argument registers
 * and calls ft_rt_entry_fast / ft_rt_exit_fast here, the same logic in C
 * (the portable version, and the reference for the assembly: fast_entry,
 * fast_exit, core/ringbuf_fast.h).  (3) Otherwise the vector registers are
 * saved too and ft_rt_entry / ft_rt_exit run the general path: every
 * tracer, option, filter region, trigger, dead frame, page switch.  Which
 * tier may run is decided once per control generation and thread: the
 * gate t->hot (rt_hot_update), so stacktrace, thresh, max depth, graph
 * regions and the other tracers cost one compare on the fast path.
 *
 * function_graph works as ftrace's: at entry the function's return address
 * (in its stack slot) is saved on a per-thread shadow stack and replaced by
 * ft_rt_return; when the function returns there, the exit is recorded and
 * the real address is returned to.  -finstrument-functions needs no hijack:
 * its exit hook is called by the compiled code, the shadow stack only keeps
 * the state (graph regions, depth, stack traces, thresh times).
 *
 * Frames that vanish without returning (longjmp, a caught exception, a
 * handler leaving through siglongjmp) are found by stack address: the
 * return-address slot of a live frame is always above (higher than) the
 * slot of anything it calls, so at an entry whose slot is at or above a
 * shadow frame's, or at a return whose slot is above it, that frame is dead.
 * Dead recorded frames are closed with one FT_EXT_UNWIND n record.
 *
 * Re-entrancy: each thread has a guard (rt_guard_recursion, rt.h).  A hook that runs
 * while another hook of the same thread is active (the runtime calling an
 * instrumented function such as a program-defined malloc, or a signal
 * handler interrupting a hook) does nothing except count the lost event --
 * like uftrace's guard around mcount_entry.  A handler that interrupts
 * ordinary code traces normally; its records go where ringbuf.h puts them.
 */
/*
 * This file is compiled without vector or x87 registers (GCC): the fast
 * paths (ft_rt_entry_fast, ft_rt_exit_fast) are called by the trampolines
 * with only the general-purpose argument / return registers saved, so they
 * must leave xmm0-7 (arguments) and xmm0-1 (return values) alone; they call
 * nothing.  Everything else here may call code of other files, which may
 * use those registers: the trampolines save them before any slow path.
 * Another compiler (no pragma), or a sanitizer build (its instrumentation
 * calls out), makes tramp.S save them on the fast path too (see there).
 */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("general-regs-only")
/* the fast paths are leaves: a frame pointer would only cost a register */
#define RT_FAST_FN __attribute__((visibility("hidden"), optimize("omit-frame-pointer")))
#else
#define RT_FAST_FN __attribute__((visibility("hidden")))
#endif

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/options.h"
#include "runtime/rt.h"
#include "core/ringbuf_fast.h"
#include "runtime/arch/x86_64/offsets.h"

#include <stddef.h>

/* tramp.S's fast paths use these offsets: offsets.h must match the structures */
#define RT_OFF(c, type, field)                                                                     \
	_Static_assert(c == offsetof(type, field), "update runtime/arch/x86_64/offsets.h: " #c)
RT_OFF(FT_OFF_T_HOT, struct rt_thread, hot);
RT_OFF(FT_OFF_T_BUSY, struct rt_thread, busy);
RT_OFF(FT_OFF_T_STATE, struct rt_thread, state);
RT_OFF(FT_OFF_T_DEPTH, struct rt_thread, depth);
RT_OFF(FT_OFF_T_NOTRACE, struct rt_thread, notrace);
RT_OFF(FT_OFF_T_REC_DEPTH, struct rt_thread, rec_depth);
RT_OFF(FT_OFF_T_FRAMES, struct rt_thread, frames);
RT_OFF(FT_OFF_RB_AREA, struct rt_thread, rb.area);
RT_OFF(FT_OFF_RB_SLOT, struct rt_thread, rb.slot);
RT_OFF(FT_OFF_RB_NEST, struct rt_thread, rb.nest);
RT_OFF(FT_OFF_W_PAGE, struct rt_thread, rb.lv[0].page);
RT_OFF(FT_OFF_W_NEV, struct rt_thread, rb.lv[0].nev);
RT_OFF(FT_OFF_W_LAST_TS, struct rt_thread, rb.lv[0].last_ts);
RT_OFF(FT_OFF_W_OFF, struct rt_thread, rb.lv[0].off);
RT_OFF(FT_OFF_W_LIM, struct rt_thread, rb.lv[0].lim);
RT_OFF(FT_OFF_W_DEPTH, struct rt_thread, rb.lv[0].depth);
RT_OFF(FT_OFF_W_GEN, struct rt_thread, rb.lv[0].gen);
RT_OFF(FT_OFF_RT_CTL, struct rt_state, ctl);
RT_OFF(FT_OFF_RT_EPOCH, struct rt_state, epoch);
RT_OFF(FT_OFF_RT_HTAB, struct rt_state, htab);
RT_OFF(FT_OFF_RT_HMASK2, struct rt_state, hmask2);
_Static_assert(offsetof(struct rt_hslot, key) == 0 && offsetof(struct rt_hslot, f) == 8 &&
		       sizeof(struct rt_hslot) == 16,
	       "tramp.S: a hash slot is the key, then f, 16 bytes");
RT_OFF(FT_OFF_CTL_GEN, struct ft_session_ctl, gen);
RT_OFF(FT_OFF_CTL_TRACING_ON, struct ft_session_ctl, tracing_on);
RT_OFF(FT_OFF_F_ADDR, struct rt_func, addr);
RT_OFF(FT_OFF_F_EPOCH, struct rt_func, epoch);
RT_OFF(FT_OFF_F_FLAGS, struct rt_func, flags);
RT_OFF(FT_OFF_F_FID, struct rt_func, fid);
RT_OFF(FT_OFF_FR_FUNC, struct rt_frame, func);
RT_OFF(FT_OFF_FR_RET, struct rt_frame, ret);
RT_OFF(FT_OFF_FR_SLOT, struct rt_frame, slot);
RT_OFF(FT_OFF_FR_FID, struct rt_frame, fid);
RT_OFF(FT_OFF_FR_FLAGS, struct rt_frame, flags);
RT_OFF(FT_OFF_FR_SID, struct rt_frame, sid1);
/* tramp.S tests "state READY and busy 0" with one 8-byte compare */
_Static_assert(FT_OFF_T_BUSY == FT_OFF_T_STATE + 4 && FT_OFF_T_STATE % 8 == 0 &&
		       sizeof(((struct rt_thread *)0)->state) == 4 &&
		       sizeof(((struct rt_thread *)0)->busy) == 4,
	       "offsets.h: state and busy share one 8-byte word");
_Static_assert(offsetof(struct rt_frame, pad) == FT_OFF_FR_FLAGS + 2 &&
		       FT_OFF_FR_SID == FT_OFF_FR_FLAGS + 4 &&
		       sizeof(((struct rt_frame *)0)->flags) == 2 &&
		       sizeof(((struct rt_frame *)0)->pad) == 2 &&
		       sizeof(((struct rt_frame *)0)->sid1) == 4,
	       "offsets.h: tramp.S writes flags, pad and sid1 with one 8-byte store");
RT_OFF(FT_OFF_SLOT_BUSY, struct ft_rb_slot, busy);
RT_OFF(FT_OFF_AREA_PAGE_SIZE, struct ft_rb_area, page_size);
RT_OFF(FT_OFF_AREA_SNAP_GEN, struct ft_rb_area, snap_gen);
RT_OFF(FT_OFF_PAGE_SIZE, struct ft_page, size);
_Static_assert(FT_SIZEOF_FRAME == sizeof(struct rt_frame), "offsets.h: FT_SIZEOF_FRAME");
_Static_assert(FT_SIZEOF_PAGE == sizeof(struct ft_page), "offsets.h: FT_SIZEOF_PAGE");
_Static_assert(FT_C_RT_MAX_FRAMES == RT_MAX_FRAMES && FT_C_RF_HOOK == RF_HOOK &&
		       FT_C_RF_TRACE == RF_TRACE && FT_C_FR_RECORDED == FR_RECORDED &&
		       FT_C_FR_RECORDED_CYG == (FR_RECORDED | FR_CYG) &&
		       FT_C_FID_MAX == FT_REC_FID_MAX && FT_C_EDELTA_MAX == FT_REC_EDELTA_MAX &&
		       FT_C_XDELTA_MAX == FT_REC_XDELTA_MAX && FT_REC_ENTRY == 0 &&
		       FT_REC_EXIT == 1 && FT_RB_LEVELS > 1 && FT_C_T_READY == RT_THREAD_READY &&
		       FT_C_HOOK_MCOUNT == RT_HOOK_MCOUNT && FT_C_HOOK_FENTRY == RT_HOOK_FENTRY &&
		       FT_C_HOOK_PATCHED == RT_HOOK_PATCHED && FT_C_HASH_MUL == RT_HASH_MUL &&
		       RT_HASH_MUL < 0x80000000u,
	       "offsets.h: constants");
/* the fields tramp.S stores 32-bit values in */
_Static_assert(sizeof(((struct rt_thread *)0)->rb.lv[0].off) == 4 &&
		       sizeof(((struct rt_thread *)0)->rb.lv[0].lim) == 4 &&
		       sizeof(((struct rt_thread *)0)->rb.lv[0].depth) == 4 &&
		       sizeof(((struct rt_thread *)0)->rb.nest) == 4 &&
		       sizeof(((struct ft_rb_slot *)0)->busy) == 4,
	       "offsets.h: field sizes");

static struct rt_func nofunc; /* negative cache entry: flags 0 */

static __attribute__((noinline, cold)) struct rt_func *lookup_slow(uint64_t key, int cyg)
{
	struct rt_func *f;

	/*
	 * Blocking is safe: rt.lock is only taken with the thread's busy
	 * guard set, so a hook can never run (and wait here) on a thread
	 * that already holds it -- not even from a signal handler.
	 */
	pthread_mutex_lock(&rt.lock);
	/* a hook's return address lies inside its function; cyg gives the entry */
	f = rt_func_of(cyg ? key : key - 1);
	if (!f)
		f = &nofunc;
	else if (f->epoch != rt.epoch)
		rt_func_eval(f);
	rt_hash_add(key, f);
	pthread_mutex_unlock(&rt.lock);
	return f;
}

/* The function of key from the hash, or NULL (not there yet): no lock, no call. */
static inline __attribute__((always_inline)) struct rt_func *lookup_fast(uint64_t key)
{
	uint32_t mask = rt.hmask, i = rt_hash_key(key) & mask;

	if (likely(mask)) {
		for (int n = 0; n < 16; n++) {
			/* acquire: pairs with hash_insert's release of the key (after the value) */
			uint64_t k = __atomic_load_n(&rt.htab[i].key, __ATOMIC_ACQUIRE);

			if (k == key)
				return __atomic_load_n(&rt.htab[i].f, __ATOMIC_RELAXED);
			if (k == RT_HASH_EMPTY)
				break;
			i = (i + 1) & mask;
		}
	}
	return NULL;
}

static inline struct rt_func *lookup(uint64_t key, int cyg)
{
	struct rt_func *f = lookup_fast(key);

	return likely(f) ? f : lookup_slow(key, cyg);
}

/* Flags of f for the current epoch, or 0 when they cannot be computed now. */
static inline uint16_t func_flags(struct rt_func *f)
{
	if (likely(__atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch))
		return f->flags;
	if (f == &nofunc)
		return 0;
	pthread_mutex_lock(&rt.lock); /* see lookup_slow() */
	if (f->epoch != rt.epoch)
		rt_func_eval(f);
	pthread_mutex_unlock(&rt.lock);
	return f->flags;
}

/* ---- records ---- */

/*
 * A call of f whose hook cannot run (a signal handler interrupted a hook of
 * this thread): count the records it would have written, in the unit every
 * lost count uses -- records, so a function_graph call lost whole counts
 * its entry and its exit (its return is never hijacked, so no exit comes),
 * a function tracer call one record (a call inside a lockheld / sigsoff
 * section too), a function the filters leave out or a tracer that records
 * no calls none.  f NULL (not looked up yet) or not
 * evaluated for this epoch: assumed selected (the lock that evaluates it
 * cannot be taken here).  Async-signal-safe; calls no hook.
 */
static void lost_call(struct rt_thread *t, struct rt_func *f)
{
	uint32_t n;

	if (f == &nofunc)
		return;
	if (f && __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch && !(f->flags & RF_TRACE))
		return;
	if (!__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return;
	if (rt.tracer == FT_TRACER_FUNCTION)
		n = 1;
	else if (rt.tracer == FT_TRACER_FUNCTION_GRAPH && !t->notrace &&
		 (!rt.have_graph_roots || t->roots) &&
		 (!rt.max_depth || t->rec_depth < (uint32_t)rt.max_depth))
		n = 2;
	else if ((rt.tracer == FT_TRACER_LOCKHELD || rt.tracer == FT_TRACER_SIGSOFF) &&
		 rt_ll_in_section(t))
		n = 1; /* written as the function tracer writes them (locklat.c) */
	else
		return;
	ft_rb__lost_nolevel(&t->rb, n);
}

/* Decrement a command count: 1 when the command may run (RT_CMD_UNLIMITED: always). */
static int take_count(int32_t *c)
{
	int32_t v = __atomic_load_n(c, __ATOMIC_RELAXED);

	while (v != RT_CMD_UNLIMITED) {
		if (v == 0)
			return 0;
		if (__atomic_compare_exchange_n(c, &v, v - 1, 0, __ATOMIC_RELAXED,
						__ATOMIC_RELAXED))
			return 1;
	}
	return 1;
}

/*
 * Function commands, as ftrace's probes: traceon/traceoff flip tracing_on
 * (the count is used only when the state really changes), stacktrace
 * records the stack when tracing is on, snapshot swaps the ring buffer
 * with its spare (events.c rt_snapshot; keeps its count while the previous
 * snapshot is still being saved).  Returns 1 when a stacktrace is
 * wanted after the function's record.
 */
static __attribute__((noinline)) int run_cmds(struct rt_thread *t, struct rt_func *f)
{
	uint32_t on = __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);
	int stack = 0;

	if ((f->cmd_mask & (1u << RT_CMD_TRACEOFF)) && on &&
	    take_count(&f->cmd_count[RT_CMD_TRACEOFF])) {
		ft_session_set_tracing_on(rt.sess, 0);
		rt_emit_ext(t, FT_EXT_TRACE_OFF, NULL, 0);
		on = 0;
	}
	if ((f->cmd_mask & (1u << RT_CMD_TRACEON)) && !on &&
	    take_count(&f->cmd_count[RT_CMD_TRACEON])) {
		ft_session_set_tracing_on(rt.sess, 1);
		rt_emit_ext(t, FT_EXT_TRACE_ON, NULL, 0);
		on = 1;
	}
	if ((f->cmd_mask & (1u << RT_CMD_STACKTRACE)) && on &&
	    take_count(&f->cmd_count[RT_CMD_STACKTRACE]))
		stack = 1;
	if ((f->cmd_mask & (1u << RT_CMD_SNAPSHOT)) && rt_snapshot_ready() &&
	    take_count(&f->cmd_count[RT_CMD_SNAPSHOT]))
		rt_snapshot(t); /* events.c: swap to the spare ring set */
	return stack;
}

static inline int in_altstack(struct rt_thread *t, uint64_t sp)
{
	return sp >= t->alt_lo && sp < t->alt_hi;
}

/*
 * The ENTRY of f with its arguments (args.c) from the registers the
 * trampoline saved, unless its --filter rejects them: then nothing is
 * written and 0 returned.  A function of its own for its stack buffer (see
 * exit_retval()).
 */
static __attribute__((noinline)) int entry_args(struct rt_thread *t, struct rt_func *f,
						uint32_t fid, uint64_t now, const uint64_t *regs,
						uint16_t fl)
{
	unsigned char buf[RT_ARGS_BUF];
	uint32_t n = (fl & RF_ARGS)
			     ? rt_args_capture(f->cap_args, regs, (const unsigned char *)(regs + 8),
					       buf, sizeof(buf))
			     : 0;

	if (f->cap_filter && n && !rt_args_match(f->cap_filter, f->cap_args, buf, n))
		return 0;
	if (n)
		ft_rb_entry_ext(&t->rb, fid, now, FT_EXT_ARGS, buf, n);
	else
		ft_rb_fast_entry(&t->rb, fid, now);
	return 1;
}

/*
 * The common entry: f was entered; its return address is ret, stored at
 * slot (hijackable when !cyg).  us: where the program was, for its stack
 * (-finstrument-functions: inside f; else f's caller, and f's entry is put
 * first).  Runs with t->busy held.
 */
static __attribute__((noinline)) void do_entry(struct rt_thread *t, struct rt_func *f,
					       uint64_t *slot, uint64_t ret, int cyg,
					       const struct rt_ustate *us, const uint64_t *regs)
{
	uint16_t fl = func_flags(f);
	uint32_t on, fid = RT_NOFID, sid1 = 0, sepoch = 0;
	uint16_t frflags = 0;
	int stack = 0;
	uint64_t now = 0;
	struct rt_frame *fr;

	/* the latency tracers see every call that gets here (stacktracer.c, locklat.c) */
	if (!(fl & RF_HOOK) && likely(!FT_TRACER_IS_ULAT(rt.tracer)))
		return;
	if (t->depth && !in_altstack(t, (uint64_t)slot)) {
		/*
		 * longjmp & co: frames at or below our slot are dead -- except
		 * after a tail call (jmp), where the callee's slot is the one
		 * its caller's frame hijacked and still holds ft_rt_return (or
		 * ft_rt_dyn_return: a patched caller, dynpatch.c's tail_call()):
		 * both frames stay, the callee's saved "return address" is
		 * that trampoline, and the two returns pop them in turn (as
		 * ftrace's function_graph does).
		 */
		int tail = !cyg && t->frames[t->depth - 1].slot == (uint64_t)slot &&
			   rt_is_ret_tramp(*slot);

		rt_unwind_to(t, (uint64_t)slot, !cyg && !tail);
		/*
		 * -finstrument-functions: a function inlined into its caller
		 * calls the hooks with the caller's stack pointer, so an equal
		 * "slot" is not enough to call the top frame dead.  A sibling
		 * (after a longjmp) has another call site; an inlined callee
		 * reports its caller's.
		 */
		while (cyg && t->depth && t->frames[t->depth - 1].slot == (uint64_t)slot &&
		       t->frames[t->depth - 1].ret != ret)
			rt_unwind_to_depth(t, t->depth - 1);
	}
	if (unlikely(fl & RF_CMD))
		stack = run_cmds(t, f);
	on = __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);

	if (unlikely(FT_TRACER_IS_ULAT(rt.tracer))) {
		if (rt.tracer == FT_TRACER_STACK) {
			rt_stk_entry(t, f, slot, cyg, us);
			goto stack_only;
		}
		/* lockheld, sigsoff: a lock or mask call whose return they need */
		if (!rt_ulat_entry(t, f, fl, slot, ret, cyg, us, regs))
			goto stack_only;
		frflags = FR_ULAT;
		goto push;
	}
	if (rt.tracer == FT_TRACER_FUNCTION) {
		if ((fl & RF_TRACE) && on) {
			uint32_t pfid;
			uint64_t parent = ret;

			fid = rt_func_fid(f);
			if (fid == RT_NOFID)
				goto stack_only;
			/* the parent: behind ft_rt_return after a tail call in a
			 * frame function_graph hijacked before a tracer change */
			if (!cyg && rt_is_ret_tramp(ret))
				parent = rt_shadow_ret(t, (uint64_t)slot);
			pfid = rt_addr_fid(parent);
			ft_rb_func(&t->rb, fid, pfid == RT_NOFID ? 0 : pfid + 1, parent,
				   ft_rdtsc());
			if (rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
				stack = 1;
			if (stack)
				rt_emit_stack(t, cyg ? 0 : f->addr, us, 0);
			stack = 0;
		}
		/*
		 * As ftrace's function tracer: no shadow frame, no return
		 * address touched (stacks are unwound, unwind.c), so the
		 * stacks the kernel takes see the program's own.
		 */
		goto stack_only;
	}
	if (rt.tracer != FT_TRACER_FUNCTION_GRAPH)
		goto stack_only;

	if (fl & RF_GRAPH_NOTRACE) {
		frflags = FR_NOTRACE;
		goto push;
	}
	if (t->notrace)
		goto stack_only;
	if (fl & RF_GRAPH_ROOT)
		frflags |= FR_ROOT;
	else if (rt.have_graph_roots && !t->roots)
		goto stack_only;
	if ((fl & RF_TRACE) && on && (!rt.max_depth || t->rec_depth < (uint32_t)rt.max_depth)) {
		fid = rt_func_fid(f);
		if (fid != RT_NOFID)
			frflags |= FR_RECORDED;
	}
	if (!frflags)
		goto stack_only;
push:
	if (unlikely(t->depth >= RT_MAX_FRAMES)) {
		/* a recorded call loses its entry and its exit; the function tracer's record is in */
		if (t->rb.area && (frflags & FR_RECORDED))
			ft_rb__lost_nolevel(&t->rb, 2);
		return;
	}
	now = ft_rdtsc();
	if (frflags & FR_RECORDED) {
		if (rt.thresh) {
			frflags |= FR_THRESH;
		} else if ((fl & (RF_ARGS | RF_RETVAL)) && regs) {
			/* a capture spec (args.c); -finstrument-functions has no registers */
			if (!entry_args(t, f, fid, now, regs, fl)) {
				/* --filter said no: the call is not recorded, its callees are */
				frflags &= (uint16_t)~FR_RECORDED;
				if (!frflags)
					goto stack_only;
				goto push_frame;
			}
			if (fl & RF_RETVAL)
				frflags |= FR_RETVAL;
			if (rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
				stack = 1;
			if (stack)
				rt_emit_stack(t, cyg ? 0 : f->addr, us, 0);
			stack = 0;
		} else {
			static int cyg_warned;

			/* relaxed: one warning, whichever thread gives it */
			if (cyg && (fl & (RF_ARGS | RF_RETVAL)) &&
			    !__atomic_exchange_n(&cyg_warned, 1, __ATOMIC_RELAXED))
				ft_session_msg(rt.sess,
					       "-finstrument-functions: arguments and return "
					       "values are not captured (its hooks run after "
					       "the prologue)");
			if (rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
				stack = 1;
			/* the entry and its stack in one write; the id stays with the frame */
			if (stack)
				sid1 = rt_entry_stack(t, fid, now, cyg ? 0 : f->addr, us, &sepoch);
			else
				ft_rb_fast_entry(&t->rb, fid, now);
			stack = 0;
		}
		t->rec_depth++;
	}
push_frame:
	if (frflags & FR_ROOT)
		t->roots++;
	if (frflags & FR_NOTRACE)
		t->notrace++;
	fr = &t->frames[t->depth];
	fr->func = f;
	fr->ret = ret;
	fr->slot = (uint64_t)slot;
	fr->ts = now;
	fr->fid = fid;
	fr->flags = (uint16_t)(frflags | (cyg ? FR_CYG : 0));
	fr->sid1 = sid1;
	fr->sepoch = sepoch;
	/* the frame is complete before it becomes visible (signal handlers) */
	ft_barrier();
	t->depth++;
	if (!cyg)
		*slot = (uint64_t)ft_rt_return;
stack_only:
	if (stack)
		rt_emit_stack(t, cyg ? 0 : f->addr, us, 1);
}

/*
 * The EXIT of fr with its return value (args.c), from rv as finish_frame()
 * gets it.  A function of its own: its buffer is on the stack only while
 * a value is captured (signal handlers may run on a small altstack).
 */
static __attribute__((noinline)) void exit_retval(struct rt_thread *t, struct rt_frame *fr,
						  const uint64_t *rv, uint64_t now)
{
	unsigned char buf[RT_ARGS_BUF];
	/* relaxed: see rt_func.cap_ret */
	uint32_t n = rt_retval_capture(__atomic_load_n(&fr->func->cap_ret, __ATOMIC_RELAXED), rv[0],
				       (const unsigned char *)(rv + 2), buf, sizeof(buf));

	ft_rb_exit_ext(&t->rb, now, FT_EXT_RETVAL, buf, n);
}

/*
 * Close frame fr (just popped): its exit record and region counters.  rv:
 * the return registers as ft_rt_return saved them (rax at 0, xmm0 at 16),
 * or NULL when the function did not return through it.
 */
static __attribute__((noinline)) void finish_frame(struct rt_thread *t, struct rt_frame *fr,
						   const uint64_t *rv)
{
	if (fr->flags & FR_RECORDED) {
		uint64_t now = ft_rdtsc();

		t->rec_depth--;
		if ((fr->flags & FR_RETVAL) && rv) {
			exit_retval(t, fr, rv, now);
		} else if (!(fr->flags & FR_THRESH)) {
			ft_rb_fast_exit(&t->rb, now);
		} else if (now - fr->ts >= rt.thresh) {
			/* tracing_thresh: the call is written at its exit, entry
			 * time first (time steps back: FT_EXT_TIME) */
			ft_rb_entry(&t->rb, fr->fid, fr->ts);
			ft_rb_exit(&t->rb, now);
		}
	}
	if (fr->flags & FR_ROOT)
		t->roots--;
	if (fr->flags & FR_NOTRACE)
		t->notrace--;
	if (unlikely(fr->flags & FR_ULAT))
		rt_ulat_exit(t, fr, rv);
}

/*
 * The fast path's gate, per thread: t->hot = ctl gen + 1 while the thread
 * is ready (pid filter passed, ring attached, not exiting) under a control
 * generation whose settings allow the fast path (rt.fast: function_graph
 * with nothing but filters), 0 otherwise.  A hook compares it with the
 * session's gen + 1: one TLS load and one shared load instead of the
 * state, generation and tracer checks.  Recomputed at the end of every slow
 * entry; any control change moves ctl gen, which closes the gate for every
 * thread until its next slow entry.  rt.gen is acquired first: it is
 * released by rt_sync_locked() after rt.fast, so the fast flag read after it
 * is at least as new as the generation stored (a later change moves ctl
 * gen past it anyway).
 */
static inline void rt_hot_update(struct rt_thread *t)
{
	uint32_t g = __atomic_load_n(&rt.gen, __ATOMIC_ACQUIRE);

	/*
	 * rt.hmask: tramp.S probes the hash without testing that it exists;
	 * rt.slot: nor does it test the ring slot at an entry -- an open gate
	 * promises one (every place that drops the slot closes the gate
	 * first: thread exit, fork's child, a new session).
	 */
	uint32_t ok = t->state == RT_THREAD_READY && t->gen == g && t->rb.slot && t->frames &&
		      rt.hmask;

	t->hot = rt.fast && ok ? g + 1 : 0;
	t->hot_stack = rt.fast_stack && ok ? g + 1 : 0;
}

/*
 * The fast path may run: the thread's gate is open for the session's
 * current generation, and no hook of this thread is active.  A closed gate
 * (0) also stands for "no session yet": rt.ctl is only read behind an open
 * one.
 */
static inline __attribute__((always_inline)) int hot_ok(struct rt_thread *t)
{
	uint32_t h = t->hot;

	/* acquire: as the slow path's read of ctl gen (the control block's seqlock) */
	return likely(h) && likely(!t->busy) &&
	       likely(h == __atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE) + 1);
}

/*
 * The common case of function_graph's entry, shared by every hook: f is
 * traced with its fid, nothing but filters is set (rt.fast, checked by the
 * caller through t->hot), tracing on, no graph_notrace region open, no dead
 * frame to close (the top frame's slot is above ours), room on the shadow
 * stack and in the ring page.  Runs with t->busy held.  Returns 1 when done;
 * 0 when the general path must handle the call -- nothing changed then (the
 * frame above the top may have been filled: it is free space).  Calls
 * nothing (see the top of the file).
 *
 * With regs (the saved rdi..r9: the entry trampolines), a function whose
 * spec captures integer registers only (f->plan_args, args.c) and perhaps
 * its return value is a common case too: the ENTRY and its FT_EXT_ARGS in
 * one write, the words the general path's entry_args() would write, the
 * registers copied by the precomputed plan; the frame gets FR_RETVAL when
 * the return value is wanted (fast_exit_retval).
 *
 * The frame is filled first, the ENTRY record written, then the frame made
 * visible (depth) and the slot hijacked: a signal handler that runs before
 * the depth store sees the shadow stack without it (and, busy being set,
 * records nothing of its own anyway).
 */
static inline __attribute__((always_inline)) int fast_entry(struct rt_thread *t, struct rt_func *f,
							    uint64_t *slot, uint64_t ret, int cyg,
							    const uint64_t *regs)
{
	uint32_t d = t->depth, fid = __atomic_load_n(&f->fid, __ATOMIC_RELAXED), nx = 0, delta, *p;
	const struct rt_argplan *pl = NULL;
	uint16_t fl = f->flags;
	struct rt_frame *fr;
	uint64_t now;

	/* frames[-1] is a sentinel whose slot is above every stack (rt_frames_alloc) */
	if (fl != RF_TRACE) {
		if (!regs || (fl & ~(RF_ARGS | RF_RETVAL)) != RF_TRACE)
			return 0;
		if (fl & RF_ARGS) {
			pl = f->plan_args;
			if (!pl)
				return 0;
			nx = pl->nw;
		}
	}
	if (fid > FT_REC_FID_MAX)
		return 0;
	if (t->notrace)
		return 0;
	if (unlikely(d >= RT_MAX_FRAMES))
		return 0;
	if (t->frames[(int32_t)d - 1].slot <= (uint64_t)slot)
		return 0;
	if (!__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return 0;
	fr = &t->frames[d];
	fr->func = f;
	fr->ret = ret;
	fr->slot = (uint64_t)slot;
	fr->fid = fid;
	/* ts: for FR_THRESH only */
	fr->flags =
		(uint16_t)(FR_RECORDED | (cyg ? FR_CYG : 0) | ((fl & RF_RETVAL) ? FR_RETVAL : 0));
	fr->sid1 = 0;
	fr->sepoch = 0;
	now = ft_rdtsc();
	if (likely(!pl)) {
		if (unlikely(ft_rb_fast_word(&t->rb, ft_rec_entry(fid, 0), now, FT_REC_EDELTA_MAX,
					     1)))
			return 0;
	} else {
		/* room for one more word: each value is stored as 8 bytes, the last may spill */
		p = ft_rb_fast_reserve(&t->rb, nx + 2, now, FT_REC_EDELTA_MAX, &delta);
		if (unlikely(!p))
			return 0;
		p[0] = ft_rec_entry(fid, delta);
		p[1] = pl->ext;
		p += 2;
		for (uint32_t i = 0; i < pl->n; i++) {
			/* the register's low 4 or 8 bytes, little endian */
			p[0] = pl->head[i];
			__builtin_memcpy(&p[1], &regs[pl->reg[i]], 8);
			p += 2 + pl->wide[i];
		}
		ft_rb_fast_commit(&t->rb, nx + 1, now, 1);
	}
	t->rec_depth++;
	/* the frame is complete before it becomes visible (signal handlers) */
	ft_barrier();
	t->depth = d + 1;
	if (!cyg)
		*slot = (uint64_t)ft_rt_return;
	return 1;
}

/*
 * fast_entry() with option stacktrace (-T, stack map on: rt.fast_stack,
 * checked by the caller through t->hot_stack), when unwind.c's memo knows
 * the call's stack id (rt_stack_memo: the caller is the top frame's
 * function, and the triple was seen): the ENTRY and its FT_EXT_STACK_ID in
 * one write, and the frame keeps the id for its callees.  Called by the
 * general entry (vector registers saved: it calls unwind.c and, when the
 * page is full, the general writer) before anything else, so -T's common
 * call skips hook_begin, thread_ready and do_entry, whose work the gate
 * stands for, as t->hot does for fast_entry.  Runs with t->busy held.
 * Returns 1 when done; 0 when do_entry must handle the call -- nothing
 * changed then (the map counted no hit: rt_stack_memo is the last check
 * that can fail).  Frame first, then the depth, as fast_entry.
 */
static inline __attribute__((always_inline)) int
fast_entry_stack(struct rt_thread *t, struct rt_func *f, uint64_t *slot, const struct rt_ustate *us)
{
	uint32_t d = t->depth, fid = __atomic_load_n(&f->fid, __ATOMIC_RELAXED), sid1, sepoch = 0;
	struct rt_frame *fr;
	uint64_t now;

	if (f->flags != RF_TRACE || fid > FT_REC_FID_MAX || t->notrace ||
	    unlikely(d >= RT_MAX_FRAMES) || t->frames[(int32_t)d - 1].slot <= (uint64_t)slot ||
	    !__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return 0;
	now = ft_rdtsc();
	sid1 = rt_stack_memo(t, f->addr, us, &sepoch);
	if (!sid1)
		return 0;
	/* lost or not, the call happened: the frame is pushed (as do_entry) */
	ft_rb_fast_entry_ext1(&t->rb, fid, now, FT_EXT_STACK_ID, sid1 - 1);
	fr = &t->frames[d];
	fr->func = f;
	fr->ret = *slot;
	fr->slot = (uint64_t)slot;
	fr->fid = fid;
	fr->flags = FR_RECORDED;
	fr->sid1 = sid1;
	fr->sepoch = sepoch;
	t->rec_depth++;
	/* the frame is complete before it becomes visible (signal handlers) */
	ft_barrier();
	t->depth = d + 1;
	*slot = (uint64_t)ft_rt_return;
	return 1;
}

/*
 * Pop the innermost frame when it is a plain recorded one owned by slot
 * (cyg: whose function is fn) and write its EXIT: function_graph's common
 * exit.  With rv (the saved rax at 0: ft_rt_return), a frame recorded
 * with a return-value spec whose plan reads rax (plan_ret, args.c) too:
 * the EXIT and its FT_EXT_RETVAL in one write, as exit_retval() writes
 * them.  Runs with t->busy held; calls nothing.  Returns the frame's real
 * return address, or 0 when the general path must handle the exit --
 * nothing changed then.
 */
static inline __attribute__((always_inline)) uint64_t
fast_exit(struct rt_thread *t, uint64_t slot, uint64_t fn, int cyg, const uint64_t *rv)
{
	uint32_t d = t->depth, delta, *p;
	struct rt_frame *fr =
		&t->frames[(int32_t)d - 1]; /* d = 0: the sentinel (rt_frames_alloc) */
	const struct rt_argplan *pl = NULL;
	uint64_t ret, now;

	if (cyg ? fr->flags != (FR_RECORDED | FR_CYG) || fr->func->addr != fn
		: (fr->flags != FR_RECORDED && (!rv || fr->flags != (FR_RECORDED | FR_RETVAL))) ||
			    fr->slot != slot)
		return 0;
	if (unlikely(t->state != RT_THREAD_READY))
		return 0;
	ret = fr->ret;
	now = ft_rdtsc();
	if (likely(fr->flags == FR_RECORDED) || cyg) {
		if (unlikely(ft_rb_fast_word(&t->rb, ft_rec_exit(0), now, FT_REC_XDELTA_MAX, -1)))
			return 0;
	} else {
		/* relaxed: see rt_func.cap_ret */
		pl = __atomic_load_n(&fr->func->plan_ret, __ATOMIC_RELAXED);
		if (!pl)
			return 0;
		p = ft_rb_fast_reserve(&t->rb, 4, now, FT_REC_XDELTA_MAX, &delta);
		if (unlikely(!p))
			return 0;
		p[0] = ft_rec_exit(delta);
		p[1] = pl->ext;
		p[2] = pl->head[0];
		__builtin_memcpy(&p[3], rv, 8); /* rax's low 4 or 8 bytes */
		ft_rb_fast_commit(&t->rb, 3u + pl->wide[0], now, -1);
	}
	/* the record first, then the pop: a handler in between sees the frame, busy */
	ft_barrier();
	t->depth = d - 1;
	t->rec_depth--;
	return ret;
}

static inline int thread_ready(struct rt_thread *t)
{
	if (likely(t->state == RT_THREAD_READY && t->gen == rt.gen))
		return 1;
	return rt_thread_get() != NULL;
}

static __attribute__((noinline, cold, noreturn)) void lost_frame(void)
{
	static const char msg[] = "ftrail: shadow stack lost its frame: aborting\n";

	if (write(2, msg, sizeof(msg) - 1) < 0)
		abort();
	abort();
}

/*
 * The entry trampolines' fast path (tramp.S), called with only the
 * general-purpose argument registers saved: calls nothing and uses no
 * vector register (see the top of the file).  key is the hook's return
 * address (inside the function), slot the function's return-address slot,
 * regs the saved rdi rsi rdx rcx r8 r9 (fast_entry: argument capture).  Returns 1 when the call is fully handled (traced through fast_entry, or a
 * function that is not hooked, no session, or detached), 0 when the trampoline must
 * call ft_rt_entry -- nothing changed then.
 */
RT_FAST_FN int ft_rt_entry_fast(uint64_t key, uint64_t *slot, const uint64_t *regs)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;
	int done;

	/* no session, or detached (init.c, rt_detach): nothing to do; else the general path */
	if (unlikely(!hot_ok(t)))
		return !rt.sess || __atomic_load_n(&rt.detached, __ATOMIC_RELAXED);
	f = lookup_fast(key);
	/* acquire: pairs with rt_func_eval's release of the epoch (flags computed) */
	if (unlikely(!f) || __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) != rt.epoch)
		return f == &nofunc; /* not a function we know: nothing to do */
	if (!(f->flags & RF_HOOK))
		return 1;
	rt_guard_recursion(t);
	done = fast_entry(t, f, slot, *slot, 0, regs);
	rt_unguard_recursion(t);
	return done;
}

/*
 * The general entry hooks' bracket.  hook_begin takes the thread's busy
 * guard (a hook re-entered from a signal handler or from our own calls
 * counts its event as lost instead of recursing) and applies a control
 * change the tool published (acquire on gen pairs with the tool's release
 * in ft_session_ctl_end), or detaches when the recorder is gone
 * (init.c, rt_detach).  Returns 0 when the hook must do nothing.  hook_end
 * refreshes the fast-path gate and drops the guard.
 */
static __attribute__((always_inline)) inline int hook_begin(struct rt_thread *t, uint64_t key)
{
	if (unlikely(t->busy)) {
		if (t->rb.area)
			lost_call(t, lookup_fast(key));
		return 0;
	}
	rt_guard_recursion(t);
	if (unlikely(__atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE) != rt.gen))
		rt_sync_ctl();
	if (rt_orphaned())
		rt_detach();
	return 1;
}

static __attribute__((always_inline)) inline void hook_end(struct rt_thread *t)
{
	rt_hot_update(t);
	rt_unguard_recursion(t);
}

/*
 * The entry trampolines' general path (after ft_rt_entry_fast said 0):
 * every hook kind, every tracer and option.  kind: enum rt_hook_kind.
 */
__attribute__((visibility("hidden"), flatten)) void ft_rt_entry(uint64_t key, uint64_t *slot,
								uint32_t kind, const uint64_t *regs)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;

	if (unlikely(!rt.sess))
		return;
	/*
	 * -T's common call (fast_entry_stack): the gate as hot_ok's, t->hot_stack's.
	 * A dead recorder is looked for here too (one load): tramp.S's fast
	 * paths meet it when a full ring page sends them to hook_begin, but
	 * this path writes a full page's record itself.
	 */
	if (t->hot_stack && !t->busy &&
	    t->hot_stack == __atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE) + 1 &&
	    likely(!rt_orphaned())) {
		f = lookup_fast(key);
		/* acquire: pairs with rt_func_eval's release of the epoch */
		if (f && __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch) {
			/* f's caller: see below */
			struct rt_ustate us = { *slot, (uint64_t)(slot + 1),
						kind == RT_HOOK_MCOUNT
							? slot[-1]
							: *(uint64_t *)__builtin_frame_address(0) };
			int done;

			if (!(f->flags & RF_HOOK))
				return;
			rt_guard_recursion(t);
			done = fast_entry_stack(t, f, slot, &us);
			rt_unguard_recursion(t);
			if (done)
				return;
		}
	}
	if (!hook_begin(t, key))
		return;
	if (thread_ready(t)) {
		f = lookup(key, 0);
		if (f && !(rt.fast && __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch &&
			   fast_entry(t, f, slot, *slot, 0, regs))) {
			/*
			 * f's caller, for its stack: the trampoline leaves rbp
			 * alone, so the program's is the one this frame saved;
			 * after mcount's prologue (push rbp; mov rsp, rbp) it
			 * is f's own, the caller's saved below the slot.
			 */
			uint64_t rbp = *(uint64_t *)__builtin_frame_address(0);
			struct rt_ustate us = { *slot, (uint64_t)(slot + 1),
						kind == RT_HOOK_MCOUNT ? slot[-1] : rbp };

			do_entry(t, f, slot, *slot, 0, &us, regs);
		}
	}
	hook_end(t);
}

/*
 * ft_rt_return's fast path, called with only rax and rdx saved (no vector
 * register used, nothing called): sp is the stack pointer after the
 * hijacked function's ret, rv the saved rax (at 0).  Returns the real return address, or 0 when
 * ft_rt_exit must handle this exit -- nothing changed then.
 */
RT_FAST_FN uint64_t ft_rt_exit_fast(uint64_t sp, const uint64_t *rv)
{
	struct rt_thread *t = &rt_self;
	uint64_t ret;

	if (unlikely(t->busy))
		return 0;
	rt_guard_recursion(t);
	ret = fast_exit(t, sp - 8, 0, 0, rv);
	rt_unguard_recursion(t);
	return ret;
}

/*
 * Called by ft_rt_return (when ft_rt_exit_fast said 0) with sp = the stack
 * pointer after the hijacked function's ret.  Returns the real return
 * address.  Never fails: when no shadow frame owns the slot the shadow
 * stack was corrupted (e.g. by stack switching we do not know of) and there
 * is nowhere to return: abort with a message.
 */
__attribute__((visibility("hidden"), flatten)) uint64_t ft_rt_exit(uint64_t sp, const uint64_t *rv)
{
	struct rt_thread *t = &rt_self;
	uint64_t slot = sp - 8;
	struct rt_frame fr;

	/* also when a hook of this thread is active: the frame must be popped */
	rt_guard_recursion(t);
	if (unlikely(t->depth && t->frames[t->depth - 1].slot < slot))
		rt_unwind_to(t, slot, 0);
	if (unlikely(!t->depth || t->frames[t->depth - 1].slot != slot))
		lost_frame();
	fr = t->frames[t->depth - 1];
	ft_barrier();
	t->depth--;
	if (likely(fr.flags == FR_RECORDED && t->state == RT_THREAD_READY)) {
		t->rec_depth--;
		ft_rb_fast_exit(&t->rb, ft_rdtsc());
	} else if (t->state == RT_THREAD_READY) {
		finish_frame(t, &fr, rv);
	}
	rt_unguard_recursion(t);
	return fr.ret;
}

/* ---- -finstrument-functions ---- */

/*
 * The hooks themselves, __cyg_profile_func_enter / _exit, are in
 * arch/x86_64/tramp.S: an assembly fast path that jumps here, arguments and
 * stack untouched, for everything else.
 */

/*
 * The instrumented function's return-address slot: the first word above
 * our frame that holds call_site (its return address), found within a few
 * words; else its stack pointer at the call.  Deeper calls have lower
 * slots; the same function, or one inlined in it, the same.
 */
static inline __attribute__((always_inline)) uint64_t *cyg_slot(uint64_t *sp, void *call_site)
{
	for (int i = 0; i < 32; i++)
		if (sp[i] == (uint64_t)call_site)
			return sp + i;
	return sp;
}

__attribute__((visibility("hidden"), no_instrument_function, flatten)) void
ft_rt_cyg_enter(void *fn, void *call_site)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;

	if (unlikely(!rt.sess))
		return;
	if (likely(hot_ok(t))) {
		/* the fast path (see ft_rt_entry_fast) */
		f = lookup_fast((uint64_t)fn);
		if (likely(f) && __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch) {
			int done = 1;

			if (f->flags & RF_HOOK) {
				rt_guard_recursion(t);
				done = fast_entry(
					t, f,
					cyg_slot((uint64_t *)((char *)__builtin_frame_address(0) +
							      16),
						 call_site),
					(uint64_t)call_site, 1, NULL);
				rt_unguard_recursion(t);
			}
			if (done)
				return;
		}
	}
	if (unlikely(__atomic_load_n(&rt.detached, __ATOMIC_RELAXED)))
		return; /* init.c, rt_detach: nothing is hooked any more */
	if (!hook_begin(t, (uint64_t)fn))
		return;
	if (thread_ready(t)) {
		uint64_t *sp =
			cyg_slot((uint64_t *)((char *)__builtin_frame_address(0) + 16), call_site);

		f = lookup((uint64_t)fn, 1);
		if (f && !(rt.fast && __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) == rt.epoch &&
			   fast_entry(t, f, sp, (uint64_t)call_site, 1, NULL))) {
			/* inside fn, at its call of the hook (tramp.S jumps here) */
			uint64_t *fp = __builtin_frame_address(0);
			struct rt_ustate us = { fp[1], (uint64_t)(fp + 2), fp[0] };

			do_entry(t, f, sp, (uint64_t)call_site, 1, &us, NULL);
		}
	}
	hook_end(t);
}

__attribute__((visibility("hidden"), no_instrument_function, flatten)) void
ft_rt_cyg_exit(void *fn, void *call_site)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;
	int i, lim;

	(void)call_site;
	if (unlikely(!rt.sess) || t->busy || !t->depth)
		return;
	rt_guard_recursion(t);
	/* fast path: the innermost frame is fn's, recorded */
	if (likely(fast_exit(t, 0, (uint64_t)fn, 1, NULL)))
		goto out;
	f = lookup((uint64_t)fn, 1);
	if (!f)
		goto out;
	i = (int)t->depth - 1;
	if (likely(t->frames[i].func == f && t->frames[i].flags == (FR_RECORDED | FR_CYG))) {
		ft_barrier();
		t->depth = (uint32_t)i;
		t->rec_depth--;
		if (t->state == RT_THREAD_READY)
			ft_rb_fast_exit(&t->rb, ft_rdtsc());
		goto out;
	}
	if (!(func_flags(f) & RF_HOOK))
		goto out;
	/* the innermost frame of fn; frames above it died (longjmp) */
	lim = t->depth > 64 ? (int)t->depth - 64 : 0;
	for (i = (int)t->depth - 1; i >= lim; i--)
		if (t->frames[i].func == f && (t->frames[i].flags & FR_CYG))
			break;
	if (i < lim)
		goto out;
	if ((uint32_t)i + 1 < t->depth) {
		/* a handler left by siglongjmp lies below us: closed first, with its frames */
		if (t->sig_level)
			rt_sig_unwind_to(t, (uint64_t)__builtin_frame_address(0));
		if ((uint32_t)i + 1 < t->depth)
			rt_unwind_to_depth(t, (uint32_t)i + 1);
	}
	{
		struct rt_frame fr = t->frames[i];

		ft_barrier();
		t->depth = (uint32_t)i;
		if (t->state == RT_THREAD_READY)
			finish_frame(t, &fr, NULL);
	}
out:
	rt_unguard_recursion(t);
}
