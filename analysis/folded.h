/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Folded stacks: the "root;caller;callee weight" lines that FlameGraph,
 * inferno and speedscope read, aggregated in memory with a byte budget.
 *
 * An ft_folded maps a stack (its frames joined by ';', root first) to a
 * summed weight (samples, nanoseconds, ...).  Memory is bounded: keys live
 * in one arena, slots in one open-addressing table, and both together never
 * exceed the budget given to ft_folded_new().  When a new stack would not
 * fit, the map either
 *   - streams: with a sink set (ft_folded_set_sink), every entry is written
 *     to the sink as a folded line and the map starts again empty.  Readers
 *     of the folded format add up repeated stacks, so the output means the
 *     same; it is only less compact.  ft_folded_flushes() counts this.
 *   - or refuses: without a sink, the weight is not added and is counted
 *     (ft_folded_dropped_*), never silently lost.
 *
 * Frame names must not contain ';' or '\n' (they are replaced by ':' and
 * ' ' when stacks are given as frame arrays).
 *
 * ft_graphfold turns function entry/exit events (function_graph) into
 * folded stacks weighted by self time: each thread keeps only its stack of
 * open calls.
 */
#ifndef FTRAIL_FOLDED_H
#define FTRAIL_FOLDED_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct ft_folded;

/* Default budget: 256 MiB of keys and slots. */
#define FT_FOLDED_DEFAULT_BUDGET (256u << 20)

/*
 * A new, empty aggregation that uses at most max_bytes (0: the default) for
 * its table and keys.  Returns NULL (errno ENOMEM) when even the initial
 * table cannot be allocated.  Free with ft_folded_free().
 */
struct ft_folded *ft_folded_new(size_t max_bytes);

/* Free f and the stacks it holds (NULL is fine); the sink stays open. */
void ft_folded_free(struct ft_folded *f);

/*
 * Stream instead of refusing when the budget is reached (see the top of
 * this file).  out stays owned by the caller; NULL turns streaming off.
 */
void ft_folded_set_sink(struct ft_folded *f, FILE *out);

/*
 * Add weight to one stack given as a joined string "a;b;c" (len bytes, no
 * NUL needed).  Returns 0, 1 when the stack was refused (budget, no sink;
 * counted), or -1 with errno on a sink write error or an empty stack
 * (EINVAL).
 */
int ft_folded_add(struct ft_folded *f, const char *stack, size_t len, uint64_t weight);

/*
 * Add weight to a stack given as n frame names.  leaf_first says the array
 * is innermost call first (as a "=> " stack trace prints it); otherwise the
 * root comes first.  Returns as ft_folded_add().
 */
int ft_folded_add_frames(struct ft_folded *f, const char *const *frames, size_t n, int leaf_first,
			 uint64_t weight);

/*
 * Parse one folded line ("a;b;c 123", optional trailing '\r'/'\n') and add
 * it.  Blank lines and lines starting with '#' are ignored (returns 0).
 * Returns -1 with errno EINVAL for a line without a count, or as
 * ft_folded_add().
 */
int ft_folded_add_line(struct ft_folded *f, const char *line);

/*
 * A folded-stacks file read one stack line at a time, for the commands
 * that aggregate it (ft_folded_read) or stream it (ftrail export
 * --from-folded).  Fields are read-only for callers (progress: done of
 * size bytes).
 */
struct ft_folded_file {
	FILE *in;
	const char *name;     /* the path, for messages */
	uint64_t size;	      /* bytes, 0 when unknown (not a regular file) */
	uint64_t done;	      /* bytes read so far */
	unsigned long lineno; /* lines read so far */
	char *line;
	size_t cap;
};

/*
 * Open path ('-': standard input).  Returns 0, or -1 with "cannot open
 * PATH: reason" in err.  Release with ft_folded_file_close().
 */
int ft_folded_file_open(struct ft_folded_file *ff, const char *path, char *err, size_t errlen);

