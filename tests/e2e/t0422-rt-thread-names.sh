# description: a thread that names itself (prctl PR_SET_NAME, pthread_setname_np) is shown and exported under its new name from that point on
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
n=0
for cc in gcc clang; do
	for flags in "-pg -mfentry" "-finstrument-functions"; do
		build tn $cc -O2 $flags "$P/thread_names.c" -lpthread || continue
		./tn >/dev/null || fail "$cc $flags: runs without ftrail"
		rec t.dat -p function -l before -l after -- ./tn
		grep -qx ok rec.out || fail "$cc $flags: program output: $(cat rec.out)"
		"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show: $(cat show.err)"
		# the new names, at the rename and after it
		grep -Eq ' boss-[0-9]+ +\[[0-9]+\] +[0-9.]+: task_rename: newcomm=boss$' show.out ||
			fail "$cc $flags: no rename to boss: $(cat show.out)"
		grep -Eq ' boss-[0-9]+ +\[[0-9]+\] +[0-9.]+: after <-main$' show.out ||
			fail "$cc $flags: main's after() not under boss: $(cat show.out)"
		grep -Eq ' self-named-[0-9]+ +\[[0-9]+\] +[0-9.]+: task_rename: newcomm=self-named$' show.out ||
			fail "$cc $flags: no rename to self-named: $(cat show.out)"
		grep -Eq ' self-named-[0-9]+ +\[[0-9]+\] +[0-9.]+: after <-self_named$' show.out ||
			fail "$cc $flags: thread's after() not under self-named: $(cat show.out)"
		[ "$(grep -c 'task_rename' show.out)" = 2 ] || fail "$cc $flags: renames: $(cat show.out)"
		# the Chrome export names the thread too
		"$FTRAIL" export --format chrome -i t.dat -o t.json 2>err || fail "export: $(cat err)"
		tr '{' '\n' <t.json | grep -A1 '"name":"thread_name"' | grep -q '"name":"self-named"' ||
			fail "$cc $flags: export has no thread_name self-named"
		n=$((n + 1))
	done
done
[ $n -ge 2 ] || fail "only $n variants built"
expect_built 4
exit 0
