// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshot stress test: the spare-set swap (core/ringbuf.h "Snapshot")
 * under load.  Writer threads write numbered markers; some writes raise a
 * signal in the middle (the handler writes at the next nesting level, and
 * with SA_NODEFER handlers nest further); a swapper thread takes snapshots
 * in a loop (ft_rb_snapshot_swap); a reader thread plays the recorder:
 * drains the live rings, and after each swap quiesces, waits for each old
 * ring to freeze, copies it (the snapshot), drains what it had not consumed,
 * resets it and hands the spare back.  Tiny buffers: events are lost.
 *
 * Checks, in producer/consumer and then overwrite mode:
 *   - attempted = read(live) + lost, exactly (snapshots are copies: the
 *     live stream keeps every event);
 *   - in the live stream and in every snapshot, per (buffer, writer,
 *     context) marker sequence numbers strictly increase and every
 *     marker's checksum is right -- a torn or misplaced record after a
 *     swap (a writer mid-write, a handler nested in it) would break this;
 *   - snapshots were taken, and hold events.
 * TSan-clean: every shared access is atomic or ordered by one.
 */
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#include "core/clock.h"
#include "core/ringbuf.h"

#define NW 6
#define NCTX 6 /* ctx 0 thread, 1.. handler depth */

static struct ft_rb_area *area;
static __thread struct ft_rb_thread tls;
static __thread uint32_t my_wid, sig_depth;
static __thread uint32_t sseq[NCTX];
static uint64_t attempted; /* atomic */
static int done;	   /* atomic: writers finished */
static uint64_t swaps, snaps, snap_events, live_events, errors, nested;
static uint64_t run_ns = 400000000; /* each writer writes for this long */

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static uint32_t csum(uint32_t w, uint32_t c, uint32_t s)
{
	uint32_t h = w * 0x9e3779b1u ^ c * 0x85ebca77u ^ s * 0xc2b2ae3du;

	return h ^ (h >> 13);
}

static void marker(uint32_t ctx, uint32_t seq)
{
	uint32_t pl[4] = { my_wid, ctx, seq, csum(my_wid, ctx, seq) };

	__atomic_fetch_add(&attempted, 1, __ATOMIC_RELAXED);
	ft_rb_ext(&tls, FT_EXT_BINMARKER, pl, sizeof(pl), ft_rdtsc(), 1, 1);
}

static void on_sig(int s)
{
	int e = errno;
	uint32_t d;

	(void)s;
	if (!tls.slot || sig_depth + 1 >= NCTX) {
		errno = e;
		return;
	}
	d = ++sig_depth;
	marker(d, sseq[d]++);
	/* now and then a nested signal in the middle of our own write */
	if (d < 3 && (sseq[d] & 7) == 0) {
		struct ft_rb_wlevel *w;
		uint32_t *p, dl, seq = sseq[d]++;

		__atomic_fetch_add(&attempted, 1, __ATOMIC_RELAXED);
		w = ft_rb_begin(&tls);
		if (w) {
			p = ft_rb_reserve(&tls, w, ft_rdtsc(), 5, 0, &dl);
			if (p) {
				raise(SIGUSR1);
				p[0] = ft_rec_ext(FT_EXT_BINMARKER, 4, 0);
				p[1] = my_wid;
				p[2] = d;
				p[3] = seq;
				p[4] = csum(my_wid, d, seq);
				ft_rb_commit(w, 5, 1);
			}
			ft_rb_end(&tls);
		}
	}
	sig_depth--;
	errno = e;
}

static void *writer(void *arg)
{
	uint32_t seq = 0;

	my_wid = (uint32_t)(uintptr_t)arg;
	ft_rb_thread_attach(&tls, area, 1, 1000 + my_wid);
	uint64_t end = mono_ns() + run_ns;

	for (uint64_t i = 0; (i & 1023) || mono_ns() < end; i++) {
		if ((i & 63) == 5) {
			/* a write interrupted by a handler that writes too */
			struct ft_rb_wlevel *w;
			uint32_t *p, dl, s = seq++;

			__atomic_fetch_add(&attempted, 1, __ATOMIC_RELAXED);
			w = ft_rb_begin(&tls);
			if (!w)
				continue;
			p = ft_rb_reserve(&tls, w, ft_rdtsc(), 5, 0, &dl);
			if (p) {
				__atomic_fetch_add(&nested, 1, __ATOMIC_RELAXED);
				raise(SIGUSR1);
				p[0] = ft_rec_ext(FT_EXT_BINMARKER, 4, 0);
				p[1] = my_wid;
				p[2] = 0;
				p[3] = s;
				p[4] = csum(my_wid, 0, s);
				ft_rb_commit(w, 5, 1);
			}
			ft_rb_end(&tls);
			continue;
		}
		marker(0, seq++);
	}
	ft_rb_thread_detach(&tls);
	return NULL;
}

