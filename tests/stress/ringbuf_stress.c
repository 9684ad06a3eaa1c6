// SPDX-License-Identifier: GPL-2.0
/*
 * Ring buffer stress test (the kernel ring buffer's startup self-test,
 * transposed): waves of writer threads, a high-frequency timer signal whose
 * handler writes in the middle of the threads' writes (SA_NODEFER, so
 * handlers nest into levels 2, 3 and beyond), a concurrent reader draining
 * in consuming mode and recycling the slots of exited threads, fewer slots
 * than threads (some threads get none), tiny buffers (losses happen).
 *
 * Checks, in producer/consumer mode, overwrite mode and blocking mode:
 *   - events attempted = events read + events lost, exactly (lost from the
 *     area totals: newest dropped, pages overwritten, no slot, too deep);
 *   - events committed (area totals) = read + overwritten;
 *   - blocking mode: writers (handlers included) did wait, and no event was
 *     dropped for want of room (only slot-less and too-deep ones are lost);
 *   - every page parses; every marker's checksum is right; its writer is
 *     the page's thread; per (writer, context) marker sequence numbers
 *     strictly increase; every ENTRY's fid names the page's writer;
 *     every timestamp lies within the run; a page read after pages
 *     overwritten unread shows their loss (overwrite mode).
 * Exit 0 on success; prints the figures.
 *
 * TSan: signal handlers are modelled by TSan as running on the thread they
 * interrupt (it defers asynchronous signals to its next interceptor call),
 * so the nesting path is exercised less densely there, but every shared
 * access is an atomic or ordered by one and the test must report no race.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ringbuf.h"

#define MAX_WRITERS 64

/* TSan build?  GCC says __SANITIZE_THREAD__, clang __has_feature. */
#if defined(__SANITIZE_THREAD__)
#define FT_TSAN 1
#elif defined(__has_feature)
#if __has_feature(thread_sanitizer)
#define FT_TSAN 1
#endif
#endif

static struct ft_rb_area *area;
static void *area_mem;
static size_t area_len;

static __thread struct ft_rb_thread tls;
static __thread uint32_t my_wid;
static __thread uint64_t t_attempts; /* thread-context events attempted */
static __thread uint64_t s_attempts; /* signal-context events attempted */
static __thread uint32_t sig_depth;

static uint64_t total_attempts;		 /* atomic */
static uint32_t writer_tid[MAX_WRITERS]; /* atomic: wid -> tid */
static uint64_t run_start, run_end;
static int writers_done; /* atomic */
static unsigned int nr_per_wave = 8, nr_waves = 3;
static uint64_t wave_ns = 250000000; /* each wave writes for this long */
static pthread_barrier_t wave_start, wave_stop;
static uint64_t sig_count, nested_count; /* atomic */

/* reader-side state */
struct seqstate {
	uint64_t last[FT_RB_LEVELS][9]; /* [ring level][ctx]: previous marker seq + 1 */
};
static struct seqstate seqs[MAX_WRITERS];
static uint64_t read_events, read_pages, errors;
/* per ring (slot, level): its buffer id, and the page after the last one read */
static uint64_t ring_buf[MAX_WRITERS][FT_RB_LEVELS], ring_next[MAX_WRITERS][FT_RB_LEVELS];

static uint32_t csum(uint32_t wid, uint32_t ctx, uint32_t seq)
{
	uint32_t h = wid * 0x9e3779b1u ^ ctx * 0x85ebca77u ^ seq * 0xc2b2ae3du;

	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	return h ^ (h >> 12);
}

static uint32_t wid_fid(uint32_t wid)
{
	return (wid * 7919u + 1) & FT_REC_FID_MAX;
}

/* One marker event: payload wid, ctx, seq, csum. */
static void write_marker(uint32_t ctx, uint32_t seq)
{
	uint32_t pl[4] = { my_wid, ctx, seq, csum(my_wid, ctx, seq) };

	ft_rb_ext(&tls, FT_EXT_BINMARKER, pl, sizeof(pl), ft_rdtsc(), 1, 1);
}

static void block_timer(int how);

/*
 * A marker written the slow way: reserve, then raise the signal while the
 * write is in progress (the handler runs before pthread_kill returns and
 * must write at the next level), then fill and commit.
 */
