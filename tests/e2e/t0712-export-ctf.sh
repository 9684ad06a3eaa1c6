# description: export --format ctf: babeltrace2 reads the CTF 1.8 directory and prints every call (func_entry/func_exit with addr, name, depth, duration), typed user event fields, markers, kernel events with their fields and stack ids described by the side stream, and lost events as discarded-event counts, all in the numbers ftrail show gives; existing directories are refused unless empty or --force
# requires: cc babeltrace2 python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd babeltrace2
need_cmd python3
. "$TOP/tests/e2e/lib_recorded.sh"
need_runtime
record_twothreads -DFIB=8

$FTRAIL export --format ctf -i p.dat -o p.ctf 2>err || fail "export: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
[ -f p.ctf/metadata ] && [ -f p.ctf/ust_0 ] || fail "no metadata or stream: $(ls p.ctf)"
head -c 12 p.ctf/metadata | grep -q '/\* CTF 1.8' || fail "metadata is not TSDL 1.8 text"
[ -e p.ctf.partial ] && fail "partial directory left"
babeltrace2 p.ctf >p.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
[ -s bt.err ] && fail "babeltrace2 complained: $(head -n 3 bt.err)"
$FTRAIL show -i p.dat >p.show || fail "show"
$FTRAIL report -i p.dat >p.report || fail "report"
python3 - <<'PY' || fail "babeltrace2's events disagree with ftrail show"
import re, collections
ent = collections.Counter(); ex = collections.Counter(); dur = collections.Counter()
n = 0
for l in open("p.txt"):
    n += 1
    if "lttng_ust_cyg_profile:" not in l:
        assert re.search(r"\) ftrail:(exit|comm|fork|exec|signal|tracing): ", l), l
        continue
    m = re.search(r"\) lttng_ust_cyg_profile:func_(entry|exit): \{ cpu_id = \d+ \}, \{ vpid = (\d+), vtid = (\d+), procname = \"[^\"]*\" \}, \{ addr = 0x([0-9A-F]+), call_site = 0x0, name = \"([^\"]+)\", depth = (\d+)(, duration = (\d+), has_entry = 1)? \}$", l)
    assert m, l
    assert int(m.group(4), 16) != 0, l
    if m.group(1) == "entry": ent[m.group(5)] += 1
    else:
        assert m.group(7), l
        ex[m.group(5)] += 1
        if m.group(5) != "fib": dur[m.group(5)] += int(m.group(8))
# show: "f() {" entries, "}" exits, "f();" both
sent = collections.Counter(); sex = 0
for l in open("p.show"):
    m = re.search(r"\|\s+(\S+)\(\)( \{|;)$", l)
    if m:
        sent[m.group(1)] += 1
        sex += m.group(2) == ";"
    elif re.search(r"\|\s+\}( /\*.*\*/)?$", l): sex += 1
