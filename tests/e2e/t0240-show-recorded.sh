# description: record then show/report a real program (-pg -mfentry): exact call graph with its library calls, calls per function, symbols from the trace's SYMTAB
# requires: gcc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd gcc
cat >p.c <<'C'
#include <stdio.h>
static int leaf(int x) { return x * 2; }
static int mid(int x) { return leaf(x) + leaf(x + 1); }
int main(void) { int s = 0; for (int i = 0; i < 3; i++) s += mid(i); printf("%d\n", s); return 0; }
C
gcc -O0 -pg -mfentry -o p p.c || fail "gcc"
$FTRAIL record -p function_graph -o r.dat -- ./p >out 2>err || fail "record: $(cat err)"
[ "$(cat out)" = 18 ] || fail "program output: $(cat out)"
$FTRAIL show -i r.dat -O nofuncgraph-duration -O nofuncgraph-cpu >show || fail "show"
cat >want <<'TXT'
# tracer: function_graph
#
#               FUNCTION CALLS
#               |   |   |   |
__monstartup();
__cxa_atexit();
main() {
  mid() {
    leaf();
    leaf();
  }
  mid() {
    leaf();
    leaf();
  }
  mid() {
    leaf();
    leaf();
  }
  printf();
}
TXT
grep -v '^/\*' show | diff -u want - || fail "call graph differs"
# durations are there and the outermost call encloses the others
$FTRAIL show -i r.dat | grep -Eq '^ 0\) [ +!#*@$] +[0-9]+\.[0-9]+ us +\|  }$' || fail "no duration on main's exit"
$FTRAIL report -i r.dat -s name | awk 'NR > 2 { print $(NF-1), $NF }' >calls
printf '1 __cxa_atexit\n1 __monstartup\n6 leaf\n1 main\n3 mid\n1 printf\n' | diff -u - calls || fail "report calls differ"
# symbols come from the file: the binary is not needed any more
rm -f p
$FTRAIL show -i r.dat -O nofuncgraph-duration -O nofuncgraph-cpu | grep -v '^/\*' | diff -u want - ||
	fail "show needs the binary"
# function tracer with stacks: each call's stack starts with the function itself
gcc -O0 -pg -mfentry -o p p.c || fail "gcc"
$FTRAIL record -p function -T -o f.dat -- ./p >/dev/null 2>err || fail "record -p function -T: $(cat err)"
$FTRAIL show -i f.dat --expand-stacks >fs || fail "show function"
grep -q ': mid <-main$' fs || fail "no 'mid <-main' line"
grep -A1 ': <stack trace>$' fs | grep -q '^ => leaf$' || fail "no stack starting with leaf"
exit 0
