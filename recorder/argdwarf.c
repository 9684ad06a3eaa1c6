// SPDX-License-Identifier: GPL-2.0
/*
 * Capture specs from DWARF (recorder/argdwarf.h), through elfutils libdw.
 *
 * Where each parameter is at the function's entry follows the x86-64 SysV
 * ABI: integers, pointers and enums in rdi rsi rdx rcx r8 r9, float and
 * double in xmm0-7, a struct or union over 16 bytes (and long double) in
 * memory, one of at most 16 bytes in one or two registers of the class of
 * its fields; a function returning a struct over 16 bytes takes the
 * address of the result in rdi first.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <fcntl.h>
#include <gelf.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "core/argspec.h"
#include "core/util.h"
#include "recorder/argdwarf.h"
#include "recorder/urec_int.h"

/* The DIE's attribute, following abstract_origin / specification. */
static const char *attr_str(Dwarf_Die *d, unsigned int name)
{
	Dwarf_Attribute a;

	return dwarf_attr_integrate(d, name, &a) ? dwarf_formstring(&a) : NULL;
}

/* The type of d with typedefs and qualifiers peeled; 0 when void. */
static int type_of(Dwarf_Die *d, Dwarf_Die *out)
{
	Dwarf_Attribute a;
	Dwarf_Die cur = *d;

	if (!dwarf_attr_integrate(&cur, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
		return 0;
	for (int n = 0; n < 16; n++) {
		int tag = dwarf_tag(out);

		if (tag != DW_TAG_typedef && tag != DW_TAG_const_type &&
		    tag != DW_TAG_volatile_type && tag != DW_TAG_restrict_type &&
		    tag != DW_TAG_atomic_type)
			return 1;
		cur = *out;
		if (!dwarf_attr_integrate(&cur, DW_AT_type, &a) || !dwarf_formref_die(&a, out))
			return 0; /* const void */
	}
	return 0;
}

static unsigned int encoding(Dwarf_Die *t)
{
	Dwarf_Attribute a;
	Dwarf_Word w = 0;

	if (dwarf_attr(t, DW_AT_encoding, &a))
		dwarf_formudata(&a, &w);
	return (unsigned int)w;
}

/* Register class of a small aggregate: 1 integer, 2 SSE (all float), 0 mixed / unknown. */
static int agg_class(Dwarf_Die *t, int depth)
{
	Dwarf_Die m, ty;
	int cls = -1;

	if (depth > 4 || dwarf_child(t, &m) != 0)
		return depth ? 1 : 1; /* no members: nothing in SSE */
	do {
		int c;

		if (dwarf_tag(&m) != DW_TAG_member)
			continue;
		if (!type_of(&m, &ty))
			return 0;
		switch (dwarf_tag(&ty)) {
		case DW_TAG_base_type:
			c = encoding(&ty) == DW_ATE_float ? 2 : 1;
			break;
		case DW_TAG_structure_type:
		case DW_TAG_union_type:
		case DW_TAG_class_type:
			c = agg_class(&ty, depth + 1);
			break;
		case DW_TAG_array_type:
			return 0;
		default:
			c = 1;
		}
		if (!c || (cls >= 0 && cls != c))
			return 0;
		cls = c;
	} while (dwarf_siblingof(&m, &m) == 0);
	return cls < 0 ? 1 : cls;
}

/*
 * One parameter or return type as a spec format: "/i32", "/s"...  *cls:
 * 1 integer register, 2 vector register, 3 memory, 0 stop here.  *nregs:
 * registers taken.  enum_out: "#enum" line to emit (may stay empty).
 */
static void type_fmt(Dwarf_Die *d, int is_ret, char *fmt, size_t len, int *cls, int *nregs,
		     char *enum_out, size_t elen)
{
	Dwarf_Die t, p;
	int size;

	*cls = 1;
	*nregs = 1;
	enum_out[0] = 0;
	if (!type_of(d, &t)) {
		snprintf(fmt, len, "x64"); /* no type: a register's bits */
		return;
	}
	size = dwarf_bytesize(&t);
	switch (dwarf_tag(&t)) {
	case DW_TAG_base_type: {
		unsigned int e = encoding(&t);

		if (e == DW_ATE_float) {
			if (size == 4 || size == 8) {
				*cls = 2;
				snprintf(fmt, len, "f%d", size * 8);
			} else {
				*cls = 3; /* long double: memory */
				snprintf(fmt, len, "{%d}", size > 0 ? size : 16);
			}
			return;
		}
		if (e == DW_ATE_boolean) {
			snprintf(fmt, len, "b");
			return;
		}
		/* plain char is a character; signed/unsigned char (int8_t...) numbers */
		if ((e == DW_ATE_signed_char || e == DW_ATE_unsigned_char) && size == 1 &&
		    dwarf_diename(&t) && !strcmp(dwarf_diename(&t), "char")) {
			snprintf(fmt, len, "c");
			return;
		}
		if (size != 1 && size != 2 && size != 4 && size != 8) {
			*cls = size > 16 ? 3 : 0; /* __int128: two registers, not handled */
			snprintf(fmt, len, "{%d}", size > 0 ? size : 16);
			return;
		}
		snprintf(fmt, len, "%c%d",
			 e == DW_ATE_signed || e == DW_ATE_signed_char ? 'i' : 'u', size * 8);
		return;
	}
	case DW_TAG_pointer_type:
		if (type_of(&t, &p) && dwarf_tag(&p) == DW_TAG_base_type &&
		    dwarf_bytesize(&p) == 1 &&
		    (encoding(&p) == DW_ATE_signed_char || encoding(&p) == DW_ATE_unsigned_char)) {
			snprintf(fmt, len, "s");
			return;
		}
		snprintf(fmt, len, "p");
		return;
	case DW_TAG_reference_type:
	case DW_TAG_rvalue_reference_type:
	case DW_TAG_ptr_to_member_type:
		snprintf(fmt, len, "p");
		return;
	case DW_TAG_enumeration_type: {
		const char *name = dwarf_diename(&t);
		char ename[FT_ARG_NAME_MAX];
		Dwarf_Die c;
		size_t n;

		if (size != 4) {
			snprintf(fmt, len, "%c%d", 'i', size > 0 && size <= 8 ? size * 8 : 32);
			return;
		}
		snprintf(ename, sizeof(ename), "%s", name ? name : "");
		if (!ename[0])
			snprintf(ename, sizeof(ename), "enum%llx",
				 (unsigned long long)dwarf_dieoffset(&t));
		snprintf(fmt, len, "e:%s", ename);
		n = (size_t)snprintf(enum_out, elen, "#enum %s ", ename);
		if (dwarf_child(&t, &c) == 0) {
			do {
				Dwarf_Attribute a;
				Dwarf_Sword v = 0;
				const char *en = dwarf_diename(&c);

				if (dwarf_tag(&c) != DW_TAG_enumerator || !en ||
				    !dwarf_attr(&c, DW_AT_const_value, &a) ||
				    dwarf_formsdata(&a, &v))
					continue;
				if (n + strlen(en) + 24 >= elen)
					break;
				n += (size_t)snprintf(enum_out + n, elen - n, "%s%lld=%s",
						      enum_out[n - 1] == ' ' ? "" : ",",
						      (long long)v, en);
			} while (dwarf_siblingof(&c, &c) == 0);
		}
		return;
	}
	case DW_TAG_structure_type:
	case DW_TAG_union_type:
	case DW_TAG_class_type:
	case DW_TAG_array_type:
		if (size <= 0 || size > 16 || is_ret) {
			*cls = size > 16 ? 3 : size <= 0 ? 0 : 1;
			snprintf(fmt, len, "{%d}", size > 0 ? size : 0);
			return;
		}
		*cls = agg_class(&t, 0);
		*nregs = (size + 7) / 8;
		snprintf(fmt, len, "{%d}", size);
		return;
	default:
		*cls = 0;
		return;
	}
}

/* Append ITEM to the line. */
static void put(char *line, size_t len, size_t *n, int *items, const char *s)
{
	if (*n < len)
		*n += (size_t)snprintf(line + *n, len - *n, "%s%s", *items ? "," : "", s);
	(*items)++;
}

/* Identifier-safe copy of a name (for NAME=). */
static void ident(char *dst, size_t len, const char *s)
{
	size_t k = 0;

	for (; s && *s && k + 1 < len; s++)
		if ((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') || *s == '_' ||
		    (k && *s >= '0' && *s <= '9'))
			dst[k++] = *s;
	dst[k] = 0;
}

struct gen {
	int what;
	struct ft_strv *out;
	struct ft_strv enums;
	int nr;
};

static void enum_line(struct gen *g, const char *line)
{
	if (!line[0])
		return;
	for (size_t i = 0; i < g->enums.n; i++)
		if (!strcmp(g->enums.v[i], line))
			return;
	ft_strv_push(&g->enums, line);
}

static void subprogram(struct gen *g, Dwarf_Die *fn)
{
	const char *name = attr_str(fn, DW_AT_linkage_name);
	char line[1024], fmt[48], item[128], pname[FT_ARG_NAME_MAX], en[512];
	int items = 0, ireg = 0, freg = 0, cls, nregs;
	size_t n;
	Dwarf_Die c, rt;

	if (!name)
		name = attr_str(fn, DW_AT_MIPS_linkage_name);
	if (!name)
		name = attr_str(fn, DW_AT_name);
	if (!name || !*name || strpbrk(name, "@,\n*?[") || dwarf_hasattr(fn, DW_AT_declaration))
		return;
	if (!dwarf_hasattr(fn, DW_AT_low_pc) && !dwarf_hasattr(fn, DW_AT_ranges))
		return; /* no code of its own here (inline-only, or declared) */
	n = (size_t)snprintf(line, sizeof(line), "%s@", name);
	/* a struct returned in memory: its address comes first, in rdi */
	if (type_of(fn, &rt) && dwarf_bytesize(&rt) > 16 &&
	    (dwarf_tag(&rt) == DW_TAG_structure_type || dwarf_tag(&rt) == DW_TAG_union_type ||
	     dwarf_tag(&rt) == DW_TAG_class_type))
		ireg = 1;
	if ((g->what & FT_ARGDWARF_ARGS) && dwarf_child(fn, &c) == 0) {
		do {
			if (dwarf_tag(&c) != DW_TAG_formal_parameter)
				continue;
			ident(pname, sizeof(pname), attr_str(&c, DW_AT_name));
			type_fmt(&c, 0, fmt, sizeof(fmt), &cls, &nregs, en, sizeof(en));
			if (!cls)
				break; /* cannot place it, nor what follows */
			if (cls == 3) {
				snprintf(item, sizeof(item), "%s%sstruct/%s", pname,
					 pname[0] ? "=" : "", fmt);
			} else if (cls == 1) {
				if (ireg + nregs > 6)
					break;
				snprintf(item, sizeof(item), "%s%sarg%d/%s", pname,
					 pname[0] ? "=" : "", ireg + 1, fmt);
				ireg += nregs;
			} else {
				if (freg + nregs > 8)
					break;
				snprintf(item, sizeof(item), "%s%sfparg%d/%s", pname,
					 pname[0] ? "=" : "", freg + 1, fmt);
				freg += nregs;
			}
			if (items >= FT_ARG_MAX)
				break;
			enum_line(g, en);
			put(line, sizeof(line), &n, &items, item);
		} while (dwarf_siblingof(&c, &c) == 0);
	}
	if ((g->what & FT_ARGDWARF_RET) && type_of(fn, &rt)) {
		type_fmt(fn, 1, fmt, sizeof(fmt), &cls, &nregs, en, sizeof(en));
		if (cls) {
			snprintf(item, sizeof(item), "retval/%s", fmt);
			enum_line(g, en);
			put(line, sizeof(line), &n, &items, item);
		}
	}
	if (!items || n >= sizeof(line))
		return;
	ft_strv_push(g->out, line);
	g->nr++;
}

/* Subprograms at CU level and inside namespaces. */
static void walk(struct gen *g, Dwarf_Die *parent, int depth)
{
	Dwarf_Die c;

	if (depth > 8 || dwarf_child(parent, &c) != 0)
		return;
	do {
		switch (dwarf_tag(&c)) {
		case DW_TAG_subprogram:
			subprogram(g, &c);
			break;
		case DW_TAG_namespace:
			walk(g, &c, depth + 1);
			break;
		default:
			break;
		}
	} while (dwarf_siblingof(&c, &c) == 0);
}

/* Every function of the object at path that has DWARF. */
static void read_object(struct gen *g, int fd)
{
	Dwarf_Off off = 0, next;
	size_t hsize;
	Dwarf *dw = dwarf_begin(fd, DWARF_C_READ);

	if (!dw)
		return; /* no DWARF (or not ELF: a script) */
	while (dwarf_nextcu(dw, off, &next, &hsize, NULL, NULL, NULL) == 0) {
		Dwarf_Die cu;

		if (dwarf_offdie(dw, off + hsize, &cu))
			walk(g, &cu, 0);
		off = next;
	}
	dwarf_end(dw);
}

/* Try dir/name (dir may start with $ORIGIN): read its DWARF when it exists. */
static int try_lib(struct gen *g, const char *dir, size_t dlen, const char *origin,
		   const char *name)
{
	char p[8192 + 64];
	int fd;

	if (dlen > 4096 || strlen(name) > 4096)
		return 0;
	if (dlen >= 7 && !strncmp(dir, "$ORIGIN", 7))
		snprintf(p, sizeof(p), "%.4096s%.*s/%s", origin, (int)(dlen - 7), dir + 7, name);
	else
		snprintf(p, sizeof(p), "%.*s/%s", (int)dlen, dir, name);
	fd = open(p, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	read_object(g, fd);
	close(fd);
	return 1;
}

/*
 * The program's own libraries (DT_NEEDED found through its DT_RUNPATH /
 * DT_RPATH or LD_LIBRARY_PATH: the ones built with it, which may have
 * DWARF); the system's directories are left out -- their objects carry
 * no DWARF, and libc's calls have their prototypes (ft_argdwarf_libc()).
 */
static void read_needed(struct gen *g, int fd, const char *path)
{
	char tmp[4096], origin[4096];
	const char *runpath = NULL, *ldp = getenv("LD_LIBRARY_PATH");
	Elf_Scn *scn = NULL;
	Elf *e;

	snprintf(tmp, sizeof(tmp), "%s", path);
	snprintf(origin, sizeof(origin), "%s", dirname(tmp));
	elf_version(EV_CURRENT);
	e = elf_begin(fd, ELF_C_READ, NULL);
	if (!e)
		return;
	while ((scn = elf_nextscn(e, scn))) {
		GElf_Shdr sh;
		Elf_Data *d;

		if (!gelf_getshdr(scn, &sh) || sh.sh_type != SHT_DYNAMIC)
			continue;
		d = elf_getdata(scn, NULL);
		for (int pass = 0; d && pass < 2; pass++) {
			for (size_t i = 0; i < sh.sh_size / (sh.sh_entsize ? sh.sh_entsize : 16);
			     i++) {
				GElf_Dyn dyn;
				const char *s;

				if (!gelf_getdyn(d, (int)i, &dyn))
					break;
				if (pass == 0 && (dyn.d_tag == DT_RUNPATH || dyn.d_tag == DT_RPATH))
					runpath = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
				if (pass == 0 || dyn.d_tag != DT_NEEDED)
					continue;
				s = elf_strptr(e, sh.sh_link, dyn.d_un.d_val);
				if (!s || strchr(s, '/'))
					continue;
				for (int k = 0; k < 2; k++) {
					const char *list = k ? ldp : runpath;
					int found = 0;

					for (const char *q = list; q && *q && !found;) {
						const char *c = strchr(q, ':');
						size_t l = c ? (size_t)(c - q) : strlen(q);

						if (l)
							found = try_lib(g, q, l, origin, s);
						q = c ? c + 1 : q + l;
					}
					if (found)
						break;
				}
			}
		}
	}
	elf_end(e);
}

int ft_argdwarf_specs(const char *prog, int what, struct ft_strv *out, char *err, size_t errlen)
{
	char path[4096];
	struct gen g = { what, out, { NULL, 0 }, 0 };
	int fd;

	if (urec_find_program(prog, path, sizeof(path), err, errlen) < 0)
		return -1;
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "%s: cannot open: %m", path);
		return -1;
	}
	/* libraries first: the program's own lines come later and win */
	read_needed(&g, fd, path);
	read_object(&g, fd);
	close(fd);
	/* enum names before the lines that use them (readers take them in order) */
	for (size_t i = 0; i < g.enums.n; i++) {
		ft_strv_push(out, g.enums.v[i]);
		free(g.enums.v[i]);
	}
	free(g.enums.v);
	return g.nr;
}

/* Standard prototypes, uftrace's auto-args idea: the calls a program makes into libc. */
static const struct {
	const char *name, *args, *ret;
} libc_protos[] = {
	{ "open", "path=arg1/s,flags=arg2/x32,mode=arg3/x32", "i32" },
	{ "open64", "path=arg1/s,flags=arg2/x32,mode=arg3/x32", "i32" },
	{ "openat", "dirfd=arg1/i32,path=arg2/s,flags=arg3/x32,mode=arg4/x32", "i32" },
	{ "close", "fd=arg1/i32", "i32" },
	{ "read", "fd=arg1/i32,buf=arg2/p,count=arg3/u64", "i64" },
	{ "write", "fd=arg1/i32,buf=arg2/p,count=arg3/u64", "i64" },
	{ "pread", "fd=arg1/i32,buf=arg2/p,count=arg3/u64,offset=arg4/i64", "i64" },
	{ "pwrite", "fd=arg1/i32,buf=arg2/p,count=arg3/u64,offset=arg4/i64", "i64" },
	{ "lseek", "fd=arg1/i32,offset=arg2/i64,whence=arg3/i32", "i64" },
	{ "malloc", "size=arg1/u64", "p" },
	{ "calloc", "nmemb=arg1/u64,size=arg2/u64", "p" },
	{ "realloc", "ptr=arg1/p,size=arg2/u64", "p" },
	{ "free", "ptr=arg1/p", NULL },
	{ "strlen", "s=arg1/s", "u64" },
	{ "strcmp", "s1=arg1/s,s2=arg2/s", "i32" },
	{ "strncmp", "s1=arg1/s,s2=arg2/s,n=arg3/u64", "i32" },
	{ "strcpy", "dest=arg1/p,src=arg2/s", "p" },
	{ "strncpy", "dest=arg1/p,src=arg2/s,n=arg3/u64", "p" },
	{ "strdup", "s=arg1/s", "p" },
	{ "strchr", "s=arg1/s,c=arg2/c", "p" },
	{ "strstr", "haystack=arg1/s,needle=arg2/s", "p" },
	{ "memcpy", "dest=arg1/p,src=arg2/p,n=arg3/u64", "p" },
	{ "memmove", "dest=arg1/p,src=arg2/p,n=arg3/u64", "p" },
	{ "memset", "s=arg1/p,c=arg2/i32,n=arg3/u64", "p" },
	{ "memcmp", "s1=arg1/p,s2=arg2/p,n=arg3/u64", "i32" },
	{ "puts", "s=arg1/s", "i32" },
	{ "printf", "fmt=arg1/s", "i32" },
	{ "fopen", "path=arg1/s,mode=arg2/s", "p" },
	{ "fclose", "stream=arg1/p", "i32" },
	{ "fputs", "s=arg1/s,stream=arg2/p", "i32" },
	{ "getenv", "name=arg1/s", "s" },
	{ "atoi", "nptr=arg1/s", "i32" },
	{ "strtol", "nptr=arg1/s,endptr=arg2/p,base=arg3/i32", "i64" },
	{ "exit", "status=arg1/i32", NULL },
	{ "usleep", "usec=arg1/u32", "i32" },
	{ "sleep", "seconds=arg1/u32", "u32" },
	{ "qsort", "base=arg1/p,nmemb=arg2/u64,size=arg3/u64,compar=arg4/p", NULL },
	{ "pthread_create", "thread=arg1/p,attr=arg2/p,start=arg3/p,arg=arg4/p", "i32" },
	{ "pthread_join", "thread=arg1/x64,retval=arg2/p", "i32" },
	{ "pthread_mutex_lock", "mutex=arg1/p", "i32" },
	{ "pthread_mutex_unlock", "mutex=arg1/p", "i32" },
	{ "dlopen", "filename=arg1/s,flags=arg2/x32", "p" },
	{ "dlsym", "handle=arg1/p,symbol=arg2/s", "p" },
	{ "fork", NULL, "i32" },
	{ "getpid", NULL, "i32" },
	{ "execve", "path=arg1/s,argv=arg2/p,envp=arg3/p", "i32" },
	{ "execvp", "file=arg1/s,argv=arg2/p", "i32" },
	{ "waitpid", "pid=arg1/i32,wstatus=arg2/p,options=arg3/x32", "i32" },
	{ "kill", "pid=arg1/i32,sig=arg2/i32", "i32" },
	{ "sqrt", "x=fparg1/f64", "f64" },
	{ "cos", "x=fparg1/f64", "f64" },
	{ "sin", "x=fparg1/f64", "f64" },
	{ "pow", "x=fparg1/f64,y=fparg2/f64", "f64" },
};

void ft_argdwarf_libc(int what, struct ft_strv *out)
{
	char line[256];

	for (size_t i = 0; i < sizeof(libc_protos) / sizeof(libc_protos[0]); i++) {
		const char *a = (what & FT_ARGDWARF_ARGS) ? libc_protos[i].args : NULL;
		const char *r = (what & FT_ARGDWARF_RET) ? libc_protos[i].ret : NULL;

		if (!a && !r)
			continue;
		snprintf(line, sizeof(line), "%s@%s%s%s%s", libc_protos[i].name, a ? a : "",
			 a && r ? "," : "", r ? "retval/" : "", r ? r : "");
		ft_strv_push(out, line);
	}
}
