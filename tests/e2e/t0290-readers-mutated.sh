# description: every reader command on mutated trace files (tests/fuzz/mutate.py on the fuzz seeds): no crash, no hang, a failure ends with one "ftrail: ..." line, and show/report/stacks never print something other than for the intact file without a warning or an error (checksums)
# requires: python3
# asan: yes
# The in-process fuzz target (tests/fuzz/) covers the library readers; this
# covers the commands around them (report's and stacks' aggregations,
# latency's pairing, flame/offcpu/stackmap option paths, every export format) out of
# process.  FTRAIL_MUTANTS mutants per seed (default 6); the mutator is
# seeded, so every run reads the same files (FTRAIL_MUTATE_SEED picks another
# set).  In the ASan pass every sanitizer report fails the case (tests/run.sh).
. "$TOP/tests/e2e/lib.sh"
need_cmd python3
N=${FTRAIL_MUTANTS:-6}
C=$TOP/tests/fuzz/corpus
seeds="kern-sched-nop kern-graph-stacks kern-offcpu-ustack kern-fullstacks kern-exec-dataloc
uev-types uev-stacktrace uev-snapshot
func-stackmap real-graph-stacks threads lost-z kall args"
runs=0 fails=0 silent=0

# check NAME CMD...: exit 0, or 1 with one "ftrail: " error line last on stderr
# (after warnings, if any); never a signal (>128), a sanitizer abort or the
# timeout (124)
check() {
	local what=$1 rc lines
	shift
	timeout 20 "$@" >out 2>err </dev/null
	rc=$?
	last_rc=$rc
	runs=$((runs + 1))
	if [ $rc -ne 0 ]; then
		# warnings (a file cut short...) may come first: "ftrail: warning: "
		lines=$(grep -v '^ftrail: warning: ' err | wc -l)
		if [ $rc -ne 1 ] || [ "$lines" -ne 1 ] || ! tail -n 1 err | grep -q '^ftrail: '; then
			echo "BAD: $what: exit $rc, stderr: $(head -c 600 err)"
			fails=$((fails + 1))
		fi
	fi
}

# same NAME BASE: after a check, the output must equal the intact file's
# (BASE) unless the command failed or warned; a mutation that changes what
# is printed with exit 0 and no warning is a silent change
same() {
	if [ "$last_rc" -eq 0 ] && ! grep -q '^ftrail: warning: ' err && ! cmp -s out "$2"; then
		echo "SILENT: $1: output changed with exit 0 and no warning"
		silent=$((silent + 1))
	fi
}

for s in $seeds; do
	[ -r "$C/$s" ] || fail "missing seed $C/$s"
	python3 "$TOP/tests/fuzz/mutate.py" "$C/$s" "m-$s" "$N" "${FTRAIL_MUTATE_SEED:-7}" || fail "mutate.py"
	$FTRAIL show -i "$C/$s" >base-show 2>/dev/null
	$FTRAIL report -i "$C/$s" >base-report 2>/dev/null
	$FTRAIL stacks -i "$C/$s" >base-stacks 2>/dev/null
	for i in $(seq 0 $((N - 1))); do
		m=m-$s.$i
		check "show $m" $FTRAIL show -i $m
		same "show $m" base-show
		check "show opts $m" $FTRAIL show -i $m --expand-stacks -O sym-offset -O latency-format
		check "show snapshot $m" $FTRAIL show --snapshot -i $m
		check "report $m" $FTRAIL report -i $m
		same "report $m" base-report
		check "stacks $m" $FTRAIL stacks -i $m
		same "stacks $m" base-stacks
		check "stacks folded $m" $FTRAIL stacks --format folded -i $m
		check "latency $m" $FTRAIL latency -i $m --from 'sched:*' --to sched:sched_switch --key cpu --label prev_comm
		check "offcpu $m" $FTRAIL offcpu -i $m --format samples --threshold 0
		check "flame $m" $FTRAIL flame -i $m -o f.svg
		check "flame stacks $m" $FTRAIL flame --stacks -i $m --format folded
		check "export chrome $m" $FTRAIL export --format chrome -i $m -o c.json
		check "export speedscope $m" $FTRAIL export --format speedscope -i $m -o s.json
		check "export perfetto $m" $FTRAIL export --format perfetto -i $m -o p.pftrace
		check "export ctf $m" $FTRAIL export --format ctf --force -i $m -o c.ctf
		check "export pprof $m" $FTRAIL export --format pprof -i $m -o p.pb.gz
		check "export pprof stacks $m" $FTRAIL export --format pprof --profile stacks -i $m -o p.pb.gz
		check "export pprof offcpu $m" $FTRAIL export --format pprof --profile offcpu --threshold 0 -i $m -o p.pb.gz
		check "stackmap show $m" $FTRAIL stackmap show -i $m
		check "stackmap kernel $m" $FTRAIL stackmap show --kernel -i $m
		check "stackmap dump $m" $FTRAIL stackmap dump $m
		rm -f $m
	done
done
echo "$runs runs on mutated files, $fails bad, $silent silent changes"
[ $fails -eq 0 ] || fail "$fails of $runs reader runs crashed, hung or failed without one clear line"
[ $silent -eq 0 ] || fail "$silent mutated files changed show/report/stacks output without a warning"
