/* SPDX-License-Identifier: GPL-2.0 */
/*
 * C++ names in uftrace's simple form ("std::map::operator[]": no template
 * arguments, parameters, return type or ABI tags), for the tool's output
 * and for matching the runtime's function filters against what the user
 * sees.  The demangler is libiberty's callback interface (the one of
 * binutils and gdb, Debian libiberty-dev): it allocates nothing, so the
 * runtime may call it from a hook, even in a signal handler.
 */
#ifndef FTRAIL_DEMANGLE_H
#define FTRAIL_DEMANGLE_H

#include <stddef.h>

/*
 * ft_demangle_simple() - the simple form of an Itanium ABI ("_Z") name
 * Return: 0 with the name in buf, or -1 (not a C++ name, does not
 * demangle, or longer than len - 1 or FT_DEMANGLE_MAX: buf is then "").
 */
#define FT_DEMANGLE_MAX 2048
int ft_demangle_simple(const char *mangled, char *buf, size_t len);

/*
 * ft_demangle_simplify() - a demangled name's simple form, in place
 * @name: as a demangler writes it, with or without parameters
 *
 * Drops template argument lists, the parameter list and what follows it
 * (cv- and ref-qualifiers), a return type before the name, and ABI tags
 * ("[abi:cxx11]").  Operator names are kept whole ("operator<<",
 * "operator()", "operator< <int>" becomes "operator<"), and so are the
 * demangler's groups: "{lambda(int)#1}", "(anonymous namespace)".
 */
void ft_demangle_simplify(char *name);

#endif
