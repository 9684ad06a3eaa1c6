// SPDX-License-Identifier: GPL-2.0
/*
 * Flame graph writer (see flamegraph.h).
 *
 * Frames come from the folded stacks in frame order (ft_folded_foreach):
 * walking them with a stack of open frames, a frame opens where a stack
 * first differs from the previous one and closes where a later stack
 * differs from it, so each frame's extent on the x axis is the sum of the
 * weights of the stacks that pass through it.  Only frames wide enough to
 * be seen are kept (plus grey stand-ins for runs of narrow siblings), so
 * memory follows what is drawn, not the number of stacks.
 *
 * The picture: frame i at depth d is a <g class="f"> holding a <title>
 * ("name\n(value unit, p%)"), a <rect> and a <text> label cut to fit.
 * The embedded script reads geometry back from those elements, so the
 * file works as a static picture too.
 */
#include "analysis/flamegraph.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/escape.h"

#define FRAME_H 16.0
#define FONT_SIZE 12.0
#define CHAR_W (0.59 * FONT_SIZE)
#define XPAD 10.0
#define YPAD_TOP 60.0 /* title, subtitle, controls */
#define YPAD_BOT 34.0 /* details line */

struct frame {
	const char *name; /* into the folded map's arena, or NULL for a merged run */
	uint32_t len;
	uint32_t depth;
	uint64_t start, end;
	uint64_t nmerged;
};

struct pending { /* a run of adjacent narrow frames at one depth */
	uint64_t start, end, n;
};

struct openf {
	const char *name;
	uint32_t len;
	uint64_t start;
};

struct builder {
	struct frame *fr;
	size_t nfr, cfr;
	struct openf *open;
	size_t nopen, copen;
	struct pending *pend;
	size_t cpend;
	uint64_t x;    /* weight laid out so far */
	uint64_t minw; /* narrowest frame drawn, in weight units */
	struct ft_flame_stats st;
	int oom;
};

static int push_frame(struct builder *b, const char *name, uint32_t len, uint32_t depth,
		      uint64_t start, uint64_t end, uint64_t nmerged)
{
	if (b->nfr == b->cfr) {
		size_t n = b->cfr ? b->cfr * 2 : 1024;
		struct frame *nf = realloc(b->fr, n * sizeof(*nf));

		if (!nf)
			return b->oom = -1;
		b->fr = nf;
		b->cfr = n;
	}
	b->fr[b->nfr++] = (struct frame){ name, len, depth, start, end, nmerged };
	if (depth > b->st.max_depth)
		b->st.max_depth = depth;
	return 0;
}

static struct pending *pend_at(struct builder *b, uint32_t d)
{
	if (d >= b->cpend) {
		size_t n = b->cpend ? b->cpend * 2 : 64;
		struct pending *np;

		while (n <= d)
			n *= 2;
		np = realloc(b->pend, n * sizeof(*np));
		if (!np) {
			b->oom = -1;
			return NULL;
		}
		memset(np + b->cpend, 0, (n - b->cpend) * sizeof(*np));
		b->pend = np;
		b->cpend = n;
	}
	return &b->pend[d];
}

/* Emit the run of narrow frames pending at depth d, if wide enough. */
static void flush_pending(struct builder *b, uint32_t d)
{
	struct pending *p = d < b->cpend ? &b->pend[d] : NULL;

	if (!p || !p->n)
		return;
	if (p->n > 1 && p->end - p->start >= b->minw) {
		push_frame(b, NULL, 0, d, p->start, p->end, p->n);
		b->st.merged += p->n;
	} else {
		b->st.omitted += p->n;
	}
	p->n = 0;
}

/* A frame at depth d spanning [start,end) is complete. */
static void close_frame(struct builder *b, const char *name, uint32_t len, uint32_t d,
			uint64_t start, uint64_t end)
{
	struct pending *p;

	flush_pending(b, d + 1); /* its children's runs end with it */
	if (end - start >= b->minw) {
		flush_pending(b, d);
		push_frame(b, name, len, d, start, end, 0);
		return;
	}
	p = pend_at(b, d);
	if (!p)
		return;
	if (p->n && p->end == start) {
		p->end = end;
		p->n++;
		return;
	}
	flush_pending(b, d);
	*p = (struct pending){ start, end, 1 };
}

