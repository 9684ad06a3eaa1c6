# description: a stack map that fills: record warns once with the figures and the --stackmap-bits to use; stacks and stackmap stat say it; nothing is lost
# requires: cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build ms gcc -O2 -pg -mfentry "$P/manystacks.c" || fail build
# --no-libcall: the stacks counted below are the program's own
# 2^11 paths: 6144 distinct stacks, more than 2^10; a ring that holds them all
$FTRAIL record -T --no-libcall -b 65536 --stackmap-bits 10 -o t.dat -- ./ms 11 2>rec.err || fail "record: $(cat rec.err)"
grep -q "(0 lost)" rec.err || fail "records lost: $(cat rec.err)"
[ "$(grep -c 'stack map filled' rec.err)" = 1 ] || fail "record should warn once: $(cat rec.err)"
line=$(grep 'stack map filled' rec.err)
[[ $line == "ftrail: warning: the user stack map filled (1024 stacks, --stackmap-bits 10): "*" of "*" stacks ("*"%) were recorded in full instead of by id; record with --stackmap-bits "* ]] ||
	fail "warning: $line"
want=${line##* }
[ "$want" -ge 14 ] && [ "$want" -le 18 ] || fail "suggested bits $want"
$FTRAIL stackmap stat -i t.dat >stat.out 2>stat.err || fail "stat: $(cat stat.err)"
grep -qx 'entries: 1024 / 1024' stat.out || fail "stat: $(cat stat.out)"
grep -q "^ftrail: warning: the user stack map filled .*--stackmap-bits $want\$" stat.err || fail "stat: $(cat stat.err)"
$FTRAIL stacks -i t.dat >stacks.out 2>stacks.err || fail "stacks: $(cat stacks.err)"
grep -q "^ftrail: warning: the user stack map filled .*--stackmap-bits $want\$" stacks.err || fail "stacks: $(cat stacks.err)"
# nothing lost: every distinct stack is there, by id or in full (leaf's 2048 included)
grep -qx '6144 unique stacks, [0-9]* stacks in all' stacks.out || fail "stacks: $(tail -1 stacks.out)"
# the suggested size holds them all: no warning
$FTRAIL record -T --no-libcall -b 65536 --stackmap-bits "$want" -o t2.dat -- ./ms 11 2>rec2.err || fail "record: $(cat rec2.err)"
! grep -q 'stack map filled' rec2.err || fail "still full at $want bits: $(cat rec2.err)"
$FTRAIL stacks -i t2.dat >/dev/null 2>stacks2.err || fail stacks
[ ! -s stacks2.err ] || fail "stacks warned: $(cat stacks2.err)"
exit 0
