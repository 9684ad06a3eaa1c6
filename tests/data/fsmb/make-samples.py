#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0
"""Write the FSMB v2 sample files of this directory (run it from anywhere).

FSMB v2 is seed 003's stack_map_bin: a 16-byte header (magic 0x464D5342,
version 2, nr_stacks, reserved), then per stack a 16-byte header
(stack_id, nr, ref_count, reserved) and nr u64 return addresses, all in the
writer's byte order.  This script is an independent writer (it shares no
code with ftrail), so tests compare ftrail's reader against it:

  kernel-le.bin / kernel-be.bin   the same 4 kernel stacks, both byte orders,
                                  as a patched kernel would write them
  kallsyms.txt                    /proc/kallsyms-format symbols for them
  kernel.expected                 `ftrail stackmap dump --kallsyms` output
  kernel-top2.expected            ... with --top 2
  kernel-raw.expected             ... without symbols
  empty.bin                       a valid map with no stacks
  bad-*.bin                       hostile files: each must be refused
"""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
MAGIC = 0x464D5342

# (name, address, type); sizes are the distance to the next symbol
SYMS = [
    ("_stext", 0xffffffff81000000, "T"),
    ("do_syscall_64", 0xffffffff81001000, "T"),
    ("__x64_sys_read", 0xffffffff81001400, "T"),
    ("ksys_read", 0xffffffff81001480, "T"),
    ("vfs_read", 0xffffffff81001600, "T"),
    ("schedule", 0xffffffff81002000, "T"),
    ("schedule_timeout", 0xffffffff810020c0, "T"),
    ("data_object", 0xffffffff81002100, "D"),  # not text: ignored
    ("entry_SYSCALL_64_after_hwframe", 0xffffffff81002200, "T"),
    ("zz_end", 0xffffffff81003000, "T"),
]

STACKS = [  # (stack_id, ref_count, ips)
    (42, 1337, [0xffffffff81002048, 0xffffffff810020dc, 0xffffffff81001655,
                0xffffffff810014c4, 0xffffffff81001433, 0xffffffff81001080,
                0xffffffff8100227c]),
    (7, 12, [0xffffffff81002010, 0xffffffff81001010]),
    (100, 99999, [0xffffffff81001601]),
    (3000, 5, [0xffffffff81000ff0, 0xdeadbeef]),  # the last one is unknown
]


def fsmb(endian, stacks, nr_stacks=None, version=2, magic=MAGIC):
    out = struct.pack(endian + "IIII", magic, version,
                      len(stacks) if nr_stacks is None else nr_stacks, 0)
    for sid, ref, ips in stacks:
        out += struct.pack(endian + "IIII", sid, len(ips), ref, 0)
        out += struct.pack(endian + "%dQ" % len(ips), *ips)
    return out


def resolve(ip):
    text = sorted((a, n) for n, a, t in SYMS if t in "tTwW")
    for i, (addr, name) in enumerate(text):
        end = text[i + 1][0] if i + 1 < len(text) else None
        if addr <= ip and (end is None or ip < end):
            if end is None:
                return None
            return "%s+0x%x/0x%x" % (name, ip - addr, end - addr)
    return None


def text(stacks, syms):
    out = ""
    for sid, ref, ips in stacks:
        out += "stack_id %d [ref %d, depth %d]\n" % (sid, ref, len(ips))
        for i, ip in enumerate(ips):
            s = resolve(ip) if syms else None
            out += "  [%d] %s\n" % (i, s if s else "0x%x" % ip)
        out += "\n"
    return out


def write(name, data):
    mode = "w" if isinstance(data, str) else "wb"
    with open(os.path.join(HERE, name), mode) as f:
        f.write(data)


def main():
    write("kernel-le.bin", fsmb("<", STACKS))
    write("kernel-be.bin", fsmb(">", STACKS))
    write("kallsyms.txt", "".join("%016x %s %s\n" % (a, t, n) for n, a, t in SYMS))
    # dump prints the stacks in file order (a kernel writes them in id order)
    write("kernel.expected", text(STACKS, True))
    write("kernel-raw.expected", text(STACKS, False))
    top = sorted(STACKS, key=lambda s: (-s[1], s[0]))[:2]
    write("kernel-top2.expected", text(top, True))
    write("empty.bin", fsmb("<", []))

    good = fsmb("<", STACKS)
    write("bad-short-header.bin", good[:10])
    write("bad-magic.bin", fsmb("<", STACKS, magic=0x12345678))
    write("bad-version.bin", fsmb("<", STACKS, version=3))
    write("bad-nr-stacks-huge.bin", fsmb("<", STACKS, nr_stacks=0xffffffff))
    write("bad-nr-stacks-more.bin", fsmb("<", STACKS, nr_stacks=len(STACKS) + 1))
    write("bad-truncated-ips.bin", good[:-4])
    write("bad-truncated-entry.bin", good[:16 + 8])
    write("bad-trailing.bin", good + b"\0")
    write("bad-depth-65.bin", fsmb("<", [(1, 1, list(range(0x1000, 0x1000 + 65)))]))
    hdr = struct.pack("<IIII", MAGIC, 2, 1, 0) + struct.pack("<IIII", 1, 0x40000000, 1, 0)
    write("bad-depth-huge.bin", hdr + b"\0" * 64)
    write("bad-stack-id.bin", fsmb("<", [(0xffffffff, 1, [0x1000])]))
    # big-endian hostile one: announced stacks beyond the data
    write("bad-be-nr-stacks.bin", fsmb(">", STACKS, nr_stacks=1000))


if __name__ == "__main__":
    main()
