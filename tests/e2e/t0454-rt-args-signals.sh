# description: argument and return-value capture under signal storms: every captured value is its own call's, records + lost exact, fast and general writers nested in handlers
# requires: cc
# asan: no
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
# sigstorm: 4 threads call work() -> leaf(x) in a loop while a timer
# interrupts each every 50 us with a handler that calls h_leaf(sig), often
# in the middle of a hook, so the hooks' capture (fast path, one level
# down) and the handler's (a level up, general writer) interleave.  Each
# leaf(x) returns x * 7 + 3 and each h_leaf gets the signal number: a value
# written into another call's record, or torn, shows.  The records and
# losses must still add up to 2 per call (an entry with its arguments is
# one record, as an exit with its return value).
SPEC=(-A 'leaf@x=arg1/u64' --retval 'leaf@retval/u64' -A 'h_leaf@sig=arg1/i32'
	-A 'work@x=arg1/x64')
sig=$(kill -l RTMIN 2>/dev/null || echo 34)
case $sig in *[!0-9]*) sig=34 ;; esac
for flags in "-pg" "-fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	cc -O2 $flags -pthread -o ss "$TOP/tests/progs/sigstorm.c" || fail "cc $flags"
	for mode in "" "-O overwrite -b 64"; do
		what="$flags $mode"
		# shellcheck disable=SC2086
		$FTRAIL record --no-libcall $mode "${SPEC[@]}" -o s.dat -- ./ss 4 200 >out 2>err ||
			fail "record $what: $(cat err)"
		calls=$(sed -n 's/^calls=//p' out)
		sigs=$(sed -n 's/^signals=//p' out)
		set -- $(counts err)
		[ $# = 3 ] || fail "no summary ($what): $(cat err)"
		[ $(($1 + $2)) = $((2 * calls + 2 * sigs + 1)) ] ||
			fail "$what: records $1 + lost $2 = $(($1 + $2)), the program wrote $((2 * calls + 2 * sigs + 1))"
		$FTRAIL show -i s.dat -O nofuncgraph-duration >show.out 2>show.err ||
			fail "show $what: $(cat show.err)"
		# every leaf line: its return value from its argument; every h_leaf: the signal
		awk -v sig="$sig" '
			/leaf\(x=[0-9]+\); \/\* = [0-9]+ \*\// {
				match($0, /x=[0-9]+/); x = substr($0, RSTART + 2, RLENGTH - 2)
				match($0, /= [0-9]+ \*/); r = substr($0, RSTART + 2, RLENGTH - 4)
				n++
				if (r != x * 7 + 3) { print "leaf: " $0; bad++ }
			}
			/h_leaf\(/ { h++; if ($0 !~ "h_leaf\\(sig=" sig "\\);") { print "h_leaf: " $0; bad++ } }
			END { print "checked", n + 0, h + 0; exit bad > 0 }' show.out >check.out ||
			fail "$what: values of other calls: $(head -n 5 check.out)"
		read -r _ nleaf nh < <(tail -n 1 check.out)
		[ "$nleaf" -gt 1000 ] || fail "$what: only $nleaf leaf calls checked"
		[ "$nh" -gt 10 ] || fail "$what: only $nh handler calls checked"
	done
done
exit 0
