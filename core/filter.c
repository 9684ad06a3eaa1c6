// SPDX-License-Identifier: GPL-2.0
/*
 * ftrace's event filter grammar, compiled to a postfix program (filter.h).
 *
 * Compilation is a recursive-descent parser over a small lexer that keeps
 * byte positions for the error messages.  The program is a flat array of
 * instructions:
 *
 *   a == 1 && (b ~ "x*" || !c < 3)   ->   P0 P1 P2 NOT OR AND
 *
 * run by ft_filter_match() on a stack of bits (depth bounded at compile
 * time by FT_FILTER_MAX_PREDS, one bit per pending result), with no
 * allocation: the program may run in a traced program's hot path.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/filter.h"

enum pred_op {
	OP_EQ,
	OP_NE,
	OP_LT,
	OP_LE,
	OP_GT,
	OP_GE,
	OP_BAND,
	OP_GLOB
};

static const char *const op_names[] = { "==", "!=", "<", "<=", ">", ">=", "&", "~" };

enum insn_kind {
	I_PRED,
	I_AND,
	I_OR,
	I_NOT
};

struct insn {
	uint8_t kind;
	uint16_t pred;
};

struct pred {
	uint16_t off, size;
	uint8_t type, is_signed, op, is_str;
	uint64_t val; /* numbers: the literal (two's complement for signed) */
	char *str;    /* strings: the literal, NUL-terminated */
	uint32_t slen;
};

struct ft_filter {
	char *text;
	struct pred *preds;
	unsigned int nr_preds;
	struct insn *prog;
	unsigned int nr_insn;
};

/* ---- lexer ---- */

enum tok_kind {
	T_END,
	T_LPAREN,
	T_RPAREN,
	T_NOT,
	T_AND,
	T_OR,
	T_OP,
	T_WORD,
	T_STR,
	T_BAD
};

struct tok {
	int kind;
	int pos; /* offset of its first byte */
	int len; /* bytes of the token in the text */
	int op;	 /* T_OP: enum pred_op */
};

struct parser {
	const char *s;
	int pos;
	struct tok t; /* current token */
	const struct ftrail_field *fields;
	size_t nr_fields;
	struct ft_filter *f;
	unsigned int cap_insn;
	int depth;
	int syntax_only; /* ft_filter_check_syntax: any field name, no type checks */
	struct ft_filter_err *err;
};