assert ent == sent, (ent, sent)
assert sum(ex.values()) == sex == sum(ent.values()), (sum(ex.values()), sex)
assert ent["leaf"] == 350 and ent["mid"] == 50 and ent["fib"] == 67, ent
# durations: report's total time of non-recursive functions is the sum of their exits
checked = 0
for l in open("p.report"):
    m = re.match(r"\s+(\d+)\.(\d{3}) us\s+\S+ ..\s+\d+\s+(leaf|mid)$", l)
    if m:
        f = m.group(3)
        assert (dur[f] // 1000, dur[f] % 1000) == (int(m.group(1)), int(m.group(2))), (f, dur[f], l)
        checked += 1
assert checked == 2, "report has no us totals for leaf and mid"
print("%d events: %d calls of %d functions" % (n, sum(ent.values()), len(ent)))
PY

# typed user events, markers
cc -O2 -I"$TOP/include" -o ev_types "$TOP/tests/progs/ev_types.c" || fail "build ev_types"
$FTRAIL record -q -p nop -e u:all -o u.dat -- ./ev_types >/dev/null 2>err || fail "record ev_types: $(cat err)"
$FTRAIL export --format ctf -i u.dat -o u.ctf || fail "export u.dat"
babeltrace2 u.ctf >u.txt 2>bt.err || fail "babeltrace2 u.ctf: $(cat bt.err)"
grep -q 'evt:ints: .*{ a8 = 255, a16 = 65535, a32 = 4294967295, a64 = 18446744073709551615, b8 = 127, b16 = 32767, b32 = 2147483647, b64 = 9223372036854775807 }$' u.txt ||
	fail "unsigned/signed limits: $(grep evt:ints u.txt)"
grep -q 'b8 = -128, b16 = -32768, b32 = -2147483648, b64 = -9223372036854775808 }$' u.txt || fail "negative ints"
grep -q 'evt:misc: .*{ p = 0x1234ABCD, s = "hello, world", tag = \[ \[0\] = 0, \[1\] = 1, \[2\] = 127, \[3\] = 128, \[4\] = 254, \[5\] = 255 \], blob_len = 3, blob = \[ \[0\] = 0, \[1\] = 255, \[2\] = 16 \], tail = 7 }$' u.txt ||
	fail "misc fields: $(grep -m1 evt:misc u.txt)"
grep -q 'other:one: .*{ x = 42 }$' u.txt || fail "other:one"
grep -q 'ftrail:trace_marker: .*{ text = "marker 1: text" }$' u.txt || fail "marker"
grep -q 'ftrail:trace_marker_raw: .*{ len = 3, data = \[ \[0\] = 1, \[1\] = 2, \[2\] = 3 \] }$' u.txt || fail "raw marker"
$FTRAIL show -i u.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' >u.show
[ "$(grep -c -E '\) (evt|other):|ftrail:trace_marker' u.txt)" = "$(wc -l <u.show)" ] ||
	fail "babeltrace2 printed $(grep -c -E '\) (evt|other):|ftrail:trace_marker' u.txt) user events, show $(wc -l <u.show)"

# lost events: the discarded-event counts, where show puts them
mktrace lost lost.dat
$FTRAIL export --format ctf -i lost.dat -o lost.ctf 2>err || fail "export lost"
grep -q "9 events were lost" err || fail "no warning about lost events: $(cat err)"
babeltrace2 lost.ctf >lost.txt 2>lost.err || fail "babeltrace2 lost.ctf"
[ "$(sed -n 's/^WARNING: Tracer discarded \([0-9]*\) events between.*/\1/p' lost.err | tr '\n' ' ')" = "7 2 " ] ||
	fail "discarded counts: $(cat lost.err)"
[ "$($FTRAIL show -i lost.dat | grep -c 'LOST')" = 2 ] || fail "show does not see two losses"
[ "$(grep -c 'func_entry' lost.txt)" = 4 ] || fail "lost.ctf entries: $(grep -c func_entry lost.txt)"

# kernel events with their fields and stack ids, when this machine can record them
if have_tracefs; then
	$FTRAIL record -e sched:sched_switch -e sched:sched_wakeup -T -o k.dat -- ./prog >/dev/null 2>k.err ||
		fail "kernel record: $(cat k.err)"
	$FTRAIL export --format ctf -i k.dat -o k.ctf 2>err || fail "export k.dat: $(cat err)"
	ls k.ctf | grep -q '^kernel_[0-9]*$' || fail "no kernel streams: $(ls k.ctf)"
	babeltrace2 k.ctf >k.txt 2>bt.err || fail "babeltrace2 k.ctf: $(cat bt.err)"
	$FTRAIL show -i k.dat >k.show || fail "show k.dat"
	for e in sched_switch sched_wakeup; do
		a=$(grep -c "\\] ([^)]*) $e: " k.txt)
		b=$(grep -c "/\\* $e: " k.show)
		[ "$a" = "$b" ] && [ "$a" -gt 0 ] || fail "$e: babeltrace2 $a, show $b"
	done
	grep -q 'sched_switch: { cpu_id = [0-9]* }, { pid = [0-9]*, tid = [0-9]*, procname = "[^"]*", kernel_stack_id = [0-9]*, user_stack_id = -1 }, { prev_comm = "[^"]*", prev_pid = [0-9]*, prev_prio = [0-9]*, prev_state = [0-9]*, next_comm = "[^"]*", next_pid = [0-9]*, next_prio = [0-9]* }$' k.txt ||
		fail "sched_switch fields: $(grep -m1 sched_switch k.txt)"
	python3 - <<'PY' || fail "stack ids without a stack map entry"
import re
used = set(int(x) for x in re.findall(r"kernel_stack_id = (\d+)", open("k.txt").read()))
desc = set(int(x) for x in re.findall(r"stack_map_entry: .*\{ map = 1, stack_id = (\d+), depth = [1-9]", open("k.txt").read()))
assert used and used <= desc, (sorted(used - desc)[:5])
assert re.search(r'frames = "[^"]*__schedule', open("k.txt").read())
print("%d kernel stack ids, all described" % len(used))
PY
else
	echo "kernel part skipped: needs root and tracefs"
fi

# bad input: one line, non-zero exit, the directory as it was
mkdir full && echo keep >full/mine
expect_fail "*full is not empty (--force replaces it)*" $FTRAIL export --format ctf -i p.dat -o full
[ "$(cat full/mine)" = keep ] || fail "a refused export touched the directory"
$FTRAIL export --format ctf --force -i p.dat -o full || fail "--force"
[ -e full/mine ] && fail "--force kept the old contents"
[ -f full/metadata ] || fail "--force wrote no trace"
mkdir empty && $FTRAIL export --format ctf -i p.dat -o empty || fail "an empty directory is accepted"
touch afile && expect_fail "*afile exists and is not a directory*" $FTRAIL export --format ctf -i p.dat -o afile
ln -s empty alink && expect_fail "*alink is a symbolic link*" $FTRAIL export --format ctf -i p.dat -o alink
expect_fail "*--force is for --format ctf*" $FTRAIL export --format chrome --force -i p.dat -o x.json
expect_fail "*cannot open nosuch.dat*" $FTRAIL export --format ctf -i nosuch.dat -o n.ctf
[ -e n.ctf ] || [ -e n.ctf.partial ] && fail "a failed export left a directory"
mktrace badpage bad.dat
$FTRAIL export --format ctf -i bad.dat -o bad.ctf 2>err && fail "a corrupt trace exported"
[ "$(wc -l <err)" = 1 ] || fail "corrupt input: $(cat err)"
[ -e bad.ctf ] || [ -e bad.ctf.partial ] && fail "a corrupt input left a directory"
exit 0
