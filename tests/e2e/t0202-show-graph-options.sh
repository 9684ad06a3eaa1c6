# description: show: funcgraph-proc/abstime/tail/overhead and latency-format columns of function_graph
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
mktrace graph g.dat
$FTRAIL show -i g.dat -O funcgraph-proc -O funcgraph-abstime -O funcgraph-tail \
	-O nofuncgraph-overhead >out || fail "show -O"
cat >want <<'TXT'
# tracer: function_graph
#
#     TIME        CPU  TASK/PID         DURATION                  FUNCTION CALLS
#      |          |     |    |           |   |                     |   |   |   |
    1.000000 |   0)   prog-1000    |               |  main() {
    1.000001 |   0)   prog-1000    |               |    foo() {
    1.000002 |   0)   prog-1000    |   1.382 us    |      bar();
    1.000015 |   0)   prog-1000    |   14.000 us   |    } /* foo */
    1.000016 |   0)   prog-1000    |               |  /* hello */
    1.000017 |   0)   prog-1000    |   0.500 us    |    baz();
    1.000200 |   0)   prog-1000    |   200.000 us  |  } /* main */
TXT
diff -u want out || fail "funcgraph options output differs"

$FTRAIL show -i g.dat -O latency-format >out || fail "show -O latency-format"
cat >want <<'TXT'
# tracer: function_graph
#
# function_graph latency trace v1.1.5 on 6.1.0-synthetic
# --------------------------------------------------------------------
# latency: 0 us, #9/9, CPU#0 | (M:user VP:0, KP:0, SP:0 HP:0 #P:1)
#    -----------------
#    | task: prog-1000 (uid:0 nice:0 policy:0 rt_prio:0)
#    -----------------
#
#      _-----=> irqs-off        
#     / _----=> need-resched    
#    | / _---=> hardirq/softirq 
#    || / _--=> preempt-depth   
#    ||| /                      
# CPU||||     DURATION                  FUNCTION CALLS
# |  ||||      |   |                     |   |   |   |
 0)  ..... |               |  main() {
 0)  ..... |               |    foo() {
 0)  ..... |   1.382 us    |      bar();
 0)  ..... | + 14.000 us   |    }
 0)  ..... |               |  /* hello */
 0)  ..... |   0.500 us    |    baz();
 0)  ..... | ! 200.000 us  |  }
TXT
diff -u want out || fail "latency-format graph output differs"
exit 0
