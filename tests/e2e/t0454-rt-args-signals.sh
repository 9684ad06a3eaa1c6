# description: argument and return-value capture under signal storms: every captured value is its own call's, each thread's calls in order, records + lost exact, fast and general writers nested in handlers
# requires: cc
# asan: no
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/e2e/t0454-sigstorm.inc"
need_runtime
# The hooks' capture (fast path, one level down) and the handler's (a level
# up, general writer) interleave: the handler often runs in the middle of
# a hook.
for flags in "-pg" "-fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	cc -O2 $flags -pthread -o ss "$TOP/tests/progs/sigstorm.c" || fail "cc $flags"
	for mode in "" "-O overwrite -b 64"; do
		WHAT="$flags $mode"
		# shellcheck disable=SC2086
		$FTRAIL record --no-libcall $mode "${SPEC[@]}" -o s.dat -- ./ss 4 200 >out 2>err ||
			fail "record $WHAT: $(cat err)"
		sigstorm_counts
		$FTRAIL show -i s.dat -O nofuncgraph-duration >show.out 2>show.err ||
			fail "show $WHAT: $(cat show.err)"
		sigstorm_check
		read -r _ _ nleaf nh < <(tail -n 1 check.out)
		[ "$nleaf" -gt 1000 ] || fail "$WHAT: only $nleaf leaf calls checked"
		[ "$nh" -gt 10 ] || fail "$WHAT: only $nh handler calls checked"
	done
done
exit 0
