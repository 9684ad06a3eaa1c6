// SPDX-License-Identifier: GPL-2.0
/*
 * Runtime life cycle: attach to the session at load time, per-thread state,
 * control changes, and the process events the tracers must follow:
 *
 *   fork     the child keeps its copy of the shadow stack (its stack is a
 *            copy too), forgets the parent's ring slot and claims its own,
 *            and re-publishes the modules under its pid; the parent records
 *            FT_EXT_FORK with the child's pid
 *   exec     FT_EXT_EXEC(path) is recorded before the call; the new image
 *            loads the runtime again (LD_PRELOAD and the session fd are
 *            inherited), which reaps the old image's slots and re-registers
 *            everything under a new address-space number
 *   exit     on_exit() records FT_EXT_EXIT(status) for the exiting thread;
 *            _exit/_Exit record it too.  Nothing needs flushing: every
 *            record is committed in shared memory when written, so a crash
 *            loses nothing either
 *   threads  a pthread key destructor hands the slot back (ringbuf.h)
 *   C++ exceptions and pthread_exit: the unwinder must see real return
 *            addresses, so the unwinder's entry points (_Unwind_RaiseException,
 *            _Unwind_Resume_or_Rethrow, _Unwind_ForcedUnwind) are wrapped to
 *            put the real addresses back into every hijacked slot first;
 *            __cxa_begin_catch (the landing pad of a catch) then closes the
 *            frames the exception left (FT_EXT_UNWIND) and re-hijacks the
 *            frames still live, as uftrace does.
 *   dlopen, dlclose: dl.c
 *   vfork, thread names: proc.c
 */
#include <dlfcn.h>
#include <link.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <unwind.h>

#include "core/clock.h"
#include "core/options.h"
#include "runtime/rt.h"

static void emit_exit(int status)
{
	struct rt_thread *t = &rt_self;
	int32_t st = status;

	if (!rt.sess || t->state != RT_THREAD_READY || t->busy)
		return;
	rt_guard_recursion(t);
	rt_stk_flush(t); /* the stack tracer's max not written yet */
	rt_emit_ext(t, FT_EXT_EXIT, &st, 4);
	rt_unguard_recursion(t);
}

/* rt.thread_exit_more: what the latency tracers keep per thread */
static void ulat_thread_exit(struct rt_thread *t)
{
	rt_stk_thread_exit(t);
	rt_ll_thread_exit(t);
}

static void on_exit_cb(int status, void *arg)
{
	(void)arg;
	emit_exit(status);
}

/* ---- fork ---- */

/* rt.lock is held across fork (busy set: no hook may wait for it meanwhile). */
static void atfork_prepare(void)
{
	if (rt.sess) {
		rt_guard_recursion(&rt_self);
		pthread_mutex_lock(&rt.lock);
	}
}

static void atfork_parent(void)
{
	if (rt.sess) {
		pthread_mutex_unlock(&rt.lock);
		rt_unguard_recursion(&rt_self);
	}
}

static void atfork_child(void)
{
	struct rt_thread *t = &rt_self;

	if (!rt.sess)
		return;
	/*
	 * The parent's gate stays closed until a slow entry reopens it
	 * (hooks.c rt_hot_update): the ring slot is about to go, and an open
	 * gate promises tramp.S a slot.
	 */
	t->hot = 0;
	t->hot_stack = 0;
	ft_barrier();
	pthread_mutex_init(&rt.lock, NULL);
	rt_modules_atfork_child();
	rt_unguard_recursion(t);
	rt.pid = getpid();
	t->tid = rt_gettid();
	if (t->rb.area)
		ft_rb_thread_forget(&t->rb);
	/* detached (rt_detach): the child records nothing, not even its modules */
	if (__atomic_load_n(&rt.detached, __ATOMIC_RELAXED))
		return;
	/* the modules are the parent's, mapped at the same addresses */
	for (int i = 0; i < rt.nr_mods; i++) {
		struct ft_session_module *src, *dst;
		uint32_t idx;

		if (rt.mods[i].shm_idx < 0 || rt.mods[i].gone)
			continue;
		idx = __atomic_fetch_add(&rt.ctl->next_module, 1, __ATOMIC_RELAXED);
		if (idx >= rt.sess->max_modules)
			break;
		src = &ft_session_modules(rt.sess)[rt.mods[i].shm_idx];
		dst = &ft_session_modules(rt.sess)[idx];
		memcpy(dst, src, sizeof(*dst));
		dst->flags = 0;
		dst->pid = (uint32_t)rt.pid;
		__atomic_store_n(&dst->flags, src->flags, __ATOMIC_RELEASE);
	}
	if (rt.area) {
		ft_rb_thread_attach(&t->rb, rt.area, (uint32_t)rt.pid, t->tid);
		ft_rb_set_depth(&t->rb, t->rec_depth); /* the child is inside its parent's calls */
		rt_thread_name_start(t);	       /* a new stream: its thread's name first */
	}
	/* the parent's live-control thread was not forked with us */
	rt.live_thread = 0;
	rt_live_start();
}

