// SPDX-License-Identifier: GPL-2.0
/*
 * String escaping for the JSON and XML writers (see escape.h).
 */
#include "analysis/escape.h"

#include <string.h>

size_t ft_utf8_len(const unsigned char *s, size_t n)
{
	size_t need;

	if (s[0] < 0x80)
		return 1;
	if (s[0] >= 0xc2 && s[0] <= 0xdf)
		need = 2;
	else if (s[0] >= 0xe0 && s[0] <= 0xef)
		need = 3;
	else if (s[0] >= 0xf0 && s[0] <= 0xf4)
		need = 4;
	else
		return 0;
	if (need > n)
		return 0;
	for (size_t i = 1; i < need; i++)
		if ((s[i] & 0xc0) != 0x80)
			return 0;
	return need;
}

void ft_json_str(FILE *out, const char *s)
{
	const unsigned char *u = (const unsigned char *)(s ? s : "");
	size_t left = strlen((const char *)u);

	fputc('"', out);
	while (left) {
		size_t l, run = 0;

		/* a run of plain printable ASCII goes out as it is, in one write */
		while (run < left && u[run] >= 0x20 && u[run] < 0x7f && u[run] != '"' &&
		       u[run] != '\\')
			run++;
		if (run) {
			fwrite_unlocked(u, 1, run, out);
			u += run;
			left -= run;
			continue;
		}
		l = ft_utf8_len(u, left);

		if (!l) {
			fputs("\\ufffd", out);
			u++;
			left--;
			continue;
		}
		if (l > 1) {
			fwrite(u, 1, l, out);
			u += l;
			left -= l;
			continue;
		}
		switch (*u) {
		case '"':
			fputs("\\\"", out);
			break;
		case '\\':
			fputs("\\\\", out);
			break;
		case '\n':
			fputs("\\n", out);
			break;
		case '\t':
			fputs("\\t", out);
			break;
		case '\r':
			fputs("\\r", out);
			break;
		default:
			if (*u < 0x20 || *u == 0x7f)
				fprintf(out, "\\u%04x", *u);
			else
				fputc(*u, out);
		}
		u++;
		left--;
	}
	fputc('"', out);
}

void ft_xml_put(FILE *out, const char *s, size_t len)
{
	const unsigned char *u = (const unsigned char *)s;
	size_t i = 0;

	while (i < len) {
		size_t l = ft_utf8_len(u + i, len - i);

		if (l == 0 || (l == 1 && u[i] < 0x20)) {
			fputc('?', out);
			i++;
			continue;
		}
		if (l > 1) {
			fwrite(u + i, 1, l, out);
			i += l;
			continue;
		}
		switch (u[i]) {
		case '&':
			fputs("&amp;", out);
			break;
		case '<':
			fputs("&lt;", out);
			break;
		case '>':
			fputs("&gt;", out);
			break;
		case '"':
			fputs("&quot;", out);
			break;
		case '\'':
			fputs("&#39;", out);
			break;
		default:
			fputc(u[i], out);
		}
		i++;
	}
}

void ft_xml_puts(FILE *out, const char *s)
{
	ft_xml_put(out, s, strlen(s));
}
