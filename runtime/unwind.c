// SPDX-License-Identifier: GPL-2.0
/*
 * User stacks: one capture-and-emit path for option stacktrace (hooks.c)
 * and the stacktrace trigger (events.c).
 *
 * The stack is a real unwind of the thread's call stack from where the
 * program was when the hook or event fired, not the chain of traced
 * functions: every caller up to the outermost frame libunwind knows of
 * (main, __libc_start_call_main, ...).  The runtime's own frames never
 * appear: the walk starts at the program's state (rt_ustate), and a
 * return address that function_graph replaced by ft_rt_return is put back
 * from the shadow stack, found by the address of its slot, as the kernel's
 * ftrace_graph_ret_addr() does.  A tail call (jmp) leaves two shadow frames
 * on one slot, the callee's saving ft_rt_return itself: the outer one holds
 * the real address.
 *
 * Each step follows the frame's DWARF CFI, read through libunwind
 * (UNW_LOCAL_ONLY, opened privately: see ur_load) the first time a return
 * address is seen, and then from
 * a per-thread cache of the rule libunwind applied, reduced to what x86-64
 * code needs at a call site: CFA = rsp + N (no frame pointer) or CFA =
 * rbp + 16 (frame pointer: a plain frame-pointer step), return address at
 * CFA - 8, rbp unchanged or saved at CFA - M.  Frames libunwind cannot
 * reduce so (signal frames, registers saved in registers) call it every
 * time.  Why a cache: Debian's libunwind blocks signals around every
 * unwind-table lookup, two sigprocmask calls a frame (13 us for a 15-frame
 * stack, against 23 ns for a frame-pointer walk, on a loaded AMD EPYC VM);
 * a cached step is a few loads.  Why not frame pointers alone: code built
 * with -O2 -mfentry or -fpatchable-function-entry has none, and libc's
 * functions neither, so their callers would be skipped or made up.
 *
 * Limits: a thread created without glibc (raw clone) has no descriptor at
 * the top of its stack and gets no stack; a function that realigns its
 * stack without a frame pointer is cached with the offset of its first
 * visit.
 *
 * Fault safety: the cache's steps read only inside the stack the walk is
 * on, [sp, top) -- sp of the frame being stepped, top of that stack: the
 * sigaltstack's end, __libc_stack_end for the main thread, the thread
 * descriptor for other glibc threads (glibc puts it at the top of each
 * thread's stack) -- and only when sp lies within RLIMIT_STACK of top.
 * Outside those bounds (a stack the program switched to, say) the walk
 * stops.  libunwind is only given states whose rsp is such an exact,
 * bounded stack pointer.  Nothing here allocates, locks or makes a system
 * call except libunwind's unwind-table lookups on a cache miss (signal
 * masking and dl_iterate_phdr, whose lock is recursive).
 */
#define UNW_LOCAL_ONLY
#include <dlfcn.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdint.h>
#include <string.h>
#include <sys/resource.h>

#include "core/clock.h"
#include "core/options.h"
#include "core/ringbuf_fast.h"
#include "runtime/rt.h"

extern void *__libc_stack_end; /* ld.so: the initial stack pointer of the process */

/*
 * libunwind, opened RTLD_LOCAL at load time rather than linked: linked,
 * libunwind.so.8 would join the program's global scope, and its
 * unversioned _Unwind_* (it implements libgcc's interface too) could bind
 * the C++ exception calls of a library the program dlopen()s later.  NULL
 * members: no libunwind here; frames are then followed by frame pointer.
 */
static struct {
	__typeof__(unw_tdep_getcontext) *getcontext;
	__typeof__(unw_init_local) *init_local;
	__typeof__(unw_step) *step;
	__typeof__(unw_get_reg) *get_reg;
	__typeof__(unw_get_save_loc) *get_save_loc;
	__typeof__(unw_is_signal_frame) *is_signal_frame;
} unw;
static int unw_ok; /* every member found: released after them, acquired before a call */

