// SPDX-License-Identifier: GPL-2.0
/*
 * User trace events between runtime, recorder and readers (uevent.h).
 * The half both sides share: the runtime's attach, selection matching and
 * format text.  The tool's setup/finish live in recorder/uevent_setup.c,
 * the reader in analysis/uevent_table.c.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "core/filter.h"
#include "core/glob.h"
#include "core/uevent.h"

/* ---- shared by both sides ---- */

struct ft_uev_area *ft_uev_map(int fd)
{
	struct ft_uev_area *a;
	struct stat st;

	if (fd < 0 || fstat(fd, &st) || (size_t)st.st_size < sizeof(*a))
		return NULL;
	a = mmap(NULL, sizeof(*a), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (a == MAP_FAILED)
		return NULL;
	if (a->magic != FT_UEV_MAGIC || a->version != FT_UEV_VERSION) {
		munmap(a, sizeof(*a));
		return NULL;
	}
	return a;
}

struct ft_uev_area *ft_uev_attach(void)
{
	const char *e = getenv(FT_UEV_ENV_FD);
	char *end;
	long fd;

	if (!e || !*e)
		return NULL;
	fd = strtol(e, &end, 10);
	if (*end || fd < 0 || fd > INT32_MAX)
		return NULL;
	return ft_uev_map((int)fd);
}

/* Glob compare of one name component (a '*' or '?' or '[' makes it a glob). */
static int comp_match(const char *pat, size_t plen, const char *s)
{
	return ft_glob_match_n(pat, plen, s);
}

int ft_uev_name_match(const char *sel, const char *sys, const char *event)
{
	const char *colon;

	if (!strncmp(sel, "u:", 2))
		sel += 2;
	if (!strcmp(sel, "all"))
		return 1;
	colon = strchr(sel, ':');
	if (!colon)
		return comp_match(sel, strlen(sel), sys);
	return comp_match(sel, (size_t)(colon - sel), sys) &&
	       comp_match(colon + 1, strlen(colon + 1), event);
}

static const char *type_decl(const struct ftrail_field *f, char *buf, size_t len)
{
	static const char *const names[] = {
		[FTRAIL_T_U8] = "u8",	[FTRAIL_T_U16] = "u16", [FTRAIL_T_U32] = "u32",
		[FTRAIL_T_U64] = "u64", [FTRAIL_T_S8] = "s8",	[FTRAIL_T_S16] = "s16",
		[FTRAIL_T_S32] = "s32", [FTRAIL_T_S64] = "s64",
	};

	switch (f->type) {
	case FTRAIL_T_PTR:
		snprintf(buf, len, "void * %s", f->name);
		break;
	case FTRAIL_T_STRING:
		snprintf(buf, len, "__data_loc char[] %s", f->name);
		break;
	case FTRAIL_T_BYTES:
		snprintf(buf, len, "__data_loc u8[] %s", f->name);
		break;
	case FTRAIL_T_ARRAY:
		snprintf(buf, len, "u8 %s[%u]", f->name, f->size);
		break;
	default:
		snprintf(buf, len, "%s %s", f->type < FTRAIL_T_PTR ? names[f->type] : "u8",
			 f->name);
		break;
	}
	return buf;
}

int ft_uev_format(const struct ftrail_event *ev, uint32_t id, char *buf, size_t len)
{
	char decl[160];
	size_t n = 0;

#define OUT(...)                                                                                   \
	do {                                                                                       \
		int w_ = snprintf(buf + (n < len ? n : len), n < len ? len - n : 0, __VA_ARGS__);  \
		if (w_ > 0)                                                                        \
			n += (size_t)w_;                                                           \
	} while (0)

	OUT("name: %s\nID: %u\nsystem: %s\nformat:\n", ev->name, id, ev->subsys);
	OUT("\tfield:unsigned int common_type;\toffset:0;\tsize:4;\tsigned:0;\n\n");
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		const struct ftrail_field *f = &ev->fields[i];

		OUT("\tfield:%s;\toffset:%u;\tsize:%u;\tsigned:%u;\n",
		    type_decl(f, decl, sizeof(decl)), f->offset, f->size, f->is_signed ? 1 : 0);
	}
	OUT("\nprint fmt: \"%s\"", ev->fmt ? ev->fmt : "");
	for (uint32_t i = 0; i < ev->nr_fields; i++) {
		const struct ftrail_field *f = &ev->fields[i];

		switch (f->type) {
		case FTRAIL_T_STRING:
			OUT(", __get_str(%s)", f->name);
			break;
		case FTRAIL_T_BYTES:
			OUT(", __print_hex_str(__get_dynamic_array(%s), __get_dynamic_array_len(%s))",
			    f->name, f->name);
			break;
		case FTRAIL_T_ARRAY:
			OUT(", __print_hex_str(REC->%s, %u)", f->name, f->size);
			break;
		default:
			OUT(", REC->%s", f->name);
			break;
		}
	}
	OUT("\n\n");
#undef OUT
	return (int)n;
}

/*
 * An -e naming exactly one event ("u:sys:event", no glob) must accept its
 * filter; a subsystem, glob or "all" selection applies its filter only to
 * the events that have its fields (as a tracefs subsystem filter does),
 * and is an error only when no event at all accepts it.
 */
int ft_uev_sel_exact(const char *name)
{
	const char *n = strncmp(name, "u:", 2) ? name : name + 2;
	const char *c = strchr(n, ':');

	return c && c > n && c[1] && !strpbrk(n, "*?[");
}
