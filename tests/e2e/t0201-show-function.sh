# description: show: function tracer lines, print-parent, sym-offset, sym-addr, stack ids and stacks, trace_marker
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace func f.dat
$FTRAIL show -i f.dat >out || fail "show"
cat >want <<'TXT'
# tracer: function
#
# entries-in-buffer/entries-written: 8/8   #P:1
#
#           TASK-PID     CPU#     TIMESTAMP  FUNCTION
#              | |         |         |         |
            prog-1000    [000]      2.000005: main <-_start
            prog-1000    [000]      2.000006: foo <-main
            prog-1000    [000]      2.000007: bar <-foo
            prog-1000    [000]      2.000007: <stack_id 0>
            prog-1000    [000]      2.000009: baz <-main
            prog-1000    [000]      2.000009: <stack trace>
 => baz
 => main
            prog-1000    [000]      2.000012: tracing_mark_write: checkpoint
            prog-1000    [000]      2.000013: bar <-0x7f0000001000
TXT
diff -u want out || fail "function output differs"

$FTRAIL show -i f.dat -O noprint-parent -O sym-addr >out || fail "show -O sym-addr"
cat >want <<'TXT'
            prog-1000    [000]      2.000005: main <0000000000401000>
            prog-1000    [000]      2.000006: foo <0000000000401100>
            prog-1000    [000]      2.000007: bar <0000000000401200>
            prog-1000    [000]      2.000007: <stack_id 0>
            prog-1000    [000]      2.000009: baz <0000000000401300>
            prog-1000    [000]      2.000009: <stack trace>
 => baz <0000000000401305>
 => main <0000000000401044>
            prog-1000    [000]      2.000012: tracing_mark_write: checkpoint
            prog-1000    [000]      2.000013: bar <0000000000401200>
TXT
tail -n +7 out | diff -u want - || fail "noprint-parent/sym-addr output differs"

# the stack id expanded through the trace's stack map, with offsets
$FTRAIL show -i f.dat --expand-stacks -O sym-offset >out || fail "show --expand-stacks"
cat >want <<'TXT'
            prog-1000    [000]      2.000007: bar+0x0/0x20 <-foo+0x0/0x40
            prog-1000    [000]      2.000007: <stack trace>
 => bar+0x8/0x20
 => foo+0x10/0x40
 => main+0x20/0x80
TXT
sed -n 9,13p out | diff -u want - || fail "expanded stack differs"
$FTRAIL show -i f.dat -O expand-stacks | cmp -s - <($FTRAIL show -i f.dat --expand-stacks) ||
	fail "-O expand-stacks and --expand-stacks differ"
exit 0