__attribute__((constructor)) static void ur_load(void)
{
	/* the real dlopen, not the runtime's wrapper (dl.c): a tool library of
	 * our own is no module of the program's to register */
	void *h = RT_REAL(dlopen)("libunwind.so.8", RTLD_NOW | RTLD_LOCAL);

	if (!h)
		return;
	unw.getcontext = (__typeof__(unw.getcontext))dlsym(h, "_Ux86_64_getcontext");
	unw.init_local = (__typeof__(unw.init_local))dlsym(h, "_ULx86_64_init_local");
	unw.step = (__typeof__(unw.step))dlsym(h, "_ULx86_64_step");
	unw.get_reg = (__typeof__(unw.get_reg))dlsym(h, "_ULx86_64_get_reg");
	unw.get_save_loc = (__typeof__(unw.get_save_loc))dlsym(h, "_ULx86_64_get_save_loc");
	unw.is_signal_frame =
		(__typeof__(unw.is_signal_frame))dlsym(h, "_ULx86_64_is_signal_frame");
	__atomic_store_n(&unw_ok,
			 unw.getcontext && unw.init_local && unw.step && unw.get_reg &&
				 unw.get_save_loc && unw.is_signal_frame,
			 __ATOMIC_RELEASE);
}

/* ---- the per-thread rule cache ---- */

enum ur_kind {
	UR_EMPTY = 0,
	UR_SP,	  /* CFA = sp + cfa_off */
	UR_FP,	  /* CFA = rbp + 16 */
	UR_STOP,  /* outermost frame: nothing above */
	UR_DWARF, /* not reducible: ask libunwind every time */
};

struct ur_ent {
	uint64_t ip;	  /* return address; 0 while being written */
	int32_t cfa_off;  /* UR_SP */
	uint16_t rbp_off; /* rbp saved at CFA - rbp_off; 0: rbp unchanged */
	uint8_t kind;	  /* enum ur_kind */
	uint8_t pad;
};

/*
 * Entries per thread (64 KiB, RT_UCACHE_BYTES), in sets of UR_WAYS: one
 * 64-byte line per set.  Direct-mapped (and 512 entries), two return
 * addresses of one stack that share a slot evicted each other at every
 * walk, and each eviction cost a libunwind step (two sigprocmask calls):
 * Lua's -T run spent 40% of its CPU there.  Four ways and 1024 sets hold
 * a program's hot call sites; a full set loses the entry the thread's
 * victim counter names (no ordering to keep: any one is as good).
 */
#define UR_CACHE 4096
#define UR_WAYS 4

/*
 * Per thread, so only a signal handler of the same thread can interleave
 * with a reader or writer.  A reader loads ip, the rule, then ip again and
 * trusts the rule when both loads name its address: a handler that ran
 * between them left the slot consistent.  A writer marks the slot empty
 * (ip 0), writes the rule, then sets ip; a handler that interrupts a write
 * (ur_writing) does not write at all, so the two writes never interleave.
 * Signal fences keep the compiler's order; one thread needs nothing more.
 *
 * The array is mapped per thread with its shadow stack (thread.c,
 * rt_self.ucache), not in TLS: libftrail.so's static TLS must fit in the
 * surplus glibc keeps for objects dlopen()ed with initial-exec TLS (about
 * 1.6 KiB), where `ftrail record -P` loads it.  NULL: no cache (yet).
 */
#define ur_cache ((struct ur_ent *)rt_self.ucache)
static __thread uint32_t ur_cache_gen RT_TLS;
static __thread int ur_writing RT_TLS;
static __thread uint32_t ur_victim RT_TLS; /* the way a full set loses next */
static uint32_t ur_gen;	      /* bumped when code is unmapped: cached rules of it are stale */
static uint64_t ur_stack_max; /* RLIMIT_STACK, read once */

/* The first entry of ip's set. */
static inline uint32_t ur_hash(uint64_t ip)
{
	return (uint32_t)((ip * 0x9e3779b97f4a7c15ull) >> 54) * UR_WAYS; /* 1024 sets */
}
_Static_assert(UR_CACHE == 1024 * UR_WAYS && UR_WAYS == 4, "ur_hash's shift and mask");

static inline __attribute__((always_inline)) int ur_lookup(uint64_t ip, struct ur_ent *out)
{
	struct ur_ent *e;
	int w;

	if (!ur_cache)
		return 0;
	e = &ur_cache[ur_hash(ip)];
	for (w = 0; w < UR_WAYS; w++, e++) {
		if (__atomic_load_n(&e->ip, __ATOMIC_RELAXED) != ip)
			continue;
		ft_barrier();
		out->cfa_off = e->cfa_off;
		out->rbp_off = e->rbp_off;
		out->kind = e->kind;
		ft_barrier();
		return __atomic_load_n(&e->ip, __ATOMIC_RELAXED) == ip;
	}
	return 0;
}

