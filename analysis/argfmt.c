// SPDX-License-Identifier: GPL-2.0
/* Captured arguments and return values as text (analysis/argfmt.h). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/argfmt.h"
#include "core/argspec.h"
#include "core/glob.h"
#include "core/symbols.h"
#include "core/util.h"

struct enum_def {
	char name[FT_ARG_NAME_MAX];
	const char *vals; /* "V=NAME,V=NAME" into the spec text */
	size_t len;
};

struct ft_argfmt {
	struct ft_trace *t;
	struct ft_arg_spec *lines;
	size_t nr_lines;
	struct enum_def *enums;
	size_t nr_enums;
	int32_t *args_of, *ret_of; /* per fid: line index, -1 none, -2 not looked up */
	uint32_t nr_fids;
};

struct ft_argfmt *ft_argfmt_new(struct ft_trace *t)
{
	struct ft_argfmt *a = calloc(1, sizeof(*a));
	size_t len, cap = 0, ecap = 0;
	const char *s, *end;

	if (!a)
		return NULL;
	a->t = t;
	s = ft_trace_argspec(t, &len);
	for (end = s ? s + len : NULL; s && s < end;) {
		const char *nl = memchr(s, '\n', (size_t)(end - s));
		size_t l = nl ? (size_t)(nl - s) : (size_t)(end - s);

		if (l > 6 && !memcmp(s, "#enum ", 6)) {
			const char *sp = memchr(s + 6, ' ', l - 6);

			if (sp && (size_t)(sp - s - 6) < FT_ARG_NAME_MAX) {
				struct enum_def *e;

				if (FT_GROW(a->enums, ecap, a->nr_enums + 1, 8))
					goto oom;
				e = &a->enums[a->nr_enums++];
				memcpy(e->name, s + 6, (size_t)(sp - s - 6));
				e->name[sp - s - 6] = 0;
				e->vals = sp + 1;
				e->len = (size_t)(s + l - sp - 1);
			}
		} else if (l && s[0] != '#') {
			struct ft_arg_spec sp;
			size_t pos;
			char err[128];

			if (!ft_argspec_parse(s, l, FT_ARGSPEC_ANY, &sp, &pos, err, sizeof(err))) {
				if (FT_GROW(a->lines, cap, a->nr_lines + 1, 16))
					goto oom;
				a->lines[a->nr_lines++] = sp;
			}
		}
		s += l + 1;
	}
	a->nr_fids = ft_trace_nr_funcs(t);
	a->args_of = malloc((a->nr_fids + 1) * sizeof(int32_t));
	a->ret_of = malloc((a->nr_fids + 1) * sizeof(int32_t));
	if (!a->args_of || !a->ret_of)
		goto oom;
	for (uint32_t i = 0; i <= a->nr_fids; i++)
		a->args_of[i] = a->ret_of[i] = -2;
	return a;
oom:
	ft_argfmt_free(a);
	return NULL;
}

void ft_argfmt_free(struct ft_argfmt *a)
{
	if (!a)
		return;
	free(a->lines);
	free(a->enums);
	free(a->args_of);
	free(a->ret_of);
	free(a);
}

/* The spec line that gave fid its arguments (ret: its return value), or NULL. */
static const struct ft_arg_spec *spec_of(struct ft_argfmt *a, uint32_t fid, int ret)
{
	int32_t *slot, found = -1;
	char name[512];

	if (fid >= a->nr_fids)
		return NULL;
	slot = ret ? &a->ret_of[fid] : &a->args_of[fid];
	if (*slot == -2) {
		/* the symbol as stored (C++: mangled), as the runtime matched it */
		uint64_t start;
		const char *path;
		const struct ft_sym *sym = ft_symbols_find(
			ft_trace_symbols(a->t), ft_trace_func_addr(a->t, fid), &start, &path);

		if (sym && sym->name)
			snprintf(name, sizeof(name), "%s", sym->name);
		else
			ft_trace_func_name(a->t, fid, 0, name, sizeof(name));
		for (size_t i = 0; i < a->nr_lines; i++) {
			const struct ft_arg_spec *sp = &a->lines[i];

			if ((ret ? sp->has_ret : sp->nargs > 0) &&
			    ft_glob_match_n(sp->glob, sp->glob_len, name))
				found = (int32_t)i;
		}
		*slot = found;
	}
	return *slot >= 0 ? &a->lines[*slot] : NULL;
}

