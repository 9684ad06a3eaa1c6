# description: the runtime detaches safely under load: 8 threads and a 10 kHz traced signal handler, recorder SIGKILLed at random moments
# requires: cc
. "$TOP/tests/e2e/t0339-outlive.inc"
ROUNDS=${ROUNDS:-4}

round() { # WHAT PATCHABLE record args...
	local what=$1 patchable=$2 ms c
	shift 2
	start_rec "$@"
	ms=$((RANDOM % 300)) # a random moment in the next 300 ms
	sleep "$(printf '0.%03d' $ms)"
	kill -KILL $R
	wait $R 2>/dev/null
	[ "$patchable" = 0 ] || unpatched_soon "$PROGS"
	progressed "$PROGS" "$(calls_of "$PROGS")"
	end_progs "$what, SIGKILL after $ms ms"
}

for v in "1 gcc -fpatchable-function-entry=5" "1 clang -fpatchable-function-entry=5" \
	"0 gcc -pg -mfentry" "0 gcc -finstrument-functions"; do
	set -- $v
	patchable=$1 cc=$2
	shift 2
	build ol $cc -O2 "$@" -I"$TOP/include" "$P/outlive.c" -lpthread || continue
	for r in $(seq "$ROUNDS"); do
		round "$v #$r" "$patchable" -q -- ./ol "$D" threads=8 signals
		round "$v -T #$r" "$patchable" -q -T -- ./ol "$D" threads=8 signals
	done
done
expect_built 3
exit 0
