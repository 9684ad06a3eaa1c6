# description: export --format chrome: valid Trace Event JSON from synthetic traces (calls returned before anything else on their thread as X events, others as B/E pairs, all X with --complete, µs timestamps with ns fraction, pid/tid, thread names, markers, lost-event markers, depth resync) and from folded stacks
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
for s in graph threads lost func; do mktrace $s $s.dat; done

# checker: JSON parses, calls pair and nest per thread; counts calls (a B/E
# pair or an X event is one call) and the other events by phase
check() { python3 "$TOP/tests/tools/chrome_calls.py" "$@"; }
$FTRAIL export --format chrome -i graph.dat -o graph.json 2>err || fail "export graph: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
[ "$(check graph.json)" = "M=2 calls=4 i=1" ] || fail "graph counts: $(check graph.json)"
# calls by start, with their durations: bar ran 1.382 us (the ns survive as
# the fraction of the us timestamp); foo returned before anything else
# happened on its thread: one X event each, main (open across the marker)
# as a B/E pair
check --names graph.json >graph.calls || fail "graph calls"
printf '%s\n' "1000 0.000 200.000 main" "1000 1.000 14.000 foo" "1000 2.000 1.382 bar" \
	"1000 17.000 0.500 baz" | diff - graph.calls || fail "graph calls differ"
python3 - <<'PY' || fail "graph.json content"
import json
ev = json.load(open("graph.json"))["traceEvents"]
assert [e["name"] for e in ev if e["ph"] in "BX"] == ["main", "foo", "bar", "baz"], ev
assert [e["ph"] for e in ev if e["ph"] in "BEX"] == ["B", "X", "X", "X", "E"], ev
assert all(e["pid"] == 1000 and e["tid"] == 1000 for e in ev)
# calls have no category (they are the only duration events)
assert not any("cat" in e for e in ev if e["ph"] in "BX"), ev
names = {e["name"]: e["args"]["name"] for e in ev if e["ph"] == "M"}
assert names == {"process_name": "prog", "thread_name": "prog"}, names
m = [e for e in ev if e["ph"] == "i"][0]
assert m["name"] == "trace_marker" and m["args"]["text"] == "hello" and m["s"] == "t", m
PY
grep -q '"ts":2.000,' graph.json || fail "timestamps are not written as us.nnn"

# X events: one per call, same durations
$FTRAIL export --format chrome --complete -i graph.dat -o graphx.json || fail "--complete"
[ "$(check graphx.json)" = "M=2 calls=4 i=1" ] || fail "--complete counts: $(check graphx.json)"
python3 -c '
import json
ev = json.load(open("graphx.json"))["traceEvents"]
assert all(e["ph"] == "X" for e in ev if e["ph"] in "BEX"), ev
x = {e["name"]: e["dur"] for e in ev if e["ph"] == "X"}
assert x == {"main": 200.0, "foo": 14.0, "bar": 1.382, "baz": 0.5}, x' || fail "X durations"

# two threads and a signal handler: each thread balanced, thread names as metadata
$FTRAIL export --format chrome -i threads.dat -o threads.json || fail "export threads"
[ "$(check threads.json)" = "M=3 calls=4 i=1" ] || fail "threads counts: $(check threads.json)"
grep -q '"name":"thread_name","args":{"name":"worker-thread"}' threads.json || fail "no worker thread name"

# lost events: markers with counts, the calls cut by the loss are closed
$FTRAIL export --format chrome -i lost.dat -o lost.json 2>err || fail "export lost"
grep -q "9 events were lost" err || fail "no warning about lost events: $(cat err)"
[ "$(check lost.json)" = "M=2 calls=4 i=2" ] || fail "lost counts: $(check lost.json)"
# calls open across the loss are B/E pairs, not X events
[ "$(grep -c '"ph":"B"' lost.json)" = 3 ] || fail "calls open across a loss are not B/E pairs"
python3 -c '
import json
d = json.load(open("lost.json"))
l = [e["args"]["count"] for e in d["traceEvents"] if e["ph"] == "i" and e["name"] == "lost events"]
assert l == [7, 2], l
assert d["otherData"]["lost_events"] == "9", d["otherData"]' || fail "lost markers"

# function tracer: hits are instant events with their parent
$FTRAIL export --format chrome -i func.dat -o func.json || fail "export func"
[ "$(check func.json)" = "M=2 calls=0 i=6" ] || fail "func counts: $(check func.json)"
grep -q '"name":"bar","cat":"function","args":{"parent":"foo"}' func.json || fail "func parent"

# folded stacks as a timeline (1 count = 1 us by default)
printf 'main;a;b 3\nmain;a 2\nmain;c 5\n' >in.folded
$FTRAIL export --format chrome --from-folded in.folded -o f.json || fail "export folded"
[ "$(check f.json)" = "M=2 calls=4" ] || fail "folded counts: $(check f.json)"
python3 -c '
import json
ev = [e for e in json.load(open("f.json"))["traceEvents"] if e["ph"] in "BEX"]
s = [(e["ph"], e.get("name"), e["ts"], e.get("dur")) for e in ev]
want = [("X","main",0,10),("X","a",0,5),("X","b",0,3),("X","c",5,5)]
assert s == want, s' || fail "folded timeline"
$FTRAIL export --format chrome --from-folded in.folded --sample-ns 1 -o - | python3 -c '
import json, sys
ev = json.load(sys.stdin)["traceEvents"]
assert max(e["ts"] + e.get("dur", 0) for e in ev) == 0.01, ev' || fail "--sample-ns / -o -"
exit 0
