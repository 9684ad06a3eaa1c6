/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The session: one shared-memory block (a memfd created by the recorder)
 * that the injected runtime (libftrail.so) and the recorder both map.
 * Everything the runtime writes lives here, so a crash of the traced program
 * loses nothing already written.
 *
 *   +---------------------------+ 0
 *   | struct ft_session_hdr     |  magic, version, sizes and offsets below
 *   +---------------------------+ hdr.ctl_off
 *   | struct ft_session_ctl     |  control block: the TOOL writes, the runtime
 *   |                           |  reads (tracer, options, tracing_on, filter
 *   |                           |  lists as text, depth, thresh, pid filter);
 *   |                           |  plus a status area the RUNTIME writes
 *   +---------------------------+ hdr.funcs_off
 *   | struct ft_session_func[]  |  fid -> address (+ module): written by the
 *   |                           |  runtime, same layout as the FUNCS section
 *   +---------------------------+ hdr.mods_off
 *   | struct ft_session_module[]|  loaded objects, written by the runtime at
 *   |                           |  start, on dlopen and after exec
 *   +---------------------------+ hdr.stackmap_off
 *   | stack map flat block      |  stackmap.h (ft_stackmap_init by the tool,
 *   |                           |  ft_stackmap_attach by runtime and reader)
 *   +---------------------------+ hdr.ring_off
 *   | ring buffer area          |  owned by ringbuf.h; ring_size bytes, zeroed
 *   +---------------------------+ hdr.total_size
 *
 * Every offset is 4096-aligned.  The block holds no pointers.
 *
 * How the runtime finds the block: the recorder leaves the memfd open across
 * exec (no FD_CLOEXEC) and puts its number in the environment variable
 * FT_SESSION_ENV_FD ("FTRAIL_SHM_FD").  The runtime maps the whole file
 * (fstat for the size), checks it with ft_session_check(), and re-does so
 * after an exec (the variable and the fd survive exec).
 *
 * Memory ordering (the contract both sides follow):
 *  - Control values (tracer, options, tracing_on, max_graph_depth,
 *    thresh_ticks, pids, lists) are written by the tool between two
 *    increments of ctl.gen, seqlock style: gen odd = update in progress.
 *    ft_session_ctl_begin() does the first increment (release after), and
 *    ft_session_ctl_end() the second (release), publishing every change.  The
 *    runtime reads gen with acquire; when it differs from the value it last
 *    applied and is even, it copies what it needs, re-reads gen (acquire
 *    fence before) and retries if it moved.  tracing_on alone may also be
 *    flipped with a single atomic store without touching gen (the runtime
 *    loads it relaxed on every hook; function triggers flip it too).
 *  - Live control: a change reaches the program at its next hook, and a
 *    program whose selection patches no function it runs has none.  When
 *    the tool sets ctl.live before the program starts (or before attaching),
 *    the runtime keeps one thread of its own sleeping on the futex word
 *    ctl.gen (shared, FUTEX_WAIT); ft_session_ctl_end() wakes it, and it
 *    applies the change under the runtime's lock as a hook would.  Without
 *    ctl.live no thread is added to the program.  A tool may also set
 *    ctl.live while the program runs (ftrail mount on a recording started
 *    without --mount: relaxed store, then a ctl_begin/end pair): the hook
 *    that applies that generation starts the thread (outside the
 *    program's signal handlers), and every later change reaches it.
 *  - Function table: the runtime takes a fid with an atomic fetch_add on
 *    ctl.next_fid, fills the entry, then stores its flags with
 *    FT_SFUNC_VALID (release).  A reader acquires flags before reading addr
 *    and module; an entry without VALID is skipped (it can only be the one a
 *    crash interrupted, and no record can name it yet).  A record naming fid
 *    N is written only after entry N is VALID.
 *  - Modules: same scheme, ctl.next_module / FT_SMOD_VALID.
 */
#ifndef FTRAIL_SESSION_H
#define FTRAIL_SESSION_H

#include <stddef.h>
#include <stdint.h>

#include "core/tracefile.h"

#define FT_SESSION_MAGIC 0x53525446u /* "FTRS" little endian */
#define FT_SESSION_VERSION 4
#define FT_SESSION_ENV_FD "FTRAIL_SHM_FD"

#define FT_SESSION_LIST_MAX 16384 /* bytes of text per filter list, NUL included */
#define FT_SESSION_MAX_PIDS 64
#define FT_SESSION_MAX_FUNCS (1u << 20) /* fids [0, 2^20) */
#define FT_SESSION_MAX_MODULES 1024
#define FT_SESSION_PATH_MAX 512
#define FT_SESSION_MSG_MAX 1024
#define FT_SESSION_MSG_LINE_MAX 255 /* bytes of one runtime warning */
#define FT_SESSION_ARGS_MAX 65536   /* bytes of capture specs, NUL included */
#define FT_SESSION_PATCH_MAX 4096   /* bytes of --patch lines, NUL included */
/* the user stack map's capacity 2^N when -T is on and --stackmap-bits is not given */
#define FT_SESSION_STACK_BITS 17

enum ft_tracer {
	FT_TRACER_NOP = 0,
	FT_TRACER_FUNCTION = 1,
	FT_TRACER_FUNCTION_GRAPH = 2,
	/* user-space latency tracers (doc/latency-user.md): runtime/stacktracer.c
	 * and runtime/locklat.c; FT_TRACER_IS_ULAT() tells them apart */
	FT_TRACER_STACK = 3,	/* deepest user stack of each thread */
	FT_TRACER_LOCKHELD = 4, /* longest pthread mutex holds (preemptoff's analogue) */
	FT_TRACER_SIGSOFF = 5,	/* longest signals-blocked sections (irqsoff's analogue) */
};

#define FT_TRACER_IS_ULAT(t) ((t) >= FT_TRACER_STACK && (t) <= FT_TRACER_SIGSOFF)

/*
 * The four filter lists, each as ftrace's control-file text: one entry per
 * line ('\n' separated), applied in order, like successive appends (">>") to
 * the file of the same name:
 *   FILTER         set_ftrace_filter: GLOB, !GLOB (remove), GLOB:mod:MODULE,
 *                  FUNC:traceon|traceoff|stacktrace|snapshot[:COUNT]
 *                  (a command line does not select the function for tracing,
 *                  as in ftrace; !FUNC:cmd removes the command)
 *   NOTRACE        set_ftrace_notrace: GLOB, !GLOB, GLOB:mod:MODULE
 *   GRAPH          set_graph_function
 *   GRAPH_NOTRACE  set_graph_notrace
 * An empty FILTER list means "all functions" (minus NOTRACE).
 */
enum ft_session_list {
	FT_SL_FILTER = 0,
	FT_SL_NOTRACE = 1,
	FT_SL_GRAPH = 2,
	FT_SL_GRAPH_NOTRACE = 3,
	FT_SL_NR
};

/* ctl.rt_hooks: which kinds of instrumentation the runtime found/saw. */
#define FT_HOOK_MCOUNT 0x01    /* -pg calls to mcount seen */
#define FT_HOOK_FENTRY 0x02    /* -pg -mfentry calls to __fentry__ seen */
#define FT_HOOK_NOP_SITES 0x04 /* __mcount_loc nops (-mnop-mcount -mrecord-mcount) */
#define FT_HOOK_PATCHABLE 0x08 /* __patchable_function_entries sites */
#define FT_HOOK_CYG 0x10       /* -finstrument-functions calls seen */
#define FT_HOOK_DYNPATCH 0x20  /* --patch: functions patched by decoding their entry */

struct ft_session_ctl {
	/* ---- written by the tool (see the ordering contract above) ---- */
	uint32_t gen;				   /* seqlock generation, even when stable */
	uint32_t tracer;			   /* enum ft_tracer */
	uint32_t tracing_on;			   /* 0/1: tracing_on */
	int32_t max_graph_depth;		   /* 0 = unlimited */
	uint64_t options;			   /* options.h bits (record-time ones used) */
	uint64_t thresh_ticks;			   /* tracing_thresh in clock ticks, 0 = off */
	uint32_t nr_pids;			   /* set_ftrace_pid: 0 = every thread */
	uint32_t pids[FT_SESSION_MAX_PIDS];	   /* thread ids (gettid) to trace */
	uint32_t stack_depth;			   /* max frames of a stacktrace (<= 64) */
	uint32_t live;				   /* 1: changes apply at once (live control) */
	char lists[FT_SL_NR][FT_SESSION_LIST_MAX]; /* NUL-terminated text */
	/* argument / return-value capture specs: core/argspec.h lines, '\n'
	 * separated, NUL-terminated; '#' lines are not specs */
	char args[FT_SESSION_ARGS_MAX];
	/*
	 * --patch: functions without instrumentation to patch at their entry
	 * (runtime/dynpatch.c), one GLOB or GLOB:mod:MODULE per line ('\n'
	 * separated, NUL-terminated).  Read once when the runtime starts.
	 */
	char patch[FT_SESSION_PATCH_MAX];

	/* ---- written by the runtime ---- */
	uint32_t next_fid;	   /* atomic: fids handed out (may exceed MAX_FUNCS) */
	uint32_t next_module;	   /* atomic: module slots handed out */
	uint32_t rt_hooks;	   /* atomic OR of FT_HOOK_* */
	uint32_t rt_attached;	   /* atomic: number of runtime inits (processes, execs) */
	uint32_t rt_patched;	   /* sites currently patched (last process to apply) */
	uint32_t rt_selected;	   /* functions selected by the filters */
	uint32_t rt_funcs_dropped; /* functions seen when the table was full */
	uint32_t rt_msg_len;	   /* atomic: bytes reserved in rt_msg (may exceed MSG_MAX) */
	uint32_t rt_msg_dropped;   /* atomic: messages that did not fit in rt_msg */
	/* warnings for the recorder to print: records, see ft_session_msg() */
	_Alignas(4) char rt_msg[FT_SESSION_MSG_MAX];
};

/* Function table entry: the FUNCS section's layout exactly. */
#define FT_SFUNC_VALID 0x80000000u
#define FT_SFUNC_PATCHED 0x1u /* a run-time patched site */
#define FT_SFUNC_CYG 0x2u     /* seen through -finstrument-functions */
/* FT_FUNC_LIB_SHIFT, FT_FUNC_LIB_MASK (tracefile.h): a library call's library */
struct ft_session_func {
	uint64_t addr;	 /* absolute entry address in the traced process */
	uint32_t module; /* index into the module table */
	uint32_t flags;	 /* FT_SFUNC_*; VALID stored last (release) */
};

#define FT_SMOD_VALID 0x1u
#define FT_SMOD_MAIN 0x2u /* the main program */
#define FT_SMOD_DLOPEN 0x4u
struct ft_session_module {
	uint64_t start;	       /* lowest mapped address of the object */
	uint64_t end;	       /* end of its highest PT_LOAD segment */
	uint64_t offset;       /* file offset of the start mapping (0 normally) */
	uint64_t bias;	       /* load bias (dlpi_addr): symbol value + bias = address */
	uint32_t pid;	       /* process that mapped it */
	uint32_t space;	       /* address-space generation: ctl.rt_attached at init */
	uint32_t flags;	       /* FT_SMOD_*; VALID stored last (release) */
	uint32_t build_id_len; /* 0 when the object has no NT_GNU_BUILD_ID */
	uint8_t build_id[32];
	char path[FT_SESSION_PATH_MAX]; /* absolute when known, NUL-terminated */
};

struct ft_session_hdr {
	uint32_t magic;	     /* FT_SESSION_MAGIC */
	uint32_t version;    /* FT_SESSION_VERSION */
	uint64_t total_size; /* of the whole block */
	uint64_t ctl_off;
	uint64_t funcs_off;
	uint32_t max_funcs;   /* entries at funcs_off */
	uint32_t max_modules; /* entries at mods_off */
	uint64_t mods_off;
	uint64_t stackmap_off;
	uint64_t stackmap_size;
	uint64_t ring_off;
	uint64_t ring_size;
	uint32_t stackmap_bits;
	uint32_t recorder_pid;
	uint64_t clock_mult_shift; /* informational: mult << 32 | shift */
};

struct ft_record_opts;
struct ft_clock;

/* Bytes the whole block needs for a ring area of ring_size bytes. */
size_t ft_session_size(const struct ft_record_opts *o, size_t ring_size);

/*
 * Tool side.  Format mem (len >= ft_session_size(), zero-filled, e.g. a fresh
 * ftruncate'd memfd) as a session: header, control block filled from o (the
 * tracer, options, tracing_on = 1, every filter list, max_graph_depth, pids,
 * tracing_thresh converted to ticks with clk), an empty function and module
 * table, and an initialised stack map.  The ring area is left zeroed for
 * ringbuf.h to format.  Returns 0, or -1 with a one-line reason in err (an
 * unknown tracer, a list longer than FT_SESSION_LIST_MAX, a pid that is not
 * a number, too many pids, len too small).
 */
int ft_session_init(void *mem, size_t len, const struct ft_record_opts *o, size_t ring_size,
		    const struct ft_clock *clk, char *err, size_t errlen);

/*
 * Either side: check that mem (len bytes) holds a session of our version
 * whose offsets and sizes stay within len.  Returns the header, or NULL with
 * a reason in err.
 */
struct ft_session_hdr *ft_session_check(void *mem, size_t len, char *err, size_t errlen);

/* Accessors (no checks beyond ft_session_check's). */
struct ft_session_ctl *ft_session_ctl(struct ft_session_hdr *h);
struct ft_session_func *ft_session_funcs(struct ft_session_hdr *h);
struct ft_session_module *ft_session_modules(struct ft_session_hdr *h);
void *ft_session_stackmap_mem(struct ft_session_hdr *h, size_t *len);
void *ft_session_ring(struct ft_session_hdr *h, size_t *len);

/*
 * Reader side: number of fids a reader should scan (min(next_fid, max_funcs)),
 * and of module slots.  Entries without their VALID flag are to be skipped.
 */
uint32_t ft_session_nr_funcs(struct ft_session_hdr *h);
uint32_t ft_session_nr_modules(struct ft_session_hdr *h);

/*
 * Tool side, while the program runs (the live control plane).  Wrap changes
 * in begin/end (the seqlock above); each setter returns 0 or -1 (too long /
 * bad value).  ft_session_set_tracing_on() needs no begin/end.
 */
void ft_session_ctl_begin(struct ft_session_hdr *h);
void ft_session_ctl_end(struct ft_session_hdr *h);
int ft_session_set_list(struct ft_session_hdr *h, enum ft_session_list which, const char *text);
int ft_session_append_list(struct ft_session_hdr *h, enum ft_session_list which, const char *line);
void ft_session_set_tracing_on(struct ft_session_hdr *h, int on);

/* Tracer name <-> enum; -1 / NULL when unknown. */
int ft_tracer_from_name(const char *name);

/*
 * Is name a tracer that runs on kernel events rather than in the program
 * (the wakeup latency tracers: wakeup, wakeup_rt, wakeup_dl)?  The runtime
 * then runs nop (it is loaded only for what else was asked: user events).
 */
int ft_tracer_is_kernel(const char *name);

/* The i-th of those tracers' names (from 0), NULL past the last. */
const char *ft_kernel_tracer_name(int i);
const char *ft_tracer_name(int tracer);

/**
 * ft_session_msg() - append a warning line for the recorder to print
 * @h: the session
 * @line: the text (one line; cut to FT_SESSION_MSG_LINE_MAX bytes)
 *
 * Runtime side.  Lock-free and async-signal-safe: any thread, or a signal
 * handler interrupting another call, may call it at any time.  A line is
 * delivered whole or, when the area is full, counted in rt_msg_dropped.
 */
void ft_session_msg(struct ft_session_hdr *h, const char *line);

/**
 * ft_session_msg_next() - the next complete runtime warning
 * @h: the session
 * @pos: the reader's cursor (0 at first), advanced past what is returned
 * @buf: where the line goes, NUL-terminated
 * @len: size of buf (FT_SESSION_MSG_LINE_MAX + 1 holds any line)
 *
 * Tool side, one reader per cursor.  Lines come in the order their space was
 * reserved; a line whose writer has not finished stops the reader there
 * until it has.  Return: 1 a line, 0 none complete at @pos (yet).
 */
int ft_session_msg_next(struct ft_session_hdr *h, uint32_t *pos, char *buf, size_t len);

/**
 * ft_session_msg_left() - runtime warnings the reader at @pos cannot get
 * @h: the session
 * @pos: the reader's cursor after ft_session_msg_next() returned 0
 *
 * Once every writer is gone: lines dropped because the area was full, plus
 * one for a line left half-written at @pos (its writer died mid-call).
 */
uint32_t ft_session_msg_left(struct ft_session_hdr *h, uint32_t pos);

#endif
