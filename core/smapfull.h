/* SPDX-License-Identifier: GPL-2.0 */
/*
 * When a stack map filled: the one line record, `stacks` and
 * `stackmap stat` print, from the counters recorders keep in META
 * (stackmap.<which>.bits, .successes, .drops; see core/stackmap.h).
 */
#ifndef FTRAIL_SMAPFULL_H
#define FTRAIL_SMAPFULL_H

#include <stddef.h>
#include <stdint.h>

struct ft_reader;

/**
 * ft_smap_bits_for() - the --stackmap-bits that holds @stacks stacks
 * Return: the smallest bits in [FT_STACKMAP_BITS_MIN, FT_STACKMAP_BITS_MAX]
 * with 2^bits >= @stacks (the maximum when none does).
 */
unsigned int ft_smap_bits_for(uint64_t stacks);

/**
 * ft_smap_full_line() - say that a stack map filled, and what to do
 * @buf, @len:  where the line goes (no newline)
 * @which:      "user" or "kernel"
 * @bits:       the map's capacity, 2^@bits stacks
 * @entries:    stacks it stored
 * @successes:  lookups it served
 * @drops:      lookups it refused (their stacks were recorded in full)
 *
 * Return: the line's length; 0 (and an empty @buf) when it never refused.
 */
int ft_smap_full_line(char *buf, size_t len, const char *which, unsigned int bits, uint64_t entries,
		      uint64_t successes, uint64_t drops);

/**
 * ft_smap_meta_u64() - a stack map counter from a trace file's META
 * @which:  "user" or "kernel"
 * @key:    "bits", "entries", "successes" or "drops"
 * @v:      the value, when there is one
 *
 * Reads META's stackmap.<which>.<key>.
 * Return: 0, or -1 when it is absent or not a number.
 */
int ft_smap_meta_u64(struct ft_reader *r, const char *which, const char *key, uint64_t *v);

/**
 * ft_smap_full_meta() - ft_smap_full_line() from a trace file's META
 * Return: as ft_smap_full_line(); 0 when the counters were not recorded.
 */
int ft_smap_full_meta(struct ft_reader *r, const char *which, char *buf, size_t len);

#endif
