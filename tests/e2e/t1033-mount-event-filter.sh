# description: mount: echo EXPR > events/u/<sys>/<event>/filter filters the running program's event at once, echo 0 clears it, a bad filter gives EINVAL and a line in error_log with nothing changed
# requires: root fuse gcc
# asan: yes
. "$TOP/tests/e2e/t1019-mount.inc"
start_evs m -p nop -e u:sleepy:tick
f=m/events/u/sleepy/tick/filter
cat m/trace_pipe >p.out 2>p.err &
c=$!
# ticks_between A B: the ticks trace_pipe showed between markers A and B
ticks_between() { sed -n "/: $1\$/,/: $2\$/p" p.out | grep -c 'tick: n='; }
expect_eq "filter at start" "$(cat $f)" none
wait_grep 'tick: n='
# a filter no tick passes: the write returns once the program applied it
echo 'n > 1000000' >$f
expect_eq "filter set" "$(cat $f)" "n > 1000000"
marks off-1 off-2
expect_eq "ticks through 'n > 1000000'" "$(ticks_between off-1 off-2)" 0
# a bad filter: EINVAL, a line in error_log, the filter as it was
: >m/error_log
write_fails "Invalid argument" $f 'nosuch > 1'
write_fails "Invalid argument" $f 'n >'
grep -q '^\[.*\] filter: error: .*nosuch' m/error_log || fail "error_log: $(cat m/error_log)"
grep -q '^  Command: nosuch > 1$' m/error_log || fail "error_log command: $(cat m/error_log)"
expect_eq "filter after refusals" "$(cat $f)" "n > 1000000"
# a filter some ticks pass: only odd n from now on
echo 'n & 1' >$f
expect_eq "filter n & 1" "$(cat $f)" "n & 1"
marks odd-1 odd-2
sed -n '/: odd-1$/,/: odd-2$/p' p.out | grep -o 'tick: n=[0-9]*' >odd.txt
[ -s odd.txt ] || fail "no tick passed '$(cat $f)': $(tail -n 5 p.out)"
awk -F= '$2 % 2 == 0 {bad = 1} END {exit bad}' odd.txt || fail "an even tick passed: $(cat odd.txt)"
# echo 0 clears: every tick again
echo 0 >$f
expect_eq "filter cleared" "$(cat $f)" none
marks on-1 on-2
sed -n '/: on-1$/,/: on-2$/p' p.out | grep -o 'tick: n=[0-9]*' >all.txt
awk -F= '$2 % 2 == 0 {even = 1} END {exit !even}' all.txt || fail "no even tick after clearing: $(cat all.txt)"
kill -TERM $REC
wait $REC
REC=
wait_exit $c "the trace_pipe reader"
# the trace file agrees: no tick between off-1 and off-2
n=$($FTRAIL show -i t.dat | section off-1 off-2 | grep -c 'tick: n=')
expect_eq "ticks in the file between off-1 and off-2" "$n" 0
exit 0
