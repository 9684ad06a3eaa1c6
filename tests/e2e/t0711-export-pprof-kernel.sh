# description: export --format pprof of kernel data: --profile stacks holds the -T kernel stacks with the counts ftrail stacks prints, --profile offcpu the direct samples and aggregates of ftrail offcpu with its interval counts and off-CPU time
# requires: root tracefs cc go python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_tracefs
need_cmd cc
need_cmd go
need_cmd python3
go tool pprof -h >/dev/null 2>&1 || skip "go tool pprof does not run here"
export PPROF_BINARY_PATH=/nonexistent HOME=$PWD
PP="go tool pprof -nodefraction=0 -edgefraction=0 -nodecount=100000"

# kernel stacks (-T) of a short system-wide recording
: >rec.err
$FTRAIL record -e sched:sched_switch -e sched:sched_wakeup -T -a -o k.dat >rec.out 2>rec.err &
KREC=$!
for _ in $(seq 200); do grep -q 'recording kernel events' rec.err && break; sleep 0.05; done
for i in $(seq 20); do sleep 0.01; done
kill -INT $KREC; wait $KREC || fail "record failed: $(cat rec.err)"
$FTRAIL stacks -i k.dat --kernel --format folded >k.folded || fail "stacks --format folded"
$FTRAIL export --format pprof --profile stacks -i k.dat -o k.pb.gz 2>err || fail "export: $(cat err)"
$PP -traces k.pb.gz >k.traces 2>/dev/null || fail "pprof -traces"
total=$(awk '{ s += $NF } END { print s }' k.folded)
[ "$total" -gt 0 ] || fail "no kernel stacks recorded"
$PP -top k.pb.gz >k.top 2>/dev/null || fail "pprof -top"
grep -q "^File: \[kernel.kallsyms\]" k.top || fail "no kernel mapping: $(head -n 3 k.top)"
python3 - "$total" <<'PY' || fail "pprof -traces kernel stacks differ from ftrail stacks"
import collections, re, sys
want = collections.Counter()
for l in open("k.folded"):
    st, n = l.rsplit(" ", 1)
    want[tuple(reversed(st.split(";")))] += int(n)
got = collections.Counter()
kinds = collections.Counter()
for b in open("k.traces").read().split("-----------+")[1:]:
    lines = b.splitlines()[1:]
    kind = [l.split()[-1] for l in lines if re.match(r"\s+stack:  ", l)]
    lines = [l for l in lines if l.strip() and not re.match(r"\s+\S+:  ", l)]
    if not lines: continue
    n, first = lines[0].split()
    if kind == ["kernel"]:
        got[(first,) + tuple(l.split()[0] for l in lines[1:])] += int(n)
    kinds[kind[0] if kind else "?"] += int(n)
assert got == want, (len(got), len(want), list(set(got.items()) ^ set(want.items()))[:4])
assert sum(got.values()) == int(sys.argv[1])
print("%d kernel stacks, %d unique, match; by kind %s" % (sum(want.values()), len(want), dict(kinds)))
PY

# off-CPU: the program blocks in known ways, long and short
cc -O1 -g -pg -mfentry -pthread -o blocks "$TOP/tests/progs/offcpu_blocks.c" || fail "cannot build offcpu_blocks"
timeout 120 $FTRAIL offcpu --record --threshold 50 -o off.dat -- ./blocks --long 200 --short 10 --count 3 \
	>out 2>rec.err || fail "offcpu --record: $(cat rec.err)"
grep -q 'not complete in this build' rec.err && skip "offcpu --record -- PROG needs the user-space recorder"
$FTRAIL offcpu -i off.dat --threshold 50 >report.txt || fail "offcpu report"
$FTRAIL export --format pprof --profile offcpu --threshold 50 -i off.dat -o off.pb.gz || fail "export offcpu"
$PP -top -unit=ns off.pb.gz >off.top 2>/dev/null || fail "pprof -top offcpu"
$PP -top -sample_index=intervals off.pb.gz >off.n 2>/dev/null || fail "pprof -top intervals"
$PP -top -sample_index=intervals -tagfocus=sample=direct off.pb.gz >off.direct 2>/dev/null ||
	fail "pprof -tagfocus direct"
$PP -traces -tagfocus=sample=direct off.pb.gz >off.traces 2>/dev/null || fail "pprof -traces offcpu"
# "# off-CPU 2.148634 s in 106 intervals of 8 threads: 8 direct samples (1.658969 s), ..."
read -r secs n direct <<<"$(sed -n 's/^# off-CPU \([0-9.]*\) s in \([0-9]*\) intervals.*: \([0-9]*\) direct samples.*/\1 \2 \3/p' report.txt)"
[ -n "$n" ] || fail "no summary in the offcpu report: $(head -n 4 report.txt)"
ns=$(sed -n 's/^Showing nodes accounting for [0-9]*ns, [0-9.]*% of \([0-9]*\)ns total$/\1/p' off.top)
[ -n "$ns" ] || fail "no total in pprof -top: $(head -n 6 off.top)"
# the report prints microseconds: the profile's ns, truncated, must agree
[ "$(printf '%d.%06d' $((ns / 1000000000)) $((ns / 1000 % 1000000)))" = "$secs" ] ||
	fail "off-CPU time: pprof $ns ns, report $secs s"
grep -q "of $n total\$" off.n || fail "intervals: report $n, pprof $(grep total off.n)"
grep -q "accounting for $direct, " off.direct || fail "direct samples: report $direct, pprof $(grep total off.direct)"
[ "$direct" -ge 4 ] || fail "only $direct direct samples (want the 4 long waits)"
[ "$(grep -c 'sample:  direct' off.traces)" = "$direct" ] || fail "-traces shows $(grep -c 'sample:  direct' off.traces) direct samples, want $direct"
grep -q ' time:  ' off.traces || fail "direct samples carry no time label"
# a direct sample's call chain: kernel leaf first, then the user frames
awk '/offcpu_sleep_long/ { u = NR } /__schedule/ && !k { k = NR } END { exit !(k && u && k < u) }' off.traces ||
	fail "no kernel-then-user chain for the long sleep: $(head -n 40 off.traces)"
exit 0
