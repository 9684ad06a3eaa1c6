# description: report --diff BASE: two recordings side by side by function name, base/new/diff of total, self and calls, functions of one side only, largest change first, a trace against itself all zero, bad combinations one line
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
cat >d.c <<'SRC'
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
volatile long sink;
NOINLINE void a(long i) { sink += i; }
NOINLINE void only_base(void) { sink++; }
NOINLINE void only_new(void) { sink--; }
int main(int argc, char **argv)
{
	long n = atol(argv[1]);
	for (long i = 0; i < n; i++)
		a(i);
	if (n < 200)
		only_base();
	else
		only_new();
	return 0;
}
SRC
build d gcc -O1 -pg d.c || fail "build"
rec base.dat -- ./d 100
rec new.dat -- ./d 300
$FTRAIL report -i new.dat --diff base.dat >out || fail "report --diff"
row() { grep -E " $1\$" out || fail "no row for $1: $(cat out)"; }
calls() { row "$1" | awk '{ print $(NF - 3), $(NF - 2), $(NF - 1) }'; }
[ "$(calls a)" = "100 300 +200" ] || fail "a's calls: $(row a)"
[ "$(calls main)" = "1 1 +0" ] || fail "main's calls: $(row main)"
[ "$(calls only_base)" = "1 - -1" ] || fail "only_base: $(row only_base)"
[ "$(calls only_new)" = "- 1 +1" ] || fail "only_new: $(row only_new)"
head -n 2 out | grep -q '^# new.dat against the base base.dat' || fail "header: $(head -2 out)"
# -s calls: the largest change of calls first
$FTRAIL report -i new.dat --diff base.dat -s calls | sed -n 5p | grep -q ' a$' ||
	fail "-s calls: a is not first"
# a trace against itself: every difference is zero
$FTRAIL report -i new.dat --diff new.dat >same || fail "report --diff itself"
[ "$(sed -n '5,$p' same | wc -l)" -ge 4 ] || fail "rows missing: $(cat same)"
! grep -E '[+-][0-9.]+ (us|ms|s)|[+-][1-9]' same || fail "a trace against itself is not all zero: $(cat same)"
grep -q ' 300 *300 *+0  a$' same || fail "a against itself: $(grep ' a$' same)"
expect_fail "ftrail: report: --diff compares functions by name*" "$FTRAIL" report -i new.dat --diff base.dat --object
expect_fail "ftrail: nosuch.dat: *" "$FTRAIL" report -i new.dat --diff nosuch.dat
exit 0
