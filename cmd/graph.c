// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail graph: the call graph of a function_graph trace, as uftrace graph
 * prints it -- every call path with its calls and total time, or for a
 * function the paths that reach it and its own graph.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/builtin.h"
#include "analysis/callgraph.h"
#include "analysis/trace.h"
#include "core/util.h"

const char cmd_graph_usage[] =
	"usage: ftrail graph [-i FILE] [-D N] [FUNC]\n"
	"\n"
	"The call graph of a function_graph trace, as uftrace graph prints it:\n"
	"every call path, from each thread's outermost calls down, with the\n"
	"number of calls made along it and their total time; all threads in one\n"
	"tree, each callee below its caller in first-call order.\n"
	"\n"
	"With FUNC (a glob: each function it matches), FUNC's view instead: its\n"
	"backtraces (the distinct paths that reach its outermost calls, the most\n"
	"hit first, [0] being FUNC) and its graph (its calls from every path\n"
	"merged into one tree).  A call whose entry the trace does not hold is\n"
	"not counted; one still open at the end counts without time.\n"
	"\n"
	"  -i FILE          trace file (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"    ") "  -D, --depth N    print N levels below each root at most\n";

int cmd_graph(int argc, char **argv)
{
	static const struct option longopts[] = {
		FT_NO_DEMANGLE_LONGOPT,
		{ "input", required_argument, NULL, 'i' },
		{ "depth", required_argument, NULL, 'D' },
		{ NULL, 0, NULL, 0 },
	};
	const char *input = "ftrail.dat";
	struct ft_callgraph_view v = { 0 };
	struct ft_callgraph *g;
	struct ft_trace *t;
	uint64_t depth;
	char err[1024];
	int c, n;

	while ((c = getopt_long(argc, argv, ":i:D:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			input = optarg;
			break;
		case 'D':
			if (ft_parse_u64(optarg, 1, INT32_MAX, &depth))
				ft_die("graph: -D wants a depth of at least 1, not '%s'", optarg);
			v.max_depth = (int)depth;
			break;
		default:
			ft_shared_option("graph", c, argv);
		}
	}
	if (optind < argc)
		v.func = argv[optind++];
	ft_no_operands("graph", argc, argv, "one FUNC at most; the trace file is given with -i");
	t = ft_trace_open(input, err, sizeof(err));
	if (!t)
		ft_die("%s", err);
	if (strcmp(ft_trace_tracer(t), "function_graph")) {
		snprintf(err, sizeof(err),
			 "the call graph needs a function_graph trace, not the %s tracer's",
			 ft_trace_tracer(t));
		ft_die_file(input, err);
	}
	for (size_t i = 0; i < ft_trace_nr_warnings(t); i++)
		ft_warn("%s", ft_trace_warning(t, i));
	g = ft_callgraph_build(t, err, sizeof(err));
	if (!g)
		ft_die_file(input, err);
	n = ft_callgraph_print(g, t, &v, stdout);
	if (n < 0 || fflush(stdout) != 0 || ferror(stdout))
		ft_die("writing the output: write error");
	ft_callgraph_free(g);
	if (!n) {
		ft_trace_close(t);
		ft_die("graph: no function called in %s matches '%s'", input, v.func);
	}
	if (ft_trace_nr_lost(t))
		printf("\n  (%llu events were lost: counts and times are incomplete)\n",
		       (unsigned long long)ft_trace_nr_lost(t));
	ft_trace_close(t);
	return 0;
}
