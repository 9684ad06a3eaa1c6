/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The stack map: a lock-free hash map from a stack (an array of return
 * addresses) to a 4-byte stack_id, after the proposed ftrace stack map and
 * the kernel's tracing_map.  Events store the id; the stack is stored once.
 *
 * The map lives in one flat block of memory that holds no pointers (only
 * indexes), so the injected runtime can build it in shared memory and the
 * recorder can read it from another address, even after the traced program
 * crashed.  struct ft_stackmap is the per-process handle onto that block.
 *
 * Contexts: ft_stackmap_get_id() may be called from any thread and from a
 * signal handler that interrupted another get_id() on the same thread (our
 * analogue of NMI).  It allocates nothing, takes no lock and makes no system
 * call.  Everything else is control path (one thread at a time, except the
 * readers, which may run while inserts go on and see a best-effort snapshot).
 */
#ifndef FTRAIL_STACKMAP_H
#define FTRAIL_STACKMAP_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define FT_STACKMAP_MAX_DEPTH 64
#define FT_STACKMAP_BITS_MIN 10
#define FT_STACKMAP_BITS_MAX 18
#define FT_STACKMAP_BITS_DEFAULT 14
/* Linear probing gives up (a drop, -ENOSPC) after this many slots. */
#define FT_STACKMAP_MAX_PROBE 64
/* get_id callers still in flight after this long make reset fail (-EBUSY). */
#define FT_STACKMAP_DRAIN_MS 1000

/* The binary export of ftrace's proposed stackmap, stack_map_bin. */
#define FT_FSMB_MAGIC 0x464D5342u /* 'FSMB' */
#define FT_FSMB_VERSION 2

struct ft_fsmb_header {
	uint32_t magic;
	uint32_t version;
	uint32_t nr_stacks;
	uint32_t reserved;
};

struct ft_fsmb_entry {
	uint32_t stack_id;
	uint32_t nr;
	uint32_t ref_count;
	uint32_t reserved;
	/* uint64_t ips[nr] follows */
};

struct ft_stackmap_shared; /* the flat block */

/*
 * The per-process handle.  Zero it before use (init/attach set only shm and
 * leave the caller's tracing_is_on/arg alone), then set tracing_is_on/arg
 * whenever convenient.
 */
struct ft_stackmap {
	struct ft_stackmap_shared *shm;
	/* Asked by reset: is tracing on?  May be NULL (then never on). */
	int (*tracing_is_on)(void *arg);
	void *arg;
	/*
	 * Tests only: when set, replaces the hash of a stack (so a test can
	 * make a stack hash to 0, or make stacks collide).  NULL in production.
	 */
	uint32_t (*hash_hook)(const uint64_t *ips, uint32_t nr, void *arg);
	void *hash_hook_arg;
};

struct ft_stackmap_stat {
	uint32_t entries;	/* elements taken from the pool */
	uint32_t max_entries;	/* pool size, 2^bits */
	uint32_t table_size;	/* 2 x pool */
	uint64_t successes;	/* get_id calls served (hits + inserts) */
	uint64_t drops;		/* get_id calls told to fall back */
	uint32_t claimed_empty; /* slots claimed after the pool ran out (and any
				 * being filled at that instant) */
	uint32_t threads;	/* per-thread shards claimed (threads counting
				 * in the map and not detached) */
};

/* Clamp bits into [MIN, MAX]; 0 means the default. */
unsigned int ft_stackmap_clamp_bits(unsigned int bits);

/* Bytes of the flat block for a map of 2^bits stacks (bits clamped). */
size_t ft_stackmap_mem_size(unsigned int bits);

/*
 * Format `mem` (ft_stackmap_mem_size(bits) bytes, zeroed or not, 64-byte
 * aligned: a page of shared memory is) as an empty map with a random
 * per-instance hash seed, and attach h to it.  Returns 0, or -EINVAL when
 * len is too small or mem misaligned.
 */
int ft_stackmap_init(struct ft_stackmap *h, void *mem, size_t len, unsigned int bits);

/*
 * Attach h to a block formatted elsewhere (another process).  0, or -EINVAL
 * when the block's header is not a map of a valid geometry fitting in len.
 */
