/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrail: static trace events and trace_marker for C programs.
 *
 *   #include <ftrail/ftrail.h>
 *
 *   FTRAIL_EVENT(myapp, request,            // subsystem, event name
 *                (u32, id), (string, path), (s64, delta), (ptr, ctx),
 *                (array, key, 16), (bytes, payload));
 *
 *   ftrail_trace(myapp, request, 42, "/index.html", -5, p, key16, buf, buflen);
 *   ftrail_marker("phase %d done", n);
 *   ftrail_marker_raw(&blob, sizeof(blob));
 *
 * Field kinds and the arguments ftrail_trace() takes for them:
 *   (u8|u16|u32|u64, name)     unsigned integer of that width
 *   (s8|s16|s32|s64, name)     signed integer of that width
 *   (ptr, name)                const void *; stored as 64 bits, shown 0x...
 *   (string, name)             const char *, NUL-terminated (NULL shows "(null)")
 *   (array, name, N)           const void *: exactly N bytes copied (N <= 1024)
 *   (bytes, name)              two arguments: const void *name, uint32_t len
 * An event has at most 16 fields.  Strings and byte sequences longer than
 * FTRAIL_MAX_DYN bytes are cut to that length (the record's length field says
 * how much was kept).
 *
 * Cost.  A disabled event is one byte load, a compare and a predicted-not-
 * taken branch: no function call, and the arguments are not evaluated.
 * The enabled path calls an out-of-line emitter that builds the record on the
 * stack and hands it to the runtime.
 *
 * Without the runtime.  Everything here lives in the program: the per-event
 * descriptor (with its enabled byte) is a static variable, and a pointer to
 * it is placed in the ELF section "__ftrail_events".  A program linked and
 * run without ftrail never enables anything; no symbol of libftrail is
 * referenced.  Under `ftrail record`, the injected runtime finds the section
 * of every loaded object (executable and shared libraries), sets the
 * descriptor's write hook and flips the enabled bytes of the events selected
 * with -e.  No registration call is needed.
 *
 * FTRAIL_EVENT() defines a static descriptor: put it in the .c file that
 * emits the event, or in a header shared by several files (each file then
 * has its own copy, which the runtime treats as one event with one id).
 *
 * Record layout (what the runtime writes as the payload of an FT_EXT_EVENT
 * record): struct ftrail__rec_<sys>__<event>, i.e. a u32 event id at offset
 * 0 followed by the fields in declaration order at their natural alignment;
 * strings and (bytes) are 32-bit "data_loc" words as the kernel's
 * __data_loc: (length << 16) | offset-from-record-start, with the bytes
 * after the fixed part.  A string's length counts its NUL.
 */
#ifndef FTRAIL_PUBLIC_H
#define FTRAIL_PUBLIC_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

#define FTRAIL_EVENT_MAGIC 0x46545645u /* 'FTVE' */
#define FTRAIL_ABI_VERSION 1
#define FTRAIL_MAX_FIELDS 16
#define FTRAIL_MAX_DYN 1024    /* bytes kept of one string / byte sequence */
#define FTRAIL_MAX_MARKER 1024 /* bytes kept of one marker */

/* Field types (the "type" of struct ftrail_field). */
enum ftrail_type {
	FTRAIL_T_U8 = 1,
	FTRAIL_T_U16,
	FTRAIL_T_U32,
	FTRAIL_T_U64,
	FTRAIL_T_S8,
	FTRAIL_T_S16,
	FTRAIL_T_S32,
	FTRAIL_T_S64,
	FTRAIL_T_PTR,	 /* u64 holding an address */
	FTRAIL_T_STRING, /* u32 data_loc -> NUL-terminated bytes */
	FTRAIL_T_ARRAY,	 /* size bytes inline */
	FTRAIL_T_BYTES,	 /* u32 data_loc -> len bytes */
	FTRAIL_T_MAX
};

