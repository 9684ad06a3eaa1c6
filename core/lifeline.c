// SPDX-License-Identifier: GPL-2.0
/*
 * The recorder's lifeline (lifeline.h): a robust mutex in a sealed memfd.
 *
 * Why by hand: no library offers "tell another process, without a thread
 * or a system call on its side, that I died".  A pipe or a pidfd needs a
 * poll(2) (a system call per check, or a thread blocked in it inside the
 * traced program); PR_SET_PDEATHSIG kills instead of telling and follows
 * the parent thread, not the recorder.  The kernel's robust-futex exit
 * handling is the one mechanism that writes into shared memory when a
 * thread dies, so the check stays a load.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/lifeline.h"

#define LIFELINE_MAGIC 0x4546494cu /* "LIFE" little endian */
#define LIFELINE_SIZE 4096u

struct lifeline_page {
	pthread_mutex_t lock; /* robust, process-shared; its futex word is the first int */
	uint32_t magic;
};

/* glibc keeps the futex word first: the kernel's robust-list ABI reads it there */
_Static_assert(offsetof(struct lifeline_page, lock) == 0, "mutex first");
_Static_assert(offsetof(pthread_mutex_t, __data.__lock) == 0, "futex word first");
_Static_assert(sizeof(struct lifeline_page) <= LIFELINE_SIZE, "one page");

int ft_lifeline_create(struct ft_lifeline *l, char *err, size_t errlen)
{
	struct lifeline_page *p;
	pthread_mutexattr_t a;
	int r;

	l->page = NULL;
	l->fd = memfd_create("ftrail-lifeline", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (l->fd < 0) {
		snprintf(err, errlen, "cannot create the recorder's lifeline: %s", strerror(errno));
		return -1;
	}
	if (fchmod(l->fd, 0600) || ftruncate(l->fd, LIFELINE_SIZE)) {
		snprintf(err, errlen, "cannot size the recorder's lifeline: %s", strerror(errno));
		goto fail;
	}
	p = mmap(NULL, LIFELINE_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, l->fd, 0);
	if (p == MAP_FAILED) {
		snprintf(err, errlen, "cannot map the recorder's lifeline: %s", strerror(errno));
		goto fail;
	}
	l->page = p;
	if ((r = pthread_mutexattr_init(&a)) ||
	    (r = pthread_mutexattr_setpshared(&a, PTHREAD_PROCESS_SHARED)) ||
	    (r = pthread_mutexattr_setrobust(&a, PTHREAD_MUTEX_ROBUST)) ||
	    (r = pthread_mutex_init(&p->lock, &a)) || (r = pthread_mutex_lock(&p->lock))) {
		snprintf(err, errlen, "cannot set up the recorder's lifeline: %s", strerror(r));
		goto fail;
	}
	pthread_mutexattr_destroy(&a);
	p->magic = LIFELINE_MAGIC;
	/*
	 * From here on only this mapping can write the page: the traced
	 * program can map it read-only and nothing else.
	 */
	if (fcntl(l->fd, F_ADD_SEALS,
		  F_SEAL_FUTURE_WRITE | F_SEAL_GROW | F_SEAL_SHRINK | F_SEAL_SEAL)) {
		snprintf(err, errlen, "cannot seal the recorder's lifeline: %s", strerror(errno));
		pthread_mutex_unlock(&p->lock);
		goto fail;
	}
	return 0;
fail:
	if (l->page)
		munmap(l->page, LIFELINE_SIZE);
	l->page = NULL;
	close(l->fd);
	l->fd = -1;
	return -1;
}

void ft_lifeline_release(struct ft_lifeline *l)
{
	if (l->page) {
		/* before the unmap: the robust list must not point into a hole */
		pthread_mutex_unlock(&((struct lifeline_page *)l->page)->lock);
		munmap(l->page, LIFELINE_SIZE);
		l->page = NULL;
	}
	if (l->fd >= 0)
		close(l->fd);
	l->fd = -1;
}

const uint32_t *ft_lifeline_attach(int fd)
{
	const struct lifeline_page *p;
	struct stat st;
	int seals;

	if (fstat(fd, &st) || st.st_size != LIFELINE_SIZE)
		return NULL;
	seals = fcntl(fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_FUTURE_WRITE))
		return NULL;
	p = mmap(NULL, LIFELINE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (p == MAP_FAILED)
		return NULL;
	if (p->magic != LIFELINE_MAGIC) {
		munmap((void *)p, LIFELINE_SIZE);
		return NULL;
	}
	return (const uint32_t *)&p->lock;
}
