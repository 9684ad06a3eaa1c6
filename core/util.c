// SPDX-License-Identifier: GPL-2.0
#include "core/util.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void ft_seterr(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (!err || !errlen)
		return;
	va_start(ap, fmt);
	vsnprintf(err, errlen, fmt, ap);
	va_end(ap);
}

void ft_die(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ftrail: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
	exit(1);
}

void ft_die_file(const char *path, const char *msg)
{
	size_t pl = strlen(path), n = 0;
	char *out = malloc(strlen(msg) + 1);

	if (!out)
		ft_die("%s: %s", path, msg);
	for (const char *p = msg; *p;) {
		/* "PATH: " at the start, or after ": " */
		if ((p == msg || (p - msg >= 2 && p[-2] == ':' && p[-1] == ' ')) &&
		    !strncmp(p, path, pl) && p[pl] == ':' && p[pl + 1] == ' ') {
			p += pl + 2;
			continue;
		}
		out[n++] = *p++;
	}
	out[n] = 0;
	ft_die("%s: %s", path, out);
}

void ft_warn(const char *fmt, ...)
{
	va_list ap;

	fflush(stdout);
	fputs("ftrail: warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}

void *ft_malloc(size_t n)
{
	void *p = malloc(n ? n : 1);

	if (!p)
		ft_die("out of memory (%zu bytes)", n);
	return p;
}

void *ft_calloc(size_t nmemb, size_t n)
{
	void *p = calloc(nmemb ? nmemb : 1, n ? n : 1);

	if (!p)
		ft_die("out of memory (%zu x %zu bytes)", nmemb, n);
	return p;
}

void *ft_realloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		ft_die("out of memory (%zu bytes)", n);
	return p;
}

char *ft_strdup(const char *s)
{
	char *p = strdup(s);

	if (!p)
		ft_die("out of memory");
	return p;
}

uint64_t ft_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void *ft_grow(void *p, size_t *cap, size_t need, size_t size, size_t first)
{
	size_t ncap = *cap ? *cap : first ? first : 1;
	void *n;

	if (need <= *cap)
		return p;
	while (ncap < need) {
		if (ncap > SIZE_MAX / 2)
			goto nomem;
		ncap *= 2;
	}
	if (size && ncap > SIZE_MAX / size)
		goto nomem;
	n = realloc(p, ncap * size);
	if (!n)
		goto nomem;
	*cap = ncap;
	return n;
nomem:
	errno = ENOMEM;
	return NULL;
}

int ft_parse_u64(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long v;

	if (!s || !*s || *s == '-')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 0);
	if (errno || *end || v < min || v > max)
		return -1;
	*out = v;
	return 0;
}

int ft_is_help(const char *arg)
{
	return !strcmp(arg, "--help") || !strcmp(arg, "-h");
}

int ft_open_regular(const char *path, struct stat *st, char *err, size_t errlen)
{
	/* O_NONBLOCK: opening a FIFO would otherwise wait for a writer */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);

	if (fd < 0) {
		ft_seterr(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fd, st) < 0 || !S_ISREG(st->st_mode)) {
		ft_seterr(err, errlen, "%s: not a regular file", path);
		close(fd);
		return -1;
	}
	return fd;
}
