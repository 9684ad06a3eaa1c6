# description: handler on a sigaltstack calling traced functions, and leaving through siglongjmp
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build alt gcc -O2 $flags "$P/altstack.c" || fail "build"
	rec t.dat -- ./alt
	grep -q '^5021$' rec.out || fail "$flags: program result $(cat rec.out)"
	# handlers nest in the raise() they interrupted; siglongjmp leaves two
	one='work() { raise() { h() { inh(); inh(); } } }'
	expect_shape "$flags" "$(main_shape t.dat)" \
		"main() { malloc(); sigaltstack(); sigaction(); $one $one deep() { raise() { h() { inh(); inh(); siglongjmp() { } } } } $one printf(); }"
	grep -q 'h (unwound)' show.out || fail "$flags: siglongjmp not shown as unwound"
done
exit 0
