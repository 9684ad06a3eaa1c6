/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The unified trace reader: opens a trace file (core/tracefile.h), loads its
 * tables, decodes every UDATA buffer (core/record.h) and merges them -- and
 * any other event source, such as the kernel events of analysis/kevents.h --
 * into one stream ordered by time.  Every analysis (show, report, stacks,
 * offcpu, flame, export...) reads through this.
 *
 * META keys this reader uses ("key=value" lines; a key written twice takes
 * its last value, so a META chunk written at the end of the recording
 * updates earlier ones).  Written by cmd/record.c, core/clock.h and
 * recorder/urecord.c:
 *
 *   clock=x86-tsc|mono          ticks -> ns (core/clock.h, ft_clock_meta()):
 *   tsc_mult=<u32>                ns = tsc_ref_ns + ((ticks - tsc_ref) * tsc_mult >> tsc_shift)
 *   tsc_shift=<u32>             missing: ticks are taken as ns, with a warning
 *   tsc_ref=<u64 ticks>
 *   tsc_ref_ns=<u64 ns>
 *   tracer=nop|function|function_graph   missing: guessed from the records
 *   options=<ft_options_format() list>   record-time options; show starts
 *                               from their display bits, then applies -O
 *   nr_cpus=<n>                 "#P:" in headers (default 1)
 *   kernel=<uname -r>           latency-format header
 *   cmdline=<traced command>    latency-format header ("task:")
 *   user_lost=<u64>             events lost in all user buffers; with the
 *                               decoded count gives "entries-written"
 *                               (written=<u64> overrides when present)
 *
 * Other sections this reader loads: MODULES (one line per mapped object;
 * the module index is the 0-based line number; see core/symbols.h for how
 * "start" and "file offset" give the module base), FUNCS, SYMTAB (id =
 * module index), KALLSYMS, STACKMAP (id 0 user, 1 kernel), TASKS.
 *
 * Buffers.  A UDATA section id is a buffer id: one thread at one nesting
 * level.  The chunks of one id form, in file order, one sequence of pages
 * (a page may be cut across chunks); they are loaded one at a time while
 * the stream is read, so memory stays near two chunks per buffer.  Each page header gives pid, tid
 * and level; its `lost` count is reported as an FT_EV_LOST event at the page's time, before its
 * first record; its `depth` resynchronises the function_graph depth tracked for the buffer (after
 * lost pages, frames whose exit was lost are dropped, frames whose entry was lost are inserted as
 * unknown, fid FT_FID_UNKNOWN).  Records that qualify the previous one (PARENT_ADDR after FUNC)
 * must be in the same page; a STACK / STACK_ID record becomes an FT_EV_STACK event of its own that
 * follows the event it belongs to.
 *
 * Errors: a corrupt file or record makes ft_trace_open()/ft_trace_next()
 * fail with a one-line reason; nothing is read out of bounds.  A file cut
 * short is read up to its last complete section, with a warning
 * (ft_trace_warnings()).
 */
#ifndef FTRAIL_TRACE_H
#define FTRAIL_TRACE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "core/symbols.h"

#define FT_FID_UNKNOWN UINT32_MAX

enum ft_ev_type {
	FT_EV_ENTRY,	 /* function_graph entry: fid, depth */
	FT_EV_EXIT,	 /* function_graph exit: fid, depth, duration (if has_entry) */
	FT_EV_FUNC,	 /* function tracer: fid, parent_fid or parent_addr */
	FT_EV_STACK,	 /* stack of the previous event: stack_id and/or ips */
	FT_EV_LOST,	 /* count events lost at this point of this buffer */
	FT_EV_MARKER,	 /* data/len: trace_marker text */
	FT_EV_BINMARKER, /* data/len: trace_marker_raw bytes */
	FT_EV_EVENT,	 /* user trace event: event_id, data/len its fields */
	FT_EV_COMM,	 /* data/len: the thread's new name */
	FT_EV_FORK,	 /* count: child pid */
	FT_EV_EXEC,	 /* data/len: new program */
	FT_EV_TEXIT,	 /* count: exit status (int) */
	FT_EV_SIGNAL,	 /* count: signal number; the program's handler starts (its
			  * calls follow at level + 1) */
	FT_EV_TRACE_ON,
	FT_EV_TRACE_OFF,
	FT_EV_SOURCE, /* from an added source (kernel events): src, priv */
	FT_EV_SIGRET, /* count: signal number; its handler is done (unwound: left
		       * by siglongjmp), level is the interrupted context's again */
	FT_EV_ULAT,   /* data/len: a user-space latency tracer's result (core/ulat.h) */
	FT_EV_TNAME,  /* data/len: the thread's name as its stream starts.  Applied
		       * to the names (ft_trace_comm) by ft_trace_next() and
		       * ft_trace_scan_buffers(), never handed to their callers */
};

struct ft_trace_source;

