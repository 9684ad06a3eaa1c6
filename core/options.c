// SPDX-License-Identifier: GPL-2.0
#include "core/options.h"

#include <string.h>

static const struct {
	const char *name;
	int def;
} options[FT_OPT_NR] = {
#define X(n, bit, d, when) [FT_OPT_BIT_##bit] = { #n, d },
	FT_OPTIONS(X)
#undef X
};

uint64_t ft_options_default(void)
{
	uint64_t m = 0;

	for (unsigned int i = 0; i < FT_OPT_NR; i++)
		if (options[i].def)
			m |= 1ull << i;
	return m;
}

const char *ft_option_name(unsigned int i)
{
	return i < FT_OPT_NR ? options[i].name : NULL;
}

int ft_options_apply(uint64_t *mask, const char *arg)
{
	int neg = !strncmp(arg, "no", 2) && strcmp(arg, "no");

	for (int pass = 0; pass < 2; pass++) {
		/* "nofoo" means "not foo" unless an option is really named "nofoo" */
		const char *name = pass == 0 ? arg : arg + 2;

		if (pass == 1 && !neg)
			break;
		for (unsigned int i = 0; i < FT_OPT_NR; i++) {
			if (strcmp(options[i].name, name))
				continue;
			if (pass == 1)
				*mask &= ~(1ull << i);
			else
				*mask |= 1ull << i;
			return 0;
		}
	}
	return -1;
}

const char *ft_options_format(uint64_t mask)
{
	static char buf[512];
	size_t n = 0;

	buf[0] = 0;
	for (unsigned int i = 0; i < FT_OPT_NR; i++) {
		size_t l = strlen(options[i].name);

		if (!(mask & (1ull << i)) || n + l + 2 > sizeof(buf))
			continue;
		if (n)
			buf[n++] = ',';
		memcpy(buf + n, options[i].name, l + 1);
		n += l;
	}
	return buf;
}

uint64_t ft_options_parse(const char *list)
{
	uint64_t m = 0;
	const char *p = list;

	while (p && *p) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);

		for (unsigned int i = 0; i < FT_OPT_NR; i++)
			if (strlen(options[i].name) == l && !strncmp(options[i].name, p, l))
				m |= 1ull << i;
		p = e ? e + 1 : NULL;
	}
	return m;
}
