# description: record -P --patch: a running uninstrumented -O2 program (gcc, clang) whose threads call the patched functions all along, attached twice; consistent call counts, the text bytes patched while attached (but for a function a stopped thread is inside of, said) and restored exactly after (read from /proc/PID/mem), checksums right
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
MOVED="dp_leaf dp_global dp_tail dp_tailasm dp_switch dp_riprel dp_callfirst dp_work"
# refused: too short, a jump into its first bytes, jrcxz; and
# hold_syscall, which a thread is blocked inside of (pause(2) at +2, its
# pc at +4), for ever: the stopped threads' pcs are checked
REFUSED="dp_short dp_backjump dp_jrcxz hold_syscall"
# where BINARY FUNCS...: "NAME OFFSET SIZE" lines, the first bytes (16 at
# most: the next function may be patched) of each function in the file
where() {
	local bin=$1 f l
	shift
	for f in "$@"; do
		l=$(nm -S "$bin" | awk -v f="$f" '$4 == f { print $1, $2 }')
		[ -n "$l" ] || fail "no symbol $f in $bin"
		set -- $l
		echo "$f $((0x$1)) $((0x$2 < 16 ? 0x$2 : 16))"
	done
}
# text PID BINARY WHERE: those bytes as process PID has them, from its
# memory (fast: one dd per function, so a sample fits in the attach)
text() {
	local pid=$1 bin=$2 base f off size
	# the loader's executable mapping: its start less its file offset (the
	# runtime maps the whole file read-only too, to read its symbols)
	base=$(awk -v f="$(readlink -f "$bin")" '$6 == f && $2 ~ /x/ { split($1, a, "-"); print a[1], $3; exit }' /proc/"$pid"/maps)
	base=$((0x${base% *} - 0x${base#* }))
	readelf -hW "$bin" | grep -q 'Type: *DYN' || base=0
	while read -r f off size; do
		printf '%s:' "$f"
		dd if=/proc/"$pid"/mem bs=$size count=1 skip=$((base + off)) iflag=skip_bytes status=none |
			od -An -tx1 | tr -d ' \n'
		echo
	done <<<"$3"
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
	wd=$(where ./dp $MOVED $REFUSED)
	wl=$(where ./libdynpatch_lib.so dp_libfn)
	t0=$(text "$SRV_PID" ./dp "$wd")
	l0=$(text "$SRV_PID" ./libdynpatch_lib.so "$wl")
	for k in 1 2; do
		# until SIGINT (Ctrl-C), sent once the text was sampled
		"$FTRAIL" record -P "$SRV_PID" --patch 'dp_*' --patch 'hold_*' --patch 'dp_lib*:mod:libdynpatch_lib' \
			--duration 120 -o a$k.dat >rec.out 2>rec.err &
		rec=$!
		# patched while attached: a jmp (e9) at each moved function's entry,
		# the refused ones as compiled
		for _ in $(seq 200); do
			grep -q 'attached to process' rec.err && break
			sleep 0.05
		done
		sleep 0.3
		t1=$(text "$SRV_PID" ./dp "$wd")
		l1=$(text "$SRV_PID" ./libdynpatch_lib.so "$wl")
		sleep 1 # calls to count
		kill -INT $rec
		wait $rec || fail "$cc: attach $k: $(cat rec.err)"
		# a thread stopped (preempted) between two of a function's first
		# instructions at the attach keeps that function unpatched, said so
		held=" $(sed -n 's/^ftrail: warning: --patch: \([a-z_]*\) not patched: a thread is stopped inside its first bytes$/\1/p' rec.err | tr '\n' ' ')"
		[[ $held == *" hold_syscall "* ]] || fail "$cc: attach $k: hold_syscall not held: $(cat rec.err)"
		nheld=$(($(echo $held | wc -w) - 1)) # besides hold_syscall: preempted workers
		grep -q "^ftrail: warning: --patch: $((9 - nheld)) function(s) patched, $((4 + nheld)) refused\$" rec.err ||
			fail "$cc: attach $k: summary: $(cat rec.err)"
		[ "$nheld" -le 2 ] || fail "$cc: attach $k: $nheld functions held by stopped threads: $(cat rec.err)"
		for f in $MOVED dp_libfn; do
			if [[ $held == *" $f "* ]]; then
				[ "$(printf '%s\n%s\n' "$t1" "$l1" | grep "^$f:")" = \
					"$(printf '%s\n%s\n' "$t0" "$l0" | grep "^$f:")" ] ||
					fail "$cc: attach $k: $f held by a thread, yet changed"
			else
				printf '%s\n%s\n' "$t1" "$l1" | grep -q "^$f:e9" || fail "$cc: attach $k: $f not patched: $t1 $(cat rec.err)"
			fi
		done
		for f in $REFUSED; do
			[ "$(echo "$t1" | grep "^$f:")" = "$(echo "$t0" | grep "^$f:")" ] ||
				fail "$cc: attach $k: refused $f changed"
		done
		# detached: every byte as compiled
		[ "$(text "$SRV_PID" ./dp "$wd")" = "$t0" ] ||
			fail "$cc: attach $k: text not restored: $(text "$SRV_PID" ./dp "$wd") vs $t0"
		[ "$(text "$SRV_PID" ./libdynpatch_lib.so "$wl")" = "$l0" ] ||
			fail "$cc: attach $k: library text not restored"
		stopped "$SRV_PID" && fail "$cc: attach $k left a thread stopped"
		grep -q "^ftrail: detached from process $SRV_PID (dp), which runs on untraced" rec.err ||
			fail "$cc: attach $k: no detach line: $(cat rec.err)"
		# calls cut by the attach or the detach (one per thread and end at
		# most) aside, every round makes the same calls; w: the rounds, from
		# the first of these that is patched
		for ref in dp_work dp_switch dp_tail; do
			[[ $held == *" $ref "* ]] || break
		done
		w=$(calls a$k.dat $ref)
		[ "$w" -gt 100 ] || fail "$cc: attach $k: $w calls of $ref"
		for f in dp_work dp_tail dp_tailasm dp_switch dp_callfirst dp_libfn dp_global dp_riprel; do
			n=$(calls a$k.dat $f) m=1
			case $f in dp_global | dp_riprel) m=2 ;; esac
			if [[ $held == *" $f "* ]]; then
				[ "$n" = 0 ] || fail "$cc: attach $k: $f not patched, yet traced"
				continue
			fi
			[ $((n - m * w)) -le $((8 * m)) ] && [ $((m * w - n)) -le $((8 * m)) ] ||
				fail "$cc: attach $k: $w $ref, $n $f"
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
