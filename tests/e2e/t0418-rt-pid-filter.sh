# description: set_ftrace_pid (--pid): threads not listed are not traced; the nop tracer hooks nothing
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
build basic gcc -O2 -fpatchable-function-entry=5 "$P/basic.c" || fail "build"
# pid 1 is never one of the program's threads
rec t.dat --pid 1 -- ./basic
expect_shape "--pid 1" "$(shape t.dat)" ''
rec t.dat -p nop -- ./basic
expect_shape "nop" "$(shape t.dat)" ''
grep -q '^10$' rec.out || fail "program output"
exit 0
