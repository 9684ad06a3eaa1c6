// SPDX-License-Identifier: GPL-2.0
/*
 * The runtime warning area (ft_session_msg / ft_session_msg_next) under
 * concurrency: writer threads, a signal handler that writes while the thread
 * it interrupted is inside ft_session_msg, and a reader thread polling the
 * whole time, as the recorder does while the program runs.
 *
 * Rounds: reset the area, start the writers and the reader, every 50 us a
 * POSIX timer signals a writer whose handler writes a line of its own.  Each
 * line is "W<writer>.<seq>:" plus a filler whose length and letter derive
 * from writer and seq, so the reader checks every line it gets is intact.
 * After the writers are joined the reader drains the rest.  The test fails
 * if a line comes back torn or twice, or if lines read + ft_session_msg_left
 * differs from lines written (a line lost without being counted).
 *
 * Scale with FTRAIL_STRESS_SCALE (a float, default 1).
 */
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "core/opts.h"
#include "core/options.h"
#include "core/session.h"

#define WRITERS 4
#define PER_WRITER 6
#define SIG_SEQ_BASE 1000 /* handler lines: seq >= this */
#define MAX_SEQ 4096

#define die(...)                                                                                   \
	do {                                                                                       \
		fprintf(stderr, "session_msg: " __VA_ARGS__);                                      \
		fputc('\n', stderr);                                                               \
		exit(1);                                                                           \
	} while (0)

static struct ft_session_hdr *sess;
static atomic_int writers_done, go;
static atomic_uint written, h_calls, h_inside;
static unsigned seen[WRITERS][MAX_SEQ];
static volatile sig_atomic_t in_msg[WRITERS];
static __thread int my_id = -1;
static __thread unsigned my_sig_seq;

/* The line of (writer, seq): its length varies so records straddle every alignment. */
static void make_line(char *buf, size_t len, int w, unsigned seq)
{
	int n = snprintf(buf, len, "W%d.%u:", w, seq);
	unsigned fill = (seq * 7 + (unsigned)w * 13) % 40;

	for (unsigned i = 0; i < fill && (size_t)n + 1 < len; i++)
		buf[n++] = (char)('a' + (seq + (unsigned)w) % 26);
	buf[n] = 0;
}

static void on_timer(int sig)
{
	char line[96];

	(void)sig;
	if (my_id < 0 || my_sig_seq >= MAX_SEQ - SIG_SEQ_BASE)
		return;
	atomic_fetch_add(&h_calls, 1);
	if (in_msg[my_id])
		atomic_fetch_add(&h_inside, 1);
	make_line(line, sizeof(line), my_id, SIG_SEQ_BASE + my_sig_seq++);
	ft_session_msg(sess, line);
	atomic_fetch_add(&written, 1);
}

static void *writer(void *arg)
{
	char line[96];
	sigset_t alrm;

	my_id = (int)(long)arg;
	my_sig_seq = 0;
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alrm, NULL);
	while (!atomic_load(&go))
		;
	for (unsigned s = 0; s < PER_WRITER; s++) {
		make_line(line, sizeof(line), my_id, s);
		in_msg[my_id] = 1;
		ft_session_msg(sess, line);
		in_msg[my_id] = 0;
		atomic_fetch_add(&written, 1);
		for (volatile int spin = 0; spin < 2000; spin++)
			;
	}
	atomic_fetch_add(&writers_done, 1);
	return NULL;
}

static unsigned nread;
static uint32_t rpos;

static void take(const char *line)
{
	char want[96];
	unsigned seq;
	int w;

	if (sscanf(line, "W%d.%u:", &w, &seq) != 2 || w < 0 || w >= WRITERS || seq >= MAX_SEQ)
		die("torn line \"%s\"", line);
	make_line(want, sizeof(want), w, seq);
	if (strcmp(want, line))
		die("torn line \"%s\" (want \"%s\")", line, want);
	if (seen[w][seq]++)
		die("line \"%s\" read twice", line);
	nread++;
}

static void *reader(void *arg)
{
	char line[FT_SESSION_MSG_LINE_MAX + 1];

	(void)arg;
	while (atomic_load(&writers_done) < WRITERS)
		while (ft_session_msg_next(sess, &rpos, line, sizeof(line)))
			take(line);
	return NULL;
}

int main(void)
{
	const char *sc = getenv("FTRAIL_STRESS_SCALE");
	double scale = sc ? atof(sc) : 1.0;
	unsigned rounds = (unsigned)(1000 * (scale > 0 ? scale : 1)), lost_total = 0;
	struct ft_record_opts o;
	char err[128], line[FT_SESSION_MSG_LINE_MAX + 1];
	size_t len;
	void *mem;
	struct sigaction sa;
	sigset_t alrm;

	memset(&o, 0, sizeof(o));
	o.tracer = "function";
	o.options = ft_options_default();
	len = ft_session_size(&o, 65536);
	mem = aligned_alloc(4096, len);
	if (!mem)
		die("out of memory");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	sigaction(SIGALRM, &sa, NULL);
	sigemptyset(&alrm);
	sigaddset(&alrm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alrm, NULL); /* main and reader: never interrupted */

	for (unsigned r = 0; r < rounds; r++) {
		pthread_t wt[WRITERS], rt;
		timer_t tm;
		unsigned left;

		memset(mem, 0, len);
		if (ft_session_init(mem, len, &o, 65536, NULL, err, sizeof(err)))
			die("init: %s", err);
		sess = ft_session_check(mem, len, err, sizeof(err));
		if (!sess)
			die("check: %s", err);
		memset(seen, 0, sizeof(seen));
		atomic_store(&writers_done, 0);
		atomic_store(&go, 0);
		atomic_store(&written, 0);
		nread = 0;
		rpos = 0;
		if (pthread_create(&rt, NULL, reader, NULL))
			die("pthread_create");
		for (long w = 0; w < WRITERS; w++)
			if (pthread_create(&wt[w], NULL, writer, (void *)w))
				die("pthread_create");
		{
			/* process-wide: the kernel picks a thread that does not
			 * block SIGALRM, i.e. one of the writers */
			struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL,
						.sigev_signo = SIGALRM };
			struct itimerspec its = { { 0, 50000 }, { 0, 50000 } };

			if (timer_create(CLOCK_MONOTONIC, &sev, &tm))
				die("timer_create");
			timer_settime(tm, 0, &its, NULL);
		}
		atomic_store(&go, 1);
		for (int w = 0; w < WRITERS; w++)
			pthread_join(wt[w], NULL);
		timer_delete(tm);
		pthread_join(rt, NULL);
		/* every writer gone: the rest, then what could not be read */
		while (ft_session_msg_next(sess, &rpos, line, sizeof(line)))
			take(line);
		left = ft_session_msg_left(sess, rpos);
		if (nread + left != atomic_load(&written))
			die("round %u: %u lines read + %u counted lost != %u written", r, nread,
			    left, atomic_load(&written));
		lost_total += left;
	}
	printf("session_msg: %u rounds, %u handler lines (%u inside a write), %u counted as "
	       "dropped (area full): OK\n",
	       rounds, atomic_load(&h_calls), atomic_load(&h_inside), lost_total);
	free(mem);
	return 0;
}