int ft_stackmap_attach(struct ft_stackmap *h, void *mem, size_t len);

/* Convenience: malloc'ed block + init.  NULL on failure.  Free with destroy. */
struct ft_stackmap *ft_stackmap_create(unsigned int bits);
void ft_stackmap_destroy(struct ft_stackmap *h);

/*
 * The hot path.  Returns the stack_id (>= 0) of ips[0..nr) (nr clamped to
 * FT_STACKMAP_MAX_DEPTH), inserting the stack if it is new; or a negative
 * errno telling the caller to record the full stack instead: -ENOSPC (pool
 * exhausted or probe limit reached; counted as a drop), -EINVAL (nr == 0 or
 * a reset in progress).
 */
int ft_stackmap_get_id(struct ft_stackmap *h, const uint64_t *ips, uint32_t nr);

/*
 * The calling thread will make no more get_id calls on h (thread exit):
 * its per-thread shard in h goes back to the pool, its counts kept.
 * Optional: a thread that never detaches keeps its shard, and once every
 * shard is taken later threads use the slower shared counters.  Control
 * path; a signal handler that calls get_id afterwards claims a shard again.
 */
void ft_stackmap_thread_detach(struct ft_stackmap *h);

/*
 * Look up a stack by id.  Returns 0 and fills ips/nr/ref (ips points into
 * the map, valid until reset/destroy), or -ENOENT.
 */
int ft_stackmap_lookup(const struct ft_stackmap *h, uint32_t id, const uint64_t **ips, uint32_t *nr,
		       uint32_t *ref);

/*
 * Call fn for each published stack, in id order; stops when fn returns != 0
 * and returns that value.  Returns 0 after the last stack, or -EBUSY while
 * a reset owns the map (a reset waits for walks in progress, so a walk
 * never sees a cleared stack).  Safe while get_id runs.  ips is valid
 * during the call only.  Needs the block mapped writable (it counts itself
 * as a reader in it).
 */
typedef int (*ft_stackmap_iter_fn)(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref,
				   void *arg);
int ft_stackmap_for_each(const struct ft_stackmap *h, ft_stackmap_iter_fn fn, void *arg);

void ft_stackmap_get_stat(const struct ft_stackmap *h, struct ft_stackmap_stat *st);

/*
 * Counters are not part of FSMB: recorders store them in the trace file's
 * META as "stackmap.<which>.bits", ".successes" and ".drops" (which = "user"
 * or "kernel"), and `ftrail stackmap stat` reads them back.  Writes those
 * lines into buf; returns their length (as snprintf), or -1.
 */
int ft_stackmap_meta_lines(const struct ft_stackmap *h, const char *which, char *buf, size_t len);

/*
 * Tests and benchmarks: on = 0 makes get_id in this process use the
 * baseline instruction set (SSE2 on x86-64: what a CPU without AVX2 runs),
 * on = 1 AVX2 again where the CPU has it.  Returns 1 when get_id uses
 * AVX2 after the call, else 0.  Not while get_id runs in another thread.
 */
int ft_stackmap_use_avx2(int on);

/* The map's 32-bit hash of ips[0..nr) (before its low bit is set: the key); for tests. */
uint32_t ft_stackmap_hash(const struct ft_stackmap *h, const uint64_t *ips, uint32_t nr);

/*
 * The map's generation: the number of resets it went through.  An id is
 * valid for the generation it was handed out in.  A hint (relaxed).
 */
uint32_t ft_stackmap_gen(const struct ft_stackmap *h);

/*
 * Count one more reference to the stack with id, which get_id returned in
 * generation gen, as get_id would count a hit -- without the stack: for a
 * caller that remembers which stack it would pass (the runtime's -T memo).
 * Same contexts as get_id.  Returns id, or a negative errno, nothing
 * counted: -EINVAL when the map was reset since gen (or is being reset),
 * or slot id holds no published stack; -EAGAIN when this call cannot take
 * the short way (it interrupted another call of this thread, or the
 * thread has no shard of its own yet): call get_id with the stack then.
 */
int ft_stackmap_hit(struct ft_stackmap *h, uint32_t id, uint32_t gen);

