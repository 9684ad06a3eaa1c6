// SPDX-License-Identifier: GPL-2.0
/*
 * The flight recorder (record --flight-recorder; doc/flight-recorder.md):
 * the rings run in overwrite mode and nobody consumes them, so tracing
 * costs the program its records in memory and nothing else -- no page
 * leaves the shared memory, no byte is compressed or written.  What the
 * rings hold is written only at a trigger, as a snapshot (core/snapshot.h)
 * that `show --snapshot=N` reads:
 *
 *   - a swap (function command or event trigger `snapshot`, `ftrail
 *     snapshot -P PID 1`): the swapped-out set is saved as each of its
 *     rings freezes (the protocol of core/ringbuf.h "Snapshot"), then
 *     reset -- the live set, the former spare, starts empty as ftrace's
 *     snapshot leaves its live buffer;
 *   - the end (exit, a crash, Ctrl-C / --duration, a detach): every ring,
 *     read from the shared memory after the writers are gone -- as LTTng's
 *     crash recovery reads a dead program's buffers.
 *
 * With --last SEC, a snapshot leaves out the pages whose records all
 * precede its trigger by more than SEC (page by page, from each page's
 * start time and the next page's), and its header says last_ns= so the
 * readers drop the records of the first page kept that are older still
 * (analysis/trace_tables.c).
 *
 * A thread that exits leaves a ring nobody will write again; its slot is
 * needed by the threads to come, so the ring is copied out (fl_ret) and
 * the slot recycled.  These copies are bounded (FLIGHT_RETIRED_MAX, the
 * oldest thread's dropped first, counted in fl_evicted and in META) and
 * belong to the next snapshot, as the thread's records would if its ring
 * were still there.
 */
#include <stdlib.h>
#include <string.h>

#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/snapshot.h"
#include "core/tracefile.h"
#include "recorder/urec_int.h"

#define FLIGHT_RETIRED_MAX (64u << 20) /* bytes of exited threads' rings kept */

/* The oldest time a snapshot taken at ts keeps (ticks), or 0 for all. */
static uint64_t since_of(const struct ft_urecord *u, uint64_t ts)
{
	return u->fl_window && ts > u->fl_window ? ts - u->fl_window : 0;
}

/*
 * Copy the pages of ring (s, set, l) from the first one that may hold a
 * record at or after since into *p (a pend; p->id set to the buffer id).
 * Pages a writer reuses during the copy are left out (ft_rb_peek_set).
 */
static int copy_ring(struct ft_urecord *u, uint32_t s, uint32_t set, uint32_t l, uint64_t since,
		     struct pend *p)
{
	struct ft_rb_area *a = u->area;
	struct ft_page *pg = (struct ft_page *)u->page;
	struct ft_rb_pageinfo info;
	uint64_t first, last, start;
	int r = 0;

	ft_rb_snap_range(a, s, set, l, &first, &last);
	if (first > last)
		return 0;
	start = first;
	/* the latest page that starts at or before since: every earlier one is older */
	for (uint64_t n = first; since && n <= last; n++)
		if (ft_rb_peek_set(a, s, set, l, n, u->page, &info) == 1 &&
		    (pg->size || pg->lost) && pg->ts <= since)
			start = n;
	for (uint64_t n = start; n <= last; n++) {
		if (ft_rb_peek_set(a, s, set, l, n, u->page, &info) != 1)
			continue;
		if (!pg->size && !pg->lost)
			continue; /* never started */
		if (!p->len && start == first) {
			/*
			 * What the ring overwrote (or dropped) since it was last
			 * reset: before its oldest page, as a reader shows it
			 * (pages left out for --last are not losses)
			 */
			struct ft_rb_ring *ring = ft_rb_slot_ring(ft_rb_slot_at(a, s), set, l);
			uint64_t lost = __atomic_load_n(&ring->lost_old, __ATOMIC_RELAXED) +
					__atomic_load_n(&ring->lost_new, __ATOMIC_RELAXED);

			pg->lost = lost > UINT32_MAX ? UINT32_MAX : (uint32_t)lost;
		}
		u->snap_pages++;
		u->snap_events += info.nev;
		r |= urec_pend_append(p, u->page, info.len);
		p->id = info.buf_id;
	}
	return r;
}

/* Write p as the snapshot's section of its buffer, names first; empties p. */
static int write_pend(struct ft_urecord *u, struct ft_writer *w, struct pend *p)
{
	int r = 0;

	if (p->len) {
		r |= urec_sync_tables(u, w, 0);
		r |= ft_writer_add(w, FT_SEC_SNAPSHOT, p->id, p->buf, p->len, 1);
	}
	p->len = 0;
	return r;
}

/*
 * The exited threads' rings kept since the last snapshot, into the one
 * being written (pages older than since left out), then forgotten.
 */
