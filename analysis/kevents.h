/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Reading kernel events back from a trace file (the KFORMATS, KDATA,
 * KALLSYMS and kernel STACKMAP sections that kernel/ wrote; encoding in
 * core/kdata.h).
 *
 * An ft_kevents is an iterator over the kernel events of one file in time
 * order across CPUs (a k-way merge of the per-CPU streams; ties go to the
 * lower CPU).  Each event comes with its libtraceevent handles (tep_event
 * and tep_record parsed from the formats stored in the file, never from the
 * local machine), comm/pid/cpu, its time in ns on the file's clock (META,
 * core/clock.h: the same timebase as user records), and its stacks.
 *
 * Typical use (e.g. `ftrail show` merging user and kernel records):
 *
 *	struct ft_kevents *k = ft_kevents_open(r, err, sizeof(err));
 *	if (!k && err[0]) die(err);          // k == NULL, err "" : no kernel data
 *	struct ft_kevent ev;
 *	uint64_t next_ts;
 *	while (ft_kevents_peek_ts(k, &next_ts) == 1) {
 *		// ... print user records older than next_ts first ...
 *		if (ft_kevents_next(k, &ev) != 1) break;
 *		ft_kevents_print(k, &ev, options, stdout);
 *	}
 *	ft_kevents_close(k);
 *
 * Errors: open returns NULL with a one-line reason in err (or NULL with err
 * empty when the file simply has no kernel events); next returns -1 with
 * the reason in ft_kevents_error() on a corrupt stream.  Nothing here exits
 * or prints on stderr.  Hostile files never make it read out of bounds.
 * libtraceevent's own parsers are not hardened, so open first parses the
 * stored formats in a child process (by default one per check; see
 * ft_kevents_keep_checker()) and leaves out any format that crashes or
 * hangs it: those events print raw.  The verdicts are kept for the life of
 * the process, keyed by the format's bytes, so only a format never seen
 * before is checked (one check per open of a new file at most); and the
 * parsed handles of recently closed iterators are reused by later opens of
 * the same formats and kallsyms.
 * Not thread-safe: one iterator per thread.
 */
#ifndef FTRAIL_KEVENTS_H
#define FTRAIL_KEVENTS_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ft_fmt_kops;

struct ft_reader;
struct tep_handle;
struct tep_event;
struct tep_record;
struct ft_kevents;

enum ft_kevent_kind {
	FT_KEV_EVENT = 1,  /* a trace event */
	FT_KEV_MISSED = 2, /* the kernel lost events on this CPU here */
};

struct ft_kevent {
	enum ft_kevent_kind kind;
	uint64_t ts;	/* ns, on the file's clock (ft_clock_ns of ticks) */
	uint64_t ticks; /* the raw trace-clock value */
	int cpu;
	uint64_t seq;	  /* its place in the merged order: 0, 1, ... since open or rewind */
	int pid;	  /* common_pid */
	const char *comm; /* from the saved cmdlines, or "<...>" */
	uint64_t missed;  /* FT_KEV_MISSED: events lost (0: unknown number) */
	/* FT_KEV_EVENT only; valid until the next ft_kevents_next(): */
	struct tep_event *event;   /* NULL when the id has no stored format */
	struct tep_record *record; /* record->ts is ns, record->cpu, data/size */
	int kstack_id;		   /* kernel STACKMAP id, or -1 (none, or stored in full) */
	int ustack_id;		   /* same, for the user stack (userstacktrace) */
	const uint64_t *kstack;	   /* the kernel stack expanded, innermost first */
	uint32_t kstack_nr;	   /* 0: the event has no kernel stack */
	const uint64_t *ustack;
	uint32_t ustack_nr;
	/*
	 * 1 (kernel) or 2 (user): the record is a stack that joined no event
	 * (its event was lost, or came before the recording): event is
	 * ftrace/kernel_stack or user_stack, its frames are in the record,
	 * and the printers show it as the kernel does, where it lies.
	 */
	int stack_rec;
};

/*
 * Open the kernel side of trace file r (which must outlive the iterator).
 * Returns NULL and err "" when the file has no kernel events, NULL and a
 * reason in err when they are corrupt.
 */
struct ft_kevents *ft_kevents_open(struct ft_reader *r, char *err, size_t errlen);

/*
 * The same for snapshot snap of a flight recorder (its KSNAP sections,
 * core/tracefile.h), leaving out the events before since_ns (a --last
 * window; 0 for none).  NULL and err "" when it holds no kernel side.
 */
struct ft_kevents *ft_kevents_open_snapshot(struct ft_reader *r, unsigned int snap,
					    uint64_t since_ns, char *err, size_t errlen);
/* Free k (NULL is fine); the trace file's reader is the caller's. */
void ft_kevents_close(struct ft_kevents *k);

/*
 * Opens check formats not seen before in a child process (libtraceevent
 * trusts its input; see analysis/kevents.c), which by default ends with each
 * check.  keep != 0 keeps that child from one check to the next: for a
 * process that opens new formats all the time (the fuzz target) and never
 * waits for all of its children (not the recorder: a child subreaper).
 */
void ft_kevents_keep_checker(int keep);

/*
 * Next event in time order.  Returns 1 and fills ev, 0 at the end, -1 on a
 * corrupt stream (ft_kevents_error() tells why; the iterator then ends).
 */
int ft_kevents_next(struct ft_kevents *k, struct ft_kevent *ev);

/* Time (ns) of the event the next call to next() returns: 1, or 0 at the end. */
int ft_kevents_peek_ts(struct ft_kevents *k, uint64_t *ts);

/* Restart from the first event. */
void ft_kevents_rewind(struct ft_kevents *k);

