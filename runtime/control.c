// SPDX-License-Identifier: GPL-2.0
/*
 * Control changes: the tool publishes tracer, options and filter lists in
 * the session's control block (seqlock, session.h); a hook that sees its
 * generation move copies them here and re-applies the filters (patching).
 * And the one-way switch to nop when the recorder is gone (rt_detach).
 * Calls filter.c (and what it calls).
 */
#include <pthread.h>

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
	rt.fast = rt.tracer == FT_TRACER_FUNCTION_GRAPH && !rt.thresh && !rt.max_depth &&
		  !(rt.options & (FT_OPT(STACKTRACE) | FT_OPT(USERSTACKTRACE))) &&
		  !rt.have_graph_roots;
	__atomic_store_n(&rt.gen, g, __ATOMIC_RELEASE);
}

void rt_sync_ctl(void)
{
	if (!rt.sess || pthread_mutex_trylock(&rt.lock))
		return;
	rt_sync_locked();
	pthread_mutex_unlock(&rt.lock);
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
