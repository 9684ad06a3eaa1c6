# description: show --snapshot prints in the live trace's formats (nop events, function_graph), and ftrace's allocated/freed note when there is no snapshot to show
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o ticks "$TOP/tests/progs/snap_ticks.c" || fail "build"
# nop + events: ftrace's header, then one line per event, as in show
$FTRAIL record -q -p nop -e u:snap -R snapshot:1 -o e.dat -- ./ticks 1000 500 >/dev/null 2>err ||
	fail "record: $(cat err)"
$FTRAIL show -i e.dat --snapshot >s || fail "show --snapshot"
$FTRAIL show -i e.dat >live || fail "show"
[ "$(sed -n 1p s)" = "# tracer: nop" ] || fail "line 1: $(sed -n 1p s)"
n=$(grep -c ' tick: i=' s)
[ "$n" = 500 ] || fail "$n ticks in the snapshot, expected 0..499"
grep -qE "^# entries-in-buffer/entries-written: $n/$n +#P:[0-9]+$" s ||
	fail "entries line: $(grep entries s)"
# the column header is the live trace's
diff <(sed -n 4,6p s) <(sed -n 4,6p live) >/dev/null || fail "column header differs from show's"
bad=$(grep -v '^#' s | grep -vcE '^ +ticks-[0-9]+ +\[000\] +[0-9]+\.[0-9]{6}: tick: i=[0-9]+$')
[ "$bad" = 0 ] || fail "$bad lines not in the event line format: $(grep -v '^#' s | head -3)"
# every snapshot line is a line of the live trace
[ "$(grep -vc '^#' s)" = "$(grep -Fxf <(grep -v '^#' s) live | wc -l)" ] || fail "snapshot lines not in the live trace"

# function_graph: the graph header and layout
$FTRAIL record -q -p function_graph -l 'mark:snapshot:1' -o g.dat -- ./ticks 1000 500 >/dev/null 2>err ||
	fail "record graph: $(cat err)"
$FTRAIL show -i g.dat --snapshot >g || fail "show graph --snapshot"
diff <(head -4 g) <($FTRAIL show -i g.dat | head -4) >/dev/null || fail "graph header: $(head -4 g)"
[ "$(grep -cE '^ 0\) [ +!#*@$] +[0-9.]+ us +\|    step\(\);$' g)" = 500 ] || fail "graph lines: $(sed -n 5,8p g)"
grep -qE '^ 0\) +\|  main\(\) \{$' g || fail "no main() { in the graph snapshot"

# allocated but never taken, and never allocated
$FTRAIL record -q -p nop --snapshot-alloc -e u:snap -o a.dat -- ./ticks 10 >/dev/null 2>err || fail "record alloc: $(cat err)"
$FTRAIL show -i a.dat --snapshot >na || fail "show alloc"
grep -qx '# \* Snapshot is allocated \*' na || fail "allocated note: $(cat na)"
grep -q '^# 1: ' na || fail "no command help: $(cat na)"
$FTRAIL record -q -p nop -e u:snap -o f.dat -- ./ticks 10 >/dev/null 2>err || fail "record: $(cat err)"
$FTRAIL show -i f.dat --snapshot >nf || fail "show freed"
grep -qx '# \* Snapshot is freed \*' nf || fail "freed note: $(cat nf)"
[ "$(sed -n 1p nf)" = "# tracer: nop" ] || fail "freed: line 1 $(sed -n 1p nf)"
exit 0
