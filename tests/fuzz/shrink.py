#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Turn a recorded trace file into a small fuzz seed.

    tests/fuzz/shrink.py IN OUT [NAMES]

Every section is written back uncompressed (so that mutations reach the
decoders instead of failing in zstd), and the two big tables are cut down:
KALLSYMS keeps only the lines whose symbol is named in the NAMES file (one
word a line, e.g. the output of `ftrail show --expand-stacks` split into
words) plus the line after each (the reader sizes a symbol by its
successor); each SYMTAB keeps only the symbols named there; the kernel's saved_cmdlines
(in KFORMATS) only the pids named there.  Without NAMES
both tables are kept whole.  Sections of unknown layout are copied as they
are.  Decompression uses the zstd command.
"""
import struct
import subprocess
import sys
import zlib

MAGIC = b"FTRAIL\r\n"
SEC = struct.Struct("<IIQQQII")  # a section header, checksums last (tracefile.h)
KALLSYMS, SYMTAB, KFORMATS = 5, 4, 8


def add_section(out, typ, fl, sid, body):
    """Append a section (uncompressed body) to out with its checksums."""
    h = struct.pack("<IIQQQI", typ, fl, sid, len(body), len(body), zlib.crc32(body))
    out += h + struct.pack("<I", zlib.crc32(h, zlib.crc32(struct.pack("<Q", len(out))))) + body


def sections(data):
    ver, hsize, flags = struct.unpack_from("<IIQ", data, 8)
    off = hsize
    while off + SEC.size <= len(data):
        typ, fl, sid, disk, raw, _crc, _hcrc = SEC.unpack_from(data, off)
        off += SEC.size
        body = data[off:off + disk]
        off += disk
        if fl & 1:
            body = subprocess.run(["zstd", "-d", "-c", "-q"], input=body,
                                  stdout=subprocess.PIPE, check=True).stdout
            fl &= ~1
        yield typ, fl, sid, body
    return


def shrink_kallsyms(body, names):
    lines = body.decode("latin-1").splitlines()
    keep = set()
    for i, line in enumerate(lines):
        w = line.split()
        if len(w) >= 3 and w[2] in names:
            keep.update((i, i + 1))
    return "".join(lines[i] + "\n" for i in sorted(keep) if i < len(lines)).encode("latin-1")


def shrink_symtab(body, names):
    if len(body) < 4:
        return body
    (n,) = struct.unpack_from("<I", body, 0)
    ent = struct.Struct("<QII")
    strtab = body[4 + n * ent.size:]
    out, strs = [], bytearray()
    for i in range(n):
        off, size, noff = ent.unpack_from(body, 4 + i * ent.size)
        end = strtab.find(b"\0", noff)
        name = strtab[noff:end if end >= 0 else len(strtab)]
        if name.decode("latin-1") in names:
            out.append((off, size, len(strs)))
            strs += name + b"\0"
    return struct.pack("<I", len(out)) + b"".join(ent.pack(*e) for e in out) + bytes(strs)


def shrink_kformats(body, names):
    out, o = bytearray(), 0
    while o + 4 <= len(body):
        (nl,) = struct.unpack_from("<I", body, o)
        name = body[o + 4:o + 4 + nl]
        o += 4 + nl
        (dl,) = struct.unpack_from("<I", body, o)
        blob = body[o + 4:o + 4 + dl]
        o += 4 + dl
        if name == b"saved_cmdlines":
            blob = b"".join(l + b"\n" for l in blob.splitlines()
                            if l.split()[:1] and l.split()[0].decode() in names)
        out += struct.pack("<I", len(name)) + name + struct.pack("<I", len(blob)) + blob
    return bytes(out + body[o:])


def main():
    data = open(sys.argv[1], "rb").read()
    assert data[:8] == MAGIC, "not a trace file"
    names = None
    if len(sys.argv) > 3:
        names = set(open(sys.argv[3], encoding="latin-1").read().split())
    ver, hsize, flags = struct.unpack_from("<IIQ", data, 8)
    out = bytearray(data[:hsize])
    for typ, fl, sid, body in sections(data):
        if names is not None and typ == KALLSYMS:
            body = shrink_kallsyms(body, names)
        elif names is not None and typ == KFORMATS:
            body = shrink_kformats(body, names)
        elif names is not None and typ == SYMTAB:
            body = shrink_symtab(body, names)
        add_section(out, typ, fl, sid, body)
    open(sys.argv[2], "wb").write(out)


if __name__ == "__main__":
    main()