static void ur_store(uint64_t ip, const struct ur_ent *r)
{
	struct ur_ent *set = ur_cache ? &ur_cache[ur_hash(ip)] : NULL, *e = NULL;
	int w;

	if (!set || ur_writing)
		return;
	/* ip's own entry (a UR_DWARF rule learnt again), else a free one, else the victim */
	for (w = 0; w < UR_WAYS && !e; w++)
		if (set[w].ip == ip)
			e = &set[w];
	for (w = 0; w < UR_WAYS && !e; w++)
		if (!set[w].ip)
			e = &set[w];
	if (!e)
		e = &set[ur_victim++ % UR_WAYS];
	ur_writing = 1;
	ft_barrier();
	__atomic_store_n(&e->ip, 0, __ATOMIC_RELAXED);
	ft_barrier();
	e->cfa_off = r->cfa_off;
	e->rbp_off = r->rbp_off;
	e->kind = r->kind;
	ft_barrier();
	__atomic_store_n(&e->ip, ip, __ATOMIC_RELAXED);
	ft_barrier();
	ur_writing = 0;
}

/* Empty the thread's rule cache when code was unmapped since its last use. */
static inline void ur_cache_check(void)
{
	uint32_t g = __atomic_load_n(&ur_gen, __ATOMIC_RELAXED);

	if (ur_cache_gen != g && !ur_writing && ur_cache) {
		memset(ur_cache, 0, UR_CACHE * sizeof(*ur_cache));
		ur_cache_gen = g;
	}
}

/**
 * rt_unwind_forget() - drop cached unwind rules after code was unmapped
 *
 * Called when a module is closed (its addresses may hold other code later).
 * Each thread empties its cache at its next capture.
 */
void rt_unwind_forget(void)
{
	__atomic_add_fetch(&ur_gen, 1, __ATOMIC_RELAXED);
}

/* ---- stack bounds ---- */

struct ur_bounds {
	uint64_t lo, hi; /* [lo, hi) is mapped stack */
};

/*
 * The stack sp is on, as [sp, top): 0 when it is on none we know.  The
 * limit: threads' stacks are at most RLIMIT_STACK by default; a larger one
 * (pthread_attr_setstacksize) has its deepest frames refused, never read.
 */
static int ur_bounds_of(struct rt_thread *t, uint64_t sp, struct ur_bounds *b)
{
	uint64_t top;

	if (sp >= t->alt_lo && sp < t->alt_hi) {
		b->lo = sp;
		b->hi = t->alt_hi;
		return 1;
	}
	if (!ur_stack_max) {
		struct rlimit rl;

		/* prlimit64: async-signal-safe; racing threads store the same */
		if (getrlimit(RLIMIT_STACK, &rl) || rl.rlim_cur == RLIM_INFINITY ||
		    rl.rlim_cur > (1ull << 30))
			rl.rlim_cur = 1ull << 30;
		if (rl.rlim_cur < (1u << 20))
			rl.rlim_cur = 1u << 20;
		__atomic_store_n(&ur_stack_max, (uint64_t)rl.rlim_cur, __ATOMIC_RELAXED);
	}
	top = (uint64_t)(uintptr_t)__libc_stack_end;
	if (!(t->tid == (uint32_t)rt.pid && sp < top && top - sp <= ur_stack_max)) {
		top = (uint64_t)pthread_self(); /* the thread descriptor: %fs:0x10 */
		if (!(sp < top && top - sp <= ur_stack_max))
			return 0;
	}
	b->lo = sp;
	b->hi = top;
	return 1;
}

static inline int ur_in(const struct ur_bounds *b, uint64_t a)
{
	return a >= b->lo && a <= b->hi - 8 && !(a & 7);
}

/* ---- one step ---- */

struct ur_regs {
	uint64_t ip, sp, fp;
};

/*
 * Without libunwind: a frame-pointer step when rbp points into the stack
 * above sp (never cached: it is a guess, right only for code that keeps
 * frame pointers).
 */
static int ur_fp_step(struct ur_regs *r, struct ur_ent *rule, const struct ur_bounds *b)
{
	rule->kind = UR_EMPTY;
	if (r->fp < r->sp || !ur_in(b, r->fp) || !ur_in(b, r->fp + 8))
		return -1;
	r->ip = *(uint64_t *)(uintptr_t)(r->fp + 8);
	r->sp = r->fp + 16;
	r->fp = *(uint64_t *)(uintptr_t)r->fp;
	return 1;
}

/*
 * libunwind's step from r (ip a return address; r->sp within b), learning
 * its rule.
 * Returns 1 with r the caller's state, 0 at the outermost frame, -1 when
 * it cannot step.
 */
