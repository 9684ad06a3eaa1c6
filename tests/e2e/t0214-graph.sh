# description: graph: every call path with its calls and total time (uftrace graph), a function's backtraces and merged graph, -D, a threaded program's counts and times agree with report, bad input one line
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
mktrace graph g.dat
mktrace func f.dat
$FTRAIL graph -i g.dat >out || fail "graph"
cat >want <<'TXT'
# Function call graph of every thread

========== FUNCTION CALL GRAPH ==========
# TOTAL TIME   FUNCTION
  200.000 us : (1) main
   14.000 us : +-(1) foo
    1.382 us : | +-(1) bar
    0.500 us : +-(1) baz
TXT
diff -u want out || fail "graph differs"
$FTRAIL graph -i g.dat -D 1 >out || fail "graph -D 1"
grep -v ' bar$' want >want1
diff -u want1 out || fail "graph -D 1 differs"
$FTRAIL graph -i g.dat 'ba?' >out || fail "graph ba?"
cat >want <<'TXT'
# Function call graph for 'bar'

=============== BACKTRACE ===============
 backtrace #0: hit 1, time 1.382 us
   [0] bar
   [1] foo
   [2] main

========== FUNCTION CALL GRAPH ==========
# TOTAL TIME   FUNCTION
    1.382 us : (1) bar

# Function call graph for 'baz'

=============== BACKTRACE ===============
 backtrace #0: hit 1, time 0.500 us
   [0] baz
   [1] main

========== FUNCTION CALL GRAPH ==========
# TOTAL TIME   FUNCTION
    0.500 us : (1) baz
TXT
diff -u want out || fail "graph 'ba?' differs"
expect_fail "ftrail: f.dat: the call graph needs a function_graph trace, not the function tracer's" \
	"$FTRAIL" graph -i f.dat
expect_fail "ftrail: graph: no function called in g.dat matches 'nosuch'" "$FTRAIL" graph -i g.dat nosuch
expect_fail "ftrail: graph: -D wants a depth of at least 1, not '0'" "$FTRAIL" graph -i g.dat -D 0
expect_fail "ftrail: graph: unexpected argument 'b'*" "$FTRAIL" graph -i g.dat a b

# a real program: k() is reached from two paths, a() -> k() and b() -> k(),
# in three threads; r(n) recurses
cat >gr.c <<'SRC'
#include <pthread.h>
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE void leaf(long i) { sink += i; }
NOINLINE void k(long i) { leaf(i); }
NOINLINE void a(long i) { k(i); }
NOINLINE void b(long i) { k(i); k(i + 1); }
NOINLINE long r(int n) { return n ? r(n - 1) + 1 : 0; }
NOINLINE void *run(void *arg)
{
	for (long i = 0; i < 200; i++) {
		a(i + (long)arg);
		if (i % 2)
			b(i);
	}
	sink += r(3);
	return 0;
}
int main(void)
{
	pthread_t th[3];
	for (long i = 0; i < 3; i++)
		pthread_create(&th[i], 0, run, (void *)i);
	for (int i = 0; i < 3; i++)
		pthread_join(th[i], 0);
	return 0;
}
SRC
build gr gcc -O1 -pg gr.c -lpthread || fail "build"
rec t.dat -- ./gr
$FTRAIL graph -i t.dat >all.out || fail "graph of the program"
# each thread's outermost call is a root: run() of the three threads is one
grep -q ' : (3) run$' all.out || fail "three run() calls expected as one root: $(head -20 all.out)"
grep -q ' : +-(600) a$' all.out || fail "run -> a: 600 calls: $(cat all.out)"
grep -q ' : | +-(600) k$' all.out || fail "a -> k: 600 calls"
grep -q ' : +-(300) b$' all.out || fail "run -> b: 300 calls"
[ "$(grep -c ' : | +-(600) k$' all.out)" = 2 ] || fail "a -> k and b -> k: two paths of 600 calls"
# recursion nests: r -> r -> r -> r, three calls each
[ "$(grep -cE ' : [| ]*\+-\(3\) r$' all.out)" = 4 ] || fail "r's recursion: $(grep ' r$' all.out)"
# k's view: two backtraces, the most hit first, and its callees merged
$FTRAIL graph -i t.dat k >k.out || fail "graph k"
grep -A2 'backtrace #0: hit 600' k.out | grep -q '\[1\] [ab]$' || fail "k's backtrace #0: $(cat k.out)"
grep -q 'backtrace #1: hit 600' k.out || fail "k's second backtrace"
grep -q ' : (1200) k$' k.out || fail "k merged: 1200 calls"
grep -q ' : +-(1200) leaf$' k.out || fail "k's leaf merged: 1200 calls"
# the merged root's total is report's total for k (both sum every call's time)
tot() { awk -v f="$2" '$NF == f { print $1, $2; exit }' "$1"; }
$FTRAIL report -i t.dat >rep || fail "report"
[ "$(grep ' : (1200) k$' k.out | awk '{ print $1, $2 }')" = "$(tot rep k)" ] ||
	fail "graph k total $(grep ' (1200) k$' k.out) is not report's $(tot rep k)"
exit 0
