/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the live mount (live/mount.h): the server's state, shared by the
 * FUSE glue (mount.c) and the files (mount_files.c, mount_funcs.c).
 *
 * Requests are served by libfuse's worker threads (fuse_loop_mt); each
 * takes m->lock for its whole work, except getattr (constant data) and
 * trace_pipe's wait.  The follower thread (mount_trace.c) takes it to add
 * events to the log.  `ended` is set by the watcher thread and read by
 * trace_pipe readers (relaxed atomics: it only says "stop waiting";
 * nothing is published through it).
 */
#ifndef FTRAIL_LIVE_MOUNT_INT_H
#define FTRAIL_LIVE_MOUNT_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "core/snapshot.h"
#include "core/stackmap.h"
#include "recorder/attach.h"

struct ft_symbols;

/* What a node of the tree is. */
enum mnt_kind {
	MK_DIR = 0,
	MK_TRACING_ON,
	MK_CURRENT_TRACER,
	MK_AVAILABLE_TRACERS,
	MK_LIST, /* arg: enum ft_session_list */
	MK_MAX_GRAPH_DEPTH,
	MK_TRACING_THRESH,
	MK_FTRACE_PID,
	MK_AVAILABLE_FUNCS,
	MK_ENABLED_FUNCS,
	MK_OPTION, /* arg: option bit */
	MK_TRACE_OPTIONS,
	MK_BUFFER_SIZE,
	MK_BUFFER_TOTAL,
	MK_MARKER,
	MK_MARKER_RAW,
	MK_ERROR_LOG,
	MK_STACK_MAP,
	MK_STACK_MAP_STAT,
	MK_STACK_MAP_BIN,
	MK_SNAPSHOT,
	MK_TRACE,      /* arg 0; per_thread/<tid>/trace: the handle's tid */
	MK_TRACE_PIPE, /* the same */
	MK_PT_DIR,     /* per_thread/<tid> */
	MK_PT_STATS,   /* per_thread/<tid>/stats */
	MK_EV_DIR,     /* events/u/<sys>, events/u/<sys>/<event> (the handle's names) */
	MK_EV_ENABLE,  /* events/u/<sys>/<event>/enable ... */
	MK_EV_FILTER,
	MK_EV_TRIGGER,
	MK_EV_FORMAT,
	MK_EV_ID,
	MK_SET_EVENT,
	MK_NR
};

struct mnt_node {
	const char *path; /* "/tracing_on", "/options/hex" */
	int kind;	  /* enum mnt_kind */
	int arg;
	unsigned int mode; /* permission bits */
};

/* One open file. */
struct mnt_fh {
	const struct mnt_node *node;
	char *rbuf; /* what a read shows, made at open (trace_pipe: as it comes) */
	size_t rlen;
	size_t rpos; /* trace_pipe: bytes of rbuf already read */
	char *wbuf;  /* list files: accepted lines, committed at release */
	size_t wlen, wcap;
	int trunc;		      /* list files: opened with O_TRUNC (">") */
	int failed;		      /* a write was refused: nothing is committed */
	uint32_t tid;		      /* per_thread/<tid>/...: that thread only; 0: every thread */
	char ev_sys[64], ev_name[64]; /* events/u/<sys>/<event>/... */
	struct mnt_fh *prev, *next;   /* m->open: freed at the end if never released */
	int wrote;
};

/*
 * The functions of the traced program (mount_funcs.c): the function
 * symbols of every object in the session's module table, which is what the
 * runtime's filters match (the session's function table only names the
 * functions traced so far).
 */
struct mnt_funcs {
	struct ft_symbols *syms; /* owns the tables the names point into */
	uint32_t nr_mods;	 /* modules the list was built from */
	uint32_t nr;		 /* functions */
	const char **name;	 /* per function: its name */
	const char **mod;	 /* per function: its object's :mod: name */
	char **modname;		 /* the :mod: names (owned), per module */
	const char *main_mod;	 /* the main program's (listed without "[mod]") */
};

/* One event in the log of trace and trace_pipe (mount_trace.c). */
struct mnt_ent {
	size_t off;   /* its text in mnt_log.text */
	uint32_t len; /* bytes of text */
	uint32_t tid; /* its thread (a kernel event's task) */
	int consumed; /* read through trace_pipe, or cleared */
};

/* Events read through trace_pipe, per thread (stats' "read events"). */
struct mnt_readc {
	uint32_t tid;
	uint64_t n;
};

/*
 * What trace and trace_pipe show (mount_trace.c): the events a follower
 * thread formats from the trace file being written (live/follow.h), in
 * order, until consumed.  Everything but fl, th and kernel is under
 * m->lock; fl is the follower thread's; cond (with m->lock) says the log
 * grew, the last pass is in (done), or the thread must stop (quit).
 */
struct mnt_log {
	struct ft_follow *fl;
	pthread_t th;
	int running; /* th was started */
	int quit;
	int done;   /* the recording ended and its last events are in */
	int kernel; /* the file has kernel events (the header's columns) */
	pthread_cond_t cond;
	char *text; /* the events' lines, from ent[head]'s on */
	size_t tlen, tcap;
	struct mnt_ent *ent; /* live entries: [head, nr) */
	size_t head, nr, cap;
	uint64_t dropped;   /* unread events dropped to keep the log bounded */
	uint64_t clear_tsc; /* the last "> trace" (ticks): older events are gone */
	struct mnt_readc *readc;
	size_t nr_readc, cap_readc;
};

