/* SPDX-License-Identifier: GPL-2.0 */
/* Internals of the user-space recorder (the files in recorder/). */
#ifndef FTRAIL_UREC_INT_H
#define FTRAIL_UREC_INT_H

#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "core/lifeline.h"
#include "core/opts.h"
#include "core/ringbuf.h"
#include "core/stackmap.h"

struct ft_session_hdr;
struct ft_writer;
struct wqueue;

/* Index of ring (slot, set, level) in the per-ring arrays. */
#define RIDX(s, set, l) (((size_t)(s)*FT_RB_SETS + (set)) * FT_RB_LEVELS + (l))

/*
 * What a streaming recorder took of one ring's page being written
 * (urec_stream.c): that page's number, the bytes and events taken, the
 * losses shown with them, the time of the last record taken.
 */
struct urec_piece {
	uint64_t page;
	uint64_t ts;
	uint32_t off, nev, lost, pad;
};

struct task {
	uint32_t pid, tid;
	char comm[32];
};

struct pend {
	uint64_t id;
	char *buf;
	size_t len, cap;
};

struct ft_urecord {
	const struct ft_record_opts *o;
	int inject;
	char prog[PATH_MAX];
	char lib[PATH_MAX];
	char name[PATH_MAX]; /* the program as messages name it: argv[0], or "process N (comm)" */
	int attached;	     /* -P: the runtime was injected into a running process */
	int target_exited;   /* ... which exited while traced */
	uint64_t attach_ns, detach_ns; /* how long injecting and detaching took */
	unsigned int threads_at_attach;

	int memfd;
	struct ft_lifeline life; /* held while we record: the runtime detaches when it goes */
	void *mem;
	size_t len;
	struct ft_session_hdr *h;
	struct ft_rb_area *area;
	struct ft_rb_area area_copy; /* its header as formatted: restored if scribbled */
	char *page;

	pid_t pid;
	int go_fd;  /* write end: one byte lets the child exec */
	int err_fd; /* read end of the child's CLOEXEC pipe: errno of a failed exec */
	int went;
	int main_done;
	int main_status;
	int exec_errno;

	struct task *tasks;
	size_t nr_tasks, cap_tasks;
	struct pend *pend;
	size_t nr_pend, cap_pend, pend_bytes;
	struct wqueue *q;
	uint64_t *reported;    /* per ring (RIDX): losses its pages reported */
	uint64_t *nest_carry;  /* per slot: nested-too-deep losses taken, not yet in a page */
	uint64_t noslot_shown; /* area.lost_noslot already shown (NOSLOT buffer) */

	/* snapshot (ringbuf.h "Snapshot"; the SNAPSHOT sections: tracefile.h) */
	int snap_saving;		  /* quiesced, saving the old set */
	uint8_t *snap_done;		  /* per slot: bit l = level l of the old set saved */
	struct pend sbuf;		  /* the copy of the ring being saved */
	uint64_t snap_pages, snap_events; /* in every snapshot taken */
	uint32_t snaps_saved;		  /* SNAPSHOT headers written */
	uint32_t snaps_taken;		  /* snapshots completely saved */
	uint32_t snap_clears_seen;
	int snap_last_state;

	/*
	 * Streaming (ft_record_opts.follow; urecord.c "Streaming"): per ring
	 * (RIDX), what was taken of its page being written -- that page's
	 * number, bytes and events taken, the losses shown with them, and
	 * the time of the last record taken -- so that the page, when it is
	 * complete, goes out without them.
	 */
	struct urec_piece *spart;
	uint64_t stream_wm_last; /* mono_ns of the last watermark written */
	uint64_t stream_slack;	 /* STREAM_SLACK_NS in clock ticks */
	int stream_behind;	 /* this pass left a ring not taken whole: no watermark */
	int stream_failed;	 /* a tool made the session live; streaming could not start */
	int (*stream_sync)(struct ft_writer *w, void *arg, uint64_t *wm); /* urecord.h */
	void *stream_sync_arg;
	int (*flight_kdump)(void *arg, unsigned int snap, char *err, size_t errlen); /* urecord.h */
	void *flight_kdump_arg;

	/*
	 * Flight recorder (urec_flight.c): the rings of threads that exited
	 * since the last dump, copied out so their slots can be reused; one
	 * pend per buffer id, oldest first, FLIGHT_RETIRED_MAX bytes at most.
	 */
	struct pend *fl_ret;
	size_t nr_fl_ret, fl_ret_bytes;
	uint64_t fl_evicted;	/* pages of exited threads dropped for room */
	uint64_t fl_window;	/* --last in clock ticks, 0: no limit */
	uint32_t fl_dumps;	/* snapshots the flight recorder wrote */
	const char *fl_trigger; /* what the snapshot being saved was taken for */

