# description: record --patch: bad uses refused with one line; a glob matching nothing says so; in a program built with patchable entries, compiled-in sites stay patch.c's, only the functions without one are moved (not one tail-calling a hooked function), every count right
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
need_runtime
build libdynpatch_lib.so gcc -O2 -shared -fPIC "$P/dynpatch_lib.c" || fail "build lib"
build dp gcc -O2 "$P/dynpatch.c" -L. -ldynpatch_lib -Wl,-rpath,"$PWD" -lpthread || fail "build dp"

# bad uses: one line, non-zero, nothing run
bad_use() {
	"$FTRAIL" record "$@" >out 2>err && fail "record $* succeeded"
	[ "$(wc -l <err)" = 1 ] && grep -q "^ftrail: " err || fail "record $*: $(cat err)"
	[ ! -e ran ] || fail "record $*: the program ran"
}
bad_use --patch 'dp_*' -e sched:sched_switch
grep -q -- '--patch needs a program' err || fail "no program: $(cat err)"
bad_use -p nop --patch 'dp_*' -- touch ran
grep -q -- '--patch needs a function tracer' err || fail "nop: $(cat err)"
bad_use --patch '' -- touch ran
grep -q -- '--patch wants a function glob' err || fail "empty glob: $(cat err)"

# a glob that matches nothing: said, the program runs untraced and right
"$FTRAIL" record --patch 'nothing_here*' -o t.dat -- ./dp 10 1 >prog.out 2>rec.err ||
	fail "record: $(cat rec.err)"
grep -q '^ftrail: warning: --patch: 0 function(s) patched, 0 refused (no function without instrumentation matched)$' rec.err ||
	fail "no match not said: $(cat rec.err)"
grep -q '^errors=0 text_changed=0$' prog.out || fail "program: $(cat prog.out)"

# patchable entries: the C functions have a site (patched by patch.c, as
# without --patch), the assembly ones and the plain library's do not
build dpe gcc -O2 -fpatchable-function-entry=5 "$P/dynpatch.c" -L. -ldynpatch_lib \
	-Wl,-rpath,"$PWD" -lpthread || fail "build dpe"
"$FTRAIL" record --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib' -o m.dat \
	-- ./dpe 2000 2 >prog.out 2>rec.err || fail "record: $(cat rec.err)"
grep -q '^errors=0 text_changed=0$' prog.out || fail "program: $(cat prog.out)"
grep -q '^ftrail: warning: --patch: 3 function(s) patched, 3 refused$' rec.err ||
	fail "summary: $(cat rec.err)"
# a tail call from a moved function into one with a compiled-in hook would
# break the return hijack: refused
grep -q '^ftrail: warning: --patch: dp_tailasm not patched: it tail-calls dp_leaf, which has a compiled-in hook$' rec.err ||
	fail "dp_tailasm not refused: $(cat rec.err)"
[ "$(calls m.dat dp_tailasm)" = 0 ] || fail "dp_tailasm traced"
grep -q 'dp_short not patched' rec.err && fail "dp_short has a site, yet refused: $(cat rec.err)"
for f in dp_leaf dp_global dp_tail dp_switch dp_short dp_riprel dp_callfirst dp_work dp_libfn; do
	want=$(awk -v f="$f" '$1 == "calls" && $2 == f { print $3 }' prog.out)
	got=$(calls m.dat "$f")
	[ -n "$want" ] && [ "$got" = "$want" ] || fail "$f: $got calls traced, the program made $want"
done
expect_built 3
exit 0
