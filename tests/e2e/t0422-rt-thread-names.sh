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
		# (a function tracer line: " COMM-PID [CPU] TS: ")
		L=' +\[[0-9]+\] +[0-9.]+:'
		expect_grep show.out "$cc $flags: no rename to boss" -E " boss-[0-9]+$L task_rename: newcomm=boss\$"
		expect_grep show.out "$cc $flags: main's after() not under boss" -E " boss-[0-9]+$L after <-main\$"
		expect_grep show.out "$cc $flags: no rename to self-named" \
			-E " self-named-[0-9]+$L task_rename: newcomm=self-named\$"
		expect_grep show.out "$cc $flags: thread's after() not under self-named" \
			-E " self-named-[0-9]+$L after <-self_named\$"
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