	/*
	 * '\n'-separated lines not yet handed out: the drain thread and the
	 * writer thread (a module without symbols) add to them, warn_lock
	 * makes them take turns.
	 */
	pthread_mutex_t warn_lock;
	char *warn;
	size_t warn_len, warn_pos;
	char cur_warn[512];
	uint32_t rt_msg_seen;
	int said_noinstr; /* the ELF check warned: the runtime's own line would repeat it */
	int said_static;  /* warned that the program is static */

	uint64_t events, bytes, pages;
	uint64_t last_dead_check;
	uint64_t peak_bytes; /* most of the memfd resident at once (sampled per pass) */
	uint64_t last_flush; /* mono_ns of the last pend_flush_all from drain */

	/*
	 * The tables as written so far (urec_sync_tables, under sync_lock): FUNCS
	 * and MODULES up to these indexes, the stack map's stacks marked in
	 * sm_seen, the symbol tables read.
	 */
	pthread_mutex_t sync_lock;
	uint32_t funcs_done, mods_done;
	struct ft_stackmap sm;
	int sm_state;	      /* 0 not looked at, 1 attached, -1 none */
	uint32_t *sm_seen;    /* export_delta's array */
	uint64_t sm_exported; /* stacks written (first time) */
	struct symcache {
		char *path;
		void *blob;
		size_t len;
	} * symc;
	size_t nr_symc;
};

/*
 * Resolve a program name like execvp would (a name with '/' as is, else
 * through $PATH) into out, checking it is an executable regular file.
 * Returns 0, or -1 with one line in err: "no such program: NAME",
 * "NAME is not executable: ...", "NAME is a directory, not a program".
 */
int urec_find_program(const char *name, char *out, size_t outlen, char *err, size_t errlen);

/*
 * Does the ELF file carry instrumentation the runtime can hook: references
 * to mcount/_mcount/__fentry__/__cyg_profile_func_enter, or an
 * __patchable_function_entries / __mcount_loc section?  1 yes, 0 no, -1
 * cannot tell (not ELF, e.g. a script; unreadable).
 */
int urec_elf_instrumented(const char *path);

/*
 * Will the runtime patch the functions -l / -g select because u's program
 * has no instrumentation and no --patch was given (runtime/dynpatch.c)?
 * If so, queue the one line that says it (NAME: how to call the program)
 * and return 1; else 0.  urec_spawn.c, also for an attach.
 */
int urec_noinstr_say(struct ft_urecord *u, const char *name);

/*
 * Is the ELF file statically linked (no PT_INTERP: LD_PRELOAD cannot load
 * the runtime into it)?  1 yes, 0 no, -1 cannot tell.
 */
int urec_elf_static(const char *path);

/* ---- urecord.c: the drain loop and its buffers ---- */

/*
 * urec_warn() - queue a warning line for ft_urecord_next_warning()
 *
 * A line already queued is not queued again; out of memory drops it.
 * Any of the recorder's threads: takes u->warn_lock.
 */
