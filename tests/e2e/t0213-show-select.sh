# description: show -g/-N/-D/-t choose calls after recording (record's options of the same names; uftrace replay's -F/-N/-D/-t): exact views of a crafted trace, calls whose callees are all hidden print as leaves, the function tracer by name, on a threaded program the views keep exactly the calls they should (counts, leaves, durations), --jobs 2 the same, bad values one line
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
mktrace graph g.dat
mktrace func f.dat
# the views of main { foo { bar } /* hello */ baz } (200, 14, 1.382, 0.5 us)
body() { "$FTRAIL" show -i g.dat "$@" | tail -n +5; }
view() {
	local name=$1; shift
	body "$@" >"$name.out" || fail "show $*"
	diff -u "$name.want" "$name.out" || fail "show $* differs"
}
cat >F.want <<'TXT'
 0)               |  foo() {
 0)   1.382 us    |    bar();
 0) + 14.000 us   |  }
TXT
view F -g foo
cat >N.want <<'TXT'
 0)               |  main() {
 0)               |  /* hello */
 0)   0.500 us    |    baz();
 0) ! 200.000 us  |  }
TXT
view N --graph-notrace foo
# foo's only callee is hidden: foo prints as a leaf with its own duration
cat >D2.want <<'TXT'
 0)               |  main() {
 0) + 14.000 us   |    foo();
 0)               |  /* hello */
 0)   0.500 us    |    baz();
 0) ! 200.000 us  |  }
TXT
view D2 -D 2
cat >t.want <<'TXT'
 0)               |  main() {
 0) + 14.000 us   |    foo();
 0)               |  /* hello */
 0) ! 200.000 us  |  }
TXT
view t -t 10us
view t -t 0.01ms
cat >FF.want <<'TXT'
 0)   1.382 us    |  bar();
 0)   0.500 us    |  baz();
TXT
view FF -g bar --graph-function baz
view FF -g 'ba?'
: >none.want
view none -N main
# the function tracer: records by name, a stack with its record
"$FTRAIL" show -i f.dat -g 'ba*' >fF.out || fail "show -g of the function tracer"
grep -q ': foo <-' fF.out && fail "-g ba* shows foo: $(cat fF.out)"
[ "$(grep -c ': bar <-' fF.out)" = 2 ] || fail "-g ba* lost a bar: $(cat fF.out)"
grep -A1 ': baz <-' fF.out | grep -q '<stack trace>' || fail "-g ba*: baz's stack left out"
expect_fail "ftrail: show: -D and -t select function_graph calls*" "$FTRAIL" show -i f.dat -D 2
expect_fail "ftrail: show: -t wants a time such as*" "$FTRAIL" show -i g.dat -t 5xs
expect_fail "ftrail: show: -t wants a time such as*" "$FTRAIL" show -i g.dat -t -1us
expect_fail "ftrail: show: -D wants a depth of at least 1, not '0'" "$FTRAIL" show -i g.dat -D 0

# a real program: three threads, a() -> b() -> c() and a slow s() -> c()
cat >sel.c <<'SRC'
#include <pthread.h>
#include <time.h>
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE void c(long i) { sink += i; }
NOINLINE void b(long i) { c(i); c(i + 1); }
NOINLINE void a(long i) { b(i); sink ^= i; }
NOINLINE void s(void)
{
	struct timespec t0, t;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do
		clock_gettime(CLOCK_MONOTONIC, &t);
	while ((t.tv_sec - t0.tv_sec) * 1000000000L + t.tv_nsec - t0.tv_nsec < 3000000);
	c(0);
}
NOINLINE void *run(void *arg)
{
	for (long i = 0; i < 300; i++)
		a(i + (long)arg);
	s();
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
build sel gcc -O1 -pg sel.c -lpthread || fail "build"
rec s.dat -- ./sel
# the calls a view keeps, counted by name from its entry and leaf lines
names() { sed -n 's/.*|  *\([a-z_]*\)() {$/\1/p; s/.*|  *\([a-z_]*\)();$/\1/p' "$1" | sort | uniq -c; }
$FTRAIL show -i s.dat -g a >a.out || fail "show -g a"
names a.out >got
printf '%7d a\n%7d b\n%7d c\n' 900 900 1800 >want
diff -u want got || fail "-g a: calls differ"
$FTRAIL show -i s.dat -g a --max-graph-depth 2 >a2.out || fail "show -g a -D 2"
names a2.out >got
printf '%7d a\n%7d b\n' 900 900 >want
diff -u want got || fail "-g a -D 2: calls differ"
grep -q '  b();$' a2.out || fail "-g a -D 2: b (callees hidden) is not a leaf: $(head a2.out)"
grep -q '  b() {$' a2.out && fail "-g a -D 2: b printed open"
# -t 1ms: only the threads' run(), s() (3 ms; its c() hidden, so a leaf) and main
$FTRAIL show -i s.dat --tracing-thresh 1ms >t.out || fail "show -t 1ms"
names t.out | awk '{ print $2 }' | sort -u | tr '\n' ' ' >got
case "$(cat got)" in
*" a "* | *" b "* | *" c "*) fail "-t 1ms kept a short call: $(cat got)" ;;
esac
[ "$(grep -cE '  s\(\)( \{|;)$' t.out)" = 3 ] || fail "-t 1ms: three s() expected: $(grep ' s()' t.out)"
# every call it shows lasted 1 ms at least (a preempted clock_gettime may)
awk '/(;|})$/ && / us / { for (i = 1; i < NF; i++) if ($(i + 1) == "us" && $i + 0 < 1000) { print; exit 1 } }' t.out ||
	fail "-t 1ms shows a shorter call"
# -N b: a() becomes a leaf in every thread, s()'s c() stays
$FTRAIL show -i s.dat -N b >nb.out || fail "show -N b"
[ "$(grep -c '  a();$' nb.out)" = 900 ] || fail "-N b: a() is not a leaf 900 times"
[ "$(grep -c '  c();$' nb.out)" = 3 ] || fail "-N b: s()'s c() missing"
# decoding on a thread of its own gives the same view
for v in "-g a -D 2" "-t 1ms" "-N b"; do
	$FTRAIL show -i s.dat $v >v1.out && $FTRAIL show -i s.dat $v --jobs 2 >v2.out ||
		fail "show $v"
	cmp -s v1.out v2.out || fail "show $v --jobs 2 differs"
done
exit 0
