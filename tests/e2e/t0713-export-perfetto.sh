# description: export --format perfetto: protoc --decode reads the trace against the schema subset; one sequence with interned names, process/thread tracks, slices balanced per track with the names and counts of the Chrome export of the same trace, instants with typed annotations, a lost-events counter
# requires: cc protoc python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd protoc
need_cmd python3
. "$TOP/tests/e2e/lib_recorded.sh"
need_runtime
PROTO=third_party/perfetto/perfetto_trace.proto
[ -r "$TOP/$PROTO" ] || fail "no $PROTO"
decode() { protoc --proto_path="$TOP" --decode perfetto.protos.Trace "$PROTO" <"$1" >"$2" 2>dec.err ||
	fail "protoc --decode $1: $(head -n 3 dec.err)"; }
record_twothreads -DWORKER_NAME='"pf-worker"'
mktrace lost lost.dat
cat >check.py <<'PY'
import collections, json, re, sys
def parse(path):
    root = {"packet": []}; stack = [root]
    for l in open(path):
        l = l.strip()
        if l.endswith("{"):
            d = {}; stack[-1].setdefault(l[:-1].strip(), []).append(d); stack.append(d)
        elif l == "}": stack.pop()
        elif l:
            k, v = l.split(": ", 1)
            stack[-1].setdefault(k, []).append(json.loads(v) if v.startswith('"') else v)
    return root["packet"]
def one(d, k, default=None): return d.get(k, [default])[0]
pk = parse(sys.argv[1])
chrome = json.load(open(sys.argv[2]))["traceEvents"]
assert pk and all(one(p, "trusted_packet_sequence_id") == "1" for p in pk), "sequence ids"
assert one(pk[0], "sequence_flags") == "3" and all(one(p, "sequence_flags") == "2" for p in pk[1:])
names = {}; cats = {}; anns = {}; threads = {}; procs = {}; counters = {}
depth = collections.Counter(); begins = collections.Counter(); inst = []; lost = []
for p in pk:
    for idt in p.get("interned_data", []):
        for k, tab in (("event_names", names), ("event_categories", cats), ("debug_annotation_names", anns)):
            for e in idt.get(k, []):
                iid = int(one(e, "iid")); assert iid not in tab, ("iid reused", k, iid); tab[iid] = one(e, "name")
    for td in p.get("track_descriptor", []):
        u = one(td, "uuid")
        if "thread" in td:
            th = td["thread"][0]; threads[u] = (int(one(th, "pid")), int(one(th, "tid")), one(th, "thread_name"))
            assert one(td, "parent_uuid") in procs, "thread track before its process"
        elif "process" in td:
            pr = td["process"][0]; procs[u] = (int(one(pr, "pid")), one(pr, "process_name") or procs.get(u, (0, None))[1])
        elif "counter" in td: counters[u] = one(td, "name")
    for tev in p.get("track_event", []):
        t = one(tev, "type"); u = one(tev, "track_uuid")
        assert "timestamp" in p, p
        if t == "TYPE_SLICE_BEGIN":
            assert u in threads, ("slice on an undescribed track", u)
            depth[u] += 1; begins[(threads[u][1], names[int(one(tev, "name_iid"))])] += 1
            assert cats[int(one(tev, "category_iids"))] == "function"
        elif t == "TYPE_SLICE_END":
            depth[u] -= 1; assert depth[u] >= 0, ("end without begin", u)
        elif t == "TYPE_INSTANT":
            a = {anns[int(one(d, "name_iid"))]: (int(one(d, "int_value")) if "int_value" in d else one(d, "string_value")) for d in tev.get("debug_annotations", [])}
            (lost if names[int(one(tev, "name_iid"))] == "lost events" else inst).append((names[int(one(tev, "name_iid"))], a))
        elif t == "TYPE_COUNTER":
            assert counters.get(u) == "lost events"; lost.append(("counter", int(one(tev, "counter_value"))))
assert not any(depth.values()), ("unbalanced", depth)
cb = collections.Counter((e["tid"], e["name"]) for e in chrome if e["ph"] in ("B", "X"))
assert begins == cb, ("slices differ from chrome's calls", begins - cb, cb - begins)
ci = [e for e in chrome if e["ph"] == "i" and e["name"] != "lost events"]
assert len(inst) == len(ci), (len(inst), len(ci))
tn = {e["tid"]: e["args"]["name"] for e in chrome if e["ph"] == "M" and e["name"] == "thread_name"}
got = {}
for pid, tid, n in threads.values():
    if n: got[tid] = n
assert got == tn, (got, tn)
print("%d packets, %d slices on %d threads, %d instants, lost %s" % (len(pk), sum(begins.values()), len(threads), len(inst), lost))
for kv in sys.argv[3:]:
    k, v = kv.rsplit("=", 1)
    assert str(eval(k)) == v, (k, eval(k), v)
PY

$FTRAIL export --format perfetto -i p.dat -o p.pftrace 2>err || fail "export: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
$FTRAIL export --format chrome -i p.dat -o p.json || fail "chrome export"
decode p.pftrace p.txt
python3 check.py p.txt p.json "sum(begins.values())=$((1 + 1 + 50 + 350 + 7))" \
	"sorted(set(n for _, _, n in threads.values()))=['pf-worker', 'prog']" || fail "p.pftrace"

# lost events: the counter's running total and an instant with each count
$FTRAIL export --format perfetto -i lost.dat -o lost.pftrace 2>err || fail "export lost"
$FTRAIL export --format chrome -i lost.dat -o lost.json 2>/dev/null || fail "chrome lost"
decode lost.pftrace lost.txt
python3 check.py lost.txt lost.json \
	"lost=[('counter', 7), ('lost events', {'count': 7}), ('counter', 9), ('lost events', {'count': 2})]" ||
	fail "lost.pftrace"
# markers: instants whose text is a string annotation
mktrace graph graph.dat
$FTRAIL export --format perfetto -i graph.dat -o graph.pftrace || fail "export graph"
$FTRAIL export --format chrome -i graph.dat -o graph.json || fail "chrome graph"
decode graph.pftrace graph.txt
python3 check.py graph.txt graph.json "inst=[('trace_marker', {'text': 'hello'})]" || fail "graph.pftrace"

# kernel events: instants with their fields, integers typed
if have_tracefs; then
	$FTRAIL record -e sched:sched_switch -T -o k.dat -- ./prog >/dev/null 2>k.err || fail "kernel record: $(cat k.err)"
	$FTRAIL export --format perfetto -i k.dat -o k.pftrace || fail "export k.dat"
	$FTRAIL export --format chrome -i k.dat -o k.json || fail "chrome k.dat"
	decode k.pftrace k.txt
	python3 check.py k.txt k.json \
		"all(isinstance(a['prev_pid'], int) and isinstance(a['prev_comm'], str) for n, a in inst if n == 'sched_switch')=True" \
		"len([1 for n, a in inst if n == 'sched_switch']) > 0=True" || fail "k.pftrace"
else
	echo "kernel part skipped: needs root and tracefs"
fi
exit 0
