// SPDX-License-Identifier: GPL-2.0
/*
 * CTF 1.8 writer (see export_ctf.h).  Every integer is declared byte
 * aligned (align = 8 bits), so fields follow each other without padding and
 * the binary layout is simply the fields in order, little endian.
 */
#include "analysis/export_ctf.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include <event-parse.h>

#include "analysis/kevents.h"
#include "analysis/trace.h"
#include "analysis/uevent_table.h"
#include "core/hashtab.h"
#include "core/version.h"

#define CTF_MAGIC 0xC1FC1FC1u
#define PACKET_BYTES (256u << 10) /* a packet ends once it holds this much */
/* packet header (32 bytes) and context (52 bytes), see the TSDL below */
#define HDR_BYTES 32u
#define CTX_BYTES 52u

/* stream classes */
enum {
	SC_UST = 0,
	SC_KERNEL = 1,
	SC_STACKMAP = 2
};

/* fixed event classes; user events from CLS_UEV, kernel ones from CLS_KERNEL */
enum {
	CLS_ENTRY = 0,
	CLS_EXIT,
	CLS_FUNC,
	CLS_STACK,
	CLS_MARKER,
	CLS_BINMARKER,
	CLS_COMM,
	CLS_FORK,
	CLS_EXEC,
	CLS_EXIT_TASK,
	CLS_SIGNAL,
	CLS_TRACING,
	CLS_UEV_UNKNOWN,
	CLS_MAP_ENTRY,
	CLS_UEV = 100,
	CLS_KERNEL = 10000,
};

struct cstream {
	int fd; /* -1 until its first packet */
	char name[32];
	uint32_t sclass;
	uint64_t instance;
	uint32_t cpu;
	unsigned char *buf; /* the packet being filled, header included */
	size_t len, cap;
	uint64_t ts_begin, ts_end;
	uint64_t nev;		/* events in the current packet */
	uint64_t seq;		/* packets written */
	uint64_t discarded;	/* events_discarded for the current packet */
	uint64_t discarded_out; /* ... as the last packet written said */
	uint64_t ts_last;	/* last timestamp written in this stream */
};

struct tpid {
	struct ft_hentry h; /* key: tid */
	uint32_t pid;
};

struct fcache { /* func_of() */
	uint64_t addr;
	char *name;
	size_t len;
};

struct kclass {
	struct ft_hentry h; /* key: tep event id */
	uint32_t cls;
	struct tep_event *ev;
};

struct ctf {
	int dirfd;
	unsigned char uuid[16];
	struct ft_trace *t;
	struct ft_ksource ks;
	struct ft_trace_source src;
	struct ft_uev_table ut;
	struct tep_event **kev; /* the kernel formats, in class order */
	size_t nkev;
	struct ft_htab kcls; /* struct kclass */
	struct ft_htab tids; /* struct tpid: processes of threads seen in user records */
	struct fcache *fc;   /* by fid, nr_fc of them (func_of()) */
	size_t nr_fc;
	struct fcache one; /* func_of() for fids beyond */
	/* user_event()'s thread of the last event: its entry and name (again
	 * at another thread or a COMM event, which may rename or move them) */
	uint32_t last_tid;
	struct tpid *last_tp; /* NULL: none yet */
	const char *comm;
	size_t comm_len;
	struct ft_htab mapids; /* stack ids described: key map << 32 | id */
	struct cstream ust, stackmap;
	struct cstream *kcpu; /* per CPU */
	size_t nkcpu;
	struct ft_ctf_stats *st;
	int err; /* errno of the first failure */
	char *errs;
	size_t errlen;
	char name[1024], tmp[4096];
};

static void fail(struct ctf *c, int e)
{
	if (!c->err)
		c->err = e ? e : EIO;
}

/* --- binary ---------------------------------------------------------- */

/* put()'s slow path: room for n more bytes in s.  0, or -1 (failed). */
static __attribute__((noinline)) int put_grow(struct cstream *s, struct ctf *c, size_t n)
{
	size_t cap = s->cap ? s->cap : PACKET_BYTES + 4096;
	unsigned char *b;

	while (cap < s->len + n)
		cap *= 2;
	b = realloc(s->buf, cap);
	if (!b) {
		fail(c, ENOMEM);
		return -1;
	}
	s->buf = b;
	s->cap = cap;
	return 0;
}

/* Inline: with a constant n (the fixed-size fields) the copy is one store. */
static inline void put(struct cstream *s, struct ctf *c, const void *p, size_t n)
{
	if (s->len + n > s->cap && put_grow(s, c, n) < 0)
		return;
	memcpy(s->buf + s->len, p, n);
	s->len += n;
}

/* little endian, as the metadata declares (x86-64 is) */
static void put_u8(struct cstream *s, struct ctf *c, uint8_t v)
{
	put(s, c, &v, 1);
}
static void put_u32(struct cstream *s, struct ctf *c, uint32_t v)
{
	put(s, c, &v, 4);
}
static void put_u64(struct cstream *s, struct ctf *c, uint64_t v)
{
	put(s, c, &v, 8);
}

