/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Symbolisation: ELF symbol tables (libelf), build ids, /proc/kallsyms, and
 * the SYMTAB section payload of tracefile.h, so a trace recorded on one
 * machine is symbolised on another.
 *
 * Module-relative offsets.  A module's symbols are stored as offsets from
 * the address at which its file offset 0 would be mapped ("module base"):
 *
 *   SYMTAB offset = st_value - (p_vaddr - p_offset of its first PT_LOAD)
 *   runtime addr  = (MODULES start - MODULES file offset) + SYMTAB offset
 *
 * so any one mapping line of the object (start, file offset) in MODULES
 * gives the base; ft_symbols_add_module() takes that base.  This holds for
 * PIE, shared objects and fixed-address executables alike.
 *
 * Symbol resolution output follows ftrace's %pS: "name+0xoff/0xsize".
 */
#ifndef FTRAIL_SYMBOLS_H
#define FTRAIL_SYMBOLS_H

#include <stddef.h>
#include <stdint.h>

struct ft_sym {
	uint64_t addr; /* module offset (SYMTAB) or absolute address (kallsyms) */
	uint32_t size; /* 0 when unknown */
	const char *name;
};

/* A sorted table of symbols of one module (or of the kernel). */
struct ft_symtab {
	struct ft_sym *syms; /* sorted by addr */
	size_t nr;
	char *strings; /* owns the names */
	size_t strings_len;
	char **demangled; /* per symbol, filled on first print (see ft_symbols_set_demangle) */
};

void ft_symtab_free(struct ft_symtab *st);

/*
 * Read the function symbols of an ELF file through libelf: .symtab when
 * present, else .dynsym.  Offsets are module-relative as described above.
 * When build_id is not NULL it receives the GNU build id in hex ("" when
 * there is none).  Returns NULL with a one-line reason in err.
 */
struct ft_symtab *ft_symtab_from_elf(const char *path, char *build_id, size_t bidlen, char *err,
				     size_t errlen);

struct Elf; /* libelf's Elf */

/*
 * Open an ELF file for reading through libelf (ELF_C_READ), refusing what
 * is not a regular file (ft_open_regular(): paths may come from hostile
 * trace files).  Returns the handle and its fd in *fdp (release both:
 * elf_end(), close()), or NULL with "PATH: reason", "PATH: not a regular
 * file" or "PATH: not an ELF file" in err.
 */
struct Elf *ft_elf_open(const char *path, int *fdp, char *err, size_t errlen);

/* Just the GNU build id of an ELF file, in hex.  0, or -1 (none/unreadable). */
int ft_elf_build_id(const char *path, char *hex, size_t len);

/*
 * Encode a table into the SYMTAB payload format of tracefile.h:
 *   u32 count, count x { u64 offset; u32 size; u32 name_off }, strings.
 * Returns a malloc'ed buffer, or NULL (ENOMEM).
 */
void *ft_symtab_encode(const struct ft_symtab *st, size_t *len);

/*
 * Decode a SYMTAB payload; validates every count, offset and string (names
 * must be NUL-terminated inside the table).  NULL with reason in err.
 */
struct ft_symtab *ft_symtab_decode(const void *buf, size_t len, char *err, size_t errlen);

/* One /proc/kallsyms line, as ft_kallsyms_line() reads it. */
struct ft_kallsyms_ent {
	uint64_t addr;
	char type;	  /* 't', 'T', 'w' or 'W' */
	const char *name; /* into the line; not NUL-terminated */
	size_t name_len;  /* without the "[module]" column */
};

/**
 * ft_kallsyms_line() - the one kallsyms line parser
 * @line: "addr type name [module]", len bytes, with or without the newline
 *
 * Return: 1 with *e filled for a text symbol (types t T w W) at a non-zero
 * address (what stacks and %ps resolve to), 0 for any other line.
 */
int ft_kallsyms_line(const char *line, size_t len, struct ft_kallsyms_ent *e);

/*
 * Parse /proc/kallsyms text ("addr type name [module]").  Only text symbols
 * (t, T, w, W) are kept; sizes are the distance to the next symbol.  Lines
 * with a zero address (kptr_restrict) are skipped.  NULL with reason in err.
 */
