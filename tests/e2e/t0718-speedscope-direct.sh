# description: export --format speedscope writes the first thread's profile as it goes: a one-thread trace needs no temporary file, and every thread's profile keeps all its calls
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_cmd python3
cat >p.c <<'C'
#include <pthread.h>
#include <stdlib.h>
#define NOINLINE __attribute__((noinline))
volatile int sink;
NOINLINE void leaf(int i) { sink += i; }
NOINLINE void mid(int i) { leaf(i); leaf(i + 1); }
NOINLINE void *work(void *arg) { for (int i = 0; i < 20000; i++) mid(i); return arg; }
int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	pthread_t t[4];

	for (int i = 0; i < n; i++)
		pthread_create(&t[i], NULL, work, NULL);
	work(NULL);
	for (int i = 0; i < n; i++)
		pthread_join(t[i], NULL);
	return 0;
}
C
build p gcc -O1 -pg -mfentry p.c -lpthread || fail "build"
rec one.dat -b 65536 -- ./p 0
rec three.dat -b 65536 -- ./p 2

# calls per thread as the document has them, and that it is well formed
cat >check.py <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
frames = [f["name"] for f in d["shared"]["frames"]]
out = []
for p in d["profiles"]:
    st, at = [], p["startValue"]
    for e in p["events"]:
        assert e["at"] >= at, ("time goes back", e)
        at = e["at"]
        if e["type"] == "O":
            st.append(e["frame"])
        else:
            assert st and st.pop() == e["frame"], ("bad close", e)
    assert not st and at <= p["endValue"], p["name"]
    n = {}
    for e in p["events"]:
        if e["type"] == "C" and frames[e["frame"]] in ("work", "mid", "leaf"):
            n[frames[e["frame"]]] = n.get(frames[e["frame"]], 0) + 1
    out.append("%d/%d/%d" % (n.get("work", 0), n.get("mid", 0), n.get("leaf", 0)))
print(len(d["profiles"]), " ".join(out), d["name"])
PY

# one thread: 100,000 calls are ~3 MB of events, far beyond the 32 KiB a
# buffered thread keeps before it spills: with no usable TMPDIR the
# export must still work, so nothing went through a temporary file
TMPDIR=$PWD/nonexistent "$FTRAIL" export --format speedscope -i one.dat -o one.json 2>err ||
	fail "one thread without a temporary directory: $(cat err)"
got=$(python3 check.py one.json) || fail "one.json is not a valid profile"
[ "$got" = "1 1/20000/40000 one.dat" ] || fail "one thread: $got"

# three threads: the first one straight out, the others through the
# temporary file; each keeps its 20000 mid and 40000 leaf calls
"$FTRAIL" export --format speedscope -i three.dat -o three.json 2>err || fail "three threads: $(cat err)"
got=$(python3 check.py three.json) || fail "three.json is not a valid profile"
[ "$got" = "3 1/20000/40000 1/20000/40000 1/20000/40000 three.dat" ] || fail "three threads: $got"
# and those need the temporary file: with none, a clear error, no output
expect_fail "ftrail: bad.json: write error: *" env TMPDIR=$PWD/nonexistent "$FTRAIL" export --format speedscope -i three.dat -o bad.json
[ -e bad.json ] && fail "a failed export left bad.json"
exit 0
