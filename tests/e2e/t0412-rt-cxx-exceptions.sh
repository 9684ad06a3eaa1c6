# description: C++ exceptions through hijacked frames (throw, catch two levels up, rethrow); program behaviour unchanged
# requires: g++
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
n=0
for cc in g++ clang++; do
	command -v $cc >/dev/null 2>&1 || continue
	for flags in "-O0 -pg -mfentry" "-O2 -pg -mfentry" "-O2 -fpatchable-function-entry=5" "-O2 -finstrument-functions" "-O2 -pg"; do
		build exc $cc $flags "$P/exc.cc" || continue
		rec t.dat -- ./exc
		grep -q '^1$' rec.out || fail "$cc $flags: program result: $(cat rec.out)"
		[ "$(calls t.dat catcher)" = 2 ] || fail "$cc $flags: catcher $(calls t.dat catcher)"
		[ "$(calls t.dat after)" = 2 ] || fail "$cc $flags: after"
		[ "$(calls t.dat thrower)" = 2 ] || fail "$cc $flags: thrower"
		# the second catcher (no throw) is complete and ends before main
		got=$(shape t.dat)
		case $got in
		*"catcher() { rethrower() { middle() { thrower(); } } } after(); printf(); }") ;;
		*) fail "$cc $flags: shape '$got'" ;;
		esac
		n=$((n + 1))
	done
done
[ $n -ge 4 ] || fail "only $n builds"
expect_built 10
exit 0
