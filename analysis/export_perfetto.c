// SPDX-License-Identifier: GPL-2.0
#include "analysis/export_perfetto.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "core/hash.h"
#include "core/hashtab.h"
#include "third_party/perfetto/perfetto_trace.pb-c.h"

#define SEQ_ID 1
#define UUID_THREAD (1ull << 48)
#define UUID_PROCESS (2ull << 48)
#define UUID_LOST (3ull << 48)
#define MAX_ANN 32

typedef Perfetto__Protos__Trace Trace;
typedef Perfetto__Protos__TracePacket TracePacket;
typedef Perfetto__Protos__TrackEvent TrackEvent;
typedef Perfetto__Protos__DebugAnnotation DebugAnnotation;
typedef Perfetto__Protos__TrackDescriptor TrackDescriptor;
typedef Perfetto__Protos__ProcessDescriptor ProcessDescriptor;
typedef Perfetto__Protos__ThreadDescriptor ThreadDescriptor;
typedef Perfetto__Protos__CounterDescriptor CounterDescriptor;
typedef Perfetto__Protos__InternedData InternedData;
typedef Perfetto__Protos__EventName EventName;
typedef Perfetto__Protos__EventCategory EventCategory;
typedef Perfetto__Protos__DebugAnnotationName DebugAnnotationName;

/* protobuf-c's output straight into the file */
struct fbuf {
	ProtobufCBuffer base;
	FILE *out;
	int err;
	/* packets gather here and go out in one fwrite when it is full: an
	 * fwrite per packet cost a quarter as much as making it */
	size_t len;
	uint8_t buf[1 << 16];
};

struct istr { /* an interned string */
	struct ft_hentry h;
	char *s;
	uint64_t iid;
};

struct itab {
	struct ft_htab h;
	uint64_t next;
	/* new this packet: they go into its interned_data */
	uint64_t niid[MAX_ANN + 2];
	const char *nname[MAX_ANN + 2];
	size_t nnew;
	int oom; /* an entry could not be made: the table is not used again */
	/* the string interned last (kept by its entry) and its iid: a run of
	 * calls asks for the same category over and over */
	const char *last;
	uint64_t last_iid;
};

struct pthread_ {	    /* per thread */
	struct ft_hentry h; /* key tid */
	uint32_t pid;
	uint64_t depth;
	int described;
};

struct ft_perfetto {
	struct fbuf fb;
	int failed;
	int first;
	struct itab names, cats, anns;
	struct ft_htab threads; /* struct pthread_ */
	struct pthread_
		*last_t; /* thread()'s last answer (NULL: none; reset when the table may move) */
	struct ft_htab procs; /* struct ft_hentry: pid described */
	int lost_track;
	uint64_t lost_total, last_ts;
	struct ft_perfetto_stats st;
	struct ft_xmemo iid_by_key; /* an ENTRY's name_id -> its name's iid (0: not yet) */
};

/* Write out what f gathered (f->err set on failure). */
static void fb_flush(struct fbuf *f)
{
	if (!f->err && f->len && fwrite(f->buf, 1, f->len, f->out) != f->len)
		f->err = errno ? errno : EIO;
	f->len = 0;
}

static void fb_append(ProtobufCBuffer *b, size_t len, const uint8_t *data)
{
	struct fbuf *f = (struct fbuf *)b;

	if (f->len + len > sizeof(f->buf)) {
		fb_flush(f);
		if (len > sizeof(f->buf)) { /* a packet larger than the buffer */
			if (!f->err && fwrite(data, 1, len, f->out) != len)
				f->err = errno ? errno : EIO;
			return;
		}
	}
	memcpy(f->buf + f->len, data, len);
	f->len += len;
}

static int str_eq(const void *entry, const void *key)
{
	return !strcmp(((const struct istr *)entry)->s, key);
}

