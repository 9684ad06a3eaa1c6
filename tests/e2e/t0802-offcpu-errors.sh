# description: offcpu: bad options and bad input files give one line on stderr and a non-zero exit
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
expect_fail "ftrail: --threshold wants milliseconds, not 'abc'" $FTRAIL offcpu --threshold abc
expect_fail "ftrail: --top wants a number, not '-1'" $FTRAIL offcpu --top -1
expect_fail "ftrail: offcpu: a program to run needs --record*" $FTRAIL offcpu -- /bin/true
expect_fail "ftrail: offcpu: give a program or -P PID, not both" $FTRAIL offcpu --record -P 1 -- /bin/true
expect_fail "ftrail: cannot open nosuch.dat: No such file or directory" $FTRAIL offcpu -i nosuch.dat
expect_fail "ftrail: *unknown option*" $FTRAIL offcpu --frobnicate
printf 'not a trace file at all\n' >junk.dat
expect_fail "ftrail: *junk.dat*" $FTRAIL offcpu -i junk.dat
$FTRAIL offcpu --help | head -n 1 | grep -q '^usage: ftrail offcpu' || fail "--help"
exit 0
