# description: show ends every line, the last one included, with a newline in every layout and option set
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
for s in graph func threads lost unwind kall; do
	mktrace $s $s.dat
	for o in "" "-O latency-format" "-O raw" "-O hex" "-O funcgraph-proc -O funcgraph-abstime -O funcgraph-tail" \
		"--expand-stacks -O sym-offset -O sym-addr" "-O nofuncgraph-cpu -O nofuncgraph-duration" \
		"-O noprint-parent -O latency-format -O raw"; do
		# shellcheck disable=SC2086
		$FTRAIL show -i $s.dat $o >out 2>err || fail "show $s $o: $(cat err)"
		[ -s out ] || fail "show $s $o printed nothing"
		[ "$(tail -c 1 out | od -An -c | tr -d ' ')" = '\n' ] ||
			fail "show $s $o: the last line has no newline: $(tail -n 2 out)"
	done
done
exit 0
