# description: -O funcgraph-args/-retval from DWARF and -A/--retval: typed values, golden output with every flag, gcc and clang, -O0 and -O2
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# the graph below main, durations and CPU off, addresses of the stack and
# of mappings (which move from run to run) as 0xADDR
graph() {
	"$FTRAIL" show -i "$1" -O nofuncgraph-duration -O nofuncgraph-cpu "${@:2}" >show.out \
		2>show.err || fail "show $1: $(cat show.err)"
	sed -n '/^main(/,$p' show.out | grep -v '^/\*' | sed 's/0x7f[0-9a-f]\{8,\}/0xADDR/g'
}
want='main(argc=1, argv=0xADDR) {
  add(a=2, b=40); /* = 42 */
  add(a=-7, b=1); /* = -6 */
  mix(c8=-3, s16=-300, u32=4000000000, i64=-5000000000, uc=200, ok=true); /* = -5 */
  scale(d=1.5, f=0.25, n=4); /* = 1.5 */
  slen(s="hello", deref=1); /* = 5 */
  slen(s=(null), deref=0); /* = 0 */
  slen(s=0x10(bad), deref=0); /* = 0 */
  slen(s="xxxx", deref=0); /* = 0 */
  slen(s="xx", deref=0); /* = 0 */
  paint(c=RED, where=0x1234); /* = BLUE */
  paint(c=GREEN, where=0x0); /* = GREEN */
  byval(p={...}(8B), b={...}(40B), after=9); /* = 21 */
  make_big(seed=6); /* = {...}(40B) */
  name_of(i=1); /* = "one" */
  nothing();
} /* main = 0 */'
# the same calls without the values: what every other run must look like
plain='main() { add(); add(); mix(); scale(); slen(); slen(); slen(); slen(); slen(); paint(); paint(); byval(); make_big(); name_of(); nothing(); }'
# one build: its values, hidden at will, and nothing captured without the options
args_one() { # cc opt flags
	local cc=$1 opt=$2 flags=$3 got
	build t $cc -g $opt $flags "$P/args.c" || return 1
	rec t.dat --no-libcall -O funcgraph-args -O funcgraph-retval -- ./t
	if [ "$flags" = -finstrument-functions ]; then
		# its hooks run after the prologue: no registers to read, said once
		[ "$(grep -c 'not captured' rec.err)" = 1 ] ||
			fail "$cc $opt $flags: no single warning: $(cat rec.err)"
		expect_shape "$cc $opt $flags" "$(main_shape t.dat)" "$plain"
	else
		got=$(graph t.dat)
		[ "$got" = "$want" ] ||
			fail "$cc $opt $flags: got
$got
expected
$want"
	fi
	expect_shape "$cc $opt $flags hidden" \
		"$(main_shape t.dat -O nofuncgraph-args -O nofuncgraph-retval)" "$plain"
	rec t.dat --no-libcall -- ./t
	expect_shape "$cc $opt $flags none" "$(main_shape t.dat)" "$plain"
}
graph_matrix 12 args_one
expect_built 12

# explicit specs: formats, names, the last -A wins, --retval alone
build t gcc -g -O2 -pg -mfentry "$P/args.c" || fail "build"
rec t.dat --no-libcall -A 'add@arg1/x32,arg2/u8' -A 'add@x=arg2/i32' --retval 'paint@retval/u32' \
	-A 'slen@arg1/s:4' -A 'scale@fparg1/f32,fparg2/f32,arg1/i16' -- ./t
got=$(graph t.dat | grep -E '^  (add|paint|slen|scale)\(' | head -n 6)
want2='  add(x=40);
  add(x=1);
  scale(0, 0.25, 4);
  slen("hell"...);
  slen((null));
  slen(0x10(bad));'
[ "$got" = "$want2" ] || fail "explicit specs: got
$got
expected
$want2"
graph t.dat | grep -qxF '  paint(); /* = 7 */' || fail "--retval: $(cat show.out)"
# without DWARF: a warning, and the integer registers in hex
build t gcc -O2 -pg -mfentry "$P/args.c" || fail "build"
rec t.dat --no-libcall -O funcgraph-args -- ./t
grep -q 'has no DWARF information' rec.err || fail "no DWARF warning: $(cat rec.err)"
[ "$(grep -c DWARF rec.err)" = 1 ] || fail "warned more than once: $(cat rec.err)"
graph t.dat | grep -q '^  add(0x2, 0x28, ' || fail "register fallback: $(cat show.out)"
exit 0
