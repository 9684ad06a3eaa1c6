// SPDX-License-Identifier: GPL-2.0
/*
 * The stack tracer (-p stack), ftrace's stack tracer for a program's
 * threads: at every function entry the stack pointer is compared with the
 * thread's deepest so far; a deeper one is a new max, whose stack is
 * unwound with the place each return address was found, so that every
 * frame's share of the stack can be shown as ftrace's stack_trace does
 * (Depth, Size, Location; core/ulat.h).  doc/latency-user.md.
 *
 * Cost: the tracer closes hooks.c's fast path (as every tracer but
 * function_graph does), and its own part is one compare per entry while
 * the max does not move.  A new max unwinds (unwind.c's cached steps) and
 * is kept in the thread's buffer, not written: a recursion sets a new max
 * at each level, and writing each would cost the square of its depth.  The
 * max is written once the thread is past it -- at its next entry that is
 * not a new max -- or at its exit, or the process's (init.c).
 *
 * Depth is measured from the top of the thread's stack as unwind.c bounds
 * it: the initial stack pointer (__libc_stack_end) for the main thread,
 * the thread descriptor for other threads (glibc keeps the descriptor and
 * the static TLS above the stack proper).  Entries on another stack (a
 * sigaltstack, a makecontext() stack) are not compared: they are not the
 * thread's stack, whose depth is what overflows.
 *
 * Everything here is the calling thread's own (TLS, and a buffer mapped on
 * its first new max): no lock, no atomic.  Runs with t->busy held (hooks.c),
 * so a signal handler that interrupts it does not come back here.
 */
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>

#include "core/clock.h"
#include "core/record.h"
#include "core/ulat.h"
#include "runtime/rt.h"

/* ftrace keeps 500 entries too; a page bounds what one record can carry */
#define STK_ENTRIES 512
/* ips, slots, then the record built from them */
#define STK_MEM_BYTES                                                                              \
	(2 * STK_ENTRIES * sizeof(uint64_t) + sizeof(struct ft_ulat_stack) +                       \
	 STK_ENTRIES * (sizeof(uint64_t) + sizeof(uint32_t)))

struct stk_thread {
	uint32_t tid;	  /* the thread this is for (a forked child starts again) */
	uint32_t pending; /* a max captured, not written yet */
	uint64_t top;	  /* top of the thread's stack, 0 until known */
	uint64_t max;	  /* deepest so far, bytes */
	uint64_t ts;	  /* when the pending max was reached */
	uint32_t nr;	  /* entries captured */
	uint32_t flags;	  /* FT_ULAT_CUT */
	uint64_t *mem;	  /* STK_MEM_BYTES, mapped on the first max */
};

static __thread struct stk_thread stk RT_TLS;

/* Entries one record can carry in t's ring pages (a page, less its headers). */
static uint32_t stk_room(const struct rt_thread *t)
{
	uint32_t page = t->rb.area ? t->rb.area->page_size : 0, n;

	if (page < 256)
		return 0;
	/* page header, the record's header, an FT_EXT_TIME before it */
	n = (page - (uint32_t)sizeof(struct ft_page) - 32 -
	     (uint32_t)sizeof(struct ft_ulat_stack)) /
	    (uint32_t)(sizeof(uint64_t) + sizeof(uint32_t));
	return n < STK_ENTRIES ? n : STK_ENTRIES;
}

/* A new max at slot: the stack from f's entry up, with each entry's depth. */
static void stk_capture(struct rt_thread *t, struct rt_func *f, uint64_t sp, int cyg,
			const struct rt_ustate *us)
{
	uint32_t room = stk_room(t), n = 0;
	uint64_t *ips, *slots;

	if (!room)
		return;
	if (!stk.mem) {
		stk.mem = rt_mmap_anon(STK_MEM_BYTES);
		if (!stk.mem)
			return;
	}
	ips = stk.mem;
	slots = ips + STK_ENTRIES;
	/*
	 * The function entered first, at the depth of its return address
	 * (its own frame is not allocated yet); -finstrument-functions calls
	 * its hook from inside the function, whose address the unwind gives.
	 */
	if (!cyg) {
		ips[0] = f->addr;
		slots[0] = sp;
		n = 1;
	}
	n += rt_ustack_slots(t, us, ips + n, slots + n, room - n);
	stk.flags = n == room ? FT_ULAT_CUT : 0;
	stk.nr = n;
	stk.ts = ft_rdtsc();
	stk.pending = 1;
}

void rt_stk_entry(struct rt_thread *t, struct rt_func *f, uint64_t *slot, int cyg,
		  const struct rt_ustate *us)
{
	uint64_t sp = (uint64_t)slot, top;

	if (unlikely(stk.tid != t->tid)) {
		uint64_t *mem = stk.mem;

		memset(&stk, 0, sizeof(stk));
		stk.mem = mem;
		stk.tid = t->tid;
	}
	if (unlikely(t->alt_hi) && sp >= t->alt_lo && sp < t->alt_hi)
		return; /* a handler on its sigaltstack */
	top = stk.top;
	if (unlikely(sp >= top || top - sp > (1ull << 30))) {
		top = rt_ustack_top(t, sp);
		if (!top)
			return; /* a stack of the program's own (makecontext...) */
		stk.top = top;
	}
	if (likely(top - sp <= stk.max)) {
		if (unlikely(stk.pending))
			rt_stk_flush(t);
		return;
	}
	/* tracing_on off (a trigger, the control plane): no new max meanwhile */
	if (!__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return;
	stk.max = top - sp;
	stk_capture(t, f, sp, cyg, us);
}

/*
 * Write the thread's pending max (FT_ULAT_STACK, at the time it was
 * reached).  Lost records are counted by the ring as any other.
 */
void rt_stk_flush(struct rt_thread *t)
{
	struct ft_ulat_stack *h;
	uint64_t *ips, *slots, *out_ips, low;
	uint32_t *depth, n = stk.nr;

	if (!stk.pending || stk.tid != t->tid || !t->rb.area || !stk.mem)
		return;
	stk.pending = 0;
	ips = stk.mem;
	slots = ips + STK_ENTRIES;
	h = (struct ft_ulat_stack *)(slots + STK_ENTRIES);
	out_ips = (uint64_t *)(h + 1);
	depth = (uint32_t *)(out_ips + n);
	low = stk.top - stk.max;
	for (uint32_t i = 0; i < n; i++) {
		out_ips[i] = ips[i];
		depth[i] = slots[i] < stk.top ? (uint32_t)(stk.top - slots[i]) : 0;
		if (slots[i] < low) /* -finstrument-functions: the hook runs inside its frame */
			low = slots[i];
	}
	h->kind = FT_ULAT_STACK;
	h->nr = n;
	h->max_size = (uint32_t)(stk.top - low);
	h->flags = stk.flags;
	ft_rb_ext(&t->rb, FT_EXT_ULAT, h,
		  (uint32_t)(sizeof(*h) + n * (sizeof(uint64_t) + sizeof(uint32_t))), stk.ts, 1, 1);
}

/* The thread is exiting (thread.c, through rt.thread_exit_more): its max, then its buffer. */
void rt_stk_thread_exit(struct rt_thread *t)
{
	void *mem = stk.mem;

	rt_stk_flush(t);
	stk.mem = NULL;
	stk.pending = 0;
	if (mem)
		munmap(mem, STK_MEM_BYTES);
}
