/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Trace options with ftrace's names (trace_options / options/<name>), shared
 * by the tool (record -O, show -O) and the injected runtime (which reads the
 * record-time ones from its control block).
 */
#ifndef FTRAIL_OPTIONS_H
#define FTRAIL_OPTIONS_H

#include <stdint.h>

/* Option names are spelled with '-': kept out of the formatter. */
/* clang-format off */
/* X(name, bit, default-on, applies) -- applies: R record time, D display time */
#define FT_OPTIONS(X)                                 \
	X(print-parent, PRINT_PARENT, 1, 'D')         \
	X(sym-offset, SYM_OFFSET, 0, 'D')             \
	X(sym-addr, SYM_ADDR, 0, 'D')                 \
	X(latency-format, LATENCY_FORMAT, 0, 'D')     \
	X(raw, RAW, 0, 'D')                           \
	X(hex, HEX, 0, 'D')                           \
	X(overwrite, OVERWRITE, 0, 'R')               \
	X(stacktrace, STACKTRACE, 0, 'R')             \
	X(userstacktrace, USERSTACKTRACE, 0, 'R')     \
	X(stackmap, STACKMAP, 1, 'R')                 \
	X(expand-stacks, EXPAND_STACKS, 0, 'D')       \
	X(funcgraph-proc, FUNCGRAPH_PROC, 0, 'D')     \
	X(funcgraph-abstime, FUNCGRAPH_ABSTIME, 0, 'D') \
	X(funcgraph-duration, FUNCGRAPH_DURATION, 1, 'D') \
	X(funcgraph-cpu, FUNCGRAPH_CPU, 1, 'D')       \
	X(funcgraph-overhead, FUNCGRAPH_OVERHEAD, 1, 'D') \
	X(funcgraph-tail, FUNCGRAPH_TAIL, 0, 'D')     \
	X(record-cmd, RECORD_CMD, 1, 'R')            \
	X(block, BLOCK, 1, 'R')                       \
	X(libcall, LIBCALL, 1, 'R')                   \
	X(funcgraph-args, FUNCGRAPH_ARGS, 0, 'R')     \
	X(funcgraph-retval, FUNCGRAPH_RETVAL, 0, 'R') \
	X(sym-userobj, SYM_USEROBJ, 0, 'D')

/* clang-format on */
enum ft_option_bit {
#define X(name, bit, def, when) FT_OPT_BIT_##bit,
	FT_OPTIONS(X)
#undef X
	FT_OPT_NR
};

#define FT_OPT(bit) (1ull << FT_OPT_BIT_##bit)

/* The options that are on when nothing is said. */
uint64_t ft_options_default(void);

/*
 * Apply "name" or "noname" to *mask.  Returns 0, or -1 when the name is not
 * an option (the caller prints it).
 */
int ft_options_apply(uint64_t *mask, const char *arg);

/* Comma-separated names of the options set in mask (static buffer). */
const char *ft_options_format(uint64_t mask);

/* Parse the output of ft_options_format(); unknown names are ignored. */
uint64_t ft_options_parse(const char *list);

/* Name of option bit i, or NULL. */
const char *ft_option_name(unsigned int i);

#endif
