# description: info says how a trace was recorded and what it holds: command line, exit status (code and signal), threads with names, counts that agree with show, kernel events, sections; bad input is one line
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
cat >i.c <<'C'
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#define NOINLINE __attribute__((noinline))
volatile int sink;
NOINLINE int leaf(int x) { return x + sink; }
NOINLINE void *worker(void *a)
{
	pthread_setname_np(pthread_self(), "infoworker");
	for (int i = 0; i < 1000; i++)
		sink += leaf(i);
	return a;
}
int main(int argc, char **argv)
{
	pthread_t t[2];

	for (int i = 0; i < 2; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	if (argc > 1 && !strcmp(argv[1], "crash"))
		raise(SIGABRT);
	return argc > 1 ? atoi(argv[1]) : 0;
}
C
build i gcc -O0 -pg -pthread i.c || fail "build"
"$FTRAIL" record -q -o t.dat -- ./i 5 >rec.out 2>err
[ $? = 5 ] || fail "record: exit status not the program's: $(cat err)"
"$FTRAIL" info -i t.dat >info.txt 2>err || fail "info: $(cat err)"
field() { sed -n "s/^# $1 *: //p" info.txt; }
[ "$(field cmdline)" = "ftrail record -q -o t.dat -- ./i 5" ] || fail "cmdline: $(cat info.txt)"
[ "$(field 'exit status')" = "exited with code 5" ] || fail "exit: $(cat info.txt)"
[ "$(field tracer)" = "function_graph" ] || fail "tracer: $(cat info.txt)"
[ "$(field 'number of tasks')" = 3 ] || fail "tasks: $(cat info.txt)"
[ "$(field 'task list' | grep -o '(infoworker)' | wc -l)" = 2 ] || fail "thread names: $(cat info.txt)"
# the per-kind counts are what show prints, line for line
"$FTRAIL" show -i t.dat -O nofuncgraph-duration >show.txt || fail "show"
entries=$(field 'function entries')
lines=$(grep -cE '\(\) \{$|\(\);$' show.txt)
[ "$entries" = "$lines" ] || fail "entries $entries, show has $lines calls"
[ "$(field 'function exits')" = "$entries" ] || fail "exits: $(cat info.txt)"
field 'user records' | grep -qE '^[0-9]+ \(0 lost\)$' || fail "records: $(cat info.txt)"
field 'elapsed time' | grep -qE '^[0-9.]+ (us|ms|s)$' || fail "elapsed: $(cat info.txt)"
field 'section UDATA' | grep -qE '^[0-9]+ chunks?, [0-9]+ bytes' || fail "sections: $(cat info.txt)"
# --no-scan: only the metadata
"$FTRAIL" info --no-scan -i t.dat >quick.txt || fail "info --no-scan"
grep -q 'task list' quick.txt && fail "--no-scan scanned: $(cat quick.txt)"
grep -q '^# exit status *: exited with code 5$' quick.txt || fail "--no-scan exit: $(cat quick.txt)"
# a program killed by a signal
"$FTRAIL" record -q -o s.dat -- ./i crash >/dev/null 2>err
[ $? = 134 ] || fail "record of a crash: $(cat err)"
"$FTRAIL" info -i s.dat >info.txt || fail "info of the crash"
[ "$(field 'exit status')" = "terminated by signal 6 (SIGABRT)" ] || fail "signal: $(cat info.txt)"
# kernel events, when they can be recorded here
if have_tracefs; then
	"$FTRAIL" record -q -o k.dat -e sched:sched_process_exit -- ./i 0 >/dev/null 2>err ||
		fail "record -e: $(cat err)"
	"$FTRAIL" info -i k.dat >info.txt || fail "info -e"
	field 'kernel events' | grep -qE '^[1-9][0-9]* \([0-9]+ lost\)$' || fail "kernel: $(cat info.txt)"
	field 'section KDATA' | grep -q chunk || fail "KDATA: $(cat info.txt)"
fi
# a file cut short: described up to its last complete section, with the warning
size=$(stat -c %s t.dat)
head -c $((size / 2)) t.dat >cut.dat
"$FTRAIL" info -i cut.dat >info.txt 2>err || fail "info of a cut file: $(cat err)"
grep -q 'cut short' err || fail "no warning: $(cat err)"
grep -q 'the file is cut short' info.txt || fail "not said: $(cat info.txt)"
# bad input: one line, non-zero
expect_fail "ftrail: nosuch.dat: *" "$FTRAIL" info -i nosuch.dat
expect_fail "ftrail: info: unexpected argument 'x'*" "$FTRAIL" info x
expect_fail "ftrail: info: unknown option '--bogus'*" "$FTRAIL" info --bogus
printf 'not a trace' >junk.dat
expect_fail "ftrail: *junk.dat*" "$FTRAIL" info -i junk.dat
expect_fail "ftrail: 'replay' is not an ftrail command; the nearest is 'ftrail show'*" "$FTRAIL" replay
exit 0
