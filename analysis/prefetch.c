// SPDX-License-Identifier: GPL-2.0
/*
 * The decoding thread ahead of the formatter (see prefetch.h).
 *
 * Hand-over: FT_PREFETCH_BATCHES batches in a ring.  The decoder fills
 * batch (filled % N) while it is free, then, under the mutex, marks it
 * full (filled++) and signals; the consumer takes batch (taken % N) once
 * taken < filled, reads it outside the mutex, and under the mutex gives it
 * back (taken++) and signals.  Memory ordering: every write to a batch
 * happens before the unlock that publishes filled++, and every read of it
 * after the lock that observed it (the mutex's release/acquire); likewise
 * for taken++ in the other direction, so a batch is never written and read
 * at once.  A batch per hand-over keeps the mutex off the per-event path.
 *
 * Wake-ups: a side that finds the ring full (the decoder) or empty (the
 * consumer) sleeps until half of it is free, or full (or the last batch
 * is in), and each side signals only when that is so.  Waking at every
 * batch made the two threads take turns, two context switches per batch
 * (150,000 on a 14M-event export), which cost as much CPU as the decoding.
 */
#include "analysis/prefetch.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct item {
	struct ft_event ev;
	struct ft_event next;
	int has_next;
};

struct batch {
	struct item *items;
	size_t n;    /* items filled */
	char *arena; /* payload copies, 8-aligned */
	size_t alen, acap;
	int last; /* the decoder's final batch: ret says how it ended */
	int ret;  /* 0 end, -1 error (with err) */
	char err[256];
};

struct ft_prefetch {
	struct ft_trace *t;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned long filled, taken; /* under lock */
	int stop;		     /* under lock: the consumer left */
	int done;		     /* under lock: the last batch is in */
	struct batch b[FT_PREFETCH_BATCHES];
	/* consumer side */
	struct batch *cur;
	size_t pos;
};

/* Copy n bytes into the arena, which arena_room() made large enough. */
static void *arena_copy(struct batch *b, const void *p, size_t n)
{
	void *d = b->arena + b->alen;

	memcpy(d, p, n);
	b->alen = (b->alen + n + 7) & ~(size_t)7;
	return d;
}

/* Room for n more arena bytes; when the arena must move, rebase the items' pointers. */
static int arena_room(struct batch *b, size_t n)
{
	size_t need = b->alen + n + 8, ncap;
	char *old = b->arena, *na;

	if (need <= b->acap)
		return 0;
	ncap = b->acap ? b->acap * 2 : 64 * 1024;
	while (ncap < need)
		ncap *= 2;
	na = malloc(ncap);
	if (!na)
		return -1;
	if (b->alen)
		memcpy(na, old, b->alen);
	for (size_t i = 0; i < b->n; i++) {
		struct ft_event *e[2] = { &b->items[i].ev, &b->items[i].next };

		for (int k = 0; k < 2; k++) {
			if (e[k]->data)
				e[k]->data = na + ((const char *)e[k]->data - old);
			if (e[k]->ips)
				e[k]->ips =
					(const uint64_t *)(void *)(na +
								   ((const char *)e[k]->ips - old));
			if (e[k]->comm)
				e[k]->comm = na + (e[k]->comm - old);
		}
	}
	free(old);
	b->arena = na;
	b->acap = ncap;
	return 0;
}

/* Arena bytes ev's payloads take (each copy 8-aligned). */
static size_t payload_size(const struct ft_event *ev, const char *comm)
{
	return (ev->data ? ev->len + 8 : 0) + (ev->ips ? (size_t)ev->nr_ips * 8 : 0) +
	       (comm ? strlen(comm) + 8 : 0);
}

/* Make ev's payloads the batch's own (the arena has room for them). */
static void own_payloads(struct batch *b, struct ft_event *ev, const char *comm)
{
	if (ev->data)
		ev->data = ev->len ? arena_copy(b, ev->data, ev->len) : arena_copy(b, "", 1);
	if (ev->ips && ev->nr_ips)
		ev->ips = arena_copy(b, ev->ips, (size_t)ev->nr_ips * sizeof(uint64_t));
	else
		ev->ips = NULL;
	ev->comm = comm ? arena_copy(b, comm, strlen(comm) + 1) : NULL;
	ev->src = NULL;
	ev->priv = NULL;
}

