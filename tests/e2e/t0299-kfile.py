# Helpers of the cases that build trace files by hand (t0293, t0294), not a
# case itself (the harness runs only t*.sh): their Python exec()s this file.
# The layout is core/tracefile.h's (sections) and core/kdata.h's (KDATA).
import struct
import zlib

# section header: type, flags, id, disk_size, raw_size, then the CRC of the
# payload and the CRC of the file offset and the 36 bytes before it
SEC = struct.Struct("<IIQQQ")
HDR = SEC.size + 8


def read_sections(path):
    """The file's header bytes and its sections as (type, flags, id, body)."""
    d = open(path, "rb").read()
    off = struct.unpack_from("<I", d, 12)[0]
    head, secs = d[:off], []
    while off + HDR <= len(d):
        typ, fl, sid, disk, raw = SEC.unpack_from(d, off)
        secs.append((typ, fl, sid, d[off + HDR:off + HDR + disk]))
        off += HDR + disk
    return head, secs


def section(out, typ, fl, sid, body):
    """A raw (uncompressed) section to append at the end of out."""
    h = SEC.pack(typ, fl, sid, len(body), len(body)) + struct.pack("<I", zlib.crc32(body))
    return h + struct.pack("<I", zlib.crc32(h, zlib.crc32(struct.pack("<Q", len(out))))) + body


def uv(v):
    """An unsigned LEB128 varint."""
    b = bytearray()
    while v >= 0x80:
        b.append(v & 0x7f | 0x80)
        v >>= 7
    return bytes(b + bytes([v]))


def kdata(t0, evs):
    """A KDATA chunk: KREC_TIME t0, then a KREC_EVENT per (ticks, raw) of evs."""
    b, last = b"\x01" + struct.pack("<Q", t0), t0
    for t, r in evs:
        b += b"\x02" + uv(t - last) + uv(len(r)) + r
        last = t
    return b
