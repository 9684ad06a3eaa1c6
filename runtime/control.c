// SPDX-License-Identifier: GPL-2.0
/*
 * Control changes: the tool publishes tracer, options and filter lists in
 * the session's control block (seqlock, session.h); a hook that sees its
 * generation move copies them here and re-applies the filters (patching).
 * And the one-way switch to nop when the recorder is gone (rt_detach).
 * In a live session, a thread of ours applies changes as they come
 * (rt_live_start).  Calls filter.c (and what it calls), and events.c for
 * the user events a tool switched.
 */
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "core/options.h"
#include "runtime/rt.h"

/*
 * Copy the control block (seqlock read, see session.h), re-parse the
 * filters and re-apply them (patching).  Caller holds rt.lock.  Leaves
 * rt.gen alone when an update is in progress (odd gen): retried later.
 */
void rt_sync_locked(void)
{
	struct ft_session_ctl *c = rt.ctl;
	uint32_t g;
	int tries = 0;

	if (rt.detached) {
		/*
		 * Nobody publishes control changes any more (the recorder may
		 * have died mid-update, gen odd): nop, whatever the block says.
		 * Every function's flags become 0 (filter.c), which unpatches
		 * every site.  rt.gen takes ctl gen as it is, so the hooks stop
		 * calling us.
		 */
		g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		rt.tracer = FT_TRACER_NOP;
		rt.options = 0;
		rt.max_depth = 0;
		rt.thresh = 0;
		rt_filters_apply_all(0);
		rt.fast = 0;
		rt.fast_stack = 0;
		__atomic_store_n(&rt.gen, g, __ATOMIC_RELEASE);
		return;
	}
	for (;;) {
		g = __atomic_load_n(&c->gen, __ATOMIC_ACQUIRE);
		if (g & 1) {
			if (++tries > 1000)
				return;
			continue;
		}
		rt.tracer = c->tracer;
		rt.options = c->options;
		rt.max_depth = c->max_graph_depth;
		rt.thresh = c->thresh_ticks;
		rt.stack_depth = c->stack_depth;
		rt_filters_parse();
		/* acquire fence: the copies above happen before the re-check */
		ft_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&c->gen, __ATOMIC_RELAXED) == g)
			break;
		if (++tries > 1000)
			return;
	}
	rt_filters_apply_all(1);
	rt_events_sync(); /* events/u/.../enable of a live mount */
	rt.fast = rt.tracer == FT_TRACER_FUNCTION_GRAPH && !rt.thresh && !rt.max_depth &&
		  !(rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE))) &&
		  !rt.have_graph_roots;
	/* the same but for -T with the stack map: hooks.c's -T fast path */
	rt.fast_stack = rt.tracer == FT_TRACER_FUNCTION_GRAPH && !rt.thresh && !rt.max_depth &&
			(rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE))) &&
			(rt.options & FT_OPT(STACKMAP)) && rt.smap_ok && !rt.have_graph_roots;
	__atomic_store_n(&rt.gen, g, __ATOMIC_RELEASE);
}

void rt_sync_ctl(void)
{
	if (!rt.sess || pthread_mutex_trylock(&rt.lock))
		return;
	rt_sync_locked();
	pthread_mutex_unlock(&rt.lock);
	/*
	 * A tool made the session live after it started (ftrail mount -P on
	 * a recording started without --mount): the live thread starts now,
	 * at the hook that saw the change -- not inside one of the program's
	 * signal handlers, where creating a thread is not safe (the next hook
	 * outside one starts it).
	 */
	if (!rt_self.sig_level)
		rt_live_start();
}

/**
 * rt_detach() - the recorder is gone (rt_orphaned() said so): stop tracing
 *
 * Nobody drains the rings any more, so nothing may be written to them and
 * the program should run at full speed.  tracing_on is switched off in the
 * shared control block first, which stops every process of the traced tree
 * at its next record (each also sees the lifeline and detaches itself).
 * Then, under rt.lock, this process goes to the nop tracer with every
 * function unselected: patched sites get their nops back, -pg/-mfentry/
 * -finstrument-functions hooks return at their first test, user events are
 * disabled as they next fire (events.c).  Frames already on the shadow
 * stack return through it as usual.  rt.life is cleared last, so the hooks'
 * test costs one load from then on.
 *
 * Context: any hook, signal handlers included; never blocks: when rt.lock
 * is busy the next hook retries (rt.life is still set).
 */
