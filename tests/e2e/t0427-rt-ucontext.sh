# description: makecontext/swapcontext: each user context keeps its own call tree; nothing is lost or unwound across a switch
# requires:
# asan: yes
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
# tests/progs/ucontext.c: run() starts co_body() on its own stack, which
# yields back twice, and returns through uc_link.  Each context's calls
# nest at their own depth (co_body at the root of its stack), every call
# is there, and co_body's frame is neither "unwound" nor lost (before, the
# hijacking tracers aborted with "shadow stack lost its frame").
want='main() {
  run() {
co_body() {
  co_leaf();
    after();
  co_leaf();
    after();
  co_leaf();
}
    after();
  }
  after();
  printf();
}'
for flags in "-pg -mfentry" "-pg" "-fpatchable-function-entry=5" "-finstrument-functions"; do
	build uc gcc -O2 $flags "$P/ucontext.c" || fail "build $flags"
	rec t.dat -- ./uc
	grep -q '^sum 8$' rec.out || fail "$flags: program output: $(cat rec.out rec.err)"
	grep -q 'lost its frame\|killed' rec.err && fail "$flags: $(cat rec.err)"
	"$FTRAIL" show -i t.dat >show.out 2>show.err || fail "$flags: show: $(cat show.err)"
	got=$(grep -v '^#' show.out | sed -n 's/^[^|]*|  //p' | grep -v '/\*' | sed 's/ *$//' |
		sed -n '/^main() {$/,$p')
	[ "$got" = "$want" ] || fail "$flags: call tree:
$got
expected:
$want"
	[ "$(calls t.dat after)" = 4 ] || fail "$flags: after() calls: $(cat report.out)"
	[ "$(calls t.dat co_leaf)" = 3 ] || fail "$flags: co_leaf() calls: $(cat report.out)"
done
exit 0
