// SPDX-License-Identifier: GPL-2.0
/*
 * The program's signal handlers, seen as ftrace sees interrupts.
 *
 * sigaction() and signal() install a shim in front of every handler the
 * program sets (SIG_DFL and SIG_IGN go through untouched).  The kernel
 * gets the program's own flags, SA_SIGINFO added, and its own mask, so
 * SA_RESETHAND, SA_NODEFER, SA_RESTART, SA_ONSTACK and the mask mean what
 * they meant; a query (oldact) that finds the shim installed answers with
 * the action the program set.  When a signal arrives the shim records
 * FT_EXT_SIGNAL(signo, level), calls the program's handler as it asked
 * (sa_sigaction with siginfo and context, or sa_handler) and records
 * FT_EXT_SIGRET(signo, level, 0): the handler's calls come between the
 * two, nested in the interrupted call as before, and `ftrail show` puts
 * function_graph's irq arrows around them.  level counts the handlers
 * nested on this thread (a handler interrupted by another signal: 2).  A
 * handler left through siglongjmp never reaches the shim's second record:
 * thread.c closes it (how 1) when the shadow stack finds its frame dead,
 * or at the next signal.
 *
 * SIGTRAP stays patch.c's (its int3 protocol): rt_patch_sigaction keeps
 * the program's SIGTRAP action aside, and SIGTRAP out of every mask.
 *
 * Limits: a handler on a sigaltstack above the interrupted stack would be
 * taken as left at the next signal of a lower frame; more than
 * RT_SIG_LEVELS nested handlers are run but not recorded.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/rt.h"

/*
 * The program's action for each signal whose kernel action is the shim.
 * Written under act_lock by sigaction(), read by the shim in any thread
 * and any handler, lock-free: a sequence count per signal, odd while its
 * copy is rewritten (the reader retries until it read one whole version).
 */
static struct sigaction prog_act[NSIG];
static uint32_t prog_seq[NSIG];
static pthread_mutex_t act_lock = PTHREAD_MUTEX_INITIALIZER;

static void prog_get(int sig, struct sigaction *out)
{
	for (;;) {
		uint32_t s = __atomic_load_n(&prog_seq[sig], __ATOMIC_ACQUIRE);

		if (s & 1)
			continue; /* a writer is between its two stores */
		memcpy(out, &prog_act[sig], sizeof(*out));
		/* acquire fence: the copy is read before the re-check */
		ft_fence(__ATOMIC_ACQUIRE);
		if (__atomic_load_n(&prog_seq[sig], __ATOMIC_RELAXED) == s)
			return;
	}
}

/* Caller holds act_lock. */
static void prog_set(int sig, const struct sigaction *act)
{
	__atomic_store_n(&prog_seq[sig], prog_seq[sig] + 1, __ATOMIC_RELAXED);
	/* release: the odd count before the copy changes */
	ft_fence(__ATOMIC_RELEASE);
	memcpy(&prog_act[sig], act, sizeof(*act));
	/* release: the copy before the even count */
	__atomic_store_n(&prog_seq[sig], prog_seq[sig] + 1, __ATOMIC_RELEASE);
}

/*
 * May this thread record now (a handler interrupting runtime code may
 * not)?  A thread not set up yet is set up, as its handler's first hook
 * would.
 */
