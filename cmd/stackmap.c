// SPDX-License-Identifier: GPL-2.0
/*
 * ftrail stackmap: the stack map from the outside.
 *
 *   dump FILE     read an FSMB v2 file (ftrail's own export, or a kernel's
 *                 stack_map_bin, either byte order) and print it in the
 *                 stack_map text shape or as JSON
 *   show          the stack map recorded in a trace file (stack_map shape)
 *   stat          its counters (stack_map_stat shape)
 *   export -o F   its FSMB v2 blob, as a file
 *
 * Parsing and validation live in core/stackmap.c (ft_fsmb_parse), the
 * symbol tables in core/symbols.c; this file reads files, sorts and prints.
 */
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <getopt.h>
#include <inttypes.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd/builtin.h"
#include "core/outfile.h"
#include "core/smapfull.h"
#include "core/stackmap.h"
#include "analysis/trace.h"
#include "core/tracefile.h"
#include "core/util.h"

const char cmd_stackmap_usage[] =
	"usage: ftrail stackmap dump FILE [--format text|json] [--top N] [--kallsyms FILE]\n"
	"                              [--elf FILE]...\n"
	"       ftrail stackmap show   [-i TRACE] [--kernel] [--format text|json] [--top N]\n"
	"                              [--kallsyms FILE] [--elf FILE]...\n"
	"       ftrail stackmap stat   [-i TRACE] [--kernel]\n"
	"       ftrail stackmap export -o FILE [-i TRACE] [--kernel]\n"
	"\n"
	"The stack map stores each distinct stack once; events carry its 4-byte stack_id\n"
	"(trace option stackmap).\n"
	"\n"
	"  dump FILE        read an FSMB v2 binary (`ftrail stackmap export`, or a kernel's\n"
	"                   /sys/kernel/tracing/stack_map_bin, either byte order) and print it\n"
	"                   in stack_map's shape:\n"
	"                     stack_id N [ref R, depth D]\n"
	"                       [0] symbol+0xoff/0xsize\n"
	"  show             print the stack map of a trace file in the same shape\n"
	"  stat             print its counters in stack_map_stat's shape (entries,\n"
	"                   table_size, successes, drops, success_rate)\n"
	"  export -o FILE   write its FSMB v2 binary to FILE (mode 0600; '-' for standard\n"
	"                   output), through FILE.partial renamed over FILE when complete\n"
	"\n"
	"  -i TRACE         trace file to read (default ./ftrail.dat)\n" FT_NO_DEMANGLE_HELP(
		"    ") "  --kernel         the kernel stacks' map (default: the traced program's)\n"
			"  -F, --format FMT text (default: stack_map's shape) or json:\n"
			"                   [{\"stack_id\", \"ref_count\", \"depth\", \"ips\", \"symbols\"}]\n"
			"                   (--json, the old spelling, still works with a warning)\n"
			"  --top N          only the N stacks with the most references\n"
			"  --kallsyms FILE  symbolise with a kallsyms-format file (\"addr type name [mod]\")\n"
			"  --elf FILE       symbolise with an ELF file's symbols at its link addresses\n"
			"                   (vmlinux, a non-PIE program); repeatable\n"
			"\n"
			"show symbolises with the trace's own symbol tables unless --kallsyms/--elf\n"
			"are given; dump prints raw addresses without them.  A truncated, oversized or\n"
			"malformed FSMB file is refused with one line on stderr.\n";

/* The largest FSMB anyone writes: 2^18 stacks of 64 frames (the format's cap). */
#define FSMB_MAX_BYTES                                                                             \
	(sizeof(struct ft_fsmb_header) +                                                           \
	 ((size_t)1 << FT_STACKMAP_BITS_MAX) *                                                     \
		 (sizeof(struct ft_fsmb_entry) + FT_STACKMAP_MAX_DEPTH * sizeof(uint64_t)))

struct stack {
	uint32_t id, nr, ref;
	uint64_t *ips;
};

struct stacks {
	struct stack *v;
	size_t nr, cap;
	uint64_t refs;
};

enum {
	OPT_JSON = 256,
	OPT_TOP,
	OPT_KALLSYMS,
	OPT_ELF,
	OPT_KERNEL
};

/* --format: how show and dump print (the order of formats[]) */
enum stackmap_format {
	FMT_TEXT,
	FMT_JSON
};
static const char *const formats[] = { "text", "json", NULL };

