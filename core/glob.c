// SPDX-License-Identifier: GPL-2.0
/* Glob matching with ftrace's syntax (see glob.h). */
#include <string.h>

#include "core/glob.h"

int ft_glob_is_glob(const char *pat, size_t len)
{
	for (size_t i = 0; i < len; i++)
		if (pat[i] == '*' || pat[i] == '?' || pat[i] == '[')
			return 1;
	return 0;
}

/*
 * Match one class "[...]" starting at p (just after '['), against c.  Sets
 * *next to the character after ']'.  Returns 1/0, or -1 when the class is
 * not closed (then '[' is taken literally).
 */
static int match_class(const char *p, const char *end, char c, const char **next)
{
	int neg = 0, hit = 0;
	const char *q = p;

	if (q < end && (*q == '!' || *q == '^')) {
		neg = 1;
		q++;
	}
	/* a ']' right after '[' or '[!' is a member */
	for (int first = 1; q < end && (*q != ']' || first); first = 0) {
		char lo = *q, hi = *q;

		if (q + 2 < end && q[1] == '-' && q[2] != ']') {
			hi = q[2];
			q += 3;
		} else {
			q++;
		}
		if ((unsigned char)c >= (unsigned char)lo && (unsigned char)c <= (unsigned char)hi)
			hit = 1;
	}
	if (q >= end)
		return -1;
	*next = q + 1;
	return hit != neg;
}

/*
 * Iterative glob with single-star backtracking (linear in practice, never
 * exponential): remember the last '*' and the string position it covers.
 */
int ft_glob_match_n(const char *pat, size_t len, const char *str)
{
	const char *p = pat, *end = pat + len, *s = str;
	const char *star_p = NULL, *star_s = NULL;

	while (*s) {
		if (p < end) {
			const char *next;
			int r;

			switch (*p) {
			case '*':
				star_p = ++p;
				star_s = s;
				continue;
			case '?':
				p++;
				s++;
				continue;
			case '[':
				r = match_class(p + 1, end, *s, &next);
				if (r == 1) {
					p = next;
					s++;
					continue;
				}
				if (r == 0)
					break;
				/* unclosed: literal '[' */
				if (*s == '[') {
					p++;
					s++;
					continue;
				}
				break;
			case '\\':
				if (p + 1 < end && p[1] == *s) {
					p += 2;
					s++;
					continue;
				}
				break;
			default:
				if (*p == *s) {
					p++;
					s++;
					continue;
				}
				break;
			}
		}
		/* mismatch: let the last star eat one more character */
		if (!star_p)
			return 0;
		p = star_p;
		s = ++star_s;
	}
	while (p < end && *p == '*')
		p++;
	return p == end;
}

int ft_glob_match(const char *pat, const char *str)
{
	return ft_glob_match_n(pat, strlen(pat), str);
}

void ft_mod_name(char *dst, size_t len, const char *path, size_t path_len)
{
	const char *b = memrchr(path, '/', path_len);
	const char *src = b ? b + 1 : path;
	size_t n = path_len - (size_t)(src - path);
	char *dot;

	if (n > len - 1)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
	dot = strstr(dst, ".so");
	if (dot && (dot[3] == '\0' || dot[3] == '.'))
		*dot = '\0';
}

const char *ft_glob_sep(const char *s)
{
	const char *c;

	while ((c = strchr(s, ':')) && c[1] == ':')
		s = c + 2;
	return c;
}