struct mnt {
	struct ft_live_session s;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	long t0;		 /* mount time (s) for the nodes' times */
	int start_tracer;	 /* the tracer when mounted: a latency tracer may come back */
	struct ft_uev_area *uev; /* the program's user-event area, or NULL */
	struct ft_stackmap smap;
	struct ft_snapshot snap;
	struct mnt_funcs funcs;
	/* error_log: the last MNT_ELOG_MAX entries, each a malloc'ed text */
#define MNT_ELOG_MAX 8
	char *elog[MNT_ELOG_MAX];
	unsigned int elog_next;
	/* a truncate() without O_TRUNC at open (no atomic_o_trunc): per node */
	const struct mnt_node *pending_trunc;
	int ended;	     /* atomic: the program or its recorder is gone */
	struct mnt_fh *open; /* handles not released yet (under lock) */
	int sig_r;	     /* read end of the stop signals' pipe (the watcher's) */
	/*
	 * Serialises every request but getattr (fuse_loop_mt): the state above
	 * and below.  trace_pipe's blocking read does not hold it while it waits.
	 */
	pthread_mutex_t lock;
	/* trace, trace_pipe (mount_trace.c) */
	int trace_fd;	     /* the recorder's FILE.partial, or -1 */
	char trace_path[32]; /* "/proc/self/fd/N" */
	struct mnt_log log;
};

/* mount_files.c */
extern const struct mnt_node mnt_nodes[];
extern const size_t mnt_nr_nodes;
/* The node of path; per_thread nodes give their thread in *tid (else 0). */
const struct mnt_node *mnt_lookup(const char *path, uint32_t *tid);
/* Threads with a ring now (per_thread/), up to max; returns how many. */
size_t mnt_threads(struct mnt *m, uint32_t *tids, size_t max);
int mnt_fill(struct mnt *m, struct mnt_fh *fh);
int mnt_write(struct mnt *m, struct mnt_fh *fh, const char *buf, size_t len);
int mnt_release(struct mnt *m, struct mnt_fh *fh);
int mnt_open_trunc(struct mnt *m, struct mnt_fh *fh);
void mnt_init_state(struct mnt *m);
void mnt_free_state(struct mnt *m);
void mnt_elog(struct mnt *m, const char *loc, const char *msg, const char *cmd, int pos);

/* mount_trace.c */
void mnt_trace_find(struct mnt *m);
/* Start following the trace file (a thread); 0, or -1 with err. */
int mnt_trace_start(struct mnt *m, char *err, size_t errlen);
/* m->ended is set: wait for the last events to be in the log (10 s at most). */
void mnt_trace_end(struct mnt *m);
/* Stop following and free the log. */
void mnt_trace_stop(struct mnt *m);
/*
 * trace: the header and the events not consumed yet (of thread tid, or all
 * with 0) as ftrace's text, malloc'ed.  Caller holds m->lock.  0, or -errno.
 */
int mnt_trace_text(struct mnt *m, uint32_t tid, char **out, size_t *len);
/* "> trace": the events so far (of thread tid, or all) are gone.  Lock held. */
void mnt_trace_clear(struct mnt *m, uint32_t tid);
int mnt_trace_pipe_read(struct mnt *m, struct mnt_fh *fh, char *buf, size_t size);
/* per_thread/<tid>/stats. */
char *mnt_thread_stats(struct mnt *m, uint32_t tid, size_t *len);

/* mount_events.c */
struct ft_uev_area;
void mnt_events_attach(struct mnt *m);
void mnt_events_detach(struct mnt *m);
int mnt_events_each(struct mnt *m,
		    int (*fn)(const char *sys, const char *name, const char *text, size_t len,
			      void *arg),
		    void *arg);
void mnt_events_sel(struct mnt *m, const char *sys, const char *name, int which, char *out,
		    size_t len);
/*
 * The node of an events/u/... path (names in sys and name), or NULL when
 * the program has no such event.
 */
const struct mnt_node *mnt_events_lookup(struct mnt *m, const char *path, char *sys, char *name);
/*
 * Switch events on (on 1) or off in the area's en[]: those of sys and
 * name ("" for any), or those an -e name pat matches (when not NULL).
 * Returns how many ids; mnt_events_publish() then makes the runtime apply
 * them.  Lock held.
 */
int mnt_events_switch(struct mnt *m, const char *sys, const char *name, const char *pat, int on);
void mnt_events_publish(struct mnt *m);
/*
 * Edit the filter (op FT_UEV_EDIT_FILTER) or the triggers of sys:name in
 * the running program (core/uevent.h, live edits) and wait for its
 * answer.  0, or -errno with a one-line reason in msg (nothing changed).
 * Lock held: one edit at a time.
 */
int mnt_events_edit(struct mnt *m, const char *sys, const char *name, int op, const char *text,
		    char *msg, size_t msglen);
/*
 * How many ids sys and name ("" for any), or pat, have, and in *nr_on how
 * many of them are recorded.
 */
int mnt_events_state(struct mnt *m, const char *sys, const char *name, const char *pat, int *nr_on);
/* Fill a directory of events/u (path "/events/u" or "/events/u/SYS"). */
void mnt_events_readdir(struct mnt *m, const char *sys, void *buf,
			int (*fill)(void *buf, const char *name));

/* mount_funcs.c */
void mnt_funcs_refresh(struct mnt *m);
void mnt_funcs_free(struct mnt_funcs *f);
/*
 * Check one line of a filter list (set_ftrace_filter and the others):
 * 0, or -1 with a message and the 0-based position of the fault.
 */
int mnt_list_check(struct mnt *m, int list, const char *line, const char **msg, int *pos);
/* The functions a list selects, as the kernel's file shows them (malloc'ed). */
char *mnt_list_show(struct mnt *m, int list, size_t *len);
/* Every named function, one a line (available_filter_functions). */
char *mnt_funcs_show(struct mnt *m, size_t *len);
/* The functions patched for tracing now (enabled_functions). */
char *mnt_enabled_show(struct mnt *m, size_t *len);

#endif
