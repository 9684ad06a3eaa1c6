#!/usr/bin/env bash
# description: the user stacks the kernel takes (userstacktrace) of a traced program: function_graph's trampoline put back, symbolised under every tracer
# requires: root tracefs gcc
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
need_tracefs
need_cmd gcc
build ks gcc -O2 -pg -mfentry -fno-omit-frame-pointer "$P/kstack_sleep.c" || fail build
for tr in function_graph function nop; do
	# --no-libcall: the kernel's frame-pointer walk skips the frame of a
	# hooked library call without frame pointer (usleep), and the reader
	# puts hijacked return addresses back in shadow-stack order -- one
	# frame off then (a known limit of library calls, see runtime/plt.c)
	"$FTRAIL" record -q -p "$tr" --no-libcall -e sched:sched_switch -O userstacktrace -o k.dat -- ./ks \
		>rec.out 2>rec.err || fail "$tr: record: $(cat rec.err)"
	"$FTRAIL" stacks -i k.dat --user -e sched:sched_switch >st.out 2>st.err || fail "$tr: stacks: $(cat st.err)"
	! grep -q 'ft_rt_return\|libftrail' st.out || fail "$tr: the trampoline in a kernel user stack: $(cat st.out)"
	# the program's sleep: clock_nanosleep, then b (d and c tail-called, e left no
	# frame the kernel can walk: usleep has none), main, libc -- all named
	s=$(awk '/^@\[/ { s = ""; next } /^\]:/ { if (s ~ /^ clock_nanosleep b main /) { print s; exit } s = ""; next }
		{ s = s " " $1 }' st.out)
	[ -n "$s" ] || fail "$tr: no 'clock_nanosleep b main' stack: $(head -40 st.out)"
	case "$s" in *" 0x"*) fail "$tr: raw addresses: $s" ;; esac
	"$FTRAIL" flame -i k.dat --stacks --format folded >fl.out 2>fl.err || fail "$tr: flame: $(cat fl.err)"
	! grep -q ft_rt_return fl.out || fail "$tr: flame has the trampoline"
	grep -q "main;b;clock_nanosleep" fl.out || fail "$tr: flame lacks the sleep stack: $(head -5 fl.out)"
done
exit 0
