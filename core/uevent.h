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
#define FT_UEV_VERSION 3
#define FT_UEV_SEL_MAX 16384	   /* bytes of selection text */
#define FT_UEV_FMT_AREA (1u << 20) /* bytes for formats */
#define FT_UEV_SEP '\x1f'	   /* separates name, filter, trigger in a line */
#define FT_UEV_EN_IDS 8192	   /* ids whose recording a tool can switch (en[]) */
#define FT_UEV_EDIT_MAX 1024	   /* bytes of a live edit's text, and of its answer */
#define FT_UEV_LIVE_MAX 16384	   /* bytes of the live filters' and triggers' table */
#define FT_UEV_TRIG_SEP '\x1e'	   /* separates triggers in a live table line */

/* What a live edit changes (ft_uev_area.edit_op). */
enum ft_uev_edit_op {
	FT_UEV_EDIT_FILTER = 1, /* text: a filter, "0" (or nothing) clears */
	FT_UEV_EDIT_TRIGGER,	/* text: a trigger to add, "!trigger" removes */
};

/*
 * The shared area.  Ordering: the tool fills sel before the program runs
 * (fork/exec orders it).  Formats: the runtime reserves bytes with a
 * fetch_add on fmt_used, writes an entry { u32 len; u32 ready; text },
 * then stores ready = 1 with release; the recorder acquires ready before
 * reading the text and stops at the first entry not ready.  Counters are
 * relaxed atomic adds, read once the program is gone.
 *
 * Live enable (en[], en_gen: the live mount's events/u/.../enable and
 * set_event): en[id] is 1 while event id is recorded.  The runtime stores
 * it (relaxed) when it gives the id and whenever it switches the event
 * itself (enable_event / disable_event triggers), so a tool reads the
 * current state there.  A tool stores the bytes it wants (relaxed), then
 * increments en_gen (release), then bumps the session's ctl.gen
 * (ft_session_ctl_begin/end), which makes the runtime sync at its next
 * hook or in its live thread; the runtime loads en_gen (acquire) and, when
 * it moved, applies every id's byte.  The last store wins: a trigger that
 * flips an event just after the tool wrote is not undone.
 *
 * Live edits (edit_*, live_*: the live mount's events/u/.../filter and
 * trigger): one request at a time (a tool serialises its own; two tools
 * at once are not supported).  The tool fills edit_op, edit_sys,
 * edit_name and edit_text, increments edit_gen (release), then bumps the
 * session's ctl.gen, which wakes the runtime's live thread (never a hook:
 * compiling a filter allocates).  The runtime acquires edit_gen, applies
 * the edit to every type of that name, writes edit_res (0 or -errno) and,
 * on failure, a one-line reason into edit_text, then stores edit_done =
 * edit_gen (release); the tool acquires edit_done before it reads them.
 *
 * live[] is the runtime's table of the filters and triggers of every
 * event edited so far ("sys SEP name SEP filter SEP trig RS trig\n", RS =
 * FT_UEV_TRIG_SEP), rewritten by the live thread after each edit and read
 * by tools as a seqlock: live_seq is odd while it is rewritten (release
 * stores around the text, a release fence after the odd store); a reader
 * acquires it, copies, fences (acquire) and retries when it moved or was
 * odd.  An event not in it still has what the selection (sel) gave it.
 * A traced tree that forked shares the area: every process applies the
 * edit to its own events, the tool reads the first answer, and each
 * rewrites the same table (two rewriting at once can show a reader a
 * mixed table, never bytes outside live[]; the next rewrite, within a
 * second, repairs it).
 */
struct ft_uev_area {
	uint32_t magic;
	uint32_t version;
	uint32_t next_id;     /* atomic: last event id handed out (ids start at 1) */
	uint32_t fmt_used;    /* atomic: bytes reserved in fmt[] */
	uint64_t written;     /* events written */
	uint64_t filtered;    /* events dropped by their filter */
	uint64_t lost;	      /* events the ring buffer could not take */
	uint64_t truncated;   /* strings/bytes cut to FTRAIL_MAX_DYN */
	uint64_t triggers;    /* trigger actions taken */
	uint64_t snap_missed; /* snapshot triggers without a spare buffer */
	uint32_t nr_events;   /* atomic: descriptors enabled at least once */
	uint32_t msg_used;    /* atomic: bytes of msg[] used */
	char msg[2048];	      /* runtime's warnings ("unknown event ..."), '\n' separated */
	char sel[FT_UEV_SEL_MAX];
	char fmt[FT_UEV_FMT_AREA];
	uint32_t en_gen;	   /* atomic: a tool's changes to en[] (see above) */
	uint8_t en[FT_UEV_EN_IDS]; /* per id: 1 recorded, 0 not */
	/* live edits (see above) */
	uint32_t edit_gen;  /* atomic: the tool's requests */
	uint32_t edit_done; /* atomic: the runtime's last answered request */
	int32_t edit_res;   /* 0, or -errno (EINVAL, EEXIST, ENOENT, ENOSPC, ENODEV) */
	uint32_t edit_op;   /* enum ft_uev_edit_op */
	char edit_sys[64], edit_name[64];
	char edit_text[FT_UEV_EDIT_MAX];
	uint32_t live_seq; /* atomic: odd while live[] is rewritten */
	uint32_t live_len; /* bytes of live[] */
	char live[FT_UEV_LIVE_MAX];
};

/* Runtime side: the area from the environment, or NULL. */
struct ft_uev_area *ft_uev_attach(void);

/*
 * Runtime side: map the area open as fd (record -P hands it over through
 * ftrail_attach, not the environment).  The mapping outlives fd; NULL when
 * fd is not an area of this version.
 */
struct ft_uev_area *ft_uev_map(int fd);

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

#endif
