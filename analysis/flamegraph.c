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
	uint64_t x;        /* weight laid out so far */
	uint64_t minw;     /* narrowest frame drawn, in weight units */
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

/* The script: kept free of "]]>" and "</" so it embeds in SVG CDATA and in
 * an HTML <script> alike. */
static const char flame_js[] =
	"(function () {\n"
	"'use strict';\n"
	"var svg = document.getElementById('ftflame');\n"
	"if (!svg) return;\n"
	"function num(a) { return parseFloat(svg.getAttribute(a)); }\n"
	"var W = num('data-width'), PAD = num('data-pad'), Y0 = num('data-y0'),\n"
	"    FH = num('data-fh'), INV = svg.getAttribute('data-inv') === '1';\n"
	"var CW = 0.59 * 12, FULL = W - 2 * PAD, EPS = 0.002;\n"
	"function byId(i) { return document.getElementById(i); }\n"
	"var details = byId('ft-details'), matchedEl = byId('ft-matched'),\n"
	"    resetEl = byId('ft-reset'), searchEl = byId('ft-search');\n"
	"var frames = [], gs = svg.querySelectorAll('g.f'), i;\n"
	"for (i = 0; i < gs.length; i++) {\n"
	"  var g = gs[i], r = g.querySelector('rect'), t = g.querySelector('text');\n"
	"  var ti = g.querySelector('title'), tt = ti ? ti.textContent : '';\n"
	"  var nl = tt.indexOf('\\n'), y = parseFloat(r.getAttribute('y'));\n"
	"  g._ft = i;\n"
	"  frames.push({ g: g, r: r, t: t, name: nl < 0 ? tt : tt.substring(0, nl),\n"
	"    info: nl < 0 ? '' : tt.substring(nl + 1), x: parseFloat(r.getAttribute('x')),\n"
	"    w: parseFloat(r.getAttribute('width')), fill: r.getAttribute('fill'),\n"
	"    d: Math.round((INV ? y - Y0 : Y0 - y) / FH), merged: g.classList.contains('m') });\n"
	"}\n"
	"function label(f, w) {\n"
	"  var fit = Math.floor((w - 6) / CW);\n"
	"  if (fit < 3 || f.merged && w < 60) return '';\n"
	"  var n = f.merged ? f.info : f.name;\n"
	"  return n.length <= fit ? n : n.substring(0, fit - 2) + '..';\n"
	"}\n"
	"function place(f, x, w, show, parent) {\n"
	"  f.g.style.display = show ? '' : 'none';\n"
	"  if (!show) return;\n"
	"  f.g.classList.toggle('parent', parent);\n"
	"  f.r.setAttribute('x', x.toFixed(3)); f.r.setAttribute('width', w.toFixed(3));\n"
	"  if (f.t) { f.t.setAttribute('x', (x + 3).toFixed(3)); f.t.textContent = label(f, w); }\n"
	"}\n"
	"var zoomed = null;\n"
	"function zoom(z) {\n"
	"  var scale = FULL / z.w, shown = 0;\n"
	"  frames.forEach(function (f) {\n"
	"    if (f.d >= z.d && f.x >= z.x - EPS && f.x + f.w <= z.x + z.w + EPS) {\n"
	"      place(f, PAD + (f.x - z.x) * scale, f.w * scale, true, false); shown++;\n"
	"    } else if (f.d < z.d && f.x <= z.x + EPS && f.x + f.w >= z.x + z.w - EPS) {\n"
	"      place(f, PAD, FULL, true, true); shown++;\n"
	"    } else {\n"
	"      place(f, 0, 0, false, false);\n"
	"    }\n"
	"  });\n"
	"  zoomed = z; resetEl.style.opacity = '1';\n"
	"  return shown;\n"
	"}\n"
	"function unzoom() {\n"
	"  frames.forEach(function (f) { place(f, f.x, f.w, true, false); });\n"
	"  zoomed = null; resetEl.style.opacity = '0';\n"
	"}\n"
	"var searching = false;\n"
	"function clearSearch() {\n"
	"  frames.forEach(function (f) { f.r.setAttribute('fill', f.fill); });\n"
	"  matchedEl.textContent = ''; searchEl.textContent = 'Search'; searching = false;\n"
	"}\n"
	"function search(term) {\n"
	"  var re;\n"
	"  try { re = new RegExp(term); }\n"
	"  catch (e) { re = new RegExp(term.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&')); }\n"
	"  var hits = [];\n"
	"  frames.forEach(function (f) {\n"
	"    if (!f.merged && f.d > 0 && re.test(f.name)) { f.r.setAttribute('fill', 'rgb(230,0,230)'); hits.push(f); }\n"
	"    else f.r.setAttribute('fill', f.fill);\n"
	"  });\n"
	"  hits.sort(function (a, b) { return a.x - b.x; });\n"
	"  var sum = 0, end = -1;\n"
	"  hits.forEach(function (h) {\n"
	"    var e = h.x + h.w;\n"
	"    if (h.x >= end) { sum += h.w; end = e; } else if (e > end) { sum += e - end; end = e; }\n"
	"  });\n"
	"  var pct = 100 * sum / FULL;\n"
	"  matchedEl.textContent = 'Matched: ' + (pct > 0 && pct < 0.1 ? pct.toPrecision(2) : pct.toFixed(1)) + '%';\n"
	"  searchEl.textContent = 'Reset Search'; searching = true;\n"
	"  return { count: hits.length, pct: pct };\n"
	"}\n"
	"function askSearch() {\n"
	"  if (searching) { clearSearch(); return; }\n"
	"  var term = window.prompt('Search for (regular expression):', '');\n"
	"  if (term) search(term);\n"
	"}\n"
	"function frameOf(e) {\n"
	"  var g = e.target && e.target.closest ? e.target.closest('g.f') : null;\n"
	"  return g ? frames[g._ft] : null;\n"
	"}\n"
	"svg.addEventListener('click', function (e) { var f = frameOf(e); if (f) zoom(f); });\n"
	"svg.addEventListener('mouseover', function (e) {\n"
	"  var f = frameOf(e); if (f) details.textContent = (f.merged ? '' : f.name + ' ') + f.info;\n"
	"});\n"
	"svg.addEventListener('mouseout', function () { details.textContent = ' '; });\n"
	"resetEl.addEventListener('click', function (e) { e.stopPropagation(); unzoom(); });\n"
	"searchEl.addEventListener('click', function (e) { e.stopPropagation(); askSearch(); });\n"
	"window.addEventListener('keydown', function (e) {\n"
	"  if ((e.ctrlKey || e.metaKey) && e.key === 'f') { e.preventDefault(); askSearch(); }\n"
	"  else if (e.key === 'Escape') { unzoom(); clearSearch(); }\n"
	"});\n"
	"function mark(text) {\n"
	"  var m = document.createElementNS('http://www.w3.org/2000/svg', 'text');\n"
	"  m.setAttribute('id', 'ft-selftest'); m.setAttribute('x', PAD); m.setAttribute('y', 14);\n"
	"  m.setAttribute('class', 'small'); m.textContent = text; svg.appendChild(m);\n"
	"}\n"
	/* The self-check (URL #selftest) drives zoom and search the way a click
	 * would and reports in the DOM, for headless browser tests. */
	"function selftest() {\n"
	"  if (!frames.length) throw new Error('no frames');\n"
	"  var z = null, before = frames.length;\n"
	"  frames.forEach(function (f) { if (f.d >= 2 && !f.merged && (!z || f.w > z.w)) z = f; });\n"
	"  if (!z) frames.forEach(function (f) { if (f.d === 1 && !f.merged && (!z || f.w > z.w)) z = f; });\n"
	"  if (!z) return 'ftflame-selftest ok frames=' + before + ' (no stacks)';\n"
	"  var shown = zoom(z);\n"
	"  if (Math.abs(parseFloat(z.r.getAttribute('width')) - FULL) > 0.5) throw new Error('zoomed frame not full width');\n"
	"  if (shown > before) throw new Error('zoom shows too many');\n"
	"  unzoom();\n"
	"  if (Math.abs(parseFloat(z.r.getAttribute('width')) - z.w) > 0.01) throw new Error('unzoom did not restore');\n"
	"  var s = search(z.name.replace(/[.*+?^${}()|[\\]\\\\]/g, '\\\\$&'));\n"
	"  if (!s.count || !(s.pct > 0)) throw new Error('search found nothing for ' + z.name);\n"
	"  var txt = matchedEl.textContent;\n"
	"  clearSearch();\n"
	"  return 'ftflame-selftest ok frames=' + before + ' zoom=' + shown + ' search=' + s.count + ' ' + txt;\n"
	"}\n"
	"var h = window.location.hash || '';\n"
	"try { h = decodeURIComponent(h); } catch (e) { /* keep it raw */ }\n"
	"var m = /search=([^&]*)/.exec(h);\n"
	"if (m && m[1]) search(m[1]);\n"
	"var zm = /zoom=([^&]*)/.exec(h), zf = null;\n"
	"if (zm && zm[1]) frames.forEach(function (f) { if (f.name === zm[1] && (!zf || f.w > zf.w)) zf = f; });\n"
	"if (zf) zoom(zf);\n"
	"if (/selftest/.test(h)) {\n"
	"  try { mark(selftest()); } catch (e) { mark('ftflame-selftest FAIL: ' + e.message); }\n"
	"}\n"
	"window.ftflame = { zoom: function (i) { return zoom(frames[i]); }, unzoom: unzoom,\n"
	"  search: search, clearSearch: clearSearch, frames: frames };\n"
	"})();\n";

