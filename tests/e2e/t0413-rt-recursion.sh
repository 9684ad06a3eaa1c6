# description: deep recursion: 10000 nested frames traced; beyond the shadow stack (16384) calls are counted lost, 2 records each
# requires:
# --no-libcall: the counts are of the program's own calls
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build rec gcc -O0 -pg -mfentry "$P/recurse.c" || fail "build"
rec t.dat --no-libcall -- ./rec 10000
[ "$(calls t.dat rec)" = 10001 ] || fail "rec calls $(calls t.dat rec)"
"$FTRAIL" record --no-libcall -o t.dat -- ./rec 20000 >out 2>err || fail "record 20000: $(cat err)"
grep -q '^20000$' out || fail "program result"
grep -q 'lost' err || fail "no lost count reported: $(cat err)"
# a call beyond the shadow stack loses its entry and its exit: records + lost =
# 2 x (main + 20001 rec calls) + the exit record
set -- $(sed -n 's/^ftrail: \([0-9]*\) user records (\([0-9]*\) lost).*/\1 \2/p' err)
[ $(($1 + $2)) = 40005 ] || fail "records $1 + lost $2 != 40005"
build rec gcc -O0 -finstrument-functions "$P/recurse.c" || fail "build"
rec t.dat --no-libcall -- ./rec 10000
[ "$(calls t.dat rec)" = 10001 ] || fail "cyg rec calls $(calls t.dat rec)"
exit 0
