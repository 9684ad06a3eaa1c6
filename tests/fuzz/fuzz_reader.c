// SPDX-License-Identifier: GPL-2.0
/*
 * libFuzzer target for the trace-file reader: the input is a trace file.
 * It goes through everything a reader does with a file: the index
 * (ft_reader_open), loading and inflating every section, the tables
 * (META, MODULES, FUNCS, SYMTAB, KALLSYMS, STACKMAP, TASKS), decoding every
 * UDATA buffer in time order, and formatting each event as `ftrail show`
 * does, in both the function and function_graph layouts.
 *
 * Built and run by tests/fuzz/run.sh (clang -fsanitize=fuzzer,address,undefined).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "ftrace_fmt.h"
#include "options.h"
#include "trace.h"
#include "tracefile.h"

static FILE *sink;

static void walk_sections(const char *path)
{
	char err[512];
	struct ft_reader *r = ft_reader_open(path, err, sizeof(err));

	if (!r)
		return;
	for (size_t i = 0; i < ft_reader_nr_sections(r); i++) {
		size_t len;
		void *p = ft_reader_load(r, ft_reader_section(r, i), &len, err, sizeof(err));

		free(p);
	}
	(void)ft_reader_meta(r, "tracer");
	ft_reader_close(r);
}

static void walk_events(const char *path, uint64_t options)
{
	char err[512];
	struct ft_trace *t = ft_trace_open(path, err, sizeof(err));
	struct ft_event ev;
	struct ft_fmt *f;
	int n = 0;

	if (!t)
		return;
	f = ft_fmt_new(t, options, sink);
	ft_fmt_header(f, 1, 2);
	while (ft_trace_next(t, &ev, err, sizeof(err)) == 1 && n++ < 100000)
		ft_fmt_event(f, &ev);
	ft_fmt_free(f);
	ft_trace_close(t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static char path[64];
	static int fd = -1;
	uint64_t all = ft_options_default();

	if (fd < 0) {
		fd = memfd_create("ftrail-fuzz", 0);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		sink = fopen("/dev/null", "w");
	}
	if (ftruncate(fd, 0) < 0 || pwrite(fd, data, size, 0) != (ssize_t)size)
		abort();
	walk_sections(path);
	walk_events(path, all);
	/* every display option once more: other code paths of the formatter */
	ft_options_apply(&all, "latency-format");
	ft_options_apply(&all, "sym-offset");
	ft_options_apply(&all, "sym-addr");
	ft_options_apply(&all, "funcgraph-proc");
	ft_options_apply(&all, "funcgraph-abstime");
	ft_options_apply(&all, "funcgraph-tail");
	ft_options_apply(&all, "expand-stacks");
	walk_events(path, all);
	return 0;
}
