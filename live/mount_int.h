/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Inside the live mount (live/mount.h): the server's state, shared by the
 * FUSE glue (mount.c) and the files (mount_files.c, mount_funcs.c).
 *
 * Everything here is touched by the one thread that serves FUSE requests,
 * except `ended`, which the watcher thread sets (relaxed atomics: it only
 * asks the serving thread to stop, nothing is published through it).
 */
#ifndef FTRAIL_LIVE_MOUNT_INT_H
#define FTRAIL_LIVE_MOUNT_INT_H

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
	char *rbuf; /* what a read shows, made at open */
	size_t rlen;
	char *wbuf; /* list files: accepted lines, committed at release */
	size_t wlen, wcap;
	int trunc;  /* list files: opened with O_TRUNC (">") */
	int failed; /* a write was refused: nothing is committed */
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

struct mnt {
	struct ft_live_session s;
	pid_t pid;
	uid_t uid;
	gid_t gid;
	long t0; /* mount time (s) for the nodes' times */
	struct ft_stackmap smap;
	struct ft_snapshot snap;
	struct mnt_funcs funcs;
	/* error_log: the last MNT_ELOG_MAX entries, each a malloc'ed text */
#define MNT_ELOG_MAX 8
	char *elog[MNT_ELOG_MAX];
	unsigned int elog_next;
	/* a truncate() without O_TRUNC at open (no atomic_o_trunc): per node */
	const struct mnt_node *pending_trunc;
	int ended; /* atomic: the program or its recorder is gone */
};

/* mount_files.c */
extern const struct mnt_node mnt_nodes[];
extern const size_t mnt_nr_nodes;
const struct mnt_node *mnt_lookup(const char *path);
int mnt_fill(struct mnt *m, struct mnt_fh *fh);
int mnt_write(struct mnt *m, struct mnt_fh *fh, const char *buf, size_t len);
int mnt_release(struct mnt *m, struct mnt_fh *fh);
int mnt_open_trunc(struct mnt *m, struct mnt_fh *fh);
void mnt_init_state(struct mnt *m);
void mnt_free_state(struct mnt *m);
void mnt_elog(struct mnt *m, const char *loc, const char *msg, const char *cmd, int pos);

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
