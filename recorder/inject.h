/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Calling functions inside a running process with ptrace, to load the
 * runtime into it (`ftrail record -P PID`) and to make it detach.
 *
 *   ft_inject_stop    PTRACE_SEIZE + PTRACE_INTERRUPT every thread of the
 *                     process (again until no new thread appears), after
 *                     checking that it exists, is ours (or we are root, and
 *                     Yama's ptrace_scope lets us), is not traced already
 *                     (gdb, strace) and has a dynamic loader
 *   ft_inject_call    one function call in one stopped thread: registers
 *                     and extended (FPU/SSE/AVX) state saved, arguments in
 *                     registers, an optional string below the red zone, a
 *                     return to address 0 whose SIGSEGV gives control back;
 *                     everything put back afterwards (a system call the
 *                     thread was in restarts as the kernel would have
 *                     restarted it after any signal)
 *   ft_inject_resume  every thread continues as it was: signals that
 *                     arrived while it was stopped are delivered
 *
 * Whatever fails, the process is never left stopped: ft_inject_resume()
 * (also called by a failing ft_inject_stop) detaches from every thread.
 * Tool side only.
 */
#ifndef FTRAIL_INJECT_H
#define FTRAIL_INJECT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ft_inject;

/*
 * What is known against attaching to pid before trying (the checks
 * ft_inject_stop starts with): 0, or -1 with the line in err.
 */
int ft_inject_check(pid_t pid, char *err, size_t errlen);

/*
 * Stop every thread of pid.  Returns the handle, or NULL with a one-line
 * reason in err: "no such process: N", "process N belongs to user U ...",
 * "process N is already traced by M (gdb)...", "ptrace_scope=K forbids
 * ...", "process N is statically linked ...", "process N exited while
 * ftrail attached".
 */
struct ft_inject *ft_inject_stop(pid_t pid, char *err, size_t errlen);

/*
 * Address of symbol sym of the object mapped in the process whose file is
 * path (compared by device and inode), or whose file name starts with
 * path when path has no '/' ("libc.so").  0 when not found.
 */
uint64_t ft_inject_sym(struct ft_inject *in, const char *path, const char *sym);

/*
 * Is an object whose file name starts with prefix mapped in the process?
 * 1 with its path in path[len], else 0.
 */
int ft_inject_mapped(struct ft_inject *in, const char *prefix, char *path, size_t len);

/* Read len bytes at addr in the process.  0, or -1 (errno). */
int ft_inject_read(struct ft_inject *in, uint64_t addr, void *buf, size_t len);

/*
 * Call fn(args[0..nargs)) (nargs <= 5) in the process's chosen thread (its main thread
 * when it can); when str is non-NULL it is copied to the thread's stack and
 * its address replaces args[0].  *ret: rax on return.  Waits at most
 * timeout_ms for the call to return (other threads are let run after a
 * while, so a lock one of them holds cannot block the call forever).
 * Returns 0, or -1 with a reason (the process died, the call crashed:
 * its signal is then delivered at resume, as it would have been).
 */
int ft_inject_call(struct ft_inject *in, uint64_t fn, const uint64_t *args, int nargs,
		   const char *str, uint64_t *ret, int timeout_ms, char *err, size_t errlen);

/*
 * Where the thread ft_inject_call runs calls in was stopped (its user pc,
 * as it will resume there), or 0 when it cannot be read.
 */
uint64_t ft_inject_caller_pc(struct ft_inject *in);

/* Threads stopped (for the summary), the process id. */
unsigned int ft_inject_nr_threads(const struct ft_inject *in);

/* Let every thread go, as it was; frees in.  Safe with NULL. */
void ft_inject_resume(struct ft_inject *in);

#endif
