# description: signal handlers (and a nested one) traced inside the interrupted function
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build sig gcc -O2 $flags "$P/signals.c" || fail "build"
	rec t.dat -- ./sig
	grep -q '^46$' rec.out || fail "$flags: program result: $(cat rec.out)"
	got=$(main_shape t.dat)
	# each handler nests in the raise() it interrupted
	one='work() { raise() { on_usr1() { in_handler(); raise() { on_usr2() { in_handler(); } } } } }'
	expect_shape "$flags" "$got" "main() { sigaction(); sigaction(); $one $one printf(); }"
done
exit 0