/*
 * In the child, when the program's fork() call is a traced library call
 * (plt.c: the innermost shadow frame is the one whose return slot is this
 * wrapper's): its ENTRY is in the parent's stream only, so the child's
 * stream would show the return of a call it never saw open.  The child
 * opens it again in its own stream, at the time it starts, and the call
 * reads fork() in both processes, each closing its own.  slot: this
 * wrapper's return-address slot.
 */
static void fork_child_reopen(uint64_t slot)
{
	struct rt_thread *t = &rt_self;
	struct rt_frame *fr;

	if (!rt.sess || t->state != RT_THREAD_READY || t->busy || !t->depth || !t->rb.area)
		return;
	fr = &t->frames[t->depth - 1];
	if (fr->slot != slot || (fr->flags & (FR_RECORDED | FR_THRESH | FR_CYG)) != FR_RECORDED)
		return;
	rt_guard_recursion(t);
	ft_rb_set_depth(&t->rb, t->rec_depth - 1); /* atfork_child counted it open */
	ft_rb_entry(&t->rb, fr->fid, ft_rdtsc());
	rt_unguard_recursion(t);
}

__attribute__((visibility("default"))) pid_t fork(void)
{
	static pid_t (*real)(void);
	pid_t pid;

	if (!real)
		real = RT_REAL(fork);
	pid = real();
	if (pid == 0)
		fork_child_reopen((uint64_t)__builtin_frame_address(0) + 8);
	if (pid > 0 && rt.sess) {
		uint32_t p = (uint32_t)pid;
		struct rt_thread *t = &rt_self;

		if (t->state == RT_THREAD_READY && !t->busy) {
			rt_guard_recursion(t);
			rt_emit_ext(t, FT_EXT_FORK, &p, 4);
			rt_unguard_recursion(t);
		}
	}
	return pid;
}

/* ---- exec ---- */

static void emit_exec(const char *path)
{
	struct rt_thread *t = &rt_self;

	if (!rt.sess || !path || t->busy || !rt_thread_get())
		return;
	rt_guard_recursion(t);
	rt_emit_ext(t, FT_EXT_EXEC, path, (uint32_t)strnlen(path, 1024));
	rt_unguard_recursion(t);
}

/*
 * The wrappers' bodies, called by the execl family below directly: a call
 * to our exported execv would bind, in a process we were dlopen()ed into
 * (record -P), to libc's, past the wrapper.
 */
static int wrap_execve(const char *path, char *const argv[], char *const envp[])
{
	static int (*real)(const char *, char *const[], char *const[]);

	if (!real)
		real = RT_REAL(execve);
	emit_exec(path);
	return real(path, argv, envp);
}

static int wrap_execv(const char *path, char *const argv[])
{
	static int (*real)(const char *, char *const[]);

	if (!real)
		real = RT_REAL(execv);
	emit_exec(path);
	return real(path, argv);
}

static int wrap_execvp(const char *file, char *const argv[])
{
	static int (*real)(const char *, char *const[]);

	if (!real)
		real = RT_REAL(execvp);
	emit_exec(file);
	return real(file, argv);
}

__attribute__((visibility("default"))) int execve(const char *path, char *const argv[],
						  char *const envp[])
{
	return wrap_execve(path, argv, envp);
}

__attribute__((visibility("default"))) int execv(const char *path, char *const argv[])
{
	return wrap_execv(path, argv);
}

__attribute__((visibility("default"))) int execvp(const char *file, char *const argv[])
{
	return wrap_execvp(file, argv);
}

__attribute__((visibility("default"))) int execvpe(const char *file, char *const argv[],
						   char *const envp[])
{
	static int (*real)(const char *, char *const[], char *const[]);

	if (!real)
		real = RT_REAL(execvpe);
	emit_exec(file);
	return real(file, argv, envp);
}

