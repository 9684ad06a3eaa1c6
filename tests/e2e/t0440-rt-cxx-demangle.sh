# description: C++ names print demangled in uftrace's simple form (no template arguments or parameters) in show, report, stacks, flame, export and stackmap; --demangle=full prints both, --demangle=no and --no-demangle keep them as stored
# requires: g++
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build cx g++ -O1 -pg -mfentry "$P/cxx_names.cc" || skip "needs g++ with -pg -mfentry"
rec t.dat -T -O stackmap -- ./cx
grep -qx 24 rec.out || fail "program result: $(cat rec.out)"

# outputs NAME [--no-demangle]: every reader's text for t.dat into NAME.*
outputs() {
	local n=$1
	shift
	"$FTRAIL" show -i t.dat "$@" -O expand-stacks >"$n.show" 2>>err &&
		"$FTRAIL" report -i t.dat "$@" >"$n.report" 2>>err &&
		"$FTRAIL" stacks -i t.dat "$@" >"$n.stacks" 2>>err &&
		"$FTRAIL" flame -i t.dat "$@" --format folded >"$n.flame" 2>>err &&
		"$FTRAIL" export --format chrome -i t.dat "$@" -o "$n.chrome" 2>>err &&
		"$FTRAIL" export --format speedscope -i t.dat "$@" -o "$n.speedscope" 2>>err &&
		"$FTRAIL" stackmap show -i t.dat "$@" >"$n.stackmap" 2>>err ||
		fail "a reader failed: $(cat err)"
}
outputs d
outputs f --demangle=full
outputs m --no-demangle
outputs n --demangle=no
for o in show report stacks flame chrome speedscope stackmap; do
	grep -q 'geo::Box::area' "d.$o" || fail "$o: no simple geo::Box::area: $(head -20 "d.$o")"
	! grep -q 'geo::Box<' "d.$o" || fail "$o: template arguments left: $(grep -m1 'geo::Box<' "d.$o")"
	grep -q 'geo::scale' "d.$o" || fail "$o: no demangled geo::scale"
	! grep -q '_ZN' "d.$o" || fail "$o: a mangled name is left: $(grep -m1 _ZN "d.$o")"
	grep -q 'geo::Box<int>::area(int) const' "f.$o" ||
		fail "$o --demangle=full: no full geo::Box<int>::area(int) const: $(head -20 "f.$o")"
	for m in m n; do
		grep -q '_ZNK3geo3BoxIiE4areaEi' "$m.$o" || fail "$o ($m): no mangled name"
		! grep -q 'geo::' "$m.$o" || fail "$o ($m): demangled anyway"
	done
done
# the function_graph layout reads as for C: "name() {", no parameter list
grep -Eq '[|] +geo::Box::area[(][)]( [{]|;)$' d.show || fail "show layout: $(grep -m2 area d.show)"
# the overloads stay apart in report (one line per function)
[ "$(grep -c ' geo::scale$' d.report)" = 2 ] || fail "report overloads: $(grep scale d.report)"
expect_fail "ftrail: show: --demangle wants simple, full or no, not 'some'" "$FTRAIL" show -i t.dat --demangle=some
exit 0
