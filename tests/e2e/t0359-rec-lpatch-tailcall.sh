# description: patched functions that tail-call through the PLT (and the GOT, -fno-plt) are patched, not refused: the callee (a libc function, a library's plain, patched or -pg function) nests under them, every call closed, two threads' results right over many calls (gcc, clang -O2)
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
need_runtime
cat >tclib.c <<'C'
long tc_lib(long x)
{
	return 2 * x + 1;
}
C
cat >tc.c <<'C'
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef __clang__
#define TC_FN __attribute__((noinline))
#else
#define TC_FN __attribute__((noinline, noclone))
#endif

long tc_lib(long x); /* tclib.c */
static FILE *out;
static volatile long bias = 1;
static long rounds, errors[2];

/* each a tail call: jmp through the PLT (-fno-plt: through the GOT) */
TC_FN int tc_puts(const char *s)
{
	return fputs(s, out);
}

TC_FN long tc_tolib(long x)
{
	return tc_lib(x + bias);
}

TC_FN long tc_mid(long x)
{
	long r = tc_tolib(x);

	if (tc_puts("tc\n") < 0)
		r = -1;
	return r;
}

static void *run(void *arg)
{
	long *err = arg;

	for (long i = 0; i < rounds; i++)
		if (tc_mid(i) != 2 * (i + 1) + 1)
			++*err;
	return NULL;
}

int main(int argc, char **argv)
{
	pthread_t t;

	out = fopen("/dev/null", "w");
	rounds = argc > 1 ? strtol(argv[1], NULL, 10) : 1;
	if (!out || pthread_create(&t, NULL, run, &errors[1]))
		return 2;
	run(&errors[0]);
	pthread_join(t, NULL);
	printf("errors=%ld\n", errors[0] + errors[1]);
	return errors[0] + errors[1] != 0;
}
C
LD=(-L. -ltclib -Wl,-rpath,"$PWD" -lpthread)
# tree LIB LIBC: tc_mid's tree for one round, LIB and LIBC under its two
# tail-calling functions (empty: leaves)
tree() {
	local a="tc_tolib();" b="tc_puts();"
	[ -n "$1" ] && a="tc_tolib() { $1 }"
	[ -n "$2" ] && b="tc_puts() { $2 }"
	echo "tc_mid() { $a $b }"
}
for cc in gcc clang; do
	for plt in "" -fno-plt; do
		w="$cc $plt"
		build libtclib.so $cc -O2 -shared -fPIC tclib.c || continue
		build tc $cc -O2 $plt tc.c "${LD[@]}" || fail "$w: the library builds, not the program"
		objdump -d --no-show-raw-insn tc | grep -A6 '<tc_puts>:' | grep -q 'jmp .*fputs' ||
			fail "$w: tc_puts makes no tail call: $(objdump -d tc | grep -A6 '<tc_puts>:')"
		# the call through the PLT is hooked (a JUMP_SLOT), through the GOT not
		lib="tc_lib();" libc="fputs();"
		[ "$plt" = -fno-plt ] && lib= libc=

		rec t.dat --patch 'tc_*' -g tc_mid -- ./tc 1
		expect_grep rec.err "$w: summary" '^ftrail: warning: --patch: 3 function(s) patched, 0 refused$'
		expect_shape "$w" "$(task_shape t.dat 1)" "$(tree "$lib" "$libc")"
		expect_shape "$w, thread" "$(task_shape t.dat 0)" "$(tree "$lib" "$libc")"
		# the library's function patched too: the stub's frame and its own
		rec t.dat --patch 'tc_*' --patch 'tc_lib:mod:libtclib' -g tc_mid -- ./tc 1
		expect_grep rec.err "$w lib: summary" '^ftrail: warning: --patch: 4 function(s) patched, 0 refused$'
		own="tc_lib();"
		[ -n "$lib" ] && own="tc_lib() { tc_lib(); }"
		expect_shape "$w lib patched" "$(task_shape t.dat 0)" "$(tree "$own" "$libc")"
		# the library built with -pg: its mcount hook finds the patched
		# caller's hijacked return in the slot (a tail call, through the
		# PLT or the GOT alike)
		build libtclib.so $cc -O2 -pg -shared -fPIC tclib.c || fail "$w: the library builds, not with -pg"
		rec t.dat --patch 'tc_*' -g tc_mid -- ./tc 1
		own="tc_lib();"
		[ -n "$lib" ] && own="tc_lib() { tc_lib(); }"
		expect_shape "$w lib -pg" "$(task_shape t.dat 0)" "$(tree "$own" "$libc")"

		# many calls, two threads: every result right, every call closed
		"$FTRAIL" record -q --patch 'tc_*' -o m.dat -- ./tc 20000 >prog.out 2>rec.err ||
			fail "$w: record: $(cat rec.err)"
		expect_grep prog.out "$w: the program went wrong" '^errors=0$'
		for f in tc_mid tc_tolib tc_puts tc_lib ${libc:+fputs}; do
			[ "$(calls m.dat $f)" = 40000 ] || fail "$w: $(calls m.dat $f) calls of $f, not 40000"
		done
		"$FTRAIL" show -i m.dat >show.out 2>show.err || fail "$w: show: $(cat show.err)"
		grep -q '^ *[0-9]*) .*| *} */\*' show.out && fail "$w: an exit without its entry: $(grep -m3 '} */\*' show.out)"
	done
done
expect_built 8
exit 0