static const char flame_css[] =
	"text { font-family: Verdana, Arial, sans-serif; font-size: 12px; fill: rgb(0,0,0); }\n"
	"#ft-title { font-size: 17px; text-anchor: middle; }\n"
	"#ft-subtitle { text-anchor: middle; fill: rgb(96,96,96); }\n"
	"#ft-reset, #ft-search { cursor: pointer; }\n"
	"#ft-reset { opacity: 0; }\n"
	"#ft-matched { text-anchor: end; }\n"
	"g.f { cursor: pointer; }\n"
	"g.f text { pointer-events: none; font-size: 12px; }\n"
	"g.f:hover rect { stroke: rgb(0,0,0); stroke-width: 0.5; }\n"
	"g.parent { opacity: 0.5; }\n"
	".small { font-size: 11px; }\n";

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
	fprintf(out, ", %.2f%%)</title><rect x=\"%.3f\" y=\"%.1f\" width=\"%.3f\" height=\"%.1f\" fill=\"%s\" rx=\"2\"/><text x=\"%.3f\" y=\"%.1f\">",
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
		fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>", out);
		ft_xml_puts(out, o.title ? o.title : "Flame Graph");
		fputs("</title>\n<style>\nbody { margin: 0; background: #fff; }\nsvg#ftflame { width: 100%; height: auto; display: block; }\n</style>\n</head>\n<body>\n", out);
	} else {
		fputs("<?xml version=\"1.0\" encoding=\"UTF-8\" standalone=\"no\"?>\n", out);
	}
	fprintf(out, "<svg version=\"1.1\" xmlns=\"http://www.w3.org/2000/svg\" id=\"ftflame\" width=\"%u\" height=\"%.0f\" viewBox=\"0 0 %u %.0f\" data-width=\"%u\" data-pad=\"%.1f\" data-y0=\"%.1f\" data-fh=\"%.1f\" data-inv=\"%d\" data-total=\"%" PRIu64 "\" data-unit=\"",
		width, height, width, height, width, XPAD,
		o.inverted ? YPAD_TOP : height - YPAD_BOT - FRAME_H, FRAME_H, o.inverted ? 1 : 0,
		total);
	ft_xml_puts(out, unit);
	fprintf(out, "\">\n<style>\n%s</style>\n", flame_css);
	fputs("<defs><linearGradient id=\"ft-bg\" y1=\"0\" y2=\"1\" x1=\"0\" x2=\"0\"><stop stop-color=\"#eeeeee\" offset=\"5%\"/><stop stop-color=\"#eeeeb0\" offset=\"95%\"/></linearGradient></defs>\n", out);
	fprintf(out, "<rect x=\"0\" y=\"0\" width=\"%u\" height=\"%.0f\" fill=\"url(#ft-bg)\"/>\n", width,
		height);
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
	fprintf(out, "<text id=\"ft-search\" x=\"%.1f\" y=\"26\" style=\"text-anchor:end\">Search</text>\n",
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