void rt_detach(void)
{
	if (!rt.sess)
		return;
	ft_session_set_tracing_on(rt.sess, 0);
	if (pthread_mutex_trylock(&rt.lock))
		return;
	if (!rt.detached) {
		__atomic_store_n(&rt.detached, 1, __ATOMIC_RELAXED);
		rt_sync_locked();
		if (rt.detach_more) /* record -P (attach.c): the GOT and the nops back */
			rt.detach_more();
	}
	__atomic_store_n(&rt.life, NULL, __ATOMIC_RELAXED);
	pthread_mutex_unlock(&rt.lock);
}

/*
 * The live-control thread.  A change reaches the program at its next
 * hook, so a selection that patches nothing the program runs (a filter
 * matching no function, or only functions not called any more) leaves it
 * deaf to every later change.  When the tool asked for a live session
 * (ctl.live, session.h), this thread sleeps on the futex word ctl.gen,
 * which ft_session_ctl_end() wakes, and applies each change under rt.lock
 * as a hook would (patching included).  Its 1 s timeout also notices a
 * recorder that died while no hook ran, and detaches then.
 *
 * It is runtime code, never traced: its guard is held for its whole life
 * and it never takes a ring slot (rt_thread_get is not called).  Every
 * signal is blocked in it, so the program's signals go to its own threads.
 * It leaves when the process detaches; a fork's child starts its own.
 */
static void *live_main(void *arg)
{
	struct rt_thread *t = &rt_self;

	(void)arg;
	rt_guard_recursion(t);
	for (;;) {
		/* acquire: pairs with ft_session_ctl_end's release increment */
		uint32_t g = __atomic_load_n(&rt.ctl->gen, __ATOMIC_ACQUIRE);
		struct timespec ts = { 1, 0 };

		if (__atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
			break;
		if (rt_orphaned()) {
			rt_detach();
			continue;
		}
		/* a filter or trigger edit (it bumps gen after posting: seen here) */
		rt_events_edit();
		/* odd: the tool is mid-update; its end wakes us */
		if (!(g & 1) && g != __atomic_load_n(&rt.gen, __ATOMIC_ACQUIRE)) {
			pthread_mutex_lock(&rt.lock);
			rt_sync_locked();
			pthread_mutex_unlock(&rt.lock);
			continue;
		}
		/* returns at once if gen moved since the load above */
		syscall(SYS_futex, &rt.ctl->gen, FUTEX_WAIT, g, &ts, NULL, 0);
	}
	__atomic_store_n(&rt.live_thread, 0, __ATOMIC_RELEASE);
	return NULL;
}

/*
 * Start the live-control thread if the session asks for one and none runs
 * in this process.  Called at the end of rt_start, in a fork's child, and
 * by rt_sync_ctl for a session a tool made live later.
 */
void rt_live_start(void)
{
	sigset_t all, old;
	pthread_attr_t a;
	pthread_t th;
	int expect = 0;

	if (!rt.sess || !__atomic_load_n(&rt.ctl->live, __ATOMIC_RELAXED) ||
	    __atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		return;
	if (!__atomic_compare_exchange_n(&rt.live_thread, &expect, 1, 0, __ATOMIC_ACQ_REL,
					 __ATOMIC_RELAXED))
		return;
	/* the new thread starts with every signal blocked */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pthread_attr_init(&a);
	pthread_attr_setdetachstate(&a, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&a, 256 << 10);
	if (pthread_create(&th, &a, live_main, NULL)) {
		__atomic_store_n(&rt.live_thread, 0, __ATOMIC_RELEASE);
		ft_session_msg(rt.sess, "cannot start the live-control thread: changes apply at "
					"the program's next traced call");
	} else {
		pthread_setname_np(th, "ftrail-live");
	}
	pthread_attr_destroy(&a);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}
