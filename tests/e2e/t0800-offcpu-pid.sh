# description: offcpu --record -p PID: off-CPU time per stack from sched_switch + userstacktrace (frame pointers), direct samples over the threshold
# requires: root tracefs cc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/e2e/t0849-offcpu-check.inc"
need_tracefs
need_cmd cc
cc -O0 -g -fno-omit-frame-pointer -pthread -o blocks "$TOP/tests/progs/offcpu_blocks.c" || fail "cannot build offcpu_blocks"

# The program waits for ./go so that recording is on before it blocks.
./blocks --go go --long 200 --short 10 --count 5 >truth &
prog=$!
$FTRAIL offcpu --record --threshold 50 -P $prog -o off.dat >report 2>rec.err &
rec=$!
for _ in $(seq 200); do
	grep -q 'Ctrl-C' rec.err 2>/dev/null && break
	kill -0 $rec 2>/dev/null || break
	sleep 0.05
done
touch go
wait $prog || fail "offcpu_blocks failed"
wait $rec || fail "offcpu --record -p failed: $(cat rec.err)"
cat rec.err
grep -q 'trace written to off.dat' rec.err || fail "no trace written"
head -n 5 report
grep -q '^# ftrail offcpu: threshold 50.000 ms' report || fail "report header"
grep -q ' 0 unpaired switches' report || fail "switches lost: $(grep unpaired report)"

$FTRAIL offcpu -i off.dat --threshold 50 --format folded >folded || fail "--format folded"
$FTRAIL offcpu -i off.dat --threshold 50 --format samples >samples || fail "--samples"
# the old spellings print the same, with one deprecation line each
$FTRAIL offcpu -i off.dat --threshold 50 --folded >folded.old 2>old.err || fail "--folded"
cmp -s folded folded.old || fail "--folded differs from --format folded"
grep -qx 'ftrail: warning: offcpu: --folded is deprecated, use --format folded' old.err || fail "--folded: $(cat old.err)"
$FTRAIL offcpu -i off.dat --threshold 50 --samples >samples.old 2>old.err || fail "--samples"
cmp -s samples samples.old || fail "--samples differs from --format samples"
grep -qx 'ftrail: warning: offcpu: --samples is deprecated, use --format samples' old.err || fail "--samples: $(cat old.err)"
# BCC offcputime's folded convention: comm;user frames;-;kernel frames value
grep -q '^blocks;.*;offcpu_sleep_long;.*;-;.*schedule.* [0-9]*$' folded || fail "folded shape"
# The frame-pointer walk of the kernel's userstacktrace cannot cross glibc's
# pthread_cond_wait (glibc is built without frame pointers): the condition
# variable is checked by thread and period only here, by stack in t0801.
offcpu_check truth folded samples 50 "sleep mutex pipe"
# the threshold moves intervals between direct samples and aggregates, never the totals
tot() { awk '/^# off-CPU/ {print $3}' "$1"; }
$FTRAIL offcpu -i off.dat --threshold 1000 >r1000 || fail "--threshold 1000"
$FTRAIL offcpu -i off.dat --threshold 0 >r0 || fail "--threshold 0"
[ "$(tot r1000)" = "$(tot report)" ] && [ "$(tot r0)" = "$(tot report)" ] ||
	fail "totals differ with the threshold: $(tot r0) $(tot report) $(tot r1000)"
grep -q ' 0 direct samples' r1000 || fail "threshold 1000 ms: direct samples"
grep -q ' 0 aggregated' r0 || fail "threshold 0: aggregates"
exit 0
