// SPDX-License-Identifier: GPL-2.0
/*
 * The tracers behind every hook.
 *
 *   ft_rt_entry()   from mcount / __fentry__ / a patched site (tramp.S)
 *   ft_rt_exit()    from ft_rt_return, where hijacked functions return
 *   __cyg_profile_func_enter / _exit   -finstrument-functions
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
 * Re-entrancy: each thread has a guard (rt_self.busy).  A hook that runs
 * while another hook of the same thread is active (the runtime calling an
 * instrumented function such as a program-defined malloc, or a signal
 * handler interrupting a hook) does nothing except count the lost event --
 * like uftrace's guard around mcount_entry.  A handler that interrupts
 * ordinary code traces normally; its records go where ringbuf.h puts them.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "clock.h"
#include "options.h"
#include "rt.h"

static struct rt_func nofunc; /* negative cache entry: flags 0 */

/* ---- address -> function hash ---- */

static inline uint32_t hash_key(uint64_t k)
{
	k ^= k >> 29;
	k *= 0xbf58476d1ce4e5b9ull;
	return (uint32_t)(k >> 32);
}

/* Allocate the table for about nr functions (control path, at init). */
void rt_hash_init(uint32_t nr)
{
	uint32_t size = 4096;

	while (size < nr * 4 && size < (1u << 22))
		size <<= 1;
	rt.hkeys = mmap_anon(size * sizeof(uint64_t));
	rt.hvals = mmap_anon(size * sizeof(struct rt_func *));
	if (!rt.hkeys || !rt.hvals) {
		rt.hmask = 0;
		return;
	}
	rt.hmask = size - 1;
}

/*
 * Insert key -> f.  Lock-free against lookups: the key is claimed with a
 * CAS, the value published with a release store; a lookup that sees the
 * key before the value takes the slow path.  Inserts are serialised by
 * rt.lock.  Never more than 3/4 full (then slow lookups continue to work).
 */
static void hash_insert(uint64_t key, struct rt_func *f)
{
	uint32_t i;

	if (!rt.hmask || rt.hused * 4 > rt.hmask * 3)
		return;
	i = hash_key(key) & rt.hmask;
	for (;;) {
		uint64_t k = __atomic_load_n(&rt.hkeys[i], __ATOMIC_ACQUIRE);

		if (k == key)
			return;
		if (!k) {
			__atomic_store_n(&rt.hkeys[i], key, __ATOMIC_RELAXED);
			/* release: pairs with the lookup's acquire of the value */
			__atomic_store_n(&rt.hvals[i], f, __ATOMIC_RELEASE);
			rt.hused++;
			return;
		}
		i = (i + 1) & rt.hmask;
	}
}

/*
 * Drop every key in [lo, hi) (an object was dlclose()d): tombstone 1 keeps
 * the probe chains intact and matches no address.  Caller holds rt.lock.
 * A lookup racing with this may still return the old function: harmless,
 * no code of the closed object can be running any more.
 */
void rt_hash_forget(uint64_t lo, uint64_t hi)
{
	if (!rt.hmask)
		return;
	for (uint32_t i = 0; i <= rt.hmask; i++) {
		uint64_t k = __atomic_load_n(&rt.hkeys[i], __ATOMIC_RELAXED);

		if (k >= lo && k < hi) {
			__atomic_store_n(&rt.hvals[i], NULL, __ATOMIC_RELAXED);
			__atomic_store_n(&rt.hkeys[i], 1, __ATOMIC_RELEASE);
		}
	}
}

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
	hash_insert(key, f);
	pthread_mutex_unlock(&rt.lock);
	return f;
}

