/* SPDX-License-Identifier: GPL-2.0 */
/*
 * A pprof profile (third_party/pprof/profile.proto, perftools.profiles)
 * built from interned strings, mappings, functions, locations and samples,
 * and written gzip-compressed as `go tool pprof` reads it.
 *
 * Encoding is protobuf-c's (the .proto is compiled at build time); this
 * file never writes a varint itself.  The output streams: protobuf merges
 * concatenated messages, repeated fields appending, so the profile is
 * written as a series of Profile messages, each holding what was added
 * since the previous one (strings in interning order, so indexes hold).
 * Memory is what the dedupe tables need (one entry per distinct string,
 * function and location) plus a batch of samples; samples are not kept.
 *
 * Errors are sticky: an allocation failure makes every later call a no-op
 * returning 0, and ft_pprof_finish() reports it.  Tool side only.
 */
#ifndef FTRAIL_PPROF_H
#define FTRAIL_PPROF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ft_pprof;

/* A sample's label: a string (str != NULL) or a number (with unit, or NULL). */
struct ft_pprof_label {
	const char *key;
	const char *str;
	int64_t num;
	const char *unit;
};

/*
 * Start a profile written to out (not owned) through gzip.  Returns NULL
 * (errno ENOMEM).
 */
struct ft_pprof *ft_pprof_open(FILE *out);

/* Add a sample type, in order ("calls"/"count", "wall"/"nanoseconds"). */
void ft_pprof_sample_type(struct ft_pprof *p, const char *type, const char *unit);
/* The type viewers show by default; the period type and period (1). */
void ft_pprof_default_type(struct ft_pprof *p, const char *type);
void ft_pprof_times(struct ft_pprof *p, int64_t time_ns, int64_t duration_ns);
void ft_pprof_comment(struct ft_pprof *p, const char *text);

/*
 * A mapping of an object; file and build_id may be NULL.  has_lines: its
 * locations carry line numbers.  Returns its id (>= 1), 0 on failure.
 */
uint64_t ft_pprof_mapping(struct ft_pprof *p, uint64_t start, uint64_t limit, uint64_t offset,
			  const char *file, const char *build_id, int has_lines);

/* A function, deduplicated by (name, file, start_line).  Id >= 1, 0 on failure. */
uint64_t ft_pprof_function(struct ft_pprof *p, const char *name, const char *file,
			   int64_t start_line);

/*
 * A location: address in mapping (0: none) executing function at line
 * (0: unknown); deduplicated on all four.  Id >= 1, 0 on failure.
 */
uint64_t ft_pprof_location(struct ft_pprof *p, uint64_t mapping, uint64_t address,
			   uint64_t function, int64_t line);

/*
 * A sample: nloc location ids, leaf first; one value per sample type;
 * labels.  Everything is copied.  0, or -1 (sticky failure).
 */
int ft_pprof_sample(struct ft_pprof *p, const uint64_t *loc, size_t nloc, const int64_t *values,
		    const struct ft_pprof_label *labels, size_t nlabels);

/* Samples written so far. */
uint64_t ft_pprof_nr_samples(const struct ft_pprof *p);

/*
 * Write what is left, end the gzip stream and free p.  Returns 0, or -1
 * with errno (ENOMEM, a write error) -- also for an earlier failure.
 */
int ft_pprof_finish(struct ft_pprof *p);

/* Free without finishing (after an error elsewhere).  NULL is ignored. */
void ft_pprof_abort(struct ft_pprof *p);

#endif
