# description: a format checker kept across checks (as the fuzz target keeps it) gives each file the verdicts a checker per check gives: crashing formats left out, too many refused, a checker killed between checks started again
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
KC=$BUILD/tests/tools/kevcheck
[ -x "$KC" ] || fail "no $KC (make all builds it)"
seed=$TOP/tests/fuzz/corpus/kern-sched-nop
div=$TOP/tests/fuzz/corpus/regress-kfmt-divide-by-zero
# good.dat: the seed; bad.dat: sched_switch's format names a field it lacks
# (libtraceevent's parser dies on it); many.dat: that format 41 times
python3 - "$seed" "$TOP/tests/fuzz/shrink.py" <<'PY' || fail "cannot build the files"
import importlib.util, struct, sys
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
    if typ != 8:  # KFORMATS
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
    return b"".join(struct.pack("<I", len(n)) + n + struct.pack("<I", len(x)) + x for n, x in blobs)
write("bad.dat", lambda typ, body: body)
write("many.dat", many)
PY
cp "$div" div.dat
# the verdicts of a checker per check, one process per file
: >fresh.out
for f in many.dat good.dat bad.dat div.dat; do
	"$KC" $f >one.out 2>err || fail "kevcheck $f: $(cat err)"
	grep -qx 'children: 0' one.out || fail "a checker outlived its check: $(cat one.out)"
	grep -v '^children:' one.out >>fresh.out
done
grep -q '^many.dat: error: kernel formats: more than [0-9]* of them crash libtraceevent$' fresh.out ||
	fail "many.dat not refused: $(cat fresh.out)"
grep -q '^good.dat: [1-9][0-9]* events, 0 unknown$' fresh.out || fail "good.dat: $(cat fresh.out)"
grep -q '^bad.dat: [1-9][0-9]* events, [1-9][0-9]* unknown$' fresh.out ||
	fail "bad.dat's crashing format not left out: $(cat fresh.out)"
grep -q '^div.dat: [1-9][0-9]* events, [0-9]* unknown$' fresh.out || fail "div.dat: $(cat fresh.out)"
# the same files in one process with a kept checker: many.dat first (its
# crashing format, once known, is not checked again), each new format set
# after it checked by the same checker
"$KC" -k many.dat good.dat bad.dat div.dat >kept.out 2>err || fail "kevcheck -k: $(cat err)"
grep -v '^children:' kept.out | diff fresh.out - >diff.out || fail "kept checker differs: $(cat diff.out)"
grep -qx 'children: 1' kept.out || fail "the checker was not kept: $(tail -1 kept.out)"
# the kept checker killed after every file: the next check starts a new one
"$KC" -k -x many.dat good.dat bad.dat div.dat >killed.out 2>err || fail "kevcheck -k -x: $(cat err)"
grep -v '^children:' killed.out | diff fresh.out - >diff.out ||
	fail "after the checker was killed: $(cat diff.out)"
exit 0