static void write_marker_nested(uint32_t ctx, uint32_t seq)
{
	struct ft_rb_wlevel *w = ft_rb_begin(&tls);
	uint32_t *p, d;

	if (!w)
		return; /* counted lost (too deep) */
	p = ft_rb_reserve(&tls, w, ft_rdtsc(), 5, 0, &d);
	if (p) {
		__atomic_fetch_add(&nested_count, 1, __ATOMIC_RELAXED);
		pthread_kill(pthread_self(), SIGALRM);
		p[0] = ft_rec_ext(FT_EXT_BINMARKER, 4, 0);
		p[1] = my_wid;
		p[2] = ctx;
		p[3] = seq;
		p[4] = csum(my_wid, ctx, seq);
		ft_rb_commit(w, 5, 1);
	}
	ft_rb_end(&tls);
}

static void on_timer(int sig)
{
	int e = errno;
	static __thread uint32_t sseq;

	(void)sig;
	if (!tls.area) {
		errno = e;
		return;
	}
	sig_depth++;
	__atomic_fetch_add(&sig_count, 1, __ATOMIC_RELAXED);
	/* ctx = nesting depth, so each depth has its own increasing sequence */
	__atomic_fetch_add(
		&s_attempts, 1,
		__ATOMIC_RELAXED); /* one instruction: a nested handler cannot split it */
	if (sig_depth < 6 && (sseq & 1))
		write_marker_nested(sig_depth, sseq++); /* nests once more, up to too deep */
	else
		write_marker(sig_depth < 8 ? sig_depth : 8, sseq++);
	__atomic_fetch_add(
		&s_attempts, 1,
		__ATOMIC_RELAXED); /* one instruction: a nested handler cannot split it */
	ft_rb_entry(&tls, wid_fid(my_wid), ft_rdtsc());
	__atomic_fetch_add(
		&s_attempts, 1,
		__ATOMIC_RELAXED); /* one instruction: a nested handler cannot split it */
	ft_rb_exit(&tls, ft_rdtsc());
	sig_depth--;
	errno = e;
}

static void block_timer(int how)
{
	sigset_t s;

	sigemptyset(&s);
	sigaddset(&s, SIGALRM);
	pthread_sigmask(how, &s, NULL);
}

