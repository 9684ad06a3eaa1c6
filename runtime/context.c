// SPDX-License-Identifier: GPL-2.0
/*
 * User contexts (makecontext / swapcontext / setcontext): the shadow stack
 * follows the stack.
 *
 * A context switch moves a thread to another stack; the shadow stack of
 * the calls open on the old one must wait there, not be mistaken for
 * frames that died (the old stack may lie above or below the new one, so
 * the longjmp rule of hooks.c would close them, and their hijacked
 * returns would then find no frame).  So every context has a shadow stack
 * of its own, as every task has its ret_stack in the kernel:
 *
 *   makecontext(ucp)       ucp gets a fresh, empty shadow stack; its
 *                          function is started through ctx_start(), which
 *                          also follows uc_link when the function returns
 *                          (glibc's __start_context calls setcontext
 *                          internally, past any wrapper)
 *   swapcontext(oucp, ucp) the thread's shadow stack is parked under oucp
 *                          and the one parked under ucp becomes the
 *                          thread's; FT_EXT_CTXSW(id of ucp's context)
 *                          tells the reader to do the same with its depth
 *   setcontext(ucp)        the same, the old context being abandoned: its
 *                          real return addresses are put back and its open
 *                          calls closed (FT_EXT_UNWIND)
 *
 * A ucp the runtime never saw (saved by getcontext only) is resumed as a
 * longjmp is: nothing moves, hooks.c's stack-address rule applies.  The
 * table of parked contexts is the control path's (ctx_lock, taken with
 * the thread's busy guard set so no hook of this thread waits on it);
 * hooks only ever see rt_self.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <string.h>
#include <ucontext.h>

#include "core/clock.h"
#include "runtime/rt.h"

#define CTX_MAX 4096
#define CTX_ARGS 8

/* A context parked in a ucontext_t (or made and not yet started). */
struct rt_ctx {
	const void *uc;		 /* where it is saved; NULL: free slot */
	struct rt_frame *frames; /* its shadow stack (frames[-1]: sentinel), NULL: none yet */
	uint32_t depth, rec_depth, notrace, roots, wdepth;
	uint32_t id; /* context id in the trace (0: the thread's own) */
	/* made by makecontext and not started yet */
	int fresh;
	void (*fn)(void);
	int argc;
	int args[CTX_ARGS];
	const ucontext_t *link;
};

static struct rt_ctx ctxs[CTX_MAX];
static pthread_mutex_t ctx_lock = PTHREAD_MUTEX_INITIALIZER;
static uint32_t next_id = 1;
static __thread uint32_t cur_id;	/* the running context's id; 0: the thread's own */
static __thread struct rt_ctx starting; /* handed to ctx_start by the switch */

static struct rt_ctx *find(const void *uc)
{
	for (int i = 0; uc && i < CTX_MAX; i++)
		if (ctxs[i].uc == uc)
			return &ctxs[i];
	return NULL;
}

static struct rt_ctx *get_slot(const void *uc)
{
	struct rt_ctx *c = find(uc);

	for (int i = 0; !c && i < CTX_MAX; i++)
		if (!ctxs[i].uc)
			c = &ctxs[i];
	return c;
}

/* The writer depth of the thread's current ring level. */
static uint32_t *wdepth(struct rt_thread *t)
{
	return &t->rb.lv[t->rb.nest < FT_RB_LEVELS ? t->rb.nest : 0].depth;
}

/*
 * Park t's shadow stack under uc in park (NULL: drop it, the context is
 * over) and make to's the thread's (a fresh one when to has none yet).
 * Returns 0, or -1 (no memory: nothing changed).  Caller holds ctx_lock
 * and t->busy, and has checked shadow_ok(t).
 */
static int switch_to(struct rt_thread *t, struct rt_ctx *park, const void *uc, struct rt_ctx *to)
{
	struct rt_frame *nf = to->frames ? to->frames : rt_frames_alloc();
	struct rt_ctx next = *to;

	if (!nf)
		return -1;
	memset(to, 0, sizeof(*to)); /* running now: parked nowhere */
	if (park) {
		park->uc = uc;
		park->frames = t->frames;
		park->depth = t->depth;
		park->rec_depth = t->rec_depth;
		park->notrace = t->notrace;
		park->roots = t->roots;
		park->wdepth = *wdepth(t);
		park->id = cur_id;
		park->fresh = 0;
	} else {
		rt_frames_free(t->frames);
	}
	/* the thread's state changes while no hook of it runs (busy) */
	t->frames = nf;
	t->depth = next.depth;
	t->rec_depth = next.rec_depth;
	t->notrace = next.notrace;
	t->roots = next.roots;
	cur_id = next.id;
	if (t->rb.area) {
		ft_rb_set_depth(&t->rb, next.wdepth);
		ft_rb_ext(&t->rb, FT_EXT_CTXSW, &next.id, 4, ft_rdtsc(), 1, 1);
	}
	return 0;
}