/* Why ft_kevents_next() returned -1 (one line), or "" when it did not. */
const char *ft_kevents_error(const struct ft_kevents *k);

/* The libtraceevent handle with the stored formats, kallsyms and cmdlines. */
struct tep_handle *ft_kevents_tep(struct ft_kevents *k);

/* Number of CPUs recorded, total events lost (MISSED counts) so far. */
int ft_kevents_nr_cpus(const struct ft_kevents *k);

/*
 * Render one event as the kernel's `trace` file does:
 *   "<comm>-<pid> [cpu] flags  sec.usec: name: fields"
 * (fields rendered from the event's print format by tep_print_event), then
 * its stacks: "<stack_id N>" lines when the recording used the stack map
 * and FT_OPT(EXPAND_STACKS) is not in options, else "<stack trace>" /
 * "<user stack trace>" followed by " => symbol" lines (symbol+0xoff/0xsize
 * with FT_OPT(SYM_OFFSET), the address too with FT_OPT(SYM_ADDR)).
 * FT_KEV_MISSED renders as "CPU:N [LOST n EVENTS]" as trace-cmd does.
 * options: core/options.h bits.  Returns 0, or -1 on a write error.
 */
int ft_kevents_print(struct ft_kevents *k, const struct ft_kevent *ev, uint64_t options, FILE *out);

/*
 * The pieces ftrace_fmt.c lays out itself (function, function_graph,
 * latency, raw and hex layouts):
 *   ft_kevents_print_info(): the event's text after the context columns,
 *     without newline: "name: fields" from the print format; with
 *     FT_OPT(RAW) the fields' raw values (tep's INFO_RAW); with FT_OPT(HEX)
 *     numbers in hex, zero-padded to the field's size.  0 or -1 (write error).
 *   ft_kevents_lat_flags(): the irq-info columns ("d..2.") into buf.
 *   ft_kevents_used_stackmap(): 1 when kstack_id/ustack_id print as
 *     "<stack_id N>" (the recording used the stack map), 0 to expand them.
 */
int ft_kevents_print_info(struct ft_kevents *k, const struct ft_kevent *ev, uint64_t options,
			  FILE *out);
void ft_kevents_lat_flags(struct ft_kevents *k, const struct ft_kevent *ev, char *buf, size_t len);
int ft_kevents_used_stackmap(const struct ft_kevents *k);

/**
 * ft_kevents_fix_user_stacks() - restore function_graph's return addresses
 * @k:    the kernel events of trace file @path
 * @path: the trace file, read once more for its user records
 *
 * From then on the user stacks of events (ustack) carry the real return
 * addresses where the kernel read function_graph's trampoline
 * (analysis/graphret.h).  Best effort: without user records nothing changes.
 */
void ft_kevents_fix_user_stacks(struct ft_kevents *k, const char *path);

/* The task name of pid from the file's saved cmdlines, or "<...>". */
const char *ft_kevents_comm(struct ft_kevents *k, int pid);

/*
 * Kernel symbol of addr from the file's KALLSYMS: writes "name+0xoff/0xsize"
 * (with_offset) or "name" into buf.  Returns 0, or -1 (buf holds "0x<addr>").
 * Also the ft_sym_resolve_fn of core/stackmap.h (arg = k, with offset).
 */
int ft_kevents_sym(struct ft_kevents *k, uint64_t addr, int with_offset, char *buf, size_t len);
int ft_kevents_sym_fn(uint64_t ip, char *buf, size_t len, void *arg);

/* Bare symbol name and offset of addr: returns the name or NULL. */
const char *ft_kevents_sym_name(struct ft_kevents *k, uint64_t addr, uint64_t *off);

/* The stored format of "system:name", or NULL. */
struct tep_event *ft_kevents_find_event(struct ft_kevents *k, const char *sys_colon_name);

/*
 * A field's value as an unsigned number (common_* fields too, e.g.
 * "common_pid"), and the pseudo-fields "cpu" (the recording CPU) and
 * "pid" (common_pid) for events without a field of that name (an event's
 * own field wins: sched_waking's pid is the woken task).  Returns 0, or -1
 * when the event has no such numeric field.
 */
int ft_kevents_field_num(struct ft_kevents *k, const struct ft_kevent *ev, const char *name,
			 unsigned long long *val);

/*
 * A field rendered as text into buf: strings as is, pointers resolved to
 * kernel symbols (how %ps prints them), numbers in decimal.  Returns 0 or -1.
 */
int ft_kevents_field_str(struct ft_kevents *k, const struct ft_kevent *ev, const char *name,
			 char *buf, size_t len);

/*
 * The kernel STACKMAP (FSMB v2) of the file: calls fn for each stored stack
 * (ids as in ft_kevent.kstack_id).  Returns 0, or -1 when it is corrupt.
 */
int ft_kevents_for_each_stack(struct ft_kevents *k,
			      int (*fn)(uint32_t id, const uint64_t *ips, uint32_t nr, void *arg),
			      void *arg);

/*
 * The kernel events of a file as a source of the unified reader
 * (analysis/trace.h, ft_trace_add_source): fill k and options, then pass
 * { "kernel", ft_ksource_next, ft_ksource_print, &src }.  Each event the
 * reader returns carries &src.cur in ev->priv.
 */
struct ft_event;
struct ft_ksource {
	struct ft_kevents *k;
	struct ft_kevent cur;
	uint64_t options; /* for ft_ksource_print (options.h bits) */
};
int ft_ksource_next(void *arg, struct ft_event *ev, char *err, size_t errlen);
void ft_ksource_print(void *arg, const struct ft_event *ev, FILE *f);

/* These renderers as ft_fmt_set_kevents() takes them (analysis/ftrace_fmt.h). */
extern const struct ft_fmt_kops ft_kevents_fmt_ops;

#endif
