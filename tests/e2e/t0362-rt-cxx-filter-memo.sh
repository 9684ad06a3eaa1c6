# description: many C++ functions, seven "::" rules in three lists (-l, -n, -A): the selection is right, and each function's name is demangled once per evaluation, not once per rule (counted by its sigaltstack calls)
# requires: g++ strace
# asan: no
# (strace traces the recorder too, and LeakSanitizer cannot run under ptrace)
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd strace
# 200 functions in each of two namespaces, each called once with its number
{
	echo 'namespace geo {'
	for i in $(seq 0 199); do echo "__attribute__((noinline)) int f$i(int x) { return x + $i; }"; done
	echo 'struct Box { int w; __attribute__((noinline)) int area() const { return w * w; } };'
	echo '}'
	echo 'namespace other {'
	for i in $(seq 0 199); do echo "__attribute__((noinline)) int g$i(int x) { return x * $i; }"; done
	echo '}'
	echo 'volatile int sink;'
	echo 'int main() { geo::Box b{3}; sink += b.area();'
	for i in $(seq 0 199); do echo "sink += geo::f$i($i) + other::g$i($i);"; done
	echo 'return 0; }'
} >many.cc
build many g++ -O1 -pg -mfentry many.cc || skip "needs g++ with -pg -mfentry"
# names FILE: the functions show prints, one a line, sorted
names() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration | sed -nE 's/.*[ |]([^ |(]+)\(.*\)( \{|;)$/\1/p' | sort
}
# sigaltstack calls of the traced program (its runtime checks the signal
# stack once before it demangles a name: core/demangle.h needs stack)
altstacks() {
	strace -f -qq -e trace=sigaltstack -o st.txt "$FTRAIL" record -q --no-libcall -o "$1" "${@:2}" -- ./many >/dev/null 2>rec.err ||
		fail "record ${*:2}: $(cat rec.err)"
	grep -c 'sigaltstack(' st.txt
}
one=$(altstacks a.dat -l 'geo::f1*')
seven=$(altstacks b.dat -l 'geo::f1*' -l 'other::g2*' -l 'geo::Box::area' -n 'geo::f1?' -n 'other::g2?' \
	-A 'geo::f100@arg1/i32' -A 'other::g*@arg1/i32')
# geo::f1* minus geo::f1? (f10..f19): f1 and f100..f199; other::g2* minus
# other::g2? (g20..g29): g2; and the member function
{
	echo geo::Box::area
	echo geo::f1
	for i in $(seq 100 199); do echo "geo::f$i"; done
	echo other::g2
} | sort >want
names b.dat >got
diff want got >names.diff || fail "selection with seven rules: $(head -n 20 names.diff)"
[ "$(names a.dat | wc -l)" = 111 ] || fail "-l geo::f1*: $(names a.dat | wc -l) functions"
# the argument specs, by the same names
"$FTRAIL" show -i b.dat -O nofuncgraph-duration >b.show || fail "show"
grep -q 'geo::f100(100);' b.show || fail "-A geo::f100: $(grep -m 2 'geo::f100' b.show)"
grep -q 'other::g2(2);' b.show || fail "-A other::g*: $(grep -m 2 'other::g2' b.show)"
# demangled once per function and evaluation, whatever the number of
# rules: seven rules cost what one does (before: once per rule and function)
[ "$one" -gt 400 ] || fail "one rule: only $one sigaltstack calls (each C++ function's name is demangled)"
[ "$seven" -le $((one + one / 10)) ] || fail "seven rules: $seven sigaltstack calls, one rule: $one"
exit 0