/* Close open frames down to (not including) depth keep. */
static void close_to(struct builder *b, size_t keep)
{
	while (b->nopen > keep) {
		struct openf *o = &b->open[--b->nopen];

		/* open[i] is drawn at depth i + 1: depth 0 is the "all" frame */
		close_frame(b, o->name, o->len, (uint32_t)b->nopen + 1, o->start, b->x);
	}
}

static int add_stack(const char *stack, size_t len, uint64_t weight, void *arg)
{
	struct builder *b = arg;
	const char *p = stack, *end = stack + len;
	size_t depth = 0;
	int diverged = 0;

	while (p < end) {
		const char *semi = memchr(p, ';', (size_t)(end - p));
		size_t fl = semi ? (size_t)(semi - p) : (size_t)(end - p);

		if (!diverged && depth < b->nopen && b->open[depth].len == fl &&
		    !memcmp(b->open[depth].name, p, fl)) {
			depth++;
		} else {
			if (!diverged) {
				close_to(b, depth);
				diverged = 1;
			}
			if (b->nopen == b->copen) {
				size_t n = b->copen ? b->copen * 2 : 64;
				struct openf *no = realloc(b->open, n * sizeof(*no));

				if (!no)
					return b->oom = -1;
				b->open = no;
				b->copen = n;
			}
			b->open[b->nopen++] = (struct openf){ p, (uint32_t)fl, b->x };
			depth++;
		}
		p += fl + 1;
	}
	if (!diverged)
		close_to(b, depth); /* a stack that is a prefix of the previous one */
	b->x += weight;
	return b->oom;
}

/* --- output helpers ------------------------------------------------------ */

/* Number of characters (not bytes) of s[0..len). */
static size_t nchars(const char *s, size_t len)
{
	size_t n = 0;

	for (size_t i = 0; i < len; i++)
		n += ((unsigned char)s[i] & 0xc0) != 0x80;
	return n;
}

/* The label shown in a frame w pixels wide: the name, cut with ".." to fit. */
static void put_label(FILE *out, const char *name, size_t len, double w)
{
	long fit = (long)((w - 6) / CHAR_W);
	size_t keep = 0, chars = 0;

	if (fit < 3)
		return;
	if (nchars(name, len) <= (size_t)fit) {
		ft_xml_put(out, name, len);
		return;
	}
	while (keep < len && chars < (size_t)fit - 2) {
		size_t l = ft_utf8_len((const unsigned char *)name + keep, len - keep);

		keep += l ? l : 1;
		chars++;
	}
	ft_xml_put(out, name, keep);
	fputs("..", out);
}

/* Value with its unit; ns are shown as time with a readable unit. */
static void fmt_value(char *buf, size_t n, uint64_t v, const char *unit)
{
	if (!strcmp(unit, "ns")) {
		if (v >= 1000000000ull)
			snprintf(buf, n, "%.3f s", v / 1e9);
		else if (v >= 1000000ull)
			snprintf(buf, n, "%.3f ms", v / 1e6);
		else if (v >= 1000ull)
			snprintf(buf, n, "%.3f us", v / 1e3);
		else
			snprintf(buf, n, "%" PRIu64 " ns", v);
		return;
	}
	snprintf(buf, n, "%" PRIu64 " %s", v, unit);
}

static uint32_t name_hash(const char *s, size_t n)
{
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++) {
		h ^= (unsigned char)s[i];
		h *= 16777619u;
	}
	h ^= h >> 15;
	h *= 0x2c1b3c6du;
	h ^= h >> 12;
	return h;
}

static int ends_with(const char *s, size_t n, const char *suf)
{
	size_t l = strlen(suf);

	return n >= l && !memcmp(s + n - l, suf, l);
}

/* Colour of a frame from a hash of its name, so a function keeps its colour
 * across graphs.  Kernel frames ("_[k]" suffix, as perf's folded output
 * marks them) are drawn in a separate orange range. */