static void *writer(void *arg)
{
	uint32_t seq = 0;

	my_wid = (uint32_t)(uintptr_t)arg;
	__atomic_store_n(&writer_tid[my_wid], (uint32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	/*
	 * attach and detach with the handler live: it writes through the same
	 * tls meanwhile and must find either no slot (counted lost) or a
	 * complete one
	 */
	block_timer(SIG_UNBLOCK);
	ft_rb_thread_attach(&tls, area, (uint32_t)getpid(), (uint32_t)syscall(SYS_gettid));
	pthread_barrier_wait(
		&wave_start); /* all of a wave's threads hold (or lack) a slot at once */
	uint64_t deadline = (uint64_t)-1;
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	deadline = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + wave_ns;
	for (unsigned int i = 0;; i++) {
		if (!(i & 255)) {
			clock_gettime(CLOCK_MONOTONIC, &ts);
			if ((uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec > deadline)
				break;
		}
		switch (i % 3) {
		case 0:
			t_attempts++;
			ft_rb_entry(&tls, wid_fid(my_wid), ft_rdtsc());
			break;
		case 1:
			t_attempts++;
			if (i % 64 == 1)
				write_marker_nested(0, seq++);
			else
				write_marker(0, seq++);
			break;
		case 2:
			t_attempts++;
			ft_rb_exit(&tls, ft_rdtsc());
			break;
		}
	}
	pthread_barrier_wait(&wave_stop);
	ft_rb_thread_detach(&tls);
	block_timer(SIG_BLOCK); /* before reading the handler's counter */
	__atomic_fetch_add(&total_attempts, t_attempts + s_attempts, __ATOMIC_RELAXED);
	return NULL;
}

struct walkctx {
	uint32_t wid;
	uint32_t level;
	uint64_t events;
};

static void fail(const char *what, uint64_t a, uint64_t b)
{
	if (__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED) < 10)
		fprintf(stderr, "ringbuf_stress: %s (%llu, %llu)\n", what, (unsigned long long)a,
			(unsigned long long)b);
}

static int check_rec(const uint32_t *rec, uint32_t nw, uint64_t ts, void *arg)
{
	struct walkctx *c = arg;

	if (ts < run_start || ts > run_end)
		fail("timestamp out of the run", ts, run_start);
	switch (ft_rec_kind(rec[0])) {
	case FT_REC_ENTRY:
		if (ft_rec_fid(rec[0]) != wid_fid(c->wid))
			fail("entry fid is not the writer's", ft_rec_fid(rec[0]), c->wid);
		c->events++;
		break;
	case FT_REC_EXIT:
		c->events++;
		break;
	case FT_REC_FUNC:
		fail("unexpected FUNC record", rec[0], 0);
		break;
	default:
		if (ft_ext_type(rec[0]) == FT_EXT_TIME || ft_ext_type(rec[0]) == FT_EXT_TDELTA)
			break;
		if (ft_ext_type(rec[0]) != FT_EXT_BINMARKER || nw != 5 || ft_ext_pad(rec[0])) {
			fail("bad ext record", rec[0], nw);
			break;
		}
		if (rec[1] != c->wid)
			fail("marker from another writer", rec[1], c->wid);
		else if (rec[4] != csum(rec[1], rec[2], rec[3]))
			fail("marker checksum", rec[3], rec[4]);
		else if (rec[2] > 8)
			fail("marker ctx", rec[2], 0);
		else {
			uint64_t *last = &seqs[c->wid].last[c->level][rec[2]];

			/* last holds seq+1 of the previous marker (0: none yet) */
			if (rec[3] + 1ull <= *last)
				fail("marker sequence went backwards", rec[3], *last);
			*last = rec[3] + 1ull;
		}
		c->events++;
		break;
	}
	return 0;
}

static int wid_of_tid(uint32_t tid)
{
	for (int i = 0; i < MAX_WRITERS; i++)
		if (__atomic_load_n(&writer_tid[i], __ATOMIC_ACQUIRE) == tid)
			return i;
	return -1;
}

static void check_page(const struct ft_page *pg, const struct ft_rb_pageinfo *info)
{
	struct walkctx c = { 0 };
	int wid = wid_of_tid(pg->tid);

	if (wid < 0) {
		fail("page from an unknown thread", pg->tid, info->buf_id);
		return;
	}
	if (pg->level != ft_rb_id_level(info->buf_id))
		fail("page level is not its ring's", pg->level, info->buf_id);
	if (pg->seq != (uint32_t)info->number)
		fail("page seq", pg->seq, info->number);
	{
		/* pages overwritten unread: the next page read shows their loss */
		uint32_t s = ft_rb_id_slot(info->buf_id), l = pg->level;

		if (s < MAX_WRITERS && l < FT_RB_LEVELS) {
			if (ring_buf[s][l] != info->buf_id) {
				ring_buf[s][l] = info->buf_id;
				ring_next[s][l] = 0;
			}
			if (info->number != ring_next[s][l] && !pg->lost)
				fail("a gap without its loss", ring_next[s][l], info->number);
			ring_next[s][l] = info->number + 1;
		}
	}
	c.wid = (uint32_t)wid;
	c.level = pg->level;
	if (ft_rb_page_walk(pg, info->len, check_rec, &c))
		fail("page does not parse", info->number, info->len);
	if (c.events != info->nev)
		fail("page event count differs from nev", c.events, info->nev);
	read_events += c.events;
	read_pages++;
}

static void drain(int everything)
{
	static char *buf;
	struct ft_rb_pageinfo info;

	if (!buf)
		buf = malloc(area->page_size);
	for (uint32_t s = 0; s < area->nr_slots; s++) {
		struct ft_rb_slotinfo si;
		int final;

		ft_rb_slot_info(area, s, &si);
		if (si.state == FT_RB_FREE)
			continue;
		final = si.state == FT_RB_EXITED || everything;
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++)
			while (ft_rb_consume(area, s, l, final, buf, &info) == 1)
				check_page((struct ft_page *)buf, &info);
		if (si.state == FT_RB_EXITED && ft_rb_slot_recycle(area, s))
			fail("recycle failed", s, 0);
	}
}

static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE)) {
		drain(0);
		ft_rb_wait(area, 1);
	}
	return NULL;
}

enum {
	MODE_DROP,
	MODE_OVERWRITE,
	MODE_BLOCK
};