/* The iid of s in t, noting a new one for this packet's interned data; 0 on ENOMEM. */
static uint64_t intern(struct itab *t, const char *s)
{
	struct istr *e;
	int created;

	if (t->oom)
		return 0;
	if (t->last && !strcmp(s, t->last))
		return t->last_iid;
	e = ft_htab_get_eq(&t->h, ft_hash_fnv1a(s, strlen(s)), str_eq, s, 1, &created);
	if (!e) {
		t->oom = 1;
		return 0;
	}
	if (created) {
		e->s = strdup(s);
		if (!e->s) {
			t->oom = 1; /* an entry without a string: never compare with it */
			return 0;
		}
		e->iid = ++t->next;
		t->niid[t->nnew] = e->iid;
		t->nname[t->nnew++] = e->s;
	}
	t->last = e->s;
	t->last_iid = e->iid;
	return e->iid;
}

static void itab_free(struct itab *t)
{
	for (size_t i = 0; t->h.tab && i < t->h.cap; i++) {
		struct istr *e = ft_htab_slot(&t->h, i);

		if (e)
			free(e->s);
	}
	ft_htab_free(&t->h);
}

/*
 * The messages of the strings new in @tab (an itab) for this packet, into
 * @msg[] and the pointers @ptr[] to them.  A macro: EventName,
 * EventCategory and DebugAnnotationName are three protobuf-c types with the
 * same fields (iid, name) and each its own @init.
 */
#define INTERNED_MSGS(tab, msg, ptr, init)                                                         \
	do {                                                                                       \
		for (size_t i_ = 0; i_ < (tab)->nnew; i_++) {                                      \
			init(&(msg)[i_]);                                                          \
			(msg)[i_].has_iid = 1;                                                     \
			(msg)[i_].iid = (tab)->niid[i_];                                           \
			(msg)[i_].name = (char *)(tab)->nname[i_];                                 \
			(ptr)[i_] = &(msg)[i_];                                                    \
		}                                                                                  \
	} while (0)

/* v as a protobuf varint at b; returns its length (at most 10). */
static size_t pb_varint(uint8_t *b, uint64_t v)
{
	size_t n = 0;

	for (; v >= 0x80; v >>= 7)
		b[n++] = (uint8_t)(v | 0x80);
	b[n++] = (uint8_t)v;
	return n;
}

#define FRAME_ROOM 11 /* a packet's frame: its tag and a varint of up to 10 bytes */

/*
 * Write the packet of n bytes at b + FRAME_ROOM as a Trace of one: the
 * Trace's frame (field 1, length-delimited: tag 0x0a and the length) is
 * put in front here, as packing a Trace would size the packet and its
 * track event once more for nothing.  Counts it; 0, or -1 once the
 * output failed.
 */
static int send_packet(struct ft_perfetto *p, uint8_t *b, size_t n)
{
	uint8_t frame[FRAME_ROOM];
	size_t h = 1 + pb_varint(frame + 1, n);

	frame[0] = 0x0a;
	memcpy(b + FRAME_ROOM - h, frame, h);
	fb_append(&p->fb.base, h + n, b + FRAME_ROOM - h);
	p->st.packets++;
	if (p->fb.err) {
		p->failed = p->fb.err;
		errno = p->failed;
		return -1;
	}
	return 0;
}