/*
 * The execl family: glibc's versions call execve internally, past our
 * wrappers; these build the argv and go through the wrappers above.
 * Number of char * arguments before the NULL that ends them. */
static size_t count_args(va_list ap)
{
	size_t n = 0;
	va_list c;

	va_copy(c, ap);
	while (va_arg(c, char *))
		n++;
	va_end(c);
	return n;
}

enum execl_kind {
	EXECL_PATH,   /* execl: execv(path) */
	EXECL_SEARCH, /* execlp: execvp(file), searched in PATH */
	EXECL_ENV,    /* execle: execve(path), envp after the NULL */
};

/*
 * The argv of @arg and the arguments of @ap up to their NULL, on the stack,
 * handed to the wrapper @kind names; returns what it returns (only on error).
 */
static int execl_common(enum execl_kind kind, const char *path, const char *arg, va_list ap)
{
	size_t n = count_args(ap);
	char *argv[n + 2];

	argv[0] = (char *)arg;
	for (size_t i = 1; i <= n + 1; i++)
		argv[i] = va_arg(ap, char *);
	switch (kind) {
	case EXECL_PATH:
		return wrap_execv(path, argv);
	case EXECL_SEARCH:
		return wrap_execvp(path, argv);
	case EXECL_ENV:
		break;
	}
	return wrap_execve(path, argv, va_arg(ap, char **));
}

__attribute__((visibility("default"))) int execl(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common(EXECL_PATH, path, arg, ap);
	va_end(ap);
	return ret;
}

__attribute__((visibility("default"))) int execlp(const char *file, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common(EXECL_SEARCH, file, arg, ap);
	va_end(ap);
	return ret;
}

__attribute__((visibility("default"))) int execle(const char *path, const char *arg, ...)
{
	va_list ap;
	int ret;

	va_start(ap, arg);
	ret = execl_common(EXECL_ENV, path, arg, ap);
	va_end(ap);
	return ret;
}

/* ---- _exit ---- */

/* _exit's body, called by _Exit directly (see wrap_execve) */
static __attribute__((noreturn)) void wrap_exit(int status)
{
	static void (*real)(int);

	emit_exit(status);
	if (!real)
		real = RT_REAL(_exit);
	if (real)
		real(status);
	syscall(SYS_exit_group, status);
	__builtin_unreachable();
}

__attribute__((visibility("default"), noreturn)) void _exit(int status)
{
	wrap_exit(status);
}

__attribute__((visibility("default"), noreturn)) void _Exit(int status)
{
	wrap_exit(status);
}

/* ---- unwinding: C++ exceptions, pthread_exit ---- */

/*
 * The real definition of a wrapped function that lives outside libc (the
 * unwinder's in libgcc_s, libstdc++'s __cxa_begin_catch).  Under
 * LD_PRELOAD the global scope finds ours: the next one after ours
 * (RT_REAL).  In a process we were dlopen()ed into (record -P) the global
 * scope's is the one the program was bound to, while our own scope
 * (RTLD_NEXT) holds libc only.
 */
static void *real_global(const char *name)
{
	void *p = dlsym(RTLD_DEFAULT, name);
	Dl_info self, d;

	if (p && dladdr((void *)ft_rt_return, &self) && dladdr(p, &d) &&
	    d.dli_fbase != self.dli_fbase)
		return p;
	return dlsym(RTLD_NEXT, name);
}
#define RT_REAL_GLOBAL(name) ((__typeof__(&name))real_global(#name))

/* After a catch: close the frames below sp, re-hijack the live ones. */
static void rehijack(struct rt_thread *t, uint64_t sp)
{
	if (!t->depth || t->busy)
		return;
	rt_guard_recursion(t);
	rt_unwind_to(t, sp, 0);
	for (uint32_t i = 0; i < t->depth; i++) {
		struct rt_frame *fr = &t->frames[i];
		uint64_t *slot = (uint64_t *)fr->slot;

		if (!(fr->flags & FR_RESTORED))
			continue;
		if (*slot == fr->ret)
			*slot = (uint64_t)ft_rt_return;
		fr->flags &= (uint16_t)~FR_RESTORED;
	}
	rt_unguard_recursion(t);
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_RaiseException(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);

	if (!real)
		real = RT_REAL_GLOBAL(_Unwind_RaiseException);
	rt_restore_frames(&rt_self);
	return real(e);
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_Resume_or_Rethrow(struct _Unwind_Exception *e)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *);

	if (!real)
		real = RT_REAL_GLOBAL(_Unwind_Resume_or_Rethrow);
	rt_restore_frames(&rt_self);
	return real(e);
}