static int perr(struct parser *p, int kind, int pos, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

/* Record the first error only; always returns -1. */
static int perr(struct parser *p, int kind, int pos, const char *fmt, ...)
{
	va_list ap;

	if (p->err->kind)
		return -1;
	p->err->kind = kind;
	p->err->pos = pos;
	va_start(ap, fmt);
	vsnprintf(p->err->msg, sizeof(p->err->msg), fmt, ap);
	va_end(ap);
	return -1;
}

static int is_space(char c)
{
	return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

/* A bare word ends at blanks and at the grammar's punctuation. */
static int word_end(char c)
{
	return !c || is_space(c) || strchr("()!=<>&|~\"'", c);
}

/* Scan the next token at p->pos into p->t. */
static void next(struct parser *p)
{
	const char *s = p->s;
	int i = p->pos;

	while (is_space(s[i]))
		i++;
	p->t.pos = i;
	p->t.op = -1;
	switch (s[i]) {
	case 0:
		p->t.kind = T_END;
		p->t.len = 0;
		break;
	case '(':
		p->t.kind = T_LPAREN;
		p->t.len = 1;
		break;
	case ')':
		p->t.kind = T_RPAREN;
		p->t.len = 1;
		break;
	case '!':
		if (s[i + 1] == '=') {
			p->t.kind = T_OP;
			p->t.op = OP_NE;
			p->t.len = 2;
		} else {
			p->t.kind = T_NOT;
			p->t.len = 1;
		}
		break;
	case '&':
		if (s[i + 1] == '&') {
			p->t.kind = T_AND;
			p->t.len = 2;
		} else {
			p->t.kind = T_OP;
			p->t.op = OP_BAND;
			p->t.len = 1;
		}
		break;
	case '|':
		p->t.kind = s[i + 1] == '|' ? T_OR : T_BAD;
		p->t.len = s[i + 1] == '|' ? 2 : 1;
		break;
	case '=':
		p->t.kind = s[i + 1] == '=' ? T_OP : T_BAD;
		p->t.op = OP_EQ;
		p->t.len = s[i + 1] == '=' ? 2 : 1;
		break;
	case '<':
	case '>':
		p->t.kind = T_OP;
		p->t.len = s[i + 1] == '=' ? 2 : 1;
		p->t.op = s[i] == '<' ? (p->t.len == 2 ? OP_LE : OP_LT)
				      : (p->t.len == 2 ? OP_GE : OP_GT);
		break;
	case '~':
		p->t.kind = T_OP;
		p->t.op = OP_GLOB;
		p->t.len = 1;
		break;
	case '"':
	case '\'': {
		char q = s[i];
		int j = i + 1;

		while (s[j] && s[j] != q) {
			if (s[j] == '\\' && s[j + 1])
				j++;
			j++;
		}
		p->t.kind = s[j] ? T_STR : T_BAD;
		p->t.len = s[j] ? j + 1 - i : j - i;
		break;
	}
	default: {
		int j = i;

		while (!word_end(s[j]))
			j++;
		p->t.kind = T_WORD;
		p->t.len = j - i;
		break;
	}
	}
	p->pos = p->t.pos + p->t.len;
}

/* ---- program building ---- */

static int emit(struct parser *p, int kind, unsigned int pred)
{
	struct ft_filter *f = p->f;

	if (f->nr_insn == p->cap_insn) {
		unsigned int cap = p->cap_insn ? 2 * p->cap_insn : 16;
		struct insn *n = realloc(f->prog, cap * sizeof(*n));

		if (!n)
			return perr(p, FT_FERR_NOMEM, p->t.pos, "out of memory");
		f->prog = n;
		p->cap_insn = cap;
	}
	f->prog[f->nr_insn].kind = (uint8_t)kind;
	f->prog[f->nr_insn].pred = (uint16_t)pred;
	f->nr_insn++;
	return 0;
}

static const struct ftrail_field *find_field(struct parser *p, const char *name, int len)
{
	for (size_t i = 0; i < p->nr_fields; i++)
		if ((int)strlen(p->fields[i].name) == len && !memcmp(p->fields[i].name, name, len))
			return &p->fields[i];
	return NULL;
}

static int field_is_str(const struct ftrail_field *fd)
{
	return fd->type == FTRAIL_T_STRING || fd->type == FTRAIL_T_BYTES ||
	       fd->type == FTRAIL_T_ARRAY;
}

/* "id path delta" for the unknown-field message, cut to fit. */
static void list_fields(struct parser *p, char *buf, size_t len)
{
	size_t n = 0;

	buf[0] = 0;
	for (size_t i = 0; i < p->nr_fields && n + 1 < len; i++) {
		int w = snprintf(buf + n, len - n, "%s%s", i ? " " : "", p->fields[i].name);

		if (w < 0 || (size_t)w >= len - n) {
			if (len > 4)
				strcpy(buf + len - 4, "...");
			return;
		}
		n += w;
	}
}

/* Parse the string literal token into a malloc'ed unescaped copy. */
static int take_string(struct parser *p, struct pred *pr)
{
	const char *s = p->s + p->t.pos;
	int len = p->t.len, quoted = p->t.kind == T_STR;
	int a = quoted ? 1 : 0, b = quoted ? len - 1 : len;
	char *out;
	uint32_t n = 0;

	if (b - a >= FT_FILTER_MAX_STR)
		return perr(p, FT_FERR_LIMIT, p->t.pos, "string longer than %d bytes",
			    FT_FILTER_MAX_STR - 1);
	out = malloc(b - a + 1);
	if (!out)
		return perr(p, FT_FERR_NOMEM, p->t.pos, "out of memory");
	for (int i = a; i < b; i++) {
		/* keep "\x" as is for globs (the glob unescapes); unescape quotes */
		if (quoted && s[i] == '\\' && i + 1 < b && s[i + 1] == s[0] && pr->op != OP_GLOB)
			i++;
		out[n++] = s[i];
	}
	out[n] = 0;
	pr->str = out;
	pr->slen = n;
	pr->is_str = 1;
	return 0;
}

/* Parse an integer literal token for a numeric field. */
static int take_number(struct parser *p, struct pred *pr, const struct ftrail_field *fd)
{
	char buf[72], *end;
	int len = p->t.len;

	if (p->t.kind == T_STR)
		return perr(p, FT_FERR_TYPE, p->t.pos,
			    "field '%s' is a number: a quoted string cannot be compared with it",
			    fd->name);
	if (len >= (int)sizeof(buf))
		return perr(p, FT_FERR_TYPE, p->t.pos, "'%.*s...' is not a number", 16,
			    p->s + p->t.pos);
	memcpy(buf, p->s + p->t.pos, len);
	buf[len] = 0;
	errno = 0;
	if (buf[0] == '-') {
		long long v = strtoll(buf, &end, 0);

		if (*end || end == buf || errno)
			goto bad;
		if (!fd->is_signed)
			return perr(p, FT_FERR_TYPE, p->t.pos,
				    "field '%s' is unsigned: %s is negative", fd->name, buf);
		pr->val = (uint64_t)v;
	} else {
		unsigned long long v = strtoull(buf, &end, 0);

		if (*end || end == buf || errno || buf[0] == '+')
			goto bad;
		pr->val = v;
	}
	return 0;
bad:
	if (errno == ERANGE)
		return perr(p, FT_FERR_TYPE, p->t.pos, "number %s out of range", buf);
	return perr(p, FT_FERR_TYPE, p->t.pos,
		    "'%s' is not a number (field '%s' is numeric; did you forget quotes?)", buf,
		    fd->name);
}

static int parse_pred(struct parser *p)
{
	const struct ftrail_field *fd;
	struct ft_filter *f = p->f;
	struct pred *pr;
	int fpos = p->t.pos, flen = p->t.len, oppos;

	if (p->t.kind != T_WORD)
		return perr(p, FT_FERR_SYNTAX, p->t.pos,
			    p->t.kind == T_END ? "expected a field name at the end"
					       : "expected a field name");
	if (p->syntax_only) {
		static const struct ftrail_field any = { "", FTRAIL_T_STRING, 0, 4, 0 };

		fd = &any;
	} else {
		fd = find_field(p, p->s + p->t.pos, p->t.len);
	}
	if (!fd) {
		char names[96];

		list_fields(p, names, sizeof(names));
		return perr(p, FT_FERR_FIELD, fpos, "unknown field '%.*s' (fields: %s)",
			    p->t.len > 64 ? 64 : p->t.len, p->s + p->t.pos,
			    p->nr_fields ? names : "none");
	}
	if (f->nr_preds >= FT_FILTER_MAX_PREDS)
		return perr(p, FT_FERR_LIMIT, fpos, "more than %d predicates", FT_FILTER_MAX_PREDS);
	pr = &f->preds[f->nr_preds];
	memset(pr, 0, sizeof(*pr));
	pr->off = fd->offset;
	pr->size = fd->size;
	pr->type = (uint8_t)fd->type;
	pr->is_signed = (uint8_t)fd->is_signed;

	next(p);
	if (p->t.kind != T_OP)
		return perr(p, FT_FERR_SYNTAX, p->t.pos,
			    "expected an operator (== != < <= > >= & ~) after '%.*s'",
			    flen > 64 ? 64 : flen, p->s + fpos);
	pr->op = (uint8_t)p->t.op;
	oppos = p->t.pos;
	if (p->syntax_only)
		goto value;
	if (field_is_str(fd) && pr->op != OP_EQ && pr->op != OP_NE && pr->op != OP_GLOB)
		return perr(p, FT_FERR_TYPE, oppos,
			    "operator '%s' is not valid for string field '%s' (use == != ~)",
			    op_names[pr->op], fd->name);
	if (!field_is_str(fd) && pr->op == OP_GLOB)
		return perr(p, FT_FERR_TYPE, oppos,
			    "operator '~' needs a string field; '%s' is a number", fd->name);
value:
	next(p);
	if (p->t.kind == T_BAD && (p->s[p->t.pos] == '"' || p->s[p->t.pos] == '\''))
		return perr(p, FT_FERR_SYNTAX, p->t.pos, "unterminated string");
	if (p->t.kind != T_WORD && p->t.kind != T_STR)
		return perr(p, FT_FERR_SYNTAX, p->t.pos, "expected a value after '%s'",
			    op_names[pr->op]);
	if (field_is_str(fd) ? take_string(p, pr) : take_number(p, pr, fd))
		return -1;
	f->nr_preds++;
	if (emit(p, I_PRED, f->nr_preds - 1))
		return -1;
	next(p);
	return 0;
}

static int parse_or(struct parser *p);

static int parse_unary(struct parser *p)
{
	int pos = p->t.pos;

	if (p->t.kind == T_NOT || p->t.kind == T_LPAREN) {
		int kind = p->t.kind;

		if (++p->depth > FT_FILTER_MAX_DEPTH)
			return perr(p, FT_FERR_LIMIT, pos, "nested deeper than %d",
				    FT_FILTER_MAX_DEPTH);
		next(p);
		if (kind == T_NOT) {
			if (parse_unary(p) || emit(p, I_NOT, 0))
				return -1;
		} else {
			if (parse_or(p))
				return -1;
			if (p->t.kind != T_RPAREN)
				return perr(p, FT_FERR_SYNTAX, p->t.kind == T_END ? pos : p->t.pos,
					    p->t.kind == T_END
						    ? "unbalanced parentheses: '(' is not closed"
						    : "expected '&&', '||' or ')'");
			next(p);
		}
		p->depth--;
		return 0;
	}
	return parse_pred(p);
}

static int parse_and(struct parser *p)
{
	if (parse_unary(p))
		return -1;
	while (p->t.kind == T_AND) {
		next(p);
		if (parse_unary(p) || emit(p, I_AND, 0))
			return -1;
	}
	return 0;
}

static int parse_or(struct parser *p)
{
	if (parse_and(p))
		return -1;
	while (p->t.kind == T_OR) {
		next(p);
		if (parse_and(p) || emit(p, I_OR, 0))
			return -1;
	}
	return 0;
}

void ft_filter_free(struct ft_filter *f)
{
	if (!f)
		return;
	for (unsigned int i = 0; i < f->nr_preds; i++)
		free(f->preds[i].str);
	free(f->preds);
	free(f->prog);
	free(f->text);
	free(f);
}

static struct ft_filter *compile(const char *expr, const struct ftrail_field *fields, size_t nr,
				 int syntax_only, struct ft_filter_err *err)
{
	struct parser p = { 0 };
	struct ft_filter *f;

	memset(err, 0, sizeof(*err));
	f = calloc(1, sizeof(*f));
	if (f) {
		f->text = strdup(expr);
		f->preds = calloc(FT_FILTER_MAX_PREDS, sizeof(*f->preds));
	}
	if (!f || !f->text || !f->preds) {
		err->kind = FT_FERR_NOMEM;
		snprintf(err->msg, sizeof(err->msg), "out of memory");
		ft_filter_free(f);
		return NULL;
	}
	p.s = expr;
	p.fields = fields;
	p.nr_fields = nr;
	p.f = f;
	p.err = err;
	p.syntax_only = syntax_only;
	next(&p);
	if (p.t.kind == T_END) {
		perr(&p, FT_FERR_SYNTAX, p.t.pos, "empty filter");
		goto fail;
	}
	if (parse_or(&p))
		goto fail;
	if (p.t.kind != T_END) {
		if (p.t.kind == T_RPAREN)
			perr(&p, FT_FERR_SYNTAX, p.t.pos, "unbalanced parentheses: unexpected ')'");
		else
			perr(&p, FT_FERR_SYNTAX, p.t.pos, "expected '&&' or '||' before '%.*s'",
			     p.t.len > 32 ? 32
			     : p.t.len	  ? p.t.len
					  : 1,
			     p.s + p.t.pos);
		goto fail;
	}
	return f;
fail:
	ft_filter_free(f);
	return NULL;
}

struct ft_filter *ft_filter_compile(const char *expr, const struct ftrail_field *fields, size_t nr,
				    struct ft_filter_err *err)
{
	return compile(expr, fields, nr, 0, err);
}

int ft_filter_check_syntax(const char *expr, struct ft_filter_err *err)
{
	struct ft_filter *f = compile(expr, NULL, 0, 1, err);

	ft_filter_free(f);
	return f ? 0 : -1;
}

/* ---- evaluation ---- */

int ft_filter_glob(const char *pat, const char *str, size_t slen)
{
	const char *star_p = NULL;
	size_t i = 0, star_i = 0;

	for (;;) {
		if (*pat == '*') {
			while (*pat == '*')
				pat++;
			if (!*pat)
				return 1;
			star_p = pat;
			star_i = i;
			continue;
		}
		if (i == slen) {
			if (!*pat)
				return 1;
			goto backtrack;
		}
		if (!*pat)
			goto backtrack;
		if (*pat == '?') {
			pat++;
			i++;
			continue;
		}
		if (*pat == '[') {
			const char *q = pat + 1;
			int neg = 0, hit = 0;
			unsigned char c = (unsigned char)str[i];

			if (*q == '!' || *q == '^') {
				neg = 1;
				q++;
			}
			do {
				unsigned char lo = (unsigned char)*q, hi = lo;

				if (!*q)
					goto literal; /* no closing ]: '[' is a literal */
				if (q[1] == '-' && q[2] && q[2] != ']') {
					hi = (unsigned char)q[2];
					q += 3;
				} else {
					q++;
				}
				if (c >= lo && c <= hi)
					hit = 1;
			} while (*q != ']');
			if (hit == neg)
				goto backtrack;
			pat = q + 1;
			i++;
			continue;
		}
literal:
		if (*pat == '\\' && pat[1])
			pat++;
		if (*pat != str[i])
			goto backtrack;
		pat++;
		i++;
		continue;
backtrack:
		if (!star_p || star_i >= slen)
			return 0;
		pat = star_p;
		i = ++star_i;
	}
}

static uint64_t load_num(const struct pred *pr, const unsigned char *rec, size_t len)
{
	uint8_t u8;
	uint16_t u16;
	uint32_t u32;
	uint64_t u64 = 0;

	if ((size_t)pr->off + pr->size > len)
		return 0;
	switch (pr->size) {
	case 1:
		memcpy(&u8, rec + pr->off, 1);
		return pr->is_signed ? (uint64_t)(int64_t)(int8_t)u8 : u8;
	case 2:
		memcpy(&u16, rec + pr->off, 2);
		return pr->is_signed ? (uint64_t)(int64_t)(int16_t)u16 : u16;
	case 4:
		memcpy(&u32, rec + pr->off, 4);
		return pr->is_signed ? (uint64_t)(int64_t)(int32_t)u32 : u32;
	case 8:
		memcpy(&u64, rec + pr->off, 8);
		return u64;
	}
	return 0;
}

/* The string a field holds: pointer and length without trailing NUL. */
static const char *load_str(const struct pred *pr, const unsigned char *rec, size_t len, size_t *n)
{
	uint32_t loc, off, l;

	*n = 0;
	if ((size_t)pr->off + pr->size > len)
		return "";
	if (pr->type == FTRAIL_T_ARRAY) {
		*n = strnlen((const char *)rec + pr->off, pr->size);
		return (const char *)rec + pr->off;
	}
	memcpy(&loc, rec + pr->off, 4);
	off = loc & 0xffff;
	l = loc >> 16;
	if ((size_t)off + l > len)
		return "";
	if (pr->type == FTRAIL_T_STRING)
		l = (uint32_t)strnlen((const char *)rec + off, l);
	*n = l;
	return (const char *)rec + off;
}

static int eval_pred(const struct pred *pr, const unsigned char *rec, size_t len)
{
	if (pr->is_str) {
		size_t n;
		const char *s = load_str(pr, rec, len, &n);

		switch (pr->op) {
		case OP_EQ:
			return n == pr->slen && !memcmp(s, pr->str, n);
		case OP_NE:
			return !(n == pr->slen && !memcmp(s, pr->str, n));
		default:
			return ft_filter_glob(pr->str, s, n);
		}
	} else {
		uint64_t v = load_num(pr, rec, len);
		int lt, eq = v == pr->val;

		if (pr->is_signed)
			lt = (int64_t)v < (int64_t)pr->val;
		else
			lt = v < pr->val;
		switch (pr->op) {
		case OP_EQ:
			return eq;
		case OP_NE:
			return !eq;
		case OP_LT:
			return lt;
		case OP_LE:
			return lt || eq;
		case OP_GT:
			return !lt && !eq;
		case OP_GE:
			return !lt;
		case OP_BAND:
			return (v & pr->val) != 0;
		}
	}
	return 0;
}

/*
 * The stack holds one bit per pending result; its depth never exceeds the
 * number of predicates (<= 64), so a u64 is the whole stack.
 */
int ft_filter_match(const struct ft_filter *f, const void *rec, size_t len)
{
	uint64_t st = 0;
	unsigned int sp = 0;

	for (unsigned int i = 0; i < f->nr_insn; i++) {
		const struct insn *in = &f->prog[i];
		uint64_t a, b;

		switch (in->kind) {
		case I_PRED:
			st = (st << 1) | (uint64_t)eval_pred(&f->preds[in->pred], rec, len);
			sp++;
			break;
		case I_NOT:
			st ^= 1;
			break;
		default: /* AND, OR: pop two, push one */
			b = st & 1;
			a = (st >> 1) & 1;
			st >>= 2;
			st = (st << 1) | (in->kind == I_AND ? (a & b) : (a | b));
			sp--;
			break;
		}
	}
	return sp ? (int)(st & 1) : 1;
}

const char *ft_filter_text(const struct ft_filter *f)
{
	return f->text;
}

char *ft_filter_strerror(const char *expr, const struct ft_filter_err *err, int multiline,
			 char *buf, size_t len)
{
	static const char *const kinds[] = {
		[FT_FERR_SYNTAX] = "syntax error", [FT_FERR_FIELD] = "error",
		[FT_FERR_TYPE] = "error",	   [FT_FERR_LIMIT] = "error",
		[FT_FERR_NOMEM] = "error",
	};
	const char *k = err->kind > 0 && err->kind <= FT_FERR_NOMEM ? kinds[err->kind] : "error";
	int n;

	n = snprintf(buf, len, "%s at position %d: %s", k, err->pos, err->msg);
	if (multiline && n >= 0 && (size_t)n < len)
		snprintf(buf + n, len - n, "\n  Command: %s\n%*s^", expr,
			 (int)(sizeof("  Command: ") - 1) + err->pos, "");
	return buf;
}