static void frame_colour(char *buf, size_t bn, const struct frame *f, enum ft_flame_palette pal)
{
	uint32_t h;
	double a, b, c;

	if (!f->name) {
		snprintf(buf, bn, "rgb(190,190,190)");
		return;
	}
	h = name_hash(f->name, f->len);
	a = (h & 0xff) / 255.0;
	b = ((h >> 8) & 0xff) / 255.0;
	c = ((h >> 16) & 0xff) / 255.0;
	if (ends_with(f->name, f->len, "[k]")) {
		snprintf(buf, bn, "rgb(%d,%d,%d)", 200 + (int)(55 * a), 120 + (int)(60 * b),
			 (int)(40 * c));
		return;
	}
	switch (pal) {
	case FT_PAL_MEM:
		snprintf(buf, bn, "rgb(%d,%d,%d)", (int)(80 * a), 150 + (int)(100 * b),
			 (int)(80 * c));
		break;
	case FT_PAL_IO:
		snprintf(buf, bn, "rgb(%d,%d,%d)", 60 + (int)(60 * a), 90 + (int)(90 * b),
			 190 + (int)(65 * c));
		break;
	default:
		snprintf(buf, bn, "rgb(%d,%d,%d)", 205 + (int)(50 * a), (int)(230 * b),
			 (int)(55 * c));
	}
}

/*
 * The viewer's script and style sheet are real files beside this one
 * (flamegraph.js, flamegraph.css), embedded by the assembler's .incbin at
 * build time and ended with a NUL.  The script is kept free of "]]>" and
 * "</" so it embeds in SVG CDATA and in an HTML <script> alike.  The paths
 * are relative to the top of the tree, where every build runs; the
 * Makefile lists both files as prerequisites of this object.
 */
#define FT_EMBED_TEXT(sym, path)                                                                   \
	__asm__(".pushsection .rodata\n"                                                           \
		".type " #sym ", @object\n" #sym ":\n"                                             \
		".incbin \"" path "\"\n"                                                           \
		".byte 0\n"                                                                        \
		".size " #sym ", . - " #sym "\n"                                                   \
		".popsection\n")
FT_EMBED_TEXT(ft_flame_js, "analysis/flamegraph.js");
FT_EMBED_TEXT(ft_flame_css, "analysis/flamegraph.css");
extern const char ft_flame_js[] __attribute__((visibility("hidden")));
extern const char ft_flame_css[] __attribute__((visibility("hidden")));
#define flame_js ft_flame_js
#define flame_css ft_flame_css

static void write_frame(FILE *out, const struct frame *f, uint64_t total, double scale,
			double height, const struct ft_flame_opts *o, const char *unit)
{
	double x = XPAD + f->start * scale, w = (f->end - f->start) * scale;
	double y = o->inverted ? YPAD_TOP + f->depth * FRAME_H
			       : height - YPAD_BOT - (f->depth + 1) * FRAME_H;
	char val[64], col[64];
	uint64_t v = f->end - f->start;

	fmt_value(val, sizeof(val), v, unit);
	frame_colour(col, sizeof(col), f, o->palette);
	fputs(f->name ? "<g class=\"f\"><title>" : "<g class=\"f m\"><title>", out);
	if (f->name)
		ft_xml_put(out, f->name, f->len);
	else
		fprintf(out, "[%" PRIu64 " narrow frames]", f->nmerged);
	fputs("\n(", out);
	if (!f->name)
		fprintf(out, "%" PRIu64 " frames merged, ", f->nmerged);
	ft_xml_puts(out, val);
	fprintf(out,
		", %.2f%%)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" fill=\"%s\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
		total ? 100.0 * v / total : 0.0, x, y, w, FRAME_H - 1, col, x + 3, y + 11.5);
	if (f->name)
		put_label(out, f->name, f->len, w);
	fputs("</text></g>\n", out);
}

int ft_flame_write(struct ft_folded *f, FILE *out, const struct ft_flame_opts *opts,
		   struct ft_flame_stats *stats, char *err, size_t errlen)
{
	struct ft_flame_opts o = *opts;
	struct builder b = { 0 };
	unsigned int width;
	uint64_t total = ft_folded_total(f);
	double scale, height, min_width;
	const char *unit = o.unit ? o.unit : "samples";
	char val[64];
	int ret = -1;

