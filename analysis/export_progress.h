/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Progress line for long exports: "\r<what>: 42% (1234567 events)" on
 * stderr, at most four times a second, only when stderr is a terminal
 * (so logs and tests never see it).  Used by the flame and export commands.
 */
#ifndef FTRAIL_EXPORT_PROGRESS_H
#define FTRAIL_EXPORT_PROGRESS_H

#include <stdint.h>

struct ft_progress {
	const char *what;
	int on;		  /* stderr is a terminal */
	uint64_t next_ns; /* next time a line may be drawn */
	int drawn;
};

/* Set up; force < 0: decide by isatty(2), 0: off, > 0: on. */
void ft_progress_init(struct ft_progress *p, const char *what, int force);

/* Report done of total bytes/items (total 0: unknown) and a count of
 * events.  Cheap when called often: it reads the clock only every 4096
 * calls. */
void ft_progress_update(struct ft_progress *p, uint64_t done, uint64_t total, uint64_t events);

/* Erase the progress line, if one was drawn. */
void ft_progress_done(struct ft_progress *p);

#endif
