// SPDX-License-Identifier: GPL-2.0
/*
 * Snapshots of the user-space recorder (core/ringbuf.h "Snapshot"): when a
 * swap is seen, the old ring set is saved ring by ring into SNAPSHOT
 * sections as each ring freezes (see urecord.c for the whole recorder).
 * And the snapshot table's buffer side for the tools that drive it from
 * outside (ftrail snapshot, the live mount's snapshot file).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "core/clock.h"
#include "core/ringbuf.h"
#include "core/snapshot.h"
#include "core/tracefile.h"
#include "recorder/urecord.h"
#include "recorder/urec_int.h"

/* Append a page copy to the snapshot buffer being copied (u->sbuf). */
static int sbuf_add(struct ft_urecord *u, const struct ft_rb_pageinfo *info, const void *page)
{
	struct pend *p = &u->sbuf;

	if (urec_pend_append(p, page, info->len))
		return -1;
	p->id = info->buf_id;
	return 0;
}

/*
 * A snapshot header (FT_SNAP_HDR_ID, text, core/snapshot.h): written when a
 * save starts (its rings' sections follow, one ring at a time, so the
 * recorder holds one ring's copy at most), or alone for "cleared"/"freed".
 * A flight recorder's adds what took it and its window (--last).
 */
int urec_snap_header(struct ft_urecord *u, struct ft_writer *w, const char *state, uint64_t ts,
		     const char *trigger, int signo)
{
	char hdr[384];
	int n;

	n = snprintf(hdr, sizeof(hdr), "snapshot=%u\nstate=%s\nswap_ts=%llu\n", ++u->snaps_saved,
		     state, (unsigned long long)ts);
	if (trigger)
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "trigger=%s\n", trigger);
	if (signo)
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "signal=%d\n", signo);
	if (u->o->flight && u->o->flight_last_ms)
		n += snprintf(hdr + n, sizeof(hdr) - (size_t)n, "last_ns=%llu\n",
			      (unsigned long long)u->o->flight_last_ms * 1000000ull);
	if (ft_writer_add(w, FT_SEC_SNAPSHOT, FT_SNAP_HDR_ID, hdr, (size_t)n, 0))
		return -1;
	/* a flight recorder's kernel side: the instance's rings, read now (KSNAP) */
	if (u->o->flight && u->flight_kdump && !strcmp(state, "taken")) {
		char err[256];

		if (u->flight_kdump(u->flight_kdump_arg, u->snaps_saved, err, sizeof(err)))
			urec_warn(u, "snapshot %u: %s", u->snaps_saved, err);
	}
	return 0;
}

static int snap_header(struct ft_urecord *u, struct ft_writer *w, const char *state)
{
	return urec_snap_header(u, w, state, __atomic_load_n(&u->area->snap_ts, __ATOMIC_RELAXED),
				u->o->flight ? "snapshot" : NULL, 0);
}

/*
 * Save ring (s, old set, l), frozen: copy every page still in it into the
 * snapshot, drain what was not consumed yet into UDATA (the trace keeps every
 * event: the snapshot is a copy), show its tail losses, and reset it.
 */
int urec_snap_save_ring(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
			uint32_t l, const struct ft_rb_slotinfo *si)
{
	struct ft_rb_area *a = u->area;
	struct ft_rb_pageinfo info;
	uint64_t first, last;
	int r = 0;

	ft_rb_snap_range(a, s, set, l, &first, &last);
	for (uint64_t p = first; p <= last && first <= last; p++) {
		struct ft_page *pg = (struct ft_page *)u->page;

		if (ft_rb_peek_set(a, s, set, l, p, u->page, &info) != 1)
			continue;
		if (!pg->size && !pg->lost)
			continue; /* never started */
		u->snap_pages++;
		u->snap_events += info.nev;
		r |= sbuf_add(u, &info, u->page);
	}
	if (u->sbuf.len) {
		r |= urec_sync_tables(u, w, 0); /* names first, as for UDATA */
		r |= ft_writer_add(w, FT_SEC_SNAPSHOT, u->sbuf.id, u->sbuf.buf, u->sbuf.len, 1);
	}
	u->sbuf.len = 0;
	while (ft_rb_consume_set(a, s, set, l, 1, u->page, &info) == 1)
		r |= urec_take_page(u, w, s, set, l, &info);
	/* the swap's time: before anything the thread wrote in the live set */
	r |= urec_report_tail_loss(u, w, s, set, l, si,
				   __atomic_load_n(&a->snap_ts, __ATOMIC_RELAXED));
	ft_rb_ring_reset(a, s, set, l);
	u->reported[RIDX(s, set, l)] = 0;
	return r;
}