/* Descriptor kinds. */
enum ftrail_kind {
	FTRAIL_KIND_EVENT = 0,
	FTRAIL_KIND_MARKER = 1, /* the per-file trace_marker descriptor */
};

struct ftrail_field {
	const char *name;
	uint16_t type;	 /* enum ftrail_type */
	uint16_t offset; /* from the start of the record (the id is at 0) */
	uint16_t size;	 /* bytes in the fixed part (4 for string, bytes) */
	uint16_t is_signed;
};

/*
 * One per event per object file.  Written by the runtime only: `write`,
 * `id`, `priv` are set (write released) before `enabled` becomes non-zero;
 * `enabled` is flipped at any time.  Emitters read `enabled` relaxed (the
 * fast path) and `write` with acquire, which pairs with the runtime's
 * release store of `write` (see runtime/events.c).
 */
struct ftrail_event {
	uint32_t magic;		  /* FTRAIL_EVENT_MAGIC */
	uint16_t abi;		  /* FTRAIL_ABI_VERSION */
	uint8_t kind;		  /* enum ftrail_kind */
	volatile uint8_t enabled; /* the byte the fast path tests */
	const char *subsys;
	const char *name;
	const char *fmt; /* print format, e.g. "id=%u path=%s" */
	const struct ftrail_field *fields;
	uint32_t nr_fields;
	uint32_t size; /* sizeof the fixed part of the record */
	void (*write)(struct ftrail_event *ev, void *rec, uint32_t len);
	uint32_t id; /* runtime: event id in this trace */
	uint32_t reserved;
	void *priv; /* runtime: filters, triggers */
};

#define FTRAIL_SECTION "__ftrail_events"

/* ---- internal helpers of the macros (names starting with ftrail__) ---- */

#define FTRAIL__CAT_(a, b) a##b
#define FTRAIL__CAT(a, b) FTRAIL__CAT_(a, b)
#define FTRAIL__EXP(x) x
#define FTRAIL__NARG(...)                                                                          \
	FTRAIL__NARG_(__VA_ARGS__, 16, 15, 14, 13, 12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, 0)
#define FTRAIL__NARG_(_1, _2, _3, _4, _5, _6, _7, _8, _9, _10, _11, _12, _13, _14, _15, _16, N,    \
		      ...)                                                                         \
	N

