// SPDX-License-Identifier: GPL-2.0
/*
 * Thread state: the runtime's global state (rt, and rt_self for each
 * thread), a thread's life cycle in the runtime (set up on its first hook
 * by rt_thread_get, torn down by a pthread key destructor as it exits), its
 * shadow stack's bookkeeping shared by the tracers, the context switches
 * and the unwinding wrappers, and the writes of its out-of-band records.
 * The bottom of the runtime: calls no other runtime file.
 */
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "runtime/rt.h"

struct rt_state rt RT_HIDDEN = { .lock = PTHREAD_MUTEX_INITIALIZER };
__thread struct rt_thread rt_self RT_HIDDEN RT_TLS;

static pthread_key_t thread_key;
static int thread_key_ok;

void *rt_mmap_anon(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	return p == MAP_FAILED ? NULL : p;
}

/*
 * A fresh, empty shadow stack (a thread's, or a user context's: context.c):
 * RT_MAX_FRAMES frames after one more, frames[-1], a sentinel whose slot
 * is above every stack and whose flags are 0, so the hooks' fast paths
 * compare with frames[depth - 1] without testing depth first (hooks.c).
 * Returns frames[0], or NULL without memory.  Not for the hook path (mmap).
 */
struct rt_frame *rt_frames_alloc(void)
{
	struct rt_frame *base = rt_mmap_anon(RT_FRAMES_BYTES);

	if (!base)
		return NULL;
	base[0].slot = UINT64_MAX;
	return base + 1;
}

/* Give back a shadow stack rt_frames_alloc() returned. */
void rt_frames_free(struct rt_frame *frames)
{
	munmap(frames - 1, RT_FRAMES_BYTES);
}

/* The calling thread's kernel id (a system call: not for the hooks' fast paths). */
uint32_t rt_gettid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

/*
 * Make the calling thread ready to trace: shadow stack, ring slot, pid
 * filter.  Returns t, or NULL when the thread is not to be traced (pid
 * filter, no memory, exited, the recorder gone).
 */
struct rt_thread *rt_thread_get(void)
{
	struct rt_thread *t = &rt_self;

	/* detached (rt_detach): threads that start tracing now take no ring slot */
	if (t->state == RT_THREAD_DEAD || !rt.sess ||
	    __atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		return NULL;
	if (t->state != RT_THREAD_FRESH && t->sess_seq != rt.sess_seq) {
		/*
		 * Attached again (attach.c): the ring handle is the old
		 * session's, and the frames still on the shadow stack were
		 * recorded there -- they return without an EXIT here.
		 */
		t->hot = 0; /* an open gate promises tramp.S a ring slot (hooks.c) */
		t->hot_stack = 0;
		ft_barrier();
		if (t->rb.area)
			ft_rb_thread_forget(&t->rb);
		for (uint32_t i = 0; i < t->depth; i++)
			t->frames[i].flags &= FR_CYG | FR_RESTORED;
		t->rec_depth = t->roots = t->notrace = 0;
		t->sess_seq = rt.sess_seq;
		if (rt.area)
			ft_rb_thread_attach(&t->rb, rt.area, (uint32_t)rt.pid, t->tid);
		t->gen = ~rt.gen;
	}
	if (t->state == RT_THREAD_FRESH) {
		t->tid = rt_gettid();
		if (!t->frames)
			t->frames = rt_frames_alloc();
		if (!t->frames) {
			t->state = RT_THREAD_DEAD;
			return NULL;
		}
		/* unwind.c's rule cache: here, not on a hook; none is no cache */
		if (!t->ucache)
			t->ucache = rt_mmap_anon(RT_UCACHE_BYTES);
		if (rt.area && !t->rb.area)
			ft_rb_thread_attach(&t->rb, rt.area, (uint32_t)rt.pid, t->tid);
		t->sess_seq = rt.sess_seq;
		if (thread_key_ok)
			pthread_setspecific(thread_key, t);
		t->state = RT_THREAD_READY;
		t->gen = ~rt.gen; /* evaluate the pid filter below */
	}
	if (t->gen != rt.gen) {
		uint32_t n = rt.ctl->nr_pids;

		t->gen = rt.gen;
		t->state = RT_THREAD_READY;
		if (n) {
			uint32_t i;

			if (n > FT_SESSION_MAX_PIDS)
				n = FT_SESSION_MAX_PIDS;
			for (i = 0; i < n; i++)
				if (rt.ctl->pids[i] == t->tid) /* a thread, as set_ftrace_pid */
					break;
			if (i == n)
				t->state = RT_THREAD_FILTERED;
		}
	}
	if (t->state != RT_THREAD_READY)
		return NULL;
	if (t->named_seq != t->sess_seq + 1)
		rt_thread_name_start(t);
	return t;
}

/*
 * The thread's name as the kernel has it now, as the first record of its
 * ring (FT_EXT_TNAME), once per ring attachment: a thread gone before the
 * recorder reads /proc/PID/task/TID/comm is still named right, by its own
 * stream (the recorder's task table can then only guess its process's
 * name).  No event (0 events: the counts of records stay those of events)
 * and no rename (show prints no task_rename line for it).  One prctl
 * system call, the raw one (proc.c wraps prctl).  Not for the hooks' fast
 * paths: rt_thread_get() and a forked child's set-up call it.
 */
void rt_thread_name_start(struct rt_thread *t)
{
	char name[16] = "";

	t->named_seq = t->sess_seq + 1;
	if (!t->rb.area || __atomic_load_n(&rt.detached, __ATOMIC_RELAXED) ||
	    syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0))
		return;
	name[sizeof(name) - 1] = '\0';
	rt_guard_recursion(t);
	ft_rb_ext(&t->rb, FT_EXT_TNAME, name, (uint32_t)strlen(name), ft_rdtsc(), 1, 0);
	rt_unguard_recursion(t);
}