/* Take the thread's recursion guard and ctx_lock.  Returns the guard as it was. */
static int enter(struct rt_thread *t)
{
	int busy = t->busy;

	rt_guard_recursion(t);
	pthread_mutex_lock(&ctx_lock);
	return busy;
}

static void leave(struct rt_thread *t)
{
	pthread_mutex_unlock(&ctx_lock);
	rt_unguard_recursion(t);
}

/* May t's shadow stack be moved now (busy: enter()'s answer)? */
static int shadow_ok(struct rt_thread *t, int busy)
{
	return rt.sess && !busy && (t->state == RT_THREAD_READY || rt_thread_get()) && t->frames;
}

/*
 * Where a made context starts: call its function, then follow uc_link as
 * __start_context is about to (the context's own stack is empty by then
 * and goes away).
 */
static void ctx_start(void)
{
	struct rt_ctx me = starting;
	struct rt_thread *t = &rt_self;
	const int *a = me.args;
	int busy;

	((void (*)(int, int, int, int, int, int, int, int))me.fn)(a[0], a[1], a[2], a[3], a[4],
								  a[5], a[6], a[7]);
	if (!me.link)
		return;
	busy = enter(t);
	if (shadow_ok(t, busy)) {
		struct rt_ctx *to = find(me.link);

		if (to) {
			rt_unwind_to(t, UINT64_MAX, 1); /* nothing should be open */
			switch_to(t, NULL, NULL, to);
		}
	}
	leave(t);
}

__attribute__((visibility("default"))) void makecontext(ucontext_t *ucp, void (*fn)(void), int argc,
							...)
{
	static void (*real)(ucontext_t *, void (*)(void), int, ...);
	struct rt_thread *t = &rt_self;
	int args[CTX_ARGS] = { 0 };
	va_list ap;

	if (!real)
		real = RT_REAL(makecontext);
	va_start(ap, argc);
	for (int i = 0; i < argc && i < CTX_ARGS; i++)
		args[i] = va_arg(ap, int);
	va_end(ap);
	if (argc <= CTX_ARGS && rt.sess) {
		struct rt_ctx *c;

		enter(t);
		c = get_slot(ucp);
		if (c) {
			if (c->frames)
				rt_frames_free(c->frames);
			memset(c, 0, sizeof(*c));
			c->uc = ucp;
			c->id = __atomic_fetch_add(&next_id, 1, __ATOMIC_RELAXED);
			c->fresh = 1;
			c->fn = fn;
			c->argc = argc;
			memcpy(c->args, args, sizeof(args));
			c->link = ucp->uc_link;
			real(ucp, ctx_start, 0);
		}
		leave(t);
		if (c)
			return;
	}
	real(ucp, fn, argc, args[0], args[1], args[2], args[3], args[4], args[5], args[6], args[7]);
}

__attribute__((visibility("default"))) int swapcontext(ucontext_t *oucp, const ucontext_t *ucp)
{
	static int (*real)(ucontext_t *, const ucontext_t *);
	struct rt_thread *t = &rt_self;

	if (!real)
		real = RT_REAL(swapcontext);
	if (rt.sess) {
		int busy = enter(t);
		struct rt_ctx *to = find(ucp), *park;

		if (to && to->fresh)
			starting = *to; /* ctx_start's function and arguments */
		if (to && shadow_ok(t, busy) && (park = get_slot(oucp)) && park != to) {
			switch_to(t, park, oucp, to);
		} else if (to && to->fresh) {
			/* started with the shadow stack left as it is */
			memset(to, 0, sizeof(*to));
		}
		/* an unknown ucp (getcontext only) is resumed like a longjmp */
		leave(t);
	}
	return real(oucp, ucp);
}

__attribute__((visibility("default"))) int setcontext(const ucontext_t *ucp)
{
	static int (*real)(const ucontext_t *);
	struct rt_thread *t = &rt_self;

	if (!real)
		real = RT_REAL(setcontext);
	if (rt.sess) {
		int busy = enter(t);
		struct rt_ctx *to = find(ucp);

		if (to && to->fresh)
			starting = *to;
		if (to && shadow_ok(t, busy)) {
			/* the running context is abandoned: it returns untraced if
			 * ever resumed through a getcontext of its own */
			rt_restore_frames(t);
			rt_unwind_to(t, UINT64_MAX, 1);
			switch_to(t, NULL, NULL, to);
		} else if (to && to->fresh) {
			memset(to, 0, sizeof(*to));
		}
		leave(t);
	}
	return real(ucp);
}