/*
 * The element slot id holds (its reference, for ft_stackmap_hit_ref), 0
 * when it holds no published stack.  For a caller that just got id from
 * get_id and remembers both, with the generation it read before that call.
 */
uint32_t ft_stackmap_ref(const struct ft_stackmap *h, uint32_t id);

/*
 * ft_stackmap_hit() with the ref ft_stackmap_ref() gave for id in
 * generation gen (0: read it from the slot, as ft_stackmap_hit): a hit
 * that does not touch the map's table.  Same returns; with a ref of
 * another id the reference counts would be wrong, never the memory.
 */
int ft_stackmap_hit_ref(struct ft_stackmap *h, uint32_t id, uint32_t ref, uint32_t gen);

/*
 * Clear the map.  Returns 0, or -EBUSY when tracing is on (asked through
 * tracing_is_on), another reset is in progress, or get_id callers already
 * inside the map did not leave within FT_STACKMAP_DRAIN_MS (e.g. a traced
 * process died inside get_id); or the negative errno of membarrier() when
 * the kernel refuses it (e.g. a seccomp filter), since then callers in
 * other threads could not be fenced.  Control path only, never from a
 * signal handler; it makes one membarrier() system call.  It waits for
 * walks in progress (for_each, export, write_text)
 * to end; walks started meanwhile fail with -EBUSY / NULL.  Pointers from
 * lookup() are invalid after a reset.
 */
int ft_stackmap_reset(struct ft_stackmap *h);

/*
 * Symbol resolver supplied by the caller: write "symbol+0xoff/0xsize" for ip
 * into buf; return 0, or -1 to print the raw address.
 */
typedef int (*ft_sym_resolve_fn)(uint64_t ip, char *buf, size_t len, void *arg);

/* The text shapes of ftrace's proposed stackmap: stack_map and stack_map_stat. */
void ft_stackmap_write_text(const struct ft_stackmap *h, FILE *f, ft_sym_resolve_fn res, void *arg);
void ft_stackmap_write_stat(const struct ft_stackmap *h, FILE *f);
/* The same shape for counters kept elsewhere (e.g. read back from a trace file). */
void ft_stackmap_write_stat_struct(const struct ft_stackmap_stat *st, FILE *f);

/*
 * FSMB v2 binary export (native endian).  Returns a malloc'ed buffer and its
 * length in *len, or NULL (errno ENOMEM, or EBUSY when a reset ran meanwhile).
 */
void *ft_stackmap_export_bin(const struct ft_stackmap *h, size_t *len);

/*
 * ft_stackmap_export_delta - FSMB v2 blob of the published stacks that no
 * earlier call with the same @seen exported (recorders write a trace's
 * stack map in chunks, each before the data that names its stacks)
 * @seen: ft_stackmap_table_size() u32s, zeroed before the first call;
 *        updated here (per stack_id: 0 never exported, else its ref + 1)
 * @refs: also export the stacks whose reference count changed since (the
 *        last chunk, so the file ends with every final count)
 * Control path, one caller per @seen at a time; safe while get_id runs (a
 * stack published during the walk goes in this chunk or the next).
 * Return: a malloc'ed blob and *len; NULL with errno 0 when there is
 * nothing new, NULL with errno ENOMEM or EBUSY (a reset runs).
 */
void *ft_stackmap_export_delta(const struct ft_stackmap *h, uint32_t *seen, int refs, size_t *len);

/* Ids are below this: the size of export_delta's @seen array. */
uint32_t ft_stackmap_table_size(const struct ft_stackmap *h);

/*
 * Pool elements taken so far (stacks inserted, plus any being inserted or
 * lost to a race): a cheap bound that tells a recorder whether
 * export_delta can have anything new.  Constant time.
 */
uint32_t ft_stackmap_nr_entries(const struct ft_stackmap *h);

/*
 * FSMB v2 reader: parses a buffer (ftrail's own or a kernel's stack_map_bin,
 * either byte order).  On success returns 0 and calls fn for each stack with
 * ips converted to host order; on a truncated, oversized or hostile buffer
 * returns -1 with a one-line reason in err.  Never reads out of bounds.
 */
int ft_fsmb_parse(const void *buf, size_t len, ft_stackmap_iter_fn fn, void *arg, char *err,
		  size_t errlen);

#endif
