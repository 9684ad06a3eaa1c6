// SPDX-License-Identifier: GPL-2.0
/*
 * Stress test of the pages a streaming recorder takes in pieces
 * (recorder/urec_stream.c): writer threads fill their rings (blocking
 * mode, small pages: a page switch every few dozen records) while a reader
 * does what the recorder's drain pass does in stream mode, again and
 * again -- consume the complete pages (cutting what was taken of them),
 * then take what was committed to each page being written -- and, when the
 * writers are gone, the final pages.
 *
 * Every writer writes ENTRY/EXIT pairs at known times (record k at
 * base + 7k ticks, fid k mod 4096).  Checks, per writer: the pages and
 * pieces, decoded in the order taken, hold every record exactly once, in
 * order, each at its own time (a piece's header time carries the time
 * across the cut), and the event counts split between pieces add up.
 * Exit 0 on success; prints the figures.  Run it under TSan too.
 *
 *   stream_pieces [RECORDS_PER_WRITER]
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "core/record.h"
#include "core/ringbuf.h"
#include "recorder/urec_int.h"

#define WRITERS 4
#define STEP 7ull

static struct ft_rb_area *area;
static uint64_t nrec = 200000;
static int writers_done;

struct store {
	unsigned char *buf;
	size_t len, cap;
	uint64_t events, pieces, pages;
};

static struct store stores[WRITERS];
static uint64_t outcomes[4]; /* urec_piece_take: -1, 0, 1, 2 */

static void die(const char *what)
{
	fprintf(stderr, "stream_pieces: %s\n", what);
	exit(1);
}

static void *writer(void *arg)
{
	uint32_t wid = (uint32_t)(uintptr_t)arg;
	struct ft_rb_thread t;
	uint64_t base = 1000000;

	memset(&t, 0, sizeof(t));
	if (ft_rb_thread_attach(&t, area, 1, wid + 1))
		die("no slot");
	for (uint64_t k = 0; k < nrec; k += 2) {
		if (ft_rb_entry(&t, (uint32_t)(k % 4096), base + k * STEP) ||
		    ft_rb_exit(&t, base + (k + 1) * STEP))
			die("a record was lost in blocking mode");
		/* now and then a pause, so the reader finds pages half written */
		if (k % 64 == 0)
			for (volatile int j = 0; j < 2000; j++)
				;
	}
	ft_rb_thread_detach(&t);
	return NULL;
}

static void keep(uint32_t slot, const void *page, const struct ft_rb_pageinfo *info, int piece)
{
	const struct ft_page *pg = page;
	struct store *st;

	if (pg->tid < 1 || pg->tid > WRITERS)
		die("a page of no writer");
	st = &stores[pg->tid - 1];
	(void)slot;
	if (st->len + info->len > st->cap) {
		st->cap = (st->cap + info->len) * 2;
		st->buf = realloc(st->buf, st->cap);
		if (!st->buf)
			die("out of memory");
	}
	memcpy(st->buf + st->len, page, info->len);
	st->len += info->len;
	st->events += info->nev;
	if (piece)
		st->pieces++;
	else
		st->pages++;
}

/* One drain pass, as urecord.c's in stream mode (level 0, set 0: no snapshot here). */
static void pass(struct urec_piece *sp, void *page, int final)
{
	struct ft_rb_pageinfo info;

	for (uint32_t s = 0; s < area->nr_slots; s++) {
		struct ft_rb_slotinfo si;
		int got, fin;

		ft_rb_slot_info(area, s, &si);
		if (si.state == FT_RB_FREE)
			continue;
		fin = final || si.state == FT_RB_EXITED;
		while (ft_rb_consume_set(area, s, 0, 0, fin, page, &info) == 1) {
			urec_piece_strip(&sp[s], page, &info);
			keep(s, page, &info, 0);
		}
		if (fin)
			continue;
		while ((got = urec_piece_take(area, s, 0, 0, &sp[s], page, &info)) == 2) {
			urec_piece_strip(&sp[s], page, &info);
			keep(s, page, &info, 0);
		}
		if (got == 1)
			keep(s, page, &info, 1);
		outcomes[got + 1]++;
	}
}

struct check {
	uint64_t k, base;
	int bad;
};

