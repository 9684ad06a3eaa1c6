/* SPDX-License-Identifier: GPL-2.0 */
/*
 * User trace events (include/ftrail/ftrail.h) between the three address
 * spaces: the traced program's runtime, `ftrail record`, and the readers.
 *
 * 1. Formats.  The runtime describes each event it gives an id to in the
 *    text of a tracefs "format" file, with a "system:" line added:
 *
 *        name: request
 *        ID: 3
 *        system: myapp
 *        format:
 *        	field:unsigned int common_type;	offset:0;	size:4;	signed:0;
 *
 *        	field:u32 id;	offset:4;	size:4;	signed:0;
 *        	field:__data_loc char[] path;	offset:8;	size:4;	signed:0;
 *        	field:u8 key[16];	offset:12;	size:16;	signed:0;
 *        	field:__data_loc u8[] payload;	offset:28;	size:4;	signed:0;
 *        	field:void * ctx;	offset:32;	size:8;	signed:0;
 *
 *        print fmt: "id=%u path=%s ...", REC->id, __get_str(path), ...
 *
 *    (libtraceevent parses it; our own parser below reads it back).  The
 *    recorder stores the concatenated blocks as the UFORMATS section; the
 *    payload of an FT_EXT_EVENT record is the event's record, id included.
 *
 * 2. The shared area (struct ft_uev_area).  The tool writes the selection
 *    (one line per user -e: name, filter, trigger) before the program
 *    starts; the runtime appends formats and counters.  It is a memfd of
 *    its own, inherited across fork and exec through the environment
 *    variable FT_UEV_ENV_FD, so that it needs nothing from the session
 *    block's layout (session.h may absorb it later: see doc/events.md).
 *
 * 3. Rendering for `ftrail show`: ft_uev_table_load() + ft_uev_print().
 */
#ifndef FTRAIL_UEVENT_H
#define FTRAIL_UEVENT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include <ftrail/ftrail.h>

#define FT_UEV_ENV_FD "FTRAIL_UEV_FD"
#define FT_UEV_MAGIC 0x45555446u /* "FTUE" */
#define FT_UEV_VERSION 1
#define FT_UEV_SEL_MAX 16384    /* bytes of selection text */
#define FT_UEV_FMT_AREA (1u << 20) /* bytes for formats */
#define FT_UEV_SEP '\x1f'       /* separates name, filter, trigger in a line */

/*
 * The shared area.  Ordering: the tool fills sel before the program runs
 * (fork/exec orders it).  Formats: the runtime reserves bytes with a
 * fetch_add on fmt_used, writes an entry { u32 len; u32 ready; text },
 * then stores ready = 1 with release; the recorder acquires ready before
 * reading the text and stops at the first entry not ready.  Counters are
 * relaxed atomic adds, read once the program is gone.
 */
struct ft_uev_area {
	uint32_t magic;
	uint32_t version;
	uint32_t next_id;      /* atomic: last event id handed out (ids start at 1) */
	uint32_t fmt_used;     /* atomic: bytes reserved in fmt[] */
	uint64_t written;      /* events written */
	uint64_t filtered;     /* events dropped by their filter */
	uint64_t lost;         /* events the ring buffer could not take */
	uint64_t truncated;    /* strings/bytes cut to FTRAIL_MAX_DYN */
	uint64_t triggers;     /* trigger actions taken */
	uint64_t snap_missed;  /* snapshot triggers without a spare buffer */
	uint32_t nr_events;    /* atomic: descriptors enabled at least once */
	uint32_t msg_used;     /* atomic: bytes of msg[] used */
	char msg[2048];        /* runtime's warnings ("unknown event ..."), '\n' separated */
	char sel[FT_UEV_SEL_MAX];
	char fmt[FT_UEV_FMT_AREA];
};

struct ft_record_opts;
struct ft_writer;

/*
 * Tool side, before the program starts: check every user -e selection (the
 * trigger syntax, the filter syntax as far as it can be checked without the
 * event's fields), create the area (memfd, mode 0600 by nature, not
 * close-on-exec), fill the selection and export its fd in FT_UEV_ENV_FD.
 * is_kernel(name) tells which -e names the kernel takes (may be NULL).
 * Returns the area (unmapped by ft_uev_finish), NULL with nothing to do
 * (no user event selected; *err empty), or NULL with a one-line reason.
 */
