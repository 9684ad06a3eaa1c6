# description: deep recursion: 10000 nested frames traced; beyond the shadow stack (16384) calls are counted lost
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build rec gcc -O0 -pg -mfentry "$P/recurse.c" || fail "build"
rec t.dat -- ./rec 10000
[ "$(calls t.dat rec)" = 10001 ] || fail "rec calls $(calls t.dat rec)"
"$FTRAIL" record -o t.dat -- ./rec 20000 >out 2>err || fail "record 20000: $(cat err)"
grep -q '^20000$' out || fail "program result"
grep -q 'lost' err || fail "no lost count reported: $(cat err)"
build rec gcc -O0 -finstrument-functions "$P/recurse.c" || fail "build"
rec t.dat -- ./rec 10000
[ "$(calls t.dat rec)" = 10001 ] || fail "cyg rec calls $(calls t.dat rec)"
exit 0
