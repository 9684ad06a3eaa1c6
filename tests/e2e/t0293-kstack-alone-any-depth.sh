# description: a kernel or user stack record that joined no event (its event lost, or an interrupt's between them in an old file) prints as the kernel prints it, "<stack trace>" and every frame, whether it holds fewer or more than the format's 8 callers
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
# the kernel seed with one more KDATA section for CPU 0: stack records
# standing alone, 3 and 11 kernel frames (the kernel writes them as long
# as their frames: 40 and 104 bytes, against caller[8] in the format) and
# a user stack of 2 frames, at the time of the seed's first event
python3 - "$TOP/tests/e2e/t0299-kfile.py" "$TOP/tests/fuzz/corpus/kern-offcpu-ustack" <<'PY' >want || fail "cannot build the file"
import struct, sys
exec(open(sys.argv[1]).read())
head, secs = read_sections(sys.argv[2])
out, syms, t0 = bytearray(head), [], None
for typ, fl, sid, body in secs:
    if typ == 5:  # KALLSYMS: text symbols to name the frames
        for l in body.decode().splitlines():
            a, k, name = l.split()[:3]
            if k in "tT" and name.isidentifier() and int(a, 16) >= 0xffffffff80000000:
                syms.append((int(a, 16), name))
    if typ == 9 and sid == 0 and t0 is None:  # KDATA: KREC_TIME first
        t0 = struct.unpack_from("<Q", body, 1)[0]
for typ, fl, sid, body in secs:
    if typ == 0:  # END: the new section goes before it
        syms = sorted(set(syms))[100:]
        ks = [a + 1 for a, _ in syms[:11]]
        common = struct.pack("<HBBi", 4, 0, 0, 1)
        k3 = common + struct.pack("<iI", 3, 0) + struct.pack("<3Q", *ks[:3])
        k11 = common + struct.pack("<iI", 11, 0) + struct.pack("<11Q", *ks)
        u2 = struct.pack("<HBBi", 13, 0, 0, 1) + struct.pack("<II", 1, 0) + \
            struct.pack("<8Q", 0x401010, 0x401020, 0, 0, 0, 0, 0, 0)
        out += section(out, 9, 0, 0, kdata(t0, [(t0, k3), (t0, k11), (t0, u2)]))
        for a, n in syms[:11]:
            print(n)
    out += section(out, typ, fl, sid, body)
open("alone.dat", "wb").write(out)
PY
$FTRAIL show -i alone.dat >show.txt 2>err || fail "show: $(cat err)"
grep -q 'UNKNOWN EVENT' show.txt && fail "a stack record shown as unknown: $(grep 'UNKNOWN EVENT' show.txt)"
# each stack: its line, then its frames, named, innermost first
python3 - <<'PY' || fail "stacks standing alone are not printed whole: $(grep -A 12 'stack trace>' show.txt | head -n 40)"
import re
# (the seed is a function_graph trace: kernel records are comments there)
lines = [re.sub(r" \*/$", "", l) for l in open("show.txt").read().splitlines()]
want = open("want").read().split()
heads = [i for i, l in enumerate(lines) if l.endswith("<stack trace>")]
assert len(heads) >= 2, heads
got = []
for i in heads:
    fr = []
    for l in lines[i + 1:]:
        if not l.startswith(" => "): break
        fr.append(l[4:].split("+")[0])
    got.append(fr)
assert want[:3] in got and want in got, (got, want)
u = [i for i, l in enumerate(lines) if l.endswith("<user stack trace>")]
assert len(u) == 1 and lines[u[0] + 1:u[0] + 3] == [" =>  <0000000000401010>", " =>  <0000000000401020>"] \
    and not any(l.startswith(" => ") for l in lines[u[0] + 3:u[0] + 4]), lines[u[0]:u[0] + 4]
PY
exit 0