struct ft_uev_area *ft_uev_setup(const struct ft_record_opts *o, int (*is_kernel)(const char *),
				 char *err, size_t errlen);

/*
 * Tool side, after the program ended: write the UFORMATS section, report
 * counters (into stats, may be NULL), copy the runtime's warnings into
 * msg (may be NULL), and unmap.  Returns 0, or -1 (write failure, errno).
 */
struct ft_uev_stats {
	uint64_t written, filtered, lost, truncated, triggers, snap_missed;
	uint32_t nr_events;
};
int ft_uev_finish(struct ft_uev_area *a, struct ft_writer *w, struct ft_uev_stats *stats,
		  char *msg, size_t msglen);

/*
 * Tool side: the events an ELF file defines, read from its __ftrail_events
 * section and relocations without running it.  fn gets a descriptor whose
 * strings and fields are valid during the call (fmt NULL); a non-zero
 * return stops the walk.  Returns the number of events seen, or -1 with a
 * reason (unreadable, not ELF).
 */
int ft_uev_scan_file(const char *path, int (*fn)(const struct ftrail_event *ev, void *arg),
		     void *arg, char *err, size_t errlen);

/* Runtime side: the area from the environment, or NULL. */
struct ft_uev_area *ft_uev_attach(void);

/*
 * Does the -e name select sys:event?  Names: "all", "SYS", "SYS:EVENT",
 * each optionally prefixed "u:" (user events only); SYS and EVENT may be
 * globs.  Returns 1 or 0.
 */
int ft_uev_name_match(const char *sel, const char *sys, const char *event);

/* Does the -e name select exactly one event (u:SYS:EVENT without glob)? */
int ft_uev_sel_exact(const char *name);

/* Format text of ev with id into buf (see above).  Returns bytes (snprintf-like). */
int ft_uev_format(const struct ftrail_event *ev, uint32_t id, char *buf, size_t len);

/* ---- reader side ---- */

struct ft_uev_fmt {
	uint32_t id;
	char sys[64];
	char name[64];
	uint32_t nr_fields;
	struct ftrail_field fields[FTRAIL_MAX_FIELDS];
	char fnames[FTRAIL_MAX_FIELDS][64];
};

struct ft_uev_table {
	struct ft_uev_fmt *fmts;
	size_t nr;
};

/*
 * Parse UFORMATS text (len bytes).  Returns 0, or -1 with a one-line reason
 * ("UFORMATS: line 7: bad field line") -- hostile input never crashes.
 * Free with ft_uev_table_free().
 */
int ft_uev_table_parse(struct ft_uev_table *t, const char *text, size_t len, char *err,
		       size_t errlen);
void ft_uev_table_free(struct ft_uev_table *t);

struct ft_reader;

/*
 * Load and parse every UFORMATS section of a trace file.  Returns 0 (an
 * empty table when there is none), or -1 with a one-line reason.
 */
int ft_uev_table_load(struct ft_uev_table *t, struct ft_reader *r, char *err, size_t errlen);

/*
 * The table of reader r, loaded on first use and kept until another reader
 * is asked for (single-threaded display code).  A malformed UFORMATS gives
 * an empty table (events then show as "user_event: id=N len=L").
 */
const struct ft_uev_table *ft_uev_table_cached(struct ft_reader *r);

/* Look an id up; NULL when unknown. */
const struct ft_uev_fmt *ft_uev_table_find(const struct ft_uev_table *t, uint32_t id);

/*
 * Render an event: "name: field=value field=value" (ftrace's layout for
 * events) into out, given data = the record after its u32 id (len bytes),
 * as analysis/trace.h's FT_EV_EVENT hands it.  Unknown id: "user_event:
 * id=N len=L".  Values: unsigned/signed decimal, pointers 0x%llx, strings
 * as is (cut at their NUL), arrays and byte sequences as hex digits.
 * Returns out.
 */
char *ft_uev_render(const struct ft_uev_table *t, uint32_t id, const void *data, size_t len,
		    char *out, size_t outlen);

#endif
