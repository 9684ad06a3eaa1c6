# description: :mod: names a library as ftrace users write it: libname, libname.so, libname.so.N, or a glob
# requires:
. "$TOP/tests/e2e/lib.sh"
. "$TOP/tests/progs/rt_e2e.sh"
for flags in "-fpatchable-function-entry=5" "-pg -mfentry"; do
	build libdl.so.1 gcc -O2 -shared -fPIC $flags "$P/dl_lib.c" || fail "build lib"
	build dlm gcc -O2 $flags "$P/dl_main.c" -ldl || fail "build main"
	for mod in libdl libdl.so libdl.so.1 'libd*'; do
		rec t.dat -l "*:mod:$mod" -- ./dlm ./libdl.so.1
		expect_shape "$flags :mod:$mod" "$(shape t.dat)" 'lib_entry() { lib_leaf(); }'
	done
	# the program itself, and a module that is not there
	rec t.dat -l "call_lib:mod:dlm" -- ./dlm ./libdl.so.1
	expect_shape "$flags :mod:dlm" "$(shape t.dat)" 'call_lib();'
	"$FTRAIL" record -q -o t.dat -l '*:mod:libdlx.so' -- ./dlm ./libdl.so.1 >out 2>err ||
		fail "record :mod:libdlx.so: $(cat err)"
	grep -q "no function matches '\*:mod:libdlx.so'" err || fail "no warning for :mod:libdlx.so: $(cat err)"
	expect_shape "$flags :mod:libdlx.so" "$(shape t.dat)" ''
done
exit 0
