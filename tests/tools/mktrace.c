// SPDX-License-Identifier: GPL-2.0
/*
 * mktrace: write a synthetic trace file (tests only).
 *
 *   mktrace SCENARIO OUT [-z]
 *
 * Valid scenarios (see mktrace.h): graph func threads lost lostloop unwind args, kall
 * (graph with a KALLSYMS section), and
 * "cut" (graph without END, its last chunk half written).  Broken ones for
 * the bad-input tests and the fuzz corpus: badmagic badversion badsection
 * badsize badpage badext baddepth badfsmb badsymtab badzstd empty.
 * -z compresses the sections.
 */
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "tests/tools/mktrace.h"

static void die(const char *m)
{
	fprintf(stderr, "mktrace: %s\n", m);
	exit(2);
}

/* Overwrite len bytes at off of the file. */
static void patch(const char *path, long off, const void *p, size_t len)
{
	int fd = open(path, O_WRONLY);

	if (fd < 0 || pwrite(fd, p, len, off) != (ssize_t)len)
		die("patch failed");
	close(fd);
}

/* On-disk size of a section header (checksums last, core/tracefile.h). */
#define SH ((long)sizeof(struct ft_section_hdr))

/*
 * After a scenario patched a header or payload, recompute every section's
 * checksums (tracefile.h), so the hostile value reaches the check it was
 * written for instead of failing the checksum.
 */
static void reseal(const char *path)
{
	FILE *f = fopen(path, "r+b");
	unsigned char *d;
	long n, off = 24;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) < 24 || fseek(f, 0, SEEK_SET))
		die("reseal: read failed");
	d = malloc((size_t)n);
	if (!d || fread(d, 1, (size_t)n, f) != (size_t)n)
		die("reseal: read failed");
	while (off + SH <= n) {
		struct ft_section_hdr h;
		uint64_t o = (uint64_t)off;
		uint32_t c;

		memcpy(&h, d + off, sizeof(h));
		if (h.disk_size > (uint64_t)(n - off - SH))
			break;
		c = (uint32_t)crc32(0, d + off + SH, (uInt)h.disk_size);
		memcpy(d + off + 32, &c, 4);
		c = (uint32_t)crc32(0, (const Bytef *)&o, 8);
		c = (uint32_t)crc32(c, d + off, (uInt)SH - 4);
		memcpy(d + off + 36, &c, 4);
		off += SH + (long)h.disk_size;
	}
	if (fseek(f, 0, SEEK_SET) || fwrite(d, 1, (size_t)n, f) != (size_t)n || fclose(f))
		die("reseal: write failed");
	free(d);
}

static long file_size(const char *path)
{
	struct stat st;

	if (stat(path, &st) < 0)
		die("stat failed");
	return (long)st.st_size;
}

/* Offset of the first section header of type `type`, or -1. */
static long find_section(const char *path, uint32_t type)
{
	FILE *f = fopen(path, "rb");
	struct ft_section_hdr h;
	long off = 24;

	if (!f)
		die("open failed");
	while (fseek(f, off, SEEK_SET) == 0 && fread(&h, sizeof(h), 1, f) == 1) {
		if (h.type == type) {
			fclose(f);
			return off;
		}
		off += (long)sizeof(h) + (long)h.disk_size;
	}
	fclose(f);
	return -1;
}

static int build(const char *scen, const char *out, int z)
{
	struct ft_writer *w = ft_writer_open(out, 3, NULL, 0);
	const char *tracer = !strcmp(scen, "func") ? "function" : "function_graph";
	int ret;

	if (!w)
		die("cannot create the output");
	/* args: show prints the values unless told otherwise, as after record -A */
	ret = mk_tables(w, tracer,
			!strcmp(scen, "args") ? "options=funcgraph-args,funcgraph-retval\n" : NULL,
			z);
	if (!strcmp(scen, "func"))
		ret |= mk_funcs(w, z);
	else if (!strcmp(scen, "threads"))
		ret |= mk_threads(w, z);
	else if (!strcmp(scen, "lost"))
		ret |= mk_lost(w, z);
	else if (!strcmp(scen, "lostloop"))
		ret |= mk_lostloop(w, z);
	else if (!strcmp(scen, "unwind"))
		ret |= mk_unwind(w, z);
	else if (!strcmp(scen, "args"))
		ret |= mk_args(w, z);
	else
		ret |= mk_graph(w, z);
	if (!strcmp(scen, "kall")) {
		static const char ks[] = "ffffffff81000000 T _stext\n"
					 "ffffffff81000100 t do_one\n"
					 "ffffffff81000200 T schedule\t[kvm]\n";

		ret |= ft_writer_add(w, FT_SEC_KALLSYMS, 0, ks, sizeof(ks) - 1, z);
	}
	ret |= ft_writer_close(w, NULL, 0);
	return ret;
}

