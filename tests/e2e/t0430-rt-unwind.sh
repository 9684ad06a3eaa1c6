# description: -T and stacktrace triggers unwind the whole user stack: through tail calls (no ft_rt_return), deep recursion, every hook kind and tracer, no runtime frame
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"

# stack FILE FUNC: the first stack printed after FUNC's line, as "f g h "
stack() {
	"$FTRAIL" show -i "$1" >show.out 2>show.err || fail "show $1: $(cat show.err)"
	awk -v f="$2" 'hit && / => / { sub(/^ *=> /, ""); sub(/\+0x.*/, ""); printf "%s ", $0; next }
		hit && /<stack trace>/ { next } hit { exit } $0 ~ "[ |]" f "(\\(\\) {| <-)" { hit = 1 }' show.out
}

for fl in "-O2 -pg -mfentry" "-O2 -pg" "-O2 -fpatchable-function-entry=5" "-O2 -finstrument-functions" "-O0 -pg -mfentry"; do
	build tc gcc $fl "$P/tailcall.c" || continue
	for tr in function_graph function; do
		rec t.dat -p "$tr" -T -O nostackmap -- ./tc 50
		"$FTRAIL" show -i t.dat >all.out || fail show
		! grep -q 'ft_rt_return\|libftrail' all.out || fail "$fl $tr: a runtime frame: $(grep -m3 'ft_rt_return\|libftrail' all.out)"
		s=$(stack t.dat e)
		# c tail-calls d at -O2 (jmp): c is not on the real stack there
		case "$fl" in *-O0*|*instrument*) want="e d c b a main " ;; *) want="e d b a main " ;; esac
		[ "${s#"$want"}" != "$s" ] || fail "$fl $tr: e's stack '$s', expected it to start with '$want'"
		# the whole stack: past main into libc, up to _start
		case "$s" in *" _start "*) ;; *) fail "$fl $tr: e's stack stops early: '$s'" ;; esac
		if [ "$tr" = function ]; then
			grep -q ': d <-b\b\|: d <-c\b' all.out || fail "$fl: d's parent: $(grep ': d <-' all.out)"
		fi
	done
	# deep: e under 50 rec frames, all there (the stack is capped at 64)
	s=$(stack t.dat rec | tr ' ' '\n' | grep -c '^rec$')
	[ "$s" -ge 1 ] || fail "$fl: no rec stack"
	n=$("$FTRAIL" show -i t.dat | awk '/ e <-rec/ { hit = 1; next } hit && / => rec/ { n++ } hit && !/=>|stack trace/ { if (n) exit } END { print n + 0 }')
	[ "$n" -ge 50 ] || fail "$fl: e under rec(50) has $n rec frames"
done
expect_built 5

# the stack map path: ids resolve to the same stacks, none with the trampoline
build tc gcc -O2 -pg -mfentry "$P/tailcall.c" || fail build
rec t.dat -T -- ./tc 10
"$FTRAIL" stacks -i t.dat >stacks.out || fail stacks
! grep -q ft_rt_return stacks.out || fail "stacks: ft_rt_return: $(cat stacks.out)"
grep -q '__libc_start_main' stacks.out || fail "stacks: not whole: $(cat stacks.out)"

# a stacktrace trigger under -p nop: the program's stack, not the runtime's
cc -O0 -I"$TOP/include" -o ev_ctl "$TOP/tests/progs/ev_ctl.c" || fail "build ev_ctl"
"$FTRAIL" record -q -p nop -e u:data:v -R 'stacktrace:1 if i > 1' -O nostackmap -o t.dat -- ./ev_ctl \
	2>err || fail "record: $(cat err)"
"$FTRAIL" show -i t.dat >out || fail show
s=$(awk '/<stack trace>/ { hit = 1; next } hit && / => / { sub(/^ *=> /, ""); sub(/\+0x.*/, ""); printf "%s ", $0; next } hit { exit }' out)
case "$s" in *"main "*"_start "*) ;; *) fail "trigger stack '$s'" ;; esac
! grep -q 'ev_write\|libftrail\|rt_emit' out || fail "runtime frames in: $s"
exit 0
