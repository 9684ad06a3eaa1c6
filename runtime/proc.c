// SPDX-License-Identifier: GPL-2.0
/*
 * Process and thread events the tracers follow, besides init.c's
 * fork/exec/exit:
 *
 *   thread names   prctl(PR_SET_NAME) and pthread_setname_np() record
 *                  FT_EXT_COMM (the name the kernel kept, read back) in the
 *                  renamed thread's own stream, so `ftrail show` and the
 *                  exports name it from that point on.  Every stream starts
 *                  with its thread's name then (FT_EXT_TNAME, thread.c), so
 *                  a name given by another thread before the thread's first
 *                  traced call, or inherited, is in the trace too; one given
 *                  by another thread later has no record of its own to carry
 *                  it: the recorder reads it from /proc when it next looks
 *                  (TASKS).
 *   vfork          the child runs untraced until it execs or exits: it
 *                  shares the calling thread's runtime state with the
 *                  parent (see below and arch/x86_64/vfork.S).
 *   posix_spawn    traced like fork + exec: the parent records FT_EXT_FORK
 *                  with the child's pid (timed before the spawn, so it
 *                  comes before anything the child records), the child's
 *                  new image records its exec (init.c)
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <spawn.h>
#include <stdarg.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/clock.h"
#include "runtime/rt.h"

/* Record the calling thread's current name (as the kernel has it). */
static void emit_comm(void)
{
	struct rt_thread *t = &rt_self;
	char name[16] = "";

	if (!rt.sess || t->busy || !rt_thread_get())
		return;
	/* the raw system call: our prctl() wrapper is not to be re-entered */
	if (syscall(SYS_prctl, PR_GET_NAME, name, 0, 0, 0))
		return;
	name[sizeof(name) - 1] = '\0';
	rt_guard_recursion(t);
	rt_emit_ext(t, FT_EXT_COMM, name, (uint32_t)strlen(name));
	rt_unguard_recursion(t);
}

__attribute__((visibility("default"))) int prctl(int option, ...)
{
	static int (*real)(int, ...);
	unsigned long a[4];
	va_list ap;
	int r;

	/* prctl takes up to four more arguments, all passed on as longs */
	va_start(ap, option);
	for (int i = 0; i < 4; i++)
		a[i] = va_arg(ap, unsigned long);
	va_end(ap);
	if (!real)
		real = RT_REAL(prctl);
	r = real ? real(option, a[0], a[1], a[2], a[3])
		 : (int)syscall(SYS_prctl, option, a[0], a[1], a[2], a[3]);
	if (r == 0 && option == PR_SET_NAME)
		emit_comm();
	return r;
}

__attribute__((visibility("default"))) int pthread_setname_np(pthread_t thread, const char *name)
{
	static int (*real)(pthread_t, const char *);
	int r;

	if (!real)
		real = RT_REAL(pthread_setname_np);
	if (!real)
		return ENOSYS;
	r = real(thread, name);
	if (r == 0 && pthread_equal(thread, pthread_self()))
		emit_comm();
	return r;
}

/*
 * vfork: see arch/x86_64/vfork.S for why tracing is suspended in the child.
 * ft_rt_vfork_enter runs before the system call in the calling thread;
 * ft_rt_vfork_leave in the parent after it (r: the system call's result)
 * and returns what vfork() returns.  The child's calls until exec are not
 * traced (a hook that finds the thread busy counts them as lost).
 */
void ft_rt_vfork_enter(void)
{
	/* in place before the child can run a hook */
	rt_guard_recursion(&rt_self);
}

long ft_rt_vfork_leave(long r)
{
	struct rt_thread *t = &rt_self;

	rt_unguard_recursion(t);
	if (r < 0 && r > -4096) {
		errno = (int)-r;
		return -1;
	}
	if (rt.sess && t->state == RT_THREAD_READY && !t->busy) {
		uint32_t pid = (uint32_t)r;

		rt_guard_recursion(t);
		rt_emit_ext(t, FT_EXT_FORK, &pid, 4);
		rt_unguard_recursion(t);
	}
	return r;
}

/* FT_EXT_FORK(pid) at time ts in the calling thread's stream. */
static void emit_fork_at(pid_t pid, uint64_t ts)
{
	struct rt_thread *t = &rt_self;
	uint32_t p = (uint32_t)pid;

	if (!rt.sess || t->busy || !rt_thread_get() || !t->rb.area)
		return;
	rt_guard_recursion(t);
	ft_rb_ext(&t->rb, FT_EXT_FORK, &p, 4, ts, 1, 1);
	rt_unguard_recursion(t);
}

__attribute__((visibility("default"))) int posix_spawn(pid_t *pid, const char *path,
						       const posix_spawn_file_actions_t *fa,
						       const posix_spawnattr_t *attr,
						       char *const argv[], char *const envp[])
{
	static __typeof__(&posix_spawn) real;
	uint64_t ts = ft_rdtsc();
	pid_t child = 0;
	int r;

	if (!real)
		real = RT_REAL(posix_spawn);
	r = real(&child, path, fa, attr, argv, envp);
	if (!r) {
		emit_fork_at(child, ts);
		if (pid)
			*pid = child;
	}
	return r;
}

__attribute__((visibility("default"))) int posix_spawnp(pid_t *pid, const char *file,
							const posix_spawn_file_actions_t *fa,
							const posix_spawnattr_t *attr,
							char *const argv[], char *const envp[])
{
	static __typeof__(&posix_spawnp) real;
	uint64_t ts = ft_rdtsc();
	pid_t child = 0;
	int r;

	if (!real)
		real = RT_REAL(posix_spawnp);
	r = real(&child, file, fa, attr, argv, envp);
	if (!r) {
		emit_fork_at(child, ts);
		if (pid)
			*pid = child;
	}
	return r;
}