int main(int argc, char **argv)
{
	const char *scen, *out;
	int z;

	if (argc < 3)
		die("usage: mktrace SCENARIO OUT [-z]");
	scen = argv[1];
	out = argv[2];
	z = argc > 3 && !strcmp(argv[3], "-z");

	if (!strcmp(scen, "empty")) {
		FILE *f = fopen(out, "w");

		if (!f)
			die("cannot create the output");
		fclose(f);
		return 0;
	}
	if (build(scen, out, z))
		die("writing failed");
	if (!strcmp(scen, "graph") || !strcmp(scen, "func") || !strcmp(scen, "threads") ||
	    !strcmp(scen, "lost") || !strcmp(scen, "lostloop") || !strcmp(scen, "unwind") ||
	    !strcmp(scen, "kall") || !strcmp(scen, "args"))
		return 0;
	if (!strcmp(scen, "cut")) {
		/* drop END (one header) and the tail of the last UDATA chunk */
		if (truncate(out, file_size(out) - SH - 12) < 0)
			die("truncate failed");
	} else if (!strcmp(scen, "badmagic")) {
		patch(out, 0, "FTRAIX", 6);
	} else if (!strcmp(scen, "badversion")) {
		uint32_t v = 99;

		patch(out, 8, &v, 4);
	} else if (!strcmp(scen, "badsection")) {
		uint32_t t = 77;

		patch(out, find_section(out, FT_SEC_TASKS), &t, 4);
	} else if (!strcmp(scen, "badsize")) {
		uint64_t raw = 12345; /* uncompressed: raw must equal disk */

		patch(out, find_section(out, FT_SEC_META) + 24, &raw, 8);
	} else if (!strcmp(scen, "badpage")) {
		uint32_t size = 1u << 30; /* page size beyond the buffer */

		patch(out, find_section(out, FT_SEC_UDATA) + SH + 8, &size, 4);
	} else if (!strcmp(scen, "badext")) {
		/* first record of the graph page -> an EXT claiming 1000 words */
		uint32_t wd = ft_rec_ext(FT_EXT_MARKER, 1000, 0);

		patch(out, find_section(out, FT_SEC_UDATA) + SH + 32, &wd, 4);
	} else if (!strcmp(scen, "baddepth")) {
		uint16_t d = 65535; /* a page that says it starts 65535 calls deep */

		patch(out, find_section(out, FT_SEC_UDATA) + SH + 26, &d, 2);
	} else if (!strcmp(scen, "badfsmb")) {
		uint32_t n = 0x7fffffff;

		patch(out, find_section(out, FT_SEC_STACKMAP) + SH + 8, &n, 4);
	} else if (!strcmp(scen, "badsymtab")) {
		uint32_t n = 0x7fffffff;
		long off = find_section(out, FT_SEC_SYMTAB);
		struct ft_section_hdr h;
		FILE *f = fopen(out, "rb");

		if (!f || fseek(f, off, SEEK_SET) || fread(&h, sizeof(h), 1, f) != 1)
			die("read failed");
		fclose(f);
		if (h.flags & FT_SF_ZSTD)
			die("badsymtab needs an uncompressed file (no -z)");
		patch(out, off + SH, &n, 4);
	} else if (!strcmp(scen, "badzstd")) {
		long off = find_section(out, FT_SEC_SYMTAB); /* flagged zstd, payload junk */
		unsigned char junk[8] = { 0xde, 0xad, 0xbe, 0xef, 0xde, 0xad, 0xbe, 0xef };
		uint32_t fl = FT_SF_ZSTD;

		patch(out, off + 4, &fl, 4);
		patch(out, off + SH, junk, sizeof(junk));
	} else {
		die("unknown scenario");
	}
	if (strcmp(scen, "cut"))
		reseal(out);
	return 0;
}
