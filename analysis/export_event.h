/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The events the trace-viewer exporters (export_chrome.h,
 * export_speedscope.h) consume, one at a time, in time order.  They are
 * deliberately independent of the trace reader: cmd/export.c translates
 * analysis/trace.h events (symbolising function ids, rendering kernel
 * fields), and other producers (a folded-stacks file laid out as a
 * timeline, tests) fill them directly.
 */
#ifndef FTRAIL_EXPORT_EVENT_H
#define FTRAIL_EXPORT_EVENT_H

#include <stddef.h>
#include <stdint.h>

enum ft_xev_type {
	FT_XEV_ENTRY,	     /* a call of name begins on pid/tid */
	FT_XEV_EXIT,	     /* the innermost open call of pid/tid returns */
	FT_XEV_INSTANT,	     /* a point event (kernel event, marker): name, cat, args */
	FT_XEV_THREAD_NAME,  /* tid is called name from now on */
	FT_XEV_PROCESS_NAME, /* pid is called name */
	FT_XEV_LOST,	     /* count events were lost here (tid 0 / pid 0: unknown) */
};

struct ft_xarg {
	const char *key;
	const char *value; /* rendered as a JSON string */
};

struct ft_xevent {
	enum ft_xev_type type;
	uint64_t ts; /* ns */
	uint32_t pid, tid;
	int cpu;		    /* -1 when unknown */
	const char *name;	    /* function, event ("sched_switch"), thread or process name */
	const char *cat;	    /* category ("function", "sched", "marker"...), or NULL */
	const struct ft_xarg *args; /* INSTANT: its fields; ENTRY: the call's arguments,
				     * EXIT: its return value ("retval"), when captured */
	size_t nargs;
	uint64_t count;	  /* LOST */
	uint32_t name_id; /* ENTRY: nonzero when name is a function's, the same number
			   * at each of its calls (a key writers may cache by), else 0 */
};

/*
 * A writer's memo of something it works out from an ENTRY's name (its
 * length, an id of its own), by name_id: 0 when nothing is kept.
 * ft_xmemo_set() keeps v (nonzero) for key (nonzero), or nothing when
 * out of memory (the writer works it out again next time).
 */
struct ft_xmemo {
	uint64_t *v;
	size_t n;
};

static inline uint64_t ft_xmemo_get(const struct ft_xmemo *m, uint32_t key)
{
	return key && key < m->n ? m->v[key] : 0;
}

void ft_xmemo_set(struct ft_xmemo *m, uint32_t key, uint64_t v);
void ft_xmemo_free(struct ft_xmemo *m);

#endif
