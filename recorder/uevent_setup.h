/* SPDX-License-Identifier: GPL-2.0 */
/* User trace events, the recorder's half: setup before, finish after the run. */
#ifndef FTRAIL_UEVENT_SETUP_H
#define FTRAIL_UEVENT_SETUP_H

#include "core/uevent.h"

struct ft_record_opts;
struct ft_writer;

/*
 * Tool side, before the program starts: check every user -e selection (the
 * trigger syntax, the filter syntax as far as it can be checked without the
 * event's fields), create the area (memfd, mode 0600 by nature, not
 * close-on-exec), fill the selection and export its fd in FT_UEV_ENV_FD.
 * is_kernel(name) tells which -e names the kernel takes (may be NULL).
 * always: create the area even when no user event is selected, as a traced
 * program needs it (its trace_marker calls record whenever it is traced, as
 * ftrace's trace_marker does; a live tree's events/u/ enables events later).
 * Returns the area (unmapped by ft_uev_finish), NULL with nothing to do
 * (no user event selected and not always; *err empty), or NULL with a
 * one-line reason.
 */
struct ft_uev_area *ft_uev_setup(const struct ft_record_opts *o, int (*is_kernel)(const char *),
				 int always, char *err, size_t errlen);

/*
 * Tool side, after the program ended: write the UFORMATS section, report
 * counters (into stats, may be NULL), copy the runtime's warnings into
 * msg (may be NULL), and unmap.  Returns 0, or -1 (write failure, errno).
 */
struct ft_uev_stats {
	uint64_t written, filtered, lost, truncated, triggers, snap_missed;
	uint32_t nr_events;
};
int ft_uev_finish(struct ft_uev_area *a, struct ft_writer *w, struct ft_uev_stats *stats, char *msg,
		  size_t msglen);

/*
 * Tool side, while the program runs (a streamed recording): write the
 * formats registered since the last call as a UFORMATS section of their
 * own, so readers of the growing file can name the events; ft_uev_finish()
 * then writes only the rest.  Returns 0, or -1 (write failure, errno).
 */
int ft_uev_sync(struct ft_uev_area *a, struct ft_writer *w);

/*
 * Tool side: the events an ELF file defines, read from its __ftrail_events
 * section and relocations without running it.  fn gets a descriptor whose
 * strings and fields are valid during the call (fmt NULL); a non-zero
 * return stops the walk.  Returns the number of events seen, or -1 with a
 * reason (unreadable, not ELF).
 */
int ft_uev_scan_file(const char *path, int (*fn)(const struct ftrail_event *ev, void *arg),
		     void *arg, char *err, size_t errlen);

#endif
