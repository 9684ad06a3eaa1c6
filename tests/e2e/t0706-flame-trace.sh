# description: flame from trace files: --graph (function_graph self time per stack, threads, lost-event resync), --stacks (recorded stacks), --offcpu without kernel events, bad files
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
for s in graph threads lost func badmagic; do mktrace $s $s.dat; done

# self times: main 200us holds foo 14us (bar 1.382us) and baz 0.5us
$FTRAIL flame -i graph.dat --format folded >graph.folded 2>err || fail "flame --format folded: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
cat >want <<'TXT'
main 185500
main;baz 500
main;foo 12618
main;foo;bar 1382
TXT
diff -u want graph.folded || fail "graph folded differs"
cp graph.dat ftrail.dat
$FTRAIL flame --graph --format folded | cmp -s - want || fail "flame without -i does not read ./ftrail.dat"

# the picture: weights shown as times
$FTRAIL flame -i graph.dat -o graph.svg || fail "flame svg"
grep -q 'data-unit="ns"' graph.svg || fail "unit is not ns"
grep -q '<title>foo&#10;\|<title>foo' graph.svg || fail "no foo frame"
python3 - <<'PY' || fail "graph.svg titles"
import xml.dom.minidom as m
d = m.parse("graph.svg")
t = {g.getElementsByTagName("title")[0].firstChild.data for g in d.getElementsByTagName("g")
     if "f" in g.getAttribute("class").split()}
for want in ["all\n(200.000 us, 100.00%)", "foo\n(14.000 us, 7.00%)", "bar\n(1.382 us, 0.69%)",
             "baz\n(500 ns, 0.25%)"]:
    assert want in t, (want, sorted(t))
PY

# threads (and a signal handler nested in foo) fold per stack
$FTRAIL flame -i threads.dat --format folded >threads.folded || fail "threads"
printf 'main 4000\nmain;foo 900\nmain;foo;handler 100\nworker 3000\n' | diff -u - threads.folded ||
	fail "threads folded differs"

# lost events: calls cut by the loss end where the reader resynchronised
$FTRAIL flame -i lost.dat --format folded >lost.folded 2>err || fail "lost"
grep -q "warning: 9 events were lost while recording" err || fail "no lost warning: $(cat err)"
awk '{ s += $NF } END { exit !(s == 20000) }' lost.folded || fail "lost total: $(cat lost.folded)"

# recorded stacks, counted
$FTRAIL flame -i func.dat --stacks --format folded >stacks.folded || fail "--stacks"
[ "$(awk '{ s += $NF } END { print s }' stacks.folded)" -ge 1 ] || fail "no stacks counted"
# the same stacks and counts as `ftrail stacks` (folded per unique stack there too)
$FTRAIL stacks -i func.dat >stacks.txt || fail "stacks"
all=$(sed -n 's/^[0-9]* unique stacks, \([0-9]*\) stacks in all$/\1/p' stacks.txt)
[ "$all" = "$(awk '{ s += $NF } END { print s }' stacks.folded)" ] ||
	fail "flame --stacks counted $(awk '{ s += $NF } END { print s }' stacks.folded), stacks $all"
$FTRAIL stacks -i func.dat --format folded | sort >stacks.sf || fail "stacks --format folded"
sort stacks.folded | cmp -s - stacks.sf || fail "flame --stacks --format folded differs from stacks --format folded"
$FTRAIL flame -i func.dat --stacks -o stacks.html || fail "--stacks html"
grep -q '<!DOCTYPE html>' stacks.html || fail "no html"

expect_fail "ftrail: func.dat: no function_graph calls to draw*" $FTRAIL flame -i func.dat
expect_fail "ftrail: graph.dat: no stacks recorded*" $FTRAIL flame -i graph.dat --stacks
expect_fail "ftrail: graph.dat*" $FTRAIL flame -i graph.dat --offcpu
expect_fail "ftrail: *badmagic.dat*" $FTRAIL flame -i badmagic.dat
expect_fail "ftrail: *missing.dat*" $FTRAIL flame -i missing.dat
expect_fail "ftrail: flame: --stacks does not apply to --from-folded input" $FTRAIL flame --stacks --from-folded graph.folded
$FTRAIL flame -i badmagic.dat -o out.svg 2>/dev/null
[ -e out.svg ] && fail "a failed flame left out.svg"
exit 0
