// SPDX-License-Identifier: GPL-2.0
/*
 * The section tracers, the user-space analogues of ftrace's preemptoff and
 * irqsoff (doc/latency-user.md):
 *
 *   -p lockheld  a thread holds a pthread mutex: from the return of a
 *                pthread_mutex_lock / _timedlock / _clocklock that took it
 *                (or a pthread_mutex_trylock that returned 0) to the entry
 *                of the pthread_mutex_unlock of the same address.  A
 *                pthread_cond_*wait releases the mutex while it waits: the
 *                section ends at its entry and a new one begins at its
 *                return.  Each mutex is a section of its own; preempt-depth
 *                shows how many others the thread held meanwhile.
 *   -p sigsoff   a thread runs with signals blocked: from the return of a
 *                sigprocmask / pthread_sigmask that left its mask non-empty
 *                to the return of the one that emptied it (the mask is read
 *                back from the kernel after each such call, so blocking and
 *                unblocking through SIG_BLOCK, SIG_UNBLOCK or SIG_SETMASK,
 *                in any order, are all seen).
 *
 * Both see the calls through plt.c's library-call hooks: calls the program
 * (or a traced library) makes through its PLT, whatever the filters say.
 * A section's end writes it (FT_EXT_ULAT, core/ulat.h) when it is a new max
 * for its tracer in this process -- tracing_max_latency -- or, with
 * tracing_thresh, when it lasted that long, as ftrace's latency tracers
 * do; with the stack where it began and where it ended (stack map ids).
 * While a section is open, the thread's traced calls are written as the
 * function tracer writes them: the trace of the section, which show prints
 * for the worst one (ftrace keeps it in its max buffer; here the reader
 * picks it out of the trace).
 *
 * State: the calling thread's own (a page mapped on its first use: TLS
 * stays small for record -P), touched with t->busy held, so no lock; the
 * one shared word is each tracer's max (ll_max), see ll_new_max().
 */

#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/record.h"
#include "core/ulat.h"
#include "runtime/rt.h"

enum ll_op {
	LLOP_NONE = 0,
	LLOP_LOCK,     /* pthread_mutex_lock & co: rdi, taken when it returns 0 */
	LLOP_TRYLOCK,  /* pthread_mutex_trylock: the same */
	LLOP_UNLOCK,   /* pthread_mutex_unlock: rdi */
	LLOP_CONDWAIT, /* pthread_cond_*wait: rsi released meanwhile, held again at return */
	LLOP_SIGMASK,  /* sigprocmask, pthread_sigmask */
};

#define LL_HELD 64 /* mutexes one thread holds at once, tracked */
#define LL_PEND 16 /* lock / mask calls in flight on one thread (signal handlers) */

struct ll_sec {
	uint64_t key; /* mutex address; signals: the blocked set */
	uint64_t ts;  /* begin */
	uint64_t ip;  /* return address of the call that began it */
	uint32_t stack;
	uint32_t fid; /* the call that began it */
};

struct ll_pend {
	uint32_t depth; /* shadow-stack index of its FR_ULAT frame */
	uint32_t op;	/* enum ll_op */
	uint64_t key;
	uint64_t ip;
	uint32_t stack; /* at the call */
	uint32_t fid;	/* of the call */
};

struct ll_thread {
	uint32_t tid;
	uint32_t nheld;
	uint32_t npend;
	uint32_t sigs_open;
	struct ll_sec sigs;
	struct ll_sec held[LL_HELD];
	struct ll_pend pend[LL_PEND];
};

_Static_assert(sizeof(struct ll_thread) <= 4096, "ll_thread: one page");

static __thread struct ll_thread *ll_self RT_TLS;

/*
 * tracing_max_latency of each tracer in this process, in ticks.  Relaxed
 * atomics: it only decides whether a section is written; the record
 * carries the data.  Two threads that both beat the old max at once may
 * both write theirs (the CAS lets the larger one win the word): the reader
 * takes the largest record, so the max shown is right either way.
 */
static uint64_t ll_max[2];

static int ll_new_max(int which, uint64_t dur)
{
	uint64_t cur = __atomic_load_n(&ll_max[which], __ATOMIC_RELAXED);

	do {
		if (dur <= cur)
			return 0;
	} while (!__atomic_compare_exchange_n(&ll_max[which], &cur, dur, 1, __ATOMIC_RELAXED,
					      __ATOMIC_RELAXED));
	return 1;
}

static struct ll_thread *ll_get(struct rt_thread *t)
{
	struct ll_thread *l = ll_self;

	if (unlikely(!l)) {
		l = rt_mmap_anon(4096);
		if (!l)
			return NULL;
		ll_self = l;
	}
	if (unlikely(l->tid != t->tid)) { /* a new thread, or a forked child */
		memset(l, 0, sizeof(*l));
		l->tid = t->tid;
	}
	return l;
}

/*
 * Is t inside a section now (its calls are being written)?  For a hook
 * that must count its call as lost (hooks.c, lost_call): async-signal-safe,
 * reads only t's own state; a handler that interrupted an update of it may
 * read the count before or after the update -- one loss more or less
 * counted, never a crash.
 */
