# description: a format checker kept across checks (as the fuzz target keeps it) gives each file the verdicts a checker per check gives: crashing formats left out, too many refused, a checker killed between checks started again
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
KC=$BUILD/tests/tools/kevcheck
[ -x "$KC" ] || fail "no $KC (make all builds it)"
seed=$TOP/tests/fuzz/corpus/kern-sched-nop
div=$TOP/tests/fuzz/corpus/regress-kfmt-divide-by-zero
# good.dat, bad.dat (sched_switch's format kills libtraceevent's parser),
# many.dat (that format 41 times)
python3 "$TOP/tests/e2e/t0734-hostile-kfmt.py" "$seed" "$TOP/tests/fuzz/shrink.py" ||
	fail "cannot build the files"
cp "$div" div.dat
# the verdicts of a checker per check, one process per file
: >fresh.out
for f in many.dat good.dat bad.dat div.dat; do
	"$KC" $f >one.out 2>err || fail "kevcheck $f: $(cat err)"
	grep -qx 'children: 0' one.out || fail "a checker outlived its check: $(cat one.out)"
	grep -v '^children:' one.out >>fresh.out
done
grep -q '^many.dat: error: kernel formats: more than [0-9]* of them crash libtraceevent$' fresh.out ||
	fail "many.dat not refused: $(cat fresh.out)"
grep -q '^good.dat: [1-9][0-9]* events, 0 unknown$' fresh.out || fail "good.dat: $(cat fresh.out)"
grep -q '^bad.dat: [1-9][0-9]* events, [1-9][0-9]* unknown$' fresh.out ||
	fail "bad.dat's crashing format not left out: $(cat fresh.out)"
grep -q '^div.dat: [1-9][0-9]* events, [0-9]* unknown$' fresh.out || fail "div.dat: $(cat fresh.out)"
# the same files in one process with a kept checker: many.dat first (its
# crashing format, once known, is not checked again), each new format set
# after it checked by the same checker
"$KC" -k many.dat good.dat bad.dat div.dat >kept.out 2>err || fail "kevcheck -k: $(cat err)"
grep -v '^children:' kept.out | diff fresh.out - >diff.out || fail "kept checker differs: $(cat diff.out)"
grep -qx 'children: 1' kept.out || fail "the checker was not kept: $(tail -1 kept.out)"
# the kept checker killed after every file: the next check starts a new one
"$KC" -k -x many.dat good.dat bad.dat div.dat >killed.out 2>err || fail "kevcheck -k -x: $(cat err)"
grep -v '^children:' killed.out | diff fresh.out - >diff.out ||
	fail "after the checker was killed: $(cat diff.out)"
exit 0
