# description: latency tracers' bad input: unknown tracer, no program, nothing recorded, a thread with nothing
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
expect_fail "ftrail: unknown tracer 'stacks' (available: nop function function_graph stack lockheld sigsoff*)" \
	"$FTRAIL" record -q -p stacks -o t.dat -- true
[ -e t.dat ] && fail "a trace was written"
for tr in stack lockheld sigsoff; do
	expect_fail "ftrail: the $tr tracer needs a program: ftrail record -p $tr -- ./prog" \
		"$FTRAIL" record -q -p $tr -o t.dat
done
# a program that never locks, blocks or enters a traced function: said, not an error
build lk gcc -O2 -fpatchable-function-entry=5 "$P/ulat_lock.c" -lpthread || fail "build"
cat >none.c <<'C'
int main(void) { return 0; }
C
build none gcc -O2 none.c || fail "build none"
rec t.dat -p lockheld -- ./none
"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show: $(cat show.err)"
[ "$(cat show.out)" = "# tracer: lockheld
#
# no section recorded (no traced pthread_mutex_lock or _trylock call took a mutex)" ] ||
	fail "lockheld, nothing: $(cat show.out)"
rec t.dat -p sigsoff -- ./lk lock 1
"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "show: $(cat show.err)"
grep -qx '# no section recorded (no traced sigprocmask or pthread_sigmask call blocked a signal)' \
	show.out || fail "sigsoff, no block: $(cat show.out)"
# --tid of a thread with no result: the header alone
rec t.dat -p stack -- ./lk lock 1
"$FTRAIL" show -i t.dat --tid 1 >show.out 2>show.err || fail "show --tid 1: $(cat show.err)"
[ "$(sed -n 3p show.out)" = "# no stack recorded (no traced function was entered)" ] ||
	fail "--tid 1: $(cat show.out)"
expect_built 2
exit 0
