# description: a real recorded program (-pg, two threads, library calls) drawn and exported: folded self times add up to the Chrome export's call durations, every call appears once in Chrome and speedscope, threads named
# requires: cc python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd cc
need_cmd python3
. "$TOP/tests/e2e/lib_recorded.sh"
need_runtime
record_twothreads -DWORKER_NAME='"flame-worker"'
# calls: main 1, worker 1, mid 30 + 20, leaf 30*5 + 20*10, and 7 library
# calls: -pg's startup code's __monstartup and __cxa_atexit, pthread_create,
# pthread_self, pthread_setname_np (the runtime's wrapper, traced too),
# pthread_join, printf
want=$((1 + 1 + 50 + 350 + 7))

$FTRAIL flame -i p.dat --format folded >p.folded 2>err || fail "flame --format folded: $(cat err)"
grep -q '^main;mid;leaf [0-9]*$' p.folded || fail "no main;mid;leaf stack: $(cat p.folded)"
grep -q '^worker;mid;leaf [0-9]*$' p.folded || fail "no worker;mid;leaf stack: $(cat p.folded)"
$FTRAIL export --format chrome --complete -i p.dat -o p.json || fail "export chrome"
$FTRAIL export --format speedscope -i p.dat -o p.ss.json || fail "export speedscope"
python3 - "$want" <<'PY' || fail "cross-check failed"
import json, sys
want = int(sys.argv[1])
ev = json.load(open("p.json"))["traceEvents"]
x = [e for e in ev if e["ph"] == "X"]
names = {}
for e in x:
    names[e["name"]] = names.get(e["name"], 0) + 1
assert len(x) == want, (len(x), names)
assert names == {"main": 1, "worker": 1, "mid": 50, "leaf": 350, "__monstartup": 1,
                 "__cxa_atexit": 1, "pthread_create": 1, "pthread_self": 1,
                 "pthread_setname_np": 1, "pthread_join": 1, "printf": 1}, names
# outermost calls per thread: their durations (us.nnn = exact ns) add up to
# the folded self times of everything (an independent computation)
by_tid = {}
for e in x:
    by_tid.setdefault(e["tid"], []).append(e)
top = 0
for calls in by_tid.values():
    for c in calls:
        if not any(o is not c and o["ts"] <= c["ts"] and c["ts"] + c["dur"] <= o["ts"] + o["dur"]
                   and o["dur"] > c["dur"] for o in calls):
            top += round(c["dur"] * 1000)
folded = sum(int(l.rsplit(" ", 1)[1]) for l in open("p.folded"))
assert folded == top, (folded, top)
# every thread is named (which name depends on when the recorder read it:
# the worker renames itself after it started)
tn = {e["tid"]: e["args"]["name"] for e in ev if e["ph"] == "M" and e["name"] == "thread_name"}
assert set(by_tid) <= set(tn) and len(by_tid) == 2, (tn, list(by_tid))
ss = json.load(open("p.ss.json"))
closes = sum(1 for p in ss["profiles"] for e in p["events"] if e["type"] == "C")
assert closes == want, (closes, want)
assert len(ss["profiles"]) == 2 and all("(tid %d)" % t in " ".join(p["name"] for p in ss["profiles"]) for t in by_tid), [p["name"] for p in ss["profiles"]]
print("calls", len(x), "folded total ns", folded)
PY
$FTRAIL flame -i p.dat -o p.svg || fail "flame svg"
grep -q '<title>leaf' p.svg || fail "no leaf frame in the picture"
exit 0