/*
 * The next stack line, split by ft_folded_split_line() (blank and comment
 * lines are skipped): returns 1 with *stack (len bytes, NUL-terminated,
 * valid until the next call) and *weight, 0 at the end, or -1 with
 * "PATH:LINE: not a folded-stack line (want 'a;b;c COUNT')" or "PATH: read
 * error: reason" in err.
 */
int ft_folded_file_next(struct ft_folded_file *ff, const char **stack, size_t *len,
			uint64_t *weight, char *err, size_t errlen);

/* Close the file (standard input stays open) and free the line.  Cannot fail. */
void ft_folded_file_close(struct ft_folded_file *ff);

struct ft_progress;

/*
 * Read a whole folded file (path, '-': standard input) into f, reporting
 * progress by bytes into pr (may be NULL; initialised by the caller).
 * Returns 0 (refused stacks are counted, see ft_folded_dropped_*), or -1
 * with one line in err: as ft_folded_file_open()/_next(), or
 * "PATH:LINE: reason" when adding fails (a sink write error).
 */
int ft_folded_read(struct ft_folded *f, const char *path, struct ft_progress *pr, char *err,
		   size_t errlen);

/*
 * Split a folded line in place: *stack and *len get the stack, *weight the
 * count.  Returns 1 for a stack line, 0 for a blank/comment line, -1 for a
 * malformed one.  Used by streaming consumers that do not aggregate.
 */
int ft_folded_split_line(char *line, const char **stack, size_t *len, uint64_t *weight);

/*
 * Call fn for every stack in frame order (byte order with ';' lowest, so
 * stacks sharing a frame are adjacent), with its weight.  The key is NUL-terminated
 * and stays valid until the map is next modified.  Stops and returns fn's
 * value when it is non-zero; -1 with ENOMEM if the order cannot be built.
 */
int ft_folded_foreach(struct ft_folded *f,
		      int (*fn)(const char *stack, size_t len, uint64_t weight, void *arg),
		      void *arg);

/*
 * Write every stack as "stack weight\n", sorted, then empty the map.
 * Returns 0 or -1 with errno on a write error.
 */
int ft_folded_write(struct ft_folded *f, FILE *out);

size_t ft_folded_count(const struct ft_folded *f);     /* distinct stacks held */
uint64_t ft_folded_total(const struct ft_folded *f);   /* weight held */
uint64_t ft_folded_flushes(const struct ft_folded *f); /* times streamed to the sink */
uint64_t ft_folded_dropped_stacks(const struct ft_folded *f);
uint64_t ft_folded_dropped_weight(const struct ft_folded *f);

/* --- function_graph entry/exit -> self time per stack ------------------ */

struct ft_graphfold;

/*
 * A folder that adds self time (ns) per stack into out (not owned).
 * Returns NULL with errno ENOMEM.
 */
struct ft_graphfold *ft_graphfold_new(struct ft_folded *out);

/* Free g (NULL is fine); its ft_folded is the caller's. */
void ft_graphfold_free(struct ft_graphfold *g);

/*
 * A call to func begins on thread tid at ts (ns).  root, when not NULL, is
 * the bottom frame used for the thread's stacks (e.g. "prog-1234"); it is
 * read on the thread's first event only.  Returns 0, or -1 (ENOMEM).
 */
int ft_graphfold_entry(struct ft_graphfold *g, uint32_t tid, const char *root, const char *func,
		       uint64_t ts);

/*
 * The innermost open call of tid returns at ts.  An exit with no open call
 * (the trace began inside it) is counted in ft_graphfold_unmatched() and
 * otherwise ignored.  Returns 0, or the ft_folded_add() error.
 */
int ft_graphfold_exit(struct ft_graphfold *g, uint32_t tid, uint64_t ts);

/*
 * Close every call still open at end_ts (the trace ended inside them).
 * Returns 0, or the ft_folded_add() error.
 */
int ft_graphfold_finish(struct ft_graphfold *g, uint64_t end_ts);

/* Exits that had no open call (see ft_graphfold_exit()).  Cannot fail. */
uint64_t ft_graphfold_unmatched(const struct ft_graphfold *g);

#endif
