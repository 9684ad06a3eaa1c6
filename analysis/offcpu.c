// SPDX-License-Identifier: GPL-2.0
/*
 * Off-CPU analysis engine: intervals from switch-out to switch-in, direct
 * samples at or above a threshold, aggregates below it (see offcpu.h).
 *
 * Three hash tables (core/hashtab.h):
 *   threads    tid -> per-thread state (off-CPU since when, with what stack)
 *   stack_ids  ips[] -> interned id (1..), ids index a vector of stacks
 *   keys       (tgid, tid, kstack, ustack, state, cut) -> sums and counts
 * plus one vector of direct samples.  Single-threaded: the caller feeds
 * events from one thread.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/offcpu.h"
#include "core/hash.h"
#include "core/hashtab.h"
#include "core/util.h"

struct thread {
	struct ft_hentry h; /* first (hashtab.h): key the tid */
	uint32_t tid;	    /* the key again (tid 0, the idle task, is never stored) */
	uint32_t tgid;
	uint64_t ts_out;  /* when it went off-CPU (valid when off) */
	uint64_t ts_wake; /* first wakeup while off, 0 when none */
	uint64_t last_ts; /* latest event of this thread */
	uint32_t state;
	uint32_t kstack, ustack;
	uint8_t off;  /* between a switch-out and its switch-in */
	uint8_t seen; /* any switch event seen */
	uint8_t born; /* created in the recording, not yet run */
	char comm[16];
};

struct stack {
	uint32_t nr;
	uint64_t *ips;
};

/* An interned stack's entry in stack_ids: key its hash. */
struct stack_slot {
	struct ft_hentry h; /* first (hashtab.h) */
	uint32_t id;	    /* stacks[id - 1] */
};

struct key {
	uint32_t tgid, tid;
	uint32_t kstack, ustack;
	uint32_t state;
	uint8_t cut;
};

struct keyent {
	struct ft_hentry h; /* first (hashtab.h): key key_hash(&k) */
	struct key k;
	uint64_t agg_total, agg_count, agg_blocked; /* below the threshold */
	uint64_t direct, direct_ns, direct_blocked; /* at or above it */
	uint64_t max;
};

struct ft_offcpu {
	uint64_t thresh;
	uint64_t begin_ts, end_ts;
	int ended;
	int (*accept)(uint32_t tid, uint32_t tgid, void *arg);
	void *accept_arg;

	struct ft_htab threads; /* struct thread */

	struct ft_htab stack_ids; /* struct stack_slot */
	struct stack *stacks;	  /* stacks[id - 1] */
	size_t stacks_nr, stacks_cap;

	struct ft_htab keys; /* struct keyent */

	struct ft_offcpu_sample *samples;
	size_t samples_nr, samples_cap;

	struct ft_offcpu_stats st;
};

struct ft_offcpu *ft_offcpu_new(uint64_t thresh_ns)
{
	struct ft_offcpu *oc = calloc(1, sizeof(*oc));

	if (!oc)
		return NULL;
	oc->thresh = thresh_ns;
	if (ft_htab_init(&oc->threads, sizeof(struct thread)) < 0) {
		free(oc);
		return NULL;
	}
	if (ft_htab_init(&oc->stack_ids, sizeof(struct stack_slot)) < 0 ||
	    ft_htab_init(&oc->keys, sizeof(struct keyent)) < 0) {
		ft_offcpu_free(oc);
		errno = ENOMEM;
		return NULL;
	}
	return oc;
}

void ft_offcpu_free(struct ft_offcpu *oc)
{
	if (!oc)
		return;
	for (size_t i = 0; i < oc->stacks_nr; i++)
		free(oc->stacks[i].ips);
	free(oc->stacks);
	ft_htab_free(&oc->stack_ids);
	ft_htab_free(&oc->threads);
	ft_htab_free(&oc->keys);
	free(oc->samples);
	free(oc);
}

void ft_offcpu_set_filter(struct ft_offcpu *oc, int (*accept)(uint32_t, uint32_t, void *),
			  void *arg)
{
	oc->accept = accept;
	oc->accept_arg = arg;
}

void ft_offcpu_begin(struct ft_offcpu *oc, uint64_t ts)
{
	oc->begin_ts = ts;
}

/* --- threads ------------------------------------------------------------- */

/* The entry of tid, created when create is set.  NULL: absent, or ENOMEM. */
static struct thread *thread_get(struct ft_offcpu *oc, uint32_t tid, int create)
{
	struct thread *t;
	int created;

