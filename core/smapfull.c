// SPDX-License-Identifier: GPL-2.0
#include <inttypes.h>
#include <stdio.h>

#include "core/smapfull.h"
#include "core/stackmap.h"
#include "core/tracefile.h"
#include "core/util.h"

unsigned int ft_smap_bits_for(uint64_t stacks)
{
	unsigned int b = FT_STACKMAP_BITS_MIN;

	while (b < FT_STACKMAP_BITS_MAX && (1ull << b) < stacks)
		b++;
	return b;
}

int ft_smap_full_line(char *buf, size_t len, const char *which, unsigned int bits, uint64_t entries,
		      uint64_t successes, uint64_t drops)
{
	uint64_t all = successes + drops;
	/* entries + drops bounds the distinct stacks seen: a refused one may repeat */
	unsigned int want = ft_smap_bits_for(entries + drops);
	int n;

	if (len)
		buf[0] = 0;
	if (!drops || !len)
		return 0;
	if (want <= bits && bits < FT_STACKMAP_BITS_MAX)
		want = bits + 1;
	if (bits >= FT_STACKMAP_BITS_MAX)
		n = snprintf(buf, len,
			     "the %s stack map filled (%" PRIu64 " stacks, --stackmap-bits %u, the "
			     "largest): %" PRIu64 " of %" PRIu64
			     " stacks (%.1f%%) were recorded in "
			     "full instead of by id",
			     which, entries, bits, drops, all, 100.0 * (double)drops / (double)all);
	else
		n = snprintf(buf, len,
			     "the %s stack map filled (%" PRIu64
			     " stacks, --stackmap-bits %u): %" PRIu64 " of %" PRIu64
			     " stacks (%.1f%%) were recorded in full instead of by id; "
			     "record with --stackmap-bits %u",
			     which, entries, bits, drops, all, 100.0 * (double)drops / (double)all,
			     want);
	return n < 0 ? 0 : n;
}

int ft_smap_meta_u64(struct ft_reader *r, const char *which, const char *key, uint64_t *v)
{
	char name[64];
	const char *s;

	snprintf(name, sizeof(name), "stackmap.%s.%s", which, key);
	s = ft_reader_meta(r, name);
	return s && ft_parse_u64(s, 0, UINT64_MAX, v) == 0 ? 0 : -1;
}

int ft_smap_full_meta(struct ft_reader *r, const char *which, char *buf, size_t len)
{
	uint64_t bits, succ, drops, entries;

	if (len)
		buf[0] = 0;
	if (ft_smap_meta_u64(r, which, "bits", &bits) ||
	    ft_smap_meta_u64(r, which, "successes", &succ) ||
	    ft_smap_meta_u64(r, which, "drops", &drops) || bits > 32)
		return 0;
	/* a map that refused was full: it held 2^bits stacks */
	entries = ft_smap_meta_u64(r, which, "entries", &entries) ? (1ull << bits) : entries;
	return ft_smap_full_line(buf, len, which, (unsigned int)bits, entries, succ, drops);
}
