# description: function tracer: one line per call with its parent, in call order (fentry, patchable, cyg)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build t gcc -O2 $flags "$P/basic.c" || fail "build $flags: $(cat build.err)"
	rec t.dat -p function -- ./t
	got=$(funcs t.dat)
	# main's parent is in libc (not traced): printed as an address; the
	# library calls of the startup code before it are t0432's business
	want='a <-main;b <-a;c <-b;b <-a;c <-b;printf <-main;'
	[ "${got#*main <-*;}" = "$want" ] || fail "$flags: '$got'"
	case $got in main\ \<-* | *\;main\ \<-*) ;; *) fail "$flags: main: '$got'" ;; esac
done
exit 0
