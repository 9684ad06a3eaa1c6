# description: user events defined in a shared library are found through its __ftrail_events section; one event defined in two objects is one event
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
cc -O2 -fPIC -shared -I"$TOP/include" -o libev_lib.so "$TOP/tests/progs/ev_lib.c" || fail "build lib"
cc -O2 -I"$TOP/include" -o ev_main "$TOP/tests/progs/ev_main.c" -L. -lev_lib -Wl,-rpath,"$PWD" || fail "build main"
./ev_main || fail "runs without ftrail"
$FTRAIL record -q -p nop -e u:all -o l.dat -- ./ev_main 2>err || fail "record: $(cat err)"
got=$($FTRAIL show -i l.dat | sed -n 's/^.*\] *[0-9.]*: //p' | grep -v '^sched_process_exit' | tr '\n' '|')
[ "$got" = "start: n=1|work: n=0 who=lib|work: n=1 who=lib|work: n=2 who=lib|work: n=99 who=main|" ] || fail "got '$got'"
# lib:work has one format (one id) although two objects define it
$FTRAIL record -q -p nop -e u:lib:work -o l.dat -- ./ev_main 2>err || fail "record: $(cat err)"
[ "$($FTRAIL show -i l.dat | grep -c ' work: ')" = 4 ] || fail "u:lib:work from both objects"
$FTRAIL record -q -p nop -e u:lib:work -f 'n == 1' -o l.dat -- ./ev_main 2>err || fail "record: $(cat err)"
got=$($FTRAIL show -i l.dat | grep -c ' work: ')
[ "$got" = 1 ] || fail "filter on a library event: $got events"
exit 0
