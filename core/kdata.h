/* SPDX-License-Identifier: GPL-2.0 */
/*
 * On-disk encoding of kernel events in the trace file (KFORMATS, KDATA),
 * shared by the writer (kernel/kencode.c) and the reader
 * (analysis/kevents.c).  All integers little endian; "uv" is an unsigned
 * LEB128 varint (at most 10 bytes).
 *
 * KFORMATS (section id 0): a sequence of named blobs, back to back:
 *     u32 name_len, name bytes, u32 data_len, data bytes
 *   names:  "header_page", "header_event"   the instance's copies
 *           "event:<system>/<name>"         an events/<system>/<name>/format
 *           "saved_cmdlines"                pid -> comm at the end of the run
 *           "nr_cpus", "trace_clock", "long_size"   text
 *           "stats:<cpu>"                   per_cpu/cpu<cpu>/stats at stop
 *   Only the formats of the recorded events (plus ftrace/kernel_stack and
 *   ftrace/user_stack) are stored, so readers can parse them on any machine.
 *
 * KDATA (section id = cpu): the events of one CPU in the kernel's order,
 * written in chunks (each one ft_writer_add, zstd-compressed).  Every chunk
 * starts with a KREC_TIME record, so chunks decode on their own.  Records:
 *
 *   KREC_TIME     tag, u64 ticks                   absolute time base
 *   KREC_EVENT    tag|flags, uv delta, uv len, len raw bytes, stacks...
 *                 delta: ticks since the previous record's time; raw: the
 *                 event's bytes as the kernel wrote them (common fields
 *                 first: common_type is the event id), then for each stack
 *                 flag, in order kernel then user:
 *                   KF_KSTACK_ID / KF_USTACK_ID      uv stack_id (kernel map)
 *                   KF_KSTACK_FULL / KF_USTACK_FULL  uv nr, nr x u64 ips
 *                 (FULL when the stack map could not serve: the full stack
 *                 is kept, never dropped)
 *   KREC_MISSED   tag, uv delta, uv count          the kernel lost events
 *                 here; count 0 means "an unknown number"
 *
 * Stack ids index the kernel STACKMAP section (id FT_KSTACKMAP_ID, FSMB v2),
 * which holds kernel stacks and, with userstacktrace, user stacks too (user
 * addresses are below the kernel's half of the address space).
 */
#ifndef FTRAIL_KDATA_H
#define FTRAIL_KDATA_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define FT_KSTACKMAP_ID 1

enum {
	KREC_TIME = 1,
	KREC_EVENT = 2,
	KREC_MISSED = 3,
	KREC_KIND_MASK = 0x0f,
};

enum {
	KF_KSTACK_ID = 0x10,
	KF_KSTACK_FULL = 0x20,
	KF_USTACK_ID = 0x40,
	KF_USTACK_FULL = 0x80,
};

/* Append v as a varint at p (room for 10 bytes); returns bytes written. */
static inline size_t ft_uv_put(unsigned char *p, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		p[n++] = (unsigned char)(v | 0x80);
		v >>= 7;
	}
	p[n++] = (unsigned char)v;
	return n;
}

/* Read a varint from [*p, end); returns 0, or -1 when truncated/overlong. */
static inline int ft_uv_get(const unsigned char **p, const unsigned char *end, uint64_t *v)
{
	uint64_t r = 0;
	unsigned int shift = 0;

	while (*p < end && shift < 64) {
		unsigned char b = *(*p)++;

		r |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80)) {
			*v = r;
			return 0;
		}
		shift += 7;
	}
	return -1;
}

static inline void ft_le64_put(unsigned char *p, uint64_t v)
{
	for (int i = 0; i < 8; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint64_t ft_le64_get(const unsigned char *p)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v |= (uint64_t)p[i] << (8 * i);
	return v;
}

static inline void ft_le32_put(unsigned char *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static inline uint32_t ft_le32_get(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

#endif