struct opts {
	const char *input, *output;
	int format; /* enum stackmap_format, or -1: none given */
	int json, kernel;
	uint64_t top;
	const char **kallsyms, **elf;
	size_t nr_kallsyms, nr_elf;
};

static int collect(uint32_t id, const uint64_t *ips, uint32_t nr, uint32_t ref, void *arg)
{
	struct stacks *s = arg;
	struct stack *e;

	if (s->nr == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 64;
		s->v = ft_realloc(s->v, s->cap * sizeof(*s->v));
	}
	e = &s->v[s->nr++];
	e->id = id;
	e->nr = nr;
	e->ref = ref;
	e->ips = ft_malloc((nr ? nr : 1) * sizeof(*ips));
	memcpy(e->ips, ips, nr * sizeof(*ips));
	s->refs += ref;
	return 0;
}

static void stacks_free(struct stacks *s)
{
	for (size_t i = 0; i < s->nr; i++)
		free(s->v[i].ips);
	free(s->v);
}

/* Most references first; stack_id breaks ties so the order is stable. */
static int by_ref(const void *a, const void *b)
{
	const struct stack *x = a, *y = b;

	if (x->ref != y->ref)
		return x->ref > y->ref ? -1 : 1;
	return x->id < y->id ? -1 : x->id > y->id;
}

/* Parse an FSMB buffer into s or die with "<what>: <reason>". */
static void parse_or_die(const char *what, const void *buf, size_t len, struct stacks *s)
{
	char err[256];

	if (ft_fsmb_parse(buf, len, collect, s, err, sizeof(err)) < 0)
		ft_die("%s: %s", what, err);
}

/* Read a whole FSMB file, refusing anything larger than any map can be. */
static void *read_fsmb_file(const char *path, size_t *len)
{
	struct stat st;
	size_t got = 0;
	char *buf;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		ft_die("cannot open %s: %s", path, strerror(errno));
	if (fstat(fd, &st) < 0)
		ft_die("cannot stat %s: %s", path, strerror(errno));
	if (!S_ISREG(st.st_mode))
		ft_die("%s: not a regular file", path);
	if ((uint64_t)st.st_size > FSMB_MAX_BYTES)
		ft_die("%s: %" PRIu64 " bytes is larger than any stack map (at most %zu)", path,
		       (uint64_t)st.st_size, (size_t)FSMB_MAX_BYTES);
	buf = ft_malloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0)
			ft_die("cannot read %s: %s", path, strerror(errno));
		if (n == 0)
			break; /* shrank meanwhile: the parser reports the truncation */
		got += (size_t)n;
	}
	close(fd);
	*len = got;
	return buf;
}

static char *read_text_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t cap = 0, n;

	if (!f)
		ft_die("cannot open %s: %s", path, strerror(errno));
	*len = 0;
	do {
		if (cap - *len < 65536) {
			cap = cap ? cap * 2 : 1 << 20;
			buf = ft_realloc(buf, cap);
		}
		n = fread(buf + *len, 1, cap - *len, f);
		*len += n;
	} while (n > 0);
	if (ferror(f))
		ft_die("cannot read %s", path);
	fclose(f);
	return buf;
}

/*
 * The link-time placement of an ELF file: base such that runtime address =
 * base + SYMTAB offset of core/symbols.h (first PT_LOAD's p_vaddr -
 * p_offset), and the [start, end) its PT_LOADs cover.
 */
static void elf_layout(const char *path, uint64_t *base, uint64_t *start, uint64_t *end)
{
	int fd, first = 1;
	size_t n = 0;
	char err[512];
	Elf *e = ft_elf_open(path, &fd, err, sizeof(err));

	if (!e)
		ft_die("%s", err);
	if (elf_getphdrnum(e, &n) < 0)
		ft_die("%s: not an ELF file", path);
	*base = 0;
	*start = UINT64_MAX;
	*end = 0;
	for (size_t i = 0; i < n; i++) {
		GElf_Phdr ph;

		if (!gelf_getphdr(e, (int)i, &ph) || ph.p_type != PT_LOAD)
			continue;
		if (first) {
			*base = ph.p_vaddr - ph.p_offset;
			first = 0;
		}
		if (ph.p_vaddr < *start)
			*start = ph.p_vaddr;
		if (ph.p_vaddr + ph.p_memsz > *end)
			*end = ph.p_vaddr + ph.p_memsz;
	}
	elf_end(e);
	close(fd);
	if (first)
		ft_die("%s: no loadable segment", path);
}

