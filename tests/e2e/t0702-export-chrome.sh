# description: export --format chrome: valid Trace Event JSON from synthetic traces (B/E and X calls, µs timestamps with ns fraction, pid/tid, thread names, markers, lost-event markers, depth resync) and from folded stacks
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
for s in graph threads lost func; do mktrace $s $s.dat; done

# checker: JSON parses, B/E balance per thread, counts by phase
cat >check.py <<'PY'
import json, sys, collections
d = json.load(open(sys.argv[1]))
ev = d["traceEvents"]
ph = collections.Counter(e["ph"] for e in ev)
depth = collections.Counter()
for e in ev:
    assert isinstance(e["pid"], int) and isinstance(e["tid"], int), e
    assert isinstance(e["ts"], (int, float)) and e["ts"] >= 0, e
    if e["ph"] == "B":
        depth[e["tid"]] += 1
    elif e["ph"] == "E":
        depth[e["tid"]] -= 1
        assert depth[e["tid"]] >= 0, ("E without B", e)
    elif e["ph"] == "X":
        assert e["dur"] >= 0, e
assert not any(depth.values()), ("unbalanced", depth)
print(" ".join("%s=%d" % kv for kv in sorted(ph.items())))
PY
$FTRAIL export --format chrome -i graph.dat -o graph.json 2>err || fail "export graph: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
[ "$(python3 check.py graph.json)" = "B=4 E=4 M=2 i=1" ] || fail "graph counts: $(python3 check.py graph.json)"
python3 - <<'PY' || fail "graph.json content"
import json
ev = json.load(open("graph.json"))["traceEvents"]
b = [e for e in ev if e["ph"] == "B"]
assert [e["name"] for e in b] == ["main", "foo", "bar", "baz"], b
assert all(e["pid"] == 1000 and e["tid"] == 1000 for e in b)
# bar ran 1.382 us: the ns survive as the fraction of the us timestamp
bar_b = b[2]["ts"]; bar_e = [e for e in ev if e["ph"] == "E"][0]["ts"]
assert abs((bar_e - bar_b) - 1.382) < 1e-9, (bar_b, bar_e)
names = {e["name"]: e["args"]["name"] for e in ev if e["ph"] == "M"}
assert names == {"process_name": "prog", "thread_name": "prog"}, names
m = [e for e in ev if e["ph"] == "i"][0]
assert m["name"] == "trace_marker" and m["args"]["text"] == "hello" and m["s"] == "t", m
PY
grep -q '"ts":2.000,' graph.json || fail "timestamps are not written as us.nnn"

# X events: one per call, same durations
$FTRAIL export --format chrome --complete -i graph.dat -o graphx.json || fail "--complete"
[ "$(python3 check.py graphx.json)" = "M=2 X=4 i=1" ] || fail "--complete counts: $(python3 check.py graphx.json)"
python3 -c '
import json
x = {e["name"]: e["dur"] for e in json.load(open("graphx.json"))["traceEvents"] if e["ph"] == "X"}
assert x == {"main": 200.0, "foo": 14.0, "bar": 1.382, "baz": 0.5}, x' || fail "X durations"

# two threads and a signal handler: each thread balanced, thread names as metadata
$FTRAIL export --format chrome -i threads.dat -o threads.json || fail "export threads"
[ "$(python3 check.py threads.json)" = "B=4 E=4 M=3 i=1" ] || fail "threads counts: $(python3 check.py threads.json)"
grep -q '"name":"thread_name","args":{"name":"worker-thread"}' threads.json || fail "no worker thread name"

# lost events: markers with counts, the calls cut by the loss are closed
$FTRAIL export --format chrome -i lost.dat -o lost.json 2>err || fail "export lost"
grep -q "9 events were lost" err || fail "no warning about lost events: $(cat err)"
[ "$(python3 check.py lost.json)" = "B=4 E=4 M=2 i=2" ] || fail "lost counts: $(python3 check.py lost.json)"
python3 -c '
import json
d = json.load(open("lost.json"))
l = [e["args"]["count"] for e in d["traceEvents"] if e["ph"] == "i" and e["name"] == "lost events"]
assert l == [7, 2], l
assert d["otherData"]["lost_events"] == "9", d["otherData"]' || fail "lost markers"

# function tracer: hits are instant events with their parent
$FTRAIL export --format chrome -i func.dat -o func.json || fail "export func"
[ "$(python3 check.py func.json)" = "M=2 i=6" ] || fail "func counts: $(python3 check.py func.json)"
grep -q '"name":"bar","cat":"function","args":{"parent":"foo"}' func.json || fail "func parent"

# folded stacks as a timeline (1 count = 1 us by default)
printf 'main;a;b 3\nmain;a 2\nmain;c 5\n' >in.folded
$FTRAIL export --format chrome --from-folded in.folded -o f.json || fail "export folded"
[ "$(python3 check.py f.json)" = "B=4 E=4 M=2" ] || fail "folded counts: $(python3 check.py f.json)"
python3 -c '
import json
ev = [e for e in json.load(open("f.json"))["traceEvents"] if e["ph"] in "BE"]
s = [(e["ph"], e.get("name"), e["ts"]) for e in ev]
want = [("B","main",0),("B","a",0),("B","b",0),("E",None,3),("E",None,5),("B","c",5),("E",None,10),("E",None,10)]
assert s == want, s' || fail "folded timeline"
$FTRAIL export --format chrome --from-folded in.folded --sample-ns 1 -o - | python3 -c '
import json, sys
ev = json.load(sys.stdin)["traceEvents"]
assert max(e["ts"] for e in ev) == 0.01, ev' || fail "--sample-ns / -o -"
exit 0