/* a string field: the text up to its first NUL or n bytes, then NUL */
static void put_strn(struct cstream *s, struct ctf *c, const char *p, size_t n)
{
	size_t l = p ? strnlen(p, n) : 0;

	put(s, c, p ? p : "", l);
	put_u8(s, c, 0);
}

static void put_str(struct cstream *s, struct ctf *c, const char *p)
{
	if (!p)
		p = "";
	put(s, c, p, strlen(p) + 1); /* with its NUL: one scan, one copy */
}

static void pack_at(unsigned char *b, uint64_t v, size_t n)
{
	memcpy(b, &v, n);
}

/* Start a packet in s's buffer: header, and a context filled at its end. */
static void packet_begin(struct ctf *c, struct cstream *s)
{
	s->len = 0;
	s->nev = 0;
	put_u32(s, c, CTF_MAGIC);
	put(s, c, c->uuid, 16);
	put_u32(s, c, s->sclass);
	put_u64(s, c, s->instance);
	for (unsigned int i = 0; i < CTX_BYTES; i++)
		put_u8(s, c, 0);
}

/* Write s's packet out (even empty: a raised discarded count needs one). */
static void packet_end(struct ctf *c, struct cstream *s)
{
	unsigned char *ctx;

	if (c->err || !s->buf)
		return;
	if (s->fd < 0) {
		s->fd = openat(c->dirfd, s->name,
			       O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (s->fd < 0) {
			fail(c, errno);
			return;
		}
	}
	if (!s->nev)
		s->ts_begin = s->ts_end = s->ts_last;
	ctx = s->buf + HDR_BYTES;
	pack_at(ctx, s->ts_begin, 8);
	pack_at(ctx + 8, s->ts_end, 8);
	pack_at(ctx + 16, (uint64_t)s->len * 8, 8); /* content_size, bits */
	pack_at(ctx + 24, (uint64_t)s->len * 8, 8); /* packet_size, bits: no padding */
	pack_at(ctx + 32, s->seq, 8);
	pack_at(ctx + 40, s->discarded, 8);
	pack_at(ctx + 48, s->cpu, 4);
	for (size_t off = 0; off < s->len;) {
		ssize_t w = write(s->fd, s->buf + off, s->len - off);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			fail(c, w < 0 ? errno : EIO);
			return;
		}
		off += (size_t)w;
	}
	c->st->packets++;
	c->st->bytes += s->len;
	s->discarded_out = s->discarded;
	s->seq++;
	packet_begin(c, s);
}

static void stream_init(struct cstream *s, const char *name, uint32_t sclass, uint64_t inst,
			uint32_t cpu)
{
	memset(s, 0, sizeof(*s));
	s->fd = -1;
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->sclass = sclass;
	s->instance = inst;
	s->cpu = cpu;
}

/*
 * Event header and the stream's event context; the caller adds the
 * payload, then calls event_end().
 */
static void event_begin_n(struct ctf *c, struct cstream *s, uint32_t cls, uint64_t ts, uint32_t pid,
			  uint32_t tid, const char *comm, size_t comm_len);

static void event_begin(struct ctf *c, struct cstream *s, uint32_t cls, uint64_t ts, uint32_t pid,
			uint32_t tid, const char *comm)
{
	event_begin_n(c, s, cls, ts, pid, tid, comm ? comm : "", comm ? strlen(comm) : 0);
}

/* event_begin() with comm's length known (comm not NULL). */
static void event_begin_n(struct ctf *c, struct cstream *s, uint32_t cls, uint64_t ts, uint32_t pid,
			  uint32_t tid, const char *comm, size_t comm_len)
{
	if (!s->buf)
		packet_begin(c, s);
	if (ts < s->ts_last)
		ts = s->ts_last; /* a stream's clock never goes back */
	if (!s->nev)
		s->ts_begin = ts;
	s->ts_end = s->ts_last = ts;
	put_u32(s, c, cls);
	put_u64(s, c, ts);
	put_u32(s, c, pid);
	put_u32(s, c, tid);
	put(s, c, comm, comm_len + 1);
}

static void event_end(struct ctf *c, struct cstream *s)
{
	s->nev++;
	c->st->events++;
	if (s->len >= PACKET_BYTES)
		packet_end(c, s);
}

/* count events lost in s at ts: between its current packet and the next */
static void discard(struct ctf *c, struct cstream *s, uint64_t n, uint64_t ts)
{
	if (!s->buf)
		packet_begin(c, s);
	if (ts > s->ts_last && !s->nev)
		s->ts_last = ts;
	/* the counter of the first packet is the base readers count from */
	if (s->nev || !s->seq)
		packet_end(c, s);
	s->discarded += n;
}

/* --- metadata -------------------------------------------------------- */

/* a TSDL string literal's body */
static const char *tsdl_str(struct ctf *c, const char *s)
{
	size_t n = 0;

	for (; s && *s && n + 3 < sizeof(c->tmp); s++) {
		unsigned char ch = (unsigned char)*s;

		if (ch == '"' || ch == '\\')
			c->tmp[n++] = '\\';
		c->tmp[n++] = ch < 0x20 ? '?' : (char)ch;
	}
	c->tmp[n] = 0;
	return c->tmp;
}

