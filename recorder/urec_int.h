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
#define RIDX(s, set, l) (((size_t)(s) * FT_RB_SETS + (set)) * FT_RB_LEVELS + (l))

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
	uint64_t *reported; /* per ring (RIDX): losses its pages reported */
	uint64_t *nest_carry; /* per slot: nested-too-deep losses taken, not yet in a page */
	uint64_t noslot_shown; /* area.lost_noslot already shown (NOSLOT buffer) */

	/* snapshot (ringbuf.h "Snapshot"; the SNAPSHOT sections: tracefile.h) */
	int snap_saving;      /* quiesced, saving the old set */
	uint8_t *snap_done;   /* per slot: bit l = level l of the old set saved */
	struct pend sbuf;     /* the copy of the ring being saved */
	uint64_t snap_pages, snap_events; /* in every snapshot taken */
	uint32_t snaps_saved; /* SNAPSHOT headers written */
	uint32_t snaps_taken; /* snapshots completely saved */
	uint32_t snap_clears_seen;
	int snap_last_state;

	char *warn; /* '\n'-separated lines not yet handed out */
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
	 * The tables as written so far (sync_tables, under sync_lock): FUNCS
	 * and MODULES up to these indexes, the stack map's stacks marked in
	 * sm_seen, the symbol tables read.
	 */
	pthread_mutex_t sync_lock;
	uint32_t funcs_done, mods_done;
	struct ft_stackmap sm;
	int sm_state;	    /* 0 not looked at, 1 attached, -1 none */
	uint32_t *sm_seen;  /* export_delta's array */
	uint64_t sm_exported; /* stacks written (first time) */
	struct symcache {
		char *path;
		void *blob;
		size_t len;
	} *symc;
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
 * Is the ELF file statically linked (no PT_INTERP: LD_PRELOAD cannot load
 * the runtime into it)?  1 yes, 0 no, -1 cannot tell.
 */
int urec_elf_static(const char *path);

/* urecord.c */
void add_warning(struct ft_urecord *u, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
int pend_append(struct pend *p, const void *data, size_t len);
int take_page(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set, uint32_t l,
	      struct ft_rb_pageinfo *info);
int report_tail_loss(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
		     uint32_t l, const struct ft_rb_slotinfo *si, uint64_t ts);
struct task *task_find(struct ft_urecord *u, uint32_t pid, uint32_t tid);

/* urec_sections.c */
int sync_tables(struct ft_urecord *u, struct ft_writer *w, int final);
int write_tasks(struct ft_urecord *u, struct ft_writer *w);
int write_meta(struct ft_urecord *u, struct ft_writer *w, const struct ft_rb_totals *t,
	       int stopped);

/* urec_snapshot.c */
int snap_save_ring(struct ft_urecord *u, struct ft_writer *w, uint32_t s, uint32_t set,
		   uint32_t l, const struct ft_rb_slotinfo *si);
int snap_poll(struct ft_urecord *u, struct ft_writer *w);
int snap_finish(struct ft_urecord *u, struct ft_writer *w);

#endif
