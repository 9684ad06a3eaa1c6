# description: export of a program with 80 threads running at once: Chrome JSON (each thread's calls paired and nested, X or B/E) and speedscope (one profile per thread, the first written as it goes, the others spilled and copied: by sendfile to a file or a pipe, by hand to a file opened to append, byte for byte the same) give every thread its exact calls
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd python3
cat >mt.c <<'C'
#include <pthread.h>
#define NOINLINE __attribute__((noinline))
#define THREADS 80
#define ITER 300
volatile int sink;
static pthread_barrier_t go;
NOINLINE int leaf(int x) { return x + sink; }
NOINLINE int mid(int x) { return leaf(x) + leaf(x + 1); }
NOINLINE void *worker(void *arg)
{
	pthread_barrier_wait(&go); /* all at once: their events interleave */
	for (int i = 0; i < ITER; i++)
		sink += mid(i);
	return arg;
}
int main(void)
{
	pthread_t t[THREADS];

	pthread_barrier_init(&go, NULL, THREADS);
	for (int i = 0; i < THREADS; i++)
		pthread_create(&t[i], NULL, worker, NULL);
	for (int i = 0; i < THREADS; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
build mt gcc -O1 -pg -mfentry mt.c -lpthread || fail "build"
"$FTRAIL" record -o t.dat -- ./mt >rec.out 2>rec.err || fail "record: $(cat rec.err)"
grep -q '(0 lost)' rec.err || fail "the recording lost events: $(cat rec.err)"
"$FTRAIL" export --format chrome -i t.dat -o t.json 2>err || fail "export chrome: $(cat err)"
"$FTRAIL" export --format speedscope -i t.dat -o t.ss.json 2>err || fail "export speedscope: $(cat err)"
# the spilled threads are copied in the kernel to a file or a pipe, and by
# hand where it refuses (an output opened to append): the same bytes
"$FTRAIL" export --format speedscope -i t.dat -o - 2>err | cat >pipe.ss.json ||
	fail "export speedscope to a pipe: $(cat err)"
cmp t.ss.json pipe.ss.json || fail "speedscope to a pipe differs from the file"
: >app.ss.json
"$FTRAIL" export --format speedscope -i t.dat -o - >>app.ss.json 2>err ||
	fail "export speedscope appended: $(cat err)"
cmp t.ss.json app.ss.json || fail "speedscope appended to a file differs"
# one line per call: tid start dur name (pairing and nesting checked)
python3 "$TOP/tests/tools/chrome_calls.py" --names t.json >calls.txt || fail "chrome calls"
python3 - <<'PY' || fail "per-thread calls differ"
import collections, json
per = collections.defaultdict(collections.Counter)
for l in open("calls.txt"):
    tid, _, _, name = l.split(" ", 3)
    per[int(tid)][name.strip()] += 1
workers = {t: c for t, c in per.items() if c["worker"]}
assert len(workers) == 80, len(workers)
for t, c in workers.items():
    got = {n: c[n] for n in ("worker", "mid", "leaf")}
    assert got == {"worker": 1, "mid": 300, "leaf": 600}, (t, got)
ss = json.load(open("t.ss.json"))
frames = [f["name"] for f in ss["shared"]["frames"]]
profiles = {}
for p in ss["profiles"]:
    tid = int(p["name"].rsplit("(tid ", 1)[1].rstrip(")"))
    opened, c, at = [], collections.Counter(), p["startValue"]
    for e in p["events"]:
        assert e["at"] >= at, ("time goes back", p["name"], e)
        at = e["at"]
        if e["type"] == "O":
            opened.append(e["frame"])
        else:
            assert opened and opened.pop() == e["frame"], ("unbalanced", p["name"], e)
            c[frames[e["frame"]]] += 1
    assert not opened, ("left open", p["name"])
    profiles[tid] = c
# every thread's profile holds what the Chrome export says it ran
assert set(profiles) == set(per), (sorted(profiles), sorted(per))
for t in per:
    assert profiles[t] == per[t], (t, profiles[t], per[t])
print(len(workers), "workers,", sum(sum(c.values()) for c in per.values()), "calls")
PY
exit 0
