// SPDX-License-Identifier: GPL-2.0
/*
 * User trace events, the reader's half (uevent_table.h): parse the
 * UFORMATS sections of a trace file and render events in ftrace's layout.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/uevent_table.h"
#include "core/tracefile.h"
#include "core/util.h"

void ft_uev_table_free(struct ft_uev_table *t)
{
	free(t->fmts);
	t->fmts = NULL;
	t->nr = 0;
}

const struct ft_uev_fmt *ft_uev_table_find(const struct ft_uev_table *t, uint32_t id)
{
	for (size_t i = 0; i < t->nr; i++)
		if (t->fmts[i].id == id)
			return &t->fmts[i];
	return NULL;
}

static int perr(char *err, size_t errlen, int line, const char *what)
{
	snprintf(err, errlen, "UFORMATS: line %d: %s", line, what);
	return -1;
}

/* "field:<decl>;\toffset:N;\tsize:N;\tsigned:N;" -> f (name into nbuf). */
static int parse_field(const char *l, struct ftrail_field *f, char *nbuf)
{
	char decl[160], *name, *br;
	unsigned int off, size, sgn;
	const char *semi = strchr(l, ';');
	size_t dl;

	if (strncmp(l, "field:", 6) || !semi)
		return -1;
	dl = (size_t)(semi - (l + 6));
	if (dl >= sizeof(decl) || !dl)
		return -1;
	memcpy(decl, l + 6, dl);
	decl[dl] = 0;
	if (sscanf(semi + 1, " offset:%u; size:%u; signed:%u;", &off, &size, &sgn) != 3 ||
	    off > 0xffff || size > 0xffff)
		return -1;
	name = strrchr(decl, ' ');
	if (!name || !name[1])
		return -1;
	*name++ = 0;
	br = strchr(name, '[');
	if (br)
		*br = 0;
	if (strlen(name) >= 64 || !*name)
		return -1;
	strcpy(nbuf, name);
	f->name = nbuf;
	f->offset = (uint16_t)off;
	f->size = (uint16_t)size;
	f->is_signed = sgn ? 1 : 0;
	if (!strcmp(decl, "__data_loc char[]"))
		f->type = FTRAIL_T_STRING;
	else if (!strcmp(decl, "__data_loc u8[]"))
		f->type = FTRAIL_T_BYTES;
	else if (!strcmp(decl, "void *"))
		f->type = FTRAIL_T_PTR;
	else if (br && !strcmp(decl, "u8"))
		f->type = FTRAIL_T_ARRAY;
	else if (decl[0] == 'u' || decl[0] == 's') {
		int bits = atoi(decl + 1);
		int base = decl[0] == 'u' ? FTRAIL_T_U8 : FTRAIL_T_S8;

		switch (bits) {
		case 8:
			f->type = (uint16_t)base;
			break;
		case 16:
			f->type = (uint16_t)(base + 1);
			break;
		case 32:
			f->type = (uint16_t)(base + 2);
			break;
		case 64:
			f->type = (uint16_t)(base + 3);
			break;
		default:
			return -1;
		}
		if ((1u << (f->type - base)) != size)
			return -1;
	} else {
		return -1;
	}
	if ((f->type == FTRAIL_T_STRING || f->type == FTRAIL_T_BYTES) && size != 4)
		return -1;
	if (f->type == FTRAIL_T_PTR && size != 8)
		return -1;
	return 0;
}

int ft_uev_table_parse(struct ft_uev_table *t, const char *text, size_t len, char *err,
		       size_t errlen)
{
	struct ft_uev_fmt *cur = NULL;
	size_t i = 0, cap = 0;
	int line = 0;
	char l[512];

	memset(t, 0, sizeof(*t));
	while (i < len) {
		size_t j = i, ll;

		while (j < len && text[j] != '\n')
			j++;
		ll = j - i;
		line++;
		if (ll >= sizeof(l))
			goto bad_line;
		memcpy(l, text + i, ll);
		l[ll] = 0;
		if (memchr(l, 0, ll))
			goto bad_line;
		i = j + 1;
		if (!strncmp(l, "name: ", 6)) {
			if (FT_GROW(t->fmts, cap, t->nr + 1, 16)) {
				ft_uev_table_free(t);
				return perr(err, errlen, line, "out of memory");
			}
			cur = &t->fmts[t->nr++];
			memset(cur, 0, sizeof(*cur));
			if (strlen(l + 6) >= sizeof(cur->name))
				goto bad_line;
			strcpy(cur->name, l + 6);
		} else if (!cur) {
			if (ll)
				goto bad_line;
		} else if (!strncmp(l, "ID: ", 4)) {
			char *end;
			unsigned long v = strtoul(l + 4, &end, 10);

			if (*end || v > UINT32_MAX)
				goto bad_line;
			cur->id = (uint32_t)v;
		} else if (!strncmp(l, "system: ", 8)) {
			if (strlen(l + 8) >= sizeof(cur->sys))
				goto bad_line;
			strcpy(cur->sys, l + 8);
		} else if (l[0] == '\t' && !strncmp(l + 1, "field:", 6)) {
			struct ftrail_field f;
			char nb[64];

			if (strstr(l, "common_type;"))
				continue;
			if (cur->nr_fields >= FTRAIL_MAX_FIELDS || parse_field(l + 1, &f, nb))
				goto bad_line;
			strcpy(cur->fnames[cur->nr_fields], nb);
			f.name = NULL; /* fixed up below: fmts may move while growing */
			cur->fields[cur->nr_fields++] = f;
		}
		/* "format:", "print fmt:", blank lines: nothing to keep */
	}
	for (size_t k = 0; k < t->nr; k++)
		for (uint32_t f = 0; f < t->fmts[k].nr_fields; f++)
			t->fmts[k].fields[f].name = t->fmts[k].fnames[f];
	return 0;
bad_line:
	ft_uev_table_free(t);
	return perr(err, errlen, line, "malformed line");
}

