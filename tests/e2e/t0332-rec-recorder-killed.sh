# description: record killed with SIGKILL: the program stops tracing within a second, unpatches and runs on at full speed, its buffers untouched
# requires: cc
. "$TOP/tests/e2e/t0339-outlive.inc"

# killed WHAT PATCHABLE [record opts] -- ARGS: record ./ol, SIGKILL the
# recorder while the program traces, then check every process of it
killed() {
	local what=$1 patchable=$2 p
	shift 2
	start_rec "$@"
	for p in $PROGS; do
		[ "$patchable" = 0 ] || grep -q "^site=e8" "$D/state.$p" ||
			fail "$what: $p is not patched: $(cat "$D/state.$p")"
	done
	buffers_move "$what" "${PROGS%% *}"
	kill -KILL $R
	wait $R 2>/dev/null
	for p in $PROGS; do
		[ "$patchable" = 0 ] || unpatched_soon "$p"
		alive "$p" || fail "$what: $p died with the recorder"
	done
	for p in $PROGS; do
		buffers_still "$what" "$p"
	done
	end_progs "$what"
}

build ol gcc -O2 -fpatchable-function-entry=5 -I"$TOP/include" "$P/outlive.c" -lpthread ||
	fail "build outlive.c: $(cat build.err)"
killed "patched sites" 1 -- ./ol "$D"
killed "patched sites, forked" 1 -- ./ol "$D" fork
killed "function tracer" 1 -p function -- ./ol "$D"
killed "stack traces" 1 -T -- ./ol "$D"
killed "threads and children come and go" 1 -- ./ol "$D" churn
killed "user events only" 0 -p nop -e u:outlive:tick -- ./ol "$D" event
build ol gcc -O2 -pg -mfentry -I"$TOP/include" "$P/outlive.c" -lpthread || fail "build -pg -mfentry"
killed "-pg -mfentry" 0 -- ./ol "$D"
build ol gcc -O2 -finstrument-functions -I"$TOP/include" "$P/outlive.c" -lpthread ||
	fail "build -finstrument-functions"
killed "-finstrument-functions" 0 -- ./ol "$D" fork
exit 0
