# description: threads: every thread's calls in its own buffer; pthread_exit from a nested call closes its frames
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-O0 -pg -mfentry" "-O2 -fpatchable-function-entry=5" "-O2 -finstrument-functions" "-O2 -pg"; do
	build th gcc $flags "$P/threads.c" -lpthread || fail "build"
	rec t.dat -- ./th
	grep -q 'done' rec.out || fail "$flags: program output missing: $(cat rec.out)"
	[ "$(calls t.dat worker)" = 4 ] || fail "$flags: worker calls $(calls t.dat worker)"
	[ "$(calls t.dat step)" = 14 ] || fail "$flags: step calls $(calls t.dat step)"
	[ "$(calls t.dat leaf)" = 14 ] || fail "$flags: leaf calls $(calls t.dat leaf)"
	[ "$(calls t.dat quit_here)" = 1 ] || fail "$flags: quit_here calls"
	"$FTRAIL" show -i t.dat >show.out || fail show
	# five threads traced (main + 4), each named in the TASK/PID column
	n=$(grep -v '^#' show.out | sed -n 's/^ *[0-9]*)  *[^ ]*-\([0-9][0-9]*\)  *|.*/\1/p' | sort -u | wc -l)
	[ "$n" = 5 ] || fail "$flags: $n threads in the task column"
done
exit 0