int ft_uev_table_load(struct ft_uev_table *t, struct ft_reader *r, char *err, size_t errlen)
{
	size_t len = 0;
	char *text;
	int ret;

	memset(t, 0, sizeof(*t));
	err[0] = 0;
	text = ft_reader_load_all(r, FT_SEC_UFORMATS, UINT64_MAX, &len, err, errlen);
	if (!text)
		return err[0] ? -1 : 0;
	ret = ft_uev_table_parse(t, text, len, err, errlen);
	free(text);
	return ret;
}

const struct ft_uev_table *ft_uev_table_cached(struct ft_reader *r)
{
	static struct ft_reader *cached_r;
	static struct ft_uev_table table;
	char err[256];

	if (r != cached_r) {
		ft_uev_table_free(&table);
		cached_r = r;
		if (r && ft_uev_table_load(&table, r, err, sizeof(err)))
			ft_uev_table_free(&table);
	}
	return &table;
}

char *ft_uev_render(const struct ft_uev_table *t, uint32_t id, const void *data, size_t len,
		    char *out, size_t outlen)
{
	const struct ft_uev_fmt *fm = t ? ft_uev_table_find(t, id) : NULL;
	const unsigned char *d = data;
	size_t n = 0;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int w_ = snprintf(out + (n < outlen ? n : outlen), n < outlen ? outlen - n : 0,    \
				  __VA_ARGS__);                                                    \
		if (w_ > 0)                                                                        \
			n += (size_t)w_;                                                           \
	} while (0)

	if (outlen)
		out[0] = 0;
	if (!fm) {
		OUT("user_event: id=%u len=%zu", id, len);
		return out;
	}
	OUT("%s:", fm->name);
	/* offsets count from the record start; data starts after the 4-byte id */
	for (uint32_t i = 0; i < fm->nr_fields; i++) {
		const struct ftrail_field *f = &fm->fields[i];
		size_t off = f->offset >= 4 ? f->offset - 4u : SIZE_MAX;
		uint64_t u = 0;

		OUT(" %s=", f->name);
		if (off == SIZE_MAX || off + f->size > len) {
			OUT("?");
			continue;
		}
		switch (f->type) {
		case FTRAIL_T_STRING:
		case FTRAIL_T_BYTES: {
			uint32_t loc, o, l;

			memcpy(&loc, d + off, 4);
			o = loc & 0xffff;
			l = loc >> 16;
			if (o < 4 || o - 4 + (size_t)l > len) {
				OUT("?");
				break;
			}
			if (f->type == FTRAIL_T_STRING)
				OUT("%.*s", (int)strnlen((const char *)d + o - 4, l),
				    (const char *)d + o - 4);
			else
				for (uint32_t k = 0; k < l; k++)
					OUT("%02x", d[o - 4 + k]);
			break;
		}
		case FTRAIL_T_ARRAY:
			for (uint32_t k = 0; k < f->size; k++)
				OUT("%02x", d[off + k]);
			break;
		default:
			memcpy(&u, d + off, f->size <= 8 ? f->size : 8);
			if (f->type == FTRAIL_T_PTR)
				OUT("0x%llx", (unsigned long long)u);
			else if (f->is_signed) {
				int64_t s = f->size == 1   ? (int8_t)u
					    : f->size == 2 ? (int16_t)u
					    : f->size == 4 ? (int32_t)u
							   : (int64_t)u;
				OUT("%lld", (long long)s);
			} else {
				OUT("%llu", (unsigned long long)u);
			}
			break;
		}
	}
#undef OUT
	return out;
}