/* Fill b from the reader.  Returns 1 when more may follow, 0 when this is the last batch. */
static int fill(struct ft_prefetch *p, struct batch *b)
{
	/* the thread's name: looked up when the thread changes or a name
	 * changes (a COMM, or a thread's name at its start, which is no
	 * event: ft_trace_names_gen), copied once a batch (coff: its copy,
	 * or SIZE_MAX) */
	const char *comm = NULL;
	uint64_t cgen = 0;
	uint32_t ctid = 0;
	int have = 0;
	size_t coff = SIZE_MAX;

	b->n = 0;
	b->alen = 0;
	while (b->n < FT_PREFETCH_EVENTS) {
		struct item *it = &b->items[b->n];
		const char *copy;
		int ret = ft_trace_next(p->t, &it->ev, b->err, sizeof(b->err));

		if (ret <= 0) {
			b->last = 1;
			b->ret = ret;
			return 0;
		}
		it->has_next = 0;
		if (it->ev.type == FT_EV_ENTRY) {
			int r = ft_trace_peek_buffer(p->t, &it->ev, &it->next);

			it->has_next = r == 1;
		}
		/* the name as the stream has it now (COMM events change it) */
		if (!have || it->ev.tid != ctid || cgen != ft_trace_names_gen(p->t)) {
			comm = ft_trace_comm(p->t, it->ev.tid);
			cgen = ft_trace_names_gen(p->t);
			ctid = it->ev.tid;
			have = 1;
			coff = SIZE_MAX;
		}
		copy = coff == SIZE_MAX ? comm : NULL;
		if (arena_room(b, payload_size(&it->ev, copy) +
					  (it->has_next ? payload_size(&it->next, NULL) : 0)) < 0) {
			snprintf(b->err, sizeof(b->err), "out of memory reading ahead");
			b->last = 1;
			b->ret = -1;
			return 0;
		}
		own_payloads(b, &it->ev, copy);
		if (copy)
			coff = (size_t)(it->ev.comm - b->arena);
		else if (comm)
			it->ev.comm = b->arena + coff;
		if (it->has_next)
			own_payloads(b, &it->next, NULL);
		b->n++;
	}
	return 1;
}

static void *decoder(void *arg)
{
	struct ft_prefetch *p = arg;
	int more = 1;

	while (more) {
		struct batch *b;

		pthread_mutex_lock(&p->lock);
		if (p->filled - p->taken == FT_PREFETCH_BATCHES) /* full: wait for half */
			while (!p->stop && p->filled - p->taken > FT_PREFETCH_BATCHES / 2)
				pthread_cond_wait(&p->cond, &p->lock);
		if (p->stop) {
			pthread_mutex_unlock(&p->lock);
			break;
		}
		b = &p->b[p->filled % FT_PREFETCH_BATCHES];
		pthread_mutex_unlock(&p->lock);

		more = fill(p, b);

		pthread_mutex_lock(&p->lock);
		p->filled++; /* publishes b (see the file's top) */
		p->done = !more;
		if (p->done || p->filled - p->taken >= FT_PREFETCH_BATCHES / 2)
			pthread_cond_broadcast(&p->cond);
		pthread_mutex_unlock(&p->lock);
	}
	return NULL;
}

struct ft_prefetch *ft_prefetch_start(struct ft_trace *t, char *err, size_t errlen)
{
	struct ft_prefetch *p = calloc(1, sizeof(*p));
	int e;

	if (!p)
		goto oom;
	p->t = t;
	for (int i = 0; i < FT_PREFETCH_BATCHES; i++) {
		p->b[i].items = calloc(FT_PREFETCH_EVENTS, sizeof(struct item));
		if (!p->b[i].items)
			goto oom;
	}
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->cond, NULL);
	e = pthread_create(&p->thread, NULL, decoder, p);
	if (e) {
		snprintf(err, errlen, "cannot start a decoding thread: %s", strerror(e));
		pthread_mutex_destroy(&p->lock);
		pthread_cond_destroy(&p->cond);
		for (int i = 0; i < FT_PREFETCH_BATCHES; i++)
			free(p->b[i].items);
		free(p);
		return NULL;
	}
	return p;
oom:
	snprintf(err, errlen, "out of memory");
	if (p)
		for (int i = 0; i < FT_PREFETCH_BATCHES; i++)
			free(p->b[i].items);
	free(p);
	return NULL;
}

int ft_prefetch_next(struct ft_prefetch *p, const struct ft_event **ev,
		     const struct ft_event **next, char *err, size_t errlen)
{
	struct item *it;

	while (!p->cur || p->pos == p->cur->n) {
		if (p->cur) {
			int ret = p->cur->ret;

			if (p->cur->last) {
				if (ret < 0)
					snprintf(err, errlen, "%s", p->cur->err);
				return ret < 0 ? -1 : 0;
			}
			pthread_mutex_lock(&p->lock);
			p->taken++; /* gives the batch back (see the file's top) */
			if (p->filled - p->taken <= FT_PREFETCH_BATCHES / 2)
				pthread_cond_broadcast(&p->cond);
			pthread_mutex_unlock(&p->lock);
			p->cur = NULL;
		}
		pthread_mutex_lock(&p->lock);
		if (p->filled == p->taken) /* empty: wait for half, or the end */
			while (!p->done && p->filled - p->taken < FT_PREFETCH_BATCHES / 2)
				pthread_cond_wait(&p->cond, &p->lock);
		p->cur = &p->b[p->taken % FT_PREFETCH_BATCHES];
		pthread_mutex_unlock(&p->lock);
		p->pos = 0;
	}
	it = &p->cur->items[p->pos++];
	*ev = &it->ev;
	*next = it->has_next ? &it->next : NULL;
	return 1;
}

void ft_prefetch_stop(struct ft_prefetch *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&p->lock);
	p->stop = 1;
	pthread_cond_broadcast(&p->cond);
	pthread_mutex_unlock(&p->lock);
	pthread_join(p->thread, NULL);
	pthread_mutex_destroy(&p->lock);
	pthread_cond_destroy(&p->cond);
	for (int i = 0; i < FT_PREFETCH_BATCHES; i++) {
		free(p->b[i].items);
		free(p->b[i].arena);
	}
	free(p);
}
