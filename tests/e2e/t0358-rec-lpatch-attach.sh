# description: record -P on a running program built without instrumentation (gcc lazy and -z now, clang): --patch and -l patch its functions and hook its library calls (nested under them, [libc.so.6]); the detach puts every GOT slot back (read from /proc/PID/mem), a later attach hooks them again only when it patches, --no-libcall leaves them alone; the program runs on right
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0349-attach.inc"
. "$TOP/tests/e2e/t0356-lpatch.inc"
# slots PID: the program's JUMP_SLOT GOT words, as the process has them
slots() {
	got_hooks "$1" ./un JUMP_SLOT
}
# attach_once WHAT OUT [OPTIONS...]: record -P for about 2 s; got1 holds the
# slots sampled while attached (once they changed, or the last sample)
attach_once() {
	local what=$1 out=$2 rec
	shift 2
	"$FTRAIL" record -P "$SRV_PID" --duration 2 -o "$out" "$@" >rec.out 2>rec.err &
	rec=$!
	got1=$got0
	for _ in $(seq 80); do
		got1=$(slots "$SRV_PID")
		[ "$got1" != "$got0" ] && break
		kill -0 $rec 2>/dev/null || break
		sleep 0.05
	done
	wait $rec || fail "$what: $(cat rec.err)"
	grep -q "^ftrail: detached from process $SRV_PID (un), which runs on untraced" rec.err ||
		fail "$what: no detach line: $(cat rec.err)"
	stopped "$SRV_PID" && fail "$what: left a thread stopped"
	[ "$(slots "$SRV_PID")" = "$got0" ] || fail "$what: GOT not restored: $(slots "$SRV_PID") vs $got0"
}
# nested WHAT FILE: every lp_fib call made its 4 library calls, every
# lp_say its fputs (calls cut by the attach or the detach aside)
nested() {
	local fib mal fp say
	fib=$(calls "$2" lp_fib) mal=$(calls "$2" malloc) say=$(calls "$2" lp_say) fp=$(calls "$2" fputs)
	[ "$fib" -gt 50 ] || fail "$1: $fib calls of lp_fib"
	[ $((mal - fib)) -le 8 ] && [ $((fib - mal)) -le 8 ] || fail "$1: $fib lp_fib, $mal malloc"
	[ $((fp - say)) -le 4 ] && [ $((say - fp)) -le 4 ] || fail "$1: $say lp_say, $fp fputs"
	"$FTRAIL" show -i "$2" -O sym-userobj >show.out 2>show.err || fail "$1: show: $(cat show.err)"
	grep -q '^ *[0-9]*) .*|     *malloc \[libc\.so\.6\]();$' show.out ||
		fail "$1: no malloc [libc.so.6] below lp_fib: $(head -n 40 show.out)"
	grep -q '| *lp_say \[un\]() {$' show.out || fail "$1: lp_say's tail call: $(head -n 40 show.out)"
}
for variant in "gcc" "gcc -Wl,-z,now" "clang"; do
	set -- $variant
	cc=$1
	shift
	build_lpatch $cc "$@" || continue
	start_srv ./un
	sleep 0.5 # rounds made: the slots they use bound (lazy binding)
	got0=$(slots "$SRV_PID")
	[ -n "$got0" ] || fail "$variant: no JUMP_SLOT read"

	# --patch: patched, the library calls hooked while attached, put back after
	attach_once "$variant --patch" a1.dat --patch 'lp_*'
	expect_grep rec.err "$variant --patch: summary" '^ftrail: warning: --patch: 3 function(s) patched, 0 refused$'
	[ "$got1" != "$got0" ] || fail "$variant --patch: GOT not hooked while attached"
	nested "$variant --patch" a1.dat
	# again, one function: hooked again (the stubs of the first attach)
	attach_once "$variant --patch lp_fib" a2.dat --patch lp_fib
	[ "$got1" != "$got0" ] || fail "$variant --patch lp_fib: GOT not hooked while attached"
	[ "$(calls a2.dat lp_fib)" -gt 50 ] || fail "$variant --patch lp_fib: $(calls a2.dat lp_fib) lp_fib"
	m=$(calls a2.dat malloc) f=$(calls a2.dat lp_fib)
	[ $((m - f)) -le 8 ] && [ $((f - m)) -le 8 ] || fail "$variant --patch lp_fib: $f lp_fib, $m malloc"
	# -l on it (no --patch): the same as --patch, library calls named
	attach_once "$variant -l" a3.dat -l 'lp_*' -l malloc -l fputs
	expect_grep rec.err "$variant -l: patching" \
		"^ftrail: warning: process $SRV_PID (un) has no instrumentation: patching the functions -l selects (--patch)\$"
	[ "$got1" != "$got0" ] || fail "$variant -l: GOT not hooked while attached"
	nested "$variant -l" a3.dat
	[ "$(calls a3.dat snprintf)" = 0 ] || fail "$variant -l: snprintf traced, not selected"
	# --no-libcall: patched, the GOT never touched
	attach_once "$variant --no-libcall" a4.dat --no-libcall --patch 'lp_*'
	[ "$got1" = "$got0" ] || fail "$variant --no-libcall: GOT written"
	[ "$(calls a4.dat lp_fib)" -gt 50 ] || fail "$variant --no-libcall: $(calls a4.dat lp_fib) lp_fib"
	[ "$(calls a4.dat malloc)" = 0 ] || fail "$variant --no-libcall: malloc traced"
	# nothing patched (a glob matching nothing): the GOT untouched
	attach_once "$variant, nothing patched" a5.dat --patch 'no_such_function*'
	expect_grep rec.err "$variant, nothing patched: summary" \
		'^ftrail: warning: --patch: 0 function(s) patched, 0 refused (no function without instrumentation matched)$'
	[ "$got1" = "$got0" ] || fail "$variant, nothing patched: GOT written"

	sleep 0.3 # it runs on, untraced, through its own GOT
	stop_srv  # every result right
	expect_grep srv.out "$variant: un" '^sum=[0-9]* errors=0$'
done
expect_built 6
exit 0