static int write_retired(struct ft_urecord *u, struct ft_writer *w, uint64_t since)
{
	int r = 0;

	for (size_t i = 0; i < u->nr_fl_ret; i++) {
		struct pend *p = &u->fl_ret[i];
		size_t from = 0;

		for (size_t off = 0; since && off + sizeof(struct ft_page) <= p->len;) {
			struct ft_page h;

			memcpy(&h, p->buf + off, sizeof(h));
			if (h.ts <= since)
				from = off;
			off += sizeof(h) + h.size;
		}
		for (size_t off = from; off + sizeof(struct ft_page) <= p->len;) {
			struct ft_page h;

			memcpy(&h, p->buf + off, sizeof(h));
			u->snap_pages++;
			off += sizeof(h) + h.size;
		}
		if (p->len > from) {
			r |= urec_sync_tables(u, w, 0);
			r |= ft_writer_add(w, FT_SEC_SNAPSHOT, p->id, p->buf + from, p->len - from,
					   1);
		}
		free(p->buf);
	}
	u->nr_fl_ret = 0;
	u->fl_ret_bytes = 0;
	return r;
}

/* Keep the rings of exited slot s (every level of the live set) for the next snapshot. */
static void retire_slot(struct ft_urecord *u, uint32_t s, uint32_t set)
{
	for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
		struct pend p = { 0 };
		struct pend *np;

		if (copy_ring(u, s, set, l, 0, &p) || !p.len) {
			free(p.buf);
			continue;
		}
		/* room: the oldest thread's copy goes first, its pages counted */
		while (u->nr_fl_ret && u->fl_ret_bytes + p.len > FLIGHT_RETIRED_MAX) {
			struct pend *o = &u->fl_ret[0];

			for (size_t off = 0; off + sizeof(struct ft_page) <= o->len;) {
				struct ft_page h;

				memcpy(&h, o->buf + off, sizeof(h));
				u->fl_evicted++;
				off += sizeof(h) + h.size;
			}
			u->fl_ret_bytes -= o->len;
			free(o->buf);
			memmove(u->fl_ret, u->fl_ret + 1, --u->nr_fl_ret * sizeof(*u->fl_ret));
		}
		np = realloc(u->fl_ret, (u->nr_fl_ret + 1) * sizeof(*np));
		if (!np) {
			free(p.buf);
			continue;
		}
		u->fl_ret = np;
		u->fl_ret[u->nr_fl_ret++] = p;
		u->fl_ret_bytes += p.len;
	}
}

int urec_flight_pass(struct ft_urecord *u, struct ft_writer *w, int everything)
{
	struct ft_rb_area *a = u->area;
	const uint8_t all = (1u << FT_RB_LEVELS) - 1;
	uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;
	uint64_t since = since_of(u, __atomic_load_n(&a->snap_ts, __ATOMIC_RELAXED));
	int r = 0;

	/* a save just began (urec_snap_poll wrote its header): the exited threads first */
	if (u->snap_saving && u->nr_fl_ret)
		r |= write_retired(u, w, since);
	for (uint32_t s = 0; s < a->nr_slots; s++) {
		struct ft_rb_slotinfo si;

		ft_rb_slot_info(a, s, &si);
		if (si.state == FT_RB_FREE) {
			u->snap_done[s] = all;
			continue;
		}
		urec_note_task(u, si.pid, si.tid);
		if (si.state == FT_RB_ACTIVE && !everything && si.pid &&
		    urec_task_gone(si.pid, si.tid) && !ft_rb_slot_reap(a, s))
			si.state = FT_RB_EXITED;
		for (uint32_t l = 0; u->snap_saving && l < FT_RB_LEVELS; l++) {
			struct pend *p = &u->sbuf;

			if (u->snap_done[s] & (1u << l))
				continue;
			if (!everything && !ft_rb_ring_frozen(a, s, live ^ 1, l))
				continue;
			r |= copy_ring(u, s, live ^ 1, l, since, p);
			r |= write_pend(u, w, p);
			ft_rb_ring_reset(a, s, live ^ 1, l);
			u->snap_done[s] |= (uint8_t)(1u << l);
		}
		if (si.state == FT_RB_EXITED && !everything && !u->snap_saving) {
			retire_slot(u, s, live);
			ft_rb_slot_recycle(a, s);
		}
	}
	if (u->snap_saving)
		r |= urec_snap_finish(u, w);
	return r;
}

int urec_flight_dump(struct ft_urecord *u, struct ft_writer *w, const char *trigger, int signo)
{
	struct ft_rb_area *a = u->area;
	uint32_t live = __atomic_load_n(&a->snap_gen, __ATOMIC_ACQUIRE) & 1;
	uint64_t ts = ft_rdtsc(), since = since_of(u, ts);
	int r;

	r = urec_snap_header(u, w, "taken", ts, trigger, signo);
	r |= write_retired(u, w, since);
	for (uint32_t s = 0; s < a->nr_slots; s++) {
		struct ft_rb_slotinfo si;

		ft_rb_slot_info(a, s, &si);
		if (si.state == FT_RB_FREE)
			continue;
		urec_note_task(u, si.pid, si.tid);
		for (uint32_t l = 0; l < FT_RB_LEVELS; l++) {
			r |= copy_ring(u, s, live, l, since, &u->sbuf);
			r |= write_pend(u, w, &u->sbuf);
		}
	}
	u->snaps_taken++;
	u->fl_dumps++;
	return r;
}