	width = o.width ? o.width : 1200;
	if (width < 200)
		width = 200;
	min_width = o.min_width > 0 ? o.min_width : 0.1;
	scale = total ? (width - 2 * XPAD) / (double)total : 0;
	b.minw = total ? (uint64_t)(min_width / scale) : 0;
	if (!b.minw)
		b.minw = 1;

	if (ft_folded_foreach(f, add_stack, &b) || b.oom) {
		snprintf(err, errlen, "flame graph: out of memory");
		goto out;
	}
	close_to(&b, 0);
	for (size_t d = 0; d < b.cpend; d++)
		flush_pending(&b, (uint32_t)d);
	if (total)
		push_frame(&b, "all", 3, 0, 0, total, 0);
	if (b.oom) {
		snprintf(err, errlen, "flame graph: out of memory");
		goto out;
	}
	b.st.frames = b.nfr;

	height = YPAD_TOP + YPAD_BOT + (b.st.max_depth + 1) * FRAME_H;
	if (height < 160)
		height = 160;
	if (o.html) {
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>",
		      out);
		ft_xml_puts(out, o.title ? o.title : "Flame Graph");
		fputs("</title>\n<style>\nbody { margin: 0; background: #fff; }\nsvg#ftflame { width: 100%; height: auto; display: block; }\n</style>\n</head>\n<body>\n",
		      out);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	}
	fprintf(out,
		"<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"ftflame\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" data-width=\"%u\" data-pad=\"%.1f\" data-y0=\"%.1f\" data-fh=\"%.1f\" data-inv=\"%d\" data-total=\"%" PRIu64
		"\" data-unit=\"",
		width, height, width, height, width, XPAD,
		o.inverted ? YPAD_TOP : height - YPAD_BOT - FRAME_H, FRAME_H, o.inverted ? 1 : 0,
		total);
	ft_xml_puts(out, unit);
	fprintf(out, "\">\n<style>\n%s</style>\n", flame_css);
	fputs("<defs><linearGradient id=\"ft-bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n",
	      out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"url(#ft-bg)\"/>\n",
		width, height);
	fprintf(out, "<text id=\"ft-title\" x=\"%.1f\" y=\"26\">", width / 2.0);
	ft_xml_puts(out, o.title ? o.title : "Flame Graph");
	fputs("</text>\n", out);
	fmt_value(val, sizeof(val), total, unit);
	fprintf(out, "<text id=\"ft-subtitle\" x=\"%.1f\" y=\"44\">", width / 2.0);
	if (o.subtitle) {
		ft_xml_puts(out, o.subtitle);
		fputs(" \xe2\x80\x94 ", out);
	}
	fputs("total ", out);
	ft_xml_puts(out, val);
	if (!total)
		fputs(" (no data)", out);
	fputs("</text>\n", out);
	fprintf(out, "<text id=\"ft-reset\" x=\"%.1f\" y=\"26\">Reset Zoom</text>\n", XPAD);
	fprintf(out,
		"<text id=\"ft-search\" x=\"%.1f\" y=\"26\" style=\"text-anchor:end\">Search</text>\n",
		width - XPAD);
	fprintf(out, "<text id=\"ft-matched\" x=\"%.1f\" y=\"%.1f\"> </text>\n", width - XPAD,
		height - 12);
	fprintf(out, "<text id=\"ft-details\" x=\"%.1f\" y=\"%.1f\"> </text>\n", XPAD, height - 12);
	fputs("<g id=\"ft-frames\">\n", out);
	/* parents first, so the drawing order is root to leaves */
	for (size_t i = b.nfr; i-- > 0;)
		write_frame(out, &b.fr[i], total, scale, height, &o, unit);
	fputs("</g>\n", out);
	if (o.html)
		fprintf(out, "</svg>\n<script>\n%s</script>\n</body>\n</html>\n", flame_js);
	else
		fprintf(out, "<script type=\"text/ecmascript\"><![CDATA[\n%s]]></script>\n</svg>\n",
			flame_js);
	if (fflush(out) || ferror(out)) {
		snprintf(err, errlen, "flame graph: write error: %s", strerror(errno));
		goto out;
	}
	if (stats)
		*stats = b.st;
	ret = 0;
out:
	free(b.fr);
	free(b.open);
	free(b.pend);
	return ret;
}
