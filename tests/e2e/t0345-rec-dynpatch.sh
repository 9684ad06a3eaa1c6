# description: record --patch on an -O2 program and library built without instrumentation (gcc, clang, PIE or not): call counts equal the program's own, the exact call tree, refused functions listed with their reason
# requires: cc
# asan: yes
. "$TOP/tests/e2e/t0399-rec.inc"
. "$TOP/tests/progs/rt_e2e.sh"
need_runtime
# the functions a patch must move (rip-relative load and lea, call, tail
# calls from C and assembly, conditional jump, a 5-byte function ending in
# ret, a library's)
MOVED="dp_leaf dp_global dp_tail dp_tailasm dp_switch dp_riprel dp_callfirst dp_work dp_libfn"
for variant in "gcc -O2" "clang -O2" "gcc -O2 -fno-pie -no-pie" "gcc -O3 -g"; do
	set -- $variant
	cc=$1
	shift
	build libdynpatch_lib.so "$cc" "$@" -shared -fPIC "$P/dynpatch_lib.c" || continue
	build dp "$cc" "$@" "$P/dynpatch.c" -L. -ldynpatch_lib -Wl,-rpath,"$PWD" -lpthread ||
		continue
	# the elf carries no hook of any kind
	nm dp | grep -qE ' (mcount|__fentry__|__cyg_profile_func_enter)$' && fail "$variant: dp has hooks"
	readelf -SW dp | grep -qE '__mcount_loc|__patchable_function_entries' &&
		fail "$variant: dp has patch sites"

	"$FTRAIL" record --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib' -o t.dat \
		-- ./dp 3000 3 >prog.out 2>rec.err || fail "$variant: record: $(cat rec.err)"
	expect_grep prog.out "$variant: the program went wrong" '^errors=0 text_changed=0$'
	grep -q 'no instrumentation' rec.err && fail "$variant: warned about no instrumentation: $(cat rec.err)"
	PW='^ftrail: warning: --patch:'
	expect_grep rec.err "$variant: summary" "$PW 9 function(s) patched, 3 refused\$"
	expect_grep rec.err "$variant: dp_short not refused" \
		"$PW dp_short not patched: shorter than the 5 bytes of a jump\$"
	expect_grep rec.err "$variant: dp_backjump not refused" \
		"$PW dp_backjump not patched: the jump at +9 lands at +2, inside the 6 bytes a patch overwrites\$"
	expect_grep rec.err "$variant: dp_jrcxz not refused" \
		"$PW dp_jrcxz not patched: a jrcxz, loop or xbegin in its first bytes"
	for f in $MOVED; do
		want=$(awk -v f="$f" '$1 == "calls" && $2 == f { print $3 }' prog.out)
		got=$(calls t.dat "$f")
		[ -n "$want" ] && [ "$got" = "$want" ] || fail "$variant: $f: $got calls traced, the program made $want"
	done
	for f in dp_short dp_backjump dp_jrcxz main; do
		[ "$(calls t.dat "$f")" = 0 ] || fail "$variant: $f traced"
	done

	# one round, one thread: the exact tree (i = 0: dp_switch(0) calls nothing;
	# i = 1: dp_switch(1) calls dp_leaf); the program's library calls are
	# traced too (main's strtol, pthread_create... come first): dp_libfn
	# through the PLT, then the library's own, patched -- when the call goes
	# through a JUMP_SLOT (clang's dp takes dp_libfn's address: its PLT
	# entry jumps through a GLOB_DAT slot, which is not hooked)
	"$FTRAIL" record -q --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib' -o t1.dat \
		-- ./dp 2 1 >prog.out 2>rec.err || fail "$variant: record: $(cat rec.err)"
	lib="dp_libfn();" plt=
	if readelf -rW dp | grep -q 'JUMP_SLOT.* dp_libfn'; then
		lib="dp_libfn() { dp_libfn(); }" plt="dp_libfn <-dp_work;"
	fi
	one="dp_work() { dp_leaf(); dp_global(); dp_tail() { dp_global(); } SW dp_riprel(); dp_callfirst() { dp_riprel(); } $lib dp_tailasm() { dp_leaf(); } }"
	want="${one/SW/dp_switch();} ${one/SW/dp_switch() \{ dp_leaf(); \}}"
	expect_shape "$variant" "$(task_shape t1.dat 0)" "$want"

	# the same functions under the function tracer, each with its caller (the
	# module named by its file name, as -l's :mod: takes it too)
	"$FTRAIL" record -q -p function --patch 'dp_*' --patch 'dp_lib*:mod:libdynpatch_lib.so' \
		-o t2.dat -- ./dp 1 1 >prog.out 2>rec.err || fail "$variant: record -p function: $(cat rec.err)"
	# (main's own library calls aside)
	[ "$(funcs t2.dat | sed 's/[a-z_]* <-main;//g')" = "dp_work <-worker;dp_leaf <-dp_work;dp_global <-dp_work;dp_tail <-dp_work;dp_global <-dp_work;dp_switch <-dp_work;dp_riprel <-dp_work;dp_callfirst <-dp_work;dp_riprel <-dp_callfirst;${plt}dp_libfn <-dp_work;dp_tailasm <-dp_work;dp_leaf <-dp_work;" ] ||
		fail "$variant: function tracer: $(funcs t2.dat)"
done
expect_built 6
exit 0
