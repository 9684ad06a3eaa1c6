# description: stackmap dump refuses truncated, oversized and malformed FSMB files with one line and no crash
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
D=$TOP/tests/data/fsmb
n=0
for f in "$D"/bad-*.bin; do
	expect_fail "ftrail: $f: *" $FTRAIL stackmap dump "$f"
	n=$((n + 1))
done
[ $n -ge 10 ] || fail "only $n hostile samples"
expect_fail "ftrail: *: bad FSMB magic*" $FTRAIL stackmap dump "$D/kallsyms.txt"
# every truncation of a good file is refused, in both byte orders
for f in kernel-le.bin kernel-be.bin; do
	size=$(stat -c %s "$D/$f")
	for ((len = 0; len < size; len += 3)); do
		head -c $len "$D/$f" >cut.bin
		expect_fail "ftrail: cut.bin: *" $FTRAIL stackmap dump cut.bin
	done
done
# larger than any map (2^18 stacks of 64 frames): refused before reading
truncate -s 200M huge.bin
expect_fail "ftrail: huge.bin: * bytes is larger than any stack map*" $FTRAIL stackmap dump huge.bin
expect_fail "ftrail: cannot open nosuch.bin: *" $FTRAIL stackmap dump nosuch.bin
expect_fail "ftrail: .: not a regular file" $FTRAIL stackmap dump .
expect_fail "ftrail: stackmap dump: needs exactly one FILE*" $FTRAIL stackmap dump
expect_fail "ftrail: stackmap: unknown subcommand 'frob'*" $FTRAIL stackmap frob
expect_fail "ftrail: stackmap: which one*" $FTRAIL stackmap
expect_fail "ftrail: stackmap: --top needs a positive number*" $FTRAIL stackmap dump "$D/empty.bin" --top 0
expect_fail "ftrail: stackmap: unknown option '--frob'*" $FTRAIL stackmap dump "$D/empty.bin" --frob
expect_fail "ftrail: cannot open nosuch.txt: *" $FTRAIL stackmap dump "$D/kernel-le.bin" --kallsyms nosuch.txt
expect_fail "ftrail: $D/kernel-le.bin: not an ELF file*" $FTRAIL stackmap dump "$D/kernel-le.bin" --elf "$D/kernel-le.bin"
exit 0
