# description: record -P --patch: a running uninstrumented -O2 program (gcc, clang) whose threads call the patched functions all along, attached twice; consistent call counts, the text bytes patched while attached and restored exactly after (read from /proc/PID/mem), checksums right
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
MOVED="dp_leaf dp_global dp_tail dp_tailasm dp_switch dp_riprel dp_callfirst dp_work"
REFUSED="dp_short dp_backjump dp_jrcxz"
# text PID BINARY FUNCS...: the first bytes of each function (16 at most), as the process has them
text() {
	local pid=$1 bin=$2 base off size f funcs
	shift 2
	funcs=("$@")
	# the loader's executable mapping: its start less its file offset (the
	# runtime maps the whole file read-only too, to read its symbols)
	base=$(awk -v f="$(readlink -f "$bin")" '$6 == f && $2 ~ /x/ { split($1, a, "-"); print a[1], $3; exit }' /proc/"$pid"/maps)
	base=$((0x${base% *} - 0x${base#* }))
	readelf -hW "$bin" | grep -q 'Type: *DYN' || base=0
	for f in "${funcs[@]}"; do
		# its own bytes only (up to 16): the next function may be patched
		set -- $(nm -S "$bin" | awk -v f="$f" '$4 == f { print $1, $2 }')
		[ $# = 2 ] || fail "no symbol $f in $bin"
		off=$1 size=$((0x$2 < 16 ? 0x$2 : 16))
		printf '%s:' "$f"
		dd if=/proc/"$pid"/mem bs=$size count=1 skip=$((base + 0x$off)) iflag=skip_bytes status=none |
			od -An -tx1 | tr -d ' \n'
		echo
	done
}
for cc in gcc clang; do
	build libdynpatch_lib.so $cc -O2 -shared -fPIC "$P/dynpatch_lib.c" || continue
	build dp $cc -O2 "$P/dynpatch.c" -L. -ldynpatch_lib -Wl,-rpath,"$PWD" -lpthread || continue
	rm -f stop
	./dp -s "$PWD/stop" 4 >srv.out 2>&1 &
	SRV_PID=$!
	for _ in $(seq 100); do
		grep -q '^ready' srv.out && break
		sleep 0.1
	done
	grep -q '^ready' srv.out || fail "$cc: dp did not start: $(cat srv.out)"
	t0=$(text "$SRV_PID" ./dp $MOVED $REFUSED)
	l0=$(text "$SRV_PID" ./libdynpatch_lib.so dp_libfn)
	for k in 1 2; do
		"$FTRAIL" record -P "$SRV_PID" --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib' \
			--duration 1.5 -o a$k.dat >rec.out 2>rec.err &
		rec=$!
		# patched while attached: a jmp (e9) at each moved function's entry,
		# the refused ones as compiled
		for _ in $(seq 100); do
			grep -q 'attached to process' rec.err && break
			sleep 0.05
		done
		sleep 0.3
		t1=$(text "$SRV_PID" ./dp $MOVED $REFUSED)
		l1=$(text "$SRV_PID" ./libdynpatch_lib.so dp_libfn)
		wait $rec || fail "$cc: attach $k: $(cat rec.err)"
		for f in $MOVED; do
			echo "$t1" | grep -q "^$f:e9" || fail "$cc: attach $k: $f not patched: $t1"
		done
		echo "$l1" | grep -q "^dp_libfn:e9" || fail "$cc: attach $k: dp_libfn not patched: $l1"
		for f in $REFUSED; do
			[ "$(echo "$t1" | grep "^$f:")" = "$(echo "$t0" | grep "^$f:")" ] ||
				fail "$cc: attach $k: refused $f changed"
		done
		# detached: every byte as compiled
		[ "$(text "$SRV_PID" ./dp $MOVED $REFUSED)" = "$t0" ] ||
			fail "$cc: attach $k: text not restored: $(text "$SRV_PID" ./dp $MOVED $REFUSED) vs $t0"
		[ "$(text "$SRV_PID" ./libdynpatch_lib.so dp_libfn)" = "$l0" ] ||
			fail "$cc: attach $k: library text not restored"
		stopped "$SRV_PID" && fail "$cc: attach $k left a thread stopped"
		grep -q '^ftrail: warning: --patch: 9 function(s) patched, 3 refused$' rec.err ||
			fail "$cc: attach $k: summary: $(cat rec.err)"
		grep -q "^ftrail: detached from process $SRV_PID (dp), which runs on untraced" rec.err ||
			fail "$cc: attach $k: no detach line: $(cat rec.err)"
		# calls cut by the attach or the detach (one per thread and end at
		# most) aside, every round makes the same calls
		w=$(calls a$k.dat dp_work)
		[ "$w" -gt 100 ] || fail "$cc: attach $k: $w calls of dp_work"
		for f in dp_tail dp_tailasm dp_switch dp_callfirst dp_libfn; do
			n=$(calls a$k.dat $f)
			[ $((n - w)) -le 8 ] && [ $((w - n)) -le 8 ] || fail "$cc: attach $k: $w dp_work, $n $f"
		done
		for f in dp_global dp_riprel; do
			n=$(calls a$k.dat $f)
			[ $((n - 2 * w)) -le 16 ] && [ $((2 * w - n)) -le 16 ] || fail "$cc: attach $k: $w dp_work, $n $f"
		done
		for f in $REFUSED; do
			[ "$(calls a$k.dat $f)" = 0 ] || fail "$cc: attach $k: refused $f traced"
		done
	done
	sleep 0.3 # it works on, untraced
	stop_srv
	grep -q '^errors=0 text_changed=0$' srv.out || fail "$cc: the program went wrong: $(cat srv.out)"
done
expect_built 4
exit 0