static int ur_dwarf_step(struct ur_regs *r, struct ur_ent *rule, const struct ur_bounds *b)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_save_loc_t loc;
	unw_word_t ip, sp, fp;
	int sig, ret;

	if (!__atomic_load_n(&unw_ok, __ATOMIC_ACQUIRE))
		return ur_fp_step(r, rule, b);
	if (unw.getcontext(&uc))
		return -1;
	uc.uc_mcontext.gregs[REG_RIP] = (greg_t)r->ip;
	uc.uc_mcontext.gregs[REG_RSP] = (greg_t)r->sp;
	uc.uc_mcontext.gregs[REG_RBP] = (greg_t)r->fp;
	if (unw.init_local(&c, &uc) < 0)
		return -1;
	sig = unw.is_signal_frame(&c) > 0;
	ret = unw.step(&c);
	if (ret <= 0) {
		rule->kind = ret == 0 ? UR_STOP : UR_DWARF;
		return ret == 0 ? 0 : -1;
	}
	if (unw.get_reg(&c, UNW_REG_IP, &ip) || unw.get_reg(&c, UNW_REG_SP, &sp) ||
	    unw.get_reg(&c, UNW_X86_64_RBP, &fp))
		return -1;
	/* libunwind flags the step out of __restore_rt on the frame it reached */
	sig |= unw.is_signal_frame(&c) > 0;
	rule->kind = UR_DWARF;
	/* reducible: an ordinary frame whose return address is at CFA - 8 */
	if (!sig && sp > r->sp && ur_in(b, sp - 8) && *(uint64_t *)(uintptr_t)(sp - 8) == ip &&
	    !unw.get_save_loc(&c, UNW_X86_64_RBP, &loc)) {
		uint64_t roff = 0;

		/*
		 * Saved in the frame: at CFA - roff.  Not saved by it: libunwind
		 * still names where it got the value, our own context.
		 */
		if (loc.type == UNW_SLT_MEMORY && loc.u.addr >= r->sp && loc.u.addr < sp)
			roff = sp - loc.u.addr;
		else if (fp != r->fp ||
			 (loc.type == UNW_SLT_MEMORY &&
			  loc.u.addr != (unw_word_t)(uintptr_t)&uc.uc_mcontext.gregs[REG_RBP]) ||
			 loc.type == UNW_SLT_REG)
			roff = UINT64_MAX;
		if (roff != UINT64_MAX) {
			rule->rbp_off = (uint16_t)roff;
			if (sp == r->fp + 16 && roff == 16) {
				rule->kind = UR_FP;
			} else {
				rule->kind = UR_SP;
				rule->cfa_off = (int32_t)(sp - r->sp);
			}
		}
	}
	r->ip = ip;
	r->sp = sp;
	r->fp = fp;
	return 1;
}

/* A cached rule's step, reading only inside b.  Same returns. */
static int ur_rule_step(const struct ur_ent *e, struct ur_regs *r, const struct ur_bounds *b)
{
	uint64_t cfa, fp = r->fp;

	if (e->kind == UR_STOP)
		return 0;
	cfa = e->kind == UR_FP ? r->fp + 16 : r->sp + (uint64_t)(int64_t)e->cfa_off;
	if (cfa <= r->sp || !ur_in(b, cfa - 8))
		return -1;
	if (e->rbp_off) {
		if (!ur_in(b, cfa - e->rbp_off))
			return -1;
		fp = *(uint64_t *)(uintptr_t)(cfa - e->rbp_off);
	}
	r->ip = *(uint64_t *)(uintptr_t)(cfa - 8);
	r->sp = cfa;
	r->fp = fp;
	return 1;
}

/*
 * The real return address behind ft_rt_return in the slot at slot: the
 * outermost shadow frame saved for that slot (an inner one with the same
 * slot is a tail callee's, whose saved address is ft_rt_return).  *idx
 * moves down the shadow stack with the walk (slots grow outwards); frames
 * of a signal handler on another stack make it search the whole stack.
 */
static uint64_t ur_shadow_ret(struct rt_thread *t, uint64_t slot, int *idx)
{
	int i;

	if (!t->frames)
		return 0;
	for (i = *idx; i >= 0 && t->frames[i].slot < slot; i--)
		;
	if (i < 0 || t->frames[i].slot != slot)
		for (i = (int)t->depth - 1; i >= 0 && t->frames[i].slot != slot; i--)
			;
	while (i > 0 && t->frames[i].slot == slot && rt_is_ret_tramp(t->frames[i].ret) &&
	       t->frames[i - 1].slot == slot)
		i--;
	if (i < 0 || t->frames[i].slot != slot || rt_is_ret_tramp(t->frames[i].ret))
		return 0;
	*idx = i - 1;
	return t->frames[i].ret;
}

