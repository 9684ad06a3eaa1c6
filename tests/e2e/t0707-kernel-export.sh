# description: kernel events in the pictures: a real sched_switch recording with stacks exports to Chrome JSON (one instant event per kernel event, fields as args, thread names) and draws a --stacks flame graph of kernel frames
# requires: root tracefs python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd python3
"$FTRAIL" record -e sched:sched_switch -T -o k.dat >rec.out 2>rec.err &
rec=$!
for _ in $(seq 200); do
	grep -q 'recording kernel events' rec.err && break
	kill -0 $rec 2>/dev/null || fail "record exited early: $(cat rec.err)"
	sleep 0.05
done
for _ in 1 2 3 4 5; do sleep 0.05; done
kill -INT $rec
wait $rec || fail "record failed: $(cat rec.err)"
n=$(sed -n 's/^ftrail: \([0-9]*\) kernel events (\([0-9]*\) lost).*/\1/p' rec.err)
lost=$(sed -n 's/^ftrail: \([0-9]*\) kernel events (\([0-9]*\) lost).*/\2/p' rec.err)
[ -n "$n" ] && [ "$n" -gt 0 ] || fail "no kernel events recorded: $(cat rec.err)"

$FTRAIL export --format chrome -i k.dat -o k.json 2>err || fail "export: $(cat err)"
python3 - "$n" "$lost" <<'PY' || fail "k.json check failed"
import json, sys, collections
n, lost = int(sys.argv[1]), int(sys.argv[2])
ev = json.load(open("k.json"))["traceEvents"]
inst = [e for e in ev if e["ph"] == "i" and e["name"] == "sched_switch"]
assert len(inst) == n, (len(inst), n)
e = inst[0]
assert e["cat"] == "sched" and isinstance(e["args"]["prev_pid"], int), e
assert "next_comm" in e["args"] and "cpu" in e["args"] and "kernel_stack" in e["args"], e
assert e["tid"] == e["args"]["prev_pid"], e
lm = sum(e["args"]["count"] for e in ev if e["ph"] == "i" and e["name"] == "lost events")
assert lm == lost, (lm, lost)
names = [e for e in ev if e["ph"] == "M" and e["name"] == "thread_name"]
assert names, "no thread names"
tids = {e["tid"] for e in inst}
named = {e["tid"] for e in names}
assert tids <= named, sorted(tids - named)[:5]
print("kernel events:", len(inst), "threads:", len(tids))
PY
$FTRAIL export --format speedscope -i k.dat -o k.ss.json || fail "speedscope export"
python3 -c 'import json; d = json.load(open("k.ss.json")); assert d["profiles"]' || fail "speedscope json"
$FTRAIL export --format chrome --no-kernel -i k.dat -o nok.json || fail "--no-kernel"
python3 -c '
import json
assert not [e for e in json.load(open("nok.json"))["traceEvents"] if e["ph"] == "i"]' || fail "--no-kernel kept kernel events"

$FTRAIL flame -i k.dat --stacks --format folded >k.folded || fail "flame --stacks"
awk -v n="$n" '{ s += $NF } END { exit !(s == n) }' k.folded ||
	fail "stack counts $(awk '{ s += $NF } END { print s }' k.folded), want $n"
grep -q '__schedule_\[k\]' k.folded || fail "no kernel frame names: $(head -n 2 k.folded)"
$FTRAIL flame -i k.dat --stacks -o k.svg || fail "flame --stacks svg"
grep -q 'Stack Count Flame Graph' k.svg || fail "title"
exit 0
