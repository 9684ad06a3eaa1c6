# description: show -O latency-format (function tracer): print_trace_header block with task comm-pid, the six-column help header, cmd-pid cpu flags time delay columns
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace func f.dat
$FTRAIL show -i f.dat -O latency-format >out || fail "show"
cat >want <<'TXT'
# tracer: function
#
# function latency trace v1.1.5 on 6.1.0-synthetic
# --------------------------------------------------------------------
# latency: 0 us, #8/8, CPU#0 | (M:user VP:0, KP:0, SP:0 HP:0 #P:1)
#    -----------------
#    | task: prog-1000 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#
#                    _------=> CPU#            
#                   / _-----=> irqs-off/BH-disabled
#                  | / _----=> need-resched    
#                  || / _---=> hardirq/softirq 
#                  ||| / _--=> preempt-depth   
#                  |||| / _-=> migrate-disable 
#                  ||||| /     delay           
#  cmd     pid     |||||| time  |   caller     
#     \   /        ||||||  \    |    /       
    prog-1000      0.....    0us : main <-_start
    prog-1000      0.....    1us : foo <-main
    prog-1000      0.....    2us : bar <-foo
    prog-1000      0.....    2us : <stack_id 0>
    prog-1000      0.....    4us : baz <-main
    prog-1000      0.....    4us : <stack trace>
 => baz
 => main
    prog-1000      0.....    7us : tracing_mark_write: checkpoint
    prog-1000      0.....    8us : bar <-0x7f0000001000
TXT
diff -u want out || fail "latency-format output differs"

# the delay column: the time to the next entry of the whole stream (all
# threads), with the kernel's marks; a real program with two threads
command -v gcc >/dev/null 2>&1 || exit 0
cat >p.c <<'C'
#include <pthread.h>
#include <unistd.h>
static int leaf(int x) { return x + 1; }
static void *work(void *a) { for (int i = 0; i < 20; i++) { leaf(i); if (i % 5 == 0) usleep(200); } return a; }
int main(void) { pthread_t t; pthread_create(&t, 0, work, 0); for (int i = 0; i < 20; i++) { leaf(i); if (i % 7 == 0) usleep(50); } pthread_join(t, 0); return 0; }
C
gcc -O0 -pg -mfentry -pthread -o p p.c || fail "gcc"
$FTRAIL record -p function -o r.dat -- ./p 2>err || fail "record: $(cat err)"
$FTRAIL show -i r.dat -O latency-format >out || fail "show r.dat"
# lines "comm-tid lvl flags  NNNus?: ..."; the truncated-usec difference may
# be one off the kernel's truncated delay: marks at a threshold's edge pass
awk '/^ *[^ #].* [0-9]+us.: / {
	match($0, / [0-9]+us.: /); f = substr($0, RSTART + 1, RLENGTH - 1)
	t = f + 0; m = substr(f, length(f) - 2, 1)
	if (have) {
		d = t - pt
		want = d > 1000000 ? "$" : d > 100000 ? "@" : d > 10000 ? "*" : d > 1000 ? "#" : d > 100 ? "!" : d > 10 ? "+" : " "
		edge = 0
		for (e = 10; e <= 1000000; e *= 10) if (d >= e - 1 && d <= e + 2) edge = 1
		if (pm != want && !edge) { print "entry at " pt "us: mark [" pm "] for " d "us"; bad = 1 }
	}
	pt = t; pm = m; have = 1; n++
}
END { if (pm != " ") { print "last mark [" pm "]"; bad = 1 } if (n < 40) { print n " entries"; bad = 1 } exit bad }' out ||
	fail "delay marks: $(head -n 60 out)"
grep -q '!: ' out || fail "no ! mark though the program sleeps 200us"
grep -q '^#    | task: p-[0-9]* (uid:0' out || fail "task line is not comm-pid: $(sed -n 7p out)"
exit 0