/* Symbols from --kallsyms/--elf, or NULL when none was given. */
static struct ft_symbols *load_symbols(const struct opts *o)
{
	struct ft_symbols *s;
	char err[256];

	if (!o->nr_kallsyms && !o->nr_elf)
		return NULL;
	s = ft_symbols_new();
	if (!s)
		ft_die("out of memory");
	if (o->nr_kallsyms > 1)
		ft_die("stackmap: --kallsyms given twice");
	if (o->nr_kallsyms) {
		size_t len;
		char *text = read_text_file(o->kallsyms[0], &len);
		struct ft_symtab *k = ft_kallsyms_parse(text, len, err, sizeof(err));

		if (!k)
			ft_die("%s: %s", o->kallsyms[0], err);
		if (!k->nr)
			ft_die("%s: no text symbols (not a kallsyms file?)", o->kallsyms[0]);
		free(text);
		ft_symbols_set_kernel(s, k);
	}
	for (size_t i = 0; i < o->nr_elf; i++) {
		uint64_t base, start, end;
		struct ft_symtab *st = ft_symtab_from_elf(o->elf[i], NULL, 0, err, sizeof(err));

		if (!st) /* err names the file */
			ft_die("%s", err);
		elf_layout(o->elf[i], &base, &start, &end);
		if (ft_symbols_add_module(s, start, end, base, o->elf[i], st) < 0)
			ft_die("out of memory");
	}
	return s;
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

/* Print stacks (sorted by id, or by references with --top) as text or JSON. */
static void print_stacks(struct stacks *s, const struct opts *o, const struct ft_symbols *syms)
{
	size_t n = s->nr;
	char sym[512];

	if (o->top) {
		qsort(s->v, s->nr, sizeof(*s->v), by_ref);
		if (o->top < n)
			n = (size_t)o->top;
	}
	if (o->json)
		fputs("[", stdout);
	for (size_t i = 0; i < n; i++) {
		const struct stack *e = &s->v[i];

		if (!o->json) {
			printf("stack_id %" PRIu32 " [ref %" PRIu32 ", depth %" PRIu32 "]\n", e->id,
			       e->ref, e->nr);
			for (uint32_t k = 0; k < e->nr; k++) {
				if (syms &&
				    ft_symbols_resolve(syms, e->ips[k], 1, sym, sizeof(sym)) == 0)
					printf("  [%" PRIu32 "] %s\n", k, sym);
				else
					printf("  [%" PRIu32 "] 0x%" PRIx64 "\n", k, e->ips[k]);
			}
			putchar('\n');
			continue;
		}
		printf("%s\n  {\"stack_id\": %" PRIu32 ", \"ref_count\": %" PRIu32
		       ", \"depth\": %" PRIu32 ", \"ips\": [",
		       i ? "," : "", e->id, e->ref, e->nr);
		for (uint32_t k = 0; k < e->nr; k++)
			printf("%s\"0x%" PRIx64 "\"", k ? ", " : "", e->ips[k]);
		putchar(']');
		if (syms) {
			fputs(", \"symbols\": [", stdout);
			for (uint32_t k = 0; k < e->nr; k++) {
				ft_symbols_resolve(syms, e->ips[k], 1, sym, sizeof(sym));
				if (k)
					fputs(", ", stdout);
				json_str(stdout, sym);
			}
			putchar(']');
		}
		putchar('}');
	}
	if (o->json)
		fputs(n ? "\n]\n" : "]\n", stdout);
}

static int do_dump(const char *path, const struct opts *o)
{
	struct stacks s = { 0 };
	struct ft_symbols *syms;
	size_t len;
	void *buf = read_fsmb_file(path, &len);

	parse_or_die(path, buf, len, &s);
	free(buf);
	syms = load_symbols(o);
	print_stacks(&s, o, syms);
	ft_symbols_free(syms);
	stacks_free(&s);
	if (fflush(stdout) || ferror(stdout))
		ft_die("cannot write the output: %s", strerror(errno));
	return 0;
}

/* The FSMB blob of the chosen map of a trace file; dies when there is none. */
static void *load_trace_map(struct ft_reader *r, const struct opts *o, size_t *len)
{
	char err[256];
	void *blob;

	err[0] = '\0';
	blob = ft_reader_load_fsmb(r, o->kernel ? 1 : 0, len, err, sizeof(err));
	if (!blob && err[0])
		ft_die_file(o->input, err);
	if (!blob)
		ft_die("%s: no %s stack map in this trace (record with -O stackmap%s)", o->input,
		       o->kernel ? "kernel" : "user",
		       o->kernel ? " -T" : " and -T or -O userstacktrace");
	return blob;
}

static struct ft_reader *open_trace(const struct opts *o)
{
	char err[512];
	struct ft_reader *r = ft_reader_open(o->input, err, sizeof(err));

