/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Escaping strings for the output formats the writers produce (JSON for
 * Chrome and speedscope, XML for SVG and HTML flame graphs).  Names come
 * from traced programs and trace files, so they may hold anything: every
 * function here writes a document that still parses, whatever the input.
 */
#ifndef FTRAIL_ESCAPE_H
#define FTRAIL_ESCAPE_H

#include <stddef.h>
#include <stdio.h>

/*
 * Length of the valid UTF-8 sequence at s, reading at most n bytes (n >= 1):
 * 1 for ASCII, 2 to 4 for a well-formed multi-byte sequence (no overlong
 * 2-byte leads, no leads above U+10FFFF's), 0 when s starts an invalid or
 * cut sequence.
 */
size_t ft_utf8_len(const unsigned char *s, size_t n);

/*
 * Write s (NULL: "") as a JSON string, quotes included, escaping as RFC 8259
 * asks (\" \\ \n \t \r, other control characters and DEL as \u00XX) and
 * turning invalid UTF-8 into U+FFFD.  Errors stay in out's error flag.
 */
void ft_json_str(FILE *out, const char *s);

/*
 * Write len bytes of s escaped for XML text and attribute values (& < > " '
 * as entities); invalid UTF-8 and control characters become '?'.  Errors
 * stay in out's error flag.
 */
void ft_xml_put(FILE *out, const char *s, size_t len);

/* ft_xml_put() of a NUL-terminated string. */
void ft_xml_puts(FILE *out, const char *s);

#endif
