// SPDX-License-Identifier: GPL-2.0
/*
 * Building and freeing a struct ft_record_opts (opts.h), for the commands
 * that record (ftrail record, ftrail offcpu --record).  Tool only: the
 * allocations die with "out of memory" (core/util.h).
 */
#include <stdlib.h>

#include "core/opts.h"
#include "core/util.h"

void ft_strv_push(struct ft_strv *sv, const char *s)
{
	sv->v = ft_realloc(sv->v, (sv->n + 2) * sizeof(*sv->v));
	sv->v[sv->n++] = ft_strdup(s);
	sv->v[sv->n] = NULL;
}

struct ft_event_sel *ft_record_opts_add_event(struct ft_record_opts *o, const char *name)
{
	struct ft_event_sel *e;

	o->events = ft_realloc(o->events, (o->nr_events + 1) * sizeof(*o->events));
	e = &o->events[o->nr_events++];
	e->name = ft_strdup(name);
	e->filter = NULL;
	e->trigger = NULL;
	return e;
}

static void free_strv(struct ft_strv *sv)
{
	for (size_t i = 0; i < sv->n; i++)
		free(sv->v[i]);
	free(sv->v);
	sv->v = NULL;
	sv->n = 0;
}

void ft_record_opts_free(struct ft_record_opts *o)
{
	free_strv(&o->filter);
	free_strv(&o->notrace);
	free_strv(&o->graph);
	free_strv(&o->graph_notrace);
	free_strv(&o->pids);
	free_strv(&o->argspec);
	free_strv(&o->patch);
	for (size_t i = 0; i < o->nr_events; i++) {
		free(o->events[i].name);
		free(o->events[i].filter);
		free(o->events[i].trigger);
	}
	free(o->events);
	o->events = NULL;
	o->nr_events = 0;
}
