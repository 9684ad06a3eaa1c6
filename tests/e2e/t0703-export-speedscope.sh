# description: export --format speedscope: schema-shaped evented profiles per thread (balanced O/C, times in order, shared frames), from synthetic traces and folded stacks
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
for s in graph threads lost; do mktrace $s $s.dat; done
cat >check.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["$schema"] == "https://www.speedscope.app/file-format-schema.json"
frames = [f["name"] for f in d["shared"]["frames"]]
out = []
for p in d["profiles"]:
    assert p["type"] == "evented" and p["unit"] == "nanoseconds", p
    st, at = [], p["startValue"]
    for e in p["events"]:
        assert e["at"] >= at, ("time goes back", e)
        at = e["at"]
        assert 0 <= e["frame"] < len(frames)
        if e["type"] == "O":
            st.append(e["frame"])
        else:
            assert e["type"] == "C" and st and st.pop() == e["frame"], ("bad close", e)
    assert not st and at <= p["endValue"], p["name"]
    calls = sum(1 for e in p["events"] if e["type"] == "C")
    out.append("%s:%d" % (p["name"], calls))
print(" ".join(out), "frames=" + ",".join(frames))
PY
$FTRAIL export --format speedscope -i graph.dat -o graph.ss.json 2>err || fail "export graph: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
got=$(python3 check.py graph.ss.json) || fail "graph: invalid profile"
[ "$got" = "prog (tid 1000):4 frames=main,foo,bar,baz" ] || fail "graph: $got"
python3 -c '
import json
p = json.load(open("graph.ss.json"))["profiles"][0]
assert (p["startValue"], p["endValue"]) == (0, 200000), p
assert p["events"][2] == {"type": "O", "frame": 2, "at": 2000}, p["events"][2]
assert p["events"][3] == {"type": "C", "frame": 2, "at": 3382}, p["events"][3]' || fail "graph times"

$FTRAIL export --format speedscope -i threads.dat -o threads.ss.json || fail "export threads"
got=$(python3 check.py threads.ss.json) || fail "threads: invalid profile"
[ "$got" = "prog (tid 1000):3 worker-thread (tid 1001):1 frames=main,worker,foo,handler" ] || fail "threads: $got"

$FTRAIL export --format speedscope -i lost.dat -o lost.ss.json 2>/dev/null || fail "export lost"
got=$(python3 check.py lost.ss.json) || fail "lost: invalid profile"
[ "$got" = "prog (tid 1000):4 frames=main,foo,bar,baz" ] || fail "lost: $got"
grep -q '"name":"lost.dat (9 events lost)"' lost.ss.json || fail "lost total not in the name"

printf 'main;a;b 3\nmain;a 2\nmain;c 5\n' >in.folded
$FTRAIL export --format speedscope --from-folded in.folded -o f.ss.json || fail "export folded"
got=$(python3 check.py f.ss.json) || fail "folded: invalid profile"
[ "$got" = "folded stacks (tid 1):4 frames=main,a,b,c" ] || fail "folded: $got"

# a trace with no calls still gives a document speedscope accepts
mktrace func func.dat
$FTRAIL export --format speedscope -i func.dat -o func.ss.json || fail "export func"
python3 check.py func.ss.json >/dev/null || fail "func: invalid document"

# bad input and usage: one line, non-zero, no output left behind
expect_fail "ftrail: export: --format chrome|speedscope|perfetto|pprof|ctf is required" $FTRAIL export -i graph.dat -o x.json
expect_fail "ftrail: export: unknown format 'svg'*" $FTRAIL export --format svg -i graph.dat -o x.json
expect_fail "ftrail: export: -o FILE is required*" $FTRAIL export --format chrome -i graph.dat
expect_fail "ftrail: missing.dat*" $FTRAIL export --format chrome -i missing.dat -o x.json
[ -e x.json ] && fail "a failed export left x.json"
mktrace badmagic bad.dat
expect_fail "ftrail: *bad.dat*" $FTRAIL export --format speedscope -i bad.dat -o x.json
expect_fail "ftrail: export: unknown option*" $FTRAIL export --bogus
printf 'main;a\n' >bad.folded
expect_fail "ftrail: bad.folded:1: not a folded-stack line*" $FTRAIL export --format chrome --from-folded bad.folded -o y.json
[ -e y.json ] && fail "a failed export left y.json (half written)"
exit 0
