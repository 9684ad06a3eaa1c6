/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The real return addresses behind function_graph's return trampoline in
 * the user stacks the kernel took (userstacktrace) of a traced program.
 *
 * While a traced function runs, its return-address slot holds the
 * runtime's ft_rt_return, so the kernel's frame-pointer walk reads that.
 * As the kernel's ftrace_graph_ret_addr() does without the slot address,
 * the n-th trampoline address of a stack, innermost first, is the return
 * address of the n-th open hijacked frame of that thread at that moment.
 * The open frames come from the user records (entries and exits), their
 * return addresses from the stacks the runtime took at each entry (it
 * takes them whenever userstacktrace is on).
 */
#ifndef FTRAIL_GRAPHRET_H
#define FTRAIL_GRAPHRET_H

#include <stddef.h>
#include <stdint.h>

struct ft_graphret;

/**
 * ft_graphret_open() - prepare the mapping for trace file @path
 * Return: a handle, or NULL with a reason in @err.  The file is opened
 * again at the first stack, its user records read at the first one that
 * holds the trampoline.
 */
struct ft_graphret *ft_graphret_open(const char *path, char *err, size_t errlen);
void ft_graphret_free(struct ft_graphret *g);

/**
 * ft_graphret_fix() - put the real return addresses back into one stack
 * @g:    from ft_graphret_open(), or NULL (nothing done)
 * @tid:  the thread the kernel took the stack of
 * @ts:   when, in ns on the trace clock
 * @ips:  the stack, innermost first; trampoline addresses are replaced
 * @nr:   its length
 *
 * Return: the number of addresses replaced; trampoline addresses with no
 * known frame stay as they were.
 */
uint32_t ft_graphret_fix(struct ft_graphret *g, uint32_t tid, uint64_t ts, uint64_t *ips,
			 uint32_t nr);

#endif
