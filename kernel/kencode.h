/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kernel ring buffer's sub-buffers ("pages" read from a CPU's
 * trace_pipe_raw) re-encoded as KDATA records (core/kdata.h), parsed with
 * libtraceevent's kbuffer.  One encoder per CPU, used by one thread.
 *
 * A kernel_stack or user_stack record is attached to its own event (a
 * stack_id from the stack map, or the frames in full): the last event of
 * the same CPU and context level (task, softirq, hardirq, NMI) whose
 * common fields are the stack's, since the kernel writes a stack with its
 * event's trace_ctx and only an interrupt's records can come in between.
 * Events are held back (in order, a bounded number) until no stack can
 * join them any more; a stack that joins none stays a record of its own,
 * where the kernel wrote it.  Losses become KREC_MISSED records where they
 * happened: before a page the kernel marked, with the count from the
 * kernel's own counters when its owner can read them (the page's stored
 * count otherwise, or 0 for "unknown").
 */
#ifndef FTRAIL_KENCODE_H
#define FTRAIL_KENCODE_H

#include <stddef.h>
#include <stdint.h>

struct ft_stackmap;

/* x86_64: kernel text and modules live at or above this address */
#define FT_KTEXT_MIN 0xffffffff80000000ull
/* frames kept of a kernel_stack or user_stack record */
#define FT_KENC_MAX_STACK 128
/*
 * Records held back at most on one CPU while an event waits for its stacks
 * (interrupts writing in between): past that, the event goes out without
 * them and its stacks stay records of their own.
 */
#define FT_KENC_MAX_HELD 2048

/*
 * Per event id, the offsets of the 8-byte pointer and long fields whose
 * values may be kernel text (cpuhp_enter's fun, kmem's call_site...).
 */
struct ft_kenc_ptrs {
	uint16_t *idx; /* [65536]: index + 1 into f, 0 none */
	struct ft_kenc_ptrf {
		uint8_t n;
		uint16_t off[8];
	} * f;
	size_t nr;
};

/* What the encoder asks of its owner; every call comes from its own thread. */
struct ft_kenc_ops {
	/* Write a complete chunk (it starts with a KREC_TIME): 0, or -1 with errno. */
	int (*write)(void *arg, const unsigned char *chunk, size_t len);
	/* Optional: a kernel text address the records name (a pointer field, a frame). */
	void (*note_addr)(void *arg, uint64_t addr);
	/*
	 * Optional: the entries the kernel lost on this CPU since the start,
	 * by its own counters.  0 with the count in *sum, or -1 when unknown.
	 */
	int (*lost_total)(void *arg, uint64_t *sum);
};

struct ft_kenc_conf {
	int kstack_id, ustack_id;	 /* ids of ftrace/kernel_stack, user_stack; -1 none */
	struct ft_stackmap *map;	 /* stacks -> stack_id; NULL: stacks stored in full */
	const struct ft_kenc_ptrs *ptrs; /* NULL: no pointer fields */
};

/* Counters of one encoder: events + stacks + lost = entries the kernel wrote. */
struct ft_kenc_stats {
	uint64_t events;    /* KREC_EVENT records written */
	uint64_t lost;	    /* entries the kernel lost (sum of the MISSED counts, 1 for unknown) */
	uint64_t stacks;    /* stack records attached to their event */
	uint64_t stack_ids; /* of which through the stack map */
};

struct ft_kenc;

/**
 * ft_kenc_create() - an encoder of one CPU's sub-buffers
 * @conf: copied; conf->map and conf->ptrs must outlive the encoder
 * @ops:  copied; @arg is passed to each of them
 *
 * Return: the encoder, to be freed with ft_kenc_free(); NULL when out of memory.
 */
struct ft_kenc *ft_kenc_create(const struct ft_kenc_conf *conf, const struct ft_kenc_ops *ops,
			       void *arg);

/* Free e (NULL is fine).  Whatever was not flushed is dropped. */
void ft_kenc_free(struct ft_kenc *e);

/**
 * ft_kenc_page() - encode one sub-buffer as read from trace_pipe_raw
 * @page: the sub-buffer (header, then records), @size bytes
 *
 * Events go to the chunk (an event is held back until no stack can join
 * it any more); a page marked with lost events first gets a
 * KREC_MISSED.  Full chunks are written through ops->write.  Failures are
 * remembered for ft_kenc_error().
 */
void ft_kenc_page(struct ft_kenc *e, void *page, size_t size);

/*
 * Losses no page marks (producer/consumer drops, overruns since the last
 * page), from ops->lost_total: one KREC_MISSED after what was read.
 * Returns 1 when it wrote one, else 0.
 */
int ft_kenc_sync_lost(struct ft_kenc *e);

/* Write the chunk as it is (the event held back stays so). */
void ft_kenc_flush(struct ft_kenc *e);

/* At the end: write the event held back, then the chunk. */
void ft_kenc_finish(struct ft_kenc *e);

/* The counters so far. */
void ft_kenc_get_stats(const struct ft_kenc *e, struct ft_kenc_stats *st);

/* The errno of the first failure (writing, out of memory), or 0. */
int ft_kenc_error(const struct ft_kenc *e);

#endif
