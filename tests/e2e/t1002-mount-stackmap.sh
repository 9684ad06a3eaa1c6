# description: mount: stack_map, stack_map_stat and stack_map_bin of a running program, with the stack map selftest's checks (entries, no drops, reset refused while tracing, reset clears when stopped) and modes 0640/0440
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
start_rec m -p function -l alpha
expect_eq "stack_map mode" "$(stat -c %a m/stack_map)" 640
expect_eq "stack_map_stat mode" "$(stat -c %a m/stack_map_stat)" 440
expect_eq "stack_map_bin mode" "$(stat -c %a m/stack_map_bin)" 440
stat_of() { sed -n "s/^$1: *\([0-9]*\).*/\1/p" m/stack_map_stat; }
expect_eq "entries before stacktrace" "$(stat_of entries)" 0
# stacks from now on: alpha is called from run and from gamma_
echo 1 >m/options/stacktrace
expect_eq options/stacktrace "$(cat m/options/stacktrace)" 1
grep -qx stacktrace m/trace_options || fail "stacktrace not in trace_options"
for i in $(seq 100); do
	[ "$(stat_of successes)" -ge 50 ] && break
	sleep 0.1
done
entries=$(stat_of entries)
[ "$entries" -ge 2 ] || fail "stack map has $entries entries after tracing with stacktrace: $(cat m/stack_map_stat)"
[ "$(stat_of successes)" -ge 50 ] || fail "too few successes: $(cat m/stack_map_stat)"
expect_eq drops "$(stat_of drops)" 0
grep -q '^success_rate: 100%$' m/stack_map_stat || fail "success_rate: $(cat m/stack_map_stat)"
# the text listing: "stack_id N [ref R, depth D]" then "  [i] sym+0xoff/0xsize"
cat m/stack_map >sm.txt
grep -qE '^stack_id [0-9]+ \[ref [0-9]+, depth [0-9]+\]$' sm.txt || fail "stack_map: $(head sm.txt)"
grep -qE '^  \[0\] alpha\+0x0/0x[0-9a-f]+$' sm.txt || fail "no stack starts at alpha: $(head sm.txt)"
grep -qE '^  \[1\] gamma_\+0x[0-9a-f]+/0x[0-9a-f]+$' sm.txt || fail "no alpha <- gamma_ stack: $(cat sm.txt)"
grep -qE '^  \[[0-9]\] main\+0x[0-9a-f]+/0x[0-9a-f]+$' sm.txt || fail "no main frame: $(cat sm.txt)"
# the binary export: FSMB v2, read back by ftrail's reader
cp m/stack_map_bin sm.bin
expect_eq "FSMB magic and version" "$(od -A n -t x4 -N 8 sm.bin | tr -s ' ')" " 464d5342 00000002"
$FTRAIL stackmap dump sm.bin >dump.txt || fail "stackmap dump of stack_map_bin"
[ "$(grep -c '^stack_id' dump.txt)" -ge "$entries" ] || fail "dump has fewer stacks than entries: $(cat dump.txt)"
# reset: refused while tracing (EBUSY, error_log says why), clears when stopped
write_fails "Device or resource busy" m/stack_map 0
grep -q 'stack_map: error: tracing is on' m/error_log || fail "error_log: $(cat m/error_log)"
[ "$(stat_of entries)" -ge 2 ] || fail "a refused reset cleared the map"
echo 0 >m/tracing_on
echo 0 >m/stack_map || fail "reset refused with tracing off"
expect_eq "entries after reset" "$(stat_of entries)" 0
expect_eq "stack_map after reset" "$(grep -c '^stack_id' m/stack_map)" 0
echo 1 >m/tracing_on
echo reset >m/tracing_on 2>/dev/null && fail "tracing_on took 'reset'"
echo 0 >m/tracing_on
echo reset >m/stack_map || fail "'reset' refused"
stop_rec
exit 0