static const struct ft_arg_item *item_of(const struct ft_arg_spec *sp, unsigned int loc,
					 unsigned int idx)
{
	if (!sp)
		return NULL;
	if (loc == FT_AL_RET)
		return sp->has_ret ? &sp->ret : NULL;
	for (unsigned int i = 0; i < sp->nargs; i++)
		if (sp->args[i].loc == loc && sp->args[i].idx == idx)
			return &sp->args[i];
	return NULL;
}

static const char *enum_name(struct ft_argfmt *a, const char *ename, int64_t v, size_t *len)
{
	for (size_t i = 0; i < a->nr_enums; i++) {
		const struct enum_def *e = &a->enums[i];
		const char *p = e->vals, *end = e->vals + e->len;

		if (strcmp(e->name, ename))
			continue;
		while (p < end) {
			char *q;
			long long x = strtoll(p, &q, 10);
			const char *c = memchr(q, ',', (size_t)(end - q));

			if (q >= end || *q != '=')
				break;
			if (x == v) {
				*len = (size_t)((c ? c : end) - q - 1);
				return q + 1;
			}
			if (!c)
				break;
			p = c + 1;
		}
	}
	return NULL;
}

static size_t put_char(char *o, size_t n, size_t cap, unsigned char c)
{
	char tmp[8];
	int k;

	switch (c) {
	case '\n':
		k = snprintf(tmp, sizeof(tmp), "\\n");
		break;
	case '\t':
		k = snprintf(tmp, sizeof(tmp), "\\t");
		break;
	case '\r':
		k = snprintf(tmp, sizeof(tmp), "\\r");
		break;
	case '"':
	case '\\':
	case '\'':
		k = snprintf(tmp, sizeof(tmp), "\\%c", c);
		break;
	default:
		if (c < 0x20 || c >= 0x7f)
			k = snprintf(tmp, sizeof(tmp), "\\x%02x", c);
		else
			k = snprintf(tmp, sizeof(tmp), "%c", c);
	}
	for (int i = 0; i < k && n + 1 < cap; i++)
		o[n++] = tmp[i];
	o[n < cap ? n : cap - 1] = 0;
	return n;
}

/*
 * One item's value into o.  *num / *is_num: the value as a number when it
 * is one (integers, enums, chars, bools, pointers).
 */
static void value_text(struct ft_argfmt *a, const struct ft_arg_item *it, uint32_t h,
		       const unsigned char *d, size_t n, char *o, size_t cap, int64_t *num,
		       int *is_num)
{
	unsigned int fmt = ft_argh_fmt(h), w = ft_arg_fmt_width(fmt);
	uint64_t u = 0;
	int64_t s;

	*is_num = 0;
	*num = 0;
	o[0] = 0;
	if (w) {
		if (n < w) {
			snprintf(o, cap, "?");
			return;
		}
		memcpy(&u, d, w); /* little endian */
		s = w == 8 ? (int64_t)u : (int64_t)(u << (64 - 8 * w)) >> (64 - 8 * w);
		*is_num = 1;
		*num = (int64_t)u;
		switch (fmt) {
		case FT_AF_I8:
		case FT_AF_I16:
		case FT_AF_I32:
		case FT_AF_I64:
			*num = s;
			snprintf(o, cap, "%" PRId64, s);
			return;
		case FT_AF_U8:
		case FT_AF_U16:
		case FT_AF_U32:
		case FT_AF_U64:
			snprintf(o, cap, "%" PRIu64, u);
			return;
		case FT_AF_CHAR: {
			size_t k = 1;

			o[0] = '\'';
			k = put_char(o, k, cap, (unsigned char)u);
			if (k + 2 <= cap) {
				o[k++] = '\'';
				o[k] = 0;
			}
			return;
		}
		case FT_AF_BOOL:
			snprintf(o, cap, "%s", u ? "true" : "false");
			return;
		case FT_AF_F32: {
			float f;

			*is_num = 0;
			memcpy(&f, d, 4);
			snprintf(o, cap, "%g", (double)f);
			return;
		}
		case FT_AF_F64: {
			double f;

			*is_num = 0;
			memcpy(&f, d, 8);
			snprintf(o, cap, "%g", f);
			return;
		}
		case FT_AF_ENUM: {
			size_t el = 0;
			const char *e = it ? enum_name(a, it->ename, s, &el) : NULL;

			*num = s;
			if (e)
				snprintf(o, cap, "%.*s", (int)el, e);
			else
				snprintf(o, cap, "%" PRId64, s);
			return;
		}
		default: /* x*, p */
			snprintf(o, cap, "0x%" PRIx64, u);
			return;
		}
	}
	if (fmt == FT_AF_STRUCT) {
		uint32_t size = 0;

		if (n >= 4)
			memcpy(&size, d, 4);
		snprintf(o, cap, "{...}(%uB)", size);
		return;
	}
	if (fmt == FT_AF_STR) {
		size_t k = 1;

		if (h & FT_ARGH_BAD) {
			uint64_t p = 0;

			if (n >= 8)
				memcpy(&p, d, 8);
			*is_num = 1;
			*num = (int64_t)p;
			if (p)
				snprintf(o, cap, "0x%" PRIx64 "(bad)", p);
			else
				snprintf(o, cap, "(null)");
			return;
		}
		o[0] = '"';
		for (size_t i = 0; i < n; i++)
			k = put_char(o, k, cap, d[i]);
		if (k + 1 < cap)
			o[k++] = '"';
		if ((h & FT_ARGH_TRUNC) && k + 3 < cap) {
			memcpy(o + k, "...", 3);
			k += 3;
		}
		o[k < cap ? k : cap - 1] = 0;
		return;
	}
	snprintf(o, cap, "?");
}