/*
 * Snapshot requests, once per drain pass: a new swap (quiesce, then save
 * ring by ring as they freeze), clears, frees.  Pages of the old set that
 * are not frozen yet are drained as usual (complete pages only) by drain().
 */
int urec_snap_poll(struct ft_urecord *u, struct ft_writer *w)
{
	struct ft_rb_area *a = u->area;
	int st = ft_rb_snapshot_state(a), r = 0;
	uint32_t clears = __atomic_load_n(&a->snap_clear_req, __ATOMIC_ACQUIRE);

	if (st == FT_RB_SNAP_SAVING && !u->snap_saving) {
		ft_rb_snapshot_quiesce();
		memset(u->snap_done, 0, a->nr_slots);
		u->snap_saving = 1;
		r |= snap_header(u, w, "taken");
	}
	if (!u->snap_saving && clears != u->snap_clears_seen) {
		u->snap_clears_seen = clears;
		if (st != FT_RB_SNAP_FREE)
			r |= snap_header(u, w, "cleared");
	}
	if (st == FT_RB_SNAP_FREE && u->snap_last_state != FT_RB_SNAP_FREE && !u->snap_saving) {
		r |= snap_header(u, w, "freed");
		ft_rb_spare_release(a);
	}
	if (!u->snap_saving)
		u->snap_last_state = st;
	return r;
}

/* After a pass over every slot: is the save complete?  Write it. */
int urec_snap_finish(struct ft_urecord *u, struct ft_writer *w)
{
	struct ft_rb_area *a = u->area;
	const uint8_t all = (1u << FT_RB_LEVELS) - 1;

	if (!u->snap_saving)
		return 0;
	for (uint32_t s = 0; s < a->nr_slots; s++)
		if (u->snap_done[s] != all)
			return 0;
	u->snap_saving = 0;
	u->snaps_taken++;
	ft_rb_snapshot_saved(a);
	u->snap_last_state = ft_rb_snapshot_state(a);
	return 0;
}

/* ---- the snapshot table's buffer side, on a session's ring area ---- */

static int area_alloc(void *ctx)
{
	return ft_rb_snapshot_alloc(ctx);
}

/*
 * Swap.  The recorder may still be saving the previous snapshot (a trigger
 * took it a moment ago): wait for it, up to 5 s, rather than refuse.
 */
static int area_swap(void *ctx)
{
	struct timespec ts = { 0, 2000000 };
	int r;

	for (int i = 0; i < 2500; i++) {
		r = ft_rb_snapshot_swap(ctx, ft_rdtsc());
		if (r != -EBUSY)
			return r;
		nanosleep(&ts, NULL);
	}
	return -EBUSY;
}

static void area_clear(void *ctx)
{
	ft_rb_snapshot_clear(ctx);
}

static void area_free(void *ctx)
{
	ft_rb_snapshot_free(ctx);
}

static int area_state(void *ctx)
{
	return ft_rb_snapshot_state(ctx) == FT_RB_SNAP_FREE ? FT_SNAP_UNALLOCATED
							    : FT_SNAP_ALLOCATED;
}

const struct ft_snapshot_ops ft_urec_area_snapshot_ops = {
	.alloc = area_alloc,
	.swap = area_swap,
	.clear = area_clear,
	.free = area_free,
	.get_state = area_state,
};
