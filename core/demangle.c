// SPDX-License-Identifier: GPL-2.0
/*
 * C++ names in uftrace's simple form (see core/demangle.h).
 *
 * The simplification works on the demangler's text, not on its component
 * tree: libiberty's tree (cplus_demangle_v3_components) allocates, and its
 * printer has no switch for "no template arguments".  The text is regular
 * enough: template arguments are the '<'...'>' groups outside parentheses
 * (an expression's '<' or '>' inside arguments is parenthesised by the
 * demangler), operator names are the only other place a '<' or '>' stands,
 * and they follow the word "operator".
 */
#include <string.h>

#include <libiberty/demangle.h>

#include "core/demangle.h"

/* Is c one of the characters an operator's name is spelled with? */
static int operator_char(char c)
{
	return c && strchr("<>=!+-*/%^&|~,", c);
}

/* Does the word "operator" start at p (in a name starting at name)? */
static int at_operator(const char *name, const char *p)
{
	return !strncmp(p, "operator", 8) && (p == name || p[-1] == ':' || p[-1] == ' ') &&
	       !(p[8] == '_' || (p[8] >= 'a' && p[8] <= 'z') || (p[8] >= 'A' && p[8] <= 'Z') ||
		 (p[8] >= '0' && p[8] <= '9'));
}

/* The end of the group opened at p ('(' or '{'), past its closing character, or NULL. */
static const char *group_end(const char *p)
{
	char open = *p, close = open == '(' ? ')' : '}';
	int depth = 0;

	for (; *p; p++) {
		if (*p == open)
			depth++;
		else if (*p == close && !--depth)
			return p + 1;
	}
	return NULL;
}

/* Copy "operator" and the operator's own spelling from *in to *out. */
static void copy_operator(const char **in, char **out)
{
	const char *i = *in;
	char *o = *out;

	memmove(o, i, 8);
	o += 8;
	i += 8;
	if ((i[0] == '(' && i[1] == ')') || (i[0] == '[' && i[1] == ']')) {
		*o++ = *i++;
		*o++ = *i++;
	}
	while (operator_char(*i))
		*o++ = *i++;
	/* "operator< <int>": the demangler's space before the arguments */
	if (i[0] == ' ' && i[1] == '<')
		i++;
	*in = i;
	*out = o;
}

/*
 * The return type in front of a template function's name ("void ns::f"):
 * everything up to the last space outside groups and before any
 * "operator", whose own spaces ("operator new", "operator int") stay.
 */
static void drop_return_type(char *name)
{
	char *cut = NULL;
	int depth = 0;

	for (char *p = name; *p; p++) {
		if (*p == '(' || *p == '{')
			depth++;
		else if ((*p == ')' || *p == '}') && depth)
			depth--;
		else if (!depth && at_operator(name, p))
			break;
		else if (!depth && *p == ' ')
			cut = p + 1;
	}
	if (cut)
		memmove(name, cut, strlen(cut) + 1);
}

void ft_demangle_simplify(char *name)
{
	const char *in = name, *end;
	char *out = name;
	int angle = 0, paren = 0; /* depth in template arguments (dropped), in parentheses there */

	while (*in) {
		if (!angle) {
			if (at_operator(name, in)) {
				copy_operator(&in, &out);
				continue;
			}
			if (*in == '{' && (end = group_end(in))) { /* {lambda(int)#1}: whole */
				memmove(out, in, (size_t)(end - in));
				out += end - in;
				in = end;
				continue;
			}
			if (!strncmp(in, "[abi:", 5) && (end = strchr(in, ']'))) {
				in = end + 1;
				continue;
			}
			if (*in == '(') {
				/* a group the name goes on after: "(anonymous namespace)::" */
				end = group_end(in);
				if (end && end[0] == ':' && end[1] == ':') {
					memmove(out, in, (size_t)(end - in));
					out += end - in;
					in = end;
					continue;
				}
				break; /* the parameter list: the name ends before it */
			}
			if (!strncmp(in, " [clone ", 8))
				break;
		}
		if (angle && (*in == '(' || *in == ')'))
			paren += *in == '(' ? 1 : (paren > 0 ? -1 : 0);
		else if (*in == '<' && !paren)
			angle++;
		else if (*in == '>' && angle && !paren)
			angle--;
		else if (!angle)
			*out++ = *in;
		in++;
	}
	*out = '\0';
	drop_return_type(name);
}

/* The demangler's output, gathered into a bounded buffer. */
struct sink {
	char *buf;
	size_t len, used;
	int overflow;
};

static void gather(const char *s, size_t l, void *opaque)
{
	struct sink *k = opaque;

	if (k->overflow || l >= k->len - k->used) {
		k->overflow = 1;
		return;
	}
	memcpy(k->buf + k->used, s, l);
	k->used += l;
	k->buf[k->used] = '\0';
}

int ft_demangle_simple(const char *mangled, char *buf, size_t len)
{
	struct sink k = { .buf = buf, .len = len > FT_DEMANGLE_MAX ? FT_DEMANGLE_MAX : len };

	if (!len)
		return -1;
	buf[0] = '\0';
	/* the demangler's scratch is on the stack, in proportion to the name */
	if (strncmp(mangled, "_Z", 2) || strlen(mangled) >= FT_DEMANGLE_MAX / 2)
		return -1;
	if (!cplus_demangle_v3_callback(mangled, DMGL_PARAMS | DMGL_ANSI, gather, &k) ||
	    k.overflow) {
		buf[0] = '\0';
		return -1;
	}
	ft_demangle_simplify(buf);
	return 0;
}
