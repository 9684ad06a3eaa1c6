# description: mount: echo 0/1/2 > snapshot follows ftrace's snapshot table on the running program, and every snapshot lands in the trace file in order
# requires: root fuse gcc
# asan: no
. "$TOP/tests/e2e/t1019-mount.inc"
build_loop
start_rec m -p function -l alpha
# snap N REGEX WHAT: echo N into the snapshot file, whose header must then
# match REGEX; then give the program time to make more calls
snap() {
	echo "$1" >m/snapshot || fail "$3: echo $1"
	grep -q "$2" m/snapshot || fail "$3: $(cat m/snapshot)"
	sleep 0.3
}
grep -qx '# \*\*\* SNAPSHOT NOT ALLOCATED \*\*\*' m/snapshot || fail "start: $(cat m/snapshot)"
# not allocated: 0 and 2 do nothing
echo 0 >m/snapshot || fail "0 unallocated"
snap 2 'NOT ALLOCATED' "0 and 2 must not allocate the snapshot"
snap 1 '^# snapshot allocated: 1 taken' "1 must allocate and take one"
snap 2 '^# snapshot allocated' "2 (clear) must keep the buffer"
snap 1 '^# snapshot allocated: 2 taken' "1 must take a second"
snap 0 'NOT ALLOCATED' "0 must free"
write_fails "Invalid argument" m/snapshot "x"
stop_rec
# the file: taken, cleared, taken, freed
for n in 1 2 3 4; do
	$FTRAIL show -i t.dat --snapshot=$n >s$n || fail "show --snapshot=$n"
done
grep -q 'alpha <-' s1 || fail "snapshot 1 has no alpha calls: $(head s1)"
grep -q '^# \* Snapshot is allocated \*$' s2 || fail "snapshot 2 (cleared): $(head -5 s2)"
grep -q 'alpha <-' s3 || fail "snapshot 3 has no alpha calls: $(head s3)"
grep -q '^# \* Snapshot is freed \*$' s4 || fail "snapshot 4 (freed): $(head -5 s4)"
expect_fail "ftrail: show: t.dat holds no snapshot 5" $FTRAIL show -i t.dat --snapshot=5
exit 0