/*
 * From here on the exiting thread runs no signal handler: a handler that
 * ran after its ring is detached would find nowhere to write, and its
 * events would be lost.  A signal sent to the whole process goes to
 * another thread, as the kernel does for a thread already exiting; one
 * sent to this thread alone dies with it, as it would a moment later.
 * Faults stay deliverable: blocking them would turn a crash into a hang or
 * a silent kill.
 */
static void block_signals_for_exit(void)
{
	static const int faults[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS, SIGABRT };
	sigset_t set;

	sigfillset(&set);
	for (unsigned int i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		sigdelset(&set, faults[i]);
	pthread_sigmask(SIG_BLOCK, &set, NULL);
}

/* pthread key destructor: the thread is exiting. */
static void thread_dtor(void *arg)
{
	struct rt_thread *t = &rt_self;

	(void)arg;
	if (t->rb.area)
		block_signals_for_exit();
	/* the latency tracers' pending results, while the ring is there */
	if (rt.thread_exit_more && t->state == RT_THREAD_READY && !t->busy) {
		rt_guard_recursion(t);
		rt.thread_exit_more(t);
		rt_unguard_recursion(t);
	}
	/* frames left by pthread_exit/cancel: closed with one UNWIND */
	if (t->depth && t->state == RT_THREAD_READY && !t->busy) {
		rt_guard_recursion(t);
		rt_unwind_to(t, UINT64_MAX, 1);
		rt_unguard_recursion(t);
	}
	t->hot = 0; /* no fast path from here on (hooks.c) */
	t->hot_stack = 0;
	ft_barrier();
	if (t->rb.area)
		ft_rb_thread_detach(&t->rb);
	if (rt.smap_ok) /* its stack map shard goes back to the pool */
		ft_stackmap_thread_detach(&rt.smap);
	t->state = RT_THREAD_DEAD;
	if (t->ucache) {
		void *c = t->ucache;

		t->ucache = NULL;
		ft_barrier(); /* a handler on this thread sees NULL before the unmap */
		munmap(c, RT_UCACHE_BYTES);
	}
	if (t->frames && !t->depth) {
		rt_frames_free(t->frames);
		t->frames = NULL;
	}
}

/*
 * Put the real return address back in every hijacked slot of this thread,
 * so an unwinder walking the stack sees the program's own frames.
 */
void rt_restore_frames(struct rt_thread *t)
{
	for (uint32_t i = 0; i < t->depth; i++) {
		struct rt_frame *fr = &t->frames[i];
		uint64_t *slot = (uint64_t *)fr->slot;

		if (fr->flags & (FR_CYG | FR_RESTORED))
			continue;
		if (rt_is_ret_tramp(*slot)) {
			*slot = fr->ret;
			fr->flags |= FR_RESTORED;
		}
	}
}

/* An out-of-band record (fork, exec, exit, names, commands) in t's ring, now. */
void rt_emit_ext(struct rt_thread *t, uint32_t type, const void *p, uint32_t len)
{
	/* detached (init.c, rt_detach): fork, exec, exit, names go unrecorded too */
	if (t->rb.area && !__atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		ft_rb_ext(&t->rb, type, p, len, ft_rdtsc(), 1, 1);
}

/* ---- shadow stack ---- */

/*
 * Pop shadow frames until depth is target: frames that died without
 * returning.  Recorded ones are closed with one FT_EXT_UNWIND record.
 */
__attribute__((noinline)) void rt_unwind_to_depth(struct rt_thread *t, uint32_t target)
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
		ft_barrier();
		t->depth--;
	}
	if (n && t->rb.area) {
		struct ft_rb_wlevel *w = &t->rb.lv[t->rb.nest < FT_RB_LEVELS ? t->rb.nest : 0];

		ft_rb_ext(&t->rb, FT_EXT_UNWIND, &n, 4, ft_rdtsc(), 1, 1);
		ft_rb_set_depth(&t->rb, w->depth > n ? w->depth - n : 0);
	}
}

/*
 * The signal handlers of t whose shim frame lies below sp were left
 * without returning (siglongjmp out of a handler): close each one with
 * FT_EXT_SIGRET (how 1), innermost first, as the shim would have.
 */
void rt_sig_unwind_to(struct rt_thread *t, uint64_t sp)
{
	while (t->sig_level && t->sig_level <= RT_SIG_LEVELS && t->sig_sp[t->sig_level - 1] < sp) {
		uint32_t w[3] = { t->sig_signo[t->sig_level - 1], t->sig_level, 1 };
		uint32_t d = t->depth;
		int rec = !(w[0] & RT_SIG_UNRECORDED);

		/* the handler's own dead frames (below its shim) close inside it */
		while (d && t->frames[d - 1].slot < t->sig_sp[t->sig_level - 1])
			d--;
		if (d != t->depth)
			rt_unwind_to_depth(t, d);
		if (rec) /* paired with a SIGNAL the shim wrote */
			rt_emit_ext(t, FT_EXT_SIGRET, w, sizeof(w));
		ft_barrier(); /* the record before the level drops (this thread's handlers) */
		t->sig_level--;
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
	/* handlers left meanwhile, each closed after its own frames */
	if (t->sig_level)
		rt_sig_unwind_to(t, sp);
	if (d < t->depth)
		rt_unwind_to_depth(t, d);
}

/* At load time (init.c): threads that exit from now on run thread_dtor. */
void rt_threads_init(void)
{
	if (pthread_key_create(&thread_key, thread_dtor) == 0)
		thread_key_ok = 1;
}