/* Is ip in libftrail.so?  Its range is found once (module table, lock-free). */
static int ur_in_self(uint64_t ip)
{
	static uint64_t lo, hi;
	/* acquire: pairs with the release of lo below, so hi is the pair's */
	uint64_t l = __atomic_load_n(&lo, __ATOMIC_ACQUIRE);

	if (!l) {
		struct rt_module *m = rt_module_of((uint64_t)(uintptr_t)ft_rt_return);

		if (!m)
			return 0;
		/* racing threads store the same pair; hi before lo, which says "known" */
		__atomic_store_n(&hi, m->end, __ATOMIC_RELAXED);
		__atomic_store_n(&lo, m->start, __ATOMIC_RELEASE);
		l = m->start;
	}
	return ip >= l && ip < __atomic_load_n(&hi, __ATOMIC_RELAXED);
}

/**
 * rt_shadow_ret() - the real return address of a hijacked slot
 * @t:    the calling thread
 * @slot: the address of a return-address slot holding ft_rt_return
 *
 * Return: the address function_graph saved for it, 0 when no shadow frame
 * owns the slot.
 */
uint64_t rt_shadow_ret(struct rt_thread *t, uint64_t slot)
{
	int idx = (int)t->depth - 1;

	return ur_shadow_ret(t, slot, &idx);
}

/* The walk of rt_ustack() and rt_ustack_slots(); slots may be NULL. */
static inline __attribute__((always_inline)) uint32_t ur_walk(struct rt_thread *t,
							      const struct rt_ustate *st,
							      uint64_t *ips, uint64_t *slots,
							      uint32_t max)
{
	struct ur_regs r = { st->ip, st->sp, st->fp };
	struct ur_bounds b;
	uint32_t n = 0;
	int idx = (int)t->depth - 1;

	ur_cache_check();
	if (!ur_bounds_of(t, r.sp, &b))
		return 0;
	while (n < max) {
		struct ur_ent e;
		int ret;

		if (rt_is_ret_tramp(r.ip) && !(r.ip = ur_shadow_ret(t, r.sp - 8, &idx)))
			break;
		/*
		 * Inside the runtime: a signal handler's stack, through its
		 * signal frame, into a hook it interrupted.  The program's
		 * state there is the trampoline's business: the stack ends.
		 */
		if (r.ip < 4096 || (ur_in_self(r.ip) && !rt_in_sigshim(r.ip)))
			break;
		/* signal.c's shim under a program handler: stepped through, not shown */
		if (!rt_in_sigshim(r.ip)) {
			/* r.ip was read from r.sp - 8 (the first: st's own slot) */
			if (slots)
				slots[n] = r.sp - 8;
			ips[n++] = r.ip;
			if (n == max)
				break;
		}
		if (ur_lookup(r.ip, &e) && e.kind != UR_DWARF) {
			ret = ur_rule_step(&e, &r, &b);
		} else {
			uint64_t ip = r.ip;

			memset(&e, 0, sizeof(e));
			ret = ur_dwarf_step(&r, &e, &b);
			if (e.kind != UR_EMPTY)
				ur_store(ip, &e);
		}
		if (ret <= 0)
			break;
		/* a signal frame may have moved to another stack */
		if (r.sp < b.lo || r.sp >= b.hi) {
			if (!ur_bounds_of(t, r.sp, &b))
				break;
		} else {
			b.lo = r.sp;
		}
	}
	return n;
}

/**
 * rt_ustack() - unwind the calling thread's user stack
 * @t:     the calling thread
 * @st:    the program's state to start from (a return address, its rsp
 *         after the return, and rbp)
 * @ips:   filled with return addresses, innermost first (st->ip first)
 * @max:   room in @ips
 *
 * Async-signal-safe; never reads outside the stack being walked (see the
 * top of the file).  Return: the number of addresses stored.
 */
uint32_t rt_ustack(struct rt_thread *t, const struct rt_ustate *st, uint64_t *ips, uint32_t max)
{
	return ur_walk(t, st, ips, NULL, max);
}