static void *swapper(void *arg)
{
	struct timespec ts = { 0, 300000 };

	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE)) {
		if (!ft_rb_snapshot_swap(area, ft_rdtsc()))
			__atomic_fetch_add(&swaps, 1, __ATOMIC_RELAXED);
		nanosleep(&ts, NULL);
	}
	return NULL;
}

/* ---- the reader (recorder) side ---- */

#define NSLOTS (NW + 2)

struct seqs {
	uint64_t next[NSLOTS][FT_RB_LEVELS][NW][NCTX]; /* per buffer: last seq + 1 */
};

static struct seqs live_seq, snap_seq;

struct walk {
	struct seqs *sq;
	uint32_t slot, level;
	uint64_t events;
};

static int check_rec(const uint32_t *rec, uint32_t nw, uint64_t ts, void *arg)
{
	struct walk *wk = arg;
	uint64_t *nx;

	(void)ts;
	if (ft_rec_kind(rec[0]) != FT_REC_EXT || ft_ext_type(rec[0]) != FT_EXT_BINMARKER)
		return 0;
	if (nw != 5 || rec[1] >= NW || rec[2] >= NCTX || rec[4] != csum(rec[1], rec[2], rec[3])) {
		errors++;
		return 0;
	}
	nx = &wk->sq->next[wk->slot][wk->level][rec[1]][rec[2]];
	if (rec[3] + 1ull <= *nx) {
		/* not increasing: a record out of place */
		if (errors++ < 5)
			fprintf(stderr,
				"%s: slot %u level %u writer %u ctx %u: seq %u after %llu\n",
				wk->sq == &snap_seq ? "snapshot" : "live", wk->slot, wk->level,
				rec[1], rec[2], rec[3], (unsigned long long)*nx - 1);
	}
	*nx = rec[3] + 1ull;
	wk->events++;
	return 0;
}

static char page[FT_RB_PAGE_MAX];

static void take(uint32_t slot, struct seqs *sq, uint64_t *count, const struct ft_rb_pageinfo *info)
{
	struct walk wk = { sq, slot, ft_rb_id_level(info->buf_id), 0 };

	if (ft_rb_page_walk((struct ft_page *)page, info->len, check_rec, &wk))
		errors++;
	*count += wk.events;
}

static int saving;
static uint8_t sdone[NSLOTS];

static void pass(int everything)
{
	struct ft_rb_pageinfo info;
	const uint8_t all = (1u << FT_RB_LEVELS) - 1;

	if (ft_rb_snapshot_state(area) == FT_RB_SNAP_SAVING && !saving) {
		ft_rb_snapshot_quiesce();
		memset(sdone, 0, sizeof(sdone));
		memset(&snap_seq, 0, sizeof(snap_seq));
		saving = 1;
	}
	for (uint32_t s = 0; s < area->nr_slots; s++) {
		struct ft_rb_slotinfo si;
		int final, skipped;

		ft_rb_slot_info(area, s, &si);
		if (si.state == FT_RB_FREE) {
			sdone[s] = all;
			continue;
		}
		final = everything || si.state == FT_RB_EXITED;
		skipped = 0;
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
			uint32_t live = __atomic_load_n(&area->snap_gen, __ATOMIC_ACQUIRE) & 1;

			/* as recorder/urecord.c drain() */
			if (!saving) {
				if (ft_rb_ring_unread(area, s, live ^ 1, l)) {
					skipped = 1; /* a swap since the pass began */
					continue;
				}
			} else if (!(sdone[s] & (1u << l))) {
				if (everything || ft_rb_ring_frozen(area, s, live ^ 1, l)) {
					uint64_t first, last;

					ft_rb_snap_range(area, s, live ^ 1, l, &first, &last);
					for (uint64_t p = first; first <= last && p <= last; p++)
						if (ft_rb_peek_set(area, s, live ^ 1, l, p, page,
								   &info) == 1)
							take(s, &snap_seq, &snap_events, &info);
					while (ft_rb_consume_set(area, s, live ^ 1, l, 1, page,
								 &info) == 1)
						take(s, &live_seq, &live_events, &info);
					ft_rb_ring_reset(area, s, live ^ 1, l);
					sdone[s] |= (uint8_t)(1u << l);
				} else {
					while (ft_rb_consume_set(area, s, live ^ 1, l, 0, page,
								 &info) == 1)
						take(s, &live_seq, &live_events, &info);
					skipped = 1;
					continue;
				}
			}
			while (ft_rb_consume_set(area, s, live, l, final, page, &info) == 1)
				take(s, &live_seq, &live_events, &info);
		}
		if (si.state == FT_RB_EXITED && !everything && !skipped &&
		    (!saving || sdone[s] == all)) {
			ft_rb_slot_recycle(area, s);
			/* a new life of the slot: its sequences start again */
			memset(live_seq.next[s], 0, sizeof(live_seq.next[s]));
		}
	}
	if (saving) {
		for (uint32_t s = 0; s < area->nr_slots; s++)
			if (sdone[s] != all)
				return;
		saving = 0;
		snaps++;
		ft_rb_snapshot_saved(area);
	}
}

