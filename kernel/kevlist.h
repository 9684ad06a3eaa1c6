/* SPDX-License-Identifier: GPL-2.0 */
/* The kernel's trace events as tracefs lists them (available_events). */
#ifndef FTRAIL_KEVLIST_H
#define FTRAIL_KEVLIST_H

#include <stddef.h>

/**
 * ft_kernel_events() - walk the kernel's trace events
 * @glob: "sys:event" pattern (globs in either part; a bare "sys" pattern
 *        matches the subsystem), or NULL for every event
 * @fn:   called with each matching system and event name, in tracefs's
 *        order; a non-zero return stops the walk
 *
 * Reads available_events of the top-level tracefs (mounting tracefs when
 * root and it is not mounted).  Needs read access, not root.  Returns the
 * number of events passed to @fn, or -1 with a one-line reason in @err.
 */
int ft_kernel_events(const char *glob, int (*fn)(const char *sys, const char *event, void *arg),
		     void *arg, char *err, size_t errlen);

#endif