	if (!r)
		ft_die("%s", err);
	for (size_t i = 0; i < ft_reader_nr_warnings(r); i++)
		ft_warn("%s", ft_reader_warning(r, i));
	return r;
}

static int do_show(const struct opts *o)
{
	struct ft_reader *r = open_trace(o);
	struct ft_symbols *syms = load_symbols(o);
	struct ft_trace *t = NULL;
	struct stacks s = { 0 };
	size_t len;
	void *blob = load_trace_map(r, o, &len);

	parse_or_die(o->input, blob, len, &s);
	free(blob);
	ft_reader_close(r);
	if (!syms) {
		/* the trace's own tables: modules, their symbols, kallsyms */
		char err[512];

		t = ft_trace_open(o->input, err, sizeof(err));
		if (!t)
			ft_die("%s", err);
	}
	print_stacks(&s, o, syms ? syms : (t ? ft_trace_symbols(t) : NULL));
	if (t)
		ft_trace_close(t);
	ft_symbols_free(syms);
	stacks_free(&s);
	if (fflush(stdout) || ferror(stdout))
		ft_die("cannot write the output: %s", strerror(errno));
	return 0;
}

/*
 * stack_map_stat of a trace file: entries from the FSMB blob; capacity,
 * successes and drops from META (see ft_stackmap_meta_lines()).  Without
 * META, successes are the sum of the references (a map invariant) and the
 * rest is printed as unknown rather than guessed.
 */
static int do_stat(const struct opts *o)
{
	const char *which = o->kernel ? "kernel" : "user";
	struct ft_reader *r = open_trace(o);
	struct ft_stackmap_stat st = { 0 };
	struct stacks s = { 0 };
	uint64_t bits, succ, drops;
	int have_bits, have_drops;
	char line[320];
	size_t len;
	void *blob = load_trace_map(r, o, &len);

	parse_or_die(o->input, blob, len, &s);
	free(blob);
	have_bits = ft_smap_meta_u64(r, which, "bits", &bits) == 0;
	if (have_bits && (bits < FT_STACKMAP_BITS_MIN || bits > FT_STACKMAP_BITS_MAX))
		ft_die("%s: META stackmap.%s.bits=%" PRIu64 " is out of range", o->input, which,
		       bits);
	st.entries = (uint32_t)s.nr;
	st.successes = ft_smap_meta_u64(r, which, "successes", &succ) == 0 ? succ : s.refs;
	have_drops = ft_smap_meta_u64(r, which, "drops", &drops) == 0;
	ft_reader_close(r);
	if (have_bits && have_drops) {
		st.max_entries = 1u << bits;
		st.table_size = 2u << bits;
		st.drops = drops;
		ft_stackmap_write_stat_struct(&st, stdout);
		if (ft_smap_full_line(line, sizeof(line), which, (unsigned int)bits, st.entries,
				      st.successes, st.drops)) {
			fflush(stdout);
			ft_warn("%s", line);
		}
	} else {
		printf("entries: %" PRIu32 " / %s\n", st.entries, "unknown");
		printf("table_size: unknown\n");
		printf("successes: %" PRIu64 "\n", st.successes);
		printf("drops: unknown (not recorded in this trace)\n");
	}
	stacks_free(&s);
	if (fflush(stdout) || ferror(stdout))
		ft_die("cannot write the output: %s", strerror(errno));
	return 0;
}

static int do_export(const struct opts *o)
{
	struct ft_reader *r = open_trace(o);
	struct stacks s = { 0 };
	struct ft_outfile of = { .fd = -1 };
	size_t len, done = 0;
	void *blob = load_trace_map(r, o, &len);
	char err[512];
	int fd;

	parse_or_die(o->input, blob, len, &s); /* never export what dump would refuse */
	stacks_free(&s);
	ft_reader_close(r);
	/* "-": standard output; else OUTPUT.partial, renamed over OUTPUT once complete */
	if (!strcmp(o->output, "-")) {
		fd = STDOUT_FILENO;
	} else {
		if (ft_outfile_create(&of, o->output, 0600, err, sizeof(err))) {
			free(blob); /* every exit frees what it loaded (ASan's leak check) */
			ft_die("%s", err);
		}
		fd = of.fd;
	}
	while (done < len) {
		ssize_t n = write(fd, (char *)blob + done, len - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			int e = n < 0 ? errno : EIO;

			ft_outfile_abort(&of, 0);
			free(blob);
			ft_die("cannot write %s: %s", o->output, strerror(e));
		}
		done += (size_t)n;
	}
	if (fd != STDOUT_FILENO && ft_outfile_commit(&of, err, sizeof(err))) {
		free(blob);
		ft_die("%s", err);
	}
	free(blob);
	return 0;
}

int cmd_stackmap(int argc, char **argv)
{
	static const struct option longopts[] = {
		FT_NO_DEMANGLE_LONGOPT,
		{ "json", no_argument, NULL, OPT_JSON },
		{ "format", required_argument, NULL, 'F' },
		{ "top", required_argument, NULL, OPT_TOP },
		{ "kallsyms", required_argument, NULL, OPT_KALLSYMS },
		{ "elf", required_argument, NULL, OPT_ELF },
		{ "kernel", no_argument, NULL, OPT_KERNEL },
		{ "input", required_argument, NULL, 'i' },
		{ "output", required_argument, NULL, 'o' },
		{ NULL, 0, NULL, 0 },
	};
	struct opts o = { .input = "ftrail.dat", .format = -1 };
	const char *sub;
	int c, ret;

	if (argc < 2)
		ft_die("stackmap: which one: show, stat, export or dump? (see 'ftrail help "
		       "stackmap')");
	sub = argv[1];
	if (strcmp(sub, "show") && strcmp(sub, "stat") && strcmp(sub, "export") &&
	    strcmp(sub, "dump"))
		ft_die("stackmap: unknown subcommand '%s' (show, stat, export or dump)", sub);
	argc--;
	argv++;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":i:o:F:", longopts, NULL)) != -1) {
		switch (c) {
		case 'i':
			o.input = optarg;
			break;
		case 'o':
			o.output = optarg;
			break;
		case 'F':
			o.format = ft_format_choose("stackmap", optarg, formats, o.format);
			break;
		case OPT_JSON:
			o.format = ft_format_deprecated("stackmap", "--json", "json", formats,
							o.format);
			break;
		case OPT_KERNEL:
			o.kernel = 1;
			break;
		case OPT_TOP:
			if (ft_parse_u64(optarg, 1, UINT32_MAX, &o.top))
				ft_die("stackmap: --top needs a positive number, not '%s'", optarg);
			break;
		case OPT_KALLSYMS:
			o.kallsyms = ft_realloc(o.kallsyms, (o.nr_kallsyms + 1) * sizeof(char *));
			o.kallsyms[o.nr_kallsyms++] = optarg;
			break;
		case OPT_ELF:
			o.elf = ft_realloc(o.elf, (o.nr_elf + 1) * sizeof(char *));
			o.elf[o.nr_elf++] = optarg;
			break;
		default:
			ft_shared_option("stackmap", c, argv);
		}
	}
	o.json = o.format == FMT_JSON;
	if (!strcmp(sub, "dump")) {
		if (optind != argc - 1)
			ft_die("stackmap dump: needs exactly one FILE (see 'ftrail help stackmap')");
		ret = do_dump(argv[optind], &o);
	} else {
		if (optind != argc)
			ft_die("stackmap %s: unexpected argument '%s'", sub, argv[optind]);
		if (!strcmp(sub, "show")) {
			ret = do_show(&o);
		} else if (!strcmp(sub, "stat")) {
			if (o.format >= 0 || o.top || o.nr_kallsyms || o.nr_elf)
				ft_die("stackmap stat: --format, --top, --kallsyms and --elf do not "
				       "apply");
			ret = do_stat(&o);
		} else {
			if (!o.output)
				ft_die("stackmap export: needs -o FILE");
			if (o.format >= 0)
				ft_die("stackmap export: --format does not apply (it writes the "
				       "FSMB binary)");
			ret = do_export(&o);
		}
	}
	free(o.kallsyms);
	free(o.elf);
	return ret;
}
