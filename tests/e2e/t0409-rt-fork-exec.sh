# description: fork (child traced into the same trace) and exec (the new image traced again)
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-pg -mfentry" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build fe gcc -O2 $flags "$P/forkexec.c" || fail "build"
	rec t.dat -- ./fe
	[ "$(calls t.dat parent_work)" = 2 ] || fail "$flags: parent_work $(calls t.dat parent_work)"
	[ "$(calls t.dat child_work)" = 1 ] || fail "$flags: child_work (forked child)"
	[ "$(calls t.dat exec_work)" = 1 ] || fail "$flags: exec_work (after exec)"
	[ "$(calls t.dat do_fork)" = 1 ] || fail "$flags: do_fork"
done
exit 0