struct ft_event {
	enum ft_ev_type type;
	uint64_t ts; /* ns on the trace clock */
	uint32_t pid, tid;
	int cpu;	      /* -1 for user events (the runtime does not know it) */
	uint16_t level;	      /* 0 thread context, 1.. nested signal handler (the ring's
			       * level plus the handlers open in its stream) */
	uint64_t buffer;      /* UDATA id; UINT64_MAX for source events */
	int depth;	      /* ENTRY/EXIT: nesting depth, 0 = outermost; others: open frames */
	uint32_t fid;	      /* ENTRY/EXIT/FUNC; STACK: fid of the event it follows */
	uint32_t parent_fid;  /* FUNC: parent's fid, or FT_FID_UNKNOWN */
	uint64_t parent_addr; /* FUNC: parent return address when not a traced function */
	uint64_t duration;    /* EXIT: ns since the entry (valid if has_entry) */
	int has_entry;	      /* EXIT: its entry was seen */
	int unwound;	      /* EXIT: frame left without a return (longjmp, throw);
			       * SIGRET: handler left by siglongjmp */
	uint64_t count;	      /* LOST/FORK/TEXIT/SIGNAL, see above */
	uint32_t event_id;    /* EVENT; SIGNAL: the handler's level when the record
			       * carries it (a SIGRET follows), else 0 */
	const void *data;     /* MARKER/BINMARKER/EVENT/COMM/EXEC payload; ENTRY: captured
			       * arguments, EXIT: return value (core/argspec.h items), or NULL */
	size_t len;
	int64_t stack_id;    /* STACK: id in the user map, or -1 */
	const uint64_t *ips; /* STACK: the addresses (from the map or inline) */
	uint32_t nr_ips;
	/* SOURCE events */
	const char *comm; /* the source's task name, or NULL (then TASKS is used) */
	const struct ft_trace_source *src;
	void *priv;
};

/*
 * Another event stream merged by time (the kernel's).  next() fills *ev
 * (type FT_EV_SOURCE, ts in ns on the trace clock -- convert ticks with
 * ft_trace_tsc_to_ns() -- pid/tid/cpu, and priv for its own use), and
 * returns 1, 0 at the end, or -1 with a reason in err.  Whatever priv
 * points to must stay valid until the following next() call of the same
 * source.  print() writes the event's text after the context columns
 * ("sched_switch: prev_comm=..."), without newline.
 */
struct ft_trace_source {
	const char *name;
	int (*next)(void *arg, struct ft_event *ev, char *err, size_t errlen);
	void (*print)(void *arg, const struct ft_event *ev, FILE *f);
	void *arg;
};

struct ft_trace;

/*
 * Open a trace file and load its tables (META, MODULES, FUNCS, SYMTAB,
 * KALLSYMS, STACKMAP, TASKS) and the first chunk of each UDATA buffer.
 * NULL with a one-line reason in err.
 */
struct ft_trace *ft_trace_open(const char *path, char *err, size_t errlen);
void ft_trace_close(struct ft_trace *t);

/*
 * The same, reading a snapshot the file holds (FT_SEC_SNAPSHOT,
 * core/snapshot.h) instead of the live trace (UDATA): which = N >= 1 the
 * N-th saved, 0 (or < 0) the last; no buffer at all when there is none.  ft_trace_snapshot_info() gives a key of that snapshot's
 * header ("state": taken|cleared|freed, "snapshot": its number, ...) into
 * buf, or NULL (no snapshot, or no such key).
 */
struct ft_trace *ft_trace_open_snapshot(const char *path, int which, char *err, size_t errlen);
const char *ft_trace_snapshot_info(struct ft_trace *t, const char *key, char *buf, size_t len);

/* Warnings gathered while opening (cut-short file, missing clock...). */
size_t ft_trace_nr_warnings(const struct ft_trace *t);
const char *ft_trace_warning(const struct ft_trace *t, size_t i);

/* The underlying file, for sections this reader does not interpret. */
struct ft_reader *ft_trace_reader(struct ft_trace *t);
const char *ft_trace_meta(struct ft_trace *t, const char *key);

/* ticks -> ns with META's clock. */
uint64_t ft_trace_tsc_to_ns(const struct ft_trace *t, uint64_t ticks);

/* "function_graph", "function" or "nop": META tracer, or guessed. */
const char *ft_trace_tracer(const struct ft_trace *t);

/* Merge another source (before the first ft_trace_next()).  0 or -1. */
int ft_trace_add_source(struct ft_trace *t, const struct ft_trace_source *src);

/*
 * The next event in time order (ties: user buffers by id, then sources in
 * the order added).  Returns 1 and fills *ev, 0 at the end, -1 on a corrupt
 * record (reason in err).  Pointers in *ev stay valid until the next call.
 */
int ft_trace_next(struct ft_trace *t, struct ft_event *ev, char *err, size_t errlen);

/*
 * The same without the copy: *ev points to the reader's own event, which
 * stays valid (and unchanged, ft_trace_peek_buffer*() included) until the
 * next ft_trace_next*() call.  For readers that go through every event.
 */
int ft_trace_next_ref(struct ft_trace *t, const struct ft_event **ev, char *err, size_t errlen);