__attribute__((visibility("default"))) _Unwind_Reason_Code
_Unwind_ForcedUnwind(struct _Unwind_Exception *e, _Unwind_Stop_Fn stop, void *arg)
{
	static _Unwind_Reason_Code (*real)(struct _Unwind_Exception *, _Unwind_Stop_Fn, void *);

	if (!real)
		real = RT_REAL_GLOBAL(_Unwind_ForcedUnwind);
	rt_restore_frames(&rt_self);
	return real(e, stop, arg);
}

void *__cxa_begin_catch(void *exc);
__attribute__((visibility("default"))) void *__cxa_begin_catch(void *exc)
{
	static void *(*real)(void *);

	if (!real)
		real = RT_REAL_GLOBAL(__cxa_begin_catch);
	/* our caller's stack pointer: frames below it were left by the throw */
	if (rt.sess)
		rehijack(&rt_self, (uint64_t)__builtin_frame_address(0) + 16);
	return real(exc);
}

/* ---- sigaltstack: frames on an alternate signal stack are never "dead" ---- */

__attribute__((visibility("default"))) int sigaltstack(const stack_t *ss, stack_t *old)
{
	static int (*real)(const stack_t *, stack_t *);
	int r;

	if (!real)
		real = RT_REAL(sigaltstack);
	r = real(ss, old);
	if (!r && ss) {
		struct rt_thread *t = &rt_self;

		if (ss->ss_flags & SS_DISABLE) {
			t->alt_lo = t->alt_hi = 0;
		} else {
			t->alt_lo = (uint64_t)ss->ss_sp;
			t->alt_hi = (uint64_t)ss->ss_sp + ss->ss_size;
		}
	}
	return r;
}

/* ---- start ---- */

/*
 * Start tracing into session h (len bytes, mapped), with the recorder's
 * lifeline word (NULL: none): at load time under LD_PRELOAD (rt_init), or
 * when `ftrail record -P` attaches (attach.c; attached = 1), possibly
 * again after a detach -- the modules, the hash, the stubs and the
 * threads' state are then kept, and everything that belongs to a session
 * (module entries, fids, rings, the control generation) starts afresh.
 * Returns 0, or -1 when a session is running already.
 */
