# description: record's writer thread held still under a signal storm with arguments: each thread's records stay in call order, every value is its own call's, records + lost exact
# requires: root cc
# asan: no
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
# A ptrace stop of one thread of the recorder (root passes ptrace_scope 1 and 2).
need_root
[ "$(cat /proc/sys/kernel/yama/ptrace_scope 2>/dev/null)" != 3 ] || skip "ptrace is disabled (yama ptrace_scope 3)"
# sigstorm (see t0454) writes pages faster than one thread compresses them:
# the recorder's writer thread ("ftrail-writer") is stopped for the whole
# run, so the queue of chunks it compresses fills and the drain loop must
# wait for room.  A chunk written around the queue would land in the file
# before older chunks of its buffer, and a reader would pair an exit with
# an entry from another part of the run.  Each thread's work(x) sees x
# count up, and each leaf(x) returns x * 7 + 3: any page out of order shows.
SPEC=(-A 'leaf@x=arg1/u64' --retval 'leaf@retval/u64' -A 'h_leaf@sig=arg1/i32'
	-A 'work@x=arg1/x64')
cc -O2 -o thread_stop "$TOP/tests/progs/thread_stop.c" || fail "cc thread_stop"
cc -O2 -fpatchable-function-entry=5 -pthread -o ss "$TOP/tests/progs/sigstorm.c" || fail "cc sigstorm"
$FTRAIL record --no-libcall "${SPEC[@]}" -o s.dat -- ./ss 4 3000 >out 2>err &
rec=$!
tid=
for _ in $(seq 200); do
	for c in /proc/$rec/task/*/comm; do
		[ "$(cat "$c" 2>/dev/null)" = ftrail-writer ] && tid=${c%/comm} && tid=${tid##*/}
	done
	[ -n "$tid" ] && break
	sleep 0.05
done
[ -n "$tid" ] || { kill "$rec"; wait; fail "no ftrail-writer thread in the recorder"; }
# stopped longer than the program runs: everything it writes meets a full queue
./thread_stop "$tid" 6000 >stop.out 2>stop.err || { wait; fail "thread_stop: $(cat stop.err)"; }
wait "$rec" || fail "record: $(cat err)"
calls=$(sed -n 's/^calls=//p' out)
sigs=$(sed -n 's/^signals=//p' out)
set -- $(counts err)
[ $# = 3 ] || fail "no summary: $(cat err)"
[ $(($1 + $2)) = $((2 * calls + 2 * sigs + 1)) ] ||
	fail "records $1 + lost $2 = $(($1 + $2)), the program wrote $((2 * calls + 2 * sigs + 1))"
# the scenario happened: the queue filled, the program met a full ring
[ "$2" -gt 0 ] || fail "nothing lost: the writer thread's stop did not hold the recording back"
$FTRAIL show -i s.dat -O nofuncgraph-duration -O funcgraph-proc >show.out 2>show.err ||
	fail "show: $(cat show.err)"
awk '
	function hex(s,  v, i) {
		v = 0
		for (i = 1; i <= length(s); i++)
			v = v * 16 + index("0123456789abcdef", substr(s, i, 1)) - 1
		return v
	}
	/ work\(x=0x[0-9a-f]+\) \{/ {
		match($0, /[a-z]+-[0-9]+ /); who = substr($0, RSTART, RLENGTH)
		match($0, /x=0x[0-9a-f]+/); x = hex(substr($0, RSTART + 4, RLENGTH - 4))
		if (who in last && x <= last[who]) { print "out of order: " $0 " after x=" last[who]; bad++ }
		last[who] = x; w++
	}
	/leaf\(x=[0-9]+\); \/\* = [0-9]+ \*\// {
		match($0, /x=[0-9]+/); x = substr($0, RSTART + 2, RLENGTH - 2)
		match($0, /= [0-9]+ \*/); r = substr($0, RSTART + 2, RLENGTH - 4)
		n++
		if (r != x * 7 + 3) { print "leaf: " $0; bad++ }
	}
	END { print "checked", w + 0, n + 0; exit bad > 0 }' show.out >check.out ||
	fail "$(head -n 5 check.out)"
read -r _ nwork nleaf < <(tail -n 1 check.out)
[ "$nwork" -gt 1000 ] || fail "only $nwork work calls checked"
[ "$nleaf" -gt 1000 ] || fail "only $nleaf leaf calls checked"
exit 0
