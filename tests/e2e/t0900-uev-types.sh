# description: user events of every field type and trace_marker round-trip to the exact printed text; markers record without -e (gcc/clang/g++, -O0/-O2, PIE/no-PIE, -pg)
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cat >want <<'TXT'
ints: a8=0 a16=0 a32=0 a64=0 b8=0 b16=0 b32=0 b64=0
ints: a8=255 a16=65535 a32=4294967295 a64=18446744073709551615 b8=127 b16=32767 b32=2147483647 b64=9223372036854775807
ints: a8=1 a16=2 a32=3 a64=4 b8=-128 b16=-32768 b32=-2147483648 b64=-9223372036854775808
misc: p=0x1234abcd s=hello, world tag=00017f80feff blob=00ff10 tail=7
misc: p=0x0 s= tag=00017f80feff blob= tail=8
misc: p=0xffffffffffffffff s=(null) tag=00017f80feff blob=00 tail=9
misc: p=0x1 s=LONG tag=00017f80feff blob=0001 tail=10
one: x=42
tracing_mark_write: marker 1: text
raw_data: 01 02 03
TXT
# the long string is cut to FTRAIL_MAX_DYN - 1 = 1023 bytes
long=$(printf 'y%.0s' $(seq 1023))
sed -i "s/s=LONG/s=$long/" want
n=0
for cc in gcc clang; do
	command -v $cc >/dev/null || continue
	for fl in "-O0" "-O2" "-O2 -no-pie" "-O1 -pg"; do
		n=$((n + 1))
		$cc $fl -Wall -Wextra -Werror -I"$TOP/include" -o ev_types "$TOP/tests/progs/ev_types.c" ||
			fail "$cc $fl: build"
		./ev_types || fail "$cc $fl: runs without ftrail"
		$FTRAIL record -q -p nop -e u:all -o t.dat -- ./ev_types 2>err || fail "$cc $fl: record: $(cat err)"
		$FTRAIL show -i t.dat >out || fail "$cc $fl: show"
		# the event text after the context columns; the exit record is not ours
		sed -n 's/^.*\] *[0-9.]*: //p' out | grep -v '^sched_process_exit' >got
		diff -u want got || fail "$cc $fl: printed events differ"
	done
done
[ $n -gt 0 ] || fail "no compiler"
# the header is usable from C++ too
if command -v g++ >/dev/null; then
	g++ -O2 -Wall -Wextra -Werror -x c++ -I"$TOP/include" -o ev_types_cxx "$TOP/tests/progs/ev_types.c" ||
		fail "g++: build"
	$FTRAIL record -q -p nop -e u:all -o t.dat -- ./ev_types_cxx 2>err || fail "g++: record: $(cat err)"
	$FTRAIL show -i t.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' >got
	diff -u want got || fail "g++: printed events differ"
fi
# only the selected events: u:evt:ints, then the subsystem u:other
$FTRAIL record -q -p nop -e u:evt:ints -e u:other -o t.dat -- ./ev_types 2>err || fail "record subset"
$FTRAIL show -i t.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' | cut -d: -f1 | tr '\n' ' ' >got
[ "$(cat got)" = "ints ints ints one tracing_mark_write raw_data " ] || fail "selection: $(cat got)"
# no -e at all: the markers still record (on whenever the program is traced,
# as ftrace's trace_marker is), the events do not
$FTRAIL record -q -p function -o t.dat -- ./ev_types 2>err || fail "record without -e: $(cat err)"
$FTRAIL show -i t.dat | grep -v ' <-' | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' | cut -d: -f1 | tr '\n' ' ' >got
[ "$(cat got)" = "tracing_mark_write raw_data " ] || fail "without -e: $(cat got)"
exit 0
