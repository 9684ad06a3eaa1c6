// SPDX-License-Identifier: GPL-2.0
#include "analysis/export_progress.h"

#include <stdio.h>
#include <time.h>
#include <unistd.h>

static uint64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

void ft_progress_init(struct ft_progress *p, const char *what, int force)
{
	p->what = what;
	p->on = force < 0 ? isatty(2) : force > 0;
	p->next_ns = now_ns() + 250000000ull;
	p->drawn = 0;
}

void ft_progress_update(struct ft_progress *p, uint64_t done, uint64_t total, uint64_t events)
{
	static unsigned int calls;
	uint64_t t;

	if (!p->on || (++calls & 4095))
		return;
	t = now_ns();
	if (t < p->next_ns)
		return;
	p->next_ns = t + 250000000ull;
	if (total)
		fprintf(stderr, "\r%s: %3u%% (%llu events)", p->what,
			(unsigned int)(done >= total ? 100 : done * 100 / total),
			(unsigned long long)events);
	else
		fprintf(stderr, "\r%s: %llu events", p->what, (unsigned long long)events);
	fflush(stderr);
	p->drawn = 1;
}

void ft_progress_done(struct ft_progress *p)
{
	if (p->drawn)
		fputs("\r\033[K", stderr);
	p->drawn = 0;
}
