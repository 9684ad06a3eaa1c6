# description: threads named (by another thread, or inheriting their creator's name) that exit before the recorder reads /proc are named right by every reader: show, the Chrome export's thread names, CTF's procname
# requires: root cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
# the recorder's main thread (its drain loop, which reads the names in
# /proc) is held in a ptrace stop while the threads run and exit
need_root
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 3 ] || skip "ptrace is disabled (yama ptrace_scope 3)"
cc -O2 -o thread_stop "$TOP/tests/progs/thread_stop.c" || fail "cc thread_stop"
cc -O1 -DQN_START_OBJ -c -o qn_start.o "$TOP/tests/progs/thread_quick_names.c" || fail "cc qn_start"
cc -O1 -pg -mfentry -o qn "$TOP/tests/progs/thread_quick_names.c" qn_start.o -lpthread || fail "cc qn"
rm -f go end
$FTRAIL record -p function -l work_a -l work_b -o q.dat -- ./qn go end >out 2>err &
rec=$!
qn=
for _ in $(seq 300); do
	qn=$(pgrep -P "$rec" -x qn-main) && break
	sleep 0.05
done
[ -n "$qn" ] || { touch go end; wait; fail "the program did not start: $(cat err)"; }
# long enough for the threads to be gone on a loaded machine; the test
# waits for them below, so a longer stop only makes it slower
./thread_stop "$rec" 8000 >stop.out 2>stop.err &
stopper=$!
for _ in $(seq 300); do
	grep -q stopped stop.out && break
	sleep 0.05
done
grep -q stopped stop.out || { touch go end; wait; fail "thread_stop: $(cat stop.err)"; }
touch go
for _ in $(seq 600); do
	grep -q 'threads gone' out && break
	sleep 0.05
done
# the scenario happened: every thread was gone while the recorder was stopped
grep -q 'threads gone' out || { touch end; wait; fail "the program: $(cat out)"; }
kill -0 "$stopper" 2>/dev/null || { touch end; wait; fail "the recorder was let go before the threads were gone"; }
wait "$stopper" || { touch end; wait; fail "thread_stop: $(cat stop.err)"; }
touch end
wait "$rec" || fail "record: $(cat err)"
"$FTRAIL" show -i q.dat >show.out 2>show.err || fail "show: $(cat show.err)"
# function tracer lines: " COMM-TID [CPU] TS: func <-parent"; the name each
# call of work_a and work_b was made under, in order
sed -nE 's/^ *(.*)-[0-9]+ +\[[0-9]+\] +[0-9.]+: (work_[ab]) .*/\2:\1/p' show.out | tr '\n' ' ' >got
[ "$(cat got)" = "work_a:by-main-0 work_a:by-main-1 work_a:by-main-2 work_a:by-main-3 work_b:spawner " ] ||
	fail "show: $(cat got)"
# a thread's name at its start is no event: the only renames are the ones made
[ "$(grep -c 'task_rename' show.out)" = 3 ] || fail "renames: $(grep task_rename show.out)"
# the Chrome export's thread names, by tid, for the threads that called work_*
"$FTRAIL" export --format chrome -i q.dat -o q.json 2>err || fail "export chrome: $(cat err)"
python3 - <<'PY' >names || fail "chrome: cannot read q.json"
import json
d = json.load(open("q.json"))
ev = d["traceEvents"] if isinstance(d, dict) else d
names, worked = {}, []
for e in ev:
    if e.get("ph") == "M" and e.get("name") == "thread_name":
        names[e["tid"]] = e["args"]["name"]
    elif e.get("name") in ("work_a", "work_b") and e.get("ph") in ("X", "B", "i", "I"):
        worked.append((e["ts"], e["name"], e["tid"]))
print(" ".join("%s:%s" % (n, names.get(t, "?")) for _, n, t in sorted(worked)))
PY
[ "$(cat names)" = "work_a:by-main-0 work_a:by-main-1 work_a:by-main-2 work_a:by-main-3 work_b:spawner" ] ||
	fail "chrome thread names: $(cat names)"
# CTF's procname of each call
if command -v babeltrace2 >/dev/null 2>&1; then
	"$FTRAIL" export --format ctf -i q.dat -o q.ctf 2>err || fail "export ctf: $(cat err)"
	babeltrace2 q.ctf >ctf.txt 2>bt.err || fail "babeltrace2: $(cat bt.err)"
	sed -nE 's/.*procname = "([^"]*)".*name = "(work_[ab])".*/\2:\1/p' ctf.txt | tr '\n' ' ' >got
	[ "$(cat got)" = "work_a:by-main-0 work_a:by-main-1 work_a:by-main-2 work_a:by-main-3 work_b:spawner " ] ||
		fail "ctf procname: $(cat got) $(grep -m 3 work_ ctf.txt)"
fi
exit 0
