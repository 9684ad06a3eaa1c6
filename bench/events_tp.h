/* SPDX-License-Identifier: GPL-2.0 */
/*
 * LTTng-UST tracepoint provider for bench/events_bench.c (only used when
 * <lttng/tracepoint.h> is installed: Debian's liblttng-ust-dev).
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER ftbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./events_tp.h"

#if !defined(FTRAIL_EVENTS_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define FTRAIL_EVENTS_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(ftbench, ev, LTTNG_UST_TP_ARGS(unsigned int, a, unsigned int, b),
			   LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(unsigned int, a, a)
						       lttng_ust_field_integer(unsigned int, b, b)))

#endif

#include <lttng/tracepoint-event.h>
