# description: record's writer thread held still under a signal storm with arguments: each thread's records stay in call order, every value is its own call's, records + lost exact
# requires: root cc
# asan: no
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/e2e/t0454-sigstorm.inc"
need_runtime
# A ptrace stop of one thread of the recorder (root passes ptrace_scope 1 and 2).
need_root
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 3 ] || skip "ptrace is disabled (yama ptrace_scope 3)"
# sigstorm (t0454-sigstorm.inc) writes pages faster than one thread
# compresses them: the recorder's writer thread ("ftrail-writer") is
# stopped for the whole run, so the queue of chunks it compresses fills
# and the drain loop must wait for room.  A chunk written around the queue
# would land in the file before older chunks of its buffer, and a reader
# would pair an exit with an entry from another part of the run.
WHAT="writer stopped"
cc -O2 -o thread_stop "$TOP/tests/progs/thread_stop.c" || fail "cc thread_stop"
cc -O2 -fpatchable-function-entry=5 -pthread -o ss "$TOP/tests/progs/sigstorm.c" || fail "cc sigstorm"
$FTRAIL record --no-libcall "${SPEC[@]}" -o s.dat -- ./ss 4 3000 >out 2>err &
rec=$!
tid=
for _ in $(seq 200); do
	for c in "/proc/$rec/task/"*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = ftrail-writer ] && tid=${c%/comm} && tid=${tid##*/}
	done
	[ -n "$tid" ] && break
	sleep 0.05
done
[ -n "$tid" ] || { kill "$rec"; wait; fail "no ftrail-writer thread in the recorder"; }
# stopped longer than the program runs: everything it writes meets a full queue
./thread_stop "$tid" 6000 >stop.out 2>stop.err || { wait; fail "thread_stop: $(cat stop.err)"; }
wait "$rec" || fail "record: $(cat err)"
sigstorm_counts
# the scenario happened: the queue filled, the program met a full ring
# shellcheck disable=SC2046 # counts prints three words
set -- $(counts err)
[ "$2" -gt 0 ] || fail "nothing lost: the writer thread's stop did not hold the recording back"
$FTRAIL show -i s.dat -O nofuncgraph-duration >show.out 2>show.err || fail "show: $(cat show.err)"
sigstorm_check
read -r _ nwork nleaf _ < <(tail -n 1 check.out)
[ "$nwork" -gt 1000 ] || fail "only $nwork work calls checked"
[ "$nleaf" -gt 1000 ] || fail "only $nleaf leaf calls checked"
exit 0
