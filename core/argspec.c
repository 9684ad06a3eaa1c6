// SPDX-License-Identifier: GPL-2.0
/*
 * Spec lines for argument and return-value capture (core/argspec.h).
 * Parsed by hand: the grammar is a handful of tokens, and the runtime links
 * this file, so it may use no library beyond string.h.
 */
#include <stdio.h>
#include <string.h>

#include "core/argspec.h"

static const char *const fmt_names[FT_AF_NR] = {
	[FT_AF_NONE] = "?",    [FT_AF_I8] = "i8",   [FT_AF_I16] = "i16", [FT_AF_I32] = "i32",
	[FT_AF_I64] = "i64",   [FT_AF_U8] = "u8",   [FT_AF_U16] = "u16", [FT_AF_U32] = "u32",
	[FT_AF_U64] = "u64",   [FT_AF_X8] = "x8",   [FT_AF_X16] = "x16", [FT_AF_X32] = "x32",
	[FT_AF_X64] = "x64",   [FT_AF_PTR] = "p",   [FT_AF_CHAR] = "c",	 [FT_AF_BOOL] = "b",
	[FT_AF_STR] = "s",     [FT_AF_F32] = "f32", [FT_AF_F64] = "f64", [FT_AF_ENUM] = "e",
	[FT_AF_STRUCT] = "{}",
};

const char *ft_arg_fmt_name(unsigned int fmt)
{
	return fmt < FT_AF_NR ? fmt_names[fmt] : "?";
}

unsigned int ft_arg_fmt_width(unsigned int fmt)
{
	switch (fmt) {
	case FT_AF_I8:
	case FT_AF_U8:
	case FT_AF_X8:
	case FT_AF_CHAR:
	case FT_AF_BOOL:
		return 1;
	case FT_AF_I16:
	case FT_AF_U16:
	case FT_AF_X16:
		return 2;
	case FT_AF_I32:
	case FT_AF_U32:
	case FT_AF_X32:
	case FT_AF_F32:
	case FT_AF_ENUM:
		return 4;
	case FT_AF_I64:
	case FT_AF_U64:
	case FT_AF_X64:
	case FT_AF_PTR:
	case FT_AF_F64:
		return 8;
	default:
		return 0;
	}
}

static int is_ident(char c, int first)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
	       (!first && c >= '0' && c <= '9');
}

/* A decimal number of at most 9 digits at *p (advanced); -1 when none. */
static long number(const char *s, size_t len, size_t *p)
{
	long v = 0;
	size_t start = *p;

	while (*p < len && s[*p] >= '0' && s[*p] <= '9' && *p - start < 9)
		v = v * 10 + (s[(*p)++] - '0');
	return *p == start ? -1 : v;
}

static int starts(const char *s, size_t len, size_t p, const char *word)
{
	size_t n = strlen(word);

	return len - p >= n && !memcmp(s + p, word, n);
}

#define FAIL(pos, ...)                                                                             \
	do {                                                                                       \
		*errpos = (pos);                                                                   \
		snprintf(err, errlen, __VA_ARGS__);                                                \
		return -1;                                                                         \
	} while (0)

/* The format after '/': sets it->fmt (and size, ename).  *p advanced. */
static int parse_fmt(const char *s, size_t len, size_t *p, struct ft_arg_item *it, size_t *errpos,
		     char *err, size_t errlen)
{
	size_t at = *p;
	char c = at < len ? s[at] : '\0';
	long n;

	if (c == '{') {
		(*p)++;
		n = number(s, len, p);
		if (n <= 0 || *p >= len || s[*p] != '}')
			FAIL(at, "expected {SIZE} with a size in bytes");
		(*p)++;
		it->fmt = FT_AF_STRUCT;
		it->size = (uint32_t)n;
		return 0;
	}
	if (c == 'e' && at + 1 < len && s[at + 1] == ':') {
		size_t q = at + 2, k = 0;

		if (q >= len || !is_ident(s[q], 1))
			FAIL(q, "expected an enum name after 'e:'");
		while (q < len && is_ident(s[q], 0)) {
			if (k + 1 >= FT_ARG_NAME_MAX)
				FAIL(q, "enum name longer than %d bytes", FT_ARG_NAME_MAX - 1);
			it->ename[k++] = s[q++];
		}
		it->ename[k] = '\0';
		it->fmt = FT_AF_ENUM;
		*p = q;
		return 0;
	}
	if (c == 's') {
		(*p)++;
		it->fmt = FT_AF_STR;
		it->size = FT_ARG_STR_DEFAULT;
		if (*p < len && s[*p] == ':') {
			(*p)++;
			n = number(s, len, p);
			if (n < 1 || n > FT_ARG_STR_MAX)
				FAIL(at + 2, "string cap must be 1..%d", FT_ARG_STR_MAX);
			it->size = (uint32_t)n;
		}
		return 0;
	}
	if (c == 'p' || c == 'c' || c == 'b') {
		(*p)++;
		it->fmt = c == 'p' ? FT_AF_PTR : c == 'c' ? FT_AF_CHAR : FT_AF_BOOL;
		return 0;
	}
	if (c == 'i' || c == 'u' || c == 'x' || c == 'f') {
		static const unsigned char base[] = {
			['i'] = FT_AF_I8, ['u'] = FT_AF_U8, ['x'] = FT_AF_X8
		};

		(*p)++;
		n = number(s, len, p);
		if (c == 'f') {
			if (n == -1 || n == 64)
				it->fmt = FT_AF_F64;
			else if (n == 32)
				it->fmt = FT_AF_F32;
			else
				FAIL(at + 1, "float size must be 32 or 64");
			return 0;
		}
		if (n == -1)
			n = 64;
		switch (n) {
		case 8:
			it->fmt = base[(int)c];
			break;
		case 16:
			it->fmt = base[(int)c] + 1;
			break;
		case 32:
			it->fmt = base[(int)c] + 2;
			break;
		case 64:
			it->fmt = base[(int)c] + 3;
			break;
		default:
			FAIL(at + 1, "integer size must be 8, 16, 32 or 64");
		}
		return 0;
	}
	FAIL(at, "unknown format (i8..i64 u8..u64 x8..x64 p c b s s:CAP f32 f64 e:ENUM {SIZE})");
}

