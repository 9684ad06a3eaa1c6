// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's snapshot table as a state machine (snapshot.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/snapshot.h"

enum ft_snap_action ft_snapshot_action(int state, uint64_t input)
{
	if (state == FT_SNAP_UNALLOCATED)
		return input == 1 ? FT_SNAP_ALLOC_SWAP : FT_SNAP_NOTHING;
	if (input == 0)
		return FT_SNAP_FREE;
	return input == 1 ? FT_SNAP_SWAP : FT_SNAP_CLEAR;
}

void ft_snapshot_init(struct ft_snapshot *s, const struct ft_snapshot_ops *ops, void *ctx)
{
	memset(s, 0, sizeof(*s));
	s->ops = ops;
	s->ctx = ctx;
}

const char *ft_snapshot_state_name(int state)
{
	return state == FT_SNAP_ALLOCATED ? "allocated" : "not allocated";
}

const char *ft_snapshot_action_name(int action)
{
	static const char *const names[] = {
		[FT_SNAP_NOTHING] = "nothing", [FT_SNAP_ALLOC_SWAP] = "alloc+swap",
		[FT_SNAP_SWAP] = "swap",       [FT_SNAP_FREE] = "free",
		[FT_SNAP_CLEAR] = "clear",
	};

	return action >= 0 && action <= FT_SNAP_CLEAR ? names[action] : "?";
}

/* Parse what echo writes: blanks, digits, blanks/newline.  -1 on junk. */
static int parse_input(const char *in, uint64_t *v)
{
	char *end;

	while (*in == ' ' || *in == '\t')
		in++;
	if (*in < '0' || *in > '9')
		return -1;
	errno = 0;
	*v = strtoull(in, &end, 10);
	if (errno)
		return -1;
	while (*end == ' ' || *end == '\t' || *end == '\n')
		end++;
	return *end ? -1 : 0;
}

/* The state: the buffers' own when they keep it (ops->get_state), else ours. */
static int cur_state(struct ft_snapshot *s)
{
	if (s->ops->get_state)
		return s->ops->get_state(s->ctx);
	/* pairs with the release stores below */
	return __atomic_load_n(&s->state, __ATOMIC_ACQUIRE);
}

static int do_alloc(struct ft_snapshot *s)
{
	int r = s->ops->alloc(s->ctx);

	if (r)
		return r;
	/* publishes the spare to ft_snapshot_take's acquire load */
	__atomic_store_n(&s->state, FT_SNAP_ALLOCATED, __ATOMIC_RELEASE);
	return 0;
}

static int do_swap(struct ft_snapshot *s)
{
	int r = s->ops->swap(s->ctx);

	if (!r)
		__atomic_add_fetch(&s->swaps, 1, __ATOMIC_RELAXED);
	return r;
}

int ft_snapshot_write(struct ft_snapshot *s, const char *input, char *err, size_t errlen)
{
	uint64_t v;
	int action, r = 0;

	if (parse_input(input, &v)) {
		snprintf(err, errlen, "snapshot: '%s' is not 0, 1 or a positive number", input);
		return -EINVAL;
	}
	if (s->busy) {
		snprintf(
			err, errlen,
			"snapshot: device or resource busy (a latency tracer uses the spare buffer)");
		return -EBUSY;
	}
	action = ft_snapshot_action(cur_state(s), v);
	switch (action) {
	case FT_SNAP_NOTHING:
		break;
	case FT_SNAP_ALLOC_SWAP:
		r = do_alloc(s);
		if (!r)
			r = do_swap(s);
		break;
	case FT_SNAP_SWAP:
		r = do_swap(s);
		break;
	case FT_SNAP_FREE:
		/* no new swap may start once the state says unallocated (release);
		 * ops->free waits for the ones in flight */
		__atomic_store_n(&s->state, FT_SNAP_UNALLOCATED, __ATOMIC_RELEASE);
		s->ops->free(s->ctx);
		break;
	case FT_SNAP_CLEAR:
		s->ops->clear(s->ctx);
		break;
	}
	if (r) {
		snprintf(err, errlen, "snapshot: %s failed: %s", ft_snapshot_action_name(action),
			 strerror(-r));
		return r;
	}
	return action;
}

int ft_snapshot_prepare(struct ft_snapshot *s)
{
	if (s->busy)
		return -EBUSY;
	if (cur_state(s) == FT_SNAP_ALLOCATED)
		return 0;
	return do_alloc(s);
}

int ft_snapshot_take(struct ft_snapshot *s)
{
	if (s->busy)
		return -EBUSY;
	/* pairs with the release store in do_alloc: the spare is there */
	if (cur_state(s) != FT_SNAP_ALLOCATED) {
		__atomic_add_fetch(&s->missed, 1, __ATOMIC_RELAXED);
		return -ENOENT;
	}
	return do_swap(s);
}