/* a field name: '_' + the name with anything outside [A-Za-z0-9_] as '_' */
static const char *tsdl_id(struct ctf *c, const char *s)
{
	size_t n = 0;

	c->tmp[n++] = '_';
	for (; s && *s && n + 2 < sizeof(c->tmp); s++) {
		unsigned char ch = (unsigned char)*s;

		c->tmp[n++] = (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') ||
					      (ch >= '0' && ch <= '9') || ch == '_'
				      ? (char)ch
				      : '_';
	}
	c->tmp[n] = 0;
	return c->tmp;
}

static void uuid_text(const unsigned char *u, char *out)
{
	sprintf(out, "%02x%02x%02x%02x-%02x%02x-%02x%02x-%02x%02x-%02x%02x%02x%02x%02x%02x", u[0],
		u[1], u[2], u[3], u[4], u[5], u[6], u[7], u[8], u[9], u[10], u[11], u[12], u[13],
		u[14], u[15]);
}

static const struct {
	const char *name;
	int stream;
	const char *fields; /* TSDL members */
} fixed_events[] = {
	[CLS_ENTRY] = { "lttng_ust_cyg_profile:func_entry", SC_UST,
			"xuint64_t _addr; xuint64_t _call_site; string _name; int32_t _depth;" },
	[CLS_EXIT] = { "lttng_ust_cyg_profile:func_exit", SC_UST,
		       "xuint64_t _addr; xuint64_t _call_site; string _name; int32_t _depth; "
		       "uint64_t _duration; uint8_t _has_entry;" },
	[CLS_FUNC] = { "ftrail:function", SC_UST,
		       "xuint64_t _addr; string _name; xuint64_t _parent_addr; string _parent;" },
	[CLS_STACK] = { "ftrail:stack", SC_UST,
			"int64_t _stack_id; uint32_t _depth; xuint64_t _ips[_depth];" },
	[CLS_MARKER] = { "ftrail:trace_marker", SC_UST, "string _text;" },
	[CLS_BINMARKER] = { "ftrail:trace_marker_raw", SC_UST,
			    "uint32_t _len; uint8_t _data[_len];" },
	[CLS_COMM] = { "ftrail:comm", SC_UST, "string _comm;" },
	[CLS_FORK] = { "ftrail:fork", SC_UST, "int64_t _child;" },
	[CLS_EXEC] = { "ftrail:exec", SC_UST, "string _program;" },
	[CLS_EXIT_TASK] = { "ftrail:exit", SC_UST, "int64_t _status;" },
	[CLS_SIGNAL] = { "ftrail:signal", SC_UST, "int64_t _signal;" },
	[CLS_TRACING] = { "ftrail:tracing", SC_UST, "uint8_t _on;" },
	[CLS_UEV_UNKNOWN] = { "ftrail:user_event", SC_UST,
			      "uint32_t _id; uint32_t _len; uint8_t _data[_len];" },
	[CLS_MAP_ENTRY] = { "ftrail:stack_map_entry", SC_STACKMAP,
			    "uint32_t _map; uint64_t _stack_id; uint32_t _depth; "
			    "xuint64_t _ips[_depth]; string _frames;" },
};

/* One user event class: fields by type (ftrail.h's enum ftrail_type). */
static void meta_uevent(struct ctf *c, FILE *f, const struct ft_uev_fmt *u, uint32_t cls)
{
	fprintf(f, "event {\n\tname = \"%s:", tsdl_str(c, u->sys));
	fprintf(f, "%s\";\n\tid = %u;\n\tstream_id = %d;\n\tfields := struct {\n",
		tsdl_str(c, u->name), cls, SC_UST);
	for (uint32_t i = 0; i < u->nr_fields; i++) {
		const struct ftrail_field *fl = &u->fields[i];
		const char *id = tsdl_id(c, u->fnames[i]);

		switch (fl->type) {
		case FTRAIL_T_STRING:
			fprintf(f, "\t\tstring %s;\n", id);
			break;
		case FTRAIL_T_BYTES:
			fprintf(f, "\t\tuint32_t %s_len;\n", id);
			fprintf(f, "\t\tuint8_t %s[%s_len];\n", id, id);
			break;
		case FTRAIL_T_ARRAY:
			fprintf(f, "\t\tuint8_t %s[%u];\n", id, fl->size);
			break;
		case FTRAIL_T_PTR:
			fprintf(f, "\t\txuint64_t %s;\n", id);
			break;
		default:
			fprintf(f, "\t\tinteger { size = %u; align = 8; signed = %s; } %s;\n",
				fl->size <= 8 ? fl->size * 8u : 64u,
				fl->is_signed ? "true" : "false", id);
		}
	}
	fprintf(f, "\t};\n};\n\n");
}

/* The kind of a kernel field, shared by the metadata and the writer. */
enum kf {
	KF_INT,
	KF_XINT,
	KF_STR,
	KF_ARRAY,
	KF_SEQ
};

static enum kf kfield_kind(const struct tep_format_field *fl)
{
	if (fl->flags & TEP_FIELD_IS_STRING)
		return KF_STR;
	if (fl->flags & TEP_FIELD_IS_DYNAMIC)
		return KF_SEQ;
	if ((fl->flags & TEP_FIELD_IS_ARRAY) || !fl->size || fl->size > 8 ||
	    (fl->size & (fl->size - 1)))
		return KF_ARRAY;
	return fl->flags & TEP_FIELD_IS_POINTER ? KF_XINT : KF_INT;
}

static void meta_kevent(struct ctf *c, FILE *f, struct tep_event *e, uint32_t cls)
{
	fprintf(f, "event {\n\tname = \"%s\";\n\tid = %u;\n\tstream_id = %d;\n",
		tsdl_str(c, e->name), cls, SC_KERNEL);
	fprintf(f, "\tfields := struct {\n");
	for (struct tep_format_field *fl = e->format.fields; fl; fl = fl->next) {
		const char *id = tsdl_id(c, fl->name);

		switch (kfield_kind(fl)) {
		case KF_STR:
			fprintf(f, "\t\tstring %s;\n", id);
			break;
		case KF_SEQ:
			fprintf(f, "\t\tuint32_t %s_len;\n", id);
			fprintf(f, "\t\tuint8_t %s[%s_len];\n", id, id);
			break;
		case KF_ARRAY:
			fprintf(f, "\t\tuint8_t %s[%u];\n", id, fl->size);
			break;
		case KF_XINT:
			fprintf(f,
				"\t\tinteger { size = %u; align = 8; signed = false; base = 16; } %s;\n",
				fl->size * 8, id);
			break;
		case KF_INT:
			fprintf(f, "\t\tinteger { size = %u; align = 8; signed = %s; } %s;\n",
				fl->size * 8, (fl->flags & TEP_FIELD_IS_SIGNED) ? "true" : "false",
				id);
			break;
		}
	}
	/* an empty struct is not valid TSDL: formats without fields get a pad */
	if (!e->format.fields)
		fprintf(f, "\t\tuint8_t _pad;\n");
	fprintf(f, "\t};\n};\n\n");
}

static int write_metadata(struct ctf *c, const char *source)
{
	static const char *const ctx = "\tpacket.context := struct {\n"
				       "\t\tuint64_clock_monotonic_t timestamp_begin;\n"
				       "\t\tuint64_clock_monotonic_t timestamp_end;\n"
				       "\t\tuint64_t content_size;\n"
				       "\t\tuint64_t packet_size;\n"
				       "\t\tuint64_t packet_seq_num;\n"
				       "\t\tuint64_t events_discarded;\n"
				       "\t\tuint32_t cpu_id;\n"
				       "\t};\n"
				       "\tevent.header := struct {\n"
				       "\t\tuint32_t id;\n"
				       "\t\tuint64_clock_monotonic_t timestamp;\n"
				       "\t};\n";
	char u[40];
	int fd = openat(c->dirfd, "metadata", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC,
			0600);
	FILE *f = fd < 0 ? NULL : fdopen(fd, "w");

	if (!f) {
		if (fd >= 0)
			close(fd);
		fail(c, errno);
		return -1;
	}
	uuid_text(c->uuid, u);
	fprintf(f, "/* CTF 1.8 */\n\n"
		   "typealias integer { size = 8; align = 8; signed = false; } := uint8_t;\n"
		   "typealias integer { size = 16; align = 8; signed = false; } := uint16_t;\n"
		   "typealias integer { size = 32; align = 8; signed = false; } := uint32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; } := uint64_t;\n"
		   "typealias integer { size = 64; align = 8; signed = false; base = 16; } := "
		   "xuint64_t;\n"
		   "typealias integer { size = 32; align = 8; signed = true; } := int32_t;\n"
		   "typealias integer { size = 64; align = 8; signed = true; } := int64_t;\n\n");
	fprintf(f,
		"trace {\n\tmajor = 1;\n\tminor = 8;\n\tuuid = \"%s\";\n\tbyte_order = le;\n"
		"\tpacket.header := struct {\n\t\tuint32_t magic;\n\t\tuint8_t uuid[16];\n"
		"\t\tuint32_t stream_id;\n\t\tuint64_t stream_instance_id;\n\t};\n};\n\n",
		u);
	fprintf(f, "env {\n\tdomain = \"ust\";\n\ttracer_name = \"lttng-ust\";\n"
		   "\ttracer_major = 2;\n\ttracer_minor = 13;\n");
	fprintf(f, "\tproducer = \"ftrail %s\";\n", FTRAIL_VERSION);
	fprintf(f, "\ttrace_name = \"%s\";\n", tsdl_str(c, source));
	fprintf(f, "\ttracer = \"%s\";\n};\n\n", tsdl_str(c, ft_trace_tracer(c->t)));
	fprintf(f,
		"clock {\n\tname = \"monotonic\";\n\tuuid = \"%s\";\n"
		"\tdescription = \"ftrail trace clock (TSC calibrated to ns)\";\n"
		"\tfreq = 1000000000;\n\tprecision = 1;\n\toffset_s = 0;\n\toffset = 0;\n"
		"\tabsolute = FALSE;\n};\n\n",
		u);
	fprintf(f, "typealias integer { size = 64; align = 8; signed = false; "
		   "map = clock.monotonic.value; } := uint64_clock_monotonic_t;\n\n");
	fprintf(f,
		"stream {\n\tid = %d;\n%s\tevent.context := struct {\n\t\tint32_t _vpid;\n"
		"\t\tint32_t _vtid;\n\t\tstring _procname;\n\t};\n};\n\n",
		SC_UST, ctx);
	fprintf(f,
		"stream {\n\tid = %d;\n%s\tevent.context := struct {\n\t\tint32_t _pid;\n"
		"\t\tint32_t _tid;\n\t\tstring _procname;\n\t\tint64_t _kernel_stack_id;\n"
		"\t\tint64_t _user_stack_id;\n\t};\n};\n\n",
		SC_KERNEL, ctx);
	fprintf(f,
		"stream {\n\tid = %d;\n%s\tevent.context := struct {\n\t\tint32_t _vpid;\n"
		"\t\tint32_t _vtid;\n\t\tstring _procname;\n\t};\n};\n\n",
		SC_STACKMAP, ctx);
	for (size_t i = 0; i < sizeof(fixed_events) / sizeof(fixed_events[0]); i++)
		fprintf(f,
			"event {\n\tname = \"%s\";\n\tid = %zu;\n\tstream_id = %d;\n"
			"\tfields := struct { %s };\n};\n\n",
			fixed_events[i].name, i, fixed_events[i].stream, fixed_events[i].fields);
	for (size_t i = 0; i < c->ut.nr; i++)
		meta_uevent(c, f, &c->ut.fmts[i], CLS_UEV + (uint32_t)i);
	for (size_t i = 0; i < c->nkev; i++)
		meta_kevent(c, f, c->kev[i], CLS_KERNEL + (uint32_t)i);
	if (ferror(f) | fclose(f)) {
		fail(c, errno);
		return -1;
	}
	return 0;
}

/* --- events ---------------------------------------------------------- */

static const char *fname(struct ctf *c, uint32_t fid)
{
	if (fid == FT_FID_UNKNOWN)
		return "[unknown]";
	return ft_trace_func_name(c->t, fid, 0, c->name, sizeof(c->name));
}

/*
 * What an entry or exit of fid writes of it -- address, name and its
 * length -- looked up once per function (a trace names few functions,
 * each many times).  Never NULL: without memory for the cache, c->one.
 */
static const struct fcache *func_of(struct ctf *c, uint32_t fid)
{
	struct fcache *f = &c->one;

	if (fid < c->nr_fc && c->fc[fid].name)
		return &c->fc[fid];
	if (!c->fc && ft_trace_nr_funcs(c->t)) {
		c->fc = calloc(ft_trace_nr_funcs(c->t), sizeof(*c->fc));
		c->nr_fc = c->fc ? ft_trace_nr_funcs(c->t) : 0;
	}
	if (fid < c->nr_fc)
		f = &c->fc[fid];
	f->addr = fid == FT_FID_UNKNOWN ? 0 : ft_trace_func_addr(c->t, fid);
	free(f->name);
	f->name = strdup(fname(c, fid));
	if (!f->name)
		fail(c, ENOMEM); /* the export stops; put() writes "" meanwhile */
	f->len = f->name ? strlen(f->name) : 0;
	return f;
}

/* Describe stack (map, id) in the side stream before its first use. */
static void map_entry(struct ctf *c, int map, uint64_t id, const uint64_t *ips, uint32_t nr,
		      uint64_t ts, uint32_t pid, uint32_t tid, const char *comm)
{
	struct ft_hentry *h = ft_htab_find(&c->mapids, (uint64_t)map << 32 | id);
	struct cstream *s = &c->stackmap;
	char frame[512];

	if (h)
		return;
	if (!ft_htab_get(&c->mapids, (uint64_t)map << 32 | id, 1)) {
		fail(c, ENOMEM);
		return;
	}
	event_begin(c, s, CLS_MAP_ENTRY, ts, pid, tid, comm);
	put_u32(s, c, (uint32_t)map);
	put_u64(s, c, id);
	put_u32(s, c, nr);
	for (uint32_t i = 0; i < nr; i++)
		put_u64(s, c, ips[i]);
	for (uint32_t i = 0; i < nr; i++) {
		uint64_t off;
		const char *n = map == 1 && c->ks.k ? ft_kevents_sym_name(c->ks.k, ips[i], &off)
						    : NULL;

		if (n) {
			snprintf(frame, sizeof(frame), "%s", n);
		} else if (map == 1) {
			snprintf(frame, sizeof(frame), "0x%" PRIx64, ips[i]);
		} else {
			ft_trace_addr_name(c->t, ips[i], 0, frame, sizeof(frame));
		}
		if (i)
			put(s, c, " <- ", 4);
		put(s, c, frame, strlen(frame));
	}
	put_u8(s, c, 0);
	event_end(c, s);
	c->st->map_entries++;
}

static void user_event(struct ctf *c, const struct ft_event *e)
{
	struct cstream *s = &c->ust;
	const struct ft_uev_fmt *u;
	const char *comm;
	struct tpid *tp;
	uint32_t cls;

	if (e->type == FT_EV_LOST) {
		discard(c, s, e->count, e->ts);
		c->st->lost_user += e->count;
		return;
	}
	if (!c->last_tp || e->tid != c->last_tid || e->type == FT_EV_COMM) {
		tp = ft_htab_get(&c->tids, e->tid, 1);
		if (!tp) {
			fail(c, ENOMEM);
			return;
		}
		c->last_tp = tp;
		c->last_tid = e->tid;
		c->comm = ft_trace_comm(c->t, e->tid);
		if (!c->comm)
			c->comm = "";
		c->comm_len = strlen(c->comm);
	}
	tp = c->last_tp;
	tp->pid = e->pid;
	comm = c->comm;
	switch (e->type) {
	case FT_EV_ENTRY:
	case FT_EV_EXIT: {
		const struct fcache *f = func_of(c, e->fid);

		event_begin_n(c, s, e->type == FT_EV_ENTRY ? CLS_ENTRY : CLS_EXIT, e->ts, e->pid,
			      e->tid, comm, c->comm_len);
		put_u64(s, c, f->addr);
		put_u64(s, c, 0); /* call_site: not recorded */
		put(s, c, f->name ? f->name : "", f->len + 1);
		put_u32(s, c, (uint32_t)e->depth);
		if (e->type == FT_EV_EXIT) {
			put_u64(s, c, e->has_entry ? e->duration : 0);
			put_u8(s, c, e->has_entry ? 1 : 0);
			c->st->exits++;
		} else {
			c->st->entries++;
		}
		break;
	}
	case FT_EV_FUNC:
		event_begin(c, s, CLS_FUNC, e->ts, e->pid, e->tid, comm);
		put_u64(s, c, ft_trace_func_addr(c->t, e->fid));
		put_str(s, c, fname(c, e->fid));
		if (e->parent_fid != FT_FID_UNKNOWN) {
			put_u64(s, c, ft_trace_func_addr(c->t, e->parent_fid));
			put_str(s, c, fname(c, e->parent_fid));
		} else {
			put_u64(s, c, e->parent_addr);
			put_str(s, c,
				ft_trace_addr_name(c->t, e->parent_addr, 0, c->name,
						   sizeof(c->name)));
		}
		break;
	case FT_EV_STACK:
		if (e->stack_id >= 0)
			map_entry(c, 0, (uint64_t)e->stack_id, e->ips, e->nr_ips, e->ts, e->pid,
				  e->tid, comm);
		event_begin(c, s, CLS_STACK, e->ts, e->pid, e->tid, comm);
		put_u64(s, c, (uint64_t)e->stack_id);
		/* the frames of a mapped stack are in the side stream */
		put_u32(s, c, e->stack_id >= 0 ? 0 : e->nr_ips);
		for (uint32_t i = 0; e->stack_id < 0 && i < e->nr_ips; i++)
			put_u64(s, c, e->ips[i]);
		c->st->stacks++;
		break;
	case FT_EV_MARKER:
		event_begin(c, s, CLS_MARKER, e->ts, e->pid, e->tid, comm);
		put_strn(s, c, e->data, e->len);
		break;
	case FT_EV_BINMARKER:
		event_begin(c, s, CLS_BINMARKER, e->ts, e->pid, e->tid, comm);
		put_u32(s, c, (uint32_t)e->len);
		put(s, c, e->data, e->len);
		break;
	case FT_EV_EVENT:
		u = ft_uev_table_find(&c->ut, e->event_id);
		if (!u) {
			event_begin(c, s, CLS_UEV_UNKNOWN, e->ts, e->pid, e->tid, comm);
			put_u32(s, c, e->event_id);
			put_u32(s, c, (uint32_t)e->len);
			put(s, c, e->data, e->len);
			c->st->uevents++;
			break;
		}
		cls = CLS_UEV + (uint32_t)(u - c->ut.fmts);
		event_begin(c, s, cls, e->ts, e->pid, e->tid, comm);
		for (uint32_t i = 0; i < u->nr_fields; i++) {
			const struct ftrail_field *f = &u->fields[i];
			/* offsets count from the record start; data starts after the id */
			size_t off = f->offset >= 4 ? f->offset - 4u : SIZE_MAX;
			const unsigned char *d = e->data;
			int ok = off != SIZE_MAX && off + f->size <= e->len;
			uint64_t v = 0;
			uint32_t loc = 0, o, l;

			switch (f->type) {
			case FTRAIL_T_STRING:
			case FTRAIL_T_BYTES:
				if (ok)
					memcpy(&loc, d + off, 4);
				o = loc & 0xffff;
				l = loc >> 16;
				if (!ok || o < 4 || o - 4 + (size_t)l > e->len)
					o = 4, l = 0;
				if (f->type == FTRAIL_T_STRING) {
					put_strn(s, c, (const char *)d + o - 4, l);
				} else {
					put_u32(s, c, l);
					put(s, c, d + o - 4, l);
				}
				break;
			case FTRAIL_T_ARRAY:
				for (uint32_t k = 0; k < f->size; k++)
					put_u8(s, c, ok ? d[off + k] : 0);
				break;
			default:
				if (ok)
					memcpy(&v, d + off, f->size <= 8 ? f->size : 8);
				put(s, c, &v,
				    f->type == FTRAIL_T_PTR ? 8
				    : f->size <= 8	    ? f->size
							    : 8);
			}
		}
		c->st->uevents++;
		break;
	case FT_EV_COMM:
		event_begin(c, s, CLS_COMM, e->ts, e->pid, e->tid, comm);
		put_strn(s, c, e->data, e->len);
		break;
	case FT_EV_EXEC:
		event_begin(c, s, CLS_EXEC, e->ts, e->pid, e->tid, comm);
		put_strn(s, c, e->data, e->len);
		break;
	case FT_EV_FORK:
	case FT_EV_TEXIT:
	case FT_EV_SIGNAL:
		event_begin(c, s,
			    e->type == FT_EV_FORK    ? CLS_FORK
			    : e->type == FT_EV_TEXIT ? CLS_EXIT_TASK
						     : CLS_SIGNAL,
			    e->ts, e->pid, e->tid, comm);
		put_u64(s, c, e->count);
		break;
	case FT_EV_TRACE_ON:
	case FT_EV_TRACE_OFF:
		event_begin(c, s, CLS_TRACING, e->ts, e->pid, e->tid, comm);
		put_u8(s, c, e->type == FT_EV_TRACE_ON);
		break;
	default:
		return;
	}
	event_end(c, s);
}

static struct cstream *kstream(struct ctf *c, int cpu)
{
	size_t n = cpu < 0 ? 0 : (size_t)cpu;

	if (n >= c->nkcpu) {
		size_t nn = n + 1 > c->nkcpu * 2 ? n + 1 : c->nkcpu * 2;
		struct cstream *v = realloc(c->kcpu, nn * sizeof(*v));

		if (!v) {
			fail(c, ENOMEM);
			return NULL;
		}
		for (size_t i = c->nkcpu; i < nn; i++) {
			char name[32];

			snprintf(name, sizeof(name), "kernel_%zu", i);
			stream_init(&v[i], name, SC_KERNEL, i, (uint32_t)i);
		}
		c->kcpu = v;
		c->nkcpu = nn;
	}
	return &c->kcpu[n];
}

static void kernel_event(struct ctf *c, const struct ft_event *e)
{
	const struct ft_kevent *k = e->priv;
	struct cstream *s = kstream(c, k->cpu);
	const unsigned char *d;
	struct kclass *kc;
	struct tpid *tp;
	size_t size;
	uint32_t pid;

	if (!s)
		return;
	if (k->kind == FT_KEV_MISSED) {
		discard(c, s, k->missed, e->ts);
		c->st->lost_kernel += k->missed;
		return;
	}
	if (k->kind != FT_KEV_EVENT || !k->event || !k->record)
		return;
	kc = ft_htab_find(&c->kcls, (uint64_t)k->event->id);
	if (!kc)
		return; /* not in the formats listed at open: cannot happen */
	tp = ft_htab_find(&c->tids, (uint64_t)k->pid);
	pid = tp ? tp->pid : (uint32_t)k->pid;
	if (k->kstack_id >= 0 && k->kstack_nr)
		map_entry(c, 1, (uint64_t)k->kstack_id, k->kstack, k->kstack_nr, e->ts, pid,
			  (uint32_t)k->pid, k->comm);
	if (k->ustack_id >= 0 && k->ustack_nr)
		map_entry(c, 1, (uint64_t)k->ustack_id, k->ustack, k->ustack_nr, e->ts, pid,
			  (uint32_t)k->pid, k->comm);
	event_begin(c, s, kc->cls, e->ts, pid, (uint32_t)k->pid, k->comm);
	put_u64(s, c, (uint64_t)(int64_t)(k->kstack_nr ? k->kstack_id : -1));
	put_u64(s, c, (uint64_t)(int64_t)(k->ustack_nr ? k->ustack_id : -1));
	d = k->record->data;
	size = (size_t)(k->record->size > 0 ? k->record->size : 0);
	for (struct tep_format_field *fl = kc->ev->format.fields; fl; fl = fl->next) {
		size_t off = (size_t)fl->offset, n = (size_t)fl->size;
		int ok = off + n <= size;
		uint32_t loc = 0;
		uint64_t v = 0;

		switch (kfield_kind(fl)) {
		case KF_STR:
		case KF_SEQ:
			if (fl->flags & TEP_FIELD_IS_DYNAMIC) {
				/* __data_loc: u32, offset in the low half, length in the high */
				if (off + 4 <= size)
					memcpy(&loc, d + off, 4);
				off = loc & 0xffff;
				n = loc >> 16;
				if (fl->flags & TEP_FIELD_IS_RELATIVE)
					off += (size_t)fl->offset + 4;
				ok = off + n <= size;
			}
			if (!ok)
				n = 0;
			if (kfield_kind(fl) == KF_STR) {
				put_strn(s, c, (const char *)d + off, n);
			} else {
				put_u32(s, c, (uint32_t)n);
				put(s, c, d + off, n);
			}
			break;
		case KF_ARRAY:
			for (size_t i = 0; i < n; i++)
				put_u8(s, c, ok ? d[off + i] : 0);
			break;
		default:
			if (ok)
				memcpy(&v, d + off, n);
			put(s, c, &v, n);
		}
	}
	if (!kc->ev->format.fields)
		put_u8(s, c, 0);
	event_end(c, s);
	c->st->kernel++;
}

/* --- entry ----------------------------------------------------------- */

/* The stream's last packet: one with events, or one whose counter moved. */
static void last_packet(struct ctf *c, struct cstream *s)
{
	if (s->buf && (s->nev || !s->seq || s->discarded != s->discarded_out))
		packet_end(c, s);
}

static int kernel_classes(struct ctf *c)
{
	struct tep_event **evs = tep_list_events(ft_kevents_tep(c->ks.k), TEP_EVENT_SORT_ID);
	size_t n = 0;

	while (evs && evs[n])
		n++;
	c->kev = calloc(n + 1, sizeof(*c->kev));
	if (!c->kev)
		return -1;
	for (size_t i = 0; i < n; i++) {
		struct kclass *kc = ft_htab_get(&c->kcls, (uint64_t)evs[i]->id, 1);

		if (!kc)
			return -1;
		kc->cls = CLS_KERNEL + (uint32_t)i;
		kc->ev = evs[i];
		c->kev[c->nkev++] = evs[i];
	}
	return 0;
}

int ft_ctf_export(const char *path, const char *dir, int kernel, struct ft_progress *progress,
		  struct ft_ctf_stats *st, char *err, size_t errlen)
{
	struct ctf *c = calloc(1, sizeof(*c));
	struct ft_ctf_stats dummy;
	const struct ft_event *ev;
	const char *base;
	int r = 0, rc = -1;

	if (!st)
		st = &dummy;
	memset(st, 0, sizeof(*st));
	err[0] = 0;
	if (!c) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	c->st = st;
	c->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (c->dirfd < 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		free(c);
		return -1;
	}
	if (getrandom(c->uuid, sizeof(c->uuid), 0) != (ssize_t)sizeof(c->uuid)) {
		for (size_t i = 0; i < sizeof(c->uuid); i++) /* no entropy: any stable id will do */
			c->uuid[i] = (unsigned char)(i * 37 + 11);
	}
	c->uuid[6] = (c->uuid[6] & 0x0f) | 0x40; /* a version 4 UUID */
	c->uuid[8] = (c->uuid[8] & 0x3f) | 0x80;
	stream_init(&c->ust, "ust_0", SC_UST, 0, 0);
	stream_init(&c->stackmap, "stackmap_0", SC_STACKMAP, 0, 0);
	if (ft_htab_init(&c->kcls, sizeof(struct kclass)) ||
	    ft_htab_init(&c->tids, sizeof(struct tpid)) ||
	    ft_htab_init(&c->mapids, sizeof(struct ft_hentry))) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	c->t = ft_trace_open(path, err, errlen);
	if (!c->t)
		goto out;
	if (ft_uev_table_load(&c->ut, ft_trace_reader(c->t), err, errlen)) {
		char why[512];

		snprintf(why, sizeof(why), "%s", err);
		snprintf(err, errlen, "%s: %s", path, why);
		goto out;
	}
	if (kernel) {
		c->ks.k = ft_kevents_open(ft_trace_reader(c->t), err, errlen);
		if (!c->ks.k && err[0])
			goto out;
		if (c->ks.k) {
			ft_kevents_fix_user_stacks(c->ks.k, path);
			c->src.name = "kernel";
			c->src.next = ft_ksource_next;
			c->src.arg = &c->ks;
			if (ft_trace_add_source(c->t, &c->src) < 0 || kernel_classes(c)) {
				snprintf(err, errlen, "out of memory");
				goto out;
			}
		}
	}
	while (!c->err && (r = ft_trace_next_ref(c->t, &ev, err, errlen)) == 1) {
		if (progress)
			ft_progress_update(progress, 0, 0, st->events);
		if (ev->type == FT_EV_SOURCE)
			kernel_event(c, ev);
		else
			user_event(c, ev);
	}
	if (c->err)
		goto werr;
	if (r < 0)
		goto out;
	/* last packets: those with events, and those whose counter moved */
	last_packet(c, &c->ust);
	last_packet(c, &c->stackmap);
	for (size_t i = 0; i < c->nkcpu; i++)
		last_packet(c, &c->kcpu[i]);
	base = strrchr(path, '/');
	if (!c->err)
		write_metadata(c, base ? base + 1 : path);
	if (c->err)
		goto werr;
	rc = 0;
	goto out;
werr:
	snprintf(err, errlen, "writing %s: %s", dir, strerror(c->err));
out:
	if (c->ust.fd >= 0)
		close(c->ust.fd);
	if (c->stackmap.fd >= 0)
		close(c->stackmap.fd);
	free(c->ust.buf);
	free(c->stackmap.buf);
	for (size_t i = 0; i < c->nkcpu; i++) {
		if (c->kcpu[i].fd >= 0)
			close(c->kcpu[i].fd);
		free(c->kcpu[i].buf);
	}
	free(c->kcpu);
	free(c->kev);
	ft_htab_free(&c->kcls);
	ft_htab_free(&c->tids);
	for (size_t i = 0; i < c->nr_fc; i++)
		free(c->fc[i].name);
	free(c->fc);
	free(c->one.name);
	ft_htab_free(&c->mapids);
	ft_uev_table_free(&c->ut);
	if (c->ks.k)
		ft_kevents_close(c->ks.k);
	if (c->t)
		ft_trace_close(c->t);
	close(c->dirfd);
	free(c);
	return rc;
}