/**
 * rt_ustack_slots() - rt_ustack(), with where each address was found
 * @slots: filled with the stack address each of @ips was read from (the
 *         return-address slot of the frame below it; st->sp - 8 first)
 *
 * For the stack tracer (stacktracer.c): the slots give ftrace's
 * stack_trace depths.  Same context and return as rt_ustack().
 */
uint32_t rt_ustack_slots(struct rt_thread *t, const struct rt_ustate *st, uint64_t *ips,
			 uint64_t *slots, uint32_t max)
{
	return ur_walk(t, st, ips, slots, max);
}

/*
 * The top of the stack sp is on (unwind.c's bounds: __libc_stack_end for
 * the main thread, the thread descriptor for other glibc threads, the
 * sigaltstack's end), or 0 when sp is on none of them.  Async-signal-safe.
 */
uint64_t rt_ustack_top(struct rt_thread *t, uint64_t sp)
{
	struct ur_bounds b;

	return ur_bounds_of(t, sp, &b) ? b.hi : 0;
}

/**
 * rt_emit_stack() - capture the user stack and write it to the ring
 * @t:          the calling thread (a ring attached)
 * @first:      an address put before the unwound ones (the hooked function's
 *              entry), 0 for none
 * @st:         where the program was (see rt_ustack)
 * @standalone: an event of its own (a stacktrace command or trigger), else
 *              an attachment to the record just written
 *
 * As a stack id when option stackmap is on and the map can serve, else the
 * whole stack (FT_EXT_STACK).  Async-signal-safe.
 */
void rt_emit_stack(struct rt_thread *t, uint64_t first, const struct rt_ustate *st, int standalone)
{
	struct {
		uint32_t nr, zero;
		uint64_t ips[FT_STACKMAP_MAX_DEPTH];
	} s;
	uint32_t n = 0, max = rt.stack_depth;
	uint64_t now = ft_rdtsc();

	if (!t->rb.area)
		return;
	if (!max || max > FT_STACKMAP_MAX_DEPTH)
		max = FT_STACKMAP_MAX_DEPTH;
	if (first)
		s.ips[n++] = first;
	n += rt_ustack(t, st, s.ips + n, max - n);
	if ((rt.options & FT_OPT(STACKMAP)) && rt.smap_ok) {
		int id = ft_stackmap_get_id(&rt.smap, s.ips, n);

		if (id >= 0) {
			uint32_t v = (uint32_t)id;

			ft_rb_ext(&t->rb, FT_EXT_STACK_ID, &v, 4, now, standalone, standalone);
			return;
		}
	}
	s.nr = n;
	s.zero = 0;
	ft_rb_ext(&t->rb, FT_EXT_STACK, &s, 8 + 8 * n, now, standalone, standalone);
}

/* ---- -T at function_graph entries: the stack memo ---- */

/*
 * With -T every traced call records its stack.  Unwinding the whole call
 * stack and hashing it into the stack map at every call costs in
 * proportion to the stack's depth (Lua's are 20-64 frames deep), and
 * nearly every call repeats a stack seen before.  But the stack of a call
 * made directly by the function of the top shadow frame P is P's own
 * stack with its first address (P's entry) replaced by two: the callee's
 * entry and the return address into P.  So the id of the callee's stack
 * is a function of (P's stack id, the return address, the callee's
 * entry) -- as long as the caller really is P's activation, which one
 * cached unwind step shows: the caller's CFA is P's slot + 8.  Each
 * thread remembers that function in a memo, and a call whose triple is
 * there costs one unwind step, a memo probe and ft_stackmap_hit_ref() (the
 * map counts the reference as get_id would), not a walk of the stack and
 * a hash of it.  A tail call (jmp) is a triple too: its return address
 * is ft_rt_return and its stack is the tail-calling frame's with the
 * first address replaced; what a tail callee calls follows the tail
 * callee's id like any other call.  Anything else (no memo entry, a
 * caller that is not P, P's stack recorded in full,
 * -finstrument-functions, whose stack starts inside the callee) walks the
 * stack and calls get_id as before, and teaches the memo when the triple
 * applies.
 *
 * Ids are valid for one generation of the map (resets); a stack's content
 * also depends on the stack depth option: the two make the stack epoch,
 * kept in each memo entry and each shadow frame, and compared at use.
 * ft_stackmap_hit_ref() checks the generation again, in flight in the map;
 * the entry keeps the stack's element too, so the hit does not read the
 * map's table.
 *
 * The memo lives after the rule cache in the thread's mapping and follows
 * its signal protocol (ur_lookup / ur_store): the key's first word is 0
 * while an entry is written, a reader reads it before and after the rest,
 * and a handler that interrupts a write writes nothing.
 */