int rt_ll_in_section(const struct rt_thread *t)
{
	const struct ll_thread *l = ll_self;

	return l && l->tid == t->tid && (l->nheld || l->sigs_open);
}

static enum ll_op ll_op_of(const struct rt_func *f)
{
	const char *n = f->name;

	if (!f->lib || !n) /* a PLT import: the library function itself */
		return LLOP_NONE;
	if (n[0] == 'p' && !strncmp(n, "pthread_", 8)) {
		n += 8;
		if (!strcmp(n, "mutex_lock") || !strcmp(n, "mutex_timedlock") ||
		    !strcmp(n, "mutex_clocklock"))
			return LLOP_LOCK;
		if (!strcmp(n, "mutex_trylock"))
			return LLOP_TRYLOCK;
		if (!strcmp(n, "mutex_unlock"))
			return LLOP_UNLOCK;
		if (!strcmp(n, "cond_wait") || !strcmp(n, "cond_timedwait") ||
		    !strcmp(n, "cond_clockwait"))
			return LLOP_CONDWAIT;
		if (!strcmp(n, "sigmask"))
			return LLOP_SIGMASK;
		return LLOP_NONE;
	}
	if (n[0] == 's' && !strcmp(n, "sigprocmask"))
		return LLOP_SIGMASK;
	return LLOP_NONE;
}

/* The program's stack at us as a stack map id, UINT32_MAX when the map cannot serve. */
static uint32_t ll_stack(struct rt_thread *t, const struct rt_ustate *us)
{
	uint64_t ips[FT_STACKMAP_MAX_DEPTH];
	uint32_t n, max = rt.stack_depth;
	int id;

	if (!rt.smap_ok)
		return UINT32_MAX;
	if (!max || max > FT_STACKMAP_MAX_DEPTH)
		max = FT_STACKMAP_MAX_DEPTH;
	n = rt_ustack(t, us, ips, max);
	if (!n)
		return UINT32_MAX;
	id = ft_stackmap_get_id(&rt.smap, ips, n);
	return id < 0 ? UINT32_MAX : (uint32_t)id;
}

/*
 * A section of kind ended at end: written when it is a new max, or lasted
 * tracing_thresh (ticks, rt.thresh) or more.  end_stack: the stack at the
 * call that ended it, or (end_us) to be captured now -- only when written.
 */