/* Write one packet (a Trace of one), with what was interned for it. */
static int emit(struct ft_perfetto *p, TracePacket *pk)
{
	InternedData id = PERFETTO__PROTOS__INTERNED_DATA__INIT;
	EventName en[MAX_ANN + 2], *enp[MAX_ANN + 2];
	EventCategory ec[MAX_ANN + 2], *ecp[MAX_ANN + 2];
	DebugAnnotationName dn[MAX_ANN + 2], *dnp[MAX_ANN + 2];

	if (!p->failed && (p->names.oom || p->cats.oom || p->anns.oom))
		p->failed = ENOMEM;
	if (p->failed) {
		errno = p->failed;
		return -1;
	}
	pk->has_trusted_packet_sequence_id = 1;
	pk->trusted_packet_sequence_id = SEQ_ID;
	pk->has_sequence_flags = 1;
	pk->sequence_flags =
		PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE;
	if (p->first) {
		pk->sequence_flags |=
			PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_INCREMENTAL_STATE_CLEARED;
		p->first = 0;
	}
	INTERNED_MSGS(&p->names, en, enp, perfetto__protos__event_name__init);
	INTERNED_MSGS(&p->cats, ec, ecp, perfetto__protos__event_category__init);
	INTERNED_MSGS(&p->anns, dn, dnp, perfetto__protos__debug_annotation_name__init);
	if (p->names.nnew || p->cats.nnew || p->anns.nnew) {
		id.n_event_names = p->names.nnew;
		id.event_names = enp;
		id.n_event_categories = p->cats.nnew;
		id.event_categories = ecp;
		id.n_debug_annotation_names = p->anns.nnew;
		id.debug_annotation_names = dnp;
		pk->interned_data = &id;
	}
	p->names.nnew = p->cats.nnew = p->anns.nnew = 0;
	{
		/* packed in one piece: protobuf-c's buffer callback per field costs more */
		size_t n = protobuf_c_message_get_packed_size(&pk->base);
		uint8_t small[1024],
			*b = n + FRAME_ROOM <= sizeof(small) ? small : malloc(n + FRAME_ROOM);
		int ret;

		if (!b) {
			p->failed = ENOMEM;
			errno = ENOMEM;
			return -1;
		}
		protobuf_c_message_pack(&pk->base, b + FRAME_ROOM);
		pk->interned_data = NULL;
		ret = send_packet(p, b, n);
		if (b != small)
			free(b);
		return ret;
	}
}

struct ft_perfetto *ft_perfetto_open(FILE *out)
{
	struct ft_perfetto *p = calloc(1, sizeof(*p));

	if (!p)
		return NULL;
	p->fb.base.append = fb_append;
	p->fb.out = out;
	p->first = 1;
	if (ft_htab_init(&p->names.h, sizeof(struct istr)) ||
	    ft_htab_init(&p->cats.h, sizeof(struct istr)) ||
	    ft_htab_init(&p->anns.h, sizeof(struct istr)) ||
	    ft_htab_init(&p->threads, sizeof(struct pthread_)) ||
	    ft_htab_init(&p->procs, sizeof(struct ft_hentry))) {
		ft_perfetto_close(p, NULL);
		errno = ENOMEM;
		return NULL;
	}
	return p;
}

static int describe_process(struct ft_perfetto *p, uint32_t pid, const char *name)
{
	TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	ProcessDescriptor pd = PERFETTO__PROTOS__PROCESS_DESCRIPTOR__INIT;

	if (!name && ft_htab_find(&p->procs, pid))
		return 0;
	if (!ft_htab_get(&p->procs, pid, 1)) {
		errno = ENOMEM;
		return -1;
	}
	td.has_uuid = 1;
	td.uuid = UUID_PROCESS | pid;
	pd.has_pid = 1;
	pd.pid = (int32_t)pid;
	pd.process_name = (char *)name;
	td.process = &pd;
	pk.track_descriptor = &td;
	if (!name)
		p->st.processes++;
	return emit(p, &pk);
}

/* The thread's state, its tracks described (again, with a new name). */
static struct pthread_ *describe_thread(struct ft_perfetto *p, struct pthread_ *t, uint32_t tid,
					uint32_t pid, const char *name);

static struct pthread_ *thread(struct ft_perfetto *p, uint32_t tid, uint32_t pid, const char *name)
{
	struct pthread_ *t = p->last_t;

	/* events come in runs of one thread: the last one's entry first */
	if (t && t->h.key == tid && t->described && !name)
		return t;
	p->last_t = NULL; /* ft_htab_get() may move every entry */
	t = ft_htab_get(&p->threads, tid, 1);
	if (!t) {
		errno = ENOMEM;
		return NULL;
	}
	if (!t->described || name)
		t = describe_thread(p, t, tid, pid, name);
	p->last_t = t;
	return t;
}