int rt_start(struct ft_session_hdr *h, size_t len, const uint32_t *life, int attached)
{
	static int registered;
	uint32_t nfuncs = 0, old_gen = rt.gen;
	unsigned int pre_exec = 0;
	int again = rt.sess != NULL;
	size_t l;
	void *mem;

	if (again && !__atomic_load_n(&rt.detached, __ATOMIC_RELAXED) && !rt_orphaned())
		return -1;
	rt_guard_recursion(&rt_self); /* hooks run by our own calls do nothing */
	pthread_mutex_lock(&rt.lock);
	rt.sess_len = len;
	rt.ctl = ft_session_ctl(h);
	rt.ftab = ft_session_funcs(h);
	mem = ft_session_ring(h, &l);
	rt.area = ft_rb_area_attach(mem, l);
	mem = ft_session_stackmap_mem(h, &l);
	rt.smap_ok = ft_stackmap_attach(&rt.smap, mem, l) == 0;
	rt.pid = getpid();
	rt.life = life;
	rt.space = __atomic_add_fetch(&rt.ctl->rt_attached, 1, __ATOMIC_RELAXED);
	/* our pre-exec image: none when a traced process did not exec us
	 * itself but vfork()ed or posix_spawn()ed us (see below) */
	if (rt.area && !attached)
		pre_exec = ft_rb_area_reap_pid(rt.area, (uint32_t)rt.pid);
	rt_patch_init();
	if (again) {
		/*
		 * Threads' fast-path gates hold an old session's gen + 1: the
		 * new control block starts above any of them (the recorder
		 * publishes nothing while it waits for this call).
		 */
		uint32_t g = __atomic_load_n(&rt.ctl->gen, __ATOMIC_RELAXED);
		enum rt_modmem mm;

		if (old_gen != UINT32_MAX && g <= old_gen + 1)
			__atomic_store_n(&rt.ctl->gen, (old_gen + 2) & ~1u, __ATOMIC_RELEASE);
		rt.sess = h;
		__atomic_add_fetch(&rt.sess_seq, 1, __ATOMIC_RELAXED);
		rt.gen = UINT32_MAX;
		__atomic_store_n(&rt.detached, 0, __ATOMIC_RELAXED);
		rt_modules_republish();
		rt_modules_load_new();
		rt_dynpatch_load();
		rt_dynpatch_apply(); /* threads stopped: we are attaching again */
		/* gcc's 1-byte nop runs, put back by the detach: one 5-byte nop again */
		mm = rt_modmem_enter();
		for (int i = 0; i < rt.nr_mods; i++)
			if (!rt.mods[i].gone && rt_modmem_may(&rt.mods[i], mm))
				rt_patch_normalize(&rt.mods[i]);
		rt_modmem_exit();
		if (__atomic_load_n(&rt.ctl->options, __ATOMIC_RELAXED) & FT_OPT(LIBCALL))
			rt_plt_rehook_all();
		rt_sync_locked();
		pthread_mutex_unlock(&rt.lock);
		rt_unguard_recursion(&rt_self);
		rt_live_start();
		return 0;
	}
	rt.sess = h; /* modules need it; hooks still see gen mismatch until sync */
	rt.gen = RT_GEN_NONE;
	rt_modules_scan(0);
	rt_modules_load_new();
	rt_dynpatch_load(); /* --patch: symbols read before the hash is sized */
	/* and the imports dynpatch.c may hook after it patched (plt.c) */
	for (int i = 0; i < rt.nr_mods; i++)
		nfuncs += rt.mods[i].nr_funcs + rt.mods[i].nr_plt + rt_plt_nr_imports(&rt.mods[i]);
	rt_hash_init(nfuncs);
	rt_plt_hash_all(); /* hooked before the hash existed */
	/* before main(), or with every other thread stopped (attach) */
	rt_dynpatch_apply();
	/* the nop tracer (user events only) needs no function hooks */
	if (rt.space == 1 && rt.ctl->tracer != FT_TRACER_NOP &&
	    !__atomic_load_n(&rt.ctl->rt_hooks, __ATOMIC_RELAXED)) {
		char line[FT_SESSION_PATH_MAX + 160];

		snprintf(line, sizeof(line),
			 "%s: no instrumentation found (compile with -pg, -pg -mfentry, "
			 "-fpatchable-function-entry=5 or -finstrument-functions)",
			 rt.nr_mods ? rt.mods[0].path : "program");
		ft_session_msg(h, line);
	}
	rt_sync_locked();
	pthread_mutex_unlock(&rt.lock);
	rt_unguard_recursion(&rt_self);
	/* an exec after the recorder died: start detached, before any hook */
	if (rt_orphaned())
		rt_detach();

	if (!registered) {
		registered = 1;
		rt.thread_exit_more = ulat_thread_exit;
		rt_threads_init();
		pthread_atfork(atfork_prepare, atfork_parent, atfork_child);
		on_exit(on_exit_cb, NULL);
	}
	/*
	 * Started by a traced process whose exec had no image of ours to
	 * record it (posix_spawn and vfork run the new program from a child
	 * that shares the parent's memory): the new image records its exec,
	 * as fork + exec shows it; the parent recorded the fork (proc.c).
	 */
	if (!attached && rt.space > 1 && !pre_exec)
		emit_exec(program_invocation_name);
	rt_live_start();
	return 0;
}

__attribute__((constructor(101))) static void rt_init(void)
{
	const char *e = getenv(FT_SESSION_ENV_FD);
	const uint32_t *life = NULL;
	struct ft_session_hdr *h;
	struct stat st;
	char err[128];
	void *mem;
	int fd;

	if (!e || !*e)
		return;
	fd = atoi(e);
	if (fd < 0 || fstat(fd, &st) || st.st_size <= 0)
		return;
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		return;
	h = ft_session_check(mem, (size_t)st.st_size, err, sizeof(err));
	if (!h) {
		munmap(mem, (size_t)st.st_size);
		return;
	}
	e = getenv(FT_LIFELINE_ENV_FD);
	if (e && *e)
		life = ft_lifeline_attach(atoi(e));
	rt_start(h, (size_t)st.st_size, life, 0);
}
