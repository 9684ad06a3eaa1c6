# description: record with the runtime: calls made before SIGSEGV / abort / SIGKILL / exit are all in the trace, and record says how the program ended
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O0 -pg -o crash "$TOP/tests/progs/rec_crash.c" || fail "cc"
for how in segv:139 abort:134 kill:137 exit5:5; do
	rc=${how#*:} how=${how%:*}
	expect_status "$rc" $FTRAIL record -o c.dat -- ./crash 300 $how 2>err
	case $how in
	segv) grep -qx "ftrail: warning: ./crash was killed by signal 11 (Segmentation fault); events written before it are in c.dat" err || fail "segv line: $(cat err)" ;;
	abort) grep -q "^ftrail: warning: ./crash was killed by signal 6 (Abort.*); events written before it are in c.dat$" err || fail "abort line: $(cat err)" ;;
	kill) grep -q "^ftrail: warning: ./crash was killed by signal 9 (Killed); events written before it are in c.dat$" err || fail "kill line: $(cat err)" ;;
	exit5) grep -qx "ftrail: warning: ./crash exited with status 5" err || fail "exit line: $(cat err)" ;;
	esac
	grep -q "(0 lost)" err || fail "records lost ($how): $(cat err)"
	$FTRAIL show -i c.dat >out || fail "show ($how)"
	n=$(calls before_crash <out)
	[ "$n" = 300 ] || fail "$how: $n calls of before_crash in the trace, expected 300"
	grep -qE "[|] +die\(\)" out || fail "$how: die() is not in the trace"
done
# the same crash through every kind of hook, with each compiler at hand
ran=0
for compiler in cc clang; do
	command -v $compiler >/dev/null || continue
	for flag in "-pg" "-pg -mfentry" "-finstrument-functions" "-fpatchable-function-entry=5"; do
		[ $compiler = clang ] && [ "$flag" = "-pg -mfentry" ] && continue
		# shellcheck disable=SC2086
		$compiler -O1 $flag -o crash2 "$TOP/tests/progs/rec_crash.c" 2>build.err ||
			fail "build ($compiler $flag): $(head -n 3 build.err)"
		ran=$((ran + 1))
		expect_status 139 $FTRAIL record -o c2.dat -- ./crash2 50 segv 2>err
		grep -q "killed by signal 11" err || fail "$compiler $flag: no crash line: $(cat err)"
		n=$($FTRAIL show -i c2.dat | calls before_crash)
		[ "$n" = 50 ] || fail "$compiler $flag: $n calls of before_crash before SIGSEGV, expected 50"
	done
done
[ "$ran" -ge 4 ] || fail "only $ran hook kinds were tried, expected at least the 4 of cc"
exit 0
