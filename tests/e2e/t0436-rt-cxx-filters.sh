# description: C++ functions are selected by the names show prints: -l, -n, -g, function commands, -A and --filter take "ns::Cls::f" globs ("::" is part of the name, not a command separator), at start and through the mount's set_ftrace_filter
# requires: g++
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build cx g++ -O1 -pg -mfentry "$P/cxx_names.cc" || skip "needs g++ with -pg -mfentry"
# names FILE: "name=calls " for each function show prints, sorted
names() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration | sed -nE 's/.*[ |]([^ |(]+)\(\)( \{|;)$/\1/p' |
		sort | uniq -c | awk '{printf "%s=%s ", $2, $1}'
}

# the calls as traced without a filter: what each filter must keep
rec all.dat -- ./cx
area=$(names all.dat | grep -o 'geo::Box::area=[0-9]*')
scale=$(names all.dat | grep -o 'geo::scale=[0-9]*')
[ -n "$area" ] && [ -n "$scale" ] || fail "unfiltered: $(names all.dat)"
# -l with a qualified name and with a glob over a namespace
rec a.dat -l 'geo::Box::area' -- ./cx
[ "$(names a.dat)" = "$area " ] || fail "-l geo::Box::area: $(names a.dat)"
rec b.dat -l 'geo::*' -- ./cx
[ "$(names b.dat)" = "$area $scale " ] || fail "-l geo::*: $(names b.dat)"
grep -q 'cannot parse\|no function matches' rec.err && fail "warned: $(cat rec.err)"
# -n takes them away again; a mangled glob still works
rec c.dat -l 'geo::*' -n 'geo::scale' -- ./cx
[ "$(names c.dat)" = "$area " ] || fail "-n geo::scale: $(names c.dat)"
rec d.dat -l '_ZN3geo5scale*' -- ./cx
[ "$(names d.dat)" = "$scale " ] || fail "mangled glob: $(names d.dat)"
# -g: the graph below a C++ function
rec e.dat -g 'geo::Box::area' -- ./cx
[ "$(names e.dat)" = "$area " ] || fail "-g: $(names e.dat)"
# a function command after a qualified name: traceoff at the first geo::scale
rec f.dat -l 'geo::Box::area' -l 'geo::scale:traceoff:1' -- ./cx
"$FTRAIL" show -i f.dat -O nofuncgraph-duration >f.show || fail "show f"
grep -q 'tracing_off' f.show || fail "no traceoff: $(cat f.show)"
sed -n '/tracing_off/,$p' f.show | grep -q 'geo::' && fail "traced after traceoff: $(cat f.show)"
# -A and --filter on a qualified name: arguments of the int overload's calls
rec g.dat -l 'geo::scale' -A 'geo::scale@arg1/i32' --filter 'geo::scale: arg1 > 0' -- ./cx
"$FTRAIL" show -i g.dat -O nofuncgraph-duration >g.show || fail "show g"
grep -Eq 'geo::scale\(1\);' g.show || fail "-A geo::scale: $(cat g.show)"
grep -q 'geo::scale(0)' g.show && fail "--filter kept arg1 = 0: $(cat g.show)"
# a name that matches nothing says so, once
rec h.dat -l 'geo::nosuch' -- ./cx
grep -q "no function matches 'geo::nosuch'" rec.err || fail "no warning: $(cat rec.err)"
exit 0
