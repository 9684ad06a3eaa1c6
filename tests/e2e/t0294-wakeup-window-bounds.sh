# description: show's wakeup latency trace holds exactly ftrace's window, from the waking event to the switch that runs the task, both included, decided by the events and not their times: an event of the CPU at the waking's time but before it, or at the switch's time but after it, is out, and the header's count is the lines printed
# requires: python3
# asan: yes
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
# A wakeup trace built on the kernel seed (its formats, kallsyms, clock):
# META says tracer=wakeup and KDATA is replaced by, in the kernel's order,
#   CPU0 t0   sched_wakeup pid=999       same time as the waking, before it
#   CPU1 t0   sched_wakeup pid=4242      the waking (on another CPU)
#   CPU0 t1   sched_wakeup pid=998       inside
#   CPU0 t2   sched_switch next_pid=4242 the end of the window
#   CPU0 t2   sched_wakeup pid=996       same time as the switch, after it
python3 - "$TOP/tests/e2e/t0299-kfile.py" "$TOP/tests/fuzz/corpus/kern-offcpu-ustack" <<'PY' || fail "cannot build the file"
import re, struct, sys
exec(open(sys.argv[1]).read())
head, secs = read_sections(sys.argv[2])
out, fmts, ref = bytearray(head), {}, None
for typ, fl, sid, body in secs:
    if typ == 8:  # KFORMATS: u32 len, name, u32 len, data
        p = 0
        while p < len(body):
            n = struct.unpack_from("<I", body, p)[0]; name = body[p + 4:p + 4 + n].decode(); p += 4 + n
            n = struct.unpack_from("<I", body, p)[0]; data = body[p + 4:p + 4 + n].decode(); p += 4 + n
            if name.startswith("event:sched/"):
                f = {m[1]: (int(m[2]), int(m[3])) for m in re.finditer(r"field:[^;]*?(\w+)(?:\[\d+\])?;\s*offset:(\d+);\s*size:(\d+);", data)}
                fmts[name[12:]] = (int(re.search(r"ID: (\d+)", data)[1]), f)
    if typ == 1 and b"tsc_ref=" in body:
        ref = int(re.search(rb"tsc_ref=(\d+)", body)[1])
def rec(name, cpid, **vals):
    eid, f = fmts[name]
    size = max(o + s for o, s in f.values())
    b = bytearray(size)
    struct.pack_into("<HBBi", b, 0, eid, 0, 0, cpid)
    for k, v in vals.items():
        o, s = f[k]
        if isinstance(v, str):
            b[o:o + s] = v.encode().ljust(s, b"\0")[:s]
        else:
            b[o:o + s] = v.to_bytes(s, "little", signed=True)
    return bytes(b)
def wake(pid, waker):
    return rec("sched_wakeup", waker, comm="t%d" % pid, pid=pid, prio=120, target_cpu=0)
t0, t1, t2 = ref + 1000000, ref + 1010000, ref + 1100000
sw = rec("sched_switch", 997, prev_comm="hog", prev_pid=997, prev_prio=120, prev_state=0,
         next_comm="t4242", next_pid=4242, next_prio=120)
cpu0 = kdata(t0, [(t0, wake(999, 997)), (t1, wake(998, 997)), (t2, sw), (t2, wake(996, 4242))])
cpu1 = kdata(t0, [(t0, wake(4242, 555))])
for typ, fl, sid, body in secs:
    if typ == 9:
        continue
    if typ == 1 and body.startswith(b"ftrail_version"):
        body = re.sub(rb"tracer=\w+", b"tracer=wakeup", body)
    if typ == 0:
        out += section(out, 9, 0, 0, cpu0)
        out += section(out, 9, 0, 1, cpu1)
    out += section(out, typ, fl, sid, body)
open("w.dat", "wb").write(out)
PY
$FTRAIL show -i w.dat --tid 4242 >show.txt 2>err || fail "show: $(cat err)"
grep -q '^# entries-in-buffer/entries-written: 3/3 ' show.txt || fail "header: want 3/3: $(grep entries- show.txt)"
$FTRAIL show -i w.dat --tid 4242 -O latency-format >lat.txt 2>err || fail "show -O latency-format: $(cat err)"
grep -q '^# latency: [0-9]* us, #3/3, CPU#0 ' lat.txt || fail "latency header: want #3/3 on CPU#0: $(grep latency: lat.txt)"
[ "$(grep -c 'sched_\(wakeup\|switch\):' lat.txt)" = 3 ] || fail "latency format: want 3 events: $(cat lat.txt)"
ev=$(grep -E 'sched_(wakeup|switch):' show.txt)
[ "$(printf '%s\n' "$ev" | wc -l)" = 3 ] || fail "want 3 events in the window, got: $ev"
printf '%s\n' "$ev" | sed -n 1p | grep -q 'sched_wakeup: comm=t4242 pid=4242' || fail "first is not the waking: $ev"
printf '%s\n' "$ev" | sed -n 2p | grep -q 'pid=998 ' || fail "second is not the event between: $ev"
printf '%s\n' "$ev" | sed -n 3p | grep -q 'sched_switch: .*next_pid=4242' || fail "last is not the switch: $ev"
exit 0
