/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Triggers with ftrace's syntax, for events and for functions.
 *
 *   event trigger     (events/<sys>/<event>/trigger, `record -e E -R T`):
 *       <command>[:count] [if <filter>]
 *   function command  (set_ftrace_filter, `record -l`):
 *       <function glob>:<command>[:count]
 *
 *   command := traceon | traceoff | stacktrace | snapshot
 *            | enable_event:<sys>:<event> | disable_event:<sys>:<event>
 *
 * Count semantics (ftrace's event triggers): without a count the trigger acts every time;
 * with one it acts at most count times, and the count decrements only when
 * the trigger did its work: traceoff while tracing is already off, traceon
 * while it is on, enable_event on an enabled event, disable_event on a
 * disabled one do nothing and keep their count.  stacktrace and snapshot
 * always work, so each hit (that passes the filter) uses one count.
 *
 * Parsing is done before tracing starts (a malformed trigger is refused
 * then, with the position of the error); the `if` filter is kept as text
 * and compiled against the event's fields with ft_trigger_bind() once the
 * event is known.  Firing is lock-free (an atomic compare-and-swap on the
 * count) and allocation-free: it runs in the traced program's hot path.
 */
#ifndef FTRAIL_TRIGGER_H
#define FTRAIL_TRIGGER_H

#include <stddef.h>
#include <stdint.h>

#include <ftrail/ftrail.h>

#include "core/filter.h"

enum ft_trig_cmd {
	FT_TRIG_TRACEON = 1,
	FT_TRIG_TRACEOFF,
	FT_TRIG_STACKTRACE,
	FT_TRIG_SNAPSHOT,
	FT_TRIG_ENABLE_EVENT,
	FT_TRIG_DISABLE_EVENT,
};

#define FT_TRIG_NAME_MAX 64
#define FT_TRIG_UNLIMITED (-1)

struct ft_trigger {
	int cmd;		    /* enum ft_trig_cmd */
	char sys[FT_TRIG_NAME_MAX]; /* enable_event / disable_event target */
	char event[FT_TRIG_NAME_MAX];
	int64_t count;		  /* remaining; FT_TRIG_UNLIMITED = no count */
	char *filter_text;	  /* after "if", or NULL */
	struct ft_filter *filter; /* compiled by ft_trigger_bind(), or NULL */
	char glob[256];		  /* function commands: the function glob */
};

/*
 * Parse an event trigger ("traceoff:3 if id > 1").  Returns 0, or -1 with a
 * one-line reason naming the 0-based position in err ("trigger: unknown
 * command 'foo' at position 0 (traceon traceoff ...)").  Free with
 * ft_trigger_free().
 */
int ft_trigger_parse(const char *text, struct ft_trigger *t, char *err, size_t errlen);

/*
 * Parse a function command ("do_trap:traceoff:3").  No "if": functions have
 * no fields.  Same return and errors as ft_trigger_parse().
 */
int ft_trigger_parse_func(const char *text, struct ft_trigger *t, char *err, size_t errlen);

/*
 * Compile t's "if" filter against an event's fields.  Returns 0 (also when
 * there is no filter), or -1 with the filter's error in err.
 */
int ft_trigger_bind(struct ft_trigger *t, const struct ftrail_field *fields, size_t nr, char *err,
		    size_t errlen);

void ft_trigger_free(struct ft_trigger *t);

/* "traceoff:3 if id > 1" -- the canonical text (as ftrace lists it). */
char *ft_trigger_format(const struct ft_trigger *t, char *buf, size_t len);

/* The name of a command ("traceon" ...), or NULL. */
const char *ft_trigger_cmd_name(int cmd);

/*
 * What a trigger acts on.  The runtime (and the tests) provide these; every
 * callback is called from the traced program's hot path and must be
 * async-signal-safe.  event_enabled/set_event get the trigger to read its
 * sys/event target.
 */
struct ft_trigger_ops {
	int (*tracing_is_on)(void *ctx);
	void (*set_tracing)(void *ctx, int on);
	void (*stacktrace)(void *ctx);
	void (*snapshot)(void *ctx);
	/*
	 * Optional: 0 when a snapshot cannot be taken right now (the previous
	 * one is still being saved); the trigger then keeps its count, as a
	 * traceon keeps it while tracing is on.  NULL: always ready.
	 */
	int (*snapshot_ready)(void *ctx);
	int (*event_enabled)(void *ctx, const struct ft_trigger *t);
	void (*set_event)(void *ctx, const struct ft_trigger *t, int on);
};

/*
 * The event (or function) t is attached to was hit, with record rec of len
 * bytes (NULL/0 for a function).  Checks the filter, whether the command
 * would change anything, and the count; then acts.  Returns 1 when it
 * acted, 0 otherwise.  Concurrent hits never act more than count times in
 * total (the count is taken with a CAS before acting).
 */
int ft_trigger_fire(struct ft_trigger *t, const void *rec, size_t len,
		    const struct ft_trigger_ops *ops, void *ctx);

#endif
