// SPDX-License-Identifier: GPL-2.0
/*
 * Test program for the recorder (tests/e2e/t03xx): it plays the runtime's
 * part itself -- maps the session named by FTRAIL_SHM_FD, registers one
 * function, and writes entry/exit pairs into its thread's ring -- so the
 * recorder's paths (drain, lost counts, crash, fork, threads, exit without
 * detach) are tested exactly, whatever the state of the real runtime.
 * Linked with libftrail-core.a; run with FTRAIL_LIB pointing at an empty
 * library so the real runtime stays out.
 *
 *   rec_selfwrite PAIRS MODE [ARG]
 *     plain      write PAIRS pairs, detach, exit 0
 *     exit7      write, exit(7) without detaching
 *     segv       write, then crash on a NULL store
 *     abort      write, then abort()
 *     fork       write, fork; the child (after forget + attach) writes PAIRS
 *                pairs too; both exit 0
 *     threads N  N threads (<= 1024), all attached at once, write PAIRS pairs
 *                each (main writes none)
 *     grandchild the child forks a grandchild and exits at once; the
 *                grandchild (re-parented to the recorder) writes PAIRS pairs
 *                after the child is gone
 *     scribble   write, then overwrite the area's layout and the ring's
 *                place with garbage (the recorder must survive it), write
 *                its pid into ./selfw.pid and wait to be killed
 *
 * Without FTRAIL_SHM_FD it writes nothing and exits 3.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/session.h"

static struct ft_session_hdr *sess;
static struct ft_rb_area *area;
static uint32_t fid;
static __thread struct ft_rb_thread tt;
static long pairs;

static uint32_t tid(void)
{
	return (uint32_t)syscall(SYS_gettid);
}

__attribute__((noinline)) static void work(void)
{
	__asm__ volatile("" ::: "memory");
}

static void attach_session(void)
{
	const char *v = getenv(FT_SESSION_ENV_FD);
	struct stat st;
	char err[256];
	size_t len;
	void *mem, *ring;
	int fd;

	if (!v)
		exit(3);
	fd = atoi(v);
	if (fstat(fd, &st))
		exit(4);
	mem = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (mem == MAP_FAILED)
		exit(5);
	sess = ft_session_check(mem, (size_t)st.st_size, err, sizeof(err));
	if (!sess) {
		fprintf(stderr, "rec_selfwrite: %s\n", err);
		exit(6);
	}
	ring = ft_session_ring(sess, &len);
	area = ft_rb_area_attach(ring, len);
	if (!area)
		exit(7);
	/* one function in the table, as the runtime registers them (session.h) */
	{
		struct ft_session_ctl *c = ft_session_ctl(sess);
		struct ft_session_func *f = ft_session_funcs(sess);

		fid = __atomic_fetch_add(&c->next_fid, 1, __ATOMIC_RELAXED);
		f[fid].addr = (uint64_t)(uintptr_t)work;
		f[fid].module = 0;
		__atomic_store_n(&f[fid].flags, FT_SFUNC_VALID, __ATOMIC_RELEASE);
		__atomic_fetch_add(&c->rt_attached, 1, __ATOMIC_RELAXED);
	}
}

static void burst(void)
{
	for (long i = 0; i < pairs; i++) {
		ft_rb_entry(&tt, fid, ft_rdtsc());
		work();
		ft_rb_exit(&tt, ft_rdtsc());
	}
}

static pthread_barrier_t all_attached;

static void *thread_main(void *arg)
{
	(void)arg;
	ft_rb_thread_attach(&tt, area, (uint32_t)getpid(), tid());
	pthread_barrier_wait(&all_attached); /* every thread holds its slot at once */
	burst();
	ft_rb_thread_detach(&tt);
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 2 ? argv[2] : "plain";

	pairs = argc > 1 ? atol(argv[1]) : 1000;
	attach_session();
	if (!strcmp(mode, "threads")) {
		int n = argc > 3 ? atoi(argv[3]) : 4;
		pthread_t th[1024];

		if (n > 1024)
			n = 1024;
		pthread_barrier_init(&all_attached, NULL, (unsigned int)n);
		for (int i = 0; i < n; i++)
			if (pthread_create(&th[i], NULL, thread_main, NULL)) {
				/* the others wait at the barrier: leave at once */
				fprintf(stderr, "rec_selfwrite: cannot create thread %d\n", i);
				_exit(9);
			}
		for (int i = 0; i < n; i++)
			pthread_join(th[i], NULL);
		return 0;
	}
	if (!strcmp(mode, "grandchild")) {
		pid_t c = fork();

		if (c == 0) {
			if (fork() == 0) {
				usleep(100000); /* the child is gone by now */
				ft_rb_thread_attach(&tt, area, (uint32_t)getpid(), tid());
				burst();
				ft_rb_thread_detach(&tt);
				_exit(0);
			}
			_exit(0);
		}
		waitpid(c, NULL, 0);
		return 0;
	}
	ft_rb_thread_attach(&tt, area, (uint32_t)getpid(), tid());
	burst();
	if (!strcmp(mode, "exit7"))
		exit(7);
	if (!strcmp(mode, "segv"))
		*(volatile int *)(uintptr_t)8 = 1;
	if (!strcmp(mode, "abort"))
		abort();
	if (!strcmp(mode, "scribble")) {
		struct ft_rb_slot *sl = ft_rb_slot_at(area, tt.slot_idx);

		sl->ring[0].first_page = 0x7fffffff;
		sl->ring[1].npages = 1;
		area->nr_slots = 0xfffffff;
		area->pages_off = 1ull << 60;
		area->page_size = 0;
		{
			FILE *pf = fopen("selfw.pid", "w"); /* the test kills this pid */

			if (pf) {
				fprintf(pf, "%d\n", (int)getpid());
				fclose(pf);
			}
		}
		pause(); /* until the recorder has looked: killed by the test */
	}
	if (!strcmp(mode, "fork")) {
		pid_t c = fork();

		if (c == 0) {
			ft_rb_thread_forget(&tt);
			ft_rb_thread_attach(&tt, area, (uint32_t)getpid(), tid());
			burst();
			ft_rb_thread_detach(&tt);
			_exit(0);
		}
		waitpid(c, NULL, 0);
	}
	ft_rb_thread_detach(&tt);
	return 0;
}