static inline struct rt_func *lookup(uint64_t key, int cyg)
{
	uint32_t i = hash_key(key) & rt.hmask;

	if (likely(rt.hmask)) {
		for (int n = 0; n < 16; n++) {
			uint64_t k = __atomic_load_n(&rt.hkeys[i], __ATOMIC_RELAXED);

			if (k == key) {
				struct rt_func *f = __atomic_load_n(&rt.hvals[i], __ATOMIC_ACQUIRE);

				if (likely(f))
					return f;
				break;
			}
			if (!k)
				break;
			i = (i + 1) & rt.hmask;
		}
	}
	return lookup_slow(key, cyg);
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

void rt_emit_ext(struct rt_thread *t, uint32_t type, const void *p, uint32_t len)
{
	if (t->rb.area)
		ft_rb_ext(&t->rb, type, p, len, ft_rdtsc(), 1, 1);
}

/*
 * The current call stack from the shadow stack: f itself, its return
 * address, then the real return address of every open frame, innermost
 * first.  As a stack id (option stackmap) or, when the map cannot serve,
 * the full stack.  standalone: an event of its own (a stacktrace command),
 * else an attachment to the record just written.
 */
static __attribute__((noinline)) void emit_stack(struct rt_thread *t, struct rt_func *f,
						uint64_t ret, int standalone)
{
	struct {
		uint32_t nr, zero;
		uint64_t ips[FT_STACKMAP_MAX_DEPTH];
	} st;
	uint32_t n = 0, max = rt.stack_depth;
	uint64_t now = ft_rdtsc();

	if (!max || max > FT_STACKMAP_MAX_DEPTH)
		max = FT_STACKMAP_MAX_DEPTH;
	st.ips[n++] = f->addr;
	if (ret && n < max)
		st.ips[n++] = ret;
	for (int i = (int)t->depth - 1; i >= 0 && n < max; i--)
		st.ips[n++] = t->frames[i].ret;
	if ((rt.options & FT_OPT(STACKMAP)) && rt.smap_ok) {
		int id = ft_stackmap_get_id(&rt.smap, st.ips, n);

		if (id >= 0) {
			uint32_t v = (uint32_t)id;

			ft_rb_ext(&t->rb, FT_EXT_STACK_ID, &v, 4, now, standalone, standalone);
			return;
		}
	}
	st.nr = n;
	st.zero = 0;
	ft_rb_ext(&t->rb, FT_EXT_STACK, &st, 8 + 8 * n, now, standalone, standalone);
}

/* Decrement a command count: 1 when the command may run (count -1 = unlimited). */
static int take_count(int32_t *c)
{
	int32_t v = __atomic_load_n(c, __ATOMIC_RELAXED);

	while (v != -1) {
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
RT_HIDDEN void rt_snapshot(struct rt_thread *t); /* events.c */
RT_HIDDEN int rt_snapshot_ready(void);             /* events.c */

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

/* ---- shadow stack ---- */

/*
 * Pop shadow frames until depth is target: frames that died without
 * returning.  Recorded ones are closed with one FT_EXT_UNWIND record.
 */
static __attribute__((noinline)) void unwind_to_depth(struct rt_thread *t, uint32_t target)
{
	uint32_t n = 0;

	while (t->depth > target) {
		struct rt_frame *fr = &t->frames[t->depth - 1];

		if (fr->flags & FR_RECORDED) {
			t->rec_depth--;
			if (!(fr->flags & FR_THRESH))
				n++;
		}
		if (fr->flags & FR_ROOT)
			t->roots--;
		if (fr->flags & FR_NOTRACE)
			t->notrace--;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->depth--;
	}
	if (n && t->rb.area) {
		struct ft_rb_wlevel *w = &t->rb.lv[t->rb.nest < FT_RB_LEVELS ? t->rb.nest : 0];

		ft_rb_ext(&t->rb, FT_EXT_UNWIND, &n, 4, ft_rdtsc(), 1, 1);
		ft_rb_set_depth(&t->rb, w->depth > n ? w->depth - n : 0);
	}
}

/*
 * Drop the frames at the top of the shadow stack whose slot lies below sp
 * (inclusive: at or below sp), which died without returning.
 */
__attribute__((noinline)) void rt_unwind_to(struct rt_thread *t, uint64_t sp, int inclusive)
{
	uint32_t d = t->depth;

	while (d) {
		uint64_t s = t->frames[d - 1].slot;

		if (inclusive ? s > sp : s >= sp)
			break;
		d--;
	}
	if (d != t->depth)
		unwind_to_depth(t, d);
}

static inline int in_altstack(struct rt_thread *t, uint64_t sp)
{
	return sp >= t->alt_lo && sp < t->alt_hi;
}

/*
 * The common entry: f was entered; its return address is ret, stored at
 * slot (hijackable when !cyg).  Runs with t->busy held.
 */
static __attribute__((noinline)) void do_entry(struct rt_thread *t, struct rt_func *f,
					       uint64_t *slot, uint64_t ret, int cyg)
{
	uint16_t fl = func_flags(f);
	uint32_t on, fid = RT_NOFID;
	uint16_t frflags = 0;
	int stack = 0;
	uint64_t now = 0;
	struct rt_frame *fr;

	if (!(fl & RF_HOOK))
		return;
	if (t->depth && !in_altstack(t, (uint64_t)slot)) {
		/*
		 * longjmp & co: frames at or below our slot are dead -- except
		 * after a tail call (jmp), where the callee's slot is the one
		 * its caller's frame hijacked and still holds ft_rt_return:
		 * both frames stay, the callee's saved "return address" is
		 * ft_rt_return, and the two returns pop them in turn (as
		 * ftrace's function_graph does).
		 */
		int tail = !cyg && t->frames[t->depth - 1].slot == (uint64_t)slot &&
			   *slot == (uint64_t)ft_rt_return;

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
			unwind_to_depth(t, t->depth - 1);
	}
	if (unlikely(fl & RF_CMD))
		stack = run_cmds(t, f);
	on = __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED);

	if (rt.tracer == FT_TRACER_FUNCTION) {
		if ((fl & RF_TRACE) && on) {
			uint32_t pfid;

			fid = rt_func_fid(f);
			if (fid == RT_NOFID)
				goto stack_only;
			pfid = rt_addr_fid(ret);
			ft_rb_func(&t->rb, fid, pfid == RT_NOFID ? 0 : pfid + 1, ret, ft_rdtsc());
			if (rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
				stack = 1;
			if (stack)
				emit_stack(t, f, ret, 0);
			stack = 0;
		}
		/* the shadow stack is kept only when stacks are asked for */
		if (!(rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE))))
			goto stack_only;
		frflags = FR_KEEP;
		goto push;
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
		if (t->rb.area)
			ft_rb__lost_nolevel(&t->rb, 1);
		return;
	}
	now = ft_rdtsc();
	if (frflags & FR_RECORDED) {
		if (rt.thresh) {
			frflags |= FR_THRESH;
		} else {
			ft_rb_entry(&t->rb, fid, now);
			if (rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE)))
				stack = 1;
			if (stack)
				emit_stack(t, f, ret, 0);
			stack = 0;
		}
		t->rec_depth++;
	}
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
	/* the frame is complete before it becomes visible (signal handlers) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->depth++;
	if (!cyg)
		*slot = (uint64_t)ft_rt_return;
stack_only:
	if (stack)
		emit_stack(t, f, ret, 1);
}

/* Close frame fr (just popped): its exit record and region counters. */
static __attribute__((noinline)) void finish_frame(struct rt_thread *t, struct rt_frame *fr)
{
	if (fr->flags & FR_RECORDED) {
		uint64_t now = ft_rdtsc();

		t->rec_depth--;
		if (!(fr->flags & FR_THRESH)) {
			ft_rb_exit(&t->rb, now);
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
}

/*
 * One ENTRY (is_exit 0, word = ft_rec_entry(fid, 0)) or EXIT record, through
 * ringbuf.h's writers (which own the ring protocol: nesting, snapshot
 * generation, page switch, delta encoding).
 */
static inline __attribute__((always_inline)) void rec_word(struct rt_thread *t, uint32_t word,
							   int is_exit, uint64_t now)
{
	if (is_exit)
		ft_rb_exit(&t->rb, now);
	else
		ft_rb_entry(&t->rb, ft_rec_fid(word), now);
}

/*
 * The fast path of function_graph (rt.fast: no thresh, depth limit, graph
 * regions or stack traces): a traced function with its fid, tracing on,
 * no dead frame to close.  Returns 0 to take the general path.
 */
static inline __attribute__((always_inline)) int fast_entry(struct rt_thread *t,
							    struct rt_func *f, uint64_t *slot,
							    uint64_t ret, int cyg)
{
	struct rt_frame *fr;
	uint32_t d = t->depth, fid = f->fid;
	uint64_t now;

	if (!rt.fast || __atomic_load_n(&f->epoch, __ATOMIC_ACQUIRE) != rt.epoch ||
	    f->flags != RF_TRACE || fid == RT_NOFID || t->notrace || d >= RT_MAX_FRAMES ||
	    (d && (cyg ? t->frames[d - 1].slot <= (uint64_t)slot :
			 t->frames[d - 1].slot <= (uint64_t)slot)) ||
	    !__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return 0;
	now = ft_rdtsc();
	if (likely(fid <= FT_REC_FID_MAX))
		rec_word(t, ft_rec_entry(fid, 0), 0, now);
	else
		ft_rb_entry(&t->rb, fid, now);
	fr = &t->frames[d];
	fr->func = f;
	fr->ret = ret;
	fr->slot = (uint64_t)slot;
	fr->ts = now;
	fr->fid = fid;
	fr->flags = cyg ? FR_RECORDED | FR_CYG : FR_RECORDED;
	t->rec_depth++;
	/* the frame is complete before it becomes visible (signal handlers) */
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->depth = d + 1;
	if (!cyg)
		*slot = (uint64_t)ft_rt_return;
	return 1;
}

static inline int thread_ready(struct rt_thread *t)
{
	if (likely(t->state == 1 && t->gen == rt.gen))
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

/* Called by the entry trampolines with the hook's return address as key. */
void ft_rt_entry(uint64_t key, uint64_t *slot, uint32_t kind);
__attribute__((visibility("hidden"), flatten)) void ft_rt_entry(uint64_t key, uint64_t *slot,
								 uint32_t kind)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;

	(void)kind;
	if (unlikely(!rt.sess))
		return;
	if (unlikely(t->busy)) {
		if (t->rb.area)
			ft_rb__lost_nolevel(&t->rb, 1);
		return;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE) != rt.gen))
		rt_sync_ctl();
	if (thread_ready(t)) {
		f = lookup(key, 0);
		if (f && !fast_entry(t, f, slot, *slot, 0))
			do_entry(t, f, slot, *slot, 0);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

/*
 * Called by ft_rt_return with sp = the stack pointer after the hijacked
 * function's ret.  Returns the real return address.  Never fails: when no
 * shadow frame owns the slot the shadow stack was corrupted (e.g. by stack
 * switching we do not know of) and there is nowhere to return: abort with a
 * message.
 */
uint64_t ft_rt_exit(uint64_t sp);
__attribute__((visibility("hidden"), flatten)) uint64_t ft_rt_exit(uint64_t sp)
{
	struct rt_thread *t = &rt_self;
	uint64_t slot = sp - 8;
	struct rt_frame fr;
	int busy = t->busy;

	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(t->depth && t->frames[t->depth - 1].slot < slot))
		rt_unwind_to(t, slot, 0);
	if (unlikely(!t->depth || t->frames[t->depth - 1].slot != slot))
		lost_frame();
	fr = t->frames[t->depth - 1];
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->depth--;
	if (likely(fr.flags == FR_RECORDED && t->state == 1)) {
		t->rec_depth--;
		rec_word(t, ft_rec_exit(0), 1, ft_rdtsc());
	} else if (t->state == 1) {
		finish_frame(t, &fr);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = busy;
	return fr.ret;
}

/* ---- -finstrument-functions ---- */

void __cyg_profile_func_enter(void *fn, void *call_site);
void __cyg_profile_func_exit(void *fn, void *call_site);

__attribute__((visibility("default"), no_instrument_function, flatten)) void
__cyg_profile_func_enter(void *fn, void *call_site)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;

	if (unlikely(!rt.sess))
		return;
	if (unlikely(t->busy)) {
		if (t->rb.area)
			ft_rb__lost_nolevel(&t->rb, 1);
		return;
	}
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (unlikely(__atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE) != rt.gen))
		rt_sync_ctl();
	if (thread_ready(t)) {
		f = lookup((uint64_t)fn, 1);
		/*
		 * The instrumented function's return-address slot: the first
		 * word above our frame that holds call_site (its return
		 * address), found within a few words; else its stack pointer
		 * at the call.  Deeper calls have lower slots; the same
		 * function, or one inlined in it, the same.
		 */
		uint64_t *sp = (uint64_t *)((char *)__builtin_frame_address(0) + 16);

		for (int i = 0; i < 32; i++) {
			if (sp[i] == (uint64_t)call_site) {
				sp += i;
				break;
			}
		}

		if (f && !fast_entry(t, f, sp, (uint64_t)call_site, 1))
			do_entry(t, f, sp, (uint64_t)call_site, 1);
	}
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}

__attribute__((visibility("default"), no_instrument_function, flatten)) void
__cyg_profile_func_exit(void *fn, void *call_site)
{
	struct rt_thread *t = &rt_self;
	struct rt_func *f;
	int i, lim;

	(void)call_site;
	if (unlikely(!rt.sess) || t->busy || !t->depth)
		return;
	t->busy = 1;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	f = lookup((uint64_t)fn, 1);
	if (!f)
		goto out;
	i = (int)t->depth - 1;
	if (likely(t->frames[i].func == f && t->frames[i].flags == (FR_RECORDED | FR_CYG))) {
		/* fast path: the innermost frame is fn's, recorded */
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->depth = (uint32_t)i;
		t->rec_depth--;
		if (t->state == 1)
			rec_word(t, ft_rec_exit(0), 1, ft_rdtsc());
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
	if ((uint32_t)i + 1 < t->depth)
		unwind_to_depth(t, (uint32_t)i + 1);
	{
		struct rt_frame fr = t->frames[i];

		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		t->depth = (uint32_t)i;
		if (t->state == 1)
			finish_frame(t, &fr);
	}
out:
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	t->busy = 0;
}
