/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Barriers, and the one place that knows about ThreadSanitizer builds.
 *
 *   ft_barrier()     a compiler barrier (a signal fence): the compiler may not
 *                    move memory accesses across it; the CPU needs nothing,
 *                    since a thread sees its own stores in program order.
 *                    What orders the interrupted code against a signal handler
 *                    of the same thread (the runtime's recursion guard, the
 *                    rings' nesting level, per-thread caches).
 *   ft_fence(order)  a thread fence (__ATOMIC_ACQUIRE, _RELEASE, _SEQ_CST)
 *                    between threads, e.g. a seqlock's reader and writer.
 *
 * GCC refuses __atomic_thread_fence under -fsanitize=thread (TSan cannot
 * model fences), so in a TSan build ft_fence stands in for it: on x86-64
 * (TSO) an acquire or release fence emits no instruction, only a compiler
 * barrier, so a signal fence generates the same code; a seq_cst fence needs
 * a locked instruction, a seq_cst read-modify-write of a private word.  TSan
 * sees neither as synchronisation, as it would not see the fence.  Other
 * architectures get the read-modify-write for every order.
 *
 * FT_TSAN is 1 in a ThreadSanitizer build (GCC's __SANITIZE_THREAD__,
 * clang's __has_feature), FT_ASAN likewise for AddressSanitizer; assembly
 * sources may include this file for them.
 */
#ifndef FTRAIL_BARRIER_H
#define FTRAIL_BARRIER_H

#if defined(__SANITIZE_THREAD__)
#define FT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FT_TSAN 1
#endif
#endif
#ifndef FT_TSAN
#define FT_TSAN 0
#endif

#if defined(__SANITIZE_ADDRESS__)
#define FT_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define FT_ASAN 1
#endif
#endif
#ifndef FT_ASAN
#define FT_ASAN 0
#endif

#ifndef __ASSEMBLER__

/* The compiler's order only: against a signal handler of this same thread. */
#define ft_barrier() __atomic_signal_fence(__ATOMIC_SEQ_CST)

#if FT_TSAN
/* a seq_cst read-modify-write: a locked instruction, a full fence on x86-64 */
static inline void ft__fence_rmw(void)
{
	static int word;

	__atomic_fetch_add(&word, 0, __ATOMIC_SEQ_CST);
}
#if defined(__x86_64__)
#define ft_fence(order)                                                                            \
	do {                                                                                       \
		if ((order) == __ATOMIC_SEQ_CST)                                                   \
			ft__fence_rmw();                                                           \
		else                                                                               \
			__atomic_signal_fence(order);                                              \
	} while (0)
#else
#define ft_fence(order) ft__fence_rmw()
#endif
#else
#define ft_fence(order) __atomic_thread_fence(order)
#endif

#endif /* __ASSEMBLER__ */
#endif