/* thread()'s track descriptor packet, for a new thread or a new name. */
static __attribute__((noinline)) struct pthread_ *describe_thread(struct ft_perfetto *p,
								  struct pthread_ *t, uint32_t tid,
								  uint32_t pid, const char *name)
{
	TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
	ThreadDescriptor th = PERFETTO__PROTOS__THREAD_DESCRIPTOR__INIT;

	if (!t->described) {
		t->pid = pid ? pid : tid;
		p->st.threads++;
	}
	t->described = 1;
	if (describe_process(p, t->pid, NULL))
		return NULL;
	td.has_uuid = 1;
	td.uuid = UUID_THREAD | tid;
	td.has_parent_uuid = 1;
	td.parent_uuid = UUID_PROCESS | t->pid;
	th.has_pid = 1;
	th.pid = (int32_t)t->pid;
	th.has_tid = 1;
	th.tid = (int32_t)tid;
	th.thread_name = (char *)name;
	td.thread = &th;
	pk.track_descriptor = &td;
	if (emit(p, &pk))
		return NULL;
	/* the table may have moved while emit() interned nothing: look again */
	return ft_htab_find(&p->threads, tid);
}

/* @pk at @ts carries @tev, an event of @type on the track @track. */
static void track_event(TracePacket *pk, TrackEvent *tev, uint64_t ts,
			Perfetto__Protos__TrackEvent__Type type, uint64_t track)
{
	pk->has_timestamp = 1;
	pk->timestamp = ts;
	tev->has_type = 1;
	tev->type = type;
	tev->has_track_uuid = 1;
	tev->track_uuid = track;
	pk->track_event = tev;
}

/*
 * Name @tev @name (or "?") and, when @cat is not NULL, put it in that
 * category, whose iid *@ci holds.  A string that could not be interned
 * gives iid 0, and emit() fails with ENOMEM.
 */
static void track_event_name(struct ft_perfetto *p, TrackEvent *tev, const char *name,
			     const char *cat, uint64_t *ci)
{
	tev->has_name_iid = 1;
	tev->name_iid = intern(&p->names, name ? name : "?");
	if (cat) {
		*ci = intern(&p->cats, cat);
		tev->n_category_iids = 1;
		tev->category_iids = ci;
	}
}

/*
 * emit() of a slice's packet with nothing new to intern and not the first
 * packet (the most of a trace), encoded here: a call's begin or end went
 * through protobuf-c's generic walk of the descriptors twice (size, then
 * pack), about 2,000 instructions, for a dozen bytes.  The bytes are
 * protobuf-c's: the fields in its order (by number), none packed.
 * name_iid 0: none (an end); ncat 0 or 1 category iids in *ci.
 */
#define SLICE_MAX 80 /* room for emit_slice()'s packet, its frame included (at most 60 bytes) */

static int emit_slice(struct ft_perfetto *p, uint64_t ts, uint32_t type, uint64_t uuid,
		      uint64_t name_iid, size_t ncat, const uint64_t *ci)
{
	struct fbuf *f = &p->fb;
	uint8_t *b, *ev;
	size_t n, tn;

	/*
	 * Made in place in the output buffer: the packet and its track event
	 * are shorter than 128 bytes, so each length is one byte, left free
	 * in front and filled at the end (no copy of the pieces).
	 */
	if (f->len + SLICE_MAX > sizeof(f->buf))
		fb_flush(f);
	b = f->buf + f->len;
	n = 2;		 /* the Trace's frame: tag 0x0a, then the packet's length */
	b[n++] = 8 << 3; /* TracePacket.timestamp */
	n += pb_varint(b + n, ts);
	b[n++] = 10 << 3; /* trusted_packet_sequence_id */
	n += pb_varint(b + n, SEQ_ID);
	b[n++] = 11 << 3 | 2; /* track_event, length-delimited (one byte) */
	ev = b + ++n;
	tn = 0;
	for (size_t i = 0; i < ncat; i++) {
		ev[tn++] = 3 << 3; /* TrackEvent.category_iids, varint */
		tn += pb_varint(ev + tn, ci[i]);
	}
	ev[tn++] = 9 << 3; /* type */
	tn += pb_varint(ev + tn, type);
	if (name_iid) {
		ev[tn++] = 10 << 3; /* name_iid */
		tn += pb_varint(ev + tn, name_iid);
	}
	ev[tn++] = 11 << 3; /* track_uuid */
	tn += pb_varint(ev + tn, uuid);
	ev[-1] = (uint8_t)tn;
	n += tn;
	b[n++] = 13 << 3; /* sequence_flags */
	n += pb_varint(b + n,
		       PERFETTO__PROTOS__TRACE_PACKET__SEQUENCE_FLAGS__SEQ_NEEDS_INCREMENTAL_STATE);
	b[0] = 0x0a;
	b[1] = (uint8_t)(n - 2);
	f->len += n;
	p->st.packets++;
	if (f->err) {
		p->failed = f->err;
		errno = p->failed;
		return -1;
	}
	return 0;
}

