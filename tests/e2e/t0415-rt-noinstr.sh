# description: a program without instrumentation: one warning saying which flags to compile with, no crash
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build plain gcc -O2 "$P/basic.c" || fail "build"
"$FTRAIL" record -o t.dat -- ./plain >out 2>err
grep -q '^10$' out || fail "program did not run: $(cat out)"
grep -q 'no instrumentation' err && grep -q -- '-finstrument-functions' err || fail "no warning: $(cat err)"
exit 0
