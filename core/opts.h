/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What `ftrail record` was asked to do, parsed from its command line with
 * trace-cmd's option names.  Filled by cmd/record.c; read by the user-space
 * recorder (recorder/), by kernel capture (kernel/) and by the session
 * builder (core/session.c), so it lives below all of them.
 */
#ifndef FTRAIL_RECORD_OPTS_H
#define FTRAIL_RECORD_OPTS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

struct ft_strv {
	char **v;
	size_t n;
};

/* Append a copy of s (the vector stays NULL-terminated).  Dies when out of memory. */
void ft_strv_push(struct ft_strv *sv, const char *s);

struct ft_event_sel {
	char *name;    /* "sys:event", "sys", "all" (user events are "u:sys:event") */
	char *filter;  /* -f after this -e, or NULL */
	char *trigger; /* --trigger after this -e, or NULL */
};

struct ft_record_opts {
	const char *output;    /* -o, default "ftrail.dat" */
	const char *tracer;    /* -p: nop | function | function_graph (NULL: default) */
	struct ft_strv filter; /* -l: set_ftrace_filter lines (globs, !glob, :mod:, func:cmd[:n]) */
	struct ft_strv notrace;	      /* -n: set_ftrace_notrace lines */
	struct ft_strv graph;	      /* -g: set_graph_function */
	struct ft_strv graph_notrace; /* --graph-notrace: set_graph_notrace */
	int max_graph_depth;	      /* --max-graph-depth, 0 = unlimited */
	uint64_t thresh_us;	      /* --tracing-thresh: function_graph only, in microseconds */
	struct ft_strv pids;	      /* --pid: set_ftrace_pid (thread ids of the traced program) */
	struct ft_strv patch;	/* --patch: GLOB[:mod:MODULE] to patch without instrumentation */
	struct ft_strv argspec; /* capture specs (core/argspec.h), in order: generated
				    * ones (-O funcgraph-args/-retval), then -A, --retval;
				    * lines starting with '#' are for readers only */

	struct ft_event_sel *events; /* -e ... */
	size_t nr_events;

	uint64_t options;	/* ftrace option bits (options.h), after -O and -T */
	uint64_t options_set;	/* bits -O named, on or off (a default kept apart from a choice) */
	unsigned int buffer_kb; /* -b: per buffer (per thread / per CPU), KiB */
	unsigned int stackmap_bits; /* --stackmap-bits, 0 = default: 14, 17 for a user map with -T */
	int all_cpus;		    /* -a: system-wide kernel capture */
	int quiet;		    /* -q */
	int snapshot_alloc;	    /* --snapshot-alloc: allocate the spare buffer at start */
	int live;		    /* --mount: control changes apply at once (session.h) */
	int flight;		    /* --flight-recorder: overwrite rings kept in memory, written
				     * only as snapshots at a trigger (recorder/urec_flight.c) */
	uint64_t flight_last_ms;    /* --last: a dump keeps only this much before its trigger,
				     * 0: whatever the rings hold */
	int stream; /* -o -: ftrace text on stdout while recording (live/stream.h) */
	/*
	 * The trace file is followed while it is written (-o -, --mount):
	 * pages being written go out in pieces, with watermarks
	 * (recorder/urecord.c "Streaming", live/follow.h).
	 */
	int follow;

	char **argv;	      /* the program after --, NULL-terminated, or NULL */
	pid_t attach_pid;     /* -P: a running process to attach to (no argv), 0: none */
	uint64_t duration_ms; /* --duration: stop after this long, 0: at Ctrl-C (or exit) */
};

/*
 * Append an -e selection name (no filter, no trigger yet) and return it,
 * valid until the next append.  Dies when out of memory (core/opts.c,
 * tool only, as ft_strv_push).
 */
struct ft_event_sel *ft_record_opts_add_event(struct ft_record_opts *o, const char *name);

/* Free what the vectors and event selections of o hold.  Cannot fail. */
void ft_record_opts_free(struct ft_record_opts *o);

#endif