/*
 * Every event of the user buffers, one buffer after the other (buffer id
 * order, not time order), to fn; added sources are not read.  For
 * analyses that do not depend on the order across threads (report): no
 * merge by time.  COMM events rename as in ft_trace_next().  fn returns 0
 * to go on, anything else to stop (returned as it is).  Returns 0 when
 * every event was seen, -1 on a corrupt record (reason in err; the reader
 * then fails until rewound, as after ft_trace_next()).  ev is valid during
 * the call only.  A later ft_trace_next() starts from the first event.
 */
int ft_trace_scan_buffers(struct ft_trace *t, int (*fn)(const struct ft_event *ev, void *arg),
			  void *arg, char *err, size_t errlen);

/*
 * The event that comes next in the same user buffer as ev (for the
 * function_graph leaf test), without consuming it.  1 and *next filled, 0
 * when the buffer has nothing more, -1 on corruption.
 */
int ft_trace_peek_buffer(struct ft_trace *t, const struct ft_event *ev, struct ft_event *next);

/* The same without the copy: *next is valid until the next ft_trace_next*() call. */
int ft_trace_peek_buffer_ref(struct ft_trace *t, const struct ft_event *ev,
			     const struct ft_event **next);

/*
 * Following a file being written (live/follow.h): ft_trace_refresh() takes
 * in what was appended since the trace was opened or last refreshed --
 * thread names, functions, modules, stacks, and the chunks of user
 * buffers, new ones included -- and ft_trace_next*() goes on from where it
 * was: each buffer's decoding carries on (open calls, depth), a buffer
 * that had ended (read to its last chunk) goes on with its new chunks, and
 * events are merged by time from there.  Only the user buffers grow: an
 * added source is read as it was (a follower of kernel events opens the
 * file again).  Not for a snapshot.  Return: 1 when sections were added,
 * 0 when none (nothing complete yet, or the file ended), -1 with a reason
 * in err (the reader then fails as after ft_trace_next()).
 */
int ft_trace_refresh(struct ft_trace *t, char *err, size_t errlen);

/*
 * Give back the event the last ft_trace_next*() returned: the next call
 * returns it again (a follower stops before an event it cannot hand on
 * yet).  Not after ft_trace_peek_buffer*() found the next event of its
 * buffer.  Return: 0, or -1 when it cannot be given back.
 */
int ft_trace_unget(struct ft_trace *t);

/* Rewind to the first event (sources are not rewound: add them again). */
int ft_trace_rewind(struct ft_trace *t, char *err, size_t errlen);

/* Counters after a full pass: records decoded and events reported lost. */
uint64_t ft_trace_nr_decoded(const struct ft_trace *t);
uint64_t ft_trace_nr_lost(const struct ft_trace *t);

/*
 * The capture specs the recording used (the ARGSPEC section: core/argspec.h
 * lines, '\n' separated, NUL-terminated), or NULL when it captured nothing.
 */
const char *ft_trace_argspec(const struct ft_trace *t, size_t *len);

/* Tables. */
uint32_t ft_trace_nr_funcs(const struct ft_trace *t);
uint64_t ft_trace_func_addr(const struct ft_trace *t, uint32_t fid); /* 0 if unknown */
const struct ft_symbols *ft_trace_symbols(const struct ft_trace *t);

/*
 * Name of fid ("name", or "name+0xoff/0xsize" with sym_offset), or of an
 * address; unresolvable ones print as "0x<addr>" / "fid#N".  Returns buf.
 */
const char *ft_trace_func_name(const struct ft_trace *t, uint32_t fid, int sym_offset, char *buf,
			       size_t len);
const char *ft_trace_addr_name(const struct ft_trace *t, uint64_t addr, int sym_offset, char *buf,
			       size_t len);

/*
 * Path of the object fid's code is in: a library call's library (the
 * PLT import's target), else the object that holds fid; NULL when the
 * trace does not say.  Valid while t is open.
 */
const char *ft_trace_func_object(const struct ft_trace *t, uint32_t fid);
/* The library of a library call (fid a PLT import), else NULL. */
const char *ft_trace_func_library(const struct ft_trace *t, uint32_t fid);

/* The same for an address seen in process pid (its own modules first). */
const char *ft_trace_addr_name_pid(const struct ft_trace *t, uint32_t pid, uint64_t addr,
				   int sym_offset, char *buf, size_t len);

/* Threads with user records (thread lives: a tid reused later counts again). */
size_t ft_trace_nr_threads(const struct ft_trace *t);

/*
 * Thread name of tid (TASKS, updated by COMM events and by a thread's name
 * at its stream's start, FT_EV_TNAME, as the stream is read).
 */
const char *ft_trace_comm(const struct ft_trace *t, uint32_t tid);

/*
 * Moves whenever a name changes: a caller that keeps what ft_trace_comm()
 * said looks again when this differs (a start's name is no event to see).
 */
uint64_t ft_trace_names_gen(const struct ft_trace *t);

/* Stack by id: map 0 user, 1 kernel.  0 with ips/nr, or -1 when unknown. */
int ft_trace_stack(const struct ft_trace *t, int map, uint32_t id, const uint64_t **ips,
		   uint32_t *nr);

#endif