struct sm_ent {
	uint64_t ret;	 /* return address into the caller; 0 while written */
	uint64_t entry;	 /* the callee's entry address */
	uint32_t parent; /* the caller frame's stack id + 1 */
	uint32_t epoch;	 /* stack epoch of both ids */
	uint32_t child;	 /* the callee's stack id */
	uint32_t ref;	 /* its ft_stackmap_ref() (0: unknown) */
};

#define SM_ENTRIES 65536
#define sm_memo ((struct sm_ent *)((char *)rt_self.ucache + UR_CACHE * sizeof(struct ur_ent)))
_Static_assert(UR_CACHE * sizeof(struct ur_ent) + SM_ENTRIES * sizeof(struct sm_ent) ==
		       RT_UCACHE_BYTES,
	       "rt.h: RT_UCACHE_BYTES");

static inline struct sm_ent *sm_slot(uint64_t ret, uint64_t entry, uint32_t parent)
{
	uint64_t h = (ret ^ (entry << 17) ^ ((uint64_t)parent << 40)) * 0x9e3779b97f4a7c15ull;

	return &sm_memo[h >> (64 - 16)];
}
_Static_assert(SM_ENTRIES == 1 << 16, "sm_slot's shift");

static inline __attribute__((always_inline)) int sm_lookup(const struct sm_ent *e, uint64_t ret,
							   uint64_t entry, uint32_t parent,
							   uint32_t epoch, uint32_t *child,
							   uint32_t *ref)
{
	if (__atomic_load_n(&e->ret, __ATOMIC_RELAXED) != ret)
		return 0;
	ft_barrier();
	if (e->entry != entry || e->parent != parent || e->epoch != epoch)
		return 0;
	*child = e->child;
	*ref = e->ref;
	ft_barrier();
	return __atomic_load_n(&e->ret, __ATOMIC_RELAXED) == ret;
}

static void sm_store(struct sm_ent *e, uint64_t ret, uint64_t entry, uint32_t parent,
		     uint32_t epoch, uint32_t child, uint32_t ref)
{
	if (ur_writing)
		return;
	ur_writing = 1;
	ft_barrier();
	__atomic_store_n(&e->ret, 0, __ATOMIC_RELAXED);
	ft_barrier();
	e->entry = entry;
	e->parent = parent;
	e->epoch = epoch;
	e->child = child;
	e->ref = ref;
	ft_barrier();
	__atomic_store_n(&e->ret, ret, __ATOMIC_RELAXED);
	ft_barrier();
	ur_writing = 0;
}

/*
 * The stack id + 1 of the top shadow frame when the program's caller at
 * st is that frame's activation (one cached unwind step lands on its
 * slot) and its stack id belongs to epoch; else 0.  Reads no memory of
 * the program's stack.
 */
static inline __attribute__((always_inline)) uint32_t
sm_parent(struct rt_thread *t, const struct rt_ustate *st, uint32_t epoch)
{
	const uint64_t tramp = (uint64_t)(uintptr_t)ft_rt_return;
	const struct rt_frame *p;
	struct ur_ent r;
	uint64_t cfa;

	if (!t->depth || !t->frames || !ur_cache)
		return 0;
	p = &t->frames[t->depth - 1];
	if (!p->sid1 || p->sepoch != epoch || (p->flags & FR_CYG))
		return 0;
	/*
	 * A tail call (jmp) from P's function: the callee's slot is P's,
	 * hijacked, and the walk would go on from P's real return address
	 * as P's did: the callee's stack is P's with the first address
	 * replaced (ft_rt_return in the key tells the case apart).
	 */
	if (st->ip == tramp)
		return p->slot == st->sp - 8 ? p->sid1 : 0;
	if (!ur_lookup(st->ip, &r) || (r.kind != UR_SP && r.kind != UR_FP))
		return 0;
	cfa = r.kind == UR_FP ? st->fp + 16 : st->sp + (uint64_t)(int64_t)r.cfa_off;
	return cfa - 8 == p->slot ? p->sid1 : 0;
}

/* The stack depth option, as rt_emit_stack() applies it. */
static inline uint32_t sm_max(void)
{
	uint32_t max = rt.stack_depth;

	return !max || max > FT_STACKMAP_MAX_DEPTH ? FT_STACKMAP_MAX_DEPTH : max;
}

