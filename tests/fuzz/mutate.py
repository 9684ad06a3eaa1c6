#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""A small deterministic mutator for trace files (radamsa's job, in little).

    tests/fuzz/mutate.py SEED_FILE OUT_PREFIX COUNT [RANDOM_SEED]

Writes COUNT mutants OUT_PREFIX.0 .. OUT_PREFIX.<COUNT-1>.  Each applies one
to four mutations: bit flips, random or "interesting" bytes (0, 0xff, 0x80,
0x7f) and little-endian integers (0, 1, -1, 2^31, 2^32-1, small and huge
sizes) at random offsets or at section-header fields, cuts, duplicated or
deleted ranges, and swapped sections.  The same arguments give the same
files, so a failure reproduces.
"""
import random
import struct
import sys

SEC = struct.Struct("<IIQQQII")  # a section header (tracefile.h), checksums last
INTS = [0, 1, 2, 7, 8, 0x7f, 0x80, 0xff, 0x100, 0xffff, 0x7fffffff, 0x80000000,
        0xffffffff, 0x100000000, 0x7fffffffffffffff, 0xffffffffffffffff]


def section_offsets(d):
    """Offsets of the section headers (the file header is 24 bytes)."""
    offs, off = [], 24
    if d[:8] != b"FTRAIL\r\n" or len(d) < 24:
        return offs
    off = struct.unpack_from("<I", d, 12)[0]
    while off + SEC.size <= len(d) and len(offs) < 4096:
        typ, fl, sid, disk, raw, _crc, _hcrc = SEC.unpack_from(d, off)
        offs.append(off)
        if disk > len(d):
            break
        off += SEC.size + disk
    return offs


def put_int(d, off, width, v):
    v &= (1 << (8 * width)) - 1
    d[off:off + width] = v.to_bytes(width, "little")


def mutate(d, rnd):
    d = bytearray(d)
    for _ in range(rnd.randint(1, 4)):
        if not d:
            d = bytearray(b"FTRAIL\r\n")
        n = len(d)
        op = rnd.randrange(9)
        secs = section_offsets(bytes(d))
        if op == 0:  # flip bits
            for _ in range(rnd.randint(1, 8)):
                i = rnd.randrange(n)
                d[i] ^= 1 << rnd.randrange(8)
        elif op == 1:  # interesting byte
            d[rnd.randrange(n)] = rnd.choice([0, 0xff, 0x80, 0x7f, 0x0a, 0x3b, 0x25])
        elif op == 2:  # interesting integer anywhere
            w = rnd.choice([1, 2, 4, 8])
            if n > w:
                put_int(d, rnd.randrange(n - w), w, rnd.choice(INTS) + rnd.choice([0, 0, 1, -1]))
        elif op == 3 and secs:  # a section header field
            h = rnd.choice(secs)
            field = rnd.choice([(0, 4), (4, 4), (8, 8), (16, 8), (24, 8), (32, 4), (36, 4)])
            put_int(d, h + field[0], field[1], rnd.choice(INTS) + rnd.choice([0, 1, -1]))
        elif op == 4:  # cut short
            del d[rnd.randrange(n):]
        elif op == 5:  # delete a range
            i = rnd.randrange(n)
            del d[i:i + rnd.randint(1, 64)]
        elif op == 6:  # duplicate a range
            i = rnd.randrange(n)
            chunk = d[i:i + rnd.randint(1, 256)]
            j = rnd.randrange(n)
            d[j:j] = chunk
        elif op == 7 and len(secs) > 2:  # swap two sections' payload bytes
            a, b = sorted(rnd.sample(secs, 2))
            la = SEC.size + SEC.unpack_from(d, a)[3]
            lb = SEC.size + SEC.unpack_from(d, b)[3]
            if a + la <= b and b + lb <= n:
                d[a:b + lb] = d[b:b + lb] + d[a + la:b] + d[a:a + la]
        else:  # random bytes
            i = rnd.randrange(n)
            for k in range(rnd.randint(1, 16)):
                if i + k < len(d):
                    d[i + k] = rnd.randrange(256)
    return bytes(d)


def main():
    src, prefix, count = sys.argv[1], sys.argv[2], int(sys.argv[3])
    seed = int(sys.argv[4]) if len(sys.argv) > 4 else 1
    data = open(src, "rb").read()
    rnd = random.Random(f"{seed}:{src}")
    for i in range(count):
        with open(f"{prefix}.{i}", "wb") as f:
            f.write(mutate(data, rnd))


if __name__ == "__main__":
    main()
