# description: integer argument and return-value capture: the hooks' fast path writes what the general path writes
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# Integer-register specs (every width and sign, hex, char, bool) go
# through the trampolines' C fast path; the same record under
# --max-graph-depth (which turns every fast path off) goes through the
# general one.  The two shows must be the same, call for call, across
# enough calls to fill several ring pages (page switches send the fast
# path back to the general writer), and a sample of values must be the
# ones the program passed.
SPEC=(-A 'wide@a=arg1,b=arg2/x64' -A 'narrow@c=arg1/i8,s=arg2/u16,i=arg3/i32,u=arg4/c'
	-A 'six@arg1,arg2/x32,arg3/u64,arg4/b,arg5/i16,arg6/i64'
	-A 'noret@x=arg1/i32'
	--retval 'wide@retval' --retval 'narrow@retval/i8' --retval 'six@retval/u32')
values() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration -O nofuncgraph-cpu -O nofuncgraph-proc \
		>show.out 2>show.err || fail "show $1: $(cat show.err)"
	sed -n '/^main(/,$p' show.out
}
N=3000
n=0
for flags in "-pg" "-pg -mfentry" "-fpatchable-function-entry=5"; do
	# shellcheck disable=SC2086
	build t gcc -O2 $flags "$P/args_fast.c" || continue
	rec fast.dat --no-libcall "${SPEC[@]}" -- ./t $N
	rec gen.dat --no-libcall --max-graph-depth 100 "${SPEC[@]}" -- ./t $N
	values fast.dat >fast.txt
	values gen.dat >gen.txt
	calls=$(grep -c 'wide(' fast.txt)
	[ "$calls" = $N ] || fail "$flags: $calls calls of wide, expected $N"
	cmp -s fast.txt gen.txt || fail "$flags: fast and general capture differ:
$(diff fast.txt gen.txt | head -n 20)"
	# the values themselves, at i = 0 and i = 1 (as the program computes them)
	for want in 'wide(a=5000000000, b=0x0); /* = 5000000000 */' \
		"narrow(c=-64, s=60000, i=0, u='\\xc8'); /* = -24 */" \
		'six(0, 0x0, 0, true, -4, 1099511627776); /* = 4294967295 */' \
		'wide(a=-4999999999, b=0x200000000); /* = -13589934591 */' \
		"narrow(c=-63, s=60001, i=-1000, u='\\xc9'); /* = 3 */" \
		'six(1, 0xffffffff, 2, true, -4, 1099511627776); /* = 1 */' \
		"noret(x=$((N - 1)));"; do
		grep -qF "  $want" fast.txt || fail "$flags: no line '$want'"
	done
	n=$((n + 1))
done
[ $n -ge 2 ] || fail "only $n of the instrumentations built"
exit 0