	if (!tid)
		return NULL;
	t = ft_htab_get_eq(&oc->threads, tid, NULL, NULL, create, &created);
	if (t && created) {
		t->tid = tid;
		oc->st.threads = (uint32_t)oc->threads.used;
	}
	return t;
}

static int accepted(const struct ft_offcpu *oc, uint32_t tid, uint32_t tgid)
{
	if (!tid)
		return 0;
	return oc->accept ? oc->accept(tid, tgid, oc->accept_arg) : 1;
}

/* --- stacks -------------------------------------------------------------- */

/* The stack being interned, for stack_eq(). */
struct stack_key {
	const struct ft_offcpu *oc;
	const uint64_t *ips;
	uint32_t nr;
};

static int stack_eq(const void *entry, const void *key)
{
	const struct stack_slot *e = entry;
	const struct stack_key *k = key;
	const struct stack *s = &k->oc->stacks[e->id - 1];

	return s->nr == k->nr && !memcmp(s->ips, k->ips, k->nr * sizeof(*k->ips));
}

/* Interned id of ips[0..nr) (leaf first): 0 for an empty stack, -1 ENOMEM. */
static int64_t stack_intern(struct ft_offcpu *oc, const uint64_t *ips, uint32_t nr)
{
	struct stack_key k = { oc, ips, nr };
	struct stack_slot *e;
	uint64_t h, *copy;

	if (!ips || !nr)
		return 0;
	h = ft_hash_mx(ips, nr, 0); /* the stack hash of the readers' tables (stackset.c) */
	e = ft_htab_get_eq(&oc->stack_ids, h, stack_eq, &k, 0, NULL);
	if (e)
		return e->id;
	if (oc->stacks_nr == UINT32_MAX - 1)
		goto nomem;
	if (FT_GROW(oc->stacks, oc->stacks_cap, oc->stacks_nr + 1, 64))
		goto nomem;
	copy = malloc(nr * sizeof(*ips));
	if (!copy)
		goto nomem;
	/* absent: this makes the entry */
	e = ft_htab_get_eq(&oc->stack_ids, h, stack_eq, &k, 1, NULL);
	if (!e) {
		free(copy);
		goto nomem;
	}
	memcpy(copy, ips, nr * sizeof(*ips));
	oc->stacks[oc->stacks_nr].ips = copy;
	oc->stacks[oc->stacks_nr].nr = nr;
	oc->stacks_nr++;
	e->id = (uint32_t)oc->stacks_nr;
	oc->st.stacks = (uint32_t)oc->stacks_nr;
	return (int64_t)oc->stacks_nr;
nomem:
	errno = ENOMEM;
	return -1;
}

int ft_offcpu_stack(const struct ft_offcpu *oc, uint32_t id, const uint64_t **ips, uint32_t *nr)
{
	if (!id || id > oc->stacks_nr)
		return -1;
	*ips = oc->stacks[id - 1].ips;
	*nr = oc->stacks[id - 1].nr;
	return 0;
}

/* --- aggregation keys ---------------------------------------------------- */

static int key_eq(const struct key *a, const struct key *b)
{
	return a->tgid == b->tgid && a->tid == b->tid && a->kstack == b->kstack &&
	       a->ustack == b->ustack && a->state == b->state && a->cut == b->cut;
}

static uint64_t key_hash(const struct key *k)
{
	uint64_t h = ft_hash_u64(((uint64_t)k->tgid << 32) | k->tid);

	h = ft_hash_u64(h ^ (((uint64_t)k->kstack << 32) | k->ustack));
	return ft_hash_u64(h ^ (((uint64_t)k->state << 8) | k->cut));
}

static int keyent_eq(const void *entry, const void *key)
{
	return key_eq(&((const struct keyent *)entry)->k, key);
}

/* The aggregate of k, made (zeroed) when new; NULL: ENOMEM. */
static struct keyent *key_get(struct ft_offcpu *oc, const struct key *k)
{
	int created;
	struct keyent *e = ft_htab_get_eq(&oc->keys, key_hash(k), keyent_eq, k, 1, &created);

	if (!e) {
		errno = ENOMEM;
		return NULL;
	}
	if (created)
		e->k = *k;
	return e;
}

/* --- intervals ----------------------------------------------------------- */

