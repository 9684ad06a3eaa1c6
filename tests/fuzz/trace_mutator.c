// SPDX-License-Identifier: GPL-2.0
/*
 * A structure-aware libFuzzer mutator for trace files (core/tracefile.h).
 *
 * Every section carries a CRC-32 of its payload and of its header, so a
 * byte changed anywhere by libFuzzer's own mutations makes the reader drop
 * that section (or end the index there): nearly every mutant stopped at the
 * checksum and never reached the decoders behind it.  This mutator mutates
 * one section's payload (or header fields) at a time with libFuzzer's
 * mutations, then sets that section's sizes and every header's and
 * payload's checksum so the file reads as the recorder would have written
 * it.  The mutants kept in the corpus, and a finding's artifact, are then
 * files that `ftrail show` reads as far as the fuzz target did, and
 * reproduce with the tool itself.  One mutation in eight is still applied
 * to the whole file with no checksum fixed, so the index's corruption
 * paths stay fuzzed; inputs that are not trace files (bare FSMB blobs) are
 * mutated whole too.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <zlib.h>

#include "core/tracefile.h"

#define FILE_HDR 24u /* magic, version, header size, flags */
#define SHDR 40u     /* struct ft_section_hdr on disk */
#define MAX_SECS 4096

size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

static uint32_t get32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

static uint64_t get64(const uint8_t *p)
{
	return get32(p) | (uint64_t)get32(p + 4) << 32;
}

static void put32(uint8_t *p, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[i] = (uint8_t)(v >> (8 * i));
}

static void put64(uint8_t *p, uint64_t v)
{
	put32(p, (uint32_t)v);
	put32(p + 4, (uint32_t)(v >> 32));
}

/* The offset of the first section header, 0 when data is no trace file. */
static size_t first_section(const uint8_t *data, size_t size)
{
	uint32_t hsize;

	if (size < FILE_HDR || memcmp(data, FT_FILE_MAGIC, 8))
		return 0;
	hsize = get32(data + 12);
	return hsize >= FILE_HDR && hsize <= size ? hsize : 0;
}

/*
 * The offsets of the section headers whose payload lies within data, as the
 * reader walks them (each header's sizes place the next); at most max.
 */
static size_t index_sections(const uint8_t *data, size_t size, size_t *off, size_t max)
{
	size_t n = 0, o = first_section(data, size);

	if (!o)
		return 0;
	while (n < max && size - o >= SHDR) {
		uint64_t disk = get64(data + o + 16);

		if (disk > size - o - SHDR)
			break;
		off[n++] = o;
		o += SHDR + (size_t)disk;
	}
	return n;
}

/* The payload and header checksums of every section, as the writer sets them. */
static void seal(uint8_t *data, size_t size)
{
	static size_t off[MAX_SECS];
	size_t n = index_sections(data, size, off, MAX_SECS);

	for (size_t i = 0; i < n; i++) {
		uint8_t *h = data + off[i], o[8];
		uLong c;

		put32(h + 32, (uint32_t)crc32(0, h + SHDR, (uInt)get64(h + 16)));
		put64(o, off[i]);
		c = crc32(0, o, sizeof(o));
		put32(h + 36, (uint32_t)crc32(c, h, SHDR - 4));
	}
}

/* xorshift32 on libFuzzer's seed: the same seed gives the same mutant. */
static uint32_t next_rand(uint32_t *s)
{
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/*
 * Mutate the payload of the section whose header is at h (disk bytes), in
 * place within data (max_size bytes of room): libFuzzer mutates a copy that
 * may grow or shrink, and the sizes in the header follow it (raw_size too
 * when the payload is stored raw).  Returns the new size of data.
 */
static size_t mutate_payload(uint8_t *data, size_t size, size_t max_size, size_t h)
{
	uint64_t disk = get64(data + h + 16);
	size_t pay = h + SHDR, tail = size - pay - (size_t)disk;
	size_t room = max_size - (size - (size_t)disk), len;
	uint8_t *tmp;

	if (room == 0)
		return size;
	tmp = malloc(room);
	if (!tmp)
		return size;
	memcpy(tmp, data + pay, (size_t)disk);
	len = LLVMFuzzerMutate(tmp, (size_t)disk, room);
	memmove(data + pay + len, data + pay + disk, tail);
	memcpy(data + pay, tmp, len);
	free(tmp);
	put64(data + h + 16, len);
	if (!(get32(data + h + 4) & FT_SF_ZSTD))
		put64(data + h + 24, len);
	return pay + len + tail;
}

/* Mutate the fields of the section header at h (type, flags, id, sizes). */
static void mutate_header(uint8_t *data, size_t h)
{
	uint8_t tmp[SHDR - 8];
	size_t len;

	memcpy(tmp, data + h, sizeof(tmp));
	len = LLVMFuzzerMutate(tmp, sizeof(tmp), sizeof(tmp));
	memcpy(data + h, tmp, len);
}

/* Remove the section at h (its header and payload). */
static size_t drop_section(uint8_t *data, size_t size, size_t h)
{
	size_t len = SHDR + (size_t)get64(data + h + 16);

	memmove(data + h, data + h + len, size - h - len);
	return size - len;
}

/* Copy the section at h to the place of the one at to, when it fits. */
static size_t copy_section(uint8_t *data, size_t size, size_t max_size, size_t h, size_t to)
{
	size_t len = SHDR + (size_t)get64(data + h + 16);
	uint8_t *tmp;

	if (len > max_size - size || !(tmp = malloc(len)))
		return size;
	memcpy(tmp, data + h, len);
	memmove(data + to + len, data + to, size - to);
	memcpy(data + to, tmp, len);
	free(tmp);
	return size + len;
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	static size_t off[MAX_SECS];
	uint32_t r = seed | 1;
	size_t n = index_sections(data, size, off, MAX_SECS), i, op;

	if (n == 0 || next_rand(&r) % 8 == 0)
		return LLVMFuzzerMutate(data, size, max_size);
	i = next_rand(&r) % n;
	op = next_rand(&r) % 16;
	if (op == 0)
		mutate_header(data, off[i]);
	else if (op == 1 && n > 1)
		size = drop_section(data, size, off[i]);
	else if (op == 2)
		size = copy_section(data, size, max_size, off[i], off[next_rand(&r) % n]);
	else
		size = mutate_payload(data, size, max_size, off[i]);
	seal(data, size);
	return size;
}
