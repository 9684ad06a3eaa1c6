# description: user events of libraries dlopen()ed, dlclose()d and reopened at the same address: every event recorded, triggers never write into a closed library
# requires:
. "$TOP/tests/e2e/lib.sh"
# liba and libb define lib:work (n=1 who=one, n=2 who=two); libnone has no
# events and lands where they were.  After each library is closed the
# program emits ctl:go, whose enable_event trigger sets the enabled byte of
# every lib:work descriptor known -- never one of a closed library.
cc -O2 -fPIC -shared -I"$TOP/include" -DN=1 '-DWHO="one"' -o liba.so "$TOP/tests/progs/dl_evlib.c" ||
	fail "build liba"
cc -O2 -fPIC -shared -I"$TOP/include" -DN=2 '-DWHO="two"' -o libb.so "$TOP/tests/progs/dl_evlib.c" ||
	fail "build libb"
cc -O2 -fPIC -shared -o libnone.so "$TOP/tests/progs/dl_lib.c" || fail "build libnone"
cc -O2 -I"$TOP/include" -o evm "$TOP/tests/progs/dl_evmain.c" -ldl || fail "build main"
./evm ./liba.so ./libb.so ./liba.so >/dev/null || fail "runs without ftrail"
want="work: n=1 who=one|go: n=1|go: n=2|work: n=2 who=two|go: n=3|work: n=1 who=one|go: n=4|work: n=2 who=two|go: n=5|"
for i in 1 2 3; do
	$FTRAIL record -q -p nop -e u:lib:work -e u:ctl:go -R 'enable_event:lib:work' -o t.dat -- \
		./evm ./liba.so ./libnone.so ./libb.so ./liba.so ./libb.so >out 2>err ||
		fail "record: $(cat err)"
	grep -q 'killed by signal' err && fail "$(cat err)"
	grep -qx ok out || fail "program output: $(cat out) $(cat err)"
	got=$($FTRAIL show -i t.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' | tr '\n' '|')
	[ "$got" = "$want" ] || fail "got '$got', expected '$want'"
done
exit 0