static int run(int mode)
{
	int overwrite = mode == MODE_OVERWRITE;
	static const char *const names[] = { "producer/consumer", "overwrite", "block" };
	struct ft_rb_params p;
	struct ft_rb_totals tot;
	struct itimerval it = { { 0, 50 }, { 0, 50 } };
	pthread_t rd, w[MAX_WRITERS];
	unsigned int wid = 0;

	memset(seqs, 0, sizeof(seqs));
	memset(ring_buf, 0, sizeof(ring_buf));
	memset(ring_next, 0, sizeof(ring_next));
	memset(writer_tid, 0, sizeof(writer_tid));
	total_attempts = read_events = read_pages = errors = sig_count = nested_count = 0;
	pthread_barrier_init(&wave_start, NULL, nr_per_wave);
	pthread_barrier_init(&wave_stop, NULL, nr_per_wave);
	writers_done = 0;

	ft_rb_params_default(&p, 4, overwrite); /* 1 KiB pages, 4 per thread */
	if (mode == MODE_BLOCK)
		p.flags |= FT_RB_F_BLOCK;
	p.nr_slots = nr_per_wave - 2; /* two threads per wave go without */
	area_len = ft_rb_area_size(&p);
	area_mem = mmap(NULL, area_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (area_mem == MAP_FAILED || !(area = ft_rb_area_init(area_mem, area_len, &p))) {
		perror("ringbuf_stress: area");
		return 1;
	}
	run_start = ft_rdtsc();
	run_end = UINT64_MAX;

	block_timer(SIG_BLOCK); /* main and reader never take the timer */
	pthread_create(&rd, NULL, reader, NULL);
	setitimer(ITIMER_REAL, &it, NULL);
	for (unsigned int wave = 0; wave < nr_waves; wave++) {
		for (unsigned int i = 0; i < nr_per_wave; i++, wid++)
			pthread_create(&w[i], NULL, writer, (void *)(uintptr_t)wid);
		for (unsigned int i = 0; i < nr_per_wave; i++)
			pthread_join(w[i], NULL);
	}
	memset(&it, 0, sizeof(it));
	setitimer(ITIMER_REAL, &it, NULL);
	__atomic_store_n(&writers_done, 1, __ATOMIC_RELEASE);
	pthread_join(rd, NULL);
	run_end = ft_rdtsc();
	drain(1);

	ft_rb_area_totals(area, &tot);
	printf("%s: attempted %llu read %llu (%llu pages) lost %llu = new %llu + overwritten %llu "
	       "(%llu pages) + noslot %llu + nested %llu; committed %llu; claims %llu fails %llu\n",
	       names[mode], (unsigned long long)total_attempts, (unsigned long long)read_events,
	       (unsigned long long)read_pages, (unsigned long long)tot.lost,
	       (unsigned long long)tot.lost_new, (unsigned long long)tot.lost_old,
	       (unsigned long long)tot.pages_old, (unsigned long long)tot.lost_noslot,
	       (unsigned long long)tot.lost_nest, (unsigned long long)tot.written,
	       (unsigned long long)tot.claims, (unsigned long long)tot.claim_fails);
	if (total_attempts != read_events + tot.lost)
		fail("attempted != read + lost", total_attempts, read_events + tot.lost);
	if (tot.written != read_events + tot.lost_old)
		fail("committed != read + overwritten", tot.written, read_events + tot.lost_old);
	if (!read_events)
		fail("nothing read", 0, 0);
	printf("  signals %llu, writes interrupted by a signal %llu\n",
	       (unsigned long long)sig_count, (unsigned long long)nested_count);
	if (overwrite && !tot.lost_old)
		fail("no page was overwritten", 0, 0);
	if (mode == MODE_BLOCK) {
		printf("  block: %llu waits, %llu timeouts, %.3f s waited\n",
		       (unsigned long long)tot.block_waits, (unsigned long long)tot.block_timeouts,
		       tot.block_wait_ns / 1e9);
		if (!tot.block_waits)
			fail("no writer waited for room", 0, 0);
		if (tot.lost_new || tot.lost_old)
			fail("block mode dropped events for want of room", tot.lost_new,
			     tot.lost_old);
	}
#ifndef FT_TSAN
	/*
	 * TSan delivers a signal raised with pthread_kill at its next
	 * interceptor, after the write in progress has ended, so nesting past
	 * the levels only happens in the plain and ASan builds.
	 */
	if (!tot.lost_nest)
		fail("no write nested deeper than the levels", 0, 0);
#endif
	if (!tot.lost_noslot)
		fail("no slot-less thread (nr_slots < threads per wave)", 0, 0);
	munmap(area_mem, area_len);
	pthread_barrier_destroy(&wave_start);
	pthread_barrier_destroy(&wave_stop);
	return errors ? 1 : 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;
	const char *scale = getenv("FT_STRESS_SCALE");
	int rc = 0;

	(void)argc;
	(void)argv;
	if (scale && atoi(scale) > 0)
		wave_ns *= (uint64_t)atoi(scale);
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART | SA_NODEFER;
	sigaction(SIGALRM, &sa, NULL);
	rc |= run(MODE_DROP);
	rc |= run(MODE_OVERWRITE);
	rc |= run(MODE_BLOCK);
	if (!rc)
		printf("ringbuf_stress: OK\n");
	return rc;
}
