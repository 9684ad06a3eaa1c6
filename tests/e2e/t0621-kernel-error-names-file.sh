# description: a corrupt compressed kernel section (formats, events, stack map) gives one error line that names the file once, from every reader
# requires: python3 zstd
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
need_cmd zstd
# the kernel seed with its kernel sections zstd-compressed, as the recorder
# writes them, then one byte of each compressed payload flipped in turn
python3 - "$TOP/tests/fuzz/corpus/kern-offcpu-ustack" <<'PY' || fail "cannot build the corrupt files"
import struct, subprocess, sys, zlib
# section header (core/tracefile.h): type, flags, id, disk_size, raw_size,
# crc of the payload, crc of the file offset and the 36 bytes before it
SEC = struct.Struct("<IIQQQ")
HDR = SEC.size + 8
def section(out, typ, fl, sid, body, raw):
    h = SEC.pack(typ, fl, sid, len(body), raw) + struct.pack("<I", zlib.crc32(body))
    return h + struct.pack("<I", zlib.crc32(h, zlib.crc32(struct.pack("<Q", len(out))))) + body
d = open(sys.argv[1], "rb").read()
off = struct.unpack_from("<I", d, 12)[0]
out, secs = bytearray(d[:off]), []
while off + HDR <= len(d):
    typ, fl, sid, disk, raw = SEC.unpack_from(d, off)
    body = d[off + HDR:off + HDR + disk]
    off += HDR + disk
    if typ in (6, 8, 9) and fl == 0 and disk > 64:  # STACKMAP, KFORMATS, KDATA
        z = subprocess.run(["zstd", "-q", "-c"], input=body, capture_output=True, check=True).stdout
        secs.append((len(out), typ))
        out += section(out, typ, 1, sid, z, len(body))
    else:
        out += section(out, typ, fl, sid, body, raw)
open("z.dat", "wb").write(out)
assert {t for _, t in secs} >= {8, 9}, secs
# flip a byte in the middle of each compressed payload, with the checksums
# made to match, so the damage reaches the decompressor and its error path
for i, (at, typ) in enumerate(secs):
    c = bytearray(out)
    typ, fl, sid, disk, raw = SEC.unpack_from(c, at)
    c[at + HDR + disk // 2] ^= 0x5a
    body = bytes(c[at + HDR:at + HDR + disk])
    struct.pack_into("<I", c, at + SEC.size, zlib.crc32(body))
    struct.pack_into("<I", c, at + SEC.size + 4,
                     zlib.crc32(bytes(c[at:at + SEC.size + 4]), zlib.crc32(struct.pack("<Q", at))))
    open("c%d.dat" % i, "wb").write(c)
PY
$FTRAIL show -i z.dat >/dev/null 2>err || fail "the compressed seed does not read: $(cat err)"
n=0
for f in c*.dat; do
	for cmd in show report stacks offcpu "flame --stacks" "latency --from sched:sched_switch --to sched:sched_wakeup"; do
		$FTRAIL $cmd -i $f >/dev/null 2>err && continue
		[ "$(wc -l <err)" = 1 ] || fail "$cmd -i $f: not one line: $(cat err)"
		[ "$(grep -o "$f" err | wc -l)" = 1 ] || fail "$cmd -i $f: the file is not named once: $(cat err)"
		n=$((n + 1))
	done
done
[ $n -gt 0 ] || fail "no reader failed on the corrupt files"
exit 0