static int may_record(struct rt_thread *t)
{
	if (!rt.sess || t->busy || __atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		return 0;
	if (t->state != RT_THREAD_READY || t->gen != rt.gen) {
		rt_guard_recursion(t);
		rt_thread_get();
		rt_unguard_recursion(t);
	}
	return t->state == RT_THREAD_READY && t->rb.area;
}

/*
 * The shim could not record a handler's start or end although the thread
 * traces (a hook of it was interrupted, or too many handlers are nested):
 * counted as lost, as the handler's own calls are in that case.
 */
static void lost(struct rt_thread *t, uint32_t n)
{
	if (rt.sess && t->state == RT_THREAD_READY && t->rb.area &&
	    !__atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		ft_rb__lost_nolevel(&t->rb, n);
}

static void emit(struct rt_thread *t, uint32_t type, const uint32_t *w, uint32_t n)
{
	rt_guard_recursion(t);
	rt_emit_ext(t, type, w, n * 4);
	rt_unguard_recursion(t);
}

/*
 * Every program handler is entered here.  Async-signal-safe: no lock, no
 * allocation; errno is the program's again before its handler runs and
 * after the shim's last record.
 */
static RT_SIGSHIM void shim(int sig, siginfo_t *si, void *uc)
{
	struct rt_thread *t = &rt_self;
	uint64_t sp = (uint64_t)__builtin_frame_address(0);
	struct sigaction a;
	uint32_t lv;
	int rec, e = errno;

	prog_get(sig, &a);
	/* handlers left by siglongjmp whose frames this one now reuses */
	if (t->sig_level && may_record(t)) {
		rt_guard_recursion(t);
		rt_sig_unwind_to(t, sp + 1);
		rt_unguard_recursion(t);
	}
	lv = t->sig_level + 1;
	rec = lv <= RT_SIG_LEVELS && may_record(t);
	if (!rec)
		lost(t, 2);
	if (lv <= RT_SIG_LEVELS) {
		t->sig_signo[lv - 1] = (uint32_t)sig | (rec ? 0 : RT_SIG_UNRECORDED);
		t->sig_sp[lv - 1] = sp;
	}
	/* the level's slot is filled before the level counts it (our own handlers) */
	ft_barrier();
	t->sig_level = lv;
	if (rec) {
		uint32_t w[2] = { (uint32_t)sig, lv };

		emit(t, FT_EXT_SIGNAL, w, 2);
	}
	errno = e;
	if (a.sa_flags & SA_SIGINFO) {
		if (a.sa_sigaction)
			a.sa_sigaction(sig, si, uc);
	} else if (a.sa_handler != SIG_DFL && a.sa_handler != SIG_IGN) {
		a.sa_handler(sig);
	}
	e = errno;
	if (t->sig_level == lv) {
		if (rec && may_record(t)) {
			uint32_t w[3] = { (uint32_t)sig, lv, 0 };

			emit(t, FT_EXT_SIGRET, w, 3);
		} else if (rec) {
			lost(t, 1);
		}
		ft_barrier(); /* the record before the level drops */
		t->sig_level = lv - 1;
	}
	errno = e;
}

static int is_handler(const struct sigaction *act)
{
	if (act->sa_flags & SA_SIGINFO)
		return act->sa_sigaction != NULL;
	return act->sa_handler != SIG_DFL && act->sa_handler != SIG_IGN;
}

/*
 * Block the calling thread's signals (SIGTRAP excepted: patch.c's int3
 * protocol needs it open) while it holds act_lock and may leave a kept
 * action half-written: a handler of its own would otherwise wait for the
 * lock, or for the sequence count, forever.  The raw system call: our
 * mask wrappers are not to be re-entered.
 */
static void block_all(sigset_t *old)
{
	sigset_t all;

	sigfillset(&all);
	sigdelset(&all, SIGTRAP);
	syscall(SYS_rt_sigprocmask, SIG_BLOCK, &all, old, _NSIG / 8);
}

static void unblock(const sigset_t *old)
{
	syscall(SYS_rt_sigprocmask, SIG_SETMASK, old, NULL, _NSIG / 8);
}

/*
 * The program's sigaction: its handlers behind the shim (see the top).
 * The kernel's old action is read and the new one set in one call, under
 * act_lock, so oldact and the kept action agree.
 */
__attribute__((visibility("default"))) int sigaction(int sig, const struct sigaction *act,
						     struct sigaction *old)
{
	struct sigaction mine, kold, prev;
	sigset_t mask;
	int r;

	if (sig == SIGTRAP || sig <= 0 || sig >= NSIG)
		return rt_patch_sigaction(sig, act, old);
	block_all(&mask);
	pthread_mutex_lock(&act_lock);
	prev = prog_act[sig];
	if (act && is_handler(act)) {
		mine = *act;
		mine.sa_flags |= SA_SIGINFO;
		mine.sa_sigaction = shim;
		/* the shim finds it before the kernel can deliver to it */
		prog_set(sig, act);
		r = rt_patch_sigaction(sig, &mine, &kold);
		if (r)
			prog_set(sig, &prev);
	} else {
		r = rt_patch_sigaction(sig, act, &kold);
	}
	pthread_mutex_unlock(&act_lock);
	unblock(&mask);
	if (r)
		return r;
	if (old) {
		*old = kold;
		/* the shim stands for the handler the program set: report that */
		if ((kold.sa_flags & SA_SIGINFO) && kold.sa_sigaction == shim) {
			old->sa_flags = (kold.sa_flags & ~(int)SA_SIGINFO) |
					(prev.sa_flags & SA_SIGINFO);
			if (prev.sa_flags & SA_SIGINFO)
				old->sa_sigaction = prev.sa_sigaction;
			else
				old->sa_handler = prev.sa_handler;
		}
	}
	return 0;
}

/* glibc's signal(): BSD semantics (SA_RESTART, the signal blocked in its handler). */
__attribute__((visibility("default"))) sighandler_t signal(int sig, sighandler_t h)
{
	struct sigaction sa, old;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = h;
	sa.sa_flags = SA_RESTART;
	sigemptyset(&sa.sa_mask);
	sigaddset(&sa.sa_mask, sig);
	if (sigaction(sig, &sa, &old))
		return SIG_ERR;
	return old.sa_handler;
}
