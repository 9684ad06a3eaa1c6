# Builds the hostile-format files of t0291 and t0730, not a case itself (the
# harness runs only t*.sh):
#
#   python3 t0734-hostile-kfmt.py SEED SHRINK_PY
#
# writes, in the current directory, good.dat (SEED, a kernel recording
# whose sched_switch format has a prev_state field), bad.dat
# (sched_switch's field renamed while its print fmt still reads
# REC->prev_state: libtraceevent 1.7's parser dies on it) and many.dat
# (that bad format 41 times).  The sections are written back with their
# checksums (SHRINK_PY's add_section), so the formats reach libtraceevent
# instead of failing the KFORMATS checksum.
import importlib.util
import struct
import sys

spec = importlib.util.spec_from_file_location("shrink", sys.argv[2])
sh = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sh)
d = open(sys.argv[1], "rb").read()
a = b"field:long prev_state;"
assert d.count(a) == 1, "seed changed: no prev_state field"
open("good.dat", "wb").write(d)


def write(name, fix):
    out = bytearray(d[:24])
    for typ, fl, sid, body in sh.sections(d):
        sh.add_section(out, typ, fl, sid, fix(typ, body.replace(a, b"field:long prev_esatt;")))
    open(name, "wb").write(out)


def many(typ, body):
    if typ != 8:  # KFORMATS: the bad sched_switch format 40 times more
        return body
    blobs, q = [], 0
    while q < len(body):
        (nl,) = struct.unpack_from("<I", body, q)
        name = body[q + 4:q + 4 + nl]
        (dl,) = struct.unpack_from("<I", body, q + 4 + nl)
        blobs.append((name, body[q + 8 + nl:q + 8 + nl + dl]))
        q += 8 + nl + dl
        if name == b"event:sched/sched_switch":
            blobs += [blobs[-1]] * 40
    return b"".join(struct.pack("<I", len(n)) + n + struct.pack("<I", len(x)) + x
                    for n, x in blobs)


write("bad.dat", lambda typ, body: body)
write("many.dat", many)