int ft_argfmt_each(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, int retval,
		   ft_argfmt_fn fn, void *arg)
{
	const unsigned char *p = data, *end = p + len;
	const struct ft_arg_spec *sp = spec_of(a, fid, retval);
	char val[4 * FT_ARG_STR_MAX + 64];

	while (end - p >= 4) {
		uint32_t h;
		size_t n, words;
		const struct ft_arg_item *it;
		int64_t num;
		int is_num;

		memcpy(&h, p, 4);
		n = ft_argh_len(h);
		words = (n + 3) / 4;
		if ((size_t)(end - p - 4) < words * 4 || ft_argh_fmt(h) >= FT_AF_NR ||
		    ft_argh_fmt(h) == FT_AF_NONE)
			return -1;
		it = item_of(sp, ft_argh_loc(h), ft_argh_idx(h));
		value_text(a, it, h, p + 4, n, val, sizeof(val), &num, &is_num);
		fn(arg, it ? it->name : "", ft_argh_loc(h), ft_argh_idx(h), val, num, is_num);
		p += 4 + words * 4;
	}
	return p == end ? 0 : -1;
}

struct join {
	char *out;
	size_t cap, n;
	int items;
};

static void join_fn(void *arg, const char *name, unsigned int loc, unsigned int idx,
		    const char *value, int64_t num, int is_num)
{
	struct join *j = arg;
	int k;

	(void)loc;
	(void)idx;
	(void)num;
	(void)is_num;
	if (j->n >= j->cap)
		return;
	k = snprintf(j->out + j->n, j->cap - j->n, "%s%s%s%s", j->items ? ", " : "", name,
		     name[0] ? "=" : "", value);
	j->n += k > 0 ? (size_t)k : 0;
	if (j->n >= j->cap)
		j->n = j->cap - 1;
	j->items++;
}

static int format(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, int ret,
		  char *out, size_t outlen)
{
	struct join j = { out, outlen, 0, 0 };

	if (!outlen)
		return -1;
	out[0] = 0;
	if (ft_argfmt_each(a, fid, data, len, ret, join_fn, &j) < 0) {
		snprintf(out, outlen, "<bad %s>", ret ? "retval" : "args");
		return -1;
	}
	return (int)j.n;
}

int ft_argfmt_args(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, char *out,
		   size_t outlen)
{
	return format(a, fid, data, len, 0, out, outlen);
}

struct first {
	char *out;
	size_t cap;
	int done;
};

static void first_fn(void *arg, const char *name, unsigned int loc, unsigned int idx,
		     const char *value, int64_t num, int is_num)
{
	struct first *f = arg;

	(void)name;
	(void)loc;
	(void)idx;
	(void)num;
	(void)is_num;
	if (!f->done)
		snprintf(f->out, f->cap, "%s", value);
	f->done = 1;
}

int ft_argfmt_retval(struct ft_argfmt *a, uint32_t fid, const void *data, size_t len, char *out,
		     size_t outlen)
{
	struct first f = { out, outlen, 0 };

	if (!outlen)
		return -1;
	out[0] = 0;
	if (ft_argfmt_each(a, fid, data, len, 1, first_fn, &f) < 0) {
		snprintf(out, outlen, "<bad retval>");
		return -1;
	}
	return (int)strlen(out);
}
