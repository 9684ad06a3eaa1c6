# description: longjmp out of traced frames: they are closed as unwound, tracing goes on
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for cc in gcc clang; do
	for flags in "-O0 -pg -mfentry" "-O2 -fpatchable-function-entry=5" "-O2 -finstrument-functions" "-O2 -pg"; do
		build lj $cc $flags "$P/longjmp.c" || continue
		rec t.dat -- ./lj
		got=$(main_shape t.dat)
		expect_shape "$cc $flags" "$got" \
			'main() { jumper() { deep1() { deep2() { deep3() { longjmp() { } } } } after(); } after(); printf(); }'
		grep -q 'unwound' show.out || fail "$cc $flags: no unwound marker"
	done
done
expect_built 8
exit 0
