# description: every output goes through FILE.partial renamed when complete: the previous trace survives a missing program, a bad event or filter and a SIGKILLed recorder (which leaves FILE.partial), a symlink planted at the target in a sticky world-writable directory is never followed, -o - streams for record, flame and export, a second writer of the same file is refused
# requires: gcc (events and filters: root tracefs)
. "$TOP/tests/e2e/lib.sh"
need_cmd gcc
gcc -O0 -g -pg -mfentry -o steady "$TOP/tests/progs/cut_steady.c" || fail "build cut_steady"
export FTRAIL_LIB=${FTRAIL_LIB:-$BUILD/libftrail.so}

$FTRAIL record -q -o a.dat -- ./steady 100 || fail "first record"
[ "$(stat -c %a a.dat)" = 600 ] || fail "trace mode $(stat -c %a a.dat), want 600"
[ -e a.dat.partial ] && fail "a.dat.partial left after a good run"
cp a.dat orig.dat

# failures before anything is recorded: a.dat as it was, no partial left
expect_fail "ftrail: *nosuchprog*" $FTRAIL record -o a.dat -- ./nosuchprog
cmp -s a.dat orig.dat || fail "a missing program changed a.dat"
[ -e a.dat.partial ] && fail "partial left by a missing program"
if [ "$(id -u)" = 0 ] && [ -e /sys/kernel/tracing/trace ]; then
	$FTRAIL record -o a.dat -e sched:nosuch_event -- ./steady 100 >/dev/null 2>e.txt &&
		fail "an unknown event was accepted"
	cmp -s a.dat orig.dat || fail "an unknown event changed a.dat: $(cat e.txt)"
	$FTRAIL record -o a.dat -e sched:sched_switch -f 'no_such_field ==' -- ./steady 100 \
		>/dev/null 2>e.txt && fail "a bad filter was accepted"
	cmp -s a.dat orig.dat || fail "a bad filter changed a.dat: $(cat e.txt)"
	[ -e a.dat.partial ] && fail "partial left by a bad event or filter"
fi

# a recorder killed mid-run: a.dat intact, what it wrote in a.dat.partial
$FTRAIL record -q -o a.dat -- ./steady 4000 &
rp=$!
for _ in $(seq 100); do [ -s a.dat.partial ] && break; sleep 0.05; done
sleep 1.5
# a second writer of the same file meanwhile: refused, the first untouched
expect_fail "ftrail: another ftrail is writing a.dat*" $FTRAIL record -o a.dat -- ./steady 10
kid=$(pgrep -P $rp)
kill -9 $rp
wait $rp 2>/dev/null
[ -n "$kid" ] && kill $kid 2>/dev/null
cmp -s a.dat orig.dat || fail "a killed recorder changed a.dat"
[ -s a.dat.partial ] || fail "no a.dat.partial after the recorder was killed"
$FTRAIL show -i a.dat.partial >/dev/null 2>e.txt || fail "the partial file does not read: $(cat e.txt)"
grep -q 'cut short' e.txt || fail "the partial file reads without the cut-short warning"
# the next run replaces the stale partial and says so
$FTRAIL record -o a.dat -- ./steady 100 >/dev/null 2>e.txt || fail "record after a kill: $(cat e.txt)"
grep -q '^ftrail: warning: replaced a.dat.partial, the partial trace of an earlier run' e.txt ||
	fail "no warning about the stale partial: $(cat e.txt)"
[ -e a.dat.partial ] && fail "stale partial not replaced"
cmp -s a.dat orig.dat && fail "a good run did not replace a.dat"
cp a.dat orig.dat

# -o -: record streams show's lines (doc/stream.md), no file named '-', a.dat untouched
$FTRAIL record -q -o - -- ./steady 10 >s.out 2>e.txt || fail "record -o -: $(cat e.txt)"
[ -s s.out ] || fail "record -o - printed nothing"
[ -e ./- ] && fail "record -o - created a file named '-'"
cmp -s a.dat orig.dat || fail "record -o - touched a.dat"
$FTRAIL flame -i a.dat -o - >f.out 2>e.txt || fail "flame -o -: $(cat e.txt)"
grep -q '<svg' f.out || fail "flame -o - did not stream the SVG"
$FTRAIL export --format chrome -i a.dat -o - >c.out 2>e.txt || fail "export -o -: $(cat e.txt)"
grep -q 'traceEvents' c.out || fail "export -o - did not stream JSON"
[ -e ./- ] && fail "a file named '-' was created"

# a symbolic link planted at the target in a sticky, world-writable
# directory (another user's link): never followed, its target untouched
mkdir -m 1777 pub
echo "precious" >victim
ln -s "$PWD/victim" pub/ftrail.dat
if [ "$(id -u)" = 0 ] && id nobody >/dev/null 2>&1; then
	chown -h nobody pub/ftrail.dat
fi
expect_fail "ftrail: pub/ftrail.dat is a symbolic link: not following it*" \
	$FTRAIL record -o pub/ftrail.dat -- ./steady 10
for c in "flame -i a.dat -o pub/ftrail.dat" "export --format chrome -i a.dat -o pub/ftrail.dat" \
	"stackmap export -i a.dat -o pub/ftrail.dat"; do
	$FTRAIL $c >/dev/null 2>e.txt && fail "$c wrote through a symlink"
done
[ "$(cat victim)" = precious ] || fail "the symlink's target was overwritten"
[ -L pub/ftrail.dat ] || fail "the planted link was replaced"
ls pub | grep -q partial && fail "a partial file was left in pub/: $(ls pub)"

# flame, export: a failing run leaves the previous output as it was
$FTRAIL flame -i a.dat -o f.svg || fail "flame"
cp f.svg f0.svg
$FTRAIL flame -i nosuch.dat -o f.svg >/dev/null 2>&1 && fail "flame of a missing trace succeeded"
cmp -s f.svg f0.svg || fail "a failing flame changed f.svg"
[ -e f.svg.partial ] && fail "flame left f.svg.partial"
exit 0
