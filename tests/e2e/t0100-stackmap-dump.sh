# description: stackmap dump: FSMB v2 files of a kernel in both byte orders, symbolised with kallsyms, --top, --format json
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
D=$TOP/tests/data/fsmb
for f in kernel-le.bin kernel-be.bin; do
	$FTRAIL stackmap dump "$D/$f" --kallsyms "$D/kallsyms.txt" >out || fail "dump $f"
	diff -u "$D/kernel.expected" out || fail "dump $f --kallsyms: wrong text"
	$FTRAIL stackmap dump "$D/$f" >out || fail "dump $f (raw)"
	diff -u "$D/kernel-raw.expected" out || fail "dump $f: wrong raw text"
	$FTRAIL stackmap dump "$D/$f" --top 2 --kallsyms "$D/kallsyms.txt" >out || fail "dump --top"
	diff -u "$D/kernel-top2.expected" out || fail "dump $f --top 2: wrong text"
done
# JSON: same stacks, both byte orders give the same document
$FTRAIL stackmap dump "$D/kernel-le.bin" --format json --kallsyms "$D/kallsyms.txt" >le.json || fail "json le"
$FTRAIL stackmap dump "$D/kernel-be.bin" --format json --kallsyms "$D/kallsyms.txt" >be.json || fail "json be"
cmp -s le.json be.json || fail "LE and BE JSON differ"
grep -q '"stack_id": 42, "ref_count": 1337, "depth": 7' le.json || fail "json: stack 42 missing"
grep -q '"schedule+0x48/0xc0"' le.json || fail "json: symbols missing"
if command -v python3 >/dev/null; then
	python3 -c 'import json,sys; d=json.load(open("le.json")); assert len(d)==4 and d[0]["ips"][0]=="0xffffffff81002048", d' ||
		fail "json does not parse"
fi
$FTRAIL stackmap dump "$D/empty.bin" >out || fail "empty map"
[ ! -s out ] || fail "empty map printed something"
$FTRAIL stackmap dump "$D/empty.bin" --format json | grep -qx '\[\]' || fail "empty map json"
exit 0