static void *reader(void *arg)
{
	(void)arg;
	while (!__atomic_load_n(&done, __ATOMIC_ACQUIRE))
		pass(0);
	return NULL;
}

static int run(int overwrite)
{
	struct ft_rb_params p = { 0 };
	struct ft_rb_totals tot;
	pthread_t w[NW], sw, rd;
	size_t len;
	void *mem;

	p.page_size = 1024;
	p.npages[0] = 8;
	p.npages[1] = p.npages[2] = p.npages[3] = 2;
	p.nr_slots = NSLOTS;
	p.flags = overwrite ? FT_RB_F_OVERWRITE : 0;
	len = ft_rb_area_size(&p);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED)
		return 1;
	area = ft_rb_area_init(mem, len, &p);
	attempted = swaps = snaps = snap_events = live_events = errors = nested = 0;
	done = 0;
	saving = 0;
	memset(&live_seq, 0, sizeof(live_seq));
	ft_rb_snapshot_alloc(area);
	pthread_create(&rd, NULL, reader, NULL);
	pthread_create(&sw, NULL, swapper, NULL);
	for (uintptr_t i = 0; i < NW; i++)
		pthread_create(&w[i], NULL, writer, (void *)i);
	for (int i = 0; i < NW; i++)
		pthread_join(w[i], NULL);
	__atomic_store_n(&done, 1, __ATOMIC_RELEASE);
	pthread_join(sw, NULL);
	pthread_join(rd, NULL);
	pass(1); /* writers gone: everything, and a pending save */
	pass(1);
	ft_rb_area_totals(area, &tot);
	printf("%s: attempted %llu = read %llu + lost %llu (new %llu, overwritten %llu, "
	       "nested %llu, noslot %llu); swaps %llu, snapshots saved %llu holding %llu events; "
	       "interrupted writes %llu; errors %llu\n",
	       overwrite ? "overwrite" : "producer/consumer", (unsigned long long)attempted,
	       (unsigned long long)live_events, (unsigned long long)tot.lost,
	       (unsigned long long)tot.lost_new, (unsigned long long)tot.lost_old,
	       (unsigned long long)tot.lost_nest, (unsigned long long)tot.lost_noslot,
	       (unsigned long long)swaps, (unsigned long long)snaps,
	       (unsigned long long)snap_events, (unsigned long long)nested,
	       (unsigned long long)errors);
	munmap(mem, len);
	if (errors || attempted != live_events + tot.lost) {
		fprintf(stderr, "snapshot_stress: FAILED (%s)\n",
			errors ? "bad records" : "counts");
		return 1;
	}
	if (!swaps || !snaps || !snap_events) {
		fprintf(stderr, "snapshot_stress: no snapshot taken: the test proves nothing\n");
		return 1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct sigaction sa;

	if (argc > 1)
		run_ns = strtoull(argv[1], NULL, 10) * 1000000ull; /* ms */
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sig;
	sa.sa_flags = SA_NODEFER | SA_RESTART;
	sigaction(SIGUSR1, &sa, NULL);
	if (run(0) || run(1))
		return 1;
	printf("snapshot_stress: OK\n");
	return 0;
}