/* A slice's packet through protobuf-c: the first, or one with new interned names. */
static __attribute__((noinline)) int emit_slice_pb(struct ft_perfetto *p, uint64_t ts,
						   uint32_t type, uint64_t uuid, uint64_t name_iid,
						   size_t ncat, uint64_t *ci)
{
	TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackEvent tev = PERFETTO__PROTOS__TRACK_EVENT__INIT;

	track_event(&pk, &tev, ts, (Perfetto__Protos__TrackEvent__Type)type, uuid);
	tev.has_name_iid = name_iid != 0;
	tev.name_iid = name_iid;
	tev.n_category_iids = ncat;
	tev.category_iids = ncat ? ci : NULL;
	return emit(p, &pk);
}

/* The iid of an ENTRY's name: by its name_id when it has one (no hashing). */
static uint64_t entry_name_iid(struct ft_perfetto *p, const char *name, uint32_t key)
{
	uint64_t iid = ft_xmemo_get(&p->iid_by_key, key);

	if (iid)
		return iid;
	iid = intern(&p->names, name ? name : "?");
	if (iid)
		ft_xmemo_set(&p->iid_by_key, key, iid);
	return iid;
}

static int slice(struct ft_perfetto *p, uint64_t ts, uint32_t tid, int begin, const char *name,
		 uint32_t name_id, const char *cat)
{
	uint32_t type = begin ? PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_BEGIN
			      : PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_SLICE_END;
	uint64_t ci = 0, name_iid = 0;
	size_t ncat = 0;

	if (begin) {
		name_iid = entry_name_iid(p, name, name_id);
		if (cat) {
			ci = intern(&p->cats, cat);
			ncat = 1;
		}
		if (!name_iid) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (!p->failed && !p->first && !p->names.nnew && !p->cats.nnew && !p->anns.nnew &&
	    !p->names.oom && !p->cats.oom && !p->anns.oom)
		return emit_slice(p, ts, type, UUID_THREAD | tid, name_iid, ncat, &ci);
	return emit_slice_pb(p, ts, type, UUID_THREAD | tid, name_iid, ncat, &ci);
}

/* An int64 when the text is one decimal integer, for int_value. */
static int decimal(const char *s, int64_t *v)
{
	char *end;

	if (!*s || (*s != '-' && (*s < '0' || *s > '9')))
		return 0;
	errno = 0;
	*v = strtoll(s, &end, 10);
	return !*end && !errno;
}

static int instant(struct ft_perfetto *p, const struct ft_xevent *ev, uint64_t track,
		   const char *name, const char *cat, const struct ft_xarg *args, size_t nargs)
{
	TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackEvent tev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	DebugAnnotation da[MAX_ANN], *dap[MAX_ANN];
	uint64_t ci;
	size_t n = nargs < MAX_ANN ? nargs : MAX_ANN;

	track_event(&pk, &tev, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_INSTANT, track);
	track_event_name(p, &tev, name, cat, &ci);
	for (size_t i = 0; i < n; i++) {
		int64_t v;

		perfetto__protos__debug_annotation__init(&da[i]);
		da[i].has_name_iid = 1;
		da[i].name_iid = intern(&p->anns, args[i].key);
		if (decimal(args[i].value, &v)) {
			da[i].has_int_value = 1;
			da[i].int_value = v;
		} else {
			da[i].string_value = (char *)args[i].value;
		}
		dap[i] = &da[i];
	}
	tev.n_debug_annotations = n;
	tev.debug_annotations = dap;
	return emit(p, &pk);
}

static int lost(struct ft_perfetto *p, const struct ft_xevent *ev)
{
	TracePacket pk = PERFETTO__PROTOS__TRACE_PACKET__INIT;
	TrackEvent tev = PERFETTO__PROTOS__TRACK_EVENT__INIT;
	char num[32];
	struct ft_xarg a = { "count", num };

	if (!p->lost_track) {
		TrackDescriptor td = PERFETTO__PROTOS__TRACK_DESCRIPTOR__INIT;
		CounterDescriptor cd = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__INIT;

		td.has_uuid = 1;
		td.uuid = UUID_LOST;
		td.name = "lost events";
		cd.has_unit = 1;
		cd.unit = PERFETTO__PROTOS__COUNTER_DESCRIPTOR__UNIT__UNIT_COUNT;
		td.counter = &cd;
		pk.track_descriptor = &td;
		if (emit(p, &pk))
			return -1;
		pk.track_descriptor = NULL;
		p->lost_track = 1;
	}
	p->lost_total += ev->count;
	track_event(&pk, &tev, ev->ts, PERFETTO__PROTOS__TRACK_EVENT__TYPE__TYPE_COUNTER,
		    UUID_LOST);
	tev.has_counter_value = 1;
	tev.counter_value = (int64_t)p->lost_total;
	if (emit(p, &pk))
		return -1;
	p->st.lost_markers++;
	p->st.lost_events += ev->count;
	snprintf(num, sizeof(num), "%llu", (unsigned long long)ev->count);
	if (ev->tid && !thread(p, ev->tid, ev->pid, NULL))
		return -1;
	/* tid 0 (unknown, a kernel CPU's loss): the trace-global track */
	return instant(p, ev, ev->tid ? UUID_THREAD | ev->tid : 0, "lost events", "ftrail", &a, 1);
}

int ft_perfetto_event(struct ft_perfetto *p, const struct ft_xevent *ev)
{
	struct pthread_ *t;

	if (p->failed) {
		errno = p->failed;
		return -1;
	}
	if (ev->ts > p->last_ts)
		p->last_ts = ev->ts;
	switch (ev->type) {
	case FT_XEV_PROCESS_NAME:
		return describe_process(p, ev->pid, ev->name);
	case FT_XEV_THREAD_NAME:
		return thread(p, ev->tid, ev->pid, ev->name) ? 0 : -1;
	case FT_XEV_LOST:
		return lost(p, ev);
	default:
		break;
	}
	t = thread(p, ev->tid, ev->pid, NULL);
	if (!t)
		return -1;
	switch (ev->type) {
	case FT_XEV_ENTRY:
		t->depth++;
		p->st.slices++;
		return slice(p, ev->ts, ev->tid, 1, ev->name, ev->name_id, ev->cat);
	case FT_XEV_EXIT:
		if (!t->depth) {
			p->st.unmatched_exits++;
			return 0;
		}
		t->depth--;
		return slice(p, ev->ts, ev->tid, 0, NULL, 0, NULL);
	case FT_XEV_INSTANT:
		p->st.instants++;
		return instant(p, ev, UUID_THREAD | ev->tid, ev->name, ev->cat, ev->args,
			       ev->nargs);
	default:
		return 0;
	}
}

int ft_perfetto_close(struct ft_perfetto *p, struct ft_perfetto_stats *stats)
{
	int rc = 0;

	/* calls still open end with the trace */
	for (size_t i = 0; p->threads.tab && i < p->threads.cap && !p->failed; i++) {
		struct pthread_ *t = ft_htab_slot(&p->threads, i);

		while (t && t->depth && !p->failed) {
			t->depth--;
			p->st.closed_at_end++;
			slice(p, p->last_ts, (uint32_t)t->h.key, 0, NULL, 0, NULL);
		}
	}
	fb_flush(&p->fb);
	if (!p->failed && p->fb.err)
		p->failed = p->fb.err;
	if (p->failed) {
		errno = p->failed;
		rc = -1;
	}
	if (stats)
		*stats = p->st;
	itab_free(&p->names);
	itab_free(&p->cats);
	itab_free(&p->anns);
	ft_htab_free(&p->threads);
	ft_htab_free(&p->procs);
	ft_xmemo_free(&p->iid_by_key);
	free(p);
	return rc;
}