struct ft_symtab *ft_kallsyms_parse(const char *text, size_t len, char *err, size_t errlen);

/* The symbol containing addr (addr within [sym, sym+size) or, when size is 0, the closest below).
 */
const struct ft_sym *ft_symtab_lookup(const struct ft_symtab *st, uint64_t addr);

/*
 * A resolver over several modules (each with a base) and the kernel's
 * table.  Modules may have no table (NULL): addresses in them print as
 * "path+0xoff".
 */
struct ft_symbols;

struct ft_symbols *ft_symbols_new(void);
void ft_symbols_free(struct ft_symbols *s);

/* Add a module covering [start, end) whose base is as above; takes ownership of st. */
int ft_symbols_add_module(struct ft_symbols *s, uint64_t start, uint64_t end, uint64_t base,
			  const char *path, struct ft_symtab *st);
/* The same for the mapping of process pid (0: any process). */
int ft_symbols_add_module_pid(struct ft_symbols *s, uint32_t pid, uint64_t start, uint64_t end,
			      uint64_t base, const char *path, struct ft_symtab *st);

/* Set the kernel's table (absolute addresses); takes ownership. */
void ft_symbols_set_kernel(struct ft_symbols *s, struct ft_symtab *st);

/*
 * Find ip: returns the symbol (or NULL) and its runtime start address in
 * *sym_start; *path receives the module path (or NULL).
 */
const struct ft_sym *ft_symbols_find(const struct ft_symbols *s, uint64_t ip, uint64_t *sym_start,
				     const char **path);

/*
 * Resolve ip into buf: "name+0xoff/0xsize" (with_offset) or "name".
 * Returns 0, or -1 when no symbol covers ip: buf then holds
 * "/path/of/object[+0xoff]" (ftrace's sym-userobj shape) when ip is inside
 * a known module, else "0x<ip>".
 * Compatible with ft_sym_resolve_fn of stackmap.h via ft_symbols_resolve_fn.
 */
int ft_symbols_resolve(const struct ft_symbols *s, uint64_t ip, int with_offset, char *buf,
		       size_t len);

/* How the ft_symbols_resolve*() family prints C++ ("_Z") names: uftrace's --demangle. */
enum ft_demangle {
	FT_DEMANGLE_NO,	    /* as stored (mangled) */
	FT_DEMANGLE_SIMPLE, /* the default (core/demangle.h): "std::map::operator[]" */
	FT_DEMANGLE_FULL,   /* everything: "std::map<int, int, ...>::operator[](int const&)" */
};

/**
 * ft_symbols_set_demangle() - how C++ names are printed
 * @mode: enum ft_demangle.  Names in trace files stay mangled either way.
 *
 * Process-wide: the tool's --demangle.  Not thread-safe with resolving.
 */
void ft_symbols_set_demangle(enum ft_demangle mode);

int ft_symbols_resolve_fn(uint64_t ip, char *buf, size_t len, void *arg);

/*
 * The same, looking first at the modules of process pid, the most recently
 * added first (after an exec, the new program's), then at all modules and
 * the kernel.  pid 0 behaves as ft_symbols_resolve().
 */
int ft_symbols_resolve_pid(const struct ft_symbols *s, uint32_t pid, uint64_t ip, int with_offset,
			   char *buf, size_t len);

/* The same within the module added index-th (0-based) only, then as above. */
int ft_symbols_resolve_module(const struct ft_symbols *s, size_t index, uint64_t ip,
			      int with_offset, char *buf, size_t len);

/*
 * ip as ftrace's sym-userobj prints a user address: "/path/of/object[+0xoff]",
 * the offset from the object's load base (so it reads the same whatever
 * the address-space layout), looking at pid's modules first as
 * ft_symbols_resolve_pid().  Returns 0, or -1 when no module holds ip: buf
 * then holds "0x<ip>".
 */
int ft_symbols_userobj(const struct ft_symbols *s, uint32_t pid, uint64_t ip, char *buf,
		       size_t len);

/* Path of the module added index-th (0-based), or NULL. */
const char *ft_symbols_module_path(const struct ft_symbols *s, size_t index);

#endif