/*
 * Count one interval of t, [from, to), exactly once: a direct sample when
 * it lasts at least the threshold, else into its key's aggregate.  The
 * thread's off-CPU fields say state and stacks.  Returns 0 or -1 (ENOMEM;
 * nothing counted).
 */
static int close_interval(struct ft_offcpu *oc, const struct thread *t, uint64_t from, uint64_t to,
			  uint64_t wake, uint32_t state, uint32_t kstack, uint32_t ustack,
			  uint8_t cut, uint8_t est)
{
	uint64_t period = to > from ? to - from : 0;
	uint64_t blocked = wake >= from && wake <= to && wake ? wake - from : 0;
	struct key k = { t->tgid, t->tid, kstack, ustack, state, cut };
	struct keyent *e = key_get(oc, &k);

	if (!e)
		return -1;
	if (period >= oc->thresh) {
		struct ft_offcpu_sample *s;

		if (FT_GROW(oc->samples, oc->samples_cap, oc->samples_nr + 1, 64))
			return -1; /* ENOMEM */
		s = &oc->samples[oc->samples_nr++];
		s->ts_out = from;
		s->ts_in = to;
		s->period = period;
		s->blocked = blocked;
		s->tid = t->tid;
		s->tgid = t->tgid;
		s->state = state;
		s->kstack = kstack;
		s->ustack = ustack;
		s->cut = cut;
		s->estimated = est;
		e->direct++;
		e->direct_ns += period;
		e->direct_blocked += blocked;
		oc->st.direct++;
		oc->st.direct_ns += period;
	} else {
		e->agg_total += period;
		e->agg_count++;
		e->agg_blocked += blocked;
		oc->st.aggregated++;
		oc->st.aggregated_ns += period;
	}
	if (period > e->max)
		e->max = period;
	oc->st.intervals++;
	if (est) {
		oc->st.estimated++;
		oc->st.estimated_ns += period;
	}
	if (cut == FT_OFFCPU_CUT_START) {
		oc->st.cut_start++;
		oc->st.cut_start_ns += period;
	} else if (cut == FT_OFFCPU_CUT_END) {
		oc->st.cut_end++;
		oc->st.cut_end_ns += period;
	}
	return 0;
}

int ft_offcpu_switch_out(struct ft_offcpu *oc, const struct ft_offcpu_out *ev)
{
	struct thread *t;
	int64_t k, u;

	if (oc->ended)
		return 0;
	t = thread_get(oc, ev->tid, 0);
	if (!accepted(oc, ev->tid, ev->tgid ? ev->tgid : t ? t->tgid : 0))
		return 0;
	if (!t && !(t = thread_get(oc, ev->tid, 1)))
		return -1;
	oc->st.switch_out++;
	if (ev->tgid)
		t->tgid = ev->tgid;
	if (ev->comm && ev->comm[0]) {
		strncpy(t->comm, ev->comm, sizeof(t->comm) - 1);
		t->comm[sizeof(t->comm) - 1] = 0;
	}
	if (t->seen && ev->ts < t->last_ts) {
		oc->st.unordered++;
		return 0;
	}
	if (t->off) {
		/* its switch-in was lost: bounded by the wakeup, or dropped */
		if (t->ts_wake) {
			if (close_interval(oc, t, t->ts_out, t->ts_wake, t->ts_wake, t->state,
					   t->kstack, t->ustack, FT_OFFCPU_WHOLE, 1))
				return -1;
		} else {
			oc->st.unpaired++;
		}
	}
	t->seen = 1;
	t->born = 0;
	t->last_ts = ev->ts;
	t->off = 0;
	if (ev->state & FT_OFFCPU_STATE_DEAD_MASK) {
		oc->st.dead++;
		return 0;
	}
	k = stack_intern(oc, ev->kips, ev->knr);
	u = stack_intern(oc, ev->uips, ev->unr);
	if (k < 0 || u < 0)
		return -1;
	t->off = 1;
	t->ts_out = ev->ts;
	t->ts_wake = 0;
	t->state = ev->state;
	t->kstack = (uint32_t)k;
	t->ustack = (uint32_t)u;
	return 0;
}

