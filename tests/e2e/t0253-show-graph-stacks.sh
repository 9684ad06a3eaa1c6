# description: show, function_graph with -T: a stack id is a graph comment, a full stack the trace file's own line with => lines (as print_graph_function_flags leaves TRACE_STACK to it)
# requires: gcc
. "$TOP/tests/e2e/lib.sh"
need_cmd gcc
gcc -O0 -g -pg -mfentry -o basic "$TOP/tests/progs/basic.c" || fail "gcc"
# (the program's own calls: the layout below counts lines and stacks)
$FTRAIL record -T --no-libcall -o s.dat -- ./basic >/dev/null 2>err || fail "record: $(cat err)"
$FTRAIL show -i s.dat >out || fail "show"
# every line is a header, a graph line " 0) ", or a context-switch block
bad=$(grep -vE '^#|^ +[0-9]+\) |^ -{42}$|^$' out | head -n 3)
[ -z "$bad" ] || fail "lines outside the graph columns: $bad"
# stack ids are comments: at the outermost frame not indented (the kernel's
# print_graph_comment), one level deeper than their function elsewhere
sed -n 5,8p out | sed -E 's/<stack_id [0-9]+>/<stack_id N>/; s/^ +0\)/ 0)/' >got
cat >want <<'TXT'
 0)               |  main() {
 0)               |  /* <stack_id N> */
 0)               |    a() {
 0)               |      /* <stack_id N> */
TXT
diff -u want got || fail "stack id comments differ"
[ "$(grep -c '/\* <stack_id [0-9]*> \*/' out)" -eq 6 ] || fail "want a stack id per call (6): $(cat out)"

$FTRAIL show -i s.dat --expand-stacks >out || fail "show --expand-stacks"
# a full stack: "comm-tid [lvl]  sec.usec: <stack trace>" then " => " lines,
# innermost first
awk '/<stack trace>$/ { getline l1; getline l2; print $0 "|" l1 "|" l2; exit }' out >first
grep -Eq '^ +basic-[0-9]+ +\[000\]  +[0-9]+\.[0-9]{6}: <stack trace>\| => main\| => ' first ||
	fail "main's stack: $(cat first)"
grep -A3 ' a() {$' out | sed -n 2,4p | sed -E 's/^ +basic-[0-9]+ +\[000\] +[0-9.]+: /CTX: /' >got
printf '%s\n' 'CTX: <stack trace>' ' => a' ' => main' | diff -u - got || fail "a's stack differs"
grep -q '/\* <stack' out && fail "an expanded stack is a comment"
# latency-format: the stack line takes the latency context columns
$FTRAIL show -i s.dat --expand-stacks -O latency-format >out || fail "show lat"
grep -Eq '^ +basic-[0-9]+ +0\.\.\.\.\. +[0-9]+us.: <stack trace>$' out || fail "latency stack line: $(sed -n 15,20p out)"
grep -Eq '^ +0\)  \.\.\.\.\. \|               \|  main\(\) \{$' out || fail "latency graph line: $(sed -n 15,20p out)"
exit 0