static void ll_end(struct rt_thread *t, uint32_t kind, const struct ll_sec *s, uint64_t end,
		   uint64_t end_ip, uint32_t end_fid, uint32_t end_stack,
		   const struct rt_ustate *end_us, uint32_t held)
{
	struct ft_ulat_sec r;
	uint64_t dur = end > s->ts ? end - s->ts : 0;
	int cpu;

	memset(&r, 0, sizeof(r));
	/* tracing_on off (a trigger, the control plane): the tracer is off too */
	if (!__atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		return;
	if (rt.thresh) {
		if (dur < rt.thresh)
			return;
		r.flags |= FT_ULAT_THRESH;
	} else if (!ll_new_max(kind == FT_ULAT_LOCK ? 0 : 1, dur)) {
		return;
	}
	if (!t->rb.area)
		return;
	if (end_us)
		end_stack = ll_stack(t, end_us);
	r.kind = kind;
	r.key = s->key;
	r.begin_ts = s->ts;
	r.end_ts = end;
	r.begin_ip = s->ip;
	r.end_ip = end_ip;
	r.begin_stack = s->stack;
	r.end_stack = end_stack;
	if (s->stack == UINT32_MAX || end_stack == UINT32_MAX)
		r.flags |= FT_ULAT_NOSTACK;
	cpu = sched_getcpu();
	r.cpu = cpu < 0 ? UINT32_MAX : (uint32_t)cpu;
	r.held = held;
	r.begin_fid = s->fid == RT_NOFID ? UINT32_MAX : s->fid;
	r.end_fid = end_fid == RT_NOFID ? UINT32_MAX : end_fid;
	ft_rb_ext(&t->rb, FT_EXT_ULAT, &r, sizeof(r), ft_rdtsc(), 1, 1);
}

/* The mutex key's section ends now, at the call whose state is us. */
static void ll_unlock(struct rt_thread *t, struct ll_thread *l, uint64_t key, uint32_t fid,
		      const struct rt_ustate *us)
{
	uint64_t now = ft_rdtsc();

	for (uint32_t i = l->nheld; i-- > 0;) {
		struct ll_sec s;

		if (l->held[i].key != key)
			continue;
		s = l->held[i];
		memmove(&l->held[i], &l->held[i + 1], (l->nheld - i - 1) * sizeof(s));
		l->nheld--;
		ll_end(t, FT_ULAT_LOCK, &s, now, us->ip, fid, UINT32_MAX, us, l->nheld);
		return;
	}
	/* not taken through a call we saw (before the recording, or unseen): nothing */
}

/*
 * The function tracer's record of f, for the trace of an open section
 * (hooks.c writes the same for -p function).
 */
static void ll_func(struct rt_thread *t, struct rt_func *f, uint64_t *slot, uint64_t ret, int cyg)
{
	uint32_t fid = rt_func_fid(f), pfid;
	uint64_t parent = ret;

	if (fid == RT_NOFID)
		return;
	if (!cyg && rt_is_ret_tramp(ret))
		parent = rt_shadow_ret(t, (uint64_t)slot);
	pfid = rt_addr_fid(parent);
	ft_rb_func(&t->rb, fid, pfid == RT_NOFID ? 0 : pfid + 1, parent, ft_rdtsc());
}

int rt_ulat_entry(struct rt_thread *t, struct rt_func *f, uint16_t fl, uint64_t *slot, uint64_t ret,
		  int cyg, const struct rt_ustate *us, const uint64_t *regs)
{
	struct ll_thread *l = ll_get(t);
	int locks = rt.tracer == FT_TRACER_LOCKHELD;
	enum ll_op op;
	struct ll_pend *p;

	if (!l || !t->rb.area)
		return 0;
	/* the trace of the open section */
	if ((fl & RF_TRACE) && (locks ? l->nheld : l->sigs_open) &&
	    __atomic_load_n(&rt.ctl->tracing_on, __ATOMIC_RELAXED))
		ll_func(t, f, slot, ret, cyg);
	op = ll_op_of(f);
	if (op == LLOP_NONE || !regs || cyg)
		return 0;
	if (locks ? op == LLOP_SIGMASK : op != LLOP_SIGMASK)
		return 0;
	if (op == LLOP_UNLOCK) {
		ll_unlock(t, l, regs[0], rt_func_fid(f), us);
		return 0;
	}
	if (op == LLOP_CONDWAIT)
		ll_unlock(t, l, regs[1], rt_func_fid(f), us);
	/* calls in flight at or above this depth died without returning (longjmp) */
	while (l->npend && l->pend[l->npend - 1].depth >= t->depth)
		l->npend--;
	if (l->npend == LL_PEND)
		return 0;
	p = &l->pend[l->npend++];
	p->depth = t->depth;
	p->op = op;
	p->key = op == LLOP_CONDWAIT ? regs[1] : regs[0];
	p->ip = us->ip;
	p->stack = ll_stack(t, us);
	p->fid = rt_func_fid(f);
	return 1;
}

/* The blocked set of the calling thread, 0 when it cannot be read. */
static uint64_t ll_sigmask(void)
{
	uint64_t set = 0;

	/* the raw call: 8 bytes of mask, what the kernel keeps per thread */
	if (syscall(SYS_rt_sigprocmask, SIG_BLOCK, NULL, &set, sizeof(set)) != 0)
		return 0;
	return set;
}

void rt_ulat_exit(struct rt_thread *t, const struct rt_frame *fr, const uint64_t *rv)
{
	struct ll_thread *l = ll_self;
	struct ll_pend p;
	uint64_t now = ft_rdtsc();

	(void)fr;
	if (!l || l->tid != t->tid)
		return;
	/* its frame was at index t->depth (just popped); deeper ones are dead */
	while (l->npend && l->pend[l->npend - 1].depth > t->depth)
		l->npend--;
	if (!l->npend || l->pend[l->npend - 1].depth != t->depth)
		return;
	p = l->pend[--l->npend];
	if (!rv)
		return; /* left without returning: the lock's state is unknown */
	switch (p.op) {
	case LLOP_LOCK:
	case LLOP_TRYLOCK:
		if (rv[0] != 0)
			return;
		/* fall through */
	case LLOP_CONDWAIT: /* holds the mutex again, timed out or not */
		if (l->nheld == LL_HELD) {
			static int warned;

			if (!__atomic_exchange_n(&warned, 1, __ATOMIC_RELAXED))
				ft_session_msg(rt.sess, "lockheld: a thread holds more than 64 "
							"mutexes: the others are not timed");
			return;
		}
		l->held[l->nheld++] = (struct ll_sec){ p.key, now, p.ip, p.stack, p.fid };
		return;
	case LLOP_SIGMASK: {
		uint64_t set;

		if ((int)rv[0] != 0)
			return;
		set = ll_sigmask();
		if (set && !l->sigs_open) {
			l->sigs_open = 1;
			l->sigs = (struct ll_sec){ set, now, p.ip, p.stack, p.fid };
		} else if (!set && l->sigs_open) {
			l->sigs_open = 0;
			ll_end(t, FT_ULAT_SIGS, &l->sigs, now, p.ip, p.fid, p.stack, NULL, 0);
		}
		return;
	}
	default:
		return;
	}
}

/* The thread is exiting: its page goes (sections still open are not written, as in ftrace). */
void rt_ll_thread_exit(struct rt_thread *t)
{
	struct ll_thread *l = ll_self;

	(void)t;
	ll_self = NULL;
	if (l)
		munmap(l, 4096);
}
