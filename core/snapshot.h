/* SPDX-License-Identifier: GPL-2.0 */
/*
 * ftrace's snapshot control, as a state machine.
 *
 * A snapshot preserves the live trace buffer at one moment without stopping
 * tracing: the live buffer is swapped with a spare, and tracing goes on in
 * the new live (the former spare).  Writing a value to the control (the
 * `snapshot` file in tracefs, `ftrail snapshot N` here) does:
 *
 *     state \ input  |     0      |     1      |   other (> 1)  |
 *     ---------------+------------+------------+----------------+
 *     not allocated  |  nothing   | alloc+swap |    nothing     |
 *     allocated      |    free    |    swap    |  clear spare   |
 *
 * and with a latency tracer, which owns the spare buffer for its own use,
 * every write fails with EBUSY (ftrace's "Device or resource busy").
 * Negative or non-numeric input fails with EINVAL.
 *
 * The buffers themselves are not here: struct ft_snapshot_ops does the
 * allocation, the swap and the clearing (the ring buffer's business), so the
 * table can be tested on its own.  The snapshot trigger calls
 * ft_snapshot_take() from the traced program's hot path: it swaps when the
 * spare exists and otherwise only counts a miss (ftrace turns tracing off
 * with "*** SNAPSHOT NOT ALLOCATED ***"; we count and tell at the end).
 * Registering a snapshot trigger allocates the spare first
 * (ft_snapshot_prepare), as ftrace does.
 *
 * Concurrency: writes of the control (ft_snapshot_write / prepare) come from
 * one control thread; ft_snapshot_take may run in any traced thread at the
 * same time.  state is read with acquire in take, and stored with release
 * after alloc (so a swapper sees an allocated spare) and before free (so no
 * new swap starts on a buffer being freed -- the ops' free must still wait
 * for swaps in flight, see ft_snapshot_ops).
 */
#ifndef FTRAIL_SNAPSHOT_H
#define FTRAIL_SNAPSHOT_H

#include <stddef.h>
#include <stdint.h>

/*
 * In the trace file (tracefile.h FT_SEC_SNAPSHOT): each snapshot the
 * recorder saves is a header section with this id -- text, "key=value"
 * lines: snapshot=N, state=taken|cleared|freed, swap_ts (clock ticks) --
 * followed by sections whose id is a buffer id, holding that buffer's
 * pages as UDATA holds them (chunks of one id concatenate).  A reader takes
 * the sections between a header and the next one; `show --snapshot` shows
 * the last.  META totals: snapshot_saved, snapshot_pages, snapshot_events.
 */
#define FT_SNAP_HDR_ID UINT64_MAX

enum ft_snap_state {
	FT_SNAP_UNALLOCATED = 0,
	FT_SNAP_ALLOCATED = 1,
};

/* What the table says to do for (state, input). */
enum ft_snap_action {
	FT_SNAP_NOTHING = 0,
	FT_SNAP_ALLOC_SWAP,
	FT_SNAP_SWAP,
	FT_SNAP_FREE,
	FT_SNAP_CLEAR,
};

/*
 * The buffer side.  alloc: make the spare (0 or -errno).  swap: exchange
 * live and spare, without stopping writers (0 or -errno).  clear: empty the
 * spare.  free: release the spare after waiting for swaps in flight.
 */
struct ft_snapshot_ops {
	int (*alloc)(void *ctx);
	int (*swap)(void *ctx);
	void (*clear)(void *ctx);
	void (*free)(void *ctx);
	/*
	 * Optional: the state kept with the buffers (e.g. in shared memory,
	 * when the control and the buffers live in different processes);
	 * NULL: ft_snapshot.state is the truth.
	 */
	int (*get_state)(void *ctx);
};

struct ft_snapshot {
	int state;	 /* enum ft_snap_state: release-stored, acquire-loaded */
	int busy;	 /* a latency tracer owns the spare: every write is EBUSY */
	uint64_t swaps;	 /* swaps done (control and triggers), atomic */
	uint64_t missed; /* ft_snapshot_take() calls with no spare, atomic */
	const struct ft_snapshot_ops *ops;
	void *ctx;
};

/* The table alone: the action for state and a parsed input value (>= 0). */
enum ft_snap_action ft_snapshot_action(int state, uint64_t input);

/* Start unallocated. */
void ft_snapshot_init(struct ft_snapshot *s, const struct ft_snapshot_ops *ops, void *ctx);

/*
 * Write input ("0", "1", "2", ... with optional blanks/newline, as echo
 * writes it) to the control.  Returns the action taken (>= 0), or -EINVAL
 * (not a number), -EBUSY (latency tracer), or the ops' -errno (the state is
 * unchanged then).  err gets a one-line reason on failure.
 */
int ft_snapshot_write(struct ft_snapshot *s, const char *input, char *err, size_t errlen);

/* Allocate the spare if needed (snapshot trigger registration).  0 or -errno. */
int ft_snapshot_prepare(struct ft_snapshot *s);

/*
 * The snapshot trigger: swap if the spare is allocated.  Returns 0, or
 * -ENOENT (not allocated: counted in missed), -EBUSY, or the swap's -errno.
 */
int ft_snapshot_take(struct ft_snapshot *s);

/* "not allocated" / "allocated" for status lines. */
const char *ft_snapshot_state_name(int state);
const char *ft_snapshot_action_name(int action);

#endif