int ft_offcpu_switch_in(struct ft_offcpu *oc, uint64_t ts, int cpu, uint32_t tid)
{
	struct thread *t;
	int rc = 0;

	if (oc->ended)
		return 0;
	t = thread_get(oc, tid, 0);
	if (!accepted(oc, tid, t ? t->tgid : 0))
		return 0;
	if (!t && !(t = thread_get(oc, tid, 1)))
		return -1;
	oc->st.switch_in++;
	if (t->seen && ts < t->last_ts) {
		oc->st.unordered++;
		return 0;
	}
	if (t->off)
		rc = close_interval(oc, t, t->ts_out, ts, t->ts_wake, t->state, t->kstack,
				    t->ustack, FT_OFFCPU_WHOLE, 0);
	else if (t->born)
		oc->st.new_task++;
	else if (!t->seen)
		rc = close_interval(oc, t, oc->begin_ts, ts, 0, FT_OFFCPU_STATE_UNKNOWN, 0, 0,
				    FT_OFFCPU_CUT_START, 0);
	else
		oc->st.unpaired++; /* its switch-out was lost */
	if (rc)
		return rc;
	t->off = 0;
	t->born = 0;
	t->seen = 1;
	t->last_ts = ts;
	return 0;
}

int ft_offcpu_wakeup(struct ft_offcpu *oc, uint64_t ts, uint32_t tid)
{
	struct thread *t;

	if (oc->ended)
		return 0;
	t = thread_get(oc, tid, 0);
	if (!t || !accepted(oc, tid, t->tgid))
		return 0;
	oc->st.wakeups++;
	if (t->off && !t->ts_wake && ts >= t->ts_out)
		t->ts_wake = ts;
	return 0;
}

int ft_offcpu_running(struct ft_offcpu *oc, uint64_t ts, uint32_t tid, int user)
{
	struct thread *t;

	if (oc->ended)
		return 0;
	t = thread_get(oc, tid, 0);
	if (!t || !t->off || ts < t->ts_out || !accepted(oc, tid, t->tgid))
		return 0;
	if (close_interval(oc, t, t->ts_out, !user && t->ts_wake ? t->ts_wake : ts, t->ts_wake,
			   t->state, t->kstack, t->ustack, FT_OFFCPU_WHOLE, 1))
		return -1;
	t->off = 0;
	t->last_ts = ts;
	return 0;
}

int ft_offcpu_new_task(struct ft_offcpu *oc, uint64_t ts, uint32_t tid, uint32_t tgid)
{
	struct thread *t;

	if (oc->ended || !accepted(oc, tid, tgid))
		return 0;
	t = thread_get(oc, tid, 1);
	if (!t)
		return -1;
	if (tgid)
		t->tgid = tgid;
	/* a recycled tid that had exited: start afresh */
	t->off = 0;
	t->seen = 0;
	t->born = 1;
	t->last_ts = ts;
	return 0;
}

int ft_offcpu_set_comm(struct ft_offcpu *oc, uint32_t tid, uint32_t tgid, const char *comm)
{
	struct thread *t = thread_get(oc, tid, 1);

	if (!tid)
		return 0;
	if (!t)
		return -1;
	if (tgid)
		t->tgid = tgid;
	if (comm) {
		strncpy(t->comm, comm, sizeof(t->comm) - 1);
		t->comm[sizeof(t->comm) - 1] = 0;
	}
	return 0;
}

int ft_offcpu_end(struct ft_offcpu *oc, uint64_t ts)
{
	if (oc->ended)
		return 0;
	oc->end_ts = ts;
	for (size_t i = 0; i < oc->threads.cap; i++) {
		struct thread *t = ft_htab_slot(&oc->threads, i);

		if (!t || !t->off)
			continue;
		if (close_interval(oc, t, t->ts_out, ts > t->ts_out ? ts : t->ts_out, t->ts_wake,
				   t->state, t->kstack, t->ustack, FT_OFFCPU_CUT_END, 0))
			return -1;
		t->off = 0;
	}
	oc->ended = 1;
	return 0;
}

/* --- results ------------------------------------------------------------- */

void ft_offcpu_get_stats(const struct ft_offcpu *oc, struct ft_offcpu_stats *st)
{
	*st = oc->st;
}

uint64_t ft_offcpu_threshold(const struct ft_offcpu *oc)
{
	return oc->thresh;
}

size_t ft_offcpu_nr_samples(const struct ft_offcpu *oc)
{
	return oc->samples_nr;
}

const struct ft_offcpu_sample *ft_offcpu_sample(const struct ft_offcpu *oc, size_t i)
{
	return i < oc->samples_nr ? &oc->samples[i] : NULL;
}

static void key_to_agg(const struct keyent *e, struct ft_offcpu_agg *a)
{
	a->tgid = e->k.tgid;
	a->tid = e->k.tid;
	a->kstack = e->k.kstack;
	a->ustack = e->k.ustack;
	a->state = e->k.state;
	a->cut = e->k.cut;
}