int ft_argspec_parse(const char *s, size_t len, int which, struct ft_arg_spec *out, size_t *errpos,
		     char *err, size_t errlen)
{
	size_t p = 0, at;
	const char *nl;

	memset(out, 0, sizeof(*out));
	len = strnlen(s, len);
	nl = memchr(s, '\n', len);
	if (nl)
		len = (size_t)(nl - s);
	while (p < len && s[p] != '@')
		p++;
	if (p == len)
		FAIL(len, "expected FUNC@%s", which == FT_ARGSPEC_RET ? "retval" : "arg1,...");
	if (p == 0)
		FAIL(0, "empty function name before '@'");
	out->glob = s;
	out->glob_len = p;
	p++;
	/* the register locations: vector (xmm0-7, double by default), integer */
	static const struct {
		const char *prefix, *what;
		long max;
		uint8_t loc, fmt;
	} regs[] = {
		{ "fparg", "", 8, FT_AL_FP, FT_AF_F64 },
		{ "arg", " (integer registers)", 6, FT_AL_INT, FT_AF_I64 },
	};
	for (;;) {
		const typeof(regs[0]) *reg;
		struct ft_arg_item it;
		long n;

		memset(&it, 0, sizeof(it));
		at = p;
		/* an optional NAME= */
		while (p < len && is_ident(s[p], p == at))
			p++;
		if (p < len && s[p] == '=' && p > at) {
			if (p - at >= FT_ARG_NAME_MAX)
				FAIL(at, "name longer than %d bytes", FT_ARG_NAME_MAX - 1);
			memcpy(it.name, s + at, p - at);
			it.name[p - at] = '\0';
			p++;
		} else {
			p = at;
		}
		at = p;
		reg = starts(s, len, p, "fparg") ? &regs[0]
		      : starts(s, len, p, "arg") ? &regs[1]
						 : NULL;
		if (reg) {
			p += strlen(reg->prefix);
			n = number(s, len, &p);
			if (n < 1 || n > reg->max)
				FAIL(at + strlen(reg->prefix), "%s number must be 1..%ld%s",
				     reg->prefix, reg->max, reg->what);
			it.loc = reg->loc;
			it.idx = (uint8_t)(n - 1);
			it.fmt = reg->fmt;
		} else if (starts(s, len, p, "retval")) {
			p += 6;
			it.loc = FT_AL_RET;
			it.fmt = FT_AF_I64;
		} else if (starts(s, len, p, "struct")) {
			p += 6;
			it.loc = FT_AL_STACK;
			it.fmt = FT_AF_NONE;
		} else {
			FAIL(at, "expected argN, fpargN%s",
			     which & FT_ARGSPEC_RET ? " or retval" : "");
		}
		if (p < len && is_ident(s[p], 0))
			FAIL(p, "unexpected '%c'", s[p]);
		if (it.loc == FT_AL_RET && !(which & FT_ARGSPEC_RET))
			FAIL(at, "retval belongs in --retval, not -A");
		if (it.loc != FT_AL_RET && !(which & FT_ARGSPEC_ARGS))
			FAIL(at, "expected retval");
		if (p < len && s[p] == '/') {
			p++;
			if (parse_fmt(s, len, &p, &it, errpos, err, errlen) < 0)
				return -1;
		}
		if (it.loc == FT_AL_STACK && it.fmt != FT_AF_STRUCT)
			FAIL(at, "struct needs a size: struct/{SIZE}");
		if (it.fmt == FT_AF_STRUCT && (it.loc == FT_AL_INT || it.loc == FT_AL_FP) &&
		    it.size > 16)
			FAIL(at, "a struct over 16 bytes is passed in memory: struct/{SIZE}");
		if (it.loc == FT_AL_FP && it.fmt != FT_AF_F32 && it.fmt != FT_AF_F64 &&
		    it.fmt != FT_AF_STRUCT)
			FAIL(at, "fparg takes f32, f64 or {SIZE}");
		if (it.loc == FT_AL_RET) {
			if (out->has_ret)
				FAIL(at, "retval given twice");
			out->ret = it;
			out->has_ret = 1;
		} else {
			if (out->nargs >= FT_ARG_MAX)
				FAIL(at, "more than %d arguments", FT_ARG_MAX);
			out->args[out->nargs++] = it;
		}
		if (p == len)
			break;
		if (s[p] != ',')
			FAIL(p, "expected ',' or the end, found '%c'", s[p]);
		p++;
	}
	return 0;
}