/*
 * The memo's answer for the stack of a call of first from st (option
 * stackmap on): its id, the hit counted in the map; else -1.  Sets the
 * stack epoch, and, when the triple applies, the caller frame's id + 1
 * and the memo entry for the caller to teach.
 */
static inline __attribute__((always_inline)) int sm_try(struct rt_thread *t, uint64_t first,
							const struct rt_ustate *st, uint32_t max,
							uint32_t *epoch, uint32_t *parent,
							struct sm_ent **e)
{
	uint32_t mgen = ft_stackmap_gen(&rt.smap), v, ref;

	*epoch = mgen << 7 | max; /* max <= 64 */
	*parent = first ? sm_parent(t, st, *epoch) : 0;
	*e = NULL;
	if (!*parent)
		return -1;
	*e = sm_slot(st->ip, first, *parent);
	if (!sm_lookup(*e, st->ip, first, *parent, *epoch, &v, &ref))
		return -1;
	return ft_stackmap_hit_ref(&rt.smap, v, ref, mgen);
}

/**
 * rt_stack_memo() - the stack id of a call, when the memo knows it
 * @t:      the calling thread
 * @first:  the function's entry address
 * @st:     where the program was (see rt_ustack)
 * @sepoch: set to the stack epoch of the id returned
 *
 * For hooks.c's -T fast path: no walk, no write.  Async-signal-safe.
 * Return: the id + 1, its reference counted in the map as get_id counts
 * one; 0 when the memo cannot tell (then rt_entry_stack() does it all).
 */
uint32_t rt_stack_memo(struct rt_thread *t, uint64_t first, const struct rt_ustate *st,
		       uint32_t *sepoch)
{
	uint32_t epoch, parent;
	struct sm_ent *e;
	int id;

	if (!((rt.options & FT_OPT(STACKMAP)) && rt.smap_ok) ||
	    __atomic_load_n(&ur_gen, __ATOMIC_RELAXED) != ur_cache_gen)
		return 0;
	id = sm_try(t, first, st, sm_max(), &epoch, &parent, &e);
	if (id < 0)
		return 0;
	*sepoch = epoch;
	return (uint32_t)id + 1;
}

/**
 * rt_entry_stack() - a function_graph ENTRY with its user stack (option stacktrace)
 * @t:      the calling thread (a ring attached)
 * @fid:    the function entered
 * @now:    the entry's time
 * @first:  the function's entry address, put first; 0 for none
 *          (-finstrument-functions: @st is inside the function already)
 * @st:     where the program was (see rt_ustack)
 * @sepoch: set to the stack epoch of the id returned
 *
 * Writes the ENTRY and the stack (by id when option stackmap is on and the
 * map can serve, else in full) in one reservation.  Async-signal-safe.
 * Return: the stack's id + 1, for the shadow frame; 0 when the stack was
 * not recorded by id.
 */
uint32_t rt_entry_stack(struct rt_thread *t, uint32_t fid, uint64_t now, uint64_t first,
			const struct rt_ustate *st, uint32_t *sepoch)
{
	struct {
		uint32_t nr, zero;
		uint64_t ips[FT_STACKMAP_MAX_DEPTH];
	} s;
	uint32_t n = 0, max = sm_max(), epoch = 0, parent = 0, v;
	struct sm_ent *e = NULL;
	int id = -1;

	*sepoch = 0;
	ur_cache_check();
	if ((rt.options & FT_OPT(STACKMAP)) && rt.smap_ok)
		id = sm_try(t, first, st, max, &epoch, &parent, &e);
	if (id < 0) {
		if (first)
			s.ips[n++] = first;
		n += rt_ustack(t, st, s.ips + n, max - n);
		if (epoch) {
			id = ft_stackmap_get_id(&rt.smap, s.ips, n);
			/* the ref with the gen read before get_id: see ft_stackmap_ref */
			if (id >= 0 && e)
				sm_store(e, st->ip, first, parent, epoch, (uint32_t)id,
					 ft_stackmap_ref(&rt.smap, (uint32_t)id));
		}
	}
	if (id >= 0) {
		v = (uint32_t)id;
		ft_rb_fast_entry_ext1(&t->rb, fid, now, FT_EXT_STACK_ID, v);
		*sepoch = epoch;
		return v + 1;
	}
	s.nr = n;
	s.zero = 0;
	ft_rb_entry_ext(&t->rb, fid, now, FT_EXT_STACK, &s, 8 + 8 * n);
	return 0;
}
