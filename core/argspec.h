/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Argument and return-value capture specs, shared by the tool (record's -A,
 * --retval and -O funcgraph-args; the readers, which name what was
 * captured), and the injected runtime (which captures what a spec asks).
 *
 * A spec line, one per -A / --retval, or generated from DWARF:
 *
 *   GLOB@ITEM[,ITEM...]
 *   ITEM  := [NAME=]LOC[/FMT]
 *   LOC   := argN (N = 1..6: rdi rsi rdx rcx r8 r9)
 *          | fpargN (N = 1..8: xmm0..xmm7)
 *          | retval (rax, or xmm0 with a float format)
 *          | struct (a parameter passed in memory: FMT must be {SIZE})
 *   FMT   := i8 i16 i32 i64 i  (signed; i = i64)     u8 .. u64 u
 *          | x8 .. x64 x (hex)  p (pointer)  c (char)  b (bool)
 *          | s  s:CAP  (C string, at most CAP bytes, 1..1024, default 64)
 *          | f32 f64 f  (float, double; the default of fparg)
 *          | e:ENUM  (an integer printed by the enumerator's name)
 *          | {SIZE}  (a struct passed by value: printed {...} with its size)
 *
 * Lines starting with '#' are not specs: "#enum NAME V=NAME,..." names an
 * enum's values for readers; "#quiet" and "#warn" tell the runtime whether
 * the lines that follow are worth a warning when they match no function
 * (generated ones are not).  Lines starting with '%' are --filter's
 * "FUNC: EXPR".
 *
 * The default format of argN and retval is i64.  -A lines name arguments
 * only, --retval lines retval only; generated lines may mix them.  Which
 * lines apply to a function: the last matching line that names arguments
 * gives its arguments, the last matching line that names a return value
 * gives its return value (so -A lines, written after generated ones, win).
 *
 * What the runtime writes (core/record.h FT_EXT_ARGS after an ENTRY,
 * FT_EXT_RETVAL after an EXIT): a sequence of items, each one head word
 * (ft_arg_head()) then its data, padded to 4 bytes:
 *   integers, chars, bools, enums: the low 1/2/4/8 bytes (the format's width)
 *   floats: 4 or 8 bytes;  {SIZE}: a u32 size
 *   strings: the bytes read (no NUL), FT_ARGH_TRUNC when CAP cut it; when
 *     the pointer could not be read (NULL, unmapped): FT_ARGH_BAD and the
 *     pointer's 8 bytes.
 */
#ifndef FTRAIL_ARGSPEC_H
#define FTRAIL_ARGSPEC_H

#include <stddef.h>
#include <stdint.h>

enum ft_arg_fmt {
	FT_AF_NONE = 0,
	FT_AF_I8,
	FT_AF_I16,
	FT_AF_I32,
	FT_AF_I64,
	FT_AF_U8,
	FT_AF_U16,
	FT_AF_U32,
	FT_AF_U64,
	FT_AF_X8,
	FT_AF_X16,
	FT_AF_X32,
	FT_AF_X64,
	FT_AF_PTR,
	FT_AF_CHAR,
	FT_AF_BOOL,
	FT_AF_STR,
	FT_AF_F32,
	FT_AF_F64,
	FT_AF_ENUM,
	FT_AF_STRUCT,
	FT_AF_NR
};

enum ft_arg_loc {
	FT_AL_INT = 0,	 /* integer argument register idx (0..5) */
	FT_AL_FP = 1,	 /* vector argument register idx (0..7) */
	FT_AL_RET = 2,	 /* the return value (rax, xmm0 for floats) */
	FT_AL_STACK = 3, /* passed in memory: not captured ({SIZE}) */
};

#define FT_ARG_MAX 8	      /* items of one line */
#define FT_ARG_NAME_MAX 32    /* bytes of an item's name or enum name, NUL included */
#define FT_ARG_STR_DEFAULT 64 /* bytes of a string when no CAP is given */
#define FT_ARG_STR_MAX 1024

struct ft_arg_item {
	uint8_t fmt; /* enum ft_arg_fmt */
	uint8_t loc; /* enum ft_arg_loc */
	uint8_t idx; /* register index within loc */
	uint8_t pad;
	uint32_t size;		     /* FT_AF_STR: cap; FT_AF_STRUCT: bytes */
	char name[FT_ARG_NAME_MAX];  /* "" when not named */
	char ename[FT_ARG_NAME_MAX]; /* FT_AF_ENUM: the enum's name */
};

struct ft_arg_spec {
	const char *glob; /* into the parsed text (not NUL-terminated) */
	size_t glob_len;
	uint8_t nargs; /* items that are arguments */
	uint8_t has_ret;
	struct ft_arg_item args[FT_ARG_MAX];
	struct ft_arg_item ret;
};

/* which items ft_argspec_parse() accepts */
#define FT_ARGSPEC_ARGS 1
#define FT_ARGSPEC_RET 2
#define FT_ARGSPEC_ANY (FT_ARGSPEC_ARGS | FT_ARGSPEC_RET)

/**
 * ft_argspec_parse() - parse one spec line
 * @s: the text (up to len bytes or a NUL; a trailing '\n' ends it too)
 * @len: bytes of s at most
 * @which: FT_ARGSPEC_* items allowed (-A: ARGS, --retval: RET)
 * @out: the spec; glob points into s
 * @errpos: on error, the 0-based byte offset of the offending text
 * @err: on error, a reason (no position), NUL-terminated
 *
 * Either side (no allocation, no system call).  Return: 0, or -1.
 */
int ft_argspec_parse(const char *s, size_t len, int which, struct ft_arg_spec *out, size_t *errpos,
		     char *err, size_t errlen);

/* Bytes of data an integer-like format records (0 for STR, STRUCT). */
unsigned int ft_arg_fmt_width(unsigned int fmt);

/* Name of a format as written in a spec ("i32", "s", ...), or "?" */
const char *ft_arg_fmt_name(unsigned int fmt);

/* Record item head: see the top of the file. */
#define FT_ARGH_BAD 0x4000u   /* string pointer not readable: data is the pointer */
#define FT_ARGH_TRUNC 0x8000u /* string cut at its cap */
static inline uint32_t ft_arg_head(unsigned int fmt, unsigned int loc, unsigned int idx,
				   unsigned int flags, unsigned int nbytes)
{
	return (fmt & 0xffu) | (idx & 15u) << 8 | (loc & 3u) << 12 | flags | nbytes << 16;
}
static inline unsigned int ft_argh_fmt(uint32_t h)
{
	return h & 0xffu;
}
static inline unsigned int ft_argh_idx(uint32_t h)
{
	return (h >> 8) & 15u;
}
static inline unsigned int ft_argh_loc(uint32_t h)
{
	return (h >> 12) & 3u;
}
static inline unsigned int ft_argh_len(uint32_t h)
{
	return h >> 16;
}

#endif
