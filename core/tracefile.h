/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The ftrail trace file: one file, versioned, made of typed sections.
 *
 *   file header   "FTRAIL\r\n" magic (8 bytes), u32 version (2), u32 header
 *                 size, u64 flags                              (little endian)
 *   section*      struct ft_section_hdr (40 bytes), then `disk_size` bytes of
 *                 payload, zstd-compressed when FT_SF_ZSTD is set (`raw_size`
 *                 is the size once decompressed)
 *   END section   written last; a file without it was cut short (the reader
 *                 says so and still reads what is complete)
 *
 * Checksums: every section header carries the CRC-32 (zlib's polynomial) of
 * its payload as stored on disk, and its own CRC-32 over its file offset
 * and its other 36 bytes.  CRC per section rather than zstd's frame
 * checksum because the frame checksum covers neither raw sections (META,
 * TASKS, incompressible chunks) nor the headers, and is only seen after
 * inflating; binding the offset catches moved, duplicated and missing
 * sections too.  The reader checks all of them at open: a corrupt payload
 * drops that section (named in a warning) and the rest is read; a corrupt
 * header ends the file there (its sizes cannot be trusted), with a warning.
 *
 * Written incrementally: whatever a reader needs to name what a data chunk
 * holds (FUNCS, MODULES, SYMTAB, STACKMAP entries, KFORMATS, KALLSYMS) is
 * written before that chunk, so a file cut anywhere reads, with names, up
 * to its last complete section.
 *
 * Section payloads (all integers little endian):
 *   META      text, one "key=value" per line: tracer, options, command line,
 *             clock, tsc_mult/tsc_shift/tsc_offset (ticks -> ns), nr_cpus,
 *             hostname, kernel release, start/end time, lost totals ...
 *   MODULES   text, one line per mapped object of a traced process:
 *             "<pid> <start> <end> <file offset> <build id|-> <path>" (hex)
 *   FUNCS     u32 count, then count x { u64 addr; u32 module; u32 flags }:
 *             fid -> absolute address in the traced process, and the index
 *             of its MODULES line (for offline symbolisation); section id =
 *             the fid of the first entry (chunks cover consecutive fids);
 *             flags: FT_FUNC_LIB_* below
 *   SYMTAB    per module (section id = module index): u32 count, then
 *             count x { u64 offset; u32 size; u32 name_off }, then a string
 *             table; offsets are relative to the module's load bias
 *   KALLSYMS  text: /proc/kallsyms as read at record time
 *   STACKMAP  FSMB v2 blobs of stackmap.h (section id: 0 user, 1 kernel), one
 *             per chunk with the stacks new since the previous one; a stack
 *             seen again in a later chunk (its final reference count)
 *             replaces the earlier one (ft_reader_load_fsmb() merges them)
 *   UDATA     user pages (record.h) of one buffer, back to back, each trimmed
 *             to sizeof(struct ft_page) + page.size; section id = buffer id
 *   KFORMATS  kernel event formats (kernel/ writes and reads this)
 *   KDATA     kernel events of one CPU (kernel/ writes and reads this);
 *             section id = cpu
 *   TASKS     text: "<pid> <tid> <comm>" per line
 *   UFORMATS  user event formats
 *   SNAPSHOT  UDATA of the snapshot buffer
 *   ARGSPEC   text: the capture specs of the recording (core/argspec.h lines,
 *             '#enum NAME V=NAME,...' lines), which name and type what
 *             FT_EXT_ARGS / FT_EXT_RETVAL records hold; only when some were
 *             given
 *   KSNAP     a flight recorder dump's kernel events of one CPU, as KDATA
 *             holds them; section id = snapshot number << 16 | cpu
 *
 * Sections of one type may repeat (data is written in chunks as it is
 * drained); readers concatenate chunks with the same (type, id) in order.
 *
 * Trace files are created mode 0600: they reveal address layouts and data.
 */
#ifndef FTRAIL_TRACEFILE_H
#define FTRAIL_TRACEFILE_H

#include <stddef.h>
#include <stdint.h>

/*
 * FUNCS flags of a library call (a PLT import hooked at its GOT slot),
 * whose addr and module are the import's, in the calling object: bits
 * 8..30 hold 1 + the MODULES index of the library that defines the
 * function (0: not known), for the readers' sym-userobj.
 */
#define FT_FUNC_LIB_SHIFT 8
#define FT_FUNC_LIB_MASK 0x7fffffu

#define FT_FILE_MAGIC "FTRAIL\r\n"
#define FT_FILE_VERSION 2

enum ft_section_type {
	FT_SEC_END = 0,
	FT_SEC_META = 1,
	FT_SEC_MODULES = 2,
	FT_SEC_FUNCS = 3,
	FT_SEC_SYMTAB = 4,
	FT_SEC_KALLSYMS = 5,
	FT_SEC_STACKMAP = 6,
	FT_SEC_UDATA = 7,
	FT_SEC_KFORMATS = 8,
	FT_SEC_KDATA = 9,
	FT_SEC_TASKS = 10,
	FT_SEC_UFORMATS = 11,
	FT_SEC_SNAPSHOT = 12,
	FT_SEC_ARGSPEC = 13,
	FT_SEC_KSNAP = 14, /* a flight recorder dump's kernel events: id snapshot << 16 | cpu */
	FT_SEC_MAX
};

#define FT_SF_ZSTD 1u

struct ft_section_hdr {
	uint32_t type;
	uint32_t flags;
	uint64_t id;	    /* buffer id, cpu, module index... per type */
	uint64_t disk_size; /* bytes that follow this header */
	uint64_t raw_size;  /* bytes once decompressed */
	uint32_t crc;	    /* CRC-32 of the disk_size payload bytes */
	uint32_t hdr_crc;   /* CRC-32 of the file offset (u64) and the 36 bytes above */
};

/* Upper bound a reader accepts for one section's raw size (hostile files). */
#define FT_SECTION_MAX_RAW (1ull << 32)

struct ft_writer;

/*
 * ft_writer_open - start a trace file at path, through path.partial
 * (core/outfile.h: created O_EXCL|O_NOFOLLOW, mode 0600, renamed over path
 * by ft_writer_close(); a symbolic link at path is refused).
 * Return: the writer, or NULL with errno set and a one-line reason in err.
 * Must be ended with ft_writer_close() or ft_writer_abort().
 */
struct ft_writer *ft_writer_open(const char *path, int compress_level, char *err, size_t errlen);

/*
 * Append one section.  With compress set the payload is zstd-compressed
 * (kept raw when compression would not shrink it).  Thread-safe: several
 * drain threads may add sections at once.  Returns 0, or -1 with errno.
 */
int ft_writer_add(struct ft_writer *w, uint32_t type, uint64_t id, const void *data, size_t len,
		  int compress);

/* Bytes written so far (headers and payloads). */
uint64_t ft_writer_bytes(const struct ft_writer *w);

/*
 * ft_writer_close - write END, fsync and rename the file over its target;
 * frees w.  Return: 0, or -1 with a reason in err (the previous target is
 * then untouched; a file that could not be finished stays as .partial).
 */
int ft_writer_close(struct ft_writer *w, char *err, size_t errlen);

/*
 * ft_writer_abort - give up without END: the target is untouched; the
 * partial file is removed, or kept (as ft_writer_partial_path()) when keep
 * is set.  Frees w; NULL is a no-op.
 */
void ft_writer_abort(struct ft_writer *w, int keep);

/* The file being written (TARGET.partial), valid until close/abort. */
const char *ft_writer_partial_path(const struct ft_writer *w);

/* Did opening replace a TARGET.partial left by a killed writer? */
int ft_writer_replaced_stale(const struct ft_writer *w);

struct ft_reader;

struct ft_section {
	uint32_t type;
	uint32_t flags;
	uint64_t id;
	uint64_t offset; /* of the payload in the file */
	uint64_t disk_size;
	uint64_t raw_size;
	uint32_t crc;
};

/*
 * Open and index a trace file: validates the header and every section
 * header (checksum, sizes within the file, known types) and every payload's
 * checksum.  On failure returns NULL and writes a one-line reason into err
 * (e.g. "ftrail.dat: unknown section type 99 at offset 4096").  Not errors,
 * but warnings (ft_reader_warning()): a missing END (the file was cut
 * short; ft_reader_truncated() tells it too), a corrupt payload (that
 * section is left out of the index) and a corrupt section header (the
 * index ends before it).
 */
struct ft_reader *ft_reader_open(const char *path, char *err, size_t errlen);
void ft_reader_close(struct ft_reader *r);
int ft_reader_truncated(const struct ft_reader *r);

/*
 * ft_reader_extend - index the sections written since the file was opened
 * (or last extended), checked as at open: for a file being written.  The
 * sections already indexed keep their indexes; META is parsed again (a
 * value ft_reader_meta() returned before may not be valid any more).
 * Return: the number of sections added (0: none complete yet, or the file
 * ended), or -1 with a reason in err.
 */
int ft_reader_extend(struct ft_reader *r, char *err, size_t errlen);

/* Warnings found at open, one line each naming the file; i < nr. */
size_t ft_reader_nr_warnings(const struct ft_reader *r);
const char *ft_reader_warning(const struct ft_reader *r, size_t i);

/* The index: all sections in file order. */
size_t ft_reader_nr_sections(const struct ft_reader *r);
const struct ft_section *ft_reader_section(const struct ft_reader *r, size_t i);

/*
 * Load a section's payload, decompressed, into a malloc'ed buffer the caller
 * frees.  Returns NULL on corruption (message in err), never crashes, never
 * allocates more than the section's declared raw size (bounded by
 * FT_SECTION_MAX_RAW and a sanity check against the compressed size).
 */
void *ft_reader_load(struct ft_reader *r, const struct ft_section *s, size_t *len, char *err,
		     size_t errlen);

/*
 * Concatenate every section of (type, id) in file order; id = UINT64_MAX for
 * any id.  Returns NULL with *len = 0 and err empty when there is none.
 */
void *ft_reader_load_all(struct ft_reader *r, uint32_t type, uint64_t id, size_t *len, char *err,
			 size_t errlen);

/*
 * ft_reader_load_fsmb - every STACKMAP section of id merged into one FSMB v2
 * blob (host order): a stack in a later chunk replaces the same stack_id
 * in an earlier one.  Returns a malloc'ed blob; NULL with *len = 0 and err
 * empty when there is none, NULL with err set on corruption.
 */
void *ft_reader_load_fsmb(struct ft_reader *r, uint64_t id, size_t *len, char *err, size_t errlen);

/* META lookup: value of key, or NULL.  Valid until ft_reader_close(). */
const char *ft_reader_meta(struct ft_reader *r, const char *key);

#endif
