/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The recorder's lifeline: how the runtime inside a traced program learns,
 * without a system call or a thread of its own, that the recorder that
 * drains its buffers is gone -- killed (SIGKILL included), crashed, or
 * finished while the program runs on.
 *
 *   ftrail record (tool)                        traced program (runtime)
 *   --------------------                        ------------------------
 *   memfd "ftrail-lifeline", one page, 0600     inherits the fd (no CLOEXEC in
 *   a robust, process-shared mutex in it,         the child only), FTRAIL_LIFE_FD
 *     locked by the recording thread            maps the page read-only
 *   sealed: F_SEAL_FUTURE_WRITE (nobody else    ft_lifeline_gone(): one relaxed
 *     can map it writable), GROW, SHRINK, SEAL    load of the mutex's futex word
 *
 * The futex word of a locked robust mutex holds its owner's thread id.  When
 * that thread exits, however it exits, the kernel walks its robust list
 * (set_robust_list(2)) and stores FUTEX_OWNER_DIED with the id bits cleared;
 * an orderly end (ft_lifeline_release) unlocks, which clears them too.  So
 * "id bits zero" means "no recorder any more", and the runtime reads it with
 * a plain load on paths that run anyway (hooks' general path, user events).
 *
 * The seal matters: the robust list threads through the mutex, so a traced
 * program able to write the page could steer the recorder's glibc and the
 * kernel's list walk; with F_SEAL_FUTURE_WRITE only the recorder's own
 * mapping (made before sealing) is writable.
 *
 * Memory ordering: the word is written by the tool (lock) before the
 * program exists, then only by the kernel at the owner's exit or by the
 * unlock.  The runtime's relaxed load may see the change late (it is seen
 * on a later hook); nothing else is published through it.
 */
#ifndef FTRAIL_LIFELINE_H
#define FTRAIL_LIFELINE_H

#include <stddef.h>
#include <stdint.h>

#define FT_LIFELINE_ENV_FD "FTRAIL_LIFE_FD"

/* Tool side: the lifeline the recording thread holds. */
struct ft_lifeline {
	int fd;	    /* the memfd, CLOEXEC: cleared in the traced child only */
	void *page; /* the writable mapping holding the mutex */
};

/*
 * Tool side.  Create the lifeline and lock it in the calling thread, which
 * must live as long as the recording (the kernel reports that thread's
 * exit, not the process's).  Returns 0, or -1 with a one-line reason in err
 * (l->fd is then -1).
 */
int ft_lifeline_create(struct ft_lifeline *l, char *err, size_t errlen);

/*
 * Tool side, from the thread that created it: the recording is over;
 * unlock (runtimes still running see the recorder gone), unmap and close.
 * Safe on a lifeline whose creation failed, and twice.
 */
void ft_lifeline_release(struct ft_lifeline *l);

/*
 * Runtime side: map the lifeline named by fd read-only.  Returns the futex
 * word to test with ft_lifeline_gone(), or NULL when fd is not a lifeline
 * (then the recorder's end cannot be seen: tracing goes on as before).
 */
const uint32_t *ft_lifeline_attach(int fd);

/*
 * Runtime side: has the recorder gone?  One relaxed load (see the top of
 * the file); async-signal-safe.
 */
static inline int ft_lifeline_gone(const uint32_t *word)
{
	/* FUTEX_TID_MASK (linux/futex.h): the owner's thread id */
	return (__atomic_load_n(word, __ATOMIC_RELAXED) & 0x3fffffffu) == 0;
}

#endif