static int check_rec(const uint32_t *rec, uint32_t nwords, uint64_t ts, void *arg)
{
	struct check *c = arg;
	uint32_t kind = ft_rec_kind(rec[0]);

	if (kind == FT_REC_EXT && ft_ext_type(rec[0]) != FT_EXT_TIME &&
	    ft_ext_type(rec[0]) != FT_EXT_TDELTA)
		return 0;
	if (kind == FT_REC_EXT)
		return 0; /* a time record: the next one carries it */
	(void)nwords;
	if (ts != c->base + c->k * STEP || kind != (c->k & 1 ? FT_REC_EXIT : FT_REC_ENTRY) ||
	    (kind == FT_REC_ENTRY && ft_rec_fid(rec[0]) != c->k % 4096)) {
		if (!c->bad++)
			fprintf(stderr, "record %llu: kind %u ts %llu, expected ts %llu\n",
				(unsigned long long)c->k, kind, (unsigned long long)ts,
				(unsigned long long)(c->base + c->k * STEP));
		return 1;
	}
	c->k++;
	return 0;
}

int main(int argc, char **argv)
{
	struct ft_rb_params p;
	struct urec_piece *sp;
	pthread_t th[WRITERS];
	void *mem, *page, *al = NULL; /* al: an aligned copy of one stored page */
	size_t len, alcap = 0;
	int rounds = 0, ok = 1;

	if (argc > 1)
		nrec = strtoull(argv[1], NULL, 10) & ~1ull;
	ft_rb_params_default(&p, 8, 0); /* 8 KiB rings of 1 KiB pages */
	p.flags |= FT_RB_F_BLOCK;
	p.nr_slots = 8;
	len = ft_rb_area_size(&p);
	mem = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (mem == MAP_FAILED || !(area = ft_rb_area_init(mem, len, &p)))
		die("cannot make the area");
	sp = calloc(area->nr_slots, sizeof(*sp));
	page = malloc(area->page_size);
	if (!sp || !page)
		die("out of memory");
	for (uint32_t i = 0; i < WRITERS; i++)
		if (pthread_create(&th[i], NULL, writer, (void *)(uintptr_t)i))
			die("pthread_create");
	while (!__atomic_load_n(&writers_done, __ATOMIC_ACQUIRE)) {
		ft_rb_reader_alive(area);
		pass(sp, page, 0);
		rounds++;
		usleep(20); /* let the writers move on between passes */
		if (rounds % 64 == 0) {
			int alive = 0;

			for (uint32_t s = 0; s < area->nr_slots; s++) {
				struct ft_rb_slotinfo si;

				ft_rb_slot_info(area, s, &si);
				alive += si.state == FT_RB_ACTIVE;
			}
			if (!alive && rounds > 64)
				__atomic_store_n(&writers_done, 1, __ATOMIC_RELEASE);
		}
	}
	for (uint32_t i = 0; i < WRITERS; i++)
		pthread_join(th[i], NULL);
	pass(sp, page, 1);
	for (uint32_t i = 0; i < WRITERS; i++) {
		struct store *st = &stores[i];
		struct check c = { 0, 1000000, 0 };

		for (size_t off = 0; off + sizeof(struct ft_page) <= st->len && !c.bad;) {
			/* the store packs pages back to back, at any alignment: each
			 * is walked from an aligned copy, as a reader's buffer is */
			struct ft_page h;
			size_t l;

			memcpy(&h, st->buf + off, sizeof(h));
			l = sizeof(h) + h.size;
			if (l > st->len - off) {
				c.bad++;
				break;
			}
			if (l > alcap) {
				free(al);
				alcap = l;
				al = malloc(alcap);
				if (!al) {
					perror("malloc");
					return 1;
				}
			}
			memcpy(al, st->buf + off, l);
			if (ft_rb_page_walk(al, l, check_rec, &c))
				c.bad++;
			off += l;
		}
		printf("writer %u: %llu records in %llu pages and %llu pieces, %llu events counted\n",
		       i, (unsigned long long)c.k, (unsigned long long)st->pages,
		       (unsigned long long)st->pieces, (unsigned long long)st->events);
		if (c.bad || c.k != nrec || st->events != nrec) {
			fprintf(stderr,
				"writer %u: %llu of %llu records in order, %llu events counted\n",
				i, (unsigned long long)c.k, (unsigned long long)nrec,
				(unsigned long long)st->events);
			ok = 0;
		}
		if (!st->pieces)
			fprintf(stderr, "writer %u: no piece was taken (nothing tested)\n", i);
		free(st->buf);
	}
	free(al);
	printf("%d reader passes; takes: %llu behind, %llu nothing new, %llu pieces\n", rounds,
	       (unsigned long long)outcomes[0], (unsigned long long)outcomes[1],
	       (unsigned long long)outcomes[2]);
	free(sp);
	free(page);
	munmap(mem, len);
	return ok ? 0 : 1;
}
