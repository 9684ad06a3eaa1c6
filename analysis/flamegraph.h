/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Flame graphs: a self-contained interactive SVG (or an HTML page holding
 * it) drawn from folded stacks.  The output loads nothing from the network:
 * the style and the script are embedded.  In a browser: click a frame to
 * zoom into it, "Reset Zoom" (or Escape) to zoom out, "Search" (or Ctrl-F,
 * or #search=REGEX in the URL) to highlight matching frames and show the
 * share of the total they cover; hovering a frame shows its name and
 * weight, and every frame carries a <title> tooltip.  #zoom=NAME in the URL
 * opens zoomed into the widest frame called NAME (#search=A&zoom=B: both).
 *
 * Frames narrower than min_width pixels are not drawn one by one: runs of
 * adjacent narrow siblings are merged into one grey frame when together
 * they are wide enough, and left out otherwise (their parent still covers
 * their time).  This keeps the output small for stacks with 100k+ frames.
 */
#ifndef FTRAIL_FLAMEGRAPH_H
#define FTRAIL_FLAMEGRAPH_H

#include <stdint.h>
#include <stdio.h>

#include "analysis/folded.h"

enum ft_flame_palette {
	FT_PAL_HOT, /* on-CPU: reds, oranges, yellows */
	FT_PAL_MEM, /* counts of stacks: greens */
	FT_PAL_IO,  /* off-CPU: blues */
};

struct ft_flame_opts {
	const char *title;    /* NULL: "Flame Graph" */
	const char *subtitle; /* NULL: none */
	const char *unit;     /* "samples" (default), "ns" (shown as time), "calls" ... */
	int html;	      /* write an HTML page instead of a bare SVG */
	int inverted;	      /* icicle: root at the top */
	enum ft_flame_palette palette;
	unsigned int width; /* pixels; 0: 1200 */
	double min_width;   /* pixels; 0: 0.1 */
};

struct ft_flame_stats {
	uint64_t frames;  /* frames drawn */
	uint64_t merged;  /* narrow frames merged into grey ones */
	uint64_t omitted; /* narrow frames left out */
	unsigned int max_depth;
};

/*
 * Draw f (not modified) into out.  An empty f gives a valid picture that
 * says there is no data.  Returns 0, or -1 with a reason in err (out of
 * memory, write error).  stats may be NULL.
 */
int ft_flame_write(struct ft_folded *f, FILE *out, const struct ft_flame_opts *opts,
		   struct ft_flame_stats *stats, char *err, size_t errlen);

#endif