int ft_offcpu_foreach_agg(const struct ft_offcpu *oc,
			  int (*fn)(const struct ft_offcpu_agg *a, void *arg), void *arg)
{
	for (size_t i = 0; i < oc->keys.cap; i++) {
		const struct keyent *e = ft_htab_slot(&oc->keys, i);
		struct ft_offcpu_agg a;
		int rc;

		if (!e || !e->agg_count)
			continue;
		key_to_agg(e, &a);
		a.total = e->agg_total;
		a.count = e->agg_count;
		a.blocked = e->agg_blocked;
		rc = fn(&a, arg);
		if (rc)
			return rc;
	}
	return 0;
}

static int row_cmp(const void *pa, const void *pb)
{
	const struct ft_offcpu_row *a = pa, *b = pb;

	if (a->key.total != b->key.total)
		return a->key.total < b->key.total ? 1 : -1;
	if (a->key.tid != b->key.tid)
		return a->key.tid < b->key.tid ? -1 : 1;
	if (a->key.kstack != b->key.kstack)
		return a->key.kstack < b->key.kstack ? -1 : 1;
	if (a->key.ustack != b->key.ustack)
		return a->key.ustack < b->key.ustack ? -1 : 1;
	if (a->key.cut != b->key.cut)
		return a->key.cut < b->key.cut ? -1 : 1;
	return a->key.state < b->key.state ? -1 : a->key.state > b->key.state;
}

static void key_to_row(const struct keyent *e, struct ft_offcpu_row *r)
{
	key_to_agg(e, &r->key);
	r->key.total = e->agg_total + e->direct_ns;
	r->key.count = e->agg_count + e->direct;
	r->key.blocked = e->agg_blocked + e->direct_blocked;
	r->direct = e->direct;
	r->direct_ns = e->direct_ns;
	r->max = e->max;
}

int ft_offcpu_foreach_row(const struct ft_offcpu *oc,
			  int (*fn)(const struct ft_offcpu_row *r, void *arg), void *arg)
{
	for (size_t i = 0; i < oc->keys.cap; i++) {
		const struct keyent *e = ft_htab_slot(&oc->keys, i);
		struct ft_offcpu_row r = { 0 };
		int rc;

		if (!e)
			continue;
		key_to_row(e, &r);
		rc = fn(&r, arg);
		if (rc)
			return rc;
	}
	return 0;
}

struct ft_offcpu_row *ft_offcpu_rows(const struct ft_offcpu *oc, size_t *nr)
{
	struct ft_offcpu_row *rows;
	size_t n = 0;

	*nr = 0;
	errno = 0;
	if (!oc->keys.used)
		return NULL;
	rows = calloc(oc->keys.used, sizeof(*rows));
	if (!rows) {
		errno = ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < oc->keys.cap; i++)
		if (ft_htab_slot(&oc->keys, i))
			key_to_row(ft_htab_slot(&oc->keys, i), &rows[n++]);
	qsort(rows, n, sizeof(*rows), row_cmp);
	*nr = n;
	return rows;
}

const char *ft_offcpu_comm(const struct ft_offcpu *oc, uint32_t tid)
{
	const struct thread *t;

	if (!tid)
		return NULL;
	t = ft_htab_find(&oc->threads, tid);
	return t && t->comm[0] ? t->comm : NULL;
}

const char *ft_offcpu_state_str(uint32_t state, char *buf, size_t len)
{
	static const char letters[] = "SDTtXZPI";
	size_t n = 0;

	if (!len)
		return buf;
	buf[0] = 0;
	if (state == FT_OFFCPU_STATE_UNKNOWN) {
		snprintf(buf, len, "?");
		return buf;
	}
	for (int i = 0; i < 8; i++) {
		if (!(state & (1u << i)))
			continue;
		if (n && n + 1 < len)
			buf[n++] = '|';
		if (n + 1 < len)
			buf[n++] = letters[i];
	}
	if (!n && n + 1 < len)
		buf[n++] = 'R';
	if ((state & FT_OFFCPU_STATE_PREEMPT) && n + 1 < len)
		buf[n++] = '+';
	if (state & ~0x1ffu)
		n += snprintf(buf + n, len - n, "(0x%x)", state);
	buf[n < len ? n : len - 1] = 0;
	return buf;
}
