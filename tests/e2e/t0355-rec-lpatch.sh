# description: record -l/-g on a program built without instrumentation (gcc -O2, and attached with -P): the functions they select are patched, said in one line; the exact call tree; never on an instrumented program (a no_instrument_function function stays untraced)
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
need_runtime
cat >un.c <<'C'
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static volatile long sink;

#ifdef NOINSTR_N
__attribute__((noinline, noclone, no_instrument_function)) long func_n(long x)
{
	return x + sink;
}
#else
long func_n(long x);
#define func_n(x) 0
#endif

__attribute__((noinline, noclone)) long func_b(long x)
{
	sink += x;
	return x * 3 + sink;
}

__attribute__((noinline, noclone)) long func_a(long x)
{
	return func_b(x) + func_b(x + 1);
}

__attribute__((noinline, noclone)) long other(long x)
{
	return (func_a(x) ^ 5) + func_n(x);
}

/* un N: N rounds; un -s STOPFILE: rounds until STOPFILE exists */
int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 1, s = 0;

	if (argc > 2 && !strcmp(argv[1], "-s")) {
		printf("ready\n");
		fflush(stdout);
		for (long i = 0; access(argv[2], F_OK); i++) {
			s += other(i);
			usleep(1000);
		}
		printf("sum=%ld\n", s);
		return 0;
	}
	for (long i = 0; i < n; i++)
		s += other(i);
	printf("sum=%ld\n", s);
	return 0;
}
C
sed -i 's/#include <unistd.h>/#include <string.h>\n&/' un.c
build un gcc -O2 un.c || skip "needs gcc"
nm un | grep -qE ' (_?mcount|__fentry__|__cyg_profile_func_enter)(@|$)' && fail "un has hooks"
readelf -SW un | grep -qE '__mcount_loc|__patchable_function_entries' && fail "un has patch sites"
W='^ftrail: warning:'

# -l alone: func_a and func_b patched and traced, other not; one line says so
./un 2 >want.out || fail "un failed"
"$FTRAIL" record -l 'func*' -o t.dat -- ./un 2 >prog.out 2>rec.err || fail "record: $(cat rec.err)"
cmp -s prog.out want.out || fail "the program went wrong: $(cat prog.out), not $(cat want.out)"
expect_grep rec.err "no line about the patching" \
	"$W ./un has no instrumentation: patching the functions -l selects (--patch)\$"
expect_grep rec.err "no summary" "$W --patch: 2 function(s) patched, 0 refused\$"
grep -q 'compile it with' rec.err && fail "still says to recompile: $(cat rec.err)"
[ "$(grep -c 'no instrumentation' rec.err)" = 1 ] || fail "said twice: $(cat rec.err)"
one="func_a() { func_b(); func_b(); }"
expect_shape "-l 'func*'" "$(shape t.dat)" "$one $one"

# '!' removes from what is patched, as from what is traced
rec t1.dat -l 'func*' -l '!func_b' -- ./un 2
expect_grep rec.err "-l '!func_b': summary" "$W --patch: 1 function(s) patched, 0 refused\$"
expect_shape "-l 'func*' -l '!func_b'" "$(shape t1.dat)" "func_a(); func_a();"

# -g alone: the function it names (only: those below it need -l or --patch)
rec t2.dat -g func_a -- ./un 1
expect_grep rec.err "-g: no line about the patching" \
	"$W ./un has no instrumentation: patching the functions -g selects (--patch)\$"
expect_shape "-g func_a" "$(shape t2.dat)" "func_a();"

# --patch given: it alone decides what is patched, as before
rec t3.dat --patch other -l 'func*' -- ./un 1
grep -q 'patching the functions' rec.err && fail "--patch: -l patched too: $(cat rec.err)"
expect_grep rec.err "--patch: summary" "$W --patch: 1 function(s) patched, 0 refused\$"
[ "$(calls t3.dat other)" = 0 ] || fail "--patch other -l 'func*': other traced"
[ "$(calls t3.dat func_a)" = 0 ] || fail "--patch other -l 'func*': func_a traced"

# instrumented (-pg): func_n, left without a hook on purpose, is not patched
# because of -l; --patch does patch it (so it could be)
build pg gcc -O2 -pg -DNOINSTR_N un.c || skip "needs gcc -pg"
nm pg | grep -qE ' _?mcount(@|$)' || fail "pg has no mcount"
rec t4.dat -l 'func*' -- ./pg 2
grep -qE 'no instrumentation|--patch' rec.err && fail "-pg: patched: $(cat rec.err)"
expect_shape "-pg -l 'func*'" "$(shape t4.dat)" "$one $one"
rec t5.dat -l 'func*' --patch func_n -- ./pg 1
expect_grep rec.err "-pg --patch func_n: summary" "$W --patch: 1 function(s) patched, 0 refused\$"
expect_shape "-pg --patch func_n" "$(shape t5.dat)" "$one func_n();"

# attached (-P) to the running program: the same
rm -f stop
./un -s "$PWD/stop" >srv.out 2>&1 &
SRV_PID=$!
trap 'touch stop; kill $SRV_PID 2>/dev/null; wait $SRV_PID 2>/dev/null' EXIT
for _ in $(seq 100); do
	grep -q '^ready' srv.out && break
	sleep 0.1
done
grep -q '^ready' srv.out || fail "un -s did not start: $(cat srv.out)"
"$FTRAIL" record -P "$SRV_PID" -l 'func*' --duration 1 -o t6.dat >rec.out 2>rec.err ||
	fail "record -P: $(cat rec.err)"
expect_grep rec.err "-P: no line about the patching" \
	"$W process $SRV_PID (un) has no instrumentation: patching the functions -l selects (--patch)\$"
expect_grep rec.err "-P: summary" "$W --patch: 2 function(s) patched, 0 refused\$"
a=$(calls t6.dat func_a)
b=$(calls t6.dat func_b)
[ "$a" -gt 0 ] && [ "$b" -ge $((2 * a - 2)) ] && [ "$b" -le $((2 * a + 2)) ] ||
	fail "-P: $a func_a, $b func_b calls"
[ "$(calls t6.dat other)" = 0 ] || fail "-P: other traced"
touch stop
wait $SRV_PID || fail "un -s failed after the detach: $(cat srv.out)"
trap - EXIT
expect_grep srv.out "un -s: no sum" '^sum=[0-9]*$'
expect_built 2
exit 0