/* FTRAIL__MAP(M, S, X, a, b): M(X, a) S() M(X, b); S() gives the separator */
#define FTRAIL__MAP(M, S, X, ...)                                                                  \
	FTRAIL__CAT(FTRAIL__MAP, FTRAIL__NARG(__VA_ARGS__))(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP1(M, S, X, a) M(X, a)
#define FTRAIL__MAP2(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP1(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP3(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP2(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP4(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP3(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP5(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP4(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP6(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP5(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP7(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP6(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP8(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP7(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP9(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP8(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP10(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP9(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP11(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP10(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP12(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP11(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP13(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP12(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP14(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP13(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP15(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP14(M, S, X, __VA_ARGS__)
#define FTRAIL__MAP16(M, S, X, a, ...) M(X, a) S() FTRAIL__MAP15(M, S, X, __VA_ARGS__)
#define FTRAIL__SEP_NONE()
#define FTRAIL__SEP_COMMA() ,

/* Field tuple (kind, name[, N]): X(t) -> X<kind>(name[, N]) */
#define FTRAIL__KIND(t) FTRAIL__KIND_ t
#define FTRAIL__KIND_(kind, ...) kind
#define FTRAIL__ARGS(t) FTRAIL__ARGS_ t
#define FTRAIL__ARGS_(kind, ...) __VA_ARGS__
#define FTRAIL__CALL(P, X, t) FTRAIL__CALL_(FTRAIL__CAT(P, FTRAIL__KIND(t)), X, FTRAIL__ARGS(t))
#define FTRAIL__CALL_(m, ...) m(__VA_ARGS__)

/* record member */
#define FTRAIL__MEMBER(X, t) FTRAIL__CALL(FTRAIL__MEM_, X, t)
#define FTRAIL__MEM_u8(X, n) uint8_t n;
#define FTRAIL__MEM_u16(X, n) uint16_t n;
#define FTRAIL__MEM_u32(X, n) uint32_t n;
#define FTRAIL__MEM_u64(X, n) uint64_t n;
#define FTRAIL__MEM_s8(X, n) int8_t n;
#define FTRAIL__MEM_s16(X, n) int16_t n;
#define FTRAIL__MEM_s32(X, n) int32_t n;
#define FTRAIL__MEM_s64(X, n) int64_t n;
#define FTRAIL__MEM_ptr(X, n) uint64_t n;
#define FTRAIL__MEM_string(X, n) uint32_t n;
#define FTRAIL__MEM_array(X, n, N) uint8_t n[N];
#define FTRAIL__MEM_bytes(X, n) uint32_t n;

/* emitter parameter(s) */
#define FTRAIL__PARAM(X, t) FTRAIL__CALL(FTRAIL__PAR_, X, t)
#define FTRAIL__PAR_u8(X, n) uint8_t n
#define FTRAIL__PAR_u16(X, n) uint16_t n
#define FTRAIL__PAR_u32(X, n) uint32_t n
#define FTRAIL__PAR_u64(X, n) uint64_t n
#define FTRAIL__PAR_s8(X, n) int8_t n
#define FTRAIL__PAR_s16(X, n) int16_t n
#define FTRAIL__PAR_s32(X, n) int32_t n
#define FTRAIL__PAR_s64(X, n) int64_t n
#define FTRAIL__PAR_ptr(X, n) const void *n
#define FTRAIL__PAR_string(X, n) const char *n
#define FTRAIL__PAR_array(X, n, N) const void *n
#define FTRAIL__PAR_bytes(X, n) const void *n, uint32_t n##_len

/* bytes of variable data the field needs */
#define FTRAIL__DYN(X, t) FTRAIL__CALL(FTRAIL__DYN_, X, t)
#define FTRAIL__DYN_u8(X, n)
#define FTRAIL__DYN_u16(X, n)
#define FTRAIL__DYN_u32(X, n)
#define FTRAIL__DYN_u64(X, n)
#define FTRAIL__DYN_s8(X, n)
#define FTRAIL__DYN_s16(X, n)
#define FTRAIL__DYN_s32(X, n)
#define FTRAIL__DYN_s64(X, n)
#define FTRAIL__DYN_ptr(X, n)
#define FTRAIL__DYN_string(X, n) dyn += ftrail__strsize(n);
#define FTRAIL__DYN_array(X, n, N)
#define FTRAIL__DYN_bytes(X, n) dyn += n##_len < FTRAIL_MAX_DYN ? n##_len : FTRAIL_MAX_DYN;

/* fill the field into record r, variable data at buf + pos */
#define FTRAIL__SET(X, t) FTRAIL__CALL(FTRAIL__SET_, X, t)
#define FTRAIL__SET_u8(X, n) r->n = n;
#define FTRAIL__SET_u16(X, n) r->n = n;
#define FTRAIL__SET_u32(X, n) r->n = n;
#define FTRAIL__SET_u64(X, n) r->n = n;
#define FTRAIL__SET_s8(X, n) r->n = n;
#define FTRAIL__SET_s16(X, n) r->n = n;
#define FTRAIL__SET_s32(X, n) r->n = n;
#define FTRAIL__SET_s64(X, n) r->n = n;
#define FTRAIL__SET_ptr(X, n) r->n = (uint64_t)(uintptr_t)n;
#define FTRAIL__SET_string(X, n) pos = ftrail__put_str(buf, pos, &r->n, n);
#define FTRAIL__SET_array(X, n, N) memcpy(r->n, n, N);
#define FTRAIL__SET_bytes(X, n) pos = ftrail__put_bytes(buf, pos, &r->n, n, n##_len);

/* field descriptor */
#define FTRAIL__FIELD(R, t) FTRAIL__CALL(FTRAIL__FLD_, R, t)
#define FTRAIL__FLD(R, n, T, s) { #n, T, (uint16_t)offsetof(R, n), sizeof(((R *)0)->n), s },
#define FTRAIL__FLD_u8(R, n) FTRAIL__FLD(R, n, FTRAIL_T_U8, 0)
#define FTRAIL__FLD_u16(R, n) FTRAIL__FLD(R, n, FTRAIL_T_U16, 0)
#define FTRAIL__FLD_u32(R, n) FTRAIL__FLD(R, n, FTRAIL_T_U32, 0)
#define FTRAIL__FLD_u64(R, n) FTRAIL__FLD(R, n, FTRAIL_T_U64, 0)
#define FTRAIL__FLD_s8(R, n) FTRAIL__FLD(R, n, FTRAIL_T_S8, 1)
#define FTRAIL__FLD_s16(R, n) FTRAIL__FLD(R, n, FTRAIL_T_S16, 1)
#define FTRAIL__FLD_s32(R, n) FTRAIL__FLD(R, n, FTRAIL_T_S32, 1)
#define FTRAIL__FLD_s64(R, n) FTRAIL__FLD(R, n, FTRAIL_T_S64, 1)
#define FTRAIL__FLD_ptr(R, n) FTRAIL__FLD(R, n, FTRAIL_T_PTR, 0)
#define FTRAIL__FLD_string(R, n) FTRAIL__FLD(R, n, FTRAIL_T_STRING, 0)
#define FTRAIL__FLD_array(R, n, N) FTRAIL__FLD(R, n, FTRAIL_T_ARRAY, 0)
#define FTRAIL__FLD_bytes(R, n) FTRAIL__FLD(R, n, FTRAIL_T_BYTES, 0)

/* print format piece: " name=%conv" */
#define FTRAIL__FMT(X, t) FTRAIL__CALL(FTRAIL__FMT_, X, t)
#define FTRAIL__FMT_u8(X, n) " " #n "=%u"
#define FTRAIL__FMT_u16(X, n) " " #n "=%u"
#define FTRAIL__FMT_u32(X, n) " " #n "=%u"
#define FTRAIL__FMT_u64(X, n) " " #n "=%llu"
#define FTRAIL__FMT_s8(X, n) " " #n "=%d"
#define FTRAIL__FMT_s16(X, n) " " #n "=%d"
#define FTRAIL__FMT_s32(X, n) " " #n "=%d"
#define FTRAIL__FMT_s64(X, n) " " #n "=%lld"
#define FTRAIL__FMT_ptr(X, n) " " #n "=0x%llx"
#define FTRAIL__FMT_string(X, n) " " #n "=%s"
#define FTRAIL__FMT_array(X, n, N) " " #n "=%s"
#define FTRAIL__FMT_bytes(X, n) " " #n "=%s"

/* Bytes a string takes in the record (with its NUL), capped. */
static inline uint32_t ftrail__strsize(const char *s)
{
	size_t n = s ? strnlen(s, FTRAIL_MAX_DYN - 1) + 1 : sizeof("(null)");

	return (uint32_t)n;
}

/* Copy a string at buf+pos, store its data_loc in *loc; returns the new pos. */
static inline uint32_t ftrail__put_str(unsigned char *buf, uint32_t pos, uint32_t *loc,
				       const char *s)
{
	uint32_t n = ftrail__strsize(s);

	memcpy(buf + pos, s ? s : "(null)", n - 1);
	buf[pos + n - 1] = 0;
	*loc = (n << 16) | pos;
	return pos + n;
}

static inline uint32_t ftrail__put_bytes(unsigned char *buf, uint32_t pos, uint32_t *loc,
					 const void *p, uint32_t len)
{
	uint32_t n = len < FTRAIL_MAX_DYN ? len : FTRAIL_MAX_DYN;

	if (n)
		memcpy(buf + pos, p, n);
	*loc = (n << 16) | pos;
	return pos + n;
}

/* Hand a built record to the runtime (enabled path only). */
static inline void ftrail__submit(struct ftrail_event *ev, void *rec, uint32_t len)
{
	void (*w)(struct ftrail_event *, void *, uint32_t) =
		__atomic_load_n(&ev->write, __ATOMIC_ACQUIRE);

	if (w)
		w(ev, rec, len);
}

#define FTRAIL__SYM(sys, ev, what) ftrail__##what##_##sys##__##ev
#define FTRAIL__USED __attribute__((used))
/* retain: the section survives the linker's --gc-sections (nothing refers to it) */
#if defined(__has_attribute)
#if __has_attribute(retain)
#define FTRAIL__RETAIN __attribute__((retain))
#endif
#endif
#ifndef FTRAIL__RETAIN
#define FTRAIL__RETAIN
#endif
#define FTRAIL__SECTION_ATTR                                                                       \
	__attribute__((used, section(FTRAIL_SECTION), aligned(sizeof(void *)))) FTRAIL__RETAIN

/*
 * FTRAIL_EVENT(sys, event, (kind, name[, N])...): define the event
 * sys:event with the given fields (at least one, at most 16).
 */
#define FTRAIL_EVENT(sys, ev, ...)                                                                 \
	typedef struct FTRAIL__SYM(sys, ev, rec) {                                                 \
		uint32_t ftrail_id;                                                                \
		FTRAIL__MAP(FTRAIL__MEMBER, FTRAIL__SEP_NONE, ~, __VA_ARGS__)                      \
	} FTRAIL__SYM(sys, ev, rec_t);                                                             \
	static const struct ftrail_field FTRAIL__SYM(sys, ev, fields)[] = { FTRAIL__MAP(           \
		FTRAIL__FIELD, FTRAIL__SEP_NONE, FTRAIL__SYM(sys, ev, rec_t), __VA_ARGS__) };      \
	static struct ftrail_event FTRAIL__SYM(sys, ev, desc) FTRAIL__USED = {                     \
		FTRAIL_EVENT_MAGIC,                                                                \
		FTRAIL_ABI_VERSION,                                                                \
		FTRAIL_KIND_EVENT,                                                                 \
		0,                                                                                 \
		#sys,                                                                              \
		#ev,                                                                               \
		&(FTRAIL__MAP(FTRAIL__FMT, FTRAIL__SEP_NONE, ~, __VA_ARGS__))[1],                  \
		FTRAIL__SYM(sys, ev, fields),                                                      \
		sizeof(FTRAIL__SYM(sys, ev, fields)) / sizeof(struct ftrail_field),                \
		sizeof(FTRAIL__SYM(sys, ev, rec_t)),                                               \
		0,                                                                                 \
		0,                                                                                 \
		0,                                                                                 \
		0,                                                                                 \
	};                                                                                         \
	static struct ftrail_event *FTRAIL__SYM(sys, ev, ptr)                                      \
		FTRAIL__SECTION_ATTR = &FTRAIL__SYM(sys, ev, desc);                                \
	static __attribute__((noinline, cold, unused)) void FTRAIL__SYM(sys, ev, emit)(            \
		FTRAIL__MAP(FTRAIL__PARAM, FTRAIL__SEP_COMMA, ~, __VA_ARGS__))                     \
	{                                                                                          \
		typedef FTRAIL__SYM(sys, ev, rec_t) ftrail__rec_t;                                 \
		uint32_t dyn = 0, pos = sizeof(ftrail__rec_t);                                     \
		FTRAIL__MAP(FTRAIL__DYN, FTRAIL__SEP_NONE, ~, __VA_ARGS__)                         \
		{                                                                                  \
			unsigned char buf[sizeof(ftrail__rec_t) + dyn]                             \
				__attribute__((aligned(8)));                                       \
			ftrail__rec_t *r = (ftrail__rec_t *)(void *)buf;                           \
			r->ftrail_id = 0;                                                          \
			FTRAIL__MAP(FTRAIL__SET, FTRAIL__SEP_NONE, ~, __VA_ARGS__)                 \
			(void)r;                                                                   \
			ftrail__submit(&FTRAIL__SYM(sys, ev, desc), buf, pos);                     \
		}                                                                                  \
	}                                                                                          \
	struct ftrail__semicolon_##sys##__##ev

/*
 * ftrail_trace(sys, event, args...): emit the event if it is enabled.  The
 * arguments are evaluated only when it is.
 */
#define ftrail_trace(sys, ev, ...)                                                                 \
	do {                                                                                       \
		if (__builtin_expect(__atomic_load_n(&FTRAIL__SYM(sys, ev, desc).enabled,          \
						     __ATOMIC_RELAXED),                            \
				     0))                                                           \
			FTRAIL__SYM(sys, ev, emit)(__VA_ARGS__);                                   \
	} while (0)

/* Is sys:event enabled right now?  (To guard costly argument preparation.) */
#define ftrail_enabled(sys, ev)                                                                    \
	__builtin_expect(__atomic_load_n(&FTRAIL__SYM(sys, ev, desc).enabled, __ATOMIC_RELAXED), 0)

/* ---- trace_marker ---- */

/*
 * Each file that includes this header has one marker descriptor; the runtime
 * enables it (and every other file's) while the program is traced.
 */
static struct ftrail_event ftrail__marker_desc FTRAIL__USED = {
	FTRAIL_EVENT_MAGIC,
	FTRAIL_ABI_VERSION,
	FTRAIL_KIND_MARKER,
	0,
	"ftrace",
	"print",
	"%s",
	NULL,
	0,
	0,
	0,
	0,
	0,
	0,
};
static struct ftrail_event *ftrail__marker_ptr FTRAIL__SECTION_ATTR = &ftrail__marker_desc;

/* rec/len for a marker: the runtime writes FT_EXT_MARKER (text, len bytes
 * without a NUL) or, with the high bit of len set, FT_EXT_BINMARKER. */
#define FTRAIL_MARKER_BINARY 0x80000000u

static __attribute__((noinline, cold, unused, format(printf, 1, 0))) void
ftrail__vmarker(const char *fmt, va_list ap)
{
	char buf[FTRAIL_MAX_MARKER];
	int n = vsnprintf(buf, sizeof(buf), fmt, ap);

	if (n < 0)
		return;
	if (n >= (int)sizeof(buf))
		n = sizeof(buf) - 1;
	ftrail__submit(&ftrail__marker_desc, buf, (uint32_t)n);
}

/*
 * ftrail_marker(fmt, ...): printf-style trace_marker text (at most
 * FTRAIL_MAX_MARKER - 1 bytes kept).  A macro so that the disabled case is
 * one byte test and the arguments are not evaluated.
 */
#define ftrail_marker(...)                                                                         \
	do {                                                                                       \
		if (__builtin_expect(                                                              \
			    __atomic_load_n(&ftrail__marker_desc.enabled, __ATOMIC_RELAXED), 0))   \
			ftrail__marker(__VA_ARGS__);                                               \
	} while (0)

static __attribute__((noinline, cold, unused, format(printf, 1, 2))) void
ftrail__marker(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	ftrail__vmarker(fmt, ap);
	va_end(ap);
}

/* Write len bytes (at most FTRAIL_MAX_MARKER kept) as a binary marker. */
static __attribute__((unused)) inline void ftrail_marker_raw(const void *buf, size_t len)
{
	if (__builtin_expect(__atomic_load_n(&ftrail__marker_desc.enabled, __ATOMIC_RELAXED), 0))
		ftrail__submit(&ftrail__marker_desc, (void *)(uintptr_t)buf,
			       (uint32_t)(len < FTRAIL_MAX_MARKER ? len : FTRAIL_MAX_MARKER) |
				       FTRAIL_MARKER_BINARY);
}

#ifdef __cplusplus
}
#endif

#endif