void urec_warn(struct ft_urecord *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/*
 * urec_pend_append() - append len bytes to p's buffer, growing it
 *
 * Return: 0, or -1 (ENOMEM) with p unchanged.
 */
int urec_pend_append(struct pend *p, const void *data, size_t len);

/*
 * urec_take_page() - hand the page consumed into u->page, from ring
 * (s, set, l), to its buffer's pending UDATA (with the nested-too-deep
 * losses carried on level 0)
 *
 * Return: 0, or -1 when a chunk could not be written.  Drain thread.
 */
int urec_take_page(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set, uint32_t l,
		   struct ft_rb_pageinfo *info);

/*
 * urec_report_tail_loss() - the losses of ring (s, set, l) that no page
 * reported, as a page of their own at ts, when its writer is gone
 *
 * Return: 0, or -1 when writing failed.  Drain thread.
 */
int urec_report_tail_loss(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
			  uint32_t l, const struct ft_rb_slotinfo *si, uint64_t ts);

/* Remember thread (pid, tid) and its name for TASKS.  Drain thread. */
void urec_note_task(struct ft_urecord *u, uint32_t pid, uint32_t tid);

/* Is thread tid of pid gone (no /proc entry)? */
int urec_task_gone(uint32_t pid, uint32_t tid);

/* The task (pid, tid) seen so far, or NULL.  Drain thread. */
struct task *urec_task_find(struct ft_urecord *u, uint32_t pid, uint32_t tid);

/* ---- urec_sections.c: the sections that name the records ---- */

/*
 * urec_sync_tables() - write the MODULES (and SYMTABs), FUNCS and STACKMAP
 * entries published since the last call, before a chunk that may name them
 * @final: everything left, the unpublished entries included (at the end)
 *
 * Return: 0, or -1 with errno.  Writer or drain thread; takes u->sync_lock.
 */
int urec_sync_tables(struct ft_urecord *u, struct ft_writer *w, int final);

/* The TASKS section (pid, tid, name of every thread seen).  0, or -1 with errno. */
int urec_write_tasks(struct ft_urecord *u, struct ft_writer *w);

/*
 * urec_write_meta() - the user META lines: counts, losses, buffer mode, the
 * program's exit, the snapshot counters
 * @stopped: the recording was stopped by a signal before the program ended
 *
 * Return: 0, or -1 with errno.  At the end, drain thread.
 */
int urec_write_meta(struct ft_urecord *u, struct ft_writer *w, const struct ft_rb_totals *t,
		    int stopped);

/* ---- urec_snapshot.c: snapshots (core/ringbuf.h "Snapshot") ---- */

/*
 * urec_snap_save_ring() - save the frozen ring (s, set, l) of the old set
 * into the snapshot, drain what was not consumed into UDATA, reset it
 *
 * Return: 0, or -1 when writing failed.  Drain thread.
 */
int urec_snap_save_ring(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
			uint32_t l, const struct ft_rb_slotinfo *si);

/*
 * urec_snap_poll() - act on the snapshot requests seen since the last pass:
 * a new swap (start saving), a clear, a free; once per drain pass
 *
 * Return: 0, or -1 when writing a header failed.  Drain thread.
 */
int urec_snap_poll(struct ft_urecord *u, struct ft_writer *w);

/*
 * urec_snap_finish() - after a pass: when every ring of the old set is
 * saved, mark the snapshot taken and hand the spare back
 *
 * Return: 0.  Drain thread.
 */
int urec_snap_finish(struct ft_urecord *u, struct ft_writer *w);

/* ---- urec_stream.c: pages taken in pieces for a stream ---- */

/*
 * urec_piece_take() - the next of ring (s, set, l)'s records a stream needs
 * now, into page (page_size bytes) and info
 * @sp: what was taken of the page being written so far (zeroed at start)
 *
 * Return: 2, a complete page consumed (hand it on through
 * urec_piece_strip(), then call again); 1, a piece of the page being
 * written: what was committed to it since the last piece, as a page of
 * its own; 0, nothing new; -1, the ring cannot be taken whole now (a
 * torn or unreadable copy, a complete page that cannot be consumed): the
 * caller must not promise a watermark for this pass.  One reader per ring.
 */
int urec_piece_take(struct ft_rb_area *a, uint32_t s, uint32_t set, uint32_t l,
		    struct urec_piece *sp, void *page, struct ft_rb_pageinfo *info);

/*
 * urec_piece_strip() - a page consumed from a ring (page, info) whose front
 * was taken in pieces: cut that front, so the page holds only the rest
 * (depth FT_PAGE_DEPTH_CONT, ts the last taken record's); forget sp.  A
 * page the pieces were not taken from is left as it is.
 */
void urec_piece_strip(struct urec_piece *sp, void *page, struct ft_rb_pageinfo *info);

/* ---- urec_flight.c: the flight recorder (ft_record_opts.flight) ---- */

/*
 * urec_flight_pass() - drain()'s pass in flight-recorder mode: nothing is
 * consumed; a swapped-out set is saved as a snapshot (the last --last
 * seconds of it) and reset, exited threads' rings are kept in memory and
 * their slots recycled
 * @everything: no writer is left (the end)
 *
 * Return: 0, or -1 when writing failed.  Drain thread.
 */
int urec_flight_pass(struct ft_urecord *u, struct ft_writer *w, int everything);

/*
 * urec_flight_dump() - at the end: write what every ring (and every exited
 * thread kept) holds as one more snapshot, taken for trigger ("exit",
 * "crash", "stop", "detach"); signo the signal that killed the program, 0
 *
 * Return: 0, or -1 when writing failed.  Drain thread, no writer left.
 */
int urec_flight_dump(struct ft_urecord *u, struct ft_writer *w, const char *trigger, int signo);

/*
 * urec_snap_header() - a snapshot header section (core/snapshot.h): state,
 * the time it was taken (ts, clock ticks) and, in flight-recorder mode,
 * trigger= and last_ns=.  Return: 0, or -1 with errno.
 */
int urec_snap_header(struct ft_urecord *u, struct ft_writer *w, const char *state, uint64_t ts,
		     const char *trigger, int signo);

#endif
