#!/usr/bin/env bash
# description: kernel event readers (show, stacks, latency) on randomly corrupted uncompressed traces: clean error or output, never a crash
# requires: root tracefs python3 zstd
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd python3
need_cmd zstd

: >rec.err
$FTRAIL record -e sched:sched_switch -e sched:sched_wakeup -T -O userstacktrace -a -o k.dat >/dev/null 2>rec.err &
KREC=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
sleep 0.2
kill -INT $KREC; wait $KREC || fail "record failed: $(cat rec.err)"

# the same file with every section stored uncompressed, so that flipped
# bytes reach the decoders instead of failing zstd's checks; reseal.py
# recomputes the section checksums (tracefile.h) after the bytes are
# flipped, so they reach the decoders instead of failing the checksums
cat >reseal.py <<'PY'
import struct, zlib

def section(out, t, fl, i, p, rs):
    h = struct.pack('<IIQQQI', t, fl, i, len(p), rs, zlib.crc32(p))
    hc = zlib.crc32(h, zlib.crc32(struct.pack('<Q', len(out))))
    out += h + struct.pack('<I', hc) + p

def reseal(d):
    d = bytearray(d)
    off = struct.unpack_from('<I', d, 12)[0]
    while 24 <= off and off + 40 <= len(d):
        t, fl, i, ds, rs = struct.unpack_from('<IIQQQ', d, off)
        if ds > len(d) - off - 40:
            break
        p = bytes(d[off + 40: off + 40 + ds])
        struct.pack_into('<I', d, off + 32, zlib.crc32(p))
        struct.pack_into('<I', d, off + 36, zlib.crc32(bytes(d[off:off + 36]), zlib.crc32(struct.pack('<Q', off))))
        off += 40 + ds
    return bytes(d)
PY
cat >raw.py <<'PY'
import struct, subprocess, sys
from reseal import section
d = open(sys.argv[1], 'rb').read()
hsz = struct.unpack_from('<I', d, 12)[0]
out = bytearray(d[:hsz])
off = hsz
while off + 40 <= len(d):
    t, fl, i, ds, rs = struct.unpack_from('<IIQQQ', d, off)
    p = d[off + 40: off + 40 + ds]
    if fl & 1:
        p = subprocess.run(['zstd', '-d', '-c'], input=p, stdout=subprocess.PIPE, check=True).stdout
    section(out, t, fl & ~1, i, p, len(p))
    off += 40 + ds
open(sys.argv[2], 'wb').write(out)
PY
python3 raw.py k.dat raw.dat || fail "cannot rewrite the trace uncompressed"
$FTRAIL show -i raw.dat >a.txt || fail "uncompressed rewrite is not readable"
$FTRAIL show -i k.dat >b.txt || fail "show k.dat"
cmp -s a.txt b.txt || fail "uncompressed rewrite reads differently"

cat >fuzz.py <<'PY'
import random, subprocess, sys
from reseal import reseal
src = open('raw.dat', 'rb').read()
F = sys.argv[1]
random.seed(int(sys.argv[2]))
for n in range(int(sys.argv[3])):
    b = bytearray(src)
    for _ in range(random.randint(1, 6)):
        b[random.randrange(len(b))] = random.randrange(256)
    open('fz.dat', 'wb').write(reseal(b))
    for cmd in (['show', '-i', 'fz.dat', '--expand-stacks'], ['stacks', '-i', 'fz.dat'],
                ['latency', '-i', 'fz.dat', '--from', 'sched:sched_wakeup', '--to', 'sched:sched_switch']):
        r = subprocess.run([F] + cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, timeout=60)
        err = r.stderr.decode(errors='replace')
        if r.returncode not in (0, 1) or 'Sanitizer' in err or 'runtime error' in err:
            open('crash.dat', 'wb').write(b)
            print('FAIL: %s exited %d on corrupt input #%d: %s' % (cmd[0], r.returncode, n, err[-400:]))
            sys.exit(1)
        if r.returncode == 1 and err.count('\n') > 1 + err.count('warning'):
            print('FAIL: %s printed more than one error line: %s' % (cmd[0], err))
            sys.exit(1)
PY
python3 fuzz.py "$FTRAIL" "$RANDOM" 60 || exit 1
exit 0
