/* SPDX-License-Identifier: GPL-2.0 */
/* User trace events, the reader's half: UFORMATS tables and rendering. */
#ifndef FTRAIL_UEVENT_TABLE_H
#define FTRAIL_UEVENT_TABLE_H

#include "core/uevent.h"

struct ft_uev_fmt {
	uint32_t id;
	char sys[64];
	char name[64];
	uint32_t nr_fields;
	struct ftrail_field fields[FTRAIL_MAX_FIELDS];
	char fnames[FTRAIL_MAX_FIELDS][64];
};

struct ft_uev_table {
	struct ft_uev_fmt *fmts;
	size_t nr;
};

/*
 * Parse UFORMATS text (len bytes).  Returns 0, or -1 with a one-line reason
 * ("UFORMATS: line 7: bad field line") -- hostile input never crashes.
 * Free with ft_uev_table_free().
 */
int ft_uev_table_parse(struct ft_uev_table *t, const char *text, size_t len, char *err,
		       size_t errlen);
void ft_uev_table_free(struct ft_uev_table *t);

struct ft_reader;

/*
 * Load and parse every UFORMATS section of a trace file.  Returns 0 (an
 * empty table when there is none), or -1 with a one-line reason.
 */
int ft_uev_table_load(struct ft_uev_table *t, struct ft_reader *r, char *err, size_t errlen);

/*
 * The table of reader r, loaded on first use and kept until another reader
 * is asked for (single-threaded display code).  A malformed UFORMATS gives
 * an empty table (events then show as "user_event: id=N len=L").
 */
const struct ft_uev_table *ft_uev_table_cached(struct ft_reader *r);

/* Look an id up; NULL when unknown. */
const struct ft_uev_fmt *ft_uev_table_find(const struct ft_uev_table *t, uint32_t id);

/*
 * Render an event: "name: field=value field=value" (ftrace's layout for
 * events) into out, given data = the record after its u32 id (len bytes),
 * as analysis/trace.h's FT_EV_EVENT hands it.  Unknown id: "user_event:
 * id=N len=L".  Values: unsigned/signed decimal, pointers 0x%llx, strings
 * as is (cut at their NUL), arrays and byte sequences as hex digits.
 * Returns out.
 */
char *ft_uev_render(const struct ft_uev_table *t, uint32_t id, const void *data, size_t len,
		    char *out, size_t outlen);

#endif
