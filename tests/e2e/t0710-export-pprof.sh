# description: export --format pprof: go tool pprof reads the profile of a recorded program (-pg, two threads, recursion) and prints report's total/self times and calls (-top) and stacks' counts per stack (-traces), with DWARF lines, build id and thread labels; empty profiles and bad options are refused
# requires: cc go python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd go
need_cmd python3
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
. "$TOP/tests/e2e/lib_recorded.sh"
need_runtime
# pprof must not look anything up on the network
export PPROF_BINARY_PATH=/nonexistent HOME=$PWD
record_twothreads -DWORKER_NAME='"pp-worker"' -DFIB=8 -DNAP_US=1000

$FTRAIL export --format pprof -i p.dat -o p.pb.gz 2>err || fail "export: $(cat err)"
[ -s err ] && fail "unexpected stderr: $(cat err)"
gzip -t p.pb.gz || fail "not a gzip file"
PP="go tool pprof -nodefraction=0 -edgefraction=0 -nodecount=100000"
$PP -top -unit=ns p.pb.gz >top.wall 2>pp.err || fail "pprof -top: $(cat pp.err)"
$PP -top -sample_index=calls p.pb.gz >top.calls 2>pp.err || fail "pprof -top calls: $(cat pp.err)"
$FTRAIL report -i p.dat >report.txt || fail "report"
# report's cells are uftrace's ("2.441 ms": truncated, 3 decimals): pprof's
# exact nanoseconds, written the same way, must give the same cells
python3 - <<'PY' || fail "pprof -top disagrees with ftrail report"
import re
def cell(ns):
    units, limit = ["us", "ms", " s", " m", " h"], [1000, 1000, 1000, 60, 24, 1 << 64]
    v, i = ns, 0
    while True:
        rem = v % limit[i]; v //= limit[i]
        if v < limit[i + 1] or i == len(units) - 1: break
        i += 1
    return "%d.%03d %s" % (v, rem, units[i])
def top(path, unit):
    rows = {}
    for l in open(path):
        m = re.match(r"\s*(\d+)%s\s+\S+\s+\S+\s+(\d+)%s\s+\S+\s+(\S+)$" % (unit, unit), l)
        if m: rows[m.group(3)] = (int(m.group(1)), int(m.group(2)))
    return rows
wall, calls = top("top.wall", "ns"), top("top.calls", "")
rep = {}
for l in open("report.txt"):
    m = re.match(r"\s+(\d+\.\d{3} ..)\s+(\d+\.\d{3} ..)\s+(\d+)\s+(\S+)$", l)
    if m: rep[m.group(4)] = (m.group(1), m.group(2), int(m.group(3)))
assert rep and set(rep) == set(wall) == set(calls), (sorted(rep), sorted(wall), sorted(calls))
for f, (tot, self, n) in rep.items():
    assert cell(wall[f][1]) == tot, ("total", f, tot, wall[f])
    assert cell(wall[f][0]) == self, ("self", f, self, wall[f])
    assert calls[f][0] == n, ("calls", f, n, calls[f])
for f in ("main", "mid", "leaf", "fib", "worker"): assert f in rep, f
assert rep["leaf"][2] == 350 and rep["mid"][2] == 50 and rep["fib"][2] == 67, rep
print("pprof -top matches report for %d functions" % len(rep))
PY
# totals: the profile's total wall time is the sum of report's self times
grep -q '^Type: wall' top.wall || fail "default sample type is not wall: $(head -n 5 top.wall)"
grep -q '^Build ID: [0-9a-f]\{40\}' top.wall || fail "no build id of the main mapping: $(head -n 3 top.wall)"
# DWARF: functions carry the source file and line
$PP -top -lines p.pb.gz >top.lines 2>/dev/null || fail "pprof -lines"
for f in leaf fib; do
	line=$(grep -n "^static .* $f(" prog.c | cut -d: -f1)
	grep -q " $f .*prog\\.c:$line\$" top.lines || fail "no file:line ($line) for $f: $(grep "$f" top.lines)"
done
# -traces: samples per thread, labelled; the recursion's paths are whole
$PP -traces p.pb.gz >traces 2>/dev/null || fail "pprof -traces"
grep -q 'thread:  pp-worker' traces || fail "no thread label: $(head -n 20 traces)"
grep -Eq '^ +tid:  [0-9]+$' traces || fail "no tid label"
python3 - <<'PY' || fail "pprof -traces paths"
blocks = open("traces").read().split("-----------+")[1:]
paths = []
for b in blocks:
    fr = [l.split()[-1] for l in b.splitlines() if l.startswith(" ") and not l.strip().endswith(":") and ":  " not in l]
    paths.append(tuple(fr))
assert ("leaf", "mid", "worker") in paths, paths
assert ("leaf", "mid", "main") in paths, paths
assert ("fib",) * 8 + ("main",) in paths, [p for p in paths if p[0] == "fib"]
PY

# stacks: user stacks of -O stacktrace records, as ftrail stacks counts them
$FTRAIL record -O stacktrace -o s.dat -- ./prog >out 2>rec.err || fail "record -O stacktrace: $(cat rec.err)"
$FTRAIL export --format pprof --profile stacks -i s.dat -o s.pb.gz || fail "export stacks"
$FTRAIL stacks -i s.dat --format folded >s.folded || fail "stacks --format folded"
$PP -traces s.pb.gz >s.traces 2>/dev/null || fail "pprof -traces stacks"
$PP -top s.pb.gz >s.top 2>/dev/null || fail "pprof -top stacks"
total=$(awk '{ s += $NF } END { print s }' s.folded)
grep -q "of $total total\$" s.top || fail "pprof total is not stacks' $total: $(grep total s.top)"
python3 - <<'PY' || fail "pprof -traces stacks differ from ftrail stacks --format folded"
import collections, re
want = collections.Counter()
for l in open("s.folded"):
    st, n = l.rsplit(" ", 1)
    want[tuple(reversed(st.split(";")))] += int(n)
got = collections.Counter()
for b in open("s.traces").read().split("-----------+")[1:]:
    lines = [l for l in b.splitlines()[1:] if l.strip() and not re.match(r"\s+\S+:  ", l)]
    if not lines: continue
    n, first = lines[0].split()
    got[(first,) + tuple(l.split()[0] for l in lines[1:])] += int(n)
assert got == want, (set(got.items()) ^ set(want.items()))
print("%d unique stacks match" % len(want))
PY

# bad input: one line, non-zero exit, no output left behind
expect_fail "*the stacks profile is empty*-T*stacktrace*" $FTRAIL export --format pprof --profile stacks -i p.dat -o e.pb.gz
expect_fail "*the offcpu profile is empty*sched_switch*" $FTRAIL export --format pprof --profile offcpu -i p.dat -o e.pb.gz
[ -e e.pb.gz ] || [ -e e.pb.gz.partial ] && fail "a refused export left a file"
$FTRAIL record -p nop -o nop.dat -- ./prog >/dev/null 2>&1 || fail "record -p nop"
expect_fail "*the graph profile is empty*function_graph*" $FTRAIL export --format pprof -i nop.dat -o e.pb.gz
expect_fail "*unknown profile 'heap'*" $FTRAIL export --format pprof --profile heap -i p.dat -o e.pb.gz
expect_fail "*unknown format 'svg'*" $FTRAIL export --format svg -i p.dat -o e.json
expect_fail "*--profile is for --format pprof*" $FTRAIL export --format chrome --profile graph -i p.dat -o e.json
expect_fail "*cannot open nosuch.dat*" $FTRAIL export --format pprof -i nosuch.dat -o e.pb.gz
exit 0
