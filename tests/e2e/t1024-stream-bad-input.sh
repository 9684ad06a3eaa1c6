# description: streaming and flight recorder options that cannot go together get one line and a non-zero exit
# requires: cc
. "$TOP/tests/e2e/t0399-rec.inc"
need_runtime
cc -O1 -pg -I"$TOP/include" -o flight "$TOP/tests/progs/flight.c" -lpthread || fail "build flight"
expect_fail "*-o - cannot stream -O latency-format*" $FTRAIL record -O latency-format -o - -- ./flight 1 0
expect_fail "*--flight-recorder writes nothing until a trigger: it cannot stream (-o -)*" \
	$FTRAIL record --flight-recorder -o - -- ./flight 1 0
expect_fail "*-o - cannot stream the lockheld tracer*" $FTRAIL record -p lockheld -o - -- ./flight 1 0
expect_fail "*--last needs --flight-recorder*" $FTRAIL record --last 2 -- ./flight 1 0
expect_fail "*--last wants seconds (> 0), not 'x'*" $FTRAIL record --flight-recorder --last x -- ./flight 1 0
expect_fail "*--last wants seconds (> 0), not '0'*" $FTRAIL record --flight-recorder --last 0 -- ./flight 1 0
expect_fail "*-o - streams a program's trace*" $FTRAIL record -e sched:sched_switch -o -
expect_fail "*--flight-recorder needs a program*" $FTRAIL record --flight-recorder -e sched:sched_switch
[ ! -e ftrail.dat ] && [ ! -e ftrail.dat.partial ] || fail "a refused command left a file"
exit 0
