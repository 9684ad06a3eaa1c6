// SPDX-License-Identifier: GPL-2.0
/*
 * bench/kernel_capture.sh helper: bytes on disk per section type of an
 * ftrail trace file, one "NAME BYTES" line each (headers included), e.g.
 * "KDATA 123456".
 */
#include <stdio.h>

#include "core/tracefile.h"

static const char *const names[FT_SEC_MAX] = {
	"END",	 "META",     "MODULES", "FUNCS", "SYMTAB",   "KALLSYMS", "STACKMAP",
	"UDATA", "KFORMATS", "KDATA",	"TASKS", "UFORMATS", "SNAPSHOT",
};

int main(int argc, char **argv)
{
	unsigned long long bytes[FT_SEC_MAX] = { 0 };
	struct ft_reader *r;
	char err[256];

	if (argc != 2) {
		fprintf(stderr, "usage: kernel_sections FILE\n");
		return 2;
	}
	r = ft_reader_open(argv[1], err, sizeof(err));
	if (!r) {
		fprintf(stderr, "kernel_sections: %s\n", err);
		return 1;
	}
	for (size_t i = 0; i < ft_reader_nr_sections(r); i++) {
		const struct ft_section *s = ft_reader_section(r, i);

		if (s->type < FT_SEC_MAX)
			bytes[s->type] += s->disk_size + sizeof(struct ft_section_hdr);
	}
	for (int t = 0; t < FT_SEC_MAX; t++)
		if (bytes[t])
			printf("%s %llu\n", names[t], bytes[t]);
	ft_reader_close(r);
	return 0;
}
